/*
 * reclaim.c — read-side sections for lock-free executes, and freeing what
 * writers unlinked once no reader can hold it. See internal.h for the scheme.
 */
#include "internal.h"
#include "platform.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Atomic uint64_t dc__global_epoch = 1;
bool dc__asymmetric_fences = false;
_Thread_local dc_thread_record *dc__current_record;

static _Atomic(dc_thread_record *) records;
/* Records in use by live threads: a thread that has never entered a read-side
 * section has none, so it cannot be inside one. */
_Atomic unsigned dc__records_in_use;
static pthread_once_t initialize_once = PTHREAD_ONCE_INIT;
static pthread_key_t record_key;

/* ---- fences ---------------------------------------------------------------------- */

static void drop_deferred_at_thread_exit(dc_thread_record *record);

static void release_record_at_thread_exit(void *record_pointer) {
    dc_thread_record *record = record_pointer;
    drop_deferred_at_thread_exit(record);
    atomic_store_explicit(&record->epoch, 0, memory_order_release);
    atomic_store_explicit(&record->in_use, false, memory_order_release);
    atomic_fetch_sub_explicit(&dc__records_in_use, 1, memory_order_release);
}

static void initialize(void) {
    pthread_key_create(&record_key, release_record_at_thread_exit);
    dc__asymmetric_fences = dc__platform_fence_register();
}

void dc__reclaim_initialize(void) { pthread_once(&initialize_once, initialize); }

static bool heavy_fence_is_costly(void) { return dc__asymmetric_fences && dc__others_may_read(); }

/*
 * Readers pair their compiler-only fence with this one, which must therefore
 * interrupt every other thread that may be inside a read-side section (the
 * platform's process-wide fence, platform.h). No other thread may be when no
 * other thread has a record: a thread takes its record, counting itself in
 * dc__records_in_use and then fencing in full, before its first section.
 * With the full fence below between the caller's earlier stores and its load
 * of the count, either the count shows the newcomer or the newcomer's
 * section reads what the caller stored (two full fences forbid both
 * missing). A program whose executes and writes all happen on one thread
 * then adds and removes without a system call.
 */
void dc__heavy_fence(void) {
    atomic_thread_fence(memory_order_seq_cst);
    if (heavy_fence_is_costly() && !dc__platform_fence_all_threads()) atomic_thread_fence(memory_order_seq_cst);
}

/* ---- thread records -------------------------------------------------------------- */

dc_thread_record *dc__thread_record_attach(void) {
    dc__reclaim_initialize();
    dc_thread_record *record = NULL;
    /* Adopt the record of a thread that has exited, or add a new one. */
    for (dc_thread_record *r = atomic_load_explicit(&records, memory_order_acquire); r != NULL; r = r->next) {
        bool free_record = false;
        if (!atomic_load_explicit(&r->in_use, memory_order_relaxed) &&
            atomic_compare_exchange_strong(&r->in_use, &free_record, true)) {
            record = r;
            break;
        }
    }
    if (record == NULL) {
        record = aligned_alloc(_Alignof(dc_thread_record), sizeof *record);
        if (record == NULL) return NULL;
        memset(record, 0, sizeof *record);
        atomic_init(&record->in_use, true);
        dc_thread_record *head = atomic_load_explicit(&records, memory_order_relaxed);
        do {
            record->next = head;
        } while (!atomic_compare_exchange_weak_explicit(&records, &head, record, memory_order_release,
                                                        memory_order_relaxed));
    }
    /* Counted, and fenced, before this thread's first read-side section: see
     * dc__heavy_fence(). Once per thread. */
    atomic_fetch_add_explicit(&dc__records_in_use, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    record->depth = 0;
    pthread_setspecific(record_key, record);
    dc__current_record = record;
    return record;
}

/* ---- owed work ----------------------------------------------------------------- */

void dc__defer(dc_thread_record *record, dc__deferred *work) {
    dc__deferred *head = atomic_load_explicit(&record->deferred, memory_order_relaxed);
    do {
        work->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&record->deferred, &head, work, memory_order_release,
                                                    memory_order_relaxed));
}

/* Table destroys owed by a thread outside every section but inside a
 * removal (record->deferred holds those owed inside a section). */
static _Thread_local dc__deferred *owed_outside;
static _Thread_local unsigned finishing;

