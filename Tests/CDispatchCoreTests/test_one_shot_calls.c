/*
 * test_one_shot_calls.c — dc_call() on the libffi path hands ffi_call each
 * argument where the caller has it when the value is exactly of its
 * parameter's type, and converts it first otherwise; how a signature's
 * arguments may be read is decided once, when the signature is made. So:
 *  - every kind of signature (parameters all by address, all scalars, or
 *    mixed; returns by address, of a whole register, narrower, or none)
 *    gives what an invocation and a direct call give;
 *  - a value that needs converting is converted on every kind, and one
 *    that does not fit is refused before anything is called, the return
 *    value untouched;
 *  - threads calling through the same signatures at once each get their
 *    own results (the signature holds no per-call state).
 */
#include "test_support.h"
#include "thread_support.h"
#include "watchdog.h"

#include <complex.h>
#include <pthread.h>
#include <stdatomic.h>

typedef struct point {
    double x, y;
} point;

typedef struct quotient {
    int quot, rem;
} quotient;

static atomic_int calls;

CALLEE static long double add_ld(long double a, long double b) {
    atomic_fetch_add(&calls, 1);
    return a + b;
}
CALLEE static double _Complex twice_cd(double _Complex z) {
    atomic_fetch_add(&calls, 1);
    return 2 * z;
}
CALLEE static double sum_point(point p) {
    atomic_fetch_add(&calls, 1);
    return p.x + p.y;
}
CALLEE static float scale_point(point p) {
    atomic_fetch_add(&calls, 1);
    return (float)(p.x * p.y);
}
CALLEE static void touch_point(point p) {
    (void)p;
    atomic_fetch_add(&calls, 1);
}
CALLEE static quotient divide(int numerator, int denominator) {
    atomic_fetch_add(&calls, 1);
    return (quotient){numerator / denominator, numerator % denominator};
}
/* Eight integers: more than a typed stub passes, so they take libffi. */
CALLEE static int64_t weigh8(int64_t a, int64_t b, int64_t c, int64_t d, int8_t e, uint16_t f, int64_t g, float h) {
    atomic_fetch_add(&calls, 1);
    return a - b + c * d + e + f - g + (int64_t)h;
}
CALLEE static int16_t narrow8(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f, int64_t g, int64_t h) {
    atomic_fetch_add(&calls, 1);
    return (int16_t)(a + b + c + d + e + f + g - h);
}
CALLEE static double mixed(point p, int32_t n, bool twice) {
    atomic_fetch_add(&calls, 1);
    return (p.x + p.y) * n * (twice ? 2 : 1);
}

#define WEIGH8 "qqqqqcSqf"
#define NARROW8 "sqqqqqqqq"
#define MIXED "d{point=dd}iB"

/* Whether two returns by address hold the same value (a long double's
 * padding bytes are not part of it). */
typedef bool (*same_bytes)(const void *a, const void *b);
static bool same_long_double(const void *a, const void *b) {
    return *(const long double *)a == *(const long double *)b;
}
static bool same_complex(const void *a, const void *b) {
    return *(const double _Complex *)a == *(const double _Complex *)b;
}
static bool same_quotient(const void *a, const void *b) { return memcmp(a, b, sizeof(quotient)) == 0; }

/* dc_call of `encoding` and an invocation of the same arguments both give
 * `expected`: the same value, made as a constructor makes it; for a return
 * by address, a value of `expected`'s type pointing at the bytes `same` as
 * `expected_bytes`. */
static void assert_call_gives(const char *encoding, dc_function function, const dc_value *arguments, size_t count,
                              dc_value expected, const void *expected_bytes, same_bytes same) {
    dc_signature *signature = create_signature(encoding);
    _Alignas(16) unsigned char bytes[32] = {0};
    dc_value result = dc_struct(bytes);
    assert_ok(dc_call(signature, function, arguments, count, &result));
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, function, &invocation));
    for (size_t i = 0; i < count; i++) assert_ok(dc_invocation_set_argument(invocation, i, &arguments[i]));
    assert_ok(dc_invocation_invoke(invocation));
    dc_value invoked;
    assert_ok(dc_invocation_get_return_value(invocation, &invoked));
    if (expected_bytes != NULL) {
        assert_int_equal(result.type, expected.type);
        assert_int_equal(result.struct_id, invoked.struct_id);
        assert_ptr_equal(result.pointer, bytes);
        assert_true(same(bytes, expected_bytes));
        assert_true(same(invoked.pointer, expected_bytes));
    } else {
        assert_value_equal(expected, result, encoding);
        assert_value_equal(expected, invoked, encoding);
        assert_memory_equal(&result, &expected, sizeof result); /* the whole value, as a constructor makes it */
    }
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);
}

