/*
 * dfc_bench_gpu_p2p.c - dfc_bench_gpu -p2p: point-to-point on device buffers between ranks 0
 * and 1 (dfc(7) "Device buffers"), each beside its limit, measured in one run:
 *   pingpong  half the round trip of Send/Recv on device buffers, beside the same on host
 *             buffers (DFC's host path); the median of 5 batches;
 *   bw        a window of Isends from rank 0's send buffer into rank 1's receive buffer
 *             (then a 1-byte reply), beside cudaMemcpyAsync device to device between the
 *             same two allocations (rank 1's opened by CUDA IPC in rank 0), time per byte,
 *             and beside the same window on host buffers (DFC's host path: what issue 15's
 *             80 % is measured against when the ranks are on different nodes).
 * Other ranks wait in the final barrier.
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dfc.h"

#define WINDOW 8

static double wtime(void) { return DFC_Wtime(); }

/* The median of PP_BATCHES batches of iters round trips (after the warm-up), half a round
 * trip each: one stall of a batch (a first-time mapping, a preempted rank) moves a single
 * batch, not the figure. */
#define PP_BATCHES 5
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pingpong(void *s, void *r, uint64_t bytes, int iters, int warmup, int rank)
{
    double t[PP_BATCHES];
    int n = (int)bytes;
    for (int b = -1; b < PP_BATCHES; b++) { /* batch -1: the warm-up */
        int m = b < 0 ? warmup : iters;
        double t0 = wtime();
        for (int i = 0; i < m; i++) {
            if (rank == 0) {
                DFC_Send(s, n, DFC_BYTE, 1, 1, DFC_COMM_WORLD);
                DFC_Recv(r, n, DFC_BYTE, 1, 1, DFC_COMM_WORLD, DFC_STATUS_IGNORE);
            } else {
                DFC_Recv(r, n, DFC_BYTE, 0, 1, DFC_COMM_WORLD, DFC_STATUS_IGNORE);
                DFC_Send(s, n, DFC_BYTE, 0, 1, DFC_COMM_WORLD);
            }
        }
        if (b >= 0) t[b] = (wtime() - t0) / iters / 2 * 1e6;
    }
    qsort(t, PP_BATCHES, sizeof t[0], cmp_double);
    return t[PP_BATCHES / 2];
}

static double bandwidth(void *s, void *r, uint64_t bytes, int iters, int warmup, int rank)
{
    DFC_Request q[WINDOW];
    double t0 = 0;
    char ack = 0;
    int n = (int)bytes;
    for (int i = 0; i < iters + warmup; i++) {
        if (i == warmup) t0 = wtime();
        for (int k = 0; k < WINDOW; k++) {
            if (rank == 0) DFC_Isend(s, n, DFC_BYTE, 1, 2, DFC_COMM_WORLD, &q[k]);
            else DFC_Irecv(r, n, DFC_BYTE, 0, 2, DFC_COMM_WORLD, &q[k]);
        }
        DFC_Waitall(WINDOW, q, DFC_STATUSES_IGNORE);
        if (rank == 0) DFC_Recv(&ack, 1, DFC_BYTE, 1, 3, DFC_COMM_WORLD, DFC_STATUS_IGNORE);
        else DFC_Send(&ack, 1, DFC_BYTE, 0, 3, DFC_COMM_WORLD);
    }
    return (double)bytes * WINDOW * iters / (wtime() - t0) / 1e9;
}

/* The copies a staged small message makes (device to host at the sender, host to device at
 * the receiver), in us: the floor of the staged path without the transport. */
static double staged_floor(void *dev, void *host, uint64_t bytes, int iters)
{
    double t0 = wtime();
    for (int i = 0; i < iters; i++) {
        cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
        cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
    }
    return (wtime() - t0) / iters * 1e6;
}

