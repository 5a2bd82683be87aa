/*
 * test_libffi_closures_structs.c — libffi's testsuite/libffi.closures cases
 * of one struct shape passed by value and returned (cls_1_1byte.c to
 * cls_64byte.c, cls_dbls_struct.c and the cls_align_*.c files but long
 * double's), restated against the public API. Each case calls a C function
 * that sums its struct arguments field by field, once with dc_call and once
 * through a closure of the same signature called from C: the closure's
 * handler checks every field of every argument it reads, computes the sum
 * with the same C function and sets it as the return value; the caller checks
 * every field of what comes back against libffi's expected values. Each test
 * names the libffi file(s) it restates; libffi_closures_cases.txt lists them.
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

/* Fails naming the case and `what` (an argument or a result) unless each
 * field of `layout` has the same bytes in `expected` and `actual` (padding is
 * not compared). */
static void assert_fields_equal(const char *file, const char *what, const dc_layout *layout, const void *expected,
                                const void *actual) {
    for (size_t index = 0; index < layout->field_count; index++) {
        dc_layout field;
        assert_ok(dc_layout_field(layout, index, &field));
        const unsigned char *want = (const unsigned char *)expected + field.offset;
        const unsigned char *got = (const unsigned char *)actual + field.offset;
        if (memcmp(want, got, field.size) != 0) {
            char want_text[48], got_text[48];
            fail_msg("%s: %s, field %zu (%s at offset %zu): expected bytes %s, got %s", file, what, index,
                     field.encoding, field.offset, hex_bytes(want, field.size, want_text),
                     hex_bytes(got, field.size, got_text));
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
        assert_fields_equal(c->file, what, &layout, c->arguments[k], value.pointer);
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
    assert_fields_equal(c->file, "dc_call's result", &returned, c->expected, &result);

    dc_closure *closure = create_closure(c->encoding, check_arguments_and_sum, (void *)c);
    memset(&result, 0xa5, sizeof result);
    handler_calls = 0;
    c->call(dc_closure_function(closure), &result, c->arguments);
    assert_int_equal(handler_calls, 1);
    assert_fields_equal(c->file, "the closure's result", &returned, c->expected, &result);
    dc_closure_destroy(closure);
    dc_signature_release(signature);
}

/* STRUCT_SUMMED_IN_TWOS(T, FIELDS): a struct type T of FIELDS (an X-macro of
 * (type, name) pairs), T_sum, which sums two of them field by field, and
 * T_call, its typed_call; STRUCT_SUMMED_IN_FOURS the same for four. */
#define DECLARE_FIELD(type, name) type name;
#define ADD_TWO(type, name) sum.name = (type)(a1.name + a2.name);
#define ADD_FOUR(type, name) sum.name = (type)(b0.name + b1.name + b2.name + b3.name);

#define TYPED_CALL_OF_TWO(T)                                                                                   \
    static void T##_call(dc_function function, void *result, void *const *arguments) {                          \
        *(T *)result = ((T(*)(T, T))function)(*(T *)arguments[0], *(T *)arguments[1]);                          \
    }

#define STRUCT_SUMMED_IN_TWOS(T, FIELDS)                                                                       \
    typedef struct T {                                                                                          \
        FIELDS(DECLARE_FIELD)                                                                                   \
    } T;                                                                                                        \
    CALLEE static T T##_sum(T a1, T a2) {                                                                       \
        T sum;                                                                                                  \
        FIELDS(ADD_TWO)                                                                                         \
        return sum;                                                                                             \
    }                                                                                                           \
    TYPED_CALL_OF_TWO(T)

#define STRUCT_SUMMED_IN_FOURS(T, FIELDS)                                                                      \
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
    }

/* The encoding of T(T, T) and of T(T, T, T, T) for a struct encoding S. */
#define TWO_OF(S) S S S
#define FOUR_OF(S) S S S S S

/* check_closure_case of T_sum of two structs (S: T's encoding), with the
 * addresses of its arguments and of the sum expected. */
