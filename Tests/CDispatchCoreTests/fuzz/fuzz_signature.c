/*
 * fuzz_signature.c — the type-encoding parser on arbitrary bytes.
 *
 * The input, cut at its first NUL, is an encoding. dc_signature_create either
 * fails with DC_ERR_BAD_SIGNATURE, a message of its own and *out untouched, or
 * gives a signature whose every property holds:
 *  - its types are valid dc_types, void only as the return type, at most
 *    DC_MAX_PARAMETERS parameters, and an index past the last is DC_ERR_INDEX;
 *  - its canonical encoding is one code per type ("^v" for a pointer) and
 *    parses back to the very same interned signature, as do the same types
 *    given to dc_signature_create_with_types;
 *  - its call path is one of the two, and an invocation of it stores and reads
 *    back a value of every parameter type, rejects the index past the last and
 *    has no return value before it is invoked. (Nothing is invoked: no real
 *    function has an arbitrary signature.)
 */
#include "fuzz_support.h"

/* Never called: invocations are created, filled and destroyed, not invoked. */
static void never_called(void) { abort(); }

static int untouched_marker;
#define UNTOUCHED ((dc_signature *)(void *)&untouched_marker)

/* A value of `type` that is not zero, so a stored value is told from a fresh one. */
static dc_value sample_value(dc_type type, unsigned index) {
    static char text[] = "sample";
    dc_value value = fuzz_zero(type);
    switch (type) {
    case DC_TYPE_BOOL: value.b = true; break;
    case DC_TYPE_INT8: value.i8 = (int8_t)(-1 - (int)index); break;
    case DC_TYPE_UINT8: value.u8 = (uint8_t)(200 + index); break;
    case DC_TYPE_INT16: value.i16 = (int16_t)(-300 - (int)index); break;
    case DC_TYPE_UINT16: value.u16 = (uint16_t)(60000 + index); break;
    case DC_TYPE_INT32: value.i32 = -70000 - (int32_t)index; break;
    case DC_TYPE_UINT32: value.u32 = 4000000000u + index; break;
    case DC_TYPE_INT64: value.i64 = INT64_MIN + index; break;
    case DC_TYPE_UINT64: value.u64 = UINT64_MAX - index; break;
    case DC_TYPE_FLOAT: value.f = 1.5f + (float)index; break;
    case DC_TYPE_DOUBLE: value.d = -2.25 - index; break;
    case DC_TYPE_OBJECT: value.object = &untouched_marker; break;
    case DC_TYPE_POINTER: value.pointer = text + (index % 4); break;
    case DC_TYPE_STRING: value.string = text; break;
    default: break;
    }
    return value;
}

static void check_canonical_encoding(const char *canonical, dc_type return_type, const dc_type *types,
                                     size_t count) {
    const char *at = canonical;
    for (size_t i = 0; i <= count; i++) {
        dc_type type = i == 0 ? return_type : types[i - 1];
        FUZZ_CHECK(*at == dc_type_encoding(type), "canonical \"%s\": type %zu is %s, code '%c'", canonical, i,
                   dc_type_name(type), *at);
        at++;
        if (type == DC_TYPE_POINTER) {
            FUZZ_CHECK(*at == 'v', "canonical \"%s\": a pointer is not written \"^v\"", canonical);
            at++;
        }
    }
    FUZZ_CHECK(*at == '\0', "canonical \"%s\" has more than its %zu types", canonical, count + 1);
}

static void check_invocation(dc_signature *signature, const dc_type *types, size_t count) {
    dc_invocation *invocation = NULL;
    FUZZ_CHECK(dc_invocation_create(signature, never_called, &invocation) == DC_OK && invocation != NULL,
               "no invocation for \"%s\"", dc_signature_encoding(signature));
    FUZZ_CHECK(dc_invocation_signature(invocation) == signature, "invocation lost its signature");
    FUZZ_CHECK(dc_invocation_call_path(invocation) == dc_signature_call_path(signature),
               "invocation of \"%s\" takes another path than its signature", dc_signature_encoding(signature));

    for (size_t i = 0; i < count; i++) {
        dc_value fresh;
        FUZZ_CHECK(dc_invocation_get_argument(invocation, i, &fresh) == DC_OK, "argument %zu unreadable", i);
        FUZZ_CHECK(dc_test_values_equal(fresh, fuzz_zero(types[i])), "argument %zu does not start as zero", i);
        dc_value value = sample_value(types[i], (unsigned)i), back;
        FUZZ_CHECK(dc_invocation_set_argument(invocation, i, &value) == DC_OK, "argument %zu rejects its own type",
                   i);
        FUZZ_CHECK(dc_invocation_get_argument(invocation, i, &back) == DC_OK && dc_test_values_equal(back, value),
                   "argument %zu does not read back", i);
    }

    const char *primed = fuzz_prime_message();
    dc_value out = dc_int32(12345), value = dc_int32(1);
    dc_status status = dc_invocation_set_argument(invocation, count, &value);
    FUZZ_CHECK(status == DC_ERR_INDEX, "set_argument past the last gave %s", dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, "dc_invocation_set_argument");
    primed = fuzz_prime_message();
    status = dc_invocation_get_argument(invocation, count, &out);
    FUZZ_CHECK(status == DC_ERR_INDEX && out.type == DC_TYPE_INT32 && out.i32 == 12345,
               "get_argument past the last gave %s", dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, "dc_invocation_get_argument");
    primed = fuzz_prime_message();
    status = dc_invocation_get_return_value(invocation, &out);
    FUZZ_CHECK(status == DC_ERR_NOT_INVOKED && out.i32 == 12345, "return value before invoke gave %s",
               dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, "dc_invocation_get_return_value");

    FUZZ_CHECK(dc_invocation_set_call_path(invocation, DC_CALL_PATH_FFI) == DC_OK, "the libffi path is refused");
    status = dc_invocation_set_call_path(invocation, DC_CALL_PATH_STUB);
    if (dc_signature_call_path(signature) == DC_CALL_PATH_STUB)
        FUZZ_CHECK(status == DC_OK, "the stub path is refused to a stub signature");
    else
        FUZZ_CHECK(status == DC_ERR_UNSUPPORTED, "the stub path for a libffi signature gave %s",
                   dc_status_name(status));
    dc_invocation_destroy(invocation);
}

