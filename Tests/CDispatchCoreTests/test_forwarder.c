/*
 * test_forwarder.c — a C interface fanned out to many delegates: the
 * ILABMultiDelegate and AIMultiDelegate rules (order, first return value,
 * unimplemented slots skipped, duplicates ignored, removal during a call, no
 * delegate gives zero), glibc's fopencookie teed into two sinks, bad input,
 * and removal racing calls on three threads.
 */
#include "test_support.h"
#include "thread_support.h"

#include <pthread.h>
#include <stdlib.h>

/* ---- an interface of three slots --------------------------------------------- */

typedef struct listener_interface {
    int32_t (*ping)(void *context, int32_t value);
    void (*note)(void *context, const char *text);
    double (*measure)(void *context);
} listener_interface;

static const char *const listener_slots[] = {"i^vi", "v^v*", "d^v"};

typedef struct listener {
    const char *name;
    int32_t answer;
    char log[256];
    dc_forwarder *forwarder;        /* for the delegate that removes another */
    const listener_interface *to_remove_vtable;
    void *to_remove_context;
} listener;

static char shared_log[512];

static void log_call(listener *self, const char *what) {
    strcat(self->log, what);
    strcat(shared_log, self->name);
    strcat(shared_log, ":");
    strcat(shared_log, what);
    strcat(shared_log, " ");
}

static int32_t listener_ping(void *context, int32_t value) {
    listener *self = context;
    log_call(self, "ping");
    return self->answer + value;
}

static void listener_note(void *context, const char *text) {
    listener *self = context;
    log_call(self, text);
    if (self->to_remove_vtable != NULL)
        assert_ok(dc_forwarder_remove(self->forwarder, self->to_remove_vtable, self->to_remove_context));
}

static double listener_measure(void *context) {
    listener *self = context;
    log_call(self, "measure");
    return 1.5;
}

static const listener_interface full_listener = {listener_ping, listener_note, listener_measure};
static const listener_interface noting_listener = {NULL, listener_note, NULL};

static dc_forwarder *listener_forwarder(void) {
    dc_forwarder *forwarder = NULL;
    assert_ok(dc_forwarder_create(listener_slots, ARRAY_COUNT(listener_slots), &forwarder));
    return forwarder;
}

static const listener_interface *interface_of(const dc_forwarder *forwarder) {
    return dc_forwarder_vtable(forwarder);
}

static void every_delegate_is_called_in_add_order_and_the_first_return_wins(void **state) {
    (void)state;
    dc_forwarder *forwarder = listener_forwarder();
    const listener_interface *calls = interface_of(forwarder);
    void *context = dc_forwarder_context(forwarder);
    listener a = {.name = "a", .answer = 100};
    listener b = {.name = "b", .answer = 200};
    listener c = {.name = "c", .answer = 300};
    assert_ok(dc_forwarder_add(forwarder, &full_listener, &a));
    assert_ok(dc_forwarder_add(forwarder, &noting_listener, &b));
    assert_ok(dc_forwarder_add(forwarder, &full_listener, &c));
    assert_int_equal(dc_forwarder_count(forwarder), 3);

    shared_log[0] = '\0';
    assert_int_equal(calls->ping(context, 5), 105); /* a's, the first that implements it */
    calls->note(context, "hello");
    assert_true(calls->measure(context) == 1.5);
    assert_string_equal(shared_log, "a:ping c:ping a:hello b:hello c:hello a:measure c:measure ");
    assert_string_equal(b.log, "hello"); /* b implements note only */

    dc_forwarder_destroy(forwarder);
}

static void a_slot_no_delegate_implements_returns_zero(void **state) {
    (void)state;
    dc_forwarder *forwarder = listener_forwarder();
    const listener_interface *calls = interface_of(forwarder);
    void *context = dc_forwarder_context(forwarder);
    assert_int_equal(calls->ping(context, 5), 0);
    assert_true(calls->measure(context) == 0.0);
    listener b = {.name = "b"};
    assert_ok(dc_forwarder_add(forwarder, &noting_listener, &b));
    assert_int_equal(calls->ping(context, 5), 0);
    dc_forwarder_destroy(forwarder);
}

