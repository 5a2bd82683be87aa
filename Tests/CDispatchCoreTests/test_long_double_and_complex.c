/*
 * test_long_double_and_complex.c — long double (D) and the complex types
 * (jf, jd, jD) as parameters, return values and struct fields: their layouts
 * as the ABI has them, and every way a call is made (dc_call, invocations,
 * closures reading arguments and setting results, table handlers and
 * marshals, table closures, queued deliveries, forwarders), on real C library functions
 * (strtold, libm's powl, cabs, cexpl, conj) and on callees of our own. Values
 * of these types carry the address of their bytes, as structs do.
 */
#include "test_support.h"

#include <complex.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

/* ---- callees --------------------------------------------------------------------- */

CALLEE static long double fused_ld(long double a, int n, long double b) { return a * n + b; }
CALLEE static float _Complex rotate_cf(float _Complex z) { return z * I; }
CALLEE static double _Complex mix_cd(double _Complex a, double x, double _Complex b) { return a * x + b; }
CALLEE static long double _Complex twice_cld(long double _Complex z) { return z * 2; }

/* libffi's cls_align_longdouble: a long double after a char. */
typedef struct char_long_double {
    char c;
    long double ld;
    char d;
} char_long_double;
#define CHAR_LONG_DOUBLE "{cls_struct_align=cDc}"

CALLEE static char_long_double bump_cld(char_long_double s, long double by) {
    s.c++, s.ld += by, s.d--;
    return s;
}

/* A struct of a complex double and a float. */
typedef struct complex_pair {
    double _Complex z;
    float f;
} complex_pair;

CALLEE static double _Complex pair_sum(complex_pair p) { return p.z + p.f; }

static dc_function libm_function(const char *name) {
    void *libm = dlopen("libm.so.6", RTLD_NOW);
    if (libm == NULL) fail_msg("no libm: %s", dlerror());
    void *address = dlsym(libm, name);
    if (address == NULL) fail_msg("libm has no %s", name);
    dc_function function;
    memcpy(&function, &address, sizeof function);
    return function; /* libm stays loaded: dlopen counts, and the process keeps it */
}

/* ---- layouts ----------------------------------------------------------------------- */

static void layouts_report_the_abis_sizes_and_alignments(void **state) {
    (void)state;
    const struct {
        const char *encoding;
        dc_type type;
        size_t size, alignment;
    } cases[] = {
        {"D", DC_TYPE_LONG_DOUBLE, sizeof(long double), _Alignof(long double)},
        {"jf", DC_TYPE_COMPLEX_FLOAT, sizeof(float _Complex), _Alignof(float _Complex)},
        {"jd", DC_TYPE_COMPLEX_DOUBLE, sizeof(double _Complex), _Alignof(double _Complex)},
        {"jD", DC_TYPE_COMPLEX_LONG_DOUBLE, sizeof(long double _Complex), _Alignof(long double _Complex)},
    };
    for (size_t i = 0; i < ARRAY_COUNT(cases); i++) {
        char encoding[16];
        snprintf(encoding, sizeof encoding, "%sq%s", cases[i].encoding, cases[i].encoding);
        dc_signature *signature = create_signature(encoding);
        assert_string_equal(dc_signature_encoding(signature), encoding);
        assert_int_equal(dc_signature_return_type(signature), cases[i].type);
        dc_layout layout;
        assert_ok(dc_signature_return_layout(signature, &layout));
        assert_int_equal(layout.type, cases[i].type);
        assert_int_equal(layout.size, cases[i].size);
        assert_int_equal(layout.alignment, cases[i].alignment);
        assert_string_equal(layout.encoding, cases[i].encoding);
        assert_ok(dc_signature_parameter_layout(signature, 1, &layout));
        assert_int_equal(layout.size, cases[i].size);
        assert_int_equal(layout.alignment, cases[i].alignment);
        assert_int_equal(dc_signature_call_path(signature), DC_CALL_PATH_FFI);
        /* The same signature from types, interned with it. */
        const dc_type types[] = {DC_TYPE_INT64, cases[i].type};
        dc_signature *from_types = NULL;
        assert_ok(dc_signature_create_with_types(cases[i].type, types, 2, &from_types));
        assert_ptr_equal(from_types, signature);
        dc_signature_release(from_types);
        dc_signature_release(signature);
    }
    /* As a struct field: at the next multiple of its alignment. */
    dc_signature *signature = create_signature(CHAR_LONG_DOUBLE CHAR_LONG_DOUBLE "D");
    dc_layout layout, field;
    assert_ok(dc_signature_return_layout(signature, &layout));
    assert_int_equal(layout.size, sizeof(char_long_double));
    assert_int_equal(layout.alignment, _Alignof(char_long_double));
    assert_ok(dc_layout_field(&layout, 1, &field));
    assert_int_equal(field.type, DC_TYPE_LONG_DOUBLE);
    assert_int_equal(field.offset, offsetof(char_long_double, ld));
    assert_ok(dc_layout_field(&layout, 2, &field));
    assert_int_equal(field.offset, offsetof(char_long_double, d));
    dc_signature_release(signature);
    signature = create_signature("jd{?=jdf}");
    assert_ok(dc_signature_parameter_layout(signature, 0, &layout));
    assert_int_equal(layout.size, sizeof(complex_pair));
    assert_ok(dc_layout_field(&layout, 1, &field));
    assert_int_equal(field.offset, offsetof(complex_pair, f));
    dc_signature_release(signature);
}

