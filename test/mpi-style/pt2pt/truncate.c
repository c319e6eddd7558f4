/*
 * truncate - a message longer than its receive buffer: under DFC_ERRORS_RETURN the receive
 * returns DFC_ERR_TRUNCATE (Recv, Wait, Test, Sendrecv; Waitall gives DFC_ERR_IN_STATUS with
 * the class in that status's DFC_ERROR), for eager and rendezvous sizes, with the receive
 * posted before the message came and after. Nothing past the buffer is written, the part
 * that fits is delivered, the sender sees success, and the library still works afterwards:
 * the next message with the same tag arrives whole, and a Sendrecv round passes.
 * Ranks pair up (0,1), (2,3), ...; each direction in turn.
 */
#include "../dfctest.h"

#define POISON 0x5a
#define GUARD 64

static int rank, size;

static int value(int round, int k) { return round * 100003 + k * 7 + 1; }

static void check_prefix(const int *b, int n, int cap, int round, const char *what)
{
    int bad = 0;
    for (int k = 0; k < n && k < cap; k++)
        if (b[k] != value(round, k) && bad++ < 3)
            DFCT_CHECK(0, "%s: element %d is %d, expected %d", what, k, b[k], value(round, k));
    const unsigned char *g = (const unsigned char *)(b + cap);
    for (int k = 0; k < GUARD; k++)
        if (g[k] != POISON) {
            DFCT_CHECK(0, "%s: byte %d past the %d-int buffer was written", what, k, cap);
            break;
        }
}

static void check_trunc_status(const DFC_Status *st, int src, int tag, const char *what)
{
    int cls = -1;
    DFC_Error_class(st->DFC_ERROR, &cls);
    DFCT_CHECK(cls == DFC_ERR_TRUNCATE, "%s: status error class %d, expected DFC_ERR_TRUNCATE",
               what, cls);
    DFCT_CHECK(st->DFC_SOURCE == src && st->DFC_TAG == tag, "%s: status %d/%d, expected %d/%d",
               what, st->DFC_SOURCE, st->DFC_TAG, src, tag);
}

/* The sender sends n ints with tag 1..6 (one per case), then a whole message on tag 1; the
 * receiver receives each with capacity cap < n. `late`: the messages are there first. */
