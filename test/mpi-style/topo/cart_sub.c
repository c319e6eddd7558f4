/*
 * cart_sub - Cart_sub on a 3D grid (periodic, non-periodic, periodic) for every subset of
 * kept dimensions: each sub-grid holds exactly the processes that share my dropped
 * coordinates, ranked row-major by the kept ones, with the kept dimensions and periods;
 * keeping none gives a 0-dimensional grid of one process. A Neighbor_allgather on each
 * sub-grid is checked against Cart_shift there.
 */
#include "../dfctest.h"

int main(int argc, char **argv)
{
    int rank, size, dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
    DFC_Comm cart;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Dims_create(size, 3, dims));
    DFCT_OK(DFC_Cart_create(DFC_COMM_WORLD, 3, dims, periods, 0, &cart));
    int mine[3];
    DFCT_OK(DFC_Cart_coords(cart, rank, 3, mine));
    for (int mask = 0; mask < 8; mask++) {
        int remain[3], nk = 0, expsize = 1, expdims[3], expper[3];
        DFC_Comm sub;
        for (int d = 0; d < 3; d++) {
            remain[d] = (mask >> d) & 1;
            if (remain[d]) {
                expdims[nk] = dims[d];
                expper[nk++] = periods[d];
                expsize *= dims[d];
            }
        }
        DFCT_OK(DFC_Cart_sub(cart, remain, &sub));
        int n = -1, me = -1, nd = -1, st = -1;
        DFCT_OK(DFC_Comm_size(sub, &n));
        DFCT_OK(DFC_Comm_rank(sub, &me));
        DFCT_OK(DFC_Topo_test(sub, &st));
        DFCT_OK(DFC_Cartdim_get(sub, &nd));
        DFCT_CHECK(n == expsize && st == DFC_CART && nd == nk,
                   "mask %d: size %d (exp %d), topo %d, ndims %d", mask, n, expsize, st, nd);
        int gd[3], gp[3], gc[3];
        DFCT_OK(DFC_Cart_get(sub, 3, gd, gp, gc));
        int exprank = 0;
        for (int k = 0, d = 0; d < 3; d++)
            if (remain[d]) {
                DFCT_CHECK(gd[k] == expdims[k] && gp[k] == expper[k] && gc[k] == mine[d],
                           "mask %d dim %d: dims %d periods %d coords %d", mask, k, gd[k], gp[k],
                           gc[k]);
                exprank = exprank * dims[d] + mine[d];
                k++;
            }
        DFCT_CHECK(me == exprank, "mask %d: rank %d in the sub-grid, expected %d", mask, me,
                   exprank);
        /* Every member shares my dropped coordinates and sits at its kept coordinates. */
        int all[3 * 64];
        if (n <= 64) {
            DFCT_OK(DFC_Allgather(mine, 3, DFC_INT, all, 3, DFC_INT, sub));
            for (int q = 0; q < n; q++) {
                int r = 0;
                for (int d = 0; d < 3; d++) {
                    if (remain[d]) r = r * dims[d] + all[3 * q + d];
                    else
                        DFCT_CHECK(all[3 * q + d] == mine[d],
                                   "mask %d: member %d differs in dropped dim %d", mask, q, d);
                }
                DFCT_CHECK(r == q, "mask %d: member %d has kept coordinates of rank %d", mask, q,
                           r);
            }
        }
        /* A neighborhood collective on the sub-grid. */
        int one = 1000 + me, got[6] = {-1, -1, -1, -1, -1, -1};
        DFCT_OK(DFC_Neighbor_allgather(&one, 1, DFC_INT, got, 1, DFC_INT, sub));
        for (int k = 0; k < nk; k++) {
            int s, t;
            DFCT_OK(DFC_Cart_shift(sub, k, 1, &s, &t));
            DFCT_CHECK(got[2 * k] == (s == DFC_PROC_NULL ? -1 : 1000 + s) &&
                           got[2 * k + 1] == (t == DFC_PROC_NULL ? -1 : 1000 + t),
                       "mask %d dim %d: got %d %d from %d %d", mask, k, got[2 * k], got[2 * k + 1],
                       s, t);
        }
        DFCT_OK(DFC_Comm_free(&sub));
    }
    DFCT_OK(DFC_Comm_free(&cart));
    return dfct_finalize();
}
