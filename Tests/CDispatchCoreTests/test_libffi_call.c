/*
 * test_libffi_call.c — the cases of libffi's testsuite/libffi.call that need
 * long double or many parameters, restated against the public API: float,
 * float2, float3, return_ldl, many, many_double, many_mixed and
 * many_small_structs. The other files are restated by the
 * test_libffi_call_*.c files beside this one; libffi_call_cases.txt lists
 * them all.
 */
#include "test_support.h"

#include <float.h>
#include <math.h>

/* float.c */
CALLEE static int floating(int a, float b, double c, long double d) {
    return (int)((float)a / b + ((float)c / (float)d));
}

/* Restates libffi.call's float.c. */
static void float_returns_int_from_int_float_double_long_double(void **state) {
    (void)state;
    float f = 3.14159f;
    double d = 1.0 / 3.0;
    long double ld = 2.71828182846L;
    dc_value result;
    call_with("iifdD", floating, &result, dc_int32(6), dc_float(f), dc_double(d), dc_long_double(&ld));
    assert_int_equal(result.i32, floating(6, f, d, ld));
}

/* float2.c */
CALLEE static long double ldblit(float f) { return (long double)f / (long double)3.0; }

/* Restates libffi.call's float2.c. */
static void float2_returns_long_double(void **state) {
    (void)state;
    long double got = 666;
    float f = 3.14159f;
    dc_value result = dc_long_double(&got);
    call_with("Df", ldblit, &result, dc_float(f));
    long double original = ldblit(f);
    assert_true((got > original ? got - original : original - got) < LDBL_EPSILON);
}

/* float3.c */
CALLEE static double floating_1(float a, double b, long double c) { return (double)a + b + (double)c; }
CALLEE static double floating_2(long double a, double b, float c) { return (double)a + b + (double)c; }

/* Restates libffi.call's float3.c. */
static void float3_passes_float_double_long_double_in_both_orders(void **state) {
    (void)state;
    float f = 3.14159f;
    double d = 1.0 / 3.0;
    long double ld = 2.71828182846L;
    dc_value result;
    call_with("dfdD", floating_1, &result, dc_float(f), dc_double(d), dc_long_double(&ld));
    assert_true(result.d == floating_1(f, d, ld));
    call_with("dDdf", floating_2, &result, dc_long_double(&ld), dc_double(d), dc_float(f));
    assert_true(result.d == floating_2(ld, d, f));
}

/* return_ldl.c */
CALLEE static long double return_ldl(long double ldl) { return 2 * ldl; }

/* Restates libffi.call's return_ldl.c. */
static void return_ldl_doubles_254_long_doubles(void **state) {
    (void)state;
    dc_signature *signature = create_signature("DD");
    for (long double ldl = -127.0L; ldl < 127.0L; ldl++) {
        long double got = 0;
        dc_value result = dc_long_double(&got);
        assert_ok(dc_call(signature, DC_FUNCTION(return_ldl), (dc_value[]){dc_long_double(&ldl)}, 1, &result));
        assert_true(got == 2 * ldl);
    }
    dc_signature_release(signature);
}

/* many.c */
CALLEE static float many_floats(float f1, float f2, float f3, float f4, float f5, float f6, float f7, float f8,
                                float f9, float f10, float f11, float f12, float f13) {
    return f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10 + f11 + f12 + f13;
}

/* many_double.c */
CALLEE static double many_doubles(double f1, double f2, double f3, double f4, double f5, double f6, double f7,
                                  double f8, double f9, double f10, double f11, double f12, double f13) {
    return (f1 / f2 + f3 / f4 + f5 / f6 + f7 / f8 + f9 / f10 + f11 / f12) * f13;
}

/* many_mixed.c */
CALLEE static double many_mixed(double f1, double f2, long i1, double f3, double f4, long i2, double f5, double f6,
                                long i3, double f7, double f8, long i4, double f9, double f10, long i5, double f11,
                                double f12, long i6, double f13) {
    return (double)(i1 + i2 + i3 + i4 + i5 + i6) + (f1 / f2 + f3 / f4 + f5 / f6 + f7 / f8 + f9 / f10 + f11 / f12) * f13;
}

/* many.c, many_double.c, many_mixed.c: 13 floats, 13 doubles, and 19 doubles
 * with a long after every second one, argument i being i. */
