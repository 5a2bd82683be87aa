/*
 * test_table_threads.c — one table used from several threads at once.
 *
 * Threads execute an event while others add, remove, block and unblock its
 * handlers; every call is counted with atomics, and the counts are checked
 * exactly wherever they can be known: every execute's result.handled equals the
 * calls its own thread saw, a handler registered throughout runs once per
 * execute, and every destroy notify runs once per add. A handler whose removal
 * (or block) has returned is never called again: the remover raises a flag as
 * soon as dc_table_remove returns, and a call that starts, or is still running,
 * once the flag is up is a violation. Once-handlers raced by several threads run
 * exactly once; removals racing a thread's first executes are never late
 * either; concurrent interns of the same names agree; two executes of one
 * event have their handlers running at the same time, which proves no lock is
 * held while handlers run.
 *
 * cmocka's assertions belong to the main thread, so other threads count what
 * went wrong and the main thread asserts on the counts. Waits have deadlines, so
 * a deadlock is a failed assertion rather than a hung test; an alarm ends the
 * process if something hangs anyway.
 */
#include "test_support.h"
#include "thread_support.h"

#include "dispatch_core_inline.h" /* dc__asymmetric_fences */

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum {
    STRESS_MILLISECONDS = 400,
    /* Each stress thread keeps going past the stop flag until it has done this
     * many rounds: under valgrind, which runs one thread at a time, a thread
     * may otherwise not be scheduled at all before the flag is set. */
    STRESS_MINIMUM_ROUNDS = 200,
    SLOT_COUNT = 8,
    EXECUTOR_COUNT = 2,
    MUTATOR_COUNT = 2,
    ONCE_ROUNDS = 300,
    ONCE_RACERS = 3,
    INTERN_THREADS = 4,
    INTERN_NAMES = 2000,
    INTERN_ROUNDS = 4,
    MEETING_ROUNDS = 300,
    LATE_READER_ROUNDS = 100,
    LATE_READER_HANDLERS = 64,
    WAIT_MILLISECONDS = 2000,
    WATCHDOG_SECONDS = 60
};

