// scopelat - what the GPU daemon's small-operation chain pays per handoff (issue 14,
// devsmall): single-thread costs of the memory operations the kernel uses (fences, acquire
// loads, reads of pinned host memory across PCIe, a descriptor load), and a flag ping-pong
// between two processes' kernels on one GPU (CUDA IPC, under MPS) at system scope (as the
// daemon does) and at gpu scope. Not built by make (needs nvcc):
//   nvcc -O2 -arch=sm_90 -o scopelat scopelat.cu
//   ./scopelat                                       # the costs
//   ./scopelat ping B /tmp/sl 0 & ./scopelat ping A /tmp/sl 0   # 0: sys scope, 1: gpu scope
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__device__ static inline unsigned long long gt()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ static inline unsigned ld_sys(const volatile unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ static inline unsigned ld_gpu(const volatile unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ static inline void f_sys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
__device__ static inline void f_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
#define R 2000
__global__ void costs(unsigned *dev, unsigned *host, unsigned long long *out)
{
    __shared__ unsigned sink;
    unsigned long long t;
    unsigned s = 0;
    int i = 0;
    if (threadIdx.x == 0) {
#define M(k, body)            \
    t = gt();                 \
    for (i = 0; i < R; i++) { \
        body;                 \
    }                         \
    out[k] = (gt() - t) / R;
        M(0, f_sys());
        M(1, {
            host[64] = i;
            f_sys();
        });
        M(2, f_gpu());
        M(3, s += ld_sys(dev + (i & 7)));
        M(4, s += ld_gpu(dev + (i & 7)));
        M(5, s += ld_sys(host + (i & 7)));
        M(6, s += __ldcv(host + (i & 7)));
        M(7, {
            dev[100] = i;
            f_gpu();
        });
        M(8, {
            dev[100] = i;
            f_sys();
        });
        sink = s;
    }
    __syncthreads();
    // 128 words of pinned memory read by all threads at once (a descriptor load), then fence
    t = gt();
    for (i = 0; i < 200; i++) {
        s += __ldcv(host + 128 + (threadIdx.x + i) % 128);
        __threadfence();
        __syncthreads();
    }
    if (threadIdx.x == 0) out[9] = (gt() - t) / 200, sink += s;
}
__global__ void ping(volatile unsigned *mine, volatile unsigned *theirs, int first, int scope,
                     int n, unsigned long long *out)
{
    unsigned long long t = gt();
    for (int i = 1; i <= n; i++) {
        if (!first)
            while ((scope ? ld_gpu(mine) : ld_sys(mine)) != (unsigned)i) {}
        if (scope) f_gpu();
        else f_sys();
        *theirs = i;
        if (first)
            while ((scope ? ld_gpu(mine) : ld_sys(mine)) != (unsigned)i) {}
    }
    *out = (gt() - t) / n;
}
int main(int argc, char **argv)
{
    if (argc < 2) {
        unsigned *dev, *host;
        unsigned long long *out;
        cudaMalloc(&dev, 4096);
        cudaMemset(dev, 0, 4096);
        cudaHostAlloc(&host, 4096, cudaHostAllocMapped);
        memset(host, 0, 4096);
        cudaMallocManaged(&out, 16 * 8);
        costs<<<1, 128>>>(dev, host, out);
        cudaError_t e = cudaDeviceSynchronize();
        const char *name[] = {"fence.acq_rel.sys, nothing outstanding",
                              "store to pinned host + fence.acq_rel.sys",
                              "fence.acq_rel.gpu",
                              "ld.acquire.sys, device memory",
                              "ld.acquire.gpu, device memory",
                              "ld.acquire.sys, pinned host memory (PCIe read)",
                              "__ldcv, pinned host memory",
                              "store to device + fence.acq_rel.gpu",
                              "store to device + fence.acq_rel.sys",
                              "128 threads __ldcv pinned + __threadfence + __syncthreads"};
        for (int k = 0; k < 10; k++) printf("%-58s %7.0f ns\n", name[k], e ? -1.0 : (double)out[k]);
        return 0;
    }
    int a = argv[2][0] == 'A', scope = atoi(argv[4]);
    const char *file = argv[3];
    unsigned *buf, *peer;
    unsigned long long *out;
    cudaMallocManaged(&out, 8);
    cudaMalloc(&buf, 4096);
    cudaMemset(buf, 0, 4096);
    cudaDeviceSynchronize();
    cudaIpcMemHandle_t h, ph;
    cudaIpcGetMemHandle(&h, buf);
    char me[256], other[256];
    snprintf(me, sizeof me, "%s.%c", file, a ? 'A' : 'B');
    snprintf(other, sizeof other, "%s.%c", file, a ? 'B' : 'A');
    FILE *f = fopen(me, "wb");
    fwrite(&h, sizeof h, 1, f);
    fclose(f);
    for (int w = 0; w < 3000; w++) {
        f = fopen(other, "rb");
        if (f && fread(&ph, sizeof ph, 1, f) == 1) break;
        if (f) fclose(f);
        f = NULL;
        usleep(1000);
    }
    if (!f) {
        printf("no peer\n");
        return 1;
    }
    fclose(f);
    if (cudaIpcOpenMemHandle((void **)&peer, ph, cudaIpcMemLazyEnablePeerAccess)) {
        printf("ipc open failed\n");
        return 1;
    }
    usleep(200000);
    ping<<<1, 1>>>(buf, peer, a, scope, 20000, out);
    cudaError_t e = cudaDeviceSynchronize();
    if (a)
        printf(
            "flag round trip between two processes' kernels (IPC, MPS), %s scope: %.0f ns (%s)\n",
            scope ? "gpu" : "sys", (double)*out, cudaGetErrorString(e));
    return 0;
}
