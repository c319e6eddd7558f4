/*
 * daemon_plan.h - how the host side prepares a schedule for the GPU daemon: which
 * receive-reduce steps reduce on arrival, which mailbox FIFO a collective uses, and whether
 * it fits one channel. Pure functions of the schedule, shared by daemon.c and its unit test
 * (test/unit/test_gpu_plan.c), which runs without a GPU.
 */
#ifndef DFC_GPU_DAEMON_PLAN_H
#define DFC_GPU_DAEMON_PLAN_H

#include "gpu/daemon_abi.h"

static inline int dfc_gpu_is_transfer(const dfc_step_t *st)
{
    return st->kind == DFC_STEP_SEND || st->kind == DFC_STEP_RECV || st->kind == DFC_STEP_RECV_REDUCE;
}

/* Marks DFC_GPU_FUSED on the receive-reduce steps whose destination no send of the same
 * fence group reads (item = bytes of one datatype item): those may reduce each chunk into
 * the destination as it arrives, skipping the trip through TMP. Returns 1 if a step still
 * needs TMP. */
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
                const dfc_step_t *s = &steps[j];
                if (s->kind == DFC_STEP_SEND && s->src_buf == r->dst_buf && s->src_off < hi && lo < s->src_off + s->bytes)
                    fused = 0;
            }
            if (fused) r->order |= DFC_GPU_FUSED;
        }
    }
    for (int i = 0; i < n; i++) {
        const dfc_step_t *st = &steps[i];
        if (st->kind == DFC_STEP_RECV_REDUCE ? !(st->order & DFC_GPU_FUSED)
                                             : st->src_buf == DFC_BUF_TMP || st->dst_buf == DFC_BUF_TMP)
            return 1;
    }
    return 0;
}

/* The FIFO of a collective (ident = (context << 32 | tag) + 1), the same on every rank.
 * Consecutive tags of a communicator take consecutive FIFOs, and so do persistent
 * collectives started together: their tags differ in bits 16 and up (the _init number). */
static inline uint32_t dfc_gpu_fifo_of(uint64_t ident, uint32_t nslots)
{
    uint64_t tag = (uint32_t)(ident - 1), ctx = (ident - 1) >> 32;
    return (uint32_t)((tag + (tag >> 16) * 5 + ctx * 7) % nslots);
}

/* 1 when every step is smaller than 2 x chan_min bytes: dfc_gpu_slice gives it all to
 * channel 0, so the collective runs there alone and its channels never meet. */
static inline int dfc_gpu_single_channel(const dfc_step_t *steps, int n, uint64_t item, uint64_t chan_min)
{
    if (!chan_min) return 0;
    for (int i = 0; i < n; i++) {
        uint64_t b = steps[i].kind == DFC_STEP_REDUCE ? steps[i].count * item : steps[i].bytes;
        if (b >= 2 * chan_min) return 0;
    }
    return 1;
}

#endif /* DFC_GPU_DAEMON_PLAN_H */
