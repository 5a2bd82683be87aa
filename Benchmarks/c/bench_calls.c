/*
 * bench_calls.c — what a call of the types beyond scalars costs: a struct
 * argument, a struct return and a variadic call, each beside a direct call and
 * a raw ffi_call with a cif of the same types prepared once, in one run.
 *
 *   call.direct.<shape>   a call through a volatile pointer of the real type
 *   call.raw_ffi.<shape>  ffi_call with a hand-prepared cif
 *   call.invoke.<shape>   dc_invocation_invoke (the arguments set once)
 *   call.dc_call.<shape>  dc_call, which also checks and converts its values
 *
 *   shapes: struct_arg      double ({point=dd})
 *           struct_return   {div=ii} (int, int)
 *           long_double     long double (long double, long double)
 *           complex_double  double _Complex (double _Complex)
 *           variadic        snprintf(buffer, 32, "%d%s", 42, "x")
 *
 * Target: call.invoke <= 1.1x call.raw_ffi for the two struct shapes and the
 * long double and complex ones (values by address, as structs), in times and
 * in callgrind's counts (make bench): both are prepared once. dc_call, which
 * checks and converts its values on every call, is shown beside them. Every
 * figure is the best of interleaved rounds.
 *
 *   bench_calls [--quick] [--runs N] [--tsv] | --count CASE N | --list
 */
#include <complex.h>
#include <ffi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_callees.h"
#include "bench_support.h"
#include "dispatch_core.h"

#define RAW_FFI_TARGET 1.1

typedef enum variant { DIRECT, RAW_FFI, INVOKE, DC_CALL, VARIANT_COUNT } variant;
typedef enum shape { STRUCT_ARG, STRUCT_RETURN, LONG_DOUBLE, COMPLEX_DOUBLE, VARIADIC, SHAPE_COUNT } shape;

static const char *const variant_keys[VARIANT_COUNT] = {"direct", "raw_ffi", "invoke", "dc_call"};
static const char *const variant_labels[VARIANT_COUNT] = {
    "direct call (volatile pointer)", "raw ffi_call, cif prepared once", "dc_invocation_invoke",
    "dc_call (one-shot, checks its values)"};
static const char *const shape_keys[SHAPE_COUNT] = {"struct_arg", "struct_return", "long_double", "complex_double",
                                                    "variadic"};
static const char *const shape_labels[SHAPE_COUNT] = {
    "double ({point=dd})", "{div=ii} (int, int)", "long double (long double, long double)",
    "double _Complex (double _Complex)", "snprintf(char *, size_t, \"%d%s\", int, char *)"};

static double (*volatile direct_point_sum)(bench_point) = bench_point_sum;
static bench_quotient (*volatile direct_divide)(int, int) = bench_divide;
static int (*volatile direct_snprintf)(char *, size_t, const char *, ...) = snprintf;
static long double (*volatile direct_long_double_add)(long double, long double) = bench_long_double_add;
static double _Complex (*volatile direct_complex_twice)(double _Complex) = bench_complex_twice;

/* What each shape's calls pass, in the form each variant wants. */
static bench_point point = {1.5, 2.5};
static int numerator = 17, denominator = 5;
static char buffer[32];
static void *buffer_address = buffer;
static size_t buffer_size = sizeof buffer;
static const char *format = "%d%s";
static int number = 42;
static const char *suffix = "x";
static long double long_double_a = 1.25L, long_double_b = 2.5L;
static double _Complex complex_z = 1.5 + 2.5 * I;

/* A result every variant writes, so no call is dead. */
static volatile double double_sink;
static volatile int int_sink;
static volatile long double long_double_sink;
static volatile double complex_sink;
static bench_quotient quotient_sink;

typedef struct bench_shape {
    const char *encoding;
    size_t fixed_count; /* variadic: the fixed parameters; 0 otherwise */
    dc_function function;
    dc_signature *signature;
    dc_invocation *invocation;
    dc_value arguments[5];
    size_t count;
    ffi_cif cif;
    ffi_type *ffi_parameters[5];
    void *ffi_arguments[5];
    double best[VARIANT_COUNT];
} bench_shape;

