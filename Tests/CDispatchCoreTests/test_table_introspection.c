/*
 * test_table_introspection.c — what a table says of its handlers, restating
 * Node's test-event-emitter-listeners, -new-listener and -remove-listeners
 * and GLib's g_signal_handler_find: the handlers an execute would call in
 * its order, one handler by id, one by function and target, and an observer
 * told of every handler added and removed, which may itself add and remove.
 */
#include "table_support.h"

static void record_int(int value) { log_call(value); }
static void marshal_nothing(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)arguments, (void)count, (void)result;
}

static void listeners_are_listed_in_call_order_with_what_they_were_added_with(void **state) {
    (void)state;
    int target = 5;
    dc_handler_options after = handler_options(DC_HANDLER_AFTER | DC_HANDLER_ONCE, NULL);
    dc_handler_options last = handler_options(DC_HANDLER_RUN_LAST, NULL);
    dc_handler_options strict = handler_options(DC_HANDLER_STRICT, NULL);
    dc_handler_id a = 0, b = 0, c = 0, d = 0, e = 0;
    assert_ok(dc_table_add(table, "event", sig("v"), DC_FUNCTION(record_1), NULL, &after, &a));
    assert_ok(dc_table_add(table, "event", sig("v"), DC_FUNCTION(record_2), NULL, &last, &b));
    assert_ok(dc_table_add(table, "event", sig("v^v"), DC_FUNCTION(record_target), &target, &strict, &c));
    assert_ok(dc_table_add_marshal(table, "event::detail", NULL, marshal_nothing, &target, NULL, &d));
    assert_ok(dc_table_add(table, "event", sig("vi"), DC_FUNCTION(record_int), NULL, NULL, &e));
    assert_ok(dc_table_block(table, e));
    assert_ok(dc_table_block(table, e));

    dc_handler_info infos[8];
    size_t count = 0;
    assert_ok(dc_table_handlers(table, "event", infos, 8, &count));
    assert_int_equal(count, 4);
    assert_int_equal(infos[0].id, c);
    assert_int_equal(infos[1].id, e);
    assert_int_equal(infos[2].id, b);
    assert_int_equal(infos[3].id, a);
    assert_ptr_equal(infos[0].target, &target);
    assert_ptr_equal(infos[0].function, DC_FUNCTION(record_target));
    assert_int_equal(infos[0].flags, DC_HANDLER_STRICT);
    assert_int_equal(infos[1].blocked, 2);
    assert_int_equal(infos[2].flags, DC_HANDLER_RUN_LAST);
    assert_int_equal(infos[3].flags, DC_HANDLER_AFTER | DC_HANDLER_ONCE);
    assert_false(infos[3].marshal);
    dc_event_id event = 0, detail = 0;
    assert_ok(dc_table_intern(table, "event", &event));
    assert_ok(dc_table_intern(table, "event::detail", &detail));
    assert_int_equal(infos[0].event, event);

    /* The detailed key's listing is what its execute calls: the marshal
     * among the event's handlers, in the order added. */
    assert_ok(dc_table_handlers(table, "event::detail", infos, 8, &count));
    assert_int_equal(count, 5);
    assert_int_equal(infos[1].id, d);
    assert_true(infos[1].marshal);
    assert_int_equal(infos[1].event, detail);

    /* A short buffer gets the first ones and the full count. */
    memset(infos, 0, sizeof infos);
    assert_ok(dc_table_handlers(table, "event", infos, 1, &count));
    assert_int_equal(count, 4);
    assert_int_equal(infos[0].id, c);
    assert_int_equal(infos[1].id, 0);

    /* After a removal the listing follows (Node: listeners() after removeListener). */
    assert_ok(dc_table_remove(table, c));
    assert_ok(dc_table_handlers(table, "event", infos, 8, &count));
    assert_int_equal(count, 3);
    assert_int_equal(infos[0].id, e);
    assert_ok(dc_table_handlers(table, "nothing", NULL, 0, &count));
    assert_int_equal(count, 0);
    assert_fails(dc_table_handlers(table, "event", NULL, 1, &count), DC_ERR_NULL_ARGUMENT);
    assert_fails(dc_table_handlers(NULL, "event", NULL, 0, &count), DC_ERR_NULL_ARGUMENT);
}

static void a_handler_is_described_by_its_id_until_removed(void **state) {
    (void)state;
    dc_queue *queue = NULL;
    assert_ok(dc_queue_create(&queue));
    dc_handler_options options = {DC_HANDLER_FIRST, queue, NULL, NULL};
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, "event", sig("v"), DC_FUNCTION(record_1), NULL, &options, &id));
    dc_handler_info info;
    assert_ok(dc_table_handler_info(table, id, &info));
    assert_int_equal(info.id, id);
    assert_ptr_equal(info.queue, queue);
    assert_int_equal(info.flags, 0); /* DC_HANDLER_FIRST says where, not what */
    assert_ok(dc_table_remove(table, id));
    assert_fails(dc_table_handler_info(table, id, &info), DC_ERR_NOT_FOUND);
    assert_fails(dc_table_handler_info(table, 0, &info), DC_ERR_NOT_FOUND);
    assert_fails(dc_table_handler_info(table, id, NULL), DC_ERR_NULL_ARGUMENT);
    dc_queue_destroy(queue);
}

