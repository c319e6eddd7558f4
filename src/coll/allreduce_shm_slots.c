/*
 * allreduce_shm_slots.c - allreduce through the shm collective slots (src/tl/shm_slots.h),
 * which the executor reaches through the comm layer (dfc_comm_slot_xchg).
 *
 * Algorithm: every rank copies its input into its own slot in the node's shared segment and
 * publishes it with a stamp; every rank then reads all the others' slots and reduces them
 * itself, in the bracketing that recursive doubling produces (pairs of neighbours first for
 * the ranks above a power of two, then a balanced tree, the lower-ranked operand first), so
 * the result is bit-identical to recursive doubling's and the same on every rank, for
 * non-commutative ops too. No packets, no matching, no requests.
 *
 * Cost (m bytes, p ranks on one node): one cache-line transfer per 64 bytes from each
 * other rank (about 50 ns per line between two cores here), (p - 1) m gamma, no alpha of
 * the message path. The whole exchange is one executor step, which reports "not ready"
 * while a slot is not yet free or a contribution not yet there, so the collective can be
 * parked (preempted) like any other (DESIGN.md 2.1).
 *
 * Chosen before any other (dfc_coll_allreduce_slots_choice) for allreduce of 1 to 1024 bytes
 * (2048 on 2 ranks, 512 from 8 ranks; above, allreduce_shm_slots_rs_ag.c's two exchanges read
 * less) on communicators whose ranks are all on one node (shm; dfc_comm_slots), from blocking
 * and nonblocking calls (not persistent ones, whose Starts may come in any order across ranks
 * while slots are taken in initiation order). Forced, it runs up to 4096 bytes.
 * DFC_SHM_SLOTS=0 turns it off.
 */
#include <string.h>

#include "coll/dfc_coll.h"

int dfc_coll_allreduce_shm_slots_usable(const dfc_coll_args_t *a)
{
    uint64_t bytes = a->count * a->elem;
    return a->slots && !a->gpu && a->size > 1 && bytes > 0 && bytes <= DFC_COMM_SLOT_BYTES;
}

int dfc_coll_allreduce_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    uint64_t bytes = a->count * a->elem;
    s->algorithm = "shm_slots";
    if (bytes == 0) return DFC_SUCCESS;
    int pof2 = dfc_coll_pof2(a->size);
    /* scratch: one vector per tree leaf, except with two ranks (straight into RECV) */
    uint64_t tmp = a->size > 2 ? dfc_sched_tmp(s, (uint64_t)pof2 * bytes) : 0;
    return dfc_sched_slot_allreduce(s, dfc_coll_input_buf(a), a->count, bytes, tmp);
}

/* A blocking allreduce without an instance (dfc_coll_slot_direct, bcast_shm_slots.c): the
 * same exchange and the same bracketing (dfc_coll_slot_reduce) as the executor's step. Its
 * scratch is on the stack, so only where the tree's leaves fit DFC_COLL_SLOT_DIRECT_TMP bytes. */
typedef struct allreduce_direct {
    void *out;
    const dfc_op_t *op;
    const dfc_dtype_t *dt;
    uint64_t count, bytes;
} allreduce_direct_t;

static void allreduce_reduce(void *ctx, const void *const *in, int n)
{
    const allreduce_direct_t *r = ctx;
    char tmp[DFC_COLL_SLOT_DIRECT_TMP];
    dfc_coll_slot_reduce(r->op, r->dt, in, n, r->out, r->count, r->bytes, tmp);
}

int dfc_coll_allreduce_direct(dfc_comm_t *c, int in_place, uint64_t count, const void *sendbuf,
                              void *recvbuf, const dfc_dtype_t *dt, const dfc_op_t *op)
{
    uint64_t bytes = count * dt->size;
    if (!dfc_comm_slots(c) || bytes == 0 || bytes > DFC_COLL_RS_AG_MAX || c->size < 2)
        return DFC_COLL_NOT_DIRECT;
    /* What dfc_coll_select would pick: the one forced, or the rules' choice */
    const void *src = in_place ? recvbuf : sendbuf;
    dfc_coll_slot_algo_t f = dfc_coll_slots_forced(DFC_COLL_ALLREDUCE);
    if (f == DFC_SLOTS_AUTO) f = dfc_coll_allreduce_slots_choice(c->size, bytes);
    if (f == DFC_SLOTS_RS_AG)
        return dfc_coll_allreduce_rs_ag_direct(c, src, recvbuf, count, dt, op);
    if (f != DFC_SLOTS_ONE || bytes > DFC_COMM_SLOT_BYTES ||
        (c->size > 2 && (uint64_t)dfc_coll_pof2(c->size) * bytes > DFC_COLL_SLOT_DIRECT_TMP))
        return DFC_COLL_NOT_DIRECT;
    allreduce_direct_t r = {recvbuf, op, dt, count, bytes};
    dfc_tl_slot_xchg_t x = {.src = src, .bytes = bytes, .reduce = allreduce_reduce, .ctx = &r};
    return dfc_coll_slot_direct(c, &x, "allreduce");
}

int dfc_coll_allreduce_host_direct(dfc_comm_t *c, const void *sendbuf, void *recvbuf,
                                   uint64_t count, const dfc_dtype_t *dt, const dfc_op_t *op)
{
    /* what route_of (run.c) takes for the host engine: host memory on both sides */
    int in_place = sendbuf == DFC_IN_PLACE;
    if ((!in_place && dfc_gpu_ptr_device(sendbuf) >= 0) || dfc_gpu_ptr_device(recvbuf) >= 0)
        return DFC_COLL_NOT_DIRECT;
    return dfc_coll_allreduce_direct(c, in_place, count, sendbuf, recvbuf, dt, op);
}
