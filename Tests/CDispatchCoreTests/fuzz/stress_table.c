/*
 * stress_table.c — event tables shared by several threads, each running a
 * seeded program of fuzz_table's operations, with every promise checked that
 * threads leave checkable.
 *
 *   stress_table [--seconds N] [--seed S] [--threads 1..4] [--round R]
 *                [--ops N] [--watchdog N] [--trace]
 *
 * libFuzzer wants one input to give one run, and its coverage feedback learns
 * nothing from the interleavings of threads, so this is a program of its own:
 * each thread's program comes from the seed, the round and the thread, and the
 * interleaving from the scheduler. The seed is printed at the start and with
 * every failure (with the round, which --round runs first).
 *
 * Rounds. Thread 0 creates two tables; every thread then runs --ops
 * operations (fuzz_table's: add a C function, a marshal or a Swift-convention
 * marshal with once / first / strict / owns-target / allow-duplicate flags,
 * some asking the table's object check, as
 * an after-handler or not, for an event or the event with a detail, a
 * queue of any thread and a destroy notify; add a duplicate; add a crowd of
 * marshals that grows the handler chunks; remove by id, target, event or all;
 * block and unblock; execute an event, or it with a detail, with arguments,
 * options, accumulators, briefly or by the event's record; drain its own queue; intern and query; destroy a
 * table). Every handler, when it runs, does what its thread's program says
 * next: nothing, linger, execute again, remove or block itself or another
 * handler, unblock, add, stop the emission, remove many, drain, or destroy its
 * table; a destroy notify sometimes destroys its table. A round ends when each
 * thread has done its operations or both tables are destroyed; then thread 0
 * destroys what is left and checks the round.
 *
 * Seam races. After its operations every round runs one race where features
 * meet (round % 6: an observer that acts and is replaced; destroy notifies
 * that remove and add; a destroy notify that destroys its table while the
 * others execute; struct returns under every accumulator beside marshals
 * that decline; table closures and a forwarder; ids of another table and
 * calls that fail), on tables of its own, every thread for a bounded number
 * of steps; "seam races" below says what each checks. --no-seams skips them.
 *
 * Destroying a table while other threads use it. dc_table_destroy waits for
 * the executes and drains already running; nothing else may be in the table
 * when it is called, and nothing may start. So an operation a thread begins
 * outside any handler enters the table through a gate (it marks itself inside,
 * then checks the table is open), and a destroyer closes the gate and waits
 * until every other thread is outside the table or inside one of its handlers
 * (then its execute is running, and destroy waits for it). A destroyer outside
 * any execute waits as long as it takes; one inside a handler (or a destroy
 * notify within an execute) gives up after a while and reopens the table,
 * since a thread it waits for may be waiting for its handler to return. A
 * table destroyed from a handler may be destroyed again from a handler of it
 * on another thread (that does nothing); one destroyed from outside is not.
 * Handlers start no operation on a table whose destroy has begun; one begun
 * just before may overlap it, as any handler's can.
 *
 * What is checked, and why it holds with threads:
 *  - no sanitizer report (the Makefile builds this with ASan + UBSan, and TSan);
 *  - no hang: a watchdog fails the run when no round completes for --watchdog
 *    seconds, printing every thread's operations and stack;
 *  - a handler never starts after a dc_table_remove, a remove of its target,
 *    event or all, or a dc_table_destroy from a handler has returned: the
 *    remover raises a flag right after the call returns (for a remove of
 *    many, on the handlers whose add had returned before it began), and
 *    every handler checks it on entry. A remove that does not say it removed
 *    the handler raises it only when no other removal that may cover it is
 *    in flight: finding the handler marked removed, it returns at once, while
 *    the removal that marked it may still wait for calls already past their
 *    check. Every handler's target or marshal data is its own registration
 *    record, and handlers without one use a C function of their own, so every
 *    call knows its registration;
 *  - nor after a dc_table_block has returned, unless an unblock began since:
 *    a thread unblocks only blocks it made, so the block count never drops
 *    below the blocks held, and the flag records the unblocks seen before the
 *    block;
 *  - nor after its destroy notify ran; a once-handler runs at most once; a
 *    handler added by this thread after an execute began does not run in it;
 *    a handler runs on its queue's owner thread or, without a queue, in an
 *    execute of its own table and event (one added with a detail only in
 *    executes with that detail), not after a stop, with the
 *    arguments converted to its parameters (its target first) and the
 *    execute's context; a marshal asking the object check never runs in a
 *    public execute given an object the check refuses;
 *  - a destroy notify runs at most once, and by the end of the round (after
 *    every table is destroyed) exactly once per successful add and never for
 *    a failed one; a remove that returned DC_OK has run it; an owned target
 *    is released once per successful add; object arguments of queued
 *    deliveries are retained and released in balance, and every queue is empty
 *    (its fd not readable) once the tables are gone;
 *  - an execute's result counts exactly the calls its own thread saw in it
 *    (handled, return values, stopped; queued and dropped depend on other
 *    threads and are not checked); a failed execute ran nothing and wrote no
 *    result; a drain delivered exactly the calls it saw;
 *  - statuses are the documented ones: exactly where the call decides alone
 *    (bad options, ids never issued, NULL arguments, unknown flags, a handler
 *    known to be removed, an unblock of a handler not blocked), otherwise
 *    among those other threads can cause; every failure sets its own message;
 *    interned ids and names agree on every thread.
 * Not checked: which handlers an execute snapshots, their order, counts
 * of handlers and of removals, the statuses only another thread's timing
 * decides.
 */
#include "fuzz_support.h"
#include "stress_support.h"

/* A broken promise the shared model finds is reported as any other: with the
 * seed, the round and what every thread was doing. */
#define MODEL_CHECK STRESS_CHECK
#include "table_model.h"

/* The Swift layer's record-based executes, stressed beside the rest. */
#include "dispatch_core_binding.h"

enum {
    SLOT_COUNT = 2,
    EVENT_COUNT = 4, /* names handlers are registered for, one preferred signature each */
    NEVER_EVENT = 4, /* never has a handler */
    CROWD_EVENT = 5, /* crowds of marshals */
    NAME_COUNT = 6,
    CROWD_SIGNATURE = 2,
    MAX_RECORDS = 6144, /* registrations per round */
    MAX_FRAMES = 8,
    MAX_NESTING = 4, /* handlers execute or drain only while fewer frames are open */
    MAX_ARGUMENTS = 9,
    POOL_SIZE = 4,
    ANON_FAMILIES = 4,
    ANON_COPIES = 16,
    CROWD_LEAST = 64,
    CROWD_MOST = 384,
    MOST_HELD = 32,                 /* records one thread holds blocks on */
    BOGUS_EVENT_ID = 200,           /* never issued: a table has NAME_COUNT names */
    SEAM_SLOT = SLOT_COUNT,         /* the seam races' table that a destroy notify destroys */
    ALL_SLOTS = SLOT_COUNT + 1,
    HANDLER_DESTROY_WAIT_MS = 50,
    DEFAULT_OPS = 300,
    DEFAULT_WATCHDOG_SECONDS = 30,
    ADD_PENDING = -1
};

static const char *const event_names[NAME_COUNT] = {"tap", "toggle", "select", "compute", "never-registered", "crowd"};
/* Each event with the one detail handlers are added with and executes use. */
static const char *const detailed_names[NAME_COUNT] = {"tap::s",     "toggle::s",           "select::s",
                                                       "compute::s", "never-registered::s", "crowd::s"};

static const char *key_name(unsigned event, bool detailed) {
    return detailed ? detailed_names[event] : event_names[event];
}

/* The signature most handlers of an event have, so some events have one shape
 * (the lean execute) and executes often fit; "compute" takes any. */
static const int preferred_signature[EVENT_COUNT] = {0, 1, 2, -1};

/* Signatures whose parameter 0 takes a bound target, and those of the C
 * functions that have no target and are told apart by being copies. */
static const int bindable_signatures[] = {1, 3, 4, 5, 6, 7, 8};
static const int anonymous_signatures[ANON_FAMILIES] = {0, 1, 2, 9};

/* ---- registrations ------------------------------------------------------------------- */

typedef enum record_kind {
    KIND_BOUND,     /* a C function with the record bound as its target */
    KIND_ANONYMOUS, /* a C function copy of its own, no target */
    KIND_MARSHAL,   /* a dc_marshal with the record as its data */
    KIND_SWIFT,     /* a DC__HANDLER_SWIFT_CALL marshal with the record as its context */
    KIND_CROWD,     /* many marshals with the record as their data (DC__HANDLER_ALLOW_DUPLICATE) */
    KIND_DUPLICATE  /* an add of another record's (event, function, target): calls are that record's */
} record_kind;

static const char *const kind_names[] = {"C function", "anonymous C function", "marshal", "Swift marshal",
                                         "crowd", "duplicate"};

#define BLOCKED_MARK (1ull << 63)

/* One add: the fields before `add_status` are written before the add and read
 * only afterwards. A record is never registered twice. */
typedef struct record {
    uint64_t round;
    unsigned index;
    unsigned slot;
    unsigned event;
    bool detailed; /* added with the event's detail (detailed_names) */
    record_kind kind;
    int signature; /* -1: a variadic marshal */
    unsigned anonymous_family, anonymous_copy;
    uint32_t flags; /* DC_HANDLER_* as given */
    int queue_owner; /* -1: no queue */
    bool has_destroy;
    bool notify_destroys; /* its destroy notify destroys the table */
    unsigned adder;
    uint64_t added_at; /* the adder's sequence when the add began */
    bool added_in_handler;
    int state_when_added; /* its table's state when the add began (for reports) */
    struct record *alias; /* KIND_DUPLICATE: whose handler it duplicates */

    _Atomic int add_status; /* ADD_PENDING until the add returned */
    _Atomic int state_when_returned;
    _Atomic dc_handler_id id;
    _Atomic bool removed;          /* a remove covering it has returned, none other in flight */
    _Atomic unsigned removals_in_flight; /* removes by its id or target begun and not returned */
    _Atomic uint64_t removed_by;   /* that remove's note, the remover's thread in its detail */
    _Atomic uint64_t block_mark;   /* BLOCKED_MARK | unblocks seen, once a block returned */
    _Atomic uint64_t unblocks;     /* unblocks begun */
    _Atomic bool ambiguous;        /* a duplicate add used its (event, function, target) */
    _Atomic unsigned runs;
    _Atomic unsigned destroy_calls;
    _Atomic unsigned target_releases;
    _Atomic unsigned crowd_adds;
    _Atomic unsigned crowd_calls;
} record;

static record records[MAX_RECORDS];
static _Atomic unsigned record_count;
static _Atomic(record *) anonymous_owner[ANON_FAMILIES][ANON_COPIES];
static _Atomic unsigned anonymous_next[ANON_FAMILIES];

static record *record_from(const void *pointer) {
    uintptr_t p = (uintptr_t)pointer, first = (uintptr_t)records;
    if (p < first || p >= first + sizeof records || (p - first) % sizeof(record) != 0) return NULL;
    return (record *)(uintptr_t)pointer;
}

/* ---- tables -------------------------------------------------------------------------- */

typedef enum table_state {
    TABLE_OPEN,
    TABLE_CLOSING, /* a destroyer waits for the other threads to leave */
    TABLE_DESTROYED_OUTSIDE,
    TABLE_DESTROYED_FROM_HANDLER
} table_state;

static const char *const state_names[] = {"open", "closing for a destroy", "destroyed from outside",
                                          "destroyed from a handler"};

typedef struct table_slot {
    dc_table *table;
    char name[16];
    _Atomic int state;
    _Atomic uint64_t destroyed_by; /* the note of the destroy that the table's state records */
    _Atomic dc_event_id ids[NAME_COUNT];
    _Atomic unsigned registered_count; /* records whose add returned DC_OK, in order */
    _Atomic unsigned broad_removals_in_flight; /* removes of events or all, and destroys */
    _Atomic(record *) registered[MAX_RECORDS];
} table_slot;

static table_slot slots[ALL_SLOTS];

/* Objects given as arguments; queued deliveries retain them. */
typedef struct pool_object {
    _Atomic long references;
} pool_object;

static pool_object pool[POOL_SIZE];

static pool_object *pool_object_at(const void *pointer) {
    for (unsigned i = 0; i < POOL_SIZE; i++)
        if (pointer == &pool[i]) return &pool[i];
    return NULL;
}

static char text_a[] = "alpha", text_b[] = "", text_c[] = "a longer string argument";
static char *const texts[3] = {text_a, text_b, text_c};

/* ---- threads ------------------------------------------------------------------------- */

typedef enum frame_kind { FRAME_EXECUTE, FRAME_DRAIN } frame_kind;

/* An execute or drain of this thread in progress, innermost last. Fields
 * before `seen` are cleared when it opens, and `seen` starts counting its
 * calls. */
typedef struct frame {
    frame_kind kind;
    unsigned slot;
    int event;
    bool detailed; /* the event with its detail */
    const dc_value *arguments;
    size_t count;
    bool strict;
    void *context;
    uint64_t opened_at;
    model_calls seen;
} frame;

typedef struct stats {
    unsigned long operations, executes, failed_executes, calls, deliveries, adds, failed_adds, duplicates,
        crowd_handlers, crowd_calls, removes, blocks, unblocks, removes_of_many, drains, queries, destroys_outside,
        destroys_from_handler, destroys_again, destroys_from_notify, destroy_timeouts, dropped, lingers;
    /* The seam races (counted once per race by thread 0, the rest by each thread). */
    unsigned long seam_races[6], seam_ops, seam_told, seam_notifies, seam_bombs, seam_structs, seam_closure_calls,
        seam_forwarder_calls, seam_foreign, seam_refused, seam_replaced, seam_kept, seam_declined,
        seam_bombs_in_handler, seam_bombs_in_observer;
} stats;

/* What one execute, table closure call or forwarder call of the seam races
 * saw on its own thread: calls, and the structs or integers returned. */
enum { SEAM_FRAMES = 4, SEAM_MOST_PAIRS = 16 };
typedef struct seam_pair {
    int64_t first, second; /* second == ~first * 3: a torn or zeroed pair breaks it */
} seam_pair;
typedef struct seam_frame {
    size_t calls, returns;
    seam_pair pairs[SEAM_MOST_PAIRS];
    int64_t first_integer;
} seam_frame;

typedef struct worker {
    unsigned index;
    pthread_t thread;
    stress_random random;
    dc_queue *queue; /* created, so owned, by this thread */
    /* Read by destroyers on other threads. */
    _Atomic int top[ALL_SLOTS];        /* an operation begun outside any handler is in the table */
    _Atomic int in_handler[ALL_SLOTS]; /* handlers of the table running on this thread */
    frame frames[MAX_FRAMES];
    unsigned frame_count;
    uint64_t sequence; /* operations begun */
    unsigned long call_number;
    uint16_t held_blocks[MAX_RECORDS];
    record *held[MOST_HELD];
    unsigned held_count;
    /* The seam races: this thread's handlers and delegates, what its executes
     * and calls saw, how deep it is in them and in observer calls. */
    struct seam_record *owned[64];
    unsigned owned_count;
    seam_frame seam_frames[SEAM_FRAMES];
    unsigned seam_depth;
    unsigned observer_depth;
    stats stats;
} worker;

static worker workers[STRESS_MAX_THREADS];
static _Thread_local worker *me;
static unsigned thread_count = 3;
static unsigned ops_per_round = DEFAULT_OPS;
static uint64_t round_number; /* written by thread 0 between rounds */
static uint64_t first_round = 1;
static double run_seconds = 10;
static bool seams = true; /* --no-seams: the rounds' operations only */
static uint64_t started_ns;
static _Atomic bool stopping;
static pthread_barrier_t round_barrier;

/* ---- notes: what a thread is doing, for failure reports ------------------------------- */

typedef enum operation {
    OP_ADD = 1,
    OP_ADD_DUPLICATE,
    OP_ADD_CROWD,
    OP_REMOVE,
    OP_BLOCK,
    OP_UNBLOCK,
    OP_REMOVE_TARGET,
    OP_REMOVE_EVENT,
    OP_REMOVE_ALL,
    OP_EXECUTE,
    OP_DRAIN,
    OP_QUERY,
    OP_STOP_EMISSION,
    OP_DESTROY_OUTSIDE,
    OP_DESTROY_FROM_HANDLER,
    OP_DESTROY_AGAIN,
    OP_DESTROY_FROM_NOTIFY,
    OP_HANDLER,
    OP_NOTIFY,
    OP_WAIT_FOR_TABLE,
    OP_LINGER,
    OP_ROUND_END,
    OP_SEAM,      /* a seam race: detail its kind */
    OP_SEAM_STEP, /* one step of it: detail what (seam_step_names) */
    OP_SEAM_OBSERVER
} operation;

static const char *const seam_names[] = {"an observer that acts, replaced",
                                         "destroy notifies that remove and add",
                                         "a destroy notify that destroys the table",
                                         "struct returns under every accumulator",
                                         "table closures and a forwarder",
                                         "ids of another table and refused calls"};
static const char *const seam_step_names[] = {
    "add a handler", "remove own handler", "block own handler", "unblock own handler", "execute",
    "replace the observer", "remove the bomb", "call the table closure", "add a delegate", "remove a delegate",
    "call the forwarder's value slot", "call the forwarder's ping slot", "use an id of the other table",
    "make a call that fails", "remove another's handler", "add from a destroy notify"};

#define NO_RECORD 0xFFFFu
#define NO_EVENT 0xFu

static uint64_t note(operation op, unsigned slot, unsigned event, unsigned record_index, uint32_t detail) {
    return (uint64_t)op | (uint64_t)(slot & 0xF) << 8 | (uint64_t)(event & 0xF) << 12 |
           (uint64_t)(record_index & 0xFFFF) << 16 | (uint64_t)detail << 32;
}

static void stress_describe(uint64_t packed, char *buffer, size_t size) {
    unsigned op = packed & 0xFF, slot = (packed >> 8) & 0xF, event = (packed >> 12) & 0xF;
    unsigned index = (packed >> 16) & 0xFFFF, detail = (unsigned)(packed >> 32);
    char who[16] = "", what[40] = "";
    if (index != NO_RECORD) snprintf(who, sizeof who, "r%u", index);
    if (event < NAME_COUNT) snprintf(what, sizeof what, " \"%s\"", event_names[event]);
    switch ((operation)op) {
    case OP_ADD: snprintf(buffer, size, "add %s (%s)%s to table %u", who, detail < 6 ? kind_names[detail] : "?", what, slot); break;
    case OP_ADD_DUPLICATE: snprintf(buffer, size, "add a duplicate %s of r%u to table %u", who, detail, slot); break;
    case OP_ADD_CROWD: snprintf(buffer, size, "add a crowd %s of %u marshals to table %u", who, detail, slot); break;
    case OP_REMOVE: snprintf(buffer, size, "dc_table_remove %s on table %u", who[0] ? who : "(an id never issued)", slot); break;
    case OP_BLOCK: snprintf(buffer, size, "dc_table_block %s on table %u", who[0] ? who : "(an id never issued)", slot); break;
    case OP_UNBLOCK: snprintf(buffer, size, "dc_table_unblock %s on table %u", who, slot); break;
    case OP_REMOVE_TARGET: snprintf(buffer, size, "dc_table_remove_target %s on table %u", who[0] ? who : "(an object)", slot); break;
    case OP_REMOVE_EVENT: snprintf(buffer, size, "dc_table_remove_event%s on table %u", what, slot); break;
    case OP_REMOVE_ALL: snprintf(buffer, size, "dc_table_remove_all on table %u", slot); break;
    case OP_EXECUTE: snprintf(buffer, size, "execute%s on table %u with %u arguments", what, slot, detail); break;
    case OP_DRAIN: snprintf(buffer, size, "drain own queue"); break;
    case OP_QUERY: snprintf(buffer, size, "intern and query%s on table %u", what, slot); break;
    case OP_STOP_EMISSION: snprintf(buffer, size, "dc_table_stop_emission on table %u", slot); break;
    case OP_DESTROY_OUTSIDE: snprintf(buffer, size, "dc_table_destroy table %u from outside any execute", slot); break;
    case OP_DESTROY_FROM_HANDLER: snprintf(buffer, size, "dc_table_destroy table %u from a handler", slot); break;
    case OP_DESTROY_AGAIN: snprintf(buffer, size, "dc_table_destroy table %u again from a handler", slot); break;
    case OP_DESTROY_FROM_NOTIFY: snprintf(buffer, size, "dc_table_destroy table %u from a destroy notify", slot); break;
    case OP_HANDLER: snprintf(buffer, size, "in handler %s%s of table %u (frame %u)", who, what, slot, detail); break;
    case OP_NOTIFY: snprintf(buffer, size, "in the destroy notify of %s (table %u)", who, slot); break;
    case OP_WAIT_FOR_TABLE: snprintf(buffer, size, "waiting for the other threads to leave table %u%s", slot, detail ? " (a while)" : ""); break;
    case OP_LINGER: snprintf(buffer, size, "lingering"); break;
    case OP_ROUND_END: snprintf(buffer, size, "the end of the round, on table %u", slot); break;
    case OP_SEAM: snprintf(buffer, size, "seam race: %s", detail < 6 ? seam_names[detail] : "?"); break;
    case OP_SEAM_STEP:
        snprintf(buffer, size, "seam step: %s %s", detail < 16 ? seam_step_names[detail] : "?", who);
        break;
    case OP_SEAM_OBSERVER: snprintf(buffer, size, "in the seam observer (generation %u)", detail); break;
    default: snprintf(buffer, size, "operation %u", op); break;
    }
}

