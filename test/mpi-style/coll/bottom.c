/*
 * bottom.c - DFC_BOTTOM (a NULL buffer) with datatypes of absolute addresses, in collectives
 * and point-to-point. MPI allows a NULL buffer when the count is 0 or when the datatype carries
 * the addresses itself (a struct built from DFC_Get_address); mpi4py's testAlltoallwBottom,
 * testNeighborAlltoallwBottom and testMessageBottom do that, and DFC refused them with
 * "sendbuf: NULL". Each call here moves real data through such types and checks every element
 * received (poisoned beforehand); the same NULL with a predefined type, or a derived type whose
 * data starts at its origin, must still fail with DFC_ERR_BUFFER and a message naming the
 * argument.
 */
#include "colltest.h"

#define POISON (-7)
#define N 5 /* ints per block */

static int value(int from, int to, int i) { return 1000 * from + 10 * to + i; }

/* A struct of n ints at the absolute address of p (a type DFC_BOTTOM can carry). */
static DFC_Datatype abs_type(const int *p, int n)
{
    DFC_Aint addr;
    DFC_Datatype t, in = DFC_INT;
    DFCT_OK(DFC_Get_address(p, &addr));
    DFCT_OK(DFC_Type_create_struct(1, &n, &addr, &in, &t));
    DFCT_OK(DFC_Type_commit(&t));
    return t;
}

static void fill(int *sbuf, int *rbuf, int nblocks)
{
    for (int p = 0; p < nblocks; p++)
        for (int i = 0; i < N; i++) sbuf[p * N + i] = value(ct_rank, p, i);
    for (int i = 0; i < nblocks * N; i++) rbuf[i] = POISON;
}

/* Block p of rbuf came from rank from[p] (no check where from[p] < 0: left poisoned). */
static void check_blocks(const int *rbuf, const int *from, int nblocks, const char *what)
{
    for (int p = 0; p < nblocks; p++)
        for (int i = 0; i < N; i++) {
            int want = from[p] < 0 ? POISON : value(from[p], ct_rank, i);
            DFCT_CHECK(rbuf[p * N + i] == want, "%s: block %d element %d is %d, expected %d", what,
                       p, i, rbuf[p * N + i], want);
        }
}

/* Alltoallw with every block a type at its absolute address; blocking and nonblocking. */
static void alltoallw_bottom(int *sbuf, int *rbuf, int *from)
{
    int n = ct_size, *ones = ct_malloc(n * sizeof(int)), *zeros = calloc(n, sizeof(int));
    DFC_Datatype *st = ct_malloc(n * sizeof *st), *rt = ct_malloc(n * sizeof *rt);
    for (int p = 0; p < n; p++) {
        ones[p] = 1, from[p] = p;
        st[p] = abs_type(sbuf + p * N, N);
        rt[p] = abs_type(rbuf + p * N, N);
    }
    for (int nb = 0; nb < 2; nb++) {
        fill(sbuf, rbuf, n);
        if (nb) {
            DFC_Request rq;
            DFCT_OK(DFC_Ialltoallw(DFC_BOTTOM, ones, zeros, st, DFC_BOTTOM, ones, zeros, rt,
                                   DFC_COMM_WORLD, &rq));
            DFCT_OK(DFC_Wait(&rq, DFC_STATUS_IGNORE));
        } else {
            DFCT_OK(DFC_Alltoallw(DFC_BOTTOM, ones, zeros, st, DFC_BOTTOM, ones, zeros, rt,
                                  DFC_COMM_WORLD));
        }
        check_blocks(rbuf, from, n, nb ? "Ialltoallw(BOTTOM)" : "Alltoallw(BOTTOM)");
    }
    /* A predefined type with BOTTOM addresses memory at 0: refused, naming the element. */
    int *displs = zeros;
    DFC_Datatype *ints = ct_malloc(n * sizeof *ints);
    for (int p = 0; p < n; p++) ints[p] = DFC_INT;
    DFCT_FAILS(DFC_Alltoallw(DFC_BOTTOM, ones, displs, ints, rbuf, ones, displs, rt,
                             DFC_COMM_WORLD),
               DFC_ERR_BUFFER, "DFC_Alltoallw: invalid argument sendbuf: NULL while sendtypes");
    DFCT_FAILS(DFC_Alltoallw(sbuf, ones, displs, st, DFC_BOTTOM, ones, displs, ints,
                             DFC_COMM_WORLD),
               DFC_ERR_BUFFER, "DFC_Alltoallw: invalid argument recvbuf: NULL while recvtypes");
    for (int p = 0; p < n; p++) {
        DFC_Type_free(&st[p]);
        DFC_Type_free(&rt[p]);
    }
    free(ints), free(st), free(rt), free(ones), free(zeros);
}

