/*
 * test_libffi_call.c — the cases of libffi's testsuite/libffi.call that need
 * long double or more than 32 parameters, restated against the public API:
 * float, float2, float3, return_ldl and many_small_structs. (Structs,
 * variadic calls and the other scalars are restated by test_structs.c,
 * test_variadic.c and test_paths.c.)
 */
#include "test_support.h"

#include <float.h>

static dc_value call_ok(const char *encoding, dc_function function, dc_value *arguments, size_t count,
                        dc_value result) {
    dc_signature *signature = create_signature(encoding);
    assert_ok(dc_call(signature, function, arguments, count, &result));
    dc_signature_release(signature);
    return result;
}

/* float.c */
CALLEE static int floating(int a, float b, double c, long double d) {
    return (int)((float)a / b + ((float)c / (float)d));
}

static void float_returns_int_from_int_float_double_long_double(void **state) {
    (void)state;
    float f = 3.14159f;
    double d = 1.0 / 3.0;
    long double ld = 2.71828182846L;
    dc_value result = call_ok("iifdD", DC_FUNCTION(floating),
                              (dc_value[]){dc_int32(6), dc_float(f), dc_double(d), dc_long_double(&ld)}, 4, dc_void());
    assert_int_equal(result.i32, floating(6, f, d, ld));
}

/* float2.c */
CALLEE static long double ldblit(float f) { return (long double)f / (long double)3.0; }

static void float2_returns_long_double(void **state) {
    (void)state;
    long double got = 666;
    float f = 3.14159f;
    call_ok("Df", DC_FUNCTION(ldblit), (dc_value[]){dc_float(f)}, 1, dc_long_double(&got));
    long double original = ldblit(f);
    assert_true((got > original ? got - original : original - got) < LDBL_EPSILON);
}

/* float3.c */
CALLEE static double floating_1(float a, double b, long double c) { return (double)a + b + (double)c; }
CALLEE static double floating_2(long double a, double b, float c) { return (double)a + b + (double)c; }

static void float3_passes_float_double_long_double_in_both_orders(void **state) {
    (void)state;
    float f = 3.14159f;
    double d = 1.0 / 3.0;
    long double ld = 2.71828182846L;
    dc_value result = call_ok("dfdD", DC_FUNCTION(floating_1),
                              (dc_value[]){dc_float(f), dc_double(d), dc_long_double(&ld)}, 3, dc_void());
    assert_true(result.d == floating_1(f, d, ld));
    result = call_ok("dDdf", DC_FUNCTION(floating_2), (dc_value[]){dc_long_double(&ld), dc_double(d), dc_float(f)}, 3,
                     dc_void());
    assert_true(result.d == floating_2(ld, d, f));
}

/* return_ldl.c */
CALLEE static long double return_ldl(long double ldl) { return 2 * ldl; }

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
    call_ok(encoding, DC_FUNCTION(many_small), arguments, NARGS, dc_struct(&result));
    assert_int_equal(result.a, expected_a);
    assert_int_equal(result.b, expected_b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(float_returns_int_from_int_float_double_long_double),
        cmocka_unit_test(float2_returns_long_double),
        cmocka_unit_test(float3_passes_float_double_long_double_in_both_orders),
        cmocka_unit_test(return_ldl_doubles_254_long_doubles),
        cmocka_unit_test(many_small_structs_passes_40_structs_by_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
