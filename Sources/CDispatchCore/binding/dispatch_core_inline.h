/*
 * dispatch_core_inline.h — the core's layouts that readers see, and the
 * inline execute a binding compiles into its callers: read-side sections and
 * the thread record with its execute frames, the handler and its state bits,
 * handler arrays, shape sets, event records and the event list, how a handler
 * is called (directly, as a marshal, or with the Swift convention), the lean
 * execute's loop, and the Swift layer's inline execute of an event record.
 *
 * The core owns it: every struct and state bit here is defined once, with
 * one name, and the core's files see it through internal.h. A binding that
 * keeps an inline fast path includes it (the Swift layer's module
 * CDispatchCoreBinding lists it beside dispatch_core_binding.h), so the
 * binding's inline execute and the library's lean execute are one piece of
 * code; a change to a layout here changes the binding's inlined code, and
 * the binding's symbol version (see "exports" in the Makefile) keeps a
 * binding from loading against a library of other layouts.
 *
 * Not installed, and not a stable API. C only (C++ has no _Atomic before
 * C++23): a C++ translation unit sees nothing of it. What it declares with
 * DC__BINDING_API is exported in the binding's version node, as the
 * declarations of dispatch_core_binding.h are (`make check-exports`).
 */
#ifndef DISPATCH_CORE_INLINE_H
#define DISPATCH_CORE_INLINE_H

#include "dispatch_core_binding.h"

#ifndef __cplusplus

#include <stdatomic.h>
#include <stddef.h>

#if defined(__GNUC__)
#define DC__LIKELY(x) __builtin_expect(!!(x), 1)
/* Makes `pointer` opaque to the optimizer, so it stays one register rather
 * than being recomputed from what it was derived from. */
#define DC__KEEP_IN_REGISTER(pointer) __asm__("" : "+r"(pointer))
#else
#define DC__LIKELY(x) (x)
#define DC__KEEP_IN_REGISTER(pointer) ((void)0)
#endif

/* ---- read-side sections (reclaim.c) -------------------------------------------- */

/*
 * Executes read tables, handler lists and handlers without taking a lock and
 * without writing shared memory. Writers never free what a reader may still
 * hold: they unlink it, retire it with the current epoch, and free it once
 * every thread that was reading when it was unlinked has finished
 * (epoch-based reclamation). The reader's side costs two plain stores per
 * section and one per handler call: its ordering against writers comes from
 * a process-wide fence, which writers issue and readers need not ("asymmetric
 * fences"; the core's platform layer has one on Linux). Where there is none
 * (other systems, old kernels, valgrind) readers fall back to a full fence.
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
    dc_table *table; /* NULL for a queue drain */
    void *context;          /* dc_execute_options.context */
    uint8_t interrupted;    /* DC__FRAME_STOPPED | DC__FRAME_DECLINED, set by a handler */
} dc_execute_frame;

/* What a handler's call set in its frame, read once it has returned: one test
 * of `interrupted` after each call covers both. */
enum {
    DC__FRAME_STOPPED = 1u << 0, /* dc_table_stop_emission: no handler after this one runs */
    DC__FRAME_DECLINED = 1u << 1 /* dc__table_decline_call: this call is not counted */
};

/* Whether the call that just returned declined, clearing that: 1 or 0, to
 * take off a count of handlers run. */
DC__ALWAYS_INLINE size_t dc__take_declined(dc_execute_frame *frame) {
    uint8_t interrupted = frame->interrupted;
    frame->interrupted = interrupted & (uint8_t)~DC__FRAME_DECLINED;
    return (interrupted & DC__FRAME_DECLINED) ? 1 : 0;
}

struct dc__deferred;

