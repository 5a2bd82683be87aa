/*
 * signature.c — NSMethodSignature: parsing Objective-C type encodings (structs
 * by value included), interning equal signatures, preparing each one's call
 * path once, and the layout queries.
 *
 * A parse builds the canonical encoding as it goes and, for each struct, a
 * tree of layout nodes and the ffi_types libffi passes it with, in memory
 * the signature keeps (its arena). Scalars need neither: their layout is
 * their ffi_type's.
 */
#include "internal.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory a signature's layouts live in ----------------------------------- */

struct dc__arena_block {
    dc__arena_block *next;
    max_align_t data[];
};

/* Zeroed, maximally aligned bytes that live as long as the arena. */
static void *arena_allocate(dc__arena_block **arena, size_t size) {
    dc__arena_block *block = calloc(1, sizeof *block + size);
    if (block == NULL) return NULL;
    block->next = *arena;
    *arena = block;
    return block->data;
}

static void arena_free(dc__arena_block *arena) {
    while (arena != NULL) {
        dc__arena_block *next = arena->next;
        free(arena);
        arena = next;
    }
}

/* ---- parsing ---------------------------------------------------------------- */

/* The ffi_type of a scalar. */
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
    case DC_TYPE_LONG_DOUBLE: return &ffi_type_longdouble;
#ifdef FFI_TARGET_HAS_COMPLEX_TYPE
    case DC_TYPE_COMPLEX_FLOAT: return &ffi_type_complex_float;
    case DC_TYPE_COMPLEX_DOUBLE: return &ffi_type_complex_double;
    case DC_TYPE_COMPLEX_LONG_DOUBLE: return &ffi_type_complex_longdouble;
#endif
    default: return &ffi_type_pointer;
    }
}

void dc__text_append(dc__text *t, const char *bytes, size_t count) {
    if (t->out_of_memory) return;
    if (t->length + count + 1 > t->capacity) {
        size_t capacity = t->capacity < 64 ? 64 : t->capacity;
        while (capacity < t->length + count + 1) capacity *= 2;
        char *data = realloc(t->data, capacity);
        if (data == NULL) {
            t->out_of_memory = true;
            return;
        }
        t->data = data;
        t->capacity = capacity;
    }
    memcpy(t->data + t->length, bytes, count);
    t->length += count;
    t->data[t->length] = '\0';
}

static void text_append_string(dc__text *t, const char *string) { dc__text_append(t, string, strlen(string)); }

typedef struct parsed_signature {
    dc_type return_type;
    size_t parameter_count;
    dc_type parameter_types[DC_MAX_PARAMETERS];
    const dc__layout_node *return_layout; /* struct layouts; NULL for scalars */
    const dc__layout_node *parameter_layouts[DC_MAX_PARAMETERS];
    bool variadic;
    size_t fixed_count;
    dc__arena_block *arena; /* the layouts' memory */
    dc__text canonical; /* the canonical encoding as the parse writes it */
} parsed_signature;

static void parsed_free(parsed_signature *parsed) {
    arena_free(parsed->arena);
    parsed->arena = NULL;
    free(parsed->canonical.data);
    parsed->canonical.data = NULL;
}

/* The encoding being parsed, for error messages, and where its parse goes. */
typedef struct parser {
    const char *encoding;
    parsed_signature *out;
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

static dc_status parse_failure(const parser *p, dc_status status, const char *at, const char *problem) {
    char character[16];
    return dc__fail(status, "bad type encoding \"%.64s%s\": %s at position %zu (%s)", p->encoding,
                    strlen(p->encoding) > 64 ? "..." : "", problem, position(p, at), describe_character(at, character));
}

static dc_status parse_error(const parser *p, const char *at, const char *problem) {
    return parse_failure(p, DC_ERR_BAD_SIGNATURE, at, problem);
}

static dc_status out_of_memory(const parser *p) {
    return dc__fail(DC_ERR_NO_MEMORY, "no memory to parse the type encoding \"%.64s\"", p->encoding);
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
        /* An aggregate: skip to its matching close, whatever is inside, each
         * bracket closed by its own kind. */
        char *closers = malloc(strlen(c) + 1); /* the closers expected, innermost last */
        if (closers == NULL) return out_of_memory(p);
        size_t open = 0;
        const char *scan = c;
        dc_status status = DC_OK;
        for (; *scan != '\0'; scan++) {
            if (*scan == '"') {
                const char *close = strchr(scan + 1, '"');
                if (close == NULL) {
                    status = parse_error(p, scan, "unterminated field name");
                    break;
                }
                scan = close;
            } else if (*scan == '{' || *scan == '(' || *scan == '[') {
                closers[open++] = *scan == '{' ? '}' : *scan == '(' ? ')' : ']';
            } else if (*scan == '}' || *scan == ')' || *scan == ']') {
                if (*scan != closers[open - 1]) {
                    status = parse_error(p, scan, "an aggregate closed by another kind of bracket");
                    break;
                }
                if (--open == 0) break;
            }
        }
        free(closers);
        if (status != DC_OK) return status;
        if (*scan == '\0') return parse_error(p, c, "unterminated aggregate");
        *at = scan + 1;
        return DC_OK;
    }
    case 'j':
        if (c[1] == '\0' || strchr("fdD", c[1]) == NULL) return parse_error(p, c, "unknown pointee type code");
        *at = c + 2;
        return DC_OK;
    default:
        if (strchr("vBcCsSiIlLqQfdD#:*?", *c) == NULL) return parse_error(p, c, "unknown pointee type code");
        *at = c + 1;
        return DC_OK;
    }
}

