/*
 * dispatch_core_inline.h — the core's layouts that readers see, and the
 * inline execute a binding compiles into its callers: read-side sections and
 * the thread record with its execute frames, the handler and its state bits,
 * handler arrays, shape sets, event records and the event list, how a handler
 * is called (directly, as a marshal, or with the Swift convention), and the
 * Swift layer's inline execute of an event record: the one loop-free
 * shortcut in front of execute.c's one loop.
 *
 * The core owns it: every struct and state bit here is defined once, with
 * one name, and the core's files see it through internal.h. A binding that
 * keeps an inline fast path includes it (the Swift layer's module
 * CDispatchCoreBinding lists it beside dispatch_core_binding.h), so the
 * binding's shortcut and the library's loop read one definition of each
 * layout; a change to a layout here changes the binding's inlined code, and
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
#define DC__STATE_CHECK_OBJECTS (1u << 23) /* its objects are asked about first (DC__HANDLER_CHECK_OBJECTS) */
#define DC__STATE_SWIFT (1u << 20)       /* a marshal that is a Swift-convention function (DC__HANDLER_SWIFT_CALL) */
/* With DC__STATE_INDIRECT clear: called with more than one word (the
 * bound target counted), fn(w0, w1, w2) or fn(target, w0, w1); clear, with
 * one word at most, fn(w0) or fn(target). On a Swift closure: it takes the
 * arguments (its signature has parameters). Decided with the call. */
#define DC__STATE_WIDE (1u << 21)
/* How the handler is called, decided when it is registered: set unless it is
 * called directly, through a pointer cast to dc__direct_function, with its
 * arguments' words (returns void, a stub signature of word images with at
 * most DC__DIRECT_MAX_PARAMETERS parameters, the bound target counted; not a
 * marshal). Set, the marshal bits and the signature say how. */
#define DC__STATE_INDIRECT (1u << 22)
/* Bit 23 is free. The writers' own bits (not in the duplicate index,
 * owning the target) are in dc__handler.position. */
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
     * next free slot + 1, 0 ends; in the bits above DC__POSITION_INDEX
     * (table.h), flags only writers read. */
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

/* The most arguments a shape the summary answers for takes: counts have a
 * bit for each count up to it. A shape taking more (up to
 * DC_MAX_PARAMETERS) leaves the summary answering for nothing, so each
 * execute of its event checks every shape. */
#define DC__SUMMARIZED_TAKES 63

/* The shapes of one event's live handlers, with a summary that lets the
 * common execute, whose arguments have exactly the types every shape takes,
 * be checked without visiting each shape (execute.c's
 * arguments_fit_summary()). Writers compute the summary before publishing a
 * set; readers never change one. */
typedef struct dc__shape_set {
    uint32_t count;
    uint32_t most_takes;  /* the most arguments a summarized shape takes: how many of `types` are set */
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
    /* counts and strict_counts less the counts below most_takes, which would
     * leave parameters without arguments: the executes execute.c's
     * execute() checks with the summary alone. 0 when the event needs more
     * than its `handlers` array run in order (after-handlers, hooks, a
     * detailed key's: dc__lean_allowed()). */
    uint64_t lean_counts;
    uint64_t lean_strict_counts;
    /* The same for a binding's executes, which do not ask the object check:
     * they differ when a shape has DC__STATE_CHECK_OBJECTS, whose objects a
     * public execute has the check ask about (its lean counts are then 0). */
    uint64_t bound_lean_counts;
    uint64_t bound_lean_strict_counts;
    bool checks_objects; /* a shape has DC__STATE_CHECK_OBJECTS */
    uint8_t types[DC__SUMMARIZED_TAKES]; /* argument i's type in every shape that takes it */
    dc__handler_shape shapes[];
} dc__shape_set;

_Static_assert(DC__SUMMARIZED_TAKES < 64, "dc__shape_set.counts has a bit for every argument count it summarizes");

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

/* Leaves an execute's frame and read-side section, `handled` handlers
 * having run, for an execute that did nothing but run handlers returning
 * nothing (execute.c's execute(), and the shortcut below). Reloads what it
 * needs rather than keeping it through the handlers' calls. A brief execute
 * writes *result only when stopped. */
