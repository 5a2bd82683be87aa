/*
 * platform_linux.h — whether this build takes the Linux side of the
 * platform layer (platform.h): DC_PLATFORM_LINUX is 1 when the compiler
 * finds the kernel's futex and membarrier headers, the system-call numbers
 * and eventfd, and DC_PLATFORM_POSIX is not defined; 0 otherwise. A feature
 * test, not the system's name: a musl toolchain without the kernel's
 * headers takes the POSIX side on Linux.
 */
#ifndef DISPATCH_CORE_PLATFORM_LINUX_H
#define DISPATCH_CORE_PLATFORM_LINUX_H

#if !defined(DC_PLATFORM_POSIX) && defined(__has_include)
#if __has_include(<linux/futex.h>) && __has_include(<linux/membarrier.h>) && __has_include(<sys/syscall.h>) && \
    __has_include(<sys/eventfd.h>)
#define DC_PLATFORM_LINUX 1
#endif
#endif

#ifndef DC_PLATFORM_LINUX
#define DC_PLATFORM_LINUX 0
#endif

#endif /* DISPATCH_CORE_PLATFORM_LINUX_H */
