/*
 * test_many_parameters.c — the 127 parameters C guarantees a function may
 * take (C11 5.2.4.1), through every way a call is made: dc_call, an
 * invocation, a closure (arguments read, result set, the call re-sent),
 * table handlers (a C function and a marshal, with arguments converted and
 * as they are), a table closure and a queued delivery. The callee weighs its
 * arguments, of four types in turn, so that any one misplaced shows.
 */
#include "test_support.h"

#include <pthread.h>

enum { MANY = 127 };
_Static_assert(MANY <= DC_MAX_PARAMETERS, "C's 127 parameters fit a signature");

/* Parameter i's type, in turn: int64_t, double, int32_t, float. */
static const char many_codes[4] = {'q', 'd', 'i', 'f'};

/* Argument i's value, exactly representable in its parameter's type and in
 * every weighted sum below. */
static double raw_argument(size_t i) {
    switch (i % 4) {
    case 0: return (double)(i * 1000 + 1);
    case 1: return (double)i + 0.5;
    case 2: return -(double)i;
    default: return (double)i * 0.25;
    }
}

static dc_value argument_value(size_t i) {
    switch (i % 4) {
    case 0: return dc_int64((int64_t)(i * 1000 + 1));
    case 1: return dc_double((double)i + 0.5);
    case 2: return dc_int32(-(int32_t)i);
    default: return dc_float((float)i * 0.25f);
    }
}

/* The same argument as a value of another type that converts to the
 * parameter's: what makes an execute convert each one. */
static dc_value converting_argument_value(size_t i) {
    switch (i % 4) {
    case 0: return dc_int32((int32_t)(i * 1000 + 1));
    case 2: return dc_int64(-(int64_t)i);
    case 3: return dc_double((double)i * 0.25);
    default: return argument_value(i);
    }
}

static double number_of(dc_value value) {
    switch (value.type) {
    case DC_TYPE_INT64: return (double)value.i64;
    case DC_TYPE_INT32: return (double)value.i32;
    case DC_TYPE_FLOAT: return (double)value.f;
    case DC_TYPE_DOUBLE: return value.d;
    default: fail_msg("unexpected %s argument", dc_type_name(value.type)); return 0;
    }
}

/* What the callee returns: sum of (i + 1) * argument i, exact in a double. */
static double expected_weight(void) {
    double sum = 0;
    for (size_t i = 0; i < MANY; i++) sum += (double)(i + 1) * raw_argument(i);
    return sum;
}

