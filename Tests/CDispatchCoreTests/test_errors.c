/*
 * test_errors.c — bad input is reported, never crashes: malformed encodings,
 * NULL handles and functions, out-of-range indices and type mismatches each
 * give their status and a message of their own naming what was wrong, leave
 * outputs unchanged, and call nothing. Also the status and type name tables and
 * the per-thread error message.
 */
#include "test_support.h"

#include <pthread.h>

static int calls;

CALLEE static int64_t counted_scale(void *object, int64_t count, double factor) {
    calls++;
    return (int64_t)(count * factor) + (object != NULL ? 1 : 0);
}

CALLEE static void counted_void(void) { calls++; }

/* An address no call may write to the output it is given on failure. */
static int untouched_marker;
#define UNTOUCHED_SIGNATURE ((dc_signature *)(void *)&untouched_marker)
#define UNTOUCHED_INVOCATION ((dc_invocation *)(void *)&untouched_marker)

/* The text of a macro's value: the limit the messages name. */
#define TEXT_OF_VALUE(x) #x
#define TEXT_OF(x) TEXT_OF_VALUE(x)

/* ---- malformed encodings ------------------------------------------------------ */

static void every_malformed_encoding_is_rejected_with_its_position(void **state) {
    (void)state;
    char too_many[DC_MAX_PARAMETERS + 3];
    too_many[0] = 'v';
    memset(too_many + 1, 'q', DC_MAX_PARAMETERS + 1);
    too_many[DC_MAX_PARAMETERS + 2] = '\0';

    static const struct {
        const char *encoding;
        const char *needle; /* what the message must mention */
        const char *why;
        dc_status status; /* DC_ERR_BAD_SIGNATURE when 0 */
    } malformed[] = {
        {"", "empty", "empty string", 0},
        {"v@x", "x", "unknown code", 0},
        {"v@x", "2|3", "position of the unknown code", 0},
        {"Z", "Z", "unknown return code", 0},
        {"v^", "^", "dangling ^ as last parameter", 0},
        {"v^", "1|2", "position of the dangling ^", 0},
        {"^", "^", "dangling ^ as return type", 0},
        {"vv", "void", "void as a parameter", 0},
        {"vq@v", "3|4|2", "position of void as a parameter", 0},
        {"v{S=ii", "unterminated|position 1", "unterminated struct", 0},
        {"v{S=}", "empty|position 1", "struct without fields", 0},
        {"v{S}", "opaque|position 1", "struct without its field list", 0},
        {"{S=iv}", "void|position 5", "void as a field", 0},
        {"v{S=i[0c]}", "count|position 5", "array of no elements", 0},
        {"v{S=i[2c}", "]|position 8", "array without its ]", 0},
        {"v{S=\"x\"}", "name without|position 7", "field name without a type", 0},
        {"v(U=ic)", "union|position 1", "union by value", DC_ERR_UNSUPPORTED},
        {"v{S=i(U=ic)}", "union|position 5", "union inside a struct", DC_ERR_UNSUPPORTED},
        {"v[4i]", "array|[", "array by value", 0},
        {"vb4", "bit|position 1", "bit-field", DC_ERR_UNSUPPORTED},
        {"v{S=ib4}", "bit|position 5", "bit-field inside a struct", DC_ERR_UNSUPPORTED},
        {"vjc", "complex|position 1", "a complex integer, which libffi cannot pass", 0},
        {"vj", "complex|position 1", "a complex type without its part", 0},
        {"v^{S=ii", "{|unterminated|end", "unterminated struct after ^", 0},
        {"v@\"NSString", "\"|unterminated|end", "unterminated class name", 0},
    };
    for (size_t i = 0; i < ARRAY_COUNT(malformed); i++) {
        dc_signature *signature = UNTOUCHED_SIGNATURE;
        dc_status status = dc_signature_create(malformed[i].encoding, &signature);
        dc_status expected = malformed[i].status != 0 ? malformed[i].status : DC_ERR_BAD_SIGNATURE;
        if (status != expected) {
            fail_msg("\"%s\" (%s) gave %s, expected %s", malformed[i].encoding, malformed[i].why,
                     dc_status_name(status), dc_status_name(expected));
        }
        const char *message = dc_last_error_message();
        if (message[0] == '\0' || !dc_test_message_mentions(message, malformed[i].needle)) {
            fail_msg("\"%s\" (%s): message \"%s\" does not mention \"%s\"",
                     malformed[i].encoding, malformed[i].why, message, malformed[i].needle);
        }
        assert_ptr_equal(signature, UNTOUCHED_SIGNATURE);
    }

    dc_signature *signature = UNTOUCHED_SIGNATURE;
    assert_failure(dc_signature_create(too_many, &signature), DC_ERR_BAD_SIGNATURE,
                   TEXT_OF(DC_MAX_PARAMETERS));
    assert_ptr_equal(signature, UNTOUCHED_SIGNATURE);
}

