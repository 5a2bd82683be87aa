/*
 * test_libffi_closures_nested.c — libffi's testsuite/libffi.closures cases of
 * nested structs, structs of a single entry and large struct returns,
 * restated against the public API: nested_struct*.c (nested_struct5, of a
 * long double, is in test_libffi_closures.c), single_entry_structs*.c and
 * stret_*.c. Each case is a closure of the libffi test's signature, called
 * from C through its function pointer with the test's values: its handler
 * checks every argument it receives, field by field, and sets the result
 * libffi's closure function computes from them; the caller checks the result
 * against the values libffi's test expects. Each case also calls the real
 * function with dc_call, as libffi's test calls it with ffi_call. Each test
 * names the libffi file(s) it restates; libffi_closures_cases.txt lists them.
 */
#include "test_support.h"

#include <math.h>
#include <stdalign.h>
#include <stddef.h>

/* ---- one restated case ---------------------------------------------------------- */

/* Room for the largest argument list and return of these cases. */
#define MOST_ARGUMENTS 8
#define MOST_RETURN_BYTES 256

/*
 * A case of libffi's: its file, its signature, the function its test calls,
 * what its closure function computes from the arguments it receives (as the
 * test's `_gn` function does), the arguments the caller passes and the
 * result the test expects.
 */
typedef struct restated_case {
    const char *file;
    const char *encoding;
    dc_function function;
    void (*answer)(const void *const *arguments, void *result);
    const void *expected;
    const void *const *arguments;
    size_t count;
    int answered; /* calls the closure's handler took */
} restated_case;

/* RESTATED("x.c", "{A=iC}i", fn, answer, &expected, &argument0, ...) */
#define RESTATED(file, encoding, function, answer, expected, ...)                                              \
    ((restated_case){(file), (encoding), DC_FUNCTION(function), (answer), (expected),                         \
                     (const void *const[]){__VA_ARGS__},                                                        \
                     sizeof((const void *const[]){__VA_ARGS__}) / sizeof(const void *), 0})

/* A value of the type `layout` describes, at `bytes` (a struct's address,
 * or a scalar's bytes copied into the value). */
static dc_value value_at(const dc_layout *layout, const void *bytes) {
    if (layout->type == DC_TYPE_STRUCT) return dc_struct((void *)bytes);
    dc_value value = dc_void();
    value.type = layout->type;
    memcpy(&value.u64, bytes, layout->size); /* every member starts the union */
    return value;
}

/* The bytes of a value: where a struct's are, or the scalar in the value. */
static const void *bytes_of(const dc_value *value) {
    return value->type == DC_TYPE_STRUCT ? value->pointer : (const void *)&value->u64;
}

/*
 * Asserts that the thing `layout` describes holds the same at byte `at` of
 * `actual` as of `expected`: every scalar of a struct, each array element
 * apart, its padding skipped. A failure names `context`, the scalar's type
 * and its byte, and both values.
 */
static void assert_same_fields(const char *context, const dc_layout *layout, size_t at,
                               const unsigned char *expected, const unsigned char *actual) {
    size_t element = layout->size / layout->count;
    for (size_t n = 0; n < layout->count; n++) {
        size_t start = at + n * element;
        if (layout->type == DC_TYPE_STRUCT) {
            for (size_t i = 0; i < layout->field_count; i++) {
                dc_layout field;
                assert_ok(dc_layout_field(layout, i, &field));
                assert_same_fields(context, &field, start + field.offset, expected, actual);
            }
        } else if (memcmp(expected + start, actual + start, element) != 0) {
            dc_layout scalar = *layout;
            scalar.size = element;
            char wanted[96], got[96];
            fail_msg("%s, the %s at byte %zu: expected %s, got %s", context, dc_type_name(layout->type), start,
                     dc_test_describe(value_at(&scalar, expected + start), wanted, sizeof wanted),
                     dc_test_describe(value_at(&scalar, actual + start), got, sizeof got));
        }
    }
}

