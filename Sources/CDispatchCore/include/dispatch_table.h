/*
 * dispatch_table.h — event tables (GSignal for C): named events with ordered
 * handlers, executes with accumulators, and queues that deliver on a chosen
 * thread. Part of the public API, included by dispatch_core.h, whose
 * conventions (names, errors, lifetime) and types (dc_value, dc_signature)
 * hold here too; it includes dispatch_closure.h at its end.
 */
#ifndef DISPATCH_TABLE_H
#define DISPATCH_TABLE_H

#include "dispatch_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Event tables (GSignal)                                                    */
/* ------------------------------------------------------------------------ */

/*
 * A table maps event names to ordered lists of handlers, as GLib's signals do
 * for an instance. A handler is a C function with its dc_signature, an optional
 * bound target passed as parameter 0, and options. Executing an event checks
 * the arguments against every handler's signature first, then calls the
 * handlers in order: an execute either runs whole or fails before anything runs.
 *
 * Threads: every table function may be called from any thread. Executes run in
 * parallel with each other and with registration and removal: they take no
 * lock and write no shared memory, so they scale with threads. Writers
 * (add, remove, block, intern) serialize on the table's lock, which is never
 * held while a handler runs.
 *
 * Re-entrancy: a handler may execute, add, remove, block and unblock on its own
 * table, and destroy it. A handler added during an execute runs from the next
 * execute on. A handler removed or blocked is not called once the remove or
 * block has returned, by any thread, not even later in an execute already
 * running. A once-handler runs at most once, even when executes race or nest.
 *
 * Waiting: a remove or block also waits for the calls of that handler already
 * running on other threads to return, with one exception, which keeps
 * handlers that block themselves or remove each other on several threads
 * from waiting for each other forever. A remove or block made inside a
 * handler (or a queued delivery, an emission hook or the table observer, or a
 * destroy notify run in one of them) does not wait
 * for a call running on a thread that is itself waiting in a remove or block
 * made inside a handler. Such a call may still be running when the remove or
 * block returns; it is the handler's last, and the handler's destroy notify
 * runs once it has returned, on
 * whichever of the two threads sees it over first. Made outside every
 * handler, hook and observer call, a remove or block waits for every running
 * call.
 * A waiting remove or block is also why a handler must not be removed while
 * holding a lock the handler itself takes.
 */
typedef struct dc_table dc_table;

/* A delivery queue: see "Queues" below. */
typedef struct dc_queue dc_queue;

/* An interned event name; stable for the table's life. 0 is never valid. */
typedef uint32_t dc_event_id;

/* A registered handler. Unique in the process, so an id names a handler of
 * one table only, until 2^32 - 1 handlers have been added to the process's
 * tables; after that an id may be issued again. 0 is never valid. */
typedef uint64_t dc_handler_id;

/*
 * How the table keeps DC_TYPE_OBJECT arguments alive while it holds them:
 * a queued delivery retains each object argument when it is posted and releases
 * it after delivery or when the delivery is dropped. Both may be NULL (objects
 * are then not reference-counted). The Swift layer passes its own.
 */
typedef struct dc_object_callbacks {
    void (*retain)(void *object);
    void (*release)(void *object);
} dc_object_callbacks;

/*
 * Creates an empty table. `name` (may be NULL) appears in messages; it is
 * copied. `callbacks` (may be NULL) is copied. The caller owns *out.
 * Errors: DC_ERR_NULL_ARGUMENT (out NULL), DC_ERR_NO_MEMORY.
 */
DC_API dc_status dc_table_create(const char *name, const dc_object_callbacks *callbacks,
                                 dc_table **out);

