/*
 * test_libffi_call_reuse.c — libffi's testsuite/libffi.call cases of call
 * plans (plan*.c), restated against the public API. A libffi call plan is a
 * prepared call made again and again that must give what ffi_call gives; an
 * invocation is ours, and the signature's own path (a typed stub where one
 * covers it) must give what the libffi path gives. Each case keeps the two
 * invocations of test_support.h's two_paths, invokes both again and again
 * and compares.
 * libffi_call_cases.txt lists the files restated.
 */
#include "test_support.h"

/* ---- plan.c ------------------------------------------------------------------- */

CALLEE static uint64_t gp6(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f) {
    return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6;
}
CALLEE static void *ptr_ident(void *p) { return p; }

struct small_pair {
    long x, y;
};
CALLEE static long ssum(struct small_pair s) { return s.x - s.y; }

static long long_of(dc_value value) { return sizeof(long) == 8 ? (long)value.i64 : (long)value.i32; }

/* plan.c */
static void plan_six_uint64s_a_pointer_and_a_struct_on_both_paths_and_reused(void **state) {
    (void)state;
    two_paths paths = two_paths_create("QQQQQQQ", -1, DC_FUNCTION(gp6));
    assert_int_equal(dc_invocation_call_path(paths.own), DC_TEST_STUB_PATH);
    for (uint64_t k = 0; k < 100; k++) {
        uint64_t a[6];
        for (uint64_t i = 0; i < 6; i++) a[i] = k * 7 + i + 1;
        dc_value result = invoke_both(&paths, dc_uint64(a[0]), dc_uint64(a[1]), dc_uint64(a[2]), dc_uint64(a[3]),
                                      dc_uint64(a[4]), dc_uint64(a[5]));
        assert_true(result.u64 == gp6(a[0], a[1], a[2], a[3], a[4], a[5]));
    }
    two_paths_destroy(&paths);

    paths = two_paths_create("^v^v", -1, DC_FUNCTION(ptr_ident));
    dc_value result = invoke_both(&paths, dc_pointer(&paths));
    assert_ptr_equal(result.pointer, &paths);
    two_paths_destroy(&paths);

    /* A struct argument: the libffi path alone, whichever is asked. */
    paths = two_paths_create(LONG_CODE "{small_pair=" LONG_CODE LONG_CODE "}", -1, DC_FUNCTION(ssum));
    assert_int_equal(dc_invocation_call_path(paths.own), DC_CALL_PATH_FFI);
    struct small_pair s = {123, 45};
    result = invoke_both(&paths, dc_struct(&s));
    assert_int_equal(long_of(result), ssum(s));
    two_paths_destroy(&paths);

    /* libffi's ffi_call_plan_free(NULL) is harmless, as destroying no invocation is. */
    dc_invocation_destroy(NULL);
}

/* ---- plan_mixed.c -------------------------------------------------------------- */

CALLEE static double mixed(int a, double b, long c, float d, long long e, double f) {
    return (double)a + b + (double)c + (double)d + (double)e + f;
}
CALLEE static float faddf(float a, float b) { return a + b; }
CALLEE static signed char ret_sc(signed char x) { return (signed char)(x + 1); }
CALLEE static unsigned char ret_uc(unsigned char x) { return (unsigned char)(x + 1); }

