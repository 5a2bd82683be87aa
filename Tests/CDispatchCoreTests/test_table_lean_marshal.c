/*
 * test_table_lean_marshal.c — the lean execute of marshal handlers (an event
 * whose handlers are all marshals of one void shape, or all variadic ones)
 * gives what the general execute gives: the caller's arguments as they are
 * with the handler's parameter count, *result typed void and zeroed, the
 * execute's context, stop, once and queued handlers handed to the general
 * loop in their place, removed and blocked ones passed over and not counted,
 * values a variadic marshal returns accumulated, and errors as before.
 */
#include "table_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include "dispatch_core_binding.h"

/* ---- what marshals saw ------------------------------------------------------------------ */

/* What the last marshal call received. */
static const dc_value *seen_arguments;
static size_t seen_count;
static dc_value seen_first;     /* arguments[0] when count > 0 */
static dc_value seen_result;    /* *result as it arrived */
static void *seen_data;
static void *seen_context;
static int marshal_calls;

static void forget_seen(void) {
    seen_arguments = NULL;
    seen_count = 999;
    memset(&seen_first, 0x5a, sizeof seen_first);
    memset(&seen_result, 0x5a, sizeof seen_result);
    seen_data = NULL;
    seen_context = NULL;
    marshal_calls = 0;
}

static void see(void *data, const dc_value *arguments, size_t count, const dc_value *result) {
    seen_arguments = arguments;
    seen_count = count;
    if (count > 0) seen_first = arguments[0];
    seen_result = *result;
    seen_data = data;
    seen_context = dc__table_execute_context(table);
    marshal_calls++;
}

/* Numbered marshals that record what they saw and log their number; each also
 * writes over *result, which a marshal of a void signature may do to no effect. */
#define DEFINE_MARSHAL(n)                                                                \
    static void marshal_##n(void *data, const dc_value *arguments, size_t count,        \
                            dc_value *result) {                                          \
        see(data, arguments, count, result);                                             \
        *result = dc_int64(1000 + n);                                                    \
        log_call(n);                                                                     \
    }
DEFINE_MARSHAL(1)
DEFINE_MARSHAL(2)
DEFINE_MARSHAL(3)
DEFINE_MARSHAL(4)
DEFINE_MARSHAL(5)
#undef DEFINE_MARSHAL

static dc_handler_id add_marshal(const char *event, const char *encoding, dc_marshal marshal, void *data,
                                 const dc_handler_options *options) {
    dc_handler_id id = 0;
    assert_ok(dc_table_add_marshal(table, event, encoding != NULL ? sig(encoding) : NULL, marshal, data, options,
                                   &id));
    assert_true(id != 0);
    return id;
}

static void assert_void_result(const dc_result *result, size_t handled, bool stopped) {
    assert_int_equal(result->handled, handled);
    assert_int_equal(result->queued, 0);
    assert_int_equal(result->dropped, 0);
    assert_int_equal(result->return_count, 0);
    assert_false(result->has_return_value);
    assert_int_equal(result->stopped, stopped);
    assert_int_equal(result->return_value.type, DC_TYPE_VOID);
    assert_int_equal(result->return_value.u64, 0);
}

/* ---- arguments and results ----------------------------------------------------------------- */

