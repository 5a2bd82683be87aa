/*
 * table.h — what the table's files share (registry.c, registration.c,
 * removal.c, execute.c, shapes.c, hooks.c, queue.c): the table's layout, its
 * handlers' extras, and the lookups and helpers each of them uses. Not
 * installed; nothing here is exported.
 *
 * Readers take no lock. Writers serialize on table->lock and publish
 * immutable or append-only structures with release stores; what they unlink is
 * retired and freed by reclaim.c once no reader can hold it.
 */
#ifndef DISPATCH_CORE_TABLE_H
#define DISPATCH_CORE_TABLE_H

#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- handlers ---------------------------------------------------------------------- */

typedef struct dc__handler_extras {
    dc_queue *queue;
    void (*destroy)(void *destroy_data);
    void *destroy_data;
} dc__handler_extras;

/* The handler, its state bits and the structures below are laid out in
 * binding/dispatch_core_inline.h, which the Swift layer's inline execute
 * shares. */

#define SWIFT_CALLS DC__SWIFT_CALLS

/* Handlers live in fixed chunks that never move, so a pointer to one stays
 * valid for the table's life; slots are reused only after reclamation. */
#define CHUNK_SHIFT 10
#define CHUNK_SIZE (1u << CHUNK_SHIFT)

/* Slots a table hands out: an entry of the duplicate index keeps a slot + 1
 * in its low 27 bits (DEDUPE_SLOT_BITS). */
#define DEDUPE_SLOT_BITS 27
#define MAX_SLOTS ((1u << DEDUPE_SLOT_BITS) - 1)

/* dc__handler.position: an index or a free link below DC__POSITION_INDEX,
 * and above it the flags only writers read, kept out of `state` so that
 * its bits say how an execute calls the handler. A live handler's flags are
 * set when it is added and kept as it moves; a free slot has none. */
#define DC__POSITION_INDEX 0x3FFFFFFFu
#define DC__POSITION_UNINDEXED (1u << 31)   /* not in the duplicate index (DC_HANDLER_ALLOW_DUPLICATE) */
#define DC__POSITION_OWNS_TARGET (1u << 30) /* release the target through the table's callbacks */
_Static_assert(MAX_SLOTS < DC__POSITION_INDEX, "a free link fits below the position's flags");
_Static_assert(MAX_SLOTS == 134217727u, "dispatch_table.h (dc_table_add) states the most handlers a table holds");

/* The duplicate index over (event, function, target): open addressing with
 * linear probing over any number of entries (a hash picks its home by
 * multiplying, not masking, so the index grows by half, not by doubling).
 * An entry is 0 (empty) or a slot + 1 with 5 bits of the hash above it,
 * which spare most probes a look at another handler. A removal leaves its
 * handler's entry, and the slot may be reused meanwhile: a probe compares the
 * handler the slot holds now, so such an entry only costs a probe until the
 * next rebuild (see "removing" in removal.c). */
typedef struct dedupe_index {
    uint32_t *entries;
    uint32_t capacity;
    uint32_t used;    /* entries not empty: live handlers', and removed ones' */
    uint32_t indexed; /* live handlers in the index */
} dedupe_index;

#define DEDUPE_INITIAL_ENTRIES 16u

/* A handler's queue and destroy notify, when given (handler->extras). */
typedef struct extras_list {
    uint32_t capacity;
    dc__handler_extras *items[]; /* a free index holds the next free one (registration.c) */
} extras_list;

/* ---- the table's lock ---------------------------------------------------------------- */

/* Serializes writers; never held while a handler runs. A word that is 0
 * when free, 1 when held and 2 when held with sleepers (registry.c sleeps
 * and wakes, through the platform's wait on a word): uncontended, taking and
 * releasing it is one atomic instruction each, inline. */
typedef struct table_lock {
    _Atomic uint32_t word;
} table_lock;

void dc__table_lock_wait(table_lock *lock);
#if defined(__x86_64__) || defined(__i386__)
#define SPIN_PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define SPIN_PAUSE() __asm__ __volatile__("yield")
#else
#define SPIN_PAUSE() ((void)0)
#endif
void dc__table_lock_wake(table_lock *lock);