static void sleep_ms(long milliseconds) {
    struct timespec ts = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- executes racing adds, removes and blocks ------------------------------------ */

/* A thread executing the event; handlers it runs count into calls_seen, which
 * only this thread touches (no handler here has a queue). */
typedef struct executor {
    pthread_t thread;
    dc_table *table;
    dc_event_id event;
    bool by_key;
    atomic_bool *stop;
    size_t calls_seen;
    uint64_t executes;
    uint64_t handled_total;
    uint64_t handled_mismatches;
    uint64_t failed_executes;
    dc_status first_failure;
} executor;

/*
 * One handler position a mutator adds and removes over and over. `off` is up
 * while the handler must not be called: from the moment its remove or block
 * returned until just before it is added again or its last unblock.
 */
typedef struct slot {
    atomic_bool off;
    atomic_ulong calls;
    atomic_ulong adds;
    atomic_ulong destroys;
    atomic_ulong calls_after_off;     /* began with off up */
    atomic_ulong calls_outliving_off; /* were still running when off went up */
} slot;

static atomic_ulong steady_calls;

CALLEE static void steady_handler(executor *who) {
    atomic_fetch_add(&steady_calls, 1);
    who->calls_seen++;
}

CALLEE static void guarded_handler(slot *s, executor *who) {
    if (atomic_load(&s->off)) {
        atomic_fetch_add(&s->calls_after_off, 1);
    }
    atomic_fetch_add(&s->calls, 1);
    who->calls_seen++;
    /* Stay a little while, so removes and blocks often meet a running call. */
    for (int i = 0; i < 200 && !atomic_load_explicit(&s->off, memory_order_relaxed); i++) {
        atomic_signal_fence(memory_order_seq_cst);
    }
    if (atomic_load(&s->off)) {
        atomic_fetch_add(&s->calls_outliving_off, 1);
    }
}

static void count_slot_destroy(void *data) {
    slot *s = data;
    atomic_fetch_add(&s->destroys, 1);
}

static void *run_executor(void *context) {
    executor *e = context;
    const dc_value arguments[] = {dc_pointer(e)};
    while (!atomic_load_explicit(e->stop, memory_order_relaxed) ||
           e->executes + e->failed_executes < STRESS_MINIMUM_ROUNDS) {
        size_t before = e->calls_seen;
        dc_result result;
        dc_status status =
            e->by_key ? dc_table_execute(e->table, "stress", arguments, 1, &result)
                      : dc_table_execute_id(e->table, e->event, arguments, 1, &result);
        if (status != DC_OK) {
            if (e->failed_executes++ == 0) {
                e->first_failure = status;
            }
            continue;
        }
        e->executes++;
        e->handled_total += result.handled;
        if (result.handled != e->calls_seen - before) {
            e->handled_mismatches++;
        }
    }
    return NULL;
}

typedef enum slot_state { SLOT_ABSENT, SLOT_PRESENT, SLOT_BLOCKED } slot_state;

typedef struct mutator {
    pthread_t thread;
    dc_table *table;
    dc_event_id event;
    dc_signature *signature;
    slot *slots;
    size_t slot_count;
    unsigned seed;
    atomic_bool *stop;
    uint64_t operations;
    char failure[256];
} mutator;

#define MUTATOR_CHECK(m, condition, ...)                                                 \
    do {                                                                                 \
        if (!(condition) && (m)->failure[0] == '\0') {                                   \
            snprintf((m)->failure, sizeof (m)->failure, __VA_ARGS__);                    \
        }                                                                                \
    } while (0)

static void *run_mutator(void *context) {
    mutator *m = context;
    dc_handler_id ids[SLOT_COUNT] = {0};
    slot_state states[SLOT_COUNT] = {SLOT_ABSENT};
    unsigned block_depths[SLOT_COUNT] = {0};

    while ((!atomic_load_explicit(m->stop, memory_order_relaxed) ||
            m->operations < STRESS_MINIMUM_ROUNDS) &&
           m->failure[0] == '\0') {
        size_t index = (size_t)rand_r(&m->seed) % m->slot_count;
        unsigned choice = (unsigned)rand_r(&m->seed) % 4;
        slot *s = &m->slots[index];
        dc_status status;
        switch (states[index]) {
        case SLOT_ABSENT: {
            atomic_store(&s->off, false);
            dc_handler_options options = {.destroy = count_slot_destroy, .destroy_data = s};
            status = dc_table_add_id(m->table, m->event, m->signature,
                                     DC_FUNCTION(guarded_handler), s, &options, &ids[index]);
            MUTATOR_CHECK(m, status == DC_OK, "dc_table_add_id gave %s (%s)",
                          dc_status_name(status), dc_last_error_message());
            atomic_fetch_add(&s->adds, 1);
            states[index] = SLOT_PRESENT;
            break;
        }
        case SLOT_PRESENT:
            if (choice == 0) {
                size_t removed = 0;
                status = dc_table_remove_target(m->table, s, &removed);
                atomic_store(&s->off, true);
                MUTATOR_CHECK(m, status == DC_OK && removed == 1,
                              "dc_table_remove_target gave %s, %zu removed",
                              dc_status_name(status), removed);
                states[index] = SLOT_ABSENT;
            } else if (choice == 1) {
                status = dc_table_remove(m->table, ids[index]);
                atomic_store(&s->off, true);
                MUTATOR_CHECK(m, status == DC_OK, "dc_table_remove gave %s",
                              dc_status_name(status));
                states[index] = SLOT_ABSENT;
            } else {
                status = dc_table_block(m->table, ids[index]);
                atomic_store(&s->off, true);
                MUTATOR_CHECK(m, status == DC_OK, "dc_table_block gave %s",
                              dc_status_name(status));
                block_depths[index] = 1;
                states[index] = SLOT_BLOCKED;
            }
            if (states[index] == SLOT_ABSENT) {
                MUTATOR_CHECK(m, atomic_load(&s->destroys) == atomic_load(&s->adds),
                              "a remove returned before the handler's destroy notify ran");
                MUTATOR_CHECK(m, !dc_table_contains(m->table, ids[index]),
                              "dc_table_contains is true after the handler was removed");
            }
            break;
        case SLOT_BLOCKED:
            if (choice == 0) {
                status = dc_table_remove(m->table, ids[index]);
                MUTATOR_CHECK(m, status == DC_OK, "dc_table_remove of a blocked handler gave %s",
                              dc_status_name(status));
                block_depths[index] = 0;
                states[index] = SLOT_ABSENT;
            } else if (choice == 1 && block_depths[index] < 3) {
                status = dc_table_block(m->table, ids[index]);
                MUTATOR_CHECK(m, status == DC_OK, "a second dc_table_block gave %s",
                              dc_status_name(status));
                block_depths[index]++;
            } else {
                if (block_depths[index] == 1) {
                    atomic_store(&s->off, false);
                }
                status = dc_table_unblock(m->table, ids[index]);
                MUTATOR_CHECK(m, status == DC_OK, "dc_table_unblock gave %s",
                              dc_status_name(status));
                if (--block_depths[index] == 0) {
                    states[index] = SLOT_PRESENT;
                }
            }
            break;
        }
        m->operations++;
    }
    return NULL;
}

static void executes_race_adds_removes_and_blocks_with_exact_counts_and_no_late_calls(
    void **state) {
    (void)state;
    dc_table *table = create_table("threads");
    dc_signature *steady_signature = create_signature("v^v");
    dc_signature *guarded_signature = create_signature("v^v^v");
    dc_event_id event = 0;
    assert_ok(dc_table_intern(table, "stress", &event));
    atomic_store(&steady_calls, 0);
    assert_ok(dc_table_add_id(table, event, steady_signature, DC_FUNCTION(steady_handler), NULL,
                              NULL, NULL));

    slot slots[SLOT_COUNT];
    memset(slots, 0, sizeof slots);
    for (size_t i = 0; i < SLOT_COUNT; i++) {
        atomic_store(&slots[i].off, true);
    }

    atomic_bool stop = false;
    executor executors[EXECUTOR_COUNT];
    mutator mutators[MUTATOR_COUNT];
    for (int i = 0; i < EXECUTOR_COUNT; i++) {
        executors[i] = (executor){.table = table, .event = event, .by_key = i % 2 == 1,
                                  .stop = &stop};
        assert_int_equal(pthread_create(&executors[i].thread, NULL, run_executor, &executors[i]), 0);
    }
    for (int i = 0; i < MUTATOR_COUNT; i++) {
        mutators[i] = (mutator){.table = table, .event = event,
                                .signature = guarded_signature,
                                .slots = slots + i * (SLOT_COUNT / MUTATOR_COUNT),
                                .slot_count = SLOT_COUNT / MUTATOR_COUNT,
                                .seed = 12345u + (unsigned)i, .stop = &stop};
        assert_int_equal(pthread_create(&mutators[i].thread, NULL, run_mutator, &mutators[i]), 0);
    }
    sleep_ms(STRESS_MILLISECONDS);
    atomic_store(&stop, true);

    uint64_t executes = 0, handled = 0;
    for (int i = 0; i < EXECUTOR_COUNT; i++) {
        assert_int_equal(pthread_join(executors[i].thread, NULL), 0);
        if (executors[i].failed_executes != 0) {
            fail_msg("an execute failed with %s", dc_status_name(executors[i].first_failure));
        }
        assert_int_equal(executors[i].handled_mismatches, 0);
        assert_true(executors[i].executes > 0);
        executes += executors[i].executes;
        handled += executors[i].handled_total;
    }
    uint64_t operations = 0;
    for (int i = 0; i < MUTATOR_COUNT; i++) {
        assert_int_equal(pthread_join(mutators[i].thread, NULL), 0);
        if (mutators[i].failure[0] != '\0') {
            fail_msg("mutator %d: %s", i, mutators[i].failure);
        }
        operations += mutators[i].operations;
    }
    assert_true(operations > 0);

    uint64_t guarded_calls = 0;
    for (size_t i = 0; i < SLOT_COUNT; i++) {
        guarded_calls += atomic_load(&slots[i].calls);
        if (atomic_load(&slots[i].calls_after_off) != 0) {
            fail_msg("slot %zu: %lu calls began after remove or block returned", i,
                     atomic_load(&slots[i].calls_after_off));
        }
        if (atomic_load(&slots[i].calls_outliving_off) != 0) {
            fail_msg("slot %zu: remove or block returned while %lu calls were still running", i,
                     atomic_load(&slots[i].calls_outliving_off));
        }
    }
    assert_int_equal(atomic_load(&steady_calls), executes);
    assert_int_equal(steady_calls + guarded_calls, handled);

    dc_table_destroy(table);
    for (size_t i = 0; i < SLOT_COUNT; i++) {
        assert_int_equal(atomic_load(&slots[i].destroys), atomic_load(&slots[i].adds));
    }
    dc_signature_release(steady_signature);
    dc_signature_release(guarded_signature);
}

/* ---- a thread that begins reading while removals are under way ------------------ */

/*
 * While no other thread reads the table, a removal may leave its handler's
 * array entry for later (removal.c, "removing"). Here a thread makes its
 * first execute of the table while one thread removes the event's handlers
 * one by one, some before it started and some while it starts: it never
 * calls a handler whose remove has returned, no remove returns while a call
 * of its handler runs, its results count exactly the calls it saw, and
 * every destroy notify runs once.
 */
static void removals_racing_a_thread_that_begins_to_execute_are_never_late(void **state) {
    (void)state;
    dc_signature *signature = create_signature("v^v^v");
    slot slots[LATE_READER_HANDLERS];
    uint64_t executes = 0;
    for (int round = 0; round < LATE_READER_ROUNDS; round++) {
        dc_table *table = create_table("late reader");
        dc_event_id event = 0;
        assert_ok(dc_table_intern(table, "stress", &event));
        memset(slots, 0, sizeof slots);
        dc_handler_id ids[LATE_READER_HANDLERS];
        for (size_t i = 0; i < LATE_READER_HANDLERS; i++) {
            dc_handler_options options = {.destroy = count_slot_destroy, .destroy_data = &slots[i]};
            assert_ok(dc_table_add_id(table, event, signature, DC_FUNCTION(guarded_handler), &slots[i], &options,
                                      &ids[i]));
            atomic_store(&slots[i].adds, 1);
        }
        /* A different handler to start from each round. */
        size_t first = (size_t)round * 7 % LATE_READER_HANDLERS;
        atomic_bool stop = false;
        executor reader = {.table = table, .event = event, .stop = &stop};
        for (size_t k = 0; k < LATE_READER_HANDLERS; k++) {
            if (k == LATE_READER_HANDLERS / 4)
                assert_int_equal(pthread_create(&reader.thread, NULL, run_executor, &reader), 0);
            size_t i = (first + k) % LATE_READER_HANDLERS;
            assert_ok(dc_table_remove(table, ids[i]));
            atomic_store(&slots[i].off, true);
            if (atomic_load(&slots[i].destroys) != 1)
                fail_msg("round %d: handler %zu's remove returned before its destroy notify ran", round, i);
        }
        atomic_store(&stop, true);
        assert_int_equal(pthread_join(reader.thread, NULL), 0);
        if (reader.failed_executes != 0)
            fail_msg("an execute failed with %s", dc_status_name(reader.first_failure));
        assert_int_equal(reader.handled_mismatches, 0);
        executes += reader.executes;
        for (size_t i = 0; i < LATE_READER_HANDLERS; i++) {
            if (atomic_load(&slots[i].calls_after_off) != 0 || atomic_load(&slots[i].calls_outliving_off) != 0)
                fail_msg("round %d, handler %zu: %lu calls began after its remove returned, %lu outlived it", round,
                         i, atomic_load(&slots[i].calls_after_off), atomic_load(&slots[i].calls_outliving_off));
        }
        dc_table_destroy(table);
        for (size_t i = 0; i < LATE_READER_HANDLERS; i++) assert_int_equal(atomic_load(&slots[i].destroys), 1);
    }
    assert_true(executes >= (uint64_t)LATE_READER_ROUNDS * STRESS_MINIMUM_ROUNDS);
    dc_signature_release(signature);
}

/* ---- a remove or block from another thread waits for a running call ---------- */

typedef struct held_call {
    atomic_bool entered;
    atomic_bool release;
    atomic_bool change_returned;
    atomic_bool timed_out;
    atomic_ulong calls;
    atomic_ulong calls_outliving_change;
} held_call;

CALLEE static void held_handler(held_call *h) {
    atomic_fetch_add(&h->calls, 1);
    atomic_store(&h->entered, true);
    if (!wait_for_flag(&h->release, WAIT_MILLISECONDS)) {
        atomic_store(&h->timed_out, true);
    }
    if (atomic_load(&h->change_returned)) {
        atomic_fetch_add(&h->calls_outliving_change, 1);
    }
}

typedef struct held_execute {
    pthread_t thread;
    dc_table *table;
    dc_status status;
    dc_result result;
} held_execute;

static void *run_held_execute(void *context) {
    held_execute *x = context;
    x->status = dc_table_execute(x->table, "held", NULL, 0, &x->result);
    return NULL;
}

typedef enum handler_change { CHANGE_REMOVE, CHANGE_REMOVE_TARGET, CHANGE_BLOCK } handler_change;

typedef struct held_change {
    pthread_t thread;
    dc_table *table;
    dc_handler_id id;
    held_call *call;
    handler_change change;
    dc_status status;
} held_change;

static void *run_held_change(void *context) {
    held_change *c = context;
    switch (c->change) {
    case CHANGE_REMOVE: c->status = dc_table_remove(c->table, c->id); break;
    case CHANGE_REMOVE_TARGET: c->status = dc_table_remove_target(c->table, c->call, NULL); break;
    default: c->status = dc_table_block(c->table, c->id); break;
    }
    atomic_store(&c->call->change_returned, true);
    return NULL;
}

static void check_change_waits_for_running_call(handler_change change) {
    dc_table *table = create_table("held");
    dc_signature *signature = create_signature("v^v");
    held_call call = {0};
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, "held", signature, DC_FUNCTION(held_handler), &call, NULL, &id));

    held_execute execute = {.table = table};
    assert_int_equal(pthread_create(&execute.thread, NULL, run_held_execute, &execute), 0);
    assert_true(wait_for_flag(&call.entered, WAIT_MILLISECONDS));

    held_change changer = {.table = table, .id = id, .call = &call, .change = change};
    assert_int_equal(pthread_create(&changer.thread, NULL, run_held_change, &changer), 0);
    sleep_ms(100);
    bool returned_early = atomic_load(&call.change_returned);
    atomic_store(&call.release, true);
    assert_int_equal(pthread_join(execute.thread, NULL), 0);
    assert_int_equal(pthread_join(changer.thread, NULL), 0);

    assert_false(atomic_load(&call.timed_out));
    if (returned_early) {
        fail_msg("the %s returned while a call of the handler was still running",
                 change == CHANGE_BLOCK ? "block" : "remove");
    }
    assert_int_equal(atomic_load(&call.calls_outliving_change), 0);
    assert_ok(changer.status);
    assert_ok(execute.status);
    assert_int_equal(execute.result.handled, 1);

    dc_result result;
    assert_ok(dc_table_execute(table, "held", NULL, 0, &result));
    assert_int_equal(result.handled, 0);
    assert_int_equal(atomic_load(&call.calls), 1);
    dc_table_destroy(table);
    dc_signature_release(signature);
}

