/*
 * test_libffi_call_structs.c — libffi's testsuite/libffi.call cases of structs
 * by value, restated against the public API: structs passed, changed by the
 * callee and returned; structs that must reach the callee as copies; nested
 * structs and arrays beside a callback; structs among pointers and scalars;
 * and a struct's layout. Each test names the libffi file(s) it restates;
 * libffi_call_cases.txt lists them all.
 */
#include "test_support.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

/* Calls `function`, taking one struct and returning a struct, through
 * `encoding` with the struct at `argument`, the result written to `result`. */
static void call_with_struct(const char *encoding, dc_function function, void *argument, void *result) {
    dc_value returned = dc_struct(result);
    call_encoded(encoding, -1, function, (dc_value[]){dc_struct(argument)}, 1, &returned);
    assert_ptr_equal(returned.pointer, result);
}

/* The size of the struct `encoding` returns, as the library lays it out. */
static size_t return_size(const char *encoding) {
    dc_signature *signature = create_signature(encoding);
    dc_layout layout;
    assert_ok(dc_signature_return_layout(signature, &layout));
    dc_signature_release(signature);
    return layout.size;
}

/* x + y rounded to the type, as a callee's store into a struct field rounds
 * it. Where double arithmetic is done wider (i386's x87, FLT_EVAL_METHOD 2),
 * "6.66 + 1" in a test is wider too, constants included, until assigned or
 * cast; libffi's tests, built in GNU C, compare without rounding. */
static double double_sum(double x, double y) { return (double)(x + y); }
static float float_sum(float x, float y) { return (float)(x + y); }

/* ---- structs passed, changed and returned ------------------------------------ */

typedef struct test_structure_1 {
    unsigned char uc;
    double d;
    unsigned int ui;
} test_structure_1;

CALLEE static test_structure_1 struct1(test_structure_1 ts) {
    ts.uc++;
    ts.d--;
    ts.ui++;
    return ts;
}

/* struct1.c and uninitialized.c (the same call, which libffi makes on a cif
 * that held garbage; a dc_signature is made by the library, never in the
 * caller's storage). */
static void struct1_char_double_unsigned_struct_is_changed_and_returned(void **state) {
    (void)state;
    test_structure_1 argument = {'\x01', 3.14159, 555}, result;
    call_with_struct("{test_structure_1=CdI}{test_structure_1=CdI}", DC_FUNCTION(struct1), &argument, &result);
    assert_int_equal(result.ui, 556);
    assert_true(result.d == double_sum(3.14159, -1));
    assert_int_equal(result.uc, 2);
}

typedef struct test_structure_2 {
    double d1, d2;
} test_structure_2;
CALLEE static test_structure_2 struct2(test_structure_2 ts) {
    ts.d1--;
    ts.d2--;
    return ts;
}

typedef struct test_structure_3 {
    int si;
} test_structure_3;
CALLEE static test_structure_3 struct3(test_structure_3 ts) {
    ts.si = -(ts.si * 2);
    return ts;
}

typedef struct test_structure_4 {
    unsigned ui1, ui2, ui3;
} test_structure_4;
CALLEE static test_structure_4 struct4(test_structure_4 ts) {
    ts.ui3 = ts.ui1 * ts.ui2 * ts.ui3;
    return ts;
}

/* struct2.c, struct3.c, struct4.c */
static void struct2_struct3_and_struct4_two_doubles_one_int_and_three_unsigned(void **state) {
    (void)state;
    test_structure_2 two = {5.55, 6.66}, two_result;
    call_with_struct("{test_structure_2=dd}{test_structure_2=dd}", DC_FUNCTION(struct2), &two, &two_result);
    assert_true(two_result.d1 == double_sum(5.55, -1));
    assert_true(two_result.d2 == double_sum(6.66, -1));

    test_structure_3 three = {-123}, three_result;
    call_with_struct("{test_structure_3=i}{test_structure_3=i}", DC_FUNCTION(struct3), &three, &three_result);
    assert_int_equal(three_result.si, -(-123 * 2));

    test_structure_4 four = {2, 3, 4}, four_result;
    call_with_struct("{test_structure_4=III}{test_structure_4=III}", DC_FUNCTION(struct4), &four, &four_result);
    assert_int_equal(four_result.ui3, 2U * 3U * 4U);
}

