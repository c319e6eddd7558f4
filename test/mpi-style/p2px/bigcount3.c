/*
 * bigcount3 - the large-count (_c) forms of the v and w collectives (Gatherv, Scatterv,
 * Allgatherv, Alltoallv, Alltoallw, Reduce_scatter), of the neighborhood collectives (on a
 * periodic ring), each blocking, nonblocking and persistent (started twice, fresh inputs),
 * and Get_elements_c. Every v/w call runs twice: with buffers and small displacements, and
 * with DFC_BOTTOM and displacements that are absolute addresses (past INT_MAX on a 64-bit
 * address space, checked: they take the per-block types of api_count_c_w.c). Uneven block
 * sizes, poisoned gaps, every root; element by element. Gatherv_c and Allgatherv_c also on
 * an intercommunicator (world rank 0 against the rest). A count past INT_MAX of a type of
 * no bytes passes through Alltoallv_c. Bad input: negative counts (DFC_ERR_COUNT naming the
 * argument), a bad root, DFC_IN_PLACE where it is not allowed, NULL requests and status.
 */
#include <limits.h>

#include "../dfctest.h"

static int rank, size, it;
static DFC_Comm W = DFC_COMM_WORLD;

static int val(int r, int d, int k) { return r * 100000 + d * 1000 + k + it * 7; }
static int *ints(int n, int v)
{
    int *p = malloc(((size_t)n + 1) * sizeof *p);
    for (int i = 0; i <= n; i++) p[i] = v;
    return p;
}
static void fill(int *p, int n, int v)
{
    for (int i = 0; i <= n; i++) p[i] = v;
}
/* Block i's displacement in ints: from buf (bottom 0), or as an absolute address. */
static DFC_Aint at(const int *buf, int off, int bottom)
{
    DFC_Aint a = (DFC_Aint)(uintptr_t)(buf + off) / (DFC_Aint)sizeof(int);
    if (!bottom) return off;
    DFCT_CHECK(a > INT_MAX, "address displacement %lld fits an int", (long long)a);
    return a;
}

/* mode 0 blocking, 1 nonblocking, 2 persistent: made at it == 0 into *pq, started. */
#define CALL(mode, pq, blocking, nonblocking, persistent) \
    do {                                                  \
        DFC_Request rq_;                                  \
        if ((mode) == 0) DFCT_OK(blocking);               \
        if ((mode) == 1) {                                \
            DFCT_OK(nonblocking);                         \
            DFCT_OK(DFC_Wait(&rq_, DFC_STATUS_IGNORE));   \
        }                                                 \
        if ((mode) == 2) {                                \
            if (it == 0) DFCT_OK(persistent);             \
            DFCT_OK(DFC_Start(pq));                       \
            DFCT_OK(DFC_Wait(pq, DFC_STATUS_IGNORE));     \
        }                                                 \
    } while (0)
#define REPS(mode) ((mode) == 2 ? 2 : 1)
#define BAD(what, i, got, want)                                                               \
    DFCT_CHECK(0, "%s mode %d bottom %d start %d: element %d is %d, expected %d", what, mode, \
               bottom, it, (int)(i), (int)(got), (int)(want))

/* Gatherv_c and Scatterv_c at every root: rank j's block has j + 3 ints, one poisoned int
 * between blocks. */
