/*
 * table_support.h — what the event-table tests share: a table per test (cmocka
 * setup and teardown), a log of which handlers ran in which order, numbered
 * recorder handlers, destroy-notify counters and signatures by encoding.
 *
 * Every handler here is a plain C function that the table calls through a
 * pointer; a handler that needs the table reads `table` (the one the fixture
 * created). The tests are single-threaded, so the log is a plain array.
 */
#ifndef DC_TABLE_SUPPORT_H
#define DC_TABLE_SUPPORT_H

#include "test_support.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>

#define TABLE_SUPPORT_UNUSED __attribute__((unused))

/* ---- the table under test ------------------------------------------------------- */

/* Created by table_setup, destroyed by table_teardown unless a test destroyed it
 * itself and set it to NULL. */
static dc_table *table TABLE_SUPPORT_UNUSED;

/* Signatures handed out by sig(), released at teardown. */
enum { SIGNATURE_CAPACITY = 64 };
static dc_signature *held_signatures[SIGNATURE_CAPACITY] TABLE_SUPPORT_UNUSED;
static size_t held_signature_count TABLE_SUPPORT_UNUSED;

/* The signature of `encoding`, kept alive until the test's teardown. Signatures
 * are interned, so asking again for one already held gives back the extra
 * reference at once. */
static inline dc_signature *sig(const char *encoding) {
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create(encoding, &signature));
    for (size_t i = 0; i < held_signature_count; i++) {
        if (held_signatures[i] == signature) {
            dc_signature_release(signature);
            return signature;
        }
    }
    assert_true(held_signature_count < SIGNATURE_CAPACITY);
    held_signatures[held_signature_count++] = signature;
    return signature;
}

/* assert_failure without needles: the status, and a non-empty message the call
 * set itself. */
#define assert_fails(expression, expected)                                               \
    do {                                                                                 \
        const char *dc_test_primed = dc_test_prime_error_message();                      \
        dc_status dc_test_actual = (expression);                                         \
        dc_test_assert_failure(dc_test_primed, dc_test_actual, (expected),               \
                               (const char *const[]){NULL}, #expression, __FILE__,       \
                               __LINE__);                                                \
    } while (0)

/* ---- the call log ---------------------------------------------------------------- */

enum { CALL_LOG_CAPACITY = 512 };
static int call_log[CALL_LOG_CAPACITY] TABLE_SUPPORT_UNUSED;
static size_t call_log_count TABLE_SUPPORT_UNUSED;

static inline void log_call(int tag) {
    if (call_log_count < CALL_LOG_CAPACITY) {
        call_log[call_log_count] = tag;
    }
    call_log_count++;
}

static inline void reset_call_log(void) { call_log_count = 0; }

static inline void dc_test_assert_call_log(const int *expected, size_t expected_count,
                                           const char *file, int line) {
    bool same = call_log_count == expected_count;
    for (size_t i = 0; same && i < expected_count; i++) {
        same = call_log[i] == expected[i];
    }
    if (!same) {
        char wanted[512] = "", got[512] = "";
        size_t used = 0;
        for (size_t i = 0; i < expected_count && used < sizeof wanted; i++) {
            used += (size_t)snprintf(wanted + used, sizeof wanted - used, "%s%d",
                                     i > 0 ? " " : "", expected[i]);
        }
        used = 0;
        for (size_t i = 0; i < call_log_count && i < CALL_LOG_CAPACITY && used < sizeof got;
             i++) {
            used += (size_t)snprintf(got + used, sizeof got - used, "%s%d", i > 0 ? " " : "",
                                     call_log[i]);
        }
        print_error("handlers ran [%s], expected [%s]\n", got, wanted);
        _fail(file, line);
    }
}

/* assert_call_log(1, 3) checks that exactly handlers 1 and 3 ran, in that order;
 * assert_nothing_called() that none did. Both leave the log as it is. */
#define assert_call_log(...)                                                             \
    dc_test_assert_call_log((const int[]){__VA_ARGS__},                                  \
                            sizeof((const int[]){__VA_ARGS__}) / sizeof(int), __FILE__,   \
                            __LINE__)
#define assert_nothing_called() dc_test_assert_call_log(NULL, 0, __FILE__, __LINE__)

/* ---- recorders ---------------------------------------------------------------------- */

/* record_N: void (void), logs N. Distinct functions, so several can share an
 * event without being duplicates of each other. */
#define DEFINE_RECORDER(n)                                                               \
    static inline void record_##n(void) { log_call(n); }
DEFINE_RECORDER(1)
DEFINE_RECORDER(2)
DEFINE_RECORDER(3)
DEFINE_RECORDER(4)
DEFINE_RECORDER(5)
DEFINE_RECORDER(6)
#undef DEFINE_RECORDER

