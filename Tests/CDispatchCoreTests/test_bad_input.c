/*
 * test_bad_input.c — the bad-input matrix: every public function of
 * dispatch_core.h, given NULL handles, ids that were never issued or are gone,
 * out-of-range indices and enum values, malformed encodings, values of the wrong
 * type and the wrong number of arguments, answers with its documented status and
 * a message of its own, writes none of its outputs, calls no handler or
 * function, and leaves the table as it was: the same events, the same handlers
 * on each, each one still registered, unblocked and called as before.
 *
 * Functions that cannot fail answer NULL handles with their documented neutral
 * value ("", 0, false, -1, NULL), and destroy and release functions take NULL.
 */
#include "test_support.h"

#include <stdlib.h>
#include "dispatch_core_binding.h"

/* ---- what the functions under test may call ----------------------------------------- */

static int calls;
static int destroy_notifies;
static long retains, releases;

CALLEE static void counted(void) { calls++; }
CALLEE static void counted_flag(bool flag) {
    (void)flag;
    calls++;
}
CALLEE static int64_t counted_bound(void *target, int64_t number) {
    (void)target;
    calls++;
    return number;
}
/* Eight integer parameters: more than the stubs take, so libffi makes the call. */
CALLEE static int64_t counted_many(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f, int64_t g,
                                   int64_t h) {
    calls++;
    return a + b + c + d + e + f + g + h;
}
static void counted_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)arguments, (void)count, (void)result;
    calls++;
}
static void count_destroy(void *unused) {
    (void)unused;
    destroy_notifies++;
}
static void count_retain(void *object) {
    (void)object;
    retains++;
}
static void count_release(void *object) {
    (void)object;
    releases++;
}

/* Addresses no failing call may write to an output it was given. */
static int untouched_marker;
#define UNTOUCHED_SIGNATURE ((dc_signature *)(void *)&untouched_marker)
#define UNTOUCHED_INVOCATION ((dc_invocation *)(void *)&untouched_marker)
#define UNTOUCHED_TABLE ((dc_table *)(void *)&untouched_marker)
#define UNTOUCHED_QUEUE ((dc_queue *)(void *)&untouched_marker)
#define UNTOUCHED_NAME ((const char *)(void *)&untouched_marker)
enum { UNTOUCHED_COUNT = 777777, UNTOUCHED_ID = 424242 };

/* The status, and a non-empty message the call set itself (no needles). */
#define assert_refused(expression, expected)                                             \
    do {                                                                                 \
        const char *refused_primed = dc_test_prime_error_message();                      \
        dc_status refused_actual = (expression);                                         \
        dc_test_assert_failure(refused_primed, refused_actual, (expected),               \
                               (const char *const[]){NULL}, #expression, __FILE__,       \
                               __LINE__);                                                \
    } while (0)

static dc_signature *signature_of(const char *encoding) {
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create(encoding, &signature));
    return signature;
}

/* ---- a table with something to lose ------------------------------------------------ */

enum { EVENT_NAMES = 4, HANDLERS = 5 };
static const char *const event_names[EVENT_NAMES] = {"tap", "toggle", "compute", "many"};

typedef struct fixture {
    dc_table *table;
    dc_queue *queue;
    dc_signature *plain, *flag, *bound, *many;
    dc_handler_id ids[HANDLERS];
    dc_handler_id removed_id;
    dc_event_id tap_id;
    int target;
} fixture;

static fixture fx;

/* Everything a client can observe of the table without calling a handler. */
typedef struct table_view {
    size_t event_count;
    const char *names[EVENT_NAMES + 1];
    size_t handler_counts[EVENT_NAMES];
    bool registered[HANDLERS];
    dc_event_id tap_id;
    dc_event_id interned; /* the highest id with a name: events interned so far */
    const char *table_name;
} table_view;

static table_view view_of_table(void) {
    table_view view;
    memset(&view, 0, sizeof view);
    assert_ok(dc_table_events(fx.table, view.names, EVENT_NAMES + 1, &view.event_count));
    for (size_t e = 0; e < EVENT_NAMES; e++) assert_ok(dc_table_handler_count(fx.table, event_names[e], &view.handler_counts[e]));
    for (size_t h = 0; h < HANDLERS; h++) view.registered[h] = dc_table_contains(fx.table, fx.ids[h]);
    assert_ok(dc_table_intern(fx.table, "tap", &view.tap_id));
    const char *name;
    while (view.interned < 64 && dc_table_event_name(fx.table, view.interned + 1, &name) == DC_OK) view.interned++;
    view.table_name = dc_table_name(fx.table);
    return view;
}

static void assert_same_view(const table_view *before, const table_view *after, const char *what, const char *file,
                             int line) {
    bool same = before->event_count == after->event_count && before->tap_id == after->tap_id &&
                before->interned == after->interned && before->table_name == after->table_name;
    for (size_t e = 0; same && e < before->event_count && e <= EVENT_NAMES; e++)
        same = before->names[e] == after->names[e];
    for (size_t e = 0; same && e < EVENT_NAMES; e++) same = before->handler_counts[e] == after->handler_counts[e];
    for (size_t h = 0; same && h < HANDLERS; h++) same = before->registered[h] == after->registered[h];
    if (!same) {
        print_error("%s changed the table: %zu events with handlers before, %zu after; %u interned before, %u "
                    "after\n",
                    what, before->event_count, after->event_count, before->interned, after->interned);
        _fail(file, line);
    }
}

/* The status and its own message, no handler called, no destroy notify or
 * release run, and the table as it was. */
