/*
 * dfc_chaos - DFCCL's chaos-order scenario as a demo and benchmark.
 *
 * Eight persistent allreduces (256, 147456, 2048, 1024, 65536, 147456, 524288 and 1048576
 * floats) are prepared once on one communicator. Each iteration, every rank starts all
 * eight in its own permutation (no two ranks share one), then waits for them all. Under a
 * library that runs collectives in issue order (NCCL) this hangs; DFC's scheduler preempts
 * the collectives that wait on a peer and completes them all. The same work is then timed
 * with every rank using the same order, and the overhead of chaos is reported.
 *
 * Usage: dfc_chaos [-iters N] [-warmup N] [-csv]
 * Results are checked every iteration (inputs change per iteration).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfc.h"

#define NCOLL 8
static const int coll_counts[NCOLL] = {256, 147456, 2048, 1024, 65536, 147456, 524288, 1048576};

static float *sendbufs[NCOLL], *recvbufs[NCOLL];
static DFC_Request reqs[NCOLL];
static int rank, size;

static void fill_inputs(int iter)
{
    for (int c = 0; c < NCOLL; c++)
        for (int i = 0; i < coll_counts[c]; i++)
            sendbufs[c][i] = (float)((rank + 1) * (iter % 7 + 1) + (i % 13)); /* exact in float */
}

static int check_results(int iter)
{
    int errs = 0;
    float ranksum = (float)(size * (size + 1) / 2);
    for (int c = 0; c < NCOLL; c++)
        for (int i = 0; i < coll_counts[c]; i++) {
            float want = ranksum * (float)(iter % 7 + 1) + (float)size * (float)(i % 13);
            if (recvbufs[c][i] != want && errs++ < 5)
                fprintf(stderr, "[rank %d] iter %d coll %d [%d]: got %g want %g\n", rank, iter, c,
                        i, recvbufs[c][i], want);
        }
    return errs;
}

/* A permutation of 0..7 for this rank; distinct across ranks for up to 8! ranks. */
static void rank_permutation(int *perm, int chaos, unsigned seed)
{
    for (int i = 0; i < NCOLL; i++) perm[i] = i;
    if (!chaos) return;
    /* Rotate by rank (distinct first element for the first 8 ranks), then shuffle the tail
     * with a rank-dependent seed. */
    int rot = rank % NCOLL;
    for (int i = 0; i < NCOLL; i++) perm[i] = (i + rot) % NCOLL;
    unsigned s = seed * 2654435761u + (unsigned)rank * 40503u + 1;
    for (int i = NCOLL - 1; i > 1; i--) {
        s = s * 1103515245u + 12345u;
        int j = 1 + (int)((s >> 8) % (unsigned)i);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

static double run(int iters, int chaos, int *errs)
{
    int perm[NCOLL];
    DFC_Barrier(DFC_COMM_WORLD);
    double t0 = DFC_Wtime(), busy = 0;
    for (int it = 0; it < iters; it++) {
        double f0 = DFC_Wtime();
        fill_inputs(it);
        rank_permutation(perm, chaos, (unsigned)it);
        busy += DFC_Wtime() - f0;
        for (int k = 0; k < NCOLL; k++) DFC_Start(&reqs[perm[k]]);
        DFC_Waitall(NCOLL, reqs, DFC_STATUSES_IGNORE);
        f0 = DFC_Wtime();
        *errs += check_results(it);
        busy += DFC_Wtime() - f0;
    }
    double t = DFC_Wtime() - t0 - busy;
    double tmax;
    DFC_Allreduce(&t, &tmax, 1, DFC_DOUBLE, DFC_MAX, DFC_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    int iters = 20, warmup = 2, csv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-warmup") && i + 1 < argc) warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-csv")) csv = 1;
    }
    DFC_Init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    for (int c = 0; c < NCOLL; c++) {
        sendbufs[c] = malloc(coll_counts[c] * sizeof(float));
        recvbufs[c] = malloc(coll_counts[c] * sizeof(float));
        DFC_Allreduce_init(sendbufs[c], recvbufs[c], coll_counts[c], DFC_FLOAT, DFC_SUM,
                           DFC_COMM_WORLD, DFC_INFO_NULL, &reqs[c]);
    }
    int errs = 0;
    run(warmup, 0, &errs);
    double t_consistent = run(iters, 0, &errs);
    DFC_Count p0, p1;
    DFC_Get_preemption_count(&p0);
    double t_chaos = run(iters, 1, &errs);
    DFC_Get_preemption_count(&p1);
    double preempt = (double)(p1 - p0), preempt_max, preempt_sum;
    DFC_Allreduce(&preempt, &preempt_sum, 1, DFC_DOUBLE, DFC_SUM, DFC_COMM_WORLD);
    DFC_Allreduce(&preempt, &preempt_max, 1, DFC_DOUBLE, DFC_MAX, DFC_COMM_WORLD);
    int total_errs;
    DFC_Allreduce(&errs, &total_errs, 1, DFC_INT, DFC_SUM, DFC_COMM_WORLD);
    if (rank == 0) {
        double per_coll = preempt_sum / ((double)size * iters * NCOLL);
        double overhead = 100.0 * (t_chaos - t_consistent) / t_consistent;
        if (csv) {
            printf("ranks,iters,consistent_s,chaos_s,overhead_pct,preemptions_per_coll,errors\n");
            printf("%d,%d,%.6f,%.6f,%.2f,%.3f,%d\n", size, iters, t_consistent, t_chaos, overhead,
                   per_coll, total_errs);
        } else {
            printf("DFC chaos-order demo: %d ranks, 8 persistent allreduces per iteration "
                   "(256 .. 1048576 floats), %d iterations\n",
                   size, iters);
            printf(
                "  each rank starts them in its own order (no two ranks alike); NCCL hangs on this\n");
            printf("  %-28s %10.3f ms  (%.3f ms per iteration)\n",
                   "consistent order:", 1e3 * t_consistent, 1e3 * t_consistent / iters);
            printf("  %-28s %10.3f ms  (%.3f ms per iteration)\n", "chaos order:", 1e3 * t_chaos,
                   1e3 * t_chaos / iters);
            printf("  %-28s %10.1f %%\n", "chaos overhead:", overhead);
            printf("  %-28s %10.0f  (%.2f per collective, most on one rank %.0f)\n",
                   "preemptions:", preempt_sum, per_coll, preempt_max);
            printf("  %-28s %s\n",
                   "result:", total_errs ? "WRONG RESULTS" : "completed, every result checked");
        }
    }
    for (int c = 0; c < NCOLL; c++) {
        DFC_Request_free(&reqs[c]);
        free(sendbufs[c]);
        free(recvbufs[c]);
    }
    DFC_Finalize();
    return total_errs ? 1 : 0;
}