static void check_rooted(int root, int mode, int bottom)
{
    DFC_Count cnt[64];
    DFC_Aint dsp[64];
    int off[64], tot = 0, mine = rank + 3, bad = 0;
    DFC_Request pg = DFC_REQUEST_NULL, ps = DFC_REQUEST_NULL;
    for (int j = 0; j < size; j++) cnt[j] = j + 3, off[j] = tot, tot += j + 4;
    int *s = ints(mine, 0), *g = ints(tot, -1), *sv = ints(tot, -2), *r = ints(mine, -1);
    for (int j = 0; j < size; j++) dsp[j] = at(rank == root ? g : s, off[j], bottom);
    void *gb = bottom ? DFC_BOTTOM : g;
    DFC_Aint sdsp[64];
    for (int j = 0; j < size; j++) sdsp[j] = at(sv, off[j], bottom);
    void *svb = bottom ? DFC_BOTTOM : sv;
    for (it = 0; it < REPS(mode); it++) {
        fill(g, tot, -1), fill(r, mine, -1);
        for (int k = 0; k < mine; k++) s[k] = val(rank, 1, k);
        for (int j = 0; j < size; j++)
            for (int k = 0; k < j + 3; k++) sv[off[j] + k] = val(rank, 10 + j, k);
        CALL(mode, &pg, DFC_Gatherv_c(s, mine, DFC_INT, gb, cnt, dsp, DFC_INT, root, W),
             DFC_Igatherv_c(s, mine, DFC_INT, gb, cnt, dsp, DFC_INT, root, W, &rq_),
             DFC_Gatherv_init_c(s, mine, DFC_INT, gb, cnt, dsp, DFC_INT, root, W, DFC_INFO_NULL,
                                &pg));
        CALL(mode, &ps, DFC_Scatterv_c(svb, cnt, sdsp, DFC_INT, r, mine, DFC_INT, root, W),
             DFC_Iscatterv_c(svb, cnt, sdsp, DFC_INT, r, mine, DFC_INT, root, W, &rq_),
             DFC_Scatterv_init_c(svb, cnt, sdsp, DFC_INT, r, mine, DFC_INT, root, W, DFC_INFO_NULL,
                                 &ps));
        for (int j = 0; j < size; j++)
            for (int k = 0; k <= j + 3; k++) {
                int want = rank == root && k < j + 3 ? val(j, 1, k) : -1;
                if (g[off[j] + k] != want && bad++ < 3)
                    BAD("Gatherv_c", off[j] + k, g[off[j] + k], want);
            }
        for (int k = 0; k <= mine; k++) {
            int want = k < mine ? val(root, 10 + rank, k) : -1;
            if (r[k] != want && bad++ < 3) BAD("Scatterv_c", k, r[k], want);
        }
    }
    it = 0;
    if (pg != DFC_REQUEST_NULL) DFCT_OK(DFC_Request_free(&pg));
    if (ps != DFC_REQUEST_NULL) DFCT_OK(DFC_Request_free(&ps));
    free(s), free(g), free(sv), free(r);
}

/* Allgatherv_c (also in place) and Reduce_scatter_c: rank j's block has 2j + 1 ints. */
static void check_allgatherv(int mode, int bottom, int in_place)
{
    DFC_Count cnt[64];
    DFC_Aint dsp[64];
    int off[64], tot = 0, mine = 2 * rank + 1, bad = 0;
    DFC_Request pa = DFC_REQUEST_NULL, pr = DFC_REQUEST_NULL;
    for (int j = 0; j < size; j++) cnt[j] = 2 * j + 1, off[j] = tot, tot += 2 * j + 2;
    int *s = ints(mine, 0), *g = ints(tot, -1), *rs = ints(tot, 0), *rr = ints(mine, -1);
    for (int j = 0; j < size; j++) dsp[j] = at(g, off[j], bottom);
    void *gb = bottom ? DFC_BOTTOM : g;
    const void *sb = in_place ? DFC_IN_PLACE : s;
    for (it = 0; it < REPS(mode); it++) {
        fill(g, tot, -1), fill(rr, mine, -1);
        for (int k = 0; k < mine; k++) s[k] = val(rank, 2, k);
        if (in_place)
            for (int k = 0; k < mine; k++) g[off[rank] + k] = val(rank, 2, k);
        for (int k = 0; k < tot; k++) rs[k] = val(rank, 3, k);
        CALL(mode, &pa, DFC_Allgatherv_c(sb, mine, DFC_INT, gb, cnt, dsp, DFC_INT, W),
             DFC_Iallgatherv_c(sb, mine, DFC_INT, gb, cnt, dsp, DFC_INT, W, &rq_),
             DFC_Allgatherv_init_c(sb, mine, DFC_INT, gb, cnt, dsp, DFC_INT, W, DFC_INFO_NULL,
                                   &pa));
        CALL(mode, &pr, DFC_Reduce_scatter_c(rs, rr, cnt, DFC_INT, DFC_SUM, W),
             DFC_Ireduce_scatter_c(rs, rr, cnt, DFC_INT, DFC_SUM, W, &rq_),
             DFC_Reduce_scatter_init_c(rs, rr, cnt, DFC_INT, DFC_SUM, W, DFC_INFO_NULL, &pr));
        for (int j = 0; j < size; j++)
            for (int k = 0; k <= 2 * j + 1; k++) {
                int want = k < 2 * j + 1 ? val(j, 2, k) : -1;
                if (g[off[j] + k] != want && bad++ < 3)
                    BAD("Allgatherv_c", off[j] + k, g[off[j] + k], want);
            }
        int base = 0;
        for (int j = 0; j < rank; j++) base += 2 * j + 1;
        for (int k = 0; k <= mine; k++) {
            int want = 0;
            for (int j = 0; j < size; j++) want += val(j, 3, base + k);
            if (k == mine) want = -1;
            if (rr[k] != want && bad++ < 3) BAD("Reduce_scatter_c", k, rr[k], want);
        }
    }
    it = 0;
    if (pa != DFC_REQUEST_NULL) DFCT_OK(DFC_Request_free(&pa));
    if (pr != DFC_REQUEST_NULL) DFCT_OK(DFC_Request_free(&pr));
    free(s), free(g), free(rs), free(rr);
}

