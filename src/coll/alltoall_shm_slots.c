/*
 * alltoall_shm_slots.c - alltoall through the shm collective slots (src/tl/shm_slots.h), as
 * allreduce_shm_slots.c does allreduce (issue 16).
 *
 * Algorithm: every rank copies its whole send buffer (one block per rank) into its own slot
 * and publishes it; every rank then copies block `me` of every rank's slot into its receive
 * buffer. One exchange, no packets, no matching; in place works, since the input is in the
 * slot before the output is written.
 *
 * Cost (b bytes per block, p ranks on one node): one copy in of p b bytes, then p - 1 reads
 * of b bytes from other ranks' slots (a cache line per 64 bytes), against p - 1 message
 * exchanges for pairwise.
 *
 * Chosen for alltoall whose send buffer (p b) holds 1 to 4096 bytes (1024 on 2 ranks:
 * dfc_comm_slot_limit), on communicators with slots (blocking and nonblocking calls).
 * DFC_SHM_SLOTS=0 turns it off.
 */
#include "coll/dfc_coll.h"

int dfc_coll_alltoall_shm_slots_usable(const dfc_coll_args_t *a)
{
    uint64_t bytes = (uint64_t)a->size * a->sbytes;
    return a->kind == DFC_COLL_ALLTOALL && a->slots && !a->gpu && a->size > 1 && a->sbytes > 0 &&
           a->sbytes == a->rbytes && bytes <= dfc_comm_slot_limit(a->size);
}

int dfc_coll_alltoall_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    s->algorithm = "shm_slots";
    return dfc_sched_slot_alltoall(s, dfc_coll_input_buf(a), a->sbytes,
                                   (uint64_t)a->size * a->sbytes);
}
