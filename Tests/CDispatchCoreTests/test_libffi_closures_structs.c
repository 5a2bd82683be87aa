/*
 * test_libffi_closures_structs.c — libffi's testsuite/libffi.closures cases
 * of one struct shape passed by value and returned (cls_1_1byte.c to
 * cls_64byte.c, cls_dbls_struct.c and the cls_align_*.c files but long
 * double's), restated against the public API. Each case calls a C function
 * that sums its struct arguments field by field, once with dc_call and once
 * through a closure of the same signature called from C: the closure's
 * handler checks every field of every argument it reads, computes the sum
 * with the same C function and sets it as the return value; the caller checks
 * every field of what comes back against libffi's expected values. The
 * cases are one table, run by one test that reports each failing check by
 * its libffi file before it fails; cls_dbls_struct.c, a closure returning
 * void, has a test of its own. Each test names the libffi files it restates;
 * libffi_closures_cases.txt lists them.
 */
#include "test_support.h"

#include <stddef.h>
#include <stdint.h>

/* Room for the largest struct of these cases (cls_64byte's). */
typedef union struct_bytes {
    max_align_t alignment;
    unsigned char bytes[64];
} struct_bytes;

/* Calls `function` (a sum of structs, cast to dc_function) with the structs
 * at `arguments`, writing its return to `result`: what a C caller of the
 * real function type does, for a closure's function or the C callee alike. */
typedef void (*typed_call)(dc_function function, void *result, void *const *arguments);

typedef struct closure_case {
    const char *file;     /* libffi's test, named in every failure */
    const char *encoding; /* the returned struct, then each parameter's */
    dc_function function; /* the C callee: the fields summed */
    typed_call call;
    size_t count;         /* struct arguments, at most four */
    void *arguments[4];
    const void *expected; /* the sum libffi's test expects */
} closure_case;

/* The first (at most 16) of `count` bytes in hexadecimal, space-separated. */
static const char *hex_bytes(const unsigned char *bytes, size_t count, char text[static 48]) {
    size_t shown = count < 16 ? count : 16;
    text[0] = '\0';
    for (size_t k = 0; k < shown; k++) snprintf(text + 3 * k, 4, "%02x ", bytes[k]);
    if (shown > 0) text[3 * shown - 1] = '\0';
    return text;
}

/* The checks of the cases that failed: each failure is reported where it is
 * found, naming its case, so that one run names every case that fails. */
static size_t case_failures;

/* Reports a failure naming the case and `what` (an argument or a result) for
 * each field of `layout` whose bytes differ in `expected` and `actual`
 * (padding is not compared). */
static void compare_fields(const char *file, const char *what, const dc_layout *layout, const void *expected,
                           const void *actual) {
    for (size_t index = 0; index < layout->field_count; index++) {
        dc_layout field;
        assert_ok(dc_layout_field(layout, index, &field));
        const unsigned char *want = (const unsigned char *)expected + field.offset;
        const unsigned char *got = (const unsigned char *)actual + field.offset;
        if (memcmp(want, got, field.size) != 0) {
            char want_text[48], got_text[48];
            print_error("%s: %s, field %zu (%s at offset %zu): expected bytes %s, got %s\n", file, what, index,
                        field.encoding, field.offset, hex_bytes(want, field.size, want_text),
                        hex_bytes(got, field.size, got_text));
            case_failures++;
        }
    }
}

static int handler_calls;

/* The forward handler of every case (user_data: the closure_case): checks
 * each argument's fields against the case's, then returns what the C callee
 * makes of the arguments it read, as libffi's closure function does. */
static void check_arguments_and_sum(dc_invocation *call, void *user_data) {
    const closure_case *c = user_data;
    dc_signature *signature = dc_invocation_signature(call);
    void *seen[4];
    for (size_t k = 0; k < c->count; k++) {
        dc_value value;
        dc_layout layout;
        char what[32];
        assert_ok(dc_invocation_get_argument(call, k, &value));
        assert_int_equal(value.type, DC_TYPE_STRUCT);
        assert_ok(dc_signature_parameter_layout(signature, k, &layout));
        snprintf(what, sizeof what, "the handler's argument %zu", k);
        compare_fields(c->file, what, &layout, c->arguments[k], value.pointer);
        seen[k] = value.pointer;
    }
    struct_bytes sum;
    c->call(c->function, &sum, seen);
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_struct(&sum))));
    handler_calls++;
}

