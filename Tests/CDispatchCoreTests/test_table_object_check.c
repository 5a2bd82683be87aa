/*
 * test_table_object_check.c — DC__HANDLER_CHECK_OBJECTS and the table's object
 * check (dc__table_set_object_check), as the Swift layer uses them for the
 * payload types of its typed handlers: a public execute of an event whose
 * handlers take checked objects has the check answer for each object argument
 * before any handler runs, and fails with its message on the first it
 * refuses, whatever handlers come before; a binding's execute is not asked
 * (the binding checks its values itself). Here the "types" are two tags an
 * object starts with.
 */
#include "table_support.h"

#include <stdatomic.h>
#include <stdio.h>
#include "dispatch_core_binding.h"
#include "thread_support.h"
#include "watchdog.h"

typedef struct tagged {
    int tag;
} tagged;

enum { ACCEPTED_TAG = 1, REFUSED_TAG = 2 };

static atomic_int checks_asked;

/* Accepts objects tagged ACCEPTED_TAG at any index. */
static bool check_tag(void *context, const char *event, size_t index, void *object, char *message, size_t size) {
    assert_ptr_equal(context, &checks_asked);
    atomic_fetch_add(&checks_asked, 1);
    const tagged *t = object;
    if (t->tag == ACCEPTED_TAG) return true;
    snprintf(message, size, "event \"%s\": argument %zu: its handlers take tag %d, got tag %d", event, index,
             ACCEPTED_TAG, t->tag);
    return false;
}

static void record_object_handler(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)count, (void)result;
    const tagged *t = arguments[0].object;
    log_call(t != NULL ? t->tag * 10 + 2 : 2);
}

static const dc_handler_options checked = {DC__HANDLER_CHECK_OBJECTS, NULL, NULL, NULL};

static int setup_with_check(void **state) {
    int status = table_setup(state);
    atomic_store(&checks_asked, 0);
    if (table != NULL) dc__table_set_object_check(table, check_tag, &checks_asked);
    return status;
}

#define checked_table_test(test) cmocka_unit_test_setup_teardown(test, setup_with_check, table_teardown)

/* A plain C handler first, then a checked one: what a C execute of a Swift
 * payload event meets. */
static void add_plain_then_checked(const char *event) {
    assert_ok(dc_table_add(table, event, sig("v@"), DC_FUNCTION(record_1), NULL, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, event, sig("v@"), record_object_handler, NULL, &checked, NULL));
}

static void a_refused_object_fails_a_public_execute_before_any_handler_runs(void **state) {
    (void)state;
    add_plain_then_checked("order");
    tagged refused = {REFUSED_TAG};
    dc_value argument = dc_object(&refused);
    dc_result result;
    assert_failure(dc_table_execute(table, "order", &argument, 1, &result), DC_ERR_TYPE, "test table",
                   "event \"order\": argument 0", "got tag 2");
    assert_call_log(); /* neither handler ran */
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "order", &id));
    assert_failure(dc_table_execute_id(table, id, &argument, 1, &result), DC_ERR_TYPE, "got tag 2");
    assert_call_log();
    /* A detailed key's execute is asked too. */
    assert_failure(dc_table_execute(table, "order::paid", &argument, 1, &result), DC_ERR_TYPE, "got tag 2");
    assert_call_log();
}

static void an_accepted_object_runs_every_handler(void **state) {
    (void)state;
    add_plain_then_checked("order");
    tagged accepted = {ACCEPTED_TAG};
    dc_value argument = dc_object(&accepted);
    dc_result result = execute_ok("order", &argument, 1);
    assert_int_equal(result.handled, 2);
    assert_call_log(1, 12);
    assert_int_equal(checks_asked, 1);
    /* A nil object is no object of the wrong type. */
    argument = dc_object(NULL);
    assert_ok(dc_table_execute(table, "order", &argument, 1, &result));
    assert_int_equal(checks_asked, 1);
}

static void a_binding_execute_is_not_asked(void **state) {
    (void)state;
    add_plain_then_checked("order");
    tagged refused = {REFUSED_TAG};
    dc_value argument = dc_object(&refused);
    dc_result result;
    assert_ok(dc__table_execute(table, "order", 0, &argument, 1, NULL, NULL, &result));
    dc__brief_result brief = dc__table_execute_brief(table, "order", 0, &argument, 1, NULL, &result);
    assert_int_equal(brief.status, DC_OK);
    assert_int_equal(checks_asked, 0);
    assert_call_log(1, 22, 1, 22);
}

