/*
 * test_struct_threads.c — structs by value across threads, each promise raced
 * by four threads and bounded by a watchdog:
 *  - struct signatures are shared and interned from any thread: threads
 *    create, query, call through and release the same struct signatures,
 *    spelled differently, while their last reference comes and goes;
 *  - a struct layout gets one identity however many threads see it first,
 *    and distinct layouts distinct ones, while others read identities given;
 *  - a queued delivery holds a copy of a struct argument: executing threads
 *    overwrite their struct as soon as each execute returns, while the queue's
 *    owner drains on its own thread;
 *  - a table closure taking and returning structs may be called from any
 *    number of threads at once, while handlers of its event come and go.
 *
 * Worker threads record the first thing that went wrong; the main thread
 * asserts on it (cmocka's assertions belong to the main thread).
 */
#include "test_support.h"
#include "thread_support.h"

#include <pthread.h>
#include <stdlib.h>

enum { THREADS = 4, WATCHDOG_MS = 30000 };

typedef struct point {
    double x, y;
} point;

typedef struct rect {
    point origin, size;
} rect;

/* A 24-byte struct: passed in memory on x86-64, where libffi copies it. */
typedef struct stamp {
    int64_t sequence;
    int64_t check; /* ~sequence */
    int64_t thread;
} stamp;

CALLEE static rect grow(rect r, double by) {
    rect grown = {{r.origin.x - by, r.origin.y - by}, {r.size.x + 2 * by, r.size.y + 2 * by}};
    return grown;
}

typedef struct race {
    pthread_barrier_t start;
    atomic_int finished;
    atomic_bool stop;
    char failure[256];
    pthread_mutex_t failure_lock;
} race;

static void record_failure(race *r, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void record_failure(race *r, const char *format, ...) {
    pthread_mutex_lock(&r->failure_lock);
    if (r->failure[0] == '\0') {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(r->failure, sizeof r->failure, format, arguments);
        va_end(arguments);
    }
    pthread_mutex_unlock(&r->failure_lock);
}

static void race_begin(race *r, unsigned parties) {
    memset(r, 0, sizeof *r);
    pthread_barrier_init(&r->start, NULL, parties);
    pthread_mutex_init(&r->failure_lock, NULL);
}

/* Waits for `count` workers to finish within the watchdog's time, then joins
 * them; a worker that never finishes is a failure, not a hang. */
static void race_end(race *r, pthread_t *threads, int count) {
    uint64_t deadline = deadline_after_ms(WATCHDOG_MS);
    while (atomic_load(&r->finished) < count && now_ns() < deadline) sched_yield();
    if (atomic_load(&r->finished) < count) fail_msg("watchdog: %d of %d threads finished in %d ms", atomic_load(&r->finished), count, WATCHDOG_MS);
    for (int i = 0; i < count; i++) pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&r->start);
    pthread_mutex_destroy(&r->failure_lock);
    if (r->failure[0] != '\0') fail_msg("%s", r->failure);
}

/* Runs `body` on THREADS threads, each given its index, as one race. */
static void race_threads(race *r, void *(*body)(void *)) {
    race_begin(r, THREADS);
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, body, (void *)(intptr_t)i);
    race_end(r, threads, THREADS);
}

/* ---- struct signatures from four threads ---------------------------------------------------------- */

static const char *const rect_spellings[] = {
    "{rect={point=dd}{point=dd}}{rect={point=dd}{point=dd}}d",
    "{rect={point=\"x\"d\"y\"d}{point=dd}}{rect={point=dd}{point=\"x\"d\"y\"d}}d",
    "{rect={point=dd}{point=dd}}32{rect={point=dd}{point=dd}}0d32",
};

static race signatures_race;

