/*
 * fuzz_support.h — what the libFuzzer targets share: a reader that turns the
 * fuzz input into choices, a check that ends the run with a message (libFuzzer
 * keeps the input as a crash), value comparison, and a helper thread that owns
 * queues, so the fuzzing thread executes as a stranger and its executes post.
 *
 * The targets see the library as a client does: dispatch_core.h only.
 */
#ifndef DC_FUZZ_SUPPORT_H
#define DC_FUZZ_SUPPORT_H

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch_core.h"
#include "../value_equality.h"

#define FUZZ_UNUSED __attribute__((unused))

/* ---- checks ------------------------------------------------------------------------ */

/* A broken promise of the library: print what and where, then abort so that
 * libFuzzer saves the input. */
#define FUZZ_CHECK(condition, ...)                                                       \
    do {                                                                                 \
        if (!(condition)) {                                                              \
            fprintf(stderr, "\n%s:%d: check failed: %s\n    ", __FILE__, __LINE__,       \
                    #condition);                                                         \
            fprintf(stderr, __VA_ARGS__);                                                \
            fprintf(stderr, "\n    last error message: \"%s\"\n", dc_last_error_message()); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

/* A failing call must say so in a message of its own. `primed` is a message
 * left behind on purpose before the call (fuzz_prime_message). */
#define FUZZ_CHECK_FAILURE(status, primed, what) FUZZ_CHECK_FAILURE_WITH(FUZZ_CHECK, status, primed, what)

/* The same, reported by `check`: a program's own FUZZ_CHECK (stress_table's
 * STRESS_CHECK, through table_model.h). */
#define FUZZ_CHECK_FAILURE_WITH(check, status, primed, what)                             \
    do {                                                                                 \
        const char *fuzz_message = dc_last_error_message();                              \
        check(fuzz_message != NULL && fuzz_message[0] != '\0',                           \
              "%s failed with %s and left no message", (what), dc_status_name(status));  \
        check(strcmp(fuzz_message, (primed)) != 0,                                       \
              "%s failed with %s but did not set its own message", (what),               \
              dc_status_name(status));                                                   \
    } while (0)

/* Leaves a known message behind and returns it, so that a failure checked
 * afterwards is seen to have written a message of its own. */
static FUZZ_UNUSED const char *fuzz_prime_message(void) {
    static _Thread_local char primed[512];
    dc_value out_of_range = dc_int64(-77777);
    dc_value narrowed;
    dc_value_convert(&out_of_range, DC_TYPE_UINT8, &narrowed);
    snprintf(primed, sizeof primed, "%s", dc_last_error_message());
    return primed;
}

/* ---- reading the input ---------------------------------------------------------- */

/* Every read past the end gives zeros, so any input is a complete program. */
typedef struct fuzz_input {
    const uint8_t *data;
    size_t size;
    size_t at;
} fuzz_input;

static FUZZ_UNUSED bool fuzz_has_more(const fuzz_input *in) { return in->at < in->size; }

static FUZZ_UNUSED uint8_t fuzz_byte(fuzz_input *in) {
    return in->at < in->size ? in->data[in->at++] : 0;
}

/* `count` bytes (at most 8), little-endian. */
static FUZZ_UNUSED uint64_t fuzz_bytes(fuzz_input *in, unsigned count) {
    uint64_t value = 0;
    for (unsigned i = 0; i < count; i++) value |= (uint64_t)fuzz_byte(in) << (8 * i);
    return value;
}

/* A number below `bound` (bound > 0). */
static FUZZ_UNUSED unsigned fuzz_below(fuzz_input *in, unsigned bound) {
    return fuzz_byte(in) % bound;
}

/* ---- values ------------------------------------------------------------------------- */

/* The zero value of a type: what a parameter the event does not carry gets. */
static FUZZ_UNUSED dc_value fuzz_zero(dc_type type) {
    dc_value value;
    value.u64 = 0;
    value.type = type;
    return value;
}

static FUZZ_UNUSED const char *fuzz_describe(dc_value value, char *buffer, size_t size) {
    snprintf(buffer, size, "%s 0x%llx", dc_type_name(value.type), (unsigned long long)value.u64);
    return buffer;
}

/* True when the fd is readable right now. */
static FUZZ_UNUSED bool fuzz_fd_readable(int fd) {
    struct pollfd entry = {.fd = fd, .events = POLLIN, .revents = 0};
    return poll(&entry, 1, 0) == 1 && (entry.revents & POLLIN) != 0;
}

/* ---- queues owned by another thread -------------------------------------------------- */

/*
 * A queue runs a handler at once when the execute happens on its owner thread
 * and posts a delivery from any other. The fuzzing thread gets queues it does
 * not own from one helper thread that lives for the whole run: creating a
 * thread per input would cost more than the input, and so would a round trip
 * per queue, so the helper creates them in batches.
 */
enum { FUZZ_HELPER_BATCH = 32 };
typedef enum fuzz_helper_job { FUZZ_HELPER_IDLE, FUZZ_HELPER_CREATE, FUZZ_HELPER_BIND } fuzz_helper_job;

static pthread_mutex_t fuzz_helper_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fuzz_helper_wake = PTHREAD_COND_INITIALIZER;
static fuzz_helper_job fuzz_helper_pending FUZZ_UNUSED;
static dc_queue *fuzz_helper_queue FUZZ_UNUSED;
static dc_queue *fuzz_helper_stock[FUZZ_HELPER_BATCH] FUZZ_UNUSED;
static unsigned fuzz_helper_stock_count FUZZ_UNUSED;
static dc_status fuzz_helper_status FUZZ_UNUSED;
static pthread_once_t fuzz_helper_once = PTHREAD_ONCE_INIT;

static FUZZ_UNUSED void *fuzz_helper_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&fuzz_helper_lock);
    for (;;) {
        while (fuzz_helper_pending == FUZZ_HELPER_IDLE) pthread_cond_wait(&fuzz_helper_wake, &fuzz_helper_lock);
        if (fuzz_helper_pending == FUZZ_HELPER_CREATE) {
            fuzz_helper_status = DC_OK;
            while (fuzz_helper_stock_count < FUZZ_HELPER_BATCH && fuzz_helper_status == DC_OK)
                if ((fuzz_helper_status = dc_queue_create(&fuzz_helper_queue)) == DC_OK)
                    fuzz_helper_stock[fuzz_helper_stock_count++] = fuzz_helper_queue;
        } else
            fuzz_helper_status = dc_queue_bind_to_current_thread(fuzz_helper_queue);
        fuzz_helper_pending = FUZZ_HELPER_IDLE;
        pthread_cond_broadcast(&fuzz_helper_wake);
    }
    return NULL;
}

static FUZZ_UNUSED void fuzz_helper_start(void) {
    pthread_t thread;
    FUZZ_CHECK(pthread_create(&thread, NULL, fuzz_helper_main, NULL) == 0, "cannot start the helper thread");
    pthread_detach(thread);
}

static FUZZ_UNUSED void fuzz_helper_run(fuzz_helper_job job) {
    pthread_once(&fuzz_helper_once, fuzz_helper_start);
    pthread_mutex_lock(&fuzz_helper_lock);
    fuzz_helper_pending = job;
    pthread_cond_broadcast(&fuzz_helper_wake);
    while (fuzz_helper_pending != FUZZ_HELPER_IDLE) pthread_cond_wait(&fuzz_helper_wake, &fuzz_helper_lock);
    pthread_mutex_unlock(&fuzz_helper_lock);
}

/* A queue owned by the helper thread: executes on the calling thread post. The
 * caller owns it as if it had created it. */
static FUZZ_UNUSED dc_queue *fuzz_foreign_queue(void) {
    if (fuzz_helper_stock_count == 0) {
        fuzz_helper_run(FUZZ_HELPER_CREATE);
        FUZZ_CHECK(fuzz_helper_status == DC_OK && fuzz_helper_stock_count > 0, "dc_queue_create on the helper: %s",
                   dc_status_name(fuzz_helper_status));
    }
    return fuzz_helper_stock[--fuzz_helper_stock_count];
}

/* Makes the helper thread the owner of `queue`. */
static FUZZ_UNUSED void fuzz_give_queue_away(dc_queue *queue) {
    fuzz_helper_queue = queue;
    fuzz_helper_run(FUZZ_HELPER_BIND);
    FUZZ_CHECK(fuzz_helper_status == DC_OK, "dc_queue_bind_to_current_thread on the helper: %s",
               dc_status_name(fuzz_helper_status));
}

/* ---- tracing ---------------------------------------------------------------- */

/* Whether FUZZ_TRACE is set in the environment: then a target prints each
 * operation and call, for reading a crash's input (build/fuzz/fuzz_NAME
 * CRASH_FILE). */
static inline bool fuzz_tracing(void) {
    static int tracing = -1;
    if (tracing < 0) tracing = getenv("FUZZ_TRACE") != NULL;
    return tracing;
}

/* Prints one line of the trace, indented two spaces per level of `depth`. */
#define FUZZ_TRACE(depth, ...)                                                               \
    do {                                                                                     \
        if (fuzz_tracing()) {                                                                \
            fprintf(stderr, "%*s", (int)(2 * (depth)), "");                                  \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
        }                                                                                    \
    } while (0)

#endif /* DC_FUZZ_SUPPORT_H */
