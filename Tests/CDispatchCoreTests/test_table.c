/*
 * test_table.c — the event table on one thread: creation and names, interned
 * event ids, registration order and ids, duplicates, bound targets, arity
 * adaptation, argument types (an execute runs whole or fails before anything
 * runs), return values and accumulators, unknown events, once-handlers,
 * counted blocking, every way of removing a handler (each destroy notify runs
 * exactly once), introspection, and bad input to every table function.
 *
 * Modelled in part on Node's EventEmitter tests (once, prepend, listener counts,
 * 0 to 5 arguments reaching listeners of different arities) and GLib's signal
 * tests (ids valid after connect and invalid after disconnect, 0 never valid,
 * block/unblock, the true-handled accumulator).
 *
 * Re-entrant use (handlers that execute, add, remove, block or stop during an
 * execute) is in test_table_reentrancy.c.
 */
#include "table_support.h"
#include "dispatch_core_binding.h"

/* ---- handlers with parameters ----------------------------------------------------- */

/* What the arity listeners last received: heard[arity][index], and their calls. */
static int64_t heard[6][5];
static int heard_calls[6];

static void forget_what_was_heard(void) {
    memset(heard, 0xa5, sizeof heard);
    memset(heard_calls, 0, sizeof heard_calls);
}

static void listen_0(void) {
    heard_calls[0]++;
    log_call(0);
}
static void listen_1(int64_t a) {
    heard_calls[1]++, heard[1][0] = a;
    log_call(1);
}
static void listen_2(int64_t a, int64_t b) {
    heard_calls[2]++, heard[2][0] = a, heard[2][1] = b;
    log_call(2);
}
static void listen_3(int64_t a, int64_t b, int64_t c) {
    heard_calls[3]++, heard[3][0] = a, heard[3][1] = b, heard[3][2] = c;
    log_call(3);
}
static void listen_5(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
    heard_calls[5]++, heard[5][0] = a, heard[5][1] = b, heard[5][2] = c, heard[5][3] = d,
        heard[5][4] = e;
    log_call(5);
}

/* Parameters of every kind, to see what missing arguments become. */
static struct {
    int64_t integer;
    void *pointer;
    char *string;
    double real;
    bool flag;
    void *object;
} mixed;

static void receive_mixed(int64_t integer, void *pointer, char *string, double real, bool flag,
                          void *object) {
    mixed.integer = integer, mixed.pointer = pointer, mixed.string = string;
    mixed.real = real, mixed.flag = flag, mixed.object = object;
    log_call(7);
}

/* Bound-target receivers. */
static struct {
    void *target;
    int64_t a;
    int64_t b;
    int calls;
} bound;

static void receive_bound(void *target, int64_t a, int64_t b) {
    bound.target = target, bound.a = a, bound.b = b, bound.calls++;
    log_call(8);
}
static void receive_bound_string(char *target, int64_t a) {
    bound.target = target, bound.a = a, bound.calls++;
    log_call(9);
}
static void receive_target_only(void *target) {
    bound.target = target, bound.calls++;
    log_call(10);
}
static void takes_integer_first(int64_t a) {
    (void)a;
    log_call(11);
}

/* Narrow parameters, for conversion of arguments that fit. */
static int32_t received_int32;
static uint8_t received_uint8;
static double received_double;
static void take_int32(int32_t x) { received_int32 = x, log_call(32); }
static void take_uint8(uint8_t x) { received_uint8 = x, log_call(8); }
static void take_double(double x) { received_double = x, log_call(64); }
static void received_double_twin(double x) { received_double = x, log_call(65); }
static void take_int64_int64_double(int64_t a, int64_t b, double c) {
    (void)a, (void)b, (void)c;
    log_call(2);
}
static void take_uint32(uint32_t x) {
    (void)x;
    log_call(33);
}

/* Return values. */
static int64_t return_10(void) { return log_call(10), 10; }
static int64_t return_20(void) { return log_call(20), 20; }
static int64_t return_30(void) { return log_call(30), 30; }
static int32_t return_int32_40(void) { return log_call(40), 40; }
static bool return_false_1(void) { return log_call(1), false; }
static bool return_true_2(void) { return log_call(2), true; }
static bool return_false_3(void) { return log_call(3), false; }
static bool return_true_4(void) { return log_call(4), true; }

/* Re-enters the event it handles; registered once. */
static dc_status nested_status;
static dc_result nested_result;
static void once_reexecuting(void) {
    log_call(1);
    nested_status = dc_table_execute(table, "again", NULL, 0, &nested_result);
}

/* ---- creation, names and interning ------------------------------------------------- */

static void destroying_a_null_table_does_nothing(void **state) {
    (void)state;
    dc_table_destroy(NULL);
    assert_false(dc_table_contains(NULL, 1));
}

static void table_keeps_its_own_copy_of_its_name(void **state) {
    (void)state;
    char name[] = "player";
    dc_table *named = NULL;
    assert_ok(dc_table_create(name, NULL, &named));
    name[0] = 'X';
    assert_string_equal(dc_table_name(named), "player");
    dc_table_destroy(named);

    dc_table *unnamed = NULL;
    assert_ok(dc_table_create(NULL, NULL, &unnamed));
    assert_non_null(dc_table_name(unnamed));
    assert_string_equal(dc_table_name(unnamed), "");
    dc_table_destroy(unnamed);
}

static void table_without_object_callbacks_runs_handlers(void **state) {
    (void)state;
    dc_table *plain = NULL;
    assert_ok(dc_table_create("plain", NULL, &plain));
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create("v", &signature));
    reset_call_log();
    assert_ok(dc_table_add(plain, "ping", signature, DC_FUNCTION(record_1), NULL, NULL, NULL));
    dc_result result;
    assert_ok(dc_table_execute(plain, "ping", NULL, 0, &result));
    assert_int_equal(result.handled, 1);
    assert_call_log(1);
    dc_table_destroy(plain);
    dc_signature_release(signature);
}

static void interned_ids_are_dense_from_one_and_stable(void **state) {
    (void)state;
    dc_event_id a = 0, b = 0, c = 0, again = 0;
    assert_ok(dc_table_intern(table, "alpha", &a));
    assert_ok(dc_table_intern(table, "beta", &b));
    assert_ok(dc_table_intern(table, "alpha", &again));
    assert_ok(dc_table_intern(table, "gamma", &c));
    assert_int_equal(a, 1);
    assert_int_equal(b, 2);
    assert_int_equal(c, 3);
    assert_int_equal(again, a);

    /* Registering interns a new event on first use, continuing the sequence. */
    add_recorder("delta", record_1);
    dc_event_id d = 0;
    assert_ok(dc_table_intern(table, "delta", &d));
    assert_int_equal(d, 4);
    assert_ok(dc_table_intern(table, "beta", &again));
    assert_int_equal(again, b);
}

static void event_name_gives_back_the_interned_key(void **state) {
    (void)state;
    char key[] = "selection-changed";
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, key, &id));
    key[0] = 'X'; /* the table keeps its own copy */
    const char *name = NULL;
    assert_ok(dc_table_event_name(table, id, &name));
    assert_string_equal(name, "selection-changed");

    dc_event_id other = 0;
    assert_ok(dc_table_intern(table, "", &other));
    assert_int_equal(other, id + 1);
    assert_ok(dc_table_event_name(table, other, &name));
    assert_string_equal(name, "");
}

static void event_name_of_an_id_never_issued_is_not_found(void **state) {
    (void)state;
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "only", &id));
    const char *name = "untouched";
    assert_failure(dc_table_event_name(table, 0, &name), DC_ERR_NOT_FOUND, "0");
    assert_fails(dc_table_event_name(table, id + 1, &name), DC_ERR_NOT_FOUND);
    assert_failure(dc_table_event_name(table, UINT32_MAX, &name), DC_ERR_NOT_FOUND,
                   "4294967295");
    assert_string_equal(name, "untouched");
}

/* ---- order and ids ------------------------------------------------------------------- */

static void handlers_run_in_registration_order(void **state) {
    (void)state;
    add_recorder("tick", record_3);
    add_recorder("tick", record_1);
    add_recorder("tick", record_2);
    dc_result result = execute_ok("tick", NULL, 0);
    assert_call_log(3, 1, 2);
    assert_int_equal(result.handled, 3);
    assert_int_equal(result.queued, 0);
    assert_false(result.stopped);
    assert_false(result.has_return_value);
    assert_int_equal(result.return_value.type, DC_TYPE_VOID);
    assert_int_equal(result.return_count, 0);
}

static void first_flag_inserts_before_the_existing_handlers(void **state) {
    (void)state;
    const dc_handler_options first = handler_options(DC_HANDLER_FIRST, NULL);
    add_recorder("tick", record_1);
    add_recorder("tick", record_2);
    add_recorder_with("tick", record_3, &first);
    add_recorder("tick", record_4);
    add_recorder_with("tick", record_5, &first);
    execute_ok("tick", NULL, 0);
    assert_call_log(5, 3, 1, 2, 4);
}

static void first_flag_on_an_empty_event_runs_the_handler(void **state) {
    (void)state;
    const dc_handler_options first = handler_options(DC_HANDLER_FIRST, NULL);
    add_recorder_with("tick", record_1, &first);
    execute_ok("tick", NULL, 0);
    assert_call_log(1);
}

static void handler_ids_are_nonzero_and_distinct(void **state) {
    (void)state;
    dc_handler_id ids[6] = {
        add_recorder("a", record_1), add_recorder("a", record_2), add_recorder("b", record_1),
        add_recorder("b", record_2), add_recorder("c", record_3), add_recorder("a", record_3),
    };
    for (size_t i = 0; i < ARRAY_COUNT(ids); i++) {
        assert_true(ids[i] != 0);
        for (size_t j = i + 1; j < ARRAY_COUNT(ids); j++) {
            assert_true(ids[i] != ids[j]);
        }
    }
}

static int compare_ids(const void *a, const void *b) {
    dc_handler_id x = *(const dc_handler_id *)a, y = *(const dc_handler_id *)b;
    return x < y ? -1 : x > y;
}

static void handler_ids_are_never_reused_after_removal(void **state) {
    (void)state;
    enum { ROUNDS = 3000 };
    static dc_handler_id issued[ROUNDS * 2];
    size_t count = 0;
    dc_handler_id kept = add_recorder("kept", record_5);
    issued[count++] = kept;
    for (size_t round = 0; round < ROUNDS; round++) {
        /* The same (event, function, target) again and again: each time a new id. */
        dc_handler_id id = add_recorder("churn", record_1);
        issued[count++] = id;
        assert_ok(dc_table_remove(table, id));
        if (round % 3 == 0) {
            dc_handler_id other = add_recorder(round % 2 ? "odd" : "even", record_2);
            if (count < ARRAY_COUNT(issued)) {
                issued[count++] = other;
            }
            size_t removed = 0;
            assert_ok(dc_table_remove_all(table, &removed));
            assert_int_equal(removed, round == 0 ? 2 : 1);
        }
    }
    qsort(issued, count, sizeof issued[0], compare_ids);
    assert_true(issued[0] != 0);
    for (size_t i = 1; i < count; i++) {
        if (issued[i] == issued[i - 1]) {
            fail_msg("handler id %" PRIu64 " was issued twice", (uint64_t)issued[i]);
        }
    }
}