#define CHECK_SUM_OF_TWO(libffi_file, T, S, first, second, sum)                                                \
    check_closure_case(&(closure_case){libffi_file, TWO_OF(S), DC_FUNCTION(T##_sum), T##_call, 2, {first, second}, sum})

/* The same for T_sum of four structs. */
#define CHECK_SUM_OF_FOUR(libffi_file, T, S, b0, b1, b2, b3, sum)                                              \
    check_closure_case(                                                                                         \
        &(closure_case){libffi_file, FOUR_OF(S), DC_FUNCTION(T##_sum), T##_call, 4, {b0, b1, b2, b3}, sum})

/* ---- structs of unsigned chars ------------------------------------------------------------ */

#define ONE_UCHAR(F) F(unsigned char, a)
#define TWO_UCHARS(F) ONE_UCHAR(F) F(unsigned char, b)
#define THREE_UCHARS(F) TWO_UCHARS(F) F(unsigned char, c)
#define FOUR_UCHARS(F) THREE_UCHARS(F) F(unsigned char, d)
#define FIVE_UCHARS(F) FOUR_UCHARS(F) F(unsigned char, e)
#define SIX_UCHARS(F) FIVE_UCHARS(F) F(unsigned char, f)
#define SEVEN_UCHARS(F) SIX_UCHARS(F) F(unsigned char, g)
STRUCT_SUMMED_IN_TWOS(one_uchar, ONE_UCHAR)
STRUCT_SUMMED_IN_TWOS(two_uchars, TWO_UCHARS)
STRUCT_SUMMED_IN_TWOS(three_uchars, THREE_UCHARS)
STRUCT_SUMMED_IN_TWOS(four_uchars, FOUR_UCHARS)
STRUCT_SUMMED_IN_TWOS(five_uchars, FIVE_UCHARS)
STRUCT_SUMMED_IN_TWOS(six_uchars, SIX_UCHARS)
STRUCT_SUMMED_IN_TWOS(seven_uchars, SEVEN_UCHARS)

/* cls_1_1byte.c */
static void a_closure_receives_and_returns_a_struct_of_one_uchar(void **state) {
    (void)state;
    one_uchar first = {12}, second = {178}, sum = {190};
    CHECK_SUM_OF_TWO("cls_1_1byte.c", one_uchar, "{one_uchar=C}", &first, &second, &sum);
}

/* cls_2byte.c */
static void a_closure_receives_and_returns_a_struct_of_two_uchars(void **state) {
    (void)state;
    two_uchars first = {12, 127}, second = {1, 13}, sum = {13, 140};
    CHECK_SUM_OF_TWO("cls_2byte.c", two_uchars, "{two_uchars=CC}", &first, &second, &sum);
}

/* cls_3_1byte.c */
static void a_closure_receives_and_returns_a_struct_of_three_uchars(void **state) {
    (void)state;
    three_uchars first = {12, 13, 14}, second = {178, 179, 180}, sum = {190, 192, 194};
    CHECK_SUM_OF_TWO("cls_3_1byte.c", three_uchars, "{three_uchars=CCC}", &first, &second, &sum);
}

/* cls_4_1byte.c */
static void a_closure_receives_and_returns_a_struct_of_four_uchars(void **state) {
    (void)state;
    four_uchars first = {12, 13, 14, 15}, second = {178, 179, 180, 181}, sum = {190, 192, 194, 196};
    CHECK_SUM_OF_TWO("cls_4_1byte.c", four_uchars, "{four_uchars=CCCC}", &first, &second, &sum);
}

/* cls_5_1_byte.c */
static void a_closure_receives_and_returns_a_struct_of_five_uchars(void **state) {
    (void)state;
    five_uchars first = {127, 120, 1, 3, 4}, second = {12, 128, 9, 3, 4}, sum = {139, 248, 10, 6, 8};
    CHECK_SUM_OF_TWO("cls_5_1_byte.c", five_uchars, "{five_uchars=CCCCC}", &first, &second, &sum);
}

/* cls_6_1_byte.c */
static void a_closure_receives_and_returns_a_struct_of_six_uchars(void **state) {
    (void)state;
    six_uchars first = {127, 120, 1, 3, 4, 5}, second = {12, 128, 9, 3, 4, 5}, sum = {139, 248, 10, 6, 8, 10};
    CHECK_SUM_OF_TWO("cls_6_1_byte.c", six_uchars, "{six_uchars=CCCCCC}", &first, &second, &sum);
}

/* cls_7_1_byte.c */
static void a_closure_receives_and_returns_a_struct_of_seven_uchars(void **state) {
    (void)state;
    seven_uchars first = {127, 120, 1, 3, 4, 5, 6}, second = {12, 128, 9, 3, 4, 5, 6},
                 sum = {139, 248, 10, 6, 8, 10, 12};
    CHECK_SUM_OF_TWO("cls_7_1_byte.c", seven_uchars, "{seven_uchars=CCCCCCC}", &first, &second, &sum);
}

/* ---- structs of unsigned shorts and chars ----------------------------------------------- */

#define USHORT_UCHAR(F) F(unsigned short, a) F(unsigned char, b)
#define UCHAR_USHORT(F) F(unsigned char, a) F(unsigned short, b)
#define TWO_USHORTS(F) F(unsigned short, a) F(unsigned short, b)
#define TWO_USHORTS_UCHAR(F) TWO_USHORTS(F) F(unsigned char, c)
#define TWO_USHORTS_TWO_UCHARS(F) TWO_USHORTS_UCHAR(F) F(unsigned char, d)
#define TWO_USHORTS_UCHAR_USHORT(F) TWO_USHORTS_UCHAR(F) F(unsigned short, d)
STRUCT_SUMMED_IN_TWOS(ushort_uchar, USHORT_UCHAR)
STRUCT_SUMMED_IN_TWOS(uchar_ushort, UCHAR_USHORT)
STRUCT_SUMMED_IN_TWOS(two_ushorts, TWO_USHORTS)
STRUCT_SUMMED_IN_TWOS(two_ushorts_uchar, TWO_USHORTS_UCHAR)
STRUCT_SUMMED_IN_TWOS(two_ushorts_two_uchars, TWO_USHORTS_TWO_UCHARS)
STRUCT_SUMMED_IN_TWOS(two_ushorts_uchar_ushort, TWO_USHORTS_UCHAR_USHORT)

/* cls_3byte1.c */
static void a_closure_receives_and_returns_a_struct_of_a_ushort_then_a_uchar(void **state) {
    (void)state;
    ushort_uchar first = {12, 119}, second = {1, 15}, sum = {13, 134};
    CHECK_SUM_OF_TWO("cls_3byte1.c", ushort_uchar, "{ushort_uchar=SC}", &first, &second, &sum);
}

/* cls_3byte2.c */
static void a_closure_receives_and_returns_a_struct_of_a_uchar_then_a_ushort(void **state) {
    (void)state;
    uchar_ushort first = {15, 125}, second = {9, 19}, sum = {24, 144};
    CHECK_SUM_OF_TWO("cls_3byte2.c", uchar_ushort, "{uchar_ushort=CS}", &first, &second, &sum);
}

/* cls_4byte.c */
static void a_closure_receives_and_returns_a_struct_of_two_ushorts(void **state) {
    (void)state;
    two_ushorts first = {127, 120}, second = {12, 128}, sum = {139, 248};
    CHECK_SUM_OF_TWO("cls_4byte.c", two_ushorts, "{two_ushorts=SS}", &first, &second, &sum);
}

/* cls_5byte.c */
static void a_closure_receives_and_returns_a_struct_of_two_ushorts_and_a_uchar(void **state) {
    (void)state;
    two_ushorts_uchar first = {127, 120, 1}, second = {12, 128, 9}, sum = {139, 248, 10};
    CHECK_SUM_OF_TWO("cls_5byte.c", two_ushorts_uchar, "{two_ushorts_uchar=SSC}", &first, &second, &sum);
}

/* cls_6byte.c */
static void a_closure_receives_and_returns_a_struct_of_two_ushorts_and_two_uchars(void **state) {
    (void)state;
    two_ushorts_two_uchars first = {127, 120, 1, 128}, second = {12, 128, 9, 127}, sum = {139, 248, 10, 255};
    CHECK_SUM_OF_TWO("cls_6byte.c", two_ushorts_two_uchars, "{two_ushorts_two_uchars=SSCC}", &first, &second,
                     &sum);
}

/* cls_7byte.c */
static void a_closure_receives_and_returns_a_struct_of_two_ushorts_a_uchar_and_a_ushort(void **state) {
    (void)state;
    two_ushorts_uchar_ushort first = {127, 120, 1, 254}, second = {12, 128, 9, 255}, sum = {139, 248, 10, 509};
    CHECK_SUM_OF_TWO("cls_7byte.c", two_ushorts_uchar_ushort, "{two_ushorts_uchar_ushort=SSCS}", &first, &second,
                     &sum);
}

/* ---- structs of ints, floats and doubles ------------------------------------------------ */

#define THREE_FLOATS(F) F(float, f) F(float, g) F(float, h)
#define INT_FLOAT(F) F(int, a) F(float, b)
#define INT_DOUBLE(F) F(int, a) F(double, b)
#define DOUBLE_INT(F) F(double, a) F(int, b)
#define THREE_INTS(F) F(int, a) F(int, b) F(int, c)
#define INT_DOUBLE_INT(F) F(int, a) F(double, b) F(int, c)
STRUCT_SUMMED_IN_TWOS(three_floats, THREE_FLOATS)
STRUCT_SUMMED_IN_TWOS(int_float, INT_FLOAT)
STRUCT_SUMMED_IN_TWOS(int_double, INT_DOUBLE)
STRUCT_SUMMED_IN_TWOS(double_int, DOUBLE_INT)
STRUCT_SUMMED_IN_TWOS(three_ints, THREE_INTS)
STRUCT_SUMMED_IN_TWOS(int_double_int, INT_DOUBLE_INT)

/* cls_3float.c */
static void a_closure_receives_and_returns_a_struct_of_three_floats(void **state) {
    (void)state;
    three_floats first = {1, 2, 3}, second = {1, 2, 3}, sum = {2, 4, 6};
    CHECK_SUM_OF_TWO("cls_3float.c", three_floats, "{three_floats=fff}", &first, &second, &sum);
}

/* cls_8byte.c */
static void a_closure_receives_and_returns_a_struct_of_an_int_and_a_float(void **state) {
    (void)state;
    int_float first = {1, 2}, second = {4, 5}, sum = {5, 7};
    CHECK_SUM_OF_TWO("cls_8byte.c", int_float, "{int_float=if}", &first, &second, &sum);
}

/* cls_9byte1.c */
static void a_closure_receives_and_returns_a_struct_of_an_int_then_a_double(void **state) {
    (void)state;
    int_double first = {7, 8}, second = {1, 9}, sum = {8, 17};
    CHECK_SUM_OF_TWO("cls_9byte1.c", int_double, "{int_double=id}", &first, &second, &sum);
}

/* cls_9byte2.c */
static void a_closure_receives_and_returns_a_struct_of_a_double_then_an_int(void **state) {
    (void)state;
    double_int first = {7, 8}, second = {1, 9}, sum = {8, 17};
    CHECK_SUM_OF_TWO("cls_9byte2.c", double_int, "{double_int=di}", &first, &second, &sum);
}

/* cls_12byte.c */
static void a_closure_receives_and_returns_a_struct_of_three_ints(void **state) {
    (void)state;
    three_ints first = {7, 4, 9}, second = {1, 5, 3}, sum = {8, 9, 12};
    CHECK_SUM_OF_TWO("cls_12byte.c", three_ints, "{three_ints=iii}", &first, &second, &sum);
}

/* cls_16byte.c */
static void a_closure_receives_and_returns_a_struct_of_a_double_between_two_ints(void **state) {
    (void)state;
    int_double_int first = {7, 8, 9}, second = {1, 9, 3}, sum = {8, 17, 12};
    CHECK_SUM_OF_TWO("cls_16byte.c", int_double_int, "{int_double_int=idi}", &first, &second, &sum);
}

/* ---- larger structs of doubles with chars, ints and floats -------------------------------- */

#define DOUBLE_TWO_UCHARS_DOUBLE(F) F(double, a) F(unsigned char, b) F(unsigned char, c) F(double, d)
#define DOUBLE_TWO_UCHARS_DOUBLE_UCHAR(F) DOUBLE_TWO_UCHARS_DOUBLE(F) F(unsigned char, e)
#define TWO_DOUBLES_INT(F) F(double, a) F(double, b) F(int, c)
#define INT_TWO_DOUBLES(F) F(int, a) F(double, b) F(double, c)
#define TWO_DOUBLES_INT_FLOAT(F) TWO_DOUBLES_INT(F) F(float, d)
#define EIGHT_DOUBLES(F)                                                                                        \
    F(double, a) F(double, b) F(double, c) F(double, d) F(double, e) F(double, f) F(double, g) F(double, h)
STRUCT_SUMMED_IN_TWOS(double_two_uchars_double, DOUBLE_TWO_UCHARS_DOUBLE)
STRUCT_SUMMED_IN_TWOS(double_two_uchars_double_uchar, DOUBLE_TWO_UCHARS_DOUBLE_UCHAR)
STRUCT_SUMMED_IN_TWOS(two_doubles_int, TWO_DOUBLES_INT)
STRUCT_SUMMED_IN_TWOS(int_two_doubles, INT_TWO_DOUBLES)
STRUCT_SUMMED_IN_FOURS(two_doubles_int_float, TWO_DOUBLES_INT_FLOAT)
STRUCT_SUMMED_IN_FOURS(eight_doubles, EIGHT_DOUBLES)

/* cls_18byte.c */
static void a_closure_receives_and_returns_a_struct_of_two_uchars_between_two_doubles(void **state) {
    (void)state;
    double_two_uchars_double first = {1, 127, 126, 3}, second = {4, 125, 124, 5}, sum = {5, 252, 250, 8};
    CHECK_SUM_OF_TWO("cls_18byte.c", double_two_uchars_double, "{double_two_uchars_double=dCCd}", &first, &second,
                     &sum);
}

/* cls_19byte.c */
static void a_closure_receives_and_returns_a_struct_of_doubles_and_uchars_ending_in_a_uchar(void **state) {
    (void)state;
    double_two_uchars_double_uchar first = {1, 127, 126, 3, 120}, second = {4, 125, 124, 5, 119},
                                   sum = {5, 252, 250, 8, 239};
    CHECK_SUM_OF_TWO("cls_19byte.c", double_two_uchars_double_uchar, "{double_two_uchars_double_uchar=dCCdC}",
                     &first, &second, &sum);
}

/* cls_20byte.c */
static void a_closure_receives_and_returns_a_struct_of_two_doubles_then_an_int(void **state) {
    (void)state;
    two_doubles_int first = {1, 2, 3}, second = {4, 5, 7}, sum = {5, 7, 10};
    CHECK_SUM_OF_TWO("cls_20byte.c", two_doubles_int, "{two_doubles_int=ddi}", &first, &second, &sum);
}

/* cls_20byte1.c */
static void a_closure_receives_and_returns_a_struct_of_an_int_then_two_doubles(void **state) {
    (void)state;
    int_two_doubles first = {1, 2, 3}, second = {4, 5, 7}, sum = {5, 7, 10};
    CHECK_SUM_OF_TWO("cls_20byte1.c", int_two_doubles, "{int_two_doubles=idd}", &first, &second, &sum);
}

/* cls_24byte.c */
static void a_closure_sums_four_structs_of_two_doubles_an_int_and_a_float(void **state) {
    (void)state;
    two_doubles_int_float b0 = {9, 2, 6, 5}, b1 = {1, 2, 3, 7}, b2 = {4, 5, 7, 9}, b3 = {8, 6, 1, 4},
                          sum = {22, 15, 17, 25};
    CHECK_SUM_OF_FOUR("cls_24byte.c", two_doubles_int_float, "{two_doubles_int_float=ddif}", &b0, &b1, &b2, &b3,
                      &sum);
}

/* cls_64byte.c */
static void a_closure_sums_four_structs_of_eight_doubles(void **state) {
    (void)state;
    eight_doubles b0 = {9, 2, 6, 5, 3, 4, 8, 1}, b1 = {1, 2, 3, 7, 2, 5, 6, 7}, b2 = {4, 5, 7, 9, 1, 1, 2, 9},
                  b3 = {8, 6, 1, 4, 0, 3, 3, 1}, sum = {22, 15, 17, 25, 6, 13, 19, 18};
    CHECK_SUM_OF_FOUR("cls_64byte.c", eight_doubles, "{eight_doubles=dddddddd}", &b0, &b1, &b2, &b3, &sum);
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

/* The case of libffi_file for T, `code` the middle field's encoding. */
#define ALIGNED_CASE(libffi_file, T, code)                                                                     \
    {libffi_file, TWO_OF("{" #T "=C" code "C}"), DC_FUNCTION(T##_sum), T##_call, 2,                             \
     {&T##_values[0], &T##_values[1]}, &T##_values[2]}

static const closure_case aligned_cases[] = {
    ALIGNED_CASE("cls_align_double.c", double_between_uchars, "d"),
    ALIGNED_CASE("cls_align_float.c", float_between_uchars, "f"),
    ALIGNED_CASE("cls_align_pointer.c", pointer_between_uchars, "^v"),
    ALIGNED_CASE("cls_align_sint16.c", sint16_between_uchars, "s"),
    ALIGNED_CASE("cls_align_sint32.c", sint32_between_uchars, "i"),
    ALIGNED_CASE("cls_align_sint64.c", sint64_between_uchars, "q"),
    ALIGNED_CASE("cls_align_uint16.c", uint16_between_uchars, "S"),
    ALIGNED_CASE("cls_align_uint32.c", uint32_between_uchars, "I"),
    ALIGNED_CASE("cls_align_uint64.c", uint64_between_uchars, "Q"),
};

/* cls_align_double.c, cls_align_float.c, cls_align_pointer.c, cls_align_sint16.c, cls_align_sint32.c,
 * cls_align_sint64.c, cls_align_uint16.c, cls_align_uint32.c and cls_align_uint64.c (long double's is in
 * test_libffi_closures.c) */
static void a_closure_keeps_each_scalar_aligned_between_two_uchars(void **state) {
    (void)state;
    for (size_t i = 0; i < ARRAY_COUNT(aligned_cases); i++) check_closure_case(&aligned_cases[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_one_uchar),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_two_uchars),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_three_uchars),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_four_uchars),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_five_uchars),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_six_uchars),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_seven_uchars),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_a_ushort_then_a_uchar),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_a_uchar_then_a_ushort),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_two_ushorts),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_two_ushorts_and_a_uchar),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_two_ushorts_and_two_uchars),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_two_ushorts_a_uchar_and_a_ushort),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_three_floats),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_an_int_and_a_float),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_an_int_then_a_double),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_a_double_then_an_int),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_three_ints),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_a_double_between_two_ints),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_two_uchars_between_two_doubles),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_doubles_and_uchars_ending_in_a_uchar),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_two_doubles_then_an_int),
        cmocka_unit_test(a_closure_receives_and_returns_a_struct_of_an_int_then_two_doubles),
        cmocka_unit_test(a_closure_sums_four_structs_of_two_doubles_an_int_and_a_float),
        cmocka_unit_test(a_closure_sums_four_structs_of_eight_doubles),
        cmocka_unit_test(a_closure_returning_void_receives_a_struct_of_two_doubles),
        cmocka_unit_test(a_closure_keeps_each_scalar_aligned_between_two_uchars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
