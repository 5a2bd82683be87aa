// bench_sigc.cpp — see bench_sigc.h.
#include "bench_sigc.h"

#include <sigc++/sigc++.h>

struct bench_sigc_signal {
    sigc::signal<void(void *)> signal;
};

extern "C" bench_sigc_signal *bench_sigc_create(void) {
    return new bench_sigc_signal();
}

extern "C" void bench_sigc_destroy(bench_sigc_signal *signal) {
    delete signal;
}

extern "C" void bench_sigc_connect(bench_sigc_signal *signal, void (*function)(void *)) {
    signal->signal.connect(sigc::ptr_fun(function));
}

extern "C" void bench_sigc_connect_bound(bench_sigc_signal *signal, void (*function)(void *),
                                         void *target) {
    signal->signal.connect(sigc::hide(sigc::bind(sigc::ptr_fun(function), target)));
}

extern "C" void bench_sigc_emit(bench_sigc_signal *signal, void *object) {
    signal->signal.emit(object);
}

#define BENCH_STRINGIFY_(x) #x
#define BENCH_STRINGIFY(x) BENCH_STRINGIFY_(x)

extern "C" const char *bench_sigc_version(void) {
    return BENCH_STRINGIFY(SIGCXX_MAJOR_VERSION) "." BENCH_STRINGIFY(SIGCXX_MINOR_VERSION) "." BENCH_STRINGIFY(SIGCXX_MICRO_VERSION);
}
