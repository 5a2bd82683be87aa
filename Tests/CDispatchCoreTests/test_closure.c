/*
 * test_closure.c — function pointers made at run time, handed to the C
 * library's own callback APIs (qsort, bsearch, tsearch, twalk, nftw,
 * dl_iterate_phdr, pthread_create), and table closures that execute an
 * event. Every signature in the path matrix also goes through a closure
 * that re-sends the call (test_paths.c).
 */
#define _XOPEN_SOURCE 700
#include "test_support.h"
#include "thread_support.h"

#include <ftw.h>
#include <link.h>
#include <pthread.h>
#include <search.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static dc_signature *signature_of(const char *encoding) {
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create(encoding, &signature));
    return signature;
}

static dc_closure *closure_of(const char *encoding, dc_forward_handler handler, void *user_data) {
    dc_signature *signature = signature_of(encoding);
    dc_closure *closure = NULL;
    assert_ok(dc_closure_create(signature, handler, user_data, NULL, &closure));
    dc_signature_release(signature);
    return closure;
}

static dc_value argument(dc_invocation *call, size_t index) {
    dc_value value;
    assert_ok(dc_invocation_get_argument(call, index, &value));
    return value;
}

static void set_int32_return(dc_invocation *call, int32_t result) {
    dc_value value = dc_int32(result);
    assert_ok(dc_invocation_set_return_value(call, &value));
}

/* ---- qsort and bsearch ------------------------------------------------------- */

/* A comparator's state: the order it sorts in, and how often it ran. */
typedef struct ordering {
    int direction;
    int calls;
} ordering;

static void compare_ints(dc_invocation *call, void *user_data) {
    ordering *order = user_data;
    order->calls++;
    const int *a = argument(call, 0).pointer;
    const int *b = argument(call, 1).pointer;
    set_int32_return(call, order->direction * ((*a > *b) - (*a < *b)));
}

static void qsort_and_bsearch_take_a_comparator_that_carries_state(void **state) {
    (void)state;
    ordering descending = {-1, 0};
    dc_closure *closure = closure_of("i^v^v", compare_ints, &descending);
    int (*compare)(const void *, const void *) = (int (*)(const void *, const void *))dc_closure_function(closure);

    int numbers[] = {5, -3, 12, 0, 7, 7, -40, 1};
    qsort(numbers, ARRAY_COUNT(numbers), sizeof numbers[0], compare);
    const int sorted[] = {12, 7, 7, 5, 1, 0, -3, -40};
    assert_memory_equal(numbers, sorted, sizeof sorted);
    assert_true(descending.calls >= (int)ARRAY_COUNT(numbers) - 1);

    int key = -3;
    const int *found = bsearch(&key, numbers, ARRAY_COUNT(numbers), sizeof numbers[0], compare);
    assert_non_null(found);
    assert_int_equal(found - numbers, 6);
    key = 2;
    assert_null(bsearch(&key, numbers, ARRAY_COUNT(numbers), sizeof numbers[0], compare));
    dc_closure_destroy(closure);
}

/* ---- tsearch and twalk -------------------------------------------------------- */

typedef struct walk {
    int visited[16];
    int count;
} walk;

static void record_in_order(dc_invocation *call, void *user_data) {
    walk *seen = user_data;
    const int *const *node = argument(call, 0).pointer;
    VISIT which = (VISIT)argument(call, 1).i32;
    /* In order: a leaf once, an inner node after its left subtree. */
    if (which == leaf || which == postorder) seen->visited[seen->count++] = **node;
}

/* The keys are static: the tree's nodes go, the keys stay. */
static void keep_node(void *node) { (void)node; }

static void tsearch_builds_a_tree_that_twalk_visits_in_order(void **state) {
    (void)state;
    ordering ascending = {1, 0};
    dc_closure *compare = closure_of("i^v^v", compare_ints, &ascending);
    walk seen = {{0}, 0};
    dc_closure *action = closure_of("v^vii", record_in_order, &seen);

    static int keys[] = {8, 3, 10, 1, 6, 14, 4, 7, 13};
    void *root = NULL;
    int (*comparator)(const void *, const void *) = (int (*)(const void *, const void *))dc_closure_function(compare);
    for (size_t i = 0; i < ARRAY_COUNT(keys); i++) assert_non_null(tsearch(&keys[i], &root, comparator));
    int again = 6;
    assert_ptr_equal(*(int **)tsearch(&again, &root, comparator), &keys[4]);
    twalk(root, (void (*)(const void *, VISIT, int))dc_closure_function(action));

    const int expected[] = {1, 3, 4, 6, 7, 8, 10, 13, 14};
    assert_int_equal(seen.count, ARRAY_COUNT(expected));
    assert_memory_equal(seen.visited, expected, sizeof expected);
    tdestroy(root, keep_node);
    dc_closure_destroy(compare);
    dc_closure_destroy(action);
}

