/*
 * fuzz_queue.c — delivery queues driven by the fuzz input, against an exact
 * model.
 *
 * Up to three queues, each owned by this thread (its handlers run at once) or
 * by a helper thread (executes from here post deliveries), are created, given
 * away, taken back, drained and destroyed at any point, while handlers
 * registered with them (C functions with and without a bound target, variadic
 * and typed marshals, once-handlers, one that executes another event from
 * inside its delivery) are added, removed, blocked and unblocked, events are
 * executed with object, string and integer arguments (some that do not fit),
 * and the table itself is destroyed and made again.
 *
 * The model computes every call each operation must make, in order, with its
 * values, and every delivery each queue must hold; the run fails unless:
 *  - the calls made are exactly those (a delivered string is a copy with the
 *    same text, a direct call gets the caller's pointer), and each execute's
 *    handled / queued / dropped and each drain's count are the model's;
 *  - nothing is delivered to a handler removed, or blocked when its delivery
 *    comes due, nor from a destroyed queue, nor twice to a once-handler;
 *  - each object's retains by the table equal the deliveries holding it, after
 *    every operation, and are all released in the end;
 *  - pending counts, ownership and fd readability are the model's.
 */
#include "fuzz_support.h"

enum {
    QUEUE_SLOTS = 3,
    POOL_SIZE = 3,
    MAX_REGISTRATIONS = 24,
    MAX_DELIVERIES = 1024,
    MAX_CALLS = 512,
    MAX_ARGUMENTS = 4,
    EVENT_COUNT = 3, /* "a", "b", and "echo", which the reposting handler executes */
    ECHO = 2
};

static const char *const event_names[EVENT_COUNT] = {"a", "b", "echo"};

typedef enum handler_kind {
    KIND_TRIPLE,       /* void (void *object, char *text, int64_t number): "v@*q" */
    KIND_TRIPLE_OTHER, /* the same shape, another function */
    KIND_PLAIN,        /* void (void): "v" */
    KIND_VARIADIC,     /* a marshal without signature */
    KIND_TYPED,        /* a marshal of "v*@" */
    KIND_ECHO,         /* void (void), executes "echo" from inside its call */
    KIND_COUNT
} handler_kind;

static const char *const kind_encodings[KIND_COUNT] = {"v@*q", "v@*q", "v", NULL, "v*@", "v"};

/* ---- the model --------------------------------------------------------------------- */

typedef struct queue_model {
    dc_queue *queue;
    bool exists;  /* created and not destroyed by us */
    bool closed;  /* destroyed by us while a handler may still hold it */
    bool ours;    /* owned by this thread */
    unsigned deliveries[MAX_DELIVERIES]; /* indices into `deliveries`, FIFO */
    unsigned pending;
} queue_model;

typedef struct registration {
    dc_handler_id id;
    unsigned event;
    handler_kind kind;
    void *target; /* bound target, or a marshal's data */
    bool once;
    int queue; /* -1: none */
    bool live;
    bool fired; /* a once-handler claimed by an execute */
    unsigned blocks;
    long order;
    int destroy_calls;
} registration;

typedef struct delivery {
    unsigned registration;
    size_t count;
    size_t first_owned;
    dc_value values[MAX_ARGUMENTS];
} delivery;

/* One call, as made or as the model expects it: which function, with which
 * marshal data, and what it received. Strings are kept by text too. */
typedef struct call_record {
    handler_kind kind;
    void *data;
    size_t count;
    bool delivered; /* from a drain: strings are copies */
    dc_value values[MAX_ARGUMENTS];
    char texts[MAX_ARGUMENTS][32];
} call_record;

typedef struct pool_object {
    long retains; /* by the table, through the callbacks */
} pool_object;

static fuzz_input *input;
static dc_table *table;
static dc_signature *signatures[KIND_COUNT];
static queue_model queues[QUEUE_SLOTS];
static registration registrations[MAX_REGISTRATIONS];
static unsigned registration_count;
static long front_order, back_order;
static delivery deliveries[MAX_DELIVERIES];
static unsigned delivery_count;
static pool_object pool[POOL_SIZE];
static call_record made[MAX_CALLS], expected[MAX_CALLS];
static unsigned made_count, expected_count;
static bool draining; /* a real drain is running: calls are deliveries */
static bool overflow; /* the run outgrew the model's arrays: stop early */

