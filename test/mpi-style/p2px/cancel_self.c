/*
 * cancel_self - cancelling a send to oneself settles inside DFC_Cancel: right after it,
 * Request_get_status says complete and whether it was cancelled. mpi4py's test_p2p_buf does
 * Issend to itself, Probe, Cancel, Request_get_status, and receives the message when the
 * status does not say cancelled; DFC answered the cancel later, so the status said neither
 * while the message was already gone, and the receive waited forever. Eager, synchronous
 * and rendezvous sends, on a duplicate of DFC_COMM_SELF and of DFC_COMM_WORLD; then a send
 * that matched before the cancel, which is not cancelled. The small eager Isend (mode 1)
 * completes within the call (the shared completed request, request.c), so its cancel fails:
 * complete and not cancelled at once, and the receive then finds the message.
 */
#include "../dfctest.h"

#define BIG 40000

static void probed_then_cancelled(DFC_Comm base, int mode)
{
    DFC_Comm c;
    int me, n = mode == 2 ? BIG : mode, flag = 0, cancelled = 0;
    char *b = calloc(n ? n : 1, 1);
    DFC_Status st;
    DFC_Request r;
    DFCT_OK(DFC_Comm_dup(base, &c));
    DFC_Comm_rank(c, &me);
    if (mode == 1) DFCT_OK(DFC_Isend(b, n, DFC_BYTE, me, 123, c, &r));
    else DFCT_OK(DFC_Issend(b, n, DFC_BYTE, me, 123, c, &r));
    DFCT_OK(DFC_Probe(DFC_ANY_SOURCE, DFC_ANY_TAG, c, &st));
    DFCT_CHECK(st.DFC_SOURCE == me && st.DFC_TAG == 123, "probe: %d %d", st.DFC_SOURCE, st.DFC_TAG);
    DFCT_OK(DFC_Cancel(&r));
    DFCT_OK(DFC_Request_get_status(r, &flag, &st));
    DFCT_OK(DFC_Test_cancelled(&st, &cancelled));
    int expect = mode != 1;
    DFCT_CHECK(flag && cancelled == expect,
               "mode %d: after Cancel, get_status flag %d cancelled %d (expected 1 %d)", mode, flag,
               cancelled, expect);
    if (flag && cancelled) DFCT_OK(DFC_Request_free(&r));
    else { /* what mpi4py does then: must not hang if the message is still there */
        memset(b, 0x5a, n ? n : 1);
        DFCT_OK(DFC_Recv(b, n, DFC_BYTE, me, 123, c, DFC_STATUS_IGNORE));
        for (int i = 0; i < n; i++) DFCT_CHECK(b[i] == 0, "mode %d: byte %d is %d", mode, i, b[i]);
        DFCT_OK(DFC_Wait(&r, DFC_STATUS_IGNORE));
    }
    DFCT_OK(DFC_Iprobe(DFC_ANY_SOURCE, DFC_ANY_TAG, c, &flag, DFC_STATUS_IGNORE));
    DFCT_CHECK(!flag, "mode %d: a cancelled message can still be probed", mode);
    DFCT_OK(DFC_Comm_free(&c));
    free(b);
}

/* Received before the cancel: the send completes as sent. */
static void matched_first(void)
{
    int v = 5, got = 0, flag = 0, cancelled = 1;
    DFC_Request r;
    DFC_Status st;
    DFCT_OK(DFC_Issend(&v, 1, DFC_INT, 0, 1, DFC_COMM_SELF, &r));
    DFCT_OK(DFC_Recv(&got, 1, DFC_INT, 0, 1, DFC_COMM_SELF, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Cancel(&r));
    DFCT_OK(DFC_Wait(&r, &st));
    DFCT_OK(DFC_Test_cancelled(&st, &cancelled));
    DFCT_CHECK(got == 5 && !cancelled, "matched send: got %d, cancelled %d", got, cancelled);
    (void)flag;
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    for (int mode = 0; mode < 3; mode++) {
        probed_then_cancelled(DFC_COMM_SELF, mode);
        probed_then_cancelled(DFC_COMM_WORLD, mode);
    }
    matched_first();
    return dfct_finalize();
}