static void malformed_type_arrays_are_rejected_naming_the_index(void **state) {
    (void)state;
    dc_signature *signature = UNTOUCHED_SIGNATURE;
    const dc_type void_parameter[] = {DC_TYPE_INT64, DC_TYPE_VOID};
    assert_failure(dc_signature_create_with_types(DC_TYPE_VOID, void_parameter, 2, &signature),
                   DC_ERR_BAD_SIGNATURE, "void", "1");
    const dc_type out_of_range[] = {DC_TYPE_INT64, DC_TYPE_BOOL, (dc_type)DC_TYPE_COUNT};
    assert_failure(dc_signature_create_with_types(DC_TYPE_VOID, out_of_range, 3, &signature),
                   DC_ERR_BAD_SIGNATURE, "2");
    const dc_type negative[] = {(dc_type)-1};
    assert_failure(dc_signature_create_with_types(DC_TYPE_VOID, negative, 1, &signature),
                   DC_ERR_BAD_SIGNATURE, "0");
    assert_failure(dc_signature_create_with_types((dc_type)99, NULL, 0, &signature),
                   DC_ERR_BAD_SIGNATURE, "return");

    dc_type many[DC_MAX_PARAMETERS + 1];
    for (size_t i = 0; i < ARRAY_COUNT(many); i++) {
        many[i] = DC_TYPE_INT32;
    }
    assert_failure(dc_signature_create_with_types(DC_TYPE_VOID, many, ARRAY_COUNT(many),
                                                  &signature),
                   DC_ERR_BAD_SIGNATURE, TEXT_OF(DC_MAX_PARAMETERS));
    assert_ptr_equal(signature, UNTOUCHED_SIGNATURE);
}

/* ---- NULL handles -------------------------------------------------------------------- */

static void null_arguments_to_signature_functions_are_reported(void **state) {
    (void)state;
    dc_signature *signature = UNTOUCHED_SIGNATURE;
    assert_failure(dc_signature_create(NULL, &signature), DC_ERR_NULL_ARGUMENT, "encoding");
    assert_ptr_equal(signature, UNTOUCHED_SIGNATURE);
    assert_failure(dc_signature_create("v@B", NULL), DC_ERR_NULL_ARGUMENT, "out");
    assert_failure(dc_signature_create_with_types(DC_TYPE_VOID, NULL, 2, &signature),
                   DC_ERR_NULL_ARGUMENT, "type");
    assert_failure(dc_signature_create_with_types(DC_TYPE_VOID, NULL, 0, NULL),
                   DC_ERR_NULL_ARGUMENT, "out");
    assert_ptr_equal(signature, UNTOUCHED_SIGNATURE);

    dc_type type = DC_TYPE_DOUBLE;
    assert_failure(dc_signature_parameter_type(NULL, 0, &type), DC_ERR_NULL_ARGUMENT,
                   "signature");
    assert_int_equal(type, DC_TYPE_DOUBLE);
    dc_signature *real = create_signature("v@B");
    assert_failure(dc_signature_parameter_type(real, 0, NULL), DC_ERR_NULL_ARGUMENT, "out");
    dc_signature_release(real);
}