/*
 * Removes every handler (calling each destroy notify once, and dropping their
 * queued deliveries) and frees the table. NULL does nothing. Executes and
 * drains already running on other threads are waited for; none may start once
 * destroy is called, and adds fail with DC_ERR_STATE.
 * Called inside a handler or a queued delivery (of any table) or from a
 * destroy notify, it removes the handlers at once and frees the table once
 * the calling thread's outermost execute, drain or remove returns (where
 * waiting for the other threads cannot close a cycle). Calling it again for a
 * table already being destroyed, from a handler or destroy notify still
 * running, does nothing.
 */
DC_API void dc_table_destroy(dc_table *table);

/* The table's name as given ("" when none). Owned by the table. */
DC_API const char *dc_table_name(const dc_table *table);

/*
 * Event keys and details. An event key is an event's name, or the name and a
 * detail joined by "::" ("notify::size"), as in GLib. Executing
 * "notify::size" runs the handlers added to "notify" without a detail and
 * those added to "notify::size", in one call order, after one validation of
 * the arguments against all of them; executing "notify" runs only those added
 * without a detail. Both parts of a detailed key must be non-empty, and it
 * holds one "::" with no ':' next to it: "::size", "notify::", "a::b::c" and
 * "a:::b" are DC_ERR_INVALID_ARGUMENT wherever a key is taken. A detailed key
 * interns to an id of its own (interning its event too), usable wherever
 * event ids are.
 */

/*
 * The id of event key `event`, interning it on first use. Ids are dense,
 * from 1, and stable for the table's life; use them in hot loops.
 * Errors: DC_ERR_NULL_ARGUMENT, DC_ERR_INVALID_ARGUMENT (a malformed detailed
 * key), DC_ERR_NO_MEMORY.
 */
DC_API dc_status dc_table_intern(dc_table *table, const char *event, dc_event_id *out);

/*
 * The name of an interned event, owned by the table for its life.
 * Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_NOT_FOUND (not an id of this table).
 */
DC_API dc_status dc_table_event_name(const dc_table *table, dc_event_id event, const char **out);

/* ---- handlers -------------------------------------------------------------- */

/* Handler option flags. */
enum {
    /* Run at most once, then remove itself. */
    DC_HANDLER_ONCE = 1u << 0,
    /* Insert before the event's other handlers instead of after them. */
    DC_HANDLER_FIRST = 1u << 1,
    /* The event's argument count must equal the handler's parameter count
     * (less the bound target); otherwise an execute fails with DC_ERR_ARITY. */
    DC_HANDLER_STRICT = 1u << 2,
    /* Register even when the same (event, function, target) is registered
     * already, as g_signal_connect does: never DC_EXISTS. Such a handler
     * takes no entry in the table's duplicate index, so a later add without
     * this flag does not find it either; each one is removed by its own id
     * (or with its target, its event, or all). */
    DC_HANDLER_ALLOW_DUPLICATE = 1u << 4,
    /* Bits 3 and 5 to 7 are language bindings' (dispatch_core_binding.h). */
    /* Phases, as GLib's: an event's handlers run in the order run-first
     * default, the others, run-last default, after-handlers. */
    /* Run after the event's run-last default handler
     * (g_signal_connect_after); with DC_HANDLER_FIRST, first of those. */
    DC_HANDLER_AFTER = 1u << 8,
    /* The event's default handler (GLib's class closure with
     * G_SIGNAL_RUN_FIRST or G_SIGNAL_RUN_LAST): runs before every other
     * handler, or after the others and before the after-handlers. An event
     * has at most one default handler (DC_ERR_STATE for a second) and a
     * detailed key none (DC_ERR_INVALID_ARGUMENT). dc_table_remove_event,
     * dc_table_remove_target and dc_table_remove_all leave it; dc_table_remove
     * of its id and the table's destroy remove it. */
    DC_HANDLER_RUN_FIRST = 1u << 9,
    DC_HANDLER_RUN_LAST = 1u << 10
    /* Any other bit, or more than one of the last three, is
     * DC_ERR_INVALID_ARGUMENT, as is DC_HANDLER_FIRST with a default. */
};

