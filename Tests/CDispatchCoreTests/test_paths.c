/*
 * test_paths.c — every signature in the matrix is called three ways and must
 * give the value a direct C call gave: an invocation on the signature's default
 * path (the typed stub where the stubs cover it), an invocation forced onto
 * libffi, and dc_call(). The categories follow libffi's own test suite: return
 * values of every width, narrowing and widening, promotion of small arguments,
 * floating point mixed with integers in every position, many arguments,
 * strings and pointers.
 */
#include "test_support.h"

#include <ctype.h>
#include <float.h>
#include <math.h>

/* ---- the runner -------------------------------------------------------------- */

typedef struct path_case {
    const char *name;
    const char *encoding;
    dc_function function;
    const dc_value *arguments;
    size_t count;
    dc_value expected;     /* what a direct C call of `function` returned */
    void (*before)(void);  /* restores what the callee mutates; may be NULL */
    void (*after)(void);   /* checks what the callee mutated; may be NULL */
} path_case;

/* The two ways through a closure: called on the signature's default path,
 * its handler re-sends the call to the original function on the default
 * path; called through libffi, its handler re-sends through libffi. */
enum { WAY_DEFAULT_PATH, WAY_LIBFFI_PATH, WAY_DC_CALL, WAY_CLOSURE_DEFAULT, WAY_CLOSURE_LIBFFI, WAY_COUNT };

static const char *const way_names[WAY_COUNT] = {"default path", "libffi path", "dc_call",
                                                  "closure re-sending on the default path",
                                                  "closure re-sending through libffi"};

typedef struct resend {
    dc_function original;
    bool through_libffi;
    int calls;
} resend;

/* A forward handler that re-sends every call to the original function. */
static void resend_to_original(dc_invocation *call, void *user_data) {
    resend *to = user_data;
    to->calls++;
    if (to->through_libffi) assert_ok(dc_invocation_set_call_path(call, DC_CALL_PATH_FFI));
    assert_ok(dc_invocation_set_function(call, to->original));
    assert_ok(dc_invocation_invoke(call));
}

static dc_value call_one_way(const path_case *c, dc_signature *signature, int way) {
    dc_value result = dc_void();
    if (way == WAY_DC_CALL) {
        assert_ok(dc_call(signature, c->function, c->arguments, c->count, &result));
        return result;
    }
    dc_function function = c->function;
    dc_closure *closure = NULL;
    resend to = {c->function, way == WAY_CLOSURE_LIBFFI, 0};
    if (way == WAY_CLOSURE_DEFAULT || way == WAY_CLOSURE_LIBFFI) {
        assert_ok(dc_closure_create(signature, resend_to_original, &to, NULL, &closure));
        function = dc_closure_function(closure);
    }
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, function, &invocation));
    if (way == WAY_LIBFFI_PATH || way == WAY_CLOSURE_LIBFFI) {
        assert_ok(dc_invocation_set_call_path(invocation, DC_CALL_PATH_FFI));
        assert_int_equal(dc_invocation_call_path(invocation), DC_CALL_PATH_FFI);
    } else {
        assert_int_equal(dc_invocation_call_path(invocation),
                         dc_signature_call_path(signature));
    }
    for (size_t index = 0; index < c->count; index++) {
        assert_ok(dc_invocation_set_argument(invocation, index, &c->arguments[index]));
    }
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    dc_invocation_destroy(invocation);
    if (closure != NULL) {
        assert_int_equal(to.calls, 1);
        dc_closure_destroy(closure);
    }
    return result;
}

static void run_on_both_paths(const path_case *c) {
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create(c->encoding, &signature));
    assert_int_equal(dc_signature_parameter_count(signature), c->count);

    dc_value results[WAY_COUNT];
    for (int way = 0; way < WAY_COUNT; way++) {
        if (c->before != NULL) {
            c->before();
        }
        results[way] = call_one_way(c, signature, way);
        if (c->after != NULL) {
            c->after();
        }
        char context[160];
        snprintf(context, sizeof context, "%s (\"%s\") on the %s", c->name, c->encoding,
                 way_names[way]);
        assert_value_equal(c->expected, results[way], context);
    }
    assert_value_equal(results[WAY_DEFAULT_PATH], results[WAY_LIBFFI_PATH],
                       "default path and libffi path disagree");
    dc_signature_release(signature);
}

/* BOTH_PATHS("q@qd", scale, dc_int64(scale(&x, 2, 0.5)), dc_pointer(&x), dc_int64(2),
 * dc_double(0.5)): encoding, callee, the value a direct call returned, arguments. */
#define BOTH_PATHS(encoding, function, expected, ...)                                    \
    run_on_both_paths(&(path_case){#function, (encoding), DC_FUNCTION(function),          \
                                   (const dc_value[]){__VA_ARGS__},                      \
                                   DC_TEST_COUNT_VALUES(__VA_ARGS__), (expected), NULL,  \
                                   NULL})

#define BOTH_PATHS_NO_ARGUMENTS(encoding, function, expected)                            \
    run_on_both_paths(&(path_case){#function, (encoding), DC_FUNCTION(function), NULL, 0, \
                                   (expected), NULL, NULL})

/* ---- integer returns of every width --------------------------------------------- */

