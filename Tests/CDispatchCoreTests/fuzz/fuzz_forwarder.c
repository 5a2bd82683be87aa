/*
 * fuzz_forwarder.c — a forwarder (dc_forwarder_*) driven by the fuzz input,
 * checked against a model of its delegates.
 *
 * The input is a program. It creates a forwarder of one to four slots, each
 * of one of eight shapes (void, int8, int32, int64, uint64, float, double and
 * pointer results; bool, short, string and mixed float/integer parameters)
 * with its context spelled ^v, @, *, ^{...} or ^^v; gives five vtables a
 * function, or NULL, in each slot; and shares those vtables among eight
 * delegates of distinct contexts. Then it adds and removes delegates (present
 * and absent), adds one twice, adds and removes a "twin" (a delegate's
 * context with another vtable), calls slots with arguments from the input,
 * passes NULLs, creates forwarders from bad interfaces (a NULL list, no
 * slots, a NULL or context-less encoding, a few input bytes as an encoding),
 * switches the error handler, and destroys and recreates the forwarder.
 * Every delegate function, when called, reads what to do next from the input
 * too: add or remove a delegate (itself included), remove and re-add itself,
 * call a slot again (re-entrantly), add and remove a twin, or count. Once per
 * input, a call may recurse until the table's depth limit refuses it.
 *
 * The model checks what dispatch_closure.h promises:
 *  - a call of slot i calls slot i of every delegate that implements it, in
 *    add order (a re-added delegate goes last), each with its own context and
 *    the call's arguments, bit for bit; the function called is the one in the
 *    delegate's vtable for that slot;
 *  - a delegate added during a call is not called by it; one removed during a
 *    call is not called later in it, even when added again;
 *  - the call returns the first called delegate's return value, and zero
 *    when none is called;
 *  - adding a present (vtable, context) is DC_EXISTS and changes nothing; the
 *    same context with another vtable is another delegate; removing an absent
 *    one is DC_ERR_NOT_FOUND; count follows the model after every operation;
 *  - bad input gives the documented status with a message of its own, naming
 *    the slot, and *out untouched;
 *  - the error handler hears exactly the refused calls (DC_ERR_DEPTH), with
 *    its user data, and a refused call returns zero and calls no delegate.
 * LeakSanitizer checks that destroy frees what add and create allocated.
 *
 * FUZZ_TRACE=1 in the environment prints each operation and call, for
 * reading a crash's input (build/fuzz/fuzz_forwarder CRASH_FILE).
 * The last delegate's context is NULL, which is a context like any other:
 * bound as parameter 0, its arguments after it.
 */
#include "fuzz_support.h"

enum {
    MAX_SLOTS = 4,
    SHAPE_COUNT = 8,
    OPAQUE_SHAPE = SHAPE_COUNT, /* a slot made from input bytes: never called, never implemented */
    VARIANT_COUNT = 2,          /* two functions per (shape, slot), so a call shows which one ran */
    VTABLE_COUNT = 5,
    DELEGATE_COUNT = 8,
    MAX_ARGUMENTS = 6, /* after the context */
    MAX_FRAMES = DC_MAX_EXECUTE_DEPTH + 1,
    MAX_NESTING = 4, /* delegates call a slot again only while fewer calls are open */
    MAX_FUZZED_ENCODING = 12
};

/* ---- the interface's shapes -------------------------------------------------------- */

typedef struct shape {
    const char *return_code;
    const char *parameter_codes; /* after the context */
    dc_type return_type;
    unsigned parameter_count;
    dc_type parameter_types[MAX_ARGUMENTS];
} shape;

static const shape shapes[SHAPE_COUNT] = {
    {"v", "", DC_TYPE_VOID, 0, {DC_TYPE_VOID}},
    {"i", "i", DC_TYPE_INT32, 1, {DC_TYPE_INT32}},
    {"d", "d", DC_TYPE_DOUBLE, 1, {DC_TYPE_DOUBLE}},
    {"^v", "^v", DC_TYPE_POINTER, 1, {DC_TYPE_POINTER}},
    {"q", "q*", DC_TYPE_INT64, 2, {DC_TYPE_INT64, DC_TYPE_STRING}},
    {"f", "fBs", DC_TYPE_FLOAT, 3, {DC_TYPE_FLOAT, DC_TYPE_BOOL, DC_TYPE_INT16}},
    {"Q", "dQidCf", DC_TYPE_UINT64, 6,
     {DC_TYPE_DOUBLE, DC_TYPE_UINT64, DC_TYPE_INT32, DC_TYPE_DOUBLE, DC_TYPE_UINT8, DC_TYPE_FLOAT}},
    {"c", "c", DC_TYPE_INT8, 1, {DC_TYPE_INT8}},
};

/* Ways to write the context parameter; all are one pointer in the C ABI. */
static const char *const context_codes[] = {"^v", "@", "*", "^{context=iq}", "^^v"};
enum { CONTEXT_CODE_COUNT = sizeof context_codes / sizeof context_codes[0] };