CALLEE static double weigh_127(int64_t a0, double a1, int32_t a2, float a3, int64_t a4, double a5, int32_t a6,
                               float a7, int64_t a8, double a9, int32_t a10, float a11, int64_t a12,
                               double a13, int32_t a14, float a15, int64_t a16, double a17, int32_t a18,
                               float a19, int64_t a20, double a21, int32_t a22, float a23, int64_t a24,
                               double a25, int32_t a26, float a27, int64_t a28, double a29, int32_t a30,
                               float a31, int64_t a32, double a33, int32_t a34, float a35, int64_t a36,
                               double a37, int32_t a38, float a39, int64_t a40, double a41, int32_t a42,
                               float a43, int64_t a44, double a45, int32_t a46, float a47, int64_t a48,
                               double a49, int32_t a50, float a51, int64_t a52, double a53, int32_t a54,
                               float a55, int64_t a56, double a57, int32_t a58, float a59, int64_t a60,
                               double a61, int32_t a62, float a63, int64_t a64, double a65, int32_t a66,
                               float a67, int64_t a68, double a69, int32_t a70, float a71, int64_t a72,
                               double a73, int32_t a74, float a75, int64_t a76, double a77, int32_t a78,
                               float a79, int64_t a80, double a81, int32_t a82, float a83, int64_t a84,
                               double a85, int32_t a86, float a87, int64_t a88, double a89, int32_t a90,
                               float a91, int64_t a92, double a93, int32_t a94, float a95, int64_t a96,
                               double a97, int32_t a98, float a99, int64_t a100, double a101, int32_t a102,
                               float a103, int64_t a104, double a105, int32_t a106, float a107, int64_t a108,
                               double a109, int32_t a110, float a111, int64_t a112, double a113, int32_t a114,
                               float a115, int64_t a116, double a117, int32_t a118, float a119, int64_t a120,
                               double a121, int32_t a122, float a123, int64_t a124, double a125, int32_t a126) {
    return 1 * (double)a0 + 2 * (double)a1 + 3 * (double)a2 + 4 * (double)a3 + 5 * (double)a4 +
           6 * (double)a5 + 7 * (double)a6 + 8 * (double)a7 + 9 * (double)a8 + 10 * (double)a9 +
           11 * (double)a10 + 12 * (double)a11 + 13 * (double)a12 + 14 * (double)a13 + 15 * (double)a14 +
           16 * (double)a15 + 17 * (double)a16 + 18 * (double)a17 + 19 * (double)a18 + 20 * (double)a19 +
           21 * (double)a20 + 22 * (double)a21 + 23 * (double)a22 + 24 * (double)a23 + 25 * (double)a24 +
           26 * (double)a25 + 27 * (double)a26 + 28 * (double)a27 + 29 * (double)a28 + 30 * (double)a29 +
           31 * (double)a30 + 32 * (double)a31 + 33 * (double)a32 + 34 * (double)a33 + 35 * (double)a34 +
           36 * (double)a35 + 37 * (double)a36 + 38 * (double)a37 + 39 * (double)a38 + 40 * (double)a39 +
           41 * (double)a40 + 42 * (double)a41 + 43 * (double)a42 + 44 * (double)a43 + 45 * (double)a44 +
           46 * (double)a45 + 47 * (double)a46 + 48 * (double)a47 + 49 * (double)a48 + 50 * (double)a49 +
           51 * (double)a50 + 52 * (double)a51 + 53 * (double)a52 + 54 * (double)a53 + 55 * (double)a54 +
           56 * (double)a55 + 57 * (double)a56 + 58 * (double)a57 + 59 * (double)a58 + 60 * (double)a59 +
           61 * (double)a60 + 62 * (double)a61 + 63 * (double)a62 + 64 * (double)a63 + 65 * (double)a64 +
           66 * (double)a65 + 67 * (double)a66 + 68 * (double)a67 + 69 * (double)a68 + 70 * (double)a69 +
           71 * (double)a70 + 72 * (double)a71 + 73 * (double)a72 + 74 * (double)a73 + 75 * (double)a74 +
           76 * (double)a75 + 77 * (double)a76 + 78 * (double)a77 + 79 * (double)a78 + 80 * (double)a79 +
           81 * (double)a80 + 82 * (double)a81 + 83 * (double)a82 + 84 * (double)a83 + 85 * (double)a84 +
           86 * (double)a85 + 87 * (double)a86 + 88 * (double)a87 + 89 * (double)a88 + 90 * (double)a89 +
           91 * (double)a90 + 92 * (double)a91 + 93 * (double)a92 + 94 * (double)a93 + 95 * (double)a94 +
           96 * (double)a95 + 97 * (double)a96 + 98 * (double)a97 + 99 * (double)a98 + 100 * (double)a99 +
           101 * (double)a100 + 102 * (double)a101 + 103 * (double)a102 + 104 * (double)a103 +
           105 * (double)a104 + 106 * (double)a105 + 107 * (double)a106 + 108 * (double)a107 +
           109 * (double)a108 + 110 * (double)a109 + 111 * (double)a110 + 112 * (double)a111 +
           113 * (double)a112 + 114 * (double)a113 + 115 * (double)a114 + 116 * (double)a115 +
           117 * (double)a116 + 118 * (double)a117 + 119 * (double)a118 + 120 * (double)a119 +
           121 * (double)a120 + 122 * (double)a121 + 123 * (double)a122 + 124 * (double)a123 +
           125 * (double)a124 + 126 * (double)a125 + 127 * (double)a126;
}

typedef double (*weigh_127_function)(int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t, float,
                                     int64_t, double, int32_t, float, int64_t, double, int32_t);

