/*
 * hooks.c — what watches a table rather than handling its events: emission
 * hooks (g_signal_add_emission_hook), called once per execute before its
 * handlers, and the observer told of handlers added and removed (Node's
 * 'newListener' and 'removeListener').
 *
 * Both are called the way handlers are: inside a read-side section, the call
 * announced in the thread's frame and the hook's `removed` mark read after
 * the announcement. A removal marks the hook under the lock and unpublishes
 * it, then, without the lock, waits for its calls running on other threads
 * (dc__wait_for_calls(), with its exception), runs its destroy notify and
 * retires it: the promises dispatch_table.h makes for handlers, kept by the
 * same steps.
 *
 * The lean execute (execute.c) calls no hook: an event that a hook watches
 * has its shape set summarized without lean counts (dc__lean_allowed()),
 * republished when a hook comes or goes. A hook list is published before the sets, and executes
 * load it after the set, so an execute that sees a new set sees its hooks.
 */
#include "table.h"

/* ---- which events hooks watch ----------------------------------------------------------- */

bool dc__hooks_watch(const dc_table *table, const dc__event_record *record) {
    const hook_list *hooks = atomic_load_explicit(&table->hooks, memory_order_relaxed);
    for (uint32_t i = 0; hooks != NULL && i < hooks->count; i++) {
        const table_hook *hook = hooks->hooks[i];
        if (!atomic_load_explicit(&hook->removed, memory_order_relaxed) &&
            (hook->event == 0 || hook->event == record->id))
            return true;
    }
    return false;
}

/* Whether a hook on `event` (0: every event) changes `record`'s summary:
 * an event's, with a shape set. */
static bool summary_watched(const dc__event_record *record, dc_event_id event) {
    return (event == 0 || record->id == event) && record->base == NULL &&
           atomic_load_explicit(&record->shapes, memory_order_relaxed) != NULL;
}

/* The records whose summaries a hook on `event` changes, written to
 * `records` (may be NULL to count them). */
static uint32_t watched_records(const dc_table *table, dc_event_id event, dc__event_record **records) {
    const dc__event_list *events = atomic_load_explicit(&table->events, memory_order_relaxed);
    uint32_t count = atomic_load_explicit(&events->count, memory_order_relaxed), found = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (!summary_watched(events->records[i], event)) continue;
        if (records != NULL) records[found] = events->records[i];
        found++;
    }
    return found;
}


/* ---- calling -------------------------------------------------------------------------------- */

/* Calls `hook` the way a handler is called; false when it asked to go. */
static bool call_hook(dc_thread_record *reader, table_hook *hook, const dc_emission *emission, bool *called) {
    dc__read_calling(reader, hook);
    *called = !atomic_load_explicit(&hook->removed, memory_order_acquire);
    bool stays = !*called || hook->function.emission(emission, hook->data);
    dc__read_called(reader);
    return stays;
}

static void remove_hook(dc_table *table, table_hook *hook);

void dc__run_hooks(dc_table *table, const hook_list *hooks, const dc__event_record *key, const dc__event_record *event,
                   const char *name, const dc_value *arguments, size_t count, dc_thread_record *reader) {
    dc_emission emission = {table, key != NULL ? key->name : name, 0, NULL, key != NULL ? key->id : 0,
                            event != NULL ? event->id : 0, arguments, count};
    /* An interned key knows its lengths; one never interned was checked. */
    size_t length = key != NULL ? key->name_length : strlen(name);
    emission.event_length = key != NULL    ? array_record((dc__event_record *)key)->name_length
                            : event != NULL ? event->name_length
                                            : (size_t)key_event_length(name, length);
    if (emission.event_length < length) emission.detail = emission.key + emission.event_length + 2;
    for (uint32_t i = 0; i < hooks->count; i++) {
        table_hook *hook = hooks->hooks[i];
        if (hook->event != 0 && hook->event != emission.key_id && hook->event != emission.event) continue;
        bool called;
        if (!call_hook(reader, hook, &emission, &called) && called) remove_hook(table, hook);
    }
}

