/*
 * internal.h — what the C core's files share and nobody else sees.
 * Nothing here is exported from the shared library.
 */
#ifndef DISPATCH_CORE_INTERNAL_H
#define DISPATCH_CORE_INTERNAL_H

#include "dispatch_core.h"
#include "binding/dispatch_core_binding.h" /* what the core implements for a binding */
#include "binding/dispatch_core_inline.h"  /* the layouts readers see, and the Swift shortcut */

#include <ffi.h>
#include <stdatomic.h>
#include <string.h>

struct dc_table;

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

/* True for the types whose values carry the address of their bytes: a
 * struct, long double and the complex types (dispatch_core.h, "Values by
 * address"). Their parameters and return values have a layout node, so
 * they take every path a struct takes; only a struct has fields. */
static inline bool dc__by_address(dc_type type) {
    return (unsigned)type >= DC_TYPE_STRUCT && (unsigned)type < DC_TYPE_COUNT;
}

/* The bytes a value by address points at: a struct's as far as it knows
 * (dc_struct_size()), the size of a long double or complex type; 0 for
 * any other value (layout_ids.c). */
size_t dc__value_bytes(const dc_value *value);

/* A type's canonical encoding ("q", "^v", "jd"); "" for a struct, whose encoding
 * is its layout's, and for values out of range. */
const char *dc__type_canonical(dc_type type);

/* dc_value_convert() of a value already of the type asked for, which is not
 * a struct: the value with no struct identity, and any nonzero byte of a bool
 * true and 1 (a caller may fill the union by hand, and a C bool must be 0 or
 * 1). */
