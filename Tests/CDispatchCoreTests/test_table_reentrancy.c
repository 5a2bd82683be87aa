/*
 * test_table_reentrancy.c — handlers that use their own table while it is
 * executing them: removing, adding, blocking, stopping the emission, executing
 * (other events, the same event, nested past the depth limit) and destroying
 * the table. Single-threaded; modelled on GLib's signal tests
 * (gobject/tests/signals.c: disconnect during emission, connect during
 * emission, stop emission) and Node's EventEmitter tests (listeners removed or
 * added while an event is being emitted).
 *
 * The rules under test: a handler added during an execute runs from the next
 * execute on (a nested execute that starts afterwards is a next one); a handler
 * removed or blocked is not called once remove or block has returned, not even
 * later in the execute already running; stop_emission ends the innermost
 * execute of the table on this thread.
 *
 * Handlers never call cmocka assertions (those would jump out through the
 * library); they record what they saw and the test asserts afterwards.
 */
#include "table_support.h"

/* ---- what handlers saw ----------------------------------------------------------------- */

/* A handler id a handler acts on (removes, blocks, ...). */
static dc_handler_id victim;
/* The status of the table call a handler made, and what it reported. */
static dc_status seen_status;
static size_t seen_removed;
static dc_handler_id seen_id;
static int seen_destroys;
/* Counts destroy notifies of the victim. */
static int victim_destroys;
/* True once a handler did its one-time action. */
static bool acted;
static dc_signature *void_signature;
static dc_signature *sig_pointer;
static dc_signature *sig_double;
/* What an execute made from inside a handler returned. */
static dc_status nested_status;
static dc_result nested_result;
/* A second table, for handlers that reach across tables. */
static dc_table *other_table;

static void log_value(int64_t value) { log_call((int)value); }
static void log_double(double value) { log_call((int)(value * 10)); }

static void reset_seen(void) {
    victim = 0;
    seen_status = DC_STATUS_COUNT; /* no call returns it: shows the handler never ran */
    seen_removed = 999;
    seen_id = 0;
    seen_destroys = -1;
    victim_destroys = 0;
    acted = false;
    void_signature = sig("v");
}

/* ---- removal during an emission ----------------------------------------------------- */

static void remove_victim(void) {
    log_call(1);
    seen_status = dc_table_remove(table, victim);
    seen_destroys = victim_destroys;
}

static void handler_removed_mid_emission_is_not_called(void **state) {
    (void)state;
    reset_seen();
    const dc_handler_options counted = handler_options(0, &victim_destroys);
    add_recorder("tick", remove_victim);
    victim = add_recorder_with("tick", record_2, &counted);
    add_recorder("tick", record_3);

    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 3);
    assert_int_equal(result.handled, 2);
    assert_int_equal(seen_status, DC_OK);
    /* The destroy notify had run by the time remove returned, mid-emission. */
    assert_int_equal(seen_destroys, 1);
    assert_int_equal(victim_destroys, 1);
    assert_false(dc_table_contains(table, victim));

    reset_call_log();
    execute_ok("tick", NULL, 0);
    assert_call_log(1, 3);
    assert_int_equal(seen_status, DC_ERR_NOT_FOUND);
    assert_int_equal(victim_destroys, 1);
}

static void once_handler_removed_mid_emission_never_runs(void **state) {
    (void)state;
    reset_seen();
    const dc_handler_options once = handler_options(DC_HANDLER_ONCE, &victim_destroys);
    add_recorder("tick", remove_victim);
    victim = add_recorder_with("tick", record_2, &once);
    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1);
    assert_int_equal(result.handled, 1);
    assert_int_equal(seen_status, DC_OK);
    assert_int_equal(victim_destroys, 1);
    assert_int_equal(handler_count("tick"), 1);
}

static void remove_victim_and_add_it_again(void) {
    log_call(1);
    if (!acted) {
        acted = true;
        seen_status = dc_table_remove(table, victim);
        dc_table_add(table, "tick", void_signature, DC_FUNCTION(record_2), NULL, NULL,
                     &seen_id);
    }
}

