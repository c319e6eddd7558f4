/*
 * failcheck.h - what the process-failure tests share (faults/procfail.c, gpu/devfail.c):
 * a monotonic clock and the check that an error is
 * DFC_ERR_PROC_FAILED with a message naming the killed rank. A test defines FAIL_VICTIM (an
 * expression: the rank that is killed) before including this, after dfctest.h.
 */
#ifndef DFC_TEST_FAILCHECK_H
#define DFC_TEST_FAILCHECK_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The class of rc, after checking that its message names the victim. */
static int failed_class(int rc, const char *what)
{
    int cls = -1, len = 0;
    char msg[DFC_MAX_ERROR_STRING] = "", needle[64];
    DFC_Error_class(rc, &cls);
    DFC_Error_string(rc, msg, &len);
    snprintf(needle, sizeof needle, "rank %d of DFC_COMM_WORLD has failed", (int)(FAIL_VICTIM));
    DFCT_CHECK(cls != DFC_ERR_PROC_FAILED || strstr(msg, needle), "%s: message \"%s\" lacks \"%s\"",
               what, msg, needle);
    return cls;
}

/* The victim dies (SIGKILL) once every other rank has reached this call, having started what
 * its death must interrupt (and so left any barrier before, which would fail on a rank still
 * inside it): each of them sends it a message (tag 77 on WORLD), and it dies 2 ms after the
 * last. The others return at once. */
static inline void kill_victim_once_started(int rank, int size)
{
    /* Not named `victim`: FAIL_VICTIM may expand to a global of that name, and a local of the
     * same name would be initialized from itself (devproxy -case=kill killed rank 0 so). */
    int go = 1, doomed = (int)(FAIL_VICTIM);
    for (int q = 0; q < size && rank == doomed; q++)
        if (q != doomed)
            DFCT_OK(DFC_Recv(&go, 1, DFC_INT, q, 77, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    if (rank != doomed) DFCT_OK(DFC_Send(&go, 1, DFC_INT, doomed, 77, DFC_COMM_WORLD));
    if (rank == doomed) {
        usleep(2000);
        raise(SIGKILL);
    }
}

/* The end of a test whose WORLD lost a member (dfct_finalize's reduction over WORLD would
 * fail): the survivors' errors summed over `live`, the verdict printed by its rank 0, then
 * DFC_Finalize and exit(0). */
static inline void finish_among_survivors(DFC_Comm *live)
{
    int errs = dfct_errs, total = 0, me = -1;
    DFCT_OK(DFC_Allreduce(&errs, &total, 1, DFC_INT, DFC_SUM, *live));
    DFC_Comm_rank(*live, &me);
    if (me == 0) printf(total ? " Found %d errors\n" : " No Errors\n", total);
    DFC_Comm_free(live);
    DFC_Finalize();
    exit(0);
}

#define EXPECT_FAILED(rc, what)                                   \
    DFCT_CHECK(failed_class((rc), (what)) == DFC_ERR_PROC_FAILED, \
               "%s: expected DFC_ERR_PROC_FAILED, got code %d", (what), (rc))

#endif /* DFC_TEST_FAILCHECK_H */