static inline void table_lock_init(table_lock *lock) { atomic_init(&lock->word, 0); }
static inline void table_lock_destroy(table_lock *lock) { (void)lock; }
#define TABLE_LOCK_ACQUIRE(lock)                                                                          \
    do {                                                                                                 \
        uint32_t free_word = 0;                                                                          \
        if (!atomic_compare_exchange_strong_explicit(&(lock)->word, &free_word, 1, memory_order_acquire, \
                                                     memory_order_relaxed))                              \
            dc__table_lock_wait(lock);                                                                   \
    } while (0)
#define TABLE_LOCK_RELEASE(lock)                                                          \
    do {                                                                                 \
        if (atomic_exchange_explicit(&(lock)->word, 0, memory_order_release) == 2) dc__table_lock_wake(lock); \
    } while (0)

/* ---- per-event structures readers see ------------------------------------------------ */

/* The handler arrays, shape sets and event records are laid out, with one
 * name each, in binding/dispatch_core_inline.h (see "handlers" above). */

/* Events by name: open addressing, a power-of-two number of slots, at most
 * half full. Slots are filled once with a release store. */
typedef struct name_index {
    uint32_t mask;
    _Atomic(dc__event_record *) slots[];
} name_index;

enum { OWED_TOMBSTONES = 32 };

/* An emission hook or the observer (hooks.c): what readers call, found
 * through the table's hook list or observer pointer inside a read-side
 * section; retired once removed. `removed` is set once, under the lock. */
typedef struct table_hook {
    union {
        dc_emission_hook emission;
        dc_table_observer observer;
    } function;
    void *data;
    void (*destroy)(void *data);
    dc_hook_id id;
    dc_event_id event; /* a hook's key; 0: every event */
    _Atomic bool removed;
    /* Writer side: finished while a list still held it (no memory for a
     * shorter one), so whoever takes it out of the list retires it. */
    bool finished_listed;
} table_hook;

/* The hooks in the order added: immutable once published. */
typedef struct hook_list {
    uint32_t count;
    table_hook *hooks[];
} hook_list;

struct dc_table {
    _Atomic(dc__event_list *) events;
    _Atomic(name_index *) names;
    dc_object_callbacks callbacks;
    /* The binding's object check (dc__table_set_object_check()), set before
     * the table is shared. */
    dc__object_check object_check;
    void *object_check_context;
    char *name;

    table_lock lock; /* see "the table's lock" */
    dc__handler **chunks;
    uint32_t chunk_count;
    uint32_t slot_count; /* slots ever handed out */
    uint32_t free_slots; /* free list head: slot + 1 */
    dedupe_index dedupe;
    /* The extras of handlers that have them, read by executes of queued
     * handlers: replaced by a published copy when full, like an array. */
    _Atomic(extras_list *) extras;
    uint32_t extras_used; /* indexes handed out, free ones included */
    uint32_t free_extras; /* free list head: index + 1, through the free items */
    dc_retired_list retired;
    struct slot_batch *retiring; /* slots to retire at the end of this lock hold (reclaim()) */
    /* The array entries of removed handlers that still point to them
     * (removal.c, "removing"): they get the tombstone together. */
    uint32_t owed_tombstone_count;
    dc__handler_slot *owed_tombstones[OWED_TOMBSTONES];
    _Atomic(hook_list *) hooks;        /* NULL when none */
    _Atomic(table_hook *) observer;    /* NULL when none */
    dc_hook_id last_hook;              /* the last hook id issued */
    _Atomic bool destroy_called;
    dc__deferred destroy_work; /* the free owed once a destroy called inside a section is outside */
};

static inline void lock_table(const dc_table *table) { TABLE_LOCK_ACQUIRE(&((dc_table *)table)->lock); }
static inline void unlock_table(const dc_table *table) { TABLE_LOCK_RELEASE(&((dc_table *)table)->lock); }