static void marshals_get_the_callers_arguments_with_their_parameter_count(void **state) {
    (void)state;
    int data = 0, object = 0;
    char text[] = "text";
    const struct {
        const char *encoding;
        dc_value first;
    } shapes[] = {
        {"v", {0}},
        {"vB", dc_bool(true)},
        {"vc", dc_int8(-5)},
        {"vS", dc_uint16(65000)},
        {"vi", dc_int32(-7)},
        {"vq", dc_int64(1ll << 40)},
        {"vf", dc_float(1.5f)},
        {"vd", dc_double(-2.25)},
        {"v@", dc_object(&object)},
        {"v*", dc_string(text)},
        {"v^v", dc_pointer(&object)},
        {"vBdq@", dc_bool(false)},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        char event[16];
        snprintf(event, sizeof event, "e%zu", s);
        const dc_signature *signature = sig(shapes[s].encoding);
        size_t parameters = dc_signature_parameter_count(signature);
        add_marshal(event, shapes[s].encoding, marshal_1, &data, NULL);
        /* The parameters' types, then one argument more. */
        dc_value arguments[6];
        arguments[0] = shapes[s].first;
        const dc_value rest[] = {dc_double(0.5), dc_int64(9), dc_object(&object)};
        for (size_t p = 1; p < parameters; p++) arguments[p] = rest[p - 1];
        arguments[parameters] = dc_int32(77);
        for (size_t count = parameters; count <= parameters + 1; count++) {
            forget_seen();
            dc_result result;
            memset(&result, 0x5a, sizeof result);
            assert_ok(dc_table_execute(table, event, arguments, count, &result));
            assert_void_result(&result, 1, false);
            assert_int_equal(marshal_calls, 1);
            /* The caller's own array, with the handler's parameter count. */
            assert_ptr_equal(seen_arguments, arguments);
            assert_int_equal(seen_count, parameters);
            if (parameters > 0) {
                assert_int_equal(seen_first.type, shapes[s].first.type);
                assert_int_equal(seen_first.u64, shapes[s].first.u64);
            }
            assert_int_equal(seen_result.type, DC_TYPE_VOID);
            assert_int_equal(seen_result.u64, 0);
            assert_ptr_equal(seen_data, &data);
        }
    }
    assert_int_equal(retains, 0);
    assert_int_equal(releases, 0);
}

static void many_marshals_run_in_order_by_id_and_key_with_and_without_a_result(void **state) {
    (void)state;
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "many", &id));
    dc_marshal marshals[] = {marshal_1, marshal_2, marshal_3, marshal_4, marshal_5};
    int data[5];
    const dc_handler_options owns = handler_options(DC__HANDLER_OWNS_TARGET, NULL);
    for (size_t i = 0; i < 5; i++) add_marshal("many", "vB", marshals[i], &data[i], i % 2 ? &owns : NULL);
    const dc_value argument[] = {dc_bool(true)};
    int context = 0;
    dc_result result;
    memset(&result, 0x5a, sizeof result);
    assert_ok(dc__table_execute(table, NULL, id, argument, 1, NULL, &context, &result));
    assert_void_result(&result, 5, false);
    assert_ptr_equal(seen_data, &data[4]);
    assert_ok(dc__table_execute(table, NULL, id, argument, 1, NULL, &context, NULL));
    assert_ok(dc_table_execute_id(table, id, argument, 1, NULL));
    memset(&result, 0x5a, sizeof result);
    assert_ok(dc__table_execute(table, "many", 0, argument, 1, NULL, &context, &result));
    assert_void_result(&result, 5, false);
    result = execute_ok("many", argument, 1);
    assert_void_result(&result, 5, false);
    assert_call_log(1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5);
    /* Owned data is released when its handler goes, and only then. */
    assert_int_equal(releases, 0);
    size_t removed = 0;
    assert_ok(dc_table_remove_event(table, "many", &removed));
    assert_int_equal(removed, 5);
    assert_int_equal(releases, 2);
}

static void context_is_the_callers_inside_and_gone_after(void **state) {
    (void)state;
    add_marshal("c", "v", marshal_1, NULL, NULL);
    add_marshal("c", "v", marshal_2, NULL, NULL);
    int context = 0;
    forget_seen();
    dc_result result;
    assert_ok(dc__table_execute(table, "c", 0, NULL, 0, NULL, &context, &result));
    assert_ptr_equal(seen_context, &context);
    assert_null(dc__table_execute_context(table));
    /* No options: no context. */
    forget_seen();
    seen_context = &context;
    execute_ok("c", NULL, 0);
    assert_int_equal(marshal_calls, 2);
    assert_null(seen_context);
    assert_call_log(1, 2, 1, 2);
}

