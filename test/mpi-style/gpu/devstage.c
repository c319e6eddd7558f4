/*
 * devstage - the staging fallback on device buffers (issue 14 item 3): run with
 * DFC_GPU_DAEMON=0 (testlist), or with ranks sharing a GPU without MPS, so that every call
 * below is staged through DFC's pinned buffers. Checked element by element against host
 * references, outputs poisoned first, 8 guard items past every output that must stay as
 * they were, at 0 and 1 items, odd counts, counts around the chunk (DFC_STAGE_CHUNK, given
 * on the command line as -chunk=BYTES so the sizes follow it) and many chunks, 64 MiB and
 * above with -big:
 *   - pipelined: blocking Allreduce (out of place, in place, host send with device receive,
 *     a user op), Reduce (to rank 0 and the last rank, in place at the root), Bcast;
 *   - whole-buffer shadows: Iallreduce, persistent Allreduce_init, Allgather, Scan;
 *   - point-to-point: Send/Recv into a longer buffer (its tail untouched), Isend/Irecv,
 *     Sendrecv, Sendrecv_replace.
 * Each pass runs twice so that the second takes the pool's buffers again.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devtest.h"

#define GUARD 8
static int rank, size;

static int input(int r, size_t i, int salt)
{
    return (int)((r + 1) * 131 + i * 7 + salt * 3) % 1000;
}

static int *dev_fill(size_t n, int r, int salt, int poison)
{
    int *d, *h = malloc((n + GUARD) * sizeof(int));
    CUDA_OK(cudaMalloc((void **)&d, (n + GUARD) * sizeof(int)));
    for (size_t i = 0; i < n + GUARD; i++) h[i] = i < n && r >= 0 ? input(r, i, salt) : poison;
    DEV_UPLOAD(d, h, (n + GUARD) * sizeof(int));
    free(h);
    return d;
}

/* d holds want[0..n) and the poison in its guard items. */
static void check(const char *what, size_t n, const int *d, const int *want, int poison)
{
    int *h = malloc((n + GUARD) * sizeof(int));
    CUDA_OK(cudaMemcpy(h, d, (n + GUARD) * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n + GUARD; i++) {
        int w = i < n ? want[i] : poison;
        if (h[i] != w) {
            DFCT_CHECK(0, "%s, %zu items: item %zu is %d, expected %d%s", what, n, i, h[i], w,
                       i >= n ? " (past the output)" : "");
            break;
        }
    }
    free(h);
}

static void sum_of_all(size_t n, int salt, int *want)
{
    for (size_t i = 0; i < n; i++) {
        want[i] = 0;
        for (int r = 0; r < size; r++) want[i] += input(r, i, salt);
    }
}

/* a user op (elementwise max): user ops never run in the daemon, so they stage */
static void user_max(void *in, void *inout, int *len, DFC_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++) b[i] = a[i] > b[i] ? a[i] : b[i];
}