void dc__table_observe(dc_table *table, dc_table_change change, dc_event_id event, dc_handler_id handler) {
    /* The destroy's own removals are not told; an add that overlaps it is,
     * while the observer is there (the destroy removes it first). */
    if (atomic_load_explicit(&table->observer, memory_order_relaxed) == NULL ||
        (change == DC_HANDLER_REMOVED && atomic_load_explicit(&table->destroy_called, memory_order_relaxed)))
        return;
    /* Every change made deeper was refused (refuse_unobservable()). */
    dc_thread_record *reader = dc__current_record;
    if (reader != NULL && reader->depth > DC_MAX_EXECUTE_DEPTH) return;
    if ((reader = dc__read_begin()) == NULL) return;
    /* One found replaced since it was loaded was swapped out before it was
     * marked: the one in its place is told instead. */
    table_hook *observer;
    while ((observer = atomic_load_explicit(&table->observer, memory_order_acquire)) != NULL) {
        dc__read_calling(reader, observer);
        if (!atomic_load_explicit(&observer->removed, memory_order_acquire)) {
            observer->function.observer(observer->data, table, change, event, handler);
            break;
        }
    }
    dc__read_called(reader);
    dc__read_end(reader);
}

/* The frames hold one call beyond the deepest handler's, the observer's
 * call of a change that handler made; a change made inside that call could
 * not be told. */
COLD dc_status dc__fail_unobservable(const dc_table *table, const char *function) {
    return dc__fail(DC_ERR_DEPTH,
                    "%s: table %s: inside the observer's call for a handler %u executes deep, a change could not "
                    "be told to the observer; nothing was changed",
                    function, display_name(table), DC_MAX_EXECUTE_DEPTH);
}

/* ---- removing ------------------------------------------------------------------------------- */

/* Once no call of `hook` runs: retires it, unless a list still holds it, then
 * runs its destroy notify. Reads nothing of the table after the lock. */
static void finish_hook(void *context, void *object) {
    dc_table *table = context;
    table_hook *hook = object;
    void (*destroy)(void *) = hook->destroy;
    void *data = hook->data;
    lock_table(table);
    bool listed = false;
    const hook_list *hooks = atomic_load_explicit(&table->hooks, memory_order_relaxed);
    for (uint32_t i = 0; hooks != NULL && i < hooks->count; i++) listed |= hooks->hooks[i] == hook;
    if (listed)
        hook->finished_listed = true;
    else
        dc__table_retire(table, hook, dc__table_free_object);
    dc__table_reclaim(table);
    unlock_table(table);
    if (destroy != NULL) destroy(data);
}

/* Waits for the calls of a hook marked removed, then finishes it, or hands
 * that over (dc__wait_for_calls()). No lock held. */
static void wait_and_finish(dc_table *table, table_hook *hook) {
    dc__finishing_begin();
    dc__heavy_fence();
    if (dc__wait_for_calls(hook, finish_hook, table)) finish_hook(table, hook);
    dc__finishing_end();
}

/* Marks `hook` removed and takes it out of the list; false when it was
 * removed already. Without memory for the shorter list it stays there,
 * marked, and readers pass it over. Caller holds the lock. */
