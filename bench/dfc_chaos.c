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
 * Usage: dfc_chaos [-iters N] [-warmup N] [-counts c1,c2,..] [-rounds R] [-chaos-first]
 *                  [-fill-once] [-csv]
 *   -counts   the allreduces (floats each, up to 64 of them; default the eight above)
 *   -rounds   R pairs of timed phases in one run, one CSV line each; the phase timed first
 *             alternates (consistent first in even rounds, unless -chaos-first), so that a
 *             drift of the machine or an advantage of the later phase shows as a difference
 *             between the rounds instead of as an overhead
 *   -fill-once  the inputs are filled once and the results checked after each phase only,
 *             so that no rank reads or writes its buffers between iterations (as in
 *             bench/dfc_sim); a wrong result of an earlier iteration may then go unseen
 * Otherwise results are checked every iteration (inputs change per iteration). The CSV's last columns
 * (round, chaos_first, consistent_preemptions_per_coll) follow the original seven.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfc.h"

#define MAXCOLL 64
static int coll_counts[MAXCOLL] = {256, 147456, 2048, 1024, 65536, 147456, 524288, 1048576};
static int ncoll = 8;

static float *sendbufs[MAXCOLL], *recvbufs[MAXCOLL];
static DFC_Request reqs[MAXCOLL];
static int rank, size;

static void fill_inputs(int iter)
{
    for (int c = 0; c < ncoll; c++)
        for (int i = 0; i < coll_counts[c]; i++)
            sendbufs[c][i] = (float)((rank + 1) * (iter % 7 + 1) + (i % 13)); /* exact in float */
}

static int check_results(int iter)
{
    int errs = 0;
    float ranksum = (float)(size * (size + 1) / 2);
    for (int c = 0; c < ncoll; c++)
        for (int i = 0; i < coll_counts[c]; i++) {
            float want = ranksum * (float)(iter % 7 + 1) + (float)size * (float)(i % 13);
            if (recvbufs[c][i] != want && errs++ < 5)
                fprintf(stderr, "[rank %d] iter %d coll %d [%d]: got %g want %g\n", rank, iter, c,
                        i, recvbufs[c][i], want);
        }
    return errs;
}

/* A permutation of 0..ncoll-1 for this rank; with the default eight, distinct across ranks
 * for up to 8! ranks. bench/dfc_sim's chaos order is this function. */