static void check_signature(dc_signature *signature, const char *encoding) {
    dc_type return_type = dc_signature_return_type(signature);
    size_t count = dc_signature_parameter_count(signature);
    FUZZ_CHECK((unsigned)return_type < DC_TYPE_COUNT, "\"%s\": return type %d", encoding, (int)return_type);
    FUZZ_CHECK(count <= DC_MAX_PARAMETERS, "\"%s\": %zu parameters", encoding, count);
    FUZZ_CHECK(count < strlen(encoding), "\"%s\": %zu parameters from so few characters", encoding, count);

    dc_type types[DC_MAX_PARAMETERS];
    for (size_t i = 0; i < count; i++) {
        FUZZ_CHECK(dc_signature_parameter_type(signature, i, &types[i]) == DC_OK, "parameter %zu unreadable", i);
        FUZZ_CHECK((unsigned)types[i] < DC_TYPE_COUNT && types[i] != DC_TYPE_VOID, "\"%s\": parameter %zu is %d",
                   encoding, i, (int)types[i]);
    }
    dc_type past = DC_TYPE_COUNT;
    const char *primed = fuzz_prime_message();
    dc_status status = dc_signature_parameter_type(signature, count, &past);
    FUZZ_CHECK(status == DC_ERR_INDEX && past == DC_TYPE_COUNT, "parameter past the last gave %s",
               dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, "dc_signature_parameter_type");

    dc_call_path path = dc_signature_call_path(signature);
    FUZZ_CHECK(path == DC_CALL_PATH_STUB || path == DC_CALL_PATH_FFI, "call path %d", (int)path);

    const char *canonical = dc_signature_encoding(signature);
    check_canonical_encoding(canonical, return_type, types, count);

    dc_signature *again = NULL;
    FUZZ_CHECK(dc_signature_create(canonical, &again) == DC_OK, "canonical \"%s\" of \"%s\" does not parse",
               canonical, encoding);
    FUZZ_CHECK(again == signature, "canonical \"%s\" of \"%s\" gives another signature", canonical, encoding);
    dc_signature *from_types = NULL;
    FUZZ_CHECK(dc_signature_create_with_types(return_type, types, count, &from_types) == DC_OK,
               "the types of \"%s\" are refused", encoding);
    FUZZ_CHECK(from_types == signature, "the types of \"%s\" give another signature", encoding);
    FUZZ_CHECK(dc_signature_retain(from_types) == signature, "retain returns another signature");

    check_invocation(signature, types, count);

    dc_signature_release(from_types);
    dc_signature_release(from_types);
    dc_signature_release(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *encoding = malloc(size + 1);
    if (encoding == NULL) return 0;
    memcpy(encoding, data, size);
    encoding[size] = '\0';

    dc_signature *signature = UNTOUCHED;
    const char *primed = fuzz_prime_message();
    dc_status status = dc_signature_create(encoding, &signature);
    if (status == DC_OK) {
        FUZZ_CHECK(signature != NULL && signature != UNTOUCHED, "DC_OK without a signature for \"%s\"", encoding);
        check_signature(signature, encoding);
        dc_signature_release(signature);
    } else {
        FUZZ_CHECK(status == DC_ERR_BAD_SIGNATURE, "\"%s\" gave %s", encoding, dc_status_name(status));
        FUZZ_CHECK(signature == UNTOUCHED, "\"%s\" failed but wrote *out", encoding);
        FUZZ_CHECK_FAILURE(status, primed, "dc_signature_create");
    }
    free(encoding);
    return 0;
}
