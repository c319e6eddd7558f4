/*
 * intercoll - the collectives on an intercommunicator that MPI-4.1 6.2.2 defines beyond
 * Barrier, Bcast, Allreduce and Allgather (intercomm.c has those): Reduce, Gather(v),
 * Scatter(v), Allgatherv, Alltoall(v/w), Reduce_scatter(_block), each blocking, nonblocking
 * and persistent (made once, started 3 times with fresh inputs and poisoned outputs), and
 * the nonblocking and persistent Barrier/Bcast/Allreduce/Allgather, several in flight at
 * once. Groups: world ranks with rank % 3 == 0 form group A, the others B (4 ranks: 2+2,
 * 5: 2+3); with -first, A is world rank 0 alone (4 ranks: 1+3). Every root of both groups
 * (DFC_ROOT at the root, DFC_PROC_NULL beside it), uneven counts, gaps between blocks left
 * poisoned, a non-commutative op (reduced in rank order), 0, small and rendezvous sizes;
 * results checked element by element. Bad input: roots, DFC_IN_PLACE, negative counts,
 * Scan and Scan_init, NULL requests, a bad info, bad arguments to the persistent forms.
 */
#include "../dfctest.h"

static int wrank, wsize, in_a, lrank, lsize, rsize;
static int aw[64], bw[64], na, nb;

static int iter; /* the persistent forms' start number: fresh inputs at each start */
static int val(int w, int d, int k) { return w * 100000 + d * 1000 + k % 1000 + iter * 7; }
static int rw(int j) { return in_a ? bw[j] : aw[j]; }
static int *ints(size_t n, int v)
{
    int *p = malloc((n + 1) * sizeof *p);
    for (size_t i = 0; i <= n; i++) p[i] = v;
    return p;
}
static void fill(int *p, size_t n, int v)
{
    for (size_t i = 0; i <= n; i++) p[i] = v;
}
/* nbk 0: the blocking call; 1: the nonblocking one (on request rq_), waited for; 2: the
 * persistent one, made at the first start (on pq_, the caller's) and then started and
 * waited for at each of REPS starts, the caller giving fresh inputs and poisoned outputs
 * before each. */
#define REPS(nbk) ((nbk) == 2 ? 3 : 1)
#define RUN(nbk, blocking, nonblocking, persistent)                          \
    do {                                                                     \
        DFC_Request rq_ = DFC_REQUEST_NULL;                                  \
        if ((nbk) == 2) {                                                    \
            if (iter == 0) DFCT_OK(persistent);                              \
            DFCT_OK(DFC_Start(&pq_));                                        \
            DFCT_OK(DFC_Wait(&pq_, DFC_STATUS_IGNORE));                      \
            DFCT_CHECK(pq_ != DFC_REQUEST_NULL, "persistent request freed"); \
        } else if (nbk) {                                                    \
            DFCT_OK(nonblocking);                                            \
            DFCT_OK(DFC_Wait(&rq_, DFC_STATUS_IGNORE));                      \
            DFCT_CHECK(rq_ == DFC_REQUEST_NULL, "request kept");             \
        } else {                                                             \
            DFCT_OK(blocking);                                               \
        }                                                                    \
    } while (0)
/* After the repetitions: the persistent request goes, the next call starts at iter 0. */
#define DONE()                                                        \
    do {                                                              \
        if (pq_ != DFC_REQUEST_NULL) DFCT_OK(DFC_Request_free(&pq_)); \
        iter = 0;                                                     \
    } while (0)
#define BAD(i, got, want, what)                                                                   \
    DFCT_CHECK((got) == (want), "%s n=%d nb=%d start %d: element %d is %d, expected %d", what, n, \
               nbk, iter, (int)(i), (int)(got), (int)(want))

/* The root argument of a rooted call whose root is rank `root` of group A (a_root) or B. */
static int root_arg(int a_root, int root)
{
    if (in_a != a_root) return root;
    return lrank == root ? DFC_ROOT : DFC_PROC_NULL;
}