static void zero_is_never_a_valid_handler_id(void **state) {
    (void)state;
    add_recorder("tick", record_1);
    assert_false(dc_table_contains(table, 0));
    assert_failure(dc_table_remove(table, 0), DC_ERR_NOT_FOUND, "0");
    assert_failure(dc_table_block(table, 0), DC_ERR_NOT_FOUND, "0");
    assert_failure(dc_table_unblock(table, 0), DC_ERR_NOT_FOUND, "0");
    assert_int_equal(handler_count("tick"), 1);
    execute_ok("tick", NULL, 0);
    assert_call_log(1);
}

static void handler_id_is_valid_after_add_and_invalid_after_remove(void **state) {
    (void)state;
    dc_handler_id id = add_recorder("tick", record_1);
    assert_true(dc_table_contains(table, id));
    assert_false(dc_table_contains(table, id + 1));
    assert_ok(dc_table_remove(table, id));
    assert_false(dc_table_contains(table, id));
    assert_fails(dc_table_remove(table, id), DC_ERR_NOT_FOUND);
    assert_fails(dc_table_block(table, id), DC_ERR_NOT_FOUND);
    assert_int_equal(handler_count("tick"), 0);
    execute_ok("tick", NULL, 0);
    assert_nothing_called();
}

static void add_without_an_out_pointer_still_registers(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "tick", sig("v"), DC_FUNCTION(record_1), NULL, NULL, NULL));
    assert_int_equal(handler_count("tick"), 1);
    execute_ok("tick", NULL, 0);
    assert_call_log(1);
}

static void add_by_id_registers_on_the_interned_event(void **state) {
    (void)state;
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "tick", &id));
    dc_handler_id handler = 0;
    assert_ok(dc_table_add_id(table, id, sig("v"), DC_FUNCTION(record_1), NULL, NULL, &handler));
    assert_true(handler != 0);
    assert_true(dc_table_contains(table, handler));
    assert_int_equal(handler_count("tick"), 1);
    execute_ok("tick", NULL, 0);
    assert_call_log(1);
}

static void stale_ids_never_reach_a_handler_registered_later(void **state) {
    (void)state;
    enum { ROUNDS = 200 };
    static dc_handler_id stale[ROUNDS];
    for (size_t round = 0; round < ROUNDS; round++) {
        stale[round] = add_recorder("churn", record_1);
        assert_ok(dc_table_remove(table, stale[round]));
    }
    /* Whatever storage the new handlers reuse, the old ids name none of them. */
    dc_handler_id live[3] = {add_recorder("churn", record_1), add_recorder("churn", record_2),
                             add_recorder("other", record_3)};
    for (size_t round = 0; round < ROUNDS; round++) {
        for (size_t i = 0; i < ARRAY_COUNT(live); i++) {
            assert_true(stale[round] != live[i]);
        }
        assert_false(dc_table_contains(table, stale[round]));
        assert_status(dc_table_remove(table, stale[round]), DC_ERR_NOT_FOUND);
        assert_status(dc_table_block(table, stale[round]), DC_ERR_NOT_FOUND);
    }
    execute_ok("churn", NULL, 0);
    execute_ok("other", NULL, 0);
    assert_call_log(1, 2, 3);
}

/* ---- duplicates ------------------------------------------------------------------------- */

static void same_event_function_and_target_twice_keeps_one_handler(void **state) {
    (void)state;
    dc_handler_id first = add_recorder("tick", record_1);
    dc_handler_id second = 12345;
    assert_status(dc_table_add(table, "tick", sig("v"), DC_FUNCTION(record_1), NULL, NULL,
                               &second),
                  DC_EXISTS);
    assert_int_equal(second, first);
    assert_int_equal(handler_count("tick"), 1);
    dc_result result = execute_ok("tick", NULL, 0);
    assert_int_equal(result.handled, 1);
    assert_call_log(1);

    int target = 7;
    dc_handler_id bound_first = 0, bound_second = 0;
    assert_ok(dc_table_add(table, "tick", sig("v^v"), DC_FUNCTION(record_target), &target, NULL,
                           &bound_first));
    assert_status(dc_table_add(table, "tick", sig("v^v"), DC_FUNCTION(record_target), &target,
                               NULL, &bound_second),
                  DC_EXISTS);
    assert_int_equal(bound_second, bound_first);
    assert_int_equal(handler_count("tick"), 2);
    reset_call_log();
    execute_ok("tick", NULL, 0);
    assert_call_log(1, 7);
}

static void duplicate_registration_ignores_its_options(void **state) {
    (void)state;
    static int kept_destroys, ignored_destroys;
    kept_destroys = ignored_destroys = 0;
    const dc_handler_options kept = handler_options(0, &kept_destroys);
    add_recorder("tick", record_1);
    dc_handler_id id = add_recorder_with("tick", record_2, &kept);
    const dc_handler_options ignored =
        handler_options(DC_HANDLER_ONCE | DC_HANDLER_FIRST, &ignored_destroys);
    dc_handler_id again = 0;
    assert_status(dc_table_add(table, "tick", sig("v"), DC_FUNCTION(record_2), NULL, &ignored,
                               &again),
                  DC_EXISTS);
    assert_int_equal(again, id);

    /* Neither first nor once: the handler is the one first registered. */
    execute_ok("tick", NULL, 0);
    execute_ok("tick", NULL, 0);
    assert_call_log(1, 2, 1, 2);
    assert_true(dc_table_contains(table, id));

    assert_ok(dc_table_remove(table, id));
    assert_int_equal(kept_destroys, 1);
    dc_table_destroy(table);
    table = NULL;
    assert_int_equal(kept_destroys, 1);
    assert_int_equal(ignored_destroys, 0);
}

static void duplicate_registration_keeps_the_original_signature(void **state) {
    (void)state;
    dc_handler_id id = 0, again = 0;
    assert_ok(dc_table_add(table, "tick", sig("vq"), DC_FUNCTION(listen_1), NULL, NULL, &id));
    assert_status(dc_table_add(table, "tick", sig("vqq"), DC_FUNCTION(listen_1), NULL, NULL,
                               &again),
                  DC_EXISTS);
    assert_int_equal(again, id);
    forget_what_was_heard();
    execute_ok("tick", (dc_value[]){dc_int64(4)}, 1);
    assert_int_equal(heard_calls[1], 1);
    assert_int_equal(heard[1][0], 4);
    /* Under "vq" the string is an extra argument, dropped; had the duplicate's
     * "vqq" replaced it, the string would not fit and the execute would fail. */
    char text[] = "x";
    dc_result result = execute_ok("tick", (dc_value[]){dc_int64(5), dc_string(text)}, 2);
    assert_int_equal(result.handled, 1);
    assert_int_equal(heard[1][0], 5);
}

static void same_function_on_another_target_or_event_is_a_new_handler(void **state) {
    (void)state;
    int first = 1, second = 2;
    dc_handler_id ids[4] = {0};
    assert_ok(dc_table_add(table, "tick", sig("v^v"), DC_FUNCTION(record_target), &first, NULL,
                           &ids[0]));
    assert_ok(dc_table_add(table, "tick", sig("v^v"), DC_FUNCTION(record_target), &second, NULL,
                           &ids[1]));
    assert_ok(dc_table_add(table, "tock", sig("v^v"), DC_FUNCTION(record_target), &first, NULL,
                           &ids[2]));
    /* Unbound is another target (none) than &first. */
    assert_ok(dc_table_add(table, "tick", sig("v^v"), DC_FUNCTION(record_target), NULL, NULL,
                           &ids[3]));
    for (size_t i = 0; i < 4; i++) {
        for (size_t j = i + 1; j < 4; j++) {
            assert_true(ids[i] != ids[j]);
        }
    }
    assert_int_equal(handler_count("tick"), 3);
    assert_int_equal(handler_count("tock"), 1);
    /* The unbound one would dereference its NULL first argument: take it out. */
    assert_ok(dc_table_remove(table, ids[3]));
    execute_ok("tick", NULL, 0);
    execute_ok("tock", NULL, 0);
    assert_call_log(1, 2, 1);
}

static void duplicates_are_found_among_many_targets_after_removals(void **state) {
    (void)state;
    enum { TARGETS = 300 };
    static int tags[TARGETS];
    static dc_handler_id ids[TARGETS];
    dc_signature *v_ptr = sig("v^v");
    for (int i = 0; i < TARGETS; i++) {
        tags[i] = i;
        assert_ok(dc_table_add(table, "many", v_ptr, DC_FUNCTION(record_target), &tags[i], NULL,
                               &ids[i]));
    }
    for (int i = 0; i < TARGETS; i += 3) {
        assert_ok(dc_table_remove(table, ids[i]));
    }
    /* Registering every target again: the removed ones come back with new ids,
     * the others are duplicates. */
    for (int i = 0; i < TARGETS; i++) {
        dc_handler_id again = 0;
        dc_status status = dc_table_add(table, "many", v_ptr, DC_FUNCTION(record_target),
                                        &tags[i], NULL, &again);
        if (i % 3 == 0) {
            if (status != DC_OK || again == ids[i]) {
                fail_msg("target %d, removed: gave %s and id %" PRIu64 " (old id %" PRIu64 ")",
                         i, dc_status_name(status), (uint64_t)again, (uint64_t)ids[i]);
            }
        } else if (status != DC_EXISTS || again != ids[i]) {
            fail_msg("target %d, kept: gave %s and id %" PRIu64 ", expected DC_EXISTS and %" PRIu64,
                     i, dc_status_name(status), (uint64_t)again, (uint64_t)ids[i]);
        }
    }
    assert_int_equal(handler_count("many"), TARGETS);
    dc_result result = execute_ok("many", NULL, 0);
    assert_int_equal(result.handled, TARGETS);
    /* Each target exactly once: the kept ones in their places, then the re-added. */
    assert_int_equal(call_log_count, TARGETS);
    size_t position = 0;
    for (int i = 0; i < TARGETS; i++) {
        if (i % 3 != 0) {
            assert_int_equal(call_log[position++], i);
        }
    }
    for (int i = 0; i < TARGETS; i += 3) {
        assert_int_equal(call_log[position++], i);
    }
}

/* Removing most of an event's handlers one by one compacts its array and
 * rebuilds the duplicate index, and the handlers added next reuse the
 * removed ones' slots, the last removed first. However many were removed
 * (and so whichever of the array's entries were written at once, and which
 * later, together), an execute reaches each handler once. */
static void slots_of_removed_handlers_are_reused_unseen_through_their_old_entries(void **state) {
    (void)state;
    enum { HANDLERS = 300, ADDED = 20 };
    static int tags[HANDLERS + ADDED];
    static dc_handler_id ids[HANDLERS];
    dc_signature *v_ptr = sig("v^v");
    for (int i = 0; i < HANDLERS + ADDED; i++) tags[i] = i;
    uint32_t reused = 0;
    for (int removed = HANDLERS / 2; removed < HANDLERS; removed++) {
        dc_table *churned = create_table("churned");
        for (int i = 0; i < HANDLERS; i++)
            assert_ok(dc_table_add(churned, "old", v_ptr, DC_FUNCTION(record_target), &tags[i], NULL, &ids[i]));
        for (int i = 0; i < removed; i++) assert_ok(dc_table_remove(churned, ids[i]));
        for (int i = HANDLERS; i < HANDLERS + ADDED; i++) {
            dc_handler_id id = 0;
            assert_ok(dc_table_add(churned, "old", v_ptr, DC_FUNCTION(record_target), &tags[i], NULL, &id));
            if ((uint32_t)id < (uint32_t)removed) reused++;
        }
        reset_call_log();
        dc_result result;
        assert_ok(dc_table_execute(churned, "old", NULL, 0, &result));
        if (result.handled != (size_t)(HANDLERS - removed + ADDED) || call_log_count != result.handled)
            fail_msg("%d removed: %zu handled, %zu calls, expected %d", removed, result.handled, call_log_count,
                     HANDLERS - removed + ADDED);
        for (int i = 0; i < HANDLERS - removed + ADDED; i++) assert_int_equal(call_log[i], removed + i);
        dc_table_destroy(churned);
    }
    assert_true(reused > 0); /* else the test shows nothing */
}

