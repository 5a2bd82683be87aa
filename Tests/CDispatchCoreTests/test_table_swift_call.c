/*
 * test_table_swift_call.c — DC__HANDLER_SWIFT_CALL marshals: functions of
 * Swift's calling convention, called with their context in the Swift context
 * register, as the Swift layer registers its closures. Here they are C
 * functions clang compiles with that convention.
 *
 * A library built by a compiler without the convention refuses them with
 * DC_ERR_UNSUPPORTED: then the tests that call them check that refusal and
 * skip the rest. The refusals of misuse hold everywhere.
 */
#include "table_support.h"

#include <string.h>
#include "dispatch_core_binding.h"

#if defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__))
#define TEST_SWIFT_CALLS 1
#define SWIFT_CALL __attribute__((swiftcall))
#define SWIFT_CONTEXT __attribute__((swift_context))
#else
#define TEST_SWIFT_CALLS 0
#endif

static const dc_handler_options swift_call = {DC__HANDLER_SWIFT_CALL, NULL, NULL, NULL};

/* Whether the table has interned any event: a refused add interns none. */
static bool any_event_interned(void) {
    const char *name = NULL;
    return dc_table_event_name(table, 1, &name) == DC_OK;
}

static void swift_call_misuse_is_refused_and_the_table_unchanged(void **state) {
    (void)state;
    int context = 0;
    dc_handler_id id = 77;
    /* A plain function cannot be one. */
    assert_failure(dc_table_add(table, "plain", sig("v"), DC_FUNCTION(record_1), NULL, &swift_call, &id),
                   DC_ERR_INVALID_ARGUMENT, "DC__HANDLER_SWIFT_CALL", "marshal");
    /* It needs a signature: it is never variadic. */
    assert_failure(dc_table_add_marshal(table, "variadic", NULL, (dc_marshal)(void *)record_1, &context, &swift_call, &id),
                   DC_ERR_INVALID_ARGUMENT, "DC__HANDLER_SWIFT_CALL", "signature");
    /* It returns nothing. */
    assert_failure(dc_table_add_marshal(table, "returns", sig("qq"), (dc_marshal)(void *)record_1, &context, &swift_call, &id),
                   DC_ERR_INVALID_ARGUMENT, "void", "int64", "qq");
    assert_int_equal(id, 77);
    assert_false(any_event_interned());
    assert_int_equal(retains + releases, 0);
}

#if TEST_SWIFT_CALLS

/* What the Swift-convention handlers saw. */
static struct {
    int calls;
    void *context;
    int64_t integer;
    double real;
} seen;

SWIFT_CALL static void count_call(void *context SWIFT_CONTEXT) {
    seen.calls++;
    seen.context = context;
    log_call(*(const int *)context);
}

SWIFT_CALL static void read_arguments(const dc_value *arguments, void *context SWIFT_CONTEXT) {
    seen.calls++;
    seen.context = context;
    assert_int_equal(arguments[0].type, DC_TYPE_INT64);
    assert_int_equal(arguments[1].type, DC_TYPE_DOUBLE);
    seen.integer = arguments[0].i64;
    seen.real = arguments[1].d;
    log_call(*(const int *)context);
}

/* A C marshal that logs the int its data points to. */
static void log_data(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)arguments, (void)count, (void)result;
    log_call(*(const int *)data);
}

SWIFT_CALL static void stop_here(void *context SWIFT_CONTEXT) {
    log_call(*(const int *)context);
    assert_ok(dc_table_stop_emission(table));
}

/* Registers `function` with the flag and `flags`; true when the library
 * calls Swift's convention. Otherwise checks the refusal, which changed
 * nothing, and the test is skipped. */
static bool add_swift(const char *event, const char *encoding, void *function, void *context, uint32_t flags,
                      dc_handler_id *id) {
    const dc_handler_options options = {DC__HANDLER_SWIFT_CALL | flags, NULL, NULL, NULL};
    const char *primed = dc_test_prime_error_message();
    dc_status status = dc_table_add_marshal(table, event, sig(encoding), (dc_marshal)function, context, &options, id);
    if (status == DC_OK) return true;
    dc_test_assert_failure(primed, status, DC_ERR_UNSUPPORTED, (const char *const[]){"clang", NULL},
                           "dc_table_add_marshal", __FILE__, __LINE__);
    assert_false(any_event_interned());
    return false;
}

#define ADD_SWIFT_OR_SKIP(event, encoding, function, context, flags, id)                          \
    do {                                                                                          \
        if (!add_swift(event, encoding, (void *)(function), context, flags, id)) {                \
            skip();                                                                               \
            return;                                                                               \
        }                                                                                         \
    } while (0)

static void swift_call_without_parameters_gets_its_context(void **state) {
    (void)state;
    memset(&seen, 0, sizeof seen);
    int tag = 5;
    dc_handler_id id = 0;
    ADD_SWIFT_OR_SKIP("tap", "v", count_call, &tag, 0, &id);
    assert_true(id != 0);
    dc_event_id event = 0;
    assert_ok(dc_table_intern(table, "tap", &event));
    /* The lean execute, the brief one, and the general one (an option). */
    dc_result result;
    assert_ok(dc_table_execute_id(table, event, NULL, 0, &result));
    assert_int_equal(result.handled, 1);
    dc__brief_result brief = dc__table_execute_brief(table, NULL, event, NULL, 0, NULL, NULL);
    assert_int_equal(brief.status, DC_OK);
    assert_int_equal(brief.handled, 1);
    const dc_execute_options last = {.accumulator = DC_ACCUMULATE_LAST};
    assert_ok(dc_table_execute_with(table, "tap", NULL, 0, &last, &result));
    assert_int_equal(result.handled, 1);
    assert_false(result.has_return_value);
    assert_int_equal(seen.calls, 3);
    assert_ptr_equal(seen.context, &tag);
    assert_call_log(5, 5, 5);
}

