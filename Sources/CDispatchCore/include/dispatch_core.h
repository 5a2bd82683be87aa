/*
 * dispatch_core.h — the one public header of the EventKitSwift C core.
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
 *    given unchanged. Nothing in this library aborts, asserts or crashes on
 *    caller input: NULL handles, NULL function pointers, bad indices and bad
 *    encodings are reported as statuses.
 *  - Lifetime: every create has a matching destroy or release; passing NULL to a
 *    destroy or release does nothing.
 *  - Threads: signatures are immutable and may be shared and used from any
 *    thread. An invocation, like NSInvocation, is used by one thread at a time.
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
    X(DC_ERR_FFI, "libffi could not prepare the call")

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
    DC_TYPE_COUNT
} dc_type;

/* "int64", "double", "object", ...; "invalid" for values out of range. */
DC_API const char *dc_type_name(dc_type type);

/* The canonical encoding character ('q', 'd', '@', '^', '*', ...); '\0' for
 * values out of range. */
DC_API char dc_type_encoding(dc_type type);

/*
 * A tagged value: an argument passed in, or a return value handed back. Only
 * the member named by `type` is meaningful. A dc_value never owns what it
 * points to.
 */
typedef struct dc_value {
    dc_type type;
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

/* The void value, as returned by a function returning void. */
static inline dc_value dc_void(void) {
    dc_value v;
    v.u64 = 0;
    v.type = DC_TYPE_VOID;
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
 *  - nothing else fits: bool and integers do not mix, integers and floating
 *    point do not mix, objects, pointers and strings do not mix.
 *
 * On success writes the converted value to *out (which may alias value). On
 * failure returns DC_ERR_TYPE with a message naming both types (and the value,
 * when it was out of range), and leaves *out unchanged.
 */
DC_API dc_status dc_value_convert(const dc_value *value, dc_type type, dc_value *out);

/* ------------------------------------------------------------------------ */
/* Signatures (NSMethodSignature)                                            */
/* ------------------------------------------------------------------------ */

/* Most parameters a signature may have. */
#define DC_MAX_PARAMETERS 32

/* A generic function pointer; cast any non-variadic C function to it with
 * DC_FUNCTION(f) and describe its real type with a dc_signature. */
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
 * Codes: v B c C s S i I l L q Q f d @ # * ^ : (see dc_type). `^` must be
 * followed by the pointee's encoding (^v, ^i, ^^c, ^{name=...}, ^? ...): the
 * parameter is a pointer whatever it points to. `@?` (a block) and `@"Name"`
 * (a class name) are objects.
 *
 * Real method encodings as produced by @encode and method_getTypeEncoding
 * parse too: "v24@0:8B16" equals "v@:B". Digits after a type (frame sizes and
 * offsets) are skipped, as are the qualifiers r n N o O R V in front of a type.
 * `:` is the selector slot; with no Objective-C runtime on Linux a selector is
 * passed as its name, a C string, so `:` is DC_TYPE_STRING. Structs, unions,
 * arrays and bit-fields by value are not supported yet and are rejected.
 *
 * Equal encodings (after skipping offsets and qualifiers) give the same shared
 * signature: the library interns signatures, prepares each one's ffi_cif and
 * picks its call path once. The caller owns one reference to *out and gives it
 * back with dc_signature_release().
 *
 * Errors: DC_ERR_NULL_ARGUMENT (encoding or out NULL); DC_ERR_BAD_SIGNATURE
 * for an empty string, an unknown code, a dangling ^, void as a parameter,
 * an unsupported aggregate or more than DC_MAX_PARAMETERS parameters, with a
 * message naming the offending position; DC_ERR_NO_MEMORY; DC_ERR_FFI.
 * Thread-safe.
 */
DC_API dc_status dc_signature_create(const char *encoding, dc_signature **out);

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
 * The canonical encoding, one character per type and "^v" for every pointer
 * ("v24@0:8B16" gives "v@*B"). Owned by the signature; "" for NULL.
 */
DC_API const char *dc_signature_encoding(const dc_signature *signature);

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
 * with every argument zero (0, false, NULL) until set. The invocation retains
 * the signature. The caller owns *out and frees it with dc_invocation_destroy().
 * The function must not be variadic.
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
 * copies strings nor retains objects.
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
 * Errors: DC_ERR_NULL_ARGUMENT.
 * Replaces: -[NSInvocation invoke].
 */
DC_API dc_status dc_invocation_invoke(dc_invocation *invocation);

/*
 * Writes the return value of the last invoke, typed as the signature's return
 * type (narrow integers and bool narrowed from the register they came back
 * in), to *out. A void function gives dc_void().
 * Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_NOT_INVOKED (no invoke yet).
 * Replaces: -[NSInvocation getReturnValue:].
 */
DC_API dc_status dc_invocation_get_return_value(const dc_invocation *invocation,
                                                dc_value *out);

/*
 * One-shot call: converts `count` arguments (which must equal the signature's
 * parameter count) to their parameter types, calls `function` on the
 * signature's default path, and writes the return value to *return_value
 * (which may be NULL to ignore it). Nothing is called unless every argument
 * fits. Allocates nothing.
 *
 * Errors: DC_ERR_NULL_ARGUMENT (signature or function NULL, or arguments NULL
 * with count > 0); DC_ERR_ARITY (count differs from the parameter count);
 * DC_ERR_TYPE (naming the argument index and both types).
 * Thread-safe for concurrent calls.
 */
DC_API dc_status dc_call(dc_signature *signature, dc_function function,
                         const dc_value *arguments, size_t count, dc_value *return_value);

#ifdef __cplusplus
}
#endif

#endif /* DISPATCH_CORE_H */
