/*
 * fuzz_signature.c — the type-encoding parser on arbitrary bytes, checked
 * against a model of the grammar written from dispatch_core.h
 * (encoding_model.h).
 *
 * The input picks the call: a first byte from 0x01 to 0x21 asks for
 * dc_signature_create_variadic of the rest with fixed_count = byte - 1 (0 to
 * 32); any other first byte makes the whole input an encoding for
 * dc_signature_create. The encoding is cut at its first NUL.
 *
 * The library must give the model's status (DC_OK, DC_ERR_BAD_SIGNATURE or
 * DC_ERR_UNSUPPORTED). A refusal leaves *out untouched and a message of its
 * own. An accepted signature must have:
 *  - the model's return and parameter types (an index past the last is
 *    DC_ERR_INDEX), canonical encoding ("..." where a variadic part starts),
 *    variadic flag, fixed count and frame size;
 *  - the model's layouts: the return's, every parameter's (past the last,
 *    DC_ERR_INDEX) and, through dc_layout_field, every field of every struct
 *    (of an array of structs: its element's), each with the same type, size,
 *    alignment, count, offset, field count and encoding; dc_layout_field on
 *    anything else is DC_ERR_INVALID_ARGUMENT, past the last field DC_ERR_INDEX;
 *  - a call path of the two, libffi's for a variadic signature or one with a
 *    struct;
 *  - a canonical encoding that parses back to the very same interned
 *    signature (variadic: without the "...", with the same fixed count, while
 *    the plain signature of that encoding is another one), as do its types
 *    given to dc_signature_create_with_types when it has no struct;
 *  - invocations that store and read back a value of every parameter type (a
 *    struct's distinct bytes, copied in), reject the index past the last and
 *    have no return value before they are invoked. (Nothing is invoked: no
 *    real function has an arbitrary signature.)
 */
#include "fuzz_support.h"
#include "encoding_model.h"

/* The most '^' in a row the header allows ("pointers to pointers chain at
 * most 65"). */
#define POINTER_CHAIN_LIMIT 65

/* Never called: invocations are created, filled and destroyed, not invoked. */
static void never_called(void) { abort(); }

static int untouched_marker;
#define UNTOUCHED ((dc_signature *)(void *)&untouched_marker)

/* What one input asks for, and how messages name it. */
typedef struct subject {
    const char *encoding;
    bool variadic;
    size_t fixed_count;
    const char *name; /* "\"v{S=i}\"" or "\"vi\" (variadic, 1 fixed)", bytes escaped */
} subject;

static char *describe_subject(const char *encoding, bool variadic, size_t fixed_count) {
    size_t length = strlen(encoding);
    char *name = malloc(4 * length + 48);
    if (name == NULL) abort();
    char *at = name;
    *at++ = '"';
    for (const unsigned char *c = (const unsigned char *)encoding; *c != '\0'; c++) {
        if (*c >= 0x20 && *c < 0x7f && *c != '\\')
            *at++ = (char)*c;
        else
            at += sprintf(at, "\\x%02x", *c);
    }
    *at++ = '"';
    *at = '\0';
    if (variadic) sprintf(at, " (variadic, %zu fixed)", fixed_count);
    return name;
}

/* ---- refusals ---------------------------------------------------------------------- */

/* The model's answer for messages: "DC_OK" or "DC_ERR_UNSUPPORTED at byte 4 (a union)". */
static const char *model_answer(const em_model *model, char *buffer, size_t size) {
    if (model->status == DC_OK)
        snprintf(buffer, size, "DC_OK");
    else
        snprintf(buffer, size, "%s at byte %zu (%s)", dc_status_name(model->status), model->error_at, model->reason);
    return buffer;
}

/* A refusal: the model's status (unless `model` is NULL: not compared),
 * *out untouched, a message of its own. */
static void check_refusal(const subject *s, const em_model *model, dc_status status, const dc_signature *signature,
                          const char *primed) {
    char answer[160];
    /* A signature the libffi underneath would pass wrongly is refused, naming
     * the defect: the model knows encodings, not that libffi (which shapes
     * are refused is test_libffi_defects.c's to check). */
    bool libffi_defect = model != NULL && model->status == DC_OK && status == DC_ERR_UNSUPPORTED &&
                         strstr(dc_last_error_message(), "defect of libffi") != NULL;
    if (model != NULL && !libffi_defect)
        FUZZ_CHECK(status == model->status, "%s: the library gave %s, the model %s", s->name, dc_status_name(status),
                   model_answer(model, answer, sizeof answer));
    FUZZ_CHECK(signature == UNTOUCHED, "%s failed with %s but wrote *out", s->name, dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, s->variadic ? "dc_signature_create_variadic" : "dc_signature_create");
}