/* ---- small helpers ---------------------------------------------------------------------- */

/* One of two statuses, both possible with threads. */
static void expect_either(dc_status status, dc_status one, dc_status other, const char *primed, const char *what) {
    STRESS_CHECK(status == one || status == other, "%s gave %s, expected %s or %s", what, dc_status_name(status),
                 dc_status_name(one), dc_status_name(other));
    if (status != DC_OK && status != DC_EXISTS) model_check_message(status, primed, what);
}

static bool table_open(unsigned slot) { return atomic_load(&slots[slot].state) == TABLE_OPEN; }

static bool all_tables_destroyed(void) {
    for (unsigned s = 0; s < SLOT_COUNT; s++) {
        int state = atomic_load(&slots[s].state);
        if (state == TABLE_OPEN || state == TABLE_CLOSING) return false;
    }
    return true;
}

static stress_random *random_source(void) { return &me->random; }

static unsigned below(unsigned bound) { return stress_below(random_source(), bound); }
static bool chance(unsigned percent) { return stress_percent(random_source(), percent); }

static size_t parameter_count(const record *r) {
    return r->signature < 0 ? 0 : dc_signature_parameter_count(signatures[r->signature]);
}

static dc_type return_type_of(const record *r) {
    return r->signature < 0 ? DC_TYPE_VOID : dc_signature_return_type(signatures[r->signature]);
}

/* ---- the gate: entering a table from outside any handler, and destroying one ---------- */

/* An operation begun outside any handler enters the table only while it is
 * open: marks itself inside, then checks (both sequentially consistent, so a
 * destroyer that closed the table either sees the mark or is seen). */
static bool enter_table(unsigned slot) {
    atomic_store(&me->top[slot], 1);
    if (table_open(slot)) return true;
    atomic_store(&me->top[slot], 0);
    return false;
}

static void leave_table(unsigned slot) { atomic_store(&me->top[slot], 0); }

/* Waits, once the table is closed, until each other thread is outside it or
 * inside one of its handlers. False when `limit_ms` (0: none) passed first. */
static bool wait_for_others(unsigned slot, unsigned limit_ms) {
    stress_push(note(OP_WAIT_FOR_TABLE, slot, NO_EVENT, NO_RECORD, limit_ms));
    uint64_t deadline = limit_ms != 0 ? stress_now_ns() + (uint64_t)limit_ms * 1000000u : 0;
    for (unsigned t = 0; t < thread_count; t++) {
        if (t == me->index) continue;
        worker *other = &workers[t];
        while (atomic_load(&other->top[slot]) && atomic_load(&other->in_handler[slot]) == 0) {
            if (deadline != 0 && stress_now_ns() > deadline) {
                stress_pop();
                return false;
            }
            sched_yield();
        }
    }
    stress_pop();
    return true;
}

/* Every record published before `registered` whose event is `event` (-1:
 * any) is removed: its add returned before the remove that covers it began. */
static void set_removed(record *r, uint64_t by) {
    atomic_store(&r->removed_by, by);
    atomic_store(&r->removed, true);
}

/*
 * After a remove that covers `r` returned without saying it removed it: r is
 * removed, but when another removal of it is still in flight, that one may be
 * the one that marked it and still be waiting for calls already past their
 * check, which may then begin after this remove returned. So r counts as
 * removed only when no other removal that could cover it is in flight (the
 * caller has taken its own out of the counts).
 */
static void set_removed_if_settled(record *r, uint64_t by) {
    if (atomic_load(&r->removals_in_flight) == 0 && atomic_load(&slots[r->slot].broad_removals_in_flight) == 0)
        set_removed(r, by);
}

/* The records published before `registered` of `event` (-1: any), after a
 * remove of them all returned: their adds returned before it began. */
static void mark_removed(unsigned slot, unsigned registered, int event, operation how) {
    if (registered > MAX_RECORDS) registered = MAX_RECORDS;
    for (unsigned i = 0; i < registered; i++) {
        record *r = atomic_load(&slots[slot].registered[i]);
        if (r != NULL && (event < 0 || (int)r->event == event))
            set_removed_if_settled(r, note(how, slot, event < 0 ? NO_EVENT : (unsigned)event, NO_RECORD, me->index));
    }
}

static void begin_broad_removal(unsigned slot) { atomic_fetch_add(&slots[slot].broad_removals_in_flight, 1); }
static void end_broad_removal(unsigned slot) { atomic_fetch_sub(&slots[slot].broad_removals_in_flight, 1); }

/* From a thread outside any execute of the table: nothing else may be in it,
 * and no destroy may have begun. */
static void destroy_from_outside(unsigned slot, operation how) {
    table_slot *s = &slots[slot];
    int open = TABLE_OPEN;
    if (!atomic_compare_exchange_strong(&s->state, &open, TABLE_CLOSING)) return;
    stress_push(note(how, slot, NO_EVENT, NO_RECORD, 0));
    wait_for_others(slot, 0);
    atomic_store(&s->destroyed_by, note(how, slot, NO_EVENT, NO_RECORD, me->index));
    begin_broad_removal(slot);
    atomic_store(&s->state, TABLE_DESTROYED_OUTSIDE);
    dc_table_destroy(s->table);
    end_broad_removal(slot);
    if (how == OP_DESTROY_FROM_NOTIFY)
        me->stats.destroys_from_notify++;
    else
        me->stats.destroys_outside++;
    stress_pop();
}

/* From inside an execute (or delivery) of the table on this thread. */
static void destroy_from_handler(unsigned slot, operation how) {
    table_slot *s = &slots[slot];
    int state = atomic_load(&s->state);
    if (state == TABLE_DESTROYED_FROM_HANDLER && atomic_load(&me->in_handler[slot]) > 0) {
        /* Destroyed from a handler already, maybe on another thread: does nothing. */
        stress_push(note(OP_DESTROY_AGAIN, slot, NO_EVENT, NO_RECORD, 0));
        dc_table_destroy(s->table);
        me->stats.destroys_again++;
        stress_pop();
        return;
    }
    int open = TABLE_OPEN;
    if (state != TABLE_OPEN || !atomic_compare_exchange_strong(&s->state, &open, TABLE_CLOSING)) return;
    stress_push(note(how, slot, NO_EVENT, NO_RECORD, 0));
    if (!wait_for_others(slot, HANDLER_DESTROY_WAIT_MS)) {
        atomic_store(&s->state, TABLE_OPEN);
        me->stats.destroy_timeouts++;
        stress_pop();
        return;
    }
    unsigned registered = atomic_load(&s->registered_count);
    atomic_store(&s->destroyed_by, note(how, slot, NO_EVENT, NO_RECORD, me->index));
    begin_broad_removal(slot);
    atomic_store(&s->state, TABLE_DESTROYED_FROM_HANDLER);
    dc_table_destroy(s->table);
    end_broad_removal(slot);
    /* Called from one of its handlers, destroy removes every handler at once. */
    mark_removed(slot, registered, -1, how);
    if (how == OP_DESTROY_FROM_NOTIFY)
        me->stats.destroys_from_notify++;
    else
        me->stats.destroys_from_handler++;
    stress_pop();
}

/* A destroy notify destroying its own table: from inside an execute or drain
 * the way a handler does, from a remove outside any the way an outside
 * destroyer does; not while the table is destroyed (a notify of destroy's
 * own removals). */
static void destroy_from_notify(const record *r) {
    if (me->frame_count > 0)
        destroy_from_handler(r->slot, OP_DESTROY_FROM_NOTIFY);
    else if (atomic_load(&me->top[r->slot]))
        destroy_from_outside(r->slot, OP_DESTROY_FROM_NOTIFY);
}

/* ---- object callbacks and destroy notifies ---------------------------------------------- */

static void retain_object(void *object) {
    pool_object *o = pool_object_at(object);
    STRESS_CHECK(o != NULL, "the table retained %p, which is no object argument", object);
    atomic_fetch_add(&o->references, 1);
}

static void release_object(void *object) {
    record *r = record_from(object);
    if (r != NULL) {
        unsigned before = atomic_fetch_add(&r->target_releases, 1);
        STRESS_CHECK((r->flags & DC__HANDLER_OWNS_TARGET) && before == 0,
                     "the table released r%u's target (%s), which it %s", r->index, kind_names[r->kind],
                     before > 0 ? "had released already" : "did not own");
        return;
    }
    pool_object *o = pool_object_at(object);
    STRESS_CHECK(o != NULL, "the table released %p, which no one gave it", object);
    long before = atomic_fetch_sub(&o->references, 1);
    STRESS_CHECK(before > 0, "object %u released more often than retained", (unsigned)(o - pool));
}

static void destroy_notify(void *data) {
    record *r = record_from(data);
    STRESS_CHECK(r != NULL, "a destroy notify ran with data %p, which no add gave", data);
    stress_push_note(note(OP_NOTIFY, r->slot, r->event, r->index, 0), true);
    unsigned before = atomic_fetch_add(&r->destroy_calls, 1);
    STRESS_CHECK(r->kind == KIND_CROWD || before == 0, "the destroy notify of r%u (%s) ran a second time", r->index,
                 kind_names[r->kind]);
    if (r->notify_destroys) destroy_from_notify(r);
    stress_pop();
}

/* ---- values ----------------------------------------------------------------------------- */

static dc_value make_value(unsigned type) {
    dc_value value = fuzz_zero(DC_TYPE_VOID);
    uint64_t bits = stress_next(random_source());
    unsigned choice;
    switch (type) {
    case DC_TYPE_VOID: break;
    case DC_TYPE_BOOL: value = dc_bool(bits & 1); break;
    case DC_TYPE_INT8: value = dc_int8((int8_t)bits); break;
    case DC_TYPE_UINT8: value = dc_uint8((uint8_t)bits); break;
    case DC_TYPE_INT16: value = dc_int16((int16_t)bits); break;
    case DC_TYPE_UINT16: value = dc_uint16((uint16_t)bits); break;
    case DC_TYPE_INT32: value = dc_int32((int32_t)bits); break;
    case DC_TYPE_UINT32: value = dc_uint32((uint32_t)bits); break;
    case DC_TYPE_INT64: value = dc_int64((int64_t)(bits % 5 == 0 ? bits : bits % 1000)); break;
    case DC_TYPE_UINT64: value = dc_uint64(bits); break;
    case DC_TYPE_FLOAT: {
        uint32_t word = (uint32_t)bits;
        float f;
        memcpy(&f, &word, sizeof f);
        value = dc_float(bits & (1ull << 40) ? f : (float)(bits % 100) * 0.25f);
        break;
    }
    case DC_TYPE_DOUBLE: {
        double d;
        memcpy(&d, &bits, sizeof d);
        value = dc_double(bits & (1ull << 40) ? d : (double)(bits % 100) * 0.5);
        break;
    }
    case DC_TYPE_OBJECT:
        choice = (unsigned)(bits % (POOL_SIZE + 1));
        value = dc_object(choice < POOL_SIZE ? (void *)&pool[choice] : NULL);
        break;
    case DC_TYPE_POINTER:
        choice = (unsigned)(bits & 0xFF);
        value = dc_pointer(choice < 64 ? NULL : choice < 128 ? (void *)&pool[choice % POOL_SIZE] : (void *)(uintptr_t)(bits >> 8));
        break;
    case DC_TYPE_STRING:
        choice = (unsigned)(bits % 4);
        value = dc_string(choice < 3 ? texts[choice] : NULL);
        break;
    default:
        value.type = (dc_type)(DC_TYPE_COUNT + bits % 100);
        value.u64 = bits;
        break;
    }
    return value;
}

/* The round tables' object check (table_model.h). */
MODEL_DEFINE_OBJECT_CHECK(pool)

/* ---- what a handler checks when it starts ------------------------------------------------ */

/* The start of every call: count it on its table first (destroyers look), note
 * it, and check that it may run. Returns the frame it runs in. */
static frame *begin_call(record *r, const dc_value *values, size_t count) {
    atomic_fetch_add(&me->in_handler[r->slot], 1);
    stress_push(note(OP_HANDLER, r->slot, r->event, r->index, me->frame_count));
    STRESS_CHECK(r->round == round_number, "handler r%u of round %llu ran in round %llu", r->index,
                 (unsigned long long)r->round, (unsigned long long)round_number);
    STRESS_CHECK(me->frame_count > 0, "handler r%u ran outside any execute or drain of this thread", r->index);
    frame *f = &me->frames[me->frame_count - 1];
    bool ambiguous = atomic_load(&r->ambiguous);
    int added = atomic_load(&r->add_status);
    STRESS_CHECK(added == ADD_PENDING || added == DC_OK, "handler r%u (%s) ran, but its add failed with %s", r->index,
                 kind_names[r->kind], dc_status_name((dc_status)added));
    dc_table *table = slots[r->slot].table;
    if (f->kind == FRAME_EXECUTE) {
        STRESS_CHECK(f->slot == r->slot && f->event == (int)r->event && (f->detailed || !r->detailed),
                     "handler r%u (table %u, \"%s\") ran in an execute of \"%s\" on table %u", r->index, r->slot,
                     key_name(r->event, r->detailed), f->event >= 0 ? key_name((unsigned)f->event, f->detailed) : "?",
                     f->slot);
        STRESS_CHECK(!f->seen.stop_called && !f->seen.stop_by_true,
                     "handler r%u ran after its execute was stopped (%s)", r->index,
                     f->seen.stop_called ? "dc_table_stop_emission" : "a handler returned true");
        STRESS_CHECK(!(r->adder == me->index && r->added_at > f->opened_at),
                     "handler r%u, added on this thread after the execute began, ran in that execute", r->index);
        STRESS_CHECK(ambiguous || r->queue_owner < 0 || r->queue_owner == (int)me->index,
                     "handler r%u, queued to thread %d's queue, ran in an execute on thread %u", r->index,
                     r->queue_owner, me->index);
        void *context = dc__table_execute_context(table);
        STRESS_CHECK(context == f->context, "handler r%u: execute context %p, expected %p", r->index, context,
                     f->context);
        /* In its snapshot, so the shapes loaded after it asked the object
         * check, which refuses these: the execute failed before any handler. */
        if ((r->flags & DC__HANDLER_CHECK_OBJECTS) && f->context == NULL)
            for (size_t a = 0; a < f->count; a++)
                STRESS_CHECK(f->arguments[a].type != DC_TYPE_OBJECT || !object_refused(f->arguments[a].object),
                             "marshal r%u, which asks the object check, ran in a public execute with a refused "
                             "object as argument %zu", r->index, a);
    } else {
        STRESS_CHECK(r->queue_owner == (int)me->index,
                     "a delivery of handler r%u (queue of thread %d) ran in a drain of thread %u's queue", r->index,
                     r->queue_owner, me->index);
        STRESS_CHECK(dc__table_execute_context(table) == NULL, "a delivery of r%u sees an execute context", r->index);
    }
    if (r->kind != KIND_CROWD && !ambiguous) {
        if (atomic_load(&r->removed)) {
            uint64_t by = atomic_load(&r->removed_by);
            char how[160];
            stress_describe(by, how, sizeof how);
            STRESS_CHECK(false, "handler r%u (%s) started after this remove of it had returned: %s, on thread %u",
                         r->index, kind_names[r->kind], how, (unsigned)(by >> 32));
        }
        uint64_t mark = atomic_load(&r->block_mark);
        STRESS_CHECK(!(mark & BLOCKED_MARK) || (mark & ~BLOCKED_MARK) != atomic_load(&r->unblocks),
                     "handler r%u (%s) started after a dc_table_block of it had returned, with no unblock since",
                     r->index, kind_names[r->kind]);
        STRESS_CHECK(atomic_load(&r->destroy_calls) == 0, "handler r%u started after its destroy notify ran",
                     r->index);
        unsigned runs = atomic_fetch_add(&r->runs, 1);
        STRESS_CHECK(!(r->flags & DC_HANDLER_ONCE) || runs == 0, "once-handler r%u ran a second time", r->index);
        if (f->kind == FRAME_EXECUTE) {
            model_handler h = {r->signature, r->kind == KIND_BOUND ? r : NULL, "r", r->index};
            model_check_parameters(&h, f->arguments, f->count, values, count);
        }
    }
    f->seen.calls++;
    if (f->kind == FRAME_EXECUTE)
        me->stats.calls++;
    else
        me->stats.deliveries++;
    return f;
}

static void act(record *r);

/* The end: note what the execute accumulates, do what the program says while
 * the call runs, then leave. */
static void finish_call(record *r, frame *f, dc_value returned, bool acts) {
    if (f->kind == FRAME_EXECUTE) model_note_return(&f->seen, returned);
    if (acts) act(r);
    stress_pop();
    atomic_fetch_sub(&me->in_handler[r->slot], 1);
}

/* ---- the handlers ------------------------------------------------------------------------ */

static dc_value function_return(const record *r) {
    unsigned long n = ++me->call_number;
    switch (r->signature) {
    case 3: return dc_int64((int64_t)(n * 7919u) - 5000);
    case 4: return dc_bool(chance(30));
    case 5: return dc_double((double)n / 4.0 - 1.0);
    case 6: return dc_uint64(n * 0x9e3779b97f4a7c15ull);
    case 7: return dc_float((float)n * 0.5f);
    case 8: return dc_string(texts[n % 3]);
    default: return dc_void();
    }
}

static dc_value c_called(record *r, const void *identity, const dc_value *values, size_t count) {
    STRESS_CHECK(r != NULL && (r->kind == KIND_BOUND || r->kind == KIND_ANONYMOUS),
                 "a C handler ran as %p, which no registration of this round is", identity);
    frame *f = begin_call(r, values, count);
    dc_value returned = function_return(r);
    finish_call(r, f, returned, true);
    return returned;
}