static char text_a[] = "alpha", text_b[] = "", text_echo[] = "echo text";
static char *const texts[2] = {text_a, text_b};

/* ---- objects ------------------------------------------------------------------------- */

static pool_object *pool_object_at(void *pointer) {
    for (unsigned i = 0; i < POOL_SIZE; i++)
        if (pointer == &pool[i]) return &pool[i];
    return NULL;
}

static void retain_object(void *object) {
    pool_object *o = pool_object_at(object);
    FUZZ_CHECK(o != NULL, "the table retained %p, not an object of the run", object);
    o->retains++;
}

static void release_object(void *object) {
    pool_object *o = pool_object_at(object);
    FUZZ_CHECK(o != NULL, "the table released %p, not an object of the run", object);
    FUZZ_CHECK(o->retains > 0, "object %u released more often than retained", (unsigned)(o - pool));
    o->retains--;
}

static void count_destroy(void *counter) { (*(int *)counter)++; }

/* ---- calls made ------------------------------------------------------------------------- */

static void execute_echo(void);

static void record_call(handler_kind kind, void *data, const dc_value *values, size_t count) {
    if (made_count == MAX_CALLS) {
        overflow = true;
        return;
    }
    call_record *call = &made[made_count++];
    memset(call, 0, sizeof *call);
    call->kind = kind;
    call->data = data;
    call->count = count < MAX_ARGUMENTS ? count : MAX_ARGUMENTS;
    call->delivered = draining;
    for (size_t i = 0; i < call->count; i++) {
        call->values[i] = values[i];
        if (values[i].type == DC_TYPE_STRING && values[i].string != NULL)
            snprintf(call->texts[i], sizeof call->texts[i], "%s", values[i].string);
    }
}

static void triple(void *object, char *text, int64_t number) {
    dc_value values[] = {dc_object(object), dc_string(text), dc_int64(number)};
    record_call(KIND_TRIPLE, NULL, values, 3);
}
static void triple_other(void *object, char *text, int64_t number) {
    dc_value values[] = {dc_object(object), dc_string(text), dc_int64(number)};
    record_call(KIND_TRIPLE_OTHER, NULL, values, 3);
}
static void plain(void) { record_call(KIND_PLAIN, NULL, NULL, 0); }
static void echo(void) {
    record_call(KIND_ECHO, NULL, NULL, 0);
    execute_echo();
}
static void marshal(void *data, const dc_value *values, size_t count, dc_value *result) {
    (void)result;
    record_call(KIND_VARIADIC, data, values, count);
}
static void typed_marshal(void *data, const dc_value *values, size_t count, dc_value *result) {
    (void)result;
    record_call(KIND_TYPED, data, values, count);
}

static const dc_function kind_functions[KIND_COUNT] = {
    DC_FUNCTION(triple), DC_FUNCTION(triple_other), DC_FUNCTION(plain),
    DC_FUNCTION(marshal), DC_FUNCTION(typed_marshal), DC_FUNCTION(echo),
};

static bool is_marshal(handler_kind kind) { return kind == KIND_VARIADIC || kind == KIND_TYPED; }
static bool is_bound(const registration *r) { return !is_marshal(r->kind) && r->target != NULL; }

/* ---- the model of an execute ------------------------------------------------------- */

static bool owned_here(const registration *r) { return r->queue < 0 || queues[r->queue].ours; }

static void expect_call(const registration *r, const dc_value *values, size_t count, bool delivered) {
    if (expected_count == MAX_CALLS) {
        overflow = true;
        return;
    }
    call_record *call = &expected[expected_count++];
    memset(call, 0, sizeof *call);
    call->kind = r->kind;
    call->data = is_marshal(r->kind) ? r->target : NULL;
    call->count = count;
    call->delivered = delivered;
    for (size_t i = 0; i < count; i++) {
        call->values[i] = values[i];
        if (values[i].type == DC_TYPE_STRING && values[i].string != NULL)
            snprintf(call->texts[i], sizeof call->texts[i], "%s", values[i].string);
    }
}