/* Runs the work of `*list` (taken whole), keeping what is not ready;
 * true when anything ran. */
static bool run_list(dc__deferred *list, bool outside, dc__deferred **kept) {
    bool ran = false;
    while (list != NULL) {
        dc__deferred *work = list;
        list = work->next;
        if (work->run(work, outside)) { /* may free `work` */
            ran = true;
        } else {
            work->next = *kept;
            *kept = work;
        }
    }
    return ran;
}

/* Runs the record's owed work once; true when anything ran. */
static bool run_deferred(dc_thread_record *record, bool outside) {
    dc__deferred *kept = NULL;
    bool ran = run_list(atomic_exchange_explicit(&record->deferred, NULL, memory_order_acquire), outside, &kept);
    while (kept != NULL) {
        dc__deferred *work = kept;
        kept = work->next;
        dc__defer(record, work);
    }
    return ran;
}

/* Runs what waits for the thread to be outside every section and every
 * removal, once it is there. */
static void run_outside(dc_thread_record *record) {
    if (finishing != 0 || (record != NULL && record->depth != 0)) return;
    for (;;) {
        dc__deferred *list = owed_outside, *kept = NULL;
        owed_outside = NULL;
        bool ran = run_list(list, true, &kept);
        owed_outside = kept;
        if (record != NULL && atomic_load_explicit(&record->deferred, memory_order_acquire) != NULL)
            ran |= run_deferred(record, true);
        if (!ran) return;
    }
}

void dc__read_leave_deferring(dc_thread_record *record, unsigned depth) {
    run_deferred(record, false);
    record->depth = depth - 1;
    if (depth == 1) {
        atomic_store_explicit(&record->epoch, 0, memory_order_release);
        run_outside(record);
    }
}

void dc__defer_outside(dc__deferred *work) {
    dc_thread_record *record = dc__current_record;
    if (record != NULL && record->depth > 0) {
        dc__defer(record, work);
    } else {
        work->next = owed_outside;
        owed_outside = work;
    }
}

bool dc__inside(void) {
    dc_thread_record *record = dc__current_record;
    return finishing != 0 || (record != NULL && record->depth > 0);
}

void dc__finishing_begin(void) { finishing++; }

void dc__finishing_end(void) {
    if (--finishing != 0) return;
    dc_thread_record *record = dc__current_record;
    if (owed_outside != NULL || (record != NULL && atomic_load_explicit(&record->deferred, memory_order_relaxed) != NULL))
        run_outside(record);
}

/* ---- waiting for calls in progress ---------------------------------------------- */

void dc__back_off(unsigned attempt) {
    if (attempt < 64) {
        sched_yield();
    } else {
        struct timespec pause = {0, 50 * 1000};
        nanosleep(&pause, NULL);
    }
}

static bool record_calls(const dc_thread_record *record, const void *handler) {
    for (unsigned depth = 0; depth <= DC_MAX_EXECUTE_DEPTH; depth++)
        if (atomic_load_explicit(&record->frames[depth].calling, memory_order_acquire) == handler) return true;
    return false;
}

/*
 * The finishing of a removed handler whose last calls run on threads the
 * remover did not wait for. Each such thread gets a ticket on its owed work;
 * a ticket is resolved by its thread at the first leave after its calls of
 * the handler have returned, or by the remover when it sees them over. The
 * one who resolves the last part (the tickets, and the remover's own) calls
 * `finish`. The memory goes with the last holder: each list holding a
 * ticket, and the remover.
 */
typedef struct handover handover;

typedef struct handover_ticket {
    dc__deferred work; /* first: run() gets the ticket */
    handover *owner;
    dc_thread_record *record;
    _Atomic bool resolved;
} handover_ticket;

struct handover {
    dc__finish_function finish;
    void *context;
    void *handler;
    _Atomic uint32_t unresolved;
    _Atomic uint32_t holders;
    uint32_t ticket_count;
    handover_ticket tickets[];
};

static void resolve_part(handover *h) {
    if (atomic_fetch_sub_explicit(&h->unresolved, 1, memory_order_acq_rel) == 1) h->finish(h->context, h->handler);
}

static void let_go(handover *h) {
    if (atomic_fetch_sub_explicit(&h->holders, 1, memory_order_acq_rel) == 1) free(h);
}

