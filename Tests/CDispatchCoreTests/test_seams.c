/*
 * test_seams.c — promises where two features meet: an observer beside a
 * destroy notify that destroys the table, struct returns under accumulators
 * beside marshals that decline, table closures beside handlers that return
 * structs, handler ids beside a second table, the observer beside the
 * deepest nesting, and failing calls beside the promise that an error leaves
 * the table unchanged. Each feature's own file tests it alone.
 */
#include <stdint.h>
#include <stdlib.h>

#include "test_support.h"

/* The events a table has interned, counted by asking for ids until one is
 * unknown: a failed call must not have interned a key. */
static size_t interned_events(const dc_table *table) {
    size_t count = 0;
    const char *name = NULL;
    while (dc_table_event_name(table, (dc_event_id)(count + 1), &name) == DC_OK) count++;
    return count;
}

static void nothing(void) {}

/* ---- an observer beside a destroy notify that destroys the table ----------------------- */

/* An observer that must never be called once its destroy notify has run. */
typedef struct watched_observer {
    int told;
    int destroyed;
    int told_after_destroy;
} watched_observer;

static void watching_observer(void *data, dc_table *table, dc_table_change change, dc_event_id event,
                              dc_handler_id handler) {
    (void)table, (void)change, (void)event, (void)handler;
    watched_observer *observer = data;
    observer->told++;
    if (observer->destroyed) observer->told_after_destroy++;
}

static void observer_destroyed(void *data) { ((watched_observer *)data)->destroyed++; }

static void destroy_the_table(void *table) { dc_table_destroy(table); }

typedef enum removal_way { BY_ID, BY_TARGET, BY_EVENT, ALL } removal_way;

static void a_destroy_notify_that_destroys_an_observed_table_during_a_removal_frees_it_once(removal_way way) {
    dc_table *table = create_table("observed");
    watched_observer observer = {0};
    assert_ok(dc_table_set_observer(table, watching_observer, &observer, observer_destroyed));
    dc_signature *signature = create_signature("v^v");
    int target;
    dc_handler_options options = {0, NULL, destroy_the_table, table};
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, "tick", signature, (dc_function)nothing, &target, &options, &id));
    assert_int_equal(observer.told, 1);
    size_t removed = 0;
    switch (way) {
    case BY_ID: assert_ok(dc_table_remove(table, id)); break;
    case BY_TARGET: assert_ok(dc_table_remove_target(table, &target, &removed)); break;
    case BY_EVENT: assert_ok(dc_table_remove_event(table, "tick", &removed)); break;
    case ALL: assert_ok(dc_table_remove_all(table, &removed)); break;
    }
    /* The table is gone; its observer's destroy notify ran once, and the
     * observer was not called after it. */
    assert_int_equal(observer.destroyed, 1);
    assert_int_equal(observer.told_after_destroy, 0);
    dc_signature_release(signature);
}

static void a_removal_by_id_whose_destroy_notify_destroys_the_observed_table_reads_nothing_freed(void **state) {
    (void)state;
    a_destroy_notify_that_destroys_an_observed_table_during_a_removal_frees_it_once(BY_ID);
}

static void removals_by_target_event_and_all_whose_destroy_notify_destroys_the_observed_table_read_nothing_freed(
    void **state) {
    (void)state;
    a_destroy_notify_that_destroys_an_observed_table_during_a_removal_frees_it_once(BY_TARGET);
    a_destroy_notify_that_destroys_an_observed_table_during_a_removal_frees_it_once(BY_EVENT);
    a_destroy_notify_that_destroys_an_observed_table_during_a_removal_frees_it_once(ALL);
}

/* ---- a forwarder of an impossible size ---------------------------------------------------- */