/* Gather (v: rank j's block has n + j items, 2 poisoned ints between blocks). */
static void check_gather(int a_root, int root, int n, int v, int nbk, DFC_Comm ic)
{
    int arg = root_arg(a_root, root), cnt[64], dsp[64], tot = 0, bad = 0;
    DFC_Request pq_ = DFC_REQUEST_NULL;
    for (int j = 0; j < rsize; j++) cnt[j] = v ? n + j : n, dsp[j] = tot, tot += cnt[j] + 2 * v;
    int mine = v ? n + lrank : n, *s = ints((size_t)mine, 0), *r = ints((size_t)tot, -1);
    for (iter = 0; iter < REPS(nbk); iter++) {
        fill(r, (size_t)tot, -1);
        for (int k = 0; k < mine; k++) s[k] = val(wrank, 5, k);
        if (v)
            RUN(nbk, DFC_Gatherv(s, mine, DFC_INT, r, cnt, dsp, DFC_INT, arg, ic),
                DFC_Igatherv(s, mine, DFC_INT, r, cnt, dsp, DFC_INT, arg, ic, &rq_),
                DFC_Gatherv_init(s, mine, DFC_INT, r, cnt, dsp, DFC_INT, arg, ic, DFC_INFO_NULL,
                                 &pq_));
        else
            RUN(nbk, DFC_Gather(s, n, DFC_INT, r, n, DFC_INT, arg, ic),
                DFC_Igather(s, n, DFC_INT, r, n, DFC_INT, arg, ic, &rq_),
                DFC_Gather_init(s, n, DFC_INT, r, n, DFC_INT, arg, ic, DFC_INFO_NULL, &pq_));
        for (int j = 0; j < rsize; j++)
            for (int k = 0; k < cnt[j] + 2 * v; k++) {
                int want = arg == DFC_ROOT && k < cnt[j] ? val(rw(j), 5, k) : -1;
                if (r[dsp[j] + k] != want && bad++ < 3)
                    BAD(dsp[j] + k, r[dsp[j] + k], want, "Gather");
            }
    }
    DONE();
    free(s), free(r);
}

/* Scatter (v: rank j gets n + j items, each tagged with its destination). */
static void check_scatter(int a_root, int root, int n, int v, int nbk, DFC_Comm ic)
{
    int arg = root_arg(a_root, root), cnt[64], dsp[64], tot = 0, bad = 0;
    int rootw = a_root ? aw[root] : bw[root];
    DFC_Request pq_ = DFC_REQUEST_NULL;
    for (int j = 0; j < rsize; j++) cnt[j] = v ? n + j : n, dsp[j] = tot, tot += cnt[j] + v;
    int mine = v ? n + lrank : n, *s = ints((size_t)tot, -2), *r = ints((size_t)mine, -1);
    for (iter = 0; iter < REPS(nbk); iter++) {
        fill(r, (size_t)mine, -1);
        for (int j = 0; j < rsize; j++)
            for (int k = 0; k < cnt[j]; k++) s[dsp[j] + k] = val(wrank, 10 + j, k);
        if (v)
            RUN(nbk, DFC_Scatterv(s, cnt, dsp, DFC_INT, r, mine, DFC_INT, arg, ic),
                DFC_Iscatterv(s, cnt, dsp, DFC_INT, r, mine, DFC_INT, arg, ic, &rq_),
                DFC_Scatterv_init(s, cnt, dsp, DFC_INT, r, mine, DFC_INT, arg, ic, DFC_INFO_NULL,
                                  &pq_));
        else
            RUN(nbk, DFC_Scatter(s, n, DFC_INT, r, n, DFC_INT, arg, ic),
                DFC_Iscatter(s, n, DFC_INT, r, n, DFC_INT, arg, ic, &rq_),
                DFC_Scatter_init(s, n, DFC_INT, r, n, DFC_INT, arg, ic, DFC_INFO_NULL, &pq_));
        for (int k = 0; k <= mine; k++) {
            int want = arg >= 0 && k < mine ? val(rootw, 10 + lrank, k) : -1;
            if (r[k] != want && bad++ < 3) BAD(k, r[k], want, "Scatter");
        }
    }
    DONE();
    free(s), free(r);
}

/* inout = in * 3 + inout: not commutative, so the result shows the order. */
static void fold3(void *in, void *inout, int *len, DFC_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((unsigned *)inout)[i] = ((unsigned *)in)[i] * 3u + ((unsigned *)inout)[i];
}

