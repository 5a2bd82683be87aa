/*
 * bench_callees.h — the functions the benchmark calls. They live in their own
 * translation unit so the compiler cannot inline or elide a single call, and
 * each leaves a trace in the object so every call does its work.
 */
#ifndef DC_BENCH_CALLEES_H
#define DC_BENCH_CALLEES_H

#include <stdbool.h>
#include <stdint.h>

typedef struct bench_object {
    uint64_t touches;
    bool flag;
} bench_object;

/* void (void *) */
void bench_touch(void *object);

/* void (void *, bool) */
void bench_set_flag(void *object, bool flag);

/* int64_t (void *, int64_t, double) */
int64_t bench_scale(void *object, int64_t count, double factor);

/* Two doubles, as {point=dd}: passed in two vector registers on x86-64. */
typedef struct bench_point {
    double x, y;
} bench_point;

/* Two ints, as div_t and {div=ii}: returned in one integer register. */
typedef struct bench_quotient {
    int quot, rem;
} bench_quotient;

/* double ({point=dd}): x + y */
double bench_point_sum(bench_point point);

/* {div=ii} (int, int) */
bench_quotient bench_divide(int numerator, int denominator);

/* D (D, D): a + b */
long double bench_long_double_add(long double a, long double b);

/* jd (jd): 2 * z */
double _Complex bench_complex_twice(double _Complex z);

#endif /* DC_BENCH_CALLEES_H */
