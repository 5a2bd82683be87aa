/*
 * encoding_model.h — a reference model of the type-encoding grammar, for
 * fuzz_signature.c: for an encoding (and a fixed count, when the signature is
 * variadic) what dc_signature_create and dc_signature_create_variadic must
 * answer: accepted, or refused with DC_ERR_BAD_SIGNATURE or
 * DC_ERR_UNSUPPORTED; the return and parameter types; the canonical encoding;
 * every layout (size, alignment, count, offsets, fields) by C's rules, from
 * sizeof and _Alignof of the C types on this platform.
 *
 * It is written from dispatch_core.h (dc_signature_create,
 * dc_signature_create_variadic, dc_signature_encoding, "Structs by value"),
 * as one recursive descent that reads left to right and stops at the first
 * refusal:
 *
 *   signature := item+                       the return type, then parameters
 *   item      := qualifier* value offset?    qualifiers r n N o O R V
 *   offset    := '-'? digit+                 skipped
 *   value     := scalar | 'v' (return only) | struct
 *              | '(' 'b'                     DC_ERR_UNSUPPORTED, wherever a value may be
 *              | '['                         DC_ERR_BAD_SIGNATURE outside a struct
 *   scalar    := B c C s S i I l L q Q f d D # * : | 'j' (f | d | D)
 *              | '@' ('?' | '"' name '"')? | '^' pointee
 *   struct    := '{' name '=' field+ '}'     name: any bytes but = { }
 *   field     := ('"' name '"')? qualifier* (scalar | struct | array)
 *   array     := '[' count qualifier* (scalar | struct | array) ']'   count 1 to 4096
 *
 * Limits: structs and arrays nest at most DC_MAX_NESTING deep (a top-level
 * struct is 1 deep); a struct parameter or return holds at most
 * DC_MAX_STRUCT_ELEMENTS scalars, each array element counted, checked each
 * time a field or an array is complete; DC_MAX_PARAMETERS parameters, the
 * next one refused once it is read (a union or bit-field in it is refused
 * as such). In a variadic signature, parameters from
 * fixed_count on must not be B c C s S f; fixed_count above the parameter
 * count is refused once the whole encoding is read.
 *
 * What the header leaves open the model takes as the library shows it:
 *  - a pointee is "whatever it points to": qualifiers, then v ? D, jf jd
 *    jD, a scalar code, '@' with its suffix, another '^' pointee, 'b' with a width, or an
 *    aggregate { ( [ read to its closer, nested brackets and quoted runs
 *    skipped, and nothing inside checked (nor nesting, nor elements). The
 *    model wants each closer to match its bracket and says when one did not
 *    (mismatched_closer), which the library does not check;
 *  - a '^' chain may be limited (pointer_chain_limit), as the library's is;
 *  - offsets may be negative ("v8@-8");
 *  - an array of arrays is described flat: its layout's type and field count
 *    are its innermost element's, its count that of all innermost elements.
 *
 * Canonical encodings: one code per scalar ("^v" for every pointer, ':' as
 * '*', '#' and "@?" and @"Name" as '@', 'l' as 'i', 'L' as 'I'), a struct as
 * '{' name '=' fields '}' (field names and qualifiers dropped), an array as
 * '[' count element ']' with the count in decimal; "..." before the first
 * variadic parameter.
 */
#ifndef DC_ENCODING_MODEL_H
#define DC_ENCODING_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch_core.h"

enum { EM_NONE = -1 };

typedef enum em_kind { EM_SCALAR, EM_STRUCT, EM_ARRAY } em_kind;

