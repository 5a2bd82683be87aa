/*
 * refuse_membarrier.c — a syscall() that answers membarrier(2) with ENOSYS, as
 * a kernel without it (or an emulator that does not pass it on) would. Linked
 * into a test program, it takes the place of the C library's syscall() for the
 * core too, which then decides at run time to take full fences on both sides
 * (reclaim.c): the threaded tests run again through that fallback, on every ABI
 * the Makefile tests (make test-fence-fallback).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(SYS_membarrier)
long syscall(long number, ...) {
    if (number == SYS_membarrier) {
        errno = ENOSYS;
        return -1;
    }
    /* Any other call goes on with six argument words, which is what the C
     * library's own syscall() reads, whatever the call takes. */
    va_list arguments;
    va_start(arguments, number);
    long words[6];
    for (int index = 0; index < 6; index++) words[index] = va_arg(arguments, long);
    va_end(arguments);
    long (*next)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    if (next == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return next(number, words[0], words[1], words[2], words[3], words[4], words[5]);
}
#endif
