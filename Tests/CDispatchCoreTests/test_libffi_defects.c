/*
 * test_libffi_defects.c — the libffi defects the library knows of (issue 37):
 * each affected shape of call either reaches the callee with every value right
 * or its signature is refused with DC_ERR_UNSUPPORTED and a message naming the
 * defect; never a wrong call. Neighbouring shapes that no defect touches are
 * never refused. Every case runs on every architecture: a shape that is only
 * wrong on another one must simply be right here.
 *
 *   x86-64, libffi before 3.4.7: a struct whose first eightbyte is of the
 *   integer class and whose second is of the floating-point class, given the
 *   last integer register, overwrites the first floating-point register.
 *   AArch64, libffi before 3.7.1: structs of more than 16 bytes (not of one
 *   floating-point type) pass by reference, and with their pointers past the
 *   eight integer registers the copies overwrite those pointers.
 */
#include "test_support.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdlib.h>

/* Calls `function` with `encoding`, which no defect may refuse. */
#define call_never_refused(encoding, function, arguments, result)                                                \
    do {                                                                                                         \
        dc_signature *never_refused = create_signature(encoding);                                                \
        assert_ok(dc_call(never_refused, DC_FUNCTION(function), (arguments), ARRAY_COUNT(arguments), (result))); \
        dc_signature_release(never_refused);                                                                     \
    } while (0)

/* ---- structs of an integer and a float (x86-64) ------------------------------- */

typedef struct qf {
    uint64_t i;
    float f;
} qf;
typedef struct iif {
    int32_t a, b;
    float f;
} iif;
typedef struct fq {
    float f;
    uint64_t i;
} fq;
typedef struct big {
    uint64_t a, b, c;
} big;

#define QF "{S=Qf}"
#define QF5 QF QF QF QF QF
#define QF6 QF5 QF

static qf seen_qf[8];
static iif seen_iif[8];
static fq seen_fq[8];
static double seen_double;
static int64_t seen_longs[5];
static int seen_count;

static qf qf_number(int k) { return (qf){.i = (uint64_t)k + 1, .f = 11.11f * (float)(k + 1)}; }

static void assert_seen_qf(const qf *given, int count) {
    assert_int_equal(seen_count, count);
    for (int k = 0; k < count; k++) {
        if (seen_qf[k].i != given[k].i || seen_qf[k].f != given[k].f)
            fail_msg("struct %d arrived as {%llu, %g}, given {%llu, %g}", k, (unsigned long long)seen_qf[k].i,
                     (double)seen_qf[k].f, (unsigned long long)given[k].i, (double)given[k].f);
    }
}

CALLEE static float six_qf(qf a, qf b, qf c, qf d, qf e, qf f) {
    qf all[] = {a, b, c, d, e, f};
    memcpy(seen_qf, all, sizeof all);
    seen_count = 6;
    return a.f;
}

CALLEE static float five_qf(qf a, qf b, qf c, qf d, qf e) {
    qf all[] = {a, b, c, d, e};
    memcpy(seen_qf, all, sizeof all);
    seen_count = 5;
    return a.f;
}

CALLEE static float seven_qf(qf a, qf b, qf c, qf d, qf e, qf f, qf g) {
    qf all[] = {a, b, c, d, e, f, g};
    memcpy(seen_qf, all, sizeof all);
    seen_count = 7;
    return a.f;
}

CALLEE static double double_five_longs_qf(double d, int64_t l0, int64_t l1, int64_t l2, int64_t l3, int64_t l4,
                                          qf s) {
    seen_double = d;
    int64_t longs[] = {l0, l1, l2, l3, l4};
    memcpy(seen_longs, longs, sizeof longs);
    seen_qf[0] = s;
    seen_count = 1;
    return d;
}

CALLEE static big big_five_qf(qf a, qf b, qf c, qf d, qf e) {
    five_qf(a, b, c, d, e);
    return (big){7, 8, 9};
}