static void check_reduce(int a_root, int root, int n, DFC_Op op, int nbk, DFC_Comm ic)
{
    int arg = root_arg(a_root, root), bad = 0;
    DFC_Request pq_ = DFC_REQUEST_NULL;
    unsigned *s = (unsigned *)ints((size_t)n, 0), *r = (unsigned *)ints((size_t)n, -1);
    for (iter = 0; iter < REPS(nbk); iter++) {
        fill((int *)r, (size_t)n, -1);
        for (int k = 0; k < n; k++) s[k] = (unsigned)val(wrank, 3, k);
        RUN(nbk, DFC_Reduce(s, r, n, DFC_UNSIGNED, op, arg, ic),
            DFC_Ireduce(s, r, n, DFC_UNSIGNED, op, arg, ic, &rq_),
            DFC_Reduce_init(s, r, n, DFC_UNSIGNED, op, arg, ic, DFC_INFO_NULL, &pq_));
        for (int k = 0; k <= n; k++) {
            unsigned want = (unsigned)val(rw(0), 3, k);
            for (int j = 1; j < rsize; j++)
                want = op == DFC_SUM ? want + (unsigned)val(rw(j), 3, k)
                                     : want * 3u + (unsigned)val(rw(j), 3, k);
            if (arg != DFC_ROOT || k == n) want = (unsigned)-1;
            if (r[k] != want && bad++ < 3) BAD(k, r[k], want, "Reduce");
        }
    }
    DONE();
    free(s), free(r);
}

static void check_allgatherv(int n, int nbk, DFC_Comm ic)
{
    int cnt[64], dsp[64], tot = 0, bad = 0;
    DFC_Request pq_ = DFC_REQUEST_NULL;
    for (int j = 0; j < rsize; j++) cnt[j] = n + 2 * j, dsp[j] = tot, tot += cnt[j] + 1;
    int mine = n + 2 * lrank, *s = ints((size_t)mine, 0), *r = ints((size_t)tot, -1);
    for (iter = 0; iter < REPS(nbk); iter++) {
        fill(r, (size_t)tot, -1);
        for (int k = 0; k < mine; k++) s[k] = val(wrank, 8, k);
        RUN(nbk, DFC_Allgatherv(s, mine, DFC_INT, r, cnt, dsp, DFC_INT, ic),
            DFC_Iallgatherv(s, mine, DFC_INT, r, cnt, dsp, DFC_INT, ic, &rq_),
            DFC_Allgatherv_init(s, mine, DFC_INT, r, cnt, dsp, DFC_INT, ic, DFC_INFO_NULL, &pq_));
        for (int j = 0; j < rsize; j++)
            for (int k = 0; k <= cnt[j]; k++) {
                int want = k < cnt[j] ? val(rw(j), 8, k) : -1;
                if (r[dsp[j] + k] != want && bad++ < 3)
                    BAD(dsp[j] + k, r[dsp[j] + k], want, "Allgv");
            }
    }
    DONE();
    free(s), free(r);
}

/* Alltoall, and v (n + sender + receiver items, a gap after each block). */
static void check_alltoall(int n, int v, int nbk, DFC_Comm ic)
{
    int sc[64], sd[64], rc[64], rd[64], st = 0, rt = 0, bad = 0;
    DFC_Request pq_ = DFC_REQUEST_NULL;
    for (int j = 0; j < rsize; j++) {
        sc[j] = rc[j] = v ? n + lrank + j : n;
        sd[j] = st, st += sc[j] + v;
        rd[j] = rt, rt += rc[j] + v;
    }
    int *s = ints((size_t)st, -2), *r = ints((size_t)rt, -1);
    for (iter = 0; iter < REPS(nbk); iter++) {
        fill(r, (size_t)rt, -1);
        for (int j = 0; j < rsize; j++)
            for (int k = 0; k < sc[j]; k++) s[sd[j] + k] = val(wrank, 20 + j, k);
        if (v)
            RUN(nbk, DFC_Alltoallv(s, sc, sd, DFC_INT, r, rc, rd, DFC_INT, ic),
                DFC_Ialltoallv(s, sc, sd, DFC_INT, r, rc, rd, DFC_INT, ic, &rq_),
                DFC_Alltoallv_init(s, sc, sd, DFC_INT, r, rc, rd, DFC_INT, ic, DFC_INFO_NULL,
                                   &pq_));
        else
            RUN(nbk, DFC_Alltoall(s, n, DFC_INT, r, n, DFC_INT, ic),
                DFC_Ialltoall(s, n, DFC_INT, r, n, DFC_INT, ic, &rq_),
                DFC_Alltoall_init(s, n, DFC_INT, r, n, DFC_INT, ic, DFC_INFO_NULL, &pq_));
        for (int j = 0; j < rsize; j++)
            for (int k = 0; k < rc[j] + v; k++) {
                int want = k < rc[j] ? val(rw(j), 20 + lrank, k) : -1;
                if (r[rd[j] + k] != want && bad++ < 3)
                    BAD(rd[j] + k, r[rd[j] + k], want, "Alltoall");
            }
    }
    DONE();
    free(s), free(r);
}

