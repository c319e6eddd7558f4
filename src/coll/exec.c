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

static inline char *buf_at(dfc_coll_t *c, int name, uint64_t off)
{
    return (char *)c->bufs[name] + off;
}

/* inout = in (op) inout. A user op runs without the library lock (as in Reduce_local): it
 * may call DFC, and under DFC_THREAD_MULTIPLE its language runtime may wait for a thread that
 * waits for the lock (mpi4py: Python's GIL), which deadlocked when the op ran under it. While
 * it runs, in_user_op keeps other threads off this instance and the scheduler's pass flag off
 * the run queue (scheduler.c); the op and type are the instance's, held by its request. */
static void exec_reduce(dfc_coll_t *c, const dfc_op_t *op, const void *in, void *inout,
                        uint64_t count)
{
    if (!op->user_fn) {
        dfc_op_reduce(op, c->dtype, in, inout, count);
        return;
    }
    c->in_user_op = 1;
    DFC_UNLOCK();
    dfc_op_reduce(op, c->dtype, in, inout, count);
    DFC_LOCK();
    c->in_user_op = 0;
}

/* dst = in (op) dst, or dst = dst (op) in. `in` may be clobbered only when in_is_scratch. */
static int reduce_ordered(dfc_coll_t *c, const void *in, void *dst, uint64_t count, int order,
                          int in_is_scratch)
{
    if (order == DFC_REDUCE_IN_FIRST || c->op->commute) {
        exec_reduce(c, c->op, in, dst, count);
        return DFC_SUCCESS;
    }
    size_t bytes = count * c->dtype->size;
    void *tmp = in_is_scratch ? (void *)in : malloc(bytes);
    if (!tmp) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a %zu-byte reduction", bytes);
    if (!in_is_scratch) memcpy(tmp, in, bytes);
    exec_reduce(c, c->op, dst, tmp, count); /* tmp = dst (op) in */
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
        if (st->kind != DFC_STEP_SEND && st->kind != DFC_STEP_RECV &&
            st->kind != DFC_STEP_RECV_REDUCE)
            continue;
        if (c->xfer[i].status.DFC_ERROR && !*err) *err = c->xfer[i].status.DFC_ERROR;
        if (st->kind == DFC_STEP_RECV_REDUCE && !*err)
            *err = reduce_ordered(c, buf_at(c, DFC_BUF_TMP, st->tmp_off),
                                  buf_at(c, st->dst_buf, st->dst_off), st->count, st->order, 1);
    }
    c->fence_start = c->pc;
    return 1;
}

/* The SLOT_ALLREDUCE step's reduction: in[r] is rank r's contribution; out gets
 * recursive doubling's bracketing of x_0 op ... op x_(n-1) (allreduce_recursive_doubling.c):
 * for the first 2*rem ranks, (x_2j op x_2j+1) stands for new rank j, then new ranks combine
 * pairwise at distance 1, 2, 4, ... with the lower operand first. dfc_op_reduce(in, inout)
 * computes inout = in op inout. */
void dfc_coll_slot_reduce(const dfc_op_t *op, const dfc_dtype_t *dt, const void *const *in, int n,
                          void *out, uint64_t count, uint64_t bytes, char *tmp)
{
    if (n == 2) {
        memcpy(out, in[1], bytes);
        dfc_op_reduce(op, dt, in[0], out, count);
        return;
    }
    int pof2 = dfc_coll_pof2(n);
    int rem = n - pof2;
    const void *v[pof2];
    for (int j = 0; j < pof2; j++) {
        if (j < rem) {
            char *t = tmp + (size_t)j * bytes;
            memcpy(t, in[2 * j + 1], bytes);
            dfc_op_reduce(op, dt, in[2 * j], t, count);
            v[j] = t;
        } else {
            v[j] = in[j + rem];
        }
    }
    if (pof2 == 1) {
        memcpy(out, v[0], bytes);
        return;
    }
    for (int mask = 1; mask < pof2; mask <<= 1) {
        int last = 2 * mask == pof2;
        for (int j = 0; j < pof2; j += 2 * mask) {
            char *dst = last ? (char *)out : tmp + (size_t)(j + mask) * bytes;
            if ((const void *)dst != v[j + mask]) memcpy(dst, v[j + mask], bytes);
            dfc_op_reduce(op, dt, v[j], dst, count);
            v[j] = dst;
        }
    }
}

/* The reduce callback of the slot exchange: the step's reduction into RECV. */
typedef struct slot_step {
    dfc_coll_t *c;
    const dfc_step_t *st;
} slot_step_t;

