/*
 * registration.c — registering handlers (with the duplicate index, and the
 * per-event arrays and shape sets executes read), removing them in O(1)
 * amortized, blocking them, and retiring what removals unlink.
 */
#include "table.h"

/* Always removed: what an array entry points to once its handler is removed
 * (at once, or later with others while no other thread reads: see
 * "removing"). A snapshot taken after the entry holds it never reaches the
 * removed handler, so no later execute announces it: a remover checking
 * whether a call it did not wait for is over (dc__wait_for_calls()) sees
 * only that call. */
static dc_handler tombstone = {.state = DC__STATE_REMOVED};

/* Puts the tombstone in the array entries of the removed handlers that are
 * owed one (see "removing"), their cache misses overlapping. Before an
 * entry's position changes (publish_array()) and before a slot is retired
 * (retire_slot()): afterwards no new snapshot reaches the handler, so it
 * cannot reach the slot's next handler either. Caller holds the lock. */
static void put_owed_tombstones(dc_table *table) {
    uint32_t count = table->owed_tombstone_count;
    if (count == 0) return;
    dc__handler_slot *const *entries = table->owed_tombstones;
    for (uint32_t i = 0; i < count; i++) PREFETCH_FOR_WRITE(entries[i]);
    for (uint32_t i = 0; i < count; i++) atomic_store_explicit(entries[i], &tombstone, memory_order_release);
    table->owed_tombstone_count = 0;
}

/* ---- releasing retired things ------------------------------------------------------------ */

void dc__table_free_object(void *object, void *context) {
    (void)context;
    free(object);
}

/* A removed handler's slot goes back to the free list once no reader holds
 * it, and its extras index to theirs. Caller holds the lock, or destroys the
 * table. */
void dc__table_release_slot(void *object, void *context) {
    dc_table *table = context;
    dc_handler *handler = object;
    dc_signature_release(handler->signature);
    if (handler->extras != 0) dc__release_extras(table, handler->extras);
    handler->signature = NULL;
    handler->extras = 0;
    handler->function = NULL;
    handler->target = NULL;
    handler->position = table->free_slots;
    table->free_slots = handler->slot + 1;
}

/* Retires `object`; when no memory is left for the bookkeeping the object is
 * kept (a leak, never a use after free). Caller holds the lock. */
void dc__table_retire(dc_table *table, void *object, void (*release)(void *, void *)) {
    dc_retired *retired = malloc(sizeof *retired);
    if (retired != NULL) dc__retire(&table->retired, retired, object, table, release);
}

/* Handler slots retired together: a rebuild retires many at once, and one
 * retirement each (an atomic increment of the epoch, a locked instruction)
 * would keep their cache misses from overlapping. */
typedef struct slot_batch {
    uint32_t count;
    uint32_t capacity;
    dc_handler *handlers[];
} slot_batch;

static void release_slot_batch(void *object, void *context) {
    slot_batch *batch = object;
    for (uint32_t i = 0; i < batch->count; i++) {
        if (i + 8 < batch->count) PREFETCH(batch->handlers[i + 8]);
        dc__table_release_slot(batch->handlers[i], context);
    }
    free(batch);
}

/* Collects the slot of a removed handler whose removal has finished, to
 * retire with others (dc__table_reclaim()). Caller holds the lock. */
static void retire_slot(dc_table *table, dc_handler *handler) {
    slot_batch *batch = table->retiring;
    if (batch == NULL || batch->count == batch->capacity) {
        uint32_t capacity = batch != NULL ? batch->capacity * 2 : OWED_TOMBSTONES;
        slot_batch *grown = batch != NULL && capacity > batch->capacity
                                ? realloc(batch, sizeof *batch + capacity * sizeof batch->handlers[0])
                                : batch == NULL ? malloc(sizeof *batch + capacity * sizeof batch->handlers[0]) : NULL;
        if (grown == NULL) {
            put_owed_tombstones(table);
            dc__table_retire(table, handler, dc__table_release_slot);
            return;
        }
        if (batch == NULL) grown->count = 0;
        grown->capacity = capacity;
        table->retiring = batch = grown;
    }
    batch->handlers[batch->count++] = handler;
}

/* Retires the collected slots once there are OWED_TOMBSTONES of them (the
 * tombstones they are owed first: no snapshot taken afterwards reaches
 * them), then frees what no reader can hold. Caller holds the lock. */
void dc__table_reclaim(dc_table *table) {
    slot_batch *batch = table->retiring;
    if (batch != NULL && batch->count >= OWED_TOMBSTONES) {
        put_owed_tombstones(table);
        dc_retired *retired = malloc(sizeof *retired);
        if (retired != NULL) { /* otherwise collected until the next time */
            dc__retire(&table->retired, retired, batch, table, release_slot_batch);
            table->retiring = NULL;
        }
    }
    dc__reclaim(&table->retired, false);
}
/* ---- handler arrays and shape sets (writers) -------------------------------------------- */

/* A new array holding the live handlers of `old` (none when NULL), with `first`
 * in front when given, and room to grow. */