CALLEE static float int_then_variadic_qf(int count, ...) {
    va_list arguments;
    va_start(arguments, count);
    for (int k = 0; k < count && k < 8; k++) seen_qf[k] = va_arg(arguments, qf);
    va_end(arguments);
    seen_count = count;
    return seen_qf[0].f;
}

CALLEE static float six_iif(iif a, iif b, iif c, iif d, iif e, iif f) {
    iif all[] = {a, b, c, d, e, f};
    memcpy(seen_iif, all, sizeof all);
    seen_count = 6;
    return a.f;
}

CALLEE static float six_fq(fq a, fq b, fq c, fq d, fq e, fq f) {
    fq all[] = {a, b, c, d, e, f};
    memcpy(seen_fq, all, sizeof all);
    seen_count = 6;
    return a.f;
}

static void six_structs_of_an_integer_and_a_float_arrive_right_or_their_signature_is_refused_naming_the_defect(
    void **state) {
    (void)state;
    qf given[6];
    dc_value arguments[6];
    for (int k = 0; k < 6; k++) {
        given[k] = qf_number(k);
        arguments[k] = dc_struct(&given[k]);
    }
    seen_count = 0;
    dc_value result = dc_void();
    if (call_or_refused("f" QF6, -1, six_qf, arguments, &result, X86_64_DEFECT)) {
        assert_seen_qf(given, 6);
        assert_true(result.f == given[0].f);
    }

    /* The same shape through an invocation, and with a seventh struct after it. */
    dc_signature *signature = NULL;
    if (dc_signature_create("f" QF6, &signature) == DC_OK) {
        dc_invocation *invocation = NULL;
        assert_ok(dc_invocation_create(signature, DC_FUNCTION(six_qf), &invocation));
        for (size_t k = 0; k < 6; k++) assert_ok(dc_invocation_set_argument(invocation, k, &arguments[k]));
        seen_count = 0;
        assert_ok(dc_invocation_invoke(invocation));
        assert_seen_qf(given, 6);
        dc_invocation_destroy(invocation);
        dc_signature_release(signature);
    }
    qf seven[7];
    dc_value seven_arguments[7];
    for (int k = 0; k < 7; k++) {
        seven[k] = qf_number(k);
        seven_arguments[k] = dc_struct(&seven[k]);
    }
    seen_count = 0;
    if (call_or_refused("f" QF6 QF, -1, seven_qf, seven_arguments, &result, X86_64_DEFECT))
        assert_seen_qf(seven, 7);
}

static void a_struct_of_an_integer_and_a_float_given_the_last_integer_register_arrives_right_or_is_refused(
    void **state) {
    (void)state;
    /* After a double and five integers. */
    qf s = qf_number(5);
    dc_value arguments[] = {dc_double(0.25),  dc_int64(-1),  dc_int64(-2), dc_int64(-3),
                            dc_int64(-4),     dc_int64(-5),  dc_struct(&s)};
    dc_value result = dc_void();
    seen_count = 0;
    if (call_or_refused("ddqqqqq" QF, -1, double_five_longs_qf, arguments, &result, X86_64_DEFECT)) {
        assert_true(seen_double == 0.25);
        for (int k = 0; k < 5; k++) assert_int_equal(seen_longs[k], -(k + 1));
        assert_seen_qf(&s, 1);
        assert_true(result.d == 0.25);
    }

    /* After a returned struct's hidden pointer and four structs. */
    qf given[5];
    dc_value five[5];
    for (int k = 0; k < 5; k++) {
        given[k] = qf_number(k);
        five[k] = dc_struct(&given[k]);
    }
    big returned = {0, 0, 0};
    result = dc_struct(&returned);
    seen_count = 0;
    if (call_or_refused("{Big=QQQ}" QF5, -1, big_five_qf, five, &result, X86_64_DEFECT)) {
        assert_seen_qf(given, 5);
        assert_true(returned.a == 7 && returned.b == 8 && returned.c == 9);
    }

    /* As variadic arguments after an int. */
    dc_value variadic[6] = {dc_int32(5)};
    for (int k = 0; k < 5; k++) variadic[k + 1] = dc_struct(&given[k]);
    seen_count = 0;
    if (call_or_refused("fi" QF5, 1, int_then_variadic_qf, variadic, &result, X86_64_DEFECT))
        assert_seen_qf(given, 5);
}

