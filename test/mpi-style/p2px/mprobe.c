/*
 * mprobe - matched probe: Mprobe, Improbe, Mrecv, Imrecv (MPI-4.1 3.8.2).
 *
 * Every rank sends every other rank messages of sizes the receiver does not know (0, eager
 * and rendezvous); the receiver takes each with Mprobe or an Improbe loop, sizes its buffer
 * from the probed status and receives it with Mrecv or Imrecv, checking every element.
 * Also: a matched message is gone from the queue (a later Recv with the same source and
 * tag gets the next message, not it); DFC_MESSAGE_NO_PROC from DFC_PROC_NULL; truncation;
 * bad arguments (class and a message naming the function and the argument).
 */
#include "../dfctest.h"

#define NMSG 5

static int rank, size;
static DFC_Comm sync_comm; /* sync_all's messages, apart from the wildcard probes */

static int msg_ints(int s, int d, int i)
{
    static const int lens[] = {0, 1, 1000, 4097, 50000, 3, 300000};
    return lens[(s * 3 + d + i) % 7];
}
static int msg_tag(int s, int d, int i) { return 10 + (s + 2 * d + 3 * i) % 5; }
static int value(int s, int d, int i, int k) { return s * 1000003 + d * 10007 + i * 101 + k; }

static void sync_all(void)
{
    for (int d = 1; d < size; d <<= 1)
        DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_BYTE, (rank + d) % size, 0, NULL, 0, DFC_BYTE,
                             (rank - d + size) % size, 0, sync_comm, DFC_STATUS_IGNORE));
}

/* Receives the message that `msg` names, probed as `pst`, and checks it. */
static void recv_matched(DFC_Message *msg, const DFC_Status *pst, int *next, int use_imrecv)
{
    int s = pst->DFC_SOURCE, count = -1;
    DFCT_OK(DFC_Get_count(pst, DFC_INT, &count));
    if (s < 0 || s >= size || s == rank || next[s] >= NMSG || count < 0) {
        DFCT_CHECK(0, "probed source %d count %d", s, count);
        return;
    }
    int i = next[s]++;
    DFCT_CHECK(pst->DFC_TAG == msg_tag(s, rank, i), "tag %d from %d, expected %d", pst->DFC_TAG, s,
               msg_tag(s, rank, i));
    DFCT_CHECK(count == msg_ints(s, rank, i), "count %d from %d, expected %d", count, s,
               msg_ints(s, rank, i));
    int *buf = malloc((count + 1) * sizeof(int));
    for (int k = 0; k <= count; k++) buf[k] = -7; /* poisoned */
    DFC_Status st;
    memset(&st, 0x5a, sizeof st);
    if (use_imrecv) {
        DFC_Request req;
        DFCT_OK(DFC_Imrecv(buf, count, DFC_INT, msg, &req));
        DFCT_CHECK(*msg == DFC_MESSAGE_NULL, "Imrecv left the message handle set");
        DFCT_OK(DFC_Wait(&req, &st));
    } else {
        DFCT_OK(DFC_Mrecv(buf, count, DFC_INT, msg, &st));
        DFCT_CHECK(*msg == DFC_MESSAGE_NULL, "Mrecv left the message handle set");
    }
    int got = -1, bad = 0;
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &got));
    DFCT_CHECK(st.DFC_SOURCE == s && st.DFC_TAG == pst->DFC_TAG && got == count,
               "received %d/%d count %d, probed %d/%d count %d", st.DFC_SOURCE, st.DFC_TAG, got, s,
               pst->DFC_TAG, count);
    for (int k = 0; k < count; k++)
        if (buf[k] != value(s, rank, i, k) && bad++ < 3)
            DFCT_CHECK(0, "from %d msg %d element %d is %d, expected %d", s, i, k, buf[k],
                       value(s, rank, i, k));
    DFCT_CHECK(buf[count] == -7, "wrote past the probed count");
    free(buf);
}

