/*
 * fuzz_table.c — an event table driven by the fuzz input, checked against a
 * model of what it must do.
 *
 * The input is a program: each operation registers a C function or a marshal
 * (ten signatures, stub and libffi paths, bound targets, once / first / strict /
 * owns-target / allow-duplicate flags, a phase (after-handler, run-first or
 * run-last default), a delivery queue, a destroy notify; marshals of the C or
 * of Swift's calling convention) for an event key with or without a detail,
 * removes handlers (by id, target, key or all), blocks and unblocks them,
 * executes a key with values, arities, accumulators and strict flags
 * taken from the input (brief ones also the Swift layer's way, from the
 * event's record, and inline without arguments), drains the posting queue,
 * interns a key, or adds and removes emission hooks (on a key, an event or
 * every event), gives a second table's handler id to this table (and this
 * table's to it), or makes a table closure (a variadic one, or one for a
 * malformed key, is refused). Every handler and hook, when it runs, reads
 * what to do next from the input too: execute again (re-entrantly), remove or
 * block a handler (itself included), add one, add or remove a hook, stop the
 * emission, drain, or destroy the table; a hook also says whether it stays
 * installed. Features meet: the observer, told of an add, adds, removes or
 * blocks a handler or destroys the table; a handler's destroy notify removes
 * another handler or destroys the table.
 *
 * The model checks what the library promises, not how it does it:
 *  - a handler runs only while registered and unblocked, never once `remove`
 *    or `block` has returned (not even later in the dispatch running), never
 *    in an execute that started before it was added, in its phase's place
 *    (run-first default, the others, run-last default, after-handlers) and
 *    in registration order within it (DC_HANDLER_FIRST in front), a
 *    once-handler at most once; an execute of "event::detail" runs the
 *    event's handlers without a detail and those added with that key, one of
 *    "event" only those without one;
 *  - the hooks watching the key run once per execute that is not refused,
 *    in the order added, before any handler, each with the execute's key,
 *    detail, ids and arguments; not once removed (by the call or by
 *    returning false); not one added during the execute; a stop in a hook
 *    stops the handlers;
 *  - it receives the event's arguments converted to its parameter types, the
 *    bound target first, zero for the ones the event does not carry;
 *  - an execute fails (type or arity) exactly when some registered handler
 *    cannot take its arguments, or, for a public execute (not the binding's
 *    brief or record ones, nor one with a context), when a registered marshal
 *    asks the table's object check (DC__HANDLER_CHECK_OBJECTS) and an object
 *    argument is one the check refuses; then nothing ran; otherwise `handled`,
 *    the accumulated return values and `stopped` are what the handlers did;
 *  - statuses of every call are the documented ones, and every failure leaves
 *    a message of its own; a call the model expects to fail leaves what the
 *    table shows (interned keys, listed events, each key's handlers and their
 *    blocks) as it was; a handler id names a handler of one table only;
 *  - contains, handler counts, the handlers listed for each key in call
 *    order, each handler's info, the handler found by function and target,
 *    and the events list match the model after each operation; the observer
 *    is told of each add and each removal but the table's destroy, once,
 *    with the key; a second default handler, a default for a detailed key
 *    and a malformed key are refused; destroy notifies of handlers and hooks
 *    run exactly once per registration, when it
 *    goes; owned targets and queued object arguments are retained and released
 *    in balance; the posting queue's fd is readable exactly while deliveries
 *    are pending, and nothing is pending once the table is destroyed.
 */
#include "fuzz_support.h"

/* A broken promise the shared model finds ends the run as any other: libFuzzer
 * keeps the input. */
#define MODEL_CHECK FUZZ_CHECK
#include "table_model.h"

/* The Swift layer's record-based executes, checked against the same model. */
#include "dispatch_core_binding.h"

enum {
    EVENT_COUNT = 4,        /* events handlers are registered for */
    NAME_COUNT = 5,         /* ... and one that never has a handler */
    KEY_COUNT = 10,         /* the events' names, then keys with a detail */
    REGISTRABLE_COUNT = 8,  /* the keys handlers are added with */
    MALFORMED_COUNT = 4,
    MAX_HOOKS = 12,
    FUNCTION_COUNT = 2 * SIGNATURE_COUNT,
    MARSHAL_FIRST = FUNCTION_COUNT, /* marshals are functions 20 and 21 */
    SWIFT_NONE = MARSHAL_FIRST + 2,   /* 22 and 23: DC__HANDLER_SWIFT_CALL marshals, */
    SWIFT_VALUES = MARSHAL_FIRST + 3, /* for signatures without and with parameters */
    POOL_SIZE = 4,
    MAX_REGISTRATIONS = 48,
    MAX_ARGUMENTS = 9,
    MAX_FRAMES = 8,
    MAX_NESTING = 4 /* handlers execute or drain only while fewer frames are open */
};

/* An event key: an event's name (its index is the event's), or one with a
 * detail, whose event is key_events[key]. */
static const char *const key_names[KEY_COUNT] = {"tap",    "toggle", "select",    "compute",       "never-registered",
                                                 "tap::a", "tap::b", "toggle::a", "compute::size", "never-registered::x"};
static const unsigned key_events[KEY_COUNT] = {0, 1, 2, 3, 4, 0, 0, 1, 3, 4};
static const unsigned registrable_keys[REGISTRABLE_COUNT] = {0, 1, 2, 3, 5, 6, 7, 8};
static const char *const malformed_keys[MALFORMED_COUNT] = {"::a", "tap::", "tap::a::b", "tap:::a"};

static bool key_detailed(unsigned key) { return key >= NAME_COUNT; }

/* ---- the model --------------------------------------------------------------------- */

typedef enum queue_choice { QUEUE_NONE, QUEUE_OWNED, QUEUE_POSTING } queue_choice;

typedef struct registration {
    dc_handler_id id;
    unsigned key;   /* key_names */
    unsigned event; /* the key's event */
    dc_event_id key_id;
    dc_function callable; /* the function or marshal added */
    int signature; /* -1: a variadic marshal */
    unsigned function;
    void *target; /* a bound target, or a marshal's data */
    uint32_t flags;
    queue_choice queue;
    bool has_destroy;
    bool live;    /* registered, as far as the model knows */
    bool spent;   /* a once-handler known to have been claimed */
    unsigned blocks;
    long order;   /* position in its event: smaller runs first */
    int in_call;  /* calls of it running on this thread now */
    int deliveries;
    int destroy_calls;
    int target_releases; /* data that is the registration itself, released by the table */
    int removed_notes;   /* the observer told of its removal */
    bool going;          /* its destroy notify ran: the table removed it, the model not yet */
} registration;

/* An emission hook, and what the model knows of it. */
typedef struct hook_record {
    dc_hook_id id;
    int key; /* -1: every event */
    bool live;
    bool has_destroy;
    int destroy_calls;
} hook_record;

typedef struct pool_object {
    long references; /* held by the table: owned targets and queued arguments */
} pool_object;

typedef enum frame_kind { FRAME_EXECUTE, FRAME_DRAIN } frame_kind;

/* One execute or drain in progress, innermost last. Fields before `snapshot`
 * are cleared when it opens, and `seen` starts counting its calls. */
typedef struct frame {
    frame_kind kind;
    int key; /* -1: no such key */
    const dc_value *arguments;
    size_t count;
    bool strict;
    bool hooks_may_run; /* an execute not refused: its hooks run */
    bool hooks_over;    /* a handler ran, or the execute returned */
    bool key_interned, event_interned; /* when the execute began */
    void *context;
    unsigned snapshot_count;
    int last_position;
    unsigned hook_count;
    int last_hook;
    registration *snapshot[MAX_REGISTRATIONS];
    hook_record *hooks[MAX_HOOKS];
    model_calls seen;
} frame;

static dc_table *table;
static bool table_gone;
static dc_queue *owned_queue;   /* owned by this thread: its handlers run at once */
static dc_queue *posting_queue; /* owned by the helper thread: executes post to it */
static registration registrations[MAX_REGISTRATIONS];
static unsigned registration_count;
static long front_order, back_order;
static pool_object pool[POOL_SIZE];
static hook_record hook_records[MAX_HOOKS];
static unsigned hook_count;
static bool interned[KEY_COUNT]; /* keys the model knows the table interned */
static int observer_destroys;
/* A second table, whose handler's id the first must not know. */
static dc_table *other_table;
static dc_handler_id other_id;
static dc_signature *variadic_signature;
/* Observer calls acting now: they act one level deep only. */
static unsigned observer_acting;
/* The add in progress: live in the model from the observer's note of it on,
 * so that what the observer does sees it. */
static registration *pending_add;
/* Destroy notifies running now: the removal that runs them has taken its
 * handlers out of the table, and the model learns which when it returns. */
static unsigned in_destroy_notify;
/* The observer's note of the add in progress. */
static struct {
    int notes;
    dc_event_id event;
    dc_handler_id id;
} added;
static frame frames[MAX_FRAMES];
static unsigned frame_count;
static fuzz_input *input;
static unsigned long call_number;

/* The trace of FUZZ_TRACE=1 (fuzz_support.h), indented by call depth. */
#define TRACE(...) FUZZ_TRACE(frame_count, __VA_ARGS__)

static char text_a[] = "alpha", text_b[] = "", text_c[] = "a longer string argument";
static char *const texts[3] = {text_a, text_b, text_c};

/* ---- objects ------------------------------------------------------------------------- */

static pool_object *pool_object_at(void *pointer) {
    for (unsigned i = 0; i < POOL_SIZE; i++)
        if (pointer == &pool[i]) return &pool[i];
    return NULL;
}

static registration *registration_at(void *pointer) {
    for (unsigned i = 0; i < MAX_REGISTRATIONS; i++)
        if (pointer == &registrations[i]) return &registrations[i];
    return NULL;
}

static void retain_object(void *object) {
    pool_object *o = pool_object_at(object);
    FUZZ_CHECK(o != NULL, "the table retained %p, which no one gave it as an object", object);
    o->references++;
}

static void release_object(void *object) {
    registration *r = registration_at(object);
    if (r != NULL) {
        FUZZ_CHECK((r->flags & DC__HANDLER_OWNS_TARGET) && r->target == object && r->target_releases == 0,
                   "the table released marshal data %p it did not own, or twice", object);
        r->target_releases++;
        return;
    }
    pool_object *o = pool_object_at(object);
    FUZZ_CHECK(o != NULL, "the table released %p, which no one gave it", object);
    FUZZ_CHECK(o->references > 0, "object %u released more often than retained", (unsigned)(o - pool));
    o->references--;
}

static void count_destroy(void *counter) { (*(int *)counter)++; }

static void act_in_destroy_notify(void);