#define assert_refused_unchanged(expression, expected)                                   \
    do {                                                                                 \
        table_view unchanged_before = view_of_table();                                   \
        int unchanged_calls = calls, unchanged_notifies = destroy_notifies;              \
        long unchanged_releases = releases, unchanged_retains = retains;                 \
        assert_refused(expression, expected);                                            \
        assert_int_equal(calls, unchanged_calls);                                        \
        assert_int_equal(destroy_notifies, unchanged_notifies);                          \
        assert_int_equal(releases, unchanged_releases);                                  \
        assert_int_equal(retains, unchanged_retains);                                    \
        table_view unchanged_after = view_of_table();                                    \
        assert_same_view(&unchanged_before, &unchanged_after, #expression, __FILE__,     \
                         __LINE__);                                                      \
    } while (0)

/*
 * "tap": counted (v), then a marshal with an owned queue-less destroy notify;
 * "toggle": counted_flag (vB, strict); "compute": counted_bound bound to a
 * target (q^vq); "many": counted_many (eight int64, libffi). One more handler
 * was added to "tap" and removed, so its id is one that is gone.
 */
static int fixture_setup(void **state) {
    (void)state;
    memset(&fx, 0, sizeof fx);
    calls = destroy_notifies = 0;
    retains = releases = 0;
    const dc_object_callbacks callbacks = {count_retain, count_release};
    if (dc_table_create("bad input", &callbacks, &fx.table) != DC_OK) return -1;
    if (dc_queue_create(&fx.queue) != DC_OK) return -1;
    fx.plain = signature_of("v");
    fx.flag = signature_of("vB");
    fx.bound = signature_of("q^vq");
    fx.many = signature_of("qqqqqqqqq");
    const dc_handler_options notify = {0, NULL, count_destroy, NULL};
    const dc_handler_options strict = {DC_HANDLER_STRICT, NULL, count_destroy, NULL};
    assert_ok(dc_table_add(fx.table, "tap", fx.plain, DC_FUNCTION(counted), NULL, &notify, &fx.ids[0]));
    assert_ok(dc_table_add_marshal(fx.table, "tap", fx.plain, counted_marshal, &fx.target, &notify, &fx.ids[1]));
    assert_ok(dc_table_add(fx.table, "toggle", fx.flag, DC_FUNCTION(counted_flag), NULL, &strict, &fx.ids[2]));
    assert_ok(dc_table_add(fx.table, "compute", fx.bound, DC_FUNCTION(counted_bound), &fx.target, &notify,
                           &fx.ids[3]));
    assert_ok(dc_table_add(fx.table, "many", fx.many, DC_FUNCTION(counted_many), NULL, &notify, &fx.ids[4]));
    dc_handler_id gone = 0;
    assert_ok(dc_table_add(fx.table, "tap", fx.flag, DC_FUNCTION(counted_flag), NULL, NULL, &gone));
    assert_ok(dc_table_remove(fx.table, gone));
    fx.removed_id = gone;
    assert_ok(dc_table_intern(fx.table, "tap", &fx.tap_id));
    destroy_notifies = 0;
    return 0;
}

/* Before the table goes: every handler still runs as registered. */
static int fixture_teardown(void **state) {
    (void)state;
    if (fx.table != NULL) {
        calls = 0;
        dc_result result;
        assert_ok(dc_table_execute(fx.table, "tap", NULL, 0, &result));
        assert_int_equal(result.handled, 2);
        const dc_value flag = dc_bool(true);
        assert_ok(dc_table_execute(fx.table, "toggle", &flag, 1, &result));
        assert_int_equal(result.handled, 1);
        const dc_value number = dc_int64(5);
        assert_ok(dc_table_execute(fx.table, "compute", &number, 1, &result));
        assert_int_equal(result.handled, 1);
        assert_int_equal(result.return_value.i64, 5);
        const dc_value eight[8] = {dc_int64(1), dc_int64(2), dc_int64(3), dc_int64(4),
                                   dc_int64(5), dc_int64(6), dc_int64(7), dc_int64(8)};
        assert_ok(dc_table_execute(fx.table, "many", eight, 8, &result));
        assert_int_equal(result.return_value.i64, 36);
        assert_int_equal(calls, 5);
        dc_table_destroy(fx.table);
        assert_int_equal(destroy_notifies, HANDLERS);
    }
    dc_queue_destroy(fx.queue);
    dc_signature_release(fx.plain);
    dc_signature_release(fx.flag);
    dc_signature_release(fx.bound);
    dc_signature_release(fx.many);
    return 0;
}

#define fixture_test(test) cmocka_unit_test_setup_teardown(test, fixture_setup, fixture_teardown)

/* ---- statuses, types, values ----------------------------------------------------------- */

static void status_and_type_names_answer_values_out_of_range(void **state) {
    (void)state;
    const int out_of_range[] = {-1, DC_STATUS_COUNT, DC_STATUS_COUNT + 1, 1000};
    for (size_t i = 0; i < ARRAY_COUNT(out_of_range); i++) {
        assert_string_equal(dc_status_string((dc_status)out_of_range[i]), "unknown status");
        assert_string_equal(dc_status_name((dc_status)out_of_range[i]), "DC_UNKNOWN");
    }
    const int bad_types[] = {-1, DC_TYPE_COUNT, 99};
    for (size_t i = 0; i < ARRAY_COUNT(bad_types); i++) {
        assert_string_equal(dc_type_name((dc_type)bad_types[i]), "invalid");
        assert_int_equal(dc_type_encoding((dc_type)bad_types[i]), '\0');
    }
    assert_non_null(dc_last_error_message());
}

