/*
 * test_signature.c — signatures (NSMethodSignature): parsing Objective-C type
 * encodings, canonical encodings, interning and reference counting, and the
 * call path each signature picks.
 */
#include "test_support.h"

static dc_signature *create(const char *encoding) {
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create(encoding, &signature));
    assert_non_null(signature);
    return signature;
}

static void assert_canonical(const char *encoding, const char *canonical) {
    dc_signature *signature = create(encoding);
    if (strcmp(dc_signature_encoding(signature), canonical) != 0) {
        fail_msg("\"%s\" gave canonical encoding \"%s\", expected \"%s\"", encoding,
                 dc_signature_encoding(signature), canonical);
    }
    dc_signature_release(signature);
}

static void method_encoding_with_offsets_equals_plain_encoding(void **state) {
    (void)state;
    dc_signature *method = create("v24@0:8B16");
    dc_signature *plain = create("v@:B");
    dc_signature *spelled = create("v@*B");
    const dc_type types[] = {DC_TYPE_OBJECT, DC_TYPE_STRING, DC_TYPE_BOOL};
    dc_signature *from_types = NULL;
    assert_ok(dc_signature_create_with_types(DC_TYPE_VOID, types, 3, &from_types));

    assert_ptr_equal(method, plain);
    assert_ptr_equal(method, spelled);
    assert_ptr_equal(method, from_types);
    assert_string_equal(dc_signature_encoding(method), "v@*B");
    assert_int_equal(dc_signature_return_type(method), DC_TYPE_VOID);
    assert_int_equal(dc_signature_parameter_count(method), 3);

    dc_signature_release(method);
    dc_signature_release(plain);
    dc_signature_release(spelled);
    dc_signature_release(from_types);
}

static void equal_encodings_share_one_interned_signature(void **state) {
    (void)state;
    dc_signature *first = create("q@qd");
    dc_signature *second = create("q@qd");
    dc_signature *with_offsets = create("q32@0q8d16");
    dc_signature *different = create("q@qf");
    assert_ptr_equal(first, second);
    assert_ptr_equal(first, with_offsets);
    assert_ptr_not_equal(first, different);
    dc_signature_release(first);
    dc_signature_release(second);
    dc_signature_release(with_offsets);
    dc_signature_release(different);
}

static void type_array_and_encoding_give_the_same_signature(void **state) {
    (void)state;
    const dc_type types[] = {DC_TYPE_OBJECT, DC_TYPE_INT64, DC_TYPE_DOUBLE};
    dc_signature *from_types = NULL;
    assert_ok(dc_signature_create_with_types(DC_TYPE_INT64, types, ARRAY_COUNT(types),
                                             &from_types));
    dc_signature *from_encoding = create("q@qd");
    assert_ptr_equal(from_types, from_encoding);
    assert_string_equal(dc_signature_encoding(from_types), "q@qd");

    dc_signature *no_parameters = NULL;
    assert_ok(dc_signature_create_with_types(DC_TYPE_VOID, NULL, 0, &no_parameters));
    dc_signature *v = create("v");
    assert_ptr_equal(no_parameters, v);
    assert_int_equal(dc_signature_parameter_count(v), 0);

    dc_signature_release(from_types);
    dc_signature_release(from_encoding);
    dc_signature_release(no_parameters);
    dc_signature_release(v);
}

