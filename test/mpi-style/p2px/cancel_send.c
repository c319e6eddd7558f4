/*
 * cancel_send - cancelling sends (MPI-4.1 3.8.4): a send whose message has not matched is
 * cancelled (Test_cancelled true, and the receiver never gets it: the next message with the
 * same tag is the one it receives); one that matched completes normally (Test_cancelled
 * false, data intact). Eager (of a strided type, so that it keeps its own request),
 * rendezvous and synchronous sends, to another rank (rank 1 probes first, so the message is
 * known to wait unmatched there) and to itself. A buffered send has nothing to cancel, and
 * neither has a small contiguous Isend, which completes within the call and returns the
 * shared completed request (request.c): its cancel fails and the message arrives.
 */
#include "../dfctest.h"

#define BIG (DFCT_ABOVE_EAGER_BYTES / 4) /* ints: above every eager limit */

static int rank;
static DFC_Comm c, side;

static void signal_to(int to) { DFCT_OK(DFC_Send(NULL, 0, DFC_BYTE, to, 0, side)); }
static void wait_from(int from)
{
    DFCT_OK(DFC_Recv(NULL, 0, DFC_BYTE, from, 0, side, DFC_STATUS_IGNORE));
}

static int cancelled(DFC_Request *r)
{
    DFC_Status st;
    int flag = -1;
    DFCT_OK(DFC_Wait(r, &st));
    DFCT_OK(DFC_Test_cancelled(&st, &flag));
    return flag;
}

/* mode 0 eager (strided), 1 rendezvous, 2 synchronous: rank 0 sends, rank 1 lets it wait,
 * rank 0 cancels it; then a second message with the same tag must be the one received.
 * mode 3, eager and contiguous: the cancel fails, and rank 1 receives both messages. */
static void unmatched(int mode)
{
    int n = mode == 1 ? BIG : 10, tag = 10 + mode, *b = malloc(2 * n * 4), flag = 1;
    int cancellable = mode != 3;
    DFC_Request r;
    DFC_Datatype strided;
    DFCT_OK(DFC_Type_vector(n, 1, 2, DFC_INT, &strided));
    DFCT_OK(DFC_Type_commit(&strided));
    if (rank == 0) {
        for (int k = 0; k < 2 * n; k++) /* mode 0 sends the even elements */
            b[k] = mode != 0 ? 1000 + k : k % 2 ? -7 : 1000 + k / 2;
        if (mode == 2) DFCT_OK(DFC_Issend(b, n, DFC_INT, 1, tag, c, &r));
        else if (mode == 0) DFCT_OK(DFC_Isend(b, 1, strided, 1, tag, c, &r));
        else DFCT_OK(DFC_Isend(b, n, DFC_INT, 1, tag, c, &r));
        wait_from(1); /* it waits unmatched there */
        DFCT_OK(DFC_Cancel(&r));
        DFCT_CHECK(cancelled(&r) == cancellable, "mode %d: Test_cancelled %d, expected %d", mode,
                   !cancellable, cancellable);
        signal_to(1); /* the cancel is settled: rank 1 may receive now */
        for (int k = 0; k < n; k++) b[k] = 2000 + k;
        DFCT_OK(DFC_Send(b, n, DFC_INT, 1, tag, c));
    } else if (rank == 1) {
        DFCT_OK(DFC_Probe(0, tag, c, DFC_STATUS_IGNORE));
        signal_to(0);
        wait_from(0);
        for (int first = cancellable ? 2000 : 1000; first <= 2000; first += 1000) {
            for (int k = 0; k < 2 * n; k++) b[k] = -1;
            DFCT_OK(DFC_Recv(b, n, DFC_INT, 0, tag, c, DFC_STATUS_IGNORE));
            for (int k = 0, bad = 0; k < n; k++)
                if (b[k] != first + k && bad++ < 3)
                    DFCT_CHECK(0, "mode %d element %d: %d, expected %d", mode, k, b[k], first + k);
        }
        DFCT_OK(DFC_Iprobe(0, tag, c, &flag, DFC_STATUS_IGNORE));
        DFCT_CHECK(!flag, "mode %d: a message is left after the last one", mode);
    }
    DFCT_OK(DFC_Type_free(&strided));
    free(b);
}

