/*
 * glibc's fopencookie() for the Swift tests, which cannot see it: Glibc's
 * Swift module is built without _GNU_SOURCE. An interface is handed over as
 * a vtable of cookie_io_functions_t's layout, such as a dc_forwarder's.
 */
#ifndef COOKIE_SUPPORT_H
#define COOKIE_SUPPORT_H

#include <stddef.h>
#include <stdio.h>

/* The size of cookie_io_functions_t: read, write, seek, close, in order. */
extern const size_t cookie_vtable_size;

/* Writes a cookie_io_functions_t of the four functions (each may be NULL)
 * to `vtable`, which has room for cookie_vtable_size bytes. */
void cookie_vtable_make(void *vtable, void *read, void *write, void *seek, void *close);

/* fopencookie(cookie, mode, *vtable). */
FILE *cookie_file_open(const void *vtable, void *cookie, const char *mode);

#endif
