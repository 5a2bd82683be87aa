/*
 * test_structs.c — structs by value: small structs of every register class
 * and larger ones through memory, nested structs and arrays inside structs,
 * passed and returned through dc_call, invocations and closures and compared
 * with direct calls; C library functions that take or return structs; the
 * layout queries against the compiler's sizeof, _Alignof and offsetof; type
 * checks; struct arguments of table handlers, queued deliveries and table
 * closures; and malformed or unsupported struct encodings.
 */
#include "table_support.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdalign.h>
#include <stdlib.h>

static int calls;

static dc_value argument_of(dc_invocation *call, size_t index) {
    dc_value value;
    assert_ok(dc_invocation_get_argument(call, index, &value));
    return value;
}

static dc_closure *closure_of(const char *encoding, dc_forward_handler handler, void *user_data) {
    dc_signature *signature = create_signature(encoding);
    dc_closure *closure = NULL;
    assert_ok(dc_closure_create(signature, handler, user_data, NULL, &closure));
    dc_signature_release(signature);
    return closure;
}

/* Bytes for a struct, with room after it that nothing may write. */
enum { BUFFER_SIZE = 128, CANARY = 0x5c };
typedef struct buffer {
    alignas(16) unsigned char bytes[BUFFER_SIZE];
} buffer;

static buffer canary_buffer(void) {
    buffer b;
    memset(b.bytes, CANARY, sizeof b.bytes);
    return b;
}

static void assert_untouched_after(const buffer *b, size_t size, const char *what) {
    for (size_t i = size; i < sizeof b->bytes; i++)
        if (b->bytes[i] != CANARY) fail_msg("%s: byte %zu after a struct of %zu bytes was written", what, i, size);
}

/* Overwrites the stack below the caller's frame, where a callee's
 * temporaries were: what a call leaves there must not be read later. */
__attribute__((noinline)) static void scribble_stack(void) {
    volatile unsigned char junk[8192];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)(0xe7 ^ i);
}

/* Mismatches found in a loop over cases, or inside a closure's call, are
 * noted and the loop goes on: every case is tried, what was made is freed,
 * and assert_no_mismatch() then fails naming them all. */
static char mismatches[2048];
static size_t mismatch_count;

__attribute__((format(printf, 1, 2))) static void note_mismatch(const char *format, ...) {
    size_t used = strlen(mismatches);
    if (mismatch_count++ > 0 && used + 2 < sizeof mismatches) {
        strcat(mismatches, "; ");
        used += 2;
    }
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(mismatches + used, sizeof mismatches - used, format, arguments);
    va_end(arguments);
}

static void forget_mismatches(void) {
    mismatches[0] = '\0';
    mismatch_count = 0;
}

#define assert_no_mismatch()                                                                                          \
    do {                                                                                                              \
        if (mismatch_count > 0) fail_msg("%zu mismatch(es): %s", mismatch_count, mismatches);                         \
    } while (0)

/* A forward handler that re-sends its call to the function user_data points to. */
static void pass_on(dc_invocation *call, void *user_data) {
    assert_ok(dc_invocation_set_function(call, *(const dc_function *)user_data));
    assert_ok(dc_invocation_invoke(call));
}

/* ---- small and larger structs of every register class ------------------------------ */

/*
 * Each case is a struct of its fields and a function that takes one and an
 * int and returns one: on x86-64 a struct of up to 16 bytes travels in up to
 * two registers, each eightbyte integer or SSE by its fields, and a larger
 * one in memory (the cases after ddd).
 */
#define FIELDS_c(F) F(int8_t, a, "c")
#define FIELDS_cc(F) F(int8_t, a, "c") F(int8_t, b, "c")
#define FIELDS_ccc(F) F(int8_t, a, "c") F(int8_t, b, "c") F(int8_t, c, "c")
#define FIELDS_sc(F) F(int16_t, a, "s") F(int8_t, b, "c")
#define FIELDS_cs(F) F(int8_t, a, "c") F(int16_t, b, "s")
#define FIELDS_sss(F) F(int16_t, a, "s") F(int16_t, b, "s") F(int16_t, c, "s")
#define FIELDS_SCI(F) F(uint16_t, a, "S") F(uint8_t, b, "C") F(uint32_t, c, "I")
#define FIELDS_ic(F) F(int32_t, a, "i") F(int8_t, b, "c")
#define FIELDS_ci(F) F(int8_t, a, "c") F(int32_t, b, "i")
#define FIELDS_ii(F) F(int32_t, a, "i") F(int32_t, b, "i")
#define FIELDS_if(F) F(int32_t, a, "i") F(float, b, "f")
#define FIELDS_fi(F) F(float, a, "f") F(int32_t, b, "i")
#define FIELDS_ff(F) F(float, a, "f") F(float, b, "f")
#define FIELDS_cf(F) F(int8_t, a, "c") F(float, b, "f")
#define FIELDS_fff(F) F(float, a, "f") F(float, b, "f") F(float, c, "f")
#define FIELDS_iii(F) F(int32_t, a, "i") F(int32_t, b, "i") F(int32_t, c, "i")
#define FIELDS_iif(F) F(int32_t, a, "i") F(int32_t, b, "i") F(float, c, "f")
#define FIELDS_fii(F) F(float, a, "f") F(int32_t, b, "i") F(int32_t, c, "i")
#define FIELDS_ffi(F) F(float, a, "f") F(float, b, "f") F(int32_t, c, "i")
#define FIELDS_ffff(F) F(float, a, "f") F(float, b, "f") F(float, c, "f") F(float, d, "f")
#define FIELDS_d(F) F(double, a, "d")
#define FIELDS_dd(F) F(double, a, "d") F(double, b, "d")
#define FIELDS_id(F) F(int32_t, a, "i") F(double, b, "d")
#define FIELDS_di(F) F(double, a, "d") F(int32_t, b, "i")
#define FIELDS_df(F) F(double, a, "d") F(float, b, "f")
#define FIELDS_fd(F) F(float, a, "f") F(double, b, "d")
#define FIELDS_qc(F) F(int64_t, a, "q") F(int8_t, b, "c")
#define FIELDS_cq(F) F(int8_t, a, "c") F(int64_t, b, "q")
#define FIELDS_qq(F) F(int64_t, a, "q") F(int64_t, b, "q")
#define FIELDS_Qd(F) F(uint64_t, a, "Q") F(double, b, "d")
#define FIELDS_Bq(F) F(bool, a, "B") F(int64_t, b, "q")
#define FIELDS_iiiii(F) F(int32_t, a, "i") F(int32_t, b, "i") F(int32_t, c, "i") F(int32_t, d, "i") F(int32_t, e, "i")
#define FIELDS_fffff(F) F(float, a, "f") F(float, b, "f") F(float, c, "f") F(float, d, "f") F(float, e, "f")
#define FIELDS_cdc(F) F(int8_t, a, "c") F(double, b, "d") F(int8_t, c, "c")
#define FIELDS_ddd(F) F(double, a, "d") F(double, b, "d") F(double, c, "d")
#define FIELDS_qqq(F) F(int64_t, a, "q") F(int64_t, b, "q") F(int64_t, c, "q")
#define FIELDS_dqf(F) F(double, a, "d") F(int64_t, b, "q") F(float, c, "f")

#define STRUCT_CASES(X)                                                                                               \
    X(c) X(cc) X(ccc) X(sc) X(cs) X(sss) X(SCI) X(ic) X(ci) X(ii) X(if) X(fi) X(ff) X(cf) X(fff) X(iii) X(iif)        \
    X(fii) X(ffi) X(ffff) X(d) X(dd) X(id) X(di) X(df) X(fd) X(qc) X(cq) X(qq) X(Qd) X(Bq) X(iiiii) X(fffff) X(cdc)  \
    X(ddd) X(qqq) X(dqf)

#define DECLARE_FIELD(type, field, code) type field;
#define FIELD_CODE(type, field, code) code
/* Integers double in unsigned arithmetic, so that any bytes a broken call
 * hands over give a wrong answer rather than an overflow. */
#define BUMP_FIELD(type, field, code)                                                                                 \
    value.field = (type)_Generic(value.field, float: value.field * 2 + (float)by, double: value.field * 2 + by,       \
                                 default: (uint64_t)value.field * 2u + (uint64_t)(int64_t)by);
#define SAME_FIELD(type, field, code) &&a->field == b->field
#define FILL_FIELD(type, field, code)                                                                                 \
    value.field = (type)(seed + 3 * index);                                                                           \
    value.field += _Generic(value.field, float: 0.5f, double: 0.25, default: 0);                                      \
    index++;
#define FIELD_LAYOUT(type, field, code)                                                                               \
    out[n++] = (field_layout){offsetof(current, field), sizeof(((current *)0)->field), _Alignof(type), code};

typedef struct field_layout {
    size_t offset, size, alignment;
    const char *encoding;
} field_layout;

#define DEFINE_STRUCT_CASE(name)                                                                                      \
    typedef struct small_##name {                                                                                     \
        FIELDS_##name(DECLARE_FIELD)                                                                                  \
    } small_##name;                                                                                                   \
    CALLEE static small_##name bump_##name(small_##name value, int32_t by) {                                          \
        calls++;                                                                                                      \
        FIELDS_##name(BUMP_FIELD) return value;                                                                       \
    }                                                                                                                 \
    static void fill_##name(void *bytes, int seed) {                                                                  \
        small_##name value;                                                                                           \
        memset(&value, 0xa5, sizeof value);                                                                           \
        int index = 0;                                                                                                \
        FIELDS_##name(FILL_FIELD)(void) index;                                                                        \
        memcpy(bytes, &value, sizeof value);                                                                          \
    }                                                                                                                 \
    static bool same_##name(const void *x, const void *y) {                                                           \
        small_##name first, second;                                                                                   \
        memcpy(&first, x, sizeof first);                                                                              \
        memcpy(&second, y, sizeof second);                                                                            \
        const small_##name *a = &first, *b = &second;                                                                 \
        return true FIELDS_##name(SAME_FIELD);                                                                        \
    }                                                                                                                 \
    static void call_directly_##name(const void *in, int32_t by, void *out) {                                         \
        small_##name value;                                                                                           \
        memcpy(&value, in, sizeof value);                                                                             \
        small_##name result = bump_##name(value, by);                                                                 \
        memcpy(out, &result, sizeof result);                                                                          \
    }                                                                                                                 \
    static void call_through_##name(dc_function function, const void *in, int32_t by, void *out) {                    \
        small_##name value;                                                                                           \
        memcpy(&value, in, sizeof value);                                                                             \
        small_##name result = ((small_##name(*)(small_##name, int32_t))function)(value, by);                          \
        memcpy(out, &result, sizeof result);                                                                          \
    }                                                                                                                 \
    static void forward_##name(dc_invocation *call, void *user_data) {                                                \
        (void)user_data;                                                                                              \
        dc_value given = argument_of(call, 0);                                                                        \
        assert_int_equal(given.type, DC_TYPE_STRUCT);                                                                 \
        small_##name value;                                                                                           \
        memcpy(&value, given.pointer, sizeof value);                                                                  \
        small_##name result = bump_##name(value, argument_of(call, 1).i32);                                           \
        assert_ok(dc_invocation_set_return_value(call, VALUE(dc_struct(&result))));                                   \
    }                                                                                                                 \
    static size_t fields_of_##name(field_layout *out) {                                                               \
        typedef small_##name current;                                                                                 \
        size_t n = 0;                                                                                                 \
        FIELDS_##name(FIELD_LAYOUT) return n;                                                                         \
    }

STRUCT_CASES(DEFINE_STRUCT_CASE)

typedef struct struct_case {
    const char *name;
    const char *struct_encoding; /* "{ic=ic}" */
    const char *encoding;        /* "{ic=ic}{ic=ic}i": the bump function's */
    size_t size, alignment;
    dc_function bump;
    void (*fill)(void *bytes, int seed);
    bool (*same)(const void *a, const void *b);
    void (*call_directly)(const void *in, int32_t by, void *out);
    void (*call_through)(dc_function function, const void *in, int32_t by, void *out);
    dc_forward_handler forward;
    size_t (*fields)(field_layout *out);
} struct_case;

