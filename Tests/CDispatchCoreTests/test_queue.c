/*
 * test_queue.c — queued delivery: a handler registered with a dc_queue runs at
 * once on the queue's owner thread and is posted from every other thread, then
 * delivered in FIFO order when the owner drains. A consumer thread waits on the
 * queue's fd with epoll while producers execute; the fd is readable exactly
 * while deliveries are pending; strings are copied and objects retained through
 * the table's callbacks, and every retain is balanced by a release whether the
 * delivery is made or dropped (handler removed or blocked, queue or table
 * destroyed). Drain runs only what was pending when it started; ownership moves
 * with dc_queue_bind_to_current_thread; bad input gives statuses.
 *
 * cmocka's assertions belong to the main thread: other threads count what went
 * wrong and the main thread asserts on the counts. Waits have deadlines, and an
 * alarm ends the process if something hangs anyway.
 */
#include "test_support.h"
#include "thread_support.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

enum {
    PRODUCER_COUNT = 3,
    POSTS_PER_PRODUCER = 2000,
    WAIT_MILLISECONDS = 2500,
    WATCHDOG_SECONDS = 60
};

/* True when the fd is readable right now (poll with a zero timeout). */
static bool fd_readable(int fd) {
    struct pollfd entry = {.fd = fd, .events = POLLIN};
    return poll(&entry, 1, 0) == 1 && (entry.revents & POLLIN) != 0;
}

/* ---- reference-counted test objects ------------------------------------------- */

/* `references` starts at 1, the test's own; the table's retains add to it. */
typedef struct tracked_object {
    atomic_long references;
} tracked_object;

static atomic_long retains, releases;

static void retain_tracked(void *object) {
    atomic_fetch_add(&retains, 1);
    atomic_fetch_add(&((tracked_object *)object)->references, 1);
}

static void release_tracked(void *object) {
    atomic_fetch_add(&releases, 1);
    atomic_fetch_sub(&((tracked_object *)object)->references, 1);
}

static const dc_object_callbacks tracking_callbacks = {retain_tracked, release_tracked};

static dc_table *create_tracking_table(void) {
    dc_table *table = NULL;
    assert_ok(dc_table_create("queue", &tracking_callbacks, &table));
    return table;
}

static dc_queue *create_queue(void) {
    dc_queue *queue = NULL;
    assert_ok(dc_queue_create(&queue));
    return queue;
}

/* ---- what handlers saw ------------------------------------------------------- */

static atomic_ulong handler_calls;
static atomic_ulong destroy_notifies;
static pthread_t last_handler_thread;
static long references_at_last_call;
static char received_texts[4][64];
static const char *received_pointers[4];

static int reset_observations(void **state) {
    (void)state;
    atomic_store(&retains, 0);
    atomic_store(&releases, 0);
    atomic_store(&handler_calls, 0);
    atomic_store(&destroy_notifies, 0);
    references_at_last_call = 0;
    memset(received_texts, 0, sizeof received_texts);
    memset(received_pointers, 0, sizeof received_pointers);
    return 0;
}

CALLEE static void plain_handler(void) {
    atomic_fetch_add(&handler_calls, 1);
    last_handler_thread = pthread_self();
}

CALLEE static void object_handler(void *context, tracked_object *object) {
    (void)context;
    atomic_fetch_add(&handler_calls, 1);
    references_at_last_call = atomic_load(&object->references);
}

CALLEE static void text_handler(char *text) {
    unsigned long call = atomic_fetch_add(&handler_calls, 1);
    if (call < ARRAY_COUNT(received_texts)) {
        snprintf(received_texts[call], sizeof received_texts[call], "%s", text);
        received_pointers[call] = text;
    }
}

static void count_destroy_notify(void *data) {
    (void)data;
    atomic_fetch_add(&destroy_notifies, 1);
}

static dc_handler_id add_queued(dc_table *table, const char *event, const char *encoding,
                                dc_function function, void *target, dc_queue *queue) {
    dc_signature *signature = create_signature(encoding);
    dc_handler_options options = {.queue = queue, .destroy = count_destroy_notify};
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, event, signature, function, target, &options, &id));
    dc_signature_release(signature);
    return id;
}

/* ---- executing from another thread --------------------------------------------- */

typedef struct remote_execute {
    dc_table *table;
    const char *event;
    const dc_value *arguments;
    size_t count;
    size_t times;
    dc_status status; /* the first failure, or DC_OK */
    size_t handled;
    size_t queued;
    size_t dropped;
} remote_execute;

