/*
 * test_table_marshal.c — marshal handlers: a function that receives the
 * event's arguments as checked, converted values (GClosure's marshallers).
 */
#include "table_support.h"

#include <string.h>
#include "dispatch_core_binding.h"

/* What the last marshal call saw. */
static struct {
    void *data;
    size_t count;
    dc_value arguments[4];
    int calls;
} seen;

static void remember(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)result;
    seen.data = data;
    seen.count = count;
    for (size_t i = 0; i < count && i < 4; i++) seen.arguments[i] = arguments[i];
    seen.calls++;
    log_call((int)(intptr_t)data);
}

static void answer_doubled(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data;
    assert_int_equal(count, 1);
    assert_int_equal(result->type, DC_TYPE_INT64);
    assert_int_equal(result->i64, 0);
    result->i64 = arguments[0].i64 * 2;
}

static void marshal_receives_the_arguments_as_its_parameter_types(void **state) {
    (void)state;
    memset(&seen, 0, sizeof seen);
    assert_ok(dc_table_add_marshal(table, "move", sig("viq"), remember, (void *)7, NULL, NULL));
    dc_value arguments[] = {dc_int64(-3), dc_uint8(200)};
    dc_result result;
    assert_ok(dc_table_execute(table, "move", arguments, 2, &result));
    assert_int_equal(result.handled, 1);
    assert_ptr_equal(seen.data, (void *)7);
    assert_int_equal(seen.count, 2);
    assert_int_equal(seen.arguments[0].type, DC_TYPE_INT32);
    assert_int_equal(seen.arguments[0].i32, -3);
    assert_int_equal(seen.arguments[1].type, DC_TYPE_INT64);
    assert_int_equal(seen.arguments[1].i64, 200);
}

static void marshal_gets_zero_for_missing_arguments_and_not_extra_ones(void **state) {
    (void)state;
    memset(&seen, 0, sizeof seen);
    assert_ok(dc_table_add_marshal(table, "few", sig("vB*"), remember, (void *)1, NULL, NULL));
    dc_value one = dc_bool(true);
    assert_ok(dc_table_execute(table, "few", &one, 1, NULL));
    assert_int_equal(seen.count, 2);
    assert_true(seen.arguments[0].b);
    assert_int_equal(seen.arguments[1].type, DC_TYPE_STRING);
    assert_null(seen.arguments[1].string);

    assert_ok(dc_table_add_marshal(table, "many", sig("vq"), remember, (void *)2, NULL, NULL));
    dc_value three[] = {dc_int64(1), dc_int64(2), dc_int64(3)};
    assert_ok(dc_table_execute(table, "many", three, 3, NULL));
    assert_int_equal(seen.count, 1);
    assert_int_equal(seen.arguments[0].i64, 1);
}

static void marshal_return_value_is_the_execute_result(void **state) {
    (void)state;
    assert_ok(dc_table_add_marshal(table, "double", sig("qq"), answer_doubled, NULL, NULL, NULL));
    dc_value argument = dc_int64(21);
    dc_result result;
    assert_ok(dc_table_execute(table, "double", &argument, 1, &result));
    assert_true(result.has_return_value);
    assert_int_equal(result.return_value.type, DC_TYPE_INT64);
    assert_int_equal(result.return_value.i64, 42);
}

static void marshal_with_a_mismatched_argument_fails_before_any_handler_runs(void **state) {
    (void)state;
    memset(&seen, 0, sizeof seen);
    reset_call_log();
    assert_ok(dc_table_add_marshal(table, "typed", sig("vB"), remember, (void *)1, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "typed", sig("vq"), remember, (void *)2, NULL, NULL));
    dc_value wrong = dc_int64(1);
    assert_fails(dc_table_execute(table, "typed", &wrong, 1, NULL), DC_ERR_TYPE);
    assert_int_equal(seen.calls, 0);
}

static void marshal_runs_in_order_with_function_handlers(void **state) {
    (void)state;
    reset_call_log();
    assert_ok(dc_table_add(table, "mixed", sig("v"), DC_FUNCTION(record_1), NULL, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "mixed", sig("v"), remember, (void *)2, NULL, NULL));
    assert_ok(dc_table_add(table, "mixed", sig("v"), DC_FUNCTION(record_3), NULL, NULL, NULL));
    assert_ok(dc_table_execute(table, "mixed", NULL, 0, NULL));
    assert_call_log(1, 2, 3);
}

