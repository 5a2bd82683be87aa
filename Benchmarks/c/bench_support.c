/* bench_support.c — see bench_support.h. */
#include "bench_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t bench_parse_count(const char *program, const char *text) {
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 10);
    if (end == text || *end != '\0' || value == 0) {
        fprintf(stderr, "%s: not a positive count: %s\n", program, text);
        exit(2);
    }
    return value;
}

void bench_keep_best(double *best, double sample) {
    if (*best < 0 || sample < *best) *best = sample;
}

uint64_t bench_calibrate(double (*probe)(void *context, int which, uint64_t n), void *context,
                         int which, double sample_ms) {
    uint64_t n = 256;
    for (;;) {
        double total_ns = probe(context, which, n) * (double)n;
        if (total_ns >= sample_ms * 1e6 / 8 || n >= (1ull << 32)) {
            double wanted = (double)n * sample_ms * 1e6 / (total_ns > 1 ? total_ns : 1);
            return wanted < 1 ? 1 : (uint64_t)wanted;
        }
        n *= 4;
    }
}

__attribute__((noinline)) void bench_counted(void (*loop)(void *context, uint64_t n), void *context,
                                             uint64_t n) {
    loop(context, n);
    /* Keeps this a real call frame rather than a tail call into loop, whose
     * instructions would then run outside bench_counted. */
    __asm__ volatile("" ::: "memory");
}

void bench_tsv(const char *name, double value) {
    printf("%s\t%.4f\n", name, value);
}