static void handler_removed_and_added_again_mid_emission_runs_from_the_next_one(void **state) {
    (void)state;
    reset_seen();
    add_recorder("tick", remove_victim_and_add_it_again);
    victim = add_recorder("tick", record_2);
    execute_ok("tick", NULL, 0);
    assert_call_log(1);
    assert_int_equal(seen_status, DC_OK);
    assert_true(seen_id != 0);
    assert_true(seen_id != victim);
    assert_true(dc_table_contains(table, seen_id));

    reset_call_log();
    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 2);
    assert_int_equal(result.handled, 2);
}

static void remove_myself(void) {
    log_call(2);
    seen_status = dc_table_remove(table, victim);
}

static void handler_removing_itself_mid_emission_is_not_called_again(void **state) {
    (void)state;
    reset_seen();
    const dc_handler_options counted = handler_options(0, &victim_destroys);
    add_recorder("tick", record_1);
    assert_ok(dc_table_add(table, "tick", void_signature, DC_FUNCTION(remove_myself), NULL,
                           &counted, &victim));
    add_recorder("tick", record_3);

    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 2, 3);
    assert_int_equal(result.handled, 3);
    assert_int_equal(seen_status, DC_OK);
    assert_int_equal(victim_destroys, 1);
    assert_false(dc_table_contains(table, victim));

    reset_call_log();
    result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 3);
    assert_int_equal(result.handled, 2);
    assert_int_equal(victim_destroys, 1);
}

static void drop_own_target(void *target) {
    log_call(*(const int *)target);
    seen_status = dc_table_remove_target(table, target, &seen_removed);
}

static void handler_removing_its_own_target_mid_emission_skips_the_targets_later_handlers(
    void **state) {
    (void)state;
    reset_seen();
    int doomed = 1, other = 4;
    static int doomed_destroys, other_destroys;
    doomed_destroys = other_destroys = 0;
    const dc_handler_options doomed_options = handler_options(0, &doomed_destroys);
    const dc_handler_options other_options = handler_options(0, &other_destroys);
    dc_signature *v_ptr = sig("v^v");
    dc_handler_id dropper = 0, later = 0, elsewhere = 0;
    assert_ok(dc_table_add(table, "tick", v_ptr, DC_FUNCTION(drop_own_target), &doomed,
                           &doomed_options, &dropper));
    add_recorder("tick", record_2);
    assert_ok(dc_table_add(table, "tick", v_ptr, DC_FUNCTION(record_target_plus_100), &doomed,
                           &doomed_options, &later));
    assert_ok(dc_table_add(table, "tick", v_ptr, DC_FUNCTION(record_target), &other,
                           &other_options, NULL));
    assert_ok(dc_table_add(table, "tock", v_ptr, DC_FUNCTION(record_target), &doomed,
                           &doomed_options, &elsewhere));

    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 2, 4);
    assert_int_equal(result.handled, 3);
    assert_int_equal(seen_status, DC_OK);
    assert_int_equal(seen_removed, 3);
    assert_int_equal(doomed_destroys, 3);
    assert_int_equal(other_destroys, 0);
    assert_false(dc_table_contains(table, dropper));
    assert_false(dc_table_contains(table, later));
    assert_false(dc_table_contains(table, elsewhere));

    reset_call_log();
    execute_ok("tick", NULL, 0);
    execute_ok("tock", NULL, 0);
    assert_call_log(2, 4);
}

static int event_destroys;

static void drop_whole_event(void) {
    log_call(1);
    seen_status = dc_table_remove_event(table, "tick", &seen_removed);
    seen_destroys = event_destroys;
}

static void handler_removing_its_whole_event_mid_emission_stops_the_rest(void **state) {
    (void)state;
    reset_seen();
    event_destroys = 0;
    const dc_handler_options counted = handler_options(0, &event_destroys);
    add_recorder_with("tick", drop_whole_event, &counted);
    add_recorder_with("tick", record_2, &counted);
    add_recorder_with("tick", record_3, &counted);
    add_recorder("tock", record_4);

    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1);
    assert_int_equal(result.handled, 1);
    assert_int_equal(seen_status, DC_OK);
    assert_int_equal(seen_removed, 3);
    /* The two not running had gone when remove_event returned; the running one
     * has gone by now. */
    assert_true(seen_destroys >= 2);
    assert_int_equal(event_destroys, 3);
    assert_int_equal(handler_count("tick"), 0);
    execute_ok("tock", NULL, 0);
    assert_call_log(1, 4);
}