static void null_arguments_to_invocation_functions_are_reported(void **state) {
    (void)state;
    dc_signature *signature = create_signature("q@qd");
    dc_invocation *invocation = UNTOUCHED_INVOCATION;
    assert_failure(dc_invocation_create(NULL, DC_FUNCTION(counted_scale), &invocation),
                   DC_ERR_NULL_ARGUMENT, "signature");
    assert_failure(dc_invocation_create(signature, NULL, &invocation), DC_ERR_NULL_ARGUMENT,
                   "function");
    assert_failure(dc_invocation_create(signature, DC_FUNCTION(counted_scale), NULL),
                   DC_ERR_NULL_ARGUMENT, "out");
    assert_ptr_equal(invocation, UNTOUCHED_INVOCATION);

    assert_ok(dc_invocation_create(signature, DC_FUNCTION(counted_scale), &invocation));
    dc_value value = dc_int64(5);
    assert_failure(dc_invocation_set_argument(NULL, 1, &value), DC_ERR_NULL_ARGUMENT,
                   "invocation");
    assert_failure(dc_invocation_set_argument(invocation, 1, NULL), DC_ERR_NULL_ARGUMENT,
                   "value");
    assert_failure(dc_invocation_get_argument(NULL, 1, &value), DC_ERR_NULL_ARGUMENT,
                   "invocation");
    assert_failure(dc_invocation_get_argument(invocation, 1, NULL), DC_ERR_NULL_ARGUMENT,
                   "out");
    assert_value_equal(dc_int64(5), value, "output after failed get_argument");
    assert_failure(dc_invocation_set_call_path(NULL, DC_CALL_PATH_FFI), DC_ERR_NULL_ARGUMENT,
                   "invocation");
    calls = 0;
    assert_failure(dc_invocation_invoke(NULL), DC_ERR_NULL_ARGUMENT, "invocation");
    assert_int_equal(calls, 0);
    assert_ok(dc_invocation_invoke(invocation));
    assert_failure(dc_invocation_get_return_value(NULL, &value), DC_ERR_NULL_ARGUMENT,
                   "invocation");
    assert_failure(dc_invocation_get_return_value(invocation, NULL), DC_ERR_NULL_ARGUMENT,
                   "out");
    assert_value_equal(dc_int64(5), value, "output after failed get_return_value");
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);
}

static void null_arguments_to_dc_call_are_reported_and_nothing_is_called(void **state) {
    (void)state;
    dc_signature *signature = create_signature("q@qd");
    const dc_value arguments[] = {dc_object(NULL), dc_int64(1), dc_double(1.0)};
    dc_value result = dc_int8(42);
    calls = 0;
    assert_failure(dc_call(NULL, DC_FUNCTION(counted_scale), arguments, 3, &result),
                   DC_ERR_NULL_ARGUMENT, "signature");
    assert_failure(dc_call(signature, NULL, arguments, 3, &result), DC_ERR_NULL_ARGUMENT,
                   "function");
    assert_failure(dc_call(signature, DC_FUNCTION(counted_scale), NULL, 3, &result),
                   DC_ERR_NULL_ARGUMENT, "argument");
    assert_int_equal(calls, 0);
    assert_value_equal(dc_int8(42), result, "return value after failed dc_call");
    dc_signature_release(signature);
}

static void null_value_to_convert_is_reported(void **state) {
    (void)state;
    dc_value value = dc_int64(1);
    dc_value out = dc_bool(true);
    assert_failure(dc_value_convert(NULL, DC_TYPE_INT64, &out), DC_ERR_NULL_ARGUMENT, "value");
    assert_failure(dc_value_convert(&value, DC_TYPE_INT64, NULL), DC_ERR_NULL_ARGUMENT, "out");
    assert_value_equal(dc_bool(true), out, "output after failed convert");
}

/* ---- indices ------------------------------------------------------------------------------ */

static void out_of_range_indices_are_reported_naming_the_index(void **state) {
    (void)state;
    dc_signature *signature = create_signature("q@qd");
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, DC_FUNCTION(counted_scale), &invocation));

    dc_value value = dc_int64(7);
    assert_failure(dc_invocation_set_argument(invocation, 3, &value), DC_ERR_INDEX, "3");
    assert_failure(dc_invocation_set_argument(invocation, SIZE_MAX, &value), DC_ERR_INDEX,
                   "index");
    assert_failure(dc_invocation_get_argument(invocation, 99, &value), DC_ERR_INDEX, "99");
    assert_value_equal(dc_int64(7), value, "output after out-of-range get_argument");

    dc_type type = DC_TYPE_BOOL;
    assert_failure(dc_signature_parameter_type(signature, 3, &type), DC_ERR_INDEX, "3");
    assert_int_equal(type, DC_TYPE_BOOL);

    dc_signature *none = create_signature("v");
    assert_failure(dc_signature_parameter_type(none, 0, &type), DC_ERR_INDEX, "0");
    dc_signature_release(none);

    dc_invocation_destroy(invocation);
    dc_signature_release(signature);
}