static void every_type_code_parses_to_its_type(void **state) {
    (void)state;
    static const struct {
        const char *code;
        dc_type type;
    } codes[] = {
        {"B", DC_TYPE_BOOL},    {"c", DC_TYPE_INT8},     {"C", DC_TYPE_UINT8},
        {"s", DC_TYPE_INT16},   {"S", DC_TYPE_UINT16},   {"i", DC_TYPE_INT32},
        {"I", DC_TYPE_UINT32},  {"l", DC_TYPE_INT32},    {"L", DC_TYPE_UINT32},
        {"q", DC_TYPE_INT64},   {"Q", DC_TYPE_UINT64},   {"f", DC_TYPE_FLOAT},
        {"d", DC_TYPE_DOUBLE},  {"@", DC_TYPE_OBJECT},   {"#", DC_TYPE_OBJECT},
        {"@?", DC_TYPE_OBJECT}, {"@\"NSString\"", DC_TYPE_OBJECT},
        {"*", DC_TYPE_STRING},  {":", DC_TYPE_STRING},   {"^v", DC_TYPE_POINTER},
        {"^i", DC_TYPE_POINTER}, {"^^c", DC_TYPE_POINTER}, {"^?", DC_TYPE_POINTER},
        {"^{point=dd}", DC_TYPE_POINTER}, {"^{node=^{node}i}", DC_TYPE_POINTER},
    };
    for (size_t i = 0; i < ARRAY_COUNT(codes); i++) {
        char as_parameter[64];
        char as_return[64];
        snprintf(as_parameter, sizeof as_parameter, "v%s", codes[i].code);
        snprintf(as_return, sizeof as_return, "%s", codes[i].code);

        dc_signature *parameter = create(as_parameter);
        dc_type type = DC_TYPE_VOID;
        assert_int_equal(dc_signature_parameter_count(parameter), 1);
        assert_ok(dc_signature_parameter_type(parameter, 0, &type));
        if (type != codes[i].type) {
            fail_msg("parameter \"%s\" parsed as %s, expected %s", codes[i].code,
                     dc_type_name(type), dc_type_name(codes[i].type));
        }
        dc_signature *returning = create(as_return);
        if (dc_signature_return_type(returning) != codes[i].type) {
            fail_msg("return \"%s\" parsed as %s, expected %s", codes[i].code,
                     dc_type_name(dc_signature_return_type(returning)),
                     dc_type_name(codes[i].type));
        }
        assert_int_equal(dc_signature_parameter_count(returning), 0);
        dc_signature_release(parameter);
        dc_signature_release(returning);
    }
}

static void canonical_encoding_has_one_code_per_type_and_void_pointers(void **state) {
    (void)state;
    assert_canonical("v", "v");
    assert_canonical("v24@0:8B16", "v@*B");
    assert_canonical("v^i^^c^{name=ii}^?", "v^v^v^v^v");
    assert_canonical("ilL#", "ii" "I@");
    assert_canonical("v@?@\"NSString\"", "v@@");
    assert_canonical("c16@0:8", "c@*");
    assert_canonical("BCsSqQfd", "BCsSqQfd");
    /* Qualifiers (const, in, inout, out, bycopy, byref, oneway) are skipped. */
    assert_canonical("Vv@0:8r*16n^i24", "v@**^v");
    assert_canonical("rnNoORVv", "v");
}

static void parameter_types_and_count_are_reported_in_order(void **state) {
    (void)state;
    dc_signature *signature = create("d@qBf*^v");
    const dc_type expected[] = {DC_TYPE_OBJECT, DC_TYPE_INT64, DC_TYPE_BOOL, DC_TYPE_FLOAT,
                                DC_TYPE_STRING, DC_TYPE_POINTER};
    assert_int_equal(dc_signature_return_type(signature), DC_TYPE_DOUBLE);
    assert_int_equal(dc_signature_parameter_count(signature), ARRAY_COUNT(expected));
    for (size_t i = 0; i < ARRAY_COUNT(expected); i++) {
        dc_type type = DC_TYPE_VOID;
        assert_ok(dc_signature_parameter_type(signature, i, &type));
        assert_int_equal(type, expected[i]);
    }
    dc_signature_release(signature);
}

static void maximum_parameter_count_is_accepted(void **state) {
    (void)state;
    char encoding[DC_MAX_PARAMETERS + 2];
    encoding[0] = 'v';
    memset(encoding + 1, '@', DC_MAX_PARAMETERS);
    encoding[DC_MAX_PARAMETERS + 1] = '\0';
    dc_signature *signature = create(encoding);
    assert_int_equal(dc_signature_parameter_count(signature), DC_MAX_PARAMETERS);
    assert_int_equal(dc_signature_call_path(signature), DC_CALL_PATH_FFI);

    /* The longest canonical encoding: every parameter a pointer ("^v"). */
    char pointers[2 * DC_MAX_PARAMETERS + 3] = "^v";
    for (int i = 0; i < DC_MAX_PARAMETERS; i++) {
        strcat(pointers, "^i");
    }
    dc_signature *all_pointers = create(pointers);
    assert_int_equal(strlen(dc_signature_encoding(all_pointers)), 2 * DC_MAX_PARAMETERS + 2);
    assert_int_equal(dc_signature_parameter_count(all_pointers), DC_MAX_PARAMETERS);
    dc_signature_release(signature);
    dc_signature_release(all_pointers);
}