/* ---- nftw --------------------------------------------------------------------- */

typedef struct tree_totals {
    int files;
    int directories;
    long long bytes;
} tree_totals;

static void add_up_entry(dc_invocation *call, void *user_data) {
    tree_totals *totals = user_data;
    const struct stat *status = argument(call, 1).pointer;
    int type = argument(call, 2).i32;
    if (type == FTW_F) {
        totals->files++;
        totals->bytes += status->st_size;
    } else if (type == FTW_D || type == FTW_DP) {
        totals->directories++;
    }
    set_int32_return(call, 0);
}

static void write_file(const char *path, size_t size) {
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    for (size_t i = 0; i < size; i++) fputc('x', file);
    fclose(file);
}

static void nftw_walks_a_tree_and_the_callback_reads_each_stat(void **state) {
    (void)state;
    char root[] = "/tmp/dc_closure_XXXXXX";
    assert_non_null(mkdtemp(root));
    char path[256];
    snprintf(path, sizeof path, "%s/a", root);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/a/one", root);
    write_file(path, 11);
    snprintf(path, sizeof path, "%s/a/two", root);
    write_file(path, 200);
    snprintf(path, sizeof path, "%s/three", root);
    write_file(path, 3000);

    tree_totals totals = {0, 0, 0};
    dc_closure *closure = closure_of("i*^vi^v", add_up_entry, &totals);
    int (*visit)(const char *, const struct stat *, int, struct FTW *) =
        (int (*)(const char *, const struct stat *, int, struct FTW *))dc_closure_function(closure);
    assert_int_equal(nftw(root, visit, 8, FTW_PHYS), 0);
    assert_int_equal(totals.files, 3);
    assert_int_equal(totals.directories, 2);
    assert_int_equal(totals.bytes, 3211);

    /* Clean up with the same walk, depth first. */
    snprintf(path, sizeof path, "%s/a/one", root);
    unlink(path);
    snprintf(path, sizeof path, "%s/a/two", root);
    unlink(path);
    snprintf(path, sizeof path, "%s/three", root);
    unlink(path);
    snprintf(path, sizeof path, "%s/a", root);
    rmdir(path);
    rmdir(root);
    dc_closure_destroy(closure);
}

/* ---- dl_iterate_phdr -------------------------------------------------------------- */

typedef struct loaded_objects {
    int count;
    bool saw_libc;
    bool saw_program; /* the executable itself, with an empty name */
} loaded_objects;

static void note_object(dc_invocation *call, void *user_data) {
    loaded_objects *objects = user_data;
    const struct dl_phdr_info *info = argument(call, 0).pointer;
    size_t size = (size_t)argument(call, 1).u64;
    assert_true(size >= offsetof(struct dl_phdr_info, dlpi_phnum) + sizeof info->dlpi_phnum);
    objects->count++;
    if (info->dlpi_name[0] == '\0') objects->saw_program = true;
    /* glibc's libc.so.6, or musl's libc, which is its loader too. */
    if (strstr(info->dlpi_name, "libc.so") != NULL || strstr(info->dlpi_name, "ld-musl-") != NULL)
        objects->saw_libc = true;
    set_int32_return(call, 0);
}

static void dl_iterate_phdr_reports_every_loaded_object(void **state) {
    (void)state;
    loaded_objects objects = {0, false, false};
    dc_closure *closure = closure_of(sizeof(size_t) == 8 ? "i^vQ^v" : "i^vI^v", note_object, &objects);
    assert_int_equal(
        dl_iterate_phdr((int (*)(struct dl_phdr_info *, size_t, void *))dc_closure_function(closure), NULL), 0);
    assert_true(objects.count >= 3); /* the program, libc, libdispatchcore's dependencies */
    assert_true(objects.saw_program);
    assert_true(objects.saw_libc);
    dc_closure_destroy(closure);
}

