/*
 * dfc_bench_gpu - collectives on CUDA device buffers through DFC and through NCCL (the
 * anchor) in one run, one process per GPU, with the ratio printed.
 *
 * Workloads: allreduce (float sum), allgather, reduce_scatter (float sum), bcast, alltoall
 * and alltoallv (NCCL: grouped ncclSend/ncclRecv, as nccl-tests does; alltoallv's counts are
 * dfc_bench's uneven ones), pingpong (one-way latency: half the round trip of ranks r and
 * r^1; NCCL: a send, then a receive, each synchronized) and bw (per message of a window of
 * 64 sent to r^1, fewer above 1 MiB; DFC: Isends/Irecvs, Waitall and a 4-byte ack; NCCL: the
 * window in one group); gather and scatter at root 0 (bytes as allgather's; NCCL: grouped
 * sends and receives) and reduce (float sum to root 0), only when named in -workloads.
 * DFC's point-to-point on device buffers takes the paths dfc(7) describes (IPC copies or
 * staging; the daemon runs collectives). Both sides are called the way an MPI program sees
 * them: DFC's blocking call, and NCCL's call followed by
 * cudaStreamSynchronize (shared/lab/anchors.md, second NCCL table).
 *
 * Method: sizes from -minsize to -maxsize, doubling. At each size DFC and NCCL run
 * alternately, each -reps batches (default 7) of `iters` back-to-back calls (iters scales
 * down with size: -iters * 256 KiB / bytes, at least 5) after -warmup calls; a batch is
 * timed with CLOCK_MONOTONIC from a barrier to the last call's return, divided by iters;
 * the table gives the median batch of the slowest rank. "bytes" and busbw follow
 * nccl-tests: allreduce bytes = buffer, busbw = algbw * 2(n-1)/n; allgather bytes = gathered
 * output, reduce_scatter = input, alltoall = one rank's send buffer, busbw = algbw * (n-1)/n;
 * bcast and reduce busbw = algbw; pingpong and bw: bytes = one message, busbw = algbw. The
 * first and last sizes' results of DFC and NCCL are checked element by element (all but
 * bcast).
 * Ratio = DFC time / NCCL time (below 1: DFC is faster).
 *
 * -chaos: DFCCL's chaos-order scenario on device buffers: 8 persistent allreduces (1 Ki to
 * 256 Ki floats) per iteration, started in the same order on every rank, then in a per-rank
 * random permutation; prints time per iteration, the overhead and preemptions per collective.
 *
 * Memory: device memory in use (cudaMemGetInfo) after the CUDA context exists, then after
 * DFC_Init and the DFC runs, then after NCCL's init and runs: what each library took.
 *
 * "launch/call" is the number of daemon kernel launches per DFC call during the timed batches
 * (0.00: the kernel stayed resident; a relaunch costs several microseconds).
 *
 * Usage: dfc_bench_gpu [-minsize B] [-maxsize B] [-sizes B,B,...] [-iters N] [-warmup N]
 *                      [-reps N] [-workloads a,b] [-noanchor] [-chaos] [-p2p] [-csv FILE]
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "dfc.h"
#ifdef DFC_BENCH_NCCL
#include <nccl.h>
#endif

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

enum {
    W_ALLREDUCE,
    W_ALLGATHER,
    W_REDUCE_SCATTER,
    W_BCAST,
    W_ALLTOALL,
    W_ALLTOALLV,
    W_PINGPONG,
    W_BW,
    W_GATHER, /* not run unless named in -workloads */
    W_SCATTER,
    W_REDUCE, /* float sum to root 0; not run unless named either */
    W_COUNT
};
static const char *wl_name[W_COUNT] = {"allreduce", "allgather", "reduce_scatter", "bcast",
                                       "alltoall",  "alltoallv", "pingpong",       "bw",
                                       "gather",    "scatter",   "reduce"};
#define BW_WINDOW 64 /* bw: messages in flight per iteration (fewer above 1 MiB: 64 MiB in all) */