static void drop_everything(void) {
    log_call(1);
    seen_status = dc_table_remove_all(table, &seen_removed);
}

static void handler_removing_every_handler_mid_emission_stops_the_rest(void **state) {
    (void)state;
    reset_seen();
    static int destroys;
    destroys = 0;
    const dc_handler_options counted = handler_options(0, &destroys);
    add_recorder_with("tick", record_1, &counted);
    add_recorder_with("tick", drop_everything, &counted);
    add_recorder_with("tick", record_3, &counted);
    add_recorder_with("tock", record_4, &counted);

    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 1);
    assert_int_equal(result.handled, 2);
    assert_int_equal(seen_status, DC_OK);
    assert_int_equal(seen_removed, 4);
    assert_int_equal(destroys, 4);
    execute_ok("tick", NULL, 0);
    execute_ok("tock", NULL, 0);
    assert_call_log(1, 1);
}

enum { CROWD = 40 };
static int crowd_tags[CROWD];
static dc_handler_id crowd_ids[CROWD];

static void remove_most_of_the_crowd(void *target) {
    log_call(*(const int *)target);
    if (!acted) {
        acted = true;
        /* Enough removals that the table may rebuild the event's handler list
         * while this emission still walks the old one. */
        for (size_t i = 1; i < CROWD - 5; i++) {
            if (dc_table_remove(table, crowd_ids[i]) != DC_OK) {
                seen_status = DC_ERR_NOT_FOUND;
            }
        }
    }
}

static void handler_removing_many_later_handlers_mid_emission_skips_them_all(void **state) {
    (void)state;
    reset_seen();
    seen_status = DC_OK;
    dc_signature *v_ptr = sig("v^v");
    static int destroys;
    destroys = 0;
    const dc_handler_options counted = handler_options(0, &destroys);
    for (int i = 0; i < CROWD; i++) {
        crowd_tags[i] = i;
        assert_ok(dc_table_add(table, "crowd", v_ptr,
                               DC_FUNCTION(i == 0 ? remove_most_of_the_crowd : record_target),
                               &crowd_tags[i], &counted, &crowd_ids[i]));
    }
    dc_result result = execute_ok("crowd", NULL, 0);
    assert_int_equal(seen_status, DC_OK);
    assert_int_equal(destroys, CROWD - 6);
    assert_call_log(0, 35, 36, 37, 38, 39);
    assert_int_equal(result.handled, 6);
    assert_int_equal(handler_count("crowd"), 6);

    reset_call_log();
    execute_ok("crowd", NULL, 0);
    assert_call_log(0, 35, 36, 37, 38, 39);
}

static void execute_inner_that_removes_me(void) {
    log_call(1);
    seen_status = dc_table_execute(table, "inner", NULL, 0, NULL);
    log_call(2); /* still running after its own removal returned */
}

static void handler_removed_by_a_nested_handler_finishes_and_is_not_called_again(
    void **state) {
    (void)state;
    reset_seen();
    const dc_handler_options counted = handler_options(0, &victim_destroys);
    victim = add_recorder_with("outer", execute_inner_that_removes_me, &counted);
    add_recorder("outer", record_3);
    add_recorder("inner", remove_victim);

    dc_result result = execute_ok("outer", NULL, 0);
    /* remove_victim logs 1 too. */
    assert_call_log(1, 1, 2, 3);
    assert_int_equal(result.handled, 2);
    assert_int_equal(seen_status, DC_OK);
    assert_int_equal(victim_destroys, 1);
    assert_false(dc_table_contains(table, victim));

    reset_call_log();
    execute_ok("outer", NULL, 0);
    assert_call_log(3);
}

/* ---- additions during an emission --------------------------------------------------------- */

static void connect_record_3(void) {
    log_call(1);
    seen_status = dc_table_add(table, "tick", void_signature, DC_FUNCTION(record_3), NULL, NULL,
                               &seen_id);
}

static void handler_connected_mid_emission_runs_from_the_next_emission(void **state) {
    (void)state;
    reset_seen();
    add_recorder("tick", connect_record_3);
    add_recorder("tick", record_2);

    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 2);
    assert_int_equal(result.handled, 2);
    assert_int_equal(seen_status, DC_OK);
    dc_handler_id added = seen_id;
    assert_true(dc_table_contains(table, added));
    assert_int_equal(handler_count("tick"), 3);

    reset_call_log();
    result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 2, 3);
    assert_int_equal(result.handled, 3);
    /* Connecting the same function again is a duplicate of the one just added. */
    assert_int_equal(seen_status, DC_EXISTS);
    assert_int_equal(seen_id, added);
}

