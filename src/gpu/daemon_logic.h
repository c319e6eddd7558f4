/*
 * daemon_logic.h - decisions of the GPU daemon's kernel written over plain state, compiled
 * for the device (daemon_kernel.cu) and for the host, where test/unit/test_gpu_logic.c
 * drives them through random and exhaustive interleavings without a GPU (issue 23, item 5):
 *   - how far channel 0 may mirror the submission queue (the ring bound of PROTOCOL.md 2);
 *   - where a receiver puts its invitation, and which entries a release frees (PROTOCOL.md 5).
 * The memory accesses with their fences stay in the kernel; these functions decide.
 */
#ifndef DFC_GPU_DAEMON_LOGIC_H
#define DFC_GPU_DAEMON_LOGIC_H

#include <stdint.h>

#include "gpu/daemon_abi.h"

/* Entries channel 0 may mirror beyond `mirrored` so that none overwrites one a block has not
 * read: the ring holds `ring` entries, and block b has read everything before admitted[b]. */
DFC_GPU_HD static inline uint32_t dfc_gpu_mirror_room(uint32_t mirrored,
                                                      const volatile uint32_t *admitted,
                                                      uint32_t channels, uint32_t ring)
{
    uint32_t lag = 0; /* how far the slowest block is behind the mirror */
    for (uint32_t b = 0; b < channels; b++) {
        uint32_t l = mirrored - admitted[b];
        if (l > lag) lag = l;
    }
    return lag < ring ? ring - lag : 0;
}

/* The first entry an ident's lookups try. */
DFC_GPU_HD static inline uint32_t dfc_gpu_inv_hash(uint64_t ident)
{
    return (uint32_t)((ident * 0x9e3779b97f4a7c15ull) >> 56) % DFC_GPU_INVITES;
}

/* Receiver: the entry a new invitation of `ident` takes in a table whose shadow is given
 * (0: free, DFC_GPU_INV_GONE: released, else live): the first free or released entry from
 * the ident's hash on, which every lookup reaches before any free entry. Marks it in the
 * shadow. Returns DFC_GPU_INV_NONE only when every entry is live. */
DFC_GPU_HD static inline uint32_t dfc_gpu_inv_insert(uint64_t *shadow, uint64_t ident)
{
    uint32_t i = dfc_gpu_inv_hash(ident);
    for (uint32_t n = 0; n < DFC_GPU_INVITES; n++, i = (i + 1) % DFC_GPU_INVITES)
        if (!shadow[i] || shadow[i] == DFC_GPU_INV_GONE) {
            shadow[i] = ident;
            return i;
        }
    return DFC_GPU_INV_NONE;
}

/* Receiver: entry idx is released. It becomes GONE (lookups go on past it), or free when no
 * live entry after it (up to the next free one) was placed past it - no lookup of a live
 * ident crosses it then - and with it the GONE entries just before it (the same holds for
 * them). Live entries never move, so a sender's cached index stays right. Returns how many
 * entries ending at idx (going backwards) became free, 0 if none; the caller writes the
 * same into the peer's table. */
DFC_GPU_HD static inline uint32_t dfc_gpu_inv_release(uint64_t *shadow, uint32_t idx)
{
    const uint32_t N = DFC_GPU_INVITES;
    shadow[idx] = DFC_GPU_INV_GONE;
    for (uint32_t m = (idx + 1) % N, n = 0; shadow[m] && n < N; m = (m + 1) % N, n++) {
        if (shadow[m] == DFC_GPU_INV_GONE) continue;
        uint32_t h = dfc_gpu_inv_hash(shadow[m]);
        if ((m + N - h) % N >= (m + N - idx) % N) return 0; /* its lookups cross idx */
    }
    uint32_t n = 0;
    for (uint32_t j = idx; shadow[j] == DFC_GPU_INV_GONE && n < N; j = (j + N - 1) % N, n++)
        shadow[j] = 0;
    return n;
}

/* Sender (over a plain copy of the table's idents, for tests; the kernel reads them with
 * acquire loads in the same order): the entry of `ident`, or DFC_GPU_INV_NONE when the
 * lookup meets a free entry first (not invited yet). */
DFC_GPU_HD static inline uint32_t dfc_gpu_inv_find(const uint64_t *idents, uint64_t ident)
{
    uint32_t i = dfc_gpu_inv_hash(ident);
    for (uint32_t n = 0; n < DFC_GPU_INVITES; n++, i = (i + 1) % DFC_GPU_INVITES) {
        if (idents[i] == ident) return i;
        if (!idents[i]) break;
    }
    return DFC_GPU_INV_NONE;
}

#endif /* DFC_GPU_DAEMON_LOGIC_H */