/* What a registration's function receives from an execute's arguments. */
static size_t parameters_of(const registration *r, const dc_value *arguments, size_t count, dc_value *out) {
    if (r->kind == KIND_VARIADIC) {
        memcpy(out, arguments, count * sizeof *arguments);
        return count;
    }
    const dc_signature *signature = signatures[r->kind];
    size_t parameters = dc_signature_parameter_count(signature), first = is_bound(r) ? 1 : 0;
    for (size_t p = 0; p < parameters; p++) {
        dc_type type;
        dc_signature_parameter_type(signature, p, &type);
        out[p] = fuzz_zero(type);
        if (p == 0 && first)
            out[p].pointer = r->target;
        else if (p - first < count)
            FUZZ_CHECK(dc_value_convert(&arguments[p - first], type, &out[p]) == DC_OK, "the model let a misfit through");
    }
    return parameters;
}

static bool fits(const registration *r, const dc_value *arguments, size_t count) {
    if (r->kind == KIND_VARIADIC) return true;
    const dc_signature *signature = signatures[r->kind];
    size_t first = is_bound(r) ? 1 : 0, takes = dc_signature_parameter_count(signature) - first;
    for (size_t a = 0; a < count && a < takes; a++) {
        dc_type type;
        dc_value converted;
        dc_signature_parameter_type(signature, first + a, &type);
        if (dc_value_convert(&arguments[a], type, &converted) != DC_OK) return false;
    }
    return true;
}

static void mark_removed(registration *r) {
    if (!r->live) return;
    r->live = false;
    /* Its pending deliveries are dropped. */
    for (unsigned q = 0; q < QUEUE_SLOTS; q++) {
        queue_model *model = &queues[q];
        unsigned kept = 0;
        for (unsigned i = 0; i < model->pending; i++)
            if (&registrations[deliveries[model->deliveries[i]].registration] != r)
                model->deliveries[kept++] = model->deliveries[i];
        model->pending = kept;
    }
}

typedef struct model_result {
    dc_status status;
    size_t handled, queued, dropped;
} model_result;

static model_result model_execute(unsigned event, const dc_value *arguments, size_t count);

/* What the echo executes must give, in the order they will run. */
static model_result echo_results[MAX_CALLS];
static unsigned echo_results_written, echo_results_read;

static void model_echo_call(void) {
    dc_value arguments[3] = {dc_object(&pool[0]), dc_string(text_echo), dc_int64(7)};
    model_result result = model_execute(ECHO, arguments, 3);
    if (echo_results_written == MAX_CALLS) {
        overflow = true;
        return;
    }
    echo_results[echo_results_written++] = result;
}

static model_result model_execute(unsigned event, const dc_value *arguments, size_t count) {
    model_result result = {DC_OK, 0, 0, 0};
    registration *snapshot[MAX_REGISTRATIONS];
    unsigned snapshot_count = 0;
    for (unsigned i = 0; i < registration_count; i++) {
        registration *r = &registrations[i];
        if (!r->live || r->event != event) continue;
        if (!fits(r, arguments, count)) result.status = DC_ERR_TYPE;
        unsigned at = snapshot_count++;
        while (at > 0 && snapshot[at - 1]->order > r->order) {
            snapshot[at] = snapshot[at - 1];
            at--;
        }
        snapshot[at] = r;
    }
    if (result.status != DC_OK) return result;
    for (unsigned i = 0; i < snapshot_count; i++) {
        registration *r = snapshot[i];
        if (!r->live || r->blocks > 0 || (r->once && r->fired)) continue;
        dc_value values[MAX_ARGUMENTS + 1];
        size_t parameters = parameters_of(r, arguments, count, values);
        if (r->once) r->fired = true;
        if (!owned_here(r)) {
            queue_model *q = &queues[r->queue];
            if (q->closed || delivery_count == MAX_DELIVERIES || q->pending == MAX_DELIVERIES) {
                if (!q->closed) overflow = true;
                result.dropped++;
                if (r->once) mark_removed(r);
                continue;
            }
            delivery *d = &deliveries[delivery_count];
            d->registration = (unsigned)(r - registrations);
            d->count = parameters;
            d->first_owned = is_bound(r) ? 1 : 0;
            memcpy(d->values, values, parameters * sizeof values[0]);
            q->deliveries[q->pending++] = delivery_count++;
            result.queued++;
            continue;
        }
        expect_call(r, values, parameters, false);
        result.handled++;
        if (r->kind == KIND_ECHO) model_echo_call();
        if (r->once) mark_removed(r);
    }
    return result;
}