static void connect_record_4_first(void) {
    log_call(1);
    if (!acted) {
        acted = true;
        const dc_handler_options first = handler_options(DC_HANDLER_FIRST, NULL);
        seen_status = dc_table_add(table, "tick", void_signature, DC_FUNCTION(record_4), NULL,
                                   &first, &seen_id);
    }
}

static void handler_connected_first_mid_emission_does_not_run_in_it(void **state) {
    (void)state;
    reset_seen();
    add_recorder("tick", connect_record_4_first);
    add_recorder("tick", record_2);
    execute_ok("tick", NULL, 0);
    assert_call_log(1, 2);
    assert_int_equal(seen_status, DC_OK);
    reset_call_log();
    execute_ok("tick", NULL, 0);
    assert_call_log(4, 1, 2);
}

static void add_record_3_and_reenter(void) {
    log_call(1);
    if (!acted) {
        acted = true;
        seen_status = dc_table_add(table, "tick", void_signature, DC_FUNCTION(record_3), NULL,
                                   NULL, &seen_id);
        dc_table_execute(table, "tick", NULL, 0, NULL);
    }
}

static void nested_execute_started_after_an_addition_runs_the_added_handler(void **state) {
    (void)state;
    reset_seen();
    add_recorder("tick", add_record_3_and_reenter);
    add_recorder("tick", record_2);
    dc_result result = execute_ok("tick", NULL, 0);
    /* Outer: 1, then the nested execute (1, 2, 3), then the outer's 2 — but not
     * the outer's 3, which was added after the outer execute began. */
    assert_call_log(1, 1, 2, 3, 2);
    assert_int_equal(result.handled, 2);
    assert_int_equal(seen_status, DC_OK);
}

static void connect_many(void) {
    log_call(1);
    if (!acted) {
        acted = true;
        static int tags[CROWD];
        for (int i = 0; i < CROWD; i++) {
            tags[i] = 100 + i;
            if (dc_table_add(table, "tick", sig_pointer, DC_FUNCTION(record_target), &tags[i],
                             NULL, NULL) != DC_OK) {
                seen_status = DC_ERR_NO_MEMORY;
            }
        }
    }
}

static void many_handlers_connected_mid_emission_all_wait_for_the_next_one(void **state) {
    (void)state;
    reset_seen();
    seen_status = DC_OK;
    sig_pointer = sig("v^v");
    add_recorder("tick", connect_many);
    add_recorder("tick", record_2);
    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 2);
    assert_int_equal(result.handled, 2);
    assert_int_equal(seen_status, DC_OK);
    assert_int_equal(handler_count("tick"), 2 + CROWD);

    reset_call_log();
    result = execute_ok("tick", NULL, 0);
    assert_int_equal(result.handled, 2 + CROWD);
    assert_int_equal(call_log_count, 2 + CROWD);
    assert_int_equal(call_log[0], 1);
    assert_int_equal(call_log[1], 2);
    for (int i = 0; i < CROWD; i++) {
        assert_int_equal(call_log[2 + i], 100 + i);
    }
}

static void connect_a_double_handler(void) {
    log_call(1);
    seen_status = dc_table_add(table, "tick", sig_double, DC_FUNCTION(log_double), NULL, NULL,
                               &seen_id);
}

static void handler_connected_mid_emission_is_not_checked_against_that_emission(
    void **state) {
    (void)state;
    reset_seen();
    sig_double = sig("vd");
    assert_ok(dc_table_add(table, "tick", sig("vq"), DC_FUNCTION(log_value), NULL, NULL, NULL));
    add_recorder("tick", connect_a_double_handler);
    /* The integer fits every handler there is when the execute starts; the
     * double handler added during it neither runs nor fails it. */
    dc_result result = execute_ok("tick", (dc_value[]){dc_int64(7)}, 1);
    assert_int_equal(seen_status, DC_OK);
    assert_call_log(7, 1);
    assert_int_equal(result.handled, 2);
    /* From the next execute on, it is checked like any other. */
    reset_call_log();
    assert_status(dc_table_execute(table, "tick", (dc_value[]){dc_int64(7)}, 1, NULL),
                  DC_ERR_TYPE);
    assert_nothing_called();
}