static void *run_remote_execute(void *context) {
    remote_execute *x = context;
    x->status = DC_OK;
    for (size_t i = 0; i < x->times; i++) {
        dc_result result;
        dc_status status = dc_table_execute(x->table, x->event, x->arguments, x->count, &result);
        if (status != DC_OK) {
            if (x->status == DC_OK) {
                x->status = status;
            }
            continue;
        }
        x->handled += result.handled;
        x->queued += result.queued;
        x->dropped += result.dropped;
    }
    return NULL;
}

/* Executes `event` `times` times on a new thread and waits for it. */
static remote_execute execute_elsewhere(dc_table *table, const char *event,
                                        const dc_value *arguments, size_t count, size_t times) {
    remote_execute x = {.table = table, .event = event, .arguments = arguments, .count = count,
                        .times = times};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, run_remote_execute, &x), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    return x;
}

/* ---- an epoll consumer and several producers ------------------------------------ */

typedef struct consumer {
    pthread_t thread;
    dc_queue *queue;
    atomic_bool ready;
    atomic_bool producers_done;
    size_t expected;
    size_t delivered;
    size_t drains;
    size_t empty_wakeups;
    dc_status drain_failure;
    bool epoll_failed;
    bool timed_out;
    bool readable_at_end;
    size_t pending_at_end;
} consumer;

static consumer the_consumer;
static int64_t next_sequence[PRODUCER_COUNT];
static atomic_ulong out_of_order, off_owner_calls, unretained_calls;

CALLEE static void sequence_handler(int64_t producer, int64_t sequence, tracked_object *object) {
    atomic_fetch_add(&handler_calls, 1);
    if (!dc_queue_is_owner(the_consumer.queue)) {
        atomic_fetch_add(&off_owner_calls, 1);
    }
    if (atomic_load(&object->references) < 2) {
        atomic_fetch_add(&unretained_calls, 1);
    }
    if (producer < 0 || producer >= PRODUCER_COUNT || next_sequence[producer] != sequence) {
        atomic_fetch_add(&out_of_order, 1);
    } else {
        next_sequence[producer]++;
    }
}

static void *run_consumer(void *context) {
    consumer *c = context;
    if (dc_queue_create(&c->queue) != DC_OK) {
        c->epoll_failed = true;
        atomic_store(&c->ready, true);
        return NULL;
    }
    int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event interest = {.events = EPOLLIN};
    if (epoll_fd < 0 || epoll_ctl(epoll_fd, EPOLL_CTL_ADD, dc_queue_fd(c->queue), &interest) != 0) {
        c->epoll_failed = true;
    }
    atomic_store(&c->ready, true);

    uint64_t deadline = now_ns() + (uint64_t)WAIT_MILLISECONDS * 1000000u;
    while (!c->epoll_failed && c->delivered < c->expected) {
        if (now_ns() > deadline) {
            c->timed_out = true;
            break;
        }
        struct epoll_event event;
        int ready = epoll_wait(epoll_fd, &event, 1, 100);
        if (ready < 0) {
            c->epoll_failed = true;
            break;
        }
        if (ready == 0) {
            continue;
        }
        size_t delivered = 0;
        dc_status status = dc_queue_drain(c->queue, &delivered);
        if (status != DC_OK && c->drain_failure == DC_OK) {
            c->drain_failure = status;
        }
        c->drains++;
        c->empty_wakeups += delivered == 0;
        c->delivered += delivered;
    }
    /* Every delivery is in; once the producers have returned, nothing is pending. */
    wait_for_flag(&c->producers_done, WAIT_MILLISECONDS);
    c->readable_at_end = fd_readable(dc_queue_fd(c->queue));
    c->pending_at_end = dc_queue_pending(c->queue);
    if (epoll_fd >= 0) {
        close(epoll_fd);
    }
    return NULL;
}

typedef struct producer {
    pthread_t thread;
    dc_table *table;
    dc_event_id event;
    int64_t index;
    tracked_object *object;
    pthread_barrier_t *start;
    size_t failed_executes;
    size_t not_queued;
} producer;

static void *run_producer(void *context) {
    producer *p = context;
    pthread_barrier_wait(p->start);
    for (int64_t sequence = 0; sequence < POSTS_PER_PRODUCER; sequence++) {
        const dc_value arguments[] = {dc_int64(p->index), dc_int64(sequence), dc_object(p->object)};
        dc_result result;
        if (dc_table_execute_id(p->table, p->event, arguments, 3, &result) != DC_OK) {
            p->failed_executes++;
        } else if (result.queued != 1 || result.handled != 0) {
            p->not_queued++;
        }
    }
    return NULL;
}