/* First parameters that are no context: the forwarder must refuse them. */
static const char *const non_context_codes[] = {"i", "d", "q", "B", ""};
enum { NON_CONTEXT_CODE_COUNT = sizeof non_context_codes / sizeof non_context_codes[0] };

/* The bits of a value of `type` that a call carries, the rest zero. */
static uint64_t type_mask(dc_type type) {
    switch (type) {
    case DC_TYPE_VOID: return 0;
    case DC_TYPE_BOOL:
    case DC_TYPE_INT8:
    case DC_TYPE_UINT8: return 0xFF;
    case DC_TYPE_INT16:
    case DC_TYPE_UINT16: return 0xFFFF;
    case DC_TYPE_INT32:
    case DC_TYPE_UINT32:
    case DC_TYPE_FLOAT: return 0xFFFFFFFFu;
    default: return UINT64_MAX;
    }
}

static uint64_t bits_of_double(double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

static double double_of_bits(uint64_t bits) {
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static uint64_t bits_of_float(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

static float float_of_bits(uint64_t bits) {
    uint32_t narrow = (uint32_t)bits;
    float value;
    memcpy(&value, &narrow, sizeof value);
    return value;
}

/* What delegate `delegate` returns for `arguments`: differs between delegates,
 * so the return value shows whose it is. */
static uint64_t derived_return(unsigned shape_index, unsigned delegate, const uint64_t *arguments) {
    const shape *s = &shapes[shape_index];
    uint64_t mixed = 0x9E3779B97F4A7C15ull * (delegate + 1);
    for (unsigned i = 0; i < s->parameter_count; i++) mixed = (mixed ^ arguments[i]) * 0x100000001B3ull;
    return mixed & type_mask(s->return_type);
}

/* ---- the model --------------------------------------------------------------------- */

typedef struct delegate_state {
    bool added;
    unsigned generation; /* bumped by every add: a re-added delegate is a new one */
    long order;          /* add order: smaller is called first */
    unsigned vtable;
} delegate_state;

/* A vtable: slot i is dc_function of its shape, NULL where not implemented.
 * variants[i] says which: 0 none, 1 + the variant. */
typedef struct vtable_state {
    dc_function slots[MAX_SLOTS];
    unsigned variants[MAX_SLOTS];
} vtable_state;

typedef struct snapshot_entry {
    unsigned delegate;
    unsigned generation;
} snapshot_entry;

/* One call of a slot in progress, innermost last. */
typedef struct call_frame {
    unsigned slot;
    uint64_t arguments[MAX_ARGUMENTS];
    snapshot_entry owed[DELEGATE_COUNT]; /* who implemented the slot when the call began, in order */
    unsigned owed_count;
    unsigned next; /* owed[next] is the next one to be called, if it is still the same delegate */
    unsigned calls;
    uint64_t return_bits; /* the first called delegate's */
} call_frame;

/* A delegate's context: a string, as a slot may declare its context "*". */
typedef struct delegate_context {
    char name[8];
} delegate_context;

static dc_forwarder *forwarder;
static const dc_function *forwarder_vtable; /* what the component calls */
static void *forwarder_context;
static size_t slot_count;
static unsigned slot_shapes[MAX_SLOTS];
static char slot_encodings[MAX_SLOTS][40];

static vtable_state vtables[VTABLE_COUNT];
static delegate_state delegates[DELEGATE_COUNT];
static delegate_context contexts[DELEGATE_COUNT];
static void *delegate_contexts[DELEGATE_COUNT];
static size_t added_count;
static long add_sequence;

static call_frame frames[MAX_FRAMES];
static unsigned frame_count;
static bool deep_mode; /* each frame's first delegate calls the slot again, until refused */
static bool deep_refused;
static bool deep_done;

static bool error_handler_installed;
static unsigned error_reports;  /* what the error handler heard */
static unsigned expected_errors; /* refused calls made while it was installed */
static int error_handler_token;

static fuzz_input *input;
/* The trace of FUZZ_TRACE=1 (fuzz_support.h), indented by call depth. */
#define TRACE(...) FUZZ_TRACE(frame_count, __VA_ARGS__)

static char text_a[] = "alpha", text_b[] = "";
static char *const texts[3] = {text_a, text_b, NULL};

static const void *vtable_of(unsigned delegate) { return vtables[delegates[delegate].vtable].slots; }

static int delegate_of_context(void *context) {
    for (unsigned i = 0; i < DELEGATE_COUNT; i++)
        if (delegate_contexts[i] == context) return (int)i;
    return -1;
}

/* The part of a failure message that names the operand, checked to be there. */
static void check_message_names(const char *what, const char *needle) {
    const char *message = dc_last_error_message();
    FUZZ_CHECK(message != NULL && strstr(message, needle) != NULL, "%s: the message \"%s\" does not name \"%s\"",
               what, message != NULL ? message : "(null)", needle);
}

static void expect_status(dc_status status, dc_status expected, const char *primed, const char *what) {
    FUZZ_CHECK(status == expected, "%s gave %s, the model expects %s", what, dc_status_name(status),
               dc_status_name(expected));
    if (expected != DC_OK) FUZZ_CHECK_FAILURE(status, primed, what);
}

static void check_count(const char *when) {
    size_t count = dc_forwarder_count(forwarder);
    FUZZ_CHECK(count == added_count, "%s: dc_forwarder_count is %zu, the model has %zu delegates", when, count,
               added_count);
}

/* ---- the delegates' functions ------------------------------------------------------ */

static uint64_t delegate_called(void *context, unsigned shape_index, unsigned slot, unsigned variant,
                                const uint64_t *arguments);

/* One function per (shape, slot, variant): the call reports which it was. */
#define SHAPE0_FUNCTION(slot, variant)                                                   \
    static void shape0_##slot##_##variant(void *context) {                               \
        const uint64_t arguments[MAX_ARGUMENTS] = {0};                                   \
        delegate_called(context, 0, slot, variant, arguments);                           \
    }
#define SHAPE1_FUNCTION(slot, variant)                                                   \
    static int32_t shape1_##slot##_##variant(void *context, int32_t a) {                 \
        const uint64_t arguments[MAX_ARGUMENTS] = {(uint32_t)a};                         \
        return (int32_t)(uint32_t)delegate_called(context, 1, slot, variant, arguments); \
    }
#define SHAPE2_FUNCTION(slot, variant)                                                   \
    static double shape2_##slot##_##variant(void *context, double a) {                   \
        const uint64_t arguments[MAX_ARGUMENTS] = {bits_of_double(a)};                   \
        return double_of_bits(delegate_called(context, 2, slot, variant, arguments));    \
    }