/* ---- pthread_create ----------------------------------------------------------------- */

typedef struct thread_start {
    pthread_t seen_thread;
    int *result;
} thread_start;

static void run_thread(dc_invocation *call, void *user_data) {
    thread_start *start = user_data;
    start->seen_thread = pthread_self();
    int *counter = argument(call, 0).pointer;
    *counter += 41;
    dc_value result = dc_pointer(start->result);
    assert_ok(dc_invocation_set_return_value(call, &result));
}

static void pthread_create_runs_a_start_routine_made_at_run_time(void **state) {
    (void)state;
    static int answer = 42;
    thread_start start = {0, &answer};
    dc_closure *closure = closure_of("^v^v", run_thread, &start);
    int counter = 1;
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, (void *(*)(void *))dc_closure_function(closure), &counter), 0);
    void *returned = NULL;
    assert_int_equal(pthread_join(thread, &returned), 0);
    assert_ptr_equal(returned, &answer);
    assert_true(pthread_equal(start.seen_thread, thread));
    assert_int_equal(counter, 42);
    dc_closure_destroy(closure);
}

/* ---- return values and re-sending ----------------------------------------------------- */

static void do_nothing(dc_invocation *call, void *user_data) {
    (void)call;
    (void)user_data;
}

static void a_call_whose_handler_sets_nothing_returns_zero(void **state) {
    (void)state;
    dc_closure *narrow = closure_of("ci", do_nothing, NULL);
    assert_int_equal(((int8_t (*)(int))dc_closure_function(narrow))(5), 0);
    dc_closure *wide = closure_of("d", do_nothing, NULL);
    assert_true(((double (*)(void))dc_closure_function(wide))() == 0.0);
    dc_closure *pointer = closure_of("^vq", do_nothing, NULL);
    assert_null(((void *(*)(int64_t))dc_closure_function(pointer))(9));
    dc_closure_destroy(narrow);
    dc_closure_destroy(wide);
    dc_closure_destroy(pointer);
}

CALLEE static int32_t subtract(int32_t a, int32_t b) { return a - b; }

/* Swaps the arguments, re-sends, then doubles what the function returned:
 * the last value set wins. */
static void swap_resend_and_double(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value a = argument(call, 0);
    dc_value b = argument(call, 1);
    assert_ok(dc_invocation_set_argument(call, 0, &b));
    assert_ok(dc_invocation_set_argument(call, 1, &a));
    assert_ok(dc_invocation_set_function(call, DC_FUNCTION(subtract)));
    assert_ok(dc_invocation_invoke(call));
    dc_value returned;
    assert_ok(dc_invocation_get_return_value(call, &returned));
    assert_int_equal(returned.type, DC_TYPE_INT32);
    set_int32_return(call, returned.i32 * 2);
    /* A lent invocation is the closure's: destroying it is ignored. */
    dc_invocation_destroy(call);
}

static void a_handler_changes_arguments_resends_and_sets_the_result(void **state) {
    (void)state;
    dc_closure *closure = closure_of("iii", swap_resend_and_double, NULL);
    int32_t (*function)(int32_t, int32_t) = (int32_t (*)(int32_t, int32_t))dc_closure_function(closure);
    assert_int_equal(function(10, 3), 2 * (3 - 10));
    assert_int_equal(function(-5, 7), 2 * (7 - -5));
    dc_closure_destroy(closure);
}

/* Scalar returns of every register class and width: what the caller of a
 * closure gets is the zero value until the handler sets one or invokes, and
 * then the last value set or invoked. Each case's callee returns `invoked`;
 * `set` and `set_first` are two more values of the type, `set` not zero. */
CALLEE static int8_t returns_int8(void) { return -7; }
CALLEE static uint16_t returns_uint16(void) { return 60001; }
CALLEE static bool returns_true(void) { return true; }
CALLEE static float returns_float(void) { return -2.5f; }
CALLEE static double returns_double(void) { return 1e300; }
CALLEE static int64_t returns_int64(void) { return INT64_MIN + 3; }
static int pointed_at[3];
CALLEE static void *returns_pointer(void) { return &pointed_at[0]; }

typedef struct scalar_return {
    const char *encoding;
    dc_function function;
    dc_value invoked;
    dc_value set;
    dc_value set_first;
    bool through_libffi; /* the handler invokes on the libffi path */
} scalar_return;