#define WEIGH_127_ARGUMENTS(ARG) ARG(0), ARG(1), ARG(2), ARG(3), ARG(4), ARG(5), ARG(6), ARG(7), ARG(8), \
    ARG(9), ARG(10), ARG(11), ARG(12), ARG(13), ARG(14), ARG(15), ARG(16), ARG(17), ARG(18), ARG(19), ARG(20), \
    ARG(21), ARG(22), ARG(23), ARG(24), ARG(25), ARG(26), ARG(27), ARG(28), ARG(29), ARG(30), ARG(31), \
    ARG(32), ARG(33), ARG(34), ARG(35), ARG(36), ARG(37), ARG(38), ARG(39), ARG(40), ARG(41), ARG(42), \
    ARG(43), ARG(44), ARG(45), ARG(46), ARG(47), ARG(48), ARG(49), ARG(50), ARG(51), ARG(52), ARG(53), \
    ARG(54), ARG(55), ARG(56), ARG(57), ARG(58), ARG(59), ARG(60), ARG(61), ARG(62), ARG(63), ARG(64), \
    ARG(65), ARG(66), ARG(67), ARG(68), ARG(69), ARG(70), ARG(71), ARG(72), ARG(73), ARG(74), ARG(75), \
    ARG(76), ARG(77), ARG(78), ARG(79), ARG(80), ARG(81), ARG(82), ARG(83), ARG(84), ARG(85), ARG(86), \
    ARG(87), ARG(88), ARG(89), ARG(90), ARG(91), ARG(92), ARG(93), ARG(94), ARG(95), ARG(96), ARG(97), \
    ARG(98), ARG(99), ARG(100), ARG(101), ARG(102), ARG(103), ARG(104), ARG(105), ARG(106), ARG(107), \
    ARG(108), ARG(109), ARG(110), ARG(111), ARG(112), ARG(113), ARG(114), ARG(115), ARG(116), ARG(117), \
    ARG(118), ARG(119), ARG(120), ARG(121), ARG(122), ARG(123), ARG(124), ARG(125), ARG(126)

#define RAW_ARGUMENT(i) raw_argument(i)

/* "d" and the 127 parameters' codes. */
static dc_signature *many_signature(void) {
    char encoding[MANY + 2] = "d";
    for (size_t i = 0; i < MANY; i++) encoding[i + 1] = many_codes[i % 4];
    encoding[MANY + 1] = '\0';
    return create_signature(encoding);
}

static void fill_arguments(dc_value *arguments, dc_value (*make)(size_t)) {
    for (size_t i = 0; i < MANY; i++) arguments[i] = make(i);
}

static void signatures_take_the_127_parameters_c_guarantees(void **state) {
    (void)state;
    dc_signature *signature = many_signature();
    assert_int_equal(dc_signature_parameter_count(signature), MANY);
    dc_type last = DC_TYPE_VOID;
    assert_ok(dc_signature_parameter_type(signature, MANY - 1, &last));
    assert_int_equal(last, DC_TYPE_INT32);
    assert_int_equal(dc_signature_call_path(signature), DC_CALL_PATH_FFI);
    assert_true(dc_signature_frame_size(signature) >= MANY * sizeof(int32_t));
    dc_type types[DC_MAX_PARAMETERS];
    for (size_t i = 0; i < DC_MAX_PARAMETERS; i++) types[i] = DC_TYPE_POINTER;
    dc_signature *pointers = NULL;
    assert_ok(dc_signature_create_with_types(DC_TYPE_VOID, types, DC_MAX_PARAMETERS, &pointers));
    assert_int_equal(dc_signature_parameter_count(pointers), DC_MAX_PARAMETERS);
    dc_signature_release(pointers);
    dc_signature_release(signature);
}

