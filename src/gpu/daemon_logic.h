/*
 * daemon_logic.h - decisions of the GPU daemon's kernel written over plain state, compiled
 * for the device (daemon_kernel.cu) and for the host, where test/unit/test_gpu_logic.c
 * drives them through random and exhaustive interleavings without a GPU (issue 23, item 5):
 *   - how far channel 0 may mirror the submission queue (the ring bound of PROTOCOL.md 2);
 *   - where a receiver puts its invitation, and which entries a release frees (PROTOCOL.md 5);
 *   - which chunk a transfer may move in a sweep: a send into a FIFO it owns or that is free
 *     and has room, a receive of the chunk at the FIFO's head when it is its own, a chunk of a
 *     cancelled collective dropped, another's moved aside into the spill (eager protocol,
 *     DFC_GPU_RENDEZVOUS=0), a receive from the spill (PROTOCOL.md 4, 5);
 *   - what a cancel forgets (PROTOCOL.md 8), when the kernel exits and when the host may
 *     relaunch it (PROTOCOL.md 9).
 * The memory accesses with their fences stay in the kernel (and daemon.c); these functions
 * decide. Values that cost a read across NVLink or PCIe are passed as pointers and read only
 * when the decision needs them, in the order the kernel read them before.
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

/* ---- A sweep's chunk moves (daemon_kernel.cu: pick_actions, post_actions) ------------- */

/* What one transfer does with one chunk in a sweep (the kernel's act_kind). DROP: a chunk of
 * a cancelled collective, acknowledged without a copy; STEAL: another collective's chunk
 * moved into a spill entry; WAIT: nothing now. */
enum dfc_gpu_act {
    DFC_GPU_ACT_SEND,
    DFC_GPU_ACT_RECV,
    DFC_GPU_ACT_FROM_SPILL,
    DFC_GPU_ACT_STEAL,
    DFC_GPU_ACT_DROP,
    DFC_GPU_ACT_WAIT
};

/* A step's progress word once it has moved all its chunks on a channel. */
#define DFC_GPU_STEP_DONE 0x80000000u

/* A sweep moves at most one chunk per peer and direction, the oldest unfinished transfer's,
 * so that a pair's transfers keep their order (and a receiver invites only its oldest
 * receive from each peer). Returns 1, marking the peer, when this transfer is that one. */
DFC_GPU_HD static inline int dfc_gpu_sweep_first(uint32_t *busy_send, uint32_t *busy_recv,
                                                 int sending, uint32_t peer)
{
    uint32_t *busy = sending ? busy_send : busy_recv, bit = 1u << peer;
    if (*busy & bit) return 0;
    *busy |= bit;
    return 1;
}

/* Chunks of `chunk` bytes that carry the slice [lo, hi). */
DFC_GPU_HD static inline uint32_t dfc_gpu_nchunks(uint64_t lo, uint64_t hi, uint32_t chunk)
{
    return (uint32_t)((hi - lo + chunk - 1) / chunk);
}

/* Sender: a FIFO is held by one collective's send from a step's first chunk to its last (the
 * receiver sees each step's chunks in one run): `ident` may use it when it holds it or
 * nobody does. */
DFC_GPU_HD static inline int dfc_gpu_fifo_free(uint64_t owner, uint64_t ident)
{
    return !owner || owner == ident;
}

/* Sender: chunk number `seq` of a FIFO of `depth` entries may be written once the receiver
 * acknowledged chunk seq - depth (the kernel reads `acked` only when the FIFO is free for us
 * and invited). */
DFC_GPU_HD static inline int dfc_gpu_fifo_room(uint64_t acked, uint64_t seq, uint32_t depth)
{
    return acked + depth >= seq;
}

/* The progress word of a step after chunk `prog` (counted from 1) of its `nchunks`, and the
 * FIFO owner a send leaves: free after its last chunk. */
DFC_GPU_HD static inline uint32_t dfc_gpu_progress_after(uint32_t prog, uint32_t nchunks)
{
    return prog == nchunks ? DFC_GPU_STEP_DONE : prog;
}
DFC_GPU_HD static inline uint64_t dfc_gpu_owner_after(uint64_t owner, uint32_t prog,
                                                      uint32_t nchunks)
{
    return prog == nchunks ? 0 : owner;
}

/* Receiver: the spill entry (of n, per peer and channel) holding the oldest chunk that
 * another collective moved aside for (ident, slot), or -1. Such a chunk comes before
 * anything in the FIFO. */
DFC_GPU_HD static inline int dfc_gpu_spill_oldest(const uint64_t *sp_ident, const uint32_t *sp_slot,
                                                  const uint64_t *sp_seq, int n, uint64_t ident,
                                                  uint32_t slot)
{
    int best = -1;
    for (int e = 0; e < n; e++)
        if (sp_ident[e] == ident && sp_slot[e] == slot && (best < 0 || sp_seq[e] < sp_seq[best]))
            best = e;
    return best;
}

/* Is `ident` one of the DFC_GPU_DEAD last cancelled on this channel? (0 never is.) */
DFC_GPU_HD static inline int dfc_gpu_is_dead(const uint64_t *dead, uint64_t ident)
{
    for (int k = 0; k < DFC_GPU_DEAD; k++)
        if (dead[k] == ident) return 1;
    return 0;
}

