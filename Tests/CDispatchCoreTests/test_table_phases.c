/*
 * test_table_phases.c — default handlers and after-handlers, restating
 * GLib's class-closure tests (gobject/tests/signals.c): the order run-first
 * default, other handlers, run-last default, after-handlers, whatever the
 * order they were added in; a stop or a true-handled result ends the
 * emission before the run-last default; defaults survive the removals that
 * take "all" and go by their id or with the table.
 */
#include "table_support.h"

static void stop_here(void) {
    log_call(9);
    assert_ok(dc_table_stop_emission(table));
}

static bool handled_true(void) {
    log_call(8);
    return true;
}
static bool handled_true_after(void) {
    log_call(6);
    return true;
}
static bool handled_false(void) {
    log_call(7);
    return false;
}

static dc_handler_id add_in_phase(const char *event, void (*recorder)(void), uint32_t flags) {
    dc_handler_options options = handler_options(flags, NULL);
    return add_recorder_with(event, recorder, &options);
}

static void handlers_run_in_glib_phase_order_whatever_the_order_added(void **state) {
    (void)state;
    add_in_phase("clicked", record_5, DC_HANDLER_AFTER);
    add_in_phase("clicked", record_4, DC_HANDLER_RUN_LAST);
    add_recorder("clicked", record_2);
    add_in_phase("clicked", record_1, DC_HANDLER_RUN_FIRST == 0 ? 0 : 0); /* a plain one, after record_2 */
    dc_result result = execute_ok("clicked", NULL, 0);
    assert_call_log(2, 1, 4, 5);
    assert_int_equal(result.handled, 4);
}

static void the_run_first_default_precedes_even_handlers_added_first(void **state) {
    (void)state;
    add_recorder("clicked", record_2);
    add_in_phase("clicked", record_3, DC_HANDLER_FIRST);
    add_in_phase("clicked", record_1, DC_HANDLER_RUN_FIRST);
    add_in_phase("clicked", record_4, DC_HANDLER_FIRST); /* first of the others: behind the default */
    add_in_phase("clicked", record_6, DC_HANDLER_AFTER);
    add_in_phase("clicked", record_5, DC_HANDLER_AFTER | DC_HANDLER_FIRST);
    execute_ok("clicked", NULL, 0);
    assert_call_log(1, 4, 3, 2, 5, 6);
}

static void after_first_goes_behind_the_run_last_default(void **state) {
    (void)state;
    add_in_phase("clicked", record_3, DC_HANDLER_AFTER);
    add_in_phase("clicked", record_1, DC_HANDLER_RUN_LAST);
    add_in_phase("clicked", record_2, DC_HANDLER_AFTER | DC_HANDLER_FIRST);
    execute_ok("clicked", NULL, 0);
    assert_call_log(1, 2, 3);
}

static void stop_emission_before_the_run_last_default_stops_it_and_the_after_handlers(void **state) {
    (void)state;
    add_in_phase("clicked", record_4, DC_HANDLER_RUN_LAST);
    add_in_phase("clicked", record_5, DC_HANDLER_AFTER);
    add_recorder("clicked", record_1);
    add_recorder("clicked", stop_here);
    add_recorder("clicked", record_2);
    dc_result result = execute_ok("clicked", NULL, 0);
    assert_call_log(1, 9);
    assert_true(result.stopped);
    assert_int_equal(result.handled, 2);
    /* A run-first default that stops leaves every other handler out. */
    dc_table_destroy(table);
    assert_ok(dc_table_create("phases", NULL, &table));
    add_in_phase("clicked", stop_here, DC_HANDLER_RUN_FIRST);
    add_recorder("clicked", record_1);
    add_in_phase("clicked", record_5, DC_HANDLER_AFTER);
    reset_call_log();
    result = execute_ok("clicked", NULL, 0);
    assert_call_log(9);
    assert_true(result.stopped);
}

static void stop_emission_in_the_run_last_default_stops_the_after_handlers(void **state) {
    (void)state;
    add_recorder("clicked", record_1);
    add_in_phase("clicked", stop_here, DC_HANDLER_RUN_LAST);
    add_in_phase("clicked", record_5, DC_HANDLER_AFTER);
    dc_result result = execute_ok("clicked", NULL, 0);
    assert_call_log(1, 9);
    assert_true(result.stopped);
}

