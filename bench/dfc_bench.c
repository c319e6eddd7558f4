/*
 * dfc_bench - runs the same host-buffer workloads through DFC and through the anchor (Open
 * MPI, when configure found mpicc) in one process, and prints the ratio.
 *
 * Workloads: allreduce (float sum), allgather, reduce_scatter_block (float sum), bcast,
 * alltoall, alltoallv (uneven counts), p2p ping-pong latency, p2p uni-directional bandwidth
 * (osu_bw: a window of nonblocking sends, then an ack) and nonblocking allreduce with the
 * osu_iallreduce overlap measurement; on request, ping-pong and allgather of a stride-2
 * vector type (derived datatypes), and a nonblocking exchange with the same overlap
 * measurement (rendezvous point-to-point moved by the progress thread).
 *
 * Method (the same for both libraries, same buffers, same timer):
 *   - sizes from -minsize to -maxsize, doubling; at each size DFC and the anchor run one
 *     batch each, alternating which goes first;
 *   - a batch: fill the inputs, barrier, warm-up iterations, barrier, then every iteration is
 *     timed on its own (CLOCK_MONOTONIC); results are checked after the batch;
 *   - iteration i's time is the max over ranks of rank-local time i; the table gives median
 *     and mean over iterations; algbw = bytes / median, busbw = algbw * the nccl-tests
 *     factor (allreduce 2(n-1)/n; allgather, reduce_scatter, alltoall(v) (n-1)/n; bcast 1);
 *   - "bytes" follows nccl-tests: the whole buffer (allgather: the gathered output,
 *     reduce_scatter: the input, alltoall: what one rank sends); ping-pong: one-way latency
 *     (half the round trip); bandwidth: time per message inside the window;
 *   - iteration counts scale down above 64 KiB (iters * 64 KiB / bytes, at least 20), and
 *     further (to at least 5) where one probe iteration says that the batch would take more
 *     than -maxtime seconds (default 2): an oversubscribed or loaded machine stays usable;
 *   - -off_cache B (as IMB's -off_cache): before every timed iteration each rank writes B
 *     bytes of its own and the ranks meet in a barrier, neither timed, so that every timed
 *     call finds its buffers out of the caches, as an application's large buffers mostly are
 *     and as staged device buffers always are (DMA); the batch is cut to fit -maxtime with
 *     the eviction counted;
 *   - iallreduce: t_pure = Iallreduce + Wait; then Iallreduce, a compute loop of t_pure
 *     (calibrated in CPU time), Wait; overlap = 100 * max(0, 1 - (t_total - t_compute) /
 *     t_pure), from per-rank means averaged over ranks (as osu_iallreduce does). No test
 *     calls during compute: only a progress thread (DFC_ASYNC_PROGRESS=1, read at DFC_Init)
 *     can advance the operation meanwhile. iexchange: the same with Irecv and Isend of
 *     `bytes` between the pairs r <-> r^1 and Waitall (an odd last rank sits out). The
 *     time left beside the computation (t_total - t_compute) is printed in its two parts,
 *     DFC's start call and its wait after the computation (means, averaged over ranks): a
 *     slow start is the call's own cost, a long wait an operation the thread had not
 *     finished within t_pure.
 * Memory: VmRSS growth (and its anon/shmem/file parts) from just before DFC_Init to after a
 * warm-up of every workload at every size, per rank; then the same for the anchor around
 * MPI_Init (DFC goes first so that its figure includes the PMIx client it starts; the
 * anchor's therefore does not). The benchmark's own buffers are touched before either. The
 * "trimmed" figure is the growth left after malloc_trim(0): the rest is memory the library
 * freed but malloc kept (scratch buffers of large collectives, for instance).
 *
 * Usage: dfc_bench [-minsize B] [-maxsize B] [-iters N] [-warmup N] [-maxtime S] [-window N]
 *                  [-off_cache B] [-workloads a,b,...] [-noanchor] [-dup] [-csv FILE]
 *                  [-json FILE] [-quiet]
 * -dup: DFC's workloads run on a dup of DFC_COMM_WORLD (the anchor's stay on MPI_COMM_WORLD).
 * Sizes accept K, M, G suffixes. Workload names: allreduce allgather reduce_scatter bcast
 * alltoall alltoallv pingpong bw iallreduce barrier (default: all), and, only when named,
 * vpingpong and vallgather: a stride-2 vector of doubles (issue 17's non-contiguous case), and
 * iexchange.
 */
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dfc.h"
#include "bench_util.h"
#include "dfc_bench.h"

/* ---- Workloads ---------------------------------------------------------------------------- */
enum {
    W_ALLREDUCE,
    W_ALLGATHER,
    W_REDUCE_SCATTER,
    W_BCAST,
    W_ALLTOALL,
    W_ALLTOALLV,
    W_PINGPONG,
    W_BW,
    W_IALLREDUCE,
    W_BARRIER,   /* one row, at the smallest size (issue 16) */
    W_VPINGPONG, /* from here on: only when named in -workloads (not in "all") */
    W_VALLGATHER,
    W_IEXCHANGE,
    W_COUNT
};
#define W_FIRST_OPTIN W_VPINGPONG

static const struct {
    const char *name, *title, *busbw_note;
} wl[W_COUNT] = {
    {"allreduce", "allreduce (float sum)", "busbw = algbw * 2(n-1)/n"},
    {"allgather", "allgather (bytes = gathered output)", "busbw = algbw * (n-1)/n"},
    {"reduce_scatter", "reduce_scatter_block (float sum, bytes = input)",
     "busbw = algbw * (n-1)/n"},
    {"bcast", "bcast (root 0)", "busbw = algbw"},
    {"alltoall", "alltoall (bytes = sent per rank)", "busbw = algbw * (n-1)/n"},
    {"alltoallv", "alltoallv (uneven: rank r sends p 2(1+(r+p)%n)/(n+1) shares)",
     "busbw = algbw * (n-1)/n"},
    {"pingpong", "p2p ping-pong latency (one way; pairs r <-> r^1 concurrently)",
     "busbw = bytes / time"},
    {"bw", "p2p uni-directional bandwidth (osu_bw window; time per message)",
     "busbw = bytes / time"},
    {"iallreduce", "nonblocking allreduce: Iallreduce+Wait (pure) and overlap (osu_iallreduce)",
     "overlap %"},
    {"barrier", "barrier (one row, at the smallest size; bytes 0)", "busbw = 0"},
    {"vpingpong", "p2p ping-pong of a stride-2 vector of doubles (bytes = payload; one way)",
     "busbw = bytes / time"},
    {"vallgather", "allgather of a stride-2 vector of doubles (bytes = gathered payload)",
     "busbw = algbw * (n-1)/n"},
    {"iexchange",
     "nonblocking exchange r <-> r^1: Irecv+Isend+Waitall (pure) and overlap (as iallreduce)",
     "overlap %"},
};