#define SHAPE3_FUNCTION(slot, variant)                                                   \
    static void *shape3_##slot##_##variant(void *context, void *a) {                     \
        const uint64_t arguments[MAX_ARGUMENTS] = {(uintptr_t)a};                        \
        return (void *)(uintptr_t)delegate_called(context, 3, slot, variant, arguments); \
    }
#define SHAPE4_FUNCTION(slot, variant)                                                   \
    static int64_t shape4_##slot##_##variant(void *context, int64_t a, char *b) {        \
        const uint64_t arguments[MAX_ARGUMENTS] = {(uint64_t)a, (uintptr_t)b};           \
        return (int64_t)delegate_called(context, 4, slot, variant, arguments);           \
    }
#define SHAPE5_FUNCTION(slot, variant)                                                   \
    static float shape5_##slot##_##variant(void *context, float a, bool b, int16_t c) {  \
        const uint64_t arguments[MAX_ARGUMENTS] = {bits_of_float(a), b, (uint16_t)c};    \
        return float_of_bits(delegate_called(context, 5, slot, variant, arguments));     \
    }
#define SHAPE6_FUNCTION(slot, variant)                                                   \
    static uint64_t shape6_##slot##_##variant(void *context, double a, uint64_t b,       \
                                              int32_t c, double d, uint8_t e, float f) { \
        const uint64_t arguments[MAX_ARGUMENTS] = {bits_of_double(a), b, (uint32_t)c,    \
                                                   bits_of_double(d), e, bits_of_float(f)}; \
        return delegate_called(context, 6, slot, variant, arguments);                    \
    }
#define SHAPE7_FUNCTION(slot, variant)                                                   \
    static int8_t shape7_##slot##_##variant(void *context, int8_t a) {                   \
        const uint64_t arguments[MAX_ARGUMENTS] = {(uint8_t)a};                          \
        return (int8_t)(uint8_t)delegate_called(context, 7, slot, variant, arguments);   \
    }

#define EVERY_SLOT_AND_VARIANT(DEFINE)                                                   \
    DEFINE(0, 0) DEFINE(0, 1) DEFINE(1, 0) DEFINE(1, 1) DEFINE(2, 0) DEFINE(2, 1) DEFINE(3, 0) DEFINE(3, 1)

EVERY_SLOT_AND_VARIANT(SHAPE0_FUNCTION)
EVERY_SLOT_AND_VARIANT(SHAPE1_FUNCTION)
EVERY_SLOT_AND_VARIANT(SHAPE2_FUNCTION)
EVERY_SLOT_AND_VARIANT(SHAPE3_FUNCTION)
EVERY_SLOT_AND_VARIANT(SHAPE4_FUNCTION)
EVERY_SLOT_AND_VARIANT(SHAPE5_FUNCTION)
EVERY_SLOT_AND_VARIANT(SHAPE6_FUNCTION)
EVERY_SLOT_AND_VARIANT(SHAPE7_FUNCTION)

