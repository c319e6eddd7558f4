/*
 * test_coll_reduce.c - the reduction algorithms (reduce, allreduce, reduce_scatter[_block],
 * scan, exscan) run through the schedule simulator (coll_sim.h) against serial references.
 *
 * For n = 1..9 ranks and counts 0, 1, 7, 1000, 65539, every algorithm (forced, where its
 * `usable` says yes) runs with int SUM/MAX/PROD, double SUM (integer-valued, so exact in any
 * order) and a non-commutative op (2x2 integer matrix product on a 16-byte item, built by
 * hand as a user op), in place and not, every root for reduce, in ordered and random
 * scheduling. The ring's and the chain's pipeline segments are set to 4 KiB
 * (DFC_COLL_RING_SEGMENT, DFC_COLL_CHAIN_SEGMENT) so that large counts use several segments
 * (the chain's at most 32). The hierarchical reduce (also as on a ring of rails, crossing
 * nodes by the chain), allreduce and reduce_scatter(_block) get a node layout of N >= 2
 * nodes of L >= 2 ranks where n allows one (4, 6, 8, 9), the nodes in blocks of consecutive
 * ranks in ordered scheduling and interleaved (rank r on node r mod N) in random
 * scheduling; their `usable` refuses the other n and the non-commutative op, as the
 * chain's refuses that op. For n = 5..9 they also get unequal nodes (3+2, 4+2, 3+2+2, 5+3,
 * 5+2+2 ranks, blocked, interleaved and scrambled), where reduce, allreduce and
 * reduce_scatter(_block) fold the ranks beyond the smallest node's count in and out.
 * Prints one line per failure and a summary; exits 1 when anything failed.
 * TEST_COLL_ALGO=<substring> and TEST_COLL_OP=<substring> restrict the run (debugging).
 * Runs without DFC_Init: only dfc_dtype_init and dfc_op_init are needed.
 */
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_sim.h"

/* Exported by the algorithm files (to be declared in dfc_coll.h). */

typedef struct {
    const char *name;
    dfc_coll_kind_t kind;
    dfc_coll_build_fn build;
    dfc_coll_usable_fn usable;
} algo_t;

static const algo_t algos[] = {
    {"reduce/binomial", DFC_COLL_REDUCE, dfc_coll_reduce_binomial_build, NULL},
    {"reduce/hierarchical", DFC_COLL_REDUCE, dfc_coll_reduce_hierarchical_build,
     dfc_coll_reduce_hierarchical_usable},
    {"reduce/hierarchical-ring", DFC_COLL_REDUCE, dfc_coll_reduce_hierarchical_build,
     dfc_coll_reduce_hierarchical_usable}, /* a->gpu = DFC_COLL_GPU_RING: across by the chain */
    {"reduce/chain", DFC_COLL_REDUCE, dfc_coll_reduce_chain_build, dfc_coll_reduce_chain_usable},
    {"allreduce/recursive_doubling", DFC_COLL_ALLREDUCE,
     dfc_coll_allreduce_recursive_doubling_build, NULL},
    {"allreduce/rabenseifner", DFC_COLL_ALLREDUCE, dfc_coll_allreduce_rabenseifner_build,
     dfc_coll_allreduce_rabenseifner_usable},
    {"allreduce/ring", DFC_COLL_ALLREDUCE, dfc_coll_allreduce_ring_build,
     dfc_coll_allreduce_ring_usable},
    {"allreduce/hierarchical", DFC_COLL_ALLREDUCE, dfc_coll_allreduce_hierarchical_build,
     dfc_coll_allreduce_hierarchical_usable},
    {"reduce_scatter_block/pairwise", DFC_COLL_REDUCE_SCATTER_BLOCK,
     dfc_coll_reduce_scatter_pairwise_build, NULL},
    {"reduce_scatter/pairwise", DFC_COLL_REDUCE_SCATTER, dfc_coll_reduce_scatter_pairwise_build,
     NULL},
    {"reduce_scatter_block/hierarchical", DFC_COLL_REDUCE_SCATTER_BLOCK,
     dfc_coll_reduce_scatter_hierarchical_build, dfc_coll_reduce_scatter_hierarchical_usable},
    {"reduce_scatter/hierarchical", DFC_COLL_REDUCE_SCATTER,
     dfc_coll_reduce_scatter_hierarchical_build, dfc_coll_reduce_scatter_hierarchical_usable},
    {"scan/linear", DFC_COLL_SCAN, dfc_coll_scan_linear_build, NULL},
    {"exscan/linear", DFC_COLL_EXSCAN, dfc_coll_scan_linear_build, NULL},
};
#define NALGOS (int)(sizeof algos / sizeof algos[0])

