/*
 * test_libffi_closures.c — the cases of libffi's testsuite/libffi.closures
 * that need long double, a variadic closure or more than 32 parameters,
 * restated against the public API: cls_longdouble, cls_longdouble_va,
 * cls_align_longdouble, cls_align_longdouble_split, cls_align_longdouble_split2,
 * nested_struct5 and huge_struct, each through dc_call and through a closure
 * (its handler reading the arguments and setting the result, or re-sending
 * the call). cls_double_va, cls_struct_va1, cls_uint_va and cls_ulong_va are
 * in test_variadic.c; the scalar, struct and nested-struct cases in
 * test_libffi_closures_scalars.c, _structs.c and _nested.c.
 * libffi_closures_cases.txt names the test of each libffi file.
 */
#include "test_support.h"

#include <stdarg.h>
#include <stdio.h>

static void call_ok(const char *encoding, dc_function function, dc_value *arguments, size_t count, dc_value result) {
    dc_signature *signature = create_signature(encoding);
    assert_ok(dc_call(signature, function, arguments, count, &result));
    dc_signature_release(signature);
}

static long double long_double_argument(dc_invocation *call, size_t index) {
    dc_value value;
    assert_ok(dc_invocation_get_argument(call, index, &value));
    assert_int_equal(value.type, DC_TYPE_LONG_DOUBLE);
    return *(const long double *)value.pointer;
}

/* ---- cls_longdouble: eight long doubles summed --------------------------------------- */

CALLEE static long double cls_ldouble_fn(long double a1, long double a2, long double a3, long double a4,
                                         long double a5, long double a6, long double a7, long double a8) {
    return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}

static void sum_eight(dc_invocation *call, void *user_data) {
    (void)user_data;
    long double sum = 0;
    for (size_t i = 0; i < 8; i++) {
        long double a = long_double_argument(call, i);
        assert_true(a == (long double)(i + 1));
        sum += a;
    }
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_long_double(&sum))));
}

static void a_closure_sums_eight_long_doubles(void **state) {
    (void)state;
    long double arguments[8] = {1, 2, 3, 4, 5, 6, 7, 8}, result = 0;
    dc_value values[8];
    for (int i = 0; i < 8; i++) values[i] = dc_long_double(&arguments[i]);
    call_ok("DDDDDDDDD", DC_FUNCTION(cls_ldouble_fn), values, 8, dc_long_double(&result));
    assert_true(result == 36);
    dc_closure *closure = create_closure("DDDDDDDDD", sum_eight, NULL);
    long double (*f)(long double, long double, long double, long double, long double, long double, long double,
                     long double) = (long double (*)(long double, long double, long double, long double, long double,
                                                     long double, long double, long double))dc_closure_function(closure);
    assert_true(f(1, 2, 3, 4, 5, 6, 7, 8) == 36);
    dc_closure_destroy(closure);
}

/* ---- cls_longdouble_va: int (char *, ...) with a long double ---------------------------- */

static char va_buffer[50];

CALLEE static int cls_longdouble_va_callee(const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    long double value = va_arg(ap, long double);
    va_end(ap);
    return snprintf(va_buffer, sizeof va_buffer, format, value);
}

static void format_long_double(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value format;
    assert_ok(dc_invocation_get_argument(call, 0, &format));
    int length = snprintf(va_buffer, sizeof va_buffer, format.string, long_double_argument(call, 1));
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_int32(length))));
}

static void a_variadic_closure_formats_a_long_double(void **state) {
    (void)state;
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create_variadic("i*D", 1, &signature));
    char format[] = "%.1Lf\n";
    long double seven = 7;
    dc_value result = dc_void();
    assert_ok(dc_call(signature, DC_FUNCTION(cls_longdouble_va_callee),
                      (dc_value[]){dc_string(format), dc_long_double(&seven)}, 2, &result));
    assert_int_equal(result.i32, 4);
    assert_string_equal(va_buffer, "7.0\n");
    dc_closure *closure = NULL;
    assert_ok(dc_closure_create(signature, format_long_double, NULL, NULL, &closure));
    memset(va_buffer, 0, sizeof va_buffer);
    int (*print)(const char *, ...) = (int (*)(const char *, ...))dc_closure_function(closure);
    assert_int_equal(print(format, seven), 4);
    assert_string_equal(va_buffer, "7.0\n");
    dc_closure_destroy(closure);
    dc_signature_release(signature);
}

/* ---- cls_align_longdouble, _split, _split2: structs of long doubles --------------------- */

typedef struct align_ld {
    unsigned char a;
    long double b;
    unsigned char c;
} align_ld;

