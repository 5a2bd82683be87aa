/*
 * test_libffi_closures_scalars.c — libffi's testsuite/libffi.closures cases
 * of scalar arguments and returns, restated against the public API: sixteen
 * mixed arguments past the registers (closure_fn0 to closure_fn6,
 * closure_loc_fn0), narrow integers one at a time and several together, float,
 * double, long long and pointer returns, many mixed float, double and long
 * arguments, and the two small struct cases problem1 and testclosure. Each
 * closure is called from C through dc_closure_function() cast to its C type,
 * and again with dc_call(); its handler checks every argument it reads
 * against the values the caller passed. Each test names the libffi file(s) it
 * restates; libffi_closures_cases.txt lists them all.
 */
#include "test_support.h"

#include <float.h>

/* The user data libffi's closure_fn and closure_simple cases give their
 * handler, which adds it to the sum it returns. */
enum { LIBFFI_USER_DATA = 3 };

/* ---- one handler that sums what it receives ------------------------------------------------- */

/*
 * What a summing closure's handler expects: the arguments each call passes,
 * exactly (type and bits), and the user data it adds to an integer sum. The
 * handler counts its calls.
 */
typedef struct summed_call {
    const char *libffi_file; /* names a failure */
    int user_data;
    int calls;
    size_t count;
    dc_value arguments[16];
} summed_call;

/* What an argument adds to the sum: an integer its value, a float or double
 * its value, or truncated toward zero (as libffi's handlers cast each to int)
 * when `truncate` is set. */
static double addend(dc_value argument, bool truncate) {
    double x;
    if (argument.type == DC_TYPE_FLOAT) {
        x = argument.f;
    } else if (argument.type == DC_TYPE_DOUBLE) {
        x = argument.d;
    } else {
        dc_value wide;
        assert_ok(dc_value_convert(&argument, DC_TYPE_INT64, &wide));
        return (double)wide.i64;
    }
    return truncate ? (double)(int64_t)x : x;
}

/*
 * A forward handler that checks each argument against the summed_call in
 * user_data and returns their sum: a floating-point return the exact sum, an
 * integer return the sum of the arguments each truncated to an integer plus
 * the user data, as libffi's handlers compute theirs.
 */
static void sum_the_arguments(dc_invocation *call, void *user_data) {
    summed_call *expected = user_data;
    expected->calls++;
    dc_signature *signature = dc_invocation_signature(call);
    assert_int_equal(dc_signature_parameter_count(signature), expected->count);
    dc_type return_type = dc_signature_return_type(signature);
    bool floating = return_type == DC_TYPE_FLOAT || return_type == DC_TYPE_DOUBLE;
    double sum = floating ? 0 : expected->user_data;
    for (size_t i = 0; i < expected->count; i++) {
        dc_value argument;
        assert_ok(dc_invocation_get_argument(call, i, &argument));
        char context[96];
        snprintf(context, sizeof context, "%s, argument %zu of the closure's call", expected->libffi_file, i);
        assert_value_equal(expected->arguments[i], argument, context);
        sum += addend(argument, !floating);
    }
    dc_value wide = floating ? dc_double(sum) : dc_int64((int64_t)sum), result;
    assert_ok(dc_value_convert(&wide, return_type, &result));
    assert_ok(dc_invocation_set_return_value(call, &result));
}

/* A closure of `encoding` whose calls go to sum_the_arguments with `expected`. */
static dc_closure *summing_closure(const char *encoding, summed_call *expected) {
    return create_closure(encoding, sum_the_arguments, expected);
}

/*
 * Calls the closure once more with dc_call() and the expected arguments (a
 * call through libffi into libffi's closure), checks that it returns
 * `expected_return` and that the handler ran once for each of the
 * `c_calls` calls from C and once for this one, and destroys the closure.
 */
static void call_with_dc_call_and_destroy(dc_closure *closure, summed_call *expected, int c_calls,
                                          dc_value expected_return) {
    dc_value result;
    assert_ok(dc_call(dc_closure_signature(closure), dc_closure_function(closure), expected->arguments,
                      expected->count, &result));
    assert_value_equal(expected_return, result, expected->libffi_file);
    assert_int_equal(expected->calls, c_calls + 1);
    dc_closure_destroy(closure);
}

/* Calls `callee` with dc_call() and the expected arguments, as libffi's test
 * calls it with ffi_call, checks that it returns `expected_return`, and
 * makes the summing closure of the same signature. */
static dc_closure *summing_closure_after_calling(const char *encoding, summed_call *expected, dc_function callee,
                                                 dc_value expected_return) {
    dc_value result;
    call_encoded(encoding, -1, callee, expected->arguments, expected->count, &result);
    assert_value_equal(expected_return, result, expected->libffi_file);
    return summing_closure(encoding, expected);
}

/* ---- closure_fn0 to closure_fn6, closure_loc_fn0: sixteen arguments -------------------------- */