/* name, C type, code, value constructor, minimum, maximum, and a value that is
 * negative (signed) or has its top bit set (unsigned). */
#define FOR_EACH_INTEGER_WIDTH(X)                                                        \
    X(int8, int8_t, "c", dc_int8, INT8_MIN, INT8_MAX, -42)                               \
    X(uint8, uint8_t, "C", dc_uint8, 0, UINT8_MAX, 0x80)                                 \
    X(int16, int16_t, "s", dc_int16, INT16_MIN, INT16_MAX, -1234)                        \
    X(uint16, uint16_t, "S", dc_uint16, 0, UINT16_MAX, 0x8001)                           \
    X(int32, int32_t, "i", dc_int32, INT32_MIN, INT32_MAX, -123456789)                   \
    X(uint32, uint32_t, "I", dc_uint32, 0, UINT32_MAX, 0x80000001u)                      \
    X(int64, int64_t, "q", dc_int64, INT64_MIN, INT64_MAX, -1234567890123LL)             \
    X(uint64, uint64_t, "Q", dc_uint64, 0, UINT64_MAX, 0x8000000000000001ull)

#define DEFINE_WIDTH_CALLEES(name, ctype, code, constructor, minimum, maximum, other)    \
    CALLEE static ctype return_##name##_minimum(void) { return minimum; }                \
    CALLEE static ctype return_##name##_maximum(void) { return maximum; }                \
    CALLEE static ctype return_##name##_other(void) { return other; }                    \
    CALLEE static ctype identity_##name(ctype x) { return x; }
FOR_EACH_INTEGER_WIDTH(DEFINE_WIDTH_CALLEES)

