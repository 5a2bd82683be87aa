/*
 * internal.h — what the C core's files share and nobody else sees.
 * Nothing here is exported from the shared library.
 */
#ifndef DISPATCH_CORE_INTERNAL_H
#define DISPATCH_CORE_INTERNAL_H

#include "dispatch_core.h"

#include <ffi.h>
#include <stdatomic.h>

#if defined(__GNUC__)
#define DC_PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define DC_PRINTF_LIKE(fmt, args)
#endif

/* ---- errors (types.c) --------------------------------------------------- */

/* Sets the calling thread's detail message and returns `status`, so a failure
 * reads `return dc__fail(DC_ERR_TYPE, "...", ...);`. */
dc_status dc__fail(dc_status status, const char *format, ...) DC_PRINTF_LIKE(2, 3);

/* True for object, pointer and string. */
static inline bool dc__is_pointer_like(dc_type type) {
    return type == DC_TYPE_OBJECT || type == DC_TYPE_POINTER || type == DC_TYPE_STRING;
}

/* True for float and double: the types that travel in vector registers. */
static inline bool dc__is_floating(dc_type type) {
    return type == DC_TYPE_FLOAT || type == DC_TYPE_DOUBLE;
}

/* ---- typed stubs (stubs.c) ---------------------------------------------- */

/* Most integer-class and floating-point arguments a stub passes; both fit in
 * registers on x86-64 System V (6 + 8) and AArch64 (8 + 8). */
#define DC_STUB_MAX_INTEGERS 6
#define DC_STUB_MAX_FLOATS 8

/* How a return value comes back from a call, before narrowing. */
typedef enum dc_return_class {
    DC_RETURN_VOID = 0,
    DC_RETURN_INTEGER, /* bool, integers, pointers: the 64-bit integer register */
    DC_RETURN_FLOAT,   /* float: the low 32 bits of the vector register */
    DC_RETURN_DOUBLE,  /* double */
    DC_RETURN_CLASS_COUNT
} dc_return_class;

/* Where a call leaves its result. Large enough for libffi's rvalue (at least
 * sizeof(ffi_arg)); an integer result is narrowed by dc__return_value(). */
typedef union dc_raw_return {
    uint64_t integer;
    ffi_arg ffi_integer;
    float f;
    double d;
    void *pointer;
} dc_raw_return;

/*
 * A stub calls `function` through a pointer cast to
 *     R (*)(uint64_t x integer_count, double x float_count)
 * and returns its result, where R is void, uint64_t, float or double by return
 * class. Integer-class arguments come widened to 64 bits in `integers` (in
 * parameter order among themselves), floating-point ones in `floats`; a float
 * argument has its bits in the low 32 bits of its double slot, which is where
 * the callee reads it. A dc_stub is stored type-erased; dc__stub_call() casts
 * it back to the shape of its return class.
 */
typedef void (*dc_stub)(void);
typedef void (*dc_stub_returning_void)(dc_function, const uint64_t *, const double *);
typedef uint64_t (*dc_stub_returning_integer)(dc_function, const uint64_t *, const double *);
typedef float (*dc_stub_returning_float)(dc_function, const uint64_t *, const double *);
typedef double (*dc_stub_returning_double)(dc_function, const uint64_t *, const double *);

/* The stub for that shape, or NULL when there is none: counts too large, or a
 * platform whose ABI the stubs do not cover (then every call takes libffi). */
dc_stub dc__stub_lookup(dc_return_class return_class, unsigned integer_count,
                        unsigned float_count);

/* Calls through `stub`, which dc__stub_lookup() gave for `return_class`. */
static inline void dc__stub_call(dc_return_class return_class, dc_stub stub, dc_function function,
                                 const uint64_t *integers, const double *floats,
                                 dc_raw_return *result) {
    switch (return_class) {
    case DC_RETURN_VOID:
        ((dc_stub_returning_void)stub)(function, integers, floats);
        break;
    case DC_RETURN_INTEGER:
        result->integer = ((dc_stub_returning_integer)stub)(function, integers, floats);
        break;
    case DC_RETURN_FLOAT:
        result->f = ((dc_stub_returning_float)stub)(function, integers, floats);
        break;
    default:
        result->d = ((dc_stub_returning_double)stub)(function, integers, floats);
        break;
    }
}

/* ---- signatures (signature.c) ------------------------------------------- */

/* Where a parameter travels on the stub path. */
typedef struct dc_parameter_slot {
    uint8_t is_floating; /* 1: floats[index], 0: integers[index] */
    uint8_t index;
} dc_parameter_slot;

struct dc_signature {
    _Atomic size_t reference_count;
    struct dc_signature *next_interned; /* bucket chain, guarded by the intern lock */
    uint64_t hash;

    dc_type return_type;
    dc_return_class return_class;
    size_t parameter_count;
    dc_type parameter_types[DC_MAX_PARAMETERS];
    dc_parameter_slot slots[DC_MAX_PARAMETERS];

    dc_call_path call_path;
    dc_stub stub; /* NULL unless call_path is DC_CALL_PATH_STUB */

    ffi_cif cif;
    ffi_type *ffi_parameter_types[DC_MAX_PARAMETERS];

    char encoding[2 * DC_MAX_PARAMETERS + 3]; /* canonical, NUL-terminated */
};

/* ---- calls (invocation.c) ----------------------------------------------- */

/* The value a call left in `raw`, narrowed and tagged with the return type. */
dc_value dc__return_value(const dc_signature *signature, const dc_raw_return *raw);

#endif /* DISPATCH_CORE_INTERNAL_H */