static void allow_duplicate_registers_the_same_handler_again_unseen_by_the_index(void **state) {
    (void)state;
    const dc_handler_options again = handler_options(DC_HANDLER_ALLOW_DUPLICATE, NULL);
    dc_handler_id indexed = add_recorder("tick", record_1);
    dc_handler_id copies[2] = {0, 0};
    for (size_t i = 0; i < 2; i++) {
        assert_ok(dc_table_add(table, "tick", sig("v"), DC_FUNCTION(record_1), NULL, &again, &copies[i]));
        assert_true(copies[i] != indexed);
    }
    assert_true(copies[0] != copies[1]);
    assert_int_equal(handler_count("tick"), 3);
    assert_int_equal(execute_ok("tick", NULL, 0).handled, 3);
    assert_call_log(1, 1, 1);

    /* Without the flag the index answers with the one it holds. */
    dc_handler_id found = 0;
    assert_status(dc_table_add(table, "tick", sig("v"), DC_FUNCTION(record_1), NULL, NULL, &found), DC_EXISTS);
    assert_int_equal(found, indexed);
    /* Once that one is gone, the copies are not found: a plain add is new. */
    assert_ok(dc_table_remove(table, indexed));
    dc_handler_id fresh = 0;
    assert_ok(dc_table_add(table, "tick", sig("v"), DC_FUNCTION(record_1), NULL, NULL, &fresh));
    assert_true(fresh != copies[0] && fresh != copies[1]);

    /* The copies come and go like any handler. */
    assert_ok(dc_table_remove(table, copies[0]));
    assert_status(dc_table_remove(table, copies[0]), DC_ERR_NOT_FOUND);
    assert_int_equal(handler_count("tick"), 2);
    reset_call_log();
    execute_ok("tick", NULL, 0);
    assert_call_log(1, 1);
}

static void index_stays_right_with_many_handlers_outside_it(void **state) {
    (void)state;
    enum { TARGETS = 600 };
    static int tags[TARGETS];
    static dc_handler_id ids[TARGETS], copies[TARGETS];
    const dc_handler_options again = handler_options(DC_HANDLER_ALLOW_DUPLICATE, NULL);
    dc_signature *v_ptr = sig("v^v");
    /* Interleaved, so the index grows while handlers outside it come and go. */
    for (int i = 0; i < TARGETS; i++) {
        tags[i] = i;
        assert_ok(dc_table_add(table, "many", v_ptr, DC_FUNCTION(record_target), &tags[i], NULL, &ids[i]));
        assert_ok(dc_table_add(table, "many", v_ptr, DC_FUNCTION(record_target), &tags[i], &again, &copies[i]));
        if (i % 2 == 0) assert_ok(dc_table_remove(table, copies[i]));
    }
    for (int i = 0; i < TARGETS; i += 3) {
        assert_ok(dc_table_remove(table, ids[i]));
    }
    for (int i = 0; i < TARGETS; i++) {
        dc_handler_id found = 0;
        dc_status status =
            dc_table_add(table, "many", v_ptr, DC_FUNCTION(record_target), &tags[i], NULL, &found);
        dc_status expected = i % 3 == 0 ? DC_OK : DC_EXISTS;
        if (status != expected || (expected == DC_EXISTS && found != ids[i]))
            fail_msg("target %d: gave %s and id %" PRIu64 ", expected %s", i, dc_status_name(status),
                     (uint64_t)found, dc_status_name(expected));
    }
    /* Every target once from the index, plus the odd ones' copies. */
    dc_result result = execute_ok("many", NULL, 0);
    assert_int_equal(result.handled, TARGETS + TARGETS / 2);
    size_t removed = 0;
    assert_ok(dc_table_remove_target(table, &tags[1], &removed));
    assert_int_equal(removed, 2);
}

/* Take the bytes "vB" and "vBBBBBBB" handlers' bools arrive as (the ABI
 * passes a bool and a byte alike); seven integer parameters are more than a
 * stub takes, so the second goes by libffi. */
static int bool_bytes_seen[7];
static void see_bool_byte(uint8_t byte) { bool_bytes_seen[0] = byte; }
static void see_seven_bool_bytes(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t e, uint8_t f, uint8_t g) {
    const int bytes[7] = {a, b, c, d, e, f, g};
    memcpy(bool_bytes_seen, bytes, sizeof bytes);
}

static void forget_bool_bytes(void) {
    for (size_t i = 0; i < 7; i++) bool_bytes_seen[i] = -1;
}

static void a_bool_filled_by_hand_arrives_as_0_or_1(void **state) {
    (void)state;
    assert_int_equal(dc_signature_call_path(sig("vBBBBBBB")), DC_CALL_PATH_FFI);
    assert_ok(dc_table_add(table, "flag", sig("vB"), DC_FUNCTION(see_bool_byte), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "flags", sig("vBBBBBBB"), DC_FUNCTION(see_seven_bool_bytes), NULL, NULL, NULL));
    /* A caller writing the union's byte rather than through dc_bool. */
    dc_value flags[7];
    for (size_t i = 0; i < 7; i++) {
        flags[i] = dc_bool(false);
        flags[i].u8 = (uint8_t)(i % 2 == 0 ? 2 + i : 0);
    }
    forget_bool_bytes();
    execute_ok("flag", flags, 1);
    assert_int_equal(bool_bytes_seen[0], 1);
    execute_ok("flags", flags, 7);
    for (size_t i = 0; i < 7; i++) assert_int_equal(bool_bytes_seen[i], i % 2 == 0 ? 1 : 0);
    /* The same through dc_call, on either path. */
    forget_bool_bytes();
    assert_ok(dc_call(sig("vB"), DC_FUNCTION(see_bool_byte), flags, 1, NULL));
    assert_int_equal(bool_bytes_seen[0], 1);
    forget_bool_bytes();
    assert_ok(dc_call(sig("vBBBBBBB"), DC_FUNCTION(see_seven_bool_bytes), flags, 7, NULL));
    for (size_t i = 0; i < 7; i++) assert_int_equal(bool_bytes_seen[i], i % 2 == 0 ? 1 : 0);
}

static void re_registering_after_removal_gives_a_new_id(void **state) {
    (void)state;
    dc_handler_id old = add_recorder("tick", record_1);
    assert_ok(dc_table_remove(table, old));
    dc_handler_id fresh = 0;
    assert_ok(dc_table_add(table, "tick", sig("v"), DC_FUNCTION(record_1), NULL, NULL, &fresh));
    assert_true(fresh != old);
    assert_false(dc_table_contains(table, old));
    assert_true(dc_table_contains(table, fresh));
}

/* ---- bound targets ------------------------------------------------------------------- */

static void bound_target_is_parameter_zero_before_the_event_arguments(void **state) {
    (void)state;
    int target = 0;
    memset(&bound, 0, sizeof bound);
    assert_ok(dc_table_add(table, "moved", sig("v@qq"), DC_FUNCTION(receive_bound), &target,
                           NULL, NULL));
    dc_result result = execute_ok("moved", (dc_value[]){dc_int64(3), dc_int64(-4)}, 2);
    assert_int_equal(result.handled, 1);
    assert_int_equal(bound.calls, 1);
    assert_ptr_equal(bound.target, &target);
    assert_int_equal(bound.a, 3);
    assert_int_equal(bound.b, -4);
}

static void bound_target_may_be_an_object_pointer_or_string_parameter(void **state) {
    (void)state;
    int object = 0, pointer = 0;
    char string[] = "self";
    assert_ok(dc_table_add(table, "a", sig("v@"), DC_FUNCTION(receive_target_only), &object,
                           NULL, NULL));
    assert_ok(dc_table_add(table, "b", sig("v^i"), DC_FUNCTION(receive_target_only), &pointer,
                           NULL, NULL));
    assert_ok(dc_table_add(table, "c", sig("v*q"), DC_FUNCTION(receive_bound_string), string,
                           NULL, NULL));
    memset(&bound, 0, sizeof bound);
    execute_ok("a", NULL, 0);
    assert_ptr_equal(bound.target, &object);
    execute_ok("b", (dc_value[]){dc_int64(1)}, 1);
    assert_ptr_equal(bound.target, &pointer);
    execute_ok("c", (dc_value[]){dc_int64(9)}, 1);
    assert_ptr_equal(bound.target, string);
    assert_int_equal(bound.a, 9);
    assert_int_equal(bound.calls, 3);
}

static void target_for_a_non_pointer_parameter_zero_is_a_type_error(void **state) {
    (void)state;
    int target = 0;
    static int destroys;
    destroys = 0;
    const dc_handler_options options = handler_options(0, &destroys);
    dc_handler_id id = 4242;
    assert_failure(dc_table_add(table, "tick", sig("vq"), DC_FUNCTION(takes_integer_first),
                                &target, &options, &id),
                   DC_ERR_TYPE, "int64");
    assert_int_equal(id, 4242);
    assert_fails(dc_table_add(table, "tick", sig("v"), DC_FUNCTION(record_1), &target,
                                &options, &id),
                   DC_ERR_TYPE);
    assert_int_equal(id, 4242);
    assert_int_equal(handler_count("tick"), 0);
    size_t events = 99;
    assert_ok(dc_table_events(table, NULL, 0, &events));
    assert_int_equal(events, 0);
    execute_ok("tick", (dc_value[]){dc_int64(1)}, 1);
    assert_nothing_called();
    assert_int_equal(destroys, 0);
}

static void bound_handler_taking_only_the_target_ignores_event_arguments(void **state) {
    (void)state;
    int target = 0;
    memset(&bound, 0, sizeof bound);
    assert_ok(dc_table_add(table, "tick", sig("v@"), DC_FUNCTION(receive_target_only), &target,
                           NULL, NULL));
    dc_result result = execute_ok("tick", (dc_value[]){dc_int64(1), dc_int64(2)}, 2);
    assert_int_equal(result.handled, 1);
    assert_ptr_equal(bound.target, &target);
}

static void object_argument_reaches_the_handler_as_given_with_balanced_retains(void **state) {
    (void)state;
    int thing = 0;
    memset(&bound, 0, sizeof bound);
    assert_ok(dc_table_add(table, "select", sig("v@"), DC_FUNCTION(receive_target_only), NULL,
                           NULL, NULL));
    execute_ok("select", (dc_value[]){dc_object(&thing)}, 1);
    assert_ptr_equal(bound.target, &thing);
    /* Whatever the table retains while it holds the object, it releases. */
    assert_int_equal(retains, releases);
}

/* ---- arity ------------------------------------------------------------------------------- */

