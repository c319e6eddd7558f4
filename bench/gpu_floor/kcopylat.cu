// kcopylat - the small-copy kernel's round trip (src/cuda/kcopy_kernel.cu, the ring of
// kcopy_abi.h) on its own: the host posts a ticket for a device-to-device copy, the resident
// kernel copies and writes done, the host sees done. Median us of 20000 trips per size. Not
// built by make (needs nvcc); from the repository root:
//   nvcc -O2 -arch=sm_90 -Isrc -o kcopylat bench/gpu_floor/kcopylat.cu
// -DKCOPY_KERNEL='"file.cu"' times another version of the kernel for an A/B of a change
// (with -DKCOPY_UNTAGGED, one that polls seq and reads untagged fields). First lines: one read
// of host memory, and the trip's floor (a flag from the host to a resident kernel and back, without
// and with the fences that order a copy before done: device scope for a destination on the
// kernel's device, system scope for any other). Last lines: 8 B at random phases, and 3000
// copies of random sizes checked byte by byte. BENCHMARKS.md, issue 14.
#include <cuda_runtime.h>
#include <stdio.h>
#include <time.h>
#include <algorithm>
#include <vector>
#ifndef KCOPY_KERNEL
#define KCOPY_KERNEL "cuda/kcopy_kernel.cu"
#endif
#include KCOPY_KERNEL

// One read across PCIe: a chain of dependent loads of pinned host memory, timed on the chip.
__global__ void read_latency(const uint64_t *host, double *ns_per_read)
{
    uint64_t t0, t1, i = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (int k = 0; k < 1000; k++) i = *(const volatile uint64_t *)&host[i & 7];
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    *ns_per_read = (double)(t1 - t0) / 1000 + (double)(i & 0); // i keeps the chain
}

// The trip's floor: thread 0 polls a word of pinned host memory for the next value and
// writes it back into another (fence 1: a system-scope fence first, 2: a device-scope one),
// until ~0.
__global__ void ping(const volatile uint64_t *in, volatile uint64_t *out, int fence)
{
    for (uint64_t v = 1;; v++) {
        uint64_t x;
        while ((x = *in) != v && x != ~0ull) {}
        if (x == ~0ull) return;
        if (fence == 1) __threadfence_system();
        if (fence == 2) __threadfence();
        *out = v;
    }
}

static double now_us()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static uint64_t field(uint64_t v, uint64_t t)
{
#ifdef KCOPY_UNTAGGED
    (void)t;
    return v;
#else
    return DFC_KCOPY_TAGGED(v, t);
#endif
}

// kcopy.c's post and wait, without the locks and relaunches. local: the destination is the
// kernel's device's own memory (DFC_KCOPY_LOCAL_DST), as in every point-to-point pull.
static void trip(dfc_kcopy_ring_t *r, uint64_t t, char *dst, const char *src, size_t n, int local)
{
    dfc_kcopy_entry_t *e = &r->e[(t - 1) % DFC_KCOPY_ENTRIES];
#ifdef DFC_KCOPY_LOCAL_DST
    if (local) n |= DFC_KCOPY_LOCAL_DST;
#else
    (void)local;
#endif
    __atomic_store_n(&e->dst, field((uintptr_t)dst, t), __ATOMIC_RELEASE);
    __atomic_store_n(&e->src, field((uintptr_t)src, t), __ATOMIC_RELEASE);
    __atomic_store_n(&e->bytes, field(n, t), __ATOMIC_RELEASE);
    __atomic_store_n(&e->seq, t, __ATOMIC_RELEASE);
    while (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) < t) {}
}

