/*
 * test_hook_threads.c — emission hooks, the table observer, detailed keys
 * and phases used from several threads at once.
 *
 * Each test races one promise dispatch_table.h makes about threads, lifetime
 * or re-entrancy for these features: a hook or observer whose removal (or
 * replacement) has returned is never called again and its destroy notify
 * runs once, with no call of it running on another thread; a hook that asks
 * to go is removed once however many threads ask; an execute that starts
 * after a hook was added calls it; an observer is told of every change
 * exactly once and may change the table itself; detailed executes call only
 * their handlers, phase by phase; hooks on two threads removing each other
 * do not wait for each other forever; and a table destroyed from inside a
 * hook outlives the executes still running in it.
 *
 * As in test_table_threads.c: cmocka's assertions belong to the main thread,
 * so other threads note what went wrong (note_failure()) and the main thread
 * asserts once they are joined. Waits have deadlines, so a deadlock is a
 * failed assertion rather than a hung test; an alarm ends the process if
 * something hangs anyway.
 */
#include "test_support.h"
#include "thread_support.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

enum {
    STRESS_MILLISECONDS = 250,
    /* Each stress thread keeps going past the stop flag until it has done this
     * many rounds: under valgrind, which runs one thread at a time, a thread
     * may otherwise not be scheduled at all before the flag is set. */
    STRESS_MINIMUM_ROUNDS = 200,
    HOOK_REMOVAL_ROUNDS = 120,
    HOOK_CALLS_PER_ROUND = 3,
    FALSE_HOOK_ROUNDS = 150,
    FALSE_HOOK_RACERS = 3,
    FALSE_HOOK_EXECUTES = 3,
    HOOK_ADDING_ROUNDS = 120,
    EXECUTES_PER_ADDED_HOOK = 4,
    OBSERVER_COUNT = 1500,
    OBSERVER_MUTATORS = 2,
    OBSERVER_SLOTS = 4,
    COMPANION_WORKERS = 2,
    PHASE_SLOT_COUNT = 10,
    LISTING_CAPACITY = 16,
    CROSSING_ROUNDS = 120,
    DOOM_ROUNDS = 90,
    WAIT_MILLISECONDS = 2000,
    WATCHDOG_SECONDS = 60
};

/* Stays in a call for a while (until `until` goes up), so that removals
 * and replacements often meet a running call. */
static void linger(atomic_bool *until, int spins) {
    for (int i = 0; i < spins && !atomic_load_explicit(until, memory_order_relaxed); i++) {
        atomic_signal_fence(memory_order_seq_cst);
    }
}

/* ---- failures noted on any thread, asserted on the main one ----------------------- */

static struct {
    atomic_ulong count;
    atomic_flag written;
    char first[400];
} failures;

static void reset_failures(void) {
    atomic_store(&failures.count, 0);
    atomic_flag_clear(&failures.written);
    failures.first[0] = '\0';
}

__attribute__((format(printf, 1, 2))) static void note_failure(const char *format, ...) {
    atomic_fetch_add(&failures.count, 1);
    if (atomic_flag_test_and_set(&failures.written)) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(failures.first, sizeof failures.first, format, arguments);
    va_end(arguments);
}

#define CHECK(condition, ...)                                                                      \
    do {                                                                                           \
        if (!(condition)) note_failure(__VA_ARGS__);                                               \
    } while (0)

/* Only once every thread that may note one is joined. */
static void assert_no_failures(void) {
    unsigned long count = atomic_load(&failures.count);
    if (count != 0) fail_msg("%lu checks failed; the first: %s", count, failures.first);
}

/* ---- executing threads ----------------------------------------------------------------- */

/* A thread executing one or two keys in turn, passing itself as the one
 * argument; the handlers it runs count into calls_seen, which only this
 * thread touches (no handler here has a queue). */
typedef struct executor {
    pthread_t thread;
    dc_table *table;
    const char *keys[2]; /* keys[1] may be NULL */
    atomic_bool *stop;
    size_t calls_seen;
    uint64_t executes;
    uint64_t handled_total;
    uint64_t handled_mismatches;
    uint64_t failed_executes;
    dc_status first_failure;
} executor;

static void *run_executor(void *context) {
    executor *e = context;
    const dc_value arguments[] = {dc_pointer(e)};
    for (unsigned turn = 0; !atomic_load_explicit(e->stop, memory_order_relaxed) ||
                            e->executes + e->failed_executes < STRESS_MINIMUM_ROUNDS;
         turn++) {
        const char *key = e->keys[1] != NULL && turn % 2 == 1 ? e->keys[1] : e->keys[0];
        size_t before = e->calls_seen;
        dc_result result;
        dc_status status = dc_table_execute(e->table, key, arguments, 1, &result);
        if (status != DC_OK) {
            if (e->failed_executes++ == 0) e->first_failure = status;
            continue;
        }
        e->executes++;
        e->handled_total += result.handled;
        if (result.handled != e->calls_seen - before) e->handled_mismatches++;
    }
    return NULL;
}

static void start_executor(executor *e, dc_table *table, const char *key, const char *other_key,
                           atomic_bool *stop) {
    *e = (executor){.table = table, .keys = {key, other_key}, .stop = stop};
    assert_int_equal(pthread_create(&e->thread, NULL, run_executor, e), 0);
}

/* Joins the executor and asserts what it saw. */
static void join_executor(executor *e) {
    assert_int_equal(pthread_join(e->thread, NULL), 0);
    if (e->failed_executes != 0)
        fail_msg("%llu executes of \"%s\" failed, the first with %s", (unsigned long long)e->failed_executes,
                 e->keys[0], dc_status_name(e->first_failure));
    if (e->handled_mismatches != 0)
        fail_msg("%llu executes of \"%s\" gave a result.handled other than the calls their thread saw",
                 (unsigned long long)e->handled_mismatches, e->keys[0]);
    assert_true(e->executes >= STRESS_MINIMUM_ROUNDS);
}

CALLEE static void counting_handler(executor *who) { who->calls_seen++; }

/* ---- a hook removed while two threads execute ------------------------------------------ */

/*
 * One hook of the removal test. `off` goes up as soon as its removal has
 * returned: a call that begins with it up came late, and one still running
 * when it goes up was not waited for.
 */
typedef struct watched_hook {
    atomic_bool off;
    atomic_ulong calls;
    atomic_int running;
    atomic_ulong destroys;
    atomic_ulong late_calls;
    atomic_ulong outliving_calls;
    atomic_ulong destroys_while_running;
    const char *key; /* the key it was added with; NULL for every event */
} watched_hook;

static struct {
    dc_table *table;
    dc_event_id event;  /* "e" */
    dc_event_id detail; /* "e::d" */
} removal;

/* What an execute of "e" or "e::d" (with one pointer argument) shows a hook. */
static void check_emission(const dc_emission *emission, const char *hook_key) {
    bool detailed = emission->detail != NULL;
    CHECK(emission->table == removal.table, "a hook was shown another table");
    CHECK(strcmp(emission->key, detailed ? "e::d" : "e") == 0, "a hook was shown the key \"%s\"", emission->key);
    CHECK(emission->event_length == 1, "a hook was shown event_length %zu for \"%s\"", emission->event_length,
          emission->key);
    CHECK(!detailed || strcmp(emission->detail, "d") == 0, "a hook was shown the detail \"%s\"", emission->detail);
    CHECK(emission->event == removal.event, "a hook was shown event id %u, not %u", emission->event, removal.event);
    CHECK(emission->key_id == (detailed ? removal.detail : removal.event), "a hook was shown key id %u for \"%s\"",
          emission->key_id, emission->key);
    CHECK(emission->count == 1 && emission->arguments != NULL && emission->arguments[0].type == DC_TYPE_POINTER,
          "a hook was shown %zu arguments", emission->count);
    CHECK(hook_key == NULL || strcmp(hook_key, "e") == 0 || detailed,
          "a hook on \"%s\" was called by an execute of \"%s\"", hook_key, emission->key);
}

static bool watched_hook_call(const dc_emission *emission, void *data) {
    watched_hook *hook = data;
    bool late = atomic_load(&hook->off);
    if (late) atomic_fetch_add(&hook->late_calls, 1);
    atomic_fetch_add(&hook->running, 1);
    atomic_fetch_add(&hook->calls, 1);
    check_emission(emission, hook->key);
    linger(&hook->off, 300);
    if (!late && atomic_load(&hook->off)) atomic_fetch_add(&hook->outliving_calls, 1);
    atomic_fetch_sub(&hook->running, 1);
    return true;
}

static void watched_hook_destroy(void *data) {
    watched_hook *hook = data;
    atomic_fetch_add(&hook->destroys, 1);
    if (atomic_load(&hook->running) != 0) atomic_fetch_add(&hook->destroys_while_running, 1);
}