/* The workloads measured with a compute phase between start and wait (overlap). */
static int is_overlap(int w) { return w == W_IALLREDUCE || w == W_IEXCHANGE; }

static double busbw_factor(int w, int n)
{
    switch (w) {
    case W_ALLREDUCE:
    case W_IALLREDUCE: return 2.0 * (n - 1) / n;
    case W_ALLGATHER:
    case W_REDUCE_SCATTER:
    case W_ALLTOALL:
    case W_VALLGATHER:
    case W_ALLTOALLV: return (double)(n - 1) / n;
    default: return 1.0;
    }
}

/* ---- Options and state -------------------------------------------------------------------- */
static long minsize = 8, maxsize = 16L << 20;
static long opt_iters = 1000, opt_warmup = 100, min_iters = 20;
static double maxtime_us = 2e6; /* a batch's target length; slow iterations get fewer */
static int window = BENCH_MAX_WINDOW, use_anchor = 1, quiet = 0;
static int selected[W_COUNT];
static const char *csv_path, *json_path;

static int rank, nranks, async_progress;
static unsigned char *sbuf, *rbuf;
static int *scounts, *sdispls, *rcounts, *rdispls;
static const bench_lib_t *libs[2]; /* DFC, anchor (NULL when not available) */
static char anchor_why[256] = "configure found no mpicc";

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static long scaled(long base, long bytes, long at_least)
{
    if (bytes <= 65536) return base;
    long n = (long)((double)base * 65536.0 / (double)bytes);
    return n < at_least ? at_least : n;
}

/* ---- The DFC half of the table ------------------------------------------------------------ */
static DFC_Request dreqs[BENCH_MAX_WINDOW], direq = DFC_REQUEST_NULL;
/* The communicator of DFC's workloads: DFC_COMM_WORLD, or with -dup a dup of it (what a
 * library that works on its own communicator gets; the shm slots serve both, issue 16). */
static DFC_Comm dcomm = DFC_COMM_WORLD;
static int opt_dup;

static int d_barrier(void) { return DFC_Barrier(dcomm); }
static DFC_Request dbreq = DFC_REQUEST_NULL;
static int d_ibarrier_start(void) { return DFC_Ibarrier(dcomm, &dbreq); }
static int d_ibarrier_test(int *done) { return DFC_Test(&dbreq, done, DFC_STATUS_IGNORE); }
static void d_poke(void)
{
    int flag;
    DFC_Iprobe(DFC_ANY_SOURCE, DFC_ANY_TAG, dcomm, &flag, DFC_STATUS_IGNORE);
}
static int d_allreduce(const float *s, float *r, int n)
{
    return DFC_Allreduce(s, r, n, DFC_FLOAT, DFC_SUM, dcomm);
}
static int d_allgather(const void *s, void *r, int b)
{
    return DFC_Allgather(s, b, DFC_BYTE, r, b, DFC_BYTE, dcomm);
}
static int d_reduce_scatter_block(const float *s, float *r, int n)
{
    return DFC_Reduce_scatter_block(s, r, n, DFC_FLOAT, DFC_SUM, dcomm);
}
static int d_bcast(void *buf, int b, int root) { return DFC_Bcast(buf, b, DFC_BYTE, root, dcomm); }
static int d_alltoall(const void *s, void *r, int b)
{
    return DFC_Alltoall(s, b, DFC_BYTE, r, b, DFC_BYTE, dcomm);
}
static int d_alltoallv(const void *s, const int *sc, const int *sd, void *r, const int *rc,
                       const int *rd)
{
    return DFC_Alltoallv(s, sc, sd, DFC_BYTE, r, rc, rd, DFC_BYTE, dcomm);
}
static int d_send(const void *buf, int b, int dest, int tag)
{
    return DFC_Send(buf, b, DFC_BYTE, dest, tag, dcomm);
}
static int d_recv(void *buf, int b, int src, int tag)
{
    return DFC_Recv(buf, b, DFC_BYTE, src, tag, dcomm, DFC_STATUS_IGNORE);
}
static int d_send_window(const void *buf, int b, int dest, int tag, int w)
{
    for (int i = 0; i < w; i++) DFC_Isend(buf, b, DFC_BYTE, dest, tag, dcomm, &dreqs[i]);
    return DFC_Waitall(w, dreqs, DFC_STATUSES_IGNORE);
}
static int d_recv_window(void *buf, int b, int src, int tag, int w)
{
    for (int i = 0; i < w; i++) DFC_Irecv(buf, b, DFC_BYTE, src, tag, dcomm, &dreqs[i]);
    return DFC_Waitall(w, dreqs, DFC_STATUSES_IGNORE);
}
static int d_iallreduce_start(const float *s, float *r, int n)
{
    return DFC_Iallreduce(s, r, n, DFC_FLOAT, DFC_SUM, dcomm, &direq);
}
static int d_iallreduce_wait(void) { return DFC_Wait(&direq, DFC_STATUS_IGNORE); }
static DFC_Request dxreq[2];
static int d_iexchange_start(const void *s, void *r, int b, int partner, int tag)
{
    return DFC_Irecv(r, b, DFC_BYTE, partner, tag, dcomm, &dxreq[0]) |
           DFC_Isend(s, b, DFC_BYTE, partner, tag, dcomm, &dxreq[1]);
}
static int d_iexchange_wait(void) { return DFC_Waitall(2, dxreq, DFC_STATUSES_IGNORE); }
/* The stride-2 vector of n doubles, and the same resized to 2n doubles, made once per n. */
static DFC_Datatype dvec, dvec_resized;
static int dvec_n = -1;
static void d_vec_types(int n)
{
    if (n == dvec_n) return;
    if (dvec_n >= 0) {
        DFC_Type_free(&dvec);
        DFC_Type_free(&dvec_resized);
    }
    DFC_Type_vector(n, 1, 2, DFC_DOUBLE, &dvec);
    DFC_Type_create_resized(dvec, 0, (DFC_Aint)(2 * sizeof(double)) * n, &dvec_resized);
    DFC_Type_commit(&dvec);
    DFC_Type_commit(&dvec_resized);
    dvec_n = n;
}
static int d_send_vec(const double *buf, int n, int dest, int tag)
{
    d_vec_types(n);
    return DFC_Send(buf, 1, dvec, dest, tag, dcomm);
}
static int d_recv_vec(double *buf, int n, int src, int tag)
{
    d_vec_types(n);
    return DFC_Recv(buf, 1, dvec, src, tag, dcomm, DFC_STATUS_IGNORE);
}
static int d_allgather_vec(const double *s, double *r, int n)
{
    d_vec_types(n);
    return DFC_Allgather(s, 1, dvec, r, 1, dvec_resized, dcomm);
}
static int d_finalize(void) { return DFC_Finalize(); }