typedef struct em_node {
    em_kind kind;
    dc_type type;        /* a scalar's; DC_TYPE_STRUCT; an array's innermost element's */
    size_t size;
    size_t alignment;
    size_t count;        /* an array's innermost elements (nested arrays flattened); 1 otherwise */
    size_t length;       /* an array's own count */
    size_t offset;       /* a field's offset in its struct (an element's: 0) */
    size_t field_count;  /* a struct's fields; an array's innermost struct's; 0 otherwise */
    int first_field;     /* a struct's first field */
    int next_field;      /* a field's next sibling */
    int element;         /* an array's element */
    const char *name;    /* a struct's name, as written */
    size_t name_length;
} em_node;

typedef enum em_place { EM_RETURN, EM_PARAMETER, EM_FIELD, EM_ELEMENT } em_place;

typedef struct em_model {
    const char *text;
    size_t at;
    bool variadic;
    size_t fixed_count;
    size_t pointer_chain_limit; /* most '^' in a row the library takes; 0: no limit */

    em_node *nodes;
    size_t node_count;
    size_t node_capacity;
    char *closers; /* a pointee aggregate's open brackets' closers */
    size_t struct_scalars; /* scalars so far in the struct parameter or return being read */

    /* The answer. */
    dc_status status;
    size_t error_at;    /* where the refusal is */
    const char *reason; /* what it is */
    bool mismatched_closer;       /* refused: a pointee aggregate closed by another bracket */
    int items[DC_MAX_PARAMETERS + 1]; /* return, then parameters */
    size_t parameter_count;
} em_model;

/* ---- C's sizes ------------------------------------------------------------------- */

static size_t em_size_of(dc_type type) {
    switch (type) {
    case DC_TYPE_VOID: return 0;
    case DC_TYPE_BOOL: return sizeof(bool);
    case DC_TYPE_INT8: return sizeof(int8_t);
    case DC_TYPE_UINT8: return sizeof(uint8_t);
    case DC_TYPE_INT16: return sizeof(int16_t);
    case DC_TYPE_UINT16: return sizeof(uint16_t);
    case DC_TYPE_INT32: return sizeof(int32_t);
    case DC_TYPE_UINT32: return sizeof(uint32_t);
    case DC_TYPE_INT64: return sizeof(int64_t);
    case DC_TYPE_UINT64: return sizeof(uint64_t);
    case DC_TYPE_FLOAT: return sizeof(float);
    case DC_TYPE_DOUBLE: return sizeof(double);
    case DC_TYPE_OBJECT: return sizeof(void *);
    case DC_TYPE_POINTER: return sizeof(void *);
    case DC_TYPE_STRING: return sizeof(char *);
    case DC_TYPE_LONG_DOUBLE: return sizeof(long double);
    case DC_TYPE_COMPLEX_FLOAT: return sizeof(float _Complex);
    case DC_TYPE_COMPLEX_DOUBLE: return sizeof(double _Complex);
    case DC_TYPE_COMPLEX_LONG_DOUBLE: return sizeof(long double _Complex);
    default: return 0;
    }
}

static size_t em_alignment_of(dc_type type) {
    switch (type) {
    case DC_TYPE_VOID: return 1;
    case DC_TYPE_BOOL: return _Alignof(bool);
    case DC_TYPE_INT8: return _Alignof(int8_t);
    case DC_TYPE_UINT8: return _Alignof(uint8_t);
    case DC_TYPE_INT16: return _Alignof(int16_t);
    case DC_TYPE_UINT16: return _Alignof(uint16_t);
    case DC_TYPE_INT32: return _Alignof(int32_t);
    case DC_TYPE_UINT32: return _Alignof(uint32_t);
    case DC_TYPE_INT64: return _Alignof(int64_t);
    case DC_TYPE_UINT64: return _Alignof(uint64_t);
    case DC_TYPE_FLOAT: return _Alignof(float);
    case DC_TYPE_DOUBLE: return _Alignof(double);
    case DC_TYPE_OBJECT: return _Alignof(void *);
    case DC_TYPE_POINTER: return _Alignof(void *);
    case DC_TYPE_STRING: return _Alignof(char *);
    case DC_TYPE_LONG_DOUBLE: return _Alignof(long double);
    case DC_TYPE_COMPLEX_FLOAT: return _Alignof(float _Complex);
    case DC_TYPE_COMPLEX_DOUBLE: return _Alignof(double _Complex);
    case DC_TYPE_COMPLEX_LONG_DOUBLE: return _Alignof(long double _Complex);
    default: return 1;
    }
}

