/*
 * bench_removal.h — removing the handlers of one event one at a time, for
 * bench_table.
 *
 * A removal table holds `count` handlers on one event: bench_count bound to
 * `count` distinct targets, so none is a duplicate of another. A pass then
 * removes every one of them by id with dc_table_remove, in one of three
 * orders: the order they were registered in, the reverse of it, or a random
 * order, a Fisher-Yates shuffle driven by a fixed-seed generator of its own
 * (no libc rand state), so every run on every machine removes in the same
 * order. A block-and-unblock pass calls dc_table_block on every handler, then
 * dc_table_unblock on every one, both in the random order. Only those loops
 * are timed, never the registering; each pass checks that it did what it says
 * (every call DC_OK; no handler left after a removal pass; an execute calls
 * none while all are blocked and all once they are unblocked).
 *
 * A pass that has not finished after `budget_ns` stops where it is: a
 * removal whose cost grows with the handlers left would otherwise hold the
 * run up for as long as the square of `count` says.
 */
#ifndef DC_BENCH_REMOVAL_H
#define DC_BENCH_REMOVAL_H

#include <stdint.h>

#include "dispatch_core.h"

typedef enum removal_order {
    REMOVAL_REGISTRATION_ORDER,
    REMOVAL_REVERSE_ORDER,
    REMOVAL_RANDOM_ORDER,
    REMOVAL_ORDER_COUNT
} removal_order;

/* In --tsv and --count names: table.remove.<name>, table.block_unblock.<name>. */
extern const char *const removal_order_names[REMOVAL_ORDER_COUNT];

/* One pass: ns per handler, or how far it got when it ran out of budget. */
typedef struct removal_sample {
    double ns_per_handler; /* negative when unfinished */
    double done;           /* the part of the pass done: 1 when finished */
} removal_sample;

typedef struct removal_bench {
    dc_signature *signature;
    uint64_t count;         /* handlers in each table */
    uint64_t budget_ns;     /* a pass stops after this */
    char *targets;          /* count distinct addresses to bind */
    uint32_t *random_order; /* a seeded shuffle of 0 .. count - 1 */
    dc_table *table;        /* the table a pass works on */
    dc_event_id event;
    dc_handler_id *ids;      /* its handlers, by registration index */
    dc_handler_id *sequence; /* the same ids in the order the pass takes them */
    removal_sample best_remove[REMOVAL_ORDER_COUNT];
    removal_sample best_block_unblock;
} removal_bench;

/* Keeps the faster of *best and sample; an unfinished sample is kept only
 * while there is no finished one (and then the one that got furthest). */
void removal_keep_best(removal_sample *best, removal_sample sample);

/* Allocates the targets, the ids and the random order for `count` handlers
 * (count <= UINT32_MAX), with no best samples yet; exits with a message when
 * memory runs out. */
void removal_prepare(removal_bench *r, dc_signature *signature, uint64_t count, double budget_s);
void removal_release(removal_bench *r);

/* A fresh table with r->count handlers; then removes them all in `order`. */
removal_sample removal_time_remove(removal_bench *r, removal_order order);

/* A fresh table with r->count handlers; then blocks and unblocks them all in
 * the random order (ns per handler: one block and one unblock). */
removal_sample removal_time_block_unblock(removal_bench *r);

/* For --count table.remove.<order> N (prepared with count N): a table of N
 * handlers, all removed in `order` inside bench_counted, so callgrind counts
 * the removals alone, amortized over the whole table. */
void removal_count_remove(removal_bench *r, removal_order order);

#endif /* DC_BENCH_REMOVAL_H */
