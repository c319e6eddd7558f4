/*
 * devbuf - point-to-point and every collective on CUDA device buffers, checked element by
 * element against host references; then the crossed-order scenario that hangs NCCL
 * (shared/lab/anchors.md): two communicators, each rank initiating them in opposite orders
 * with cudaDeviceSynchronize, cudaFree or cudaMalloc in between.
 *
 * Runs on the GPU machine only (test/mpi-style/gpu/testlist); one process per GPU, the
 * local rank picks the device. A watchdog fails the test on a hang.
 */
#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devtest.h"

static int rank, size;

static int *dev_ints(size_t n, int poison)
{
    int *d;
    CUDA_OK(cudaMalloc((void **)&d, n * sizeof(int) + 1));
    int *h = malloc(n * sizeof(int) + 1);
    for (size_t i = 0; i < n; i++) h[i] = poison;
    DEV_UPLOAD(d, h, n * sizeof(int));
    free(h);
    return d;
}

static void to_dev(int *d, const int *h, size_t n) { DEV_UPLOAD(d, h, n * sizeof(int)); }

static int *to_host(const int *d, size_t n)
{
    int *h = malloc(n * sizeof(int) + 1);
    CUDA_OK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    return h;
}

static int input(int r, size_t i, int iter)
{
    return (int)((r + 1) * 131 + i * 7 + iter * 3) % 1000;
}

static void check_ints(const char *what, const int *d, const int *want, size_t n)
{
    int *got = to_host(d, n);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            DFCT_CHECK(0, "%s: element %zu is %d, expected %d", what, i, got[i], want[i]);
            break;
        }
    free(got);
}