/* ---- blocking during an emission ----------------------------------------------------------- */

static void block_victim_once(void) {
    log_call(1);
    if (!acted) {
        acted = true;
        seen_status = dc_table_block(table, victim);
    }
}

static void handler_blocking_a_later_handler_mid_emission_skips_it(void **state) {
    (void)state;
    reset_seen();
    add_recorder("tick", block_victim_once);
    add_recorder("tick", record_2);
    victim = add_recorder("tick", record_3);

    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 2);
    assert_int_equal(result.handled, 2);
    assert_int_equal(seen_status, DC_OK);

    reset_call_log();
    execute_ok("tick", NULL, 0);
    assert_call_log(1, 2);

    assert_ok(dc_table_unblock(table, victim));
    reset_call_log();
    execute_ok("tick", NULL, 0);
    assert_call_log(1, 2, 3);
    assert_fails(dc_table_unblock(table, victim), DC_ERR_STATE);
}

static void block_myself(void) {
    log_call(2);
    seen_status = dc_table_block(table, victim);
}

static void handler_blocking_itself_mid_emission_is_skipped_from_then_on(void **state) {
    (void)state;
    reset_seen();
    add_recorder("tick", record_1);
    victim = add_recorder("tick", block_myself);
    add_recorder("tick", record_3);
    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 2, 3);
    assert_int_equal(result.handled, 3);
    assert_int_equal(seen_status, DC_OK);
    reset_call_log();
    execute_ok("tick", NULL, 0);
    assert_call_log(1, 3);
    assert_ok(dc_table_unblock(table, victim));
    reset_call_log();
    execute_ok("tick", NULL, 0);
    assert_call_log(1, 2, 3);
}

/* ---- stopping an emission ------------------------------------------------------------------- */

static bool should_stop;

static void stop_here(void) {
    log_call(2);
    if (should_stop) {
        seen_status = dc_table_stop_emission(table);
    }
}

static void stop_emission_from_the_second_of_three_handlers_skips_the_third(void **state) {
    (void)state;
    reset_seen();
    add_recorder("tick", record_1);
    add_recorder("tick", stop_here);
    add_recorder("tick", record_3);

    should_stop = true;
    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 2);
    assert_int_equal(result.handled, 2);
    assert_true(result.stopped);
    assert_int_equal(seen_status, DC_OK);

    /* The stop belonged to that execute only. */
    should_stop = false;
    reset_call_log();
    result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 2, 3);
    assert_int_equal(result.handled, 3);
    assert_false(result.stopped);
}

static int64_t return_10(void) { return log_call(10), 10; }
static int64_t stop_returning_20(void) {
    log_call(20);
    seen_status = dc_table_stop_emission(table);
    return 20;
}
static int64_t return_30(void) { return log_call(30), 30; }

static void stop_emission_keeps_the_return_values_of_the_handlers_that_ran(void **state) {
    (void)state;
    reset_seen();
    dc_signature *returns_int64 = sig("q");
    assert_ok(dc_table_add(table, "tick", returns_int64, DC_FUNCTION(return_10), NULL, NULL,
                           NULL));
    assert_ok(dc_table_add(table, "tick", returns_int64, DC_FUNCTION(stop_returning_20), NULL,
                           NULL, NULL));
    assert_ok(dc_table_add(table, "tick", returns_int64, DC_FUNCTION(return_30), NULL, NULL,
                           NULL));
    const dc_execute_options last = {.accumulator = DC_ACCUMULATE_LAST};
    dc_result result;
    assert_ok(dc_table_execute_with(table, "tick", NULL, 0, &last, &result));
    assert_call_log(10, 20);
    assert_int_equal(seen_status, DC_OK);
    assert_true(result.stopped);
    assert_int_equal(result.handled, 2);
    assert_int_equal(result.return_count, 2);
    assert_true(result.has_return_value);
    assert_value_equal(dc_int64(20), result.return_value, "last value before the stop");
}

static void execute_inner(void) {
    log_call(2);
    nested_status = dc_table_execute(table, "inner", NULL, 0, &nested_result);
}

