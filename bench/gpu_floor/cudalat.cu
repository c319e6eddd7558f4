// cudalat - floors of the small-message paths on one GPU (under MPS when started): median us
// of each CUDA call the staged and IPC paths make for 8 bytes, and the round trip through a
// resident kernel (host flag, 8 bytes copied to device memory, acknowledgement), the daemon's
// receive path. Not built by make (needs nvcc): nvcc -O2 -arch=sm_90 -o cudalat cudalat.cu -lcuda;
// run one copy, then two at once (two MPS clients). BENCHMARKS.md, issue 14 (devsmall).
#include <cuda.h>
#include <cuda_runtime.h>
#include <string.h>
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
// The small-copy ring's two entry layouts (src/cuda/kcopy_abi.h): mode 0 polls the ticket
// word, then reads the entry (two reads across PCIe); mode 1 tags every 8-byte word with the
// ticket, as NCCL's LL protocol does, and polls the whole entry (one read across PCIe).
struct ent {
    unsigned long long w[8];
};
__global__ void ring(ent *r, volatile unsigned long long *done, int mode)
{
    for (unsigned long long t = 1;; t++) {
        ent *e = &r[(t - 1) % 32];
        unsigned long long a, b, c, d, f;
        for (;;) {
            if (mode == 0) {
                asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(d) : "l"(&e->w[3]) : "memory");
                if (d == ~0ULL) return;
                if (d != t) continue;
                asm volatile("ld.volatile.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(e));
                asm volatile("ld.volatile.v2.u64 {%0, %1}, [%2+16];" : "=l"(c), "=l"(d) : "l"(e));
                break;
            }
            asm volatile("ld.volatile.v2.u64 {%0, %1}, [%5];\n\t"
                         "ld.volatile.v2.u64 {%2, %3}, [%5+16];\n\t"
                         "ld.volatile.u64 %4, [%5+32];"
                         : "=l"(a), "=l"(b), "=l"(c), "=l"(d), "=l"(f)
                         : "l"(e)
                         : "memory");
            if (f == ~0ULL) return;
            unsigned tag = (unsigned)t;
            if ((a >> 32) == tag && (b >> 32) == tag && (c >> 32) == tag && (d >> 32) == tag &&
                (f >> 32) == tag) {
                unsigned long long dst = (a & 0xffffffffu) | (b << 32);
                unsigned long long src = (c & 0xffffffffu) | (d << 32);
                a = dst, b = src, c = f & 0xffffffffu;
                break;
            }
        }
        if (c == 8) *(volatile long long *)a = *(volatile long long *)b;
        __threadfence_system();
        *done = t;
    }
}
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
    bench("cudaGetDevice", [&] {
        int dev;
        cudaGetDevice(&dev);
    });
    bench("cuPointerGetAttributes (type, managed, ordinal)", [&] {
        unsigned type;
        int managed, ordinal;
        CUpointer_attribute at[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                     CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                     CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
        void *data[3] = {&type, &managed, &ordinal};
        cuPointerGetAttributes(3, at, data, (CUdeviceptr)d);
    });
    bench("cuPointerGetAttribute (buffer id)", [&] {
        unsigned long long id;
        cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, (CUdeviceptr)d);
    });
    for (int mode = 0; mode < 2; mode++) {
        ent *r = (ent *)(h + 1024);
        memset(r, 0, 32 * sizeof *r);
        volatile unsigned long long *done = (volatile unsigned long long *)(h + 512);
        *done = 0;
        ring<<<1, 32, 0, snb>>>(r, (unsigned long long *)done, mode);
        unsigned long long t = 0;
        bench(mode ? "small-copy ring, tagged words (one PCIe read): 8 B D2D"
                   : "small-copy ring, ticket then entry (two PCIe reads): 8 B D2D",
              [&] {
                  t++;
                  ent *e = &r[(t - 1) % 32];
                  unsigned long long dst = (unsigned long long)(d + 4096),
                                     src = (unsigned long long)d;
                  if (mode == 0) {
                      e->w[0] = dst, e->w[1] = src, e->w[2] = 8;
                      __atomic_store_n(&e->w[3], t, __ATOMIC_RELEASE);
                  } else {
                      unsigned long long tag = (unsigned long long)(unsigned)t << 32;
                      volatile unsigned long long *w = e->w;
                      w[0] = tag | (dst & 0xffffffffu), w[1] = tag | (dst >> 32);
                      w[2] = tag | (src & 0xffffffffu), w[3] = tag | (src >> 32);
                      w[4] = tag | 8;
                  }
                  while (*done != t) {}
              });
        ent *e = &r[t % 32];
        __atomic_store_n(&e->w[mode ? 4 : 3], ~0ULL, __ATOMIC_RELEASE);
        cudaStreamSynchronize(snb);
        printf("ring mode %d: %s\n", mode, cudaGetErrorString(cudaGetLastError()));
    }
    return 0;
}
