/*
 * removal.c — taking handlers out of a table in O(1) amortized (by id, by
 * target, by event, all, and a once-handler after its run), blocking them,
 * and retiring what removals unlink once no reader can hold it.
 */
#include "table.h"

/* Always removed: what an array entry points to once its handler is removed
 * (at once, or later with others while no other thread reads: see
 * "removing"). A snapshot taken after the entry holds it never reaches the
 * removed handler, so no later execute announces it: a remover checking
 * whether a call it did not wait for is over (dc__wait_for_calls()) sees
 * only that call. */
static dc__handler tombstone = {.state = DC__STATE_REMOVED};

/* Puts the tombstone in the array entries of the removed handlers that are
 * owed one (see "removing"), their cache misses overlapping. Before an
 * entry's position changes (dc__publish_array()) and before a slot is retired
 * (retire_slot()): afterwards no new snapshot reaches the handler, so it
 * cannot reach the slot's next handler either. Caller holds the lock. */
void dc__put_owed_tombstones(dc_table *table) {
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
    dc__handler *handler = object;
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
    dc__handler *handlers[];
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
static void retire_slot(dc_table *table, dc__handler *handler) {
    slot_batch *batch = table->retiring;
    if (batch == NULL || batch->count == batch->capacity) {
        uint32_t capacity = batch != NULL ? batch->capacity * 2 : OWED_TOMBSTONES;
        slot_batch *grown = batch != NULL && capacity > batch->capacity
                                ? realloc(batch, sizeof *batch + capacity * sizeof batch->handlers[0])
                                : batch == NULL ? malloc(sizeof *batch + capacity * sizeof batch->handlers[0]) : NULL;
        if (grown == NULL) {
            dc__put_owed_tombstones(table);
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
        dc__put_owed_tombstones(table);
        dc_retired *retired = malloc(sizeof *retired);
        if (retired != NULL) { /* otherwise collected until the next time */
            dc__retire(&table->retired, retired, batch, table, release_slot_batch);
            table->retiring = NULL;
        }
    }
    dc__reclaim(&table->retired, false);
}
/* Marks a removed handler's removal finished; true the first time. */
static bool mark_finished(dc__handler *handler) {
    return !(atomic_fetch_or_explicit(&handler->state, DC__STATE_FINISHED, memory_order_acq_rel) & DC__STATE_FINISHED);
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
 * (dc__put_owed_tombstones()): a removal in random order then pays one cache
 * miss, the handler's, not two. Meanwhile an execute of the remover's own
 * thread that reaches the handler skips it by its state, as it skips a
 * blocked one. If another thread has begun to read by step 2, the remover
 * puts the owed tombstones before it looks at that thread's calls. Slots
 * are retired only after their tombstones are in (dc__table_reclaim()).
 */
enum { REMOVAL_BATCH = 64 };

typedef struct removal_batch {
    size_t count;
    dc__handler *handlers[REMOVAL_BATCH];
    /* Their extras (NULL for none), read under the lock: the list holding
     * them may be replaced meanwhile. */
    dc__handler_extras *extras[REMOVAL_BATCH];
    /* Matches whose removal another thread has begun and not finished: a
     * remove by target, event or all waits for their calls too, so that its
     * caller may free what they use once it returns. */
    size_t others_count;
    dc__handler *others[REMOVAL_BATCH];
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
 * live handler meanwhile, or DC__TOMBSTONES_KEPT more. */
enum { TOMBSTONES_PER_LIVE = 3 };

/* Step 1 for one handler. Caller holds the lock. */
static void unlink_handler(dc_table *table, dc__handler *handler, removal_batch *batch) {
    uint32_t state = atomic_fetch_or_explicit(&handler->state, DC__STATE_REMOVED, memory_order_seq_cst);
    dc__event_record *record = record_by_id(table, handler->event), *owner = array_record(record);
    bool after = (state & DC__STATE_AFTER) != 0;
    record->keyed--;
    uint32_t *live = after ? &owner->after_live : &owner->live;
    --*live;
    /* Commonly one handler fewer of a shape that stays. */
    dc__handler_shape *shape = dc__find_shape(atomic_load_explicit(&record->shapes, memory_order_relaxed),
                                          handler->signature, shape_flags(state));
    if (shape != NULL && --shape->handlers == 0) dc__drop_unused_shapes(table, record);
    /* Without its last after-handler the event may be run the lean way
     * again; without memory for a new summary it is run the general way. */
    if (after && owner->after_live == 0 && atomic_load_explicit(&owner->shapes, memory_order_relaxed) != NULL) {
        dc__shape_set *copy = dc__copy_shapes(owner);
        if (copy != NULL) dc__resummarize_shapes(table, owner, copy);
    }
    dc__handler_array *array = atomic_load_explicit(after ? &owner->after : &owner->handlers, memory_order_relaxed);
    if (dc__others_may_read()) {
        atomic_store_explicit(&array->items[handler->position & DC__POSITION_INDEX], &tombstone, memory_order_release);
    } else {
        if (table->owed_tombstone_count == OWED_TOMBSTONES) dc__put_owed_tombstones(table);
        table->owed_tombstones[table->owed_tombstone_count++] = &array->items[handler->position & DC__POSITION_INDEX];
        batch->owes_tombstones = true;
    }
    /* Failing to compact is harmless (the next removal tries again). */
    uint32_t *tombstones = after ? &owner->after_tombstones : &owner->tombstones;
    if (++*tombstones > DC__TOMBSTONES_KEPT && *tombstones > TOMBSTONES_PER_LIVE * *live) {
        dc__handler_array *compact = dc__rebuilt_array(array, NULL, *live, false);
        if (compact != NULL) dc__publish_array(table, owner, after, compact);
    }
    if (!(handler->position & DC__POSITION_UNINDEXED)) table->dedupe.indexed--;
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
static bool finish_handler(dc__handler *handler, dc__handler_extras *extras, callout *out) {
    *out = (callout){extras != NULL ? extras->destroy : NULL, extras != NULL ? extras->destroy_data : NULL,
                     (handler->position & DC__POSITION_OWNS_TARGET) ? handler->target : NULL};
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
static void finish_handlers(dc_table *table, dc__handler *const *handlers, dc__handler_extras *const *extras,
                            size_t count) {
    callout callouts[REMOVAL_BATCH];
    dc__handler *completed[REMOVAL_BATCH];
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
    dc__handler *const handlers[1] = {object};
    lock_table(table);
    dc__handler_extras *const extras[1] = {handlers[0]->extras != 0 ? extras_of(table, handlers[0]) : NULL};
    unlock_table(table);
    finish_handlers(table, handlers, extras, 1);
}

/* Steps 2 and 3 for a batch. The caller must not hold the lock. */
static void finish_removal(dc_table *table, removal_batch *batch) {
    if (batch->count == 0 && batch->others_count == 0) return;
    dc__heavy_fence();
    if (batch->owes_tombstones && dc__others_may_read()) {
        lock_table(table);
        dc__put_owed_tombstones(table);
        unlock_table(table);
        dc__heavy_fence();
    }
    /* Only their addresses: their slots may be reused meanwhile, which costs
     * a wait for another handler's calls at most. */
    for (size_t i = 0; i < batch->others_count; i++) dc__wait_for_calls(batch->others[i], NULL, NULL);
    size_t waited = 0;
    for (size_t i = 0; i < batch->count; i++) {
        dc__handler *handler = batch->handlers[i];
        dc__handler_extras *extras = batch->extras[i];
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
    dc__handler *handler = find_handler(table, id);
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
static size_t remove_where(dc_table *table, bool (*matches)(const dc_table *, const dc__handler *, const void *),
                           const void *context, bool defaults) {
    size_t removed = 0;
    dc__finishing_begin();
    for (uint32_t slot = 0;;) {
        removal_batch batch;
        begin_batch(&batch);
        lock_table(table);
        for (; slot < table->slot_count && batch.count < REMOVAL_BATCH && batch.others_count < REMOVAL_BATCH;
             slot++) {
            dc__handler *handler = handler_at(table, slot);
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

static bool has_target(const dc_table *table, const dc__handler *handler, const void *target) {
    (void)table;
    return handler->target == target;
}
/* Added with the key, or, for an event, with any of its keys. */
static bool has_key(const dc_table *table, const dc__handler *handler, const void *key) {
    dc_event_id id = *(const dc_event_id *)key;
    return handler->event == id || array_record(record_by_id(table, handler->event))->id == id;
}
static bool any_handler(const dc_table *table, const dc__handler *handler, const void *context) {
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
    dc__event_record *record = record_by_name(table, event, length, hash_name(event, length));
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
void dc__table_remove_handler(dc_table *table, dc__handler *handler) {
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
static dc_status change_block_count(dc_table *table, dc_handler_id id, int delta, dc__handler **out) {
    if (table == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_%s: the table must not be NULL", delta > 0 ? "block" : "unblock");
    lock_table(table);
    dc__handler *handler = find_handler(table, id);
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
    dc__handler *handler = NULL; /* gcc -O3 cannot see change_block_count() set it on DC_OK */
    dc_status status = change_block_count(table, id, +1, &handler);
    if (status != DC_OK) return status;
    /* Calls that passed their state check before the block wait to return
     * (but for dc__wait_for_calls()'s exception). */
    dc__heavy_fence();
    dc__wait_for_calls(handler, NULL, NULL);
    return DC_OK;
}

DC_API dc_status dc_table_unblock(dc_table *table, dc_handler_id id) {
    dc__handler *handler;
    return change_block_count(table, id, -1, &handler);
}

size_t dc__table_remove_all(dc_table *table) { return remove_where(table, any_handler, NULL, true); }