/* ---- layouts ----------------------------------------------------------------------- */

static void check_layout(const subject *s, const em_model *model, const dc_layout *got, int index, const char *where) {
    const em_node *n = em_node_at(model, index);
    FUZZ_CHECK(got->type == n->type, "%s: %s has type %s, the model %s", s->name, where, dc_type_name(got->type),
               dc_type_name(n->type));
    FUZZ_CHECK(got->size == n->size, "%s: %s has size %zu, the model %zu", s->name, where, got->size, n->size);
    FUZZ_CHECK(got->alignment == n->alignment, "%s: %s has alignment %zu, the model %zu", s->name, where,
               got->alignment, n->alignment);
    FUZZ_CHECK(got->count == n->count, "%s: %s has count %zu, the model %zu", s->name, where, got->count, n->count);
    FUZZ_CHECK(got->offset == n->offset, "%s: %s has offset %zu, the model %zu", s->name, where, got->offset,
               n->offset);
    FUZZ_CHECK(got->field_count == n->field_count, "%s: %s has %zu fields, the model %zu", s->name, where,
               got->field_count, n->field_count);
    em_text expected = {0};
    em_write_encoding(model, index, &expected);
    FUZZ_CHECK(got->encoding != NULL && strcmp(got->encoding, expected.data) == 0,
               "%s: %s has encoding \"%s\", the model \"%s\"", s->name, where,
               got->encoding != NULL ? got->encoding : "(NULL)", expected.data);
    free(expected.data);

    dc_layout field, before;
    memset(&field, 0xa5, sizeof field);
    before = field;
    int structure = em_fields_of(model, index);
    const char *primed = fuzz_prime_message();
    if (structure == EM_NONE) {
        dc_status status = dc_layout_field(got, 0, &field);
        FUZZ_CHECK(status == DC_ERR_INVALID_ARGUMENT, "%s: dc_layout_field of %s, no struct, gave %s", s->name, where,
                   dc_status_name(status));
        FUZZ_CHECK_FAILURE(status, primed, "dc_layout_field");
        FUZZ_CHECK(memcmp(&field, &before, sizeof field) == 0, "%s: dc_layout_field of %s failed but wrote *out",
                   s->name, where);
        return;
    }
    dc_status status = dc_layout_field(got, n->field_count, &field);
    FUZZ_CHECK(status == DC_ERR_INDEX, "%s: field %zu of %s, past the last, gave %s", s->name, n->field_count, where,
               dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, "dc_layout_field");
    FUZZ_CHECK(memcmp(&field, &before, sizeof field) == 0, "%s: dc_layout_field past the last of %s wrote *out",
               s->name, where);
    for (size_t i = 0; i < n->field_count; i++) {
        char inner[512];
        snprintf(inner, sizeof inner, "%s field %zu", where, i);
        status = dc_layout_field(got, i, &field);
        FUZZ_CHECK(status == DC_OK, "%s: %s unreadable: %s", s->name, inner, dc_status_name(status));
        check_layout(s, model, &field, em_field(model, structure, i), inner);
    }
}

static void check_layouts(const subject *s, const em_model *model, dc_signature *signature) {
    dc_layout layout;
    FUZZ_CHECK(dc_signature_return_layout(signature, &layout) == DC_OK, "%s: return layout unreadable", s->name);
    check_layout(s, model, &layout, model->items[0], "the return");
    for (size_t i = 0; i < model->parameter_count; i++) {
        char where[64];
        snprintf(where, sizeof where, "parameter %zu", i);
        FUZZ_CHECK(dc_signature_parameter_layout(signature, i, &layout) == DC_OK, "%s: %s's layout unreadable",
                   s->name, where);
        check_layout(s, model, &layout, model->items[i + 1], where);
    }
    dc_layout past, before;
    memset(&past, 0xa5, sizeof past);
    before = past;
    const char *primed = fuzz_prime_message();
    dc_status status = dc_signature_parameter_layout(signature, model->parameter_count, &past);
    FUZZ_CHECK(status == DC_ERR_INDEX && memcmp(&past, &before, sizeof past) == 0,
               "%s: the layout of parameter %zu, past the last, gave %s", s->name, model->parameter_count,
               dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, "dc_signature_parameter_layout");

    size_t frame = dc_signature_frame_size(signature), expected = em_frame_size(model);
    FUZZ_CHECK(frame == expected, "%s: frame size %zu, the model %zu", s->name, frame, expected);
}

