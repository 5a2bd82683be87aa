/*
 * table_model.h — the part of the event table's model that fuzz_table.c (one
 * thread, the fuzz input) and stress_table.c (threads, a seed) share: the
 * signatures their handlers have, the statuses a failing call must give, what
 * a handler must receive, the ways an execute is called (by name or id, with
 * options, briefly, by the event's record), and what its status and result
 * must say given the calls its own thread saw in it.
 *
 * The includer defines MODEL_CHECK(condition, format, ...) first: how a broken
 * promise ends its run (FUZZ_CHECK in the fuzzer, STRESS_CHECK in the stress
 * program, which names the seed to replay).
 */
#ifndef DC_TABLE_MODEL_H
#define DC_TABLE_MODEL_H

#ifndef MODEL_CHECK
#error "define MODEL_CHECK(condition, format, ...) before including table_model.h"
#endif

#include "fuzz_support.h"

/* The Swift layer's executes: briefly, with a context, by the event's record. */
#include "dispatch_core_inline.h" /* dc__execute_record_inline */

enum {
    SIGNATURE_COUNT = 10,
    MAX_RETURNS = 64,    /* returned values an execute's model keeps; it counts them all */
    RESULTS_CAPACITY = 4 /* DC_ACCUMULATE_ALL's results array, at most */
};

static const char *const encodings[SIGNATURE_COUNT] = {
    "v",          /* 0 */
    "v@",         /* 1 */
    "vq",         /* 2 */
    "q@qd",       /* 3 */
    "B^vBcsiS",   /* 4 */
    "d*fC",       /* 5 */
    "Q@qqqqqqq",  /* 6: eight integer parameters, libffi */
    "f@IQd",      /* 7 */
    "*@*",        /* 8 */
    "vdfdfdfdfd", /* 9: nine floating-point parameters, libffi */
};

static dc_signature *signatures[SIGNATURE_COUNT];

static void model_create_signatures(void) {
    for (unsigned i = 0; i < SIGNATURE_COUNT; i++)
        MODEL_CHECK(dc_signature_create(encodings[i], &signatures[i]) == DC_OK, "signature \"%s\"", encodings[i]);
}

/* ---- statuses ------------------------------------------------------------------------ */

/* A failing call must say so in a message of its own; `primed` is the message
 * left behind before it (fuzz_prime_message). */
static void model_check_message(dc_status status, const char *primed, const char *what) {
    FUZZ_CHECK_FAILURE_WITH(MODEL_CHECK, status, primed, what);
}

/* A call gave the status the model expects; if that is a failure (DC_EXISTS
 * is none), with a message of its own. */
static void model_expect_status(dc_status status, dc_status expected, const char *primed, const char *what) {
    MODEL_CHECK(status == expected, "%s gave %s, expected %s", what, dc_status_name(status), dc_status_name(expected));
    if (status != DC_OK && status != DC_EXISTS) model_check_message(status, primed, what);
}

/* ---- what a handler receives ----------------------------------------------------------- */

/* A handler as its parameters are checked: named in messages by `tag` and
 * `number` (a fuzzer's handler id, a stress record "r" and its index). */
typedef struct model_handler {
    int signature;      /* -1: a variadic marshal */
    const void *target; /* the target bound as parameter 0; NULL when none is */
    const char *tag;
    unsigned long long number;
} model_handler;

/* What parameter `p` of `h` receives in an execute of `arguments`: the bound
 * target first, then the arguments converted to the parameters' types, zero
 * for the parameters the execute does not carry. */