static void value_conversion_refuses_null_unknown_tags_and_misfits(void **state) {
    (void)state;
    const dc_value one = dc_int64(1);
    dc_value out = dc_int8(-5);
    assert_refused(dc_value_convert(NULL, DC_TYPE_INT64, &out), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_value_convert(&one, DC_TYPE_INT64, NULL), DC_ERR_NULL_ARGUMENT);
    dc_value unknown_tag = one;
    unknown_tag.type = (dc_type)DC_TYPE_COUNT;
    assert_refused(dc_value_convert(&unknown_tag, DC_TYPE_INT64, &out), DC_ERR_TYPE);
    assert_refused(dc_value_convert(&one, (dc_type)DC_TYPE_COUNT, &out), DC_ERR_INVALID_ARGUMENT);
    assert_refused(dc_value_convert(&one, (dc_type)-3, &out), DC_ERR_INVALID_ARGUMENT);

    /* Each pair: a value, and a type it does not fit. */
    static char text[] = "text";
    const struct {
        dc_value value;
        dc_type type;
    } misfits[] = {
        {dc_int64(-1), DC_TYPE_UINT64},   {dc_int64(256), DC_TYPE_UINT8},  {dc_uint64(UINT64_MAX), DC_TYPE_INT64},
        {dc_int32(1), DC_TYPE_BOOL},      {dc_bool(true), DC_TYPE_INT32},  {dc_double(0.1), DC_TYPE_FLOAT},
        {dc_int64(1), DC_TYPE_DOUBLE},    {dc_double(1.0), DC_TYPE_INT64}, {dc_pointer(text), DC_TYPE_OBJECT},
        {dc_string(text), DC_TYPE_OBJECT}, {dc_object(text), DC_TYPE_STRING}, {dc_int64(0), DC_TYPE_POINTER},
        {dc_int64(0), DC_TYPE_VOID},      {dc_void(), DC_TYPE_INT64},
    };
    for (size_t i = 0; i < ARRAY_COUNT(misfits); i++) {
        assert_refused(dc_value_convert(&misfits[i].value, misfits[i].type, &out), DC_ERR_TYPE);
        assert_value_equal(dc_int8(-5), out, "output of a refused conversion");
    }
}

/* ---- signatures ------------------------------------------------------------------------- */

static void signature_creation_refuses_null_malformed_and_oversized_input(void **state) {
    (void)state;
    dc_signature *signature = UNTOUCHED_SIGNATURE;
    assert_refused(dc_signature_create(NULL, &signature), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_signature_create("v", NULL), DC_ERR_NULL_ARGUMENT);

    char too_many[DC_MAX_PARAMETERS + 3];
    too_many[0] = 'v';
    memset(too_many + 1, 'i', DC_MAX_PARAMETERS + 1);
    too_many[DC_MAX_PARAMETERS + 2] = '\0';
    const char *const malformed[] = {
        "",        "x",        "v@x",      "vv",         "v^",         "^",          "v{S=ii", "v{S=}",
        "v[4i]",   "v{S}",     "v^{S=ii",  "v@\"Name",   "v^b",        "vr",         "\x01",    "v\xff",
        "v^(U=i",  "v^[2i",    "v^\"",     too_many,     "vq@ v",      "v;",         "-1v",    "v{S=[4]}",
    };
    for (size_t i = 0; i < ARRAY_COUNT(malformed); i++) {
        assert_refused(dc_signature_create(malformed[i], &signature), DC_ERR_BAD_SIGNATURE);
        assert_ptr_equal(signature, UNTOUCHED_SIGNATURE);
    }
    const char *const unsupported[] = {"(U=i)", "vb3", "v{S=(U=i)}", "v{S=[2b1]}", "v{S=i(U=D)}"};
    for (size_t i = 0; i < ARRAY_COUNT(unsupported); i++) {
        assert_refused(dc_signature_create(unsupported[i], &signature), DC_ERR_UNSUPPORTED);
        assert_ptr_equal(signature, UNTOUCHED_SIGNATURE);
    }

    const dc_type two[] = {DC_TYPE_INT64, DC_TYPE_DOUBLE};
    assert_refused(dc_signature_create_with_types(DC_TYPE_VOID, NULL, 2, &signature), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_signature_create_with_types(DC_TYPE_VOID, two, 2, NULL), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_signature_create_with_types((dc_type)DC_TYPE_COUNT, two, 2, &signature), DC_ERR_BAD_SIGNATURE);
    assert_refused(dc_signature_create_with_types((dc_type)-1, NULL, 0, &signature), DC_ERR_BAD_SIGNATURE);
    const dc_type with_void[] = {DC_TYPE_INT64, DC_TYPE_VOID};
    assert_refused(dc_signature_create_with_types(DC_TYPE_VOID, with_void, 2, &signature), DC_ERR_BAD_SIGNATURE);
    const dc_type with_unknown[] = {(dc_type)(DC_TYPE_COUNT + 5)};
    assert_refused(dc_signature_create_with_types(DC_TYPE_VOID, with_unknown, 1, &signature), DC_ERR_BAD_SIGNATURE);
    dc_type many[DC_MAX_PARAMETERS + 1];
    for (size_t i = 0; i < ARRAY_COUNT(many); i++) many[i] = DC_TYPE_INT8;
    assert_refused(dc_signature_create_with_types(DC_TYPE_VOID, many, ARRAY_COUNT(many), &signature),
                   DC_ERR_BAD_SIGNATURE);
    assert_ptr_equal(signature, UNTOUCHED_SIGNATURE);
}