static void slot_step_reduce(void *ctx, const void *const *in, int n)
{
    slot_step_t *k = ctx;
    dfc_coll_t *c = k->c;
    const dfc_step_t *st = k->st;
    if (!st->bytes) return;                   /* a barrier */
    if (st->peer == DFC_SLOT_PEER_ALLTOALL) { /* block `me` of every member's contribution */
        uint64_t block = st->count, me = (uint64_t)c->comm->rank;
        for (int r = 0; r < n; r++)
            memcpy(buf_at(c, st->dst_buf, (uint64_t)r * block), (const char *)in[r] + me * block,
                   block);
        return;
    }
    if (st->peer >= 0) { /* a bcast: the root's contribution, where this rank is not it */
        if (st->peer != c->comm->rank) memcpy(buf_at(c, st->dst_buf, 0), in[st->peer], st->bytes);
        return;
    }
    dfc_coll_slot_reduce(c->op, c->dtype, in, n, buf_at(c, st->dst_buf, 0), st->count, st->bytes,
                         buf_at(c, DFC_BUF_TMP, st->tmp_off));
}

int dfc_coll_slot_begin(dfc_coll_t *c)
{
    c->slot_written = 0;
    if (!dfc_comm_slots(c->comm))
        return DFC_ERR(DFC_ERR_INTERN, "a slot schedule on a communicator without slots");
    dfc_tl_slot_xchg_t x = {.phase = DFC_TL_SLOT_BEGIN};
    int rc = dfc_comm_slot_xchg(c->comm, &x);
    c->slot_stamp = x.stamp;
    return rc;
}

/* The SLOT_ALLREDUCE step: the transport's slot exchange (protocol in src/tl/shm_slots.h)
 * through the comm layer, reducing here. Returns 1 when done (or failed, with *err set), 0
 * when it must wait; the dynamic context is slot_written. While it waits, a member that
 * failed fails the collective instead (its contribution will never come). */
static int slot_allreduce(dfc_coll_t *c, const dfc_step_t *st, int *err)
{
    slot_step_t k = {c, st};
    dfc_tl_slot_xchg_t x = {.src = buf_at(c, st->src_buf, 0),
                            .bytes = st->bytes,
                            .reduce = slot_step_reduce,
                            .ctx = &k,
                            .stamp = c->slot_stamp,
                            .phase = c->slot_written ? DFC_TL_SLOT_READ : DFC_TL_SLOT_WRITE,
                            .rooted = st->peer >= 0,
                            .root = st->peer};
    int rc = dfc_comm_slot_xchg(c->comm, &x);
    c->slot_written = x.phase != DFC_TL_SLOT_WRITE;
    if (rc == DFC_SUCCESS) return 1;
    if (rc == DFC_TL_AGAIN && !(rc = dfc_fault_check(c->comm, 1, -1))) return 0;
    *err = rc;
    x.phase = DFC_TL_SLOT_CANCEL;
    dfc_comm_slot_xchg(c->comm, &x);
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
            err = dfc_p2p_isend(comm, 1, buf_at(c, st->src_buf, st->src_off), st->bytes, st->peer,
                                c->tag, 0, x);
            break;
        case DFC_STEP_RECV:
            dfc_req_init_internal(x, comm);
            err = dfc_p2p_irecv(comm, 1, buf_at(c, st->dst_buf, st->dst_off), st->bytes, st->peer,
                                c->tag, x);
            break;
        case DFC_STEP_RECV_REDUCE:
            dfc_req_init_internal(x, comm);
            err = dfc_p2p_irecv(comm, 1, buf_at(c, DFC_BUF_TMP, st->tmp_off), st->bytes, st->peer,
                                c->tag, x);
            break;
        case DFC_STEP_SLOT_ALLREDUCE: /* a preemption point of its own */
            if (!fence_reached(c, &err)) return 0;
            if (err) break;
            if (!slot_allreduce(c, st, &err)) return 0;
            c->fence_start = c->pc + 1;
            break;
        default: /* FENCE, COPY, REDUCE: a preemption point */
            if (!fence_reached(c, &err)) return 0;
            if (err) break;
            if (st->kind == DFC_STEP_COPY)
                memmove(buf_at(c, st->dst_buf, st->dst_off), buf_at(c, st->src_buf, st->src_off),
                        st->bytes);
            else if (st->kind == DFC_STEP_REDUCE)
                err = reduce_ordered(c, buf_at(c, st->src_buf, st->src_off),
                                     buf_at(c, st->dst_buf, st->dst_off), st->count, st->order,
                                     st->src_buf == DFC_BUF_TMP);
            c->fence_start = c->pc + 1;
        }
        c->pc++;
    }
    if (!err && !fence_reached(c, &err)) return 0;
    if (err) c->req->status.DFC_ERROR = err;
    return 1;
}
