/*
 * test_table_brief.c — dc__table_execute_brief, by name and by id:
 * the count in the returned report, and the dc_result only when the execute
 * did more (a return value, a queued delivery, a stop), on the lean way and
 * the general one, by name and by id, with and without a result; the
 * context reaches handlers; errors as the full execute's, with nothing run.
 * The lean way leaves the dc_result untouched when there is nothing more to
 * report (the general way may write it; the caller does not read it).
 * A call that declines (dc__table_decline_call) is not counted, on either way.
 */
#include "table_support.h"

#include <string.h>
#include "dispatch_core_binding.h"

/* A thread's first execute makes its reader record, the general way; the
 * tests that look at the lean way make it first. */
static void make_reader_record(void) {
    assert_int_equal(dc__table_execute_brief(table, "warm-up", 0, NULL, 0, NULL, NULL).status, DC_OK);
}

/* A dc_result no execute would write: any change shows. */
static dc_result untouched_result(void) {
    dc_result result;
    memset(&result, 0x5a, sizeof result);
    return result;
}

static void assert_untouched(const dc_result *result) {
    dc_result fresh = untouched_result();
    assert_memory_equal(result, &fresh, sizeof fresh);
}

/* A brief report of DC_OK with `handled` handlers, detailed or not. */
static void assert_report(dc__brief_result brief, size_t handled, bool detailed) {
    assert_int_equal(brief.status, DC_OK);
    assert_int_equal(brief.handled, handled);
    assert_int_equal(brief.detailed, detailed);
}

/* Executes `event` both ways (by name, then by id) and checks each report;
 * `lean` says the lean way runs it, which leaves the result untouched. */
static void assert_brief_both_ways(const char *event, size_t handled, bool detailed, bool lean) {
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, event, &id));
    make_reader_record();
    dc_result result = untouched_result();
    dc__brief_result brief = dc__table_execute_brief(table, event, 0, NULL, 0, NULL, &result);
    assert_report(brief, handled, detailed);
    if (!detailed && lean) assert_untouched(&result);
    result = untouched_result();
    brief = dc__table_execute_brief(table, NULL, id, NULL, 0, NULL, &result);
    assert_report(brief, handled, detailed);
    if (!detailed && lean) assert_untouched(&result);
}

/* ---- handlers ------------------------------------------------------------------------- */

static void *seen_context;
static void see_context(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)arguments, (void)count, (void)result;
    seen_context = dc__table_execute_context(table);
    log_call((int)(intptr_t)data);
}

static void stop_here(void) {
    log_call(9);
    assert_ok(dc_table_stop_emission(table));
}

static int64_t answer(void) {
    log_call(7);
    return 42;
}

/* ---- the lean way ------------------------------------------------------------------------ */

static void plain_handlers_report_only_their_count(void **state) {
    (void)state;
    add_recorder("tick", record_1);
    add_recorder("tick", record_2);
    /* The lean way calls plain handlers as the stubs do, so on an ABI without
     * stubs (every call on libffi) they go the general way. */
    assert_brief_both_ways("tick", 2, false, DC_TEST_STUB_PATH == DC_CALL_PATH_STUB);
    assert_call_log(1, 2, 1, 2);
}

static void marshals_get_the_context_and_the_result_stays_untouched(void **state) {
    (void)state;
    assert_ok(dc_table_add_marshal(table, "m", sig("vq"), see_context, (void *)3, NULL, NULL));
    make_reader_record();
    int slot = 0;
    dc_result result = untouched_result();
    dc__brief_result brief =
        dc__table_execute_brief(table, "m", 0, (dc_value[]){dc_int64(5)}, 1, &slot, &result);
    assert_report(brief, 1, false);
    assert_ptr_equal(seen_context, &slot);
    assert_untouched(&result);
    /* Without a result, the same. */
    seen_context = NULL;
    brief = dc__table_execute_brief(table, "m", 0, (dc_value[]){dc_int64(5)}, 1, &slot, NULL);
    assert_int_equal(brief.handled, 1);
    assert_ptr_equal(seen_context, &slot);
    assert_call_log(3, 3);
}