typedef int (*long_long_int_short_double_float)(unsigned long long, int, unsigned long long, int, short,
                                                unsigned long long, int, int, double, int, int, float, int,
                                                int, int, int);
#define LONG_LONG_INT_SHORT_DOUBLE_FLOAT "iQiQisQiidiifiiii"

/* closure_fn0.c's and closure_loc_fn0.c's arguments, as its handler receives them. */
static summed_call long_long_int_short_double_float_call(const char *libffi_file) {
    return (summed_call){libffi_file, LIBFFI_USER_DATA, 0, 16,
                         {dc_uint64(1), dc_int32(2), dc_uint64(3), dc_int32(4), dc_int16(127), dc_uint64(429),
                          dc_int32(7), dc_int32(8), dc_double(9.5), dc_int32(10), dc_int32(11), dc_float(12),
                          dc_int32(13), dc_int32(19), dc_int32(21), dc_int32(1)}};
}

/* Restates libffi.closures' closure_fn0.c. */
static void a_closure_reads_sixteen_long_long_int_short_double_and_float_arguments(void **state) {
    (void)state;
    summed_call expected = long_long_int_short_double_float_call("closure_fn0.c");
    dc_closure *closure = summing_closure(LONG_LONG_INT_SHORT_DOUBLE_FLOAT, &expected);
    long_long_int_short_double_float f = (long_long_int_short_double_float)dc_closure_function(closure);
    assert_int_equal(f(1, 2, 3, 4, 127, 429, 7, 8, 9.5, 10, 11, 12, 13, 19, 21, 1), 680);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_int32(680));
}

/* Restates libffi.closures' closure_loc_fn0.c, whose closure is called at the
 * code location ffi_closure_alloc gave: here the one function a closure hands
 * out, the same each time it is asked, for the closure's whole life. */
static void a_closure_is_called_at_the_one_address_it_hands_out(void **state) {
    (void)state;
    summed_call expected = long_long_int_short_double_float_call("closure_loc_fn0.c");
    dc_closure *closure = summing_closure(LONG_LONG_INT_SHORT_DOUBLE_FLOAT, &expected);
    dc_function code = dc_closure_function(closure);
    assert_non_null(code);
    assert_int_equal(((long_long_int_short_double_float)code)(1, 2, 3, 4, 127, 429, 7, 8, 9.5, 10, 11, 12, 13,
                                                             19, 21, 1),
                     680);
    assert_ptr_equal(dc_closure_function(closure), code);
    assert_int_equal(((long_long_int_short_double_float)dc_closure_function(closure))(1, 2, 3, 4, 127, 429, 7, 8,
                                                                                     9.5, 10, 11, 12, 13, 19, 21,
                                                                                     1),
                     680);
    call_with_dc_call_and_destroy(closure, &expected, 2, dc_int32(680));
}

/* Restates libffi.closures' closure_fn1.c. */
static void a_closure_reads_sixteen_arguments_led_by_four_floats(void **state) {
    (void)state;
    summed_call expected = {"closure_fn1.c", LIBFFI_USER_DATA, 0, 16,
                            {dc_float(1.1f), dc_float(2.2f), dc_float(3.3f), dc_float(4.4f), dc_int16(127),
                             dc_float(5.5f), dc_float(6.6f), dc_int32(8), dc_double(9), dc_int32(10), dc_int32(11),
                             dc_float(12), dc_int32(13), dc_int32(19), dc_int32(21), dc_int32(1)}};
    dc_closure *closure = summing_closure("iffffsffidiifiiii", &expected);
    int (*f)(float, float, float, float, short, float, float, int, double, int, int, float, int, int, int, int) =
        (int (*)(float, float, float, float, short, float, float, int, double, int, int, float, int, int, int,
                 int))dc_closure_function(closure);
    assert_int_equal(f(1.1f, 2.2f, 3.3f, 4.4f, 127, 5.5f, 6.6f, 8, 9, 10, 11, 12.0f, 13, 19, 21, 1), 255);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_int32(255));
}

/* Restates libffi.closures' closure_fn2.c. */
static void a_closure_reads_sixteen_arguments_led_by_four_doubles(void **state) {
    (void)state;
    summed_call expected = {"closure_fn2.c", LIBFFI_USER_DATA, 0, 16,
                            {dc_double(1), dc_double(2), dc_double(3), dc_double(4), dc_int16(127), dc_double(5),
                             dc_double(6), dc_int32(8), dc_double(9), dc_int32(10), dc_int32(11), dc_float(12),
                             dc_int32(13), dc_float(19), dc_int32(21), dc_int32(1)}};
    dc_closure *closure = summing_closure("iddddsddidiififii", &expected);
    int (*f)(double, double, double, double, short, double, double, int, double, int, int, float, int, float, int,
             int) = (int (*)(double, double, double, double, short, double, double, int, double, int, int, float,
                             int, float, int, int))dc_closure_function(closure);
    assert_int_equal(f(1, 2, 3, 4, 127, 5, 6, 8, 9, 10, 11, 12.0f, 13, 19.0f, 21, 1), 255);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_int32(255));
}