static handler_array *rebuilt_array(const handler_array *old, dc_handler *first, uint32_t live) {
    /* Room for 30% more: an append copies the array once per 30% of
     * growth, and an array of a million handlers costs 8 to 10.4 bytes per
     * handler (the memory target counts them: Benchmarks/RESULTS.md). */
    uint64_t wanted = (uint64_t)live + 1 + (live + 1) * 3 / 10;
    uint32_t capacity = wanted < 4 ? 4 : wanted > UINT32_MAX ? UINT32_MAX : (uint32_t)wanted;
    handler_array *array = malloc(sizeof *array + capacity * sizeof array->items[0]);
    if (array == NULL) return NULL;
    array->capacity = capacity;
    uint32_t count = 0;
    if (first != NULL) atomic_init(&array->items[count++], first);
    uint32_t old_count = old != NULL ? atomic_load_explicit(&old->count, memory_order_relaxed) : 0;
    for (uint32_t i = 0; i < old_count; i++) {
        dc_handler *handler = atomic_load_explicit(&old->items[i], memory_order_relaxed);
        if (!(atomic_load_explicit(&handler->state, memory_order_relaxed) & DC__STATE_REMOVED))
            atomic_init(&array->items[count++], handler);
    }
    atomic_init(&array->count, count);
    return array;
}

/* Marks a removed handler's removal finished; true the first time. */
static bool mark_finished(dc_handler *handler) {
    return !(atomic_fetch_or_explicit(&handler->state, DC__STATE_FINISHED, memory_order_acq_rel) & DC__STATE_FINISHED);
}

/* Publishes `array`, which holds live handlers only, as the event's after
 * array or its other one, and records where each handler is. */
static void publish_array(dc_table *table, event_record *record, bool after, handler_array *array) {
    put_owed_tombstones(table); /* into the arrays their positions are in */
    uint32_t count = atomic_load_explicit(&array->count, memory_order_relaxed);
    for (uint32_t i = 0; i < count; i++) atomic_load_explicit(&array->items[i], memory_order_relaxed)->position = i;
    _Atomic(handler_array *) *where = after ? &record->after : &record->handlers;
    handler_array *old = atomic_load_explicit(where, memory_order_relaxed);
    atomic_store_explicit(where, array, memory_order_release);
    *(after ? &record->after_tombstones : &record->tombstones) = 0;
    if (old != NULL) dc__table_retire(table, old, dc__table_free_object);
}

/* The event's default handler, or NULL: first in one of its arrays. Caller
 * holds the lock. */
static dc_handler *default_of(event_record *record) {
    for (int after = 0; after < 2; after++) {
        handler_array *array = atomic_load_explicit(after ? &record->after : &record->handlers, memory_order_relaxed);
        if (array == NULL || atomic_load_explicit(&array->count, memory_order_relaxed) == 0) continue;
        dc_handler *first = atomic_load_explicit(&array->items[0], memory_order_relaxed);
        uint32_t state = atomic_load_explicit(&first->state, memory_order_relaxed);
        if ((state & DC__STATE_DEFAULT) && !(state & DC__STATE_REMOVED)) return first;
    }
    return NULL;
}


/* ---- registering -------------------------------------------------------------------------------- */

/* The upper half of a new handler's id, from one count for the process, so
 * that an id names one handler of one table: a foreign id finds nothing. 0
 * is skipped; the count wraps after 2^32 - 1 adds in the process. */
static uint32_t next_generation(void) {
    static _Atomic uint32_t generations;
    uint32_t generation;
    do generation = atomic_fetch_add_explicit(&generations, 1, memory_order_relaxed) + 1;
    while (generation == 0);
    return generation;
}

/* A free slot, fresh or reused; UINT32_MAX when memory is short. */
static uint32_t take_slot(dc_table *table) {
    if (table->free_slots != 0) {
        uint32_t slot = table->free_slots - 1;
        table->free_slots = handler_at(table, slot)->position;
        return slot;
    }
    if (table->slot_count == MAX_SLOTS) return UINT32_MAX;
    if ((table->slot_count & (CHUNK_SIZE - 1)) == 0) {
        uint32_t chunk = table->slot_count >> CHUNK_SHIFT;
        dc_handler **chunks = realloc(table->chunks, (chunk + 1) * sizeof *chunks);
        if (chunks == NULL) return UINT32_MAX;
        table->chunks = chunks;
        chunks[chunk] = calloc(CHUNK_SIZE, sizeof(dc_handler));
        if (chunks[chunk] == NULL) return UINT32_MAX;
        table->chunk_count = chunk + 1;
    }
    return table->slot_count++;
}

static void give_back_slot(dc_table *table, uint32_t slot) {
    handler_at(table, slot)->position = table->free_slots;
    table->free_slots = slot + 1;
}

/* The handler flags, checked with what they apply to: a Swift call is a
 * marshal with a signature returning void, on a compiler that can make it. */
static dc_status check_options(const dc_handler_options *options, bool marshal, bool variadic,
                               const dc_signature *signature) {
    const uint32_t known = DC_HANDLER_ONCE | DC_HANDLER_FIRST | DC_HANDLER_STRICT | DC__HANDLER_OWNS_TARGET |
                           DC__HANDLER_ALLOW_DUPLICATE | DC__HANDLER_SWIFT_CALL | DC__HANDLER_BIND_TARGET |
                           DC_HANDLER_AFTER | DC_HANDLER_RUN_FIRST | DC_HANDLER_RUN_LAST;
    if (options == NULL) return DC_OK;
    if (options->flags & ~known)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_add: unknown handler flags 0x%x", options->flags & ~known);
    uint32_t phase = options->flags & (DC_HANDLER_AFTER | DC_HANDLER_RUN_FIRST | DC_HANDLER_RUN_LAST);
    if (phase & (phase - 1))
        return dc__fail(DC_ERR_INVALID_ARGUMENT,
                        "dc_table_add: DC_HANDLER_AFTER, DC_HANDLER_RUN_FIRST and DC_HANDLER_RUN_LAST exclude each "
                        "other (flags 0x%x)",
                        options->flags);
    if ((options->flags & DC_HANDLER_FIRST) && (phase & (DC_HANDLER_RUN_FIRST | DC_HANDLER_RUN_LAST)))
        return dc__fail(DC_ERR_INVALID_ARGUMENT,
                        "dc_table_add: a default handler (DC_HANDLER_RUN_FIRST, DC_HANDLER_RUN_LAST) has its place; "
                        "DC_HANDLER_FIRST does not apply to it");
    if (!(options->flags & DC__HANDLER_SWIFT_CALL)) return DC_OK;
    if (!marshal)
        return dc__fail(DC_ERR_INVALID_ARGUMENT,
                        "dc_table_add: DC__HANDLER_SWIFT_CALL is for marshals (dc_table_add_marshal)");
    if (variadic)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_add_marshal: DC__HANDLER_SWIFT_CALL needs a signature");
    if (signature->return_type != DC_TYPE_VOID)
        return dc__fail(DC_ERR_INVALID_ARGUMENT,
                        "dc_table_add_marshal: a DC__HANDLER_SWIFT_CALL marshal returns void, not %s (\"%s\")",
                        dc_type_name(signature->return_type), signature->encoding);
    if (!SWIFT_CALLS)
        return dc__fail(DC_ERR_UNSUPPORTED,
                        "dc_table_add_marshal: DC__HANDLER_SWIFT_CALL needs a library built by clang for x86-64 or "
                        "AArch64");
    return DC_OK;
}

