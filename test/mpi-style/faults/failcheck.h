/*
 * failcheck.h - what the process-failure tests share (faults/procfail.c, gpu/devfail.c):
 * a monotonic clock and the check that an error is
 * DFC_ERR_PROC_FAILED with a message naming the killed rank. A test defines FAIL_VICTIM (an
 * expression: the rank that is killed) before including this, after dfctest.h.
 */
#ifndef DFC_TEST_FAILCHECK_H
#define DFC_TEST_FAILCHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

#define EXPECT_FAILED(rc, what)                                   \
    DFCT_CHECK(failed_class((rc), (what)) == DFC_ERR_PROC_FAILED, \
               "%s: expected DFC_ERR_PROC_FAILED, got code %d", (what), (rc))

#endif /* DFC_TEST_FAILCHECK_H */
