/*
 * rndvmsg.h - the rendezvous messages that faults/rgetfail.c and faults/shmcoop.c pass from
 * rank 1 to rank 0: message m of len bytes has a byte pattern of its own, goes by DFC_Send
 * (m even) or DFC_Isend + DFC_Wait (m odd) with tag m, and lands in a poisoned buffer that
 * is checked byte by byte. Include after dfctest.h.
 */
#ifndef DFC_TEST_RNDVMSG_H
#define DFC_TEST_RNDVMSG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char rndv_value(int m, long k)
{
    return (unsigned char)(m * 31 + k * 7 + (k >> 11));
}

/* Rank 1: fills buf with message m and sends it to rank 0. */
static inline void rndv_send(unsigned char *buf, int len, int m)
{
    for (long k = 0; k < len; k++) buf[k] = rndv_value(m, k);
    if (m % 2) {
        DFC_Request r;
        DFCT_OK(DFC_Isend(buf, len, DFC_BYTE, 0, m, DFC_COMM_WORLD, &r));
        DFCT_OK(DFC_Wait(&r, DFC_STATUS_IGNORE));
    } else {
        DFCT_OK(DFC_Send(buf, len, DFC_BYTE, 0, m, DFC_COMM_WORLD));
    }
}

/* Rank 0: receives message m into buf, poisoned first, and checks its count and every byte.
 * Returns the receive's code (nothing is checked when it failed). */
static inline int rndv_recv(unsigned char *buf, int len, int m)
{
    memset(buf, 0xa5, len);
    DFC_Status st;
    int rc = DFC_Recv(buf, len, DFC_BYTE, 1, m, DFC_COMM_WORLD, &st);
    if (rc != DFC_SUCCESS) return rc;
    int count = -1;
    DFC_Get_count(&st, DFC_BYTE, &count);
    DFCT_CHECK(count == len, "message %d: count %d, expected %d", m, count, len);
    long bad = 0, first = -1;
    for (long k = 0; k < len; k++)
        if (buf[k] != rndv_value(m, k) && bad++ == 0) first = k;
    DFCT_CHECK(!bad, "message %d: %ld of %d bytes wrong, the first at %ld", m, bad, len, first);
    return rc;
}

/* Rank 0 after its sender was killed (dfct_finalize's reduction over WORLD would fail):
 * frees buf, stops the watchdog, prints the verdict and finalizes alone; returns the exit
 * code. */
static inline int rndv_finish_alone(unsigned char *buf)
{
    free(buf);
    alarm(0);
    printf(dfct_errs ? " Found %d errors\n" : " No Errors\n", dfct_errs);
    fflush(stdout);
    DFC_Finalize();
    return dfct_errs ? 1 : 0;
}

#endif /* DFC_TEST_RNDVMSG_H */