static dc_status check_target(const dc_table *table, const char *event, const dc_signature *signature,
                              const void *target, const dc_handler_options *options) {
    if (target == NULL && (options == NULL || !(options->flags & DC__HANDLER_BIND_TARGET))) return DC_OK;
    if (signature->parameter_count == 0)
        return dc__fail(DC_ERR_TYPE,
                        "table %s, event \"%s\": a bound target needs parameter 0, but signature \"%s\" has none",
                        display_name(table), event, signature->encoding);
    if (!dc__is_pointer_like(signature->parameters[0].type))
        return dc__fail(DC_ERR_TYPE,
                        "table %s, event \"%s\": a bound target is passed as parameter 0, which is %s in signature "
                        "\"%s\" (expected object, pointer or string)",
                        display_name(table), event, dc_type_name(signature->parameters[0].type), signature->encoding);
    return DC_OK;
}

/* The signature variadic marshals are registered with: no parameters, so
 * they constrain no execute. Created once, never released. */
static pthread_once_t variadic_once = PTHREAD_ONCE_INIT;
static dc_signature *variadic_signature_value;
static void create_variadic_signature(void) { dc_signature_create("v", &variadic_signature_value); }
static dc_signature *variadic_signature(void) {
    pthread_once(&variadic_once, create_variadic_signature);
    return variadic_signature_value;
}

