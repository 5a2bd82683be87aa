/*
 * dispatch_closure.h — function pointers made at run time: closures whose
 * calls reach a handler as an invocation (forwardInvocation:, libffi's
 * closures), table closures that execute an event, and forwarders that fan a
 * C interface out to many delegates. Part of the public API, included by
 * dispatch_core.h (through dispatch_table.h), whose conventions (names,
 * errors, lifetime) hold here too.
 */
#ifndef DISPATCH_CLOSURE_H
#define DISPATCH_CLOSURE_H

#include "dispatch_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Closures (forwardInvocation:, libffi closures)                            */
/* ------------------------------------------------------------------------ */

/*
 * A closure is a C function pointer made at run time for a signature: each
 * call of it reaches a handler as an invocation (its handler's "forward
 * invocation"), or executes a table's event. It is how a C API that takes a
 * callback is given one that carries state, or many receivers.
 *
 * Threads: the function may be called from any number of threads at once;
 * each call has its own invocation. The closure must outlive every call: the
 * caller stops calling (and waits out calls in progress) before
 * dc_closure_destroy(). The executable code comes from libffi's closure
 * allocator.
 */
typedef struct dc_closure dc_closure;

/*
 * Receives one call of a closure as `call`, an invocation of the closure's
 * signature: dc_invocation_get_argument() reads its arguments (from 0, over
 * every parameter); dc_invocation_set_return_value() sets what the caller
 * gets; dc_invocation_set_function() and dc_invocation_invoke() re-send the
 * call to a function of the same signature, whose result then becomes the
 * return value. The caller receives the last return value set, by either,
 * and the zero value of the return type (0, false, NULL) when none was.
 * `call` is valid only until the handler returns; dc_invocation_destroy()
 * leaves it alone.
 */
typedef void (*dc_forward_handler)(dc_invocation *call, void *user_data);

/*
 * Told about a failure inside a call of `closure`, which a callback cannot
 * return: the call returns the zero value of its return type, and this gets
 * the status and the message (also in dc_last_error_message() on the calling
 * thread). Runs on the calling thread.
 */
typedef void (*dc_closure_error_handler)(const dc_closure *closure, dc_status status, const char *message,
                                         void *user_data);

/*
 * Creates a closure of `signature` whose calls go to `handler` with
 * `user_data`; dc_closure_destroy() calls destroy_notify(user_data) (may be
 * NULL) once. The closure retains the signature.
 *
 * A closure of a variadic signature (dc_signature_create_variadic) is a
 * variadic function that takes one call shape, as a closure of libffi's
 * ffi_prep_cif_var does: each call must pass the fixed parameters and then
 * exactly the variadic ones the signature lists (already promoted, as the
 * signature requires), and the handler receives them all as arguments.
 * Called with other variadic arguments, it reads what the ABI leaves where
 * those would be: C cannot tell it how many a caller passed.
 *
 * Errors, with nothing allocated and destroy_notify not called:
 * DC_ERR_NULL_ARGUMENT (signature, handler or out NULL); DC_ERR_NO_MEMORY
 * (no executable memory); DC_ERR_FFI.
 * Replaces: -forwardInvocation:, ffi_closure_alloc() + ffi_prep_closure_loc().
 */
DC_API dc_status dc_closure_create(dc_signature *signature, dc_forward_handler handler, void *user_data,
                                   void (*destroy_notify)(void *user_data), dc_closure **out);

/* The closure's function pointer, to be cast to the C type its signature
 * describes; valid until dc_closure_destroy(). NULL for NULL. */
DC_API dc_function dc_closure_function(const dc_closure *closure);

/* The closure's signature (not retained for the caller); NULL for NULL. */
DC_API dc_signature *dc_closure_signature(const dc_closure *closure);

/*
 * Sets the handler told about failures inside calls (NULL for none, the
 * default: then only dc_last_error_message() has them). Set it before the
 * function is handed out: it is not synchronized with calls in progress.
 * Does nothing for a NULL closure.
 */
DC_API void dc_closure_set_error_handler(dc_closure *closure, dc_closure_error_handler handler,
                                         void *user_data);

/* Frees the closure, its executable memory with it, and calls its destroy
 * notify. No call may be in progress or follow. NULL does nothing. */
DC_API void dc_closure_destroy(dc_closure *closure);

/* ------------------------------------------------------------------------ */
/* Table closures: an event as a callback                                    */
/* ------------------------------------------------------------------------ */

/*
 * Creates a closure of `signature` whose calls execute `event` on `table`
 * with the call's arguments, and return the execute's return value (the
 * first handler's that returns one) converted to the signature's return
 * type, or its zero value when no handler returned one: one C callback slot
 * for any number of handlers, from C and Swift alike. A failed execute, or a
 * return value that does not fit, makes the call return the zero value and
 * reaches the closure's error handler (dc_closure_set_error_handler()).
 * The table must outlive the closure. A variadic signature's closure takes
 * its one call shape, as for dc_closure_create().
 *
 * Errors, with nothing allocated: DC_ERR_NULL_ARGUMENT; DC_ERR_NO_MEMORY;
 * DC_ERR_FFI; and dc_table_intern()'s.
 */
