/*
 * cart - Cartesian topologies: Cart_create/get/rank/coords/shift/map, Cartdim_get,
 * Topo_test and Comm_dup of a grid, then a halo exchange by Neighbor_alltoall (blocking,
 * nonblocking, and a persistent request started three times with fresh inputs) and a
 * Neighbor_allgather, on 2D and 3D grids with every mix of periodic and non-periodic
 * dimensions, checked element by element against what each neighbor sent: the block from
 * the negative neighbor in dimension d holds what that neighbor sent in the positive
 * direction, and blocks from DFC_PROC_NULL keep their poison. Grids come from Dims_create,
 * so small runs get dimensions of size 1 and 2 (a process is its own neighbor, or both
 * neighbors are one process).
 */
#include "../dfctest.h"

#define M 5 /* items per block */
#define MAXD 3
#define POISON (-777)

static int rank, size;

/* What rank r sends in block j, item i, in round it. */
static int val(int r, int j, int i, int it) { return ((it * 64 + r) * 8 + j) * 16 + i; }

static void check_queries(DFC_Comm cart, int nd, const int *dims, const int *periods)
{
    int st, n, gd[MAXD], gp[MAXD], gc[MAXD], c2[MAXD], r2;
    DFCT_OK(DFC_Topo_test(cart, &st));
    DFCT_CHECK(st == DFC_CART, "Topo_test: %d", st);
    DFCT_OK(DFC_Cartdim_get(cart, &n));
    DFCT_CHECK(n == nd, "Cartdim_get: %d, expected %d", n, nd);
    DFCT_OK(DFC_Cart_get(cart, MAXD, gd, gp, gc));
    int r = 0;
    for (int d = 0; d < nd; d++) {
        DFCT_CHECK(gd[d] == dims[d] && gp[d] == (periods[d] != 0), "Cart_get dim %d: %d %d", d,
                   gd[d], gp[d]);
        r = r * dims[d] + gc[d];
    }
    int me;
    DFC_Comm_rank(cart, &me);
    DFCT_CHECK(r == me, "Cart_get coords give rank %d, I am %d", r, me);
    for (int q = 0; q < size && q < gd[0] * (nd > 1 ? gd[1] : 1) * (nd > 2 ? gd[2] : 1); q++) {
        DFCT_OK(DFC_Cart_coords(cart, q, MAXD, c2));
        DFCT_OK(DFC_Cart_rank(cart, c2, &r2));
        DFCT_CHECK(r2 == q, "Cart_rank(Cart_coords(%d)) = %d", q, r2);
    }
    /* Periodic dimensions wrap coordinates, even by more than one period. */
    for (int d = 0; d < nd; d++) {
        if (!periods[d]) continue;
        for (int k = 0; k < nd; k++) c2[k] = gc[k];
        c2[d] = gc[d] - 3 * dims[d];
        DFCT_OK(DFC_Cart_rank(cart, c2, &r2));
        DFCT_CHECK(r2 == me, "Cart_rank wrapped in dim %d: %d, expected %d", d, r2, me);
    }
    /* Cart_shift against coordinate arithmetic, for several displacements. */
    for (int d = 0; d < nd; d++)
        for (int disp = -3; disp <= 3; disp++) {
            int src, dst, exp[2];
            DFCT_OK(DFC_Cart_shift(cart, d, disp, &src, &dst));
            for (int s = 0; s < 2; s++) {
                int cd = gc[d] + (s ? disp : -disp);
                if (periods[d]) cd = ((cd % dims[d]) + dims[d]) % dims[d];
                if (cd < 0 || cd >= dims[d]) {
                    exp[s] = DFC_PROC_NULL;
                    continue;
                }
                int rr = 0;
                for (int k = 0; k < nd; k++) rr = rr * dims[k] + (k == d ? cd : gc[k]);
                exp[s] = rr;
            }
            DFCT_CHECK(src == exp[0] && dst == exp[1], "Cart_shift(%d, %d): %d %d, expected %d %d",
                       d, disp, src, dst, exp[0], exp[1]);
        }
}

/* One halo exchange round: neighbor blocks j = 2d (negative) and 2d+1 (positive). */
static void fill(int *sb, int *rb, int nd, int it)
{
    for (int j = 0; j < 2 * nd; j++)
        for (int i = 0; i < M; i++) {
            sb[j * M + i] = val(rank, j, i, it);
            rb[j * M + i] = POISON;
        }
}

static void check_halo(DFC_Comm cart, const int *rb, int nd, int it, const char *form)
{
    int me;
    DFC_Comm_rank(cart, &me);
    for (int d = 0; d < nd; d++) {
        int src, dst;
        DFC_Cart_shift(cart, d, 1, &src, &dst);
        int from[2] = {src, dst};
        for (int s = 0; s < 2; s++) {
            int j = 2 * d + s, sent = 2 * d + 1 - s; /* the neighbor's block toward me */
            int wsrc = -1;
            if (from[s] != DFC_PROC_NULL) wsrc = from[s]; /* cart ranks are world ranks */
            for (int i = 0; i < M; i++) {
                int exp = wsrc < 0 ? POISON : val(wsrc, sent, i, it);
                DFCT_CHECK(rb[j * M + i] == exp, "%s round %d: block %d item %d = %d, expected %d",
                           form, it, j, i, rb[j * M + i], exp);
            }
        }
    }
}

