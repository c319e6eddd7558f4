/*
 * devproxy - the GPU daemon through its host proxy (issue 15), run with DFC_GPU_PROXY=force
 * so that every other rank counts as remote, also on one node (testlist-mps: 2 and 4 ranks on
 * one GPU under MPS). The test requires that every peer is reached through the proxy
 * (dfc_gpu_daemon_remote) and that the proxy carried chunks both ways.
 *
 *   -case=sizes  allreduce, reduce, bcast, allgather, alltoall, reduce_scatter_block,
 *                gather and scatter on
 *                int buffers of 0 B to -max= bytes (default 64 MiB): 0, 1, 3, 1025 and
 *                16385 ints, then 4 KiB to -max by 4x, each plus 3 ints (odd tails): fresh
 *                inputs, poisoned outputs, every element checked on the host.
 *   -case=cross  a crossed order on two communicators: even ranks start DFC_Iallreduce on A,
 *                then cudaDeviceSynchronize, cudaFree and cudaMalloc, then a blocking
 *                DFC_Allreduce on B; odd ranks DFC_Allreduce on B first, then the same
 *                device calls, then DFC_Iallreduce on A; then Wait. -iters=N (default 6).
 *   -case=kill   the last rank kills itself (SIGKILL) right after starting a 64 MiB
 *                DFC_Iallreduce on WORLD; the survivors' Wait fails with DFC_ERR_PROC_FAILED
 *                naming it, then an allreduce on the survivors' communicator is correct.
 * -rails: a job of more daemon processes than DFC_GPU_PEERS_MAX on simulated nodes
 * (testlist-mps-nodes), without DFC_GPU_PROXY=force: the daemons must connect by rails
 * (every rank's daemon takes part, some ranks are no peer of this one, the peers on other
 * nodes are behind the proxy), and every call of -case=sizes must run in the daemon (the
 * proxy carried chunks for it, summed over the job), but those staged (the proxy carried
 * none): a bcast below 64 KiB, a reduce below 128 KiB, and gather, scatter and alltoall
 * unless DFC_<KIND>_ALGORITHM forces the hierarchical algorithm; empty calls move nothing.
 * -ring (with -rails, and DFC_GPU_PEERS_MAX small enough): the daemons connect only their
 * rail's neighbours on the ring of the nodes, and only allreduce, allgather,
 * reduce_scatter_block, bcast (from 64 KiB) and reduce (from 128 KiB; these two by a chain
 * around the nodes) run there. On nodes of unequal counts the same run there: allreduce,
 * reduce, bcast, allgather and reduce_scatter_block, whose hierarchical algorithms fold the
 * surplus ranks in and out, and gather, scatter and alltoall when forced, whose node
 * leaders (core ranks) carry the surplus ranks' blocks (gather and scatter from a surplus
 * root too: the root moves with each call); a surplus rank's proxy carries nothing (it
 * talks to node mates only).
 * Every case runs under a watchdog (-watchdog=S, default 200): a hang prints
 * "watchdog: the test hung" and exits 3.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devtest.h"
#include "gpu/dfc_gpu.h"

static int rank, size, victim = -1;

#define FAIL_VICTIM victim
#include "../faults/failcheck.h"

static int *dev_alloc(size_t n)
{
    void *p = NULL;
    CUDA_OK(cudaMalloc(&p, n ? n * sizeof(int) : 4));
    return p;
}

static void put(int *dev, const int *host, size_t n)
{
    if (n) DEV_UPLOAD(dev, host, n * sizeof(int));
}
static void get(int *host, const int *dev, size_t n)
{
    if (n) CUDA_OK(cudaMemcpy(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost));
}
static void poison(int *dev, size_t n)
{
    if (n) DEV_MEMSET(dev, 0xA5, n * sizeof(int));
}

/* Small values: sums of 4 ranks never overflow an int. */
static int val(int r, size_t i, int salt)
{
    return (int)(((r + 1) * 1009u + i * 7919u + salt) % 100003u);
}

enum { ALLREDUCE, REDUCE, BCAST, ALLGATHER, ALLTOALL, RSB, GATHER, SCATTER, NKINDS };
static const char *kname[NKINDS] = {"allreduce", "reduce",   "bcast",
                                    "allgather", "alltoall", "reduce_scatter_block",
                                    "gather",    "scatter"};
static int rails;                 /* -rails */
static int ring;                  /* -ring: the daemons connect their rail's ring neighbours only */
static int least_node, most_node; /* the smallest and largest node's count of ranks */
static int *local_of;             /* -rails: each rank's local index on its node */

/* Whether the environment forces the hierarchical algorithm: gather, scatter and alltoall
 * ride the rails only then (src/coll/select.c). */
static int forced_hier(const char *var)
{
    const char *v = getenv(var);
    return v && !strcmp(v, "hierarchical");
}

