/*
 * introspection.c — what a table says about its handlers: whether one is
 * registered, how many an execute would consider, which they are in call
 * order (Node's listeners()), one by its id, one by function and target
 * (g_signal_handler_find), and which events have any. Each answer is taken
 * under the table's lock, a snapshot of that moment.
 */
#include "table.h"

/* The lock, for queries on a table the caller holds const. */

/* What an execute of `key` would look at: its event's record (*owner, NULL
 * when unknown) and the detailed key's id whose handlers run too (*detail, 0
 * for none). DC_ERR_INVALID_ARGUMENT for a malformed key. Caller holds the
 * lock. */
static dc_status resolve_key(const dc_table *table, const char *key, dc__event_record **owner, dc_event_id *detail) {
    size_t length = strlen(key);
    dc__event_record *record = record_by_name(table, key, length, hash_name(key, length));
    *detail = 0;
    if (record != NULL) {
        *owner = array_record(record);
        if (record->base != NULL) *detail = record->id;
        return DC_OK;
    }
    return event_of_unknown_key(table, key, length, owner) ? DC_OK : dc__fail_key(table, key);
}

/* Whether an execute of the key (resolve_key()) would consider `handler`. */
static bool considered(const dc__handler *handler, uint32_t state, dc_event_id detail) {
    return !(state & DC__STATE_REMOVED) && (!(state & DC__STATE_DETAILED) || handler->event == detail);
}

/* Calls `visit` for each live handler in `owner`'s arrays, in call order,
 * until it returns false; false then. Caller holds the lock. */
static bool each_in_order(const dc__event_record *owner, bool (*visit)(const dc__handler *, uint32_t, void *),
                          void *context) {
    for (int after = 0; after < 2; after++) {
        const dc__handler_array *array =
            atomic_load_explicit(after ? &owner->after : &owner->handlers, memory_order_relaxed);
        uint32_t count = array != NULL ? atomic_load_explicit(&array->count, memory_order_relaxed) : 0;
        for (uint32_t i = 0; i < count; i++) {
            const dc__handler *handler = atomic_load_explicit(&array->items[i], memory_order_relaxed);
            uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
            if (!(state & DC__STATE_REMOVED) && !visit(handler, state, context)) return false;
        }
    }
    return true;
}

static dc_handler_info info_of(const dc_table *table, const dc__handler *handler, uint32_t state) {
    uint32_t flags = ((state & DC__STATE_ONCE) ? DC_HANDLER_ONCE : 0) |
                     ((state & DC__STATE_STRICT) ? DC_HANDLER_STRICT : 0);
    if (state & DC__STATE_DEFAULT)
        flags |= (state & DC__STATE_AFTER) ? DC_HANDLER_RUN_LAST : DC_HANDLER_RUN_FIRST;
    else if (state & DC__STATE_AFTER)
        flags |= DC_HANDLER_AFTER;
    return (dc_handler_info){.id = id_of(handler),
                             .event = handler->event,
                             .function = handler->function,
                             .target = handler->target,
                             .flags = flags,
                             .blocked = state & DC__STATE_BLOCK_MASK,
                             .marshal = (state & DC__STATE_MARSHAL) != 0,
                             .queue = handler->extras != 0 ? extras_of(table, handler)->queue : NULL};
}

/* ---- counting and listing ----------------------------------------------------------------- */

typedef struct listing {
    const dc_table *table;
    dc_event_id detail;
    dc_handler_info *handlers;
    size_t capacity;
    size_t count;
} listing;

static bool list_one(const dc__handler *handler, uint32_t state, void *context) {
    listing *list = context;
    if (!considered(handler, state, list->detail)) return true;
    if (list->count < list->capacity) list->handlers[list->count] = info_of(list->table, handler, state);
    list->count++;
    return true;
}

/* Lists (or, with capacity 0, counts) what an execute of `key` considers. */
static dc_status list_key(const dc_table *table, const char *key, dc_handler_info *handlers, size_t capacity,
                          size_t *count) {
    lock_table(table);
    dc__event_record *owner = NULL;
    listing list = {table, 0, handlers, capacity, 0};
    dc_status status = resolve_key(table, key, &owner, &list.detail);
    if (status == DC_OK && owner != NULL) each_in_order(owner, list_one, &list);
    unlock_table(table);
    if (status == DC_OK) *count = list.count;
    return status;
}

DC_API dc_status dc_table_handlers(const dc_table *table, const char *event, dc_handler_info *handlers,
                                   size_t capacity, size_t *count) {
    if (table == NULL || event == NULL || count == NULL || (handlers == NULL && capacity > 0))
        return dc__fail(DC_ERR_NULL_ARGUMENT,
                        "dc_table_handlers: table, event, count, and handlers when capacity > 0, must not be NULL");
    return list_key(table, event, handlers, capacity, count);
}

