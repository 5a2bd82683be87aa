/*
 * table.c — GSignal for C: named events, ordered handler lists, executes.
 *
 * One execute, top to bottom (execute_generally()):
 *   key -> event record (lock-free name index) -> handler array snapshot
 *   -> validate the arguments once per distinct handler shape
 *   -> for each handler: announce the call, re-check its state, call it on the
 *      stub path or libffi (or post it to its queue), accumulate its result.
 * The commonest execute, void handlers of one shape whose arguments have
 * exactly its types (plain ones or marshals), takes the same steps in
 * execute_lean() with less: one check against the shape summary, then a
 * direct call of each handler.
 *
 * Readers take no lock. Writers serialize on table->lock and publish
 * immutable or append-only structures with release stores; what they unlink is
 * retired and freed by reclaim.c once no reader can hold it.
 */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- handlers ---------------------------------------------------------------------- */

typedef struct dc__handler_extras {
    dc_queue *queue;
    void (*destroy)(void *destroy_data);
    void *destroy_data;
} handler_extras;

/* The handler, its state bits and the structures below are laid out in
 * dispatch_core_inline.h, which the Swift layer's inline execute shares. */
typedef dc__handler dc_handler;

#define SWIFT_CALLS DC__SWIFT_CALLS

/* Handlers live in fixed chunks that never move, so a pointer to one stays
 * valid for the table's life; slots are reused only after reclamation. */
#define CHUNK_SHIFT 10
#define CHUNK_SIZE (1u << CHUNK_SHIFT)

/* Always removed: what an array entry points to once its handler is removed.
 * A snapshot taken after a removal never reaches the removed handler, so no
 * later execute announces it: a remover checking whether a call it did not
 * wait for is over (dc__wait_for_calls()) sees only that call. */
static dc_handler tombstone = {.state = DC__STATE_REMOVED | DC__STATE_UNLISTED};

/* The duplicate index over (event, function, target): open addressing with
 * linear probing. An entry is a slot + 1 (0: empty) and 8 bits of its
 * hash, which spare most probes a look at another handler. A removed
 * handler's entry stays until the next rebuild (see "removing"); at most
 * half the entries are in use, those included. */
typedef struct dedupe_index {
    uint32_t *slots;
    uint8_t *tags;
    uint32_t mask;
    uint32_t indexed; /* entries of live handlers */
    uint32_t stale;   /* entries of removed handlers */
} dedupe_index;

#define DEDUPE_INITIAL_ENTRIES 16u

/* An empty index of `entries` (a power of two) entries; false when out of memory. */
static bool new_dedupe_index(dedupe_index *index, uint32_t entries) {
    index->slots = calloc(entries, sizeof *index->slots + sizeof *index->tags);
    if (index->slots == NULL) return false;
    index->tags = (uint8_t *)(index->slots + entries);
    index->mask = entries - 1;
    index->indexed = index->stale = 0;
    return true;
}

/* ---- per-event structures readers see ------------------------------------------------ */

typedef dc__handler_array handler_array;
typedef dc__handler_shape handler_shape;
typedef dc__shape_set shape_set;
typedef dc__event_record event_record;
typedef dc__event_list event_list;

/* Events by name: open addressing, a power-of-two number of slots, at most
 * half full. Slots are filled once with a release store. */
typedef struct name_index {
    uint32_t mask;
    _Atomic(event_record *) slots[];
} name_index;

struct dc_table {
    _Atomic(event_list *) events;
    _Atomic(name_index *) names;
    dc_object_callbacks callbacks;
    char *name;

    pthread_mutex_t lock; /* serializes writers; never held while a handler runs */
    dc_handler **chunks;
    uint32_t chunk_count;
    uint32_t slot_count; /* slots ever handed out */
    uint32_t free_slots; /* free list head: slot + 1 */
    dedupe_index dedupe;
    dc_retired_list retired;
    struct slot_batch *retiring; /* slots to retire at the end of this lock hold (reclaim()) */
    _Atomic bool destroy_called;
    dc__deferred destroy_work; /* the free owed once a destroy called inside a section is outside */
};

/*
 * What is read without the lock, and what makes it safe. Everything else
 * (chunks and slots, the dedupe index, free list, retired list, counts such
 * as live and tombstones, a handler's `next` and `position`, its writer-side
 * state bits) is read and written under the lock only.
 *
 * Inside a read-side section (executes, drains, dc__event_record_of()):
 *  - `events`, `names` and the arrays and shape sets of event records: each
 *    published by a release store; a replaced one is retired, so it is not
 *    freed while a section that may hold it is open (reclaim.c);
 *  - an event record's id, hash and name: set before it is published, never
 *    changed; records live as long as the table;
 *  - a handler reached through an array: function, signature, target,
 *    extras, generation and slot are set before it is published and change
 *    only when its slot is reused, after reclamation; its state is atomic;
 *  - the table's name and callbacks: set by dc_table_create, never changed.
 * The table itself lives while a section of any thread may read it: a
 * destroy waits for every open section (dc__synchronize()), and its own
 * thread's wait for the outside. No execute reads the table after leaving
 * its section.
 *
 * Outside any section:
 *  - a removed handler's extras, by its remover between step 1 and step 3
 *    (see "removing"): its slot is retired only in step 3;
 *  - a handler's address, by a remove or block waiting for its calls: used
 *    as a key, never dereferenced;
 *  - `destroy_called`: atomic; the name and callbacks, as above.
 */

/* Error and rare paths stay out of the execute loop's way. */
#if defined(__GNUC__)
#define COLD __attribute__((noinline, cold))
#define NOINLINE __attribute__((noinline))
#define ALWAYS_INLINE __attribute__((always_inline))
#define UNREACHABLE() __builtin_unreachable()
#else
#define UNREACHABLE() ((void)0)
#define COLD
#define NOINLINE
#define ALWAYS_INLINE
#endif
#define LIKELY(x) DC__LIKELY(x)
#if defined(__GNUC__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)0)
#endif
#define KEEP_IN_REGISTER(pointer) DC__KEEP_IN_REGISTER(pointer)

/* ---- small helpers ---------------------------------------------------------------------- */

/* The handler in `slot`. Caller holds the lock: growing moves the chunk list. */
static dc_handler *handler_at(const dc_table *table, uint32_t slot) {
    return &table->chunks[slot >> CHUNK_SHIFT][slot & (CHUNK_SIZE - 1)];
}

/* Reads only what does not change while a reader or the lock holds the
 * handler: its generation and slot change when a reclaimed slot is reused. */
static dc_handler_id id_of(const dc_handler *handler) {
    return ((uint64_t)handler->generation << 32) | handler->slot;
}

/* The live handler an id names, or NULL. Caller holds the lock. */
static dc_handler *find_handler(const dc_table *table, dc_handler_id id) {
    uint32_t slot = (uint32_t)id, generation = (uint32_t)(id >> 32);
    if (generation == 0 || slot >= table->slot_count) return NULL;
    dc_handler *handler = handler_at(table, slot);
    if (handler->generation != generation ||
        (atomic_load_explicit(&handler->state, memory_order_relaxed) & DC__STATE_REMOVED))
        return NULL;
    return handler;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}

static uint64_t load_word(const char *bytes) {
    uint64_t word;
    memcpy(&word, bytes, sizeof word);
    return word;
}

/* One multiply per word and a full mix at the end: the name index compares
 * names in full, so the hash only has to spread them, and a string-keyed
 * execute pays for it every time. */
ALWAYS_INLINE static inline uint64_t hash_name(const char *name, size_t length) {
    const uint64_t multiplier = 0x9e3779b97f4a7c15ull;
    uint64_t hash = 0x243f6a8885a308d3ull ^ length;
    const char *end = name + length;
    for (; end - name >= 8; name += 8) {
        hash = (hash ^ load_word(name)) * multiplier;
        hash ^= hash >> 29;
    }
    if (name < end) {
        uint64_t tail = 0;
        memcpy(&tail, name, (size_t)(end - name));
        hash = (hash ^ tail) * multiplier;
    }
    return mix(hash);
}

/* memcmp(a, b, length) == 0, a word at a time: event names are short. */
static bool same_name(const char *a, const char *b, size_t length) {
    for (; length >= 8; a += 8, b += 8, length -= 8)
        if (load_word(a) != load_word(b)) return false;
    return length == 0 || memcmp(a, b, length) == 0;
}

static uint32_t dedupe_hash(dc_event_id event, dc_function function, const void *target) {
    uint64_t hash = mix((uint64_t)(uintptr_t)function ^ ((uint64_t)event << 48));
    return (uint32_t)mix(hash ^ (uint64_t)(uintptr_t)target);
}

static const char *display_name(const dc_table *table) { return table->name[0] ? table->name : "(unnamed)"; }

/* ---- lookup (readers) ---------------------------------------------------------------- */

ALWAYS_INLINE static inline event_record *record_by_id(const dc_table *table, dc_event_id id) {
    event_list *events = atomic_load_explicit(&table->events, memory_order_acquire);
    /* id - 1 wraps for 0, so one comparison says "no such event". */
    return id - 1 < atomic_load_explicit(&events->count, memory_order_acquire) ? events->records[id - 1] : NULL;
}

const event_record *dc__event_record_of(dc_table *table, dc_event_id event) {
    dc_thread_record *reader = dc__read_begin();
    if (reader == NULL) return NULL;
    const event_record *record = record_by_id(table, event);
    dc__read_end(reader);
    return record;
}

ALWAYS_INLINE static inline event_record *record_by_name(const dc_table *table, const char *name, size_t length,
                                                         uint64_t hash) {
    name_index *names = atomic_load_explicit(&table->names, memory_order_acquire);
    for (uint32_t i = (uint32_t)hash & names->mask;; i = (i + 1) & names->mask) {
        event_record *record = atomic_load_explicit(&names->slots[i], memory_order_acquire);
        if (record == NULL) return NULL;
        if (record->hash == hash && record->name_length == length && same_name(record->name, name, length))
            return record;
    }
}

/* The event named by id, or by name when id is 0. Readers call it inside a
 * read-side section, writers under the lock: interning may replace what it reads. */
ALWAYS_INLINE static inline const event_record *lookup_event(const dc_table *table, dc_event_id id, const char *name) {
    if (id != 0 || name == NULL) return record_by_id(table, id);
    size_t length = strlen(name);
    return record_by_name(table, name, length, hash_name(name, length));
}

/* ---- creation ------------------------------------------------------------------------------- */

static name_index *new_name_index(uint32_t slots) {
    name_index *names = calloc(1, sizeof *names + slots * sizeof names->slots[0]);
    if (names != NULL) names->mask = slots - 1;
    return names;
}

static event_list *new_event_list(uint32_t capacity) {
    event_list *events = calloc(1, sizeof *events + capacity * sizeof events->records[0]);
    if (events != NULL) events->capacity = capacity;
    return events;
}