#define STRUCT_ENCODING(name) "{" #name "=" FIELDS_##name(FIELD_CODE) "}"
#define STRUCT_CASE_ENTRY(name)                                                                                       \
    {#name,                                                                                                           \
     STRUCT_ENCODING(name),                                                                                           \
     STRUCT_ENCODING(name) STRUCT_ENCODING(name) "i",                                                                 \
     sizeof(small_##name),                                                                                            \
     _Alignof(small_##name),                                                                                          \
     DC_FUNCTION(bump_##name),                                                                                        \
     fill_##name,                                                                                                     \
     same_##name,                                                                                                     \
     call_directly_##name,                                                                                            \
     call_through_##name,                                                                                             \
     forward_##name,                                                                                                  \
     fields_of_##name},

static const struct_case struct_cases[] = {STRUCT_CASES(STRUCT_CASE_ENTRY)};

static const int seeds[] = {5, -9};
enum { BY = 7 };

static void structs_of_every_class_pass_and_return_through_dc_call_as_in_a_direct_call(void **state) {
    (void)state;
    forget_mismatches();
    for (size_t i = 0; i < ARRAY_COUNT(struct_cases); i++) {
        const struct_case *c = &struct_cases[i];
        dc_signature *signature = create_signature(c->encoding);
        for (size_t s = 0; s < ARRAY_COUNT(seeds); s++) {
            buffer in = canary_buffer(), expected = canary_buffer(), out = canary_buffer();
            c->fill(in.bytes, seeds[s]);
            c->call_directly(in.bytes, BY, expected.bytes);

            dc_value arguments[] = {dc_struct(in.bytes), dc_int32(BY)};
            dc_value result = dc_struct(out.bytes);
            calls = 0;
            assert_ok(dc_call(signature, c->bump, arguments, 2, &result));
            assert_int_equal(calls, 1);
            assert_int_equal(result.type, DC_TYPE_STRUCT);
            assert_ptr_equal(result.pointer, out.bytes);
            if (!c->same(out.bytes, expected.bytes)) note_mismatch("%s (seed %d)", c->name, seeds[s]);
            assert_untouched_after(&out, c->size, c->name);
            if (in.bytes[c->size] != CANARY) note_mismatch("%s: bytes after the argument changed", c->name);
        }
        dc_signature_release(signature);
    }
    assert_no_mismatch();
}

static void structs_of_every_class_pass_and_return_through_an_invocation_as_in_a_direct_call(void **state) {
    (void)state;
    forget_mismatches();
    for (size_t i = 0; i < ARRAY_COUNT(struct_cases); i++) {
        const struct_case *c = &struct_cases[i];
        dc_signature *signature = create_signature(c->encoding);
        dc_invocation *invocation = NULL;
        assert_ok(dc_invocation_create(signature, c->bump, &invocation));
        dc_signature_release(signature);
        assert_int_equal(dc_invocation_call_path(invocation), DC_CALL_PATH_FFI);
        for (size_t s = 0; s < ARRAY_COUNT(seeds); s++) {
            buffer in = canary_buffer(), expected = canary_buffer();
            c->fill(in.bytes, seeds[s]);
            c->call_directly(in.bytes, BY, expected.bytes);
            assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_struct(in.bytes))));
            assert_ok(dc_invocation_set_argument(invocation, 1, VALUE(dc_int32(BY))));
            calls = 0;
            assert_ok(dc_invocation_invoke(invocation));
            assert_int_equal(calls, 1);
            dc_value result;
            assert_ok(dc_invocation_get_return_value(invocation, &result));
            assert_int_equal(result.type, DC_TYPE_STRUCT);
            assert_non_null(result.pointer);
            assert_true((uintptr_t)result.pointer % c->alignment == 0);
            if (!c->same(result.pointer, expected.bytes)) note_mismatch("%s (seed %d)", c->name, seeds[s]);
        }
        dc_invocation_destroy(invocation);
    }
    assert_no_mismatch();
}

/* Arguments stay set between invokes (NSInvocation's contract): a later
 * invoke passes the same struct bytes, however the struct travels, whatever
 * ran on the stack in between. */
static void an_invocation_invoked_again_passes_its_struct_arguments_again(void **state) {
    (void)state;
    forget_mismatches();
    for (size_t i = 0; i < ARRAY_COUNT(struct_cases); i++) {
        const struct_case *c = &struct_cases[i];
        dc_signature *signature = create_signature(c->encoding);
        dc_invocation *invocation = NULL;
        assert_ok(dc_invocation_create(signature, c->bump, &invocation));
        dc_signature_release(signature);
        buffer in = canary_buffer(), expected = canary_buffer();
        c->fill(in.bytes, 11);
        c->call_directly(in.bytes, BY, expected.bytes);
        assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_struct(in.bytes))));
        assert_ok(dc_invocation_set_argument(invocation, 1, VALUE(dc_int32(BY))));
        for (int round = 1; round <= 3; round++) {
            scribble_stack();
            assert_ok(dc_invocation_invoke(invocation));
            dc_value result;
            assert_ok(dc_invocation_get_return_value(invocation, &result));
            if (!c->same(result.pointer, expected.bytes)) note_mismatch("%s (invoke %d)", c->name, round);
        }
        dc_invocation_destroy(invocation);
    }
    assert_no_mismatch();
}

static void structs_of_every_class_reach_a_forward_handler_whose_struct_return_reaches_the_caller(void **state) {
    (void)state;
    forget_mismatches();
    for (size_t i = 0; i < ARRAY_COUNT(struct_cases); i++) {
        const struct_case *c = &struct_cases[i];
        dc_closure *closure = closure_of(c->encoding, c->forward, NULL);
        for (size_t s = 0; s < ARRAY_COUNT(seeds); s++) {
            buffer in = canary_buffer(), expected = canary_buffer(), out = canary_buffer();
            c->fill(in.bytes, seeds[s]);
            c->call_directly(in.bytes, BY, expected.bytes);
            calls = 0;
            c->call_through(dc_closure_function(closure), in.bytes, BY, out.bytes);
            assert_int_equal(calls, 1); /* the handler's call */
            if (!c->same(out.bytes, expected.bytes)) note_mismatch("%s (seed %d)", c->name, seeds[s]);
        }
        dc_closure_destroy(closure);
    }
    assert_no_mismatch();
}

/* Re-sends the call to the case's function and checks, inside the call, the
 * struct return it then reads; sets nothing more, so the caller gets it. */
static void resend_and_check(dc_invocation *call, void *user_data) {
    const struct_case *c = user_data;
    assert_ok(dc_invocation_set_function(call, c->bump));
    assert_ok(dc_invocation_invoke(call));
    dc_value returned;
    assert_ok(dc_invocation_get_return_value(call, &returned));
    assert_int_equal(returned.type, DC_TYPE_STRUCT);
    buffer expected = canary_buffer();
    c->call_directly(argument_of(call, 0).pointer, argument_of(call, 1).i32, expected.bytes);
    if (!c->same(returned.pointer, expected.bytes)) note_mismatch("%s: inside the handler", c->name);
}

static void a_closure_resending_each_struct_call_returns_what_the_function_returned(void **state) {
    (void)state;
    forget_mismatches();
    for (size_t i = 0; i < ARRAY_COUNT(struct_cases); i++) {
        const struct_case *c = &struct_cases[i];
        dc_closure *closure = closure_of(c->encoding, resend_and_check, (void *)c);
        buffer in = canary_buffer(), expected = canary_buffer(), out = canary_buffer();
        c->fill(in.bytes, -2);
        c->call_directly(in.bytes, -3, expected.bytes);
        c->call_through(dc_closure_function(closure), in.bytes, -3, out.bytes);
        if (!c->same(out.bytes, expected.bytes)) note_mismatch("%s: the closure's caller", c->name);
        dc_closure_destroy(closure);
    }
    assert_no_mismatch();
}

/* Re-sends the call twice; both calls must see the arguments the closure
 * was called with. */
static void resend_twice(dc_invocation *call, void *user_data) {
    const struct_case *c = user_data;
    assert_ok(dc_invocation_set_function(call, c->bump));
    buffer expected = canary_buffer();
    c->call_directly(argument_of(call, 0).pointer, argument_of(call, 1).i32, expected.bytes);
    for (int round = 1; round <= 2; round++) {
        scribble_stack();
        assert_ok(dc_invocation_invoke(call));
        dc_value returned;
        assert_ok(dc_invocation_get_return_value(call, &returned));
        if (!c->same(returned.pointer, expected.bytes)) note_mismatch("%s: re-sent call %d", c->name, round);
    }
}

static void a_forward_handler_invoking_twice_passes_the_same_struct_both_times(void **state) {
    (void)state;
    forget_mismatches();
    for (size_t i = 0; i < ARRAY_COUNT(struct_cases); i++) {
        const struct_case *c = &struct_cases[i];
        dc_closure *closure = closure_of(c->encoding, resend_twice, (void *)c);
        buffer in = canary_buffer(), expected = canary_buffer(), out = canary_buffer();
        c->fill(in.bytes, 4);
        c->call_directly(in.bytes, 2, expected.bytes);
        c->call_through(dc_closure_function(closure), in.bytes, 2, out.bytes);
        if (!c->same(out.bytes, expected.bytes)) note_mismatch("%s: the closure's caller", c->name);
        dc_closure_destroy(closure);
    }
    assert_no_mismatch();
}

static void do_nothing(dc_invocation *call, void *user_data) {
    (void)call;
    (void)user_data;
}

static void a_closure_whose_handler_sets_no_struct_returns_zero_bytes(void **state) {
    (void)state;
    forget_mismatches();
    buffer zero;
    memset(zero.bytes, 0, sizeof zero.bytes);
    for (size_t i = 0; i < ARRAY_COUNT(struct_cases); i++) {
        const struct_case *c = &struct_cases[i];
        dc_closure *closure = closure_of(c->encoding, do_nothing, NULL);
        buffer in = canary_buffer(), out = canary_buffer();
        c->fill(in.bytes, 1);
        c->call_through(dc_closure_function(closure), in.bytes, 1, out.bytes);
        if (!c->same(out.bytes, zero.bytes)) note_mismatch("%s: nonzero fields", c->name);
        dc_closure_destroy(closure);
    }
    assert_no_mismatch();
}

static void a_struct_argument_is_copied_into_the_invocation(void **state) {
    (void)state;
    dc_signature *signature = create_signature("{dd=dd}{dd=dd}i");
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, DC_FUNCTION(bump_dd), &invocation));
    dc_signature_release(signature);

    /* Until set, the argument is zero bytes the invocation owns. */
    dc_value initial = argument_of(invocation, 0);
    assert_int_equal(initial.type, DC_TYPE_STRUCT);
    assert_non_null(initial.pointer);
    small_dd zero = {0, 0};
    assert_memory_equal(initial.pointer, &zero, sizeof zero);

    small_dd given = {1.5, -2.25};
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_struct(&given))));
    assert_ok(dc_invocation_set_argument(invocation, 1, VALUE(dc_int32(1))));
    given.a = 1000; /* the caller's bytes change; the invocation's do not */
    dc_value stored = argument_of(invocation, 0);
    assert_ptr_not_equal(stored.pointer, &given);
    assert_ptr_equal(stored.pointer, initial.pointer);
    assert_true(((const small_dd *)stored.pointer)->a == 1.5);

    assert_ok(dc_invocation_invoke(invocation));
    dc_value result;
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_true(((const small_dd *)result.pointer)->a == 4.0);
    assert_true(((const small_dd *)result.pointer)->b == -3.5);

    /* The return value is the invocation's: set_return_value copies bytes in,
     * and the next invoke replaces them. */
    small_dd chosen = {9.0, 10.0};
    assert_ok(dc_invocation_set_return_value(invocation, VALUE(dc_struct(&chosen))));
    chosen.a = -1;
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_true(((const small_dd *)result.pointer)->a == 9.0);
    assert_ok(dc_invocation_set_argument(invocation, 1, VALUE(dc_int32(0))));
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_true(((const small_dd *)result.pointer)->a == 3.0);
    assert_true(((const small_dd *)result.pointer)->b == -4.5);
    dc_invocation_destroy(invocation);
}

/* ---- nested structs and arrays inside structs ----------------------------------------- */

typedef struct point {
    double x, y;
} point;
typedef struct extent {
    double width, height;
} extent;
typedef struct rect {
    point origin;
    extent size;
} rect;
#define RECT "{rect={point=dd}{extent=dd}}"

CALLEE static rect inset(rect r, double by) {
    calls++;
    return (rect){{r.origin.x + by, r.origin.y + by}, {r.size.width - 2 * by, r.size.height - 2 * by}};
}

static bool same_rect(const rect *a, const rect *b) {
    return a->origin.x == b->origin.x && a->origin.y == b->origin.y && a->size.width == b->size.width &&
           a->size.height == b->size.height;
}

static void inset_forward(dc_invocation *call, void *user_data) {
    (void)user_data;
    rect r;
    memcpy(&r, argument_of(call, 0).pointer, sizeof r);
    rect result = inset(r, argument_of(call, 1).d);
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_struct(&result))));
}

static void nested_structs_pass_and_return_by_value(void **state) {
    (void)state;
    const rect given = {{1.5, -2.0}, {30.0, 40.25}};
    const rect expected = inset(given, 0.75);

    dc_signature *signature = create_signature(RECT RECT "d");
    rect out;
    memset(&out, 0, sizeof out);
    dc_value result = dc_struct(&out);
    assert_ok(dc_call(signature, DC_FUNCTION(inset), (dc_value[]){dc_struct((void *)&given), dc_double(0.75)}, 2,
                      &result));
    assert_true(same_rect(&out, &expected));

    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, DC_FUNCTION(inset), &invocation));
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_struct((void *)&given))));
    assert_ok(dc_invocation_set_argument(invocation, 1, VALUE(dc_float(0.75f)))); /* float fits double */
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_true(same_rect(result.pointer, &expected));
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);

    dc_closure *closure = closure_of(RECT RECT "d", inset_forward, NULL);
    rect through = ((rect(*)(rect, double))dc_closure_function(closure))(given, 0.75);
    assert_true(same_rect(&through, &expected));
    dc_closure_destroy(closure);
}

/* Changes the rect it was called with, re-sends the call to inset, reads the
 * struct it returned, then returns that with its width doubled. */
static rect seen_inside;
static void move_resend_and_widen(dc_invocation *call, void *user_data) {
    (void)user_data;
    rect moved;
    memcpy(&moved, argument_of(call, 0).pointer, sizeof moved);
    moved.origin.x += 100;
    assert_ok(dc_invocation_set_argument(call, 0, VALUE(dc_struct(&moved))));
    assert_ok(dc_invocation_set_function(call, DC_FUNCTION(inset)));
    assert_ok(dc_invocation_invoke(call));
    dc_value returned;
    assert_ok(dc_invocation_get_return_value(call, &returned));
    assert_int_equal(returned.type, DC_TYPE_STRUCT);
    memcpy(&seen_inside, returned.pointer, sizeof seen_inside);
    rect widened = seen_inside;
    widened.size.width *= 2;
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_struct(&widened))));
}

static void a_closure_changes_a_struct_argument_resends_and_returns_its_own_struct(void **state) {
    (void)state;
    dc_closure *closure = closure_of(RECT RECT "d", move_resend_and_widen, NULL);
    const rect given = {{1, 2}, {10, 20}};
    rect result = ((rect(*)(rect, double))dc_closure_function(closure))(given, 1.0);
    const rect moved = {{101, 2}, {10, 20}};
    rect expected = inset(moved, 1.0);
    assert_true(same_rect(&seen_inside, &expected));
    expected.size.width *= 2;
    assert_true(same_rect(&result, &expected));
    dc_closure_destroy(closure);
}

typedef struct vec4 {
    int32_t v[4];
} vec4;
CALLEE static vec4 reverse_vec4(vec4 in) {
    calls++;
    return (vec4){{in.v[3], in.v[2], in.v[1], in.v[0]}};
}

