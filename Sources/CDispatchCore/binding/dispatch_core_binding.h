/*
 * dispatch_core_binding.h — what a language binding of the C core calls and a
 * C program does not: flags for the binding's own handlers, scalar values for
 * code compiled into the binding's callers, executes that carry a context for
 * the binding's handlers and report briefly, calls the binding makes itself,
 * and an event's record with the binding's cache of it. It reads no private
 * layout: an event's record is opaque here.
 *
 * Not installed, and not a stable API: it changes with the library, and a
 * binding is built from the same sources. The core owns it (the core
 * implements what it declares, and includes it through internal.h); the Swift
 * layer imports it as the module CDispatchCoreBinding
 * (Sources/CDispatchCoreBinding/module.modulemap), together with
 * dispatch_core_inline.h beside this file, the core's layouts a binding's
 * inline execute reads.
 *
 * Exports: the installed library exports what dispatch_core.h declares with
 * DC_API and what this header and dispatch_core_inline.h declare with
 * DC__BINDING_API, nothing else (`make check-exports`); every name here starts
 * with dc__ or DC__.
 */
#ifndef DISPATCH_CORE_BINDING_H
#define DISPATCH_CORE_BINDING_H

#include "dispatch_core.h"

#include <stdatomic.h>
#include <stddef.h>

#if defined(DC_BUILDING_LIBRARY) && defined(__GNUC__)
#define DC__BINDING_API __attribute__((visibility("default")))
#else
#define DC__BINDING_API
#endif

#if defined(__GNUC__)
#define DC__ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define DC__ALWAYS_INLINE static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- handler flags (dc_handler_options.flags, with the DC_HANDLER_ ones) ---------- */

enum {
    /* The table takes over one reference to the target (a marshal's data):
     * when the handler goes away it gives it back through the table's
     * `release` callback, as a destroy notify would, without the memory a
     * destroy notify costs. Not taken when dc_table_add returns DC_EXISTS. */
    DC__HANDLER_OWNS_TARGET = 1u << 3,
    /* The public DC_HANDLER_ALLOW_DUPLICATE (dispatch_table.h), under the
     * name the binding used before it was public; for targets that are new
     * by construction, such as a binding's closure box. */
    DC__HANDLER_ALLOW_DUPLICATE = DC_HANDLER_ALLOW_DUPLICATE,
    /* For dc_table_add_marshal: `marshal` is not a dc_marshal but a function
     * of the Swift calling convention (clang's swiftcall) with `data` in the
     * Swift context register: a Swift closure's function and context, called
     * directly with nothing in between. It takes nothing else when the
     * signature has no parameters, else `const dc_value *arguments`, one per
     * parameter, checked and converted as for any marshal. The signature must
     * be given and return void (DC_ERR_INVALID_ARGUMENT otherwise, and for a
     * plain function). DC_ERR_UNSUPPORTED when the library was built by a
     * compiler without that convention (clang has it on x86-64 and AArch64:
     * DC__SWIFT_CALLS below). */
    DC__HANDLER_SWIFT_CALL = 1u << 5,
    /* The target is bound even when it is NULL: passed as parameter 0 like
     * any other, so that a NULL context is a context (a forwarder's delegate
     * may have one), not the absence of a target. */
    DC__HANDLER_BIND_TARGET = 1u << 6,
    /* The handler takes objects only of the types the table's object check
     * accepts (dc__table_set_object_check()): a public execute of its event
     * (dc_table_execute and friends, a table closure's call) asks the check
     * about each object argument before any handler runs, and fails with its
     * message on the first it refuses. A binding's own executes below are
     * not asked: the binding checks its values before it executes. */
    DC__HANDLER_CHECK_OBJECTS = 1u << 7
};

/* The object check of a table: true when `object`, argument `index` of an
 * execute of `event` (its name, or an interned detailed key's), is of a type the
 * handlers that take it accept; false with a message of at most
 * `message_size` bytes, NUL included, written to `message`. Called on the
 * executing thread, outside the table's lock, before any handler runs; it
 * must not execute, add or remove on the table. */
typedef bool (*dc__object_check)(void *context, const char *event, size_t index, void *object, char *message,
                                 size_t message_size);

/* ---- keys of string literals ---------------------------------------------------- */

