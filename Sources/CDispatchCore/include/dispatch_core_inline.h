/*
 * dispatch_core_inline.h — what the C core's executes read, laid out for the
 * core and for the Swift layer's inline execute.
 *
 * Not part of the C API: it is not installed, and everything here changes
 * with the library. The C core includes it through internal.h; the Swift
 * layer, built from the same sources, sees it through the module, so that
 * dc__execute_record_brief_inline() (the end of this file) is compiled into
 * the Swift code that calls it: a typed execute of closures that take
 * nothing then makes no call into the library.
 */
#ifndef DISPATCH_CORE_INLINE_H
#define DISPATCH_CORE_INLINE_H

#include "dispatch_core.h"

#include <stdatomic.h>

#if defined(__GNUC__)
#define DC__ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define DC__ALWAYS_INLINE static inline
#endif

struct dc_table;

/* ---- read-side sections (reclaim.c) -------------------------------------------- */

/*
 * Executes read tables, handler lists and handlers without taking a lock and
 * without writing shared memory. Writers never free what a reader may still
 * hold: they unlink it, retire it with the current epoch, and free it once
 * every thread that was reading when it was unlinked has finished
 * (epoch-based reclamation). The reader's side costs two plain stores per
 * section and one per handler call: its ordering against writers comes from
 * membarrier(2), which writers issue and readers need not ("asymmetric
 * fences"). Where membarrier is missing (old kernels, valgrind) readers fall
 * back to a full fence.
 *
 * Each thread that reads has a record, found through thread-local storage and
 * kept on a global list that writers scan. `frames[d].calling` names the
 * handler the thread is calling at nesting depth d, so a writer removing a
 * handler can wait for calls of it already running on other threads.
 */
typedef struct dc_execute_frame {
    /* Read by writers; with the rest of the frame, so an execute's loop
     * reaches both through one pointer. */
    _Atomic(const void *) calling;
    struct dc_table *table; /* NULL for a queue drain */
    void *context;          /* dc_execute_options.context */
    bool stopped;           /* dc_table_stop_emission was called for this frame */
} dc_execute_frame;

typedef struct dc_thread_record {
    /* Written by every execute: records start on a cache line of their own
     * and fill whole lines, so two threads' executes never share one. */
    _Alignas(64) _Atomic uint64_t epoch; /* 0 outside any section, else the epoch seen on entry */
    /* Touched only by the owning thread, but for frames[d].calling. */
    unsigned depth;
    dc_execute_frame frames[DC_MAX_EXECUTE_DEPTH + 1];
    /* Registry. */
    _Atomic bool in_use;
    struct dc_thread_record *next;
} dc_thread_record;

extern _Atomic uint64_t dc__global_epoch;
extern bool dc__asymmetric_fences;
extern _Thread_local dc_thread_record *dc__current_record
#if defined(__GNUC__)
    __attribute__((tls_model("initial-exec")))
#endif
    ;

/* dc__light_fence() for a caller that read dc__asymmetric_fences already
 * (it never changes once a table exists). */
static inline void dc__light_fence_of(bool asymmetric_fences) {
    if (asymmetric_fences)
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
}

/* Orders a reader's store before its following loads against writers. */
static inline void dc__light_fence(void) { dc__light_fence_of(dc__asymmetric_fences); }

/* Enters the section at `depth` (record->depth + 1) on the caller's record
 * (see dc__read_begin_keeping() in internal.h). */
static inline void dc__read_enter(dc_thread_record *record, unsigned depth) {
    record->depth = depth;
    if (depth == 1) {
        atomic_store_explicit(&record->epoch,
                              atomic_load_explicit(&dc__global_epoch, memory_order_acquire),
                              memory_order_relaxed);
        dc__light_fence();
    }
}

/* Leaves the section at `depth`, whose frame the caller has at hand. */
static inline void dc__read_leave(dc_thread_record *record, dc_execute_frame *frame, unsigned depth) {
    atomic_store_explicit(&frame->calling, NULL, memory_order_release);
    record->depth = depth - 1;
    if (depth == 1) atomic_store_explicit(&record->epoch, 0, memory_order_release);
}

/* ---- handlers and the per-event structures readers see (table.c) ----------------- */

