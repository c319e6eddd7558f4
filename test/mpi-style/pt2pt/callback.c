/*
 * callback - DFC_Request_set_callback (DFC extension): the callback runs exactly once per
 * completion of the operation, with the request's handle, the operation's status (source,
 * tag, count, error, cancelled) and the user's argument; it has run by the time Wait/Test
 * report the completion; set on a request that is already complete it runs at once; set
 * to NULL it is removed. Checked for sends and receives, eager and rendezvous, completed
 * by Wait, Test, Waitall, Testall, Waitany and Testsome; persistent requests with the
 * callback armed before each Start; a truncated and a cancelled receive.
 */
#include "../dfctest.h"

typedef struct cbrec {
    int calls;
    DFC_Request handle;
    DFC_Status status;
} cbrec_t;

static int rank, size;

static void cb(DFC_Request request, const DFC_Status *status, void *arg)
{
    cbrec_t *c = arg;
    c->calls++;
    c->handle = request;
    c->status = *status;
}

static int value(int src, int round, int i, int k)
{
    return src * 1000003 + round * 10007 + i * 101 + k;
}

static void check_rec(const cbrec_t *c, DFC_Request h, int src, int tag, int count,
                      const char *what)
{
    int n = -1;
    DFCT_CHECK(c->calls == 1, "%s: callback ran %d times", what, c->calls);
    if (c->calls < 1) return;
    DFCT_CHECK(c->handle == h, "%s: callback got handle 0x%x, expected 0x%x", what, c->handle, h);
    if (src == DFC_UNDEFINED) return; /* a send: its status is not defined */
    DFCT_CHECK(c->status.DFC_SOURCE == src && c->status.DFC_TAG == tag,
               "%s: callback status %d/%d, expected %d/%d", what, c->status.DFC_SOURCE,
               c->status.DFC_TAG, src, tag);
    DFCT_CHECK(c->status.DFC_ERROR == DFC_SUCCESS, "%s: callback status error %d", what,
               c->status.DFC_ERROR);
    DFCT_OK(DFC_Get_count(&c->status, DFC_INT, &n));
    DFCT_CHECK(n == count, "%s: callback status count %d, expected %d", what, n, count);
}