static void remove_on_another_thread_returns_after_the_running_call(void **state) {
    (void)state;
    check_change_waits_for_running_call(CHANGE_REMOVE);
}

static void remove_target_on_another_thread_returns_after_the_running_call(void **state) {
    (void)state;
    check_change_waits_for_running_call(CHANGE_REMOVE_TARGET);
}

static void block_on_another_thread_returns_after_the_running_call(void **state) {
    (void)state;
    check_change_waits_for_running_call(CHANGE_BLOCK);
}

/* ---- once-handlers raced by several executing threads --------------------------- */

typedef struct once_race {
    dc_table *table;
    dc_event_id event;
    pthread_barrier_t start;
    pthread_barrier_t finish;
    atomic_ulong handled;
    atomic_ulong failed_executes;
} once_race;

static atomic_ulong once_calls, once_destroys;
static atomic_int once_arrivals; /* racers that have reached their execute this round */

/* Stays until every racer has reached its execute (or a few milliseconds have
 * passed), so the other executes meet the once-handler while it is running. */
CALLEE static void once_handler(void) {
    atomic_fetch_add(&once_calls, 1);
    uint64_t deadline = deadline_after_ms(5);
    while (atomic_load(&once_arrivals) < ONCE_RACERS && now_ns() < deadline) {
        sched_yield();
    }
}

