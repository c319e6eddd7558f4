/*
 * persistent - persistent point-to-point requests: Send_init, Ssend_init and Recv_init,
 * restarted many times with Start and Startall, the send buffers refilled and the receive
 * buffers poisoned between rounds; completion by Wait, Waitall, Test loops and Testall.
 * Every round's data and status are checked; the requests stay valid (not
 * DFC_REQUEST_NULL) and inactive between rounds; Request_free of inactive requests nulls
 * them; a persistent send freed while active still delivers its message.
 */
#include "../dfctest.h"

#define NITER 60
#define POISON 0x5a

static int rank, size;

static int value(int src, int it, int chan, int k)
{
    return src * 1000003 + it * 10007 + chan * 1009 + k;
}

static void check_buf(const int *buf, int n, int src, int it, int chan, const DFC_Status *st,
                      int tag, const char *what)
{
    int count = -1, bad = 0;
    DFCT_CHECK(st->DFC_SOURCE == src && st->DFC_TAG == tag,
               "%s it %d: status %d/%d, expected %d/%d", what, it, st->DFC_SOURCE, st->DFC_TAG, src,
               tag);
    DFCT_OK(DFC_Get_count(st, DFC_INT, &count));
    DFCT_CHECK(count == n, "%s it %d: count %d, expected %d", what, it, count, n);
    for (int k = 0; k < n; k++)
        if (buf[k] != value(src, it, chan, k) && bad++ < 3)
            DFCT_CHECK(0, "%s it %d: element %d is %d, expected %d", what, it, k, buf[k],
                       value(src, it, chan, k));
    const unsigned char *g = (const unsigned char *)(buf + n);
    for (int k = 0; k < 16; k++)
        if (g[k] != POISON && bad++ < 3) DFCT_CHECK(0, "%s it %d: wrote past the end", what, it);
}