static dc_value model_expected_parameter(const model_handler *h, const dc_value *arguments, size_t count, size_t p) {
    dc_type type;
    MODEL_CHECK(dc_signature_parameter_type(signatures[h->signature], p, &type) == DC_OK, "no parameter %zu", p);
    size_t first = h->target != NULL ? 1 : 0;
    if (p == 0 && first) {
        dc_value target = fuzz_zero(type);
        if (type == DC_TYPE_STRING)
            target.string = (char *)(uintptr_t)h->target;
        else
            target.pointer = (void *)(uintptr_t)h->target;
        return target;
    }
    size_t argument = p - first;
    dc_value value = fuzz_zero(type);
    if (argument < count)
        MODEL_CHECK(dc_value_convert(&arguments[argument], type, &value) == DC_OK,
                    "argument %zu reached handler %s%llu, which it does not fit", argument, h->tag, h->number);
    return value;
}

/* The values a call of `h` received in an execute of `arguments`: a variadic
 * marshal gets the arguments as given, any other handler its parameters. */
static void model_check_parameters(const model_handler *h, const dc_value *arguments, size_t argument_count,
                                   const dc_value *values, size_t count) {
    if (h->signature < 0) {
        MODEL_CHECK(count == argument_count, "variadic marshal %s%llu got %zu values of %zu arguments", h->tag,
                    h->number, count, argument_count);
        for (size_t i = 0; i < count; i++)
            MODEL_CHECK(dc_test_values_equal(values[i], arguments[i]),
                        "variadic marshal %s%llu: value %zu is not as given", h->tag, h->number, i);
        return;
    }
    size_t parameters = dc_signature_parameter_count(signatures[h->signature]);
    MODEL_CHECK(count == parameters, "handler %s%llu got %zu values for %zu parameters", h->tag, h->number, count,
                parameters);
    for (size_t p = 0; p < count; p++) {
        dc_value expected = model_expected_parameter(h, arguments, argument_count, p);
        char want[64], got[64];
        MODEL_CHECK(dc_test_values_equal(values[p], expected),
                    "handler %s%llu (\"%s\") parameter %zu: expected %s, got %s", h->tag, h->number,
                    encodings[h->signature], p, fuzz_describe(expected, want, sizeof want),
                    fuzz_describe(values[p], got, sizeof got));
    }
}

/* ---- what an execute's thread saw -------------------------------------------------------- */

/* The calls one execute made on its own thread, counted as they ran: what its
 * result must say. */
typedef struct model_calls {
    dc_accumulator accumulator;
    size_t calls;
    size_t return_count;
    bool stop_called;  /* a handler called dc_table_stop_emission */
    bool stop_by_true; /* a handler returned true to DC_ACCUMULATE_TRUE_HANDLED */
    dc_value returns[MAX_RETURNS]; /* the first MAX_RETURNS values returned */
} model_calls;

/* Starts the count of an execute (or a drain) with `accumulator`. */
static void model_calls_open(model_calls *seen, dc_accumulator accumulator) {
    seen->accumulator = accumulator;
    seen->calls = seen->return_count = 0;
    seen->stop_called = seen->stop_by_true = false;
}

/* A call of the execute returned `returned`; void is no value. */
static void model_note_return(model_calls *seen, dc_value returned) {
    if (returned.type == DC_TYPE_VOID) return;
    if (seen->return_count < MAX_RETURNS) seen->returns[seen->return_count] = returned;
    seen->return_count++;
    if (seen->accumulator == DC_ACCUMULATE_TRUE_HANDLED && returned.type == DC_TYPE_BOOL && returned.b)
        seen->stop_by_true = true;
}

/* An execute's result against what its thread saw; `results` holds `capacity`
 * values for DC_ACCUMULATE_ALL. With `every_queue_alive` nothing may be
 * dropped; otherwise drops depend on other threads and are not checked. */