/* Alltoallv_c and Alltoallw_c: the block from i to j has i + j + 1 ints, a gap after each;
 * the w form receives from odd ranks as pairs when the count is even (else ints). */
static void check_alltoall(int mode, int bottom)
{
    DFC_Count sc[64], rc[64];
    DFC_Aint sd[64], rd[64], swd[64], rwd[64];
    DFC_Datatype st[64], rt[64], pair;
    int so[64], ro[64], stot = 0, rtot = 0, bad = 0;
    DFC_Request pv = DFC_REQUEST_NULL, pw = DFC_REQUEST_NULL;
    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &pair));
    DFCT_OK(DFC_Type_commit(&pair));
    for (int j = 0; j < size; j++) {
        sc[j] = rc[j] = rank + j + 1;
        so[j] = stot, stot += rank + j + 2;
        ro[j] = rtot, rtot += rank + j + 2;
    }
    int *s = ints(stot, -2), *r = ints(rtot, -1), *rw = ints(rtot, -1);
    DFC_Count wc[64];
    for (int j = 0; j < size; j++) {
        sd[j] = at(s, so[j], bottom), rd[j] = at(r, ro[j], bottom);
        swd[j] = sd[j] * 4, rwd[j] = at(rw, ro[j], bottom) * 4, st[j] = DFC_INT;
        int pairs = j % 2 && rc[j] % 2 == 0;
        rt[j] = pairs ? pair : DFC_INT, wc[j] = pairs ? rc[j] / 2 : rc[j];
    }
    void *sb = bottom ? DFC_BOTTOM : s, *rb = bottom ? DFC_BOTTOM : r,
         *wb = bottom ? DFC_BOTTOM : rw;
    for (it = 0; it < REPS(mode); it++) {
        fill(r, rtot, -1), fill(rw, rtot, -1);
        for (int j = 0; j < size; j++)
            for (int k = 0; k < sc[j]; k++) s[so[j] + k] = val(rank, 20 + j, k);
        CALL(mode, &pv, DFC_Alltoallv_c(sb, sc, sd, DFC_INT, rb, rc, rd, DFC_INT, W),
             DFC_Ialltoallv_c(sb, sc, sd, DFC_INT, rb, rc, rd, DFC_INT, W, &rq_),
             DFC_Alltoallv_init_c(sb, sc, sd, DFC_INT, rb, rc, rd, DFC_INT, W, DFC_INFO_NULL, &pv));
        CALL(mode, &pw, DFC_Alltoallw_c(sb, sc, swd, st, wb, wc, rwd, rt, W),
             DFC_Ialltoallw_c(sb, sc, swd, st, wb, wc, rwd, rt, W, &rq_),
             DFC_Alltoallw_init_c(sb, sc, swd, st, wb, wc, rwd, rt, W, DFC_INFO_NULL, &pw));
        for (int j = 0; j < size; j++)
            for (int k = 0; k <= rc[j]; k++) {
                int want = k < rc[j] ? val(j, 20 + rank, k) : -1;
                if (r[ro[j] + k] != want && bad++ < 3)
                    BAD("Alltoallv_c", ro[j] + k, r[ro[j] + k], want);
                if (rw[ro[j] + k] != want && bad++ < 3)
                    BAD("Alltoallw_c", ro[j] + k, rw[ro[j] + k], want);
            }
    }
    it = 0;
    if (pv != DFC_REQUEST_NULL) DFCT_OK(DFC_Request_free(&pv));
    if (pw != DFC_REQUEST_NULL) DFCT_OK(DFC_Request_free(&pw));
    DFCT_OK(DFC_Type_free(&pair));
    free(s), free(r), free(rw);
}