/* ---- values ---------------------------------------------------------------------------- */

static void values_by_address_fit_their_own_type_only(void **state) {
    (void)state;
    long double x = 1.5L;
    dc_value value = dc_long_double(&x), out;
    assert_ok(dc_value_convert(&value, DC_TYPE_LONG_DOUBLE, &out));
    assert_int_equal(out.type, DC_TYPE_LONG_DOUBLE);
    assert_ptr_equal(out.pointer, &x);
    assert_failure(dc_value_convert(&value, DC_TYPE_DOUBLE, &out), DC_ERR_TYPE, "long double");
    assert_failure(dc_value_convert(&value, DC_TYPE_COMPLEX_LONG_DOUBLE, &out), DC_ERR_TYPE, "complex");
    value = dc_double(1.5);
    assert_failure(dc_value_convert(&value, DC_TYPE_LONG_DOUBLE, &out), DC_ERR_TYPE, "long double");
    value = dc_value_at(DC_TYPE_COMPLEX_DOUBLE, NULL);
    assert_failure(dc_value_convert(&value, DC_TYPE_COMPLEX_DOUBLE, &out), DC_ERR_NULL_ARGUMENT, "NULL");
    assert_string_equal(dc_type_name(DC_TYPE_COMPLEX_FLOAT), "complex float");
    assert_int_equal(dc_type_encoding(DC_TYPE_LONG_DOUBLE), 'D');

    /* A call refuses a NULL or mistyped one before calling. */
    dc_signature *signature = create_signature("DDiD");
    long double result_bytes = 0;
    dc_value arguments[] = {dc_value_at(DC_TYPE_LONG_DOUBLE, NULL), dc_int32(2), dc_long_double(&x)};
    dc_value result = dc_long_double(&result_bytes);
    assert_failure(dc_call(signature, DC_FUNCTION(fused_ld), arguments, 3, &result), DC_ERR_NULL_ARGUMENT,
                   "argument 0|long double");
    arguments[0] = dc_double(1.0);
    assert_failure(dc_call(signature, DC_FUNCTION(fused_ld), arguments, 3, &result), DC_ERR_TYPE, "argument 0");
    result = dc_value_at(DC_TYPE_LONG_DOUBLE, NULL);
    arguments[0] = dc_long_double(&x);
    assert_failure(dc_call(signature, DC_FUNCTION(fused_ld), arguments, 3, &result), DC_ERR_NULL_ARGUMENT,
                   "buffer");
    dc_signature_release(signature);
}

/* ---- dc_call and invocations ------------------------------------------------------------- */

