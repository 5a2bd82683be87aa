/*
 * test_values.c — dc_value_convert, the rule every argument passes through
 * before a call, case by case as dispatch_core.h states it.
 */
#include "test_support.h"

#include <math.h>

static void assert_converts(dc_value value, dc_type type, dc_value expected, const char *what) {
    dc_value out = dc_void();
    assert_ok(dc_value_convert(&value, type, &out));
    assert_value_equal(expected, out, what);
}

static void assert_rejected(dc_value value, dc_type type, const char *what) {
    dc_value out = dc_int16(-31);
    const char *primed = dc_test_prime_error_message();
    dc_status status = dc_value_convert(&value, type, &out);
    if (status != DC_ERR_TYPE) {
        fail_msg("%s: converting to %s gave %s, expected DC_ERR_TYPE", what, dc_type_name(type),
                 dc_status_name(status));
    }
    const char *message = dc_last_error_message();
    if (strcmp(message, primed) == 0 || !dc_test_message_mentions(message, dc_type_name(type)) ||
        !dc_test_message_mentions(message, dc_type_name(value.type))) {
        fail_msg("%s: message \"%s\" does not name both %s and %s", what, message,
                 dc_type_name(value.type), dc_type_name(type));
    }
    assert_value_equal(dc_int16(-31), out, "output after a rejected conversion");
}

static void a_value_of_the_same_type_fits(void **state) {
    (void)state;
    int object;
    char text[] = "x";
    const dc_value same[] = {dc_bool(true),      dc_int8(-8),          dc_uint8(8),
                             dc_int16(-16),      dc_uint16(16),        dc_int32(-32),
                             dc_uint32(32),      dc_int64(INT64_MIN),  dc_uint64(UINT64_MAX),
                             dc_float(1.5f),     dc_double(-2.5),      dc_object(&object),
                             dc_pointer(&object), dc_string(text)};
    for (size_t i = 0; i < ARRAY_COUNT(same); i++) {
        assert_converts(same[i], same[i].type, same[i], dc_type_name(same[i].type));
    }
}

static void integers_fit_any_integer_type_that_represents_them_exactly(void **state) {
    (void)state;
    assert_converts(dc_int64(5), DC_TYPE_UINT8, dc_uint8(5), "int64 5 to uint8");
    assert_converts(dc_int64(-128), DC_TYPE_INT8, dc_int8(-128), "int64 -128 to int8");
    assert_converts(dc_int8(-1), DC_TYPE_INT64, dc_int64(-1), "int8 -1 to int64");
    assert_converts(dc_uint32(UINT32_MAX), DC_TYPE_INT64, dc_int64(UINT32_MAX),
                    "uint32 max to int64");
    assert_converts(dc_uint64(INT64_MAX), DC_TYPE_INT64, dc_int64(INT64_MAX),
                    "uint64 INT64_MAX to int64");
    assert_converts(dc_int64(65535), DC_TYPE_UINT16, dc_uint16(65535), "int64 65535 to uint16");
    assert_converts(dc_int16(0), DC_TYPE_UINT64, dc_uint64(0), "int16 0 to uint64");
    /* Unsigned values into narrower or equal-width signed types. */
    assert_converts(dc_uint16(127), DC_TYPE_INT8, dc_int8(127), "uint16 127 to int8");
    assert_converts(dc_uint8(5), DC_TYPE_INT16, dc_int16(5), "uint8 5 to int16");
    assert_converts(dc_uint32(7), DC_TYPE_INT32, dc_int32(7), "uint32 7 to int32");
    assert_converts(dc_uint64(INT32_MAX), DC_TYPE_INT32, dc_int32(INT32_MAX),
                    "uint64 INT32_MAX to int32");
    assert_converts(dc_uint32(UINT16_MAX), DC_TYPE_UINT16, dc_uint16(UINT16_MAX),
                    "uint32 65535 to uint16");

    assert_rejected(dc_int64(-1), DC_TYPE_UINT32, "int64 -1 to uint32");
    assert_rejected(dc_int64(256), DC_TYPE_UINT8, "int64 256 to uint8");
    assert_rejected(dc_int64(-129), DC_TYPE_INT8, "int64 -129 to int8");
    assert_rejected(dc_uint64(UINT64_MAX), DC_TYPE_INT64, "uint64 max to int64");
    assert_rejected(dc_uint8(128), DC_TYPE_INT8, "uint8 128 to int8");
    assert_rejected(dc_int8(-1), DC_TYPE_UINT64, "int8 -1 to uint64");
    assert_rejected(dc_int32(INT32_MIN), DC_TYPE_INT16, "int32 min to int16");
}

static void out_of_range_rejection_names_the_value(void **state) {
    (void)state;
    dc_value value = dc_int64(300);
    dc_value out;
    assert_failure(dc_value_convert(&value, DC_TYPE_UINT8, &out), DC_ERR_TYPE, "300", "uint8",
                   "int64");
}