int main()
{
    char *d, *h;
    dfc_kcopy_ring_t *r, *rdev;
    cudaMalloc(&d, 1 << 20);
    cudaHostAlloc(&h, sizeof *r, cudaHostAllocMapped | cudaHostAllocPortable);
    r = (dfc_kcopy_ring_t *)h;
    memset(r, 0, sizeof *r);
    cudaHostGetDevicePointer((void **)&rdev, r, 0);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    double *lat;
    cudaHostAlloc(&lat, sizeof *lat, cudaHostAllocMapped);
    read_latency<<<1, 1, 0, s>>>((const uint64_t *)rdev, lat);
    cudaStreamSynchronize(s);
    printf("one read of host memory across PCIe: %.0f ns\n", *lat);
    volatile uint64_t *pf;
    cudaHostAlloc((void **)&pf, 256, cudaHostAllocMapped | cudaHostAllocPortable);
    const char *fences[] = {"", " with a system fence", " with a device fence"};
    for (int fence = 0; fence < 3; fence++) {
        pf[0] = pf[16] = 0;
        ping<<<1, 32, 0, s>>>(pf, pf + 16, fence);
        std::vector<double> v;
        for (uint64_t i = 1; i <= 22000; i++) {
            double t0 = now_us();
            pf[0] = i;
            while (pf[16] != i) {}
            if (i > 2000) v.push_back(now_us() - t0);
        }
        pf[0] = ~0ull;
        cudaStreamSynchronize(s);
        std::sort(v.begin(), v.end());
        printf("host -> kernel -> host flag%s: median %6.2f us  p10 %6.2f  p90 %6.2f\n",
               fences[fence], v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]);
    }
    dfc_kcopy_kernel<<<1, DFC_KCOPY_THREADS, 0, s>>>(rdev, 10000000000ull, 1);
    uint64_t t = 0;
    // Each size into the kernel's own device (a pull), then 8 bytes as a push into a peer's
    // buffer would go (the system fence).
    const size_t sizes[] = {8, 1024, 4096, 65536, 8};
    for (int k = 0; k < 5; k++) {
        const size_t n = sizes[k];
        std::vector<double> v;
        for (int i = 0; i < 22000; i++) {
            double t0 = now_us();
            trip(r, ++t, d + 512 * 1024, d, n, k < 4);
            if (i >= 2000) v.push_back(now_us() - t0);
        }
        std::sort(v.begin(), v.end());
        printf("kcopy trip %6zu B%s: median %6.2f us  p10 %6.2f  p90 %6.2f\n", n,
               k < 4 ? "" : ", system fence", v[v.size() / 2], v[v.size() / 10],
               v[v.size() * 9 / 10]);
    }
    // 8 bytes again, each ticket after a random 0-4 us pause: tickets that come at any point
    // of the kernel's polls, as a program's do (back to back, each comes at the same point).
    std::vector<double> v;
    srand(1);
    for (int i = 0; i < 22000; i++) {
        const double until = now_us() + (rand() % 4000) / 1000.0;
        while (now_us() < until) {}
        const double t0 = now_us();
        trip(r, ++t, d + 512 * 1024, d, 8, 1);
        if (i >= 2000) v.push_back(now_us() - t0);
    }
    std::sort(v.begin(), v.end());
    printf("kcopy trip      8 B, random phase: median %6.2f us  p10 %6.2f  p90 %6.2f\n",
           v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]);
    // Then the bytes: 3000 copies of random sizes (0 - 64 KiB) at random offsets, each from a
    // fresh source into a poisoned destination, checked byte by byte with their guards.
    std::vector<unsigned char> src(70000), out(70000 + 64), want(70000 + 64);
    long bad = 0;
    for (int i = 0; i < 3000 && !bad; i++) {
        const size_t n = i < 100 ? (size_t)i : (size_t)rand() % 65537, so = rand() % 64,
                     doff = rand() % 64;
        for (auto &c : src) c = (unsigned char)rand();
        cudaMemcpy(d + so, src.data(), n, cudaMemcpyHostToDevice);
        cudaMemset(d + 512 * 1024, 0xa5, out.size());
        cudaStreamSynchronize(0); // both may return before they are done (pageable source)
        trip(r, ++t, d + 512 * 1024 + doff, d + so, n, 1);
        cudaMemcpy(out.data(), d + 512 * 1024, out.size(), cudaMemcpyDeviceToHost);
        std::fill(want.begin(), want.end(), 0xa5);
        std::copy(src.begin(), src.begin() + n, want.begin() + doff);
        for (size_t k = 0; k < out.size(); k++) bad += out[k] != want[k];
        if (bad) printf("copy %d: %zu bytes +%zu -> +%zu: %ld bytes wrong\n", i, n, so, doff, bad);
    }
    printf("kcopy data: 3000 copies of 0 - 64 KiB %s\n", bad ? "WRONG" : "checked, all right");
    __atomic_store_n(&r->stop, 1u, __ATOMIC_RELEASE);
    cudaError_t e = cudaStreamSynchronize(s);
    printf("kernel %s, exited = %u\n", cudaGetErrorString(e), r->exited);
    return 0;
}
