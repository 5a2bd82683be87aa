/*
 * reclaim.c — read-side sections for lock-free executes, and freeing what
 * writers unlinked once no reader can hold it. See internal.h for the scheme.
 */
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

_Atomic uint64_t dc__global_epoch = 1;
bool dc__asymmetric_fences = false;
_Thread_local dc_thread_record *dc__current_record;

static _Atomic(dc_thread_record *) records;
/* Records in use by live threads: a thread that has never entered a read-side
 * section has none, so it cannot be inside one. */
static _Atomic unsigned records_in_use;
static pthread_once_t initialize_once = PTHREAD_ONCE_INIT;
static pthread_key_t record_key;

/* ---- fences ---------------------------------------------------------------------- */

#if defined(__linux__) && defined(SYS_membarrier)
static long membarrier(int command) { return syscall(SYS_membarrier, command, 0, 0); }
#endif

static void release_record_at_thread_exit(void *record_pointer) {
    dc_thread_record *record = record_pointer;
    atomic_store_explicit(&record->epoch, 0, memory_order_release);
    atomic_store_explicit(&record->in_use, false, memory_order_release);
    atomic_fetch_sub_explicit(&records_in_use, 1, memory_order_release);
}

static void initialize(void) {
    pthread_key_create(&record_key, release_record_at_thread_exit);
#if defined(__linux__) && defined(SYS_membarrier) && !defined(DC_NO_MEMBARRIER)
    long commands = membarrier(MEMBARRIER_CMD_QUERY);
    if (commands > 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
        membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
        dc__asymmetric_fences = true;
#endif
}

void dc__reclaim_initialize(void) { pthread_once(&initialize_once, initialize); }

/* Whether another thread may be inside a read-side section, so that
 * dc__heavy_fence() must be a system call. Read after a full fence, the
 * answer is exact for what the caller stored before it; read anywhere else it
 * is a guess (dc__reclaim uses it only to decide when to free). */
static bool heavy_fence_is_costly(void) {
    return dc__asymmetric_fences &&
           atomic_load_explicit(&records_in_use, memory_order_relaxed) > (dc__current_record != NULL ? 1u : 0u);
}

/*
 * Readers pair their compiler-only fence with this one, which must therefore
 * interrupt every other thread that may be inside a read-side section
 * (membarrier). No other thread may be when no other thread has a record: a
 * thread takes its record, counting itself in records_in_use and then
 * fencing in full, before its first section. With the full
 * fence below between the caller's earlier stores and its load of the count,
 * either the count shows the newcomer or the newcomer's section reads what
 * the caller stored (two full fences forbid both missing). A program whose
 * executes and writes all happen on one thread then adds and removes without
 * a system call.
 */
void dc__heavy_fence(void) {
    atomic_thread_fence(memory_order_seq_cst);
#if defined(__linux__) && defined(SYS_membarrier)
    if (heavy_fence_is_costly() && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
        atomic_thread_fence(memory_order_seq_cst);
#endif
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
    atomic_fetch_add_explicit(&records_in_use, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    record->depth = 0;
    pthread_setspecific(record_key, record);
    dc__current_record = record;
    return record;
}

/* ---- waiting for calls in progress ---------------------------------------------- */

static void back_off(unsigned attempt) {
    if (attempt < 64) {
        sched_yield();
    } else {
        struct timespec pause = {0, 50 * 1000};
        nanosleep(&pause, NULL);
    }
}

void dc__wait_for_calls(const void *handler) {
    dc_thread_record *self = dc__current_record;
    for (dc_thread_record *r = atomic_load_explicit(&records, memory_order_acquire); r != NULL; r = r->next) {
        if (r == self) continue; /* our own calls of it are already running: waiting would deadlock */
        for (unsigned depth = 0; depth <= DC_MAX_EXECUTE_DEPTH; depth++) {
            for (unsigned attempt = 0;
                 atomic_load_explicit(&r->frames[depth].calling, memory_order_acquire) == handler; attempt++)
                back_off(attempt);
        }
    }
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
            back_off(attempt);
        }
    }
}

/* ---- deferred freeing ------------------------------------------------------------- */

void dc__retire(dc_retired **list, dc_retired *retired, void *object, void *context,
                void (*release)(void *object, void *context)) {
    retired->object = object;
    retired->context = context;
    retired->release = release;
    retired->epoch = atomic_fetch_add_explicit(&dc__global_epoch, 1, memory_order_acq_rel);
    retired->next = *list;
    *list = retired;
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

void dc__reclaim(dc_retired **list, bool everything) {
    if (*list == NULL) return;
    uint64_t limit = UINT64_MAX;
    if (!everything) {
        if (heavy_fence_is_costly()) {
            size_t waiting = 0;
            for (dc_retired *r = *list; r != NULL && waiting < RECLAIM_BATCH; r = r->next) waiting++;
            if (waiting < RECLAIM_BATCH) return;
        }
        /* Only what was retired before this fence is known to be unreachable
         * by readers that enter after it. */
        uint64_t fenced = atomic_load_explicit(&dc__global_epoch, memory_order_acquire);
        dc__heavy_fence();
        uint64_t oldest = oldest_reader_epoch();
        limit = oldest < fenced ? oldest : fenced;
    }
    dc_retired **link = list;
    while (*link != NULL) {
        dc_retired *retired = *link;
        if (retired->epoch < limit) {
            *link = retired->next;
            retired->release(retired->object, retired->context);
            free(retired);
        } else {
            link = &retired->next;
        }
    }
}