struct dc__handler_extras;

/* 48 bytes; the fields an execute reads come first. */
typedef struct dc__handler {
    dc_function function;
    dc_signature *signature;
    void *target;
    _Atomic uint32_t state;
    dc_event_id event;
    struct dc__handler_extras *extras; /* NULL unless a queue or destroy notify was given */
    uint32_t generation;               /* the upper half of the handler's id */
    uint32_t next;                     /* dedupe chain / removal list / free list: slot + 1, 0 ends */
} dc__handler;

/* An entry of a handler array. */
typedef _Atomic(dc__handler *) dc__handler_slot;

/* The handlers of one event in order. Appending writes items[count] and then
 * publishes count; anything else publishes a new array. */
typedef struct dc__handler_array {
    uint32_t capacity;
    _Atomic uint32_t count;
    dc__handler_slot items[];
} dc__handler_array;

/* A distinct way of receiving arguments: the arguments are checked once per
 * shape, not once per handler. */
typedef struct dc__handler_shape {
    dc_signature *signature;
    /* STATE_TARGET | STATE_STRICT | STATE_VARIADIC | STATE_MARSHAL |
     * STATE_SWIFT: a marshal and a plain function of one signature are
     * different shapes, as are a C and a Swift marshal, so a sole shape says
     * how every handler of the event is called. */
    uint32_t state_flags;
    uint32_t handlers;    /* how many live handlers have it (writer side) */
    uint32_t takes;       /* event arguments it takes: parameters after the target */
} dc__handler_shape;

/* The shapes of one event's live handlers, with a summary that lets the
 * common execute, whose arguments have exactly the types every shape takes,
 * be checked without visiting each shape (table.c's
 * arguments_fit_summary()). Writers compute the summary before publishing a
 * set; readers never change one. */
typedef struct dc__shape_set {
    uint32_t count;
    uint32_t most_takes;  /* the most arguments a shape takes: how many of `types` are set */
    /* Bit n: an execute with n arguments (n < 64) fits every shape's arity,
     * without and with DC_EXECUTE_STRICT. No bit is set when the shapes
     * disagree on a type, so the summary never answers for them. */
    uint64_t counts;
    uint64_t strict_counts;
    /* The one shape, when there is one and its signature has word images:
     * checking the arguments then also computes its call images. */
    const dc_signature *sole_signature;
    uint32_t sole_flags; /* its state_flags */
    uint32_t sole_first; /* its first_argument_parameter() */
    /* How the lean execute calls the handlers of the only shape, plain ones
     * directly or marshals (table.c's lean_call_of()); 0 when it leaves the
     * event to the general execute. */
    uint32_t lean_call;
    /* counts and strict_counts less the counts below most_takes, which would
     * leave parameters without arguments; 0 when lean_call is. */
    uint64_t lean_counts;
    uint64_t lean_strict_counts;
    uint8_t types[DC_MAX_PARAMETERS]; /* argument i's type in every shape that takes it */
    dc__handler_shape shapes[];
} dc__shape_set;

_Static_assert(DC_MAX_PARAMETERS < 64, "dc__shape_set.counts has a bit for every argument count a shape takes");

typedef struct dc__event_record {
    _Atomic(dc__handler_array *) handlers; /* NULL until the first handler */
    _Atomic(dc__shape_set *) shapes;       /* NULL until the first handler */
    uint64_t hash;
    dc_event_id id;
    uint32_t live;       /* registered handlers (writer side) */
    uint32_t tombstones; /* removed handlers still in the array (writer side) */
    bool needs_sweep;    /* removed handlers still in the array, not yet tombstones */
    size_t name_length;
    char name[];
} dc__event_record;

/* Events by id: records[id - 1]. Grows by publishing a copy. */
typedef struct dc__event_list {
    uint32_t capacity;
    _Atomic uint32_t count;
    dc__event_record *records[];
} dc__event_list;

/* What an execute reads of a table: the head of struct dc_table. */
typedef struct dc__table_head {
    _Atomic(dc__event_list *) events;
    bool destroy_pending; /* dc_table_destroy called from one of its handlers */
} dc__table_head;

