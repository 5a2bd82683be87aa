/*
 * test_emission_hooks.c — emission hooks (g_signal_add_emission_hook),
 * restating GLib's emission-hook tests: a hook sees each execute once,
 * before any handler, with the event, its detail and the arguments; one
 * that returns false is gone, its destroy notify run once; hooks on an event
 * see its details, hooks on a detailed key only that key, table-wide hooks
 * every execute; an execute that fails calls none.
 */
#include "table_support.h"

enum { SEEN_CAPACITY = 16 };

typedef struct seen {
    int tag;
    int calls;
    int keep_for; /* calls after which the hook returns false; 0: always stays */
    char key[64];
    char event[64];
    char detail[64];
    dc_event_id key_id;
    dc_event_id event_id;
    size_t count;
    int first_argument;
    size_t handlers_run_before; /* log length when called */
} seen;

static bool watch(const dc_emission *emission, void *data) {
    seen *hook = data;
    hook->calls++;
    log_call(hook->tag);
    snprintf(hook->key, sizeof hook->key, "%s", emission->key);
    snprintf(hook->event, sizeof hook->event, "%.*s", (int)emission->event_length, emission->key);
    snprintf(hook->detail, sizeof hook->detail, "%s", emission->detail != NULL ? emission->detail : "(none)");
    hook->key_id = emission->key_id;
    hook->event_id = emission->event;
    hook->count = emission->count;
    hook->first_argument = emission->count > 0 ? emission->arguments[0].i32 : -1;
    assert_ptr_equal(emission->table, table);
    return hook->keep_for == 0 || hook->calls < hook->keep_for;
}

static int hook_destroyed;
static void count_hook_destroy(void *data) {
    (void)data;
    hook_destroyed++;
}

static dc_hook_id add_hook(const char *event, seen *hook) {
    dc_hook_id id = 0;
    assert_ok(dc_table_add_emission_hook(table, event, watch, hook, count_hook_destroy, &id));
    assert_true(id != 0);
    return id;
}

static void record_int(int value) { log_call(value); }

static void a_hook_sees_each_execute_before_any_handler_with_event_detail_and_arguments(void **state) {
    (void)state;
    hook_destroyed = 0;
    seen hook = {.tag = 100};
    add_hook("notify", &hook);
    dc_handler_options first = handler_options(DC_HANDLER_RUN_FIRST, NULL);
    assert_ok(dc_table_add(table, "notify", sig("vi"), DC_FUNCTION(record_int), NULL, &first, NULL));
    dc_event_id notify = 0, size = 0;
    assert_ok(dc_table_intern(table, "notify", &notify));
    execute_ok("notify::size", VALUE(dc_int32(7)), 1);
    assert_call_log(100, 7);
    assert_int_equal(hook.calls, 1);
    assert_string_equal(hook.key, "notify::size");
    assert_string_equal(hook.event, "notify");
    assert_string_equal(hook.detail, "size");
    assert_int_equal(hook.key_id, 0); /* never interned */
    assert_int_equal(hook.event_id, notify);
    assert_int_equal(hook.count, 1);
    assert_int_equal(hook.first_argument, 7);

    assert_ok(dc_table_intern(table, "notify::size", &size));
    reset_call_log();
    assert_ok(dc_table_execute_id(table, size, VALUE(dc_int32(8)), 1, NULL));
    assert_call_log(100, 8);
    assert_int_equal(hook.key_id, size);
    assert_string_equal(hook.key, "notify::size");

    reset_call_log();
    execute_ok("notify", VALUE(dc_int32(9)), 1);
    assert_call_log(100, 9);
    assert_string_equal(hook.detail, "(none)");
    assert_int_equal(hook.key_id, notify);
}

static void hooks_on_a_detail_see_that_key_only_and_table_hooks_see_everything(void **state) {
    (void)state;
    seen on_size = {.tag = 101}, on_all = {.tag = 102}, on_other = {.tag = 103};
    add_hook("notify::size", &on_size);
    add_hook(NULL, &on_all);
    add_hook("other", &on_other);
    execute_ok("notify::size", NULL, 0);
    execute_ok("notify::title", NULL, 0);
    execute_ok("notify", NULL, 0);
    execute_ok("never-added", NULL, 0);
    assert_call_log(101, 102, 102, 102, 102);
    assert_string_equal(on_all.key, "never-added");
    assert_int_equal(on_all.event_id, 0);
    assert_int_equal(on_other.calls, 0);
}

static void a_hook_returning_false_is_removed_once_with_its_destroy_notify(void **state) {
    (void)state;
    hook_destroyed = 0;
    seen twice = {.tag = 104, .keep_for = 2}, always = {.tag = 105};
    add_hook("clicked", &twice);
    add_hook("clicked", &always);
    add_recorder("clicked", record_1);
    for (int i = 0; i < 4; i++) execute_ok("clicked", NULL, 0);
    assert_call_log(104, 105, 1, 104, 105, 1, 105, 1, 105, 1);
    assert_int_equal(twice.calls, 2);
    assert_int_equal(hook_destroyed, 1);
}

