/*
 * test_table_lifecycle.c — how a table and its handlers end when threads meet
 * there: a destroy called from handlers while other threads are inside the
 * table frees it exactly once; an execute leaving while another thread
 * destroys the table touches nothing of it afterwards; handlers that block or
 * remove each other from inside their calls on several threads do not
 * deadlock, are not called again once the block or remove returned, and get
 * their destroy notify once, after their last call; messages and removals
 * read the handler bookkeeping safely while another thread grows it; a
 * destroy notify may destroy its own table.
 *
 * Several defects show only under ASan, TSan (make sanitize-c) or valgrind
 * (make memcheck). The tests force the interleaving that breaks wherever a
 * handler or callback can wait for it, and repeat rounds where only timing
 * opens the window.
 *
 * cmocka's assertions belong to the main thread; other threads record what
 * they saw. A thread deadlocked in the library never returns and keeps every
 * later destroy waiting for its read-side section, so one that misses its
 * deadline ends the process, naming the test; an alarm armed per test does
 * the same for any other hang. A pattern as first argument runs only the
 * matching tests (cmocka_set_test_filter), as a crash ends the run.
 */
#include "test_support.h"
#include "thread_support.h"
#include "watchdog.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "dispatch_core_binding.h"

enum {
    /* How long a thread waits for another to reach a point it must reach. */
    WAIT_MILLISECONDS = 10000,
    /* How long the main thread waits for a thread that may be deadlocked. */
    DEADLOCK_MILLISECONDS = 10000,
    HANDLERS_PER_CHUNK = 1024 /* table.h's CHUNK_SIZE */
};

/* ---- time, waiting, meeting ---------------------------------------------------------- */

/* Counts the caller in and waits until `parties` callers have arrived, so
 * that all of them are inside their handlers at once; false when the deadline
 * passed first. */
static bool meet(atomic_int *arrivals, int parties) {
    atomic_fetch_add(arrivals, 1);
    uint64_t deadline = deadline_after_ms(WAIT_MILLISECONDS);
    while (atomic_load(arrivals) < parties) {
        if (now_ns() > deadline) {
            return false;
        }
        sched_yield();
    }
    return true;
}

/* Waits until the handler `id` is no longer registered: a remove or destroy
 * on another thread has unlinked it. False when the deadline passed first. */
static bool wait_until_removed(dc_table *table, dc_handler_id id) {
    uint64_t deadline = deadline_after_ms(WAIT_MILLISECONDS);
    while (dc_table_contains(table, id)) {
        if (now_ns() > deadline) {
            return false;
        }
        sched_yield();
    }
    return true;
}

/* ---- the watchdog and deadlocks ------------------------------------------------------- */

/*
 * Joins a thread that raises *returned as its last act. One that has not by
 * the deadline is deadlocked inside the library: it will never return, and
 * its open read-side section would keep every later destroy waiting, so the
 * process ends here, naming the test and what did not return.
 */
static void finish_thread(pthread_t thread, atomic_bool *returned, const char *what) {
    if (!wait_for_flag(returned, DEADLOCK_MILLISECONDS)) {
        fflush(stdout);
        fprintf(stderr, "[  FAILED  ] %s: %s has not returned after %d ms: deadlock\n", running_test,
                what, DEADLOCK_MILLISECONDS);
        _exit(1);
    }
    assert_int_equal(pthread_join(thread, NULL), 0);
}

/* ---- tables, handlers, executes on other threads ------------------------------------ */

static void count_notify(void *counter) { atomic_fetch_add((atomic_int *)counter, 1); }

/* Adds `function` (C type `encoding`) for `event` with a destroy notify
 * counting into *notifies and, when given, a queue; returns its id. */
static dc_handler_id add_counted(dc_table *table, const char *event, const char *encoding,
                                 dc_function function, void *target, atomic_int *notifies,
                                 dc_queue *queue) {
    dc_signature *signature = create_signature(encoding);
    dc_handler_options options = {.queue = queue, .destroy = count_notify, .destroy_data = notifies};
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, event, signature, function, target, &options, &id));
    dc_signature_release(signature); /* the table keeps its own reference */
    return id;
}

static void *create_queue_here(void *out) {
    dc_queue_create((dc_queue **)out);
    return NULL;
}

/* A queue whose owner thread has ended: executes on any thread post to it. */
static dc_queue *queue_owned_elsewhere(void) {
    dc_queue *queue = NULL;
    pthread_t owner;
    assert_int_equal(pthread_create(&owner, NULL, create_queue_here, &queue), 0);
    assert_int_equal(pthread_join(owner, NULL), 0);
    assert_non_null(queue);
    return queue;
}

/* An execute of an event without arguments on a thread of its own. */
typedef struct execute_thread {
    pthread_t thread;
    dc_table *table;
    const char *event;
    const dc_value *arguments;
    size_t count;
    const dc_execute_options *options;
    dc_status status;
    dc_result result;
    atomic_bool returned;
} execute_thread;

static void *run_execute(void *context) {
    execute_thread *x = context;
    /* A thread's first execute takes the general path, which gives the thread
     * its read-side record; this one does, so that the execute under test
     * takes the lean path wherever its handlers allow. */
    dc_table_execute(x->table, "(no such event)", NULL, 0, NULL);
    x->status = dc_table_execute_with(x->table, x->event, x->arguments, x->count, x->options,
                                      &x->result);
    atomic_store(&x->returned, true);
    return NULL;
}