static void dc_call_passes_and_returns_them_as_a_direct_call_does(void **state) {
    (void)state;
    long double a = 1.25L, b = -0.5L, got = 0;
    dc_value arguments[] = {dc_long_double(&a), dc_int32(3), dc_long_double(&b)};
    dc_value result = dc_long_double(&got);
    dc_signature *signature = create_signature("DDiD");
    assert_ok(dc_call(signature, DC_FUNCTION(fused_ld), arguments, 3, &result));
    assert_int_equal(result.type, DC_TYPE_LONG_DOUBLE);
    assert_ptr_equal(result.pointer, &got);
    assert_true(got == fused_ld(a, 3, b));
    dc_signature_release(signature);

    /* Bits a double cannot hold come back (where long double has more). */
    long double third = 1.0L / 3.0L;
    b = 0;
    assert_ok(dc_call(create_signature("DDiD"), DC_FUNCTION(fused_ld),
                      (dc_value[]){dc_long_double(&third), dc_int32(1), dc_long_double(&b)}, 3, &result));
    assert_true(got == third);

    float _Complex cf = 1.0f + 2.0f * I, cf_got = 0;
    result = dc_complex_float(&cf_got);
    assert_ok(dc_call(create_signature("jfjf"), DC_FUNCTION(rotate_cf), (dc_value[]){dc_complex_float(&cf)}, 1,
                      &result));
    assert_true(cf_got == rotate_cf(cf));

    double _Complex ca = 1.0 - 1.0 * I, cb = 0.25 + 4.0 * I, cd_got = 0;
    result = dc_complex_double(&cd_got);
    assert_ok(dc_call(create_signature("jdjddjd"), DC_FUNCTION(mix_cd),
                      (dc_value[]){dc_complex_double(&ca), dc_double(2.0), dc_complex_double(&cb)}, 3, &result));
    assert_true(cd_got == mix_cd(ca, 2.0, cb));

    long double _Complex cl = 1.5L + 0.25L * I, cl_got = 0;
    result = dc_complex_long_double(&cl_got);
    assert_ok(dc_call(create_signature("jDjD"), DC_FUNCTION(twice_cld), (dc_value[]){dc_complex_long_double(&cl)}, 1,
                      &result));
    assert_true(cl_got == twice_cld(cl));

    char_long_double s = {'a', 2.5L, 'z'}, s_got;
    long double by = 0.25L;
    result = dc_struct(&s_got);
    assert_ok(dc_call(create_signature(CHAR_LONG_DOUBLE CHAR_LONG_DOUBLE "D"), DC_FUNCTION(bump_cld),
                      (dc_value[]){dc_struct_of(&s, sizeof s), dc_long_double(&by)}, 2, &result));
    assert_int_equal(s_got.c, 'b');
    assert_true(s_got.ld == 2.75L);
    assert_int_equal(s_got.d, 'y');

    complex_pair pair = {3.0 + 1.0 * I, 0.5f};
    result = dc_complex_double(&cd_got);
    assert_ok(dc_call(create_signature("jd{?=jdf}"), DC_FUNCTION(pair_sum), (dc_value[]){dc_struct(&pair)}, 1,
                      &result));
    assert_true(cd_got == 3.5 + 1.0 * I);
}

static void real_c_library_functions_of_these_types_are_called_at_run_time(void **state) {
    (void)state;
    /* long double strtold(const char *, char **) */
    long double parsed = 0;
    char text[] = "0.1";
    dc_value result = dc_long_double(&parsed);
    assert_ok(dc_call(create_signature("D*^^c"), library_function("strtold"),
                      (dc_value[]){dc_string(text), dc_pointer(NULL)}, 2, &result));
    assert_true(parsed == strtold(text, NULL));
    /* long double powl(long double, long double) */
    long double base = 2.0L, exponent = 70.0L, power = 0;
    result = dc_long_double(&power);
    assert_ok(dc_call(create_signature("DDD"), libm_function("powl"),
                      (dc_value[]){dc_long_double(&base), dc_long_double(&exponent)}, 2, &result));
    assert_true(power == 1180591620717411303424.0L);
    /* double cabs(double complex) */
    double _Complex z = 3.0 + 4.0 * I;
    assert_ok(dc_call(create_signature("djd"), libm_function("cabs"), (dc_value[]){dc_complex_double(&z)}, 1,
                      &result));
    assert_int_equal(result.type, DC_TYPE_DOUBLE);
    assert_true(result.d == 5.0);
    /* double complex conj(double complex) */
    double _Complex conjugate = 0;
    result = dc_complex_double(&conjugate);
    assert_ok(dc_call(create_signature("jdjd"), libm_function("conj"), (dc_value[]){dc_complex_double(&z)}, 1,
                      &result));
    assert_true(conjugate == 3.0 - 4.0 * I);
    /* long double complex cexpl(long double complex): e^(i pi) is -1 */
    long double _Complex exponent_c = 0.0L + 3.14159265358979323846264338327950288L * I, e = 0;
    result = dc_complex_long_double(&e);
    assert_ok(dc_call(create_signature("jDjD"), libm_function("cexpl"),
                      (dc_value[]){dc_complex_long_double(&exponent_c)}, 1, &result));
    assert_true(creall(e) == -1.0L);
    assert_true(cimagl(e) < 1e-15L && cimagl(e) > -1e-15L);
}