CALLEE static align_ld align_ld_fn(align_ld a1, align_ld a2) {
    return (align_ld){(unsigned char)(a1.a + a2.a), a1.b + a2.b, (unsigned char)(a1.c + a2.c)};
}

typedef struct split_ld {
    long double a, b, c, d, e, f, g;
} split_ld;

CALLEE static split_ld split_ld_fn(split_ld a1, split_ld a2) {
    return (split_ld){a1.a + a2.a, a1.b + a2.b, a1.c + a2.c, a1.d + a2.d, a1.e + a2.e, a1.f + a2.f, a1.g + a2.g};
}

typedef struct split2_ld {
    long double a, b, c, d, e;
    double f;
    long double g;
} split2_ld;

CALLEE static split2_ld split2_ld_fn(split2_ld a1, split2_ld a2) {
    return (split2_ld){a1.a + a2.a, a1.b + a2.b, a1.c + a2.c, a1.d + a2.d, a1.e + a2.e, a1.f + a2.f, a1.g + a2.g};
}

#define ALIGN_LD "{cls_struct_align=CDC}"
#define SPLIT_LD "{cls_struct_align=DDDDDDD}"
#define SPLIT2_LD "{cls_struct_align=DDDDDdD}"

static void a_closure_receives_and_returns_structs_aligning_a_long_double(void **state) {
    (void)state;
    align_ld g = {12, 4951, 127}, f = {1, 9320, 13}, result;
    call_ok(ALIGN_LD ALIGN_LD ALIGN_LD, DC_FUNCTION(align_ld_fn), (dc_value[]){dc_struct(&g), dc_struct(&f)}, 2,
            dc_struct(&result));
    assert_true(result.a == 13 && result.b == 14271 && result.c == 140);
    dc_closure *closure = create_closure(ALIGN_LD ALIGN_LD ALIGN_LD, resend_to_function, (void *)DC_FUNCTION(align_ld_fn));
    result = ((align_ld(*)(align_ld, align_ld))dc_closure_function(closure))(g, f);
    assert_true(result.a == 13 && result.b == 14271 && result.c == 140);
    dc_closure_destroy(closure);
}

static void a_closure_receives_and_returns_structs_of_long_doubles_and_a_double(void **state) {
    (void)state;
    split_ld g = {1, 2, 3, 4, 5, 6, 7}, f = {8, 9, 10, 11, 12, 13, 14}, r;
    call_ok(SPLIT_LD SPLIT_LD SPLIT_LD, DC_FUNCTION(split_ld_fn), (dc_value[]){dc_struct(&g), dc_struct(&f)}, 2,
            dc_struct(&r));
    assert_true(r.a == 9 && r.b == 11 && r.c == 13 && r.d == 15 && r.e == 17 && r.f == 19 && r.g == 21);
    dc_closure *closure = create_closure(SPLIT_LD SPLIT_LD SPLIT_LD, resend_to_function, (void *)DC_FUNCTION(split_ld_fn));
    r = ((split_ld(*)(split_ld, split_ld))dc_closure_function(closure))(g, f);
    assert_true(r.a == 9 && r.b == 11 && r.c == 13 && r.d == 15 && r.e == 17 && r.f == 19 && r.g == 21);
    dc_closure_destroy(closure);

    split2_ld g2 = {1, 2, 3, 4, 5, 6, 7}, f2 = {8, 9, 10, 11, 12, 13, 14}, r2;
    call_ok(SPLIT2_LD SPLIT2_LD SPLIT2_LD, DC_FUNCTION(split2_ld_fn), (dc_value[]){dc_struct(&g2), dc_struct(&f2)}, 2,
            dc_struct(&r2));
    assert_true(r2.a == 9 && r2.b == 11 && r2.c == 13 && r2.d == 15 && r2.e == 17 && r2.f == 19 && r2.g == 21);
    closure = create_closure(SPLIT2_LD SPLIT2_LD SPLIT2_LD, resend_to_function, (void *)DC_FUNCTION(split2_ld_fn));
    r2 = ((split2_ld(*)(split2_ld, split2_ld))dc_closure_function(closure))(g2, f2);
    assert_true(r2.a == 9 && r2.b == 11 && r2.c == 13 && r2.d == 15 && r2.e == 17 && r2.f == 19 && r2.g == 21);
    dc_closure_destroy(closure);
}

/* ---- nested_struct5: a struct of a long double and a char, nested ------------------------ */

typedef struct A {
    long double a;
    unsigned char b;
} A;
typedef struct B {
    A x;
    unsigned char y;
} B;

