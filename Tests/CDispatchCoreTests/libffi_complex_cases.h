/*
 * libffi_complex_cases.h — libffi's testsuite/libffi.complex, restated
 * against the public API, for one complex type. Included by
 * test_libffi_complex.c once per type, as libffi's .inc files are, with:
 *
 *   T       the real type (float, double, long double)
 *   T_CODE  its complex encoding ("jf", "jd", "jD")
 *   T_TYPE  its dc_type (DC_TYPE_COMPLEX_FLOAT ...)
 *   T_NAME  a suffix for the names below (float, double, longdouble)
 *
 * No include guard: each inclusion defines the cases of its type.
 */
#define T_COMPLEX _Complex T
#define T_CASE_(name, suffix) name##_##suffix
#define T_CASE(name, suffix) T_CASE_(name, suffix)
#define T_VALUE(address) dc_value_at(T_TYPE, (address))

/* complex.inc (call_complex): _Complex T f_complex(_Complex T c, int x, int *py) */
CALLEE static T_COMPLEX T_CASE(f_complex, T_NAME)(T_COMPLEX c, int x, int *py) {
    c = -(2 * creal(c)) + (cimag(c) + 1) * I;
    *py += x;
    return c;
}

static void T_CASE(call_complex, T_NAME)(void **state) {
    (void)state;
    T_COMPLEX argument = 1 + 7 * I, result = 0;
    int y = 9876;
    dc_value arguments[] = {T_VALUE(&argument), dc_int32(1234), dc_pointer(&y)}, returned = T_VALUE(&result);
    call_ok(T_CODE T_CODE "i^i", DC_FUNCTION(T_CASE(f_complex, T_NAME)), arguments, 3, &returned);
    assert_true(creal(result) == -2 && cimag(result) == 8);
    assert_int_equal(y, 11110);
}

/* return_complex.inc: 2 * c, for 254 values. */
CALLEE static T_COMPLEX T_CASE(return_c, T_NAME)(T_COMPLEX c) { return 2 * c; }

static void T_CASE(return_complex, T_NAME)(void **state) {
    (void)state;
    dc_signature *signature = create_signature(T_CODE T_CODE);
    for (T real = -127; real < 127; real++) {
        T_COMPLEX c = real + (1000 - real) * I, result = 0;
        dc_value returned = T_VALUE(&result);
        assert_ok(dc_call(signature, DC_FUNCTION(T_CASE(return_c, T_NAME)), (dc_value[]){T_VALUE(&c)}, 1, &returned));
        assert_true(result == 2 * c);
    }
    dc_signature_release(signature);
}

/* return_complex1.inc: c1 + fl2 + in3 + c4 */
CALLEE static T_COMPLEX T_CASE(return_c1, T_NAME)(T_COMPLEX c1, float fl2, unsigned in3, T_COMPLEX c4) {
    return c1 + fl2 + in3 + c4;
}

/* return_complex2.inc: c1 + c2 + in3 + c4 */
CALLEE static T_COMPLEX T_CASE(return_c2, T_NAME)(T_COMPLEX c1, T_COMPLEX c2, unsigned in3, T_COMPLEX c4) {
    volatile T_COMPLEX r = c1 + c2 + in3 + c4;
    return r;
}

static void T_CASE(return_complex1_and_2, T_NAME)(void **state) {
    (void)state;
    T_COMPLEX c1 = 127.0 + 255.0 * I, c2 = 128.0 + 256.0, c4 = 512.7 + 1024.1 * I, result = 0;
    dc_value returned = T_VALUE(&result);
    call_ok(T_CODE T_CODE "fI" T_CODE, DC_FUNCTION(T_CASE(return_c1, T_NAME)),
            (dc_value[]){T_VALUE(&c1), dc_float(128.0f), dc_uint32(255), T_VALUE(&c4)}, 4, &returned);
    assert_true(result == T_CASE(return_c1, T_NAME)(c1, 128.0f, 255, c4));
    call_ok(T_CODE T_CODE T_CODE "I" T_CODE, DC_FUNCTION(T_CASE(return_c2, T_NAME)),
            (dc_value[]){T_VALUE(&c1), T_VALUE(&c2), dc_uint32(255), T_VALUE(&c4)}, 4, &returned);
    assert_true(result == T_CASE(return_c2, T_NAME)(c1, c2, 255, c4));
}