/* A count past INT_MAX of a type of no bytes: the per-block type is made and nothing moves. */
static void check_huge_empty(void)
{
    DFC_Datatype none;
    DFC_Count c[64];
    DFC_Aint d[64] = {0};
    int x = -1, y = -1;
    DFCT_OK(DFC_Type_contiguous(0, DFC_INT, &none));
    DFCT_OK(DFC_Type_commit(&none));
    for (int j = 0; j < size; j++) c[j] = (DFC_Count)INT_MAX + 5 + j;
    DFCT_OK(DFC_Alltoallv_c(&x, c, d, none, &y, c, d, none, W));
    DFCT_CHECK(x == -1 && y == -1, "a type of no bytes moved data: %d %d", x, y);
    DFCT_OK(DFC_Type_free(&none));
}

/* On a periodic ring: the left and right neighbors' blocks (neighbor order: left, right). */
static void check_neighbor(DFC_Comm ring, int mode)
{
    int nb[2] = {(rank + size - 1) % size, (rank + 1) % size}, bad = 0, bottom = 0;
    int s[8], r[5][8];
    DFC_Count one[2] = {3, 3};
    DFC_Aint d[2] = {0, 4}, wd[2] = {0, 16}, ad[2];
    DFC_Datatype t[2] = {DFC_INT, DFC_INT};
    DFC_Request p[5] = {DFC_REQUEST_NULL, DFC_REQUEST_NULL, DFC_REQUEST_NULL, DFC_REQUEST_NULL,
                        DFC_REQUEST_NULL};
    for (it = 0; it < REPS(mode); it++) {
        for (int k = 0; k < 8; k++) s[k] = val(rank, 30, k);
        for (int i = 0; i < 5; i++) fill(r[i], 7, -1);
        for (int i = 0; i < 2; i++) ad[i] = (DFC_Aint)(uintptr_t)&r[4][4 * i];
        /* allgather(v): my 3 ints to both; alltoall(v/w): ints 4i..4i+2 to neighbor i */
        CALL(mode, &p[0], DFC_Neighbor_allgather_c(s, 3, DFC_INT, r[0], 3, DFC_INT, ring),
             DFC_Ineighbor_allgather_c(s, 3, DFC_INT, r[0], 3, DFC_INT, ring, &rq_),
             DFC_Neighbor_allgather_init_c(s, 3, DFC_INT, r[0], 3, DFC_INT, ring, DFC_INFO_NULL,
                                           &p[0]));
        CALL(mode, &p[1], DFC_Neighbor_allgatherv_c(s, 3, DFC_INT, r[1], one, d, DFC_INT, ring),
             DFC_Ineighbor_allgatherv_c(s, 3, DFC_INT, r[1], one, d, DFC_INT, ring, &rq_),
             DFC_Neighbor_allgatherv_init_c(s, 3, DFC_INT, r[1], one, d, DFC_INT, ring,
                                            DFC_INFO_NULL, &p[1]));
        CALL(mode, &p[2], DFC_Neighbor_alltoall_c(s, 4, DFC_INT, r[2], 4, DFC_INT, ring),
             DFC_Ineighbor_alltoall_c(s, 4, DFC_INT, r[2], 4, DFC_INT, ring, &rq_),
             DFC_Neighbor_alltoall_init_c(s, 4, DFC_INT, r[2], 4, DFC_INT, ring, DFC_INFO_NULL,
                                          &p[2]));
        CALL(mode, &p[3], DFC_Neighbor_alltoallv_c(s, one, d, DFC_INT, r[3], one, d, DFC_INT, ring),
             DFC_Ineighbor_alltoallv_c(s, one, d, DFC_INT, r[3], one, d, DFC_INT, ring, &rq_),
             DFC_Neighbor_alltoallv_init_c(s, one, d, DFC_INT, r[3], one, d, DFC_INT, ring,
                                           DFC_INFO_NULL, &p[3]));
        CALL(mode, &p[4], DFC_Neighbor_alltoallw_c(s, one, wd, t, DFC_BOTTOM, one, ad, t, ring),
             DFC_Ineighbor_alltoallw_c(s, one, wd, t, DFC_BOTTOM, one, ad, t, ring, &rq_),
             DFC_Neighbor_alltoallw_init_c(s, one, wd, t, DFC_BOTTOM, one, ad, t, ring,
                                           DFC_INFO_NULL, &p[4]));
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < 4; k++) {
                int ag = k < 3 ? val(nb[i], 30, k) : -1; /* the neighbor's first 3 */
                int g0 = 3 * i + k < 6 ? val(nb[(3 * i + k) / 3], 30, (3 * i + k) % 3) : -1;
                /* alltoall: neighbor i sent me its block for me: its ints 4(1-i).. */
                int a2a = val(nb[i], 30, 4 * (1 - i) + k);
                int a2av = k < 3 ? a2a : -1;
                if (r[0][3 * i + k] != g0 && bad++ < 3)
                    BAD("Neighbor_allgather_c", k, r[0][3 * i + k], g0);
                if (r[1][4 * i + k] != ag && bad++ < 3)
                    BAD("Neighbor_allgatherv_c", k, r[1][4 * i + k], ag);
                if (r[2][4 * i + k] != a2a && bad++ < 3)
                    BAD("Neighbor_alltoall_c", k, r[2][4 * i + k], a2a);
                if (r[3][4 * i + k] != a2av && bad++ < 3)
                    BAD("Neighbor_alltoallv_c", k, r[3][4 * i + k], a2av);
                if (r[4][4 * i + k] != a2av && bad++ < 3)
                    BAD("Neighbor_alltoallw_c", k, r[4][4 * i + k], a2av);
            }
    }
    it = 0;
    for (int i = 0; i < 5; i++)
        if (p[i] != DFC_REQUEST_NULL) DFCT_OK(DFC_Request_free(&p[i]));
}