/* Asserts that `result` is the result the case expects; `how` names the call. */
static void assert_expected_result(const restated_case *c, const void *result, const char *how) {
    dc_signature *signature = create_signature(c->encoding);
    dc_layout layout;
    assert_ok(dc_signature_return_layout(signature, &layout));
    char context[160];
    snprintf(context, sizeof context, "%s: the result %s", c->file, how);
    assert_same_fields(context, &layout, 0, c->expected, result);
    dc_signature_release(signature);
}

/* Calls the case's function with dc_call (on both paths where a stub
 * covers it) and checks its result, as libffi's test does after ffi_call. */
static void call_and_check(const restated_case *c) {
    dc_signature *signature = create_signature(c->encoding);
    assert_int_equal(dc_signature_parameter_count(signature), c->count);
    dc_value arguments[MOST_ARGUMENTS];
    for (size_t i = 0; i < c->count; i++) {
        dc_layout layout;
        assert_ok(dc_signature_parameter_layout(signature, i, &layout));
        arguments[i] = value_at(&layout, c->arguments[i]);
    }
    dc_signature_release(signature);
    alignas(max_align_t) unsigned char buffer[MOST_RETURN_BYTES];
    dc_value returned = dc_struct(buffer);
    call_encoded(c->encoding, -1, c->function, arguments, c->count, &returned);
    assert_expected_result(c, bytes_of(&returned), "dc_call returned");
}

/* The closure's handler: checks each argument against the caller's, then
 * sets what libffi's closure function computes from the arguments. */
static void check_arguments_and_answer(dc_invocation *call, void *user_data) {
    restated_case *c = user_data;
    const dc_signature *signature = dc_invocation_signature(call);
    dc_value received[MOST_ARGUMENTS];
    const void *bytes[MOST_ARGUMENTS];
    for (size_t i = 0; i < c->count; i++) {
        dc_layout layout;
        assert_ok(dc_signature_parameter_layout(signature, i, &layout));
        assert_ok(dc_invocation_get_argument(call, i, &received[i]));
        assert_int_equal(received[i].type, layout.type);
        bytes[i] = bytes_of(&received[i]);
        char context[160];
        snprintf(context, sizeof context, "%s: argument %zu as the closure received it", c->file, i);
        assert_same_fields(context, &layout, 0, c->arguments[i], bytes[i]);
    }
    alignas(max_align_t) unsigned char result[MOST_RETURN_BYTES];
    c->answer(bytes, result);
    dc_layout layout;
    assert_ok(dc_signature_return_layout(signature, &layout));
    assert_ok(dc_invocation_set_return_value(call, VALUE(value_at(&layout, result))));
    c->answered++;
}

/* A closure of the case's signature whose handler checks and answers. */
static dc_closure *checking_closure(restated_case *c) {
    assert_true(c->count <= MOST_ARGUMENTS);
    return create_closure(c->encoding, check_arguments_and_answer, c);
}

/* After one call of the closure from C: its handler answered once, and the
 * caller got the expected result. Destroys the closure. */
static void assert_closure_answered(restated_case *c, dc_closure *closure, const void *result) {
    assert_int_equal(c->answered, 1);
    assert_expected_result(c, result, "the closure's caller got");
    dc_closure_destroy(closure);
}

/* ---- nested_struct.c, nested_struct1.c: two 16-byte structs and a struct of both ---- */

typedef struct double_float_int {
    double a;
    float b;
    int c;
} double_float_int;
typedef struct int_double_float {
    int ii;
    double dd;
    float ff;
} int_double_float;
typedef struct both_structs {
    double_float_int d;
    int_double_float e;
} both_structs;

#define DOUBLE_FLOAT_INT "{cls_struct_16byte1=dfi}"
#define INT_DOUBLE_FLOAT "{cls_struct_16byte2=idf}"
#define BOTH_STRUCTS "{cls_struct_combined=" DOUBLE_FLOAT_INT INT_DOUBLE_FLOAT "}"