int main(int argc, char **argv)
{
    /* Channels: 0 small eager (Send_init), 1 rendezvous (Send_init), 2 Ssend_init (eager),
     * 3 Ssend_init (rendezvous). Each goes right around the ring, received from the left. */
    static const int nints[4] = {64, 40000, 5, 30000};
    static const int sync[4] = {0, 0, 1, 1};
    enum { NCH = 4 };
    int *sbuf[NCH], *rbuf[NCH];
    DFC_Request sreq[NCH], rreq[NCH], all[2 * NCH];
    DFC_Status sts[2 * NCH];

    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    for (int c = 0; c < NCH; c++) {
        sbuf[c] = malloc(nints[c] * sizeof(int));
        rbuf[c] = malloc(nints[c] * sizeof(int) + 16);
        for (int k = 0; k < nints[c]; k++) sbuf[c][k] = 0;
        if (sync[c])
            DFCT_OK(DFC_Ssend_init(sbuf[c], nints[c], DFC_INT, right, 100 + c, DFC_COMM_WORLD,
                                   &sreq[c]));
        else
            DFCT_OK(DFC_Send_init(sbuf[c], nints[c], DFC_INT, right, 100 + c, DFC_COMM_WORLD,
                                  &sreq[c]));
        /* The receive buffer is larger than the message (count is the capacity). */
        DFCT_OK(
            DFC_Recv_init(rbuf[c], nints[c] + 4, DFC_INT, left, 100 + c, DFC_COMM_WORLD, &rreq[c]));
        DFCT_CHECK(sreq[c] != DFC_REQUEST_NULL && rreq[c] != DFC_REQUEST_NULL,
                   "_init gave a null request");
    }
    /* An inactive persistent request completes at once with an empty status. */
    {
        DFC_Status st;
        int flag = 0;
        DFCT_OK(DFC_Test(&rreq[0], &flag, &st));
        DFCT_CHECK(flag == 1 && st.DFC_SOURCE == DFC_ANY_SOURCE && st.DFC_TAG == DFC_ANY_TAG,
                   "Test of a never-started request: flag %d status %d/%d", flag, st.DFC_SOURCE,
                   st.DFC_TAG);
    }

    for (int it = 0; it < NITER; it++) {
        for (int c = 0; c < NCH; c++) {
            for (int k = 0; k < nints[c]; k++) sbuf[c][k] = value(rank, it, c, k);
            memset(rbuf[c], POISON, nints[c] * sizeof(int) + 16);
        }
        int mode = it % 4;
        if (mode == 0) {
            /* Startall over receives and sends together, Waitall. */
            for (int c = 0; c < NCH; c++) all[c] = rreq[c], all[NCH + c] = sreq[c];
            DFCT_OK(DFC_Startall(2 * NCH, all));
            DFCT_OK(DFC_Waitall(2 * NCH, all, sts));
            for (int c = 0; c < NCH; c++) {
                DFCT_CHECK(all[c] == rreq[c] && all[NCH + c] == sreq[c],
                           "Waitall changed persistent handles");
                check_buf(rbuf[c], nints[c], left, it, c, &sts[c], 100 + c, "Startall/Waitall");
            }
        } else if (mode == 1) {
            /* Sends first (one Start each), receives after, Wait one by one. */
            for (int c = 0; c < NCH; c++) DFCT_OK(DFC_Start(&sreq[c]));
            for (int c = NCH - 1; c >= 0; c--) DFCT_OK(DFC_Start(&rreq[c]));
            for (int c = 0; c < NCH; c++) {
                DFC_Status st;
                DFCT_OK(DFC_Wait(&rreq[c], &st));
                check_buf(rbuf[c], nints[c], left, it, c, &st, 100 + c, "Start/Wait");
            }
            for (int c = 0; c < NCH; c++) DFCT_OK(DFC_Wait(&sreq[c], DFC_STATUS_IGNORE));
        } else if (mode == 2) {
            /* Startall of receives, Startall of sends, Test loops. */
            DFCT_OK(DFC_Startall(NCH, rreq));
            DFCT_OK(DFC_Startall(NCH, sreq));
            int left_to_do = 2 * NCH, done[2 * NCH] = {0};
            while (left_to_do) {
                for (int j = 0; j < 2 * NCH; j++) {
                    if (done[j]) continue;
                    DFC_Status st;
                    int flag = 0;
                    DFC_Request *r = j < NCH ? &rreq[j] : &sreq[j - NCH];
                    DFCT_OK(DFC_Test(r, &flag, &st));
                    if (!flag) continue;
                    done[j] = 1;
                    left_to_do--;
                    DFCT_CHECK(*r != DFC_REQUEST_NULL, "Test nulled a persistent request");
                    if (j < NCH)
                        check_buf(rbuf[j], nints[j], left, it, j, &st, 100 + j, "Startall/Test");
                }
            }
        } else {
            /* Testall until done. */
            for (int c = 0; c < NCH; c++) all[2 * c] = sreq[c], all[2 * c + 1] = rreq[c];
            DFCT_OK(DFC_Startall(2 * NCH, all));
            int flag = 0;
            while (!flag) DFCT_OK(DFC_Testall(2 * NCH, all, &flag, sts));
            for (int c = 0; c < NCH; c++)
                check_buf(rbuf[c], nints[c], left, it, c, &sts[2 * c + 1], 100 + c,
                          "Startall/Testall");
        }
    }

    /* Inactive again: Wait returns at once. */
    for (int c = 0; c < NCH; c++) {
        DFC_Status st;
        DFCT_OK(DFC_Wait(&rreq[c], &st));
        DFCT_CHECK(st.DFC_SOURCE == DFC_ANY_SOURCE && st.DFC_TAG == DFC_ANY_TAG,
                   "Wait of an inactive request: status %d/%d", st.DFC_SOURCE, st.DFC_TAG);
    }
    /* Free the inactive requests. */
    for (int c = 0; c < NCH; c++) {
        DFCT_OK(DFC_Request_free(&sreq[c]));
        DFCT_OK(DFC_Request_free(&rreq[c]));
        DFCT_CHECK(sreq[c] == DFC_REQUEST_NULL && rreq[c] == DFC_REQUEST_NULL,
                   "Request_free did not null");
    }

    /* A persistent send freed while active still delivers (eager and rendezvous). */
    for (int c = 0; c < 2; c++) {
        DFC_Request r, rr;
        DFC_Status st;
        for (int k = 0; k < nints[c]; k++) sbuf[c][k] = value(rank, NITER, c, k);
        memset(rbuf[c], POISON, nints[c] * sizeof(int) + 16);
        DFCT_OK(DFC_Irecv(rbuf[c], nints[c], DFC_INT, left, 200 + c, DFC_COMM_WORLD, &rr));
        DFCT_OK(DFC_Send_init(sbuf[c], nints[c], DFC_INT, right, 200 + c, DFC_COMM_WORLD, &r));
        DFCT_OK(DFC_Start(&r));
        DFCT_OK(DFC_Request_free(&r));
        DFCT_CHECK(r == DFC_REQUEST_NULL, "Request_free of an active request did not null it");
        DFCT_OK(DFC_Wait(&rr, &st));
        check_buf(rbuf[c], nints[c], left, NITER, c, &st, 200 + c, "freed active Send_init");
        /* The send buffer may be reused only once we know the send finished: a round trip
         * on another tag after the receive tells us (the peer got it). */
        DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_INT, left, 300, NULL, 0, DFC_INT, right, 300,
                             DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    }

    for (int c = 0; c < NCH; c++) {
        free(sbuf[c]);
        free(rbuf[c]);
    }
    return dfct_finalize();
}