/* Get_elements_c: 5 ints received as pairs: 2 whole pairs and an int, 5 elements. */
static void check_get_elements(void)
{
    DFC_Datatype pair;
    DFC_Status st;
    DFC_Count n = -7;
    int s[5] = {1, 2, 3, 4, 5}, r[6];
    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &pair));
    DFCT_OK(DFC_Type_commit(&pair));
    DFCT_OK(DFC_Sendrecv(s, 5, DFC_INT, rank, 9, r, 3, pair, rank, 9, W, &st));
    DFCT_OK(DFC_Get_elements_c(&st, pair, &n));
    DFCT_CHECK(n == 5, "Get_elements_c: %lld, expected 5", (long long)n);
    DFCT_OK(DFC_Get_count_c(&st, pair, &n));
    DFCT_CHECK(n == DFC_UNDEFINED, "Get_count_c of 2.5 pairs: %lld", (long long)n);
    DFCT_FAILS(DFC_Get_elements_c(DFC_STATUS_IGNORE, pair, &n), DFC_ERR_ARG, "status");
    DFCT_FAILS(DFC_Get_elements_c(&st, DFC_DATATYPE_NULL, &n), DFC_ERR_TYPE, "datatype");
    DFCT_OK(DFC_Type_free(&pair));
}

/* World rank 0 (group A) against the rest (B): Gatherv_c to A's rank, then to B's rank 0,
 * and Allgatherv_c, each process sending rank + 1 of its world rank's ints. */
