/* libffi for the benchmarks' raw ffi_call baseline. The root package's own
 * CFFI module is internal to it, so the benchmark package names libffi itself. */
#ifndef EVENTKIT_BENCH_FFI_SHIM_H
#define EVENTKIT_BENCH_FFI_SHIM_H
#include <ffi.h>
#endif
