/*
 * signature.c — NSMethodSignature: parsing Objective-C type encodings, interning
 * equal signatures, and preparing each one's call path once.
 */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing ---------------------------------------------------------------- */

typedef struct parsed_signature {
    dc_type return_type;
    size_t parameter_count;
    dc_type parameter_types[DC_MAX_PARAMETERS];
} parsed_signature;

/* The encoding being parsed, for error messages. */
typedef struct parser {
    const char *encoding;
    const char *cursor;
} parser;

static size_t position(const parser *p, const char *at) { return (size_t)(at - p->encoding); }

/* Describes the character at `at` for a message: 'x', end of string, or \xNN. */
static const char *describe_character(const char *at, char buffer[16]) {
    unsigned char c = (unsigned char)*at;
    if (c == '\0')
        snprintf(buffer, 16, "end of string");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(buffer, 16, "'%c'", c);
    else
        snprintf(buffer, 16, "byte \\x%02x", c);
    return buffer;
}

static dc_status parse_error(const parser *p, const char *at, const char *problem) {
    char character[16];
    return dc__fail(DC_ERR_BAD_SIGNATURE, "bad type encoding \"%.64s%s\": %s at position %zu (%s)",
                    p->encoding, strlen(p->encoding) > 64 ? "..." : "", problem, position(p, at),
                    describe_character(at, character));
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Method encodings carry a frame size or an argument offset after each type. */
static const char *skip_offset(const char *at) {
    if (*at == '-' && is_digit(at[1])) at++;
    while (is_digit(*at)) at++;
    return at;
}

/* const, in, inout, out, bycopy, byref, oneway: they change nothing at the ABI. */
static const char *skip_qualifiers(const char *at) {
    while (*at != '\0' && strchr("rnNoORV", *at) != NULL) at++;
    return at;
}

/* After '@': a block ("@?") or a class name ("@\"NSString\"") is still an object. */
static dc_status skip_object_detail(const parser *p, const char **at) {
    const char *c = *at;
    if (*c == '?') {
        *at = c + 1;
    } else if (*c == '"') {
        const char *close = strchr(c + 1, '"');
        if (close == NULL) return parse_error(p, c, "unterminated class name");
        *at = close + 1;
    }
    return DC_OK;
}

/* Skips one complete type encoding of any kind, as found after '^'. */
static dc_status skip_pointee(const parser *p, const char **at, int depth) {
    const char *c = skip_qualifiers(*at);
    if (depth > 64) return parse_error(p, c, "type nested too deeply");
    if (*c == '\0') return parse_error(p, *at - 1, "'^' without a pointee type");
    switch (*c) {
    case '^':
        *at = c + 1;
        return skip_pointee(p, at, depth + 1);
    case '@':
        *at = c + 1;
        return skip_object_detail(p, at);
    case 'b':
        if (!is_digit(c[1])) return parse_error(p, c, "bit-field without a width");
        *at = skip_offset(c + 1);
        return DC_OK;
    case '{':
    case '(':
    case '[': {
        /* An aggregate: skip to its matching close, whatever is inside. */
        int open = 0;
        const char *scan = c;
        for (; *scan != '\0'; scan++) {
            if (*scan == '"') {
                const char *close = strchr(scan + 1, '"');
                if (close == NULL) return parse_error(p, scan, "unterminated field name");
                scan = close;
            } else if (*scan == '{' || *scan == '(' || *scan == '[') {
                open++;
            } else if (*scan == '}' || *scan == ')' || *scan == ']') {
                if (--open == 0) break;
            }
        }
        if (*scan == '\0') return parse_error(p, c, "unterminated aggregate");
        *at = scan + 1;
        return DC_OK;
    }
    default:
        if (strchr("vBcCsSiIlLqQfdD#:*?", *c) == NULL) return parse_error(p, c, "unknown pointee type code");
        *at = c + 1;
        return DC_OK;
    }
}

/* Parses one top-level type (return value or parameter) and its offset. */
static dc_status parse_type(parser *p, dc_type *out) {
    const char *c = skip_qualifiers(p->cursor);
    const char *next = c + 1;
    dc_status status = DC_OK;
    switch (*c) {
    case 'v': *out = DC_TYPE_VOID; break;
    case 'B': *out = DC_TYPE_BOOL; break;
    case 'c': *out = DC_TYPE_INT8; break;
    case 'C': *out = DC_TYPE_UINT8; break;
    case 's': *out = DC_TYPE_INT16; break;
    case 'S': *out = DC_TYPE_UINT16; break;
    case 'i': case 'l': *out = DC_TYPE_INT32; break;
    case 'I': case 'L': *out = DC_TYPE_UINT32; break;
    case 'q': *out = DC_TYPE_INT64; break;
    case 'Q': *out = DC_TYPE_UINT64; break;
    case 'f': *out = DC_TYPE_FLOAT; break;
    case 'd': *out = DC_TYPE_DOUBLE; break;
    case '#': *out = DC_TYPE_OBJECT; break;
    case '@':
        *out = DC_TYPE_OBJECT;
        status = skip_object_detail(p, &next);
        break;
    case '*': case ':': *out = DC_TYPE_STRING; break;
    case '^':
        *out = DC_TYPE_POINTER;
        status = skip_pointee(p, &next, 0);
        break;
    case '{': case '(': case '[': case 'b':
        return parse_error(p, c, "structs, unions, arrays and bit-fields by value are not supported");
    case '\0':
        return parse_error(p, c, "missing type after qualifiers");
    default:
        return parse_error(p, c, "unknown type code");
    }
    if (status != DC_OK) return status;
    p->cursor = skip_offset(next);
    return DC_OK;
}

static dc_status parse_encoding(const char *encoding, parsed_signature *out) {
    parser p = {encoding, encoding};
    if (*encoding == '\0') return dc__fail(DC_ERR_BAD_SIGNATURE, "bad type encoding \"\": the encoding is empty");

    dc_status status = parse_type(&p, &out->return_type);
    if (status != DC_OK) return status;

    out->parameter_count = 0;
    while (*p.cursor != '\0') {
        const char *start = p.cursor;
        dc_type type;
        if ((status = parse_type(&p, &type)) != DC_OK) return status;
        if (type == DC_TYPE_VOID) return parse_error(&p, skip_qualifiers(start), "void is not a parameter type");
        if (out->parameter_count == DC_MAX_PARAMETERS) {
            char limit[64];
            snprintf(limit, sizeof limit, "more than %d parameters", DC_MAX_PARAMETERS);
            return parse_error(&p, start, limit);
        }
        out->parameter_types[out->parameter_count++] = type;
    }
    return DC_OK;
}

/* ---- interning ---------------------------------------------------------------- */

#define INTERN_BUCKETS 256

static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static dc_signature *intern_buckets[INTERN_BUCKETS];

static uint64_t hash_string(const char *s) {
    uint64_t hash = 14695981039346656037ull; /* FNV-1a */
    for (; *s != '\0'; s++) hash = (hash ^ (unsigned char)*s) * 1099511628211ull;
    return hash;
}

/* Takes a reference unless the last one is already gone (the signature is
 * being freed and will be unlinked by its releaser). */
static bool retain_if_alive(dc_signature *signature) {
    size_t count = atomic_load(&signature->reference_count);
    while (count != 0) {
        if (atomic_compare_exchange_weak(&signature->reference_count, &count, count + 1)) return true;
    }
    return false;
}

static void canonical_encoding(const parsed_signature *parsed, char *out) {
    char *at = out;
    *at++ = dc_type_encoding(parsed->return_type);
    if (parsed->return_type == DC_TYPE_POINTER) *at++ = 'v';
    for (size_t i = 0; i < parsed->parameter_count; i++) {
        *at++ = dc_type_encoding(parsed->parameter_types[i]);
        if (parsed->parameter_types[i] == DC_TYPE_POINTER) *at++ = 'v';
    }
    *at = '\0';
}

/* ---- preparing a call path ----------------------------------------------------- */

static ffi_type *ffi_type_of(dc_type type) {
    switch (type) {
    case DC_TYPE_VOID: return &ffi_type_void;
    case DC_TYPE_BOOL: return &ffi_type_uint8; /* C's bool is one byte, passed like unsigned char */
    case DC_TYPE_INT8: return &ffi_type_sint8;
    case DC_TYPE_UINT8: return &ffi_type_uint8;
    case DC_TYPE_INT16: return &ffi_type_sint16;
    case DC_TYPE_UINT16: return &ffi_type_uint16;
    case DC_TYPE_INT32: return &ffi_type_sint32;
    case DC_TYPE_UINT32: return &ffi_type_uint32;
    case DC_TYPE_INT64: return &ffi_type_sint64;
    case DC_TYPE_UINT64: return &ffi_type_uint64;
    case DC_TYPE_FLOAT: return &ffi_type_float;
    case DC_TYPE_DOUBLE: return &ffi_type_double;
    default: return &ffi_type_pointer;
    }
}

static dc_return_class return_class_of(dc_type type) {
    switch (type) {
    case DC_TYPE_VOID: return DC_RETURN_VOID;
    case DC_TYPE_FLOAT: return DC_RETURN_FLOAT;
    case DC_TYPE_DOUBLE: return DC_RETURN_DOUBLE;
    default: return DC_RETURN_INTEGER;
    }
}

static dc_status prepare(dc_signature *signature) {
    unsigned integers = 0, floats = 0;
    signature->word_images = true;
    for (size_t i = 0; i < signature->parameter_count; i++) {
        dc_type type = signature->parameter_types[i];
        if (!dc__is_pointer_like(type) && type != DC_TYPE_INT64 && type != DC_TYPE_UINT64)
            signature->word_images = false;
        signature->ffi_parameter_types[i] = ffi_type_of(type);
        signature->parameter_sizes[i] = (uint8_t)signature->ffi_parameter_types[i]->size;
        bool floating = dc__is_floating(type);
        unsigned *counter = floating ? &floats : &integers;
        signature->slots[i].is_floating = floating;
        signature->slots[i].index = (uint8_t)*counter;
        (*counter)++;
    }
    signature->return_class = return_class_of(signature->return_type);

    ffi_status prepared = ffi_prep_cif(&signature->cif, FFI_DEFAULT_ABI, (unsigned)signature->parameter_count,
                                       ffi_type_of(signature->return_type), signature->ffi_parameter_types);
    if (prepared != FFI_OK)
        return dc__fail(DC_ERR_FFI, "ffi_prep_cif failed with status %d for signature \"%s\"", (int)prepared,
                        signature->encoding);

    signature->stub = dc__stub_lookup(signature->return_class, integers, floats);
    signature->call_path = signature->stub != NULL ? DC_CALL_PATH_STUB : DC_CALL_PATH_FFI;
    if (signature->stub == NULL) signature->word_images = false; /* images are for stubs only */
    return DC_OK;
}

/* Finds the interned signature for `parsed` or creates, prepares and interns it. */
static dc_status intern(const parsed_signature *parsed, dc_signature **out) {
    char encoding[sizeof ((dc_signature *)0)->encoding];
    canonical_encoding(parsed, encoding);
    uint64_t hash = hash_string(encoding);
    dc_signature **bucket = &intern_buckets[hash % INTERN_BUCKETS];

    pthread_mutex_lock(&intern_lock);
    for (dc_signature *s = *bucket; s != NULL; s = s->next_interned) {
        if (s->hash == hash && strcmp(s->encoding, encoding) == 0 && retain_if_alive(s)) {
            pthread_mutex_unlock(&intern_lock);
            *out = s;
            return DC_OK;
        }
    }

    dc_signature *signature = calloc(1, sizeof *signature);
    if (signature == NULL) {
        pthread_mutex_unlock(&intern_lock);
        return dc__fail(DC_ERR_NO_MEMORY, "no memory for signature \"%s\"", encoding);
    }
    atomic_init(&signature->reference_count, 1);
    signature->hash = hash;
    signature->return_type = parsed->return_type;
    signature->parameter_count = parsed->parameter_count;
    memcpy(signature->parameter_types, parsed->parameter_types, parsed->parameter_count * sizeof(dc_type));
    memcpy(signature->encoding, encoding, sizeof encoding);

    dc_status status = prepare(signature);
    if (status != DC_OK) {
        pthread_mutex_unlock(&intern_lock);
        free(signature);
        return status;
    }
    signature->next_interned = *bucket;
    *bucket = signature;
    pthread_mutex_unlock(&intern_lock);
    *out = signature;
    return DC_OK;
}

/* ---- public API ------------------------------------------------------------------ */

DC_API dc_status dc_signature_create(const char *encoding, dc_signature **out) {
    if (encoding == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_signature_create: encoding and out must not be NULL");
    parsed_signature parsed;
    dc_status status = parse_encoding(encoding, &parsed);
    if (status != DC_OK) return status;
    return intern(&parsed, out);
}

DC_API dc_status dc_signature_create_with_types(dc_type return_type, const dc_type *parameter_types,
                                                size_t count, dc_signature **out) {
    if (out == NULL || (parameter_types == NULL && count > 0))
        return dc__fail(DC_ERR_NULL_ARGUMENT,
                        "dc_signature_create_with_types: out, and parameter_types when count > 0, must not be NULL");
    if ((unsigned)return_type >= DC_TYPE_COUNT)
        return dc__fail(DC_ERR_BAD_SIGNATURE, "bad signature: return type %d is not a dc_type", (int)return_type);
    if (count > DC_MAX_PARAMETERS)
        return dc__fail(DC_ERR_BAD_SIGNATURE, "bad signature: %zu parameters, more than the maximum of %d", count,
                        DC_MAX_PARAMETERS);
    parsed_signature parsed;
    parsed.return_type = return_type;
    parsed.parameter_count = count;
    for (size_t i = 0; i < count; i++) {
        dc_type type = parameter_types[i];
        if ((unsigned)type >= DC_TYPE_COUNT)
            return dc__fail(DC_ERR_BAD_SIGNATURE, "bad signature: parameter %zu has type %d, which is not a dc_type",
                            i, (int)type);
        if (type == DC_TYPE_VOID)
            return dc__fail(DC_ERR_BAD_SIGNATURE, "bad signature: parameter %zu is void, which is not a parameter type",
                            i);
        parsed.parameter_types[i] = type;
    }
    return intern(&parsed, out);
}

DC_API dc_signature *dc_signature_retain(dc_signature *signature) {
    if (signature != NULL) atomic_fetch_add(&signature->reference_count, 1);
    return signature;
}

DC_API void dc_signature_release(dc_signature *signature) {
    if (signature == NULL || atomic_fetch_sub(&signature->reference_count, 1) != 1) return;

    /* Last reference: unlink, unless a newer signature replaced this one. */
    pthread_mutex_lock(&intern_lock);
    for (dc_signature **link = &intern_buckets[signature->hash % INTERN_BUCKETS]; *link != NULL;
         link = &(*link)->next_interned) {
        if (*link == signature) {
            *link = signature->next_interned;
            break;
        }
    }
    pthread_mutex_unlock(&intern_lock);
    free(signature);
}

DC_API dc_type dc_signature_return_type(const dc_signature *signature) {
    return signature != NULL ? signature->return_type : DC_TYPE_VOID;
}

DC_API size_t dc_signature_parameter_count(const dc_signature *signature) {
    return signature != NULL ? signature->parameter_count : 0;
}

DC_API dc_status dc_signature_parameter_type(const dc_signature *signature, size_t index, dc_type *out) {
    if (signature == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_signature_parameter_type: signature and out must not be NULL");
    if (index >= signature->parameter_count)
        return dc__fail(DC_ERR_INDEX, "parameter index %zu is out of range for signature \"%s\" with %zu parameters",
                        index, signature->encoding, signature->parameter_count);
    *out = signature->parameter_types[index];
    return DC_OK;
}

DC_API const char *dc_signature_encoding(const dc_signature *signature) {
    return signature != NULL ? signature->encoding : "";
}

DC_API dc_call_path dc_signature_call_path(const dc_signature *signature) {
    return signature != NULL ? signature->call_path : DC_CALL_PATH_FFI;
}