/* C functions with the record bound as parameter 0. */
static void bound_s1(void *a) {
    dc_value values[] = {dc_object(a)};
    c_called(record_from(a), a, values, 1);
}
static int64_t bound_s3(void *a, int64_t b, double c) {
    dc_value values[] = {dc_object(a), dc_int64(b), dc_double(c)};
    return c_called(record_from(a), a, values, 3).i64;
}
static bool bound_s4(void *a, bool b, int8_t c, int16_t d, int32_t e, uint16_t f) {
    dc_value values[] = {dc_pointer(a), dc_bool(b), dc_int8(c), dc_int16(d), dc_int32(e), dc_uint16(f)};
    return c_called(record_from(a), a, values, 6).b;
}
static double bound_s5(char *a, float b, uint8_t c) {
    dc_value values[] = {dc_string(a), dc_float(b), dc_uint8(c)};
    return c_called(record_from(a), a, values, 3).d;
}
static uint64_t bound_s6(void *a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f, int64_t g, int64_t h) {
    dc_value values[] = {dc_object(a), dc_int64(b), dc_int64(c), dc_int64(d),
                         dc_int64(e),  dc_int64(f), dc_int64(g), dc_int64(h)};
    return c_called(record_from(a), a, values, 8).u64;
}
static float bound_s7(void *a, uint32_t b, uint64_t c, double d) {
    dc_value values[] = {dc_object(a), dc_uint32(b), dc_uint64(c), dc_double(d)};
    return c_called(record_from(a), a, values, 4).f;
}
static char *bound_s8(void *a, char *b) {
    dc_value values[] = {dc_object(a), dc_string(b)};
    return c_called(record_from(a), a, values, 2).string;
}

static const dc_function bound_functions[SIGNATURE_COUNT] = {
    NULL, DC_FUNCTION(bound_s1), NULL, DC_FUNCTION(bound_s3), DC_FUNCTION(bound_s4),
    DC_FUNCTION(bound_s5), DC_FUNCTION(bound_s6), DC_FUNCTION(bound_s7), DC_FUNCTION(bound_s8), NULL,
};

/* C functions without a target: each registration gets a copy of its own for
 * the round, which is how a call finds its registration. */
static dc_value anonymous_called(unsigned family, unsigned copy, const dc_value *values, size_t count) {
    record *r = atomic_load(&anonymous_owner[family][copy]);
    char identity[32];
    snprintf(identity, sizeof identity, "copy %u of family %u", copy, family);
    STRESS_CHECK(r != NULL, "anonymous C function %s ran, but no registration has it", identity);
    return c_called(r, identity, values, count);
}

#define ANON_COPY_LIST(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define DEFINE_ANON_0(k) \
    static void anonymous_0_##k(void) { anonymous_called(0, k, NULL, 0); }
#define DEFINE_ANON_1(k)                                                                 \
    static void anonymous_1_##k(void *a) {                                               \
        dc_value values[] = {dc_object(a)};                                              \
        anonymous_called(1, k, values, 1);                                               \
    }
#define DEFINE_ANON_2(k)                                                                 \
    static void anonymous_2_##k(int64_t a) {                                             \
        dc_value values[] = {dc_int64(a)};                                               \
        anonymous_called(2, k, values, 1);                                               \
    }
#define DEFINE_ANON_3(k)                                                                 \
    static void anonymous_3_##k(double a, float b, double c, float d, double e, float f, double g, float h, \
                                double i) {                                              \
        dc_value values[] = {dc_double(a), dc_float(b), dc_double(c), dc_float(d), dc_double(e), \
                             dc_float(f),  dc_double(g), dc_float(h), dc_double(i)};      \
        anonymous_called(3, k, values, 9);                                               \
    }
ANON_COPY_LIST(DEFINE_ANON_0)
ANON_COPY_LIST(DEFINE_ANON_1)
ANON_COPY_LIST(DEFINE_ANON_2)
ANON_COPY_LIST(DEFINE_ANON_3)
#define ANON_ENTRY_0(k) DC_FUNCTION(anonymous_0_##k),
#define ANON_ENTRY_1(k) DC_FUNCTION(anonymous_1_##k),
#define ANON_ENTRY_2(k) DC_FUNCTION(anonymous_2_##k),
#define ANON_ENTRY_3(k) DC_FUNCTION(anonymous_3_##k),
static const dc_function anonymous_functions[ANON_FAMILIES][ANON_COPIES] = {
    {ANON_COPY_LIST(ANON_ENTRY_0)},
    {ANON_COPY_LIST(ANON_ENTRY_1)},
    {ANON_COPY_LIST(ANON_ENTRY_2)},
    {ANON_COPY_LIST(ANON_ENTRY_3)},
};

/* A marshal's result arrives zeroed and typed as its signature's return type
 * (void for a variadic one); it returns a value of that type or nothing, a
 * variadic one any type. */
static void marshal_handler(void *data, const dc_value *values, size_t count, dc_value *result) {
    record *r = record_from(data);
    STRESS_CHECK(r != NULL && r->kind == KIND_MARSHAL, "a marshal ran with data %p, which no marshal add gave", data);
    frame *f = begin_call(r, values, count);
    dc_type return_type = return_type_of(r);
    STRESS_CHECK(result != NULL && result->u64 == 0 && result->type == return_type,
                 "marshal r%u: the result arrives as %s 0x%llx, not a zero %s", r->index,
                 result != NULL ? dc_type_name(result->type) : "NULL",
                 result != NULL ? (unsigned long long)result->u64 : 0ull, dc_type_name(return_type));
    dc_value returned = fuzz_zero(DC_TYPE_VOID), counted = returned;
    if (chance(50)) {
        if (r->signature < 0) {
            returned = make_value(below(DC_TYPE_COUNT + 1));
            if ((unsigned)returned.type < DC_TYPE_COUNT) counted = returned;
        } else if (return_type == DC_TYPE_VOID) {
            returned = make_value(DC_TYPE_INT32); /* a void signature's marshal returns nothing anyway */
        } else {
            returned = counted = make_value(return_type);
        }
    }
    *result = returned;
    finish_call(r, f, counted, true);
}

static void swift_called(void *data, const dc_value *values) {
    record *r = record_from(data);
    STRESS_CHECK(r != NULL && r->kind == KIND_SWIFT, "a Swift marshal ran with context %p, which no add gave", data);
    frame *f = begin_call(r, values, parameter_count(r));
    finish_call(r, f, dc_void(), true);
}

#if DC__SWIFT_CALLS
__attribute__((swiftcall)) static void swift_none(void *data __attribute__((swift_context))) {
    swift_called(data, NULL);
}
__attribute__((swiftcall)) static void swift_values(const dc_value *values, void *data __attribute__((swift_context))) {
    swift_called(data, values);
}
#endif

/* A crowd's marshals only count: there are hundreds of each. */
static void crowd_marshal(void *data, const dc_value *values, size_t count, dc_value *result) {
    record *c = record_from(data);
    STRESS_CHECK(c != NULL && c->kind == KIND_CROWD, "a crowd marshal ran with data %p", data);
    STRESS_CHECK(result != NULL && result->type == DC_TYPE_VOID, "crowd marshal r%u: result not void", c->index);
    frame *f = begin_call(c, values, count);
    atomic_fetch_add(&c->crowd_calls, 1);
    me->stats.crowd_calls++;
    finish_call(c, f, dc_void(), false);
}

/* ---- operations --------------------------------------------------------------------------- */

static record *new_record(unsigned slot, record_kind kind, unsigned event) {
    unsigned index = atomic_fetch_add(&record_count, 1);
    if (index >= MAX_RECORDS) return NULL;
    record *r = &records[index];
    r->round = round_number;
    r->index = index;
    r->slot = slot;
    r->kind = kind;
    r->event = event;
    r->queue_owner = -1;
    r->adder = me->index;
    r->added_at = ++me->sequence;
    r->added_in_handler = me->frame_count > 0;
    r->state_when_added = atomic_load(&slots[slot].state);
    atomic_store(&r->add_status, ADD_PENDING);
    return r;
}

static void publish(record *r) {
    table_slot *s = &slots[r->slot];
    unsigned at = atomic_fetch_add(&s->registered_count, 1);
    if (at < MAX_RECORDS) atomic_store(&s->registered[at], r);
}

/* A registered record of the table, recent ones more often; NULL when none
 * `wanted` turned up. */
static record *pick_registered(unsigned slot, bool (*wanted)(const record *)) {
    table_slot *s = &slots[slot];
    unsigned count = atomic_load(&s->registered_count);
    if (count > MAX_RECORDS) count = MAX_RECORDS;
    for (unsigned attempt = 0; attempt < 4 && count > 0; attempt++) {
        unsigned at = count > 32 && chance(70) ? count - 1 - below(32) : below(count);
        record *r = atomic_load(&s->registered[at]);
        if (r != NULL && (wanted == NULL || wanted(r))) return r;
    }
    return NULL;
}

static bool has_one_handler(const record *r) { return r->kind != KIND_CROWD; }
static bool has_target(const record *r) { return r->kind != KIND_ANONYMOUS; }
static bool duplicable(const record *r) {
    return r->adder == me->index && r->kind != KIND_CROWD && r->kind != KIND_DUPLICATE;
}

static dc_event_id intern_checked(unsigned slot, unsigned event);

/* The id of an event or of it with its detail, interned. */
static dc_event_id intern_key(unsigned slot, unsigned event, bool detailed) {
    if (!detailed) return intern_checked(slot, event);
    dc_event_id id = 0;
    dc_status status = dc_table_intern(slots[slot].table, detailed_names[event], &id);
    STRESS_CHECK(status == DC_OK && id != 0, "dc_table_intern(\"%s\") gave %s, id %u", detailed_names[event],
                 dc_status_name(status), id);
    return id;
}

static dc_event_id intern_checked(unsigned slot, unsigned event) {
    table_slot *s = &slots[slot];
    dc_event_id id = 0, known = 0;
    dc_status status = dc_table_intern(s->table, event_names[event], &id);
    STRESS_CHECK(status == DC_OK && id != 0, "dc_table_intern(\"%s\") gave %s, id %u", event_names[event],
                 dc_status_name(status), id);
    if (!atomic_compare_exchange_strong(&s->ids[event], &known, id))
        STRESS_CHECK(known == id, "\"%s\" interned as %u here and as %u before", event_names[event], id, known);
    return id;
}

/* Checks a record removed by a call that returned DC_OK: its notify ran, its
 * owned target went back. Not inside a handler: a remove made there does not
 * wait for a call of it on a thread that is itself waiting in a remove or
 * block made inside a handler, and the notify then runs once that call has
 * returned (dispatch_core.h, "Waiting"); the round's end checks it ran once. */
static void check_removed_by_this_call(const record *r, const char *how) {
    if (me->frame_count > 0) return;
    unsigned destroys = atomic_load(&r->destroy_calls);
    STRESS_CHECK(destroys == (r->has_destroy ? 1u : 0u), "%s of r%u returned, its destroy notify had run %u times",
                 how, r->index, destroys);
    if ((r->flags & DC__HANDLER_OWNS_TARGET) && r->kind != KIND_ANONYMOUS)
        STRESS_CHECK(atomic_load(&r->target_releases) == 1, "%s of r%u returned, its owned target was not released",
                     how, r->index);
}

static void do_add(unsigned slot) {
    unsigned event = below(EVENT_COUNT);
    unsigned roll = below(100);
    record_kind kind = roll < 45 ? KIND_BOUND : roll < 65 ? KIND_ANONYMOUS : roll < 88 ? KIND_MARSHAL : KIND_SWIFT;
#if !DC__SWIFT_CALLS
    if (kind == KIND_SWIFT) kind = KIND_MARSHAL;
#endif
    record *r = new_record(slot, kind, event);
    if (r == NULL) return;
    int preferred = preferred_signature[event];
    bool prefer = preferred >= 0 && chance(70);
    dc_function function = NULL;
    void *target = NULL;
    switch (kind) {
    case KIND_BOUND:
        r->signature = bindable_signatures[below(7)];
        if (prefer && bound_functions[preferred] != NULL) r->signature = preferred;
        function = bound_functions[r->signature];
        target = r;
        break;
    case KIND_ANONYMOUS: {
        unsigned family = below(ANON_FAMILIES);
        if (prefer)
            for (unsigned f = 0; f < ANON_FAMILIES; f++)
                if (anonymous_signatures[f] == preferred) family = f;
        unsigned copy = atomic_fetch_add(&anonymous_next[family], 1);
        if (copy >= ANON_COPIES) { /* this round's copies are used up: bind one instead */
            r->kind = kind = KIND_BOUND;
            r->signature = bindable_signatures[below(7)];
            function = bound_functions[r->signature];
            target = r;
            break;
        }
        r->signature = anonymous_signatures[family];
        r->anonymous_family = family;
        r->anonymous_copy = copy;
        function = anonymous_functions[family][copy];
        atomic_store(&anonymous_owner[family][copy], r);
        break;
    }
    case KIND_MARSHAL:
        r->signature = chance(15) ? -1 : (int)below(SIGNATURE_COUNT);
        if (prefer) r->signature = preferred;
        target = r;
        break;
    default: /* KIND_SWIFT: a signature returning void */
        r->signature = prefer ? preferred : anonymous_signatures[below(ANON_FAMILIES)];
        target = r;
        break;
    }

    r->detailed = chance(15);
    uint32_t flags = 0;
    if (chance(15)) flags |= DC_HANDLER_ONCE;
    if (chance(20)) flags |= DC_HANDLER_FIRST;
    if (chance(15)) flags |= DC_HANDLER_AFTER;
    if (chance(8)) flags |= DC_HANDLER_STRICT;
    if (chance(10)) flags |= DC__HANDLER_ALLOW_DUPLICATE;
    if (target != NULL && chance(20)) flags |= DC__HANDLER_OWNS_TARGET;
    if (kind == KIND_SWIFT) flags |= DC__HANDLER_SWIFT_CALL;
    if ((kind == KIND_MARSHAL || kind == KIND_SWIFT) && chance(25)) flags |= DC__HANDLER_CHECK_OBJECTS;
    unsigned queue_roll = below(100);
    r->queue_owner = queue_roll < 60 ? -1 : queue_roll < 80 ? (int)me->index : (int)below(thread_count);
    r->has_destroy = chance(60);
    r->notify_destroys = r->has_destroy && chance(1);

    /* Now and then one mistake, which the add must refuse on its own. */
    dc_status expected = DC_OK;
    uint32_t given_flags = flags;
    bool by_id = chance(30);
    dc_event_id event_id = 0;
    dc_signature *signature = r->signature >= 0 ? signatures[r->signature] : NULL;
    if (chance(5)) {
        switch (below(5)) {
        case 0: given_flags |= 1u << 12, expected = DC_ERR_INVALID_ARGUMENT; break; /* no DC_HANDLER_ flag */
        case 1:
            if (kind == KIND_BOUND || kind == KIND_ANONYMOUS)
                given_flags |= DC__HANDLER_SWIFT_CALL, expected = DC_ERR_INVALID_ARGUMENT;
            break;
        case 2:
            if (kind == KIND_ANONYMOUS && r->signature != 1) target = r, expected = DC_ERR_TYPE;
            break;
        case 3: by_id = true, event_id = chance(50) ? 0 : 70000, expected = DC_ERR_NOT_FOUND; break;
        default:
            if (kind != KIND_MARSHAL) function = NULL, expected = DC_ERR_NULL_ARGUMENT;
            break;
        }
    }
    if (kind == KIND_SWIFT && expected == DC_OK && chance(10)) {
        /* A Swift marshal needs a signature, returning void. */
        r->signature = chance(30) ? -1 : 3 + (int)below(6);
        signature = r->signature >= 0 ? signatures[r->signature] : NULL;
        expected = DC_ERR_INVALID_ARGUMENT;
    }
    r->flags = given_flags;

    stress_push(note(OP_ADD, slot, event, r->index, kind));
    table_slot *s = &slots[slot];
    if (by_id && expected != DC_ERR_NOT_FOUND) event_id = intern_key(slot, event, r->detailed);
    dc_handler_options options = {given_flags, NULL, r->has_destroy ? destroy_notify : NULL, r};
    if (r->queue_owner >= 0) options.queue = workers[r->queue_owner].queue;
    dc_handler_id id = 0;
    const char *primed = fuzz_prime_message();
    dc_status status;
    if (kind == KIND_BOUND || kind == KIND_ANONYMOUS) {
        status = by_id ? dc_table_add_id(s->table, event_id, signature, function, target, &options, &id)
                       : dc_table_add(s->table, key_name(event, r->detailed), signature, function, target, &options,
                                      &id);
    } else {
        dc_marshal marshal = marshal_handler;
#if DC__SWIFT_CALLS
        if (kind == KIND_SWIFT)
            marshal = parameter_count(r) > 0 || r->signature < 0 ? (dc_marshal)(void *)swift_values
                                                                 : (dc_marshal)(void *)swift_none;
#endif
        if (expected == DC_ERR_NULL_ARGUMENT) marshal = NULL;
        status = by_id ? dc_table_add_marshal_id(s->table, event_id, signature, marshal, target, &options, &id)
                       : dc_table_add_marshal(s->table, key_name(event, r->detailed), signature, marshal, target,
                                              &options, &id);
    }
    atomic_store(&r->state_when_returned, atomic_load(&s->state));
    atomic_store(&r->add_status, status);
    if (status == DC_OK) {
        STRESS_CHECK(expected == DC_OK, "add of r%u gave DC_OK, expected %s", r->index, dc_status_name(expected));
        STRESS_CHECK(id != 0, "add of r%u gave id 0", r->index);
        /* Only this thread knows the id yet (its handler learns it from the
         * record), so no one has blocked it. */
        if (chance(5)) {
            primed = fuzz_prime_message();
            expect_either(dc_table_unblock(s->table, id), DC_ERR_STATE, DC_ERR_NOT_FOUND, primed,
                          "dc_table_unblock of a handler no one blocked");
        }
        atomic_store(&r->id, id);
        me->stats.adds++;
        publish(r);
    } else {
        if (expected == DC_OK && status == DC_ERR_STATE && !table_open(slot))
            model_check_message(status, primed, "an add while the table is destroyed"); /* may refuse then */
        else
            model_expect_status(status, expected, primed, "dc_table_add");
        STRESS_CHECK(atomic_load(&r->destroy_calls) == 0 && atomic_load(&r->target_releases) == 0,
                     "a refused add (%s) ran r%u's destroy notify or released its target", dc_status_name(status),
                     r->index);
        me->stats.failed_adds++;
    }
    stress_pop();
}

/* The same (event, function, target) as a record this thread added: DC_EXISTS
 * with its id while it is registered, else a new handler, removed again at
 * once. Its calls look like the original's, whose calls are then only counted. */
