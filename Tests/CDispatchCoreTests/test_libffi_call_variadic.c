/*
 * test_libffi_call_variadic.c — libffi's testsuite/libffi.call cases of
 * variadic calls, restated against the public API (signatures from
 * dc_signature_create_variadic): doubles after fixed ones, structs and
 * promoted scalars in the variadic part, unpromoted types refused there and
 * accepted among the fixed parameters, struct returns. Each test names the
 * libffi file(s) it restates; libffi_call_cases.txt lists them all.
 */
#include "test_support.h"

#include <stdarg.h>

/* float_va.c */
static double float_va_seen[8];

CALLEE static double float_va_fn(unsigned int x, double y, ...) {
    double total = (double)x + y;
    va_list ap;
    va_start(ap, y);
    for (unsigned int i = 0; i < x; i++) {
        float_va_seen[i] = va_arg(ap, double);
        total += float_va_seen[i];
    }
    va_end(ap);
    return total;
}

/* float_va.c: libffi prints each variadic double the callee reads; here the
 * callee keeps them and the test checks them. */
static void float_va_doubles_fixed_and_variadic_are_summed(void **state) {
    (void)state;
    dc_value result;
    call_encoded("dId", 2, DC_FUNCTION(float_va_fn), (dc_value[]){dc_uint32(0), dc_double(2.0)}, 2, &result);
    assert_true(result.d == float_va_fn(0, 2.0));
    assert_true(result.d == 2);

    memset(float_va_seen, 0, sizeof float_va_seen);
    call_encoded("dIddd", 2, DC_FUNCTION(float_va_fn),
                 (dc_value[]){dc_uint32(2), dc_double(2.0), dc_double(3.0), dc_double(4.0)}, 4, &result);
    assert_true(result.d == 11);
    assert_true(float_va_seen[0] == 3.0 && float_va_seen[1] == 4.0);
}

/* ---- structs and promoted scalars in the variadic part ----------------------- */

struct small_tag {
    unsigned char a, b;
};
struct large_tag {
    unsigned a, b, c, d, e;
};

#define SMALL "{small_tag=CC}"
#define LARGE "{large_tag=IIIII}"

static const struct small_tag s1_given = {5, 6}, s2_given = {7, 8};
static const struct large_tag l_given = {10, 11, 12, 13, 14};

/* The three structs every va_struct and va_2 callee reads first, as it read
 * them. */
static struct {
    struct small_tag s1;
    struct large_tag l;
    struct small_tag s2;
} seen;

/* Reads the three structs into `seen` and checks them, as libffi's callees do. */
static void read_three_structs(va_list *ap) {
    seen.s1 = va_arg(*ap, struct small_tag);
    seen.l = va_arg(*ap, struct large_tag);
    seen.s2 = va_arg(*ap, struct small_tag);
    assert_memory_equal(&seen.s1, &s1_given, sizeof seen.s1);
    assert_memory_equal(&seen.l, &l_given, sizeof seen.l);
    assert_memory_equal(&seen.s2, &s2_given, sizeof seen.s2);
}

/* The three structs read by a callee whose last fixed parameter is `last`. */
#define READ_THREE_STRUCTS_AFTER(last)                                                                          \
    do {                                                                                                        \
        va_list ap;                                                                                             \
        va_start(ap, last);                                                                                     \
        read_three_structs(&ap);                                                                                \
        va_end(ap);                                                                                             \
    } while (0)

/* Reads the promoted scalars after them (va_2) or after the fixed ones (va_3):
 * uc=9 sc=10 us=11 ss=12 ui=13 si=14 ul=15 sl=16, a float 2.12 and a double
 * 3.13, both as doubles. */
static void read_promoted_scalars(va_list *ap) {
    unsigned char uc = (unsigned char)va_arg(*ap, unsigned);
    signed char sc = (signed char)va_arg(*ap, signed);
    unsigned short us = (unsigned short)va_arg(*ap, unsigned);
    signed short ss = (signed short)va_arg(*ap, signed);
    unsigned int ui = va_arg(*ap, unsigned int);
    signed int si = va_arg(*ap, signed int);
    unsigned long ul = va_arg(*ap, unsigned long);
    signed long sl = va_arg(*ap, signed long);
    double f = va_arg(*ap, double);
    double d = va_arg(*ap, double);
    assert_int_equal(uc, 9);
    assert_int_equal(sc, 10);
    assert_int_equal(us, 11);
    assert_int_equal(ss, 12);
    assert_int_equal(ui, 13);
    assert_int_equal(si, 14);
    assert_int_equal(ul, 15);
    assert_int_equal(sl, 16);
    assert_int_equal((int)f, 2);
    assert_int_equal((int)d, 3);
}

#define PROMOTED "IiIiIi" ULONG_CODE LONG_CODE "dd"