CALLEE static B B_fn(A b2, B b3) {
    B result;
    result.x.a = b2.a + b3.x.a;
    result.x.b = (unsigned char)(b2.b + b3.x.b + b3.y);
    result.y = (unsigned char)(b2.b + b3.x.b);
    return result;
}

#define NESTED_A "{A=DC}"
#define NESTED_B "{B={A=DC}C}"

static void a_closure_returns_a_nested_struct_of_a_long_double_and_chars(void **state) {
    (void)state;
    A e = {1.0, 7};
    B f = {{12.0, 127}, 99}, result;
    call_ok(NESTED_B NESTED_A NESTED_B, DC_FUNCTION(B_fn), (dc_value[]){dc_struct(&e), dc_struct(&f)}, 2,
            dc_struct(&result));
    assert_true((int)result.x.a == 13 && result.x.b == 233 && result.y == 134);
    dc_closure *closure = create_closure(NESTED_B NESTED_A NESTED_B, resend_to_function, (void *)DC_FUNCTION(B_fn));
    result = ((B(*)(A, B))dc_closure_function(closure))(e, f);
    assert_true((int)result.x.a == 13 && result.x.b == 233 && result.y == 134);
    dc_closure_destroy(closure);
}

/* ---- huge_struct: 50 parameters of 12 types in turn, returned as a struct ---------------------- */

static char large_text[] = "large";

/* libffi's huge_struct: BigStruct, 50 fields of 12 types in turn. */
typedef struct BigStruct {
    uint8_t m0;
    int8_t m1;
    uint16_t m2;
    int16_t m3;
    uint32_t m4;
    int32_t m5;
    uint64_t m6;
    int64_t m7;
    float m8;
    double m9;
    long double m10;
    char *m11;
    uint8_t m12;
    int8_t m13;
    uint16_t m14;
    int16_t m15;
    uint32_t m16;
    int32_t m17;
    uint64_t m18;
    int64_t m19;
    float m20;
    double m21;
    long double m22;
    char *m23;
    uint8_t m24;
    int8_t m25;
    uint16_t m26;
    int16_t m27;
    uint32_t m28;
    int32_t m29;
    uint64_t m30;
    int64_t m31;
    float m32;
    double m33;
    long double m34;
    char *m35;
    uint8_t m36;
    int8_t m37;
    uint16_t m38;
    int16_t m39;
    uint32_t m40;
    int32_t m41;
    uint64_t m42;
    int64_t m43;
    float m44;
    double m45;
    long double m46;
    char *m47;
    uint8_t m48;
    int8_t m49;
} BigStruct;
#define BIG_STRUCT "{BigStruct=CcSsIiQqfdD*CcSsIiQqfdD*CcSsIiQqfdD*CcSsIiQqfdD*Cc}"
#define LARGE_PARAMETERS "CcSsIiQqfdD*CcSsIiQqfdD*CcSsIiQqfdD*CcSsIiQqfdD*Cc"

CALLEE static BigStruct test_large_fn(uint8_t p0, int8_t p1, uint16_t p2, int16_t p3, uint32_t p4, int32_t p5,
                                     uint64_t p6, int64_t p7, float p8, double p9, long double p10, char *p11,
                                     uint8_t p12, int8_t p13, uint16_t p14, int16_t p15, uint32_t p16,
                                     int32_t p17, uint64_t p18, int64_t p19, float p20, double p21,
                                     long double p22, char *p23, uint8_t p24, int8_t p25, uint16_t p26,
                                     int16_t p27, uint32_t p28, int32_t p29, uint64_t p30, int64_t p31,
                                     float p32, double p33, long double p34, char *p35, uint8_t p36,
                                     int8_t p37, uint16_t p38, int16_t p39, uint32_t p40, int32_t p41,
                                     uint64_t p42, int64_t p43, float p44, double p45, long double p46,
                                     char *p47, uint8_t p48, int8_t p49) {
    BigStruct result = {p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17, p18,
                        p19, p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35,
                        p36, p37, p38, p39, p40, p41, p42, p43, p44, p45, p46, p47, p48, p49};
    return result;
}

typedef BigStruct (*large_function)(uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, uint64_t, int64_t,
                                    float, double, long double, char *, uint8_t, int8_t, uint16_t, int16_t,
                                    uint32_t, int32_t, uint64_t, int64_t, float, double, long double, char *,
                                    uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, uint64_t, int64_t,
                                    float, double, long double, char *, uint8_t, int8_t, uint16_t, int16_t,
                                    uint32_t, int32_t, uint64_t, int64_t, float, double, long double, char *,
                                    uint8_t, int8_t);

