/*
 * dfc_bench_rma.c - one-sided latency through DFC and through the anchor (Open MPI) in one
 * run, in the shapes of OSU's osu_put_latency / osu_get_latency / osu_acc_latency: rank 0
 * accesses rank 1's window (Win_allocate, disp_unit 1), the other ranks only join the
 * collective calls. A workload is <op>_<sync>, op one of
 *   put, get   bytes of DFC_BYTE at displacement 0
 *   acc        Accumulate of bytes/8 doubles with DFC_SUM
 * and sync one of
 *   lock       per iteration: lock(shared) 1, op, unlock 1        (osu -s lock)
 *   flush      lock once; per iteration: op, flush 1              (osu -s flush)
 *   fence      per iteration: rank 0 does op, every rank fences   (osu -s fence)
 * Each (workload, size) is measured -reps times through each library, the two libraries
 * alternating (and which goes first alternating too) so that drift hits both; printed: the
 * median over reps of the mean time of one iteration (microseconds) for DFC and the anchor,
 * their ratio, and the fastest rep of each (to read the noise against).
 *
 *   mpirun -n 2 bench/dfc_bench_rma [-maxsize 1M] [-iters 1000] [-reps 5]
 *                                   [-workloads put_lock,...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "dfc.h"
#include "dfc_bench_rma.h"

static rma_lib_t dlib;
static DFC_Win dwin = DFC_WIN_NULL;

static int d_barrier(void) { return DFC_Barrier(DFC_COMM_WORLD); }
static int d_win_allocate(size_t bytes, void **base)
{
    return DFC_Win_allocate((DFC_Aint)bytes, 1, DFC_INFO_NULL, DFC_COMM_WORLD, base, &dwin);
}
static int d_win_free(void) { return DFC_Win_free(&dwin); }
static int d_lock(int r) { return DFC_Win_lock(DFC_LOCK_SHARED, r, 0, dwin); }
static int d_unlock(int r) { return DFC_Win_unlock(r, dwin); }
static int d_flush(int r) { return DFC_Win_flush(r, dwin); }
static int d_fence(void) { return DFC_Win_fence(0, dwin); }
static int d_put(const void *b, int n, int t)
{
    return DFC_Put(b, n, DFC_BYTE, t, 0, n, DFC_BYTE, dwin);
}
static int d_get(void *b, int n, int t) { return DFC_Get(b, n, DFC_BYTE, t, 0, n, DFC_BYTE, dwin); }
static int d_acc(const double *b, int n, int t)
{
    return DFC_Accumulate(b, n, DFC_DOUBLE, t, 0, n, DFC_DOUBLE, DFC_SUM, dwin);
}
static int d_finalize(void) { return DFC_Finalize(); }

#ifndef DFC_BENCH_ANCHOR
const rma_lib_t *rma_anchor_init(int *argc, char ***argv, char *why, int whylen)
{
    (void)argc, (void)argv;
    snprintf(why, whylen, "configure found no mpicc");
    return NULL;
}
#endif

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The operation of workload wl (put_, get_ or acc_) on bytes bytes of target 1. */
static void op(const rma_lib_t *l, const char *wl, char *buf, int bytes)
{
    if (wl[0] == 'p') l->put(buf, bytes, 1);
    else if (wl[0] == 'g') l->get(buf, bytes, 1);
    else l->acc((const double *)buf, bytes / 8, 1);
}