/* The real execute from inside a reposting handler. Its result is the model's
 * concern only through the calls and deliveries it makes. */
static void execute_echo(void) {
    dc_value arguments[3] = {dc_object(&pool[0]), dc_string(text_echo), dc_int64(7)};
    dc_result result;
    memset(&result, 0, sizeof result);
    bool delivering = draining; /* calls the echo makes are direct ones */
    draining = false;
    dc_status status = dc_table_execute(table, event_names[ECHO], arguments, 3, &result);
    draining = delivering;
    if (overflow) return;
    FUZZ_CHECK(echo_results_read < echo_results_written, "an echo execute the model did not foresee");
    model_result want = echo_results[echo_results_read++];
    FUZZ_CHECK(status == want.status, "the echo execute gave %s, the model %s", dc_status_name(status),
               dc_status_name(want.status));
    if (status != DC_OK) return;
    FUZZ_CHECK(result.handled == want.handled && result.queued == want.queued && result.dropped == want.dropped,
               "echo execute: handled %zu queued %zu dropped %zu, the model %zu %zu %zu", result.handled,
               result.queued, result.dropped, want.handled, want.queued, want.dropped);
}

/* ---- comparing what happened with the model ------------------------------------------- */

static long expected_retains(unsigned object) {
    long count = 0;
    for (unsigned q = 0; q < QUEUE_SLOTS; q++) {
        for (unsigned i = 0; i < queues[q].pending; i++) {
            const delivery *d = &deliveries[queues[q].deliveries[i]];
            for (size_t v = d->first_owned; v < d->count; v++)
                if (d->values[v].type == DC_TYPE_OBJECT && d->values[v].object == &pool[object]) count++;
        }
    }
    return count;
}

static void compare_calls(const char *operation) {
    FUZZ_CHECK(echo_results_read == echo_results_written, "%s ran %u echo executes, the model expects %u",
               operation, echo_results_read, echo_results_written);
    echo_results_read = echo_results_written = 0;
    FUZZ_CHECK(made_count == expected_count, "%s made %u calls, the model expects %u", operation, made_count,
               expected_count);
    for (unsigned c = 0; c < made_count; c++) {
        const call_record *got = &made[c], *want = &expected[c];
        FUZZ_CHECK(got->kind == want->kind && got->data == want->data,
                   "%s call %u went to function %d with data %p, expected function %d with %p", operation, c,
                   (int)got->kind, got->data, (int)want->kind, want->data);
        FUZZ_CHECK(got->delivered == want->delivered && got->count == want->count,
                   "%s call %u: delivered %d with %zu values, expected %d with %zu", operation, c, got->delivered,
                   got->count, want->delivered, want->count);
        for (size_t v = 0; v < got->count; v++) {
            dc_value a = got->values[v], b = want->values[v];
            if (b.type == DC_TYPE_STRING && b.string != NULL && got->delivered) {
                FUZZ_CHECK(a.type == DC_TYPE_STRING && a.string != NULL && a.string != b.string &&
                               strcmp(got->texts[v], want->texts[v]) == 0,
                           "%s call %u value %zu: not a copy of \"%s\"", operation, c, v, want->texts[v]);
                continue;
            }
            char want_text[64], got_text[64];
            FUZZ_CHECK(dc_test_values_equal(a, b), "%s call %u value %zu: %s, expected %s", operation, c, v,
                       fuzz_describe(a, got_text, sizeof got_text), fuzz_describe(b, want_text, sizeof want_text));
        }
    }
    made_count = expected_count = 0;
}