/* The arguments huge_struct passes, as C literals. */
#define LARGE_CALL_ARGUMENTS 1, 2, 3, 4, 5, 6, 7, 8, 8.5f, 9.25, 10.125L, large_text, 13, 14, 15, 16, 17, 18, \
    19, 20, 20.5f, 21.25, 22.125L, large_text, 25, 26, 27, 28, 29, 30, 31, 32, 32.5f, 33.25, 34.125L, \
    large_text, 37, 38, 39, 40, 41, 42, 43, 44, 44.5f, 45.25, 46.125L, large_text, 49, 50

/* Argument k as a value of its parameter's type; long doubles in `ld`. */
static dc_value large_argument(size_t k, long double *ld) {
    switch (k % 12) {
    case 0: return dc_uint8((uint8_t)(k + 1));
    case 1: return dc_int8((int8_t)(k + 1));
    case 2: return dc_uint16((uint16_t)(k + 1));
    case 3: return dc_int16((int16_t)(k + 1));
    case 4: return dc_uint32((uint32_t)(k + 1));
    case 5: return dc_int32((int32_t)(k + 1));
    case 6: return dc_uint64(k + 1);
    case 7: return dc_int64((int64_t)k + 1);
    case 8: return dc_float((float)k + 0.5f);
    case 9: return dc_double((double)k + 0.25);
    case 10: *ld = (long double)k + 0.125L; return dc_long_double(ld);
    default: return dc_string(large_text);
    }
}

static void assert_large(const BigStruct *b) {
    BigStruct expected = test_large_fn(LARGE_CALL_ARGUMENTS);
    assert_true(b->m0 == expected.m0 && b->m1 == expected.m1 && b->m2 == expected.m2 && b->m3 == expected.m3);
    assert_true(b->m4 == expected.m4 && b->m5 == expected.m5 && b->m6 == expected.m6 && b->m7 == expected.m7);
    assert_true(b->m8 == expected.m8 && b->m9 == expected.m9 && b->m10 == expected.m10 && b->m11 == expected.m11);
    assert_true(b->m34 == expected.m34 && b->m44 == expected.m44 && b->m46 == expected.m46 && b->m47 == expected.m47);
    assert_true(b->m48 == expected.m48 && b->m49 == expected.m49 && b->m22 == expected.m22 && b->m30 == expected.m30);
}

/* A forward handler that builds the struct from the arguments it reads,
 * field k at its offset in the return layout. */
static void build_large(dc_invocation *call, void *user_data) {
    (void)user_data;
    BigStruct built;
    memset(&built, 0, sizeof built);
    dc_layout layout;
    assert_ok(dc_signature_return_layout(dc_invocation_signature(call), &layout));
    for (size_t k = 0; k < 50; k++) {
        dc_value value;
        dc_layout field;
        assert_ok(dc_invocation_get_argument(call, k, &value));
        assert_ok(dc_layout_field(&layout, k, &field));
        const void *bytes = value.type == DC_TYPE_LONG_DOUBLE ? value.pointer : (const void *)&value.u64;
        memcpy((char *)&built + field.offset, bytes, field.size); /* each member starts the union */
    }
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_struct(&built))));
}

static void a_closure_of_fifty_parameters_returns_them_as_a_struct(void **state) {
    (void)state;
    long double long_doubles[50];
    dc_value arguments[50];
    for (size_t k = 0; k < 50; k++) arguments[k] = large_argument(k, &long_doubles[k]);
    BigStruct result;
    call_ok(BIG_STRUCT LARGE_PARAMETERS, DC_FUNCTION(test_large_fn), arguments, 50, dc_struct(&result));
    assert_large(&result);
    dc_closure *closure = create_closure(BIG_STRUCT LARGE_PARAMETERS, build_large, NULL);
    result = ((large_function)dc_closure_function(closure))(LARGE_CALL_ARGUMENTS);
    assert_large(&result);
    dc_closure_destroy(closure);
    closure = create_closure(BIG_STRUCT LARGE_PARAMETERS, resend_to_function, (void *)DC_FUNCTION(test_large_fn));
    result = ((large_function)dc_closure_function(closure))(LARGE_CALL_ARGUMENTS);
    assert_large(&result);
    dc_closure_destroy(closure);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_closure_sums_eight_long_doubles),
        cmocka_unit_test(a_variadic_closure_formats_a_long_double),
        cmocka_unit_test(a_closure_receives_and_returns_structs_aligning_a_long_double),
        cmocka_unit_test(a_closure_receives_and_returns_structs_of_long_doubles_and_a_double),
        cmocka_unit_test(a_closure_returns_a_nested_struct_of_a_long_double_and_chars),
        cmocka_unit_test(a_closure_of_fifty_parameters_returns_them_as_a_struct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