typedef struct mixed {
    char c;
    int16_t s[3];
    double d;
} mixed;
CALLEE static mixed shift_mixed(mixed m, int32_t by) {
    calls++;
    return (mixed){(char)(m.c + by), {(int16_t)(m.s[0] + by), (int16_t)(m.s[1] + 2 * by), (int16_t)(m.s[2] + 3 * by)},
                   m.d * by};
}

typedef struct fpoint {
    float x, y;
} fpoint;
typedef struct triangle {
    fpoint corners[3];
} triangle;
CALLEE static triangle translate_triangle(triangle t, fpoint by) {
    calls++;
    for (int i = 0; i < 3; i++) {
        t.corners[i].x += by.x;
        t.corners[i].y += by.y;
    }
    return t;
}

typedef struct grid {
    int8_t cells[2][3];
} grid;
CALLEE static grid transpose_sum(grid g, int8_t add) {
    calls++;
    grid out;
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++) out.cells[r][c] = (int8_t)(g.cells[1 - r][2 - c] + add);
    return out;
}

typedef struct quad {
    float q[4];
} quad;
CALLEE static quad scale_quad(quad in, float by) {
    calls++;
    return (quad){{in.q[0] * by, in.q[1] * by, in.q[2] * by, in.q[3] * by}};
}

typedef struct halves {
    float f[2];
    int32_t i[2];
} halves;
CALLEE static halves swap_halves(halves h) {
    calls++;
    return (halves){{(float)h.i[0], (float)h.i[1]}, {(int32_t)h.f[0], (int32_t)h.f[1]}};
}

/* Calls `function` of `encoding` with `arguments` through dc_call and through a
 * closure re-sending to it (called with `call_closure`), and checks both
 * results against the direct call's `expected` bytes. */
static void check_struct_function(const char *encoding, dc_function function, const dc_value *arguments, size_t count,
                                  const void *expected, size_t size,
                                  void (*call_closure)(dc_function closure, void *out)) {
    dc_signature *signature = create_signature(encoding);
    dc_layout layout;
    assert_ok(dc_signature_return_layout(signature, &layout));
    assert_int_equal(layout.size, size);

    buffer out = canary_buffer();
    dc_value result = dc_struct(out.bytes);
    calls = 0;
    assert_ok(dc_call(signature, function, arguments, count, &result));
    assert_int_equal(calls, 1);
    if (memcmp(out.bytes, expected, size) != 0) fail_msg("%s: dc_call returned other bytes", encoding);
    assert_untouched_after(&out, size, encoding);

    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, function, &invocation));
    for (size_t i = 0; i < count; i++) assert_ok(dc_invocation_set_argument(invocation, i, &arguments[i]));
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    if (memcmp(result.pointer, expected, size) != 0) fail_msg("%s: the invocation returned other bytes", encoding);
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);

    dc_closure *closure = closure_of(encoding, pass_on, &function);
    buffer through = canary_buffer();
    call_closure(dc_closure_function(closure), through.bytes);
    if (memcmp(through.bytes, expected, size) != 0) fail_msg("%s: the closure returned other bytes", encoding);
    dc_closure_destroy(closure);
}

static const vec4 a_vec4 = {{1, -2, 3, -4}};
static const mixed a_mixed = {'a', {10, -20, 30}, 2.5};
static const triangle a_triangle = {{{0, 0}, {4, 0.5f}, {-1.25f, 3}}};
static const fpoint a_shift = {0.5f, -1};
static const grid a_grid = {{{1, 2, 3}, {-4, -5, -6}}};
static const quad a_quad = {{1, 2.5f, -3, 0.125f}};
static const halves some_halves = {{1.5f, -7.0f}, {9, -11}};

static void call_reverse_vec4(dc_function f, void *out) {
    vec4 r = ((vec4(*)(vec4))f)(a_vec4);
    memcpy(out, &r, sizeof r);
}
static void call_translate_triangle(dc_function f, void *out) {
    triangle r = ((triangle(*)(triangle, fpoint))f)(a_triangle, a_shift);
    memcpy(out, &r, sizeof r);
}
static void call_transpose_sum(dc_function f, void *out) {
    grid r = ((grid(*)(grid, int8_t))f)(a_grid, 10);
    memcpy(out, &r, sizeof r);
}
static void call_scale_quad(dc_function f, void *out) {
    quad r = ((quad(*)(quad, float))f)(a_quad, -2);
    memcpy(out, &r, sizeof r);
}
static void call_swap_halves(dc_function f, void *out) {
    halves r = ((halves(*)(halves))f)(some_halves);
    memcpy(out, &r, sizeof r);
}

static void arrays_inside_structs_pass_and_return_by_value(void **state) {
    (void)state;
    /* These structs have no padding, so their bytes compare. */
    vec4 reversed = reverse_vec4(a_vec4);
    check_struct_function("{vec4=[4i]}{vec4=[4i]}", DC_FUNCTION(reverse_vec4),
                          (dc_value[]){dc_struct((void *)&a_vec4)}, 1, &reversed, sizeof reversed, call_reverse_vec4);

    triangle moved = translate_triangle(a_triangle, a_shift);
    check_struct_function("{triangle=[3{fpoint=ff}]}{triangle=[3{fpoint=ff}]}{fpoint=ff}",
                          DC_FUNCTION(translate_triangle),
                          (dc_value[]){dc_struct((void *)&a_triangle), dc_struct((void *)&a_shift)}, 2, &moved,
                          sizeof moved, call_translate_triangle);

    grid transposed = transpose_sum(a_grid, 10);
    check_struct_function("{grid=[2[3c]]}{grid=[2[3c]]}c", DC_FUNCTION(transpose_sum),
                          (dc_value[]){dc_struct((void *)&a_grid), dc_int8(10)}, 2, &transposed, sizeof transposed,
                          call_transpose_sum);

    quad scaled = scale_quad(a_quad, -2);
    check_struct_function("{quad=[4f]}{quad=[4f]}f", DC_FUNCTION(scale_quad),
                          (dc_value[]){dc_struct((void *)&a_quad), dc_float(-2)}, 2, &scaled, sizeof scaled,
                          call_scale_quad);

    halves swapped = swap_halves(some_halves);
    check_struct_function("{halves=[2f][2i]}{halves=[2f][2i]}", DC_FUNCTION(swap_halves),
                          (dc_value[]){dc_struct((void *)&some_halves)}, 1, &swapped, sizeof swapped, call_swap_halves);
}

/* mixed has padding after c, which a returned struct need not keep: its
 * fields compare, not its bytes. */
static void a_struct_with_an_array_between_a_char_and_a_double_keeps_every_field(void **state) {
    (void)state;
    mixed expected = shift_mixed(a_mixed, 3);
    dc_signature *signature = create_signature("{mixed=c[3s]d}{mixed=c[3s]d}i");
    mixed out;
    memset(&out, 0, sizeof out);
    dc_value result = dc_struct(&out);
    assert_ok(dc_call(signature, DC_FUNCTION(shift_mixed), (dc_value[]){dc_struct((void *)&a_mixed), dc_int32(3)}, 2,
                      &result));
    assert_int_equal(out.c, expected.c);
    assert_memory_equal(out.s, expected.s, sizeof out.s);
    assert_true(out.d == expected.d);
    dc_signature_release(signature);

    const dc_function function = DC_FUNCTION(shift_mixed);
    dc_closure *closure = closure_of("{mixed=c[3s]d}{mixed=c[3s]d}i", pass_on, (void *)&function);
    mixed through = ((mixed(*)(mixed, int32_t))dc_closure_function(closure))(a_mixed, 3);
    assert_int_equal(through.c, expected.c);
    assert_memory_equal(through.s, expected.s, sizeof through.s);
    assert_true(through.d == expected.d);
    dc_closure_destroy(closure);
}

/* ---- many structs among scalars, and structs on the stack ---------------------------------- */

CALLEE static double mingle(int8_t a, point p, float f, small_ic s, int64_t q, rect r, small_ff g, double d,
                            small_cdc big, uint16_t u) {
    calls++;
    return a * 1.0 + p.x * 2 + p.y * 3 + f * 5 + s.a * 7 + s.b * 11 + (double)q * 13 + r.origin.x * 17 +
           r.origin.y * 19 + r.size.width * 23 + r.size.height * 29 + g.a * 31 + g.b * 37 + d * 41 + big.a * 43 +
           big.b * 47 + big.c * 53 + u * 59;
}
#define MINGLE "dc{point=dd}f{ic=ic}q" RECT "{ff=ff}d{cdc=cdc}S"

static void mingle_by_reading(dc_invocation *call, void *user_data) {
    (void)user_data;
    point p;
    small_ic s;
    rect r;
    small_ff g;
    small_cdc big;
    memcpy(&p, argument_of(call, 1).pointer, sizeof p);
    memcpy(&s, argument_of(call, 3).pointer, sizeof s);
    memcpy(&r, argument_of(call, 5).pointer, sizeof r);
    memcpy(&g, argument_of(call, 6).pointer, sizeof g);
    memcpy(&big, argument_of(call, 8).pointer, sizeof big);
    double result = mingle(argument_of(call, 0).i8, p, argument_of(call, 2).f, s, argument_of(call, 4).i64, r, g,
                           argument_of(call, 7).d, big, argument_of(call, 9).u16);
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_double(result))));
}

static void many_struct_arguments_mixed_with_scalars_arrive_in_order(void **state) {
    (void)state;
    const point p = {1.25, -2.5};
    const small_ic s = {-300, 9};
    const rect r = {{3, 4}, {5.5, 6.5}};
    const small_ff g = {0.5f, -0.75f};
    const small_cdc big = {-7, 8.125, 12};
    const double expected = mingle(-3, p, 1.5f, s, -123456789012LL, r, g, 2.75, big, 65000);

    dc_signature *signature = create_signature(MINGLE);
    const dc_value arguments[] = {dc_int8(-3),  dc_struct((void *)&p),   dc_float(1.5f),       dc_struct((void *)&s),
                                  dc_int64(-123456789012LL), dc_struct((void *)&r), dc_struct((void *)&g),
                                  dc_double(2.75), dc_struct((void *)&big), dc_uint16(65000)};
    dc_value result;
    assert_ok(dc_call(signature, DC_FUNCTION(mingle), arguments, ARRAY_COUNT(arguments), &result));
    assert_value_equal(dc_double(expected), result, "mingle through dc_call");

    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, DC_FUNCTION(mingle), &invocation));
    for (size_t i = 0; i < ARRAY_COUNT(arguments); i++)
        assert_ok(dc_invocation_set_argument(invocation, i, &arguments[i]));
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_double(expected), result, "mingle through an invocation");
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);

    typedef double (*mingle_type)(int8_t, point, float, small_ic, int64_t, rect, small_ff, double, small_cdc, uint16_t);
    dc_closure *reading = closure_of(MINGLE, mingle_by_reading, NULL);
    double through =
        ((mingle_type)dc_closure_function(reading))(-3, p, 1.5f, s, -123456789012LL, r, g, 2.75, big, 65000);
    assert_value_equal(dc_double(expected), dc_double(through), "mingle through a closure that reads each argument");
    dc_closure_destroy(reading);

    const dc_function function = DC_FUNCTION(mingle);
    dc_closure *resending = closure_of(MINGLE, pass_on, (void *)&function);
    through = ((mingle_type)dc_closure_function(resending))(-3, p, 1.5f, s, -123456789012LL, r, g, 2.75, big, 65000);
    assert_value_equal(dc_double(expected), dc_double(through), "mingle through a closure that re-sends the call");
    dc_closure_destroy(resending);
}

/* Six integers fill the integer registers: the structs after them, and the
 * integer after those, travel on the stack. (Sums in double: whatever a
 * broken call passes gives a wrong sum, never an overflow.) */
CALLEE static double after_six(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f, small_qq x,
                               small_ic y, small_dd z, int64_t g) {
    calls++;
    return (double)a + 2.0 * b + 3.0 * c + 4.0 * d + 5.0 * e + 6.0 * f + 7.0 * x.a + 8.0 * x.b + 9.0 * y.a +
           10.0 * y.b + 11 * z.a + 12 * z.b + 13.0 * g;
}

/* Five integers leave one register, too few for a two-register struct: it
 * goes to the stack whole, and the integer after it takes the register. */
CALLEE static double straddle(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, small_qq x, int64_t g) {
    calls++;
    return (double)a + 2.0 * b + 3.0 * c + 4.0 * d + 5.0 * e + 6.0 * x.a + 7.0 * x.b + 8.0 * g;
}

/* Eight doubles fill the vector registers: a struct of doubles goes to the
 * stack, one of an int and a float to an integer register. */
CALLEE static double after_eight(double a, double b, double c, double d, double e, double f, double g, double h,
                                 small_dd x, small_if y, double i, int32_t n) {
    calls++;
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * x.a + 10 * x.b + 11 * y.a + 12 * y.b +
           13 * i + 14 * n;
}

/* dc_call, an invocation and a closure re-sending to the function must all
 * give `expected`; `call_closure` calls the closure's function. */
static void check_through_every_path(const char *encoding, dc_function function, const dc_value *arguments,
                                     size_t count, dc_value expected, dc_value (*call_closure)(dc_function closure)) {
    dc_signature *signature = create_signature(encoding);
    dc_value result;
    assert_ok(dc_call(signature, function, arguments, count, &result));
    assert_value_equal(expected, result, encoding);
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, function, &invocation));
    for (size_t i = 0; i < count; i++) assert_ok(dc_invocation_set_argument(invocation, i, &arguments[i]));
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(expected, result, encoding);
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);
    dc_closure *closure = closure_of(encoding, pass_on, &function);
    assert_value_equal(expected, call_closure(dc_closure_function(closure)), encoding);
    dc_closure_destroy(closure);
}

static const small_qq stack_qq = {1000003, -77};
static const small_ic stack_ic = {-5, 100};
static const small_dd stack_dd = {0.5, -1.5};
static const small_if stack_if = {17, 0.25f};

