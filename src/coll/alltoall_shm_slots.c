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
 * Forced (DFC_ALLTOALL_ALGORITHM=shm_slots) it runs up to 4096 bytes on 2 ranks too, as
 * allgather's and bcast's forced slots run beyond their 2-rank limits: the 2-rank limit was
 * measured on the 2-core VM only. DFC_SHM_SLOTS=0 turns it off. A blocking call on dense
 * host buffers runs the exchange without an instance (dfc_coll_alltoall_direct, as bcast,
 * barrier and allreduce do).
 */
#include <string.h>

#include "coll/dfc_coll.h"

int dfc_coll_alltoall_shm_slots_usable(const dfc_coll_args_t *a)
{
    uint64_t bytes = (uint64_t)a->size * a->sbytes;
    return a->kind == DFC_COLL_ALLTOALL && a->slots && !a->gpu && a->size > 1 && a->sbytes > 0 &&
           a->sbytes == a->rbytes && bytes <= DFC_COMM_SLOT_BYTES;
}

int dfc_coll_alltoall_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    s->algorithm = "shm_slots";
    return dfc_sched_slot_alltoall(s, dfc_coll_input_buf(a), a->sbytes,
                                   (uint64_t)a->size * a->sbytes);
}

/* ---- The blocking call without an instance (bcast_shm_slots.c says why) ------------------ */
typedef struct alltoall_direct {
    char *out;
    uint64_t block;
    int me;
} alltoall_direct_t;

void dfc_coll_alltoall_slot_copy(const void *const *in, int n, int me, char *out, uint64_t block)
{
    for (int r = 0; r < n; r++)
        memcpy(out + (uint64_t)r * block, (const char *)in[r] + (uint64_t)me * block, block);
}

static void alltoall_gather_blocks(void *ctx, const void *const *in, int n)
{
    const alltoall_direct_t *d = ctx;
    dfc_coll_alltoall_slot_copy(in, n, d->me, d->out, d->block);
}

int dfc_coll_alltoall_direct(dfc_comm_t *c, int in_place, uint64_t sbytes, uint64_t rbytes,
                             const void *sendbuf, void *recvbuf)
{
    uint64_t bytes = (uint64_t)c->size * sbytes;
    if (!dfc_comm_slots(c) || c->size < 2 || sbytes == 0 || sbytes != rbytes ||
        bytes > dfc_coll_slots_direct_limit(DFC_COLL_ALLTOALL, c->size))
        return DFC_COLL_NOT_DIRECT;
    /* In place: the input is copied into the slot before any block of the output is written. */
    alltoall_direct_t d = {recvbuf, sbytes, c->rank};
    dfc_tl_slot_xchg_t x = {.src = in_place ? recvbuf : sendbuf,
                            .bytes = bytes,
                            .reduce = alltoall_gather_blocks,
                            .ctx = &d};
    return dfc_coll_slot_direct(c, &x, "alltoall");
}

int dfc_coll_move_host_direct(dfc_comm_t *c, dfc_coll_kind_t kind, const void *sendbuf,
                              uint64_t sbytes, void *recvbuf, uint64_t rbytes)
{
    /* what route_of (run.c) takes for the host engine: host memory on both sides */
    if (dfc_gpu_ptr_device(sendbuf) >= 0 || dfc_gpu_ptr_device(recvbuf) >= 0)
        return DFC_COLL_NOT_DIRECT;
    return kind == DFC_COLL_ALLGATHER
               ? dfc_coll_allgather_direct(c, 0, sbytes, rbytes, sendbuf, recvbuf)
               : dfc_coll_alltoall_direct(c, 0, sbytes, rbytes, sendbuf, recvbuf);
}