static void zero_to_five_arguments_reach_handlers_of_every_arity(void **state) {
    (void)state;
    static const dc_function listeners[] = {
        DC_FUNCTION(listen_0), DC_FUNCTION(listen_1), DC_FUNCTION(listen_2),
        DC_FUNCTION(listen_3), DC_FUNCTION(listen_5),
    };
    static const char *const encodings[] = {"v", "vq", "vqq", "vqqq", "vqqqqq"};
    static const size_t arities[] = {0, 1, 2, 3, 5};
    for (size_t i = 0; i < ARRAY_COUNT(listeners); i++) {
        assert_ok(dc_table_add(table, "emit", sig(encodings[i]), listeners[i], NULL, NULL, NULL));
    }
    const dc_value values[] = {dc_int64(10), dc_int64(11), dc_int64(12), dc_int64(13),
                               dc_int64(14)};
    for (size_t given = 0; given <= 5; given++) {
        forget_what_was_heard();
        reset_call_log();
        dc_result result = execute_ok("emit", given > 0 ? values : NULL, given);
        assert_int_equal(result.handled, 5);
        assert_call_log(0, 1, 2, 3, 5);
        for (size_t l = 0; l < ARRAY_COUNT(arities); l++) {
            size_t arity = arities[l];
            assert_int_equal(heard_calls[arity], 1);
            for (size_t index = 0; index < arity; index++) {
                int64_t expected = index < given ? 10 + (int64_t)index : 0;
                if (heard[arity][index] != expected) {
                    fail_msg("%zu arguments: listener of arity %zu got %" PRId64
                             " at index %zu, expected %" PRId64,
                             given, arity, heard[arity][index], index, expected);
                }
            }
        }
    }
}

static void missing_arguments_are_zero_false_and_null(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "mixed", sig("vq^v*dB@"), DC_FUNCTION(receive_mixed), NULL,
                           NULL, NULL));
    memset(&mixed, 0x77, sizeof mixed);
    execute_ok("mixed", (dc_value[]){dc_int64(-6)}, 1);
    assert_call_log(7);
    assert_int_equal(mixed.integer, -6);
    assert_null(mixed.pointer);
    assert_null(mixed.string);
    assert_true(mixed.real == 0.0);
    assert_false(mixed.flag);
    assert_null(mixed.object);
}

static void strict_handler_with_another_argument_count_fails_before_anything_runs(
    void **state) {
    (void)state;
    add_recorder("emit", record_1);
    burn_handler_ids(50);
    const dc_handler_options strict = handler_options(DC_HANDLER_STRICT, NULL);
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, "emit", sig("vqq"), DC_FUNCTION(listen_2), NULL, &strict,
                           &id));
    char id_string[32];
    id_text(id, id_string, sizeof id_string);
    const dc_value values[] = {dc_int64(1), dc_int64(2), dc_int64(3)};
    forget_what_was_heard();
    dc_result result;
    result.handled = 77;
    assert_failure(dc_table_execute(table, "emit", values, 3, &result), DC_ERR_ARITY, "emit",
                   id_string, "3");
    assert_failure(dc_table_execute(table, "emit", values, 1, &result), DC_ERR_ARITY, "emit",
                   id_string, "1");
    assert_nothing_called();
    assert_int_equal(heard_calls[2], 0);
    assert_int_equal(result.handled, 77);

    result = execute_ok("emit", values, 2);
    assert_int_equal(result.handled, 2);
    assert_call_log(1, 2);
}

static void strict_bound_handler_counts_arguments_after_the_target(void **state) {
    (void)state;
    int target = 0;
    const dc_handler_options strict = handler_options(DC_HANDLER_STRICT, NULL);
    assert_ok(dc_table_add(table, "moved", sig("v@qq"), DC_FUNCTION(receive_bound), &target,
                           &strict, NULL));
    memset(&bound, 0, sizeof bound);
    execute_ok("moved", (dc_value[]){dc_int64(1), dc_int64(2)}, 2);
    assert_int_equal(bound.calls, 1);
    assert_status(dc_table_execute(table, "moved", (dc_value[]){dc_int64(1), dc_int64(2),
                                                                dc_int64(3)},
                                   3, NULL),
                  DC_ERR_ARITY);
    assert_status(dc_table_execute(table, "moved", (dc_value[]){dc_int64(1)}, 1, NULL),
                  DC_ERR_ARITY);
    assert_int_equal(bound.calls, 1);
}

static void execute_strict_requires_every_handler_to_take_exactly_the_arguments(
    void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "emit", sig("vqq"), DC_FUNCTION(listen_2), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "emit", sig("vq"), DC_FUNCTION(listen_1), NULL, NULL, NULL));
    const dc_execute_options strict = {.flags = DC_EXECUTE_STRICT};
    const dc_value values[] = {dc_int64(1), dc_int64(2)};
    forget_what_was_heard();
    assert_failure(dc_table_execute_with(table, "emit", values, 2, &strict, NULL), DC_ERR_ARITY,
                   "emit");
    assert_nothing_called();

    /* Without the flag the same execute adapts. */
    execute_ok("emit", values, 2);
    assert_call_log(2, 1);

    /* With only handlers of the right arity, the strict execute runs. */
    size_t removed = 0;
    assert_ok(dc_table_remove_event(table, "emit", &removed));
    assert_int_equal(removed, 2);
    assert_ok(dc_table_add(table, "emit", sig("vqq"), DC_FUNCTION(listen_2), NULL, NULL, NULL));
    reset_call_log();
    dc_result result;
    assert_ok(dc_table_execute_with(table, "emit", values, 2, &strict, &result));
    assert_int_equal(result.handled, 1);
    assert_call_log(2);
}

/* ---- types ------------------------------------------------------------------------------ */

static void argument_not_fitting_one_handler_fails_the_execute_before_any_handler_runs(
    void **state) {
    (void)state;
    add_recorder("typed", record_1);
    burn_handler_ids(50);
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, "typed", sig("vqqd"), DC_FUNCTION(take_int64_int64_double),
                           NULL, NULL, &id));
    add_recorder("typed", record_3);
    char id_string[32];
    id_text(id, id_string, sizeof id_string);
    char text[] = "not a number";
    const dc_value values[] = {dc_int64(1), dc_int64(2), dc_string(text)};
    dc_result result;
    memset(&result, 0, sizeof result);
    result.handled = 77;
    assert_failure(dc_table_execute(table, "typed", values, 3, &result), DC_ERR_TYPE, "typed",
                   id_string, "2", dc_type_name(DC_TYPE_STRING), dc_type_name(DC_TYPE_DOUBLE));
    assert_nothing_called();
    assert_int_equal(result.handled, 77);
    assert_int_equal(handler_count("typed"), 3);

    /* The same by id. */
    dc_event_id event = 0;
    assert_ok(dc_table_intern(table, "typed", &event));
    assert_failure(dc_table_execute_id(table, event, values, 3, &result), DC_ERR_TYPE, "typed",
                   id_string, dc_type_name(DC_TYPE_STRING), dc_type_name(DC_TYPE_DOUBLE));
    assert_nothing_called();
}

static void removed_handlers_no_longer_constrain_argument_types(void **state) {
    (void)state;
    add_recorder("x", record_1);
    dc_handler_id first_double = 0, second_double = 0, strict = 0;
    assert_ok(dc_table_add(table, "x", sig("vd"), DC_FUNCTION(take_double), NULL, NULL,
                           &first_double));
    assert_ok(dc_table_add(table, "x", sig("vd"), DC_FUNCTION(received_double_twin), NULL, NULL,
                           &second_double));
    const dc_handler_options strict_options = handler_options(DC_HANDLER_STRICT, NULL);
    assert_ok(dc_table_add(table, "x", sig("vqq"), DC_FUNCTION(listen_2), NULL, &strict_options,
                           &strict));
    const dc_value one_double[] = {dc_double(1.5)};
    const dc_value one_integer[] = {dc_int64(1)};

    assert_status(dc_table_execute(table, "x", one_double, 1, NULL), DC_ERR_ARITY);
    assert_nothing_called();
    assert_ok(dc_table_remove(table, strict));
    execute_ok("x", one_double, 1);
    assert_call_log(1, 64, 65);

    reset_call_log();
    assert_status(dc_table_execute(table, "x", one_integer, 1, NULL), DC_ERR_TYPE);
    /* One double handler left: the integer still does not fit it. */
    assert_ok(dc_table_remove(table, first_double));
    assert_status(dc_table_execute(table, "x", one_integer, 1, NULL), DC_ERR_TYPE);
    assert_nothing_called();
    assert_ok(dc_table_remove(table, second_double));
    dc_result result = execute_ok("x", one_integer, 1);
    assert_int_equal(result.handled, 1);
    assert_call_log(1);
}

static void once_handler_that_ran_no_longer_constrains_argument_types(void **state) {
    (void)state;
    const dc_handler_options once = handler_options(DC_HANDLER_ONCE, NULL);
    add_recorder("x", record_1);
    assert_ok(dc_table_add(table, "x", sig("vd"), DC_FUNCTION(take_double), NULL, &once, NULL));
    execute_ok("x", (dc_value[]){dc_double(2.5)}, 1);
    assert_call_log(1, 64);
    execute_ok("x", (dc_value[]){dc_int64(2)}, 1);
    assert_call_log(1, 64, 1);
}

static void integer_arguments_that_fit_are_converted_to_the_parameter_type(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "n", sig("vi"), DC_FUNCTION(take_int32), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "n", sig("vC"), DC_FUNCTION(take_uint8), NULL, NULL, NULL));
    received_int32 = 0, received_uint8 = 0;
    dc_result result = execute_ok("n", (dc_value[]){dc_int64(5)}, 1);
    assert_int_equal(result.handled, 2);
    assert_int_equal(received_int32, 5);
    assert_int_equal(received_uint8, 5);
    execute_ok("n", (dc_value[]){dc_uint16(200)}, 1);
    assert_int_equal(received_int32, 200);
    assert_int_equal(received_uint8, 200);
    /* 300 fits int32 but not uint8: nothing runs, not even the int32 handler. */
    reset_call_log();
    assert_failure(dc_table_execute(table, "n", (dc_value[]){dc_int64(300)}, 1, NULL),
                   DC_ERR_TYPE, dc_type_name(DC_TYPE_INT64), dc_type_name(DC_TYPE_UINT8));
    assert_nothing_called();
    assert_int_equal(received_int32, 200);
}

static void negative_integer_does_not_fit_an_unsigned_parameter(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "n", sig("vI"), DC_FUNCTION(take_uint32), NULL, NULL, NULL));
    assert_failure(dc_table_execute(table, "n", (dc_value[]){dc_int64(-1)}, 1, NULL),
                   DC_ERR_TYPE, dc_type_name(DC_TYPE_UINT32));
    assert_nothing_called();
}

static void float_argument_widens_to_a_double_parameter(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "x", sig("vd"), DC_FUNCTION(take_double), NULL, NULL, NULL));
    received_double = 0;
    execute_ok("x", (dc_value[]){dc_float(1.5f)}, 1);
    assert_true(received_double == 1.5);
    assert_failure(dc_table_execute(table, "x", (dc_value[]){dc_int64(1)}, 1, NULL), DC_ERR_TYPE,
                   dc_type_name(DC_TYPE_INT64), dc_type_name(DC_TYPE_DOUBLE));
    assert_call_log(64);
}

