/*
 * registry.c — a table's events: creating and destroying the table,
 * interning event names, looking events up, and what the table says about
 * itself. Registering handlers is registration.c's, removing them
 * removal.c's, running them execute.c's.
 */
#include "table.h"
#include "platform.h"

#include <stddef.h>

DC__BINDING_API const dc__event_record *dc__event_record_of(dc_table *table, dc_event_id event) {
    dc_thread_record *reader = dc__read_begin();
    if (reader == NULL) return NULL;
    const dc__event_record *record = record_by_id(table, event);
    dc__read_end(reader);
    return record;
}

/* ---- creation ------------------------------------------------------------------------------- */

static name_index *new_name_index(uint32_t slots) {
    name_index *names = calloc(1, sizeof *names + slots * sizeof names->slots[0]);
    if (names != NULL) names->mask = slots - 1;
    return names;
}

static dc__event_list *new_event_list(uint32_t capacity) {
    dc__event_list *events = calloc(1, sizeof *events + capacity * sizeof events->records[0]);
    if (events != NULL) events->capacity = capacity;
    return events;
}

DC_API dc_status dc_table_create(const char *name, const dc_object_callbacks *callbacks, dc_table **out) {
    if (out == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_create: out must not be NULL");
    dc__reclaim_initialize();
    dc_table *table = calloc(1, sizeof *table);
    dc__event_list *events = new_event_list(8);
    name_index *names = new_name_index(16);
    char *copy = strdup(name != NULL ? name : "");
    dedupe_index dedupe = {0};
    bool indexed = table != NULL && new_dedupe_index(&dedupe, DEDUPE_INITIAL_ENTRIES);
    if (table == NULL || events == NULL || names == NULL || copy == NULL || !indexed) {
        free(table), free(events), free(names), free(copy), free(dedupe.entries);
        return dc__fail(DC_ERR_NO_MEMORY, "dc_table_create: out of memory");
    }
    table_lock_init(&table->lock);
    atomic_init(&table->events, events);
    atomic_init(&table->names, names);
    table->name = copy;
    table->dedupe = dedupe;
    if (callbacks != NULL) table->callbacks = *callbacks;
    *out = table;
    return DC_OK;
}

/* ---- keys of string literals (dispatch_core_binding.h) ------------------------------------ */

/* Open addressing over the literal's address; a slot's address is set once,
 * then its key, so a reader that finds the address but no key yet misses. */
enum { LITERAL_PROBES = 16 };
_Static_assert((DC__LITERAL_KEYS & (DC__LITERAL_KEYS - 1)) == 0, "literal_home() masks with DC__LITERAL_KEYS - 1");
static _Atomic(const void *) literal_addresses[DC__LITERAL_KEYS];
static _Atomic(void *) literal_keys[DC__LITERAL_KEYS];

static size_t literal_home(const void *literal) {
    return (size_t)(mix((uint64_t)(uintptr_t)literal) & (DC__LITERAL_KEYS - 1));
}

DC__BINDING_API void *dc__literal_key(const void *literal) {
    size_t i = literal_home(literal);
    for (unsigned probe = 0; probe < LITERAL_PROBES; probe++, i = (i + 1) & (DC__LITERAL_KEYS - 1)) {
        const void *address = atomic_load_explicit(&literal_addresses[i], memory_order_acquire);
        if (address == literal) return atomic_load_explicit(&literal_keys[i], memory_order_acquire);
        if (address == NULL) return NULL;
    }
    return NULL;
}

DC__BINDING_API void *dc__literal_key_keep(const void *literal, void *key) {
    size_t i = literal_home(literal);
    for (unsigned probe = 0; probe < LITERAL_PROBES; probe++, i = (i + 1) & (DC__LITERAL_KEYS - 1)) {
        const void *address = NULL;
        if (atomic_compare_exchange_strong_explicit(&literal_addresses[i], &address, literal, memory_order_acq_rel,
                                                    memory_order_acquire)) {
            atomic_store_explicit(&literal_keys[i], key, memory_order_release);
            return key;
        }
        if (address == literal) return atomic_load_explicit(&literal_keys[i], memory_order_acquire);
    }
    return NULL;
}

DC__BINDING_API void dc__table_set_object_check(dc_table *table, dc__object_check check, void *context) {
    if (table == NULL) return;
    table->object_check = check;
    table->object_check_context = context;
}

DC_API const char *dc_table_name(const dc_table *table) { return table != NULL ? table->name : ""; }
/* ---- the table's lock (table.h) ---------------------------------------------------------- */

/* Taken while held: spins a little (a writer holds the lock for a few
 * hundred instructions), then marks the word 2 and sleeps until a release
 * wakes it, taking the lock as 2 since others may still sleep. */
void dc__table_lock_wait(table_lock *lock) {
    for (unsigned spin = 0; spin < 64; spin++) {
        uint32_t free_word = 0;
        if (atomic_load_explicit(&lock->word, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(&lock->word, &free_word, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
        SPIN_PAUSE();
    }
    while (atomic_exchange_explicit(&lock->word, 2, memory_order_acquire) != 0) dc__platform_wait(&lock->word, 2);
}

void dc__table_lock_wake(table_lock *lock) { dc__platform_wake_one(&lock->word); }

/* ---- interning ------------------------------------------------------------------------------- */

COLD dc_status dc__fail_key(const dc_table *table, const char *key) {
    return dc__fail(DC_ERR_INVALID_ARGUMENT,
                    "table %s: \"%s\" is not an event key (a detailed key is \"event::detail\": both parts "
                    "non-empty, one \"::\", no ':' next to it)",
                    display_name(table), key);
}

/* Finds or creates the record of the `length` bytes at `name`, a detailed
 * key of `base` or an event (base NULL). Caller holds the lock. */
static dc_status intern_exactly(dc_table *table, const char *name, size_t length, dc__event_record *base,
                                dc__event_record **out) {
    uint64_t hash = hash_name(name, length);
    dc__event_record *found = record_by_name(table, name, length, hash);
    if (found != NULL) {
        *out = found;
        return DC_OK;
    }

    dc__event_list *events = atomic_load_explicit(&table->events, memory_order_relaxed);
    name_index *names = atomic_load_explicit(&table->names, memory_order_relaxed);
    uint32_t count = atomic_load_explicit(&events->count, memory_order_relaxed);
    if (count == UINT32_MAX - 1)
        return dc__fail(DC_ERR_NO_MEMORY, "table %s: no event ids left", display_name(table));

    dc__event_record *record = calloc(1, sizeof *record + length + 1);
    dc__event_list *grown_events = count == events->capacity ? new_event_list(events->capacity * 2) : NULL;
    bool names_full = (count + 1) * 2 > names->mask + 1;
    name_index *grown_names = names_full ? new_name_index((names->mask + 1) * 2) : NULL;
    if (record == NULL || (count == events->capacity && grown_events == NULL) || (names_full && grown_names == NULL)) {
        free(record), free(grown_events), free(grown_names);
        return dc__fail(DC_ERR_NO_MEMORY, "table %s: no memory to intern event \"%.*s\"", display_name(table),
                        (int)length, name);
    }
    record->hash = hash;
    record->id = count + 1;
    record->base = base;
    record->name_length = length;
    memcpy(record->name, name, length);
    record->name[length] = '\0';

    if (grown_events != NULL) {
        memcpy(grown_events->records, events->records, count * sizeof events->records[0]);
        atomic_init(&grown_events->count, count);
        atomic_store_explicit(&table->events, grown_events, memory_order_release);
        dc__table_retire(table, events, dc__table_free_object);
        events = grown_events;
    }
    events->records[count] = record;
    atomic_store_explicit(&events->count, count + 1, memory_order_release);

    if (grown_names != NULL) {
        for (uint32_t i = 0; i <= names->mask; i++) {
            dc__event_record *old = atomic_load_explicit(&names->slots[i], memory_order_relaxed);
            if (old == NULL) continue;
            uint32_t j = (uint32_t)old->hash & grown_names->mask;
            while (atomic_load_explicit(&grown_names->slots[j], memory_order_relaxed) != NULL)
                j = (j + 1) & grown_names->mask;
            atomic_init(&grown_names->slots[j], old);
        }
        atomic_store_explicit(&table->names, grown_names, memory_order_release);
        dc__table_retire(table, names, dc__table_free_object);
        names = grown_names;
    }
    uint32_t i = (uint32_t)hash & names->mask;
    while (atomic_load_explicit(&names->slots[i], memory_order_relaxed) != NULL) i = (i + 1) & names->mask;
    atomic_store_explicit(&names->slots[i], record, memory_order_release);
    *out = record;
    return DC_OK;
}

dc_status dc__table_intern_locked(dc_table *table, const char *name, dc__event_record **out) {
    size_t length = strlen(name);
    dc__event_record *found = record_by_name(table, name, length, hash_name(name, length));
    if (found != NULL) {
        *out = found;
        return DC_OK;
    }
    long event = key_event_length(name, length);
    if (event == NOT_A_KEY) return dc__fail_key(table, name);
    dc__event_record *base = NULL;
    if ((size_t)event < length) {
        dc_status status = intern_exactly(table, name, (size_t)event, NULL, &base);
        if (status != DC_OK) return status;
    }
    return intern_exactly(table, name, length, base, out);
}

DC_API dc_status dc_table_intern(dc_table *table, const char *event, dc_event_id *out) {
    if (table == NULL || event == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_intern: table, event and out must not be NULL");
    lock_table(table);
    dc__event_record *record = NULL;
    dc_status status = dc__table_intern_locked(table, event, &record);
    if (status == DC_OK) dc__table_reclaim(table);
    unlock_table(table);
    if (status == DC_OK) *out = record->id;
    return status;
}

DC_API dc_status dc_table_event_name(const dc_table *table, dc_event_id event, const char **out) {
    if (table == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_event_name: table and out must not be NULL");
    dc_table *mutable_table = (dc_table *)table;
    lock_table(mutable_table);
    dc__event_record *record = record_by_id(table, event);
    unlock_table(mutable_table);
    if (record == NULL)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id %u", display_name(table), event);
    *out = record->name;
    return DC_OK;
}
/* ---- destroying -------------------------------------------------------------------------------------------- */

/* Frees the table. Outside every read-side section and removal: executes,
 * drains and removals still in the table on other threads are inside one. */
static void destroy_now(dc_table *table) {
    dc__table_remove_hooks(table);
    dc__table_remove_all(table);
    /* Wait out the executes and drains still inside the table on other
     * threads, and with them the finishing of handlers handed to them; none
     * can start now, so afterwards everything retired can go. */
    dc__synchronize();
    dc__reclaim(&table->retired, true);
    free(table->retiring); /* its handlers are released below */
    /* Removed handlers whose slots were still being collected were never
     * retired. */
    for (uint32_t slot = 0; slot < table->slot_count; slot++) {
        dc__handler *handler = handler_at(table, slot);
        if (handler->signature != NULL) dc__table_release_slot(handler, table);
    }
    dc__event_list *events = atomic_load_explicit(&table->events, memory_order_relaxed);
    uint32_t count = atomic_load_explicit(&events->count, memory_order_relaxed);
    for (uint32_t i = 0; i < count; i++) {
        dc__event_record *record = events->records[i];
        free(atomic_load_explicit(&record->handlers, memory_order_relaxed));
        free(atomic_load_explicit(&record->after, memory_order_relaxed));
        free(atomic_load_explicit(&record->shapes, memory_order_relaxed));
        free(record);
    }
    free(events);
    free(atomic_load_explicit(&table->names, memory_order_relaxed));
    for (uint32_t chunk = 0; chunk < table->chunk_count; chunk++) free(table->chunks[chunk]);
    free(table->chunks);
    free(table->dedupe.entries);
    free(atomic_load_explicit(&table->extras, memory_order_relaxed));
    free(table->name);
    table_lock_destroy(&table->lock);
    free(table);
}

static bool run_destroy(dc__deferred *work, bool outside) {
    if (!outside) return false;
    destroy_now((dc_table *)((char *)work - offsetof(dc_table, destroy_work)));
    return true;
}

/*
 * Called inside an execute or drain (of any table), or from a destroy
 * notify, the table cannot be freed at once: this thread may be inside it,
 * and waiting there for the other threads to leave it could close a cycle of
 * waits. Its handlers go now; the thread frees it once outside. The first
 * call decides: a later one (from a handler still running on another
 * thread, or a destroy notify) finds the table going and does nothing.
 */
DC_API void dc_table_destroy(dc_table *table) {
    if (table == NULL) return;
    if (atomic_exchange_explicit(&table->destroy_called, true, memory_order_acq_rel)) return;
    if (dc__inside()) {
        dc__table_remove_hooks(table);
        dc__table_remove_all(table);
        table->destroy_work.run = run_destroy;
        dc__defer_outside(&table->destroy_work);
        return;
    }
    destroy_now(table);
}