static size_t em_round_up(size_t value, size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

/* ---- reading ----------------------------------------------------------------------- */

static bool em_refuse(em_model *m, dc_status status, size_t at, const char *reason) {
    m->status = status;
    m->error_at = at;
    m->reason = reason;
    return false;
}

static bool em_is_qualifier(char c) { return c != '\0' && strchr("rnNoORV", c) != NULL; }
static bool em_is_digit(char c) { return c >= '0' && c <= '9'; }

static void em_skip_qualifiers(em_model *m) {
    while (em_is_qualifier(m->text[m->at])) m->at++;
}

static int em_new_node(em_model *m, em_kind kind, dc_type type) {
    em_node *node = &m->nodes[m->node_count];
    memset(node, 0, sizeof *node);
    node->kind = kind;
    node->type = type;
    node->size = em_size_of(type);
    node->alignment = em_alignment_of(type);
    node->count = 1;
    node->length = 1;
    node->first_field = node->next_field = node->element = EM_NONE;
    return (int)m->node_count++;
}

/* The complex type 'j' and the code after it stand for; false for any other. */
static bool em_complex_type(char part, dc_type *out) {
    switch (part) {
    case 'f': *out = DC_TYPE_COMPLEX_FLOAT; return true;
    case 'd': *out = DC_TYPE_COMPLEX_DOUBLE; return true;
    case 'D': *out = DC_TYPE_COMPLEX_LONG_DOUBLE; return true;
    default: return false;
    }
}

/* The scalar a code stands for ('^' and '@' included, 'j' not: it takes two
 * bytes); false for any other byte. */
static bool em_scalar_type(char c, dc_type *out) {
    switch (c) {
    case 'B': *out = DC_TYPE_BOOL; return true;
    case 'c': *out = DC_TYPE_INT8; return true;
    case 'C': *out = DC_TYPE_UINT8; return true;
    case 's': *out = DC_TYPE_INT16; return true;
    case 'S': *out = DC_TYPE_UINT16; return true;
    case 'i': case 'l': *out = DC_TYPE_INT32; return true;
    case 'I': case 'L': *out = DC_TYPE_UINT32; return true;
    case 'q': *out = DC_TYPE_INT64; return true;
    case 'Q': *out = DC_TYPE_UINT64; return true;
    case 'f': *out = DC_TYPE_FLOAT; return true;
    case 'd': *out = DC_TYPE_DOUBLE; return true;
    case 'D': *out = DC_TYPE_LONG_DOUBLE; return true;
    case '@': case '#': *out = DC_TYPE_OBJECT; return true;
    case '*': case ':': *out = DC_TYPE_STRING; return true;
    case '^': *out = DC_TYPE_POINTER; return true;
    default: return false;
    }
}

/* After '@': a block's '?' or a class name in quotes, or nothing. */
static bool em_skip_object_suffix(em_model *m) {
    if (m->text[m->at] == '?') {
        m->at++;
    } else if (m->text[m->at] == '"') {
        const char *end = strchr(m->text + m->at + 1, '"');
        if (end == NULL) return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "unterminated class name");
        m->at = (size_t)(end - m->text) + 1;
    }
    return true;
}