static void count_once_destroy(void *data) {
    (void)data;
    atomic_fetch_add(&once_destroys, 1);
}

static void *run_once_racer(void *context) {
    once_race *race = context;
    for (int round = 0; round < ONCE_ROUNDS; round++) {
        pthread_barrier_wait(&race->start);
        atomic_fetch_add(&once_arrivals, 1);
        dc_result result;
        if (dc_table_execute_id(race->table, race->event, NULL, 0, &result) == DC_OK) {
            atomic_fetch_add(&race->handled, result.handled);
        } else {
            atomic_fetch_add(&race->failed_executes, 1);
        }
        pthread_barrier_wait(&race->finish);
    }
    return NULL;
}

static void once_handler_raced_by_executing_threads_runs_exactly_once(void **state) {
    (void)state;
    once_race race = {.table = create_table("once")};
    dc_signature *signature = create_signature("v");
    assert_ok(dc_table_intern(race.table, "fire", &race.event));
    assert_int_equal(pthread_barrier_init(&race.start, NULL, ONCE_RACERS + 1), 0);
    assert_int_equal(pthread_barrier_init(&race.finish, NULL, ONCE_RACERS + 1), 0);
    atomic_store(&once_calls, 0);
    atomic_store(&once_destroys, 0);

    pthread_t racers[ONCE_RACERS];
    for (int i = 0; i < ONCE_RACERS; i++) {
        assert_int_equal(pthread_create(&racers[i], NULL, run_once_racer, &race), 0);
    }
    /* Failures are recorded, not asserted, until the racers are done. */
    int first_bad_round = -1;
    char what[160] = "";
    for (int round = 0; round < ONCE_ROUNDS; round++) {
        dc_handler_id id = 0;
        dc_handler_options options = {.flags = DC_HANDLER_ONCE, .destroy = count_once_destroy};
        dc_status status = dc_table_add_id(race.table, race.event, signature,
                                           DC_FUNCTION(once_handler), NULL, &options, &id);
        atomic_store(&once_arrivals, 0);
        pthread_barrier_wait(&race.start);
        pthread_barrier_wait(&race.finish);
        unsigned long expected = (unsigned long)round + 1;
        size_t left = 99;
        dc_table_handler_count_id(race.table, race.event, &left);
        if (first_bad_round < 0) {
            if (status != DC_OK) {
                snprintf(what, sizeof what, "dc_table_add_id gave %s", dc_status_name(status));
            } else if (atomic_load(&once_calls) != expected) {
                snprintf(what, sizeof what, "%lu calls, expected %lu", atomic_load(&once_calls),
                         expected);
            } else if (atomic_load(&race.handled) != expected) {
                snprintf(what, sizeof what, "results report %lu handled, expected %lu",
                         atomic_load(&race.handled), expected);
            } else if (atomic_load(&once_destroys) != expected) {
                snprintf(what, sizeof what, "%lu destroy notifies, expected %lu",
                         atomic_load(&once_destroys), expected);
            } else if (dc_table_contains(race.table, id) || left != 0) {
                snprintf(what, sizeof what, "the once-handler is still registered");
            }
            if (what[0] != '\0') {
                first_bad_round = round;
            }
        }
    }
    for (int i = 0; i < ONCE_RACERS; i++) {
        assert_int_equal(pthread_join(racers[i], NULL), 0);
    }
    if (first_bad_round >= 0) {
        fail_msg("round %d: %s", first_bad_round, what);
    }
    assert_int_equal(atomic_load(&race.failed_executes), 0);
    pthread_barrier_destroy(&race.start);
    pthread_barrier_destroy(&race.finish);
    dc_table_destroy(race.table);
    dc_signature_release(signature);
}