static void extra_arguments_a_handler_does_not_take_are_not_type_checked(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "x", sig("vq"), DC_FUNCTION(listen_1), NULL, NULL, NULL));
    char text[] = "dropped";
    forget_what_was_heard();
    dc_result result = execute_ok("x", (dc_value[]){dc_int64(8), dc_string(text)}, 2);
    assert_int_equal(result.handled, 1);
    assert_int_equal(heard[1][0], 8);
}

/* ---- return values ---------------------------------------------------------------------- */

static void first_handler_returning_a_value_gives_the_result(void **state) {
    (void)state;
    add_recorder("compute", record_1);
    assert_ok(dc_table_add(table, "compute", sig("q"), DC_FUNCTION(return_10), NULL, NULL, NULL));
    add_recorder("compute", record_2);
    assert_ok(dc_table_add(table, "compute", sig("q"), DC_FUNCTION(return_20), NULL, NULL, NULL));
    dc_result result = execute_ok("compute", NULL, 0);
    assert_call_log(1, 10, 2, 20);
    assert_int_equal(result.handled, 4);
    assert_true(result.has_return_value);
    assert_value_equal(dc_int64(10), result.return_value, "first return value");
    assert_int_equal(result.return_count, 2);
}

static void return_value_keeps_the_handlers_return_type(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "compute", sig("i"), DC_FUNCTION(return_int32_40), NULL, NULL,
                           NULL));
    dc_result result = execute_ok("compute", NULL, 0);
    assert_value_equal(dc_int32(40), result.return_value, "int32 return value");
}

static void void_handlers_give_no_return_value(void **state) {
    (void)state;
    add_recorder("compute", record_1);
    add_recorder("compute", record_2);
    dc_result result = execute_ok("compute", NULL, 0);
    assert_false(result.has_return_value);
    assert_int_equal(result.return_count, 0);
    assert_value_equal(dc_void(), result.return_value, "no return value");
}

static void last_accumulator_keeps_the_last_returned_value(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "compute", sig("q"), DC_FUNCTION(return_10), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "compute", sig("q"), DC_FUNCTION(return_20), NULL, NULL, NULL));
    add_recorder("compute", record_1);
    const dc_execute_options last = {.accumulator = DC_ACCUMULATE_LAST};
    dc_result result;
    assert_ok(dc_table_execute_with(table, "compute", NULL, 0, &last, &result));
    assert_call_log(10, 20, 1);
    assert_true(result.has_return_value);
    assert_value_equal(dc_int64(20), result.return_value, "last return value");
    assert_int_equal(result.return_count, 2);
}

static void all_accumulator_collects_every_returned_value_in_order(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "compute", sig("q"), DC_FUNCTION(return_30), NULL, NULL, NULL));
    add_recorder("compute", record_1);
    assert_ok(dc_table_add(table, "compute", sig("q"), DC_FUNCTION(return_10), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "compute", sig("i"), DC_FUNCTION(return_int32_40), NULL, NULL,
                           NULL));
    dc_value results[5];
    for (size_t i = 0; i < ARRAY_COUNT(results); i++) {
        results[i] = dc_int8(-1);
    }
    const dc_execute_options all = {
        .accumulator = DC_ACCUMULATE_ALL, .results = results, .results_capacity = 5};
    dc_result result;
    assert_ok(dc_table_execute_with(table, "compute", NULL, 0, &all, &result));
    assert_int_equal(result.handled, 4);
    assert_int_equal(result.return_count, 3);
    assert_value_equal(dc_int64(30), results[0], "results[0]");
    assert_value_equal(dc_int64(10), results[1], "results[1]");
    assert_value_equal(dc_int32(40), results[2], "results[2]");
    assert_value_equal(dc_int8(-1), results[3], "results[3] (past the returned values)");
}

static void all_accumulator_stores_up_to_capacity_and_counts_every_value(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "compute", sig("q"), DC_FUNCTION(return_10), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "compute", sig("q"), DC_FUNCTION(return_20), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "compute", sig("q"), DC_FUNCTION(return_30), NULL, NULL, NULL));
    dc_value results[3] = {dc_int8(-1), dc_int8(-1), dc_int8(-1)};
    dc_execute_options all = {
        .accumulator = DC_ACCUMULATE_ALL, .results = results, .results_capacity = 2};
    dc_result result;
    assert_ok(dc_table_execute_with(table, "compute", NULL, 0, &all, &result));
    assert_call_log(10, 20, 30);
    assert_int_equal(result.handled, 3);
    assert_int_equal(result.return_count, 3);
    assert_value_equal(dc_int64(10), results[0], "results[0]");
    assert_value_equal(dc_int64(20), results[1], "results[1]");
    assert_value_equal(dc_int8(-1), results[2], "results[2] (beyond capacity)");

    /* No buffer at all: values are counted only. */
    all.results = NULL, all.results_capacity = 0;
    assert_ok(dc_table_execute_with(table, "compute", NULL, 0, &all, &result));
    assert_int_equal(result.return_count, 3);
}

static void true_handled_accumulator_stops_at_the_first_true(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "key-press", sig("B"), DC_FUNCTION(return_false_1), NULL, NULL,
                           NULL));
    assert_ok(dc_table_add(table, "key-press", sig("B"), DC_FUNCTION(return_true_2), NULL, NULL,
                           NULL));
    assert_ok(dc_table_add(table, "key-press", sig("B"), DC_FUNCTION(return_false_3), NULL, NULL,
                           NULL));
    assert_ok(dc_table_add(table, "key-press", sig("B"), DC_FUNCTION(return_true_4), NULL, NULL,
                           NULL));
    const dc_execute_options true_handled = {.accumulator = DC_ACCUMULATE_TRUE_HANDLED};
    dc_result result;
    assert_ok(dc_table_execute_with(table, "key-press", NULL, 0, &true_handled, &result));
    assert_call_log(1, 2);
    assert_int_equal(result.handled, 2);
    assert_true(result.has_return_value);
    assert_value_equal(dc_bool(true), result.return_value, "true-handled result");
}

static void true_handled_accumulator_gives_the_last_false_when_nothing_handles(void **state) {
    (void)state;
    assert_ok(dc_table_add(table, "key-press", sig("B"), DC_FUNCTION(return_false_1), NULL, NULL,
                           NULL));
    add_recorder("key-press", record_5);
    assert_ok(dc_table_add(table, "key-press", sig("B"), DC_FUNCTION(return_false_3), NULL, NULL,
                           NULL));
    const dc_execute_options true_handled = {.accumulator = DC_ACCUMULATE_TRUE_HANDLED};
    dc_result result;
    assert_ok(dc_table_execute_with(table, "key-press", NULL, 0, &true_handled, &result));
    assert_call_log(1, 5, 3);
    assert_int_equal(result.handled, 3);
    assert_true(result.has_return_value);
    assert_value_equal(dc_bool(false), result.return_value, "true-handled result");
}

/* ---- unknown events, and string against id ----------------------------------------------- */

static void unknown_event_is_ok_with_nothing_handled(void **state) {
    (void)state;
    add_recorder("known", record_1);
    dc_result result;
    memset(&result, 0x5a, sizeof result);
    assert_ok(dc_table_execute(table, "never-registered", NULL, 0, &result));
    assert_int_equal(result.handled, 0);
    assert_int_equal(result.queued, 0);
    assert_int_equal(result.return_count, 0);
    assert_false(result.has_return_value);
    assert_false(result.stopped);
    assert_nothing_called();
    assert_ok(dc_table_execute(table, "never-registered", NULL, 0, NULL));

    /* An interned event that has no handler (any more) is the same. */
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "interned-only", &id));
    assert_ok(dc_table_execute_id(table, id, NULL, 0, &result));
    assert_int_equal(result.handled, 0);
    dc_handler_id handler = add_recorder("emptied", record_2);
    assert_ok(dc_table_remove(table, handler));
    assert_ok(dc_table_execute(table, "emptied", NULL, 0, &result));
    assert_int_equal(result.handled, 0);
    assert_nothing_called();
}

static void require_handler_makes_an_unhandled_event_an_error(void **state) {
    (void)state;
    const dc_execute_options require = {.flags = DC_EXECUTE_REQUIRE_HANDLER};
    dc_result result;
    result.handled = 77;
    assert_failure(dc_table_execute_with(table, "nobody-listens", NULL, 0, &require, &result),
                   DC_ERR_NO_HANDLER, "nobody-listens");
    assert_int_equal(result.handled, 77);
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "interned-only", &id));
    assert_failure(dc_table_execute_id_with(table, id, NULL, 0, &require, &result),
                   DC_ERR_NO_HANDLER, "interned-only");

    add_recorder("listened", record_1);
    assert_ok(dc_table_execute_with(table, "listened", NULL, 0, &require, &result));
    assert_int_equal(result.handled, 1);
    assert_call_log(1);
}

static void require_handler_fails_when_every_handler_is_blocked(void **state) {
    (void)state;
    dc_handler_id id = add_recorder("blocked", record_1);
    assert_ok(dc_table_block(table, id));
    const dc_execute_options require = {.flags = DC_EXECUTE_REQUIRE_HANDLER};
    assert_failure(dc_table_execute_with(table, "blocked", NULL, 0, &require, NULL),
                   DC_ERR_NO_HANDLER, "blocked");
    assert_nothing_called();
}

static void execute_by_string_and_by_id_do_the_same(void **state) {
    (void)state;
    add_recorder("compute", record_1);
    assert_ok(dc_table_add(table, "compute", sig("q"), DC_FUNCTION(return_20), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "compute", sig("vqq"), DC_FUNCTION(listen_2), NULL, NULL, NULL));
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "compute", &id));
    const dc_value values[] = {dc_int64(6), dc_int64(7)};

    forget_what_was_heard();
    dc_result by_name;
    assert_ok(dc_table_execute(table, "compute", values, 2, &by_name));
    assert_call_log(1, 20, 2);
    assert_int_equal(heard[2][0], 6);
    assert_int_equal(heard[2][1], 7);

    forget_what_was_heard();
    reset_call_log();
    dc_result by_id;
    assert_ok(dc_table_execute_id(table, id, values, 2, &by_id));
    assert_call_log(1, 20, 2);
    assert_int_equal(heard[2][0], 6);
    assert_int_equal(heard[2][1], 7);

    assert_int_equal(by_id.handled, by_name.handled);
    assert_int_equal(by_id.return_count, by_name.return_count);
    assert_int_equal(by_id.has_return_value, by_name.has_return_value);
    assert_value_equal(by_name.return_value, by_id.return_value, "by id against by name");

    const dc_execute_options last = {.accumulator = DC_ACCUMULATE_LAST};
    assert_ok(dc_table_execute_id_with(table, id, values, 2, &last, &by_id));
    assert_value_equal(dc_int64(20), by_id.return_value, "by id with options");
}

static void execute_of_an_id_never_issued_is_not_found(void **state) {
    (void)state;
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "tick", &id));
    add_recorder("tick", record_1);
    dc_result result;
    result.handled = 77;
    assert_fails(dc_table_execute_id(table, 0, NULL, 0, &result), DC_ERR_NOT_FOUND);
    assert_fails(dc_table_execute_id(table, id + 1, NULL, 0, &result), DC_ERR_NOT_FOUND);
    assert_fails(dc_table_execute_id_with(table, id + 7, NULL, 0, NULL, &result),
                   DC_ERR_NOT_FOUND);
    assert_int_equal(result.handled, 77);
    assert_nothing_called();
}

/* ---- once ---------------------------------------------------------------------------- */