static dc_status add_locked(dc_table *table, event_record *record, dc_signature *signature, dc_function function,
                            void *target, bool marshal, bool variadic, const dc_handler_options *options,
                            dc_handler_id *out) {
    uint32_t flags = options != NULL ? options->flags : 0;
    bool indexed = !(flags & DC__HANDLER_ALLOW_DUPLICATE);
    uint32_t empty_entry = 0;
    dc_handler *duplicate = indexed ? dc__find_duplicate(table, record->id, function, target, &empty_entry) : NULL;
    if (duplicate != NULL) {
        if (out != NULL) *out = id_of(duplicate);
        return DC_EXISTS;
    }
    /* The handlers live in the arrays of the key's event: the run-last
     * default and the after-handlers in `after`, in front when asked (but
     * behind a default, which stays first). */
    event_record *owner = array_record(record);
    bool is_default = (flags & (DC_HANDLER_RUN_FIRST | DC_HANDLER_RUN_LAST)) != 0;
    bool after = (flags & (DC_HANDLER_AFTER | DC_HANDLER_RUN_LAST)) != 0;
    bool front = (flags & DC_HANDLER_FIRST) || is_default;
    dc_handler *existing_default = is_default ? default_of(owner) : NULL;
    if (existing_default != NULL)
        return dc__fail(DC_ERR_STATE, "table %s, event \"%s\": has a default handler already (%llu)",
                        display_name(table), record->name, (unsigned long long)id_of(existing_default));

    bool general = marshal || signature->stub == NULL || signature->return_type != DC_TYPE_VOID;
    bool bound = target != NULL || (flags & DC__HANDLER_BIND_TARGET);
    uint32_t state = (marshal ? DC__STATE_MARSHAL : bound ? DC__STATE_TARGET : 0) |
                     ((flags & DC__HANDLER_SWIFT_CALL) ? DC__STATE_SWIFT : 0) |
                     (variadic ? DC__STATE_VARIADIC : (flags & DC_HANDLER_STRICT) ? DC__STATE_STRICT : 0) |
                     ((flags & DC_HANDLER_ONCE) ? DC__STATE_ONCE : 0) |
                     ((flags & DC__HANDLER_OWNS_TARGET) && target != NULL ? DC__STATE_OWNS_TARGET : 0) |
                     (options != NULL && options->queue != NULL ? DC__STATE_QUEUED : 0) |
                     (indexed ? 0 : DC__STATE_UNINDEXED) | (general ? DC__STATE_GENERAL : 0) |
                     (signature->return_layout != NULL ? DC__STATE_STRUCT_RETURN : 0) |
                     (after ? DC__STATE_AFTER : 0) | (is_default ? DC__STATE_DEFAULT : 0) |
                     (owner != record ? DC__STATE_DETAILED : 0);
    bool wants_extras = options != NULL && (options->queue != NULL || options->destroy != NULL);

    /* Everything that can fail is allocated before the table changes. */
    _Atomic(handler_array *) *where = after ? &owner->after : &owner->handlers;
    handler_array *array = atomic_load_explicit(where, memory_order_relaxed);
    uint32_t count = array != NULL ? atomic_load_explicit(&array->count, memory_order_relaxed) : 0;
    uint32_t live_there = after ? owner->after_live : owner->live;
    bool needs_new_array = array == NULL || front || count == array->capacity;
    handler_array *new_array = needs_new_array ? rebuilt_array(array, NULL, live_there + 1) : NULL;
    shape_set *spare_shapes = dc__shapes_copy(atomic_load_explicit(&record->shapes, memory_order_relaxed), 1);
    /* The event's own set, summarized anew when the lean execute must leave
     * it (its first after-handler), or made when it has none (its first
     * handler has a detail): a reader of its arrays reads its set. */
    bool owner_resummarized = after && owner->after_live == 0;
    bool owner_set = owner != record &&
                     (owner_resummarized || atomic_load_explicit(&owner->shapes, memory_order_relaxed) == NULL);
    shape_set *owner_shapes = owner_set ? dc__copy_shapes(owner) : NULL;
    handler_extras *extras = wants_extras ? malloc(sizeof *extras) : NULL;
    extras_list *grown_extras = NULL;
    bool extras_ready = !wants_extras || dc__extras_room(table, &grown_extras);
    dedupe_index spare_index = {0};
    bool index_ready = !indexed || dedupe_has_room(&table->dedupe) || dc__dedupe_spare(&table->dedupe, &spare_index);
    uint32_t slot = take_slot(table);
    if ((needs_new_array && new_array == NULL) || spare_shapes == NULL || (owner_set && owner_shapes == NULL) ||
        (wants_extras && extras == NULL) || !extras_ready || !index_ready || slot == UINT32_MAX) {
        free(new_array), free(spare_shapes), free(owner_shapes), free(extras), free(grown_extras);
        free(spare_index.entries);
        if (slot != UINT32_MAX) give_back_slot(table, slot);
        if (slot == UINT32_MAX && table->slot_count == MAX_SLOTS)
            return dc__fail(DC_ERR_NO_MEMORY, "table %s: cannot add a handler for \"%s\": it holds %u, the most a table can",
                            display_name(table), record->name, MAX_SLOTS);
        return dc__fail(DC_ERR_NO_MEMORY, "table %s: no memory to add a handler for \"%s\"", display_name(table),
                        record->name);
    }

    /* Before the new handler is in its slot: a rebuild visits slots. */
    if (spare_index.entries != NULL) dc__dedupe_rebuild(table, &spare_index);
    dc_handler *handler = handler_at(table, slot);
    handler->function = function;
    handler->signature = dc_signature_retain(signature);
    handler->target = target;
    handler->event = record->id;
    handler->generation = next_generation();
    handler->slot = slot;
    handler->extras = 0;
    if (extras != NULL) {
        extras->queue = options->queue;
        extras->destroy = options->destroy;
        extras->destroy_data = options->destroy_data;
        if (extras->queue != NULL) dc__queue_retain(extras->queue);
        handler->extras = dc__take_extras(table, grown_extras, extras);
    }
    atomic_store_explicit(&handler->state, state, memory_order_relaxed);

    /* Counted first: the summaries below read what the lean execute may do. */
    ++*(after ? &owner->after_live : &owner->live);
    record->keyed++;
    dc__add_shape(table, record, signature, shape_flags(state), spare_shapes, owner_resummarized && owner == record);
    if (owner_shapes != NULL) dc__resummarize_shapes(table, owner, owner_shapes);
    if (front) {
        /* rebuilt_array copied the old order; put the new handler in front,
         * or second behind a default. */
        uint32_t live = atomic_load_explicit(&new_array->count, memory_order_relaxed);
        uint32_t at = 0;
        if (!is_default && live > 0 &&
            (atomic_load_explicit(&atomic_load_explicit(&new_array->items[0], memory_order_relaxed)->state,
                                  memory_order_relaxed) &
             DC__STATE_DEFAULT))
            at = 1;
        memmove(&new_array->items[at + 1], &new_array->items[at], (live - at) * sizeof new_array->items[0]);
        atomic_init(&new_array->items[at], handler);
        atomic_init(&new_array->count, live + 1);
        publish_array(table, owner, after, new_array);
    } else if (new_array != NULL) {
        uint32_t live = atomic_load_explicit(&new_array->count, memory_order_relaxed);
        atomic_init(&new_array->items[live], handler);
        atomic_init(&new_array->count, live + 1);
        publish_array(table, owner, after, new_array);
    } else {
        handler->position = count;
        atomic_store_explicit(&array->items[count], handler, memory_order_relaxed);
        atomic_store_explicit(&array->count, count + 1, memory_order_release);
    }

    if (indexed) {
        if (spare_index.entries != NULL)
            dc__dedupe_insert(&table->dedupe, handler);
        else
            dc__dedupe_insert_at(&table->dedupe, handler, empty_entry);
        table->dedupe.indexed++;
    }
    if (out != NULL) *out = ((uint64_t)handler->generation << 32) | slot;
    return DC_OK;
}

/* True for a key with a detail ("event::detail"); a malformed key is
 * interning's to report. */
static bool key_has_detail(const char *key) {
    size_t length = strlen(key);
    long event_length = key_event_length(key, length);
    return event_length != NOT_A_KEY && (size_t)event_length < length;
}

static dc_status fail_default_for_detail(const dc_table *table, const char *key) {
    return dc__fail(DC_ERR_INVALID_ARGUMENT, "table %s, event key \"%s\": a default handler is its event's, not a detail's",
                    display_name(table), key);
}

