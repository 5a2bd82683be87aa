/*
 * test_handler_slots.c — where a table keeps its handlers: a removed
 * handler's slot is reused by later adds, and neither the duplicate index
 * (whose entries of removed handlers stay until a rebuild) nor an event's
 * array (whose entry may still wait for its tombstone) lets the new handler
 * pass for the old one; destroy notifies and queues, kept in the table's
 * extras list by index, reach their own handler whatever the list's growth
 * and reuse, also while another thread's queued executes read the list.
 *
 * A hang ends the process through an alarm naming the test. The threaded
 * test is meant for ASan and TSan too (make sanitize-c).
 */
#include "test_support.h"
#include "thread_support.h"
#include "watchdog.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

enum { WAIT_MILLISECONDS = 20000 };

static uint32_t slot_of(dc_handler_id id) { return (uint32_t)id; }

static atomic_int calls[4];
static CALLEE void count_first(void *target) {
    (void)target;
    atomic_fetch_add(&calls[0], 1);
}
static CALLEE void count_second(void *target) {
    (void)target;
    atomic_fetch_add(&calls[1], 1);
}
static CALLEE void count_third(void *target) {
    (void)target;
    atomic_fetch_add(&calls[2], 1);
}

static void reset_calls(void) {
    for (size_t i = 0; i < ARRAY_COUNT(calls); i++) atomic_store(&calls[i], 0);
}

static dc_signature *pointer_signature(void) {
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create("v^v", &signature));
    return signature;
}

static size_t handler_count(dc_table *table, const char *event) {
    size_t count = 0;
    assert_ok(dc_table_handler_count(table, event, &count));
    return count;
}

/* ---- the duplicate index across reused slots ------------------------------------------ */

enum { MANY = 3000 };

static void duplicates_are_told_apart_from_handlers_in_reused_slots(void **state) {
    (void)state;
    dc_signature *signature = pointer_signature();
    dc_table *table = NULL;
    assert_ok(dc_table_create("slots", NULL, &table));
    static char targets[MANY];
    static dc_handler_id ids[MANY], others[MANY];
    for (size_t i = 0; i < MANY; i++)
        assert_ok(dc_table_add(table, "a", signature, DC_FUNCTION(count_first), &targets[i], NULL, &ids[i]));
    for (size_t i = 0; i < MANY; i += 2) assert_ok(dc_table_remove(table, ids[i]));
    /* Another key in the freed slots: the index still has the removed
     * handlers' entries, which now lead to these. */
    size_t reused = 0;
    for (size_t i = 0; i < MANY; i += 2) {
        assert_ok(dc_table_add(table, "b", signature, DC_FUNCTION(count_second), &targets[i], NULL, &others[i]));
        for (size_t j = 0; j < MANY; j += 2) {
            if (slot_of(others[i]) == slot_of(ids[j])) {
                reused++;
                break;
            }
        }
    }
    assert_true(reused > MANY / 4);
    for (size_t i = 0; i < MANY; i++) {
        dc_handler_id id = 0;
        if (i % 2 == 1) {
            assert_status(dc_table_add(table, "a", signature, DC_FUNCTION(count_first), &targets[i], NULL, &id),
                          DC_EXISTS);
            assert_int_equal(id, ids[i]);
        } else {
            assert_status(dc_table_add(table, "b", signature, DC_FUNCTION(count_second), &targets[i], NULL, &id),
                          DC_EXISTS);
            assert_int_equal(id, others[i]);
            /* The removed handler's key is free again. */
            assert_ok(dc_table_add(table, "a", signature, DC_FUNCTION(count_first), &targets[i], NULL, &id));
            assert_true(id != ids[i]);
            dc_handler_id again = 0;
            assert_status(dc_table_add(table, "a", signature, DC_FUNCTION(count_first), &targets[i], NULL, &again),
                          DC_EXISTS);
            assert_int_equal(again, id);
        }
    }
    assert_int_equal(handler_count(table, "a"), MANY);
    assert_int_equal(handler_count(table, "b"), MANY / 2);
    dc_table_destroy(table);
    dc_signature_release(signature);
}