/* The non-commutative op: inout = in * inout for 2x2 matrices (row-major, 4 ints, computed
 * modulo 2^32). */
static void mat_mul(void *in_, void *inout_, int *len, DFC_Datatype *dt)
{
    (void)dt;
    const int32_t *in = in_;
    int32_t *io = inout_;
    for (int k = 0; k < *len; k++, in += 4, io += 4) {
        uint32_t a = (uint32_t)in[0], b = (uint32_t)in[1], c = (uint32_t)in[2], d = (uint32_t)in[3];
        uint32_t e = (uint32_t)io[0], f = (uint32_t)io[1], g = (uint32_t)io[2], h = (uint32_t)io[3];
        io[0] = (int32_t)(a * e + b * g);
        io[1] = (int32_t)(a * f + b * h);
        io[2] = (int32_t)(c * e + d * g);
        io[3] = (int32_t)(c * f + d * h);
    }
}

/* ---- The simulator's own checks: hand-made schedules it must accept or reject ----------- */
typedef struct {
    coll_sim_rank_t r[2];
    int32_t send[2][4], recv[2][4];
} pair_t;

static void pair_init(pair_t *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 2; i++) {
        dfc_sched_init(&p->r[i].sched);
        for (int k = 0; k < 4; k++) p->send[i][k] = 10 * i + k + 1;
        p->r[i].buf[DFC_BUF_SEND] = p->send[i];
        p->r[i].buf[DFC_BUF_RECV] = p->recv[i];
        p->r[i].bytes[DFC_BUF_SEND] = p->r[i].bytes[DFC_BUF_RECV] = 16;
    }
}

static void pair_destroy(pair_t *p)
{
    for (int i = 0; i < 2; i++) dfc_sched_destroy(&p->r[i].sched);
}

/* Runs the pair quietly (the simulator's failure line goes to /dev/null) in both modes;
 * returns 1 when both runs gave `expect_fail`. */
static int pair_run(pair_t *p, const dfc_dtype_t *dt, const dfc_op_t *op, int expect_fail)
{
    int ok = 1;
    for (int mode = 0; mode <= 1; mode++) {
        memset(p->recv, 0, sizeof p->recv);
        fflush(stderr);
        int saved = dup(2), null = open("/dev/null", O_WRONLY);
        if (expect_fail && saved >= 0 && null >= 0) dup2(null, 2);
        int rc = coll_sim_run("selftest", 2, p->r, dt, op, mode, 7);
        fflush(stderr);
        if (saved >= 0) dup2(saved, 2), close(saved);
        if (null >= 0) close(null);
        if ((rc != 0) != expect_fail) ok = 0;
    }
    return ok;
}