static void six_twelve_byte_structs_of_two_ints_and_a_float_arrive_right_or_are_refused(void **state) {
    (void)state;
    iif given[6];
    dc_value arguments[6];
    for (int k = 0; k < 6; k++) {
        given[k] = (iif){.a = k + 1, .b = -(k + 1), .f = 0.5f * (float)(k + 1)};
        arguments[k] = dc_struct(&given[k]);
    }
    dc_value result = dc_void();
    seen_count = 0;
    if (call_or_refused("f{T=iif}{T=iif}{T=iif}{T=iif}{T=iif}{T=iif}", -1, six_iif, arguments, &result,
                        X86_64_DEFECT)) {
        assert_int_equal(seen_count, 6);
        for (int k = 0; k < 6; k++) {
            if (seen_iif[k].a != given[k].a || seen_iif[k].b != given[k].b || seen_iif[k].f != given[k].f)
                fail_msg("struct %d arrived as {%d, %d, %g}", k, seen_iif[k].a, seen_iif[k].b, (double)seen_iif[k].f);
        }
    }
}

static void five_structs_of_an_integer_and_a_float_and_six_of_a_float_and_an_integer_are_never_refused(
    void **state) {
    (void)state;
    qf given[5];
    dc_value arguments[5];
    for (int k = 0; k < 5; k++) {
        given[k] = qf_number(k);
        arguments[k] = dc_struct(&given[k]);
    }
    dc_value result = dc_void();
    seen_count = 0;
    call_never_refused("f" QF5, five_qf, arguments, &result);
    assert_seen_qf(given, 5);
    assert_true(result.f == given[0].f);

    fq swapped[6];
    dc_value swapped_arguments[6];
    for (int k = 0; k < 6; k++) {
        swapped[k] = (fq){.f = 1.5f * (float)(k + 1), .i = 100u + (uint64_t)k};
        swapped_arguments[k] = dc_struct(&swapped[k]);
    }
    seen_count = 0;
    call_never_refused("f{U=fQ}{U=fQ}{U=fQ}{U=fQ}{U=fQ}{U=fQ}", six_fq, swapped_arguments, &result);
    assert_int_equal(seen_count, 6);
    for (int k = 0; k < 6; k++) {
        if (seen_fq[k].f != swapped[k].f || seen_fq[k].i != swapped[k].i)
            fail_msg("struct %d arrived as {%g, %llu}", k, (double)seen_fq[k].f, (unsigned long long)seen_fq[k].i);
    }
}

/* ---- 32-byte structs (AArch64) ------------------------------------------------- */

typedef struct b32 {
    unsigned char b[32];
} b32;
typedef struct hfa4 {
    double d[4];
} hfa4;

#define B32 "{B=[32C]}"
#define B32x8 B32 B32 B32 B32 B32 B32 B32 B32
#define HFA4 "{H=[4d]}"

static b32 seen_b32[16];
static hfa4 seen_hfa4[9];

static b32 b32_number(int k) {
    b32 s;
    for (int j = 0; j < 32; j++) s.b[j] = (unsigned char)(k * 32 + j + 1);
    return s;
}

static int sum_of(const b32 *all, int count) {
    int sum = 0;
    for (int k = 0; k < count; k++)
        for (int j = 0; j < 32; j++) sum += all[k].b[j];
    return sum;
}

static void assert_seen_b32(const b32 *given, int count) {
    assert_int_equal(seen_count, count);
    for (int k = 0; k < count; k++)
        if (memcmp(&seen_b32[k], &given[k], sizeof given[k]) != 0)
            fail_msg("32-byte struct %d arrived with other bytes (first %u, given %u)", k, seen_b32[k].b[0],
                     given[k].b[0]);
}

