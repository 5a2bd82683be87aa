/*
 * closure.c — function pointers made at run time: libffi closures whose
 * calls reach a forward handler as an invocation, or execute a table's event.
 *
 * A call arrives in closure_entry() as libffi hands it over (the address of
 * each argument), and an invocation on the caller's stack is lent to the
 * handler over those addresses: reading an argument reads it there, and the
 * first use that needs them all (a change, an invoke) copies them into
 * dc_values beside it. The handler reads, sets a return value or re-sends the
 * call; each set and each invoke writes its result where the caller reads
 * it, so the last one is what the caller gets (the zero value when there is
 * none), and nothing runs after the handler returns. A table closure's call,
 * in table_closure_entry(), copies the arguments and executes the event,
 * with no invocation. Nothing is allocated per call.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

struct dc_closure {
    ffi_closure *ffi;     /* writable side of the trampoline */
    dc_function function; /* its executable address */
    dc_signature *signature;
    dc_forward_handler handler;
    void *user_data;
    void (*destroy_notify)(void *user_data);
    dc_closure_error_handler on_error;
    void *error_user_data;
    /* A table closure's event; table NULL otherwise. The call's first
     * `skipped` arguments are not the event's (a forwarder slot's context). */
    dc_table *table;
    dc_event_id event;
    size_t skipped;
};

/* The zero value of `type`. */
static dc_value zero_of(dc_type type) {
    dc_value value;
    value.type = type;
    value.struct_id = 0;
    value.u64 = 0;
    return value;
}

/* A struct return is made where libffi wants it, zero until set. */
static __attribute__((noinline, cold)) void begin_struct_return(dc_invocation *call, void *ret) {
    memset(ret, 0, call->signature->return_layout->size);
    call->rvalue = ret;
}

/* A closure's call, lent the invocation `lent` (with room for the
 * signature's parameters). */
static inline __attribute__((always_inline)) void forward(dc__lent_invocation *lent, void *ret, void **arguments,
                                                         dc_closure *closure) {
    /* The invocation is set up as far as reading an argument needs; the
     * values are read from `arguments` into its storage when a use needs
     * them all. */
    dc_invocation *call = &lent->call;
    const dc_signature *signature = closure->signature;
    call->signature = closure->signature;
    call->unread = arguments;
    /* No register image is written until a stub invoke needs them. */
    call->state = (dc__invocation_state){.lent = true, .images_stale = true};
    call->stub = NULL; /* so that every invoke looks, and hands its result to the caller */
    /* The caller gets zero until the handler sets a return value or
     * invokes; each set and invoke writes its own where the caller reads it
     * (a scalar through return_address, a struct in place), so nothing runs
     * after the handler returns. */
    if (signature->return_kind != DC_RETURNS_NOTHING) {
        if (signature->return_layout == NULL) {
            lent->return_address = ret;
            dc_value zero = zero_of(signature->return_type);
            dc__store_closure_return(signature, &zero, ret);
        } else {
            begin_struct_return(call, ret);
        }
    }
    closure->handler(call, closure->user_data);
}

static void closure_entry(ffi_cif *cif, void *ret, void **arguments, void *data) {
    (void)cif;
    dc__lent_invocation lent;
    forward(&lent, ret, arguments, data);
}

/* The entry of closures of more than DC__FEW_PARAMETERS parameters. */
static void closure_entry_many(ffi_cif *cif, void *ret, void **arguments, void *data) {
    (void)cif;
    dc__lent_invocation_many many;
    forward(&many.lent, ret, arguments, data);
}

/* Reports a failure inside a call; the caller returns the zero value. */
static void report(const dc_closure *closure, dc_status status) {
    if (closure->on_error != NULL) closure->on_error(closure, status, dc_last_error_message(), closure->error_user_data);
}

static dc_status create(dc_signature *signature, void (*entry)(ffi_cif *, void *, void **, void *),
                        dc_forward_handler handler, void *user_data, void (*destroy_notify)(void *),
                        dc_closure **out, const char *function_name) {
    dc_closure *closure = calloc(1, sizeof *closure);
    if (closure == NULL)
        return dc__fail(DC_ERR_NO_MEMORY, "%s: no memory for a closure of \"%s\"", function_name, signature->encoding);
    void *code = NULL;
    closure->ffi = ffi_closure_alloc(sizeof(ffi_closure), &code);
    if (closure->ffi == NULL) {
        free(closure);
        return dc__fail(DC_ERR_NO_MEMORY, "%s: no executable memory for a closure of \"%s\"", function_name,
                        signature->encoding);
    }
    if (ffi_prep_closure_loc(closure->ffi, &signature->cif, entry, closure, code) != FFI_OK) {
        ffi_closure_free(closure->ffi);
        free(closure);
        return dc__fail(DC_ERR_FFI, "%s: libffi could not prepare a closure of \"%s\"", function_name,
                        signature->encoding);
    }
    closure->function = (dc_function)code;
    closure->signature = dc_signature_retain(signature);
    closure->handler = handler;
    closure->user_data = user_data;
    closure->destroy_notify = destroy_notify;
    *out = closure;
    return DC_OK;
}