static void epoll_consumer_receives_every_delivery_in_order_with_balanced_references(
    void **state) {
    (void)state;
    dc_table *table = create_tracking_table();
    memset(&the_consumer, 0, sizeof the_consumer);
    memset(next_sequence, 0, sizeof next_sequence);
    atomic_store(&out_of_order, 0);
    atomic_store(&off_owner_calls, 0);
    atomic_store(&unretained_calls, 0);
    the_consumer.expected = PRODUCER_COUNT * POSTS_PER_PRODUCER;
    assert_int_equal(pthread_create(&the_consumer.thread, NULL, run_consumer, &the_consumer), 0);
    assert_true(wait_for_flag(&the_consumer.ready, WAIT_MILLISECONDS));
    assert_false(the_consumer.epoll_failed);
    assert_false(dc_queue_is_owner(the_consumer.queue));

    dc_signature *signature = create_signature("vqq@");
    dc_handler_options options = {.queue = the_consumer.queue};
    dc_event_id event = 0;
    assert_ok(dc_table_intern(table, "sequence", &event));
    dc_handler_id id = 0;
    assert_ok(dc_table_add_id(table, event, signature, DC_FUNCTION(sequence_handler), NULL,
                              &options, &id));

    tracked_object objects[PRODUCER_COUNT];
    producer producers[PRODUCER_COUNT];
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, PRODUCER_COUNT), 0);
    for (int i = 0; i < PRODUCER_COUNT; i++) {
        atomic_init(&objects[i].references, 1);
        producers[i] = (producer){.table = table, .event = event, .index = i,
                                  .object = &objects[i], .start = &start};
        assert_int_equal(pthread_create(&producers[i].thread, NULL, run_producer, &producers[i]),
                         0);
    }
    for (int i = 0; i < PRODUCER_COUNT; i++) {
        assert_int_equal(pthread_join(producers[i].thread, NULL), 0);
    }
    atomic_store(&the_consumer.producers_done, true);
    assert_int_equal(pthread_join(the_consumer.thread, NULL), 0);
    pthread_barrier_destroy(&start);

    for (int i = 0; i < PRODUCER_COUNT; i++) {
        assert_int_equal(producers[i].failed_executes, 0);
        assert_int_equal(producers[i].not_queued, 0);
        assert_int_equal(next_sequence[i], POSTS_PER_PRODUCER);
    }
    assert_false(the_consumer.epoll_failed);
    assert_false(the_consumer.timed_out);
    assert_ok(the_consumer.drain_failure);
    assert_int_equal(the_consumer.delivered, PRODUCER_COUNT * POSTS_PER_PRODUCER);
    assert_int_equal(atomic_load(&handler_calls), PRODUCER_COUNT * POSTS_PER_PRODUCER);
    assert_int_equal(atomic_load(&out_of_order), 0);
    assert_int_equal(atomic_load(&off_owner_calls), 0);
    assert_int_equal(atomic_load(&unretained_calls), 0);
    if (the_consumer.readable_at_end) {
        fail_msg("the queue's fd is readable with nothing pending (%zu pending, %zu drains, "
                 "%zu of them empty)",
                 the_consumer.pending_at_end, the_consumer.drains, the_consumer.empty_wakeups);
    }
    assert_int_equal(the_consumer.pending_at_end, 0);
    assert_int_equal(atomic_load(&retains), PRODUCER_COUNT * POSTS_PER_PRODUCER);
    assert_int_equal(atomic_load(&releases), PRODUCER_COUNT * POSTS_PER_PRODUCER);
    for (int i = 0; i < PRODUCER_COUNT; i++) {
        assert_int_equal(atomic_load(&objects[i].references), 1);
    }

    assert_ok(dc_table_remove(table, id));
    dc_table_destroy(table);
    dc_queue_destroy(the_consumer.queue);
    dc_signature_release(signature);
}

/* ---- the fd and pending count ------------------------------------------------------ */

static void fd_is_readable_while_deliveries_are_pending_and_not_after_drain(void **state) {
    (void)state;
    dc_table *table = create_tracking_table();
    dc_queue *queue = create_queue();
    add_queued(table, "ping", "v", DC_FUNCTION(plain_handler), NULL, queue);
    int fd = dc_queue_fd(queue);
    assert_true(fd >= 0);
    assert_false(fd_readable(fd));
    assert_int_equal(dc_queue_pending(queue), 0);

    remote_execute x = execute_elsewhere(table, "ping", NULL, 0, 3);
    assert_ok(x.status);
    assert_int_equal(x.queued, 3);
    assert_int_equal(x.handled, 0);
    assert_int_equal(atomic_load(&handler_calls), 0);
    assert_int_equal(dc_queue_pending(queue), 3);
    assert_true(fd_readable(fd));
    assert_true(fd_readable(fd)); /* looking does not consume */

    size_t delivered = 99;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 3);
    assert_int_equal(atomic_load(&handler_calls), 3);
    assert_true(pthread_equal(last_handler_thread, pthread_self()));
    assert_false(fd_readable(fd));
    assert_int_equal(dc_queue_pending(queue), 0);

    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 0);
    assert_false(fd_readable(fd));

    x = execute_elsewhere(table, "ping", NULL, 0, 1);
    assert_int_equal(x.queued, 1);
    assert_true(fd_readable(fd));
    assert_ok(dc_queue_drain(queue, NULL));
    assert_int_equal(atomic_load(&handler_calls), 4);
    assert_false(fd_readable(fd));

    dc_table_destroy(table);
    dc_queue_destroy(queue);
}