static void halo(DFC_Comm cart, int nd)
{
    int sb[2 * MAXD * M], rb[2 * MAXD * M], it = 0;
    DFC_Request req;
    fill(sb, rb, nd, it);
    DFCT_OK(DFC_Neighbor_alltoall(sb, M, DFC_INT, rb, M, DFC_INT, cart));
    check_halo(cart, rb, nd, it++, "Neighbor_alltoall");
    fill(sb, rb, nd, it);
    DFCT_OK(DFC_Ineighbor_alltoall(sb, M, DFC_INT, rb, M, DFC_INT, cart, &req));
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    check_halo(cart, rb, nd, it++, "Ineighbor_alltoall");
    DFCT_OK(DFC_Neighbor_alltoall_init(sb, M, DFC_INT, rb, M, DFC_INT, cart, DFC_INFO_NULL, &req));
    for (int k = 0; k < 3; k++, it++) {
        fill(sb, rb, nd, it);
        DFCT_OK(DFC_Start(&req));
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
        check_halo(cart, rb, nd, it, "Neighbor_alltoall_init");
    }
    DFCT_OK(DFC_Request_free(&req));
    /* allgather: every neighbor gets my one block; block j from neighbor j */
    int one[M], got[2 * MAXD * M];
    for (int i = 0; i < M; i++) one[i] = val(rank, 0, i, 99);
    for (int i = 0; i < 2 * nd * M; i++) got[i] = POISON;
    DFCT_OK(DFC_Neighbor_allgather(one, M, DFC_INT, got, M, DFC_INT, cart));
    for (int d = 0; d < nd; d++) {
        int nb[2];
        DFC_Cart_shift(cart, d, 1, &nb[0], &nb[1]);
        for (int s = 0; s < 2; s++)
            for (int i = 0; i < M; i++) {
                int exp = nb[s] == DFC_PROC_NULL ? POISON : val(nb[s], 0, i, 99);
                DFCT_CHECK(got[(2 * d + s) * M + i] == exp,
                           "Neighbor_allgather block %d item %d = %d, expected %d", 2 * d + s, i,
                           got[(2 * d + s) * M + i], exp);
            }
    }
}

static void one_grid(int nd, const int *periods)
{
    int dims[MAXD] = {0, 0, 0}, newrank;
    DFC_Comm cart, dup;
    DFCT_OK(DFC_Dims_create(size, nd, dims));
    DFCT_OK(DFC_Cart_map(DFC_COMM_WORLD, nd, dims, periods, &newrank));
    DFCT_CHECK(newrank == rank, "Cart_map: %d, expected %d", newrank, rank);
    DFCT_OK(DFC_Cart_create(DFC_COMM_WORLD, nd, dims, periods, 1, &cart));
    DFCT_CHECK(cart != DFC_COMM_NULL, "Cart_create gave DFC_COMM_NULL");
    if (cart == DFC_COMM_NULL) return;
    check_queries(cart, nd, dims, periods);
    halo(cart, nd);
    DFCT_OK(DFC_Comm_dup(cart, &dup)); /* the copy keeps the topology */
    check_queries(dup, nd, dims, periods);
    halo(dup, nd);
    DFCT_OK(DFC_Comm_free(&dup));
    DFCT_OK(DFC_Comm_free(&cart));
}

/* A grid smaller than the communicator: the others get DFC_COMM_NULL. */
static void smaller_grid(void)
{
    int dims[1] = {size > 1 ? size - 1 : 1}, periods[1] = {1}, newrank;
    DFC_Comm cart;
    DFCT_OK(DFC_Cart_create(DFC_COMM_WORLD, 1, dims, periods, 0, &cart));
    DFCT_OK(DFC_Cart_map(DFC_COMM_WORLD, 1, dims, periods, &newrank));
    int member = rank < dims[0];
    DFCT_CHECK(member ? cart != DFC_COMM_NULL : cart == DFC_COMM_NULL, "membership of rank %d",
               rank);
    DFCT_CHECK(newrank == (member ? rank : DFC_UNDEFINED), "Cart_map: %d", newrank);
    if (cart != DFC_COMM_NULL) {
        int n;
        DFC_Comm_size(cart, &n);
        DFCT_CHECK(n == dims[0], "size %d, expected %d", n, dims[0]);
        halo(cart, 1);
        DFCT_OK(DFC_Comm_free(&cart));
    }
    /* zero dimensions: a grid of one process (rank 0) */
    DFCT_OK(DFC_Cart_create(DFC_COMM_WORLD, 0, NULL, NULL, 0, &cart));
    DFCT_CHECK((rank == 0) == (cart != DFC_COMM_NULL), "0-dimensional grid on rank %d", rank);
    if (cart != DFC_COMM_NULL) {
        int n, r = -5;
        DFCT_OK(DFC_Cartdim_get(cart, &n));
        DFCT_CHECK(n == 0, "Cartdim_get: %d", n);
        DFCT_OK(DFC_Cart_rank(cart, NULL, &r));
        DFCT_CHECK(r == 0, "Cart_rank: %d", r);
        DFCT_OK(DFC_Comm_free(&cart));
    }
    int st;
    DFCT_OK(DFC_Topo_test(DFC_COMM_WORLD, &st));
    DFCT_CHECK(st == DFC_UNDEFINED, "Topo_test(WORLD): %d", st);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    static const int p2[4][2] = {{1, 1}, {0, 1}, {1, 0}, {0, 0}};
    static const int p3[4][3] = {{1, 1, 1}, {1, 0, 1}, {0, 1, 0}, {0, 0, 0}};
    for (int k = 0; k < 4; k++) one_grid(2, p2[k]);
    for (int k = 0; k < 4; k++) one_grid(3, p3[k]);
    smaller_grid();
    return dfct_finalize();
}