/* The type of a scalar code (pointers and objects included), moving *at past
 * it and appending its canonical encoding; DC_TYPE_COUNT, with nothing moved
 * or appended, for anything else (aggregates, unsupported and unknown codes). */
static dc_status parse_scalar(parser *p, const char **at, dc_type *out) {
    const char *c = *at;
    const char *next = c + 1;
    dc_status status = DC_OK;
    dc_type type;
    switch (*c) {
    case 'v': type = DC_TYPE_VOID; break;
    case 'B': type = DC_TYPE_BOOL; break;
    case 'c': type = DC_TYPE_INT8; break;
    case 'C': type = DC_TYPE_UINT8; break;
    case 's': type = DC_TYPE_INT16; break;
    case 'S': type = DC_TYPE_UINT16; break;
    case 'i': case 'l': type = DC_TYPE_INT32; break;
    case 'I': case 'L': type = DC_TYPE_UINT32; break;
    case 'q': type = DC_TYPE_INT64; break;
    case 'Q': type = DC_TYPE_UINT64; break;
    case 'f': type = DC_TYPE_FLOAT; break;
    case 'd': type = DC_TYPE_DOUBLE; break;
    case 'D': type = DC_TYPE_LONG_DOUBLE; break;
    case 'j':
        next = c + 2;
        if (c[1] == 'f')
            type = DC_TYPE_COMPLEX_FLOAT;
        else if (c[1] == 'd')
            type = DC_TYPE_COMPLEX_DOUBLE;
        else if (c[1] == 'D')
            type = DC_TYPE_COMPLEX_LONG_DOUBLE;
        else
            return parse_error(p, c, "a complex type other than jf, jd and jD (float, double and long double _Complex)");
#ifndef FFI_TARGET_HAS_COMPLEX_TYPE
        return parse_failure(p, DC_ERR_UNSUPPORTED, c, "a complex type, which this platform's libffi cannot pass");
#endif
        break;
    case '#': type = DC_TYPE_OBJECT; break;
    case '@':
        type = DC_TYPE_OBJECT;
        status = skip_object_detail(p, &next);
        break;
    case '*': case ':': type = DC_TYPE_STRING; break;
    case '^':
        type = DC_TYPE_POINTER;
        status = skip_pointee(p, &next, 0);
        break;
    default: *out = DC_TYPE_COUNT; return DC_OK;
    }
    if (status != DC_OK) return status;
    text_append_string(&p->out->canonical, dc__type_canonical(type));
    *out = type;
    *at = next;
    return DC_OK;
}

/* The refusal of a code that is neither a scalar nor a struct, at `c`. */
static dc_status refuse_code(const parser *p, const char *c, bool top_level) {
    switch (*c) {
    case '(': return parse_failure(p, DC_ERR_UNSUPPORTED, c, "a union by value, which libffi cannot pass");
    case 'b': return parse_failure(p, DC_ERR_UNSUPPORTED, c, "a bit-field, which libffi cannot pass");
    case '[':
        if (top_level)
            return parse_error(p, c, "an array by value, which no C function takes or returns (it takes a pointer: ^)");
        return parse_error(p, c, "unknown type code");
    case '\0': return parse_error(p, c, top_level ? "missing type after qualifiers" : "unterminated struct");
    default: return parse_error(p, c, "unknown type code");
    }
}

static size_t align_up(size_t offset, size_t alignment) { return (offset + alignment - 1) / alignment * alignment; }

/* A copy of the canonical encoding written since `start`, in the arena. */
static const char *canonical_since(parser *p, size_t start) {
    const dc__text *t = &p->out->canonical;
    if (t->out_of_memory) return NULL;
    size_t length = t->length - start;
    char *copy = arena_allocate(&p->out->arena, length + 1);
    if (copy != NULL) memcpy(copy, t->data + start, length);
    return copy;
}

