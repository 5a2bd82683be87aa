#include "cookie_support.h"

#include <string.h>

const size_t cookie_vtable_size = sizeof(cookie_io_functions_t);

void cookie_vtable_make(void *vtable, void *read, void *write, void *seek, void *close) {
    cookie_io_functions_t functions = {
        .read = (cookie_read_function_t *)read,
        .write = (cookie_write_function_t *)write,
        .seek = (cookie_seek_function_t *)seek,
        .close = (cookie_close_function_t *)close,
    };
    memcpy(vtable, &functions, sizeof functions);
}

FILE *cookie_file_open(const void *vtable, void *cookie, const char *mode) {
    cookie_io_functions_t functions;
    memcpy(&functions, vtable, sizeof functions);
    return fopencookie(cookie, mode, functions);
}