/* ---- the owner thread runs at once ------------------------------------------------ */

CALLEE static void direct_handler(void) { atomic_fetch_add(&handler_calls, 100); }

static void owner_thread_runs_the_handler_at_once_and_other_threads_post(void **state) {
    (void)state;
    dc_table *table = create_tracking_table();
    dc_queue *queue = create_queue();
    assert_true(dc_queue_is_owner(queue));
    add_queued(table, "tap", "v", DC_FUNCTION(plain_handler), NULL, queue);

    dc_result result;
    assert_ok(dc_table_execute(table, "tap", NULL, 0, &result));
    assert_int_equal(result.handled, 1);
    assert_int_equal(result.queued, 0);
    assert_int_equal(atomic_load(&handler_calls), 1);
    assert_true(pthread_equal(last_handler_thread, pthread_self()));
    assert_int_equal(dc_queue_pending(queue), 0);

    remote_execute x = execute_elsewhere(table, "tap", NULL, 0, 1);
    assert_ok(x.status);
    assert_int_equal(x.handled, 0);
    assert_int_equal(x.queued, 1);
    assert_int_equal(atomic_load(&handler_calls), 1);
    assert_int_equal(dc_queue_pending(queue), 1);
    size_t delivered = 0;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 1);
    assert_int_equal(atomic_load(&handler_calls), 2);
    assert_true(pthread_equal(last_handler_thread, pthread_self()));

    /* A handler without a queue runs on the executing thread beside a posted one. */
    dc_signature *signature = create_signature("v");
    assert_ok(dc_table_add(table, "tap", signature, DC_FUNCTION(direct_handler), NULL, NULL, NULL));
    x = execute_elsewhere(table, "tap", NULL, 0, 1);
    assert_ok(x.status);
    assert_int_equal(x.handled, 1);
    assert_int_equal(x.queued, 1);
    assert_int_equal(atomic_load(&handler_calls), 102);
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 1);
    assert_int_equal(atomic_load(&handler_calls), 103);

    dc_table_destroy(table);
    dc_queue_destroy(queue);
    dc_signature_release(signature);
}

/* ---- strings are copied ------------------------------------------------------------- */

typedef struct text_poster {
    dc_table *table;
    dc_status status;
    size_t queued;
} text_poster;

/* Posts three texts from one heap buffer, overwriting it after each execute and
 * freeing it at the end: what the handler later sees must be copies. */
static void *run_text_poster(void *context) {
    text_poster *p = context;
    static const char *const texts[] = {"first text", "second text", "third text"};
    char *buffer = malloc(64);
    if (buffer == NULL) {
        p->status = DC_ERR_NO_MEMORY;
        return NULL;
    }
    for (size_t i = 0; i < ARRAY_COUNT(texts); i++) {
        snprintf(buffer, 64, "%s", texts[i]);
        const dc_value arguments[] = {dc_string(buffer)};
        dc_result result;
        dc_status status = dc_table_execute(p->table, "say", arguments, 1, &result);
        if (status != DC_OK && p->status == DC_OK) {
            p->status = status;
        }
        p->queued += status == DC_OK ? result.queued : 0;
        memset(buffer, 'X', 63);
        buffer[63] = '\0';
    }
    free(buffer);
    return NULL;
}

static void queued_string_arguments_are_copied_when_posted(void **state) {
    (void)state;
    dc_table *table = create_tracking_table();
    dc_queue *queue = create_queue();
    add_queued(table, "say", "v*", DC_FUNCTION(text_handler), NULL, queue);

    text_poster poster = {.table = table};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, run_text_poster, &poster), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_ok(poster.status);
    assert_int_equal(poster.queued, 3);

    size_t delivered = 0;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 3);
    assert_string_equal(received_texts[0], "first text");
    assert_string_equal(received_texts[1], "second text");
    assert_string_equal(received_texts[2], "third text");
    assert_ptr_not_equal(received_pointers[0], received_pointers[1]);
    assert_int_equal(atomic_load(&retains), 0); /* strings are copied, not retained */

    dc_table_destroy(table);
    dc_queue_destroy(queue);
}