/* Alltoallw: n ints to each remote rank, received from odd ranks as n/2 pairs (n even);
 * the pair type is freed before the persistent form's starts (MPI allows it). */
static void check_alltoallw(int n, int nbk, DFC_Comm ic)
{
    int sc[64], sd[64], rc[64], rd[64], bad = 0;
    DFC_Datatype stt[64], rtt[64], pair;
    DFC_Request pq_ = DFC_REQUEST_NULL;
    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &pair));
    DFCT_OK(DFC_Type_commit(&pair));
    for (int j = 0; j < rsize; j++) {
        sc[j] = n, sd[j] = j * (n + 1) * 4, stt[j] = DFC_INT;
        rc[j] = j % 2 ? n / 2 : n, rd[j] = j * (n + 1) * 4, rtt[j] = j % 2 ? pair : DFC_INT;
    }
    int *s = ints((size_t)rsize * (n + 1), -2), *r = ints((size_t)rsize * (n + 1), -1);
    if (nbk == 2) {
        DFCT_OK(DFC_Alltoallw_init(s, sc, sd, stt, r, rc, rd, rtt, ic, DFC_INFO_NULL, &pq_));
        DFCT_OK(DFC_Type_free(&pair));
    }
    for (iter = 0; iter < REPS(nbk); iter++) {
        fill(r, (size_t)rsize * (n + 1), -1);
        for (int j = 0; j < rsize; j++)
            for (int k = 0; k < n; k++) s[j * (n + 1) + k] = val(wrank, 40 + j, k);
        RUN(nbk, DFC_Alltoallw(s, sc, sd, stt, r, rc, rd, rtt, ic),
            DFC_Ialltoallw(s, sc, sd, stt, r, rc, rd, rtt, ic, &rq_), DFC_SUCCESS);
        for (int j = 0; j < rsize; j++)
            for (int k = 0; k <= n; k++) {
                int want = k < n ? val(rw(j), 40 + lrank, k) : -1;
                if (r[j * (n + 1) + k] != want && bad++ < 3)
                    BAD(j * (n + 1) + k, r[j * (n + 1) + k], want, "Alltoallw");
            }
    }
    DONE();
    if (nbk != 2) DFCT_OK(DFC_Type_free(&pair));
    free(s), free(r);
}

/* Reduce_scatter(_block): T items (the same in both groups), this group's counts. */
static void check_reduce_scatter(int n, int v, int nbk, DFC_Comm ic)
{
    int T = n * na * nb, q = T / lsize, cnt[64], off = 0, bad = 0;
    DFC_Request pq_ = DFC_REQUEST_NULL;
    for (int i = 0; i < lsize; i++) cnt[i] = v ? (i == lsize - 1 ? T - q / 2 * i : q / 2) : q;
    for (int i = 0; i < lrank; i++) off += cnt[i];
    int mine = cnt[lrank], *s = ints((size_t)T, 0), *r = ints((size_t)mine, -1);
    for (iter = 0; iter < REPS(nbk); iter++) {
        fill(r, (size_t)mine, -1);
        for (int k = 0; k < T; k++) s[k] = val(wrank, 30, k);
        if (v)
            RUN(nbk, DFC_Reduce_scatter(s, r, cnt, DFC_INT, DFC_SUM, ic),
                DFC_Ireduce_scatter(s, r, cnt, DFC_INT, DFC_SUM, ic, &rq_),
                DFC_Reduce_scatter_init(s, r, cnt, DFC_INT, DFC_SUM, ic, DFC_INFO_NULL, &pq_));
        else
            RUN(nbk, DFC_Reduce_scatter_block(s, r, q, DFC_INT, DFC_SUM, ic),
                DFC_Ireduce_scatter_block(s, r, q, DFC_INT, DFC_SUM, ic, &rq_),
                DFC_Reduce_scatter_block_init(s, r, q, DFC_INT, DFC_SUM, ic, DFC_INFO_NULL, &pq_));
        for (int k = 0; k <= mine; k++) {
            int want = 0;
            for (int j = 0; j < rsize; j++) want += val(rw(j), 30, off + k);
            if (k == mine) want = -1;
            if (r[k] != want && bad++ < 3) BAD(k, r[k], want, v ? "Reduce_scatter" : "Rs_block");
        }
    }
    DONE();
    free(s), free(r);
}