static void check_state(const char *operation) {
    compare_calls(operation);
    for (unsigned i = 0; i < POOL_SIZE; i++)
        FUZZ_CHECK(pool[i].retains == expected_retains(i), "after %s object %u has %ld retains, %ld deliveries hold it",
                   operation, i, pool[i].retains, expected_retains(i));
    for (unsigned q = 0; q < QUEUE_SLOTS; q++) {
        queue_model *model = &queues[q];
        if (!model->exists) continue;
        size_t pending = dc_queue_pending(model->queue);
        FUZZ_CHECK(pending == model->pending, "after %s queue %u has %zu pending, the model %u", operation, q, pending,
                   model->pending);
        FUZZ_CHECK(fuzz_fd_readable(dc_queue_fd(model->queue)) == (pending > 0),
                   "after %s queue %u's fd readability disagrees with %zu pending", operation, q, pending);
        FUZZ_CHECK(dc_queue_is_owner(model->queue) == model->ours, "after %s queue %u ownership is wrong", operation,
                   q);
    }
    for (unsigned i = 0; i < registration_count; i++) {
        registration *r = &registrations[i];
        FUZZ_CHECK(dc_table_contains(table, r->id) == r->live, "after %s handler %llu: contains %d, the model %d",
                   operation, (unsigned long long)r->id, !r->live, r->live);
        FUZZ_CHECK(r->destroy_calls == (r->live ? 0 : 1), "after %s handler %llu: destroy notify ran %d times",
                   operation, (unsigned long long)r->id, r->destroy_calls);
    }
}

/* ---- operations -------------------------------------------------------------------------- */

static dc_value make_argument(void) {
    uint8_t choice = fuzz_byte(input);
    switch (choice % 7) {
    case 0: return dc_object(choice & 0x80 ? NULL : &pool[(choice >> 3) % POOL_SIZE]);
    case 1: return dc_string(choice & 0x80 ? NULL : texts[(choice >> 3) % 2]);
    case 2: return dc_int64((int64_t)fuzz_bytes(input, 2) - 1000);
    case 3: return dc_int32((int32_t)fuzz_bytes(input, 1));
    case 4: return dc_pointer(choice & 0x80 ? NULL : &pool[(choice >> 3) % POOL_SIZE]);
    case 5: return dc_bool(choice & 0x80);
    default: return dc_uint64(fuzz_bytes(input, 8));
    }
}

/* A slot that held a destroyed queue stays closed while handlers still hold
 * that queue; a new queue goes into a slot nothing refers to any more. */
static bool slot_referenced(unsigned q) {
    for (unsigned i = 0; i < registration_count; i++)
        if (registrations[i].live && registrations[i].queue == (int)q) return true;
    return false;
}

static void do_create_queue(void) {
    unsigned q = fuzz_below(input, QUEUE_SLOTS);
    bool foreign = fuzz_byte(input) & 1;
    queue_model *model = &queues[q];
    if (model->exists || (model->closed && slot_referenced(q))) return;
    if (foreign) {
        model->queue = fuzz_foreign_queue();
    } else {
        FUZZ_CHECK(dc_queue_create(&model->queue) == DC_OK, "dc_queue_create failed");
    }
    model->exists = true;
    model->closed = false;
    model->ours = !foreign;
    model->pending = 0;
}

static void do_destroy_queue(void) {
    unsigned q = fuzz_below(input, QUEUE_SLOTS);
    queue_model *model = &queues[q];
    if (!model->exists) return;
    dc_queue_destroy(model->queue);
    model->exists = false;
    model->closed = true;
    model->pending = 0; /* dropped, what they hold released */
}

static void do_move_queue(void) {
    unsigned q = fuzz_below(input, QUEUE_SLOTS);
    queue_model *model = &queues[q];
    if (!model->exists) return;
    if (fuzz_byte(input) & 1) {
        FUZZ_CHECK(dc_queue_bind_to_current_thread(model->queue) == DC_OK, "bind failed");
        model->ours = true;
    } else {
        fuzz_give_queue_away(model->queue);
        model->ours = false;
    }
}