static void once_handler_runs_once_and_is_then_gone(void **state) {
    (void)state;
    static int destroys;
    destroys = 0;
    const dc_handler_options once = handler_options(DC_HANDLER_ONCE, &destroys);
    add_recorder("tick", record_1);
    dc_handler_id id = add_recorder_with("tick", record_2, &once);
    add_recorder("tick", record_3);
    assert_true(dc_table_contains(table, id));

    dc_result result = execute_ok("tick", NULL, 0);
    assert_int_equal(result.handled, 3);
    assert_call_log(1, 2, 3);
    assert_false(dc_table_contains(table, id));
    assert_int_equal(handler_count("tick"), 2);
    assert_int_equal(destroys, 1);

    reset_call_log();
    result = execute_ok("tick", NULL, 0);
    assert_int_equal(result.handled, 2);
    assert_call_log(1, 3);
    assert_fails(dc_table_remove(table, id), DC_ERR_NOT_FOUND);
    dc_table_destroy(table);
    table = NULL;
    assert_int_equal(destroys, 1);
}

static void once_handler_alone_leaves_the_event_without_handlers(void **state) {
    (void)state;
    const dc_handler_options once = handler_options(DC_HANDLER_ONCE, NULL);
    add_recorder_with("tick", record_1, &once);
    execute_ok("tick", NULL, 0);
    assert_int_equal(handler_count("tick"), 0);
    size_t events = 99;
    assert_ok(dc_table_events(table, NULL, 0, &events));
    assert_int_equal(events, 0);
    dc_result result = execute_ok("tick", NULL, 0);
    assert_int_equal(result.handled, 0);
    assert_call_log(1);
}

static void once_handler_reexecuting_its_own_event_runs_only_once(void **state) {
    (void)state;
    static int destroys;
    destroys = 0;
    const dc_handler_options once = handler_options(DC_HANDLER_ONCE, &destroys);
    assert_ok(dc_table_add(table, "again", sig("v"), DC_FUNCTION(once_reexecuting), NULL, &once,
                           NULL));
    add_recorder("again", record_2);
    nested_status = DC_ERR_STATE;
    memset(&nested_result, 0x5a, sizeof nested_result);
    dc_result result = execute_ok("again", NULL, 0);
    /* The nested execute runs record_2 only; then the outer one goes on to it. */
    assert_call_log(1, 2, 2);
    assert_int_equal(nested_status, DC_OK);
    assert_int_equal(nested_result.handled, 1);
    assert_int_equal(result.handled, 2);
    assert_int_equal(destroys, 1);
    assert_int_equal(handler_count("again"), 1);
}

/* ---- blocking ------------------------------------------------------------------------------ */

static void blocked_handler_is_not_called_until_unblocked(void **state) {
    (void)state;
    add_recorder("tick", record_1);
    dc_handler_id id = add_recorder("tick", record_2);
    add_recorder("tick", record_3);
    assert_ok(dc_table_block(table, id));
    dc_result result = execute_ok("tick", NULL, 0);
    assert_int_equal(result.handled, 2);
    assert_call_log(1, 3);
    /* Blocked handlers are still registered and counted. */
    assert_true(dc_table_contains(table, id));
    assert_int_equal(handler_count("tick"), 3);

    assert_ok(dc_table_unblock(table, id));
    reset_call_log();
    execute_ok("tick", NULL, 0);
    assert_call_log(1, 2, 3);
}

static void blocking_is_counted(void **state) {
    (void)state;
    dc_handler_id id = add_recorder("tick", record_1);
    assert_ok(dc_table_block(table, id));
    assert_ok(dc_table_block(table, id));
    assert_ok(dc_table_unblock(table, id));
    execute_ok("tick", NULL, 0);
    assert_nothing_called();
    assert_ok(dc_table_unblock(table, id));
    execute_ok("tick", NULL, 0);
    assert_call_log(1);
}

static void unblocking_a_handler_that_is_not_blocked_is_a_state_error(void **state) {
    (void)state;
    dc_handler_id id = add_recorder("tick", record_1);
    char id_string[32];
    assert_failure(dc_table_unblock(table, id), DC_ERR_STATE,
                   id_text(id, id_string, sizeof id_string));
    assert_ok(dc_table_block(table, id));
    assert_ok(dc_table_unblock(table, id));
    assert_fails(dc_table_unblock(table, id), DC_ERR_STATE);
    /* The failed unblocks did not leave a negative count behind. */
    assert_ok(dc_table_block(table, id));
    execute_ok("tick", NULL, 0);
    assert_nothing_called();
    assert_ok(dc_table_unblock(table, id));
    execute_ok("tick", NULL, 0);
    assert_call_log(1);
}

static void blocked_handler_can_be_removed_and_its_destroy_notify_runs(void **state) {
    (void)state;
    static int destroys;
    destroys = 0;
    const dc_handler_options options = handler_options(0, &destroys);
    dc_handler_id id = add_recorder_with("tick", record_1, &options);
    assert_ok(dc_table_block(table, id));
    assert_ok(dc_table_remove(table, id));
    assert_int_equal(destroys, 1);
    assert_fails(dc_table_unblock(table, id), DC_ERR_NOT_FOUND);
    assert_int_equal(handler_count("tick"), 0);
}

/* ---- removal ---------------------------------------------------------------------------- */

static void remove_by_id_runs_the_destroy_notify_once_before_returning(void **state) {
    (void)state;
    static int destroys[2];
    memset(destroys, 0, sizeof destroys);
    const dc_handler_options first = handler_options(0, &destroys[0]);
    const dc_handler_options second = handler_options(0, &destroys[1]);
    dc_handler_id a = add_recorder_with("tick", record_1, &first);
    add_recorder_with("tick", record_2, &second);
    assert_ok(dc_table_remove(table, a));
    assert_int_equal(destroys[0], 1);
    assert_int_equal(destroys[1], 0);
    execute_ok("tick", NULL, 0);
    assert_call_log(2);
    assert_fails(dc_table_remove(table, a), DC_ERR_NOT_FOUND);
    dc_table_destroy(table);
    table = NULL;
    assert_int_equal(destroys[0], 1);
    assert_int_equal(destroys[1], 1);
}

static void removing_an_unknown_id_changes_nothing(void **state) {
    (void)state;
    static int destroys;
    destroys = 0;
    const dc_handler_options options = handler_options(0, &destroys);
    dc_handler_id a = add_recorder_with("tick", record_1, &options);
    dc_handler_id b = add_recorder_with("tick", record_2, &options);
    char unknown[32];
    assert_failure(dc_table_remove(table, b + 1000), DC_ERR_NOT_FOUND,
                   id_text(b + 1000, unknown, sizeof unknown));
    assert_fails(dc_table_remove(table, UINT64_MAX), DC_ERR_NOT_FOUND);
    assert_int_equal(destroys, 0);
    assert_int_equal(handler_count("tick"), 2);
    assert_true(dc_table_contains(table, a));
    assert_true(dc_table_contains(table, b));
    execute_ok("tick", NULL, 0);
    assert_call_log(1, 2);
}

static void remove_target_removes_its_handlers_on_every_event_only(void **state) {
    (void)state;
    int doomed = 1, survivor = 2;
    static int doomed_destroys, survivor_destroys, unbound_destroys;
    doomed_destroys = survivor_destroys = unbound_destroys = 0;
    const dc_handler_options doomed_options = handler_options(0, &doomed_destroys);
    const dc_handler_options survivor_options = handler_options(0, &survivor_destroys);
    const dc_handler_options unbound_options = handler_options(0, &unbound_destroys);
    dc_signature *v_ptr = sig("v^v");
    dc_handler_id doomed_ids[4] = {0};
    assert_ok(dc_table_add(table, "a", v_ptr, DC_FUNCTION(record_target), &doomed,
                           &doomed_options, &doomed_ids[0]));
    assert_ok(dc_table_add(table, "a", v_ptr, DC_FUNCTION(record_target), &survivor,
                           &survivor_options, NULL));
    assert_ok(dc_table_add(table, "a", v_ptr, DC_FUNCTION(record_target_plus_100), &doomed,
                           &doomed_options, &doomed_ids[1]));
    assert_ok(dc_table_add(table, "b", v_ptr, DC_FUNCTION(record_target), &doomed,
                           &doomed_options, &doomed_ids[2]));
    assert_ok(dc_table_add(table, "c", v_ptr, DC_FUNCTION(record_target), &doomed,
                           &doomed_options, &doomed_ids[3]));
    add_recorder_with("a", record_3, &unbound_options);
    add_recorder_with("c", record_4, &unbound_options);

    size_t removed = 99;
    assert_ok(dc_table_remove_target(table, &doomed, &removed));
    assert_int_equal(removed, 4);
    assert_int_equal(doomed_destroys, 4);
    assert_int_equal(survivor_destroys, 0);
    assert_int_equal(unbound_destroys, 0);
    for (size_t i = 0; i < ARRAY_COUNT(doomed_ids); i++) {
        assert_false(dc_table_contains(table, doomed_ids[i]));
    }
    assert_int_equal(handler_count("a"), 2);
    assert_int_equal(handler_count("b"), 0);
    assert_int_equal(handler_count("c"), 1);
    execute_ok("a", NULL, 0);
    execute_ok("b", NULL, 0);
    execute_ok("c", NULL, 0);
    assert_call_log(2, 3, 4);

    /* Again: nothing left to remove, which is not an error. */
    removed = 99;
    assert_ok(dc_table_remove_target(table, &doomed, &removed));
    assert_int_equal(removed, 0);
    assert_ok(dc_table_remove_target(table, &survivor, NULL));
    assert_int_equal(survivor_destroys, 1);
    assert_int_equal(handler_count("a"), 1);
    dc_table_destroy(table);
    table = NULL;
    assert_int_equal(doomed_destroys, 4);
    assert_int_equal(survivor_destroys, 1);
    assert_int_equal(unbound_destroys, 2);
}

static void remove_event_removes_that_events_handlers_by_name_and_by_id(void **state) {
    (void)state;
    static int destroys, other_destroys;
    destroys = other_destroys = 0;
    const dc_handler_options options = handler_options(0, &destroys);
    const dc_handler_options other_options = handler_options(0, &other_destroys);
    add_recorder_with("a", record_1, &options);
    add_recorder_with("a", record_2, &options);
    add_recorder_with("b", record_3, &options);
    add_recorder_with("other", record_4, &other_options);

    size_t removed = 99;
    assert_ok(dc_table_remove_event(table, "a", &removed));
    assert_int_equal(removed, 2);
    assert_int_equal(destroys, 2);
    assert_int_equal(handler_count("a"), 0);

    dc_event_id b = 0;
    assert_ok(dc_table_intern(table, "b", &b));
    assert_ok(dc_table_remove_event_id(table, b, &removed));
    assert_int_equal(removed, 1);
    assert_int_equal(destroys, 3);

    /* Nothing left, an unknown name, an unknown id. */
    assert_ok(dc_table_remove_event(table, "a", &removed));
    assert_int_equal(removed, 0);
    assert_ok(dc_table_remove_event(table, "never-seen", &removed));
    assert_int_equal(removed, 0);
    removed = 99;
    assert_fails(dc_table_remove_event_id(table, b + 100, &removed), DC_ERR_NOT_FOUND);
    assert_fails(dc_table_remove_event_id(table, 0, &removed), DC_ERR_NOT_FOUND);
    assert_int_equal(removed, 99);
    assert_ok(dc_table_remove_event(table, "a", NULL));

    execute_ok("a", NULL, 0);
    execute_ok("b", NULL, 0);
    execute_ok("other", NULL, 0);
    assert_call_log(4);
    assert_int_equal(other_destroys, 0);
    /* The event can be used again. */
    add_recorder("a", record_5);
    execute_ok("a", NULL, 0);
    assert_call_log(4, 5);
}