static void handlers_are_found_by_function_and_target(void **state) {
    (void)state;
    static int one = 1, two = 2;
    dc_handler_id plain = add_recorder("first", record_1);
    dc_handler_id bound_one = 0, bound_two = 0, detailed = 0;
    assert_ok(dc_table_add(table, "second", sig("v^v"), DC_FUNCTION(record_target), &one, NULL, &bound_one));
    assert_ok(dc_table_add(table, "second", sig("v^v"), DC_FUNCTION(record_target), &two, NULL, &bound_two));
    assert_ok(dc_table_add(table, "second::x", sig("v^v"), DC_FUNCTION(record_target), &one, NULL, &detailed));
    dc_handler_id found = 0;
    assert_ok(dc_table_find_handler(table, NULL, DC_FUNCTION(record_1), NULL, &found));
    assert_int_equal(found, plain);
    assert_ok(dc_table_find_handler(table, NULL, DC_FUNCTION(record_target), &two, &found));
    assert_int_equal(found, bound_two);
    assert_ok(dc_table_find_handler(table, "second", DC_FUNCTION(record_target), &one, &found));
    assert_int_equal(found, bound_one);
    assert_ok(dc_table_find_handler(table, "second::x", DC_FUNCTION(record_target), &one, &found));
    assert_int_equal(found, detailed);
    assert_fails(dc_table_find_handler(table, "first", DC_FUNCTION(record_target), &one, &found), DC_ERR_NOT_FOUND);
    assert_fails(dc_table_find_handler(table, NULL, DC_FUNCTION(record_2), NULL, &found), DC_ERR_NOT_FOUND);
    assert_fails(dc_table_find_handler(table, "unknown", DC_FUNCTION(record_1), NULL, &found), DC_ERR_NOT_FOUND);
    assert_fails(dc_table_find_handler(table, NULL, NULL, NULL, &found), DC_ERR_NULL_ARGUMENT);
    assert_ok(dc_table_remove(table, bound_one));
    assert_ok(dc_table_find_handler(table, NULL, DC_FUNCTION(record_target), &one, &found));
    assert_int_equal(found, detailed);
}

/* ---- the observer ---------------------------------------------------------------------- */

enum { NOTES = 64 };
typedef struct note {
    dc_table_change change;
    dc_event_id event;
    dc_handler_id handler;
} note;
static note notes[NOTES];
static size_t note_count;
static int observer_destroyed;

static void take_note(void *data, dc_table *observed, dc_table_change change, dc_event_id event,
                      dc_handler_id handler) {
    (void)data;
    assert_ptr_equal(observed, table);
    if (note_count < NOTES) notes[note_count] = (note){change, event, handler};
    note_count++;
}
static void count_observer_destroy(void *data) {
    (void)data;
    observer_destroyed++;
}

static void the_observer_is_told_of_every_add_and_removal_with_its_key(void **state) {
    (void)state;
    note_count = 0;
    observer_destroyed = 0;
    assert_ok(dc_table_set_observer(table, take_note, NULL, count_observer_destroy));
    dc_handler_id a = add_recorder("event", record_1);
    dc_handler_options once = handler_options(DC_HANDLER_ONCE, NULL);
    dc_handler_id b = add_recorder_with("event::detail", record_2, &once);
    dc_handler_id again = 0;
    assert_status(dc_table_add(table, "event", sig("v"), DC_FUNCTION(record_1), NULL, NULL, &again), DC_EXISTS);
    execute_ok("event::detail", NULL, 0); /* the once-handler goes */
    dc_handler_id c = add_recorder("other", record_3);
    size_t removed = 0;
    assert_ok(dc_table_remove_all(table, &removed));
    assert_int_equal(removed, 2);
    dc_event_id event = 0, detail = 0, other = 0;
    assert_ok(dc_table_intern(table, "event", &event));
    assert_ok(dc_table_intern(table, "event::detail", &detail));
    assert_ok(dc_table_intern(table, "other", &other));
    assert_int_equal(note_count, 6);
    const note expected[] = {{DC_HANDLER_ADDED, event, a},    {DC_HANDLER_ADDED, detail, b},
                             {DC_HANDLER_REMOVED, detail, b}, {DC_HANDLER_ADDED, other, c},
                             {DC_HANDLER_REMOVED, event, a},  {DC_HANDLER_REMOVED, other, c}};
    for (size_t i = 0; i < ARRAY_COUNT(expected); i++) {
        assert_int_equal(notes[i].change, expected[i].change);
        assert_int_equal(notes[i].event, expected[i].event);
        assert_int_equal(notes[i].handler, expected[i].handler);
    }
    /* Replaced: the old one's destroy notify runs, and it hears no more. */
    assert_ok(dc_table_set_observer(table, NULL, NULL, NULL));
    assert_int_equal(observer_destroyed, 1);
    add_recorder("event", record_4);
    assert_int_equal(note_count, 6);
    assert_fails(dc_table_set_observer(NULL, take_note, NULL, NULL), DC_ERR_NULL_ARGUMENT);
}

