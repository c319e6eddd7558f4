/*
 * inter_direct.c - the direct algorithm for every collective on an intercommunicator
 * (MPI-4.1 6.2.2): each process lists its transfers with the remote group as MPI defines
 * the operation (a plan for inter_engine.c, which posts them all at once).
 *
 *   Barrier            an empty message to and from every remote process
 *   Bcast, Scatter(v)  the root (DFC_ROOT) sends to every remote process; they receive
 *   Gather(v), Reduce  every remote process sends to the root; the root receives (Reduce:
 *                      the contributions reduced in rank order)
 *   Allgather(v), Alltoall(v/w)  a block to and from every remote process
 *   Allreduce, Reduce_scatter(_block)  the whole vector to every remote process; each
 *                      reduces the remote group's vectors (Reduce_scatter: its own block;
 *                      the v form's senders do not know the remote group's counts)
 *
 * Cost, m local and r remote processes, n bytes per block: one round, alpha + r*n*beta at
 * each process (a root: r messages); the reductions add (r-1) * n * gamma. Every message
 * carries the call's own tag (the intercommunicator's collective sequence number), so
 * nonblocking calls in flight never match each other's messages. Chosen for the
 * nonblocking and persistent forms of every intercommunicator collective, and for the
 * blocking forms that have no three-phase algorithm (inter_barrier.c, inter_bcast.c,
 * inter_allreduce.c, inter_allgather.c have one, which moves less across the groups).
 */
#include <stdlib.h>

#include "coll/dfc_coll.h"

#define TAG_BASE 16 /* below: the three-phase algorithms' fixed tags */

typedef struct builder {
    dfc_coll_inter_plan_t p;
    int me, r; /* this rank, the remote group's size */
} builder_t;

static void add(dfc_coll_side_t *list, int *n, const void *buf, int64_t off, uint64_t count,
                const dfc_dtype_t *dt, int peer)
{
    list[(*n)++] = (dfc_coll_side_t){(const char *)buf + off, count, dt, peer};
}
#define SEND(buf, off, count, dt, peer) add(b->p.sends, &b->p.nsend, buf, off, count, dt, peer)
#define RECV(buf, off, count, dt, peer) add(b->p.recvs, &b->p.nrecv, buf, off, count, dt, peer)

/* Byte offset of block i of a side: block forms count*i items, v forms displs[i] items,
 * the w form displs[i] bytes. */
static int64_t block_off(const int *displs, uint64_t count, const dfc_dtype_t *dt, int i, int w)
{
    if (w) return displs[i];
    return (displs ? (int64_t)displs[i] : (int64_t)(count * (uint64_t)i)) * (int64_t)dt->extent;
}

static void plan_reduction(builder_t *b, const dfc_coll_inter_args_t *a, uint64_t total,
                           uint64_t off, uint64_t mine)
{
    for (int i = 0; i < b->r; i++) SEND(a->sbuf, 0, total, a->stype, (b->me + i) % b->r);
    b->p.nred = b->r;
    b->p.count = total;
    b->p.off = off;
    b->p.mine = mine;
    b->p.dt = a->stype;
    b->p.op = a->op;
    b->p.rbuf = a->rbuf;
}

/* Rooted operations: the root's side, or the other group's single transfer. */
static void plan_rooted(builder_t *b, const dfc_coll_inter_args_t *a)
{
    int root = a->root, gat = a->kind == DFC_COLL_GATHER || a->kind == DFC_COLL_GATHERV;
    if (root == DFC_PROC_NULL) return;
    if (root != DFC_ROOT) {
        if (a->kind == DFC_COLL_BCAST || a->kind == DFC_COLL_SCATTER ||
            a->kind == DFC_COLL_SCATTERV)
            RECV(a->rbuf, 0, a->rcount, a->rtype, root);
        else SEND(a->sbuf, 0, a->scount, a->stype, root);
        return;
    }
    if (a->kind == DFC_COLL_REDUCE) {
        plan_reduction(b, a, a->scount, 0, a->scount);
        b->p.nsend = 0; /* the root contributes nothing */
        return;
    }
    for (int k = 0; k < b->r; k++) {
        int i = (b->me + k) % b->r;
        if (a->kind == DFC_COLL_BCAST) SEND(a->rbuf, 0, a->rcount, a->rtype, i);
        else if (gat)
            RECV(a->rbuf, block_off(a->rdispls, a->rcount, a->rtype, i, 0),
                 a->rcounts ? (uint64_t)a->rcounts[i] : a->rcount, a->rtype, i);
        else
            SEND(a->sbuf, block_off(a->sdispls, a->scount, a->stype, i, 0),
                 a->scounts ? (uint64_t)a->scounts[i] : a->scount, a->stype, i);
    }
}

