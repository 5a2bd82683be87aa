/*
 * platform_posix.c — the POSIX side of the platform layer (platform.h), for
 * every system whose build does not take the Linux side (macOS, the BSDs, a
 * Linux toolchain without the kernel's headers), and for any build that
 * defines DC_PLATFORM_POSIX. Compiles to nothing in a build that takes the
 * Linux side.
 */
#include "platform.h"

#if !DC_PLATFORM_LINUX

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

/* ---- waiting on a word ----------------------------------------------------------- */

/*
 * Sleepers wait on one of a fixed set of condition variables, picked by the
 * word's address; each has a mutex that a waker takes before it broadcasts.
 * A sleeper reads the word under that mutex and sleeps in the same step as
 * it lets the mutex go, so a store to the word followed by a wake either
 * comes before that read (the sleeper sees it and returns) or finds the
 * sleeper already waiting. Words sharing a bucket wake each other's
 * sleepers, who re-check their own word.
 */
enum { BUCKET_COUNT = 64 };

static struct bucket {
    pthread_mutex_t lock;
    pthread_cond_t changed;
} buckets[BUCKET_COUNT];

static pthread_once_t buckets_once = PTHREAD_ONCE_INIT;

static void initialize_buckets(void) {
    for (unsigned i = 0; i < BUCKET_COUNT; i++) {
        pthread_mutex_init(&buckets[i].lock, NULL);
        pthread_cond_init(&buckets[i].changed, NULL);
    }
}

static struct bucket *bucket_of(const void *word) {
    pthread_once(&buckets_once, initialize_buckets);
    uintptr_t address = (uintptr_t)word;
    return &buckets[(address >> 6 ^ address >> 12) % BUCKET_COUNT];
}

void dc__platform_wait(_Atomic uint32_t *word, uint32_t expected) {
    struct bucket *bucket = bucket_of(word);
    pthread_mutex_lock(&bucket->lock);
    if (atomic_load_explicit(word, memory_order_relaxed) == expected) pthread_cond_wait(&bucket->changed, &bucket->lock);
    pthread_mutex_unlock(&bucket->lock);
}

void dc__platform_wake_one(_Atomic uint32_t *word) {
    struct bucket *bucket = bucket_of(word);
    pthread_mutex_lock(&bucket->lock);
    pthread_cond_broadcast(&bucket->changed);
    pthread_mutex_unlock(&bucket->lock);
}

/* ---- the process-wide fence ------------------------------------------------------ */

/* POSIX has no way to make other threads fence: readers fence in full. */
bool dc__platform_fence_register(void) { return false; }

bool dc__platform_fence_all_threads(void) { return false; }

/* ---- a descriptor readable while something is pending ---------------------------- */

const char dc__pending_signal_kind[] = "pipe";

static bool set_flags(int fd) {
    int status = fcntl(fd, F_GETFL);
    int descriptor = fcntl(fd, F_GETFD);
    return status >= 0 && descriptor >= 0 && fcntl(fd, F_SETFL, status | O_NONBLOCK) == 0 &&
           fcntl(fd, F_SETFD, descriptor | FD_CLOEXEC) == 0;
}

int dc__pending_signal_open(dc__pending_signal *pending) {
    int ends[2];
    if (pipe(ends) != 0) return errno;
    if (!set_flags(ends[0]) || !set_flags(ends[1])) {
        int error = errno;
        close(ends[0]);
        close(ends[1]);
        return error;
    }
    pending->read_end = ends[0];
    pending->write_end = ends[1];
    return 0;
}

/* One byte at most is in the pipe (see platform.h), so the write never finds it full. */
void dc__pending_signal_raise(const dc__pending_signal *pending) {
    char byte = 1;
    while (write(pending->write_end, &byte, 1) < 0 && errno == EINTR) {
    }
}

void dc__pending_signal_lower(const dc__pending_signal *pending) {
    char bytes[16];
    for (;;) {
        ssize_t got = read(pending->read_end, bytes, sizeof bytes);
        if (got <= 0 && !(got < 0 && errno == EINTR)) return;
    }
}

void dc__pending_signal_close(dc__pending_signal *pending) {
    close(pending->read_end);
    close(pending->write_end);
    pending->read_end = pending->write_end = -1;
}

#else
typedef int dc__platform_posix_not_taken; /* ISO C wants a declaration in every file */
#endif