/* ---- concurrent interning ------------------------------------------------------- */

typedef struct interner {
    pthread_t thread;
    dc_table *table;
    int index;
    pthread_barrier_t *start;
    dc_event_id ids[INTERN_NAMES];
    uint64_t failures;
} interner;

static void intern_name(int n, char *buffer, size_t size) {
    snprintf(buffer, size, "event.%d.name", n);
}

static void *run_interner(void *context) {
    interner *in = context;
    pthread_barrier_wait(in->start);
    for (int i = 0; i < INTERN_NAMES; i++) {
        /* Even threads walk up from their own offset, odd ones walk down. */
        int step = in->index * (INTERN_NAMES / INTERN_THREADS);
        int n = in->index % 2 == 0 ? (i + step) % INTERN_NAMES
                                   : INTERN_NAMES - 1 - (i + step) % INTERN_NAMES;
        char name[32];
        intern_name(n, name, sizeof name);
        if (dc_table_intern(in->table, name, &in->ids[n]) != DC_OK) {
            in->failures++;
        }
    }
    return NULL;
}

static void concurrent_interns_of_the_same_names_give_the_same_ids(void **state) {
    (void)state;
    static interner interners[INTERN_THREADS];
    for (int round = 0; round < INTERN_ROUNDS; round++) {
        dc_table *table = create_table("interns");
        pthread_barrier_t start;
        assert_int_equal(pthread_barrier_init(&start, NULL, INTERN_THREADS), 0);
        for (int i = 0; i < INTERN_THREADS; i++) {
            memset(&interners[i], 0, sizeof interners[i]);
            interners[i].table = table;
            interners[i].index = i;
            interners[i].start = &start;
            assert_int_equal(pthread_create(&interners[i].thread, NULL, run_interner,
                                            &interners[i]), 0);
        }
        for (int i = 0; i < INTERN_THREADS; i++) {
            assert_int_equal(pthread_join(interners[i].thread, NULL), 0);
            assert_int_equal(interners[i].failures, 0);
        }
        pthread_barrier_destroy(&start);

        static bool seen[INTERN_NAMES + 1];
        memset(seen, 0, sizeof seen);
        for (int n = 0; n < INTERN_NAMES; n++) {
            dc_event_id id = interners[0].ids[n];
            for (int i = 1; i < INTERN_THREADS; i++) {
                if (interners[i].ids[n] != id) {
                    fail_msg("round %d, name %d: thread 0 got id %u, thread %d got %u", round, n,
                             id, i, interners[i].ids[n]);
                }
            }
            /* Ids are dense from 1. */
            assert_in_range(id, 1, INTERN_NAMES);
            assert_false(seen[id]);
            seen[id] = true;
            char name[32];
            intern_name(n, name, sizeof name);
            const char *stored = NULL;
            assert_ok(dc_table_event_name(table, id, &stored));
            assert_string_equal(stored, name);
            dc_event_id again = 0;
            assert_ok(dc_table_intern(table, name, &again));
            assert_int_equal(again, id);
        }
        dc_table_destroy(table);
    }
}