static void every_kind_of_signature_gives_what_an_invocation_gives(void **state) {
    (void)state;
    long double a = 1.25L, b = 2.5L, sum = add_ld(a, b);
    assert_call_gives("DDD", DC_FUNCTION(add_ld), (dc_value[]){dc_long_double(&a), dc_long_double(&b)}, 2,
                      dc_long_double(NULL), &sum, same_long_double);
    double _Complex z = 1.5 + 2.5 * I, doubled = twice_cd(z);
    assert_call_gives("jdjd", DC_FUNCTION(twice_cd), (dc_value[]){dc_complex_double(&z)}, 1, dc_complex_double(NULL),
                      &doubled, same_complex);
    point p = {1.5, 2.5};
    assert_call_gives("d{point=dd}", DC_FUNCTION(sum_point), (dc_value[]){dc_struct(&p)}, 1, dc_double(4.0), NULL, NULL);
    assert_call_gives("f{point=dd}", DC_FUNCTION(scale_point), (dc_value[]){dc_struct(&p)}, 1, dc_float(3.75f), NULL,
                      NULL);
    assert_call_gives("v{point=dd}", DC_FUNCTION(touch_point), (dc_value[]){dc_struct(&p)}, 1, dc_void(), NULL, NULL);
    quotient q = divide(17, 5);
    assert_call_gives("{quotient=ii}ii", DC_FUNCTION(divide), (dc_value[]){dc_int32(17), dc_int32(5)}, 2,
                      dc_struct(NULL), &q, same_quotient);
    dc_value eight[] = {dc_int64(9), dc_int64(4), dc_int64(-3), dc_int64(7), dc_int8(-8), dc_uint16(65535),
                        dc_int64(1), dc_float(2.5f)};
    assert_call_gives(WEIGH8, DC_FUNCTION(weigh8), eight, 8, dc_int64(weigh8(9, 4, -3, 7, -8, 65535, 1, 2.5f)), NULL, NULL);
    dc_value words[8];
    for (int i = 0; i < 8; i++) words[i] = dc_int64(i - 10);
    assert_call_gives(NARROW8, DC_FUNCTION(narrow8), words, 8, dc_int16(narrow8(-10, -9, -8, -7, -6, -5, -4, -3)),
                      NULL, NULL); /* negative: libffi widens it to ffi_arg, the value is narrowed */
    assert_call_gives(MIXED, DC_FUNCTION(mixed), (dc_value[]){dc_struct(&p), dc_int32(3), dc_bool(true)}, 3,
                      dc_double(24.0), NULL, NULL);
}

static void values_that_need_converting_are_converted_on_every_kind(void **state) {
    (void)state;
    dc_signature *weigh = create_signature(WEIGH8);
    dc_value result;
    /* Narrower integers for 64-bit parameters, an integer for int8, a double that is a float. */
    dc_value eight[] = {dc_int32(9), dc_uint8(4), dc_int16(-3), dc_int64(7), dc_int64(-8), dc_int32(65535),
                        dc_uint32(1), dc_double(2.5)};
    assert_ok(dc_call(weigh, DC_FUNCTION(weigh8), eight, 8, &result));
    assert_value_equal(dc_int64(weigh8(9, 4, -3, 7, -8, 65535, 1, 2.5f)), result, WEIGH8);
    /* A scalar whose struct_id is not 0, filled by hand, is still its value. */
    eight[3] = dc_int64(7);
    eight[3].struct_id = 77;
    assert_ok(dc_call(weigh, DC_FUNCTION(weigh8), eight, 8, &result));
    assert_value_equal(dc_int64(weigh8(9, 4, -3, 7, -8, 65535, 1, 2.5f)), result, "a scalar with a struct_id");
    dc_signature_release(weigh);

    /* A struct knowing its size, and one knowing its layout. */
    dc_signature *sum = create_signature("d{point=dd}");
    point p = {0.5, 0.25};
    assert_ok(dc_call(sum, DC_FUNCTION(sum_point), (dc_value[]){dc_struct_of(&p, sizeof p)}, 1, &result));
    assert_value_equal(dc_double(0.75), result, "a struct of its size");
    dc_layout layout;
    assert_ok(dc_signature_parameter_layout(sum, 0, &layout));
    dc_value known;
    assert_ok(dc_struct_with_layout(&p, &layout, &known));
    assert_ok(dc_call(sum, DC_FUNCTION(sum_point), &known, 1, &result));
    assert_value_equal(dc_double(0.75), result, "a struct of its layout");
    dc_signature_release(sum);

    /* A bool filled by hand with 2 is true, and passed as 1. */
    dc_signature *mix = create_signature(MIXED);
    dc_value yes = dc_bool(true);
    yes.u8 = 2;
    assert_ok(dc_call(mix, DC_FUNCTION(mixed), (dc_value[]){dc_struct(&p), dc_int32(2), yes}, 3, &result));
    assert_value_equal(dc_double(3.0), result, "a bool of 2");
    dc_signature_release(mix);
}