static void do_add(void) {
    if (registration_count == MAX_REGISTRATIONS) return;
    registration *r = &registrations[registration_count];
    memset(r, 0, sizeof *r);
    r->event = fuzz_below(input, EVENT_COUNT);
    r->kind = (handler_kind)fuzz_below(input, KIND_COUNT);
    if (r->kind == KIND_ECHO && r->event == ECHO) r->kind = KIND_PLAIN; /* no echo of echo */
    uint8_t target = fuzz_byte(input);
    if (is_marshal(r->kind))
        r->target = target % 3 == 0 ? NULL : target % 3 == 1 ? (void *)&pool[target % POOL_SIZE] : (void *)r;
    else if (r->kind == KIND_TRIPLE || r->kind == KIND_TRIPLE_OTHER)
        r->target = target & 1 ? (void *)&pool[(target >> 1) % POOL_SIZE] : NULL;
    uint8_t how = fuzz_byte(input);
    r->once = how & 1;
    bool first = how & 2;
    r->queue = (int)((how >> 2) % (QUEUE_SLOTS + 1)) - 1;
    if (r->queue >= 0 && !queues[r->queue].exists) r->queue = -1;

    registration *duplicate = NULL;
    for (unsigned i = 0; i < registration_count; i++) {
        registration *other = &registrations[i];
        if (other->live && !(other->once && other->fired) && other->event == r->event &&
            kind_functions[other->kind] == kind_functions[r->kind] && other->target == r->target)
            duplicate = other;
    }

    dc_handler_options options = {(first ? DC_HANDLER_FIRST : 0u) | (r->once ? DC_HANDLER_ONCE : 0u),
                                  r->queue >= 0 ? queues[r->queue].queue : NULL, count_destroy, &r->destroy_calls};
    dc_handler_id id = 0;
    dc_status status;
    if (is_marshal(r->kind))
        status = dc_table_add_marshal(table, event_names[r->event], signatures[r->kind],
                                      r->kind == KIND_VARIADIC ? marshal : typed_marshal, r->target, &options, &id);
    else
        status = dc_table_add(table, event_names[r->event], signatures[r->kind], kind_functions[r->kind], r->target,
                              &options, &id);
    if (duplicate != NULL) {
        FUZZ_CHECK(status == DC_EXISTS && id == duplicate->id, "a duplicate add gave %s", dc_status_name(status));
        return;
    }
    FUZZ_CHECK(status == DC_OK && id != 0, "add gave %s", dc_status_name(status));
    r->id = id;
    r->live = true;
    r->order = first ? --front_order : ++back_order;
    registration_count++;
}

static void do_remove(void) {
    if (registration_count == 0) return;
    registration *r = &registrations[fuzz_byte(input) % registration_count];
    dc_status status = dc_table_remove(table, r->id);
    FUZZ_CHECK(status == (r->live ? DC_OK : DC_ERR_NOT_FOUND), "remove gave %s", dc_status_name(status));
    mark_removed(r);
}

static void do_block(void) {
    if (registration_count == 0) return;
    uint8_t choice = fuzz_byte(input);
    registration *r = &registrations[(choice >> 1) % registration_count];
    bool unblock = choice & 1;
    dc_status status = unblock ? dc_table_unblock(table, r->id) : dc_table_block(table, r->id);
    dc_status want = !r->live ? DC_ERR_NOT_FOUND : unblock && r->blocks == 0 ? DC_ERR_STATE : DC_OK;
    FUZZ_CHECK(status == want, "%s gave %s, expected %s", unblock ? "unblock" : "block", dc_status_name(status),
               dc_status_name(want));
    if (status == DC_OK) r->blocks += unblock ? -1u : 1u;
}

static void do_execute(void) {
    uint8_t event_choice = fuzz_byte(input);
    unsigned event = event_choice % EVENT_COUNT;
    size_t count = fuzz_below(input, MAX_ARGUMENTS);
    dc_value arguments[MAX_ARGUMENTS];
    for (size_t i = 0; i < count; i++) arguments[i] = make_argument();
    model_result want = model_execute(event, arguments, count);
    dc_result result;
    memset(&result, 0, sizeof result);
    /* With no arguments, NULL (what a caller without any passes) or an array. */
    const dc_value *passed = count == 0 && (event_choice & 0x80) ? NULL : arguments;
    dc_status status = dc_table_execute(table, event_names[event], passed, count, &result);
    if (overflow) return; /* the model gave up: the run ends here */
    FUZZ_CHECK(status == want.status, "execute gave %s, the model %s", dc_status_name(status),
               dc_status_name(want.status));
    if (status != DC_OK) return;
    FUZZ_CHECK(result.handled == want.handled && result.queued == want.queued && result.dropped == want.dropped,
               "execute: handled %zu queued %zu dropped %zu, the model %zu %zu %zu", result.handled, result.queued,
               result.dropped, want.handled, want.queued, want.dropped);
}