/* ---- parallel executes of one event -------------------------------------------- */

/*
 * Two threads execute one event whose first handler waits until the other
 * thread's execute has reached the same handler: both calls are running at
 * once, which cannot happen if an execute holds a lock while handlers run.
 */
typedef struct meeting {
    atomic_ulong arrivals;
    atomic_bool broken;
    atomic_ulong timeouts;
    atomic_ulong counted_calls;
} meeting;

typedef struct partner {
    pthread_t thread;
    dc_table *table;
    dc_event_id event;
    meeting *meeting;
    unsigned long rounds_met;
    size_t calls_seen;
    uint64_t handled_total;
    uint64_t handled_mismatches;
    uint64_t failed_executes;
} partner;

CALLEE static void meet_handler(meeting *m, partner *who) {
    who->calls_seen++;
    atomic_fetch_add(&m->arrivals, 1);
    unsigned long wanted = 2 * ++who->rounds_met;
    uint64_t deadline = deadline_after_ms(WAIT_MILLISECONDS);
    while (atomic_load(&m->arrivals) < wanted && !atomic_load(&m->broken)) {
        if (now_ns() > deadline) {
            atomic_fetch_add(&m->timeouts, 1);
            atomic_store(&m->broken, true);
            break;
        }
        sched_yield();
    }
}

