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

/* ---- nested_struct6.c, 8, 9: a nested struct between two structs of two fields ------------ */

/*
 * NESTED_TRIPLE(name, TA, A, TB, B, TD, D): the structs `name` {TA a; TB b},
 * name##_nested {name x; unsigned char y} and name##_last {TD d; unsigned
 * char e} (A, B and D the codes of TA, TB and TD), libffi's B_fn of them
 * (name##_combine: name##_nested (name, name##_nested, name##_last)), its
 * answer for a closure, and name##_encoding, the signature's encoding.
 */
#define NESTED_TRIPLE(name, TA, A, TB, B, TD, D)                                                              \
    typedef struct name {                                                                                     \
        TA a;                                                                                                 \
        TB b;                                                                                                 \
    } name;                                                                                                   \
    typedef struct name##_nested {                                                                            \
        name x;                                                                                               \
        unsigned char y;                                                                                      \
    } name##_nested;                                                                                          \
    typedef struct name##_last {                                                                              \
        TD d;                                                                                                 \
        unsigned char e;                                                                                      \
    } name##_last;                                                                                            \
    CALLEE static name##_nested name##_combine(name b2, name##_nested b3, name##_last b4) {                   \
        name##_nested result;                                                                                 \
        result.x.a = (TA)(b2.a + b3.x.a + b4.d);                                                              \
        result.x.b = (TB)(b2.b + b3.x.b + b3.y + b4.e);                                                       \
        result.y = (unsigned char)(b2.b + b3.x.b + b4.e);                                                     \
        return result;                                                                                        \
    }                                                                                                         \
    static void name##_answer(const void *const *arguments, void *result) {                                   \
        *(name##_nested *)result = name##_combine(*(const name *)arguments[0],                                \
                                                  *(const name##_nested *)arguments[1],                       \
                                                  *(const name##_last *)arguments[2]);                        \
    }                                                                                                         \
    static const char name##_encoding[] =                                                                     \
        "{B={A=" A B "}C}{A=" A B "}{B={A=" A B "}C}{C=" D "C}";

NESTED_TRIPLE(double_then_char, double, "d", unsigned char, "C", long, LONG_CODE)
NESTED_TRIPLE(ulonglong_then_char, unsigned long long, "Q", unsigned char, "C", unsigned long long, "Q")
NESTED_TRIPLE(char_then_ulonglong, unsigned char, "C", unsigned long long, "Q", unsigned long, ULONG_CODE)

/* nested_struct6.c */
static void a_closure_receives_a_nested_double_struct_and_a_struct_of_a_long_and_a_char(void **state) {
    (void)state;
    double_then_char e = {1.0, 7};
    double_then_char_nested f = {{12.0, 127}, 99}, expected = {{15.0, 242}, 143};
    double_then_char_last g = {2, 9};
    restated_case c = RESTATED("nested_struct6.c", double_then_char_encoding, double_then_char_combine,
                               double_then_char_answer, &expected, &e, &f, &g);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    double_then_char_nested result =
        ((double_then_char_nested(*)(double_then_char, double_then_char_nested,
                                     double_then_char_last))dc_closure_function(closure))(e, f, g);
    assert_closure_answered(&c, closure, &result);
}

/* nested_struct8.c */
static void a_closure_receives_three_structs_of_an_unsigned_long_long_then_a_char(void **state) {
    (void)state;
    ulonglong_then_char e = {1, 7};
    ulonglong_then_char_nested f = {{12, 127}, 99}, expected = {{15, 242}, 143};
    ulonglong_then_char_last g = {2, 9};
    restated_case c = RESTATED("nested_struct8.c", ulonglong_then_char_encoding, ulonglong_then_char_combine,
                               ulonglong_then_char_answer, &expected, &e, &f, &g);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    ulonglong_then_char_nested result =
        ((ulonglong_then_char_nested(*)(ulonglong_then_char, ulonglong_then_char_nested,
                                        ulonglong_then_char_last))dc_closure_function(closure))(e, f, g);
    assert_closure_answered(&c, closure, &result);
}

/* nested_struct9.c */
static void a_closure_receives_structs_of_a_char_then_an_unsigned_long_long(void **state) {
    (void)state;
    char_then_ulonglong e = {1, 7};
    char_then_ulonglong_nested f = {{12, 127}, 99}, expected = {{15, 242}, 143};
    char_then_ulonglong_last g = {2, 9};
    restated_case c = RESTATED("nested_struct9.c", char_then_ulonglong_encoding, char_then_ulonglong_combine,
                               char_then_ulonglong_answer, &expected, &e, &f, &g);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    char_then_ulonglong_nested result =
        ((char_then_ulonglong_nested(*)(char_then_ulonglong, char_then_ulonglong_nested,
                                        char_then_ulonglong_last))dc_closure_function(closure))(e, f, g);
    assert_closure_answered(&c, closure, &result);
}

/* ---- nested_struct10.c: a nested struct between a char and an int ----------------------- */

typedef struct wide_char {
    unsigned long long a;
    unsigned char b;
} wide_char;
typedef struct char_wide_char_int {
    unsigned char y;
    wide_char x;
    unsigned int z;
} char_wide_char_int;

#define WIDE_CHAR "{A=QC}"
#define CHAR_WIDE_CHAR_INT "{B=C" WIDE_CHAR "I}"

CALLEE static char_wide_char_int combine_around(wide_char b2, char_wide_char_int b3, wide_char b4) {
    char_wide_char_int result;
    result.x.a = b2.a + b3.x.a + b3.z + b4.a;
    result.x.b = (unsigned char)(b2.b + b3.x.b + b3.y + b4.b);
    result.y = (unsigned char)(b2.b + b3.x.b + b4.b);
    result.z = 0;
    return result;
}

static void combine_around_answer(const void *const *arguments, void *result) {
    *(char_wide_char_int *)result = combine_around(*(const wide_char *)arguments[0],
                                                   *(const char_wide_char_int *)arguments[1],
                                                   *(const wide_char *)arguments[2]);
}

/* nested_struct10.c (its third struct, C, has A's layout) */
static void a_closure_receives_a_struct_nesting_a_struct_between_a_char_and_an_int(void **state) {
    (void)state;
    wide_char e = {1, 7}, g = {2, 9};
    char_wide_char_int f = {99, {12, 127}, 255}, expected = {143, {270, 242}, 0};
    restated_case c = RESTATED("nested_struct10.c", CHAR_WIDE_CHAR_INT WIDE_CHAR CHAR_WIDE_CHAR_INT WIDE_CHAR,
                               combine_around, combine_around_answer, &expected, &e, &f, &g);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    char_wide_char_int result =
        ((char_wide_char_int(*)(wide_char, char_wide_char_int, wide_char))dc_closure_function(closure))(e, f, g);
    assert_closure_answered(&c, closure, &result);
}

/* ---- nested_struct11.c, 12, 13: structs of floats nested ---------------------------------- */

typedef struct float_pair {
    float x, y;
} float_pair;
typedef struct two_float_pairs {
    float_pair a, b;
} two_float_pairs;

#define TWO_FLOAT_PAIRS "{C={A=ff}{B=ff}}"

/* The source back when the ints are each 1, as nested_struct11.c's C_fn
 * checks them; zeros, which no caller expects, when one is not. */
CALLEE static two_float_pairs pass_between_ints(int x, int y, int z, two_float_pairs source, int i, int j, int k) {
    bool ones = x == 1 && y == 1 && z == 1 && i == 1 && j == 1 && k == 1;
    return ones ? source : (two_float_pairs){{0, 0}, {0, 0}};
}

static void pass_between_ints_answer(const void *const *arguments, void *result) {
    const void *const *a = arguments;
    *(two_float_pairs *)result =
        pass_between_ints(*(const int *)a[0], *(const int *)a[1], *(const int *)a[2], *(const two_float_pairs *)a[3],
                          *(const int *)a[4], *(const int *)a[5], *(const int *)a[6]);
}

/* nested_struct11.c (which libffi calls with ffi_call only) */
static void a_struct_of_two_float_pairs_between_six_ints_comes_back_unchanged(void **state) {
    (void)state;
    int k = 1;
    two_float_pairs source = {{1.0f, 2.0f}, {4.0f, 8.0f}};
    restated_case c = RESTATED("nested_struct11.c", TWO_FLOAT_PAIRS "iii" TWO_FLOAT_PAIRS "iii", pass_between_ints,
                               pass_between_ints_answer, &source, &k, &k, &k, &source, &k, &k, &k);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    two_float_pairs result = ((two_float_pairs(*)(int, int, int, two_float_pairs, int, int, int))dc_closure_function(
        closure))(k, k, k, source, k, k, k);
    assert_closure_answered(&c, closure, &result);
}

typedef struct float_and_pair {
    float elem1;
    float_pair elem2;
} float_and_pair;

CALLEE static float sum_nested_floats(float arg1, float_and_pair arg2) {
    return arg1 + arg2.elem1 + arg2.elem2.x + arg2.elem2.y;
}

static void sum_nested_floats_answer(const void *const *arguments, void *result) {
    *(float *)result = sum_nested_floats(*(const float *)arguments[0], *(const float_and_pair *)arguments[1]);
}

/* nested_struct12.c (which libffi calls with ffi_call only). Its sum is
 * 138.2 within float rounding; the call and the closure must each give the
 * function's own float, bit for bit. */
static void a_float_and_a_struct_nesting_a_float_pair_sum_to_a_float(void **state) {
    (void)state;
    float arg1 = 37.88f;
    float_and_pair arg2 = {31.22f, {33.44f, 35.66f}};
    float expected = sum_nested_floats(arg1, arg2);
    assert_true(fabsf(expected - 138.2f) < 1e-4f);
    restated_case c = RESTATED("nested_struct12.c", "ff{stru_Nested_F=f{stru_FF=ff}}", sum_nested_floats,
                               sum_nested_floats_answer, &expected, &arg1, &arg2);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    float result = ((float (*)(float, float_and_pair))dc_closure_function(closure))(arg1, arg2);
    assert_closure_answered(&c, closure, &result);
}

CALLEE static float_and_pair add_to_each(float b0, float_and_pair b1) {
    return (float_and_pair){b0 + b1.elem1, {b0 + b1.elem2.x, b0 + b1.elem2.y}};
}

static void add_to_each_answer(const void *const *arguments, void *result) {
    *(float_and_pair *)result = add_to_each(*(const float *)arguments[0], *(const float_and_pair *)arguments[1]);
}

/* nested_struct13.c */
static void a_closure_adds_a_float_to_each_float_of_a_struct_nesting_a_float_pair(void **state) {
    (void)state;
    float e = 12.125f;
    float_and_pair f = {24.75f, {31.625f, 32.25f}}, expected = {36.875f, {43.75f, 44.375f}};
    restated_case c = RESTATED("nested_struct13.c", "{B=f{A=ff}}f{B=f{A=ff}}", add_to_each, add_to_each_answer,
                               &expected, &e, &f);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    float_and_pair result = ((float_and_pair(*)(float, float_and_pair))dc_closure_function(closure))(e, f);
    assert_closure_answered(&c, closure, &result);
}

/* ---- single_entry_structs1.c, 2, 3: structs of one field -------------------------------- */

typedef struct one_int {
    int a;
} one_int;
typedef struct two_ints {
    int a, b;
} two_ints;
typedef struct struct_of_two_ints {
    two_ints y;
} struct_of_two_ints;
typedef struct struct_of_one_int {
    one_int y;
} struct_of_one_int;

CALLEE static one_int add_to_one_int(int b0, one_int b1) {
    b1.a += b0;
    return b1;
}

static void add_to_one_int_answer(const void *const *arguments, void *result) {
    *(one_int *)result = add_to_one_int(*(const int *)arguments[0], *(const one_int *)arguments[1]);
}

CALLEE static struct_of_two_ints add_and_subtract(int b0, struct_of_two_ints b1) {
    b1.y.a += b0;
    b1.y.b -= b0;
    return b1;
}

static void add_and_subtract_answer(const void *const *arguments, void *result) {
    *(struct_of_two_ints *)result =
        add_and_subtract(*(const int *)arguments[0], *(const struct_of_two_ints *)arguments[1]);
}

CALLEE static struct_of_one_int add_to_inner_int(int b0, struct_of_one_int b1) {
    b1.y.a += b0;
    return b1;
}

static void add_to_inner_int_answer(const void *const *arguments, void *result) {
    *(struct_of_one_int *)result =
        add_to_inner_int(*(const int *)arguments[0], *(const struct_of_one_int *)arguments[1]);
}

/* single_entry_structs1.c */
static void a_closure_adds_an_int_to_a_struct_of_one_int(void **state) {
    (void)state;
    int e = 12125;
    one_int f = {31625}, expected = {43750};
    assert_int_equal(add_to_one_int(e, f).a, 43750);
    restated_case c =
        RESTATED("single_entry_structs1.c", "{A=i}i{A=i}", add_to_one_int, add_to_one_int_answer, &expected, &e, &f);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    one_int result = ((one_int(*)(int, one_int))dc_closure_function(closure))(e, f);
    assert_closure_answered(&c, closure, &result);
}

/* single_entry_structs2.c */
static void a_closure_changes_a_struct_whose_one_field_is_a_struct_of_two_ints(void **state) {
    (void)state;
    int e = 12125;
    struct_of_two_ints f = {{31625, 16723}}, expected = {{43750, 4598}};
    two_ints direct = add_and_subtract(e, f).y;
    assert_true(direct.a == 43750 && direct.b == 4598);
    restated_case c = RESTATED("single_entry_structs2.c", "{B={A=ii}}i{B={A=ii}}", add_and_subtract,
                               add_and_subtract_answer, &expected, &e, &f);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    struct_of_two_ints result = ((struct_of_two_ints(*)(int, struct_of_two_ints))dc_closure_function(closure))(e, f);
    assert_closure_answered(&c, closure, &result);
}

/* single_entry_structs3.c */
static void a_closure_adds_an_int_to_a_struct_whose_one_field_is_a_struct_of_one_int(void **state) {
    (void)state;
    int e = 12125;
    struct_of_one_int f = {{31625}}, expected = {{43750}};
    assert_int_equal(add_to_inner_int(e, f).y.a, 43750);
    restated_case c = RESTATED("single_entry_structs3.c", "{B={A=i}}i{B={A=i}}", add_to_inner_int,
                               add_to_inner_int_answer, &expected, &e, &f);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    struct_of_one_int result = ((struct_of_one_int(*)(int, struct_of_one_int))dc_closure_function(closure))(e, f);
    assert_closure_answered(&c, closure, &result);
}

/* ---- stret_medium.c, stret_medium2.c, stret_large.c, stret_large2.c: large returns ---- */

/*
 * SUM_OF_FOUR(name, FIELDS): the struct `name` of FIELDS(F), each field given
 * as F(type, code, field); name##_sum, returning four such structs summed
 * field by field (libffi's cls_struct_*byte_fn); its answer for a closure;
 * and name##_encoding, the encoding of the signature, name (name, name, name,
 * name).
 */
#define DECLARE_FIELD(type, code, field) type field;
#define SUM_FIELD(type, code, field) result.field = b0.field + b1.field + b2.field + b3.field;
#define FIELD_CODE(type, code, field) code
#define SUM_OF_FOUR(name, FIELDS)                                                                             \
    typedef struct name {                                                                                     \
        FIELDS(DECLARE_FIELD)                                                                                 \
    } name;                                                                                                   \
    CALLEE static name name##_sum(name b0, name b1, name b2, name b3) {                                       \
        name result;                                                                                          \
        FIELDS(SUM_FIELD)                                                                                     \
        return result;                                                                                        \
    }                                                                                                         \
    static void name##_answer(const void *const *arguments, void *result) {                                   \
        *(name *)result = name##_sum(*(const name *)arguments[0], *(const name *)arguments[1],                \
                                     *(const name *)arguments[2], *(const name *)arguments[3]);               \
    }                                                                                                         \
    static const char name##_encoding[] = "{" #name "=" FIELDS(FIELD_CODE) "}{" #name "=" FIELDS(FIELD_CODE) \
                                          "}{" #name "=" FIELDS(FIELD_CODE) "}{" #name "=" FIELDS(FIELD_CODE) \
                                          "}{" #name "=" FIELDS(FIELD_CODE) "}";