typedef struct dc_handler_options {
    uint32_t flags; /* DC_HANDLER_* */
    /* Deliver on this queue's owner thread (see "Queues"); NULL runs the handler
     * on the executing thread. The handler holds a reference to the queue. */
    dc_queue *queue;
    /* Called exactly once with destroy_data when the handler goes away: removed
     * in any way (including a once-handler after its run) or its table
     * destroyed, once no call of it runs on another thread. Runs on the thread
     * that removed it, with no table lock held, before the remove returns;
     * when the remove did not wait for a call (see "Waiting" above), once
     * that call has returned, on whichever of the two threads sees it over
     * first. It may use the table, destroy it included. */
    void (*destroy)(void *destroy_data);
    void *destroy_data;
} dc_handler_options;

/*
 * Registers `function`, whose C type `signature` describes, for `event`
 * (interned on first use). When `target` is not NULL it is bound: passed as
 * parameter 0, which must be an object, pointer or string, and the event's
 * arguments fill the parameters after it. The table retains the signature;
 * it does not retain the target (remove the handler, or all of the target's
 * with dc_table_remove_target, before the target goes away). `options` may be
 * NULL for the defaults (last in order, run every time, no queue).
 *
 * Arity: a handler taking fewer parameters than the event carries receives the
 * first ones; one taking more receives zero/NULL for the missing ones, unless
 * DC_HANDLER_STRICT.
 *
 * Returns DC_OK with the new handler's id in *out (out may be NULL), or,
 * unless DC_HANDLER_ALLOW_DUPLICATE, DC_EXISTS when the same (event,
 * function, target) is already registered:
 * the existing handler is kept unchanged, *out is its id, and `options` is
 * ignored (its destroy notify is not kept and will not be called).
 * Errors: DC_ERR_NULL_ARGUMENT (table, event, signature or function NULL);
 * DC_ERR_INVALID_ARGUMENT (unknown or contradicting flags, a malformed key,
 * a default handler for a detailed key); DC_ERR_STATE (a second default
 * handler); DC_ERR_TYPE (a target is given but the signature's
 * parameter 0 is not pointer-like, or it has no parameters);
 * DC_ERR_STATE (the table is being destroyed); DC_ERR_NO_MEMORY (also when
 * the table holds 134,217,727 handlers, the most one table can; a removed
 * handler's place is free again once no execute holds it); DC_ERR_DEPTH
 * (inside an observer's call at the deepest nesting, see dc_table_observer).
 * The table is unchanged on every error.
 */
DC_API dc_status dc_table_add(dc_table *table, const char *event, dc_signature *signature,
                              dc_function function, void *target,
                              const dc_handler_options *options, dc_handler_id *out);

/* dc_table_add for an interned event id; DC_ERR_NOT_FOUND for an unknown id. */
DC_API dc_status dc_table_add_id(dc_table *table, dc_event_id event, dc_signature *signature,
                                 dc_function function, void *target,
                                 const dc_handler_options *options, dc_handler_id *out);

/*
 * A handler that receives the event's arguments as values rather than as C
 * parameters, as GLib's GClosure marshallers do: the way to register closures
 * of other languages (the Swift layer's closures use it) and variadic-style C
 * handlers. `data` is passed through unchanged.
 *
 * Called with `count` values, one per parameter of the handler's signature,
 * already checked and converted to the parameter types (arity adaptation as for
 * any handler: missing trailing ones are zero/NULL). When the signature returns
 * a value, *result arrives typed as its return type and zeroed; the marshal
 * sets its member, or sets the type to DC_TYPE_VOID to return nothing this
 * time (its result is then not counted). The values are valid for the call
 * only.
 */
typedef void (*dc_marshal)(void *data, const dc_value *arguments, size_t count, dc_value *result);

