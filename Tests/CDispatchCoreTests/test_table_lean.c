/*
 * test_table_lean.c — the lean execute (plain void handlers of one
 * shape of up to three word parameters, called directly) gives what the
 * general execute gives: arguments and bound targets where they belong, the
 * handlers it must hand to the general loop (once, queued, marshals) run in
 * order, removed and blocked ones are passed over and not counted, and stop,
 * destroy, nesting, options and errors behave as before.
 */
#include "table_support.h"

#include <string.h>
#include "dispatch_core_binding.h"

/* ---- handlers of 0..3 pointer parameters --------------------------------------------- */

/* What the last call received, and how many calls there were. */
static void *heard[3];
static int heard_calls;

static void hear_none(void) { heard_calls++, log_call(30); }
static void hear_one(void *a) { heard[0] = a, heard_calls++, log_call(31); }
static void hear_two(void *a, void *b) { heard[0] = a, heard[1] = b, heard_calls++, log_call(32); }
static void hear_three(void *a, void *b, void *c) {
    heard[0] = a, heard[1] = b, heard[2] = c, heard_calls++, log_call(33);
}

static void forget_heard(void) {
    memset(heard, 0x5a, sizeof heard);
    heard_calls = 0;
}

/* Numbered handlers of "v^v" that log their number. */
#define DEFINE_POINTER_RECORDER(n)                                                       \
    static void pointer_recorder_##n(void *a) {                                          \
        heard[0] = a;                                                                    \
        log_call(n);                                                                     \
    }
DEFINE_POINTER_RECORDER(1)
DEFINE_POINTER_RECORDER(2)
DEFINE_POINTER_RECORDER(3)
DEFINE_POINTER_RECORDER(4)
#undef DEFINE_POINTER_RECORDER

static dc_handler_id add_pointer_handler(const char *event, void (*function)(void *),
                                         const dc_handler_options *options) {
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, event, sig("v^v"), DC_FUNCTION(function), NULL, options, &id));
    return id;
}

static void plain_handlers_of_up_to_three_parameters_get_their_arguments(void **state) {
    (void)state;
    char a, b, c, d;
    const dc_value four[] = {dc_pointer(&a), dc_pointer(&b), dc_pointer(&c), dc_pointer(&d)};
    assert_ok(dc_table_add(table, "0", sig("v"), DC_FUNCTION(hear_none), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "1", sig("v^v"), DC_FUNCTION(hear_one), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "2", sig("v^v^v"), DC_FUNCTION(hear_two), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "3", sig("v^v^v^v"), DC_FUNCTION(hear_three), NULL, NULL, NULL));
    const char *events[] = {"0", "1", "2", "3"};
    for (size_t takes = 0; takes <= 3; takes++) {
        /* Exactly as many arguments as the handler takes, and one more. */
        for (size_t count = takes; count <= takes + 1; count++) {
            forget_heard();
            dc_result result = execute_ok(events[takes], four, count);
            assert_int_equal(result.handled, 1);
            assert_int_equal(heard_calls, 1);
            for (size_t i = 0; i < takes; i++) assert_ptr_equal(heard[i], four[i].pointer);
        }
    }
    assert_call_log(30, 30, 31, 31, 32, 32, 33, 33);
}

static void bound_handlers_of_up_to_three_parameters_get_their_target_first(void **state) {
    (void)state;
    int target = 0;
    char a, b, c;
    const dc_value three[] = {dc_pointer(&a), dc_pointer(&b), dc_pointer(&c)};
    assert_ok(dc_table_add(table, "1", sig("v^v"), DC_FUNCTION(hear_one), &target, NULL, NULL));
    assert_ok(dc_table_add(table, "2", sig("v^v^v"), DC_FUNCTION(hear_two), &target, NULL, NULL));
    assert_ok(dc_table_add(table, "3", sig("v^v^v^v"), DC_FUNCTION(hear_three), &target, NULL, NULL));
    const char *events[] = {NULL, "1", "2", "3"};
    for (size_t parameters = 1; parameters <= 3; parameters++) {
        for (size_t count = parameters - 1; count <= parameters; count++) {
            forget_heard();
            dc_result result = execute_ok(events[parameters], three, count);
            assert_int_equal(result.handled, 1);
            assert_ptr_equal(heard[0], &target);
            for (size_t i = 1; i < parameters; i++) assert_ptr_equal(heard[i], three[i - 1].pointer);
        }
    }
    /* Fewer arguments than the handler takes: the missing ones are zero. */
    forget_heard();
    execute_ok("3", three, 1);
    assert_ptr_equal(heard[0], &target);
    assert_ptr_equal(heard[1], &a);
    assert_null(heard[2]);
}