/* An accumulator has nothing to collect from marshals of a void signature. */
static void accumulators_collect_nothing_from_void_marshals(void **state) {
    (void)state;
    add_marshal("a", "vq", marshal_1, NULL, NULL);
    add_marshal("a", "vq", marshal_2, NULL, NULL);
    dc_value results[2];
    memset(results, 0x5a, sizeof results);
    const dc_accumulator accumulators[] = {DC_ACCUMULATE_FIRST, DC_ACCUMULATE_LAST, DC_ACCUMULATE_ALL,
                                           DC_ACCUMULATE_TRUE_HANDLED};
    for (size_t i = 0; i < 4; i++) {
        const dc_execute_options options = {.accumulator = accumulators[i], .results = results,
                                            .results_capacity = 2};
        dc_result result;
        memset(&result, 0x5a, sizeof result);
        assert_ok(dc_table_execute_with(table, "a", (dc_value[]){dc_int64(3)}, 1, &options, &result));
        assert_void_result(&result, 2, false);
    }
    assert_int_equal(results[0].type, (dc_type)0x5a5a5a5a);
    assert_call_log(1, 2, 1, 2, 1, 2, 1, 2);
}

/* ---- stop, once, queued, blocked, removed ---------------------------------------------------- */

static void stop_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)arguments, (void)count, (void)result;
    log_call(60);
    assert_ok(dc_table_stop_emission(table));
}

static void stop_from_a_marshal_counts_what_ran_before_it(void **state) {
    (void)state;
    add_marshal("s", "vB", marshal_1, NULL, NULL);
    dc_handler_id blocked = add_marshal("s", "vB", marshal_2, NULL, NULL);
    add_marshal("s", "vB", stop_marshal, NULL, NULL);
    add_marshal("s", "vB", marshal_4, NULL, NULL);
    assert_ok(dc_table_block(table, blocked));
    const dc_value argument[] = {dc_bool(false)};
    dc_result result = execute_ok("s", argument, 1);
    assert_void_result(&result, 2, true);
    assert_ok(dc_table_unblock(table, blocked));
    result = execute_ok("s", argument, 1);
    assert_void_result(&result, 3, true);
    assert_call_log(1, 60, 1, 2, 60);
}

static void once_marshal_runs_once_in_its_place(void **state) {
    (void)state;
    const dc_handler_options once = handler_options(DC_HANDLER_ONCE, NULL);
    add_marshal("o", "vi", marshal_1, NULL, NULL);
    add_marshal("o", "vi", marshal_2, NULL, &once);
    add_marshal("o", "vi", marshal_3, NULL, NULL);
    /* Once first, so the general loop takes the whole snapshot. */
    add_marshal("p", "v", marshal_4, NULL, &once);
    add_marshal("p", "v", marshal_5, NULL, NULL);
    const dc_value argument[] = {dc_int32(4)};
    forget_seen();
    dc_result result = execute_ok("o", argument, 1);
    assert_void_result(&result, 3, false);
    assert_int_equal(seen_first.i32, 4);
    result = execute_ok("o", argument, 1);
    assert_void_result(&result, 2, false);
    assert_int_equal(handler_count("o"), 2);
    result = execute_ok("p", NULL, 0);
    assert_void_result(&result, 2, false);
    result = execute_ok("p", NULL, 0);
    assert_void_result(&result, 1, false);
    assert_call_log(1, 2, 3, 1, 3, 4, 5, 5);
}

static void queued_marshal_is_posted_and_the_rest_runs(void **state) {
    (void)state;
    dc_queue *queue = queue_owned_elsewhere();
    dc_handler_options queued = handler_options(0, NULL);
    queued.queue = queue;
    add_marshal("q", "vq", marshal_1, NULL, NULL);
    add_marshal("q", "vq", marshal_2, NULL, &queued);
    add_marshal("q", "vq", marshal_3, NULL, NULL);
    dc_result result = execute_ok("q", (dc_value[]){dc_int64(12)}, 1);
    assert_int_equal(result.handled, 2);
    assert_int_equal(result.queued, 1);
    assert_call_log(1, 3);
    forget_seen();
    size_t delivered = 0;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 1);
    assert_int_equal(seen_first.i64, 12);
    assert_call_log(1, 3, 2);
    dc_queue_destroy(queue);
}