CALLEE static int eight_b32(b32 s0, b32 s1, b32 s2, b32 s3, b32 s4, b32 s5, b32 s6, b32 s7) {
    b32 all[] = {s0, s1, s2, s3, s4, s5, s6, s7};
    memcpy(seen_b32, all, sizeof all);
    seen_count = 8;
    return sum_of(all, 8);
}

CALLEE static int nine_b32(b32 s0, b32 s1, b32 s2, b32 s3, b32 s4, b32 s5, b32 s6, b32 s7, b32 s8) {
    b32 all[] = {s0, s1, s2, s3, s4, s5, s6, s7, s8};
    memcpy(seen_b32, all, sizeof all);
    seen_count = 9;
    return sum_of(all, 9);
}

CALLEE static int sixteen_b32(b32 s0, b32 s1, b32 s2, b32 s3, b32 s4, b32 s5, b32 s6, b32 s7, b32 s8, b32 s9,
                              b32 s10, b32 s11, b32 s12, b32 s13, b32 s14, b32 s15) {
    b32 all[] = {s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15};
    memcpy(seen_b32, all, sizeof all);
    seen_count = 16;
    return sum_of(all, 16);
}

CALLEE static int eight_longs_b32(int64_t l0, int64_t l1, int64_t l2, int64_t l3, int64_t l4, int64_t l5, int64_t l6,
                                  int64_t l7, b32 s) {
    seen_b32[0] = s;
    seen_count = 1;
    return (int)(l0 + l1 + l2 + l3 + l4 + l5 + l6 + l7) + sum_of(&s, 1);
}

CALLEE static int int_then_variadic_b32(int count, ...) {
    va_list arguments;
    va_start(arguments, count);
    for (int k = 0; k < count && k < 16; k++) seen_b32[k] = va_arg(arguments, b32);
    va_end(arguments);
    seen_count = count;
    return sum_of(seen_b32, count < 16 ? count : 16);
}

CALLEE static double nine_hfa4(hfa4 s0, hfa4 s1, hfa4 s2, hfa4 s3, hfa4 s4, hfa4 s5, hfa4 s6, hfa4 s7, hfa4 s8) {
    hfa4 all[] = {s0, s1, s2, s3, s4, s5, s6, s7, s8};
    memcpy(seen_hfa4, all, sizeof all);
    seen_count = 9;
    return s8.d[3];
}

static void nine_32_byte_structs_arrive_right_or_their_signature_is_refused_naming_the_defect(void **state) {
    (void)state;
    b32 given[9];
    dc_value arguments[9];
    for (int k = 0; k < 9; k++) {
        given[k] = b32_number(k);
        arguments[k] = dc_struct(&given[k]);
    }
    dc_value result = dc_void();
    seen_count = 0;
    if (call_or_refused("i" B32x8 B32, -1, nine_b32, arguments, &result, AARCH64_DEFECT)) {
        assert_seen_b32(given, 9);
        assert_int_equal(result.i32, sum_of(given, 9));
    }

    /* As variadic arguments after an int. */
    dc_value variadic[10] = {dc_int32(9)};
    for (int k = 0; k < 9; k++) variadic[k + 1] = dc_struct(&given[k]);
    seen_count = 0;
    if (call_or_refused("ii" B32x8 B32, 1, int_then_variadic_b32, variadic, &result, AARCH64_DEFECT)) {
        assert_seen_b32(given, 9);
        assert_int_equal(result.i32, sum_of(given, 9));
    }
}

static void sixteen_32_byte_structs_arrive_right_or_their_signature_is_refused_naming_the_defect(void **state) {
    (void)state;
    b32 given[16];
    dc_value arguments[16];
    for (int k = 0; k < 16; k++) {
        given[k] = b32_number(k);
        arguments[k] = dc_struct(&given[k]);
    }
    dc_value result = dc_void();
    seen_count = 0;
    if (call_or_refused("i" B32x8 B32x8, -1, sixteen_b32, arguments, &result, AARCH64_DEFECT)) {
        assert_seen_b32(given, 16);
        assert_int_equal(result.i32, sum_of(given, 16));
    }
}