static void a_forwarder_of_more_slots_than_the_limit_fails_with_a_status(void **state) {
    (void)state;
    const char *encodings[] = {"v^v"};
    dc_forwarder *forwarder = (dc_forwarder *)(uintptr_t)1;
    size_t counts[] = {SIZE_MAX, SIZE_MAX / 2, (size_t)DC_MAX_FORWARDER_SLOTS + 1};
    for (size_t i = 0; i < ARRAY_COUNT(counts); i++) {
        const char *primed = dc_test_prime_error_message();
        assert_status(dc_forwarder_create(encodings, counts[i], &forwarder), DC_ERR_INVALID_ARGUMENT);
        assert_string_not_equal(dc_last_error_message(), primed);
        assert_ptr_equal(forwarder, (dc_forwarder *)(uintptr_t)1);
    }
}

/* ---- struct returns under accumulators, beside marshals that decline -------------------- */

typedef struct long_pair {
    int64_t first, second;
} long_pair;

static long_pair seven_and_eight(void) { return (long_pair){7, 8}; }

static void declining_marshal(void *data, const dc_value *arguments, size_t count, dc_value *result) {
    (void)data, (void)arguments, (void)count;
    /* Writes where it was told to, then declines: what it wrote is not kept. */
    if (result->pointer != NULL) memset(result->pointer, 0x5a, sizeof(long_pair));
    result->type = DC_TYPE_VOID;
}

static void a_kept_struct_return_survives_a_later_marshal_that_declines(void **state) {
    (void)state;
    dc_accumulator accumulators[] = {DC_ACCUMULATE_LAST, DC_ACCUMULATE_TRUE_HANDLED, DC_ACCUMULATE_FIRST};
    for (size_t a = 0; a < ARRAY_COUNT(accumulators); a++) {
        dc_table *table = create_table("structs");
        dc_signature *signature = create_signature("{pair=qq}");
        assert_ok(dc_table_add(table, "e", signature, (dc_function)seven_and_eight, NULL, NULL, NULL));
        assert_ok(dc_table_add_marshal(table, "e", signature, declining_marshal, NULL, NULL, NULL));
        long_pair kept = {0, 0};
        dc_execute_options options = {accumulators[a], 0, NULL, 0, &kept, sizeof kept};
        dc_result result;
        assert_ok(dc_table_execute_with(table, "e", NULL, 0, &options, &result));
        assert_int_equal(result.handled, 2);
        assert_int_equal(result.return_count, 1);
        assert_true(result.has_return_value);
        assert_ptr_equal(result.return_value.pointer, &kept);
        assert_int_equal(kept.first, 7);
        assert_int_equal(kept.second, 8);
        dc_signature_release(signature);
        dc_table_destroy(table);
    }
}

/* ---- the observer at the deepest nesting -------------------------------------------------- */

typedef struct deep_run {
    dc_table *table;
    dc_signature *signature;
    int added, removed;
    unsigned deepest;
    unsigned depth;
    dc_status add_inside_observer;
    bool tried_inside_observer;
    bool changed_at_the_bottom;
} deep_run;

static deep_run deep;

static void counting_observer(void *data, dc_table *table, dc_table_change change, dc_event_id event,
                              dc_handler_id handler) {
    (void)data, (void)event, (void)handler;
    if (change == DC_HANDLER_ADDED) deep.added++;
    if (change == DC_HANDLER_REMOVED) deep.removed++;
    /* Told at the deepest handler's depth: one more change cannot be told
     * of, so it is refused. */
    if (deep.changed_at_the_bottom && !deep.tried_inside_observer) {
        deep.tried_inside_observer = true;
        deep.add_inside_observer = dc_table_add(table, "other", deep.signature, (dc_function)nothing, NULL, NULL, NULL);
    }
}

static void descend(void) {
    deep.depth++;
    if (deep.depth > deep.deepest) deep.deepest = deep.depth;
    dc_status status = dc_table_execute(deep.table, "down", NULL, 0, NULL);
    if (status == DC_ERR_DEPTH && !deep.changed_at_the_bottom) {
        /* The deepest a handler runs: adding and removing must still be told. */
        deep.changed_at_the_bottom = true;
        dc_handler_id id = 0;
        assert_ok(dc_table_add(deep.table, "side", deep.signature, (dc_function)nothing, NULL, NULL, &id));
        assert_ok(dc_table_remove(deep.table, id));
    }
    deep.depth--;
}