/* The proxy's chunks, both ways, summed over the job (host buffers: the host engine). */
static long long job_chunks(void)
{
    uint64_t out = 0, in = 0;
    dfc_gpu_daemon_proxy_counts(&out, &in);
    long long mine = (long long)(out + in), all = 0;
    DFCT_OK(DFC_Allreduce(&mine, &all, 1, DFC_LONG_LONG, DFC_SUM, DFC_COMM_WORLD));
    return all;
}

/* One collective of kind k over n ints per rank (per block for the gathers), checked. */
static void one(int k, size_t n, int salt, int *hs, int *hr, int *ds, int *dr)
{
    size_t nin = (k == ALLTOALL || k == RSB || k == SCATTER) ? n * size : n;
    size_t nout = (k == ALLGATHER || k == ALLTOALL || k == GATHER) ? n * size : n;
    int root = salt % size;
    long long chunks0 = rails ? job_chunks() : 0;
    for (size_t i = 0; i < nin; i++) hs[i] = val(rank, i, salt);
    put(ds, hs, nin);
    poison(dr, nout);
    CUDA_OK(cudaDeviceSynchronize());
    int c = (int)n;
    if (k == ALLREDUCE) DFCT_OK(DFC_Allreduce(ds, dr, c, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    if (k == REDUCE) DFCT_OK(DFC_Reduce(ds, dr, c, DFC_INT, DFC_SUM, root, DFC_COMM_WORLD));
    if (k == BCAST) {
        if (rank == root) CUDA_OK(cudaMemcpy(dr, ds, n * sizeof(int), cudaMemcpyDeviceToDevice));
        DFCT_OK(DFC_Bcast(dr, c, DFC_INT, root, DFC_COMM_WORLD));
    }
    if (k == ALLGATHER) DFCT_OK(DFC_Allgather(ds, c, DFC_INT, dr, c, DFC_INT, DFC_COMM_WORLD));
    if (k == ALLTOALL) DFCT_OK(DFC_Alltoall(ds, c, DFC_INT, dr, c, DFC_INT, DFC_COMM_WORLD));
    if (k == RSB) DFCT_OK(DFC_Reduce_scatter_block(ds, dr, c, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    if (k == GATHER) DFCT_OK(DFC_Gather(ds, c, DFC_INT, dr, c, DFC_INT, root, DFC_COMM_WORLD));
    if (k == SCATTER) DFCT_OK(DFC_Scatter(ds, c, DFC_INT, dr, c, DFC_INT, root, DFC_COMM_WORLD));
    if (rails) { /* the calls that run in the daemon over rails, and the staged ones (top) */
        long long moved = job_chunks() - chunks0;
        int daemon = n > 0 && !(k == BCAST && n * sizeof(int) < 65536) &&
                     !(k == REDUCE && n * sizeof(int) < 131072) &&
                     !(k == GATHER && !forced_hier("DFC_GATHER_ALGORITHM")) &&
                     !(k == SCATTER && !forced_hier("DFC_SCATTER_ALGORITHM")) &&
                     !(k == ALLTOALL && !forced_hier("DFC_ALLTOALL_ALGORITHM"));
        if (ring)
            daemon = n > 0 && (k == ALLREDUCE || k == ALLGATHER || k == RSB ||
                               (k == BCAST && n * sizeof(int) >= 65536) ||
                               (k == REDUCE && n * sizeof(int) >= 131072));
        DFCT_CHECK(daemon ? moved > 0 : moved == 0, "%s of %zu ints: the proxy carried %lld chunks",
                   kname[k], n, moved);
    }
    if ((k == REDUCE || k == GATHER) && rank != root) return;
    get(hr, dr, nout);
    int bad = 0;
    for (size_t i = 0; i < nout && bad < 3; i++) {
        int want = 0;
        if (k == ALLREDUCE || k == REDUCE || k == RSB) {
            size_t j = k == RSB ? (size_t)rank * n + i : i;
            for (int r = 0; r < size; r++) want += val(r, j, salt);
        } else if (k == BCAST) {
            want = val(root, i, salt);
        } else if (k == ALLGATHER || k == GATHER) {
            want = val((int)(i / (n ? n : 1)), i % (n ? n : 1), salt);
        } else if (k == SCATTER) { /* block `rank` of the root's input */
            want = val(root, (size_t)rank * n + i, salt);
        } else { /* alltoall: block r of my output is block `rank` of r's input */
            want = val((int)(i / n), (size_t)rank * n + i % n, salt);
        }
        if (hr[i] != want) {
            bad++;
            DFCT_CHECK(0, "%s of %zu ints: element %zu is %d, expected %d", kname[k], n, i, hr[i],
                       want);
        }
    }
}

static void case_sizes(size_t max_bytes)
{
    size_t counts[64], nc = 0;
    size_t small[] = {0, 1, 3, 1025, 16385};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) counts[nc++] = small[i];
    for (size_t b = 4096; b <= max_bytes && nc < 60; b *= 4) counts[nc++] = b / sizeof(int) + 3;
    size_t maxn = counts[nc - 1] * size;
    int *hs = malloc(maxn * sizeof(int)), *hr = malloc(maxn * sizeof(int));
    int *ds = dev_alloc(maxn), *dr = dev_alloc(maxn);
    if (!hs || !hr) exit(2);
    int salt = 1;
    for (size_t i = 0; i < nc; i++)
        for (int k = 0; k < NKINDS; k++) {
            size_t n = counts[i];
            if ((k == ALLTOALL || k == ALLGATHER || k == RSB || k == GATHER || k == SCATTER) &&
                n * size * 4 > max_bytes * 2)
                n = max_bytes / 4 / size + 3; /* the gathered buffer stays near -max */
            one(k, n, salt++, hs, hr, ds, dr);
        }
    CUDA_OK(cudaFree(ds));
    CUDA_OK(cudaFree(dr));
    free(hs);
    free(hr);
}

static void check_sum(const int *dev, size_t n, int salt, const char *what)
{
    int *h = malloc(n * sizeof(int));
    get(h, dev, n);
    for (size_t i = 0; i < n; i++) {
        int want = 0;
        for (int r = 0; r < size; r++) want += val(r, i, salt);
        if (h[i] != want) {
            DFCT_CHECK(0, "%s: element %zu is %d, expected %d", what, i, h[i], want);
            break;
        }
    }
    free(h);
}

static void case_cross(int iters)
{
    DFC_Comm A, B;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &A));
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &B));
    size_t na = (16u << 20) / 4 + 3, nb = (4u << 20) / 4 + 1;
    int *h = malloc(na * sizeof(int)), *sa = dev_alloc(na), *ra = dev_alloc(na);
    int *sb = dev_alloc(nb), *rb = dev_alloc(nb);
    for (int it = 0; it < iters; it++) {
        for (size_t i = 0; i < na; i++) h[i] = val(rank, i, 100 + it);
        put(sa, h, na);
        for (size_t i = 0; i < nb; i++) h[i] = val(rank, i, 200 + it);
        put(sb, h, nb);
        poison(ra, na);
        poison(rb, nb);
        CUDA_OK(cudaDeviceSynchronize());
        DFC_Request req;
        void *junk = NULL;
        if (rank % 2 == 0) DFCT_OK(DFC_Iallreduce(sa, ra, (int)na, DFC_INT, DFC_SUM, A, &req));
        else DFCT_OK(DFC_Allreduce(sb, rb, (int)nb, DFC_INT, DFC_SUM, B));
        /* the daemon holds a collective its peers have not started: these must return */
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaMalloc(&junk, 1 << 20));
        CUDA_OK(cudaFree(junk));
        CUDA_OK(cudaDeviceSynchronize());
        if (rank % 2 == 0) DFCT_OK(DFC_Allreduce(sb, rb, (int)nb, DFC_INT, DFC_SUM, B));
        else DFCT_OK(DFC_Iallreduce(sa, ra, (int)na, DFC_INT, DFC_SUM, A, &req));
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
        check_sum(ra, na, 100 + it, "cross: allreduce on A");
        check_sum(rb, nb, 200 + it, "cross: allreduce on B");
    }
    cudaFree(sa), cudaFree(ra), cudaFree(sb), cudaFree(rb);
    free(h);
    DFC_Comm_free(&A);
    DFC_Comm_free(&B);
}