/* Neighbor_alltoallw on a periodic ring: block 0 goes to the left neighbor, 1 to the right. */
static void neighbor_bottom(int *sbuf, int *rbuf)
{
    DFC_Comm ring;
    int dims = ct_size, periods = 1, ones[2] = {1, 1}, from[2];
    DFC_Aint zeros[2] = {0, 0};
    DFCT_OK(DFC_Cart_create(DFC_COMM_WORLD, 1, &dims, &periods, 0, &ring));
    DFCT_OK(DFC_Comm_set_errhandler(ring, DFC_ERRORS_RETURN));
    int left = (ct_rank + ct_size - 1) % ct_size, right = (ct_rank + 1) % ct_size;
    from[0] = left, from[1] = right;
    DFC_Datatype st[2], rt[2], ints[2] = {DFC_INT, DFC_INT};
    for (int p = 0; p < 2; p++) {
        st[p] = abs_type(sbuf + p * N, N);
        rt[p] = abs_type(rbuf + p * N, N);
    }
    /* What rank r sends to its left (block 0) has value(r, 0, i), to its right value(r, 1, i);
     * this rank receives its left neighbor's block 1 into block 0, the right's block 0 into 1:
     * value(left, 1, i) and value(right, 0, i). */
    for (int nb = 0; nb < 2; nb++) {
        for (int p = 0; p < 2; p++)
            for (int i = 0; i < N; i++) sbuf[p * N + i] = value(ct_rank, p, i);
        for (int i = 0; i < 2 * N; i++) rbuf[i] = POISON;
        if (nb) {
            DFC_Request rq;
            DFCT_OK(DFC_Ineighbor_alltoallw(DFC_BOTTOM, ones, zeros, st, DFC_BOTTOM, ones, zeros,
                                            rt, ring, &rq));
            DFCT_OK(DFC_Wait(&rq, DFC_STATUS_IGNORE));
        } else {
            DFCT_OK(DFC_Neighbor_alltoallw(DFC_BOTTOM, ones, zeros, st, DFC_BOTTOM, ones, zeros, rt,
                                           ring));
        }
        for (int p = 0; p < 2; p++)
            for (int i = 0; i < N; i++) {
                int want = value(from[p], 1 - p, i);
                DFCT_CHECK(rbuf[p * N + i] == want,
                           "Neighbor_alltoallw(BOTTOM) nb=%d: block %d element %d is %d, "
                           "expected %d",
                           nb, p, i, rbuf[p * N + i], want);
            }
    }
    /* The w form's displacements are DFC_Aint: they may carry the addresses instead, with
     * predefined types (mpi4py's testNeighborAlltoallwBottom). */
    DFC_Aint sd[2], rd[2];
    for (int p = 0; p < 2; p++) {
        DFCT_OK(DFC_Get_address(sbuf + p * N, &sd[p]));
        DFCT_OK(DFC_Get_address(rbuf + p * N, &rd[p]));
        for (int i = 0; i < N; i++) sbuf[p * N + i] = value(ct_rank, p, i);
    }
    for (int i = 0; i < 2 * N; i++) rbuf[i] = POISON;
    int fives[2] = {N, N};
    DFCT_OK(DFC_Neighbor_alltoallw(DFC_BOTTOM, fives, sd, ints, DFC_BOTTOM, fives, rd, ints, ring));
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < N; i++)
            DFCT_CHECK(rbuf[p * N + i] == value(from[p], 1 - p, i),
                       "Neighbor_alltoallw(BOTTOM, address displacements): block %d element %d "
                       "is %d, expected %d",
                       p, i, rbuf[p * N + i], value(from[p], 1 - p, i));
    DFCT_FAILS(DFC_Neighbor_alltoallw(DFC_BOTTOM, ones, zeros, ints, rbuf, ones, zeros, rt, ring),
               DFC_ERR_BUFFER,
               "DFC_Neighbor_alltoallw: invalid argument sendbuf: NULL while block 0 (sdispls "
               "element 0, sendtypes element 0) starts at address 0");
    for (int p = 0; p < 2; p++) {
        DFC_Type_free(&st[p]);
        DFC_Type_free(&rt[p]);
    }
    DFC_Comm_free(&ring);
}

/* Bcast and Gatherv through BOTTOM types (a reduction takes one type for both buffers, so
 * BOTTOM there would make them alias). */