/*
 * Registers a marshal handler for `event`. Everything about dc_table_add
 * holds, with `data` in the place of the target except that it is not passed as
 * a parameter: duplicates are (event, marshal, data) and return DC_EXISTS, and
 * dc_table_remove_target(table, data) removes it.
 *
 * With a NULL signature the marshal is variadic: it receives every argument
 * of each execute as given (count is the execute's count, nothing is checked
 * or converted) and *result arrives as dc_void(); it may set any type.
 * DC_HANDLER_STRICT does not apply to it.
 *
 * Errors: as dc_table_add (marshal NULL is DC_ERR_NULL_ARGUMENT).
 */
DC_API dc_status dc_table_add_marshal(dc_table *table, const char *event, dc_signature *signature,
                                      dc_marshal marshal, void *data,
                                      const dc_handler_options *options, dc_handler_id *out);

/* dc_table_add_marshal for an interned event id. */
DC_API dc_status dc_table_add_marshal_id(dc_table *table, dc_event_id event, dc_signature *signature,
                                         dc_marshal marshal, void *data,
                                         const dc_handler_options *options, dc_handler_id *out);

/*
 * Removes one handler in O(1). Once this returns the handler is not called
 * again (see re-entrancy above), its queued deliveries are dropped and its
 * destroy notify has run (but see "Waiting" above). Errors:
 * DC_ERR_NULL_ARGUMENT; DC_ERR_NOT_FOUND (0, never issued, issued by another
 * table, or already removed); DC_ERR_DEPTH (inside an observer's call at the
 * deepest nesting, see dc_table_observer). The remove-by-target, -event and
 * -all calls below fail with DC_ERR_DEPTH there too, removing nothing.
 * Replaces: g_signal_handler_disconnect.
 */
DC_API dc_status dc_table_remove(dc_table *table, dc_handler_id handler);

/*
 * Removes every handler bound to `target`, on every event, and writes how many
 * to *removed (may be NULL). Finding none is not an error (0 removed).
 * Errors: DC_ERR_NULL_ARGUMENT (table or target NULL).
 * Replaces: g_signal_handlers_disconnect_by_data.
 */
DC_API dc_status dc_table_remove_target(dc_table *table, void *target, size_t *removed);

/* Removes every handler of one event, those added with a detail included;
 * for a detailed key, those added with it. An unknown key removes 0. Leaves
 * default handlers. Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_INVALID_ARGUMENT (a
 * malformed key). Replaces: g_signal_handlers_disconnect_matched. */
DC_API dc_status dc_table_remove_event(dc_table *table, const char *event, size_t *removed);
/* The same by id; DC_ERR_NOT_FOUND for an unknown id. */
DC_API dc_status dc_table_remove_event_id(dc_table *table, dc_event_id event, size_t *removed);

/* Removes every handler of the table but default handlers. */
DC_API dc_status dc_table_remove_all(dc_table *table, size_t *removed);

/*
 * Blocks a handler in O(1): counted, as in GLib, so it runs again only after
 * as many unblocks. Once dc_table_block returns the handler is not called (see
 * re-entrancy and "Waiting" above); while blocked its queued deliveries are dropped when they
 * come due. Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_NOT_FOUND;
 * DC_ERR_STATE (unblock of a handler that is not blocked).
 * Replaces: g_signal_handler_block / g_signal_handler_unblock.
 */
DC_API dc_status dc_table_block(dc_table *table, dc_handler_id handler);
DC_API dc_status dc_table_unblock(dc_table *table, dc_handler_id handler);

/* True while `handler` is registered (not yet removed) in `table`; false for
 * 0, NULL or an id of a removed handler. Replaces g_signal_handler_is_connected. */
DC_API bool dc_table_contains(const dc_table *table, dc_handler_id handler);

/* The handlers an execute of the key would consider (blocked ones
 * included): for an event, those added without a detail; for a detailed
 * key, those and the ones added with it. An unknown key gives 0.
 * Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_INVALID_ARGUMENT (a malformed key);
 * DC_ERR_NOT_FOUND for an id this table never issued (as everywhere ids are
 * taken). */