typedef struct test_structure_5 {
    char c1, c2;
} test_structure_5;
CALLEE static test_structure_5 struct5(test_structure_5 ts1, test_structure_5 ts2) {
    ts1.c1 += ts2.c1;
    ts1.c2 -= ts2.c2;
    return ts1;
}

/* struct5.c */
static void struct5_two_structs_of_two_chars_combine(void **state) {
    (void)state;
    test_structure_5 first = {2, 6}, second = {5, 3}, result;
    dc_value returned = dc_struct(&result);
    call_with("{test_structure_5=cc}{test_structure_5=cc}{test_structure_5=cc}", struct5, &returned,
              dc_struct(&first), dc_struct(&second));
    assert_int_equal(result.c1, 7);
    assert_int_equal(result.c2, 3);
}

/* struct6.c to struct9.c: structs whose callee adds one to every field. */
#define FIELDS_6(F) F(float, f) F(double, d)
#define FIELDS_7(F) F(float, f1) F(float, f2) F(double, d)
#define FIELDS_8(F) F(float, f1) F(float, f2) F(float, f3) F(float, f4)
#define FIELDS_9(F) F(float, f) F(int, i)
#define DECLARE_FIELD(type, name) type name;
#define GROW_FIELD(type, name) ts.name += 1;
#define EACH_FIELD_GROWS(name, FIELDS)                                                                      \
    typedef struct name {                                                                                   \
        FIELDS(DECLARE_FIELD)                                                                               \
    } name;                                                                                                 \
    CALLEE static name name##_grown(name ts) {                                                              \
        FIELDS(GROW_FIELD)                                                                                  \
        return ts;                                                                                          \
    }
EACH_FIELD_GROWS(test_structure_6, FIELDS_6)
EACH_FIELD_GROWS(test_structure_7, FIELDS_7)
EACH_FIELD_GROWS(test_structure_8, FIELDS_8)
EACH_FIELD_GROWS(test_structure_9, FIELDS_9)

/* struct6.c, struct7.c, struct8.c, struct9.c */
static void struct6_to_struct9_floats_beside_doubles_and_ints_each_grow_by_one(void **state) {
    (void)state;
    test_structure_6 six = {5.55f, 6.66}, six_result;
    call_with_struct("{test_structure_6=fd}{test_structure_6=fd}", DC_FUNCTION(test_structure_6_grown),
                     &six, &six_result);
    assert_true(six_result.f == float_sum(5.55f, 1));
    assert_true(six_result.d == double_sum(6.66, 1));

    test_structure_7 seven = {5.55f, 55.5f, 6.66}, seven_result;
    call_with_struct("{test_structure_7=ffd}{test_structure_7=ffd}", DC_FUNCTION(test_structure_7_grown),
                     &seven, &seven_result);
    assert_true(seven_result.f1 == float_sum(5.55f, 1));
    assert_true(seven_result.f2 == float_sum(55.5f, 1));
    assert_true(seven_result.d == double_sum(6.66, 1));

    test_structure_8 eight = {5.55f, 55.5f, -5.55f, -55.5f}, eight_result;
    call_with_struct("{test_structure_8=ffff}{test_structure_8=ffff}", DC_FUNCTION(test_structure_8_grown),
                     &eight, &eight_result);
    assert_true(eight_result.f1 == float_sum(5.55f, 1));
    assert_true(eight_result.f2 == float_sum(55.5f, 1));
    assert_true(eight_result.f3 == float_sum(-5.55f, 1));
    assert_true(eight_result.f4 == float_sum(-55.5f, 1));

    test_structure_9 nine = {5.55f, 5}, nine_result;
    call_with_struct("{test_structure_9=fi}{test_structure_9=fi}", DC_FUNCTION(test_structure_9_grown),
                     &nine, &nine_result);
    assert_true(nine_result.f == float_sum(5.55f, 1));
    assert_int_equal(nine_result.i, 5 + 1);
}