static void rooted_bottom(int *sbuf, int *rbuf)
{
    DFC_Datatype t = abs_type(rbuf, N), s = abs_type(sbuf, N);
    for (int i = 0; i < N; i++) rbuf[i] = ct_rank == 0 ? value(0, 9, i) : POISON;
    DFCT_OK(DFC_Bcast(DFC_BOTTOM, 1, t, 0, DFC_COMM_WORLD));
    for (int i = 0; i < N; i++)
        DFCT_CHECK(rbuf[i] == value(0, 9, i), "Bcast(BOTTOM): element %d is %d", i, rbuf[i]);

    int *counts = ct_malloc(ct_size * sizeof(int)), *displs = calloc(ct_size, sizeof(int));
    int *gath = ct_malloc(ct_size * N * sizeof(int));
    /* The root's block only: its receive signature must match its N-int send (a type over
     * the whole array made the root copy N * size ints out of an N-int send: ASan) */
    DFC_Datatype g = abs_type(gath, N), one;
    DFCT_OK(DFC_Type_contiguous(N, DFC_INT, &one));
    DFCT_OK(DFC_Type_commit(&one));
    for (int p = 0; p < ct_size; p++) counts[p] = p == 0 ? 1 : 0;
    for (int i = 0; i < N; i++) sbuf[i] = value(ct_rank, 0, i);
    for (int i = 0; i < ct_size * N; i++) gath[i] = POISON;
    /* Rank 0 gathers its own block through a BOTTOM type; the others send nothing. */
    DFCT_OK(DFC_Gatherv(ct_rank == 0 ? DFC_BOTTOM : NULL, ct_rank == 0 ? 1 : 0, s, DFC_BOTTOM,
                        counts, displs, g, 0, DFC_COMM_WORLD));
    if (ct_rank == 0)
        for (int i = 0; i < N; i++)
            DFCT_CHECK(gath[i] == value(0, 0, i), "Gatherv(BOTTOM): element %d is %d", i, gath[i]);
    for (int i = N; ct_rank == 0 && i < ct_size * N; i++)
        DFCT_CHECK(gath[i] == POISON, "Gatherv(BOTTOM): element %d past the root's block is %d", i,
                   gath[i]);
    /* A derived type whose data starts at 0 addresses memory at 0: refused. */
    DFCT_FAILS(DFC_Bcast(DFC_BOTTOM, 1, one, 0, DFC_COMM_WORLD), DFC_ERR_BUFFER,
               "DFC_Bcast: invalid argument buffer: NULL with count 1");
    DFC_Type_free(&one);
    DFC_Type_free(&g);
    DFC_Type_free(&t);
    DFC_Type_free(&s);
    free(counts), free(displs), free(gath);
}

/* Sendrecv around the ring through BOTTOM types; Send of a predefined type from NULL fails. */
static void p2p_bottom(int *sbuf, int *rbuf)
{
    int right = (ct_rank + 1) % ct_size, left = (ct_rank + ct_size - 1) % ct_size;
    DFC_Datatype s = abs_type(sbuf, N), r = abs_type(rbuf, N);
    for (int i = 0; i < N; i++) sbuf[i] = value(ct_rank, right, i), rbuf[i] = POISON;
    DFCT_OK(DFC_Sendrecv(DFC_BOTTOM, 1, s, right, 3, DFC_BOTTOM, 1, r, left, 3, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    int from = left;
    check_blocks(rbuf, &from, 1, "Sendrecv(BOTTOM)");
    DFCT_FAILS(DFC_Send(DFC_BOTTOM, 1, DFC_INT, right, 3, DFC_COMM_WORLD), DFC_ERR_BUFFER,
               "DFC_Send: invalid argument buf: NULL with count 1");
    DFCT_FAILS(DFC_Recv(DFC_BOTTOM, 2, DFC_INT, left, 3, DFC_COMM_WORLD, DFC_STATUS_IGNORE),
               DFC_ERR_BUFFER, "DFC_Recv: invalid argument buf: NULL with count 2");
    DFC_Type_free(&s);
    DFC_Type_free(&r);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    int nblocks = ct_size > 2 ? ct_size : 2;
    int *sbuf = ct_malloc(nblocks * N * sizeof(int)), *rbuf = ct_malloc(nblocks * N * sizeof(int));
    int *from = ct_malloc(nblocks * sizeof(int));
    alltoallw_bottom(sbuf, rbuf, from);
    neighbor_bottom(sbuf, rbuf);
    rooted_bottom(sbuf, rbuf);
    p2p_bottom(sbuf, rbuf);
    free(sbuf), free(rbuf), free(from);
    return dfct_finalize();
}