DC_API dc_status dc_table_handler_count(const dc_table *table, const char *event, size_t *out);
DC_API dc_status dc_table_handler_count_id(const dc_table *table, dc_event_id event, size_t *out);

/* What a table says of one handler (dc_table_handlers(), dc_table_handler_info()). */
typedef struct dc_handler_info {
    dc_handler_id id;
    dc_event_id event;    /* the key it was added with (a detailed key's id for a detail) */
    dc_function function; /* a marshal as dc_function */
    void *target;         /* the bound target, or a marshal's data; NULL when none */
    uint32_t flags;       /* DC_HANDLER_ONCE, _STRICT, _AFTER, _RUN_FIRST, _RUN_LAST as added */
    uint32_t blocked;     /* its block count */
    bool marshal;         /* added by dc_table_add_marshal */
    dc_queue *queue;      /* its delivery queue, not retained; NULL when none */
} dc_handler_info;

/*
 * The handlers an execute of `event` would call, blocked ones included, in
 * the order it would call them (Node's emitter.listeners()): writes up to
 * `capacity` of them to `handlers` (may be NULL when capacity is 0) and how
 * many there are to *count. A snapshot: handlers may come and go meanwhile.
 * An unknown key gives 0. Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_INVALID_ARGUMENT
 * (a malformed key).
 */
DC_API dc_status dc_table_handlers(const dc_table *table, const char *event, dc_handler_info *handlers,
                                   size_t capacity, size_t *count);

/* What the table says of handler `handler`. Errors: DC_ERR_NULL_ARGUMENT;
 * DC_ERR_NOT_FOUND (0, never issued, or removed). */
DC_API dc_status dc_table_handler_info(const dc_table *table, dc_handler_id handler, dc_handler_info *out);

/*
 * The first handler, in call order, of event key `event` (NULL: of any
 * event, in the order they were interned) added with `function` (a marshal's,
 * cast) and `target` (a marshal's data; NULL matches no target), as
 * g_signal_handler_find by function and data. For an event key, the handlers
 * added with exactly it. Errors: DC_ERR_NULL_ARGUMENT (table, function or out
 * NULL); DC_ERR_INVALID_ARGUMENT (a malformed key); DC_ERR_NOT_FOUND (none).
 */
DC_API dc_status dc_table_find_handler(const dc_table *table, const char *event, dc_function function,
                                       const void *target, dc_handler_id *out);

/* What happened to a handler, for a table observer. */
typedef enum dc_table_change {
    DC_HANDLER_ADDED = 1,
    DC_HANDLER_REMOVED = 2
} dc_table_change;

/*
 * Told of each handler added (with DC_OK, not DC_EXISTS) and each removed, in
 * any way but the table's destroy, with the key it was added with, while it
 * is the table's observer (the destroy removes it first: an add on another
 * thread that overlaps a destroy begun in a handler is told only if it
 * comes before that): Node's
 * 'newListener' and 'removeListener', after the fact. Called on the thread
 * that added or removed it, before that call returns, with no lock held: it
 * may add and remove handlers (it is told of those too) and use the table as
 * a handler may. It is told of changes made at every depth, by a handler
 * DC_MAX_EXECUTE_DEPTH executes deep too; inside its call for such a change
 * it is itself one call deeper than any handler runs, and an add or remove it
 * makes there fails with DC_ERR_DEPTH, changing nothing, since it could not
 * be told of it.
 */
typedef void (*dc_table_observer)(void *data, dc_table *table, dc_table_change change, dc_event_id event,
                                  dc_handler_id handler);

/*
 * Sets the table's observer (NULL: none), replacing the one before. Once
 * this returns the one before is not called again and calls of it running on
 * other threads have returned (but see "Waiting" above), and its destroy
 * notify (may be NULL) has run, once; the table's destroy runs the last
 * one's. Errors: DC_ERR_NULL_ARGUMENT (table NULL); DC_ERR_STATE (the table is
 * being destroyed); DC_ERR_NO_MEMORY.
 */