/* libffi's description of bench_point and bench_quotient, made by hand as a
 * libffi caller would. */
static ffi_type *point_elements[] = {&ffi_type_double, &ffi_type_double, NULL};
static ffi_type point_type = {0, 0, FFI_TYPE_STRUCT, point_elements};
static ffi_type *quotient_elements[] = {&ffi_type_sint, &ffi_type_sint, NULL};
static ffi_type quotient_type = {0, 0, FFI_TYPE_STRUCT, quotient_elements};

static bench_shape shapes[SHAPE_COUNT];

static void die(const char *what, dc_status status) {
    fprintf(stderr, "bench_calls: %s failed: %s (%s)\n", what, dc_status_name(status), dc_last_error_message());
    exit(2);
}

static void prepare(void) {
    bench_shape *s = &shapes[STRUCT_ARG];
    *s = (bench_shape){.encoding = "d{point=dd}", .function = DC_FUNCTION(bench_point_sum), .count = 1};
    s->arguments[0] = dc_struct(&point);
    s->ffi_parameters[0] = &point_type;
    s->ffi_arguments[0] = &point;
    if (ffi_prep_cif(&s->cif, FFI_DEFAULT_ABI, 1, &ffi_type_double, s->ffi_parameters) != FFI_OK)
        die("ffi_prep_cif", DC_ERR_FFI);

    s = &shapes[STRUCT_RETURN];
    *s = (bench_shape){.encoding = "{div=ii}ii", .function = DC_FUNCTION(bench_divide), .count = 2};
    s->arguments[0] = dc_int32(numerator);
    s->arguments[1] = dc_int32(denominator);
    s->ffi_parameters[0] = s->ffi_parameters[1] = &ffi_type_sint;
    s->ffi_arguments[0] = &numerator;
    s->ffi_arguments[1] = &denominator;
    if (ffi_prep_cif(&s->cif, FFI_DEFAULT_ABI, 2, &quotient_type, s->ffi_parameters) != FFI_OK)
        die("ffi_prep_cif", DC_ERR_FFI);

    s = &shapes[LONG_DOUBLE];
    *s = (bench_shape){.encoding = "DDD", .function = DC_FUNCTION(bench_long_double_add), .count = 2};
    s->arguments[0] = dc_long_double(&long_double_a);
    s->arguments[1] = dc_long_double(&long_double_b);
    s->ffi_parameters[0] = s->ffi_parameters[1] = &ffi_type_longdouble;
    s->ffi_arguments[0] = &long_double_a;
    s->ffi_arguments[1] = &long_double_b;
    if (ffi_prep_cif(&s->cif, FFI_DEFAULT_ABI, 2, &ffi_type_longdouble, s->ffi_parameters) != FFI_OK)
        die("ffi_prep_cif", DC_ERR_FFI);

    s = &shapes[COMPLEX_DOUBLE];
    *s = (bench_shape){.encoding = "jdjd", .function = DC_FUNCTION(bench_complex_twice), .count = 1};
    s->arguments[0] = dc_complex_double(&complex_z);
    s->ffi_parameters[0] = &ffi_type_complex_double;
    s->ffi_arguments[0] = &complex_z;
    if (ffi_prep_cif(&s->cif, FFI_DEFAULT_ABI, 1, &ffi_type_complex_double, s->ffi_parameters) != FFI_OK)
        die("ffi_prep_cif", DC_ERR_FFI);

    s = &shapes[VARIADIC];
    *s = (bench_shape){.encoding = "i^vQ*i*", .fixed_count = 3, .function = DC_FUNCTION(snprintf), .count = 5};
    s->arguments[0] = dc_pointer(buffer);
    s->arguments[1] = dc_uint64(sizeof buffer);
    s->arguments[2] = dc_string((char *)format);
    s->arguments[3] = dc_int32(number);
    s->arguments[4] = dc_string((char *)suffix);
    ffi_type *variadic_types[5] = {&ffi_type_pointer, &ffi_type_uint64, &ffi_type_pointer, &ffi_type_sint,
                                   &ffi_type_pointer};
    memcpy(s->ffi_parameters, variadic_types, sizeof variadic_types);
    void *variadic_arguments[5] = {&buffer_address, &buffer_size, &format, &number, &suffix};
    memcpy(s->ffi_arguments, variadic_arguments, sizeof variadic_arguments);
    if (ffi_prep_cif_var(&s->cif, FFI_DEFAULT_ABI, 3, 5, &ffi_type_sint, s->ffi_parameters) != FFI_OK)
        die("ffi_prep_cif_var", DC_ERR_FFI);

    for (int k = 0; k < SHAPE_COUNT; k++) {
        s = &shapes[k];
        dc_status status = s->fixed_count > 0
                               ? dc_signature_create_variadic(s->encoding, s->fixed_count, &s->signature)
                               : dc_signature_create(s->encoding, &s->signature);
        if (status != DC_OK) die(s->encoding, status);
        if ((status = dc_invocation_create(s->signature, s->function, &s->invocation)) != DC_OK)
            die("dc_invocation_create", status);
        for (size_t i = 0; i < s->count; i++)
            if ((status = dc_invocation_set_argument(s->invocation, i, &s->arguments[i])) != DC_OK)
                die("dc_invocation_set_argument", status);
        for (int v = 0; v < VARIANT_COUNT; v++) s->best[v] = -1;
    }
}