static void a_stop_is_detailed(void **state) {
    (void)state;
    add_recorder("s", record_1);
    assert_ok(dc_table_add(table, "s", sig("v"), DC_FUNCTION(stop_here), NULL, NULL, NULL));
    add_recorder("s", record_2);
    assert_brief_both_ways("s", 2, true, true);
    dc_result result = untouched_result();
    dc__brief_result brief = dc__table_execute_brief(table, "s", 0, NULL, 0, NULL, &result);
    assert_true(brief.detailed);
    assert_int_equal(result.handled, 2);
    assert_true(result.stopped);
    assert_int_equal(result.return_value.type, DC_TYPE_VOID);
    /* No result to write to: the report still says so. */
    brief = dc__table_execute_brief(table, "s", 0, NULL, 0, NULL, NULL);
    assert_true(brief.detailed);
    assert_int_equal(brief.handled, 2);
    assert_call_log(1, 9, 1, 9, 1, 9, 1, 9);
}

/* ---- the general way ------------------------------------------------------------------------ */

static void a_returned_value_is_detailed(void **state) {
    (void)state;
    add_recorder("r", record_1);
    assert_ok(dc_table_add(table, "r", sig("q"), DC_FUNCTION(answer), NULL, NULL, NULL));
    dc_result result = untouched_result();
    dc__brief_result brief = dc__table_execute_brief(table, "r", 0, NULL, 0, NULL, &result);
    assert_report(brief, 2, true);
    assert_int_equal(result.handled, 2);
    assert_true(result.has_return_value);
    assert_int_equal(result.return_value.type, DC_TYPE_INT64);
    assert_int_equal(result.return_value.i64, 42);
    assert_call_log(1, 7);
}

static void a_queued_delivery_is_detailed(void **state) {
    (void)state;
    dc_queue *queue = queue_owned_elsewhere();
    dc_handler_options queued = handler_options(0, NULL);
    queued.queue = queue;
    add_recorder("q", record_1);
    add_recorder_with("q", record_2, &queued);
    dc_result result = untouched_result();
    dc__brief_result brief = dc__table_execute_brief(table, "q", 0, NULL, 0, NULL, &result);
    assert_report(brief, 1, true);
    assert_int_equal(result.queued, 1);
    assert_call_log(1);
    size_t delivered = 0;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 1);
    assert_call_log(1, 2);
    dc_queue_destroy(queue);
}

static void the_general_way_with_nothing_more_is_not_detailed(void **state) {
    (void)state;
    /* Two shapes, and a once-handler: the general execute, just counting. */
    static int target = 4;
    add_recorder("g", record_1);
    assert_ok(dc_table_add(table, "g", sig("v^v"), DC_FUNCTION(record_target), &target, NULL, NULL));
    const dc_handler_options once = handler_options(DC_HANDLER_ONCE, NULL);
    add_recorder_with("g", record_2, &once);
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "g", &id));
    dc_result result = untouched_result();
    dc__brief_result brief = dc__table_execute_brief(table, "g", 0, NULL, 0, NULL, &result);
    assert_report(brief, 3, false);
    brief = dc__table_execute_brief(table, NULL, id, NULL, 0, NULL, &result);
    assert_report(brief, 2, false);
    assert_call_log(1, 4, 2, 1, 4);
}

static void an_event_without_handlers_runs_none(void **state) {
    (void)state;
    dc_result result = untouched_result();
    dc__brief_result brief = dc__table_execute_brief(table, "nobody", 0, NULL, 0, NULL, &result);
    assert_report(brief, 0, false);
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "empty", &id));
    assert_report(dc__table_execute_brief(table, NULL, id, NULL, 0, NULL, NULL), 0, false);
}

/* ---- nesting ---------------------------------------------------------------------------- */

static int inner_slot, outer_slot;
static void *inner_seen, *outer_seen_after;
static void nest(void) {
    assert_report(dc__table_execute_brief(table, "inner", 0, NULL, 0, &inner_slot, NULL), 1, false);
    outer_seen_after = dc__table_execute_context(table);
}
static void see_inner(void) { inner_seen = dc__table_execute_context(table); }