/* A handler's destroy notify: counted, then what the input says: remove
 * another handler, or destroy the table. */
static void registration_destroyed(void *data) {
    registration *r = data;
    r->destroy_calls++;
    r->going = true;
    in_destroy_notify++;
    act_in_destroy_notify();
    in_destroy_notify--;
}

/* ---- values from the input -------------------------------------------------------- */

/* A value of `type`; DC_TYPE_COUNT gives a tag that is no dc_type. Objects and
 * strings are ones the run owns (a queued delivery dereferences them). */
static dc_value make_value(unsigned type) {
    dc_value value = fuzz_zero(DC_TYPE_VOID);
    uint8_t choice;
    switch (type) {
    case DC_TYPE_VOID: break;
    case DC_TYPE_BOOL: value = dc_bool(fuzz_byte(input) & 1); break;
    case DC_TYPE_INT8: value = dc_int8((int8_t)fuzz_bytes(input, 1)); break;
    case DC_TYPE_UINT8: value = dc_uint8((uint8_t)fuzz_bytes(input, 1)); break;
    case DC_TYPE_INT16: value = dc_int16((int16_t)fuzz_bytes(input, 2)); break;
    case DC_TYPE_UINT16: value = dc_uint16((uint16_t)fuzz_bytes(input, 2)); break;
    case DC_TYPE_INT32: value = dc_int32((int32_t)fuzz_bytes(input, 4)); break;
    case DC_TYPE_UINT32: value = dc_uint32((uint32_t)fuzz_bytes(input, 4)); break;
    case DC_TYPE_INT64: value = dc_int64((int64_t)fuzz_bytes(input, 8)); break;
    case DC_TYPE_UINT64: value = dc_uint64(fuzz_bytes(input, 8)); break;
    case DC_TYPE_FLOAT: {
        uint32_t bits = (uint32_t)fuzz_bytes(input, 4);
        float f;
        memcpy(&f, &bits, sizeof f);
        value = dc_float(f);
        break;
    }
    case DC_TYPE_DOUBLE: {
        uint64_t bits = fuzz_bytes(input, 8);
        double d;
        memcpy(&d, &bits, sizeof d);
        value = dc_double(d);
        break;
    }
    case DC_TYPE_OBJECT:
        choice = fuzz_below(input, POOL_SIZE + 1);
        value = dc_object(choice < POOL_SIZE ? (void *)&pool[choice] : NULL);
        break;
    case DC_TYPE_POINTER:
        choice = fuzz_byte(input);
        value = dc_pointer(choice < 64 ? NULL : choice < 128 ? (void *)&pool[choice % POOL_SIZE]
                                                           : (void *)(uintptr_t)fuzz_bytes(input, 8));
        break;
    case DC_TYPE_STRING:
        choice = fuzz_below(input, 4);
        value = dc_string(choice < 3 ? texts[choice] : NULL);
        break;
    default:
        value.type = (dc_type)(DC_TYPE_COUNT + fuzz_below(input, 100));
        value.u64 = fuzz_bytes(input, 8);
        break;
    }
    return value;
}

MODEL_DEFINE_OBJECT_CHECK(pool)

/* ---- the handlers ------------------------------------------------------------------- */

static dc_value handler_called(unsigned function, const dc_value *values, size_t count);
static void marshal_called(unsigned function, void *data, const dc_value *values, size_t count, dc_value *result);

#define DEFINE_S0(name, index) \
    static void name(void) { handler_called(index, NULL, 0); }
#define DEFINE_S1(name, index)                                                           \
    static void name(void *a) {                                                          \
        dc_value values[] = {dc_object(a)};                                              \
        handler_called(index, values, 1);                                                \
    }
#define DEFINE_S2(name, index)                                                           \
    static void name(int64_t a) {                                                        \
        dc_value values[] = {dc_int64(a)};                                               \
        handler_called(index, values, 1);                                                \
    }
#define DEFINE_S3(name, index)                                                           \
    static int64_t name(void *a, int64_t b, double c) {                                  \
        dc_value values[] = {dc_object(a), dc_int64(b), dc_double(c)};                   \
        return handler_called(index, values, 3).i64;                                     \
    }
#define DEFINE_S4(name, index)                                                           \
    static bool name(void *a, bool b, int8_t c, int16_t d, int32_t e, uint16_t f) {      \
        dc_value values[] = {dc_pointer(a), dc_bool(b), dc_int8(c),                      \
                             dc_int16(d),   dc_int32(e), dc_uint16(f)};                  \
        return handler_called(index, values, 6).b;                                       \
    }
#define DEFINE_S5(name, index)                                                           \
    static double name(char *a, float b, uint8_t c) {                                    \
        dc_value values[] = {dc_string(a), dc_float(b), dc_uint8(c)};                    \
        return handler_called(index, values, 3).d;                                       \
    }
#define DEFINE_S6(name, index)                                                           \
    static uint64_t name(void *a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f, \
                         int64_t g, int64_t h) {                                         \
        dc_value values[] = {dc_object(a), dc_int64(b), dc_int64(c), dc_int64(d),        \
                             dc_int64(e),  dc_int64(f), dc_int64(g), dc_int64(h)};       \
        return handler_called(index, values, 8).u64;                                     \
    }
#define DEFINE_S7(name, index)                                                           \
    static float name(void *a, uint32_t b, uint64_t c, double d) {                       \
        dc_value values[] = {dc_object(a), dc_uint32(b), dc_uint64(c), dc_double(d)};    \
        return handler_called(index, values, 4).f;                                       \
    }
#define DEFINE_S8(name, index)                                                           \
    static char *name(void *a, char *b) {                                                \
        dc_value values[] = {dc_object(a), dc_string(b)};                                \
        return handler_called(index, values, 2).string;                                  \
    }
#define DEFINE_S9(name, index)                                                           \
    static void name(double a, float b, double c, float d, double e, float f, double g,  \
                     float h, double i) {                                                \
        dc_value values[] = {dc_double(a), dc_float(b), dc_double(c),                    \
                             dc_float(d),  dc_double(e), dc_float(f),                    \
                             dc_double(g), dc_float(h), dc_double(i)};                   \
        handler_called(index, values, 9);                                                \
    }

DEFINE_S0(s0_a, 0) DEFINE_S0(s0_b, 1)
DEFINE_S1(s1_a, 2) DEFINE_S1(s1_b, 3)
DEFINE_S2(s2_a, 4) DEFINE_S2(s2_b, 5)
DEFINE_S3(s3_a, 6) DEFINE_S3(s3_b, 7)
DEFINE_S4(s4_a, 8) DEFINE_S4(s4_b, 9)
DEFINE_S5(s5_a, 10) DEFINE_S5(s5_b, 11)
DEFINE_S6(s6_a, 12) DEFINE_S6(s6_b, 13)
DEFINE_S7(s7_a, 14) DEFINE_S7(s7_b, 15)
DEFINE_S8(s8_a, 16) DEFINE_S8(s8_b, 17)
DEFINE_S9(s9_a, 18) DEFINE_S9(s9_b, 19)

static void marshal_a(void *data, const dc_value *values, size_t count, dc_value *result) {
    marshal_called(MARSHAL_FIRST, data, values, count, result);
}
static void marshal_b(void *data, const dc_value *values, size_t count, dc_value *result) {
    marshal_called(MARSHAL_FIRST + 1, data, values, count, result);
}

/* The Swift convention's marshals: one for signatures without parameters,
 * one for the rest. They do not know their parameter count (SWIFT_COUNT):
 * the registration they turn out to be says it. */
#define SWIFT_COUNT SIZE_MAX
static void swift_called(unsigned function, void *data, const dc_value *values);
__attribute__((swiftcall)) static void swift_none(void *data __attribute__((swift_context))) {
    swift_called(SWIFT_NONE, data, NULL);
}
__attribute__((swiftcall)) static void swift_values(const dc_value *values,
                                                    void *data __attribute__((swift_context))) {
    swift_called(SWIFT_VALUES, data, values);
}

static const dc_function functions[FUNCTION_COUNT + 2] = {
    DC_FUNCTION(s0_a), DC_FUNCTION(s0_b), DC_FUNCTION(s1_a), DC_FUNCTION(s1_b), DC_FUNCTION(s2_a),
    DC_FUNCTION(s2_b), DC_FUNCTION(s3_a), DC_FUNCTION(s3_b), DC_FUNCTION(s4_a), DC_FUNCTION(s4_b),
    DC_FUNCTION(s5_a), DC_FUNCTION(s5_b), DC_FUNCTION(s6_a), DC_FUNCTION(s6_b), DC_FUNCTION(s7_a),
    DC_FUNCTION(s7_b), DC_FUNCTION(s8_a), DC_FUNCTION(s8_b), DC_FUNCTION(s9_a), DC_FUNCTION(s9_b),
    DC_FUNCTION(marshal_a), DC_FUNCTION(marshal_b),
};

static bool is_marshal(const registration *r) { return r->function >= MARSHAL_FIRST; }
static bool is_bound(const registration *r) { return !is_marshal(r) && r->target != NULL; }
static bool is_variadic(const registration *r) { return r->signature < 0; }
static size_t parameter_count(const registration *r) { return dc_signature_parameter_count(signatures[r->signature]); }

/* ---- model helpers ------------------------------------------------------------------ */

/* The flags dc_handler_info reports of a registration. */
static const uint32_t PHASE_FLAGS = DC_HANDLER_AFTER | DC_HANDLER_RUN_FIRST | DC_HANDLER_RUN_LAST;

static bool is_default(const registration *r) { return (r->flags & (DC_HANDLER_RUN_FIRST | DC_HANDLER_RUN_LAST)) != 0; }

/* Its place among its event's handlers: run-first default, the others,
 * run-last default, after-handlers; within a phase, by `order`. */
static int phase_rank(const registration *r) {
    return (r->flags & DC_HANDLER_RUN_FIRST) ? 0 : (r->flags & DC_HANDLER_RUN_LAST) ? 2 : (r->flags & DC_HANDLER_AFTER) ? 3 : 1;
}

static bool runs_before(const registration *a, const registration *b) {
    int rank_a = phase_rank(a), rank_b = phase_rank(b);
    return rank_a != rank_b ? rank_a < rank_b : a->order < b->order;
}

/* Whether an execute of `key` considers the live registration `r`: its
 * event's handlers without a detail, and with a detailed key those added
 * with it. */
static bool considered(const registration *r, unsigned key) {
    return r->live && r->event == key_events[key] && (!key_detailed(r->key) || r->key == key);
}

