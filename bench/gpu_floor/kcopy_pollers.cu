/*
 * kcopy_pollers.cu - a variant of the small-copy kernel (src/cuda/kcopy_kernel.cu) for an A/B
 * in kcopylat (-DKCOPY_KERNEL='"kcopy_pollers.cu"'), not built into the library: four poller
 * warps take turns R/4 apart (R: one read of host memory across PCIe) and hand each entry to
 * the copier warps through shared memory, so that a ticket waits R/2 to R/2 + R/4 instead of
 * R/2 to 3R/2, with no block barrier between a poller's outstanding read and the copy.
 * Stop 47's call B ran it with the `read` store before the copiers' fence, which cost 2.6-3 us
 * a trip (BENCHMARKS.md); here `read` comes from another warp, as in the library's kernel, and
 * this version has not run on a GPU.
 *
 * The rest is as it was written for the library:
 * kcopy_kernel.cu - the small-copy kernel: one block, resident while copies come, serving the
 * ring of kcopy_abi.h (the protocol is there). Two kinds of warps, which never wait for each
 * other at a barrier:
 *
 *   pollers  lane 0 of each of the first DFC_KCOPY_POLLERS warps reads the next ticket's entry
 *            across PCIe, all of it in one round of loads (the fields carry the ticket as tags);
 *            the first to see it claims the ticket (a compare-and-swap in shared memory) and
 *            hands its fields to the copiers through one of two shared slots;
 *   copiers  the other warps move the bytes of each ticket in order; their first thread then
 *            makes them visible to every reader (DFC_KCOPY_LOCAL_DST says at which scope) and
 *            writes done, so a host (or a peer's copy engine) that sees done sees the data.
 *
 * Why several pollers: a read of host memory takes about a microsecond (R) and sees an entry
 * only if the host wrote it before the read got there, so one poller sees a ticket R/2 to 3R/2
 * after it is posted (R on average). The pollers take turns a share R/P apart (each reserves its
 * start in shared memory, on the SM's clock), so a ticket waits R/2 to R/2 + R/P: on an H100,
 * 1.16 us of average wait would become 0.73 with four (not shown yet). One thread with several reads in flight
 * cannot do this: the barrier that hands the entry over waits for its outstanding reads.
 * The pollers also look for ticket t + 1 while ticket t is copied.
 *
 * It never waits for anything but the ring: no peer, no other kernel. The idle pollers read
 * nothing but the entry (the stop word only every 64 polls of poller 0, the linger clock on
 * the chip).
 */
#include "cuda/kcopy_abi.h"

/* Within the library's block of DFC_KCOPY_THREADS (kcopylat launches that many). */
#define DFC_KCOPY_POLLERS 4
#define DFC_KCOPY_COPIERS (DFC_KCOPY_THREADS - DFC_KCOPY_POLLERS * 32)

#define POLLER_THREADS (DFC_KCOPY_POLLERS * 32)
#define LEAVING (1ull << 63) /* in s.claimed: no ticket after the one below is claimed */

typedef struct {
    char *dst;
    const char *src;
    uint64_t bytes;  /* tagged off; DFC_KCOPY_LOCAL_DST may be set */
    uint64_t ticket; /* written last: the slot holds this ticket's fields */
} slot_t;

typedef struct {
    unsigned long long claimed;    /* the last ticket a poller claimed, | LEAVING */
    unsigned long long copied;     /* the last ticket the copiers finished */
    unsigned long long next_start; /* clock64 before which no poller starts a read */
    long long gap;                 /* R / DFC_KCOPY_POLLERS, in SM cycles */
    int go;                        /* copiers: 1 copy the slot's ticket, -1 leave */
    slot_t slot[2];                /* ticket t's in slot[t & 1] */
} shared_t;

static __device__ __forceinline__ uint64_t now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <typename T> static __device__ __forceinline__ T vload(const T *p)
{
    return *(const volatile T *)p;
}
template <typename T> static __device__ __forceinline__ void vstore(T *p, T v)
{
    *(volatile T *)p = v;
}

/* The copiers: words of the widest size (16, 8 or 4 bytes) that both ends' alignment allows,
 * UNROLL loads in flight per thread before their stores (a load from a peer's memory or from
 * host memory takes a microsecond; one at a time, 64 KiB would take 8 rounds of it), then the
 * tail (and any copy of unaligned ends) byte by byte. The loads are volatile (strong at system
 * scope): nothing else keeps a line that an earlier copy of the same source left in L1 from
 * being read again. */
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