/* An aggregate pointee, from its opening bracket to its closer. */
static bool em_skip_pointee_aggregate(em_model *m) {
    size_t open = m->at, depth = 0;
    for (;;) {
        char c = m->text[m->at];
        switch (c) {
        case '\0': return em_refuse(m, DC_ERR_BAD_SIGNATURE, open, "unterminated aggregate pointee");
        case '"': {
            const char *end = strchr(m->text + m->at + 1, '"');
            if (end == NULL) return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "unterminated quoted name in a pointee");
            m->at = (size_t)(end - m->text) + 1;
            continue;
        }
        case '{': m->closers[depth++] = '}'; break;
        case '(': m->closers[depth++] = ')'; break;
        case '[': m->closers[depth++] = ']'; break;
        case '}': case ')': case ']':
            if (c != m->closers[depth - 1]) {
                m->mismatched_closer = true;
                return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "a pointee's bracket closed by another kind");
            }
            if (--depth == 0) {
                m->at++;
                return true;
            }
            break;
        default: break;
        }
        m->at++;
    }
}

/* After the `chain`th '^' of a pointer to pointer to ...: the pointee,
 * whatever it is, but it must be there and well formed. */
static bool em_skip_pointee(em_model *m, size_t chain) {
    size_t caret = m->at - 1;
    em_skip_qualifiers(m);
    if (m->pointer_chain_limit != 0 && chain > m->pointer_chain_limit)
        return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "pointers to pointers chained past the library's limit");
    char c = m->text[m->at];
    dc_type ignored;
    if (c == '\0') return em_refuse(m, DC_ERR_BAD_SIGNATURE, caret, "'^' without a pointee");
    if (c == 'v' || c == '?' || c == 'D') {
        m->at++;
        return true;
    }
    if (c == 'b') {
        m->at++;
        if (!em_is_digit(m->text[m->at])) return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at - 1, "bit-field without a width");
        while (em_is_digit(m->text[m->at])) m->at++;
        return true;
    }
    if (c == '{' || c == '(' || c == '[') return em_skip_pointee_aggregate(m);
    if (c == 'j') {
        if (!em_complex_type(m->text[m->at + 1], &ignored))
            return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "unknown pointee code");
        m->at += 2;
        return true;
    }
    if (!em_scalar_type(c, &ignored)) return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "unknown pointee code");
    m->at++;
    if (c == '@') return em_skip_object_suffix(m);
    if (c == '^') return em_skip_pointee(m, chain + 1);
    return true;
}

/* Counts a completed field or array's scalars against the struct's limit. */
static bool em_check_struct_scalars(em_model *m, size_t at) {
    if (m->struct_scalars > DC_MAX_STRUCT_ELEMENTS)
        return em_refuse(m, DC_ERR_BAD_SIGNATURE, at, "a struct of more than DC_MAX_STRUCT_ELEMENTS scalars");
    return true;
}

static bool em_parse_value(em_model *m, em_place place, size_t depth, int *out);

static bool em_parse_struct(em_model *m, size_t depth, int *out) {
    size_t open = m->at;
    if (depth > DC_MAX_NESTING) return em_refuse(m, DC_ERR_BAD_SIGNATURE, open, "nested more than DC_MAX_NESTING deep");
    m->at++;
    size_t name_start = m->at;
    for (;; m->at++) {
        char c = m->text[m->at];
        if (c == '=') break;
        if (c == '\0') return em_refuse(m, DC_ERR_BAD_SIGNATURE, open, "unterminated struct");
        if (c == '}' || c == '{') return em_refuse(m, DC_ERR_BAD_SIGNATURE, open, "a struct by value without fields");
    }
    int self = em_new_node(m, EM_STRUCT, DC_TYPE_STRUCT);
    m->nodes[self].name = m->text + name_start;
    m->nodes[self].name_length = m->at - name_start;
    m->at++;
    if (m->text[m->at] == '}') return em_refuse(m, DC_ERR_BAD_SIGNATURE, open, "an empty struct");

    size_t end = 0, alignment = 1;
    int last = EM_NONE;
    while (m->text[m->at] != '}') {
        size_t field_start = m->at;
        if (m->text[m->at] == '"') {
            const char *close = strchr(m->text + m->at + 1, '"');
            if (close == NULL) return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "unterminated field name");
            m->at = (size_t)(close - m->text) + 1;
            if (m->text[m->at] == '"' || m->text[m->at] == '}')
                return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "a field name without its type");
        }
        em_skip_qualifiers(m);
        if (m->text[m->at] == '\0') return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "unterminated struct");
        int field;
        if (!em_parse_value(m, EM_FIELD, depth, &field)) return false;
        if (!em_check_struct_scalars(m, field_start)) return false;
        em_node *f = &m->nodes[field];
        f->offset = em_round_up(end, f->alignment);
        end = f->offset + f->size;
        if (f->alignment > alignment) alignment = f->alignment;
        if (last == EM_NONE)
            m->nodes[self].first_field = field;
        else
            m->nodes[last].next_field = field;
        last = field;
        m->nodes[self].field_count++;
    }
    m->at++;
    m->nodes[self].alignment = alignment;
    m->nodes[self].size = em_round_up(end, alignment);
    *out = self;
    return true;
}