/* The registrations an execute of `key` considers, in call order; how many. */
static unsigned ordered_for_key(unsigned key, registration **ordered) {
    unsigned count = 0;
    for (unsigned i = 0; i < registration_count; i++) {
        registration *r = &registrations[i];
        if (!considered(r, key)) continue;
        unsigned at = count++;
        while (at > 0 && runs_before(r, ordered[at - 1])) {
            ordered[at] = ordered[at - 1];
            at--;
        }
        ordered[at] = r;
    }
    return count;
}

/* Gone from the table: the destroy notify has run, owned data is released,
 * and the observer was told, once; not of a table's destroy (but of a spent
 * once-handler's removal that the model learns only then). */
static void mark_removed(registration *r, const char *how) {
    FUZZ_CHECK(r->destroy_calls == (r->has_destroy ? 1 : 0),
               "handler %llu removed (%s): its destroy notify ran %d times", (unsigned long long)r->id, how,
               r->destroy_calls);
    if ((r->flags & DC__HANDLER_OWNS_TARGET) && r->target == (void *)r)
        FUZZ_CHECK(r->target_releases == 1, "handler %llu removed (%s): its owned data was released %d times",
                   (unsigned long long)r->id, how, r->target_releases);
    if (table_gone)
        FUZZ_CHECK(r->removed_notes == 0 || (r->removed_notes == 1 && r->spent),
                   "handler %llu removed by the table's destroy: the observer was told %d times",
                   (unsigned long long)r->id, r->removed_notes);
    else
        FUZZ_CHECK(r->removed_notes == 1, "handler %llu removed (%s): the observer was told %d times",
                   (unsigned long long)r->id, how, r->removed_notes);
    r->live = false;
}

/* A once-handler goes away by itself after its run (or a dropped delivery):
 * learn that from the table, and check it did once its run returned. */
static void refresh_once(registration *r) {
    if (table_gone || !r->live || !(r->flags & DC_HANDLER_ONCE) || in_destroy_notify > 0) return;
    if (!dc_table_contains(table, r->id)) {
        mark_removed(r, "once");
        return;
    }
    FUZZ_CHECK(!(r->spent && r->in_call == 0 && r->queue != QUEUE_POSTING),
               "once-handler %llu is still registered after its run returned", (unsigned long long)r->id);
}

static void refresh_all(void) {
    for (unsigned i = 0; i < registration_count; i++) refresh_once(&registrations[i]);
}

static registration *find_live_by_id(dc_handler_id id) {
    for (unsigned i = 0; i < registration_count; i++)
        if (registrations[i].live && registrations[i].id == id) return &registrations[i];
    return NULL;
}

static size_t live_count_where(bool (*matches)(const registration *, const void *), const void *context) {
    size_t count = 0;
    for (unsigned i = 0; i < registration_count; i++)
        if (registrations[i].live && matches(&registrations[i], context)) count++;
    return count;
}

/* What dc_table_remove_event of a key removes: for an event, its handlers
 * with or without a detail; for a detailed key, those added with it; never
 * a default handler. */
static bool of_key(const registration *r, const void *key) {
    unsigned k = *(const unsigned *)key;
    return !is_default(r) && (key_detailed(k) ? r->key == k : r->event == k);
}
static bool with_target(const registration *r, const void *target) { return !is_default(r) && r->target == target; }
static bool not_default(const registration *r, const void *unused) {
    (void)unused;
    return !is_default(r);
}
static bool any(const registration *r, const void *unused) {
    (void)r, (void)unused;
    return true;
}

static void remove_where_in_model(bool (*matches)(const registration *, const void *), const void *context,
                                  const char *how) {
    for (unsigned i = 0; i < registration_count; i++)
        if (registrations[i].live && matches(&registrations[i], context)) mark_removed(&registrations[i], how);
}

static int key_of_name(const char *name) {
    for (int i = 0; i < KEY_COUNT; i++)
        if (strcmp(name, key_names[i]) == 0) return i;
    return -1;
}

/* The table interned `key` (and so its event). */
static void note_interned(unsigned key) { interned[key] = interned[key_events[key]] = true; }

/* ---- the observer ------------------------------------------------------------------------ */

static void act_in_observer(void);

/* Told of an add before dc_table_add returns, when the model does not know
 * the id yet (do_add checks the note), and of a removal before the model
 * marks it, so while the registration is still live in the model. */
static void observe(void *data, dc_table *observed, dc_table_change change, dc_event_id event,
                    dc_handler_id handler) {
    FUZZ_CHECK(data == &observer_destroys && observed == table, "the observer was called with another table or data");
    FUZZ_CHECK(!table_gone, "the observer was told of handler %llu after the table's destroy",
               (unsigned long long)handler);
    if (change == DC_HANDLER_ADDED) {
        added.notes++;
        added.event = event;
        added.id = handler;
        if (observer_acting == 0) {
            /* What it does may add, and be told of that: the note is kept. */
            __typeof__(added) note = added;
            if (pending_add != NULL) {
                pending_add->id = handler;
                pending_add->key_id = event;
                pending_add->live = true;
            }
            observer_acting++;
            act_in_observer();
            observer_acting--;
            added = note;
        }
        return;
    }
    FUZZ_CHECK(change == DC_HANDLER_REMOVED, "the observer was told of change %d", (int)change);
    registration *r = find_live_by_id(handler);
    FUZZ_CHECK(r != NULL, "the observer was told of the removal of %llu, not registered", (unsigned long long)handler);
    FUZZ_CHECK(event == r->key_id, "the observer was told handler %llu of key %u went, it was added with %u",
               (unsigned long long)handler, event, r->key_id);
    r->removed_notes++;
    TRACE("observer: handler %llu (registration %d) removed", (unsigned long long)handler, (int)(r - registrations));
}

/* ---- checks between operations -------------------------------------------------------- */

/* What dc_handler_info must say of `r`. */
static void check_info(const registration *r, const dc_handler_info *info, const char *what) {
    uint32_t flags = r->flags & (DC_HANDLER_ONCE | PHASE_FLAGS);
    if ((r->flags & DC_HANDLER_STRICT) && !is_variadic(r)) flags |= DC_HANDLER_STRICT;
    dc_queue *queue = r->queue == QUEUE_OWNED ? owned_queue : r->queue == QUEUE_POSTING ? posting_queue : NULL;
    FUZZ_CHECK(info->id == r->id && info->event == r->key_id && info->function == r->callable &&
                   info->target == r->target && info->flags == flags && info->blocked == r->blocks &&
                   info->marshal == is_marshal(r) && info->queue == queue,
               "%s of handler %llu: id %llu, event %u, flags 0x%x, blocked %u, marshal %d; the model says event %u, "
               "flags 0x%x, blocked %u, marshal %d, and its function, target and queue",
               what, (unsigned long long)r->id, (unsigned long long)info->id, info->event, info->flags, info->blocked,
               info->marshal, r->key_id, flags, r->blocks, is_marshal(r));
}

/* The handlers of each key, listed and counted in call order, and found by
 * function and target. */
static void check_listings(void) {
    registration *ordered[MAX_REGISTRATIONS];
    dc_handler_info infos[MAX_REGISTRATIONS];
    for (unsigned key = 0; key < KEY_COUNT; key++) {
        unsigned expected = ordered_for_key(key, ordered);
        size_t count = 12345, listed = 12345;
        FUZZ_CHECK(dc_table_handler_count(table, key_names[key], &count) == DC_OK, "handler_count failed");
        FUZZ_CHECK(count == expected, "key \"%s\" has %zu handlers, the model says %u", key_names[key], count,
                   expected);
        FUZZ_CHECK(dc_table_handlers(table, key_names[key], infos, MAX_REGISTRATIONS, &listed) == DC_OK,
                   "dc_table_handlers failed");
        FUZZ_CHECK(listed == expected, "key \"%s\": %zu handlers listed, the model says %u", key_names[key], listed,
                   expected);
        for (unsigned i = 0; i < expected; i++) {
            char what[64];
            snprintf(what, sizeof what, "\"%s\" listed %u-th", key_names[key], i);
            check_info(ordered[i], &infos[i], what);
        }
    }
    for (unsigned i = 0; i < registration_count; i++) {
        registration *r = &registrations[i];
        if (!r->live) continue;
        dc_handler_info info;
        FUZZ_CHECK(dc_table_handler_info(table, r->id, &info) == DC_OK, "no info for handler %llu",
                   (unsigned long long)r->id);
        check_info(r, &info, "dc_table_handler_info");
        /* The first in call order added with its key, function and target. */
        unsigned count = ordered_for_key(r->key, ordered);
        const registration *first = NULL;
        for (unsigned j = 0; j < count && first == NULL; j++)
            if (ordered[j]->key == r->key && ordered[j]->callable == r->callable && ordered[j]->target == r->target)
                first = ordered[j];
        dc_handler_id found = 0;
        FUZZ_CHECK(dc_table_find_handler(table, key_names[r->key], r->callable, r->target, &found) == DC_OK &&
                       found == first->id,
                   "find_handler on \"%s\" gave %llu, the first of that function and target is %llu",
                   key_names[r->key], (unsigned long long)found, (unsigned long long)first->id);
        FUZZ_CHECK(dc_table_find_handler(table, NULL, r->callable, r->target, &found) == DC_OK, "find_handler failed");
        const registration *any_found = find_live_by_id(found);
        FUZZ_CHECK(any_found != NULL && any_found->callable == r->callable && any_found->target == r->target,
                   "find_handler on every event gave %llu, not one of that function and target",
                   (unsigned long long)found);
    }
}

static void check_hooks_settled(void) {
    for (unsigned i = 0; i < hook_count; i++) {
        const hook_record *h = &hook_records[i];
        int expected = h->live || !h->has_destroy ? 0 : 1;
        FUZZ_CHECK(h->destroy_calls == expected, "hook %llu (%s): its destroy notify ran %d times",
                   (unsigned long long)h->id, h->live ? "installed" : "removed", h->destroy_calls);
    }
}

