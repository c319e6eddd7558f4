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

/* All threads: 16-byte words when both ends and the length allow, else bytes. */
static __device__ void block_copy(char *dst, const char *src, uint64_t n)
{
    if ((((uintptr_t)dst | (uintptr_t)src | n) & 15) == 0) {
        for (uint64_t i = threadIdx.x; i < n / 16; i += blockDim.x)
            ((uint4 *)dst)[i] = ((const uint4 *)src)[i];
        return;
    }
    for (uint64_t i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
}

extern "C" __global__ void __launch_bounds__(DFC_KCOPY_THREADS)
    dfc_kcopy_kernel(dfc_kcopy_ring_t *r, uint64_t linger_ns, uint32_t epoch)
{
    __shared__ int s_go; /* 1: copy the entry, 0: poll again, -1: leave */
    __shared__ dfc_kcopy_entry_t *s_e;
    uint64_t done = *(volatile uint64_t *)&r->done, idle_since = now_ns();
    for (;;) {
        if (threadIdx.x == 0) {
            dfc_kcopy_entry_t *e = &r->e[done % DFC_KCOPY_ENTRIES];
            s_e = e;
            if (load_acquire_sys(&e->seq) == done + 1) s_go = 1;
            else if (*(volatile uint32_t *)&r->stop || now_ns() - idle_since > linger_ns) s_go = -1;
            else s_go = 0;
        }
        __syncthreads();
        const int go = s_go;
        dfc_kcopy_entry_t *e = s_e;
        __syncthreads();
        if (go < 0) break;
        if (go == 0) continue;
        char *dst = e->dst ? (char *)e->dst : (char *)e->data;
        const char *src = e->src ? (const char *)e->src : (const char *)e->data;
        block_copy(dst, src, e->bytes);
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
