/*
 * test_libffi_call_scalars.c — libffi's testsuite/libffi.call cases of scalar
 * arguments and returns, restated against the public API: alignment,
 * promotion and sign of narrow integers, float and double returns, long long
 * and long, strings, NULL pointers, reads past the arguments, a longjmp out of
 * a call and a bad return type. Each test names the libffi file(s) it restates;
 * libffi_call_cases.txt lists them all.
 */
#include "test_support.h"

#include <float.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

/* align_mixed.c, align_stdcall.c */
CALLEE static float align_arguments(int i1, double f2, int i3, double f4) { return (float)(i1 + f2 + i3 + f4); }

/* align_mixed.c and align_stdcall.c (the same callee and values; stdcall is an
 * ABI of 32-bit Windows, and a signature here has the platform's one ABI). */
static void int_double_int_double_returns_the_float_a_direct_call_returns(void **state) {
    (void)state;
    dc_value result;
    call_with("fidid", align_arguments, &result, dc_int32(1), dc_double(1), dc_int32(2), dc_double(2));
    assert_true(result.f == align_arguments(1, 1, 2, 2));
}

/* bpo_38748.c */
CALLEE static uint32_t add_uint32_uint64(uint32_t l1, uint64_t l2) { return l1 + (uint32_t)l2; }

/* Restates libffi.call's bpo_38748.c. */
static void bpo_38748_uint32_after_uint64_keeps_its_alignment(void **state) {
    (void)state;
    dc_value result;
    call_with("IIQ", add_uint32_uint64, &result, dc_uint32(1), dc_uint64(2));
    assert_int_equal(result.u32, add_uint32_uint64(1, 2));
}

/* err_bad_typedef.c */
static void err_bad_typedef_a_return_type_outside_dc_type_is_a_bad_signature(void **state) {
    (void)state;
    dc_signature *signature = NULL;
    assert_failure(dc_signature_create_with_types((dc_type)DC_TYPE_COUNT, NULL, 0, &signature),
                   DC_ERR_BAD_SIGNATURE, "return type", "not a dc_type");
    assert_null(signature);
}

/* float1.c, float4.c: a double return writes the one dc_value it is given
 * and nothing past it (libffi's canary after its result). */
#define CANARY 0xba

CALLEE static double third_of_float(float f) { return f / 3.0; }
CALLEE static double same_double(double d) { return d; }

static void call_guarding_the_next_value(const char *encoding, dc_function function, dc_value argument,
                                         dc_value *result) {
    dc_value guarded[2];
    memset(guarded, CANARY, sizeof guarded);
    call_encoded(encoding, -1, function, &argument, 1, &guarded[0]);
    const unsigned char *after = (const unsigned char *)&guarded[1];
    for (size_t i = 0; i < sizeof guarded[1]; i++) assert_int_equal(after[i], CANARY);
    *result = guarded[0];
}

/* Restates libffi.call's float1.c. */
static void float1_double_return_of_a_float_argument_leaves_the_next_value_alone(void **state) {
    (void)state;
    float f = 3.14159f;
    dc_value result;
    call_guarding_the_next_value("df", DC_FUNCTION(third_of_float), dc_float(f), &result);
    assert_int_equal(result.type, DC_TYPE_DOUBLE);
    assert_true(fabs(result.d - third_of_float(f)) < DBL_EPSILON);
}

/* Restates libffi.call's float4.c. */
static void float4_denormal_double_returns_unchanged(void **state) {
    (void)state;
    double d = DBL_MIN / 2;
    dc_value result;
    call_guarding_the_next_value("dd", DC_FUNCTION(same_double), dc_double(d), &result);
    assert_true(result.d == same_double(d));
}

/* negint.c */
CALLEE static int all_negative(int a, short b, signed char c) { return a < 0 && b < 0 && c < 0; }

/* Restates libffi.call's negint.c. */
static void negint_negative_int_short_and_char_arrive_negative(void **state) {
    (void)state;
    dc_value result;
    call_with("iisc", all_negative, &result, dc_int32(-6), dc_int16(-12), dc_int8(-1));
    assert_int_not_equal(result.i32, 0);
}

/* promotion.c */
CALLEE static int promotion(signed char sc, signed short ss, unsigned char uc, unsigned short us) {
    return (int)sc + (int)ss + (int)uc + (int)us;
}