static void hook_removed_while_two_threads_execute_is_never_called_after_its_remove_returns(void **state) {
    (void)state;
    reset_failures();
    dc_table *table = create_table("hook removal");
    dc_signature *signature = create_signature("v^v");
    removal.table = table;
    assert_ok(dc_table_intern(table, "e", &removal.event));
    assert_ok(dc_table_intern(table, "e::d", &removal.detail));
    assert_ok(dc_table_add(table, "e", signature, DC_FUNCTION(counting_handler), NULL, NULL, NULL));
    watched_hook *hooks = calloc(HOOK_REMOVAL_ROUNDS, sizeof *hooks);
    assert_non_null(hooks);

    atomic_bool stop = false;
    executor executors[2];
    start_executor(&executors[0], table, "e", NULL, &stop);
    start_executor(&executors[1], table, "e::d", NULL, &stop);

    /* Every event, the event, its detail: only executes of "e::d" call the last. */
    static const char *const keys[] = {NULL, "e", "e::d"};
    int timed_out_round = -1;
    for (int round = 0; round < HOOK_REMOVAL_ROUNDS; round++) {
        watched_hook *hook = &hooks[round];
        hook->key = keys[round % 3];
        dc_hook_id id = 0;
        assert_ok(dc_table_add_emission_hook(table, hook->key, watched_hook_call, hook, watched_hook_destroy, &id));
        uint64_t deadline = deadline_after_ms(WAIT_MILLISECONDS);
        while (atomic_load(&hook->calls) < HOOK_CALLS_PER_ROUND && now_ns() < deadline) sched_yield();
        if (atomic_load(&hook->calls) < HOOK_CALLS_PER_ROUND && timed_out_round < 0) timed_out_round = round;
        dc_status removed = dc_table_remove_emission_hook(table, id);
        atomic_store(&hook->off, true);
        CHECK(removed == DC_OK, "round %d: dc_table_remove_emission_hook gave %s", round, dc_status_name(removed));
        CHECK(atomic_load(&hook->destroys) == 1,
              "round %d: dc_table_remove_emission_hook returned with the destroy notify run %lu times", round,
              atomic_load(&hook->destroys));
        dc_status again = dc_table_remove_emission_hook(table, id);
        CHECK(again == DC_ERR_NOT_FOUND, "round %d: removing the hook again gave %s", round, dc_status_name(again));
    }
    atomic_store(&stop, true);
    join_executor(&executors[0]);
    join_executor(&executors[1]);
    if (timed_out_round >= 0) fail_msg("round %d: the hook was not called %d times within %d ms", timed_out_round,
                                       HOOK_CALLS_PER_ROUND, WAIT_MILLISECONDS);
    for (int round = 0; round < HOOK_REMOVAL_ROUNDS; round++) {
        watched_hook *hook = &hooks[round];
        if (atomic_load(&hook->late_calls) != 0)
            fail_msg("round %d: %lu calls of the hook began after its remove returned", round,
                     atomic_load(&hook->late_calls));
        if (atomic_load(&hook->outliving_calls) != 0)
            fail_msg("round %d: the remove returned while %lu calls of the hook were running", round,
                     atomic_load(&hook->outliving_calls));
        if (atomic_load(&hook->destroys_while_running) != 0)
            fail_msg("round %d: the hook's destroy notify ran while a call of it was running", round);
        assert_int_equal(atomic_load(&hook->destroys), 1);
    }
    assert_no_failures();
    /* Without the hooks the handler alone runs, once per execute. */
    assert_int_equal(executors[0].handled_total, executors[0].executes);
    assert_int_equal(executors[1].handled_total, executors[1].executes);
    dc_table_destroy(table);
    free(hooks);
    dc_signature_release(signature);
}

/* ---- a hook returning false on three threads at once ------------------------------------ */

typedef struct false_hook_race {
    dc_table *table;
    pthread_barrier_t start;
    pthread_barrier_t finish;
    atomic_int arrivals;     /* racers at their first execute this round */
    atomic_bool asked_to_go; /* an execute in which the hook returned false has returned */
    atomic_ulong calls;
    atomic_int running;
    atomic_ulong destroys;
    atomic_ulong late_calls;
    atomic_ulong destroys_while_running;
    atomic_ulong handler_calls;
    atomic_ulong failed_executes;
    atomic_ulong handled_mismatches;
    atomic_ulong calls_by_one_racer; /* most calls one racer saw in a round */
} false_hook_race;

static _Thread_local unsigned hook_calls_here;    /* calls of hooks on this thread */
static _Thread_local unsigned handler_calls_here; /* calls of lean handlers on this thread */

/* Stays until every racer has reached its execute (or a few milliseconds
 * have passed), so that the other racers meet the hook while it runs. */
static bool hook_asking_to_go(const dc_emission *emission, void *data) {
    (void)emission;
    false_hook_race *race = data;
    if (atomic_load(&race->asked_to_go)) atomic_fetch_add(&race->late_calls, 1);
    atomic_fetch_add(&race->running, 1);
    atomic_fetch_add(&race->calls, 1);
    hook_calls_here++;
    uint64_t deadline = deadline_after_ms(3);
    while (atomic_load(&race->arrivals) < FALSE_HOOK_RACERS && now_ns() < deadline) sched_yield();
    atomic_fetch_sub(&race->running, 1);
    return false;
}

static void false_hook_destroy(void *data) {
    false_hook_race *race = data;
    atomic_fetch_add(&race->destroys, 1);
    if (atomic_load(&race->running) != 0) atomic_fetch_add(&race->destroys_while_running, 1);
}

CALLEE static void lean_counting_handler(void) { handler_calls_here++; }

static void *run_false_hook_racer(void *context) {
    false_hook_race *race = context;
    for (int round = 0; round < FALSE_HOOK_ROUNDS; round++) {
        pthread_barrier_wait(&race->start);
        unsigned calls_this_round = 0;
        for (int i = 0; i < FALSE_HOOK_EXECUTES; i++) {
            if (i == 0) atomic_fetch_add(&race->arrivals, 1);
            hook_calls_here = handler_calls_here = 0;
            dc_result result;
            if (dc_table_execute(race->table, "go", NULL, 0, &result) != DC_OK) {
                atomic_fetch_add(&race->failed_executes, 1);
                continue;
            }
            if (result.handled != handler_calls_here || result.handled != 1)
                atomic_fetch_add(&race->handled_mismatches, 1);
            atomic_fetch_add(&race->handler_calls, handler_calls_here);
            calls_this_round += hook_calls_here;
            if (hook_calls_here != 0) atomic_store(&race->asked_to_go, true);
        }
        unsigned long most = atomic_load(&race->calls_by_one_racer);
        while (calls_this_round > most &&
               !atomic_compare_exchange_weak(&race->calls_by_one_racer, &most, calls_this_round)) {
        }
        pthread_barrier_wait(&race->finish);
    }
    return NULL;
}

static void hook_returning_false_on_three_threads_at_once_is_removed_once_and_not_called_again(void **state) {
    (void)state;
    reset_failures();
    false_hook_race race = {.table = create_table("asking to go")};
    dc_signature *signature = create_signature("v");
    assert_ok(dc_table_add(race.table, "go", signature, DC_FUNCTION(lean_counting_handler), NULL, NULL, NULL));
    assert_int_equal(pthread_barrier_init(&race.start, NULL, FALSE_HOOK_RACERS + 1), 0);
    assert_int_equal(pthread_barrier_init(&race.finish, NULL, FALSE_HOOK_RACERS + 1), 0);
    pthread_t racers[FALSE_HOOK_RACERS];
    for (int i = 0; i < FALSE_HOOK_RACERS; i++)
        assert_int_equal(pthread_create(&racers[i], NULL, run_false_hook_racer, &race), 0);

    /* Failures are recorded, not asserted, until the racers are done. */
    int first_bad_round = -1;
    char what[200] = "";
    for (int round = 0; round < FALSE_HOOK_ROUNDS; round++) {
        atomic_store(&race.arrivals, 0);
        atomic_store(&race.asked_to_go, false);
        atomic_store(&race.calls, 0);
        atomic_store(&race.destroys, 0);
        dc_hook_id id = 0;
        /* On the event in odd rounds, on every event in even ones. */
        dc_status added = dc_table_add_emission_hook(race.table, round % 2 ? "go" : NULL, hook_asking_to_go, &race,
                                                     false_hook_destroy, &id);
        pthread_barrier_wait(&race.start);
        pthread_barrier_wait(&race.finish);
        unsigned long calls = atomic_load(&race.calls), destroys = atomic_load(&race.destroys);
        dc_status removed_again = dc_table_remove_emission_hook(race.table, id);
        if (first_bad_round < 0) {
            if (added != DC_OK)
                snprintf(what, sizeof what, "dc_table_add_emission_hook gave %s", dc_status_name(added));
            else if (calls < 1 || calls > FALSE_HOOK_RACERS)
                snprintf(what, sizeof what, "the hook was called %lu times by %d racers", calls, FALSE_HOOK_RACERS);
            else if (destroys != 1)
                snprintf(what, sizeof what, "its destroy notify ran %lu times", destroys);
            else if (removed_again != DC_ERR_NOT_FOUND)
                snprintf(what, sizeof what, "removing the hook that asked to go gave %s",
                         dc_status_name(removed_again));
            if (what[0] != '\0') first_bad_round = round;
        }
    }
    for (int i = 0; i < FALSE_HOOK_RACERS; i++) assert_int_equal(pthread_join(racers[i], NULL), 0);
    if (first_bad_round >= 0) fail_msg("round %d: %s", first_bad_round, what);
    assert_int_equal(atomic_load(&race.failed_executes), 0);
    assert_int_equal(atomic_load(&race.handled_mismatches), 0);
    if (atomic_load(&race.late_calls) != 0)
        fail_msg("%lu calls of a hook began after an execute in which it returned false had returned",
                 atomic_load(&race.late_calls));
    if (atomic_load(&race.calls_by_one_racer) > 1)
        fail_msg("one racer called the hook %lu times in a round", atomic_load(&race.calls_by_one_racer));
    assert_int_equal(atomic_load(&race.destroys_while_running), 0);
    assert_int_equal(atomic_load(&race.handler_calls),
                     (unsigned long)FALSE_HOOK_ROUNDS * FALSE_HOOK_RACERS * FALSE_HOOK_EXECUTES);
    pthread_barrier_destroy(&race.start);
    pthread_barrier_destroy(&race.finish);
    dc_table_destroy(race.table);
    dc_signature_release(signature);
}

/* ---- a hook added while threads execute an event of lean handlers ------------------------ */