static void model_check_result(const model_calls *seen, const dc_result *result, const dc_value *results,
                               size_t capacity, bool every_queue_alive) {
    MODEL_CHECK(result->handled == seen->calls, "result.handled %zu, this thread saw %zu calls in the execute",
                result->handled, seen->calls);
    MODEL_CHECK(result->return_count == seen->return_count, "result.return_count %zu, %zu values were returned",
                result->return_count, seen->return_count);
    MODEL_CHECK(result->stopped == seen->stop_called, "result.stopped %d, stop called %d", result->stopped,
                seen->stop_called);
    if (every_queue_alive)
        MODEL_CHECK(result->dropped == 0, "%zu deliveries dropped with every queue alive", result->dropped);
    MODEL_CHECK(result->has_return_value == (seen->return_count > 0), "has_return_value %d with %zu values",
                result->has_return_value, seen->return_count);
    if (seen->return_count == 0 || seen->return_count > MAX_RETURNS) {
        if (seen->return_count == 0)
            MODEL_CHECK(result->return_value.type == DC_TYPE_VOID, "a return value without a handler returning one");
        return;
    }
    dc_value expected;
    switch (seen->accumulator) {
    case DC_ACCUMULATE_FIRST: expected = seen->returns[0]; break;
    case DC_ACCUMULATE_ALL:
        expected = seen->returns[0];
        for (size_t i = 0; i < capacity && i < seen->return_count; i++)
            MODEL_CHECK(dc_test_values_equal(results[i], seen->returns[i]),
                        "results[%zu] is not the %zu-th value returned", i, i);
        break;
    default: expected = seen->returns[seen->return_count - 1]; break;
    }
    char want[64], got[64];
    MODEL_CHECK(dc_test_values_equal(result->return_value, expected), "accumulator %d: return value %s, expected %s",
                (int)seen->accumulator, fuzz_describe(result->return_value, got, sizeof got),
                fuzz_describe(expected, want, sizeof want));
}

/* ---- an execute ---------------------------------------------------------------------------- */

/*
 * One execute, as a byte `how` chooses it:
 *   bit 0      by id, not by name;
 *   bit 1      with options (two more bytes: model_execute_options);
 *   bits 2-3   both set: no result asked for;
 *   bit 4      a context for the handlers (the caller's frame); without
 *              options, the brief execute, which reports in short;
 *   bit 5      brief by id: by the event's record, inline without arguments;
 *   bit 6      no arguments passed as NULL;
 *   bits 4-7   all set, with arguments: the arguments NULL (refused).
 * It runs once (model_execute_run), then holds what it gave.
 */
typedef struct model_execute {
    uint8_t how;
    bool by_id, with_options, brief, no_result, null_arguments, bad_options;
    const dc_value *arguments;
    size_t count;
    void *context; /* for the handlers, through dc__table_execute_context() */
    dc_execute_options options;
    dc_value results[RESULTS_CAPACITY];
    const char *primed; /* the message left behind just before the call */
    dc_status status;
    dc__brief_result report; /* the brief execute's */
    dc_result result;
} model_execute;

static void model_execute_begin(model_execute *e, uint8_t how, const dc_value *arguments, size_t count,
                                void *frame) {
    memset(e, 0, offsetof(model_execute, results));
    e->how = how;
    e->by_id = how & 1;
    e->with_options = how & 2;
    e->no_result = (how & 0x0C) == 0x0C;
    e->brief = !e->with_options && (how & 0x10);
    e->arguments = arguments;
    e->count = count;
    e->null_arguments = count > 0 && (how & 0xF0) == 0xF0;
    e->context = (how & 0x10) ? frame : NULL;
    e->options.accumulator = DC_ACCUMULATE_FIRST;
}

/* The options, from two bytes. The accumulator: 0xF8 and up one that does
 * not exist. The flags: bits 0-1 the DC_EXECUTE_* flags, bits 6-7 both set
 * an unknown flag besides; the byte shifted right by 2, modulo
 * RESULTS_CAPACITY + 1, the results capacity; bits 4-5 both set, under
 * DC_ACCUMULATE_ALL with a capacity, no results array. */