static void check_table_matches_model(void) {
    if (table_gone) return;
    refresh_all();
    bool keyed[KEY_COUNT] = {false};
    for (unsigned i = 0; i < registration_count; i++) {
        registration *r = &registrations[i];
        FUZZ_CHECK(dc_table_contains(table, r->id) == r->live, "contains(%llu) is %d, the model says %d",
                   (unsigned long long)r->id, !r->live, r->live);
        if (r->live) {
            FUZZ_CHECK(r->destroy_calls == 0 && r->removed_notes == 0,
                       "handler %llu is registered but its destroy notify ran or the observer was told it went",
                       (unsigned long long)r->id);
            keyed[r->key] = true;
        }
    }
    check_listings();
    check_hooks_settled();
    size_t with_handlers = 0;
    for (unsigned key = 0; key < KEY_COUNT; key++) with_handlers += keyed[key];
    const char *names[KEY_COUNT + 1];
    size_t listed = 0;
    FUZZ_CHECK(dc_table_events(table, names, KEY_COUNT + 1, &listed) == DC_OK, "events failed");
    FUZZ_CHECK(listed == with_handlers, "%zu keys listed, %zu have handlers added with them", listed, with_handlers);
    for (size_t i = 0; i < listed; i++) {
        int key = key_of_name(names[i]);
        FUZZ_CHECK(key >= 0 && keyed[key], "key \"%s\" listed without handlers", names[i]);
        for (size_t j = 0; j < i; j++) FUZZ_CHECK(names[j] != names[i], "key \"%s\" listed twice", names[i]);
    }
    size_t pending = dc_queue_pending(posting_queue);
    FUZZ_CHECK(fuzz_fd_readable(dc_queue_fd(posting_queue)) == (pending > 0),
               "the posting queue's fd readability disagrees with %zu pending", pending);
    for (unsigned i = 0; i < POOL_SIZE; i++) {
        long owned = 0;
        for (unsigned j = 0; j < registration_count; j++)
            if (registrations[j].live && registrations[j].target == &pool[i] &&
                (registrations[j].flags & DC__HANDLER_OWNS_TARGET))
                owned++;
        FUZZ_CHECK(pool[i].references >= owned, "object %u: %ld references, but %ld handlers own it", i,
                   pool[i].references, owned);
    }
}

/* ---- calls -------------------------------------------------------------------------- */

static bool target_consistent(const registration *r, const dc_value *values, size_t count) {
    if (!is_bound(r)) return true;
    return count > 0 && values[0].pointer == r->target;
}

static bool may_run_now(const registration *r) {
    return r->live && r->blocks == 0 && !r->spent && r->queue != QUEUE_POSTING;
}

/* Whether a delivery's values have the shape of `r`'s parameters: a drain does
 * not say which event they came from, and two registrations may differ only in
 * that and their signature. */
static bool delivery_fits(const registration *r, const dc_value *values, size_t count) {
    if (is_variadic(r)) return true;
    const dc_signature *signature = signatures[r->signature];
    if (count != dc_signature_parameter_count(signature)) return false;
    for (size_t p = 0; p < count; p++) {
        dc_type type;
        dc_signature_parameter_type(signature, p, &type);
        if (values[p].type != type) return false;
    }
    return true;
}

/* The return type a registration's calls have: a marshal's result arrives
 * typed with it, which tells marshals of one function and data apart. */
static dc_type return_type_of(const registration *r) {
    return is_variadic(r) ? DC_TYPE_VOID : dc_signature_return_type(signatures[r->signature]);
}

/* The registration a call belongs to: in an execute, the first one after the
 * last that ran, in the snapshot, that may run now; in a drain, a posting one
 * that may still be delivered, and whose shape the values have (one with a
 * signature before a variadic one). NULL when none may run: a broken promise.
 * `arrived` is a marshal's result type, DC_TYPE_COUNT for a C function. */
static registration *identify(frame *f, unsigned function, void *data, const dc_value *values, size_t count,
                              dc_type arrived) {
    bool marshal = function >= MARSHAL_FIRST;
    if (f->kind == FRAME_EXECUTE) {
        for (unsigned position = (unsigned)(f->last_position + 1); position < f->snapshot_count; position++) {
            registration *r = f->snapshot[position];
            if (r->function != function) continue;
            if (marshal ? r->target != data || return_type_of(r) != arrived : !target_consistent(r, values, count))
                continue;
            if (!may_run_now(r)) continue;
            f->last_position = (int)position;
            return r;
        }
        return NULL;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < registration_count; i++) {
            registration *r = &registrations[i];
            if (r->function != function || r->queue != QUEUE_POSTING || !r->live || r->blocks > 0) continue;
            if (is_variadic(r) != (pass == 1)) continue;
            if (marshal ? r->target != data || return_type_of(r) != arrived : !target_consistent(r, values, count))
                continue;
            if ((r->flags & DC_HANDLER_ONCE) && r->deliveries > 0) continue;
            if (!delivery_fits(r, values, count == SWIFT_COUNT ? parameter_count(r) : count)) continue;
            return r;
        }
    }
    return NULL;
}

static void act(registration *self);

/* The hooks of an execute are over (a handler runs, or it returned): every
 * hook of its snapshot still installed was called. */
static void end_hooks(frame *f) {
    if (f->hooks_over) return;
    f->hooks_over = true;
    if (!f->hooks_may_run) return;
    for (unsigned position = (unsigned)(f->last_hook + 1); position < f->hook_count; position++)
        FUZZ_CHECK(!f->hooks[position]->live, "hook %llu, installed, was not called in an execute of \"%s\"",
                   (unsigned long long)f->hooks[position]->id, key_names[f->key]);
}

/* The start of every call, whatever its signature: find its registration and
 * check that it may run and what it received. */
static registration *begin_call(unsigned function, void *data, const dc_value *values, size_t count,
                                dc_type arrived) {
    FUZZ_CHECK(frame_count > 0, "a handler ran outside any execute or drain");
    frame *f = &frames[frame_count - 1];
    FUZZ_CHECK(!f->seen.stop_called && !f->seen.stop_by_true, "a handler ran after its execute was stopped");
    registration *r = identify(f, function, data, values, count, arrived);
    TRACE("call of function %u (data %p) in %s: registration %d", function, data,
          f->kind == FRAME_EXECUTE ? "execute" : "drain", r != NULL ? (int)(r - registrations) : -1);
    FUZZ_CHECK(r != NULL,
               "function %u ran in %s of \"%s\" but no registration may run: removed, blocked, added during the "
               "dispatch, already run once, or out of order",
               function, f->kind == FRAME_EXECUTE ? "an execute" : "a drain",
               f->key >= 0 ? key_names[f->key] : "?");
    if (count == SWIFT_COUNT) count = parameter_count(r);
    if (!table_gone)
        FUZZ_CHECK(dc__table_execute_context(table) == f->context, "execute context %p, expected %p",
                   dc__table_execute_context(table), f->context);
    if (f->kind == FRAME_EXECUTE) {
        end_hooks(f);
        model_handler h = {r->signature, is_bound(r) ? r->target : NULL, "", (unsigned long long)r->id};
        model_check_parameters(&h, f->arguments, f->count, values, count);
    } else if (!is_variadic(r))
        FUZZ_CHECK(count == dc_signature_parameter_count(signatures[r->signature]), "a delivery has %zu values",
                   count);
    f->seen.calls++;
    r->deliveries += f->kind == FRAME_DRAIN;
    if (r->flags & DC_HANDLER_ONCE) r->spent = true;
    return r;
}

/* The rest: note what the execute will accumulate, then do what the input
 * says while the call is running. */
static void finish_call(registration *r, dc_value returned) {
    frame *f = &frames[frame_count - 1];
    if (f->kind == FRAME_EXECUTE) model_note_return(&f->seen, returned);
    r->in_call++;
    act(r);
    r->in_call--;
}

/* The value a C function returns: its return type, from the call number. */
static dc_value function_return(unsigned function) {
    call_number++;
    switch (function / 2) {
    case 3: return dc_int64((int64_t)(call_number * 7919u) - 5000);
    case 4: return dc_bool((fuzz_byte(input) & 1) != 0);
    case 5: return dc_double((double)call_number / 4.0 - 1.0);
    case 6: return dc_uint64(call_number * 0x9e3779b97f4a7c15ull);
    case 7: return dc_float((float)call_number * 0.5f);
    case 8: return dc_string(texts[call_number % 3]);
    default: return dc_void();
    }
}

static dc_value handler_called(unsigned function, const dc_value *values, size_t count) {
    registration *r = begin_call(function, NULL, values, count, DC_TYPE_COUNT);
    dc_value returned = function_return(function);
    finish_call(r, returned);
    return returned;
}

/*
 * A marshal's result arrives zeroed and typed as its signature's return type
 * (void for a variadic one). It sets a value of that type or leaves void to
 * return nothing; a variadic marshal may choose any type, and a tag that is
 * no dc_type counts as nothing. A marshal of a void signature that sets a type
 * anyway returns nothing.
 */
static void marshal_called(unsigned function, void *data, const dc_value *values, size_t count, dc_value *result) {
    FUZZ_CHECK(result != NULL && result->u64 == 0 && (unsigned)result->type < DC_TYPE_COUNT,
               "a marshal's result does not arrive zeroed");
    dc_type arrived = result->type;
    registration *r = begin_call(function, data, values, count, arrived);
    dc_type return_type = is_variadic(r) ? DC_TYPE_VOID : dc_signature_return_type(signatures[r->signature]);
    FUZZ_CHECK(arrived == return_type, "a marshal's result arrives as %s, its return type is %s",
               dc_type_name(arrived), dc_type_name(return_type));
    uint8_t choice = fuzz_byte(input);
    dc_value returned = fuzz_zero(DC_TYPE_VOID), counted = returned;
    if (choice & 1) {
        if (is_variadic(r)) {
            returned = make_value(fuzz_below(input, DC_TYPE_COUNT + 1));
            if ((unsigned)returned.type < DC_TYPE_COUNT) counted = returned;
        } else if (return_type == DC_TYPE_VOID) {
            returned = make_value(DC_TYPE_INT32);
        } else {
            returned = counted = make_value(return_type);
        }
    }
    *result = returned;
    finish_call(r, counted);
}

/* A Swift marshal returns nothing and has no result to look at. */
static void swift_called(unsigned function, void *data, const dc_value *values) {
    registration *r = begin_call(function, data, values, SWIFT_COUNT, DC_TYPE_VOID);
    finish_call(r, fuzz_zero(DC_TYPE_VOID));
}

/* ---- operations ------------------------------------------------------------------------ */

static registration *choose_registration(void) {
    if (registration_count == 0) return NULL;
    return &registrations[fuzz_byte(input) % registration_count];
}

static bool signature_takes_target(int signature) {
    dc_type first;
    if (signature < 0) return true;
    return dc_signature_parameter_type(signatures[signature], 0, &first) == DC_OK &&
           (first == DC_TYPE_OBJECT || first == DC_TYPE_POINTER || first == DC_TYPE_STRING);
}

/* A phase, from a byte: mostly none; the last, two phases at once (refused). */
static uint32_t phase_of(uint8_t byte) {
    static const uint32_t phases[8] = {0, 0, 0, DC_HANDLER_AFTER, DC_HANDLER_AFTER, DC_HANDLER_RUN_FIRST,
                                       DC_HANDLER_RUN_LAST, DC_HANDLER_AFTER | DC_HANDLER_RUN_LAST};
    return phases[byte % 8];
}

/* ---- what a failing call leaves as it was ------------------------------------------------- */

/* What the table shows of itself: the keys it has interned, the events it
 * lists, and each key's handlers in call order with their block counts. */
