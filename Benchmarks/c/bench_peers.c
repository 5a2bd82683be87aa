/*
 * bench_peers.c — the event table beside the libraries a C or C++ program
 * would otherwise use for named events, in one run on one machine:
 *
 *   GLib      g_signal_emit on a GObject signal with no parameters, and
 *             g_signal_emit_by_name, the string form; handlers connected with
 *             G_CONNECT_SWAPPED, so each is called with its own data pointer
 *             first, exactly as a dc_table handler is called with its argument;
 *   libsigc++ sigc::signal<void(void *)>::emit, slots made with sigc::ptr_fun;
 *   dc_table  dc_table_execute_id and dc_table_execute (a 16-character key).
 *
 * Every handler is one of the same ten functions (bench_handlers.c), each
 * adding one to the object it is given, and every sample checks that all of
 * them ran. Baselines: one call through a volatile function pointer, and ten
 * through an array of them.
 *
 * Figures, in nanoseconds per emit unless noted:
 *   dispatch.*.1, dispatch.*.10   emit with 1 and 10 handlers
 *   register.*                    ns per connect: 10000 handlers, each with its
 *                                 own data, on one fresh signal / event
 *   memory.*                      heap growth (mallinfo2) per handler with
 *                                 100000 such handlers
 *
 *   bench_peers [--quick] [--runs N] [--tsv]
 *   bench_peers --count CASE N     run CASE (a dispatch.* name) N times inside
 *                                  bench_counted(), for callgrind
 *   bench_peers --list             the dispatch.* names
 */
#include <glib-object.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_callees.h"
#include "bench_handlers.h"
#include "bench_sigc.h"
#include "bench_support.h"
#include "dispatch_core.h"

enum { REGISTER_COUNT = 10000, MEMORY_COUNT = 100000 };

static const char program[] = "bench_peers";
static const char sixteen_character_key[] = "player.did_reset";

/* ---- a GObject with one signal ------------------------------------------------- */

typedef struct BenchEmitter {
    GObject parent;
} BenchEmitter;

typedef struct BenchEmitterClass {
    GObjectClass parent_class;
} BenchEmitterClass;

static guint fire_signal, changed_signal, hooked_signal;

G_DEFINE_TYPE(BenchEmitter, bench_emitter, G_TYPE_OBJECT)