/* Five nonblocking collectives in flight at once, completed in reverse order: each call's
 * own tag keeps their messages apart. */
static void check_in_flight(int n, DFC_Comm ic)
{
    DFC_Request q[5];
    int *b = ints((size_t)n, -1), *s = ints((size_t)n, 0), *ar = ints((size_t)n, -1), bad = 0;
    int *gs = ints((size_t)n, 0), *gr = ints((size_t)rsize * n, -1), nbk = 1;
    int broot = root_arg(1, 0); /* A's rank 0 broadcasts */
    for (int k = 0; k < n; k++) {
        s[k] = gs[k] = val(wrank, 50, k);
        if (broot == DFC_ROOT) b[k] = val(wrank, 51, k);
    }
    DFCT_OK(DFC_Ibcast(b, n, DFC_INT, broot, ic, &q[0]));
    DFCT_OK(DFC_Iallreduce(s, ar, n, DFC_INT, DFC_SUM, ic, &q[1]));
    DFCT_OK(DFC_Ibarrier(ic, &q[2]));
    DFCT_OK(DFC_Iallgather(gs, n, DFC_INT, gr, n, DFC_INT, ic, &q[3]));
    DFCT_OK(DFC_Ibarrier(ic, &q[4]));
    for (int i = 4; i >= 0; i--) DFCT_OK(DFC_Wait(&q[i], DFC_STATUS_IGNORE));
    for (int k = 0; k < n; k++) {
        int want = broot == DFC_PROC_NULL ? -1 : val(aw[0], 51, k), sum = 0;
        if (b[k] != want && bad++ < 3) BAD(k, b[k], want, "Ibcast");
        for (int j = 0; j < rsize; j++) sum += val(rw(j), 50, k);
        if (ar[k] != sum && bad++ < 3) BAD(k, ar[k], sum, "Iallreduce");
        for (int j = 0; j < rsize; j++)
            if (gr[j * n + k] != val(rw(j), 50, k) && bad++ < 3)
                BAD(j * n + k, gr[j * n + k], val(rw(j), 50, k), "Iallgather");
    }
    free(b), free(s), free(ar), free(gs), free(gr);
}

/* The persistent Barrier, Bcast (a root in A, then one in B), Allreduce and Allgather, all
 * started together (Startall) at each of 3 starts with fresh inputs and completed in
 * reverse order: each _init call's own tags keep their messages apart. */