static void exchange(int mode)
{
    int nsend = (size - 1) * NMSG, m = 0;
    DFC_Request *reqs = malloc((nsend + 1) * sizeof *reqs);
    int **bufs = malloc((nsend + 1) * sizeof *bufs);
    for (int d = 0; d < size; d++) {
        if (d == rank) continue;
        for (int i = 0; i < NMSG; i++, m++) {
            int n = msg_ints(rank, d, i);
            bufs[m] = malloc((n + 1) * sizeof(int));
            for (int k = 0; k < n; k++) bufs[m][k] = value(rank, d, i, k);
            DFCT_OK(
                DFC_Isend(bufs[m], n, DFC_INT, d, msg_tag(rank, d, i), DFC_COMM_WORLD, &reqs[m]));
        }
    }
    int *next = calloc(size, sizeof(int));
    for (int got = 0; got < nsend; got++) {
        DFC_Message msg = DFC_MESSAGE_NULL;
        DFC_Status st;
        if (mode == 0) {
            DFCT_OK(DFC_Mprobe(DFC_ANY_SOURCE, DFC_ANY_TAG, DFC_COMM_WORLD, &msg, &st));
        } else {
            int flag = 0;
            while (!flag) {
                DFCT_OK(DFC_Improbe(DFC_ANY_SOURCE, DFC_ANY_TAG, DFC_COMM_WORLD, &flag, &msg, &st));
                if (!flag)
                    DFCT_CHECK(msg == DFC_MESSAGE_NULL, "Improbe without a message: %x", msg);
            }
        }
        DFCT_CHECK(msg != DFC_MESSAGE_NULL && msg != DFC_MESSAGE_NO_PROC, "matched message %x",
                   msg);
        recv_matched(&msg, &st, next, (got + mode) % 2);
    }
    for (int s = 0; s < size; s++)
        if (s != rank) DFCT_CHECK(next[s] == NMSG, "%d of %d messages from %d", next[s], NMSG, s);
    DFCT_OK(DFC_Waitall(nsend, reqs, DFC_STATUSES_IGNORE));
    for (int k = 0; k < nsend; k++) free(bufs[k]);
    free(bufs), free(reqs), free(next);
}

/* A matched message is no longer in the queue: a Recv for the same source and tag gets the
 * message sent after it. Rank 1 sends A then B (tag 3) to rank 0. */
static void matched_is_gone(void)
{
    int a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, x[3] = {0}, flag = 1;
    if (rank == 1) {
        DFCT_OK(DFC_Send(a, 3, DFC_INT, 0, 3, DFC_COMM_WORLD));
        DFCT_OK(DFC_Send(b, 3, DFC_INT, 0, 3, DFC_COMM_WORLD));
    } else if (rank == 0) {
        DFC_Message msg;
        DFC_Status st;
        DFCT_OK(DFC_Mprobe(1, 3, DFC_COMM_WORLD, &msg, &st));
        DFCT_OK(DFC_Recv(x, 3, DFC_INT, 1, 3, DFC_COMM_WORLD, &st));
        DFCT_CHECK(x[0] == 4 && x[1] == 5 && x[2] == 6, "Recv after Mprobe got %d %d %d", x[0],
                   x[1], x[2]);
        DFCT_OK(DFC_Iprobe(1, 3, DFC_COMM_WORLD, &flag, &st));
        DFCT_CHECK(!flag, "Iprobe sees the matched message");
        DFCT_OK(DFC_Mrecv(x, 3, DFC_INT, &msg, &st));
        DFCT_CHECK(x[0] == 1 && x[1] == 2 && x[2] == 3, "Mrecv got %d %d %d", x[0], x[1], x[2]);
    }
}