DC_API dc_status dc_table_set_observer(dc_table *table, dc_table_observer observer, void *data,
                                       void (*destroy)(void *data));

/*
 * The events that have at least one handler, in interning order: writes up to
 * `capacity` names (owned by the table, valid for its life) to `names` (may be
 * NULL when capacity is 0) and the total number of such events to *count.
 * Errors: DC_ERR_NULL_ARGUMENT (table or count NULL).
 */
DC_API dc_status dc_table_events(const dc_table *table, const char **names, size_t capacity,
                                 size_t *count);

/* ---- executing -------------------------------------------------------------- */

/* Which handlers' return values an execute keeps. */
typedef enum dc_accumulator {
    /* The first handler that returns a value (non-void signature) gives the
     * result (ILABMultiDelegate). The default. */
    DC_ACCUMULATE_FIRST = 0,
    /* The last handler that returns a value gives it. */
    DC_ACCUMULATE_LAST,
    /* Every returned value, in order, into dc_execute_options.results. */
    DC_ACCUMULATE_ALL,
    /* Stop at the first handler that returns bool true; the result is that
     * true, or the last false (GLib's g_signal_accumulator_true_handled). */
    DC_ACCUMULATE_TRUE_HANDLED
} dc_accumulator;

/* Execute option flags. */
enum {
    /* An event with no handler to run is DC_ERR_NO_HANDLER, not 0 handled. */
    DC_EXECUTE_REQUIRE_HANDLER = 1u << 0,
    /* Every handler must take exactly the arguments given (as if each were
     * registered with DC_HANDLER_STRICT). */
    DC_EXECUTE_STRICT = 1u << 1
};

typedef struct dc_execute_options {
    dc_accumulator accumulator;
    uint32_t flags; /* DC_EXECUTE_* */
    /* DC_ACCUMULATE_ALL: where returned values go; up to results_capacity are
     * stored, dc_result.return_count counts them all. */
    dc_value *results;
    size_t results_capacity;
    /* Where structs that handlers return are kept (see "Structs by value"):
     * room for one struct, or for DC_ACCUMULATE_ALL an array of up to
     * results_capacity of them (struct i at i * its size), aligned for the
     * struct. A kept struct value points here. Without room for one, a
     * handler's struct return is not kept and not counted. */
    void *return_storage;
    size_t return_storage_size;
} dc_execute_options;

/* What an execute did. */
typedef struct dc_result {
    size_t handled;        /* handlers that ran during the execute */
    size_t queued;         /* deliveries posted to queues for later */
    size_t dropped;        /* deliveries not posted: queue destroyed, handler removed or
                            * blocked meanwhile, or out of memory */
    size_t return_count;   /* handlers that returned a value */
    bool has_return_value; /* return_value is set */
    bool stopped;          /* a handler called dc_table_stop_emission */
    dc_value return_value; /* by the accumulator; dc_void() when none */
} dc_result;

/*
 * Executes `event` with `count` arguments (arguments may be NULL when count is
 * 0): checks them against every handler registered when it starts, then calls
 * the handlers in order, each on the executing thread or posted to its queue.
 * Object, pointer and string arguments are passed as given; the caller keeps
 * them valid for the call (queued deliveries copy strings and retain objects).
 * `result` may be NULL.
 *
 * The handlers run in their phases' order (see DC_HANDLER_AFTER) after the
 * emission hooks; a detailed key runs its event's handlers without a detail
 * with its own (see "Event keys and details"). An unknown event, or one
 * with no handler, is DC_OK with 0 handled.
 * Errors, all before any handler runs: DC_ERR_NULL_ARGUMENT (a struct
 * argument's pointer too); DC_ERR_INVALID_ARGUMENT (a malformed key);
 * DC_ERR_TYPE or DC_ERR_ARITY naming event, handler
 * id, argument index and both types;
 * DC_ERR_DEPTH (executes nested deeper than DC_MAX_EXECUTE_DEPTH on this
 * thread); DC_ERR_NO_MEMORY (no memory for this thread's bookkeeping). A
 * delivery that cannot be posted (its queue destroyed, or no memory to copy
 * it) is counted in dc_result.dropped.
 * Replaces: g_signal_emit_by_name.
 */