/* ---- type mismatches and arity ------------------------------------------------------------ */

static void mismatched_argument_names_index_and_both_types(void **state) {
    (void)state;
    dc_signature *signature = create_signature("q@qd");
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, DC_FUNCTION(counted_scale), &invocation));
    assert_failure(dc_invocation_set_argument(invocation, 1, VALUE(dc_bool(true))), DC_ERR_TYPE,
                   "1", dc_type_name(DC_TYPE_BOOL), dc_type_name(DC_TYPE_INT64));
    assert_failure(dc_invocation_set_argument(invocation, 2, VALUE(dc_int64(2))), DC_ERR_TYPE,
                   "2", dc_type_name(DC_TYPE_INT64), dc_type_name(DC_TYPE_DOUBLE));
    char text[] = "text";
    assert_failure(dc_invocation_set_argument(invocation, 0, VALUE(dc_string(text))),
                   DC_ERR_TYPE, "0", dc_type_name(DC_TYPE_STRING),
                   dc_type_name(DC_TYPE_OBJECT));
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);
}

static void dc_call_with_a_mismatched_argument_calls_nothing(void **state) {
    (void)state;
    dc_signature *signature = create_signature("q@qd");
    char text[] = "not a double";
    const dc_value wrong_last[] = {dc_object(NULL), dc_int64(1), dc_string(text)};
    const dc_value out_of_range[] = {dc_object(NULL), dc_uint64(UINT64_MAX), dc_double(1)};
    dc_value result = dc_int8(42);
    calls = 0;
    assert_failure(dc_call(signature, DC_FUNCTION(counted_scale), wrong_last, 3, &result),
                   DC_ERR_TYPE, "2", dc_type_name(DC_TYPE_STRING),
                   dc_type_name(DC_TYPE_DOUBLE));
    assert_failure(dc_call(signature, DC_FUNCTION(counted_scale), out_of_range, 3, &result),
                   DC_ERR_TYPE, "1", dc_type_name(DC_TYPE_UINT64), dc_type_name(DC_TYPE_INT64),
                   "18446744073709551615");
    assert_int_equal(calls, 0);
    assert_value_equal(dc_int8(42), result, "return value after DC_ERR_TYPE");
    dc_signature_release(signature);
}

static void dc_call_with_the_wrong_argument_count_calls_nothing(void **state) {
    (void)state;
    dc_signature *signature = create_signature("q@qd");
    const dc_value arguments[] = {dc_object(NULL), dc_int64(1), dc_double(1.0), dc_int64(9)};
    dc_value result = dc_int8(42);
    calls = 0;
    assert_failure(dc_call(signature, DC_FUNCTION(counted_scale), arguments, 2, &result),
                   DC_ERR_ARITY, "2", "3");
    assert_failure(dc_call(signature, DC_FUNCTION(counted_scale), arguments, 4, &result),
                   DC_ERR_ARITY, "4", "3");
    dc_signature *none = create_signature("v");
    assert_failure(dc_call(none, DC_FUNCTION(counted_void), arguments, 1, NULL), DC_ERR_ARITY,
                   "1", "0");
    assert_int_equal(calls, 0);
    assert_value_equal(dc_int8(42), result, "return value after DC_ERR_ARITY");
    dc_signature_release(none);
    dc_signature_release(signature);
}

/* ---- names -------------------------------------------------------------------------------- */

static void every_status_has_its_name_and_description(void **state) {
    (void)state;
    static const struct {
        dc_status status;
        const char *name;
        const char *text;
    } statuses[] = {
#define STATUS_ENTRY(name, text) {name, #name, text},
        DC_STATUS_LIST(STATUS_ENTRY)
#undef STATUS_ENTRY
    };
    assert_int_equal(ARRAY_COUNT(statuses), DC_STATUS_COUNT);
    assert_int_equal(DC_OK, 0);
    for (size_t i = 0; i < ARRAY_COUNT(statuses); i++) {
        assert_int_equal(statuses[i].status, (dc_status)i);
        assert_string_equal(dc_status_string(statuses[i].status), statuses[i].text);
        assert_string_equal(dc_status_name(statuses[i].status), statuses[i].name);
    }
    const dc_status unknown[] = {DC_STATUS_COUNT, (dc_status)-1, (dc_status)1000};
    for (size_t i = 0; i < ARRAY_COUNT(unknown); i++) {
        assert_string_equal(dc_status_string(unknown[i]), "unknown status");
        assert_string_equal(dc_status_name(unknown[i]), "DC_UNKNOWN");
    }
}

