/*
 * bench_sigc.h — libsigc++ 3 behind a C interface, for bench_peers.c. A
 * sigc::signal<void(void *)> with its slots; emit passes the pointer to each.
 * The wrapper is its own translation unit, as the table is its own library:
 * both sides of the comparison pay one call into another unit.
 */
#ifndef DC_BENCH_SIGC_H
#define DC_BENCH_SIGC_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_sigc_signal bench_sigc_signal;

bench_sigc_signal *bench_sigc_create(void);
void bench_sigc_destroy(bench_sigc_signal *signal);

/* Connects a plain function as a slot, last. */
void bench_sigc_connect(bench_sigc_signal *signal, void (*function)(void *));

/* Connects function bound to target (sigc::bind): emit calls function(target),
 * as a handler with its own data, for the registration and memory figures. */
void bench_sigc_connect_bound(bench_sigc_signal *signal, void (*function)(void *), void *target);

/* Emits with `object` as the argument every slot receives. */
void bench_sigc_emit(bench_sigc_signal *signal, void *object);

/* libsigc++'s version, as "major.minor.micro". */
const char *bench_sigc_version(void);

#ifdef __cplusplus
}
#endif

#endif /* DC_BENCH_SIGC_H */
