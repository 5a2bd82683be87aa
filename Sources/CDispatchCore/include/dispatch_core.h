/*
 * dispatch_core.h — the public header of the EventKitSwift C core: the one a
 * C program includes (it includes dispatch_table.h and dispatch_closure.h).
 *
 * The core calls C function pointers whose argument types are described at run
 * time: what NSInvocation and NSMethodSignature are to Objective-C, rebuilt on
 * libffi, plus a fast path that calls through a function pointer cast to a
 * fitting C type ("function pointer prototyping") whenever the platform ABI
 * makes that exact.
 *
 * Conventions that hold for every function below:
 *
 *  - Names: functions and types start with dc_, constants with DC_.
 *  - Errors: functions that can fail return a dc_status (DC_OK is 0). On failure
 *    they also set a message for the calling thread, read back with
 *    dc_last_error_message(), and leave every output and every object they were
 *    given unchanged. DC_EXISTS is the one status besides DC_OK that is not a
 *    failure (see dc_table_add). Nothing in this library aborts, asserts or crashes on
 *    caller input: NULL handles, NULL function pointers, bad indices and bad
 *    encodings are reported as statuses.
 *  - Lifetime: every create has a matching destroy or release; passing NULL to a
 *    destroy or release does nothing.
 *  - Threads: signatures are immutable and may be shared and used from any
 *    thread. An invocation, like NSInvocation, is used by one thread at a time.
 *
 * Event tables and their delivery queues are declared in dispatch_table.h,
 * and function pointers made at run time (closures, table closures,
 * forwarders) in dispatch_closure.h; this header includes both at its end,
 * so a C program includes this one alone.
 *
 * What only a language binding needs (the Swift layer's calling convention,
 * owned targets, execute contexts, the inline execute) is not here: it is in
 * dispatch_core_binding.h, which is not installed.
 */
#ifndef DISPATCH_CORE_H
#define DISPATCH_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(DC_BUILDING_LIBRARY) && defined(__GNUC__)
#define DC_API __attribute__((visibility("default")))
#else
#define DC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status codes                                                              */
/* ------------------------------------------------------------------------ */

/*
 * The one list of status codes. It feeds the dc_status enum and
 * dc_status_string(); the Swift layer maps each to a DispatchError case.
 * New codes are only ever appended, so values stay stable.
 */
#define DC_STATUS_LIST(X)                                                        \
    X(DC_OK, "ok")                                                               \
    X(DC_ERR_NULL_ARGUMENT, "a required argument was NULL")                      \
    X(DC_ERR_INVALID_ARGUMENT, "an argument was outside its documented range")   \
    X(DC_ERR_NO_MEMORY, "out of memory")                                         \
    X(DC_ERR_BAD_SIGNATURE, "malformed signature or type encoding")              \
    X(DC_ERR_TYPE, "argument type mismatch")                                     \
    X(DC_ERR_ARITY, "wrong number of arguments")                                 \
    X(DC_ERR_INDEX, "index out of range")                                        \
    X(DC_ERR_NOT_INVOKED, "the invocation has not been invoked yet")             \
    X(DC_ERR_UNSUPPORTED, "not supported on this platform or call path")         \
    X(DC_ERR_FFI, "libffi could not prepare the call")                           \
    X(DC_EXISTS, "already registered; the existing handler is kept")            \
    X(DC_ERR_NOT_FOUND, "no such event, handler or target")                      \
    X(DC_ERR_NO_HANDLER, "the event has no handler")                             \
    X(DC_ERR_STATE, "not valid in the current state")                            \
    X(DC_ERR_DEPTH, "executes nested too deeply")

typedef enum dc_status {
#define DC_STATUS_ENUM_ITEM(name, text) name,
    DC_STATUS_LIST(DC_STATUS_ENUM_ITEM)
#undef DC_STATUS_ENUM_ITEM
    DC_STATUS_COUNT
} dc_status;

/*
 * A short, static, English description of a status ("argument type mismatch").
 * Unknown values give "unknown status". Never returns NULL; thread-safe.
 */
DC_API const char *dc_status_string(dc_status status);

/* The enumerator's name as a static string ("DC_ERR_TYPE"); "DC_UNKNOWN" for
 * unknown values. */
DC_API const char *dc_status_name(dc_status status);