static void bench_emitter_class_init(BenchEmitterClass *klass) {
    /* No class handler and no accumulator: the plain notification signal. */
    fire_signal = g_signal_new("fire", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                               NULL, G_TYPE_NONE, 0);
    /* The same with details, as GObject's "notify" has them. */
    changed_signal = g_signal_new("changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 0);
    /* One an emission hook watches. */
    hooked_signal = g_signal_new("hooked", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                 G_TYPE_NONE, 0);
}

static void bench_emitter_init(BenchEmitter *self) {
    (void)self;
}

static GObject *new_emitter(void) {
    return g_object_new(bench_emitter_get_type(), NULL);
}

/* ---- the cases ------------------------------------------------------------------ */

typedef enum dispatch_case {
    DIRECT_1,
    DIRECT_10,
    TABLE_ID_1,
    TABLE_ID_10,
    TABLE_KEY_1,
    GLIB_EMIT_1,
    GLIB_EMIT_10,
    GLIB_BY_NAME_1,
    SIGC_EMIT_1,
    SIGC_EMIT_10,
    TABLE_DETAIL_2,
    GLIB_DETAIL_2,
    TABLE_HOOK_1,
    GLIB_HOOK_1,
    DISPATCH_CASE_COUNT
} dispatch_case;

static const char *const case_names[DISPATCH_CASE_COUNT] = {
    "dispatch.direct.1", "dispatch.direct.10", "dispatch.table_id.1",  "dispatch.table_id.10",
    "dispatch.table_key.1", "dispatch.glib_emit.1", "dispatch.glib_emit.10",
    "dispatch.glib_by_name.1", "dispatch.sigc_emit.1", "dispatch.sigc_emit.10", "dispatch.table_detail.2",
    "dispatch.glib_detail.2", "dispatch.table_hook.1", "dispatch.glib_hook.1"};

static const uint64_t handlers_per_emit[DISPATCH_CASE_COUNT] = {1, 10, 1, 10, 1, 1, 10, 1, 1, 10, 2, 2, 1, 1};

typedef struct peers {
    dc_table *table;
    dc_event_id one, ten;
    dc_event_id detailed; /* "changed::size": one handler on it, one on "changed" */
    dc_event_id hooked;   /* one handler, one emission hook */
    char key[sizeof sixteen_character_key];
    GObject *emitter_one, *emitter_ten, *emitter_detail;
    GQuark size_detail;
    bench_sigc_signal *sigc_one, *sigc_ten;
    dispatch_case current; /* the case run_case runs, for bench_counted */
    uint64_t iterations[DISPATCH_CASE_COUNT];
    double best[DISPATCH_CASE_COUNT];
} peers;

static bench_object object;

/* Read on every call, so the compiler must make each call for real. */
static void (*volatile direct_touch)(void *) = bench_touch;
static void (*volatile direct_handlers[BENCH_HANDLER_COUNT])(void *);

static void die(const char *what, dc_status status) {
    fprintf(stderr, "%s: %s: %s (%s)\n", program, what, dc_status_name(status),
            dc_last_error_message());
    exit(2);
}

static void die_uncalled(const char *what) {
    fprintf(stderr, "%s: %s: not every handler was called every time\n", program, what);
    exit(2);
}

__attribute__((noinline)) static void run_case(void *context, uint64_t n) {
    peers *p = context;
    const dc_value arguments[] = {dc_pointer(&object)};
    switch (p->current) {
    case DIRECT_1:
        for (uint64_t i = 0; i < n; i++) direct_touch(&object);
        break;
    case DIRECT_10:
        for (uint64_t i = 0; i < n; i++) {
            for (int h = 0; h < BENCH_HANDLER_COUNT; h++) direct_handlers[h](&object);
        }
        break;
    case TABLE_ID_1:
        for (uint64_t i = 0; i < n; i++) dc_table_execute_id(p->table, p->one, arguments, 1, NULL);
        break;
    case TABLE_ID_10:
        for (uint64_t i = 0; i < n; i++) dc_table_execute_id(p->table, p->ten, arguments, 1, NULL);
        break;
    case TABLE_KEY_1:
        for (uint64_t i = 0; i < n; i++) dc_table_execute(p->table, p->key, arguments, 1, NULL);
        break;
    case GLIB_EMIT_1:
        for (uint64_t i = 0; i < n; i++) g_signal_emit(p->emitter_one, fire_signal, 0);
        break;
    case GLIB_EMIT_10:
        for (uint64_t i = 0; i < n; i++) g_signal_emit(p->emitter_ten, fire_signal, 0);
        break;
    case GLIB_BY_NAME_1:
        for (uint64_t i = 0; i < n; i++) g_signal_emit_by_name(p->emitter_one, "fire");
        break;
    case SIGC_EMIT_1:
        for (uint64_t i = 0; i < n; i++) bench_sigc_emit(p->sigc_one, &object);
        break;
    case SIGC_EMIT_10:
        for (uint64_t i = 0; i < n; i++) bench_sigc_emit(p->sigc_ten, &object);
        break;
    case TABLE_DETAIL_2:
        for (uint64_t i = 0; i < n; i++) dc_table_execute_id(p->table, p->detailed, arguments, 1, NULL);
        break;
    case GLIB_DETAIL_2:
        for (uint64_t i = 0; i < n; i++) g_signal_emit(p->emitter_detail, changed_signal, p->size_detail);
        break;
    case TABLE_HOOK_1:
        for (uint64_t i = 0; i < n; i++) dc_table_execute_id(p->table, p->hooked, arguments, 1, NULL);
        break;
    default:
        for (uint64_t i = 0; i < n; i++) g_signal_emit(p->emitter_detail, hooked_signal, 0);
        break;
    }
}

/* The emission hooks: each counts its calls, as a tracer would. */
static volatile uint64_t hook_calls;
static bool table_hook(const dc_emission *emission, void *data) {
    (void)emission, (void)data;
    hook_calls = hook_calls + 1;
    return true;
}
static gboolean glib_hook(GSignalInvocationHint *hint, guint count, const GValue *values, gpointer data) {
    (void)hint, (void)count, (void)values, (void)data;
    hook_calls = hook_calls + 1;
    return TRUE;
}

/* ns per emit; exits when a handler was skipped (a broken path must not look fast). */
static double time_case(void *context, int which, uint64_t n) {
    peers *p = context;
    p->current = (dispatch_case)which;
    uint64_t touches_before = object.touches;
    uint64_t start = bench_now_ns();
    run_case(p, n);
    uint64_t elapsed = bench_now_ns() - start;
    if (object.touches - touches_before != n * handlers_per_emit[which]) {
        die_uncalled(case_names[which]);
    }
    return (double)elapsed / (double)n;
}

static void prepare(peers *p, dc_signature *signature) {
    dc_status status = dc_table_create("peers", NULL, &p->table);
    if (status != DC_OK) die("dc_table_create", status);
    if ((status = dc_table_intern(p->table, "one", &p->one)) != DC_OK ||
        (status = dc_table_intern(p->table, "ten", &p->ten)) != DC_OK) {
        die("dc_table_intern", status);
    }
    memcpy(p->key, sixteen_character_key, sizeof p->key);
    status = dc_table_add_id(p->table, p->one, signature, DC_FUNCTION(bench_touch), NULL, NULL, NULL);
    if (status == DC_OK) {
        status = dc_table_add(p->table, p->key, signature, DC_FUNCTION(bench_touch), NULL, NULL,
                              NULL);
    }
    if (status != DC_OK) die("dc_table_add", status);
    if ((status = dc_table_intern(p->table, "changed::size", &p->detailed)) != DC_OK ||
        (status = dc_table_intern(p->table, "hooked", &p->hooked)) != DC_OK)
        die("dc_table_intern", status);
    if ((status = dc_table_add(p->table, "changed", signature, DC_FUNCTION(bench_touch), NULL, NULL, NULL)) != DC_OK ||
        (status = dc_table_add_id(p->table, p->detailed, signature, DC_FUNCTION(bench_handlers[1]), NULL, NULL,
                                  NULL)) != DC_OK ||
        (status = dc_table_add_id(p->table, p->hooked, signature, DC_FUNCTION(bench_touch), NULL, NULL, NULL)) !=
            DC_OK ||
        (status = dc_table_add_emission_hook(p->table, "hooked", table_hook, NULL, NULL, NULL)) != DC_OK)
        die("dc_table_add", status);

    p->emitter_detail = new_emitter();
    p->size_detail = g_quark_from_static_string("size");
    g_signal_connect_swapped(p->emitter_detail, "changed", G_CALLBACK(bench_touch), &object);
    g_signal_connect_swapped(p->emitter_detail, "changed::size", G_CALLBACK(bench_handlers[1]), &object);
    g_signal_connect_swapped(p->emitter_detail, "hooked", G_CALLBACK(bench_touch), &object);
    g_signal_add_emission_hook(hooked_signal, 0, glib_hook, NULL, NULL);

    p->emitter_one = new_emitter();
    p->emitter_ten = new_emitter();
    g_signal_connect_swapped(p->emitter_one, "fire", G_CALLBACK(bench_touch), &object);
    p->sigc_one = bench_sigc_create();
    p->sigc_ten = bench_sigc_create();
    bench_sigc_connect(p->sigc_one, bench_touch);
    for (int h = 0; h < BENCH_HANDLER_COUNT; h++) {
        direct_handlers[h] = bench_handlers[h];
        status = dc_table_add_id(p->table, p->ten, signature, DC_FUNCTION(bench_handlers[h]), NULL,
                                 NULL, NULL);
        if (status != DC_OK) die("dc_table_add_id", status);
        g_signal_connect_swapped(p->emitter_ten, "fire", G_CALLBACK(bench_handlers[h]), &object);
        bench_sigc_connect(p->sigc_ten, bench_handlers[h]);
    }
    for (int c = 0; c < DISPATCH_CASE_COUNT; c++) {
        p->best[c] = -1.0;
        time_case(p, c, 1); /* every path checked, and warm, before any sample */
    }
}

static void release(peers *p) {
    dc_table_destroy(p->table);
    g_object_unref(p->emitter_one);
    g_object_unref(p->emitter_detail);
    g_object_unref(p->emitter_ten);
    bench_sigc_destroy(p->sigc_one);
    bench_sigc_destroy(p->sigc_ten);
}

/* ---- registering and memory ------------------------------------------------------- */

typedef enum library { LIBRARY_TABLE, LIBRARY_GLIB, LIBRARY_SIGC, LIBRARY_COUNT } library;

static const char *const library_names[LIBRARY_COUNT] = {"table", "glib", "sigc"};

/* Distinct data for every handler; the handler never reads it. */
static char targets[MEMORY_COUNT];

typedef struct connections {
    dc_table *table;
    GObject *emitter;
    bench_sigc_signal *signal;
} connections;

static size_t heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

static void open_connections(library which, connections *c) {
    memset(c, 0, sizeof *c);
    switch (which) {
    case LIBRARY_TABLE: {
        dc_status status = dc_table_create("register", NULL, &c->table);
        if (status != DC_OK) die("dc_table_create", status);
        break;
    }
    case LIBRARY_GLIB: c->emitter = new_emitter(); break;
    default: c->signal = bench_sigc_create(); break;
    }
}

/* One handler with its own data, connected by the event's name as
 * g_signal_connect does. */
static void connect_one(library which, connections *c, dc_signature *signature,
                        void (*function)(void *), void *data) {
    switch (which) {
    case LIBRARY_TABLE: {
        dc_status status = dc_table_add(c->table, "fire", signature, DC_FUNCTION(function), data,
                                        NULL, NULL);
        if (status != DC_OK) die("dc_table_add", status);
        break;
    }
    case LIBRARY_GLIB:
        g_signal_connect_swapped(c->emitter, "fire", G_CALLBACK(function), data);
        break;
    default: bench_sigc_connect_bound(c->signal, function, data); break;
    }
}

static void close_connections(connections *c) {
    if (c->table != NULL) dc_table_destroy(c->table);
    if (c->emitter != NULL) g_object_unref(c->emitter);
    if (c->signal != NULL) bench_sigc_destroy(c->signal);
}

/* ns per connect of REGISTER_COUNT handlers on a fresh signal or event;
 * creating it and tearing it down are not timed. */
static double time_register(library which, dc_signature *signature) {
    connections c;
    open_connections(which, &c);
    uint64_t start = bench_now_ns();
    for (size_t i = 0; i < REGISTER_COUNT; i++) {
        connect_one(which, &c, signature, bench_count, &targets[i]);
    }
    double ns = (double)(bench_now_ns() - start) / REGISTER_COUNT;
    close_connections(&c);
    return ns;
}

/* Heap growth per handler. One handler is connected before measuring, so the
 * event's or signal's own one-time structures are not counted. */
static double bytes_per_handler(library which, dc_signature *signature) {
    connections c;
    open_connections(which, &c);
    connect_one(which, &c, signature, bench_touch, &object);
    size_t before = heap_in_use();
    for (size_t i = 0; i < MEMORY_COUNT; i++) {
        connect_one(which, &c, signature, bench_count, &targets[i]);
    }
    double bytes = ((double)heap_in_use() - (double)before) / MEMORY_COUNT;
    close_connections(&c);
    return bytes;
}

/* ---- main -------------------------------------------------------------------------- */

static int case_named(const char *name) {
    for (int c = 0; c < DISPATCH_CASE_COUNT; c++) {
        if (strcmp(case_names[c], name) == 0) return c;
    }
    fprintf(stderr, "%s: no case named %s (--list names them)\n", program, name);
    exit(2);
}

static void usage(void) {
    fprintf(stderr, "usage: %s [--quick] [--runs N] [--tsv] | --count CASE N | --list\n", program);
    exit(2);
}

int main(int argc, char **argv) {
    unsigned runs = 11;
    double sample_ms = 20;
    bool tsv = false;
    const char *count_case = NULL;
    uint64_t count_iterations = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            runs = 3, sample_ms = 5;
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = (unsigned)bench_parse_count(program, argv[++i]);
        } else if (strcmp(argv[i], "--tsv") == 0) {
            tsv = true;
        } else if (strcmp(argv[i], "--count") == 0 && i + 2 < argc) {
            count_case = argv[++i];
            count_iterations = bench_parse_count(program, argv[++i]);
        } else if (strcmp(argv[i], "--list") == 0) {
            for (int c = 0; c < DISPATCH_CASE_COUNT; c++) puts(case_names[c]);
            return 0;
        } else {
            usage();
        }
    }

    dc_signature *signature = NULL;
    dc_status status = dc_signature_create("v^v", &signature);
    if (status != DC_OK) die("dc_signature_create", status);
    peers p = {0};
    prepare(&p, signature);

    if (count_case != NULL) {
        p.current = (dispatch_case)case_named(count_case);
        uint64_t touches_before = object.touches;
        bench_counted(run_case, &p, count_iterations);
        if (object.touches - touches_before != count_iterations * handlers_per_emit[p.current]) {
            die_uncalled(count_case);
        }
        release(&p);
        dc_signature_release(signature);
        return 0;
    }

    for (int c = 0; c < DISPATCH_CASE_COUNT; c++) {
        p.iterations[c] = bench_calibrate(time_case, &p, c, sample_ms);
    }
    double best_register[LIBRARY_COUNT] = {-1.0, -1.0, -1.0};
    for (unsigned run = 0; run < runs; run++) {
        for (int c = 0; c < DISPATCH_CASE_COUNT; c++) {
            bench_keep_best(&p.best[c], time_case(&p, c, p.iterations[c]));
        }
        for (int l = 0; l < LIBRARY_COUNT; l++) {
            bench_keep_best(&best_register[l], time_register((library)l, signature));
        }
    }
    double memory[LIBRARY_COUNT];
    for (int l = 0; l < LIBRARY_COUNT; l++) memory[l] = bytes_per_handler((library)l, signature);

    char name[64];
    if (tsv) {
        for (int c = 0; c < DISPATCH_CASE_COUNT; c++) bench_tsv(case_names[c], p.best[c]);
        for (int l = 0; l < LIBRARY_COUNT; l++) {
            snprintf(name, sizeof name, "register.%s", library_names[l]);
            bench_tsv(name, best_register[l]);
            snprintf(name, sizeof name, "memory.%s", library_names[l]);
            bench_tsv(name, memory[l]);
        }
    } else {
        printf("%s: best of %u runs; GLib %u.%u.%u, libsigc++ %s\n\n", program, runs,
               glib_major_version, glib_minor_version, glib_micro_version, bench_sigc_version());
        for (int c = 0; c < DISPATCH_CASE_COUNT; c++) {
            int baseline = handlers_per_emit[c] == 1 ? DIRECT_1 : DIRECT_10;
            printf("  %-28s %8.2f ns   %6.2fx direct\n", case_names[c], p.best[c],
                   p.best[c] / p.best[baseline]);
        }
        printf("\n");
        for (int l = 0; l < LIBRARY_COUNT; l++) {
            printf("  register.%-19s %8.2f ns per connect\n", library_names[l], best_register[l]);
        }
        for (int l = 0; l < LIBRARY_COUNT; l++) {
            printf("  memory.%-21s %8.1f bytes per handler\n", library_names[l], memory[l]);
        }
    }
    release(&p);
    dc_signature_release(signature);
    return 0;
}