static void a_key_removed_and_added_again_in_its_own_slot_is_indexed_once(void **state) {
    (void)state;
    dc_signature *signature = pointer_signature();
    dc_table *table = NULL;
    assert_ok(dc_table_create("slots", NULL, &table));
    static char targets[64];
    for (size_t i = 1; i < ARRAY_COUNT(targets); i++)
        assert_ok(dc_table_add(table, "crowd", signature, DC_FUNCTION(count_second), &targets[i], NULL, NULL));
    dc_handler_id id = 0;
    assert_ok(dc_table_add(table, "key", signature, DC_FUNCTION(count_first), &targets[0], NULL, &id));
    /* Each round leaves one more entry of the key; landing in a slot the key
     * had before, the new handler meets an entry equal to its own: the
     * rebuilds these rounds cause must keep exactly the live handler. */
    static bool had_slot[4096];
    size_t slot_again = 0;
    for (int round = 0; round < 2000; round++) {
        assert_ok(dc_table_remove(table, id));
        dc_handler_id next = 0;
        assert_ok(dc_table_add(table, "key", signature, DC_FUNCTION(count_first), &targets[0], NULL, &next));
        assert_true(slot_of(next) < ARRAY_COUNT(had_slot));
        slot_again += had_slot[slot_of(next)];
        had_slot[slot_of(next)] = true;
        assert_true(next != id);
        dc_handler_id again = 0;
        assert_status(dc_table_add(table, "key", signature, DC_FUNCTION(count_first), &targets[0], NULL, &again),
                      DC_EXISTS);
        assert_int_equal(again, next);
        assert_int_equal(handler_count(table, "key"), 1);
        id = next;
    }
    assert_true(slot_again > 1000);
    reset_calls();
    assert_ok(dc_table_execute(table, "key", NULL, 0, NULL));
    assert_int_equal(atomic_load(&calls[0]), 1);
    dc_table_destroy(table);
    dc_signature_release(signature);
}

/* ---- arrays: a freed slot's entry --------------------------------------------------------- */

/* A removed handler's array entry may wait for its tombstone (with no other
 * thread reading, removals put theirs together): the adds that reuse the
 * removed handlers' slots must be reached only through their own entries.
 * "run" keeps KEPT handlers, so that removing a crowd never compacts its
 * array, and has room for the adds (either would put the tombstones on its
 * way). */
enum { CROWD = 100, KEPT = 4 * CROWD };

/* `crowd` handlers of "run" removed, then as many added: how many of those
 * took a removed one's slot. */
static size_t reuse_slots_of_removed_handlers(dc_signature *signature, size_t crowd) {
    dc_table *table = NULL;
    assert_ok(dc_table_create("slots", NULL, &table));
    static char targets[CROWD], kept[KEPT + 2 * CROWD];
    static dc_handler_id removed[CROWD];
    dc_handler_id id = 0;
    /* Room: the array grows by half when full, so adding twice the crowd
     * and removing it again leaves room for the crowd twice. */
    for (size_t i = 0; i < KEPT + 2 * crowd; i++) {
        assert_ok(dc_table_add(table, "run", signature, DC_FUNCTION(count_first), &kept[i], NULL, &id));
        if (i >= KEPT) assert_ok(dc_table_remove(table, id));
    }
    size_t count = 0;
    assert_ok(dc_table_handler_count(table, "run", &count));
    assert_int_equal(count, KEPT);
    for (size_t i = 0; i < crowd; i++)
        assert_ok(dc_table_add(table, "run", signature, DC_FUNCTION(count_second), &targets[i], NULL, &removed[i]));
    for (size_t i = 0; i < crowd; i++) assert_ok(dc_table_remove(table, removed[i]));
    size_t reused = 0;
    for (size_t i = 0; i < crowd; i++) {
        assert_ok(dc_table_add(table, "run", signature, DC_FUNCTION(count_third), &targets[i], NULL, &id));
        for (size_t j = 0; j < crowd; j++) reused += slot_of(id) == slot_of(removed[j]);
    }
    reset_calls();
    assert_ok(dc_table_execute(table, "run", NULL, 0, NULL));
    assert_int_equal(atomic_load(&calls[0]), KEPT);
    assert_int_equal(atomic_load(&calls[1]), 0);
    assert_int_equal(atomic_load(&calls[2]), (int)crowd);
    dc_table_destroy(table);
    return reused;
}

/* Every crowd size, so that one ends exactly where removals put their
 * tombstones and retire their slots together, whatever that batch's size. */
static void adds_reusing_removed_handlers_slots_are_not_run_by_the_old_event(void **state) {
    (void)state;
    dc_signature *signature = pointer_signature();
    size_t reused = 0;
    for (size_t crowd = 1; crowd <= CROWD; crowd++) reused += reuse_slots_of_removed_handlers(signature, crowd);
    assert_true(reused > 0); /* the case this test is about */
    dc_signature_release(signature);
}