/* ---- invocations ------------------------------------------------------------------- */

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

/* A parameter by address (a struct, long double, a complex type): zero
 * bytes at first; a value of distinct bytes is copied in and read back;
 * another type does not fit it. */
static void check_struct_argument(const subject *s, dc_invocation *invocation, size_t index, const em_node *layout,
                                  dc_type type) {
    dc_value fresh;
    FUZZ_CHECK(dc_invocation_get_argument(invocation, index, &fresh) == DC_OK, "%s: argument %zu unreadable", s->name,
               index);
    FUZZ_CHECK(fresh.type == type && fresh.pointer != NULL, "%s: struct argument %zu reads as %s %p",
               s->name, index, dc_type_name(fresh.type), fresh.pointer);
    const unsigned char *bytes = fresh.pointer;
    for (size_t i = 0; i < layout->size; i++)
        FUZZ_CHECK(bytes[i] == 0, "%s: byte %zu of struct argument %zu starts as 0x%02x", s->name, i, index, bytes[i]);

    unsigned char *source = malloc(layout->size);
    if (source == NULL) abort();
    for (size_t i = 0; i < layout->size; i++) source[i] = (unsigned char)(1 + (i * 97 + index * 31) % 255);
    dc_value value = dc_value_at(type, source), back;
    dc_status status = dc_invocation_set_argument(invocation, index, &value);
    FUZZ_CHECK(status == DC_OK, "%s: struct argument %zu refuses a struct: %s", s->name, index, dc_status_name(status));
    FUZZ_CHECK(dc_invocation_get_argument(invocation, index, &back) == DC_OK && back.type == type,
               "%s: struct argument %zu does not read back as a struct", s->name, index);
    FUZZ_CHECK(back.pointer != NULL && back.pointer != source,
               "%s: struct argument %zu points at %p, not at a copy of the bytes given at %p", s->name, index,
               back.pointer, (void *)source);
    FUZZ_CHECK((uintptr_t)back.pointer % layout->alignment == 0,
               "%s: struct argument %zu at %p is not aligned to %zu", s->name, index, back.pointer, layout->alignment);
    memset(source, 0xee, layout->size);
    bytes = back.pointer;
    for (size_t i = 0; i < layout->size; i++)
        FUZZ_CHECK(bytes[i] == (unsigned char)(1 + (i * 97 + index * 31) % 255),
                   "%s: byte %zu of struct argument %zu reads back as 0x%02x, set 0x%02x", s->name, i, index,
                   bytes[i], (unsigned char)(1 + (i * 97 + index * 31) % 255));

    const char *primed = fuzz_prime_message();
    dc_value other = dc_int32(7);
    status = dc_invocation_set_argument(invocation, index, &other);
    FUZZ_CHECK(status == DC_ERR_TYPE, "%s: struct argument %zu given an int32 gave %s", s->name, index,
               dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, "dc_invocation_set_argument");
    FUZZ_CHECK(dc_invocation_get_argument(invocation, index, &back) == DC_OK && back.type == type &&
                   back.pointer != NULL && ((const unsigned char *)back.pointer)[0] == 1 + (index * 31) % 255,
               "%s: struct argument %zu changed when an int32 was refused", s->name, index);
    free(source);
}