/* Announces `handler` as the one this thread is about to call, so that a
 * remove or block on another thread waits for the call, then re-reads its
 * state after the fence: a remove or block that returned before this point
 * is seen here (see reclaim.c). The announcement stays until the next one or
 * the end of the section: a writer waiting for this handler waits a few
 * instructions more. Every execute loop calls handlers this way. */
DC__ALWAYS_INLINE uint32_t dc__announce_call(dc_execute_frame *frame, const dc__handler *handler,
                                             bool asymmetric_fences) {
    atomic_store_explicit(&frame->calling, handler, memory_order_relaxed);
    dc__light_fence_of(asymmetric_fences);
    return atomic_load_explicit(&handler->state, memory_order_acquire);
}

/* Frees a table whose destroy was called from one of its handlers, once its
 * outermost execute is over (table.c). */
void dc__finish_pending_destroy(struct dc_table *table);

/* Leaves a lean execute's frame and read-side section, `handled` handlers
 * having run. Reloads what it needs rather than keeping it through the
 * handlers' calls. A brief execute writes *result only when stopped. */
DC__ALWAYS_INLINE dc_brief_result dc__leave_lean(dc_execute_frame *frame, size_t handled, bool stopped,
                                                 dc_result *result, bool brief) {
    struct dc_table *table = frame->table;
    frame->table = NULL;
    dc_thread_record *reader = dc__current_record;
    dc__read_leave(reader, frame, reader->depth);
    if (((const dc__table_head *)table)->destroy_pending) dc__finish_pending_destroy(table);
    if ((!brief || stopped) && result != NULL)
        *result = (dc_result){.handled = handled, .stopped = stopped, .return_value = dc_void()};
    return (dc_brief_result){DC_OK, stopped, handled};
}

/* The rest of a lean execute's snapshot from `item` on, the general way, and
 * the execute's end (table.c). */
dc_brief_result dc__finish_generally(dc_execute_frame *frame, const dc_value *arguments, size_t count,
                                     const dc_execute_options *options, const dc__handler_slot *item,
                                     const dc__handler_slot *end, size_t handled, const dc_value *returned,
                                     dc_result *result);

/* ---- Swift-convention handlers and the inline execute ---------------------------- */

/*
 * DC_HANDLER_SWIFT_CALL marshals: a Swift closure's function, called with its
 * context in the Swift context register (r13 on x86-64, x20 on AArch64), as
 * Swift calls a closure. One taking no parameters has no other; one taking
 * parameters reads them from the values. Only clang has the convention, and
 * the Swift toolchain supports it on these two; elsewhere registering one is
 * DC_ERR_UNSUPPORTED and no handler is one.
 */
#if defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__))
#define DC__SWIFT_CALLS 1
typedef void (*dc__swift_function_0)(void *context __attribute__((swift_context))) __attribute__((swiftcall));
typedef void (*dc__swift_function_1)(const dc_value *arguments, void *context __attribute__((swift_context)))
    __attribute__((swiftcall));

/* Calls a Swift-convention marshal: with `values` when its signature has
 * parameters, else with its context alone. */
DC__ALWAYS_INLINE void dc__call_swift(const dc__handler *handler, const dc_value *values, bool with_values) {
    if (with_values)
        ((dc__swift_function_1)handler->function)(values, handler->target);
    else
        ((dc__swift_function_0)handler->function)(handler->target);
}
#else
#define DC__SWIFT_CALLS 0
#endif

/* dc__shape_set.lean_call of an event whose handlers all are Swift-convention
 * marshals taking nothing, where readers' fences are asymmetric (table.c's
 * LEAN_SWIFT_CALL(false, true), checked there). */
#define DC__LEAN_SWIFT_NOTHING_ASYMMETRIC 22u

/* Handler states (table.c's STATE_* bits, checked there). A handler such an
 * event's lean execute calls has exactly DC__STATE_SWIFT_CALL among the bits
 * of DC__STATE_SWIFT_TESTED: a Swift marshal not removed, blocked, once or
 * queued. One with any of DC__STATE_PASSED_OVER (removed or blocked) is passed
 * over; any other needs the general execute. */