/* Restates libffi.call's promotion.c. */
static void promotion_sums_every_narrow_signed_and_unsigned_combination(void **state) {
    (void)state;
    two_paths paths = two_paths_create("icsCS", -1, DC_FUNCTION(promotion));
    unsigned long calls = 0;
    for (int sc = -127; sc <= 120; sc++)
        for (int ss = -30000; ss <= 30000; ss += 10000)
            for (int uc = 0; uc <= 200; uc += 20)
                for (int us = 0; us <= 60000; us += 10000) {
                    dc_value result = invoke_both(&paths, dc_int8((int8_t)sc), dc_int16((int16_t)ss),
                                                  dc_uint8((uint8_t)uc), dc_uint16((uint16_t)us));
                    assert_int_equal(result.i32, sc + ss + uc + us);
                    calls++;
                }
    assert_int_equal(calls, 248 * 7 * 11 * 7);
    two_paths_destroy(&paths);
}

/* return_dbl.c, return_dbl1.c, return_dbl2.c */
CALLEE static double twice_double(double d) { return 2 * d; }
CALLEE static double sum_dfid(double d1, float f2, unsigned int i3, double d4) { return d1 + f2 + i3 + d4; }
CALLEE static double sum_ddid(double d1, double d2, unsigned int i3, double d4) { return d1 + d2 + i3 + d4; }

/* Restates libffi.call's return_dbl1.c and return_dbl2.c. */
static void return_dbl1_and_return_dbl2_sum_doubles_a_float_and_an_unsigned(void **state) {
    (void)state;
    double d1 = 127.0, d4 = 512.7;
    float f2 = 128.0f;
    unsigned int i3 = 255;
    dc_value result;
    call_with("ddfId", sum_dfid, &result, dc_double(d1), dc_float(f2), dc_uint32(i3), dc_double(d4));
    double expected = d1 + f2 + i3 + d4;
    assert_true(result.d == expected);
    call_with("dddId", sum_ddid, &result, dc_double(d1), dc_double(128.0), dc_uint32(i3), dc_double(d4));
    expected = d1 + 128.0 + i3 + d4;
    assert_true(result.d == expected);
}

/* return_fl.c, return_fl1.c, return_fl2.c, return_fl3.c */
CALLEE static float twice_float(float f) { return 2 * f; }
CALLEE static float sum_ff(float f1, float f2) { return f1 + f2; }
CALLEE static float sum_ffff(float f1, float f2, float f3, float f4) {
    volatile float sum = f1 + f2 + f3 + f4; /* as libffi's, for x87's wider registers */
    return sum;
}
CALLEE static float sum_ffif(float f1, float f2, unsigned int i3, float f4) { return f1 + f2 + i3 + f4; }

/* Restates libffi.call's return_dbl.c and return_fl.c: each double from
 * -127.3 and each float from -127 up to 127, doubled. */
static void return_dbl_and_return_fl_double_each_value_up_to_127(void **state) {
    (void)state;
    two_paths doubles = two_paths_create("dd", -1, DC_FUNCTION(twice_double));
    two_paths floats = two_paths_create("ff", -1, DC_FUNCTION(twice_float));
    int doubled = 0;
    for (int k = 0; -127.3 + k < 127; k++, doubled++) {
        double d = -127.3 + k;
        float f = -127.0f + (float)k;
        assert_true(invoke_both(&doubles, dc_double(d)).d == 2 * d);
        if (f < 127) assert_true(invoke_both(&floats, dc_float(f)).f == 2 * f);
    }
    assert_int_equal(doubled, 255);
    two_paths_destroy(&doubles);
    two_paths_destroy(&floats);
}

/* Restates libffi.call's return_fl1.c, return_fl2.c and return_fl3.c. */
static void return_fl1_fl2_and_fl3_sum_floats_and_an_unsigned(void **state) {
    (void)state;
    float f1 = 127.0f, f2 = 128.0f, f3 = 255.1f, f4 = 512.7f;
    unsigned int i3 = 255;
    dc_value result;
    call_with("fff", sum_ff, &result, dc_float(f1), dc_float(f2));
    float expected = f1 + f2;
    assert_true(result.f == expected);
    call_with("fffff", sum_ffff, &result, dc_float(f1), dc_float(f2), dc_float(f3), dc_float(f4));
    volatile float sum = f1 + f2 + f3 + f4;
    assert_true(result.f == sum);
    call_with("fffIf", sum_ffif, &result, dc_float(f1), dc_float(f2), dc_uint32(i3), dc_float(f4));
    expected = f1 + f2 + i3 + f4;
    assert_true(result.f == expected);
}