static void eight_32_byte_structs_one_after_eight_integers_and_nine_of_four_doubles_are_never_refused(void **state) {
    (void)state;
    b32 given[9];
    dc_value arguments[8];
    for (int k = 0; k < 9; k++) given[k] = b32_number(k);
    for (int k = 0; k < 8; k++) arguments[k] = dc_struct(&given[k]);
    dc_value result = dc_void();
    seen_count = 0;
    call_never_refused("i" B32x8, eight_b32, arguments, &result);
    assert_seen_b32(given, 8);
    assert_int_equal(result.i32, sum_of(given, 8));

    dc_value after_longs[] = {dc_int64(1), dc_int64(2), dc_int64(3), dc_int64(4), dc_int64(5),
                              dc_int64(6), dc_int64(7), dc_int64(8), dc_struct(&given[8])};
    seen_count = 0;
    call_never_refused("iqqqqqqqq" B32, eight_longs_b32, after_longs, &result);
    assert_seen_b32(&given[8], 1);
    assert_int_equal(result.i32, 36 + sum_of(&given[8], 1));

    hfa4 doubles[9];
    dc_value hfa_arguments[9];
    for (int k = 0; k < 9; k++) {
        for (int j = 0; j < 4; j++) doubles[k].d[j] = k * 4 + j + 0.5;
        hfa_arguments[k] = dc_struct(&doubles[k]);
    }
    seen_count = 0;
    call_never_refused("d" HFA4 HFA4 HFA4 HFA4 HFA4 HFA4 HFA4 HFA4 HFA4, nine_hfa4, hfa_arguments, &result);
    assert_int_equal(seen_count, 9);
    assert_memory_equal(seen_hfa4, doubles, sizeof doubles);
    assert_true(result.d == doubles[8].d[3]);
}

/* ---- many shapes, each checked by a closure ------------------------------------------ */

/* Parameter types without padding, so every byte given must arrive: scalars,
 * long double and the complex types (long double compared by value, its
 * padding aside), structs of each register class, homogeneous float
 * aggregates and structs passed by reference; the two kinds each defect
 * touches are among them. */
static const char *const parameter_kinds[] = {"q",      "d",      "i",        "f",        "{P=QQ}", "{F=ff}",
                                              "{H=[4d]}", "{Q=[3d]}", "{T=iif}", "{G=Qd}",   "D",      "jf",
                                              "jd",     "jD",     "{B=[32C]}", "{W=[24C]}", "{X=QQQQQ}", "{Y=[17C]}"};
enum { FIRST_LARGE_KIND = 14, MAX_SHAPE_PARAMETERS = 18 };

typedef struct shape_call {
    size_t count;
    dc_type types[MAX_SHAPE_PARAMETERS];
    size_t sizes[MAX_SHAPE_PARAMETERS];
    alignas(16) unsigned char bytes[MAX_SHAPE_PARAMETERS][48];
    bool arrived;
} shape_call;

static uint32_t next_random(uint32_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state;
}

static void compare_arguments(dc_invocation *call, void *user_data) {
    shape_call *expected = user_data;
    for (size_t i = 0; i < expected->count; i++) {
        dc_value value;
        if (dc_invocation_get_argument(call, i, &value) != DC_OK) {
            expected->arrived = false;
            continue;
        }
        /* long double compares by value: its padding bytes (6 of 16 on x86-64) need not arrive. */
        if (expected->types[i] == DC_TYPE_LONG_DOUBLE) {
            if (*(const long double *)value.pointer != *(const long double *)(const void *)expected->bytes[i])
                expected->arrived = false;
            continue;
        }
        if (expected->types[i] == DC_TYPE_COMPLEX_LONG_DOUBLE) {
            if (*(const long double _Complex *)value.pointer !=
                *(const long double _Complex *)(const void *)expected->bytes[i])
                expected->arrived = false;
            continue;
        }
        const void *bytes = value.type >= DC_TYPE_STRUCT ? value.pointer : (const void *)&value.u64;
        if (expected->types[i] == DC_TYPE_FLOAT) bytes = &value.f;
        if (expected->types[i] == DC_TYPE_DOUBLE) bytes = &value.d;
        if (memcmp(bytes, expected->bytes[i], expected->sizes[i]) != 0) expected->arrived = false;
    }
}