static void start_execute(execute_thread *x, dc_table *table, const char *event) {
    memset(x, 0, sizeof *x);
    x->table = table;
    x->event = event;
    assert_int_equal(pthread_create(&x->thread, NULL, run_execute, x), 0);
}

/* ---- a destroy called from handlers frees the table once ------------------------------ */

/*
 * One thread holds a call of the table's "slow" handler while a handler on
 * another thread destroys the table. The destroy removes the handlers at once
 * (the slow one stops waiting when it sees itself unlinked) and the table
 * must be freed exactly once, when the last execute inside it has returned,
 * whichever of the two executes (or queue drain) that is.
 */
typedef struct destroy_race {
    dc_table *table;
    dc_handler_id slow_id;
    atomic_bool slow_entered;
    atomic_bool slow_gave_up; /* the destroy never unlinked the slow handler */
    atomic_int slow_calls;
    atomic_int destroyer_calls;
    atomic_int destroys_returned;
    atomic_int arrivals;
    atomic_bool meeting_failed;
    atomic_int notifies[2];
} destroy_race;

static destroy_race race;

static void reset_race(void) { memset(&race, 0, sizeof race); }

static void hold_until_unlinked(void) {
    atomic_fetch_add(&race.slow_calls, 1);
    atomic_store(&race.slow_entered, true);
    if (!wait_until_removed(race.table, race.slow_id)) {
        atomic_store(&race.slow_gave_up, true);
    }
}

/* void (void): an event of these alone takes the lean execute. */
CALLEE static void slow_lean_handler(void) { hold_until_unlinked(); }

/* Returning a value keeps the event off the lean execute. */
CALLEE static int32_t slow_general_handler(void) {
    hold_until_unlinked();
    return 1;
}

static void destroy_from_handler(void) {
    atomic_fetch_add(&race.destroyer_calls, 1);
    dc_table_destroy(race.table);
    atomic_fetch_add(&race.destroys_returned, 1);
}

CALLEE static void destroyer_lean_handler(void) { destroy_from_handler(); }

CALLEE static int32_t destroyer_general_handler(void) {
    destroy_from_handler();
    return 1;
}

/* Destroys once the other destroyer is inside its call too. */
static void destroy_after_meeting(void) {
    if (!meet(&race.arrivals, 2)) {
        atomic_store(&race.meeting_failed, true);
    }
    destroy_from_handler();
}

CALLEE static void meeting_destroyer_lean_handler(void) { destroy_after_meeting(); }

CALLEE static int32_t meeting_destroyer_general_handler(void) {
    destroy_after_meeting();
    return 1;
}

static void assert_destroyed_once(void) {
    assert_false(atomic_load(&race.slow_gave_up));
    for (size_t i = 0; i < ARRAY_COUNT(race.notifies); i++) {
        if (atomic_load(&race.notifies[i]) != 1) {
            fail_msg("handler %zu: destroy notify ran %d times, expected once", i,
                     atomic_load(&race.notifies[i]));
        }
    }
}

static void check_destroy_from_a_handler_while_another_thread_runs_one(const char *encoding,
                                                                        dc_function slow,
                                                                        dc_function destroyer) {
    reset_race();
    race.table = create_table("doomed");
    race.slow_id = add_counted(race.table, "slow", encoding, slow, NULL, &race.notifies[0], NULL);
    add_counted(race.table, "destroy", encoding, destroyer, NULL, &race.notifies[1], NULL);

    execute_thread slow_execute, destroy_execute;
    start_execute(&slow_execute, race.table, "slow");
    assert_true(wait_for_flag(&race.slow_entered, WAIT_MILLISECONDS));
    start_execute(&destroy_execute, race.table, "destroy");
    finish_thread(slow_execute.thread, &slow_execute.returned, "the execute of the slow handler");
    finish_thread(destroy_execute.thread, &destroy_execute.returned,
                  "the execute whose handler destroys the table");

    assert_ok(slow_execute.status);
    assert_int_equal(slow_execute.result.handled, 1);
    assert_ok(destroy_execute.status);
    assert_int_equal(destroy_execute.result.handled, 1);
    assert_int_equal(atomic_load(&race.slow_calls), 1);
    assert_int_equal(atomic_load(&race.destroyer_calls), 1);
    assert_int_equal(atomic_load(&race.destroys_returned), 1);
    assert_destroyed_once();
}

static void destroy_from_a_handler_while_another_thread_runs_one_frees_the_table_once(
    void **state) {
    (void)state;
    check_destroy_from_a_handler_while_another_thread_runs_one(
        "i", DC_FUNCTION(slow_general_handler), DC_FUNCTION(destroyer_general_handler));
}

static void destroy_from_a_lean_handler_while_another_lean_execute_runs_frees_the_table_once(
    void **state) {
    (void)state;
    check_destroy_from_a_handler_while_another_thread_runs_one(
        "v", DC_FUNCTION(slow_lean_handler), DC_FUNCTION(destroyer_lean_handler));
}

/* The destroyer is a queued handler, delivered by dc_queue_drain on a third
 * thread: the drain's delivery is an execute of the table as well. */
typedef struct drain_thread {
    pthread_t thread;
    dc_queue *queue;
    dc_status status;
    size_t delivered;
    atomic_bool returned;
} drain_thread;