/* Where the added hook is: its round in the high bits, its state in the low two. */
enum { HOOK_ABSENT = 0, HOOK_INSTALLED = 1, HOOK_REMOVING = 2, HOOK_REMOVED = 3 };

typedef struct added_hook {
    uint64_t round;
    bool watches_tick; /* on "tick" or on every event; otherwise on "tock" */
    atomic_ulong destroys;
} added_hook;

static struct {
    _Atomic uint64_t hook_state;
    atomic_ulong executes;           /* every execute of "tick" */
    atomic_ulong installed_executes; /* those begun and ended with a hook on "tick" installed */
    atomic_ulong hook_calls;
    atomic_ulong missed_calls;
    atomic_ulong repeated_calls;
    atomic_ulong late_calls;
    atomic_ulong stray_calls;
    atomic_ulong handled_mismatches;
    atomic_ulong failed_executes;
} adding;

static bool added_hook_call(const dc_emission *emission, void *data) {
    const added_hook *hook = data;
    uint64_t state = atomic_load(&adding.hook_state);
    /* The round's bits are stored before its hook is added. */
    if (state >> 2 > hook->round || (state >> 2 == hook->round && (state & 3) == HOOK_REMOVED))
        atomic_fetch_add(&adding.late_calls, 1);
    if (!hook->watches_tick || strcmp(emission->key, "tick") != 0) atomic_fetch_add(&adding.stray_calls, 1);
    atomic_fetch_add(&adding.hook_calls, 1);
    hook_calls_here++;
    return true;
}

static void added_hook_destroy(void *data) {
    added_hook *hook = data;
    atomic_fetch_add(&hook->destroys, 1);
}

CALLEE static void lean_counting_handler_too(void) { handler_calls_here++; }

typedef struct tick_executor {
    pthread_t thread;
    dc_table *table;
    atomic_bool *stop;
    uint64_t executes;
} tick_executor;

static void *run_ticks(void *context) {
    tick_executor *e = context;
    while (!atomic_load_explicit(e->stop, memory_order_relaxed) || e->executes < STRESS_MINIMUM_ROUNDS) {
        uint64_t before = atomic_load(&adding.hook_state);
        hook_calls_here = handler_calls_here = 0;
        dc_result result;
        dc_status status = dc_table_execute(e->table, "tick", NULL, 0, &result);
        uint64_t after = atomic_load(&adding.hook_state);
        e->executes++;
        if (status != DC_OK) {
            atomic_fetch_add(&adding.failed_executes, 1);
            continue;
        }
        atomic_fetch_add(&adding.executes, 1);
        if (result.handled != 2 || handler_calls_here != 2) atomic_fetch_add(&adding.handled_mismatches, 1);
        if (hook_calls_here > 1) atomic_fetch_add(&adding.repeated_calls, 1);
        if (before == after && (before & 3) == HOOK_INSTALLED) {
            atomic_fetch_add(&adding.installed_executes, 1);
            if (hook_calls_here == 0) atomic_fetch_add(&adding.missed_calls, 1);
        }
    }
    return NULL;
}

static void executes_that_start_after_a_hook_is_added_call_it_and_none_after_its_removal(void **state) {
    (void)state;
    reset_failures();
    memset(&adding, 0, sizeof adding);
    dc_table *table = create_table("hook adding");
    dc_signature *signature = create_signature("v");
    assert_ok(dc_table_add(table, "tick", signature, DC_FUNCTION(lean_counting_handler), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "tick", signature, DC_FUNCTION(lean_counting_handler_too), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "tock", signature, DC_FUNCTION(lean_counting_handler), NULL, NULL, NULL));
    added_hook *hooks = calloc(HOOK_ADDING_ROUNDS, sizeof *hooks);
    assert_non_null(hooks);

    atomic_bool stop = false;
    tick_executor executors[2];
    for (int i = 0; i < 2; i++) {
        executors[i] = (tick_executor){.table = table, .stop = &stop};
        assert_int_equal(pthread_create(&executors[i].thread, NULL, run_ticks, &executors[i]), 0);
    }
    static const char *const keys[] = {NULL, "tick", "tock"};
    int timed_out_round = -1;
    for (int round = 0; round < HOOK_ADDING_ROUNDS; round++) {
        const char *key = keys[round % 3];
        hooks[round].round = (uint64_t)round + 1;
        hooks[round].watches_tick = key == NULL || strcmp(key, "tick") == 0;
        uint64_t round_bits = (uint64_t)(round + 1) << 2;
        dc_hook_id id = 0;
        atomic_store(&adding.hook_state, round_bits | HOOK_ABSENT);
        dc_status added =
            dc_table_add_emission_hook(table, key, added_hook_call, &hooks[round], added_hook_destroy, &id);
        CHECK(added == DC_OK, "round %d: dc_table_add_emission_hook gave %s", round, dc_status_name(added));
        atomic_store(&adding.hook_state, round_bits | (hooks[round].watches_tick ? HOOK_INSTALLED : HOOK_ABSENT));
        /* Let a few executes begin and end with the hook there. */
        unsigned long target = atomic_load(&adding.executes) + EXECUTES_PER_ADDED_HOOK * 2;
        uint64_t deadline = deadline_after_ms(WAIT_MILLISECONDS);
        while (atomic_load(&adding.executes) < target && now_ns() < deadline) sched_yield();
        if (atomic_load(&adding.executes) < target && timed_out_round < 0) timed_out_round = round;
        atomic_store(&adding.hook_state, round_bits | HOOK_REMOVING);
        dc_status removed = dc_table_remove_emission_hook(table, id);
        atomic_store(&adding.hook_state, round_bits | HOOK_REMOVED);
        CHECK(removed == DC_OK, "round %d: dc_table_remove_emission_hook gave %s", round, dc_status_name(removed));
        CHECK(atomic_load(&hooks[round].destroys) == 1,
              "round %d: the remove returned with the destroy notify run %lu times", round,
              atomic_load(&hooks[round].destroys));
    }
    atomic_store(&stop, true);
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(executors[i].thread, NULL), 0);
    if (timed_out_round >= 0) fail_msg("round %d: too few executes within %d ms", timed_out_round, WAIT_MILLISECONDS);
    assert_no_failures();
    assert_int_equal(atomic_load(&adding.failed_executes), 0);
    if (atomic_load(&adding.handled_mismatches) != 0)
        fail_msg("%lu executes of \"tick\" did not run its two handlers once each (or miscounted them)",
                 atomic_load(&adding.handled_mismatches));
    if (atomic_load(&adding.missed_calls) != 0)
        fail_msg("%lu of %lu executes begun after dc_table_add_emission_hook returned did not call the hook",
                 atomic_load(&adding.missed_calls), atomic_load(&adding.installed_executes));
    if (atomic_load(&adding.late_calls) != 0)
        fail_msg("%lu calls of a hook began after its remove returned", atomic_load(&adding.late_calls));
    if (atomic_load(&adding.stray_calls) != 0)
        fail_msg("%lu calls of a hook on \"tock\" came from executes of \"tick\"", atomic_load(&adding.stray_calls));
    assert_int_equal(atomic_load(&adding.repeated_calls), 0);
    assert_true(atomic_load(&adding.installed_executes) > 0);
    assert_true(atomic_load(&adding.hook_calls) >= atomic_load(&adding.installed_executes));

    /* With every hook gone, the event runs its two handlers, and no hook. */
    hook_calls_here = handler_calls_here = 0;
    dc_result result;
    assert_ok(dc_table_execute(table, "tick", NULL, 0, &result));
    assert_int_equal(result.handled, 2);
    assert_int_equal(handler_calls_here, 2);
    assert_int_equal(hook_calls_here, 0);
    dc_table_destroy(table);
    free(hooks);
    dc_signature_release(signature);
}

/* ---- the observer replaced while two threads add and remove handlers --------------------- */

/* One observer of the replacement test; `replaced` goes up as soon as the
 * dc_table_set_observer that replaced it has returned. */
typedef struct observer_record {
    atomic_bool replaced;
    atomic_int running;
    atomic_ulong added;
    atomic_ulong removed;
    atomic_ulong destroys;
    atomic_ulong late_calls;
    atomic_ulong outliving_calls;
    atomic_ulong destroys_while_running;
} observer_record;

static struct {
    dc_table *table;
    dc_event_id event;  /* "e" */
    dc_event_id detail; /* "e::d" */
} observed;

CALLEE static void observed_handler(void *target) { (void)target; }

static void recording_observer(void *data, dc_table *table, dc_table_change change, dc_event_id event,
                               dc_handler_id handler) {
    observer_record *observer = data;
    bool late = atomic_load(&observer->replaced);
    if (late) atomic_fetch_add(&observer->late_calls, 1);
    atomic_fetch_add(&observer->running, 1);
    CHECK(table == observed.table, "the observer was told of another table");
    CHECK(event == observed.event || event == observed.detail, "the observer was told of event %u", event);
    if (change == DC_HANDLER_ADDED) {
        atomic_fetch_add(&observer->added, 1);
        /* Only the thread that added it removes it, and it is still in its add. */
        dc_handler_info info;
        dc_status status = dc_table_handler_info(table, handler, &info);
        CHECK(status == DC_OK, "dc_table_handler_info of a handler the observer was just told of gave %s",
              dc_status_name(status));
        CHECK(status != DC_OK || (info.event == event && info.function == DC_FUNCTION(observed_handler)),
              "the observer was told of an add of handler %llu to event %u, which says event %u",
              (unsigned long long)handler, event, info.event);
    } else if (change == DC_HANDLER_REMOVED) {
        atomic_fetch_add(&observer->removed, 1);
        CHECK(!dc_table_contains(table, handler), "the observer was told of a removal of a registered handler");
    } else {
        note_failure("the observer was told of change %d", (int)change);
    }
    linger(&observer->replaced, 200);
    if (!late && atomic_load(&observer->replaced)) atomic_fetch_add(&observer->outliving_calls, 1);
    atomic_fetch_sub(&observer->running, 1);
}