static bool em_parse_array(em_model *m, size_t depth, int *out) {
    size_t open = m->at;
    if (depth > DC_MAX_NESTING) return em_refuse(m, DC_ERR_BAD_SIGNATURE, open, "nested more than DC_MAX_NESTING deep");
    m->at++;
    size_t length = 0;
    while (em_is_digit(m->text[m->at])) {
        if (length <= DC_MAX_STRUCT_ELEMENTS) length = length * 10 + (size_t)(m->text[m->at] - '0');
        m->at++;
    }
    if (length == 0 || length > DC_MAX_STRUCT_ELEMENTS)
        return em_refuse(m, DC_ERR_BAD_SIGNATURE, open, "an array count outside 1 to DC_MAX_STRUCT_ELEMENTS");
    em_skip_qualifiers(m);
    if (m->text[m->at] == '\0') return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "unterminated array");
    size_t scalars_before = m->struct_scalars;
    int element;
    if (!em_parse_value(m, EM_ELEMENT, depth, &element)) return false;
    if (m->text[m->at] != ']') return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "an array's element not followed by ]");
    m->at++;
    m->struct_scalars = scalars_before + length * (m->struct_scalars - scalars_before);
    if (!em_check_struct_scalars(m, open)) return false;

    const em_node *e = &m->nodes[element];
    int self = em_new_node(m, EM_ARRAY, e->type);
    em_node *a = &m->nodes[self];
    e = &m->nodes[element];
    a->element = element;
    a->length = length;
    a->count = length * e->count;
    a->size = length * e->size;
    a->alignment = e->alignment;
    a->field_count = e->field_count;
    *out = self;
    return true;
}

static bool em_parse_value(em_model *m, em_place place, size_t depth, int *out) {
    size_t start = m->at;
    char c = m->text[start];
    dc_type type;
    switch (c) {
    case '(': return em_refuse(m, DC_ERR_UNSUPPORTED, start, "a union");
    case 'b': return em_refuse(m, DC_ERR_UNSUPPORTED, start, "a bit-field");
    case '{': return em_parse_struct(m, depth + 1, out);
    case '[':
        if (place == EM_RETURN || place == EM_PARAMETER)
            return em_refuse(m, DC_ERR_BAD_SIGNATURE, start, "an array by value outside a struct");
        return em_parse_array(m, depth + 1, out);
    case 'v':
        if (place != EM_RETURN) return em_refuse(m, DC_ERR_BAD_SIGNATURE, start, "void as a parameter or field");
        m->at++;
        *out = em_new_node(m, EM_SCALAR, DC_TYPE_VOID);
        return true;
    case 'j':
        if (!em_complex_type(m->text[start + 1], &type))
            return em_refuse(m, DC_ERR_BAD_SIGNATURE, start, "a complex type other than jf, jd, jD");
        m->at++; /* the 'j'; the part below */
        break;
    default:
        if (!em_scalar_type(c, &type)) return em_refuse(m, DC_ERR_BAD_SIGNATURE, start, "unknown type code");
        break;
    }
    m->at++;
    if (c == '@' && !em_skip_object_suffix(m)) return false;
    if (c == '^' && !em_skip_pointee(m, 1)) return false;
    if (place == EM_FIELD || place == EM_ELEMENT) m->struct_scalars++;
    *out = em_new_node(m, EM_SCALAR, type);
    return true;
}