/* Many sends and receives with every peer, each with its own callback. */
static void storm(int round, int method)
{
    static const char *names[] = {"Waitall", "Testall", "Waitany", "Testsome"};
    const int per = 6, nreq = 2 * per * size;
    DFC_Request *reqs = malloc(nreq * sizeof *reqs), *handles = malloc(nreq * sizeof *handles);
    cbrec_t *recs = calloc(nreq, sizeof *recs);
    int **bufs = malloc(nreq * sizeof *bufs), *len = malloc(nreq * sizeof(int)),
        *peer = malloc(nreq * sizeof(int));
    int m = 0;
    for (int p = 0; p < size; p++)
        for (int i = 0; i < per; i++, m++) { /* receives */
            len[m] = (i % 3 == 2) ? 9000 : 1 + i * 10;
            peer[m] = p;
            bufs[m] = malloc(len[m] * sizeof(int));
            DFCT_OK(
                DFC_Irecv(bufs[m], len[m], DFC_INT, p, 10 * round + i, DFC_COMM_WORLD, &reqs[m]));
            handles[m] = reqs[m];
            DFCT_OK(DFC_Request_set_callback(reqs[m], cb, &recs[m]));
        }
    for (int p = 0; p < size; p++)
        for (int i = 0; i < per; i++, m++) { /* sends */
            len[m] = (i % 3 == 2) ? 9000 : 1 + i * 10;
            peer[m] = p;
            bufs[m] = malloc(len[m] * sizeof(int));
            for (int k = 0; k < len[m]; k++) bufs[m][k] = value(rank, round, i, k);
            DFCT_OK(
                DFC_Isend(bufs[m], len[m], DFC_INT, p, 10 * round + i, DFC_COMM_WORLD, &reqs[m]));
            handles[m] = reqs[m];
            DFCT_OK(DFC_Request_set_callback(reqs[m], cb, &recs[m]));
        }
    int flag = 0, index, outcount, *idx = malloc(nreq * sizeof(int));
    switch (method) {
    case 0: DFCT_OK(DFC_Waitall(nreq, reqs, DFC_STATUSES_IGNORE)); break;
    case 1:
        while (!flag) DFCT_OK(DFC_Testall(nreq, reqs, &flag, DFC_STATUSES_IGNORE));
        break;
    case 2:
        for (;;) {
            DFCT_OK(DFC_Waitany(nreq, reqs, &index, DFC_STATUS_IGNORE));
            if (index == DFC_UNDEFINED) break;
            DFCT_CHECK(recs[index].calls == 1,
                       "Waitany: request %d completed with %d callback runs", index,
                       recs[index].calls);
        }
        break;
    case 3:
        for (;;) {
            DFCT_OK(DFC_Testsome(nreq, reqs, &outcount, idx, DFC_STATUSES_IGNORE));
            if (outcount == DFC_UNDEFINED) break;
            for (int j = 0; j < outcount; j++)
                DFCT_CHECK(recs[idx[j]].calls == 1,
                           "Testsome: request %d completed with %d callback runs", idx[j],
                           recs[idx[j]].calls);
        }
        break;
    }
    for (int j = 0; j < nreq; j++) {
        char what[64];
        int i = (j % (per * size)) % per;
        snprintf(what, sizeof what, "%s storm, %s %d", names[method],
                 j < nreq / 2 ? "receive" : "send", j);
        if (j < nreq / 2) {
            check_rec(&recs[j], handles[j], peer[j], 10 * round + i, len[j], what);
            int bad = 0;
            for (int k = 0; k < len[j]; k++)
                if (bufs[j][k] != value(peer[j], round, i, k) && bad++ < 3)
                    DFCT_CHECK(0, "%s: data element %d", what, k);
        } else {
            check_rec(&recs[j], handles[j], DFC_UNDEFINED, 0, 0, what);
        }
        free(bufs[j]);
    }
    free(reqs), free(handles), free(recs), free(bufs), free(len), free(peer), free(idx);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static int sbuf[50000], rbuf[50000];
    DFC_Request req, sreq;
    DFC_Status st;
    cbrec_t rec, srec;
    int flag;

    /* 1. Receives with the callback set before the message comes; Wait and Test. */
    for (int k = 0; k < 4; k++) {
        int n = k % 2 ? 50000 : 5;
        memset(&rec, 0, sizeof rec);
        memset(&srec, 0, sizeof srec);
        DFCT_OK(DFC_Irecv(rbuf, n, DFC_INT, left, 1, DFC_COMM_WORLD, &req));
        DFC_Request h = req;
        DFCT_OK(DFC_Request_set_callback(req, cb, &rec));
        DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_INT, left, 2, NULL, 0, DFC_INT, right, 2, DFC_COMM_WORLD,
                             DFC_STATUS_IGNORE));
        for (int i = 0; i < n; i++) sbuf[i] = value(rank, k, 0, i);
        DFCT_OK(DFC_Isend(sbuf, n, DFC_INT, right, 1, DFC_COMM_WORLD, &sreq));
        DFC_Request sh = sreq;
        DFCT_OK(DFC_Request_set_callback(sreq, cb, &srec));
        if (k < 2) {
            DFCT_OK(DFC_Wait(&req, &st));
        } else {
            flag = 0;
            while (!flag) DFCT_OK(DFC_Test(&req, &flag, &st));
        }
        check_rec(&rec, h, left, 1, n, "Irecv with a callback");
        DFCT_OK(DFC_Wait(&sreq, DFC_STATUS_IGNORE));
        check_rec(&srec, sh, DFC_UNDEFINED, 0, 0, "Isend with a callback");
        for (int i = 0; i < n; i++)
            if (rbuf[i] != value(left, k, 0, i)) {
                DFCT_CHECK(0, "Irecv with a callback: element %d", i);
                break;
            }
    }

    /* 2. Storms with every completion function. */
    for (int method = 0; method < 4; method++) storm(10 + method, method);

    /* 3. Already complete when set: runs at once, once. */
    memset(&rec, 0, sizeof rec);
    DFCT_OK(DFC_Irecv(rbuf, 4, DFC_INT, DFC_PROC_NULL, 0, DFC_COMM_WORLD, &req));
    DFC_Request h = req;
    DFCT_OK(DFC_Request_set_callback(req, cb, &rec));
    DFCT_CHECK(rec.calls == 1, "callback set on a complete request ran %d times at once",
               rec.calls);
    DFCT_CHECK(rec.handle == h && rec.status.DFC_SOURCE == DFC_PROC_NULL,
               "callback on PROC_NULL: handle/source %d", rec.status.DFC_SOURCE);
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    DFCT_CHECK(rec.calls == 1, "callback of a PROC_NULL receive ran %d times", rec.calls);

    /* 4. Removed before completion: never runs. */
    memset(&rec, 0, sizeof rec);
    DFCT_OK(DFC_Irecv(rbuf, 4, DFC_INT, left, 3, DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Request_set_callback(req, cb, &rec));
    DFCT_OK(DFC_Request_set_callback(req, NULL, NULL));
    /* Send only once the right neighbour has posted and disarmed its receive (a message
     * already there would complete the Irecv at once, running the callback when set). */
    DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_INT, left, 30, NULL, 0, DFC_INT, right, 30, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Send(sbuf, 4, DFC_INT, right, 3, DFC_COMM_WORLD));
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    DFCT_CHECK(rec.calls == 0, "a removed callback ran %d times", rec.calls);

    /* 5. Persistent requests: armed before each Start, one run per completion. */
    DFC_Request pr, ps;
    DFCT_OK(DFC_Recv_init(rbuf, 20000, DFC_INT, left, 4, DFC_COMM_WORLD, &pr));
    DFCT_OK(DFC_Send_init(sbuf, 20000, DFC_INT, right, 4, DFC_COMM_WORLD, &ps));
    cbrec_t prec, psrec;
    for (int it = 0; it < 5; it++) {
        memset(&prec, 0, sizeof prec);
        memset(&psrec, 0, sizeof psrec);
        for (int i = 0; i < 20000; i++) sbuf[i] = value(rank, 100 + it, 0, i);
        DFCT_OK(DFC_Request_set_callback(pr, cb, &prec));
        DFCT_OK(DFC_Request_set_callback(ps, cb, &psrec));
        DFCT_CHECK(prec.calls == 0, "callback of an inactive persistent request ran at set time");
        DFCT_OK(DFC_Start(&pr));
        DFCT_OK(DFC_Start(&ps));
        DFCT_OK(DFC_Wait(&pr, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Wait(&ps, DFC_STATUS_IGNORE));
        check_rec(&prec, pr, left, 4, 20000, "persistent receive");
        check_rec(&psrec, ps, DFC_UNDEFINED, 0, 0, "persistent send");
        DFCT_CHECK(rbuf[19999] == value(left, 100 + it, 0, 19999),
                   "persistent receive data, round %d", it);
    }
    /* Armed once, started three times: however the library treats later rounds, it never
     * runs the callback more than once per completion, and runs it for the first. */
    memset(&prec, 0, sizeof prec);
    DFCT_OK(DFC_Request_set_callback(pr, cb, &prec));
    for (int it = 0; it < 3; it++) {
        DFCT_OK(DFC_Start(&pr));
        DFCT_OK(DFC_Start(&ps));
        DFCT_OK(DFC_Wait(&pr, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Wait(&ps, DFC_STATUS_IGNORE));
        DFCT_CHECK(prec.calls >= 1 && prec.calls <= it + 1,
                   "persistent receive armed once: %d runs after %d rounds", prec.calls, it + 1);
    }
    DFCT_OK(DFC_Request_free(&pr));
    DFCT_OK(DFC_Request_free(&ps));

    /* Fire and forget: a rendezvous send freed while active still runs its callback, once,
     * when it completes (the peer has received it once the round trip below is done). */
    memset(&srec, 0, sizeof srec);
    DFCT_OK(DFC_Irecv(rbuf, 30000, DFC_INT, left, 7, DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Isend(sbuf, 30000, DFC_INT, right, 7, DFC_COMM_WORLD, &sreq));
    DFCT_OK(DFC_Request_set_callback(sreq, cb, &srec));
    DFCT_OK(DFC_Request_free(&sreq));
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_INT, left, 8, NULL, 0, DFC_INT, right, 8, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    for (int i = 0; i < 1000 && srec.calls == 0; i++) { /* its completion may need progress */
        int f;
        DFCT_OK(DFC_Iprobe(DFC_ANY_SOURCE, 12345, DFC_COMM_WORLD, &f, DFC_STATUS_IGNORE));
    }
    DFCT_CHECK(srec.calls == 1, "callback of a freed active send ran %d times", srec.calls);

    /* 6. A truncated receive: the callback's status carries the error. */
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    memset(&rec, 0, sizeof rec);
    DFCT_OK(DFC_Irecv(rbuf, 3, DFC_INT, left, 5, DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Request_set_callback(req, cb, &rec));
    DFCT_OK(DFC_Sendrecv(sbuf, 10, DFC_INT, right, 5, NULL, 0, DFC_INT, DFC_PROC_NULL, 0,
                         DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    DFCT_FAILS(DFC_Wait(&req, DFC_STATUS_IGNORE), DFC_ERR_TRUNCATE, "truncated");
    {
        int cls = -1;
        DFC_Error_class(rec.status.DFC_ERROR, &cls);
        DFCT_CHECK(rec.calls == 1 && cls == DFC_ERR_TRUNCATE,
                   "truncated receive: %d callback runs, class %d", rec.calls, cls);
    }

    /* 7. A cancelled receive: the callback's status says cancelled. */
    memset(&rec, 0, sizeof rec);
    DFCT_OK(DFC_Irecv(rbuf, 3, DFC_INT, left, 6, DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Request_set_callback(req, cb, &rec));
    DFCT_OK(DFC_Cancel(&req));
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    flag = 0;
    if (rec.calls == 1) DFCT_OK(DFC_Test_cancelled(&rec.status, &flag));
    DFCT_CHECK(rec.calls == 1 && flag == 1, "cancelled receive: %d callback runs, cancelled %d",
               rec.calls, flag);

    return dfct_finalize();
}