/* Allgather(v), Alltoall(v/w) and Barrier: one block each way with every remote process. */
static void plan_exchange(builder_t *b, const dfc_coll_inter_args_t *a)
{
    static char none;
    int a2a = a->kind == DFC_COLL_ALLTOALL || a->kind == DFC_COLL_ALLTOALLV, w = 0;
    w = a->kind == DFC_COLL_ALLTOALLW;
    for (int k = 0; k < b->r; k++) {
        int i = (b->me + k) % b->r;
        const dfc_dtype_t *st = w ? a->stypes[i] : a->stype, *rt = w ? a->rtypes[i] : a->rtype;
        if (a->kind == DFC_COLL_BARRIER) {
            st = rt = dfc_dtype_get(DFC_BYTE);
            SEND(&none, 0, 0, st, i);
            RECV(&none, 0, 0, rt, i);
            continue;
        }
        if (a2a || w)
            SEND(a->sbuf, block_off(a->sdispls, a->scount, st, i, w),
                 a->scounts ? (uint64_t)a->scounts[i] : a->scount, st, i);
        else SEND(a->sbuf, 0, a->scount, st, i);
        RECV(a->rbuf, block_off(a->rdispls, a->rcount, rt, i, w),
             a->rcounts ? (uint64_t)a->rcounts[i] : a->rcount, rt, i);
    }
}

static void plan(builder_t *b, const dfc_coll_inter_args_t *a, int size)
{
    uint64_t total = 0, off = 0;
    switch (a->kind) {
    case DFC_COLL_BCAST:
    case DFC_COLL_REDUCE:
    case DFC_COLL_GATHER:
    case DFC_COLL_GATHERV:
    case DFC_COLL_SCATTER:
    case DFC_COLL_SCATTERV: plan_rooted(b, a); return;
    case DFC_COLL_ALLREDUCE: plan_reduction(b, a, a->scount, 0, a->scount); return;
    case DFC_COLL_REDUCE_SCATTER_BLOCK:
        plan_reduction(b, a, a->rcount * (uint64_t)size, a->rcount * (uint64_t)b->me, a->rcount);
        return;
    case DFC_COLL_REDUCE_SCATTER:
        for (int i = 0; i < size; i++) {
            if (i == b->me) off = total;
            total += (uint64_t)a->rcounts[i];
        }
        plan_reduction(b, a, total, off, (uint64_t)a->rcounts[b->me]);
        return;
    default: plan_exchange(b, a); return;
    }
}

int dfc_coll_inter_direct(const dfc_coll_call_t *call, dfc_comm_t *c,
                          const dfc_coll_inter_args_t *a)
{
    builder_t b = {.me = c->rank, .r = c->remote->size};
    dfc_req_t *r = NULL;
    int rc = DFC_SUCCESS, tag = 0;
    /* Every member calls the intercommunicator's collectives in one order (MPI), so the
     * sequence number names this call alike on both groups (persistent ones number their
     * _init calls and starts instead: inter_engine.c). */
    if (call->mode != DFC_MODE_PERSISTENT) tag = TAG_BASE + (int)(c->coll_seq++ & 0x3fffffffu);
    b.p.sends = malloc(((size_t)b.r + 1) * sizeof *b.p.sends);
    b.p.recvs = malloc(((size_t)b.r + 1) * sizeof *b.p.recvs);
    if (!b.p.sends || !b.p.recvs) {
        rc = dfc_err(DFC_ERR_NO_MEM, call->func, "out of memory listing %d transfers", b.r);
        goto out;
    }
    plan(&b, a, c->size);
    if (call->mode == DFC_MODE_PERSISTENT) {
        rc = dfc_coll_inter_persist(call->func, c, &b.p, call->request);
        goto out;
    }
    int nb = call->mode != DFC_MODE_BLOCKING;
    if ((rc = dfc_coll_inter_post(call->func, c, tag, &b.p, nb ? call->request : NULL, &r)) || nb)
        goto out;
    rc = dfc_progress_until(&r->complete);
    if (!rc) rc = r->status.DFC_ERROR;
    dfc_req_free(r);
out:
    free(b.p.sends);
    free(b.p.recvs);
    return rc;
}