/* plan_mixed.c */
static void plan_mixed_integer_and_floating_arguments_and_narrow_returns_on_both_paths(void **state) {
    (void)state;
    two_paths paths = two_paths_create("did" LONG_CODE "fqd", -1, DC_FUNCTION(mixed));
    dc_value c = sizeof(long) == 8 ? dc_int64(7) : dc_int32(7);
    dc_value result = invoke_both(&paths, dc_int32(3), dc_double(1.5), c, dc_float(0.5f), dc_int64(-11),
                                  dc_double(-2.25));
    assert_true(result.d == mixed(3, 1.5, 7, 0.5f, -11, -2.25));
    two_paths_destroy(&paths);

    paths = two_paths_create("fff", -1, DC_FUNCTION(faddf));
    result = invoke_both(&paths, dc_float(1.25f), dc_float(2.5f));
    assert_true(result.f == faddf(1.25f, 2.5f));
    two_paths_destroy(&paths);

    paths = two_paths_create("cc", -1, DC_FUNCTION(ret_sc));
    for (int v = -128; v < 128; v++) {
        result = invoke_both(&paths, dc_int8((int8_t)v));
        assert_int_equal(result.i8, ret_sc((signed char)v));
    }
    two_paths_destroy(&paths);

    paths = two_paths_create("CC", -1, DC_FUNCTION(ret_uc));
    for (int v = 0; v < 256; v++) {
        result = invoke_both(&paths, dc_uint8((uint8_t)v));
        assert_int_equal(result.u8, ret_uc((unsigned char)v));
    }
    two_paths_destroy(&paths);
}

/* ---- plan_spill.c -------------------------------------------------------------- */

CALLEE static long long gp10(long long a1, long long a2, long long a3, long long a4, long long a5, long long a6,
                             long long a7, long long a8, long long a9, long long a10) {
    return a1 + a2 * 2 + a3 * 3 + a4 * 4 + a5 * 5 + a6 * 6 + a7 * 7 + a8 * 8 + a9 * 9 + a10 * 10;
}
CALLEE static double sse12(double a1, double a2, double a3, double a4, double a5, double a6, double a7, double a8,
                           double a9, double a10, double a11, double a12) {
    return a1 + a2 * 2 + a3 * 3 + a4 * 4 + a5 * 5 + a6 * 6 + a7 * 7 + a8 * 8 + a9 * 9 + a10 * 10 + a11 * 11 +
           a12 * 12;
}
CALLEE static double mix16(long i1, long i2, long i3, long i4, long i5, long i6, long i7, long i8, double d1,
                           double d2, double d3, double d4, double d5, double d6, double d7, double d8) {
    double s = (double)(i1 + i2 + i3 + i4 + i5 + i6 + i7 + i8);
    return s + d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8;
}

/* plan_spill.c: more integer, floating-point or both arguments than the
 * registers hold. */
static void plan_spill_arguments_past_the_registers_on_both_paths(void **state) {
    (void)state;
    long long a[10];
    dc_value integers[10];
    for (int i = 0; i < 10; i++) {
        a[i] = (long long)(i + 1) * 100 - 3;
        integers[i] = dc_int64(a[i]);
    }
    two_paths paths = two_paths_create("qqqqqqqqqqq", -1, DC_FUNCTION(gp10));
    dc_value result = two_paths_invoke(&paths, integers, 10);
    assert_true(result.i64 == gp10(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]));
    two_paths_destroy(&paths);

    double d[12];
    dc_value doubles[12];
    for (int i = 0; i < 12; i++) {
        d[i] = (double)i + 0.25;
        doubles[i] = dc_double(d[i]);
    }
    paths = two_paths_create("ddddddddddddd", -1, DC_FUNCTION(sse12));
    result = two_paths_invoke(&paths, doubles, 12);
    assert_true(result.d == sse12(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11]));
    two_paths_destroy(&paths);

    long iv[8];
    double dv[8];
    dc_value both[16];
    for (int i = 0; i < 8; i++) {
        iv[i] = i + 1;
        dv[i] = (double)(i + 1) * 0.5;
        both[i] = sizeof(long) == 8 ? dc_int64(iv[i]) : dc_int32((int32_t)iv[i]);
        both[8 + i] = dc_double(dv[i]);
    }
    paths = two_paths_create("d" LONG_CODE LONG_CODE LONG_CODE LONG_CODE LONG_CODE LONG_CODE LONG_CODE LONG_CODE
                             "dddddddd",
                             -1, DC_FUNCTION(mix16));
    result = two_paths_invoke(&paths, both, 16);
    assert_true(result.d == mix16(iv[0], iv[1], iv[2], iv[3], iv[4], iv[5], iv[6], iv[7], dv[0], dv[1], dv[2],
                                  dv[3], dv[4], dv[5], dv[6], dv[7]));
    two_paths_destroy(&paths);
}