static void *create_and_call(void *argument) {
    race *r = &signatures_race;
    int index = (int)(intptr_t)argument;
    pthread_barrier_wait(&r->start);
    for (int i = 0; i < 4000 && r->failure[0] == '\0'; i++) {
        dc_signature *signature = NULL;
        const char *spelling = rect_spellings[(i + index) % 3];
        dc_status status = dc_signature_create(spelling, &signature);
        if (status != DC_OK) {
            record_failure(r, "thread %d: \"%s\" gave %s", index, spelling, dc_status_name(status));
            break;
        }
        dc_layout layout, field;
        if (dc_signature_return_layout(signature, &layout) != DC_OK || layout.size != sizeof(rect) ||
            dc_layout_field(&layout, 1, &field) != DC_OK || field.offset != offsetof(rect, size))
            record_failure(r, "thread %d: the layout of \"%s\" is %zu bytes", index, spelling, layout.size);
        rect in = {{i, index}, {2, 3}}, out;
        dc_value arguments[2] = {dc_struct_of(&in, sizeof in), dc_double(0.5)};
        dc_value result = dc_struct(&out);
        status = dc_call(signature, DC_FUNCTION(grow), arguments, 2, &result);
        rect expected = grow(in, 0.5);
        if (status != DC_OK || memcmp(&out, &expected, sizeof out) != 0)
            record_failure(r, "thread %d: a call through \"%s\" gave %s and other bytes", index, spelling,
                           dc_status_name(status));
        dc_signature_release(signature);
    }
    atomic_fetch_add(&r->finished, 1);
    return NULL;
}

static void struct_signatures_are_created_called_and_released_from_four_threads_at_once(void **state) {
    (void)state;
    race_threads(&signatures_race, create_and_call);
}

/* ---- layout identities from four threads ----------------------------------------------------------- */

enum { LAYOUTS = 1500 };

static race identities_race;
static uint32_t identities[THREADS][LAYOUTS];

/* Layout `i` of the race, new to the process: an array of i + 1 ints and a double. */
static void layout_encoding(int i, char *text, size_t size) { snprintf(text, size, "v{seen%d=[%di]d}", i, i + 1); }

static void *identify_layouts(void *argument) {
    race *r = &identities_race;
    int index = (int)(intptr_t)argument;
    pthread_barrier_wait(&r->start);
    /* Each thread starts at another layout, so that every one is first seen
     * by some thread while the others read identities already given. */
    for (int k = 0; k < LAYOUTS && r->failure[0] == '\0'; k++) {
        int i = (k + index * LAYOUTS / THREADS) % LAYOUTS;
        char encoding[48];
        layout_encoding(i, encoding, sizeof encoding);
        dc_signature *signature = NULL;
        dc_layout layout;
        dc_value value;
        int32_t bytes[LAYOUTS + 2];
        if (dc_signature_create(encoding, &signature) != DC_OK ||
            dc_signature_parameter_layout(signature, 0, &layout) != DC_OK ||
            dc_struct_with_layout(bytes, &layout, &value) != DC_OK) {
            record_failure(r, "thread %d: \"%s\": %s", index, encoding, dc_last_error_message());
            break;
        }
        identities[index][i] = value.struct_id;
        if (dc_struct_size(&value) != layout.size)
            record_failure(r, "thread %d: \"%s\" is %zu bytes, its value says %zu", index, encoding, layout.size,
                           dc_struct_size(&value));
        dc_signature_release(signature);
    }
    atomic_fetch_add(&r->finished, 1);
    return NULL;
}