#define SHAPE_ROW(prefix)                                                                \
    {{DC_FUNCTION(prefix##_0_0), DC_FUNCTION(prefix##_0_1)},                             \
     {DC_FUNCTION(prefix##_1_0), DC_FUNCTION(prefix##_1_1)},                             \
     {DC_FUNCTION(prefix##_2_0), DC_FUNCTION(prefix##_2_1)},                             \
     {DC_FUNCTION(prefix##_3_0), DC_FUNCTION(prefix##_3_1)}}

static const dc_function delegate_functions[SHAPE_COUNT][MAX_SLOTS][VARIANT_COUNT] = {
    SHAPE_ROW(shape0), SHAPE_ROW(shape1), SHAPE_ROW(shape2), SHAPE_ROW(shape3),
    SHAPE_ROW(shape4), SHAPE_ROW(shape5), SHAPE_ROW(shape6), SHAPE_ROW(shape7),
};

/* ---- the component's side: calling a slot through the forwarder's vtable ---------- */

/* Calls `function`, of shape `shape_index`, and gives its result's bits.
 * The slots are libffi trampolines without the type prefix that clang's
 * -fsanitize=function checks: the check would only read the bytes in front of
 * them, which need not be mapped. */
__attribute__((no_sanitize("function"))) static uint64_t call_through(unsigned shape_index, dc_function function, void *context, const uint64_t *a) {
    switch (shape_index) {
    case 0: ((void (*)(void *))function)(context); return 0;
    case 1: return (uint32_t)((int32_t(*)(void *, int32_t))function)(context, (int32_t)(uint32_t)a[0]);
    case 2: return bits_of_double(((double (*)(void *, double))function)(context, double_of_bits(a[0])));
    case 3: return (uintptr_t)((void *(*)(void *, void *))function)(context, (void *)(uintptr_t)a[0]);
    case 4:
        return (uint64_t)((int64_t(*)(void *, int64_t, char *))function)(context, (int64_t)a[0],
                                                                          (char *)(uintptr_t)a[1]);
    case 5:
        return bits_of_float(((float (*)(void *, float, bool, int16_t))function)(
            context, float_of_bits(a[0]), a[1] != 0, (int16_t)(uint16_t)a[2]));
    case 6:
        return ((uint64_t(*)(void *, double, uint64_t, int32_t, double, uint8_t, float))function)(
            context, double_of_bits(a[0]), a[1], (int32_t)(uint32_t)a[2], double_of_bits(a[3]), (uint8_t)a[4],
            float_of_bits(a[5]));
    case 7: return (uint8_t)((int8_t(*)(void *, int8_t))function)(context, (int8_t)(uint8_t)a[0]);
    default: FUZZ_CHECK(false, "no shape %u", shape_index); return 0;
    }
}

static uint64_t make_argument(dc_type type) {
    switch (type) {
    case DC_TYPE_BOOL: return fuzz_byte(input) & 1;
    case DC_TYPE_STRING: return (uintptr_t)texts[fuzz_below(input, 3)];
    case DC_TYPE_INT8:
    case DC_TYPE_UINT8: return fuzz_bytes(input, 1);
    case DC_TYPE_INT16: return fuzz_bytes(input, 2);
    case DC_TYPE_INT32:
    case DC_TYPE_FLOAT: return fuzz_bytes(input, 4);
    default: return fuzz_bytes(input, 8);
    }
}

/* A slot that can be called (not made from input bytes); -1 when none. */
static int choose_callable_slot(void) {
    unsigned start = fuzz_below(input, MAX_SLOTS);
    for (unsigned i = 0; i < slot_count; i++) {
        unsigned slot = (start + i) % slot_count;
        if (slot_shapes[slot] != OPAQUE_SHAPE) return (int)slot;
    }
    return -1;
}

static bool owed_entry_alive(const snapshot_entry *entry) {
    const delegate_state *d = &delegates[entry->delegate];
    return d->added && d->generation == entry->generation;
}

/* Passes the owed delegates removed since the call began. */
static void skip_removed(call_frame *frame) {
    while (frame->next < frame->owed_count && !owed_entry_alive(&frame->owed[frame->next])) frame->next++;
}

/* The delegates implementing `slot` now, in add order. */
static void take_snapshot(call_frame *frame) {
    frame->owed_count = 0;
    for (unsigned k = 0; k < DELEGATE_COUNT; k++) {
        const delegate_state *d = &delegates[k];
        if (!d->added || vtables[d->vtable].slots[frame->slot] == NULL) continue;
        unsigned at = frame->owed_count++;
        while (at > 0 && delegates[frame->owed[at - 1].delegate].order > d->order) {
            frame->owed[at] = frame->owed[at - 1];
            at--;
        }
        frame->owed[at] = (snapshot_entry){k, d->generation};
    }
    frame->next = 0;
}

/* Calls `slot` through the forwarder's vtable with `arguments` (NULL: from
 * the input) and checks who was called and what came back. */
static void call_slot(unsigned slot, const uint64_t *arguments) {
    unsigned shape_index = slot_shapes[slot];
    const shape *s = &shapes[shape_index];
    FUZZ_CHECK(frame_count < MAX_FRAMES, "calls nested deeper than the model follows");
    call_frame *frame = &frames[frame_count];
    memset(frame, 0, sizeof *frame);
    frame->slot = slot;
    for (unsigned i = 0; i < s->parameter_count; i++)
        frame->arguments[i] = arguments != NULL ? arguments[i] : make_argument(s->parameter_types[i]);
    /* This thread runs no other executes: the call is execute number frame_count + 1. */
    bool refused = frame_count + 1 > DC_MAX_EXECUTE_DEPTH;
    if (!refused) take_snapshot(frame);
    if (refused) deep_refused = true;
    if (refused && error_handler_installed) expected_errors++;

    TRACE("call slot %u (\"%s\"), %u delegates owed%s", slot, slot_encodings[slot], frame->owed_count,
          refused ? ", to be refused" : "");
    const char *primed = fuzz_prime_message();
    frame_count++;
    uint64_t returned = call_through(shape_index, forwarder_vtable[slot], forwarder_context, frame->arguments);
    frame_count--;

    skip_removed(frame);
    FUZZ_CHECK(frame->next == frame->owed_count,
               "a call of slot %u returned without calling delegate %u, which implements it and was added before "
               "the call", slot, frame->owed[frame->next].delegate);
    uint64_t expected = frame->calls > 0 ? frame->return_bits : 0;
    FUZZ_CHECK(returned == expected,
               "a call of slot %u (\"%s\") returned 0x%llx; the model expects 0x%llx (%s)", slot,
               slot_encodings[slot], (unsigned long long)returned, (unsigned long long)expected,
               frame->calls > 0 ? "the first called delegate's" : "no delegate was called");
    FUZZ_CHECK(error_reports == expected_errors, "the error handler heard %u failures, the model expects %u",
               error_reports, expected_errors);
    if (refused) {
        FUZZ_CHECK_FAILURE(DC_ERR_DEPTH, primed, "a call nested too deeply");
        check_message_names("a call nested too deeply", "nested");
    }
    TRACE("call slot %u -> 0x%llx, %u delegates called", slot, (unsigned long long)returned, frame->calls);
}

/* ---- operations -------------------------------------------------------------------- */

static void forget_delegates(void) {
    for (unsigned k = 0; k < DELEGATE_COUNT; k++) delegates[k].added = false;
    added_count = 0;
}

static void destroy_forwarder(void) {
    if (forwarder == NULL) return;
    TRACE("destroy");
    dc_forwarder_destroy(forwarder);
    forwarder = NULL;
    forwarder_vtable = NULL;
    forwarder_context = NULL;
    slot_count = 0;
    forget_delegates();
}

static void on_error(const dc_closure *closure, dc_status status, const char *message, void *user_data) {
    FUZZ_CHECK(user_data == &error_handler_token, "the error handler got user data %p, not its own", user_data);
    FUZZ_CHECK(closure != NULL, "the error handler got no closure");
    FUZZ_CHECK(status == DC_ERR_DEPTH, "the error handler heard %s: %s", dc_status_name(status),
               message != NULL ? message : "(null)");
    FUZZ_CHECK(message != NULL && strcmp(message, dc_last_error_message()) == 0,
               "the error handler's message \"%s\" is not the last error message \"%s\"",
               message != NULL ? message : "(null)", dc_last_error_message());
    error_reports++;
}

static void set_error_handler(bool installed) {
    TRACE("error handler %s", installed ? "on" : "off");
    error_handler_installed = installed;
    dc_forwarder_set_error_handler(forwarder, installed ? on_error : NULL, &error_handler_token);
}

/* Fills the vtables for the slots' shapes and gives every delegate one. */
static void choose_vtables(void) {
    for (unsigned v = 0; v < VTABLE_COUNT; v++)
        for (unsigned slot = 0; slot < MAX_SLOTS; slot++) {
            unsigned variant = slot < slot_count && slot_shapes[slot] != OPAQUE_SHAPE ? fuzz_below(input, 3) : 0;
            vtables[v].variants[slot] = variant;
            vtables[v].slots[slot] = variant == 0 ? NULL : delegate_functions[slot_shapes[slot]][slot][variant - 1];
        }
    for (unsigned k = 0; k < DELEGATE_COUNT; k++) delegates[k].vtable = fuzz_below(input, VTABLE_COUNT);
}

/* Takes over a forwarder just created for slot_shapes and slot_encodings. */
static void adopt(dc_forwarder *created) {
    forwarder = created;
    forwarder_vtable = dc_forwarder_vtable(forwarder);
    forwarder_context = dc_forwarder_context(forwarder);
    FUZZ_CHECK(forwarder_vtable != NULL, "a new forwarder has no vtable");
    for (size_t slot = 0; slot < slot_count; slot++)
        FUZZ_CHECK(forwarder_vtable[slot] != NULL, "slot %zu of a new forwarder's vtable is NULL", slot);
    choose_vtables();
    set_error_handler(fuzz_byte(input) < 224);
    check_count("after create");
}

static void write_encoding(size_t slot, unsigned shape_index, const char *context_code) {
    snprintf(slot_encodings[slot], sizeof slot_encodings[slot], "%s%s%s", shapes[shape_index].return_code,
             context_code, shapes[shape_index].parameter_codes);
    slot_shapes[slot] = shape_index;
}

static void do_create(void) {
    destroy_forwarder();
    slot_count = 1 + fuzz_below(input, MAX_SLOTS);
    const char *encodings[MAX_SLOTS];
    for (size_t slot = 0; slot < slot_count; slot++) {
        unsigned shape_index = fuzz_below(input, SHAPE_COUNT);
        write_encoding(slot, shape_index, context_codes[fuzz_below(input, CONTEXT_CODE_COUNT)]);
        encodings[slot] = slot_encodings[slot];
    }
    dc_forwarder *created = NULL;
    dc_status status = dc_forwarder_create(encodings, slot_count, &created);
    TRACE("create %zu slots: \"%s\" \"%s\" \"%s\" \"%s\" -> %s", slot_count, encodings[0],
          slot_count > 1 ? encodings[1] : "", slot_count > 2 ? encodings[2] : "", slot_count > 3 ? encodings[3] : "",
          dc_status_name(status));
    FUZZ_CHECK(status == DC_OK && created != NULL, "dc_forwarder_create of a good interface gave %s",
               dc_status_name(status));
    adopt(created);
}

static int untouched_marker;
#define UNTOUCHED ((dc_forwarder *)(void *)&untouched_marker)

/* Whether `encoding` makes a slot: a signature whose first parameter is a
 * pointer, an object or a string. */
static dc_status predict_slot(const char *encoding) {
    dc_signature *signature = NULL;
    dc_status status = dc_signature_create(encoding, &signature);
    if (status != DC_OK) return status;
    dc_type first = DC_TYPE_VOID;
    if (dc_signature_parameter_count(signature) == 0 ||
        dc_signature_parameter_type(signature, 0, &first) != DC_OK ||
        (first != DC_TYPE_POINTER && first != DC_TYPE_OBJECT && first != DC_TYPE_STRING))
        status = DC_ERR_BAD_SIGNATURE;
    dc_signature_release(signature);
    return status;
}

/* dc_forwarder_create with bad input: a NULL list or out, no slots, a NULL
 * encoding, one without a context, or input bytes (which may make a good
 * slot: then that forwarder replaces the current one, its odd slot never
 * implemented nor called). */
static void do_bad_create(void) {
    unsigned kind = fuzz_below(input, 5);
    size_t count = 1 + fuzz_below(input, MAX_SLOTS);
    size_t bad_slot = fuzz_below(input, (unsigned)count);
    char encodings_made[MAX_SLOTS][40];
    unsigned shapes_made[MAX_SLOTS];
    const char *encodings[MAX_SLOTS];
    for (size_t slot = 0; slot < count; slot++) {
        shapes_made[slot] = fuzz_below(input, SHAPE_COUNT);
        snprintf(encodings_made[slot], sizeof encodings_made[slot], "%s^v%s", shapes[shapes_made[slot]].return_code,
                 shapes[shapes_made[slot]].parameter_codes);
        encodings[slot] = encodings_made[slot];
    }
    char fuzzed[MAX_FUZZED_ENCODING + 1] = {0};
    const char *primed = fuzz_prime_message();
    dc_forwarder *out = UNTOUCHED;
    dc_status status, expected;
    char slot_name[32];
    snprintf(slot_name, sizeof slot_name, "slot %zu", bad_slot);
    const char *named = slot_name;
    switch (kind) {
    case 0:
        if (fuzz_byte(input) & 1) {
            status = dc_forwarder_create(NULL, count, &out);
            named = "slot_encodings";
        } else {
            status = dc_forwarder_create(encodings, count, NULL);
            named = "out";
        }
        expected = DC_ERR_NULL_ARGUMENT;
        break;
    case 1:
        status = dc_forwarder_create(encodings, 0, &out);
        expected = DC_ERR_INVALID_ARGUMENT;
        named = "slot";
        break;
    case 2:
        encodings[bad_slot] = NULL;
        status = dc_forwarder_create(encodings, count, &out);
        expected = DC_ERR_NULL_ARGUMENT;
        break;
    case 3:
        snprintf(encodings_made[bad_slot], sizeof encodings_made[bad_slot], "%s%s%s",
                 shapes[shapes_made[bad_slot]].return_code, non_context_codes[fuzz_below(input, NON_CONTEXT_CODE_COUNT)],
                 shapes[shapes_made[bad_slot]].parameter_codes);
        /* Mostly refused; "" before a pointer parameter makes a good slot ("^v^v"). */
        expected = predict_slot(encodings_made[bad_slot]);
        primed = fuzz_prime_message();
        status = dc_forwarder_create(encodings, count, &out);
        break;
    default: {
        size_t length = fuzz_below(input, MAX_FUZZED_ENCODING + 1);
        for (size_t i = 0; i < length; i++) fuzzed[i] = (char)fuzz_byte(input);
        encodings[bad_slot] = fuzzed;
        expected = predict_slot(fuzzed);
        primed = fuzz_prime_message();
        status = dc_forwarder_create(encodings, count, &out);
        break;
    }
    }
    TRACE("bad create (kind %u, slot %zu of %zu%s%s) -> %s", kind, bad_slot, count, kind == 4 ? ", encoding " : "",
          kind == 4 ? fuzzed : "", dc_status_name(status));
    if (status == DC_OK && expected == DC_OK) {
        destroy_forwarder();
        slot_count = count;
        for (size_t slot = 0; slot < count; slot++) {
            snprintf(slot_encodings[slot], sizeof slot_encodings[slot], "%s", encodings[slot]);
            slot_shapes[slot] = slot == bad_slot ? OPAQUE_SHAPE : shapes_made[slot];
        }
        adopt(out);
        return;
    }
    if (status == DC_OK) dc_forwarder_destroy(out);
    expect_status(status, expected, primed, "dc_forwarder_create with bad input");
    check_message_names("dc_forwarder_create with bad input", named);
    FUZZ_CHECK(out == UNTOUCHED, "a failed dc_forwarder_create wrote *out");
}

static unsigned choose_delegate(void) { return fuzz_below(input, DELEGATE_COUNT); }

static void do_add(unsigned k) {
    delegate_state *d = &delegates[k];
    const char *primed = fuzz_prime_message();
    dc_status status = dc_forwarder_add(forwarder, vtable_of(k), delegate_contexts[k]);
    TRACE("add delegate %u (vtable %u) -> %s", k, d->vtable, dc_status_name(status));
    if (d->added) {
        expect_status(status, DC_EXISTS, primed, "dc_forwarder_add of a present delegate");
        check_message_names("dc_forwarder_add of a present delegate", "already");
        return;
    }
    expect_status(status, DC_OK, primed, "dc_forwarder_add");
    d->added = true;
    d->generation++;
    d->order = ++add_sequence;
    added_count++;
}

static void do_remove(unsigned k) {
    delegate_state *d = &delegates[k];
    const char *primed = fuzz_prime_message();
    dc_status status = dc_forwarder_remove(forwarder, vtable_of(k), delegate_contexts[k]);
    TRACE("remove delegate %u -> %s", k, dc_status_name(status));
    if (!d->added) {
        expect_status(status, DC_ERR_NOT_FOUND, primed, "dc_forwarder_remove of an absent delegate");
        return;
    }
    expect_status(status, DC_OK, primed, "dc_forwarder_remove");
    d->added = false;
    added_count--;
}

/* Delegate k's context with another vtable is another delegate: added and
 * removed again, it leaves delegate k as it was. */
static void do_twin(void) {
    unsigned k = choose_delegate();
    unsigned other = (delegates[k].vtable + 1 + fuzz_below(input, VTABLE_COUNT - 1)) % VTABLE_COUNT;
    const void *vtable = vtables[other].slots;
    const char *primed = fuzz_prime_message();
    dc_status status = dc_forwarder_add(forwarder, vtable, delegate_contexts[k]);
    TRACE("add a twin of delegate %u with vtable %u -> %s", k, other, dc_status_name(status));
    expect_status(status, DC_OK, primed, "dc_forwarder_add of a known context with another vtable");
    added_count++;
    check_count("after adding a twin");
    primed = fuzz_prime_message();
    expect_status(dc_forwarder_add(forwarder, vtable, delegate_contexts[k]), DC_EXISTS, primed,
                  "dc_forwarder_add of a twin again");
    expect_status(dc_forwarder_remove(forwarder, vtable, delegate_contexts[k]), DC_OK, primed,
                  "dc_forwarder_remove of a twin");
    added_count--;
    primed = fuzz_prime_message();
    expect_status(dc_forwarder_remove(forwarder, vtable, delegate_contexts[k]), DC_ERR_NOT_FOUND, primed,
                  "dc_forwarder_remove of a twin again");
}

static void do_call(void) {
    int slot = choose_callable_slot();
    if (slot >= 0) call_slot((unsigned)slot, NULL);
}

/* A call whose first delegate calls the slot again, and so on, until the
 * table refuses a call nested deeper than DC_MAX_EXECUTE_DEPTH. */
static void do_deep_call(void) {
    int slot = choose_callable_slot();
    if (slot < 0) return;
    deep_done = true;
    deep_mode = true;
    deep_refused = false;
    TRACE("deep call of slot %d", slot);
    call_slot((unsigned)slot, NULL);
    deep_mode = false;
}

static void do_null_arguments(void) {
    const void *vtable = vtables[0].slots;
    const char *primed = fuzz_prime_message();
    expect_status(dc_forwarder_add(NULL, vtable, delegate_contexts[0]), DC_ERR_NULL_ARGUMENT, primed,
                  "dc_forwarder_add(NULL forwarder)");
    check_message_names("dc_forwarder_add(NULL forwarder)", "forwarder");
    primed = fuzz_prime_message();
    expect_status(dc_forwarder_remove(NULL, vtable, delegate_contexts[0]), DC_ERR_NULL_ARGUMENT, primed,
                  "dc_forwarder_remove(NULL forwarder)");
    check_message_names("dc_forwarder_remove(NULL forwarder)", "forwarder");
    if (forwarder != NULL) {
        primed = fuzz_prime_message();
        expect_status(dc_forwarder_add(forwarder, NULL, delegate_contexts[1]), DC_ERR_NULL_ARGUMENT, primed,
                      "dc_forwarder_add(NULL vtable)");
        check_message_names("dc_forwarder_add(NULL vtable)", "vtable");
        primed = fuzz_prime_message();
        expect_status(dc_forwarder_remove(forwarder, NULL, delegate_contexts[1]), DC_ERR_NULL_ARGUMENT, primed,
                      "dc_forwarder_remove(NULL vtable)");
        check_message_names("dc_forwarder_remove(NULL vtable)", "vtable");
    }
    FUZZ_CHECK(dc_forwarder_count(NULL) == 0, "dc_forwarder_count(NULL) is not 0");
    FUZZ_CHECK(dc_forwarder_vtable(NULL) == NULL, "dc_forwarder_vtable(NULL) is not NULL");
    FUZZ_CHECK(dc_forwarder_context(NULL) == NULL, "dc_forwarder_context(NULL) is not NULL");
    dc_forwarder_set_error_handler(NULL, on_error, &error_handler_token);
    dc_forwarder_destroy(NULL);
}

static void check_handles(void) {
    FUZZ_CHECK(dc_forwarder_vtable(forwarder) == forwarder_vtable, "the forwarder's vtable moved");
    FUZZ_CHECK(dc_forwarder_context(forwarder) == forwarder_context, "the forwarder's context changed");
}

/* What a delegate does when called, as the input says. */
static void act(unsigned self) {
    uint8_t action = fuzz_byte(input);
    switch (action % 16) {
    case 8:
    case 9: do_add(choose_delegate()); break;
    case 10: do_remove(choose_delegate()); break;
    case 11: {
        if (frame_count >= MAX_NESTING) break;
        int slot = choose_callable_slot();
        if (slot >= 0) call_slot((unsigned)slot, NULL);
        break;
    }
    case 12: /* back at the end of the line, and not called again by this call */
        do_remove(self);
        do_add(self);
        break;
    case 13: do_twin(); break;
    case 14: check_count("inside a call"); break;
    default: break; /* most of the time: nothing */
    }
}

static uint64_t delegate_called(void *context, unsigned shape_index, unsigned slot, unsigned variant,
                                const uint64_t *arguments) {
    int found = delegate_of_context(context);
    FUZZ_CHECK(found >= 0, "a delegate function (shape %u, slot %u) was called with %p, no delegate's context",
               shape_index, slot, context);
    unsigned k = (unsigned)found;
    FUZZ_CHECK(frame_count > 0, "delegate %u was called outside any call of the forwarder", k);
    call_frame *frame = &frames[frame_count - 1];
    TRACE("delegate %u, slot %u", k, slot);
    FUZZ_CHECK(slot == frame->slot && shape_index == slot_shapes[slot],
               "a call of slot %u reached delegate %u's function for slot %u", frame->slot, k, slot);
    FUZZ_CHECK(vtables[delegates[k].vtable].variants[slot] == variant + 1,
               "delegate %u's slot %u ran function variant %u; its vtable holds variant %u", k, slot, variant + 1,
               vtables[delegates[k].vtable].variants[slot]);
    skip_removed(frame);
    FUZZ_CHECK(frame->next < frame->owed_count,
               "delegate %u was called by a call of slot %u that owed no one else (added during the call, "
               "removed, or called twice)", k, slot);
    const snapshot_entry *owed = &frame->owed[frame->next];
    FUZZ_CHECK(owed->delegate == k, "delegate %u was called by a call of slot %u before delegate %u", k, slot,
               owed->delegate);
    frame->next++;
    for (unsigned i = 0; i < shapes[shape_index].parameter_count; i++)
        FUZZ_CHECK(arguments[i] == frame->arguments[i],
                   "delegate %u got argument %u of slot %u as 0x%llx; the call passed 0x%llx", k, i, slot,
                   (unsigned long long)arguments[i], (unsigned long long)frame->arguments[i]);
    uint64_t result = derived_return(shape_index, k, arguments);
    if (frame->calls++ == 0) frame->return_bits = result;

    if (deep_mode) {
        if (frame->calls == 1 && !deep_refused) call_slot(slot, frame->arguments);
    } else {
        act(k);
    }
    return result;
}

/* ---- one run ------------------------------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    for (unsigned k = 0; k < DELEGATE_COUNT; k++) {
        snprintf(contexts[k].name, sizeof contexts[k].name, "d%u", k);
        delegate_contexts[k] = &contexts[k];
    }
    delegate_contexts[DELEGATE_COUNT - 1] = NULL;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size, 0};
    input = &in;
    memset(delegates, 0, sizeof delegates);
    added_count = 0;
    add_sequence = 0;
    frame_count = 0;
    deep_mode = deep_refused = deep_done = false;
    error_reports = expected_errors = 0;
    do_create();

    while (fuzz_has_more(&in)) {
        uint8_t operation = fuzz_byte(&in);
        if (forwarder == NULL && operation % 16 > 1) operation = 0;
        switch (operation % 16) {
        case 0: do_create(); break;
        case 1: do_bad_create(); break;
        case 2:
        case 3:
        case 4: do_add(choose_delegate()); break;
        case 5: do_remove(choose_delegate()); break;
        case 6:
        case 7:
        case 8:
        case 9: do_call(); break;
        case 10: do_null_arguments(); break;
        case 11: do_twin(); break;
        case 12:
            if (!deep_done) do_deep_call();
            break;
        case 13: set_error_handler(fuzz_byte(&in) & 1); break;
        case 14: destroy_forwarder(); break;
        default: check_handles(); break;
        }
        check_count("after an operation");
    }
    destroy_forwarder();
    return 0;
}
