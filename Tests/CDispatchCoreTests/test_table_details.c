/*
 * test_table_details.c — detailed event keys ("notify::size"), restating
 * GLib's detailed emission (gobject/tests/signals.c): an execute of a
 * detailed key runs the event's handlers without a detail and those of that
 * detail, in one call order, after one validation; an execute of the event
 * runs only those without one; malformed keys are refused everywhere a key
 * is taken, with nothing changed.
 */
#include "table_support.h"

static void record_int(int value) { log_call(value); }
static void record_int_plus_10(int value) { log_call(10 + value); }

static dc_handler_id add_int_recorder(const char *event, void (*recorder)(int)) {
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, event, sig("vi"), DC_FUNCTION(recorder), NULL, NULL, &id));
    return id;
}

static void detailed_execute_runs_plain_and_its_detail_in_one_order(void **state) {
    (void)state;
    add_recorder("notify", record_1);
    add_recorder("notify::size", record_2);
    add_recorder("notify::title", record_3);
    add_recorder("notify", record_4);
    add_recorder("notify::size", record_5);

    dc_result result = execute_ok("notify::size", NULL, 0);
    assert_call_log(1, 2, 4, 5);
    assert_int_equal(result.handled, 4);

    reset_call_log();
    result = execute_ok("notify::title", NULL, 0);
    assert_call_log(1, 3, 4);
    assert_int_equal(result.handled, 3);

    reset_call_log();
    result = execute_ok("notify", NULL, 0);
    assert_call_log(1, 4);
    assert_int_equal(result.handled, 2);
}

static void a_detail_never_added_runs_the_plain_handlers(void **state) {
    (void)state;
    add_recorder("notify", record_1);
    add_recorder("notify::size", record_2);
    dc_result result = execute_ok("notify::width", NULL, 0);
    assert_call_log(1);
    assert_int_equal(result.handled, 1);
    /* Nothing was interned by the execute. */
    const char *names[4];
    size_t count = 0;
    assert_ok(dc_table_events(table, names, 4, &count));
    assert_int_equal(count, 2);
    /* An unknown event with a detail runs nothing. */
    reset_call_log();
    result = execute_ok("other::width", NULL, 0);
    assert_int_equal(result.handled, 0);
    assert_nothing_called();
}

static void detailed_keys_intern_to_ids_of_their_own(void **state) {
    (void)state;
    dc_event_id notify = 0, size = 0, again = 0;
    assert_ok(dc_table_intern(table, "notify::size", &size));
    assert_ok(dc_table_intern(table, "notify", &notify));
    assert_ok(dc_table_intern(table, "notify::size", &again));
    assert_true(notify != 0 && size != 0 && notify != size);
    assert_int_equal(size, again);
    const char *name = NULL;
    assert_ok(dc_table_event_name(table, size, &name));
    assert_string_equal(name, "notify::size");

    add_recorder("notify", record_1);
    dc_handler_id id = 0;
    assert_ok(dc_table_add_id(table, size, sig("v"), DC_FUNCTION(record_2), NULL, NULL, &id));
    dc_result result;
    assert_ok(dc_table_execute_id(table, size, NULL, 0, &result));
    assert_call_log(1, 2);
    reset_call_log();
    assert_ok(dc_table_execute_id(table, notify, NULL, 0, &result));
    assert_call_log(1);
}

static void the_arguments_are_checked_against_every_handler_that_would_run_before_any_runs(void **state) {
    (void)state;
    add_int_recorder("changed", record_int);
    dc_handler_id strict = 0;
    dc_handler_options options = handler_options(DC_HANDLER_STRICT, NULL);
    assert_ok(dc_table_add(table, "changed::size", sig("vii"), DC_FUNCTION(record_int_plus_10), NULL, &options,
                           &strict));
    /* A string fits neither; one int fits the plain handler but not the
     * detailed strict one: nothing runs either way. */
    assert_failure(dc_table_execute(table, "changed::size", VALUE(dc_string("x")), 1, NULL), DC_ERR_TYPE, "changed");
    assert_nothing_called();
    char id[32];
    assert_failure(dc_table_execute(table, "changed::size", VALUE(dc_int32(7)), 1, NULL), DC_ERR_ARITY,
                   "changed::size", id_text(strict, id, sizeof id));
    assert_nothing_called();
    /* The plain execute does not check a detail's handlers. */
    execute_ok("changed", VALUE(dc_int32(7)), 1);
    assert_call_log(7);
    /* A handler of another detail constrains nothing here. */
    dc_handler_id other = 0;
    assert_ok(dc_table_add(table, "changed::title", sig("v*"), DC_FUNCTION(record_1), NULL, NULL, &other));
    reset_call_log();
    dc_value two[] = {dc_int32(3), dc_int32(4)};
    execute_ok("changed::size", two, 2);
    assert_call_log(3, 13);
}

static void detailed_handlers_keep_once_block_and_removal(void **state) {
    (void)state;
    dc_handler_options once = handler_options(DC_HANDLER_ONCE, NULL);
    add_recorder("notify", record_1);
    add_recorder_with("notify::size", record_2, &once);
    dc_handler_id blocked = add_recorder("notify::size", record_3);
    assert_ok(dc_table_block(table, blocked));
    execute_ok("notify::size", NULL, 0);
    execute_ok("notify::size", NULL, 0);
    assert_call_log(1, 2, 1);
    assert_ok(dc_table_unblock(table, blocked));
    reset_call_log();
    execute_ok("notify::size", NULL, 0);
    assert_call_log(1, 3);
    assert_ok(dc_table_remove(table, blocked));
    reset_call_log();
    execute_ok("notify::size", NULL, 0);
    assert_call_log(1);
}