static int compare_identities(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void each_layout_gets_one_identity_when_four_threads_see_it_at_once(void **state) {
    (void)state;
    race_threads(&identities_race, identify_layouts);
    static uint32_t sorted[LAYOUTS];
    for (int i = 0; i < LAYOUTS; i++) {
        for (int t = 1; t < THREADS; t++)
            if (identities[t][i] != identities[0][i])
                fail_msg("layout %d: thread 0 saw identity %#x, thread %d %#x", i, identities[0][i], t,
                         identities[t][i]);
        sorted[i] = identities[0][i];
    }
    qsort(sorted, LAYOUTS, sizeof sorted[0], compare_identities);
    for (int i = 1; i < LAYOUTS; i++)
        if (sorted[i] == sorted[i - 1]) fail_msg("two layouts share the identity %#x", sorted[i]);
}

/* ---- queued struct arguments ------------------------------------------------------------------------ */

enum { EXECUTERS = 3, STAMPS_EACH = 3000 };

static race queue_race;
static dc_queue *stamp_queue;
static atomic_long stamps_delivered;
static int64_t last_sequence[EXECUTERS]; /* written by the owner thread only */

CALLEE static void receive_stamp(stamp s) {
    race *r = &queue_race;
    if (s.check != ~s.sequence || s.thread < 0 || s.thread >= EXECUTERS) {
        record_failure(r, "a delivered stamp is torn: sequence %lld, check %lld, thread %lld", (long long)s.sequence,
                       (long long)s.check, (long long)s.thread);
        return;
    }
    if (s.sequence != last_sequence[s.thread] + 1)
        record_failure(r, "thread %lld's stamp %lld arrived after %lld", (long long)s.thread, (long long)s.sequence,
                       (long long)last_sequence[s.thread]);
    last_sequence[s.thread] = s.sequence;
    atomic_fetch_add(&stamps_delivered, 1);
}

static void *drain_stamps(void *argument) {
    race *r = &queue_race;
    (void)argument;
    dc_queue_bind_to_current_thread(stamp_queue);
    pthread_barrier_wait(&r->start);
    while (!atomic_load(&r->stop) || dc_queue_pending(stamp_queue) > 0) dc_queue_drain(stamp_queue, NULL);
    atomic_fetch_add(&r->finished, 1);
    return NULL;
}

typedef struct executer {
    dc_table *table;
    int index;
} executer;

static void *execute_stamps(void *argument) {
    race *r = &queue_race;
    const executer *e = argument;
    pthread_barrier_wait(&r->start);
    stamp s; /* one buffer, overwritten as soon as each execute returns */
    for (int64_t sequence = 1; sequence <= STAMPS_EACH; sequence++) {
        s = (stamp){sequence, ~sequence, e->index};
        dc_value argument_value = dc_struct_of(&s, sizeof s);
        dc_result result;
        dc_status status = dc_table_execute(e->table, "stamp", &argument_value, 1, &result);
        if (status != DC_OK || result.queued != 1)
            record_failure(r, "executer %d: %s, %zu queued", e->index, dc_status_name(status), result.queued);
        memset(&s, 0xa5, sizeof s);
    }
    atomic_fetch_add(&r->finished, 1);
    return NULL;
}

static void queued_struct_arguments_are_copies_while_the_owner_drains_on_its_thread(void **state) {
    (void)state;
    race *r = &queue_race;
    race_begin(r, EXECUTERS + 1);
    memset(last_sequence, 0, sizeof last_sequence);
    atomic_store(&stamps_delivered, 0);
    dc_table *table;
    dc_signature *signature;
    assert_ok(dc_table_create("stamps", NULL, &table));
    assert_ok(dc_queue_create(&stamp_queue));
    assert_ok(dc_signature_create("v{stamp=qqq}", &signature));
    dc_handler_options options = {0, stamp_queue, NULL, NULL};
    assert_ok(dc_table_add(table, "stamp", signature, DC_FUNCTION(receive_stamp), NULL, &options, NULL));

    pthread_t threads[EXECUTERS + 1];
    executer executers[EXECUTERS];
    pthread_create(&threads[EXECUTERS], NULL, drain_stamps, NULL);
    for (int i = 0; i < EXECUTERS; i++) {
        executers[i] = (executer){table, i};
        pthread_create(&threads[i], NULL, execute_stamps, &executers[i]);
    }
    uint64_t deadline = deadline_after_ms(WATCHDOG_MS);
    while (atomic_load(&r->finished) < EXECUTERS && now_ns() < deadline) sched_yield();
    atomic_store(&r->stop, true);
    race_end(r, threads, EXECUTERS + 1);
    assert_int_equal(atomic_load(&stamps_delivered), EXECUTERS * STAMPS_EACH);

    dc_table_destroy(table);
    dc_queue_destroy(stamp_queue);
    dc_signature_release(signature);
}

/* ---- a table closure with structs, called from threads ---------------------------------------------- */

enum { CALLERS = 3, CALLS_EACH = 4000 };

static race closure_race;

CALLEE static rect grow_by_one(rect r) { return grow(r, 1); }
CALLEE static void observe(rect r) { (void)r; }

typedef struct caller_context {
    rect (*function)(rect);
    int index;
} caller_context;

static void *call_closure(void *argument) {
    race *r = &closure_race;
    const caller_context *c = argument;
    pthread_barrier_wait(&r->start);
    for (int i = 0; i < CALLS_EACH; i++) {
        rect in = {{c->index, i}, {1, 1}};
        rect out = c->function(in), expected = grow_by_one(in);
        if (memcmp(&out, &expected, sizeof out) != 0) {
            record_failure(r, "caller %d, call %d: the closure returned other bytes", c->index, i);
            break;
        }
    }
    atomic_fetch_add(&r->finished, 1);
    return NULL;
}

typedef struct churn_context {
    dc_table *table;
    dc_signature *signature;
} churn_context;

static void *churn_handlers(void *argument) {
    race *r = &closure_race;
    const churn_context *c = argument;
    pthread_barrier_wait(&r->start);
    while (atomic_load(&r->finished) < CALLERS && r->failure[0] == '\0') {
        dc_handler_id id;
        if (dc_table_add(c->table, "grow", c->signature, DC_FUNCTION(observe), NULL, NULL, &id) != DC_OK ||
            dc_table_remove(c->table, id) != DC_OK)
            record_failure(r, "adding or removing a handler failed: %s", dc_last_error_message());
    }
    atomic_fetch_add(&r->finished, 1);
    return NULL;
}

static void a_struct_table_closure_is_called_from_threads_while_handlers_come_and_go(void **state) {
    (void)state;
    race *r = &closure_race;
    race_begin(r, CALLERS + 1);
    dc_table *table;
    dc_signature *returning, *observing;
    dc_closure *closure;
    assert_ok(dc_table_create("closures", NULL, &table));
    assert_ok(dc_signature_create("{rect={point=dd}{point=dd}}{rect={point=dd}{point=dd}}", &returning));
    assert_ok(dc_signature_create("v{frame={point=dd}{point=dd}}", &observing));
    assert_ok(dc_table_add(table, "grow", returning, DC_FUNCTION(grow_by_one), NULL, NULL, NULL));
    assert_ok(dc_table_closure_create(table, "grow", returning, &closure));

    pthread_t threads[CALLERS + 1];
    caller_context callers[CALLERS];
    churn_context churn = {table, observing};
    for (int i = 0; i < CALLERS; i++) {
        callers[i] = (caller_context){(rect(*)(rect))dc_closure_function(closure), i};
        pthread_create(&threads[i], NULL, call_closure, &callers[i]);
    }
    pthread_create(&threads[CALLERS], NULL, churn_handlers, &churn);
    race_end(r, threads, CALLERS + 1);

    dc_closure_destroy(closure);
    dc_table_destroy(table);
    dc_signature_release(returning);
    dc_signature_release(observing);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(struct_signatures_are_created_called_and_released_from_four_threads_at_once),
        cmocka_unit_test(each_layout_gets_one_identity_when_four_threads_see_it_at_once),
        cmocka_unit_test(queued_struct_arguments_are_copies_while_the_owner_drains_on_its_thread),
        cmocka_unit_test(a_struct_table_closure_is_called_from_threads_while_handlers_come_and_go),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