typedef struct table_state {
    bool captured;
    size_t interned;
    size_t listed_events;
    const char *events[KEY_COUNT + 1];
    size_t counts[KEY_COUNT];
    dc_handler_id ids[KEY_COUNT][MAX_REGISTRATIONS];
    unsigned blocks[KEY_COUNT][MAX_REGISTRATIONS];
} table_state;

static void capture_state(table_state *state) {
    memset(state, 0, sizeof *state);
    if (table_gone) return;
    state->captured = true;
    const char *name = NULL;
    while (dc_table_event_name(table, (dc_event_id)(state->interned + 1), &name) == DC_OK) state->interned++;
    FUZZ_CHECK(dc_table_events(table, state->events, KEY_COUNT + 1, &state->listed_events) == DC_OK,
               "dc_table_events failed");
    dc_handler_info infos[MAX_REGISTRATIONS];
    for (unsigned key = 0; key < KEY_COUNT; key++) {
        FUZZ_CHECK(dc_table_handlers(table, key_names[key], infos, MAX_REGISTRATIONS, &state->counts[key]) == DC_OK,
                   "dc_table_handlers failed");
        for (size_t i = 0; i < state->counts[key] && i < MAX_REGISTRATIONS; i++) {
            state->ids[key][i] = infos[i].id;
            state->blocks[key][i] = infos[i].blocked;
        }
    }
}

/* Captured before a call the model expects to fail (capturing before every
 * call would halve the fuzzer's pace; a call that fails unexpectedly fails
 * the run anyway). */
static void capture_state_if(bool failure_expected, table_state *state) {
    if (failure_expected)
        capture_state(state);
    else
        state->captured = false;
}

/* "The table is unchanged on every error": a call that gave `status`, not
 * DC_OK, left the table as `before` shows it. */
static void expect_unchanged(dc_status status, const table_state *before, const char *what) {
    if (status == DC_OK || table_gone || !before->captured) return;
    table_state after;
    capture_state(&after);
    FUZZ_CHECK(after.interned == before->interned, "%s gave %s and interned %zu keys (%zu before)", what,
               dc_status_name(status), after.interned, before->interned);
    FUZZ_CHECK(memcmp(&after, before, sizeof after) == 0, "%s gave %s and changed the handlers or events listed",
               what, dc_status_name(status));
}

static void do_add(bool marshal) {
    if (registration_count == MAX_REGISTRATIONS || table_gone) return;
    refresh_all();
    /* Its place is taken now: the observer, told of the add, may add too. */
    unsigned slot = registration_count++;
    registration *r = &registrations[slot];
    memset(r, 0, sizeof *r);
    r->key = registrable_keys[fuzz_below(input, REGISTRABLE_COUNT)];
    r->event = key_events[r->key];
    uint8_t shape = fuzz_byte(input);
    r->signature = (int)(shape % SIGNATURE_COUNT);
    if (marshal && (shape & 0x80)) r->signature = -1;
    r->function = marshal ? MARSHAL_FIRST + ((shape >> 5) & 1) : (unsigned)r->signature * 2 + ((shape >> 5) & 1);
    unsigned target_choice = fuzz_below(input, marshal ? POOL_SIZE + 2 : POOL_SIZE + 1);
    r->target = target_choice == 0 ? NULL : target_choice <= POOL_SIZE ? (void *)&pool[target_choice - 1] : (void *)r;
    uint8_t flag_byte = fuzz_byte(input);
    r->flags = flag_byte & 0x1F; /* DC_HANDLER_ONCE ... DC__HANDLER_ALLOW_DUPLICATE */
    bool unknown_flag = (flag_byte & 0xC0) == 0xC0;
    uint8_t phase_byte = fuzz_byte(input);
    r->flags |= phase_of(phase_byte);
    uint32_t phase = r->flags & PHASE_FLAGS;
    bool bad_phase = (phase & (phase - 1)) != 0 || (is_default(r) && (r->flags & DC_HANDLER_FIRST));
    /* A Swift marshal: its signature must be given and return void. */
    bool swift = marshal && (flag_byte & 0x20);
    bool swift_refused = swift && (is_variadic(r) || return_type_of(r) != DC_TYPE_VOID);
    if (swift) {
        r->function = !is_variadic(r) && parameter_count(r) > 0 ? SWIFT_VALUES : SWIFT_NONE;
        r->flags |= DC__HANDLER_SWIFT_CALL;
    }
    uint8_t how = fuzz_byte(input);
    r->queue = (queue_choice)(how % 3);
    r->has_destroy = (how & 0x04) != 0;
    if (marshal && (how & 0x80)) r->flags |= DC__HANDLER_CHECK_OBJECTS;
    bool by_id = (how & 0x08) != 0;
    bool bad_id = by_id && (how & 0x30) == 0x30;
    bool malformed = !by_id && (phase_byte & 0xF0) == 0xF0;
    const char *key = malformed ? malformed_keys[phase_byte % MALFORMED_COUNT] : key_names[r->key];
    /* A drain does not say which event a delivery came from, and a C function
     * cannot tell a bound target from an argument: one posting registration per
     * C function, and per marshal and data, keeps every delivery's owner known. */
    for (unsigned i = 0; i < registration_count && r->queue == QUEUE_POSTING; i++)
        if (registrations[i].live && registrations[i].queue == QUEUE_POSTING &&
            registrations[i].function == r->function && (!marshal || registrations[i].target == r->target))
            r->queue = QUEUE_NONE;

    dc_handler_options options;
    memset(&options, 0, sizeof options);
    options.flags = r->flags | (unknown_flag ? 1u << 12 : 0); /* no DC_HANDLER_ flag */
    options.queue = r->queue == QUEUE_OWNED ? owned_queue : r->queue == QUEUE_POSTING ? posting_queue : NULL;
    if (r->has_destroy) {
        options.destroy = registration_destroyed;
        options.destroy_data = r;
    }
    dc_event_id event_id = 0;
    if (by_id && !bad_id) {
        FUZZ_CHECK(dc_table_intern(table, key, &event_id) == DC_OK, "intern failed");
        note_interned(r->key);
    }
    if (bad_id) event_id = (how & 0x40) ? 0 : 100000 + how;

    /* What the table must answer, in the order it checks. A registration
     * allowing duplicates neither finds one nor is found. An event has one
     * default handler: a registered one (even a once-handler that ran, until
     * it is removed) refuses a second. */
    registration *duplicate = NULL, *maybe_duplicate = NULL, *default_holder = NULL;
    for (unsigned i = 0; i < registration_count; i++) {
        registration *other = &registrations[i];
        if (other->live && other->event == r->event && is_default(other)) default_holder = other;
        if (!other->live || other->key != r->key || other->function != r->function || other->target != r->target ||
            ((other->flags | r->flags) & DC__HANDLER_ALLOW_DUPLICATE))
            continue;
        if (!other->spent && !((other->flags & DC_HANDLER_ONCE) && other->queue == QUEUE_POSTING)) duplicate = other;
        else if (!other->spent) maybe_duplicate = other; /* a once-handler posted or not: the table knows */
    }
    dc_status expected = DC_OK;
    if (bad_id && event_id == 0) expected = DC_ERR_NOT_FOUND;
    else if (unknown_flag || swift_refused || bad_phase) expected = DC_ERR_INVALID_ARGUMENT;
    else if (bad_id) expected = DC_ERR_NOT_FOUND;
    else if (!marshal && r->target != NULL && !signature_takes_target(r->signature)) expected = DC_ERR_TYPE;
    else if (malformed || (is_default(r) && key_detailed(r->key))) expected = DC_ERR_INVALID_ARGUMENT;
    else if (duplicate != NULL) expected = DC_EXISTS;
    else if (is_default(r) && default_holder != NULL) expected = DC_ERR_STATE;

    pool_object *owned = (r->flags & DC__HANDLER_OWNS_TARGET) ? pool_object_at(r->target) : NULL;
    if (owned != NULL) owned->references++; /* the reference the table takes over */

    dc_signature *signature = r->signature >= 0 ? signatures[r->signature] : NULL;
    dc_handler_id id = 0;
    table_state before;
    capture_state_if(expected != DC_OK || maybe_duplicate != NULL, &before);
    /* Its place in the order is taken before the add: one the observer makes
     * meanwhile comes after it (or before it, in front). Gaps do no harm. */
    long order = (r->flags & DC_HANDLER_FIRST) || is_default(r) ? --front_order : ++back_order;
    added.notes = 0;
    registration *outer_add = pending_add;
    pending_add = r;
    const char *primed = fuzz_prime_message();
    dc_status status;
    if (marshal) {
        dc_marshal function = r->function == MARSHAL_FIRST ? marshal_a : marshal_b;
        if (swift)
            function = r->function == SWIFT_VALUES ? (dc_marshal)(void *)swift_values : (dc_marshal)(void *)swift_none;
        r->callable = (dc_function)(void *)function;
        status = by_id ? dc_table_add_marshal_id(table, event_id, signature, function, r->target, &options, &id)
                       : dc_table_add_marshal(table, key, signature, function, r->target, &options, &id);
    } else {
        r->callable = functions[r->function];
        status = by_id ? dc_table_add_id(table, event_id, signature, r->callable, r->target, &options, &id)
                       : dc_table_add(table, key, signature, r->callable, r->target, &options, &id);
    }

    pending_add = outer_add;
    if ((expected == DC_OK || expected == DC_ERR_STATE) && maybe_duplicate != NULL && status == DC_EXISTS) {
        duplicate = maybe_duplicate;
        expected = DC_EXISTS;
    }
    if (expected == DC_OK && maybe_duplicate != NULL && status == DC_OK) maybe_duplicate->spent = true;
    TRACE("add%s registration %u: key %s, signature %d, function %u, target %p, flags 0x%x, queue %d, %s -> %s",
          marshal ? " marshal" : "", slot, key, r->signature, r->function, r->target, options.flags,
          (int)r->queue, by_id ? "by id" : "by name", dc_status_name(status));
    model_expect_status(status, expected, primed, marshal ? "dc_table_add_marshal" : "dc_table_add");
    if (status != DC_EXISTS) expect_unchanged(status, &before, marshal ? "dc_table_add_marshal" : "dc_table_add");
    if (table_gone && status == DC_OK) {
        /* The observer destroyed the table when told of the add. */
        FUZZ_CHECK(r->id == id && !r->live, "the observer destroyed the table, and handler %llu is live",
                   (unsigned long long)id);
        return;
    }
    if (status == DC_OK && r->id == id && !r->live) return; /* the observer removed it when told of its add */
    FUZZ_CHECK(r->destroy_calls == 0, "a destroy notify ran during its own add");
    if (status == DC_EXISTS)
        FUZZ_CHECK(id == duplicate->id, "DC_EXISTS gave id %llu, the existing handler is %llu",
                   (unsigned long long)id, (unsigned long long)duplicate->id);
    if (status == DC_OK || status == DC_EXISTS) note_interned(r->key);
    if (status != DC_OK) {
        FUZZ_CHECK(added.notes == 0, "the observer was told of an add that gave %s", dc_status_name(status));
        if (owned != NULL) owned->references--; /* not taken */
        /* The place goes back, unless an add the observer made took the next. */
        if (registration_count == slot + 1) registration_count--;
        r->has_destroy = false;
        return;
    }
    FUZZ_CHECK(id != 0, "add gave id 0");
    for (unsigned i = 0; i < registration_count; i++)
        FUZZ_CHECK(registrations[i].id != id || i == slot, "add gave id %llu again", (unsigned long long)id);
    FUZZ_CHECK(id != other_id, "add gave id %llu, the other table's handler's", (unsigned long long)id);
    FUZZ_CHECK(dc_table_intern(table, key_names[r->key], &r->key_id) == DC_OK, "intern failed");
    FUZZ_CHECK(added.notes == 1 && added.id == id && added.event == r->key_id,
               "the observer was told %d times of the add of %llu to key %u (last: %llu, key %u)", added.notes,
               (unsigned long long)id, r->key_id, (unsigned long long)added.id, added.event);
    r->id = id;
    r->live = true;
    r->order = order;
}

