/*
 * bcast_shm_slots.c - bcast through the shm collective slots (src/tl/shm_slots.h), as
 * allreduce_shm_slots.c does allreduce (issue 16).
 *
 * Algorithm: a rooted slot exchange. The root copies the message into its own slot and
 * publishes it with the exchange's stamp; every other rank waits for that stamp, copies the
 * message out and publishes that it has finished reading. The root does not wait for the
 * readers: it only needs its slot buffer free, which the slots' sixteen buffers make a wait
 * for the exchange sixteen back, so the root runs ahead like an eager send. No packets, no
 * matching, no requests.
 *
 * Cost (m bytes, p ranks on one node): one copy in at the root, one cache-line transfer per
 * 64 bytes to each reader and one copy out there; no alpha of the message path.
 *
 * Chosen for bcast of 1 to 1024 bytes (DFC_COMM_SLOT_BYTES) where allreduce_shm_slots is
 * (communicators with slots, blocking and nonblocking calls). DFC_SHM_SLOTS=0 turns it off.
 */
#include "coll/dfc_coll.h"

int dfc_coll_bcast_shm_slots_usable(const dfc_coll_args_t *a)
{
    uint64_t bytes = a->count * a->elem;
    return a->slots && !a->gpu && a->size > 1 && bytes > 0 && bytes <= DFC_COMM_SLOT_BYTES;
}

int dfc_coll_bcast_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    uint64_t bytes = a->count * a->elem;
    s->algorithm = "shm_slots";
    if (bytes == 0 || a->size == 1) return DFC_SUCCESS;
    return dfc_sched_slot_bcast(s, a->root, bytes);
}