static long sim_selftest(const dfc_dtype_t *mat_t, const dfc_op_t *mat_op)
{
    long failures = 0;
    pair_t p;
#define EXPECT(cond, what)                                           \
    do {                                                             \
        if (!(cond)) {                                               \
            failures++;                                              \
            fprintf(stderr, "FAIL simulator self-test: %s\n", what); \
        }                                                            \
    } while (0)

    /* A round trip: rank 1 receives x0 and sends it back into a RECV_REDUCE. */
    pair_init(&p);
    dfc_sched_send(&p.r[0].sched, 1, DFC_BUF_SEND, 0, 16);
    dfc_sched_fence(&p.r[0].sched);
    dfc_sched_recv(&p.r[1].sched, 0, DFC_BUF_RECV, 0, 16);
    dfc_sched_fence(&p.r[1].sched);
    dfc_sched_recv_reduce(&p.r[0].sched, 1, DFC_BUF_RECV, 0, 1, 16, 0, DFC_REDUCE_IN_SECOND);
    p.r[0].sched.tmp_bytes = 16;
    dfc_sched_fence(&p.r[0].sched);
    dfc_sched_send(&p.r[1].sched, 0, DFC_BUF_RECV, 0, 16);
    dfc_sched_fence(&p.r[1].sched);
    int okrun = pair_run(&p, mat_t, mat_op, 0);
    EXPECT(okrun && !memcmp(p.recv[1], p.send[0], 16), "a plain exchange");
    pair_destroy(&p);

    /* IN_SECOND computes dst = dst op in: RECV = [send0] op [send1] with a matrix product. */
    pair_init(&p);
    dfc_sched_copy(&p.r[0].sched, DFC_BUF_SEND, 0, DFC_BUF_RECV, 0, 16);
    dfc_sched_recv_reduce(&p.r[0].sched, 1, DFC_BUF_RECV, 0, 1, 16, 0, DFC_REDUCE_IN_SECOND);
    p.r[0].sched.tmp_bytes = 16;
    dfc_sched_fence(&p.r[0].sched);
    dfc_sched_send(&p.r[1].sched, 0, DFC_BUF_SEND, 0, 16);
    dfc_sched_fence(&p.r[1].sched);
    okrun = pair_run(&p, mat_t, mat_op, 0);
    int32_t want[4];
    memcpy(want, p.send[1], 16);
    int len = 1;
    DFC_Datatype h = DFC_INT;
    mat_mul(p.send[0], want, &len, &h); /* want = send0 * send1 */
    EXPECT(okrun && !memcmp(p.recv[0], want, 16), "RECV_REDUCE IN_SECOND operand order");
    pair_destroy(&p);

    /* Two sends on one pair match two receives in posting order. */
    pair_init(&p);
    dfc_sched_send(&p.r[0].sched, 1, DFC_BUF_SEND, 0, 8);
    dfc_sched_send(&p.r[0].sched, 1, DFC_BUF_SEND, 8, 8);
    dfc_sched_fence(&p.r[0].sched);
    dfc_sched_recv(&p.r[1].sched, 0, DFC_BUF_RECV, 8, 8);
    dfc_sched_recv(&p.r[1].sched, 0, DFC_BUF_RECV, 0, 8);
    dfc_sched_fence(&p.r[1].sched);
    okrun = pair_run(&p, NULL, NULL, 0);
    EXPECT(okrun && p.recv[1][2] == p.send[0][0] && p.recv[1][0] == p.send[0][2],
           "posting-order matching");
    pair_destroy(&p);

    /* Deadlock: both receive first, behind a fence. */
    pair_init(&p);
    for (int i = 0; i < 2; i++) {
        dfc_sched_recv(&p.r[i].sched, 1 - i, DFC_BUF_RECV, 0, 4);
        dfc_sched_fence(&p.r[i].sched);
        dfc_sched_send(&p.r[i].sched, 1 - i, DFC_BUF_SEND, 0, 4);
        dfc_sched_fence(&p.r[i].sched);
    }
    EXPECT(pair_run(&p, NULL, NULL, 1), "deadlock not detected");
    pair_destroy(&p);

    /* A send needs its receive (no buffering): both send first, behind a fence. */
    pair_init(&p);
    for (int i = 0; i < 2; i++) {
        dfc_sched_send(&p.r[i].sched, 1 - i, DFC_BUF_SEND, 0, 4);
        dfc_sched_fence(&p.r[i].sched);
        dfc_sched_recv(&p.r[i].sched, 1 - i, DFC_BUF_RECV, 0, 4);
        dfc_sched_fence(&p.r[i].sched);
    }
    EXPECT(pair_run(&p, NULL, NULL, 1), "send-send deadlock not detected");
    pair_destroy(&p);

    /* Byte-count mismatch. */
    pair_init(&p);
    dfc_sched_send(&p.r[0].sched, 1, DFC_BUF_SEND, 0, 8);
    dfc_sched_fence(&p.r[0].sched);
    dfc_sched_recv(&p.r[1].sched, 0, DFC_BUF_RECV, 0, 4);
    dfc_sched_fence(&p.r[1].sched);
    EXPECT(pair_run(&p, NULL, NULL, 1), "byte-count mismatch not detected");
    pair_destroy(&p);

    /* Writing SEND; reading past a buffer; an unbound buffer; a transfer to itself. */
    pair_init(&p);
    dfc_sched_copy(&p.r[0].sched, DFC_BUF_RECV, 0, DFC_BUF_SEND, 0, 4);
    EXPECT(pair_run(&p, NULL, NULL, 1), "write to SEND not detected");
    pair_destroy(&p);
    pair_init(&p);
    dfc_sched_copy(&p.r[0].sched, DFC_BUF_SEND, 4, DFC_BUF_RECV, 0, 16);
    EXPECT(pair_run(&p, NULL, NULL, 1), "read past SEND not detected");
    pair_destroy(&p);
    pair_init(&p);
    p.r[1].buf[DFC_BUF_RECV] = NULL;
    p.r[1].bytes[DFC_BUF_RECV] = 0;
    dfc_sched_copy(&p.r[1].sched, DFC_BUF_SEND, 0, DFC_BUF_RECV, 0, 4);
    EXPECT(pair_run(&p, NULL, NULL, 1), "access to an unbound RECV not detected");
    pair_destroy(&p);
    pair_init(&p);
    dfc_sched_send(&p.r[0].sched, 0, DFC_BUF_SEND, 0, 4);
    dfc_sched_recv(&p.r[0].sched, 0, DFC_BUF_RECV, 0, 4);
    dfc_sched_fence(&p.r[0].sched);
    EXPECT(pair_run(&p, NULL, NULL, 1), "transfer to itself not detected");
    pair_destroy(&p);

    /* A receive overlapping a send of the same epoch; transfers after the last fence. */
    pair_init(&p);
    for (int i = 0; i < 2; i++) {
        dfc_sched_send(&p.r[i].sched, 1 - i, DFC_BUF_RECV, 0, 8);
        dfc_sched_recv(&p.r[i].sched, 1 - i, DFC_BUF_RECV, 4, 8);
        dfc_sched_fence(&p.r[i].sched);
    }
    EXPECT(pair_run(&p, NULL, NULL, 1), "overlap within an epoch not detected");
    pair_destroy(&p);
    pair_init(&p);
    dfc_sched_send(&p.r[0].sched, 1, DFC_BUF_SEND, 0, 4);
    dfc_sched_recv(&p.r[1].sched, 0, DFC_BUF_RECV, 0, 4);
    EXPECT(pair_run(&p, NULL, NULL, 1), "missing final fence not detected");
    pair_destroy(&p);
#undef EXPECT
    return failures;
}