/* Inside an execute the slot waits for the execute's end: the handler
 * removing its successor and adding to another event leaves the rest of the
 * execute as it was, less the removed one. */
typedef struct remover {
    dc_table *table;
    dc_signature *signature;
    dc_handler_id victim;
    dc_handler_id added;
    char target;
} remover;

static CALLEE void remove_victim_and_add(void *target) {
    remover *r = target;
    atomic_fetch_add(&calls[0], 1);
    assert_ok(dc_table_remove(r->table, r->victim));
    assert_ok(dc_table_add(r->table, "other", r->signature, DC_FUNCTION(count_third), &r->target, NULL, &r->added));
}

static void a_removal_inside_an_execute_keeps_its_slot_from_the_rest_of_that_execute(void **state) {
    (void)state;
    dc_signature *signature = pointer_signature();
    remover r = {.signature = signature};
    assert_ok(dc_table_create("slots", NULL, &r.table));
    static char target;
    assert_ok(dc_table_add(r.table, "run", signature, DC_FUNCTION(remove_victim_and_add), &r, NULL, NULL));
    assert_ok(dc_table_add(r.table, "run", signature, DC_FUNCTION(count_second), &target, NULL, &r.victim));
    reset_calls();
    assert_ok(dc_table_execute(r.table, "run", NULL, 0, NULL));
    assert_int_equal(atomic_load(&calls[0]), 1);
    assert_int_equal(atomic_load(&calls[1]), 0);
    assert_int_equal(atomic_load(&calls[2]), 0);
    assert_true(slot_of(r.added) != slot_of(r.victim));
    assert_ok(dc_table_execute(r.table, "other", NULL, 0, NULL));
    assert_int_equal(atomic_load(&calls[2]), 1);
    dc_table_destroy(r.table);
    dc_signature_release(signature);
}

/* ---- the extras list ------------------------------------------------------------------------ */

enum { NOTIFIED = 300 };

static atomic_int notified[NOTIFIED];
static void count_notify(void *data) { atomic_fetch_add((atomic_int *)data, 1); }

static void destroy_notifies_and_queues_reach_their_handlers_as_the_extras_list_grows_and_reuses(void **state) {
    (void)state;
    dc_signature *signature = pointer_signature();
    dc_table *table = NULL;
    dc_queue *queue = NULL;
    assert_ok(dc_table_create("slots", NULL, &table));
    assert_ok(dc_queue_create(&queue));
    static char targets[NOTIFIED];
    static dc_handler_id ids[NOTIFIED];
    for (size_t i = 0; i < NOTIFIED; i++) atomic_store(&notified[i], 0);
    /* Two of every three with a destroy notify, every fifth with a queue too;
     * the others, in between, have no extras. */
    for (size_t i = 0; i < NOTIFIED; i++) {
        dc_handler_options options = {0};
        if (i % 3 != 2) options = (dc_handler_options){.destroy = count_notify, .destroy_data = &notified[i]};
        if (i % 5 == 0) options.queue = queue;
        assert_ok(dc_table_add(table, "e", signature, DC_FUNCTION(count_first), &targets[i], &options, &ids[i]));
    }
    for (size_t i = 0; i < NOTIFIED; i += 2) {
        assert_ok(dc_table_remove(table, ids[i]));
        assert_int_equal(atomic_load(&notified[i]), i % 3 != 2 ? 1 : 0);
    }
    /* Added again, taking the freed slots and extras indexes: each notify
     * is now its own handler's, the queue only the fifth ones'. */
    for (size_t i = 0; i < NOTIFIED; i += 2) {
        dc_handler_options options = {.destroy = count_notify, .destroy_data = &notified[i]};
        if (i % 5 == 0) options.queue = queue;
        assert_ok(dc_table_add(table, "e", signature, DC_FUNCTION(count_first), &targets[i], &options, &ids[i]));
    }
    for (size_t i = 0; i < NOTIFIED; i++) {
        dc_handler_info info;
        assert_ok(dc_table_handler_info(table, ids[i], &info));
        assert_ptr_equal(info.target, &targets[i]);
        assert_ptr_equal(info.queue, i % 5 == 0 ? queue : NULL);
    }
    for (size_t i = 1; i < NOTIFIED; i += 2) assert_int_equal(atomic_load(&notified[i]), 0);
    dc_table_destroy(table);
    for (size_t i = 0; i < NOTIFIED; i++) {
        int expected = i % 2 == 0 ? (i % 3 != 2 ? 2 : 1) : (i % 3 != 2 ? 1 : 0);
        assert_int_equal(atomic_load(&notified[i]), expected);
    }
    dc_queue_destroy(queue);
    dc_signature_release(signature);
}