static void dc_call_passes_127_arguments(void **state) {
    (void)state;
    dc_signature *signature = many_signature();
    dc_value arguments[MANY], result = dc_void();
    fill_arguments(arguments, argument_value);
    assert_ok(dc_call(signature, DC_FUNCTION(weigh_127), arguments, MANY, &result));
    assert_int_equal(result.type, DC_TYPE_DOUBLE);
    assert_true(result.d == expected_weight());
    assert_true(result.d == weigh_127(WEIGH_127_ARGUMENTS(RAW_ARGUMENT)));
    /* Arguments that convert are converted; one that does not fails the call. */
    fill_arguments(arguments, converting_argument_value);
    assert_ok(dc_call(signature, DC_FUNCTION(weigh_127), arguments, MANY, &result));
    assert_true(result.d == expected_weight());
    arguments[MANY - 1] = dc_double(0.5);
    assert_failure(dc_call(signature, DC_FUNCTION(weigh_127), arguments, MANY, &result), DC_ERR_TYPE, "126");
    dc_signature_release(signature);
}

static void an_invocation_of_127_arguments_keeps_and_passes_them(void **state) {
    (void)state;
    dc_signature *signature = many_signature();
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, DC_FUNCTION(weigh_127), &invocation));
    for (size_t i = 0; i < MANY; i++) {
        dc_value value = argument_value(i);
        assert_ok(dc_invocation_set_argument(invocation, i, &value));
    }
    for (size_t i = 0; i < MANY; i++) {
        dc_value read;
        assert_ok(dc_invocation_get_argument(invocation, i, &read));
        assert_value_equal(argument_value(i), read, "argument read back");
    }
    assert_ok(dc_invocation_invoke(invocation));
    dc_value result;
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_true(result.d == expected_weight());
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);
}

/* A forward handler that weighs the arguments itself. */
static void weigh_arguments(dc_invocation *call, void *user_data) {
    int *calls = user_data;
    (*calls)++;
    double sum = 0;
    for (size_t i = 0; i < MANY; i++) {
        dc_value value;
        assert_ok(dc_invocation_get_argument(call, i, &value));
        sum += (double)(i + 1) * number_of(value);
    }
    dc_value result = dc_double(sum);
    assert_ok(dc_invocation_set_return_value(call, &result));
}

/* A forward handler that re-sends the call to weigh_127. */
static void resend_to_weigh(dc_invocation *call, void *user_data) {
    (void)user_data;
    assert_ok(dc_invocation_set_function(call, DC_FUNCTION(weigh_127)));
    assert_ok(dc_invocation_invoke(call));
}

static void closures_of_127_parameters_read_them_and_resend_them(void **state) {
    (void)state;
    dc_signature *signature = many_signature();
    int calls = 0;
    dc_closure *reading = NULL, *resending = NULL;
    assert_ok(dc_closure_create(signature, weigh_arguments, &calls, NULL, &reading));
    assert_ok(dc_closure_create(signature, resend_to_weigh, NULL, NULL, &resending));
    weigh_127_function weigh = (weigh_127_function)dc_closure_function(reading);
    assert_true(weigh(WEIGH_127_ARGUMENTS(RAW_ARGUMENT)) == expected_weight());
    assert_int_equal(calls, 1);
    weigh = (weigh_127_function)dc_closure_function(resending);
    assert_true(weigh(WEIGH_127_ARGUMENTS(RAW_ARGUMENT)) == expected_weight());
    dc_closure_destroy(reading);
    dc_closure_destroy(resending);
    dc_signature_release(signature);
}

/* A marshal that returns the weight of its arguments. */
static void weigh_values(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data;
    assert_int_equal(count, MANY);
    double sum = 0;
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(arguments[i].type, argument_value(i).type);
        sum += (double)(i + 1) * number_of(arguments[i]);
    }
    result->d = sum;
}

