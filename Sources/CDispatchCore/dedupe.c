/*
 * dedupe.c — the duplicate index over (event, function, target) that an add
 * consults unless duplicates are allowed (table.h has its layout): finding a
 * live duplicate, inserting, and the rebuild that grows the index and drops
 * removed handlers' entries. Writers only, under the table's lock.
 */
#include "table.h"

#define DEDUPE_TAG(hash) (((hash) & 31u) << DEDUPE_SLOT_BITS)

/* The entry where the probe for `hash` starts. */
static inline uint32_t dedupe_home(const dedupe_index *index, uint32_t hash) {
    return (uint32_t)(((uint64_t)hash * index->capacity) >> 32);
}

static inline uint32_t dedupe_next(const dedupe_index *index, uint32_t i) { return i + 1 == index->capacity ? 0 : i + 1; }

dc_handler *dc__find_duplicate(dc_table *table, dc_event_id event, dc_function function, const void *target,
                               uint32_t *empty) {
    const dedupe_index *index = &table->dedupe;
    uint32_t hash = dedupe_hash(event, function, target), tag = DEDUPE_TAG(hash), entry, i;
    for (i = dedupe_home(index, hash); (entry = index->entries[i]) != 0; i = dedupe_next(index, i)) {
        if ((entry & ~MAX_SLOTS) != tag) continue;
        /* The slot's handler now: another than the entry's when it was reused. */
        dc_handler *handler = handler_at(table, (entry & MAX_SLOTS) - 1);
        uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
        if (handler->event == event && handler->function == function && handler->target == target &&
            !(state & (DC__STATE_REMOVED | DC__STATE_FIRED | DC__STATE_UNINDEXED)))
            return handler;
    }
    *empty = i;
    return NULL;
}

void dc__dedupe_insert_at(dedupe_index *index, const dc_handler *handler, uint32_t empty) {
    uint32_t hash = dedupe_hash(handler->event, handler->function, handler->target);
    index->entries[empty] = DEDUPE_TAG(hash) | (handler->slot + 1);
    index->used++;
}

bool dc__dedupe_insert(dedupe_index *index, const dc_handler *handler) {
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
static inline void rebuild_entry(dc_handler *handler, dedupe_index *spare) {
    uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
    if (handler->signature != NULL && !(state & (DC__STATE_REMOVED | DC__STATE_UNINDEXED)) &&
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