static void many_many_double_and_many_mixed_pass_13_to_19_arguments_past_the_registers(void **state) {
    (void)state;
    dc_value floats[13], doubles[13], mixed[19];
    float fa[13];
    double da[13];
    for (int i = 0; i < 13; i++) {
        fa[i] = (float)i;
        da[i] = (double)i;
        floats[i] = dc_float(fa[i]);
        doubles[i] = dc_double(da[i]);
    }
    char mixed_encoding[21] = "d";
    for (int i = 0; i < 19; i++) {
        bool is_long = (i - 2) % 3 == 0;
        strcat(mixed_encoding, is_long ? LONG_CODE : "d");
        mixed[i] = !is_long ? dc_double(i) : sizeof(long) == 8 ? dc_int64(i) : dc_int32(i);
    }
    dc_value result;
    call_encoded("ffffffffffffff", -1, DC_FUNCTION(many_floats), floats, 13, &result);
    float expected_float = many_floats(fa[0], fa[1], fa[2], fa[3], fa[4], fa[5], fa[6], fa[7], fa[8], fa[9], fa[10],
                                       fa[11], fa[12]);
    assert_true(fabsf(result.f - expected_float) < FLT_EPSILON);
    call_encoded("dddddddddddddd", -1, DC_FUNCTION(many_doubles), doubles, 13, &result);
    double expected = many_doubles(da[0], da[1], da[2], da[3], da[4], da[5], da[6], da[7], da[8], da[9], da[10],
                                   da[11], da[12]);
    assert_true(fabs(result.d - expected) < FLT_EPSILON);
    call_encoded(mixed_encoding, -1, DC_FUNCTION(many_mixed), mixed, 19, &result);
    expected = many_mixed(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18);
    assert_true(fabs(result.d - expected) < FLT_EPSILON);
}

/* many_small_structs.c: 40 structs of two ints, summed. */
typedef struct small_struct {
    int a, b;
} small_struct;
#define S small_struct
CALLEE static small_struct many_small(S s0, S s1, S s2, S s3, S s4, S s5, S s6, S s7, S s8, S s9, S s10, S s11, S s12,
                                      S s13, S s14, S s15, S s16, S s17, S s18, S s19, S s20, S s21, S s22, S s23,
                                      S s24, S s25, S s26, S s27, S s28, S s29, S s30, S s31, S s32, S s33, S s34,
                                      S s35, S s36, S s37, S s38, S s39) {
    const S all[] = {s0,  s1,  s2,  s3,  s4,  s5,  s6,  s7,  s8,  s9,  s10, s11, s12, s13,
                     s14, s15, s16, s17, s18, s19, s20, s21, s22, s23, s24, s25, s26, s27,
                     s28, s29, s30, s31, s32, s33, s34, s35, s36, s37, s38, s39};
    S r = {0, 0};
    for (size_t i = 0; i < ARRAY_COUNT(all); i++) r.a += all[i].a, r.b += all[i].b;
    return r;
}
#undef S

/* Restates libffi.call's many_small_structs.c. */
static void many_small_structs_passes_40_structs_by_value(void **state) {
    (void)state;
    enum { NARGS = 40 };
    char encoding[8 * (NARGS + 1) + 1] = "";
    for (int i = 0; i <= NARGS; i++) strcat(encoding, "{ss=ii}");
    small_struct in[NARGS], result = {0, 0};
    dc_value arguments[NARGS];
    int expected_a = 0, expected_b = 0;
    for (int i = 0; i < NARGS; i++) {
        in[i] = (small_struct){i + 1, -(i + 1)};
        expected_a += in[i].a, expected_b += in[i].b;
        arguments[i] = dc_struct_of(&in[i], sizeof in[i]);
    }
    dc_value returned = dc_struct(&result);
    call_encoded(encoding, -1, DC_FUNCTION(many_small), arguments, NARGS, &returned);
    assert_int_equal(result.a, expected_a);
    assert_int_equal(result.b, expected_b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(float_returns_int_from_int_float_double_long_double),
        cmocka_unit_test(float2_returns_long_double),
        cmocka_unit_test(float3_passes_float_double_long_double_in_both_orders),
        cmocka_unit_test(return_ldl_doubles_254_long_doubles),
        cmocka_unit_test(many_many_double_and_many_mixed_pass_13_to_19_arguments_past_the_registers),
        cmocka_unit_test(many_small_structs_passes_40_structs_by_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