static void do_add_duplicate(unsigned slot) {
    record *original = pick_registered(slot, duplicable);
    if (original == NULL) return;
    record *d = new_record(slot, KIND_DUPLICATE, original->event);
    if (d == NULL) return;
    d->alias = original;
    d->detailed = original->detailed;
    d->signature = original->signature;
    d->has_destroy = true;
    d->flags = original->flags & (DC_HANDLER_FIRST | DC_HANDLER_STRICT | DC_HANDLER_AFTER | DC__HANDLER_SWIFT_CALL);
    atomic_store(&original->ambiguous, true);
    stress_push(note(OP_ADD_DUPLICATE, slot, original->event, d->index, original->index));
    table_slot *s = &slots[slot];
    dc_signature *signature = d->signature >= 0 ? signatures[d->signature] : NULL;
    dc_handler_options options = {d->flags, NULL, destroy_notify, d};
    dc_handler_id id = 0, original_id = atomic_load(&original->id);
    const char *primed = fuzz_prime_message();
    dc_status status;
    switch (original->kind) {
    case KIND_BOUND:
        status = dc_table_add(s->table, key_name(d->event, d->detailed), signature, bound_functions[d->signature], original,
                              &options, &id);
        break;
    case KIND_ANONYMOUS:
        status = dc_table_add(s->table, key_name(d->event, d->detailed), signature,
                              anonymous_functions[original->anonymous_family][original->anonymous_copy], NULL,
                              &options, &id);
        break;
    case KIND_MARSHAL:
        status = dc_table_add_marshal(s->table, key_name(d->event, d->detailed), signature, marshal_handler, original, &options,
                                      &id);
        break;
    default: {
        dc_marshal marshal = marshal_handler;
#if DC__SWIFT_CALLS
        marshal = parameter_count(original) > 0 ? (dc_marshal)(void *)swift_values : (dc_marshal)(void *)swift_none;
#endif
        status = dc_table_add_marshal(s->table, key_name(d->event, d->detailed), signature, marshal, original, &options, &id);
        break;
    }
    }
    atomic_store(&d->state_when_returned, atomic_load(&s->state));
    atomic_store(&d->add_status, status);
    if (original->flags & DC__HANDLER_ALLOW_DUPLICATE) {
        /* Not in the duplicate index: never found. */
        if (!(status == DC_ERR_STATE && !table_open(slot)))
            model_expect_status(status, DC_OK, primed, "a duplicate add");
    } else if (status == DC_EXISTS) {
        STRESS_CHECK(id == original_id, "a duplicate of r%u gave DC_EXISTS with id %llu, r%u is %llu",
                     original->index, (unsigned long long)id, original->index, (unsigned long long)original_id);
        STRESS_CHECK(atomic_load(&d->destroy_calls) == 0, "DC_EXISTS kept the duplicate's destroy notify");
    } else if (!(status == DC_ERR_STATE && !table_open(slot))) {
        model_expect_status(status, DC_OK, primed, "a duplicate add");
    }
    me->stats.duplicates++;
    if (status == DC_OK) {
        atomic_store(&d->id, id);
        publish(d);
        primed = fuzz_prime_message();
        atomic_fetch_add(&d->removals_in_flight, 1);
        dc_status removal = dc_table_remove(s->table, id);
        atomic_fetch_sub(&d->removals_in_flight, 1);
        expect_either(removal, DC_OK, DC_ERR_NOT_FOUND, primed, "dc_table_remove of a duplicate");
        if (removal == DC_OK) {
            check_removed_by_this_call(d, "dc_table_remove of a duplicate");
            set_removed(d, note(OP_REMOVE, slot, d->event, d->index, me->index));
        }
    }
    stress_pop();
}

/* Hundreds of marshals at once, so the handler chunks grow (and their array
 * moves) while other threads execute and format messages. */
static void do_add_crowd(unsigned slot) {
    record *c = new_record(slot, KIND_CROWD, CROWD_EVENT);
    if (c == NULL) return;
    c->signature = CROWD_SIGNATURE;
    c->has_destroy = true;
    c->flags = DC__HANDLER_ALLOW_DUPLICATE;
    atomic_store(&c->add_status, DC_OK);
    unsigned count = CROWD_LEAST + below(CROWD_MOST - CROWD_LEAST + 1);
    stress_push(note(OP_ADD_CROWD, slot, CROWD_EVENT, c->index, count));
    publish(c);
    table_slot *s = &slots[slot];
    dc_event_id id = intern_checked(slot, CROWD_EVENT);
    for (unsigned i = 0; i < count; i++) {
        dc_handler_options options = {DC__HANDLER_ALLOW_DUPLICATE | (i % 16 == 15 ? DC_HANDLER_FIRST : 0u), NULL,
                                      destroy_notify, c};
        const char *primed = fuzz_prime_message();
        dc_status status = dc_table_add_marshal_id(s->table, id, signatures[CROWD_SIGNATURE], crowd_marshal, c,
                                                   &options, NULL);
        if (status == DC_OK) {
            atomic_fetch_add(&c->crowd_adds, 1);
            me->stats.crowd_handlers++;
        } else if (status == DC_ERR_STATE && !table_open(slot)) {
            model_check_message(status, primed, "a crowd add while the table is destroyed");
        } else {
            model_expect_status(status, DC_OK, primed, "a crowd add");
        }
        if (!table_open(slot)) break;
    }
    stress_pop();
}

/* By id: the handler's own record (from a handler), another, or an id never issued. */
static void do_remove(unsigned slot, record *self) {
    table_slot *s = &slots[slot];
    record *r = self != NULL && self->kind != KIND_CROWD && chance(50) ? self : pick_registered(slot, has_one_handler);
    bool bogus = chance(3);
    dc_handler_id id = bogus ? (chance(50) ? 0 : UINT64_MAX) : r != NULL ? atomic_load(&r->id) : 0;
    if (!bogus && id == 0) return;
    stress_push(note(OP_REMOVE, slot, bogus ? NO_EVENT : r->event, bogus ? NO_RECORD : r->index, 0));
    bool known_removed = !bogus && atomic_load(&r->removed);
    const char *primed = fuzz_prime_message();
    if (!bogus) atomic_fetch_add(&r->removals_in_flight, 1);
    dc_status status = dc_table_remove(s->table, id);
    if (!bogus) atomic_fetch_sub(&r->removals_in_flight, 1);
    me->stats.removes++;
    if (bogus || known_removed) {
        model_expect_status(status, DC_ERR_NOT_FOUND, primed, bogus ? "dc_table_remove of an id never issued"
                                                                    : "dc_table_remove of a handler removed before");
    } else {
        expect_either(status, DC_OK, DC_ERR_NOT_FOUND, primed, "dc_table_remove");
        if (status == DC_OK) {
            check_removed_by_this_call(r, "dc_table_remove");
            set_removed(r, note(OP_REMOVE, slot, r->event, r->index, me->index));
        }
    }
    if (!bogus && atomic_load(&r->removed) && table_open(slot))
        STRESS_CHECK(!dc_table_contains(s->table, id), "dc_table_contains(r%u) after its remove returned", r->index);
    stress_pop();
}

static void do_block(unsigned slot, record *self) {
    table_slot *s = &slots[slot];
    if (me->held_count == MOST_HELD) return;
    record *r = self != NULL && self->kind != KIND_CROWD && chance(50) ? self : pick_registered(slot, has_one_handler);
    bool bogus = chance(3);
    dc_handler_id id = bogus ? UINT64_MAX : r != NULL ? atomic_load(&r->id) : 0;
    if (!bogus && id == 0) return;
    stress_push(note(OP_BLOCK, slot, bogus ? NO_EVENT : r->event, bogus ? NO_RECORD : r->index, 0));
    bool known_removed = !bogus && atomic_load(&r->removed);
    uint64_t unblocks = bogus ? 0 : atomic_load(&r->unblocks);
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_block(s->table, id);
    me->stats.blocks++;
    if (bogus || known_removed) {
        model_expect_status(status, DC_ERR_NOT_FOUND, primed, bogus ? "dc_table_block of an id never issued"
                                                                   : "dc_table_block of a handler removed before");
    } else {
        expect_either(status, DC_OK, DC_ERR_NOT_FOUND, primed, "dc_table_block");
        if (status == DC_OK) {
            atomic_store(&r->block_mark, BLOCKED_MARK | unblocks);
            if (me->held_blocks[r->index]++ == 0) me->held[me->held_count++] = r;
        }
    }
    stress_pop();
}

/* Only blocks this thread made: then the block count covers every unblock. */
static void do_unblock(unsigned slot) {
    record *r = NULL;
    for (unsigned attempt = 0; attempt < 4 && me->held_count > 0 && r == NULL; attempt++) {
        record *candidate = me->held[below(me->held_count)];
        if (candidate->slot == slot) r = candidate;
    }
    if (r == NULL) return;
    stress_push(note(OP_UNBLOCK, slot, r->event, r->index, 0));
    bool known_removed = atomic_load(&r->removed);
    atomic_fetch_add(&r->unblocks, 1);
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_unblock(slots[slot].table, atomic_load(&r->id));
    me->stats.unblocks++;
    if (known_removed)
        model_expect_status(status, DC_ERR_NOT_FOUND, primed, "dc_table_unblock of a handler removed before");
    else
        expect_either(status, DC_OK, DC_ERR_NOT_FOUND, primed, "dc_table_unblock of a handler this thread blocked");
    if (--me->held_blocks[r->index] == 0) {
        for (unsigned i = 0; i < me->held_count; i++)
            if (me->held[i] == r) me->held[i] = me->held[--me->held_count];
    }
    stress_pop();
}

static void do_remove_many(unsigned slot, record *self) {
    table_slot *s = &slots[slot];
    unsigned roll = below(100);
    size_t removed = 999999;
    unsigned registered = atomic_load(&s->registered_count);
    const char *primed = fuzz_prime_message();
    dc_status status;
    if (roll < 35) {
        record *r = self != NULL && chance(40) ? self : pick_registered(slot, has_target);
        if (r == NULL || r->kind == KIND_ANONYMOUS) return;
        stress_push(note(OP_REMOVE_TARGET, slot, r->event, r->index, 0));
        atomic_fetch_add(&r->removals_in_flight, 1);
        status = dc_table_remove_target(s->table, r, &removed);
        atomic_fetch_sub(&r->removals_in_flight, 1);
        model_expect_status(status, DC_OK, primed, "dc_table_remove_target");
        uint64_t by = note(OP_REMOVE_TARGET, slot, r->event, r->index, me->index);
        if (r->kind == KIND_DUPLICATE) {
            STRESS_CHECK(removed == 0, "dc_table_remove_target(r%u) removed %zu, but no handler has it as target",
                         r->index, removed);
        } else if (r->kind != KIND_CROWD && !atomic_load(&r->ambiguous)) {
            STRESS_CHECK(removed <= 1, "dc_table_remove_target(r%u) removed %zu; one handler has that target",
                         r->index, removed);
            if (removed == 1) {
                check_removed_by_this_call(r, "dc_table_remove_target");
                set_removed(r, by);
            } else {
                set_removed_if_settled(r, by);
            }
        }
    } else if (roll < 45) {
        unsigned which = below(POOL_SIZE + 1);
        stress_push(note(OP_REMOVE_TARGET, slot, NO_EVENT, NO_RECORD, 0));
        if (which == POOL_SIZE) {
            model_expect_status(dc_table_remove_target(s->table, NULL, &removed), DC_ERR_NULL_ARGUMENT, primed,
                                "dc_table_remove_target(NULL)");
        } else {
            model_expect_status(dc_table_remove_target(s->table, &pool[which], &removed), DC_OK, primed,
                                "dc_table_remove_target of an object");
            STRESS_CHECK(removed == 0, "dc_table_remove_target of an object no handler has removed %zu", removed);
        }
    } else if (roll < 85) {
        unsigned event = below(NAME_COUNT);
        bool by_id = roll >= 65, bogus = by_id && chance(20);
        stress_push(note(OP_REMOVE_EVENT, slot, event, NO_RECORD, by_id));
        if (bogus) {
            model_expect_status(dc_table_remove_event_id(s->table, 70000, &removed), DC_ERR_NOT_FOUND, primed,
                                "dc_table_remove_event_id of an id never issued");
        } else {
            begin_broad_removal(slot);
            if (by_id) {
                dc_event_id id = intern_checked(slot, event);
                primed = fuzz_prime_message();
                status = dc_table_remove_event_id(s->table, id, &removed);
            } else {
                status = dc_table_remove_event(s->table, event_names[event], &removed);
            }
            end_broad_removal(slot);
            model_expect_status(status, DC_OK, primed, "dc_table_remove_event");
            if (event == NEVER_EVENT)
                STRESS_CHECK(removed == 0, "removed %zu handlers of an event that never had one", removed);
            mark_removed(slot, registered, (int)event, OP_REMOVE_EVENT);
        }
    } else {
        if (!chance(self != NULL ? 10 : 25)) return; /* everything, rarely */
        stress_push(note(OP_REMOVE_ALL, slot, NO_EVENT, NO_RECORD, 0));
        begin_broad_removal(slot);
        status = dc_table_remove_all(s->table, &removed);
        end_broad_removal(slot);
        model_expect_status(status, DC_OK, primed, "dc_table_remove_all");
        mark_removed(slot, registered, -1, OP_REMOVE_ALL);
    }
    me->stats.removes_of_many++;
    stress_pop();
}

/* Arguments the event's preferred signature takes, so the execute often fits. */
static size_t fitting_arguments(unsigned event, dc_value *arguments) {
    switch (event) {
    case 0: return 0;
    case 1:
        if (chance(50)) return 0;
        arguments[0] = make_value(DC_TYPE_OBJECT);
        return 1;
    case 2: arguments[0] = make_value(DC_TYPE_INT64); return 1;
    case CROWD_EVENT: arguments[0] = chance(80) ? dc_double(1.5) : dc_int64(7); return 1;
    default: return 0;
    }
}

static void do_execute(unsigned slot) {
    if (me->frame_count == MAX_FRAMES) return;
    table_slot *s = &slots[slot];
    unsigned event = chance(3) ? CROWD_EVENT : below(NEVER_EVENT + 1);
    bool detailed = chance(25);
    uint8_t how = (uint8_t)stress_next(random_source());
    dc_value arguments[MAX_ARGUMENTS];
    size_t count;
    if (event == CROWD_EVENT || chance(55)) {
        count = fitting_arguments(event, arguments);
    } else {
        count = below(MAX_ARGUMENTS + 1);
        for (size_t i = 0; i < count; i++) arguments[i] = make_value(below(DC_TYPE_COUNT + 1));
    }
    frame *f = &me->frames[me->frame_count];
    model_execute e;
    model_execute_begin(&e, how, arguments, count, f);
    if (e.with_options) {
        uint8_t accumulator = (uint8_t)stress_next(random_source()), flags = (uint8_t)stress_next(random_source());
        model_execute_options(&e, accumulator, flags);
    }

    stress_push(note(OP_EXECUTE, slot, event, NO_RECORD, (uint32_t)count));
    dc_event_id id = 0;
    bool bogus_id = false;
    if (e.by_id) {
        if ((how & 0x30) == 0x20 && chance(30))
            id = chance(50) ? 0 : BOGUS_EVENT_ID + below(50), bogus_id = true;
        else
            id = intern_key(slot, event, detailed);
    }
    dc_status expected = model_execute_refusal(&e, id, bogus_id);

    memset(f, 0, offsetof(frame, seen));
    f->kind = FRAME_EXECUTE;
    f->slot = slot;
    f->event = (int)event;
    f->detailed = detailed;
    f->arguments = arguments;
    f->count = count;
    f->strict = (e.options.flags & DC_EXECUTE_STRICT) != 0;
    f->context = e.context;
    f->opened_at = ++me->sequence;
    model_calls_open(&f->seen, e.options.accumulator);

    me->frame_count++;
    model_execute_run(&e, s->table, key_name(event, detailed), id);
    me->frame_count--;
    me->stats.executes++;

    if (expected == DC_OK && (e.status == DC_ERR_TYPE || e.status == DC_ERR_ARITY)) {
        /* Some handler registered when it began did not fit: which ones were
         * there depends on other threads. */
        STRESS_CHECK(event != NEVER_EVENT, "an execute of an event without handlers gave %s",
                     dc_status_name(e.status));
        model_check_message(e.status, e.primed, "dc_table_execute");
    } else {
        model_check_execute_status(&e, expected);
    }
    if (e.status != DC_OK) me->stats.failed_executes++;
    const dc_result *result = model_check_execute(&e, &f->seen, false);
    if (result != NULL) me->stats.dropped += result->dropped;
    stress_pop();
}

static void do_drain(void) {
    if (me->frame_count == MAX_FRAMES) return;
    frame *f = &me->frames[me->frame_count];
    memset(f, 0, offsetof(frame, seen));
    f->kind = FRAME_DRAIN;
    f->slot = SLOT_COUNT;
    f->event = -1;
    f->opened_at = ++me->sequence;
    model_calls_open(&f->seen, DC_ACCUMULATE_FIRST);
    size_t delivered = 424242;
    bool want_count = chance(50);
    stress_push(note(OP_DRAIN, 0, NO_EVENT, NO_RECORD, 0));
    me->frame_count++;
    dc_status status = dc_queue_drain(me->queue, want_count ? &delivered : NULL);
    me->frame_count--;
    me->stats.drains++;
    STRESS_CHECK(status == DC_OK, "dc_queue_drain gave %s", dc_status_name(status));
    if (want_count)
        STRESS_CHECK(delivered == f->seen.calls, "dc_queue_drain delivered %zu, this thread saw %zu calls", delivered,
                     f->seen.calls);
    stress_pop();
}

/* Interning and the questions a table answers, as far as other threads leave
 * the answers known. Outside any handler. */
static void do_query(unsigned slot) {
    table_slot *s = &slots[slot];
    unsigned event = below(NAME_COUNT);
    stress_push(note(OP_QUERY, slot, event, NO_RECORD, 0));
    me->stats.queries++;
    dc_event_id id = intern_checked(slot, event);
    const char *name = NULL;
    STRESS_CHECK(dc_table_event_name(s->table, id, &name) == DC_OK && strcmp(name, event_names[event]) == 0,
                 "event %u is not named \"%s\"", id, event_names[event]);
    const char *primed = fuzz_prime_message();
    model_expect_status(dc_table_event_name(s->table, BOGUS_EVENT_ID, &name), DC_ERR_NOT_FOUND, primed,
                        "dc_table_event_name of an id never issued");
    size_t count = 12345;
    STRESS_CHECK(dc_table_handler_count(s->table, event_names[event], &count) == DC_OK, "dc_table_handler_count failed");
    if (event == NEVER_EVENT) STRESS_CHECK(count == 0, "an event never registered has %zu handlers", count);
    STRESS_CHECK(dc_table_handler_count_id(s->table, id, &count) == DC_OK, "dc_table_handler_count_id failed");
    primed = fuzz_prime_message();
    model_expect_status(dc_table_handler_count_id(s->table, BOGUS_EVENT_ID, &count), DC_ERR_NOT_FOUND, primed,
                        "dc_table_handler_count_id of an id never issued");
    const char *listed[2 * NAME_COUNT];
    size_t total = 0;
    STRESS_CHECK(dc_table_events(s->table, listed, 2 * NAME_COUNT, &total) == DC_OK, "dc_table_events failed");
    /* Handlers are added to every event but one, with its detail too but for crowds. */
    STRESS_CHECK(total <= 2 * NAME_COUNT - 3, "%zu keys listed, but only %d ever have handlers", total,
                 2 * NAME_COUNT - 3);
    for (size_t i = 0; i < total; i++) {
        bool known = false;
        for (unsigned e = 0; e < NAME_COUNT; e++)
            known |= e != NEVER_EVENT && (strcmp(listed[i], event_names[e]) == 0 ||
                                          (e != CROWD_EVENT && strcmp(listed[i], detailed_names[e]) == 0));
        STRESS_CHECK(known, "dc_table_events listed \"%s\"", listed[i]);
        for (size_t j = 0; j < i; j++) STRESS_CHECK(listed[i] != listed[j], "\"%s\" listed twice", listed[i]);
    }
    record *r = pick_registered(slot, has_one_handler);
    if (r != NULL && atomic_load(&r->removed))
        STRESS_CHECK(!dc_table_contains(s->table, atomic_load(&r->id)), "dc_table_contains(r%u) after its removal",
                     r->index);
    STRESS_CHECK(strcmp(dc_table_name(s->table), s->name) == 0, "the table is named \"%s\", not \"%s\"",
                 dc_table_name(s->table), s->name);
    STRESS_CHECK(dc__table_execute_context(s->table) == NULL, "an execute context outside any execute");
    primed = fuzz_prime_message();
    model_expect_status(dc_table_stop_emission(s->table), DC_ERR_STATE, primed,
                              "dc_table_stop_emission outside any execute");
    stress_pop();
}

/* A handler stays a while, so removes and blocks on other threads meet it. */
static void linger(void) {
    stress_push(note(OP_LINGER, 0, NO_EVENT, NO_RECORD, 0));
    unsigned turns = 1 + below(8);
    for (unsigned i = 0; i < turns; i++) sched_yield();
    me->stats.lingers++;
    stress_pop();
}