static void table_handlers_of_127_parameters_run_with_them(void **state) {
    (void)state;
    dc_signature *signature = many_signature();
    dc_table *table = create_table("many");
    assert_ok(dc_table_add(table, "function", signature, DC_FUNCTION(weigh_127), NULL, NULL, NULL));
    assert_ok(dc_table_add_marshal(table, "marshal", signature, weigh_values, NULL, NULL, NULL));
    dc_value arguments[MANY];
    dc_value (*const makers[])(size_t) = {argument_value, converting_argument_value};
    const char *const events[] = {"function", "marshal"};
    for (size_t m = 0; m < ARRAY_COUNT(makers); m++) {
        fill_arguments(arguments, makers[m]);
        for (size_t e = 0; e < ARRAY_COUNT(events); e++) {
            dc_result result;
            assert_ok(dc_table_execute(table, events[e], arguments, MANY, &result));
            assert_int_equal(result.handled, 1);
            assert_int_equal(result.return_value.type, DC_TYPE_DOUBLE);
            assert_true(result.return_value.d == expected_weight());
        }
    }
    /* Fewer arguments: the missing trailing ones are zero. */
    dc_result result;
    assert_ok(dc_table_execute(table, "function", arguments, 1, &result));
    assert_true(result.return_value.d == raw_argument(0));
    dc_table_destroy(table);
    dc_signature_release(signature);
}

static void a_table_closure_of_127_parameters_executes_its_event(void **state) {
    (void)state;
    dc_signature *signature = many_signature();
    dc_table *table = create_table("many");
    assert_ok(dc_table_add(table, "weigh", signature, DC_FUNCTION(weigh_127), NULL, NULL, NULL));
    dc_closure *closure = NULL;
    assert_ok(dc_table_closure_create(table, "weigh", signature, &closure));
    weigh_127_function weigh = (weigh_127_function)dc_closure_function(closure);
    assert_true(weigh(WEIGH_127_ARGUMENTS(RAW_ARGUMENT)) == expected_weight());
    dc_closure_destroy(closure);
    dc_table_destroy(table);
    dc_signature_release(signature);
}

/* ---- a queued delivery --------------------------------------------------------- */

static double delivered_weight;

static void record_weight(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)result;
    double sum = 0;
    for (size_t i = 0; i < count; i++) sum += (double)(i + 1) * number_of(arguments[i]);
    delivered_weight = sum;
}

typedef struct producer {
    dc_table *table;
    const dc_value *arguments;
    dc_status status;
    size_t queued;
} producer;

static void *execute_elsewhere(void *context) {
    producer *p = context;
    dc_result result;
    p->status = dc_table_execute(p->table, "queued", p->arguments, MANY, &result);
    p->queued = result.queued;
    return NULL;
}

static void a_queued_delivery_copies_127_arguments(void **state) {
    (void)state;
    dc_signature *void_many = NULL;
    char encoding[MANY + 2] = "v";
    for (size_t i = 0; i < MANY; i++) encoding[i + 1] = many_codes[i % 4];
    encoding[MANY + 1] = '\0';
    assert_ok(dc_signature_create(encoding, &void_many));
    dc_table *table = create_table("many");
    dc_queue *queue = NULL;
    assert_ok(dc_queue_create(&queue));
    dc_handler_options options = {.queue = queue};
    assert_ok(dc_table_add_marshal(table, "queued", void_many, record_weight, NULL, &options, NULL));
    dc_value arguments[MANY];
    fill_arguments(arguments, converting_argument_value);
    producer p = {table, arguments, DC_ERR_STATE, 0};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, execute_elsewhere, &p), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_ok(p.status);
    assert_int_equal(p.queued, 1);
    delivered_weight = 0;
    size_t delivered = 0;
    assert_ok(dc_queue_drain(queue, &delivered));
    assert_int_equal(delivered, 1);
    assert_true(delivered_weight == expected_weight());
    dc_table_destroy(table);
    dc_queue_destroy(queue);
    dc_signature_release(void_many);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(signatures_take_the_127_parameters_c_guarantees),
        cmocka_unit_test(dc_call_passes_127_arguments),
        cmocka_unit_test(an_invocation_of_127_arguments_keeps_and_passes_them),
        cmocka_unit_test(closures_of_127_parameters_read_them_and_resend_them),
        cmocka_unit_test(table_handlers_of_127_parameters_run_with_them),
        cmocka_unit_test(a_table_closure_of_127_parameters_executes_its_event),
        cmocka_unit_test(a_queued_delivery_copies_127_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