/*
 * The detail message of the last failure on the calling thread, naming what
 * was wrong (position, index, expected and actual type). Successful calls do not
 * clear it, so read it right after a call returned an error. Returns "" when
 * this thread has seen no failure. The string belongs to the library and stays
 * valid until the thread's next failing call.
 */
DC_API const char *dc_last_error_message(void);

/* ------------------------------------------------------------------------ */
/* Types and values                                                          */
/* ------------------------------------------------------------------------ */

/*
 * The types a parameter or return value may have, with the Objective-C type
 * encoding character of each. DC_TYPE_OBJECT is a pointer to an object whose
 * lifetime is managed by retain/release callbacks (a Swift object, a GObject,
 * a reference-counted C struct); DC_TYPE_POINTER is any other pointer;
 * DC_TYPE_STRING is a NUL-terminated `char *`.
 */
typedef enum dc_type {
    DC_TYPE_VOID = 0, /* v */
    DC_TYPE_BOOL,     /* B */
    DC_TYPE_INT8,     /* c */
    DC_TYPE_UINT8,    /* C */
    DC_TYPE_INT16,    /* s */
    DC_TYPE_UINT16,   /* S */
    DC_TYPE_INT32,    /* i, and l (Objective-C encodes a 32-bit long as l) */
    DC_TYPE_UINT32,   /* I, and L */
    DC_TYPE_INT64,    /* q */
    DC_TYPE_UINT64,   /* Q */
    DC_TYPE_FLOAT,    /* f */
    DC_TYPE_DOUBLE,   /* d */
    DC_TYPE_OBJECT,   /* @ (also # for a class) */
    DC_TYPE_POINTER,  /* ^ followed by the pointee's encoding, e.g. ^v, ^i */
    DC_TYPE_STRING,   /* * (also : for the selector slot, see below) */
    DC_TYPE_STRUCT,   /* {name=fields}: a struct by value (see "Structs by value") */
    /* The floating-point types wider than a dc_value holds, which a value
     * carries by the address of their bytes (see "Values by address"). */
    DC_TYPE_LONG_DOUBLE,         /* D: long double, as the platform ABI has it */
    DC_TYPE_COMPLEX_FLOAT,       /* jf: float _Complex */
    DC_TYPE_COMPLEX_DOUBLE,      /* jd: double _Complex */
    DC_TYPE_COMPLEX_LONG_DOUBLE, /* jD: long double _Complex */
    DC_TYPE_COUNT
} dc_type;

/* "int64", "double", "object", "struct", ...; "invalid" for values out of range. */
DC_API const char *dc_type_name(dc_type type);

/* The canonical encoding character ('q', 'd', '@', '^', '*', '{', 'D', and
 * 'j' for the complex types ...); '\0' for values out of range. */
DC_API char dc_type_encoding(dc_type type);

/*
 * A tagged value: an argument passed in, or a return value handed back. Only
 * the member named by `type` is meaningful. A dc_value never owns what it
 * points to. A struct (DC_TYPE_STRUCT) travels by the address of its bytes in
 * `pointer`: bytes of the struct's size and alignment, owned by whoever made
 * the value, and `struct_id` says what the value knows of their layout: 0
 * nothing, else their size (dc_struct_of) or their layout
 * (dc_struct_with_layout, and every struct value the library hands out).
 * Read it with dc_struct_size(); a parameter refuses a struct of another
 * layout as far as the value knows it (see "Structs by value").
 */
typedef struct dc_value {
    dc_type type;
    uint32_t struct_id; /* DC_TYPE_STRUCT: 0, the bytes' size or their layout's identity; 0 otherwise */
    union {
        bool b;
        int8_t i8;
        uint8_t u8;
        int16_t i16;
        uint16_t u16;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f;
        double d;
        void *object;
        void *pointer;
        char *string;
    };
} dc_value;

/* Value constructors: dc_value args[] = { dc_object(self), dc_bool(true) }; */
#define DC_VALUE_CONSTRUCTOR(fn, ctype, tag, member)                            \
    static inline dc_value fn(ctype x) {                                         \
        dc_value v;                                                              \
        v.u64 = 0;                                                               \
        v.type = tag;                                                            \
        v.struct_id = 0;                                                       \
        v.member = x;                                                            \
        return v;                                                                \
    }