static dc_value call_after_six(dc_function f) {
    return dc_double(((double (*)(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, small_qq, small_ic, small_dd,
                                  int64_t))f)(1, 2, 3, 4, 5, 6, stack_qq, stack_ic, stack_dd, -99));
}
static dc_value call_straddle(dc_function f) {
    return dc_double(((double (*)(int64_t, int64_t, int64_t, int64_t, int64_t, small_qq, int64_t))f)(
        -1, -2, -3, -4, -5, stack_qq, 424242));
}
static dc_value call_after_eight(dc_function f) {
    return dc_double(((double (*)(double, double, double, double, double, double, double, double, small_dd, small_if,
                                  double, int32_t))f)(0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, stack_dd, stack_if, -8.25, 31));
}

static void structs_after_the_argument_registers_are_full_travel_on_the_stack(void **state) {
    (void)state;
    const dc_value six[] = {dc_int64(1), dc_int64(2), dc_int64(3), dc_int64(4), dc_int64(5), dc_int64(6),
                            dc_struct((void *)&stack_qq), dc_struct((void *)&stack_ic), dc_struct((void *)&stack_dd),
                            dc_int64(-99)};
    check_through_every_path("dqqqqqq{qq=qq}{ic=ic}{dd=dd}q", DC_FUNCTION(after_six), six, ARRAY_COUNT(six),
                             dc_double(after_six(1, 2, 3, 4, 5, 6, stack_qq, stack_ic, stack_dd, -99)), call_after_six);

    const dc_value five[] = {dc_int64(-1), dc_int64(-2), dc_int64(-3), dc_int64(-4), dc_int64(-5),
                             dc_struct((void *)&stack_qq), dc_int64(424242)};
    check_through_every_path("dqqqqq{qq=qq}q", DC_FUNCTION(straddle), five, ARRAY_COUNT(five),
                             dc_double(straddle(-1, -2, -3, -4, -5, stack_qq, 424242)), call_straddle);

    const dc_value eight[] = {dc_double(0.5), dc_double(1),   dc_double(1.5), dc_double(2),
                              dc_double(2.5), dc_double(3),   dc_double(3.5), dc_double(4),
                              dc_struct((void *)&stack_dd),   dc_struct((void *)&stack_if),
                              dc_double(-8.25), dc_int32(31)};
    check_through_every_path("ddddddddd{dd=dd}{if=if}di", DC_FUNCTION(after_eight), eight, ARRAY_COUNT(eight),
                             dc_double(after_eight(0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, stack_dd, stack_if, -8.25, 31)),
                             call_after_eight);
}

/* ---- C library functions ----------------------------------------------------------------- */

static void div_ldiv_lldiv_and_imaxdiv_return_the_structs_direct_calls_return(void **state) {
    (void)state;
    dc_signature *signature = create_signature("{div_t=ii}ii");
    div_t d;
    memset(&d, 0xff, sizeof d);
    dc_value result = dc_struct(&d);
    assert_ok(dc_call(signature, library_function("div"), (dc_value[]){dc_int32(-17), dc_int32(5)}, 2, &result));
    div_t expected_div = div(-17, 5);
    assert_int_equal(d.quot, expected_div.quot);
    assert_int_equal(d.rem, expected_div.rem);
    dc_signature_release(signature);

    char encoding[64];
    const char *l = integer_code(sizeof(long));
    snprintf(encoding, sizeof encoding, "{ldiv_t=%s%s}%s%s", l, l, l, l);
    signature = create_signature(encoding);
    long numerator = sizeof(long) == 8 ? (long)(-9876543210123LL) : -987654321L;
    ldiv_t ld;
    memset(&ld, 0xff, sizeof ld);
    result = dc_struct(&ld);
    assert_ok(dc_call(signature, library_function("ldiv"), (dc_value[]){dc_int64(numerator), dc_int64(1000003)}, 2,
                      &result));
    ldiv_t expected_ldiv = ldiv(numerator, 1000003);
    assert_int_equal(ld.quot, expected_ldiv.quot);
    assert_int_equal(ld.rem, expected_ldiv.rem);
    dc_signature_release(signature);

    signature = create_signature("{lldiv_t=qq}qq");
    lldiv_t lld;
    memset(&lld, 0xff, sizeof lld);
    result = dc_struct(&lld);
    assert_ok(dc_call(signature, library_function("lldiv"),
                      (dc_value[]){dc_int64(INT64_MAX - 5), dc_int64(-123456789)}, 2, &result));
    lldiv_t expected_lldiv = lldiv(INT64_MAX - 5, -123456789);
    assert_int_equal(lld.quot, expected_lldiv.quot);
    assert_int_equal(lld.rem, expected_lldiv.rem);
    dc_signature_release(signature);

    const char *m = integer_code(sizeof(intmax_t));
    snprintf(encoding, sizeof encoding, "{imaxdiv_t=%s%s}%s%s", m, m, m, m);
    signature = create_signature(encoding);
    imaxdiv_t id;
    memset(&id, 0xff, sizeof id);
    result = dc_struct(&id);
    assert_ok(dc_call(signature, library_function("imaxdiv"), (dc_value[]){dc_int64(-1000000007), dc_int64(97)}, 2,
                      &result));
    imaxdiv_t expected_imaxdiv = imaxdiv(-1000000007, 97);
    assert_int_equal(id.quot, expected_imaxdiv.quot);
    assert_int_equal(id.rem, expected_imaxdiv.rem);
    dc_signature_release(signature);
}

static void inet_ntoa_takes_a_struct_in_addr_by_value(void **state) {
    (void)state;
    struct in_addr address;
    address.s_addr = htonl(0xc0a80a2a); /* 192.168.10.42 */
    char expected[32];
    snprintf(expected, sizeof expected, "%s", inet_ntoa(address));
    assert_string_equal(expected, "192.168.10.42");

    dc_signature *signature = create_signature("*{in_addr=I}");
    dc_value result;
    struct in_addr other;
    other.s_addr = htonl(0x7f000001);
    (void)inet_ntoa(other); /* the static buffer now holds something else */
    assert_ok(dc_call(signature, library_function("inet_ntoa"), (dc_value[]){dc_struct(&address)}, 1, &result));
    assert_int_equal(result.type, DC_TYPE_STRING);
    assert_string_equal(result.string, expected);
    dc_signature_release(signature);
}

static void inet_makeaddr_returns_a_struct_in_addr(void **state) {
    (void)state;
    struct in_addr expected = inet_makeaddr(10, 0x0a0b0c);
    dc_signature *signature = create_signature("{in_addr=I}II");
    dc_layout layout;
    assert_ok(dc_signature_return_layout(signature, &layout));
    assert_int_equal(layout.size, sizeof(struct in_addr));
    struct in_addr made;
    memset(&made, 0xee, sizeof made);
    dc_value result = dc_struct(&made);
    assert_ok(dc_call(signature, library_function("inet_makeaddr"), (dc_value[]){dc_uint32(10), dc_uint32(0x0a0b0c)}, 2,
                      &result));
    assert_int_equal(made.s_addr, expected.s_addr);
    /* musl's inet_makeaddr leaves the address in host byte order, where
     * POSIX asks for network order; the call gives what the direct call
     * gives, and its text is checked where that is network order. */
    if (expected.s_addr == htonl(0x0a0a0b0c)) assert_string_equal(inet_ntoa(made), "10.10.11.12");
    dc_signature_release(signature);
}

/* ---- layouts -------------------------------------------------------------------------------- */

static void assert_layout(const dc_layout *layout, dc_type type, size_t size, size_t alignment, size_t count,
                          size_t offset, size_t field_count, const char *encoding, const char *what) {
    if (layout->type != type || layout->size != size || layout->alignment != alignment || layout->count != count ||
        layout->offset != offset || layout->field_count != field_count || layout->encoding == NULL ||
        strcmp(layout->encoding, encoding) != 0)
        fail_msg("%s: layout {%s, size %zu, alignment %zu, count %zu, offset %zu, %zu fields, \"%s\"}, expected "
                 "{%s, %zu, %zu, %zu, %zu, %zu, \"%s\"}",
                 what, dc_type_name(layout->type), layout->size, layout->alignment, layout->count, layout->offset,
                 layout->field_count, layout->encoding ? layout->encoding : "(null)", dc_type_name(type), size,
                 alignment, count, offset, field_count, encoding);
}

static dc_layout field_of(const dc_layout *layout, size_t index) {
    dc_layout field;
    assert_ok(dc_layout_field(layout, index, &field));
    return field;
}

static void every_small_struct_has_the_compilers_size_alignment_and_offsets(void **state) {
    (void)state;
    for (size_t i = 0; i < ARRAY_COUNT(struct_cases); i++) {
        const struct_case *c = &struct_cases[i];
        field_layout fields[8];
        size_t field_count = c->fields(fields);
        dc_signature *signature = create_signature(c->encoding);
        dc_layout returned, parameter;
        assert_ok(dc_signature_return_layout(signature, &returned));
        assert_ok(dc_signature_parameter_layout(signature, 0, &parameter));
        assert_layout(&returned, DC_TYPE_STRUCT, c->size, c->alignment, 1, 0, field_count, c->struct_encoding, c->name);
        assert_layout(&parameter, DC_TYPE_STRUCT, c->size, c->alignment, 1, 0, field_count, c->struct_encoding,
                      c->name);
        for (size_t f = 0; f < field_count; f++) {
            dc_layout field = field_of(&parameter, f);
            dc_type type;
            dc_signature *scalar = create_signature(fields[f].encoding);
            type = dc_signature_return_type(scalar);
            dc_signature_release(scalar);
            assert_layout(&field, type, fields[f].size, fields[f].alignment, 1, fields[f].offset, 0, fields[f].encoding,
                          c->name);
        }
        dc_signature_release(signature);
    }
}

typedef struct with_pointers {
    char tag;
    void *object;
    char *name;
    int *values;
} with_pointers;

typedef struct deep {
    struct {
        struct {
            char c;
        } b;
        double d;
    } a;
    short s;
} deep;

static void nested_structs_and_arrays_have_the_compilers_layout(void **state) {
    (void)state;
    dc_signature *signature = create_signature("v" RECT "{mixed=c[3s]d}{triangle=[3{fpoint=ff}]}{grid=[2[3c]]}"
                                               "{with_pointers=c@*^i}{deep={?={?=c}d}s}");
    dc_layout layout, field, inner;

    assert_ok(dc_signature_parameter_layout(signature, 0, &layout));
    assert_layout(&layout, DC_TYPE_STRUCT, sizeof(rect), _Alignof(rect), 1, 0, 2, "{rect={point=dd}{extent=dd}}",
                  "rect");
    field = field_of(&layout, 1);
    assert_layout(&field, DC_TYPE_STRUCT, sizeof(extent), _Alignof(extent), 1, offsetof(rect, size), 2,
                  "{extent=dd}", "rect.size");
    inner = field_of(&field, 1);
    assert_layout(&inner, DC_TYPE_DOUBLE, sizeof(double), _Alignof(double), 1, offsetof(extent, height), 0, "d",
                  "rect.size.height (offset within extent)");

    assert_ok(dc_signature_parameter_layout(signature, 1, &layout));
    assert_layout(&layout, DC_TYPE_STRUCT, sizeof(mixed), _Alignof(mixed), 1, 0, 3, "{mixed=c[3s]d}", "mixed");
    field = field_of(&layout, 1);
    assert_layout(&field, DC_TYPE_INT16, sizeof(int16_t[3]), _Alignof(int16_t), 3, offsetof(mixed, s), 0, "[3s]",
                  "mixed.s");
    field = field_of(&layout, 2);
    assert_layout(&field, DC_TYPE_DOUBLE, sizeof(double), _Alignof(double), 1, offsetof(mixed, d), 0, "d", "mixed.d");

    assert_ok(dc_signature_parameter_layout(signature, 2, &layout));
    assert_layout(&layout, DC_TYPE_STRUCT, sizeof(triangle), _Alignof(triangle), 1, 0, 1, "{triangle=[3{fpoint=ff}]}",
                  "triangle");
    field = field_of(&layout, 0);
    /* An array of structs: the element's fields. */
    assert_layout(&field, DC_TYPE_STRUCT, sizeof(fpoint[3]), _Alignof(fpoint), 3, 0, 2, "[3{fpoint=ff}]",
                  "triangle.corners");
    inner = field_of(&field, 1);
    assert_layout(&inner, DC_TYPE_FLOAT, sizeof(float), _Alignof(float), 1, offsetof(fpoint, y), 0, "f",
                  "triangle.corners[].y");

    assert_ok(dc_signature_parameter_layout(signature, 3, &layout));
    assert_layout(&layout, DC_TYPE_STRUCT, sizeof(grid), _Alignof(grid), 1, 0, 1, "{grid=[2[3c]]}", "grid");
    field = field_of(&layout, 0);
    assert_layout(&field, DC_TYPE_INT8, sizeof(int8_t[2][3]), 1, 6, 0, 0, "[2[3c]]", "grid.cells");

    assert_ok(dc_signature_parameter_layout(signature, 4, &layout));
    assert_layout(&layout, DC_TYPE_STRUCT, sizeof(with_pointers), _Alignof(with_pointers), 1, 0, 4,
                  "{with_pointers=c@*^v}", "with_pointers");
    const size_t pointer_offsets[] = {offsetof(with_pointers, object), offsetof(with_pointers, name),
                                      offsetof(with_pointers, values)};
    const dc_type pointer_types[] = {DC_TYPE_OBJECT, DC_TYPE_STRING, DC_TYPE_POINTER};
    const char *const pointer_encodings[] = {"@", "*", "^v"};
    for (size_t i = 0; i < 3; i++) {
        field = field_of(&layout, i + 1);
        assert_layout(&field, pointer_types[i], sizeof(void *), _Alignof(void *), 1, pointer_offsets[i], 0,
                      pointer_encodings[i], "with_pointers field");
    }

    assert_ok(dc_signature_parameter_layout(signature, 5, &layout));
    assert_layout(&layout, DC_TYPE_STRUCT, sizeof(deep), _Alignof(deep), 1, 0, 2, "{deep={?={?=c}d}s}", "deep");
    field = field_of(&layout, 0);
    assert_layout(&field, DC_TYPE_STRUCT, sizeof(((deep *)0)->a), _Alignof(double), 1, 0, 2, "{?={?=c}d}", "deep.a");
    inner = field_of(&field, 1);
    assert_int_equal(inner.offset, offsetof(deep, a.d));
    field = field_of(&layout, 1);
    assert_layout(&field, DC_TYPE_INT16, sizeof(short), _Alignof(short), 1, offsetof(deep, s), 0, "s", "deep.s");
    dc_signature_release(signature);
}