/* Restates libffi.closures' closure_fn3.c. */
static void a_closure_reads_sixteen_arguments_mostly_floats(void **state) {
    (void)state;
    summed_call expected = {"closure_fn3.c", LIBFFI_USER_DATA, 0, 16,
                            {dc_float(1.1f), dc_float(2.2f), dc_float(3.3f), dc_float(4.4f), dc_float(5.5f),
                             dc_float(6.6f), dc_float(7.7f), dc_float(8.8f), dc_double(9), dc_int32(10),
                             dc_float(11.11f), dc_float(12), dc_int32(13), dc_float(19.19f), dc_float(21.21f),
                             dc_int32(1)}};
    dc_closure *closure = summing_closure("iffffffffdiffiffi", &expected);
    int (*f)(float, float, float, float, float, float, float, float, double, int, float, float, int, float, float,
             int) = (int (*)(float, float, float, float, float, float, float, float, double, int, float, float,
                             int, float, float, int))dc_closure_function(closure);
    assert_int_equal(
        f(1.1f, 2.2f, 3.3f, 4.4f, 5.5f, 6.6f, 7.7f, 8.8f, 9, 10, 11.11f, 12.0f, 13, 19.19f, 21.21f, 1), 135);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_int32(135));
}

/* Restates libffi.closures' closure_fn4.c. */
static void a_closure_reads_fifteen_long_longs_and_an_int(void **state) {
    (void)state;
    summed_call expected = {"closure_fn4.c", LIBFFI_USER_DATA, 0, 16,
                            {dc_uint64(1), dc_uint64(2), dc_uint64(3), dc_uint64(4), dc_uint64(127),
                             dc_uint64(429), dc_uint64(7), dc_uint64(8), dc_uint64(9), dc_uint64(10), dc_uint64(11),
                             dc_uint64(12), dc_uint64(13), dc_uint64(19), dc_uint64(21), dc_int32(1)}};
    dc_closure *closure = summing_closure("iQQQQQQQQQQQQQQQi", &expected);
    typedef unsigned long long ull;
    int (*f)(ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, int) =
        (int (*)(ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, ull,
                 int))dc_closure_function(closure);
    assert_int_equal(f(1, 2, 3, 4, 127, 429, 7, 8, 9, 10, 11, 12, 13, 19, 21, 1), 680);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_int32(680));
}

/* Restates libffi.closures' closure_fn5.c. */
static void a_closure_reads_an_int_between_long_longs_past_the_registers(void **state) {
    (void)state;
    summed_call expected = {"closure_fn5.c", LIBFFI_USER_DATA, 0, 16,
                            {dc_uint64(1), dc_uint64(2), dc_uint64(3), dc_uint64(4), dc_uint64(127),
                             dc_uint64(429), dc_uint64(7), dc_uint64(8), dc_uint64(9), dc_uint64(10), dc_int32(11),
                             dc_uint64(12), dc_uint64(13), dc_uint64(19), dc_uint64(21), dc_int32(1)}};
    dc_closure *closure = summing_closure("iQQQQQQQQQQiQQQQi", &expected);
    typedef unsigned long long ull;
    int (*f)(ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, int, ull, ull, ull, ull, int) =
        (int (*)(ull, ull, ull, ull, ull, ull, ull, ull, ull, ull, int, ull, ull, ull, ull,
                 int))dc_closure_function(closure);
    assert_int_equal(f(1, 2, 3, 4, 127, 429, 7, 8, 9, 10, 11, 12, 13, 19, 21, 1), 680);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_int32(680));
}

/* Restates libffi.closures' closure_fn6.c. */
static void a_closure_reads_long_longs_then_ints_floats_and_doubles_interleaved(void **state) {
    (void)state;
    summed_call expected = {"closure_fn6.c", LIBFFI_USER_DATA, 0, 16,
                            {dc_uint64(1), dc_uint64(2), dc_uint64(3), dc_uint64(4), dc_int32(127),
                             dc_double(429), dc_double(7), dc_float(8), dc_double(9.5), dc_double(10), dc_int32(11),
                             dc_float(12), dc_int32(13), dc_int32(19), dc_double(21), dc_double(1)}};
    dc_closure *closure = summing_closure("iQQQQiddfddifiidd", &expected);
    typedef unsigned long long ull;
    int (*f)(ull, ull, ull, ull, int, double, double, float, double, double, int, float, int, int, double,
             double) = (int (*)(ull, ull, ull, ull, int, double, double, float, double, double, int, float, int,
                                int, double, double))dc_closure_function(closure);
    assert_int_equal(f(1, 2, 3, 4, 127, 429., 7., 8.f, 9.5, 10., 11, 12.f, 13, 19, 21., 1.), 680);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_int32(680));
}