/* ---- objects are retained while queued ---------------------------------------------- */

static void queued_object_arguments_are_retained_until_delivered_then_released(void **state) {
    (void)state;
    dc_table *table = create_tracking_table();
    dc_queue *queue = create_queue();
    int context = 0;
    add_queued(table, "hand", "v^v@", DC_FUNCTION(object_handler), &context, queue);
    tracked_object object;
    atomic_init(&object.references, 1);
    const dc_value arguments[] = {dc_object(&object)};

    remote_execute x = execute_elsewhere(table, "hand", arguments, 1, 5);
    assert_ok(x.status);
    assert_int_equal(x.queued, 5);
    assert_int_equal(x.dropped, 0);
    assert_int_equal(atomic_load(&retains), 5);
    assert_int_equal(atomic_load(&releases), 0);
    assert_int_equal(atomic_load(&object.references), 6);

    size_t delivered = 0;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 5);
    assert_int_equal(atomic_load(&handler_calls), 5);
    assert_true(references_at_last_call >= 2); /* still held while the handler runs */
    assert_int_equal(atomic_load(&releases), 5);
    assert_int_equal(atomic_load(&object.references), 1);

    /* On the owner thread nothing is held once the execute returns. */
    dc_result result;
    assert_ok(dc_table_execute(table, "hand", arguments, 1, &result));
    assert_int_equal(result.handled, 1);
    assert_int_equal(atomic_load(&retains), atomic_load(&releases));
    assert_int_equal(atomic_load(&object.references), 1);

    dc_table_destroy(table);
    dc_queue_destroy(queue);
    assert_int_equal(atomic_load(&retains), atomic_load(&releases));
}

/* ---- deliveries dropped, never delivered ----------------------------------------------- */

typedef enum removal { REMOVE_BY_ID, REMOVE_BY_TARGET, REMOVE_BY_EVENT, REMOVE_ALL } removal;

static void check_removal_drops_pending_deliveries(removal how) {
    reset_observations(NULL);
    dc_table *table = create_tracking_table();
    dc_queue *queue = create_queue();
    int context = 0;
    dc_handler_id id = add_queued(table, "hand", "v^v@", DC_FUNCTION(object_handler), &context,
                                  queue);
    tracked_object object;
    atomic_init(&object.references, 1);
    const dc_value arguments[] = {dc_object(&object)};
    remote_execute x = execute_elsewhere(table, "hand", arguments, 1, 4);
    assert_ok(x.status);
    assert_int_equal(x.queued, 4);
    assert_int_equal(atomic_load(&retains), 4);

    size_t removed = 0;
    switch (how) {
    case REMOVE_BY_ID: assert_ok(dc_table_remove(table, id)); removed = 1; break;
    case REMOVE_BY_TARGET: assert_ok(dc_table_remove_target(table, &context, &removed)); break;
    case REMOVE_BY_EVENT: assert_ok(dc_table_remove_event(table, "hand", &removed)); break;
    default: assert_ok(dc_table_remove_all(table, &removed)); break;
    }
    assert_int_equal(removed, 1);
    assert_int_equal(atomic_load(&destroy_notifies), 1);
    /* Dropped when the remove returns: released, and never delivered. */
    assert_int_equal(atomic_load(&releases), 4);
    assert_int_equal(atomic_load(&object.references), 1);

    size_t delivered = 99;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 0);
    assert_int_equal(atomic_load(&handler_calls), 0);
    assert_int_equal(dc_queue_pending(queue), 0);
    assert_false(fd_readable(dc_queue_fd(queue)));

    dc_table_destroy(table);
    dc_queue_destroy(queue);
    assert_int_equal(atomic_load(&retains), atomic_load(&releases));
}

static void removing_a_handler_drops_and_releases_its_pending_deliveries(void **state) {
    (void)state;
    check_removal_drops_pending_deliveries(REMOVE_BY_ID);
    check_removal_drops_pending_deliveries(REMOVE_BY_TARGET);
    check_removal_drops_pending_deliveries(REMOVE_BY_EVENT);
    check_removal_drops_pending_deliveries(REMOVE_ALL);
}