/* One workload at one size through one library: mean microseconds per iteration (rank 0). */
static double run(const rma_lib_t *l, const char *wl, int bytes, int iters, char *buf)
{
    void *base;
    double t0 = 0;
    const char *sync = strchr(wl, '_') + 1;
    int origin = l->rank == 0, fence = !strcmp(sync, "fence"), flush = !strcmp(sync, "flush");
    l->win_allocate((size_t)bytes, &base);
    memset(base, 0, (size_t)bytes);
    l->barrier();
    if (fence) l->fence();
    if (origin && flush) l->lock(1);
    int warm = iters / 10 + 1;
    for (int i = 0; i < warm + iters; i++) {
        if (i == warm) t0 = now_us();
        if (fence) {
            if (origin) op(l, wl, buf, bytes);
            l->fence();
        } else if (!origin) continue;
        else if (flush) {
            op(l, wl, buf, bytes);
            l->flush(1);
        } else {
            l->lock(1);
            op(l, wl, buf, bytes);
            l->unlock(1);
        }
    }
    double t = (now_us() - t0) / iters;
    if (origin && flush) l->unlock(1);
    l->barrier();
    l->win_free();
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of t[0..n) (sorts t); t[0] is then the minimum. */
static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

#define MAX_REPS 64

/* Every size of one workload: reps alternating runs per library, medians printed. */
static void one_workload(const rma_lib_t *anchor, const char *wl, long maxsize, int iters, int reps,
                         char *buf)
{
    for (long b = 8; b <= maxsize; b = b * 8 > maxsize && b < maxsize ? maxsize : b * 8) {
        int it = (int)(b >= 65536 ? iters / 10 + 10 : iters);
        double td[MAX_REPS], ta[MAX_REPS];
        for (int r = 0; r < reps; r++) {
            int afirst = anchor && r % 2;
            if (afirst) ta[r] = run(anchor, wl, (int)b, it, buf);
            td[r] = run(&dlib, wl, (int)b, it, buf);
            if (anchor && !afirst) ta[r] = run(anchor, wl, (int)b, it, buf);
        }
        if (dlib.rank != 0) continue;
        double md = median(td, reps), ma = anchor ? median(ta, reps) : 0;
        if (anchor)
            printf("%-10s %8ld %10.3f %10.3f %7.2f %10.3f %10.3f\n", wl, b, md, ma, md / ma, td[0],
                   ta[0]);
        else printf("%-10s %8ld %10.3f %10s %7s %10.3f %10s\n", wl, b, md, "-", "-", td[0], "-");
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    long maxsize = 1 << 20;
    int iters = 1000, reps = 5;
    const char *wls = "put_fence,get_fence,acc_fence,put_lock,get_lock,acc_lock,put_flush,"
                      "get_flush,acc_flush";
    DFC_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-maxsize")) maxsize = bench_parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "-iters")) iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-workloads")) wls = argv[i + 1];
    }
    if (reps < 1) reps = 1;
    if (reps > MAX_REPS) reps = MAX_REPS;
    if (maxsize < 8) maxsize = 8;
    dlib = (rma_lib_t){.name = "DFC",
                       .barrier = d_barrier,
                       .win_allocate = d_win_allocate,
                       .win_free = d_win_free,
                       .lock = d_lock,
                       .unlock = d_unlock,
                       .flush = d_flush,
                       .fence = d_fence,
                       .put = d_put,
                       .get = d_get,
                       .acc = d_acc,
                       .finalize = d_finalize};
    DFC_Comm_rank(DFC_COMM_WORLD, &dlib.rank);
    DFC_Comm_size(DFC_COMM_WORLD, &dlib.size);
    char why[256] = "";
    const rma_lib_t *anchor = rma_anchor_init(&argc, &argv, why, sizeof why);
    if (dlib.size < 2) {
        if (dlib.rank == 0) fprintf(stderr, "dfc_bench_rma needs 2 or more processes\n");
        if (anchor) anchor->finalize();
        DFC_Finalize();
        return 1;
    }
    char *buf = calloc(1, (size_t)maxsize);
    if (dlib.rank == 0) {
        printf("# dfc_bench_rma: %d processes; anchor: %s\n", dlib.size,
               anchor ? anchor->version : why);
        printf("# microseconds per iteration (rank 0 -> rank 1): median over %d reps of the "
               "mean of %d iterations (a tenth above 64 KiB); ratio = DFC / anchor; min = "
               "fastest rep\n",
               reps, iters);
        printf("%-10s %8s %10s %10s %7s %10s %10s\n", "workload", "bytes", "DFC_us", "anchor_us",
               "ratio", "DFC_min", "anchor_min");
    }
    const char *all[] = {"put_fence", "get_fence", "acc_fence", "put_lock", "get_lock",
                         "acc_lock",  "put_flush", "get_flush", "acc_flush"};
    for (int w = 0; w < (int)(sizeof all / sizeof *all); w++)
        if (bench_in_list(wls, all[w])) one_workload(anchor, all[w], maxsize, iters, reps, buf);
    free(buf);
    if (anchor) anchor->finalize();
    DFC_Finalize();
    return 0;
}