static void stop_inner(void) {
    log_call(11);
    seen_status = dc_table_stop_emission(table);
}

static void stop_emission_in_a_nested_execute_stops_only_the_inner_one(void **state) {
    (void)state;
    reset_seen();
    add_recorder("outer", record_1);
    add_recorder("outer", execute_inner);
    add_recorder("outer", record_3);
    add_recorder("inner", stop_inner);
    add_recorder("inner", record_4);

    nested_status = DC_ERR_STATE;
    dc_result result = execute_ok("outer", NULL, 0);
    assert_call_log(1, 2, 11, 3);
    assert_int_equal(seen_status, DC_OK);
    assert_int_equal(nested_status, DC_OK);
    assert_true(nested_result.stopped);
    assert_int_equal(nested_result.handled, 1);
    assert_false(result.stopped);
    assert_int_equal(result.handled, 3);
}

static void stop_emission_after_an_execute_returned_is_a_state_error(void **state) {
    (void)state;
    reset_seen();
    add_recorder("tick", record_1);
    assert_fails(dc_table_stop_emission(table), DC_ERR_STATE);
    execute_ok("tick", NULL, 0);
    assert_fails(dc_table_stop_emission(table), DC_ERR_STATE);
    dc_result result = execute_ok("tick", NULL, 0);
    assert_false(result.stopped);
    assert_call_log(1, 1);
}


static void stop_the_other_table(void) {
    log_call(2);
    seen_status = dc_table_stop_emission(other_table);
}

static void stop_emission_of_a_table_that_is_not_executing_is_a_state_error(void **state) {
    (void)state;
    reset_seen();
    other_table = NULL;
    assert_ok(dc_table_create("other", NULL, &other_table));
    add_recorder("tick", record_1);
    add_recorder("tick", stop_the_other_table);
    add_recorder("tick", record_3);
    /* `table` is executing on this thread, `other_table` is not: the stop fails
     * and does not stop `table`. */
    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 2, 3);
    assert_int_equal(seen_status, DC_ERR_STATE);
    assert_false(result.stopped);
    assert_int_equal(result.handled, 3);
    dc_table_destroy(other_table);
    other_table = NULL;
}

static void execute_other_table(void) {
    log_call(2);
    nested_status = dc_table_execute(other_table, "inner", NULL, 0, &nested_result);
}

static void stop_the_test_table(void) {
    log_call(11);
    seen_status = dc_table_stop_emission(table);
}

static void stop_emission_names_the_table_whose_execute_it_stops(void **state) {
    (void)state;
    reset_seen();
    other_table = NULL;
    assert_ok(dc_table_create("other", NULL, &other_table));
    add_recorder("outer", record_1);
    add_recorder("outer", execute_other_table);
    add_recorder("outer", record_3);
    dc_signature *v = sig("v");
    assert_ok(dc_table_add(other_table, "inner", v, DC_FUNCTION(stop_the_test_table), NULL,
                           NULL, NULL));
    assert_ok(dc_table_add(other_table, "inner", v, DC_FUNCTION(record_4), NULL, NULL, NULL));

    nested_status = DC_ERR_STATE;
    dc_result result = execute_ok("outer", NULL, 0);
    /* The stop ends the execute of `table` (the outer one); the execute of
     * `other_table` running inside it goes on. */
    assert_call_log(1, 2, 11, 4);
    assert_int_equal(seen_status, DC_OK);
    assert_int_equal(nested_status, DC_OK);
    assert_false(nested_result.stopped);
    assert_int_equal(nested_result.handled, 2);
    assert_true(result.stopped);
    assert_int_equal(result.handled, 2);
    dc_table_destroy(other_table);
    other_table = NULL;
}

/* ---- nested executes ------------------------------------------------------------------------- */

static void forward_incremented(int64_t value) {
    log_call(2);
    dc_value next = dc_int64(value + 1);
    nested_status = dc_table_execute(table, "inner", &next, 1, &nested_result);
}