static bench_lib_t dfc_lib = {
    .name = "DFC",
    .barrier = d_barrier,
    .ibarrier_start = d_ibarrier_start,
    .ibarrier_test = d_ibarrier_test,
    .poke = d_poke,
    .allreduce_float = d_allreduce,
    .allgather_bytes = d_allgather,
    .reduce_scatter_block_float = d_reduce_scatter_block,
    .bcast_bytes = d_bcast,
    .alltoall_bytes = d_alltoall,
    .alltoallv_bytes = d_alltoallv,
    .send_bytes = d_send,
    .recv_bytes = d_recv,
    .send_window = d_send_window,
    .recv_window = d_recv_window,
    .iallreduce_start = d_iallreduce_start,
    .iallreduce_wait = d_iallreduce_wait,
    .iexchange_start = d_iexchange_start,
    .iexchange_wait = d_iexchange_wait,
    .send_vec = d_send_vec,
    .recv_vec = d_recv_vec,
    .allgather_vec = d_allgather_vec,
    .finalize = d_finalize,
};

#ifndef DFC_BENCH_ANCHOR
const bench_lib_t *bench_anchor_init(int *argc, char ***argv, char *why, int whylen)
{
    (void)argc, (void)argv, (void)why, (void)whylen;
    return NULL;
}
#endif

/* ---- The compute loop for the overlap measurement ----------------------------------------- */
static volatile double compute_sink;
static double loops_per_us;

static void compute_loops(long n)
{
    double a = compute_sink + 1.0;
    for (long i = 0; i < n; i++) a = a * 1.0000001 + 1e-9;
    compute_sink = a;
}

static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* Loops per microsecond of CPU time (so that a rank that shares its core still gets the
 * amount of work it asked for); the best of several trials. */
static void calibrate_compute(void)
{
    long n = 1000000;
    double best = 0;
    for (int t = 0; t < 5; t++) {
        double c0 = cpu_us();
        compute_loops(n);
        double dt = cpu_us() - c0;
        if (dt > 0 && n / dt > best) best = n / dt;
    }
    loops_per_us = best > 0 ? best : 100;
}

static void compute_for(double us) { compute_loops((long)(us * loops_per_us)); }

/* ---- Memory ------------------------------------------------------------------------------- */
typedef struct {
    long rss, anon, shmem, file, trimmed;
} mem_t; /* KiB; trimmed: rss after malloc_trim(0) */

static mem_t read_mem(void)
{
    mem_t m = {0, 0, 0, 0, 0};
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return m;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        sscanf(line, "VmRSS: %ld", &m.rss);
        sscanf(line, "RssAnon: %ld", &m.anon);
        sscanf(line, "RssFile: %ld", &m.file);
        sscanf(line, "RssShmem: %ld", &m.shmem);
    }
    fclose(f);
    return m;
}

/* ---- One workload at one size ------------------------------------------------------------- */
typedef struct {
    int w;
    long bytes;  /* as reported (see the top comment) */
    int count;   /* floats or bytes per call argument */
    int partner; /* p2p: rank ^ 1, or -1 when this rank sits out */
    int win;     /* bw: messages per window */
} job_t;

/* Sets up the job for a nominal size; returns 0 when the size does not apply (too small to
 * give every rank an element). */
static int job_setup(job_t *j, int w, long size)
{
    int n = nranks;
    j->w = w;
    j->partner = (rank ^ 1) < n ? (rank ^ 1) : -1;
    j->win = 1;
    switch (w) {
    case W_ALLREDUCE:
    case W_IALLREDUCE:
        j->count = (int)(size / 4);
        j->bytes = 4L * j->count;
        break;
    case W_REDUCE_SCATTER:
        j->count = (int)(size / (4L * n));
        j->bytes = 4L * j->count * n;
        break;
    case W_ALLGATHER:
    case W_ALLTOALL:
        j->count = (int)(size / n);
        j->bytes = (long)j->count * n;
        break;
    case W_ALLTOALLV: {
        int chunk = (int)(size / n);
        j->count = chunk;
        j->bytes = (long)chunk * n;
        int so = 0, ro = 0;
        for (int p = 0; p < n; p++) {
            scounts[p] = (int)((long)chunk * 2 * (1 + (rank + p) % n) / (n + 1));
            rcounts[p] = (int)((long)chunk * 2 * (1 + (p + rank) % n) / (n + 1));
            sdispls[p] = so;
            rdispls[p] = ro;
            so += scounts[p];
            ro += rcounts[p];
        }
        break;
    }
    case W_BCAST:
    case W_PINGPONG:
    case W_IEXCHANGE:
        j->count = (int)size;
        j->bytes = size;
        break;
    case W_BARRIER:
        j->count = size == minsize;
        j->bytes = 0;
        break;
    case W_VPINGPONG: /* count: doubles of payload (per rank for the allgather) */
        j->count = (int)(size / 8);
        j->bytes = 8L * j->count;
        break;
    case W_VALLGATHER:
        j->count = (int)(size / (8L * n));
        j->bytes = 8L * j->count * n;
        break;
    case W_BW:
        j->count = (int)size;
        j->bytes = size;
        j->win = window;
        /* osu_bw keeps 64 messages in flight; above 1 MiB keep a window of at most 64 MiB. */
        while (j->win > 1 && (long)j->win * size > (64L << 20)) j->win /= 2;
        break;
    }
    return j->count > 0;
}

static unsigned char pat(int a, int b, long i)
{
    return (unsigned char)(a * 17 + b * 5 + i * 3 + 1);
}

static void fill(const job_t *j)
{
    int n = nranks;
    float *sf = (float *)sbuf, *rf = (float *)rbuf;
    double *sd = (double *)sbuf;
    switch (j->w) {
    case W_ALLREDUCE:
    case W_IALLREDUCE:
        for (int i = 0; i < j->count; i++) sf[i] = (float)(rank + 1 + i % 7), rf[i] = -1;
        break;
    case W_REDUCE_SCATTER:
        for (long i = 0; i < (long)j->count * n; i++) sf[i] = (float)(rank + 1 + i % 5);
        for (int i = 0; i < j->count; i++) rf[i] = -1;
        break;
    case W_ALLGATHER:
        for (int i = 0; i < j->count; i++) sbuf[i] = pat(rank, 0, i);
        memset(rbuf, 0xee, j->bytes);
        break;
    case W_BCAST:
        if (rank == 0)
            for (int i = 0; i < j->count; i++) sbuf[i] = pat(0, 1, i);
        else memset(sbuf, 0xee, j->count);
        break;
    case W_ALLTOALL:
        for (int p = 0; p < n; p++)
            for (int i = 0; i < j->count; i++) sbuf[(long)p * j->count + i] = pat(rank, p, i);
        memset(rbuf, 0xee, j->bytes);
        break;
    case W_ALLTOALLV:
        for (int p = 0; p < n; p++)
            for (int i = 0; i < scounts[p]; i++) sbuf[sdispls[p] + i] = pat(rank, p, i);
        memset(rbuf, 0xee, j->bytes);
        break;
    case W_PINGPONG:
    case W_BW:
    case W_IEXCHANGE:
        for (int i = 0; i < j->count; i++) sbuf[i] = pat(rank, 2, i);
        memset(rbuf, 0xee, j->count);
        break;
    case W_VPINGPONG:
    case W_VALLGATHER: /* the odd doubles of rbuf must keep their poison */
        for (long i = 0; i < 2L * j->count; i++) sd[i] = i % 2 ? -1.0 : rank * 1e9 + (double)i;
        memset(rbuf, 0xee, 16L * j->count * (j->w == W_VALLGATHER ? n : 1));
        break;
    }
}