static dc_status add_checked(dc_table *table, const char *event, dc_event_id event_id, dc_signature *signature,
                             dc_function function, void *target, bool marshal, const dc_handler_options *options,
                             dc_handler_id *out) {
    bool variadic = marshal && signature == NULL; /* from the caller's NULL, not the shared "v" */
    if (variadic && function != NULL) {
        signature = variadic_signature();
        if (signature == NULL) return dc__fail(DC_ERR_NO_MEMORY, "dc_table_add_marshal: out of memory");
    }
    if (table == NULL || (event == NULL && event_id == 0) || signature == NULL || function == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_add: %s must not be NULL",
                        table == NULL       ? "the table"
                        : event == NULL && event_id == 0 ? "the event"
                        : signature == NULL ? "the signature"
                        : marshal ? "the marshal"
                                            : "the function");
    dc_status status = check_options(options, marshal, variadic, signature);
    if (status == DC_OK) status = refuse_unobservable(table, marshal ? "dc_table_add_marshal" : "dc_table_add");
    if (status != DC_OK) return status;
    bool as_default = options != NULL && (options->flags & (DC_HANDLER_RUN_FIRST | DC_HANDLER_RUN_LAST));
    lock_table(table);
    event_record *record = NULL;
    /* Everything that can refuse the add is checked before a new event is
     * interned: a refused add changes nothing. */
    if (atomic_load_explicit(&table->destroy_called, memory_order_relaxed)) {
        status = dc__fail(DC_ERR_STATE, "table %s is being destroyed: no handler can be added", display_name(table));
    } else if (event != NULL) {
        if (!marshal) status = check_target(table, event, signature, target, options);
        if (status == DC_OK && as_default && key_has_detail(event)) status = fail_default_for_detail(table, event);
        if (status == DC_OK) status = dc__table_intern_locked(table, event, &record);
    } else if ((record = record_by_id(table, event_id)) == NULL) {
        status = dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id %u", display_name(table), event_id);
    } else {
        if (!marshal) status = check_target(table, record->name, signature, target, options);
        if (status == DC_OK && as_default && record->base != NULL) status = fail_default_for_detail(table, record->name);
    }
    dc_handler_id id = 0;
    if (status == DC_OK) status = add_locked(table, record, signature, function, target, marshal, variadic, options, &id);
    if (status == DC_OK) dc__table_reclaim(table);
    unlock_table(table);
    if (out != NULL && (status == DC_OK || status == DC_EXISTS)) *out = id;
    if (status == DC_OK) dc__table_observe(table, DC_HANDLER_ADDED, record->id, id);
    return status;
}