/* ---- plan_struct.c ------------------------------------------------------------- */

static int make_big3_calls;

struct big3 {
    double a, b, c;
};
CALLEE static struct big3 make_big3(double a, double b, double c) {
    make_big3_calls++;
    return (struct big3){a + 1.0, b + 2.0, c + 3.0};
}
CALLEE static double sum_big3(struct big3 s) { return s.a + s.b + s.c; }

struct pair2 {
    long x, y;
};
CALLEE static struct pair2 make_pair2(long x, long y) { return (struct pair2){x * 2, y * 3}; }

#define BIG3 "{big3=ddd}"

/* plan_struct.c: a struct returned in memory, one passed in memory and one
 * returned in a register pair. libffi's NULL result for the in-memory return
 * is an invocation whose return is never read: the callee still runs. */
static void plan_struct_struct_returns_and_a_large_struct_argument_on_both_paths(void **state) {
    (void)state;
    two_paths paths = two_paths_create(BIG3 "ddd", -1, DC_FUNCTION(make_big3));
    make_big3_calls = 0;
    dc_value result = invoke_both(&paths, dc_double(10.0), dc_double(20.0), dc_double(30.0));
    const struct big3 *big = result.pointer;
    assert_true(big->a == 11.0 && big->b == 22.0 && big->c == 33.0);
    assert_int_equal(make_big3_calls, 2);
    assert_ok(dc_invocation_invoke(paths.own));
    assert_int_equal(make_big3_calls, 3);
    two_paths_destroy(&paths);

    paths = two_paths_create("d" BIG3, -1, DC_FUNCTION(sum_big3));
    struct big3 s = {1.5, 2.5, 3.5};
    result = invoke_both(&paths, dc_struct(&s));
    assert_true(result.d == sum_big3(s));
    two_paths_destroy(&paths);

    paths = two_paths_create("{pair2=" LONG_CODE LONG_CODE "}" LONG_CODE LONG_CODE, -1, DC_FUNCTION(make_pair2));
    result = sizeof(long) == 8 ? invoke_both(&paths, dc_int64(7), dc_int64(11))
                               : invoke_both(&paths, dc_int32(7), dc_int32(11));
    const struct pair2 *pair = result.pointer;
    assert_int_equal(pair->x, 7 * 2);
    assert_int_equal(pair->y, 11 * 3);
    two_paths_destroy(&paths);
}

/* ---- plan_var.c ---------------------------------------------------------------- */

CALLEE static double vsum(int n, ...) {
    va_list ap;
    double s = 0.0;
    va_start(ap, n);
    for (int i = 0; i < n; i++) s += va_arg(ap, double);
    va_end(ap);
    return s;
}

/* plan_var.c */
static void plan_var_variadic_doubles_after_a_count_on_both_paths(void **state) {
    (void)state;
    const int counts[] = {0, 1, 3, 5, 8};
    for (size_t c = 0; c < ARRAY_COUNT(counts); c++) {
        int n = counts[c];
        char encoding[16] = "di";
        dc_value arguments[9] = {dc_int32(n)};
        double expected = 0.0;
        for (int i = 0; i < n; i++) {
            strcat(encoding, "d");
            arguments[1 + i] = dc_double((double)(i + 1) * 1.5);
            expected += arguments[1 + i].d;
        }
        two_paths paths = two_paths_create(encoding, 1, DC_FUNCTION(vsum));
        dc_value result = two_paths_invoke(&paths, arguments, (size_t)n + 1);
        assert_true(result.d == expected);
        two_paths_destroy(&paths);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plan_six_uint64s_a_pointer_and_a_struct_on_both_paths_and_reused),
        cmocka_unit_test(plan_mixed_integer_and_floating_arguments_and_narrow_returns_on_both_paths),
        cmocka_unit_test(plan_spill_arguments_past_the_registers_on_both_paths),
        cmocka_unit_test(plan_struct_struct_returns_and_a_large_struct_argument_on_both_paths),
        cmocka_unit_test(plan_var_variadic_doubles_after_a_count_on_both_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