/* Receiver: the chunk at the head of a FIFO belongs to `owner`; the receive of `ident` looks
 * at it. Its own: RECV. A cancelled collective's: DROP (acknowledged, not copied - its
 * sender may still be writing). Another's: with rendezvous, WAIT when this receiver has a
 * live invitation of `owner` to that peer on this channel (`invited`: its shadow of the
 * table, dfc_gpu_inv_*; the owner's invited receive takes the chunk at its next sweep),
 * else DROP: a chunk enters a FIFO only once invited, and an invitation is released only
 * when its slice completed (all its chunks taken) or was cancelled, so an uninvited owner is
 * a cancelled one whatever the dead list still remembers (it keeps DFC_GPU_DEAD idents, and
 * more cancels than that - devsurvive's 200 abandons - came before the next receive from
 * that peer: the stale chunk blocked the FIFO for good). Eager: STEAL into the first free
 * of the n spill entries (*spill), or WAIT with the spill full - which is how the eager
 * protocol hangs (issue 23, defect 1). */
DFC_GPU_HD static inline int dfc_gpu_head_choice(uint64_t owner, uint64_t ident,
                                                 const uint64_t *dead, int rendezvous,
                                                 const uint64_t *invited, const uint64_t *sp_ident,
                                                 int n, int *spill)
{
    if (owner == ident) return DFC_GPU_ACT_RECV;
    if (dfc_gpu_is_dead(dead, owner)) return DFC_GPU_ACT_DROP;
    if (rendezvous)
        return dfc_gpu_inv_find(invited, owner) != DFC_GPU_INV_NONE ? DFC_GPU_ACT_WAIT
                                                                    : DFC_GPU_ACT_DROP;
    for (int e = 0; e < n; e++)
        if (!sp_ident[e]) {
            *spill = e;
            return DFC_GPU_ACT_STEAL;
        }
    return DFC_GPU_ACT_WAIT;
}

/* ---- Cancel (daemon_kernel.cu: cancel_coll; PROTOCOL.md 8) --------------------------------- */

/* Drops queue entry (slot, gen) from a run queue of n entries; returns the new count. */
DFC_GPU_HD static inline int dfc_gpu_queue_drop(dfc_gpu_sq_entry_t *q, int n, uint32_t slot,
                                                uint32_t gen)
{
    int j = 0;
    for (int i = 0; i < n; i++)
        if (q[i].slot != slot || q[i].gen != gen) q[j++] = q[i];
    return j;
}

/* What a channel forgets of a cancelled `ident` towards one peer: the FIFOs it holds as a
 * sender (nslots of them) become free, its chunks in the n spill entries are gone. */
DFC_GPU_HD static inline void dfc_gpu_forget(uint64_t *owner, uint32_t nslots, uint64_t *sp_ident,
                                             int n, uint64_t ident)
{
    for (uint32_t k = 0; k < nslots; k++)
        if (owner[k] == ident) owner[k] = 0;
    for (int k = 0; k < n; k++)
        if (sp_ident[k] == ident) sp_ident[k] = 0;
}

/* Remembers a cancelled ident (the last DFC_GPU_DEAD of them). */
DFC_GPU_HD static inline void dfc_gpu_dead_add(uint64_t *dead, uint32_t *ndead, uint64_t ident)
{
    dead[(*ndead)++ % DFC_GPU_DEAD] = ident;
}

/* ---- Exit and relaunch (PROTOCOL.md 9) ----------------------------------------------------- */

/* How long nothing moved: since the last move of any block, or the launch when later; 0
 * when another block stored a time later than t (unsigned t - last would wrap). */
DFC_GPU_HD static inline uint64_t dfc_gpu_quiet(uint64_t t, uint64_t last_move,
                                                uint64_t launched_at)
{
    uint64_t since = last_move > launched_at ? last_move : launched_at;
    return t > since ? t - since : 0;
}

/* The exit rule of one block: 1 (stuck) when it holds collectives and nothing moved for
 * idle_ns - everything waits for peers, and host-side synchronization must be able to
 * complete; 2 (idle) when no block holds anything, nothing new was submitted (the host's
 * tail, read only then, equals this block's head) for linger_ns; else 0. */
DFC_GPU_HD static inline int dfc_gpu_exit_why(int held, uint64_t quiet, uint64_t idle_ns,
                                              uint64_t linger_ns, const volatile uint32_t *sq_tail,
                                              uint32_t sq_head, const volatile uint32_t *busy,
                                              uint32_t channels)
{
    if (held) return quiet > idle_ns;
    if (quiet <= linger_ns || *sq_tail != sq_head) return 0;
    for (uint32_t b = 0; b < channels; b++)
        if (busy[b]) return 0;
    return 2;
}

/* Host: has a block of the current launch exited (so work may sit in no running block and
 * a launch is due)? Every block writes exited[] = its epoch when it leaves. The epoch
 * advances only when a launch was accepted (issue 23, defect 4: advanced before a launch
 * that failed, no block of that epoch ever exits and no launch comes again). */
DFC_GPU_HD static inline int dfc_gpu_kernel_gone(int launched, const volatile uint32_t *exited,
                                                 uint32_t channels, uint32_t epoch)
{
    if (!launched) return 1;
    for (uint32_t b = 0; b < channels; b++)
        if (exited[b] == epoch) return 1;
    return 0;
}
DFC_GPU_HD static inline uint32_t dfc_gpu_epoch_after(uint32_t epoch, int accepted)
{
    return accepted ? epoch + 1 : epoch;
}

#endif /* DFC_GPU_DAEMON_LOGIC_H */