DC__ALWAYS_INLINE dc__brief_result dc__leave_lean(dc_execute_frame *frame, size_t handled, bool stopped,
                                                 dc_result *result, bool brief, bool asymmetric_fences) {
    frame->table = NULL;
    dc_thread_record *reader = dc__current_record;
    dc__read_leave_fencing(reader, frame, reader->depth, asymmetric_fences);
    if ((!brief || stopped) && result != NULL)
        *result = (dc_result){.handled = handled, .stopped = stopped, .return_value = dc_void()};
    return (dc__brief_result){DC_OK, stopped, handled};
}

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

/* ---- direct calls ------------------------------------------------------------ */

/* A handler without DC__STATE_INDIRECT is called as a dc__direct_function:
 * its parameters' words in the first integer registers, the bound target
 * first. Words past its parameters land in registers it does not read, which
 * the x86-64 and AArch64 conventions allow (execute.c's one loop is the only
 * caller; elsewhere no signature has word images, so no handler is direct). */
#define DC__DIRECT_MAX_PARAMETERS 3
typedef void (*dc__direct_function)(uint64_t, uint64_t, uint64_t);

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

/* ---- an event's record ---------------------------------------------------------- */

/* The id of the event whose record `record` is. */
static inline dc_event_id dc__event_record_id(const dc__event_record *record) { return record->id; }
/* ---- the Swift layer's inline execute ---------------------------------------------- */

/*
 * dc__execute_record(table, record, NULL, 0, context, result) for the
 * Swift layer's typed executes without arguments, inlined into the Swift
 * caller: the one loop-free shortcut in front of execute.c's one loop (as
 * GLib's single-closure shortcut is in front of signal_emit_unlocked_R).
 * An event whose only handler is a Swift closure taking nothing, with
 * asymmetric fences (the platform has a process-wide fence: without it,
 * every call pays a full fence), runs here without a call into the library:
 * the same steps as the loop's for that handler (announce, re-read its
 * state, call, read the frame). Every other execute the shape set's summary
 * answers for goes on in the library's loop, in the section entered here
 * with the frame set up (dc__execute_record_entered()); one that needs more
 * (hooks, after-handlers), on a thread without a record or nested too deep,
 * or without asymmetric fences, goes to dc__execute_record(). Starting from
 * the record rather than the event's id
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
    if (DC__LIKELY(depth <= DC_MAX_EXECUTE_DEPTH && dc__asymmetric_fences)) {
        dc__read_enter(reader, depth);
        dc__handler_array *array = atomic_load_explicit(&record->handlers, memory_order_acquire);
        uint32_t handler_count = array != NULL ? atomic_load_explicit(&array->count, memory_order_acquire) : 0;
        /* Loaded after the snapshot, so it covers its handlers: bit 0 says
         * an execute without arguments fits every shape with the summary
         * alone (none takes an argument) and the event needs nothing but its
         * `handlers` array run. A binding's execute: its own counts. */
        uint64_t lean_counts =
            handler_count > 0 ? atomic_load_explicit(&record->shapes, memory_order_acquire)->bound_lean_counts : 0;
        dc_execute_frame *frame = &reader->frames[depth - 1];
        if (DC__LIKELY(lean_counts & 1)) {
            frame->table = table;
            frame->context = context;
            frame->interrupted = 0;
            if (handler_count == 1) {
                const dc__handler *handler = atomic_load_explicit(&array->items[0], memory_order_acquire);
                uint32_t state = dc__announce_call(frame, handler, true);
                if (DC__LIKELY((state & (DC__STATE_SLOW | DC__STATE_SWIFT)) == DC__STATE_SWIFT)) {
                    /* It takes nothing: its shape takes no argument. */
                    dc__call_swift(handler, NULL, false);
                    size_t handled = 1;
                    if (frame->interrupted) handled -= dc__take_declined(frame);
                    return dc__leave_lean(frame, handled, frame->interrupted != 0, result, true, true);
                }
                /* The library's loop announces it again. */
            }
            return dc__execute_record_entered(frame, array, handler_count, result);
        }
        dc__read_leave(reader, frame, depth);
    }
#endif
    return dc__execute_record(table, record, NULL, 0, context, result);
}

#endif /* !__cplusplus */

#endif /* DISPATCH_CORE_INLINE_H */