static void check_inter(void)
{
    DFC_Comm local, ic;
    int in_a = rank == 0, lrank, rsize = in_a ? size - 1 : 1, bad = 0, mode = 0, bottom = 0;
    DFC_Count cnt[64];
    DFC_Aint dsp[64];
    int rw[64], tot = 0;
    DFCT_OK(DFC_Comm_split(W, in_a, rank, &local));
    DFCT_OK(DFC_Comm_rank(local, &lrank));
    DFCT_OK(DFC_Intercomm_create(local, 0, W, in_a ? 1 : 0, 33, &ic));
    for (int j = 0; j < rsize; j++) rw[j] = in_a ? j + 1 : 0;
    for (int j = 0; j < rsize; j++) cnt[j] = rw[j] + 1, dsp[j] = tot, tot += rw[j] + 2;
    int *s = ints(rank + 1, 0), *g = ints(tot, -1);
    for (int k = 0; k <= rank; k++) s[k] = val(rank, 40, k);
    for (int a_root = 1; a_root >= 0; a_root--) {
        int root = in_a == a_root ? (lrank == 0 ? DFC_ROOT : DFC_PROC_NULL) : 0;
        fill(g, tot, -1);
        DFCT_OK(DFC_Gatherv_c(s, rank + 1, DFC_INT, g, cnt, dsp, DFC_INT, root, ic));
        for (int j = 0; j < rsize; j++)
            for (int k = 0; k <= rw[j] + 1; k++) {
                int want = root == DFC_ROOT && k <= rw[j] ? val(rw[j], 40, k) : -1;
                if (g[dsp[j] + k] != want && bad++ < 3)
                    BAD("Gatherv_c (inter)", k, g[dsp[j] + k], want);
            }
    }
    fill(g, tot, -1);
    DFCT_OK(DFC_Allgatherv_c(s, rank + 1, DFC_INT, g, cnt, dsp, DFC_INT, ic));
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k <= rw[j] + 1; k++) {
            int want = k <= rw[j] ? val(rw[j], 40, k) : -1;
            if (g[dsp[j] + k] != want && bad++ < 3)
                BAD("Allgatherv_c (inter)", k, g[dsp[j] + k], want);
        }
    DFCT_FAILS(DFC_Allgatherv_c(DFC_IN_PLACE, 1, DFC_INT, g, cnt, dsp, DFC_INT, ic), DFC_ERR_BUFFER,
               "intercommunicator");
    DFCT_FAILS(DFC_Gatherv_c(s, 1, DFC_INT, g, cnt, dsp, DFC_INT, rsize, ic), DFC_ERR_ROOT,
               "remote group");
    free(s), free(g);
    DFCT_OK(DFC_Comm_free(&ic));
    DFCT_OK(DFC_Comm_free(&local));
}

