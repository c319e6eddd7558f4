/*
 * barrier_shm_slots.c - barrier through the shm collective slots (src/tl/shm_slots.h), as
 * allreduce_shm_slots.c does allreduce (issue 16).
 *
 * Algorithm: a slot exchange of zero bytes. Every rank publishes the exchange's stamp in its
 * own slot and waits until every other rank's slot carries it: no rank leaves before every
 * rank has entered. No packets, no matching.
 *
 * Cost (p ranks on one node): one cache line written and p - 1 read per rank, against
 * log2(p) rounds of messages for dissemination.
 *
 * Chosen for barrier on communicators with slots (blocking and nonblocking calls).
 * DFC_SHM_SLOTS=0 turns it off.
 */
#include "coll/dfc_coll.h"

int dfc_coll_barrier_shm_slots_usable(const dfc_coll_args_t *a)
{
    return a->slots && !a->gpu && a->size > 1;
}

int dfc_coll_barrier_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    s->algorithm = "shm_slots";
    if (a->size == 1) return DFC_SUCCESS;
    return dfc_sched_slot_allreduce(s, DFC_BUF_RECV, 0, 0, 0);
}

/* A blocking barrier without an instance (dfc_coll_slot_direct, bcast_shm_slots.c). */
static void barrier_none(void *ctx, const void *const *in, int n)
{
    (void)ctx;
    (void)in;
    (void)n;
}

int dfc_coll_barrier_direct(dfc_comm_t *c)
{
    if (!dfc_comm_slots(c) || c->size < 2 || !dfc_coll_slots_not_forced_away(DFC_COLL_BARRIER))
        return DFC_COLL_NOT_DIRECT;
    dfc_tl_slot_xchg_t x = {.reduce = barrier_none};
    return dfc_coll_slot_direct(c, &x, "barrier");
}
