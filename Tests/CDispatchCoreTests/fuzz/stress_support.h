/*
 * stress_support.h — what a seeded multi-threaded stress program needs besides
 * its model: a random number generator per thread and round, a log of what
 * each thread is doing that any thread can print, a failure report that names
 * the seed and round to replay, and a watchdog that turns a hang into a
 * failure with every thread's operations and stack.
 *
 * Everything one thread writes and another reads is atomic, so the program
 * itself stays silent under ThreadSanitizer. One program includes it.
 */
#ifndef DC_STRESS_SUPPORT_H
#define DC_STRESS_SUPPORT_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dispatch_core.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STRESS_SANITIZED 1
#endif
#if __has_feature(thread_sanitizer)
/* The watchdog has each thread print its stack from a signal handler, which
 * allocates: TSan would report that (and, halting on errors, end the run
 * before the stacks). TSAN_OPTIONS given at run time still apply. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) { return "report_signal_unsafe=0"; }
#endif
#endif
#ifdef STRESS_SANITIZED
#include <sanitizer/common_interface_defs.h>
#else
#include <execinfo.h>
#endif

enum {
    STRESS_MAX_THREADS = 4,
    STRESS_STACK = 32,  /* what one thread is doing, outermost first */
    STRESS_RECENT = 24, /* what it began last */
};

/* ---- random numbers: xoshiro256**, seeded per (seed, round, thread) ----------- */

typedef struct stress_random {
    uint64_t state[4];
} stress_random;

static uint64_t stress_splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Each thread's program in each round depends on the seed, the round and the
 * thread only, so a round can be run again on its own (--round). */
static void stress_random_seed(stress_random *random, uint64_t seed, uint64_t round, unsigned thread) {
    uint64_t x = seed ^ (round * 0xd1342543de82ef95ull) ^ ((uint64_t)thread << 56);
    for (int i = 0; i < 4; i++) random->state[i] = stress_splitmix(&x);
}

static uint64_t stress_next(stress_random *random) {
    uint64_t *s = random->state;
    uint64_t result = ((s[1] * 5) << 7 | (s[1] * 5) >> 57) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t;
    s[3] = s[3] << 45 | s[3] >> 19;
    return result;
}

/* A number below `bound` (bound > 0). */
static unsigned stress_below(stress_random *random, unsigned bound) {
    return (unsigned)((stress_next(random) >> 32) % bound);
}

/* True `percent` times in a hundred. */
static bool stress_percent(stress_random *random, unsigned percent) { return stress_below(random, 100) < percent; }

/* ---- time ---------------------------------------------------------------------------- */