static void an_invocation_keeps_its_own_copies_and_returns_into_its_storage(void **state) {
    (void)state;
    dc_signature *signature = create_signature("jdjddjd");
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, DC_FUNCTION(mix_cd), &invocation));
    double _Complex a = 2.0 + 1.0 * I, b = -1.0 * I;
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_complex_double(&a))));
    assert_ok(dc_invocation_set_argument(invocation, 1, VALUE(dc_double(3.0))));
    assert_ok(dc_invocation_set_argument(invocation, 2, VALUE(dc_complex_double(&b))));
    a = 0, b = 0; /* the invocation holds copies */
    dc_value read;
    assert_ok(dc_invocation_get_argument(invocation, 0, &read));
    assert_int_equal(read.type, DC_TYPE_COMPLEX_DOUBLE);
    assert_true(read.pointer != &a && *(double _Complex *)read.pointer == 2.0 + 1.0 * I);
    /* Arguments unset are zero bytes until set. */
    dc_invocation *fresh = NULL;
    assert_ok(dc_invocation_create(signature, DC_FUNCTION(mix_cd), &fresh));
    assert_ok(dc_invocation_get_argument(fresh, 2, &read));
    assert_true(*(double _Complex *)read.pointer == 0);
    dc_invocation_destroy(fresh);
    assert_ok(dc_invocation_invoke(invocation));
    dc_value result;
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_int_equal(result.type, DC_TYPE_COMPLEX_DOUBLE);
    assert_true(*(double _Complex *)result.pointer == 6.0 + 2.0 * I);
    double _Complex replaced = 7.0;
    assert_ok(dc_invocation_set_return_value(invocation, VALUE(dc_complex_double(&replaced))));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_true(*(double _Complex *)result.pointer == 7.0);
    assert_failure(dc_invocation_set_return_value(invocation, VALUE(dc_double(7.0))), DC_ERR_TYPE, "complex");
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);
}

/* ---- closures -------------------------------------------------------------------------------- */

/* Computes fused_ld from the arguments it reads and sets the result. */
static void fuse_arguments(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value a, n, b;
    assert_ok(dc_invocation_get_argument(call, 0, &a));
    assert_ok(dc_invocation_get_argument(call, 1, &n));
    assert_ok(dc_invocation_get_argument(call, 2, &b));
    assert_int_equal(a.type, DC_TYPE_LONG_DOUBLE);
    long double result = *(long double *)a.pointer * n.i32 + *(long double *)b.pointer;
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_long_double(&result))));
}

static void twice_argument(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value z;
    assert_ok(dc_invocation_get_argument(call, 0, &z));
    long double _Complex result = *(long double _Complex *)z.pointer * 2;
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_complex_long_double(&result))));
}

