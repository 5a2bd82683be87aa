/*
 * test_invocation.c — invocations (NSInvocation) and dc_call: argument storage
 * and conversion, repeated invokes, return values, call-path selection and the
 * lifetime of the signature an invocation holds.
 */
#include "test_support.h"

static int calls;

CALLEE static int64_t scale(void *object, int64_t count, double factor) {
    calls++;
    return (int64_t)(count * factor) + (object != NULL ? 1 : 0);
}

CALLEE static void record(void *object, bool flag) {
    calls++;
    if (object != NULL) {
        *(bool *)object = flag;
    }
}

CALLEE static uint8_t add_uint8(uint8_t a, uint8_t b) {
    calls++;
    return (uint8_t)(a + b);
}

CALLEE static int64_t sum_seven(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e,
                                int64_t f, int64_t g) {
    calls++;
    return a + b + c + d + e + f + g;
}

static dc_invocation *create_invocation(const char *encoding, dc_function function) {
    dc_signature *signature = create_signature(encoding);
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, function, &invocation));
    dc_signature_release(signature);
    return invocation;
}

static void new_invocation_has_every_argument_zero_of_its_parameter_type(void **state) {
    (void)state;
    /* Never invoked: only the argument storage is looked at. */
    dc_invocation *invocation = create_invocation("vBcqdf@*^v", DC_FUNCTION(record));
    const dc_type types[] = {DC_TYPE_BOOL,   DC_TYPE_INT8,   DC_TYPE_INT64,
                             DC_TYPE_DOUBLE, DC_TYPE_FLOAT,  DC_TYPE_OBJECT,
                             DC_TYPE_STRING, DC_TYPE_POINTER};
    for (size_t i = 0; i < ARRAY_COUNT(types); i++) {
        dc_value argument;
        assert_ok(dc_invocation_get_argument(invocation, i, &argument));
        assert_int_equal(argument.type, types[i]);
        assert_int_equal(argument.u64, 0);
    }
    dc_invocation_destroy(invocation);
}

static void set_argument_stores_the_value_converted_to_the_parameter_type(void **state) {
    (void)state;
    dc_invocation *invocation = create_invocation("C" "CC", DC_FUNCTION(add_uint8));
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_int64(200))));
    assert_ok(dc_invocation_set_argument(invocation, 1, VALUE(dc_int32(55))));
    dc_value argument;
    assert_ok(dc_invocation_get_argument(invocation, 0, &argument));
    assert_value_equal(dc_uint8(200), argument, "argument 0 after set");
    assert_ok(dc_invocation_get_argument(invocation, 1, &argument));
    assert_value_equal(dc_uint8(55), argument, "argument 1 after set");

    assert_ok(dc_invocation_invoke(invocation));
    dc_value result;
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_uint8(255), result, "200 + 55 as uint8");
    dc_invocation_destroy(invocation);
}

static void failed_set_argument_keeps_the_previous_value(void **state) {
    (void)state;
    dc_invocation *invocation = create_invocation("C" "CC", DC_FUNCTION(add_uint8));
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_uint8(9))));
    assert_status(dc_invocation_set_argument(invocation, 0, VALUE(dc_int64(256))),
                  DC_ERR_TYPE);
    assert_status(dc_invocation_set_argument(invocation, 0, VALUE(dc_bool(true))),
                  DC_ERR_TYPE);
    dc_value argument;
    assert_ok(dc_invocation_get_argument(invocation, 0, &argument));
    assert_value_equal(dc_uint8(9), argument, "argument 0 after rejected sets");
    dc_invocation_destroy(invocation);
}