DC_VALUE_CONSTRUCTOR(dc_bool, bool, DC_TYPE_BOOL, b)
DC_VALUE_CONSTRUCTOR(dc_int8, int8_t, DC_TYPE_INT8, i8)
DC_VALUE_CONSTRUCTOR(dc_uint8, uint8_t, DC_TYPE_UINT8, u8)
DC_VALUE_CONSTRUCTOR(dc_int16, int16_t, DC_TYPE_INT16, i16)
DC_VALUE_CONSTRUCTOR(dc_uint16, uint16_t, DC_TYPE_UINT16, u16)
DC_VALUE_CONSTRUCTOR(dc_int32, int32_t, DC_TYPE_INT32, i32)
DC_VALUE_CONSTRUCTOR(dc_uint32, uint32_t, DC_TYPE_UINT32, u32)
DC_VALUE_CONSTRUCTOR(dc_int64, int64_t, DC_TYPE_INT64, i64)
DC_VALUE_CONSTRUCTOR(dc_uint64, uint64_t, DC_TYPE_UINT64, u64)
DC_VALUE_CONSTRUCTOR(dc_float, float, DC_TYPE_FLOAT, f)
DC_VALUE_CONSTRUCTOR(dc_double, double, DC_TYPE_DOUBLE, d)
DC_VALUE_CONSTRUCTOR(dc_object, void *, DC_TYPE_OBJECT, object)
DC_VALUE_CONSTRUCTOR(dc_pointer, void *, DC_TYPE_POINTER, pointer)
DC_VALUE_CONSTRUCTOR(dc_string, char *, DC_TYPE_STRING, string)
#undef DC_VALUE_CONSTRUCTOR

/* A struct value: `bytes` is the address of the struct, which the caller
 * keeps valid for as long as the value is used. Its size is not known. */
static inline dc_value dc_struct(void *bytes) {
    dc_value v;
    v.u64 = 0;
    v.type = DC_TYPE_STRUCT;
    v.struct_id = 0;
    v.pointer = bytes;
    return v;
}

/* A struct value of `size` bytes at `bytes`: dc_struct(bytes) that a
 * parameter of another size refuses (DC_ERR_TYPE) instead of reading past
 * the bytes. dc_struct_of(&point, sizeof point). A size of 2^31 bytes or
 * more, larger than any struct a signature describes, fits no parameter. */
static inline dc_value dc_struct_of(void *bytes, size_t size) {
    dc_value v = dc_struct(bytes);
    v.struct_id = size < 0x7fffffffu ? (uint32_t)size : 0x7fffffffu;
    return v;
}

/*
 * Values by address. long double and the complex types are wider than the
 * 8 bytes a dc_value holds (long double is 16 bytes on x86-64 and AArch64,
 * 12 on i386; double _Complex 16; long double _Complex 32), so a value of
 * one (and, for one rule for all four, of float _Complex) carries, as a
 * struct's does, the address of its bytes in `pointer`
 * (struct_id 0): bytes of the type's size and alignment, owned by whoever
 * made the value, valid for as long as the value is used. Everything about
 * struct values holds for them: an invocation copies the bytes in and hands
 * out values pointing at its own copy, a queued delivery copies them, a
 * return value points into the invocation's storage (dc_call writes it at
 * return_value->pointer, which the caller sets), and a value fits only a
 * parameter of its own type (a NULL pointer is DC_ERR_NULL_ARGUMENT). The
 * layout of dc_value is unchanged, hence the SONAME. long double follows the
 * ABI as libffi does: 80-bit extended in 16 bytes on x86-64, 128-bit quad
 * on AArch64, 80-bit extended in 12 bytes on i386.
 *
 *   long double x = 2.5L;               double _Complex z = 1.0 + 2.0 * I;
 *   dc_value v = dc_long_double(&x);    dc_value w = dc_complex_double(&z);
 */
static inline dc_value dc_value_at(dc_type type, void *bytes) {
    dc_value v = dc_struct(bytes);
    v.type = type;
    return v;
}
#ifndef __cplusplus
static inline dc_value dc_long_double(long double *x) { return dc_value_at(DC_TYPE_LONG_DOUBLE, x); }
static inline dc_value dc_complex_float(float _Complex *x) { return dc_value_at(DC_TYPE_COMPLEX_FLOAT, x); }
static inline dc_value dc_complex_double(double _Complex *x) { return dc_value_at(DC_TYPE_COMPLEX_DOUBLE, x); }
static inline dc_value dc_complex_long_double(long double _Complex *x) {
    return dc_value_at(DC_TYPE_COMPLEX_LONG_DOUBLE, x);
}
#endif

