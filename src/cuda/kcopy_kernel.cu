/*
 * kcopy_kernel.cu - the small-copy kernel: one block, resident while copies come, serving the
 * ring of kcopy_abi.h (the protocol is there). Thread 0 polls the next entry across PCIe, all
 * of it in one round of loads (the fields carry the ticket as tags), and publishes it in
 * shared memory; all threads move the bytes; thread 0 makes them visible to every reader
 * (DFC_KCOPY_LOCAL_DST says at which scope) before it writes done, so a host (or a peer's copy
 * engine) that sees done sees the data, while thread 32 reports the source read (for entries
 * that ask, DFC_KCOPY_REPORT_READ). It never waits for anything but the ring: no peer, no
 * other kernel.
 *
 * Each read across PCIe costs about a microsecond and a poll waits for its read to return,
 * so the idle loop reads nothing but the entry: the stop word only every 64 polls, the
 * linger clock on the chip. The other threads wait at a barrier while thread 0 polls.
 */
#include "cuda/kcopy_abi.h"

static __device__ __forceinline__ uint64_t now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* All threads: words of the widest size (16, 8 or 4 bytes) that both ends' alignment allows,
 * UNROLL loads in flight per thread before their stores (a load from a peer's memory or from
 * host memory takes a microsecond; one at a time, 64 KiB would take 8 rounds of it), then the
 * tail (and any copy of unaligned ends) byte by byte. The loads are volatile (strong at system
 * scope): the entry was read without acquire, so nothing else keeps a line that an earlier
 * copy of the same source left in L1 from being read again. */
#define UNROLL 4
template <typename T> static __device__ __forceinline__ T load_strong(const T *p)
{
    return *(const volatile T *)p;
}
template <> __device__ __forceinline__ uint4 load_strong<uint4>(const uint4 *p)
{
    uint4 v;
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

/* Copies the whole words of n bytes; returns the bytes copied. */
template <typename T> static __device__ uint64_t copy_words(char *dst, const char *src, uint64_t n)
{
    const uint64_t words = n / sizeof(T), step = (uint64_t)blockDim.x * UNROLL;
    T *d = (T *)dst;
    const T *s = (const T *)src;
    for (uint64_t base = 0; base < words; base += step) {
        T v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            uint64_t i = base + u * blockDim.x + threadIdx.x;
            if (i < words) v[u] = load_strong(&s[i]);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            uint64_t i = base + u * blockDim.x + threadIdx.x;
            if (i < words) d[i] = v[u];
        }
    }
    return words * sizeof(T);
}

static __device__ void block_copy(char *dst, const char *src, uint64_t n)
{
    const uintptr_t a = (uintptr_t)dst | (uintptr_t)src;
    const uint64_t w = (a & 15) == 0  ? copy_words<uint4>(dst, src, n)
                       : (a & 7) == 0 ? copy_words<uint64_t>(dst, src, n)
                       : (a & 3) == 0 ? copy_words<uint32_t>(dst, src, n)
                                      : 0;
    for (uint64_t i = w + threadIdx.x; i < n; i += blockDim.x)
        dst[i] = *(const volatile char *)&src[i];
}

/* Thread 0: entry e whole, in two 16-byte loads issued together (one round across PCIe);
 * 1 when its three tags are ticket t's, and then its fields (*n with DFC_KCOPY_LOCAL_DST). */
static __device__ int take_entry(const dfc_kcopy_entry_t *e, uint64_t t, char **dst,
                                 const char **src, uint64_t *n)
{
    uint64_t w[4]; /* dst, src, bytes, seq */
    asm volatile("ld.volatile.v2.u64 {%0, %1}, [%4];\n\t"
                 "ld.volatile.v2.u64 {%2, %3}, [%4+16];"
                 : "=l"(w[0]), "=l"(w[1]), "=l"(w[2]), "=l"(w[3])
                 : "l"(e)
                 : "memory");
    if (!DFC_KCOPY_TAG_IS(w[0], t) || !DFC_KCOPY_TAG_IS(w[1], t) || !DFC_KCOPY_TAG_IS(w[2], t))
        return 0;
    *dst = (char *)DFC_KCOPY_FIELD(w[0]);
    *src = (const char *)DFC_KCOPY_FIELD(w[1]);
    *n = DFC_KCOPY_FIELD(w[2]);
    return 1;
}

/* Thread 0: polls for ticket done + 1 until it comes (1) or the kernel should leave (-1). */
static __device__ int wait_ticket(dfc_kcopy_ring_t *r, uint64_t done, uint64_t linger_ns,
                                  char **dst, const char **src, uint64_t *n)
{
    const dfc_kcopy_entry_t *e = &r->e[done % DFC_KCOPY_ENTRIES];
    const uint64_t idle_since = now_ns();
    for (unsigned polls = 1;; polls++) {
        if (take_entry(e, done + 1, dst, src, n)) return 1;
        if (now_ns() - idle_since > linger_ns) return -1;
        if (polls % 64 == 0 && *(volatile uint32_t *)&r->stop) return -1;
    }
}

extern "C" __global__ void __launch_bounds__(DFC_KCOPY_THREADS)
    dfc_kcopy_kernel(dfc_kcopy_ring_t *r, uint64_t linger_ns, uint32_t epoch)
{
    __shared__ int s_go; /* 1: copy the entry, -1: leave */
    __shared__ char *s_dst;
    __shared__ const char *s_src;
    __shared__ uint64_t s_bytes;
    uint64_t done = *(volatile uint64_t *)&r->done;
    for (;;) {
        if (threadIdx.x == 0) s_go = wait_ticket(r, done, linger_ns, &s_dst, &s_src, &s_bytes);
        __syncthreads();
        if (s_go < 0) break;
        const uint64_t bytes = s_bytes; /* thread 0 rewrites it once past the next barrier */
        block_copy(s_dst, s_src, DFC_KCOPY_SIZE(bytes));
        __syncthreads(); /* every copy's stores, and every read of s_*, before the next poll */
        done++;
        /* Every load has returned (its value was stored): the source is free. Written by
         * another warp than done's, whose fence would wait for this store to host memory to
         * be acknowledged across PCIe (several microseconds under load: BENCHMARKS.md, stop 47). */
        if (threadIdx.x == 32 && (bytes & DFC_KCOPY_REPORT_READ))
            *(volatile uint64_t *)&r->read = done;
        if (threadIdx.x == 0) { /* the bytes before done, for every reader (kcopy_abi.h) */
            if (bytes & DFC_KCOPY_LOCAL_DST) __threadfence();
            else __threadfence_system();
            *(volatile uint64_t *)&r->done = done;
        }
    }
    if (threadIdx.x == 0) {
        __threadfence_system(); /* the last done before exited */
        *(volatile uint32_t *)&r->exited = epoch;
    }
}