static void closures_read_them_set_them_and_resend_them(void **state) {
    (void)state;
    dc_signature *fused = create_signature("DDiD");
    dc_closure *closure = NULL;
    assert_ok(dc_closure_create(fused, fuse_arguments, NULL, NULL, &closure));
    long double (*fuse)(long double, int, long double) = (long double (*)(long double, int, long double))
        dc_closure_function(closure);
    assert_true(fuse(1.0L / 3.0L, 3, 0.5L) == fused_ld(1.0L / 3.0L, 3, 0.5L));
    dc_closure_destroy(closure);
    assert_ok(dc_closure_create(fused, resend_to_function, (void *)DC_FUNCTION(fused_ld), NULL, &closure));
    fuse = (long double (*)(long double, int, long double))dc_closure_function(closure);
    assert_true(fuse(2.5L, -2, 0.125L) == fused_ld(2.5L, -2, 0.125L));
    dc_closure_destroy(closure);
    dc_signature_release(fused);

    dc_signature *twice = create_signature("jDjD");
    assert_ok(dc_closure_create(twice, twice_argument, NULL, NULL, &closure));
    long double _Complex (*doubled)(long double _Complex) = (long double _Complex (*)(long double _Complex))
        dc_closure_function(closure);
    assert_true(doubled(1.0L - 3.0L * I) == 2.0L - 6.0L * I);
    dc_closure_destroy(closure);
    dc_signature_release(twice);

    dc_signature *rotate = create_signature("jfjf");
    assert_ok(dc_closure_create(rotate, resend_to_function, (void *)DC_FUNCTION(rotate_cf), NULL, &closure));
    float _Complex (*rotated)(float _Complex) = (float _Complex (*)(float _Complex))dc_closure_function(closure);
    assert_true(rotated(2.0f + 1.0f * I) == rotate_cf(2.0f + 1.0f * I));
    dc_closure_destroy(closure);
    dc_signature_release(rotate);

    dc_signature *bump = create_signature(CHAR_LONG_DOUBLE CHAR_LONG_DOUBLE "D");
    assert_ok(dc_closure_create(bump, resend_to_function, (void *)DC_FUNCTION(bump_cld), NULL, &closure));
    char_long_double (*bumped)(char_long_double, long double) =
        (char_long_double (*)(char_long_double, long double))dc_closure_function(closure);
    char_long_double s = bumped((char_long_double){'x', 1.0L, 'q'}, 1.0L / 3.0L);
    assert_int_equal(s.c, 'y');
    assert_true(s.ld == 1.0L + 1.0L / 3.0L);
    assert_int_equal(s.d, 'p');
    dc_closure_destroy(closure);
    dc_signature_release(bump);
}

/* ---- tables ------------------------------------------------------------------------------------ */

/* A marshal returning twice its long double _Complex argument. */
static void twice_values(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data;
    assert_int_equal(count, 1);
    assert_int_equal(result->type, DC_TYPE_COMPLEX_LONG_DOUBLE);
    *(long double _Complex *)result->pointer = *(const long double _Complex *)arguments[0].pointer * 2;
}

static void table_handlers_and_marshals_take_and_return_them(void **state) {
    (void)state;
    dc_table *table = create_table("wide");
    dc_signature *signature = create_signature("jDjD");
    assert_ok(dc_table_add(table, "function", signature, DC_FUNCTION(twice_cld), NULL, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "marshal", signature, twice_values, NULL, NULL, NULL));
    const char *const events[] = {"function", "marshal"};
    for (size_t e = 0; e < ARRAY_COUNT(events); e++) {
        long double _Complex z = 0.5L + 1.0L / 3.0L * I, kept = 0;
        dc_execute_options options = {DC_ACCUMULATE_FIRST, 0, NULL, 0, &kept, sizeof kept};
        dc_result result;
        assert_ok(dc_table_execute_with(table, events[e], VALUE(dc_complex_long_double(&z)), 1, &options, &result));
        assert_int_equal(result.handled, 1);
        assert_true(result.has_return_value);
        assert_int_equal(result.return_value.type, DC_TYPE_COMPLEX_LONG_DOUBLE);
        assert_ptr_equal(result.return_value.pointer, &kept);
        assert_true(kept == z * 2);
        /* Nothing else fits the parameter, and a NULL value is refused, before any handler runs. */
        assert_failure(dc_table_execute(table, events[e], VALUE(dc_double(1.0)), 1, &result), DC_ERR_TYPE,
                       "complex long double");
        assert_failure(dc_table_execute(table, events[e], VALUE(dc_value_at(DC_TYPE_COMPLEX_LONG_DOUBLE, NULL)), 1,
                                        &result),
                       DC_ERR_NULL_ARGUMENT, "NULL");
    }
    /* A table closure executes the event: its handlers' result is the callback's. */
    dc_closure *closure = NULL;
    assert_ok(dc_table_closure_create(table, "function", signature, &closure));
    long double _Complex (*doubled)(long double _Complex) = (long double _Complex (*)(long double _Complex))
        dc_closure_function(closure);
    assert_true(doubled(3.0L + 0.1L * I) == 6.0L + 0.2L * I);
    dc_closure_destroy(closure);
    dc_signature_release(signature);
    dc_table_destroy(table);
}

/* ---- queued delivery ------------------------------------------------------------------------------- */

static long double delivered;

static void record_fused(long double a, int n, long double b) { delivered = a * n + b; }