/* cudaMemcpyAsync from rank 0's s into rank 1's r (opened here), GB/s; -1 where it fails. */
static double memcpy_ref(void *s, void *peer_r, uint64_t bytes, int iters, cudaStream_t st)
{
    if (!peer_r) return -1;
    for (int i = 0; i < 2; i++) cudaMemcpyAsync(peer_r, s, bytes, cudaMemcpyDeviceToDevice, st);
    cudaStreamSynchronize(st);
    double t0 = wtime();
    for (int i = 0; i < iters * WINDOW; i++)
        cudaMemcpyAsync(peer_r, s, bytes, cudaMemcpyDeviceToDevice, st);
    if (cudaStreamSynchronize(st) != cudaSuccess) return -1;
    return (double)bytes * WINDOW * iters / (wtime() - t0) / 1e9;
}

int dfc_bench_gpu_p2p(void *sbuf, void *rbuf, const uint64_t *sizes, int nsizes, int iters,
                      int warmup, int rank, int size)
{
    if (size < 2) {
        if (!rank) fprintf(stderr, "dfc_bench_gpu -p2p needs 2 ranks\n");
        return 1;
    }
    uint64_t max = 0;
    for (int i = 0; i < nsizes; i++) max = sizes[i] > max ? sizes[i] : max;
    void *hs = malloc(max + 1), *hr = malloc(max + 1), *peer_r = NULL;
    cudaStream_t st;
    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    cudaIpcMemHandle_t h;
    if (rank == 1) {
        if (cudaIpcGetMemHandle(&h, rbuf) != cudaSuccess) cudaGetLastError();
        DFC_Send(&h, sizeof h, DFC_BYTE, 0, 4, DFC_COMM_WORLD);
    } else if (rank == 0) {
        DFC_Recv(&h, sizeof h, DFC_BYTE, 1, 4, DFC_COMM_WORLD, DFC_STATUS_IGNORE);
        if (cudaIpcOpenMemHandle(&peer_r, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess)
            peer_r = NULL, cudaGetLastError();
        printf("# dfc_bench_gpu -p2p: ranks 0 and 1 of %d; pingpong = half round trip (us); bw: "
               "window of %d, GB/s; memcpy = cudaMemcpyAsync D2D between the same buffers\n",
               size, WINDOW);
        printf("%12s %12s %12s %12s %12s %12s %12s %8s %12s %8s\n", "bytes", "dev_pp_us",
               "host_pp_us", "dev-host_us", "d2h+h2d_us", "dev_bw_GBs", "memcpy_GBs", "bw/cpy",
               "host_bw_GBs", "dev/host");
    }
    for (int i = 0; i < nsizes && rank < 2; i++) {
        uint64_t b = sizes[i];
        int it = b >= (16u << 20) ? 20 : b >= (1u << 20) ? 100 : iters;
        double dpp = pingpong(sbuf, rbuf, b, it, warmup, rank);
        double hpp = pingpong(hs, hr, b, it, warmup, rank);
        double dbw = bandwidth(sbuf, rbuf, b, it / 2 + 1, 1, rank);
        double hbw = bandwidth(hs, hr, b, it / 2 + 1, 1, rank);
        double ref = rank == 0 ? memcpy_ref(sbuf, peer_r, b, it / 2 + 1, st) : 0;
        double flo = rank == 0 && b <= (1u << 20) ? staged_floor(sbuf, hs, b, it) : 0;
        if (rank == 0)
            printf("%12llu %12.2f %12.2f %12.2f %12.2f %12.2f %12.2f %7.0f%% %12.2f %7.0f%%\n",
                   (unsigned long long)b, dpp, hpp, dpp - hpp, flo, dbw, ref,
                   ref > 0 ? 100 * dbw / ref : 0.0, hbw, hbw > 0 ? 100 * dbw / hbw : 0.0);
    }
    if (peer_r) cudaIpcCloseMemHandle(peer_r);
    cudaStreamDestroy(st);
    free(hs);
    free(hr);
    DFC_Barrier(DFC_COMM_WORLD);
    return 0;
}