static void observer_record_destroy(void *data) {
    observer_record *observer = data;
    atomic_fetch_add(&observer->destroys, 1);
    if (atomic_load(&observer->running) != 0) atomic_fetch_add(&observer->destroys_while_running, 1);
}

typedef struct observed_mutator {
    pthread_t thread;
    dc_table *table;
    dc_signature *signature;
    atomic_bool *stop;
    unsigned seed;
    char targets[OBSERVER_SLOTS];
    uint64_t operations;
    uint64_t adds;
    uint64_t removes;
} observed_mutator;

static void *run_observed_mutator(void *context) {
    observed_mutator *m = context;
    dc_handler_id ids[OBSERVER_SLOTS] = {0};
    while (!atomic_load_explicit(m->stop, memory_order_relaxed) || m->operations < STRESS_MINIMUM_ROUNDS) {
        size_t i = (size_t)rand_r(&m->seed) % OBSERVER_SLOTS;
        unsigned choice = (unsigned)rand_r(&m->seed);
        dc_status status;
        if (ids[i] == 0) {
            status = dc_table_add(m->table, choice % 2 ? "e" : "e::d", m->signature, DC_FUNCTION(observed_handler),
                                  &m->targets[i], NULL, &ids[i]);
            CHECK(status == DC_OK, "dc_table_add gave %s", dc_status_name(status));
            if (status == DC_OK) m->adds++;
            else ids[i] = 0;
        } else if (choice % 2) {
            status = dc_table_remove(m->table, ids[i]);
            CHECK(status == DC_OK, "dc_table_remove gave %s", dc_status_name(status));
            if (status == DC_OK) m->removes++;
            ids[i] = 0;
        } else {
            size_t removed = 0;
            status = dc_table_remove_target(m->table, &m->targets[i], &removed);
            CHECK(status == DC_OK && removed == 1, "dc_table_remove_target gave %s, %zu removed",
                  dc_status_name(status), removed);
            m->removes += removed;
            ids[i] = 0;
        }
        m->operations++;
    }
    return NULL;
}

typedef struct observer_totals {
    uint64_t adds, removes;                  /* made by the mutators */
    uint64_t added_told, removed_told;       /* told to the observers */
    size_t observers;                        /* how many were set in turn */
} observer_totals;

/* Replaces the observer over and over while two threads add and remove
 * handlers; asserts what replacement promises and gives the totals. */
static observer_totals race_observer_replacements(void) {
    reset_failures();
    dc_table *table = create_table("observed");
    dc_signature *signature = create_signature("v^v");
    observed.table = table;
    assert_ok(dc_table_intern(table, "e", &observed.event));
    assert_ok(dc_table_intern(table, "e::d", &observed.detail));
    observer_record *observers = calloc(OBSERVER_COUNT, sizeof *observers);
    assert_non_null(observers);
    assert_ok(dc_table_set_observer(table, recording_observer, &observers[0], observer_record_destroy));

    atomic_bool stop = false;
    observed_mutator mutators[OBSERVER_MUTATORS];
    for (int i = 0; i < OBSERVER_MUTATORS; i++) {
        mutators[i] = (observed_mutator){.table = table, .signature = signature, .stop = &stop,
                                         .seed = 777u + (unsigned)i};
        assert_int_equal(pthread_create(&mutators[i].thread, NULL, run_observed_mutator, &mutators[i]), 0);
    }
    size_t current = 0;
    uint64_t deadline = deadline_after_ms(STRESS_MILLISECONDS);
    while (current + 1 < OBSERVER_COUNT && (now_ns() < deadline || current < 100)) {
        dc_status status = dc_table_set_observer(table, recording_observer, &observers[current + 1],
                                                 observer_record_destroy);
        atomic_store(&observers[current].replaced, true);
        CHECK(status == DC_OK, "dc_table_set_observer gave %s", dc_status_name(status));
        CHECK(atomic_load(&observers[current].destroys) == 1,
              "dc_table_set_observer returned with the replaced observer's destroy notify run %lu times",
              atomic_load(&observers[current].destroys));
        current++;
        usleep(100);
    }
    atomic_store(&stop, true);
    observer_totals totals = {.observers = current + 1};
    for (int i = 0; i < OBSERVER_MUTATORS; i++) {
        assert_int_equal(pthread_join(mutators[i].thread, NULL), 0);
        totals.adds += mutators[i].adds;
        totals.removes += mutators[i].removes;
    }
    assert_ok(dc_table_set_observer(table, NULL, NULL, NULL));
    atomic_store(&observers[current].replaced, true);
    assert_no_failures();

    for (size_t i = 0; i <= current; i++) {
        observer_record *observer = &observers[i];
        if (atomic_load(&observer->late_calls) != 0)
            fail_msg("observer %zu: %lu calls began after dc_table_set_observer replaced it", i,
                     atomic_load(&observer->late_calls));
        if (atomic_load(&observer->outliving_calls) != 0)
            fail_msg("observer %zu: dc_table_set_observer returned while %lu calls of it were running", i,
                     atomic_load(&observer->outliving_calls));
        if (atomic_load(&observer->destroys) != 1)
            fail_msg("observer %zu: its destroy notify ran %lu times", i, atomic_load(&observer->destroys));
        assert_int_equal(atomic_load(&observer->destroys_while_running), 0);
        totals.added_told += atomic_load(&observer->added);
        totals.removed_told += atomic_load(&observer->removed);
    }
    assert_true(totals.adds > 0 && totals.removes > 0);
    /* Nothing is told twice, whatever the replacements. */
    assert_true(totals.added_told <= totals.adds);
    assert_true(totals.removed_told <= totals.removes);
    dc_table_destroy(table);
    free(observers);
    dc_signature_release(signature);
    return totals;
}

static void replaced_observer_is_never_called_after_set_observer_returns(void **state) {
    (void)state;
    race_observer_replacements();
}

/* An observer was set throughout: each add and remove is told to one. */
static void every_add_and_remove_is_told_to_an_observer_while_observers_are_replaced(void **state) {
    (void)state;
    observer_totals totals = race_observer_replacements();
    if (totals.added_told != totals.adds || totals.removed_told != totals.removes)
        fail_msg("%llu adds and %llu removes were made while one of %zu observers was set, but the observers were "
                 "told of %llu adds and %llu removes",
                 (unsigned long long)totals.adds, (unsigned long long)totals.removes, totals.observers,
                 (unsigned long long)totals.added_told, (unsigned long long)totals.removed_told);
}

/* ---- observers adding and removing handlers from inside their calls ----------------------- */

/*
 * The observer gives each handler added to "primary" a companion on
 * "companion", and removes the companion when the primary goes: two threads
 * add and remove primaries while a third executes both events. A primary's
 * target is a place of its own: told of the add, the observer notes the
 * primary's id there and binds the companion to the place's `companion`
 * byte; told of the removal, it finds the place by the id. (The id itself,
 * 64 bits, cannot be the companion's target where pointers have 32.)
 */
enum { PLACES_PER_WORKER = 4 };

typedef struct primary_place {
    _Atomic(dc_handler_id) id; /* 0 while no primary is there */
    char companion;            /* its address is the companion's target */
} primary_place;

static struct {
    dc_table *table;
    dc_signature *signature;
    dc_event_id primary, companion;
    atomic_ulong primary_added, primary_removed;
    atomic_ulong companion_added, companion_removed;
    atomic_ulong companion_destroys;
    atomic_ulong observer_destroys;
    primary_place places[COMPANION_WORKERS][PLACES_PER_WORKER];
} companions;

/* The place of the primary with id `id`, or NULL. */
static primary_place *place_of_primary(dc_handler_id id) {
    for (int worker = 0; worker < COMPANION_WORKERS; worker++)
        for (int i = 0; i < PLACES_PER_WORKER; i++)
            if (atomic_load(&companions.places[worker][i].id) == id) return &companions.places[worker][i];
    return NULL;
}

CALLEE static void primary_handler(void *target, executor *who) {
    (void)target;
    who->calls_seen++;
}

CALLEE static void companion_handler(void *target, executor *who) {
    (void)target;
    who->calls_seen++;
}

static void count_companion_destroy(void *data) {
    (void)data;
    atomic_fetch_add(&companions.companion_destroys, 1);
}

static void companion_observer(void *data, dc_table *table, dc_table_change change, dc_event_id event,
                               dc_handler_id handler) {
    (void)data;
    if (event == companions.companion) {
        atomic_fetch_add(change == DC_HANDLER_ADDED ? &companions.companion_added : &companions.companion_removed, 1);
        return;
    }
    CHECK(event == companions.primary, "the observer was told of event %u", event);
    if (change == DC_HANDLER_ADDED) {
        atomic_fetch_add(&companions.primary_added, 1);
        dc_handler_info info;
        dc_status status = dc_table_handler_info(table, handler, &info);
        CHECK(status == DC_OK && info.event == companions.primary && info.function == DC_FUNCTION(primary_handler) &&
                  info.flags == 0 && info.target != NULL,
              "dc_table_handler_info of a primary just added gave %s", dc_status_name(status));
        if (status != DC_OK || info.target == NULL) return;
        primary_place *place = info.target;
        atomic_store(&place->id, handler);
        dc_handler_options options = {.destroy = count_companion_destroy};
        status = dc_table_add_id(table, companions.companion, companions.signature, DC_FUNCTION(companion_handler),
                                 &place->companion, &options, NULL);
        CHECK(status == DC_OK, "adding a companion from inside the observer gave %s", dc_status_name(status));
    } else {
        atomic_fetch_add(&companions.primary_removed, 1);
        primary_place *place = place_of_primary(handler);
        CHECK(place != NULL, "no place holds the id of a primary removed");
        if (place == NULL) return;
        atomic_store(&place->id, 0);
        size_t removed = 0;
        dc_status status = dc_table_remove_target(table, &place->companion, &removed);
        CHECK(status == DC_OK && removed == 1, "removing a companion from inside the observer gave %s, %zu removed",
              dc_status_name(status), removed);
    }
}