static void blocked_and_removed_marshals_are_passed_over_and_not_counted(void **state) {
    (void)state;
    add_marshal("b", "vd", marshal_1, NULL, NULL);
    dc_handler_id blocked = add_marshal("b", "vd", marshal_2, NULL, NULL);
    dc_handler_id removed = add_marshal("b", "vd", marshal_3, NULL, NULL);
    add_marshal("b", "vd", marshal_4, NULL, NULL);
    assert_ok(dc_table_block(table, blocked));
    assert_ok(dc_table_remove(table, removed));
    const dc_value argument[] = {dc_double(1.0)};
    dc_result result = execute_ok("b", argument, 1);
    assert_void_result(&result, 2, false);
    assert_ok(dc_table_unblock(table, blocked));
    result = execute_ok("b", argument, 1);
    assert_void_result(&result, 3, false);
    assert_call_log(1, 4, 1, 2, 4);
}

static dc_handler_id doomed;
static void remove_doomed(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)arguments, (void)count, (void)result;
    log_call(40);
    assert_ok(dc_table_remove(table, doomed));
}

static void marshal_removed_by_an_earlier_one_is_not_called_in_the_same_execute(void **state) {
    (void)state;
    int data = 0;
    const dc_handler_options owns = handler_options(DC__HANDLER_OWNS_TARGET, NULL);
    add_marshal("r", "v", remove_doomed, NULL, NULL);
    add_marshal("r", "v", marshal_2, NULL, NULL);
    doomed = add_marshal("r", "v", marshal_3, &data, &owns);
    add_marshal("r", "v", marshal_4, NULL, NULL);
    dc_result result = execute_ok("r", NULL, 0);
    assert_void_result(&result, 3, false);
    assert_int_equal(releases, 1);
    assert_call_log(40, 2, 4);
}

/* A plain function and a marshal of one signature on one event still both run,
 * in order. */
static void plain_and_marshal_handlers_of_one_signature_run_in_order(void **state) {
    (void)state;
    add_recorder("m", record_1);
    add_marshal("m", "v", marshal_2, NULL, NULL);
    add_recorder("m", record_3);
    dc_result result = execute_ok("m", NULL, 0);
    assert_void_result(&result, 3, false);
    add_marshal("n", "v", marshal_4, NULL, NULL);
    add_recorder("n", record_5);
    result = execute_ok("n", NULL, 0);
    assert_void_result(&result, 2, false);
    assert_call_log(1, 2, 3, 4, 5);
}

/* ---- destroy and nesting --------------------------------------------------------------------- */

static void destroy_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)arguments, (void)count, (void)result;
    log_call(70);
    dc_table_destroy(table);
}

static void destroy_from_a_marshal_waits_for_the_execute_to_end(void **state) {
    (void)state;
    int data[3];
    const dc_handler_options owns = handler_options(DC__HANDLER_OWNS_TARGET, NULL);
    add_marshal("d", "v", marshal_1, &data[0], &owns);
    add_marshal("d", "v", destroy_marshal, &data[1], &owns);
    add_marshal("d", "v", marshal_3, &data[2], &owns);
    int context = 0;
    dc_result result;
    assert_ok(dc__table_execute(table, "d", 0, NULL, 0, NULL, &context, &result));
    assert_void_result(&result, 2, false);
    assert_int_equal(releases, 3);
    assert_call_log(1, 70);
    table = NULL; /* destroyed when the execute returned */
}