static void handler_executing_another_event_runs_it_nested_in_order(void **state) {
    (void)state;
    reset_seen();
    add_recorder("outer", record_1);
    assert_ok(dc_table_add(table, "outer", sig("vq"), DC_FUNCTION(forward_incremented), NULL,
                           NULL, NULL));
    add_recorder("outer", record_3);
    assert_ok(dc_table_add(table, "inner", sig("vq"), DC_FUNCTION(log_value), NULL, NULL,
                           NULL));
    add_recorder("inner", record_5);

    nested_status = DC_ERR_STATE;
    dc_result result = execute_ok("outer", (dc_value[]){dc_int64(41)}, 1);
    assert_call_log(1, 2, 42, 5, 3);
    assert_int_equal(nested_status, DC_OK);
    assert_int_equal(nested_result.handled, 2);
    assert_int_equal(result.handled, 3);
}

static int guard_depth;

static void reenter_once(void) {
    log_call(1);
    if (guard_depth == 0) {
        guard_depth++;
        nested_status = dc_table_execute(table, "tick", NULL, 0, &nested_result);
        guard_depth--;
    }
}

static void handler_reexecuting_its_own_event_with_a_guard_nests_once(void **state) {
    (void)state;
    reset_seen();
    guard_depth = 0;
    add_recorder("tick", reenter_once);
    add_recorder("tick", record_2);
    nested_status = DC_ERR_STATE;
    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(1, 1, 2, 2);
    assert_int_equal(nested_status, DC_OK);
    assert_int_equal(nested_result.handled, 2);
    assert_int_equal(result.handled, 2);
}

static void execute_with_a_mismatched_argument(void) {
    log_call(1);
    char text[] = "not an integer";
    dc_value wrong = dc_string(text);
    nested_status = dc_table_execute(table, "typed", &wrong, 1, &nested_result);
}

static void failing_nested_execute_leaves_the_outer_one_running(void **state) {
    (void)state;
    reset_seen();
    add_recorder("outer", execute_with_a_mismatched_argument);
    add_recorder("outer", record_3);
    assert_ok(dc_table_add(table, "typed", sig("vq"), DC_FUNCTION(log_value), NULL, NULL,
                           NULL));
    nested_status = DC_OK;
    dc_result result = execute_ok("outer", NULL, 0);
    assert_call_log(1, 3);
    assert_int_equal(nested_status, DC_ERR_TYPE);
    assert_int_equal(result.handled, 2);
}

static int recursion_calls;
static int depth_errors;
static int other_failures;
static char depth_message[256];

static void recurse(void) {
    recursion_calls++;
    dc_status status = dc_table_execute(table, "deep", NULL, 0, NULL);
    if (status == DC_ERR_DEPTH) {
        if (depth_errors++ == 0) {
            snprintf(depth_message, sizeof depth_message, "%s", dc_last_error_message());
        }
    } else if (status != DC_OK) {
        other_failures++;
    }
}

static void executes_nested_deeper_than_the_limit_fail_with_a_depth_error(void **state) {
    (void)state;
    reset_seen();
    add_recorder("deep", recurse);
    for (int round = 0; round < 2; round++) {
        recursion_calls = 0, depth_errors = 0, other_failures = 0;
        depth_message[0] = '\0';
        dc_result result = execute_ok("deep", NULL, 0);
        assert_int_equal(result.handled, 1);
        /* Executes 1 to DC_MAX_EXECUTE_DEPTH each ran the handler; the one more
         * that the deepest handler asked for failed. */
        assert_int_equal(recursion_calls, DC_MAX_EXECUTE_DEPTH);
        assert_int_equal(depth_errors, 1);
        assert_int_equal(other_failures, 0);
        assert_true(depth_message[0] != '\0');
    }
    /* The depth unwound: an ordinary execute still works. */
    add_recorder("shallow", record_1);
    execute_ok("shallow", NULL, 0);
    assert_call_log(1);
}

/* ---- destroying the table from its own handler -------------------------------------------- */

static void destroy_own_table(void) {
    log_call(1);
    dc_table_destroy(table);
}