/*
 * What is read without the lock, and what makes it safe. Everything else
 * (chunks and slots, the dedupe index, free lists, retired list, owed
 * tombstones, counts such as live and tombstones, a handler's `position`,
 * its writer-side state bits) is read and written under the lock only.
 *
 * Inside a read-side section (executes, drains, dc__event_record_of()):
 *  - `events`, `names` and the arrays and shape sets of event records: each
 *    published by a release store, as is the extras list; a replaced one is
 *    retired, so it is not freed while a section that may hold it is open
 *    (reclaim.c);
 *  - an event record's id, hash and name: set before it is published, never
 *    changed; records live as long as the table;
 *  - a handler reached through an array: function, signature, target,
 *    extras (an index; the list item it names is set before the handler is
 *    published), generation and slot are set before it is published and
 *    change only when its slot is reused, after reclamation; its state is
 *    atomic;
 *  - the table's name and callbacks: set by dc_table_create, never changed.
 * The table itself lives while a section of any thread may read it: a
 * destroy waits for every open section (dc__synchronize()), and its own
 * thread's wait for the outside. No execute reads the table after leaving
 * its section.
 *
 * Outside any section:
 *  - a removed handler's extras, by its remover between step 1 and step 3
 *    (see "removing"), through the pointer step 1 took under the lock: the
 *    extras are freed with the slot, retired only in step 3;
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
#define PREFETCH_FOR_WRITE(address) __builtin_prefetch(address, 1)
#else
#define PREFETCH(address) ((void)0)
#define PREFETCH_FOR_WRITE(address) ((void)0)
#endif
#define KEEP_IN_REGISTER(pointer) DC__KEEP_IN_REGISTER(pointer)

/* ---- small helpers ---------------------------------------------------------------------- */

/* The handler in `slot`. Caller holds the lock: growing moves the chunk list. */
static inline dc__handler *handler_at(const dc_table *table, uint32_t slot) {
    return &table->chunks[slot >> CHUNK_SHIFT][slot & (CHUNK_SIZE - 1)];
}

/* Reads only what does not change while a reader or the lock holds the
 * handler: its generation and slot change when a reclaimed slot is reused. */
static inline dc_handler_id id_of(const dc__handler *handler) {
    return ((uint64_t)handler->generation << 32) | handler->slot;
}

/* The live handler an id names, or NULL. Caller holds the lock. */
static inline dc__handler *find_handler(const dc_table *table, dc_handler_id id) {
    uint32_t slot = (uint32_t)id, generation = (uint32_t)(id >> 32);
    if (generation == 0 || slot >= table->slot_count) return NULL;
    dc__handler *handler = handler_at(table, slot);
    if (handler->generation != generation ||
        (atomic_load_explicit(&handler->state, memory_order_relaxed) & DC__STATE_REMOVED))
        return NULL;
    return handler;
}

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}