static void count_observer_destroy(void *data) {
    (void)data;
    atomic_fetch_add(&companions.observer_destroys, 1);
}

typedef struct companion_worker {
    pthread_t thread;
    atomic_bool *stop;
    primary_place *places; /* PLACES_PER_WORKER of companions.places, used in turn */
    uint64_t rounds;
} companion_worker;

static void *run_companion_worker(void *context) {
    companion_worker *w = context;
    dc_table *table = companions.table;
    while (!atomic_load_explicit(w->stop, memory_order_relaxed) || w->rounds < STRESS_MINIMUM_ROUNDS) {
        primary_place *place = &w->places[w->rounds % PLACES_PER_WORKER];
        dc_handler_id id = 0, companion = 0;
        dc_status status = dc_table_add(table, "primary", companions.signature, DC_FUNCTION(primary_handler), place,
                                        NULL, &id);
        CHECK(status == DC_OK, "adding a primary gave %s", dc_status_name(status));
        status = dc_table_find_handler(table, "companion", DC_FUNCTION(companion_handler), &place->companion,
                                       &companion);
        CHECK(status == DC_OK, "no companion once the primary's add returned (%s)", dc_status_name(status));
        status = dc_table_remove(table, id);
        CHECK(status == DC_OK, "removing a primary gave %s", dc_status_name(status));
        status = dc_table_find_handler(table, "companion", DC_FUNCTION(companion_handler), &place->companion,
                                       &companion);
        CHECK(status == DC_ERR_NOT_FOUND, "the companion is still there once the primary's remove returned (%s)",
              dc_status_name(status));
        CHECK(!dc_table_contains(table, companion), "the companion is still registered");
        w->rounds++;
    }
    return NULL;
}

static void observers_adding_and_removing_handlers_from_inside_their_calls_on_two_threads(void **state) {
    (void)state;
    reset_failures();
    memset(&companions, 0, sizeof companions);
    dc_table *table = companions.table = create_table("companions");
    companions.signature = create_signature("v^v^v");
    assert_ok(dc_table_intern(table, "primary", &companions.primary));
    assert_ok(dc_table_intern(table, "companion", &companions.companion));
    assert_ok(dc_table_set_observer(table, companion_observer, NULL, count_observer_destroy));

    atomic_bool stop = false;
    executor runner;
    start_executor(&runner, table, "primary", "companion", &stop);
    companion_worker workers[COMPANION_WORKERS];
    for (int i = 0; i < COMPANION_WORKERS; i++) {
        workers[i] = (companion_worker){.stop = &stop, .places = companions.places[i]};
        assert_int_equal(pthread_create(&workers[i].thread, NULL, run_companion_worker, &workers[i]), 0);
    }
    usleep(STRESS_MILLISECONDS * 1000);
    atomic_store(&stop, true);
    uint64_t rounds = 0;
    for (int i = 0; i < COMPANION_WORKERS; i++) {
        assert_int_equal(pthread_join(workers[i].thread, NULL), 0);
        rounds += workers[i].rounds;
    }
    join_executor(&runner);
    assert_no_failures();

    assert_int_equal(atomic_load(&companions.primary_added), rounds);
    assert_int_equal(atomic_load(&companions.primary_removed), rounds);
    assert_int_equal(atomic_load(&companions.companion_added), rounds);
    assert_int_equal(atomic_load(&companions.companion_removed), rounds);
    assert_int_equal(atomic_load(&companions.companion_destroys), rounds);
    size_t left = 1;
    assert_ok(dc_table_handler_count(table, "primary", &left));
    assert_int_equal(left, 0);
    assert_ok(dc_table_handler_count(table, "companion", &left));
    assert_int_equal(left, 0);
    assert_ok(dc_table_set_observer(table, NULL, NULL, NULL));
    assert_int_equal(atomic_load(&companions.observer_destroys), 1);
    dc_table_destroy(table);
    dc_signature_release(companions.signature);
}

/* ---- detailed keys and phases under threads ------------------------------------------------ */

enum { KEY_NOTIFY, KEY_SIZE, KEY_TITLE };
enum { PHASE_RUN_FIRST, PHASE_NORMAL, PHASE_RUN_LAST, PHASE_AFTER };

/* One handler position the phase mutator adds and removes; `off` as in
 * test_table_threads.c: up from its removal's return to its next add. */
typedef struct phase_slot {
    int key; /* KEY_* */
    uint32_t flags;
    int phase; /* PHASE_* */
    atomic_bool off;
    atomic_ulong calls;
    atomic_ulong adds;
    atomic_ulong destroys;
    atomic_ulong late_calls;
    atomic_ulong outliving_calls;
} phase_slot;

static const char *const phase_keys[] = {"notify", "notify::size", "notify::title"};

static const struct {
    int key;
    uint32_t flags;
    int phase;
} phase_layout[PHASE_SLOT_COUNT] = {
    {KEY_NOTIFY, 0, PHASE_NORMAL},
    {KEY_NOTIFY, DC_HANDLER_FIRST, PHASE_NORMAL},
    {KEY_NOTIFY, DC_HANDLER_AFTER, PHASE_AFTER},
    {KEY_SIZE, 0, PHASE_NORMAL},
    {KEY_SIZE, DC_HANDLER_AFTER, PHASE_AFTER},
    {KEY_SIZE, DC_HANDLER_AFTER | DC_HANDLER_FIRST, PHASE_AFTER},
    {KEY_TITLE, 0, PHASE_NORMAL},
    {KEY_TITLE, DC_HANDLER_AFTER, PHASE_AFTER},
    {KEY_NOTIFY, DC_HANDLER_RUN_LAST, PHASE_RUN_LAST},
    {KEY_NOTIFY, DC_HANDLER_RUN_FIRST, PHASE_RUN_FIRST},
};
enum { FIRST_TITLE_SLOT = 6, RUN_LAST_SLOT = 8, RUN_FIRST_SLOT = 9 };

static struct {
    dc_table *table;
    dc_signature *signature;
    dc_event_id ids[3]; /* of phase_keys */
    phase_slot slots[PHASE_SLOT_COUNT];
    phase_slot steady; /* on "notify", never removed */
    dc_handler_id steady_id;
} phases;

typedef struct phase_executor {
    pthread_t thread;
    int key; /* KEY_NOTIFY or KEY_SIZE */
    atomic_bool *stop;
    size_t calls_seen;
    size_t steady_seen;
    int last_phase;
    uint64_t executes;
    uint64_t failed_executes;
    dc_status first_failure;
    uint64_t handled_mismatches;
    uint64_t steady_misses;
    uint64_t order_violations;
    uint64_t wrong_key_calls;
} phase_executor;

CALLEE static void phase_handler(phase_slot *slot, phase_executor *who) {
    bool late = atomic_load(&slot->off);
    if (late) atomic_fetch_add(&slot->late_calls, 1);
    atomic_fetch_add(&slot->calls, 1);
    who->calls_seen++;
    if (slot == &phases.steady) who->steady_seen++;
    if (slot->key == KEY_TITLE || (slot->key == KEY_SIZE && who->key != KEY_SIZE)) who->wrong_key_calls++;
    if (slot->phase < who->last_phase) who->order_violations++;
    who->last_phase = slot->phase;
    linger(&slot->off, 100);
    if (!late && atomic_load(&slot->off)) atomic_fetch_add(&slot->outliving_calls, 1);
}

static void phase_slot_destroy(void *data) {
    phase_slot *slot = data;
    atomic_fetch_add(&slot->destroys, 1);
}

static void *run_phase_executor(void *context) {
    phase_executor *e = context;
    const dc_value arguments[] = {dc_pointer(e)};
    for (unsigned turn = 0; !atomic_load_explicit(e->stop, memory_order_relaxed) || e->executes < STRESS_MINIMUM_ROUNDS;
         turn++) {
        size_t before = e->calls_seen;
        e->steady_seen = 0;
        e->last_phase = PHASE_RUN_FIRST;
        dc_result result;
        /* By key and by interned id in turn. */
        dc_status status = turn % 2 ? dc_table_execute(phases.table, phase_keys[e->key], arguments, 1, &result)
                                    : dc_table_execute_id(phases.table, phases.ids[e->key], arguments, 1, &result);
        e->executes++;
        if (status != DC_OK) {
            if (e->failed_executes++ == 0) e->first_failure = status;
            continue;
        }
        if (result.handled != e->calls_seen - before) e->handled_mismatches++;
        if (e->steady_seen != 1) e->steady_misses++;
    }
    return NULL;
}

static void start_phase_executor(phase_executor *e, int key, atomic_bool *stop) {
    *e = (phase_executor){.key = key, .stop = stop};
    assert_int_equal(pthread_create(&e->thread, NULL, run_phase_executor, e), 0);
}