static void adding_a_delegate_twice_keeps_one_and_removing_takes_it_out(void **state) {
    (void)state;
    dc_forwarder *forwarder = listener_forwarder();
    const listener_interface *calls = interface_of(forwarder);
    void *context = dc_forwarder_context(forwarder);
    listener a = {.name = "a", .answer = 1};
    listener b = {.name = "b", .answer = 2};
    assert_ok(dc_forwarder_add(forwarder, &full_listener, &a));
    assert_ok(dc_forwarder_add(forwarder, &full_listener, &b));
    assert_failure(dc_forwarder_add(forwarder, &full_listener, &a), DC_EXISTS, "already");
    assert_int_equal(dc_forwarder_count(forwarder), 2);
    /* The same vtable with another context is another delegate. */
    shared_log[0] = '\0';
    calls->note(context, "x");
    assert_string_equal(shared_log, "a:x b:x ");

    assert_ok(dc_forwarder_remove(forwarder, &full_listener, &a));
    assert_failure(dc_forwarder_remove(forwarder, &full_listener, &a), DC_ERR_NOT_FOUND, "no delegate");
    assert_int_equal(calls->ping(context, 0), 2); /* now b is the first */
    /* Added again, it goes last. */
    assert_ok(dc_forwarder_add(forwarder, &full_listener, &a));
    shared_log[0] = '\0';
    calls->note(context, "y");
    assert_string_equal(shared_log, "b:y a:y ");
    dc_forwarder_destroy(forwarder);
}

/* A stateless implementation: it keeps what it was called with. */
static void *stateless_context_seen = (void *)1;
static int32_t stateless_value_seen;

static int32_t stateless_ping(void *context, int32_t value) {
    stateless_context_seen = context;
    stateless_value_seen = value;
    return value + 100;
}

static void a_delegate_with_a_null_context_gets_null_first_and_its_arguments_after(void **state) {
    (void)state;
    dc_forwarder *forwarder = listener_forwarder();
    const listener_interface *calls = interface_of(forwarder);
    void *context = dc_forwarder_context(forwarder);
    const listener_interface stateless = {stateless_ping, NULL, NULL};
    listener a = {.name = "a", .answer = 7};
    assert_ok(dc_forwarder_add(forwarder, &stateless, NULL));
    assert_ok(dc_forwarder_add(forwarder, &full_listener, &a));
    shared_log[0] = '\0';
    assert_int_equal(calls->ping(context, 41), 141); /* the NULL-context delegate is the first */
    assert_null(stateless_context_seen);
    assert_int_equal(stateless_value_seen, 41);
    assert_string_equal(shared_log, "a:ping ");
    assert_failure(dc_forwarder_add(forwarder, &stateless, NULL), DC_EXISTS, "already");
    assert_ok(dc_forwarder_remove(forwarder, &stateless, NULL));
    assert_int_equal(calls->ping(context, 1), 8);
    dc_forwarder_destroy(forwarder);
}

static void a_delegate_removed_during_a_call_is_not_called_later_in_it(void **state) {
    (void)state;
    dc_forwarder *forwarder = listener_forwarder();
    const listener_interface *calls = interface_of(forwarder);
    void *context = dc_forwarder_context(forwarder);
    listener b = {.name = "b"};
    listener a = {.name = "a", .forwarder = forwarder, .to_remove_vtable = &full_listener, .to_remove_context = &b};
    assert_ok(dc_forwarder_add(forwarder, &noting_listener, &a));
    assert_ok(dc_forwarder_add(forwarder, &full_listener, &b));

    shared_log[0] = '\0';
    calls->note(context, "go");
    assert_string_equal(shared_log, "a:go ");
    assert_int_equal(dc_forwarder_count(forwarder), 1);
    dc_forwarder_destroy(forwarder);
}

/* ---- fopencookie teed into two sinks ----------------------------------------------- */

typedef struct sink {
    char bytes[4096];
    size_t length;
    int writes;
    int closes;
} sink;

static ssize_t sink_write(void *cookie, const char *buffer, size_t size) {
    sink *self = cookie;
    memcpy(self->bytes + self->length, buffer, size);
    self->length += size;
    self->writes++;
    return (ssize_t)size;
}