static void many_plain_handlers_run_in_registration_order_by_id_and_by_key(void **state) {
    (void)state;
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "many", &id));
    void (*recorders[])(void *) = {pointer_recorder_1, pointer_recorder_2, pointer_recorder_3,
                                   pointer_recorder_4};
    for (size_t i = 0; i < 4; i++) add_pointer_handler("many", recorders[i], NULL);
    char a;
    const dc_value argument[] = {dc_pointer(&a)};
    dc_result result;
    memset(&result, 0x5a, sizeof result);
    assert_ok(dc_table_execute_id(table, id, argument, 1, &result));
    assert_int_equal(result.handled, 4);
    assert_int_equal(result.queued, 0);
    assert_int_equal(result.dropped, 0);
    assert_int_equal(result.return_count, 0);
    assert_false(result.has_return_value);
    assert_false(result.stopped);
    assert_int_equal(result.return_value.type, DC_TYPE_VOID);
    result = execute_ok("many", argument, 1);
    assert_int_equal(result.handled, 4);
    assert_call_log(1, 2, 3, 4, 1, 2, 3, 4);
}

/* ---- handlers the lean loop hands on -------------------------------------------------- */

static void once_handler_among_plain_ones_runs_once_in_its_place(void **state) {
    (void)state;
    const dc_handler_options once = handler_options(DC_HANDLER_ONCE, NULL);
    add_pointer_handler("o", pointer_recorder_1, NULL);
    add_pointer_handler("o", pointer_recorder_2, &once);
    add_pointer_handler("o", pointer_recorder_3, NULL);
    const dc_value argument[] = {dc_pointer(NULL)};
    dc_result result = execute_ok("o", argument, 1);
    assert_int_equal(result.handled, 3);
    result = execute_ok("o", argument, 1);
    assert_int_equal(result.handled, 2);
    assert_call_log(1, 2, 3, 1, 3);
}

static void blocked_and_removed_handlers_are_passed_over_and_not_counted(void **state) {
    (void)state;
    add_pointer_handler("b", pointer_recorder_1, NULL);
    dc_handler_id blocked = add_pointer_handler("b", pointer_recorder_2, NULL);
    dc_handler_id removed = add_pointer_handler("b", pointer_recorder_3, NULL);
    add_pointer_handler("b", pointer_recorder_4, NULL);
    assert_ok(dc_table_block(table, blocked));
    assert_ok(dc_table_remove(table, removed));
    const dc_value argument[] = {dc_pointer(NULL)};
    dc_result result = execute_ok("b", argument, 1);
    assert_int_equal(result.handled, 2);
    assert_ok(dc_table_unblock(table, blocked));
    result = execute_ok("b", argument, 1);
    assert_int_equal(result.handled, 3);
    assert_call_log(1, 4, 1, 2, 4);
}

static dc_handler_id doomed;
static void remove_doomed(void *a) {
    (void)a;
    log_call(40);
    assert_ok(dc_table_remove(table, doomed));
}