static void join_phase_executor(phase_executor *e) {
    const char *key = phase_keys[e->key];
    assert_int_equal(pthread_join(e->thread, NULL), 0);
    if (e->failed_executes != 0)
        fail_msg("%llu executes of \"%s\" failed, the first with %s", (unsigned long long)e->failed_executes, key,
                 dc_status_name(e->first_failure));
    if (e->wrong_key_calls != 0)
        fail_msg("executes of \"%s\" called %llu handlers of another detail", key,
                 (unsigned long long)e->wrong_key_calls);
    if (e->order_violations != 0)
        fail_msg("executes of \"%s\" called a handler of an earlier phase after a later one %llu times", key,
                 (unsigned long long)e->order_violations);
    if (e->handled_mismatches != 0)
        fail_msg("%llu executes of \"%s\" gave a result.handled other than the calls their thread saw",
                 (unsigned long long)e->handled_mismatches, key);
    if (e->steady_misses != 0)
        fail_msg("%llu executes of \"%s\" did not call the steady handler once", (unsigned long long)e->steady_misses,
                 key);
}

typedef struct phase_mutator {
    pthread_t thread;
    atomic_bool *stop;
    unsigned seed;
    uint64_t operations;
} phase_mutator;

static bool is_default_slot(size_t index) { return index == RUN_LAST_SLOT || index == RUN_FIRST_SLOT; }

/* After a removal of slot `index` returned: marks it off and checks it went whole. */
static void phase_slot_removed(dc_handler_id *ids, size_t index) {
    phase_slot *slot = &phases.slots[index];
    atomic_store(&slot->off, true);
    CHECK(atomic_load(&slot->destroys) == atomic_load(&slot->adds),
          "slot %zu: a remove returned before the handler's destroy notify ran", index);
    CHECK(!dc_table_contains(phases.table, ids[index]), "slot %zu: still registered once removed", index);
    ids[index] = 0;
}

static void *run_phase_mutator(void *context) {
    phase_mutator *m = context;
    dc_table *table = phases.table;
    dc_handler_id ids[PHASE_SLOT_COUNT] = {0};
    while (!atomic_load_explicit(m->stop, memory_order_relaxed) || m->operations < STRESS_MINIMUM_ROUNDS) {
        size_t index = (size_t)rand_r(&m->seed) % PHASE_SLOT_COUNT;
        unsigned choice = (unsigned)rand_r(&m->seed) % 6;
        phase_slot *slot = &phases.slots[index];
        dc_status status;
        if (ids[index] == 0) {
            size_t other = index == RUN_LAST_SLOT ? RUN_FIRST_SLOT : RUN_LAST_SLOT;
            bool refused = is_default_slot(index) && ids[other] != 0;
            atomic_store(&slot->off, false);
            dc_handler_options options = {.flags = slot->flags, .destroy = phase_slot_destroy, .destroy_data = slot};
            status = dc_table_add(table, phase_keys[slot->key], phases.signature, DC_FUNCTION(phase_handler), slot,
                                  &options, &ids[index]);
            if (refused) {
                CHECK(status == DC_ERR_STATE, "a second default handler for \"notify\" gave %s",
                      dc_status_name(status));
            } else {
                CHECK(status == DC_OK, "adding slot %zu gave %s (%s)", index, dc_status_name(status),
                      dc_last_error_message());
            }
            if (status == DC_OK) {
                atomic_fetch_add(&slot->adds, 1);
            } else {
                atomic_store(&slot->off, true);
                ids[index] = 0;
            }
        } else if (choice == 0 && slot->key == KEY_TITLE) {
            size_t present = (ids[FIRST_TITLE_SLOT] != 0) + (ids[FIRST_TITLE_SLOT + 1] != 0), removed = 0;
            status = dc_table_remove_event(table, "notify::title", &removed);
            CHECK(status == DC_OK && removed == present, "dc_table_remove_event(\"notify::title\") gave %s, %zu of %zu",
                  dc_status_name(status), removed, present);
            for (size_t i = FIRST_TITLE_SLOT; i <= FIRST_TITLE_SLOT + 1; i++)
                if (ids[i] != 0) phase_slot_removed(ids, i);
        } else if (choice <= 2 && is_default_slot(index)) {
            /* A default handler is not its target's to remove. */
            size_t removed = 1;
            status = dc_table_remove_target(table, slot, &removed);
            CHECK(status == DC_OK && removed == 0, "dc_table_remove_target of a default handler's target gave %s, "
                  "%zu removed", dc_status_name(status), removed);
            CHECK(dc_table_contains(table, ids[index]), "dc_table_remove_target removed a default handler");
        } else if (choice <= 2) {
            size_t removed = 0;
            status = dc_table_remove_target(table, slot, &removed);
            CHECK(status == DC_OK && removed == 1, "dc_table_remove_target gave %s, %zu removed",
                  dc_status_name(status), removed);
            phase_slot_removed(ids, index);
        } else {
            status = dc_table_remove(table, ids[index]);
            CHECK(status == DC_OK, "dc_table_remove of slot %zu gave %s", index, dc_status_name(status));
            phase_slot_removed(ids, index);
        }
        m->operations++;
    }
    return NULL;
}

/* Sets up the table of the phase tests: the three keys and the steady handler. */
static void create_phase_table(void) {
    reset_failures();
    memset(&phases, 0, sizeof phases);
    phases.table = create_table("phases");
    phases.signature = create_signature("v^v^v");
    for (int key = 0; key < 3; key++) assert_ok(dc_table_intern(phases.table, phase_keys[key], &phases.ids[key]));
    for (size_t i = 0; i < PHASE_SLOT_COUNT; i++) {
        phases.slots[i].key = phase_layout[i].key;
        phases.slots[i].flags = phase_layout[i].flags;
        phases.slots[i].phase = phase_layout[i].phase;
        atomic_store(&phases.slots[i].off, true);
    }
    phases.steady.key = KEY_NOTIFY;
    phases.steady.phase = PHASE_NORMAL;
    assert_ok(dc_table_add(phases.table, "notify", phases.signature, DC_FUNCTION(phase_handler), &phases.steady, NULL,
                           &phases.steady_id));
}

/* Asserts the slots' counts and destroys the table. */
static void check_and_destroy_phase_table(void) {
    for (size_t i = 0; i < PHASE_SLOT_COUNT; i++) {
        phase_slot *slot = &phases.slots[i];
        if (atomic_load(&slot->late_calls) != 0)
            fail_msg("slot %zu: %lu calls began after its remove returned", i, atomic_load(&slot->late_calls));
        if (atomic_load(&slot->outliving_calls) != 0)
            fail_msg("slot %zu: its remove returned while %lu calls were running", i,
                     atomic_load(&slot->outliving_calls));
        if (slot->key == KEY_TITLE && atomic_load(&slot->calls) != 0)
            fail_msg("slot %zu, on \"notify::title\", was called %lu times", i, atomic_load(&slot->calls));
    }
    dc_table_destroy(phases.table);
    for (size_t i = 0; i < PHASE_SLOT_COUNT; i++)
        assert_int_equal(atomic_load(&phases.slots[i].destroys), atomic_load(&phases.slots[i].adds));
    dc_signature_release(phases.signature);
}

static void detailed_and_plain_executes_racing_adds_and_removes_call_their_handlers_phase_by_phase(void **state) {
    (void)state;
    create_phase_table();
    atomic_bool stop = false;
    phase_executor executors[2];
    start_phase_executor(&executors[0], KEY_SIZE, &stop);
    start_phase_executor(&executors[1], KEY_NOTIFY, &stop);
    phase_mutator mutator = {.stop = &stop, .seed = 4242u};
    assert_int_equal(pthread_create(&mutator.thread, NULL, run_phase_mutator, &mutator), 0);
    usleep(STRESS_MILLISECONDS * 1000);
    atomic_store(&stop, true);
    assert_int_equal(pthread_join(mutator.thread, NULL), 0);
    join_phase_executor(&executors[0]);
    join_phase_executor(&executors[1]);
    assert_no_failures();
    check_and_destroy_phase_table();
}

/* ---- listing handlers while they come and go ------------------------------------------------ */

static int phase_of_flags(uint32_t flags) {
    if (flags & DC_HANDLER_RUN_FIRST) return PHASE_RUN_FIRST;
    if (flags & DC_HANDLER_RUN_LAST) return PHASE_RUN_LAST;
    if (flags & DC_HANDLER_AFTER) return PHASE_AFTER;
    return PHASE_NORMAL;
}

typedef struct lister {
    pthread_t thread;
    atomic_bool *stop;
    uint64_t listings;
} lister;

/* Checks one listing of `key` (KEY_NOTIFY or KEY_SIZE). */
static void check_listing(int key, const dc_handler_info *infos, size_t count) {
    int last_phase = PHASE_RUN_FIRST;
    size_t steady = 0;
    for (size_t i = 0; i < count; i++) {
        const dc_handler_info *info = &infos[i];
        int phase = phase_of_flags(info->flags);
        CHECK(phase >= last_phase, "the listing of \"%s\" has a handler of phase %d after one of phase %d",
              phase_keys[key], phase, last_phase);
        last_phase = phase;
        CHECK(info->function == DC_FUNCTION(phase_handler) && !info->marshal && info->queue == NULL &&
                  info->blocked == 0,
              "the listing of \"%s\" describes a handler wrongly", phase_keys[key]);
        for (size_t j = 0; j < i; j++)
            CHECK(infos[j].id != info->id, "the listing of \"%s\" has handler %llu twice", phase_keys[key],
                  (unsigned long long)info->id);
        if (info->target == &phases.steady) {
            steady++;
            CHECK(info->id == phases.steady_id && info->event == phases.ids[KEY_NOTIFY] && info->flags == 0,
                  "the listing of \"%s\" describes the steady handler wrongly", phase_keys[key]);
            continue;
        }
        const phase_slot *slot = info->target;
        size_t index = (size_t)(slot - phases.slots);
        if (index >= PHASE_SLOT_COUNT) {
            note_failure("the listing of \"%s\" has a handler of an unknown target", phase_keys[key]);
            continue;
        }
        CHECK(slot->key != KEY_TITLE && (key == KEY_SIZE || slot->key == KEY_NOTIFY),
              "the listing of \"%s\" has slot %zu, added to \"%s\"", phase_keys[key], index, phase_keys[slot->key]);
        CHECK(info->event == phases.ids[slot->key], "slot %zu is listed with event %u, not %u", index, info->event,
              phases.ids[slot->key]);
        CHECK(info->flags == (slot->flags & ~(uint32_t)DC_HANDLER_FIRST), "slot %zu is listed with flags 0x%x",
              index, info->flags);
    }
    CHECK(steady == 1, "the listing of \"%s\" has the steady handler %zu times", phase_keys[key], steady);
}

