/*
 * test_libffi_complex.c — libffi's testsuite/libffi.complex restated against
 * the public API: for float, double and long double _Complex (jf, jd, jD),
 * complex, return_complex, return_complex1, return_complex2, many_complex
 * (calls), cls_complex, cls_complex_struct, cls_complex_va and
 * cls_align_complex (closures). The cases are in libffi_complex_cases.h, one
 * inclusion per type, as libffi's .inc files are. complex_int and
 * complex_i128 (_Complex int, a GCC extension) have no encoding: 'j' takes
 * f, d or D, and "ji" is DC_ERR_BAD_SIGNATURE, as the last test shows.
 */
#include "test_support.h"

#include <complex.h>

static void call_ok(const char *encoding, dc_function function, dc_value *arguments, size_t count,
                    dc_value *result) {
    dc_signature *signature = create_signature(encoding);
    assert_ok(dc_call(signature, function, arguments, count, result));
    dc_signature_release(signature);
}

#define T float
#define T_CODE "jf"
#define T_TYPE DC_TYPE_COMPLEX_FLOAT
#define T_NAME float
#include "libffi_complex_cases.h"
#undef T
#undef T_CODE
#undef T_TYPE
#undef T_NAME

#define T double
#define T_CODE "jd"
#define T_TYPE DC_TYPE_COMPLEX_DOUBLE
#define T_NAME double
#include "libffi_complex_cases.h"
#undef T
#undef T_CODE
#undef T_TYPE
#undef T_NAME

#define T long double
#define T_CODE "jD"
#define T_TYPE DC_TYPE_COMPLEX_LONG_DOUBLE
#define T_NAME longdouble
#include "libffi_complex_cases.h"

/* complex_int, complex_i128: _Complex of an integer type has no encoding. */
static void complex_integers_have_no_encoding(void **state) {
    (void)state;
    dc_signature *signature = NULL;
    assert_failure(dc_signature_create("jiji^i", &signature), DC_ERR_BAD_SIGNATURE, "complex", "position 0");
    assert_null(signature);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T_TESTS(float),
        T_TESTS(double),
        T_TESTS(longdouble),
        cmocka_unit_test(complex_integers_have_no_encoding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