/*
 * The keys a binding makes for string literals, kept for the life of the
 * process, found by the literal's address (a literal's bytes are constant
 * and never move): a literal naming an event where a key is expected then
 * costs no allocation and finds the event its key remembers, however often
 * the code runs. At most DC__LITERAL_KEYS literals are kept; keys of others
 * are made each time. Any thread may call these at any time.
 */
enum { DC__LITERAL_KEYS = 1024 };

/* The key kept for the literal at `literal`, or NULL for none yet. */
DC__BINDING_API void *dc__literal_key(const void *literal);

/* Keeps `key` for the literal at `literal` unless one is kept already: the
 * key kept for it then (`key` when this call kept it, and the binding hands
 * over a reference to it), or NULL when none is, or another thread's keeping
 * one has not finished, or there is no room. */
DC__BINDING_API void *dc__literal_key_keep(const void *literal, void *key);

/* Sets `table`'s object check and its context, which must stay valid as
 * long as the table. Call it before the table is shared and before any
 * handler with DC__HANDLER_CHECK_OBJECTS is added; a table without one
 * refuses such handlers (DC_ERR_INVALID_ARGUMENT). */
DC__BINDING_API void dc__table_set_object_check(dc_table *table, dc__object_check check, void *context);

/* ---- scalar values for code compiled into a binding's callers ---------------------- */

/* A dc_value holding a scalar, as code compiled into a binding's callers
 * builds and reads one where dc_value cannot be named (the Swift layer's
 * typed executes and handlers of scalars, inlined into their callers): the
 * type, and the payload's bits with the value at its own width in the low
 * bytes. The same layout as dc_value's (checked below), so an array of these
 * is an array of dc_values. */
typedef struct dc__scalar_value {
    uint32_t type; /* a dc_type */
    uint32_t struct_id; /* always 0 */
    uint64_t bits;
} dc__scalar_value;
#ifdef __cplusplus
#define DC__STATIC_ASSERT static_assert
#else
#define DC__STATIC_ASSERT _Static_assert
#endif
DC__STATIC_ASSERT(sizeof(dc_type) == sizeof(uint32_t), "dc__scalar_value.type holds a dc_type");
DC__STATIC_ASSERT(offsetof(dc__scalar_value, type) == offsetof(dc_value, type), "dc_value's type");
DC__STATIC_ASSERT(offsetof(dc__scalar_value, struct_id) == offsetof(dc_value, struct_id), "dc_value's struct_id");
DC__STATIC_ASSERT(offsetof(dc__scalar_value, bits) == offsetof(dc_value, u64), "dc_value's payload");
DC__STATIC_ASSERT(sizeof(dc__scalar_value) == sizeof(dc_value), "dc_value's size");

/* The dc_type of each scalar, for that same code, which cannot name dc_type. */
enum {
    DC__TYPE_BOOL = DC_TYPE_BOOL,
    DC__TYPE_INT8 = DC_TYPE_INT8,
    DC__TYPE_UINT8 = DC_TYPE_UINT8,
    DC__TYPE_INT16 = DC_TYPE_INT16,
    DC__TYPE_UINT16 = DC_TYPE_UINT16,
    DC__TYPE_INT32 = DC_TYPE_INT32,
    DC__TYPE_UINT32 = DC_TYPE_UINT32,
    DC__TYPE_INT64 = DC_TYPE_INT64,
    DC__TYPE_UINT64 = DC_TYPE_UINT64,
    DC__TYPE_FLOAT = DC_TYPE_FLOAT,
    DC__TYPE_DOUBLE = DC_TYPE_DOUBLE
};

/* ---- executes for a binding ------------------------------------------------------- */

/* What a binding's execute reports. */
typedef struct dc__brief_result {
    dc_status status;
    /* The execute did more than run handlers that return nothing: a value was
     * returned, a delivery queued or dropped, or the emission stopped. Then
     * the dc_result given to the execute holds all of it; otherwise the
     * caller need not read it (it may or may not have been written). */
    bool detailed;
    size_t handled; /* handlers that ran; 0 on an error */
} dc__brief_result;

/*
 * dc_table_execute_with (`event` not NULL) or dc_table_execute_id_with (by
 * `event_id` when `event` is NULL), with `context` for the handlers to reach
 * (dc__table_execute_context()). `options` may be NULL for the defaults.
 * Also DC_ERR_NULL_ARGUMENT when `event` is NULL and `event_id` 0.
 */
DC__BINDING_API dc_status dc__table_execute(dc_table *table, const char *event, dc_event_id event_id,
                                            const dc_value *arguments, size_t count,
                                            const dc_execute_options *options, void *context, dc_result *result);