#define EIGHT_DOUBLES(F)                                                                                      \
    F(double, "d", a) F(double, "d", b) F(double, "d", c) F(double, "d", d) F(double, "d", e) F(double, "d", f) \
    F(double, "d", g) F(double, "d", h)
#define NINE_DOUBLES(F) EIGHT_DOUBLES(F) F(double, "d", i)
#define EIGHT_DOUBLES_LONG_LONG(F) EIGHT_DOUBLES(F) F(long long, "q", i)
#define THIRTEEN_DOUBLES_INT(F)                                                                               \
    NINE_DOUBLES(F) F(double, "d", j) F(double, "d", k) F(double, "d", l) F(double, "d", m) F(int, "i", n)
#define FOURTEEN_DOUBLES_INT(F)                                                                               \
    NINE_DOUBLES(F) F(double, "d", j) F(double, "d", k) F(double, "d", l) F(double, "d", m) F(double, "d", n) \
    F(int, "i", o)

SUM_OF_FOUR(nine_doubles, NINE_DOUBLES)
SUM_OF_FOUR(eight_doubles_long_long, EIGHT_DOUBLES_LONG_LONG)
SUM_OF_FOUR(thirteen_doubles_int, THIRTEEN_DOUBLES_INT)
SUM_OF_FOUR(fourteen_doubles_int, FOURTEEN_DOUBLES_INT)