static void a_brief_execute_inside_a_handler_has_its_own_context(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "outer", sig("v"), DC_FUNCTION(nest), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "inner", sig("v"), DC_FUNCTION(see_inner), NULL, NULL, NULL));
    assert_report(dc__table_execute_brief(table, "outer", 0, NULL, 0, &outer_slot, NULL), 1, false);
    assert_ptr_equal(inner_seen, &inner_slot);
    assert_ptr_equal(outer_seen_after, &outer_slot);
    assert_null(dc__table_execute_context(table));
}

/* ---- declined calls ---------------------------------------------------------------------- */

static void decline_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)arguments, (void)count, (void)result;
    log_call((int)(intptr_t)data);
    assert_ok(dc__table_decline_call(table));
}

static void decline_function(void) {
    log_call(5);
    assert_ok(dc__table_decline_call(table));
}

static void decline_and_stop(void) {
    log_call(8);
    assert_ok(dc__table_decline_call(table));
    assert_ok(dc_table_stop_emission(table));
}

static void plain_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)arguments, (void)count, (void)result;
    log_call((int)(intptr_t)data);
}

static void a_declined_call_is_not_counted_on_the_lean_way(void **state) {
    (void)state;
    assert_ok(dc_table_add_marshal(table, "d", sig("v"), decline_marshal, (void *)3, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "d", sig("v"), plain_marshal, (void *)4, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "d", sig("v"), decline_marshal, (void *)6, NULL, NULL));
    assert_brief_both_ways("d", 1, false, true);
    assert_int_equal(execute_ok("d", NULL, 0).handled, 1);
    assert_call_log(3, 4, 6, 3, 4, 6, 3, 4, 6);
}

static void a_declined_call_is_not_counted_on_the_general_way(void **state) {
    (void)state;
    /* A value returned and a once-handler: the general loop, its fast void
     * calls and its other calls. */
    const dc_handler_options once = handler_options(DC_HANDLER_ONCE, NULL);
    add_recorder("g", record_1);
    assert_ok(dc_table_add(table, "g", sig("v"), DC_FUNCTION(decline_function), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "g", sig("q"), DC_FUNCTION(answer), NULL, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "g", sig("v"), decline_marshal, (void *)3, &once, NULL));
    dc_result result = untouched_result();
    dc__brief_result brief = dc__table_execute_brief(table, "g", 0, NULL, 0, NULL, &result);
    assert_report(brief, 2, true);
    assert_int_equal(result.handled, 2);
    assert_int_equal(result.return_value.i64, 42);
    assert_int_equal(execute_ok("g", NULL, 0).handled, 2);
    assert_call_log(1, 5, 7, 3, 1, 5, 7);
}

static void a_lean_execute_handed_over_still_leaves_declined_calls_out(void **state) {
    (void)state;
    /* Marshals on the lean way until the once-handler, which hands the rest
     * over to the general way. */
    const dc_handler_options once = handler_options(DC_HANDLER_ONCE, NULL);
    assert_ok(dc_table_add_marshal(table, "h", sig("v"), decline_marshal, (void *)3, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "h", sig("v"), plain_marshal, (void *)4, &once, NULL));
    assert_ok(dc_table_add_marshal(table, "h", sig("v"), decline_marshal, (void *)6, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "h", sig("v"), plain_marshal, (void *)2, NULL, NULL));
    make_reader_record();
    assert_report(dc__table_execute_brief(table, "h", 0, NULL, 0, NULL, NULL), 2, false);
    assert_report(dc__table_execute_brief(table, "h", 0, NULL, 0, NULL, NULL), 1, false);
    assert_call_log(3, 4, 6, 2, 3, 6, 2);
}

static void a_call_that_declines_and_stops_is_left_out_and_stops(void **state) {
    (void)state;
    add_recorder("s", record_1);
    assert_ok(dc_table_add(table, "s", sig("v"), DC_FUNCTION(decline_and_stop), NULL, NULL, NULL));
    add_recorder("s", record_2);
    assert_brief_both_ways("s", 1, true, true);
    dc_result result = execute_ok("s", NULL, 0);
    assert_int_equal(result.handled, 1);
    assert_true(result.stopped);
    assert_call_log(1, 8, 1, 8, 1, 8);
}

