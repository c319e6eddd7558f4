/*
 * test_coll_move.c - unit test of the data-movement collective schedules: barrier, bcast
 * (binomial, scatter_allgather, chain, linear), gather(v), scatter(v), allgather(v) (ring,
 * recursive doubling, bruck, linear) and alltoall(v) (pairwise); the hierarchical bcast,
 * allgather(v), gather, scatter and alltoall on layouts over simulated nodes.
 *
 * For n = 1..9 ranks, every root, block sizes 0, 1, 13, 4096 and 1 MiB, in place and not, and
 * v forms with uneven and zero counts (and a sparse MoE-like alltoallv), differing send and
 * receive item sizes and permuted displacements with gaps, each rank's schedule is built and
 * all n schedules are run together by the schedule simulator (coll_sim.h: exact dfc_sched.h
 * semantics, races, bounds, matching, deadlocks), in rank order and in two random
 * interleavings. Receive and scratch buffers are poisoned first; afterwards every byte of
 * every receive buffer is compared with a serial reference (gaps and buffers a rank must not
 * write still hold the poison), and send buffers must be unchanged. Arguments MPI says are
 * not significant on a rank (counts off the root, sendcount in place) are set to garbage or
 * NULL there.
 *
 * Barrier has no data, so its schedules are checked by rewriting them: each 0-byte send
 * carries the sender's n-byte "heard from" vector and each 0-byte receive OR-reduces one in
 * (RECV_REDUCE with BOR on uint8), with the same peers and fences; every rank must end having
 * heard from all n.
 * Prints one line per collective; exits 1 when anything failed.
 */
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_sim.h"

#define UNIT_CHECK_CONTEXT case_name
#include "unit_check.h"

#define NMAX 9
#define POISON 0xEE

static char case_name[256];

/* ---- Buffer images: a length, poison, and segments of generated data ---------------------- */
typedef struct seg {
    uint64_t off, len, seed;
} seg_t;

typedef struct image {
    uint64_t len; /* 0: no buffer (NULL) */
    int nseg;
    seg_t seg[2 * NMAX];
} image_t;

static void image_add(image_t *im, uint64_t off, uint64_t len, uint64_t seed)
{
    if (len == 0) return;
    if (im->nseg == 2 * NMAX) abort();
    im->seg[im->nseg++] = (seg_t){off, len, seed};
}

/* The bytes of data block `seed`: random bytes from a pool, starting at an offset (not a
 * multiple of 8) that differs for every seed, so every block differs from every other and
 * from itself shifted. Seeds stay below 10000. */
#define POOL_BYTES ((uint64_t)5 << 20)
static uint8_t *pool;

static const uint8_t *gen(uint64_t len, uint64_t seed)
{
    uint64_t off = seed * 9 + seed % 7;
    if (off + len > POOL_BYTES) abort();
    return pool + off;
}

static void pool_init(void)
{
    pool = malloc(POOL_BYTES);
    if (!pool) abort();
    for (uint64_t i = 0; i < POOL_BYTES; i += 8) {
        uint64_t w = rnd64();
        memcpy(pool + i, &w, 8);
    }
}

/* Buffers are kept between runs (faulting in fresh pages each time is most of the run
 * time); each run sees exactly the length its image gives. */
static uint8_t *bufcache[NMAX][DFC_BUF_COUNT];
static uint64_t bufcap[NMAX][DFC_BUF_COUNT];

static uint8_t *buf_get(int r, int b, uint64_t len)
{
    if (len == 0) return NULL;
    if (len > bufcap[r][b]) {
        free(bufcache[r][b]);
        bufcache[r][b] = malloc(len);
        if (!bufcache[r][b]) abort();
        bufcap[r][b] = len;
    }
    return bufcache[r][b];
}

static uint8_t *image_make(const image_t *im, int r, int b)
{
    uint8_t *p = buf_get(r, b, im->len);
    if (!p) return NULL;
    memset(p, POISON, im->len);
    for (int i = 0; i < im->nseg; i++)
        memcpy(p + im->seg[i].off, gen(im->seg[i].len, im->seg[i].seed), im->seg[i].len);
    return p;
}