static void same_marshal_and_data_twice_keeps_one_and_remove_target_removes_it(void **state) {
    (void)state;
    dc_handler_id first = 0, second = 0;
    assert_ok(dc_table_add_marshal(table, "e", sig("v"), remember, (void *)5, NULL, &first));
    assert_int_equal(dc_table_add_marshal(table, "e", sig("v"), remember, (void *)5, NULL, &second), DC_EXISTS);
    assert_int_equal(first, second);
    assert_ok(dc_table_add_marshal(table, "e", sig("v"), remember, (void *)6, NULL, NULL));
    size_t removed = 0;
    assert_ok(dc_table_remove_target(table, (void *)5, &removed));
    assert_int_equal(removed, 1);
    size_t count = 0;
    assert_ok(dc_table_handler_count(table, "e", &count));
    assert_int_equal(count, 1);
}

static void marshal_with_null_function_is_rejected_and_table_unchanged(void **state) {
    (void)state;
    assert_fails(dc_table_add_marshal(table, "e", sig("v"), NULL, NULL, NULL, NULL), DC_ERR_NULL_ARGUMENT);
    assert_fails(dc_table_add_marshal(table, NULL, sig("v"), remember, NULL, NULL, NULL), DC_ERR_NULL_ARGUMENT);
    assert_fails(dc_table_add_marshal_id(table, 99, sig("v"), remember, NULL, NULL, NULL), DC_ERR_NOT_FOUND);
    size_t count = 1;
    assert_ok(dc_table_events(table, NULL, 0, &count));
    assert_int_equal(count, 0);
}

static void queued_marshal_is_delivered_with_copied_values(void **state) {
    (void)state;
    memset(&seen, 0, sizeof seen);
    dc_queue *queue = NULL;
    assert_ok(dc_queue_create(&queue));
    assert_ok(dc_queue_bind_to_current_thread(queue));
    dc_handler_options options = {0, queue, NULL, NULL};
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "queued", &id));
    assert_ok(dc_table_add_marshal_id(table, id, sig("vi"), remember, (void *)3, &options, NULL));
    dc_value argument = dc_int32(11);
    dc_result result;
    assert_ok(dc_table_execute_id(table, id, &argument, 1, &result));
    /* on the owner thread it runs at once */
    assert_int_equal(result.handled, 1);
    assert_int_equal(result.queued, 0);
    assert_int_equal(seen.arguments[0].i32, 11);
    dc_queue_destroy(queue);
}

static void answer_count(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data;
    (void)arguments;
    assert_int_equal(result->type, DC_TYPE_VOID);
    *result = dc_uint64(count);
}

static void variadic_marshal_receives_every_argument_as_given(void **state) {
    (void)state;
    memset(&seen, 0, sizeof seen);
    assert_ok(dc_table_add_marshal(table, "any", NULL, remember, (void *)4, NULL, NULL));
    assert_ok(dc_table_add(table, "any", sig("vq"), DC_FUNCTION(record_1), NULL, NULL, NULL));
    dc_value arguments[] = {dc_int64(5), dc_string("five"), dc_double(5.5)};
    dc_result result;
    assert_ok(dc_table_execute(table, "any", arguments, 3, &result));
    assert_int_equal(result.handled, 2);
    assert_int_equal(seen.count, 3);
    assert_int_equal(seen.arguments[1].type, DC_TYPE_STRING);
    assert_string_equal(seen.arguments[1].string, "five");
    assert_int_equal(seen.arguments[2].type, DC_TYPE_DOUBLE);
    /* strict executes constrain typed handlers, never a variadic one */
    dc_execute_options strict = {.flags = DC_EXECUTE_STRICT};
    assert_ok(dc_table_remove_event(table, "any", NULL));
    assert_ok(dc_table_add_marshal(table, "any", NULL, remember, (void *)4, NULL, NULL));
    assert_ok(dc_table_execute_with(table, "any", arguments, 3, &strict, &result));
    assert_int_equal(result.handled, 1);
}

