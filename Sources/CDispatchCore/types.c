/*
 * types.c — status codes, the per-thread error message, type names and the
 * conversion rule every argument passes through.
 */
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* ---- status codes -------------------------------------------------------- */

static const char *const status_strings[] = {
#define DC_STATUS_STRING_ITEM(name, text) text,
    DC_STATUS_LIST(DC_STATUS_STRING_ITEM)
#undef DC_STATUS_STRING_ITEM
};

static const char *const status_names[] = {
#define DC_STATUS_NAME_ITEM(name, text) #name,
    DC_STATUS_LIST(DC_STATUS_NAME_ITEM)
#undef DC_STATUS_NAME_ITEM
};

DC_API const char *dc_status_string(dc_status status) {
    if ((unsigned)status >= DC_STATUS_COUNT) return "unknown status";
    return status_strings[status];
}

DC_API const char *dc_status_name(dc_status status) {
    if ((unsigned)status >= DC_STATUS_COUNT) return "DC_UNKNOWN";
    return status_names[status];
}

/* ---- the last failure's message ----------------------------------------- */

static _Thread_local char last_error_message[512];

DC_API const char *dc_last_error_message(void) { return last_error_message; }

dc_status dc__fail(dc_status status, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(last_error_message, sizeof last_error_message, format, arguments);
    va_end(arguments);
    return status;
}

/* ---- types ---------------------------------------------------------------- */

static const struct {
    const char *name;
    const char *canonical; /* the canonical encoding; the first character is the code */
} type_table[DC_TYPE_COUNT] = {
    [DC_TYPE_VOID] = {"void", "v"},       [DC_TYPE_BOOL] = {"bool", "B"},
    [DC_TYPE_INT8] = {"int8", "c"},       [DC_TYPE_UINT8] = {"uint8", "C"},
    [DC_TYPE_INT16] = {"int16", "s"},     [DC_TYPE_UINT16] = {"uint16", "S"},
    [DC_TYPE_INT32] = {"int32", "i"},     [DC_TYPE_UINT32] = {"uint32", "I"},
    [DC_TYPE_INT64] = {"int64", "q"},     [DC_TYPE_UINT64] = {"uint64", "Q"},
    [DC_TYPE_FLOAT] = {"float", "f"},     [DC_TYPE_DOUBLE] = {"double", "d"},
    [DC_TYPE_OBJECT] = {"object", "@"},   [DC_TYPE_POINTER] = {"pointer", "^v"},
    [DC_TYPE_STRING] = {"string", "*"},   [DC_TYPE_STRUCT] = {"struct", "{"},
    [DC_TYPE_LONG_DOUBLE] = {"long double", "D"},
    [DC_TYPE_COMPLEX_FLOAT] = {"complex float", "jf"},
    [DC_TYPE_COMPLEX_DOUBLE] = {"complex double", "jd"},
    [DC_TYPE_COMPLEX_LONG_DOUBLE] = {"complex long double", "jD"},
};


DC_API const char *dc_type_name(dc_type type) {
    if ((unsigned)type >= DC_TYPE_COUNT) return "invalid";
    return type_table[type].name;
}

DC_API char dc_type_encoding(dc_type type) {
    if ((unsigned)type >= DC_TYPE_COUNT) return '\0';
    return type_table[type].canonical[0];
}

const char *dc__type_canonical(dc_type type) {
    if ((unsigned)type >= DC_TYPE_COUNT || type == DC_TYPE_STRUCT) return "";
    return type_table[type].canonical;
}

/* ---- conversion ------------------------------------------------------------ */

static bool is_signed_integer(dc_type type) {
    return type == DC_TYPE_INT8 || type == DC_TYPE_INT16 || type == DC_TYPE_INT32 ||
           type == DC_TYPE_INT64;
}

static bool is_unsigned_integer(dc_type type) {
    return type == DC_TYPE_UINT8 || type == DC_TYPE_UINT16 || type == DC_TYPE_UINT32 ||
           type == DC_TYPE_UINT64;
}

/* An integer of any width, read so every range check is exact: `negative`
 * says which of the two fields to compare; `unsigned_value` always holds the
 * two's-complement bits, from which every width is written. */
typedef struct integer_value {
    bool negative;
    int64_t signed_value;
    uint64_t unsigned_value;
} integer_value;

static integer_value read_integer(const dc_value *value) {
    integer_value result = {false, 0, 0};
    int64_t s = 0;
    switch (value->type) {
    case DC_TYPE_INT8: s = value->i8; break;
    case DC_TYPE_INT16: s = value->i16; break;
    case DC_TYPE_INT32: s = value->i32; break;
    case DC_TYPE_INT64: s = value->i64; break;
    case DC_TYPE_UINT8: result.unsigned_value = value->u8; return result;
    case DC_TYPE_UINT16: result.unsigned_value = value->u16; return result;
    case DC_TYPE_UINT32: result.unsigned_value = value->u32; return result;
    case DC_TYPE_UINT64: result.unsigned_value = value->u64; return result;
    default: return result;
    }
    result.signed_value = s;
    result.negative = s < 0;
    result.unsigned_value = (uint64_t)s;
    return result;
}