static bool claim(handover_ticket *ticket) {
    bool unclaimed = false;
    return atomic_compare_exchange_strong_explicit(&ticket->resolved, &unclaimed, true, memory_order_acq_rel,
                                                   memory_order_acquire);
}

/*
 * A ticket at a leave of its thread. Inside a section (`outside` false),
 * the table the handler belongs to is still there: the thread has been in
 * its section since before it called the handler, and a destroy waits for
 * every such section (its own thread's destroys wait for the outside). Once
 * outside, it is no longer known to be there, and a ticket still unresolved
 * is the remover's to resolve: one that the remover left to this thread,
 * having seen the call still running, is seen by the leave that follows the
 * call's end, inside the section (dc__read_leave_fencing()).
 */
static bool run_ticket(dc__deferred *work, bool outside) {
    handover_ticket *ticket = (handover_ticket *)work;
    handover *h = ticket->owner;
    if (!outside) {
        if (!atomic_load_explicit(&ticket->resolved, memory_order_acquire) && record_calls(ticket->record, h->handler))
            return false;
        if (claim(ticket)) resolve_part(h);
    }
    let_go(h);
    return true;
}

static void drop_deferred_at_thread_exit(dc_thread_record *record) {
    /* Outside every section: only tickets can be left, and they are the
     * removers' to resolve. */
    dc__deferred *kept = NULL;
    run_list(atomic_exchange_explicit(&record->deferred, NULL, memory_order_acquire), true, &kept);
}

static size_t record_count(dc_thread_record *first) {
    size_t count = 0;
    for (dc_thread_record *r = first; r != NULL; r = r->next) count++;
    return count;
}

/* Waits until `record` is not calling `handler`; false, leaving it be, once
 * it is itself waiting inside a section and `may_skip`. */
static bool wait_for_record(dc_thread_record *record, const void *handler, bool may_skip) {
    for (unsigned depth = 0; depth <= DC_MAX_EXECUTE_DEPTH; depth++) {
        for (unsigned attempt = 0;
             atomic_load_explicit(&record->frames[depth].calling, memory_order_acquire) == handler; attempt++) {
            if (may_skip && atomic_load_explicit(&record->waiting, memory_order_seq_cst)) return false;
            dc__back_off(attempt);
        }
    }
    return true;
}

bool dc__wait_for_calls(void *handler, dc__finish_function finish, void *context) {
    /* After the caller's heavy fence: no other thread has a record, so none
     * is in a section, and one that enters now sees the handler's state. */
    if (!dc__others_may_read()) return true;
    dc_thread_record *self = dc__current_record;
    bool may_skip = self != NULL && self->depth > 0;
    if (may_skip) atomic_store_explicit(&self->waiting, true, memory_order_seq_cst);
    dc_thread_record *first = atomic_load_explicit(&records, memory_order_acquire);
    handover *h = NULL;
    for (dc_thread_record *r = first; r != NULL; r = r->next) {
        /* A record not in use belongs to no thread: nothing of it runs, and
         * the thread that adopts it next cannot call a removed handler. */
        if (r == self || !atomic_load_explicit(&r->in_use, memory_order_acquire) ||
            wait_for_record(r, handler, may_skip))
            continue;
        if (finish == NULL) continue; /* a block: nothing to finish */
        if (h == NULL) {
            size_t capacity = record_count(first);
            h = malloc(sizeof *h + capacity * sizeof h->tickets[0]);
            if (h == NULL) {
                /* No memory to hand the rest over: wait for the call after all. */
                wait_for_record(r, handler, false);
                continue;
            }
            h->finish = finish;
            h->context = context;
            h->handler = handler;
            atomic_init(&h->unresolved, 1);
            atomic_init(&h->holders, 1);
            h->ticket_count = 0;
        }
        handover_ticket *ticket = &h->tickets[h->ticket_count++];
        ticket->work.run = run_ticket;
        ticket->owner = h;
        ticket->record = r;
        atomic_init(&ticket->resolved, false);
    }
    if (may_skip) atomic_store_explicit(&self->waiting, false, memory_order_release);
    if (h == NULL) return true;

    atomic_store_explicit(&h->unresolved, h->ticket_count + 1, memory_order_relaxed);
    atomic_store_explicit(&h->holders, h->ticket_count + 1, memory_order_relaxed);
    for (uint32_t i = 0; i < h->ticket_count; i++) dc__defer(h->tickets[i].record, &h->tickets[i].work);
    /* Pairs with the light fence of the handed threads' leaves. */
    dc__heavy_fence();
    for (uint32_t i = 0; i < h->ticket_count; i++)
        if (!record_calls(h->tickets[i].record, handler) && claim(&h->tickets[i])) resolve_part(h);
    resolve_part(h);
    let_go(h);
    return false;
}