DC_API dc_status dc_table_add(dc_table *table, const char *event, dc_signature *signature, dc_function function,
                              void *target, const dc_handler_options *options, dc_handler_id *out) {
    if (event == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_add: the event must not be NULL");
    return add_checked(table, event, 0, signature, function, target, false, options, out);
}

DC_API dc_status dc_table_add_id(dc_table *table, dc_event_id event, dc_signature *signature, dc_function function,
                                 void *target, const dc_handler_options *options, dc_handler_id *out) {
    if (table != NULL && event == 0)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id 0", display_name(table));
    return add_checked(table, NULL, event, signature, function, target, false, options, out);
}

DC_API dc_status dc_table_add_marshal(dc_table *table, const char *event, dc_signature *signature, dc_marshal marshal,
                                      void *data, const dc_handler_options *options, dc_handler_id *out) {
    if (event == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_add_marshal: the event must not be NULL");
    return add_checked(table, event, 0, signature, (dc_function)marshal, data, true, options, out);
}

DC_API dc_status dc_table_add_marshal_id(dc_table *table, dc_event_id event, dc_signature *signature,
                                         dc_marshal marshal, void *data, const dc_handler_options *options,
                                         dc_handler_id *out) {
    if (table != NULL && event == 0)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id 0", display_name(table));
    return add_checked(table, NULL, event, signature, (dc_function)marshal, data, true, options, out);
}
/* ---- removing ------------------------------------------------------------------------------------ */

/*
 * Removal happens in three steps so that no lock is held while waiting for
 * other threads or calling out:
 *   1. under the lock (unlink_handler): mark removed, drop its shape, put
 *      the tombstone in its array entry (or owe it, below);
 *   2. without it (finish_removal): drop queued deliveries, wait for calls
 *      already running elsewhere, or hand the handler's finishing over to
 *      the threads running them (dc__wait_for_calls());
 *   3. once no call runs (finish_handlers): mark it finished and collect
 *      its slot to retire, then call the destroy notify and release an
 *      owned target.
 * When no other thread may read, no call of the handler runs elsewhere and
 * none can start, so steps 2 and 3 are taken in step 1's lock hold
 * (finish_alone()), but for the callouts. A removed handler's entry stays
 * in the duplicate index until the next rebuild, which an add makes: a
 * removal touches no entry of the index (with a million handlers, each
 * would be a cache miss). Every step is O(1) amortized. Handlers go in
 * batches, so that removing many needs no memory: a batch is one lock hold
 * of step 1.
 *
 * The tombstone keeps executes that start after step 2 from announcing the
 * handler, which a handed-over finishing relies on (dc__wait_for_calls():
 * a call announced after the remover's last look is taken for one it did
 * not wait for, and the finishing may never run). Only a thread with a
 * read-side section can be handed anything, so with no other thread that
 * may read, the tombstone is owed instead and put with others
 * (put_owed_tombstones()): a removal in random order then pays one cache
 * miss, the handler's, not two. Meanwhile an execute of the remover's own
 * thread that reaches the handler skips it by its state, as it skips a
 * blocked one. If another thread has begun to read by step 2, the remover
 * puts the owed tombstones before it looks at that thread's calls. Slots
 * are retired only after their tombstones are in (dc__table_reclaim()).
 */
enum { REMOVAL_BATCH = 64 };

typedef struct removal_batch {
    size_t count;
    dc_handler *handlers[REMOVAL_BATCH];
    /* Their extras (NULL for none), read under the lock: the list holding
     * them may be replaced meanwhile. */
    handler_extras *extras[REMOVAL_BATCH];
    /* Matches whose removal another thread has begun and not finished: a
     * remove by target, event or all waits for their calls too, so that its
     * caller may free what they use once it returns. */
    size_t others_count;
    dc_handler *others[REMOVAL_BATCH];
    bool owes_tombstones; /* some of `handlers` were left in their arrays */
    /* What the table's observer is told of `handlers`, taken while their
     * slots are theirs. */
    bool observed; /* the next two are set */
    dc_handler_id ids[REMOVAL_BATCH];
    dc_event_id events[REMOVAL_BATCH];
} removal_batch;

static void begin_batch(removal_batch *batch) {
    batch->count = batch->others_count = 0;
    batch->owes_tombstones = batch->observed = false;
}

/* Compacting once tombstones outnumber live handlers three to one costs
 * O(1) per removal (see Benchmarks/RESULTS.md: each compaction writes every
 * live handler's position); an execute visits at most four entries per
 * live handler meanwhile. */
enum { TOMBSTONES_PER_LIVE = 3 };

/* Step 1 for one handler. Caller holds the lock. */
static void unlink_handler(dc_table *table, dc_handler *handler, removal_batch *batch) {
    uint32_t state = atomic_fetch_or_explicit(&handler->state, DC__STATE_REMOVED, memory_order_seq_cst);
    event_record *record = record_by_id(table, handler->event), *owner = array_record(record);
    bool after = (state & DC__STATE_AFTER) != 0;
    record->keyed--;
    uint32_t *live = after ? &owner->after_live : &owner->live;
    --*live;
    /* Commonly one handler fewer of a shape that stays. */
    handler_shape *shape = dc__find_shape(atomic_load_explicit(&record->shapes, memory_order_relaxed),
                                          handler->signature, shape_flags(state));
    if (shape != NULL && --shape->handlers == 0) dc__drop_unused_shapes(table, record);
    /* Without its last after-handler the event may be run the lean way
     * again; without memory for a new summary it is run the general way. */
    if (after && owner->after_live == 0 && atomic_load_explicit(&owner->shapes, memory_order_relaxed) != NULL) {
        shape_set *copy = dc__copy_shapes(owner);
        if (copy != NULL) dc__resummarize_shapes(table, owner, copy);
    }
    handler_array *array = atomic_load_explicit(after ? &owner->after : &owner->handlers, memory_order_relaxed);
    if (dc__others_may_read()) {
        atomic_store_explicit(&array->items[handler->position], &tombstone, memory_order_release);
    } else {
        if (table->owed_tombstone_count == OWED_TOMBSTONES) put_owed_tombstones(table);
        table->owed_tombstones[table->owed_tombstone_count++] = &array->items[handler->position];
        batch->owes_tombstones = true;
    }
    /* Failing to compact is harmless (the next removal tries again). */
    uint32_t *tombstones = after ? &owner->after_tombstones : &owner->tombstones;
    if (++*tombstones > 8 && *tombstones > TOMBSTONES_PER_LIVE * *live) {
        handler_array *compact = rebuilt_array(array, NULL, *live);
        if (compact != NULL) publish_array(table, owner, after, compact);
    }
    if (!(state & DC__STATE_UNINDEXED)) table->dedupe.indexed--;
    /* Set and replaced under the lock: an observer set now hears of it. */
    if (atomic_load_explicit(&table->observer, memory_order_relaxed) != NULL) {
        batch->ids[batch->count] = id_of(handler);
        batch->events[batch->count] = handler->event;
        batch->observed = true;
    }
    batch->extras[batch->count] = handler->extras != 0 ? extras_of(table, handler) : NULL;
    batch->handlers[batch->count++] = handler;
}

/* Tells the table's observer, if any, of the batch's removals, after them and
 * inside the remover's finishing: a destroy notify that destroyed the table
 * left the freeing to the finishing's end, so the table is still there (and
 * says it is going, which the observer is not told of). */
static inline void observe_removals(dc_table *table, const removal_batch *batch, size_t count) {
    if (!batch->observed) return;
    for (size_t i = 0; i < count; i++) dc__table_observe(table, DC_HANDLER_REMOVED, batch->events[i], batch->ids[i]);
}

/* What step 3 calls out to for a handler. */
typedef struct callout {
    void (*destroy)(void *destroy_data);
    void *destroy_data;
    void *owned_target;
} callout;

/* Step 3's bookkeeping for a handler no call of which runs any more: marks
 * it finished (true the first time) and takes its callouts. */
static bool finish_handler(dc_handler *handler, handler_extras *extras, callout *out) {
    uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
    *out = (callout){extras != NULL ? extras->destroy : NULL, extras != NULL ? extras->destroy_data : NULL,
                     (state & DC__STATE_OWNS_TARGET) ? handler->target : NULL};
    if (extras != NULL && extras->queue != NULL) {
        dc__queue_release(extras->queue);
        extras->queue = NULL;
    }
    return mark_finished(handler);
}

/* Step 3's callouts, without the lock. What they call out to may destroy the
 * table (dc_table_destroy() waits for the removal's end, but the finishing
 * of a handed-over handler happens anywhere), so the table is not read. */
static void call_out(const callout *callouts, size_t count, void (*release)(void *object)) {
    for (size_t i = 0; i < count; i++) {
        if (callouts[i].destroy != NULL) callouts[i].destroy(callouts[i].destroy_data);
        if (callouts[i].owned_target != NULL && release != NULL) release(callouts[i].owned_target);
    }
}

/* Step 3 for handlers no call of which runs any more. The lock is taken
 * only to collect the slots: no reader or writer touches what it reads
 * before that. */
static void finish_handlers(dc_table *table, dc_handler *const *handlers, handler_extras *const *extras,
                            size_t count) {
    callout callouts[REMOVAL_BATCH];
    dc_handler *completed[REMOVAL_BATCH];
    size_t completed_count = 0;
    void (*release)(void *object) = table->callbacks.release;
    for (size_t i = 0; i < count; i++)
        if (finish_handler(handlers[i], extras[i], &callouts[i])) completed[completed_count++] = handlers[i];
    if (completed_count > 0) {
        lock_table(table);
        for (size_t i = 0; i < completed_count; i++) retire_slot(table, completed[i]);
        dc__table_reclaim(table);
        unlock_table(table);
    }
    call_out(callouts, count, release);
}

/* Step 3 for a handler handed over by dc__wait_for_calls(): its extras are
 * read under the lock. The table is there (see run_ticket()). */
static void finish_handed_over(void *context, void *object) {
    dc_table *table = context;
    dc_handler *const handlers[1] = {object};
    lock_table(table);
    handler_extras *const extras[1] = {handlers[0]->extras != 0 ? extras_of(table, handlers[0]) : NULL};
    unlock_table(table);
    finish_handlers(table, handlers, extras, 1);
}

/* Steps 2 and 3 for a batch. The caller must not hold the lock. */
static void finish_removal(dc_table *table, removal_batch *batch) {
    if (batch->count == 0 && batch->others_count == 0) return;
    dc__heavy_fence();
    if (batch->owes_tombstones && dc__others_may_read()) {
        lock_table(table);
        put_owed_tombstones(table);
        unlock_table(table);
        dc__heavy_fence();
    }
    /* Only their addresses: their slots may be reused meanwhile, which costs
     * a wait for another handler's calls at most. */
    for (size_t i = 0; i < batch->others_count; i++) dc__wait_for_calls(batch->others[i], NULL, NULL);
    size_t waited = 0;
    for (size_t i = 0; i < batch->count; i++) {
        dc_handler *handler = batch->handlers[i];
        handler_extras *extras = batch->extras[i];
        if (extras != NULL && extras->queue != NULL) dc__queue_purge(extras->queue, handler);
        if (dc__wait_for_calls(handler, finish_handed_over, table)) {
            batch->extras[waited] = extras;
            batch->handlers[waited++] = handler;
        }
    }
    finish_handlers(table, batch->handlers, batch->extras, waited);
}

/* Steps 2 and 3 for a batch of one handler without a queue, taken in step
 * 1's lock hold when no other thread may read (see "removing"): the fence
 * orders the handler's removed state before the look at the threads, as
 * dc__heavy_fence() does for finish_removal(). True when done, with the
 * callout to make once the lock is released. */
static bool finish_alone(dc_table *table, removal_batch *batch, callout *out) {
    atomic_thread_fence(memory_order_seq_cst);
    if (batch->count != 1 || batch->others_count != 0 || dc__others_may_read() ||
        (batch->extras[0] != NULL && batch->extras[0]->queue != NULL))
        return false;
    if (finish_handler(batch->handlers[0], batch->extras[0], out)) retire_slot(table, batch->handlers[0]);
    return true;
}

DC_API dc_status dc_table_remove(dc_table *table, dc_handler_id id) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_remove: the table must not be NULL");
    dc_status refused = refuse_unobservable(table, "dc_table_remove");
    if (refused != DC_OK) return refused;
    removal_batch batch;
    begin_batch(&batch);
    callout callouts[1];
    lock_table(table);
    dc_handler *handler = find_handler(table, id);
    bool finished = false;
    if (handler != NULL) {
        unlink_handler(table, handler, &batch);
        finished = finish_alone(table, &batch, &callouts[0]);
        dc__table_reclaim(table);
    }
    unlock_table(table);
    if (handler == NULL)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no handler with id %llu", display_name(table),
                        (unsigned long long)id);
    dc__finishing_begin();
    if (finished)
        call_out(callouts, 1, table->callbacks.release);
    else
        finish_removal(table, &batch);
    /* Before the finishing ends: a destroy notify that destroyed the table
     * left it to the end of the finishing. */
    observe_removals(table, &batch, batch.count);
    dc__finishing_end();
    return DC_OK;
}