/* Received before the cancel: the send completes normally. */
static void matched(int big)
{
    int n = big ? BIG : 10, *b = malloc(n * 4);
    DFC_Request r;
    if (rank == 0) {
        for (int k = 0; k < n; k++) b[k] = 3000 + k;
        DFCT_OK(DFC_Isend(b, n, DFC_INT, 1, 20, c, &r));
        wait_from(1); /* received */
        DFCT_OK(DFC_Cancel(&r));
        DFCT_CHECK(cancelled(&r) == 0, "a matched send (%d ints) was cancelled", n);
    } else if (rank == 1) {
        DFCT_OK(DFC_Recv(b, n, DFC_INT, 0, 20, c, DFC_STATUS_IGNORE));
        for (int k = 0, bad = 0; k < n; k++)
            if (b[k] != 3000 + k && bad++ < 3) DFCT_CHECK(0, "matched element %d: %d", k, b[k]);
        signal_to(0);
    }
    free(b);
}

static void to_self(void)
{
    int v = 5, w = -1, flag = 1, pair[4] = {5, -7, 6, -7}, got[2] = {-1, -1};
    DFC_Request r;
    DFC_Datatype strided;
    DFCT_OK(DFC_Type_vector(2, 1, 2, DFC_INT, &strided));
    DFCT_OK(DFC_Type_commit(&strided));
    DFCT_OK(DFC_Isend(pair, 1, strided, 0, 30, DFC_COMM_SELF, &r));
    DFCT_OK(DFC_Cancel(&r));
    DFCT_CHECK(cancelled(&r) == 1, "an unmatched send to self was not cancelled");
    DFCT_OK(DFC_Iprobe(0, 30, DFC_COMM_SELF, &flag, DFC_STATUS_IGNORE));
    DFCT_CHECK(!flag, "the cancelled message to self is still there");
    DFCT_OK(DFC_Type_free(&strided));
    /* Contiguous and small: complete within the call, so the cancel fails. */
    DFCT_OK(DFC_Isend(pair, 2, DFC_INT, 0, 32, DFC_COMM_SELF, &r));
    DFCT_OK(DFC_Cancel(&r));
    DFCT_CHECK(cancelled(&r) == 0, "a send completed within DFC_Isend was cancelled");
    DFCT_OK(DFC_Recv(got, 2, DFC_INT, 0, 32, DFC_COMM_SELF, DFC_STATUS_IGNORE));
    DFCT_CHECK(got[0] == 5 && got[1] == -7, "contiguous message to self: %d %d", got[0], got[1]);
    /* Buffered: the message left with its own request; the user's has nothing to cancel. */
    char mem[256];
    void *addr;
    int sz;
    DFCT_OK(DFC_Buffer_attach(mem, sizeof mem));
    DFCT_OK(DFC_Ibsend(&v, 1, DFC_INT, 0, 31, DFC_COMM_SELF, &r));
    DFCT_OK(DFC_Cancel(&r));
    DFCT_CHECK(cancelled(&r) == 0, "a buffered send was cancelled");
    DFCT_OK(DFC_Recv(&w, 1, DFC_INT, 0, 31, DFC_COMM_SELF, DFC_STATUS_IGNORE));
    DFCT_CHECK(w == 5, "buffered message to self: %d", w);
    DFCT_OK(DFC_Buffer_detach(&addr, &sz));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &c));
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &side));
    to_self();
    int size;
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    if (size >= 2) {
        for (int mode = 0; mode < 4; mode++) unmatched(mode);
        matched(0);
        matched(1);
    }
    DFCT_OK(DFC_Comm_free(&side));
    DFCT_OK(DFC_Comm_free(&c));
    return dfct_finalize();
}