/* The void value, as returned by a function returning void. */
static inline dc_value dc_void(void) {
    dc_value v;
    v.u64 = 0;
    v.type = DC_TYPE_VOID;
    v.struct_id = 0;
    return v;
}

/*
 * Converts `value` to `type` when it fits, the rule every argument passes
 * through before a call:
 *
 *  - a value of the same type fits;
 *  - an integer fits any integer type that can represent it exactly
 *    (int64 5 fits uint8; int64 -1 does not fit uint32);
 *  - a float fits double; a double fits float only when the conversion is exact
 *    (or the value is a NaN);
 *  - DC_TYPE_POINTER accepts any pointer-like value (object, pointer, string),
 *    as void * does in C; any pointer-like type accepts a NULL of any
 *    pointer-like type;
 *  - a struct value fits DC_TYPE_STRUCT when its pointer is not NULL (its
 *    layout is checked where both layouts are known: see "Structs by
 *    value"); a value by address (long double, the complex types) fits its
 *    own type when its pointer is not NULL;
 *  - nothing else fits: bool and integers do not mix, integers and floating
 *    point do not mix, objects, pointers and strings do not mix, nor structs
 *    and anything else.
 *
 * On success writes the converted value to *out (which may alias value).
 * Errors, each leaving *out unchanged: DC_ERR_NULL_ARGUMENT (value or out
 * NULL, or a struct value whose pointer is NULL); DC_ERR_INVALID_ARGUMENT
 * (`type` is not a dc_type); DC_ERR_TYPE (the value does not fit, with a
 * message naming both types and, when it was out of range, the value; or the
 * value's own type tag is not a dc_type).
 */
DC_API dc_status dc_value_convert(const dc_value *value, dc_type type, dc_value *out);

/* ------------------------------------------------------------------------ */
/* Signatures (NSMethodSignature)                                            */
/* ------------------------------------------------------------------------ */

/* Most parameters a signature may have: the 127 that C guarantees a
 * function may take (C11 5.2.4.1). */
#define DC_MAX_PARAMETERS 127

/* A generic function pointer; cast any C function to it with DC_FUNCTION(f)
 * and describe its real type with a dc_signature (a variadic one with
 * dc_signature_create_variadic()). */
typedef void (*dc_function)(void);
#define DC_FUNCTION(f) ((dc_function)(f))

/* How a signature's calls are made. */
typedef enum dc_call_path {
    /* A call through a function pointer cast to a C type with the same
     * register assignment: about the cost of a direct call. */
    DC_CALL_PATH_STUB = 0,
    /* ffi_call with the signature's cached ffi_cif. */
    DC_CALL_PATH_FFI = 1
} dc_call_path;

typedef struct dc_signature dc_signature;

/*
 * Creates (or finds) the signature described by an Objective-C type encoding:
 * the return type first, then one code per parameter.
 *
 *   "v"      void (void)              "q@qd"  int64_t (void *, int64_t, double)
 *   "v@B"    void (void *, bool)      "*^i*"  char *(int *, char *)
 *
 * Codes: v B c C s S i I l L q Q f d D jf jd jD @ # * ^ : {...} (see
 * dc_type; D, jf, jd and jD are long double and the complex types, as
 * parameters, return values and struct fields). `^` must
 * be followed by the pointee's encoding (^v, ^i, ^^c, ^{name=...}, ^? ...):
 * the parameter is a pointer whatever it points to (pointers to pointers
 * chain at most 65 `^` in a row; a pointee's brackets must each close by
 * their own kind). `@?` (a block) and
 * `@"Name"` (a class name) are objects. `{name=fields}` is a struct by value
 * (see "Structs by value" below): "{div=ii}ii" is div_t div(int, int).
 *
 * Real method encodings as produced by @encode and method_getTypeEncoding
 * parse too: "v24@0:8B16" equals "v@:B". Digits after a type (frame sizes and
 * offsets) are skipped, as are the qualifiers r n N o O R V in front of a type.
 * `:` is the selector slot; with no Objective-C runtime on Linux a selector is
 * passed as its name, a C string, so `:` is DC_TYPE_STRING. Unions and
 * bit-fields, which libffi cannot pass, are refused with DC_ERR_UNSUPPORTED,
 * as are the complex types on a libffi built without them; an array by value outside a struct, which no C
 * function takes, with DC_ERR_BAD_SIGNATURE.
 *
 * Equal encodings (after skipping offsets and qualifiers) give the same shared
 * signature: the library interns signatures, prepares each one's ffi_cif and
 * picks its call path once. The caller owns one reference to *out and gives it
 * back with dc_signature_release().
 *
 * Errors: DC_ERR_NULL_ARGUMENT (encoding or out NULL); DC_ERR_BAD_SIGNATURE
 * for an empty string, an unknown code, a dangling ^, void as a parameter,
 * a malformed struct (unterminated, no fields, nested more than
 * DC_MAX_NESTING deep, more than DC_MAX_STRUCT_ELEMENTS scalars) or more than
 * DC_MAX_PARAMETERS parameters, with a message naming the offending position;
 * DC_ERR_UNSUPPORTED for a union or a bit-field, naming its
 * position, and for structs by value that the libffi underneath would pass
 * wrongly (a known defect, found by a probe the first time such a signature
 * is made: README, "Platforms"), naming the defect; DC_ERR_NO_MEMORY;
 * DC_ERR_FFI. Nothing is kept on an error.
 * Thread-safe.
 */