/* Removes every live handler for which `matches` holds, a batch at a time,
 * default handlers only with `defaults`; what the batches' destroy notifies
 * add on the way may go too. */
static size_t remove_where(dc_table *table, bool (*matches)(const dc_table *, const dc_handler *, const void *),
                           const void *context, bool defaults) {
    size_t removed = 0;
    dc__finishing_begin();
    for (uint32_t slot = 0;;) {
        removal_batch batch;
        begin_batch(&batch);
        lock_table(table);
        for (; slot < table->slot_count && batch.count < REMOVAL_BATCH && batch.others_count < REMOVAL_BATCH;
             slot++) {
            dc_handler *handler = handler_at(table, slot);
            uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
            if (handler->signature == NULL || (state & DC__STATE_FINISHED) || (!defaults && (state & DC__STATE_DEFAULT)) ||
                !matches(table, handler, context))
                continue;
            if (state & DC__STATE_REMOVED)
                batch.others[batch.others_count++] = handler;
            else
                unlink_handler(table, handler, &batch);
        }
        bool more = slot < table->slot_count;
        dc__table_reclaim(table);
        unlock_table(table);
        removed += batch.count;
        finish_removal(table, &batch);
        observe_removals(table, &batch, batch.count);
        if (!more) break;
    }
    dc__finishing_end();
    return removed;
}