static void *run_drain(void *context) {
    drain_thread *d = context;
    d->status = dc_queue_drain(d->queue, &d->delivered);
    atomic_store(&d->returned, true);
    return NULL;
}

static void destroy_from_a_queued_delivery_while_another_thread_runs_a_handler_frees_the_table_once(
    void **state) {
    (void)state;
    reset_race();
    dc_queue *queue = queue_owned_elsewhere();
    race.table = create_table("doomed");
    race.slow_id = add_counted(race.table, "slow", "v", DC_FUNCTION(slow_lean_handler), NULL,
                               &race.notifies[0], NULL);
    add_counted(race.table, "destroy", "v", DC_FUNCTION(destroyer_lean_handler), NULL,
                &race.notifies[1], queue);

    execute_thread slow_execute;
    start_execute(&slow_execute, race.table, "slow");
    assert_true(wait_for_flag(&race.slow_entered, WAIT_MILLISECONDS));
    dc_result posted;
    assert_ok(dc_table_execute(race.table, "destroy", NULL, 0, &posted));
    assert_int_equal(posted.queued, 1);

    drain_thread drain = {.queue = queue};
    assert_int_equal(pthread_create(&drain.thread, NULL, run_drain, &drain), 0);
    finish_thread(slow_execute.thread, &slow_execute.returned, "the execute of the slow handler");
    finish_thread(drain.thread, &drain.returned, "the drain whose delivery destroys the table");

    assert_ok(slow_execute.status);
    assert_int_equal(slow_execute.result.handled, 1);
    assert_ok(drain.status);
    assert_int_equal(drain.delivered, 1);
    assert_int_equal(atomic_load(&race.slow_calls), 1);
    assert_int_equal(atomic_load(&race.destroyer_calls), 1);
    assert_int_equal(atomic_load(&race.destroys_returned), 1);
    assert_destroyed_once();
    dc_queue_destroy(queue);
}

/* Two handlers on two threads destroy the table while both are inside their
 * calls: the second destroy finds one pending and the table goes once. */
static void destroy_from_handlers_on_two_threads_at_once_frees_the_table_once(void **state) {
    (void)state;
    reset_race();
    race.table = create_table("doomed twice");
    add_counted(race.table, "first", "v", DC_FUNCTION(meeting_destroyer_lean_handler), NULL,
                &race.notifies[0], NULL);
    add_counted(race.table, "second", "i", DC_FUNCTION(meeting_destroyer_general_handler), NULL,
                &race.notifies[1], NULL);

    execute_thread first, second;
    start_execute(&first, race.table, "first");
    start_execute(&second, race.table, "second");
    finish_thread(first.thread, &first.returned, "the first destroying execute");
    finish_thread(second.thread, &second.returned, "the second destroying execute");

    assert_false(atomic_load(&race.meeting_failed));
    assert_ok(first.status);
    assert_int_equal(first.result.handled, 1);
    assert_ok(second.status);
    assert_int_equal(second.result.handled, 1);
    assert_int_equal(atomic_load(&race.destroyer_calls), 2);
    assert_int_equal(atomic_load(&race.destroys_returned), 2);
    for (size_t i = 0; i < ARRAY_COUNT(race.notifies); i++) {
        if (atomic_load(&race.notifies[i]) != 1) {
            fail_msg("handler %zu: destroy notify ran %d times, expected once", i,
                     atomic_load(&race.notifies[i]));
        }
    }
}

/* ---- an execute leaving while another thread destroys the table -------------------------- */

/*
 * An execute with DC_EXECUTE_REQUIRE_HANDLER whose only handler is queued
 * elsewhere: posting retains the object argument through the table's
 * callback, which holds the execute inside the table until a destroy on the
 * main thread has unlinked the handler. The post is then refused, nothing ran
 * or was queued, and the execute reports DC_ERR_NO_HANDLER; it must build that
 * message, and finish, without touching the table, which the destroy frees as
 * soon as the execute's read-side section is over. The table's long name
 * makes building a message from it slow, which widens that window.
 */
enum { DROPPED_POST_ROUNDS = 12, DROPPED_POST_BUDGET_MILLISECONDS = 1500, LONG_NAME_BYTES = 1 << 20 };

typedef struct dropped_post {
    dc_table *table;
    dc_handler_id id;
    atomic_bool retain_entered;
    atomic_bool retain_gave_up;
    atomic_int retains;
    atomic_int releases;
    atomic_int notifies;
} dropped_post;

static dropped_post post;

static void retain_until_unlinked(void *object) {
    (void)object;
    atomic_fetch_add(&post.retains, 1);
    atomic_store(&post.retain_entered, true);
    if (!wait_until_removed(post.table, post.id)) {
        atomic_store(&post.retain_gave_up, true);
    }
}

static void count_release(void *object) {
    (void)object;
    atomic_fetch_add(&post.releases, 1);
}

CALLEE static void take_object(void *object) { (void)object; }

