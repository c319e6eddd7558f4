/*
 * kcopy_abi.h - the ring between the host and the small-copy kernel (kcopy.c, kcopy_kernel.cu).
 *
 * A copy engine pays 11-15 us of CUDA calls for any copy under MPS, however small (BENCHMARKS.md,
 * "Small device messages"). The small-copy kernel is resident while copies come: it polls this
 * ring in pinned, mapped host memory and moves up to DFC_KCOPY_MAX_BYTES per entry with loads
 * and stores, so a small copy costs two reads across PCIe and a completion write.
 *
 * Ticket t (1, 2, ...) lives in entry (t - 1) % DFC_KCOPY_ENTRIES. The host fills dst, src and
 * bytes (addresses the kernel's context maps), then publishes seq = t with a release store.
 * The kernel takes tickets in order: it waits for seq == done + 1 in the next entry, copies,
 * makes the bytes visible system-wide, then writes done = t. The host reuses an entry only once
 * done has passed it, so the ring never holds more than DFC_KCOPY_ENTRIES tickets.
 *
 * The kernel exits after DFC_GPU_KCOPY_LINGER_US without a ticket (or at once when stop is
 * set), writing exited = the epoch it was launched with after its last done. A host that finds
 * its ticket not done and exited equal to the current epoch launches the kernel again: the
 * ticket was published after the kernel's last look, and nothing else is lost.
 */
#ifndef DFC_CUDA_KCOPY_ABI_H
#define DFC_CUDA_KCOPY_ABI_H

#include <stdint.h>

#define DFC_KCOPY_ENTRIES 32
#define DFC_KCOPY_MAX_BYTES (1 << 20) /* the largest copy DFC_GPU_KCOPY_MAX may allow */
#define DFC_KCOPY_THREADS 512

/* The kernel reads dst and src with one 16-byte load and bytes and seq with another, once
 * seq has matched: two reads across PCIe per copy, issued together. */
typedef struct dfc_kcopy_entry {
    uint64_t dst, src; /* addresses valid in the kernel's context */
    uint64_t bytes;
    uint64_t seq; /* the ticket, published last */
} dfc_kcopy_entry_t;

typedef struct dfc_kcopy_ring {
    uint64_t done;   /* kernel: the last ticket copied (tickets complete in order) */
    uint32_t exited; /* kernel: the epoch of the launch that has exited */
    uint32_t stop;   /* host: leave now (finalize) */
    uint64_t pad[6];
    dfc_kcopy_entry_t e[DFC_KCOPY_ENTRIES];
} dfc_kcopy_ring_t;

#endif /* DFC_CUDA_KCOPY_ABI_H */