static void destroying_the_queue_drops_and_releases_pending_deliveries(void **state) {
    (void)state;
    dc_table *table = create_tracking_table();
    dc_queue *queue = create_queue();
    int context = 0;
    dc_handler_id id = add_queued(table, "hand", "v^v@", DC_FUNCTION(object_handler), &context,
                                  queue);
    tracked_object object;
    atomic_init(&object.references, 1);
    const dc_value arguments[] = {dc_object(&object)};
    remote_execute x = execute_elsewhere(table, "hand", arguments, 1, 4);
    assert_int_equal(x.queued, 4);
    assert_int_equal(atomic_load(&retains), 4);

    dc_queue_destroy(queue);
    assert_int_equal(atomic_load(&releases), 4);
    assert_int_equal(atomic_load(&object.references), 1);
    assert_int_equal(atomic_load(&handler_calls), 0);
    /* The handler keeps the queue alive, but it delivers nothing more. */
    assert_int_equal(dc_queue_fd(queue), -1);
    x = execute_elsewhere(table, "hand", arguments, 1, 2);
    assert_ok(x.status);
    assert_int_equal(x.queued, 0);
    assert_int_equal(x.dropped, 2);
    assert_int_equal(atomic_load(&retains), atomic_load(&releases));
    assert_int_equal(atomic_load(&object.references), 1);
    assert_int_equal(atomic_load(&handler_calls), 0);

    assert_ok(dc_table_remove(table, id));
    assert_int_equal(atomic_load(&destroy_notifies), 1);
    dc_table_destroy(table);
    assert_int_equal(atomic_load(&retains), atomic_load(&releases));
}

static void destroying_the_table_drops_and_releases_pending_deliveries(void **state) {
    (void)state;
    dc_table *table = create_tracking_table();
    dc_queue *queue = create_queue();
    int context = 0;
    add_queued(table, "hand", "v^v@", DC_FUNCTION(object_handler), &context, queue);
    tracked_object object;
    atomic_init(&object.references, 1);
    const dc_value arguments[] = {dc_object(&object)};
    remote_execute x = execute_elsewhere(table, "hand", arguments, 1, 4);
    assert_int_equal(x.queued, 4);

    dc_table_destroy(table);
    assert_int_equal(atomic_load(&destroy_notifies), 1);
    assert_int_equal(atomic_load(&retains), 4);
    assert_int_equal(atomic_load(&releases), 4);
    assert_int_equal(atomic_load(&object.references), 1);

    size_t delivered = 99;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 0);
    assert_int_equal(atomic_load(&handler_calls), 0);
    assert_int_equal(dc_queue_pending(queue), 0);
    assert_false(fd_readable(dc_queue_fd(queue)));
    dc_queue_destroy(queue);
}

static void a_blocked_handler_s_pending_deliveries_are_dropped_when_due(void **state) {
    (void)state;
    dc_table *table = create_tracking_table();
    dc_queue *queue = create_queue();
    int context = 0;
    dc_handler_id id = add_queued(table, "hand", "v^v@", DC_FUNCTION(object_handler), &context,
                                  queue);
    tracked_object object;
    atomic_init(&object.references, 1);
    const dc_value arguments[] = {dc_object(&object)};
    remote_execute x = execute_elsewhere(table, "hand", arguments, 1, 3);
    assert_int_equal(x.queued, 3);

    assert_ok(dc_table_block(table, id));
    size_t delivered = 99;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 0);
    assert_int_equal(atomic_load(&handler_calls), 0);
    assert_int_equal(atomic_load(&releases), 3);
    assert_int_equal(atomic_load(&object.references), 1);
    assert_false(fd_readable(dc_queue_fd(queue)));

    /* While blocked, executes elsewhere post nothing. */
    x = execute_elsewhere(table, "hand", arguments, 1, 2);
    assert_ok(x.status);
    assert_int_equal(x.queued, 0);
    assert_int_equal(x.handled, 0);
    assert_int_equal(dc_queue_pending(queue), 0);
    assert_int_equal(atomic_load(&retains), atomic_load(&releases));

    /* Unblocking does not bring dropped deliveries back. */
    assert_ok(dc_table_unblock(table, id));
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 0);
    assert_int_equal(atomic_load(&handler_calls), 0);

    x = execute_elsewhere(table, "hand", arguments, 1, 2);
    assert_int_equal(x.queued, 2);
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 2);
    assert_int_equal(atomic_load(&handler_calls), 2);
    assert_int_equal(atomic_load(&retains), atomic_load(&releases));
    assert_int_equal(atomic_load(&object.references), 1);

    dc_table_destroy(table);
    dc_queue_destroy(queue);
}

/* ---- drain runs only what was pending when it started ------------------------------- */

enum { MAX_REPOSTS = 4 };

static dc_table *repost_table;
static atomic_int reposts_left;
static atomic_ulong reposts_stuck;
static pthread_t repost_threads[MAX_REPOSTS];
static atomic_bool repost_done[MAX_REPOSTS];
static int repost_count;