/* stret_medium.c */
static void a_closure_sums_four_structs_of_nine_doubles(void **state) {
    (void)state;
    nine_doubles e = {9, 2, 6, 5, 3, 4, 8, 1, 7}, f = {1, 2, 3, 7, 2, 5, 6, 7, 4};
    nine_doubles g = {4, 5, 7, 9, 1, 1, 2, 9, 3}, h = {8, 6, 1, 4, 0, 3, 3, 1, 2};
    nine_doubles expected = {22, 15, 17, 25, 6, 13, 19, 18, 16};
    restated_case c = RESTATED("stret_medium.c", nine_doubles_encoding, nine_doubles_sum, nine_doubles_answer,
                               &expected, &e, &f, &g, &h);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    nine_doubles result = ((nine_doubles(*)(nine_doubles, nine_doubles, nine_doubles,
                                            nine_doubles))dc_closure_function(closure))(e, f, g, h);
    assert_closure_answered(&c, closure, &result);
}

/* stret_medium2.c */
static void a_closure_sums_four_structs_of_eight_doubles_and_a_long_long(void **state) {
    (void)state;
    eight_doubles_long_long e = {9, 2, 6, 5, 3, 4, 8, 1, 7}, f = {1, 2, 3, 7, 2, 5, 6, 7, 4};
    eight_doubles_long_long g = {4, 5, 7, 9, 1, 1, 2, 9, 3}, h = {8, 6, 1, 4, 0, 3, 3, 1, 2};
    eight_doubles_long_long expected = {22, 15, 17, 25, 6, 13, 19, 18, 16};
    restated_case c = RESTATED("stret_medium2.c", eight_doubles_long_long_encoding, eight_doubles_long_long_sum,
                               eight_doubles_long_long_answer, &expected, &e, &f, &g, &h);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    eight_doubles_long_long result =
        ((eight_doubles_long_long(*)(eight_doubles_long_long, eight_doubles_long_long, eight_doubles_long_long,
                                     eight_doubles_long_long))dc_closure_function(closure))(e, f, g, h);
    assert_closure_answered(&c, closure, &result);
}

