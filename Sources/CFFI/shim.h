/* libffi for Swift: the system library target CDispatchCore builds on. */
#ifndef EVENTKIT_CFFI_SHIM_H
#define EVENTKIT_CFFI_SHIM_H
#include <ffi.h>
#endif