/* many_complex.inc: 13 complex arguments. */
CALLEE static T_COMPLEX T_CASE(many, T_NAME)(T_COMPLEX c1, T_COMPLEX c2, T_COMPLEX c3, T_COMPLEX c4, T_COMPLEX c5,
                                             T_COMPLEX c6, T_COMPLEX c7, T_COMPLEX c8, T_COMPLEX c9, T_COMPLEX c10,
                                             T_COMPLEX c11, T_COMPLEX c12, T_COMPLEX c13) {
    return c1 + c2 - c3 - c4 + c5 + c6 + c7 - c8 - c9 - c10 - c11 + c12 + c13;
}

static void T_CASE(many_complex, T_NAME)(void **state) {
    (void)state;
    T_COMPLEX ca[13], result = 0;
    dc_value arguments[13];
    for (int i = 0; i < 13; i++) {
        ca[i] = i + (-20 - i) * I;
        arguments[i] = T_VALUE(&ca[i]);
    }
    dc_value returned = T_VALUE(&result);
    call_ok(T_CODE T_CODE T_CODE T_CODE T_CODE T_CODE T_CODE T_CODE T_CODE T_CODE T_CODE T_CODE T_CODE T_CODE,
            DC_FUNCTION(T_CASE(many, T_NAME)), arguments, 13, &returned);
    T_COMPLEX expected = T_CASE(many, T_NAME)(ca[0], ca[1], ca[2], ca[3], ca[4], ca[5], ca[6], ca[7], ca[8], ca[9],
                                              ca[10], ca[11], ca[12]);
    assert_true(creal(result) == creal(expected) && cimag(result) == cimag(expected));
}

/* cls_complex.inc: a closure returning its argument. */
static void T_CASE(identity_handler, T_NAME)(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value argument;
    assert_ok(dc_invocation_get_argument(call, 0, &argument));
    assert_int_equal(argument.type, T_TYPE);
    assert_ok(dc_invocation_set_return_value(call, &argument));
}

static void T_CASE(cls_complex, T_NAME)(void **state) {
    (void)state;
    dc_closure *closure = create_closure(T_CODE T_CODE, T_CASE(identity_handler, T_NAME), NULL);
    T_COMPLEX (*identity)(T_COMPLEX) = (T_COMPLEX (*)(T_COMPLEX))dc_closure_function(closure);
    assert_true(identity(0.125 + 128.0 * I) == 0.125 + 128.0 * I);
    dc_closure_destroy(closure);
}

/* cls_complex_struct.inc: a struct of two complex values, by value to a closure. */
typedef struct T_CASE(Cs, T_NAME) {
    T_COMPLEX x, y;
} T_CASE(Cs, T_NAME);

static T_CASE(Cs, T_NAME) T_CASE(gc, T_NAME);

static void T_CASE(keep_struct_handler, T_NAME)(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value argument;
    assert_ok(dc_invocation_get_argument(call, 0, &argument));
    memcpy(&T_CASE(gc, T_NAME), argument.pointer, sizeof T_CASE(gc, T_NAME));
}

static void T_CASE(cls_complex_struct, T_NAME)(void **state) {
    (void)state;
    dc_closure *closure = create_closure("v{Cs=" T_CODE T_CODE "}", T_CASE(keep_struct_handler, T_NAME), NULL);
    void (*keep)(T_CASE(Cs, T_NAME)) = (void (*)(T_CASE(Cs, T_NAME)))dc_closure_function(closure);
    T_CASE(Cs, T_NAME) argument = {1.0 + 11.0 * I, 2.0 + 22.0 * I};
    T_CASE(gc, T_NAME).x = T_CASE(gc, T_NAME).y = 0;
    keep(argument);
    assert_true(T_CASE(gc, T_NAME).x == argument.x && T_CASE(gc, T_NAME).y == argument.y);
    dc_closure_destroy(closure);
}

/* cls_complex_va.inc: int (const char *, ...) with two complex values, to a
 * closure of the variadic signature; its result is what printf would print. */