/* stret_large.c */
static void a_closure_sums_four_structs_of_thirteen_doubles_and_an_int(void **state) {
    (void)state;
    thirteen_doubles_int e = {9, 2, 6, 5, 3, 4, 8, 1, 1, 2, 3, 7, 2, 7};
    thirteen_doubles_int f = {1, 2, 3, 7, 2, 5, 6, 7, 4, 5, 7, 9, 1, 4};
    thirteen_doubles_int g = {4, 5, 7, 9, 1, 1, 2, 9, 8, 6, 1, 4, 0, 3};
    thirteen_doubles_int h = {8, 6, 1, 4, 0, 3, 3, 1, 9, 2, 6, 5, 3, 2};
    thirteen_doubles_int expected = {22, 15, 17, 25, 6, 13, 19, 18, 22, 15, 17, 25, 6, 16};
    restated_case c = RESTATED("stret_large.c", thirteen_doubles_int_encoding, thirteen_doubles_int_sum,
                               thirteen_doubles_int_answer, &expected, &e, &f, &g, &h);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    thirteen_doubles_int result =
        ((thirteen_doubles_int(*)(thirteen_doubles_int, thirteen_doubles_int, thirteen_doubles_int,
                                  thirteen_doubles_int))dc_closure_function(closure))(e, f, g, h);
    assert_closure_answered(&c, closure, &result);
}