DC_API dc_status dc_signature_create(const char *encoding, dc_signature **out);

/*
 * A signature for calls of a variadic function in one shape: `encoding` gives
 * the return type, the `fixed_count` fixed parameters, then the types of the
 * variadic arguments of these calls. snprintf(buffer, size, "%d %s", n, s) is
 * dc_signature_create_variadic("i*Q*i*", 3, &sig) where size_t is 64-bit
 * ("i*I*i*" where it is 32-bit). Its calls take libffi's variadic path
 * (ffi_prep_cif_var).
 *
 * C passes a variadic argument after its default promotions, so the variadic
 * part must name promoted types: `d` for a float (f is refused), `i` for
 * bool, char and short (B c C s S are refused). The arguments themselves are
 * converted as for any call, so a float value or a short value given for
 * those parameters is promoted on the way.
 *
 * A signature from dc_signature_create() used to call a variadic function
 * takes the ordinary calling convention, which differs on some platforms
 * (x86-64 passes the count of vector registers in %al, others pass variadic
 * arguments on the stack): such a call is wrong in a way the library cannot
 * see. This function is the supported way to call a variadic function.
 * A closure of a variadic signature takes that signature's one call shape
 * (dispatch_closure.h).
 *
 * The canonical encoding marks where the variadic part starts with "...":
 * "i^v*...Q^vi". Equal (encoding, fixed_count) pairs share one signature.
 *
 * Errors: as dc_signature_create(), and DC_ERR_BAD_SIGNATURE for fixed_count
 * above the parameter count or an unpromoted variadic type, naming its
 * position.
 */
DC_API dc_status dc_signature_create_variadic(const char *encoding, size_t fixed_count,
                                              dc_signature **out);

/*
 * The same from types: return type and `count` parameter types (parameter_types
 * may be NULL when count is 0). DC_TYPE_VOID is allowed only as the return type.
 * Equal to dc_signature_create() of the equivalent encoding, and interned with
 * it. Errors as for dc_signature_create(); a dc_type out of range is
 * DC_ERR_BAD_SIGNATURE naming its index.
 */
DC_API dc_status dc_signature_create_with_types(dc_type return_type,
                                                const dc_type *parameter_types,
                                                size_t count, dc_signature **out);

/* Adds a reference and returns the signature (NULL gives NULL). Thread-safe. */
DC_API dc_signature *dc_signature_retain(dc_signature *signature);

/* Gives back a reference; the last one frees the signature. NULL does nothing.
 * Thread-safe. */
DC_API void dc_signature_release(dc_signature *signature);

/* The return type; DC_TYPE_VOID for a NULL signature. */
DC_API dc_type dc_signature_return_type(const dc_signature *signature);

/* The number of parameters; 0 for a NULL signature. */
DC_API size_t dc_signature_parameter_count(const dc_signature *signature);

/*
 * Writes the type of parameter `index` to *out. Errors: DC_ERR_NULL_ARGUMENT,
 * DC_ERR_INDEX (index >= parameter count).
 */