static dc_event_id nesting_event;
static int nesting_depth, deepest;
static dc_status innermost_status;
static void execute_again(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)result;
    nesting_depth++;
    if (nesting_depth > deepest) deepest = nesting_depth;
    /* Each execute's context is the depth of the marshal that made it. */
    int *mine = dc__table_execute_context(table);
    if (nesting_depth == 1)
        assert_null(mine);
    else
        assert_int_equal(*mine, nesting_depth - 1);
    int context = nesting_depth;
    dc_status status = dc__table_execute(table, NULL, nesting_event, arguments, count, NULL, &context, NULL);
    if (status != DC_OK) innermost_status = status;
    /* The inner executes' frames are gone: this one's context again. */
    assert_ptr_equal(dc__table_execute_context(table), mine);
    nesting_depth--;
}

static void nested_executes_of_a_marshal_stop_at_the_depth_limit_and_unwind(void **state) {
    (void)state;
    assert_ok(dc_table_intern(table, "nest", &nesting_event));
    add_marshal("nest", "vB", execute_again, NULL, NULL);
    nesting_depth = deepest = 0;
    innermost_status = DC_OK;
    assert_ok(dc_table_execute_id(table, nesting_event, (dc_value[]){dc_bool(true)}, 1, NULL));
    assert_int_equal(deepest, DC_MAX_EXECUTE_DEPTH);
    assert_int_equal(innermost_status, DC_ERR_DEPTH);
    deepest = 0;
    assert_ok(dc_table_execute_id(table, nesting_event, (dc_value[]){dc_bool(true)}, 1, NULL));
    assert_int_equal(deepest, DC_MAX_EXECUTE_DEPTH);
}

/* ---- errors ---------------------------------------------------------------------------------- */

static void bad_executes_of_a_marshal_event_fail_as_before(void **state) {
    (void)state;
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "e", &id));
    add_marshal("e", "vBq", marshal_1, NULL, NULL);
    add_marshal("e", "vBq", marshal_2, NULL, NULL);
    const dc_value two[] = {dc_bool(true), dc_int64(5)};
    assert_status(dc_table_execute_id(table, id, NULL, 2, NULL), DC_ERR_NULL_ARGUMENT);
    assert_status(dc_table_execute(table, "e", (dc_value[]){dc_int64(1), dc_int64(5)}, 2, NULL), DC_ERR_TYPE);
    assert_status(dc_table_execute(table, "e", (dc_value[]){dc_bool(true), dc_double(5)}, 2, NULL), DC_ERR_TYPE);
    const dc_execute_options strict = {.flags = DC_EXECUTE_STRICT};
    const dc_value three[] = {dc_bool(true), dc_int64(5), dc_int64(6)};
    assert_status(dc_table_execute_with(table, "e", three, 3, &strict, NULL), DC_ERR_ARITY);
    assert_status(dc_table_execute_with(table, "e", two, 1, &strict, NULL), DC_ERR_ARITY);
    const dc_execute_options required = {.flags = DC_EXECUTE_REQUIRE_HANDLER};
    assert_status(dc_table_execute_with(table, "nobody", two, 2, &required, NULL), DC_ERR_NO_HANDLER);
    assert_nothing_called();
    assert_ok(dc_table_execute_with(table, "e", two, 2, &strict, NULL));
    assert_ok(dc_table_execute_with(table, "e", two, 2, &required, NULL));
    /* A missing trailing argument is zero, in values of the handler's own. */
    forget_seen();
    dc_result result = execute_ok("e", two, 1);
    assert_void_result(&result, 2, false);
    assert_int_equal(seen_count, 2);
    assert_true(seen_arguments != two);
    assert_int_equal(seen_first.type, DC_TYPE_BOOL);
    /* A convertible argument is converted, the general way. */
    forget_seen();
    result = execute_ok("e", (dc_value[]){dc_bool(true), dc_int32(5)}, 2);
    assert_void_result(&result, 2, false);
    assert_int_equal(seen_count, 2);
    assert_call_log(1, 2, 1, 2, 1, 2, 1, 2);
}

/* ---- variadic marshals ------------------------------------------------------------------------ */

static dc_value variadic_returns; /* what returning_marshal returns; type void for nothing */
static void returning_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    see(data, arguments, count, result);
    *result = variadic_returns;
    log_call(90);
}