static bool unlink_hook(dc_table *table, table_hook *hook) {
    if (atomic_load_explicit(&hook->removed, memory_order_relaxed)) return false;
    hook_list *hooks = atomic_load_explicit(&table->hooks, memory_order_relaxed);
    hook_list *shorter = malloc(sizeof *shorter + hooks->count * sizeof shorter->hooks[0]);
    atomic_store_explicit(&hook->removed, true, memory_order_seq_cst);
    if (shorter != NULL) {
        shorter->count = 0;
        for (uint32_t i = 0; i < hooks->count; i++)
            if (hooks->hooks[i] != hook) shorter->hooks[shorter->count++] = hooks->hooks[i];
        if (shorter->count == 0) {
            free(shorter);
            shorter = NULL;
        }
        atomic_store_explicit(&table->hooks, shorter, memory_order_release);
        dc__table_retire(table, hooks, dc__table_free_object);
    }
    /* The events it watched may run the lean way again (best effort: without
     * memory a summary stays stricter than needed). */
    const dc__event_list *events = atomic_load_explicit(&table->events, memory_order_relaxed);
    uint32_t count = atomic_load_explicit(&events->count, memory_order_relaxed);
    for (uint32_t i = 0; i < count; i++) {
        dc__shape_set *copy = summary_watched(events->records[i], hook->event) ? dc__copy_shapes(events->records[i]) : NULL;
        if (copy != NULL) dc__resummarize_shapes(table, events->records[i], copy);
    }
    return true;
}

/* Removes a hook that returned false, from inside an execute. */
static void remove_hook(dc_table *table, table_hook *hook) {
    lock_table(table);
    bool removing = unlink_hook(table, hook);
    dc__table_reclaim(table);
    unlock_table(table);
    if (removing) {
        wait_and_finish(table, hook);
    } else {
        /* Another execute, in which it also asked to go, is removing it:
         * this one too returns only once no call of it that began before the
         * mark runs on another thread, as dispatch_table.h promises for every
         * execute in which a hook returned false. Its memory outlives the
         * wait: it is retired, and this thread is in its read-side section. */
        dc__heavy_fence();
        dc__wait_for_calls(hook, NULL, NULL);
    }
}

/* ---- the API -------------------------------------------------------------------------------- */

DC_API dc_status dc_table_add_emission_hook(dc_table *table, const char *event, dc_emission_hook function, void *data,
                                            void (*destroy)(void *data), dc_hook_id *out) {
    if (table == NULL || function == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_add_emission_hook: table and hook must not be NULL");
    lock_table(table);
    dc_status status = DC_OK;
    dc__event_record *record = NULL;
    if (atomic_load_explicit(&table->destroy_called, memory_order_relaxed))
        status = dc__fail(DC_ERR_STATE, "table %s is being destroyed: no hook can be added", display_name(table));
    else if (event != NULL)
        status = dc__table_intern_locked(table, event, &record);
    /* Everything that can fail is allocated before the table changes: the
     * longer list, the hook, and a summary for each event it watches. */
    hook_list *hooks = atomic_load_explicit(&table->hooks, memory_order_relaxed);
    uint32_t had = hooks != NULL ? hooks->count : 0;
    dc_event_id watched = record != NULL ? record->id : 0;
    uint32_t count = status == DC_OK ? watched_records(table, watched, NULL) : 0;
    hook_list *longer = status == DC_OK ? malloc(sizeof *longer + (had + 1) * sizeof longer->hooks[0]) : NULL;
    table_hook *hook = status == DC_OK ? calloc(1, sizeof *hook) : NULL;
    dc__event_record **records = count > 0 ? calloc(count, sizeof *records) : NULL;
    dc__shape_set **copies = count > 0 ? calloc(count, sizeof *copies) : NULL;
    bool ready = longer != NULL && hook != NULL && (count == 0 || (records != NULL && copies != NULL));
    if (ready && count > 0) {
        watched_records(table, watched, records);
        for (uint32_t i = 0; i < count && ready; i++) ready = (copies[i] = dc__copy_shapes(records[i])) != NULL;
    }
    if (status == DC_OK && !ready) {
        for (uint32_t i = 0; copies != NULL && i < count; i++) free(copies[i]);
        free(longer), free(hook), free(records), free(copies);
        status = dc__fail(DC_ERR_NO_MEMORY, "table %s: no memory for an emission hook", display_name(table));
    }
    if (status == DC_OK) {
        hook->function.emission = function;
        hook->data = data;
        hook->destroy = destroy;
        hook->id = ++table->last_hook;
        hook->event = watched;
        longer->count = had + 1;
        if (had > 0) memcpy(longer->hooks, hooks->hooks, had * sizeof hooks->hooks[0]);
        longer->hooks[had] = hook;
        atomic_store_explicit(&table->hooks, longer, memory_order_release);
        if (hooks != NULL) dc__table_retire(table, hooks, dc__table_free_object);
        for (uint32_t i = 0; i < count; i++) dc__resummarize_shapes(table, records[i], copies[i]);
        free(records), free(copies);
        if (out != NULL) *out = hook->id;
        dc__table_reclaim(table);
    }
    unlock_table(table);
    return status;
}

DC_API dc_status dc_table_remove_emission_hook(dc_table *table, dc_hook_id id) {
    if (table == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_remove_emission_hook: the table must not be NULL");
    lock_table(table);
    table_hook *hook = NULL;
    const hook_list *hooks = atomic_load_explicit(&table->hooks, memory_order_relaxed);
    for (uint32_t i = 0; id != 0 && hooks != NULL && i < hooks->count; i++)
        if (hooks->hooks[i]->id == id) hook = hooks->hooks[i];
    bool removing = hook != NULL && unlink_hook(table, hook);
    dc__table_reclaim(table);
    unlock_table(table);
    if (!removing)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no emission hook with id %llu", display_name(table),
                        (unsigned long long)id);
    wait_and_finish(table, hook);
    return DC_OK;
}

DC_API dc_status dc_table_set_observer(dc_table *table, dc_table_observer observer, void *data,
                                       void (*destroy)(void *data)) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_set_observer: the table must not be NULL");
    table_hook *hook = NULL;
    if (observer != NULL) {
        if ((hook = calloc(1, sizeof *hook)) == NULL)
            return dc__fail(DC_ERR_NO_MEMORY, "table %s: no memory for an observer", display_name(table));
        hook->function.observer = observer;
        hook->data = data;
        hook->destroy = destroy;
    }
    lock_table(table);
    if (atomic_load_explicit(&table->destroy_called, memory_order_relaxed)) {
        unlock_table(table);
        free(hook);
        return dc__fail(DC_ERR_STATE, "table %s is being destroyed: no observer can be set", display_name(table));
    }
    table_hook *old = atomic_exchange_explicit(&table->observer, hook, memory_order_acq_rel);
    if (old != NULL) atomic_store_explicit(&old->removed, true, memory_order_seq_cst);
    unlock_table(table);
    if (old != NULL) wait_and_finish(table, old);
    return DC_OK;
}

