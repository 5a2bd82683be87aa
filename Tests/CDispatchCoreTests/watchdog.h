/*
 * watchdog.h — an alarm armed for each threaded C test, so that a test that
 * hangs (a thread deadlocked in the library never returns) ends the process
 * with a failure naming it, rather than a stuck run. Include it in one test
 * program's file, and list its tests with watched_test().
 */
#ifndef DC_WATCHDOG_H
#define DC_WATCHDOG_H

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

enum { WATCHDOG_SECONDS = 60 };

/* The test running now, for the watchdog's message and the tests' own. */
static const char *running_test = "(none)";

static void watchdog_fired(int signal_number) {
    (void)signal_number;
    static const char prefix[] = "[  FAILED  ] watchdog: ";
    static const char suffix[] = " still running after the watchdog's time: it hangs\n";
    ssize_t ignored = write(STDERR_FILENO, prefix, sizeof prefix - 1);
    ignored = write(STDERR_FILENO, running_test, strlen(running_test));
    ignored = write(STDERR_FILENO, suffix, sizeof suffix - 1);
    (void)ignored;
    _exit(1);
}

static int arm_watchdog(void **state) {
    running_test = *state;
    signal(SIGALRM, watchdog_fired);
    alarm(WATCHDOG_SECONDS);
    return 0;
}

static int disarm_watchdog(void **state) {
    (void)state;
    alarm(0);
    running_test = "(none)";
    return 0;
}

/* A test with the watchdog armed for it; its name is its initial state. */
#define watched_test(test) cmocka_unit_test_prestate_setup_teardown(test, arm_watchdog, disarm_watchdog, (void *)#test)

#endif /* DC_WATCHDOG_H */
