/*
 * bench_closure.c — what a function pointer made at run time costs, beside a
 * raw libffi closure of the same signature, in one run.
 *
 *   closure.direct.void_ptr       a call through a volatile pointer to bench_touch
 *   closure.raw.void_ptr          a raw libffi closure (ffi_closure_alloc +
 *                                 ffi_prep_closure_loc) whose handler calls it
 *   closure.dc.void_ptr           a dc_closure whose forward handler reads the
 *                                 argument from the invocation and calls it
 *   closure.raw_execute.void_ptr  a raw libffi closure whose handler executes an
 *                                 event by id, one handler (bench_touch)
 *   closure.table.void_ptr        dc_table_closure_create for the same event
 *   forwarder.direct.N            N calls of bench_touch through a pointer array
 *   forwarder.dc.N                a dc_forwarder slot with N delegates
 *
 * Targets: closure.dc <= 1.2x closure.raw; closure.table <= 1.2x
 * closure.raw_execute. Every figure is the best of interleaved rounds.
 *
 *   bench_closure [--quick] [--runs N] [--tsv] | --count CASE N | --list
 */
#include <ffi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_callees.h"
#include "bench_support.h"
#include "dispatch_core.h"

enum { FORWARDER_DELEGATES = 10 };

typedef enum which {
    DIRECT,
    RAW,
    DC,
    RAW_EXECUTE,
    TABLE,
    FORWARDER_DIRECT_1,
    FORWARDER_1,
    FORWARDER_DIRECT_10,
    FORWARDER_10,
    WHICH_COUNT
} which;

static const char *const names[WHICH_COUNT] = {
    "closure.direct.void_ptr",      "closure.raw.void_ptr",  "closure.dc.void_ptr",
    "closure.raw_execute.void_ptr", "closure.table.void_ptr", "forwarder.direct.1",
    "forwarder.dc.1",               "forwarder.direct.10",   "forwarder.dc.10"};

static const char *const labels[WHICH_COUNT] = {
    "direct call (volatile pointer)",        "raw libffi closure",
    "dc_closure_function",                   "raw libffi closure + execute by id",
    "dc_table_closure_create, 1 handler",    "1 direct call (pointer array)",
    "dc_forwarder slot, 1 delegate",         "10 direct calls (pointer array)",
    "dc_forwarder slot, 10 delegates"};

/* Calls per iteration: a forwarder of 10 touches 10 times. */
static const uint64_t touches_per_call[WHICH_COUNT] = {1, 1, 1, 1, 1, 1, 1, 10, 10};

static bench_object object;
static dc_table *table;
static dc_event_id event;
static void (*volatile functions[WHICH_COUNT])(void *);
static void *forwarder_contexts[WHICH_COUNT];
static bench_object delegates[FORWARDER_DELEGATES];
static void (*volatile touches[FORWARDER_DELEGATES])(void *);

static void raw_touch(ffi_cif *cif, void *ret, void **arguments, void *data) {
    (void)cif, (void)ret, (void)data;
    bench_touch(*(void **)arguments[0]);
}

static void raw_execute(ffi_cif *cif, void *ret, void **arguments, void *data) {
    (void)cif, (void)ret, (void)data;
    dc_value argument = dc_pointer(*(void **)arguments[0]);
    dc_table_execute_id(table, event, &argument, 1, NULL);
}

static void forward_touch(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value argument;
    dc_invocation_get_argument(call, 0, &argument);
    bench_touch(argument.pointer);
}

static void die(const char *what) {
    fprintf(stderr, "bench_closure: %s failed: %s\n", what, dc_last_error_message());
    exit(2);
}

static dc_function raw_closure(ffi_cif *cif, void (*handler)(ffi_cif *, void *, void **, void *)) {
    void *code = NULL;
    ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    if (closure == NULL || ffi_prep_closure_loc(closure, cif, handler, NULL, code) != FFI_OK) die("a raw closure");
    return (dc_function)code;
}

static void prepare(void) {
    static ffi_cif cif;
    static ffi_type *parameters[1] = {&ffi_type_pointer};
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 1, &ffi_type_void, parameters) != FFI_OK) die("ffi_prep_cif");
    dc_signature *signature = NULL;
    if (dc_signature_create("v^v", &signature) != DC_OK) die("dc_signature_create");
    if (dc_table_create("bench", NULL, &table) != DC_OK ||
        dc_table_add(table, "touch", signature, DC_FUNCTION(bench_touch), NULL, NULL, NULL) != DC_OK ||
        dc_table_intern(table, "touch", &event) != DC_OK)
        die("the table");
    dc_closure *closure = NULL, *table_closure = NULL;
    if (dc_closure_create(signature, forward_touch, NULL, NULL, &closure) != DC_OK) die("dc_closure_create");
    if (dc_table_closure_create(table, "touch", signature, &table_closure) != DC_OK) die("dc_table_closure_create");

    functions[DIRECT] = bench_touch;
    functions[RAW] = (void (*)(void *))raw_closure(&cif, raw_touch);
    functions[DC] = (void (*)(void *))dc_closure_function(closure);
    functions[RAW_EXECUTE] = (void (*)(void *))raw_closure(&cif, raw_execute);
    functions[TABLE] = (void (*)(void *))dc_closure_function(table_closure);

    /* Forwarders of one slot, void (void *context); every delegate touches
     * the one object, so each call counts its delegates' touches. */
    const char *const slots[] = {"v^v"};
    for (int i = 0; i < FORWARDER_DELEGATES; i++) touches[i] = bench_touch;
    static void (*const touch_vtable[1])(void *) = {bench_touch};
    for (int w = FORWARDER_1; w <= FORWARDER_10; w += 2) {
        dc_forwarder *forwarder = NULL;
        if (dc_forwarder_create(slots, 1, &forwarder) != DC_OK) die("dc_forwarder_create");
        for (int i = 0; i < (w == FORWARDER_1 ? 1 : FORWARDER_DELEGATES); i++)
            if (dc_forwarder_add(forwarder, touch_vtable, w == FORWARDER_1 ? (void *)&object : &delegates[i]) != DC_OK)
                die("dc_forwarder_add");
        functions[w] = *(void (*const *)(void *))dc_forwarder_vtable(forwarder);
        forwarder_contexts[w] = dc_forwarder_context(forwarder);
    }
    dc_signature_release(signature);
}