static void retain_returns_the_signature_and_each_reference_is_released(void **state) {
    (void)state;
    dc_signature *signature = create("v@B");
    assert_ptr_equal(dc_signature_retain(signature), signature);
    dc_signature *again = create("v@B");
    assert_ptr_equal(again, signature);

    /* Three references; after giving back two the signature is still whole. */
    dc_signature_release(signature);
    dc_signature_release(again);
    assert_string_equal(dc_signature_encoding(signature), "v@B");
    assert_int_equal(dc_signature_parameter_count(signature), 2);
    dc_signature_release(signature);

    /* After the last release, the encoding creates a working signature again. */
    dc_signature *fresh = create("v@B");
    assert_string_equal(dc_signature_encoding(fresh), "v@B");
    dc_signature_release(fresh);
}

static void many_distinct_signatures_intern_and_release_cleanly(void **state) {
    (void)state;
    static const char codes[] = "BcCsSiIqQfd@*";
    dc_signature *signatures[13][13];
    for (size_t r = 0; r < 13; r++) {
        for (size_t p = 0; p < 13; p++) {
            char encoding[4] = {codes[r], codes[p], codes[(r + p) % 13], '\0'};
            signatures[r][p] = create(encoding);
        }
    }
    for (size_t r = 0; r < 13; r++) {
        for (size_t p = 0; p < 13; p++) {
            char encoding[4] = {codes[r], codes[p], codes[(r + p) % 13], '\0'};
            dc_signature *again = create(encoding);
            assert_ptr_equal(again, signatures[r][p]);
            assert_string_equal(dc_signature_encoding(again), encoding);
            dc_signature_release(again);
            dc_signature_release(signatures[r][p]);
        }
    }
}

static void retain_and_release_of_null_do_nothing(void **state) {
    (void)state;
    assert_null(dc_signature_retain(NULL));
    dc_signature_release(NULL);
}

static void null_signature_accessors_give_documented_defaults(void **state) {
    (void)state;
    assert_int_equal(dc_signature_return_type(NULL), DC_TYPE_VOID);
    assert_int_equal(dc_signature_parameter_count(NULL), 0);
    assert_string_equal(dc_signature_encoding(NULL), "");
    assert_int_equal(dc_signature_call_path(NULL), DC_CALL_PATH_FFI);
}

static void register_sized_signatures_take_the_stub_path(void **state) {
    (void)state;
    const char *const stub_encodings[] = {"v", "v@", "v@B", "q@qd", "d", "f", "ff", "*^v",
                                          "Bcsiq", "dddddd", "v@:B", "Q@:qqqq"};
    for (size_t i = 0; i < ARRAY_COUNT(stub_encodings); i++) {
        dc_signature *signature = create(stub_encodings[i]);
        if (dc_signature_call_path(signature) != DC_TEST_STUB_PATH) {
            fail_msg("\"%s\" takes path %d, expected %d", stub_encodings[i],
                     (int)dc_signature_call_path(signature), (int)DC_TEST_STUB_PATH);
        }
        dc_signature_release(signature);
    }
    /* Seven integer-class parameters no longer fit the argument registers. */
    dc_signature *seven = create("vqqqqqqq");
    assert_int_equal(dc_signature_call_path(seven), DC_CALL_PATH_FFI);
    dc_signature_release(seven);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(method_encoding_with_offsets_equals_plain_encoding),
        cmocka_unit_test(equal_encodings_share_one_interned_signature),
        cmocka_unit_test(type_array_and_encoding_give_the_same_signature),
        cmocka_unit_test(every_type_code_parses_to_its_type),
        cmocka_unit_test(canonical_encoding_has_one_code_per_type_and_void_pointers),
        cmocka_unit_test(parameter_types_and_count_are_reported_in_order),
        cmocka_unit_test(maximum_parameter_count_is_accepted),
        cmocka_unit_test(retain_returns_the_signature_and_each_reference_is_released),
        cmocka_unit_test(many_distinct_signatures_intern_and_release_cleanly),
        cmocka_unit_test(retain_and_release_of_null_do_nothing),
        cmocka_unit_test(null_signature_accessors_give_documented_defaults),
        cmocka_unit_test(register_sized_signatures_take_the_stub_path),
    };
    return cmocka_run_group_tests_name("signatures", tests, NULL, NULL);
}