static void float_fits_double_and_double_fits_float_only_exactly(void **state) {
    (void)state;
    /* The float's own value, widened: through a float object, since a
     * floating constant may carry more precision than its type where
     * FLT_EVAL_METHOD is 2 (i386's x87), and (double)0.1f is 0.1 there. */
    const float tenth = 0.1f;
    assert_converts(dc_float(tenth), DC_TYPE_DOUBLE, dc_double((double)tenth), "float to double");
    assert_converts(dc_double(0.5), DC_TYPE_FLOAT, dc_float(0.5f), "double 0.5 to float");
    assert_converts(dc_double(-0.0), DC_TYPE_FLOAT, dc_float(-0.0f), "double -0.0 to float");
    assert_converts(dc_double(INFINITY), DC_TYPE_FLOAT, dc_float(INFINITY),
                    "double infinity to float");
    dc_value nan_value = dc_double(NAN);
    dc_value out;
    assert_ok(dc_value_convert(&nan_value, DC_TYPE_FLOAT, &out));
    assert_int_equal(out.type, DC_TYPE_FLOAT);
    assert_true(isnan(out.f));

    assert_rejected(dc_double(0.1), DC_TYPE_FLOAT, "double 0.1 to float");
    assert_rejected(dc_double(1e300), DC_TYPE_FLOAT, "double 1e300 to float");
    assert_rejected(dc_double(1e-300), DC_TYPE_FLOAT, "double 1e-300 to float");
}

static void pointer_parameters_accept_every_pointer_like_value(void **state) {
    (void)state;
    int object;
    char text[] = "text";
    assert_converts(dc_object(&object), DC_TYPE_POINTER, dc_pointer(&object), "object to pointer");
    assert_converts(dc_string(text), DC_TYPE_POINTER, dc_pointer(text), "string to pointer");

    /* Any pointer-like type accepts a NULL of any pointer-like type. */
    assert_converts(dc_pointer(NULL), DC_TYPE_OBJECT, dc_object(NULL), "NULL pointer to object");
    assert_converts(dc_pointer(NULL), DC_TYPE_STRING, dc_string(NULL), "NULL pointer to string");
    assert_converts(dc_string(NULL), DC_TYPE_OBJECT, dc_object(NULL), "NULL string to object");
    assert_converts(dc_object(NULL), DC_TYPE_STRING, dc_string(NULL), "NULL object to string");

    assert_rejected(dc_pointer(&object), DC_TYPE_OBJECT, "pointer to object");
    assert_rejected(dc_pointer(text), DC_TYPE_STRING, "pointer to string");
    assert_rejected(dc_string(text), DC_TYPE_OBJECT, "string to object");
    assert_rejected(dc_object(&object), DC_TYPE_STRING, "object to string");
}

static void bool_integers_floating_point_and_pointers_do_not_mix(void **state) {
    (void)state;
    int object;
    assert_rejected(dc_bool(true), DC_TYPE_INT32, "bool to int32");
    assert_rejected(dc_int32(1), DC_TYPE_BOOL, "int32 1 to bool");
    assert_rejected(dc_uint8(0), DC_TYPE_BOOL, "uint8 0 to bool");
    assert_rejected(dc_int64(2), DC_TYPE_DOUBLE, "int64 to double");
    assert_rejected(dc_double(2.0), DC_TYPE_INT64, "double to int64");
    assert_rejected(dc_float(1.0f), DC_TYPE_INT32, "float to int32");
    assert_rejected(dc_int64(0), DC_TYPE_POINTER, "int64 0 to pointer");
    assert_rejected(dc_pointer(&object), DC_TYPE_UINT64, "pointer to uint64");
    assert_rejected(dc_object(NULL), DC_TYPE_BOOL, "NULL object to bool");
    assert_rejected(dc_bool(false), DC_TYPE_DOUBLE, "bool to double");
}

static void nothing_converts_to_void(void **state) {
    (void)state;
    dc_value value = dc_int32(1);
    dc_value out = dc_bool(true);
    assert_int_not_equal(dc_value_convert(&value, DC_TYPE_VOID, &out), DC_OK);
    assert_value_equal(dc_bool(true), out, "output after converting to void");
    assert_int_not_equal(dc_value_convert(&value, (dc_type)DC_TYPE_COUNT, &out), DC_OK);
    assert_value_equal(dc_bool(true), out, "output after converting to an invalid type");
}

static void conversion_may_write_over_its_input(void **state) {
    (void)state;
    dc_value value = dc_int64(200);
    assert_ok(dc_value_convert(&value, DC_TYPE_UINT8, &value));
    assert_value_equal(dc_uint8(200), value, "in-place int64 to uint8");
    value = dc_float(-3.25f);
    assert_ok(dc_value_convert(&value, DC_TYPE_DOUBLE, &value));
    assert_value_equal(dc_double(-3.25), value, "in-place float to double");
}

static void constructors_tag_values_with_their_type(void **state) {
    (void)state;
    assert_int_equal(dc_void().type, DC_TYPE_VOID);
    assert_int_equal(dc_bool(true).type, DC_TYPE_BOOL);
    assert_int_equal(dc_uint16(1).type, DC_TYPE_UINT16);
    assert_int_equal(dc_double(1).type, DC_TYPE_DOUBLE);
    assert_int_equal(dc_string(NULL).type, DC_TYPE_STRING);
    assert_int_equal(dc_int8(-1).i8, -1);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* The unused bytes of a narrow value are zero. */
    assert_int_equal(dc_int8(-1).u64, 0xff);
    assert_int_equal(dc_float(0.0f).u64, 0);
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_value_of_the_same_type_fits),
        cmocka_unit_test(integers_fit_any_integer_type_that_represents_them_exactly),
        cmocka_unit_test(out_of_range_rejection_names_the_value),
        cmocka_unit_test(float_fits_double_and_double_fits_float_only_exactly),
        cmocka_unit_test(pointer_parameters_accept_every_pointer_like_value),
        cmocka_unit_test(bool_integers_floating_point_and_pointers_do_not_mix),
        cmocka_unit_test(nothing_converts_to_void),
        cmocka_unit_test(conversion_may_write_over_its_input),
        cmocka_unit_test(constructors_tag_values_with_their_type),
    };
    return cmocka_run_group_tests_name("value conversion", tests, NULL, NULL);
}