static void check_persistent_in_flight(int n, DFC_Comm ic)
{
    DFC_Request q[6];
    int *b0 = ints((size_t)n, -1), *b1 = ints((size_t)n, -1), *s = ints((size_t)n, 0);
    int *ar = ints((size_t)n, -1), *gr = ints((size_t)rsize * n, -1), bad = 0, nbk = 2;
    int root0 = root_arg(1, 0), root1 = root_arg(0, nb - 1);
    DFCT_OK(DFC_Barrier_init(ic, DFC_INFO_NULL, &q[0]));
    DFCT_OK(DFC_Bcast_init(b0, n, DFC_INT, root0, ic, DFC_INFO_NULL, &q[1]));
    DFCT_OK(DFC_Allreduce_init(s, ar, n, DFC_INT, DFC_SUM, ic, DFC_INFO_NULL, &q[2]));
    DFCT_OK(DFC_Bcast_init(b1, n, DFC_INT, root1, ic, DFC_INFO_NULL, &q[3]));
    DFCT_OK(DFC_Allgather_init(s, n, DFC_INT, gr, n, DFC_INT, ic, DFC_INFO_NULL, &q[4]));
    DFCT_OK(DFC_Barrier_init(ic, DFC_INFO_NULL, &q[5]));
    for (iter = 0; iter < 3; iter++) {
        fill(ar, (size_t)n, -1), fill(gr, (size_t)rsize * n, -1);
        for (int k = 0; k < n; k++) {
            s[k] = val(wrank, 60, k);
            b0[k] = root0 == DFC_ROOT ? val(wrank, 61, k) : -1;
            b1[k] = root1 == DFC_ROOT ? val(wrank, 62, k) : -1;
        }
        DFCT_OK(DFC_Startall(6, q));
        for (int i = 5; i >= 0; i--) DFCT_OK(DFC_Wait(&q[i], DFC_STATUS_IGNORE));
        for (int k = 0; k < n; k++) {
            int w0 = root0 == DFC_PROC_NULL ? -1 : val(aw[0], 61, k);
            int w1 = root1 == DFC_PROC_NULL ? -1 : val(bw[nb - 1], 62, k), sum = 0;
            if (b0[k] != w0 && bad++ < 3) BAD(k, b0[k], w0, "Bcast_init (A's root)");
            if (b1[k] != w1 && bad++ < 3) BAD(k, b1[k], w1, "Bcast_init (B's root)");
            for (int j = 0; j < rsize; j++) sum += val(rw(j), 60, k);
            if (ar[k] != sum && bad++ < 3) BAD(k, ar[k], sum, "Allreduce_init");
            for (int j = 0; j < rsize; j++)
                if (gr[j * n + k] != val(rw(j), 60, k) && bad++ < 3)
                    BAD(j * n + k, gr[j * n + k], val(rw(j), 60, k), "Allgather_init");
        }
        DFCT_CHECK(ar[n] == -1 && gr[rsize * n] == -1, "written past the end");
    }
    iter = 0;
    for (int i = 0; i < 6; i++) DFCT_OK(DFC_Request_free(&q[i]));
    free(b0), free(b1), free(s), free(ar), free(gr);
}

static void check_errors(DFC_Comm ic)
{
    int x[64] = {0}, y[64], cnt[64], dsp[64] = {0};
    DFC_Request req;
    DFC_Datatype types[64];
    for (int i = 0; i < 64; i++) cnt[i] = 1, types[i] = DFC_INT;
    DFCT_FAILS(DFC_Reduce(x, y, 1, DFC_INT, DFC_SUM, 64, ic), DFC_ERR_ROOT, "remote group");
    DFCT_FAILS(DFC_Igather(x, 1, DFC_INT, y, 1, DFC_INT, -7, ic, &req), DFC_ERR_ROOT, "root");
    DFCT_FAILS(DFC_Alltoall(DFC_IN_PLACE, 1, DFC_INT, y, 1, DFC_INT, ic), DFC_ERR_BUFFER,
               "DFC_IN_PLACE is not allowed on an intercommunicator");
    DFCT_FAILS(DFC_Reduce_scatter_block(DFC_IN_PLACE, y, 1, DFC_INT, DFC_SUM, ic), DFC_ERR_BUFFER,
               "sendbuf");
    cnt[0] = -1;
    DFCT_FAILS(DFC_Alltoallv(x, cnt, dsp, DFC_INT, y, cnt, dsp, DFC_INT, ic), DFC_ERR_COUNT,
               "sendcounts");
    DFCT_FAILS(DFC_Reduce_scatter(x, y, cnt, DFC_INT, DFC_SUM, ic), DFC_ERR_COUNT, "recvcounts");
    cnt[0] = 1;
    DFCT_FAILS(DFC_Alltoallw(x, cnt, dsp, NULL, y, cnt, dsp, types, ic), DFC_ERR_ARG, "sendtypes");
    DFCT_FAILS(DFC_Scan(x, y, 1, DFC_INT, DFC_SUM, ic), DFC_ERR_COMM, "does not define Scan");
    DFCT_FAILS(DFC_Scan_init(x, y, 1, DFC_INT, DFC_SUM, ic, DFC_INFO_NULL, &req), DFC_ERR_COMM,
               "does not define Scan");
    DFCT_FAILS(DFC_Barrier_init(ic, DFC_INFO_NULL, NULL), DFC_ERR_ARG, "request");
    DFCT_FAILS(DFC_Ibarrier(ic, NULL), DFC_ERR_ARG, "request");
    DFCT_FAILS(DFC_Ialltoall(x, 1, DFC_INT, y, 1, DFC_INT, ic, NULL), DFC_ERR_ARG, "request");
    DFCT_FAILS(DFC_Allgatherv_init(x, 1, DFC_INT, y, cnt, dsp, DFC_INT, ic, (DFC_Info)12345, &req),
               DFC_ERR_INFO, "info");
    DFCT_FAILS(DFC_Reduce_init(x, y, 1, DFC_INT, DFC_SUM, rsize, ic, DFC_INFO_NULL, &req),
               DFC_ERR_ROOT, "remote group");
    DFCT_FAILS(DFC_Allreduce_init(DFC_IN_PLACE, y, 1, DFC_INT, DFC_SUM, ic, DFC_INFO_NULL, &req),
               DFC_ERR_BUFFER, "DFC_IN_PLACE");
    cnt[1 % rsize] = -3;
    DFCT_FAILS(DFC_Alltoallv_init(x, cnt, dsp, DFC_INT, y, cnt, dsp, DFC_INT, ic, DFC_INFO_NULL,
                                  &req),
               DFC_ERR_COUNT, "sendcounts");
    cnt[1 % rsize] = 1;
    DFCT_FAILS(DFC_Reduce(x, y, 1, DFC_INT, DFC_OP_NULL, 0, ic), DFC_ERR_OP, "op");
}