typedef struct int_float_char {
    int s32;
    float f32;
    signed char s8;
} int_float_char;
CALLEE static int_float_char make_s(void) { return (int_float_char){0x1234, 7.0f, 0x78}; }

/* struct10.c */
static void struct10_a_struct_returned_without_arguments_overwrites_the_buffer(void **state) {
    (void)state;
    int_float_char result = {0xbad, 999.999f, 0x51};
    dc_value returned = dc_struct(&result);
    call_encoded("{s=ifc}", -1, DC_FUNCTION(make_s), NULL, 0, &returned);
    assert_int_equal(result.s32, 0x1234);
    assert_true(result.f32 == 7.0f);
    assert_int_equal(result.s8, 0x78);
}

typedef struct two_shorts {
    short x, y;
} two_shorts;
CALLEE static two_shorts struct_return_2h(two_shorts in) {
    in.x *= 2;
    in.y *= 3;
    return in;
}

typedef struct eight_ints {
    int a, b, c, d, e, f, g, h;
} eight_ints;
CALLEE static eight_ints struct_return_8h(eight_ints in) {
    in.a *= 2;
    in.b *= 3;
    in.c *= 4;
    in.d *= 5;
    in.e *= 6;
    in.f *= 7;
    in.g *= 8;
    in.h *= 9;
    return in;
}

/* struct_return_2H.c, struct_return_8H.c */
static void struct_return_2h_and_8h_multiply_each_field_and_leave_the_argument(void **state) {
    (void)state;
    two_shorts two = {99, 88}, two_result;
    call_with_struct("{two=ss}{two=ss}", DC_FUNCTION(struct_return_2h), &two, &two_result);
    assert_int_equal(two_result.x, 99 * 2);
    assert_int_equal(two_result.y, 88 * 3);
    assert_int_equal(two.x, 99);
    assert_int_equal(two.y, 88);

    eight_ints eight = {9, 8, 7, 6, 5, 4, 3, 2}, eight_result;
    call_with_struct("{eight=iiiiiiii}{eight=iiiiiiii}", DC_FUNCTION(struct_return_8h), &eight, &eight_result);
    const int expected[] = {9 * 2, 8 * 3, 7 * 4, 6 * 5, 5 * 6, 4 * 7, 3 * 8, 2 * 9};
    assert_memory_equal(&eight_result, expected, sizeof expected);
}

/* ---- structs that reach the callee as copies --------------------------------- */

/* A struct of `count` unsigned ints or floats whose callee adds one to the
 * last field of its copy and returns it, as each struct_by_value file's does. */
#define LAST_FIELD_GROWS(name, element, count)                                                               \
    typedef struct name {                                                                                   \
        element fields[count];                                                                              \
    } name;                                                                                                 \
    CALLEE static name grow_last_of_##name(name ts) {                                                       \
        ts.fields[count - 1]++;                                                                             \
        return ts;                                                                                          \
    }
LAST_FIELD_GROWS(uint_1, unsigned int, 1)
LAST_FIELD_GROWS(uint_2, unsigned int, 2)
LAST_FIELD_GROWS(uint_3, unsigned int, 3)
LAST_FIELD_GROWS(uint_4, unsigned int, 4)
LAST_FIELD_GROWS(uint_17, unsigned int, 17)
LAST_FIELD_GROWS(float_3, float, 3)
LAST_FIELD_GROWS(float_4, float, 4)