/* Calls a closure of no parameters returning `encoding`'s type through a
 * pointer of that type. */
static dc_value call_returning(const char *encoding, dc_function function) {
    switch (encoding[0]) {
    case 'c': return dc_int8(((int8_t (*)(void))function)());
    case 'S': return dc_uint16(((uint16_t (*)(void))function)());
    case 'B': return dc_bool(((bool (*)(void))function)());
    case 'f': return dc_float(((float (*)(void))function)());
    case 'd': return dc_double(((double (*)(void))function)());
    case 'q': return dc_int64(((int64_t (*)(void))function)());
    default: return dc_pointer(((void *(*)(void))function)());
    }
}

static void set_return(dc_invocation *call, dc_value value) {
    assert_ok(dc_invocation_set_return_value(call, &value));
}

static void invoke_returning(dc_invocation *call, const scalar_return *c) {
    if (c->through_libffi) assert_ok(dc_invocation_set_call_path(call, DC_CALL_PATH_FFI));
    assert_ok(dc_invocation_set_function(call, c->function));
    assert_ok(dc_invocation_invoke(call));
}

static void set_then_invoke(dc_invocation *call, void *user_data) {
    const scalar_return *c = user_data;
    set_return(call, c->set);
    invoke_returning(call, c);
}

static void invoke_then_set(dc_invocation *call, void *user_data) {
    const scalar_return *c = user_data;
    invoke_returning(call, c);
    set_return(call, c->set);
}

static void set_twice(dc_invocation *call, void *user_data) {
    const scalar_return *c = user_data;
    set_return(call, c->set_first);
    set_return(call, c->set);
}

static void invoke_twice_setting_between(dc_invocation *call, void *user_data) {
    const scalar_return *c = user_data;
    invoke_returning(call, c);
    set_return(call, c->set);
    invoke_returning(call, c);
}

static dc_value call_closure(const scalar_return *c, dc_forward_handler handler) {
    dc_closure *closure = closure_of(c->encoding, handler, (void *)c);
    dc_value returned = call_returning(c->encoding, dc_closure_function(closure));
    dc_closure_destroy(closure);
    return returned;
}

static void a_scalar_return_is_the_last_value_set_or_invoked(void **state) {
    (void)state;
    scalar_return cases[] = {
        {"c", DC_FUNCTION(returns_int8), dc_int8(-7), dc_int8(-5), dc_int8(100), false},
        {"S", DC_FUNCTION(returns_uint16), dc_uint16(60001), dc_uint16(65535), dc_uint16(7), false},
        {"B", DC_FUNCTION(returns_true), dc_bool(true), dc_bool(true), dc_bool(false), false},
        {"f", DC_FUNCTION(returns_float), dc_float(-2.5f), dc_float(0.125f), dc_float(3.0f), false},
        {"d", DC_FUNCTION(returns_double), dc_double(1e300), dc_double(-0.5), dc_double(2.0), false},
        {"q", DC_FUNCTION(returns_int64), dc_int64(INT64_MIN + 3), dc_int64(-1), dc_int64(1LL << 40), false},
        {"^v", DC_FUNCTION(returns_pointer), dc_pointer(&pointed_at[0]), dc_pointer(&pointed_at[1]),
         dc_pointer(&pointed_at[2]), false},
    };
    for (size_t i = 0; i < ARRAY_COUNT(cases); i++) {
        for (int libffi = 0; libffi < 2; libffi++) {
            scalar_return *c = &cases[i];
            c->through_libffi = libffi;
            char context[64];
            snprintf(context, sizeof context, "\"%s\"%s", c->encoding, libffi ? " through libffi" : "");
            dc_value zero = c->set;
            zero.u64 = 0; /* the zero of every scalar type */
            assert_value_equal(zero, call_closure(c, do_nothing), context);
            assert_value_equal(c->invoked, call_closure(c, set_then_invoke), context);
            assert_value_equal(c->set, call_closure(c, invoke_then_set), context);
            assert_value_equal(c->set, call_closure(c, set_twice), context);
            assert_value_equal(c->invoked, call_closure(c, invoke_twice_setting_between), context);
        }
    }
}

static void sets_a_negative_int8(dc_invocation *call, void *user_data) {
    (void)user_data;
    set_return(call, dc_int8(-5));
}