static void scalar_and_void_layouts_describe_the_type_alone(void **state) {
    (void)state;
    dc_signature *signature = create_signature("vcSqdf^{x=i}*@");
    dc_layout layout;
    assert_ok(dc_signature_return_layout(signature, &layout));
    assert_layout(&layout, DC_TYPE_VOID, 0, 1, 1, 0, 0, "v", "void return");
    const struct {
        dc_type type;
        size_t size, alignment;
        const char *encoding;
    } expected[] = {
        {DC_TYPE_INT8, 1, 1, "c"},
        {DC_TYPE_UINT16, sizeof(uint16_t), _Alignof(uint16_t), "S"},
        {DC_TYPE_INT64, sizeof(int64_t), _Alignof(int64_t), "q"},
        {DC_TYPE_DOUBLE, sizeof(double), _Alignof(double), "d"},
        {DC_TYPE_FLOAT, sizeof(float), _Alignof(float), "f"},
        {DC_TYPE_POINTER, sizeof(void *), _Alignof(void *), "^v"},
        {DC_TYPE_STRING, sizeof(char *), _Alignof(char *), "*"},
        {DC_TYPE_OBJECT, sizeof(void *), _Alignof(void *), "@"},
    };
    for (size_t i = 0; i < ARRAY_COUNT(expected); i++) {
        assert_ok(dc_signature_parameter_layout(signature, i, &layout));
        assert_layout(&layout, expected[i].type, expected[i].size, expected[i].alignment, 1, 0, 0,
                      expected[i].encoding, expected[i].encoding);
    }
    dc_signature_release(signature);
}

/* `size` bytes rounded up to whole pointer-sized slots; `offset` rounded up to `alignment`. */
#define SLOTS(size) (((size) + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *))
#define ALIGN_UP(offset, alignment) (((offset) + (alignment) - 1) / (alignment) * (alignment))

static void frame_size_counts_each_parameter_in_pointer_sized_slots(void **state) {
    (void)state;
    /* A 12-byte struct takes 16 bytes where pointers are 8 bytes, 12 where
     * they are 4; int64_t and doubles are 4-aligned on i386. */
    const struct {
        const char *encoding;
        size_t frame;
    } cases[] = {
        {"v", 0},
        {"vc", sizeof(void *)},
        {"v24@0:8B16", 3 * sizeof(void *)},
        {"v{point=dd}i", 16 + sizeof(void *)},
        {"vc{?=c}", 2 * sizeof(void *)},
        {"v{cdc=cdc}", sizeof(small_cdc)},
        {"vq{?=[3i]}", SLOTS(8) + SLOTS(12)},
        {"v{?=[3i]}q", ALIGN_UP(SLOTS(12), _Alignof(int64_t)) + SLOTS(8)},
        {"vc" RECT, ALIGN_UP(SLOTS(1), _Alignof(rect)) + SLOTS(sizeof(rect))},
    };
    for (size_t i = 0; i < ARRAY_COUNT(cases); i++) {
        dc_signature *signature = create_signature(cases[i].encoding);
        if (dc_signature_frame_size(signature) != cases[i].frame)
            fail_msg("\"%s\": frame size %zu, expected %zu", cases[i].encoding, dc_signature_frame_size(signature),
                     cases[i].frame);
        dc_signature_release(signature);
    }
    assert_int_equal(dc_signature_frame_size(NULL), 0);
}

static void layout_queries_refuse_null_non_structs_and_indices_out_of_range(void **state) {
    (void)state;
    dc_signature *signature = create_signature("i{pair=ii}q{?=[2{p=cc}]i}");
    dc_layout layout, untouched, field;
    memset(&untouched, 0x3c, sizeof untouched);

    layout = untouched;
    assert_failure(dc_signature_return_layout(NULL, &layout), DC_ERR_NULL_ARGUMENT, "NULL");
    assert_failure(dc_signature_return_layout(signature, NULL), DC_ERR_NULL_ARGUMENT, "NULL");
    assert_failure(dc_signature_parameter_layout(NULL, 0, &layout), DC_ERR_NULL_ARGUMENT, "NULL");
    assert_failure(dc_signature_parameter_layout(signature, 0, NULL), DC_ERR_NULL_ARGUMENT, "NULL");
    assert_failure(dc_signature_parameter_layout(signature, 3, &layout), DC_ERR_INDEX, "3");
    assert_memory_equal(&layout, &untouched, sizeof layout);

    /* A scalar return, a scalar parameter, and a scalar field are not structs. */
    dc_layout scalar;
    assert_ok(dc_signature_return_layout(signature, &scalar));
    field = untouched;
    assert_failure(dc_layout_field(&scalar, 0, &field), DC_ERR_INVALID_ARGUMENT, "struct");
    assert_ok(dc_signature_parameter_layout(signature, 1, &scalar));
    assert_failure(dc_layout_field(&scalar, 0, &field), DC_ERR_INVALID_ARGUMENT, "struct");

    dc_layout pair;
    assert_ok(dc_signature_parameter_layout(signature, 0, &pair));
    dc_layout first = field_of(&pair, 0);
    assert_failure(dc_layout_field(&first, 0, &field), DC_ERR_INVALID_ARGUMENT, "struct");
    assert_failure(dc_layout_field(&pair, 2, &field), DC_ERR_INDEX, "2");
    assert_failure(dc_layout_field(&pair, SIZE_MAX, &field), DC_ERR_INDEX, "index");
    assert_failure(dc_layout_field(NULL, 0, &field), DC_ERR_NULL_ARGUMENT, "NULL");
    assert_failure(dc_layout_field(&pair, 0, NULL), DC_ERR_NULL_ARGUMENT, "NULL");
    assert_memory_equal(&field, &untouched, sizeof field);

    /* An array field of structs leads to its element's fields, and no further. */
    dc_layout outer;
    assert_ok(dc_signature_parameter_layout(signature, 2, &outer));
    dc_layout array = field_of(&outer, 0);
    assert_int_equal(array.count, 2);
    assert_int_equal(array.field_count, 2);
    dc_layout second = field_of(&array, 1);
    assert_int_equal(second.offset, 1);
    assert_failure(dc_layout_field(&array, 2, &field), DC_ERR_INDEX, "2");
    dc_layout last = field_of(&outer, 1);
    assert_int_equal(last.offset, 4);
    assert_int_equal(outer.size, 8);
    dc_signature_release(signature);
}

static void canonical_encodings_keep_struct_names_and_drop_field_names_qualifiers_and_offsets(void **state) {
    (void)state;
    const struct {
        const char *given, *canonical;
    } cases[] = {
        {"{point=\"x\"d\"y\"d}16@0{point=\"x\"d\"y\"d}8", "{point=dd}@{point=dd}"},
        {"v{?=ii}", "v{?=ii}"},
        {"v{node=^{node}*@\"Name\"r^i}", "v{node=^v*@^v}"},
        {"v{a=[4i]}", "v{a=[4i]}"},
        {"v{m=c[3s]d}", "v{m=c[3s]d}"},
        {"v{t=[2[3{p=ff}]]}", "v{t=[2[3{p=ff}]]}"},
        {"v{s=\"inner\"{i=\"k\"l}}", "v{s={i=i}}"},
    };
    for (size_t i = 0; i < ARRAY_COUNT(cases); i++) {
        dc_signature *signature = create_signature(cases[i].given);
        assert_string_equal(dc_signature_encoding(signature), cases[i].canonical);
        dc_signature *again = create_signature(cases[i].canonical);
        assert_ptr_equal(again, signature);
        dc_signature_release(again);
        dc_signature_release(signature);
    }
    /* Struct names are part of the signature: equal layouts with other names
     * are other signatures. */
    dc_signature *a = create_signature("v{a=ii}");
    dc_signature *b = create_signature("v{b=ii}");
    assert_ptr_not_equal(a, b);
    dc_signature_release(a);
    dc_signature_release(b);
}

/* ---- type checks ------------------------------------------------------------------------------ */

CALLEE static int32_t sum_pair(small_ii pair) {
    calls++;
    return pair.a + pair.b;
}
CALLEE static small_ii pair_of(int32_t a, int32_t b) {
    calls++;
    return (small_ii){a, b};
}

static void a_struct_never_fits_a_scalar_nor_a_scalar_a_struct(void **state) {
    (void)state;
    small_ii pair = {3, 4};
    dc_signature *taking_struct = create_signature("i{ii=ii}");
    dc_signature *taking_int = create_signature("ii");
    dc_value result;
    calls = 0;
    assert_failure(dc_call(taking_struct, DC_FUNCTION(sum_pair), (dc_value[]){dc_int32(3)}, 1, &result), DC_ERR_TYPE,
                   "argument 0", "struct", "int32");
    assert_failure(dc_call(taking_struct, DC_FUNCTION(sum_pair), (dc_value[]){dc_pointer(&pair)}, 1, &result),
                   DC_ERR_TYPE, "struct", "pointer");
    assert_failure(dc_call(taking_int, DC_FUNCTION(sum_pair), (dc_value[]){dc_struct(&pair)}, 1, &result),
                   DC_ERR_TYPE, "argument 0", "struct", "int32");
    assert_int_equal(calls, 0);

    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(taking_struct, DC_FUNCTION(sum_pair), &invocation));
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_struct(&pair))));
    assert_failure(dc_invocation_set_argument(invocation, 0, VALUE(dc_int64(1))), DC_ERR_TYPE, "struct", "int64");
    assert_failure(dc_invocation_set_argument(invocation, 0, VALUE(dc_string("x"))), DC_ERR_TYPE, "struct", "string");
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_int32(7), result, "sum of the pair kept after refused sets");
    assert_failure(dc_invocation_set_return_value(invocation, VALUE(dc_struct(&pair))), DC_ERR_TYPE, "struct",
                   "int32");
    dc_invocation_destroy(invocation);

    dc_signature *returning_struct = create_signature("{ii=ii}ii");
    assert_ok(dc_invocation_create(returning_struct, DC_FUNCTION(pair_of), &invocation));
    assert_failure(dc_invocation_set_return_value(invocation, VALUE(dc_int32(1))), DC_ERR_TYPE, "struct", "int32");
    dc_invocation_destroy(invocation);

    dc_value converted = dc_int8(9);
    assert_failure(dc_value_convert(VALUE(dc_struct(&pair)), DC_TYPE_POINTER, &converted), DC_ERR_TYPE, "struct");
    assert_failure(dc_value_convert(VALUE(dc_pointer(&pair)), DC_TYPE_STRUCT, &converted), DC_ERR_TYPE, "struct");
    assert_value_equal(dc_int8(9), converted, "output of refused conversions");
    assert_ok(dc_value_convert(VALUE(dc_struct(&pair)), DC_TYPE_STRUCT, &converted));
    assert_int_equal(converted.type, DC_TYPE_STRUCT);
    assert_ptr_equal(converted.pointer, &pair);

    dc_signature_release(taking_struct);
    dc_signature_release(taking_int);
    dc_signature_release(returning_struct);
}

static void a_struct_value_whose_pointer_is_null_is_a_null_argument(void **state) {
    (void)state;
    dc_value converted = dc_int8(9);
    assert_failure(dc_value_convert(VALUE(dc_struct(NULL)), DC_TYPE_STRUCT, &converted), DC_ERR_NULL_ARGUMENT,
                   "NULL");
    assert_value_equal(dc_int8(9), converted, "output of a refused conversion");

    dc_signature *signature = create_signature("i{ii=ii}");
    dc_value result;
    calls = 0;
    assert_failure(dc_call(signature, DC_FUNCTION(sum_pair), (dc_value[]){dc_struct(NULL)}, 1, &result),
                   DC_ERR_NULL_ARGUMENT, "NULL");
    assert_int_equal(calls, 0);

    small_ii pair = {20, 22};
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, DC_FUNCTION(sum_pair), &invocation));
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_struct(&pair))));
    assert_failure(dc_invocation_set_argument(invocation, 0, VALUE(dc_struct(NULL))), DC_ERR_NULL_ARGUMENT, "NULL");
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_int32(42), result, "the pair set before the refused NULL");
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);
}

static void a_struct_value_of_another_size_than_its_parameter_is_a_type_error(void **state) {
    (void)state;
    small_ii pair = {3, 4};
    small_qq wide = {1, 2};
    dc_signature *taking = create_signature("i{ii=ii}");
    dc_value result;
    calls = 0;
    assert_failure(dc_call(taking, DC_FUNCTION(sum_pair), (dc_value[]){dc_struct_of(&wide, sizeof wide)}, 1, &result),
                   DC_ERR_TYPE, "argument 0", "16", "8");
    assert_int_equal(calls, 0);
    assert_ok(dc_call(taking, DC_FUNCTION(sum_pair), (dc_value[]){dc_struct_of(&pair, sizeof pair)}, 1, &result));
    assert_value_equal(dc_int32(7), result, "a struct of the parameter's size");

    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(taking, DC_FUNCTION(sum_pair), &invocation));
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_struct_of(&pair, sizeof pair))));
    assert_failure(dc_invocation_set_argument(invocation, 0, VALUE(dc_struct_of(&wide, sizeof wide))), DC_ERR_TYPE,
                   "16", "8");
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_int32(7), result, "the pair kept after a refused larger struct");
    dc_invocation_destroy(invocation);

    dc_signature *returning = create_signature("{ii=ii}ii");
    assert_ok(dc_invocation_create(returning, DC_FUNCTION(pair_of), &invocation));
    assert_failure(dc_invocation_set_return_value(invocation, VALUE(dc_struct_of(&wide, sizeof wide))), DC_ERR_TYPE,
                   "16", "8");
    assert_ok(dc_invocation_set_return_value(invocation, VALUE(dc_struct_of(&pair, sizeof pair))));
    dc_invocation_destroy(invocation);

    dc_table *own = create_table("sizes");
    assert_ok(dc_table_add(own, "summed", taking, DC_FUNCTION(sum_pair), NULL, NULL, NULL));
    calls = 0;
    assert_failure(dc_table_execute(own, "summed", (dc_value[]){dc_struct_of(&wide, sizeof wide)}, 1, NULL),
                   DC_ERR_TYPE, "summed", "16", "8");
    assert_int_equal(calls, 0);
    dc_result executed;
    assert_ok(dc_table_execute(own, "summed", (dc_value[]){dc_struct_of(&pair, sizeof pair)}, 1, &executed));
    assert_int_equal(executed.handled, 1);
    assert_value_equal(dc_int32(7), executed.return_value, "the handler's sum");
    dc_table_destroy(own);
    dc_signature_release(taking);
    dc_signature_release(returning);
}

