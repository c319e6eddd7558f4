/*
 * alltoall_shm_slots.c - alltoall through the shm collective slots (src/tl/shm_slots.h), as
 * allreduce_shm_slots.c does allreduce (issue 16).
 *
 * Algorithm: every rank copies its send buffer (one block per rank) into its own slot, all
 * but its own block, which no other rank reads (dfc_tl_slot_xchg_t.skip_off), and publishes
 * it; every rank then copies block `me` of every other rank's slot into its receive buffer,
 * and its own block straight from its send buffer. One exchange, no packets, no matching; in
 * place works, since the input is in the slot before the output is written, and the own
 * block is already where it belongs.
 *
 * Cost (b bytes per block, p ranks on one node): one copy in of (p - 1) b bytes, then p - 1
 * reads of b bytes from other ranks' slots (a cache line per 64 bytes) and one local copy of
 * b, against p - 1 message exchanges for pairwise. Skipping the own block halves the copy in
 * on 2 ranks.
 *
 * Chosen for alltoall whose send buffer (p b) holds 1 to 4096 bytes (DFC_COMM_SLOT_BYTES),
 * on communicators with slots (blocking and nonblocking calls). On 2 ranks the limit was
 * 1 KiB until stop 56: there pairwise is one message either way, and with the own block
 * copied in as well the slots took 1.05-1.2x pairwise's time at 2-4 KiB in the 2-core VM's
 * slow mode (0.5x in its fast mode). Without that copy they took 0.71-0.84x their earlier
 * time at 1-4 KiB in the fast mode, and 1.54-2.35x Open MPI's speed in both modes
 * (BENCHMARKS.md, stop 56). DFC_SHM_SLOTS=0 turns it off. A blocking call on dense
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
    const char *own; /* the own block in the input */
    uint64_t block;
    int me;
} alltoall_direct_t;

void dfc_coll_alltoall_slot_copy(const void *const *in, int n, int me, char *out, uint64_t block,
                                 const char *own)
{
    for (int r = 0; r < n; r++) {
        char *to = out + (uint64_t)r * block;
        if (r != me) memcpy(to, (const char *)in[r] + (uint64_t)me * block, block);
        else if (to != own) memcpy(to, own, block);
    }
}

static void alltoall_gather_blocks(void *ctx, const void *const *in, int n)
{
    const alltoall_direct_t *d = ctx;
    dfc_coll_alltoall_slot_copy(in, n, d->me, d->out, d->block, d->own);
}

int dfc_coll_alltoall_direct(dfc_comm_t *c, int in_place, uint64_t sbytes, uint64_t rbytes,
                             const void *sendbuf, void *recvbuf)
{
    uint64_t bytes = (uint64_t)c->size * sbytes;
    if (!dfc_comm_slots(c) || c->size < 2 || sbytes == 0 || sbytes != rbytes ||
        bytes > dfc_coll_slots_direct_limit(DFC_COLL_ALLTOALL, c->size))
        return DFC_COLL_NOT_DIRECT;
    /* In place: the input is copied into the slot before any block of the output is written. */
    const char *src = in_place ? recvbuf : sendbuf;
    uint64_t own_off = (uint64_t)c->rank * sbytes;
    alltoall_direct_t d = {recvbuf, src + own_off, sbytes, c->rank};
    dfc_tl_slot_xchg_t x = {.src = src,
                            .bytes = bytes,
                            .skip_off = own_off,
                            .skip_len = sbytes,
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