static void many_shapes_of_structs_and_scalars_reach_a_closure_right_or_are_refused_naming_the_defect(void **state) {
    (void)state;
    static const char *const returns[] = {"v", "i", "d", "{Big=QQQ}", "D", "jf", "jd", "jD"};
    uint32_t random = 37;
    size_t refused = 0, called = 0;
    for (int n = 0; n < 400; n++) {
        char encoding[512];
        snprintf(encoding, sizeof encoding, "%s", returns[next_random(&random) % ARRAY_COUNT(returns)]);
        shape_call *call = calloc(1, sizeof *call);
        assert_non_null(call);
        call->count = 1 + next_random(&random) % MAX_SHAPE_PARAMETERS;
        unsigned large_share = next_random(&random) % 101; /* percent of large structs: few to most */
        for (size_t i = 0; i < call->count; i++) {
            size_t kind = next_random(&random) % 100 < large_share
                              ? FIRST_LARGE_KIND + next_random(&random) % (ARRAY_COUNT(parameter_kinds) - FIRST_LARGE_KIND)
                              : next_random(&random) % FIRST_LARGE_KIND;
            strcat(encoding, parameter_kinds[kind]);
        }
        dc_signature *signature = NULL;
        const char *primed = dc_test_prime_error_message();
        dc_status status = dc_signature_create(encoding, &signature);
        if (status == DC_ERR_UNSUPPORTED) {
            dc_test_assert_failure(primed, status, DC_ERR_UNSUPPORTED,
                                   (const char *const[]){"libffi", "defect", "refused", NULL}, encoding, __FILE__,
                                   __LINE__);
            refused++;
            free(call);
            continue;
        }
        dc_test_assert_status(status, DC_OK, encoding, __FILE__, __LINE__);

        dc_value arguments[MAX_SHAPE_PARAMETERS];
        for (size_t i = 0; i < call->count; i++) {
            dc_type type;
            assert_ok(dc_signature_parameter_type(signature, i, &type));
            call->types[i] = type;
            dc_value value = dc_void();
            if (type == DC_TYPE_STRUCT) {
                dc_layout layout;
                assert_ok(dc_signature_parameter_layout(signature, i, &layout));
                call->sizes[i] = layout.size;
                for (size_t k = 0; k < layout.size; k++) call->bytes[i][k] = (unsigned char)next_random(&random);
                value = dc_struct(call->bytes[i]);
            } else if (type == DC_TYPE_LONG_DOUBLE || type == DC_TYPE_COMPLEX_LONG_DOUBLE) {
                long double parts[2] = {(long double)next_random(&random) / 3, (long double)next_random(&random) / 7};
                call->sizes[i] = type == DC_TYPE_LONG_DOUBLE ? sizeof(long double) : sizeof(long double _Complex);
                memset(call->bytes[i], 0, sizeof call->bytes[i]);
                memcpy(call->bytes[i], parts, call->sizes[i]);
                value = dc_value_at(type, call->bytes[i]);
            } else if (type == DC_TYPE_COMPLEX_FLOAT || type == DC_TYPE_COMPLEX_DOUBLE) {
                float floats[2] = {(float)(next_random(&random) % 1000) / 8, (float)(next_random(&random) % 1000) / 4};
                double doubles[2] = {(double)next_random(&random) / 16, -(double)next_random(&random) / 32};
                call->sizes[i] = type == DC_TYPE_COMPLEX_FLOAT ? sizeof floats : sizeof doubles;
                memcpy(call->bytes[i], type == DC_TYPE_COMPLEX_FLOAT ? (void *)floats : (void *)doubles, call->sizes[i]);
                value = dc_value_at(type, call->bytes[i]);
            } else if (type == DC_TYPE_FLOAT) {
                value = dc_float((float)(next_random(&random) % 1000) / 8);
                call->sizes[i] = sizeof value.f;
                memcpy(call->bytes[i], &value.f, sizeof value.f);
            } else if (type == DC_TYPE_DOUBLE) {
                value = dc_double((double)(next_random(&random) % 100000) / 16);
                call->sizes[i] = sizeof value.d;
                memcpy(call->bytes[i], &value.d, sizeof value.d);
            } else if (type == DC_TYPE_INT32) {
                value = dc_int32((int32_t)next_random(&random));
                call->sizes[i] = sizeof value.i32;
                memcpy(call->bytes[i], &value.i32, sizeof value.i32);
            } else {
                value = dc_int64((int64_t)((uint64_t)next_random(&random) << 32 | next_random(&random)));
                call->sizes[i] = sizeof value.i64;
                memcpy(call->bytes[i], &value.i64, sizeof value.i64);
            }
            arguments[i] = value;
        }
        dc_closure *closure = NULL;
        assert_ok(dc_closure_create(signature, compare_arguments, call, NULL, &closure));
        alignas(16) unsigned char returned[32];
        dc_value result = dc_struct(returned);
        call->arrived = true;
        assert_ok(dc_call(signature, dc_closure_function(closure), arguments, call->count, &result));
        if (!call->arrived) fail_msg("%s: an argument arrived wrong and the signature was not refused", encoding);
        called++;
        dc_closure_destroy(closure);
        dc_signature_release(signature);
        free(call);
    }
    print_message("%zu shapes called right, %zu refused\n", called, refused);
    assert_true(called > 0);
}