static void check_invocation(const subject *s, const em_model *model, dc_signature *signature, const dc_type *types,
                             size_t count) {
    dc_invocation *invocation = NULL;
    FUZZ_CHECK(dc_invocation_create(signature, never_called, &invocation) == DC_OK && invocation != NULL,
               "%s: no invocation", s->name);
    FUZZ_CHECK(dc_invocation_signature(invocation) == signature, "%s: invocation lost its signature", s->name);
    FUZZ_CHECK(dc_invocation_call_path(invocation) == dc_signature_call_path(signature),
               "%s: invocation takes another path than its signature", s->name);

    for (size_t i = 0; i < count; i++) {
        if (types[i] >= DC_TYPE_STRUCT) { /* by address */
            check_struct_argument(s, invocation, i, em_node_at(model, model->items[i + 1]), types[i]);
            continue;
        }
        dc_value fresh;
        FUZZ_CHECK(dc_invocation_get_argument(invocation, i, &fresh) == DC_OK, "%s: argument %zu unreadable", s->name,
                   i);
        FUZZ_CHECK(dc_test_values_equal(fresh, fuzz_zero(types[i])), "%s: argument %zu does not start as zero",
                   s->name, i);
        dc_value value = sample_value(types[i], (unsigned)i), back;
        FUZZ_CHECK(dc_invocation_set_argument(invocation, i, &value) == DC_OK, "%s: argument %zu rejects its own type",
                   s->name, i);
        FUZZ_CHECK(dc_invocation_get_argument(invocation, i, &back) == DC_OK && dc_test_values_equal(back, value),
                   "%s: argument %zu does not read back", s->name, i);
    }

    const char *primed = fuzz_prime_message();
    dc_value out = dc_int32(12345), value = dc_int32(1);
    dc_status status = dc_invocation_set_argument(invocation, count, &value);
    FUZZ_CHECK(status == DC_ERR_INDEX, "%s: set_argument past the last gave %s", s->name, dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, "dc_invocation_set_argument");
    primed = fuzz_prime_message();
    status = dc_invocation_get_argument(invocation, count, &out);
    FUZZ_CHECK(status == DC_ERR_INDEX && out.type == DC_TYPE_INT32 && out.i32 == 12345,
               "%s: get_argument past the last gave %s", s->name, dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, "dc_invocation_get_argument");
    primed = fuzz_prime_message();
    status = dc_invocation_get_return_value(invocation, &out);
    FUZZ_CHECK(status == DC_ERR_NOT_INVOKED && out.i32 == 12345, "%s: return value before invoke gave %s", s->name,
               dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, "dc_invocation_get_return_value");

    FUZZ_CHECK(dc_invocation_set_call_path(invocation, DC_CALL_PATH_FFI) == DC_OK, "%s: the libffi path is refused",
               s->name);
    status = dc_invocation_set_call_path(invocation, DC_CALL_PATH_STUB);
    if (dc_signature_call_path(signature) == DC_CALL_PATH_STUB)
        FUZZ_CHECK(status == DC_OK, "%s: the stub path is refused to a stub signature", s->name);
    else
        FUZZ_CHECK(status == DC_ERR_UNSUPPORTED, "%s: the stub path for a libffi signature gave %s", s->name,
                   dc_status_name(status));
    dc_invocation_destroy(invocation);
}

/* ---- accepted signatures ------------------------------------------------------------ */

/* The canonical encoding, and the types, give the very same signature back. */
static void check_parses_back(const subject *s, const em_model *model, dc_signature *signature, const dc_type *types,
                              size_t count) {
    const char *canonical = dc_signature_encoding(signature);
    dc_signature *again = NULL;
    if (!s->variadic) {
        FUZZ_CHECK(dc_signature_create(canonical, &again) == DC_OK, "%s: canonical \"%s\" does not parse", s->name,
                   canonical);
        FUZZ_CHECK(again == signature, "%s: canonical \"%s\" gives another signature", s->name, canonical);
        dc_signature_release(again);
        if (em_has_struct(model)) return;
        dc_signature *from_types = NULL;
        FUZZ_CHECK(dc_signature_create_with_types(dc_signature_return_type(signature), types, count, &from_types) ==
                       DC_OK,
                   "%s: its types are refused", s->name);
        FUZZ_CHECK(from_types == signature, "%s: its types give another signature", s->name);
        FUZZ_CHECK(dc_signature_retain(from_types) == signature, "retain returns another signature");
        dc_signature_release(from_types);
        dc_signature_release(from_types);
        return;
    }
    em_text unmarked = {0};
    em_write_signature(model, false, &unmarked);
    dc_status status = dc_signature_create_variadic(unmarked.data, s->fixed_count, &again);
    FUZZ_CHECK(status == DC_OK, "%s: canonical \"%s\" without its \"...\", \"%s\", with %zu fixed gave %s", s->name,
               canonical, unmarked.data, s->fixed_count, dc_status_name(status));
    FUZZ_CHECK(again == signature, "%s: \"%s\" with %zu fixed gives another signature", s->name, unmarked.data,
               s->fixed_count);
    dc_signature_release(again);
    dc_signature *plain = NULL;
    status = dc_signature_create(unmarked.data, &plain);
    FUZZ_CHECK(status == DC_OK, "%s: \"%s\" is variadic but not plain: %s", s->name, unmarked.data,
               dc_status_name(status));
    FUZZ_CHECK(plain != signature && !dc_signature_is_variadic(plain) &&
                   dc_signature_fixed_count(plain) == dc_signature_parameter_count(plain),
               "%s: the plain signature of \"%s\" is variadic (%zu fixed)", s->name, unmarked.data,
               dc_signature_fixed_count(plain));
    dc_signature_release(plain);
    free(unmarked.data);
}

