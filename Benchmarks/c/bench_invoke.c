/*
 * bench_invoke.c — what a dynamic call costs, as ratios measured in one run.
 *
 * For each signature it times, in nanoseconds per call:
 *
 *   direct       a call through a volatile function pointer of the real type:
 *                the floor any dynamic call is compared with;
 *   stub path    dc_invocation_invoke() on the signature's typed stub;
 *   libffi path  dc_invocation_invoke() forced onto libffi;
 *   raw ffi_call ffi_call() with a cif prepared once, as a hand-written libffi
 *                caller would do it;
 *   dc_call      the one-shot form, which also converts its arguments (shown
 *                for information, no target).
 *
 * and prints stub/direct (target <= 2x) and libffi-path/raw-ffi_call (target
 * <= 1.1x). Every variant is timed once per round, rounds interleaved, and the
 * best round counts, so a noisy moment hurts one sample, not one variant.
 *
 *   bench_invoke [--quick] [--runs N] [--iterations N] [--strict] [--tsv]
 *   bench_invoke --count CASE N      (bench_support.h)
 *   bench_invoke --list              the case names of --tsv and --count
 *
 * --strict exits 1 when a target is missed (timings are noisy on shared
 * machines, so by default the run only reports).
 */
#include <ffi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_callees.h"
#include "bench_support.h"
#include "dispatch_core.h"

#define STUB_TARGET 2.0
#define LIBFFI_TARGET 1.1

typedef enum variant {
    VARIANT_DIRECT,
    VARIANT_STUB,
    VARIANT_LIBFFI,
    VARIANT_RAW_FFI,
    VARIANT_DC_CALL,
    VARIANT_COUNT
} variant;

/* The names of --tsv and --count: invoke.<variant>.<case>. */
static const char *const variant_keys[VARIANT_COUNT] = {"direct", "stub", "libffi", "raw_ffi",
                                                        "dc_call"};

static const char *const variant_names[VARIANT_COUNT] = {
    "direct call (volatile pointer)", "dc_invocation_invoke, stub path",
    "dc_invocation_invoke, libffi path", "raw ffi_call, cached cif", "dc_call (one-shot)"};

typedef enum which_case { CASE_TOUCH, CASE_SET_FLAG, CASE_SCALE, CASE_COUNT } which_case;

typedef struct bench_case {
    const char *label;
    const char *key; /* in --tsv and --count names */
    const char *encoding;
    dc_function function;
    size_t count;
    dc_value arguments[3];
    ffi_type *ffi_return;
    ffi_type *ffi_parameters[3];

    dc_signature *signature;
    dc_invocation *stub_invocation;
    dc_invocation *libffi_invocation;
    ffi_cif cif;
    void *ffi_arguments[3];
    double best[VARIANT_COUNT];
} bench_case;

static bench_object object;
static bool flag_value = true;
static int64_t count_value = 7;
static double factor_value = 1.5;
static void *object_pointer = &object;

/* Read on every call, so the compiler must make each call for real. */
static void (*volatile direct_touch)(void *) = bench_touch;
static void (*volatile direct_set_flag)(void *, bool) = bench_set_flag;
static int64_t (*volatile direct_scale)(void *, int64_t, double) = bench_scale;

static volatile int64_t sink;

__attribute__((noinline)) static void loop_direct(which_case which, uint64_t iterations) {
    switch (which) {
    case CASE_TOUCH:
        for (uint64_t i = 0; i < iterations; i++) direct_touch(&object);
        break;
    case CASE_SET_FLAG:
        for (uint64_t i = 0; i < iterations; i++) direct_set_flag(&object, flag_value);
        break;
    default: {
        int64_t total = 0;
        for (uint64_t i = 0; i < iterations; i++) {
            total += direct_scale(&object, count_value, factor_value);
        }
        sink = total;
        break;
    }
    }
}

__attribute__((noinline)) static void loop_invoke(dc_invocation *invocation, uint64_t iterations) {
    for (uint64_t i = 0; i < iterations; i++) dc_invocation_invoke(invocation);
}