/* Calls name's callee with its last field 555 (555.5 for floats): the result's
 * is one more, and the caller's struct is unchanged. */
#define ASSERT_THE_CALLEE_CHANGES_A_COPY(name, field_code, last)                                            \
    do {                                                                                                    \
        enum { COUNT = ARRAY_COUNT(((name *)NULL)->fields) };                                               \
        char encoding[2 * (COUNT + 2) + 1] = "{?=";                                                         \
        for (int k = 0; k < COUNT; k++) strcat(encoding, field_code);                                       \
        strcat(encoding, "}");                                                                              \
        char both[sizeof encoding * 2];                                                                     \
        snprintf(both, sizeof both, "%s%s", encoding, encoding);                                            \
        name given = {.fields[COUNT - 1] = (last)}, result;                                                 \
        call_with_struct(both, DC_FUNCTION(grow_last_of_##name), &given, &result);                          \
        assert_true(result.fields[COUNT - 1] == (last) + 1);                                                \
        assert_true(given.fields[COUNT - 1] == (last));                                                     \
    } while (0)

/* struct_by_value_small.c, struct_by_value_2.c, struct_by_value_3.c,
 * struct_by_value_4.c, struct_by_value_big.c, struct_by_value_3f.c,
 * struct_by_value_4f.c: the callee's change reaches the result and never the
 * caller's struct. */
static void struct_by_value_small_to_big_the_callee_changes_a_copy(void **state) {
    (void)state;
    ASSERT_THE_CALLEE_CHANGES_A_COPY(uint_1, "I", 555u);
    ASSERT_THE_CALLEE_CHANGES_A_COPY(uint_2, "I", 555u);
    ASSERT_THE_CALLEE_CHANGES_A_COPY(uint_3, "I", 555u);
    ASSERT_THE_CALLEE_CHANGES_A_COPY(uint_4, "I", 555u);
    ASSERT_THE_CALLEE_CHANGES_A_COPY(uint_17, "I", 555u);
    ASSERT_THE_CALLEE_CHANGES_A_COPY(float_3, "f", 555.5f);
    ASSERT_THE_CALLEE_CHANGES_A_COPY(float_4, "f", 555.5f);
}

typedef struct big_struct {
    int v[8];
} big_struct;
CALLEE static int sum_big(big_struct s) {
    int sum = 0;
    for (int i = 0; i < 8; i++) sum += s.v[i];
    return sum;
}

/* large_struct_by_value.c */
static void large_struct_by_value_eight_ints_are_summed(void **state) {
    (void)state;
    big_struct in;
    int expected = 0;
    for (int i = 0; i < 8; i++) {
        in.v[i] = 0x1111 * (i + 1);
        expected += in.v[i];
    }
    dc_value result;
    call_with("i{big_struct=iiiiiiii}", sum_big, &result, dc_struct(&in));
    assert_int_equal(result.i32, expected);
}

/* ---- shapes a libffi defect passes wrongly: right, or refused on its ABI ------ */

typedef struct test_structure_int_float {
    unsigned long i;
    float f;
} test_structure_int_float;

CALLEE static float struct_int_float(test_structure_int_float ts1, test_structure_int_float ts2,
                                     test_structure_int_float ts3, test_structure_int_float ts4,
                                     test_structure_int_float ts5, test_structure_int_float ts6) {
    (void)ts2, (void)ts3, (void)ts4, (void)ts5, (void)ts6;
    return ts1.f;
}

#define INT_FLOAT "{test_structure_int_float=" ULONG_CODE "f}"

/* struct_int_float.c: on x86-64 the sixth struct takes the last integer
 * register, where libffi before 3.4.7 overwrites the first float argument;
 * the library refuses the signature there when the libffi it runs on fails
 * the probe, and calls it right everywhere else. */
static void struct_int_float_six_structs_of_a_long_and_a_float_or_the_x86_64_defect_refused(void **state) {
    (void)state;
    test_structure_int_float given[6] = {{1, 11.11f}, {2, 22.22f}, {3, 33.33f},
                                         {4, 44.44f}, {5, 55.55f}, {6, 66.66f}};
    dc_value arguments[6], result = dc_void();
    for (size_t k = 0; k < 6; k++) arguments[k] = dc_struct(&given[k]);
    bool called = call_or_refused("f" INT_FLOAT INT_FLOAT INT_FLOAT INT_FLOAT INT_FLOAT INT_FLOAT, -1,
                                  struct_int_float, arguments, &result, X86_64_DEFECT);
    if (called) {
        assert_true(fabs(result.f - 11.11) < 3 * FLT_EPSILON);
    } else {
#if !defined(__x86_64__)
        fail_msg("refused for the x86-64 defect on another ABI");
#endif
    }
}

enum { LARGE_STRUCTS = 16, LARGE_STRUCT_SIZE = 32 };
typedef struct large_bytes {
    unsigned char b[LARGE_STRUCT_SIZE];
} large_bytes;
#define LB large_bytes

CALLEE static int sum_bytes(LB s0, LB s1, LB s2, LB s3, LB s4, LB s5, LB s6, LB s7, LB s8, LB s9, LB s10, LB s11,
                           LB s12, LB s13, LB s14, LB s15) {
    const LB *all[LARGE_STRUCTS] = {&s0, &s1, &s2,  &s3,  &s4,  &s5,  &s6,  &s7,
                                    &s8, &s9, &s10, &s11, &s12, &s13, &s14, &s15};
    int sum = 0;
    for (int i = 0; i < LARGE_STRUCTS; i++)
        for (int j = 0; j < LARGE_STRUCT_SIZE; j++) sum += all[i]->b[j];
    return sum;
}
#undef LB

/* many_large_structs.c: sixteen 32-byte structs go by reference, their
 * pointers past the eight integer registers, where libffi before 3.7.1 on
 * AArch64 lets the copies overwrite them; refused there when the libffi it
 * runs on fails the probe, called right everywhere else. */
static void many_large_structs_sixteen_32_byte_structs_or_the_aarch64_defect_refused(void **state) {
    (void)state;
    large_bytes in[LARGE_STRUCTS];
    dc_value arguments[LARGE_STRUCTS], result = dc_void();
    char encoding[1 + LARGE_STRUCTS * sizeof "{large_bytes=[32C]}"] = "i";
    int expected = 0;
    for (int i = 0; i < LARGE_STRUCTS; i++) {
        memset(in[i].b, i + 1, sizeof in[i].b);
        expected += (i + 1) * LARGE_STRUCT_SIZE;
        arguments[i] = dc_struct(&in[i]);
        strcat(encoding, "{large_bytes=[32C]}");
    }
    if (call_or_refused(encoding, -1, sum_bytes, arguments, &result, AARCH64_DEFECT)) {
        assert_int_equal(result.i32, expected);
    } else {
#if !defined(__aarch64__)
        fail_msg("refused for the AArch64 defect on another ABI");
#endif
    }
}

/* ---- nested structs and arrays beside a callback ------------------------------- */

static int callbacks = 5;
CALLEE static void count_callback(void) { callbacks++; }

/* What callback.c, callback2.c and callback3.c's callees do last: add one to
 * the array of two doubles and the char after it, call back, return. */
#define GROW_DOUBLES_AND_C2_THEN_CALL(ts, func)                                                             \
    do {                                                                                                    \
        (ts).s[0] += 1;                                                                                     \
        (ts).s[1] += 1;                                                                                     \
        (ts).c2 += 1;                                                                                       \
        (func)();                                                                                           \
        return (ts);                                                                                        \
    } while (0)

typedef struct array_between_chars {
    unsigned char c1;
    double s[2];
    unsigned char c2;
} array_between_chars;
CALLEE static array_between_chars grow_array_between_chars(array_between_chars ts, void (*func)(void)) {
    ts.c1 += 1;
    GROW_DOUBLES_AND_C2_THEN_CALL(ts, func);
}

/* callback2.c and callback3.c's structs: a struct of `fields`, then the array
 * of two doubles and the char. */
#define NESTED_THEN_DOUBLES_AND_C2(name, fields)                                                            \
    typedef struct name {                                                                                   \
        struct {                                                                                            \
            fields                                                                                          \
        } s1;                                                                                               \
        double s[2];                                                                                        \
        unsigned char c2;                                                                                   \
    } name;

NESTED_THEN_DOUBLES_AND_C2(nested_double_then_array, double d;)
CALLEE static nested_double_then_array grow_nested_double_then_array(nested_double_then_array ts,
                                                                     void (*func)(void)) {
    ts.s1.d += 1;
    GROW_DOUBLES_AND_C2_THEN_CALL(ts, func);
}

NESTED_THEN_DOUBLES_AND_C2(nested_char_double_then_array, unsigned char c; double d;)
CALLEE static nested_char_double_then_array grow_nested_char_double_then_array(nested_char_double_then_array ts,
                                                                               void (*func)(void)) {
    ts.s1.c += 1;
    ts.s1.d += 1;
    GROW_DOUBLES_AND_C2_THEN_CALL(ts, func);
}

typedef struct array_of_structs_between_chars {
    unsigned char c1;
    struct {
        double d;
        unsigned char c;
    } s[2];
    unsigned char c2;
} array_of_structs_between_chars;
CALLEE static array_of_structs_between_chars grow_array_of_structs_between_chars(array_of_structs_between_chars ts,
                                                                                 void (*func)(void)) {
    ts.c1 += 1;
    ts.s[0].d += 1;
    ts.s[0].c += 1;
    ts.s[1].d += 1;
    ts.s[1].c += 1;
    ts.c2 += 1;
    func();
    return ts;
}

/* Calls `function`, which takes a struct of `encoding` and a callback and
 * returns the struct changed, with count_callback; checks that the callback
 * ran once and that the library lays the struct out at the compiler's size. */
static void call_with_struct_and_callback(const char *struct_encoding, dc_function function, void *argument,
                                          void *result, size_t size) {
    char encoding[160];
    snprintf(encoding, sizeof encoding, "%s%s^?", struct_encoding, struct_encoding);
    callbacks = 5;
    dc_value returned = dc_struct(result);
    dc_value arguments[] = {dc_struct(argument), dc_pointer((void *)(uintptr_t)count_callback)};
    call_encoded(encoding, -1, function, arguments, 2, &returned);
    assert_int_equal(callbacks, 5 + 1);
    assert_int_equal(return_size(encoding), size);
}

/* callback.c, callback2.c, callback3.c, callback4.c: libffi describes each
 * array as a struct of its elements, as the encodings here do. */
static void callback_to_callback4_nested_structs_and_arrays_grow_and_the_callback_runs(void **state) {
    (void)state;
    array_between_chars one = {5, {7.77, 8.88}, 6}, one_result;
    call_with_struct_and_callback("{ts12=C{?=dd}C}", DC_FUNCTION(grow_array_between_chars), &one, &one_result,
                                  sizeof one);
    assert_int_equal(one_result.c1, 5 + 1);
    assert_int_equal(one_result.c2, 6 + 1);
    assert_true(one_result.s[0] == double_sum(7.77, 1));
    assert_true(one_result.s[1] == double_sum(8.88, 1));

    nested_double_then_array two = {{5.55}, {7.77, 8.88}, 6}, two_result;
    call_with_struct_and_callback("{ts12={?=d}{?=dd}C}", DC_FUNCTION(grow_nested_double_then_array), &two,
                                  &two_result, sizeof two);
    assert_true(two_result.s1.d == double_sum(5.55, 1));
    assert_int_equal(two_result.c2, 6 + 1);
    assert_true(two_result.s[0] == double_sum(7.77, 1));
    assert_true(two_result.s[1] == double_sum(8.88, 1));

    nested_char_double_then_array three = {{5, 5.55}, {7.77, 8.88}, 6}, three_result;
    call_with_struct_and_callback("{ts12={?=Cd}{?=dd}C}", DC_FUNCTION(grow_nested_char_double_then_array), &three,
                                  &three_result, sizeof three);
    assert_int_equal(three_result.s1.c, 5 + 1);
    assert_true(three_result.s1.d == double_sum(5.55, 1));
    assert_int_equal(three_result.c2, 6 + 1);
    assert_true(three_result.s[0] == double_sum(7.77, 1));
    assert_true(three_result.s[1] == double_sum(8.88, 1));

    array_of_structs_between_chars four = {5, {{5.55, 6}, {7.77, 8}}, 9}, four_result;
    call_with_struct_and_callback("{ts12=C{?={?=dC}{?=dC}}C}", DC_FUNCTION(grow_array_of_structs_between_chars),
                                  &four, &four_result, sizeof four);
    assert_int_equal(four_result.c1, 5 + 1);
    assert_true(four_result.s[0].d == double_sum(5.55, 1));
    assert_int_equal(four_result.s[0].c, 6 + 1);
    assert_true(four_result.s[1].d == double_sum(7.77, 1));
    assert_int_equal(four_result.s[1].c, 8 + 1);
    assert_int_equal(four_result.c2, 9 + 1);
}

/* ---- structs among pointers and scalars ---------------------------------------- */

typedef struct POINT {
    long x, y;
} POINT;
typedef struct RECT {
    long left, top, right, bottom;
} RECT;

CALLEE static RECT pr_test(int i, RECT ar, RECT *br, POINT cp, RECT dr, RECT *er, POINT fp, RECT gr) {
    (void)i, (void)ar, (void)br, (void)cp, (void)dr, (void)er, (void)gr;
    return (RECT){.left = fp.x, .right = fp.y, .top = fp.x, .bottom = fp.y};
}

#define POINT_CODE "{POINT=" LONG_CODE LONG_CODE "}"
#define RECT_CODE "{RECT=" LONG_CODE LONG_CODE LONG_CODE LONG_CODE "}"

/* pr1172638.c */
static void pr1172638_a_point_after_rects_and_pointers_reaches_the_result(void **state) {
    (void)state;
    RECT ar = {2, 4, 3, 5}, br = {6, 8, 7, 9}, dr = {12, 14, 13, 15}, er = {16, 18, 17, 19}, gr = {22, 24, 23, 25};
    POINT cp = {10, 11}, fp = {20, 21};
    RECT result;
    dc_value returned = dc_struct(&result);
    call_with(RECT_CODE "i" RECT_CODE "^" RECT_CODE POINT_CODE RECT_CODE "^" RECT_CODE POINT_CODE RECT_CODE, pr_test,
              &returned, dc_int32(1), dc_struct(&ar), dc_pointer(&br), dc_struct(&cp), dc_struct(&dr),
              dc_pointer(&er), dc_struct(&fp), dc_struct(&gr));
    assert_int_equal(result.top, 20);
}

typedef struct Point {
    float x, y;
} Point;
typedef struct Size {
    float h, w;
} Size;
typedef struct Rect {
    Point o;
    Size s;
} Rect;

CALLEE static int doit(int o, char *s, Point p, Rect r, int last) {
    assert_int_equal(o, 0);
    assert_string_equal(s, "myMethod");
    assert_true(p.x == 1.0f && p.y == 2.0f);
    assert_true(r.o.x == 9.0f && r.o.y == 10.0f && r.s.h == -1.0f && r.s.w == -2.0f);
    assert_int_equal(last, 42);
    return 42;
}

/* pyobjc_tc.c: libffi prints what the callee received; here it checks it. */
static void pyobjc_tc_points_and_nested_rects_of_floats_arrive_between_ints(void **state) {
    (void)state;
    Point p = {1.0f, 2.0f};
    Rect r = {{9.0f, 10.0f}, {-1.0f, -2.0f}};
    dc_value result;
    call_with("ii*{Point=ff}{Rect={Point=ff}{Size=ff}}i", doit, &result, dc_int32(0), dc_string("myMethod"),
              dc_struct(&p), dc_struct(&r), dc_int32(42));
    assert_int_equal(result.i32, 42);
}

typedef struct s55 {
    float f;
} s55;
CALLEE static s55 f55(s55 ts, float f) { return (s55){ts.f + f}; }

/* s55.c */
static void s55_struct_of_one_float_plus_a_float(void **state) {
    (void)state;
    s55 argument = {1}, result;
    s55 expected = f55(argument, 2.14f);
    dc_value returned = dc_struct(&result);
    call_with("{s55=f}{s55=f}f", f55, &returned, dc_struct(&argument), dc_float(2.14f));
    assert_true(fabsf(expected.f - result.f) < FLT_EPSILON);
}

/* ---- layout --------------------------------------------------------------------- */

struct test_1 {
    char c;
    float f;
    char c2;
    int i;
};

/* offsets.c: libffi's ffi_get_struct_offsets is dc_signature_parameter_layout
 * and dc_layout_field here. */
static void offsets_char_float_char_int_fields_are_where_the_compiler_puts_them(void **state) {
    (void)state;
    dc_signature *signature = create_signature("v{test_1=cfci}");
    dc_layout layout;
    assert_ok(dc_signature_parameter_layout(signature, 0, &layout));
    assert_int_equal(layout.size, sizeof(struct test_1));
    assert_int_equal(layout.field_count, 4);
    const size_t offsets[] = {offsetof(struct test_1, c), offsetof(struct test_1, f), offsetof(struct test_1, c2),
                              offsetof(struct test_1, i)};
    for (size_t k = 0; k < ARRAY_COUNT(offsets); k++) {
        dc_layout field;
        assert_ok(dc_layout_field(&layout, k, &field));
        assert_int_equal(field.offset, offsets[k]);
    }
    dc_signature_release(signature);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(struct1_char_double_unsigned_struct_is_changed_and_returned),
        cmocka_unit_test(struct2_struct3_and_struct4_two_doubles_one_int_and_three_unsigned),
        cmocka_unit_test(struct5_two_structs_of_two_chars_combine),
        cmocka_unit_test(struct6_to_struct9_floats_beside_doubles_and_ints_each_grow_by_one),
        cmocka_unit_test(struct10_a_struct_returned_without_arguments_overwrites_the_buffer),
        cmocka_unit_test(struct_return_2h_and_8h_multiply_each_field_and_leave_the_argument),
        cmocka_unit_test(struct_by_value_small_to_big_the_callee_changes_a_copy),
        cmocka_unit_test(large_struct_by_value_eight_ints_are_summed),
        cmocka_unit_test(struct_int_float_six_structs_of_a_long_and_a_float_or_the_x86_64_defect_refused),
        cmocka_unit_test(many_large_structs_sixteen_32_byte_structs_or_the_aarch64_defect_refused),
        cmocka_unit_test(callback_to_callback4_nested_structs_and_arrays_grow_and_the_callback_runs),
        cmocka_unit_test(pr1172638_a_point_after_rects_and_pointers_reaches_the_result),
        cmocka_unit_test(pyobjc_tc_points_and_nested_rects_of_floats_arrive_between_ints),
        cmocka_unit_test(s55_struct_of_one_float_plus_a_float),
        cmocka_unit_test(offsets_char_float_char_int_fields_are_where_the_compiler_puts_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