/* Restates libffi.closures' closure_simple.c. */
static void a_closure_of_four_ints_adds_its_user_data_to_their_sum(void **state) {
    (void)state;
    summed_call expected = {"closure_simple.c", LIBFFI_USER_DATA, 0, 4,
                            {dc_uint32(0), dc_uint32(1), dc_uint32(2), dc_uint32(3)}};
    dc_closure *closure = summing_closure("iIIII", &expected);
    int (*f)(int, int, int, int) = (int (*)(int, int, int, int))dc_closure_function(closure);
    assert_int_equal(f(0, 1, 2, 3), 9);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_int32(9));
}

/* ---- cls_double, cls_float, cls_schar, ...: one argument returned ------------------------------ */

/* Checks that a closure of `ctype` (encoded `code`) receives `value` as
 * `constructor` makes it, and returns it to its C caller and to dc_call(). */
#define ASSERT_A_CLOSURE_RECEIVES_AND_RETURNS(libffi_file, ctype, code, constructor, value)                     \
    do {                                                                                                    \
        summed_call expected = {libffi_file, 0, 0, 1, {constructor(value)}};                                \
        dc_closure *closure = summing_closure(code code, &expected);                                        \
        ctype result = ((ctype(*)(ctype))dc_closure_function(closure))(value);                              \
        assert_value_equal(constructor(value), constructor(result), libffi_file);                          \
        call_with_dc_call_and_destroy(closure, &expected, 1, constructor(value));                           \
    } while (0)

/* Restates libffi.closures' cls_double.c. */
static void a_closure_receives_and_returns_a_double(void **state) {
    (void)state;
    ASSERT_A_CLOSURE_RECEIVES_AND_RETURNS("cls_double.c", double, "d", dc_double, 21474.789);
}

/* Restates libffi.closures' cls_float.c. */
static void a_closure_receives_and_returns_a_float(void **state) {
    (void)state;
    ASSERT_A_CLOSURE_RECEIVES_AND_RETURNS("cls_float.c", float, "f", dc_float, -2122.12f);
}

/* Restates libffi.closures' cls_schar.c. */
static void a_closure_receives_and_returns_a_signed_char(void **state) {
    (void)state;
    ASSERT_A_CLOSURE_RECEIVES_AND_RETURNS("cls_schar.c", signed char, "c", dc_int8, 127);
}

/* Restates libffi.closures' cls_sint.c. */
static void a_closure_receives_and_returns_an_int(void **state) {
    (void)state;
    ASSERT_A_CLOSURE_RECEIVES_AND_RETURNS("cls_sint.c", int, "i", dc_int32, 65534);
}

/* Restates libffi.closures' cls_sshort.c. */
static void a_closure_receives_and_returns_a_short(void **state) {
    (void)state;
    ASSERT_A_CLOSURE_RECEIVES_AND_RETURNS("cls_sshort.c", short, "s", dc_int16, 255);
}

/* Restates libffi.closures' cls_uchar.c. */
static void a_closure_receives_and_returns_an_unsigned_char(void **state) {
    (void)state;
    ASSERT_A_CLOSURE_RECEIVES_AND_RETURNS("cls_uchar.c", unsigned char, "C", dc_uint8, 127);
}

/* Restates libffi.closures' cls_uint.c. */
static void a_closure_receives_and_returns_an_unsigned_int(void **state) {
    (void)state;
    ASSERT_A_CLOSURE_RECEIVES_AND_RETURNS("cls_uint.c", unsigned int, "I", dc_uint32, 2147483647);
}

/* Restates libffi.closures' cls_ushort.c. */
static void a_closure_receives_and_returns_an_unsigned_short(void **state) {
    (void)state;
    ASSERT_A_CLOSURE_RECEIVES_AND_RETURNS("cls_ushort.c", unsigned short, "S", dc_uint16, 65535);
}

/* cls_ulonglong.c's handler: its argument with the low 60 bits flipped. */
static const uint64_t LOW_SIXTY_BITS = 0x0fffffffffffffffULL;

static void flip_the_low_sixty_bits(dc_invocation *call, void *user_data) {
    const uint64_t *expected = user_data;
    dc_value argument;
    assert_ok(dc_invocation_get_argument(call, 0, &argument));
    assert_value_equal(dc_uint64(*expected), argument, "cls_ulonglong.c, the closure's argument");
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_uint64(argument.u64 ^ LOW_SIXTY_BITS))));
}

/* Restates libffi.closures' cls_ulonglong.c. */
static void a_closure_receives_and_returns_an_unsigned_long_long(void **state) {
    (void)state;
    uint64_t expected = 214;
    dc_closure *closure = create_closure("QQ", flip_the_low_sixty_bits, &expected);
    typedef unsigned long long ull;
    ull (*f)(ull) = (ull(*)(ull))dc_closure_function(closure);
    assert_true(f(214) == 1152921504606846761ULL);
    expected = 9223372035854775808ULL;
    assert_true(f(9223372035854775808ULL) == 8070450533247928831ULL);
    dc_value result;
    assert_ok(dc_call(dc_closure_signature(closure), dc_closure_function(closure), VALUE(dc_uint64(expected)), 1,
                      &result));
    assert_value_equal(dc_uint64(8070450533247928831ULL), result, "cls_ulonglong.c through dc_call");
    dc_closure_destroy(closure);
}