DC_API dc_status dc_table_execute(dc_table *table, const char *event, const dc_value *arguments,
                                  size_t count, dc_result *result);

/* dc_table_execute by interned id (DC_ERR_NOT_FOUND for an id this table never
 * issued). Replaces: g_signal_emit. */
DC_API dc_status dc_table_execute_id(dc_table *table, dc_event_id event,
                                     const dc_value *arguments, size_t count, dc_result *result);

/* Either of the above with options (NULL gives the defaults); also
 * DC_ERR_NO_HANDLER with DC_EXECUTE_REQUIRE_HANDLER, and DC_ERR_INVALID_ARGUMENT
 * for an unknown accumulator or flag, DC_ACCUMULATE_ALL without results
 * when results_capacity > 0, or return_storage NULL with a size. */
DC_API dc_status dc_table_execute_with(dc_table *table, const char *event,
                                       const dc_value *arguments, size_t count,
                                       const dc_execute_options *options, dc_result *result);
DC_API dc_status dc_table_execute_id_with(dc_table *table, dc_event_id event,
                                          const dc_value *arguments, size_t count,
                                          const dc_execute_options *options,
                                          dc_result *result);

/* ---- emission hooks ------------------------------------------------------------ */

/* Deepest nesting of executes (a handler executing, whose handler executes, ...)
 * on one thread; deeper is DC_ERR_DEPTH instead of a stack overflow. */
#define DC_MAX_EXECUTE_DEPTH 64

/*
 * Called from a handler: the handlers after it in the innermost execute of
 * `table` running on this thread are not called; that execute reports
 * stopped. Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_STATE (no execute of this
 * table is running on this thread).
 * Replaces: g_signal_stop_emission.
 */
DC_API dc_status dc_table_stop_emission(dc_table *table);

/* One execute, as an emission hook sees it; valid during the hook's call. */
typedef struct dc_emission {
    dc_table *table;
    /* The key executed ("notify::size"): its event's name is its first
     * event_length bytes, its detail ("size") the rest after "::". */
    const char *key;
    size_t event_length;
    const char *detail; /* inside key, NUL-terminated; NULL when none */
    /* The ids of the key and of its event (the same without a detail); 0
     * for one never interned. */
    dc_event_id key_id;
    dc_event_id event;
    const dc_value *arguments;
    size_t count;
} dc_emission;

/* A hook returns true to stay installed, false to be removed (once, however
 * many threads return false at once). Every execute in which it returned
 * false returns only once it is removed, as from dc_table_remove_emission_hook:
 * no call of it begins afterwards. */
typedef bool (*dc_emission_hook)(const dc_emission *emission, void *data);

/* Identifies an emission hook; never reused within a table. 0 is never valid. */
typedef uint64_t dc_hook_id;

/*
 * Adds an emission hook (g_signal_add_emission_hook): called once per execute
 * of `event` (NULL: of every event of the table), after the arguments were
 * checked and before any handler runs, with the execute's event, detail and
 * arguments. A hook on an event sees its executes with any detail; one on a
 * detailed key only those of that key. Hooks run in the order added, on the
 * executing thread, with no lock held, before queued handlers are posted; a
 * hook added during an execute is called from the next one on. An execute
 * that fails, nothing having run, calls none. Everything said above of
 * handlers' calls holds for hooks: they may use the table, a removed hook
 * is not called once the removal has returned, and its destroy notify (may
 * be NULL) runs once, when it is removed or the table destroyed. Errors:
 * DC_ERR_NULL_ARGUMENT (table or hook); DC_ERR_INVALID_ARGUMENT (a malformed
 * key); DC_ERR_STATE (the table is being destroyed); DC_ERR_NO_MEMORY.
 */