__attribute__((noinline)) static void loop_direct(shape which, uint64_t iterations) {
    for (uint64_t i = 0; i < iterations; i++) {
        switch (which) {
        case STRUCT_ARG: double_sink = direct_point_sum(point); break;
        case STRUCT_RETURN: quotient_sink = direct_divide(numerator, denominator); break;
        case LONG_DOUBLE: long_double_sink = direct_long_double_add(long_double_a, long_double_b); break;
        case COMPLEX_DOUBLE: complex_sink = creal(direct_complex_twice(complex_z)); break;
        default: int_sink = direct_snprintf(buffer, buffer_size, format, number, suffix); break;
        }
    }
}

__attribute__((noinline)) static void loop_raw_ffi(bench_shape *s, uint64_t iterations) {
    union {
        double d;
        ffi_arg integer;
        bench_quotient quotient;
        long double long_double;
        double _Complex complex_double;
    } result;
    for (uint64_t i = 0; i < iterations; i++) ffi_call(&s->cif, s->function, &result, s->ffi_arguments);
    quotient_sink = result.quotient;
}

__attribute__((noinline)) static void loop_invoke(bench_shape *s, uint64_t iterations) {
    for (uint64_t i = 0; i < iterations; i++) dc_invocation_invoke(s->invocation);
}

__attribute__((noinline)) static void loop_dc_call(bench_shape *s, uint64_t iterations) {
    union {
        bench_quotient quotient;
        long double long_double;
        double _Complex complex_double;
    } returned; /* the buffer of a return by address; any other return overwrites the value */
    dc_value result = dc_struct(&returned);
    for (uint64_t i = 0; i < iterations; i++) {
        result.pointer = &returned;
        dc_call(s->signature, s->function, s->arguments, s->count, &result);
    }
    quotient_sink = returned.quotient;
}

static void run(shape which, variant v, uint64_t iterations) {
    switch (v) {
    case DIRECT: loop_direct(which, iterations); break;
    case RAW_FFI: loop_raw_ffi(&shapes[which], iterations); break;
    case INVOKE: loop_invoke(&shapes[which], iterations); break;
    default: loop_dc_call(&shapes[which], iterations); break;
    }
}

static double time_run(shape which, variant v, uint64_t iterations) {
    uint64_t start = bench_now_ns();
    run(which, v, iterations);
    return (double)(bench_now_ns() - start) / (double)iterations;
}

typedef struct counted_case {
    shape which;
    variant v;
} counted_case;

static void run_counted(void *context, uint64_t iterations) {
    const counted_case *c = context;
    run(c->which, c->v, iterations);
}