static void execute_requiring_a_handler_fails_without_touching_the_table_destroyed_meanwhile(
    void **state) {
    (void)state;
    char *long_name = malloc(LONG_NAME_BYTES + 1);
    assert_non_null(long_name);
    memset(long_name, 'n', LONG_NAME_BYTES);
    long_name[LONG_NAME_BYTES] = '\0';
    dc_queue *queue = queue_owned_elsewhere();
    const dc_object_callbacks callbacks = {retain_until_unlinked, count_release};
    static int token;
    const dc_value argument = dc_object(&token);
    const dc_execute_options require = {.flags = DC_EXECUTE_REQUIRE_HANDLER};

    uint64_t budget = deadline_after_ms(DROPPED_POST_BUDGET_MILLISECONDS);
    int rounds = 0;
    for (; rounds < DROPPED_POST_ROUNDS && (rounds < 2 || now_ns() < budget); rounds++) {
        memset(&post, 0, sizeof post);
        assert_ok(dc_table_create(long_name, &callbacks, &post.table));
        post.id = add_counted(post.table, "post", "v@", DC_FUNCTION(take_object), NULL,
                              &post.notifies, queue);

        execute_thread execute;
        memset(&execute, 0, sizeof execute);
        execute.table = post.table;
        execute.event = "post";
        execute.arguments = &argument;
        execute.count = 1;
        execute.options = &require;
        assert_int_equal(pthread_create(&execute.thread, NULL, run_execute, &execute), 0);
        assert_true(wait_for_flag(&post.retain_entered, WAIT_MILLISECONDS));
        dc_table_destroy(post.table);
        finish_thread(execute.thread, &execute.returned, "the execute whose post was refused");

        if (execute.status != DC_ERR_NO_HANDLER) {
            fail_msg("round %d: the execute gave %s, expected DC_ERR_NO_HANDLER", rounds,
                     dc_status_name(execute.status));
        }
        assert_false(atomic_load(&post.retain_gave_up));
        assert_int_equal(atomic_load(&post.retains), 1);
        assert_int_equal(atomic_load(&post.releases), 1);
        assert_int_equal(atomic_load(&post.notifies), 1);
    }
    assert_true(rounds >= 2);
    dc_queue_destroy(queue);
    free(long_name);
}

/* ---- handlers blocking or removing each other on several threads at once ----------------- */

/*
 * Each handler runs on a thread of its own, meets the others inside its call,
 * then blocks or removes. Every call waits for the others' calls, and each of
 * those waits in its own block or remove made from inside a handler: none of
 * them may wait for another such call, or none ever returns. What still
 * holds: the block or remove returns DC_OK, no call of the handler starts
 * once it returned, and a removed handler's destroy notify runs exactly once,
 * never while a call of it is running.
 */

/* GLib's "block myself, change something, unblock myself", from two threads
 * executing the same event at once. */
typedef struct self_blocking {
    dc_table *table;
    dc_handler_id id;
    atomic_int arrivals;
    atomic_bool meeting_failed;
    atomic_int calls;
    atomic_int changes;
} self_blocking;

/* What one executing thread's call of the handler did. */
typedef struct blocker {
    atomic_bool armed;
    dc_status block_status;
    dc_status nested_status;
    size_t nested_handled;
    dc_status unblock_status;
} blocker;

CALLEE static void block_change_unblock(self_blocking *scene, blocker *me) {
    atomic_fetch_add(&scene->calls, 1);
    if (!atomic_exchange(&me->armed, false)) {
        return;
    }
    if (!meet(&scene->arrivals, 2)) {
        atomic_store(&scene->meeting_failed, true);
    }
    me->block_status = dc_table_block(scene->table, scene->id);
    atomic_fetch_add(&scene->changes, 1);
    /* The change emits the event again; blocked, the handler must not run. */
    dc_result nested;
    me->nested_status =
        dc_table_execute(scene->table, "changed", (dc_value[]){dc_pointer(me)}, 1, &nested);
    me->nested_handled = me->nested_status == DC_OK ? nested.handled : 99;
    me->unblock_status = dc_table_unblock(scene->table, scene->id);
}