static size_t sizes_seen[2];
static void note_sizes(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value argument = argument_of(call, 0);
    sizes_seen[0] = dc_struct_size(&argument);
    small_cdc made = {1, 2, 3};
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_struct(&made))));
    dc_value returned;
    assert_ok(dc_invocation_get_return_value(call, &returned));
    sizes_seen[1] = dc_struct_size(&returned);
}

static void struct_values_the_library_hands_out_carry_their_size(void **state) {
    (void)state;
    const char *encoding = "{cdc=cdc}{cdc=cdc}i";
    dc_signature *signature = create_signature(encoding);
    small_cdc given = {1, 2.5, 3};
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, DC_FUNCTION(bump_cdc), &invocation));
    dc_value argument = argument_of(invocation, 0);
    assert_int_equal(dc_struct_size(&argument), sizeof(small_cdc));
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_struct(&given))));
    argument = argument_of(invocation, 0);
    assert_int_equal(dc_struct_size(&argument), sizeof(small_cdc));
    assert_ok(dc_invocation_invoke(invocation));
    dc_value result;
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_int_equal(dc_struct_size(&result), sizeof(small_cdc));
    dc_invocation_destroy(invocation);

    small_cdc out;
    result = dc_struct(&out);
    assert_ok(dc_call(signature, DC_FUNCTION(bump_cdc), (dc_value[]){dc_struct(&given), dc_int32(1)}, 2, &result));
    assert_int_equal(dc_struct_size(&result), sizeof(small_cdc));
    assert_ptr_equal(result.pointer, &out);
    dc_signature_release(signature);

    dc_closure *closure = closure_of(encoding, note_sizes, NULL);
    memset(sizes_seen, 0, sizeof sizes_seen);
    (void)((small_cdc(*)(small_cdc, int32_t))dc_closure_function(closure))(given, 1);
    assert_int_equal(sizes_seen[0], sizeof(small_cdc));
    assert_int_equal(sizes_seen[1], sizeof(small_cdc));
    dc_closure_destroy(closure);
}

static void dc_call_with_a_struct_return_needs_a_buffer_and_calls_nothing_without_one(void **state) {
    (void)state;
    dc_signature *signature = create_signature("{ii=ii}ii");
    const dc_value arguments[] = {dc_int32(1), dc_int32(2)};
    calls = 0;
    assert_failure(dc_call(signature, DC_FUNCTION(pair_of), arguments, 2, NULL), DC_ERR_NULL_ARGUMENT, "struct",
                   "return_value");
    dc_value result = dc_struct(NULL);
    assert_failure(dc_call(signature, DC_FUNCTION(pair_of), arguments, 2, &result), DC_ERR_NULL_ARGUMENT, "struct",
                   "return_value");
    assert_null(result.pointer);
    assert_int_equal(calls, 0);

    small_ii out = {0, 0};
    result = dc_struct(&out);
    assert_ok(dc_call(signature, DC_FUNCTION(pair_of), arguments, 2, &result));
    assert_int_equal(calls, 1);
    assert_int_equal(out.a, 1);
    assert_int_equal(out.b, 2);
    dc_signature_release(signature);
}

static void signatures_from_types_refuse_structs(void **state) {
    (void)state;
    dc_signature *signature = (dc_signature *)&signature;
    const dc_type with_struct[] = {DC_TYPE_INT32, DC_TYPE_STRUCT};
    assert_failure(dc_signature_create_with_types(DC_TYPE_VOID, with_struct, 2, &signature), DC_ERR_BAD_SIGNATURE,
                   "parameter 1", "struct");
    assert_failure(dc_signature_create_with_types(DC_TYPE_STRUCT, NULL, 0, &signature), DC_ERR_BAD_SIGNATURE,
                   "return", "struct");
    assert_ptr_equal(signature, (dc_signature *)&signature);
}

static void struct_signatures_take_the_libffi_path(void **state) {
    (void)state;
    const char *const encodings[] = {"v{c=c}", "{c=c}", "q{qq=qq}", "{ii=ii}ii", "d{dd=dd}d"};
    for (size_t i = 0; i < ARRAY_COUNT(encodings); i++) {
        dc_signature *signature = create_signature(encodings[i]);
        assert_int_equal(dc_signature_call_path(signature), DC_CALL_PATH_FFI);
        dc_invocation *invocation = NULL;
        assert_ok(dc_invocation_create(signature, DC_FUNCTION(pair_of), &invocation));
        assert_status(dc_invocation_set_call_path(invocation, DC_CALL_PATH_STUB), DC_ERR_UNSUPPORTED);
        dc_invocation_destroy(invocation);
        dc_signature_release(signature);
    }
}

/* ---- table handlers ----------------------------------------------------------------------------- */

typedef struct pair {
    int32_t first, second;
} pair;
#define PAIR "{pair=ii}"

enum { SEEN_CAPACITY = 16 };
static pair seen_pairs[SEEN_CAPACITY];
static rect seen_rects[SEEN_CAPACITY];
static void *seen_targets[SEEN_CAPACITY];
static size_t seen_count;

static void reset_seen(void) {
    seen_count = 0;
    memset(seen_pairs, 0x77, sizeof seen_pairs);
    memset(seen_rects, 0x77, sizeof seen_rects);
}

CALLEE static void note_pair(pair p) {
    log_call(1);
    seen_pairs[seen_count++] = p;
}

CALLEE static void note_pair_and_rect(pair p, rect r) {
    log_call(2);
    seen_rects[seen_count] = r;
    seen_pairs[seen_count++] = p;
}

CALLEE static void note_target_pair_and_rect(void *target, pair p, rect r) {
    log_call(3);
    seen_targets[seen_count] = target;
    seen_rects[seen_count] = r;
    seen_pairs[seen_count++] = p;
}

CALLEE static void note_nothing(void) { log_call(5); }

CALLEE static void note_floats(small_ff floats) {
    (void)floats;
    log_call(6);
}

static void note_pair_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)result;
    log_call(4);
    seen_targets[seen_count] = data;
    assert_true(count >= 1);
    assert_int_equal(arguments[0].type, DC_TYPE_STRUCT);
    assert_non_null(arguments[0].pointer);
    memcpy(&seen_pairs[seen_count], arguments[0].pointer, sizeof(pair));
    if (count >= 2) {
        assert_int_equal(arguments[1].type, DC_TYPE_STRUCT);
        memcpy(&seen_rects[seen_count], arguments[1].pointer, sizeof(rect));
    }
    seen_count++;
}

static bool same_pair(pair a, pair b) { return a.first == b.first && a.second == b.second; }

static const rect zero_rect = {{0, 0}, {0, 0}};

static void table_handlers_receive_struct_arguments_as_c_parameters_and_marshal_values(void **state) {
    (void)state;
    int target = 0;
    reset_seen();
    assert_ok(dc_table_add(table, "moved", sig("v" PAIR), DC_FUNCTION(note_pair), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "moved", sig("v" PAIR RECT), DC_FUNCTION(note_pair_and_rect), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "moved", sig("v^v" PAIR RECT), DC_FUNCTION(note_target_pair_and_rect), &target, NULL,
                           NULL));
    assert_ok(dc_table_add_marshal(table, "moved", sig("v" PAIR RECT), note_pair_marshal, &target, NULL, NULL));

    pair p = {-5, 12};
    rect r = {{1, 2}, {3, 4}};
    dc_result result = execute_ok("moved", (dc_value[]){dc_struct(&p), dc_struct(&r)}, 2);
    assert_int_equal(result.handled, 4);
    assert_call_log(1, 2, 3, 4);
    for (size_t i = 0; i < 4; i++) {
        if (!same_pair(seen_pairs[i], p))
            fail_msg("handler %zu got pair {%d, %d}", i, seen_pairs[i].first, seen_pairs[i].second);
        if (i > 0 && !same_rect(&seen_rects[i], &r)) fail_msg("handler %zu got another rect", i);
    }
    assert_ptr_equal(seen_targets[2], &target);
    assert_ptr_equal(seen_targets[3], &target);
}

static void a_single_struct_handler_receives_its_argument(void **state) {
    (void)state;
    reset_seen();
    assert_ok(dc_table_add(table, "one", sig("v" PAIR), DC_FUNCTION(note_pair), NULL, NULL, NULL));
    pair p = {7, -7};
    for (int i = 0; i < 3; i++) {
        p.first += i;
        dc_result result = execute_ok("one", (dc_value[]){dc_struct(&p)}, 1);
        assert_int_equal(result.handled, 1);
        assert_true(same_pair(seen_pairs[i], p));
    }
    assert_call_log(1, 1, 1);
}

static void a_handler_taking_more_parameters_gets_zero_bytes_for_a_missing_struct(void **state) {
    (void)state;
    reset_seen();
    assert_ok(dc_table_add(table, "short", sig("v" PAIR RECT), DC_FUNCTION(note_pair_and_rect), NULL, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "short", sig("v" PAIR RECT), note_pair_marshal, NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "short", sig("v"), DC_FUNCTION(note_nothing), NULL, NULL, NULL));
    pair p = {1, 2};
    dc_result result = execute_ok("short", (dc_value[]){dc_struct(&p)}, 1);
    assert_int_equal(result.handled, 3);
    assert_call_log(2, 4, 5);
    assert_true(same_pair(seen_pairs[0], p));
    assert_true(same_rect(&seen_rects[0], &zero_rect));
    assert_true(same_pair(seen_pairs[1], p));
    assert_true(same_rect(&seen_rects[1], &zero_rect));

    /* With no argument at all, both structs are zero. */
    reset_seen();
    reset_call_log();
    result = execute_ok("short", NULL, 0);
    assert_int_equal(result.handled, 3);
    const pair zero_pair = {0, 0};
    assert_true(same_pair(seen_pairs[0], zero_pair));
    assert_true(same_rect(&seen_rects[0], &zero_rect));
    assert_true(same_pair(seen_pairs[1], zero_pair));
}

static void a_handler_taking_fewer_parameters_ignores_the_trailing_struct(void **state) {
    (void)state;
    reset_seen();
    assert_ok(dc_table_add(table, "long", sig("v" PAIR), DC_FUNCTION(note_pair), NULL, NULL, NULL));
    pair p = {31, 41};
    rect r = {{5, 9}, {2, 6}};
    dc_result result = execute_ok("long", (dc_value[]){dc_struct(&p), dc_struct(&r), dc_int32(3)}, 3);
    assert_int_equal(result.handled, 1);
    assert_true(same_pair(seen_pairs[0], p));

    assert_ok(dc_table_add(table, "strict", sig("v" PAIR), DC_FUNCTION(note_pair), NULL,
                           &(dc_handler_options){.flags = DC_HANDLER_STRICT}, NULL));
    assert_failure(dc_table_execute(table, "strict", (dc_value[]){dc_struct(&p), dc_struct(&r)}, 2, NULL),
                   DC_ERR_ARITY, "strict");
}

static void an_execute_checks_struct_parameters_against_scalar_arguments(void **state) {
    (void)state;
    reset_seen();
    assert_ok(dc_table_add(table, "typed", sig("v" PAIR), DC_FUNCTION(note_pair), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "typed", sig("v"), DC_FUNCTION(note_nothing), NULL, NULL, NULL));
    assert_failure(dc_table_execute(table, "typed", (dc_value[]){dc_int64(5)}, 1, NULL), DC_ERR_TYPE, "typed",
                   "struct", "int64");
    pair p = {1, 1};
    assert_ok(dc_table_add(table, "scalar", sig("vi"), DC_FUNCTION(note_nothing), NULL, NULL, NULL));
    assert_failure(dc_table_execute(table, "scalar", (dc_value[]){dc_struct(&p)}, 1, NULL), DC_ERR_TYPE, "scalar",
                   "struct", "int32");
    assert_nothing_called();
}

/* Logs without reading its arguments, which it is given unchecked here. */
static void log_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data;
    (void)arguments;
    (void)count;
    (void)result;
    log_call(12);
}

static void an_execute_with_a_null_struct_pointer_runs_nothing(void **state) {
    (void)state;
    reset_seen();
    assert_ok(dc_table_add(table, "null", sig("v" PAIR), DC_FUNCTION(note_pair), NULL, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "null", sig("v" PAIR), log_marshal, NULL, NULL, NULL));
    assert_failure(dc_table_execute(table, "null", (dc_value[]){dc_struct(NULL)}, 1, NULL), DC_ERR_NULL_ARGUMENT,
                   "null");
    assert_nothing_called();
}

/* Handlers returning structs: C functions of "{pair=ii}{pair=ii}" and a marshal. */
CALLEE static pair swapped_pair(pair p) {
    log_call(7);
    return (pair){p.second, p.first};
}

CALLEE static pair doubled_pair(pair p) {
    log_call(8);
    return (pair){2 * p.first, 2 * p.second};
}