/* ---- cls_multi_*: narrow integers summed ------------------------------------------------------ */

CALLEE static signed char add_signed_chars(signed char a1, signed char a2) { return (signed char)(a1 + a2); }
CALLEE static short add_shorts(short a1, short a2) { return (short)(a1 + a2); }
CALLEE static short add_signed_chars_and_shorts(signed char a1, short a2, signed char a3, short a4) {
    return (short)(a1 + a2 + a3 + a4);
}
CALLEE static unsigned char add_unsigned_chars(unsigned char a1, unsigned char a2, unsigned char a3,
                                               unsigned char a4) {
    return (unsigned char)(a1 + a2 + a3 + a4);
}
CALLEE static unsigned short add_unsigned_shorts(unsigned short a1, unsigned short a2) {
    return (unsigned short)(a1 + a2);
}
CALLEE static unsigned short add_unsigned_chars_and_shorts(unsigned char a1, unsigned short a2, unsigned char a3,
                                                           unsigned short a4) {
    return (unsigned short)(a1 + a2 + a3 + a4);
}

/* Restates libffi.closures' cls_multi_schar.c. */
static void a_closure_sums_two_signed_chars_to_the_largest_one(void **state) {
    (void)state;
    summed_call expected = {"cls_multi_schar.c", 0, 0, 2, {dc_int8(2), dc_int8(125)}};
    dc_closure *closure = summing_closure_after_calling("ccc", &expected, DC_FUNCTION(add_signed_chars), dc_int8(127));
    assert_int_equal(((signed char (*)(signed char, signed char))dc_closure_function(closure))(2, 125), 127);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_int8(127));
}

/* Restates libffi.closures' cls_multi_sshort.c. */
static void a_closure_sums_two_shorts_to_the_largest_one(void **state) {
    (void)state;
    summed_call expected = {"cls_multi_sshort.c", 0, 0, 2, {dc_int16(2), dc_int16(32765)}};
    dc_closure *closure = summing_closure_after_calling("sss", &expected, DC_FUNCTION(add_shorts), dc_int16(32767));
    assert_int_equal(((short (*)(short, short))dc_closure_function(closure))(2, 32765), 32767);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_int16(32767));
}

/* Restates libffi.closures' cls_multi_sshortchar.c. */
static void a_closure_sums_signed_chars_and_shorts_in_turn(void **state) {
    (void)state;
    summed_call expected = {"cls_multi_sshortchar.c", 0, 0, 4,
                            {dc_int8(1), dc_int16(32765), dc_int8(127), dc_int16(-128)}};
    dc_closure *closure = summing_closure_after_calling("scscs", &expected, DC_FUNCTION(add_signed_chars_and_shorts),
                                                        dc_int16(32765));
    short (*f)(signed char, short, signed char, short) =
        (short (*)(signed char, short, signed char, short))dc_closure_function(closure);
    assert_int_equal(f(1, 32765, 127, -128), 32765);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_int16(32765));
}

/* Restates libffi.closures' cls_multi_uchar.c. */
static void a_closure_sums_four_unsigned_chars_to_the_largest_one(void **state) {
    (void)state;
    summed_call expected = {"cls_multi_uchar.c", 0, 0, 4, {dc_uint8(1), dc_uint8(2), dc_uint8(127), dc_uint8(125)}};
    dc_closure *closure = summing_closure_after_calling("CCCCC", &expected, DC_FUNCTION(add_unsigned_chars),
                                                        dc_uint8(255));
    unsigned char (*f)(unsigned char, unsigned char, unsigned char, unsigned char) =
        (unsigned char (*)(unsigned char, unsigned char, unsigned char, unsigned char))dc_closure_function(closure);
    assert_int_equal(f(1, 2, 127, 125), 255);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_uint8(255));
}

/* Restates libffi.closures' cls_multi_ushort.c. */
static void a_closure_sums_two_unsigned_shorts(void **state) {
    (void)state;
    summed_call expected = {"cls_multi_ushort.c", 0, 0, 2, {dc_uint16(2), dc_uint16(32765)}};
    dc_closure *closure = summing_closure_after_calling("SSS", &expected, DC_FUNCTION(add_unsigned_shorts),
                                                        dc_uint16(32767));
    assert_int_equal(((unsigned short (*)(unsigned short, unsigned short))dc_closure_function(closure))(2, 32765),
                     32767);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_uint16(32767));
}