static void signature_queries_answer_null_and_refuse_indices_out_of_range(void **state) {
    (void)state;
    assert_null(dc_signature_retain(NULL));
    dc_signature_release(NULL);
    assert_int_equal(dc_signature_return_type(NULL), DC_TYPE_VOID);
    assert_int_equal(dc_signature_parameter_count(NULL), 0);
    assert_string_equal(dc_signature_encoding(NULL), "");
    assert_int_equal(dc_signature_call_path(NULL), DC_CALL_PATH_FFI);

    dc_signature *signature = signature_of("q@qd");
    dc_type type = DC_TYPE_BOOL;
    assert_refused(dc_signature_parameter_type(NULL, 0, &type), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_signature_parameter_type(signature, 0, NULL), DC_ERR_NULL_ARGUMENT);
    const size_t out_of_range[] = {3, 4, DC_MAX_PARAMETERS, SIZE_MAX};
    for (size_t i = 0; i < ARRAY_COUNT(out_of_range); i++)
        assert_refused(dc_signature_parameter_type(signature, out_of_range[i], &type), DC_ERR_INDEX);
    assert_int_equal(type, DC_TYPE_BOOL);
    dc_signature *none = signature_of("v");
    assert_refused(dc_signature_parameter_type(none, 0, &type), DC_ERR_INDEX);
    dc_signature_release(none);
    dc_signature_release(signature);
}

/* ---- invocations and dc_call -------------------------------------------------------------- */

static void invocations_refuse_null_bad_indices_and_wrong_types_and_call_nothing(void **state) {
    (void)state;
    dc_signature *signature = signature_of("q^vq");
    dc_signature *many = signature_of("qqqqqqqqq");
    calls = 0;
    dc_invocation *invocation = UNTOUCHED_INVOCATION;
    assert_refused(dc_invocation_create(NULL, DC_FUNCTION(counted_bound), &invocation), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_invocation_create(signature, NULL, &invocation), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_invocation_create(signature, DC_FUNCTION(counted_bound), NULL), DC_ERR_NULL_ARGUMENT);
    assert_ptr_equal(invocation, UNTOUCHED_INVOCATION);
    dc_invocation_destroy(NULL);
    assert_null(dc_invocation_signature(NULL));
    assert_int_equal(dc_invocation_call_path(NULL), DC_CALL_PATH_FFI);

    assert_ok(dc_invocation_create(signature, DC_FUNCTION(counted_bound), &invocation));
    const dc_value seven = dc_int64(7);
    assert_ok(dc_invocation_set_argument(invocation, 1, &seven));
    dc_value out = dc_int8(-5);
    assert_refused(dc_invocation_set_argument(NULL, 0, &seven), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_invocation_set_argument(invocation, 0, NULL), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_invocation_set_argument(invocation, 2, &seven), DC_ERR_INDEX);
    assert_refused(dc_invocation_set_argument(invocation, SIZE_MAX, &seven), DC_ERR_INDEX);
    const dc_value wrong[] = {dc_double(7.0), dc_bool(true), dc_string(NULL), dc_uint64(UINT64_MAX), dc_void()};
    for (size_t i = 0; i < ARRAY_COUNT(wrong); i++)
        assert_refused(dc_invocation_set_argument(invocation, 1, &wrong[i]), DC_ERR_TYPE);
    assert_refused(dc_invocation_set_argument(invocation, 0, &seven), DC_ERR_TYPE);
    assert_ok(dc_invocation_get_argument(invocation, 1, &out));
    assert_value_equal(seven, out, "an argument after refused sets");
    out = dc_int8(-5);
    assert_refused(dc_invocation_get_argument(NULL, 0, &out), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_invocation_get_argument(invocation, 0, NULL), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_invocation_get_argument(invocation, 2, &out), DC_ERR_INDEX);
    assert_refused(dc_invocation_get_return_value(NULL, &out), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_invocation_get_return_value(invocation, NULL), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_invocation_get_return_value(invocation, &out), DC_ERR_NOT_INVOKED);
    assert_value_equal(dc_int8(-5), out, "output of refused gets");
    assert_refused(dc_invocation_set_call_path(NULL, DC_CALL_PATH_FFI), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_invocation_set_call_path(invocation, (dc_call_path)2), DC_ERR_INVALID_ARGUMENT);
    assert_refused(dc_invocation_set_call_path(invocation, (dc_call_path)-1), DC_ERR_INVALID_ARGUMENT);
    assert_refused(dc_invocation_invoke(NULL), DC_ERR_NULL_ARGUMENT);
    assert_int_equal(calls, 0);
    dc_invocation_destroy(invocation);

    /* The stub path for a signature only libffi calls. */
    assert_ok(dc_invocation_create(many, DC_FUNCTION(counted_many), &invocation));
    assert_refused(dc_invocation_set_call_path(invocation, DC_CALL_PATH_STUB), DC_ERR_UNSUPPORTED);
    assert_int_equal(dc_invocation_call_path(invocation), DC_CALL_PATH_FFI);
    dc_invocation_destroy(invocation);
    assert_int_equal(calls, 0);
    dc_signature_release(many);
    dc_signature_release(signature);
}

