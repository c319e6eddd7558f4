/*
 * chaos - DFCCL's chaos-order test: 8 persistent allreduces (SUM) of 256, 147456, 2048,
 * 1024, 65536, 147456, 524288 and 1048576 floats on one communicator, started on every rank
 * in its own order (no two ranks share an order, and the orders change every iteration),
 * then completed with one DFC_Waitall; -iters=N iterations (default 200), results checked
 * every iteration (the inputs depend on the iteration). -consistent starts them in the same
 * order everywhere (for comparison with an implementation that needs that); -scale=D
 * divides every size by D (for quick runs); -watchdog=S.
 *
 * Persistent collectives match by the order of their _init calls, so their Starts may
 * come in any order (DESIGN.md 1.3); with ring-style algorithms, a rank that ran its
 * collectives in its own start order, each to completion, would wait forever for peers
 * running a different one first: only preemption makes this complete.
 */
#include "dltest.h"

#define NOPS 8
static const int sizes[NOPS] = {256, 147456, 2048, 1024, 65536, 147456, 524288, 1048576};

/* Input element i of op k on rank r at iteration t: a(r, t, k) + (i & 15), small integers,
 * so sums are exact and the expected value is cheap: sum_r a(r, t, k) + n * (i & 15). */
static inline int a_of(int r, int t, int k) { return (r * 3 + t * 5 + k * 7) % 11; }

/* The start order of rank r at iteration t: a base order rotated by r, then shuffled
 * with (r, t); collisions between ranks are resolved by reshuffling the later rank, so
 * every rank can compute every rank's order (and all are distinct when n <= 8! ). */
static void order_of(int r, int t, int n, int consistent, int *ord)
{
    static const int base[NOPS] = {3, 0, 6, 1, 7, 4, 2, 5};
    int(*all)[NOPS] = ct_malloc((size_t)(r + 1) * sizeof *all);
    for (int q = 0; q <= r; q++) {
        for (unsigned salt = 0;; salt++) {
            unsigned s = ct_seed(q, (unsigned)t, 100 + salt);
            for (int i = 0; i < NOPS; i++) all[q][i] = base[(i + q) % NOPS];
            if (consistent) {
                for (int i = 0; i < NOPS; i++) all[q][i] = i;
                break;
            }
            for (int i = NOPS - 1; i > 0; i--) {
                int j = (int)(dfct_rand(&s) % (unsigned)(i + 1)), x = all[q][i];
                all[q][i] = all[q][j], all[q][j] = x;
            }
            int clash = 0;
            for (int p = 0; p < q && !clash; p++) clash = !memcmp(all[p], all[q], sizeof all[q]);
            if (!clash) break;
        }
    }
    memcpy(ord, all[r], sizeof all[r]);
    free(all);
    (void)n;
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    dl_watchdog(argc, argv, "chaos");
    int iters = (int)ct_opt(argc, argv, "iters", 200);
    int consistent = ct_flag(argc, argv, "consistent");
    int scale = (int)ct_opt(argc, argv, "scale", 1);
    if (scale < 1) scale = 1;
    int n = ct_size, r = ct_rank;
    DFC_Comm comm;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));

    float *sbuf[NOPS], *rbuf[NOPS];
    int cnt[NOPS];
    DFC_Request reqs[NOPS], sorted[NOPS];
    for (int k = 0; k < NOPS; k++) {
        cnt[k] = sizes[k] / scale > 0 ? sizes[k] / scale : 1;
        sbuf[k] = ct_malloc(cnt[k] * sizeof(float));
        rbuf[k] = ct_malloc(cnt[k] * sizeof(float));
        DFCT_OK(DFC_Allreduce_init(sbuf[k], rbuf[k], cnt[k], DFC_FLOAT, DFC_SUM, comm,
                                   DFC_INFO_NULL, &reqs[k]));
    }
    if (!consistent && n <= 8) { /* the orders of one iteration are pairwise distinct */
        int(*all)[NOPS] = ct_malloc((size_t)n * sizeof *all);
        for (int q = 0; q < n; q++) order_of(q, 0, n, 0, all[q]);
        for (int p = 0; p < n; p++)
            for (int q = 0; q < p; q++)
                DFCT_CHECK(memcmp(all[p], all[q], sizeof all[p]),
                           "ranks %d and %d share a start order", q, p);
        free(all);
    }
    int ord[NOPS];
    for (int t = 0; t < iters; t++) {
        for (int k = 0; k < NOPS; k++) {
            float a = (float)a_of(r, t, k);
            float *s = sbuf[k];
            for (int i = 0; i < cnt[k]; i++) s[i] = a + (float)(i & 15);
            memset(rbuf[k], 0xff, cnt[k] * sizeof(float));
        }
        order_of(r, t, n, consistent, ord);
        for (int i = 0; i < NOPS; i++) DFCT_OK(DFC_Start(&reqs[ord[i]]));
        dl_phase("waitall");
        /* Waitall over the requests in start order (the array order does not matter). */
        for (int i = 0; i < NOPS; i++) sorted[i] = reqs[ord[i]];
        DFCT_OK(DFC_Waitall(NOPS, sorted, DFC_STATUSES_IGNORE));
        dl_phase("checking");
        for (int k = 0; k < NOPS; k++) {
            int sa = 0;
            for (int q = 0; q < n; q++) sa += a_of(q, t, k);
            const float *g = rbuf[k];
            for (int i = 0; i < cnt[k]; i++) {
                float e = (float)sa + (float)(n * (i & 15));
                if (g[i] != e) {
                    DFCT_CHECK(
                        0,
                        "iteration %d, allreduce %d (%d floats, started %s): element %d is %g, expected %g",
                        t, k, cnt[k], consistent ? "in order" : "in chaos order", i, (double)g[i],
                        (double)e);
                    break;
                }
            }
        }
        if (dfct_errs > 20) break;
    }
    for (int k = 0; k < NOPS; k++) {
        DFCT_OK(DFC_Request_free(&reqs[k]));
        free(sbuf[k]), free(rbuf[k]);
    }
    DFCT_OK(DFC_Comm_free(&comm));
    dl_watchdog_off();
    return dfct_finalize();
}