DC_API dc_status dc_signature_parameter_type(const dc_signature *signature, size_t index,
                                             dc_type *out);

/*
 * The canonical encoding, one character per scalar type and "^v" for every
 * pointer ("v24@0:8B16" gives "v@*B"); a struct keeps its name and its
 * fields' canonical encodings ("{point=dd}", "{?=i[4c]}"). Owned by the
 * signature; "" for NULL.
 */
DC_API const char *dc_signature_encoding(const dc_signature *signature);

/* True for a signature made by dc_signature_create_variadic(). */
DC_API bool dc_signature_is_variadic(const dc_signature *signature);

/* The fixed parameters of a variadic signature; the parameter count of any
 * other; 0 for NULL. */
DC_API size_t dc_signature_fixed_count(const dc_signature *signature);

/* ---- structs by value and layouts ------------------------------------------- */

/*
 * Structs by value. A parameter or return value encoded `{name=fields}`
 * (`{?=fields}` without a name) is a C struct passed by value: fields are any
 * of the scalar codes (v excepted), nested structs, and fixed arrays `[4i]`
 * (of scalars, structs or arrays); an optional quoted field name before a
 * field ("{point="x"d"y"d}") is skipped. Its layout is C's on this platform:
 * each field at the next offset that is a multiple of its alignment, the
 * size rounded up to the struct's alignment (the largest of its fields').
 *
 * A struct value is a dc_value of type DC_TYPE_STRUCT whose pointer is the
 * address of bytes of that layout (dc_struct(&point)). Arguments: the callee
 * receives a copy of those bytes; dc_invocation_set_argument() copies them
 * into the invocation, whose dc_invocation_get_argument() then points there.
 * Returns: after dc_invocation_invoke(), dc_invocation_get_return_value()
 * gives a struct value pointing into storage the invocation owns, valid
 * until its next invoke or set_return_value or its destruction; dc_call()
 * copies the return into the buffer that return_value->pointer points to,
 * which the caller sets (a NULL pointer is DC_ERR_NULL_ARGUMENT).
 *
 * Checking: a struct argument fits a struct parameter whose layout is the
 * argument's: the same fields at the same offsets, whatever the structs'
 * names; anything else is DC_ERR_TYPE, as far as the value knows its layout.
 * A value from dc_struct_with_layout(), and every struct value the library
 * hands out (an invocation's arguments and return value, a handler's
 * arguments), knows it. A value from dc_struct_of() knows only its size, and
 * fits a parameter of that size. A value from dc_struct() knows nothing, so it
 * fits any struct parameter and its bytes must have the parameter's layout
 * (as with NSInvocation's setArgument:atIndex:). Where the library knows both
 * layouts, the argument's and the parameter's (a table closure's arguments
 * reaching the event's handlers), they must be equal. A struct and any other
 * type never fit each other.
 *
 * A value knows its layout by an identity the process gives each distinct
 * layout, as GLib registers a type: kept, never freed, until the process
 * exits. A process keeps DC_MAX_STRUCT_LAYOUTS of them, their encodings in
 * at most DC_MAX_STRUCT_LAYOUT_BYTES; a layout seen after those gets none,
 * and its values fit by their size.
 *
 * Structs take the libffi path, with the struct types built once per
 * signature. Table handlers may take and return structs: a struct a handler
 * returns is kept in the execute's return storage (dc_execute_options), and
 * a table closure returning a struct gives its handlers' (their return
 * layouts checked against its own, as for arguments). A queued delivery
 * copies a struct argument's bytes (pointers inside it are copied as they
 * are: nothing they point to is copied or retained); a variadic marshal
 * receives through a queue only structs whose values know their size
 * (dc_struct_of, dc_struct_with_layout), and a delivery of any other struct
 * is dropped.
 */

/* Deepest nesting of structs and arrays inside a type. */
#define DC_MAX_NESTING 32
/* Most scalars a struct may hold, counting each array element. */
#define DC_MAX_STRUCT_ELEMENTS 4096
/* Most distinct struct layouts a process gives an identity, and most bytes
 * their encodings (without names) take. */
#define DC_MAX_STRUCT_LAYOUTS 65536
#define DC_MAX_STRUCT_LAYOUT_BYTES (16u << 20)

/*
 * The layout of a return value, a parameter, or a field of a struct: what
 * NSMethodSignature's methodReturnLength, getArgumentTypeAtIndex: and
 * NSGetSizeAndAlignment() tell.
 */