static inline uint64_t load_word(const char *bytes) {
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
static inline bool same_name(const char *a, const char *b, size_t length) {
    for (; length >= 8; a += 8, b += 8, length -= 8)
        if (load_word(a) != load_word(b)) return false;
    return length == 0 || memcmp(a, b, length) == 0;
}

static inline uint32_t dedupe_hash(dc_event_id event, dc_function function, const void *target) {
    uint64_t hash = mix((uint64_t)(uintptr_t)function ^ ((uint64_t)event << 48));
    return (uint32_t)mix(hash ^ (uint64_t)(uintptr_t)target);
}

static inline const char *display_name(const dc_table *table) { return table->name[0] ? table->name : "(unnamed)"; }

/* ---- event keys ---------------------------------------------------------------------- */

enum { NOT_A_KEY = -1 };

/* The length of the event name that starts `key` (of `length` bytes): all of
 * it without a detail, the part before "::" with one; NOT_A_KEY when it is a
 * malformed detailed key (dispatch_table.h, "Event keys and details"). */
static inline long key_event_length(const char *key, size_t length) {
    const char *separator = memchr(key, ':', length);
    while (separator != NULL && (size_t)(separator - key) + 1 < length && separator[1] != ':')
        separator = memchr(separator + 1, ':', length - (size_t)(separator + 1 - key));
    if (separator == NULL || (size_t)(separator - key) + 1 >= length) return (long)length;
    size_t event = (size_t)(separator - key);
    const char *detail = separator + 2;
    size_t detail_length = length - event - 2;
    if (event == 0 || detail_length == 0 || detail[0] == ':') return NOT_A_KEY;
    for (const char *c = detail; (c = memchr(c, ':', length - (size_t)(c - key))) != NULL; c++)
        if ((size_t)(c - key) + 1 < length && c[1] == ':') return NOT_A_KEY;
    return (long)event;
}

/* DC_ERR_INVALID_ARGUMENT for a malformed key (registry.c). */
dc_status dc__fail_key(const dc_table *table, const char *key);

/* The record that holds `record`'s handlers: its event's. */
static inline dc__event_record *array_record(dc__event_record *record) { return record->base != NULL ? record->base : record; }

/* ---- lookup (readers) ---------------------------------------------------------------- */

ALWAYS_INLINE static inline dc__event_record *record_by_id(const dc_table *table, dc_event_id id) {
    dc__event_list *events = atomic_load_explicit(&table->events, memory_order_acquire);
    /* id - 1 wraps for 0, so one comparison says "no such event". */
    return id - 1 < atomic_load_explicit(&events->count, memory_order_acquire) ? events->records[id - 1] : NULL;
}

ALWAYS_INLINE static inline dc__event_record *record_by_name(const dc_table *table, const char *name, size_t length,
                                                         uint64_t hash) {
    name_index *names = atomic_load_explicit(&table->names, memory_order_acquire);
    for (uint32_t i = (uint32_t)hash & names->mask;; i = (i + 1) & names->mask) {
        dc__event_record *record = atomic_load_explicit(&names->slots[i], memory_order_acquire);
        if (record == NULL) return NULL;
        if (record->hash == hash && record->name_length == length && same_name(record->name, name, length))
            return record;
    }
}

/* The event named by id, or by name when id is 0. Readers call it inside a
 * read-side section, writers under the lock: interning may replace what it reads. */
ALWAYS_INLINE static inline const dc__event_record *lookup_event(const dc_table *table, dc_event_id id, const char *name) {
    if (id != 0 || name == NULL) return record_by_id(table, id);
    size_t length = strlen(name);
    return record_by_name(table, name, length, hash_name(name, length));
}

/* For key `key` (`length` bytes) that was never interned: false when it is
 * malformed; else *event is its event's record when the key is detailed and
 * the event known, NULL otherwise. Inside a read-side section or under the
 * lock. */
static inline bool event_of_unknown_key(const dc_table *table, const char *key, size_t length, dc__event_record **event) {
    long event_length = key_event_length(key, length);
    if (event_length == NOT_A_KEY) return false;
    *event = (size_t)event_length < length
                 ? record_by_name(table, key, (size_t)event_length, hash_name(key, (size_t)event_length))
                 : NULL;
    return true;
}

static inline uint32_t shape_flags(uint32_t state) {
    return state & (DC__STATE_TARGET | DC__STATE_STRICT | DC__STATE_VARIADIC | DC__STATE_MARSHAL | DC__STATE_SWIFT |
                    DC__STATE_CHECK_OBJECTS);
}

/* Parameter 0 holds the bound target, if any; event arguments follow it. */
static inline size_t first_argument_parameter(uint32_t state) { return (state & DC__STATE_TARGET) ? 1 : 0; }

/* An empty index of `entries` entries; false when out of memory. */
static inline bool new_dedupe_index(dedupe_index *index, uint32_t entries) {
    index->entries = calloc(entries, sizeof *index->entries);
    if (index->entries == NULL) return false;
    index->capacity = entries;
    index->used = index->indexed = 0;
    return true;
}

/* The extras of `handler`, which has some. Inside a read-side section or
 * under the lock. */
static inline dc__handler_extras *extras_of(const dc_table *table, const dc__handler *handler) {
    return atomic_load_explicit(&table->extras, memory_order_acquire)->items[handler->extras - 1];
}

/* ---- the extras list (registration.c); the caller holds the lock ----------------------------- */

/* Room in the extras list for one more: true with *grown NULL when the list
 * has it, or a bigger copy in *grown to publish with dc__take_extras();
 * false without memory. */
bool dc__extras_room(const dc_table *table, extras_list **grown);
/* Stores `extras` in the list (`grown` published first, when given); its
 * index + 1, for handler->extras. Readers find it once the handler holding
 * the index is published. */
uint32_t dc__take_extras(dc_table *table, extras_list *grown, dc__handler_extras *extras);
/* Frees the extras at index + 1 `extras` and makes the index free: the
 * handler's slot is being released. */
void dc__release_extras(dc_table *table, uint32_t extras);

/* ---- the duplicate index (registration.c); the caller holds the lock ------------------------- */

/* The live handler of (event, function, target) that the index knows, or
 * NULL with *empty the entry where that key's probe ends. */
dc__handler *dc__find_duplicate(dc_table *table, dc_event_id event, dc_function function, const void *target,
                               uint32_t *empty);
/* Gives the live `handler`, whose key's probe ends at entry `empty`
 * (dc__find_duplicate(), the index unchanged since), its entry there. */
void dc__dedupe_insert_at(dedupe_index *index, const dc__handler *handler, uint32_t empty);
/* Gives the live `handler` an entry unless one on its probe already names
 * its slot with its tag (its slot's removed handler may have left that);
 * true when it took an empty one. The caller counts it in `indexed`. */
bool dc__dedupe_insert(dedupe_index *index, const dc__handler *handler);
/* An empty index for the live handlers and one more, half full with them:
 * a rebuild follows growth of 60% or more, and the index costs 5 to 8 bytes
 * per handler. False when there is no memory for it. */
bool dc__dedupe_spare(const dedupe_index *index, dedupe_index *spare);
/* Moves the live handlers to `spare`, which becomes the index; removed
 * handlers' entries are dropped. */
void dc__dedupe_rebuild(dc_table *table, dedupe_index *spare);

/* Whether one more entry keeps the index at most 4/5 full, removed
 * handlers' entries included: linear probing stays short up to there. */
static inline bool dedupe_has_room(const dedupe_index *index) {
    return ((uint64_t)index->used + 1) * 5 <= (uint64_t)index->capacity * 4;
}

/* ---- shared between the files ------------------------------------------------------------- */

/* Finds or creates the record of event key `name`, and of its event when it
 * is detailed; DC_ERR_INVALID_ARGUMENT for a malformed key. Caller holds the
 * lock (registry.c). */
dc_status dc__table_intern_locked(dc_table *table, const char *name, dc__event_record **out);

/* Retires `object`, freed by `release` once no reader can hold it; when no
 * memory is left for the bookkeeping it is kept (a leak, never a use after
 * free). Caller holds the lock (removal.c). */
void dc__table_retire(dc_table *table, void *object, void (*release)(void *, void *));
void dc__table_free_object(void *object, void *context);

/* Releases a retired handler's slot: its signature and extras, and the slot
 * back to the free list (removal.c). */
void dc__table_release_slot(void *object, void *context);

/* Retires the slots collected in this lock hold, then frees what no reader
 * can hold. Caller holds the lock (removal.c). */
void dc__table_reclaim(dc_table *table);

/* Puts the tombstone in the array entries of the removed handlers owed one
 * (removal.c, "removing"): before an entry's position changes and before a
 * slot is retired. Caller holds the lock. */
void dc__put_owed_tombstones(dc_table *table);

/* The tombstones an array may hold whatever its live handlers: a removal
 * compacts the array beyond them (removal.c), and an add that copies an
 * array of an event whose handlers come and go leaves room within them. */
enum { DC__TOMBSTONES_KEPT = 8 };

/* A new array of the live handlers of `old` (none when NULL), `first` in
 * front when given, with room to grow, more when `churned` (old is full of
 * removed handlers); NULL without memory. Published with
 * dc__publish_array() as the event's after array or its other one, which
 * records each handler's position (registration.c). Caller holds the lock. */
dc__handler_array *dc__rebuilt_array(const dc__handler_array *old, dc__handler *first, uint32_t live, bool churned);
void dc__publish_array(dc_table *table, dc__event_record *record, bool after, dc__handler_array *array);

/* Removes a once-handler after its run, or after its delivery was dropped
 * (removal.c). */
void dc__table_remove_handler(dc_table *table, dc__handler *handler);

/* Removes every handler, default handlers included; how many (removal.c). */
size_t dc__table_remove_all(dc_table *table);

/* ---- shape sets (shapes.c); the caller holds the lock ----------------------------------- */

/* Whether the lean execute may run `record`'s event. */
bool dc__lean_allowed(const dc_table *table, const dc__event_record *record);
/* A copy of `old` (may be NULL) with room for `extra` more shapes; NULL
 * without memory. */
dc__shape_set *dc__shapes_copy(const dc__shape_set *old, uint32_t extra);
/* A copy of `record`'s set; NULL without memory. */
dc__shape_set *dc__copy_shapes(const dc__event_record *record);
/* Publishes `copy`, a copy of `record`'s set, summarized anew. */
void dc__resummarize_shapes(dc_table *table, dc__event_record *record, dc__shape_set *copy);
/* Counts one more handler of a shape (see shapes.c): published in `spare`,
 * a copy of the set with room for one more, or in the set itself (NULL),
 * which has the shape. */
void dc__add_shape(dc_table *table, dc__event_record *record, dc_signature *signature, uint32_t flags, dc__shape_set *spare);
/* The shape of `set` (may be NULL) with that signature and those flags, or
 * NULL; a removal counts one handler fewer there. */
static inline dc__handler_shape *dc__find_shape(dc__shape_set *set, const dc_signature *signature, uint32_t flags) {
    for (uint32_t i = 0; set != NULL && i < set->count; i++)
        if (set->shapes[i].signature == signature && set->shapes[i].state_flags == flags) return &set->shapes[i];
    return NULL;
}
/* Publishes `record`'s set without the shapes no handler has any more, so
 * they no longer constrain executes. Publish after the handler is marked
 * removed. */
void dc__drop_unused_shapes(dc_table *table, dc__event_record *record);

/* ---- hooks and the observer (hooks.c) ------------------------------------------------ */

/* Whether an emission hook sees executes of `record`'s event. Caller holds
 * the lock. */
bool dc__hooks_watch(const dc_table *table, const dc__event_record *record);

/* Calls the emission hooks that see an execute of `key` (NULL: a key never
 * interned, `name`) of `event` (NULL: unknown), inside the execute's
 * read-side section, announcing each call in the reader's frame. */
void dc__run_hooks(dc_table *table, const hook_list *hooks, const dc__event_record *key, const dc__event_record *event,
                   const char *name, const dc_value *arguments, size_t count, dc_thread_record *reader);

/* Tells the observer, if any, of a change; no lock held. */
void dc__table_observe(dc_table *table, dc_table_change change, dc_event_id event, dc_handler_id handler);

/* DC_ERR_DEPTH, naming `function`, for an add or remove that the observer
 * could not be told of (made inside its call at the deepest nesting);
 * DC_OK otherwise. Checked before anything changes. */
dc_status dc__fail_unobservable(const dc_table *table, const char *function);
static inline dc_status refuse_unobservable(const dc_table *table, const char *function) {
    dc_thread_record *reader = dc__current_record;
    return LIKELY(reader == NULL || reader->depth <= DC_MAX_EXECUTE_DEPTH) ? DC_OK
                                                                           : dc__fail_unobservable(table, function);
}

/* Removes every hook and the observer, for the table's destroy. */
void dc__table_remove_hooks(dc_table *table);

/* ---- executes (execute.c, shapes.c) ---------------------------------------- */

/* What one execute needs as it goes. */
/* What one execute needs as it goes. */
typedef struct execution {
    dc_table *table;
    const dc__event_record *record;
    const dc_value *arguments;
    size_t count;
    const dc_execute_options *options;
    bool exact; /* the arguments have exactly the types every shape takes */
    bool bound; /* a binding's execute: the object check is not asked */
    size_t handled; /* handlers called the direct ways (`result` counts the others) */
    dc_result result;
    /* The signature whose last `count` parameters the arguments are, when
     * they come with layouts (a table closure's call); NULL otherwise. */
    const dc_signature *source;
    /* The detailed key executed, whose handlers run with those without a
     * detail; 0 for none. */
    dc_event_id key;
    /* The snapshot of the event's after array, for messages. */
    const dc__handler_array *after;
    uint32_t after_count;
} execution;

/* Whether `run` asks the table's object check about its objects: a public
 * execute of an event with a shape that wants it. */
static inline bool dc__asks_object_check(const execution *run, const dc__shape_set *shapes) {
    return shapes->checks_objects && !run->bound;
}

/* Checks the arguments against every shape of `shapes`, then has the
 * object check answer for the objects when it is asked: DC_OK when each
 * fits, or the error of the first that does not (shapes.c). */
dc_status dc__check_each_shape(const execution *run, const dc__shape_set *shapes, const dc__handler_array *array,
                               uint32_t count);

#endif /* DISPATCH_CORE_TABLE_H */