DC_API dc_status dc_table_add_emission_hook(dc_table *table, const char *event, dc_emission_hook hook, void *data,
                                            void (*destroy)(void *data), dc_hook_id *out);

/* Removes an emission hook (g_signal_remove_emission_hook), waiting as a
 * handler's remove does. Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_NOT_FOUND (0,
 * never issued, or removed already). */
DC_API dc_status dc_table_remove_emission_hook(dc_table *table, dc_hook_id hook);

/* ------------------------------------------------------------------------ */
/* Queues: delivery on a chosen thread                                       */
/* ------------------------------------------------------------------------ */

/*
 * A queue belongs to one owner thread, the one that created it (or that last
 * called dc_queue_bind_to_current_thread). A handler registered with a queue
 * runs at once when the execute happens on the owner thread; from any other
 * thread the execute posts a delivery instead: the arguments are copied
 * (strings duplicated, objects retained through the table's callbacks) and the
 * owner runs it, in FIFO order, when it calls dc_queue_drain(). A delivery is
 * dropped, and what it holds released, if its handler is removed or blocked
 * first, or the queue destroyed first; nothing is delivered to a removed
 * handler. The queue's file descriptor is readable while deliveries are
 * pending, so any event loop (poll, epoll, kqueue, libuv, a GLib main loop,
 * Dispatch) can wait on it. Every function is thread-safe.
 */

/*
 * Creates a queue owned by the calling thread. The caller owns one reference,
 * given back with dc_queue_destroy(). Errors: DC_ERR_NULL_ARGUMENT;
 * DC_ERR_NO_MEMORY (also when no file descriptor is left for dc_queue_fd's);
 * DC_ERR_UNSUPPORTED (the system cannot make such a descriptor).
 */
DC_API dc_status dc_queue_create(dc_queue **out);

/*
 * Drops every pending delivery (releasing what it holds), closes the file
 * descriptor and gives back the caller's reference. Handlers still registered
 * with the queue keep it alive but deliver nothing more: their executes from
 * other threads drop their deliveries. NULL does nothing.
 */
DC_API void dc_queue_destroy(dc_queue *queue);

/* Makes the calling thread the owner. Errors: DC_ERR_NULL_ARGUMENT. */
DC_API dc_status dc_queue_bind_to_current_thread(dc_queue *queue);

/* True when called on the owner thread. */
DC_API bool dc_queue_is_owner(const dc_queue *queue);

/*
 * A file descriptor that poll, epoll and kqueue report readable while
 * deliveries are pending, and not readable once none is: an eventfd on Linux,
 * the read end of a pipe elsewhere (the build's platform layer decides;
 * either is non-blocking and close-on-exec). Wait for it, then call
 * dc_queue_drain(). -1 for NULL or a destroyed queue. Owned by the queue: do
 * not close, read or write it. The same descriptor for the queue's life.
 */
DC_API int dc_queue_fd(const dc_queue *queue);

/* Deliveries pending now. */
DC_API size_t dc_queue_pending(const dc_queue *queue);

/*
 * Runs the deliveries pending when it is called, in FIFO order, on the
 * calling thread (normally the owner's), and writes how many ran to *delivered
 * (may be NULL). Deliveries posted while it runs wait for the next drain.
 * Dropped deliveries do not count. Errors: DC_ERR_NULL_ARGUMENT.
 */
DC_API dc_status dc_queue_drain(dc_queue *queue, size_t *delivered);

#ifdef __cplusplus
}
#endif

#include "dispatch_closure.h"

#endif /* DISPATCH_TABLE_H */