static void do_drain(void) {
    unsigned q = fuzz_below(input, QUEUE_SLOTS);
    queue_model *model = &queues[q];
    if (!model->exists) return;
    /* The model first: what is pending now runs, in order, unless its handler
     * is blocked (then it is dropped); a once-handler goes after either. */
    unsigned limit = model->pending, taken[MAX_DELIVERIES];
    memcpy(taken, model->deliveries, limit * sizeof taken[0]);
    model->pending -= limit;
    memmove(model->deliveries, model->deliveries + limit, model->pending * sizeof model->deliveries[0]);
    size_t want = 0;
    for (unsigned i = 0; i < limit; i++) {
        const delivery *d = &deliveries[taken[i]];
        registration *r = &registrations[d->registration];
        if (!r->live) continue; /* cannot happen: removal purges */
        if (r->blocks == 0) {
            expect_call(r, d->values, d->count, true);
            want++;
            if (r->kind == KIND_ECHO) model_echo_call();
        }
        if (r->once) mark_removed(r);
    }
    size_t delivered = 999;
    draining = true;
    dc_status status = dc_queue_drain(model->queue, &delivered);
    draining = false;
    if (overflow) return;
    FUZZ_CHECK(status == DC_OK && delivered == want, "drain gave %s, delivered %zu, the model %zu",
               dc_status_name(status), delivered, want);
}

static void do_recreate_table(void) {
    dc_table_destroy(table);
    for (unsigned i = 0; i < registration_count; i++) {
        mark_removed(&registrations[i]);
        FUZZ_CHECK(registrations[i].destroy_calls == 1, "dc_table_destroy: handler %llu's destroy notify ran %d times",
                   (unsigned long long)registrations[i].id, registrations[i].destroy_calls);
    }
    const dc_object_callbacks callbacks = {retain_object, release_object};
    FUZZ_CHECK(dc_table_create("queue fuzz", &callbacks, &table) == DC_OK, "dc_table_create failed");
    registration_count = 0;
}

/* ---- one run ------------------------------------------------------------------------------ */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    for (unsigned k = 0; k < KIND_COUNT; k++)
        if (kind_encodings[k] != NULL)
            FUZZ_CHECK(dc_signature_create(kind_encodings[k], &signatures[k]) == DC_OK, "signature %s",
                       kind_encodings[k]);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size, 0};
    input = &in;
    memset(queues, 0, sizeof queues);
    memset(registrations, 0, sizeof registrations);
    memset(pool, 0, sizeof pool);
    registration_count = delivery_count = made_count = expected_count = 0;
    echo_results_read = echo_results_written = 0;
    front_order = back_order = 0;
    overflow = false;
    const dc_object_callbacks callbacks = {retain_object, release_object};
    FUZZ_CHECK(dc_table_create("queue fuzz", &callbacks, &table) == DC_OK, "dc_table_create failed");

    static const char *const names[] = {"create queue", "destroy queue", "move queue", "add", "add",
                                        "remove", "block", "execute", "execute", "drain", "destroy table"};
    while (fuzz_has_more(&in) && !overflow) {
        unsigned operation = fuzz_below(&in, 11);
        switch (operation) {
        case 0: do_create_queue(); break;
        case 1: do_destroy_queue(); break;
        case 2: do_move_queue(); break;
        case 3:
        case 4: do_add(); break;
        case 5: do_remove(); break;
        case 6: do_block(); break;
        case 7:
        case 8: do_execute(); break;
        case 9: do_drain(); break;
        default:
            if (fuzz_byte(&in) < 16) do_recreate_table();
            break;
        }
        if (!overflow) check_state(names[operation]);
    }

    dc_table_destroy(table);
    table = NULL;
    for (unsigned i = 0; i < registration_count; i++) mark_removed(&registrations[i]);
    made_count = expected_count = 0;
    for (unsigned q = 0; q < QUEUE_SLOTS; q++) {
        if (!queues[q].exists) continue;
        FUZZ_CHECK(dc_queue_pending(queues[q].queue) == 0, "queue %u keeps deliveries of a destroyed table", q);
        dc_queue_destroy(queues[q].queue);
    }
    for (unsigned i = 0; i < POOL_SIZE; i++)
        FUZZ_CHECK(pool[i].retains == 0, "object %u: %ld retains never released", i, pool[i].retains);
    return 0;
}