static void *run_lister(void *context) {
    lister *l = context;
    dc_table *table = phases.table;
    dc_handler_info infos[LISTING_CAPACITY];
    while (!atomic_load_explicit(l->stop, memory_order_relaxed) || l->listings < STRESS_MINIMUM_ROUNDS) {
        int key = l->listings % 2 ? KEY_SIZE : KEY_NOTIFY;
        size_t count = 0;
        dc_status status = dc_table_handlers(table, phase_keys[key], infos, LISTING_CAPACITY, &count);
        /* At most the steady handler and the slots not on "notify::title". */
        CHECK(status == DC_OK && count <= PHASE_SLOT_COUNT - 1, "dc_table_handlers(\"%s\") gave %s, %zu handlers",
              phase_keys[key], dc_status_name(status), count);
        if (status == DC_OK && count <= LISTING_CAPACITY) check_listing(key, infos, count);

        dc_handler_id found = 0;
        status = dc_table_find_handler(table, "notify", DC_FUNCTION(phase_handler), &phases.steady, &found);
        CHECK(status == DC_OK && found == phases.steady_id, "dc_table_find_handler of the steady handler gave %s",
              dc_status_name(status));
        /* A title slot, found or not: found, it says so itself unless gone since. */
        const phase_slot *title = &phases.slots[FIRST_TITLE_SLOT + l->listings % 2];
        status = dc_table_find_handler(table, "notify::title", DC_FUNCTION(phase_handler), title, &found);
        CHECK(status == DC_OK || status == DC_ERR_NOT_FOUND, "dc_table_find_handler of a title slot gave %s",
              dc_status_name(status));
        if (status == DC_OK) {
            dc_handler_info info;
            status = dc_table_handler_info(table, found, &info);
            CHECK(status == DC_ERR_NOT_FOUND ||
                      (status == DC_OK && info.target == title && info.event == phases.ids[KEY_TITLE]),
                  "dc_table_handler_info of a title slot found gave %s", dc_status_name(status));
        }
        /* The "notify::title" key never lists a "notify::size" handler. */
        status = dc_table_handlers(table, "notify::title", infos, LISTING_CAPACITY, &count);
        for (size_t i = 0; status == DC_OK && i < count && i < LISTING_CAPACITY; i++)
            CHECK(infos[i].event != phases.ids[KEY_SIZE], "the listing of \"notify::title\" has a size handler");
        l->listings++;
    }
    return NULL;
}

static void handler_listings_racing_adds_removes_and_executes_are_call_ordered_snapshots(void **state) {
    (void)state;
    create_phase_table();
    atomic_bool stop = false;
    phase_executor runner;
    start_phase_executor(&runner, KEY_SIZE, &stop);
    phase_mutator mutator = {.stop = &stop, .seed = 99u};
    assert_int_equal(pthread_create(&mutator.thread, NULL, run_phase_mutator, &mutator), 0);
    lister reader = {.stop = &stop};
    assert_int_equal(pthread_create(&reader.thread, NULL, run_lister, &reader), 0);
    usleep(STRESS_MILLISECONDS * 1000);
    atomic_store(&stop, true);
    assert_int_equal(pthread_join(mutator.thread, NULL), 0);
    assert_int_equal(pthread_join(reader.thread, NULL), 0);
    join_phase_executor(&runner);
    assert_no_failures();
    check_and_destroy_phase_table();
}

/* ---- two threads, each inside a hook or handler, removing the other's ----------------------- */

typedef enum crossing_kind { CROSSING_HOOK, CROSSING_HANDLER } crossing_kind;

typedef struct crossing crossing;

/* One side: a hook or handler on its own key, which its thread executes,
 * and which, once both sides are inside, removes the other side's. */
typedef struct crossing_side {
    crossing *crossing;
    int index;
    crossing_kind kind;
    const char *key;
    dc_hook_id hook;
    dc_handler_id handler;
    atomic_bool inside;
    atomic_int running;
    atomic_ulong calls;
    atomic_ulong destroys;
    atomic_ulong destroys_while_running;
    atomic_bool timed_out;
    atomic_bool finished;
    dc_status remove_status;
    dc_status execute_status;
    dc_result result;
    pthread_t thread;
} crossing_side;

struct crossing {
    dc_table *table;
    crossing_side sides[2];
};

static void cross(crossing_side *side) {
    crossing_side *other = &side->crossing->sides[1 - side->index];
    atomic_fetch_add(&side->running, 1);
    atomic_fetch_add(&side->calls, 1);
    atomic_store(&side->inside, true);
    if (!wait_for_flag(&other->inside, WAIT_MILLISECONDS)) atomic_store(&side->timed_out, true);
    dc_table *table = side->crossing->table;
    side->remove_status = other->kind == CROSSING_HOOK ? dc_table_remove_emission_hook(table, other->hook)
                                                       : dc_table_remove(table, other->handler);
    atomic_fetch_sub(&side->running, 1);
}

static bool crossing_hook(const dc_emission *emission, void *data) {
    (void)emission;
    cross(data);
    return true;
}

CALLEE static void crossing_handler(crossing_side *side) { cross(side); }

static void crossing_destroy(void *data) {
    crossing_side *side = data;
    atomic_fetch_add(&side->destroys, 1);
    if (atomic_load(&side->running) != 0) atomic_fetch_add(&side->destroys_while_running, 1);
}

static void *run_crossing_side(void *context) {
    crossing_side *side = context;
    side->execute_status = dc_table_execute(side->crossing->table, side->key, NULL, 0, &side->result);
    atomic_store(&side->finished, true);
    return NULL;
}

static void hooks_and_handlers_removing_each_other_from_inside_their_calls_on_two_threads_return(void **state) {
    (void)state;
    reset_failures();
    dc_table *table = create_table("crossing");
    dc_signature *signature = create_signature("v^v");
    static const char *const keys[2] = {"cross_a", "cross_b"};
    /* Hook and hook, handler and hook, hook and handler. */
    static const crossing_kind kinds[3][2] = {
        {CROSSING_HOOK, CROSSING_HOOK}, {CROSSING_HANDLER, CROSSING_HOOK}, {CROSSING_HOOK, CROSSING_HANDLER}};
    crossing *c = malloc(sizeof *c);
    assert_non_null(c);
    for (int round = 0; round < CROSSING_ROUNDS; round++) {
        memset(c, 0, sizeof *c);
        c->table = table;
        for (int i = 0; i < 2; i++) {
            crossing_side *side = &c->sides[i];
            side->crossing = c;
            side->index = i;
            side->kind = kinds[round % 3][i];
            side->key = keys[i];
            if (side->kind == CROSSING_HOOK) {
                assert_ok(dc_table_add_emission_hook(table, side->key, crossing_hook, side, crossing_destroy,
                                                     &side->hook));
            } else {
                dc_handler_options options = {.destroy = crossing_destroy, .destroy_data = side};
                assert_ok(dc_table_add(table, side->key, signature, DC_FUNCTION(crossing_handler), side, &options,
                                       &side->handler));
            }
        }
        for (int i = 0; i < 2; i++)
            assert_int_equal(pthread_create(&c->sides[i].thread, NULL, run_crossing_side, &c->sides[i]), 0);
        for (int i = 0; i < 2; i++) {
            if (!wait_for_flag(&c->sides[i].finished, 2 * WAIT_MILLISECONDS + 1000))
                fail_msg("round %d: the execute of \"%s\", whose %s removes the other side's %s, has not returned "
                         "(a deadlock)",
                         round, keys[i], c->sides[i].kind == CROSSING_HOOK ? "hook" : "handler",
                         c->sides[1 - i].kind == CROSSING_HOOK ? "hook" : "handler");
        }
        for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(c->sides[i].thread, NULL), 0);
        for (int i = 0; i < 2; i++) {
            crossing_side *side = &c->sides[i];
            if (atomic_load(&side->timed_out)) fail_msg("round %d: side %d never saw the other inside", round, i);
            assert_ok(side->execute_status);
            assert_ok(side->remove_status);
            assert_int_equal(atomic_load(&side->calls), 1);
            assert_int_equal(side->result.handled, side->kind == CROSSING_HANDLER ? 1 : 0);
            if (atomic_load(&side->destroys) != 1)
                fail_msg("round %d: side %d's destroy notify ran %lu times by the time both executes returned", round,
                         i, atomic_load(&side->destroys));
            if (atomic_load(&side->destroys_while_running) != 0)
                fail_msg("round %d: side %d's destroy notify ran while its call was running", round, i);
            if (side->kind == CROSSING_HOOK)
                assert_int_equal(dc_table_remove_emission_hook(table, side->hook), DC_ERR_NOT_FOUND);
            else
                assert_false(dc_table_contains(table, side->handler));
        }
    }
    assert_no_failures();
    dc_table_destroy(table);
    free(c);
    dc_signature_release(signature);
}

/* ---- a table destroyed from inside a hook while another thread executes ---------------------- */