static dc_status parse_struct(parser *p, const char **at, unsigned depth, size_t *elements, dc__layout_node *out);

/* Parses one type inside a struct: a scalar, a struct or an array, with its
 * layout (its offset is the struct's to set). `depth`: the enclosing
 * struct's nesting; `elements`: the scalars of the outermost struct so far. */
static dc_status parse_member(parser *p, const char **at, unsigned depth, size_t *elements, dc__layout_node *out) {
    const char *c = skip_qualifiers(*at);
    dc_type type;
    dc_status status = parse_scalar(p, &c, &type);
    if (status != DC_OK) return status;
    if (type == DC_TYPE_VOID) return parse_error(p, c - 1, "void is not a field type");
    if (type != DC_TYPE_COUNT) {
        if (++*elements > DC_MAX_STRUCT_ELEMENTS) {
            char problem[64];
            snprintf(problem, sizeof problem, "a struct of more than %d scalars", DC_MAX_STRUCT_ELEMENTS);
            return parse_error(p, *at, problem);
        }
        ffi_type *ffi = ffi_type_of(type);
        *out = (dc__layout_node){type, 1, ffi->size, ffi->alignment, 0, 0, NULL, ffi, dc__type_canonical(type), 0};
        *at = c;
        return DC_OK;
    }
    if (*c == '{') {
        status = parse_struct(p, &c, depth + 1, elements, out);
        if (status == DC_OK) *at = c;
        return status;
    }
    if (*c != '[') return refuse_code(p, c, false);

    /* An array: its count, then its element. */
    const char *open = c;
    if (depth + 1 > DC_MAX_NESTING) {
        char problem[64];
        snprintf(problem, sizeof problem, "structs and arrays nested more than %d deep", DC_MAX_NESTING);
        return parse_error(p, open, problem);
    }
    size_t count = 0;
    for (c++; is_digit(*c); c++) {
        count = count * 10 + (size_t)(*c - '0');
        if (count > DC_MAX_STRUCT_ELEMENTS) break;
    }
    if (count == 0 || count > DC_MAX_STRUCT_ELEMENTS) {
        char problem[80];
        snprintf(problem, sizeof problem, "an array needs a count from 1 to %d", DC_MAX_STRUCT_ELEMENTS);
        return parse_error(p, open, problem);
    }
    size_t start = p->out->canonical.length;
    char written[24]; /* the count as canonical encodings write it, whatever zeros led it */
    dc__text_append(&p->out->canonical, written, (size_t)snprintf(written, sizeof written, "[%zu", count));
    size_t before = *elements;
    dc__layout_node element;
    if ((status = parse_member(p, &c, depth + 1, elements, &element)) != DC_OK) return status;
    if (*c != ']') return parse_error(p, c, *c == '\0' ? "unterminated array" : "expected ']' after the array's element");
    size_t each = *elements - before;
    if (count - 1 > (DC_MAX_STRUCT_ELEMENTS - *elements) / each) {
        char problem[64];
        snprintf(problem, sizeof problem, "a struct of more than %d scalars", DC_MAX_STRUCT_ELEMENTS);
        return parse_error(p, open, problem);
    }
    *elements += (count - 1) * each;
    dc__text_append(&p->out->canonical, "]", 1);
    *out = element;
    out->count = element.count * count;
    out->size = element.size * count;
    if ((out->encoding = canonical_since(p, start)) == NULL) return out_of_memory(p);
    *at = c + 1;
    return DC_OK;
}

