/*
 * dfc_sched.h - the schedule format: one description of a collective for this rank, run by
 * both executors (the host engine in src/coll/exec.c and the GPU daemon's kernel,
 * src/gpu/daemon_kernel.cu).
 *
 * Plain C, fixed-width fields, no pointers: a schedule can be copied to device memory as
 * is. Buffers are named (SEND, RECV, TMP) and addressed by byte offsets; the executor binds
 * names to addresses per instance (persistent collectives build their schedule once).
 *
 * Semantics, step by step in order:
 *   SEND, RECV, RECV_REDUCE post a transfer and do not wait: consecutive transfers overlap.
 *   FENCE waits until every transfer posted since the previous FENCE has completed, then
 *     applies the reductions of the RECV_REDUCE steps among them, in step order.
 *   COPY and REDUCE are local; the executor runs them only at a fence point (it first
 *     completes everything posted before them, as FENCE does).
 * Between two ranks, transfers of one collective match in the order they are posted
 * (non-overtaking), so a generator must post a pair's sends and receives in the same order
 * on both sides. A generator never needs tags.
 * Preemption points are the fences: there the executor may leave a collective whose
 * transfers are not complete, keeping only (pc, fence_start) as its dynamic context.
 */
#ifndef DFC_SCHED_H
#define DFC_SCHED_H

#include <stdint.h>

enum dfc_step_kind {
    DFC_STEP_SEND = 1,    /* send bytes at (src_buf, src_off) to peer */
    DFC_STEP_RECV,        /* receive bytes from peer into (dst_buf, dst_off) */
    DFC_STEP_RECV_REDUCE, /* receive `count` items from peer into TMP at tmp_off, then at the
                             next fence reduce them into (dst_buf, dst_off) */
    DFC_STEP_COPY,        /* copy bytes from (src_buf, src_off) to (dst_buf, dst_off) */
    DFC_STEP_REDUCE,      /* reduce `count` items at (src_buf, src_off) into (dst_buf, dst_off) */
    DFC_STEP_FENCE        /* wait for the transfers posted since the last fence */
};
/* Kinds with the high bit set (0x80 and up) are the host executor's own (coll/dfc_coll.h);
 * no schedule the GPU daemon gets has them. */
#define DFC_STEP_HOST_ONLY 0x80

enum dfc_buf_name { DFC_BUF_NONE = 0, DFC_BUF_SEND, DFC_BUF_RECV, DFC_BUF_TMP, DFC_BUF_COUNT };

/* Operand order of a reduction whose operands are `in` (received or src) and `dst`:
 * IN_FIRST computes dst = in (op) dst; IN_SECOND computes dst = dst (op) in. Only
 * non-commutative operations care; generators for them must pick the right one. */
enum dfc_reduce_order { DFC_REDUCE_IN_FIRST = 0, DFC_REDUCE_IN_SECOND = 1 };

typedef struct dfc_step {
    uint8_t kind;    /* enum dfc_step_kind */
    uint8_t src_buf; /* enum dfc_buf_name */
    uint8_t dst_buf;
    uint8_t order; /* enum dfc_reduce_order */
    int32_t peer;  /* rank in the communicator (transfers; a daemon index in the GPU daemon) */
    uint64_t src_off, dst_off, tmp_off; /* bytes */
    uint64_t bytes;                     /* transfers and copies */
    uint64_t count;                     /* items of the datatype (reductions) */
} dfc_step_t;

typedef struct dfc_sched {
    dfc_step_t *steps;
    int32_t nsteps, cap;
    uint64_t tmp_bytes;    /* scratch the schedule needs (TMP buffer size) */
    int32_t ntransfers;    /* SEND/RECV/RECV_REDUCE steps, for sizing request arrays */
    const char *algorithm; /* name of the generator, for logs and tests */
    int32_t uses_slots;    /* its host-only slot steps, each one exchange (host bookkeeping) */
    int32_t reduces;       /* has REDUCE or RECV_REDUCE steps: its receives pull alone (exec.c) */
} dfc_sched_t;

#endif /* DFC_SCHED_H */