typedef struct dc_layout {
    dc_type type;         /* DC_TYPE_STRUCT for a struct; an array field's element type */
    size_t size;          /* bytes, every element of an array field included; 0 for void */
    size_t alignment;     /* bytes; 1 for void */
    size_t count;         /* an array field's element count; 1 for anything else */
    size_t offset;        /* a field's offset in its struct; 0 for a return value or parameter */
    size_t field_count;   /* a struct's fields (an array field of structs: its element's) */
    const char *encoding; /* canonical, owned by the signature ("{point=dd}", "[4i]", "q") */
    const void *detail;   /* the library's: what dc_layout_field() reads */
} dc_layout;

/* The return value's layout (methodReturnLength is its size).
 * Errors: DC_ERR_NULL_ARGUMENT. */
DC_API dc_status dc_signature_return_layout(const dc_signature *signature, dc_layout *out);

/* Parameter `index`'s layout. Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_INDEX. */
DC_API dc_status dc_signature_parameter_layout(const dc_signature *signature, size_t index,
                                               dc_layout *out);

/*
 * Field `index` of the struct `layout` describes (or of the element struct,
 * for an array field of structs), with its offset from the struct's start.
 * Valid while the signature it came from is. Errors: DC_ERR_NULL_ARGUMENT;
 * DC_ERR_INVALID_ARGUMENT (layout is not of a struct); DC_ERR_INDEX.
 */
DC_API dc_status dc_layout_field(const dc_layout *layout, size_t index, dc_layout *out);

/*
 * A struct value of the layout `layout` describes, at `bytes`: a struct
 * parameter of another layout refuses it (DC_ERR_TYPE). `layout` is a struct
 * parameter's or return value's (dc_signature_parameter_layout(),
 * dc_signature_return_layout()) or a struct field's (dc_layout_field(); for
 * an array field of structs, one element's). The caller keeps the bytes valid
 * for as long as the value is used; the value stays valid after the
 * signature is released.
 *
 * Errors: DC_ERR_NULL_ARGUMENT (bytes, layout or out NULL);
 * DC_ERR_INVALID_ARGUMENT (layout is not of a struct).
 */
DC_API dc_status dc_struct_with_layout(void *bytes, const dc_layout *layout, dc_value *out);

/* The size of a struct value's bytes as the value knows it: its layout's, or
 * the size dc_struct_of() gave; 0 when it does not know it, for NULL, and for
 * a value that is not a struct. */
DC_API size_t dc_struct_size(const dc_value *value);

/*
 * The bytes the parameters occupy in a frame, as Objective-C's method
 * encodings count them (NSMethodSignature's frameLength): each parameter at
 * the next multiple of its alignment, taking a multiple of the pointer size.
 * 0 for NULL.
 */
DC_API size_t dc_signature_frame_size(const dc_signature *signature);

/* The path calls with this signature take by default: DC_CALL_PATH_STUB when
 * the stubs cover it on this platform, otherwise DC_CALL_PATH_FFI. A NULL
 * signature gives DC_CALL_PATH_FFI. */
DC_API dc_call_path dc_signature_call_path(const dc_signature *signature);

/* ------------------------------------------------------------------------ */
/* Invocations (NSInvocation)                                                */
/* ------------------------------------------------------------------------ */

typedef struct dc_invocation dc_invocation;

/*
 * Creates an invocation of `function`, whose real C type `signature` describes,
 * with every argument zero (0, false, NULL, a struct of zero bytes) until set.
 * The invocation retains the signature. The caller owns *out and frees it
 * with dc_invocation_destroy(). A variadic function needs a signature from
 * dc_signature_create_variadic().
 *
 * Errors: DC_ERR_NULL_ARGUMENT (signature, function or out NULL);
 * DC_ERR_NO_MEMORY.
 */
DC_API dc_status dc_invocation_create(dc_signature *signature, dc_function function,
                                      dc_invocation **out);

/* Frees the invocation and releases its signature. NULL does nothing. */
DC_API void dc_invocation_destroy(dc_invocation *invocation);

/* The invocation's signature (not retained for the caller); NULL for NULL. */
DC_API dc_signature *dc_invocation_signature(const dc_invocation *invocation);