CALLEE static both_structs combine_three(double_float_int b0, int_double_float b1, both_structs b2) {
    both_structs result;
    result.d.a = b0.a + b1.dd + b2.d.a;
    result.d.b = b0.b + b1.ff + b2.d.b;
    result.d.c = b0.c + b1.ii + b2.d.c;
    result.e.ii = b0.c + b1.ii + b2.e.ii;
    result.e.dd = b0.a + b1.dd + b2.e.dd;
    result.e.ff = b0.b + b1.ff + b2.e.ff;
    return result;
}

static void combine_three_answer(const void *const *arguments, void *result) {
    *(both_structs *)result = combine_three(*(const double_float_int *)arguments[0],
                                            *(const int_double_float *)arguments[1],
                                            *(const both_structs *)arguments[2]);
}

/* The fourth argument is not used: nested_struct1.c only prints it. */
CALLEE static both_structs combine_four(double_float_int b0, int_double_float b1, both_structs b2,
                                        double_float_int b3) {
    (void)b3;
    return combine_three(b0, b1, b2);
}

static void combine_four_answer(const void *const *arguments, void *result) {
    *(both_structs *)result =
        combine_four(*(const double_float_int *)arguments[0], *(const int_double_float *)arguments[1],
                     *(const both_structs *)arguments[2], *(const double_float_int *)arguments[3]);
}

/* nested_struct.c */
static void a_closure_receives_two_sixteen_byte_structs_and_a_struct_of_both(void **state) {
    (void)state;
    double_float_int e = {9.0, 2.0f, 6};
    int_double_float f = {1, 2.0, 3.0f};
    both_structs g = {{4.0, 5.0f, 6}, {3, 1.0, 8.0f}};
    both_structs expected = {{15.0, 10.0f, 13}, {10, 12.0, 13.0f}};
    restated_case c = RESTATED("nested_struct.c", BOTH_STRUCTS DOUBLE_FLOAT_INT INT_DOUBLE_FLOAT BOTH_STRUCTS,
                               combine_three, combine_three_answer, &expected, &e, &f, &g);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    both_structs result = ((both_structs(*)(double_float_int, int_double_float, both_structs))dc_closure_function(
        closure))(e, f, g);
    assert_closure_answered(&c, closure, &result);
}

/* nested_struct1.c */
static void a_closure_receives_a_struct_of_two_structs_between_sixteen_byte_structs(void **state) {
    (void)state;
    double_float_int e = {9.0, 2.0f, 6}, h = {3.0, 2.0f, 4};
    int_double_float f = {1, 2.0, 3.0f};
    both_structs g = {{4.0, 5.0f, 6}, {3, 1.0, 8.0f}};
    both_structs expected = {{15.0, 10.0f, 13}, {10, 12.0, 13.0f}};
    restated_case c = RESTATED("nested_struct1.c",
                               BOTH_STRUCTS DOUBLE_FLOAT_INT INT_DOUBLE_FLOAT BOTH_STRUCTS DOUBLE_FLOAT_INT,
                               combine_four, combine_four_answer, &expected, &e, &f, &g, &h);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    both_structs result = ((both_structs(*)(double_float_int, int_double_float, both_structs,
                                            double_float_int))dc_closure_function(closure))(e, f, g, h);
    assert_closure_answered(&c, closure, &result);
}

/* ---- nested_struct2.c, 3, 4, 7: {T a; char b} beside {{T a; char b} x; char y} ---------- */

/*
 * NESTED_PAIR(name, T, CODE): the struct `name` {T a; unsigned char b}, the
 * struct name##_nested {name x; unsigned char y}, libffi's B_fn of them
 * (name##_combine: name##_nested (name, name##_nested)), its answer for a
 * closure, and name##_encoding, the signature's encoding.
 */