/* Restates libffi.closures' cls_multi_ushortchar.c. */
static void a_closure_sums_unsigned_chars_and_shorts_in_turn(void **state) {
    (void)state;
    summed_call expected = {"cls_multi_ushortchar.c", 0, 0, 4,
                            {dc_uint8(1), dc_uint16(2), dc_uint8(127), dc_uint16(128)}};
    dc_closure *closure = summing_closure_after_calling("SCSCS", &expected,
                                                        DC_FUNCTION(add_unsigned_chars_and_shorts), dc_uint16(258));
    unsigned short (*f)(unsigned char, unsigned short, unsigned char, unsigned short) =
        (unsigned short (*)(unsigned char, unsigned short, unsigned char, unsigned short))dc_closure_function(closure);
    assert_int_equal(f(1, 2, 127, 128), 258);
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_uint16(258));
}

/* ---- cls_many_mixed_args, cls_many_mixed_float_double: floating-point sums ------------------- */

/* C's long as a value of its own width, as LONG_CODE encodes it. */
static dc_value long_value(long x) { return sizeof(long) == 8 ? dc_int64(x) : dc_int32((int32_t)x); }

static bool within_float_epsilon(double x, double target) {
    return x - target < FLT_EPSILON && target - x < FLT_EPSILON;
}

/* Restates libffi.closures' cls_many_mixed_args.c. */
static void a_closure_sums_eleven_doubles_and_five_longs(void **state) {
    (void)state;
    summed_call expected = {"cls_many_mixed_args.c", 0, 0, 16,
                            {dc_double(0.1), dc_double(0.2), dc_double(0.3), dc_double(0.4), long_value(5),
                             dc_double(0.6), dc_double(0.7), dc_double(0.8), dc_double(0.9), long_value(10),
                             dc_double(1.1), long_value(12), dc_double(1.3), long_value(14), dc_double(1.5),
                             long_value(16)}};
    dc_closure *closure = summing_closure(
        "ddddd" LONG_CODE "dddd" LONG_CODE "d" LONG_CODE "d" LONG_CODE "d" LONG_CODE, &expected);
    double (*f)(double, double, double, double, long, double, double, double, double, long, double, long, double,
                long, double, long) = (double (*)(double, double, double, double, long, double, double, double,
                                                  double, long, double, long, double, long, double,
                                                  long))dc_closure_function(closure);
    double result = f(0.1, 0.2, 0.3, 0.4, 5, 0.6, 0.7, 0.8, 0.9, 10, 1.1, 12, 1.3, 14, 1.5, 16);
    assert_true(within_float_epsilon(result, 64.9));
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_double(result));
}

/* Restates libffi.closures' cls_many_mixed_float_double.c. */
static void a_closure_sums_doubles_and_floats_interleaved(void **state) {
    (void)state;
    summed_call expected = {"cls_many_mixed_float_double.c", 0, 0, 12,
                            {dc_double(0.1), dc_float(0.2f), dc_double(0.3), dc_double(0.4), dc_double(0.5),
                             dc_double(0.6), dc_double(0.7), dc_float(0.8f), dc_float(0.9f), dc_double(1.0),
                             dc_float(1.1f), dc_float(1.2f)}};
    dc_closure *closure = summing_closure("ddfdddddffdff", &expected);
    double (*f)(double, float, double, double, double, double, double, float, float, double, float, float) =
        (double (*)(double, float, double, double, double, double, double, float, float, double, float,
                    float))dc_closure_function(closure);
    double result = f(0.1, 0.2f, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8f, 0.9f, 1.0, 1.1f, 1.2f);
    assert_true(within_float_epsilon(result, 7.8));
    call_with_dc_call_and_destroy(closure, &expected, 1, dc_double(result));
}

/* ---- cls_pointer, cls_pointer_stack: pointers summed ------------------------------------------ */

/* A pointer made of an address-sized integer, as libffi's tests make theirs. */
static void *address(uintptr_t bits) { return (void *)bits; }

CALLEE static void *add_pointers(void *a1, void *a2) { return address((uintptr_t)a1 + (uintptr_t)a2); }

static volatile long trampled;

CALLEE static long add_long_doubles_and_chars(long double a1, char b1, long double a2, char b2, long double a3,
                                              char b3, long double a4, char b4) {
    return (long)(a1 + b1 + a2 + b2 + a3 + b3 + a4 + b4);
}

/* Fills its frame with long doubles and chars made from the pointers and
 * passes them all to a call (most of them on the stack), as
 * cls_pointer_stack.c does in its handler and callees, so that what a
 * closure keeps on the stack is seen to survive deep calls. */
CALLEE static void trample_the_stack(void *a1, void *a2) {
    uintptr_t low1 = (uintptr_t)a1 & 0xffff, low2 = (uintptr_t)a2 & 0xffff;
    long double t1 = (long double)(low1 + low2);
    char t2 = (char)((low1 & 0xff) + (low2 & 0xff));
    long double t3 = t1 + (long double)low1;
    char t4 = (char)(t2 + (char)(low1 >> 8));
    long double t5 = t3 + (long double)low2;
    char t6 = (char)(t4 + (char)(low2 >> 8));
    long double t7 = t5 + t1;
    char t8 = (char)(t6 + t2);
    trampled = add_long_doubles_and_chars(t1, t2, t3, t4, t5, t6, t7, t8);
}