static void model_execute_options(model_execute *e, uint8_t accumulator, uint8_t flags) {
    e->options.accumulator = (dc_accumulator)(accumulator % 4);
    if (accumulator >= 0xF8) e->options.accumulator = (dc_accumulator)(4 + accumulator % 3), e->bad_options = true;
    e->options.flags = flags & (DC_EXECUTE_REQUIRE_HANDLER | DC_EXECUTE_STRICT);
    if ((flags & 0xC0) == 0xC0) e->options.flags |= 1u << 7, e->bad_options = true;
    e->options.results_capacity = (flags >> 2) % (RESULTS_CAPACITY + 1);
    e->options.results = e->results;
    if (e->options.accumulator == DC_ACCUMULATE_ALL && e->options.results_capacity > 0 && (flags & 0x30) == 0x30)
        e->options.results = NULL, e->bad_options = true;
}

/* The status the execute must give on its own, in the order the library
 * checks: DC_OK when it is not refused. `unknown_id`: by an id that names no
 * event of the table. */
static dc_status model_execute_refusal(const model_execute *e, dc_event_id id, bool unknown_id) {
    if (e->by_id && id == 0) return DC_ERR_NOT_FOUND;
    if (e->bad_options) return DC_ERR_INVALID_ARGUMENT;
    if (e->null_arguments) return DC_ERR_NULL_ARGUMENT;
    if (e->by_id && unknown_id) return DC_ERR_NOT_FOUND;
    return DC_OK;
}

/* Executes the event `name`, or `id` when by id, on `table`, the way `e`
 * says. The caller has opened its frame: the handlers run in here. */
static void model_execute_run(model_execute *e, dc_table *table, const char *name, dc_event_id id) {
    memset(&e->result, 0x5a, sizeof e->result);
    dc_result *result = e->no_result ? NULL : &e->result;
    /* NULL is what a caller without arguments passes, and is allowed then. */
    const dc_value *passed = e->null_arguments || (e->count == 0 && (e->how & 0x40)) ? NULL : e->arguments;
    size_t count = e->count;
    void *context = e->context;
    e->report = (dc__brief_result){DC_ERR_STATE, true, 4242};
    e->primed = fuzz_prime_message();
    if (e->brief && e->by_id && (e->how & 0x20)) {
        /* The Swift layer's way: the event's record, and without arguments
         * the inline execute compiled into the caller. */
        const dc__event_record *event_record = dc__event_record_of(table, id);
        MODEL_CHECK(event_record != NULL, "no record for the interned id %u", id);
        e->report = count == 0 ? dc__execute_record_inline(table, event_record, context, result)
                               : dc__execute_record(table, event_record, passed, count, context, result);
        e->status = e->report.status;
    } else if (e->brief) {
        e->report = e->by_id ? dc__table_execute_brief(table, NULL, id, passed, count, context, result)
                             : dc__table_execute_brief(table, name, 0, passed, count, context, result);
        e->status = e->report.status;
    } else if (e->by_id) {
        e->status = e->with_options && context != NULL
                        ? dc__table_execute(table, NULL, id, passed, count, &e->options, context, result)
                    : e->with_options ? dc_table_execute_id_with(table, id, passed, count, &e->options, result)
                                      : dc_table_execute_id(table, id, passed, count, result);
    } else {
        e->status = e->with_options && context != NULL
                        ? dc__table_execute(table, name, 0, passed, count, &e->options, context, result)
                    : e->with_options ? dc_table_execute_with(table, name, passed, count, &e->options, result)
                                      : dc_table_execute(table, name, passed, count, result);
    }
}

/* The object check the fuzzers give their tables (dc__table_set_object_check),
 * for a file whose object arguments come from `pool_array`, the check's
 * context: pool objects 1 and 3 are of a type no marshal asking it
 * (DC__HANDLER_CHECK_OBJECTS) takes. Defines object_refused() and
 * check_pool_object(). */