typedef enum doom_variant {
    DOOM_BYSTANDER_IN_HANDLER, /* the other thread is inside a handler */
    DOOM_BYSTANDER_IN_HOOK,    /* the other thread is inside the same hook */
    DOOM_DESTROYED_TWICE,      /* the other thread's handler destroys the table too */
    DOOM_VARIANTS
} doom_variant;

typedef struct doom {
    dc_table *table;
    doom_variant variant;
    atomic_bool bystander_inside;
    atomic_bool destroying;       /* up just before the destroyer calls dc_table_destroy */
    atomic_bool destroy_returned; /* up once it has returned */
    atomic_bool timed_out;
    atomic_int hook_running;
    atomic_ulong hook_calls;
    atomic_ulong hook_destroys;
    atomic_ulong hook_destroys_while_running_elsewhere;
    atomic_ulong handler_calls;
    atomic_ulong late_handler_calls;
    atomic_ulong handler_destroys;
    atomic_ulong observer_removals;
    atomic_ulong observer_destroys;
    /* threads[0] destroys the table from inside the hook; threads[1] is the bystander. */
    struct doom_thread {
        pthread_t thread;
        struct doom *doom;
        bool destroyer;
        dc_status status;
        dc_result result;
        size_t calls_seen;
        atomic_bool finished;
    } threads[2];
} doom;

static _Thread_local bool destroyer_here;
static _Thread_local int doom_hook_calls_here; /* running on this thread */
static _Thread_local size_t doom_calls_seen;

static bool doom_hook(const dc_emission *emission, void *data) {
    (void)emission;
    doom *d = data;
    atomic_fetch_add(&d->hook_running, 1);
    doom_hook_calls_here++;
    atomic_fetch_add(&d->hook_calls, 1);
    if (destroyer_here) {
        atomic_store(&d->destroying, true);
        dc_table_destroy(d->table);
        atomic_store(&d->destroy_returned, true);
    } else if (d->variant == DOOM_BYSTANDER_IN_HOOK) {
        atomic_store(&d->bystander_inside, true);
        if (!wait_for_flag(&d->destroying, WAIT_MILLISECONDS)) atomic_store(&d->timed_out, true);
        linger(&d->destroy_returned, 2000);
    }
    doom_hook_calls_here--;
    atomic_fetch_sub(&d->hook_running, 1);
    return true;
}

static void doom_hook_destroy(void *data) {
    doom *d = data;
    atomic_fetch_add(&d->hook_destroys, 1);
    /* The destroyer's own call may be running: the notify runs inside it. */
    if (atomic_load(&d->hook_running) != doom_hook_calls_here)
        atomic_fetch_add(&d->hook_destroys_while_running_elsewhere, 1);
}

CALLEE static void doom_handler(doom *d) {
    /* A destroy that has returned removed every handler, on every thread. */
    if (atomic_load(&d->destroy_returned) && d->variant != DOOM_DESTROYED_TWICE)
        atomic_fetch_add(&d->late_handler_calls, 1);
    atomic_fetch_add(&d->handler_calls, 1);
    doom_calls_seen++;
    if (!destroyer_here && d->variant != DOOM_BYSTANDER_IN_HOOK && !atomic_load(&d->bystander_inside)) {
        atomic_store(&d->bystander_inside, true);
        if (!wait_for_flag(&d->destroying, WAIT_MILLISECONDS)) atomic_store(&d->timed_out, true);
        if (d->variant == DOOM_DESTROYED_TWICE) dc_table_destroy(d->table);
        linger(&d->destroy_returned, 2000);
    }
}

CALLEE static void doom_handler_too(doom *d) { doom_handler(d); }

static void count_doom_handler_destroy(void *data) {
    doom *d = data;
    atomic_fetch_add(&d->handler_destroys, 1);
}

static void doom_observer(void *data, dc_table *table, dc_table_change change, dc_event_id event,
                          dc_handler_id handler) {
    (void)table, (void)event, (void)handler;
    doom *d = data;
    if (change == DC_HANDLER_REMOVED) atomic_fetch_add(&d->observer_removals, 1);
}

static void count_doom_observer_destroy(void *data) {
    doom *d = data;
    atomic_fetch_add(&d->observer_destroys, 1);
}

static void *run_doom_thread(void *context) {
    struct doom_thread *me = context;
    doom *d = me->doom;
    destroyer_here = me->destroyer;
    doom_calls_seen = 0;
    /* The destroyer's execute begins once the bystander's is inside the table:
     * an execute may not begin once the destroy is called. */
    if (destroyer_here && !wait_for_flag(&d->bystander_inside, WAIT_MILLISECONDS))
        atomic_store(&d->timed_out, true);
    me->status = dc_table_execute(d->table, "doom", NULL, 0, &me->result);
    me->calls_seen = doom_calls_seen;
    atomic_store(&me->finished, true);
    return NULL;
}

static void table_destroyed_from_inside_a_hook_outlives_the_executes_running_in_it(void **state) {
    (void)state;
    reset_failures();
    dc_signature *signature = create_signature("v^v");
    doom *d = malloc(sizeof *d);
    assert_non_null(d);
    for (int round = 0; round < DOOM_ROUNDS; round++) {
        memset(d, 0, sizeof *d);
        d->variant = (doom_variant)(round % DOOM_VARIANTS);
        d->table = create_table("doomed");
        assert_ok(dc_table_add_emission_hook(d->table, round % 2 ? "doom" : NULL, doom_hook, d, doom_hook_destroy,
                                             NULL));
        dc_handler_options options = {.destroy = count_doom_handler_destroy, .destroy_data = d};
        assert_ok(dc_table_add(d->table, "doom", signature, DC_FUNCTION(doom_handler), d, &options, NULL));
        assert_ok(dc_table_add(d->table, "doom", signature, DC_FUNCTION(doom_handler_too), d, &options, NULL));
        assert_ok(dc_table_set_observer(d->table, doom_observer, d, count_doom_observer_destroy));

        /* The bystander (thread 1) starts first; the destroyer waits for it. */
        d->threads[0].destroyer = true;
        d->threads[0].doom = d->threads[1].doom = d;
        assert_int_equal(pthread_create(&d->threads[1].thread, NULL, run_doom_thread, &d->threads[1]), 0);
        assert_int_equal(pthread_create(&d->threads[0].thread, NULL, run_doom_thread, &d->threads[0]), 0);
        for (int i = 0; i < 2; i++)
            if (!wait_for_flag(&d->threads[i].finished, 2 * WAIT_MILLISECONDS + 1000))
                fail_msg("round %d: the %s's execute has not returned (a deadlock)", round,
                         i == 0 ? "destroyer" : "bystander");
        for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(d->threads[i].thread, NULL), 0);

        /* The table is gone now; what it did is in the counts. */
        if (atomic_load(&d->timed_out)) fail_msg("round %d: a thread waited in vain for the other", round);
        for (int i = 0; i < 2; i++) {
            assert_ok(d->threads[i].status);
            assert_int_equal(d->threads[i].result.handled, d->threads[i].calls_seen);
        }
        if (d->variant != DOOM_DESTROYED_TWICE) {
            if (d->threads[0].result.handled != 0)
                fail_msg("round %d: the execute whose hook destroyed the table went on to call %zu handlers", round,
                         d->threads[0].result.handled);
            if (atomic_load(&d->late_handler_calls) != 0)
                fail_msg("round %d: %lu handler calls began after dc_table_destroy returned", round,
                         atomic_load(&d->late_handler_calls));
        }
        assert_true(d->threads[1].calls_seen >= (d->variant == DOOM_BYSTANDER_IN_HOOK ? 0u : 1u));
        if (atomic_load(&d->hook_destroys) != 1)
            fail_msg("round %d: the hook's destroy notify ran %lu times", round, atomic_load(&d->hook_destroys));
        if (atomic_load(&d->hook_destroys_while_running_elsewhere) != 0)
            fail_msg("round %d: the hook's destroy notify ran while another thread's call of it was running", round);
        if (atomic_load(&d->handler_destroys) != 2)
            fail_msg("round %d: the handlers' destroy notifies ran %lu times, not once each", round,
                     atomic_load(&d->handler_destroys));
        if (atomic_load(&d->observer_destroys) != 1)
            fail_msg("round %d: the observer's destroy notify ran %lu times", round,
                     atomic_load(&d->observer_destroys));
        if (atomic_load(&d->observer_removals) != 0)
            fail_msg("round %d: the observer was told of %lu removals by the table's destroy", round,
                     atomic_load(&d->observer_removals));
    }
    assert_no_failures();
    free(d);
    dc_signature_release(signature);
}

int main(void) {
    alarm(WATCHDOG_SECONDS); /* a hang ends the process (and fails make test-c) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hook_removed_while_two_threads_execute_is_never_called_after_its_remove_returns),
        cmocka_unit_test(hook_returning_false_on_three_threads_at_once_is_removed_once_and_not_called_again),
        cmocka_unit_test(executes_that_start_after_a_hook_is_added_call_it_and_none_after_its_removal),
        cmocka_unit_test(replaced_observer_is_never_called_after_set_observer_returns),
        cmocka_unit_test(every_add_and_remove_is_told_to_an_observer_while_observers_are_replaced),
        cmocka_unit_test(observers_adding_and_removing_handlers_from_inside_their_calls_on_two_threads),
        cmocka_unit_test(detailed_and_plain_executes_racing_adds_and_removes_call_their_handlers_phase_by_phase),
        cmocka_unit_test(handler_listings_racing_adds_removes_and_executes_are_call_ordered_snapshots),
        cmocka_unit_test(hooks_and_handlers_removing_each_other_from_inside_their_calls_on_two_threads_return),
        cmocka_unit_test(table_destroyed_from_inside_a_hook_outlives_the_executes_running_in_it),
    };
    return cmocka_run_group_tests_name("hook threads", tests, NULL, NULL);
}