static void a_negative_int8_set_reaches_the_caller_sign_extended(void **state) {
    (void)state;
    dc_closure *closure = closure_of("c", sets_a_negative_int8, NULL);
    int8_t (*function)(void) = (int8_t (*)(void))dc_closure_function(closure);
    int64_t widened = function();
    assert_int_equal(widened, -5);
    /* And through dc_call, which reads the return register as a typed stub
     * does, 64 bits wide where the stubs cover the ABI, and narrows it. */
    dc_signature *signature = signature_of("c");
    dc_value returned;
    assert_ok(dc_call(signature, dc_closure_function(closure), NULL, 0, &returned));
    assert_int_equal(returned.type, DC_TYPE_INT8);
    assert_int_equal(returned.i8, -5);
    dc_signature_release(signature);
    dc_closure_destroy(closure);
}

static dc_status last_status;
static char last_message[512];

static void check_misuse_inside_a_call(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value text = dc_string("not a number");
    assert_failure(dc_invocation_set_return_value(call, &text), DC_ERR_TYPE, "int32", "string");
    dc_value fits = dc_int64(77);
    assert_ok(dc_invocation_set_return_value(call, &fits));
    dc_value too_big = dc_int64(1LL << 40);
    assert_failure(dc_invocation_set_return_value(call, &too_big), DC_ERR_TYPE, "int32");
    dc_value kept;
    assert_ok(dc_invocation_get_return_value(call, &kept));
    assert_int_equal(kept.i32, 77);
    assert_failure(dc_invocation_set_function(call, NULL), DC_ERR_NULL_ARGUMENT, "function");
    last_status = DC_OK;
}

static void misuse_inside_a_call_is_a_status_and_leaves_the_return_value(void **state) {
    (void)state;
    dc_closure *closure = closure_of("i", check_misuse_inside_a_call, NULL);
    assert_int_equal(((int32_t (*)(void))dc_closure_function(closure))(), 77);
    dc_closure_destroy(closure);
}

static void invoke_before_a_function_is_set(dc_invocation *call, void *user_data) {
    (void)user_data;
    last_status = dc_invocation_invoke(call);
    snprintf(last_message, sizeof last_message, "%s", dc_last_error_message());
}

static void invoking_a_forwarded_call_without_a_function_is_a_state_error(void **state) {
    (void)state;
    dc_closure *closure = closure_of("vi", invoke_before_a_function_is_set, NULL);
    ((void (*)(int))dc_closure_function(closure))(1);
    assert_int_equal(last_status, DC_ERR_STATE);
    assert_true(dc_test_message_mentions(last_message, "dc_invocation_set_function"));
    dc_closure_destroy(closure);
}

/* ---- creation, destruction and bad input ------------------------------------------------ */

static int destroy_notifies;
static void *destroyed_data;
static void count_destroy(void *data) {
    destroy_notifies++;
    destroyed_data = data;
}

static void destroy_notify_runs_once_with_the_user_data(void **state) {
    (void)state;
    dc_signature *signature = signature_of("v");
    int data = 0;
    dc_closure *closure = NULL;
    destroy_notifies = 0;
    assert_ok(dc_closure_create(signature, do_nothing, &data, count_destroy, &closure));
    assert_ptr_equal(dc_closure_signature(closure), signature);
    ((void (*)(void))dc_closure_function(closure))();
    assert_int_equal(destroy_notifies, 0);
    dc_closure_destroy(closure);
    assert_int_equal(destroy_notifies, 1);
    assert_ptr_equal(destroyed_data, &data);
    dc_signature_release(signature);
}