/* return_ll.c, return_ll1.c */
CALLEE static long long same_long_long(long long ll) { return ll; }
CALLEE static long long sum_int_long_long_int(int ll0, long long ll1, int ll2) {
    assert_int_equal(ll0, 11111111);
    assert_true(ll1 == 11111111111000LL);
    assert_int_equal(ll2, 11111111);
    return ll0 + ll1 + ll2;
}

/* Restates libffi.call's return_ll.c. */
static void return_ll_returns_small_and_large_long_longs(void **state) {
    (void)state;
    two_paths paths = two_paths_create("qq", -1, DC_FUNCTION(same_long_long));
    const long long starts[] = {0LL, 55555555555000LL};
    for (size_t s = 0; s < ARRAY_COUNT(starts); s++)
        for (long long ll = starts[s]; ll < starts[s] + 100; ll++)
            assert_true(invoke_both(&paths, dc_int64(ll)).i64 == ll);
    two_paths_destroy(&paths);
}

/* Restates libffi.call's return_ll1.c. */
static void return_ll1_long_long_between_two_ints_arrives_and_returns_their_sum(void **state) {
    (void)state;
    dc_value result;
    call_with("qiqi", sum_int_long_long_int, &result, dc_int32(11111111), dc_int64(11111111111000LL),
              dc_int32(11111111));
    assert_true(result.i64 == 11111133333222LL);
}

/* return_sc.c, return_uc.c */
CALLEE static signed char same_signed_char(signed char sc) { return sc; }
CALLEE static unsigned char same_unsigned_char(unsigned char uc) { return uc; }

/* Restates libffi.call's return_sc.c and return_uc.c. */
static void return_sc_and_return_uc_return_every_char(void **state) {
    (void)state;
    two_paths signed_chars = two_paths_create("cc", -1, DC_FUNCTION(same_signed_char));
    two_paths unsigned_chars = two_paths_create("CC", -1, DC_FUNCTION(same_unsigned_char));
    for (int sc = -127; sc < 127; sc++) assert_int_equal(invoke_both(&signed_chars, dc_int8((int8_t)sc)).i8, sc);
    for (int uc = 0; uc < 255; uc++) assert_int_equal(invoke_both(&unsigned_chars, dc_uint8((uint8_t)uc)).u8, uc);
    two_paths_destroy(&signed_chars);
    two_paths_destroy(&unsigned_chars);
}

/* return_sl.c, return_ul.c */
CALLEE static long difference_of_longs(long l1, long l2) {
    assert_true(l1 == 1073741823L);
    assert_true(l2 == 1073741824L);
    return l1 - l2;
}
CALLEE static unsigned long sum_of_unsigned_longs(unsigned long ul1, unsigned long ul2) {
    assert_true(ul1 == 1073741823UL);
    assert_true(ul2 == 1073741824UL);
    return ul1 + ul2;
}

/* A dc_value of C's long or unsigned long, whichever width it has here. */
static dc_value long_value(long l) { return sizeof(long) == 8 ? dc_int64(l) : dc_int32((int32_t)l); }
static dc_value unsigned_long_value(unsigned long ul) {
    return sizeof(long) == 8 ? dc_uint64(ul) : dc_uint32((uint32_t)ul);
}

/* Restates libffi.call's return_sl.c and return_ul.c. */
static void return_sl_and_return_ul_pass_and_return_longs(void **state) {
    (void)state;
    dc_value result;
    call_with(LONG_CODE LONG_CODE LONG_CODE, difference_of_longs, &result, long_value(1073741823L),
              long_value(1073741824L));
    assert_true((sizeof(long) == 8 ? result.i64 : result.i32) == -1);
    call_with(ULONG_CODE ULONG_CODE ULONG_CODE, sum_of_unsigned_longs, &result, unsigned_long_value(1073741823UL),
              unsigned_long_value(1073741824UL));
    assert_true((sizeof(long) == 8 ? result.u64 : result.u32) == 2147483647UL);
}