/* stret_large2.c */
static void a_closure_sums_four_structs_of_fourteen_doubles_and_an_int(void **state) {
    (void)state;
    fourteen_doubles_int e = {9, 2, 6, 5, 3, 4, 8, 1, 1, 2, 3, 7, 2, 5, 7};
    fourteen_doubles_int f = {1, 2, 3, 7, 2, 5, 6, 7, 4, 5, 7, 9, 1, 6, 4};
    fourteen_doubles_int g = {4, 5, 7, 9, 1, 1, 2, 9, 8, 6, 1, 4, 0, 7, 3};
    fourteen_doubles_int h = {8, 6, 1, 4, 0, 3, 3, 1, 9, 2, 6, 5, 3, 8, 2};
    fourteen_doubles_int expected = {22, 15, 17, 25, 6, 13, 19, 18, 22, 15, 17, 25, 6, 26, 16};
    restated_case c = RESTATED("stret_large2.c", fourteen_doubles_int_encoding, fourteen_doubles_int_sum,
                               fourteen_doubles_int_answer, &expected, &e, &f, &g, &h);
    call_and_check(&c);
    dc_closure *closure = checking_closure(&c);
    fourteen_doubles_int result =
        ((fourteen_doubles_int(*)(fourteen_doubles_int, fourteen_doubles_int, fourteen_doubles_int,
                                  fourteen_doubles_int))dc_closure_function(closure))(e, f, g, h);
    assert_closure_answered(&c, closure, &result);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_closure_receives_two_sixteen_byte_structs_and_a_struct_of_both),
        cmocka_unit_test(a_closure_receives_a_struct_of_two_structs_between_sixteen_byte_structs),
        cmocka_unit_test(a_closure_returns_a_struct_nesting_an_unsigned_long_and_a_char),
        cmocka_unit_test(a_closure_returns_a_struct_nesting_an_unsigned_long_long_and_a_char),
        cmocka_unit_test(a_closure_returns_a_struct_nesting_a_double_and_a_char),
        cmocka_unit_test(a_closure_receives_a_nested_double_struct_and_a_struct_of_a_long_and_a_char),
        cmocka_unit_test(a_closure_receives_three_structs_of_an_unsigned_long_long_then_a_char),
        cmocka_unit_test(a_closure_receives_structs_of_a_char_then_an_unsigned_long_long),
        cmocka_unit_test(a_closure_receives_a_struct_nesting_a_struct_between_a_char_and_an_int),
        cmocka_unit_test(a_struct_of_two_float_pairs_between_six_ints_comes_back_unchanged),
        cmocka_unit_test(a_float_and_a_struct_nesting_a_float_pair_sum_to_a_float),
        cmocka_unit_test(a_closure_adds_a_float_to_each_float_of_a_struct_nesting_a_float_pair),
        cmocka_unit_test(a_closure_adds_an_int_to_a_struct_of_one_int),
        cmocka_unit_test(a_closure_changes_a_struct_whose_one_field_is_a_struct_of_two_ints),
        cmocka_unit_test(a_closure_adds_an_int_to_a_struct_whose_one_field_is_a_struct_of_one_int),
        cmocka_unit_test(a_closure_sums_four_structs_of_nine_doubles),
        cmocka_unit_test(a_closure_sums_four_structs_of_eight_doubles_and_a_long_long),
        cmocka_unit_test(a_closure_sums_four_structs_of_thirteen_doubles_and_an_int),
        cmocka_unit_test(a_closure_sums_four_structs_of_fourteen_doubles_and_an_int),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