static void *run_repost(void *context) {
    atomic_bool *done = context;
    dc_table_execute(repost_table, "again", NULL, 0, NULL);
    atomic_store(done, true);
    return NULL;
}

/* Executes its own event from another thread while the drain is running, and
 * waits for that execute to return (so the drain must not hold a lock the
 * posting thread needs). */
CALLEE static void reposting_handler(void) {
    atomic_fetch_add(&handler_calls, 1);
    if (atomic_fetch_sub(&reposts_left, 1) <= 0 || repost_count >= MAX_REPOSTS) {
        return;
    }
    int slot = repost_count++;
    atomic_store(&repost_done[slot], false);
    if (pthread_create(&repost_threads[slot], NULL, run_repost, &repost_done[slot]) != 0) {
        atomic_fetch_add(&reposts_stuck, 1);
        repost_count--;
        return;
    }
    if (!wait_for_flag(&repost_done[slot], WAIT_MILLISECONDS)) {
        atomic_fetch_add(&reposts_stuck, 1);
    }
}

static void drain_runs_only_the_deliveries_pending_when_it_started(void **state) {
    (void)state;
    dc_table *table = create_tracking_table();
    dc_queue *queue = create_queue();
    add_queued(table, "again", "v", DC_FUNCTION(reposting_handler), NULL, queue);
    repost_table = table;
    repost_count = 0;
    atomic_store(&reposts_stuck, 0);
    atomic_store(&reposts_left, 2);

    remote_execute x = execute_elsewhere(table, "again", NULL, 0, 2);
    assert_int_equal(x.queued, 2);
    size_t delivered = 0;
    assert_ok(dc_queue_drain(queue, &delivered));
    for (int i = 0; i < repost_count; i++) {
        assert_int_equal(pthread_join(repost_threads[i], NULL), 0);
    }
    assert_int_equal(atomic_load(&reposts_stuck), 0);
    assert_int_equal(repost_count, 2);
    assert_int_equal(delivered, 2);
    assert_int_equal(atomic_load(&handler_calls), 2);
    assert_int_equal(dc_queue_pending(queue), 2);
    assert_true(fd_readable(dc_queue_fd(queue)));

    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 2);
    assert_int_equal(atomic_load(&handler_calls), 4);
    assert_int_equal(dc_queue_pending(queue), 0);
    assert_false(fd_readable(dc_queue_fd(queue)));
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 0);

    dc_table_destroy(table);
    dc_queue_destroy(queue);
}

/* ---- moving ownership ---------------------------------------------------------------- */

typedef struct new_owner {
    dc_table *table;
    dc_queue *queue;
    pthread_barrier_t step;
    pthread_t thread;
    bool owner_after_bind;
    dc_status bind_status;
    size_t handled_at_once;
    size_t queued_at_once;
    size_t delivered;
    dc_status drain_status;
    bool owner_after_rebind;
} new_owner;

static void *run_new_owner(void *context) {
    new_owner *o = context;
    o->bind_status = dc_queue_bind_to_current_thread(o->queue);
    o->owner_after_bind = dc_queue_is_owner(o->queue);
    dc_result result = {0};
    dc_table_execute(o->table, "tap", NULL, 0, &result);
    o->handled_at_once = result.handled;
    o->queued_at_once = result.queued;
    pthread_barrier_wait(&o->step); /* 1: bound; the main thread posts */
    pthread_barrier_wait(&o->step); /* 2: posted */
    o->drain_status = dc_queue_drain(o->queue, &o->delivered);
    pthread_barrier_wait(&o->step); /* 3: drained; the main thread binds back */
    pthread_barrier_wait(&o->step); /* 4: bound back */
    o->owner_after_rebind = dc_queue_is_owner(o->queue);
    return NULL;
}