static void remove_all_removes_every_handler_and_the_table_stays_usable(void **state) {
    (void)state;
    static int destroys;
    destroys = 0;
    int target = 6;
    const dc_handler_options options = handler_options(0, &destroys);
    const dc_handler_options once = handler_options(DC_HANDLER_ONCE, &destroys);
    dc_handler_id old = add_recorder_with("a", record_1, &options);
    dc_handler_id blocked = add_recorder_with("b", record_2, &options);
    assert_ok(dc_table_block(table, blocked));
    add_recorder_with("c", record_3, &once);
    assert_ok(dc_table_add(table, "c", sig("v^v"), DC_FUNCTION(record_target), &target, &options,
                           NULL));
    size_t removed = 99;
    assert_ok(dc_table_remove_all(table, &removed));
    assert_int_equal(removed, 4);
    assert_int_equal(destroys, 4);
    size_t events = 99;
    assert_ok(dc_table_events(table, NULL, 0, &events));
    assert_int_equal(events, 0);
    execute_ok("a", NULL, 0);
    execute_ok("b", NULL, 0);
    execute_ok("c", NULL, 0);
    assert_nothing_called();

    assert_ok(dc_table_remove_all(table, &removed));
    assert_int_equal(removed, 0);
    assert_ok(dc_table_remove_all(table, NULL));

    dc_handler_id fresh = add_recorder("a", record_1);
    assert_true(fresh != old && fresh != blocked);
    execute_ok("a", NULL, 0);
    assert_call_log(1);
    dc_table_destroy(table);
    table = NULL;
    assert_int_equal(destroys, 4);
}

static void destroying_the_table_runs_each_remaining_destroy_notify_once(void **state) {
    (void)state;
    static int destroys[4];
    memset(destroys, 0, sizeof destroys);
    int target = 1;
    const dc_handler_options options[4] = {
        handler_options(0, &destroys[0]), handler_options(DC_HANDLER_ONCE, &destroys[1]),
        handler_options(0, &destroys[2]), handler_options(DC_HANDLER_FIRST, &destroys[3]),
    };
    add_recorder_with("a", record_1, &options[0]);
    add_recorder_with("a", record_2, &options[1]);
    dc_handler_id blocked = add_recorder_with("b", record_3, &options[2]);
    assert_ok(dc_table_block(table, blocked));
    assert_ok(dc_table_block(table, blocked));
    assert_ok(dc_table_add(table, "c", sig("v^v"), DC_FUNCTION(record_target), &target,
                           &options[3], NULL));
    dc_table_destroy(table);
    table = NULL;
    for (size_t i = 0; i < ARRAY_COUNT(destroys); i++) {
        if (destroys[i] != 1) {
            fail_msg("handler %zu: destroy notify ran %d times, expected once", i, destroys[i]);
        }
    }
    assert_nothing_called();
}

/* ---- introspection ------------------------------------------------------------------------ */

static void handler_count_counts_by_name_and_by_id(void **state) {
    (void)state;
    add_recorder("a", record_1);
    add_recorder("a", record_2);
    dc_handler_id blocked = add_recorder("a", record_3);
    assert_ok(dc_table_block(table, blocked));
    add_recorder("b", record_1);
    dc_event_id a = 0, empty = 0;
    assert_ok(dc_table_intern(table, "a", &a));
    assert_ok(dc_table_intern(table, "empty", &empty));

    size_t count = 99;
    assert_ok(dc_table_handler_count(table, "a", &count));
    assert_int_equal(count, 3);
    count = 99;
    assert_ok(dc_table_handler_count_id(table, a, &count));
    assert_int_equal(count, 3);
    count = 99;
    assert_ok(dc_table_handler_count(table, "b", &count));
    assert_int_equal(count, 1);
    count = 99;
    assert_ok(dc_table_handler_count(table, "unknown", &count));
    assert_int_equal(count, 0);
    count = 99;
    assert_ok(dc_table_handler_count_id(table, empty, &count));
    assert_int_equal(count, 0);
}

/* The header lists only DC_ERR_NULL_ARGUMENT for dc_table_handler_count_id, so an
 * id the table never issued counts 0 handlers, as an unknown name does. */
static void handler_count_of_an_id_never_issued_is_not_found(void **state) {
    (void)state;
    add_recorder("a", record_1);
    dc_event_id a = 0;
    assert_ok(dc_table_intern(table, "a", &a));
    size_t count = 99;
    assert_fails(dc_table_handler_count_id(table, a + 50, &count), DC_ERR_NOT_FOUND);
    assert_int_equal(count, 99);
    assert_fails(dc_table_handler_count_id(table, 0, &count), DC_ERR_NOT_FOUND);
    assert_int_equal(count, 99);
}

static void events_lists_events_with_handlers_in_interning_order(void **state) {
    (void)state;
    dc_event_id id = 0;
    assert_ok(dc_table_intern(table, "first", &id));
    assert_ok(dc_table_intern(table, "no-handlers", &id));
    add_recorder("third", record_1);
    add_recorder("first", record_1);
    add_recorder("fourth", record_1);
    add_recorder("third", record_2);

    const char *names[5] = {"-", "-", "-", "-", "-"};
    size_t count = 99;
    assert_ok(dc_table_events(table, names, 5, &count));
    assert_int_equal(count, 3);
    assert_string_equal(names[0], "first");
    assert_string_equal(names[1], "third");
    assert_string_equal(names[2], "fourth");
    assert_string_equal(names[3], "-");

    const char *few[3] = {"-", "-", "-"};
    count = 99;
    assert_ok(dc_table_events(table, few, 2, &count));
    assert_int_equal(count, 3);
    assert_string_equal(few[0], "first");
    assert_string_equal(few[1], "third");
    assert_string_equal(few[2], "-");

    count = 99;
    assert_ok(dc_table_events(table, NULL, 0, &count));
    assert_int_equal(count, 3);

    size_t removed = 0;
    assert_ok(dc_table_remove_event(table, "first", &removed));
    count = 99;
    assert_ok(dc_table_events(table, names, 5, &count));
    assert_int_equal(count, 2);
    assert_string_equal(names[0], "third");
    assert_string_equal(names[1], "fourth");
}

/* ---- bad input ------------------------------------------------------------------------- */

/* Handlers every bad-input test starts from, and the state they must be left in. */
static void add_bad_input_witnesses(void) {
    add_recorder("tick", record_1);
    add_recorder("tick", record_2);
    add_recorder("tock", record_3);
}

static void assert_witnesses_untouched(void) {
    assert_nothing_called();
    assert_int_equal(handler_count("tick"), 2);
    assert_int_equal(handler_count("tock"), 1);
    execute_ok("tick", NULL, 0);
    execute_ok("tock", NULL, 0);
    assert_call_log(1, 2, 3);
}

static void null_arguments_to_create_intern_and_event_name_are_reported(void **state) {
    (void)state;
    assert_failure(dc_table_create("x", NULL, NULL), DC_ERR_NULL_ARGUMENT, "out");

    dc_event_id id = 4242;
    assert_failure(dc_table_intern(NULL, "a", &id), DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_intern(table, NULL, &id), DC_ERR_NULL_ARGUMENT, "event");
    assert_failure(dc_table_intern(table, "a", NULL), DC_ERR_NULL_ARGUMENT, "out");
    assert_int_equal(id, 4242);

    assert_ok(dc_table_intern(table, "a", &id));
    const char *name = "untouched";
    assert_failure(dc_table_event_name(NULL, id, &name), DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_event_name(table, id, NULL), DC_ERR_NULL_ARGUMENT, "out");
    assert_string_equal(name, "untouched");
    /* The NULL intern interned nothing: "b" is the second event. */
    dc_event_id b = 0;
    assert_ok(dc_table_intern(table, "b", &b));
    assert_int_equal(b, id + 1);
}

static void null_arguments_to_add_are_reported_and_nothing_is_registered(void **state) {
    (void)state;
    add_bad_input_witnesses();
    static int destroys;
    destroys = 0;
    const dc_handler_options options = handler_options(0, &destroys);
    dc_signature *v = sig("v");
    dc_handler_id id = 4242;
    assert_failure(dc_table_add(NULL, "tick", v, DC_FUNCTION(record_4), NULL, &options, &id),
                   DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_add(table, NULL, v, DC_FUNCTION(record_4), NULL, &options, &id),
                   DC_ERR_NULL_ARGUMENT, "event");
    assert_failure(dc_table_add(table, "tick", NULL, DC_FUNCTION(record_4), NULL, &options, &id),
                   DC_ERR_NULL_ARGUMENT, "signature");
    assert_failure(dc_table_add(table, "tick", v, NULL, NULL, &options, &id),
                   DC_ERR_NULL_ARGUMENT, "function");

    dc_event_id tick = 0;
    assert_ok(dc_table_intern(table, "tick", &tick));
    assert_failure(dc_table_add_id(NULL, tick, v, DC_FUNCTION(record_4), NULL, &options, &id),
                   DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_add_id(table, tick, NULL, DC_FUNCTION(record_4), NULL, &options,
                                   &id),
                   DC_ERR_NULL_ARGUMENT, "signature");
    assert_failure(dc_table_add_id(table, tick, v, NULL, NULL, &options, &id),
                   DC_ERR_NULL_ARGUMENT, "function");
    assert_fails(dc_table_add_id(table, 0, v, DC_FUNCTION(record_4), NULL, &options, &id),
                   DC_ERR_NOT_FOUND);
    assert_fails(dc_table_add_id(table, tick + 100, v, DC_FUNCTION(record_4), NULL, &options,
                                   &id),
                   DC_ERR_NOT_FOUND);

    assert_int_equal(id, 4242);
    assert_int_equal(destroys, 0);
    assert_witnesses_untouched();
}

static void unknown_handler_flags_are_rejected(void **state) {
    (void)state;
    add_bad_input_witnesses();
    static int destroys;
    destroys = 0;
    const dc_handler_options unknown = handler_options(1u << 31, &destroys);
    dc_handler_id id = 4242;
    assert_fails(dc_table_add(table, "tick", sig("v"), DC_FUNCTION(record_4), NULL, &unknown,
                                &id),
                   DC_ERR_INVALID_ARGUMENT);
    const dc_handler_options next_bit = handler_options(DC__HANDLER_ALLOW_DUPLICATE << 1, NULL);
    assert_fails(dc_table_add(table, "tick", sig("v"), DC_FUNCTION(record_4), NULL, &next_bit,
                                &id),
                   DC_ERR_INVALID_ARGUMENT);
    assert_int_equal(id, 4242);
    assert_int_equal(destroys, 0);
    assert_witnesses_untouched();
}