static void run(int sender, int receiver, int n, int cap, int late)
{
    const int ncase = 6;
    int *buf = malloc(n * sizeof(int) + GUARD), *buf2 = malloc(n * sizeof(int) + GUARD);
    char what[96];
    if (rank == sender) {
        int **sb = malloc(ncase * sizeof *sb);
        DFC_Request *reqs = malloc(ncase * sizeof *reqs);
        if (!late)
            DFCT_OK(DFC_Recv(NULL, 0, DFC_INT, receiver, 100, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        for (int c = 0; c < ncase; c++) {
            sb[c] = malloc(n * sizeof(int));
            for (int k = 0; k < n; k++) sb[c][k] = value(c, k);
            DFCT_OK(DFC_Isend(sb[c], n, DFC_INT, receiver, 1 + c, DFC_COMM_WORLD, &reqs[c]));
        }
        /* The sender does not see the receiver's truncation. */
        DFCT_OK(DFC_Waitall(ncase, reqs, DFC_STATUSES_IGNORE));
        for (int k = 0; k < n; k++) buf[k] = value(50, k);
        DFCT_OK(DFC_Send(buf, n, DFC_INT, receiver, 1, DFC_COMM_WORLD));
        for (int c = 0; c < ncase; c++) free(sb[c]);
        free(sb), free(reqs);
    } else if (rank == receiver) {
        DFC_Status st, sts[2];
        DFC_Request reqs[2];
        int flag;
        if (late) {
            for (int c = 0; c < ncase; c++)
                DFCT_OK(DFC_Probe(sender, 1 + c, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        }
        snprintf(what, sizeof what, "Recv of %d ints into %d (%s)", n, cap,
                 late ? "unexpected" : "expected");
        DFC_Request pre[ncase];
        int *bufs[ncase];
        for (int c = 1; c < ncase; c++) {
            bufs[c] = malloc(n * sizeof(int) + GUARD);
            memset(bufs[c], POISON, n * sizeof(int) + GUARD);
        }
        if (!late) { /* cases 1..4 posted before the sender starts */
            DFCT_OK(DFC_Irecv(bufs[1], cap, DFC_INT, sender, 2, DFC_COMM_WORLD, &pre[1]));
            DFCT_OK(DFC_Irecv(bufs[2], cap, DFC_INT, sender, 3, DFC_COMM_WORLD, &pre[2]));
            DFCT_OK(DFC_Irecv(bufs[3], n, DFC_INT, sender, 4, DFC_COMM_WORLD, &pre[3]));
            DFCT_OK(DFC_Irecv(bufs[4], cap, DFC_INT, sender, 5, DFC_COMM_WORLD, &pre[4]));
            DFCT_OK(DFC_Send(NULL, 0, DFC_INT, sender, 100, DFC_COMM_WORLD));
        }
        /* case 0: blocking Recv. */
        memset(buf, POISON, n * sizeof(int) + GUARD);
        memset(&st, 0, sizeof st);
        DFCT_FAILS(DFC_Recv(buf, cap, DFC_INT, sender, 1, DFC_COMM_WORLD, &st), DFC_ERR_TRUNCATE,
                   "truncated");
        check_trunc_status(&st, sender, 1, what);
        check_prefix(buf, n, cap, 0, what);

        /* case 1: Irecv + Wait. */
        snprintf(what, sizeof what, "Irecv+Wait of %d ints into %d (%s)", n, cap,
                 late ? "unexpected" : "expected");
        if (late) DFCT_OK(DFC_Irecv(bufs[1], cap, DFC_INT, sender, 2, DFC_COMM_WORLD, &pre[1]));
        memset(&st, 0, sizeof st);
        DFCT_FAILS(DFC_Wait(&pre[1], &st), DFC_ERR_TRUNCATE, "truncated");
        DFCT_CHECK(pre[1] == DFC_REQUEST_NULL, "%s: the failed request was not freed", what);
        check_trunc_status(&st, sender, 2, what);
        check_prefix(bufs[1], n, cap, 1, what);

        /* case 2: Irecv + Test loop. */
        snprintf(what, sizeof what, "Irecv+Test of %d ints into %d (%s)", n, cap,
                 late ? "unexpected" : "expected");
        if (late) DFCT_OK(DFC_Irecv(bufs[2], cap, DFC_INT, sender, 3, DFC_COMM_WORLD, &pre[2]));
        flag = 0;
        int rc = DFC_SUCCESS;
        while (!flag && rc == DFC_SUCCESS) rc = DFC_Test(&pre[2], &flag, &st);
        DFCT_FAILS(rc, DFC_ERR_TRUNCATE, "truncated");
        DFCT_CHECK(flag == 1, "%s: flag %d with the error", what, flag);
        check_trunc_status(&st, sender, 3, what);
        check_prefix(bufs[2], n, cap, 2, what);

        /* cases 3 and 4: Waitall with a whole message and a truncated one. */
        snprintf(what, sizeof what, "Waitall, %d ints into %d (%s)", n, cap,
                 late ? "unexpected" : "expected");
        if (late) {
            DFCT_OK(DFC_Irecv(bufs[3], n, DFC_INT, sender, 4, DFC_COMM_WORLD, &pre[3]));
            DFCT_OK(DFC_Irecv(bufs[4], cap, DFC_INT, sender, 5, DFC_COMM_WORLD, &pre[4]));
        }
        reqs[0] = pre[3];
        reqs[1] = pre[4];
        memset(sts, 0x5a, sizeof sts);
        DFCT_FAILS(DFC_Waitall(2, reqs, sts), DFC_ERR_IN_STATUS, "status");
        DFCT_CHECK(sts[0].DFC_ERROR == DFC_SUCCESS, "%s: the whole message's status error %d", what,
                   sts[0].DFC_ERROR);
        check_trunc_status(&sts[1], sender, 5, what);
        check_prefix(bufs[3], n, n, 3, "Waitall, the whole message");
        check_prefix(bufs[4], n, cap, 4, what);
        DFCT_CHECK(reqs[0] == DFC_REQUEST_NULL && reqs[1] == DFC_REQUEST_NULL,
                   "%s: requests not freed", what);

        /* case 5: Sendrecv (sending nothing to PROC_NULL). */
        snprintf(what, sizeof what, "Sendrecv, %d ints into %d", n, cap);
        DFCT_FAILS(DFC_Sendrecv(NULL, 0, DFC_INT, DFC_PROC_NULL, 0, bufs[5], cap, DFC_INT, sender,
                                6, DFC_COMM_WORLD, &st),
                   DFC_ERR_TRUNCATE, "truncated");
        check_trunc_status(&st, sender, 6, what);
        check_prefix(bufs[5], n, cap, 5, what);

        /* The next message on tag 1 arrives whole. */
        memset(buf2, POISON, n * sizeof(int) + GUARD);
        DFCT_OK(DFC_Recv(buf2, n, DFC_INT, sender, 1, DFC_COMM_WORLD, &st));
        check_prefix(buf2, n, n, 50, "the message after the truncated ones");
        int count = -1;
        DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
        DFCT_CHECK(count == n && st.DFC_ERROR == DFC_SUCCESS,
                   "message after truncation: count %d error %d", count, st.DFC_ERROR);
        for (int c = 1; c < ncase; c++) free(bufs[c]);
    }
    free(buf);
    free(buf2);
}

/* A ring Sendrecv of checked data: the library still works. */
static void sendrecv_round(int round)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, out[100], in[101];
    DFC_Status st;
    for (int k = 0; k < 100; k++) out[k] = rank * 1000 + round + k;
    in[100] = -9;
    DFCT_OK(DFC_Sendrecv(out, 100, DFC_INT, right, 77, in, 100, DFC_INT, left, 77, DFC_COMM_WORLD,
                         &st));
    for (int k = 0; k < 100; k++)
        DFCT_CHECK(in[k] == left * 1000 + round + k, "Sendrecv round element %d", k);
    DFCT_CHECK(in[100] == -9 && st.DFC_SOURCE == left, "Sendrecv round status/guard");
}

int main(int argc, char **argv)
{
    static const int ns[] = {10, 4096, 5000, 60000, 300000};
    static const int caps[] = {9, 4095, 4000, 1000, 299999};
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    int even = rank - rank % 2, odd = even + 1;
    for (int k = 0; k < (int)(sizeof ns / sizeof *ns); k++)
        for (int late = 0; late < 2; late++) {
            if (odd < size) {
                run(even, odd, ns[k], caps[k], late);
                run(odd, even, ns[k], caps[k], late);
            }
            sendrecv_round(2 * k + late);
        }
    /* A zero-size buffer for a 1-int message. */
    {
        int x = 42, y = -1;
        DFC_Status st;
        DFC_Request req;
        DFCT_OK(DFC_Isend(&x, 1, DFC_INT, rank, 5, DFC_COMM_WORLD, &req));
        DFCT_FAILS(DFC_Recv(&y, 0, DFC_INT, rank, 5, DFC_COMM_WORLD, &st), DFC_ERR_TRUNCATE,
                   "truncated");
        DFCT_CHECK(y == -1, "a zero-count receive wrote its buffer");
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    }
    sendrecv_round(99);
    return dfct_finalize();
}