/* strlen.c, strlen2.c, strlen3.c, strlen4.c */
CALLEE static unsigned int my_strlen(char *s) { return (unsigned int)strlen(s); }
CALLEE static int length_plus_float(char *s, float a) { return (int)strlen(s) + (int)a; }
CALLEE static int float_plus_length(float a, char *s) { return (int)strlen(s) + (int)a; }
CALLEE static int float_plus_length_plus_int(float a, char *s, int i) { return (int)strlen(s) + (int)a + i; }

/* Restates libffi.call's strlen.c, strlen2.c, strlen3.c and strlen4.c. */
static void strlen_to_strlen4_count_strings_among_floats_and_ints(void **state) {
    (void)state;
    char *const strings[] = {"a", "1234567", "1234567890123456789012345"};
    const float floats[] = {0.0f, -1.0f, 1.0f};
    const int ints[] = {1, -2, 2};
    const unsigned int lengths[] = {1, 7, 25};
    const int with_float[] = {1, 6, 26}, with_float_and_int[] = {2, 4, 28};
    for (size_t k = 0; k < 3; k++) {
        dc_value result;
        call_with("I*", my_strlen, &result, dc_string(strings[k]));
        assert_int_equal(result.u32, lengths[k]);
        call_with("i*f", length_plus_float, &result, dc_string(strings[k]), dc_float(floats[k]));
        assert_int_equal(result.i32, with_float[k]);
        call_with("if*", float_plus_length, &result, dc_float(floats[k]), dc_string(strings[k]));
        assert_int_equal(result.i32, with_float[k]);
        call_with("if*i", float_plus_length_plus_int, &result, dc_float(floats[k]), dc_string(strings[k]),
                  dc_int32(ints[k]));
        assert_int_equal(result.i32, with_float_and_int[k]);
    }
}

/* x32.c */
CALLEE static int pointee_or_minus_one(int *a) { return a != NULL ? *a : -1; }

/* Restates libffi.call's x32.c. */
static void x32_a_null_pointer_argument_arrives_null(void **state) {
    (void)state;
    dc_value result;
    call_with("i^i", pointee_or_minus_one, &result, dc_pointer(NULL));
    assert_int_equal(result.i32, -1);
}

/* many2.c */
CALLEE static uint8_t sum_seven(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t e, uint8_t f, uint8_t g) {
    return (uint8_t)(a + b + c + d + e + f + g);
}
CALLEE static uint8_t sum_seven_through_another(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t e, uint8_t f,
                                                uint8_t g) {
    return sum_seven(a, b, c, d, e, f, g);
}

/* Restates libffi.call's many2.c. */
static void many2_seven_uint8_arguments_sum_to_21(void **state) {
    (void)state;
    dc_value result;
    call_with("CCCCCCCC", sum_seven_through_another, &result, dc_uint8(0), dc_uint8(1), dc_uint8(2), dc_uint8(3),
              dc_uint8(4), dc_uint8(5), dc_uint8(6));
    assert_int_equal(result.u8, 21);
}

/* overread.c */
CALLEE static int sum_widening(unsigned char a, unsigned short b, unsigned int c, unsigned long d) {
    return (int)(a + b + c + d);
}

/* overread.c: the arguments are the last values before an inaccessible page,
 * then the first after one; a read past or before them would fault. */