static void handler_removed_by_an_earlier_one_is_not_called_in_the_same_execute(void **state) {
    (void)state;
    add_pointer_handler("r", remove_doomed, NULL);
    add_pointer_handler("r", pointer_recorder_2, NULL);
    doomed = add_pointer_handler("r", pointer_recorder_3, NULL);
    add_pointer_handler("r", pointer_recorder_4, NULL);
    dc_result result = execute_ok("r", (dc_value[]){dc_pointer(NULL)}, 1);
    assert_int_equal(result.handled, 3);
    assert_call_log(40, 2, 4);
}

static void *marshal_heard;
static void pointer_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)result;
    assert_int_equal(count, 1);
    marshal_heard = arguments[0].pointer;
    log_call(50);
}

static void marshal_of_the_same_shape_runs_in_its_place_among_plain_handlers(void **state) {
    (void)state;
    add_pointer_handler("m", pointer_recorder_1, NULL);
    assert_ok(dc_table_add_marshal(table, "m", sig("v^v"), pointer_marshal, NULL, NULL, NULL));
    add_pointer_handler("m", pointer_recorder_3, NULL);
    char a;
    dc_result result = execute_ok("m", (dc_value[]){dc_pointer(&a)}, 1);
    assert_int_equal(result.handled, 3);
    assert_false(result.has_return_value);
    assert_ptr_equal(marshal_heard, &a);
    assert_ptr_equal(heard[0], &a);
    assert_call_log(1, 50, 3);
}

static void queued_handler_among_plain_ones_is_posted_and_the_rest_runs(void **state) {
    (void)state;
    dc_queue *queue = queue_owned_elsewhere();
    dc_handler_options queued = handler_options(0, NULL);
    queued.queue = queue;
    add_pointer_handler("q", pointer_recorder_1, NULL);
    add_pointer_handler("q", pointer_recorder_2, &queued);
    add_pointer_handler("q", pointer_recorder_3, NULL);
    char a;
    dc_result result = execute_ok("q", (dc_value[]){dc_pointer(&a)}, 1);
    assert_int_equal(result.handled, 2);
    assert_int_equal(result.queued, 1);
    assert_call_log(1, 3);
    size_t delivered = 0;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 1);
    assert_ptr_equal(heard[0], &a);
    assert_call_log(1, 3, 2);
    dc_queue_destroy(queue);
}

/* ---- stop, destroy, nesting ---------------------------------------------------------- */

static void stop_here(void *a) {
    (void)a;
    log_call(60);
    assert_ok(dc_table_stop_emission(table));
}

static void stop_in_the_middle_counts_what_ran_before_it(void **state) {
    (void)state;
    add_pointer_handler("s", pointer_recorder_1, NULL);
    dc_handler_id blocked = add_pointer_handler("s", pointer_recorder_2, NULL);
    add_pointer_handler("s", stop_here, NULL);
    add_pointer_handler("s", pointer_recorder_4, NULL);
    assert_ok(dc_table_block(table, blocked));
    dc_result result = execute_ok("s", (dc_value[]){dc_pointer(NULL)}, 1);
    assert_int_equal(result.handled, 2);
    assert_true(result.stopped);
    /* The next execute starts unstopped. */
    result = execute_ok("s", (dc_value[]){dc_pointer(NULL)}, 1);
    assert_true(result.stopped);
    assert_call_log(1, 60, 1, 60);
}

static int destroyed_notifies;
static void destroy_the_table(void *a) {
    (void)a;
    log_call(70);
    dc_table_destroy(table);
}

static void destroy_from_a_plain_handler_waits_for_the_execute_to_end(void **state) {
    (void)state;
    dc_handler_options notified = handler_options(0, &destroyed_notifies);
    destroyed_notifies = 0;
    add_pointer_handler("d", pointer_recorder_1, &notified);
    add_pointer_handler("d", destroy_the_table, &notified);
    add_pointer_handler("d", pointer_recorder_3, &notified);
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "d", &id));
    dc_result result;
    assert_ok(dc_table_execute_id(table, id, (dc_value[]){dc_pointer(NULL)}, 1, &result));
    assert_int_equal(result.handled, 2);
    assert_int_equal(destroyed_notifies, 3);
    assert_call_log(1, 70);
    table = NULL; /* destroyed when the execute returned */
}