static bool integer_fits(integer_value v, dc_type type) {
    switch (type) {
    case DC_TYPE_INT8: return v.negative ? v.signed_value >= INT8_MIN : v.unsigned_value <= INT8_MAX;
    case DC_TYPE_INT16: return v.negative ? v.signed_value >= INT16_MIN : v.unsigned_value <= INT16_MAX;
    case DC_TYPE_INT32: return v.negative ? v.signed_value >= INT32_MIN : v.unsigned_value <= INT32_MAX;
    case DC_TYPE_INT64: return v.negative || v.unsigned_value <= INT64_MAX;
    case DC_TYPE_UINT8: return !v.negative && v.unsigned_value <= UINT8_MAX;
    case DC_TYPE_UINT16: return !v.negative && v.unsigned_value <= UINT16_MAX;
    case DC_TYPE_UINT32: return !v.negative && v.unsigned_value <= UINT32_MAX;
    case DC_TYPE_UINT64: return !v.negative;
    default: return false;
    }
}

static void write_integer(integer_value v, dc_type type, dc_value *out) {
    out->u64 = 0;
    out->type = type;
    out->struct_id = 0;
    switch (type) {
    case DC_TYPE_INT8: out->i8 = (int8_t)v.unsigned_value; break;
    case DC_TYPE_INT16: out->i16 = (int16_t)v.unsigned_value; break;
    case DC_TYPE_INT32: out->i32 = (int32_t)v.unsigned_value; break;
    case DC_TYPE_INT64: out->i64 = (int64_t)v.unsigned_value; break;
    case DC_TYPE_UINT8: out->u8 = (uint8_t)v.unsigned_value; break;
    case DC_TYPE_UINT16: out->u16 = (uint16_t)v.unsigned_value; break;
    case DC_TYPE_UINT32: out->u32 = (uint32_t)v.unsigned_value; break;
    case DC_TYPE_UINT64: out->u64 = v.unsigned_value; break;
    default: break;
    }
}

static void *pointer_of(const dc_value *value) {
    return value->type == DC_TYPE_STRING ? (void *)value->string : value->pointer;
}

static dc_value pointer_value(dc_type type, void *pointer) {
    dc_value out;
    out.u64 = 0;
    out.type = type;
    out.struct_id = 0;
    if (type == DC_TYPE_STRING)
        out.string = (char *)pointer;
    else
        out.pointer = pointer;
    return out;
}

static dc_status mismatch(const dc_value *value, dc_type type) {
    return dc__fail(DC_ERR_TYPE, "expected %s, got %s", dc_type_name(type), dc_type_name(value->type));
}

DC_API dc_status dc_value_convert(const dc_value *value, dc_type type, dc_value *out) {
    if (!value || !out) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_value_convert: value and out must not be NULL");
    if ((unsigned)value->type >= DC_TYPE_COUNT)
        return dc__fail(DC_ERR_TYPE, "dc_value_convert: the value's type tag %d is not a dc_type",
                        (int)value->type);
    if ((unsigned)type >= DC_TYPE_COUNT)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_value_convert: %d is not a dc_type", (int)type);

    if (dc__by_address(value->type) && type == value->type && value->pointer == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "a %s value needs the address of its bytes, and its pointer is NULL",
                        dc_type_name(type));
    if (value->type == type) {
        *out = type == DC_TYPE_STRUCT ? *value : type > DC_TYPE_STRUCT ? dc_value_at(type, value->pointer)
                                                                        : dc__same_type_value(*value);
        return DC_OK;
    }

    bool from_signed = is_signed_integer(value->type), from_unsigned = is_unsigned_integer(value->type);
    if ((from_signed || from_unsigned) && (is_signed_integer(type) || is_unsigned_integer(type))) {
        integer_value v = read_integer(value);
        if (!integer_fits(v, type)) {
            if (v.negative)
                return dc__fail(DC_ERR_TYPE, "expected %s, got %s %lld (out of range)", dc_type_name(type),
                                dc_type_name(value->type), (long long)v.signed_value);
            return dc__fail(DC_ERR_TYPE, "expected %s, got %s %llu (out of range)", dc_type_name(type),
                            dc_type_name(value->type), (unsigned long long)v.unsigned_value);
        }
        write_integer(v, type, out);
        return DC_OK;
    }

    if (value->type == DC_TYPE_FLOAT && type == DC_TYPE_DOUBLE) {
        double d = value->f;
        *out = dc_double(d);
        return DC_OK;
    }
    if (value->type == DC_TYPE_DOUBLE && type == DC_TYPE_FLOAT) {
        float f = (float)value->d;
        if (!isnan(value->d) && (double)f != value->d)
            return dc__fail(DC_ERR_TYPE, "expected float, got double %.17g (not exactly representable)",
                            value->d);
        *out = dc_float(f);
        return DC_OK;
    }

    if (dc__is_pointer_like(value->type) && dc__is_pointer_like(type)) {
        void *pointer = pointer_of(value);
        if (type == DC_TYPE_POINTER || pointer == NULL) {
            *out = pointer_value(type, pointer);
            return DC_OK;
        }
    }
    return mismatch(value, type);
}