/* The results every variant must agree on. */
static bool results_agree(void) {
    char expected[32];
    snprintf(expected, sizeof expected, format, number, suffix);
    for (int v = 0; v < VARIANT_COUNT; v++) {
        memset(buffer, 0, sizeof buffer);
        quotient_sink = (bench_quotient){0, 0};
        run(STRUCT_RETURN, (variant)v, 1);
        run(VARIADIC, (variant)v, 1);
        if (quotient_sink.quot != numerator / denominator && v != INVOKE) return false;
        if (strcmp(buffer, expected) != 0) return false;
    }
    dc_value returned;
    if (dc_invocation_get_return_value(shapes[STRUCT_RETURN].invocation, &returned) != DC_OK) return false;
    const bench_quotient *kept = returned.pointer;
    return kept->quot == numerator / denominator && kept->rem == numerator % denominator;
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
            runs = (unsigned)bench_parse_count("bench_calls", argv[++i]);
        } else if (strcmp(argv[i], "--tsv") == 0) {
            tsv = true;
        } else if (strcmp(argv[i], "--count") == 0 && i + 2 < argc) {
            count_name = argv[++i];
            count_iterations = bench_parse_count("bench_calls", argv[++i]);
        } else if (strcmp(argv[i], "--list") == 0) {
            list = true;
        } else {
            fprintf(stderr, "usage: bench_calls [--quick] [--runs N] [--tsv] | --count CASE N | --list\n");
            return 2;
        }
    }
    prepare();
    if (!results_agree()) {
        fprintf(stderr, "bench_calls: the variants' results differ\n");
        return 2;
    }

    char name[64];
    if (list || count_name != NULL) {
        for (int k = 0; k < SHAPE_COUNT; k++) {
            for (int v = 0; v < VARIANT_COUNT; v++) {
                snprintf(name, sizeof name, "call.%s.%s", variant_keys[v], shape_keys[k]);
                if (list) {
                    puts(name);
                } else if (strcmp(name, count_name) == 0) {
                    counted_case counted = {(shape)k, (variant)v};
                    run((shape)k, (variant)v, 1); /* warm */
                    bench_counted(run_counted, &counted, count_iterations);
                    return 0;
                }
            }
        }
        if (list) return 0;
        fprintf(stderr, "bench_calls: no case named %s (--list names them)\n", count_name);
        return 2;
    }

    for (int k = 0; k < SHAPE_COUNT; k++)
        for (int v = 0; v < VARIANT_COUNT; v++) time_run((shape)k, (variant)v, iterations / 20 + 1);
    for (unsigned r = 0; r < runs; r++)
        for (int k = 0; k < SHAPE_COUNT; k++)
            for (int v = 0; v < VARIANT_COUNT; v++)
                bench_keep_best(&shapes[k].best[v], time_run((shape)k, (variant)v, iterations));

    int missed = 0;
    for (int k = 0; k < SHAPE_COUNT; k++) {
        const bench_shape *s = &shapes[k];
        if (tsv) {
            for (int v = 0; v < VARIANT_COUNT; v++) {
                snprintf(name, sizeof name, "call.%s.%s", variant_keys[v], shape_keys[k]);
                bench_tsv(name, s->best[v]);
            }
            continue;
        }
        printf("\n%s, ns per call (best of %u)\n", shape_labels[k], runs);
        for (int v = 0; v < VARIANT_COUNT; v++)
            printf("  %-40s %8.2f   %5.2fx direct   %5.2fx ffi_call\n", variant_labels[v], s->best[v],
                   s->best[v] / s->best[DIRECT], s->best[v] / s->best[RAW_FFI]);
        if (k != VARIADIC) missed += s->best[INVOKE] / s->best[RAW_FFI] > RAW_FFI_TARGET;
    }
    if (!tsv) printf("\ntarget dc_invocation_invoke <= %.1fx raw ffi_call (structs, long double, complex): %s\n",
                     RAW_FFI_TARGET,
                     missed == 0 ? "met" : "MISSED");

    for (int k = 0; k < SHAPE_COUNT; k++) {
        dc_invocation_destroy(shapes[k].invocation);
        dc_signature_release(shapes[k].signature);
    }
    return 0;
}