DC_API dc_status dc_table_handler_count(const dc_table *table, const char *event, size_t *out) {
    if (table == NULL || event == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_handler_count: table, event and out must not be NULL");
    return list_key(table, event, NULL, 0, out);
}

DC_API dc_status dc_table_handler_count_id(const dc_table *table, dc_event_id event, size_t *out) {
    if (table == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_handler_count_id: table and out must not be NULL");
    lock_table(table);
    dc__event_record *record = record_by_id(table, event);
    listing list = {table, record != NULL && record->base != NULL ? record->id : 0, NULL, 0, 0};
    if (record != NULL) each_in_order(array_record(record), list_one, &list);
    unlock_table(table);
    if (record == NULL)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id %u", display_name(table), event);
    *out = list.count;
    return DC_OK;
}

/* ---- one handler -------------------------------------------------------------------------------- */

DC_API bool dc_table_contains(const dc_table *table, dc_handler_id id) {
    if (table == NULL || id == 0) return false;
    lock_table(table);
    bool found = find_handler(table, id) != NULL;
    unlock_table(table);
    return found;
}

DC_API dc_status dc_table_handler_info(const dc_table *table, dc_handler_id id, dc_handler_info *out) {
    if (table == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_handler_info: table and out must not be NULL");
    lock_table(table);
    const dc__handler *handler = id != 0 ? find_handler(table, id) : NULL;
    if (handler != NULL) *out = info_of(table, handler, atomic_load_explicit(&handler->state, memory_order_relaxed));
    unlock_table(table);
    if (handler == NULL)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no handler with id %llu", display_name(table),
                        (unsigned long long)id);
    return DC_OK;
}

typedef struct search {
    dc_event_id key; /* 0: any */
    dc_function function;
    const void *target;
    dc_handler_id found;
} search;

static bool find_one(const dc__handler *handler, uint32_t state, void *context) {
    (void)state;
    search *wanted = context;
    if ((wanted->key != 0 && handler->event != wanted->key) || handler->function != wanted->function ||
        handler->target != wanted->target)
        return true;
    wanted->found = id_of(handler);
    return false;
}

DC_API dc_status dc_table_find_handler(const dc_table *table, const char *event, dc_function function,
                                       const void *target, dc_handler_id *out) {
    if (table == NULL || function == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_find_handler: table, function and out must not be NULL");
    size_t length = event != NULL ? strlen(event) : 0;
    if (event != NULL && key_event_length(event, length) == NOT_A_KEY) return dc__fail_key(table, event);
    search wanted = {0, function, target, 0};
    lock_table(table);
    if (event != NULL) {
        const dc__event_record *record = record_by_name(table, event, length, hash_name(event, length));
        if (record != NULL) {
            wanted.key = record->id;
            each_in_order(array_record((dc__event_record *)record), find_one, &wanted);
        }
    } else {
        const dc__event_list *events = atomic_load_explicit(&table->events, memory_order_relaxed);
        uint32_t count = atomic_load_explicit(&events->count, memory_order_relaxed);
        for (uint32_t i = 0; i < count && wanted.found == 0; i++)
            if (events->records[i]->base == NULL) each_in_order(events->records[i], find_one, &wanted);
    }
    unlock_table(table);
    if (wanted.found == 0)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no handler of %s%s%s with that function and target",
                        display_name(table), event != NULL ? "event \"" : "any event", event != NULL ? event : "",
                        event != NULL ? "\"" : "");
    *out = wanted.found;
    return DC_OK;
}

/* ---- events --------------------------------------------------------------------------------------- */

DC_API dc_status dc_table_events(const dc_table *table, const char **names, size_t capacity, size_t *count) {
    if (table == NULL || count == NULL || (names == NULL && capacity > 0))
        return dc__fail(DC_ERR_NULL_ARGUMENT,
                        "dc_table_events: table, count, and names when capacity > 0, must not be NULL");
    lock_table(table);
    dc__event_list *events = atomic_load_explicit(&table->events, memory_order_relaxed);
    uint32_t event_count = atomic_load_explicit(&events->count, memory_order_relaxed);
    size_t found = 0;
    for (uint32_t i = 0; i < event_count; i++) {
        if (events->records[i]->keyed == 0) continue;
        if (found < capacity) names[found] = events->records[i]->name;
        found++;
    }
    unlock_table(table);
    *count = found;
    return DC_OK;
}
