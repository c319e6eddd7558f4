/*
 * kcopy_kernel.cu - the small-copy kernel: one block, resident while copies come, serving the
 * ring of kcopy_abi.h (the protocol is there). Thread 0 polls the next entry's seq across PCIe
 * and publishes its decision in shared memory; all threads move the bytes; thread 0 makes them
 * visible system-wide before it writes done, so a host (or a peer's copy engine) that sees done
 * sees the data. It never waits for anything but the ring: no peer, no other kernel.
 */
#include "cuda/kcopy_abi.h"

static __device__ __forceinline__ uint64_t now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ uint64_t load_acquire_sys(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

/* All threads: 16-byte words when both ends and the length allow, UNROLL loads in flight
 * per thread before their stores (a load from a peer's memory takes a microsecond; one at a
 * time, 64 KiB would take 8 rounds of it); else bytes. */
#define UNROLL 4
static __device__ void block_copy(char *dst, const char *src, uint64_t n)
{
    if ((((uintptr_t)dst | (uintptr_t)src | n) & 15) == 0) {
        const uint64_t words = n / 16, step = (uint64_t)blockDim.x * UNROLL;
        uint4 *d = (uint4 *)dst;
        const uint4 *s = (const uint4 *)src;
        for (uint64_t base = 0; base < words; base += step) {
            uint4 v[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                uint64_t i = base + u * blockDim.x + threadIdx.x;
                if (i < words) v[u] = s[i];
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                uint64_t i = base + u * blockDim.x + threadIdx.x;
                if (i < words) d[i] = v[u];
            }
        }
        return;
    }
    for (uint64_t i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
}

/* Thread 0: the entry's addresses and size, in two 16-byte loads issued together (each
 * field read alone, by every warp, would cost a read across PCIe apiece). */
static __device__ uint64_t read_entry(dfc_kcopy_entry_t *e, char **dst, const char **src,
                                      uint64_t *n)
{
    uint64_t d, s, bytes, seq;
    asm volatile("ld.volatile.v2.u64 {%0, %1}, [%4];\n\t"
                 "ld.volatile.v2.u64 {%2, %3}, [%4+16];"
                 : "=l"(d), "=l"(s), "=l"(bytes), "=l"(seq)
                 : "l"(e)
                 : "memory");
    *dst = (char *)d; /* {dst, src}, {bytes, seq} */
    *src = (const char *)s;
    *n = bytes;
    return seq;
}

extern "C" __global__ void __launch_bounds__(DFC_KCOPY_THREADS)
    dfc_kcopy_kernel(dfc_kcopy_ring_t *r, uint64_t linger_ns, uint32_t epoch)
{
    __shared__ int s_go; /* 1: copy the entry, 0: poll again, -1: leave */
    __shared__ char *s_dst;
    __shared__ const char *s_src;
    __shared__ uint64_t s_bytes;
    uint64_t done = *(volatile uint64_t *)&r->done, idle_since = now_ns();
    for (;;) {
        if (threadIdx.x == 0) {
            dfc_kcopy_entry_t *e = &r->e[done % DFC_KCOPY_ENTRIES];
            if (load_acquire_sys(&e->seq) == done + 1) {
                read_entry(e, &s_dst, &s_src, &s_bytes);
                s_go = 1;
            } else if (*(volatile uint32_t *)&r->stop || now_ns() - idle_since > linger_ns) {
                s_go = -1;
            } else {
                s_go = 0;
            }
        }
        __syncthreads();
        const int go = s_go;
        if (go < 0) break;
        if (go == 0) { /* the next decision must not overwrite s_go before all read it */
            __syncthreads();
            continue;
        }
        block_copy(s_dst, s_src, s_bytes);
        __syncthreads();
        done++;
        if (threadIdx.x == 0) {
            __threadfence_system(); /* the bytes before done */
            *(volatile uint64_t *)&r->done = done;
            idle_since = now_ns();
        }
    }
    if (threadIdx.x == 0) {
        __threadfence_system(); /* the last done before exited */
        *(volatile uint32_t *)&r->exited = epoch;
    }
}
