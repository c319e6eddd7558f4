/*
 * dltest.h - what the deadlock tests share: the collective-test helpers (colltest.h) and
 * an internal watchdog.
 *
 * A deadlock test fails on a hang. The runner's timeLimit catches hangs too, but the
 * watchdog says which test and rank hung: alarm(S) (S from -watchdog=S, default 120 s)
 * prints "watchdog: hang in <test> (rank R, phase P)" on stderr and aborts the process.
 * dl_phase() names what the test is doing, for that message.
 */
#ifndef DLTEST_H
#define DLTEST_H

#include <signal.h>
#include <unistd.h>

#include "../coll/colltest.h"

static char dl_msg[256];
static int dl_msg_len;
static const char *dl_test = "?";

static void dl_set_msg(const char *phase)
{
    int n = snprintf(dl_msg, sizeof dl_msg, "watchdog: hang in %s (rank %d, phase %s)\n", dl_test,
                     ct_rank, phase);
    dl_msg_len = n < 0 ? 0 : (n >= (int)sizeof dl_msg ? (int)sizeof dl_msg - 1 : n);
}

static void dl_on_alarm(int sig)
{
    (void)sig;
    if (write(2, dl_msg, (size_t)dl_msg_len) < 0) { /* nothing more to do */
    }
    signal(SIGABRT, SIG_DFL);
    abort();
}

/* Names the current phase (shown if the watchdog fires). Not async-signal-safe to call
 * from handlers; the handler only reads the prepared message. */
static inline void dl_phase(const char *phase)
{
    sigset_t s, old;
    sigemptyset(&s);
    sigaddset(&s, SIGALRM);
    sigprocmask(SIG_BLOCK, &s, &old);
    dl_set_msg(phase);
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Arms the watchdog: -watchdog=S seconds (default 120; 0 disables). Call after ct_init. */
static inline void dl_watchdog(int argc, char **argv, const char *test)
{
    long s = ct_opt(argc, argv, "watchdog", 120);
    dl_test = test;
    dl_set_msg("start");
    if (s <= 0) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = dl_on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    alarm((unsigned)s);
}

static inline void dl_watchdog_off(void) { alarm(0); }

#endif /* DLTEST_H */