static void check_errors(DFC_Comm ring)
{
    DFC_Count cnt[64], one[2] = {1, -4};
    DFC_Aint dsp[64] = {0}, d2[2] = {0, 0};
    DFC_Datatype t[64];
    DFC_Request rq;
    int x[64] = {0}, y[64];
    for (int j = 0; j < 64; j++) cnt[j] = 1, t[j] = DFC_INT;
    cnt[size - 1] = -3;
    DFCT_FAILS(DFC_Gatherv_c(x, 1, DFC_INT, y, cnt, dsp, DFC_INT, rank, W), DFC_ERR_COUNT,
               "recvcounts");
    DFCT_FAILS(DFC_Alltoallw_c(x, cnt, dsp, t, y, cnt, dsp, t, W), DFC_ERR_COUNT, "negative");
    DFCT_FAILS(DFC_Ialltoallv_c(x, cnt, dsp, DFC_INT, y, cnt, dsp, DFC_INT, W, &rq), DFC_ERR_COUNT,
               "sendcounts");
    DFCT_FAILS(DFC_Reduce_scatter_init_c(x, y, cnt, DFC_INT, DFC_SUM, W, DFC_INFO_NULL, &rq),
               DFC_ERR_COUNT, "recvcounts");
    DFCT_FAILS(DFC_Scatterv_c(x, cnt, dsp, DFC_INT, y, -2, DFC_INT, 0, W), DFC_ERR_COUNT,
               "recvcount");
    DFCT_FAILS(DFC_Allgatherv_c(x, -1, DFC_INT, y, cnt, dsp, DFC_INT, W), DFC_ERR_COUNT,
               "sendcount");
    DFCT_FAILS(DFC_Neighbor_alltoallv_c(x, one, d2, DFC_INT, y, one, d2, DFC_INT, ring),
               DFC_ERR_COUNT, "sendcounts");
    DFCT_FAILS(DFC_Neighbor_allgather_c(x, -5, DFC_INT, y, 1, DFC_INT, ring), DFC_ERR_COUNT,
               "count");
    cnt[size - 1] = 1;
    DFCT_FAILS(DFC_Gatherv_c(x, 1, DFC_INT, y, cnt, dsp, DFC_INT, size, W), DFC_ERR_ROOT, "root");
    if (size > 1)
        DFCT_FAILS(DFC_Gatherv_c(DFC_IN_PLACE, 1, DFC_INT, y, cnt, dsp, DFC_INT, (rank + 1) % size,
                                 W),
                   DFC_ERR_BUFFER, "only allowed at the root");
    DFCT_FAILS(DFC_Alltoallv_c(x, cnt, dsp, DFC_INT, DFC_IN_PLACE, cnt, dsp, DFC_INT, W),
               DFC_ERR_BUFFER, "recvbuf");
    DFCT_FAILS(DFC_Iallgatherv_c(x, 1, DFC_INT, y, cnt, dsp, DFC_INT, W, NULL), DFC_ERR_ARG,
               "request");
    DFCT_FAILS(DFC_Alltoallv_c(x, cnt, NULL, DFC_INT, y, cnt, dsp, DFC_INT, W), DFC_ERR_ARG,
               "sdispls");
    DFCT_FAILS(DFC_Scatterv_c(x, cnt, dsp, DFC_DATATYPE_NULL, y, 1, DFC_INT, rank, W), DFC_ERR_TYPE,
               "sendtype");
}

int main(int argc, char **argv)
{
    DFC_Comm ring;
    int dims[1], periods[1] = {1};
    dfct_init(&argc, &argv);
    DFC_Comm_rank(W, &rank);
    DFC_Comm_size(W, &size);
    DFC_Comm_set_errhandler(W, DFC_ERRORS_RETURN);
    if (size > 64) return dfct_finalize();
    dims[0] = size;
    DFCT_OK(DFC_Cart_create(W, 1, dims, periods, 0, &ring));
    DFCT_OK(DFC_Comm_set_errhandler(ring, DFC_ERRORS_RETURN));
    for (int mode = 0; mode < 3; mode++) {
        for (int bottom = 0; bottom < 2; bottom++) {
            for (int root = 0; root < size; root++) check_rooted(root, mode, bottom);
            check_allgatherv(mode, bottom, 0);
            check_alltoall(mode, bottom);
        }
        check_allgatherv(mode, 0, 1);
        check_neighbor(ring, mode);
    }
    check_huge_empty();
    check_get_elements();
    if (size > 1) check_inter();
    check_errors(ring);
    DFCT_OK(DFC_Comm_free(&ring));
    return dfct_finalize();
}