static void variadic_marshals_get_every_argument_as_given(void **state) {
    (void)state;
    add_marshal("v", NULL, marshal_1, NULL, NULL);
    add_marshal("v", NULL, marshal_2, NULL, NULL);
    const dc_value arguments[] = {dc_bool(true), dc_double(2.5), dc_int8(3)};
    for (size_t count = 0; count <= 3; count++) {
        forget_seen();
        dc_result result;
        memset(&result, 0x5a, sizeof result);
        const dc_execute_options strict = {.flags = DC_EXECUTE_STRICT};
        assert_ok(dc_table_execute_with(table, "v", count > 0 ? arguments : NULL, count, &strict, &result));
        /* marshal_N sets int64 results: a variadic marshal chooses its type. */
        assert_int_equal(result.handled, 2);
        assert_int_equal(result.return_count, 2);
        assert_true(result.has_return_value);
        assert_int_equal(result.return_value.type, DC_TYPE_INT64);
        assert_int_equal(result.return_value.i64, 1001);
        assert_int_equal(seen_count, count);
        assert_ptr_equal(seen_arguments, count > 0 ? arguments : NULL);
        assert_int_equal(seen_result.type, DC_TYPE_VOID);
        assert_int_equal(seen_result.u64, 0);
    }
    assert_call_log(1, 2, 1, 2, 1, 2, 1, 2);
}

static void values_variadic_marshals_return_are_accumulated(void **state) {
    (void)state;
    add_marshal("v", NULL, returning_marshal, NULL, NULL);
    add_marshal("v", NULL, marshal_2, NULL, NULL);
    add_marshal("v", NULL, stop_marshal, NULL, NULL);
    add_marshal("v", NULL, marshal_4, NULL, NULL);
    dc_value results[4];
    dc_execute_options options = {.accumulator = DC_ACCUMULATE_ALL, .results = results, .results_capacity = 4};
    dc_result result;

    /* Nothing returned by the first: the rest still returns. */
    variadic_returns = dc_void();
    memset(&result, 0x5a, sizeof result);
    assert_ok(dc_table_execute_with(table, "v", NULL, 0, &options, &result));
    assert_int_equal(result.handled, 3);
    assert_true(result.stopped);
    assert_int_equal(result.return_count, 1);
    assert_int_equal(results[0].i64, 1002);

    /* An out-of-range type is nothing too. */
    variadic_returns.type = (dc_type)(DC_TYPE_COUNT + 3);
    assert_ok(dc_table_execute_with(table, "v", NULL, 0, &options, &result));
    assert_int_equal(result.return_count, 1);

    /* A value from the first, then the rest. */
    variadic_returns = dc_int32(-4);
    memset(&result, 0x5a, sizeof result);
    assert_ok(dc_table_execute_with(table, "v", NULL, 0, &options, &result));
    assert_int_equal(result.handled, 3);
    assert_true(result.stopped);
    assert_int_equal(result.return_count, 2);
    assert_int_equal(results[0].type, DC_TYPE_INT32);
    assert_int_equal(results[0].i32, -4);
    assert_int_equal(results[1].i64, 1002);
    assert_int_equal(result.return_value.i32, -4);

    /* Last. */
    options.accumulator = DC_ACCUMULATE_LAST;
    assert_ok(dc_table_execute_with(table, "v", NULL, 0, NULL, &result));
    assert_int_equal(result.return_value.i32, -4); /* first, the default */
    assert_ok(dc_table_execute_with(table, "v", NULL, 0, &options, &result));
    assert_int_equal(result.return_value.i64, 1002);

    /* True handled stops at the first true, without stopping the emission. */
    options.accumulator = DC_ACCUMULATE_TRUE_HANDLED;
    variadic_returns = dc_bool(true);
    memset(&result, 0x5a, sizeof result);
    assert_ok(dc_table_execute_with(table, "v", NULL, 0, &options, &result));
    assert_int_equal(result.handled, 1);
    assert_false(result.stopped);
    assert_int_equal(result.return_count, 1);
    assert_true(result.return_value.b);
    assert_call_log(90, 2, 60, 90, 2, 60, 90, 2, 60, 90, 2, 60, 90, 2, 60, 90);
}