/* Wrong doubles of a stride-2 vector from rank p at double `at` of rbuf; the gaps must be
 * poisoned still. */
static long check_vec(int p, long at, int count)
{
    const double *rd = (const double *)rbuf + at;
    double poison;
    long bad = 0;
    memset(&poison, 0xee, sizeof poison);
    for (long i = 0; i < 2L * count; i++)
        bad += i % 2 ? memcmp(&rd[i], &poison, sizeof poison) != 0 : rd[i] != p * 1e9 + (double)i;
    return bad;
}

/* Wrong elements after a batch (0 when right). */
static long check(const job_t *j)
{
    int n = nranks;
    long bad = 0;
    const float *rf = (const float *)rbuf;
    float ranksum = (float)n * (n + 1) / 2;
    switch (j->w) {
    case W_ALLREDUCE:
    case W_IALLREDUCE:
        for (int i = 0; i < j->count; i++) bad += rf[i] != ranksum + (float)n * (i % 7);
        break;
    case W_REDUCE_SCATTER:
        for (int i = 0; i < j->count; i++) {
            long gi = (long)rank * j->count + i;
            bad += rf[i] != ranksum + (float)n * (gi % 5);
        }
        break;
    case W_ALLGATHER:
        for (int p = 0; p < n; p++)
            for (int i = 0; i < j->count; i++) bad += rbuf[(long)p * j->count + i] != pat(p, 0, i);
        break;
    case W_BCAST:
        for (int i = 0; i < j->count; i++) bad += sbuf[i] != pat(0, 1, i);
        break;
    case W_ALLTOALL:
        for (int p = 0; p < n; p++)
            for (int i = 0; i < j->count; i++)
                bad += rbuf[(long)p * j->count + i] != pat(p, rank, i);
        break;
    case W_ALLTOALLV:
        for (int p = 0; p < n; p++)
            for (int i = 0; i < rcounts[p]; i++) bad += rbuf[rdispls[p] + i] != pat(p, rank, i);
        break;
    case W_PINGPONG:
    case W_IEXCHANGE:
        if (j->partner >= 0)
            for (int i = 0; i < j->count; i++) bad += rbuf[i] != pat(j->partner, 2, i);
        break;
    case W_BW:
        if (j->partner >= 0 && (rank & 1))
            for (int i = 0; i < j->count; i++) bad += rbuf[i] != pat(j->partner, 2, i);
        break;
    case W_VPINGPONG:
        if (j->partner >= 0) bad += check_vec(j->partner, 0, j->count);
        break;
    case W_VALLGATHER:
        for (int p = 0; p < n; p++) bad += check_vec(p, 2L * j->count * p, j->count);
        break;
    }
    return bad;
}

/* The start and the wait of an overlap workload (is_overlap). */
static int nb_start(const bench_lib_t *L, const job_t *j)
{
    if (j->w == W_IALLREDUCE) return L->iallreduce_start((float *)sbuf, (float *)rbuf, j->count);
    return j->partner < 0 ? 0 : L->iexchange_start(sbuf, rbuf, j->count, j->partner, 5);
}
static int nb_wait(const bench_lib_t *L, const job_t *j)
{
    if (j->w == W_IALLREDUCE) return L->iallreduce_wait();
    return j->partner < 0 ? 0 : L->iexchange_wait();
}

/* One iteration; returns the number of operations it counts for (the divisor of its time). */
static int one(const bench_lib_t *L, const job_t *j, int *rcerr)
{
    int rc = 0, ops = 1;
    char ack[4];
    switch (j->w) {
    case W_ALLREDUCE: rc = L->allreduce_float((float *)sbuf, (float *)rbuf, j->count); break;
    case W_ALLGATHER: rc = L->allgather_bytes(sbuf, rbuf, j->count); break;
    case W_REDUCE_SCATTER:
        rc = L->reduce_scatter_block_float((float *)sbuf, (float *)rbuf, j->count);
        break;
    case W_BCAST: rc = L->bcast_bytes(sbuf, j->count, 0); break;
    case W_BARRIER: rc = L->barrier(); break;
    case W_ALLTOALL: rc = L->alltoall_bytes(sbuf, rbuf, j->count); break;
    case W_ALLTOALLV:
        rc = L->alltoallv_bytes(sbuf, scounts, sdispls, rbuf, rcounts, rdispls);
        break;
    case W_IALLREDUCE:
    case W_IEXCHANGE:
        rc = nb_start(L, j);
        rc |= nb_wait(L, j);
        break;
    case W_PINGPONG:
        ops = 2;
        if (j->partner < 0) break;
        if (!(rank & 1)) {
            rc = L->send_bytes(sbuf, j->count, j->partner, 1);
            rc |= L->recv_bytes(rbuf, j->count, j->partner, 1);
        } else {
            rc = L->recv_bytes(rbuf, j->count, j->partner, 1);
            rc |= L->send_bytes(sbuf, j->count, j->partner, 1);
        }
        break;
    case W_VPINGPONG:
        ops = 2;
        if (j->partner < 0) break;
        if (!(rank & 1)) {
            rc = L->send_vec((double *)sbuf, j->count, j->partner, 4);
            rc |= L->recv_vec((double *)rbuf, j->count, j->partner, 4);
        } else {
            rc = L->recv_vec((double *)rbuf, j->count, j->partner, 4);
            rc |= L->send_vec((double *)sbuf, j->count, j->partner, 4);
        }
        break;
    case W_VALLGATHER: rc = L->allgather_vec((double *)sbuf, (double *)rbuf, j->count); break;
    case W_BW:
        ops = j->win;
        if (j->partner < 0) break;
        if (!(rank & 1)) {
            rc = L->send_window(sbuf, j->count, j->partner, 2, j->win);
            rc |= L->recv_bytes(ack, 4, j->partner, 3);
        } else {
            rc = L->recv_window(rbuf, j->count, j->partner, 2, j->win);
            rc |= L->send_bytes(ack, 4, j->partner, 3);
        }
        break;
    }
    if (rc) (*rcerr)++;
    return ops;
}