static int sink_close(void *cookie) {
    sink *self = cookie;
    self->closes++;
    return 0;
}

static void one_file_teed_into_two_sinks_through_fopencookie(void **state) {
    (void)state;
    static const char *const cookie_slots[] = {
        sizeof(size_t) == 8 ? "q^v^vQ" : "i^v^vI", /* read */
        sizeof(size_t) == 8 ? "q^v^vQ" : "i^v^vI", /* write */
        "i^v^qi",                                  /* seek */
        "i^v",                                     /* close */
    };
    dc_forwarder *forwarder = NULL;
    assert_ok(dc_forwarder_create(cookie_slots, ARRAY_COUNT(cookie_slots), &forwarder));
    const cookie_io_functions_t writer = {.write = sink_write, .close = sink_close};
    sink first = {.length = 0}, second = {.length = 0};
    assert_ok(dc_forwarder_add(forwarder, &writer, &first));
    assert_ok(dc_forwarder_add(forwarder, &writer, &second));

    cookie_io_functions_t io;
    memcpy(&io, dc_forwarder_vtable(forwarder), sizeof io);
    FILE *file = fopencookie(dc_forwarder_context(forwarder), "w", io);
    assert_non_null(file);
    size_t expected = 0;
    for (int line = 0; line < 100; line++) expected += (size_t)fprintf(file, "line %d of the tee\n", line);
    assert_int_equal(fflush(file), 0);
    assert_int_equal(fclose(file), 0);

    assert_int_equal(first.length, expected);
    assert_int_equal(second.length, expected);
    assert_memory_equal(first.bytes, second.bytes, expected);
    assert_true(strncmp(first.bytes, "line 0 of the tee\nline 1 of", 27) == 0);
    assert_int_equal(first.writes, second.writes);
    assert_int_equal(first.closes, 1);
    assert_int_equal(second.closes, 1);
    dc_forwarder_destroy(forwarder);
}

/* ---- bad input ------------------------------------------------------------------------ */

static void bad_interfaces_are_refused_naming_the_slot(void **state) {
    (void)state;
    dc_forwarder *forwarder = (dc_forwarder *)&forwarder; /* must stay as it is */
    assert_failure(dc_forwarder_create(NULL, 1, &forwarder), DC_ERR_NULL_ARGUMENT, "slot_encodings");
    assert_failure(dc_forwarder_create(listener_slots, 3, NULL), DC_ERR_NULL_ARGUMENT, "out");
    assert_failure(dc_forwarder_create(listener_slots, 0, &forwarder), DC_ERR_INVALID_ARGUMENT, "slot");
    const char *const no_context[] = {"i^vi", "v"};
    assert_failure(dc_forwarder_create(no_context, 2, &forwarder), DC_ERR_BAD_SIGNATURE, "slot 1", "context");
    const char *const integer_context[] = {"vi"};
    assert_failure(dc_forwarder_create(integer_context, 1, &forwarder), DC_ERR_BAD_SIGNATURE, "slot 0");
    const char *const malformed[] = {"i^vi", "v^v", "v^vZ"};
    assert_failure(dc_forwarder_create(malformed, 3, &forwarder), DC_ERR_BAD_SIGNATURE, "slot 2");
    const char *const missing[] = {"i^vi", NULL};
    assert_failure(dc_forwarder_create(missing, 2, &forwarder), DC_ERR_NULL_ARGUMENT, "slot 1");
    assert_ptr_equal(forwarder, (dc_forwarder *)&forwarder);

    forwarder = listener_forwarder();
    assert_failure(dc_forwarder_add(forwarder, NULL, NULL), DC_ERR_NULL_ARGUMENT, "vtable");
    assert_failure(dc_forwarder_add(NULL, &full_listener, NULL), DC_ERR_NULL_ARGUMENT, "forwarder");
    assert_failure(dc_forwarder_remove(forwarder, NULL, NULL), DC_ERR_NULL_ARGUMENT, "vtable");
    assert_int_equal(dc_forwarder_count(NULL), 0);
    assert_null(dc_forwarder_vtable(NULL));
    dc_forwarder_set_error_handler(NULL, NULL, NULL);
    dc_forwarder_destroy(NULL);
    dc_forwarder_destroy(forwarder);
}