static void test_allreduce(size_t n, int *want, DFC_Op umax)
{
    int *sd = dev_fill(n, rank, 1, 0), *rd = dev_fill(n, -1, 0, -5);
    sum_of_all(n, 1, want);
    DFCT_OK(DFC_Allreduce(sd, rd, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    check("Allreduce", n, rd, want, -5);
    cudaFree(rd);
    rd = dev_fill(n, rank, 1, -5); /* in place */
    DFCT_OK(DFC_Allreduce(DFC_IN_PLACE, rd, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    check("Allreduce in place", n, rd, want, -5);
    int *hs = malloc((n + 1) * sizeof(int)); /* host send, device receive */
    for (size_t i = 0; i < n; i++) hs[i] = input(rank, i, 1);
    DEV_MEMSET(rd, 0xff, n * sizeof(int));
    DFCT_OK(DFC_Allreduce(hs, rd, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    check("Allreduce host to device", n, rd, want, -5);
    for (size_t i = 0; i < n; i++) {
        want[i] = input(0, i, 1);
        for (int r = 1; r < size; r++)
            want[i] = input(r, i, 1) > want[i] ? input(r, i, 1) : want[i];
    }
    DEV_MEMSET(rd, 0xff, n * sizeof(int));
    DFCT_OK(DFC_Allreduce(sd, rd, (int)n, DFC_INT, umax, DFC_COMM_WORLD));
    check("Allreduce user op", n, rd, want, -5);
    free(hs);
    cudaFree(sd);
    cudaFree(rd);
}

static void test_reduce_bcast(size_t n, int *want)
{
    for (int pass = 0; pass < 2; pass++) {
        int root = pass ? size - 1 : 0;
        int *sd = dev_fill(n, rank, 2, 0), *rd = dev_fill(n, -1, 0, -6);
        sum_of_all(n, 2, want);
        DFCT_OK(DFC_Reduce(sd, rd, (int)n, DFC_INT, DFC_SUM, root, DFC_COMM_WORLD));
        if (rank == root) check("Reduce", n, rd, want, -6);
        else check("Reduce (not root: recvbuf untouched)", 0, rd, want, -6);
        cudaFree(rd);
        rd = dev_fill(n, rank, 2, -6);
        DFCT_OK(DFC_Reduce(rank == root ? DFC_IN_PLACE : rd, rank == root ? rd : NULL, (int)n,
                           DFC_INT, DFC_SUM, root, DFC_COMM_WORLD));
        if (rank == root) check("Reduce in place", n, rd, want, -6);
        cudaFree(rd);
        for (size_t i = 0; i < n; i++) want[i] = input(root, i, 3);
        rd = rank == root ? dev_fill(n, root, 3, -7) : dev_fill(n, -1, 0, -7);
        DFCT_OK(DFC_Bcast(rd, (int)n, DFC_INT, root, DFC_COMM_WORLD));
        check("Bcast", n, rd, want, -7);
        cudaFree(sd);
        cudaFree(rd);
    }
}

static void test_shadowed(size_t n, int *want)
{
    int *sd = dev_fill(n, rank, 4, 0), *rd = dev_fill(n, -1, 0, -8);
    DFC_Request req;
    sum_of_all(n, 4, want);
    DFCT_OK(DFC_Iallreduce(sd, rd, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    check("Iallreduce", n, rd, want, -8);
    DFCT_OK(
        DFC_Allreduce_init(sd, rd, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD, DFC_INFO_NULL, &req));
    for (int it = 0; it < 2; it++) {
        DEV_MEMSET(rd, 0xff, n * sizeof(int));
        DFCT_OK(DFC_Start(&req));
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
        check("Allreduce_init", n, rd, want, -8);
    }
    DFCT_OK(DFC_Request_free(&req));
    for (size_t i = 0; i < n; i++) {
        want[i] = 0;
        for (int r = 0; r <= rank; r++) want[i] += input(r, i, 4);
    }
    DEV_MEMSET(rd, 0xff, n * sizeof(int));
    DFCT_OK(DFC_Scan(sd, rd, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    check("Scan", n, rd, want, -8);
    cudaFree(rd);
    size_t m = n < 100000 ? n : 100000, N = m * (size_t)size;
    int *ag = dev_fill(N, -1, 0, -9), *w2 = malloc((N + 1) * sizeof(int));
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < m; i++) w2[r * m + i] = input(r, i, 4);
    DFCT_OK(DFC_Allgather(sd, (int)m, DFC_INT, ag, (int)m, DFC_INT, DFC_COMM_WORLD));
    check("Allgather", N, ag, w2, -9);
    free(w2);
    cudaFree(ag);
    cudaFree(sd);
}

static void test_p2p(size_t n, int *want)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *sd = dev_fill(n, rank, 5, 0), *rd = dev_fill(n + 3, -1, 0, -10);
    for (size_t i = 0; i < n; i++) want[i] = input(left, i, 5);
    for (size_t i = n; i < n + 3; i++) want[i] = -10; /* a shorter message leaves them */
    DFC_Status st;
    if (rank % 2 == 0) {
        DFCT_OK(DFC_Send(sd, (int)n, DFC_INT, right, 1, DFC_COMM_WORLD));
        DFCT_OK(DFC_Recv(rd, (int)n + 3, DFC_INT, left, 1, DFC_COMM_WORLD, &st));
    } else {
        DFCT_OK(DFC_Recv(rd, (int)n + 3, DFC_INT, left, 1, DFC_COMM_WORLD, &st));
        DFCT_OK(DFC_Send(sd, (int)n, DFC_INT, right, 1, DFC_COMM_WORLD));
    }
    int got = -1;
    DFC_Get_count(&st, DFC_INT, &got);
    DFCT_CHECK(got == (int)n, "Recv: count %d, expected %zu", got, n);
    check("Send/Recv", n + 3, rd, want, -10);
    DEV_MEMSET(rd, 0xff, n * sizeof(int));
    DFC_Request req[2];
    DFCT_OK(DFC_Irecv(rd, (int)n, DFC_INT, left, 2, DFC_COMM_WORLD, &req[0]));
    DFCT_OK(DFC_Isend(sd, (int)n, DFC_INT, right, 2, DFC_COMM_WORLD, &req[1]));
    DFCT_OK(DFC_Waitall(2, req, DFC_STATUSES_IGNORE));
    check("Isend/Irecv", n + 3, rd, want, -10);
    DEV_MEMSET(rd, 0xff, n * sizeof(int));
    DFCT_OK(DFC_Sendrecv(sd, (int)n, DFC_INT, right, 3, rd, (int)n, DFC_INT, left, 3,
                         DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    check("Sendrecv", n + 3, rd, want, -10);
    DFCT_OK(DFC_Sendrecv_replace(sd, (int)n, DFC_INT, right, 4, left, 4, DFC_COMM_WORLD,
                                 DFC_STATUS_IGNORE));
    check("Sendrecv_replace", n, sd, want, 0);
    cudaFree(sd);
    cudaFree(rd);
}

int main(int argc, char **argv)
{
    int ndev = 0, big = 0;
    size_t chunk = 4 << 20;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "devstage: no CUDA device; this test runs on the GPU machine only\n");
        return 77;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-big")) big = 1;
        else if (!strncmp(argv[i], "-chunk=", 7)) chunk = strtoul(argv[i] + 7, NULL, 10);
    }
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    if (!lr) lr = getenv("SLURM_LOCALID");
    CUDA_OK(cudaSetDevice((lr ? atoi(lr) : 0) % ndev));
    dev_watchdog(big ? 500 : 240);
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Op umax;
    DFCT_OK(DFC_Op_create(user_max, 1, &umax));
    size_t ci = chunk / sizeof(int);
    size_t sizes[] = {0, 1, 3, 1001, ci - 1, ci, ci + 1, 5 * ci + 7, (16u << 20) + 3};
    int nsizes = big ? 9 : 8;
    int *want = malloc(((16u << 20) + 16) * sizeof(int) * (size_t)(big ? 1 : 1));
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < nsizes; k++) {
            test_allreduce(sizes[k], want, umax);
            test_reduce_bcast(sizes[k], want);
            test_shadowed(sizes[k], want);
            test_p2p(sizes[k], want);
        }
    free(want);
    DFC_Op_free(&umax);
    return dfct_finalize();
}