static void invoke_repeats_with_arguments_that_stay_set(void **state) {
    (void)state;
    int object = 0;
    dc_invocation *invocation = create_invocation("q@qd", DC_FUNCTION(scale));
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_object(&object))));
    assert_ok(dc_invocation_set_argument(invocation, 1, VALUE(dc_int64(4))));
    assert_ok(dc_invocation_set_argument(invocation, 2, VALUE(dc_double(2.5))));
    calls = 0;
    dc_value result;
    for (int i = 0; i < 3; i++) {
        assert_ok(dc_invocation_invoke(invocation));
        assert_ok(dc_invocation_get_return_value(invocation, &result));
        assert_value_equal(dc_int64(11), result, "scale(&object, 4, 2.5)");
    }
    assert_int_equal(calls, 3);

    /* Changing one argument changes the next result only. */
    assert_ok(dc_invocation_set_argument(invocation, 1, VALUE(dc_int64(-4))));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_int64(11), result, "return value before the next invoke");
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_int64(-9), result, "scale(&object, -4, 2.5)");
    dc_invocation_destroy(invocation);
}

static void return_value_before_any_invoke_is_not_invoked(void **state) {
    (void)state;
    dc_invocation *invocation = create_invocation("q@qd", DC_FUNCTION(scale));
    dc_value result = dc_int32(12345);
    assert_failure(dc_invocation_get_return_value(invocation, &result), DC_ERR_NOT_INVOKED,
                   "invoke");
    assert_value_equal(dc_int32(12345), result, "output after DC_ERR_NOT_INVOKED");
    dc_invocation_destroy(invocation);
}

static void void_function_returns_the_void_value(void **state) {
    (void)state;
    bool flag = false;
    dc_invocation *invocation = create_invocation("v^vB", DC_FUNCTION(record));
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_pointer(&flag))));
    assert_ok(dc_invocation_set_argument(invocation, 1, VALUE(dc_bool(true))));
    assert_ok(dc_invocation_invoke(invocation));
    assert_true(flag);
    dc_value result = dc_int8(1);
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_void(), result, "void return");
    dc_invocation_destroy(invocation);
}

static void invocation_keeps_its_signature_alive(void **state) {
    (void)state;
    dc_signature *signature = create_signature("q@qd");
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, DC_FUNCTION(scale), &invocation));
    dc_signature_release(signature);

    assert_ptr_equal(dc_invocation_signature(invocation), signature);
    assert_string_equal(dc_signature_encoding(dc_invocation_signature(invocation)), "q@qd");
    assert_ok(dc_invocation_set_argument(invocation, 1, VALUE(dc_int64(3))));
    assert_ok(dc_invocation_set_argument(invocation, 2, VALUE(dc_double(2.0))));
    assert_ok(dc_invocation_invoke(invocation));
    dc_value result;
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_int64(6), result, "scale(NULL, 3, 2.0)");
    dc_invocation_destroy(invocation);
}

static void call_path_defaults_to_the_signature_path_and_can_be_forced(void **state) {
    (void)state;
    dc_invocation *invocation = create_invocation("q@qd", DC_FUNCTION(scale));
    assert_int_equal(dc_invocation_call_path(invocation), DC_TEST_STUB_PATH);
    assert_ok(dc_invocation_set_call_path(invocation, DC_CALL_PATH_FFI));
    assert_int_equal(dc_invocation_call_path(invocation), DC_CALL_PATH_FFI);
    assert_status(dc_invocation_set_call_path(invocation, DC_CALL_PATH_STUB),
                  DC_TEST_STUB_PATH == DC_CALL_PATH_STUB ? DC_OK : DC_ERR_UNSUPPORTED);
    assert_int_equal(dc_invocation_call_path(invocation), DC_TEST_STUB_PATH);
    dc_invocation_destroy(invocation);
}