DC_API dc_status dc_closure_create(dc_signature *signature, dc_forward_handler handler, void *user_data,
                                   void (*destroy_notify)(void *), dc_closure **out) {
    if (signature == NULL || handler == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_closure_create: %s must not be NULL",
                        signature == NULL ? "the signature" : handler == NULL ? "the handler" : "out");
    return create(signature, signature->parameter_count <= DC__FEW_PARAMETERS ? closure_entry : closure_entry_many,
                  handler, user_data, destroy_notify, out, "dc_closure_create");
}

DC_API dc_function dc_closure_function(const dc_closure *closure) {
    return closure != NULL ? closure->function : NULL;
}

DC_API dc_signature *dc_closure_signature(const dc_closure *closure) {
    return closure != NULL ? closure->signature : NULL;
}

DC_API void dc_closure_set_error_handler(dc_closure *closure, dc_closure_error_handler handler, void *user_data) {
    if (closure == NULL) return;
    closure->on_error = handler;
    closure->error_user_data = handler != NULL ? user_data : NULL;
}

DC_API void dc_closure_destroy(dc_closure *closure) {
    if (closure == NULL) return;
    ffi_closure_free(closure->ffi);
    dc_signature_release(closure->signature);
    if (closure->destroy_notify != NULL) closure->destroy_notify(closure->user_data);
    free(closure);
}

/* ---- table closures ---------------------------------------------------------------- */

/* A table closure's call: its arguments, but the skipped ones, are the
 * execute's, read into `values` (room for them); no invocation is made. */
static inline __attribute__((always_inline)) void execute_call(void *ret, void **arguments,
                                                              const dc_closure *closure, dc_value *values) {
    const dc_signature *signature = closure->signature;
    size_t count = signature->parameter_count - closure->skipped;
    for (size_t i = 0; i < count; i++) {
        size_t p = closure->skipped + i;
        dc__load_parameter(signature, p, arguments[p], &values[i]);
    }
    dc_result result;
    dc_status status;
    /* An execute that knows the callback's signature checks that every
     * handler returns what it can return (a struct of its layout, or none
     * when it returns a scalar) before any runs; a void callback takes
     * anything, and without struct parameters it needs no signature. */
    if (signature->struct_parameter_count > 0 || signature->return_type != DC_TYPE_VOID) {
        /* The handlers' struct return, if any, is kept where the caller reads it. */
        dc_execute_options options = {DC_ACCUMULATE_FIRST, 0, NULL, 0, NULL, 0};
        if (signature->return_layout != NULL) {
            memset(ret, 0, signature->return_layout->size);
            options.return_storage = ret;
            options.return_storage_size = signature->return_layout->size;
        }
        status = dc__table_execute_from(closure->table, closure->event, values, count, signature, &options, &result);
    } else {
        status = dc_table_execute_id(closure->table, closure->event, values, count, &result);
    }
    dc_value returned = zero_of(signature->return_type);
    if (status != DC_OK) {
        report(closure, status);
    } else if (result.has_return_value && signature->return_type != DC_TYPE_VOID) {
        dc_value converted;
        if (dc_value_convert(&result.return_value, signature->return_type, &converted) == DC_OK) {
            returned = converted;
        } else {
            char reason[256];
            snprintf(reason, sizeof reason, "%s", dc_last_error_message());
            const char *event = "?";
            dc_table_event_name(closure->table, closure->event, &event);
            report(closure, dc__fail(DC_ERR_TYPE,
                                     "table \"%s\", event \"%s\": the return value does not fit the callback's "
                                     "return type (\"%s\"): %s",
                                     dc_table_name(closure->table), event, signature->encoding, reason));
        }
    }
    if (signature->return_kind == DC_RETURNS_SCALAR) dc__store_closure_return(signature, &returned, ret);
}

static void table_closure_entry(ffi_cif *cif, void *ret, void **arguments, void *data) {
    (void)cif;
    dc_value values[DC__FEW_PARAMETERS];
    execute_call(ret, arguments, data, values);
}

/* The entry of table closures of more than DC__FEW_PARAMETERS parameters. */
static void table_closure_entry_many(ffi_cif *cif, void *ret, void **arguments, void *data) {
    (void)cif;
    dc_value values[DC_MAX_PARAMETERS];
    execute_call(ret, arguments, data, values);
}

dc_status dc__table_closure_create(dc_table *table, dc_event_id event, dc_signature *signature, size_t skipped,
                                   dc_closure **out) {
    dc_closure *closure = NULL; /* gcc -O3 cannot see create() set it on DC_OK */
    dc_status status = create(signature,
                              signature->parameter_count <= DC__FEW_PARAMETERS ? table_closure_entry
                                                                               : table_closure_entry_many,
                              NULL, NULL, NULL, &closure, "dc_table_closure_create");
    if (status != DC_OK) return status;
    closure->table = table;
    closure->event = event;
    closure->skipped = skipped;
    *out = closure;
    return DC_OK;
}

DC_API dc_status dc_table_closure_create(dc_table *table, const char *event, dc_signature *signature,
                                         dc_closure **out) {
    if (table == NULL || event == NULL || signature == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_closure_create: table, event, signature and out must not be NULL");
    /* The closure first: a refused signature leaves the table as it was. */
    dc_closure *closure = NULL;
    dc_status status = dc__table_closure_create(table, 0, signature, 0, &closure);
    if (status != DC_OK) return status;
    status = dc_table_intern(table, event, &closure->event);
    if (status != DC_OK) {
        dc_closure_destroy(closure);
        return status;
    }
    *out = closure;
    return DC_OK;
}
