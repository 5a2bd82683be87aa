/*
 * closure.c — function pointers made at run time: libffi closures whose
 * calls reach a forward handler as an invocation, or execute a table's event.
 *
 * A call arrives in closure_entry() as libffi hands it over (the address of
 * each argument). The arguments are copied into dc_values on the caller's
 * stack, and an invocation lent over them: the handler reads them, sets a
 * return value or re-sends the call, and what the invocation holds when it
 * returns goes back to the caller. Nothing is allocated per call.
 */
#include "internal.h"

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

/* The argument at `address`, of `type`, whose C size is `size`. Every member
 * of a dc_value starts at its union's first byte, so the bytes copied there
 * are the member of that type on any byte order. */
static inline dc_value load_argument(dc_type type, size_t size, const void *address) {
    dc_value value;
    value.u64 = 0;
    value.type = type;
    memcpy(&value.u64, address, size);
    if (type == DC_TYPE_BOOL) value.b = value.u8 != 0;
    return value;
}

/* Writes `raw`, a return value of `signature`, where libffi wants a
 * closure's: integers narrower than ffi_arg widened to it. */
static inline void store_return(const dc_signature *signature, const dc_raw_return *raw, void *ret) {
    dc_value value = dc__return_value(signature, raw);
    switch (signature->return_type) {
    case DC_TYPE_VOID: break;
    case DC_TYPE_FLOAT: memcpy(ret, &value.f, sizeof value.f); break;
    case DC_TYPE_DOUBLE: memcpy(ret, &value.d, sizeof value.d); break;
    case DC_TYPE_INT64:
    case DC_TYPE_UINT64: memcpy(ret, &value.u64, sizeof value.u64); break;
    case DC_TYPE_OBJECT:
    case DC_TYPE_POINTER:
    case DC_TYPE_STRING: memcpy(ret, &value.pointer, sizeof value.pointer); break;
    default: {
        ffi_arg widened = (ffi_arg)dc__integer_image(&value);
        memcpy(ret, &widened, sizeof widened);
        break;
    }
    }
}

static void closure_entry(ffi_cif *cif, void *ret, void **arguments, void *data) {
    (void)cif;
    dc_closure *closure = data;
    dc_signature *signature = closure->signature;
    size_t count = signature->parameter_count;
    dc_value values[DC_MAX_PARAMETERS];
    void *ffi_arguments[DC_MAX_PARAMETERS];
    for (size_t i = 0; i < count; i++) {
        values[i] = load_argument(signature->parameter_types[i], signature->ffi_parameter_types[i]->size,
                                  arguments[i]);
        ffi_arguments[i] = &values[i].u64;
    }
    dc_invocation call;
    call.function = NULL;
    call.stub = signature->stub;
    call.return_class = signature->return_class;
    call.call_path = signature->call_path;
    call.signature = signature;
    call.has_returned = false;
    call.lent = true;
    call.images_stale = true;
    call.result.integer = 0;
    call.arguments = values;
    call.ffi_arguments = ffi_arguments;

    closure->handler(&call, closure->user_data);
    /* None set: the zero value, which result still holds. */
    store_return(signature, &call.result, ret);
}

/* Reports a failure inside a call; the caller returns the zero value. */
static void report(const dc_closure *closure, dc_status status) {
    if (closure->on_error != NULL) closure->on_error(closure, status, dc_last_error_message(), closure->error_user_data);
}

static dc_status create(dc_signature *signature, dc_forward_handler handler, void *user_data,
                        void (*destroy_notify)(void *), dc_closure **out, const char *function_name) {
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
    if (ffi_prep_closure_loc(closure->ffi, &signature->cif, closure_entry, closure, code) != FFI_OK) {
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
    return create(signature, handler, user_data, destroy_notify, out, "dc_closure_create");
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

/* A table closure's handler: the call's arguments, already dc_values, are the
 * execute's. */
static void execute_event(dc_invocation *call, void *user_data) {
    const dc_closure *closure = user_data;
    dc_result result;
    dc_status status = dc_table_execute_id(closure->table, closure->event, call->arguments + closure->skipped,
                                           call->signature->parameter_count - closure->skipped, &result);
    if (status != DC_OK) {
        report(closure, status);
        return;
    }
    if (!result.has_return_value || call->signature->return_type == DC_TYPE_VOID) return;
    status = dc_invocation_set_return_value(call, &result.return_value);
    if (status != DC_OK) report(closure, status);
}

dc_status dc__table_closure_create(dc_table *table, dc_event_id event, dc_signature *signature, size_t skipped,
                                   dc_closure **out) {
    dc_closure *closure;
    dc_status status = create(signature, execute_event, NULL, NULL, &closure, "dc_table_closure_create");
    if (status != DC_OK) return status;
    closure->user_data = closure;
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
    dc_event_id id;
    dc_status status = dc_table_intern(table, event, &id);
    if (status != DC_OK) return status;
    return dc__table_closure_create(table, id, signature, 0, out);
}