static void counts_and_removals_by_key(void **state) {
    (void)state;
    add_recorder("notify", record_1);
    add_recorder("notify::size", record_2);
    add_recorder("notify::size", record_3);
    add_recorder("notify::title", record_4);
    assert_int_equal(handler_count("notify"), 1);
    assert_int_equal(handler_count("notify::size"), 3);
    assert_int_equal(handler_count("notify::width"), 1);
    assert_int_equal(handler_count("unknown::width"), 0);

    size_t removed = 0;
    assert_ok(dc_table_remove_event(table, "notify::size", &removed));
    assert_int_equal(removed, 2);
    assert_int_equal(handler_count("notify::title"), 2);
    assert_ok(dc_table_remove_event(table, "notify", &removed));
    assert_int_equal(removed, 2); /* the event with its details */
    assert_int_equal(handler_count("notify::title"), 0);
    execute_ok("notify::title", NULL, 0);
    assert_nothing_called();
}

static void the_same_function_and_target_may_be_added_once_per_key(void **state) {
    (void)state;
    dc_handler_id plain = 0, size = 0, again = 0;
    assert_ok(dc_table_add(table, "notify", sig("v"), DC_FUNCTION(record_1), NULL, NULL, &plain));
    assert_ok(dc_table_add(table, "notify::size", sig("v"), DC_FUNCTION(record_1), NULL, NULL, &size));
    assert_status(dc_table_add(table, "notify::size", sig("v"), DC_FUNCTION(record_1), NULL, NULL, &again),
                  DC_EXISTS);
    assert_int_equal(again, size);
    assert_true(plain != size);
    execute_ok("notify::size", NULL, 0);
    assert_call_log(1, 1);
}

static void malformed_keys_are_refused_with_nothing_changed(void **state) {
    (void)state;
    static const char *const malformed[] = {"::size", "notify::", "a::b::c", "a:::b", "::", ":::", "a::b::"};
    add_recorder("notify", record_1);
    size_t events_before = 0;
    assert_ok(dc_table_events(table, NULL, 0, &events_before));
    for (size_t i = 0; i < ARRAY_COUNT(malformed); i++) {
        const char *key = malformed[i];
        dc_event_id id = 0;
        dc_handler_id handler = 0;
        size_t count = 0;
        assert_failure(dc_table_intern(table, key, &id), DC_ERR_INVALID_ARGUMENT, key);
        assert_failure(dc_table_add(table, key, sig("v"), DC_FUNCTION(record_2), NULL, NULL, &handler),
                       DC_ERR_INVALID_ARGUMENT, key);
        assert_failure(dc_table_add_marshal(table, key, NULL, (dc_marshal)record_2, NULL, NULL, &handler),
                       DC_ERR_INVALID_ARGUMENT, key);
        assert_failure(dc_table_execute(table, key, NULL, 0, NULL), DC_ERR_INVALID_ARGUMENT, key);
        assert_failure(dc_table_handler_count(table, key, &count), DC_ERR_INVALID_ARGUMENT, key);
        assert_failure(dc_table_remove_event(table, key, &count), DC_ERR_INVALID_ARGUMENT, key);
        assert_failure(dc_table_handlers(table, key, NULL, 0, &count), DC_ERR_INVALID_ARGUMENT, key);
        assert_failure(dc_table_find_handler(table, key, DC_FUNCTION(record_1), NULL, &handler),
                       DC_ERR_INVALID_ARGUMENT, key);
        assert_failure(dc_table_add_emission_hook(table, key, (dc_emission_hook)record_1, NULL, NULL, NULL),
                       DC_ERR_INVALID_ARGUMENT, key);
    }
    /* Colons that make no detail are part of a plain name. */
    add_recorder("a:b", record_2);
    add_recorder("a::b:c", record_3);
    execute_ok("a::b:c", NULL, 0);
    assert_call_log(3);
    size_t events_after = 0;
    assert_ok(dc_table_events(table, NULL, 0, &events_after));
    assert_int_equal(events_after, events_before + 2);
    reset_call_log();
    execute_ok("notify", NULL, 0);
    assert_call_log(1);
}

static void an_event_with_detailed_handlers_still_runs_its_plain_ones_in_order(void **state) {
    (void)state;
    /* Plain handlers of one lean shape around detailed ones: the plain
     * execute passes over the detailed ones wherever they are. */
    add_int_recorder("value", record_int);
    add_int_recorder("value::a", record_int_plus_10);
    add_int_recorder("value", record_int_plus_10);
    add_int_recorder("value::b", record_int);
    execute_ok("value", VALUE(dc_int32(1)), 1);
    assert_call_log(1, 11);
    reset_call_log();
    execute_ok("value::a", VALUE(dc_int32(1)), 1);
    assert_call_log(1, 11, 11);
    reset_call_log();
    execute_ok("value::b", VALUE(dc_int32(1)), 1);
    assert_call_log(1, 11, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        table_test(detailed_execute_runs_plain_and_its_detail_in_one_order),
        table_test(a_detail_never_added_runs_the_plain_handlers),
        table_test(detailed_keys_intern_to_ids_of_their_own),
        table_test(the_arguments_are_checked_against_every_handler_that_would_run_before_any_runs),
        table_test(detailed_handlers_keep_once_block_and_removal),
        table_test(counts_and_removals_by_key),
        table_test(the_same_function_and_target_may_be_added_once_per_key),
        table_test(malformed_keys_are_refused_with_nothing_changed),
        table_test(an_event_with_detailed_handlers_still_runs_its_plain_ones_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