/*
 * dc__table_execute() with the default options, for a binding's commonest
 * execute, which usually needs only how many handlers ran: the same checks,
 * calls and errors, with the common report in registers and the full one in
 * `result` (may be NULL) only when `detailed`. The shortest way to execute.
 */
DC__BINDING_API dc__brief_result dc__table_execute_brief(dc_table *table, const char *event, dc_event_id event_id,
                                                         const dc_value *arguments, size_t count, void *context,
                                                         dc_result *result);

/*
 * The context given by the innermost execute of `table` running on the
 * calling thread; NULL when none is running or it gave none. A binding's
 * handler finds there, for example, where its error should go.
 */
DC__BINDING_API void *dc__table_execute_context(const dc_table *table);

/*
 * Called by a handler from inside its call: the call did nothing (a binding's
 * handler whose weak target has died), so the innermost execute of `table`
 * running on the calling thread does not count it in `handled`. A declined
 * call's return value is ignored only if the handler also says it returned
 * none. DC_ERR_STATE when no execute of `table` runs on this thread.
 */
DC__BINDING_API dc_status dc__table_decline_call(dc_table *table);

/*
 * Calls a binding makes itself, of something it can remove (a multicast
 * delegate's delegate), kept to the table's promises for handlers: a call
 * counts as a handler call, so a removal waits for it as a table's remove
 * waits for a handler's, with the same exception (see "Waiting" in
 * dispatch_core.h), across tables and bindings alike. Two threads, each
 * inside such a call or a handler, removing what the other calls, do not
 * wait for each other forever.
 *
 * The caller's side: dc__call_begin(callee), then read whether callee was
 * removed (with acquire) and call it only if not; dc__call_end() after, in
 * either case. The remover's: mark callee removed (with release), then
 * dc__call_wait(callee). Either the call sees the mark, or the remover
 * sees the call and waits for it.
 */

/* Begins a call of `callee` (any address naming it, never NULL) on the
 * calling thread. false when calls on this thread are nested
 * DC_MAX_EXECUTE_DEPTH deep (executes, drains and such calls counted
 * together), or the thread has no record and none can be made: then the
 * call must not be made, and dc__call_end() not called. */
DC__BINDING_API bool dc__call_begin(const void *callee);

/* Ends the innermost call dc__call_begin() began on this thread. */
DC__BINDING_API void dc__call_end(void);

/* Returns once no call of `callee` that began before runs on another
 * thread, but for the exception above; the caller has marked callee
 * removed. */
DC__BINDING_API void dc__call_wait(const void *callee);

/* An event's record: what a binding keeps with a typed key, as records live
 * as long as their table. Opaque here; laid out in dispatch_core_inline.h. */
typedef struct dc__event_record dc__event_record;
/* Laid out in dispatch_core_inline.h, for dc__execute_record_entered(). */
struct dc_execute_frame;
struct dc__handler_array;

/* The record of `event` in `table`. NULL for an unknown event, or when the
 * thread has no record of its own and none can be made (registry.c). */
DC__BINDING_API const dc__event_record *dc__event_record_of(dc_table *table, dc_event_id event);

/* dc__table_execute_brief() of the event whose record is `record`
 * (dc__event_record_of()), which saves looking the event up (execute.c). */
DC__BINDING_API dc__brief_result dc__execute_record(dc_table *table, const dc__event_record *record,
                                                    const dc_value *arguments, size_t count, void *context,
                                                    dc_result *result);

/* The rest of dc__execute_record(table, record, NULL, 0, context, result)
 * for dc__execute_record_inline(), which has entered the read-side section
 * at `frame`'s depth, set `frame` up, loaded the snapshot `array` of
 * `handler_count` handlers, and seen in the event's shape set that an
 * execute without arguments fits it and needs nothing but that array run:
 * runs the handlers and leaves the section. Only where the fences are
 * asymmetric. */
DC__BINDING_API dc__brief_result dc__execute_record_entered(struct dc_execute_frame *frame,
                                                            const struct dc__handler_array *array,
                                                            uint32_t handler_count, dc_result *result);

/* ---- Swift-convention handlers ------------------------------------------------------ */