CALLEE static void *add_pointers_after_trampling(void *a1, void *a2) {
    trample_the_stack(a1, a2);
    return add_pointers(a1, a2);
}

/* cls_pointer_stack.c's callee: the sum of its arguments, plus the first of
 * them once more, each step after the stack is trampled. */
CALLEE static void *add_pointers_and_the_first_again(void *a1, void *a2) {
    trample_the_stack(a1, a2);
    void *sum = add_pointers_after_trampling(a1, a2);
    assert_ptr_equal(sum, address(0x8acf1356u));
    return add_pointers_after_trampling(sum, a1);
}

/* What a pointer-summing closure's handler expects, and the callee it hands
 * its arguments to, as libffi's handlers do. */
typedef struct pointer_pair {
    const char *libffi_file;
    void *arguments[2];
    void *(*callee)(void *, void *);
    bool trample; /* the stack, before reading the arguments */
} pointer_pair;

static void pass_the_pointers_on(dc_invocation *call, void *user_data) {
    const pointer_pair *expected = user_data;
    dc_value a[2];
    for (size_t i = 0; i < 2; i++) {
        if (expected->trample) trample_the_stack(expected->arguments[0], expected->arguments[1]);
        assert_ok(dc_invocation_get_argument(call, i, &a[i]));
        assert_value_equal(dc_pointer(expected->arguments[i]), a[i], expected->libffi_file);
    }
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_pointer(expected->callee(a[0].pointer, a[1].pointer)))));
}

/* Calls the callee with dc_call(), then a closure that passes its arguments
 * on to it from C and with dc_call(); each must return `sum`. */
static void assert_pointers_add_up_to(pointer_pair *pair, void *sum) {
    dc_value arguments[] = {dc_pointer(pair->arguments[0]), dc_pointer(pair->arguments[1])}, result;
    call_encoded("^v^v^v", -1, DC_FUNCTION(pair->callee), arguments, 2, &result);
    assert_value_equal(dc_pointer(sum), result, pair->libffi_file);
    dc_closure *closure = create_closure("^v^v^v", pass_the_pointers_on, pair);
    void *(*f)(void *, void *) = (void *(*)(void *, void *))dc_closure_function(closure);
    assert_ptr_equal(f(pair->arguments[0], pair->arguments[1]), sum);
    assert_ok(dc_call(dc_closure_signature(closure), dc_closure_function(closure), arguments, 2, &result));
    assert_value_equal(dc_pointer(sum), result, pair->libffi_file);
    dc_closure_destroy(closure);
}

/* Restates libffi.closures' cls_pointer.c. */
static void a_closure_receives_two_pointers_and_returns_their_sum(void **state) {
    (void)state;
    pointer_pair pair = {"cls_pointer.c", {address(0x12345678u), address(0x89abcdefu)}, add_pointers, false};
    assert_pointers_add_up_to(&pair, address(0x9be02467u));
}

/* Restates libffi.closures' cls_pointer_stack.c. */
static void a_closure_returns_a_pointer_intact_after_deep_calls_fill_the_stack(void **state) {
    (void)state;
    pointer_pair pair = {"cls_pointer_stack.c", {address(0x01234567u), address(0x89abcdefu)},
                         add_pointers_and_the_first_again, true};
    assert_pointers_add_up_to(&pair, address(0x8bf258bdu));
}

/* ---- testclosure, problem1: small structs of floating point ------------------------------------ */

typedef struct four_floats {
    float a, b, c, d;
} four_floats;
#define FOUR_FLOATS "{cls_struct_combined=ffff}"

static void check_four_floats(dc_invocation *call, void *user_data) {
    int *calls = user_data;
    (*calls)++;
    dc_value argument;
    assert_ok(dc_invocation_get_argument(call, 0, &argument));
    assert_int_equal(argument.type, DC_TYPE_STRUCT);
    const four_floats *received = argument.pointer;
    assert_true(received->a == 4 && received->b == 5 && received->c == 1 && received->d == 8);
}

/* Restates libffi.closures' testclosure.c. */
static void a_closure_returning_void_receives_a_struct_of_four_floats(void **state) {
    (void)state;
    int calls = 0;
    four_floats g = {4, 5, 1, 8};
    dc_closure *closure = create_closure("v" FOUR_FLOATS, check_four_floats, &calls);
    ((void (*)(four_floats))dc_closure_function(closure))(g);
    assert_int_equal(calls, 1);
    assert_ok(dc_call(dc_closure_signature(closure), dc_closure_function(closure), VALUE(dc_struct(&g)), 1, NULL));
    assert_int_equal(calls, 2);
    dc_closure_destroy(closure);
}