static inline dc_value dc__same_type_value(dc_value value) {
    value.struct_id = 0;
    if (value.type == DC_TYPE_BOOL) value.u64 = value.u8 != 0;
    return value;
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

/* The layout of a struct, or of a field inside one (a scalar, a struct, or an
 * array of either), as a signature's parse builds it. Signatures own them. */
typedef struct dc__layout_node {
    dc_type type;  /* the element's type */
    size_t count;  /* an array's elements (nested arrays multiplied); 1 otherwise */
    size_t size;   /* of all `count` elements */
    size_t alignment;
    size_t offset; /* in the enclosing struct */
    size_t field_count;                   /* when type is DC_TYPE_STRUCT */
    const struct dc__layout_node *fields; /* field_count of them */
    ffi_type *ffi;                        /* the element's */
    const char *encoding;                 /* canonical */
    uint32_t id; /* a parameter's or return value's: its identity (layout_ids.c), or 0 when it has none */
} dc__layout_node;

/* Where invocations put struct bytes: enough for any field C allows here. */
#define DC__STRUCT_ALIGNMENT 16

/* The bytes an invocation or a delivery keeps for a struct of `size` bytes. */
static inline size_t dc__struct_storage_size(size_t size) {
    return (size + DC__STRUCT_ALIGNMENT - 1) / DC__STRUCT_ALIGNMENT * DC__STRUCT_ALIGNMENT;
}

/* A growing string (signature.c). */
typedef struct dc__text {
    char *data;
    size_t length, capacity;
    bool out_of_memory;
} dc__text;

/* Appends `count` bytes, keeping the text NUL-terminated; once out of
 * memory, does nothing more. */
void dc__text_append(dc__text *t, const char *bytes, size_t count);

/* ---- libffi's known defects (libffi_defects.c) ---------------------------- */

/* DC_OK, or DC_ERR_UNSUPPORTED with a message naming the defect when `cif`
 * (prepared for the signature `encoding`) has a shape the running libffi's
 * ffi_call passes wrongly: a defect the library knows of, which a probe call
 * shows at the first such shape. */
dc_status dc__refuse_libffi_defects(const ffi_cif *cif, const char *encoding);

/* ---- struct layouts' identities (layout_ids.c) ---------------------------- */

/* The identity of `layout`'s struct (an array's element, for an array of
 * structs), given it on first sight; 0 when the process has given
 * DC_MAX_STRUCT_LAYOUTS or is out of memory. */
uint32_t dc__layout_id(const dc__layout_node *layout);

/* Whether a struct_id word is an identity, as opposed to a size or 0. */
#define DC__STRUCT_ID_FLAG 0x80000000u

/* A struct value's layout as far as it knows it: its size (0 when it knows
 * none) and, when it knows its layout, the layout's encoding without names
 * ("{dd}"); an identity the process never gave knows nothing. */
typedef struct dc__struct_knowledge {
    size_t size;
    const char *layout;
} dc__struct_knowledge;
dc__struct_knowledge dc__struct_known(uint32_t struct_id);

/* Whether struct `value` fits `layout` as far as the value knows its
 * layout: nothing (0), its size, or its layout, which must be this one. */
static inline bool dc__struct_fits(const dc_value *value, const dc__layout_node *layout) {
    uint32_t id = value->struct_id;
    if (id == 0 || id == layout->id) return true;
    if (!(id & DC__STRUCT_ID_FLAG)) return id == layout->size;
    /* Another identity; or a layout with none, whose size is all there is to compare. */
    return layout->id == 0 && dc__struct_known(id).size == layout->size;
}

/* Writes what a struct value knows of its layout, for a message: "a struct
 * {dd} of 16 bytes", "a struct of 16 bytes", "a struct". */
const char *dc__struct_describe(const dc_value *value, char *text, size_t size);

/* The struct value of `layout` at `bytes`, knowing its layout (or its size,
 * when the layout has no identity). */
static inline dc_value dc__struct_value(void *bytes, const dc__layout_node *layout) {
    if (layout->type != DC_TYPE_STRUCT) return dc_value_at(layout->type, bytes); /* long double, complex */
    dc_value value = dc_struct_of(bytes, layout->size);
    if (layout->id != 0) value.struct_id = layout->id;
    return value;
}

/* True when two layouts are the same fields at the same offsets, whatever
 * the structs' names. */
bool dc__layouts_equal(const dc__layout_node *a, const dc__layout_node *b);

/* Memory a signature's layouts live in: blocks freed with the signature. */
typedef struct dc__arena_block dc__arena_block;

/* Where a parameter travels on the stub path. */
typedef struct dc_parameter_slot {
    uint8_t is_floating; /* 1: floats[index], 0: integers[index] */
    uint8_t index;
} dc_parameter_slot;

/* How a closure hands a call's return value to its caller. */
typedef enum dc_return_kind {
    DC_RETURNS_NOTHING = 0, /* void: libffi's return storage must not be written */
    DC_RETURNS_SCALAR,      /* written there, narrow integers widened to ffi_arg */
    DC_RETURNS_STRUCT       /* made there */
} dc_return_kind;

/* A parameter: its type and what a value of it knows of its layout (a
 * struct's dc_value.struct_id, as dc__struct_value() gives it; 0 for any
 * other type). The head of a dc_value in its order, so that a value read
 * from an argument copies it in one load and one store. */
typedef struct dc__parameter {
    dc_type type;
    uint32_t struct_id;
} dc__parameter;

_Static_assert(offsetof(dc__parameter, struct_id) == offsetof(dc_value, struct_id) &&
                   sizeof(dc__parameter) == offsetof(dc_value, u64),
               "a parameter is the head of a dc_value");

/* Which arguments dc_call() hands ffi_call where the caller has them. */
typedef enum dc__in_place {
    DC__IN_PLACE_NONE = 0,   /* none: each is converted first unless it fits (signature.c's in_place_of()) */
    DC__IN_PLACE_SCALARS,    /* every parameter a scalar other than bool: each value's member */
    DC__IN_PLACE_BY_ADDRESS  /* every parameter by address: each value's bytes */
} dc__in_place;

struct dc_signature {
    _Atomic size_t reference_count;
    struct dc_signature *next_interned; /* bucket chain, guarded by the intern lock */
    uint64_t hash;

    dc_type return_type;
    dc_return_class return_class;
    uint8_t return_kind; /* a dc_return_kind */
    size_t parameter_count;
    /* This and every other array of one entry per parameter below hold
     * parameter_count entries, in the signature's own allocation, so that a
     * signature takes the memory its parameters need, not
     * DC_MAX_PARAMETERS'. */
    dc__parameter *parameters;
    dc_parameter_slot *slots;

    dc_call_path call_path;
    dc_stub stub; /* NULL unless call_path is DC_CALL_PATH_STUB */
    /* The signature has a stub and every parameter is a 64-bit integer or
     * pointer-like, so parameter p travels in integers[p] (p < 6) and its
     * register image is its dc_value's 64 bits as they are: executes copy
     * them without looking at the types. */
    bool word_images;

    ffi_cif cif;
    ffi_type **ffi_parameter_types;
    uint8_t *parameter_sizes; /* each scalar's ffi_parameter_types[i]->size; 0 for a struct */

    /* Structs: the layout of each struct parameter and of a struct return
     * (NULL for any other type), in `arena`. */
    const dc__layout_node *return_layout;
    /* The head of the value dc_call() gives back: the return type and, for
     * a return by address, what its value knows of its layout (as
     * dc__struct_value() gives it). */
    dc__parameter returned;
    /* Which arguments dc_call() may hand ffi_call where the caller has
     * them, each value that fits its parameter as it is: a dc__in_place. */
    uint8_t in_place;
    const dc__layout_node **parameter_layouts;
    dc__arena_block *arena;
    uint8_t struct_parameter_count;             /* how many of the parameters are structs (DC_TYPE_STRUCT) */
    uint8_t *struct_parameters;      /* their indices */
    /* Zero bytes as large as the largest struct parameter: the value of a
     * struct parameter for which an execute has no argument. */
    const void *zero_struct;
    /* What a created invocation keeps beyond its values: each struct
     * parameter's bytes, then a struct return's, each at a multiple of
     * DC__STRUCT_ALIGNMENT. */
    size_t struct_storage;

    bool variadic;
    size_t fixed_count; /* a variadic signature's fixed parameters; parameter_count otherwise */

    char encoding[]; /* canonical, NUL-terminated */
};


/* The address ffi_call reads an argument at: a struct's bytes, or the
 * member of a scalar (every member starts at the union's first byte). */
static inline void *dc__ffi_argument(dc_value *value) {
    return dc__by_address(value->type) ? value->pointer : (void *)&value->u64;
}

/* The most parameters a call's arrays on the stack are made for on the
 * common paths; a call of more takes a path of its own whose arrays hold
 * DC_MAX_PARAMETERS, so that the common calls' frames stay as small as
 * they were before signatures could have 127 parameters. */
#define DC__FEW_PARAMETERS 32

/* ffi_call of `function` with one value per parameter of `signature`
 * (struct values pointing at their bytes), the return written at `ret`. */
void dc__ffi_call_many(const dc_signature *signature, dc_function function, dc_value *values, void *ret);
static inline void dc__ffi_call_values(const dc_signature *signature, dc_function function, dc_value *values,
                                       void *ret) {
    size_t count = signature->parameter_count;
    if (!DC__LIKELY(count <= DC__FEW_PARAMETERS)) {
        dc__ffi_call_many(signature, function, values, ret);
        return;
    }
    void *pointers[DC__FEW_PARAMETERS];
    for (size_t p = 0; p < count; p++) pointers[p] = dc__ffi_argument(&values[p]);
    ffi_call((ffi_cif *)&signature->cif, function, ret, pointers);
}

/* ---- read-side sections and deferred freeing (reclaim.c) ------------------- */

/* The sections themselves, the thread records and dc__read_enter() /
 * dc__read_leave() are in binding/dispatch_core_inline.h, which the Swift
 * layer's inline execute shares. */

/* Decides once how fences work (platform.h's process-wide fence). Called by every
 * constructor whose objects have readers. */
void dc__reclaim_initialize(void);

/* The calling thread's record, created on first use; NULL when out of memory. */
dc_thread_record *dc__thread_record_attach(void);

/*
 * Read-side sections. dc__read_begin_keeping() enters one (nested sections
 * are counted) and keeps its depth (record->depth inside it, 1 for the
 * outermost) in the caller's local: record->depth is written on entry and on
 * leaving and never read back, so back-to-back sections do not wait on their
 * own stores, and sections nested inside restore the depth they found. NULL
 * when the thread has no record and none can be made. The caller checks
 * depth limits. dc__read_end_keeping() leaves it.
 */

static inline dc_thread_record *dc__read_begin_keeping(unsigned *depth) {
    dc_thread_record *record = dc__current_record;
    if (record == NULL && (record = dc__thread_record_attach()) == NULL) return NULL;
    *depth = record->depth + 1;
    dc__read_enter(record, *depth);
    return record;
}

static inline void dc__read_end_keeping(dc_thread_record *record, unsigned depth) {
    dc__read_leave(record, &record->frames[depth - 1], depth);
}

/* The pair for a caller that does not keep the depth. */
static inline dc_thread_record *dc__read_begin(void) {
    unsigned depth;
    return dc__read_begin_keeping(&depth);
}

static inline void dc__read_end(dc_thread_record *record) { dc__read_end_keeping(record, record->depth); }

/* Announces the handler about to be called at the current depth; the caller
 * then re-reads the handler's state before calling it. */
static inline void dc__read_calling(dc_thread_record *record, const void *handler) {
    atomic_store_explicit(&record->frames[record->depth - 1].calling, handler, memory_order_relaxed);
    dc__light_fence();
}

static inline void dc__read_called(dc_thread_record *record) {
    atomic_store_explicit(&record->frames[record->depth - 1].calling, NULL, memory_order_release);
}

/* The writer's side of the fence pairing with dc__light_fence(). */
void dc__heavy_fence(void);

/* How a thread waits for calls running on other threads: a yield for the
 * first `attempt`s, then a short sleep. */
void dc__back_off(unsigned attempt);

/* Whether another thread may be inside a read-side section, so that
 * dc__heavy_fence() must be a system call. Read after a full fence, the
 * answer is exact for what the caller stored before it: a thread that was
 * not counted then reads, in its sections, what the caller stored. Read
 * anywhere else it is a guess. */
extern _Atomic unsigned dc__records_in_use; /* records of live threads */
static inline bool dc__others_may_read(void) {
    return atomic_load_explicit(&dc__records_in_use, memory_order_relaxed) > (dc__current_record != NULL ? 1u : 0u);
}

/* Work a thread owes: see dc_thread_record.deferred. */
typedef struct dc__deferred {
    struct dc__deferred *next;
    /* Does the work, or says it must wait: false keeps it for a later leave.
     * `outside`: the thread is outside every read-side section and every
     * removal. */
    bool (*run)(struct dc__deferred *work, bool outside);
} dc__deferred;

/* Pushes `work` on `record`'s owed work; any thread may. */
void dc__defer(dc_thread_record *record, dc__deferred *work);

/* Work the calling thread owes once it is outside every section and every
 * removal (dc__inside() says whether it is inside now). */
void dc__defer_outside(dc__deferred *work);
bool dc__inside(void);

/* Brackets a removal's steps that call out (destroy notifies, releases):
 * what they owe outside waits for its end. */
void dc__finishing_begin(void);
void dc__finishing_end(void);

/* How a remover finishes a handler (dc__wait_for_calls()). */
typedef void (*dc__finish_function)(void *context, void *handler);

/*
 * After dc__heavy_fence(): waits until no other thread is calling `handler`,
 * with one exception that keeps waits from closing a cycle. A thread inside
 * a read-side section (running a handler, or finishing one) does not wait
 * for a thread that is itself waiting here inside a section: its calls of
 * `handler` may still be running when this returns. Such calls are the
 * handler's last (it is marked removed or blocked), and `finish` (NULL for a
 * block) is handed over: it is called once, by whichever thread sees the
 * last of them over, possibly this one before returning. True when every
 * call was waited for and the caller finishes; false when `finish` was
 * handed over.
 *
 * No cycle of waits closes: a thread outside every section has no call
 * running, so no thread waits for it; and a thread inside one waits only for
 * threads that are not waiting themselves. (dc__synchronize() runs outside
 * every section only.)
 */
bool dc__wait_for_calls(void *handler, dc__finish_function finish, void *context);

/* Waits until every thread other than the caller that was inside a read-side
 * section when it was called has left it. Call outside every section. */
void dc__synchronize(void);

/* Something unlinked, to be freed by `release(object, context)` when no reader
 * can hold it. */
typedef struct dc_retired {
    struct dc_retired *next;
    uint64_t epoch;
    void *object;
    void *context;
    void (*release)(void *object, void *context);
} dc_retired;

/* Retired things, oldest first. */
typedef struct dc_retired_list {
    dc_retired *oldest;
    dc_retired *newest;
    size_t count;
} dc_retired_list;

/* Tags `retired` (allocated by the caller) and appends it to `list`. Call
 * after the object was unlinked. */
void dc__retire(dc_retired_list *list, dc_retired *retired, void *object, void *context,
                void (*release)(void *object, void *context));

/* Frees what on `list` no reader can hold any more, in O(what it frees);
 * with `everything`, frees all of it (the owner knows no reader exists).
 * Caller serializes access to `list`. */
void dc__reclaim(dc_retired_list *list, bool everything);

/* ---- tables and queues (registration.c, execute.c, queue.c) ----------------------------------------- */

struct dc__handler;

void dc__queue_retain(dc_queue *queue);
void dc__queue_release(dc_queue *queue);

/* Posts a call of `handler` with `count` parameter values; the delivery
 * duplicates strings and retains objects from index `first_owned` on, and
 * copies the bytes of structs, whose layouts `signature` gives (NULL for a
 * variadic marshal's values, whose structs must carry their size).
 * DC_ERR_STATE when the queue is destroyed or the handler no longer
 * deliverable (nothing is kept), DC_ERR_NO_MEMORY, DC_ERR_UNSUPPORTED. */
dc_status dc__queue_post(dc_queue *queue, dc_table *table, struct dc__handler *handler, const dc_value *values,
                         size_t count, size_t first_owned, const dc_signature *signature,
                         const dc_object_callbacks *callbacks);

/* Drops every queued delivery of `handler`. Called after it is marked removed. */
void dc__queue_purge(dc_queue *queue, const struct dc__handler *handler);

/* False once the handler is removed or blocked. */
bool dc__handler_deliverable(const struct dc__handler *handler);

/* Runs a queued delivery inside the caller's read-side section; false when it
 * was dropped (handler removed or blocked by now). */
bool dc__handler_deliver(dc_thread_record *reader, dc_table *table, struct dc__handler *handler,
                         dc_value *values, size_t count);


/* ---- register images for the stub path ------------------------------------------ */

/* An integer-class value as the 64-bit register image the callee may read:
 * signed values sign-extended, unsigned and bool zero-extended. */
static inline uint64_t dc__integer_image(const dc_value *value) {
    switch (value->type) {
    case DC_TYPE_BOOL: return value->u8 != 0 ? 1u : 0u; /* any nonzero byte: a caller may fill the union by hand */
    case DC_TYPE_INT8: return (uint64_t)(int64_t)value->i8;
    case DC_TYPE_UINT8: return value->u8;
    case DC_TYPE_INT16: return (uint64_t)(int64_t)value->i16;
    case DC_TYPE_UINT16: return value->u16;
    case DC_TYPE_INT32: return (uint64_t)(int64_t)value->i32;
    case DC_TYPE_UINT32: return value->u32;
    case DC_TYPE_INT64: return (uint64_t)value->i64;
    case DC_TYPE_UINT64: return value->u64;
    case DC_TYPE_STRING: return (uint64_t)(uintptr_t)value->string;
    default: return (uint64_t)(uintptr_t)value->pointer;
    }
}

/* A floating-point value as its vector-register image: a float occupies the
 * low 32 bits, which is all the callee reads. */
static inline double dc__floating_image(const dc_value *value) {
    if (value->type == DC_TYPE_DOUBLE) return value->d;
    uint32_t float_bits;
    memcpy(&float_bits, &value->f, sizeof float_bits);
    uint64_t bits = float_bits;
    double image;
    memcpy(&image, &bits, sizeof image);
    return image;
}

/* Writes the register image of parameter `index` where the stub reads it. */
static inline void dc__store_register_image(const dc_signature *signature, uint64_t *integers, double *floats,
                                            size_t index, const dc_value *value) {
    dc_parameter_slot slot = signature->slots[index];
    if (slot.is_floating)
        floats[slot.index] = dc__floating_image(value);
    else
        integers[slot.index] = dc__integer_image(value);
}

/* ---- calls (invocation.c) ----------------------------------------------- */

/* What an invocation has and is. One struct, so that a closure's entry sets
 * it in one store. */
typedef struct dc__invocation_state {
    bool has_returned; /* result holds a return value, from an invoke or set */
    bool lent;         /* lent to a forward handler: dc_invocation_destroy() leaves it */
    bool has_function; /* function is set: always in a created invocation */
    /* integers and floats are not yet the arguments' register images: the
     * next stub invoke writes them all first (a lent invocation starts so). */
    bool images_stale;
} dc__invocation_state;

/* An invocation: made by dc_invocation_create(), or lent to a forward
 * handler for one call of a closure (closure.c), on the closure's stack.
 * Its storage follows it: the parameter_count argument values, then the
 * pointers to them that ffi_call reads (dc__invocation_arguments(),
 * dc__invocation_ffi_arguments()); DC__INVOCATION_STORAGE bytes of it. A
 * created invocation then keeps the bytes of its struct arguments and of a
 * struct return (the signature's struct_storage); a lent one reads and
 * writes those where libffi has them. */
struct dc_invocation {
    dc_signature *signature;
    dc_function function;
    /* A lent invocation's arguments where libffi handed them over, until the
     * first use that needs them as values (dc__invocation_read_arguments());
     * NULL once they are, and always in a created invocation. Until then the
     * storage and the fields after stub are not set either. */
    void **unread;
    dc__invocation_state state;
    dc_raw_return result;
    /* Where a call leaves its result: &result, or a struct return's bytes.
     * In a lent invocation, set by the entry for a struct return and by
     * dc__invocation_read_arguments() for any other. */
    void *rvalue;
    /* The signature's stub while the call path is the stub path and the
     * invocation can be called at once (a function set, the arguments read,
     * their register images written, and not lent: a lent invocation's
     * invoke hands the result to the closure's caller as well); else NULL,
     * and an invoke looks why. */
    dc_stub stub;
    dc_return_class return_class;
    dc_call_path call_path;
    uint64_t integers[DC_STUB_MAX_INTEGERS];
    double floats[DC_STUB_MAX_FLOATS];
};

/* The bytes of storage after an invocation of `count` parameters. */
#define DC__INVOCATION_STORAGE(count) ((count) * (sizeof(dc_value) + sizeof(void *)))

/* dc_values that hold DC__INVOCATION_STORAGE(count) bytes. */
#define DC__INVOCATION_STORAGE_VALUES(count) \
    ((DC__INVOCATION_STORAGE(count) + sizeof(dc_value) - 1) / sizeof(dc_value))

/* A lent invocation, as a closure's call makes it on its stack, with room
 * for DC__FEW_PARAMETERS parameters; dc__lent_invocation_many extends the
 * storage to DC_MAX_PARAMETERS for the closures of more (closure.c picks
 * which when the closure is made). */
typedef struct dc__lent_invocation {
    void *return_address; /* where the closure's caller reads a scalar return value */
    dc_invocation call;
    dc_value storage[DC__INVOCATION_STORAGE_VALUES(DC__FEW_PARAMETERS)];
} dc__lent_invocation;

typedef struct dc__lent_invocation_many {
    dc__lent_invocation lent;
    dc_value more[DC__INVOCATION_STORAGE_VALUES(DC_MAX_PARAMETERS) - DC__INVOCATION_STORAGE_VALUES(DC__FEW_PARAMETERS)];
} dc__lent_invocation_many;

_Static_assert(offsetof(dc__lent_invocation, storage) == offsetof(dc__lent_invocation, call) + sizeof(dc_invocation),
               "a lent invocation's storage follows it, as a created one's does");
_Static_assert(offsetof(dc__lent_invocation_many, more) == sizeof(dc__lent_invocation),
               "the storage of a lent invocation of many parameters goes on without a gap");

/* The lent invocation whose `call` is `call`. */
static inline const dc__lent_invocation *dc__lent_of(const dc_invocation *call) {
    return (const dc__lent_invocation *)(const void *)((const char *)call - offsetof(dc__lent_invocation, call));
}

/* Writes `value`, of the scalar return type of `signature`, where libffi
 * wants a closure's return value: integers narrower than ffi_arg widened to
 * it. (A struct return is written there as it is set.) */
static inline void dc__store_closure_return(const dc_signature *signature, const dc_value *value, void *ret) {
    switch (signature->return_type) {
    case DC_TYPE_FLOAT: memcpy(ret, &value->f, sizeof value->f); break;
    case DC_TYPE_DOUBLE: memcpy(ret, &value->d, sizeof value->d); break;
    case DC_TYPE_INT64:
    case DC_TYPE_UINT64: memcpy(ret, &value->u64, sizeof value->u64); break;
    case DC_TYPE_OBJECT:
    case DC_TYPE_POINTER:
    case DC_TYPE_STRING: memcpy(ret, &value->pointer, sizeof value->pointer); break;
    default: {
        ffi_arg widened = (ffi_arg)dc__integer_image(value);
        memcpy(ret, &widened, sizeof widened);
        break;
    }
    }
}

/* Writes `value`, the scalar return value a set or an invoke of a lent
 * invocation leaves, where the closure's caller reads it, as libffi wants a
 * closure's: the last one is what the caller gets. */
void dc__invocation_return_to_caller(const dc_invocation *call, const dc_value *value);

/* The invocation's parameter_count typed argument values. */
static inline dc_value *dc__invocation_arguments(const dc_invocation *invocation) {
    return (dc_value *)(invocation + 1);
}

/* &arguments[i].<member>, what ffi_call reads. */
static inline void **dc__invocation_ffi_arguments(const dc_invocation *invocation) {
    return (void **)(dc__invocation_arguments(invocation) + invocation->signature->parameter_count);
}

/* Writes parameter `index` of `signature` as a value to `out`, from the
 * argument at `address`. Every member of a dc_value starts at its union's
 * first byte, so the bytes copied there are the member of that type on any
 * byte order. A struct (size 0, as signatures record it) is its address.
 * Written in place, head first, rather than returned: a returned value is
 * assembled in a vector register, and the copies stop being one load and
 * one store each. */
static inline void dc__load_parameter(const dc_signature *signature, size_t index, const void *address,
                                      dc_value *out) {
    size_t size = signature->parameter_sizes[index];
    memcpy(out, &signature->parameters[index], sizeof(dc__parameter)); /* type and struct_id */
    /* Fixed sizes, so each copy is one load; pointers and 64-bit values,
     * the commonest, first. Only a one-byte value may be a bool. */
    if (DC__LIKELY(size == 8)) {
        memcpy(&out->u64, address, 8);
        return;
    }
    dc_value value;
    value.u64 = 0;
    if (size == 4) {
        memcpy(&value.u64, address, 4);
    } else if (size == 2) {
        memcpy(&value.u64, address, 2);
    } else if (size == 0) {
        value.pointer = (void *)address;
    } else {
        memcpy(&value.u64, address, 1);
        if (out->type == DC_TYPE_BOOL) value.b = value.u8 != 0;
    }
    out->u64 = value.u64;
}

/* Reads a lent invocation's arguments into its values, and sets what a call
 * needs, when it has not yet. */
void dc__invocation_read_arguments(dc_invocation *invocation);

static inline void dc__invocation_ready(dc_invocation *invocation) {
    if (invocation->unread != NULL) dc__invocation_read_arguments(invocation);
}

/* The value a call left in `raw`, narrowed and tagged with the return type. */
dc_value dc__return_value(const dc_signature *signature, const dc_raw_return *raw);

/* A closure whose calls execute `event` of `table` with their arguments but
 * the first `skipped` (closure.c); dc_table_closure_create() skips none. */
dc_status dc__table_closure_create(dc_table *table, dc_event_id event, dc_signature *signature, size_t skipped,
                                   dc_closure **out);

/* dc_table_execute_id_with() of arguments that are the last `count`
 * parameters of `source`, a call's signature: struct arguments and returns
 * are checked against the handlers' by layout as well (closure.c). */
dc_status dc__table_execute_from(dc_table *table, dc_event_id event, const dc_value *arguments, size_t count,
                                 const dc_signature *source, const dc_execute_options *options, dc_result *result);

/* `value` as a call returning its type leaves it: dc__return_value() of the
 * result gives it back. */
dc_raw_return dc__raw_return(const dc_value *value);

#endif /* DISPATCH_CORE_INTERNAL_H */