typedef struct dc_thread_record {
    /* Written by every execute: records start on a cache line of their own
     * and fill whole lines, so two threads' executes never share one. */
    _Alignas(64) _Atomic uint64_t epoch; /* 0 outside any section, else the epoch seen on entry */
    /* Touched only by the owning thread, but for frames[d].calling. */
    unsigned depth;
    /* Work this thread owes when it leaves a section (reclaim.c): its own
     * pending table destroys, and removed handlers whose last calls run
     * here, handed over by the threads that removed them. Read at every
     * leave; other threads push onto it. */
    _Atomic(struct dc__deferred *) deferred;
    dc_execute_frame frames[DC_MAX_EXECUTE_DEPTH + 1];
    /* Registry. */
    _Atomic bool in_use;
    /* Waiting in a remove or block made inside a section (reclaim.c's
     * dc__wait_for_calls()): another such wait does not wait for this
     * thread's calls. */
    _Atomic bool waiting;
    struct dc_thread_record *next;
} dc_thread_record;

extern DC__BINDING_API _Atomic uint64_t dc__global_epoch;
extern DC__BINDING_API bool dc__asymmetric_fences;
extern DC__BINDING_API _Thread_local dc_thread_record *dc__current_record
#if defined(__GNUC__)
    __attribute__((tls_model("initial-exec")))
#endif
    ;

/* dc__light_fence() for a caller that read dc__asymmetric_fences already
 * (it never changes once a table exists). */
