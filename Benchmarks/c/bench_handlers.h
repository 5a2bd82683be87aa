/*
 * bench_handlers.h — the handlers the table benchmark registers. A table keeps
 * one handler per (event, function, target), so ten handlers on one event need
 * ten functions: bench_handlers[] holds ten distinct `void (void *)` functions,
 * each touching the bench_object it is given. bench_count is the handler bound
 * to a million distinct targets: it never reads its target, so the figure is
 * the table's cost, not a million cache misses. Like bench_callees.c, this is
 * its own translation unit, so no call can be inlined or elided.
 */
#ifndef DC_BENCH_HANDLERS_H
#define DC_BENCH_HANDLERS_H

#include <stdint.h>

enum { BENCH_HANDLER_COUNT = 10 };

extern void (*const bench_handlers[BENCH_HANDLER_COUNT])(void *object);

/* void (void *): counts its calls in bench_count_calls, ignoring the target. */
void bench_count(void *target);

extern uint64_t bench_count_calls;

#endif /* DC_BENCH_HANDLERS_H */