__attribute__((noinline)) static void loop_raw_ffi(bench_case *c, uint64_t iterations) {
    union {
        ffi_arg integer;
        int64_t q;
    } result;
    int64_t total = 0;
    for (uint64_t i = 0; i < iterations; i++) {
        ffi_call(&c->cif, FFI_FN(c->function), &result, c->ffi_arguments);
        total += (int64_t)result.integer;
    }
    sink = total;
}

__attribute__((noinline)) static void loop_dc_call(bench_case *c, uint64_t iterations) {
    dc_value result;
    int64_t total = 0;
    for (uint64_t i = 0; i < iterations; i++) {
        dc_call(c->signature, c->function, c->arguments, c->count, &result);
        total += result.i64;
    }
    sink = total;
}

static void run_variant(bench_case *c, which_case which, variant v, uint64_t iterations) {
    switch (v) {
    case VARIANT_DIRECT: loop_direct(which, iterations); break;
    case VARIANT_STUB: loop_invoke(c->stub_invocation, iterations); break;
    case VARIANT_LIBFFI: loop_invoke(c->libffi_invocation, iterations); break;
    case VARIANT_RAW_FFI: loop_raw_ffi(c, iterations); break;
    default: loop_dc_call(c, iterations); break;
    }
}

/* Times one variant; returns ns per call, or a negative value when the calls did
 * not all happen (a broken call path must not look fast). */
static double time_variant(bench_case *c, which_case which, variant v, uint64_t iterations) {
    uint64_t touches_before = object.touches;
    uint64_t start = bench_now_ns();
    run_variant(c, which, v, iterations);
    uint64_t elapsed = bench_now_ns() - start;
    if (object.touches - touches_before != iterations) {
        return -1.0;
    }
    return (double)elapsed / (double)iterations;
}

/* --count: one variant of one case, run inside bench_counted. */
typedef struct counted_variant {
    bench_case *c;
    which_case which;
    variant v;
} counted_variant;

static void run_counted_variant(void *context, uint64_t iterations) {
    counted_variant *counted = context;
    run_variant(counted->c, counted->which, counted->v, iterations);
}

static void die(const char *what, dc_status status) {
    fprintf(stderr, "bench_invoke: %s: %s (%s)\n", what, dc_status_name(status),
            dc_last_error_message());
    exit(2);
}

static void prepare(bench_case *c) {
    dc_status status = dc_signature_create(c->encoding, &c->signature);
    if (status != DC_OK) die(c->encoding, status);
    if ((status = dc_invocation_create(c->signature, c->function, &c->stub_invocation)) != DC_OK ||
        (status = dc_invocation_create(c->signature, c->function, &c->libffi_invocation)) != DC_OK) {
        die("dc_invocation_create", status);
    }
    for (size_t i = 0; i < c->count; i++) {
        if ((status = dc_invocation_set_argument(c->stub_invocation, i, &c->arguments[i])) != DC_OK ||
            (status = dc_invocation_set_argument(c->libffi_invocation, i, &c->arguments[i])) != DC_OK) {
            die("dc_invocation_set_argument", status);
        }
    }
    if ((status = dc_invocation_set_call_path(c->libffi_invocation, DC_CALL_PATH_FFI)) != DC_OK) {
        die("dc_invocation_set_call_path", status);
    }
    if (ffi_prep_cif(&c->cif, FFI_DEFAULT_ABI, (unsigned)c->count, c->ffi_return,
                     c->ffi_parameters) != FFI_OK) {
        fprintf(stderr, "bench_invoke: ffi_prep_cif failed for %s\n", c->encoding);
        exit(2);
    }
    for (int v = 0; v < VARIANT_COUNT; v++) c->best[v] = -1.0;
}

