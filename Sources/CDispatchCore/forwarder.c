/*
 * forwarder.c — one C interface (a struct of function pointers whose first
 * parameter is the implementer's context) fanned out to many delegates, as
 * ILABMultiDelegate does for Objective-C protocols.
 *
 * It is a table: slot i is an event, and a delegate's slot i a handler with
 * the delegate's function and its context bound as parameter 0. The vtable
 * handed to the component holds one closure per slot, which executes the
 * slot's event with the call's arguments after the context. So the
 * forwarder inherits the table's guarantees: calls from any thread, delegates
 * added and removed during calls, a removed delegate never called once
 * dc_forwarder_remove() has returned. What the forwarder keeps itself is
 * which handlers each delegate has, to remove them.
 */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* A delegate that was added, with its handler in each slot it implements
 * (0 where it implements none). */
typedef struct delegate {
    const void *vtable;
    void *context;
    dc_handler_id *handlers;
} delegate;

struct dc_forwarder {
    dc_table *table;
    size_t slot_count;
    dc_signature **signatures;
    dc_event_id *events;
    dc_closure **closures;
    dc_function *vtable; /* what the component calls: each slot's closure */
    pthread_mutex_t lock; /* guards delegates */
    delegate *delegates;
    size_t delegate_count;
    size_t delegate_capacity;
};

DC_API void dc_forwarder_destroy(dc_forwarder *forwarder) {
    if (forwarder == NULL) return;
    for (size_t i = 0; i < forwarder->slot_count; i++) {
        dc_closure_destroy(forwarder->closures[i]);
        dc_signature_release(forwarder->signatures[i]);
    }
    dc_table_destroy(forwarder->table);
    for (size_t i = 0; i < forwarder->delegate_count; i++) free(forwarder->delegates[i].handlers);
    free(forwarder->delegates);
    pthread_mutex_destroy(&forwarder->lock);
    free(forwarder->signatures);
    free(forwarder->events);
    free(forwarder->closures);
    free(forwarder->vtable);
    free(forwarder);
}

/* Makes slot `index` from its encoding: a signature whose parameter 0 is the
 * context, an event, and the closure the vtable holds. */
static dc_status make_slot(dc_forwarder *forwarder, size_t index, const char *encoding) {
    if (encoding == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_forwarder_create: the encoding of slot %zu is NULL", index);
    dc_status status = dc_signature_create(encoding, &forwarder->signatures[index]);
    if (status != DC_OK) {
        char reason[256];
        snprintf(reason, sizeof reason, "%s", dc_last_error_message());
        return dc__fail(status, "dc_forwarder_create: slot %zu: %s", index, reason);
    }
    dc_signature *signature = forwarder->signatures[index];
    if (signature->parameter_count == 0 || !dc__is_pointer_like(signature->parameters[0].type))
        return dc__fail(DC_ERR_BAD_SIGNATURE,
                        "dc_forwarder_create: slot %zu (\"%s\") must take the implementer's context, a pointer, as "
                        "its first parameter",
                        index, encoding);
    char name[32];
    snprintf(name, sizeof name, "slot %zu", index);
    status = dc_table_intern(forwarder->table, name, &forwarder->events[index]);
    if (status != DC_OK) return status;
    status = dc__table_closure_create(forwarder->table, forwarder->events[index], signature, 1,
                                      &forwarder->closures[index]);
    if (status != DC_OK) return status;
    forwarder->vtable[index] = dc_closure_function(forwarder->closures[index]);
    return DC_OK;
}

DC_API dc_status dc_forwarder_create(const char *const *slot_encodings, size_t slot_count, dc_forwarder **out) {
    if (slot_encodings == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_forwarder_create: %s must not be NULL",
                        slot_encodings == NULL ? "slot_encodings" : "out");
    if (slot_count == 0 || slot_count > DC_MAX_FORWARDER_SLOTS)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_forwarder_create: an interface has 1 to %d slots, not %zu",
                        DC_MAX_FORWARDER_SLOTS, slot_count);
    dc_forwarder *forwarder = calloc(1, sizeof *forwarder);
    if (forwarder == NULL) return dc__fail(DC_ERR_NO_MEMORY, "dc_forwarder_create: no memory for a forwarder");
    pthread_mutex_init(&forwarder->lock, NULL);
    forwarder->signatures = calloc(slot_count, sizeof *forwarder->signatures);
    forwarder->events = calloc(slot_count, sizeof *forwarder->events);
    forwarder->closures = calloc(slot_count, sizeof *forwarder->closures);
    forwarder->vtable = calloc(slot_count, sizeof *forwarder->vtable);
    dc_status status = DC_OK;
    if (forwarder->signatures == NULL || forwarder->events == NULL || forwarder->closures == NULL ||
        forwarder->vtable == NULL)
        status = dc__fail(DC_ERR_NO_MEMORY, "dc_forwarder_create: no memory for %zu slots", slot_count);
    else
        status = dc_table_create("forwarder", NULL, &forwarder->table);
    /* What destroy frees: every slot once the arrays are there (the slots
     * not made yet are NULL), none before. */
    if (status == DC_OK) forwarder->slot_count = slot_count;
    for (size_t i = 0; i < slot_count && status == DC_OK; i++) status = make_slot(forwarder, i, slot_encodings[i]);
    if (status != DC_OK) {
        dc_forwarder_destroy(forwarder);
        return status;
    }
    *out = forwarder;
    return DC_OK;
}