/* Statistics of one library at one size. */
typedef struct {
    int valid;
    long iters;
    double med, mean, min, max; /* us per operation; per iteration max over ranks */
    double algbw, busbw;        /* GB/s, from the median */
    double pure_mean, total_mean, comp_mean, overlap, overlap_med; /* overlap workloads only */
    double start_mean, wait_mean; /* of total - compute: the start call, the wait after compute */
    long errors;
} stats_t;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- Waits between libraries ---------------------------------------------------------------
 * The harness runs two libraries in one thread, and each makes progress only inside its own
 * calls. A message that one rank's library still holds when that rank moves on to the other
 * library (Open MPI's send queued behind a full fast box, a DFC tcp transport's send queue)
 * reaches its peer only at that rank's next call of the first library, while the peer waits
 * for it there and the rank waits for the peer in the second: both hang. (It did, in 2 to 3
 * runs of 30 of `-workloads bw,pingpong,allreduce` on 2 cores: one rank in DFC_Allreduce of
 * the times, the other in the anchor's last MPI_Waitall.) So the harness's own waits, the
 * barriers around batches and the reductions of the results, poke the other library while
 * they wait; the timed loops in between run one library alone, on every rank, behind such
 * a barrier. */
static void poke_others(const bench_lib_t *L)
{
    for (int i = 0; i < 2; i++)
        if (libs[i] && libs[i] != L) libs[i]->poke();
}

/* L's barrier, the other library poked meanwhile. */
static void sync_lib(const bench_lib_t *L)
{
    int done = 0;
    if (L->ibarrier_start()) return;
    while (!done && !L->ibarrier_test(&done))
        if (!done) poke_others(L);
}

/* DFC_Allreduce on the world for the harness's figures, the anchor poked meanwhile. */
static void agree(const void *s, void *r, int n, DFC_Datatype dt, DFC_Op op)
{
    DFC_Request q;
    int done = 0;
    if (DFC_Iallreduce(s, r, n, dt, op, DFC_COMM_WORLD, &q)) return;
    while (!done && !DFC_Test(&q, &done, DFC_STATUS_IGNORE))
        if (!done) poke_others(&dfc_lib);
}

/* Elementwise max over ranks of t[0..n), then median/mean/min/max into s. */
static void reduce_times(double *t, long n, stats_t *s)
{
    double *m = malloc(n * sizeof *m);
    agree(t, m, (int)n, DFC_DOUBLE, DFC_MAX);
    qsort(m, n, sizeof *m, cmp_double);
    double sum = 0;
    for (long i = 0; i < n; i++) sum += m[i];
    s->iters = n;
    s->med = n % 2 ? m[n / 2] : 0.5 * (m[n / 2 - 1] + m[n / 2]);
    s->mean = sum / n;
    s->min = m[0];
    s->max = m[n - 1];
    free(m);
}

static double rank_avg(double x)
{
    double s;
    agree(&x, &s, 1, DFC_DOUBLE, DFC_SUM);
    return s / nranks;
}

static double mean_of(const double *t, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s += t[i];
    return s / n;
}

static double median_of(double *t, long n)
{
    double *c = malloc(n * sizeof *c);
    memcpy(c, t, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    free(c);
    return m;
}

/* -off_cache: bytes each rank writes before a timed iteration (0: none), and where. */
static long off_cache;
static unsigned char *evict_buf;

/* Pushes this rank's buffers (and the libraries' own) out of the caches it shares. */
static void evict_caches(void)
{
    static unsigned char v;
    memset(evict_buf, ++v, (size_t)off_cache);
    __asm__ volatile("" : : "r"(evict_buf) : "memory"); /* the stores are not dead */
}

static void run_batch(const bench_lib_t *L, const job_t *j, long iters, long warmup, stats_t *s)
{
    int rcerr = 0;
    memset(s, 0, sizeof *s);
    fill(j);
    sync_lib(L);
    /* One probe iteration: when an iteration is slow (oversubscribed or loaded machine), fewer
     * warm-up and timed iterations keep the batch near -maxtime (all ranks agree). */
    double t0 = now_us();
    one(L, j, &rcerr);
    double probe = (now_us() - t0) * (is_overlap(j->w) ? 2 : 1), pmax;
    if (off_cache) { /* an iteration costs its eviction too */
        t0 = now_us();
        evict_caches();
        probe += now_us() - t0;
    }
    agree(&probe, &pmax, 1, DFC_DOUBLE, DFC_MAX);
    if (pmax > 0 && maxtime_us > 0) {
        long fit = (long)(maxtime_us / pmax);
        if (iters > fit) iters = fit < 5 ? 5 : fit;
        if (warmup > fit / 5) warmup = fit / 5 < 1 ? 1 : fit / 5;
    }
    double *t = malloc(iters * sizeof *t);
    sync_lib(L);
    for (long i = 0; i < warmup; i++) one(L, j, &rcerr);
    sync_lib(L);
    for (long i = 0; i < iters; i++) {
        if (off_cache) {
            evict_caches();
            sync_lib(L);
        }
        t0 = now_us();
        int ops = one(L, j, &rcerr);
        t[i] = (now_us() - t0) / ops;
    }
    long bad = check(j) + rcerr;
    reduce_times(t, iters, s);
    agree(&bad, &s->errors, 1, DFC_LONG, DFC_SUM);

    if (is_overlap(j->w)) {
        /* osu_iallreduce: compute for t_pure between the start and the wait. */
        double pure = rank_avg(mean_of(t, iters));
        double *tt = malloc(iters * sizeof *tt), *tc = malloc(iters * sizeof *tc),
               *ts = malloc(iters * sizeof *ts), *tw = malloc(iters * sizeof *tw);
        rcerr = 0;
        fill(j);
        sync_lib(L);
        for (long i = 0; i < warmup; i++) {
            rcerr |= nb_start(L, j);
            compute_for(pure);
            rcerr |= nb_wait(L, j);
        }
        sync_lib(L);
        for (long i = 0; i < iters; i++) {
            t0 = now_us();
            rcerr |= nb_start(L, j);
            double c0 = now_us();
            compute_for(pure);
            double c1 = now_us();
            rcerr |= nb_wait(L, j);
            double t1 = now_us();
            tt[i] = t1 - t0;
            tc[i] = c1 - c0;
            ts[i] = c0 - t0;
            tw[i] = t1 - c1;
        }
        bad = check(j) + (rcerr != 0);
        long e2;
        agree(&bad, &e2, 1, DFC_LONG, DFC_SUM);
        s->errors += e2;
        s->pure_mean = pure;
        s->total_mean = rank_avg(mean_of(tt, iters));
        s->comp_mean = rank_avg(mean_of(tc, iters));
        s->start_mean = rank_avg(mean_of(ts, iters));
        s->wait_mean = rank_avg(mean_of(tw, iters));
        double ov = 1.0 - (s->total_mean - s->comp_mean) / pure;
        s->overlap = 100.0 * (ov > 0 ? ov : 0);
        double pmed = rank_avg(median_of(t, iters)), tmed = rank_avg(median_of(tt, iters)),
               cmed = rank_avg(median_of(tc, iters));
        ov = 1.0 - (tmed - cmed) / pmed;
        s->overlap_med = 100.0 * (ov > 0 ? ov : 0);
        free(tt);
        free(tc);
        free(ts);
        free(tw);
    }
    s->algbw = s->med > 0 ? (double)j->bytes / s->med * 1e-3 : 0; /* bytes/us = MB/s -> GB/s */
    s->busbw = s->algbw * busbw_factor(j->w, nranks);
    s->valid = 1;
    free(t);
}

/* A few iterations of every workload at every size (memory warm-up). */
static void warm_all(const bench_lib_t *L)
{
    for (int w = 0; w < W_COUNT; w++)
        for (long size = minsize; size <= maxsize && (w < W_FIRST_OPTIN || selected[w]);
             size *= 2) {
            job_t j;
            int rcerr = 0;
            if (!job_setup(&j, w, size)) continue;
            fill(&j);
            sync_lib(L);
            for (int i = 0; i < 2; i++) {
                if (is_overlap(w)) {
                    rcerr |= nb_start(L, &j);
                    compute_for(10);
                    rcerr |= nb_wait(L, &j);
                } else one(L, &j, &rcerr);
            }
        }
    sync_lib(L);
}

/* ---- Output ------------------------------------------------------------------------------- */
typedef struct {
    int w;
    long bytes, count;
    stats_t s[2];
} row_t;

static row_t *rows;
static int nrows, caprows;

static void add_row(const job_t *j, const stats_t *s)
{
    if (nrows == caprows) {
        caprows = caprows ? 2 * caprows : 64;
        rows = realloc(rows, caprows * sizeof *rows);
    }
    row_t *r = &rows[nrows++];
    r->w = j->w;
    r->bytes = j->bytes;
    r->count = j->count;
    r->s[0] = s[0];
    r->s[1] = s[1];
}

static void fmt_num(char *buf, int len, int valid, double x, const char *fmt)
{
    if (valid) snprintf(buf, len, fmt, x);
    else snprintf(buf, len, "-");
}

static void print_header(int w)
{
    printf("\n# %s, %d ranks%s; %s\n", wl[w].title, nranks,
           is_overlap(w) ? (async_progress ? ", DFC_ASYNC_PROGRESS=1" : ", DFC_ASYNC_PROGRESS=0")
                         : "",
           wl[w].busbw_note);
    if (is_overlap(w))
        printf("%10s %6s %11s %11s %11s %11s %11s %10s %10s %10s %10s %10s\n", "bytes", "iters",
               "DFC med", "DFC mean", "anchor med", "anchor mean", "anchor/DFC", "compute",
               "DFC ovl%", "anch ovl%", "DFC start", "DFC wait");
    else
        printf("%10s %6s %11s %11s %11s %11s %11s %10s %10s\n", "bytes", "iters", "DFC med",
               "DFC mean", "anchor med", "anchor mean", "anchor/DFC", "DFC busbw", "anch busbw");
    if (is_overlap(w))
        printf("%10s %6s %11s %11s %11s %11s %11s %10s %10s %10s %10s %10s\n", "", "", "us", "us",
               "us", "us", "x", "us", "", "", "us", "us");
    else
        printf("%10s %6s %11s %11s %11s %11s %11s %10s %10s\n", "", "", "us", "us", "us", "us", "x",
               "GB/s", "GB/s");
    fflush(stdout);
}

static void print_row(const row_t *r)
{
    const stats_t *d = &r->s[0], *a = &r->s[1];
    char am[32], aa[32], ratio[32], c4[32], c5[32], c6[32];
    fmt_num(am, sizeof am, a->valid, a->med, "%.2f");
    fmt_num(aa, sizeof aa, a->valid, a->mean, "%.2f");
    fmt_num(ratio, sizeof ratio, a->valid && d->med > 0, a->med / d->med, "%.2f");
    if (is_overlap(r->w)) {
        snprintf(c4, sizeof c4, "%.1f", d->pure_mean);
        fmt_num(c5, sizeof c5, 1, d->overlap, "%.1f");
        fmt_num(c6, sizeof c6, a->valid, a->overlap, "%.1f");
        printf("%10ld %6ld %11.2f %11.2f %11s %11s %11s %10s %10s %10s %10.2f %10.2f", r->bytes,
               d->iters, d->med, d->mean, am, aa, ratio, c4, c5, c6, d->start_mean, d->wait_mean);
    } else {
        fmt_num(c5, sizeof c5, 1, d->busbw, "%.3f");
        fmt_num(c6, sizeof c6, a->valid, a->busbw, "%.3f");
        printf("%10ld %6ld %11.2f %11.2f %11s %11s %11s %10s %10s", r->bytes, d->iters, d->med,
               d->mean, am, aa, ratio, c5, c6);
    }
    if (d->errors || a->errors)
        printf("  WRONG RESULTS (DFC %ld, anchor %ld)", d->errors, a->errors);
    printf("\n");
    fflush(stdout);
}

static void write_csv(const char *path, const mem_t *dmem, const mem_t *amem)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    fprintf(f, "# dfc_bench: %d ranks; %s; anchor %s\n", nranks, dfc_lib.version,
            libs[1] ? libs[1]->version : "not available");
    fprintf(f,
            "workload,ranks,async_progress,lib,bytes,count,iters,median_us,mean_us,min_us,max_us,"
            "algbw_GBps,busbw_GBps,compute_us,total_us,overlap_pct,overlap_median_pct,start_us,"
            "wait_us,errors\n");
    for (int i = 0; i < nrows; i++)
        for (int l = 0; l < 2; l++) {
            const stats_t *s = &rows[i].s[l];
            if (!s->valid) continue;
            fprintf(f, "%s,%d,%d,%s,%ld,%ld,%ld,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,", wl[rows[i].w].name,
                    nranks, async_progress, l ? "anchor" : "dfc", rows[i].bytes, rows[i].count,
                    s->iters, s->med, s->mean, s->min, s->max, s->algbw, s->busbw);
            if (is_overlap(rows[i].w))
                fprintf(f, "%.3f,%.3f,%.2f,%.2f,%.3f,%.3f,%ld\n", s->comp_mean, s->total_mean,
                        s->overlap, s->overlap_med, s->start_mean, s->wait_mean, s->errors);
            else fprintf(f, ",,,,,,%ld\n", s->errors);
        }
    fprintf(
        f,
        "# memory_kib rank0: dfc rss %ld anon %ld shmem %ld file %ld trimmed %ld; anchor rss %ld anon %ld "
        "shmem %ld file %ld trimmed %ld\n",
        dmem->rss, dmem->anon, dmem->shmem, dmem->file, dmem->trimmed, amem->rss, amem->anon,
        amem->shmem, amem->file, amem->trimmed);
    fclose(f);
}

static void write_json(const char *path, const mem_t *dm, const mem_t *am, int have_anchor)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    char host[256] = "";
    gethostname(host, sizeof host);
    fprintf(f, "{\n  \"benchmark\": \"dfc_bench\",\n  \"host\": \"%s\",\n  \"ranks\": %d,\n", host,
            nranks);
    fprintf(f, "  \"async_progress\": %d,\n  \"dfc\": \"%s\",\n", async_progress, dfc_lib.version);
    if (libs[1]) fprintf(f, "  \"anchor\": \"%s\",\n", libs[1]->version);
    else fprintf(f, "  \"anchor\": null,\n");
    fprintf(f, "  \"memory_kib_per_rank\": [\n");
    for (int r = 0; r < nranks; r++) {
        const mem_t *d = &dm[r], *a = &am[r];
        fprintf(
            f,
            "    {\"rank\": %d, \"dfc\": {\"rss\": %ld, \"anon\": %ld, \"shmem\": %ld, \"file\": %ld, "
            "\"rss_after_malloc_trim\": %ld}",
            r, d->rss, d->anon, d->shmem, d->file, d->trimmed);
        if (have_anchor)
            fprintf(f,
                    ", \"anchor\": {\"rss\": %ld, \"anon\": %ld, \"shmem\": %ld, \"file\": %ld, "
                    "\"rss_after_malloc_trim\": %ld}",
                    a->rss, a->anon, a->shmem, a->file, a->trimmed);
        fprintf(f, "}%s\n", r + 1 < nranks ? "," : "");
    }
    fprintf(f, "  ],\n  \"results\": [\n");
    int first = 1;
    for (int i = 0; i < nrows; i++)
        for (int l = 0; l < 2; l++) {
            const stats_t *s = &rows[i].s[l];
            if (!s->valid) continue;
            fprintf(f,
                    "%s    {\"workload\": \"%s\", \"lib\": \"%s\", \"bytes\": %ld, \"iters\": %ld, "
                    "\"median_us\": %.3f, \"mean_us\": %.3f, \"min_us\": %.3f, \"max_us\": %.3f, "
                    "\"algbw_GBps\": %.4f, \"busbw_GBps\": %.4f",
                    first ? "" : ",\n", wl[rows[i].w].name, l ? "anchor" : "dfc", rows[i].bytes,
                    s->iters, s->med, s->mean, s->min, s->max, s->algbw, s->busbw);
            if (is_overlap(rows[i].w))
                fprintf(
                    f,
                    ", \"pure_mean_us\": %.3f, \"compute_us\": %.3f, \"total_us\": %.3f, \"overlap_pct\": %.2f, "
                    "\"overlap_median_pct\": %.2f, \"start_us\": %.3f, \"wait_us\": %.3f",
                    s->pure_mean, s->comp_mean, s->total_mean, s->overlap, s->overlap_med,
                    s->start_mean, s->wait_mean);
            fprintf(f, ", \"errors\": %ld}", s->errors);
            first = 0;
        }
    fprintf(f, "\n  ]\n}\n");
    fclose(f);
}