static void removing_a_hook_stops_its_calls_and_an_unknown_id_is_not_found(void **state) {
    (void)state;
    hook_destroyed = 0;
    seen hook = {.tag = 106};
    dc_hook_id id = add_hook(NULL, &hook);
    execute_ok("clicked", NULL, 0);
    assert_ok(dc_table_remove_emission_hook(table, id));
    assert_int_equal(hook_destroyed, 1);
    execute_ok("clicked", NULL, 0);
    assert_int_equal(hook.calls, 1);
    assert_fails(dc_table_remove_emission_hook(table, id), DC_ERR_NOT_FOUND);
    assert_fails(dc_table_remove_emission_hook(table, 0), DC_ERR_NOT_FOUND);
    assert_fails(dc_table_remove_emission_hook(NULL, id), DC_ERR_NULL_ARGUMENT);
    assert_fails(dc_table_add_emission_hook(table, "x", NULL, NULL, NULL, NULL), DC_ERR_NULL_ARGUMENT);
    assert_fails(dc_table_add_emission_hook(NULL, "x", watch, NULL, NULL, NULL), DC_ERR_NULL_ARGUMENT);
    assert_int_equal(hook_destroyed, 1);
}

static void an_execute_that_fails_calls_no_hook(void **state) {
    (void)state;
    seen hook = {.tag = 107};
    add_hook("typed", &hook);
    assert_ok(dc_table_add(table, "typed", sig("vi"), DC_FUNCTION(record_int), NULL, NULL, NULL));
    assert_fails(dc_table_execute(table, "typed", VALUE(dc_string("no")), 1, NULL), DC_ERR_TYPE);
    assert_int_equal(hook.calls, 0);
    assert_nothing_called();
}

static void the_table_destroy_runs_each_hook_destroy_notify_once(void **state) {
    (void)state;
    hook_destroyed = 0;
    seen a = {.tag = 108}, b = {.tag = 109, .keep_for = 1};
    add_hook(NULL, &a);
    add_hook("x", &b);
    execute_ok("x", NULL, 0);
    assert_int_equal(hook_destroyed, 1);
    dc_table_destroy(table);
    table = NULL;
    assert_int_equal(hook_destroyed, 2);
}

/* A hook that adds a handler, removes another hook and stops nothing: the
 * added handler runs from the next execute on. */
static seen *victim_hook;
static dc_hook_id victim_id;
static bool busy_hook(const dc_emission *emission, void *data) {
    (void)emission, (void)data;
    log_call(110);
    dc_table_add(table, "busy", sig("v"), DC_FUNCTION(record_2), NULL, NULL, NULL);
    if (victim_id != 0) {
        assert_ok(dc_table_remove_emission_hook(table, victim_id));
        victim_id = 0;
    }
    return true;
}

static void hooks_may_use_the_table_as_handlers_do(void **state) {
    (void)state;
    hook_destroyed = 0;
    seen victim = {.tag = 111};
    victim_hook = &victim;
    assert_ok(dc_table_add_emission_hook(table, "busy", busy_hook, NULL, NULL, NULL));
    victim_id = add_hook("busy", &victim);
    add_recorder("busy", record_1);
    execute_ok("busy", NULL, 0);
    assert_call_log(110, 1); /* the victim was removed before its turn */
    assert_int_equal(victim.calls, 0);
    assert_int_equal(hook_destroyed, 1);
    reset_call_log();
    execute_ok("busy", NULL, 0);
    assert_call_log(110, 1, 2);
}

/* A hook on a lean event (handlers of one plain shape): the lean execute
 * leaves the event to the one that calls hooks, and takes it back after. */
static void hooks_are_called_for_events_the_lean_execute_would_run(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "lean", sig("vi"), DC_FUNCTION(record_int), NULL, NULL, NULL));
    execute_ok("lean", VALUE(dc_int32(1)), 1);
    seen hook = {.tag = 112};
    dc_hook_id id = add_hook("lean", &hook);
    execute_ok("lean", VALUE(dc_int32(2)), 1);
    assert_ok(dc_table_remove_emission_hook(table, id));
    execute_ok("lean", VALUE(dc_int32(3)), 1);
    seen everywhere = {.tag = 113};
    id = add_hook(NULL, &everywhere);
    execute_ok("lean", VALUE(dc_int32(4)), 1);
    assert_ok(dc_table_remove_emission_hook(table, id));
    execute_ok("lean", VALUE(dc_int32(5)), 1);
    assert_call_log(1, 112, 2, 3, 113, 4, 5);
}

static bool stopping_hook(const dc_emission *emission, void *data) {
    (void)emission, (void)data;
    assert_ok(dc_table_stop_emission(table));
    return true;
}

static void a_hook_that_stops_the_emission_stops_every_handler(void **state) {
    (void)state;
    assert_ok(dc_table_add_emission_hook(table, "clicked", stopping_hook, NULL, NULL, NULL));
    add_recorder("clicked", record_1);
    dc_result result = execute_ok("clicked", NULL, 0);
    assert_nothing_called();
    assert_true(result.stopped);
    assert_int_equal(result.handled, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        table_test(a_hook_sees_each_execute_before_any_handler_with_event_detail_and_arguments),
        table_test(hooks_on_a_detail_see_that_key_only_and_table_hooks_see_everything),
        table_test(a_hook_returning_false_is_removed_once_with_its_destroy_notify),
        table_test(removing_a_hook_stops_its_calls_and_an_unknown_id_is_not_found),
        table_test(an_execute_that_fails_calls_no_hook),
        table_test(the_table_destroy_runs_each_hook_destroy_notify_once),
        table_test(hooks_may_use_the_table_as_handlers_do),
        table_test(hooks_are_called_for_events_the_lean_execute_would_run),
        table_test(a_hook_that_stops_the_emission_stops_every_handler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