/*
 * Whether this compiler has the Swift calling convention that
 * DC__HANDLER_SWIFT_CALL marshals use: a Swift closure's function, called
 * with its context in the Swift context register (r13 on x86-64, x20 on
 * AArch64), as Swift calls a closure. Only clang has the convention, and the
 * Swift toolchain supports it on these two; elsewhere registering one is
 * DC_ERR_UNSUPPORTED and no handler is one. Defining DC_NO_SWIFT_CALLS (for
 * the library and the binding alike, `swift test -Xcc -DDC_NO_SWIFT_CALLS`)
 * turns the convention off where it exists, so the binding's fallback,
 * @convention(c) trampolines, is tested too (`make test-swift-fallback`).
 * How such a handler is called is in dispatch_core_inline.h (dc__call_swift()).
 */
#if defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__)) && !defined(DC_NO_SWIFT_CALLS)
#define DC__SWIFT_CALLS 1
#else
#define DC__SWIFT_CALLS 0
#endif
/* 1 when DC_NO_SWIFT_CALLS turned the convention off (for the binding's tests). */
#if defined(DC_NO_SWIFT_CALLS)
#define DC__SWIFT_CALLS_TURNED_OFF 1
#else
#define DC__SWIFT_CALLS_TURNED_OFF 0
#endif

/*
 * What follows is C only (C++ has no _Atomic before C++23).
 */
#ifndef __cplusplus

/* ---- a binding's cache of an interned event ------------------------------------------ */

/*
 * What a binding's event key remembers: the event its name interned to in the
 * table that last used the key, as that table's serial (a number the binding
 * gives each table: never 0, never reused) and the event's record, from which
 * dc__execute_record() starts without looking the id up (the record holds
 * the id).
 *
 * A key used with several tables stays correct: a lookup for a table other
 * than the remembered one misses, and the binding interns the name there and
 * remembers that table instead. A sequence count guards the two words, so a
 * reader never pairs one table's serial with another table's record (a
 * seqlock: the writer makes the count odd, writes, and makes it even again; a
 * reader keeps what it read only when the count was even and the same before
 * and after). Serials are never reused, so a remembered record is only ever
 * used with its own table, which lives while the binding executes it. Zeroed
 * memory is an empty cache: no table has the serial 0.
 */
typedef struct dc__event_cache {
    _Atomic uint64_t sequence;
    _Atomic uint64_t table;
    _Atomic(const dc__event_record *) record;
} dc__event_cache;

/* An event as a cache remembers it: `found`, and then its record. */
typedef struct dc__cached_event {
    const dc__event_record *record;
    bool found;
} dc__cached_event;

/* The event `cache` remembers for the table numbered `table`; not found when
 * it remembers another table or none, or a writer is changing it. Returned by
 * value, so a caller takes the address of nothing (which would cost a Swift
 * caller a stack protector), and with `found` apart from the record, so that
 * a caller tests one flag rather than the flag and the record. */
DC__ALWAYS_INLINE dc__cached_event dc__event_cache_find(dc__event_cache *cache, uint64_t table) {
    uint64_t before = atomic_load_explicit(&cache->sequence, memory_order_acquire);
    uint64_t remembered = atomic_load_explicit(&cache->table, memory_order_relaxed);
    const dc__event_record *record = atomic_load_explicit(&cache->record, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    uint64_t after = atomic_load_explicit(&cache->sequence, memory_order_relaxed);
    /* A table is remembered only with its record, so found means a record. */
    return (dc__cached_event){record, ((remembered ^ table) | (before ^ after) | (before & 1)) == 0};
}

/* Remembers `record` (never NULL), an event's in the table numbered `table`, unless
 * another thread is remembering one at the same time (the cache then keeps
 * that). */
static inline void dc__event_cache_remember(dc__event_cache *cache, uint64_t table,
                                            const dc__event_record *record) {
    uint64_t before = atomic_load_explicit(&cache->sequence, memory_order_relaxed);
    if ((before & 1) != 0 ||
        !atomic_compare_exchange_strong_explicit(&cache->sequence, &before, before + 1, memory_order_relaxed,
                                                 memory_order_relaxed))
        return;
    /* Readers see the odd count before any of the stores below. */
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&cache->table, table, memory_order_relaxed);
    atomic_store_explicit(&cache->record, record, memory_order_relaxed);
    atomic_store_explicit(&cache->sequence, before + 2, memory_order_release);
}

#endif /* !__cplusplus */

#ifdef __cplusplus
}
#endif

#endif /* DISPATCH_CORE_BINDING_H */