/* What a running handler does next. Nothing once its table's destroy began,
 * but for destroying it again. */
static void act(record *r) {
    unsigned slot = r->slot;
    int state = atomic_load(&slots[slot].state);
    if (state != TABLE_OPEN) {
        if (state == TABLE_DESTROYED_FROM_HANDLER && chance(5)) destroy_from_handler(slot, OP_DESTROY_FROM_HANDLER);
        return;
    }
    bool may_nest = me->frame_count < MAX_NESTING;
    unsigned roll = below(1000);
    if (roll < 380) return;
    if (roll < 480) linger();
    else if (roll < 560) {
        if (may_nest) do_execute(slot);
    } else if (roll < 615) do_remove(slot, r);
    else if (roll < 675) do_block(slot, r);
    else if (roll < 725) do_unblock(slot);
    else if (roll < 805) do_add(slot);
    else if (roll < 830) {
        stress_push(note(OP_STOP_EMISSION, slot, r->event, r->index, 0));
        dc_status status = dc_table_stop_emission(slots[slot].table);
        STRESS_CHECK(status == DC_OK, "dc_table_stop_emission in handler r%u gave %s", r->index,
                     dc_status_name(status));
        frame *f = &me->frames[me->frame_count - 1];
        if (f->kind == FRAME_EXECUTE) f->seen.stop_called = true;
        stress_pop();
    } else if (roll < 870) do_remove_many(slot, r);
    else if (roll < 880) do_add_duplicate(slot);
    else if (roll < 930) {
        if (may_nest) do_drain();
    } else if (roll < 933) {
        destroy_from_handler(slot, OP_DESTROY_FROM_HANDLER);
    }
}

/* One operation outside any handler. */
static void top_level_operation(void) {
    unsigned slot = below(SLOT_COUNT);
    unsigned roll = below(1000);
    me->stats.operations++;
    if (roll < 80) {
        do_drain();
        return;
    }
    if (roll < 83) {
        destroy_from_outside(slot, OP_DESTROY_OUTSIDE);
        return;
    }
    if (!enter_table(slot)) return;
    if (roll < 260) do_add(slot);
    else if (roll < 280) do_add_duplicate(slot);
    else if (roll < 292) do_add_crowd(slot);
    else if (roll < 360) do_remove(slot, NULL);
    else if (roll < 420) do_block(slot, NULL);
    else if (roll < 480) do_unblock(slot);
    else if (roll < 530) do_remove_many(slot, NULL);
    else if (roll < 570) do_query(slot);
    else do_execute(slot);
    leave_table(slot);
}

/* ---- seam races: features meeting on side tables ---------------------------------------------
 *
 * After its operations, every round runs one seam race (round % SEAM_KINDS)
 * on tables of its own, all threads at once for SEAM_OPS steps each; thread
 * 0 sets it up between two barriers and checks it at the round's end. The
 * races, and what each checks beyond "no report, no hang":
 *
 *  SEAM_OBSERVER: an observer that, told of a change, sometimes adds,
 *    removes or executes, and that any thread replaces (under a lock of this
 *    program's, so the one replaced is known) while the others add, remove
 *    and execute. Every add that returned DC_OK was told exactly once before
 *    it returned, every remove that returned DC_OK too, and nothing else was
 *    told; a replaced observer is never called once dc_table_set_observer
 *    returned, and its destroy notify has run once by then; the last one's
 *    runs once at the table's destroy.
 *  SEAM_NOTIFIES: destroy notifies that remove another thread's handler or
 *    add a handler, beside an observer, while the threads add, remove, block
 *    and execute. Each notify runs once per handler added (DC_OK), never for
 *    a refused add (during the table's destroy an add from a notify is
 *    DC_ERR_STATE), before a remove outside any execute returns; no handler
 *    starts after its notify ran, or after a remove or block returned.
 *  SEAM_BOMB: a table (slot SEAM_SLOT, through the gate) whose "bomb"
 *    handler's destroy notify destroys it; the bomb is removed by thread 0
 *    outside any execute, or by a handler inside one, while the other threads
 *    execute, add and remove, with an observer set (issue 37, case 3, with
 *    threads). The table is freed once (the sanitizers), every notify runs
 *    once, no handler starts after the destroy returned, the observer is not
 *    called after its notify, which runs once.
 *  SEAM_STRUCTS: handlers returning {pair=qq}, C functions and marshals that
 *    sometimes decline (writing junk where they were told, then setting
 *    DC_TYPE_VOID), executed under every accumulator with and without
 *    return storage while the threads add, remove, block and unblock: the
 *    result counts exactly the calls and returns the executing thread saw,
 *    the kept struct is the one the accumulator picks among those returned
 *    (never zeroed, torn or a decliner's junk), DC_ACCUMULATE_ALL's array
 *    holds them in order; each of the thread's own handlers, not blocked,
 *    ran exactly once.
 *  SEAM_CLOSURES: a table closure ("qq") and a forwarder (slots "q^vq" and
 *    "v^v") called from every thread while each adds and removes its own
 *    handlers and delegates: a call returns the first value its thread saw
 *    returned, or 0; each of the caller's own handlers or implementing
 *    delegates ran exactly once in it; a removed one never runs; no error
 *    handler is reached; re-adding a delegate is DC_EXISTS; the delegate
 *    count adds up at the end.
 *  SEAM_REFUSALS: two tables; the ids of one given to dc_table_remove,
 *    _block, _unblock, _contains and _handler_info of the other are
 *    DC_ERR_NOT_FOUND / false and change nothing (the handler is still
 *    listed with its own block count, and an execute runs exactly the
 *    thread's live handlers); calls that fail (a default handler for a
 *    detailed key, a second default, malformed keys, unknown flags, a NULL
 *    function, a target without a parameter for it, a table
 *    closure without a signature, a bad accumulator) give their status and message, leave the
 *    thread's event's listing as it was and intern no key.
 */

enum {
    SEAM_KINDS = 6,
    SEAM_OBSERVER = 0,
    SEAM_NOTIFIES,
    SEAM_BOMB,
    SEAM_STRUCTS,
    SEAM_CLOSURES,
    SEAM_REFUSALS,
    SEAM_OPS = 40,
    SEAM_MAX_RECORDS = 4096,
    SEAM_OBSERVERS = 64,
    TOLD_SIZE = 8192, /* a power of two, well above the handlers of a race */
    SEAM_RESULTS = 4
};

enum seam_step {
    STEP_ADD,
    STEP_REMOVE,
    STEP_BLOCK,
    STEP_UNBLOCK,
    STEP_EXECUTE,
    STEP_REPLACE_OBSERVER,
    STEP_REMOVE_BOMB,
    STEP_CALL_CLOSURE,
    STEP_ADD_DELEGATE,
    STEP_REMOVE_DELEGATE,
    STEP_CALL_VALUE,
    STEP_CALL_PING,
    STEP_FOREIGN_ID,
    STEP_FAILING_CALL,
    STEP_REMOVE_OTHER,
    STEP_ADD_FROM_NOTIFY
};

typedef enum seam_plan { PLAN_NOTHING, PLAN_REMOVE_OTHER, PLAN_ADD, PLAN_BOMB } seam_plan;

typedef enum seam_handler_kind { SEAM_PLAIN, SEAM_PAIR_FUNCTION, SEAM_PAIR_MARSHAL, SEAM_INTEGER, SEAM_DELEGATE } seam_handler_kind;

typedef struct seam_record {
    uint64_t round;
    unsigned index;
    unsigned owner;
    unsigned table; /* 0 or 1: seam_tables */
    seam_handler_kind kind;
    seam_plan plan;
    bool full_delegate; /* SEAM_DELEGATE: implements the value slot too */
    bool default_handler;
    bool with_notify;
    uint64_t added_at; /* the owner's sequence when the add began */
    _Atomic int add_status;
    _Atomic bool published; /* added with DC_OK, the fields above written: other threads may pick it */
    _Atomic dc_handler_id id;
    _Atomic bool removed; /* a remove outside any execute returned DC_OK */
    _Atomic bool blocked; /* a block returned, no unblock began since (the owner's only) */
    _Atomic unsigned notifies;
    _Atomic unsigned runs;
    /* The owner thread's only. */
    bool live; /* added (DC_OK) and not removed by the owner, nor known removed */
    unsigned blocks;
    unsigned own_calls; /* calls on the owner thread, in the owner's current call */
} seam_record;

typedef struct told_entry {
    _Atomic uint64_t id;
    _Atomic unsigned added, removed;
} told_entry;

typedef struct seam_observer {
    unsigned table;
    bool acts;
    _Atomic bool retired;
    _Atomic unsigned destroyed;
    _Atomic unsigned calls;
} seam_observer;

typedef struct delegate_interface {
    int64_t (*value)(void *context, int64_t x);
    void (*ping)(void *context);
} delegate_interface;

static seam_record seam_records[SEAM_MAX_RECORDS];
static _Atomic unsigned seam_record_count;
static told_entry told[TOLD_SIZE];
static seam_observer seam_observers[SEAM_OBSERVERS];
static unsigned seam_observer_current; /* under seam_observer_lock */
static pthread_mutex_t seam_observer_lock = PTHREAD_MUTEX_INITIALIZER;
static int seam_kind = -1; /* this round's race; written by thread 0 between barriers */
static dc_table *seam_tables[2];
static dc_event_id seam_event_ids[2];
static _Atomic bool seam_quiet; /* the race is over: observers and notifies only count */
static _Atomic bool seam_gone;  /* SEAM_BOMB: the destroy from the bomb's notify returned */
static _Atomic bool seam_destroying; /* the round's end destroys the race's tables */
static _Atomic(seam_record *) seam_bomb;
static dc_closure *seam_closure;
static dc_forwarder *seam_forwarder;
static _Atomic unsigned seam_errors; /* error handlers reached */
static dc_signature *seam_signatures[6];
static const char *const seam_encodings[6] = {"v^v", "{pair=qq}^v", "{pair=qq}", "q^vq", "qq", "v"};
enum { SIG_PLAIN, SIG_PAIR_BOUND, SIG_PAIR, SIG_INTEGER_BOUND, SIG_CLOSURE, SIG_VOID };


static seam_pair make_pair(int64_t first) { return (seam_pair){first, ~first * 3}; }
static bool pair_sound(seam_pair p) { return p.first != 0 && p.second == ~p.first * 3; }

static void seam_create_signatures(void) {
    for (unsigned i = 0; i < 6; i++)
        STRESS_CHECK(dc_signature_create(seam_encodings[i], &seam_signatures[i]) == DC_OK, "signature \"%s\"",
                     seam_encodings[i]);
}

static void seam_release_signatures(void) {
    for (unsigned i = 0; i < 6; i++) dc_signature_release(seam_signatures[i]);
}

static const char *seam_event(unsigned table_index) {
    static const char *const own[STRESS_MAX_THREADS] = {"own-0", "own-1", "own-2", "own-3"};
    (void)table_index;
    switch (seam_kind) {
    case SEAM_STRUCTS: return "s";
    case SEAM_CLOSURES: return "c";
    case SEAM_REFUSALS: return own[me->index];
    default: return "e";
    }
}

static dc_table *seam_table(unsigned table_index) {
    return seam_kind == SEAM_BOMB ? slots[SEAM_SLOT].table : seam_tables[table_index];
}

/* Whether a step may use the race's tables now: SEAM_BOMB's only while it is open. */
static bool seam_usable(void) { return seam_kind != SEAM_BOMB || table_open(SEAM_SLOT); }

static seam_record *seam_new_record(unsigned table_index, seam_handler_kind kind) {
    unsigned index = atomic_fetch_add(&seam_record_count, 1);
    if (index >= SEAM_MAX_RECORDS) return NULL;
    /* Zeroed by seam_begin, while no thread ran: other threads may look at
     * it (seam_pick_any) before it is published, so no memset here. */
    seam_record *r = &seam_records[index];
    r->round = round_number;
    r->index = index;
    r->owner = me->index;
    r->table = table_index;
    r->kind = kind;
    r->added_at = ++me->sequence;
    atomic_store(&r->add_status, ADD_PENDING);
    return r;
}

static seam_record *seam_record_from(const void *pointer) {
    uintptr_t p = (uintptr_t)pointer, first = (uintptr_t)seam_records;
    if (p < first || p >= first + sizeof seam_records || (p - first) % sizeof(seam_record) != 0) return NULL;
    return (seam_record *)(uintptr_t)pointer;
}

/* ---- what the observers were told ---------------------------------------------------------- */

static told_entry *told_find(uint64_t id, bool insert) {
    size_t at = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 51) & (TOLD_SIZE - 1);
    for (size_t probe = 0; probe < TOLD_SIZE; probe++, at = (at + 1) & (TOLD_SIZE - 1)) {
        uint64_t key = atomic_load(&told[at].id);
        if (key == id) return &told[at];
        if (key != 0) continue;
        if (!insert) return NULL;
        uint64_t empty = 0;
        if (atomic_compare_exchange_strong(&told[at].id, &empty, id) || empty == id) return &told[at];
    }
    STRESS_CHECK(false, "the observers' record of handler ids is full");
    return NULL;
}

static unsigned told_added(dc_handler_id id) {
    told_entry *e = told_find(id, false);
    return e != NULL ? atomic_load(&e->added) : 0;
}

static unsigned told_removed(dc_handler_id id) {
    told_entry *e = told_find(id, false);
    return e != NULL ? atomic_load(&e->removed) : 0;
}

/* Whether this race's observer tells of the changes on table `table_index`. */
static bool seam_observed(unsigned table_index) {
    return table_index == 0 && (seam_kind == SEAM_OBSERVER || seam_kind == SEAM_NOTIFIES || seam_kind == SEAM_BOMB);
}

static void seam_own(seam_record *r) {
    r->live = true;
    if (me->owned_count < 64) me->owned[me->owned_count++] = r;
}

static seam_record *seam_pick_own(bool (*wanted)(const seam_record *)) {
    for (unsigned attempt = 0; attempt < 4 && me->owned_count > 0; attempt++) {
        seam_record *r = me->owned[below(me->owned_count)];
        if (r->live && (wanted == NULL || wanted(r))) return r;
    }
    return NULL;
}

static void seam_disown(seam_record *r) {
    r->live = false;
    for (unsigned i = 0; i < me->owned_count; i++)
        if (me->owned[i] == r) me->owned[i] = me->owned[--me->owned_count];
}

/* A registered record of any thread; NULL when none turned up. */
static seam_record *seam_pick_any(void) {
    unsigned count = atomic_load(&seam_record_count);
    if (count > SEAM_MAX_RECORDS) count = SEAM_MAX_RECORDS;
    for (unsigned attempt = 0; attempt < 4 && count > 0; attempt++) {
        seam_record *r = &seam_records[below(count)];
        if (atomic_load(&r->published)) return r;
    }
    return NULL;
}

static void seam_act_in_observer(unsigned table_index);
static void seam_plain(void *target);
static void seam_destroy_from_notify(void);

static void seam_observe(void *data, dc_table *table, dc_table_change change, dc_event_id event,
                         dc_handler_id handler) {
    seam_observer *o = data;
    unsigned generation = (unsigned)(o - seam_observers);
    stress_push_note(note(OP_SEAM_OBSERVER, 0, NO_EVENT, NO_RECORD, generation), true);
    STRESS_CHECK(!atomic_load(&o->retired), "observer %u was called after dc_table_set_observer replaced it",
                 generation);
    STRESS_CHECK(atomic_load(&o->destroyed) == 0, "observer %u was called after its destroy notify ran", generation);
    STRESS_CHECK(table == seam_table(o->table), "observer %u was told of table %p, not its own", generation,
                 (void *)table);
    STRESS_CHECK(change == DC_HANDLER_ADDED || change == DC_HANDLER_REMOVED, "observer told of change %d",
                 (int)change);
    STRESS_CHECK(handler != 0, "observer told of handler id 0");
    if (seam_event_ids[o->table] != 0)
        STRESS_CHECK(event == seam_event_ids[o->table], "observer told of event %u, handlers are added to %u", event,
                     seam_event_ids[o->table]);
    atomic_fetch_add(&o->calls, 1);
    me->stats.seam_told++;
    told_entry *e = told_find(handler, true);
    if (change == DC_HANDLER_ADDED) {
        unsigned before = atomic_fetch_add(&e->added, 1);
        STRESS_CHECK(before == 0, "the observers were told twice that handler %llu was added",
                     (unsigned long long)handler);
    } else {
        STRESS_CHECK(atomic_load(&e->added) == 1, "the observers were told handler %llu was removed, never added",
                     (unsigned long long)handler);
        unsigned before = atomic_fetch_add(&e->removed, 1);
        STRESS_CHECK(before == 0, "the observers were told twice that handler %llu was removed",
                     (unsigned long long)handler);
    }
    if (o->acts && me->observer_depth == 0 && !atomic_load(&seam_quiet) && seam_usable()) {
        me->observer_depth++;
        seam_act_in_observer(o->table);
        me->observer_depth--;
    }
    stress_pop();
}

static void seam_observer_destroyed(void *data) {
    seam_observer *o = data;
    unsigned before = atomic_fetch_add(&o->destroyed, 1);
    STRESS_CHECK(before == 0, "observer %u's destroy notify ran a second time", (unsigned)(o - seam_observers));
}

/* Sets generation `generation` as table 0's observer (under the lock). */
static void seam_set_observer(unsigned generation, bool acts) {
    seam_observer *o = &seam_observers[generation];
    memset(o, 0, sizeof *o);
    o->table = 0;
    o->acts = acts;
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_set_observer(seam_table(0), seam_observe, o, seam_observer_destroyed);
    model_expect_status(status, DC_OK, primed, "dc_table_set_observer");
}

/* ---- destroy notifies ---------------------------------------------------------------------- */

static bool seam_add(unsigned table_index, seam_handler_kind kind, seam_plan plan, uint32_t flags);
static bool seam_remove(seam_record *r, bool own);

static void seam_notify(void *data) {
    seam_record *r = seam_record_from(data);
    STRESS_CHECK(r != NULL, "a seam destroy notify ran with data %p", data);
    stress_push_note(note(OP_NOTIFY, SEAM_SLOT, NO_EVENT, r->index, 0), true);
    unsigned before = atomic_fetch_add(&r->notifies, 1);
    STRESS_CHECK(before == 0, "the destroy notify of seam r%u ran a second time", r->index);
    int added = atomic_load(&r->add_status);
    STRESS_CHECK(added == ADD_PENDING || added == DC_OK, "the destroy notify of seam r%u ran, its add gave %s",
                 r->index, dc_status_name((dc_status)added));
    me->stats.seam_notifies++;
    if (r->plan == PLAN_BOMB) {
        seam_destroy_from_notify();
    } else if (r->plan == PLAN_ADD && atomic_load(&seam_destroying)) {
        /* Run by the table's destroy: an add is refused. */
        seam_record *added = seam_new_record(r->table, SEAM_PLAIN);
        if (added != NULL) {
            dc_handler_options options = {0, NULL, seam_notify, added};
            const char *primed = fuzz_prime_message();
            dc_status status = dc_table_add(seam_table(r->table), seam_event(r->table), seam_signatures[SIG_PLAIN],
                                            DC_FUNCTION(seam_plain), added, &options, NULL);
            atomic_store(&added->add_status, status);
            model_expect_status(status, DC_ERR_STATE, primed, "an add from a destroy notify run by the table's destroy");
        }
    } else if (!atomic_load(&seam_quiet) && seam_usable() && me->observer_depth == 0) {
        /* Not from an observer's call: its depth is the observer's. */
        if (r->plan == PLAN_REMOVE_OTHER) {
            seam_record *victim = seam_pick_any();
            if (victim != NULL && victim != r && victim->table == r->table) seam_remove(victim, false);
        } else if (r->plan == PLAN_ADD) {
            stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, r->index, STEP_ADD_FROM_NOTIFY));
            seam_add(r->table, SEAM_PLAIN, PLAN_NOTHING, 0);
            stress_pop();
        }
    }
    stress_pop();
}