static void rank_permutation(int *perm, int chaos, unsigned seed)
{
    for (int i = 0; i < ncoll; i++) perm[i] = i;
    if (!chaos || ncoll < 2) return;
    /* Rotate by rank (distinct first element for the first ncoll ranks), then shuffle the
     * tail with a rank-dependent seed. */
    int rot = rank % ncoll;
    for (int i = 0; i < ncoll; i++) perm[i] = (i + rot) % ncoll;
    unsigned s = seed * 2654435761u + (unsigned)rank * 40503u + 1;
    for (int i = ncoll - 1; i > 1; i--) {
        s = s * 1103515245u + 12345u;
        int j = 1 + (int)((s >> 8) % (unsigned)i);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* -fill-once: the inputs of iteration 0 stay, and only each phase's last results are checked,
 * so that no rank touches its buffers between iterations (the simulator's iterations) */
static int fill_once;

static double run(int iters, int chaos, int *errs)
{
    int perm[MAXCOLL];
    if (fill_once) fill_inputs(0);
    DFC_Barrier(DFC_COMM_WORLD);
    double t0 = DFC_Wtime(), busy = 0;
    for (int it = 0; it < iters; it++) {
        double f0 = DFC_Wtime();
        if (!fill_once) fill_inputs(it);
        rank_permutation(perm, chaos, (unsigned)it);
        busy += DFC_Wtime() - f0;
        for (int k = 0; k < ncoll; k++) DFC_Start(&reqs[perm[k]]);
        DFC_Waitall(ncoll, reqs, DFC_STATUSES_IGNORE);
        f0 = DFC_Wtime();
        if (!fill_once) *errs += check_results(it);
        busy += DFC_Wtime() - f0;
    }
    double t = DFC_Wtime() - t0 - busy;
    if (fill_once) *errs += check_results(0);
    double tmax;
    DFC_Allreduce(&t, &tmax, 1, DFC_DOUBLE, DFC_MAX, DFC_COMM_WORLD);
    return tmax;
}

/* One timed phase: its time (the slowest rank's) and the preemptions per collective in it. */
static double timed(int iters, int chaos, int *errs, double *per_coll)
{
    DFC_Count p0, p1;
    DFC_Get_preemption_count(&p0);
    double t = run(iters, chaos, errs);
    DFC_Get_preemption_count(&p1);
    double preempt = (double)(p1 - p0), sum;
    DFC_Allreduce(&preempt, &sum, 1, DFC_DOUBLE, DFC_SUM, DFC_COMM_WORLD);
    *per_coll = sum / ((double)size * iters * ncoll);
    return t;
}

static void print_round(int csv, int round, int chaos_first, int iters, double t_consistent,
                        double t_chaos, double pc_chaos, double pc_consistent, int errs)
{
    double overhead = 100.0 * (t_chaos - t_consistent) / t_consistent;
    if (csv) {
        if (round == 0)
            printf("ranks,iters,consistent_s,chaos_s,overhead_pct,preemptions_per_coll,errors,"
                   "round,chaos_first,consistent_preemptions_per_coll\n");
        printf("%d,%d,%.6f,%.6f,%.2f,%.3f,%d,%d,%d,%.3f\n", size, iters, t_consistent, t_chaos,
               overhead, pc_chaos, errs, round, chaos_first, pc_consistent);
        return;
    }
    if (round == 0) {
        printf("DFC chaos-order demo: %d ranks, %d persistent allreduces per iteration "
               "(%d .. %d floats), %d iterations\n",
               size, ncoll, coll_counts[0], coll_counts[ncoll - 1], iters);
        printf("  each rank starts them in its own order (no two ranks alike); NCCL hangs on "
               "this\n");
    }
    if (round > 0 || chaos_first)
        printf("  round %d (%s timed first)\n", round, chaos_first ? "chaos" : "consistent");
    printf("  %-28s %10.3f ms  (%.3f ms per iteration; %.2f preemptions per collective)\n",
           "consistent order:", 1e3 * t_consistent, 1e3 * t_consistent / iters, pc_consistent);
    printf("  %-28s %10.3f ms  (%.3f ms per iteration; %.2f preemptions per collective)\n",
           "chaos order:", 1e3 * t_chaos, 1e3 * t_chaos / iters, pc_chaos);
    printf("  %-28s %10.1f %%\n", "chaos overhead:", overhead);
    printf("  %-28s %s\n", "result:", errs ? "WRONG RESULTS" : "completed, every result checked");
}

static int parse_counts(const char *s)
{
    int n = 0;
    while (*s && n < MAXCOLL) {
        char *end;
        long c = strtol(s, &end, 10);
        if (end == s || c < 1 || c > (1 << 26) || (*end && *end != ',')) return -1;
        coll_counts[n++] = (int)c;
        s = *end ? end + 1 : end;
    }
    if (*s || n == 0) return -1;
    ncoll = n;
    return 0;
}

int main(int argc, char **argv)
{
    int iters = 20, warmup = 2, csv = 0, rounds = 1, chaos_first = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-warmup") && i + 1 < argc) warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-counts") && i + 1 < argc) {
            if (parse_counts(argv[++i])) {
                fprintf(stderr, "dfc_chaos: -counts takes 1 to %d counts, 1 .. 2^26 each\n",
                        MAXCOLL);
                return 1;
            }
        } else if (!strcmp(argv[i], "-chaos-first")) chaos_first = 1;
        else if (!strcmp(argv[i], "-fill-once")) fill_once = 1;
        else if (!strcmp(argv[i], "-csv")) csv = 1;
    }
    if (iters < 1 || rounds < 1) {
        fprintf(stderr, "dfc_chaos: -iters and -rounds must be positive\n");
        return 1;
    }
    DFC_Init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    for (int c = 0; c < ncoll; c++) {
        sendbufs[c] = malloc(coll_counts[c] * sizeof(float));
        recvbufs[c] = malloc(coll_counts[c] * sizeof(float));
        DFC_Allreduce_init(sendbufs[c], recvbufs[c], coll_counts[c], DFC_FLOAT, DFC_SUM,
                           DFC_COMM_WORLD, DFC_INFO_NULL, &reqs[c]);
    }
    int errs = 0, total_errs = 0;
    run(warmup, 0, &errs);
    for (int r = 0; r < rounds; r++) {
        int first = (r & 1) ^ chaos_first;
        double t_consistent = 0, t_chaos = 0, pc_consistent = 0, pc_chaos = 0;
        for (int phase = 0; phase < 2; phase++) {
            if (phase == first) t_chaos = timed(iters, 1, &errs, &pc_chaos);
            else t_consistent = timed(iters, 0, &errs, &pc_consistent);
        }
        DFC_Allreduce(&errs, &total_errs, 1, DFC_INT, DFC_SUM, DFC_COMM_WORLD);
        if (rank == 0)
            print_round(csv, r, first, iters, t_consistent, t_chaos, pc_chaos, pc_consistent,
                        total_errs);
    }
    for (int c = 0; c < ncoll; c++) {
        DFC_Request_free(&reqs[c]);
        free(sendbufs[c]);
        free(recvbufs[c]);
    }
    DFC_Finalize();
    return total_errs ? 1 : 0;
}