static T_COMPLEX T_CASE(va_first, T_NAME), T_CASE(va_second, T_NAME);

static void T_CASE(va_handler, T_NAME)(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value format, first, second;
    assert_ok(dc_invocation_get_argument(call, 0, &format));
    assert_ok(dc_invocation_get_argument(call, 1, &first));
    assert_ok(dc_invocation_get_argument(call, 2, &second));
    T_CASE(va_first, T_NAME) = *(T_COMPLEX *)first.pointer;
    T_CASE(va_second, T_NAME) = *(T_COMPLEX *)second.pointer;
    char text[64];
    int length = snprintf(text, sizeof text, format.string, (double)creal(T_CASE(va_first, T_NAME)),
                          (double)cimag(T_CASE(va_first, T_NAME)), (double)creal(T_CASE(va_second, T_NAME)),
                          (double)cimag(T_CASE(va_second, T_NAME)));
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_int32(length))));
}

static void T_CASE(cls_complex_va, T_NAME)(void **state) {
    (void)state;
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create_variadic("i*" T_CODE T_CODE, 1, &signature));
    dc_closure *closure = NULL;
    assert_ok(dc_closure_create(signature, T_CASE(va_handler, T_NAME), NULL, NULL, &closure));
    int (*print)(const char *, ...) = (int (*)(const char *, ...))dc_closure_function(closure);
    T_COMPLEX first = 1.0 + 22.0 * I, second = 333.0 + 4444.0 * I;
    assert_int_equal(print("%.1f,%.1fi %.1f,%.1fi\n", first, second), 24);
    assert_true(T_CASE(va_first, T_NAME) == first && T_CASE(va_second, T_NAME) == second);
    dc_closure_destroy(closure);
    dc_signature_release(signature);
}

/* cls_align_complex.inc: { unsigned char; _Complex T; unsigned char } to a
 * closure that re-sends the call, and back. */
typedef struct T_CASE(align, T_NAME) {
    unsigned char a;
    T_COMPLEX b;
    unsigned char c;
} T_CASE(align, T_NAME);

CALLEE static T_CASE(align, T_NAME) T_CASE(align_fn, T_NAME)(T_CASE(align, T_NAME) a1, T_CASE(align, T_NAME) a2) {
    T_CASE(align, T_NAME) result = {(unsigned char)(a1.a + a2.a), a1.b + a2.b, (unsigned char)(a1.c + a2.c)};
    return result;
}

static void T_CASE(cls_align_complex, T_NAME)(void **state) {
    (void)state;
#define T_ALIGN_ENCODING "{cls_struct_align=C" T_CODE "C}"
    dc_closure *closure = create_closure(T_ALIGN_ENCODING T_ALIGN_ENCODING T_ALIGN_ENCODING, resend_to_function,
                                     (void *)DC_FUNCTION(T_CASE(align_fn, T_NAME)));
#undef T_ALIGN_ENCODING
    T_CASE(align, T_NAME) (*align)(T_CASE(align, T_NAME), T_CASE(align, T_NAME)) =
        (T_CASE(align, T_NAME) (*)(T_CASE(align, T_NAME), T_CASE(align, T_NAME)))dc_closure_function(closure);
    T_CASE(align, T_NAME) g = {12, 4951 + 7 * I, 127}, f = {1, 9320 + 1 * I, 13};
    T_CASE(align, T_NAME) result = align(g, f);
    assert_int_equal(result.a, 13);
    assert_true(result.b == 14271 + 8 * I);
    assert_int_equal(result.c, 140);
    dc_closure_destroy(closure);
}

#define T_TESTS(suffix)                                                                                            \
    cmocka_unit_test(call_complex_##suffix), cmocka_unit_test(return_complex_##suffix),                                 \
        cmocka_unit_test(return_complex1_and_2_##suffix), cmocka_unit_test(many_complex_##suffix),                 \
        cmocka_unit_test(cls_complex_##suffix), cmocka_unit_test(cls_complex_struct_##suffix),                     \
        cmocka_unit_test(cls_complex_va_##suffix), cmocka_unit_test(cls_align_complex_##suffix)

#undef T_COMPLEX
#undef T_CASE_
#undef T_CASE
#undef T_VALUE