CALLEE static void counted_handler(meeting *m, partner *who) {
    who->calls_seen++;
    atomic_fetch_add(&m->counted_calls, 1);
}

static void *run_partner(void *context) {
    partner *p = context;
    const dc_value arguments[] = {dc_pointer(p)};
    for (int round = 0; round < MEETING_ROUNDS && !atomic_load(&p->meeting->broken); round++) {
        size_t before = p->calls_seen;
        dc_result result;
        if (dc_table_execute_id(p->table, p->event, arguments, 1, &result) != DC_OK) {
            p->failed_executes++;
            atomic_store(&p->meeting->broken, true);
            continue;
        }
        p->handled_total += result.handled;
        if (result.handled != p->calls_seen - before) {
            p->handled_mismatches++;
        }
    }
    return NULL;
}

static void executes_on_two_threads_run_their_handlers_at_the_same_time(void **state) {
    (void)state;
    dc_table *table = create_table("meetings");
    dc_signature *signature = create_signature("v^v^v");
    meeting m = {0};
    dc_event_id event = 0;
    assert_ok(dc_table_intern(table, "meet", &event));
    assert_ok(dc_table_add_id(table, event, signature, DC_FUNCTION(meet_handler), &m, NULL, NULL));
    assert_ok(dc_table_add_id(table, event, signature, DC_FUNCTION(counted_handler), &m, NULL,
                              NULL));

    partner partners[2];
    for (int i = 0; i < 2; i++) {
        partners[i] = (partner){.table = table, .event = event, .meeting = &m};
        assert_int_equal(pthread_create(&partners[i].thread, NULL, run_partner, &partners[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(partners[i].thread, NULL), 0);
    }
    if (atomic_load(&m.timeouts) != 0) {
        fail_msg("a handler waited %d ms for the other thread's execute to reach it: "
                 "an execute holds a lock while its handlers run",
                 WAIT_MILLISECONDS);
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(partners[i].failed_executes, 0);
        assert_int_equal(partners[i].handled_mismatches, 0);
        assert_int_equal(partners[i].rounds_met, MEETING_ROUNDS);
        assert_int_equal(partners[i].handled_total, 2 * MEETING_ROUNDS);
    }
    assert_int_equal(atomic_load(&m.arrivals), 2 * MEETING_ROUNDS);
    assert_int_equal(atomic_load(&m.counted_calls), 2 * MEETING_ROUNDS);
    dc_table_destroy(table);
    dc_signature_release(signature);
}

/* Says which fences these runs tested: readers pair a compiler-only fence with
 * the writers' membarrier(2), or, where the kernel or an emulator (valgrind,
 * some qemu-user builds) lacks it, or the core's POSIX platform layer is
 * built, both sides take full fences. The core decides once, when the first
 * table is created. */
static void print_the_fences_in_use(void) {
    dc_table *table = NULL;
    if (dc_table_create("fence probe", NULL, &table) != DC_OK) return;
    printf("table threads: %s\n", dc__asymmetric_fences
                                      ? "asymmetric fences (membarrier(2) in writers, compiler fences in readers)"
                                      : "full fences on both sides (no membarrier(2), or the POSIX layer)");
    dc_table_destroy(table);
}

int main(void) {
    alarm(WATCHDOG_SECONDS); /* a hang ends the process (and fails make test-c) */
    print_the_fences_in_use();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(executes_race_adds_removes_and_blocks_with_exact_counts_and_no_late_calls),
        cmocka_unit_test(removals_racing_a_thread_that_begins_to_execute_are_never_late),
        cmocka_unit_test(remove_on_another_thread_returns_after_the_running_call),
        cmocka_unit_test(remove_target_on_another_thread_returns_after_the_running_call),
        cmocka_unit_test(block_on_another_thread_returns_after_the_running_call),
        cmocka_unit_test(once_handler_raced_by_executing_threads_runs_exactly_once),
        cmocka_unit_test(concurrent_interns_of_the_same_names_give_the_same_ids),
        cmocka_unit_test(executes_on_two_threads_run_their_handlers_at_the_same_time),
    };
    return cmocka_run_group_tests_name("table threads", tests, NULL, NULL);
}