/* The bomb: destroys SEAM_SLOT's table from its destroy notify, the way a
 * handler does inside an execute on this thread, the way an outside
 * destroyer does from a remove outside any (through the gate). */
static void seam_destroy_from_notify(void) {
    if (atomic_load(&seam_quiet)) return; /* the round's end destroys it */
    if (me->seam_depth > 0)
        destroy_from_handler(SEAM_SLOT, OP_DESTROY_FROM_NOTIFY);
    else if (atomic_load(&me->top[SEAM_SLOT]))
        destroy_from_outside(SEAM_SLOT, OP_DESTROY_FROM_NOTIFY);
    else
        return;
    int state = atomic_load(&slots[SEAM_SLOT].state);
    if (state == TABLE_DESTROYED_OUTSIDE || state == TABLE_DESTROYED_FROM_HANDLER) {
        atomic_store(&seam_gone, true);
        me->stats.seam_bombs++;
        if (me->observer_depth > 0) me->stats.seam_bombs_in_observer++;
        else if (me->seam_depth > 0) me->stats.seam_bombs_in_handler++;
    }
}

/* ---- handlers ------------------------------------------------------------------------------ */

static void seam_act_in_handler(seam_record *r);

/* The start of a seam handler's call: checks it may run, counts it. */
static seam_frame *seam_enter(seam_record *r, const char *what) {
    STRESS_CHECK(r != NULL, "a seam %s ran with data that is no record", what);
    if (seam_kind == SEAM_BOMB) atomic_fetch_add(&me->in_handler[SEAM_SLOT], 1);
    stress_push_note(note(OP_HANDLER, SEAM_SLOT, NO_EVENT, r->index, me->seam_depth), true);
    STRESS_CHECK(r->round == round_number, "seam %s r%u of round %llu ran in round %llu", what, r->index,
                 (unsigned long long)r->round, (unsigned long long)round_number);
    STRESS_CHECK(me->seam_depth > 0, "seam %s r%u ran outside any call of this thread", what, r->index);
    STRESS_CHECK(!atomic_load(&r->removed), "seam %s r%u started after a remove of it returned", what, r->index);
    STRESS_CHECK(!atomic_load(&r->blocked), "seam %s r%u started after a block of it returned", what, r->index);
    STRESS_CHECK(atomic_load(&r->notifies) == 0, "seam %s r%u started after its destroy notify ran", what, r->index);
    int added = atomic_load(&r->add_status);
    STRESS_CHECK(added == ADD_PENDING || added == DC_OK, "seam %s r%u ran, its add gave %s", what, r->index,
                 dc_status_name((dc_status)added));
    if (seam_kind == SEAM_BOMB)
        STRESS_CHECK(!atomic_load(&seam_gone), "seam %s r%u started after the bomb's destroy of its table returned",
                     what, r->index);
    if (r->owner == me->index && me->seam_depth == 1) r->own_calls++; /* in the outermost call only */
    atomic_fetch_add(&r->runs, 1);
    seam_frame *f = &me->seam_frames[me->seam_depth - 1];
    f->calls++;
    return f;
}

static void seam_leave(void) {
    stress_pop();
    if (seam_kind == SEAM_BOMB) atomic_fetch_sub(&me->in_handler[SEAM_SLOT], 1);
}

static void seam_plain(void *target) {
    seam_record *r = seam_record_from(target);
    seam_enter(r, "handler");
    seam_act_in_handler(r);
    seam_leave();
}

static void note_pair(seam_frame *f, seam_pair p) {
    if (f->returns < SEAM_MOST_PAIRS) f->pairs[f->returns] = p;
    f->returns++;
}

static seam_pair seam_pair_function(void *target) {
    seam_record *r = seam_record_from(target);
    seam_frame *f = seam_enter(r, "struct function");
    seam_pair p = make_pair((int64_t)(r->index + 1) << 20 | (int64_t)(f->calls & 0xFFFFF));
    note_pair(f, p);
    seam_leave();
    return p;
}

static void seam_pair_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)arguments;
    seam_record *r = seam_record_from(data);
    seam_frame *f = seam_enter(r, "struct marshal");
    STRESS_CHECK(count == 0, "struct marshal r%u received %zu values", r->index, count);
    STRESS_CHECK(result != NULL && result->type == DC_TYPE_STRUCT && result->pointer != NULL,
                 "struct marshal r%u: the result arrives as %s, not a struct to fill", r->index,
                 result != NULL ? dc_type_name(result->type) : "NULL");
    seam_pair arrived;
    memcpy(&arrived, result->pointer, sizeof arrived);
    STRESS_CHECK(arrived.first == 0 && arrived.second == 0,
                 "struct marshal r%u: the result arrives as {%lld, %lld}, not zeroed", r->index,
                 (long long)arrived.first, (long long)arrived.second);
    if (chance(40)) {
        /* Declines, having written junk where it was told to. */
        memset(result->pointer, 0x5a, sizeof(seam_pair));
        result->type = DC_TYPE_VOID;
        me->stats.seam_declined++;
    } else {
        seam_pair p = make_pair((int64_t)(r->index + 1) << 20 | (int64_t)(f->calls & 0xFFFFF));
        memcpy(result->pointer, &p, sizeof p);
        note_pair(f, p);
    }
    seam_leave();
}

static int64_t integer_of(const seam_record *r, int64_t x) { return x * 10000 + (int64_t)r->index + 1; }

static int64_t seam_integer(void *target, int64_t x) {
    seam_record *r = seam_record_from(target);
    seam_frame *f = seam_enter(r, "integer handler");
    int64_t value = integer_of(r, x);
    if (f->returns++ == 0) f->first_integer = value;
    seam_leave();
    return value;
}

static int64_t delegate_value(void *context, int64_t x) {
    seam_record *r = seam_record_from(context);
    seam_frame *f = seam_enter(r, "delegate's value slot");
    STRESS_CHECK(r->full_delegate, "delegate r%u's value slot ran, but its vtable has none", r->index);
    int64_t value = integer_of(r, x);
    if (f->returns++ == 0) f->first_integer = value;
    seam_leave();
    return value;
}

static void delegate_ping(void *context) {
    seam_enter(seam_record_from(context), "delegate's ping slot");
    seam_leave();
}

static const delegate_interface full_delegate = {delegate_value, delegate_ping};
static const delegate_interface ping_delegate = {NULL, delegate_ping};

static void seam_closure_error(const dc_closure *closure, dc_status status, const char *message, void *data) {
    (void)closure, (void)data;
    atomic_fetch_add(&seam_errors, 1);
    STRESS_CHECK(false, "a seam closure or forwarder reached its error handler: %s, \"%s\"", dc_status_name(status),
                 message != NULL ? message : "");
}

/* ---- steps ----------------------------------------------------------------------------------- */

static void seam_open_frame(void) {
    STRESS_CHECK(me->seam_depth < SEAM_FRAMES, "seam calls nested too deep");
    seam_frame *f = &me->seam_frames[me->seam_depth++];
    f->calls = f->returns = 0;
    f->first_integer = 0;
}

/* Adds a handler of this race's kind to table `table_index` (this race's
 * event); true when it was added. */
static bool seam_add(unsigned table_index, seam_handler_kind kind, seam_plan plan, uint32_t flags) {
    seam_record *r = seam_new_record(table_index, kind);
    if (r == NULL) return false;
    r->plan = plan;
    r->default_handler = (flags & DC_HANDLER_RUN_FIRST) != 0;
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, r->index, STEP_ADD));
    dc_table *table = seam_table(table_index);
    bool with_notify = plan != PLAN_NOTHING || seam_kind == SEAM_NOTIFIES || seam_kind == SEAM_BOMB || chance(30);
    r->with_notify = with_notify;
    dc_handler_options options = {flags, NULL, with_notify ? seam_notify : NULL, r};
    dc_handler_id id = 0;
    const char *primed = fuzz_prime_message();
    dc_status status;
    switch (kind) {
    case SEAM_PAIR_FUNCTION:
        status = dc_table_add(table, seam_event(table_index), seam_signatures[SIG_PAIR_BOUND],
                              DC_FUNCTION(seam_pair_function), r, &options, &id);
        break;
    case SEAM_PAIR_MARSHAL:
        status = dc_table_add_marshal(table, seam_event(table_index), seam_signatures[SIG_PAIR], seam_pair_marshal, r,
                                      &options, &id);
        break;
    case SEAM_INTEGER:
        status = dc_table_add(table, seam_event(table_index), seam_signatures[SIG_INTEGER_BOUND],
                              DC_FUNCTION(seam_integer), r, &options, &id);
        break;
    default:
        status = dc_table_add(table, seam_event(table_index), seam_signatures[SIG_PLAIN], DC_FUNCTION(seam_plain), r,
                              &options, &id);
        break;
    }
    atomic_store(&r->id, id);
    atomic_store(&r->add_status, status);
    if (status == DC_OK) {
        STRESS_CHECK(id != 0, "a seam add gave id 0");
        if (seam_observed(table_index) && !atomic_load(&seam_quiet) &&
            seam_usable()) /* an add overlapping a destroy is told only before the destroy removes the observer */
            STRESS_CHECK(told_added(id) == 1, "the add of seam r%u (id %llu) returned DC_OK, the observers were told "
                                              "of it %u times",
                         r->index, (unsigned long long)id, told_added(id));
        seam_own(r);
        atomic_store(&r->published, true);
    } else {
        /* Only while the bomb's table is destroyed may an add fail. */
        STRESS_CHECK(status == DC_ERR_STATE && (seam_kind == SEAM_BOMB || atomic_load(&seam_quiet)),
                     "a seam add gave %s", dc_status_name(status));
        model_check_message(status, primed, "a seam add while the table is destroyed");
        STRESS_CHECK(atomic_load(&r->notifies) == 0, "a refused seam add ran its destroy notify");
    }
    stress_pop();
    return status == DC_OK;
}

/* Removes `r` by id: one of this thread's (`own`) or anyone's. Outside any
 * call of this thread, a DC_OK remove has run its notify and been told. */
static bool seam_remove(seam_record *r, bool own) {
    dc_handler_id id = atomic_load(&r->id);
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, r->index, own ? STEP_REMOVE : STEP_REMOVE_OTHER));
    if (own && r->blocks > 0) atomic_store(&r->blocked, false); /* a removed handler's block ends too */
    if (own) seam_disown(r); /* before: an observer told of this remove may pick another */
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_remove(seam_table(r->table), id);
    /* Inside a handler, hook or observer call a remove may not wait (the
     * header's "Waiting"). */
    bool outside = me->seam_depth == 0 && me->observer_depth == 0;
    if (own && !atomic_load(&r->removed)) {
        /* Only a notify's remove of another thread's handler races this one. */
        if (seam_kind == SEAM_NOTIFIES || seam_kind == SEAM_BOMB)
            expect_either(status, DC_OK, DC_ERR_NOT_FOUND, primed, "a seam remove of an own handler");
        else
            model_expect_status(status, DC_OK, primed, "a seam remove of an own handler");
    } else {
        expect_either(status, DC_OK, DC_ERR_NOT_FOUND, primed, "a seam remove");
    }
    /* Told on this thread before the remove returns, at any depth. */
    if (status == DC_OK && seam_observed(r->table) && !atomic_load(&seam_quiet) && seam_usable())
        STRESS_CHECK(told_removed(id) == 1, "the remove of seam r%u returned DC_OK, the observers were told of it %u "
                                            "times",
                     r->index, told_removed(id));
    if (status == DC_OK && outside) {
        atomic_store(&r->removed, true);
        if (r->with_notify)
            STRESS_CHECK(atomic_load(&r->notifies) == 1, "the remove of seam r%u returned, its destroy notify had run %u times",
                         r->index, atomic_load(&r->notifies));
    }
    stress_pop();
    return status == DC_OK;
}

static bool blockable(const seam_record *r) { return r->plan != PLAN_BOMB && !r->default_handler; }

static void seam_block(void) {
    seam_record *r = seam_pick_own(blockable);
    if (r == NULL || me->seam_depth > 0) return;
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, r->index, STEP_BLOCK));
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_block(seam_table(r->table), atomic_load(&r->id));
    if (status == DC_OK) {
        r->blocks++;
        atomic_store(&r->blocked, true);
    } else {
        /* Removed meanwhile by another thread's destroy notify. */
        STRESS_CHECK(seam_kind == SEAM_NOTIFIES || seam_kind == SEAM_BOMB, "a seam block gave %s",
                     dc_status_name(status));
        model_expect_status(status, DC_ERR_NOT_FOUND, primed, "a seam block");
        seam_disown(r);
    }
    stress_pop();
}

static bool blocked_by_me(const seam_record *r) { return r->blocks > 0; }

static void seam_unblock(void) {
    seam_record *r = seam_pick_own(blocked_by_me);
    if (r == NULL) return;
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, r->index, STEP_UNBLOCK));
    if (r->blocks == 1) atomic_store(&r->blocked, false);
    r->blocks--;
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_unblock(seam_table(r->table), atomic_load(&r->id));
    if (seam_kind == SEAM_NOTIFIES || seam_kind == SEAM_BOMB)
        expect_either(status, DC_OK, DC_ERR_NOT_FOUND, primed, "a seam unblock");
    else
        model_expect_status(status, DC_OK, primed, "a seam unblock of a handler this thread blocked");
    stress_pop();
}

/* Before one of this thread's calls: its own handlers' calls counted from 0. */
static void seam_clear_own_calls(void) {
    for (unsigned i = 0; i < me->owned_count; i++) me->owned[i]->own_calls = 0;
}

/* After it (begun at `began`, on table `table_index`): each live one of
 * them added before that `takes_part` ran exactly once, or not at all when
 * blocked. */
static void seam_check_own_calls(bool (*takes_part)(const seam_record *), unsigned table_index, uint64_t began,
                                 const char *what) {
    for (unsigned i = 0; i < me->owned_count; i++) {
        seam_record *r = me->owned[i];
        if (!r->live || r->table != table_index || r->added_at > began || (takes_part != NULL && !takes_part(r)))
            continue;
        unsigned expected = r->blocks > 0 ? 0u : 1u;
        STRESS_CHECK(r->own_calls == expected, "%s: this thread's handler r%u (%sblocked) ran %u times in it", what,
                     r->index, r->blocks > 0 ? "" : "not ", r->own_calls);
    }
}

/* A plain execute of this race's event on table `table_index`. */
static void seam_execute(unsigned table_index) {
    if (me->seam_depth >= SEAM_FRAMES - 1) return;
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, NO_RECORD, STEP_EXECUTE));
    bool outermost = me->seam_depth == 0 && me->observer_depth == 0;
    if (outermost) seam_clear_own_calls();
    uint64_t began = ++me->sequence;
    seam_open_frame();
    dc_result result;
    memset(&result, 0xcc, sizeof result);
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_execute(seam_table(table_index), seam_event(table_index), NULL, 0, &result);
    seam_frame *f = &me->seam_frames[--me->seam_depth];
    model_expect_status(status, DC_OK, primed, "a seam execute");
    STRESS_CHECK(result.handled == f->calls, "a seam execute handled %zu, this thread saw %zu calls", result.handled,
                 f->calls);
    /* Nested ones may meet own handlers added or removed since the outer began. */
    if (outermost && seam_kind != SEAM_NOTIFIES && seam_kind != SEAM_BOMB) seam_check_own_calls(NULL, table_index, began, "a seam execute");
    stress_pop();
}

/* What a seam handler does while it runs. */
static void seam_act_in_handler(seam_record *r) {
    if (atomic_load(&seam_quiet) || !seam_usable()) return;
    unsigned roll = below(100);
    switch (seam_kind) {
    case SEAM_OBSERVER:
        /* Its observer then runs inside an execute. */
        if (roll < 8) seam_add(r->table, SEAM_PLAIN, PLAN_NOTHING, 0);
        break;
    case SEAM_NOTIFIES:
        if (roll < 6) {
            seam_record *victim = seam_pick_any();
            if (victim != NULL && victim != r && victim->table == r->table) seam_remove(victim, false);
        }
        break;
    case SEAM_BOMB: {
        seam_record *bomb = atomic_load(&seam_bomb);
        if (roll < 3 && bomb != NULL) seam_remove(bomb, false);
        else if (roll < 8) {
            seam_record *victim = seam_pick_any();
            if (victim != NULL && victim != r && victim->plan != PLAN_BOMB) seam_remove(victim, false);
        }
        break;
    }
    default: break;
    }
}

/* What an acting observer does when told of a change. */
static void seam_act_in_observer(unsigned table_index) {
    unsigned roll = below(100);
    if (roll < 10) {
        seam_add(table_index, SEAM_PLAIN, PLAN_NOTHING, 0);
    } else if (roll < 20) {
        seam_record *r = seam_pick_own(blockable);
        if (r != NULL && r->blocks == 0) seam_remove(r, true);
    } else if (roll < 28) {
        seam_execute(table_index);
    } else if (roll < 30 && seam_kind == SEAM_BOMB) {
        seam_record *bomb = atomic_load(&seam_bomb);
        if (bomb != NULL) seam_remove(bomb, false);
    }
}

static void seam_replace_observer(void) {
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, NO_RECORD, STEP_REPLACE_OBSERVER));
    pthread_mutex_lock(&seam_observer_lock);
    if (seam_observer_current + 1 < SEAM_OBSERVERS) {
        unsigned old = seam_observer_current++;
        seam_set_observer(seam_observer_current, true);
        STRESS_CHECK(atomic_load(&seam_observers[old].destroyed) == 1,
                     "dc_table_set_observer returned, the replaced observer %u's destroy notify ran %u times", old,
                     atomic_load(&seam_observers[old].destroyed));
        atomic_store(&seam_observers[old].retired, true);
        me->stats.seam_replaced++;
    }
    pthread_mutex_unlock(&seam_observer_lock);
    stress_pop();
}

