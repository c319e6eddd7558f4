/*
 * kcopy_abi.h - the ring between the host and the small-copy kernel (kcopy.c, kcopy_kernel.cu).
 *
 * A copy engine pays 11-15 us of CUDA calls for any copy under MPS, however small (BENCHMARKS.md,
 * "Small device messages"). The small-copy kernel is resident while copies come: it polls this
 * ring in pinned, mapped host memory and moves up to DFC_KCOPY_MAX_BYTES per entry with loads
 * and stores, so a small copy costs one round of reads across PCIe and a completion write.
 *
 * Ticket t (1, 2, ...) lives in entry (t - 1) % DFC_KCOPY_ENTRIES. The host fills dst, src and
 * bytes (addresses the kernel's context maps), each tagged with t (DFC_KCOPY_TAGGED), then
 * publishes seq = t with a release store. The kernel takes tickets in order: it reads the next
 * entry whole, with two 16-byte loads issued together, until the three tags are done + 1's,
 * copies, makes the bytes visible to every reader (DFC_KCOPY_LOCAL_DST), then writes done = t.
 * The tags are what lets it take an entry in one round of reads across PCIe: polling seq and
 * then reading the fields took two, one after the other. Each 8-byte field is written by one store, so a field read
 * while the host writes is either the old ticket's or the new one's, and an entry whose tags
 * all match is the new one whole. (A stand-in of the tests may poll seq instead: the host
 * writes it last.) The host reuses an entry only once
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

/* A field's value sits in its low DFC_KCOPY_FIELD_BITS, the ticket's low 16 bits above: the
 * addresses of a process on x86-64 and aarch64 (CUDA's unified space included) and a copy's
 * size fit in 48 bits, and kcopy.c's post checks that they do. */
#define DFC_KCOPY_FIELD_BITS 48
#define DFC_KCOPY_TAGGED(v, t) ((uint64_t)(v) | (uint64_t)(t) << DFC_KCOPY_FIELD_BITS)
#define DFC_KCOPY_FIELD(w) ((uint64_t)(w) & ((1ull << DFC_KCOPY_FIELD_BITS) - 1))
#define DFC_KCOPY_TAG_IS(w, t) ((uint64_t)(w) >> DFC_KCOPY_FIELD_BITS == ((uint64_t)(t)&0xffff))

/* In the bytes field, above the size (at most DFC_KCOPY_MAX_BYTES): set when the destination
 * is memory of the kernel's own device (a pull into this process's buffer, not managed
 * memory, whose pages may sit in host memory: ipc.c's COPY_PULL). Every reader of such
 * memory (this device's kernels and copy engines, a peer over NVLink or PCIe, the host through
 * a copy) reaches it through this device's L2, so a device-scope fence orders the bytes before
 * done: 0.35 us on an H100 against 0.7 for the system-scope fence that any other destination
 * (managed memory; a push into a peer's buffer, which may sit on another GPU) takes. */
#define DFC_KCOPY_LOCAL_DST (1ull << 40)
/* Also in the bytes field: write `read` (below) for this ticket (DFC_GPU_KCOPY_EARLY_FIN). */
#define DFC_KCOPY_REPORT_READ (1ull << 41)
#define DFC_KCOPY_SIZE(w) (DFC_KCOPY_FIELD(w) & (DFC_KCOPY_LOCAL_DST - 1))

typedef struct dfc_kcopy_entry {
    uint64_t dst, src; /* tagged addresses valid in the kernel's context */
    uint64_t bytes;    /* tagged; DFC_KCOPY_LOCAL_DST may be set */
    uint64_t seq;      /* the ticket, published last */
} dfc_kcopy_entry_t;

typedef struct dfc_kcopy_ring {
    uint64_t done;   /* kernel: the last ticket copied (tickets complete in order) */
    uint32_t exited; /* kernel: the epoch of the launch that has exited */
    uint32_t stop;   /* host: leave now (finalize); the idle kernel reads it every 64 polls */
    uint64_t read;   /* kernel, for tickets with DFC_KCOPY_REPORT_READ: the last one whose
                        source is read whole, written beside the fence that precedes its done
                        (by another warp), so often seen first: the source is free from then */
    uint64_t pad[5];
    dfc_kcopy_entry_t e[DFC_KCOPY_ENTRIES];
} dfc_kcopy_ring_t;

#endif /* DFC_CUDA_KCOPY_ABI_H */
