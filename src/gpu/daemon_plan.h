/*
 * daemon_plan.h - how the host side prepares a schedule for the GPU daemon: which
 * receive-reduce steps reduce on arrival, which mailbox FIFO a collective uses, and how many
 * channels it runs on. Pure functions of the schedule, shared by daemon.c and its unit test
 * (test/unit/test_gpu_plan.c), which runs without a GPU.
 */
#ifndef DFC_GPU_DAEMON_PLAN_H
#define DFC_GPU_DAEMON_PLAN_H

#include "gpu/daemon_abi.h"

static inline int dfc_gpu_is_transfer(const dfc_step_t *st)
{
    return st->kind == DFC_STEP_SEND || st->kind == DFC_STEP_RECV ||
           st->kind == DFC_STEP_RECV_REDUCE;
}

/* The byte range a transfer step reads (send) or writes (receive) in its buffer. */
static inline void dfc_gpu_xfer_range(const dfc_step_t *st, uint64_t item, int *buf, uint64_t *lo,
                                      uint64_t *hi)
{
    int send = st->kind == DFC_STEP_SEND;
    *buf = send ? st->src_buf : st->dst_buf;
    *lo = send ? st->src_off : st->dst_off;
    *hi = *lo + (st->kind == DFC_STEP_RECV_REDUCE ? st->count * item : st->bytes);
}

/* Marks DFC_GPU_FUSED on the receive-reduce steps whose destination no other transfer of the
 * same fence group touches (item = bytes of one datatype item): no send reads it, no other
 * receive writes it. Those may reduce each chunk into the destination as it arrives,
 * skipping the trip through TMP. (A receive into the same range - the pairwise
 * reduce-scatter at 3 ranks receives B = x_(p-1) and reduces x_1 into B in one group - may
 * land after the fused reduction and overwrite it; the deferred one runs at the fence, after
 * every receive of the group.) Returns 1 if a step still needs TMP. */
static inline int dfc_gpu_mark_fused(dfc_step_t *steps, int n, uint64_t item)
{
    for (int start = 0, end; start < n; start = end + 1) {
        for (end = start; end < n && dfc_gpu_is_transfer(&steps[end]); end++) {}
        for (int i = start; i < end; i++) {
            dfc_step_t *r = &steps[i];
            if (r->kind != DFC_STEP_RECV_REDUCE) continue;
            uint64_t lo = r->dst_off, hi = lo + r->count * item;
            int fused = 1;
            for (int j = start; j < end; j++) {
                int xbuf;
                uint64_t xlo, xhi;
                if (j == i) continue;
                dfc_gpu_xfer_range(&steps[j], item, &xbuf, &xlo, &xhi);
                if (xbuf == r->dst_buf && xlo < hi && lo < xhi) fused = 0;
            }
            if (fused) r->order |= DFC_GPU_FUSED;
        }
    }
    for (int i = 0; i < n; i++) {
        const dfc_step_t *st = &steps[i];
        if (st->kind == DFC_STEP_RECV_REDUCE
                ? !(st->order & DFC_GPU_FUSED)
                : st->src_buf == DFC_BUF_TMP || st->dst_buf == DFC_BUF_TMP)
            return 1;
    }
    return 0;
}

/* Numbers each transfer among the collective's transfers with the same peer in the same
 * direction (DFC_GPU_ORDINAL, in a field transfers leave unused): the k-th send to a peer
 * matches that peer's k-th receive from us, which is what its invitations name. */
static inline void dfc_gpu_number_transfers(dfc_step_t *steps, int n, int nranks)
{
    uint32_t sends[DFC_GPU_MAX_LOCAL] = {0}, recvs[DFC_GPU_MAX_LOCAL] = {0};
    for (int i = 0; i < n; i++) {
        dfc_step_t *st = &steps[i];
        if (!dfc_gpu_is_transfer(st) || st->peer < 0 || st->peer >= nranks) continue;
        if (st->kind == DFC_STEP_SEND) st->dst_off = sends[st->peer]++;
        else st->src_off = recvs[st->peer]++;
    }
}

/* The FIFO of a collective (ident = dfc_gpu_ident: (incarnation << 48 | context << 32 | tag)
 * + 1; `ctx` below holds the incarnation's bits too), the same on every rank.
 * Consecutive tags of a communicator take consecutive FIFOs, and so do persistent
 * collectives started together: their tags differ in bits 16 and up (the _init number). */
static inline uint32_t dfc_gpu_fifo_of(uint64_t ident, uint32_t nslots)
{
    uint64_t tag = (uint32_t)(ident - 1), ctx = (ident - 1) >> 32;
    return (uint32_t)((tag + (tag >> 16) * 5 + ctx * 7) % nslots);
}

/* The channels a collective runs on, 0 .. n-1: the most that dfc_gpu_slice gives any of
 * its steps (bytes / chan_min, at least 1, at most `channels`). Slicing depends on a step's
 * size alone, so sender and receiver agree on which channel moves what even when their
 * schedules' other steps differ; blocks at or past n never take the collective, and its
 * barriers count n channels. A collective of small steps runs on channel 0 alone. */
static inline uint32_t dfc_gpu_channels_of(const dfc_step_t *steps, int n, uint64_t item,
                                           uint64_t chan_min, uint32_t channels)
{
    if (!chan_min) return channels;
    uint64_t most = 1;
    for (int i = 0; i < n; i++) {
        uint64_t b = steps[i].kind == DFC_STEP_REDUCE ? steps[i].count * item : steps[i].bytes;
        if (b / chan_min > most) most = b / chan_min;
    }
    return most < channels ? (uint32_t)most : channels;
}

/* DFC_GPU_CHUNK=0: the largest power of two from 16 KiB to 256 KiB with which a process's
 * mailboxes (nlocal x channels x slots x depth chunks) and spill entries (nlocal x channels
 * x DFC_GPU_SPILL chunks) fit `budget` bytes (DFC_GPU_FIFO_MEMORY); 16 KiB even when they
 * do not. Every process of the node computes the same from the same geometry. */
static inline uint32_t dfc_gpu_auto_chunk(const dfc_gpu_geom_t *g, uint64_t budget)
{
    uint64_t chunks = (uint64_t)g->nlocal * g->channels * (g->slots * g->depth + DFC_GPU_SPILL);
    uint64_t chunk = 256 << 10;
    while (chunk > (16 << 10) && chunk * chunks > budget) chunk /= 2;
    return (uint32_t)chunk;
}

#endif /* DFC_GPU_DAEMON_PLAN_H */