/* void (void *target): logs the int the bound target points to ("v^v"). */
static inline void record_target(void *target) { log_call(*(const int *)target); }

/* A second function of the same shape, for a target bound twice on one event. */
static inline void record_target_plus_100(void *target) {
    log_call(100 + *(const int *)target);
}

/* Adds record_N (signature "v") to `event` with default options; returns its id. */
static inline dc_handler_id add_recorder(const char *event, void (*recorder)(void)) {
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, event, sig("v"), DC_FUNCTION(recorder), NULL, NULL, &id));
    assert_true(id != 0);
    return id;
}

/* Adds record_N with options; returns its id. */
static inline dc_handler_id add_recorder_with(const char *event, void (*recorder)(void),
                                              const dc_handler_options *options) {
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, event, sig("v"), DC_FUNCTION(recorder), NULL, options, &id));
    assert_true(id != 0);
    return id;
}

/* ---- destroy notifies ------------------------------------------------------------- */

/* A destroy notify that counts its calls in the int destroy_data points to.
 * Counters are static, not locals: the teardown destroys the table, running
 * the notifies of handlers still registered after the test function returned. */
static inline void count_destroy(void *counter) { (*(int *)counter)++; }

/* Options with `flags` and a destroy notify counting into *counter (may be NULL). */
static inline dc_handler_options handler_options(uint32_t flags, int *counter) {
    dc_handler_options options;
    memset(&options, 0, sizeof options);
    options.flags = flags;
    if (counter != NULL) {
        options.destroy = count_destroy;
        options.destroy_data = counter;
    }
    return options;
}

/* ---- counts ------------------------------------------------------------------------ */

static inline size_t handler_count(const char *event) {
    size_t count = 999;
    assert_ok(dc_table_handler_count(table, event, &count));
    return count;
}

/* Executes `event` with the arguments given and asserts DC_OK; returns the result. */
static inline dc_result execute_ok(const char *event, const dc_value *arguments, size_t count) {
    dc_result result;
    memset(&result, 0x5a, sizeof result);
    assert_ok(dc_table_execute(table, event, arguments, count, &result));
    return result;
}

/* ---- a queue of another thread ------------------------------------------------------ */

static inline void *create_queue_on_this_thread(void *out) {
    assert_ok(dc_queue_create((dc_queue **)out));
    return NULL;
}

/* A queue owned by a thread that has ended: an execute on this thread posts
 * its handlers' deliveries there, and dc_queue_drain here delivers them. */
static inline dc_queue *queue_owned_elsewhere(void) {
    dc_queue *queue = NULL;
    pthread_t owner;
    assert_int_equal(pthread_create(&owner, NULL, create_queue_on_this_thread, &queue), 0);
    assert_int_equal(pthread_join(owner, NULL), 0);
    return queue;
}

/* ---- the fixture ------------------------------------------------------------------ */

/* Object callbacks that only count, so a table that retains or releases an
 * object argument it was never asked to keep is visible. */
static long retains TABLE_SUPPORT_UNUSED;
static long releases TABLE_SUPPORT_UNUSED;
static inline void count_retain(void *object) {
    (void)object;
    retains++;
}
static inline void count_release(void *object) {
    (void)object;
    releases++;
}

static inline int table_setup(void **state) {
    (void)state;
    reset_call_log();
    retains = releases = 0;
    held_signature_count = 0;
    const dc_object_callbacks callbacks = {count_retain, count_release};
    table = NULL;
    return dc_table_create("test table", &callbacks, &table) == DC_OK && table != NULL ? 0 : -1;
}

static inline int table_teardown(void **state) {
    (void)state;
    dc_table_destroy(table);
    table = NULL;
    for (size_t i = 0; i < held_signature_count; i++) {
        dc_signature_release(held_signatures[i]);
    }
    held_signature_count = 0;
    return 0;
}

/* A test run with a fresh table in `table`. */
#define table_test(test) cmocka_unit_test_setup_teardown(test, table_setup, table_teardown)

/* A handler id as text, for finding it in a message. */
static inline const char *id_text(dc_handler_id id, char *buffer, size_t size) {
    snprintf(buffer, size, "%" PRIu64, (uint64_t)id);
    return buffer;
}

/* Adds and removes `n` handlers so that ids issued afterwards have several
 * digits and are not mistaken for small numbers (indices, counts) in messages. */
static inline void burn_handler_ids(size_t n) {
    for (size_t i = 0; i < n; i++) {
        dc_handler_id id = add_recorder("burn-ids", record_6);
        assert_ok(dc_table_remove(table, id));
    }
}

#endif /* DC_TABLE_SUPPORT_H */
