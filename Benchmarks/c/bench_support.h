/*
 * bench_support.h — what every C benchmark program shares: the clock, sample
 * sizing, command-line counts, and the two ways a program reports.
 *
 * Timing: each figure is the best of its samples, one sample per round with the
 * rounds interleaved, so a noisy moment on a shared machine hurts one sample,
 * not one figure.
 *
 * Counting: `--count CASE N` makes a program run one case N times inside
 * bench_counted(), and nothing else of interest there. Scripts/bench-report.py
 * runs that under `valgrind --tool=callgrind --toggle-collect=bench_counted`,
 * which counts only the instructions executed inside bench_counted and what it
 * calls: the case's instructions per operation, repeatable on any machine.
 *
 * Reporting: `--tsv` makes a program print one `name<TAB>value` line per figure
 * instead of its own table, for Scripts/bench-report.py to put in one table.
 */
#ifndef DC_BENCH_SUPPORT_H
#define DC_BENCH_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/* A positive count from the command line; exits with a message otherwise. */
uint64_t bench_parse_count(const char *program, const char *text);

/* Keeps the smaller of *best and sample; a negative *best means none yet. */
void bench_keep_best(double *best, double sample);

/* The iterations that take about sample_ms, found by timing growing runs of
 * probe(context, which, n), which returns ns per iteration. */
uint64_t bench_calibrate(double (*probe)(void *context, int which, uint64_t n), void *context,
                         int which, double sample_ms);

/* Runs loop(context, n); not inlined, so callgrind can count inside it alone. */
void bench_counted(void (*loop)(void *context, uint64_t n), void *context, uint64_t n);

/* One `name<TAB>value` line of --tsv output. */
void bench_tsv(const char *name, double value);

#endif /* DC_BENCH_SUPPORT_H */
