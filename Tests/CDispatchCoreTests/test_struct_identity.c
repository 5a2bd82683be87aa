/*
 * test_struct_identity.c — a struct value that knows its layout: made with
 * dc_struct_with_layout() or handed out by the library, it fits a struct
 * parameter of the same layout whatever the names, and no other, even of the
 * same size; through dc_call, invocations, table executes and queues. What a
 * value says of itself is read back with dc_struct_size(); a forged identity
 * fits nothing; and past the most layouts a process identifies, values fall
 * back to fitting by size.
 */
#include "table_support.h"

typedef struct point {
    double x, y;
} point;

typedef struct span {
    int64_t first, last;
} span;

#define POINT "{point=dd}"
#define SIZE "{size=\"width\"d\"height\"d}"
#define SPAN "{span=qq}"

static int calls;

CALLEE static double sum_point(point p) {
    calls++;
    return p.x + p.y;
}

CALLEE static int64_t length_of(span s) {
    calls++;
    return s.last - s.first;
}

/* A struct value of `encoding`'s parameter 0 at `bytes`, knowing its layout. */
static dc_value value_of_parameter(const char *encoding, void *bytes) {
    dc_signature *signature = create_signature(encoding);
    dc_layout layout;
    assert_ok(dc_signature_parameter_layout(signature, 0, &layout));
    dc_value value;
    assert_ok(dc_struct_with_layout(bytes, &layout, &value));
    dc_signature_release(signature);
    return value;
}

static void a_struct_knowing_its_layout_fits_only_a_parameter_of_that_layout(void **state) {
    (void)state;
    point p = {1.5, 2.25};
    dc_value known = value_of_parameter("v" POINT, &p);
    assert_int_equal(dc_struct_size(&known), sizeof(point));

    /* {span=qq} is 16 bytes too: by size alone the point would pass. */
    dc_signature *taking_span = create_signature("q" SPAN);
    dc_value result;
    calls = 0;
    assert_failure(dc_call(taking_span, DC_FUNCTION(length_of), &known, 1, &result), DC_ERR_TYPE, "argument 0",
                   "{dd}", SPAN);
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(taking_span, DC_FUNCTION(length_of), &invocation));
    assert_failure(dc_invocation_set_argument(invocation, 0, &known), DC_ERR_TYPE, "{dd}", SPAN);
    dc_invocation_destroy(invocation);
    assert_int_equal(calls, 0);

    /* The same layout under other names fits. */
    dc_signature *taking_size = create_signature("d" SIZE);
    assert_ok(dc_call(taking_size, DC_FUNCTION(sum_point), &known, 1, &result));
    assert_value_equal(dc_double(3.75), result, "the point's sum through a {size} parameter");
    assert_int_equal(calls, 1);

    /* A return value is checked the same way. */
    dc_signature *returning_span = create_signature(SPAN);
    assert_ok(dc_invocation_create(returning_span, DC_FUNCTION(length_of), &invocation));
    assert_failure(dc_invocation_set_return_value(invocation, &known), DC_ERR_TYPE, "{dd}", SPAN);
    dc_invocation_destroy(invocation);
    dc_signature_release(returning_span);
    dc_signature_release(taking_size);
    dc_signature_release(taking_span);
}

static void struct_values_the_library_hands_out_fit_only_their_own_layout(void **state) {
    (void)state;
    dc_signature *taking_point = create_signature("d" POINT);
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(taking_point, DC_FUNCTION(sum_point), &invocation));
    point p = {4, 5};
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_struct(&p))));
    dc_value handed;
    assert_ok(dc_invocation_get_argument(invocation, 0, &handed));

    dc_signature *taking_span = create_signature("q" SPAN);
    dc_signature *taking_size = create_signature("d" SIZE);
    dc_value result;
    calls = 0;
    assert_failure(dc_call(taking_span, DC_FUNCTION(length_of), &handed, 1, &result), DC_ERR_TYPE, "{dd}", SPAN);
    assert_int_equal(calls, 0);
    assert_ok(dc_call(taking_size, DC_FUNCTION(sum_point), &handed, 1, &result));
    assert_value_equal(dc_double(9), result, "the invocation's point through a {size} parameter");

    /* Two signatures spelling one layout hand out values that say the same. */
    dc_invocation *other = NULL;
    assert_ok(dc_invocation_create(taking_size, DC_FUNCTION(sum_point), &other));
    dc_value zero;
    assert_ok(dc_invocation_get_argument(other, 0, &zero));
    assert_int_equal(zero.struct_id, handed.struct_id);
    dc_invocation_destroy(other);
    dc_invocation_destroy(invocation);
    dc_signature_release(taking_size);
    dc_signature_release(taking_span);
    dc_signature_release(taking_point);
}