static void destroying_the_table_from_its_own_handler_is_safe(void **state) {
    (void)state;
    reset_seen();
    static int destroys[3];
    memset(destroys, 0, sizeof destroys);
    const dc_handler_options options[3] = {
        handler_options(0, &destroys[0]),
        handler_options(0, &destroys[1]),
        handler_options(DC_HANDLER_ONCE, &destroys[2]),
    };
    add_recorder_with("tick", record_2, &options[0]);
    add_recorder_with("tick", destroy_own_table, &options[1]);
    add_recorder_with("tick", record_3, &options[2]);

    dc_table *doomed = table;
    dc_result result;
    assert_ok(dc_table_execute(doomed, "tick", NULL, 0, &result));
    table = NULL; /* gone: the fixture must not destroy it again */
    /* Whether record_3 still ran is the table's choice; nothing ran twice. */
    assert_true(call_log_count == 2 || call_log_count == 3);
    assert_int_equal(call_log[0], 2);
    assert_int_equal(call_log[1], 1);
    for (size_t i = 0; i < ARRAY_COUNT(destroys); i++) {
        if (destroys[i] != 1) {
            fail_msg("handler %zu: destroy notify ran %d times, expected once", i, destroys[i]);
        }
    }
}

static void execute_inner_then_record(void) {
    log_call(1);
    nested_status = dc_table_execute(table, "inner", NULL, 0, &nested_result);
    log_call(5);
}

static void destroying_the_table_in_a_nested_execute_finishes_after_the_outermost(
    void **state) {
    (void)state;
    reset_seen();
    static int destroys;
    destroys = 0;
    const dc_handler_options counted = handler_options(0, &destroys);
    add_recorder_with("outer", execute_inner_then_record, &counted);
    add_recorder_with("outer", record_4, &counted);
    add_recorder_with("inner", destroy_own_table, &counted);
    add_recorder_with("inner", record_2, &counted);

    dc_table *doomed = table;
    nested_status = DC_ERR_STATE;
    assert_ok(dc_table_execute(doomed, "outer", NULL, 0, NULL));
    table = NULL;
    assert_int_equal(nested_status, DC_OK);
    assert_true(call_log_count >= 3);
    assert_int_equal(call_log[0], 1);
    assert_int_equal(call_log[1], 1); /* destroy_own_table logs 1 as well */
    assert_int_equal(destroys, 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* removal */
        table_test(handler_removed_mid_emission_is_not_called),
        table_test(once_handler_removed_mid_emission_never_runs),
        table_test(handler_removed_and_added_again_mid_emission_runs_from_the_next_one),
        table_test(handler_removing_itself_mid_emission_is_not_called_again),
        table_test(
            handler_removing_its_own_target_mid_emission_skips_the_targets_later_handlers),
        table_test(handler_removing_its_whole_event_mid_emission_stops_the_rest),
        table_test(handler_removing_every_handler_mid_emission_stops_the_rest),
        table_test(handler_removing_many_later_handlers_mid_emission_skips_them_all),
        table_test(handler_removed_by_a_nested_handler_finishes_and_is_not_called_again),
        /* additions */
        table_test(handler_connected_mid_emission_runs_from_the_next_emission),
        table_test(handler_connected_first_mid_emission_does_not_run_in_it),
        table_test(nested_execute_started_after_an_addition_runs_the_added_handler),
        table_test(many_handlers_connected_mid_emission_all_wait_for_the_next_one),
        table_test(handler_connected_mid_emission_is_not_checked_against_that_emission),
        /* blocking */
        table_test(handler_blocking_a_later_handler_mid_emission_skips_it),
        table_test(handler_blocking_itself_mid_emission_is_skipped_from_then_on),
        /* stopping */
        table_test(stop_emission_from_the_second_of_three_handlers_skips_the_third),
        table_test(stop_emission_keeps_the_return_values_of_the_handlers_that_ran),
        table_test(stop_emission_in_a_nested_execute_stops_only_the_inner_one),
        table_test(stop_emission_after_an_execute_returned_is_a_state_error),
        table_test(stop_emission_of_a_table_that_is_not_executing_is_a_state_error),
        table_test(stop_emission_names_the_table_whose_execute_it_stops),
        /* nesting */
        table_test(handler_executing_another_event_runs_it_nested_in_order),
        table_test(handler_reexecuting_its_own_event_with_a_guard_nests_once),
        table_test(failing_nested_execute_leaves_the_outer_one_running),
        table_test(executes_nested_deeper_than_the_limit_fail_with_a_depth_error),
        /* destroying */
        table_test(destroying_the_table_from_its_own_handler_is_safe),
        table_test(destroying_the_table_in_a_nested_execute_finishes_after_the_outermost),
    };
    return cmocka_run_group_tests_name("event table re-entrancy", tests, NULL, NULL);
}
