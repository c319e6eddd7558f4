// cudalat - floors of the small-message paths on one GPU (under MPS when started): median us
// of each CUDA call the staged and IPC paths make for 8 bytes, and the round trip through a
// resident kernel (host flag, 8 bytes copied to device memory, acknowledgement), the daemon's
// receive path. Not built by make (needs nvcc): nvcc -O2 -arch=sm_90 -o cudalat cudalat.cu;
// run one copy, then two at once (two MPS clients). BENCHMARKS.md, issue 14 (devsmall).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <algorithm>
#include <vector>
static double now()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
#define N 2000
template <class F> static void bench(const char *name, F f)
{
    std::vector<double> v;
    for (int i = 0; i < 200; i++) f();
    for (int i = 0; i < N; i++) {
        double t = now();
        f();
        v.push_back(now() - t);
    }
    std::sort(v.begin(), v.end());
    printf("%-58s median %7.2f us  p10 %7.2f  p90 %7.2f\n", name, v[N / 2], v[N / 10],
           v[9 * N / 10]);
}
__global__ void resident(volatile int *cmd, volatile int *ack, volatile char *hostdata, char *dev)
{
    int seen = 0;
    for (;;) {
        int c;
        while ((c = *cmd) == seen) {}
        if (c < 0) return;
        seen = c;
        // copy 8 bytes host -> device, then acknowledge (the daemon's receive path)
        *(volatile long long *)dev = *(volatile long long *)hostdata;
        __threadfence_system();
        *ack = c;
    }
}
__global__ void nop() {}
int main()
{
    char *d, *h, *hp = (char *)malloc(64);
    cudaMalloc(&d, 1 << 20);
    cudaHostAlloc(&h, 4096, cudaHostAllocMapped | cudaHostAllocPortable);
    cudaStream_t sb, snb;
    cudaStreamCreateWithFlags(&sb, cudaStreamDefault);
    cudaStreamCreateWithFlags(&snb, cudaStreamNonBlocking);
    cudaEvent_t ev;
    cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    bench("cudaMemcpy D2H 8 B, pinned", [&] { cudaMemcpy(h, d, 8, cudaMemcpyDefault); });
    bench("cudaMemcpy D2H 8 B, pageable", [&] { cudaMemcpy(hp, d, 8, cudaMemcpyDefault); });
    bench("cudaMemcpy H2D 8 B, pinned", [&] { cudaMemcpy(d, h, 8, cudaMemcpyDefault); });
    bench("cudaMemcpy H2D 8 B, pageable", [&] { cudaMemcpy(d, hp, 8, cudaMemcpyDefault); });
    bench("MemcpyAsync D2H pinned + StreamSync, blocking stream", [&] {
        cudaMemcpyAsync(h, d, 8, cudaMemcpyDefault, sb);
        cudaStreamSynchronize(sb);
    });
    bench("MemcpyAsync H2D pinned + StreamSync, blocking stream", [&] {
        cudaMemcpyAsync(d, h, 8, cudaMemcpyDefault, sb);
        cudaStreamSynchronize(sb);
    });
    bench("MemcpyAsync D2H pinned + StreamSync, non-blocking stream", [&] {
        cudaMemcpyAsync(h, d, 8, cudaMemcpyDefault, snb);
        cudaStreamSynchronize(snb);
    });
    bench("MemcpyAsync H2D pinned + StreamSync, non-blocking stream", [&] {
        cudaMemcpyAsync(d, h, 8, cudaMemcpyDefault, snb);
        cudaStreamSynchronize(snb);
    });
    bench("MemcpyAsync H2D pinned + EventRecord + EventQuery poll", [&] {
        cudaMemcpyAsync(d, h, 8, cudaMemcpyDefault, snb);
        cudaEventRecord(ev, snb);
        while (cudaEventQuery(ev) == cudaErrorNotReady) {}
    });
    bench("MemcpyAsync D2D 8 B + StreamSync, non-blocking", [&] {
        cudaMemcpyAsync(d + 4096, d, 8, cudaMemcpyDefault, snb);
        cudaStreamSynchronize(snb);
    });
    bench("cudaStreamQuery(legacy)", [&] { cudaStreamQuery(cudaStreamLegacy); });
    bench("cudaEventQuery (done)", [&] { cudaEventQuery(ev); });
    bench("cudaPointerGetAttributes", [&] {
        cudaPointerAttributes a;
        cudaPointerGetAttributes(&a, d);
    });
    bench("launch nop + StreamSync (non-blocking)", [&] {
        nop<<<1, 1, 0, snb>>>();
        cudaStreamSynchronize(snb);
    });
    bench("launch nop (no sync)", [&] { nop<<<1, 1, 0, snb>>>(); });
    cudaStreamSynchronize(snb);
    volatile int *cmd = (volatile int *)h, *ack = (volatile int *)(h + 128);
    char *hd = h + 256;
    *cmd = 0;
    *ack = 0;
    resident<<<1, 1, 0, snb>>>((int *)cmd, (int *)ack, hd, d);
    int c = 0;
    bench("resident kernel: host flag -> 8 B to device -> ack seen", [&] {
        c++;
        *(volatile long long *)hd = c;
        __sync_synchronize();
        *cmd = c;
        while (*ack != c) {}
    });
    *cmd = -1;
    cudaStreamSynchronize(snb);
    printf("resident kernel: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
