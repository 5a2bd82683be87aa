/*
 * platform.h — what the core needs of the system beyond C11 and POSIX
 * threads, behind one private interface with two implementations:
 *
 *   platform_linux.c   Linux's own system calls: waiting on a word in the
 *                      kernel, a process-wide fence that interrupts every
 *                      thread, a counter descriptor for a queue
 *   platform_posix.c   POSIX alone: a mutex and a condition variable for
 *                      waiting, no process-wide fence (readers fence in
 *                      full), a pipe as a queue's descriptor
 *
 * A build takes the Linux side when its headers are there
 * (platform_linux.h tests for them), and the POSIX side otherwise or when
 * DC_PLATFORM_POSIX is defined. Both files are compiled in every build;
 * the side not taken compiles to nothing. The rest of the core names no
 * system call: it uses this interface, C11 (atomics, thread-local storage)
 * and POSIX threads. Thread records and a queue's owner ids need nothing
 * more than C11's _Thread_local and an atomic counter, so they are not here.
 * This is the lowest layer: it calls nothing of the core.
 */
#ifndef DISPATCH_CORE_PLATFORM_H
#define DISPATCH_CORE_PLATFORM_H

#include "platform_linux.h" /* DC_PLATFORM_LINUX: 1 when this build takes the Linux side */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#if !DC_PLATFORM_LINUX && !defined(DC_PLATFORM_POSIX)
#define DC_PLATFORM_POSIX 1
#endif

/* ---- waiting on a word ----------------------------------------------------------- */

/* Sleeps while `*word` holds `expected`. It may return early (spuriously, or
 * on a signal), so callers re-check the word in a loop. Never misses a wake
 * that follows a store changing the word. */
void dc__platform_wait(_Atomic uint32_t *word, uint32_t expected);

/* Wakes at least one thread sleeping in dc__platform_wait() on `word`. */
void dc__platform_wake_one(_Atomic uint32_t *word);

/* ---- the process-wide fence ------------------------------------------------------ */

/*
 * Readers of the read-side sections (binding/dispatch_core_inline.h) order
 * their stores before their loads either with a full fence each, or with a
 * compiler-only fence when writers can make every other thread of the
 * process execute a full fence on their behalf (asymmetric fences).
 *
 * dc__platform_fence_register() is called once, before any thread reads;
 * true when this process can issue such fences from now on. Always false on
 * the POSIX side; platform_linux.c says when the Linux side refuses.
 */
bool dc__platform_fence_register(void);

/* Makes every thread of the process execute a full fence before it returns;
 * false when it could not (the caller then cannot rely on asymmetric fences
 * for this write, and fences in full itself). */
bool dc__platform_fence_all_threads(void);

/* ---- a descriptor readable while something is pending ---------------------------- */

/*
 * What a queue gives event loops: a descriptor that poll, epoll and kqueue
 * report readable between a raise and the next lower. `read_end` is the one
 * handed out; on the Linux side it is `write_end` too (one counter
 * descriptor), on the POSIX side the two ends of a pipe. Raising and lowering are serialized by
 * the caller (the queue's lock), and a raise follows a lower or the open:
 * the descriptor never holds more than one raise.
 */
typedef struct dc__pending_signal {
    int read_end;
    int write_end;
} dc__pending_signal;

/* The facility's name, for messages ("pipe" on the POSIX side). */
extern const char dc__pending_signal_kind[];

/* Opens both ends non-blocking and close-on-exec: 0, or the errno of the
 * failure (ENOSYS: the system has no such descriptor). */
int dc__pending_signal_open(dc__pending_signal *pending);
void dc__pending_signal_raise(const dc__pending_signal *pending);
void dc__pending_signal_lower(const dc__pending_signal *pending);
void dc__pending_signal_close(dc__pending_signal *pending);

#endif /* DISPATCH_CORE_PLATFORM_H */