/* Copies the whole words of n bytes, thread `me` of DFC_KCOPY_COPIERS; returns the bytes. */
template <typename T>
static __device__ uint64_t copy_words(char *dst, const char *src, uint64_t n, unsigned me)
{
    const uint64_t words = n / sizeof(T), step = (uint64_t)DFC_KCOPY_COPIERS * UNROLL;
    T *d = (T *)dst;
    const T *s = (const T *)src;
    for (uint64_t base = 0; base < words; base += step) {
        T v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            uint64_t i = base + u * DFC_KCOPY_COPIERS + me;
            if (i < words) v[u] = load_strong(&s[i]);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            uint64_t i = base + u * DFC_KCOPY_COPIERS + me;
            if (i < words) d[i] = v[u];
        }
    }
    return words * sizeof(T);
}

static __device__ void copiers_copy(char *dst, const char *src, uint64_t n, unsigned me)
{
    const uintptr_t a = (uintptr_t)dst | (uintptr_t)src;
    const uint64_t w = (a & 15) == 0  ? copy_words<uint4>(dst, src, n, me)
                       : (a & 7) == 0 ? copy_words<uint64_t>(dst, src, n, me)
                       : (a & 3) == 0 ? copy_words<uint32_t>(dst, src, n, me)
                                      : 0;
    for (uint64_t i = w + me; i < n; i += DFC_KCOPY_COPIERS)
        dst[i] = *(const volatile char *)&src[i];
}

/* The copiers' own barrier (barrier 1): the pollers never take part in it. Not .aligned: the
 * first copier arrives from its wait for the slot after the rest of its warp. */
static __device__ __forceinline__ void copiers_sync(void)
{
    asm volatile("barrier.sync 1, %0;" ::"n"(DFC_KCOPY_COPIERS) : "memory");
}

/* A poller: entry e whole, in two 16-byte loads issued together (one round across PCIe);
 * 1 when its three tags are ticket t's, and then its fields into *f. */
static __device__ int take_entry(const dfc_kcopy_entry_t *e, uint64_t t, slot_t *f)
{
    uint64_t w[4]; /* dst, src, bytes, seq */
    asm volatile("ld.volatile.v2.u64 {%0, %1}, [%4];\n\t"
                 "ld.volatile.v2.u64 {%2, %3}, [%4+16];"
                 : "=l"(w[0]), "=l"(w[1]), "=l"(w[2]), "=l"(w[3])
                 : "l"(e)
                 : "memory");
    if (!DFC_KCOPY_TAG_IS(w[0], t) || !DFC_KCOPY_TAG_IS(w[1], t) || !DFC_KCOPY_TAG_IS(w[2], t))
        return 0;
    f->dst = (char *)DFC_KCOPY_FIELD(w[0]);
    f->src = (const char *)DFC_KCOPY_FIELD(w[1]);
    f->bytes = DFC_KCOPY_FIELD(w[2]);
    return 1;
}

/* A poller: waits for its turn, gap cycles after the previous poller's start. */
static __device__ void take_turn(shared_t *s)
{
    unsigned long long old = vload(&s->next_start), want, seen;
    for (;;) {
        want = max((unsigned long long)clock64(), old);
        if ((seen = atomicCAS(&s->next_start, old, want + s->gap)) == old) break;
        old = seen;
    }
    while ((unsigned long long)clock64() < want) {}
}

/* A poller that claimed ticket t: its fields into slot t & 1 once ticket t - 2 has left it. */
static __device__ void hand_over(shared_t *s, uint64_t t, const slot_t *f)
{
    slot_t *sl = &s->slot[t & 1];
    while (vload(&s->copied) + 2 < t) {}
    vstore(&sl->dst, f->dst);
    vstore(&sl->src, f->src);
    vstore(&sl->bytes, f->bytes);
    __threadfence_block(); /* the fields before the ticket that publishes them */
    vstore(&sl->ticket, t);
}

/* Lane 0 of poller warp `which`: claims tickets after `done` until the linger time passes
 * without one or the host asks the kernel to stop; then marks the block as leaving. */