/* Struct returns: one execute with a random accumulator and storage. */
static void seam_execute_structs(void) {
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, NO_RECORD, STEP_EXECUTE));
    seam_pair storage[SEAM_RESULTS];
    memset(storage, 0xa5, sizeof storage);
    dc_value results[SEAM_RESULTS];
    memset(results, 0, sizeof results);
    dc_accumulator accumulator = (dc_accumulator)below(4);
    bool with_storage = chance(85);
    size_t capacity = accumulator == DC_ACCUMULATE_ALL ? 1 + below(SEAM_RESULTS) : 1;
    dc_execute_options options = {accumulator, 0, NULL, 0, with_storage ? storage : NULL,
                                  with_storage ? capacity * sizeof(seam_pair) : 0};
    if (accumulator == DC_ACCUMULATE_ALL) options.results = results, options.results_capacity = capacity;
    seam_clear_own_calls();
    uint64_t began = ++me->sequence;
    seam_open_frame();
    dc_result result;
    memset(&result, 0xcc, sizeof result);
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_execute_with(seam_table(0), "s", NULL, 0, &options, &result);
    seam_frame *f = &me->seam_frames[--me->seam_depth];
    model_expect_status(status, DC_OK, primed, "a struct execute");
    me->stats.seam_structs++;
    STRESS_CHECK(result.handled == f->calls, "a struct execute handled %zu, this thread saw %zu calls",
                 result.handled, f->calls);
    seam_check_own_calls(NULL, 0, began, "a struct execute");
    size_t returned = with_storage ? f->returns : 0; /* without room, not kept and not counted */
    STRESS_CHECK(result.return_count == returned, "accumulator %d%s: return_count %zu, %zu structs returned",
                 (int)accumulator, with_storage ? "" : " without storage", result.return_count, returned);
    STRESS_CHECK(result.has_return_value == (returned > 0), "accumulator %d: has_return_value %d, %zu returned",
                 (int)accumulator, result.has_return_value, returned);
    if (returned == 0 || returned > SEAM_MOST_PAIRS) {
        if (returned == 0)
            STRESS_CHECK(result.return_value.type == DC_TYPE_VOID, "a struct execute with nothing kept returned %s",
                         dc_type_name(result.return_value.type));
        stress_pop();
        return;
    }
    me->stats.seam_kept++;
    size_t pick = accumulator == DC_ACCUMULATE_FIRST || accumulator == DC_ACCUMULATE_ALL ? 0 : returned - 1;
    seam_pair expected = f->pairs[pick];
    STRESS_CHECK(result.return_value.type == DC_TYPE_STRUCT && result.return_value.pointer == (void *)&storage[0],
                 "accumulator %d: the return value is %s at %p, not the struct kept at %p", (int)accumulator,
                 dc_type_name(result.return_value.type), result.return_value.pointer, (void *)&storage[0]);
    STRESS_CHECK(pair_sound(storage[0]) && storage[0].first == expected.first && storage[0].second == expected.second,
                 "accumulator %d, %zu structs returned: kept {%lld, %lld}, returned %zu-th was {%lld, %lld}%s",
                 (int)accumulator, returned, (long long)storage[0].first, (long long)storage[0].second, pick + 1,
                 (long long)expected.first, (long long)expected.second,
                 pair_sound(storage[0]) ? "" : " (a struct no handler returned: zeroed, torn or junk)");
    if (accumulator == DC_ACCUMULATE_ALL) {
        for (size_t i = 0; i < capacity && i < returned; i++) {
            STRESS_CHECK(results[i].type == DC_TYPE_STRUCT && results[i].pointer == (void *)&storage[i],
                         "DC_ACCUMULATE_ALL: results[%zu] is %s at %p, not the struct at %p", i,
                         dc_type_name(results[i].type), results[i].pointer, (void *)&storage[i]);
            STRESS_CHECK(storage[i].first == f->pairs[i].first && storage[i].second == f->pairs[i].second,
                         "DC_ACCUMULATE_ALL: struct %zu kept as {%lld, %lld}, returned as {%lld, %lld}", i,
                         (long long)storage[i].first, (long long)storage[i].second, (long long)f->pairs[i].first,
                         (long long)f->pairs[i].second);
        }
    }
    stress_pop();
}

static bool integer_handler(const seam_record *r) { return r->kind == SEAM_INTEGER; }
static bool full_delegate_record(const seam_record *r) { return r->kind == SEAM_DELEGATE && r->full_delegate; }
static bool any_delegate(const seam_record *r) { return r->kind == SEAM_DELEGATE; }

static void seam_call_closure(void) {
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, NO_RECORD, STEP_CALL_CLOSURE));
    int64_t x = (int64_t)below(1000);
    seam_clear_own_calls();
    uint64_t began = ++me->sequence;
    seam_open_frame();
    int64_t got = ((int64_t(*)(int64_t))dc_closure_function(seam_closure))(x);
    seam_frame *f = &me->seam_frames[--me->seam_depth];
    me->stats.seam_closure_calls++;
    int64_t expected = f->returns > 0 ? f->first_integer : 0;
    STRESS_CHECK(got == expected, "the table closure returned %lld, the first handler this thread saw returned %lld "
                                  "(%zu calls)",
                 (long long)got, (long long)expected, f->calls);
    seam_check_own_calls(integer_handler, 0, began, "a table closure call");
    stress_pop();
}

static void seam_add_delegate(void) {
    seam_record *r = seam_new_record(0, SEAM_DELEGATE);
    if (r == NULL) return;
    r->full_delegate = chance(70);
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, r->index, STEP_ADD_DELEGATE));
    const delegate_interface *vtable = r->full_delegate ? &full_delegate : &ping_delegate;
    const char *primed = fuzz_prime_message();
    dc_status status = dc_forwarder_add(seam_forwarder, vtable, r);
    atomic_store(&r->add_status, status);
    model_expect_status(status, DC_OK, primed, "dc_forwarder_add");
    seam_own(r);
    if (chance(20)) {
        primed = fuzz_prime_message();
        model_expect_status(dc_forwarder_add(seam_forwarder, vtable, r), DC_EXISTS, primed,
                            "dc_forwarder_add of a delegate added already");
    }
    stress_pop();
}

static void seam_remove_delegate(void) {
    seam_record *r = seam_pick_own(any_delegate);
    if (r == NULL) return;
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, r->index, STEP_REMOVE_DELEGATE));
    const char *primed = fuzz_prime_message();
    model_expect_status(dc_forwarder_remove(seam_forwarder, r->full_delegate ? &full_delegate : &ping_delegate, r),
                        DC_OK, primed, "dc_forwarder_remove");
    atomic_store(&r->removed, true);
    seam_disown(r);
    if (chance(20)) {
        primed = fuzz_prime_message();
        model_expect_status(dc_forwarder_remove(seam_forwarder, r->full_delegate ? &full_delegate : &ping_delegate, r),
                            DC_ERR_NOT_FOUND, primed, "dc_forwarder_remove of a delegate removed already");
    }
    stress_pop();
}

static void seam_call_forwarder(bool value_slot) {
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, NO_RECORD, value_slot ? STEP_CALL_VALUE : STEP_CALL_PING));
    const delegate_interface *vtable = dc_forwarder_vtable(seam_forwarder);
    void *context = dc_forwarder_context(seam_forwarder);
    int64_t x = (int64_t)below(1000);
    seam_clear_own_calls();
    uint64_t began = ++me->sequence;
    seam_open_frame();
    int64_t got = 0;
    if (value_slot)
        got = vtable->value(context, x);
    else
        vtable->ping(context);
    seam_frame *f = &me->seam_frames[--me->seam_depth];
    me->stats.seam_forwarder_calls++;
    if (value_slot) {
        int64_t expected = f->returns > 0 ? f->first_integer : 0;
        STRESS_CHECK(got == expected, "the forwarder's value slot returned %lld, the first delegate this thread saw "
                                      "returned %lld (%zu calls)",
                     (long long)got, (long long)expected, f->calls);
        seam_check_own_calls(full_delegate_record, 0, began, "a forwarder's value slot call");
    } else {
        seam_check_own_calls(any_delegate, 0, began, "a forwarder's ping slot call");
    }
    stress_pop();
}

/* The interned keys of table `table_index` are all among those a call that
 * succeeds interns: a refused call interned none. */
static void seam_check_interned(unsigned table_index, const char *after) {
    for (dc_event_id id = 1;; id++) {
        const char *name = NULL;
        if (dc_table_event_name(seam_table(table_index), id, &name) != DC_OK) break;
        bool known = strcmp(name, "own-0") == 0 || strcmp(name, "own-1") == 0 || strcmp(name, "own-2") == 0 ||
                     strcmp(name, "own-3") == 0;
        STRESS_CHECK(known, "\"%s\" is interned in table %u after %s", name, table_index, after);
    }
}

static bool in_table_1(const seam_record *r) { return r->table == 1 && r->kind == SEAM_PLAIN; }

/* Ids of table 1 given to table 0: refused, nothing changes. */
static void seam_use_foreign_id(void) {
    seam_record *r = chance(70) ? seam_pick_own(in_table_1) : NULL;
    bool own = r != NULL;
    if (r == NULL) r = seam_pick_any();
    if (r == NULL || r->table != 1) return;
    stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, r->index, STEP_FOREIGN_ID));
    me->stats.seam_foreign++;
    dc_table *a = seam_table(0), *b = seam_table(1);
    dc_handler_id id = atomic_load(&r->id);
    const char *primed = fuzz_prime_message();
    model_expect_status(dc_table_remove(a, id), DC_ERR_NOT_FOUND, primed, "dc_table_remove of another table's id");
    primed = fuzz_prime_message();
    model_expect_status(dc_table_block(a, id), DC_ERR_NOT_FOUND, primed, "dc_table_block of another table's id");
    primed = fuzz_prime_message();
    model_expect_status(dc_table_unblock(a, id), DC_ERR_NOT_FOUND, primed, "dc_table_unblock of another table's id");
    STRESS_CHECK(!dc_table_contains(a, id), "table 0 contains table 1's handler r%u", r->index);
    dc_handler_info info;
    primed = fuzz_prime_message();
    model_expect_status(dc_table_handler_info(a, id, &info), DC_ERR_NOT_FOUND, primed,
                        "dc_table_handler_info of another table's id");
    if (own) {
        STRESS_CHECK(dc_table_contains(b, id), "table 1's handler r%u is gone after its id was used on table 0",
                     r->index);
        STRESS_CHECK(dc_table_handler_info(b, id, &info) == DC_OK && info.blocked == r->blocks && info.target == r,
                     "table 1's handler r%u: blocked %u times, the owner blocked it %u", r->index, info.blocked,
                     r->blocks);
    }
    stress_pop();
}

/* The listing of this thread's event: only this thread changes it. */
typedef struct listing {
    size_t count;
    dc_handler_info handlers[66];
} listing;

static void list_own(unsigned table_index, listing *out) {
    out->count = 0;
    STRESS_CHECK(dc_table_handlers(seam_table(table_index), seam_event(table_index), out->handlers, 66, &out->count) ==
                     DC_OK && out->count <= 66,
                 "dc_table_handlers of \"%s\" failed or listed %zu", seam_event(table_index), out->count);
}

static void seam_failing_call(void) {
    unsigned which = below(10);
    unsigned table_index = which == 2 ? 0 : below(2); /* table 0 has this thread's default handler */
    stress_push(note(OP_SEAM_STEP, table_index, NO_EVENT, NO_RECORD, STEP_FAILING_CALL));
    me->stats.seam_refused++;
    dc_table *table = seam_table(table_index);
    const char *own = seam_event(table_index);
    char key[48];
    listing before, after;
    list_own(table_index, &before);
    size_t count_before = 99, count_after = 98;
    STRESS_CHECK(dc_table_handler_count(table, own, &count_before) == DC_OK, "dc_table_handler_count failed");
    dc_handler_options first = {DC_HANDLER_RUN_FIRST, NULL, seam_notify, NULL};
    dc_handler_options last = {DC_HANDLER_RUN_LAST, NULL, seam_notify, NULL};
    seam_record *r = seam_new_record(table_index, SEAM_PLAIN);
    if (r == NULL) {
        stress_pop();
        return;
    }
    first.destroy_data = last.destroy_data = r;
    const char *primed = fuzz_prime_message();
    dc_status status, expected;
    const char *what;
    switch (which) {
    case 0:
        snprintf(key, sizeof key, "%s::detail", own);
        status = dc_table_add(table, key, seam_signatures[SIG_PLAIN], DC_FUNCTION(seam_plain), r, &first, NULL);
        expected = DC_ERR_INVALID_ARGUMENT, what = "a run-first default handler for a detailed key";
        break;
    case 1:
        snprintf(key, sizeof key, "fresh-%u-%u::detail", me->index, r->index);
        status = dc_table_add_marshal(table, key, seam_signatures[SIG_PAIR], seam_pair_marshal, r, &last, NULL);
        expected = DC_ERR_INVALID_ARGUMENT, what = "a run-last default marshal for a fresh detailed key";
        break;
    case 2:
        status = dc_table_add(table, own, seam_signatures[SIG_PLAIN], DC_FUNCTION(seam_plain), r, &first, NULL);
        expected = DC_ERR_STATE, what = "a second default handler";
        break;
    case 3: {
        static const char *const malformed[] = {"::x", "x::", "a::b::c", "a:::b"};
        snprintf(key, sizeof key, "%s%s", below(2) ? "fresh" : "", malformed[below(4)]);
        status = dc_table_add(table, key, seam_signatures[SIG_PLAIN], DC_FUNCTION(seam_plain), r, &last, NULL);
        expected = DC_ERR_INVALID_ARGUMENT, what = "an add to a malformed key";
        break;
    }
    case 4: {
        dc_handler_options unknown = {1u << 12, NULL, seam_notify, r};
        snprintf(key, sizeof key, "fresh-%u-%u", me->index, r->index);
        status = dc_table_add(table, chance(50) ? own : key, seam_signatures[SIG_PLAIN], DC_FUNCTION(seam_plain), r,
                              &unknown, NULL);
        expected = DC_ERR_INVALID_ARGUMENT, what = "an add with an unknown flag";
        break;
    }
    case 5:
        snprintf(key, sizeof key, "fresh-%u-%u", me->index, r->index);
        status = dc_table_add(table, key, seam_signatures[SIG_PLAIN], NULL, r, NULL, NULL);
        expected = DC_ERR_NULL_ARGUMENT, what = "an add of a NULL function";
        break;
    case 6:
        snprintf(key, sizeof key, "fresh-%u-%u", me->index, r->index);
        status = dc_table_add(table, chance(50) ? own : key, seam_signatures[SIG_VOID], DC_FUNCTION(seam_plain), r,
                              NULL, NULL);
        expected = DC_ERR_TYPE, what = "an add with a target and no parameter for it";
        break;
    case 7: {
        dc_closure *closure = (dc_closure *)(uintptr_t)1;
        snprintf(key, sizeof key, "closure-%u-%u", me->index, r->index);
        primed = fuzz_prime_message();
        status = dc_table_closure_create(table, chance(50) ? own : key, NULL, &closure);
        STRESS_CHECK(closure == (dc_closure *)(uintptr_t)1, "a refused table closure wrote *out");
        expected = DC_ERR_NULL_ARGUMENT, what = "a table closure without a signature";
        break;
    }
    case 8: {
        dc_execute_options options = {(dc_accumulator)7, 0, NULL, 0, NULL, 0};
        snprintf(key, sizeof key, "fresh-%u-%u", me->index, r->index);
        dc_result result;
        status = dc_table_execute_with(table, chance(50) ? own : key, NULL, 0, &options, &result);
        expected = DC_ERR_INVALID_ARGUMENT, what = "an execute with an unknown accumulator";
        break;
    }
    default:
        snprintf(key, sizeof key, "fresh-%u-%u", me->index, r->index);
        status = dc_table_remove_event(table, "::", NULL);
        expected = DC_ERR_INVALID_ARGUMENT, what = "a remove of a malformed key";
        break;
    }
    atomic_store(&r->add_status, status);
    model_expect_status(status, expected, primed, what);
    STRESS_CHECK(atomic_load(&r->notifies) == 0, "%s ran the destroy notify it was given", what);
    list_own(table_index, &after);
    STRESS_CHECK(dc_table_handler_count(table, own, &count_after) == DC_OK && count_after == count_before,
                 "\"%s\" had %zu handlers before %s, %zu after", own, count_before, what, count_after);
    STRESS_CHECK(after.count == before.count, "\"%s\" listed %zu handlers before %s, %zu after", own, before.count,
                 what, after.count);
    for (size_t i = 0; i < after.count; i++)
        STRESS_CHECK(after.handlers[i].id == before.handlers[i].id && after.handlers[i].flags == before.handlers[i].flags &&
                         after.handlers[i].blocked == before.handlers[i].blocked &&
                         after.handlers[i].target == before.handlers[i].target,
                     "\"%s\"'s handler %zu changed across %s", own, i, what);
    seam_check_interned(table_index, what);
    stress_pop();
}

/* ---- one race ---------------------------------------------------------------------------------- */

/* Thread 0, every other thread waiting: the race's tables and handlers. */
static void seam_begin(void) {
    seam_kind = (int)(round_number % SEAM_KINDS);
    stress_push(note(OP_SEAM, 0, NO_EVENT, NO_RECORD, (uint32_t)seam_kind));
    unsigned used = atomic_load(&seam_record_count);
    memset(seam_records, 0, (used < SEAM_MAX_RECORDS ? used : SEAM_MAX_RECORDS) * sizeof seam_records[0]);
    atomic_store(&seam_record_count, 0);
    memset(told, 0, sizeof told);
    atomic_store(&seam_quiet, false);
    atomic_store(&seam_gone, false);
    atomic_store(&seam_destroying, false);
    atomic_store(&seam_bomb, NULL);
    atomic_store(&seam_errors, 0);
    seam_event_ids[0] = seam_event_ids[1] = 0;
    seam_tables[0] = seam_tables[1] = NULL;
    const dc_object_callbacks callbacks = {retain_object, release_object};
    if (seam_kind == SEAM_BOMB) {
        table_slot *s = &slots[SEAM_SLOT];
        snprintf(s->name, sizeof s->name, "seam-bomb");
        STRESS_CHECK(dc_table_create(s->name, &callbacks, &s->table) == DC_OK, "dc_table_create failed");
        atomic_store(&s->registered_count, 0);
        atomic_store(&s->broad_removals_in_flight, 0);
        atomic_store(&s->state, TABLE_OPEN);
    } else {
        for (unsigned t = 0; t < 2; t++)
            STRESS_CHECK(dc_table_create(t == 0 ? "seam-a" : "seam-b", &callbacks, &seam_tables[t]) == DC_OK,
                         "dc_table_create failed");
    }
    if (seam_kind != SEAM_REFUSALS)
        STRESS_CHECK(dc_table_intern(seam_table(0), seam_event(0), &seam_event_ids[0]) == DC_OK, "intern");
    if (seam_observed(0)) {
        seam_observer_current = 0;
        seam_set_observer(0, seam_kind != SEAM_NOTIFIES);
    }
    if (seam_kind == SEAM_BOMB) {
        seam_add(0, SEAM_PLAIN, PLAN_BOMB, 0);
        atomic_store(&seam_bomb, &seam_records[0]);
        seam_disown(&seam_records[0]);
    }
    if (seam_kind == SEAM_CLOSURES) {
        STRESS_CHECK(dc_table_closure_create(seam_table(0), "c", seam_signatures[SIG_CLOSURE], &seam_closure) == DC_OK,
                     "dc_table_closure_create failed");
        dc_closure_set_error_handler(seam_closure, seam_closure_error, NULL);
        static const char *const slot_encodings[] = {"q^vq", "v^v"};
        STRESS_CHECK(dc_forwarder_create(slot_encodings, 2, &seam_forwarder) == DC_OK, "dc_forwarder_create failed");
        dc_forwarder_set_error_handler(seam_forwarder, seam_closure_error, NULL);
    }
    me->stats.seam_races[seam_kind]++;
    stress_pop();
}

/* One step of this thread in the race. */
static void seam_step(void) {
    unsigned roll = below(100);
    me->stats.seam_ops++;
    switch (seam_kind) {
    case SEAM_OBSERVER:
        if (roll < 35) seam_add(0, SEAM_PLAIN, PLAN_NOTHING, 0);
        else if (roll < 55) {
            seam_record *r = seam_pick_own(NULL);
            if (r != NULL) seam_remove(r, true);
        } else if (roll < 62) seam_block();
        else if (roll < 67) seam_unblock();
        else if (roll < 92) seam_execute(0);
        else seam_replace_observer();
        break;
    case SEAM_NOTIFIES:
    case SEAM_BOMB:
        if (seam_kind == SEAM_BOMB && me->index == 0 && roll < 4) {
            seam_record *bomb = atomic_load(&seam_bomb);
            stress_push(note(OP_SEAM_STEP, 0, NO_EVENT, NO_RECORD, STEP_REMOVE_BOMB));
            if (bomb != NULL) seam_remove(bomb, false);
            stress_pop();
        } else if (roll < 35) {
            unsigned plan = below(100);
            seam_add(0, SEAM_PLAIN, plan < 30 ? PLAN_REMOVE_OTHER : plan < 55 ? PLAN_ADD : PLAN_NOTHING, 0);
        } else if (roll < 55) {
            seam_record *r = seam_pick_own(NULL);
            if (r != NULL) seam_remove(r, true);
        } else if (roll < 60 && seam_kind == SEAM_NOTIFIES) seam_block();
        else if (roll < 64 && seam_kind == SEAM_NOTIFIES) seam_unblock();
        else seam_execute(0);
        break;
    case SEAM_STRUCTS:
        if (roll < 25) seam_add(0, chance(50) ? SEAM_PAIR_FUNCTION : SEAM_PAIR_MARSHAL, PLAN_NOTHING, 0);
        else if (roll < 38) {
            seam_record *r = seam_pick_own(NULL);
            if (r != NULL) seam_remove(r, true);
        } else if (roll < 46) seam_block();
        else if (roll < 52) seam_unblock();
        else seam_execute_structs();
        break;
    case SEAM_CLOSURES:
        if (roll < 18) seam_add(0, SEAM_INTEGER, PLAN_NOTHING, 0);
        else if (roll < 28) {
            seam_record *r = seam_pick_own(integer_handler);
            if (r != NULL) seam_remove(r, true);
        } else if (roll < 50) seam_call_closure();
        else if (roll < 62) seam_add_delegate();
        else if (roll < 70) seam_remove_delegate();
        else seam_call_forwarder(roll < 88);
        break;
    default: /* SEAM_REFUSALS */
        if (roll < 25) seam_add(below(2), SEAM_PLAIN, PLAN_NOTHING, 0);
        else if (roll < 35) {
            seam_record *r = seam_pick_own(blockable);
            if (r != NULL) seam_remove(r, true);
        } else if (roll < 45) seam_block();
        else if (roll < 50) seam_unblock();
        else if (roll < 65) seam_execute(below(2));
        else if (roll < 82) seam_use_foreign_id();
        else seam_failing_call();
        break;
    }
}

