/*
 * layout_ids.c — struct layouts' identities: the word a struct value carries
 * (dc_value.struct_id) so that a parameter tells its own layout from another
 * of the same size.
 *
 * Each distinct layout the process describes gets an identity on first sight,
 * kept until the process exits, as GLib registers a type. Layouts are told
 * apart by their encoding without names ("{dd}" for {point=dd} and
 * {size=dd}), which says exactly what dc__layouts_equal() compares: the
 * fields, their types and counts, hence their offsets. Interning takes a
 * lock (it happens when a signature is made); reading an identity's entry
 * takes none, since entries never move and are written before the identity
 * is handed out.
 */
#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK_ENTRIES = 256, CHUNKS = DC_MAX_STRUCT_LAYOUTS / CHUNK_ENTRIES };
_Static_assert(DC_MAX_STRUCT_LAYOUTS % CHUNK_ENTRIES == 0, "whole chunks of layouts");
_Static_assert(DC_MAX_STRUCT_LAYOUTS <= DC__STRUCT_ID_FLAG, "an identity's index fits beside its flag");

typedef struct layout_entry {
    size_t size;
    const char *key; /* the encoding without names */
    size_t length;
} layout_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Entries, in chunks allocated as needed and never moved or freed. */
static layout_entry *_Atomic chunks[CHUNKS];
/* The bytes the entries' keys take, at most DC_MAX_STRUCT_LAYOUT_BYTES. */
static size_t key_bytes;
/* How many entries are written; an identity's index is below it. */
static _Atomic uint32_t given;
/* Under the lock: a hash table of index + 1 (0 is empty), by key. */
static uint32_t *slots;
static size_t slot_count;

/* ---- keys ----------------------------------------------------------------- */

/* Writes `node`'s key: an array as its count and one element's key (nested
 * arrays are one node, their counts multiplied, as dc__layouts_equal sees
 * them), a struct as its fields' keys in braces, a scalar as its code. */
static void write_key(dc__text *key, const dc__layout_node *node, bool element) {
    if (!element && node->count > 1) {
        char count[24];
        dc__text_append(key, count, (size_t)snprintf(count, sizeof count, "[%zu", node->count));
        write_key(key, node, true);
        dc__text_append(key, "]", 1);
        return;
    }
    if (node->type != DC_TYPE_STRUCT) {
        const char *code = dc__type_canonical(node->type);
        dc__text_append(key, code, strlen(code));
        return;
    }
    dc__text_append(key, "{", 1);
    for (size_t i = 0; i < node->field_count; i++) write_key(key, &node->fields[i], false);
    dc__text_append(key, "}", 1);
}

static uint64_t hash_of(const char *text, size_t length) {
    uint64_t hash = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < length; i++) hash = (hash ^ (unsigned char)text[i]) * 1099511628211u;
    return hash;
}

/* ---- the table ------------------------------------------------------------ */

static const layout_entry *entry_at(uint32_t index) {
    return &atomic_load_explicit(&chunks[index / CHUNK_ENTRIES], memory_order_acquire)[index % CHUNK_ENTRIES];
}

/* Under the lock: the slot of `key`, holding its index + 1, or the empty
 * slot where it goes. */
static uint32_t *slot_of(const char *key, size_t length, uint64_t hash) {
    for (size_t i = hash & (slot_count - 1);; i = (i + 1) & (slot_count - 1)) {
        if (slots[i] == 0) return &slots[i];
        const layout_entry *entry = entry_at(slots[i] - 1);
        if (entry->length == length && memcmp(entry->key, key, length) == 0) return &slots[i];
    }
}

/* Under the lock: room for one more entry in the slots (at most half full). */
static bool make_room(uint32_t count) {
    if ((size_t)(count + 1) * 2 <= slot_count) return true;
    size_t grown_count = slot_count == 0 ? 64 : slot_count * 2;
    uint32_t *grown = calloc(grown_count, sizeof *grown);
    if (grown == NULL) return false;
    uint32_t *old = slots;
    size_t old_count = slot_count;
    slots = grown;
    slot_count = grown_count;
    for (size_t i = 0; i < old_count; i++) {
        if (old[i] == 0) continue;
        const layout_entry *entry = entry_at(old[i] - 1);
        *slot_of(entry->key, entry->length, hash_of(entry->key, entry->length)) = old[i];
    }
    free(old);
    return true;
}

