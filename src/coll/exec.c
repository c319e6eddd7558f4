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

/* Reductions and copies of at least this many bytes run without the library lock when other
 * threads may want it (below: exec_unlocked). Below it the lock's round trip (an unlock that
 * may wake a sleeper, a lock that may find it taken) costs about what the work does. */
#define UNLOCKED_BYTES 16384

/* Whether this step's work runs without the library lock: always for a user op; for a long
 * built-in reduction or copy while other threads share the lock (the progress thread of
 * DFC_ASYNC_PROGRESS=1, or the application's under DFC_THREAD_MULTIPLE). The thread's pass
 * held the lock through a whole reduction (up to 4-5 ms at 16 MiB on 16 cores, BENCHMARKS.md
 * stop 19), and every call of the application's meanwhile waited for it, Iallreduce and Test
 * too (issue 16).
 *
 * Why that is safe. The work touches only this instance's buffers: SEND and RECV, which the
 * application may not access until the request completes (MPI), and TMP, which is the
 * instance's own. The step runs at a fence, so every transfer this instance posted is
 * complete and none reads or writes those buffers; the later ones are posted only after the
 * step, under the lock again. While the lock is dropped: c->in_user_op keeps every other
 * thread off this instance (scheduler.c skips it, and only passes advance an instance that
 * is queued), and the scheduler's pass flag keeps other passes off the run queue, so the
 * walk that called us finds its next element where it left it (a start may add instances,
 * it removes none but its own new one). The instance's op, type and communicator are held by
 * it and by its request (retained), so no other call can free them. Nothing else is read
 * or written: pc, fence_start and the transfers' requests change only after the lock is
 * taken again. The lock's unlock and lock order the writes: whoever next takes it sees the
 * result, and the request completes only after we are back under it. */
static int exec_unlocked(const dfc_op_t *op, uint64_t bytes)
{
    return (op && op->user_fn) || (dfc_lock_enabled && bytes >= UNLOCKED_BYTES);
}

static void unlock_for_work(dfc_coll_t *c)
{
    c->in_user_op = 1;
    DFC_UNLOCK();
}

static void relock_after_work(dfc_coll_t *c)
{
    DFC_LOCK();
    c->in_user_op = 0;
}

/* inout = in (op) inout. A user op runs without the library lock (as in Reduce_local): it
 * may call DFC, and under DFC_THREAD_MULTIPLE its language runtime may wait for a thread that
 * waits for the lock (mpi4py: Python's GIL), which deadlocked when the op ran under it. A long
 * built-in reduction does too (exec_unlocked). */
static void exec_reduce(dfc_coll_t *c, const dfc_op_t *op, const void *in, void *inout,
                        uint64_t count)
{
    if (!exec_unlocked(op, count * c->dtype->size)) {
        dfc_op_reduce(op, c->dtype, in, inout, count);
        return;
    }
    unlock_for_work(c);
    dfc_op_reduce(op, c->dtype, in, inout, count);
    relock_after_work(c);
}

/* A COPY step: memmove, for long ones without the lock (exec_unlocked). */
static void exec_copy(dfc_coll_t *c, void *dst, const void *src, uint64_t bytes)
{
    if (!exec_unlocked(NULL, bytes)) {
        memmove(dst, src, bytes);
        return;
    }
    unlock_for_work(c);
    memmove(dst, src, bytes);
    relock_after_work(c);
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
    int me = c->comm->rank;
    switch (st->peer) {
    case DFC_SLOT_PEER_ALLTOALL:
        dfc_coll_alltoall_slot_copy(in, n, me, buf_at(c, st->dst_buf, 0), st->count,
                                    buf_at(c, st->src_buf, (uint64_t)me * st->count));
        return;
    case DFC_SLOT_PEER_ALLGATHER:
        dfc_coll_allgather_slot_copy(in, n, buf_at(c, st->dst_buf, st->dst_off), st->count,
                                     st->bytes);
        return;
    case DFC_SLOT_PEER_REDUCE_SCATTER:
        dfc_coll_slot_reduce_chunk(c->op, c->dtype, in, n, me, buf_at(c, st->dst_buf, st->dst_off),
                                   st->count, buf_at(c, DFC_BUF_TMP, st->tmp_off));
        return;
    case DFC_SLOT_PEER_ALLGATHER_CHUNKS:
        dfc_coll_slot_gather_chunks(in, n, me, buf_at(c, st->dst_buf, st->dst_off), st->count,
                                    c->dtype->size);
        return;
    }
    if (!st->bytes) return; /* a barrier */
    if (st->peer >= 0) {    /* a bcast: the root's contribution, where this rank is not it */
        if (st->peer != me) memcpy(buf_at(c, st->dst_buf, st->dst_off), in[st->peer], st->bytes);
        return;
    }
    dfc_coll_slot_reduce(c->op, c->dtype, in, n, buf_at(c, st->dst_buf, 0), st->count, st->bytes,
                         buf_at(c, DFC_BUF_TMP, st->tmp_off));
}

