/*
 * test_signature_threads.c — signatures shared across threads: several threads
 * create, call through and release the same signatures at once, spelled in
 * different ways. Some are kept alive by the main thread (every thread must get
 * that very pointer back); others are not, so their last reference is dropped
 * while another thread may be creating them again.
 *
 * cmocka's assertions belong to the main thread, so worker threads record the
 * first thing that went wrong and the main thread asserts on it.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>

enum { THREAD_COUNT = 4, ITERATIONS = 50000 };

static atomic_long bumps;

CALLEE static int64_t combine(void *object, int64_t a, double b) {
    return (int64_t)(a * b) + (object != NULL ? 1 : 0);
}
CALLEE static double weigh(int32_t a, float b, int64_t c) { return a + 2.0 * b + 3.0 * (double)c; }
CALLEE static void bump(atomic_long *counter) { atomic_fetch_add(counter, 1); }
CALLEE static bool responds(void *self, const char *selector) {
    return self != NULL && selector[0] == 's';
}
CALLEE static int64_t twelve_integers(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f,
                               int64_t g, int64_t h, int64_t i, int64_t j, int64_t k, int64_t l) {
    return a + b + c + d + e + f + g + h + i + j + k - l;
}

/* Spellings of one signature; the first is the canonical encoding. */
typedef struct signature_group {
    const char *spellings[3];
    bool pinned; /* the main thread holds a reference throughout */
} signature_group;

static const signature_group groups[] = {
    {{"q@qd", "q24@0q8d16", "q@0q8d16"}, true},
    {{"v^v", "v^i", "v8^{x=i}0"}, true},
    {{"difq", "d20i0f4q8", "Vdifq"}, false},
    {{"B@*", "B16@0:8", "B@r*"}, false},
    {{"qqqqqqqqqqqqq", "q96q0q8q16q24q32q40q48q56q64q72q80q88", "qqqqqqqqqqqqrq"}, false},
};
enum { GROUP_COUNT = sizeof groups / sizeof groups[0] };

static dc_signature *pinned_signatures[GROUP_COUNT];

typedef struct worker {
    pthread_t thread;
    int index;
    pthread_barrier_t *start;
    char failure[256];
} worker;

#define WORKER_CHECK(w, condition, ...)                                                  \
    do {                                                                                 \
        if (!(condition) && (w)->failure[0] == '\0') {                                   \
            snprintf((w)->failure, sizeof (w)->failure, __VA_ARGS__);                    \
        }                                                                                \
    } while (0)

/* Calls through `signature` (group `g`) with values from `n` and checks the result. */
static void call_and_check(worker *w, size_t g, dc_signature *signature, int64_t n,
                           bool force_libffi) {
    int object = 0;
    char selector[] = "setValue:";
    dc_value arguments[12];
    size_t count = 0;
    dc_value expected = dc_void();
    dc_function function = NULL;
    switch (g) {
    case 0:
        arguments[0] = dc_object(&object), arguments[1] = dc_int64(n), arguments[2] = dc_double(0.5);
        count = 3, function = DC_FUNCTION(combine), expected = dc_int64(combine(&object, n, 0.5));
        break;
    case 1:
        arguments[0] = dc_pointer(&bumps);
        count = 1, function = DC_FUNCTION(bump);
        break;
    case 2:
        arguments[0] = dc_int32((int32_t)n), arguments[1] = dc_float(0.25f),
        arguments[2] = dc_int64(-n);
        count = 3, function = DC_FUNCTION(weigh), expected = dc_double(weigh((int32_t)n, 0.25f, -n));
        break;
    case 3:
        arguments[0] = dc_object(n % 2 ? &object : NULL), arguments[1] = dc_string(selector);
        count = 2, function = DC_FUNCTION(responds);
        expected = dc_bool(responds(n % 2 ? &object : NULL, selector));
        break;
    default:
        for (count = 0; count < 12; count++) {
            arguments[count] = dc_int64(n + (int64_t)count);
        }
        function = DC_FUNCTION(twelve_integers);
        expected = dc_int64(twelve_integers(n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7, n + 8,
                                     n + 9, n + 10, n + 11));
        break;
    }

    dc_value result = dc_void();
    if (force_libffi) {
        dc_invocation *invocation = NULL;
        dc_status status = dc_invocation_create(signature, function, &invocation);
        WORKER_CHECK(w, status == DC_OK, "invocation_create: %s", dc_status_name(status));
        if (status != DC_OK) {
            return;
        }
        dc_invocation_set_call_path(invocation, DC_CALL_PATH_FFI);
        for (size_t i = 0; i < count; i++) {
            dc_invocation_set_argument(invocation, i, &arguments[i]);
        }
        status = dc_invocation_invoke(invocation);
        WORKER_CHECK(w, status == DC_OK, "invoke: %s", dc_status_name(status));
        dc_invocation_get_return_value(invocation, &result);
        dc_invocation_destroy(invocation);
    } else {
        dc_status status = dc_call(signature, function, arguments, count, &result);
        WORKER_CHECK(w, status == DC_OK, "dc_call(\"%s\"): %s (%s)",
                     dc_signature_encoding(signature), dc_status_name(status),
                     dc_last_error_message());
    }
    WORKER_CHECK(w, dc_test_values_equal(expected, result),
                 "group %zu, n=%lld: wrong result from \"%s\"", g, (long long)n,
                 dc_signature_encoding(signature));
}