/* Every thread: its steps, then nothing left blocked by it. */
static void seam_run(void) {
    stress_push(note(OP_SEAM, 0, NO_EVENT, NO_RECORD, (uint32_t)seam_kind));
    me->owned_count = 0;
    me->seam_depth = me->observer_depth = 0;
    if (seam_kind == SEAM_REFUSALS) {
        /* This thread's event's default handler, first in its listing. */
        seam_add(0, SEAM_PLAIN, PLAN_NOTHING, DC_HANDLER_RUN_FIRST);
        STRESS_CHECK(dc_table_intern(seam_table(1), seam_event(1), &(dc_event_id){0}) == DC_OK, "intern");
    }
    for (unsigned step = 0; step < SEAM_OPS; step++) {
        if (seam_kind == SEAM_BOMB && !enter_table(SEAM_SLOT)) break;
        seam_step();
        if (seam_kind == SEAM_BOMB) leave_table(SEAM_SLOT);
    }
    if (seam_kind == SEAM_REFUSALS) {
        /* What the other table's ids and the refused calls left: exactly this
         * thread's live handlers run, its default among them. */
        for (unsigned t = 0; t < 2; t++) seam_execute(t);
    }
    stress_pop();
}

/* Thread 0, the others waiting: the race's end, checked. */
static void seam_finish(void) {
    if (seam_kind < 0) return;
    stress_push(note(OP_SEAM, 0, NO_EVENT, NO_RECORD, (uint32_t)seam_kind));
    atomic_store(&seam_quiet, true);
    unsigned count = atomic_load(&seam_record_count);
    if (count > SEAM_MAX_RECORDS) count = SEAM_MAX_RECORDS;
    if (seam_kind == SEAM_OBSERVER) {
        /* Every handler left goes now, told: then each add was told once, and
         * each removal, and nothing else. */
        size_t removed = 0;
        STRESS_CHECK(dc_table_remove_all(seam_table(0), &removed) == DC_OK, "dc_table_remove_all failed");
        unsigned added = 0;
        for (unsigned i = 0; i < count; i++) {
            seam_record *r = &seam_records[i];
            if (atomic_load(&r->add_status) != DC_OK) continue;
            added++;
            dc_handler_id id = atomic_load(&r->id);
            STRESS_CHECK(told_added(id) == 1 && told_removed(id) == 1,
                         "seam r%u (id %llu): the observers were told %u times of its add, %u of its removal",
                         r->index, (unsigned long long)id, told_added(id), told_removed(id));
        }
        unsigned entries = 0;
        for (size_t i = 0; i < TOLD_SIZE; i++) entries += atomic_load(&told[i].id) != 0;
        STRESS_CHECK(entries == added, "the observers were told of %u handlers, %u were added", entries, added);
    }
    if (seam_kind == SEAM_CLOSURES) {
        unsigned live = 0;
        for (unsigned i = 0; i < count; i++) {
            seam_record *r = &seam_records[i];
            if (r->kind == SEAM_DELEGATE && atomic_load(&r->add_status) == DC_OK && !atomic_load(&r->removed)) live++;
        }
        STRESS_CHECK(dc_forwarder_count(seam_forwarder) == live, "the forwarder counts %zu delegates, %u are added",
                     dc_forwarder_count(seam_forwarder), live);
        STRESS_CHECK(atomic_load(&seam_errors) == 0, "error handlers reached");
        dc_closure_destroy(seam_closure);
        dc_forwarder_destroy(seam_forwarder);
        seam_closure = NULL, seam_forwarder = NULL;
    }
    unsigned last_observer = seam_observer_current;
    atomic_store(&seam_destroying, true);
    if (seam_kind == SEAM_BOMB) {
        table_slot *s = &slots[SEAM_SLOT];
        int open = TABLE_OPEN;
        if (atomic_compare_exchange_strong(&s->state, &open, TABLE_DESTROYED_OUTSIDE)) dc_table_destroy(s->table);
        STRESS_CHECK(atomic_load(&s->state) != TABLE_CLOSING, "the bomb's table is left closing");
        s->table = NULL;
    } else {
        for (unsigned t = 0; t < 2; t++) dc_table_destroy(seam_tables[t]);
        seam_tables[0] = seam_tables[1] = NULL;
    }
    for (unsigned t = 0; t < thread_count; t++)
        STRESS_CHECK(atomic_load(&workers[t].top[SEAM_SLOT]) == 0 && atomic_load(&workers[t].in_handler[SEAM_SLOT]) == 0,
                     "thread %u is still in the bomb's table after the race", t);
    if (seam_observed(0))
        STRESS_CHECK(atomic_load(&seam_observers[last_observer].destroyed) == 1,
                     "the last observer's destroy notify ran %u times once the table was destroyed",
                     atomic_load(&seam_observers[last_observer].destroyed));
    for (unsigned i = 0; i < count; i++) {
        seam_record *r = &seam_records[i];
        if (r->kind == SEAM_DELEGATE) continue;
        int status = atomic_load(&r->add_status);
        bool notified = status == DC_OK && r->with_notify;
        unsigned notifies = atomic_load(&r->notifies);
        STRESS_CHECK(notifies == (notified ? 1u : 0u),
                     "seam r%u (add %s) ended the race with its destroy notify run %u times", r->index,
                     status == ADD_PENDING ? "never returned" : dc_status_name((dc_status)status), notifies);
    }
    seam_kind = -1;
    stress_pop();
}

/* ---- rounds ------------------------------------------------------------------------------- */

/* Thread 0, all others waiting: destroy the tables left, check the round. */
static void finish_round(void) {
    seam_finish();
    stress_push(note(OP_ROUND_END, 0, NO_EVENT, NO_RECORD, 0));
    for (unsigned t = 0; t < thread_count; t++)
        for (unsigned s = 0; s < SLOT_COUNT; s++)
            STRESS_CHECK(atomic_load(&workers[t].top[s]) == 0 && atomic_load(&workers[t].in_handler[s]) == 0,
                         "thread %u is still in table %u between rounds", t, s);
    for (unsigned s = 0; s < SLOT_COUNT; s++) {
        int state = atomic_load(&slots[s].state);
        STRESS_CHECK(state != TABLE_CLOSING, "table %u is left closing", s);
        if (state == TABLE_OPEN) {
            atomic_store(&slots[s].destroyed_by, note(OP_ROUND_END, s, NO_EVENT, NO_RECORD, me->index));
            atomic_store(&slots[s].state, TABLE_DESTROYED_OUTSIDE);
            dc_table_destroy(slots[s].table);
        }
        slots[s].table = NULL;
    }
    unsigned count = atomic_load(&record_count);
    if (count > MAX_RECORDS) count = MAX_RECORDS;
    for (unsigned i = 0; i < count; i++) {
        record *r = &records[i];
        int status = atomic_load(&r->add_status);
        unsigned destroys = atomic_load(&r->destroy_calls), releases = atomic_load(&r->target_releases);
        if (r->kind == KIND_CROWD) {
            unsigned adds = atomic_load(&r->crowd_adds);
            STRESS_CHECK(destroys == adds, "crowd r%u on table %u: %u adds, %u destroy notifies", r->index, r->slot,
                         adds, destroys);
            continue;
        }
        STRESS_CHECK(status != ADD_PENDING, "r%u's add never returned", r->index);
        bool registered = status == DC_OK;
        if (destroys != (registered && r->has_destroy ? 1u : 0u)) {
            char how[160];
            stress_describe(atomic_load(&slots[r->slot].destroyed_by), how, sizeof how);
            STRESS_CHECK(false,
                         "r%u (%s, \"%s\", table %u, %s) ended the round with its destroy notify run %u times.\n"
                         "    It was added by thread %u %s, the table %s when the add began and %s when it "
                         "returned;\n    the table was destroyed by: %s (thread %u)",
                         r->index, kind_names[r->kind], event_names[r->event], r->slot,
                         registered ? "registered" : dc_status_name((dc_status)status), destroys, r->adder,
                         r->added_in_handler ? "from a handler" : "outside any handler",
                         state_names[r->state_when_added], state_names[atomic_load(&r->state_when_returned)], how,
                         (unsigned)(atomic_load(&slots[r->slot].destroyed_by) >> 32));
        }
        bool owned = registered && (r->flags & DC__HANDLER_OWNS_TARGET) && r->kind != KIND_ANONYMOUS;
        STRESS_CHECK(releases == (owned ? 1u : 0u),
                     "r%u (%s, added by thread %u %s, the table %s then) ended the round with its owned target "
                     "released %u times",
                     r->index, kind_names[r->kind], r->adder, r->added_in_handler ? "from a handler" : "outside any handler",
                     state_names[atomic_load(&r->state_when_returned)], releases);
    }
    for (unsigned i = 0; i < POOL_SIZE; i++)
        STRESS_CHECK(atomic_load(&pool[i].references) == 0, "object %u: %ld retains not released once the tables are gone",
                     i, atomic_load(&pool[i].references));
    for (unsigned t = 0; t < thread_count; t++) {
        size_t pending = dc_queue_pending(workers[t].queue);
        STRESS_CHECK(pending == 0, "thread %u's queue holds %zu deliveries once the tables are gone", t, pending);
        STRESS_CHECK(!fuzz_fd_readable(dc_queue_fd(workers[t].queue)), "thread %u's empty queue's fd is readable", t);
    }
    stress_pop();
}

static void start_round(void) {
    unsigned used = atomic_load(&record_count);
    memset(records, 0, (used < MAX_RECORDS ? used : MAX_RECORDS) * sizeof records[0]);
    atomic_store(&record_count, 0);
    for (unsigned f = 0; f < ANON_FAMILIES; f++) {
        atomic_store(&anonymous_next[f], 0);
        for (unsigned c = 0; c < ANON_COPIES; c++) atomic_store(&anonymous_owner[f][c], NULL);
    }
    const dc_object_callbacks callbacks = {retain_object, release_object};
    for (unsigned s = 0; s < SLOT_COUNT; s++) {
        table_slot *slot = &slots[s];
        snprintf(slot->name, sizeof slot->name, "stress-%u", s);
        STRESS_CHECK(dc_table_create(slot->name, &callbacks, &slot->table) == DC_OK, "dc_table_create failed");
        dc__table_set_object_check(slot->table, check_pool_object, pool);
        atomic_store(&slot->state, TABLE_OPEN);
        for (unsigned e = 0; e < NAME_COUNT; e++) atomic_store(&slot->ids[e], 0);
        /* Cleared, not just counted from 0: a reader may find an entry counted
         * but not yet stored, which must not be last round's record. */
        unsigned published = atomic_load(&slot->registered_count);
        for (unsigned i = 0; i < published && i < MAX_RECORDS; i++) atomic_store(&slot->registered[i], NULL);
        atomic_store(&slot->registered_count, 0);
        atomic_store(&slot->broad_removals_in_flight, 0);
    }
}

static bool time_is_up(void) {
    return (double)(stress_now_ns() - started_ns) / 1e9 >= run_seconds;
}

static void *run_worker(void *argument) {
    me = argument;
    stress_register_thread(me->index);
    STRESS_CHECK(dc_queue_create(&me->queue) == DC_OK, "dc_queue_create failed");
    for (;;) {
        pthread_barrier_wait(&round_barrier); /* every thread outside the tables */
        if (me->index == 0) {
            if (round_number >= first_round) {
                finish_round();
                atomic_fetch_add(&stress.rounds_completed, 1);
            }
            if (time_is_up()) {
                atomic_store(&stopping, true);
            } else {
                round_number = round_number < first_round ? first_round : round_number + 1;
                atomic_store(&stress.round, round_number);
                start_round();
            }
        }
        pthread_barrier_wait(&round_barrier);
        if (atomic_load(&stopping)) break;
        stress_random_seed(&me->random, stress.seed, round_number, me->index);
        memset(me->held_blocks, 0, sizeof me->held_blocks);
        me->held_count = 0;
        for (unsigned op = 0; op < ops_per_round && !all_tables_destroyed(); op++) top_level_operation();
        if (!seams) continue;
        /* The round's seam race, on tables of its own. */
        pthread_barrier_wait(&round_barrier);
        if (me->index == 0) seam_begin();
        pthread_barrier_wait(&round_barrier);
        stress_random_seed(&me->random, stress.seed ^ 0x5ea3, round_number, me->index);
        seam_run();
    }
    return NULL;
}

/* ---- main --------------------------------------------------------------------------------- */

static void usage(const char *program) {
    fprintf(stderr,
            "usage: %s [--seconds N] [--seed S] [--threads 1..%d] [--round R] [--ops N] [--watchdog N] [--trace]\n"
            "          [--no-seams]\n"
            "  --seconds   how long to run (default 10); rounds then stop\n"
            "  --seed      what every thread's program comes from (default: from the clock; printed)\n"
            "  --round     the first round, to replay a failing one (default 1)\n"
            "  --ops       operations each thread begins per round outside any handler (default %d)\n"
            "  --watchdog  seconds without a completed round that count as a hang (default %d)\n"
            "  --trace     print every operation as it begins\n"
            "  --no-seams  run no seam race after each round's operations\n",
            program, STRESS_MAX_THREADS, DEFAULT_OPS, DEFAULT_WATCHDOG_SECONDS);
    exit(2);
}

int main(int argc, char **argv) {
    stress.program = argv[0];
    stress.seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
    stress.watchdog_seconds = DEFAULT_WATCHDOG_SECONDS;
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(option, "--trace") == 0) {
            stress.tracing = true;
            continue;
        }
        if (strcmp(option, "--no-seams") == 0) {
            seams = false;
            continue;
        }
        if (value == NULL) usage(argv[0]);
        i++;
        char *end = NULL;
        if (strcmp(option, "--seconds") == 0) run_seconds = strtod(value, &end);
        else if (strcmp(option, "--seed") == 0) stress.seed = strtoull(value, &end, 0);
        else if (strcmp(option, "--threads") == 0) thread_count = (unsigned)strtoul(value, &end, 0);
        else if (strcmp(option, "--round") == 0) first_round = strtoull(value, &end, 0);
        else if (strcmp(option, "--ops") == 0) ops_per_round = (unsigned)strtoul(value, &end, 0);
        else if (strcmp(option, "--watchdog") == 0) stress.watchdog_seconds = (unsigned)strtoul(value, &end, 0);
        else usage(argv[0]);
        if (end == NULL || *end != '\0') usage(argv[0]);
    }
    if (thread_count < 1 || thread_count > STRESS_MAX_THREADS || first_round < 1 || stress.watchdog_seconds < 1)
        usage(argv[0]);
    stress.threads = thread_count;
    printf("stress_table: seed 0x%llx, %u threads, %g s, %u operations per thread and round, from round %llu\n"
           "  replay: %s --seed 0x%llx --threads %u --round N (N: the failing round)\n",
           (unsigned long long)stress.seed, thread_count, run_seconds, ops_per_round, (unsigned long long)first_round,
           argv[0], (unsigned long long)stress.seed, thread_count);
    fflush(stdout);

    model_create_signatures();
    seam_create_signatures();
    round_number = first_round - 1;
    started_ns = stress_now_ns();
    stress_start_watchdog();
    STRESS_CHECK(pthread_barrier_init(&round_barrier, NULL, thread_count) == 0, "pthread_barrier_init failed");
    for (unsigned t = 0; t < thread_count; t++) {
        workers[t].index = t;
        STRESS_CHECK(pthread_create(&workers[t].thread, NULL, run_worker, &workers[t]) == 0, "pthread_create failed");
    }
    stats total;
    memset(&total, 0, sizeof total);
    for (unsigned t = 0; t < thread_count; t++) {
        STRESS_CHECK(pthread_join(workers[t].thread, NULL) == 0, "pthread_join failed");
        unsigned long *sum = (unsigned long *)&total, *part = (unsigned long *)&workers[t].stats;
        for (size_t i = 0; i < sizeof total / sizeof *sum; i++) sum[i] += part[i];
        dc_queue_destroy(workers[t].queue);
    }
    atomic_store(&stress.finished, true);
    pthread_barrier_destroy(&round_barrier);
    for (unsigned i = 0; i < SIGNATURE_COUNT; i++) dc_signature_release(signatures[i]);
    seam_release_signatures();

    double elapsed = (double)(stress_now_ns() - started_ns) / 1e9;
    printf("stress_table: passed: %llu rounds in %.1f s, seed 0x%llx\n"
           "  %lu operations outside handlers; %lu executes (%lu failed), %lu handler calls, %lu deliveries,\n"
           "  %lu crowd calls; %lu adds (%lu refused), %lu duplicates, %lu crowd handlers; %lu removes by id,\n"
           "  %lu of many; %lu blocks, %lu unblocks; %lu drains, %lu queries, %lu lingers;\n"
           "  tables destroyed %lu times from outside, %lu from handlers (%lu more times again, %lu gave up\n"
           "  waiting), %lu from destroy notifies; %lu deliveries dropped\n",
           (unsigned long long)atomic_load(&stress.rounds_completed), elapsed, (unsigned long long)stress.seed,
           total.operations, total.executes, total.failed_executes, total.calls, total.deliveries, total.crowd_calls,
           total.adds, total.failed_adds, total.duplicates, total.crowd_handlers, total.removes, total.removes_of_many,
           total.blocks, total.unblocks, total.drains, total.queries, total.lingers, total.destroys_outside,
           total.destroys_from_handler, total.destroys_again, total.destroy_timeouts, total.destroys_from_notify,
           total.dropped);
    printf("  seam races: %lu observer, %lu notify, %lu bomb, %lu struct, %lu closure, %lu refusal races;\n"
           "  %lu steps; %lu observer calls, %lu observers replaced; %lu seam destroy notifies; %lu tables\n"
           "  destroyed by a bomb (%lu in a handler, %lu in an observer's call); %lu struct executes (%lu kept\n"
           "  one, %lu marshals declined); %lu table closure calls, %lu forwarder calls; %lu foreign-id\n"
           "  uses, %lu refused calls checked unchanged\n",
           total.seam_races[0], total.seam_races[1], total.seam_races[2], total.seam_races[3], total.seam_races[4],
           total.seam_races[5], total.seam_ops, total.seam_told, total.seam_replaced, total.seam_notifies,
           total.seam_bombs, total.seam_bombs_in_handler, total.seam_bombs_in_observer, total.seam_structs,
           total.seam_kept, total.seam_declined, total.seam_closure_calls, total.seam_forwarder_calls,
           total.seam_foreign, total.seam_refused);
    return 0;
}