static uint64_t stress_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void stress_sleep_ms(unsigned milliseconds) {
    struct timespec pause = {milliseconds / 1000, (long)(milliseconds % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

/* ---- what each thread is doing ---------------------------------------------------- */

/* A note is the program's own packing of an operation into 64 bits; the
 * program turns one back into words (stress_describe). */
typedef struct stress_log {
    _Atomic unsigned depth;
    _Atomic uint64_t stack[STRESS_STACK];
    _Atomic unsigned recent_count;
    _Atomic uint64_t recent[STRESS_RECENT];
} stress_log;

static void stress_describe(uint64_t note, char *buffer, size_t size);

static struct {
    const char *program;
    uint64_t seed;
    unsigned threads;
    bool tracing;
    unsigned watchdog_seconds;
    _Atomic uint64_t round;
    _Atomic uint64_t rounds_completed;
    _Atomic bool finished;
    stress_log logs[STRESS_MAX_THREADS];
    pthread_t thread_ids[STRESS_MAX_THREADS];
    _Atomic bool thread_started[STRESS_MAX_THREADS];
} stress;

static _Thread_local int stress_thread = -1;

/* Called by each thread before its first note. */
static void stress_register_thread(unsigned index) {
    stress_thread = (int)index;
    stress.thread_ids[index] = pthread_self();
    atomic_store(&stress.thread_started[index], true);
}

/* Notes what the thread begins, on its stack and, unless `quiet` (for what
 * happens by the hundred, such as destroy notifies), among its recent ones. */
static void stress_push_note(uint64_t note, bool quiet) {
    if (stress_thread < 0) return;
    stress_log *log = &stress.logs[stress_thread];
    unsigned depth = atomic_load_explicit(&log->depth, memory_order_relaxed);
    if (depth < STRESS_STACK) atomic_store_explicit(&log->stack[depth], note, memory_order_relaxed);
    atomic_store_explicit(&log->depth, depth + 1, memory_order_release);
    if (stress.tracing) {
        char words[160];
        stress_describe(note, words, sizeof words);
        fprintf(stderr, "[t%d] %*s%s\n", stress_thread, (int)(2 * depth), "", words);
    }
    if (quiet) return;
    unsigned recent = atomic_load_explicit(&log->recent_count, memory_order_relaxed);
    atomic_store_explicit(&log->recent[recent % STRESS_RECENT], note, memory_order_relaxed);
    atomic_store_explicit(&log->recent_count, recent + 1, memory_order_release);
}

static void stress_push(uint64_t note) { stress_push_note(note, false); }

static void stress_pop(void) {
    if (stress_thread < 0) return;
    stress_log *log = &stress.logs[stress_thread];
    atomic_store_explicit(&log->depth, atomic_load_explicit(&log->depth, memory_order_relaxed) - 1,
                          memory_order_release);
}

/* Every thread's stack of operations, innermost last, and what it began last. */
static void stress_print_threads(void) {
    char words[160];
    for (unsigned t = 0; t < stress.threads; t++) {
        stress_log *log = &stress.logs[t];
        unsigned depth = atomic_load_explicit(&log->depth, memory_order_acquire);
        fprintf(stderr, "  thread %u%s:\n", t, depth == 0 ? " (between operations)" : "");
        for (unsigned d = 0; d < depth && d < STRESS_STACK; d++) {
            stress_describe(atomic_load_explicit(&log->stack[d], memory_order_relaxed), words, sizeof words);
            fprintf(stderr, "    %*s%s\n", (int)(2 * d), "", words);
        }
        unsigned recent = atomic_load_explicit(&log->recent_count, memory_order_acquire);
        unsigned first = recent > STRESS_RECENT ? recent - STRESS_RECENT : 0;
        fprintf(stderr, "    last operations begun, oldest first:\n");
        for (unsigned i = first; i < recent; i++) {
            stress_describe(atomic_load_explicit(&log->recent[i % STRESS_RECENT], memory_order_relaxed), words,
                            sizeof words);
            fprintf(stderr, "      %s\n", words);
        }
    }
}

static void stress_print_replay(void) {
    fprintf(stderr, "  seed 0x%llx, round %llu, %u threads; replay: %s --seed 0x%llx --round %llu --threads %u\n",
            (unsigned long long)stress.seed, (unsigned long long)atomic_load(&stress.round), stress.threads,
            stress.program, (unsigned long long)stress.seed, (unsigned long long)atomic_load(&stress.round),
            stress.threads);
}

/* ---- failures ------------------------------------------------------------------------ */

/* One report per run: the first thread to fail prints, the others wait for abort. */
static pthread_mutex_t stress_report_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noreturn, format(printf, 4, 5))) static void stress_fail(const char *file, int line,
                                                                         const char *condition,
                                                                         const char *format, ...) {
    pthread_mutex_lock(&stress_report_lock);
    fprintf(stderr, "\n%s:%d: check failed on thread %d: %s\n    ", file, line, stress_thread, condition);
    va_list arguments;
    va_start(arguments, format);
    vfprintf(stderr, format, arguments);
    va_end(arguments);
    fprintf(stderr, "\n    last error message on this thread: \"%s\"\n", dc_last_error_message());
    fprintf(stderr, "stress_table FAILED\n");
    stress_print_replay();
    stress_print_threads();
    fflush(stderr);
    abort();
}

/* A broken promise of the library: say what, where, with which seed, and stop. */
#define STRESS_CHECK(condition, ...)                                                     \
    do {                                                                                 \
        if (!(condition)) stress_fail(__FILE__, __LINE__, #condition, __VA_ARGS__);      \
    } while (0)

#ifdef STRESS_SANITIZED
/* After a sanitizer's report, before the process ends: the seed and what every
 * thread was doing. */
static void stress_on_sanitizer_death(void) {
    bool locked = pthread_mutex_trylock(&stress_report_lock) == 0;
    fprintf(stderr, "stress_table FAILED: sanitizer report above\n");
    stress_print_replay();
    stress_print_threads();
    if (locked) pthread_mutex_unlock(&stress_report_lock);
}
#endif

/* ---- the watchdog ------------------------------------------------------------------ */

/* Each thread prints its own stack when the watchdog asks (SIGUSR2). */
static void stress_print_own_stack(int signal_number) {
    (void)signal_number;
    char line[64];
    int length = snprintf(line, sizeof line, "---- stack of thread %d ----\n", stress_thread);
    if (write(STDERR_FILENO, line, (size_t)length) < 0) return;
#ifdef STRESS_SANITIZED
    __sanitizer_print_stack_trace();
#else
    void *frames[64];
    backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
#endif
}

/* A round that has not completed after watchdog_seconds is a hang: a deadlock
 * in the library (or one of this program's waits that should not be, which its
 * operation stack then shows). */
static void *stress_watchdog(void *unused) {
    (void)unused;
    uint64_t seen = atomic_load(&stress.rounds_completed), since = stress_now_ns();
    while (!atomic_load(&stress.finished)) {
        stress_sleep_ms(100);
        uint64_t now = stress_now_ns(), completed = atomic_load(&stress.rounds_completed);
        if (completed != seen) {
            seen = completed, since = now;
            continue;
        }
        if (now - since < (uint64_t)stress.watchdog_seconds * 1000000000u) continue;
        pthread_mutex_lock(&stress_report_lock);
        fprintf(stderr, "\nstress_table FAILED: no round completed in %u s: a deadlock or a livelock\n",
                stress.watchdog_seconds);
        stress_print_replay();
        stress_print_threads();
        fflush(stderr);
        for (unsigned t = 0; t < stress.threads; t++) {
            if (!atomic_load(&stress.thread_started[t])) continue;
            pthread_kill(stress.thread_ids[t], SIGUSR2);
            stress_sleep_ms(300);
        }
        fflush(stderr);
        abort();
    }
    return NULL;
}

static void stress_start_watchdog(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = stress_print_own_stack;
    sigemptyset(&action.sa_mask);
    sigaction(SIGUSR2, &action, NULL);
#ifdef STRESS_SANITIZED
    __sanitizer_set_death_callback(stress_on_sanitizer_death);
#endif
    pthread_t watchdog;
    if (pthread_create(&watchdog, NULL, stress_watchdog, NULL) != 0) {
        fprintf(stderr, "stress_table: cannot start the watchdog\n");
        exit(2);
    }
    pthread_detach(watchdog);
}

#endif /* DC_STRESS_SUPPORT_H */