#define MODEL_DEFINE_OBJECT_CHECK(pool_array)                                                                      \
    static bool object_refused(const void *object) { return object == &pool_array[1] || object == &pool_array[3]; } \
    static bool check_pool_object(void *context, const char *event, size_t index, void *object, char *message,   \
                                  size_t size) {                                                                  \
        MODEL_CHECK(context == pool_array && event != NULL, "the object check's context or event");               \
        if (!object_refused(object)) return true;                                                                 \
        snprintf(message, size, "argument %zu: pool object %d is refused", index,                                 \
                 (int)((const char *)object - (const char *)pool_array) / (int)sizeof pool_array[0]);             \
        return false;                                                                                             \
    }

/* Whether the execute asks the table's object check: a public one, not the
 * binding's (brief, by record, or with a context for its handlers). */
static inline bool model_execute_asks_objects(const model_execute *e) {
    return !(e->brief || (e->with_options && e->context != NULL));
}

/* The status where the model alone decides it: `expected` when the execute is
 * refused, otherwise DC_OK, or DC_ERR_NO_HANDLER when a handler was required.
 * A type or arity error the caller judges before, as it knows the handlers. */
static void model_check_execute_status(const model_execute *e, dc_status expected) {
    if (expected != DC_OK) {
        model_expect_status(e->status, expected, e->primed, "dc_table_execute");
    } else if (e->status == DC_ERR_NO_HANDLER) {
        MODEL_CHECK(e->options.flags & DC_EXECUTE_REQUIRE_HANDLER, "DC_ERR_NO_HANDLER without requiring a handler");
        model_check_message(e->status, e->primed, "dc_table_execute");
    } else {
        MODEL_CHECK(e->status == DC_OK, "dc_table_execute gave %s, the model expects DC_OK",
                    dc_status_name(e->status));
    }
}

/* What the execute gave against what its thread saw: a failed one ran nothing
 * and wrote no result; a brief report agrees with the result; the result is
 * model_check_result's. Returns the result the execute wrote and that was
 * checked, NULL when none was. */
static const dc_result *model_check_execute(const model_execute *e, const model_calls *seen,
                                            bool every_queue_alive) {
    if (e->status != DC_OK) {
        MODEL_CHECK(seen->calls == 0, "a failed execute (%s) ran %zu handlers", dc_status_name(e->status), seen->calls);
        MODEL_CHECK(e->result.handled == 0x5a5a5a5a5a5a5a5aull, "a failed execute (%s) wrote its result",
                    dc_status_name(e->status));
        if (e->brief)
            MODEL_CHECK(e->report.handled == 0 && !e->report.detailed, "a failed brief execute reported more");
        return NULL;
    }
    if (e->brief) {
        MODEL_CHECK(e->report.handled == seen->calls, "brief report: %zu handled, this thread saw %zu calls",
                    e->report.handled, seen->calls);
        if (!e->report.detailed) {
            /* Nothing more to say: the model agrees with a result of the count alone. */
            dc_result alone = {.handled = e->report.handled, .return_value = dc_void()};
            model_check_result(seen, &alone, NULL, 0, every_queue_alive);
            return NULL;
        }
        if (e->no_result) return NULL;
        MODEL_CHECK(e->result.handled == e->report.handled, "brief: result.handled %zu, reported %zu",
                    e->result.handled, e->report.handled);
        MODEL_CHECK(e->result.queued + e->result.dropped + e->result.return_count > 0 || e->result.stopped ||
                        e->result.has_return_value,
                    "a detailed brief report with nothing more in its result");
    }
    if (e->no_result) return NULL;
    if (e->options.flags & DC_EXECUTE_REQUIRE_HANDLER)
        MODEL_CHECK(e->result.handled + e->result.queued > 0, "required a handler, none ran or was queued");
    model_check_result(seen, &e->result, e->options.results, e->options.results_capacity, every_queue_alive);
    return &e->result;
}

#endif /* DC_TABLE_MODEL_H */