/* The main thread owns the queue and grows, shrinks and reuses the extras
 * list with handlers of another event while this thread's executes post to
 * the queue, reading the list. */
typedef struct poster {
    dc_table *table;
    atomic_bool started;
    atomic_bool stop;
    atomic_bool returned;
    int executes;
    size_t queued;
    dc_status status;
} poster;

static void *post_deliveries(void *argument) {
    poster *p = argument;
    atomic_store(&p->started, true);
    while (!atomic_load(&p->stop) && p->status == DC_OK) {
        dc_result result = {0};
        p->status = dc_table_execute(p->table, "queued", NULL, 0, &result);
        p->queued += result.queued;
        p->executes++;
    }
    atomic_store(&p->returned, true);
    return NULL;
}

static void queued_executes_read_the_extras_list_while_another_thread_grows_and_shrinks_it(void **state) {
    (void)state;
    dc_signature *signature = pointer_signature();
    dc_table *table = NULL;
    dc_queue *queue = NULL;
    assert_ok(dc_table_create("slots", NULL, &table));
    assert_ok(dc_queue_create(&queue));
    static char target;
    dc_handler_options queued = {.queue = queue};
    assert_ok(dc_table_add(table, "queued", signature, DC_FUNCTION(count_first), &target, &queued, NULL));
    reset_calls();
    poster p = {.table = table, .status = DC_OK};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, post_deliveries, &p), 0);
    assert_true(wait_for_flag(&p.started, WAIT_MILLISECONDS));
    enum { CHURN = 256 };
    static char churn_targets[CHURN];
    static atomic_int churn_notified[CHURN];
    static dc_handler_id churn_ids[CHURN];
    size_t delivered = 0;
    int rounds = 0;
    for (; rounds < 400; rounds++) {
        size_t count = (size_t)(rounds % 4 + 1) * (CHURN / 4);
        for (size_t i = 0; i < count; i++) {
            dc_handler_options options = {.destroy = count_notify, .destroy_data = &churn_notified[i]};
            assert_ok(dc_table_add(table, "churn", signature, DC_FUNCTION(count_second), &churn_targets[i], &options,
                                   &churn_ids[i]));
        }
        for (size_t i = 0; i < count; i++) assert_ok(dc_table_remove(table, churn_ids[i]));
        size_t ran = 0;
        assert_ok(dc_queue_drain(queue, &ran));
        delivered += ran;
    }
    atomic_store(&p.stop, true);
    assert_true(wait_for_flag(&p.returned, WAIT_MILLISECONDS));
    pthread_join(thread, NULL);
    assert_status(p.status, DC_OK);
    size_t ran = 0;
    assert_ok(dc_queue_drain(queue, &ran));
    delivered += ran;
    assert_int_equal(p.queued, (size_t)p.executes);
    assert_int_equal(delivered, (size_t)p.executes);
    assert_int_equal(atomic_load(&calls[0]), p.executes);
    assert_int_equal(atomic_load(&calls[1]), 0);
    assert_true(p.executes > 0);
    for (size_t i = 0; i < CHURN; i++) {
        int adds = 0;
        for (int round = 0; round < rounds; round++) adds += i < (size_t)(round % 4 + 1) * (CHURN / 4) ? 1 : 0;
        assert_int_equal(atomic_load(&churn_notified[i]), adds);
    }
    dc_table_destroy(table);
    dc_queue_destroy(queue);
    dc_signature_release(signature);
}

int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        watched_test(duplicates_are_told_apart_from_handlers_in_reused_slots),
        watched_test(a_key_removed_and_added_again_in_its_own_slot_is_indexed_once),
        watched_test(adds_reusing_removed_handlers_slots_are_not_run_by_the_old_event),
        watched_test(a_removal_inside_an_execute_keeps_its_slot_from_the_rest_of_that_execute),
        watched_test(destroy_notifies_and_queues_reach_their_handlers_as_the_extras_list_grows_and_reuses),
        watched_test(queued_executes_read_the_extras_list_while_another_thread_grows_and_shrinks_it),
    };
    return cmocka_run_group_tests_name("handler slots", tests, NULL, NULL);
}