static void do_remove(void) {
    if (table_gone) return;
    uint8_t choice = fuzz_byte(input);
    dc_handler_id id;
    if (choice < 0xF0 && registration_count > 0)
        id = registrations[choice % registration_count].id;
    else
        id = fuzz_bytes(input, 8);
    refresh_all();
    registration *r = find_live_by_id(id);
    /* Being removed (in a destroy notify: perhaps by the removal running it):
     * its remover marks it. */
    if (r != NULL && (r->going || (in_destroy_notify > 0 && !dc_table_contains(table, id)))) r = NULL;
    table_state before;
    capture_state_if(r == NULL, &before);
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_remove(table, id);
    TRACE("remove %llu (registration %d) -> %s", (unsigned long long)id, r != NULL ? (int)(r - registrations) : -1,
          dc_status_name(status));
    model_expect_status(status, r != NULL ? DC_OK : DC_ERR_NOT_FOUND, primed, "dc_table_remove");
    expect_unchanged(status, &before, "dc_table_remove");
    if (r != NULL) mark_removed(r, "dc_table_remove");
}

static void do_block(bool unblock) {
    if (table_gone) return;
    registration *chosen = choose_registration();
    dc_handler_id id = chosen != NULL ? chosen->id : fuzz_bytes(input, 8);
    refresh_all();
    registration *r = find_live_by_id(id);
    if (r != NULL && r->going) r = NULL;
    dc_status expected = r == NULL ? DC_ERR_NOT_FOUND : unblock && r->blocks == 0 ? DC_ERR_STATE : DC_OK;
    table_state before;
    capture_state_if(expected != DC_OK, &before);
    const char *primed = fuzz_prime_message();
    dc_status status = unblock ? dc_table_unblock(table, id) : dc_table_block(table, id);
    TRACE("%s %llu (registration %d) -> %s", unblock ? "unblock" : "block", (unsigned long long)id,
          r != NULL ? (int)(r - registrations) : -1, dc_status_name(status));
    model_expect_status(status, expected, primed, unblock ? "dc_table_unblock" : "dc_table_block");
    expect_unchanged(status, &before, unblock ? "dc_table_unblock" : "dc_table_block");
    if (status == DC_OK) r->blocks += unblock ? -1u : 1u;
}

static void do_remove_many(void) {
    if (table_gone) return;
    uint8_t choice = fuzz_byte(input);
    size_t removed = 999999, expected_count;
    const char *primed = fuzz_prime_message();
    dc_status status;
    switch (choice % 5) {
    case 0: { /* a target: pooled, a marshal's own data, or NULL */
        unsigned which = fuzz_below(input, POOL_SIZE + 2);
        void *target = which < POOL_SIZE ? (void *)&pool[which]
                       : which == POOL_SIZE && registration_count > 0 ? (void *)&registrations[fuzz_byte(input) % registration_count]
                                                                      : NULL;
        refresh_all();
        expected_count = live_count_where(with_target, target);
        table_state before;
        capture_state_if(target == NULL, &before);
        status = dc_table_remove_target(table, target, &removed);
        expect_unchanged(status, &before, "dc_table_remove_target");
        if (target == NULL) {
            model_expect_status(status, DC_ERR_NULL_ARGUMENT, primed, "dc_table_remove_target(NULL)");
            return;
        }
        model_expect_status(status, DC_OK, primed, "dc_table_remove_target");
        remove_where_in_model(with_target, target, "dc_table_remove_target");
        break;
    }
    case 1: { /* a key by name, or a malformed one */
        unsigned key = fuzz_below(input, KEY_COUNT + 1);
        refresh_all();
        if (key == KEY_COUNT) {
            const char *malformed = malformed_keys[fuzz_below(input, MALFORMED_COUNT)];
            table_state before;
            capture_state(&before);
            status = dc_table_remove_event(table, malformed, &removed);
            expect_unchanged(status, &before, "dc_table_remove_event(malformed)");
            model_expect_status(status, DC_ERR_INVALID_ARGUMENT, primed, "dc_table_remove_event(malformed)");
            FUZZ_CHECK(removed == 999999, "a refused dc_table_remove_event wrote its count");
            return;
        }
        expected_count = live_count_where(of_key, &key);
        status = dc_table_remove_event(table, key_names[key], &removed);
        model_expect_status(status, DC_OK, primed, "dc_table_remove_event");
        remove_where_in_model(of_key, &key, "dc_table_remove_event");
        break;
    }
    case 2: { /* a key by id, or an id never issued */
        unsigned key = fuzz_below(input, KEY_COUNT);
        dc_event_id id = 0;
        bool bogus = fuzz_byte(input) < 32;
        if (bogus) {
            id = 70000;
        } else {
            FUZZ_CHECK(dc_table_intern(table, key_names[key], &id) == DC_OK, "intern failed");
            note_interned(key);
        }
        refresh_all();
        expected_count = bogus ? 0 : live_count_where(of_key, &key);
        table_state before;
        capture_state_if(bogus, &before);
        status = dc_table_remove_event_id(table, id, &removed);
        expect_unchanged(status, &before, "dc_table_remove_event_id");
        if (bogus) {
            model_expect_status(status, DC_ERR_NOT_FOUND, primed, "dc_table_remove_event_id(bogus)");
            return;
        }
        model_expect_status(status, DC_OK, primed, "dc_table_remove_event_id");
        remove_where_in_model(of_key, &key, "dc_table_remove_event_id");
        break;
    }
    default: /* everything, rarely */
        if (choice < 200) return;
        refresh_all();
        expected_count = live_count_where(not_default, NULL);
        status = dc_table_remove_all(table, &removed);
        model_expect_status(status, DC_OK, primed, "dc_table_remove_all");
        remove_where_in_model(not_default, NULL, "dc_table_remove_all");
        break;
    }
    TRACE("remove many (choice %u) -> %zu removed", choice % 5, removed);
    FUZZ_CHECK(removed == expected_count, "removed %zu handlers, the model says %zu", removed, expected_count);
}

/* Whether every handler the execute considers takes `arguments`; what is
 * wrong if not. */
static void predict_fit(const frame *f, bool asks_objects, bool *type_error, bool *arity_error) {
    *type_error = *arity_error = false;
    bool refused_object = false;
    for (size_t a = 0; a < f->count; a++)
        refused_object = refused_object || (f->arguments[a].type == DC_TYPE_OBJECT && object_refused(f->arguments[a].object));
    for (unsigned i = 0; i < f->snapshot_count; i++) {
        const registration *r = f->snapshot[i];
        if (asks_objects && refused_object && (r->flags & DC__HANDLER_CHECK_OBJECTS)) *type_error = true;
        if (is_variadic(r)) continue;
        const dc_signature *signature = signatures[r->signature];
        size_t first = is_bound(r) ? 1 : 0;
        size_t takes = dc_signature_parameter_count(signature) - first;
        if ((f->strict || (r->flags & DC_HANDLER_STRICT)) && takes != f->count) *arity_error = true;
        size_t used = takes < f->count ? takes : f->count;
        for (size_t a = 0; a < used; a++) {
            dc_type type;
            dc_value converted;
            dc_signature_parameter_type(signature, first + a, &type);
            if (dc_value_convert(&f->arguments[a], type, &converted) != DC_OK) *type_error = true;
        }
    }
}

/* Whether a hook on `hook_key` (-1: every event) sees executes of `key`: one
 * on an event sees its executes with any detail. */
static bool watches(int hook_key, unsigned key) {
    return hook_key < 0 || (unsigned)hook_key == key || (unsigned)hook_key == key_events[key];
}

/* What an execute of the frame's key will look at: its handlers in call
 * order and the hooks watching it, in the order added. */
static void take_snapshot(frame *f) {
    f->snapshot_count = f->key >= 0 ? ordered_for_key((unsigned)f->key, f->snapshot) : 0;
    f->last_position = -1;
    f->hook_count = 0;
    for (unsigned i = 0; f->key >= 0 && i < hook_count; i++)
        if (hook_records[i].live && watches(hook_records[i].key, (unsigned)f->key))
            f->hooks[f->hook_count++] = &hook_records[i];
    f->last_hook = -1;
    f->key_interned = f->key >= 0 && interned[f->key];
    f->event_interned = f->key >= 0 && interned[key_events[f->key]];
}