/* Node's newListener adding a listener of its own, and removeListener
 * removing another: the observer hears of those too, and nothing deadlocks. */
static dc_handler_id added_by_observer;
static bool echo_added, echo_removed;
static void echo_observer(void *data, dc_table *observed, dc_table_change change, dc_event_id event,
                          dc_handler_id handler) {
    (void)data;
    take_note(NULL, observed, change, event, handler);
    if (change == DC_HANDLER_ADDED && !echo_added) {
        echo_added = true;
        assert_ok(dc_table_add(observed, "echo", sig("v"), DC_FUNCTION(record_5), NULL, NULL, &added_by_observer));
    } else if (change == DC_HANDLER_REMOVED && !echo_removed) {
        echo_removed = true;
        assert_ok(dc_table_remove(observed, added_by_observer));
    }
}

static void an_observer_may_add_and_remove_handlers(void **state) {
    (void)state;
    note_count = 0;
    added_by_observer = 0;
    echo_added = echo_removed = false;
    assert_ok(dc_table_set_observer(table, echo_observer, NULL, NULL));
    dc_handler_id first = add_recorder("event", record_1);
    assert_int_equal(note_count, 2); /* first, then the echo it added */
    assert_int_equal(notes[1].handler, added_by_observer);
    assert_int_equal(notes[0].handler, first);
    execute_ok("echo", NULL, 0);
    assert_call_log(5);
    assert_ok(dc_table_remove(table, first));
    assert_int_equal(note_count, 4); /* first's removal, then the echo's */
    assert_int_equal(handler_count("echo"), 0);
}

static void the_table_destroy_runs_the_observer_destroy_notify_and_reports_nothing(void **state) {
    (void)state;
    note_count = 0;
    observer_destroyed = 0;
    add_recorder("event", record_1);
    assert_ok(dc_table_set_observer(table, take_note, NULL, count_observer_destroy));
    dc_table_destroy(table);
    table = NULL;
    assert_int_equal(observer_destroyed, 1);
    assert_int_equal(note_count, 0);
}

/* g_signal_connect's behaviour, asked for with a public flag: the same
 * (event, function, target) connected twice runs twice, each connection
 * has its id, and the target's removal takes both. */
static void allow_duplicate_connects_the_same_function_and_target_twice(void **state) {
    (void)state;
    static int target = 7;
    const dc_handler_options twice = handler_options(DC_HANDLER_ALLOW_DUPLICATE, NULL);
    dc_handler_id first = 0, second = 0, found = 0;
    assert_ok(dc_table_add(table, "tick", sig("v^v"), DC_FUNCTION(record_target), &target, NULL, &first));
    assert_status(dc_table_add(table, "tick", sig("v^v"), DC_FUNCTION(record_target), &target, NULL, &found),
                  DC_EXISTS);
    assert_int_equal(found, first);
    assert_ok(dc_table_add(table, "tick", sig("v^v"), DC_FUNCTION(record_target), &target, &twice, &second));
    assert_true(second != 0 && second != first);
    assert_int_equal(handler_count("tick"), 2);
    assert_int_equal(execute_ok("tick", NULL, 0).handled, 2);
    assert_call_log(7, 7);

    assert_ok(dc_table_remove(table, first));
    reset_call_log();
    assert_int_equal(execute_ok("tick", NULL, 0).handled, 1);
    assert_call_log(7);
    dc_handler_id third = 0;
    assert_ok(dc_table_add(table, "tick", sig("v^v"), DC_FUNCTION(record_target), &target, &twice, &third));
    size_t removed = 0;
    assert_ok(dc_table_remove_target(table, &target, &removed));
    assert_int_equal(removed, 2);
    assert_int_equal(handler_count("tick"), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        table_test(listeners_are_listed_in_call_order_with_what_they_were_added_with),
        table_test(a_handler_is_described_by_its_id_until_removed),
        table_test(handlers_are_found_by_function_and_target),
        table_test(allow_duplicate_connects_the_same_function_and_target_twice),
        table_test(the_observer_is_told_of_every_add_and_removal_with_its_key),
        table_test(an_observer_may_add_and_remove_handlers),
        table_test(the_table_destroy_runs_the_observer_destroy_notify_and_reports_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
