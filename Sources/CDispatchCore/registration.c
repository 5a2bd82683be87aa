/*
 * registration.c — registering handlers: a slot for each, its place in its
 * event's arrays (which executes read) and shape sets, the duplicate index
 * over (event, function, target) an add consults unless duplicates are
 * allowed, and the extras list holding the queue and destroy notify of the
 * handlers given one (so that the handlers of every other kind stay small).
 * Writers only, under the table's lock; removal.c takes handlers out again.
 */
#include "table.h"

/* ---- handler arrays and shape sets (writers) -------------------------------------------- */

/* A new array holding the live handlers of `old` (none when NULL), with `first`
 * in front when given, and room to grow. */
dc__handler_array *dc__rebuilt_array(const dc__handler_array *old, dc__handler *first, uint32_t live, bool churned) {
    /* Room for 30% more: an append copies the array once per 30% of
     * growth, and an array of a million handlers costs 8 to 10.4 bytes per
     * handler (the memory target counts them: Benchmarks/RESULTS.md). An
     * event whose handlers come and go (`churned`: `old` is full with
     * removed ones) gets room for as many appends as keep its tombstones
     * within DC__TOMBSTONES_KEPT until the next copy, the appended handler's
     * own and the last removal's counted: adding and removing one handler
     * then copies the array once per eight adds, not per three. */
    uint64_t room = (live + 1) * 3 / 10;
    if (churned && room < DC__TOMBSTONES_KEPT - 2) room = DC__TOMBSTONES_KEPT - 2;
    uint64_t wanted = (uint64_t)live + 1 + room;
    uint32_t capacity = wanted < 4 ? 4 : wanted > UINT32_MAX ? UINT32_MAX : (uint32_t)wanted;
    dc__handler_array *array = malloc(sizeof *array + capacity * sizeof array->items[0]);
    if (array == NULL) return NULL;
    array->capacity = capacity;
    uint32_t count = 0;
    if (first != NULL) atomic_init(&array->items[count++], first);
    uint32_t old_count = old != NULL ? atomic_load_explicit(&old->count, memory_order_relaxed) : 0;
    for (uint32_t i = 0; i < old_count; i++) {
        dc__handler *handler = atomic_load_explicit(&old->items[i], memory_order_relaxed);
        if (!(atomic_load_explicit(&handler->state, memory_order_relaxed) & DC__STATE_REMOVED))
            atomic_init(&array->items[count++], handler);
    }
    atomic_init(&array->count, count);
    return array;
}

/* Publishes `array`, which holds live handlers only, as the event's after
 * array or its other one, and records where each handler is. */
void dc__publish_array(dc_table *table, dc__event_record *record, bool after, dc__handler_array *array) {
    dc__put_owed_tombstones(table); /* into the arrays their positions are in */
    uint32_t count = atomic_load_explicit(&array->count, memory_order_relaxed);
    for (uint32_t i = 0; i < count; i++) {
        dc__handler *handler = atomic_load_explicit(&array->items[i], memory_order_relaxed);
        handler->position = (handler->position & ~DC__POSITION_INDEX) | i;
    }
    _Atomic(dc__handler_array *) *where = after ? &record->after : &record->handlers;
    dc__handler_array *old = atomic_load_explicit(where, memory_order_relaxed);
    atomic_store_explicit(where, array, memory_order_release);
    *(after ? &record->after_tombstones : &record->tombstones) = 0;
    if (old != NULL) dc__table_retire(table, old, dc__table_free_object);
}

/* The event's default handler, or NULL: first in one of its arrays. Caller
 * holds the lock. */
