/* bench_removal.c — see bench_removal.h. */
#include "bench_removal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_handlers.h"
#include "bench_support.h"

/* Any fixed value: the random order is the same on every run. */
#define RANDOM_ORDER_SEED UINT64_C(20261123)

/* A timed pass reads the clock after every so many handlers, for its budget:
 * one clock read per chunk costs nothing next to the chunk. */
enum { BUDGET_CHECK_INTERVAL = 4096 };

const char *const removal_order_names[REMOVAL_ORDER_COUNT] = {"registration_order", "reverse_order",
                                                              "random_order"};

typedef enum handler_operation {
    OPERATION_REMOVE,
    OPERATION_BLOCK,
    OPERATION_UNBLOCK
} handler_operation;

static const char *const operation_functions[] = {"dc_table_remove", "dc_table_block",
                                                  "dc_table_unblock"};

static void die(const char *what, dc_status status) {
    fprintf(stderr, "bench_table: removal: %s: %s (%s)\n", what, dc_status_name(status),
            dc_last_error_message());
    exit(2);
}

static void *allocate(uint64_t count, size_t size) {
    void *memory = calloc(count, size);
    if (memory == NULL) {
        fprintf(stderr, "bench_table: removal: no memory for %llu handlers\n",
                (unsigned long long)count);
        exit(2);
    }
    return memory;
}

/* splitmix64: a small generator whose sequence depends on its seed alone. */
static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Fisher-Yates. The modulo's bias, below count / 2^64, changes no figure. */
static void shuffle(uint32_t *order, uint64_t count) {
    uint64_t state = RANDOM_ORDER_SEED;
    for (uint64_t i = 0; i < count; i++) order[i] = (uint32_t)i;
    for (uint64_t i = count - 1; i > 0; i--) {
        uint64_t j = next_random(&state) % (i + 1);
        uint32_t kept = order[i];
        order[i] = order[j];
        order[j] = kept;
    }
}

void removal_prepare(removal_bench *r, dc_signature *signature, uint64_t count, double budget_s) {
    if (count > UINT32_MAX) {
        fprintf(stderr, "bench_table: removal: at most %u handlers\n", UINT32_MAX);
        exit(2);
    }
    *r = (removal_bench){.signature = signature, .count = count,
                         .budget_ns = (uint64_t)(budget_s * 1e9)};
    r->targets = allocate(count, 1);
    r->random_order = allocate(count, sizeof *r->random_order);
    r->ids = allocate(count, sizeof *r->ids);
    r->sequence = allocate(count, sizeof *r->sequence);
    shuffle(r->random_order, count);
    for (int order = 0; order < REMOVAL_ORDER_COUNT; order++) {
        r->best_remove[order].ns_per_handler = -1.0;
    }
    r->best_block_unblock.ns_per_handler = -1.0;
}

void removal_release(removal_bench *r) {
    free(r->targets);
    free(r->random_order);
    free(r->ids);
    free(r->sequence);
    *r = (removal_bench){0};
}

void removal_keep_best(removal_sample *best, removal_sample sample) {
    bool finished = sample.ns_per_handler >= 0, best_finished = best->ns_per_handler >= 0;
    if (finished ? !best_finished || sample.ns_per_handler < best->ns_per_handler
                 : !best_finished && sample.done > best->done) {
        *best = sample;
    }
}

/* ---- the table a pass works on ----------------------------------------------------- */

static void build_table(removal_bench *r) {
    dc_status status = dc_table_create("removal", NULL, &r->table);
    if (status != DC_OK) die("dc_table_create", status);
    if ((status = dc_table_intern(r->table, "removal", &r->event)) != DC_OK) {
        die("dc_table_intern", status);
    }
    for (uint64_t i = 0; i < r->count; i++) {
        status = dc_table_add_id(r->table, r->event, r->signature, DC_FUNCTION(bench_count),
                                 &r->targets[i], NULL, &r->ids[i]);
        if (status != DC_OK) die("dc_table_add_id", status);
    }
}

/* r->sequence: the ids in the order a pass takes them, so that the timed loop
 * is the same for every order and only the table sees the difference. */
static void arrange(removal_bench *r, removal_order order) {
    for (uint64_t i = 0; i < r->count; i++) {
        uint64_t index = order == REMOVAL_REGISTRATION_ORDER ? i
                         : order == REMOVAL_REVERSE_ORDER    ? r->count - 1 - i
                                                             : r->random_order[i];
        r->sequence[i] = r->ids[index];
    }
}