static void a_table_execute_refuses_a_struct_of_another_layout_before_any_handler_runs(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "measured", sig("q" SPAN), DC_FUNCTION(length_of), NULL, NULL, NULL));
    point p = {1, 2};
    dc_value known = value_of_parameter("v" POINT, &p);
    calls = 0;
    assert_failure(dc_table_execute(table, "measured", &known, 1, NULL), DC_ERR_TYPE, "measured", "argument 0", "{dd}",
                   SPAN);
    assert_int_equal(calls, 0);

    span s = {10, 52};
    dc_value fitting = value_of_parameter("v{range=qq}", &s);
    dc_result executed;
    assert_ok(dc_table_execute(table, "measured", &fitting, 1, &executed));
    assert_int_equal(executed.handled, 1);
    assert_value_equal(dc_int64(42), executed.return_value, "the span's length");
}

static const void *delivered_bytes;
static dc_value delivered;

static void note_delivery(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data;
    (void)result;
    if (count != 1) fail_msg("a delivery of %zu arguments", count);
    delivered = arguments[0];
    delivered_bytes = arguments[0].pointer;
    delivered.pointer = NULL; /* the bytes are the delivery's, gone after it */
}

static void a_queued_delivery_of_a_struct_knows_what_its_value_knew(void **state) {
    (void)state;
    dc_queue *queue = queue_owned_elsewhere();
    dc_handler_options options = {.queue = queue};
    /* A variadic marshal: no parameter to take the size from but the value's. */
    assert_ok(dc_table_add_marshal(table, "posted", NULL, note_delivery, NULL, &options, NULL));
    point p = {7, 8};
    dc_value known = value_of_parameter("v" POINT, &p);
    dc_result result = execute_ok("posted", &known, 1);
    assert_int_equal(result.queued, 1);
    p.x = -1; /* the delivery holds a copy */
    size_t count = 0;
    assert_ok(dc_queue_drain(queue, &count));
    assert_int_equal(count, 1);
    assert_ptr_not_equal(delivered_bytes, &p);
    assert_int_equal(delivered.struct_id, known.struct_id);
    assert_int_equal(dc_struct_size(&delivered), sizeof(point));
    dc_queue_destroy(queue);
}

static void a_nested_struct_field_or_an_array_element_makes_a_value_of_its_own_layout(void **state) {
    (void)state;
    dc_signature *holding = create_signature("v{rect=" POINT SIZE "}{poly=i[3" POINT "]}");
    dc_layout rect, poly, field;
    assert_ok(dc_signature_parameter_layout(holding, 0, &rect));
    assert_ok(dc_signature_parameter_layout(holding, 1, &poly));
    dc_signature *taking_size = create_signature("d" SIZE);
    dc_signature *taking_span = create_signature("q" SPAN);
    dc_value result;
    point p = {0.5, 0.25};
    dc_value value;

    assert_ok(dc_layout_field(&rect, 1, &field));
    assert_ok(dc_struct_with_layout(&p, &field, &value));
    calls = 0;
    assert_ok(dc_call(taking_size, DC_FUNCTION(sum_point), &value, 1, &result));
    assert_value_equal(dc_double(0.75), result, "a rect's size field");
    assert_failure(dc_call(taking_span, DC_FUNCTION(length_of), &value, 1, &result), DC_ERR_TYPE, SPAN);

    /* An array of three points: the value is one point. */
    assert_ok(dc_layout_field(&poly, 1, &field));
    assert_int_equal(field.count, 3);
    assert_ok(dc_struct_with_layout(&p, &field, &value));
    assert_int_equal(dc_struct_size(&value), sizeof(point));
    assert_ok(dc_call(taking_size, DC_FUNCTION(sum_point), &value, 1, &result));
    assert_failure(dc_call(taking_span, DC_FUNCTION(length_of), &value, 1, &result), DC_ERR_TYPE, SPAN);

    /* The whole rect is another layout than its fields. */
    assert_ok(dc_struct_with_layout(&p, &rect, &value));
    assert_int_equal(dc_struct_size(&value), 2 * sizeof(point));
    assert_failure(dc_call(taking_size, DC_FUNCTION(sum_point), &value, 1, &result), DC_ERR_TYPE, "{{dd}{dd}}");
    assert_int_equal(calls, 2);
    dc_signature_release(taking_span);
    dc_signature_release(taking_size);
    dc_signature_release(holding);
}

static void dc_struct_with_layout_refuses_null_and_layouts_not_of_a_struct(void **state) {
    (void)state;
    dc_signature *signature = create_signature(POINT "i");
    dc_layout returned, parameter;
    assert_ok(dc_signature_return_layout(signature, &returned));
    assert_ok(dc_signature_parameter_layout(signature, 0, &parameter));
    point p = {0};
    dc_value untouched = dc_int32(99), out = untouched;
    assert_failure(dc_struct_with_layout(NULL, &returned, &out), DC_ERR_NULL_ARGUMENT, "bytes");
    assert_failure(dc_struct_with_layout(&p, NULL, &out), DC_ERR_NULL_ARGUMENT, "layout");
    assert_failure(dc_struct_with_layout(&p, &returned, NULL), DC_ERR_NULL_ARGUMENT, "out");
    assert_failure(dc_struct_with_layout(&p, &parameter, &out), DC_ERR_INVALID_ARGUMENT, "\"i\"");
    assert_value_equal(untouched, out, "out after refusals");
    assert_ok(dc_struct_with_layout(&p, &returned, &out));
    assert_int_equal(out.type, DC_TYPE_STRUCT);
    assert_ptr_equal(out.pointer, &p);
    dc_signature_release(signature);
}