int main(int argc, char **argv)
{
    DFC_Comm local, ic;
    DFC_Op fold;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &wrank);
    DFC_Comm_size(DFC_COMM_WORLD, &wsize);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    if (wsize < 2 || wsize > 64) return dfct_finalize(); /* two groups needed */
    int first = argc > 1 && !strcmp(argv[1], "-first");
    for (int w = 0; w < wsize; w++) {
        if (first ? w == 0 : w % 3 == 0) aw[na++] = w;
        else bw[nb++] = w;
    }
    in_a = first ? wrank == 0 : wrank % 3 == 0;
    lsize = in_a ? na : nb;
    rsize = in_a ? nb : na;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, in_a, wrank, &local));
    DFCT_OK(DFC_Comm_rank(local, &lrank));
    DFCT_OK(DFC_Intercomm_create(local, 0, DFC_COMM_WORLD, in_a ? bw[0] : 0, 78, &ic));
    DFCT_OK(DFC_Comm_set_errhandler(ic, DFC_ERRORS_RETURN));
    DFCT_OK(DFC_Op_create(fold3, 0, &fold));
    int sizes[3] = {0, 4, 20000};
    for (int z = 0; z < 3; z++)
        for (int nbk = 0; nbk < 3; nbk++) {
            int n = sizes[z];
            for (int a = 0; a < 2; a++)
                for (int r = 0; r < (a ? na : nb); r++) {
                    check_gather(a, r, n, 0, nbk, ic);
                    check_gather(a, r, n, 1, nbk, ic);
                    check_scatter(a, r, n, 0, nbk, ic);
                    check_scatter(a, r, n, 1, nbk, ic);
                    check_reduce(a, r, n, DFC_SUM, nbk, ic);
                    check_reduce(a, r, n, fold, nbk, ic);
                }
            check_allgatherv(n, nbk, ic);
            check_alltoall(n, 0, nbk, ic);
            check_alltoall(n, 1, nbk, ic);
            check_alltoallw(n, nbk, ic);
            check_reduce_scatter(n, 0, nbk, ic);
            check_reduce_scatter(n, 1, nbk, ic);
        }
    check_in_flight(5, ic);
    check_in_flight(30000, ic);
    check_persistent_in_flight(3, ic);
    check_persistent_in_flight(25000, ic);
    check_errors(ic);
    DFCT_OK(DFC_Op_free(&fold));
    DFCT_OK(DFC_Comm_free(&ic));
    DFCT_OK(DFC_Comm_free(&local));
    return dfct_finalize();
}