static void bad_input_is_a_status_and_nothing_is_made(void **state) {
    (void)state;
    dc_signature *signature = signature_of("v");
    dc_closure *closure = (dc_closure *)&closure; /* must stay as it is */
    destroy_notifies = 0;
    assert_failure(dc_closure_create(NULL, do_nothing, NULL, count_destroy, &closure), DC_ERR_NULL_ARGUMENT,
                   "signature");
    assert_failure(dc_closure_create(signature, NULL, NULL, count_destroy, &closure), DC_ERR_NULL_ARGUMENT,
                   "handler");
    assert_failure(dc_closure_create(signature, do_nothing, NULL, count_destroy, NULL), DC_ERR_NULL_ARGUMENT, "out");
    assert_ptr_equal(closure, (dc_closure *)&closure);
    assert_int_equal(destroy_notifies, 0);
    assert_null(dc_closure_function(NULL));
    assert_null(dc_closure_signature(NULL));
    dc_closure_set_error_handler(NULL, NULL, NULL);
    dc_closure_destroy(NULL);

    dc_table *table = NULL;
    assert_ok(dc_table_create("bad", NULL, &table));
    assert_failure(dc_table_closure_create(NULL, "e", signature, &closure), DC_ERR_NULL_ARGUMENT, "table");
    assert_failure(dc_table_closure_create(table, NULL, signature, &closure), DC_ERR_NULL_ARGUMENT, "event");
    assert_failure(dc_table_closure_create(table, "e", NULL, &closure), DC_ERR_NULL_ARGUMENT, "signature");
    assert_failure(dc_table_closure_create(table, "e", signature, NULL), DC_ERR_NULL_ARGUMENT, "out");
    assert_ptr_equal(closure, (dc_closure *)&closure);
    dc_table_destroy(table);
    dc_signature_release(signature);
}

/* ---- threads ---------------------------------------------------------------------------- */

enum { CALLING_THREADS = 4, CALLS_PER_THREAD = 20000 };

static void add_into(dc_invocation *call, void *user_data) {
    atomic_llong *sum = user_data;
    atomic_fetch_add(sum, argument(call, 0).i64);
    dc_value doubled = dc_int64(argument(call, 0).i64 * 2);
    assert_ok(dc_invocation_set_return_value(call, &doubled));
}

typedef struct caller {
    int64_t (*function)(int64_t);
    int64_t base;
    int64_t mismatches;
} caller;

static void *call_many_times(void *context) {
    caller *c = context;
    for (int64_t i = 0; i < CALLS_PER_THREAD; i++)
        if (c->function(c->base + i) != 2 * (c->base + i)) c->mismatches++;
    return NULL;
}

static void a_closure_called_from_four_threads_at_once_gives_each_call_its_own_invocation(void **state) {
    (void)state;
    atomic_llong sum = 0;
    dc_closure *closure = closure_of("qq", add_into, &sum);
    caller callers[CALLING_THREADS];
    pthread_t threads[CALLING_THREADS];
    int64_t expected = 0;
    for (int t = 0; t < CALLING_THREADS; t++) {
        callers[t] = (caller){(int64_t (*)(int64_t))dc_closure_function(closure), (int64_t)t * 1000000, 0};
        for (int64_t i = 0; i < CALLS_PER_THREAD; i++) expected += callers[t].base + i;
        assert_int_equal(pthread_create(&threads[t], NULL, call_many_times, &callers[t]), 0);
    }
    for (int t = 0; t < CALLING_THREADS; t++) {
        assert_int_equal(pthread_join(threads[t], NULL), 0);
        assert_int_equal(callers[t].mismatches, 0);
    }
    assert_int_equal(atomic_load(&sum), expected);
    dc_closure_destroy(closure);
}

/* The contract for destroying a closure others call: stop the callers, wait
 * until their calls are over, then destroy. Here a flag stops the callers and
 * joining them is the wait; the destroy notify then runs exactly once, after
 * the last call. */
typedef struct stoppable_caller {
    void (*function)(void);
    atomic_bool *stop;
    atomic_long *calls_after_destroy_began;
    atomic_bool *destroying;
} stoppable_caller;

static atomic_long running_calls;

static void count_running_call(dc_invocation *call, void *user_data) {
    (void)call;
    atomic_long *calls = user_data;
    atomic_fetch_add(calls, 1);
}

static void *call_until_stopped(void *context) {
    stoppable_caller *c = context;
    while (!atomic_load(c->stop)) {
        if (atomic_load(c->destroying)) atomic_fetch_add(c->calls_after_destroy_began, 1);
        c->function();
    }
    return NULL;
}

static int notifies_when_destroyed;
static long calls_when_destroyed;
static void note_destroy(void *user_data) {
    notifies_when_destroyed++;
    calls_when_destroyed = atomic_load((atomic_long *)user_data);
}

