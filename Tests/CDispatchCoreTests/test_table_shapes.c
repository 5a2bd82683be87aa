/*
 * test_table_shapes.c — an event's handler shapes: the summary of them (one
 * check of the argument types for all shapes, and the call images of a sole
 * shape computed with it) gives what checking each shape gives, handlers of
 * one shape share their images, and events whose shapes change between
 * executes are checked against the new shapes.
 */
#include "table_support.h"

#include <string.h>

/* What the 64-bit listeners last received. */
static int64_t heard_integer[2];
static int heard_calls;

static void hear_int64(int64_t a) {
    heard_integer[0] = a, heard_calls++;
    log_call(1);
}
static void hear_int32(int32_t a) {
    heard_integer[1] = a, heard_calls++;
    log_call(2);
}
static void hear_int64_too(int64_t a) {
    heard_integer[1] = a, heard_calls++;
    log_call(5);
}
static void take_double(double x) {
    (void)x;
    log_call(3);
}

/* A bound handler and its arguments. */
static struct {
    void *target;
    int64_t a, b;
    int calls;
} bound;

static void hear_bound(void *target, int64_t a, int64_t b) {
    bound.target = target, bound.a = a, bound.b = b, bound.calls++;
    log_call(4);
}

/* Two pointers, bound or not: which handler saw which pair. */
static void *pairs[4][2];
static void hear_pair_0(void *first, void *second) { pairs[0][0] = first, pairs[0][1] = second, log_call(10); }
static void hear_pair_1(void *first, void *second) { pairs[1][0] = first, pairs[1][1] = second, log_call(11); }
static void hear_pair_2(void *first, void *second) { pairs[2][0] = first, pairs[2][1] = second, log_call(12); }

static void sole_bound_shape_gets_missing_arguments_as_zero(void **state) {
    (void)state;
    int target = 0;
    assert_ok(dc_table_add(table, "moved", sig("v^vqq"), DC_FUNCTION(hear_bound), &target, NULL, NULL));
    memset(&bound, 0x5a, sizeof bound);
    bound.calls = 0;
    execute_ok("moved", (dc_value[]){dc_int64(7), dc_int64(8)}, 2);
    assert_ptr_equal(bound.target, &target);
    assert_int_equal(bound.a, 7);
    assert_int_equal(bound.b, 8);
    /* Fewer arguments on the next execute: the second is zero, not left over. */
    execute_ok("moved", (dc_value[]){dc_int64(-3)}, 1);
    assert_int_equal(bound.a, -3);
    assert_int_equal(bound.b, 0);
    execute_ok("moved", NULL, 0);
    assert_ptr_equal(bound.target, &target);
    assert_int_equal(bound.a, 0);
    assert_int_equal(bound.b, 0);
    assert_int_equal(bound.calls, 3);
}

static void word_parameter_converts_a_narrower_argument_on_every_execute(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "n", sig("vq"), DC_FUNCTION(hear_int64), NULL, NULL, NULL));
    execute_ok("n", (dc_value[]){dc_int32(-7)}, 1);
    assert_int_equal(heard_integer[0], -7);
    execute_ok("n", (dc_value[]){dc_int64(9)}, 1);
    assert_int_equal(heard_integer[0], 9);
    execute_ok("n", (dc_value[]){dc_uint8(200)}, 1);
    assert_int_equal(heard_integer[0], 200);
    assert_status(dc_table_execute(table, "n", (dc_value[]){dc_double(1.0)}, 1, NULL), DC_ERR_TYPE);
    assert_call_log(1, 1, 1);
}

static void shapes_disagreeing_on_a_type_still_run_with_conversions(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "n", sig("vq"), DC_FUNCTION(hear_int64), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "n", sig("vi"), DC_FUNCTION(hear_int32), NULL, NULL, NULL));
    heard_integer[0] = heard_integer[1] = 0;
    dc_result result = execute_ok("n", (dc_value[]){dc_int32(5)}, 1);
    assert_int_equal(result.handled, 2);
    assert_int_equal(heard_integer[0], 5);
    assert_int_equal(heard_integer[1], 5);
    result = execute_ok("n", (dc_value[]){dc_int64(-6)}, 1);
    assert_int_equal(heard_integer[0], -6);
    assert_int_equal(heard_integer[1], -6);
    /* Too large for the int32 handler: nothing runs. */
    assert_status(dc_table_execute(table, "n", (dc_value[]){dc_int64(INT64_C(1) << 40)}, 1, NULL), DC_ERR_TYPE);
    assert_call_log(1, 2, 1, 2);
}