static void print_table(const bench_case *cases, unsigned runs, uint64_t cheap_iterations) {
    printf("bench_invoke: ns per call, best of %u runs (%llu calls per run for direct and stub)\n",
           runs, (unsigned long long)cheap_iterations);
    int missed = 0, met = 0;
    for (int k = 0; k < CASE_COUNT; k++) {
        const bench_case *c = &cases[k];
        const char *path = dc_signature_call_path(c->signature) == DC_CALL_PATH_STUB ? "stub" : "libffi";
        double stub_ratio = c->best[VARIANT_STUB] / c->best[VARIANT_DIRECT];
        double libffi_ratio = c->best[VARIANT_LIBFFI] / c->best[VARIANT_RAW_FFI];
        bool stub_ok = stub_ratio <= STUB_TARGET;
        bool libffi_ok = libffi_ratio <= LIBFFI_TARGET;
        printf("\n%s  \"%s\"  (default path: %s)\n", c->label, c->encoding, path);
        printf("  %-36s %8.2f\n", variant_names[VARIANT_DIRECT], c->best[VARIANT_DIRECT]);
        printf("  %-36s %8.2f   %5.2fx direct     target <= %.1fx  %s\n",
               variant_names[VARIANT_STUB], c->best[VARIANT_STUB], stub_ratio, STUB_TARGET,
               stub_ok ? "ok" : "MISSED");
        printf("  %-36s %8.2f   %5.2fx ffi_call   target <= %.1fx  %s\n",
               variant_names[VARIANT_LIBFFI], c->best[VARIANT_LIBFFI], libffi_ratio, LIBFFI_TARGET,
               libffi_ok ? "ok" : "MISSED");
        printf("  %-36s %8.2f   %5.2fx direct\n", variant_names[VARIANT_RAW_FFI],
               c->best[VARIANT_RAW_FFI], c->best[VARIANT_RAW_FFI] / c->best[VARIANT_DIRECT]);
        printf("  %-36s %8.2f   %5.2fx direct\n", variant_names[VARIANT_DC_CALL],
               c->best[VARIANT_DC_CALL], c->best[VARIANT_DC_CALL] / c->best[VARIANT_DIRECT]);
        met += stub_ok + libffi_ok;
        missed += !stub_ok + !libffi_ok;
    }
    printf("\ntargets: %d met, %d missed\n", met, missed);
}

