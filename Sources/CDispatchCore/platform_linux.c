/*
 * platform_linux.c — the Linux side of the platform layer (platform.h):
 * futex(2), membarrier(2) and eventfd(2), called through syscall() where the
 * C library has no wrapper. Compiles to nothing in a build that takes the
 * POSIX side.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* syscall(); a build may define it already */
#endif

#include "platform.h"

#if DC_PLATFORM_LINUX

#include <errno.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- waiting on a word ----------------------------------------------------------- */

void dc__platform_wait(_Atomic uint32_t *word, uint32_t expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void dc__platform_wake_one(_Atomic uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }

/* ---- the process-wide fence ------------------------------------------------------ */

static long membarrier(int command) { return syscall(SYS_membarrier, command, 0, 0); }

/* Refused where the kernel lacks the private expedited command (before
 * 4.14, or an emulator such as valgrind that does not pass the call on),
 * and in builds that define DC_NO_MEMBARRIER: ThreadSanitizer does not model
 * fences issued by another thread, so its builds fence in full. */
bool dc__platform_fence_register(void) {
#if defined(DC_NO_MEMBARRIER)
    return false;
#else
    long commands = membarrier(MEMBARRIER_CMD_QUERY);
    return commands > 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
           membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
#endif
}

bool dc__platform_fence_all_threads(void) { return membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0; }

/* ---- a descriptor readable while something is pending ---------------------------- */

const char dc__pending_signal_kind[] = "eventfd";

int dc__pending_signal_open(dc__pending_signal *pending) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd < 0) return errno;
    pending->read_end = pending->write_end = fd;
    return 0;
}

void dc__pending_signal_raise(const dc__pending_signal *pending) {
    uint64_t one = 1;
    while (write(pending->write_end, &one, sizeof one) < 0 && errno == EINTR) {
    }
}

void dc__pending_signal_lower(const dc__pending_signal *pending) {
    uint64_t count;
    while (read(pending->read_end, &count, sizeof count) < 0 && errno == EINTR) {
    }
}

void dc__pending_signal_close(dc__pending_signal *pending) {
    close(pending->read_end);
    pending->read_end = pending->write_end = -1;
}

#else
typedef int dc__platform_linux_not_taken; /* ISO C wants a declaration in every file */
#endif