static bool has_target(const dc_table *table, const dc_handler *handler, const void *target) {
    (void)table;
    return handler->target == target;
}
/* Added with the key, or, for an event, with any of its keys. */
static bool has_key(const dc_table *table, const dc_handler *handler, const void *key) {
    dc_event_id id = *(const dc_event_id *)key;
    return handler->event == id || array_record(record_by_id(table, handler->event))->id == id;
}
static bool any_handler(const dc_table *table, const dc_handler *handler, const void *context) {
    (void)table, (void)handler, (void)context;
    return true;
}

DC_API dc_status dc_table_remove_target(dc_table *table, void *target, size_t *removed) {
    if (table == NULL || target == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_remove_target: table and target must not be NULL");
    dc_status refused = refuse_unobservable(table, "dc_table_remove_target");
    if (refused != DC_OK) return refused;
    size_t count = remove_where(table, has_target, target, false);
    if (removed != NULL) *removed = count;
    return DC_OK;
}

DC_API dc_status dc_table_remove_event_id(dc_table *table, dc_event_id event, size_t *removed) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_remove_event_id: the table must not be NULL");
    dc_status refused = refuse_unobservable(table, "dc_table_remove_event_id");
    if (refused != DC_OK) return refused;
    lock_table(table);
    bool known = record_by_id(table, event) != NULL;
    unlock_table(table);
    if (!known) return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id %u", display_name(table), event);
    size_t count = remove_where(table, has_key, &event, false);
    if (removed != NULL) *removed = count;
    return DC_OK;
}

DC_API dc_status dc_table_remove_event(dc_table *table, const char *event, size_t *removed) {
    if (table == NULL || event == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_remove_event: table and event must not be NULL");
    size_t length = strlen(event);
    if (key_event_length(event, length) == NOT_A_KEY) return dc__fail_key(table, event);
    dc_status refused = refuse_unobservable(table, "dc_table_remove_event");
    if (refused != DC_OK) return refused;
    lock_table(table);
    event_record *record = record_by_name(table, event, length, hash_name(event, length));
    unlock_table(table);
    size_t count = record != NULL ? remove_where(table, has_key, &record->id, false) : 0;
    if (removed != NULL) *removed = count;
    return DC_OK;
}

DC_API dc_status dc_table_remove_all(dc_table *table, size_t *removed) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_remove_all: the table must not be NULL");
    dc_status refused = refuse_unobservable(table, "dc_table_remove_all");
    if (refused != DC_OK) return refused;
    size_t count = remove_where(table, any_handler, NULL, false);
    if (removed != NULL) *removed = count;
    return DC_OK;
}

/* Removes a once-handler after its run (or its dropped delivery). */
void dc__table_remove_handler(dc_table *table, dc_handler *handler) {
    removal_batch batch;
    begin_batch(&batch);
    lock_table(table);
    if (!(atomic_load_explicit(&handler->state, memory_order_relaxed) & DC__STATE_REMOVED)) {
        unlink_handler(table, handler, &batch);
        dc__table_reclaim(table);
    }
    unlock_table(table);
    dc__finishing_begin();
    finish_removal(table, &batch);
    observe_removals(table, &batch, batch.count);
    dc__finishing_end();
}
/* ---- blocking --------------------------------------------------------------------------------------- */

/* Adds `delta` (+1 or -1) to a handler's block count, within its bounds;
 * writes the handler to *out. */
static dc_status change_block_count(dc_table *table, dc_handler_id id, int delta, dc_handler **out) {
    if (table == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_%s: the table must not be NULL", delta > 0 ? "block" : "unblock");
    lock_table(table);
    dc_handler *handler = find_handler(table, id);
    uint32_t blocks =
        handler != NULL ? atomic_load_explicit(&handler->state, memory_order_relaxed) & DC__STATE_BLOCK_MASK : 0;
    dc_status status = DC_OK;
    if (handler == NULL)
        status = dc__fail(DC_ERR_NOT_FOUND, "table %s has no handler with id %llu", display_name(table),
                          (unsigned long long)id);
    else if (delta > 0 && blocks == DC__STATE_BLOCK_MASK)
        status = dc__fail(DC_ERR_STATE, "handler %llu is blocked %u times already, the most a block count holds",
                          (unsigned long long)id, DC__STATE_BLOCK_MASK);
    else if (delta < 0 && blocks == 0)
        status = dc__fail(DC_ERR_STATE, "handler %llu is not blocked", (unsigned long long)id);
    else if (delta > 0)
        atomic_fetch_add_explicit(&handler->state, 1, memory_order_seq_cst);
    else
        atomic_fetch_sub_explicit(&handler->state, 1, memory_order_release);
    unlock_table(table);
    *out = handler;
    return status;
}

DC_API dc_status dc_table_block(dc_table *table, dc_handler_id id) {
    dc_handler *handler = NULL; /* gcc -O3 cannot see change_block_count() set it on DC_OK */
    dc_status status = change_block_count(table, id, +1, &handler);
    if (status != DC_OK) return status;
    /* Calls that passed their state check before the block wait to return
     * (but for dc__wait_for_calls()'s exception). */
    dc__heavy_fence();
    dc__wait_for_calls(handler, NULL, NULL);
    return DC_OK;
}

DC_API dc_status dc_table_unblock(dc_table *table, dc_handler_id id) {
    dc_handler *handler;
    return change_block_count(table, id, -1, &handler);
}

size_t dc__table_remove_all(dc_table *table) { return remove_where(table, any_handler, NULL, true); }
