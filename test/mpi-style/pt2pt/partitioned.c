/*
 * partitioned - partitioned communication (MPI-4.1 chapter 4): Psend_init and Precv_init
 * between two ranks, in both directions, restarted for several rounds with Startall together
 * with a plain persistent send and receive; partitions marked ready in a shuffled order with
 * Pready, Pready_range and Pready_list; Parrived false before the peer sent anything and true
 * after Wait; data checked element by element in poisoned buffers; bad input refused with the
 * right class and a message; Request_free of the requests.
 */
#include "../dfctest.h"

#define NPART 8
#define COUNT 700 /* ints per partition */
#define NROUND 3
#define POISON 0x5a5a5a5a
#define TOKEN_TAG 9

static int value(int src, int round, int k) { return src * 1000003 + round * 10007 + k; }

static void shuffle(int *a, int n, unsigned *seed)
{
    for (int i = 0; i < n; i++) a[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(dfct_rand(seed) % (unsigned)(i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Writes partition p of this round's send data: only just before it is marked ready, so that
 * a send that went early would carry poison. */
static int *g_sbuf, g_rank, g_round;
static void fill(int p)
{
    for (int k = p * COUNT; k < (p + 1) * COUNT; k++) g_sbuf[k] = value(g_rank, g_round, k);
}

/* Round 0: Pready one by one; 1: Pready_range on runs of consecutive partitions in a mixed
 * order; 2: Pready_list in two halves of a shuffled order. */
static void mark_ready(DFC_Request req, int round, unsigned *seed)
{
    int order[NPART];
    shuffle(order, NPART, seed);
    if (round % 3 == 0) {
        for (int i = 0; i < NPART; i++) {
            fill(order[i]);
            DFCT_OK(DFC_Pready(order[i], req));
        }
    } else if (round % 3 == 1) {
        int lows[3] = {4, 0, 6}, highs[3] = {5, 3, 7};
        for (int i = 0; i < 3; i++) {
            for (int p = lows[i]; p <= highs[i]; p++) fill(p);
            DFCT_OK(DFC_Pready_range(lows[i], highs[i], req));
        }
    } else {
        /* A duplicate in a list is refused and marks nothing. */
        int dup[3] = {order[0], order[1], order[0]};
        DFCT_FAILS(DFC_Pready_list(3, dup, req), DFC_ERR_ARG, "already ready");
        for (int i = 0; i < NPART / 2; i++) fill(order[i]);
        DFCT_OK(DFC_Pready_list(NPART / 2, order, req));
        DFCT_FAILS(DFC_Pready(order[0], req), DFC_ERR_ARG, "already ready");
        for (int i = NPART / 2; i < NPART; i++) fill(order[i]);
        DFCT_OK(DFC_Pready_list(NPART - NPART / 2, order + NPART / 2, req));
    }
}

static void check_recv(const int *buf, int src, int round)
{
    int bad = 0;
    for (int k = 0; k < NPART * COUNT; k++)
        if (buf[k] != value(src, round, k) && bad++ < 3)
            DFCT_CHECK(0, "round %d: element %d is %d, expected %d", round, k, buf[k],
                       value(src, round, k));
    DFCT_CHECK(buf[NPART * COUNT] == POISON, "round %d: wrote past the end", round);
}

static void bad_input(int peer, int *sbuf, int *rbuf, DFC_Request psend, DFC_Request precv,
                      DFC_Request plain)
{
    DFC_Request r = DFC_REQUEST_NULL;
    int flag = 0;
    DFCT_FAILS(DFC_Psend_init(sbuf, 0, COUNT, DFC_INT, peer, 1, DFC_COMM_WORLD, DFC_INFO_NULL, &r),
               DFC_ERR_ARG, "partitions");
    DFCT_FAILS(DFC_Precv_init(rbuf, NPART, -1, DFC_INT, peer, 1, DFC_COMM_WORLD, DFC_INFO_NULL, &r),
               DFC_ERR_COUNT, "count");
    DFCT_CHECK(r == DFC_REQUEST_NULL, "a failed init returned a request");
    /* Not started yet: inactive. */
    DFCT_FAILS(DFC_Pready(0, psend), DFC_ERR_REQUEST, "inactive");
    DFCT_FAILS(DFC_Pready(0, precv), DFC_ERR_REQUEST, "not a partitioned send");
    DFCT_FAILS(DFC_Pready(0, plain), DFC_ERR_REQUEST, "not a partitioned send");
    DFCT_FAILS(DFC_Pready(0, DFC_REQUEST_NULL), DFC_ERR_REQUEST, "request");
    DFCT_FAILS(DFC_Parrived(psend, 0, &flag), DFC_ERR_REQUEST, "not a partitioned receive");
    DFCT_FAILS(DFC_Parrived(plain, 0, &flag), DFC_ERR_REQUEST, "not a partitioned receive");
    DFCT_FAILS(DFC_Parrived(precv, NPART, &flag), DFC_ERR_ARG, "partition");
}

static void bad_active(DFC_Request psend)
{
    int list[2] = {1, -1};
    DFCT_FAILS(DFC_Pready(NPART, psend), DFC_ERR_ARG, "outside");
    DFCT_FAILS(DFC_Pready(-1, psend), DFC_ERR_ARG, "outside");
    DFCT_FAILS(DFC_Pready_range(3, 2, psend), DFC_ERR_ARG, "partition_high");
    DFCT_FAILS(DFC_Pready_range(6, NPART, psend), DFC_ERR_ARG, "outside");
    DFCT_FAILS(DFC_Pready_list(2, list, psend), DFC_ERR_ARG, "outside");
    DFCT_FAILS(DFC_Pready_list(-1, list, psend), DFC_ERR_ARG, "length");
}

int main(int argc, char **argv)
{
    int rank, size;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    if (size != 2) {
        DFCT_CHECK(0, "needs exactly 2 ranks, got %d", size);
        return dfct_finalize();
    }
    int peer = 1 - rank, n = NPART * COUNT, plain_s = 0, plain_r = 0, flag = -1;
    int *sbuf = malloc(n * sizeof(int)), *rbuf = malloc((n + 1) * sizeof(int));
    unsigned seed = 12345u + (unsigned)rank;
    DFC_Request req[4], spare;

    /* An init freed right away, inactive. */
    DFCT_OK(DFC_Psend_init(sbuf, NPART, COUNT, DFC_INT, peer, 7, DFC_COMM_WORLD, DFC_INFO_NULL,
                           &spare));
    DFCT_OK(DFC_Request_free(&spare));
    DFCT_CHECK(spare == DFC_REQUEST_NULL, "Request_free did not null the request");

    DFCT_OK(DFC_Psend_init(sbuf, NPART, COUNT, DFC_INT, peer, 3, DFC_COMM_WORLD, DFC_INFO_NULL,
                           &req[0]));
    DFCT_OK(DFC_Precv_init(rbuf, NPART, COUNT, DFC_INT, peer, 3, DFC_COMM_WORLD, DFC_INFO_NULL,
                           &req[1]));
    DFCT_OK(DFC_Send_init(&plain_s, 1, DFC_INT, peer, 4, DFC_COMM_WORLD, &req[2]));
    DFCT_OK(DFC_Recv_init(&plain_r, 1, DFC_INT, peer, 4, DFC_COMM_WORLD, &req[3]));
    bad_input(peer, sbuf, rbuf, req[0], req[1], req[2]);

    for (int round = 0; round < NROUND; round++) {
        for (int k = 0; k < n; k++) {
            sbuf[k] = POISON;
            rbuf[k] = POISON;
        }
        rbuf[n] = POISON;
        plain_s = round * 10 + rank;
        g_sbuf = sbuf;
        g_rank = rank;
        g_round = round;
        plain_r = -1;
        DFCT_OK(DFC_Startall(4, req));
        if (round == 0) bad_active(req[0]);
        int token = 0;
        if (rank == 1) {
            /* Rank 0 sends nothing before our token: nothing can have arrived yet. */
            for (int p = 0; p < NPART; p++) {
                DFCT_OK(DFC_Parrived(req[1], p, &flag));
                DFCT_CHECK(flag == 0, "round %d: partition %d arrived before it was sent", round,
                           p);
            }
            DFCT_OK(DFC_Send(&token, 1, DFC_INT, 0, TOKEN_TAG, DFC_COMM_WORLD));
        } else {
            DFCT_OK(DFC_Recv(&token, 1, DFC_INT, 1, TOKEN_TAG, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
            /* May or may not have arrived; when it says so, the data must be there. */
            DFCT_OK(DFC_Parrived(req[1], 0, &flag));
            if (flag) check_recv(rbuf, peer, round);
        }
        mark_ready(req[0], round, &seed);
        DFCT_OK(DFC_Waitall(4, req, DFC_STATUSES_IGNORE));
        check_recv(rbuf, peer, round);
        DFCT_CHECK(plain_r == round * 10 + peer, "round %d: plain receive got %d", round, plain_r);
        for (int p = 0; p < NPART; p++) {
            DFCT_OK(DFC_Parrived(req[1], p, &flag));
            DFCT_CHECK(flag == 1, "round %d: partition %d not arrived after Wait", round, p);
        }
        DFCT_FAILS(DFC_Pready(0, req[0]), DFC_ERR_REQUEST, "inactive");
    }
    for (int i = 0; i < 4; i++) {
        DFCT_OK(DFC_Request_free(&req[i]));
        DFCT_CHECK(req[i] == DFC_REQUEST_NULL, "Request_free did not null request %d", i);
    }
    free(sbuf);
    free(rbuf);
    return dfct_finalize();
}