static dc_event_id nesting_event;
static int nesting_depth, deepest;
static dc_status innermost_status;
static void execute_again(void *a) {
    nesting_depth++;
    if (nesting_depth > deepest) deepest = nesting_depth;
    dc_status status = dc_table_execute_id(table, nesting_event, (dc_value[]){dc_pointer(a)}, 1, NULL);
    if (status != DC_OK) innermost_status = status;
    nesting_depth--;
}

static void nested_executes_stop_at_the_depth_limit_and_unwind(void **state) {
    (void)state;
    assert_ok(dc_table_intern(table, "nest", &nesting_event));
    add_pointer_handler("nest", execute_again, NULL);
    nesting_depth = deepest = 0;
    innermost_status = DC_OK;
    assert_ok(dc_table_execute_id(table, nesting_event, (dc_value[]){dc_pointer(NULL)}, 1, NULL));
    assert_int_equal(deepest, DC_MAX_EXECUTE_DEPTH);
    assert_int_equal(innermost_status, DC_ERR_DEPTH);
    /* Unwound: the next execute can nest as deep again. */
    deepest = 0;
    assert_ok(dc_table_execute_id(table, nesting_event, (dc_value[]){dc_pointer(NULL)}, 1, NULL));
    assert_int_equal(deepest, DC_MAX_EXECUTE_DEPTH);
}

/* ---- options and errors ---------------------------------------------------------------- */

static void *seen_context;
static void look_at_context(void *a) {
    (void)a;
    seen_context = dc__table_execute_context(table);
    log_call(80);
}

static void options_of_a_lean_execute_behave_as_on_the_general_one(void **state) {
    (void)state;
    add_pointer_handler("o", look_at_context, NULL);
    const dc_value one[] = {dc_pointer(NULL)};
    const dc_value two[] = {dc_pointer(NULL), dc_pointer(NULL)};
    int context = 0;
    dc_value results[2];
    dc_execute_options options = {.accumulator = DC_ACCUMULATE_ALL, .results = results,
                                  .results_capacity = 2};
    dc_result result;
    assert_ok(dc__table_execute(table, "o", 0, two, 2, &options, &context, &result));
    assert_ptr_equal(seen_context, &context);
    assert_int_equal(result.handled, 1);
    assert_int_equal(result.return_count, 0);
    assert_null(dc__table_execute_context(table));
    /* Strict: exactly as many arguments as the handler takes. */
    options.flags = DC_EXECUTE_STRICT;
    assert_status(dc_table_execute_with(table, "o", two, 2, &options, NULL), DC_ERR_ARITY);
    assert_ok(dc_table_execute_with(table, "o", one, 1, &options, NULL));
    /* Invalid options fail before anything runs. */
    options.flags = 0;
    options.accumulator = (dc_accumulator)99;
    assert_status(dc_table_execute_with(table, "o", one, 1, &options, NULL), DC_ERR_INVALID_ARGUMENT);
    options.accumulator = DC_ACCUMULATE_ALL;
    options.results = NULL;
    assert_status(dc_table_execute_with(table, "o", one, 1, &options, NULL), DC_ERR_INVALID_ARGUMENT);
    options.results_capacity = 0;
    options.flags = 1u << 20;
    assert_status(dc_table_execute_with(table, "o", one, 1, &options, NULL), DC_ERR_INVALID_ARGUMENT);
    assert_call_log(80, 80);
}

static void require_handler_fails_when_every_plain_handler_is_blocked(void **state) {
    (void)state;
    dc_handler_id id = add_pointer_handler("q", pointer_recorder_1, NULL);
    const dc_execute_options required = {.flags = DC_EXECUTE_REQUIRE_HANDLER};
    const dc_value one[] = {dc_pointer(NULL)};
    assert_ok(dc_table_execute_with(table, "q", one, 1, &required, NULL));
    assert_ok(dc_table_block(table, id));
    assert_status(dc_table_execute_with(table, "q", one, 1, &required, NULL), DC_ERR_NO_HANDLER);
    assert_call_log(1);
}