static void a_true_handled_result_stops_before_the_run_last_default(void **state) {
    (void)state;
    dc_handler_options last = handler_options(DC_HANDLER_RUN_LAST, NULL);
    dc_handler_options after = handler_options(DC_HANDLER_AFTER, NULL);
    assert_ok(dc_table_add(table, "close", sig("B"), DC_FUNCTION(handled_false), NULL, &last, NULL));
    assert_ok(dc_table_add(table, "close", sig("B"), DC_FUNCTION(handled_true_after), NULL, &after, NULL));
    dc_handler_id first = 0;
    assert_ok(dc_table_add(table, "close", sig("B"), DC_FUNCTION(handled_true), NULL, NULL, &first));
    dc_execute_options options = {.accumulator = DC_ACCUMULATE_TRUE_HANDLED};
    dc_result result;
    assert_ok(dc_table_execute_with(table, "close", NULL, 0, &options, &result));
    assert_call_log(8);
    assert_true(result.return_value.b);
    /* Without it, the default returns false and the after-handler true. */
    assert_ok(dc_table_remove(table, first));
    reset_call_log();
    assert_ok(dc_table_execute_with(table, "close", NULL, 0, &options, &result));
    assert_call_log(7, 6);
    assert_true(result.return_value.b);
    assert_int_equal(result.return_count, 2);
}

static void an_event_has_one_default_handler(void **state) {
    (void)state;
    dc_handler_id first = add_in_phase("clicked", record_1, DC_HANDLER_RUN_FIRST);
    char id[32];
    dc_handler_options last = handler_options(DC_HANDLER_RUN_LAST, NULL);
    assert_failure(dc_table_add(table, "clicked", sig("v"), DC_FUNCTION(record_2), NULL, &last, NULL), DC_ERR_STATE,
                   "clicked", id_text(first, id, sizeof id));
    /* Once it is removed, another may take its place. */
    assert_ok(dc_table_remove(table, first));
    add_in_phase("clicked", record_2, DC_HANDLER_RUN_LAST);
    add_recorder("clicked", record_3);
    execute_ok("clicked", NULL, 0);
    assert_call_log(3, 2);
}

static void phase_flags_that_contradict_are_refused(void **state) {
    (void)state;
    static const uint32_t refused[] = {
        DC_HANDLER_AFTER | DC_HANDLER_RUN_LAST, DC_HANDLER_RUN_FIRST | DC_HANDLER_RUN_LAST,
        DC_HANDLER_AFTER | DC_HANDLER_RUN_FIRST, DC_HANDLER_FIRST | DC_HANDLER_RUN_FIRST,
        DC_HANDLER_FIRST | DC_HANDLER_RUN_LAST, 1u << 11};
    for (size_t i = 0; i < ARRAY_COUNT(refused); i++) {
        dc_handler_options options = handler_options(refused[i], NULL);
        assert_fails(dc_table_add(table, "clicked", sig("v"), DC_FUNCTION(record_1), NULL, &options, NULL),
                     DC_ERR_INVALID_ARGUMENT);
    }
    dc_handler_options last = handler_options(DC_HANDLER_RUN_LAST, NULL);
    assert_failure(dc_table_add(table, "notify::size", sig("v"), DC_FUNCTION(record_1), NULL, &last, NULL),
                   DC_ERR_INVALID_ARGUMENT, "notify::size", "default");
    assert_int_equal(handler_count("clicked"), 0);
    assert_int_equal(handler_count("notify::size"), 0);
}

static int default_destroyed;

static void removals_of_all_leave_the_default_and_its_id_removes_it(void **state) {
    (void)state;
    default_destroyed = 0;
    int target = 1;
    dc_handler_options last = handler_options(DC_HANDLER_RUN_LAST, &default_destroyed);
    dc_handler_id default_id = 0;
    assert_ok(dc_table_add(table, "clicked", sig("v^v"), DC_FUNCTION(record_target), &target, &last, &default_id));
    add_recorder("clicked", record_2);
    size_t removed = 99;
    assert_ok(dc_table_remove_event(table, "clicked", &removed));
    assert_int_equal(removed, 1);
    assert_ok(dc_table_remove_target(table, &target, &removed));
    assert_int_equal(removed, 0);
    add_recorder("clicked", record_3);
    assert_ok(dc_table_remove_all(table, &removed));
    assert_int_equal(removed, 1);
    assert_int_equal(default_destroyed, 0);
    execute_ok("clicked", NULL, 0);
    assert_call_log(1);
    assert_ok(dc_table_remove(table, default_id));
    assert_int_equal(default_destroyed, 1);
    reset_call_log();
    execute_ok("clicked", NULL, 0);
    assert_nothing_called();
}