static void binding_to_the_current_thread_moves_ownership(void **state) {
    (void)state;
    new_owner o = {.table = create_tracking_table(), .queue = create_queue()};
    add_queued(o.table, "tap", "v", DC_FUNCTION(plain_handler), NULL, o.queue);
    assert_int_equal(pthread_barrier_init(&o.step, NULL, 2), 0);
    assert_int_equal(pthread_create(&o.thread, NULL, run_new_owner, &o), 0);

    pthread_barrier_wait(&o.step); /* 1 */
    bool main_owner_after_bind = dc_queue_is_owner(o.queue);
    dc_result result;
    dc_status posted = dc_table_execute(o.table, "tap", NULL, 0, &result);
    unsigned long calls_after_post = atomic_load(&handler_calls);
    pthread_barrier_wait(&o.step); /* 2 */
    pthread_barrier_wait(&o.step); /* 3 */
    pthread_t drained_on = last_handler_thread;
    dc_status rebound = dc_queue_bind_to_current_thread(o.queue);
    pthread_barrier_wait(&o.step); /* 4 */
    assert_int_equal(pthread_join(o.thread, NULL), 0);
    pthread_barrier_destroy(&o.step);

    assert_ok(o.bind_status);
    assert_true(o.owner_after_bind);
    assert_int_equal(o.handled_at_once, 1);
    assert_int_equal(o.queued_at_once, 0);
    assert_false(main_owner_after_bind);
    assert_ok(posted);
    assert_int_equal(result.handled, 0);
    assert_int_equal(result.queued, 1);
    assert_int_equal(calls_after_post, 1);
    assert_ok(o.drain_status);
    assert_int_equal(o.delivered, 1);
    assert_true(pthread_equal(drained_on, o.thread));
    assert_ok(rebound);
    assert_false(o.owner_after_rebind);
    assert_true(dc_queue_is_owner(o.queue));

    assert_ok(dc_table_execute(o.table, "tap", NULL, 0, &result));
    assert_int_equal(result.handled, 1);
    assert_int_equal(result.queued, 0);
    assert_int_equal(atomic_load(&handler_calls), 3);

    dc_table_destroy(o.table);
    dc_queue_destroy(o.queue);
}

/* ---- bad input ----------------------------------------------------------------------- */

static void *check_ownership_elsewhere(void *context) {
    return dc_queue_is_owner(context) ? context : NULL;
}

static void queue_functions_report_null_and_bad_input(void **state) {
    (void)state;
    assert_failure(dc_queue_create(NULL), DC_ERR_NULL_ARGUMENT, "out");
    dc_queue_destroy(NULL);
    assert_failure(dc_queue_bind_to_current_thread(NULL), DC_ERR_NULL_ARGUMENT, "queue");
    assert_false(dc_queue_is_owner(NULL));
    assert_int_equal(dc_queue_fd(NULL), -1);
    assert_int_equal(dc_queue_pending(NULL), 0);
    size_t delivered = 77;
    assert_failure(dc_queue_drain(NULL, &delivered), DC_ERR_NULL_ARGUMENT, "queue");
    assert_int_equal(delivered, 77);

    dc_queue *queue = create_queue();
    assert_true(dc_queue_is_owner(queue));
    assert_true(dc_queue_fd(queue) >= 0);
    assert_false(fd_readable(dc_queue_fd(queue)));
    assert_int_equal(dc_queue_pending(queue), 0);
    assert_ok(dc_queue_drain(queue, NULL));
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 0);
    pthread_t thread;
    void *owner_elsewhere = queue;
    assert_int_equal(pthread_create(&thread, NULL, check_ownership_elsewhere, queue), 0);
    assert_int_equal(pthread_join(thread, &owner_elsewhere), 0);
    assert_null(owner_elsewhere);
    dc_queue_destroy(queue);
}

int main(void) {
    alarm(WATCHDOG_SECONDS); /* a hang ends the process (and fails make test-c) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(epoll_consumer_receives_every_delivery_in_order_with_balanced_references,
                               reset_observations),
        cmocka_unit_test_setup(fd_is_readable_while_deliveries_are_pending_and_not_after_drain,
                               reset_observations),
        cmocka_unit_test_setup(owner_thread_runs_the_handler_at_once_and_other_threads_post,
                               reset_observations),
        cmocka_unit_test_setup(queued_string_arguments_are_copied_when_posted, reset_observations),
        cmocka_unit_test_setup(queued_object_arguments_are_retained_until_delivered_then_released,
                               reset_observations),
        cmocka_unit_test_setup(removing_a_handler_drops_and_releases_its_pending_deliveries,
                               reset_observations),
        cmocka_unit_test_setup(destroying_the_queue_drops_and_releases_pending_deliveries,
                               reset_observations),
        cmocka_unit_test_setup(destroying_the_table_drops_and_releases_pending_deliveries,
                               reset_observations),
        cmocka_unit_test_setup(a_blocked_handler_s_pending_deliveries_are_dropped_when_due,
                               reset_observations),
        cmocka_unit_test_setup(drain_runs_only_the_deliveries_pending_when_it_started,
                               reset_observations),
        cmocka_unit_test_setup(binding_to_the_current_thread_moves_ownership, reset_observations),
        cmocka_unit_test_setup(queue_functions_report_null_and_bad_input, reset_observations),
    };
    return cmocka_run_group_tests_name("queue", tests, NULL, NULL);
}