/* The promoted scalars as a caller passes them, C's long at its width. */
static void promoted_scalar_values(dc_value *values) {
    const dc_value given[] = {dc_uint32(9),  dc_int32(10), dc_uint32(11), dc_int32(12), dc_uint32(13),
                              dc_int32(14),
                              sizeof(long) == 8 ? dc_uint64(15) : dc_uint32(15),
                              sizeof(long) == 8 ? dc_int64(16) : dc_int32(16),
                              dc_double(2.12), dc_double(3.13)};
    memcpy(values, given, sizeof given);
}

CALLEE static int structs_then_scalars(int n, ...) {
    va_list ap;
    va_start(ap, n);
    read_three_structs(&ap);
    read_promoted_scalars(&ap);
    va_end(ap);
    return n + 1;
}

CALLEE static int small_fixed_then_scalars(char a1, float a2, int n, ...) {
    assert_int_equal(a1, 1);
    assert_int_equal((int)a2, 2);
    va_list ap;
    va_start(ap, n);
    read_promoted_scalars(&ap);
    va_end(ap);
    return n + 1;
}

/* n = 41 and the three structs after it, as a caller passes them: values
 * pointing at copies of the structs that last until the next call. */
static void three_struct_values(dc_value *values) {
    static struct small_tag s1, s2;
    static struct large_tag l;
    s1 = s1_given, l = l_given, s2 = s2_given;
    values[0] = dc_int32(41);
    values[1] = dc_struct(&s1);
    values[2] = dc_struct(&l);
    values[3] = dc_struct(&s2);
}

/* va_2.c */
static void va_2_structs_and_promoted_scalars_arrive_in_the_variadic_part(void **state) {
    (void)state;
    dc_value arguments[14], result;
    three_struct_values(arguments);
    promoted_scalar_values(&arguments[4]);
    call_encoded("ii" SMALL LARGE SMALL PROMOTED, 1, DC_FUNCTION(structs_then_scalars), arguments, 14, &result);
    assert_int_equal(result.i32, 42);
}

/* va_3.c */
static void va_3_char_and_float_are_fixed_parameters_before_promoted_scalars(void **state) {
    (void)state;
    dc_value arguments[13] = {dc_int8(1), dc_float(2.0f), dc_int32(41)}, result;
    promoted_scalar_values(&arguments[3]);
    call_encoded("icfi" PROMOTED, 3, DC_FUNCTION(small_fixed_then_scalars), arguments, 13, &result);
    assert_int_equal(result.i32, 42);
}

/* va_1.c */
static void va_1_unpromoted_types_in_the_variadic_part_are_refused(void **state) {
    (void)state;
    dc_signature *signature = NULL;
    assert_failure(dc_signature_create_variadic("ii" SMALL LARGE SMALL "CcSsIi" ULONG_CODE LONG_CODE "dd", 1,
                                                &signature),
                   DC_ERR_BAD_SIGNATURE, "position 47", "uint8", "promoted to int");
    assert_null(signature);
}

CALLEE static int three_structs(int n, ...) {
    READ_THREE_STRUCTS_AFTER(n);
    return n + 1;
}

CALLEE static struct small_tag three_structs_small_sum(int n, ...) {
    READ_THREE_STRUCTS_AFTER(n);
    return (struct small_tag){(unsigned char)(seen.s1.a + seen.s2.a), (unsigned char)(seen.s1.b + seen.s2.b)};
}

CALLEE static struct large_tag three_structs_large_sum(int n, ...) {
    READ_THREE_STRUCTS_AFTER(n);
    struct large_tag l = seen.l;
    l.a += seen.s1.a;
    l.b += seen.s1.b;
    l.c += seen.s2.a;
    l.d += seen.s2.b;
    return l;
}

/* va_struct1.c, va_struct2.c, va_struct3.c */
static void va_struct1_to_3_structs_in_the_variadic_part_and_struct_returns(void **state) {
    (void)state;
    dc_value arguments[4], result;
    three_struct_values(arguments);
    call_encoded("ii" SMALL LARGE SMALL, 1, DC_FUNCTION(three_structs), arguments, 4, &result);
    assert_int_equal(result.i32, 42);

    struct small_tag small_result;
    result = dc_struct(&small_result);
    call_encoded(SMALL "i" SMALL LARGE SMALL, 1, DC_FUNCTION(three_structs_small_sum), arguments, 4, &result);
    assert_int_equal(small_result.a, 12);
    assert_int_equal(small_result.b, 14);

    struct large_tag large_result;
    result = dc_struct(&large_result);
    call_encoded(LARGE "i" SMALL LARGE SMALL, 1, DC_FUNCTION(three_structs_large_sum), arguments, 4, &result);
    const struct large_tag expected = {15, 17, 19, 21, 14};
    assert_memory_equal(&large_result, &expected, sizeof expected);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(float_va_doubles_fixed_and_variadic_are_summed),
        cmocka_unit_test(va_1_unpromoted_types_in_the_variadic_part_are_refused),
        cmocka_unit_test(va_2_structs_and_promoted_scalars_arrive_in_the_variadic_part),
        cmocka_unit_test(va_3_char_and_float_are_fixed_parameters_before_promoted_scalars),
        cmocka_unit_test(va_struct1_to_3_structs_in_the_variadic_part_and_struct_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