/* Parses `{name=fields}` at *at into a struct's layout and its ffi_type. */
static dc_status parse_struct(parser *p, const char **at, unsigned depth, size_t *elements, dc__layout_node *out) {
    const char *open = *at;
    if (depth > DC_MAX_NESTING) {
        char problem[64];
        snprintf(problem, sizeof problem, "structs and arrays nested more than %d deep", DC_MAX_NESTING);
        return parse_error(p, open, problem);
    }
    const char *c = open + 1;
    while (*c != '\0' && *c != '=' && *c != '}' && *c != '{') c++;
    if (*c == '\0') return parse_error(p, open, "unterminated struct");
    if (*c != '=')
        return parse_error(p, open, "a struct without its fields (an opaque struct cannot be passed by value)");
    size_t start = p->out->canonical.length;
    dc__text_append(&p->out->canonical, open, (size_t)(c + 1 - open));
    c++;

    dc__layout_node *fields = NULL;
    size_t count = 0, capacity = 0, element_count = 0;
    dc_status status = DC_OK;
    while (*c != '}') {
        if (*c == '"') { /* a field's name */
            const char *close = strchr(c + 1, '"');
            if (close == NULL) {
                status = parse_error(p, c, "unterminated field name");
                break;
            }
            c = close + 1;
            if (*c == '}' || *c == '"') {
                status = parse_error(p, c, "a field name without its type");
                break;
            }
            continue;
        }
        if (count == capacity) {
            capacity = capacity == 0 ? 8 : capacity * 2;
            dc__layout_node *grown = realloc(fields, capacity * sizeof *fields);
            if (grown == NULL) {
                status = out_of_memory(p);
                break;
            }
            fields = grown;
        }
        if ((status = parse_member(p, &c, depth, elements, &fields[count])) != DC_OK) break;
        element_count += fields[count].count;
        count++;
    }
    if (status == DC_OK && count == 0) status = parse_error(p, open, "an empty struct, which C cannot pass");
    if (status != DC_OK) {
        free(fields);
        return status;
    }
    dc__text_append(&p->out->canonical, "}", 1);

    /* C's layout: each field at the next multiple of its alignment. */
    size_t offset = 0, alignment = 1;
    for (size_t i = 0; i < count; i++) {
        offset = align_up(offset, fields[i].alignment);
        fields[i].offset = offset;
        offset += fields[i].size;
        if (fields[i].alignment > alignment) alignment = fields[i].alignment;
    }

    /* libffi's: an array counts as that many elements of its element type. */
    dc__layout_node *kept = arena_allocate(&p->out->arena, count * sizeof *kept);
    ffi_type *ffi = arena_allocate(&p->out->arena, sizeof *ffi);
    ffi_type **ffi_elements = arena_allocate(&p->out->arena, (element_count + 1) * sizeof *ffi_elements);
    const char *encoding = canonical_since(p, start);
    if (kept == NULL || ffi == NULL || ffi_elements == NULL || encoding == NULL) {
        free(fields);
        return out_of_memory(p);
    }
    memcpy(kept, fields, count * sizeof *kept);
    size_t e = 0;
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < fields[i].count; k++) ffi_elements[e++] = fields[i].ffi;
    free(fields);
    ffi_elements[e] = NULL;
    ffi->type = FFI_TYPE_STRUCT; /* size and alignment: ffi_prep_cif computes them */
    ffi->elements = ffi_elements;

    *out = (dc__layout_node){DC_TYPE_STRUCT, 1, align_up(offset, alignment), alignment, 0, count, kept, ffi,
                             encoding, 0};
    *at = c + 1;
    return DC_OK;
}

/* Parses one top-level type (return value or parameter) and its offset. */
static dc_status parse_type(parser *p, const char **at, dc_type *type, const dc__layout_node **layout) {
    const char *c = skip_qualifiers(*at);
    dc_status status = parse_scalar(p, &c, type);
    if (status != DC_OK) return status;
    *layout = NULL;
    if (dc__by_address(*type)) {
        /* long double and the complex types travel as structs do. */
        dc__layout_node *node = arena_allocate(&p->out->arena, sizeof *node);
        if (node == NULL) return out_of_memory(p);
        ffi_type *ffi = ffi_type_of(*type);
        *node = (dc__layout_node){*type, 1, ffi->size, ffi->alignment, 0, 0, NULL, ffi, dc__type_canonical(*type), 0};
        *layout = node;
    } else if (*type == DC_TYPE_COUNT) {
        if (*c != '{') return refuse_code(p, c, true);
        dc__layout_node *node = arena_allocate(&p->out->arena, sizeof *node);
        if (node == NULL) return out_of_memory(p);
        size_t elements = 0;
        if ((status = parse_struct(p, &c, 1, &elements, node)) != DC_OK) return status;
        node->id = dc__layout_id(node);
        *type = DC_TYPE_STRUCT;
        *layout = node;
    }
    *at = skip_offset(c);
    return DC_OK;
}

/* Whether a variadic argument of `type` reaches the callee as it is, after
 * C's default argument promotions. */
static const char *promoted_name(dc_type type) {
    switch (type) {
    case DC_TYPE_FLOAT: return "double (d)";
    case DC_TYPE_BOOL:
    case DC_TYPE_INT8:
    case DC_TYPE_UINT8:
    case DC_TYPE_INT16:
    case DC_TYPE_UINT16: return "int (i)";
    default: return NULL;
    }
}

/* Parses a whole encoding into `out`, whose canonical encoding and arena the
 * caller frees with parsed_free() (on success too, once interned). */