static void dc_call_refuses_null_wrong_arities_and_wrong_types_and_calls_nothing(void **state) {
    (void)state;
    dc_signature *signature = signature_of("q^vq");
    dc_signature *many = signature_of("qqqqqqqqq");
    const dc_value arguments[] = {dc_pointer(&untouched_marker), dc_int64(3), dc_int64(4)};
    dc_value result = dc_int8(-5);
    calls = 0;
    assert_refused(dc_call(NULL, DC_FUNCTION(counted_bound), arguments, 2, &result), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_call(signature, NULL, arguments, 2, &result), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_call(signature, DC_FUNCTION(counted_bound), NULL, 2, &result), DC_ERR_NULL_ARGUMENT);
    const size_t wrong_counts[] = {0, 1, 3};
    for (size_t i = 0; i < ARRAY_COUNT(wrong_counts); i++)
        assert_refused(dc_call(signature, DC_FUNCTION(counted_bound), arguments, wrong_counts[i], &result),
                       DC_ERR_ARITY);
    const dc_value wrong_first[] = {dc_int64(1), dc_int64(2)};
    assert_refused(dc_call(signature, DC_FUNCTION(counted_bound), wrong_first, 2, &result), DC_ERR_TYPE);
    const dc_value wrong_second[] = {dc_pointer(NULL), dc_double(2.0)};
    assert_refused(dc_call(signature, DC_FUNCTION(counted_bound), wrong_second, 2, &result), DC_ERR_TYPE);
    dc_value unknown_tag[] = {dc_pointer(NULL), dc_int64(2)};
    unknown_tag[1].type = (dc_type)(DC_TYPE_COUNT + 1);
    assert_refused(dc_call(signature, DC_FUNCTION(counted_bound), unknown_tag, 2, &result), DC_ERR_TYPE);
    /* The libffi path checks as the stub path does: the last argument is wrong. */
    dc_value eight[8];
    for (size_t i = 0; i < 8; i++) eight[i] = dc_int64((int64_t)i);
    eight[7] = dc_float(7.0f);
    assert_refused(dc_call(many, DC_FUNCTION(counted_many), eight, 8, &result), DC_ERR_TYPE);
    assert_refused(dc_call(many, DC_FUNCTION(counted_many), eight, 7, &result), DC_ERR_ARITY);
    assert_int_equal(calls, 0);
    assert_value_equal(dc_int8(-5), result, "return value of refused calls");
    dc_signature_release(many);
    dc_signature_release(signature);
}

/* ---- tables: creating, naming, interning --------------------------------------------------- */

static void table_creation_and_names_refuse_null(void **state) {
    (void)state;
    assert_refused(dc_table_create("t", NULL, NULL), DC_ERR_NULL_ARGUMENT);
    dc_table_destroy(NULL);
    assert_string_equal(dc_table_name(NULL), "");
    dc_event_id id = UNTOUCHED_ID;
    assert_refused(dc_table_intern(NULL, "tap", &id), DC_ERR_NULL_ARGUMENT);
    const char *name = UNTOUCHED_NAME;
    assert_refused(dc_table_event_name(NULL, 1, &name), DC_ERR_NULL_ARGUMENT);
    assert_int_equal(id, UNTOUCHED_ID);
    assert_ptr_equal(name, UNTOUCHED_NAME);
    assert_false(dc_table_contains(NULL, 1));
    size_t count = UNTOUCHED_COUNT;
    assert_refused(dc_table_handler_count(NULL, "tap", &count), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_table_handler_count_id(NULL, 1, &count), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_table_events(NULL, NULL, 0, &count), DC_ERR_NULL_ARGUMENT);
    assert_int_equal(count, UNTOUCHED_COUNT);
    assert_null(dc__table_execute_context(NULL));
    assert_refused(dc_table_stop_emission(NULL), DC_ERR_NULL_ARGUMENT);
}

static void interning_and_event_names_refuse_null_and_unknown_ids(void **state) {
    (void)state;
    dc_event_id id = UNTOUCHED_ID;
    assert_refused_unchanged(dc_table_intern(fx.table, NULL, &id), DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_intern(fx.table, "tap", NULL), DC_ERR_NULL_ARGUMENT);
    assert_int_equal(id, UNTOUCHED_ID);
    const char *name = UNTOUCHED_NAME;
    assert_refused_unchanged(dc_table_event_name(fx.table, fx.tap_id, NULL), DC_ERR_NULL_ARGUMENT);
    const dc_event_id never_issued[] = {0, 1000, UINT32_MAX};
    for (size_t i = 0; i < ARRAY_COUNT(never_issued); i++)
        assert_refused_unchanged(dc_table_event_name(fx.table, never_issued[i], &name), DC_ERR_NOT_FOUND);
    assert_ptr_equal(name, UNTOUCHED_NAME);
}

/* ---- tables: registering -------------------------------------------------------------------- */