/* dc_call of `arguments` is refused with `expected` naming `needle`, and
 * neither calls anything nor touches the return value. */
static void assert_refused(dc_signature *signature, dc_function function, const dc_value *arguments, size_t count,
                           dc_status expected, const char *needle) {
    unsigned char bytes[32];
    memset(bytes, 0xa5, sizeof bytes);
    dc_value result = dc_struct(bytes), before = result;
    int calls_before = atomic_load(&calls);
    assert_failure(dc_call(signature, function, arguments, count, &result), expected, needle);
    assert_int_equal(atomic_load(&calls), calls_before);
    assert_memory_equal(&result, &before, sizeof result);
    for (size_t i = 0; i < sizeof bytes; i++) assert_int_equal(bytes[i], 0xa5);
}

static void a_value_that_does_not_fit_is_refused_before_anything_is_called(void **state) {
    (void)state;
    long double a = 1.0L;
    dc_signature *add = create_signature("DDD");
    assert_refused(add, DC_FUNCTION(add_ld), (dc_value[]){dc_long_double(&a), dc_long_double(NULL)}, 2,
                   DC_ERR_NULL_ARGUMENT, "argument 1");
    assert_refused(add, DC_FUNCTION(add_ld), (dc_value[]){dc_long_double(&a), dc_double(1.0)}, 2, DC_ERR_TYPE,
                   "argument 1");
    dc_value forged = dc_long_double(&a);
    forged.type = (dc_type)99;
    assert_refused(add, DC_FUNCTION(add_ld), (dc_value[]){dc_long_double(&a), forged}, 2, DC_ERR_TYPE, "argument 1");
    dc_signature_release(add);

    point p = {1, 2};
    dc_signature *sum = create_signature("d{point=dd}");
    assert_refused(sum, DC_FUNCTION(sum_point), (dc_value[]){dc_struct_of(&p, 8)}, 1, DC_ERR_TYPE, "argument 0");
    assert_refused(sum, DC_FUNCTION(sum_point), (dc_value[]){dc_struct(NULL)}, 1, DC_ERR_NULL_ARGUMENT, "argument 0");
    dc_signature_release(sum);

    dc_signature *divide_signature = create_signature("{quotient=ii}ii");
    assert_refused(divide_signature, DC_FUNCTION(divide), (dc_value[]){dc_int32(1), dc_int64(1LL << 40)}, 2,
                   DC_ERR_TYPE, "argument 1");
    assert_refused(divide_signature, DC_FUNCTION(divide), (dc_value[]){dc_int32(1), dc_pointer(&p)}, 2, DC_ERR_TYPE,
                   "argument 1");
    int calls_before = atomic_load(&calls);
    assert_failure(dc_call(divide_signature, DC_FUNCTION(divide), (dc_value[]){dc_int32(1), dc_int32(1)}, 2, NULL),
                   DC_ERR_NULL_ARGUMENT, "buffer");
    dc_value no_buffer = dc_struct(NULL);
    assert_failure(dc_call(divide_signature, DC_FUNCTION(divide), (dc_value[]){dc_int32(1), dc_int32(1)}, 2, &no_buffer),
                   DC_ERR_NULL_ARGUMENT, "buffer");
    assert_int_equal(atomic_load(&calls), calls_before);
    dc_signature_release(divide_signature);

    dc_signature *weigh = create_signature(WEIGH8);
    dc_value eight[] = {dc_int64(1), dc_int64(1), dc_int64(1), dc_int64(1), dc_int64(1), dc_int64(1), dc_int64(1),
                        dc_double(0.1)};
    assert_refused(weigh, DC_FUNCTION(weigh8), eight, 8, DC_ERR_TYPE, "argument 7");
    dc_signature_release(weigh);
}

static void a_return_value_may_be_ignored_unless_it_is_by_address(void **state) {
    (void)state;
    point p = {1, 2};
    dc_signature *sum = create_signature("d{point=dd}");
    int calls_before = atomic_load(&calls);
    assert_ok(dc_call(sum, DC_FUNCTION(sum_point), (dc_value[]){dc_struct(&p)}, 1, NULL));
    assert_int_equal(atomic_load(&calls), calls_before + 1);
    dc_signature_release(sum);
    dc_signature *weigh = create_signature(WEIGH8);
    dc_value eight[8];
    for (int i = 0; i < 8; i++) eight[i] = i == 7 ? dc_float(1) : dc_int64(i);
    assert_ok(dc_call(weigh, DC_FUNCTION(weigh8), eight, 8, NULL));
    assert_int_equal(atomic_load(&calls), calls_before + 2);
    dc_signature_release(weigh);
}