static void every_type_has_a_distinct_name_and_encoding(void **state) {
    (void)state;
    for (int a = 0; a < DC_TYPE_COUNT; a++) {
        const char *name = dc_type_name((dc_type)a);
        assert_non_null(name);
        assert_string_not_equal(name, "invalid");
        assert_true(dc_type_encoding((dc_type)a) != '\0');
        for (int b = a + 1; b < DC_TYPE_COUNT; b++) {
            assert_string_not_equal(name, dc_type_name((dc_type)b));
            /* The complex types share 'j', their canonical encodings' first character. */
            if (dc_type_encoding((dc_type)a) != 'j')
                assert_true(dc_type_encoding((dc_type)a) != dc_type_encoding((dc_type)b));
        }
    }
    assert_string_equal(dc_type_name(DC_TYPE_INT64), "int64");
    assert_string_equal(dc_type_name(DC_TYPE_DOUBLE), "double");
    assert_string_equal(dc_type_name(DC_TYPE_OBJECT), "object");
    const char codes[] = "vBcCsSiIqQfd@^*{Djjj";
    for (int type = 0; type < DC_TYPE_COUNT; type++) {
        assert_int_equal(dc_type_encoding((dc_type)type), codes[type]);
    }
    assert_string_equal(dc_type_name(DC_TYPE_COUNT), "invalid");
    assert_string_equal(dc_type_name((dc_type)-1), "invalid");
    assert_int_equal(dc_type_encoding(DC_TYPE_COUNT), '\0');
    assert_int_equal(dc_type_encoding((dc_type)-1), '\0');
}

/* ---- the per-thread message -------------------------------------------------------------- */

/* Copies the new thread's message out before the thread (and its message) ends. */
static void *read_message_on_fresh_thread(void *context) {
    snprintf((char *)context, 512, "%s", dc_last_error_message());
    return NULL;
}

static void *fail_on_other_thread(void *context) {
    (void)context;
    dc_signature *signature = NULL;
    dc_signature_create("v?", &signature);
    return NULL;
}

static void error_message_is_per_thread_and_empty_before_any_failure(void **state) {
    (void)state;
    pthread_t thread;
    char fresh[512] = "not read";
    assert_int_equal(pthread_create(&thread, NULL, read_message_on_fresh_thread, fresh), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_string_equal(fresh, "");

    dc_signature *signature = NULL;
    assert_status(dc_signature_create("v@x", &signature), DC_ERR_BAD_SIGNATURE);
    char mine[512];
    snprintf(mine, sizeof mine, "%s", dc_last_error_message());
    assert_int_equal(pthread_create(&thread, NULL, fail_on_other_thread, NULL), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_string_equal(dc_last_error_message(), mine);

    /* A successful call leaves the last failure's message in place. */
    signature = create_signature("v");
    dc_signature_release(signature);
    assert_string_equal(dc_last_error_message(), mine);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_malformed_encoding_is_rejected_with_its_position),
        cmocka_unit_test(malformed_type_arrays_are_rejected_naming_the_index),
        cmocka_unit_test(null_arguments_to_signature_functions_are_reported),
        cmocka_unit_test(null_arguments_to_invocation_functions_are_reported),
        cmocka_unit_test(null_arguments_to_dc_call_are_reported_and_nothing_is_called),
        cmocka_unit_test(null_value_to_convert_is_reported),
        cmocka_unit_test(out_of_range_indices_are_reported_naming_the_index),
        cmocka_unit_test(mismatched_argument_names_index_and_both_types),
        cmocka_unit_test(dc_call_with_a_mismatched_argument_calls_nothing),
        cmocka_unit_test(dc_call_with_the_wrong_argument_count_calls_nothing),
        cmocka_unit_test(every_status_has_its_name_and_description),
        cmocka_unit_test(every_type_has_a_distinct_name_and_encoding),
        cmocka_unit_test(error_message_is_per_thread_and_empty_before_any_failure),
    };
    return cmocka_run_group_tests_name("errors", tests, NULL, NULL);
}