#define CHECK_WIDTH(name, ctype, code, constructor, minimum, maximum, other)             \
    BOTH_PATHS_NO_ARGUMENTS(code, return_##name##_minimum,                               \
                            constructor(return_##name##_minimum()));                     \
    BOTH_PATHS_NO_ARGUMENTS(code, return_##name##_maximum,                               \
                            constructor(return_##name##_maximum()));                     \
    BOTH_PATHS_NO_ARGUMENTS(code, return_##name##_other, constructor(return_##name##_other())); \
    assert_true(return_##name##_minimum() == (ctype)(minimum));                          \
    assert_true(return_##name##_other() == (ctype)(other));                              \
    BOTH_PATHS(code code, identity_##name, constructor(identity_##name(minimum)),          \
               constructor(minimum));                                                    \
    BOTH_PATHS(code code, identity_##name, constructor(identity_##name(maximum)),          \
               constructor(maximum));                                                    \
    BOTH_PATHS(code code, identity_##name, constructor(identity_##name(other)),            \
               constructor(other));

static void integer_returns_of_every_width_at_minimum_maximum_and_negative_match(void **state) {
    (void)state;
    FOR_EACH_INTEGER_WIDTH(CHECK_WIDTH)
}

/* A narrow result leaves the rest of the register as the callee left it: these
 * callees compile to a bare move of their 64-bit argument, so a caller that
 * did not narrow would see the upper bits. */
CALLEE static int8_t truncate_to_int8(int64_t x) { return (int8_t)x; }
CALLEE static uint8_t truncate_to_uint8(uint64_t x) { return (uint8_t)x; }
CALLEE static int16_t truncate_to_int16(int64_t x) { return (int16_t)x; }
CALLEE static uint16_t truncate_to_uint16(uint64_t x) { return (uint16_t)x; }
CALLEE static int32_t truncate_to_int32(int64_t x) { return (int32_t)x; }
CALLEE static uint32_t truncate_to_uint32(uint64_t x) { return (uint32_t)x; }

static void narrow_returns_are_narrowed_from_the_wider_register(void **state) {
    (void)state;
    BOTH_PATHS("cq", truncate_to_int8, dc_int8(truncate_to_int8(0x7fffff80)),
               dc_int64(0x7fffff80));
    assert_int_equal(truncate_to_int8(0x7fffff80), INT8_MIN);
    BOTH_PATHS("CQ", truncate_to_uint8, dc_uint8(truncate_to_uint8(0x1ff)), dc_uint64(0x1ff));
    BOTH_PATHS("sq", truncate_to_int16, dc_int16(truncate_to_int16(0x12348000)),
               dc_int64(0x12348000));
    BOTH_PATHS("SQ", truncate_to_uint16, dc_uint16(truncate_to_uint16(0xabcd1234)),
               dc_uint64(0xabcd1234));
    BOTH_PATHS("iq", truncate_to_int32, dc_int32(truncate_to_int32(0x1ffffffffLL)),
               dc_int64(0x1ffffffffLL));
    assert_int_equal(truncate_to_int32(0x1ffffffffLL), -1);
    BOTH_PATHS("IQ", truncate_to_uint32,
               dc_uint32(truncate_to_uint32(0xffffffff00000001ull)),
               dc_uint64(0xffffffff00000001ull));
    BOTH_PATHS("cq", truncate_to_int8, dc_int8(truncate_to_int8(-1)), dc_int64(-1));
}

/* Each callee widens its narrow parameter itself, so it reads exactly the bits
 * the caller put in the register. */
CALLEE static int64_t widen_int8(int8_t x) { return x; }
CALLEE static uint64_t widen_uint8(uint8_t x) { return x; }
CALLEE static int64_t widen_int16(int16_t x) { return x; }
CALLEE static uint64_t widen_uint16(uint16_t x) { return x; }
CALLEE static int64_t widen_int32(int32_t x) { return x; }
CALLEE static uint64_t widen_uint32(uint32_t x) { return x; }
CALLEE static int32_t add_int8_to_int32(int8_t small, int32_t large) { return small + large; }
CALLEE static uint32_t add_uint16_to_uint32(uint16_t small, uint32_t large) {
    return small + large;
}

static void narrow_arguments_are_widened_by_their_own_signedness(void **state) {
    (void)state;
    BOTH_PATHS("qc", widen_int8, dc_int64(widen_int8(-128)), dc_int8(-128));
    BOTH_PATHS("QC", widen_uint8, dc_uint64(widen_uint8(255)), dc_uint8(255));
    BOTH_PATHS("qs", widen_int16, dc_int64(widen_int16(-32768)), dc_int16(-32768));
    BOTH_PATHS("QS", widen_uint16, dc_uint64(widen_uint16(65535)), dc_uint16(65535));
    BOTH_PATHS("qi", widen_int32, dc_int64(widen_int32(INT32_MIN)), dc_int32(INT32_MIN));
    BOTH_PATHS("QI", widen_uint32, dc_uint64(widen_uint32(UINT32_MAX)), dc_uint32(UINT32_MAX));
    BOTH_PATHS("ici", add_int8_to_int32, dc_int32(add_int8_to_int32(-1, 1000)),
               dc_int8(-1), dc_int32(1000));
    BOTH_PATHS("ISI", add_uint16_to_uint32, dc_uint32(add_uint16_to_uint32(0xffff, 1)),
               dc_uint16(0xffff), dc_uint32(1));
}

/* Arguments given as wider (or narrower) integers are converted to the parameter
 * type before the call, as C's prototypes convert them. */
static void small_integer_arguments_given_as_other_widths_are_converted(void **state) {
    (void)state;
    BOTH_PATHS("qc", widen_int8, dc_int64(widen_int8(-5)), dc_int64(-5));
    BOTH_PATHS("QC", widen_uint8, dc_uint64(widen_uint8(200)), dc_int32(200));
    BOTH_PATHS("qs", widen_int16, dc_int64(widen_int16(-300)), dc_int64(-300));
    BOTH_PATHS("QS", widen_uint16, dc_uint64(widen_uint16(40000)), dc_uint64(40000));
    BOTH_PATHS("qi", widen_int32, dc_int64(widen_int32(-7)), dc_int8(-7));
    BOTH_PATHS("QI", widen_uint32, dc_uint64(widen_uint32(250)), dc_uint8(250));
    BOTH_PATHS("qq", identity_int64, dc_int64(identity_int64(-9)), dc_int16(-9));
    BOTH_PATHS("QQ", identity_uint64, dc_uint64(identity_uint64(UINT32_MAX)),
               dc_uint32(UINT32_MAX));
    BOTH_PATHS("qc", widen_int8, dc_int64(widen_int8(127)), dc_uint16(127));
    BOTH_PATHS("qs", widen_int16, dc_int64(widen_int16(300)), dc_uint16(300));
    BOTH_PATHS("qi", widen_int32, dc_int64(widen_int32(7)), dc_uint32(7));
    BOTH_PATHS("qi", widen_int32, dc_int64(widen_int32(INT32_MAX)), dc_uint64(INT32_MAX));
}

/* ---- bool ----------------------------------------------------------------------- */

CALLEE static bool return_true(void) { return true; }
CALLEE static bool return_false(void) { return false; }
CALLEE static bool negate_bool(bool x) { return !x; }
CALLEE static bool both_true(bool a, bool b) { return a && b; }
CALLEE static int32_t bool_to_int32(bool x) { return x ? 7 : -7; }
CALLEE static bool is_negative(int64_t x) { return x < 0; }

static void bool_returns_and_arguments_true_and_false_match(void **state) {
    (void)state;
    BOTH_PATHS_NO_ARGUMENTS("B", return_true, dc_bool(return_true()));
    BOTH_PATHS_NO_ARGUMENTS("B", return_false, dc_bool(return_false()));
    BOTH_PATHS("BB", negate_bool, dc_bool(negate_bool(true)), dc_bool(true));
    BOTH_PATHS("BB", negate_bool, dc_bool(negate_bool(false)), dc_bool(false));
    BOTH_PATHS("BBB", both_true, dc_bool(both_true(true, true)), dc_bool(true), dc_bool(true));
    BOTH_PATHS("BBB", both_true, dc_bool(both_true(true, false)), dc_bool(true),
               dc_bool(false));
    BOTH_PATHS("iB", bool_to_int32, dc_int32(bool_to_int32(true)), dc_bool(true));
    BOTH_PATHS("iB", bool_to_int32, dc_int32(bool_to_int32(false)), dc_bool(false));
    BOTH_PATHS("Bq", is_negative, dc_bool(is_negative(INT64_MIN)), dc_int64(INT64_MIN));
    BOTH_PATHS("Bq", is_negative, dc_bool(is_negative(0)), dc_int64(0));
}

/* ---- floating point --------------------------------------------------------------- */

CALLEE static float return_float_third(void) { return 1.0f / 3.0f; }
CALLEE static double return_double_third(void) { return 1.0 / 3.0; }
CALLEE static float negate_float(float x) { return -x; }
CALLEE static double negate_double(double x) { return -x; }
/* Leaves the double's upper bits in the return register above the float. */
CALLEE static float double_to_float(double x) { return (float)x; }
CALLEE static double float_to_double(float x) { return x; }
CALLEE static float add_floats(float a, float b) { return a + b; }
CALLEE static double add_doubles(double a, double b) { return a + b; }

static void float_and_double_returns_match(void **state) {
    (void)state;
    BOTH_PATHS_NO_ARGUMENTS("f", return_float_third, dc_float(return_float_third()));
    BOTH_PATHS_NO_ARGUMENTS("d", return_double_third, dc_double(return_double_third()));
    const float floats[] = {0.0f, -0.0f, 1.5f, -2.25e-3f, FLT_MAX, FLT_MIN,
                            FLT_TRUE_MIN, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < ARRAY_COUNT(floats); i++) {
        BOTH_PATHS("ff", negate_float, dc_float(negate_float(floats[i])), dc_float(floats[i]));
        BOTH_PATHS("df", float_to_double, dc_double(float_to_double(floats[i])),
                   dc_float(floats[i]));
    }
    const double doubles[] = {0.0, -0.0, 1.0 / 3.0, -1e300, DBL_MAX, DBL_MIN,
                              DBL_TRUE_MIN, INFINITY, NAN, 0.1};
    for (size_t i = 0; i < ARRAY_COUNT(doubles); i++) {
        BOTH_PATHS("dd", negate_double, dc_double(negate_double(doubles[i])),
                   dc_double(doubles[i]));
    }
    /* Exactly representable as float, so dc_value_convert lets them through. */
    const double exact[] = {0.5, -1024.0, 3.0 / 8.0};
    for (size_t i = 0; i < ARRAY_COUNT(exact); i++) {
        BOTH_PATHS("fd", double_to_float, dc_float(double_to_float(exact[i])),
                   dc_double(exact[i]));
    }
    BOTH_PATHS("fd", double_to_float, dc_float(double_to_float(1.0 / 3.0)),
               dc_double(1.0 / 3.0));
    BOTH_PATHS("fff", add_floats, dc_float(add_floats(0.1f, 0.2f)), dc_float(0.1f),
               dc_float(0.2f));
    BOTH_PATHS("ddd", add_doubles, dc_double(add_doubles(0.1, 0.2)), dc_double(0.1),
               dc_double(0.2));
    /* A float argument given as a float value where a double is expected. */
    BOTH_PATHS("ddd", add_doubles, dc_double(add_doubles(0.25, 0.5)), dc_float(0.25f),
               dc_double(0.5));
}

/* ---- negative arguments -------------------------------------------------------------- */

CALLEE static int64_t subtract_int64(int64_t a, int64_t b) { return a - b; }
CALLEE static int32_t multiply_int32(int32_t a, int32_t b) { return a * b; }
CALLEE static int16_t add_int16(int16_t a, int16_t b) { return (int16_t)(a + b); }
CALLEE static double scale_by_int32(double x, int32_t factor) { return x * factor; }

static void negative_arguments_keep_their_sign(void **state) {
    (void)state;
    BOTH_PATHS("qqq", subtract_int64, dc_int64(subtract_int64(-5, -12)), dc_int64(-5),
               dc_int64(-12));
    BOTH_PATHS("iii", multiply_int32, dc_int32(multiply_int32(-3, 7)), dc_int32(-3),
               dc_int32(7));
    BOTH_PATHS("sss", add_int16, dc_int16(add_int16(-100, -200)), dc_int16(-100),
               dc_int16(-200));
    BOTH_PATHS("ddi", scale_by_int32, dc_double(scale_by_int32(2.5, -4)), dc_double(2.5),
               dc_int32(-4));
    BOTH_PATHS("cc", identity_int8, dc_int8(identity_int8(-1)), dc_int8(-1));
}

/* ---- floating point and integers in every position -------------------------------- */

/* Distinct values per position, so swapped arguments change the result. */
static const int64_t integer_values[4] = {3, -5, 7, -11};
static const double floating_values[4] = {0.5, -1.25, 2.75, -3.5};

#define MIX_VALUE(type, position)                                                        \
    ((type)_Generic((type)0, float: floating_values[position],                           \
                    double: floating_values[position],                                   \
                    default: integer_values[position]))

#define MIX_ARGUMENT(type, position)                                                     \
    _Generic((type)0, int64_t: dc_int64, int32_t: dc_int32, double: dc_double,           \
             float: dc_float)(MIX_VALUE(type, position))

/* Every arrangement of integer and floating parameters over four positions:
 * int64 with double returning double, int32 with float returning float. */
#define FOR_EACH_MIX(X)                                                                  \
    X("d", double, qqqq, int64_t, int64_t, int64_t, int64_t)                             \
    X("d", double, qqqd, int64_t, int64_t, int64_t, double)                              \
    X("d", double, qqdq, int64_t, int64_t, double, int64_t)                              \
    X("d", double, qqdd, int64_t, int64_t, double, double)                               \
    X("d", double, qdqq, int64_t, double, int64_t, int64_t)                              \
    X("d", double, qdqd, int64_t, double, int64_t, double)                               \
    X("d", double, qddq, int64_t, double, double, int64_t)                               \
    X("d", double, qddd, int64_t, double, double, double)                                \
    X("d", double, dqqq, double, int64_t, int64_t, int64_t)                              \
    X("d", double, dqqd, double, int64_t, int64_t, double)                               \
    X("d", double, dqdq, double, int64_t, double, int64_t)                               \
    X("d", double, dqdd, double, int64_t, double, double)                                \
    X("d", double, ddqq, double, double, int64_t, int64_t)                               \
    X("d", double, ddqd, double, double, int64_t, double)                                \
    X("d", double, dddq, double, double, double, int64_t)                                \
    X("d", double, dddd, double, double, double, double)                                 \
    X("f", float, iiii, int32_t, int32_t, int32_t, int32_t)                              \
    X("f", float, iiif, int32_t, int32_t, int32_t, float)                                \
    X("f", float, iifi, int32_t, int32_t, float, int32_t)                                \
    X("f", float, iiff, int32_t, int32_t, float, float)                                  \
    X("f", float, ifii, int32_t, float, int32_t, int32_t)                                \
    X("f", float, ifif, int32_t, float, int32_t, float)                                  \
    X("f", float, iffi, int32_t, float, float, int32_t)                                  \
    X("f", float, ifff, int32_t, float, float, float)                                    \
    X("f", float, fiii, float, int32_t, int32_t, int32_t)                                \
    X("f", float, fiif, float, int32_t, int32_t, float)                                  \
    X("f", float, fifi, float, int32_t, float, int32_t)                                  \
    X("f", float, fiff, float, int32_t, float, float)                                    \
    X("f", float, ffii, float, float, int32_t, int32_t)                                  \
    X("f", float, ffif, float, float, int32_t, float)                                    \
    X("f", float, fffi, float, float, float, int32_t)                                    \
    X("f", float, ffff, float, float, float, float)

#define DEFINE_MIX(return_code, R, code, A, B, C, D)                                     \
    CALLEE static R mix_##code(A a, B b, C c, D d) {                                     \
        return (R)a + (R)3 * (R)b + (R)9 * (R)c + (R)27 * (R)d;                          \
    }
FOR_EACH_MIX(DEFINE_MIX)

#define CHECK_MIX(return_code, R, code, A, B, C, D)                                      \
    BOTH_PATHS(return_code #code, mix_##code,                                            \
               _Generic((R)0, float: dc_float, double: dc_double)(mix_##code(             \
                   MIX_VALUE(A, 0), MIX_VALUE(B, 1), MIX_VALUE(C, 2), MIX_VALUE(D, 3))), \
               MIX_ARGUMENT(A, 0), MIX_ARGUMENT(B, 1), MIX_ARGUMENT(C, 2),               \
               MIX_ARGUMENT(D, 3));

static void floating_and_integer_arguments_in_every_position_match(void **state) {
    (void)state;
    FOR_EACH_MIX(CHECK_MIX)
}

/* Integer returns computed from mixed arguments, and narrow types interleaved. */
CALLEE static int64_t scale_object_count(void *object, int64_t count, double factor) {
    return (int64_t)(count * factor) + (object != NULL ? 1000 : 0);
}
CALLEE static int16_t interleaved(int8_t a, float b, uint16_t c, double d, bool e) {
    return (int16_t)(a + (int)(b * 2) - c + (int)d + (e ? 100 : -100));
}
CALLEE static float float_from_narrow(uint8_t a, float b, int16_t c) { return a * b + c; }

static void integer_results_of_mixed_arguments_match(void **state) {
    (void)state;
    int object = 0;
    BOTH_PATHS("q@qd", scale_object_count,
               dc_int64(scale_object_count(&object, 12, -2.5)), dc_object(&object),
               dc_int64(12), dc_double(-2.5));
    BOTH_PATHS("scfSdB", interleaved, dc_int16(interleaved(-3, 1.5f, 40, -2.0, true)),
               dc_int8(-3), dc_float(1.5f), dc_uint16(40), dc_double(-2.0), dc_bool(true));
    BOTH_PATHS("fCfs", float_from_narrow, dc_float(float_from_narrow(200, 0.75f, -30)),
               dc_uint8(200), dc_float(0.75f), dc_int16(-30));
}

/* ---- many parameters -------------------------------------------------------------------- */

CALLEE static int64_t six_integers(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e,
                                   int64_t f) {
    return a + 2 * b + 4 * c + 8 * d + 16 * e + 32 * f;
}
CALLEE static void *sixth_pointer(void *a, void *b, void *c, void *d, void *e, void *f) {
    (void)a, (void)b, (void)c, (void)d, (void)e;
    return f;
}
CALLEE static double six_doubles(double a, double b, double c, double d, double e, double f) {
    return a + 2 * b + 4 * c + 8 * d + 16 * e + 32 * f;
}
CALLEE static int64_t six_mixed(int8_t a, double b, uint16_t c, float d, int32_t e, bool f) {
    return a * 100000 + (int64_t)(b * 1000) + c * 10 + (int64_t)d + e * 7 + (f ? 3 : 0);
}
CALLEE static int32_t six_bools(bool a, bool b, bool c, bool d, bool e, bool f) {
    return a | (b << 1) | (c << 2) | (d << 3) | (e << 4) | (f << 5);
}

static void six_parameters_take_the_stub_path_and_match_libffi(void **state) {
    (void)state;
    const char *const encodings[] = {"qqqqqqq", "^v^v^v^v^v^v^v", "ddddddd", "qcdSfiB",
                                     "iBBBBBB"};
    for (size_t i = 0; i < ARRAY_COUNT(encodings); i++) {
        dc_signature *signature = NULL;
        assert_ok(dc_signature_create(encodings[i], &signature));
        assert_int_equal(dc_signature_parameter_count(signature), 6);
        assert_int_equal(dc_signature_call_path(signature), DC_TEST_STUB_PATH);
        dc_signature_release(signature);
    }
    BOTH_PATHS("qqqqqqq", six_integers, dc_int64(six_integers(1, -2, 3, -4, 5, INT32_MAX)),
               dc_int64(1), dc_int64(-2), dc_int64(3), dc_int64(-4), dc_int64(5),
               dc_int64(INT32_MAX));
    int slots[6];
    BOTH_PATHS("^v^v^v^v^v^v^v", sixth_pointer,
               dc_pointer(sixth_pointer(&slots[0], &slots[1], &slots[2], &slots[3],
                                        &slots[4], &slots[5])),
               dc_pointer(&slots[0]), dc_pointer(&slots[1]), dc_pointer(&slots[2]),
               dc_pointer(&slots[3]), dc_pointer(&slots[4]), dc_pointer(&slots[5]));
    BOTH_PATHS("ddddddd", six_doubles,
               dc_double(six_doubles(0.5, -1.5, 2.5, -3.5, 4.5, 1e-3)), dc_double(0.5),
               dc_double(-1.5), dc_double(2.5), dc_double(-3.5), dc_double(4.5),
               dc_double(1e-3));
    BOTH_PATHS("qcdSfiB", six_mixed, dc_int64(six_mixed(-7, 3.25, 65535, -8.5f, -99, true)),
               dc_int8(-7), dc_double(3.25), dc_uint16(65535), dc_float(-8.5f),
               dc_int32(-99), dc_bool(true));
    BOTH_PATHS("iBBBBBB", six_bools, dc_int32(six_bools(true, false, true, true, false, true)),
               dc_bool(true), dc_bool(false), dc_bool(true), dc_bool(true), dc_bool(false),
               dc_bool(true));
}

CALLEE static double twelve_mixed(int8_t a, uint8_t b, int16_t c, uint16_t d, int32_t e,
                                  uint32_t f, int64_t g, uint64_t h, float i, double j, bool k,
                                  const char *l) {
    return a + 2.0 * b + 3.0 * c + 4.0 * d + 5.0 * e + 6.0 * f + 7.0 * (double)g +
           8.0 * (double)h + 9.0 * i + 10.0 * j + (k ? 11.0 : -11.0) + 12.0 * (double)strlen(l);
}
CALLEE static int64_t fourteen_integers(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e,
                                        int64_t f, int64_t g, int64_t h, int64_t i, int64_t j,
                                        int64_t k, int64_t l, int64_t m, int64_t n) {
    return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f + 7 * g - 8 * h + 9 * i - 10 * j +
           11 * k - 12 * l + 13 * m - 14 * n;
}
CALLEE static double ten_doubles_and_narrow(double a, double b, double c, double d, double e,
                                            double f, double g, double h, double i, float j,
                                            int8_t k, uint16_t l) {
    return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8 + i * 9 + j * 10 + k * 11 +
           l * 12;
}
CALLEE static int64_t thirty_two_integers(
    int64_t a0, int64_t a1, int64_t a2, int64_t a3, int64_t a4, int64_t a5, int64_t a6,
    int64_t a7, int64_t a8, int64_t a9, int64_t a10, int64_t a11, int64_t a12, int64_t a13,
    int64_t a14, int64_t a15, int64_t a16, int64_t a17, int64_t a18, int64_t a19, int64_t a20,
    int64_t a21, int64_t a22, int64_t a23, int64_t a24, int64_t a25, int64_t a26, int64_t a27,
    int64_t a28, int64_t a29, int64_t a30, int64_t a31) {
    const int64_t all[32] = {a0,  a1,  a2,  a3,  a4,  a5,  a6,  a7,  a8,  a9,  a10,
                             a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21,
                             a22, a23, a24, a25, a26, a27, a28, a29, a30, a31};
    int64_t weighted = 0;
    for (int i = 0; i < 32; i++) {
        weighted = weighted * 3 + all[i];
    }
    return weighted;
}
CALLEE static uint8_t last_of_thirteen(char *a, void *b, void *c, void *d, void *e, void *f,
                                       void *g, void *h, void *i, void *j, void *k, void *l,
                                       uint8_t m) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i;
    (void)j, (void)k, (void)l;
    return m;
}

static void twelve_or_more_parameters_take_the_libffi_path_and_match(void **state) {
    (void)state;
    char thirty_two[32 + 2] = "q";
    memset(thirty_two + 1, 'q', 32);
    thirty_two[32 + 1] = '\0';
    const char *const encodings[] = {"dcCsSiIqQfdB*", "qqqqqqqqqqqqqqq", "ddddddddddfcS",
                                     "C*^v^v^v^v^v^v^v^v^v^v^vC", thirty_two};
    for (size_t i = 0; i < ARRAY_COUNT(encodings); i++) {
        dc_signature *signature = NULL;
        assert_ok(dc_signature_create(encodings[i], &signature));
        assert_true(dc_signature_parameter_count(signature) >= 12);
        assert_int_equal(dc_signature_call_path(signature), DC_CALL_PATH_FFI);
        dc_signature_release(signature);
    }
    char text[] = "twelve";
    BOTH_PATHS("dcCsSiIqQfdB*", twelve_mixed,
               dc_double(twelve_mixed(-1, 200, -300, 40000, -5000000, 4000000000u,
                                      -(1LL << 40), 1ull << 52, 0.125f, -2.5, true, text)),
               dc_int8(-1), dc_uint8(200), dc_int16(-300), dc_uint16(40000),
               dc_int32(-5000000), dc_uint32(4000000000u), dc_int64(-(1LL << 40)),
               dc_uint64(1ull << 52), dc_float(0.125f), dc_double(-2.5), dc_bool(true),
               dc_string(text));
    BOTH_PATHS("qqqqqqqqqqqqqqq", fourteen_integers,
               dc_int64(fourteen_integers(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -14)),
               dc_int64(1), dc_int64(2), dc_int64(3), dc_int64(4), dc_int64(5), dc_int64(6),
               dc_int64(7), dc_int64(8), dc_int64(9), dc_int64(10), dc_int64(11),
               dc_int64(12), dc_int64(13), dc_int64(-14));
    BOTH_PATHS("ddddddddddfcS", ten_doubles_and_narrow,
               dc_double(ten_doubles_and_narrow(0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5,
                                                -9.5f, -10, 11)),
               dc_double(0.5), dc_double(1.5), dc_double(2.5), dc_double(3.5),
               dc_double(4.5), dc_double(5.5), dc_double(6.5), dc_double(7.5),
               dc_double(8.5), dc_float(-9.5f), dc_int8(-10), dc_uint16(11));
    int cells[11];
    BOTH_PATHS("C*^v^v^v^v^v^v^v^v^v^v^vC", last_of_thirteen,
               dc_uint8(last_of_thirteen(text, &cells[0], &cells[1], &cells[2], &cells[3],
                                         &cells[4], &cells[5], &cells[6], &cells[7],
                                         &cells[8], &cells[9], &cells[10], 0xfe)),
               dc_string(text), dc_pointer(&cells[0]), dc_pointer(&cells[1]),
               dc_pointer(&cells[2]), dc_pointer(&cells[3]), dc_pointer(&cells[4]),
               dc_pointer(&cells[5]), dc_pointer(&cells[6]), dc_pointer(&cells[7]),
               dc_pointer(&cells[8]), dc_pointer(&cells[9]), dc_pointer(&cells[10]),
               dc_uint8(0xfe));
    BOTH_PATHS(thirty_two, thirty_two_integers,
               dc_int64(thirty_two_integers(1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7,
                                            8, -8, 9, -9, 10, -10, 11, -11, 12, -12, 13, -13,
                                            14, -14, 15, -15, 16, -16)),
               dc_int64(1), dc_int64(-1), dc_int64(2), dc_int64(-2), dc_int64(3),
               dc_int64(-3), dc_int64(4), dc_int64(-4), dc_int64(5), dc_int64(-5),
               dc_int64(6), dc_int64(-6), dc_int64(7), dc_int64(-7), dc_int64(8),
               dc_int64(-8), dc_int64(9), dc_int64(-9), dc_int64(10), dc_int64(-10),
               dc_int64(11), dc_int64(-11), dc_int64(12), dc_int64(-12), dc_int64(13),
               dc_int64(-13), dc_int64(14), dc_int64(-14), dc_int64(15), dc_int64(-15),
               dc_int64(16), dc_int64(-16));
}

/* ---- strings and pointers ------------------------------------------------------------------ */

CALLEE static char *identity_string(char *s) { return s; }
CALLEE static void *identity_pointer(void *p) { return p; }
CALLEE static void *identity_object(void *o) { return o; }
CALLEE static uint64_t string_length(const char *s) { return strlen(s); }
CALLEE static char *second_string(char *a, char *b) { return a != NULL ? b : NULL; }
CALLEE static bool is_null(void *p) { return p == NULL; }
CALLEE static const char *selector_name(void *self, const char *selector) {
    return self != NULL ? selector : "no receiver";
}
CALLEE static int32_t read_int(const int32_t *p) { return *p; }

static void strings_and_pointers_round_trip_unchanged(void **state) {
    (void)state;
    char hello[] = "hello";
    char world[] = "world";
    int32_t number = -77;
    BOTH_PATHS("**", identity_string, dc_string(identity_string(hello)), dc_string(hello));
    BOTH_PATHS("**", identity_string, dc_string(identity_string(NULL)), dc_string(NULL));
    BOTH_PATHS("^v^v", identity_pointer, dc_pointer(identity_pointer(&number)),
               dc_pointer(&number));
    BOTH_PATHS("^v^i", identity_pointer, dc_pointer(identity_pointer(&number)),
               dc_pointer(&number));
    BOTH_PATHS("@@", identity_object, dc_object(identity_object(&number)), dc_object(&number));
    BOTH_PATHS("Q*", string_length, dc_uint64(string_length(hello)), dc_string(hello));
    BOTH_PATHS("***", second_string, dc_string(second_string(hello, world)), dc_string(hello),
               dc_string(world));
    BOTH_PATHS("B^v", is_null, dc_bool(is_null(NULL)), dc_pointer(NULL));
    BOTH_PATHS("B@", is_null, dc_bool(is_null(&number)), dc_object(&number));
    /* A pointer parameter accepts any pointer-like value, as void * does. */
    BOTH_PATHS("^v^v", identity_pointer, dc_pointer(identity_pointer(hello)), dc_string(hello));
    BOTH_PATHS("^v^v", identity_pointer, dc_pointer(identity_pointer(&number)),
               dc_object(&number));
    BOTH_PATHS("i^i", read_int, dc_int32(read_int(&number)), dc_pointer(&number));
    /* The selector slot of a method encoding carries the selector's name. */
    char selector[] = "setEnabled:";
    BOTH_PATHS("*@:", selector_name,
               dc_string((char *)selector_name(&number, selector)), dc_object(&number),
               dc_string(selector));
}

/* A char * argument the callee writes through: each call starts from a fresh
 * lowercase buffer and must leave it uppercased. */
static char mutable_text[32];

CALLEE static void uppercase_in_place(char *s) {
    for (; *s != '\0'; s++) {
        *s = (char)toupper((unsigned char)*s);
    }
}
CALLEE static void store_sum(int64_t *out, int64_t a, int64_t b) { *out = a + b; }

static void reset_mutable_text(void) { strcpy(mutable_text, "hello, world"); }
static void assert_mutable_text_uppercased(void) {
    assert_string_equal(mutable_text, "HELLO, WORLD");
}

static int64_t stored_sum;
static void reset_stored_sum(void) { stored_sum = 0; }
static void assert_stored_sum(void) { assert_int_equal(stored_sum, -40); }

static void char_pointer_argument_is_mutated_in_place_by_the_callee(void **state) {
    (void)state;
    reset_mutable_text();
    uppercase_in_place(mutable_text);
    assert_mutable_text_uppercased();
    run_on_both_paths(&(path_case){"uppercase_in_place", "v*", DC_FUNCTION(uppercase_in_place),
                                   (const dc_value[]){dc_string(mutable_text)}, 1, dc_void(),
                                   reset_mutable_text, assert_mutable_text_uppercased});
    run_on_both_paths(&(path_case){"store_sum", "v^qqq", DC_FUNCTION(store_sum),
                                   (const dc_value[]){dc_pointer(&stored_sum), dc_int64(-50),
                                                      dc_int64(10)},
                                   3, dc_void(), reset_stored_sum, assert_stored_sum});
}

/* ---- void --------------------------------------------------------------------------------- */

static int void_calls;
CALLEE static void count_call(void) { void_calls++; }
CALLEE static void add_to_counter(int *counter, int32_t amount) { *counter += amount; }

static void void_functions_run_once_per_call_and_return_void(void **state) {
    (void)state;
    void_calls = 0;
    BOTH_PATHS_NO_ARGUMENTS("v", count_call, dc_void());
    assert_int_equal(void_calls, WAY_COUNT);
    int counter = 0;
    BOTH_PATHS("v^ii", add_to_counter, dc_void(), dc_pointer(&counter), dc_int32(5));
    assert_int_equal(counter, 5 * WAY_COUNT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integer_returns_of_every_width_at_minimum_maximum_and_negative_match),
        cmocka_unit_test(narrow_returns_are_narrowed_from_the_wider_register),
        cmocka_unit_test(narrow_arguments_are_widened_by_their_own_signedness),
        cmocka_unit_test(small_integer_arguments_given_as_other_widths_are_converted),
        cmocka_unit_test(bool_returns_and_arguments_true_and_false_match),
        cmocka_unit_test(float_and_double_returns_match),
        cmocka_unit_test(negative_arguments_keep_their_sign),
        cmocka_unit_test(floating_and_integer_arguments_in_every_position_match),
        cmocka_unit_test(integer_results_of_mixed_arguments_match),
        cmocka_unit_test(six_parameters_take_the_stub_path_and_match_libffi),
        cmocka_unit_test(twelve_or_more_parameters_take_the_libffi_path_and_match),
        cmocka_unit_test(strings_and_pointers_round_trip_unchanged),
        cmocka_unit_test(char_pointer_argument_is_mutated_in_place_by_the_callee),
        cmocka_unit_test(void_functions_run_once_per_call_and_return_void),
    };
    return cmocka_run_group_tests_name("both call paths", tests, NULL, NULL);
}