static void *run_worker(void *context) {
    worker *w = context;
    pthread_barrier_wait(w->start);
    for (int iteration = 0; iteration < ITERATIONS && w->failure[0] == '\0'; iteration++) {
        size_t g = (size_t)(iteration + w->index) % GROUP_COUNT;
        const signature_group *group = &groups[g];
        const char *spelling = group->spellings[(iteration / GROUP_COUNT + w->index) % 3];

        dc_signature *signature = NULL;
        dc_status status = dc_signature_create(spelling, &signature);
        WORKER_CHECK(w, status == DC_OK, "create(\"%s\"): %s", spelling, dc_status_name(status));
        if (status != DC_OK) {
            break;
        }
        WORKER_CHECK(w, strcmp(dc_signature_encoding(signature), group->spellings[0]) == 0,
                     "\"%s\" gave encoding \"%s\"", spelling, dc_signature_encoding(signature));
        if (group->pinned) {
            WORKER_CHECK(w, signature == pinned_signatures[g],
                         "\"%s\" gave a second signature while one was alive", spelling);
        }
        /* A second spelling while the first is held must be the same signature. */
        dc_signature *again = NULL;
        dc_signature_create(group->spellings[(size_t)(iteration + 1) % 3], &again);
        WORKER_CHECK(w, again == signature, "\"%s\" and \"%s\" gave different signatures",
                     spelling, group->spellings[(size_t)(iteration + 1) % 3]);
        dc_signature_release(again);

        int64_t n = (int64_t)iteration * THREAD_COUNT + w->index - 5000;
        call_and_check(w, g, signature, n, iteration % 16 == 0);
        dc_signature_release(signature);
    }
    return NULL;
}

static void threads_share_interned_signatures_and_call_through_them(void **state) {
    (void)state;
    for (size_t g = 0; g < GROUP_COUNT; g++) {
        pinned_signatures[g] = NULL;
        if (groups[g].pinned) {
            assert_ok(dc_signature_create(groups[g].spellings[0], &pinned_signatures[g]));
        }
    }
    atomic_store(&bumps, 0);

    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, THREAD_COUNT), 0);
    worker workers[THREAD_COUNT];
    for (int i = 0; i < THREAD_COUNT; i++) {
        workers[i] = (worker){.index = i, .start = &start};
        assert_int_equal(pthread_create(&workers[i].thread, NULL, run_worker, &workers[i]), 0);
    }
    for (int i = 0; i < THREAD_COUNT; i++) {
        assert_int_equal(pthread_join(workers[i].thread, NULL), 0);
    }
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREAD_COUNT; i++) {
        if (workers[i].failure[0] != '\0') {
            fail_msg("thread %d: %s", i, workers[i].failure);
        }
    }

    /* Every worker bumped once per visit to group 1. */
    long expected_bumps = 0;
    for (int i = 0; i < THREAD_COUNT; i++) {
        for (int iteration = 0; iteration < ITERATIONS; iteration++) {
            expected_bumps += (iteration + i) % GROUP_COUNT == 1;
        }
    }
    assert_int_equal(atomic_load(&bumps), expected_bumps);

    for (size_t g = 0; g < GROUP_COUNT; g++) {
        if (groups[g].pinned) {
            dc_signature *again = NULL;
            assert_ok(dc_signature_create(groups[g].spellings[1], &again));
            assert_ptr_equal(again, pinned_signatures[g]);
            dc_signature_release(again);
            dc_signature_release(pinned_signatures[g]);
        }
    }
}

/* One signature, many threads calling dc_call on it with their own arguments. */
typedef struct caller {
    pthread_t thread;
    dc_signature *signature;
    int64_t base;
    long wrong;
} caller;

static void *call_repeatedly(void *context) {
    caller *c = context;
    int object = 0;
    for (int64_t n = c->base; n < c->base + ITERATIONS * 5; n++) {
        const dc_value arguments[] = {dc_object(&object), dc_int64(n), dc_double(2.0)};
        dc_value result;
        if (dc_call(c->signature, DC_FUNCTION(combine), arguments, 3, &result) != DC_OK ||
            result.type != DC_TYPE_INT64 || result.i64 != 2 * n + 1) {
            c->wrong++;
        }
    }
    return NULL;
}

static void concurrent_dc_calls_on_one_signature_each_get_their_own_result(void **state) {
    (void)state;
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create("q@qd", &signature));
    caller callers[THREAD_COUNT];
    for (int i = 0; i < THREAD_COUNT; i++) {
        callers[i] = (caller){.signature = signature, .base = (int64_t)i * 1000000};
        assert_int_equal(pthread_create(&callers[i].thread, NULL, call_repeatedly, &callers[i]),
                         0);
    }
    for (int i = 0; i < THREAD_COUNT; i++) {
        assert_int_equal(pthread_join(callers[i].thread, NULL), 0);
        assert_int_equal(callers[i].wrong, 0);
    }
    dc_signature_release(signature);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threads_share_interned_signatures_and_call_through_them),
        cmocka_unit_test(concurrent_dc_calls_on_one_signature_each_get_their_own_result),
    };
    return cmocka_run_group_tests_name("threads", tests, NULL, NULL);
}