static void *execute_elsewhere(void *table) {
    long double a = 1.0L / 3.0L, b = 0.25L;
    dc_value arguments[] = {dc_long_double(&a), dc_int32(3), dc_long_double(&b)};
    dc_result result;
    dc_status status = dc_table_execute(table, "later", arguments, 3, &result);
    a = b = 0; /* the delivery holds copies */
    return (void *)(uintptr_t)(status == DC_OK && result.queued == 1);
}

static void a_queued_delivery_copies_their_bytes(void **state) {
    (void)state;
    dc_table *table = create_table("wide");
    dc_queue *queue = NULL;
    assert_ok(dc_queue_create(&queue));
    dc_handler_options options = {.queue = queue};
    dc_signature *signature = create_signature("vDiD");
    assert_ok(dc_table_add(table, "later", signature, DC_FUNCTION(record_fused), NULL, &options, NULL));
    pthread_t thread;
    void *queued = NULL;
    assert_int_equal(pthread_create(&thread, NULL, execute_elsewhere, table), 0);
    assert_int_equal(pthread_join(thread, &queued), 0);
    assert_true(queued != NULL);
    delivered = 0;
    size_t count = 0;
    assert_ok(dc_queue_drain(queue, &count));
    assert_int_equal(count, 1);
    assert_true(delivered == 1.0L / 3.0L * 3 + 0.25L);
    dc_signature_release(signature);
    dc_table_destroy(table);
    dc_queue_destroy(queue);
}

/* ---- forwarders: an interface of these types fanned out ---------------------------------- */

typedef struct wide_interface {
    long double (*scale)(void *context, long double x, long double y);
    double _Complex (*turn)(void *context, double _Complex z, float _Complex w);
} wide_interface;

/* Each delegate counts its calls in its context and answers with it. */
static long double delegate_scale(void *context, long double x, long double y) {
    int *calls = context;
    (*calls)++;
    return x * y + *calls;
}

static double _Complex delegate_turn(void *context, double _Complex z, float _Complex w) {
    int *calls = context;
    (*calls)++;
    return z * I + (double)crealf(w) + *calls;
}

static void forwarders_pass_them_to_every_delegate_and_return_the_first_answer(void **state) {
    (void)state;
    const char *const slots[] = {"D^vDD", "jd^vjdjf"};
    dc_forwarder *forwarder = NULL;
    assert_ok(dc_forwarder_create(slots, ARRAY_COUNT(slots), &forwarder));
    const wide_interface delegate = {delegate_scale, delegate_turn};
    int first = 0, second = 10;
    assert_ok(dc_forwarder_add(forwarder, &delegate, &first));
    assert_ok(dc_forwarder_add(forwarder, &delegate, &second));
    const wide_interface *calls = dc_forwarder_vtable(forwarder);
    void *context = dc_forwarder_context(forwarder);

    /* 1.5 * 2.25 has no exact double: the long double's own bits come back. */
    long double scaled = calls->scale(context, 1.5L, 2.25L + 0x1p-60L);
    assert_true(scaled == 1.5L * (2.25L + 0x1p-60L) + 1);
    assert_int_equal(first, 1);
    assert_int_equal(second, 11);

    double _Complex turned = calls->turn(context, 1.0 + 2.0 * I, 0.5f + 4.0f * I);
    assert_true(creal(turned) == -2.0 + 0.5 + 2 && cimag(turned) == 1.0);
    assert_int_equal(first, 2);
    assert_int_equal(second, 12);
    dc_forwarder_destroy(forwarder);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layouts_report_the_abis_sizes_and_alignments),
        cmocka_unit_test(values_by_address_fit_their_own_type_only),
        cmocka_unit_test(dc_call_passes_and_returns_them_as_a_direct_call_does),
        cmocka_unit_test(real_c_library_functions_of_these_types_are_called_at_run_time),
        cmocka_unit_test(an_invocation_keeps_its_own_copies_and_returns_into_its_storage),
        cmocka_unit_test(closures_read_them_set_them_and_resend_them),
        cmocka_unit_test(table_handlers_and_marshals_take_and_return_them),
        cmocka_unit_test(a_queued_delivery_copies_their_bytes),
        cmocka_unit_test(forwarders_pass_them_to_every_delegate_and_return_the_first_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