typedef struct three_doubles {
    double a, b, c;
} three_doubles;
#define THREE_DOUBLES "{my_ffi_struct=ddd}"

CALLEE static three_doubles add_three_doubles(three_doubles a1, three_doubles a2) {
    return (three_doubles){a1.a + a2.a, a1.b + a2.b, a1.c + a2.c};
}

static void add_two_structs(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value a1, a2;
    assert_ok(dc_invocation_get_argument(call, 0, &a1));
    assert_ok(dc_invocation_get_argument(call, 1, &a2));
    const three_doubles *s1 = a1.pointer, *s2 = a2.pointer;
    assert_true(s1->a == 1 && s1->b == 2 && s1->c == 3);
    assert_true(s2->a == 1 && s2->b == 2 && s2->c == 3);
    three_doubles sum = add_three_doubles(*s1, *s2);
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_struct(&sum))));
}

static void assert_two_four_six(three_doubles r) { assert_true(r.a == 2 && r.b == 4 && r.c == 6); }

/* Restates libffi.closures' problem1.c. */
static void a_closure_returns_the_sum_of_two_structs_of_three_doubles(void **state) {
    (void)state;
    three_doubles g = {1, 2, 3}, f = {1, 2, 3}, r = {0, 0, 0};
    dc_value arguments[] = {dc_struct(&g), dc_struct(&f)}, result = dc_struct(&r);
    call_encoded(THREE_DOUBLES THREE_DOUBLES THREE_DOUBLES, -1, DC_FUNCTION(add_three_doubles), arguments, 2,
                 &result);
    assert_two_four_six(r);
    dc_closure *closure = create_closure(THREE_DOUBLES THREE_DOUBLES THREE_DOUBLES, add_two_structs, NULL);
    assert_two_four_six(((three_doubles(*)(three_doubles, three_doubles))dc_closure_function(closure))(g, f));
    r = (three_doubles){0, 0, 0};
    result = dc_struct(&r);
    assert_ok(dc_call(dc_closure_signature(closure), dc_closure_function(closure), arguments, 2, &result));
    assert_two_four_six(r);
    dc_closure_destroy(closure);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_closure_reads_sixteen_long_long_int_short_double_and_float_arguments),
        cmocka_unit_test(a_closure_is_called_at_the_one_address_it_hands_out),
        cmocka_unit_test(a_closure_reads_sixteen_arguments_led_by_four_floats),
        cmocka_unit_test(a_closure_reads_sixteen_arguments_led_by_four_doubles),
        cmocka_unit_test(a_closure_reads_sixteen_arguments_mostly_floats),
        cmocka_unit_test(a_closure_reads_fifteen_long_longs_and_an_int),
        cmocka_unit_test(a_closure_reads_an_int_between_long_longs_past_the_registers),
        cmocka_unit_test(a_closure_reads_long_longs_then_ints_floats_and_doubles_interleaved),
        cmocka_unit_test(a_closure_of_four_ints_adds_its_user_data_to_their_sum),
        cmocka_unit_test(a_closure_receives_and_returns_a_double),
        cmocka_unit_test(a_closure_receives_and_returns_a_float),
        cmocka_unit_test(a_closure_receives_and_returns_a_signed_char),
        cmocka_unit_test(a_closure_receives_and_returns_an_int),
        cmocka_unit_test(a_closure_receives_and_returns_a_short),
        cmocka_unit_test(a_closure_receives_and_returns_an_unsigned_char),
        cmocka_unit_test(a_closure_receives_and_returns_an_unsigned_int),
        cmocka_unit_test(a_closure_receives_and_returns_an_unsigned_short),
        cmocka_unit_test(a_closure_receives_and_returns_an_unsigned_long_long),
        cmocka_unit_test(a_closure_sums_two_signed_chars_to_the_largest_one),
        cmocka_unit_test(a_closure_sums_two_shorts_to_the_largest_one),
        cmocka_unit_test(a_closure_sums_signed_chars_and_shorts_in_turn),
        cmocka_unit_test(a_closure_sums_four_unsigned_chars_to_the_largest_one),
        cmocka_unit_test(a_closure_sums_two_unsigned_shorts),
        cmocka_unit_test(a_closure_sums_unsigned_chars_and_shorts_in_turn),
        cmocka_unit_test(a_closure_sums_eleven_doubles_and_five_longs),
        cmocka_unit_test(a_closure_sums_doubles_and_floats_interleaved),
        cmocka_unit_test(a_closure_receives_two_pointers_and_returns_their_sum),
        cmocka_unit_test(a_closure_returns_a_pointer_intact_after_deep_calls_fill_the_stack),
        cmocka_unit_test(a_closure_returning_void_receives_a_struct_of_four_floats),
        cmocka_unit_test(a_closure_returns_the_sum_of_two_structs_of_three_doubles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