__attribute__((noinline)) static void run(which w, uint64_t iterations) {
    switch (w) {
    case FORWARDER_DIRECT_1:
        for (uint64_t i = 0; i < iterations; i++) touches[0](&object);
        break;
    case FORWARDER_DIRECT_10:
        for (uint64_t i = 0; i < iterations; i++)
            for (int d = 0; d < FORWARDER_DELEGATES; d++) touches[d](&object);
        break;
    case FORWARDER_1:
    case FORWARDER_10:
        for (uint64_t i = 0; i < iterations; i++) functions[w](forwarder_contexts[w]);
        break;
    default:
        for (uint64_t i = 0; i < iterations; i++) functions[w](&object);
        break;
    }
}

static void run_counted(void *context, uint64_t iterations) { run(*(which *)context, iterations); }

/* Touches recorded by the objects the delegates of a forwarder of 10 hold. */
static uint64_t all_touches(void) {
    uint64_t total = object.touches;
    for (int i = 0; i < FORWARDER_DELEGATES; i++) total += delegates[i].touches;
    return total;
}

static double time_one(which w, uint64_t iterations) {
    uint64_t before = all_touches();
    uint64_t start = bench_now_ns();
    run(w, iterations);
    uint64_t elapsed = bench_now_ns() - start;
    if (all_touches() - before != iterations * touches_per_call[w]) {
        fprintf(stderr, "bench_closure: %s: the callee was not called every time\n", names[w]);
        exit(2);
    }
    return (double)elapsed / (double)iterations;
}

int main(int argc, char **argv) {
    uint64_t iterations = 5000000;
    unsigned runs = 11;
    bool tsv = false, list = false;
    const char *count_name = NULL;
    uint64_t count_iterations = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            iterations = 500000, runs = 3;
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = (unsigned)bench_parse_count("bench_closure", argv[++i]);
        } else if (strcmp(argv[i], "--tsv") == 0) {
            tsv = true;
        } else if (strcmp(argv[i], "--count") == 0 && i + 2 < argc) {
            count_name = argv[++i];
            count_iterations = bench_parse_count("bench_closure", argv[++i]);
        } else if (strcmp(argv[i], "--list") == 0) {
            list = true;
        } else {
            fprintf(stderr, "usage: bench_closure [--quick] [--runs N] [--tsv] | --count CASE N | --list\n");
            return 2;
        }
    }
    if (list) {
        for (int w = 0; w < WHICH_COUNT; w++) puts(names[w]);
        return 0;
    }
    prepare();
    if (count_name != NULL) {
        for (int w = 0; w < WHICH_COUNT; w++) {
            if (strcmp(names[w], count_name) != 0) continue;
            which counted = (which)w;
            run(counted, 1); /* warm */
            bench_counted(run_counted, &counted, count_iterations);
            return 0;
        }
        fprintf(stderr, "bench_closure: no case named %s (--list names them)\n", count_name);
        return 2;
    }

    double best[WHICH_COUNT];
    for (int w = 0; w < WHICH_COUNT; w++) {
        time_one((which)w, iterations / 20 + 1); /* warm */
        best[w] = -1.0;
    }
    for (unsigned round = 0; round < runs; round++)
        for (int w = 0; w < WHICH_COUNT; w++) bench_keep_best(&best[w], time_one((which)w, iterations));

    if (tsv) {
        for (int w = 0; w < WHICH_COUNT; w++) bench_tsv(names[w], best[w]);
        return 0;
    }
    printf("bench_closure: ns per call, best of %u runs\n\n", runs);
    for (int w = 0; w < WHICH_COUNT; w++) printf("  %-40s %8.2f\n", labels[w], best[w]);
    printf("\n  dc_closure / raw closure                 %8.2fx  target <= 1.2x\n", best[DC] / best[RAW]);
    printf("  table closure / raw closure + execute    %8.2fx  target <= 1.2x\n", best[TABLE] / best[RAW_EXECUTE]);
    return 0;
}