static void expect_handler_count(const removal_bench *r, uint64_t expected, const char *after) {
    size_t count = 0;
    dc_status status = dc_table_handler_count_id(r->table, r->event, &count);
    if (status != DC_OK) die("dc_table_handler_count_id", status);
    if (count != expected) {
        fprintf(stderr, "bench_table: removal: %llu handlers left after %s, expected %llu\n",
                (unsigned long long)count, after, (unsigned long long)expected);
        exit(2);
    }
}

static void expect_calls(const removal_bench *r, uint64_t expected, const char *when) {
    uint64_t calls_before = bench_count_calls;
    dc_status status = dc_table_execute_id(r->table, r->event, NULL, 0, NULL);
    if (status != DC_OK) die("dc_table_execute_id", status);
    if (bench_count_calls - calls_before != expected) {
        fprintf(stderr, "bench_table: removal: an execute %s called %llu handlers, expected %llu\n",
                when, (unsigned long long)(bench_count_calls - calls_before),
                (unsigned long long)expected);
        exit(2);
    }
}

/* ---- the passes ---------------------------------------------------------------------- */

static inline dc_status apply(dc_table *table, handler_operation operation, dc_handler_id id) {
    switch (operation) {
    case OPERATION_REMOVE:
        return dc_table_remove(table, id);
    case OPERATION_BLOCK:
        return dc_table_block(table, id);
    default:
        return dc_table_unblock(table, id);
    }
}

__attribute__((noinline)) static void apply_range(removal_bench *r, handler_operation operation,
                                                  uint64_t from, uint64_t to) {
    for (uint64_t i = from; i < to; i++) {
        dc_status status = apply(r->table, operation, r->sequence[i]);
        if (status != DC_OK) die(operation_functions[operation], status);
    }
}

/* `operation` on every handler of r->sequence until done or out of budget:
 * how many it reached, and the time taken in *elapsed_ns. */
static uint64_t timed_pass(removal_bench *r, handler_operation operation, uint64_t *elapsed_ns) {
    uint64_t done = 0;
    uint64_t start = bench_now_ns();
    while (done < r->count) {
        uint64_t end =
            r->count - done > BUDGET_CHECK_INTERVAL ? done + BUDGET_CHECK_INTERVAL : r->count;
        apply_range(r, operation, done, end);
        done = end;
        if (bench_now_ns() - start > r->budget_ns) break;
    }
    *elapsed_ns = bench_now_ns() - start;
    return done;
}

removal_sample removal_time_remove(removal_bench *r, removal_order order) {
    build_table(r);
    arrange(r, order);
    uint64_t elapsed = 0;
    uint64_t removed = timed_pass(r, OPERATION_REMOVE, &elapsed);
    expect_handler_count(r, r->count - removed, operation_functions[OPERATION_REMOVE]);
    dc_table_destroy(r->table);
    r->table = NULL;
    return (removal_sample){removed == r->count ? (double)elapsed / (double)r->count : -1.0,
                            (double)removed / (double)r->count};
}

removal_sample removal_time_block_unblock(removal_bench *r) {
    build_table(r);
    arrange(r, REMOVAL_RANDOM_ORDER);
    uint64_t block_elapsed = 0, unblock_elapsed = 0, unblocked = 0;
    uint64_t blocked = timed_pass(r, OPERATION_BLOCK, &block_elapsed);
    if (blocked == r->count) {
        expect_calls(r, 0, "with every handler blocked");
        unblocked = timed_pass(r, OPERATION_UNBLOCK, &unblock_elapsed);
        if (unblocked == r->count) expect_calls(r, r->count, "after every handler was unblocked");
    }
    dc_table_destroy(r->table);
    r->table = NULL;
    return (removal_sample){
        unblocked == r->count ? (double)(block_elapsed + unblock_elapsed) / (double)r->count : -1.0,
        (double)(blocked + unblocked) / (2.0 * (double)r->count)};
}

/* ---- counting ---------------------------------------------------------------------------- */

static void remove_first(void *context, uint64_t n) {
    apply_range(context, OPERATION_REMOVE, 0, n);
}

void removal_count_remove(removal_bench *r, removal_order order) {
    build_table(r);
    arrange(r, order);
    bench_counted(remove_first, r, r->count);
    expect_handler_count(r, 0, operation_functions[OPERATION_REMOVE]);
    dc_table_destroy(r->table);
    r->table = NULL;
}
