/*
 * dfc_bench_rma.c - one-sided latency through DFC and through the anchor (Open MPI) in one
 * run, in the shapes of OSU's osu_put_latency / osu_get_latency: rank 0 accesses rank 1's
 * window (Win_allocate, disp_unit 1), the other ranks only join the collective calls.
 *   put_lock   per iteration: lock(shared) 1, Put, unlock 1       (osu -s lock)
 *   put_flush  lock once; per iteration: Put, flush 1             (osu -s flush)
 *   get_flush  lock once; per iteration: Get, flush 1             (osu -s flush)
 *   put_fence  per iteration: rank 0 Puts, every rank fences      (osu -s fence)
 * Printed: the mean time of one iteration (microseconds) per size, for DFC and the anchor,
 * and their ratio; the two libraries alternate size by size so that drift hits both.
 *
 *   mpirun -n 2 bench/dfc_bench_rma [-maxsize 1M] [-iters 1000] [-workloads put_lock,...]
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

/* One workload at one size through one library: mean microseconds per iteration (rank 0). */
static double run(const rma_lib_t *l, const char *wl, int bytes, int iters, char *buf)
{
    void *base;
    double t0 = 0;
    int origin = l->rank == 0, fence = !strcmp(wl, "put_fence");
    int flush = !strcmp(wl, "put_flush") || !strcmp(wl, "get_flush");
    l->win_allocate((size_t)bytes, &base);
    memset(base, 0, (size_t)bytes);
    l->barrier();
    if (fence) l->fence();
    if (origin && flush) l->lock(1);
    int warm = iters / 10 + 1;
    for (int i = 0; i < warm + iters; i++) {
        if (i == warm) t0 = now_us();
        if (fence) {
            if (origin) l->put(buf, bytes, 1);
            l->fence();
        } else if (!origin) continue;
        else if (flush) {
            if (wl[0] == 'g') l->get(buf, bytes, 1);
            else l->put(buf, bytes, 1);
            l->flush(1);
        } else {
            l->lock(1);
            l->put(buf, bytes, 1);
            l->unlock(1);
        }
    }
    double t = (now_us() - t0) / iters;
    if (origin && flush) l->unlock(1);
    l->barrier();
    l->win_free();
    return t;
}

int main(int argc, char **argv)
{
    long maxsize = 1 << 20;
    int iters = 1000;
    const char *wls = "put_lock,put_flush,get_flush,put_fence";
    DFC_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-maxsize")) maxsize = bench_parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "-iters")) iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-workloads")) wls = argv[i + 1];
    }
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
        printf("# mean microseconds per iteration (rank 0 -> rank 1); ratio = DFC / anchor\n");
        printf("%-10s %10s %12s %12s %8s\n", "workload", "bytes", "DFC_us", "anchor_us", "ratio");
    }
    const char *all[] = {"put_lock", "put_flush", "get_flush", "put_fence"};
    for (int w = 0; w < 4; w++) {
        if (!bench_in_list(wls, all[w])) continue;
        for (long b = 8; b <= maxsize; b *= 8) {
            int it = (int)(b >= 65536 ? iters / 10 + 10 : iters);
            double td = run(&dlib, all[w], (int)b, it, buf);
            double ta = anchor ? run(anchor, all[w], (int)b, it, buf) : 0;
            if (dlib.rank == 0) {
                if (anchor) printf("%-10s %10ld %12.2f %12.2f %8.2f\n", all[w], b, td, ta, td / ta);
                else printf("%-10s %10ld %12.2f %12s %8s\n", all[w], b, td, "-", "-");
                fflush(stdout);
            }
        }
    }
    free(buf);
    if (anchor) anchor->finalize();
    DFC_Finalize();
    return 0;
}