static void do_execute(void) {
    if (table_gone || frame_count == MAX_FRAMES) return;
    unsigned choice = fuzz_below(input, KEY_COUNT + 1);
    uint8_t how = fuzz_byte(input);
    size_t count = fuzz_below(input, MAX_ARGUMENTS + 1);
    dc_value arguments[MAX_ARGUMENTS];
    for (size_t i = 0; i < count; i++) arguments[i] = make_value(fuzz_below(input, DC_TYPE_COUNT + 1));
    model_execute e;
    model_execute_begin(&e, how, arguments, count, &frames[frame_count]);
    if (e.with_options) {
        uint8_t accumulator = fuzz_byte(input), flags = fuzz_byte(input);
        model_execute_options(&e, accumulator, flags);
    }
    /* The last choice: a malformed key, by name (by id, the first key). */
    bool malformed = choice == KEY_COUNT && !e.by_id;
    unsigned key = choice == KEY_COUNT ? 0 : choice;
    const char *name = malformed ? malformed_keys[how % MALFORMED_COUNT] : key_names[key];

    dc_event_id id = 0;
    int resolved = malformed ? -1 : (int)key;
    if (e.by_id) {
        if ((how & 0x30) == 0x20) {
            id = (dc_event_id)fuzz_bytes(input, 1); /* maybe issued, maybe not */
            const char *interned_name = NULL;
            resolved = id != 0 && dc_table_event_name(table, id, &interned_name) == DC_OK ? key_of_name(interned_name)
                                                                                           : -1;
            if (id != 0 && resolved < 0 && interned_name != NULL)
                FUZZ_CHECK(false, "event id %u names \"%s\"", id, interned_name);
        } else {
            FUZZ_CHECK(dc_table_intern(table, name, &id) == DC_OK, "intern failed");
            note_interned(key);
        }
    }
    dc_status expected = model_execute_refusal(&e, id, resolved < 0);
    if (expected == DC_OK && malformed) expected = DC_ERR_INVALID_ARGUMENT;

    refresh_all();
    frame *f = &frames[frame_count];
    memset(f, 0, offsetof(frame, snapshot));
    f->kind = FRAME_EXECUTE;
    f->key = resolved;
    f->arguments = arguments;
    f->count = count;
    f->strict = (e.options.flags & DC_EXECUTE_STRICT) != 0;
    f->context = e.context;
    model_calls_open(&f->seen, e.options.accumulator);
    take_snapshot(f);
    bool type_error = false, arity_error = false;
    if (expected == DC_OK) predict_fit(f, model_execute_asks_objects(&e), &type_error, &arity_error);
    f->hooks_may_run = expected == DC_OK && !type_error && !arity_error;

    TRACE("execute%s %s%s with %zu arguments, accumulator %d, flags 0x%x, %u hooks%s", e.brief ? " briefly" : "",
          e.by_id ? "id of " : "", resolved >= 0 ? key_names[resolved] : name, count, (int)e.options.accumulator,
          e.options.flags, f->hook_count,
          expected != DC_OK ? " (expected to be refused)" : type_error || arity_error ? " (expected not to fit)" : "");
    frame_count++;
    model_execute_run(&e, table, name, id);
    frame_count--;
    TRACE("execute -> %s, %zu calls, %d hooks", dc_status_name(e.status), f->seen.calls, f->last_hook + 1);

    if (type_error || arity_error) {
        FUZZ_CHECK((e.status == DC_ERR_TYPE && type_error) || (e.status == DC_ERR_ARITY && arity_error),
                   "execute gave %s; the model expects%s%s", dc_status_name(e.status),
                   type_error ? " a type error" : "", arity_error ? " an arity error" : "");
        model_check_message(e.status, e.primed, "dc_table_execute");
    } else {
        model_check_execute_status(&e, expected);
    }
    if (e.status == DC_OK || e.status == DC_ERR_NO_HANDLER) end_hooks(f);
    model_check_execute(&e, &f->seen, true);
}

static void do_drain(void) {
    if (table_gone || frame_count == MAX_FRAMES) return;
    frame *f = &frames[frame_count];
    memset(f, 0, offsetof(frame, snapshot));
    f->kind = FRAME_DRAIN;
    f->key = -1;
    f->context = NULL;
    model_calls_open(&f->seen, DC_ACCUMULATE_FIRST);
    size_t delivered = 424242;
    bool want_count = fuzz_byte(input) & 1;
    TRACE("drain, %zu pending", dc_queue_pending(posting_queue));
    frame_count++;
    dc_status status = dc_queue_drain(posting_queue, want_count ? &delivered : NULL);
    frame_count--;
    TRACE("drain -> %s, %zu calls", dc_status_name(status), f->seen.calls);
    FUZZ_CHECK(status == DC_OK, "dc_queue_drain gave %s", dc_status_name(status));
    if (want_count)
        FUZZ_CHECK(delivered == f->seen.calls, "drain delivered %zu, %zu handlers ran", delivered, f->seen.calls);
}

static void do_intern(void) {
    if (table_gone) return;
    unsigned key = fuzz_below(input, KEY_COUNT + 1);
    dc_event_id id = 0, again = 0;
    const char *name = NULL;
    if (key == KEY_COUNT) {
        table_state before;
        capture_state(&before);
        const char *primed = fuzz_prime_message();
        dc_status status = dc_table_intern(table, malformed_keys[fuzz_below(input, MALFORMED_COUNT)], &id);
        model_expect_status(status, DC_ERR_INVALID_ARGUMENT, primed, "dc_table_intern(malformed)");
        expect_unchanged(status, &before, "dc_table_intern(malformed)");
        return;
    }
    FUZZ_CHECK(dc_table_intern(table, key_names[key], &id) == DC_OK && id != 0, "intern failed");
    note_interned(key);
    FUZZ_CHECK(dc_table_intern(table, key_names[key], &again) == DC_OK && again == id, "intern is not stable");
    FUZZ_CHECK(dc_table_event_name(table, id, &name) == DC_OK && strcmp(name, key_names[key]) == 0,
               "event %u is not named \"%s\"", id, key_names[key]);
    size_t by_id = 999, by_name = 998;
    FUZZ_CHECK(dc_table_handler_count_id(table, id, &by_id) == DC_OK, "handler_count_id failed");
    FUZZ_CHECK(dc_table_handler_count(table, key_names[key], &by_name) == DC_OK && by_id == by_name,
               "counts by id (%zu) and by name (%zu) differ", by_id, by_name);
}

/* ---- emission hooks ------------------------------------------------------------------- */

static void hook_destroyed(void *data) { ((hook_record *)data)->destroy_calls++; }

/* What a hook is shown of the frame's execute. */
static void check_emission(const dc_emission *emission, const frame *f, const hook_record *h) {
    unsigned key = (unsigned)f->key, event = key_events[key];
    size_t event_length = strlen(key_names[event]);
    const char *name = NULL;
    FUZZ_CHECK(emission->table == table && emission->key != NULL && strcmp(emission->key, key_names[key]) == 0 &&
                   emission->event_length == event_length,
               "hook %llu: shown key \"%s\" (event length %zu), executed \"%s\"", (unsigned long long)h->id,
               emission->key != NULL ? emission->key : "(null)", emission->event_length, key_names[key]);
    FUZZ_CHECK(key_detailed(key) ? emission->detail == emission->key + event_length + 2 : emission->detail == NULL,
               "hook %llu: the detail of \"%s\" is not shown as \"%s\"", (unsigned long long)h->id, key_names[key],
               key_detailed(key) ? key_names[key] + event_length + 2 : "(null)");
    if (emission->key_id == 0)
        FUZZ_CHECK(!f->key_interned, "hook %llu: no id shown for \"%s\", which is interned",
                   (unsigned long long)h->id, key_names[key]);
    else
        FUZZ_CHECK(dc_table_event_name(table, emission->key_id, &name) == DC_OK && strcmp(name, key_names[key]) == 0,
                   "hook %llu: key id %u is not \"%s\"", (unsigned long long)h->id, emission->key_id, key_names[key]);
    if (emission->event == 0)
        FUZZ_CHECK(!f->event_interned && emission->key_id == 0, "hook %llu: no event id shown for \"%s\"",
                   (unsigned long long)h->id, key_names[event]);
    else
        FUZZ_CHECK(dc_table_event_name(table, emission->event, &name) == DC_OK &&
                       strcmp(name, key_names[event]) == 0 && (key_detailed(key) || emission->event == emission->key_id),
                   "hook %llu: event id %u is not \"%s\"", (unsigned long long)h->id, emission->event, key_names[event]);
    FUZZ_CHECK(emission->count == f->count, "hook %llu: shown %zu arguments of %zu", (unsigned long long)h->id,
               emission->count, f->count);
    for (size_t i = 0; i < f->count; i++)
        FUZZ_CHECK(dc_test_values_equal(emission->arguments[i], f->arguments[i]),
                   "hook %llu: argument %zu is not as given", (unsigned long long)h->id, i);
}

/* A hook's call: the next in its execute's snapshot still installed, before
 * any handler. It does what the input says, then says whether it stays. */
static bool hook_called(const dc_emission *emission, void *data) {
    hook_record *h = data;
    FUZZ_CHECK(frame_count > 0, "hook %llu ran outside any execute", (unsigned long long)h->id);
    frame *f = &frames[frame_count - 1];
    FUZZ_CHECK(f->kind == FRAME_EXECUTE && f->hooks_may_run && !f->hooks_over, "hook %llu ran %s",
               (unsigned long long)h->id,
               f->kind != FRAME_EXECUTE ? "in a drain"
               : !f->hooks_may_run      ? "in an execute that is refused"
                                        : "after a handler of its execute");
    unsigned position = (unsigned)(f->last_hook + 1);
    for (; position < f->hook_count && f->hooks[position] != h; position++)
        FUZZ_CHECK(!f->hooks[position]->live, "hook %llu ran before hook %llu, added before it",
                   (unsigned long long)h->id, (unsigned long long)f->hooks[position]->id);
    FUZZ_CHECK(position < f->hook_count,
               "hook %llu ran in an execute of \"%s\": it does not watch it, was added during it, or ran already",
               (unsigned long long)h->id, key_names[f->key]);
    FUZZ_CHECK(h->live, "hook %llu ran after its removal", (unsigned long long)h->id);
    f->last_hook = (int)position;
    check_emission(emission, f, h);
    bool stays = (fuzz_byte(input) & 3) != 0;
    TRACE("hook %llu on \"%s\" (%s)", (unsigned long long)h->id, key_names[f->key], stays ? "stays" : "goes");
    act(NULL);
    if (!stays) h->live = false; /* the table removes it once this returns */
    return stays;
}

static void do_add_hook(void) {
    if (table_gone || hook_count == MAX_HOOKS) return;
    hook_record *h = &hook_records[hook_count];
    memset(h, 0, sizeof *h);
    unsigned choice = fuzz_below(input, KEY_COUNT + 2);
    h->key = choice < KEY_COUNT ? (int)choice : -1;
    h->has_destroy = fuzz_byte(input) & 1;
    const char *key = choice == KEY_COUNT + 1 ? malformed_keys[fuzz_below(input, MALFORMED_COUNT)]
                      : h->key >= 0           ? key_names[h->key]
                                              : NULL;
    dc_hook_id id = 0;
    table_state before;
    capture_state_if(choice == KEY_COUNT + 1, &before);
    const char *primed = fuzz_prime_message();
    dc_status status =
        dc_table_add_emission_hook(table, key, hook_called, h, h->has_destroy ? hook_destroyed : NULL, &id);
    expect_unchanged(status, &before, "dc_table_add_emission_hook");
    TRACE("add hook %u on %s -> %s, id %llu", hook_count, key != NULL ? key : "every event", dc_status_name(status),
          (unsigned long long)id);
    model_expect_status(status, choice == KEY_COUNT + 1 ? DC_ERR_INVALID_ARGUMENT : DC_OK, primed,
                        "dc_table_add_emission_hook");
    FUZZ_CHECK(h->destroy_calls == 0, "a hook's destroy notify ran during its add");
    if (status != DC_OK) return;
    FUZZ_CHECK(id != 0, "a hook with id 0");
    for (unsigned i = 0; i < hook_count; i++)
        FUZZ_CHECK(hook_records[i].id != id, "hook id %llu given twice", (unsigned long long)id);
    h->id = id;
    h->live = true;
    hook_count++;
    if (h->key >= 0) note_interned((unsigned)h->key);
}