#define NESTED_PAIR(name, T, CODE)                                                                            \
    typedef struct name {                                                                                     \
        T a;                                                                                                  \
        unsigned char b;                                                                                      \
    } name;                                                                                                   \
    typedef struct name##_nested {                                                                            \
        name x;                                                                                               \
        unsigned char y;                                                                                      \
    } name##_nested;                                                                                          \
    CALLEE static name##_nested name##_combine(name b0, name##_nested b1) {                                   \
        name##_nested result;                                                                                 \
        result.x.a = b0.a + b1.x.a;                                                                           \
        result.x.b = (unsigned char)(b0.b + b1.x.b + b1.y);                                                   \
        result.y = (unsigned char)(b0.b + b1.x.b);                                                            \
        return result;                                                                                        \
    }                                                                                                         \
    static void name##_answer(const void *const *arguments, void *result) {                                   \
        *(name##_nested *)result =                                                                            \
            name##_combine(*(const name *)arguments[0], *(const name##_nested *)arguments[1]);                \
    }                                                                                                         \
    static const char name##_encoding[] = "{B={A=" CODE "C}C}{A=" CODE "C}{B={A=" CODE "C}C}";

NESTED_PAIR(ulong_char, unsigned long, ULONG_CODE)
NESTED_PAIR(ulonglong_char, unsigned long long, "Q")
NESTED_PAIR(double_char, double, "d")

/* nested_struct2.c */
static void a_closure_returns_a_struct_nesting_an_unsigned_long_and_a_char(void **state) {
    (void)state;
    ulong_char e = {1, 7};
    ulong_char_nested f = {{12, 127}, 99}, expected = {{13, 233}, 134};
    restated_case c = RESTATED("nested_struct2.c", ulong_char_encoding, ulong_char_combine, ulong_char_answer,
                               &expected, &e, &f);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    ulong_char_nested result =
        ((ulong_char_nested(*)(ulong_char, ulong_char_nested))dc_closure_function(closure))(e, f);
    assert_closure_answered(&c, closure, &result);
}

/* nested_struct3.c and nested_struct7.c, the same case (nested_struct7.c
 * writes 12 as 12.0 and checks each value twice). */
static void a_closure_returns_a_struct_nesting_an_unsigned_long_long_and_a_char(void **state) {
    (void)state;
    ulonglong_char e = {1, 7};
    ulonglong_char_nested f = {{12, 127}, 99}, expected = {{13, 233}, 134};
    restated_case c = RESTATED("nested_struct3.c and nested_struct7.c", ulonglong_char_encoding,
                               ulonglong_char_combine, ulonglong_char_answer, &expected, &e, &f);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    ulonglong_char_nested result =
        ((ulonglong_char_nested(*)(ulonglong_char, ulonglong_char_nested))dc_closure_function(closure))(e, f);
    assert_closure_answered(&c, closure, &result);
}

/* nested_struct4.c */
static void a_closure_returns_a_struct_nesting_a_double_and_a_char(void **state) {
    (void)state;
    double_char e = {1.0, 7};
    double_char_nested f = {{12.0, 127}, 99}, expected = {{13.0, 233}, 134};
    restated_case c = RESTATED("nested_struct4.c", double_char_encoding, double_char_combine, double_char_answer,
                               &expected, &e, &f);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    double_char_nested result =
        ((double_char_nested(*)(double_char, double_char_nested))dc_closure_function(closure))(e, f);
    assert_closure_answered(&c, closure, &result);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_closure_receives_two_sixteen_byte_structs_and_a_struct_of_both),
        cmocka_unit_test(a_closure_receives_a_struct_of_two_structs_between_sixteen_byte_structs),
        cmocka_unit_test(a_closure_returns_a_struct_nesting_an_unsigned_long_and_a_char),
        cmocka_unit_test(a_closure_returns_a_struct_nesting_an_unsigned_long_long_and_a_char),
        cmocka_unit_test(a_closure_returns_a_struct_nesting_a_double_and_a_char),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