DC_API dc_status dc_table_create(const char *name, const dc_object_callbacks *callbacks, dc_table **out) {
    if (out == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_create: out must not be NULL");
    dc__reclaim_initialize();
    dc_table *table = calloc(1, sizeof *table);
    event_list *events = new_event_list(8);
    name_index *names = new_name_index(16);
    char *copy = strdup(name != NULL ? name : "");
    dedupe_index dedupe = {0};
    bool indexed = table != NULL && new_dedupe_index(&dedupe, DEDUPE_INITIAL_ENTRIES);
    if (table == NULL || events == NULL || names == NULL || copy == NULL || !indexed) {
        free(table), free(events), free(names), free(copy), free(dedupe.slots);
        return dc__fail(DC_ERR_NO_MEMORY, "dc_table_create: out of memory");
    }
    pthread_mutex_init(&table->lock, NULL);
    atomic_init(&table->events, events);
    atomic_init(&table->names, names);
    table->name = copy;
    table->dedupe = dedupe;
    if (callbacks != NULL) table->callbacks = *callbacks;
    *out = table;
    return DC_OK;
}

DC_API const char *dc_table_name(const dc_table *table) { return table != NULL ? table->name : ""; }

/* ---- releasing retired things ------------------------------------------------------------ */

static void free_object(void *object, void *context) {
    (void)context;
    free(object);
}

static void free_shape_set(void *object, void *context) {
    (void)context;
    free(object);
}

/* A removed handler's slot goes back to the free list once no reader holds it. */
static void release_handler_slot(void *object, void *context) {
    dc_table *table = context;
    dc_handler *handler = object;
    dc_signature_release(handler->signature);
    if (handler->extras != NULL) free(handler->extras);
    handler->signature = NULL;
    handler->extras = NULL;
    handler->function = NULL;
    handler->target = NULL;
    if (handler->generation == UINT32_MAX) return; /* its ids are used up: never reused */
    handler->next = table->free_slots;
    table->free_slots = handler->slot + 1;
}

/* Retires `object`; when no memory is left for the bookkeeping the object is
 * kept (a leak, never a use after free). Caller holds the lock. */
static void retire(dc_table *table, void *object, void (*release)(void *, void *)) {
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
        release_handler_slot(batch->handlers[i], context);
    }
    free(batch);
}

/* Collects a slot to retire with the others of this lock hold
 * (retire_collected_slots()). Caller holds the lock. */
static void retire_slot(dc_table *table, dc_handler *handler) {
    slot_batch *batch = table->retiring;
    if (batch == NULL || batch->count == batch->capacity) {
        uint32_t capacity = batch != NULL ? batch->capacity * 2 : 16;
        slot_batch *grown = batch != NULL && capacity > batch->capacity
                                ? realloc(batch, sizeof *batch + capacity * sizeof batch->handlers[0])
                                : batch == NULL ? malloc(sizeof *batch + capacity * sizeof batch->handlers[0]) : NULL;
        if (grown == NULL) {
            retire(table, handler, release_handler_slot);
            return;
        }
        if (batch == NULL) grown->count = 0;
        grown->capacity = capacity;
        table->retiring = batch = grown;
    }
    batch->handlers[batch->count++] = handler;
}

/* Retires the collected slots, then frees what no reader can hold. Caller
 * holds the lock. */
static void reclaim(dc_table *table) {
    slot_batch *batch = table->retiring;
    if (batch != NULL) {
        dc_retired *retired = malloc(sizeof *retired);
        if (retired != NULL) { /* otherwise collected until the next time */
            dc__retire(&table->retired, retired, batch, table, release_slot_batch);
            table->retiring = NULL;
        }
    }
    dc__reclaim(&table->retired, false);
}

/* ---- interning ------------------------------------------------------------------------------- */

/* Finds or creates the record of `name`. Caller holds the lock. */
static dc_status intern_locked(dc_table *table, const char *name, event_record **out) {
    size_t length = strlen(name);
    uint64_t hash = hash_name(name, length);
    event_record *found = record_by_name(table, name, length, hash);
    if (found != NULL) {
        *out = found;
        return DC_OK;
    }

    event_list *events = atomic_load_explicit(&table->events, memory_order_relaxed);
    name_index *names = atomic_load_explicit(&table->names, memory_order_relaxed);
    uint32_t count = atomic_load_explicit(&events->count, memory_order_relaxed);
    if (count == UINT32_MAX - 1)
        return dc__fail(DC_ERR_NO_MEMORY, "table %s: no event ids left", display_name(table));

    event_record *record = calloc(1, sizeof *record + length + 1);
    event_list *grown_events = count == events->capacity ? new_event_list(events->capacity * 2) : NULL;
    bool names_full = (count + 1) * 2 > names->mask + 1;
    name_index *grown_names = names_full ? new_name_index((names->mask + 1) * 2) : NULL;
    if (record == NULL || (count == events->capacity && grown_events == NULL) || (names_full && grown_names == NULL)) {
        free(record), free(grown_events), free(grown_names);
        return dc__fail(DC_ERR_NO_MEMORY, "table %s: no memory to intern event \"%s\"", display_name(table), name);
    }
    record->hash = hash;
    record->id = count + 1;
    record->name_length = length;
    memcpy(record->name, name, length + 1);

    if (grown_events != NULL) {
        memcpy(grown_events->records, events->records, count * sizeof events->records[0]);
        atomic_init(&grown_events->count, count);
        atomic_store_explicit(&table->events, grown_events, memory_order_release);
        retire(table, events, free_object);
        events = grown_events;
    }
    events->records[count] = record;
    atomic_store_explicit(&events->count, count + 1, memory_order_release);

    if (grown_names != NULL) {
        for (uint32_t i = 0; i <= names->mask; i++) {
            event_record *old = atomic_load_explicit(&names->slots[i], memory_order_relaxed);
            if (old == NULL) continue;
            uint32_t j = (uint32_t)old->hash & grown_names->mask;
            while (atomic_load_explicit(&grown_names->slots[j], memory_order_relaxed) != NULL)
                j = (j + 1) & grown_names->mask;
            atomic_init(&grown_names->slots[j], old);
        }
        atomic_store_explicit(&table->names, grown_names, memory_order_release);
        retire(table, names, free_object);
        names = grown_names;
    }
    uint32_t i = (uint32_t)hash & names->mask;
    while (atomic_load_explicit(&names->slots[i], memory_order_relaxed) != NULL) i = (i + 1) & names->mask;
    atomic_store_explicit(&names->slots[i], record, memory_order_release);
    *out = record;
    return DC_OK;
}