/* Begins the schedule's exchanges (one per slot step) at the start, in initiation order:
 * their stamps are consecutive, the first one's in slot_stamp. */
int dfc_coll_slot_begin(dfc_coll_t *c)
{
    c->slot_written = 0;
    c->slot_left = 0;
    if (!dfc_comm_slots(c->comm))
        return DFC_ERR(DFC_ERR_INTERN, "a slot schedule on a communicator without slots");
    for (int i = 0; i < c->sched.uses_slots; i++) {
        dfc_tl_slot_xchg_t x = {.phase = DFC_TL_SLOT_BEGIN};
        int rc = dfc_comm_slot_xchg(c->comm, &x);
        if (rc) return rc;
        if (i == 0) c->slot_stamp = x.stamp;
        c->slot_left++;
    }
    return DFC_SUCCESS;
}

/* Ends the exchanges begun and not done: a member failed. */
static void slot_cancel_left(dfc_coll_t *c)
{
    for (; c->slot_left > 0; c->slot_left--) {
        dfc_tl_slot_xchg_t x = {.phase = DFC_TL_SLOT_CANCEL};
        dfc_comm_slot_xchg(c->comm, &x);
    }
}

/* The SLOT_ALLREDUCE step: the transport's slot exchange (protocol in src/tl/shm_slots.h)
 * through the comm layer, reducing here. Returns 1 when done (or failed, with *err set), 0
 * when it must wait; the dynamic context is slot_written. While it waits, a member that
 * failed fails the collective instead (its contribution will never come). */
static int slot_allreduce(dfc_coll_t *c, const dfc_step_t *st, int *err)
{
    slot_step_t k = {c, st};
    /* The next step is the next piece of a long bcast or allgather (dfc_tl_slot_xchg_t.more) */
    const dfc_step_t *next = c->pc + 1 < c->sched.nsteps ? st + 1 : NULL;
    int more = next && next->kind == DFC_STEP_SLOT_ALLREDUCE && next->peer == st->peer &&
               (st->peer >= 0 || st->peer == DFC_SLOT_PEER_ALLGATHER);
    dfc_tl_slot_xchg_t x = {.src = buf_at(c, st->src_buf, st->src_off),
                            .bytes = st->bytes,
                            .reduce = slot_step_reduce,
                            .ctx = &k,
                            .stamp = c->slot_stamp,
                            .phase = c->slot_written ? DFC_TL_SLOT_READ : DFC_TL_SLOT_WRITE,
                            .rooted = st->peer >= 0,
                            .root = st->peer,
                            .more = more};
    if (st->peer == DFC_SLOT_PEER_ALLTOALL) { /* the own block stays in the input */
        x.skip_off = (uint64_t)c->comm->rank * st->count;
        x.skip_len = st->count;
    }
    int rc = dfc_comm_slot_xchg(c->comm, &x);
    c->slot_written = x.phase != DFC_TL_SLOT_WRITE;
    if (rc == DFC_SUCCESS) { /* the next slot step takes the next stamp */
        c->slot_stamp++;
        c->slot_written = 0;
        c->slot_left--;
        return 1;
    }
    if (rc == DFC_TL_AGAIN && !(rc = dfc_fault_check(c->comm, 1, -1))) return 0;
    *err = rc;
    x.phase = DFC_TL_SLOT_CANCEL;
    dfc_comm_slot_xchg(c->comm, &x);
    c->slot_left--;
    slot_cancel_left(c);
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
            x->eager_packet = !c->blocking && dfc_progress_thread_runs(); /* p2p.c says why */
            err = dfc_p2p_isend(comm, 1, buf_at(c, st->src_buf, st->src_off), st->bytes, st->peer,
                                c->tag, 0, x);
            break;
        case DFC_STEP_RECV:
            dfc_req_init_internal(x, comm);
            /* A schedule that reduces reads what it receives at once (a REDUCE step after
             * the fence): pulled into this core's cache, not pushed by the sender
             * (shm_coop.h; 8 and 16 ranks, allreduce 2-16 MiB: 10-20 % slower when shared,
             * BENCHMARKS.md stop 53). The mark is per schedule, so an allreduce's allgather
             * half pulls alone too. */
            x->pull_alone = s->reduces;
            err = dfc_p2p_irecv(comm, 1, buf_at(c, st->dst_buf, st->dst_off), st->bytes, st->peer,
                                c->tag, x);
            break;
        case DFC_STEP_RECV_REDUCE:
            dfc_req_init_internal(x, comm);
            x->pull_alone = 1;
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
                exec_copy(c, buf_at(c, st->dst_buf, st->dst_off),
                          buf_at(c, st->src_buf, st->src_off), st->bytes);
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