static void swift_call_with_parameters_reads_them_as_its_types(void **state) {
    (void)state;
    memset(&seen, 0, sizeof seen);
    int tag = 8;
    ADD_SWIFT_OR_SKIP("move", "vqd", read_arguments, &tag, 0, NULL);
    /* Exactly its types: the lean execute passes them as they are. */
    dc_value exact[] = {dc_int64(-4), dc_double(2.5)};
    assert_int_equal(execute_ok("move", exact, 2).handled, 1);
    assert_int_equal(seen.integer, -4);
    assert_true(seen.real == 2.5);
    /* Other types that fit: converted first, by the general execute. */
    dc_value converted[] = {dc_int32(9), dc_float(0.5f)};
    assert_int_equal(execute_ok("move", converted, 2).handled, 1);
    assert_int_equal(seen.integer, 9);
    assert_true(seen.real == 0.5);
    /* Missing ones arrive as zero. */
    assert_int_equal(execute_ok("move", exact, 1).handled, 1);
    assert_int_equal(seen.integer, -4);
    assert_true(seen.real == 0.0);
    assert_int_equal(seen.calls, 3);
    assert_ptr_equal(seen.context, &tag);
    /* One that does not fit runs nothing. */
    dc_value text = dc_string("four");
    assert_failure(dc_table_execute(table, "move", &text, 1, NULL), DC_ERR_TYPE, "move");
    assert_int_equal(seen.calls, 3);
}

static void swift_calls_run_in_order_among_other_handlers(void **state) {
    (void)state;
    int one = 1, two = 2, four = 4;
    ADD_SWIFT_OR_SKIP("mixed", "v", count_call, &one, 0, NULL);
    add_recorder("mixed", record_3);
    ADD_SWIFT_OR_SKIP("mixed", "v", count_call, &two, 0, NULL);
    /* A Swift call and a C marshal of one signature are different shapes. */
    assert_ok(dc_table_add_marshal(table, "mixed", sig("v"), log_data, &four, NULL, NULL));
    assert_int_equal(execute_ok("mixed", NULL, 0).handled, 4);
    assert_call_log(1, 3, 2, 4);
}

static void swift_call_runs_once_on_a_queue_and_stops_an_emission(void **state) {
    (void)state;
    int once = 6, queued = 7, stopper = 9, after = 10;
    ADD_SWIFT_OR_SKIP("once", "v", count_call, &once, DC_HANDLER_ONCE, NULL);
    assert_int_equal(execute_ok("once", NULL, 0).handled, 1);
    assert_int_equal(execute_ok("once", NULL, 0).handled, 0);
    assert_call_log(6);

    reset_call_log();
    dc_queue *queue = queue_owned_elsewhere();
    const dc_handler_options on_queue = {DC__HANDLER_SWIFT_CALL, queue, NULL, NULL};
    assert_ok(dc_table_add_marshal(table, "later", sig("v"), (dc_marshal)(void *)count_call, &queued, &on_queue,
                                   NULL));
    assert_int_equal(execute_ok("later", NULL, 0).queued, 1);
    assert_nothing_called();
    size_t delivered = 0;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 1);
    assert_call_log(7);
    dc_queue_destroy(queue);

    reset_call_log();
    ADD_SWIFT_OR_SKIP("stop", "v", stop_here, &stopper, 0, NULL);
    ADD_SWIFT_OR_SKIP("stop", "v", count_call, &after, 0, NULL);
    dc_result result = execute_ok("stop", NULL, 0);
    assert_true(result.stopped);
    assert_int_equal(result.handled, 1);
    assert_call_log(9);
}

static void owned_context_is_released_once_when_the_handler_goes(void **state) {
    (void)state;
    int tag = 1;
    dc_handler_id id = 0;
    ADD_SWIFT_OR_SKIP("owned", "v", count_call, &tag, DC__HANDLER_OWNS_TARGET | DC__HANDLER_ALLOW_DUPLICATE, &id);
    dc_handler_id second = 0;
    ADD_SWIFT_OR_SKIP("owned", "v", count_call, &tag, DC__HANDLER_OWNS_TARGET | DC__HANDLER_ALLOW_DUPLICATE, &second);
    assert_true(second != id);
    assert_int_equal(execute_ok("owned", NULL, 0).handled, 2);
    assert_ok(dc_table_remove(table, id));
    assert_int_equal(releases, 1);
    assert_int_equal(execute_ok("owned", NULL, 0).handled, 1);
    assert_ok(dc_table_remove(table, second));
    assert_int_equal(releases, 2);
    assert_int_equal(retains, 0);
}

#endif

int main(void) {
    const struct CMUnitTest tests[] = {
        table_test(swift_call_misuse_is_refused_and_the_table_unchanged),
#if TEST_SWIFT_CALLS
        table_test(swift_call_without_parameters_gets_its_context),
        table_test(swift_call_with_parameters_reads_them_as_its_types),
        table_test(swift_calls_run_in_order_among_other_handlers),
        table_test(swift_call_runs_once_on_a_queue_and_stops_an_emission),
        table_test(owned_context_is_released_once_when_the_handler_goes),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