static bool em_is_unpromoted(dc_type type) {
    return type == DC_TYPE_BOOL || type == DC_TYPE_INT8 || type == DC_TYPE_UINT8 || type == DC_TYPE_INT16 ||
           type == DC_TYPE_UINT16 || type == DC_TYPE_FLOAT;
}

static bool em_parse_items(em_model *m) {
    if (m->text[0] == '\0') return em_refuse(m, DC_ERR_BAD_SIGNATURE, 0, "empty encoding");
    size_t items = 0;
    while (m->text[m->at] != '\0') {
        em_skip_qualifiers(m);
        if (m->text[m->at] == '\0') return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "qualifiers without a type");
        bool is_return = items == 0;
        m->struct_scalars = 0;
        size_t start = m->at;
        int node;
        if (!em_parse_value(m, is_return ? EM_RETURN : EM_PARAMETER, 0, &node)) return false;
        if (!is_return && items - 1 == DC_MAX_PARAMETERS)
            return em_refuse(m, DC_ERR_BAD_SIGNATURE, start, "more than DC_MAX_PARAMETERS parameters");
        if (!is_return && m->variadic && items - 1 >= m->fixed_count && m->nodes[node].kind == EM_SCALAR &&
            em_is_unpromoted(m->nodes[node].type))
            return em_refuse(m, DC_ERR_BAD_SIGNATURE, start, "an unpromoted type in the variadic part");
        m->items[items++] = node;
        if (m->text[m->at] == '-' && em_is_digit(m->text[m->at + 1])) m->at++;
        while (em_is_digit(m->text[m->at])) m->at++;
    }
    m->parameter_count = items - 1;
    if (m->variadic && m->fixed_count > m->parameter_count)
        return em_refuse(m, DC_ERR_BAD_SIGNATURE, m->at, "fixed_count above the parameter count");
    return true;
}

/* Reads `text` as dc_signature_create (variadic false) or
 * dc_signature_create_variadic(text, fixed_count) would, refusing more than
 * `pointer_chain_limit` '^' in a row (0: any number). Returns false when out
 * of memory. Free with em_model_free. */
static bool em_model_parse(em_model *m, const char *text, bool variadic, size_t fixed_count,
                           size_t pointer_chain_limit) {
    memset(m, 0, sizeof *m);
    m->text = text;
    m->variadic = variadic;
    m->fixed_count = fixed_count;
    m->pointer_chain_limit = pointer_chain_limit;
    size_t length = strlen(text);
    m->node_capacity = length + 1; /* each node takes at least one byte of text */
    m->nodes = malloc(m->node_capacity * sizeof *m->nodes);
    m->closers = malloc(length + 1);
    if (m->nodes == NULL || m->closers == NULL) return false;
    m->status = em_parse_items(m) ? DC_OK : m->status;
    return true;
}

static void em_model_free(em_model *m) {
    free(m->nodes);
    free(m->closers);
    m->nodes = NULL;
    m->closers = NULL;
}

/* ---- answers --------------------------------------------------------------------- */

static const em_node *em_node_at(const em_model *m, int index) { return &m->nodes[index]; }

/* The struct whose fields dc_layout_field reads for a layout: the struct
 * itself, or an array's innermost element struct; EM_NONE for others. */
static int em_fields_of(const em_model *m, int index) {
    while (m->nodes[index].kind == EM_ARRAY) index = m->nodes[index].element;
    return m->nodes[index].kind == EM_STRUCT ? index : EM_NONE;
}