static void do_remove_hook(void) {
    if (table_gone) return;
    uint8_t choice = fuzz_byte(input);
    hook_record *h = choice < 0xF0 && hook_count > 0 ? &hook_records[choice % hook_count] : NULL;
    dc_hook_id id = h != NULL ? h->id : (choice & 1) ? 0 : 1000u + choice;
    dc_status expected = h != NULL && h->live ? DC_OK : DC_ERR_NOT_FOUND;
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_remove_emission_hook(table, id);
    TRACE("remove hook %llu -> %s", (unsigned long long)id, dc_status_name(status));
    model_expect_status(status, expected, primed, "dc_table_remove_emission_hook");
    if (status != DC_OK) return;
    h->live = false;
    FUZZ_CHECK(h->destroy_calls == (h->has_destroy ? 1 : 0), "hook %llu removed: its destroy notify ran %d times",
               (unsigned long long)h->id, h->destroy_calls);
}

/* The table's destroy removes every handler and hook; their destroy notifies
 * are counted at the end of the run. */
static void forget_everything(const char *how) {
    table_gone = true;
    remove_where_in_model(any, NULL, how);
    for (unsigned i = 0; i < hook_count; i++) hook_records[i].live = false;
}

/* The model knows the table is going before its destroy starts: the destroy
 * notifies it runs do nothing more, and the observer is not told. */
static void destroy_the_table(const char *how) {
    TRACE("%s", how);
    table_gone = true;
    dc_table_destroy(table);
    forget_everything(how);
}

static void destroy_table_from_a_handler(void) { destroy_the_table("dc_table_destroy from a handler"); }

/* What the observer does when told of an add, as the input says: add,
 * remove or block a handler, or destroy the table. */
static void act_in_observer(void) {
    if (table_gone) return;
    uint8_t action = fuzz_byte(input);
    switch (action % 8) {
    case 1: do_add(false); break;
    case 2: do_remove(); break;
    case 3: do_block(false); break;
    case 4:
        if (action == 0xFC && fuzz_byte(input) == 0x3C) destroy_the_table("dc_table_destroy from the observer");
        break;
    default: break;
    }
}

/* What a handler's destroy notify does, as the input says: remove another
 * handler, or destroy the table. */
static void act_in_destroy_notify(void) {
    if (table_gone) return;
    uint8_t action = fuzz_byte(input);
    if (action >= 0xF8)
        do_remove();
    else if (action == 0xD5 && fuzz_byte(input) == 0x5D)
        destroy_the_table("dc_table_destroy from a destroy notify");
}

/* Another table's handler id, given to this table, and this table's ids to
 * the other: not found, and nothing changes. */
static void do_use_a_foreign_id(void) {
    if (table_gone) return;
    registration *r = choose_registration();
    table_state before;
    capture_state(&before);
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_remove(table, other_id);
    model_expect_status(status, DC_ERR_NOT_FOUND, primed, "dc_table_remove of another table's id");
    primed = fuzz_prime_message();
    model_expect_status(dc_table_block(table, other_id), DC_ERR_NOT_FOUND, primed,
                        "dc_table_block of another table's id");
    dc_handler_info info;
    primed = fuzz_prime_message();
    model_expect_status(dc_table_handler_info(table, other_id, &info), DC_ERR_NOT_FOUND, primed,
                        "dc_table_handler_info of another table's id");
    FUZZ_CHECK(!dc_table_contains(table, other_id), "the table contains another table's handler id");
    expect_unchanged(status, &before, "another table's handler id");
    if (r != NULL && r->id != 0) {
        primed = fuzz_prime_message();
        model_expect_status(dc_table_remove(other_table, r->id), DC_ERR_NOT_FOUND, primed,
                            "dc_table_remove of this table's id on another");
    }
    FUZZ_CHECK(dc_table_contains(other_table, other_id), "the other table lost its handler");
}

/* A table closure for a key: a malformed key is refused and changes
 * nothing; any other, of a variadic signature too, interns the key. */
static void do_create_table_closure(void) {
    if (table_gone) return;
    uint8_t how = fuzz_byte(input);
    unsigned key = registrable_keys[how % REGISTRABLE_COUNT];
    bool variadic = (how & 0x30) == 0x30, malformed = (how & 0xC0) == 0xC0;
    const char *name = malformed ? malformed_keys[how % MALFORMED_COUNT] : key_names[key];
    dc_signature *signature = variadic ? variadic_signature : signatures[how % SIGNATURE_COUNT];
    table_state before;
    capture_state_if(malformed, &before);
    dc_closure *closure = NULL;
    const char *primed = fuzz_prime_message();
    dc_status status = dc_table_closure_create(table, name, signature, &closure);
    TRACE("table closure for %s%s -> %s", name, variadic ? " (variadic)" : "", dc_status_name(status));
    model_expect_status(status, malformed ? DC_ERR_INVALID_ARGUMENT : DC_OK, primed, "dc_table_closure_create");
    expect_unchanged(status, &before, "dc_table_closure_create");
    if (status != DC_OK) return;
    note_interned(key);
    dc_closure_destroy(closure);
}

/* What a running handler does next, as the input says. */
static void act(registration *self) {
    (void)self;
    if (table_gone) return;
    uint8_t action = fuzz_byte(input);
    bool may_nest = frame_count < MAX_NESTING;
    switch (action % 16) {
    case 4: do_add_hook(); break;
    case 5: do_remove_hook(); break;
    case 6:
        if (may_nest) do_execute();
        break;
    case 7: do_remove(); break;
    case 8: do_block(false); break;
    case 9: do_block(true); break;
    case 10: do_add(false); break;
    case 11: do_add(true); break;
    case 12: {
        TRACE("stop emission");
        FUZZ_CHECK(dc_table_stop_emission(table) == DC_OK, "stop_emission in a handler failed");
        frames[frame_count - 1].seen.stop_called = frames[frame_count - 1].kind == FRAME_EXECUTE;
        break;
    }
    case 13: do_remove_many(); break;
    case 14:
        if (may_nest) do_drain();
        break;
    case 15:
        if (action == 0xFF && fuzz_byte(input) == 0xD7) destroy_table_from_a_handler();
        break;
    default: break; /* most of the time: nothing */
    }
}

/* ---- one run ---------------------------------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    model_create_signatures();
    FUZZ_CHECK(dc_signature_call_path(signatures[6]) == DC_CALL_PATH_FFI &&
                   dc_signature_call_path(signatures[9]) == DC_CALL_PATH_FFI,
               "the libffi signatures take the stub path");
    posting_queue = fuzz_foreign_queue();
    FUZZ_CHECK(dc_signature_create_variadic("vi", 1, &variadic_signature) == DC_OK, "a variadic signature");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size, 0};
    input = &in;
    memset(registrations, 0, sizeof registrations);
    memset(pool, 0, sizeof pool);
    memset(hook_records, 0, sizeof hook_records);
    memset(interned, 0, sizeof interned);
    pending_add = NULL;
    hook_count = 0;
    observer_destroys = 0;
    registration_count = 0;
    front_order = back_order = 0;
    frame_count = 0;
    call_number = 0;
    table_gone = false;
    const dc_object_callbacks callbacks = {retain_object, release_object};
    FUZZ_CHECK(dc_table_create("fuzz", &callbacks, &table) == DC_OK, "dc_table_create failed");
    dc__table_set_object_check(table, check_pool_object, pool);
    FUZZ_CHECK(dc_queue_create(&owned_queue) == DC_OK, "dc_queue_create failed");
    FUZZ_CHECK(dc_table_set_observer(table, observe, &observer_destroys, count_destroy) == DC_OK,
               "dc_table_set_observer failed");
    FUZZ_CHECK(dc_table_create("other", NULL, &other_table) == DC_OK &&
                   dc_table_add(other_table, "tap", signatures[0], functions[0], NULL, NULL, &other_id) == DC_OK,
               "the other table");
    observer_acting = 0;

    while (fuzz_has_more(&in) && !table_gone) {
        uint8_t operation = fuzz_byte(&in);
        switch (operation % 16) {
        case 0:
        case 1: do_add(false); break;
        case 2: do_add(true); break;
        case 3: do_remove(); break;
        case 4: do_block(false); break;
        case 5: do_block(true); break;
        case 6: do_remove_many(); break;
        case 7:
        case 8: do_execute(); break;
        case 9: do_drain(); break;
        case 10: do_intern(); break;
        case 11: do_add_hook(); break;
        case 12: do_remove_hook(); break;
        case 13: do_use_a_foreign_id(); break;
        case 14: do_create_table_closure(); break;
        default: {
            const char *primed = fuzz_prime_message();
            model_expect_status(dc_table_stop_emission(table), DC_ERR_STATE, primed,
                                "dc_table_stop_emission outside");
            break;
        }
        }
        check_table_matches_model();
    }

    if (!table_gone) {
        refresh_all();
        destroy_the_table("dc_table_destroy");
    }
    dc_table_destroy(other_table);
    other_table = NULL;
    table = NULL;
    size_t pending = dc_queue_pending(posting_queue);
    FUZZ_CHECK(pending == 0, "%zu deliveries of a destroyed table are still pending", pending);
    FUZZ_CHECK(!fuzz_fd_readable(dc_queue_fd(posting_queue)), "the empty posting queue's fd is readable");
    for (unsigned i = 0; i < registration_count; i++)
        FUZZ_CHECK(registrations[i].destroy_calls == (registrations[i].has_destroy ? 1 : 0),
                   "handler %llu: destroy notify ran %d times in all", (unsigned long long)registrations[i].id,
                   registrations[i].destroy_calls);
    check_hooks_settled();
    FUZZ_CHECK(observer_destroys == 1, "the observer's destroy notify ran %d times", observer_destroys);
    for (unsigned i = 0; i < POOL_SIZE; i++)
        FUZZ_CHECK(pool[i].references == 0, "object %u: %ld retains not released", i, pool[i].references);
    dc_queue_destroy(owned_queue);
    owned_queue = NULL;
    return 0;
}