static void a_closure_called_on_other_threads_is_destroyed_once_they_have_stopped(void **state) {
    (void)state;
    dc_signature *signature = signature_of("v");
    dc_closure *closure = NULL;
    atomic_store(&running_calls, 0);
    notifies_when_destroyed = 0;
    assert_ok(dc_closure_create(signature, count_running_call, &running_calls, note_destroy, &closure));
    dc_signature_release(signature);

    atomic_bool stop = false, destroying = false;
    atomic_long late = 0;
    stoppable_caller caller = {dc_closure_function(closure), &stop, &late, &destroying};
    pthread_t threads[3];
    for (int t = 0; t < 3; t++) assert_int_equal(pthread_create(&threads[t], NULL, call_until_stopped, &caller), 0);
    uint64_t deadline = deadline_after_ms(10000);
    while (atomic_load(&running_calls) < 3000 && now_ns() < deadline) sched_yield();
    assert_true(atomic_load(&running_calls) >= 3000);

    atomic_store(&stop, true);
    for (int t = 0; t < 3; t++) assert_int_equal(pthread_join(threads[t], NULL), 0);
    atomic_store(&destroying, true);
    long calls = atomic_load(&running_calls);
    dc_closure_destroy(closure);
    assert_int_equal(notifies_when_destroyed, 1);
    assert_int_equal(calls_when_destroyed, calls);
    assert_int_equal(atomic_load(&late), 0);
}

/* ---- table closures ---------------------------------------------------------------------- */

CALLEE static int32_t scaled_by_ten(int32_t value) { return value * 10; }
static int logged[8];
static int log_count;
CALLEE static void log_value(int32_t value) { logged[log_count++] = value; }

static void a_table_closure_executes_its_event_and_returns_the_first_value(void **state) {
    (void)state;
    dc_table *table = NULL;
    assert_ok(dc_table_create("callbacks", NULL, &table));
    dc_signature *returning = signature_of("ii");
    dc_signature *logging = signature_of("vi");
    dc_closure *closure = NULL;
    assert_ok(dc_table_closure_create(table, "scale", returning, &closure));
    int32_t (*scale)(int32_t) = (int32_t (*)(int32_t))dc_closure_function(closure);

    assert_int_equal(scale(4), 0); /* no handler yet: the zero value */
    log_count = 0;
    assert_ok(dc_table_add(table, "scale", logging, DC_FUNCTION(log_value), NULL, NULL, NULL));
    assert_ok(dc_table_add(table, "scale", returning, DC_FUNCTION(scaled_by_ten), NULL, NULL, NULL));
    assert_int_equal(scale(4), 40);
    assert_int_equal(scale(-2), -20);
    assert_int_equal(log_count, 2);
    assert_int_equal(logged[0], 4);
    assert_int_equal(logged[1], -2);

    dc_closure_destroy(closure);
    dc_signature_release(returning);
    dc_signature_release(logging);
    dc_table_destroy(table);
}

CALLEE static double half(double value) { return value / 2; }
CALLEE static double one_half(void) { return 0.5; }

typedef struct failures {
    int count;
    dc_status status;
    char message[512];
    const dc_closure *closure;
} failures;

static void note_failure(const dc_closure *closure, dc_status status, const char *message, void *user_data) {
    failures *seen = user_data;
    seen->count++;
    seen->status = status;
    seen->closure = closure;
    snprintf(seen->message, sizeof seen->message, "%s", message);
}

static void a_failed_execute_returns_zero_and_reaches_the_error_handler(void **state) {
    (void)state;
    dc_table *table = NULL;
    assert_ok(dc_table_create("strict", NULL, &table));
    dc_signature *taking_int = signature_of("ii");
    dc_signature *taking_double = signature_of("dd");
    dc_closure *closure = NULL;
    assert_ok(dc_table_closure_create(table, "convert", taking_int, &closure));
    failures seen = {0, DC_OK, "", NULL};
    dc_closure_set_error_handler(closure, note_failure, &seen);
    int32_t (*convert)(int32_t) = (int32_t (*)(int32_t))dc_closure_function(closure);

    /* An int32 argument does not fit a double parameter: the execute fails. */
    assert_ok(dc_table_add(table, "convert", taking_double, DC_FUNCTION(half), NULL, NULL, NULL));
    assert_int_equal(convert(8), 0);
    assert_int_equal(seen.count, 1);
    assert_int_equal(seen.status, DC_ERR_TYPE);
    assert_ptr_equal(seen.closure, closure);
    assert_true(dc_test_message_mentions(seen.message, "convert"));
    assert_true(dc_test_message_mentions(seen.message, "double"));

    /* A return value that does not fit the closure's return type. */
    dc_table_remove_event(table, "convert", NULL);
    dc_signature *taking_any_returning_double = signature_of("d");
    assert_ok(dc_table_add(table, "convert", taking_any_returning_double, DC_FUNCTION(one_half), NULL, NULL, NULL));
    assert_int_equal(convert(8), 0);
    assert_int_equal(seen.count, 2);
    assert_int_equal(seen.status, DC_ERR_TYPE);
    assert_true(dc_test_message_mentions(seen.message, "return value"));

    dc_closure_destroy(closure);
    dc_signature_release(taking_int);
    dc_signature_release(taking_double);
    dc_signature_release(taking_any_returning_double);
    dc_table_destroy(table);
}