static void proc_null(void)
{
    DFC_Message msg = DFC_MESSAGE_NULL;
    DFC_Status st;
    int flag = 0, x = 42, count = -1;
    DFC_Request req;
    DFCT_OK(DFC_Mprobe(DFC_PROC_NULL, 5, DFC_COMM_WORLD, &msg, &st));
    DFCT_CHECK(msg == DFC_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) gave %x", msg);
    DFCT_CHECK(st.DFC_SOURCE == DFC_PROC_NULL, "Mprobe(PROC_NULL) source %d", st.DFC_SOURCE);
    DFCT_OK(DFC_Mrecv(&x, 1, DFC_INT, &msg, &st));
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
    DFCT_CHECK(msg == DFC_MESSAGE_NULL && st.DFC_SOURCE == DFC_PROC_NULL &&
                   st.DFC_TAG == DFC_ANY_TAG && count == 0 && x == 42,
               "Mrecv(NO_PROC): msg %x source %d tag %d count %d x %d", msg, st.DFC_SOURCE,
               st.DFC_TAG, count, x);
    DFCT_OK(DFC_Improbe(DFC_PROC_NULL, DFC_ANY_TAG, DFC_COMM_WORLD, &flag, &msg, &st));
    DFCT_CHECK(flag && msg == DFC_MESSAGE_NO_PROC, "Improbe(PROC_NULL): flag %d msg %x", flag, msg);
    DFCT_OK(DFC_Imrecv(&x, 1, DFC_INT, &msg, &req));
    DFCT_OK(DFC_Wait(&req, &st));
    DFCT_CHECK(st.DFC_SOURCE == DFC_PROC_NULL && x == 42, "Imrecv(NO_PROC): source %d",
               st.DFC_SOURCE);
}

static void bad_args(void)
{
    DFC_Message msg = DFC_MESSAGE_NULL;
    DFC_Status st;
    int x, flag;
    DFC_Request req;
    DFCT_FAILS(DFC_Mrecv(&x, 1, DFC_INT, &msg, &st), DFC_ERR_REQUEST, "DFC_Mrecv");
    DFCT_FAILS(DFC_Mrecv(&x, 1, DFC_INT, &msg, &st), DFC_ERR_REQUEST, "message");
    DFCT_FAILS(DFC_Imrecv(&x, 1, DFC_INT, &msg, &req), DFC_ERR_REQUEST, "DFC_MESSAGE_NULL");
    msg = 0x0b000777;
    DFCT_FAILS(DFC_Mrecv(&x, 1, DFC_INT, &msg, &st), DFC_ERR_REQUEST, "not a message");
    DFCT_FAILS(DFC_Mprobe(size, 0, DFC_COMM_WORLD, &msg, &st), DFC_ERR_RANK, "source");
    DFCT_FAILS(DFC_Mprobe(0, -5, DFC_COMM_WORLD, &msg, &st), DFC_ERR_TAG, "tag");
    DFCT_FAILS(DFC_Mprobe(0, 0, DFC_COMM_NULL, &msg, &st), DFC_ERR_COMM, "DFC_Mprobe");
    DFCT_FAILS(DFC_Improbe(0, 0, DFC_COMM_WORLD, NULL, &msg, &st), DFC_ERR_ARG, "flag");
    DFCT_FAILS(DFC_Improbe(0, 0, DFC_COMM_WORLD, &flag, NULL, &st), DFC_ERR_ARG, "message");
    msg = DFC_MESSAGE_NO_PROC;
    DFCT_FAILS(DFC_Mrecv(&x, -1, DFC_INT, &msg, &st), DFC_ERR_COUNT, "count");
    DFCT_FAILS(DFC_Mrecv(&x, 1, DFC_DATATYPE_NULL, &msg, &st), DFC_ERR_TYPE, "datatype");
}

/* A message longer than the buffer: DFC_ERR_TRUNCATE, naming Mrecv. */
static void truncation(void)
{
    int v[4] = {1, 2, 3, 4}, x[2] = {0, 0};
    if (rank == 1) DFCT_OK(DFC_Send(v, 4, DFC_INT, 0, 8, DFC_COMM_WORLD));
    if (rank != 0) return;
    DFC_Message msg;
    DFC_Status st;
    DFCT_OK(DFC_Mprobe(1, 8, DFC_COMM_WORLD, &msg, &st));
    DFCT_FAILS(DFC_Mrecv(x, 2, DFC_INT, &msg, &st), DFC_ERR_TRUNCATE, "DFC_Mrecv");
    DFCT_CHECK(msg == DFC_MESSAGE_NULL, "a truncated Mrecv still consumed the message");
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &sync_comm));
    bad_args();
    proc_null();
    for (int mode = 0; mode < 2; mode++) {
        exchange(mode);
        sync_all();
    }
    if (size > 1) {
        matched_is_gone();
        truncation();
    }
    sync_all();
    DFCT_OK(DFC_Comm_free(&sync_comm));
    return dfct_finalize();
}