int main(int argc, char **argv) {
    uint64_t cheap_iterations = 50000000;
    unsigned runs = 11; /* best of many: single samples on shared machines swing by 1.5x */
    bool strict = false, tsv = false, list = false;
    const char *count_name = NULL;
    uint64_t count_iterations = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            cheap_iterations = 5000000, runs = 3;
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = (unsigned)bench_parse_count("bench_invoke", argv[++i]);
        } else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
            cheap_iterations = bench_parse_count("bench_invoke", argv[++i]);
        } else if (strcmp(argv[i], "--strict") == 0) {
            strict = true;
        } else if (strcmp(argv[i], "--tsv") == 0) {
            tsv = true;
        } else if (strcmp(argv[i], "--count") == 0 && i + 2 < argc) {
            count_name = argv[++i];
            count_iterations = bench_parse_count("bench_invoke", argv[++i]);
        } else if (strcmp(argv[i], "--list") == 0) {
            list = true;
        } else {
            fprintf(stderr, "usage: bench_invoke [--quick] [--runs N] [--iterations N] [--strict] "
                            "[--tsv] | --count CASE N | --list\n");
            return 2;
        }
    }
    /* libffi calls cost about ten direct calls; fewer of them take as long. */
    uint64_t iterations[VARIANT_COUNT] = {
        cheap_iterations, cheap_iterations, cheap_iterations / 5, cheap_iterations / 5,
        cheap_iterations / 2};

    /* ffi_type_pointer, ffi_type_uint8 (C bool) ... are libffi's own type objects. */
    bench_case cases[CASE_COUNT] = {
        {.label = "void(ptr)", .key = "void_ptr", .encoding = "v^v", .function = DC_FUNCTION(bench_touch),
         .count = 1, .arguments = {dc_pointer(&object)}, .ffi_return = &ffi_type_void,
         .ffi_parameters = {&ffi_type_pointer}},
        {.label = "void(ptr,bool)", .key = "void_ptr_bool", .encoding = "v^vB", .function = DC_FUNCTION(bench_set_flag),
         .count = 2, .arguments = {dc_pointer(&object), dc_bool(true)},
         .ffi_return = &ffi_type_void, .ffi_parameters = {&ffi_type_pointer, &ffi_type_uint8}},
        {.label = "int64(ptr,int64,double)", .key = "int64_ptr_int64_double",
         .encoding = "q^vqd",
         .function = DC_FUNCTION(bench_scale), .count = 3,
         .arguments = {dc_pointer(&object), dc_int64(7), dc_double(1.5)},
         .ffi_return = &ffi_type_sint64,
         .ffi_parameters = {&ffi_type_pointer, &ffi_type_sint64, &ffi_type_double}},
    };
    for (int k = 0; k < CASE_COUNT; k++) {
        prepare(&cases[k]);
        cases[k].ffi_arguments[0] = &object_pointer;
        cases[k].ffi_arguments[1] = k == CASE_SET_FLAG ? (void *)&flag_value : (void *)&count_value;
        cases[k].ffi_arguments[2] = &factor_value;
    }

    char name[96];
    if (list || count_name != NULL) {
        for (int k = 0; k < CASE_COUNT; k++) {
            for (int v = 0; v < VARIANT_COUNT; v++) {
                snprintf(name, sizeof name, "invoke.%s.%s", variant_keys[v], cases[k].key);
                if (list) {
                    puts(name);
                } else if (strcmp(name, count_name) == 0) {
                    counted_variant counted = {&cases[k], (which_case)k, (variant)v};
                    run_variant(&cases[k], (which_case)k, (variant)v, 1); /* warm */
                    bench_counted(run_counted_variant, &counted, count_iterations);
                    return 0;
                }
            }
        }
        if (list) return 0;
        fprintf(stderr, "bench_invoke: no case named %s (--list names them)\n", count_name);
        return 2;
    }

    /* Warm up caches, branch predictors and the CPU clock. */
    for (int k = 0; k < CASE_COUNT; k++) {
        for (int v = 0; v < VARIANT_COUNT; v++) {
            time_variant(&cases[k], (which_case)k, (variant)v, iterations[v] / 20 + 1);
        }
    }
    for (unsigned run = 0; run < runs; run++) {
        for (int k = 0; k < CASE_COUNT; k++) {
            for (int v = 0; v < VARIANT_COUNT; v++) {
                double ns = time_variant(&cases[k], (which_case)k, (variant)v, iterations[v]);
                if (ns < 0) {
                    fprintf(stderr, "bench_invoke: %s, %s: the callee was not called every time\n",
                            cases[k].label, variant_names[v]);
                    return 2;
                }
                if (cases[k].best[v] < 0 || ns < cases[k].best[v]) cases[k].best[v] = ns;
            }
        }
    }

    if (tsv) {
        for (int k = 0; k < CASE_COUNT; k++) {
            for (int v = 0; v < VARIANT_COUNT; v++) {
                snprintf(name, sizeof name, "invoke.%s.%s", variant_keys[v], cases[k].key);
                bench_tsv(name, cases[k].best[v]);
            }
        }
    } else {
        print_table(cases, runs, cheap_iterations);
    }
    int missed = 0;
    for (int k = 0; k < CASE_COUNT; k++) {
        missed += cases[k].best[VARIANT_STUB] / cases[k].best[VARIANT_DIRECT] > STUB_TARGET;
        missed += cases[k].best[VARIANT_LIBFFI] / cases[k].best[VARIANT_RAW_FFI] > LIBFFI_TARGET;
    }

    for (int k = 0; k < CASE_COUNT; k++) {
        dc_invocation_destroy(cases[k].stub_invocation);
        dc_invocation_destroy(cases[k].libffi_invocation);
        dc_signature_release(cases[k].signature);
    }
    return strict && missed > 0 ? 1 : 0;
}