/* A C library calling its callback on a thread of its own. */
typedef struct worker {
    void (*callback)(int32_t);
    int32_t first;
    int32_t count;
} worker;

static void *call_back_from_a_worker(void *context) {
    worker *w = context;
    for (int32_t i = 0; i < w->count; i++) w->callback(w->first + i);
    return NULL;
}

static pthread_t delivered_on[8];
static int32_t delivered[8];
static int delivered_count;
CALLEE static void record_delivery(int32_t value) {
    delivered_on[delivered_count] = pthread_self();
    delivered[delivered_count++] = value;
}

static void a_table_closure_called_on_another_thread_delivers_on_the_queue_owner(void **state) {
    (void)state;
    dc_table *table = NULL;
    assert_ok(dc_table_create("worker", NULL, &table));
    dc_queue *queue = NULL;
    assert_ok(dc_queue_create(&queue));
    dc_signature *signature = signature_of("vi");
    dc_handler_options options = {.queue = queue};
    assert_ok(dc_table_add(table, "progress", signature, DC_FUNCTION(record_delivery), NULL, &options, NULL));
    dc_closure *closure = NULL;
    assert_ok(dc_table_closure_create(table, "progress", signature, &closure));

    delivered_count = 0;
    worker w = {(void (*)(int32_t))dc_closure_function(closure), 100, 5};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, call_back_from_a_worker, &w), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(delivered_count, 0);
    assert_int_equal(dc_queue_pending(queue), 5);

    size_t drained = 0;
    assert_ok(dc_queue_drain(queue, &drained));
    assert_int_equal(drained, 5);
    assert_int_equal(delivered_count, 5);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(delivered[i], 100 + i);
        assert_true(pthread_equal(delivered_on[i], pthread_self()));
    }

    dc_closure_destroy(closure);
    dc_table_destroy(table);
    dc_queue_destroy(queue);
    dc_signature_release(signature);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(qsort_and_bsearch_take_a_comparator_that_carries_state),
        cmocka_unit_test(tsearch_builds_a_tree_that_twalk_visits_in_order),
        cmocka_unit_test(nftw_walks_a_tree_and_the_callback_reads_each_stat),
        cmocka_unit_test(dl_iterate_phdr_reports_every_loaded_object),
        cmocka_unit_test(pthread_create_runs_a_start_routine_made_at_run_time),
        cmocka_unit_test(a_call_whose_handler_sets_nothing_returns_zero),
        cmocka_unit_test(a_handler_changes_arguments_resends_and_sets_the_result),
        cmocka_unit_test(a_scalar_return_is_the_last_value_set_or_invoked),
        cmocka_unit_test(a_negative_int8_set_reaches_the_caller_sign_extended),
        cmocka_unit_test(misuse_inside_a_call_is_a_status_and_leaves_the_return_value),
        cmocka_unit_test(invoking_a_forwarded_call_without_a_function_is_a_state_error),
        cmocka_unit_test(destroy_notify_runs_once_with_the_user_data),
        cmocka_unit_test(bad_input_is_a_status_and_nothing_is_made),
        cmocka_unit_test(a_closure_called_from_four_threads_at_once_gives_each_call_its_own_invocation),
        cmocka_unit_test(a_closure_called_on_other_threads_is_destroyed_once_they_have_stopped),
        cmocka_unit_test(a_table_closure_executes_its_event_and_returns_the_first_value),
        cmocka_unit_test(a_failed_execute_returns_zero_and_reaches_the_error_handler),
        cmocka_unit_test(a_table_closure_called_on_another_thread_delivers_on_the_queue_owner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