/* ---- threads ----------------------------------------------------------------------------- */

enum { THREADS = 4, ROUNDS = 20000, DEADLINE_MS = 30000 };

typedef struct shared_signatures {
    dc_signature *add, *twice, *sum, *divide, *weigh;
    pthread_barrier_t start;
} shared_signatures;

typedef struct caller {
    pthread_t thread;
    shared_signatures *shared;
    int index;
    char failure[192];
} caller;

#define CALLER_CHECK(c, condition, ...)                                                                 \
    do {                                                                                                \
        if (!(condition) && (c)->failure[0] == '\0') snprintf((c)->failure, sizeof(c)->failure, __VA_ARGS__); \
    } while (0)

static void *call_each_kind(void *context) {
    caller *c = context;
    shared_signatures *s = c->shared;
    pthread_barrier_wait(&s->start);
    uint64_t deadline = deadline_after_ms(DEADLINE_MS);
    for (int round = 0; round < ROUNDS && c->failure[0] == '\0'; round++) {
        int n = round * THREADS + c->index + 1;
        long double a = n, b = 0.5L, sum;
        dc_value result = dc_long_double(&sum);
        CALLER_CHECK(c, dc_call(s->add, DC_FUNCTION(add_ld), (dc_value[]){dc_long_double(&a), dc_long_double(&b)},
                                2, &result) == DC_OK && sum == n + 0.5L,
                     "long double, round %d", round);
        double _Complex z = n + 1.0 * I, doubled;
        result = dc_complex_double(&doubled);
        CALLER_CHECK(c, dc_call(s->twice, DC_FUNCTION(twice_cd), (dc_value[]){dc_complex_double(&z)}, 1, &result) ==
                                DC_OK && doubled == 2 * z,
                     "complex, round %d", round);
        point p = {n, 0.25};
        CALLER_CHECK(c, dc_call(s->sum, DC_FUNCTION(sum_point), (dc_value[]){dc_struct(&p)}, 1, &result) == DC_OK &&
                            result.type == DC_TYPE_DOUBLE && result.d == n + 0.25,
                     "struct argument, round %d", round);
        quotient q;
        result = dc_struct(&q);
        CALLER_CHECK(c, dc_call(s->divide, DC_FUNCTION(divide), (dc_value[]){dc_int32(n), dc_int32(7)}, 2, &result) ==
                                DC_OK && q.quot == n / 7 && q.rem == n % 7,
                     "struct return, round %d", round);
        dc_value eight[] = {dc_int64(n), dc_int64(1), dc_int64(2), dc_int64(3), dc_int8(4), dc_uint16(5), dc_int64(6),
                            dc_float(8)};
        CALLER_CHECK(c, dc_call(s->weigh, DC_FUNCTION(weigh8), eight, 8, &result) == DC_OK &&
                            result.i64 == n - 1 + 2 * 3 + 4 + 5 - 6 + 8,
                     "scalars, round %d", round);
        CALLER_CHECK(c, now_ns() < deadline, "still calling after %d ms", DEADLINE_MS);
    }
    return NULL;
}

static void threads_calling_through_the_same_signatures_get_their_own_results(void **state) {
    (void)state;
    shared_signatures shared = {.add = create_signature("DDD"),
                                .twice = create_signature("jdjd"),
                                .sum = create_signature("d{point=dd}"),
                                .divide = create_signature("{quotient=ii}ii"),
                                .weigh = create_signature(WEIGH8)};
    assert_int_equal(pthread_barrier_init(&shared.start, NULL, THREADS), 0);
    int calls_before = atomic_load(&calls);
    caller callers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        callers[i] = (caller){.shared = &shared, .index = i};
        assert_int_equal(pthread_create(&callers[i].thread, NULL, call_each_kind, &callers[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_join(callers[i].thread, NULL), 0);
    pthread_barrier_destroy(&shared.start);
    for (int i = 0; i < THREADS; i++)
        if (callers[i].failure[0] != '\0') fail_msg("thread %d: %s", i, callers[i].failure);
    assert_int_equal(atomic_load(&calls) - calls_before, THREADS * ROUNDS * 5);
    dc_signature_release(shared.add);
    dc_signature_release(shared.twice);
    dc_signature_release(shared.sum);
    dc_signature_release(shared.divide);
    dc_signature_release(shared.weigh);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind_of_signature_gives_what_an_invocation_gives),
        cmocka_unit_test(values_that_need_converting_are_converted_on_every_kind),
        cmocka_unit_test(a_value_that_does_not_fit_is_refused_before_anything_is_called),
        cmocka_unit_test(a_return_value_may_be_ignored_unless_it_is_by_address),
        watched_test(threads_calling_through_the_same_signatures_get_their_own_results),
    };
    return cmocka_run_group_tests_name("one-shot calls", tests, NULL, NULL);
}