static void check_signature(const subject *s, const em_model *model, dc_signature *signature) {
    dc_type return_type = dc_signature_return_type(signature);
    dc_type expected_return = em_node_at(model, model->items[0])->type;
    FUZZ_CHECK(return_type == expected_return, "%s: return type %s, the model %s", s->name, dc_type_name(return_type),
               dc_type_name(expected_return));
    size_t count = dc_signature_parameter_count(signature);
    FUZZ_CHECK(count == model->parameter_count, "%s: %zu parameters, the model %zu", s->name, count,
               model->parameter_count);

    dc_type types[DC_MAX_PARAMETERS];
    for (size_t i = 0; i < count; i++) {
        FUZZ_CHECK(dc_signature_parameter_type(signature, i, &types[i]) == DC_OK, "%s: parameter %zu unreadable",
                   s->name, i);
        dc_type expected = em_node_at(model, model->items[i + 1])->type;
        FUZZ_CHECK(types[i] == expected, "%s: parameter %zu is %s, the model %s", s->name, i, dc_type_name(types[i]),
                   dc_type_name(expected));
    }
    dc_type past = DC_TYPE_COUNT;
    const char *primed = fuzz_prime_message();
    dc_status status = dc_signature_parameter_type(signature, count, &past);
    FUZZ_CHECK(status == DC_ERR_INDEX && past == DC_TYPE_COUNT, "%s: parameter past the last gave %s", s->name,
               dc_status_name(status));
    FUZZ_CHECK_FAILURE(status, primed, "dc_signature_parameter_type");

    em_text canonical = {0};
    em_write_signature(model, true, &canonical);
    FUZZ_CHECK(strcmp(dc_signature_encoding(signature), canonical.data) == 0,
               "%s: canonical encoding \"%s\", the model \"%s\"", s->name, dc_signature_encoding(signature),
               canonical.data);
    free(canonical.data);
    FUZZ_CHECK(dc_signature_is_variadic(signature) == s->variadic, "%s: is_variadic says %d", s->name,
               (int)dc_signature_is_variadic(signature));
    size_t fixed = dc_signature_fixed_count(signature), expected_fixed = s->variadic ? s->fixed_count : count;
    FUZZ_CHECK(fixed == expected_fixed, "%s: fixed count %zu, expected %zu", s->name, fixed, expected_fixed);

    dc_call_path path = dc_signature_call_path(signature);
    FUZZ_CHECK(path == DC_CALL_PATH_STUB || path == DC_CALL_PATH_FFI, "%s: call path %d", s->name, (int)path);
    if (s->variadic || em_has_struct(model))
        FUZZ_CHECK(path == DC_CALL_PATH_FFI, "%s: a %s signature takes the stub path", s->name,
                   s->variadic ? "variadic" : "struct");

    check_layouts(s, model, signature);
    check_parses_back(s, model, signature, types, count);
    check_invocation(s, model, signature, types, count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    bool variadic = size > 0 && data[0] >= 0x01 && data[0] <= 0x01 + DC_MAX_PARAMETERS;
    size_t fixed_count = 0;
    if (variadic) {
        fixed_count = (size_t)(data[0] - 0x01);
        data++;
        size--;
    }
    char *encoding = malloc(size + 1);
    if (encoding == NULL) return 0;
    memcpy(encoding, data, size);
    encoding[size] = '\0';
    char *name = describe_subject(encoding, variadic, fixed_count);
    subject s = {encoding, variadic, fixed_count, name};

    em_model model;
    if (!em_model_parse(&model, encoding, variadic, fixed_count, POINTER_CHAIN_LIMIT)) abort();
    char answer[160];
    model_answer(&model, answer, sizeof answer);
    FUZZ_TRACE(0, "%s: the model says %s", name, answer);

    dc_signature *signature = UNTOUCHED;
    const char *primed = fuzz_prime_message();
    dc_status status = variadic ? dc_signature_create_variadic(encoding, fixed_count, &signature)
                                : dc_signature_create(encoding, &signature);
    bool compared = true;
    if (status == DC_OK) {
        FUZZ_CHECK(signature != NULL && signature != UNTOUCHED, "%s: DC_OK without a signature", name);
        if (compared) {
            FUZZ_CHECK(model.status == DC_OK, "%s: the library accepted it as \"%s\", the model gave %s", name,
                       dc_signature_encoding(signature), answer);
            check_signature(&s, &model, signature);
        }
        dc_signature_release(signature);
    } else {
        check_refusal(&s, compared ? &model : NULL, status, signature, primed);
    }
    em_model_free(&model);
    free(name);
    free(encoding);
    return 0;
}
