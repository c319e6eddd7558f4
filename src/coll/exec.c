/*
 * exec.c - the host executor: runs a collective's schedule step by step.
 *
 * Transfers are posted as nonblocking point-to-point operations on the communicator's
 * collective context, tagged with the instance's tag, and never waited for here. At a
 * fence point (FENCE, COPY, REDUCE, or the end) the executor checks whether every transfer
 * posted since the last fence is complete; if one is not, it returns "not ready" and the
 * scheduler may run another collective (preemption). The dynamic context is just
 * (pc, fence_start): resuming re-checks the same transfers, so it is exact.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/dfc_coll.h"

static inline char *buf_at(dfc_coll_t *c, int name, uint64_t off) { return (char *)c->bufs[name] + off; }

/* dst = in (op) dst, or dst = dst (op) in. `in` may be clobbered only when in_is_scratch. */
static int reduce_ordered(dfc_coll_t *c, const void *in, void *dst, uint64_t count, int order, int in_is_scratch)
{
    if (order == DFC_REDUCE_IN_FIRST || c->op->commute) {
        dfc_op_reduce(c->op, c->dtype, in, dst, count);
        return DFC_SUCCESS;
    }
    size_t bytes = count * c->dtype->size;
    void *tmp = in_is_scratch ? (void *)in : malloc(bytes);
    if (!tmp) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a %zu-byte reduction", bytes);
    if (!in_is_scratch) memcpy(tmp, in, bytes);
    dfc_op_reduce(c->op, c->dtype, dst, tmp, count); /* tmp = dst (op) in */
    memcpy(dst, tmp, bytes);
    if (!in_is_scratch) free(tmp);
    return DFC_SUCCESS;
}

/* Are the transfers since the last fence complete? Then apply their reductions. */
static int fence_reached(dfc_coll_t *c, int *err)
{
    dfc_sched_t *s = &c->sched;
    for (int i = c->fence_start; i < c->pc; i++)
        if (!c->xfer[i].complete) return 0;
    for (int i = c->fence_start; i < c->pc; i++) {
        dfc_step_t *st = &s->steps[i];
        if (st->kind != DFC_STEP_SEND && st->kind != DFC_STEP_RECV && st->kind != DFC_STEP_RECV_REDUCE)
            continue;
        if (c->xfer[i].status.DFC_ERROR && !*err) *err = c->xfer[i].status.DFC_ERROR;
        if (st->kind == DFC_STEP_RECV_REDUCE && !*err)
            *err = reduce_ordered(c, buf_at(c, DFC_BUF_TMP, st->tmp_off), buf_at(c, st->dst_buf, st->dst_off),
                                  st->count, st->order, 1);
    }
    c->fence_start = c->pc;
    return 1;
}

int dfc_coll_exec(dfc_coll_t *c)
{
    dfc_sched_t *s = &c->sched;
    dfc_comm_t *comm = c->comm;
    int err = DFC_SUCCESS;
    while (c->pc < s->nsteps && !err) {
        dfc_step_t *st = &s->steps[c->pc];
        dfc_req_t *x = &c->xfer[c->pc];
        switch (st->kind) {
        case DFC_STEP_SEND:
            dfc_req_init_internal(x, comm);
            err = dfc_p2p_isend(comm, 1, buf_at(c, st->src_buf, st->src_off), st->bytes, st->peer, c->tag, 0, x);
            break;
        case DFC_STEP_RECV:
            dfc_req_init_internal(x, comm);
            err = dfc_p2p_irecv(comm, 1, buf_at(c, st->dst_buf, st->dst_off), st->bytes, st->peer, c->tag, x);
            break;
        case DFC_STEP_RECV_REDUCE:
            dfc_req_init_internal(x, comm);
            err = dfc_p2p_irecv(comm, 1, buf_at(c, DFC_BUF_TMP, st->tmp_off), st->bytes, st->peer, c->tag, x);
            break;
        default: /* FENCE, COPY, REDUCE: a preemption point */
            if (!fence_reached(c, &err)) return 0;
            if (err) break;
            if (st->kind == DFC_STEP_COPY)
                memmove(buf_at(c, st->dst_buf, st->dst_off), buf_at(c, st->src_buf, st->src_off), st->bytes);
            else if (st->kind == DFC_STEP_REDUCE)
                err = reduce_ordered(c, buf_at(c, st->src_buf, st->src_off), buf_at(c, st->dst_buf, st->dst_off),
                                     st->count, st->order, st->src_buf == DFC_BUF_TMP);
            c->fence_start = c->pc + 1;
        }
        c->pc++;
    }
    if (!err && !fence_reached(c, &err)) return 0;
    if (err) c->req->status.DFC_ERROR = err;
    return 1;
}