DC_API dc_status dc_table_intern(dc_table *table, const char *event, dc_event_id *out) {
    if (table == NULL || event == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_intern: table, event and out must not be NULL");
    pthread_mutex_lock(&table->lock);
    event_record *record;
    dc_status status = intern_locked(table, event, &record);
    if (status == DC_OK) reclaim(table);
    pthread_mutex_unlock(&table->lock);
    if (status == DC_OK) *out = record->id;
    return status;
}

DC_API dc_status dc_table_event_name(const dc_table *table, dc_event_id event, const char **out) {
    if (table == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_event_name: table and out must not be NULL");
    dc_table *mutable_table = (dc_table *)table;
    pthread_mutex_lock(&mutable_table->lock);
    event_record *record = record_by_id(table, event);
    pthread_mutex_unlock(&mutable_table->lock);
    if (record == NULL)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id %u", display_name(table), event);
    *out = record->name;
    return DC_OK;
}

/* ---- handler arrays and shape sets (writers) -------------------------------------------- */

/* A new array holding the live handlers of `old` (none when NULL), with `first`
 * in front when given, and room to grow. */
static handler_array *rebuilt_array(const handler_array *old, dc_handler *first, uint32_t live) {
    /* Room for half as many again: appends stay cheap, and an array of a
     * million handlers costs about 10 bytes per handler. */
    uint64_t wanted = (uint64_t)live + 1 + (live + 1) / 2;
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

/* Adds one of the bits that say how far a removed handler's removal has
 * come; true for the call that completes them: the handler is out of its
 * event's array and the duplicate index, and its removal finished, so its
 * slot can be retired. Only the finishing runs without the lock. */
static bool mark_removed_handler(dc_handler *handler, uint32_t bit) {
    const uint32_t done = DC__STATE_REMOVED | DC__STATE_UNLISTED | DC__STATE_UNINDEXED | DC__STATE_FINISHED;
    uint32_t before = atomic_fetch_or_explicit(&handler->state, bit, memory_order_acq_rel);
    return !(before & bit) && ((before | bit) & done) == done;
}

/* Publishes `array`, which holds live handlers only, and records where
 * each is. */
static void publish_array(dc_table *table, event_record *record, handler_array *array) {
    uint32_t count = atomic_load_explicit(&array->count, memory_order_relaxed);
    for (uint32_t i = 0; i < count; i++) atomic_load_explicit(&array->items[i], memory_order_relaxed)->position = i;
    handler_array *old = atomic_load_explicit(&record->handlers, memory_order_relaxed);
    atomic_store_explicit(&record->handlers, array, memory_order_release);
    record->tombstones = 0;
    if (old != NULL) retire(table, old, free_object);
}

static uint32_t shape_flags(uint32_t state) {
    return state & (DC__STATE_TARGET | DC__STATE_STRICT | DC__STATE_VARIADIC | DC__STATE_MARSHAL | DC__STATE_SWIFT);
}

/* Parameter 0 holds the bound target, if any; event arguments follow it. */
static size_t first_argument_parameter(uint32_t state) { return (state & DC__STATE_TARGET) ? 1 : 0; }

static shape_set *copy_shapes(const shape_set *old, uint32_t extra) {
    uint32_t count = old != NULL ? old->count : 0;
    shape_set *set = malloc(sizeof *set + (count + extra) * sizeof set->shapes[0]);
    if (set == NULL) return NULL;
    set->count = count;
    if (count > 0) memcpy(set->shapes, old->shapes, count * sizeof set->shapes[0]);
    return set;
}

static handler_shape *find_shape(shape_set *set, const dc_signature *signature, uint32_t flags) {
    for (uint32_t i = 0; set != NULL && i < set->count; i++)
        if (set->shapes[i].signature == signature && set->shapes[i].state_flags == flags) return &set->shapes[i];
    return NULL;
}

static uint32_t lean_call_of(const shape_set *set) {
    if (set->count != 1) return 0;
    const handler_shape *shape = &set->shapes[0];
    const dc_signature *signature = shape->signature;
    if (signature->return_type != DC_TYPE_VOID) return 0;
    /* A variadic marshal may still return a value (the lean execute hands
     * the rest to the general one when it does). */
    if (shape->state_flags & DC__STATE_SWIFT)
        return DC__LEAN_SWIFT_CALL(signature->parameter_count > 0, dc__asymmetric_fences);
    if (shape->state_flags & DC__STATE_MARSHAL)
        return DC__LEAN_MARSHAL_CALL(shape->state_flags & DC__STATE_VARIADIC, dc__asymmetric_fences);
    if (!signature->word_images || signature->parameter_count > DC__LEAN_MAX_PARAMETERS) return 0;
    return DC__LEAN_CALL((uint32_t)signature->parameter_count, shape->state_flags & DC__STATE_TARGET,
                         dc__asymmetric_fences);
}

/* Fills in the summary of a set about to be published. */
static void summarize_shapes(shape_set *set) {
    uint64_t counts = ~(uint64_t)0, strict_counts = ~(uint64_t)0;
    set->most_takes = 0;
    for (uint32_t s = 0; s < set->count; s++) {
        const handler_shape *shape = &set->shapes[s];
        if (shape->state_flags & DC__STATE_VARIADIC) continue; /* takes the arguments as given: constrains nothing */
        uint32_t takes = shape->takes; /* at most DC_MAX_PARAMETERS, below 64 */
        /* A strict shape fits only its own count; an execute's strict flag
         * makes every shape here strict. */
        if (shape->state_flags & DC__STATE_STRICT) counts &= (uint64_t)1 << takes;
        strict_counts &= (uint64_t)1 << takes;
        const dc_type *parameter_types = shape->signature->parameter_types + first_argument_parameter(shape->state_flags);
        for (uint32_t i = 0; i < takes; i++) {
            if (i >= set->most_takes)
                set->types[i] = (uint8_t)parameter_types[i];
            else if (set->types[i] != parameter_types[i])
                counts = strict_counts = 0; /* no argument type fits both exactly */
        }
        if (takes > set->most_takes) set->most_takes = takes;
    }
    set->counts = counts;
    set->strict_counts = strict_counts;
    /* Images are for plain handlers: a marshal takes the arguments as values. */
    bool sole = set->count == 1 && !(set->shapes[0].state_flags & (DC__STATE_VARIADIC | DC__STATE_MARSHAL)) &&
                set->shapes[0].signature->word_images;
    set->sole_signature = sole ? set->shapes[0].signature : NULL;
    set->sole_flags = sole ? set->shapes[0].state_flags : 0;
    set->sole_first = (uint32_t)first_argument_parameter(set->sole_flags);
    set->lean_call = lean_call_of(set);
    uint64_t enough = set->most_takes < 64 ? ~(uint64_t)0 << set->most_takes : 0;
    set->lean_counts = set->lean_call != 0 ? counts & enough : 0;
    set->lean_strict_counts = set->lean_call != 0 ? strict_counts & enough : 0;
}

/* Counts one more handler of the given shape, publishing a new set when the
 * shape is new. Publish before the handler itself, so a reader that sees the
 * handler sees its shape. The set is preallocated by the caller (`spare`). */
static void add_shape(dc_table *table, event_record *record, dc_signature *signature, uint32_t flags,
                      shape_set *spare) {
    shape_set *set = atomic_load_explicit(&record->shapes, memory_order_relaxed);
    handler_shape *shape = find_shape(set, signature, flags);
    if (shape != NULL) {
        shape->handlers++;
        free(spare);
        return;
    }
    size_t first = (flags & DC__STATE_TARGET) ? 1 : 0;
    size_t takes = signature->parameter_count - first;
    spare->shapes[spare->count++] = (handler_shape){signature, flags, 1, (uint32_t)takes};
    summarize_shapes(spare);
    atomic_store_explicit(&record->shapes, spare, memory_order_release);
    if (set != NULL) retire(table, set, free_shape_set);
}

/* Counts one handler fewer; a shape with no handler left is dropped so it no
 * longer constrains executes. Publish after the handler is marked removed. */
static void remove_shape(dc_table *table, event_record *record, const dc_signature *signature, uint32_t flags) {
    shape_set *set = atomic_load_explicit(&record->shapes, memory_order_relaxed);
    handler_shape *shape = find_shape(set, signature, flags);
    if (shape == NULL || --shape->handlers > 0) return;
    shape_set *smaller = copy_shapes(NULL, set->count);
    if (smaller == NULL) return; /* keeps checking a shape with no handler: stricter, never unsafe */
    for (uint32_t i = 0; i < set->count; i++)
        if (set->shapes[i].handlers > 0) smaller->shapes[smaller->count++] = set->shapes[i];
    summarize_shapes(smaller);
    atomic_store_explicit(&record->shapes, smaller, memory_order_release);
    retire(table, set, free_shape_set);
}

/* ---- dedupe index ------------------------------------------------------------------------------ */

/* Starts the probe of (event, function, target) at its home entry. */
static uint32_t dedupe_home(const dedupe_index *index, dc_event_id event, dc_function function, const void *target,
                            uint8_t *tag) {
    uint32_t hash = dedupe_hash(event, function, target);
    *tag = (uint8_t)(hash >> 24);
    return hash & index->mask;
}

static dc_handler *find_duplicate(dc_table *table, dc_event_id event, dc_function function, const void *target) {
    const dedupe_index *index = &table->dedupe;
    uint8_t tag;
    for (uint32_t i = dedupe_home(index, event, function, target, &tag); index->slots[i] != 0;
         i = (i + 1) & index->mask) {
        if (index->tags[i] != tag) continue;
        dc_handler *handler = handler_at(table, index->slots[i] - 1);
        uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
        if (handler->event == event && handler->function == function && handler->target == target &&
            !(state & (DC__STATE_REMOVED | DC__STATE_FIRED)))
            return handler;
    }
    return NULL;
}

static void dedupe_insert(dedupe_index *index, const dc_handler *handler) {
    uint8_t tag;
    uint32_t i = dedupe_home(index, handler->event, handler->function, handler->target, &tag);
    while (index->slots[i] != 0) i = (i + 1) & index->mask;
    index->slots[i] = handler->slot + 1;
    index->tags[i] = tag;
    index->indexed++;
}

static bool dedupe_spare_new(const dedupe_index *index, uint32_t adding, dedupe_index *spare) {
    uint64_t wanted = DEDUPE_INITIAL_ENTRIES;
    while (wanted < ((uint64_t)index->indexed + adding) * 4) wanted *= 2;
    return wanted <= ((uint64_t)1 << 31) && new_dedupe_index(spare, (uint32_t)wanted);
}

/* The index the table needs with `adding` more handlers (0 or 1): NULL
 * `slots` when the current one does; else a new one, sized so that its live
 * handlers fill a quarter, when the current one would be over half full or
 * holds three times as many removed handlers as live ones (dropping them
 * costs a pass over the index, and putting the live ones back a third of an
 * insertion per removal). False when there is no memory for it. */
static inline bool dedupe_spare(const dedupe_index *index, uint32_t adding, dedupe_index *spare) {
    spare->slots = NULL;
    uint64_t used = (uint64_t)index->indexed + index->stale + adding;
    if (used <= ((uint64_t)index->mask + 1) / 2 && (index->stale <= 64 || index->stale <= 3 * (uint64_t)index->indexed))
        return true;
    return dedupe_spare_new(index, adding, spare);
}


/* One handler of the index during a rebuild: into `spare` when live, out
 * when removed. */
static void rebuild_entry(dc_table *table, dc_handler *handler, dedupe_index *spare) {
    if (atomic_load_explicit(&handler->state, memory_order_relaxed) & DC__STATE_REMOVED) {
        if (mark_removed_handler(handler, DC__STATE_UNINDEXED)) retire_slot(table, handler);
    } else {
        dedupe_insert(spare, handler);
    }
}

/* Moves the live handlers to `spare`, which becomes the index; the removed
 * ones are out. When the index holds most of the table's handlers, it visits
 * them in the order of their slots, which follows memory; otherwise in the
 * order of its entries, which costs what the index holds. */
static void dedupe_rebuild(dc_table *table, dedupe_index *spare) {
    dedupe_index *index = &table->dedupe;
    if (((uint64_t)index->indexed + index->stale) * 2 >= table->slot_count) {
        for (uint32_t slot = 0; slot < table->slot_count; slot++) {
            dc_handler *handler = handler_at(table, slot);
            if (handler->signature != NULL &&
                !(atomic_load_explicit(&handler->state, memory_order_relaxed) & DC__STATE_UNINDEXED))
                rebuild_entry(table, handler, spare);
        }
    } else {
        for (uint32_t i = 0; i <= index->mask; i++) {
            if (i + 16 <= index->mask && index->slots[i + 16] != 0)
                PREFETCH(handler_at(table, index->slots[i + 16] - 1));
            if (index->slots[i] != 0) rebuild_entry(table, handler_at(table, index->slots[i] - 1), spare);
        }
    }
    free(index->slots);
    *index = *spare;
}

/* ---- registering -------------------------------------------------------------------------------- */

/* A free slot, fresh or reused; UINT32_MAX when memory is short. */
static uint32_t take_slot(dc_table *table) {
    if (table->free_slots != 0) {
        uint32_t slot = table->free_slots - 1;
        table->free_slots = handler_at(table, slot)->next;
        return slot;
    }
    if (table->slot_count == UINT32_MAX) return UINT32_MAX;
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
    handler_at(table, slot)->next = table->free_slots;
    table->free_slots = slot + 1;
}

/* The handler flags, checked with what they apply to: a Swift call is a
 * marshal with a signature returning void, on a compiler that can make it. */
static dc_status check_options(const dc_handler_options *options, bool marshal, bool variadic,
                               const dc_signature *signature) {
    const uint32_t known = DC_HANDLER_ONCE | DC_HANDLER_FIRST | DC_HANDLER_STRICT | DC_HANDLER_OWNS_TARGET |
                           DC_HANDLER_ALLOW_DUPLICATE | DC_HANDLER_SWIFT_CALL;
    if (options == NULL) return DC_OK;
    if (options->flags & ~known)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_add: unknown handler flags 0x%x", options->flags & ~known);
    if (!(options->flags & DC_HANDLER_SWIFT_CALL)) return DC_OK;
    if (!marshal)
        return dc__fail(DC_ERR_INVALID_ARGUMENT,
                        "dc_table_add: DC_HANDLER_SWIFT_CALL is for marshals (dc_table_add_marshal)");
    if (variadic)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_add_marshal: DC_HANDLER_SWIFT_CALL needs a signature");
    if (signature->return_type != DC_TYPE_VOID)
        return dc__fail(DC_ERR_INVALID_ARGUMENT,
                        "dc_table_add_marshal: a DC_HANDLER_SWIFT_CALL marshal returns void, not %s (\"%s\")",
                        dc_type_name(signature->return_type), signature->encoding);
    if (!SWIFT_CALLS)
        return dc__fail(DC_ERR_UNSUPPORTED,
                        "dc_table_add_marshal: DC_HANDLER_SWIFT_CALL needs a library built by clang for x86-64 or "
                        "AArch64");
    return DC_OK;
}

static dc_status check_target(const dc_table *table, const char *event, const dc_signature *signature,
                              const void *target) {
    if (target == NULL) return DC_OK;
    if (signature->parameter_count == 0)
        return dc__fail(DC_ERR_TYPE,
                        "table %s, event \"%s\": a bound target needs parameter 0, but signature \"%s\" has none",
                        display_name(table), event, signature->encoding);
    if (!dc__is_pointer_like(signature->parameter_types[0]))
        return dc__fail(DC_ERR_TYPE,
                        "table %s, event \"%s\": a bound target is passed as parameter 0, which is %s in signature "
                        "\"%s\" (expected object, pointer or string)",
                        display_name(table), event, dc_type_name(signature->parameter_types[0]), signature->encoding);
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
    bool indexed = !(flags & DC_HANDLER_ALLOW_DUPLICATE);
    dc_handler *duplicate = indexed ? find_duplicate(table, record->id, function, target) : NULL;
    if (duplicate != NULL) {
        if (out != NULL) *out = id_of(duplicate);
        return DC_EXISTS;
    }

    bool general = marshal || signature->stub == NULL || signature->return_type != DC_TYPE_VOID;
    uint32_t state = (marshal ? DC__STATE_MARSHAL : target != NULL ? DC__STATE_TARGET : 0) |
                     ((flags & DC_HANDLER_SWIFT_CALL) ? DC__STATE_SWIFT : 0) |
                     (variadic ? DC__STATE_VARIADIC : (flags & DC_HANDLER_STRICT) ? DC__STATE_STRICT : 0) |
                     ((flags & DC_HANDLER_ONCE) ? DC__STATE_ONCE : 0) |
                     ((flags & DC_HANDLER_OWNS_TARGET) && target != NULL ? DC__STATE_OWNS_TARGET : 0) |
                     (options != NULL && options->queue != NULL ? DC__STATE_QUEUED : 0) |
                     (indexed ? 0 : DC__STATE_UNINDEXED) | (general ? DC__STATE_GENERAL : 0);
    bool wants_extras = options != NULL && (options->queue != NULL || options->destroy != NULL);

    /* Everything that can fail is allocated before the table changes. */
    handler_array *array = atomic_load_explicit(&record->handlers, memory_order_relaxed);
    uint32_t count = array != NULL ? atomic_load_explicit(&array->count, memory_order_relaxed) : 0;
    bool needs_new_array = array == NULL || (flags & DC_HANDLER_FIRST) || count == array->capacity;
    handler_array *new_array = needs_new_array ? rebuilt_array(array, NULL, record->live + 1) : NULL;
    shape_set *spare_shapes = copy_shapes(atomic_load_explicit(&record->shapes, memory_order_relaxed), 1);
    handler_extras *extras = wants_extras ? malloc(sizeof *extras) : NULL;
    dedupe_index spare_index = {0};
    bool index_ready = !indexed || dedupe_spare(&table->dedupe, 1, &spare_index);
    uint32_t slot = take_slot(table);
    if ((needs_new_array && new_array == NULL) || spare_shapes == NULL || (wants_extras && extras == NULL) ||
        !index_ready || slot == UINT32_MAX) {
        free(new_array), free(spare_shapes), free(extras), free(spare_index.slots);
        if (slot != UINT32_MAX) give_back_slot(table, slot);
        return dc__fail(DC_ERR_NO_MEMORY, "table %s: no memory to add a handler for \"%s\"", display_name(table),
                        record->name);
    }

    /* Before the new handler is in its slot: a rebuild visits slots. */
    if (spare_index.slots != NULL) dedupe_rebuild(table, &spare_index);
    dc_handler *handler = handler_at(table, slot);
    handler->function = function;
    handler->signature = dc_signature_retain(signature);
    handler->target = target;
    handler->event = record->id;
    handler->generation++;
    handler->slot = slot;
    handler->extras = extras;
    if (extras != NULL) {
        extras->queue = options->queue;
        extras->destroy = options->destroy;
        extras->destroy_data = options->destroy_data;
        if (extras->queue != NULL) dc__queue_retain(extras->queue);
    }
    atomic_store_explicit(&handler->state, state, memory_order_relaxed);

    add_shape(table, record, signature, shape_flags(state), spare_shapes);
    if (flags & DC_HANDLER_FIRST) {
        /* rebuilt_array copied the old order; put the new handler in front. */
        uint32_t live = atomic_load_explicit(&new_array->count, memory_order_relaxed);
        memmove(&new_array->items[1], &new_array->items[0], live * sizeof new_array->items[0]);
        atomic_init(&new_array->items[0], handler);
        atomic_init(&new_array->count, live + 1);
        publish_array(table, record, new_array);
    } else if (new_array != NULL) {
        uint32_t live = atomic_load_explicit(&new_array->count, memory_order_relaxed);
        atomic_init(&new_array->items[live], handler);
        atomic_init(&new_array->count, live + 1);
        publish_array(table, record, new_array);
    } else {
        handler->position = count;
        atomic_store_explicit(&array->items[count], handler, memory_order_relaxed);
        atomic_store_explicit(&array->count, count + 1, memory_order_release);
    }

    record->live++;
    if (indexed) dedupe_insert(&table->dedupe, handler);
    if (out != NULL) *out = ((uint64_t)handler->generation << 32) | slot;
    return DC_OK;
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
    if (status != DC_OK) return status;
    pthread_mutex_lock(&table->lock);
    event_record *record = NULL;
    if (atomic_load_explicit(&table->destroy_called, memory_order_relaxed)) {
        status = dc__fail(DC_ERR_STATE, "table %s is being destroyed: no handler can be added", display_name(table));
    } else if (event != NULL) {
        /* The target is checked before a new event is interned: a refused add
         * changes nothing. */
        if (!marshal) status = check_target(table, event, signature, target);
        if (status == DC_OK) status = intern_locked(table, event, &record);
    } else if ((record = record_by_id(table, event_id)) == NULL) {
        status = dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id %u", display_name(table), event_id);
    } else if (!marshal) {
        status = check_target(table, record->name, signature, target);
    }
    if (status == DC_OK) status = add_locked(table, record, signature, function, target, marshal, variadic, options, out);
    if (status == DC_OK) reclaim(table);
    pthread_mutex_unlock(&table->lock);
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
 *      the tombstone in its array entry;
 *   2. without it (finish_removal): drop queued deliveries, wait for calls
 *      already running elsewhere, or hand the handler's finishing over to
 *      the threads running them (dc__wait_for_calls());
 *   3. once no call runs (finish_handlers): mark it finished, then call the
 *      destroy notify and release an owned target.
 * A removed handler stays in the duplicate index until a rebuild drops the
 * removed ones together, once they are three times the live ones: a removal
 * then touches no entry of the index (with a million handlers, each would
 * be a cache miss). Its slot is retired once it is out of the index and
 * finished (mark_removed_handler()). Every step is O(1) amortized.
 * Handlers go in batches, so that removing many needs no memory: a batch is
 * one lock hold of step 1.
 */
enum { REMOVAL_BATCH = 64 };

typedef struct removal_batch {
    size_t count;
    dc_handler *handlers[REMOVAL_BATCH];
    /* Matches whose removal another thread has begun and not finished: a
     * remove by target, event or all waits for their calls too, so that its
     * caller may free what they use once it returns. */
    size_t others_count;
    dc_handler *others[REMOVAL_BATCH];
} removal_batch;

/* Step 1 for one handler. Caller holds the lock. */
static void unlink_handler(dc_table *table, dc_handler *handler, removal_batch *batch) {
    uint32_t state = atomic_fetch_or_explicit(&handler->state, DC__STATE_REMOVED, memory_order_seq_cst);
    event_record *record = record_by_id(table, handler->event);
    remove_shape(table, record, handler->signature, shape_flags(state));
    record->live--;
    handler_array *array = atomic_load_explicit(&record->handlers, memory_order_relaxed);
    atomic_store_explicit(&array->items[handler->position], &tombstone, memory_order_release);
    mark_removed_handler(handler, DC__STATE_UNLISTED); /* not yet finished: completes nothing */
    /* Compacting once tombstones outnumber live handlers costs O(1) per
     * removal; failing to is harmless (the next removal tries again). */
    if (++record->tombstones > 8 && record->tombstones > record->live) {
        handler_array *compact = rebuilt_array(array, NULL, record->live);
        if (compact != NULL) publish_array(table, record, compact);
    }
    if (!(state & DC__STATE_UNINDEXED)) {
        dedupe_index *index = &table->dedupe, spare;
        index->indexed--;
        index->stale++;
        if (dedupe_spare(index, 0, &spare) && spare.slots != NULL) dedupe_rebuild(table, &spare);
    }
    batch->handlers[batch->count++] = handler;
}

/* Step 3 for handlers no call of which runs any more. What it calls out to
 * may destroy the table (dc_table_destroy() waits for the removal's end, but
 * the finishing of a handed-over handler happens anywhere), so it reads
 * nothing of the table after the callouts start. The lock is taken only to
 * retire a slot this completes (mark_removed_handler()): no reader or writer
 * touches what it reads before that. */
static void finish_handlers(dc_table *table, dc_handler *const *handlers, size_t count) {
    struct callout {
        void (*destroy)(void *destroy_data);
        void *destroy_data;
        void *owned_target;
    } callouts[REMOVAL_BATCH];
    dc_handler *completed[REMOVAL_BATCH];
    size_t completed_count = 0;
    void (*release)(void *object) = table->callbacks.release;
    for (size_t i = 0; i < count; i++) {
        dc_handler *handler = handlers[i];
        handler_extras *extras = handler->extras;
        uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
        callouts[i] = (struct callout){extras != NULL ? extras->destroy : NULL,
                                       extras != NULL ? extras->destroy_data : NULL,
                                       (state & DC__STATE_OWNS_TARGET) ? handler->target : NULL};
        if (extras != NULL && extras->queue != NULL) {
            dc__queue_release(extras->queue);
            extras->queue = NULL;
        }
        if (mark_removed_handler(handler, DC__STATE_FINISHED)) completed[completed_count++] = handler;
    }
    if (completed_count > 0) {
        pthread_mutex_lock(&table->lock);
        for (size_t i = 0; i < completed_count; i++) retire_slot(table, completed[i]);
        reclaim(table);
        pthread_mutex_unlock(&table->lock);
    }
    for (size_t i = 0; i < count; i++) {
        if (callouts[i].destroy != NULL) callouts[i].destroy(callouts[i].destroy_data);
        if (callouts[i].owned_target != NULL && release != NULL) release(callouts[i].owned_target);
    }
}

/* Step 3 for a handler handed over by dc__wait_for_calls(). */
static void finish_handed_over(void *table, void *handler) {
    dc_handler *const handlers[1] = {handler};
    finish_handlers(table, handlers, 1);
}

/* Steps 2 and 3 for a batch. The caller must not hold the lock. */
static void finish_removal(dc_table *table, removal_batch *batch) {
    if (batch->count == 0 && batch->others_count == 0) return;
    dc__heavy_fence();
    /* Only their addresses: their slots may be reused meanwhile, which costs
     * a wait for another handler's calls at most. */
    for (size_t i = 0; i < batch->others_count; i++) dc__wait_for_calls(batch->others[i], NULL, NULL);
    size_t waited = 0;
    for (size_t i = 0; i < batch->count; i++) {
        dc_handler *handler = batch->handlers[i];
        /* Set when it was added; it stays until the slot is reclaimed. */
        handler_extras *extras = handler->extras;
        if (extras != NULL && extras->queue != NULL) dc__queue_purge(extras->queue, handler);
        if (dc__wait_for_calls(handler, finish_handed_over, table)) batch->handlers[waited++] = handler;
    }
    finish_handlers(table, batch->handlers, waited);
}

DC_API dc_status dc_table_remove(dc_table *table, dc_handler_id id) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_remove: the table must not be NULL");
    removal_batch batch;
    batch.count = batch.others_count = 0;
    pthread_mutex_lock(&table->lock);
    dc_handler *handler = find_handler(table, id);
    if (handler != NULL) {
        unlink_handler(table, handler, &batch);
        reclaim(table);
    }
    pthread_mutex_unlock(&table->lock);
    if (handler == NULL)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no handler with id %llu", display_name(table),
                        (unsigned long long)id);
    dc__finishing_begin();
    finish_removal(table, &batch);
    dc__finishing_end();
    return DC_OK;
}

/* Removes every live handler for which `matches` holds, a batch at a time;
 * what the batches' destroy notifies add on the way may go too. */
static size_t remove_where(dc_table *table, bool (*matches)(const dc_handler *, const void *), const void *context) {
    size_t removed = 0;
    dc__finishing_begin();
    for (uint32_t slot = 0;;) {
        removal_batch batch;
        batch.count = batch.others_count = 0;
        pthread_mutex_lock(&table->lock);
        for (; slot < table->slot_count && batch.count < REMOVAL_BATCH && batch.others_count < REMOVAL_BATCH;
             slot++) {
            dc_handler *handler = handler_at(table, slot);
            uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
            if (handler->signature == NULL || (state & DC__STATE_FINISHED) || !matches(handler, context)) continue;
            if (state & DC__STATE_REMOVED)
                batch.others[batch.others_count++] = handler;
            else
                unlink_handler(table, handler, &batch);
        }
        bool more = slot < table->slot_count;
        reclaim(table);
        pthread_mutex_unlock(&table->lock);
        removed += batch.count;
        finish_removal(table, &batch);
        if (!more) break;
    }
    dc__finishing_end();
    return removed;
}

static bool has_target(const dc_handler *handler, const void *target) { return handler->target == target; }
static bool has_event(const dc_handler *handler, const void *event) {
    return handler->event == *(const dc_event_id *)event;
}
static bool any_handler(const dc_handler *handler, const void *context) {
    (void)handler, (void)context;
    return true;
}

DC_API dc_status dc_table_remove_target(dc_table *table, void *target, size_t *removed) {
    if (table == NULL || target == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_remove_target: table and target must not be NULL");
    size_t count = remove_where(table, has_target, target);
    if (removed != NULL) *removed = count;
    return DC_OK;
}

DC_API dc_status dc_table_remove_event_id(dc_table *table, dc_event_id event, size_t *removed) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_remove_event_id: the table must not be NULL");
    pthread_mutex_lock(&table->lock);
    bool known = record_by_id(table, event) != NULL;
    pthread_mutex_unlock(&table->lock);
    if (!known) return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id %u", display_name(table), event);
    size_t count = remove_where(table, has_event, &event);
    if (removed != NULL) *removed = count;
    return DC_OK;
}

DC_API dc_status dc_table_remove_event(dc_table *table, const char *event, size_t *removed) {
    if (table == NULL || event == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_remove_event: table and event must not be NULL");
    size_t length = strlen(event);
    pthread_mutex_lock(&table->lock);
    event_record *record = record_by_name(table, event, length, hash_name(event, length));
    pthread_mutex_unlock(&table->lock);
    size_t count = record != NULL ? remove_where(table, has_event, &record->id) : 0;
    if (removed != NULL) *removed = count;
    return DC_OK;
}

DC_API dc_status dc_table_remove_all(dc_table *table, size_t *removed) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_remove_all: the table must not be NULL");
    size_t count = remove_where(table, any_handler, NULL);
    if (removed != NULL) *removed = count;
    return DC_OK;
}

/* Removes a once-handler after its run (or its dropped delivery). */
void dc__table_remove_handler(dc_table *table, dc_handler *handler) {
    removal_batch batch;
    batch.count = batch.others_count = 0;
    pthread_mutex_lock(&table->lock);
    if (!(atomic_load_explicit(&handler->state, memory_order_relaxed) & DC__STATE_REMOVED)) {
        unlink_handler(table, handler, &batch);
        reclaim(table);
    }
    pthread_mutex_unlock(&table->lock);
    dc__finishing_begin();
    finish_removal(table, &batch);
    dc__finishing_end();
}

/* ---- blocking --------------------------------------------------------------------------------------- */

/* Adds `delta` (+1 or -1) to a handler's block count, within its bounds;
 * writes the handler to *out. */
static dc_status change_block_count(dc_table *table, dc_handler_id id, int delta, dc_handler **out) {
    if (table == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_%s: the table must not be NULL", delta > 0 ? "block" : "unblock");
    pthread_mutex_lock(&table->lock);
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
    pthread_mutex_unlock(&table->lock);
    *out = handler;
    return status;
}

DC_API dc_status dc_table_block(dc_table *table, dc_handler_id id) {
    dc_handler *handler;
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

/* ---- introspection ------------------------------------------------------------------------------------ */

DC_API bool dc_table_contains(const dc_table *table, dc_handler_id id) {
    if (table == NULL || id == 0) return false;
    dc_table *mutable_table = (dc_table *)table;
    pthread_mutex_lock(&mutable_table->lock);
    bool found = find_handler(table, id) != NULL;
    pthread_mutex_unlock(&mutable_table->lock);
    return found;
}

/* Live handlers of the event named by id, or by name when id is 0; -1 for an
 * unknown id. */
static long long live_count(const dc_table *table, dc_event_id id, const char *name) {
    dc_table *mutable_table = (dc_table *)table;
    pthread_mutex_lock(&mutable_table->lock);
    const event_record *record = lookup_event(table, id, name);
    long long live = record != NULL ? (long long)record->live : id != 0 ? -1 : 0;
    pthread_mutex_unlock(&mutable_table->lock);
    return live;
}

DC_API dc_status dc_table_handler_count(const dc_table *table, const char *event, size_t *out) {
    if (table == NULL || event == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_handler_count: table, event and out must not be NULL");
    *out = (size_t)live_count(table, 0, event);
    return DC_OK;
}

DC_API dc_status dc_table_handler_count_id(const dc_table *table, dc_event_id event, size_t *out) {
    if (table == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_handler_count_id: table and out must not be NULL");
    long long live = event != 0 ? live_count(table, event, NULL) : -1;
    if (live < 0) return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id %u", display_name(table), event);
    *out = (size_t)live;
    return DC_OK;
}

DC_API dc_status dc_table_events(const dc_table *table, const char **names, size_t capacity, size_t *count) {
    if (table == NULL || count == NULL || (names == NULL && capacity > 0))
        return dc__fail(DC_ERR_NULL_ARGUMENT,
                        "dc_table_events: table, count, and names when capacity > 0, must not be NULL");
    dc_table *mutable_table = (dc_table *)table;
    pthread_mutex_lock(&mutable_table->lock);
    event_list *events = atomic_load_explicit(&table->events, memory_order_relaxed);
    uint32_t event_count = atomic_load_explicit(&events->count, memory_order_relaxed);
    size_t found = 0;
    for (uint32_t i = 0; i < event_count; i++) {
        if (events->records[i]->live == 0) continue;
        if (found < capacity) names[found] = events->records[i]->name;
        found++;
    }
    pthread_mutex_unlock(&mutable_table->lock);
    *count = found;
    return DC_OK;
}

/* ---- executing ------------------------------------------------------------------------------------------ */

/* What one execute needs as it goes. */
typedef struct execution {
    dc_table *table;
    const event_record *record;
    const dc_value *arguments;
    size_t count;
    const dc_execute_options *options;
    bool exact; /* the arguments have exactly the types every shape takes */
    dc_result result;
} execution;

/* The register images of one handler shape's call, computed once per execute
 * and shared by every handler of that shape (the target is patched in). */
typedef struct call_images {
    const dc_signature *signature; /* NULL: none computed yet */
    uint32_t flags;
    uint64_t integers[DC_STUB_MAX_INTEGERS];
    double floats[DC_STUB_MAX_FLOATS];
} call_images;

/* The id of a live handler of `shape` in the snapshot, for messages only.
 * Inside the read-side section, like everything it reads. */
static dc_handler_id example_handler(const handler_array *array, uint32_t count, const handler_shape *shape) {
    for (uint32_t i = 0; i < count; i++) {
        dc_handler *handler = atomic_load_explicit(&array->items[i], memory_order_relaxed);
        uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
        if (!(state & DC__STATE_REMOVED) && handler->signature == shape->signature &&
            shape_flags(state) == shape->state_flags)
            return id_of(handler);
    }
    return 0;
}

static bool is_strict(const execution *run, const handler_shape *shape) {
    if (shape->state_flags & DC__STATE_VARIADIC) return false;
    return (shape->state_flags & DC__STATE_STRICT) || (run->options->flags & DC_EXECUTE_STRICT);
}

/* Checks the arguments against one handler shape, with messages: arity when
 * strict, and that every argument the shape takes fits its parameter. */
COLD static dc_status check_shape(const execution *run, const handler_shape *shape, const handler_array *array,
                             uint32_t count) {
    const dc_signature *signature = shape->signature;
    size_t first = first_argument_parameter(shape->state_flags);
    if (is_strict(run, shape) && shape->takes != run->count)
        return dc__fail(DC_ERR_ARITY,
                        "table %s, event \"%s\", handler %llu: takes %u arguments (signature \"%s\"%s), %zu given",
                        display_name(run->table), run->record->name,
                        (unsigned long long)example_handler(array, count, shape), shape->takes,
                        signature->encoding, first ? " after its target" : "", run->count);
    size_t used = shape->takes < run->count ? shape->takes : run->count;
    for (size_t i = 0; i < used; i++) {
        dc_type type = signature->parameter_types[first + i];
        dc_value converted;
        if (run->arguments[i].type == type) continue;
        if (dc_value_convert(&run->arguments[i], type, &converted) != DC_OK) {
            char reason[256];
            snprintf(reason, sizeof reason, "%s", dc_last_error_message());
            return dc__fail(DC_ERR_TYPE, "table %s, event \"%s\", handler %llu, argument %zu: %s",
                            display_name(run->table), run->record->name,
                            (unsigned long long)example_handler(array, count, shape), i, reason);
        }
    }
    return DC_OK;
}

/* The common case, without conversions or messages: the arguments a shape
 * takes have exactly its parameter types (and, when strict, there are exactly
 * that many). */
static bool shape_matches_exactly(const execution *run, const handler_shape *shape) {
    if (is_strict(run, shape) && shape->takes != run->count) return false;
    size_t used = shape->takes < run->count ? shape->takes : run->count;
    const dc_type *types = shape->signature->parameter_types + first_argument_parameter(shape->state_flags);
    for (size_t i = 0; i < used; i++)
        if (run->arguments[i].type != types[i]) return false;
    return true;
}

/* What shape_matches_exactly() says of every shape at once, from the set's
 * summary: the counts strictness demands, and each argument's type. False
 * leaves the answer to the check of each shape. */
ALWAYS_INLINE static inline bool arguments_fit_summary(const execution *run, const shape_set *shapes, bool strict,
                                                      call_images *images) {
    size_t count = run->count;
    uint64_t counts = strict ? shapes->strict_counts : shapes->counts;
    if (!LIKELY(count < 64 && ((counts >> count) & 1))) return false;
    size_t used = count < shapes->most_takes ? count : shapes->most_takes;
    const dc_value *arguments = run->arguments;
    if (shapes->sole_signature != NULL) {
        /* The images of the sole shape, as fill_images would compute them. */
        uint64_t *integers = images->integers + shapes->sole_first;
        for (size_t i = 0; i < used; i++) {
            if (arguments[i].type != (dc_type)shapes->types[i]) return false;
            integers[i] = arguments[i].u64;
        }
        for (size_t i = used; i < shapes->most_takes; i++) integers[i] = 0; /* missing trailing arguments */
        images->signature = shapes->sole_signature;
        images->flags = shapes->sole_flags;
        return true;
    }
    for (size_t i = 0; i < used; i++)
        if (arguments[i].type != (dc_type)shapes->types[i]) return false;
    return true;
}

/* Every shape fits, or the error of the first that does not. */
NOINLINE static dc_status check_each_shape(const execution *run, const shape_set *shapes, const handler_array *array,
                                           uint32_t count) {
    for (uint32_t i = 0; i < shapes->count; i++) {
        if (LIKELY(shape_matches_exactly(run, &shapes->shapes[i]))) continue;
        dc_status status = check_shape(run, &shapes->shapes[i], array, count);
        if (status != DC_OK) return status;
    }
    return DC_OK;
}

/* check_each_shape, after the summary's quick answer for the common case,
 * which it records in run->exact. */
ALWAYS_INLINE static inline dc_status check_arguments(execution *run, const handler_array *array, uint32_t count,
                                                      bool strict, call_images *images) {
    const shape_set *shapes = atomic_load_explicit(&run->record->shapes, memory_order_acquire);
    run->exact = arguments_fit_summary(run, shapes, strict, images);
    if (LIKELY(run->exact)) return DC_OK;
    return check_each_shape(run, shapes, array, count);
}

/* One parameter's value from the arguments: converted (checked already, so it
 * succeeds) or zero when the event carries too few. */
static dc_value parameter_value(const dc_value *arguments, size_t count, size_t argument, dc_type type) {
    dc_value value;
    if (argument < count && arguments[argument].type == type && type != DC_TYPE_BOOL) return arguments[argument];
    value.u64 = 0;
    value.type = type;
    if (argument < count) dc_value_convert(&arguments[argument], type, &value);
    return value;
}

/* All parameter values of one handler's call, the bound target first. */
static void handler_arguments(const dc_handler *handler, uint32_t state, const dc_value *arguments, size_t count,
                              dc_value *out) {
    const dc_signature *signature = handler->signature;
    size_t first = first_argument_parameter(state);
    if (first) {
        /* check_target made sure parameter 0 is pointer-like. */
        out[0].u64 = 0;
        out[0].type = signature->parameter_types[0];
        if (out[0].type == DC_TYPE_STRING)
            out[0].string = handler->target;
        else
            out[0].pointer = handler->target;
    }
    for (size_t p = first; p < signature->parameter_count; p++)
        out[p] = parameter_value(arguments, count, p - first, signature->parameter_types[p]);
}

/* Calls a marshal handler with `count` values; returns what it returned
 * (dc_void() for void). Only a variadic marshal chooses its result's type. */
static dc_value call_marshal(const dc_handler *handler, uint32_t state, const dc_value *values, size_t count) {
#if SWIFT_CALLS
    if (state & DC__STATE_SWIFT) { /* its signature returns void */
        dc__call_swift(handler, values, handler->signature->parameter_count > 0);
        return dc_void();
    }
#endif
    dc_value result;
    result.u64 = 0;
    result.type = handler->signature->return_type;
    ((dc_marshal)handler->function)(handler->target, values, count, &result);
    /* A marshal may say it returned nothing (DC_TYPE_VOID); otherwise only a
     * variadic one chooses the type. */
    if (result.type == DC_TYPE_VOID) return result;
    if (!(state & DC__STATE_VARIADIC) || (unsigned)result.type >= DC_TYPE_COUNT)
        result.type = (state & DC__STATE_VARIADIC) ? DC_TYPE_VOID : handler->signature->return_type;
    return result;
}

/* Calls `handler` with its parameter values; returns its return value. */
static dc_value call_with_values(const dc_handler *handler, uint32_t state, dc_value *values, size_t count) {
    if (state & DC__STATE_MARSHAL) return call_marshal(handler, state, values, count);
    const dc_signature *signature = handler->signature;
    dc_raw_return raw_result, *raw = &raw_result;
    raw->integer = 0;
    if (signature->stub != NULL) {
        uint64_t integers[DC_STUB_MAX_INTEGERS];
        double floats[DC_STUB_MAX_FLOATS];
        for (size_t p = 0; p < signature->parameter_count; p++)
            dc__store_register_image(signature, integers, floats, p, &values[p]);
        dc__stub_call(signature->return_class, signature->stub, handler->function, integers, floats, raw);
    } else {
        void *pointers[DC_MAX_PARAMETERS];
        for (size_t p = 0; p < signature->parameter_count; p++) pointers[p] = &values[p].u64;
        ffi_call((ffi_cif *)&signature->cif, handler->function, raw, pointers);
    }
    return dc__return_value(signature, raw);
}

COLD static void accumulate(execution *run, dc_value value, bool *stop) {
    dc_result *result = &run->result;
    switch (run->options->accumulator) {
    case DC_ACCUMULATE_FIRST:
        if (!result->has_return_value) result->return_value = value, result->has_return_value = true;
        break;
    case DC_ACCUMULATE_ALL:
        if (result->return_count < run->options->results_capacity)
            run->options->results[result->return_count] = value;
        if (!result->has_return_value) result->return_value = value, result->has_return_value = true;
        break;
    case DC_ACCUMULATE_TRUE_HANDLED:
        result->return_value = value, result->has_return_value = true;
        if (value.type == DC_TYPE_BOOL && value.u8 != 0) *stop = true;
        break;
    default: /* DC_ACCUMULATE_LAST */
        result->return_value = value, result->has_return_value = true;
        break;
    }
    result->return_count++;
}

/* Calls a marshal with the arguments converted to its parameter types. */
COLD static dc_value call_marshal_converting(const execution *run, const dc_handler *handler, uint32_t state) {
    dc_value converted[DC_MAX_PARAMETERS];
    handler_arguments(handler, state, run->arguments, run->count, converted);
    return call_marshal(handler, state, converted, handler->signature->parameter_count);
}

/* True when the event's arguments can be handed to a marshal as they are:
 * at least as many as its parameters, each of exactly the parameter's type. */
static bool arguments_are_parameters(const execution *run, const dc_signature *signature) {
    if (run->count < signature->parameter_count) return false;
    for (size_t i = 0; i < signature->parameter_count; i++)
        if (run->arguments[i].type != signature->parameter_types[i]) return false;
    return true;
}

/* Fills parameters `from` on, any way their arguments come: missing ones
 * are zero, others converted (check_arguments made sure they convert). */
NOINLINE static void fill_images_from(call_images *images, const dc_signature *signature, size_t first, size_t from,
                                      const dc_value *arguments, size_t count) {
    for (size_t p = from; p < signature->parameter_count; p++) {
        size_t argument = p - first;
        if (LIKELY(argument < count && arguments[argument].type == signature->parameter_types[p])) {
            dc__store_register_image(signature, images->integers, images->floats, p, &arguments[argument]);
        } else {
            dc_value value = parameter_value(arguments, count, argument, signature->parameter_types[p]);
            dc__store_register_image(signature, images->integers, images->floats, p, &value);
        }
    }
}

/* Computes the images of a shape. `exact` says the arguments the shape takes
 * have exactly its parameter types (arguments_fit_summary); then a signature
 * of word images with all its arguments there, the common case, is a plain
 * copy. */
ALWAYS_INLINE static inline void fill_images(call_images *images, const dc_signature *signature, uint32_t flags,
                                             const dc_value *arguments, size_t count, bool exact) {
    images->signature = signature;
    images->flags = flags;
    size_t first = first_argument_parameter(flags);
    if (LIKELY(exact && signature->word_images && signature->parameter_count <= count + first)) {
        for (size_t p = first; p < signature->parameter_count; p++) images->integers[p] = arguments[p - first].u64;
        return;
    }
    fill_images_from(images, signature, first, first, arguments, count);
}

/* Runs one handler the general way: once-handlers, queued ones, libffi.
 * Called between dc__read_calling and dc__read_called. */
COLD static void run_handler_slowly(execution *run, dc_thread_record *reader, dc_handler *handler, uint32_t state,
                               bool *stop) {
    if (state & (DC__STATE_REMOVED | DC__STATE_BLOCK_MASK)) return;
    if (state & DC__STATE_ONCE) {
        uint32_t before = atomic_fetch_or_explicit(&handler->state, DC__STATE_FIRED, memory_order_acq_rel);
        if (before & (DC__STATE_FIRED | DC__STATE_REMOVED)) return;
    }

    dc_value converted[DC_MAX_PARAMETERS];
    dc_value *values = converted;
    size_t count = handler->signature->parameter_count;
    if (state & DC__STATE_VARIADIC) {
        values = (dc_value *)run->arguments;
        count = run->count;
    } else {
        handler_arguments(handler, state, run->arguments, run->count, converted);
    }

    if ((state & DC__STATE_QUEUED) && !dc_queue_is_owner(handler->extras->queue)) {
        dc_status posted = dc__queue_post(handler->extras->queue, run->table, handler, values, count,
                                          first_argument_parameter(state), &run->table->callbacks);
        if (posted == DC_OK) {
            run->result.queued++;
        } else {
            run->result.dropped++;
            if (state & DC__STATE_ONCE) {
                dc__read_called(reader);
                dc__table_remove_handler(run->table, handler);
            }
        }
        return;
    }

    dc_value returned = call_with_values(handler, state, values, count);
    dc__read_called(reader);
    run->result.handled++;
    if (returned.type != DC_TYPE_VOID) accumulate(run, returned, stop);
    if (state & DC__STATE_ONCE) dc__table_remove_handler(run->table, handler);
}

/* Runs one handler that is more than a void stub call: a marshal, one that
 * returns a value, one on libffi, or one whose state needs care. Kept out of
 * run_handlers so its loop stays small. Returns true when the handler's
 * result stops the emission. */
NOINLINE static bool run_handler_generally(execution *run, dc_thread_record *reader, dc_handler *handler,
                                           uint32_t state, call_images *images) {
    bool stop = false;
    const dc_signature *signature = handler->signature;
    if ((state & DC__STATE_SLOW) || (!(state & DC__STATE_MARSHAL) && signature->stub == NULL)) {
        run_handler_slowly(run, reader, handler, state, &stop);
        return stop;
    }
    dc_value returned;
    if (state & DC__STATE_MARSHAL) {
        /* The arguments go as they are when they are exactly the parameters. */
        if (state & DC__STATE_VARIADIC)
            returned = call_marshal(handler, state, run->arguments, run->count);
        else if (LIKELY(arguments_are_parameters(run, signature)))
            returned = call_marshal(handler, state, run->arguments, signature->parameter_count);
        else
            returned = call_marshal_converting(run, handler, state);
    } else {
        if (signature != images->signature || shape_flags(state) != images->flags)
            fill_images(images, signature, shape_flags(state), run->arguments, run->count, run->exact);
        if (state & DC__STATE_TARGET) images->integers[0] = (uint64_t)(uintptr_t)handler->target;
        dc_raw_return raw;
        dc__stub_call(signature->return_class, signature->stub, handler->function, images->integers,
                      images->floats, &raw);
        returned = signature->return_type != DC_TYPE_VOID ? dc__return_value(signature, &raw) : dc_void();
    }
    run->result.handled++;
    if (returned.type != DC_TYPE_VOID) accumulate(run, returned, &stop);
    return stop;
}

/* Calls the snapshot's handlers in order until one stops the emission. The
 * loop itself only makes void stub calls, the common handler; the rest goes
 * to run_handler_generally. */
ALWAYS_INLINE static inline void run_handlers_fencing(execution *run, dc_thread_record *reader,
                                                     dc_execute_frame *frame, const dc__handler_slot *item,
                                                     const dc__handler_slot *end, call_images *images,
                                                     bool asymmetric_fences, bool sole_shape) {
    size_t handled = 0; /* by the loop; run_handler_generally counts what it does itself */
    dc_stub sole_stub = sole_shape ? images->signature->stub : NULL;
    for (; item != end; item++) {
        dc_handler *handler = atomic_load_explicit(item, memory_order_acquire);
        uint32_t state = dc__announce_call(frame, handler, asymmetric_fences);
        if (LIKELY(!(state & (DC__STATE_SLOW | DC__STATE_GENERAL)))) {
            /* With a sole shape, every handler still callable has it (see
             * run_handlers), and its images are there. */
            dc_stub stub = sole_stub;
            if (!sole_shape) {
                const dc_signature *signature = handler->signature;
                if (!LIKELY(signature == images->signature && shape_flags(state) == images->flags))
                    fill_images(images, signature, shape_flags(state), run->arguments, run->count, run->exact);
                stub = signature->stub;
            }
            if (state & DC__STATE_TARGET) images->integers[0] = (uint64_t)(uintptr_t)handler->target;
            ((dc_stub_returning_void)stub)(handler->function, images->integers, images->floats);
            handled++;
            if (frame->stopped) break;
        } else {
            bool stop = run_handler_generally(run, reader, handler, state, images);
            atomic_store_explicit(&frame->calling, NULL, memory_order_release);
            if (stop || frame->stopped) break;
        }
    }
    atomic_store_explicit(&frame->calling, NULL, memory_order_release);
    run->result.handled += handled;
}

/*
 * Copies of the loop keep two tests out of it. The kind of fence is fixed
 * before any table exists. And when the arguments were checked against a
 * sole shape, whose images that check computed, every handler of the
 * snapshot that is still callable has that shape: a handler of another shape
 * was in the set published before it was added, and its shape leaves the set
 * only after it was marked removed, which the loop's re-read of its state
 * then sees.
 */
ALWAYS_INLINE static inline void run_handlers(execution *run, dc_thread_record *reader, dc_execute_frame *frame,
                                              const dc__handler_slot *item, const dc__handler_slot *end,
                                              call_images *images) {
    bool sole_shape = images->signature != NULL;
    if (LIKELY(dc__asymmetric_fences)) {
        if (sole_shape)
            run_handlers_fencing(run, reader, frame, item, end, images, true, true);
        else
            run_handlers_fencing(run, reader, frame, item, end, images, true, false);
    } else {
        run_handlers_fencing(run, reader, frame, item, end, images, false, false);
    }
}

static const dc_execute_options default_options = {DC_ACCUMULATE_FIRST, 0, NULL, 0, NULL};

static dc_status check_execute_options(const dc_execute_options *options) {
    const uint32_t known = DC_EXECUTE_REQUIRE_HANDLER | DC_EXECUTE_STRICT;
    if (options->flags & ~known)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_execute: unknown execute flags 0x%x", options->flags & ~known);
    if ((unsigned)options->accumulator > DC_ACCUMULATE_TRUE_HANDLED)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_execute: %d is not a dc_accumulator",
                        (int)options->accumulator);
    if (options->accumulator == DC_ACCUMULATE_ALL && options->results == NULL && options->results_capacity > 0)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_execute: DC_ACCUMULATE_ALL needs results for its capacity");
    return DC_OK;
}

COLD static dc_status fail_lookup(const dc_table *table, dc_event_id event_id, const char *event_name,
                             const event_record *record) {
    if (record == NULL && event_id != 0)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id %u", display_name(table), event_id);
    return dc__fail(DC_ERR_DEPTH, "table %s, event \"%s\": executes nested more than %d deep on this thread",
                    display_name(table), record != NULL ? record->name : event_name, DC_MAX_EXECUTE_DEPTH);
}

/* Leaves an execute begun by execute_generally() or execute_lean(): closes
 * the frame and the read-side section (which runs work the thread owes, such
 * as a destroy called from a handler), then hands out the result. */
ALWAYS_INLINE static inline dc_status leave_execute(execution *run, dc_thread_record *reader, unsigned depth,
                                                    dc_execute_frame *frame, const char *event_name,
                                                    dc_status status, dc_result *result) {
    run->result.stopped = frame->stopped;
    frame->table = NULL;
    /* The message names the table and the event: made inside the section,
     * as the table may be gone once it is left. */
    if (status == DC_OK && (run->options->flags & DC_EXECUTE_REQUIRE_HANDLER) && run->result.handled == 0 &&
        run->result.queued == 0)
        status = dc__fail(DC_ERR_NO_HANDLER, "table %s, event \"%s\": no handler ran", display_name(run->table),
                          run->record != NULL ? run->record->name : event_name);
    dc__read_end_keeping(reader, depth);
    if (status == DC_OK && result != NULL) {
        if (!run->result.has_return_value) run->result.return_value = dc_void();
        *result = run->result;
    }
    return status;
}

/* Every execute the lean one leaves alone: options, errors, libffi, return
 * values, several shapes, conversions. */
NOINLINE static dc_status execute_generally(dc_table *table, dc_event_id event_id, const char *event_name,
                                            const dc_value *arguments, size_t count,
                                            const dc_execute_options *options, dc_result *result) {
    if (event_id == 0 && event_name == NULL)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id 0", display_name(table));
    if (options == NULL) {
        options = &default_options;
    } else {
        dc_status status = check_execute_options(options);
        if (status != DC_OK) return status;
    }
    if (arguments == NULL && count > 0)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute: arguments must not be NULL when count is %zu", count);

    unsigned depth;
    dc_thread_record *reader = dc__read_begin_keeping(&depth);
    if (reader == NULL) return dc__fail(DC_ERR_NO_MEMORY, "dc_table_execute: no memory for this thread's record");
    const event_record *record = lookup_event(table, event_id, event_name);
    if ((record == NULL && event_id != 0) || depth > DC_MAX_EXECUTE_DEPTH) {
        dc_status status = fail_lookup(table, event_id, event_name, record);
        dc__read_end_keeping(reader, depth);
        return status;
    }

    execution run = {table, record, arguments, count, options, false, {0}};
    dc_execute_frame *frame = &reader->frames[depth - 1];
    frame->table = table;
    frame->context = options->context;
    frame->stopped = false;

    /* The snapshot: handlers added from here on wait for the next execute. */
    handler_array *array = record != NULL ? atomic_load_explicit(&record->handlers, memory_order_acquire) : NULL;
    uint32_t handler_count = array != NULL ? atomic_load_explicit(&array->count, memory_order_acquire) : 0;

    /* Check every shape before anything runs: the execute runs whole or fails.
     * The shape set is loaded after the snapshot, so it covers every handler in it. */
    call_images images;
    images.signature = NULL;
    images.flags = 0;
    dc_status status = DC_OK;
    if (handler_count > 0) {
        status = check_arguments(&run, array, handler_count, options->flags & DC_EXECUTE_STRICT, &images);
        if (LIKELY(status == DC_OK))
            run_handlers(&run, reader, frame, array->items, array->items + handler_count, &images);
    }
    return leave_execute(&run, reader, depth, frame, event_name, status, result);
}

/* ---- the lean execute ------------------------------------------------------------------------------------- */

/*
 * The commonest execute, in full with few instructions: handlers of one void
 * shape (lean_call_of()), at least as many arguments as it takes, of exactly
 * its types, options that ask for nothing but strictness. It is
 * execute_generally() with everything known in advance: every handler still
 * callable has the sole shape (see run_handlers), its call images are the
 * arguments' words, and void handlers leave nothing to accumulate. What does
 * not fit is found before any handler runs and goes to execute_generally(),
 * which starts over; a handler in the snapshot that needs more than a call
 * (once, queued) hands the rest of the snapshot to the general loop
 * (dc__finish_generally()). Events of marshals of one void shape take the same
 * steps, calling each marshal as run_handler_generally() does
 * (dc__lean_execute_as(), in dispatch_core_inline.h).
 */

/*
 * A lean execute gives its entry point a dc_brief_result: the status and,
 * for a brief execute, its report (a plain execute ignores the report and
 * writes *result). Passed by value, so on the lean path it stays in
 * registers: kept in memory, its return would load the status and
 * `detailed` together across two stores, which the processor cannot
 * forward (a stall of about 4 ns).
 */

/* The outcome of an execute the general way, which wrote `full`: the report
 * says more than the count when anything but handlers returning nothing
 * happened. */
static dc_brief_result reported(dc_status status, const dc_result *full) {
    bool detailed = full->queued != 0 || full->dropped != 0 || full->return_count != 0 || full->has_return_value ||
                    full->stopped;
    return (dc_brief_result){status, detailed, full->handled};
}

/* The rest of a lean execute's snapshot, from a handler that needs more than
 * a plain call (announced, not called), the general way; then the general
 * execute's end. The images are computed again (the general loop's copy
 * without a sole shape): the arguments fit every shape, as they were checked.
 * `returned`, when not NULL, is the value the handler before `item` returned
 * (a variadic marshal, counted in `handled`): it is accumulated first, as
 * run_handler_generally() would have, and may stop the emission. */
NOINLINE dc_brief_result dc__finish_generally(dc_execute_frame *frame, const dc_value *arguments, size_t count,
                                                 const dc_execute_options *options,
                                                 const dc__handler_slot *item, const dc__handler_slot *end,
                                                 size_t handled, const dc_value *returned, dc_result *result) {
    dc_thread_record *reader = dc__current_record;
    /* record is for messages only, and no message of the rest needs it
     * (DC_EXECUTE_REQUIRE_HANDLER never comes this way). */
    execution run = {frame->table, NULL, arguments, count, options != NULL ? options : &default_options, true, {0}};
    run.result.handled = handled;
    if (returned != NULL) {
        bool stop = false;
        accumulate(&run, *returned, &stop);
        /* As the general loop does after run_handler_generally(). */
        atomic_store_explicit(&frame->calling, NULL, memory_order_release);
        if (stop || frame->stopped) item = end;
    }
    call_images images;
    images.signature = NULL;
    images.flags = 0;
    run_handlers(&run, reader, frame, item, end, &images);
    dc_status status = leave_execute(&run, reader, reader->depth, frame, NULL, DC_OK, result);
    return reported(status, &run.result);
}

/* Options the lean execute takes: valid ones asking for nothing it does not
 * do. Accumulators have nothing to collect from void handlers. */
static inline bool lean_options(const dc_execute_options *options) {
    return options == NULL ||
           ((options->flags & ~(uint32_t)DC_EXECUTE_STRICT) == 0 &&
            (unsigned)options->accumulator <= DC_ACCUMULATE_TRUE_HANDLED &&
            !(options->accumulator == DC_ACCUMULATE_ALL && options->results == NULL && options->results_capacity > 0));
}

#define LEAN_MARSHAL_EXECUTE_CASE(variadic, asymmetric)                                                               \
    case DC__LEAN_MARSHAL_CALL(variadic, asymmetric):                                                                 \
        done = dc__lean_execute_as(true, false, 0, false, variadic, asymmetric, array, handler_count, shapes,         \
                                   arguments, count, options, frame, result, brief, &outcome);                        \
        break;

#if SWIFT_CALLS
#define LEAN_SWIFT_EXECUTE_CASE(values, asymmetric)                                                                   \
    case DC__LEAN_SWIFT_CALL(values, asymmetric):                                                                     \
        done = dc__lean_execute_as(true, true, (values) ? 1 : 0, false, false, asymmetric, array, handler_count,      \
                                   shapes, arguments, count, options, frame, result, brief, &outcome);                \
        break;
#define LEAN_SWIFT_EXECUTE_CASES(asymmetric)                                                                          \
    LEAN_SWIFT_EXECUTE_CASE(false, asymmetric)                                                                        \
    LEAN_SWIFT_EXECUTE_CASE(true, asymmetric)
#else
#define LEAN_SWIFT_EXECUTE_CASES(asymmetric)
#endif

#define LEAN_EXECUTE_CASE(parameters, target, asymmetric)                                                             \
    case DC__LEAN_CALL(parameters, target, asymmetric):                                                               \
        done = dc__lean_execute_as(false, false, parameters, target, false, asymmetric, array, handler_count, shapes, \
                                   arguments, count, options, frame, result, brief, &outcome);                        \
        break;
#define LEAN_EXECUTE_CASES(asymmetric)                                                                                \
    LEAN_EXECUTE_CASE(0, false, asymmetric)                                                                           \
    LEAN_EXECUTE_CASE(1, false, asymmetric)                                                                           \
    LEAN_EXECUTE_CASE(1, true, asymmetric)                                                                            \
    LEAN_EXECUTE_CASE(2, false, asymmetric)                                                                           \
    LEAN_EXECUTE_CASE(2, true, asymmetric)                                                                            \
    LEAN_EXECUTE_CASE(3, false, asymmetric)                                                                           \
    LEAN_EXECUTE_CASE(3, true, asymmetric)                                                                            \
    LEAN_MARSHAL_EXECUTE_CASE(false, asymmetric)                                                                      \
    LEAN_MARSHAL_EXECUTE_CASE(true, asymmetric)                                                                       \
    LEAN_SWIFT_EXECUTE_CASES(asymmetric)

NOINLINE static dc_brief_result execute_generally_briefly(dc_table *table, dc_event_id event_id,
                                                         const char *event_name, const dc_value *arguments,
                                                         size_t count, void *context, dc_result *result) {
    const dc_execute_options with_context = {DC_ACCUMULATE_FIRST, 0, NULL, 0, context};
    dc_result own;
    dc_result *full = result != NULL ? result : &own;
    dc_status status = execute_generally(table, event_id, event_name, arguments, count, &with_context, full);
    if (status != DC_OK) return (dc_brief_result){status, false, 0};
    return reported(status, full);
}

/* execute_generally() for execute_lean(), which may have a context without
 * options and a report to make (a brief execute's): then the default options
 * with that context, and the report of what it wrote, to the caller's result
 * or one of its own. */
ALWAYS_INLINE static inline dc_brief_result execute_lean_generally(dc_table *table, dc_event_id event_id,
                                                                   const char *event_name,
                                                                   const dc_value *arguments, size_t count,
                                                                   const dc_execute_options *options, void *context,
                                                                   dc_result *result, bool brief) {
    if (!brief)
        return (dc_brief_result){
            execute_generally(table, event_id, event_name, arguments, count, options, result), false, 0};
    return execute_generally_briefly(table, event_id, event_name, arguments, count, context, result);
}

/* Inlined into each entry point, so each gets the copy its constant arguments
 * (no options, id or name, brief or not) make smallest. The id 0 goes the
 * general way, which reports it. `context`, with `options` NULL, is the
 * context of the default options. A brief execute reports in the outcome on
 * DC_OK, and writes *result only when the report is detailed (the general
 * way writes it whenever it is not NULL). */
ALWAYS_INLINE static inline dc_brief_result execute_lean(dc_table *table, dc_event_id event_id,
                                                         const char *event_name, const event_record *known,
                                                         const dc_value *arguments, size_t count,
                                                         const dc_execute_options *options, void *context,
                                                         dc_result *result, bool brief) {
    dc_thread_record *reader = dc__current_record;
    if (!LIKELY(reader != NULL && lean_options(options)))
        return execute_lean_generally(table, event_id, event_name, arguments, count, options, context, result,
                                      brief);
    /* dc__read_begin_keeping(), the record known. */
    unsigned depth = reader->depth + 1;
    if (!LIKELY(depth <= DC_MAX_EXECUTE_DEPTH))
        return execute_lean_generally(table, event_id, event_name, arguments, count, options, context, result,
                                      brief);
    dc__read_enter(reader, depth);

    const event_record *record = known != NULL ? known : lookup_event(table, event_id, event_name);
    handler_array *array = record != NULL ? atomic_load_explicit(&record->handlers, memory_order_acquire) : NULL;
    uint32_t handler_count = array != NULL ? atomic_load_explicit(&array->count, memory_order_acquire) : 0;
    if (LIKELY(handler_count > 0)) {
        /* Loaded after the snapshot, so it covers every handler in it. */
        const shape_set *shapes = atomic_load_explicit(&record->shapes, memory_order_acquire);
        uint64_t counts = options != NULL && (options->flags & DC_EXECUTE_STRICT) ? shapes->lean_strict_counts
                                                                                  : shapes->lean_counts;
        /* NULL arguments with a count are the general execute's error to report. */
        if (LIKELY(count < 64 && ((counts >> count) & 1)) && (arguments != NULL || count == 0)) {
            dc_execute_frame *frame = &reader->frames[depth - 1];
            KEEP_IN_REGISTER(frame);
            frame->table = table;
            frame->context = options != NULL ? options->context : context;
            frame->stopped = false;
            bool done = false;
            dc_brief_result outcome;
            switch (shapes->lean_call) {
            LEAN_EXECUTE_CASES(true)
            LEAN_EXECUTE_CASES(false)
            default: UNREACHABLE(); /* lean_counts is 0 unless lean_call is one of these */
            }
            if (LIKELY(done)) return outcome;
            frame->table = NULL;
        }
    }
    dc__read_end_keeping(reader, depth);
    return execute_lean_generally(table, event_id, event_name, arguments, count, options, context, result,
                                      brief);
}

DC_API dc_status dc_table_execute_with(dc_table *table, const char *event, const dc_value *arguments, size_t count,
                                       const dc_execute_options *options, dc_result *result) {
    if (table == NULL || event == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute: table and event must not be NULL");
    return execute_lean(table, 0, event, NULL, arguments, count, options, NULL, result, false).status;
}

DC_API dc_status dc_table_execute_id_with(dc_table *table, dc_event_id event, const dc_value *arguments, size_t count,
                                          const dc_execute_options *options, dc_result *result) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute_id: the table must not be NULL");
    return execute_lean(table, event, NULL, NULL, arguments, count, options, NULL, result, false).status;
}

DC_API dc_status dc_table_execute(dc_table *table, const char *event, const dc_value *arguments, size_t count,
                                  dc_result *result) {
    if (table == NULL || event == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute: table and event must not be NULL");
    return execute_lean(table, 0, event, NULL, arguments, count, NULL, NULL, result, false).status;
}

DC_API dc_status dc_table_execute_id(dc_table *table, dc_event_id event, const dc_value *arguments, size_t count,
                                     dc_result *result) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute_id: the table must not be NULL");
    return execute_lean(table, event, NULL, NULL, arguments, count, NULL, NULL, result, false).status;
}

/* A brief execute. One with no arguments (the Swift layer's `() -> Void`
 * events) takes a copy of the lean execute of its own, which knows that no
 * argument is read: no NULL test, no argument count to look up. Only where
 * Swift calls exist (clang); gcc warns that it cannot prove the NULL unread. */
ALWAYS_INLINE static inline dc_brief_result execute_briefly(dc_table *table, dc_event_id event_id,
                                                            const char *event_name, const event_record *known,
                                                            const dc_value *arguments, size_t count,
                                                            void *context, dc_result *result) {
#if SWIFT_CALLS
    if (count == 0) return execute_lean(table, event_id, event_name, known, NULL, 0, NULL, context, result, true);
#endif
    return execute_lean(table, event_id, event_name, known, arguments, count, NULL, context, result, true);
}

DC_API dc_brief_result dc_table_execute_brief(dc_table *table, const char *event, const dc_value *arguments,
                                              size_t count, void *context, dc_result *result) {
    if (table == NULL || event == NULL)
        return (dc_brief_result){
            dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute_brief: table and event must not be NULL"), false, 0};
    return execute_briefly(table, 0, event, NULL, arguments, count, context, result);
}

DC_API dc_brief_result dc_table_execute_id_brief(dc_table *table, dc_event_id event, const dc_value *arguments,
                                                 size_t count, void *context, dc_result *result) {
    if (table == NULL)
        return (dc_brief_result){
            dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute_id_brief: the table must not be NULL"), false, 0};
    return execute_briefly(table, event, NULL, NULL, arguments, count, context, result);
}

dc_brief_result dc__execute_record_brief(dc_table *table, const event_record *record, const dc_value *arguments,
                                        size_t count, void *context, dc_result *result) {
    return execute_briefly(table, record->id, NULL, record, arguments, count, context, result);
}

DC_API void *dc_table_execute_context(const dc_table *table) {
    dc_thread_record *reader = dc__current_record;
    for (unsigned depth = reader != NULL && table != NULL ? reader->depth : 0; depth > 0; depth--)
        if (reader->frames[depth - 1].table == table) return reader->frames[depth - 1].context;
    return NULL;
}

DC_API dc_status dc_table_stop_emission(dc_table *table) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_stop_emission: the table must not be NULL");
    dc_thread_record *reader = dc__current_record;
    for (unsigned depth = reader != NULL ? reader->depth : 0; depth > 0; depth--) {
        if (reader->frames[depth - 1].table == table) {
            reader->frames[depth - 1].stopped = true;
            return DC_OK;
        }
    }
    return dc__fail(DC_ERR_STATE, "table %s: no execute of it is running on this thread", display_name(table));
}

/* ---- queued deliveries (called by queue.c) ---------------------------------------------------------- */

bool dc__handler_deliverable(const dc_handler *handler) {
    return !(atomic_load_explicit(&handler->state, memory_order_acquire) & (DC__STATE_REMOVED | DC__STATE_BLOCK_MASK));
}

bool dc__handler_deliver(dc_thread_record *reader, dc_table *table, dc_handler *handler, dc_value *values,
                         size_t count) {
    dc_execute_frame *frame = &reader->frames[reader->depth - 1];
    frame->table = table; /* a delivered handler may stop, remove or destroy as in an execute */
    frame->context = NULL;
    frame->stopped = false;
    dc__read_calling(reader, handler);
    uint32_t state = atomic_load_explicit(&handler->state, memory_order_acquire);
    bool deliverable = !(state & (DC__STATE_REMOVED | DC__STATE_BLOCK_MASK));
    if (deliverable) call_with_values(handler, state, values, count);
    dc__read_called(reader);
    if ((state & DC__STATE_ONCE) && !(state & DC__STATE_REMOVED)) dc__table_remove_handler(table, handler);
    frame->table = NULL;
    return deliverable;
}

/* ---- destroying -------------------------------------------------------------------------------------------- */

/* Frees the table. Outside every read-side section and removal: executes,
 * drains and removals still in the table on other threads are inside one. */
static void destroy_now(dc_table *table) {
    remove_where(table, any_handler, NULL);
    /* Wait out the executes and drains still inside the table on other
     * threads, and with them the finishing of handlers handed to them; none
     * can start now, so afterwards everything retired can go. */
    dc__synchronize();
    dc__reclaim(&table->retired, true);
    free(table->retiring); /* its handlers are released below */
    /* Removed handlers not yet out of their array or the index were never
     * retired. */
    for (uint32_t slot = 0; slot < table->slot_count; slot++) {
        dc_handler *handler = handler_at(table, slot);
        if (handler->signature != NULL) release_handler_slot(handler, table);
    }
    event_list *events = atomic_load_explicit(&table->events, memory_order_relaxed);
    uint32_t count = atomic_load_explicit(&events->count, memory_order_relaxed);
    for (uint32_t i = 0; i < count; i++) {
        event_record *record = events->records[i];
        free(atomic_load_explicit(&record->handlers, memory_order_relaxed));
        free(atomic_load_explicit(&record->shapes, memory_order_relaxed));
        free(record);
    }
    free(events);
    free(atomic_load_explicit(&table->names, memory_order_relaxed));
    for (uint32_t chunk = 0; chunk < table->chunk_count; chunk++) free(table->chunks[chunk]);
    free(table->chunks);
    free(table->dedupe.slots);
    free(table->name);
    pthread_mutex_destroy(&table->lock);
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
        remove_where(table, any_handler, NULL);
        table->destroy_work.run = run_destroy;
        dc__defer_outside(&table->destroy_work);
        return;
    }
    destroy_now(table);
}