static inline void dc__light_fence_of(bool asymmetric_fences) {
    if (DC__LIKELY(asymmetric_fences))
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

/* Leaves the section at `depth` the way dc__read_leave() does, with owed
 * work (reclaim.c). */
DC__BINDING_API void dc__read_leave_deferring(dc_thread_record *record, unsigned depth);

/* Leaves the section at `depth`, whose frame the caller has at hand, with
 * dc__light_fence_of(asymmetric_fences). The fence orders the store that
 * ends the frame's last call before the load of the owed work: a remover
 * that saw the call still running and handed its handler to this thread
 * pushed it before its heavy fence, so either the remover sees the call
 * over or this leave sees the work (reclaim.c's dc__wait_for_calls()). */
static inline void dc__read_leave_fencing(dc_thread_record *record, dc_execute_frame *frame, unsigned depth,
                                          bool asymmetric_fences) {
    atomic_store_explicit(&frame->calling, NULL, memory_order_release);
    dc__light_fence_of(asymmetric_fences);
    if (atomic_load_explicit(&record->deferred, memory_order_relaxed) != NULL) {
        dc__read_leave_deferring(record, depth);
        return;
    }
    record->depth = depth - 1;
    if (depth == 1) atomic_store_explicit(&record->epoch, 0, memory_order_release);
}

static inline void dc__read_leave(dc_thread_record *record, dc_execute_frame *frame, unsigned depth) {
    dc__read_leave_fencing(record, frame, depth, dc__asymmetric_fences);
}

/* ---- handlers and the per-event structures readers see (table.h, registration.c, removal.c) ----------------- */

struct dc__handler_extras;

/* dc__handler.state: a block count in the low bits, flags above. */
#define DC__STATE_BLOCK_MASK 0x7FFFu
#define DC__STATE_DEFAULT (1u << 15)  /* the event's default handler (DC_HANDLER_RUN_FIRST or _RUN_LAST) */
#define DC__STATE_AFTER (1u << 16)    /* in its event's after array: a run-last default or an after-handler */
#define DC__STATE_DETAILED (1u << 19) /* added with a detail: runs only in executes of its key (run it the general way) */
/* Set on a removed handler, by its remover: its removal finished (destroy
 * notify called). */
#define DC__STATE_FINISHED (1u << 17)
#define DC__STATE_STRUCT_RETURN (1u << 18) /* returns a struct: needs room for it (run the general way) */
#define DC__STATE_SWIFT (1u << 20)       /* a marshal that is a Swift-convention function (DC__HANDLER_SWIFT_CALL) */
#define DC__STATE_UNINDEXED (1u << 21)   /* not in the duplicate index (DC_HANDLER_ALLOW_DUPLICATE) */
#define DC__STATE_GENERAL (1u << 22)     /* more than a void stub call: a marshal, libffi, or a return value */
#define DC__STATE_OWNS_TARGET (1u << 23) /* release the target through the table's callbacks */
#define DC__STATE_VARIADIC (1u << 24)    /* a marshal that takes every argument as given */
#define DC__STATE_MARSHAL (1u << 25)  /* function is a dc_marshal; target is its data */
#define DC__STATE_TARGET (1u << 26)  /* a target is bound as parameter 0 */
#define DC__STATE_STRICT (1u << 27)
#define DC__STATE_ONCE (1u << 28)
#define DC__STATE_QUEUED (1u << 29)
#define DC__STATE_FIRED (1u << 30)   /* a once-handler has been claimed by an execute */
#define DC__STATE_REMOVED (1u << 31)

/* States that leave the fast path: not callable now, or needing more than a call. */
#define DC__STATE_SLOW                                                                                         \
    (DC__STATE_REMOVED | DC__STATE_BLOCK_MASK | DC__STATE_ONCE | DC__STATE_QUEUED | DC__STATE_STRUCT_RETURN | \
     DC__STATE_DETAILED)

/* 48 bytes on 64-bit platforms; the fields an execute reads come first. */
typedef struct dc__handler {
    dc_function function;
    dc_signature *signature;
    void *target;
    _Atomic uint32_t state;
    dc_event_id event;
    uint32_t generation; /* the upper half of the handler's id */
    uint32_t slot;       /* where the table keeps it: the lower half */
    /* Writer side. Live: its index in its event's current array; free: the
     * next free slot + 1, 0 ends. */
    uint32_t position;
    /* Its queue and destroy notify, when given: their index + 1 in the
     * table's extras list; 0 for none. */
    uint32_t extras;
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
 * be checked without visiting each shape (execute.c's
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
     * directly or marshals (shapes.c's lean_call_of()); 0 when it leaves the
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

/* An event, or a detailed key of one ("notify::size"). An event's arrays
 * hold its handlers in call order, those added with a detail among them
 * (DC__STATE_DETAILED); a detailed key's record has no arrays of its own, only
 * the shapes of the handlers added with it, and its event in `base`. */
struct dc__event_record {
    /* The handlers that run before the run-last default: the run-first
     * default (first), then the others. NULL until the first handler. */
    _Atomic(dc__handler_array *) handlers;
    _Atomic(dc__shape_set *) shapes; /* of the handlers added with this key; NULL until the first */
    uint64_t hash;
    dc_event_id id;
    uint32_t live;       /* handlers in `handlers` (writer side) */
    uint32_t tombstones; /* entries of removed handlers in `handlers` (writer side) */
    uint32_t keyed;      /* handlers added with this key (writer side) */
    /* The run-last default (first) and the after-handlers: run after
     * `handlers`, only by the general execute. NULL until the first. */
    _Atomic(dc__handler_array *) after;
    uint32_t after_live;       /* handlers in `after` (writer side) */
    uint32_t after_tombstones; /* entries of removed handlers in `after` (writer side) */
    struct dc__event_record *base; /* a detailed key's event; NULL for an event */
    size_t name_length;
    char name[];
};

/* Events by id: records[id - 1]. Grows by publishing a copy. */
typedef struct dc__event_list {
    uint32_t capacity;
    _Atomic uint32_t count;
    dc__event_record *records[];
} dc__event_list;

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

/* Leaves a lean execute's frame and read-side section, `handled` handlers
 * having run. Reloads what it needs rather than keeping it through the
 * handlers' calls. A brief execute writes *result only when stopped. */
DC__ALWAYS_INLINE dc__brief_result dc__leave_lean(dc_execute_frame *frame, size_t handled, bool stopped,
                                                 dc_result *result, bool brief, bool asymmetric_fences) {
    frame->table = NULL;
    dc_thread_record *reader = dc__current_record;
    dc__read_leave_fencing(reader, frame, reader->depth, asymmetric_fences);
    if ((!brief || stopped) && result != NULL)
        *result = (dc_result){.handled = handled, .stopped = stopped, .return_value = dc_void()};
    return (dc__brief_result){DC_OK, stopped, handled};
}

/* The rest of a lean execute's snapshot from `item` on, the general way, and
 * the execute's end (execute.c). */
DC__BINDING_API dc__brief_result dc__finish_generally(dc_execute_frame *frame, const dc_value *arguments, size_t count,
                                     const dc_execute_options *options, const dc__handler_slot *item,
                                     const dc__handler_slot *end, size_t handled, const dc_value *returned,
                                     dc_result *result);

/* ---- Swift-convention handlers ------------------------------------------------------ */

/* How a DC__HANDLER_SWIFT_CALL marshal is called where the convention exists
 * (DC__SWIFT_CALLS, dispatch_core_binding.h): one taking no parameters with
 * its context alone, one taking parameters with the values too. */
#if DC__SWIFT_CALLS
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
#endif

/* ---- the lean execute (execute.c's execute_lean()) ------------------------------ */

/* The lean execute (execute.c's execute_lean()) takes an event whose handlers
 * all have one shape, returning void, in one of two ways. Plain handlers it
 * calls directly, through a pointer cast to void (*)(uint64_t x parameters),
 * when the signature has at most DC__LEAN_MAX_PARAMETERS parameters, all word
 * images: DC__LEAN_CALL() of the parameter count, whether a target is bound
 * as parameter 0, and the kind of fence (fixed before any table exists).
 * Marshals it calls with the arguments as they are, whatever their types (a
 * marshal receives dc_values, not registers): DC__LEAN_MARSHAL_CALL() of
 * whether it is variadic and the kind of fence; Swift marshals
 * DC__LEAN_SWIFT_CALL() of whether they take the values (their signature has
 * parameters) and the kind of fence. The shape set says which in lean_call;
 * 0 when the lean execute leaves the event to the general one. */
#define DC__LEAN_MAX_PARAMETERS 3
#define DC__LEAN_CALL(parameters, target, asymmetric) \
    (1u + 2u * (parameters) + ((target) ? 1u : 0u) + ((asymmetric) ? 8u : 0u))
#define DC__LEAN_MARSHAL_CALL(variadic, asymmetric) (17u + ((variadic) ? 2u : 0u) + ((asymmetric) ? 1u : 0u))
#define DC__LEAN_SWIFT_CALL(values, asymmetric) (21u + ((values) ? 2u : 0u) + ((asymmetric) ? 1u : 0u))

/* The direct calls through a cast pointer are the calls stubs.c makes (see
 * there why they are exact), so clang's UBSan function check stays off for them. */
#if defined(__clang__) && defined(__has_attribute)
#if __has_attribute(no_sanitize)
#define DC__NO_SANITIZE_FUNCTION __attribute__((no_sanitize("function")))
#endif
#endif
#ifndef DC__NO_SANITIZE_FUNCTION
#define DC__NO_SANITIZE_FUNCTION
#endif

typedef void (*dc__lean_function_0)(void);
typedef void (*dc__lean_function_1)(uint64_t);
typedef void (*dc__lean_function_2)(uint64_t, uint64_t);
typedef void (*dc__lean_function_3)(uint64_t, uint64_t, uint64_t);
_Static_assert(DC__LEAN_MAX_PARAMETERS == 3, "dc__lean_execute_as calls up to three parameters");

/*
 * The lean execute for one lean_call, inside its read-side section with
 * `frame` set up: checks the types of the arguments the shape takes (as many
 * as it takes are there), then calls each handler. False, with nothing
 * called, when the types differ. Otherwise *outcome is the execute's (see
 * reported()) and the section is left.
 *
 * Plain handlers (DC__LEAN_CALL()) are called directly through a cast
 * pointer with the arguments' words, the target first when one is bound.
 * Marshals (DC__LEAN_MARSHAL_CALL()) are called as execute.c's
 * run_handler_generally() calls them: one that is not variadic gets the
 * arguments as they are (they are checked to be exactly its parameters, and
 * there are at least as many) with its parameter count, a variadic one all
 * of them; *result arrives as call_marshal() makes it, typed void and zeroed.
 * What a marshal that is not variadic leaves there is dropped, as
 * call_marshal() drops it; a value a variadic one returns goes to the general
 * loop with the rest of the snapshot (dc__finish_generally()). Swift marshals
 * (`swift`, DC__LEAN_SWIFT_CALL()) are called as call_marshal() calls them:
 * with the arguments as they are when `parameters` is not 0 (the signature
 * has parameters), else with their context alone. Also the Swift layer's
 * inline execute's loop (dc__execute_record_inline()).
 */
DC__NO_SANITIZE_FUNCTION DC__ALWAYS_INLINE bool
dc__lean_execute_as(bool marshal, bool swift, unsigned parameters, bool target, bool variadic, bool asymmetric_fences,
                const dc__handler_array *array, uint32_t handler_count, const dc__shape_set *shapes,
                const dc_value *arguments, size_t count, const dc_execute_options *options, dc_execute_frame *frame,
                dc_result *result, bool brief, dc__brief_result *outcome) {
    /* A marshal's shape takes every parameter of its signature (no target is
     * bound to a marshal), so most_takes is its parameter count, known to be
     * 0 for a Swift marshal without values. */
    size_t takes = !marshal                    ? parameters - (target ? 1 : 0)
                   : variadic || (swift && parameters == 0) ? 0
                                                            : shapes->most_takes;
    for (size_t i = 0; i < takes; i++)
        if (arguments[i].type != (dc_type)shapes->types[i]) return false;
    size_t marshal_count = variadic ? count : takes;
    uint64_t words[DC__LEAN_MAX_PARAMETERS] = {0, 0, 0};
    if (!marshal)
        for (size_t i = 0; i < takes; i++) words[i + (target ? 1 : 0)] = arguments[i].u64;
    uint64_t word0 = words[0], word1 = words[1], word2 = words[2];
    /* Every handler still callable has the sole shape; the test of its state
     * keeps that a fact checked rather than assumed. */
    const uint32_t tested = DC__STATE_SLOW | (marshal ? DC__STATE_MARSHAL | DC__STATE_SWIFT : DC__STATE_GENERAL);
    const uint32_t callable = marshal ? DC__STATE_MARSHAL | (swift ? DC__STATE_SWIFT : 0) : 0;

    /* The handlers that will have run when the loop gets to the end: fewer
     * by each one passed over, removed or blocked. */
    size_t handled_at_end = handler_count;
    const dc__handler_slot *item = array->items, *end = item + handler_count;
    do {
        /* Redefined on every handler, so clang keeps the frame in a
         * callee-saved register rather than moving it in and out of a
         * caller-saved one around each call; gcc keeps it there anyway, and
         * its loops grow with this. */
#if defined(__clang__)
        DC__KEEP_IN_REGISTER(frame);
#endif
        dc__handler *handler = atomic_load_explicit(item, memory_order_acquire);
        uint32_t state = dc__announce_call(frame, handler, asymmetric_fences);
        if (!DC__LIKELY((state & tested) == callable)) {
            if (state & (DC__STATE_REMOVED | DC__STATE_BLOCK_MASK)) {
                handled_at_end--;
                continue;
            }
            *outcome = dc__finish_generally(frame, arguments, count, options, item, end,
                                        handled_at_end - (size_t)(end - item), NULL, result);
            return true;
        }
        if (swift) {
#if DC__SWIFT_CALLS
            dc__call_swift(handler, arguments, parameters != 0);
#endif
        } else if (marshal) {
            dc_value returned;
            returned.u64 = 0;
            returned.type = DC_TYPE_VOID; /* the signature's return type */
            ((dc_marshal)handler->function)(handler->target, arguments, marshal_count, &returned);
            if (variadic && !DC__LIKELY(returned.type == DC_TYPE_VOID || (unsigned)returned.type >= DC_TYPE_COUNT)) {
                *outcome = dc__finish_generally(frame, arguments, count, options, item + 1, end,
                                            handled_at_end - (size_t)(end - item - 1), &returned, result);
                return true;
            }
        } else {
            uint64_t first = target ? (uint64_t)(uintptr_t)handler->target : word0;
            switch (parameters) {
            case 0: ((dc__lean_function_0)handler->function)(); break;
            case 1: ((dc__lean_function_1)handler->function)(first); break;
            case 2: ((dc__lean_function_2)handler->function)(first, word1); break;
            default: ((dc__lean_function_3)handler->function)(first, word1, word2); break;
            }
        }
        if (frame->interrupted) {
            handled_at_end -= dc__take_declined(frame);
            if (frame->interrupted) {
                *outcome = dc__leave_lean(frame, handled_at_end - (size_t)(end - item - 1), true, result, brief,
                                          asymmetric_fences);
                return true;
            }
        }
    } while (++item != end);
    *outcome = dc__leave_lean(frame, handled_at_end, false, result, brief, asymmetric_fences);
    return true;
}

/* ---- an event's record ---------------------------------------------------------- */

/* The id of the event whose record `record` is. */
static inline dc_event_id dc__event_record_id(const dc__event_record *record) { return record->id; }
/* ---- the Swift layer's inline execute ---------------------------------------------- */

/*
 * dc__execute_record(table, record, NULL, 0, context, result) for the
 * Swift layer's typed executes without arguments. Inlined into the Swift
 * caller, it runs the commonest of them, an event whose handlers are all
 * Swift closures taking nothing, without a call into the library: the start
 * of execute.c's execute_lean() and dc__lean_execute_as() for that one case,
 * with asymmetric fences (the platform has a process-wide fence: without it,
 * every call pays a full fence).
 * Every other event, and a thread without a record or nested too deep, goes
 * to dc__execute_record() after leaving the section; a handler that is
 * more than a plain call (once, queued) hands the rest of the snapshot to
 * dc__finish_generally(). Starting from the record rather than the event's id
 * saves the loads of the event list: on this path every load waits for the
 * one before it. `record` must be an event's of `table`, which must not be
 * NULL.
 */
DC__ALWAYS_INLINE dc__brief_result dc__execute_record_inline(dc_table *table,
                                                                  const dc__event_record *record,
                                                                  void *context, dc_result *result) {
#if DC__SWIFT_CALLS
    dc_thread_record *reader = dc__current_record;
    unsigned depth = reader != NULL ? reader->depth + 1 : DC_MAX_EXECUTE_DEPTH + 1;
    if (DC__LIKELY(depth <= DC_MAX_EXECUTE_DEPTH)) {
        dc__read_enter(reader, depth);
        dc__handler_array *array = atomic_load_explicit(&record->handlers, memory_order_acquire);
        uint32_t handler_count = array != NULL ? atomic_load_explicit(&array->count, memory_order_acquire) : 0;
        /* Loaded after the snapshot, so it covers every handler in it; the
         * sole shape takes nothing, so an execute without arguments fits it. */
        uint32_t lean_call =
            handler_count > 0 ? atomic_load_explicit(&record->shapes, memory_order_acquire)->lean_call : 0;
        if (DC__LIKELY(lean_call == DC__LEAN_SWIFT_CALL(false, true))) {
            dc_execute_frame *frame = &reader->frames[depth - 1];
            frame->table = table;
            frame->context = context;
            frame->interrupted = 0;
            dc__brief_result outcome;
            dc__lean_execute_as(true, true, 0, false, false, true, array, handler_count, NULL, NULL, 0, NULL, frame,
                                result, true, &outcome);
            return outcome;
        }
        dc__read_leave(reader, &reader->frames[depth - 1], depth);
    }
#endif
    return dc__execute_record(table, record, NULL, 0, context, result);
}

#endif /* !__cplusplus */

#endif /* DISPATCH_CORE_INLINE_H */