static void stub_path_cannot_be_forced_on_a_libffi_only_signature(void **state) {
    (void)state;
    dc_invocation *invocation = create_invocation("qqqqqqqq", DC_FUNCTION(sum_seven));
    assert_int_equal(dc_invocation_call_path(invocation), DC_CALL_PATH_FFI);
    assert_failure(dc_invocation_set_call_path(invocation, DC_CALL_PATH_STUB),
                   DC_ERR_UNSUPPORTED, "stub");
    assert_int_equal(dc_invocation_call_path(invocation), DC_CALL_PATH_FFI);
    assert_ok(dc_invocation_set_call_path(invocation, DC_CALL_PATH_FFI));

    for (size_t i = 0; i < 7; i++) {
        assert_ok(dc_invocation_set_argument(invocation, i, VALUE(dc_int64(1 << i))));
    }
    calls = 0;
    assert_ok(dc_invocation_invoke(invocation));
    dc_value result;
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_int64(127), result, "sum of seven powers of two");
    assert_int_equal(calls, 1);
    dc_invocation_destroy(invocation);
}

static void unknown_call_path_is_rejected_and_the_path_kept(void **state) {
    (void)state;
    dc_invocation *invocation = create_invocation("q@qd", DC_FUNCTION(scale));
    dc_status status = dc_invocation_set_call_path(invocation, (dc_call_path)7);
    assert_int_not_equal(status, DC_OK);
    assert_true(dc_last_error_message()[0] != '\0');
    assert_int_equal(dc_invocation_call_path(invocation), DC_TEST_STUB_PATH);
    dc_invocation_destroy(invocation);
}

static void dc_call_returns_the_value_or_ignores_it_when_not_wanted(void **state) {
    (void)state;
    dc_signature *signature = create_signature("q@qd");
    int object = 0;
    const dc_value arguments[] = {dc_object(&object), dc_int64(10), dc_double(0.5)};
    dc_value result;
    calls = 0;
    assert_ok(dc_call(signature, DC_FUNCTION(scale), arguments, 3, &result));
    assert_value_equal(dc_int64(6), result, "scale(&object, 10, 0.5)");
    assert_ok(dc_call(signature, DC_FUNCTION(scale), arguments, 3, NULL));
    assert_int_equal(calls, 2);
    dc_signature_release(signature);
}

static int ticks;
CALLEE static void tick(void) { ticks++; }

static void dc_call_with_no_parameters_accepts_null_arguments(void **state) {
    (void)state;
    dc_signature *signature = create_signature("v");
    ticks = 0;
    assert_ok(dc_call(signature, DC_FUNCTION(tick), NULL, 0, NULL));
    dc_value result = dc_int8(3);
    assert_ok(dc_call(signature, DC_FUNCTION(tick), NULL, 0, &result));
    assert_value_equal(dc_void(), result, "void result of dc_call");
    assert_int_equal(ticks, 2);
    dc_signature_release(signature);
}

static void null_invocation_accessors_give_documented_defaults(void **state) {
    (void)state;
    assert_null(dc_invocation_signature(NULL));
    assert_int_equal(dc_invocation_call_path(NULL), DC_CALL_PATH_FFI);
    dc_invocation_destroy(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(new_invocation_has_every_argument_zero_of_its_parameter_type),
        cmocka_unit_test(set_argument_stores_the_value_converted_to_the_parameter_type),
        cmocka_unit_test(failed_set_argument_keeps_the_previous_value),
        cmocka_unit_test(invoke_repeats_with_arguments_that_stay_set),
        cmocka_unit_test(return_value_before_any_invoke_is_not_invoked),
        cmocka_unit_test(void_function_returns_the_void_value),
        cmocka_unit_test(invocation_keeps_its_signature_alive),
        cmocka_unit_test(call_path_defaults_to_the_signature_path_and_can_be_forced),
        cmocka_unit_test(stub_path_cannot_be_forced_on_a_libffi_only_signature),
        cmocka_unit_test(unknown_call_path_is_rejected_and_the_path_kept),
        cmocka_unit_test(dc_call_returns_the_value_or_ignores_it_when_not_wanted),
        cmocka_unit_test(dc_call_with_no_parameters_accepts_null_arguments),
        cmocka_unit_test(null_invocation_accessors_give_documented_defaults),
    };
    return cmocka_run_group_tests_name("invocations", tests, NULL, NULL);
}
