/* bench_handlers.c — see bench_handlers.h. */
#include "bench_handlers.h"

#include "bench_callees.h"

uint64_t bench_count_calls;

/* Each leaves its number behind too, so no two bodies are identical and the
 * compiler cannot fold them into one function. */
static volatile int last_handler;

#define BENCH_HANDLER(n)                                                                 \
    __attribute__((noinline)) static void bench_handler_##n(void *object) {              \
        ((bench_object *)object)->touches++;                                             \
        last_handler = n;                                                                \
    }
BENCH_HANDLER(0)
BENCH_HANDLER(1)
BENCH_HANDLER(2)
BENCH_HANDLER(3)
BENCH_HANDLER(4)
BENCH_HANDLER(5)
BENCH_HANDLER(6)
BENCH_HANDLER(7)
BENCH_HANDLER(8)
BENCH_HANDLER(9)
#undef BENCH_HANDLER

void (*const bench_handlers[BENCH_HANDLER_COUNT])(void *object) = {
    bench_handler_0, bench_handler_1, bench_handler_2, bench_handler_3, bench_handler_4,
    bench_handler_5, bench_handler_6, bench_handler_7, bench_handler_8, bench_handler_9};

__attribute__((noinline)) void bench_count(void *target) {
    (void)target;
    bench_count_calls++;
}