int main(void)
{
#ifdef __GLIBC__
    /* Keep freed buffers in the heap: the fresh-page faults of mmap'ed buffers cost more
     * system time than the whole test otherwise. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    setenv("DFC_COLL_RING_SEGMENT", "4096", 0);
    setenv("DFC_COLL_CHAIN_SEGMENT", "4096", 0);
    if (dfc_dtype_init() || dfc_op_init()) {
        fprintf(stderr, "test_coll_reduce: dfc_dtype_init/dfc_op_init failed\n");
        return 1;
    }
    /* A 16-byte item of 4 ints and a non-commutative user op on it, made by hand. */
    dfc_dtype_t mat_t = *dfc_dtype_get(DFC_INT);
    mat_t.builtin = 0;
    mat_t.size = 16;
    mat_t.extent = 16;
    mat_t.nbase = 4;
    mat_t.combiner = DFC_COMBINER_CONTIGUOUS;
    mat_t.name = NULL;
    dfc_op_t mat_op = {.handle = 0,
                       .refcount = 1,
                       .builtin = 0,
                       .commute = 0,
                       .user_fn = mat_mul,
                       .name = "mat2x2"};

    struct {
        const char *name;
        const dfc_dtype_t *dt;
        const dfc_op_t *op;
    } ops[] = {
        {"int SUM", dfc_dtype_get(DFC_INT), dfc_op_get(DFC_SUM)},
        {"int MAX", dfc_dtype_get(DFC_INT), dfc_op_get(DFC_MAX)},
        {"int PROD", dfc_dtype_get(DFC_INT), dfc_op_get(DFC_PROD)},
        {"double SUM", dfc_dtype_get(DFC_DOUBLE), dfc_op_get(DFC_SUM)},
        {"mat2x2 (non-commutative)", &mat_t, &mat_op},
    };
    const int nops = (int)(sizeof ops / sizeof ops[0]);
    /* The largest count spans many ring segments (DFC_COLL_RING_SEGMENT 4096 bytes). Built
     * with ASan (CI's sanitizer stage) it is smaller, still several segments and a remainder:
     * there every byte costs 4x, and this test alone took 96 s of the stage's make check. */
#ifdef __SANITIZE_ADDRESS__
    const uint64_t counts[] = {0, 1, 7, 1000, 3 * 1024 + 5};
#else
    const uint64_t counts[] = {0, 1, 7, 1000, 65536 + 3};
#endif
    const int ncounts = (int)(sizeof counts / sizeof counts[0]);
    const char *mode_names[] = {"ordered", "random"};

    const char *only_algo = getenv("TEST_COLL_ALGO"), *only_op = getenv("TEST_COLL_OP");
    long cases = 0, failures = sim_selftest(&mat_t, &mat_op), skipped = 0;
    int rcounts[16], world[16], world_node[2][16];
    static const int uneven[10][9] = {[5] = {0, 0, 0, 1, 1},
                                      [6] = {0, 1, 0, 1, 0, 0},
                                      [7] = {0, 1, 2, 0, 1, 2, 0},
                                      [8] = {1, 0, 1, 1, 0, 1, 0, 1},
                                      [9] = {0, 0, 0, 0, 0, 1, 1, 2, 2}};
    for (int n = 1; n <= 9; n++) {
        int N = 2;
        while (N < n && (n % N || n / N < 2)) N++; /* the fewest nodes of >= 2 ranks */
        for (int r = 0; r < n; r++) {
            world[r] = r;
            world_node[0][r] = r / DFC_MAX2(1, n / N); /* blocks (no layout below 4 ranks) */
            world_node[1][r] = r % N;                  /* interleaved */
        }
        for (int ci = 0; ci < ncounts; ci++) {
            uint64_t count = counts[ci];
            for (int j = 0; j < n; j++) /* reduce_scatter: uneven, some empty */
                rcounts[j] = count == 0 || j % 4 == 2
                                 ? 0
                                 : (int)(count / 2 + ((uint64_t)j * 37) % (count + 1));
            for (int oi = 0; oi < nops; oi++)
                for (int ai = 0; ai < NALGOS; ai++) {
                    const algo_t *al = &algos[ai];
                    if ((only_algo && !strstr(al->name, only_algo)) ||
                        (only_op && !strstr(ops[oi].name, only_op)))
                        continue;
                    int nroots = al->kind == DFC_COLL_REDUCE ? n : 1;
                    int nlays = n >= 5 && strstr(al->name, "hierarchical") ? 2 : 1;
                    for (int k = 0; k < 4 * nroots * nlays; k++) { /* place, mode, root, lay */
                        int lay = k / (4 * nroots);                /* 1: unequal nodes */
                        coll_sim_case_t c = {
                            .kind = al->kind,
                            .build = al->build,
                            .n = n,
                            .root = k / 4 % nroots,
                            .in_place = k & 1,
                            .count = count,
                            .rcounts = rcounts,
                            .dt = ops[oi].dt,
                            .op = ops[oi].op,
                            .mode = (k >> 1) & 1,
                            .seed = ((((uint64_t)n * 8 + (uint64_t)ci) * 8 + (uint64_t)oi) * 16 +
                                     (uint64_t)ai) *
                                        128 +
                                    (uint64_t)k + 1, /* same when filtered */
                            .world = world,
                            .world_node = lay ? uneven[n] : world_node[(k >> 1) & 1],
                            .gpu = strstr(al->name, "-ring") ? DFC_COLL_GPU_RING : 0,
                        };
                        if (al->usable) {
                            dfc_coll_args_t a;
                            coll_sim_args(&c, 0, &a);
                            int folds = al->kind != DFC_COLL_SCAN &&
                                        al->kind != DFC_COLL_EXSCAN; /* unequal nodes */
                            if (lay && al->usable(&a) != (folds && a.commutative)) {
                                printf("FAIL %s n=%d unequal nodes: usable() said %d\n", al->name,
                                       n, al->usable(&a));
                                failures++;
                            }
                            if (!al->usable(&a)) {
                                skipped++;
                                continue;
                            }
                        }
                        char label[256];
                        snprintf(label, sizeof label,
                                 "FAIL %s n=%d count=%llu %s%s root=%d %s%s seed=%llu", al->name, n,
                                 (unsigned long long)count, ops[oi].name,
                                 c.in_place ? " in_place" : "", c.root, mode_names[c.mode],
                                 lay ? " unequal-nodes" : "", (unsigned long long)c.seed);
                        cases++;
                        if (coll_sim_check(label, &c)) failures++;
                    }
                }
        }
    }
    printf("test_coll_reduce: %ld cases, %ld failed, %ld skipped (algorithm not usable)\n", cases,
           failures, skipped);
    dfc_op_finalize();
    dfc_dtype_finalize();
    return failures ? 1 : 0;
}