#define DC__STATE_SWIFT_TESTED 0xB210FFFFu
#define DC__STATE_SWIFT_CALL 0x02100000u
#define DC__STATE_PASSED_OVER 0x8000FFFFu

/* The record of `event` in `table`: what the Swift layer keeps with a key,
 * as records live as long as their table. NULL for an unknown event, or when
 * the thread has no record of its own and none can be made (table.c). */
const dc__event_record *dc__event_record_of(struct dc_table *table, dc_event_id event);

/* dc_table_execute_id_brief() of the event whose record is `record`
 * (dc__event_record_of()), which saves looking it up (table.c). */
dc_brief_result dc__execute_record_brief(struct dc_table *table, const dc__event_record *record,
                                         const dc_value *arguments, size_t count, void *context, dc_result *result);

/*
 * dc__execute_record_brief(table, record, NULL, 0, context, result) for the
 * Swift layer's typed executes without arguments. Inlined into the Swift
 * caller, it runs the commonest of them, an event whose handlers are all
 * Swift closures taking nothing, without a call into the library: the lean
 * execute of table.c (lean_execute_as()) for that one case, with asymmetric
 * fences (membarrier(2) is there: without it, every call pays a full fence).
 * Every other event, and a thread without a record or nested too deep, goes
 * to dc__execute_record_brief() after leaving the section; a handler that is
 * more than a plain call (once, queued) hands the rest of the snapshot to
 * dc__finish_generally(). Starting from the record rather than the event's id
 * saves the loads of the event list: on this path every load waits for the
 * one before it. `record` must be an event's of `table`, which must not be
 * NULL.
 */
DC__ALWAYS_INLINE dc_brief_result dc__execute_record_brief_inline(struct dc_table *table,
                                                                  const dc__event_record *record,
                                                                  void *context, dc_result *result) {
#if DC__SWIFT_CALLS
    dc_thread_record *reader = dc__current_record;
    unsigned depth = reader != NULL ? reader->depth + 1 : DC_MAX_EXECUTE_DEPTH + 1;
    if (__builtin_expect(depth <= DC_MAX_EXECUTE_DEPTH, 1)) {
        dc__read_enter(reader, depth);
        dc__handler_array *array = atomic_load_explicit(&record->handlers, memory_order_acquire);
        uint32_t handler_count = array != NULL ? atomic_load_explicit(&array->count, memory_order_acquire) : 0;
        /* Loaded after the snapshot, so it covers every handler in it; the
         * sole shape takes nothing, so an execute without arguments fits it. */
        uint32_t lean_call =
            handler_count > 0 ? atomic_load_explicit(&record->shapes, memory_order_acquire)->lean_call : 0;
        if (__builtin_expect(lean_call == DC__LEAN_SWIFT_NOTHING_ASYMMETRIC, 1)) {
            dc_execute_frame *frame = &reader->frames[depth - 1];
            frame->table = table;
            frame->context = context;
            frame->stopped = false;
            size_t handled_at_end = handler_count;
            const dc__handler_slot *item = array->items, *end = item + handler_count;
            do {
                /* Keeps the frame in a callee-saved register across the calls. */
                __asm__("" : "+r"(frame));
                dc__handler *handler = atomic_load_explicit(item, memory_order_acquire);
                uint32_t state = dc__announce_call(frame, handler, true);
                if (!__builtin_expect((state & DC__STATE_SWIFT_TESTED) == DC__STATE_SWIFT_CALL, 1)) {
                    if (state & DC__STATE_PASSED_OVER) {
                        handled_at_end--;
                        continue;
                    }
                    return dc__finish_generally(frame, NULL, 0, NULL, item, end,
                                                handled_at_end - (size_t)(end - item), NULL, result);
                }
                dc__call_swift(handler, NULL, false);
                if (frame->stopped)
                    return dc__leave_lean(frame, handled_at_end - (size_t)(end - item - 1), true, result, true);
            } while (++item != end);
            return dc__leave_lean(frame, handled_at_end, false, result, true);
        }
        dc__read_leave(reader, &reader->frames[depth - 1], depth);
    }
#endif
    return dc__execute_record_brief(table, record, NULL, 0, context, result);
}

#endif /* DISPATCH_CORE_INLINE_H */