static void case_kill(void)
{
    victim = size - 1;
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFC_Comm live;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, rank == victim, rank, &live));
    size_t n = (64u << 20) / 4;
    int *h = malloc(n * sizeof(int)), *s = dev_alloc(n), *r = dev_alloc(n);
    for (size_t i = 0; i < n; i++) h[i] = val(rank, i, 7);
    put(s, h, n);
    CUDA_OK(cudaDeviceSynchronize());
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFC_Request req;
    DFCT_OK(DFC_Iallreduce(s, r, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD, &req));
    kill_victim_once_started(rank, size); /* in the middle of its transfers */
    double t0 = now();
    int rc = DFC_Wait(&req, DFC_STATUS_IGNORE);
    EXPECT_FAILED(rc, "DFC_Wait of the allreduce on WORLD");
    if (rank == 0) printf("devproxy: failure seen after %.3f s\n", now() - t0);
    /* the survivors go on in the daemon, through the proxy */
    poison(r, n);
    CUDA_OK(cudaDeviceSynchronize());
    size_t m = (1u << 20) + 3;
    DFCT_OK(DFC_Allreduce(s, r, (int)m, DFC_INT, DFC_SUM, live));
    int *hr = malloc(m * sizeof(int));
    get(hr, r, m);
    for (size_t i = 0; i < m; i++) {
        int want = 0;
        for (int q = 0; q < size - 1; q++) want += val(q, i, 7);
        if (hr[i] != want) {
            DFCT_CHECK(0, "allreduce among survivors: element %zu is %d, expected %d", i, hr[i],
                       want);
            break;
        }
    }
    finish_among_survivors(&live);
}