void dc__table_remove_hooks(dc_table *table) {
    /* One at a time, the way dc_table_remove_emission_hook() goes (hooks
     * are few); marked ones are another removal's to finish. */
    for (;;) {
        lock_table(table);
        table_hook *hook = NULL;
        const hook_list *hooks = atomic_load_explicit(&table->hooks, memory_order_relaxed);
        for (uint32_t i = 0; hook == NULL && hooks != NULL && i < hooks->count; i++)
            if (!atomic_load_explicit(&hooks->hooks[i]->removed, memory_order_relaxed)) hook = hooks->hooks[i];
        if (hook != NULL) unlink_hook(table, hook);
        unlock_table(table);
        if (hook == NULL) break;
        wait_and_finish(table, hook);
    }
    /* What stayed listed for want of memory is all marked: out with the list. */
    lock_table(table);
    hook_list *hooks = atomic_exchange_explicit(&table->hooks, NULL, memory_order_acq_rel);
    for (uint32_t i = 0; hooks != NULL && i < hooks->count; i++)
        if (hooks->hooks[i]->finished_listed) dc__table_retire(table, hooks->hooks[i], dc__table_free_object);
    if (hooks != NULL) dc__table_retire(table, hooks, dc__table_free_object);
    table_hook *observer = atomic_exchange_explicit(&table->observer, NULL, memory_order_acq_rel);
    if (observer != NULL) atomic_store_explicit(&observer->removed, true, memory_order_seq_cst);
    unlock_table(table);
    if (observer != NULL) wait_and_finish(table, observer);
}