/*
 * Sets argument `index` (0-based: the function's first parameter is 0, there
 * is no hidden self/_cmd slot) after converting it with dc_value_convert() to
 * the parameter's type. Pointers are stored as given: the invocation neither
 * copies strings nor retains objects. A struct's bytes are copied in.
 *
 * Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_INDEX; DC_ERR_TYPE (the value does not
 * fit; the argument keeps its previous value).
 * Replaces: -[NSInvocation setArgument:atIndex:].
 */
DC_API dc_status dc_invocation_set_argument(dc_invocation *invocation, size_t index,
                                            const dc_value *value);

/*
 * Writes argument `index`, typed as its parameter, to *out.
 * Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_INDEX.
 * Replaces: -[NSInvocation getArgument:atIndex:].
 */
DC_API dc_status dc_invocation_get_argument(const dc_invocation *invocation, size_t index,
                                            dc_value *out);

/*
 * Forces a call path for this invocation: DC_CALL_PATH_FFI is always allowed;
 * DC_CALL_PATH_STUB only when the signature's default path is the stub path
 * (otherwise DC_ERR_UNSUPPORTED). Both paths give identical results; this
 * exists for tests and benchmarks that compare them.
 */
DC_API dc_status dc_invocation_set_call_path(dc_invocation *invocation, dc_call_path path);

/* The path the next dc_invocation_invoke() takes; DC_CALL_PATH_FFI for NULL. */
DC_API dc_call_path dc_invocation_call_path(const dc_invocation *invocation);

/*
 * Calls the function with the current arguments and keeps its return value.
 * May be called any number of times; arguments stay set between calls.
 * Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_STATE for a forwarded call (see
 * Closures) before a function is set.
 * Replaces: -[NSInvocation invoke].
 */
DC_API dc_status dc_invocation_invoke(dc_invocation *invocation);

/*
 * Makes `function`, which must have the invocation's signature, the one the
 * next dc_invocation_invoke() calls: how a forward handler re-sends the call
 * it received to another function. Errors: DC_ERR_NULL_ARGUMENT.
 * Replaces: -[NSInvocation invokeWithTarget:], with dc_invocation_invoke().
 */
DC_API dc_status dc_invocation_set_function(dc_invocation *invocation, dc_function function);

/*
 * Sets the return value as if the function had returned it, converted with
 * dc_value_convert() to the signature's return type (dc_void() for a void
 * signature; a struct's bytes are copied in): dc_invocation_get_return_value()
 * reads it from now on, until the next invoke or set, and a forwarded call
 * returns it to its caller.
 * Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_TYPE (the value does not fit; the
 * return value stays as it was).
 * Replaces: -[NSInvocation setReturnValue:].
 */
DC_API dc_status dc_invocation_set_return_value(dc_invocation *invocation, const dc_value *value);

/*
 * Writes the return value of the last invoke, typed as the signature's return
 * type (narrow integers and bool narrowed from the register they came back
 * in), to *out. A void function gives dc_void(); a struct return points into
 * the invocation's storage (see "Structs by value").
 * Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_NOT_INVOKED (no invoke yet).
 * Replaces: -[NSInvocation getReturnValue:].
 */
DC_API dc_status dc_invocation_get_return_value(const dc_invocation *invocation,
                                                dc_value *out);

/*
 * One-shot call: converts `count` arguments (which must equal the signature's
 * parameter count) to their parameter types, calls `function` on the
 * signature's default path, and writes the return value to *return_value
 * (which may be NULL to ignore it, unless the return is a struct). Nothing
 * is called unless every argument fits, and *return_value is left as it
 * was; once they all fit, it may be written before `function` runs.
 * Allocates nothing.
 *
 * A struct return is copied into the buffer of the return's size (and
 * alignment) that return_value->pointer points to on entry; *return_value
 * then is the struct value pointing there.
 *
 * Errors: DC_ERR_NULL_ARGUMENT (signature or function NULL, arguments NULL
 * with count > 0, or a struct return without a buffer: return_value or its
 * pointer NULL); DC_ERR_ARITY (count differs from the parameter count);
 * DC_ERR_TYPE (naming the argument index and both types).
 * Thread-safe for concurrent calls.
 */
DC_API dc_status dc_call(dc_signature *signature, dc_function function,
                         const dc_value *arguments, size_t count, dc_value *return_value);


#ifdef __cplusplus
}
#endif

#include "dispatch_table.h"

#endif /* DISPATCH_CORE_H */