static dc_status parse_encoding(const char *encoding, bool variadic, size_t fixed_count, parsed_signature *out) {
    memset(out, 0, sizeof *out);
    parser p = {encoding, out};
    if (*encoding == '\0') return dc__fail(DC_ERR_BAD_SIGNATURE, "bad type encoding \"\": the encoding is empty");

    const char *cursor = encoding;
    dc_status status = parse_type(&p, &cursor, &out->return_type, &out->return_layout);
    if (status != DC_OK) return status;
    if (variadic && fixed_count == 0) dc__text_append(&out->canonical, "...", 3);

    while (*cursor != '\0') {
        const char *start = skip_qualifiers(cursor);
        dc_type type;
        const dc__layout_node *layout;
        if ((status = parse_type(&p, &cursor, &type, &layout)) != DC_OK) return status;
        if (type == DC_TYPE_VOID) return parse_error(&p, start, "void is not a parameter type");
        if (out->parameter_count == DC_MAX_PARAMETERS) {
            char limit[64];
            snprintf(limit, sizeof limit, "more than %d parameters", DC_MAX_PARAMETERS);
            return parse_error(&p, start, limit);
        }
        if (variadic && out->parameter_count >= fixed_count && promoted_name(type) != NULL) {
            char problem[160];
            snprintf(problem, sizeof problem,
                     "a variadic argument of type %s, which C passes promoted to %s: encode it so",
                     dc_type_name(type), promoted_name(type));
            return parse_error(&p, start, problem);
        }
        out->parameter_layouts[out->parameter_count] = layout;
        out->parameter_types[out->parameter_count++] = type;
        if (variadic && out->parameter_count == fixed_count) dc__text_append(&out->canonical, "...", 3);
    }
    if (variadic && fixed_count > out->parameter_count)
        return dc__fail(DC_ERR_BAD_SIGNATURE,
                        "bad variadic signature \"%.64s\": %zu fixed parameters, but the encoding has %zu parameters",
                        encoding, fixed_count, out->parameter_count);
    out->variadic = variadic;
    out->fixed_count = variadic ? fixed_count : out->parameter_count;
    if (out->canonical.out_of_memory) return out_of_memory(&p);
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

/* ---- preparing a call path ----------------------------------------------------- */

static dc_return_class return_class_of(dc_type type) {
    switch (type) {
    case DC_TYPE_VOID: return DC_RETURN_VOID;
    case DC_TYPE_FLOAT: return DC_RETURN_FLOAT;
    case DC_TYPE_DOUBLE: return DC_RETURN_DOUBLE;
    default: return DC_RETURN_INTEGER;
    }
}

/* libffi lays a struct out when it prepares the cif; it must agree with the
 * layout the queries report. */
static dc_status check_ffi_layout(const dc_signature *signature, const dc__layout_node *layout) {
    if (layout == NULL || (layout->ffi->size == layout->size && layout->ffi->alignment == layout->alignment))
        return DC_OK;
    return dc__fail(DC_ERR_FFI, "signature \"%s\": libffi lays out %s in %zu bytes aligned to %u, C in %zu aligned to %zu",
                    signature->encoding, layout->encoding, layout->ffi->size, (unsigned)layout->ffi->alignment,
                    layout->size, layout->alignment);
}

/* Whether ffi_call leaves a return value of `type` as the bytes of its
 * dc_value's member, in a value zeroed first: a 64-bit integer, a float or
 * double, a pointer, or none. A narrower integer comes back widened to
 * ffi_arg, which dc__return_value() narrows. */
static bool returns_member(dc_type type) {
    return type == DC_TYPE_VOID || type == DC_TYPE_INT64 || type == DC_TYPE_UINT64 || dc__is_floating(type) ||
           dc__is_pointer_like(type);
}

/* Which arguments dc_call() may read where the caller has them: on the
 * libffi path, parameters of one kind, no bool (whose value may need
 * making 0 or 1), and a return that ffi_call writes in place. */
static dc__in_place in_place_of(const dc_signature *signature) {
    if (signature->stub != NULL || signature->parameter_count == 0 || signature->parameter_count > DC__FEW_PARAMETERS ||
        (signature->return_layout == NULL && !returns_member(signature->return_type)))
        return DC__IN_PLACE_NONE;
    size_t by_address = 0;
    for (size_t i = 0; i < signature->parameter_count; i++) {
        if (signature->parameters[i].type == DC_TYPE_BOOL) return DC__IN_PLACE_NONE;
        by_address += dc__by_address(signature->parameters[i].type);
    }
    if (by_address == 0) return DC__IN_PLACE_SCALARS;
    return by_address == signature->parameter_count ? DC__IN_PLACE_BY_ADDRESS : DC__IN_PLACE_NONE;
}

static dc_status prepare(dc_signature *signature) {
    unsigned integers = 0, floats = 0;
    size_t largest_struct = 0;
    bool by_address = false; /* a parameter of a layout: a struct, long double or complex */
    signature->word_images = true;
    for (size_t i = 0; i < signature->parameter_count; i++) {
        dc_type type = signature->parameters[i].type;
        const dc__layout_node *layout = signature->parameter_layouts[i];
        if (!dc__is_pointer_like(type) && type != DC_TYPE_INT64 && type != DC_TYPE_UINT64)
            signature->word_images = false;
        signature->ffi_parameter_types[i] = layout != NULL ? layout->ffi : ffi_type_of(type);
        signature->parameter_sizes[i] = layout != NULL ? 0 : (uint8_t)signature->ffi_parameter_types[i]->size;
        if (layout != NULL) {
            signature->parameters[i].struct_id = dc__struct_value(NULL, layout).struct_id;
            by_address = true;
            /* Only a struct's argument pointer may be pointed elsewhere by
             * ffi_call (invocation.c): long double and complex ones stay. */
            if (type == DC_TYPE_STRUCT)
                signature->struct_parameters[signature->struct_parameter_count++] = (uint8_t)i;
            signature->struct_storage += dc__struct_storage_size(layout->size);
            if (layout->size > largest_struct) largest_struct = layout->size;
        }
        bool floating = dc__is_floating(type);
        unsigned *counter = floating ? &floats : &integers;
        signature->slots[i].is_floating = floating;
        signature->slots[i].index = (uint8_t)*counter;
        (*counter)++;
    }
    signature->return_class = return_class_of(signature->return_type);
    if (signature->return_layout != NULL)
        signature->return_kind = DC_RETURNS_STRUCT;
    else
        signature->return_kind = signature->return_type != DC_TYPE_VOID ? DC_RETURNS_SCALAR : DC_RETURNS_NOTHING;
    signature->returned.type = signature->return_type;
    if (signature->return_layout != NULL) {
        signature->struct_storage += dc__struct_storage_size(signature->return_layout->size);
        signature->returned.struct_id = dc__struct_value(NULL, signature->return_layout).struct_id;
    }
    if (largest_struct > 0 && (signature->zero_struct = arena_allocate(&signature->arena, largest_struct)) == NULL)
        return dc__fail(DC_ERR_NO_MEMORY, "no memory for signature \"%s\"", signature->encoding);

    ffi_type *return_ffi =
        signature->return_layout != NULL ? signature->return_layout->ffi : ffi_type_of(signature->return_type);
    ffi_status prepared =
        signature->variadic
            ? ffi_prep_cif_var(&signature->cif, FFI_DEFAULT_ABI, (unsigned)signature->fixed_count,
                               (unsigned)signature->parameter_count, return_ffi, signature->ffi_parameter_types)
            : ffi_prep_cif(&signature->cif, FFI_DEFAULT_ABI, (unsigned)signature->parameter_count, return_ffi,
                           signature->ffi_parameter_types);
    if (prepared != FFI_OK)
        return dc__fail(DC_ERR_FFI, "ffi_prep_cif failed with status %d for signature \"%s\"", (int)prepared,
                        signature->encoding);
    dc_status status = check_ffi_layout(signature, signature->return_layout);
    for (size_t i = 0; status == DC_OK && i < signature->parameter_count; i++)
        status = check_ffi_layout(signature, signature->parameter_layouts[i]);
    if (status == DC_OK && signature->struct_parameter_count > 0)
        status = dc__refuse_libffi_defects(&signature->cif, signature->encoding);
    if (status != DC_OK) return status;

    /* Stubs pass scalars in registers with the ordinary convention only. */
    bool stub_shaped = !signature->variadic && !by_address && signature->return_layout == NULL;
    signature->stub = stub_shaped ? dc__stub_lookup(signature->return_class, integers, floats) : NULL;
    signature->call_path = signature->stub != NULL ? DC_CALL_PATH_STUB : DC_CALL_PATH_FFI;
    if (signature->stub == NULL) signature->word_images = false; /* images are for stubs only */
    signature->in_place = in_place_of(signature);
    return DC_OK;
}

/* Finds the interned signature for `parsed` or creates, prepares and interns
 * it, taking its layouts. Frees what `parsed` holds either way. */
static dc_status intern(parsed_signature *parsed, dc_signature **out) {
    const char *encoding = parsed->canonical.data;
    size_t length = parsed->canonical.length;
    uint64_t hash = hash_string(encoding);
    dc_signature **bucket = &intern_buckets[hash % INTERN_BUCKETS];

    pthread_mutex_lock(&intern_lock);
    for (dc_signature *s = *bucket; s != NULL; s = s->next_interned) {
        if (s->hash == hash && strcmp(s->encoding, encoding) == 0 && retain_if_alive(s)) {
            pthread_mutex_unlock(&intern_lock);
            parsed_free(parsed);
            *out = s;
            return DC_OK;
        }
    }

    size_t count = parsed->parameter_count;
    size_t parameters_at = align_up(sizeof(dc_signature) + length + 1, _Alignof(dc__parameter));
    size_t ffi_types_at = align_up(parameters_at + count * sizeof(dc__parameter), _Alignof(ffi_type *));
    size_t layouts_at = ffi_types_at + count * sizeof(ffi_type *);
    size_t slots_at = layouts_at + count * sizeof(const dc__layout_node *);
    size_t sizes_at = slots_at + count * sizeof(dc_parameter_slot);
    size_t struct_parameters_at = sizes_at + count;
    dc_signature *signature = calloc(1, struct_parameters_at + count);
    if (signature == NULL) {
        pthread_mutex_unlock(&intern_lock);
        dc_status status = dc__fail(DC_ERR_NO_MEMORY, "no memory for signature \"%.64s\"", encoding);
        parsed_free(parsed);
        return status;
    }
    char *bytes = (char *)signature;
    signature->parameters = (dc__parameter *)(void *)(bytes + parameters_at);
    signature->ffi_parameter_types = (ffi_type **)(void *)(bytes + ffi_types_at);
    signature->parameter_layouts = (const dc__layout_node **)(void *)(bytes + layouts_at);
    signature->slots = (dc_parameter_slot *)(void *)(bytes + slots_at);
    signature->parameter_sizes = (uint8_t *)(bytes + sizes_at);
    signature->struct_parameters = (uint8_t *)(bytes + struct_parameters_at);
    atomic_init(&signature->reference_count, 1);
    signature->hash = hash;
    signature->return_type = parsed->return_type;
    signature->parameter_count = parsed->parameter_count;
    for (size_t i = 0; i < parsed->parameter_count; i++) signature->parameters[i].type = parsed->parameter_types[i];
    signature->return_layout = parsed->return_layout;
    memcpy(signature->parameter_layouts, parsed->parameter_layouts,
           parsed->parameter_count * sizeof parsed->parameter_layouts[0]);
    signature->variadic = parsed->variadic;
    signature->fixed_count = parsed->fixed_count;
    signature->arena = parsed->arena;
    parsed->arena = NULL;
    memcpy(signature->encoding, encoding, length + 1);
    parsed_free(parsed);

    dc_status status = prepare(signature);
    if (status != DC_OK) {
        pthread_mutex_unlock(&intern_lock);
        arena_free(signature->arena);
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

static dc_status create(const char *encoding, bool variadic, size_t fixed_count, dc_signature **out,
                        const char *function) {
    if (encoding == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "%s: encoding and out must not be NULL", function);
    parsed_signature parsed;
    dc_status status = parse_encoding(encoding, variadic, fixed_count, &parsed);
    if (status != DC_OK) {
        parsed_free(&parsed);
        return status;
    }
    return intern(&parsed, out);
}

DC_API dc_status dc_signature_create(const char *encoding, dc_signature **out) {
    return create(encoding, false, 0, out, "dc_signature_create");
}

DC_API dc_status dc_signature_create_variadic(const char *encoding, size_t fixed_count, dc_signature **out) {
    return create(encoding, true, fixed_count, out, "dc_signature_create_variadic");
}

/* dc_signature_create_with_types() of types whose parameters need layouts
 * (long double, the complex types): the parse of their canonical encoding. */
static dc_status create_from_canonical_types(dc_type return_type, const dc_type *parameter_types, size_t count,
                                             dc_signature **out) {
    dc__text text = {0};
    text_append_string(&text, dc__type_canonical(return_type));
    for (size_t i = 0; i < count; i++) text_append_string(&text, dc__type_canonical(parameter_types[i]));
    dc_status status = text.out_of_memory ? dc__fail(DC_ERR_NO_MEMORY, "dc_signature_create_with_types: out of memory")
                                          : dc_signature_create(text.data, out);
    free(text.data);
    return status;
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
    bool by_address = dc__by_address(return_type) && return_type != DC_TYPE_STRUCT;
    static const char struct_problem[] =
        "is a struct, whose fields a dc_type cannot say: use dc_signature_create with its encoding";
    if (return_type == DC_TYPE_STRUCT)
        return dc__fail(DC_ERR_BAD_SIGNATURE, "bad signature: the return type %s", struct_problem);
    for (size_t i = 0; i < count; i++) {
        dc_type type = parameter_types[i];
        if ((unsigned)type >= DC_TYPE_COUNT)
            return dc__fail(DC_ERR_BAD_SIGNATURE, "bad signature: parameter %zu has type %d, which is not a dc_type",
                            i, (int)type);
        if (type == DC_TYPE_STRUCT)
            return dc__fail(DC_ERR_BAD_SIGNATURE, "bad signature: parameter %zu %s", i, struct_problem);
        if (type == DC_TYPE_VOID)
            return dc__fail(DC_ERR_BAD_SIGNATURE, "bad signature: parameter %zu is void, which is not a parameter type",
                            i);
        if (dc__by_address(type)) by_address = true;
    }
    if (by_address) return create_from_canonical_types(return_type, parameter_types, count, out);
    parsed_signature parsed;
    memset(&parsed, 0, sizeof parsed);
    parsed.return_type = return_type;
    parsed.parameter_count = count;
    parsed.fixed_count = count;
    text_append_string(&parsed.canonical, dc__type_canonical(return_type));
    for (size_t i = 0; i < count; i++) {
        parsed.parameter_types[i] = parameter_types[i];
        text_append_string(&parsed.canonical, dc__type_canonical(parameter_types[i]));
    }
    if (parsed.canonical.out_of_memory) {
        parsed_free(&parsed);
        return dc__fail(DC_ERR_NO_MEMORY, "dc_signature_create_with_types: out of memory");
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
    arena_free(signature->arena);
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
    *out = signature->parameters[index].type;
    return DC_OK;
}

DC_API const char *dc_signature_encoding(const dc_signature *signature) {
    return signature != NULL ? signature->encoding : "";
}

DC_API dc_call_path dc_signature_call_path(const dc_signature *signature) {
    return signature != NULL ? signature->call_path : DC_CALL_PATH_FFI;
}

DC_API bool dc_signature_is_variadic(const dc_signature *signature) {
    return signature != NULL && signature->variadic;
}

DC_API size_t dc_signature_fixed_count(const dc_signature *signature) {
    return signature != NULL ? signature->fixed_count : 0;
}

/* ---- layouts ------------------------------------------------------------------------ */

static void describe_node(const dc__layout_node *node, dc_layout *out) {
    *out = (dc_layout){node->type,   node->size,        node->alignment, node->count,
                       node->offset, node->field_count, node->encoding,  node->type == DC_TYPE_STRUCT ? node : NULL};
}

/* A return value's or parameter's layout: its struct's, or its scalar's. */
static void describe(dc_type type, const dc__layout_node *layout, dc_layout *out) {
    if (layout != NULL) {
        describe_node(layout, out);
        return;
    }
    const ffi_type *ffi = ffi_type_of(type);
    bool is_void = type == DC_TYPE_VOID;
    *out = (dc_layout){type, is_void ? 0 : ffi->size, is_void ? 1 : ffi->alignment, 1, 0, 0, dc__type_canonical(type),
                       NULL};
}

DC_API dc_status dc_signature_return_layout(const dc_signature *signature, dc_layout *out) {
    if (signature == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_signature_return_layout: signature and out must not be NULL");
    describe(signature->return_type, signature->return_layout, out);
    return DC_OK;
}

DC_API dc_status dc_signature_parameter_layout(const dc_signature *signature, size_t index, dc_layout *out) {
    if (signature == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_signature_parameter_layout: signature and out must not be NULL");
    if (index >= signature->parameter_count)
        return dc__fail(DC_ERR_INDEX, "parameter index %zu is out of range for signature \"%s\" with %zu parameters",
                        index, signature->encoding, signature->parameter_count);
    describe(signature->parameters[index].type, signature->parameter_layouts[index], out);
    return DC_OK;
}

DC_API dc_status dc_layout_field(const dc_layout *layout, size_t index, dc_layout *out) {
    if (layout == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_layout_field: layout and out must not be NULL");
    const dc__layout_node *node = layout->detail;
    if (layout->type != DC_TYPE_STRUCT || node == NULL)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_layout_field: \"%s\" is not a struct", layout->encoding);
    if (index >= node->field_count)
        return dc__fail(DC_ERR_INDEX, "dc_layout_field: field index %zu is out of range for %s with %zu fields", index,
                        node->encoding, node->field_count);
    describe_node(&node->fields[index], out);
    return DC_OK;
}

DC_API size_t dc_signature_frame_size(const dc_signature *signature) {
    if (signature == NULL) return 0;
    size_t frame = 0;
    for (size_t i = 0; i < signature->parameter_count; i++) {
        dc_layout layout;
        describe(signature->parameters[i].type, signature->parameter_layouts[i], &layout);
        frame = align_up(frame, layout.alignment) + align_up(layout.size, sizeof(void *));
    }
    return frame;
}

bool dc__layouts_equal(const dc__layout_node *a, const dc__layout_node *b) {
    if (a == b) return true;
    if (a == NULL || b == NULL) return false;
    /* Identities are given by exactly what follows compares. */
    if (a->id != 0 && b->id != 0) return a->id == b->id;
    if (a->type != b->type || a->count != b->count || a->size != b->size || a->alignment != b->alignment ||
        a->offset != b->offset || a->field_count != b->field_count)
        return false;
    for (size_t i = 0; i < a->field_count; i++)
        if (!dc__layouts_equal(&a->fields[i], &b->fields[i])) return false;
    return true;
}
