/*
 * thread_support.h — what the threaded C tests share: a monotonic clock and
 * waits bounded by a deadline, so that a thread that never arrives is a
 * failed assertion rather than a hung test.
 */
#ifndef DC_THREAD_SUPPORT_H
#define DC_THREAD_SUPPORT_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t deadline_after_ms(uint64_t milliseconds) { return now_ns() + milliseconds * 1000000u; }

/* Waits until *flag is true; false when the deadline passed first. */
static inline bool wait_for_flag(atomic_bool *flag, uint64_t milliseconds) {
    uint64_t deadline = deadline_after_ms(milliseconds);
    while (!atomic_load(flag)) {
        if (now_ns() > deadline) return false;
        sched_yield();
    }
    return true;
}

#endif /* DC_THREAD_SUPPORT_H */