/* The case through dc_call, then through a closure called from C. */
static void check_closure_case(const closure_case *c) {
    dc_signature *signature = create_signature(c->encoding);
    dc_layout returned;
    assert_ok(dc_signature_return_layout(signature, &returned)); /* valid while the signature is */

    dc_value arguments[4];
    for (size_t k = 0; k < c->count; k++) arguments[k] = dc_struct(c->arguments[k]);
    struct_bytes result;
    memset(&result, 0xa5, sizeof result);
    dc_value result_value = dc_struct(&result);
    call_encoded(c->encoding, -1, c->function, arguments, c->count, &result_value);
    compare_fields(c->file, "dc_call's result", &returned, c->expected, &result);

    dc_closure *closure = create_closure(c->encoding, check_arguments_and_sum, (void *)c);
    memset(&result, 0xa5, sizeof result);
    handler_calls = 0;
    c->call(dc_closure_function(closure), &result, c->arguments);
    if (handler_calls != 1) {
        print_error("%s: the closure's handler ran %d times, not once\n", c->file, handler_calls);
        case_failures++;
    }
    compare_fields(c->file, "the closure's result", &returned, c->expected, &result);
    dc_closure_destroy(closure);
    dc_signature_release(signature);
}

/* STRUCT_SUMMED_IN_TWOS(T, FIELDS, first, second, sum): a struct type T of
 * FIELDS (an X-macro of (type, name) pairs); T_sum, which sums two of them
 * field by field; T_call, its typed_call; and T_values, libffi's arguments
 * and the sum it expects. STRUCT_SUMMED_IN_FOURS the same for four. */
#define DECLARE_FIELD(type, name) type name;
#define ADD_TWO(type, name) sum.name = (type)(a1.name + a2.name);
#define ADD_FOUR(type, name) sum.name = (type)(b0.name + b1.name + b2.name + b3.name);

#define TYPED_CALL_OF_TWO(T)                                                                                   \
    static void T##_call(dc_function function, void *result, void *const *arguments) {                          \
        *(T *)result = ((T(*)(T, T))function)(*(T *)arguments[0], *(T *)arguments[1]);                          \
    }

#define STRUCT_SUMMED_IN_TWOS(T, FIELDS, ...)                                                                  \
    typedef struct T {                                                                                          \
        FIELDS(DECLARE_FIELD)                                                                                   \
    } T;                                                                                                        \
    CALLEE static T T##_sum(T a1, T a2) {                                                                       \
        T sum;                                                                                                  \
        FIELDS(ADD_TWO)                                                                                         \
        return sum;                                                                                             \
    }                                                                                                           \
    TYPED_CALL_OF_TWO(T)                                                                                        \
    static T T##_values[3] = {__VA_ARGS__};

#define STRUCT_SUMMED_IN_FOURS(T, FIELDS, ...)                                                                 \
    typedef struct T {                                                                                          \
        FIELDS(DECLARE_FIELD)                                                                                   \
    } T;                                                                                                        \
    CALLEE static T T##_sum(T b0, T b1, T b2, T b3) {                                                           \
        T sum;                                                                                                  \
        FIELDS(ADD_FOUR)                                                                                        \
        return sum;                                                                                             \
    }                                                                                                           \
    static void T##_call(dc_function function, void *result, void *const *arguments) {                          \
        *(T *)result = ((T(*)(T, T, T, T))function)(*(T *)arguments[0], *(T *)arguments[1], *(T *)arguments[2], \
                                                     *(T *)arguments[3]);                                       \
    }                                                                                                           \
    static T T##_values[5] = {__VA_ARGS__};

/* The case of libffi_file: T_sum of T_values, `fields` the encoding of T's
 * fields; T(T, T) or T(T, T, T, T). */