DC_API const void *dc_forwarder_vtable(const dc_forwarder *forwarder) {
    return forwarder != NULL ? forwarder->vtable : NULL;
}

DC_API void *dc_forwarder_context(const dc_forwarder *forwarder) { return (void *)forwarder; }

DC_API size_t dc_forwarder_count(dc_forwarder *forwarder) {
    if (forwarder == NULL) return 0;
    pthread_mutex_lock(&forwarder->lock);
    size_t count = forwarder->delegate_count;
    pthread_mutex_unlock(&forwarder->lock);
    return count;
}

DC_API void dc_forwarder_set_error_handler(dc_forwarder *forwarder, dc_closure_error_handler handler,
                                           void *user_data) {
    if (forwarder == NULL) return;
    for (size_t i = 0; i < forwarder->slot_count; i++)
        dc_closure_set_error_handler(forwarder->closures[i], handler, user_data);
}

static size_t find_delegate(const dc_forwarder *forwarder, const void *vtable, void *context) {
    for (size_t i = 0; i < forwarder->delegate_count; i++)
        if (forwarder->delegates[i].vtable == vtable && forwarder->delegates[i].context == context) return i;
    return SIZE_MAX;
}

static void remove_handlers(dc_forwarder *forwarder, const dc_handler_id *handlers) {
    for (size_t slot = 0; slot < forwarder->slot_count; slot++)
        if (handlers[slot] != 0) dc_table_remove(forwarder->table, handlers[slot]);
}

DC_API dc_status dc_forwarder_add(dc_forwarder *forwarder, const void *vtable, void *context) {
    if (forwarder == NULL || vtable == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_forwarder_add: %s must not be NULL",
                        forwarder == NULL ? "the forwarder" : "the vtable");
    dc_handler_id *handlers = calloc(forwarder->slot_count, sizeof *handlers);
    if (handlers == NULL) return dc__fail(DC_ERR_NO_MEMORY, "dc_forwarder_add: no memory for a delegate");

    /* The lock keeps adds and removes of one delegate in order; handlers run
     * without it, so a delegate may add and remove from inside a call. */
    pthread_mutex_lock(&forwarder->lock);
    if (find_delegate(forwarder, vtable, context) != SIZE_MAX) {
        pthread_mutex_unlock(&forwarder->lock);
        free(handlers);
        return dc__fail(DC_EXISTS, "dc_forwarder_add: this delegate (vtable %p, context %p) is already added",
                        vtable, context);
    }
    if (forwarder->delegate_count == forwarder->delegate_capacity) {
        size_t capacity = forwarder->delegate_capacity == 0 ? 4 : forwarder->delegate_capacity * 2;
        delegate *grown = realloc(forwarder->delegates, capacity * sizeof *grown);
        if (grown == NULL) {
            pthread_mutex_unlock(&forwarder->lock);
            free(handlers);
            return dc__fail(DC_ERR_NO_MEMORY, "dc_forwarder_add: no memory for a delegate");
        }
        forwarder->delegates = grown;
        forwarder->delegate_capacity = capacity;
    }
    /* The forwarder dedupes delegates itself, and each add makes handlers of
     * its own: a remove still taking out an earlier add's never takes this
     * one's. */
    const dc_handler_options options = {.flags = DC__HANDLER_ALLOW_DUPLICATE | DC__HANDLER_BIND_TARGET};
    dc_status status = DC_OK;
    const dc_function *functions = vtable;
    for (size_t slot = 0; slot < forwarder->slot_count && status == DC_OK; slot++) {
        if (functions[slot] == NULL) continue; /* does not implement it */
        status = dc_table_add_id(forwarder->table, forwarder->events[slot], forwarder->signatures[slot],
                                 functions[slot], context, &options, &handlers[slot]);
    }
    if (status != DC_OK) {
        pthread_mutex_unlock(&forwarder->lock);
        /* Not yet called by anyone who could see them added: take them out. */
        remove_handlers(forwarder, handlers);
        free(handlers);
        return status;
    }
    forwarder->delegates[forwarder->delegate_count++] = (delegate){vtable, context, handlers};
    pthread_mutex_unlock(&forwarder->lock);
    return DC_OK;
}

DC_API dc_status dc_forwarder_remove(dc_forwarder *forwarder, const void *vtable, void *context) {
    if (forwarder == NULL || vtable == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_forwarder_remove: %s must not be NULL",
                        forwarder == NULL ? "the forwarder" : "the vtable");
    pthread_mutex_lock(&forwarder->lock);
    size_t index = find_delegate(forwarder, vtable, context);
    if (index == SIZE_MAX) {
        pthread_mutex_unlock(&forwarder->lock);
        return dc__fail(DC_ERR_NOT_FOUND, "dc_forwarder_remove: no delegate with vtable %p and context %p", vtable,
                        context);
    }
    dc_handler_id *handlers = forwarder->delegates[index].handlers;
    memmove(&forwarder->delegates[index], &forwarder->delegates[index + 1],
            (forwarder->delegate_count - index - 1) * sizeof forwarder->delegates[0]);
    forwarder->delegate_count--;
    pthread_mutex_unlock(&forwarder->lock);
    /* Outside the lock: a remove waits for calls in progress, which may add
     * or remove delegates themselves. */
    remove_handlers(forwarder, handlers);
    free(handlers);
    return DC_OK;
}