static void the_observer_is_told_of_changes_made_by_the_deepest_handler(void **state) {
    (void)state;
    deep = (deep_run){.table = create_table("deep"), .signature = create_signature("v")};
    assert_ok(dc_table_set_observer(deep.table, counting_observer, NULL, NULL));
    assert_ok(dc_table_add(deep.table, "down", deep.signature, (dc_function)descend, NULL, NULL, NULL));
    deep.added = 0;
    assert_ok(dc_table_execute(deep.table, "down", NULL, 0, NULL));
    assert_true(deep.changed_at_the_bottom);
    assert_int_equal(deep.deepest, DC_MAX_EXECUTE_DEPTH);
    assert_int_equal(deep.added, 1);
    assert_int_equal(deep.removed, 1);
    /* Inside that observer call nothing can be told: the add is refused whole. */
    assert_true(deep.tried_inside_observer);
    assert_int_equal(deep.add_inside_observer, DC_ERR_DEPTH);
    size_t count = 1;
    assert_ok(dc_table_handler_count(deep.table, "other", &count));
    assert_int_equal(count, 0);
    dc_table_destroy(deep.table);
    dc_signature_release(deep.signature);
}

/* ---- table closures beside handlers that return structs ----------------------------------- */

typedef struct int_pair {
    int32_t first, second;
} int_pair;

static int pair_handler_runs;

static int_pair one_and_two(void) {
    pair_handler_runs++;
    return (int_pair){1, 2};
}

static dc_status last_closure_error;
static int closure_errors;

static void note_closure_error(const dc_closure *closure, dc_status status, const char *message, void *data) {
    (void)closure, (void)message, (void)data;
    last_closure_error = status;
    closure_errors++;
}

/* A table closure of "e" whose errors are counted, the counts set to 0. */
static dc_closure *closure_noting_errors(dc_table *table, dc_signature *signature) {
    dc_closure *closure = NULL;
    assert_ok(dc_table_closure_create(table, "e", signature, &closure));
    dc_closure_set_error_handler(closure, note_closure_error, NULL);
    pair_handler_runs = 0, closure_errors = 0;
    return closure;
}

/* The call returned zero and reached the error handler with DC_ERR_TYPE,
 * and the handler did not run. */
static void expect_refused_before_the_handler_ran(int returned) {
    assert_int_equal(returned, 0);
    assert_int_equal(closure_errors, 1);
    assert_int_equal(last_closure_error, DC_ERR_TYPE);
    assert_int_equal(pair_handler_runs, 0);
}

/* A handler whose struct return the closure cannot return is refused before
 * it runs, whatever the closure's parameters. */
static void a_table_closure_refuses_a_struct_returning_handler_whatever_its_parameters(void **state) {
    (void)state;
    dc_table *table = create_table("closures");
    dc_signature *handler_signature = create_signature("{pair=ii}");
    assert_ok(dc_table_add(table, "e", handler_signature, (dc_function)one_and_two, NULL, NULL, NULL));

    dc_signature *plain = create_signature("i");
    dc_closure *closure = closure_noting_errors(table, plain);
    int returned = ((int (*)(void))dc_closure_function(closure))();
    expect_refused_before_the_handler_ran(returned);
    dc_closure_destroy(closure);

    dc_signature *with_struct = create_signature("i{one=c}");
    closure = closure_noting_errors(table, with_struct);
    struct {
        char c;
    } one = {'x'};
    returned = ((int (*)(__typeof__(one)))dc_closure_function(closure))(one);
    expect_refused_before_the_handler_ran(returned);
    dc_closure_destroy(closure);

    /* A void closure takes whatever its handlers return. */
    dc_signature *void_signature = create_signature("v");
    closure = closure_noting_errors(table, void_signature);
    ((void (*)(void))dc_closure_function(closure))();
    assert_int_equal(closure_errors, 0);
    assert_int_equal(pair_handler_runs, 1);
    dc_closure_destroy(closure);

    dc_signature_release(void_signature);
    dc_signature_release(with_struct);
    dc_signature_release(plain);
    dc_signature_release(handler_signature);
    dc_table_destroy(table);
}