static void sum_and_difference_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data;
    log_call(9);
    assert_int_equal(count, 1);
    /* The struct to return arrives zeroed, where the result points. */
    assert_int_equal(result->type, DC_TYPE_STRUCT);
    assert_non_null(result->pointer);
    assert_int_equal(dc_struct_size(result), sizeof(pair));
    const pair zero = {0, 0};
    assert_memory_equal(result->pointer, &zero, sizeof zero);
    pair given;
    memcpy(&given, arguments[0].pointer, sizeof given);
    const pair made = {given.first + given.second, given.first - given.second};
    memcpy(result->pointer, &made, sizeof made);
}

static void a_queued_handler_receives_a_copy_of_the_struct_bytes(void **state) {
    (void)state;
    reset_seen();
    dc_queue *queue = queue_owned_elsewhere();
    dc_handler_options options = {.queue = queue};
    assert_ok(dc_table_add(table, "later", sig("v" PAIR RECT), DC_FUNCTION(note_pair_and_rect), NULL, &options, NULL));
    assert_ok(dc_table_add_marshal(table, "later", sig("v" PAIR RECT), note_pair_marshal, NULL, &options, NULL));

    pair p = {100, 200};
    rect r = {{1.5, 2.5}, {3.5, 4.5}};
    dc_result result = execute_ok("later", (dc_value[]){dc_struct(&p), dc_struct(&r)}, 2);
    assert_int_equal(result.queued, 2);
    assert_int_equal(result.handled, 0);
    const pair sent_pair = p;
    const rect sent_rect = r;
    /* A missing rect is queued as zero bytes. */
    p = (pair){300, 400};
    result = execute_ok("later", (dc_value[]){dc_struct(&p)}, 1);
    assert_int_equal(result.queued, 2);
    const pair second_pair = p;
    memset(&p, 0xab, sizeof p);
    memset(&r, 0xcd, sizeof r);
    assert_nothing_called();

    size_t delivered = 0;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 4);
    assert_call_log(2, 4, 2, 4);
    assert_true(same_pair(seen_pairs[0], sent_pair));
    assert_true(same_rect(&seen_rects[0], &sent_rect));
    assert_true(same_pair(seen_pairs[1], sent_pair));
    assert_true(same_rect(&seen_rects[1], &sent_rect));
    assert_true(same_pair(seen_pairs[2], second_pair));
    assert_true(same_rect(&seen_rects[2], &zero_rect));
    assert_true(same_pair(seen_pairs[3], second_pair));
    assert_true(same_rect(&seen_rects[3], &zero_rect));

    /* A queued handler that returns a struct runs; its struct goes nowhere. */
    reset_call_log();
    assert_ok(dc_table_add(table, "returning", sig(PAIR PAIR), DC_FUNCTION(swapped_pair), NULL, &options, NULL));
    result = execute_ok("returning", (dc_value[]){dc_struct(&p)}, 1);
    assert_int_equal(result.queued, 1);
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 1);
    assert_call_log(7);
    dc_queue_destroy(queue);
}

static void add_pair_returners(const char *event) {
    assert_ok(dc_table_add(table, event, sig(PAIR PAIR), DC_FUNCTION(swapped_pair), NULL, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, event, sig(PAIR PAIR), sum_and_difference_marshal, NULL, NULL, NULL));
    assert_ok(dc_table_add(table, event, sig(PAIR PAIR), DC_FUNCTION(doubled_pair), NULL, NULL, NULL));
}

static void a_struct_a_handler_returns_is_kept_in_the_execute_return_storage(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "swap", sig(PAIR PAIR), DC_FUNCTION(swapped_pair), NULL, NULL, NULL));
    pair given = {3, -4};
    pair storage = {99, 99};
    dc_execute_options options = {DC_ACCUMULATE_FIRST, 0, NULL, 0, &storage, sizeof storage};
    dc_result result;
    assert_ok(dc_table_execute_with(table, "swap", (dc_value[]){dc_struct(&given)}, 1, &options, &result));
    assert_int_equal(result.handled, 1);
    assert_int_equal(result.return_count, 1);
    assert_true(result.has_return_value);
    assert_int_equal(result.return_value.type, DC_TYPE_STRUCT);
    assert_ptr_equal(result.return_value.pointer, &storage);
    assert_true(same_pair(storage, (pair){-4, 3}));

    /* The first of several handlers gives it; the others still run. */
    add_pair_returners("several");
    reset_call_log();
    storage = (pair){99, 99};
    assert_ok(dc_table_execute_with(table, "several", (dc_value[]){dc_struct(&given)}, 1, &options, &result));
    assert_call_log(7, 9, 8);
    assert_int_equal(result.handled, 3);
    assert_ptr_equal(result.return_value.pointer, &storage);
    assert_true(same_pair(storage, (pair){-4, 3}));

    /* DC_ACCUMULATE_LAST: the last one's. */
    options.accumulator = DC_ACCUMULATE_LAST;
    assert_ok(dc_table_execute_with(table, "several", (dc_value[]){dc_struct(&given)}, 1, &options, &result));
    assert_int_equal(result.return_count, 3);
    assert_ptr_equal(result.return_value.pointer, &storage);
    assert_true(same_pair(storage, (pair){6, -8}));
}

static void accumulating_all_struct_returns_keeps_each_at_its_index(void **state) {
    (void)state;
    add_pair_returners("all");
    pair given = {10, 4};
    pair storage[4];
    memset(storage, 0x5a, sizeof storage);
    dc_value results[3];
    dc_execute_options options = {DC_ACCUMULATE_ALL, 0, results, 3, storage, 3 * sizeof(pair)};
    dc_result result;
    assert_ok(dc_table_execute_with(table, "all", (dc_value[]){dc_struct(&given)}, 1, &options, &result));
    assert_int_equal(result.return_count, 3);
    const pair expected[] = {{4, 10}, {14, 6}, {20, 8}};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(results[i].type, DC_TYPE_STRUCT);
        assert_ptr_equal(results[i].pointer, &storage[i]);
        if (!same_pair(storage[i], expected[i]))
            fail_msg("struct %zu kept as {%d, %d}", i, storage[i].first, storage[i].second);
    }
    assert_ptr_equal(result.return_value.pointer, &storage[0]);

    /* Room for two: two are kept, all three counted, nothing written past. */
    memset(storage, 0x5a, sizeof storage);
    pair untouched;
    memset(&untouched, 0x5a, sizeof untouched);
    options.results_capacity = 2;
    options.return_storage_size = 2 * sizeof(pair);
    assert_ok(dc_table_execute_with(table, "all", (dc_value[]){dc_struct(&given)}, 1, &options, &result));
    assert_int_equal(result.return_count, 3);
    assert_int_equal(result.handled, 3);
    assert_true(same_pair(storage[0], expected[0]));
    assert_true(same_pair(storage[1], expected[1]));
    assert_memory_equal(&storage[2], &untouched, sizeof untouched);
}

static void without_room_for_it_a_returned_struct_is_neither_kept_nor_counted(void **state) {
    (void)state;
    add_pair_returners("nowhere");
    pair given = {1, 2};
    dc_result result;
    assert_ok(dc_table_execute(table, "nowhere", (dc_value[]){dc_struct(&given)}, 1, &result));
    assert_int_equal(result.handled, 3);
    assert_int_equal(result.return_count, 0);
    assert_false(result.has_return_value);
    assert_call_log(7, 9, 8);

    unsigned char too_small[sizeof(pair) - 1];
    memset(too_small, 0x5a, sizeof too_small);
    dc_execute_options options = {DC_ACCUMULATE_FIRST, 0, NULL, 0, too_small, sizeof too_small};
    assert_ok(dc_table_execute_with(table, "nowhere", (dc_value[]){dc_struct(&given)}, 1, &options, &result));
    assert_int_equal(result.handled, 3);
    assert_int_equal(result.return_count, 0);
    assert_false(result.has_return_value);
    for (size_t i = 0; i < sizeof too_small; i++) assert_int_equal(too_small[i], 0x5a);

    options.return_storage = NULL;
    assert_failure(dc_table_execute_with(table, "nowhere", (dc_value[]){dc_struct(&given)}, 1, &options, &result),
                   DC_ERR_INVALID_ARGUMENT, "return_storage");
}

static void a_variadic_marshal_gets_no_struct_through_a_queue(void **state) {
    (void)state;
    reset_seen();
    dc_queue *queue = queue_owned_elsewhere();
    dc_handler_options options = {.queue = queue};
    assert_ok(dc_table_add_marshal(table, "any", NULL, note_pair_marshal, NULL, &options, NULL));
    pair p = {5, 6};
    dc_result result = execute_ok("any", (dc_value[]){dc_struct(&p)}, 1);
    assert_int_equal(result.queued, 0);
    assert_int_equal(result.dropped, 1);
    size_t delivered = 99;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 0);
    assert_nothing_called();

    /* Run on its owner's thread, it gets the struct as given. */
    assert_ok(dc_queue_bind_to_current_thread(queue));
    result = execute_ok("any", (dc_value[]){dc_struct(&p)}, 1);
    assert_int_equal(result.handled, 1);
    assert_true(same_pair(seen_pairs[0], p));
    dc_queue_destroy(queue);
}

/* ---- table closures ------------------------------------------------------------------------------ */

typedef struct failures {
    int count;
    dc_status status;
    char message[512];
} failures;

static void note_failure(const dc_closure *closure, dc_status status, const char *message, void *user_data) {
    (void)closure;
    failures *seen = user_data;
    seen->count++;
    seen->status = status;
    snprintf(seen->message, sizeof seen->message, "%s", message);
}

static void a_table_closure_passes_its_struct_arguments_to_handlers(void **state) {
    (void)state;
    reset_seen();
    int target = 0;
    assert_ok(dc_table_add(table, "changed", sig("v" PAIR), DC_FUNCTION(note_pair), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "changed", sig("v^v" PAIR RECT), DC_FUNCTION(note_target_pair_and_rect), &target,
                           NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "changed", sig("v" PAIR RECT), note_pair_marshal, &target, NULL, NULL));
    /* Struct names may differ where the layouts agree. */
    assert_ok(dc_table_add(table, "changed", sig("v{other=ii}{frame={a=dd}{b=dd}}"), DC_FUNCTION(note_pair_and_rect),
                           NULL, NULL, NULL));
    dc_closure *closure = NULL;
    assert_ok(dc_table_closure_create(table, "changed", sig("v" PAIR RECT), &closure));
    failures seen = {0, DC_OK, ""};
    dc_closure_set_error_handler(closure, note_failure, &seen);

    pair p = {-8, 16};
    rect r = {{0.5, 1.5}, {-2.5, 3.5}};
    ((void (*)(pair, rect))dc_closure_function(closure))(p, r);
    assert_int_equal(seen.count, 0);
    assert_call_log(1, 3, 4, 2);
    for (size_t i = 0; i < 4; i++) {
        if (!same_pair(seen_pairs[i], p)) fail_msg("handler %zu got another pair", i);
        if (i > 0 && !same_rect(&seen_rects[i], &r)) fail_msg("handler %zu got another rect", i);
    }
    assert_ptr_equal(seen_targets[1], &target);
    dc_closure_destroy(closure);
}

/* Calls a table closure of "v{pair=ii}" for `event` once and gives back what
 * its error handler was told. */
static failures call_pair_closure(const char *event) {
    dc_closure *closure = NULL;
    assert_ok(dc_table_closure_create(table, event, sig("v" PAIR), &closure));
    failures seen = {0, DC_OK, ""};
    dc_closure_set_error_handler(closure, note_failure, &seen);
    ((void (*)(pair))dc_closure_function(closure))((pair){1, 2});
    dc_closure_destroy(closure);
    return seen;
}

static void a_table_closure_whose_struct_fields_differ_from_a_handlers_runs_nothing(void **state) {
    (void)state;
    reset_seen();
    assert_ok(dc_table_add(table, "retyped", sig("v" PAIR), DC_FUNCTION(note_pair), NULL, NULL, NULL));
    /* Same size and alignment, other field types. */
    assert_ok(dc_table_add(table, "retyped", sig("v{ff=ff}"), DC_FUNCTION(note_floats), NULL, NULL, NULL));
    failures seen = call_pair_closure("retyped");
    assert_nothing_called();
    assert_int_equal(seen.count, 1);
    assert_int_equal(seen.status, DC_ERR_TYPE);
    if (!dc_test_message_mentions(seen.message, "argument 0") || !dc_test_message_mentions(seen.message, PAIR) ||
        !dc_test_message_mentions(seen.message, "{ff=ff}"))
        fail_msg("the message \"%s\" does not name argument 0 and both encodings", seen.message);
}

static void a_table_closure_whose_struct_size_differs_from_a_marshals_runs_nothing(void **state) {
    (void)state;
    reset_seen();
    assert_ok(dc_table_add(table, "resized", sig("v" PAIR), DC_FUNCTION(note_pair), NULL, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "resized", sig("v{wide=qq}"), note_pair_marshal, NULL, NULL, NULL));
    failures seen = call_pair_closure("resized");
    assert_nothing_called();
    assert_int_equal(seen.count, 1);
    assert_int_equal(seen.status, DC_ERR_TYPE);
    if (!dc_test_message_mentions(seen.message, "argument 0") || !dc_test_message_mentions(seen.message, PAIR) ||
        !dc_test_message_mentions(seen.message, "{wide=qq}"))
        fail_msg("the message \"%s\" does not name argument 0 and both encodings", seen.message);
}

CALLEE static rect rect_of_pair(pair p) {
    log_call(10);
    return (rect){{p.first, p.second}, {p.first * 0.5, p.second * 0.25}};
}

CALLEE static small_qq wide_of_pair(pair p) {
    log_call(11);
    return (small_qq){p.first, p.second};
}

