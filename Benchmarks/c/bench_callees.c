/* bench_callees.c — see bench_callees.h. */
#include "bench_callees.h"

__attribute__((noinline)) void bench_touch(void *object) {
    ((bench_object *)object)->touches++;
}

__attribute__((noinline)) void bench_set_flag(void *object, bool flag) {
    bench_object *target = object;
    target->flag = flag;
    target->touches++;
}

__attribute__((noinline)) int64_t bench_scale(void *object, int64_t count, double factor) {
    ((bench_object *)object)->touches++;
    return (int64_t)((double)count * factor);
}

__attribute__((noinline)) double bench_point_sum(bench_point point) { return point.x + point.y; }

__attribute__((noinline)) long double bench_long_double_add(long double a, long double b) { return a + b; }

__attribute__((noinline)) double _Complex bench_complex_twice(double _Complex z) { return 2 * z; }

__attribute__((noinline)) bench_quotient bench_divide(int numerator, int denominator) {
    bench_quotient result = {numerator / denominator, numerator % denominator};
    return result;
}