static void registration_refuses_bad_input_and_leaves_the_table_unchanged(void **state) {
    (void)state;
    dc_handler_id id = UNTOUCHED_ID;
    const dc_handler_options notify = {0, NULL, count_destroy, NULL};
    const dc_handler_options unknown_flag = {1u << 20, NULL, count_destroy, NULL};
    const dc_handler_options owns = {DC__HANDLER_OWNS_TARGET, NULL, count_destroy, NULL};

    /* NULL table, event, signature, function. */
    assert_refused(dc_table_add(NULL, "tap", fx.plain, DC_FUNCTION(counted_flag), NULL, &notify, &id),
                   DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_add(fx.table, NULL, fx.plain, DC_FUNCTION(counted_flag), NULL, &notify, &id),
                             DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_add(fx.table, "new", NULL, DC_FUNCTION(counted_flag), NULL, &notify, &id),
                             DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_add(fx.table, "new", fx.plain, NULL, NULL, &notify, &id), DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_add_marshal(fx.table, "new", fx.plain, NULL, NULL, &notify, &id),
                             DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_add_marshal(fx.table, NULL, fx.plain, counted_marshal, NULL, &notify, &id),
                             DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_table_add_marshal(NULL, "tap", fx.plain, counted_marshal, NULL, &notify, &id),
                   DC_ERR_NULL_ARGUMENT);

    /* Flags no version defines, with and without an owned target. */
    assert_refused_unchanged(
        dc_table_add(fx.table, "new", fx.plain, DC_FUNCTION(counted_flag), NULL, &unknown_flag, &id),
        DC_ERR_INVALID_ARGUMENT);
    assert_refused_unchanged(
        dc_table_add_marshal(fx.table, "new", fx.plain, counted_marshal, &fx.target, &unknown_flag, &id),
        DC_ERR_INVALID_ARGUMENT);

    /* A bound target where parameter 0 is not pointer-like, or there is none;
     * an owned one is not released when the add is refused. (On events that
     * exist: see a_refused_add_interns_no_event.) */
    assert_refused_unchanged(
        dc_table_add(fx.table, "toggle", fx.flag, DC_FUNCTION(counted_flag), &fx.target, &owns, &id), DC_ERR_TYPE);
    assert_refused_unchanged(dc_table_add(fx.table, "tap", fx.plain, DC_FUNCTION(counted), &fx.target, &owns, &id),
                             DC_ERR_TYPE);
    assert_refused_unchanged(dc_table_add(fx.table, "tap", fx.many, DC_FUNCTION(counted_many), &fx.target, NULL, &id),
                             DC_ERR_TYPE);

    /* Event ids never issued. */
    const dc_event_id never_issued[] = {0, 1000, UINT32_MAX};
    for (size_t i = 0; i < ARRAY_COUNT(never_issued); i++) {
        assert_refused_unchanged(
            dc_table_add_id(fx.table, never_issued[i], fx.plain, DC_FUNCTION(counted_flag), NULL, &notify, &id),
            DC_ERR_NOT_FOUND);
        assert_refused_unchanged(
            dc_table_add_marshal_id(fx.table, never_issued[i], fx.plain, counted_marshal, NULL, &notify, &id),
            DC_ERR_NOT_FOUND);
    }
    assert_refused(dc_table_add_id(NULL, fx.tap_id, fx.plain, DC_FUNCTION(counted_flag), NULL, &notify, &id),
                   DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(
        dc_table_add_id(fx.table, fx.tap_id, NULL, DC_FUNCTION(counted_flag), NULL, &notify, &id),
        DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_add_marshal_id(fx.table, fx.tap_id, fx.plain, NULL, NULL, &notify, &id),
                             DC_ERR_NULL_ARGUMENT);
    assert_int_equal(id, UNTOUCHED_ID);
}

/*
 * An add refused with DC_ERR_TYPE must not leave its event interned: the header
 * promises the table unchanged on every error, so the core checks the target
 * before interning.
 */
static void a_refused_add_interns_no_event(void **state) {
    (void)state;
    dc_handler_id id = UNTOUCHED_ID;
    assert_refused_unchanged(
        dc_table_add(fx.table, "never before", fx.flag, DC_FUNCTION(counted_flag), &fx.target, NULL, &id),
        DC_ERR_TYPE);
    assert_refused_unchanged(
        dc_table_add(fx.table, "nor this", fx.plain, DC_FUNCTION(counted), &fx.target, NULL, &id), DC_ERR_TYPE);
}

/* ---- tables: removing and blocking ------------------------------------------------------------ */

/* Ids this table never issued or no longer holds: 0, the one removed, one of
 * another generation in a slot in use, slots never used, everything set. */
static void bad_handler_ids(dc_handler_id out[6]) {
    out[0] = 0;
    out[1] = fx.removed_id;
    out[2] = fx.ids[0] + (UINT64_C(1) << 32);
    out[3] = (UINT64_C(1) << 32) | 5000;
    out[4] = 999;
    out[5] = UINT64_MAX;
}

static void removal_and_blocking_refuse_bad_ids_and_leave_the_table_unchanged(void **state) {
    (void)state;
    dc_handler_id bad[6];
    bad_handler_ids(bad);
    for (size_t i = 0; i < ARRAY_COUNT(bad); i++) {
        assert_false(dc_table_contains(fx.table, bad[i]));
        assert_refused_unchanged(dc_table_remove(fx.table, bad[i]), DC_ERR_NOT_FOUND);
        assert_refused_unchanged(dc_table_block(fx.table, bad[i]), DC_ERR_NOT_FOUND);
        assert_refused_unchanged(dc_table_unblock(fx.table, bad[i]), DC_ERR_NOT_FOUND);
    }
    assert_refused(dc_table_remove(NULL, fx.ids[0]), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_table_block(NULL, fx.ids[0]), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_table_unblock(NULL, fx.ids[0]), DC_ERR_NULL_ARGUMENT);
    for (size_t h = 0; h < HANDLERS; h++)
        assert_refused_unchanged(dc_table_unblock(fx.table, fx.ids[h]), DC_ERR_STATE);

    size_t removed = UNTOUCHED_COUNT;
    assert_refused(dc_table_remove_target(NULL, &fx.target, &removed), DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_remove_target(fx.table, NULL, &removed), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_table_remove_event(NULL, "tap", &removed), DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_remove_event(fx.table, NULL, &removed), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_table_remove_event_id(NULL, fx.tap_id, &removed), DC_ERR_NULL_ARGUMENT);
    const dc_event_id never_issued[] = {0, 1000, UINT32_MAX};
    for (size_t i = 0; i < ARRAY_COUNT(never_issued); i++)
        assert_refused_unchanged(dc_table_remove_event_id(fx.table, never_issued[i], &removed), DC_ERR_NOT_FOUND);
    assert_refused(dc_table_remove_all(NULL, &removed), DC_ERR_NULL_ARGUMENT);
    assert_int_equal(removed, UNTOUCHED_COUNT);

    /* Not errors: an unknown name, and a target nothing is bound to, remove 0. */
    table_view before = view_of_table();
    assert_ok(dc_table_remove_event(fx.table, "no such event", &removed));
    assert_int_equal(removed, 0);
    assert_ok(dc_table_remove_target(fx.table, &removed, &removed));
    assert_int_equal(removed, 0);
    table_view after = view_of_table();
    assert_same_view(&before, &after, "removing what is not there", __FILE__, __LINE__);
    assert_int_equal(destroy_notifies, 0);
}

/* ---- tables: queries -------------------------------------------------------------------------- */

static void queries_refuse_null_outputs_and_unknown_ids(void **state) {
    (void)state;
    size_t count = UNTOUCHED_COUNT;
    assert_refused_unchanged(dc_table_handler_count(fx.table, NULL, &count), DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_handler_count(fx.table, "tap", NULL), DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_handler_count_id(fx.table, fx.tap_id, NULL), DC_ERR_NULL_ARGUMENT);
    const dc_event_id never_issued[] = {0, 1000, UINT32_MAX};
    for (size_t i = 0; i < ARRAY_COUNT(never_issued); i++)
        assert_refused_unchanged(dc_table_handler_count_id(fx.table, never_issued[i], &count), DC_ERR_NOT_FOUND);
    const char *names[2] = {UNTOUCHED_NAME, UNTOUCHED_NAME};
    assert_refused_unchanged(dc_table_events(fx.table, names, 2, NULL), DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_events(fx.table, NULL, 2, &count), DC_ERR_NULL_ARGUMENT);
    assert_int_equal(count, UNTOUCHED_COUNT);
    assert_ptr_equal(names[0], UNTOUCHED_NAME);

    /* Not errors: an unknown name has no handler; no room for names still counts. */
    assert_ok(dc_table_handler_count(fx.table, "no such event", &count));
    assert_int_equal(count, 0);
    assert_ok(dc_table_events(fx.table, NULL, 0, &count));
    assert_int_equal(count, EVENT_NAMES);
}

/* ---- tables: executing -------------------------------------------------------------------------- */

static void executes_refuse_null_and_unknown_ids_before_any_handler_runs(void **state) {
    (void)state;
    dc_result result;
    memset(&result, 0x5a, sizeof result);
    const dc_result untouched = result;
    const dc_value flag = dc_bool(true);
    assert_refused(dc_table_execute(NULL, "tap", NULL, 0, &result), DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_execute(fx.table, NULL, NULL, 0, &result), DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_execute(fx.table, "toggle", NULL, 1, &result), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_table_execute_id(NULL, fx.tap_id, NULL, 0, &result), DC_ERR_NULL_ARGUMENT);
    assert_refused_unchanged(dc_table_execute_id(fx.table, fx.tap_id, NULL, 3, &result), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_table_execute_with(NULL, "tap", NULL, 0, NULL, &result), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_table_execute_id_with(NULL, fx.tap_id, &flag, 1, NULL, &result), DC_ERR_NULL_ARGUMENT);
    const dc_event_id never_issued[] = {0, 1000, UINT32_MAX};
    for (size_t i = 0; i < ARRAY_COUNT(never_issued); i++) {
        assert_refused_unchanged(dc_table_execute_id(fx.table, never_issued[i], NULL, 0, &result), DC_ERR_NOT_FOUND);
        assert_refused_unchanged(dc_table_execute_id_with(fx.table, never_issued[i], NULL, 0, NULL, &result),
                                 DC_ERR_NOT_FOUND);
    }
    assert_memory_equal(&result, &untouched, sizeof result);
}

static void executes_refuse_wrong_types_and_arities_before_any_handler_runs(void **state) {
    (void)state;
    dc_result result;
    memset(&result, 0x5a, sizeof result);
    const dc_result untouched = result;

    /* "toggle" takes one bool, strictly. */
    const dc_value wrong_types[] = {dc_int32(1), dc_double(1.0), dc_object(NULL), dc_string(NULL), dc_void()};
    for (size_t i = 0; i < ARRAY_COUNT(wrong_types); i++)
        assert_refused_unchanged(dc_table_execute(fx.table, "toggle", &wrong_types[i], 1, &result), DC_ERR_TYPE);
    const dc_value two_flags[] = {dc_bool(true), dc_bool(false)};
    assert_refused_unchanged(dc_table_execute(fx.table, "toggle", two_flags, 2, &result), DC_ERR_ARITY);
    assert_refused_unchanged(dc_table_execute(fx.table, "toggle", NULL, 0, &result), DC_ERR_ARITY);

    /* "compute" (bound target, then int64), "many" (eight int64 through libffi). */
    const dc_value out_of_range = dc_uint64(UINT64_MAX);
    assert_refused_unchanged(dc_table_execute(fx.table, "compute", &out_of_range, 1, &result), DC_ERR_TYPE);
    dc_value unknown_tag = dc_int64(1);
    unknown_tag.type = (dc_type)(DC_TYPE_COUNT + 3);
    assert_refused_unchanged(dc_table_execute(fx.table, "compute", &unknown_tag, 1, &result), DC_ERR_TYPE);
    dc_value eight[8];
    for (size_t i = 0; i < 8; i++) eight[i] = dc_int64((int64_t)i);
    eight[6] = dc_bool(false);
    assert_refused_unchanged(dc_table_execute(fx.table, "many", eight, 8, &result), DC_ERR_TYPE);

    /* Strict executes: every handler must take exactly what is given. */
    const dc_execute_options strict = {DC_ACCUMULATE_FIRST, DC_EXECUTE_STRICT, NULL, 0, NULL, 0};
    assert_refused_unchanged(dc_table_execute_with(fx.table, "tap", &out_of_range, 1, &strict, &result),
                             DC_ERR_ARITY);
    assert_refused_unchanged(dc_table_execute_with(fx.table, "many", eight, 7, &strict, &result), DC_ERR_ARITY);
    assert_refused_unchanged(dc_table_execute_id_with(fx.table, fx.tap_id, eight, 2, &strict, &result),
                             DC_ERR_ARITY);
    assert_memory_equal(&result, &untouched, sizeof result);
}

static void executes_refuse_bad_options_before_any_handler_runs(void **state) {
    (void)state;
    dc_result result;
    memset(&result, 0x5a, sizeof result);
    const dc_result untouched = result;
    dc_value results[2];
    const dc_execute_options bad_options[] = {
        {(dc_accumulator)4, 0, NULL, 0, NULL, 0},
        {(dc_accumulator)-1, 0, NULL, 0, NULL, 0},
        {DC_ACCUMULATE_FIRST, 1u << 9, NULL, 0, NULL, 0},
        {DC_ACCUMULATE_LAST, DC_EXECUTE_STRICT | (1u << 31), results, 2, NULL, 0},
        {DC_ACCUMULATE_ALL, 0, NULL, 2, NULL, 0},
        {DC_ACCUMULATE_FIRST, 0, NULL, 0, NULL, 16}, /* return storage NULL with a size */
    };
    for (size_t i = 0; i < ARRAY_COUNT(bad_options); i++) {
        assert_refused_unchanged(dc_table_execute_with(fx.table, "tap", NULL, 0, &bad_options[i], &result),
                                 DC_ERR_INVALID_ARGUMENT);
        assert_refused_unchanged(dc_table_execute_id_with(fx.table, fx.tap_id, NULL, 0, &bad_options[i], &result),
                                 DC_ERR_INVALID_ARGUMENT);
    }
    /* An event with no handler to run when one is required: unknown, or all blocked. */
    const dc_execute_options required = {DC_ACCUMULATE_FIRST, DC_EXECUTE_REQUIRE_HANDLER, NULL, 0, NULL, 0};
    assert_refused_unchanged(dc_table_execute_with(fx.table, "no such event", NULL, 0, &required, &result),
                             DC_ERR_NO_HANDLER);
    assert_ok(dc_table_block(fx.table, fx.ids[2]));
    const dc_value flag = dc_bool(true);
    assert_refused(dc_table_execute_with(fx.table, "toggle", &flag, 1, &required, &result), DC_ERR_NO_HANDLER);
    assert_ok(dc_table_unblock(fx.table, fx.ids[2]));
    assert_int_equal(calls, 0);
    assert_memory_equal(&result, &untouched, sizeof result);
}

static void emission_control_outside_an_execute_is_refused(void **state) {
    (void)state;
    assert_refused_unchanged(dc_table_stop_emission(fx.table), DC_ERR_STATE);
    assert_null(dc__table_execute_context(fx.table));
}

/* ---- queues ---------------------------------------------------------------------------------- */

static void queues_refuse_null_handles(void **state) {
    (void)state;
    assert_refused(dc_queue_create(NULL), DC_ERR_NULL_ARGUMENT);
    dc_queue_destroy(NULL);
    assert_refused(dc_queue_bind_to_current_thread(NULL), DC_ERR_NULL_ARGUMENT);
    assert_false(dc_queue_is_owner(NULL));
    assert_int_equal(dc_queue_fd(NULL), -1);
    assert_int_equal(dc_queue_pending(NULL), 0);
    size_t delivered = UNTOUCHED_COUNT;
    assert_refused(dc_queue_drain(NULL, &delivered), DC_ERR_NULL_ARGUMENT);
    assert_refused(dc_queue_drain(NULL, NULL), DC_ERR_NULL_ARGUMENT);
    assert_int_equal(delivered, UNTOUCHED_COUNT);
}

static void a_queue_handler_refused_with_bad_input_holds_no_queue(void **state) {
    (void)state;
    dc_handler_id id = UNTOUCHED_ID;
    const dc_handler_options queued_bad = {1u << 12, fx.queue, count_destroy, NULL};
    assert_refused_unchanged(
        dc_table_add(fx.table, "new", fx.plain, DC_FUNCTION(counted_flag), NULL, &queued_bad, &id),
        DC_ERR_INVALID_ARGUMENT);
    const dc_handler_options queued = {0, fx.queue, count_destroy, NULL};
    assert_refused_unchanged(dc_table_add(fx.table, "tap", fx.flag, DC_FUNCTION(counted_flag), &fx.target, &queued,
                                          &id),
                             DC_ERR_TYPE);
    assert_int_equal(id, UNTOUCHED_ID);
    /* Nothing holds the queue now: destroying it here frees it (valgrind and
     * ASan see a reference a refused add kept as a leak). */
    assert_int_equal(dc_queue_pending(fx.queue), 0);
    size_t delivered = UNTOUCHED_COUNT;
    assert_ok(dc_queue_drain(fx.queue, &delivered));
    assert_int_equal(delivered, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_and_type_names_answer_values_out_of_range),
        cmocka_unit_test(value_conversion_refuses_null_unknown_tags_and_misfits),
        cmocka_unit_test(signature_creation_refuses_null_malformed_and_oversized_input),
        cmocka_unit_test(signature_queries_answer_null_and_refuse_indices_out_of_range),
        cmocka_unit_test(invocations_refuse_null_bad_indices_and_wrong_types_and_call_nothing),
        cmocka_unit_test(dc_call_refuses_null_wrong_arities_and_wrong_types_and_calls_nothing),
        cmocka_unit_test(table_creation_and_names_refuse_null),
        fixture_test(interning_and_event_names_refuse_null_and_unknown_ids),
        fixture_test(registration_refuses_bad_input_and_leaves_the_table_unchanged),
        fixture_test(a_refused_add_interns_no_event),
        fixture_test(removal_and_blocking_refuse_bad_ids_and_leave_the_table_unchanged),
        fixture_test(queries_refuse_null_outputs_and_unknown_ids),
        fixture_test(executes_refuse_null_and_unknown_ids_before_any_handler_runs),
        fixture_test(executes_refuse_wrong_types_and_arities_before_any_handler_runs),
        fixture_test(executes_refuse_bad_options_before_any_handler_runs),
        fixture_test(emission_control_outside_an_execute_is_refused),
        cmocka_unit_test(queues_refuse_null_handles),
        fixture_test(a_queue_handler_refused_with_bad_input_holds_no_queue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