/* ---- a refusal keeps nothing ------------------------------------------------------ */

static void a_refused_signature_is_kept_nowhere_and_is_refused_again_with_its_message(void **state) {
    (void)state;
    const char *const affected[] = {"f" QF6, "i" B32x8 B32};
    for (size_t i = 0; i < ARRAY_COUNT(affected); i++) {
        dc_signature *signature = NULL;
        dc_status first = dc_signature_create(affected[i], &signature);
        if (first == DC_OK) {
            dc_signature_release(signature);
            continue;
        }
        assert_status(first, DC_ERR_UNSUPPORTED);
        assert_null(signature);
        assert_failure(dc_signature_create(affected[i], &signature), DC_ERR_UNSUPPORTED, "libffi", "defect");
        assert_null(signature);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            six_structs_of_an_integer_and_a_float_arrive_right_or_their_signature_is_refused_naming_the_defect),
        cmocka_unit_test(
            a_struct_of_an_integer_and_a_float_given_the_last_integer_register_arrives_right_or_is_refused),
        cmocka_unit_test(six_twelve_byte_structs_of_two_ints_and_a_float_arrive_right_or_are_refused),
        cmocka_unit_test(
            five_structs_of_an_integer_and_a_float_and_six_of_a_float_and_an_integer_are_never_refused),
        cmocka_unit_test(nine_32_byte_structs_arrive_right_or_their_signature_is_refused_naming_the_defect),
        cmocka_unit_test(sixteen_32_byte_structs_arrive_right_or_their_signature_is_refused_naming_the_defect),
        cmocka_unit_test(eight_32_byte_structs_one_after_eight_integers_and_nine_of_four_doubles_are_never_refused),
        cmocka_unit_test(many_shapes_of_structs_and_scalars_reach_a_closure_right_or_are_refused_naming_the_defect),
        cmocka_unit_test(a_refused_signature_is_kept_nowhere_and_is_refused_again_with_its_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