/* ---- removal racing calls on three threads -------------------------------------------------- */

/* At most RACE_ROUNDS adds and removes, for at most RACE_SECONDS once
 * RACE_MINIMUM_ROUNDS are done: under valgrind, which runs one thread at a
 * time, each remove waits out the calls in flight and rounds are slow. */
enum { RACE_ROUNDS = 2000, RACE_MINIMUM_ROUNDS = 200, RACE_SECONDS = 10 };

typedef struct racer {
    atomic_bool removed;  /* set once dc_forwarder_remove() has returned */
    atomic_long late_calls;
    atomic_long calls;
} racer;

static int32_t racer_ping(void *context, int32_t value) {
    racer *self = context;
    atomic_fetch_add(&self->calls, 1);
    if (atomic_load(&self->removed)) atomic_fetch_add(&self->late_calls, 1);
    return value;
}

static const listener_interface racing_listener = {racer_ping, NULL, NULL};

typedef struct race {
    dc_forwarder *forwarder;
    racer racer;
    atomic_bool stop;
    atomic_int finished;
    long mismatches;
} race;

static void *call_until_stopped(void *context) {
    race *r = context;
    const listener_interface *calls = interface_of(r->forwarder);
    void *forwarder_context = dc_forwarder_context(r->forwarder);
    while (!atomic_load(&r->stop)) {
        int32_t result = calls->ping(forwarder_context, 7);
        if (result != 7 && result != 0) r->mismatches++;
    }
    atomic_fetch_add(&r->finished, 1);
    return NULL;
}

static void *add_and_remove(void *context) {
    race *r = context;
    uint64_t until = deadline_after_ms(RACE_SECONDS * 1000);
    for (int round = 0; round < RACE_ROUNDS && (round < RACE_MINIMUM_ROUNDS || now_ns() < until); round++) {
        atomic_store(&r->racer.removed, false);
        assert_ok(dc_forwarder_add(r->forwarder, &racing_listener, &r->racer));
        sched_yield();
        assert_ok(dc_forwarder_remove(r->forwarder, &racing_listener, &r->racer));
        atomic_store(&r->racer.removed, true);
    }
    atomic_store(&r->stop, true);
    atomic_fetch_add(&r->finished, 1);
    return NULL;
}

static void a_removed_delegate_is_never_called_once_remove_returns(void **state) {
    (void)state;
    race *r = calloc(1, sizeof *r);
    r->forwarder = listener_forwarder();
    pthread_t threads[3];
    assert_int_equal(pthread_create(&threads[0], NULL, call_until_stopped, r), 0);
    assert_int_equal(pthread_create(&threads[1], NULL, call_until_stopped, r), 0);
    assert_int_equal(pthread_create(&threads[2], NULL, add_and_remove, r), 0);
    uint64_t deadline = deadline_after_ms(60000);
    while (atomic_load(&r->finished) < 3 && now_ns() < deadline) sched_yield();
    if (atomic_load(&r->finished) < 3) fail_msg("the race has not finished in 60 s");
    for (int t = 0; t < 3; t++) pthread_join(threads[t], NULL);

    assert_int_equal(atomic_load(&r->racer.late_calls), 0);
    assert_int_equal(r->mismatches, 0);
    assert_true(atomic_load(&r->racer.calls) > 0);
    assert_int_equal(dc_forwarder_count(r->forwarder), 0);
    dc_forwarder_destroy(r->forwarder);
    free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_delegate_is_called_in_add_order_and_the_first_return_wins),
        cmocka_unit_test(a_slot_no_delegate_implements_returns_zero),
        cmocka_unit_test(adding_a_delegate_twice_keeps_one_and_removing_takes_it_out),
        cmocka_unit_test(a_delegate_with_a_null_context_gets_null_first_and_its_arguments_after),
        cmocka_unit_test(a_delegate_removed_during_a_call_is_not_called_later_in_it),
        cmocka_unit_test(one_file_teed_into_two_sinks_through_fopencookie),
        cmocka_unit_test(bad_interfaces_are_refused_naming_the_slot),
        cmocka_unit_test(a_removed_delegate_is_never_called_once_remove_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