static void usage(void)
{
    fprintf(
        stderr,
        "usage: dfc_bench [-minsize B] [-maxsize B] [-iters N] [-warmup N] [-maxtime S] [-window N]\n"
        "                 [-off_cache B] [-workloads a,b,...] [-noanchor] [-dup] [-csv FILE]\n"
        "                 [-json FILE] [-quiet]\n"
        "workloads: allreduce allgather reduce_scatter bcast alltoall alltoallv pingpong bw iallreduce "
        "barrier;\n           only when named: vpingpong vallgather iexchange\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int any = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-noanchor")) use_anchor = 0;
        else if (!strcmp(a, "-dup")) opt_dup = 1;
        else if (!strcmp(a, "-quiet")) quiet = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "-help") || !strcmp(a, "--help")) usage();
        else if (!v) usage();
        else if (!strcmp(a, "-minsize")) minsize = bench_parse_size(v), i++;
        else if (!strcmp(a, "-maxsize")) maxsize = bench_parse_size(v), i++;
        else if (!strcmp(a, "-iters")) opt_iters = atol(v), i++;
        else if (!strcmp(a, "-warmup")) opt_warmup = atol(v), i++;
        else if (!strcmp(a, "-window")) window = atoi(v), i++;
        else if (!strcmp(a, "-off_cache")) off_cache = bench_parse_size(v), i++;
        else if (!strcmp(a, "-maxtime")) maxtime_us = atof(v) * 1e6, i++;
        else if (!strcmp(a, "-csv")) csv_path = v, i++;
        else if (!strcmp(a, "-json")) json_path = v, i++;
        else if (!strcmp(a, "-workloads")) {
            char *list = strdup(v), *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int found = 0;
                for (int w = 0; w < W_COUNT; w++)
                    if (!strcmp(t, wl[w].name) || (!strcmp(t, "all") && w < W_FIRST_OPTIN))
                        selected[w] = found = 1;
                if (!found) {
                    fprintf(stderr, "dfc_bench: unknown workload '%s'\n", t);
                    usage();
                }
            }
            any = 1;
            free(list);
            i++;
        } else usage();
    }
    if (!any)
        for (int w = 0; w < W_FIRST_OPTIN; w++) selected[w] = 1;
    if (minsize < 1) minsize = 1;
    if (maxsize < minsize) maxsize = minsize;
    if (maxsize > (1L << 30)) maxsize = 1L << 30; /* counts are ints */
    if (window < 1) window = 1;
    if (window > BENCH_MAX_WINDOW) window = BENCH_MAX_WINDOW;
    if (opt_iters < 1) opt_iters = 1;
    if (opt_warmup < 0) opt_warmup = 0;
    if (min_iters > opt_iters) min_iters = opt_iters;

    /* Buffers first (touched), so that neither library's memory figure includes them. */
    size_t bufbytes = 2 * (size_t)maxsize + 4096; /* stride-2 vectors span twice their payload */
    if (posix_memalign((void **)&sbuf, 4096, bufbytes) ||
        posix_memalign((void **)&rbuf, 4096, bufbytes)) {
        fprintf(stderr, "dfc_bench: cannot allocate 2 x %zu bytes\n", bufbytes);
        return 1;
    }
    memset(sbuf, 1, bufbytes);
    memset(rbuf, 2, bufbytes);
    if (off_cache < 0) off_cache = 0;
    if (off_cache && !(evict_buf = malloc((size_t)off_cache))) {
        fprintf(stderr, "dfc_bench: cannot allocate -off_cache's %ld bytes\n", off_cache);
        return 1;
    }
    scounts = calloc(4 * 4096, sizeof(int)); /* up to 4096 ranks */
    sdispls = scounts + 4096;
    rcounts = scounts + 2 * 4096;
    rdispls = scounts + 3 * 4096;
    calibrate_compute();
    const char *ap = getenv("DFC_ASYNC_PROGRESS");
    async_progress = ap && atoi(ap) != 0;

    /* DFC first, so that its memory figure includes everything it starts (the PMIx client
     * too, which the anchor would otherwise have started already). */
    mem_t d0 = read_mem();
    DFC_Init(&argc, &argv);
    if (opt_dup) DFC_Comm_dup(DFC_COMM_WORLD, &dcomm);
    DFC_Comm_rank(DFC_COMM_WORLD, &dfc_lib.rank);
    DFC_Comm_size(DFC_COMM_WORLD, &dfc_lib.size);
    int vlen;
    char vbuf[DFC_MAX_LIBRARY_VERSION_STRING];
    DFC_Get_library_version(vbuf, &vlen);
    char *paren = strstr(vbuf, " (");
    if (paren) *paren = 0; /* "DFC x.y.z (MPI 4.1 interface; ...)" -> "DFC x.y.z" */
    snprintf(dfc_lib.version, sizeof dfc_lib.version, "%.200s", vbuf);
    rank = dfc_lib.rank;
    nranks = dfc_lib.size;
    if (nranks > 4096) {
        if (!rank) fprintf(stderr, "dfc_bench: at most 4096 ranks\n");
        DFC_Finalize();
        return 1;
    }
    libs[0] = &dfc_lib;
    warm_all(&dfc_lib);
    mem_t d1 = read_mem();
    malloc_trim(0); /* what stays is live; the difference is freed memory malloc keeps */
    d1.trimmed = read_mem().rss;

    /* The anchor, its memory measured the same way (it finds the PMIx client running). */
    mem_t a0 = read_mem(), a1 = a0;
    libs[1] = NULL;
    if (!use_anchor) snprintf(anchor_why, sizeof anchor_why, "disabled with -noanchor");
    else libs[1] = bench_anchor_init(&argc, &argv, anchor_why, sizeof anchor_why);
    if (libs[1]) {
        if (libs[1]->rank != rank || libs[1]->size != nranks) {
            fprintf(stderr,
                    "dfc_bench: DFC sees rank %d of %d, the anchor rank %d of %d; not comparable\n",
                    rank, nranks, libs[1]->rank, libs[1]->size);
            DFC_Abort(DFC_COMM_WORLD, 1);
        }
        warm_all(libs[1]);
        a1 = read_mem();
        malloc_trim(0);
        a1.trimmed = read_mem().rss;
    }

    if (rank == 0) {
        char host[256] = "";
        gethostname(host, sizeof host);
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        printf("# dfc_bench: %d ranks on %s (%ld cpus); %s vs anchor: %s\n", nranks, host, ncpu,
               dfc_lib.version, libs[1] ? libs[1]->version : "not available");
        if (!libs[1]) printf("anchor: not available (%s)\n", anchor_why);
        printf(
            "# DFC_ASYNC_PROGRESS=%d; sizes %ld .. %ld bytes; iters %ld, warmup %ld (scaled by 64 KiB/bytes above "
            "64 KiB, at least %ld; fewer, at least 5, where a batch would exceed %.1f s)\n",
            async_progress, minsize, maxsize, opt_iters, opt_warmup, min_iters, maxtime_us * 1e-6);
        printf(
            "# time per op: each iteration timed, max over ranks; median and mean over iterations; "
            "busbw from the median; anchor/DFC > 1: DFC faster\n");
        if (off_cache)
            printf("# off cache: each rank writes %ld bytes, then a barrier, before every timed "
                   "iteration (neither timed)\n",
                   off_cache);
        fflush(stdout);
    }

    long total_errors = 0;
    for (int w = 0; w < W_COUNT; w++) {
        if (!selected[w]) continue;
        if (rank == 0 && !quiet) print_header(w);
        int k = 0;
        for (long size = minsize; size <= maxsize; size *= 2, k++) {
            job_t j;
            if (!job_setup(&j, w, size)) continue;
            long it = scaled(opt_iters, j.bytes, min_iters), wu = scaled(opt_warmup, j.bytes, 2);
            if (wu > opt_warmup) wu = opt_warmup;
            stats_t s[2];
            memset(s, 0, sizeof s);
            /* Alternate which library goes first, so that neither always runs on a warmer machine. */
            for (int o = 0; o < 2; o++) {
                int l = (k & 1) ? 1 - o : o;
                if (libs[l]) run_batch(libs[l], &j, it, wu, &s[l]);
            }
            total_errors += s[0].errors + s[1].errors;
            add_row(&j, s);
            if (rank == 0 && !quiet) print_row(&rows[nrows - 1]);
        }
    }

    /* Memory, per rank. */
    mem_t dm = {d1.rss - d0.rss, d1.anon - d0.anon, d1.shmem - d0.shmem, d1.file - d0.file,
                d1.trimmed - d0.rss};
    mem_t am = {a1.rss - a0.rss, a1.anon - a0.anon, a1.shmem - a0.shmem, a1.file - a0.file,
                a1.trimmed - a0.rss};
    mem_t *alld = calloc(nranks, sizeof *alld), *alla = calloc(nranks, sizeof *alla);
    DFC_Gather(&dm, 5, DFC_LONG, alld, 5, DFC_LONG, 0, DFC_COMM_WORLD);
    DFC_Gather(&am, 5, DFC_LONG, alla, 5, DFC_LONG, 0, DFC_COMM_WORLD);
    if (rank == 0) {
        printf(
            "\n# memory: resident host memory growth per rank (VmRSS, KiB; DFC: before DFC_Init -> after a "
            "warm-up of every workload at every size; anchor: the same around MPI_Init, which runs "
            "after DFC's and finds the PMIx client started; trimmed: rss growth after malloc_trim(0))\n");
        printf("%6s %10s %10s %10s %10s %10s   %10s %10s %10s %10s %10s\n", "rank", "DFC rss",
               "anon", "shmem", "file", "trimmed", "anchor rss", "anon", "shmem", "file",
               "trimmed");
        for (int r = 0; r < nranks; r++) {
            if (nranks > 8 && r > 1 && r < nranks - 1) continue;
            printf("%6d %10ld %10ld %10ld %10ld %10ld   ", r, alld[r].rss, alld[r].anon,
                   alld[r].shmem, alld[r].file, alld[r].trimmed);
            if (libs[1])
                printf("%10ld %10ld %10ld %10ld %10ld\n", alla[r].rss, alla[r].anon, alla[r].shmem,
                       alla[r].file, alla[r].trimmed);
            else printf("%10s\n", "-");
        }
        if (csv_path) write_csv(csv_path, &alld[0], &alla[0]);
        if (json_path) write_json(json_path, alld, alla, libs[1] != NULL);
        if (total_errors)
            printf("\n# WRONG RESULTS: %ld bad elements or failed calls in total\n", total_errors);
        fflush(stdout);
    }
    free(alld);
    free(alla);
    if (libs[1]) libs[1]->finalize();
    DFC_Finalize();
    return total_errors ? 1 : 0;
}