static void a_table_closure_returning_a_struct_returns_its_first_handlers(void **state) {
    (void)state;
    dc_closure *closure = NULL;
    assert_ok(dc_table_closure_create(table, "made", sig(PAIR PAIR), &closure));
    failures seen = {0, DC_OK, ""};
    dc_closure_set_error_handler(closure, note_failure, &seen);
    pair (*make)(pair) = (pair(*)(pair))dc_closure_function(closure);

    assert_true(same_pair(make((pair){1, 2}), (pair){0, 0})); /* no handler: zero bytes */
    assert_ok(dc_table_add(table, "made", sig("v" PAIR), DC_FUNCTION(note_pair), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "made", sig("{other=ii}{other=ii}"), DC_FUNCTION(swapped_pair), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "made", sig(PAIR PAIR), DC_FUNCTION(doubled_pair), NULL, NULL, NULL));
    reset_seen();
    reset_call_log();
    assert_true(same_pair(make((pair){5, -6}), (pair){-6, 5}));
    assert_call_log(1, 7, 8);
    assert_int_equal(seen.count, 0);
    dc_closure_destroy(closure);

    /* A struct returned in memory. */
    assert_ok(dc_table_add(table, "framed", sig(RECT PAIR), DC_FUNCTION(rect_of_pair), NULL, NULL, NULL));
    assert_ok(dc_table_closure_create(table, "framed", sig(RECT PAIR), &closure));
    dc_closure_set_error_handler(closure, note_failure, &seen);
    rect framed = ((rect(*)(pair))dc_closure_function(closure))((pair){8, -4});
    const rect expected = {{8, -4}, {4, -1}};
    assert_true(same_rect(&framed, &expected));
    assert_int_equal(seen.count, 0);
    dc_closure_destroy(closure);
}

static void a_table_closure_whose_return_layout_differs_from_a_handlers_runs_nothing(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "made", sig("v" PAIR), DC_FUNCTION(note_pair), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "made", sig("{qq=qq}" PAIR), DC_FUNCTION(wide_of_pair), NULL, NULL, NULL));
    dc_closure *closure = NULL;
    assert_ok(dc_table_closure_create(table, "made", sig(PAIR PAIR), &closure));
    failures seen = {0, DC_OK, ""};
    dc_closure_set_error_handler(closure, note_failure, &seen);
    reset_call_log();
    pair made = ((pair(*)(pair))dc_closure_function(closure))((pair){1, 2});
    dc_closure_destroy(closure);
    assert_true(same_pair(made, (pair){0, 0}));
    assert_nothing_called();
    assert_int_equal(seen.count, 1);
    assert_int_equal(seen.status, DC_ERR_TYPE);
    if (!dc_test_message_mentions(seen.message, "{qq=qq}") || !dc_test_message_mentions(seen.message, PAIR))
        fail_msg("the message \"%s\" does not name both encodings", seen.message);
}

/* ---- malformed and unsupported encodings ------------------------------------------------------------ */

static char *repeated(const char *prefix, const char *unit, size_t times, const char *middle, const char *closing,
                      size_t closings, const char *suffix) {
    size_t length = strlen(prefix) + strlen(unit) * times + strlen(middle) + strlen(closing) * closings +
                    strlen(suffix) + 1;
    char *text = malloc(length);
    assert_non_null(text);
    char *at = text;
    at += sprintf(at, "%s", prefix);
    for (size_t i = 0; i < times; i++) at += sprintf(at, "%s", unit);
    at += sprintf(at, "%s", middle);
    for (size_t i = 0; i < closings; i++) at += sprintf(at, "%s", closing);
    sprintf(at, "%s", suffix);
    return text;
}

static void check_refused(const char *encoding, dc_status expected, const char *needle, const char *position) {
    dc_signature *signature = (dc_signature *)&signature;
    const char *primed = dc_test_prime_error_message();
    dc_status status = dc_signature_create(encoding, &signature);
    const char *message = dc_last_error_message();
    if (status != expected)
        fail_msg("\"%.80s\" gave %s, expected %s (\"%s\")", encoding, dc_status_name(status), dc_status_name(expected),
                 message);
    if (strcmp(message, primed) == 0) fail_msg("\"%.80s\" left no message of its own", encoding);
    if (!dc_test_message_mentions(message, needle))
        fail_msg("\"%.80s\": the message \"%s\" does not mention \"%s\"", encoding, message, needle);
    if (position != NULL && !dc_test_message_mentions(message, position))
        fail_msg("\"%.80s\": the message \"%s\" does not name %s", encoding, message, position);
    assert_ptr_equal(signature, (dc_signature *)&signature);
}

static void malformed_struct_encodings_are_bad_signatures_naming_the_position(void **state) {
    (void)state;
    const struct {
        const char *encoding, *needle, *position;
    } cases[] = {
        {"v{S=ii", "unterminated", "position 6"},
        {"{S=ii", "unterminated", "position 5"},
        {"v{S", "unterminated", "position 1"},
        {"v{a={b=i}", "unterminated", "position 9"},
        {"v{}", "fields", "position 1"},
        {"v{S=}", "empty", "position 1"},
        {"{S=}i", "empty", "position 0"},
        {"v{a{b=i}}", "fields", "position 1"},
        {"v{S=iv}", "void", "position 5"},
        {"v{S=iZ}", "unknown", "position 5"},
        {"v{S=\"x", "field name", "position 4"},
        {"v{S=i\"x\"}", "without its type", "position 8"},
        {"v{S=[4i", "unterminated", "position 7"},
        {"v{S=[4ii]}", "]", "position 7"},
        {"v{S=[i]}", "count", "position 4"},
        {"v{S=c[0i]}", "count", "position 5"},
        {"v{S=[99999999999999999999999i]}", "count", "position 4"},
        {"v{S=[18446744073709551617c]}", "count", "position 4"},
        {"v{S=[4097c]}", "count", "position 4"},
        {"v{S=[4096[4096c]]}", "4096", "position 4"},
        {"v{S=[2[2049c]]}", "4096", "position 4"},
        {"vi[4i]", "array", "position 2"},
    };
    for (size_t i = 0; i < ARRAY_COUNT(cases); i++)
        check_refused(cases[i].encoding, DC_ERR_BAD_SIGNATURE, cases[i].needle, cases[i].position);
}

static void structs_beyond_the_nesting_and_element_limits_are_refused_and_at_them_accepted(void **state) {
    (void)state;
    /* DC_MAX_NESTING structs inside each other parse; one more does not. */
    char *at_limit = repeated("v", "{a=", DC_MAX_NESTING, "i", "}", DC_MAX_NESTING, "");
    dc_signature *signature = create_signature(at_limit);
    dc_layout layout;
    assert_ok(dc_signature_parameter_layout(signature, 0, &layout));
    assert_int_equal(layout.size, sizeof(int32_t));
    dc_signature_release(signature);
    free(at_limit);

    char *one_deeper = repeated("v", "{a=", DC_MAX_NESTING + 1, "i", "}", DC_MAX_NESTING + 1, "");
    check_refused(one_deeper, DC_ERR_BAD_SIGNATURE, "nested", "position 97");
    free(one_deeper);

    char *thousand_deep = repeated("v", "{a=", 1000, "i", "}", 1000, "");
    check_refused(thousand_deep, DC_ERR_BAD_SIGNATURE, "nested", "position 97");
    free(thousand_deep);

    /* Arrays count as nesting: a struct holding 31 arrays inside each other
     * is 32 deep. */
    char *arrays_at_limit = repeated("v{s=", "[1", DC_MAX_NESTING - 1, "i", "]", DC_MAX_NESTING - 1, "}");
    signature = create_signature(arrays_at_limit);
    dc_signature_release(signature);
    free(arrays_at_limit);
    char *arrays_too_deep = repeated("v{s=", "[1", DC_MAX_NESTING, "i", "]", DC_MAX_NESTING, "}");
    check_refused(arrays_too_deep, DC_ERR_BAD_SIGNATURE, "nested", "position");
    free(arrays_too_deep);

    /* DC_MAX_STRUCT_ELEMENTS scalars, as fields or array elements, parse. */
    char *widest = repeated("v{S=", "c", DC_MAX_STRUCT_ELEMENTS, "", "", 0, "}");
    signature = create_signature(widest);
    assert_ok(dc_signature_parameter_layout(signature, 0, &layout));
    assert_int_equal(layout.size, DC_MAX_STRUCT_ELEMENTS);
    assert_int_equal(layout.field_count, DC_MAX_STRUCT_ELEMENTS);
    dc_signature_release(signature);
    free(widest);
    signature = create_signature("v{S=[4096c]}");
    assert_ok(dc_signature_parameter_layout(signature, 0, &layout));
    assert_int_equal(layout.size, 4096);
    dc_signature_release(signature);

    char *ten_thousand = repeated("v{S=", "i", 10000, "", "", 0, "}");
    check_refused(ten_thousand, DC_ERR_BAD_SIGNATURE, "4096", "position 4100");
    free(ten_thousand);
}

static void unions_and_bit_fields_are_unsupported_anywhere_naming_the_position(void **state) {
    (void)state;
    const struct {
        const char *encoding, *needle, *position;
    } cases[] = {
        {"v(U=ic)", "union", "position 1"},
        {"(U=ic)", "union", "position 0"},
        {"vb3", "bit-field", "position 1"},
        {"vi{S=c(U=ic)}", "union", "position 6"},
        {"v{S=ib4}", "bit-field", "position 5"},
        {"v{S=[2b1]}", "bit-field", "position 6"},
        {"v{S=[2(U=i)]}", "union", "position 6"},
        {"{S={T=(U=i)}}", "union", "position 6"},
    };
    for (size_t i = 0; i < ARRAY_COUNT(cases); i++)
        check_refused(cases[i].encoding, DC_ERR_UNSUPPORTED, cases[i].needle, cases[i].position);
    /* Behind a pointer they are only pointees. */
    dc_signature *signature = create_signature("v^(U=ic)^{S=D}^D^jd");
    assert_int_equal(dc_signature_parameter_count(signature), 4);
    dc_signature_release(signature);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(structs_of_every_class_pass_and_return_through_dc_call_as_in_a_direct_call),
        cmocka_unit_test(structs_of_every_class_pass_and_return_through_an_invocation_as_in_a_direct_call),
        cmocka_unit_test(an_invocation_invoked_again_passes_its_struct_arguments_again),
        cmocka_unit_test(structs_of_every_class_reach_a_forward_handler_whose_struct_return_reaches_the_caller),
        cmocka_unit_test(a_closure_resending_each_struct_call_returns_what_the_function_returned),
        cmocka_unit_test(a_forward_handler_invoking_twice_passes_the_same_struct_both_times),
        cmocka_unit_test(a_closure_whose_handler_sets_no_struct_returns_zero_bytes),
        cmocka_unit_test(a_struct_argument_is_copied_into_the_invocation),
        cmocka_unit_test(nested_structs_pass_and_return_by_value),
        cmocka_unit_test(a_closure_changes_a_struct_argument_resends_and_returns_its_own_struct),
        cmocka_unit_test(arrays_inside_structs_pass_and_return_by_value),
        cmocka_unit_test(a_struct_with_an_array_between_a_char_and_a_double_keeps_every_field),
        cmocka_unit_test(many_struct_arguments_mixed_with_scalars_arrive_in_order),
        cmocka_unit_test(structs_after_the_argument_registers_are_full_travel_on_the_stack),
        cmocka_unit_test(div_ldiv_lldiv_and_imaxdiv_return_the_structs_direct_calls_return),
        cmocka_unit_test(inet_ntoa_takes_a_struct_in_addr_by_value),
        cmocka_unit_test(inet_makeaddr_returns_a_struct_in_addr),
        cmocka_unit_test(every_small_struct_has_the_compilers_size_alignment_and_offsets),
        cmocka_unit_test(nested_structs_and_arrays_have_the_compilers_layout),
        cmocka_unit_test(scalar_and_void_layouts_describe_the_type_alone),
        cmocka_unit_test(frame_size_counts_each_parameter_in_pointer_sized_slots),
        cmocka_unit_test(layout_queries_refuse_null_non_structs_and_indices_out_of_range),
        cmocka_unit_test(canonical_encodings_keep_struct_names_and_drop_field_names_qualifiers_and_offsets),
        cmocka_unit_test(a_struct_never_fits_a_scalar_nor_a_scalar_a_struct),
        cmocka_unit_test(a_struct_value_whose_pointer_is_null_is_a_null_argument),
        cmocka_unit_test(a_struct_value_of_another_size_than_its_parameter_is_a_type_error),
        cmocka_unit_test(struct_values_the_library_hands_out_carry_their_size),
        cmocka_unit_test(dc_call_with_a_struct_return_needs_a_buffer_and_calls_nothing_without_one),
        cmocka_unit_test(signatures_from_types_refuse_structs),
        cmocka_unit_test(struct_signatures_take_the_libffi_path),
        table_test(table_handlers_receive_struct_arguments_as_c_parameters_and_marshal_values),
        table_test(a_single_struct_handler_receives_its_argument),
        table_test(a_handler_taking_more_parameters_gets_zero_bytes_for_a_missing_struct),
        table_test(a_handler_taking_fewer_parameters_ignores_the_trailing_struct),
        table_test(an_execute_checks_struct_parameters_against_scalar_arguments),
        table_test(an_execute_with_a_null_struct_pointer_runs_nothing),
        table_test(a_queued_handler_receives_a_copy_of_the_struct_bytes),
        table_test(a_struct_a_handler_returns_is_kept_in_the_execute_return_storage),
        table_test(accumulating_all_struct_returns_keeps_each_at_its_index),
        table_test(without_room_for_it_a_returned_struct_is_neither_kept_nor_counted),
        table_test(a_variadic_marshal_gets_no_struct_through_a_queue),
        table_test(a_table_closure_passes_its_struct_arguments_to_handlers),
        table_test(a_table_closure_whose_struct_fields_differ_from_a_handlers_runs_nothing),
        table_test(a_table_closure_whose_struct_size_differs_from_a_marshals_runs_nothing),
        table_test(a_table_closure_returning_a_struct_returns_its_first_handlers),
        table_test(a_table_closure_whose_return_layout_differs_from_a_handlers_runs_nothing),
        cmocka_unit_test(malformed_struct_encodings_are_bad_signatures_naming_the_position),
        cmocka_unit_test(structs_beyond_the_nesting_and_element_limits_are_refused_and_at_them_accepted),
        cmocka_unit_test(unions_and_bit_fields_are_unsupported_anywhere_naming_the_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