DC_API dc_status dc_table_closure_create(dc_table *table, const char *event, dc_signature *signature,
                                         dc_closure **out);


/* ------------------------------------------------------------------------ */
/* Forwarders: a C interface fanned out to many delegates                    */
/* ------------------------------------------------------------------------ */

/*
 * A forwarder stands in for one implementer of a C interface, a struct of
 * function pointers ("slots") whose first parameter is the implementer's
 * context, and passes every call on to any number of delegates, each an
 * implementation of the interface with a context of its own: ILABMultiDelegate
 * for C interfaces. Hand dc_forwarder_vtable() and dc_forwarder_context() to
 * the component in place of one implementation.
 *
 * Calling slot i calls slot i of every delegate that implements it (a NULL
 * slot in a delegate's vtable does not), in the order the delegates were
 * added, each with its own context in place of the first argument. The call
 * returns the first implementing delegate's return value, and the zero value
 * of the return type when none implements the slot. It is a table underneath
 * (slot i an event, a delegate's slot a handler with its context bound), and
 * keeps the table's guarantees: calls from any thread, delegates added and
 * removed from inside calls, a removed delegate never called once
 * dc_forwarder_remove() has returned (which waits for its calls on other
 * threads, as dc_table_remove() does). A failure inside a call returns the
 * zero value and reaches the error handler, as for table closures.
 */
typedef struct dc_forwarder dc_forwarder;

/* The most slots an interface given to dc_forwarder_create() has. */
#define DC_MAX_FORWARDER_SLOTS 65536

/*
 * Creates a forwarder for an interface of `slot_count` slots, slot i of type
 * slot_encodings[i] (an encoding as for dc_signature_create(), whose first
 * parameter is the context, a pointer, object or string: "q^v^vQ" for
 * ssize_t (*)(void *, const char *, size_t)). The vtable is laid out as a
 * struct of that many function pointers. The caller owns *out.
 *
 * Errors, with nothing allocated: DC_ERR_NULL_ARGUMENT (slot_encodings, one of
 * them, or out NULL); DC_ERR_INVALID_ARGUMENT (no slots, or more than
 * DC_MAX_FORWARDER_SLOTS); DC_ERR_BAD_SIGNATURE
 * (a slot's encoding is malformed, or its first parameter is none of those,
 * naming the slot); DC_ERR_NO_MEMORY; DC_ERR_FFI.
 */
DC_API dc_status dc_forwarder_create(const char *const *slot_encodings, size_t slot_count,
                                     dc_forwarder **out);

/*
 * Adds a delegate: `vtable`, a struct of the interface's slots (NULL for one
 * it does not implement), called with `context` first (NULL too is a
 * context, passed as given). It is called from the next call of each slot
 * on, after the delegates added before it.
 * Adding the same (vtable, context) again changes nothing and is DC_EXISTS.
 * Errors: DC_ERR_NULL_ARGUMENT (forwarder or vtable NULL); DC_ERR_NO_MEMORY.
 */
DC_API dc_status dc_forwarder_add(dc_forwarder *forwarder, const void *vtable, void *context);

/*
 * Removes the delegate (vtable, context): none of its slots is called once
 * this returns, by any thread, not even later in a call going through the
 * delegates. Errors: DC_ERR_NULL_ARGUMENT; DC_ERR_NOT_FOUND (not added).
 */
DC_API dc_status dc_forwarder_remove(dc_forwarder *forwarder, const void *vtable, void *context);

/* How many delegates are added; 0 for NULL. */
DC_API size_t dc_forwarder_count(dc_forwarder *forwarder);

/* The interface to hand to the component, a struct of the forwarder's slots;
 * valid until dc_forwarder_destroy(). NULL for NULL. */
DC_API const void *dc_forwarder_vtable(const dc_forwarder *forwarder);

/* The context to hand to the component with the vtable. */
DC_API void *dc_forwarder_context(const dc_forwarder *forwarder);

/* Sets the error handler of every slot's closure (dc_closure_set_error_handler()),
 * before the vtable is handed out. Does nothing for NULL. */
DC_API void dc_forwarder_set_error_handler(dc_forwarder *forwarder, dc_closure_error_handler handler,
                                           void *user_data);

/* Frees the forwarder. The component must have stopped calling the vtable,
 * and no call may be in progress. NULL does nothing. */
DC_API void dc_forwarder_destroy(dc_forwarder *forwarder);

#ifdef __cplusplus
}
#endif

#endif /* DISPATCH_CLOSURE_H */