static int rank, size;
int dfc_bench_gpu_p2p(void *sbuf, void *rbuf, const uint64_t *sizes, int nsizes, int iters,
                      int warmup, int rank, int size);
static float *sbuf, *rbuf; /* device, sized for the largest workload */
static int *vcounts[4];    /* alltoallv: send counts, send displs, recv counts, recv displs */
static cudaStream_t stream;
#ifdef DFC_BENCH_NCCL
static ncclComm_t nccl;
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Items per rank for a workload of `bytes` (nccl-tests' meaning of bytes). */
static size_t items_of(int w, uint64_t bytes)
{
    size_t n = bytes / sizeof(float);
    if (w == W_ALLGATHER || w == W_REDUCE_SCATTER || w == W_ALLTOALL || w == W_ALLTOALLV ||
        w == W_GATHER || w == W_SCATTER)
        n /= size;
    return n ? n : 1;
}

/* bw: the window for messages of n floats (at most 64 MiB in flight). */
static int bw_window(size_t n)
{
    size_t w = ((size_t)64 << 20) / (n * sizeof(float));
    return w < 1 ? 1 : w > BW_WINDOW ? BW_WINDOW : (int)w;
}

/* alltoallv's uneven counts for n floats per pair on average, as dfc_bench's: rank r sends
 * 2n(1 + (r+p) % size) / (size + 1) to p (in all n * size, as alltoall). */
static void set_vcounts(size_t n)
{
    for (int k = 0; k < 4; k++)
        if (!vcounts[k] && !(vcounts[k] = malloc(size * sizeof(int)))) exit(2);
    int sd = 0, rd = 0;
    for (int p = 0; p < size; p++) {
        vcounts[0][p] = (int)(2 * n * (1 + (rank + p) % size) / (size + 1));
        vcounts[2][p] = (int)(2 * n * (1 + (p + rank) % size) / (size + 1));
        vcounts[1][p] = sd, vcounts[3][p] = rd;
        sd += vcounts[0][p], rd += vcounts[2][p];
    }
}

static void dfc_call(int w, size_t n)
{
    int c = (int)n;
    switch (w) {
    case W_ALLREDUCE: DFC_Allreduce(sbuf, rbuf, c, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD); break;
    case W_ALLGATHER: DFC_Allgather(sbuf, c, DFC_FLOAT, rbuf, c, DFC_FLOAT, DFC_COMM_WORLD); break;
    case W_REDUCE_SCATTER:
        DFC_Reduce_scatter_block(sbuf, rbuf, c, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD);
        break;
    case W_BCAST: DFC_Bcast(rbuf, c, DFC_FLOAT, 0, DFC_COMM_WORLD); break;
    case W_ALLTOALL: DFC_Alltoall(sbuf, c, DFC_FLOAT, rbuf, c, DFC_FLOAT, DFC_COMM_WORLD); break;
    case W_ALLTOALLV:
        DFC_Alltoallv(sbuf, vcounts[0], vcounts[1], DFC_FLOAT, rbuf, vcounts[2], vcounts[3],
                      DFC_FLOAT, DFC_COMM_WORLD);
        break;
    case W_GATHER: DFC_Gather(sbuf, c, DFC_FLOAT, rbuf, c, DFC_FLOAT, 0, DFC_COMM_WORLD); break;
    case W_SCATTER: DFC_Scatter(sbuf, c, DFC_FLOAT, rbuf, c, DFC_FLOAT, 0, DFC_COMM_WORLD); break;
    case W_REDUCE: DFC_Reduce(sbuf, rbuf, c, DFC_FLOAT, DFC_SUM, 0, DFC_COMM_WORLD); break;
    case W_PINGPONG: { /* ranks r and r^1; a rank without a partner sits it out */
        int peer = rank ^ 1;
        if (peer >= size) break;
        if (rank & 1) {
            DFC_Recv(rbuf, c, DFC_FLOAT, peer, 1, DFC_COMM_WORLD, DFC_STATUS_IGNORE);
            DFC_Send(sbuf, c, DFC_FLOAT, peer, 1, DFC_COMM_WORLD);
        } else {
            DFC_Send(sbuf, c, DFC_FLOAT, peer, 1, DFC_COMM_WORLD);
            DFC_Recv(rbuf, c, DFC_FLOAT, peer, 1, DFC_COMM_WORLD, DFC_STATUS_IGNORE);
        }
        break;
    }
    default: { /* W_BW: even ranks send a window to r+1, which acknowledges it */
        int peer = rank ^ 1, win = bw_window(n), ack = 0;
        DFC_Request req[BW_WINDOW];
        if (peer >= size) break;
        for (int i = 0; i < win; i++) {
            if (rank & 1) DFC_Irecv(rbuf, c, DFC_FLOAT, peer, 2, DFC_COMM_WORLD, &req[i]);
            else DFC_Isend(sbuf, c, DFC_FLOAT, peer, 2, DFC_COMM_WORLD, &req[i]);
        }
        DFC_Waitall(win, req, DFC_STATUSES_IGNORE);
        if (rank & 1) DFC_Send(&ack, 1, DFC_INT, peer, 3, DFC_COMM_WORLD);
        else DFC_Recv(&ack, 1, DFC_INT, peer, 3, DFC_COMM_WORLD, DFC_STATUS_IGNORE);
    }
    }
}

#ifdef DFC_BENCH_NCCL
static void nccl_call(int w, size_t n)
{
    switch (w) {
    case W_ALLREDUCE: ncclAllReduce(sbuf, rbuf, n, ncclFloat, ncclSum, nccl, stream); break;
    case W_ALLGATHER: ncclAllGather(sbuf, rbuf, n, ncclFloat, nccl, stream); break;
    case W_REDUCE_SCATTER:
        ncclReduceScatter(sbuf, rbuf, n, ncclFloat, ncclSum, nccl, stream);
        break;
    case W_BCAST: ncclBroadcast(rbuf, rbuf, n, ncclFloat, 0, nccl, stream); break;
    case W_REDUCE: ncclReduce(sbuf, rbuf, n, ncclFloat, ncclSum, 0, nccl, stream); break;
    case W_ALLTOALL:
    case W_ALLTOALLV: /* grouped sends and receives, as nccl-tests' alltoall */
        ncclGroupStart();
        for (int r = 0; r < size; r++) {
            size_t sc = w == W_ALLTOALL ? n : (size_t)vcounts[0][r],
                   so = w == W_ALLTOALL ? r * n : (size_t)vcounts[1][r];
            size_t rc = w == W_ALLTOALL ? n : (size_t)vcounts[2][r],
                   ro = w == W_ALLTOALL ? r * n : (size_t)vcounts[3][r];
            ncclSend(sbuf + so, sc, ncclFloat, r, nccl, stream);
            ncclRecv(rbuf + ro, rc, ncclFloat, r, nccl, stream);
        }
        ncclGroupEnd();
        break;
    case W_GATHER: /* grouped sends and receives at root 0 */
    case W_SCATTER:
        ncclGroupStart();
        for (int r = 0; r < size && !rank; r++)
            if (w == W_GATHER) ncclRecv(rbuf + r * n, n, ncclFloat, r, nccl, stream);
            else ncclSend(sbuf + r * n, n, ncclFloat, r, nccl, stream);
        if (w == W_GATHER) ncclSend(sbuf, n, ncclFloat, 0, nccl, stream);
        else ncclRecv(rbuf, n, ncclFloat, 0, nccl, stream);
        ncclGroupEnd();
        break;
    case W_PINGPONG: { /* each way synchronized, as a blocking send and receive would be */
        int peer = rank ^ 1;
        if (peer >= size) break;
        for (int leg = 0; leg < 2; leg++) {
            if ((rank & 1) == leg) ncclSend(sbuf, n, ncclFloat, peer, nccl, stream);
            else ncclRecv(rbuf, n, ncclFloat, peer, nccl, stream);
            CUDA_OK(cudaStreamSynchronize(stream));
        }
        break;
    }
    default: { /* W_BW: a window of messages in one group (the ack is the synchronization) */
        int peer = rank ^ 1, win = bw_window(n);
        if (peer >= size) break;
        ncclGroupStart();
        for (int i = 0; i < win; i++) {
            if (rank & 1) ncclRecv(rbuf, n, ncclFloat, peer, nccl, stream);
            else ncclSend(sbuf, n, ncclFloat, peer, nccl, stream);
        }
        ncclGroupEnd();
    }
    }
    CUDA_OK(cudaStreamSynchronize(stream));
}
#endif

/* The value item i of rbuf must hold after workload w (every rank's inputs are rank + 1),
 * or -1 where nothing is checked. */
static float expected(int w, size_t n, size_t i)
{
    switch (w) {
    case W_ALLREDUCE:
    case W_REDUCE_SCATTER: return (float)(size * (size + 1) / 2);
    case W_ALLGATHER:
    case W_ALLTOALL: return (float)(i / n + 1);
    case W_GATHER: return rank == 0 ? (float)(i / n + 1) : -1;
    case W_SCATTER: return 1.0f; /* root 0's inputs */
    case W_REDUCE: return rank == 0 ? (float)(size * (size + 1) / 2) : -1;
    case W_ALLTOALLV:
        for (int p = 0; p < size; p++)
            if (i >= (size_t)vcounts[3][p] && i < (size_t)vcounts[3][p] + vcounts[2][p])
                return (float)(p + 1);
        return -1;
    case W_PINGPONG:
    case W_BW:
        return (rank ^ 1) < size && (w == W_PINGPONG || (rank & 1)) ? (float)((rank ^ 1) + 1) : -1;
    default: return -1;
    }
}

/* Checks what workload w left in rbuf (fill_inputs gave every buffer rank + 1 first). */
static int check_result(int w, size_t n, const char *who)
{
    if (w == W_BCAST) return 0;
    size_t m = w == W_ALLGATHER || w == W_ALLTOALL || w == W_ALLTOALLV || w == W_GATHER ? n * size
                                                                                        : n;
    float *h = malloc(m * sizeof(float));
    CUDA_OK(cudaMemcpy(h, rbuf, m * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t i = 0; i < m && !bad; i++) {
        float want = expected(w, n, i);
        if (want >= 0 && h[i] != want) {
            fprintf(stderr, "[rank %d] %s %s: item %zu is %g, want %g\n", rank, who, wl_name[w], i,
                    h[i], want);
            bad = 1;
        }
    }
    free(h);
    return bad;
}

static void fill_inputs(size_t total)
{
    float *h = malloc(total * sizeof(float));
    for (size_t i = 0; i < total; i++) h[i] = (float)(rank + 1);
    CUDA_OK(cudaMemcpy(sbuf, h, total * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(rbuf, h, total * sizeof(float), cudaMemcpyHostToDevice));
    free(h);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One call of workload w through DFC (which 0) or NCCL (which 1). */
static void call(int which, int w, size_t n)
{
#ifdef DFC_BENCH_NCCL
    if (which) {
        nccl_call(w, n);
        return;
    }
#endif
    (void)which;
    dfc_call(w, n);
}

static long long daemon_launches(void)
{
    int device;
    DFC_Count launches;
    DFC_Get_gpu_daemon_info(&device, &launches);
    return (long long)launches;
}

/* Median over reps of the per-call time of a batch, slowest rank. which: 0 DFC, 1 NCCL.
 * *launch_per_call: daemon kernel launches per call on this rank during the batches. */
static double measure(int which, int w, size_t n, int iters, int warmup, int reps,
                      double *launch_per_call)
{
    double t[64];
    for (int i = 0; i < warmup; i++) call(which, w, n);
    long long launches0 = daemon_launches();
    for (int r = 0; r < reps; r++) {
        DFC_Barrier(DFC_COMM_WORLD);
        double t0 = now();
        for (int i = 0; i < iters; i++) call(which, w, n);
        double mine = (now() - t0) / iters;
        DFC_Allreduce(&mine, &t[r], 1, DFC_DOUBLE, DFC_MAX, DFC_COMM_WORLD);
    }
    *launch_per_call = (double)(daemon_launches() - launches0) / ((double)reps * iters);
    qsort(t, reps, sizeof t[0], cmp_double);
    return t[reps / 2];
}

static double busbw_factor(int w)
{
    if (w == W_ALLREDUCE) return 2.0 * (size - 1) / size;
    if (w == W_BCAST || w == W_REDUCE || w == W_PINGPONG || w == W_BW) return 1.0;
    return (double)(size - 1) / size;
}

/* What one call's time is divided by to report: pingpong's round trip is two one-way
 * latencies, bw's window that many messages. */
static double calls_per_result(int w, size_t n)
{
    if (w == W_PINGPONG) return 2;
    if (w == W_BW) return bw_window(n);
    return 1;
}


static void chaos(int iters)
{
    enum { NCOLL = 8 };
    static const int n[NCOLL] = {1024, 2048, 4096, 8192, 16384, 65536, 131072, 262144};
    float *in[NCOLL], *out[NCOLL];
    DFC_Request req[NCOLL];
    int order[NCOLL];
    for (int c = 0; c < NCOLL; c++) {
        CUDA_OK(cudaMalloc((void **)&in[c], n[c] * sizeof(float)));
        CUDA_OK(cudaMalloc((void **)&out[c], n[c] * sizeof(float)));
        CUDA_OK(cudaMemset(in[c], 0, n[c] * sizeof(float)));
        DFC_Allreduce_init(in[c], out[c], n[c], DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD, DFC_INFO_NULL,
                           &req[c]);
    }
    srand(1234 + rank * 7919);
    double times[2];
    DFC_Count p0, p1;
    for (int mode = 0; mode < 2; mode++) {
        DFC_Get_preemption_count(&p0);
        DFC_Barrier(DFC_COMM_WORLD);
        double t0 = now();
        for (int it = 0; it < iters; it++) {
            for (int c = 0; c < NCOLL; c++) order[c] = c;
            for (int c = NCOLL - 1; mode && c > 0; c--) {
                int j = rand() % (c + 1), t = order[c];
                order[c] = order[j];
                order[j] = t;
            }
            for (int c = 0; c < NCOLL; c++) DFC_Start(&req[order[c]]);
            DFC_Waitall(NCOLL, req, DFC_STATUSES_IGNORE);
        }
        double mine = (now() - t0) / iters;
        DFC_Allreduce(&mine, &times[mode], 1, DFC_DOUBLE, DFC_MAX, DFC_COMM_WORLD);
        DFC_Get_preemption_count(&p1);
        long long pre = (long long)(p1 - p0), all = 0;
        DFC_Allreduce(&pre, &all, 1, DFC_LONG_LONG, DFC_SUM, DFC_COMM_WORLD);
        if (!rank)
            printf(
                "chaos-order %-10s %4d ranks: %9.1f us/iteration, %.2f preemptions per collective\n",
                mode ? "(permuted)" : "(in order)", size, times[mode] * 1e6,
                (double)all / size / iters / NCOLL);
    }
    if (!rank) printf("chaos-order overhead: %+.1f %%\n", 100.0 * (times[1] / times[0] - 1));
    for (int c = 0; c < NCOLL; c++) {
        DFC_Request_free(&req[c]);
        cudaFree(in[c]);
        cudaFree(out[c]);
    }
}

static double used_mib(void)
{
    size_t freeb, total;
    CUDA_OK(cudaMemGetInfo(&freeb, &total));
    return (double)(total - freeb) / (1 << 20);
}

int main(int argc, char **argv)
{
    uint64_t minsize = 8, maxsize = 1 << 30;
    int iters = 100, warmup = 5, reps = 7, noanchor = 0, do_chaos = 0, mask = (1 << W_GATHER) - 1;
    int do_p2p = 0;
    const char *csv = NULL, *sizes_arg = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "-minsize")) minsize = (uint64_t)bench_parse_size(v), i++;
        else if (!strcmp(a, "-maxsize")) maxsize = (uint64_t)bench_parse_size(v), i++;
        else if (!strcmp(a, "-sizes")) sizes_arg = v, i++;
        else if (!strcmp(a, "-iters")) iters = atoi(v), i++;
        else if (!strcmp(a, "-warmup")) warmup = atoi(v), i++;
        else if (!strcmp(a, "-reps")) reps = atoi(v) > 64 ? 64 : atoi(v), i++;
        else if (!strcmp(a, "-csv")) csv = v, i++;
        else if (!strcmp(a, "-noanchor")) noanchor = 1;
        else if (!strcmp(a, "-chaos")) do_chaos = 1;
        else if (!strcmp(a, "-p2p")) do_p2p = 1;
        else if (!strcmp(a, "-workloads")) {
            mask = 0;
            for (int w = 0; w < W_COUNT; w++)
                if (bench_in_list(v, wl_name[w])) mask |= 1 << w;
            i++;
        } else {
            fprintf(stderr, "dfc_bench_gpu: unknown argument %s\n", a);
            return 1;
        }
    }
    uint64_t sizes[64];
    int nsizes = 0;
    if (sizes_arg) { /* an explicit list; the buffers are sized for its largest entry */
        maxsize = 0;
        for (const char *p = sizes_arg; *p && nsizes < 64;
             p = strchr(p, ',') ? strchr(p, ',') + 1 : "") {
            sizes[nsizes] = (uint64_t)bench_parse_size(p);
            if (sizes[nsizes] > maxsize) maxsize = sizes[nsizes];
            nsizes++;
        }
    } else {
        for (uint64_t b = minsize; b <= maxsize && nsizes < 64; b *= 2) sizes[nsizes++] = b;
    }
    (void)noanchor; /* read only when NCCL is built in */
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    if (!lr) lr = getenv("SLURM_LOCALID");
    int ndev = 0;
    CUDA_OK(cudaGetDeviceCount(&ndev));
    CUDA_OK(cudaSetDevice((lr ? atoi(lr) : 0) % ndev));
    CUDA_OK(cudaFree(NULL)); /* the context exists before the first memory reading */
    double mem0 = used_mib();
    DFC_Init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    int device;
    DFC_Count launches;
    DFC_Get_gpu_daemon_info(&device, &launches);
    size_t total = (maxsize / sizeof(float)) + size;
    CUDA_OK(cudaMalloc((void **)&sbuf, total * sizeof(float)));
    CUDA_OK(cudaMalloc((void **)&rbuf, total * sizeof(float)));
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    double mem_bufs = used_mib();
    if (do_p2p) { /* point-to-point on device buffers (dfc_bench_gpu_p2p.c), then nothing else */
        int e = dfc_bench_gpu_p2p(sbuf, rbuf, sizes, nsizes, iters, warmup, rank, size);
        DFC_Finalize();
        return e;
    }
    int anchor = 0;
#ifdef DFC_BENCH_NCCL
    if (!noanchor) {
        ncclUniqueId id;
        if (!rank) ncclGetUniqueId(&id);
        DFC_Bcast(&id, sizeof id, DFC_BYTE, 0, DFC_COMM_WORLD);
        anchor = ncclCommInitRank(&nccl, size, id, rank) == ncclSuccess;
    }
#endif
    double mem_nccl = used_mib();
    if (!rank) {
        printf("# dfc_bench_gpu: %d ranks, DFC %s (daemon on device %d), anchor: %s\n", size,
               DFC_VERSION_STRING, device, anchor ? "NCCL" : "not available");
        printf(
            "# time = median over %d batches of the per-call time of the slowest rank; ratio = DFC / NCCL\n",
            reps);
    }
    FILE *out = csv && !rank ? fopen(csv, "w") : NULL;
    if (out) fprintf(out, "workload,ranks,bytes,dfc_us,nccl_us,ratio,dfc_busbw,nccl_busbw\n");
    int errors = 0;
    for (int w = 0; w < W_COUNT; w++) {
        if (!(mask & 1 << w)) continue;
        if (!rank)
            printf("\n%-14s %12s %10s %10s %7s %11s %11s %12s\n", wl_name[w], "bytes", "DFC us",
                   "NCCL us", "ratio", "DFC busbw", "NCCL busbw", "launch/call");
        for (int si = 0; si < nsizes; si++) {
            uint64_t bytes = sizes[si];
            size_t n = items_of(w, bytes);
            int it = (int)(bytes > 262144 ? (uint64_t)iters * 262144 / bytes : (uint64_t)iters);
            if (it < 5) it = 5;
            int spread = w == W_ALLTOALL || w == W_ALLTOALLV || w == W_REDUCE_SCATTER ||
                         w == W_SCATTER;
            if (w == W_ALLTOALLV) set_vcounts(n);
            fill_inputs(spread ? n * size : n);
            dfc_call(w, n);
            if (si == 0 || si == nsizes - 1) errors += check_result(w, n, "DFC");
            double lpc = 0, td = measure(0, w, n, it, warmup, reps, &lpc), tn = 0;
            if (anchor) {
#ifdef DFC_BENCH_NCCL
                fill_inputs(spread ? n * size : n);
                nccl_call(w, n);
                if (si == 0 || si == nsizes - 1) errors += check_result(w, n, "NCCL");
                double ignored;
                tn = measure(1, w, n, it, warmup, reps, &ignored);
#endif
            }
            td /= calls_per_result(w, n);
            tn /= calls_per_result(w, n);
            double f = busbw_factor(w), bd = bytes / td * f / 1e9,
                   bn = anchor ? bytes / tn * f / 1e9 : 0;
            if (!rank) {
                if (anchor)
                    printf("%-14s %12llu %10.1f %10.1f %7.2f %11.2f %11.2f %12.2f\n", "",
                           (unsigned long long)bytes, td * 1e6, tn * 1e6, td / tn, bd, bn, lpc);
                else
                    printf("%-14s %12llu %10.1f %10s %7s %11.2f %11s %12.2f\n", "",
                           (unsigned long long)bytes, td * 1e6, "-", "-", bd, "-", lpc);
                if (out)
                    fprintf(out, "%s,%d,%llu,%.3f,%.3f,%.4f,%.3f,%.3f\n", wl_name[w], size,
                            (unsigned long long)bytes, td * 1e6, tn * 1e6, anchor ? td / tn : 0, bd,
                            bn);
            }
        }
    }
    if (do_chaos) chaos(iters);
    double mem_end = used_mib();
    DFC_Get_gpu_daemon_info(&device, &launches);
    double mem_dfc_max = 0, mine = mem_bufs - mem0 - (double)2 * total * sizeof(float) / (1 << 20);
    DFC_Allreduce(&mine, &mem_dfc_max, 1, DFC_DOUBLE, DFC_MAX, DFC_COMM_WORLD);
    if (!rank) {
        printf(
            "\n# device memory per GPU (max over ranks): DFC %.0f MiB (mailboxes, daemon state); NCCL %s%.0f MiB "
            "after init; %.0f MiB in use at the end\n",
            mem_dfc_max, anchor ? "" : "n/a ", mem_nccl - mem_bufs, mem_end);
        printf("# daemon kernel launches on rank 0: %lld\n", (long long)launches);
    }
    int all_errors = 0;
    DFC_Allreduce(&errors, &all_errors, 1, DFC_INT, DFC_SUM, DFC_COMM_WORLD);
    if (!rank && all_errors) printf("# %d result check(s) FAILED\n", all_errors);
    if (out) fclose(out);
#ifdef DFC_BENCH_NCCL
    if (anchor) ncclCommDestroy(nccl);
#endif
    DFC_Finalize();
    return all_errors ? 1 : 0;
}