static void the_table_destroy_removes_the_default(void **state) {
    (void)state;
    default_destroyed = 0;
    dc_handler_options first = handler_options(DC_HANDLER_RUN_FIRST, &default_destroyed);
    add_recorder_with("clicked", record_1, &first);
    dc_table_destroy(table);
    table = NULL;
    assert_int_equal(default_destroyed, 1);
}

static void detailed_after_handlers_run_among_the_event_after_handlers_in_order(void **state) {
    (void)state;
    add_in_phase("notify", record_4, DC_HANDLER_AFTER);
    add_in_phase("notify::size", record_5, DC_HANDLER_AFTER);
    add_in_phase("notify::title", record_6, DC_HANDLER_AFTER);
    add_in_phase("notify", record_3, DC_HANDLER_RUN_LAST);
    add_recorder("notify::size", record_2);
    add_recorder("notify", record_1);
    execute_ok("notify::size", NULL, 0);
    assert_call_log(2, 1, 3, 4, 5);
    reset_call_log();
    execute_ok("notify", NULL, 0);
    assert_call_log(1, 3, 4);
}

static void once_after_handlers_run_once_and_the_event_runs_on_without_them(void **state) {
    (void)state;
    add_recorder("clicked", record_1);
    add_in_phase("clicked", record_2, DC_HANDLER_AFTER | DC_HANDLER_ONCE);
    execute_ok("clicked", NULL, 0);
    execute_ok("clicked", NULL, 0);
    assert_call_log(1, 2, 1);
    assert_int_equal(handler_count("clicked"), 1);
    /* Many after-handlers come and go; the others keep their order. */
    static int targets[40];
    dc_handler_id ids[40];
    dc_handler_options after = handler_options(DC_HANDLER_AFTER, NULL);
    for (int i = 0; i < 40; i++) {
        targets[i] = 10 + i;
        assert_ok(dc_table_add(table, "clicked", sig("v^v"), DC_FUNCTION(record_target), &targets[i], &after,
                               &ids[i]));
    }
    for (int i = 0; i < 40; i++)
        if (i != 17 && i != 39) assert_ok(dc_table_remove(table, ids[i]));
    reset_call_log();
    execute_ok("clicked", NULL, 0);
    assert_call_log(1, 27, 49);
}

static int results_stored[4];

static int return_1(void) { return 1; }
static int return_2(void) { return 2; }
static int return_3(void) { return 3; }

static void accumulated_values_follow_the_phase_order(void **state) {
    (void)state;
    (void)results_stored;
    dc_handler_options after = handler_options(DC_HANDLER_AFTER, NULL);
    dc_handler_options last = handler_options(DC_HANDLER_RUN_LAST, NULL);
    assert_ok(dc_table_add(table, "value", sig("i"), DC_FUNCTION(return_3), NULL, &after, NULL));
    assert_ok(dc_table_add(table, "value", sig("i"), DC_FUNCTION(return_2), NULL, &last, NULL));
    assert_ok(dc_table_add(table, "value", sig("i"), DC_FUNCTION(return_1), NULL, NULL, NULL));
    dc_value values[4];
    dc_execute_options options = {.accumulator = DC_ACCUMULATE_ALL, .results = values, .results_capacity = 4};
    dc_result result;
    assert_ok(dc_table_execute_with(table, "value", NULL, 0, &options, &result));
    assert_int_equal(result.return_count, 3);
    assert_int_equal(values[0].i32, 1);
    assert_int_equal(values[1].i32, 2);
    assert_int_equal(values[2].i32, 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        table_test(handlers_run_in_glib_phase_order_whatever_the_order_added),
        table_test(the_run_first_default_precedes_even_handlers_added_first),
        table_test(after_first_goes_behind_the_run_last_default),
        table_test(stop_emission_before_the_run_last_default_stops_it_and_the_after_handlers),
        table_test(stop_emission_in_the_run_last_default_stops_the_after_handlers),
        table_test(a_true_handled_result_stops_before_the_run_last_default),
        table_test(an_event_has_one_default_handler),
        table_test(phase_flags_that_contradict_are_refused),
        table_test(removals_of_all_leave_the_default_and_its_id_removes_it),
        table_test(the_table_destroy_removes_the_default),
        table_test(detailed_after_handlers_run_among_the_event_after_handlers_in_order),
        table_test(once_after_handlers_run_once_and_the_event_runs_on_without_them),
        table_test(accumulated_values_follow_the_phase_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