static void declining_outside_an_execute_of_the_table_fails(void **state) {
    (void)state;
    const char *primed = dc_test_prime_error_message();
    dc_test_assert_failure(primed, dc__table_decline_call(table), DC_ERR_STATE,
                           (const char *const[]){"dc__table_decline_call", "no execute", NULL},
                           "dc__table_decline_call outside an execute", __FILE__, __LINE__);
    primed = dc_test_prime_error_message();
    dc_test_assert_failure(primed, dc__table_decline_call(NULL), DC_ERR_NULL_ARGUMENT,
                           (const char *const[]){"table", NULL}, "dc__table_decline_call(NULL)", __FILE__, __LINE__);
}

/* ---- errors ------------------------------------------------------------------------------ */

static void errors_are_the_full_executes_and_run_nothing(void **state) {
    (void)state;
    add_recorder("tick", record_1);
    assert_ok(dc_table_add(table, "typed", sig("vq"), DC_FUNCTION(record_2), NULL, NULL, NULL));
    dc_result result = untouched_result();

    const char *primed = dc_test_prime_error_message();
    dc__brief_result brief = dc__table_execute_brief(NULL, "tick", 0, NULL, 0, NULL, &result);
    dc_test_assert_failure(primed, brief.status, DC_ERR_NULL_ARGUMENT, (const char *const[]){"table", NULL},
                           "dc__table_execute_brief(NULL, ...)", __FILE__, __LINE__);
    assert_int_equal(brief.handled, 0);
    assert_false(brief.detailed);

    primed = dc_test_prime_error_message();
    brief = dc__table_execute_brief(table, NULL, 0, NULL, 0, NULL, &result);
    dc_test_assert_failure(primed, brief.status, DC_ERR_NULL_ARGUMENT, (const char *const[]){"event", NULL},
                           "dc__table_execute_brief(table, NULL, ...)", __FILE__, __LINE__);

    primed = dc_test_prime_error_message();
    brief = dc__table_execute_brief(NULL, NULL, 1, NULL, 0, NULL, &result);
    dc_test_assert_failure(primed, brief.status, DC_ERR_NULL_ARGUMENT, (const char *const[]){"table", NULL},
                           "dc__table_execute_brief(NULL, NULL, 1, ...)", __FILE__, __LINE__);

    primed = dc_test_prime_error_message();
    brief = dc__table_execute_brief(table, NULL, 999, NULL, 0, NULL, &result);
    dc_test_assert_failure(primed, brief.status, DC_ERR_NOT_FOUND, (const char *const[]){"999", NULL},
                           "dc__table_execute_brief(table, NULL, 999, ...)", __FILE__, __LINE__);
    assert_int_equal(brief.handled, 0);

    /* A double where the handler takes an int64: nothing runs. */
    primed = dc_test_prime_error_message();
    brief = dc__table_execute_brief(table, "typed", 0, (dc_value[]){dc_double(1.5)}, 1, NULL, &result);
    dc_test_assert_failure(primed, brief.status, DC_ERR_TYPE, (const char *const[]){"typed", NULL},
                           "dc__table_execute_brief(table, \"typed\", double)", __FILE__, __LINE__);
    assert_int_equal(brief.handled, 0);
    assert_false(brief.detailed);
    assert_nothing_called();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        table_test(plain_handlers_report_only_their_count),
        table_test(marshals_get_the_context_and_the_result_stays_untouched),
        table_test(a_stop_is_detailed),
        table_test(a_returned_value_is_detailed),
        table_test(a_queued_delivery_is_detailed),
        table_test(the_general_way_with_nothing_more_is_not_detailed),
        table_test(an_event_without_handlers_runs_none),
        table_test(a_brief_execute_inside_a_handler_has_its_own_context),
        table_test(a_declined_call_is_not_counted_on_the_lean_way),
        table_test(a_declined_call_is_not_counted_on_the_general_way),
        table_test(a_lean_execute_handed_over_still_leaves_declined_calls_out),
        table_test(a_call_that_declines_and_stops_is_left_out_and_stops),
        table_test(declining_outside_an_execute_of_the_table_fails),
        table_test(errors_are_the_full_executes_and_run_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