static int em_field(const em_model *m, int structure, size_t index) {
    int field = m->nodes[structure].first_field;
    while (index-- > 0) field = m->nodes[field].next_field;
    return field;
}

/* A growing string. */
typedef struct em_text {
    char *data;
    size_t length;
    size_t capacity;
} em_text;

static void em_put(em_text *t, const char *bytes, size_t count) {
    if (t->length + count + 1 > t->capacity) {
        size_t capacity = t->capacity == 0 ? 64 : t->capacity;
        while (t->length + count + 1 > capacity) capacity *= 2;
        char *grown = realloc(t->data, capacity);
        if (grown == NULL) abort();
        t->data = grown;
        t->capacity = capacity;
    }
    memcpy(t->data + t->length, bytes, count);
    t->length += count;
    t->data[t->length] = '\0';
}

static void em_put_text(em_text *t, const char *text) { em_put(t, text, strlen(text)); }

static char em_scalar_code(dc_type type) {
    static const char codes[] = "vBcCsSiIqQfd@^*{D";
    return (unsigned)type < sizeof codes - 1 ? codes[type] : '?';
}

/* A value's canonical encoding. */
static void em_write_encoding(const em_model *m, int index, em_text *out) {
    const em_node *n = &m->nodes[index];
    char buffer[32];
    switch (n->kind) {
    case EM_SCALAR:
        if (n->type == DC_TYPE_POINTER) {
            em_put_text(out, "^v");
        } else if (n->type == DC_TYPE_COMPLEX_FLOAT || n->type == DC_TYPE_COMPLEX_DOUBLE ||
                   n->type == DC_TYPE_COMPLEX_LONG_DOUBLE) {
            em_put_text(out, n->type == DC_TYPE_COMPLEX_FLOAT ? "jf" : n->type == DC_TYPE_COMPLEX_DOUBLE ? "jd" : "jD");
        } else {
            buffer[0] = em_scalar_code(n->type);
            em_put(out, buffer, 1);
        }
        break;
    case EM_STRUCT:
        em_put_text(out, "{");
        em_put(out, n->name, n->name_length);
        em_put_text(out, "=");
        for (int field = n->first_field; field != EM_NONE; field = m->nodes[field].next_field)
            em_write_encoding(m, field, out);
        em_put_text(out, "}");
        break;
    case EM_ARRAY:
        em_put_text(out, "[");
        snprintf(buffer, sizeof buffer, "%zu", n->length);
        em_put_text(out, buffer);
        em_write_encoding(m, n->element, out);
        em_put_text(out, "]");
        break;
    }
}

/* The signature's canonical encoding, with "..." where a variadic part
 * starts when `marker` (without it, what parses back with the fixed count). */
static void em_write_signature(const em_model *m, bool marker, em_text *out) {
    for (size_t i = 0; i <= m->parameter_count; i++) {
        if (marker && m->variadic && i == m->fixed_count + 1) em_put_text(out, "...");
        em_write_encoding(m, m->items[i], out);
    }
    if (marker && m->variadic && m->fixed_count == m->parameter_count) em_put_text(out, "...");
}

/* NSMethodSignature's frameLength: each parameter at the next multiple of its
 * alignment, taking a multiple of the pointer size. */
static size_t em_frame_size(const em_model *m) {
    size_t frame = 0;
    for (size_t i = 1; i <= m->parameter_count; i++) {
        const em_node *p = &m->nodes[m->items[i]];
        frame = em_round_up(frame, p->alignment) + em_round_up(p->size, sizeof(void *));
    }
    return frame;
}

static bool em_has_struct(const em_model *m) {
    for (size_t i = 0; i <= m->parameter_count; i++)
        if (m->nodes[m->items[i]].kind == EM_STRUCT) return true;
    return false;
}

#endif /* DC_ENCODING_MODEL_H */