static void events_without_checked_handlers_are_not_asked(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "plain", sig("v@"), DC_FUNCTION(record_1), NULL, NULL, NULL));
    tagged refused = {REFUSED_TAG};
    dc_value argument = dc_object(&refused);
    execute_ok("plain", &argument, 1);
    assert_int_equal(checks_asked, 0);
    /* Once the checked handler goes, its event is not asked either. */
    dc_handler_id id = 0;
    assert_ok(dc_table_add_marshal(table, "plain", sig("v@"), record_object_handler, NULL, &checked, &id));
    dc_result result;
    assert_failure(dc_table_execute(table, "plain", &argument, 1, &result), DC_ERR_TYPE, "got tag 2");
    assert_ok(dc_table_remove(table, id));
    execute_ok("plain", &argument, 1);
    assert_int_equal(checks_asked, 1);
}

static void a_table_without_a_check_refuses_checked_handlers_and_interns_nothing(void **state) {
    (void)state;
    dc_handler_id id = 77;
    assert_failure(dc_table_add_marshal(table, "order", sig("v@"), record_object_handler, NULL, &checked, &id),
                   DC_ERR_INVALID_ARGUMENT, "object check");
    const char *name = NULL;
    assert_int_equal(dc_table_event_name(table, 1, &name), DC_ERR_NOT_FOUND);
}

/* ---- under threads ------------------------------------------------------------------- */

/* A checked handler that counts the refused objects it is called with: none
 * may reach it. */
static atomic_int refused_seen;
static void refuse_to_see_refused(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)count, (void)result;
    const tagged *t = arguments[0].object;
    if (t != NULL && t->tag != ACCEPTED_TAG) atomic_fetch_add(&refused_seen, 1);
}

static void count_plain_call(void *object) { (void)object; }

typedef struct racer {
    pthread_t thread;
    dc_table *table;
    int tag;        /* the object the executor passes; 0 for the thread adding and removing */
    uint64_t deadline;
    int unexpected; /* statuses other than DC_OK and DC_ERR_TYPE (refused objects only) */
} racer;

static void *run_racer(void *argument) {
    racer *r = argument;
    tagged object = {r->tag};
    dc_value value = dc_object(&object);
    dc_signature *signature = NULL;
    if (dc_signature_create("v@", &signature) != DC_OK) return NULL;
    while (now_ns() < r->deadline) {
        if (r->tag != 0) {
            dc_result result;
            dc_status status = dc_table_execute(r->table, "order", &value, 1, &result);
            if (status != DC_OK && !(status == DC_ERR_TYPE && r->tag != ACCEPTED_TAG)) r->unexpected++;
            continue;
        }
        dc_handler_id checked_id = 0, plain_id = 0;
        if (dc_table_add_marshal(r->table, "order", signature, refuse_to_see_refused, NULL, &checked, &checked_id) !=
                DC_OK ||
            dc_table_add(r->table, "order", signature, DC_FUNCTION(count_plain_call), NULL, NULL, &plain_id) != DC_OK)
            r->unexpected++;
        if (dc_table_remove(r->table, checked_id) != DC_OK || dc_table_remove(r->table, plain_id) != DC_OK)
            r->unexpected++;
    }
    dc_signature_release(signature);
    return NULL;
}

/* Two threads execute with a refused object and one with an accepted one
 * while a fourth adds and removes a checked handler and a plain one: each
 * execute's snapshot is asked about or not as a whole, so the checked
 * handler never sees a refused object, and nothing else fails. */
static void checked_handlers_come_and_go_while_three_threads_execute(void **state) {
    (void)state;
    dc_table *racing = NULL;
    assert_ok(dc_table_create("racing", NULL, &racing));
    dc__table_set_object_check(racing, check_tag, &checks_asked);
    atomic_store(&refused_seen, 0);
    uint64_t deadline = deadline_after_ms(300);
    racer racers[4] = {{.table = racing, .tag = REFUSED_TAG, .deadline = deadline},
                       {.table = racing, .tag = REFUSED_TAG, .deadline = deadline},
                       {.table = racing, .tag = ACCEPTED_TAG, .deadline = deadline},
                       {.table = racing, .tag = 0, .deadline = deadline}};
    for (size_t i = 0; i < ARRAY_COUNT(racers); i++)
        assert_int_equal(pthread_create(&racers[i].thread, NULL, run_racer, &racers[i]), 0);
    for (size_t i = 0; i < ARRAY_COUNT(racers); i++) {
        assert_int_equal(pthread_join(racers[i].thread, NULL), 0);
        assert_int_equal(racers[i].unexpected, 0);
    }
    assert_int_equal(atomic_load(&refused_seen), 0);
    dc_table_destroy(racing);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        checked_table_test(a_refused_object_fails_a_public_execute_before_any_handler_runs),
        checked_table_test(an_accepted_object_runs_every_handler),
        checked_table_test(a_binding_execute_is_not_asked),
        checked_table_test(events_without_checked_handlers_are_not_asked),
        table_test(a_table_without_a_check_refuses_checked_handlers_and_interns_nothing),
        watched_test(checked_handlers_come_and_go_while_three_threads_execute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
