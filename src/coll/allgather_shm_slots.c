/*
 * allgather_shm_slots.c - allgather through the shm collective slots (src/tl/shm_slots.h), as
 * alltoall_shm_slots.c does alltoall (issue 16).
 *
 * Algorithm: every rank copies its block into its own slot and publishes it; every rank then
 * copies every rank's block, its own included, into its receive buffer in rank order. One
 * exchange, no packets, no matching; in place works, since the input is in the slot before
 * the output is written.
 *
 * Cost (b bytes per block, p ranks on one node): one copy in of b bytes, then p - 1 reads of
 * b bytes from other ranks' slots (a cache line per 64 bytes), against log2(p) (recursive
 * doubling) or p - 1 (ring, bruck) message rounds. On 2 ranks of the 2-core VM recursive
 * doubling took 0.55-0.78 us from 8 to 256 bytes, 1.04-1.44x Open MPI's time (BENCHMARKS.md,
 * stop 41).
 *
 * Chosen for allgather whose result (p b) holds 1 to 4096 bytes (dfc_comm_slot_limit), 512 on
 * 2 ranks, on communicators with slots (blocking and nonblocking calls). On 2 ranks of the VM
 * it took 0.49-0.63 us up to 512 bytes against recursive doubling's 0.58-0.74, but 0.94
 * against 0.79 at 1 KiB (3 rounds, medians). DFC_SHM_SLOTS=0 turns it off. A blocking call on dense host buffers runs
 * the exchange without an instance (dfc_coll_allgather_direct).
 */
#include <string.h>

#include "coll/dfc_coll.h"

static uint64_t result_limit(int size)
{
    return size > 2 ? dfc_comm_slot_limit(size) : DFC_COMM_SLOT_SMALL_BYTES / 2;
}

int dfc_coll_allgather_shm_slots_usable(const dfc_coll_args_t *a)
{
    uint64_t bytes = (uint64_t)a->size * a->rbytes;
    return a->kind == DFC_COLL_ALLGATHER && a->slots && !a->gpu && a->size > 1 && a->rbytes > 0 &&
           (a->in_place || a->sbytes == a->rbytes) && bytes <= result_limit(a->size);
}

int dfc_coll_allgather_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    s->algorithm = "shm_slots";
    uint64_t at = a->in_place ? (uint64_t)a->rank * a->rbytes : 0; /* the own block */
    return dfc_sched_slot_allgather(s, dfc_coll_input_buf(a), at, a->rbytes);
}

/* ---- The blocking call without an instance (bcast_shm_slots.c says why) ------------------ */
typedef struct allgather_direct {
    char *out;
    uint64_t block;
} allgather_direct_t;

void dfc_coll_allgather_slot_copy(const void *const *in, int n, char *out, uint64_t block)
{
    for (int r = 0; r < n; r++) memcpy(out + (uint64_t)r * block, in[r], block);
}

static void allgather_blocks(void *ctx, const void *const *in, int n)
{
    const allgather_direct_t *d = ctx;
    dfc_coll_allgather_slot_copy(in, n, d->out, d->block);
}

int dfc_coll_allgather_direct(dfc_comm_t *c, const dfc_coll_args_t *a, const void *sendbuf,
                              void *recvbuf)
{
    uint64_t block = a->rbytes;
    if (!dfc_comm_slots(c) || c->size < 2 || block == 0 || (!a->in_place && a->sbytes != block) ||
        (uint64_t)c->size * block > result_limit(c->size) ||
        !dfc_coll_slots_not_forced_away(DFC_COLL_ALLGATHER))
        return DFC_COLL_NOT_DIRECT;
    /* In place: the own block is copied into the slot before any block of the output is
     * written (the same bytes land where they were). */
    allgather_direct_t d = {recvbuf, block};
    dfc_tl_slot_xchg_t x = {.src = a->in_place ? (const char *)recvbuf + (uint64_t)c->rank * block
                                               : sendbuf,
                            .bytes = block,
                            .reduce = allgather_blocks,
                            .ctx = &d};
    return dfc_coll_slot_direct(c, &x, "allgather");
}