static void test_p2p(size_t n)
{
    int *h = malloc(n * sizeof(int) + 1), *want = malloc(n * sizeof(int) + 1);
    int *sd = dev_ints(n, 0), *rd = dev_ints(n, -1);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (size_t i = 0; i < n; i++) h[i] = input(rank, i, 0), want[i] = input(left, i, 0);
    to_dev(sd, h, n);
    DFC_Request req[2];
    DFCT_OK(DFC_Irecv(rd, (int)n, DFC_INT, left, 5, DFC_COMM_WORLD, &req[0]));
    DFCT_OK(DFC_Isend(sd, (int)n, DFC_INT, right, 5, DFC_COMM_WORLD, &req[1]));
    DFCT_OK(DFC_Waitall(2, req, DFC_STATUSES_IGNORE));
    check_ints("Isend/Irecv ring", rd, want, n);
    DEV_MEMSET(rd, 0xff, n * sizeof(int));
    DFCT_OK(DFC_Sendrecv(sd, (int)n, DFC_INT, right, 6, rd, (int)n, DFC_INT, left, 6,
                         DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    check_ints("Sendrecv ring", rd, want, n);
    cudaFree(sd);
    cudaFree(rd);
    free(h);
    free(want);
}

static void test_collectives(size_t n)
{
    size_t N = n * (size_t)size;
    int *h = malloc(N * sizeof(int) + 1), *want = malloc(N * sizeof(int) + 1);
    int *sd = dev_ints(N, 0), *rd = dev_ints(N, -7);
    for (size_t i = 0; i < N; i++) h[i] = input(rank, i, 1);
    to_dev(sd, h, N);

    /* Allreduce (blocking, nonblocking, persistent twice) */
    for (size_t i = 0; i < n; i++) {
        want[i] = 0;
        for (int r = 0; r < size; r++) want[i] += input(r, i, 1);
    }
    DFCT_OK(DFC_Allreduce(sd, rd, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    check_ints("Allreduce", rd, want, n);
    DFC_Request req;
    DEV_MEMSET(rd, 0xff, n * sizeof(int));
    DFCT_OK(DFC_Iallreduce(sd, rd, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    check_ints("Iallreduce", rd, want, n);
    DFCT_OK(
        DFC_Allreduce_init(sd, rd, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD, DFC_INFO_NULL, &req));
    for (int it = 0; it < 2; it++) {
        DEV_MEMSET(rd, 0xff, n * sizeof(int));
        DFCT_OK(DFC_Start(&req));
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
        check_ints("Allreduce_init", rd, want, n);
    }
    DFCT_OK(DFC_Request_free(&req));

    /* Bcast from the last rank, in place on the device buffer */
    int root = size - 1;
    for (size_t i = 0; i < n; i++) want[i] = input(root, i, 1);
    if (rank == root) to_dev(rd, want, n);
    else DEV_MEMSET(rd, 0xff, n * sizeof(int));
    DFCT_OK(DFC_Bcast(rd, (int)n, DFC_INT, root, DFC_COMM_WORLD));
    check_ints("Bcast", rd, want, n);

    /* Reduce to rank 0 with MAX */
    for (size_t i = 0; i < n; i++) {
        want[i] = input(0, i, 1);
        for (int r = 1; r < size; r++)
            want[i] = input(r, i, 1) > want[i] ? input(r, i, 1) : want[i];
    }
    DEV_MEMSET(rd, 0xff, n * sizeof(int));
    DFCT_OK(DFC_Reduce(sd, rd, (int)n, DFC_INT, DFC_MAX, 0, DFC_COMM_WORLD));
    if (rank == 0) check_ints("Reduce", rd, want, n);

    /* Allgather, Alltoall, Reduce_scatter_block, Scan */
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < n; i++) want[r * n + i] = input(r, i, 1);
    DEV_MEMSET(rd, 0xff, N * sizeof(int));
    DFCT_OK(DFC_Allgather(sd, (int)n, DFC_INT, rd, (int)n, DFC_INT, DFC_COMM_WORLD));
    check_ints("Allgather", rd, want, N);
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < n; i++) want[r * n + i] = input(r, rank * n + i, 1);
    DEV_MEMSET(rd, 0xff, N * sizeof(int));
    DFCT_OK(DFC_Alltoall(sd, (int)n, DFC_INT, rd, (int)n, DFC_INT, DFC_COMM_WORLD));
    check_ints("Alltoall", rd, want, N);
    for (size_t i = 0; i < n; i++) {
        want[i] = 0;
        for (int r = 0; r < size; r++) want[i] += input(r, rank * n + i, 1);
    }
    DEV_MEMSET(rd, 0xff, n * sizeof(int));
    DFCT_OK(DFC_Reduce_scatter_block(sd, rd, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    check_ints("Reduce_scatter_block", rd, want, n);
    for (size_t i = 0; i < n; i++) {
        want[i] = 0;
        for (int r = 0; r <= rank; r++) want[i] += input(r, i, 1);
    }
    DEV_MEMSET(rd, 0xff, n * sizeof(int));
    DFCT_OK(DFC_Scan(sd, rd, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    check_ints("Scan", rd, want, n);
    cudaFree(sd);
    cudaFree(rd);
    free(h);
    free(want);
}

/* The NCCL hang: comm A and B; even ranks issue A then B, odd ranks B then A, with a GPU
 * synchronization (or cudaFree, or cudaMalloc) between the two calls. */
static void test_crossed(int what, size_t n)
{
    DFC_Comm a, b;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &a));
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &b));
    int *sa = dev_ints(n, rank + 1), *ra = dev_ints(n, -1), *sb = dev_ints(n, 2 * (rank + 1)),
        *rb = dev_ints(n, -1);
    DFC_Request req[2];
    DFC_Comm first = rank % 2 ? b : a, second = rank % 2 ? a : b;
    int *s1 = rank % 2 ? sb : sa, *r1 = rank % 2 ? rb : ra, *s2 = rank % 2 ? sa : sb,
        *r2 = rank % 2 ? ra : rb;
    DFCT_OK(DFC_Iallreduce(s1, r1, (int)n, DFC_INT, DFC_SUM, first, &req[0]));
    if (what == 0) CUDA_OK(cudaDeviceSynchronize());
    if (what == 1) {
        void *p;
        CUDA_OK(cudaMalloc(&p, 1 << 20));
        CUDA_OK(cudaFree(p));
    }
    if (what == 2) {
        void *p;
        CUDA_OK(cudaMalloc(&p, 64 << 20));
        cudaFree(p);
    }
    DFCT_OK(DFC_Iallreduce(s2, r2, (int)n, DFC_INT, DFC_SUM, second, &req[1]));
    DFCT_OK(DFC_Waitall(2, req, DFC_STATUSES_IGNORE));
    int *want = malloc(n * sizeof(int) + 1);
    for (size_t i = 0; i < n; i++) want[i] = size * (size + 1) / 2;
    check_ints("crossed allreduce on A", ra, want, n);
    for (size_t i = 0; i < n; i++) want[i] = size * (size + 1);
    check_ints("crossed allreduce on B", rb, want, n);
    free(want);
    cudaFree(sa);
    cudaFree(ra);
    cudaFree(sb);
    cudaFree(rb);
    DFC_Comm_free(&a);
    DFC_Comm_free(&b);
}

int main(int argc, char **argv)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "devbuf: no CUDA device; this test runs on the GPU machine only\n");
        return 77;
    }
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    if (!lr) lr = getenv("SLURM_LOCALID");
    CUDA_OK(cudaSetDevice((lr ? atoi(lr) : 0) % ndev));
    dev_watchdog(120);
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    size_t sizes[] = {1, 1000, 1 << 20};
    for (int k = 0; k < 3; k++) {
        test_p2p(sizes[k]);
        test_collectives(sizes[k]);
    }
    for (int what = 0; what < 3; what++) test_crossed(what, 1 << 16);
    return dfct_finalize();
}