static void bad_executes_of_a_lean_event_fail_as_before(void **state) {
    (void)state;
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "e", &id));
    add_pointer_handler("e", pointer_recorder_1, NULL);
    const dc_value one[] = {dc_pointer(NULL)};
    assert_status(dc_table_execute_id(table, 0, one, 1, NULL), DC_ERR_NOT_FOUND);
    assert_status(dc_table_execute_id(table, id + 1000, one, 1, NULL), DC_ERR_NOT_FOUND);
    assert_status(dc_table_execute_id_with(table, 0, one, 1, NULL, NULL), DC_ERR_NOT_FOUND);
    assert_status(dc_table_execute_id(table, id, NULL, 1, NULL), DC_ERR_NULL_ARGUMENT);
    assert_status(dc_table_execute(table, "e", NULL, 1, NULL), DC_ERR_NULL_ARGUMENT);
    assert_status(dc_table_execute(table, "e", (dc_value[]){dc_int64(1)}, 1, NULL), DC_ERR_TYPE);
    assert_status(dc_table_execute(table, "e", (dc_value[]){dc_double(1.0)}, 1, NULL), DC_ERR_TYPE);
    /* Unknown by name: nothing handled, no error. */
    dc_result result = execute_ok("nobody", one, 1);
    assert_int_equal(result.handled, 0);
    assert_nothing_called();
    /* No argument for a handler of none: NULL is fine. */
    assert_ok(dc_table_add(table, "none", sig("v"), DC_FUNCTION(hear_none), NULL, NULL, NULL));
    result = execute_ok("none", NULL, 0);
    assert_int_equal(result.handled, 1);
    assert_call_log(30);
}

static void object_and_string_arguments_take_the_lean_path_for_their_own_types(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "o", sig("v@*"), DC_FUNCTION(hear_two), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "p", sig("v^v*"), DC_FUNCTION(hear_two), NULL, NULL, NULL));
    int object;
    char text[] = "text";
    const dc_value arguments[] = {dc_object(&object), dc_string(text)};
    forget_heard();
    execute_ok("o", arguments, 2);
    assert_ptr_equal(heard[0], &object);
    assert_ptr_equal(heard[1], text);
    /* An object where a pointer is taken converts, the general way. */
    forget_heard();
    execute_ok("p", arguments, 2);
    assert_ptr_equal(heard[0], &object);
    assert_ptr_equal(heard[1], text);
    assert_int_equal(retains, 0);
    assert_int_equal(releases, 0);
    assert_call_log(32, 32);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        table_test(plain_handlers_of_up_to_three_parameters_get_their_arguments),
        table_test(bound_handlers_of_up_to_three_parameters_get_their_target_first),
        table_test(many_plain_handlers_run_in_registration_order_by_id_and_by_key),
        table_test(once_handler_among_plain_ones_runs_once_in_its_place),
        table_test(blocked_and_removed_handlers_are_passed_over_and_not_counted),
        table_test(handler_removed_by_an_earlier_one_is_not_called_in_the_same_execute),
        table_test(marshal_of_the_same_shape_runs_in_its_place_among_plain_handlers),
        table_test(queued_handler_among_plain_ones_is_posted_and_the_rest_runs),
        table_test(stop_in_the_middle_counts_what_ran_before_it),
        table_test(destroy_from_a_plain_handler_waits_for_the_execute_to_end),
        table_test(nested_executes_stop_at_the_depth_limit_and_unwind),
        table_test(options_of_a_lean_execute_behave_as_on_the_general_one),
        table_test(require_handler_fails_when_every_plain_handler_is_blocked),
        table_test(bad_executes_of_a_lean_event_fail_as_before),
        table_test(object_and_string_arguments_take_the_lean_path_for_their_own_types),
    };
    return cmocka_run_group_tests_name("event table lean execute", tests, NULL, NULL);
}