/* ---- calls a binding makes (dispatch_core_binding.h) ------------------------------ */

bool dc__call_begin(const void *callee) {
    dc_thread_record *record = dc__current_record;
    if (record != NULL && record->depth >= DC_MAX_EXECUTE_DEPTH) return false;
    unsigned depth;
    if ((record = dc__read_begin_keeping(&depth)) == NULL) return false;
    dc__read_calling(record, callee);
    return true;
}

void dc__call_end(void) { dc__read_end(dc__current_record); }

void dc__call_wait(const void *callee) {
    /* Pairs with the light fence of dc__call_begin(), as a remove's does
     * with an execute's. */
    dc__heavy_fence();
    dc__wait_for_calls((void *)callee, NULL, NULL);
}

void dc__synchronize(void) {
    uint64_t entered_before = atomic_fetch_add_explicit(&dc__global_epoch, 1, memory_order_acq_rel);
    dc__heavy_fence();
    dc_thread_record *self = dc__current_record;
    for (dc_thread_record *r = atomic_load_explicit(&records, memory_order_acquire); r != NULL; r = r->next) {
        if (r == self) continue;
        for (unsigned attempt = 0;; attempt++) {
            uint64_t epoch = atomic_load_explicit(&r->epoch, memory_order_acquire);
            if (epoch == 0 || epoch > entered_before) break;
            dc__back_off(attempt);
        }
    }
}

/* ---- deferred freeing ------------------------------------------------------------- */

void dc__retire(dc_retired_list *list, dc_retired *retired, void *object, void *context,
                void (*release)(void *object, void *context)) {
    retired->object = object;
    retired->context = context;
    retired->release = release;
    retired->epoch = atomic_fetch_add_explicit(&dc__global_epoch, 1, memory_order_acq_rel);
    retired->next = NULL;
    if (list->newest != NULL)
        list->newest->next = retired;
    else
        list->oldest = retired;
    list->newest = retired;
    list->count++;
}

/* The oldest epoch any reader other than one outside all sections still holds;
 * UINT64_MAX when none. */
static uint64_t oldest_reader_epoch(void) {
    uint64_t oldest = UINT64_MAX;
    for (dc_thread_record *r = atomic_load_explicit(&records, memory_order_acquire); r != NULL; r = r->next) {
        uint64_t epoch = atomic_load_explicit(&r->epoch, memory_order_acquire);
        if (epoch != 0 && epoch < oldest) oldest = epoch;
    }
    return oldest;
}

/* Retired objects that wait for a reclaim when its fence is a system call
 * (other threads read): writers pay it once per this many, not per write.
 * Otherwise everything that can go goes at once, so that a grown handler
 * array's predecessors do not outlive it. */
enum { RECLAIM_BATCH = 16 };

void dc__reclaim(dc_retired_list *list, bool everything) {
    if (list->oldest == NULL) return;
    uint64_t limit = UINT64_MAX;
    if (!everything) {
        if (heavy_fence_is_costly() && list->count < RECLAIM_BATCH) return;
        /* Only what was retired before this fence is known to be unreachable
         * by readers that enter after it. */
        uint64_t fenced = atomic_load_explicit(&dc__global_epoch, memory_order_acquire);
        dc__heavy_fence();
        uint64_t oldest = oldest_reader_epoch();
        limit = oldest < fenced ? oldest : fenced;
    }
    /* Oldest first, in the order of their epochs: what can go is in front. */
    while (list->oldest != NULL && list->oldest->epoch < limit) {
        dc_retired *retired = list->oldest;
        list->oldest = retired->next;
        if (list->oldest == NULL) list->newest = NULL;
        list->count--;
        retired->release(retired->object, retired->context);
        free(retired);
    }
}
