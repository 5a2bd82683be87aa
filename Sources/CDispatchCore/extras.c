/*
 * extras.c — the table's extras list: the queue and destroy notify of the
 * handlers given one, which a handler names by index (handler->extras) so
 * that the handlers of every other kind stay small. Writers hold the lock;
 * executes of queued handlers read the list inside their read-side section.
 */
#include "table.h"

/* A free index of the extras list holds the next free index + 1, tagged. */
static handler_extras *free_extras_link(uint32_t next) { return (handler_extras *)(((uintptr_t)next << 1) | 1); }
static uint32_t free_extras_next(const handler_extras *link) { return (uint32_t)((uintptr_t)link >> 1); }

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

uint32_t dc__take_extras(dc_table *table, extras_list *grown, handler_extras *extras) {
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