static void null_arguments_to_remove_block_and_contains_are_reported(void **state) {
    (void)state;
    add_bad_input_witnesses();
    dc_handler_id id = add_recorder("other", record_4);
    int target = 0;
    size_t removed = 99;
    assert_failure(dc_table_remove(NULL, id), DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_remove_target(NULL, &target, &removed), DC_ERR_NULL_ARGUMENT,
                   "table");
    assert_failure(dc_table_remove_target(table, NULL, &removed), DC_ERR_NULL_ARGUMENT,
                   "target");
    assert_failure(dc_table_remove_event(NULL, "tick", &removed), DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_remove_event(table, NULL, &removed), DC_ERR_NULL_ARGUMENT, "event");
    assert_failure(dc_table_remove_event_id(NULL, 1, &removed), DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_remove_all(NULL, &removed), DC_ERR_NULL_ARGUMENT, "table");
    assert_int_equal(removed, 99);
    assert_failure(dc_table_block(NULL, id), DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_unblock(NULL, id), DC_ERR_NULL_ARGUMENT, "table");
    assert_false(dc_table_contains(NULL, id));
    assert_true(dc_table_contains(table, id));
    assert_ok(dc_table_remove(table, id));
    assert_witnesses_untouched();
}

static void null_arguments_to_introspection_are_reported(void **state) {
    (void)state;
    add_bad_input_witnesses();
    size_t count = 99;
    assert_failure(dc_table_handler_count(NULL, "tick", &count), DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_handler_count(table, NULL, &count), DC_ERR_NULL_ARGUMENT, "event");
    assert_failure(dc_table_handler_count(table, "tick", NULL), DC_ERR_NULL_ARGUMENT, "out");
    assert_failure(dc_table_handler_count_id(NULL, 1, &count), DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_handler_count_id(table, 1, NULL), DC_ERR_NULL_ARGUMENT, "out");
    const char *names[2] = {"-", "-"};
    assert_failure(dc_table_events(NULL, names, 2, &count), DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_events(table, names, 2, NULL), DC_ERR_NULL_ARGUMENT, "count");
    assert_int_equal(count, 99);
    assert_string_equal(names[0], "-");
    assert_witnesses_untouched();
}

static void null_arguments_to_execute_are_reported_and_nothing_runs(void **state) {
    (void)state;
    add_bad_input_witnesses();
    dc_event_id tick = 0;
    assert_ok(dc_table_intern(table, "tick", &tick));
    dc_result result;
    memset(&result, 0, sizeof result);
    result.handled = 77;
    assert_failure(dc_table_execute(NULL, "tick", NULL, 0, &result), DC_ERR_NULL_ARGUMENT,
                   "table");
    assert_failure(dc_table_execute(table, NULL, NULL, 0, &result), DC_ERR_NULL_ARGUMENT,
                   "event");
    assert_failure(dc_table_execute(table, "tick", NULL, 2, &result), DC_ERR_NULL_ARGUMENT,
                   "argument");
    assert_failure(dc_table_execute_id(NULL, tick, NULL, 0, &result), DC_ERR_NULL_ARGUMENT,
                   "table");
    assert_failure(dc_table_execute_id(table, tick, NULL, 1, &result), DC_ERR_NULL_ARGUMENT,
                   "argument");
    assert_failure(dc_table_execute_with(NULL, "tick", NULL, 0, NULL, &result),
                   DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_execute_with(table, NULL, NULL, 0, NULL, &result),
                   DC_ERR_NULL_ARGUMENT, "event");
    assert_failure(dc_table_execute_id_with(NULL, tick, NULL, 0, NULL, &result),
                   DC_ERR_NULL_ARGUMENT, "table");
    assert_int_equal(result.handled, 77);
    assert_witnesses_untouched();
}

static void bad_execute_options_are_rejected_and_nothing_runs(void **state) {
    (void)state;
    add_bad_input_witnesses();
    dc_result result;
    memset(&result, 0, sizeof result);
    result.handled = 77;
    const dc_execute_options unknown_accumulator = {.accumulator = (dc_accumulator)99};
    assert_fails(dc_table_execute_with(table, "tick", NULL, 0, &unknown_accumulator, &result),
                   DC_ERR_INVALID_ARGUMENT);
    const dc_execute_options negative_accumulator = {.accumulator = (dc_accumulator)-1};
    assert_fails(dc_table_execute_with(table, "tick", NULL, 0, &negative_accumulator, &result),
                   DC_ERR_INVALID_ARGUMENT);
    const dc_execute_options unknown_flag = {.flags = 1u << 30};
    assert_fails(dc_table_execute_with(table, "tick", NULL, 0, &unknown_flag, &result),
                   DC_ERR_INVALID_ARGUMENT);
    const dc_execute_options all_without_results = {
        .accumulator = DC_ACCUMULATE_ALL, .results = NULL, .results_capacity = 4};
    assert_fails(dc_table_execute_with(table, "tick", NULL, 0, &all_without_results, &result),
                   DC_ERR_INVALID_ARGUMENT);
    dc_event_id tick = 0;
    assert_ok(dc_table_intern(table, "tick", &tick));
    assert_fails(dc_table_execute_id_with(table, tick, NULL, 0, &unknown_flag, &result),
                   DC_ERR_INVALID_ARGUMENT);
    assert_int_equal(result.handled, 77);
    assert_witnesses_untouched();
}

static void stop_emission_outside_an_execute_is_a_state_error(void **state) {
    (void)state;
    add_bad_input_witnesses();
    assert_failure(dc_table_stop_emission(NULL), DC_ERR_NULL_ARGUMENT, "table");
    assert_fails(dc_table_stop_emission(table), DC_ERR_STATE);
    /* Nor does a stop requested outside stop the next execute. */
    dc_result result = execute_ok("tick", NULL, 0);
    assert_false(result.stopped);
    assert_int_equal(result.handled, 2);
    reset_call_log();
    assert_witnesses_untouched();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* creation, names, interning */
        cmocka_unit_test(destroying_a_null_table_does_nothing),
        cmocka_unit_test(table_keeps_its_own_copy_of_its_name),
        cmocka_unit_test(table_without_object_callbacks_runs_handlers),
        table_test(interned_ids_are_dense_from_one_and_stable),
        table_test(event_name_gives_back_the_interned_key),
        table_test(event_name_of_an_id_never_issued_is_not_found),
        /* order and ids */
        table_test(handlers_run_in_registration_order),
        table_test(first_flag_inserts_before_the_existing_handlers),
        table_test(first_flag_on_an_empty_event_runs_the_handler),
        table_test(handler_ids_are_nonzero_and_distinct),
        table_test(handler_ids_are_never_reused_after_removal),
        table_test(stale_ids_never_reach_a_handler_registered_later),
        table_test(zero_is_never_a_valid_handler_id),
        table_test(handler_id_is_valid_after_add_and_invalid_after_remove),
        table_test(add_without_an_out_pointer_still_registers),
        table_test(add_by_id_registers_on_the_interned_event),
        /* duplicates */
        table_test(same_event_function_and_target_twice_keeps_one_handler),
        table_test(duplicate_registration_ignores_its_options),
        table_test(duplicate_registration_keeps_the_original_signature),
        table_test(same_function_on_another_target_or_event_is_a_new_handler),
        table_test(duplicates_are_found_among_many_targets_after_removals),
        table_test(slots_of_removed_handlers_are_reused_unseen_through_their_old_entries),
        table_test(allow_duplicate_registers_the_same_handler_again_unseen_by_the_index),
        table_test(index_stays_right_with_many_handlers_outside_it),
        table_test(a_bool_filled_by_hand_arrives_as_0_or_1),
        table_test(re_registering_after_removal_gives_a_new_id),
        /* bound targets */
        table_test(bound_target_is_parameter_zero_before_the_event_arguments),
        table_test(bound_target_may_be_an_object_pointer_or_string_parameter),
        table_test(target_for_a_non_pointer_parameter_zero_is_a_type_error),
        table_test(bound_handler_taking_only_the_target_ignores_event_arguments),
        table_test(object_argument_reaches_the_handler_as_given_with_balanced_retains),
        /* arity */
        table_test(zero_to_five_arguments_reach_handlers_of_every_arity),
        table_test(missing_arguments_are_zero_false_and_null),
        table_test(strict_handler_with_another_argument_count_fails_before_anything_runs),
        table_test(strict_bound_handler_counts_arguments_after_the_target),
        table_test(execute_strict_requires_every_handler_to_take_exactly_the_arguments),
        /* types */
        table_test(argument_not_fitting_one_handler_fails_the_execute_before_any_handler_runs),
        table_test(removed_handlers_no_longer_constrain_argument_types),
        table_test(once_handler_that_ran_no_longer_constrains_argument_types),
        table_test(integer_arguments_that_fit_are_converted_to_the_parameter_type),
        table_test(negative_integer_does_not_fit_an_unsigned_parameter),
        table_test(float_argument_widens_to_a_double_parameter),
        table_test(extra_arguments_a_handler_does_not_take_are_not_type_checked),
        /* return values */
        table_test(first_handler_returning_a_value_gives_the_result),
        table_test(return_value_keeps_the_handlers_return_type),
        table_test(void_handlers_give_no_return_value),
        table_test(last_accumulator_keeps_the_last_returned_value),
        table_test(all_accumulator_collects_every_returned_value_in_order),
        table_test(all_accumulator_stores_up_to_capacity_and_counts_every_value),
        table_test(true_handled_accumulator_stops_at_the_first_true),
        table_test(true_handled_accumulator_gives_the_last_false_when_nothing_handles),
        /* unknown events, string and id */
        table_test(unknown_event_is_ok_with_nothing_handled),
        table_test(require_handler_makes_an_unhandled_event_an_error),
        table_test(require_handler_fails_when_every_handler_is_blocked),
        table_test(execute_by_string_and_by_id_do_the_same),
        table_test(execute_of_an_id_never_issued_is_not_found),
        /* once */
        table_test(once_handler_runs_once_and_is_then_gone),
        table_test(once_handler_alone_leaves_the_event_without_handlers),
        table_test(once_handler_reexecuting_its_own_event_runs_only_once),
        /* blocking */
        table_test(blocked_handler_is_not_called_until_unblocked),
        table_test(blocking_is_counted),
        table_test(unblocking_a_handler_that_is_not_blocked_is_a_state_error),
        table_test(blocked_handler_can_be_removed_and_its_destroy_notify_runs),
        /* removal */
        table_test(remove_by_id_runs_the_destroy_notify_once_before_returning),
        table_test(removing_an_unknown_id_changes_nothing),
        table_test(remove_target_removes_its_handlers_on_every_event_only),
        table_test(remove_event_removes_that_events_handlers_by_name_and_by_id),
        table_test(remove_all_removes_every_handler_and_the_table_stays_usable),
        table_test(destroying_the_table_runs_each_remaining_destroy_notify_once),
        /* introspection */
        table_test(handler_count_counts_by_name_and_by_id),
        table_test(handler_count_of_an_id_never_issued_is_not_found),
        table_test(events_lists_events_with_handlers_in_interning_order),
        /* bad input */
        table_test(null_arguments_to_create_intern_and_event_name_are_reported),
        table_test(null_arguments_to_add_are_reported_and_nothing_is_registered),
        table_test(unknown_handler_flags_are_rejected),
        table_test(null_arguments_to_remove_block_and_contains_are_reported),
        table_test(null_arguments_to_introspection_are_reported),
        table_test(null_arguments_to_execute_are_reported_and_nothing_runs),
        table_test(bad_execute_options_are_rejected_and_nothing_runs),
        table_test(stop_emission_outside_an_execute_is_a_state_error),
    };
    return cmocka_run_group_tests_name("event tables", tests, NULL, NULL);
}