static void handlers_blocking_themselves_on_two_threads_at_once_do_not_deadlock(void **state) {
    (void)state;
    static self_blocking scene;
    memset(&scene, 0, sizeof scene);
    scene.table = create_table("blocking");
    dc_signature *signature = create_signature("v^v^v");
    assert_ok(dc_table_add(scene.table, "changed", signature, DC_FUNCTION(block_change_unblock),
                           &scene, NULL, &scene.id));

    blocker blockers[2];
    dc_value arguments[2];
    execute_thread executes[2];
    memset(blockers, 0, sizeof blockers);
    for (int i = 0; i < 2; i++) {
        atomic_store(&blockers[i].armed, true);
        arguments[i] = dc_pointer(&blockers[i]);
        memset(&executes[i], 0, sizeof executes[i]);
        executes[i].table = scene.table;
        executes[i].event = "changed";
        executes[i].arguments = &arguments[i];
        executes[i].count = 1;
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_create(&executes[i].thread, NULL, run_execute, &executes[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        finish_thread(executes[i].thread, &executes[i].returned,
                      i == 0 ? "the first self-blocking execute" : "the second self-blocking execute");
    }

    assert_false(atomic_load(&scene.meeting_failed));
    for (int i = 0; i < 2; i++) {
        assert_ok(executes[i].status);
        assert_int_equal(executes[i].result.handled, 1);
        assert_ok(blockers[i].block_status);
        assert_ok(blockers[i].nested_status);
        if (blockers[i].nested_handled != 0) {
            fail_msg("thread %d: an execute after dc_table_block returned ran %zu handlers", i,
                     blockers[i].nested_handled);
        }
        assert_ok(blockers[i].unblock_status);
    }
    assert_int_equal(atomic_load(&scene.calls), 2);
    assert_int_equal(atomic_load(&scene.changes), 2);

    /* Two blocks, two unblocks: unblocked, and it runs again. */
    assert_status(dc_table_unblock(scene.table, scene.id), DC_ERR_STATE);
    blocker idle;
    memset(&idle, 0, sizeof idle);
    dc_result result;
    assert_ok(dc_table_execute(scene.table, "changed", (dc_value[]){dc_pointer(&idle)}, 1, &result));
    assert_int_equal(result.handled, 1);
    assert_int_equal(atomic_load(&scene.calls), 3);
    dc_table_destroy(scene.table);
    dc_signature_release(signature);
}

/* Handler i, executed on thread i, removes handler i + 1 (the last removes
 * the first): two handlers removing each other, or a cycle of three. */
typedef struct party {
    dc_handler_id id;
    struct party *victim;
    atomic_bool armed;
    atomic_bool removed; /* a remove of this handler has returned */
    atomic_int running;  /* calls of this handler running now */
    atomic_int calls;
    atomic_int calls_after_removed;
    atomic_int notifies;
    atomic_int notifies_while_running;
    dc_status remove_status;
} party;

typedef struct removal_cycle {
    dc_table *table;
    int parties;
    atomic_int arrivals;
    atomic_bool meeting_failed;
} removal_cycle;

static removal_cycle cycle;

CALLEE static void remove_victim(party *self) {
    atomic_fetch_add(&self->running, 1);
    atomic_fetch_add(&self->calls, 1);
    if (atomic_load(&self->removed)) {
        atomic_fetch_add(&self->calls_after_removed, 1);
    }
    if (atomic_exchange(&self->armed, false)) {
        if (!meet(&cycle.arrivals, cycle.parties)) {
            atomic_store(&cycle.meeting_failed, true);
        }
        self->remove_status = dc_table_remove(cycle.table, self->victim->id);
        atomic_store(&self->victim->removed, true);
    }
    atomic_fetch_sub(&self->running, 1);
}

static void party_destroyed(void *data) {
    party *p = data;
    if (atomic_load(&p->running) != 0) {
        atomic_fetch_add(&p->notifies_while_running, 1);
    }
    atomic_fetch_add(&p->notifies, 1);
}

static void check_removal_cycle(int parties) {
    enum { MOST_PARTIES = 3 };
    assert_true(parties <= MOST_PARTIES);
    static party party_of[MOST_PARTIES];
    static char events[MOST_PARTIES][16];
    memset(party_of, 0, sizeof party_of);
    memset(&cycle, 0, sizeof cycle);
    cycle.table = create_table("cycle");
    cycle.parties = parties;
    dc_signature *signature = create_signature("v^v");
    for (int i = 0; i < parties; i++) {
        party *p = &party_of[i];
        p->victim = &party_of[(i + 1) % parties];
        atomic_store(&p->armed, true);
        snprintf(events[i], sizeof events[i], "party %d", i);
        dc_handler_options options = {.destroy = party_destroyed, .destroy_data = p};
        assert_ok(dc_table_add(cycle.table, events[i], signature, DC_FUNCTION(remove_victim), p,
                               &options, &p->id));
    }

    execute_thread executes[MOST_PARTIES];
    for (int i = 0; i < parties; i++) {
        start_execute(&executes[i], cycle.table, events[i]);
    }
    for (int i = 0; i < parties; i++) {
        char what[96];
        snprintf(what, sizeof what, "the execute of handler %d, which removes handler %d", i,
                 (i + 1) % parties);
        finish_thread(executes[i].thread, &executes[i].returned, what);
    }

    assert_false(atomic_load(&cycle.meeting_failed));
    for (int i = 0; i < parties; i++) {
        party *p = &party_of[i];
        assert_ok(executes[i].status);
        assert_int_equal(executes[i].result.handled, 1);
        assert_ok(p->remove_status);
        assert_false(dc_table_contains(cycle.table, p->id));
        assert_int_equal(atomic_load(&p->notifies_while_running), 0);
        if (atomic_load(&p->notifies) > 1) {
            fail_msg("handler %d: destroy notify ran %d times", i, atomic_load(&p->notifies));
        }
    }
    /* Removed: executing their events again calls nothing. */
    for (int i = 0; i < parties; i++) {
        dc_result result;
        assert_ok(dc_table_execute(cycle.table, events[i], NULL, 0, &result));
        assert_int_equal(result.handled, 0);
    }
    for (int i = 0; i < parties; i++) {
        assert_int_equal(atomic_load(&party_of[i].calls), 1);
        assert_int_equal(atomic_load(&party_of[i].calls_after_removed), 0);
    }
    dc_table_destroy(cycle.table);
    for (int i = 0; i < parties; i++) {
        if (atomic_load(&party_of[i].notifies) != 1) {
            fail_msg("handler %d: destroy notify ran %d times, expected once", i,
                     atomic_load(&party_of[i].notifies));
        }
        assert_int_equal(atomic_load(&party_of[i].notifies_while_running), 0);
    }
    dc_signature_release(signature);
}

static void two_handlers_removing_each_other_on_two_threads_do_not_deadlock(void **state) {
    (void)state;
    check_removal_cycle(2);
}

static void three_handlers_removing_each_other_in_a_cycle_do_not_deadlock(void **state) {
    (void)state;
    check_removal_cycle(3);
}

/* ---- handler bookkeeping read while another thread grows it ------------------------------- */

/*
 * Handlers live in chunks of 1024; the table's array of chunk pointers is
 * reallocated whenever an add needs a new chunk. Whatever reads that array
 * must do so under the table's lock (or otherwise safely): a reader holding
 * the old array reads freed memory.
 */
CALLEE static void take_nothing(void) {}
CALLEE static void take_double(double value) { (void)value; }

static void add_duplicates(dc_table *table, const char *event, size_t count) {
    dc_signature *signature = create_signature("v");
    const dc_handler_options duplicate = {.flags = DC__HANDLER_ALLOW_DUPLICATE};
    for (size_t i = 0; i < count; i++) {
        assert_ok(dc_table_add(table, event, signature, DC_FUNCTION(take_nothing), NULL, &duplicate,
                               NULL));
    }
    dc_signature_release(signature);
}

/*
 * An execute whose argument does not convert (int64 for a double parameter)
 * fails with a message naming a handler of the shape that refused it. The
 * handler sits in a late chunk, so finding its slot walks many chunk
 * pointers, while another thread adds handlers that keep reallocating the
 * array. Timing alone opens the window, so each round grows the table by
 * many chunks.
 */
enum {
    TYPE_RACE_ROUNDS = 4,
    TYPE_RACE_BUDGET_MILLISECONDS = 1500,
    TYPE_RACE_FILLER_CHUNKS = 96,
    TYPE_RACE_GROWTH_CHUNKS = 96,
    TYPE_RACE_MINIMUM_EXECUTES = 200
};

typedef struct type_race {
    pthread_t executor, adder;
    dc_table *table;
    dc_signature *nothing;
    char expected_id[32];
    atomic_bool stop;
    atomic_bool executor_returned, adder_returned;
    unsigned long executes;
    unsigned long wrong_status;
    dc_status first_wrong_status;
    unsigned long messages_without_id;
    char first_message_without_id[512];
    unsigned long failed_adds;
} type_race;

static void *run_type_failures(void *context) {
    type_race *r = context;
    const dc_value argument = dc_int64(7);
    while (!atomic_load(&r->stop) || r->executes < TYPE_RACE_MINIMUM_EXECUTES) {
        dc_status status = dc_table_execute(r->table, "typed", &argument, 1, NULL);
        r->executes++;
        if (status != DC_ERR_TYPE) {
            if (r->wrong_status++ == 0) {
                r->first_wrong_status = status;
            }
        } else if (strstr(dc_last_error_message(), r->expected_id) == NULL) {
            if (r->messages_without_id++ == 0) {
                snprintf(r->first_message_without_id, sizeof r->first_message_without_id, "%s",
                         dc_last_error_message());
            }
        }
    }
    atomic_store(&r->executor_returned, true);
    return NULL;
}

static void *run_growth(void *context) {
    type_race *r = context;
    const dc_handler_options duplicate = {.flags = DC__HANDLER_ALLOW_DUPLICATE};
    for (size_t i = 0; i < (size_t)TYPE_RACE_GROWTH_CHUNKS * HANDLERS_PER_CHUNK; i++) {
        if (dc_table_add(r->table, "growth", r->nothing, DC_FUNCTION(take_nothing), NULL, &duplicate,
                         NULL) != DC_OK) {
            r->failed_adds++;
        }
    }
    atomic_store(&r->stop, true);
    atomic_store(&r->adder_returned, true);
    return NULL;
}

static void failed_type_check_names_its_handler_while_another_thread_adds_thousands(
    void **state) {
    (void)state;
    static type_race r;
    dc_signature *typed = create_signature("vd");
    uint64_t budget = deadline_after_ms(TYPE_RACE_BUDGET_MILLISECONDS);
    int rounds = 0;
    for (; rounds < TYPE_RACE_ROUNDS && (rounds < 1 || now_ns() < budget); rounds++) {
        memset(&r, 0, sizeof r);
        r.table = create_table("growing");
        r.nothing = create_signature("v");
        add_duplicates(r.table, "filler", (size_t)TYPE_RACE_FILLER_CHUNKS * HANDLERS_PER_CHUNK);
        dc_handler_id typed_id = 0;
        assert_ok(dc_table_add(r.table, "typed", typed, DC_FUNCTION(take_double), NULL, NULL,
                               &typed_id));
        snprintf(r.expected_id, sizeof r.expected_id, "%llu", (unsigned long long)typed_id);

        assert_int_equal(pthread_create(&r.executor, NULL, run_type_failures, &r), 0);
        assert_int_equal(pthread_create(&r.adder, NULL, run_growth, &r), 0);
        finish_thread(r.adder, &r.adder_returned, "the thread adding handlers");
        finish_thread(r.executor, &r.executor_returned, "the thread executing");

        assert_int_equal(r.failed_adds, 0);
        if (r.wrong_status != 0) {
            fail_msg("round %d: %lu of %lu executes gave %s, expected DC_ERR_TYPE", rounds,
                     r.wrong_status, r.executes, dc_status_name(r.first_wrong_status));
        }
        if (r.messages_without_id != 0) {
            fail_msg("round %d: %lu of %lu messages do not name handler %s, as \"%s\"", rounds,
                     r.messages_without_id, r.executes, r.expected_id, r.first_message_without_id);
        }
        size_t grown = 0;
        assert_ok(dc_table_handler_count(r.table, "growth", &grown));
        assert_int_equal(grown, (size_t)TYPE_RACE_GROWTH_CHUNKS * HANDLERS_PER_CHUNK);
        dc_table_destroy(r.table);
        dc_signature_release(r.nothing);
    }
    dc_signature_release(typed);
}

/*
 * A removal of two handlers calls the first one's destroy notify and then
 * goes on to the second. The notify waits until another thread's adds have
 * needed a new chunk, which reallocates the chunk array. It watches their
 * progress through a relaxed load only, so nothing orders the adds before
 * the removal's next read of the chunks: what makes that read safe must be
 * the library's own doing (ThreadSanitizer reports it otherwise).
 */
typedef struct removal_race {
    dc_table *table;
    int target;
    atomic_bool notify_waiting;
    atomic_bool notified_once;
    atomic_bool notify_gave_up;
    atomic_ulong adds_done;
    unsigned long adds_wanted;
    atomic_int notifies;
    atomic_bool adder_returned;
    unsigned long failed_adds;
} removal_race;

static removal_race removal;

static void notify_after_growth(void *data) {
    (void)data;
    atomic_fetch_add(&removal.notifies, 1);
    if (atomic_exchange(&removal.notified_once, true)) {
        return;
    }
    atomic_store(&removal.notify_waiting, true);
    uint64_t deadline = deadline_after_ms(WAIT_MILLISECONDS);
    while (atomic_load_explicit(&removal.adds_done, memory_order_relaxed) < removal.adds_wanted) {
        if (now_ns() > deadline) {
            atomic_store(&removal.notify_gave_up, true);
            return;
        }
        sched_yield();
    }
}

static void *run_growth_during_notify(void *context) {
    (void)context;
    dc_signature *signature = NULL;
    if (dc_signature_create("v", &signature) != DC_OK ||
        !wait_for_flag(&removal.notify_waiting, WAIT_MILLISECONDS)) {
        removal.failed_adds++;
    } else {
        const dc_handler_options duplicate = {.flags = DC__HANDLER_ALLOW_DUPLICATE};
        for (unsigned long i = 0; i < removal.adds_wanted; i++) {
            if (dc_table_add(removal.table, "growth", signature, DC_FUNCTION(take_nothing), NULL,
                             &duplicate, NULL) != DC_OK) {
                removal.failed_adds++;
            }
            atomic_store_explicit(&removal.adds_done, i + 1, memory_order_relaxed);
        }
    }
    dc_signature_release(signature);
    atomic_store(&removal.adder_returned, true);
    return NULL;
}

static void removal_walks_its_handlers_safely_while_another_thread_adds_thousands(void **state) {
    (void)state;
    memset(&removal, 0, sizeof removal);
    removal.table = create_table("growing");
    /* The chunk holding the two handlers is full after these adds. */
    removal.adds_wanted = HANDLERS_PER_CHUNK + 16;
    dc_signature *signature = create_signature("v^v");
    const dc_handler_options notified = {.destroy = notify_after_growth};
    assert_ok(dc_table_add(removal.table, "first", signature, DC_FUNCTION(take_object),
                           &removal.target, &notified, NULL));
    assert_ok(dc_table_add(removal.table, "second", signature, DC_FUNCTION(take_object),
                           &removal.target, &notified, NULL));

    pthread_t adder;
    assert_int_equal(pthread_create(&adder, NULL, run_growth_during_notify, NULL), 0);
    size_t removed = 0;
    assert_ok(dc_table_remove_target(removal.table, &removal.target, &removed));
    finish_thread(adder, &removal.adder_returned, "the thread adding handlers");

    assert_int_equal(removed, 2);
    assert_false(atomic_load(&removal.notify_gave_up));
    assert_int_equal(atomic_load(&removal.notifies), 2);
    assert_int_equal(removal.failed_adds, 0);
    size_t grown = 0;
    assert_ok(dc_table_handler_count(removal.table, "growth", &grown));
    assert_int_equal(grown, removal.adds_wanted);
    dc_table_destroy(removal.table);
    dc_signature_release(signature);
}

/* ---- a destroy notify destroying its own table --------------------------------------------- */

/*
 * A destroy notify may be the last owner of its table and destroy it: the
 * remove (or destroy) that called the notify finishes without touching the
 * table afterwards, every other handler's notify runs once, and the table is
 * freed exactly once (a double free or a leak shows under ASan and valgrind).
 */
typedef struct self_destroying {
    dc_table *table;
    int destroyer_notifies;
    int destroys_returned;
    atomic_int others[2];
} self_destroying;

static self_destroying doomed;

static void destroy_table_from_notify(void *data) {
    (void)data;
    doomed.destroyer_notifies++;
    dc_table_destroy(doomed.table);
    doomed.destroys_returned++;
}

/* Three handlers; the one in the middle destroys the table from its notify,
 * so that a removal of all of them has more to do after it. */
static dc_handler_id set_up_self_destroying_table(void) {
    memset(&doomed, 0, sizeof doomed);
    doomed.table = create_table("self-destroying");
    dc_signature *signature = create_signature("v");
    const dc_handler_options destroying = {.destroy = destroy_table_from_notify};
    add_counted(doomed.table, "tick", "v", DC_FUNCTION(take_nothing), NULL, &doomed.others[0], NULL);
    dc_handler_id id = 0;
    assert_ok(dc_table_add(doomed.table, "tock", signature, DC_FUNCTION(take_nothing), NULL,
                           &destroying, &id));
    add_counted(doomed.table, "tack", "v", DC_FUNCTION(take_nothing), NULL, &doomed.others[1], NULL);
    dc_signature_release(signature);
    return id;
}

static void assert_every_notify_ran_once(void) {
    assert_int_equal(doomed.destroyer_notifies, 1);
    assert_int_equal(doomed.destroys_returned, 1);
    for (size_t i = 0; i < ARRAY_COUNT(doomed.others); i++) {
        if (atomic_load(&doomed.others[i]) != 1) {
            fail_msg("handler %zu: destroy notify ran %d times, expected once", i,
                     atomic_load(&doomed.others[i]));
        }
    }
}

static void destroy_notify_may_destroy_its_table_when_its_handler_is_removed(void **state) {
    (void)state;
    dc_handler_id id = set_up_self_destroying_table();
    assert_ok(dc_table_remove(doomed.table, id));
    assert_every_notify_ran_once();
}

static void destroy_notify_destroying_its_table_during_destroy_does_nothing_more(void **state) {
    (void)state;
    set_up_self_destroying_table();
    dc_table_destroy(doomed.table);
    assert_every_notify_ran_once();
}

/* ---- a destroy called inside an execute of another table, and adds to a dying table ---- */

/* What a handler of one table does to another table it destroys. */
static struct {
    dc_table *victim;
    int victim_notifies;
    int notifies_when_destroy_returned;
    dc_status add_after_destroy;
} outsider;

static void count_victim_notify(void *data) {
    (void)data;
    outsider.victim_notifies++;
}

static void victim_handler(void) {}

static void destroy_the_victim(void) {
    dc_table_destroy(outsider.victim);
    outsider.notifies_when_destroy_returned = outsider.victim_notifies;
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create("v", &signature));
    /* The table is still there until this thread's execute returns; adding
     * to it is refused. */
    outsider.add_after_destroy =
        dc_table_add(outsider.victim, "late", signature, DC_FUNCTION(victim_handler), NULL, NULL, NULL);
    dc_signature_release(signature);
}

static void destroy_from_a_handler_of_another_table_removes_at_once_and_refuses_adds(void **state) {
    (void)state;
    memset(&outsider, 0, sizeof outsider);
    dc_table *runner = NULL;
    dc_signature *signature = NULL;
    assert_ok(dc_table_create("runner", NULL, &runner));
    assert_ok(dc_table_create("victim", NULL, &outsider.victim));
    assert_ok(dc_signature_create("v", &signature));
    dc_handler_options options;
    memset(&options, 0, sizeof options);
    options.destroy = count_victim_notify;
    options.flags = DC__HANDLER_ALLOW_DUPLICATE;
    for (int i = 0; i < 3; i++)
        assert_ok(dc_table_add(outsider.victim, "tap", signature, DC_FUNCTION(victim_handler), NULL, &options, NULL));
    assert_ok(dc_table_add(runner, "go", signature, DC_FUNCTION(destroy_the_victim), NULL, NULL, NULL));
    dc_result result;
    assert_ok(dc_table_execute(runner, "go", NULL, 0, &result));
    assert_int_equal(result.handled, 1);
    /* The handlers went while the destroy ran; the free came after the
     * execute (ASan and valgrind see it, or its absence). */
    assert_int_equal(outsider.notifies_when_destroy_returned, 3);
    assert_int_equal(outsider.victim_notifies, 3);
    assert_int_equal(outsider.add_after_destroy, DC_ERR_STATE);
    outsider.victim = NULL; /* a table never freed is then a leak memcheck reports */
    dc_table_destroy(runner);
    dc_signature_release(signature);
}

int main(int argc, char **argv) {
    if (argc > 1) {
        cmocka_set_test_filter(argv[1]);
    }
    const struct CMUnitTest tests[] = {
        /* a destroy called from handlers */
        watched_test(destroy_from_a_handler_while_another_thread_runs_one_frees_the_table_once),
        watched_test(
            destroy_from_a_lean_handler_while_another_lean_execute_runs_frees_the_table_once),
        watched_test(
            destroy_from_a_queued_delivery_while_another_thread_runs_a_handler_frees_the_table_once),
        watched_test(destroy_from_handlers_on_two_threads_at_once_frees_the_table_once),
        /* an execute leaving while another thread destroys */
        watched_test(
            execute_requiring_a_handler_fails_without_touching_the_table_destroyed_meanwhile),
        /* blocks and removes from inside handlers on several threads */
        watched_test(handlers_blocking_themselves_on_two_threads_at_once_do_not_deadlock),
        watched_test(two_handlers_removing_each_other_on_two_threads_do_not_deadlock),
        watched_test(three_handlers_removing_each_other_in_a_cycle_do_not_deadlock),
        /* bookkeeping read while another thread grows it */
        watched_test(failed_type_check_names_its_handler_while_another_thread_adds_thousands),
        watched_test(removal_walks_its_handlers_safely_while_another_thread_adds_thousands),
        /* destroy notifies destroying their table */
        watched_test(destroy_notify_may_destroy_its_table_when_its_handler_is_removed),
        watched_test(destroy_notify_destroying_its_table_during_destroy_does_nothing_more),
        /* a destroy called inside an execute of another table */
        watched_test(destroy_from_a_handler_of_another_table_removes_at_once_and_refuses_adds),
    };
    return cmocka_run_group_tests_name("table lifecycle", tests, NULL, NULL);
}