static void dc_struct_size_reads_what_a_value_knows(void **state) {
    (void)state;
    point p = {0};
    assert_int_equal(dc_struct_size(NULL), 0);
    assert_int_equal(dc_struct_size(VALUE(dc_int64(16))), 0);
    assert_int_equal(dc_struct_size(VALUE(dc_struct(&p))), 0);
    assert_int_equal(dc_struct_size(VALUE(dc_struct_of(&p, 12))), 12);
    dc_value known = value_of_parameter("v" POINT, &p);
    assert_int_equal(dc_struct_size(&known), sizeof(point));

    /* A size no struct has fits no parameter. */
    dc_value huge = dc_struct_of(&p, (size_t)UINT32_MAX + 5);
    dc_signature *taking_point = create_signature("d" POINT);
    dc_value result;
    calls = 0;
    assert_failure(dc_call(taking_point, DC_FUNCTION(sum_point), &huge, 1, &result), DC_ERR_TYPE, "argument 0");
    assert_int_equal(calls, 0);
    dc_signature_release(taking_point);
}

static void a_forged_struct_identity_fits_no_parameter(void **state) {
    (void)state;
    point p = {1, 2};
    dc_value forged = dc_struct(&p);
    forged.struct_id = 0xfffffff0u; /* an identity the process never gave */
    assert_int_equal(dc_struct_size(&forged), 0);
    dc_signature *taking_point = create_signature("d" POINT);
    dc_value result;
    calls = 0;
    assert_failure(dc_call(taking_point, DC_FUNCTION(sum_point), &forged, 1, &result), DC_ERR_TYPE, "argument 0",
                   POINT);
    assert_ok(dc_table_add(table, "forged", taking_point, DC_FUNCTION(sum_point), NULL, NULL, NULL));
    assert_failure(dc_table_execute(table, "forged", &forged, 1, NULL), DC_ERR_TYPE, "forged", POINT);
    assert_int_equal(calls, 0);
    dc_signature_release(taking_point);
}

/* Last, since it fills the process's layouts: once full, a new layout's
 * values fit by size, while the layouts identified before still refuse
 * another layout of their size. */
static void past_the_most_layouts_a_process_identifies_values_fit_by_size(void **state) {
    (void)state;
    point p = {3, 4};
    dc_value early = value_of_parameter("v" POINT, &p);
    char encoding[64];
    size_t made = 0;
    for (unsigned ints = 1; ints <= 256 && made <= DC_MAX_STRUCT_LAYOUTS; ints++)
        for (unsigned chars = 1; chars <= 512 && made <= DC_MAX_STRUCT_LAYOUTS; chars++, made++) {
            snprintf(encoding, sizeof encoding, "v{filler=[%ui][%uc]}", ints, chars);
            dc_signature *signature = create_signature(encoding);
            dc_signature_release(signature);
        }
    assert_true(made > DC_MAX_STRUCT_LAYOUTS);

    span s = {0, 5};
    dc_value late = value_of_parameter("v{late=qii}", &s); /* a layout not seen before, of 16 bytes */
    assert_int_equal(dc_struct_size(&late), sizeof(span));
    dc_signature *taking_point = create_signature("d" POINT);
    dc_signature *taking_span = create_signature("q" SPAN);
    dc_value result;
    calls = 0;
    assert_ok(dc_call(taking_point, DC_FUNCTION(sum_point), &late, 1, &result)); /* its size alone is known */
    assert_ok(dc_call(taking_span, DC_FUNCTION(length_of), &late, 1, &result));
    assert_value_equal(dc_int64(5), result, "the late span's length");
    assert_failure(dc_call(taking_span, DC_FUNCTION(length_of), &early, 1, &result), DC_ERR_TYPE, "{dd}", SPAN);
    assert_int_equal(calls, 2);
    dc_signature_release(taking_span);
    dc_signature_release(taking_point);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_struct_knowing_its_layout_fits_only_a_parameter_of_that_layout),
        cmocka_unit_test(struct_values_the_library_hands_out_fit_only_their_own_layout),
        table_test(a_table_execute_refuses_a_struct_of_another_layout_before_any_handler_runs),
        table_test(a_queued_delivery_of_a_struct_knows_what_its_value_knew),
        cmocka_unit_test(a_nested_struct_field_or_an_array_element_makes_a_value_of_its_own_layout),
        cmocka_unit_test(dc_struct_with_layout_refuses_null_and_layouts_not_of_a_struct),
        cmocka_unit_test(dc_struct_size_reads_what_a_value_knows),
        table_test(a_forged_struct_identity_fits_no_parameter),
        cmocka_unit_test(past_the_most_layouts_a_process_identifies_values_fit_by_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
