/*
 * persist - persistent neighborhood collectives started in different orders on different
 * ranks. Four requests: two Neighbor_alltoall_init of the same shape on one 2D periodic grid
 * (so only the _init sequence number can tell their messages apart), a
 * Neighbor_allgather_init on the grid and a Neighbor_allgatherv_init on a distributed ring.
 * Each round every rank starts them in its own order (rotated by rank and round, reversed
 * on odd ranks) and waits for them in yet another order; the inputs are fresh each round
 * and every output is checked element by element; a blocking Allreduce on DFC_COMM_WORLD
 * runs while all four are pending. A hang or a cross-matched message fails.
 */
#include "../dfctest.h"

#define M 3
#define ROUNDS 20
#define NREQ 4
#define POISON (-999)

static int rank, size;

static int val(int req, int r, int blk, int i, int it)
{
    return (((it * 8 + req) * 64 + r) * 8 + blk) * 4 + i;
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    DFC_Comm cart, ring;
    DFCT_OK(DFC_Dims_create(size, 2, dims));
    DFCT_OK(DFC_Cart_create(DFC_COMM_WORLD, 2, dims, periods, 0, &cart));
    int nb[4]; /* grid neighbors in block order */
    DFCT_OK(DFC_Cart_shift(cart, 0, 1, &nb[0], &nb[1]));
    DFCT_OK(DFC_Cart_shift(cart, 1, 1, &nb[2], &nb[3]));
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    int rsrc[2] = {left, right}, rdst[2] = {right, left};
    DFCT_OK(DFC_Dist_graph_create_adjacent(DFC_COMM_WORLD, 2, rsrc, DFC_UNWEIGHTED, 2, rdst,
                                           DFC_UNWEIGHTED, DFC_INFO_NULL, 0, &ring));

    int sa[2][4 * M], ra[2][4 * M], sg[M], rg[4 * M], sv[4], rv[2 * 5 + 4];
    int rvc[2] = {1 + left % 4, 1 + right % 4}, rvd[2] = {0, 6};
    DFC_Request req[NREQ];
    for (int k = 0; k < 2; k++)
        DFCT_OK(DFC_Neighbor_alltoall_init(sa[k], M, DFC_INT, ra[k], M, DFC_INT, cart,
                                           DFC_INFO_NULL, &req[k]));
    DFCT_OK(
        DFC_Neighbor_allgather_init(sg, M, DFC_INT, rg, M, DFC_INT, cart, DFC_INFO_NULL, &req[2]));
    DFCT_OK(DFC_Neighbor_allgatherv_init(sv, 1 + rank % 4, DFC_INT, rv, rvc, rvd, DFC_INT, ring,
                                         DFC_INFO_NULL, &req[3]));
    for (int it = 0; it < ROUNDS; it++) {
        for (int k = 0; k < 2; k++)
            for (int b = 0; b < 4; b++)
                for (int i = 0; i < M; i++) {
                    sa[k][b * M + i] = val(k, rank, b, i, it);
                    ra[k][b * M + i] = POISON;
                }
        for (int i = 0; i < M; i++) sg[i] = val(2, rank, 0, i, it);
        for (int i = 0; i < 4 * M; i++) rg[i] = POISON;
        for (int i = 0; i < 4; i++) sv[i] = val(3, rank, 0, i, it);
        for (int i = 0; i < 2 * 5 + 4; i++) rv[i] = POISON;
        int order[NREQ];
        for (int k = 0; k < NREQ; k++) order[k] = (k + rank + it) % NREQ;
        if (rank % 2)
            for (int k = 0; k < NREQ / 2; k++) {
                int t = order[k];
                order[k] = order[NREQ - 1 - k];
                order[NREQ - 1 - k] = t;
            }
        for (int k = 0; k < NREQ; k++) DFCT_OK(DFC_Start(&req[order[k]]));
        /* A blocking collective on another communicator while all four are pending: the
         * scheduler must let it through whatever state the others are in. */
        int sum = 0, one = 1;
        DFCT_OK(DFC_Allreduce(&one, &sum, 1, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
        DFCT_CHECK(sum == size, "round %d: Allreduce gave %d", it, sum);
        for (int k = 0; k < NREQ; k++)
            DFCT_OK(DFC_Wait(&req[(order[k] + 1 + rank) % NREQ], DFC_STATUS_IGNORE));
        /* alltoall: block 2d from the negative neighbor holds what it sent in + (2d+1) */
        for (int k = 0; k < 2; k++)
            for (int b = 0; b < 4; b++)
                for (int i = 0; i < M; i++) {
                    int exp = val(k, nb[b], b ^ 1, i, it);
                    DFCT_CHECK(ra[k][b * M + i] == exp,
                               "round %d req %d block %d item %d: %d, expected %d", it, k, b, i,
                               ra[k][b * M + i], exp);
                }
        for (int b = 0; b < 4; b++)
            for (int i = 0; i < M; i++)
                DFCT_CHECK(rg[b * M + i] == val(2, nb[b], 0, i, it),
                           "round %d allgather block %d item %d: %d", it, b, i, rg[b * M + i]);
        int exp[2 * 5 + 4];
        for (int i = 0; i < 2 * 5 + 4; i++) exp[i] = POISON;
        for (int s = 0; s < 2; s++)
            for (int i = 0; i < rvc[s]; i++) exp[rvd[s] + i] = val(3, rsrc[s], 0, i, it);
        for (int i = 0; i < 2 * 5 + 4; i++)
            DFCT_CHECK(rv[i] == exp[i], "round %d allgatherv item %d: %d, expected %d", it, i,
                       rv[i], exp[i]);
    }
    for (int k = 0; k < NREQ; k++) DFCT_OK(DFC_Request_free(&req[k]));
    DFCT_OK(DFC_Comm_free(&cart));
    DFCT_OK(DFC_Comm_free(&ring));
    return dfct_finalize();
}