static dc__handler *default_of(dc__event_record *record) {
    for (int after = 0; after < 2; after++) {
        dc__handler_array *array = atomic_load_explicit(after ? &record->after : &record->handlers, memory_order_relaxed);
        if (array == NULL || atomic_load_explicit(&array->count, memory_order_relaxed) == 0) continue;
        dc__handler *first = atomic_load_explicit(&array->items[0], memory_order_relaxed);
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
        dc__handler **chunks = realloc(table->chunks, (chunk + 1) * sizeof *chunks);
        if (chunks == NULL) return UINT32_MAX;
        table->chunks = chunks;
        chunks[chunk] = calloc(CHUNK_SIZE, sizeof(dc__handler));
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
                           DC__HANDLER_CHECK_OBJECTS | DC_HANDLER_AFTER | DC_HANDLER_RUN_FIRST | DC_HANDLER_RUN_LAST;
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

static dc_status add_locked(dc_table *table, dc__event_record *record, dc_signature *signature, dc_function function,
                            void *target, bool marshal, bool variadic, const dc_handler_options *options,
                            dc_handler_id *out) {
    uint32_t flags = options != NULL ? options->flags : 0;
    bool indexed = !(flags & DC__HANDLER_ALLOW_DUPLICATE);
    uint32_t empty_entry = 0;
    dc__handler *duplicate = indexed ? dc__find_duplicate(table, record->id, function, target, &empty_entry) : NULL;
    if (duplicate != NULL) {
        if (out != NULL) *out = id_of(duplicate);
        return DC_EXISTS;
    }
    /* The handlers live in the arrays of the key's event: the run-last
     * default and the after-handlers in `after`, in front when asked (but
     * behind a default, which stays first). */
    dc__event_record *owner = array_record(record);
    bool is_default = (flags & (DC_HANDLER_RUN_FIRST | DC_HANDLER_RUN_LAST)) != 0;
    bool after = (flags & (DC_HANDLER_AFTER | DC_HANDLER_RUN_LAST)) != 0;
    bool front = (flags & DC_HANDLER_FIRST) || is_default;
    dc__handler *existing_default = is_default ? default_of(owner) : NULL;
    if (existing_default != NULL)
        return dc__fail(DC_ERR_STATE, "table %s, event \"%s\": has a default handler already (%llu)",
                        display_name(table), record->name, (unsigned long long)id_of(existing_default));

    /* How it is called, decided once: directly with its arguments' words, or
     * not (DC__STATE_INDIRECT; the other bits and the signature say how). */
    bool indirect = marshal || !signature->word_images || signature->return_type != DC_TYPE_VOID ||
                    signature->parameter_count > DC__DIRECT_MAX_PARAMETERS;
    bool wide = indirect ? (flags & DC__HANDLER_SWIFT_CALL) && signature->parameter_count > 0
                         : signature->parameter_count > 1;
    bool bound = target != NULL || (flags & DC__HANDLER_BIND_TARGET);
    uint32_t position_flags = ((flags & DC__HANDLER_OWNS_TARGET) && target != NULL ? DC__POSITION_OWNS_TARGET : 0) |
                              (indexed ? 0 : DC__POSITION_UNINDEXED);
    uint32_t state = (marshal ? DC__STATE_MARSHAL : bound ? DC__STATE_TARGET : 0) |
                     ((flags & DC__HANDLER_SWIFT_CALL) ? DC__STATE_SWIFT : 0) |
                     ((flags & DC__HANDLER_CHECK_OBJECTS) ? DC__STATE_CHECK_OBJECTS : 0) |
                     (variadic ? DC__STATE_VARIADIC : (flags & DC_HANDLER_STRICT) ? DC__STATE_STRICT : 0) |
                     ((flags & DC_HANDLER_ONCE) ? DC__STATE_ONCE : 0) |
                     (options != NULL && options->queue != NULL ? DC__STATE_QUEUED : 0) |
                     (indirect ? DC__STATE_INDIRECT : 0) | (wide ? DC__STATE_WIDE : 0) |
                     (signature->return_layout != NULL ? DC__STATE_STRUCT_RETURN : 0) |
                     (after ? DC__STATE_AFTER : 0) | (is_default ? DC__STATE_DEFAULT : 0) |
                     (owner != record ? DC__STATE_DETAILED : 0);
    bool wants_extras = options != NULL && (options->queue != NULL || options->destroy != NULL);

    /* Everything that can fail is allocated before the table changes. */
    _Atomic(dc__handler_array *) *where = after ? &owner->after : &owner->handlers;
    dc__handler_array *array = atomic_load_explicit(where, memory_order_relaxed);
    uint32_t count = array != NULL ? atomic_load_explicit(&array->count, memory_order_relaxed) : 0;
    uint32_t live_there = after ? owner->after_live : owner->live;
    bool needs_new_array = array == NULL || front || count == array->capacity;
    dc__handler_array *new_array =
        needs_new_array ? dc__rebuilt_array(array, NULL, live_there + 1, count > live_there && !front) : NULL;
    /* The event's own set, summarized anew when the lean execute must leave
     * it (its first after-handler), or made when it has none (its first
     * handler has a detail): a reader of its arrays reads its set. */
    bool owner_resummarized = after && owner->after_live == 0;
    /* A new set only for a new shape or a new summary: commonly the handler
     * is one more of a shape the event has. */
    dc__shape_set *shapes = atomic_load_explicit(&record->shapes, memory_order_relaxed);
    bool shapes_change = (owner_resummarized && owner == record) || dc__find_shape(shapes, signature, shape_flags(state)) == NULL;
    dc__shape_set *spare_shapes = shapes_change ? dc__shapes_copy(shapes, 1) : NULL;
    bool owner_set = owner != record &&
                     (owner_resummarized || atomic_load_explicit(&owner->shapes, memory_order_relaxed) == NULL);
    dc__shape_set *owner_shapes = owner_set ? dc__copy_shapes(owner) : NULL;
    dc__handler_extras *extras = wants_extras ? malloc(sizeof *extras) : NULL;
    extras_list *grown_extras = NULL;
    bool extras_ready = !wants_extras || dc__extras_room(table, &grown_extras);
    dedupe_index spare_index = {0};
    bool index_ready = !indexed || dedupe_has_room(&table->dedupe) || dc__dedupe_spare(&table->dedupe, &spare_index);
    uint32_t slot = take_slot(table);
    if ((needs_new_array && new_array == NULL) || (shapes_change && spare_shapes == NULL) || (owner_set && owner_shapes == NULL) ||
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
    dc__handler *handler = handler_at(table, slot);
    handler->function = function;
    handler->signature = dc_signature_retain(signature);
    handler->target = target;
    handler->event = record->id;
    handler->generation = next_generation();
    handler->slot = slot;
    handler->extras = 0;
    handler->position = position_flags; /* its index is set where it goes */
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
    dc__add_shape(table, record, signature, shape_flags(state), spare_shapes);
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
        dc__publish_array(table, owner, after, new_array);
    } else if (new_array != NULL) {
        uint32_t live = atomic_load_explicit(&new_array->count, memory_order_relaxed);
        atomic_init(&new_array->items[live], handler);
        atomic_init(&new_array->count, live + 1);
        dc__publish_array(table, owner, after, new_array);
    } else {
        handler->position = (handler->position & ~DC__POSITION_INDEX) | count;
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
    if (status == DC_OK && options != NULL && (options->flags & DC__HANDLER_CHECK_OBJECTS) && table->object_check == NULL)
        status = dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_add: table %s has no object check for "
                          "DC__HANDLER_CHECK_OBJECTS (dc__table_set_object_check)", display_name(table));
    if (status == DC_OK) status = refuse_unobservable(table, marshal ? "dc_table_add_marshal" : "dc_table_add");
    if (status != DC_OK) return status;
    bool as_default = options != NULL && (options->flags & (DC_HANDLER_RUN_FIRST | DC_HANDLER_RUN_LAST));
    lock_table(table);
    dc__event_record *record = NULL;
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

/* ---- the duplicate index (table.h has its layout) ---------------------------------------- */

#define DEDUPE_TAG(hash) (((hash) & 31u) << DEDUPE_SLOT_BITS)

/* The entry where the probe for `hash` starts. */
static inline uint32_t dedupe_home(const dedupe_index *index, uint32_t hash) {
    return (uint32_t)(((uint64_t)hash * index->capacity) >> 32);
}

static inline uint32_t dedupe_next(const dedupe_index *index, uint32_t i) { return i + 1 == index->capacity ? 0 : i + 1; }

dc__handler *dc__find_duplicate(dc_table *table, dc_event_id event, dc_function function, const void *target,
                               uint32_t *empty) {
    const dedupe_index *index = &table->dedupe;
    uint32_t hash = dedupe_hash(event, function, target), tag = DEDUPE_TAG(hash), entry, i;
    for (i = dedupe_home(index, hash); (entry = index->entries[i]) != 0; i = dedupe_next(index, i)) {
        if ((entry & ~MAX_SLOTS) != tag) continue;
        /* The slot's handler now: another than the entry's when it was reused. */
        dc__handler *handler = handler_at(table, (entry & MAX_SLOTS) - 1);
        uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
        if (handler->event == event && handler->function == function && handler->target == target &&
            !(state & (DC__STATE_REMOVED | DC__STATE_FIRED)) && !(handler->position & DC__POSITION_UNINDEXED))
            return handler;
    }
    *empty = i;
    return NULL;
}

void dc__dedupe_insert_at(dedupe_index *index, const dc__handler *handler, uint32_t empty) {
    uint32_t hash = dedupe_hash(handler->event, handler->function, handler->target);
    index->entries[empty] = DEDUPE_TAG(hash) | (handler->slot + 1);
    index->used++;
}

bool dc__dedupe_insert(dedupe_index *index, const dc__handler *handler) {
    uint32_t hash = dedupe_hash(handler->event, handler->function, handler->target);
    uint32_t entry = DEDUPE_TAG(hash) | (handler->slot + 1), i = dedupe_home(index, hash);
    for (; index->entries[i] != 0; i = dedupe_next(index, i))
        if (index->entries[i] == entry) return false;
    index->entries[i] = entry;
    index->used++;
    return true;
}

bool dc__dedupe_spare(const dedupe_index *index, dedupe_index *spare) {
    uint64_t wanted = ((uint64_t)index->indexed + 1) * 2 + 1;
    if (wanted < DEDUPE_INITIAL_ENTRIES) wanted = DEDUPE_INITIAL_ENTRIES;
    return new_dedupe_index(spare, (uint32_t)wanted);
}

/* One handler met by a rebuild: into `spare` when live and indexed. */
static inline void rebuild_entry(dc__handler *handler, dedupe_index *spare) {
    uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
    if (handler->signature != NULL && !(state & DC__STATE_REMOVED) && !(handler->position & DC__POSITION_UNINDEXED) &&
        dc__dedupe_insert(spare, handler))
        spare->indexed++;
}

/* When the index has entries for most of the table's slots, the rebuild
 * visits the slots in order, which follows memory; otherwise its entries,
 * which costs what the index holds. */
void dc__dedupe_rebuild(dc_table *table, dedupe_index *spare) {
    dedupe_index *index = &table->dedupe;
    if ((uint64_t)index->used * 2 >= table->slot_count) {
        for (uint32_t slot = 0; slot < table->slot_count; slot++) rebuild_entry(handler_at(table, slot), spare);
    } else {
        for (uint32_t i = 0; i < index->capacity; i++) {
            if (i + 16 < index->capacity && index->entries[i + 16] != 0)
                PREFETCH(handler_at(table, (index->entries[i + 16] & MAX_SLOTS) - 1));
            if (index->entries[i] != 0) rebuild_entry(handler_at(table, (index->entries[i] & MAX_SLOTS) - 1), spare);
        }
    }
    free(index->entries);
    *index = *spare;
}

/* ---- the extras list --------------------------------------------------------------------- */

/* A free index of the extras list holds the next free index + 1, tagged. */
static dc__handler_extras *free_extras_link(uint32_t next) { return (dc__handler_extras *)(((uintptr_t)next << 1) | 1); }
static uint32_t free_extras_next(const dc__handler_extras *link) { return (uint32_t)((uintptr_t)link >> 1); }

bool dc__extras_room(const dc_table *table, extras_list **grown) {
    *grown = NULL;
    extras_list *list = atomic_load_explicit(&table->extras, memory_order_relaxed);
    if (table->free_extras != 0 || (list != NULL && table->extras_used < list->capacity)) return true;
    uint32_t capacity = list != NULL ? list->capacity * 2 : 4;
    if (list != NULL && capacity <= list->capacity) return false;
    *grown = malloc(sizeof **grown + capacity * sizeof (*grown)->items[0]);
    if (*grown == NULL) return false;
    (*grown)->capacity = capacity;
    if (list != NULL) memcpy((*grown)->items, list->items, table->extras_used * sizeof list->items[0]);
    return true;
}

uint32_t dc__take_extras(dc_table *table, extras_list *grown, dc__handler_extras *extras) {
    if (grown != NULL) {
        extras_list *old = atomic_load_explicit(&table->extras, memory_order_relaxed);
        atomic_store_explicit(&table->extras, grown, memory_order_release);
        if (old != NULL) dc__table_retire(table, old, dc__table_free_object);
    }
    extras_list *list = atomic_load_explicit(&table->extras, memory_order_relaxed);
    uint32_t index;
    if (table->free_extras != 0) {
        index = table->free_extras - 1;
        table->free_extras = free_extras_next(list->items[index]);
    } else {
        index = table->extras_used++;
    }
    list->items[index] = extras;
    return index + 1;
}

void dc__release_extras(dc_table *table, uint32_t extras) {
    extras_list *list = atomic_load_explicit(&table->extras, memory_order_relaxed);
    uint32_t index = extras - 1;
    free(list->items[index]);
    list->items[index] = free_extras_link(table->free_extras);
    table->free_extras = index + 1;
}