#define STRUCT_ENCODING(T, fields) "{" #T "=" fields "}"
#define SUM_OF_TWO(libffi_file, T, fields)                                                                     \
    {libffi_file, STRUCT_ENCODING(T, fields) STRUCT_ENCODING(T, fields) STRUCT_ENCODING(T, fields),             \
     DC_FUNCTION(T##_sum), T##_call, 2, {&T##_values[0], &T##_values[1]}, &T##_values[2]}
#define SUM_OF_FOUR(libffi_file, T, fields)                                                                    \
    {libffi_file,                                                                                               \
     STRUCT_ENCODING(T, fields) STRUCT_ENCODING(T, fields) STRUCT_ENCODING(T, fields) STRUCT_ENCODING(T, fields) \
         STRUCT_ENCODING(T, fields),                                                                            \
     DC_FUNCTION(T##_sum), T##_call, 4, {&T##_values[0], &T##_values[1], &T##_values[2], &T##_values[3]},        \
     &T##_values[4]}

/* ---- structs of unsigned chars ------------------------------------------------------------ */

#define ONE_UCHAR(F) F(unsigned char, a)
#define TWO_UCHARS(F) ONE_UCHAR(F) F(unsigned char, b)
#define THREE_UCHARS(F) TWO_UCHARS(F) F(unsigned char, c)
#define FOUR_UCHARS(F) THREE_UCHARS(F) F(unsigned char, d)
#define FIVE_UCHARS(F) FOUR_UCHARS(F) F(unsigned char, e)
#define SIX_UCHARS(F) FIVE_UCHARS(F) F(unsigned char, f)
#define SEVEN_UCHARS(F) SIX_UCHARS(F) F(unsigned char, g)
STRUCT_SUMMED_IN_TWOS(one_uchar, ONE_UCHAR, {12}, {178}, {190})
STRUCT_SUMMED_IN_TWOS(two_uchars, TWO_UCHARS, {12, 127}, {1, 13}, {13, 140})
STRUCT_SUMMED_IN_TWOS(three_uchars, THREE_UCHARS, {12, 13, 14}, {178, 179, 180}, {190, 192, 194})
STRUCT_SUMMED_IN_TWOS(four_uchars, FOUR_UCHARS, {12, 13, 14, 15}, {178, 179, 180, 181}, {190, 192, 194, 196})
STRUCT_SUMMED_IN_TWOS(five_uchars, FIVE_UCHARS, {127, 120, 1, 3, 4}, {12, 128, 9, 3, 4}, {139, 248, 10, 6, 8})
STRUCT_SUMMED_IN_TWOS(six_uchars, SIX_UCHARS, {127, 120, 1, 3, 4, 5}, {12, 128, 9, 3, 4, 5},
                      {139, 248, 10, 6, 8, 10})
STRUCT_SUMMED_IN_TWOS(seven_uchars, SEVEN_UCHARS, {127, 120, 1, 3, 4, 5, 6}, {12, 128, 9, 3, 4, 5, 6},
                      {139, 248, 10, 6, 8, 10, 12})

/* ---- structs of unsigned shorts and chars ----------------------------------------------- */

#define USHORT_UCHAR(F) F(unsigned short, a) F(unsigned char, b)
#define UCHAR_USHORT(F) F(unsigned char, a) F(unsigned short, b)
#define TWO_USHORTS(F) F(unsigned short, a) F(unsigned short, b)
#define TWO_USHORTS_UCHAR(F) TWO_USHORTS(F) F(unsigned char, c)
#define TWO_USHORTS_TWO_UCHARS(F) TWO_USHORTS_UCHAR(F) F(unsigned char, d)
#define TWO_USHORTS_UCHAR_USHORT(F) TWO_USHORTS_UCHAR(F) F(unsigned short, d)
STRUCT_SUMMED_IN_TWOS(ushort_uchar, USHORT_UCHAR, {12, 119}, {1, 15}, {13, 134})
STRUCT_SUMMED_IN_TWOS(uchar_ushort, UCHAR_USHORT, {15, 125}, {9, 19}, {24, 144})
STRUCT_SUMMED_IN_TWOS(two_ushorts, TWO_USHORTS, {127, 120}, {12, 128}, {139, 248})
STRUCT_SUMMED_IN_TWOS(two_ushorts_uchar, TWO_USHORTS_UCHAR, {127, 120, 1}, {12, 128, 9}, {139, 248, 10})
STRUCT_SUMMED_IN_TWOS(two_ushorts_two_uchars, TWO_USHORTS_TWO_UCHARS, {127, 120, 1, 128}, {12, 128, 9, 127},
                      {139, 248, 10, 255})
STRUCT_SUMMED_IN_TWOS(two_ushorts_uchar_ushort, TWO_USHORTS_UCHAR_USHORT, {127, 120, 1, 254}, {12, 128, 9, 255},
                      {139, 248, 10, 509})

/* ---- structs of ints, floats and doubles up to 16 bytes ----------------------------------- */

#define THREE_FLOATS(F) F(float, f) F(float, g) F(float, h)
#define INT_FLOAT(F) F(int, a) F(float, b)
#define INT_DOUBLE(F) F(int, a) F(double, b)
#define DOUBLE_INT(F) F(double, a) F(int, b)
#define THREE_INTS(F) F(int, a) F(int, b) F(int, c)
#define INT_DOUBLE_INT(F) F(int, a) F(double, b) F(int, c)
STRUCT_SUMMED_IN_TWOS(three_floats, THREE_FLOATS, {1, 2, 3}, {1, 2, 3}, {2, 4, 6})
STRUCT_SUMMED_IN_TWOS(int_float, INT_FLOAT, {1, 2}, {4, 5}, {5, 7})
STRUCT_SUMMED_IN_TWOS(int_double, INT_DOUBLE, {7, 8}, {1, 9}, {8, 17})
STRUCT_SUMMED_IN_TWOS(double_int, DOUBLE_INT, {7, 8}, {1, 9}, {8, 17})
STRUCT_SUMMED_IN_TWOS(three_ints, THREE_INTS, {7, 4, 9}, {1, 5, 3}, {8, 9, 12})
STRUCT_SUMMED_IN_TWOS(int_double_int, INT_DOUBLE_INT, {7, 8, 9}, {1, 9, 3}, {8, 17, 12})

/* ---- larger structs of doubles with chars, ints and floats -------------------------------- */

#define DOUBLE_TWO_UCHARS_DOUBLE(F) F(double, a) F(unsigned char, b) F(unsigned char, c) F(double, d)
#define DOUBLE_TWO_UCHARS_DOUBLE_UCHAR(F) DOUBLE_TWO_UCHARS_DOUBLE(F) F(unsigned char, e)
#define TWO_DOUBLES_INT(F) F(double, a) F(double, b) F(int, c)
#define INT_TWO_DOUBLES(F) F(int, a) F(double, b) F(double, c)
#define TWO_DOUBLES_INT_FLOAT(F) TWO_DOUBLES_INT(F) F(float, d)
#define EIGHT_DOUBLES(F)                                                                                        \
    F(double, a) F(double, b) F(double, c) F(double, d) F(double, e) F(double, f) F(double, g) F(double, h)
STRUCT_SUMMED_IN_TWOS(double_two_uchars_double, DOUBLE_TWO_UCHARS_DOUBLE, {1, 127, 126, 3}, {4, 125, 124, 5},
                      {5, 252, 250, 8})
STRUCT_SUMMED_IN_TWOS(double_two_uchars_double_uchar, DOUBLE_TWO_UCHARS_DOUBLE_UCHAR, {1, 127, 126, 3, 120},
                      {4, 125, 124, 5, 119}, {5, 252, 250, 8, 239})
STRUCT_SUMMED_IN_TWOS(two_doubles_int, TWO_DOUBLES_INT, {1, 2, 3}, {4, 5, 7}, {5, 7, 10})
STRUCT_SUMMED_IN_TWOS(int_two_doubles, INT_TWO_DOUBLES, {1, 2, 3}, {4, 5, 7}, {5, 7, 10})
STRUCT_SUMMED_IN_FOURS(two_doubles_int_float, TWO_DOUBLES_INT_FLOAT, {9, 2, 6, 5}, {1, 2, 3, 7}, {4, 5, 7, 9},
                       {8, 6, 1, 4}, {22, 15, 17, 25})
STRUCT_SUMMED_IN_FOURS(eight_doubles, EIGHT_DOUBLES, {9, 2, 6, 5, 3, 4, 8, 1}, {1, 2, 3, 7, 2, 5, 6, 7},
                       {4, 5, 7, 9, 1, 1, 2, 9}, {8, 6, 1, 4, 0, 3, 3, 1}, {22, 15, 17, 25, 6, 13, 19, 18})

/* ---- a scalar between two unsigned chars: its alignment ------------------------------------- */

/* Every cls_align_*.c passes {12, 4951, 127} and {1, 9320, 13} and expects
 * {13, 14271, 140}; T_values holds the three, each middle value made by
 * `middle` (AS_IS, or AS_POINTER for cls_align_pointer.c). */
#define ALIGNED_VALUES(middle) {{12, middle(4951), 127}, {1, middle(9320), 13}, {13, middle(14271), 140}}
#define AS_IS(value) value
#define AS_POINTER(value) ((void *)(uintptr_t)(value))

/* A struct T of a uchar, a `type` and a uchar, with T_sum, T_call and T_values. */
#define STRUCT_BETWEEN_UCHARS(type, T)                                                                          \
    typedef struct T {                                                                                          \
        unsigned char a;                                                                                        \
        type b;                                                                                                 \
        unsigned char c;                                                                                        \
    } T;                                                                                                        \
    CALLEE static T T##_sum(T a1, T a2) {                                                                       \
        return (T){(unsigned char)(a1.a + a2.a), (type)(a1.b + a2.b), (unsigned char)(a1.c + a2.c)};             \
    }                                                                                                           \
    TYPED_CALL_OF_TWO(T)                                                                                        \
    static T T##_values[3] = ALIGNED_VALUES(AS_IS);
STRUCT_BETWEEN_UCHARS(double, double_between_uchars)
STRUCT_BETWEEN_UCHARS(float, float_between_uchars)
STRUCT_BETWEEN_UCHARS(int16_t, sint16_between_uchars)
STRUCT_BETWEEN_UCHARS(int32_t, sint32_between_uchars)
STRUCT_BETWEEN_UCHARS(int64_t, sint64_between_uchars)
STRUCT_BETWEEN_UCHARS(uint16_t, uint16_between_uchars)
STRUCT_BETWEEN_UCHARS(uint32_t, uint32_between_uchars)
STRUCT_BETWEEN_UCHARS(uint64_t, uint64_between_uchars)

/* cls_align_pointer.c's pointers are the integers 4951 and 9320. */
typedef struct pointer_between_uchars {
    unsigned char a;
    void *b;
    unsigned char c;
} pointer_between_uchars;

CALLEE static pointer_between_uchars pointer_between_uchars_sum(pointer_between_uchars a1, pointer_between_uchars a2) {
    return (pointer_between_uchars){(unsigned char)(a1.a + a2.a), (void *)((uintptr_t)a1.b + (uintptr_t)a2.b),
                                    (unsigned char)(a1.c + a2.c)};
}
TYPED_CALL_OF_TWO(pointer_between_uchars)
static pointer_between_uchars pointer_between_uchars_values[3] = ALIGNED_VALUES(AS_POINTER);

/* ---- every case ---------------------------------------------------------------------------- */

static const closure_case struct_cases[] = {
    /* one to seven unsigned chars */
    SUM_OF_TWO("cls_1_1byte.c", one_uchar, "C"),
    SUM_OF_TWO("cls_2byte.c", two_uchars, "CC"),
    SUM_OF_TWO("cls_3_1byte.c", three_uchars, "CCC"),
    SUM_OF_TWO("cls_4_1byte.c", four_uchars, "CCCC"),
    SUM_OF_TWO("cls_5_1_byte.c", five_uchars, "CCCCC"),
    SUM_OF_TWO("cls_6_1_byte.c", six_uchars, "CCCCCC"),
    SUM_OF_TWO("cls_7_1_byte.c", seven_uchars, "CCCCCCC"),
    /* unsigned shorts and chars */
    SUM_OF_TWO("cls_3byte1.c", ushort_uchar, "SC"),
    SUM_OF_TWO("cls_3byte2.c", uchar_ushort, "CS"),
    SUM_OF_TWO("cls_4byte.c", two_ushorts, "SS"),
    SUM_OF_TWO("cls_5byte.c", two_ushorts_uchar, "SSC"),
    SUM_OF_TWO("cls_6byte.c", two_ushorts_two_uchars, "SSCC"),
    SUM_OF_TWO("cls_7byte.c", two_ushorts_uchar_ushort, "SSCS"),
    /* ints, floats and doubles up to 16 bytes */
    SUM_OF_TWO("cls_3float.c", three_floats, "fff"),
    SUM_OF_TWO("cls_8byte.c", int_float, "if"),
    SUM_OF_TWO("cls_9byte1.c", int_double, "id"),
    SUM_OF_TWO("cls_9byte2.c", double_int, "di"),
    SUM_OF_TWO("cls_12byte.c", three_ints, "iii"),
    SUM_OF_TWO("cls_16byte.c", int_double_int, "idi"),
    /* doubles beside unsigned chars or an int, 18 to 20 bytes */
    SUM_OF_TWO("cls_18byte.c", double_two_uchars_double, "dCCd"),
    SUM_OF_TWO("cls_19byte.c", double_two_uchars_double_uchar, "dCCdC"),
    SUM_OF_TWO("cls_20byte.c", two_doubles_int, "ddi"),
    SUM_OF_TWO("cls_20byte1.c", int_two_doubles, "idd"),
    /* four structs summed, of 24 and of 64 bytes */
    SUM_OF_FOUR("cls_24byte.c", two_doubles_int_float, "ddif"),
    SUM_OF_FOUR("cls_64byte.c", eight_doubles, "dddddddd"),
    /* a scalar between two unsigned chars (long double's is in test_libffi_closures.c) */
    SUM_OF_TWO("cls_align_double.c", double_between_uchars, "CdC"),
    SUM_OF_TWO("cls_align_float.c", float_between_uchars, "CfC"),
    SUM_OF_TWO("cls_align_pointer.c", pointer_between_uchars, "C^vC"),
    SUM_OF_TWO("cls_align_sint16.c", sint16_between_uchars, "CsC"),
    SUM_OF_TWO("cls_align_sint32.c", sint32_between_uchars, "CiC"),
    SUM_OF_TWO("cls_align_sint64.c", sint64_between_uchars, "CqC"),
    SUM_OF_TWO("cls_align_uint16.c", uint16_between_uchars, "CSC"),
    SUM_OF_TWO("cls_align_uint32.c", uint32_between_uchars, "CIC"),
    SUM_OF_TWO("cls_align_uint64.c", uint64_between_uchars, "CQC"),
};

/* cls_1_1byte.c, cls_2byte.c, cls_3_1byte.c, cls_4_1byte.c, cls_5_1_byte.c, cls_6_1_byte.c, cls_7_1_byte.c,
 * cls_3byte1.c, cls_3byte2.c, cls_4byte.c, cls_5byte.c, cls_6byte.c, cls_7byte.c, cls_3float.c, cls_8byte.c,
 * cls_9byte1.c, cls_9byte2.c, cls_12byte.c, cls_16byte.c, cls_18byte.c, cls_19byte.c, cls_20byte.c,
 * cls_20byte1.c, cls_24byte.c, cls_64byte.c, cls_align_double.c, cls_align_float.c, cls_align_pointer.c,
 * cls_align_sint16.c, cls_align_sint32.c, cls_align_sint64.c, cls_align_uint16.c, cls_align_uint32.c
 * and cls_align_uint64.c */
static void a_closure_receives_and_returns_structs_of_each_size_and_alignment(void **state) {
    (void)state;
    case_failures = 0;
    for (size_t i = 0; i < ARRAY_COUNT(struct_cases); i++) check_closure_case(&struct_cases[i]);
    if (case_failures > 0) fail_msg("%zu checks failed, each named above", case_failures);
}

/* ---- a struct of two doubles to a closure returning void ---------------------------------- */

typedef struct two_doubles {
    double x, y;
} two_doubles;

static void check_two_doubles(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value argument;
    assert_ok(dc_invocation_get_argument(call, 0, &argument));
    assert_int_equal(argument.type, DC_TYPE_STRUCT);
    const two_doubles *seen = argument.pointer;
    assert_true(seen->x == 1);
    assert_true(seen->y == 2);
    handler_calls++;
}

/* cls_dbls_struct.c (which calls the closure and the C function directly, no
 * ffi_call) */
static void a_closure_returning_void_receives_a_struct_of_two_doubles(void **state) {
    (void)state;
    dc_closure *closure = create_closure("v{two_doubles=dd}", check_two_doubles, NULL);
    handler_calls = 0;
    ((void (*)(two_doubles))dc_closure_function(closure))((two_doubles){1, 2});
    assert_int_equal(handler_calls, 1);
    dc_closure_destroy(closure);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_closure_receives_and_returns_structs_of_each_size_and_alignment),
        cmocka_unit_test(a_closure_returning_void_receives_a_struct_of_two_doubles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