static __device__ void poll(shared_t *s, dfc_kcopy_ring_t *r, uint64_t done, uint64_t linger_ns,
                            int which)
{
    uint64_t idle_since = now_ns();
    for (unsigned polls = 1;; polls++) {
        const unsigned long long c = vload(&s->claimed); /* ticket c + 1 is the next */
        if (c & LEAVING) return;
        if (c != done) done = c, idle_since = now_ns(); /* a poller claimed one */
        take_turn(s);
        slot_t f;
        if (take_entry(&r->e[c % DFC_KCOPY_ENTRIES], c + 1, &f)) {
            if (atomicCAS(&s->claimed, c, c + 1) == c) hand_over(s, c + 1, &f);
            continue; /* or another poller claimed it first */
        }
        const int stop = which == 0 && polls % 64 == 0 && vload(&r->stop);
        if ((stop || now_ns() - idle_since > linger_ns) &&
            atomicCAS(&s->claimed, c, c | LEAVING) == c)
            return; /* else a ticket was claimed meanwhile: look again */
    }
}

/* Copier `me`: copies each ticket from `done` + 1 on as the pollers hand it over, and writes
 * done after each; returns when the pollers are leaving and every claimed ticket is done. */
static __device__ void copy_tickets(shared_t *s, dfc_kcopy_ring_t *r, uint64_t done, unsigned me)
{
    for (uint64_t t = done + 1;; t++) {
        slot_t *sl = &s->slot[t & 1];
        if (me == 0) {
            int go = 0;
            while (!go) {
                const unsigned long long c = vload(&s->claimed);
                if (vload(&sl->ticket) == t) go = 1;
                else if ((c & LEAVING) && (c & ~LEAVING) < t) go = -1;
            }
            __threadfence_block(); /* the slot's fields after its ticket */
            s->go = go;
        }
        copiers_sync();
        if (s->go < 0) return;
        const uint64_t bytes = sl->bytes; /* ticket t + 2 may take the slot once t is done */
        copiers_copy(sl->dst, sl->src, DFC_KCOPY_SIZE(bytes), me);
        copiers_sync(); /* every copier's stores, and every read of the slot, first */
        /* Every load has returned (its value was stored): the source is free. Written by
         * another warp than done's: a fence waits for its own warp's stores to host memory
         * to be acknowledged across PCIe (several microseconds under load). */
        if (me == 32 && (bytes & DFC_KCOPY_REPORT_READ)) vstore(&r->read, (uint64_t)t);
        if (me == 0) { /* the bytes before done, for every reader (kcopy_abi.h) */
            if (bytes & DFC_KCOPY_LOCAL_DST) __threadfence();
            else __threadfence_system();
            vstore(&r->done, (uint64_t)t);
            vstore(&s->copied, (unsigned long long)t);
        }
    }
}

/* Poller 0: R from a chain of reads of the ring (each one's address depends on the value of
 * the one before, and seq never has its top bit set), and the pollers' gap from it. The last
 * read's return is not waited for, so four reads time three. */
static __device__ void measure_gap(shared_t *s, dfc_kcopy_ring_t *r)
{
    uint64_t i = 0;
    const long long t0 = clock64();
    for (int k = 0; k < 4; k++) i = vload(&r->e[i >> 63].seq) >> 63;
    const long long rt = (clock64() - t0) / 3 + (long long)i;
    vstore(&s->gap, max(rt / DFC_KCOPY_POLLERS, 1ll));
}

extern "C" __global__ void __launch_bounds__(DFC_KCOPY_THREADS)
    dfc_kcopy_kernel(dfc_kcopy_ring_t *r, uint64_t linger_ns, uint32_t epoch)
{
    __shared__ shared_t s;
    const uint64_t done = vload(&r->done);
    if (threadIdx.x == 0) {
        s.claimed = s.copied = done;
        s.next_start = 0;
        s.slot[0].ticket = s.slot[1].ticket = 0;
        measure_gap(&s, r);
    }
    __syncthreads();
    if (threadIdx.x >= POLLER_THREADS) copy_tickets(&s, r, done, threadIdx.x - POLLER_THREADS);
    else if (threadIdx.x % 32 == 0) poll(&s, r, done, linger_ns, threadIdx.x / 32);
    __syncthreads(); /* every done written */
    if (threadIdx.x == 0) {
        __threadfence_system(); /* the last done before exited */
        vstore(&r->exited, epoch);
    }
}