uint32_t dc__layout_id(const dc__layout_node *layout) {
    dc__text key = {0};
    write_key(&key, layout, true);
    if (key.out_of_memory) {
        free(key.data);
        return 0;
    }
    uint64_t hash = hash_of(key.data, key.length);
    uint32_t id = 0;
    pthread_mutex_lock(&lock);
    uint32_t count = atomic_load_explicit(&given, memory_order_relaxed);
    uint32_t *slot = slot_count > 0 ? slot_of(key.data, key.length, hash) : NULL;
    if (slot != NULL && *slot != 0) {
        id = DC__STRUCT_ID_FLAG | (*slot - 1);
    } else if (count < DC_MAX_STRUCT_LAYOUTS && key.length + 1 <= DC_MAX_STRUCT_LAYOUT_BYTES - key_bytes &&
               make_room(count)) {
        layout_entry *chunk = atomic_load_explicit(&chunks[count / CHUNK_ENTRIES], memory_order_relaxed);
        if (chunk == NULL && (chunk = calloc(CHUNK_ENTRIES, sizeof *chunk)) != NULL)
            atomic_store_explicit(&chunks[count / CHUNK_ENTRIES], chunk, memory_order_release);
        if (chunk != NULL) {
            chunk[count % CHUNK_ENTRIES] = (layout_entry){layout->size / layout->count, key.data, key.length};
            key.data = NULL; /* the entry's now */
            key_bytes += key.length + 1;
            *slot_of(chunk[count % CHUNK_ENTRIES].key, key.length, hash) = count + 1;
            atomic_store_explicit(&given, count + 1, memory_order_release);
            id = DC__STRUCT_ID_FLAG | count;
        }
    }
    pthread_mutex_unlock(&lock);
    free(key.data);
    return id;
}

dc__struct_knowledge dc__struct_known(uint32_t struct_id) {
    if (!(struct_id & DC__STRUCT_ID_FLAG)) return (dc__struct_knowledge){struct_id, NULL};
    uint32_t index = struct_id & ~DC__STRUCT_ID_FLAG;
    if (index >= atomic_load_explicit(&given, memory_order_acquire)) return (dc__struct_knowledge){0, NULL};
    const layout_entry *entry = entry_at(index);
    return (dc__struct_knowledge){entry->size, entry->key};
}

const char *dc__struct_describe(const dc_value *value, char *text, size_t size) {
    dc__struct_knowledge known = dc__struct_known(value->struct_id);
    if (known.layout != NULL)
        snprintf(text, size, "a struct %s of %zu bytes", known.layout, known.size);
    else if (known.size != 0)
        snprintf(text, size, "a struct of %zu bytes", known.size);
    else
        snprintf(text, size, "a struct");
    return text;
}

/* ---- the public face ------------------------------------------------------ */

dc_status dc_struct_with_layout(void *bytes, const dc_layout *layout, dc_value *out) {
    if (bytes == NULL || layout == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_struct_with_layout: %s is NULL",
                        bytes == NULL ? "bytes" : layout == NULL ? "layout" : "out");
    const dc__layout_node *node = layout->detail;
    if (layout->type != DC_TYPE_STRUCT || node == NULL || node->type != DC_TYPE_STRUCT)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_struct_with_layout: the layout \"%s\" is not a struct's",
                        layout->encoding != NULL ? layout->encoding : "");
    /* A parameter's or return value's has its identity; a field's is found. */
    uint32_t id = node->id != 0 ? node->id : dc__layout_id(node);
    *out = dc_struct_of(bytes, node->size / node->count);
    if (id != 0) out->struct_id = id;
    return DC_OK;
}

size_t dc_struct_size(const dc_value *value) {
    if (value == NULL || value->type != DC_TYPE_STRUCT) return 0;
    return dc__struct_known(value->struct_id).size;
}

size_t dc__value_bytes(const dc_value *value) {
    switch (value->type) {
    case DC_TYPE_STRUCT: return dc_struct_size(value);
    case DC_TYPE_LONG_DOUBLE: return sizeof(long double);
    case DC_TYPE_COMPLEX_FLOAT: return sizeof(float _Complex);
    case DC_TYPE_COMPLEX_DOUBLE: return sizeof(double _Complex);
    case DC_TYPE_COMPLEX_LONG_DOUBLE: return sizeof(long double _Complex);
    default: return 0;
    }
}