static void variadic_marshal_chooses_its_result_type(void **state) {
    (void)state;
    assert_ok(dc_table_add_marshal(table, "count", NULL, answer_count, NULL, NULL, NULL));
    dc_value arguments[] = {dc_bool(true), dc_bool(false)};
    dc_result result;
    assert_ok(dc_table_execute(table, "count", arguments, 2, &result));
    assert_true(result.has_return_value);
    assert_int_equal(result.return_value.type, DC_TYPE_UINT64);
    assert_int_equal(result.return_value.u64, 2);
}

/* The fixture's table releases through count_release, counting `releases`. */
static void owned_target_is_released_once_when_the_handler_goes_and_not_for_a_duplicate(void **state) {
    (void)state;
    dc_handler_options owns = {DC__HANDLER_OWNS_TARGET, NULL, NULL, NULL};
    dc_handler_id id = 0;
    assert_ok(dc_table_add_marshal(table, "e", sig("v"), remember, (void *)8, &owns, &id));
    assert_int_equal(dc_table_add_marshal(table, "e", sig("v"), remember, (void *)8, &owns, NULL), DC_EXISTS);
    assert_ok(dc_table_execute(table, "e", NULL, 0, NULL));
    assert_int_equal(releases, 0);
    assert_ok(dc_table_remove(table, id));
    assert_int_equal(releases, 1);
    assert_ok(dc_table_add_marshal(table, "e", sig("v"), remember, (void *)9, &owns, NULL));
    dc_table_destroy(table);
    table = NULL;
    assert_int_equal(releases, 2);
}

static void owned_data_added_twice_with_allow_duplicate_is_released_once_per_handler(void **state) {
    (void)state;
    dc_handler_options owns = {DC__HANDLER_OWNS_TARGET | DC__HANDLER_ALLOW_DUPLICATE, NULL, NULL, NULL};
    dc_handler_id ids[2] = {0, 0};
    /* Two references handed over, two handlers, two releases. */
    assert_ok(dc_table_add_marshal(table, "e", sig("v"), remember, (void *)8, &owns, &ids[0]));
    assert_ok(dc_table_add_marshal(table, "e", sig("v"), remember, (void *)8, &owns, &ids[1]));
    assert_true(ids[0] != ids[1]);
    dc_result result;
    assert_ok(dc_table_execute(table, "e", NULL, 0, &result));
    assert_int_equal(result.handled, 2);
    assert_ok(dc_table_remove(table, ids[0]));
    assert_int_equal(releases, 1);
    dc_table_destroy(table);
    table = NULL;
    assert_int_equal(releases, 2);
}

static void *context_seen;
static void read_context(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)arguments, (void)count, (void)result;
    context_seen = dc__table_execute_context(table);
}

static void handlers_reach_the_context_of_the_execute_running_them(void **state) {
    (void)state;
    assert_ok(dc_table_add_marshal(table, "ctx", sig("v"), read_context, NULL, NULL, NULL));
    int slot = 0;
    assert_ok(dc__table_execute(table, "ctx", 0, NULL, 0, NULL, &slot, NULL));
    assert_ptr_equal(context_seen, &slot);
    assert_ok(dc_table_execute(table, "ctx", NULL, 0, NULL));
    assert_null(context_seen);
    /* outside any execute there is none */
    assert_null(dc__table_execute_context(table));
    assert_null(dc__table_execute_context(NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        table_test(marshal_receives_the_arguments_as_its_parameter_types),
        table_test(marshal_gets_zero_for_missing_arguments_and_not_extra_ones),
        table_test(marshal_return_value_is_the_execute_result),
        table_test(marshal_with_a_mismatched_argument_fails_before_any_handler_runs),
        table_test(marshal_runs_in_order_with_function_handlers),
        table_test(same_marshal_and_data_twice_keeps_one_and_remove_target_removes_it),
        table_test(marshal_with_null_function_is_rejected_and_table_unchanged),
        table_test(queued_marshal_is_delivered_with_copied_values),
        table_test(variadic_marshal_receives_every_argument_as_given),
        table_test(variadic_marshal_chooses_its_result_type),
        table_test(owned_target_is_released_once_when_the_handler_goes_and_not_for_a_duplicate),
        table_test(handlers_reach_the_context_of_the_execute_running_them),
        table_test(owned_data_added_twice_with_allow_duplicate_is_released_once_per_handler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