static void overread_arguments_next_to_inaccessible_pages_are_read_no_further(void **state) {
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *pages = mmap(NULL, page * 3, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    assert_true(pages != MAP_FAILED);
    assert_int_equal(mprotect(pages, page, PROT_NONE), 0);
    assert_int_equal(mprotect(pages + page * 2, page, PROT_NONE), 0);
    const dc_value given[] = {dc_uint8(0), dc_uint16(0), dc_uint32(0), unsigned_long_value(0)};
    char *const places[] = {pages + page * 2 - sizeof given, pages + page};
    for (size_t p = 0; p < ARRAY_COUNT(places); p++) {
        dc_value *arguments = (dc_value *)(void *)places[p];
        memcpy(arguments, given, sizeof given);
        dc_value result;
        call_encoded("iCSI" ULONG_CODE, -1, DC_FUNCTION(sum_widening), arguments, 4, &result);
        assert_int_equal(result.i32, 0);
    }
    assert_int_equal(munmap(pages, page * 3), 0);
}

/* longjmp.c */
static jmp_buf back_to_the_test;
static int jumps;

CALLEE static void jump_back(const char *text) {
    (void)text;
    jumps++;
    longjmp(back_to_the_test, 1);
}
CALLEE static void calls_jump_back(const char *text) { jump_back(text); }

/* The call call_jumps_back() makes: a direct one when both are NULL, by
 * dc_call with the signature alone, else by the invocation. */
static dc_signature *jumping_signature;
static dc_invocation *jumping_invocation;

static void make_the_jumping_call(void) {
    if (jumping_signature == NULL) {
        calls_jump_back("direct call");
    } else if (jumping_invocation == NULL) {
        (void)dc_call(jumping_signature, DC_FUNCTION(calls_jump_back),
                      (dc_value[]){dc_string("through dc_call")}, 1, NULL);
    } else {
        assert_ok(dc_invocation_set_argument(jumping_invocation, 0, VALUE(dc_string("through an invocation"))));
        (void)dc_invocation_invoke(jumping_invocation);
    }
}

/* Whether the call jumped back to here. What the call needs is in statics,
 * so no local of a frame that setjmp returns to twice is read after it. */
static bool call_jumps_back(dc_signature *signature, dc_invocation *invocation) {
    jumping_signature = signature;
    jumping_invocation = invocation;
    if (setjmp(back_to_the_test) != 0) return true;
    make_the_jumping_call();
    return false;
}

/* Restates libffi.call's longjmp.c: out of a direct call, a dc_call and an
 * invocation on each path (libffi's frames among them on every ABI). */
static void longjmp_out_of_a_call_returns_to_the_caller_and_calls_go_on(void **state) {
    (void)state;
    dc_signature *signature = create_signature("v*");
    two_paths paths = two_paths_of(signature, DC_FUNCTION(calls_jump_back));
    jumps = 0;
    assert_true(call_jumps_back(NULL, NULL));
    assert_true(call_jumps_back(signature, NULL));
    assert_true(call_jumps_back(signature, paths.own));
    assert_true(call_jumps_back(signature, paths.libffi));
    assert_int_equal(jumps, 4);
    two_paths_destroy(&paths);
    dc_value result;
    call_with("ff", twice_float, &result, dc_float(2.5f));
    assert_true(result.f == 5.0f);
    dc_signature_release(signature);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(int_double_int_double_returns_the_float_a_direct_call_returns),
        cmocka_unit_test(bpo_38748_uint32_after_uint64_keeps_its_alignment),
        cmocka_unit_test(err_bad_typedef_a_return_type_outside_dc_type_is_a_bad_signature),
        cmocka_unit_test(float1_double_return_of_a_float_argument_leaves_the_next_value_alone),
        cmocka_unit_test(float4_denormal_double_returns_unchanged),
        cmocka_unit_test(negint_negative_int_short_and_char_arrive_negative),
        cmocka_unit_test(promotion_sums_every_narrow_signed_and_unsigned_combination),
        cmocka_unit_test(return_dbl_and_return_fl_double_each_value_up_to_127),
        cmocka_unit_test(return_dbl1_and_return_dbl2_sum_doubles_a_float_and_an_unsigned),
        cmocka_unit_test(return_fl1_fl2_and_fl3_sum_floats_and_an_unsigned),
        cmocka_unit_test(return_ll_returns_small_and_large_long_longs),
        cmocka_unit_test(return_ll1_long_long_between_two_ints_arrives_and_returns_their_sum),
        cmocka_unit_test(return_sc_and_return_uc_return_every_char),
        cmocka_unit_test(return_sl_and_return_ul_pass_and_return_longs),
        cmocka_unit_test(strlen_to_strlen4_count_strings_among_floats_and_ints),
        cmocka_unit_test(x32_a_null_pointer_argument_arrives_null),
        cmocka_unit_test(many2_seven_uint8_arguments_sum_to_21),
        cmocka_unit_test(overread_arguments_next_to_inaccessible_pages_are_read_no_further),
        cmocka_unit_test(longjmp_out_of_a_call_returns_to_the_caller_and_calls_go_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