static int cmp_seg(const void *x, const void *y)
{
    const seg_t *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

/* Compares p with the image; returns 0 if equal, else reports the first difference. */
static int image_check(const image_t *im, const uint8_t *p, const char *what, int rank)
{
    image_t s = *im;
    qsort(s.seg, (size_t)s.nseg, sizeof s.seg[0], cmp_seg);
    uint64_t pos = 0;
    for (int i = 0; i <= s.nseg; i++) {
        uint64_t end = i < s.nseg ? s.seg[i].off : s.len;
        for (; pos < end; pos++)
            if (p[pos] != POISON) {
                FAIL("rank %d %s: byte %llu is 0x%02x, expected the poison (untouched)", rank, what,
                     (unsigned long long)pos, p[pos]);
                return 1;
            }
        if (i == s.nseg) break;
        const uint8_t *scratch = gen(s.seg[i].len, s.seg[i].seed);
        if (memcmp(scratch, p + pos, s.seg[i].len)) {
            uint64_t k = 0;
            while (scratch[k] == p[pos + k]) k++;
            FAIL("rank %d %s: byte %llu (byte %llu of block seed %llu) is 0x%02x, expected 0x%02x",
                 rank, what, (unsigned long long)(pos + k), (unsigned long long)k,
                 (unsigned long long)s.seg[i].seed, p[pos + k], scratch[k]);
            return 1;
        }
        pos += s.seg[i].len;
    }
    return 0;
}

/* ---- Test cases ---------------------------------------------------------------------------- */
typedef struct tcase {
    int n;
    dfc_coll_args_t a[NMAX];
    image_t send[NMAX], rinit[NMAX], rwant[NMAX];
    /* storage for the count and displacement arrays */
    int scounts[NMAX][NMAX], sdispls[NMAX][NMAX], vcounts[NMAX][NMAX], vdispls[NMAX][NMAX];
} tcase_t;

static tcase_t tc;
static long nruns, ncases;
/* The node layout every case gets (a->world, a->world_node; NULL: none), for the
 * hierarchical algorithms. */
static const int *hier_world, *hier_node;
static int hier_gpu; /* a->gpu of every case (DFC_COLL_GPU_RING: the bcast's chain) */

static uint64_t seed_of(int owner, int dest) { return (uint64_t)owner * 1000 + (uint64_t)dest + 1; }

static void tc_reset(int n, dfc_coll_kind_t kind)
{
    memset(&tc, 0, sizeof tc);
    tc.n = n;
    for (int r = 0; r < n; r++) {
        tc.a[r].kind = kind;
        tc.a[r].rank = r;
        tc.a[r].size = n;
        tc.a[r].selem = tc.a[r].relem = tc.a[r].elem = 1;
        tc.a[r].world = hier_world;
        tc.a[r].world_node = hier_node;
        tc.a[r].gpu = hier_gpu;
    }
}

/* Lays out n blocks of counts[p] items in a permuted order with random gaps of 0-2 items;
 * returns the extent in items. */
static uint64_t layout(int n, const int *counts, int *displs)
{
    int perm[NMAX];
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd64() % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    uint64_t cur = rnd64() % 2;
    for (int i = 0; i < n; i++) {
        displs[perm[i]] = (int)cur;
        cur += (uint64_t)counts[perm[i]] + rnd64() % 3;
    }
    return cur;
}

/* An uneven weight for a v-form block: 0 (often), 1, 2 or 3. */
static int weight(void)
{
    static const int w[] = {0, 0, 1, 1, 2, 3};
    return w[rnd64() % 6];
}

/* Rewrites a barrier schedule into one that moves "heard from" vectors (see the top). */
static int barrier_rewrite(const dfc_sched_t *in, int n, dfc_sched_t *out)
{
    for (int i = 0; i < in->nsteps; i++) {
        const dfc_step_t *st = &in->steps[i];
        int rc = DFC_SUCCESS;
        if ((st->kind == DFC_STEP_SEND || st->kind == DFC_STEP_RECV) && st->bytes != 0) return -1;
        if (st->kind == DFC_STEP_SEND)
            rc = dfc_sched_send(out, st->peer, DFC_BUF_RECV, 0, (uint64_t)n);
        else if (st->kind == DFC_STEP_RECV)
            rc = dfc_sched_recv_reduce(out, st->peer, DFC_BUF_RECV, 0, (uint64_t)n, (uint64_t)n,
                                       dfc_sched_tmp(out, (uint64_t)n), DFC_REDUCE_IN_FIRST);
        else if (st->kind == DFC_STEP_FENCE) rc = dfc_sched_fence(out);
        else return -1;
        if (rc != DFC_SUCCESS) return -1;
    }
    return 0;
}

/* Whether `name` is the algorithm's name in select.c's table ("bcast_binomial": "binomial"). */
static int names_algorithm(const char *algo, const char *name)
{
    size_t al = strlen(algo), nl = name ? strlen(name) : 0;
    return name && nl < al && algo[al - nl - 1] == '_' && !strcmp(algo + al - nl, name);
}

/* Runs the case through one algorithm in the given mode; returns 0 if all checks passed. */
static int run_one(const char *algo, dfc_coll_build_fn build, int mode)
{
    int n = tc.n, rc = 0;
    coll_sim_rank_t ranks[NMAX];
    int barrier = tc.a[0].kind == DFC_COLL_BARRIER;

    nruns++;
    memset(ranks, 0, sizeof ranks);
    for (int r = 0; r < n; r++) {
        dfc_sched_t *s = &ranks[r].sched;
        dfc_sched_init(s);
        if (build(&tc.a[r], s) != DFC_SUCCESS) {
            FAIL("%s: build failed on rank %d", algo, r);
            rc = -1;
        }
        if (!names_algorithm(algo, s->algorithm)) {
            FAIL("rank %d: the schedule names its algorithm %s", r,
                 s->algorithm ? s->algorithm : "NULL");
            rc = -1;
        }
        int nt = 0;
        for (int i = 0; i < s->nsteps; i++)
            nt += s->steps[i].kind == DFC_STEP_SEND || s->steps[i].kind == DFC_STEP_RECV ||
                  s->steps[i].kind == DFC_STEP_RECV_REDUCE;
        if (nt != s->ntransfers) {
            FAIL("rank %d: ntransfers is %d, the schedule has %d", r, s->ntransfers, nt);
            rc = -1;
        }
        if (barrier) {
            dfc_sched_t t;
            dfc_sched_init(&t);
            if (barrier_rewrite(s, n, &t)) {
                FAIL("rank %d: a barrier step other than a 0-byte transfer or a fence", r);
                rc = -1;
            }
            dfc_sched_destroy(s);
            *s = t;
            tc.rinit[r].len = (uint64_t)n;
        }
        ranks[r].buf[DFC_BUF_SEND] = image_make(&tc.send[r], r, DFC_BUF_SEND);
        ranks[r].bytes[DFC_BUF_SEND] = tc.send[r].len;
        ranks[r].buf[DFC_BUF_RECV] = image_make(&tc.rinit[r], r, DFC_BUF_RECV);
        ranks[r].bytes[DFC_BUF_RECV] = tc.rinit[r].len;
        if (barrier) {
            memset(ranks[r].buf[DFC_BUF_RECV], 0, (size_t)n);
            ((uint8_t *)ranks[r].buf[DFC_BUF_RECV])[r] = 1;
        }
        if (s->tmp_bytes) {
            ranks[r].buf[DFC_BUF_TMP] = buf_get(r, DFC_BUF_TMP, s->tmp_bytes);
            memset(ranks[r].buf[DFC_BUF_TMP], POISON, s->tmp_bytes);
            ranks[r].bytes[DFC_BUF_TMP] = s->tmp_bytes;
        }
    }
    char label[300];
    snprintf(label, sizeof label, "FAIL [%s] (%s)", case_name,
             mode == COLL_SIM_RANDOM ? "random" : "ordered");
    if (rc == 0 && coll_sim_run(label, n, ranks, barrier ? dfc_dtype_get(DFC_UINT8_T) : NULL,
                                barrier ? dfc_op_get(DFC_BOR) : NULL, mode, (uint64_t)nruns) != 0) {
        failures++;
        rc = -1;
    }
    for (int r = 0; r < n && rc == 0; r++) {
        if (barrier) {
            const uint8_t *heard = ranks[r].buf[DFC_BUF_RECV];
            for (int p = 0; p < n; p++)
                if (heard[p] != 1) {
                    FAIL("rank %d left the barrier without having heard from rank %d", r, p);
                    rc = -1;
                    break;
                }
            continue;
        }
        if (image_check(&tc.rwant[r], ranks[r].buf[DFC_BUF_RECV], "recv buffer", r) ||
            image_check(&tc.send[r], ranks[r].buf[DFC_BUF_SEND], "send buffer (changed)", r))
            rc = -1;
    }
    for (int r = 0; r < n; r++) dfc_sched_destroy(&ranks[r].sched);
    return rc;
}

typedef struct algo {
    const char *name;
    dfc_coll_build_fn build;
    dfc_coll_usable_fn usable;
} algo_t;

/* Runs the current case through the algorithm: in rank order and two random interleavings. */
static void run_case(const algo_t *al, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_case(const algo_t *al, const char *fmt, ...)
{
    va_list ap;
    int len = snprintf(case_name, sizeof case_name, "%s ", al->name);
    va_start(ap, fmt);
    vsnprintf(case_name + len, sizeof case_name - (size_t)len, fmt, ap);
    va_end(ap);
    for (int r = 0; r < tc.n; r++)
        if (al->usable && !al->usable(&tc.a[r])) return;
    ncases++;
    if (run_one(al->name, al->build, COLL_SIM_ORDERED) == 0 &&
        run_one(al->name, al->build, COLL_SIM_RANDOM) == 0)
        run_one(al->name, al->build, COLL_SIM_RANDOM);
}

/* The largest size crosses the ring's segments many times over. Built with ASan (CI's
 * sanitizer stage) it is smaller, still several segments with a remainder: every byte there
 * costs 4x, and this test alone took 43 s of the stage's make check at 1 MiB. */
#ifdef __SANITIZE_ADDRESS__
static const uint64_t sizes[] = {0, 1, 13, 4096, 3 * 65536 + 13};
#else
static const uint64_t sizes[] = {0, 1, 13, 4096, 1 << 20};
#endif
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

/* Roots to try: all of them, except only the first, middle and last for the largest size. */
static int skip_root(int n, int root, uint64_t bytes)
{
    return bytes == sizes[NSIZES - 1] && root != 0 && root != n - 1 && root != n / 2;
}

/* Counts for the n blocks of a v form: `unit` items times an uneven weight (often 0). */
static void uneven_counts(int n, uint64_t unit, int *counts)
{
    for (int p = 0; p < n; p++) counts[p] = (int)(unit * (uint64_t)weight());
}

/* ---- barrier ---- */
static void test_barrier(void)
{
    algo_t al = {"barrier_dissemination", dfc_coll_barrier_dissemination_build, NULL};
    for (int n = 1; n <= NMAX; n++) {
        tc_reset(n, DFC_COLL_BARRIER);
        run_case(&al, "n=%d", n);
    }
}

/* ---- bcast ---- */
static void bcast_case(const algo_t *al, int n, int root, uint64_t count, uint64_t elem)
{
    uint64_t bytes = count * elem;
    tc_reset(n, DFC_COLL_BCAST);
    for (int r = 0; r < n; r++) {
        tc.a[r].root = root;
        tc.a[r].count = count;
        tc.a[r].elem = elem;
        tc.rinit[r].len = tc.rwant[r].len = bytes;
        image_add(&tc.rwant[r], 0, bytes, seed_of(root, 0));
    }
    image_add(&tc.rinit[root], 0, bytes, seed_of(root, 0));
    run_case(al, "n=%d root=%d count=%llu elem=%llu", n, root, (unsigned long long)count,
             (unsigned long long)elem);
}

static void test_bcast(void)
{
    algo_t algos[] = {{"bcast_binomial", dfc_coll_bcast_binomial_build, NULL},
                      {"bcast_scatter_allgather", dfc_coll_bcast_scatter_allgather_build,
                       dfc_coll_bcast_scatter_allgather_usable},
                      {"bcast_chain", dfc_coll_bcast_chain_build, NULL},
                      {"bcast_linear", dfc_coll_bcast_linear_build, NULL}};
    for (int ai = 0; ai < 4; ai++)
        for (int n = 1; n <= NMAX; n++)
            for (int si = 0; si < NSIZES; si++)
                for (int root = 0; root < n; root++) {
                    if (skip_root(n, root, sizes[si])) continue;
                    bcast_case(&algos[ai], n, root, sizes[si], 1);
                    if (sizes[si] <= 13) bcast_case(&algos[ai], n, root, sizes[si], 8);
                }
}

/* ---- gather / gatherv ----
 * gatherv: counts in items of relem (1, or 4 with senders using selem 2). */
static void gather_case(const algo_t *al, int v, int n, int root, uint64_t b, int ip, int ev)
{
    uint64_t relem = ev ? 4 : 1, selem = ev ? 2 : 1, extent = (uint64_t)n * b;
    int counts[NMAX], displs[NMAX];

    tc_reset(n, v ? DFC_COLL_GATHERV : DFC_COLL_GATHER);
    if (v) {
        uneven_counts(n, (b + relem - 1) / relem, counts);
        extent = layout(n, counts, displs) * relem;
        memcpy(tc.vcounts[root], counts, sizeof counts);
        memcpy(tc.vdispls[root], displs, sizeof displs);
        tc.a[root].vcounts = tc.vcounts[root]; /* NULL elsewhere: not significant there */
        tc.a[root].vdispls = tc.vdispls[root];
    }
    for (int r = 0; r < n; r++) {
        dfc_coll_args_t *a = &tc.a[r];
        uint64_t mine = v ? (uint64_t)counts[r] * relem : b;
        a->root = root;
        a->selem = selem;
        a->relem = relem;
        a->sbytes = mine;
        a->rbytes = r == root ? b : 777; /* not significant off the root */
        if (ip && r == root) continue;
        tc.send[r].len = mine;
        image_add(&tc.send[r], 0, mine, seed_of(r, 0));
    }
    tc.a[root].in_place = ip;
    if (ip) tc.a[root].sbytes = 999; /* not significant in place */
    image_t *want = &tc.rwant[root], *init = &tc.rinit[root];
    want->len = init->len = extent;
    for (int p = 0; p < n; p++) {
        uint64_t off = v ? (uint64_t)displs[p] * relem : (uint64_t)p * b;
        uint64_t len = v ? (uint64_t)counts[p] * relem : b;
        image_add(want, off, len, seed_of(p, 0));
        if (ip && p == root) image_add(init, off, len, seed_of(p, 0));
    }
    run_case(al, "%s n=%d root=%d size=%llu in_place=%d relem=%llu", v ? "gatherv" : "gather", n,
             root, (unsigned long long)b, ip, (unsigned long long)relem);
}

static void test_gather(void)
{
    algo_t al = {"gather_linear", dfc_coll_gather_linear_build, NULL};
    for (int v = 0; v < 2; v++)
        for (int n = 1; n <= NMAX; n++)
            for (int si = 0; si < NSIZES; si++)
                for (int root = 0; root < n; root++)
                    for (int ip = 0; ip < 2; ip++)
                        for (int ev = 0; ev <= v; ev++)
                            if (!skip_root(n, root, sizes[si]))
                                gather_case(&al, v, n, root, sizes[si], ip, ev);
}

/* ---- scatter / scatterv ----
 * scatterv: counts in items of selem (1, or 2 with receivers using relem 4). */
static void scatter_case(const algo_t *al, int v, int n, int root, uint64_t b, int ip, int ev)
{
    uint64_t selem = ev ? 2 : 1, relem = ev ? 4 : 1, extent = (uint64_t)n * b;
    int counts[NMAX], displs[NMAX];

    tc_reset(n, v ? DFC_COLL_SCATTERV : DFC_COLL_SCATTER);
    if (v) {
        uneven_counts(n, ev ? (b + 3) / 4 * 2 : b, counts); /* ev: whole relem items */
        extent = layout(n, counts, displs) * selem;
        memcpy(tc.scounts[root], counts, sizeof counts);
        memcpy(tc.sdispls[root], displs, sizeof displs);
        tc.a[root].scounts = tc.scounts[root]; /* NULL elsewhere: not significant there */
        tc.a[root].sdispls = tc.sdispls[root];
    }
    for (int r = 0; r < n; r++) {
        dfc_coll_args_t *a = &tc.a[r];
        uint64_t mine = v ? (uint64_t)counts[r] * selem : b;
        a->root = root;
        a->selem = selem;
        a->relem = relem;
        a->rbytes = mine;
        a->sbytes = r == root ? b : 555; /* not significant off the root */
        if (ip && r == root) continue;
        tc.rinit[r].len = tc.rwant[r].len = mine;
        image_add(&tc.rwant[r], 0, mine, seed_of(root, r));
    }
    tc.a[root].in_place = ip;
    if (ip) tc.a[root].rbytes = 333; /* not significant in place */
    tc.send[root].len = extent;
    for (int p = 0; p < n; p++) {
        uint64_t off = v ? (uint64_t)displs[p] * selem : (uint64_t)p * b;
        uint64_t len = v ? (uint64_t)counts[p] * selem : b;
        image_add(&tc.send[root], off, len, seed_of(root, p));
    }
    run_case(al, "%s n=%d root=%d size=%llu in_place=%d selem=%llu", v ? "scatterv" : "scatter", n,
             root, (unsigned long long)b, ip, (unsigned long long)selem);
}

static void test_scatter(void)
{
    algo_t al = {"scatter_linear", dfc_coll_scatter_linear_build, NULL};
    for (int v = 0; v < 2; v++)
        for (int n = 1; n <= NMAX; n++)
            for (int si = 0; si < NSIZES; si++)
                for (int root = 0; root < n; root++)
                    for (int ip = 0; ip < 2; ip++)
                        for (int ev = 0; ev <= v; ev++)
                            if (!skip_root(n, root, sizes[si]))
                                scatter_case(&al, v, n, root, sizes[si], ip, ev);
}

/* ---- allgather / allgatherv ----
 * allgatherv: counts in items of relem (1, or 4 with senders using selem 2). */
static void allgather_case(const algo_t *al, int v, int n, uint64_t b, int ip, int ev)
{
    uint64_t relem = ev ? 4 : 1, selem = ev ? 2 : 1, extent = (uint64_t)n * b;
    int counts[NMAX], displs[NMAX];

    tc_reset(n, v ? DFC_COLL_ALLGATHERV : DFC_COLL_ALLGATHER);
    if (v) {
        uneven_counts(n, (b + relem - 1) / relem, counts);
        extent = layout(n, counts, displs) * relem;
    }
    for (int r = 0; r < n; r++) {
        dfc_coll_args_t *a = &tc.a[r];
        uint64_t mine = v ? (uint64_t)counts[r] * relem : b;
        a->in_place = ip;
        a->selem = selem;
        a->relem = relem;
        a->rbytes = b;
        a->sbytes = ip ? 4444 : mine; /* not significant in place */
        if (v) {
            memcpy(tc.vcounts[r], counts, sizeof counts);
            memcpy(tc.vdispls[r], displs, sizeof displs);
            a->vcounts = tc.vcounts[r];
            a->vdispls = tc.vdispls[r];
        }
        if (!ip) {
            tc.send[r].len = mine;
            image_add(&tc.send[r], 0, mine, seed_of(r, 0));
        }
        tc.rinit[r].len = tc.rwant[r].len = extent;
        for (int p = 0; p < n; p++) {
            uint64_t off = v ? (uint64_t)displs[p] * relem : (uint64_t)p * b;
            uint64_t len = v ? (uint64_t)counts[p] * relem : b;
            image_add(&tc.rwant[r], off, len, seed_of(p, 0));
            if (ip && p == r) image_add(&tc.rinit[r], off, len, seed_of(p, 0));
        }
    }
    run_case(al, "%s n=%d size=%llu in_place=%d relem=%llu", v ? "allgatherv" : "allgather", n,
             (unsigned long long)b, ip, (unsigned long long)relem);
}

static void test_allgather(void)
{
    algo_t algos[] = {
        {"allgather_ring", dfc_coll_allgather_ring_build, NULL},
        {"allgather_recursive_doubling", dfc_coll_allgather_recursive_doubling_build,
         dfc_coll_allgather_recursive_doubling_usable},
        {"allgather_bruck", dfc_coll_allgather_bruck_build, dfc_coll_allgather_bruck_usable},
        {"allgather_linear", dfc_coll_allgather_linear_build, NULL},
    };
    for (int ai = 0; ai < 4; ai++)
        for (int v = 0; v < 2; v++)
            for (int n = 1; n <= NMAX; n++)
                for (int si = 0; si < NSIZES; si++)
                    for (int ip = 0; ip < 2; ip++)
                        for (int ev = 0; ev <= v; ev++)
                            allgather_case(&algos[ai], v, n, sizes[si], ip, ev);
}

/* ---- alltoall / alltoallv ----
 * alltoallv: bytes[r][p] from r to p, uneven (often 0; ev 2: sparse, most blocks empty as in
 * MoE dispatch); ev 0: items of 1 byte, else selem 2 and relem 4. In place the matrix is
 * symmetric, as MPI requires there (the receive counts are also the send counts). */
static void alltoall_case(const algo_t *al, int v, int n, uint64_t b, int ip, int ev)
{
    uint64_t relem = ev ? 4 : 1, selem = ev ? 2 : 1, unit = ev ? (b + 3) / 4 * 4 : b;
    uint64_t bytes[NMAX][NMAX];

    tc_reset(n, v ? DFC_COLL_ALLTOALLV : DFC_COLL_ALLTOALL);
    for (int r = 0; r < n; r++)
        for (int p = 0; p < n; p++) {
            int w = ev == 2 ? (rnd64() % 5 == 0 ? 1 + (int)(rnd64() % 3) : 0) : weight();
            bytes[r][p] = v ? unit * (uint64_t)w : b;
        }
    if (ip)
        for (int r = 0; r < n; r++)
            for (int p = 0; p < r; p++) bytes[r][p] = bytes[p][r];
    for (int r = 0; r < n; r++) {
        dfc_coll_args_t *a = &tc.a[r];
        uint64_t sext = (uint64_t)n * b, rext = (uint64_t)n * b;
        a->in_place = ip;
        a->selem = selem;
        a->relem = relem;
        a->sbytes = ip ? 4444 : b; /* not significant in place */
        a->rbytes = b;
        if (v) {
            for (int p = 0; p < n; p++) {
                tc.scounts[r][p] = (int)(bytes[r][p] / selem);
                tc.vcounts[r][p] = (int)(bytes[p][r] / relem);
            }
            sext = layout(n, tc.scounts[r], tc.sdispls[r]) * selem;
            rext = layout(n, tc.vcounts[r], tc.vdispls[r]) * relem;
            a->vcounts = tc.vcounts[r];
            a->vdispls = tc.vdispls[r];
            if (!ip) { /* NULL in place: not significant */
                a->scounts = tc.scounts[r];
                a->sdispls = tc.sdispls[r];
            }
        }
        if (!ip) tc.send[r].len = sext;
        tc.rinit[r].len = tc.rwant[r].len = rext;
        for (int p = 0; p < n; p++) {
            uint64_t soff = v ? (uint64_t)tc.sdispls[r][p] * selem : (uint64_t)p * b;
            uint64_t roff = v ? (uint64_t)tc.vdispls[r][p] * relem : (uint64_t)p * b;
            if (ip) image_add(&tc.rinit[r], roff, bytes[r][p], seed_of(r, p));
            else image_add(&tc.send[r], soff, bytes[r][p], seed_of(r, p));
            image_add(&tc.rwant[r], roff, bytes[p][r], seed_of(p, r));
        }
    }
    run_case(al, "%s n=%d size=%llu in_place=%d relem=%llu%s", v ? "alltoallv" : "alltoall", n,
             (unsigned long long)b, ip, (unsigned long long)relem, ev == 2 ? " sparse" : "");
}

static void test_alltoall(void)
{
    algo_t al = {"alltoall_pairwise", dfc_coll_alltoall_pairwise_build, NULL};
    for (int v = 0; v < 2; v++)
        for (int n = 1; n <= NMAX; n++)
            for (int si = 0; si < NSIZES; si++)
                for (int ip = 0; ip < 2; ip++)
                    for (int ev = 0; ev <= 2 * v; ev++) alltoall_case(&al, v, n, sizes[si], ip, ev);
}

/* ---- the hierarchical bcast, allgather(v), gather, scatter and alltoall ----
 * On every layout of n = 4..9 ranks over N >= 2 nodes of L >= 2: blocked (rank r on node
 * r / L), interleaved (r mod N) and scrambled (a fixed permutation of the blocked one), each
 * with the node numbers themselves permuted. On unequal nodes the bcast and allgather(v)
 * fold the surplus ranks in and out, gather and scatter carry whole nodes, and alltoall's
 * core ranks carry their surplus ranks' blocks. */
static void hier_layout_of(int n, int N, int kind, int *node)
{
    static const int scramble[NMAX] = {5, 2, 7, 0, 8, 3, 1, 6, 4};
    int L = n / N, k = 0;
    for (int r = 0; r < n; r++) {
        int q = kind == 0 ? r / L : kind == 1 ? r % N : 0;
        if (kind == 2) { /* the k-th rank below n of the permutation, blocked */
            while (scramble[k] >= n) k++;
            q = scramble[k++] / L;
        }
        node[r] = 7 * ((N - q) % N) + 2; /* node numbers neither dense nor in order */
    }
}

static void test_hierarchical(void)
{
    algo_t bc = {"bcast_hierarchical", dfc_coll_bcast_hierarchical_build,
                 dfc_coll_bcast_hierarchical_usable};
    algo_t ag = {"allgather_hierarchical", dfc_coll_allgather_hierarchical_build,
                 dfc_coll_allgather_hierarchical_usable};
    algo_t ga = {"gather_hierarchical", dfc_coll_gather_hierarchical_build,
                 dfc_coll_gather_hierarchical_usable};
    algo_t sc = {"scatter_hierarchical", dfc_coll_scatter_hierarchical_build,
                 dfc_coll_scatter_hierarchical_usable};
    algo_t aa = {"alltoall_hierarchical", dfc_coll_alltoall_hierarchical_build,
                 dfc_coll_alltoall_hierarchical_usable};
    int world[NMAX], node[64];
    for (int r = 0; r < NMAX; r++) world[r] = r;
    hier_world = world;
    hier_node = node;
    for (int n = 4; n <= NMAX; n++)
        for (int N = 2; N <= n / 2; N++) {
            if (n % N) continue;
            for (int kind = 0; kind < 3; kind++) {
                hier_layout_of(n, N, kind, node);
                long c0 = ncases;
                for (int si = 0; si < NSIZES; si++) {
                    for (int root = 0; root < n; root++) {
                        if (skip_root(n, root, sizes[si])) continue;
                        bcast_case(&bc, n, root, sizes[si], 1);
                        if (sizes[si] <= 13) bcast_case(&bc, n, root, sizes[si], 8);
                        for (int ip = 0; ip < 2; ip++) {
                            gather_case(&ga, 0, n, root, sizes[si], ip, 0);
                            scatter_case(&sc, 0, n, root, sizes[si], ip, 0);
                        }
                    }
                    for (int ip = 0; ip < 2; ip++) alltoall_case(&aa, 0, n, sizes[si], ip, 0);
                    for (int v = 0; v < 2; v++)
                        for (int ip = 0; ip < 2; ip++)
                            for (int ev = 0; ev <= v; ev++)
                                allgather_case(&ag, v, n, sizes[si], ip, ev);
                }
                if (ncases == c0) FAIL("n=%d N=%d layout %d: hierarchical refused it", n, N, kind);
                hier_gpu = DFC_COLL_GPU_RING; /* phase 2 by the chain */
                for (int root = 0; root < n; root++)
                    for (int si = 0; si < NSIZES; si++)
                        if (!skip_root(n, root, sizes[si])) bcast_case(&bc, n, root, sizes[si], 1);
                hier_gpu = 0;
            }
        }
    /* Unequal nodes (3+2, 4+2, 3+2+2, 5+3, 5+2+2 ranks; blocked, interleaved, scrambled):
     * bcast and allgather(v) fold the ranks beyond the smallest node's count (every bcast
     * root: a surplus root hands its node's core their chunks), gather and scatter carry
     * whole nodes (every root: a surplus root's partner relays), alltoall's core ranks carry
     * the surplus ranks' blocks across and hand them on. Nodes of
     * 3, 2 and 1 (the last) have no layout at all. */
    static const int uneven[6][NMAX] = {
        {0, 0, 0, 1, 1},          {0, 1, 0, 1, 0, 0},          {0, 1, 2, 0, 1, 2, 0},
        {1, 0, 1, 1, 0, 1, 0, 1}, {0, 0, 0, 0, 0, 1, 1, 2, 2}, {4, 4, 9, 9, 4, 1}};
    static const int uneven_n[6] = {5, 6, 7, 8, 9, 6};
    static const dfc_coll_kind_t block_kinds[3] = {DFC_COLL_GATHER, DFC_COLL_SCATTER,
                                                   DFC_COLL_ALLTOALL};
    static const dfc_coll_usable_fn block_usable[3] = {dfc_coll_gather_hierarchical_usable,
                                                       dfc_coll_scatter_hierarchical_usable,
                                                       dfc_coll_alltoall_hierarchical_usable};
    const dfc_coll_usable_fn *vusable = block_usable; /* the v forms' below: the same */
    for (int u = 0; u < 6; u++) {
        int n = uneven_n[u], takes = u < 5;
        for (int r = 0; r < n; r++) node[r] = uneven[u][r];
        tc_reset(n, DFC_COLL_BCAST);
        tc.a[0].count = 4096;
        CHECK(dfc_coll_bcast_hierarchical_usable(&tc.a[0]) == takes,
              "uneven layout %d: bcast usable() is not %d", u, takes);
        tc.a[0].kind = DFC_COLL_ALLGATHER;
        CHECK(dfc_coll_allgather_hierarchical_usable(&tc.a[0]) == takes,
              "uneven layout %d: allgather usable() is not %d", u, takes);
        for (int k = 0; k < 3; k++) {
            tc.a[0].kind = block_kinds[k];
            CHECK(block_usable[k](&tc.a[0]) == takes,
                  "uneven layout %d: kind %d usable() is not %d", u, (int)block_kinds[k], takes);
        }
        long c0 = ncases;
        for (int si = 0; si < NSIZES && takes; si++) {
            for (int root = 0; root < n; root++) {
                bcast_case(&bc, n, root, sizes[si], 1);
                if (sizes[si] <= 13) bcast_case(&bc, n, root, sizes[si], 8);
                for (int ip = 0; ip < 2; ip++) {
                    gather_case(&ga, 0, n, root, sizes[si], ip, 0);
                    scatter_case(&sc, 0, n, root, sizes[si], ip, 0);
                }
            }
            for (int ip = 0; ip < 2; ip++) alltoall_case(&aa, 0, n, sizes[si], ip, 0);
            for (int v = 0; v < 2; v++)
                for (int ip = 0; ip < 2; ip++)
                    for (int ev = 0; ev <= v; ev++) allgather_case(&ag, v, n, sizes[si], ip, ev);
        }
        CHECK(!takes || ncases > c0, "uneven layout %d: no case ran", u);
    }
    /* the v forms: a leader would not know its node mates' counts */
    hier_layout_of(8, 4, 0, node);
    static const dfc_coll_kind_t vkinds[3] = {DFC_COLL_GATHERV, DFC_COLL_SCATTERV,
                                              DFC_COLL_ALLTOALLV};
    for (int k = 0; k < 3; k++) {
        tc_reset(8, vkinds[k]);
        CHECK(!vusable[k](&tc.a[0]), "collective kind %d: a v form usable", (int)vkinds[k]);
        tc.a[0].kind = vkinds[k] - 1; /* the block form: usable */
        CHECK(vusable[k](&tc.a[0]), "collective kind %d refused", (int)vkinds[k] - 1);
    }
    hier_world = hier_node = NULL;
}

int main(void)
{
    struct {
        const char *name;
        void (*fn)(void);
    } groups[] = {{"barrier", test_barrier},          {"bcast", test_bcast},
                  {"gather(v)", test_gather},         {"scatter(v)", test_scatter},
                  {"allgather(v)", test_allgather},   {"alltoall(v)", test_alltoall},
                  {"hierarchical", test_hierarchical}};

#ifdef __GLIBC__
    /* Keep freed memory in the heap (fresh-page faults would dominate the run time). */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    if (dfc_dtype_init() || dfc_op_init()) {
        fprintf(stderr, "test_coll_move: dfc_dtype_init/dfc_op_init failed\n");
        return 1;
    }
    pool_init();
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        long f0 = failures, c0 = ncases, r0 = nruns;
        groups[g].fn();
        printf("%-14s %5ld cases, %5ld simulated runs: %s\n", groups[g].name, ncases - c0,
               nruns - r0, failures == f0 ? "ok" : "FAILED");
    }
    for (int r = 0; r < NMAX; r++)
        for (int b = 0; b < DFC_BUF_COUNT; b++) free(bufcache[r][b]);
    free(pool);
    dfc_op_finalize();
    dfc_dtype_finalize();
    if (failures) printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