/* ---- handler ids beside a second table ---------------------------------------------------- */

static void a_handler_id_of_another_table_names_no_handler_here(void **state) {
    (void)state;
    dc_table *a = create_table("a"), *b = create_table("b");
    dc_signature *signature = create_signature("v");
    dc_handler_id in_a = 0, in_b = 0;
    assert_ok(dc_table_add(a, "e", signature, (dc_function)nothing, NULL, NULL, &in_a));
    assert_ok(dc_table_add(b, "e", signature, (dc_function)nothing, NULL, NULL, &in_b));
    assert_true(in_a != in_b);
    assert_false(dc_table_contains(a, in_b));
    dc_handler_info info;
    assert_status(dc_table_handler_info(a, in_b, &info), DC_ERR_NOT_FOUND);
    assert_status(dc_table_block(a, in_b), DC_ERR_NOT_FOUND);
    assert_status(dc_table_remove(a, in_b), DC_ERR_NOT_FOUND);
    assert_true(dc_table_contains(a, in_a));
    assert_true(dc_table_contains(b, in_b));
    dc_result result;
    assert_ok(dc_table_execute(a, "e", NULL, 0, &result));
    assert_int_equal(result.handled, 1);
    dc_signature_release(signature);
    dc_table_destroy(a);
    dc_table_destroy(b);
}

/* ---- failing calls leave the table unchanged ---------------------------------------------- */

static void a_default_handler_refused_for_a_detail_interns_nothing(void **state) {
    (void)state;
    dc_table *table = create_table("details");
    dc_signature *signature = create_signature("v");
    dc_handler_options first = {DC_HANDLER_RUN_FIRST, NULL, NULL, NULL};
    assert_status(dc_table_add(table, "fresh::detail", signature, (dc_function)nothing, NULL, &first, NULL),
                  DC_ERR_INVALID_ARGUMENT);
    assert_int_equal(interned_events(table), 0);
    dc_handler_options last = {DC_HANDLER_RUN_LAST, NULL, NULL, NULL};
    assert_status(dc_table_add_marshal(table, "fresh::detail", signature, declining_marshal, NULL, &last, NULL),
                  DC_ERR_INVALID_ARGUMENT);
    assert_int_equal(interned_events(table), 0);
    dc_signature_release(signature);
    dc_table_destroy(table);
}

static void a_refused_table_closure_interns_nothing(void **state) {
    (void)state;
    dc_table *table = create_table("closures");
    dc_signature *variadic = NULL;
    assert_ok(dc_signature_create_variadic("vi", 1, &variadic));
    dc_closure *closure = (dc_closure *)(uintptr_t)1;
    assert_status(dc_table_closure_create(table, "event::", variadic, &closure), DC_ERR_INVALID_ARGUMENT);
    assert_ptr_equal(closure, (dc_closure *)(uintptr_t)1);
    assert_int_equal(interned_events(table), 0);
    dc_signature_release(variadic);
    dc_table_destroy(table);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_removal_by_id_whose_destroy_notify_destroys_the_observed_table_reads_nothing_freed),
        cmocka_unit_test(
            removals_by_target_event_and_all_whose_destroy_notify_destroys_the_observed_table_read_nothing_freed),
        cmocka_unit_test(a_forwarder_of_more_slots_than_the_limit_fails_with_a_status),
        cmocka_unit_test(a_kept_struct_return_survives_a_later_marshal_that_declines),
        cmocka_unit_test(the_observer_is_told_of_changes_made_by_the_deepest_handler),
        cmocka_unit_test(a_table_closure_refuses_a_struct_returning_handler_whatever_its_parameters),
        cmocka_unit_test(a_handler_id_of_another_table_names_no_handler_here),
        cmocka_unit_test(a_default_handler_refused_for_a_detail_interns_nothing),
        cmocka_unit_test(a_refused_table_closure_interns_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