/* ---- a remove on another thread waits for the running marshal --------------------------------------- */

static atomic_bool held_entered, held_release, remove_returned, held_outlived;
static void held_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)arguments, (void)count, (void)result;
    atomic_store(&held_entered, true);
    for (int i = 0; i < 5000 && !atomic_load(&held_release); i++) nanosleep(&(struct timespec){0, 1000000}, NULL);
    if (atomic_load(&remove_returned)) atomic_store(&held_outlived, true);
}

static void *release_held_later(void *unused) {
    (void)unused;
    nanosleep(&(struct timespec){0, 100000000}, NULL);
    atomic_store(&held_release, true);
    return NULL;
}

static dc_table *held_table;
static dc_result held_result;
static void *run_held_execute(void *unused) {
    (void)unused;
    int context = 0;
    assert_ok(dc__table_execute(held_table, "held", 0, NULL, 0, NULL, &context, &held_result));
    return NULL;
}

static void remove_on_another_thread_returns_after_the_running_marshal(void **state) {
    (void)state;
    held_table = table;
    int data = 0;
    const dc_handler_options owns = handler_options(DC__HANDLER_OWNS_TARGET, NULL);
    dc_handler_id id = add_marshal("held", "v", held_marshal, &data, &owns);
    atomic_store(&held_entered, false);
    atomic_store(&held_release, false);
    atomic_store(&remove_returned, false);
    atomic_store(&held_outlived, false);
    pthread_t executor;
    assert_int_equal(pthread_create(&executor, NULL, run_held_execute, NULL), 0);
    for (int i = 0; i < 5000 && !atomic_load(&held_entered); i++) nanosleep(&(struct timespec){0, 1000000}, NULL);
    assert_true(atomic_load(&held_entered));
    /* The marshal is released a little later by another thread: the remove
     * below must not return before it has returned. */
    pthread_t releaser;
    assert_int_equal(pthread_create(&releaser, NULL, release_held_later, NULL), 0);
    assert_ok(dc_table_remove(table, id));
    atomic_store(&remove_returned, true);
    assert_true(atomic_load(&held_release));
    assert_int_equal(releases, 1);
    assert_int_equal(pthread_join(executor, NULL), 0);
    assert_int_equal(pthread_join(releaser, NULL), 0);
    assert_false(atomic_load(&held_outlived));
    assert_int_equal(held_result.handled, 1);
    dc_result result = execute_ok("held", NULL, 0);
    assert_int_equal(result.handled, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        table_test(marshals_get_the_callers_arguments_with_their_parameter_count),
        table_test(many_marshals_run_in_order_by_id_and_key_with_and_without_a_result),
        table_test(context_is_the_callers_inside_and_gone_after),
        table_test(accumulators_collect_nothing_from_void_marshals),
        table_test(stop_from_a_marshal_counts_what_ran_before_it),
        table_test(once_marshal_runs_once_in_its_place),
        table_test(queued_marshal_is_posted_and_the_rest_runs),
        table_test(blocked_and_removed_marshals_are_passed_over_and_not_counted),
        table_test(marshal_removed_by_an_earlier_one_is_not_called_in_the_same_execute),
        table_test(plain_and_marshal_handlers_of_one_signature_run_in_order),
        table_test(destroy_from_a_marshal_waits_for_the_execute_to_end),
        table_test(nested_executes_of_a_marshal_stop_at_the_depth_limit_and_unwind),
        table_test(bad_executes_of_a_marshal_event_fail_as_before),
        table_test(variadic_marshals_get_every_argument_as_given),
        table_test(values_variadic_marshals_return_are_accumulated),
        table_test(remove_on_another_thread_returns_after_the_running_marshal),
    };
    return cmocka_run_group_tests_name("event table lean marshal execute", tests, NULL, NULL);
}