static void handler_of_a_new_shape_constrains_the_next_execute_until_removed(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "x", sig("vq"), DC_FUNCTION(hear_int64), NULL, NULL, NULL));
    const dc_value integer[] = {dc_int64(4)};
    execute_ok("x", integer, 1);
    dc_handler_id taking_double = 0;
    assert_ok(dc_table_add(table, "x", sig("vd"), DC_FUNCTION(take_double), NULL, NULL, &taking_double));
    assert_status(dc_table_execute(table, "x", integer, 1, NULL), DC_ERR_TYPE);
    const dc_handler_options strict = handler_options(DC_HANDLER_STRICT, NULL);
    assert_ok(dc_table_remove(table, taking_double));
    assert_ok(dc_table_add(table, "x", sig("vq"), DC_FUNCTION(hear_int64_too), NULL, &strict, NULL));
    execute_ok("x", integer, 1);
    assert_int_equal(heard_integer[1], 4);
    assert_status(dc_table_execute(table, "x", (dc_value[]){dc_int64(4), dc_int64(5)}, 2, NULL), DC_ERR_ARITY);
    const dc_execute_options strict_execute = {.flags = DC_EXECUTE_STRICT};
    assert_status(dc_table_execute_with(table, "x", NULL, 0, &strict_execute, NULL), DC_ERR_ARITY);
    assert_ok(dc_table_execute_with(table, "x", integer, 1, &strict_execute, NULL));
    assert_call_log(1, 1, 5, 1, 5);
}

static void handlers_of_one_signature_bound_and_unbound_each_get_their_own_images(void **state) {
    (void)state;
    int target_0 = 0, target_2 = 2;
    char first = 'f', second = 's';
    assert_ok(dc_table_add(table, "pair", sig("v^v^v"), DC_FUNCTION(hear_pair_0), &target_0, NULL, NULL));
    assert_ok(dc_table_add(table, "pair", sig("v^v^v"), DC_FUNCTION(hear_pair_1), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "pair", sig("v^v^v"), DC_FUNCTION(hear_pair_2), &target_2, NULL, NULL));
    memset(pairs, 0, sizeof pairs);
    dc_result result = execute_ok("pair", (dc_value[]){dc_pointer(&first), dc_pointer(&second)}, 2);
    assert_int_equal(result.handled, 3);
    assert_call_log(10, 11, 12);
    assert_ptr_equal(pairs[0][0], &target_0);
    assert_ptr_equal(pairs[0][1], &first);
    assert_ptr_equal(pairs[1][0], &first);
    assert_ptr_equal(pairs[1][1], &second);
    assert_ptr_equal(pairs[2][0], &target_2);
    assert_ptr_equal(pairs[2][1], &first);
}

/* Seven pointers: more than the stubs pass, so the call takes libffi. */
static void *seven[7];
static void hear_seven(void *a, void *b, void *c, void *d, void *e, void *f, void *g) {
    seven[0] = a, seven[1] = b, seven[2] = c, seven[3] = d, seven[4] = e, seven[5] = f, seven[6] = g;
    log_call(7);
}

static void sole_shape_on_the_libffi_path_gets_every_argument(void **state) {
    (void)state;
    dc_signature *signature = sig("v^v^v^v^v^v^v^v");
    assert_int_equal(dc_signature_call_path(signature), DC_CALL_PATH_FFI);
    assert_ok(dc_table_add(table, "seven", signature, DC_FUNCTION(hear_seven), NULL, NULL, NULL));
    char bytes[7];
    dc_value values[7];
    for (int i = 0; i < 7; i++) values[i] = dc_pointer(&bytes[i]);
    execute_ok("seven", values, 7);
    for (int i = 0; i < 7; i++) assert_ptr_equal(seven[i], &bytes[i]);
    execute_ok("seven", values, 2);
    assert_ptr_equal(seven[1], &bytes[1]);
    for (int i = 2; i < 7; i++) assert_null(seven[i]);
    assert_call_log(7, 7);
}

static void stop_from_plain_handler(void *target) {
    (void)target;
    log_call(20);
    assert_ok(dc_table_stop_emission(table));
}

static void stop_emission_from_a_plain_handler_skips_the_rest(void **state) {
    (void)state;
    int target = 21;
    assert_ok(dc_table_add(table, "s", sig("v^v"), DC_FUNCTION(stop_from_plain_handler), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "s", sig("v^v"), DC_FUNCTION(record_target), &target, NULL, NULL));
    dc_result result = execute_ok("s", (dc_value[]){dc_pointer(NULL)}, 1);
    assert_int_equal(result.handled, 1);
    assert_true(result.stopped);
    assert_call_log(20);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        table_test(sole_bound_shape_gets_missing_arguments_as_zero),
        table_test(word_parameter_converts_a_narrower_argument_on_every_execute),
        table_test(shapes_disagreeing_on_a_type_still_run_with_conversions),
        table_test(handler_of_a_new_shape_constrains_the_next_execute_until_removed),
        table_test(handlers_of_one_signature_bound_and_unbound_each_get_their_own_images),
        table_test(stop_emission_from_a_plain_handler_skips_the_rest),
        table_test(sole_shape_on_the_libffi_path_gets_every_argument),
    };
    return cmocka_run_group_tests_name("event table fast paths", tests, NULL, NULL);
}