static int has_flag(int argc, char **argv, const char *flag)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], flag)) return 1;
    return 0;
}

/* The ranks' nodes: least_node and most_node, and this rank's local index. */
static int node_counts(void)
{
    DFC_Comm node;
    int local, count;
    DFCT_OK(DFC_Comm_split_type(DFC_COMM_WORLD, DFC_COMM_TYPE_SHARED, 0, DFC_INFO_NULL, &node));
    DFC_Comm_rank(node, &local);
    DFC_Comm_size(node, &count);
    DFCT_OK(DFC_Allreduce(&count, &least_node, 1, DFC_INT, DFC_MIN, DFC_COMM_WORLD));
    DFCT_OK(DFC_Allreduce(&count, &most_node, 1, DFC_INT, DFC_MAX, DFC_COMM_WORLD));
    DFC_Comm_free(&node);
    return local;
}

/* -rails: the daemons connect node mates and rail peers (WORLD's ranks are its world ranks).
 * On unequal nodes a rank whose local index the smallest node lacks may have no rail peer. */
static void check_rails(void)
{
    int local = node_counts(), surplus = local >= least_node;
    local_of = malloc((size_t)size * sizeof(int));
    if (!local_of) exit(2);
    DFCT_OK(DFC_Allgather(&local, 1, DFC_INT, local_of, 1, DFC_INT, DFC_COMM_WORLD));
    const int *rail = dfc_gpu_daemon_rails();
    DFCT_CHECK(rail != NULL, "%d daemon processes do not connect by rails", size);
    if (!rail) return;
    int remote = 0, strangers = 0;
    for (int r = 0; r < size; r++) {
        DFCT_CHECK(rail[r] >= 0, "rank %d's daemon does not take part", r);
        strangers += dfc_gpu_daemon_index(r) < 0;
        remote += r != rank && dfc_gpu_daemon_remote(r);
        if (r != rank && dfc_gpu_daemon_remote(r))
            DFCT_CHECK(rail[r] == rail[rank], "rank %d is behind the proxy off my rail", r);
    }
    DFCT_CHECK(ring ? dfc_gpu_daemon_ring() > 2 : !dfc_gpu_daemon_ring(),
               "the daemons %s a ring of %d nodes", ring ? "do not connect by" : "connect by",
               dfc_gpu_daemon_ring());
    DFCT_CHECK(strangers > 0 && (remote > 0 || surplus),
               "%d ranks outside the peer tables, %d behind the proxy: not a rail job", strangers,
               remote);
}

int main(int argc, char **argv)
{
    dev_daemon_at_every_size();
    dfct_init(&argc, &argv);
    rank = dfct_rank;
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    dev_watchdog((unsigned)dfct_opt_long(argc, argv, "watchdog", 200));
    const char *which = "sizes";
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "-case=", 6)) which = argv[i] + 6;
    int device = -1;
    DFC_Count launches = 0;
    DFC_Get_gpu_daemon_info(&device, &launches);
    DFCT_CHECK(device >= 0, "the GPU daemon is not running");
    rails = has_flag(argc, argv, "-rails");
    ring = has_flag(argc, argv, "-ring");
    if (rails) check_rails();
    else
        for (int r = 0; r < size; r++)
            DFCT_CHECK(r == rank || dfc_gpu_daemon_remote(r), "rank %d is not behind the proxy", r);
    if (!strcmp(which, "kill")) case_kill();
    if (!strcmp(which, "cross")) case_cross((int)dfct_opt_long(argc, argv, "iters", 6));
    else case_sizes((size_t)dfct_opt_long(argc, argv, "max", 64 << 20));
    uint64_t out = 0, in = 0;
    int remote = 0;
    for (int r = 0; r < size; r++) remote |= r != rank && dfc_gpu_daemon_remote(r);
    /* On rails a surplus rank talks to node mates only and carries nothing, though its rail
     * may give it a peer behind the proxy (the surplus rank of the next node, on a ring). */
    int surplus = rails && local_of[rank] >= least_node, carries = remote && !surplus;
    dfc_gpu_daemon_proxy_counts(&out, &in);
    DFCT_CHECK(carries ? out > 0 && in > 0 : out == 0 && in == 0,
               "the proxy carried %llu chunks out, %llu in (%s peer behind it%s)",
               (unsigned long long)out, (unsigned long long)in, remote ? "a" : "no",
               surplus ? ", a surplus rank" : "");
    free(local_of);
    return dfct_finalize();
}
