/*
 * allgather_shm_slots.c - allgather through the shm collective slots (src/tl/shm_slots.h), as
 * alltoall_shm_slots.c does alltoall (issue 16).
 *
 * Algorithm: the blocks are cut into pieces of at most one slot buffer (DFC_TL_SLOT_BYTES),
 * one exchange per piece: every rank copies piece k of its block into its own slot and
 * publishes it; every rank then copies every rank's piece k, its own included, into its
 * receive buffer in rank order. No packets, no matching, no single-copy reads; in place
 * works, since the input piece is in the slot before the output is written, and the piece
 * of the own block written back holds the same bytes. Each exchange waits for every rank's
 * piece, so the ranks go through the pieces in step (the slots' sixteen buffers let a rank
 * run up to sixteen pieces ahead of the slowest reader).
 *
 * Cost (b bytes per block, p ranks on one node): one copy in of b bytes, then (p - 1) b
 * bytes read from other ranks' slots (a cache line per 64 bytes), in ceil(b / 4 KiB)
 * exchanges, against log2(p) (recursive doubling) or p - 1 (ring, bruck) message rounds and
 * linear's p - 1 single-copy reads of b bytes. On 2 ranks of the 2-core VM recursive
 * doubling took 0.55-0.78 us from 8 to 256 bytes, 1.04-1.44x Open MPI's time (BENCHMARKS.md,
 * stop 41).
 *
 * Chosen for allgather on communicators with slots (blocking and nonblocking calls) whose
 * result (p b) holds (dfc_coll_allgather_slots_limit) 1 to 4096 bytes on 2 ranks, up to 32 KiB
 * on 3 to 7 ranks and up to DFC_ALLGATHER_SLOTS_MAX (4 MiB) from 8 (256 KiB where the node is
 * oversubscribed). On 2 ranks the limit was a 512-byte result (the 2-core VM, stop 41: 0.94
 * against recursive doubling's 0.79 us at 1 KiB); stop 56 measured 1-4 KiB again there, 7
 * rounds alternating: Open MPI / DFC 1.55-2.46 forced against 0.72-0.88 by the old rule in
 * the VM's fast mode, 1.12-1.85 against 0.78-1.31 in its slow mode (BENCHMARKS.md). On 16
 * cores (BENCHMARKS.md, stop 43, calls A, C and E,
 * 2-3 rounds each, results of 8 KiB - 4 MiB, the rules before on the same host) it took
 * 0.22-0.93x their time at 8 and 16 ranks but once 1.07 (8 ranks, 256 KiB) (8 ranks, 16 KiB:
 * 2.9 against 12.7 us, Open MPI 10.3; 16 ranks, 4 MiB: 1124 against 1289, Open MPI 1509); at
 * 4 ranks 0.57-0.74x up to 32 KiB, 0.90-1.08x at 64 KiB and up to 1.41x above, where
 * linear's direct reads won; at 3 ranks (call C) 0.49-0.94x at every size.
 * Nothing was measured on 5 to 7 ranks, above 16 ranks or above 4 MiB. Forced
 * (DFC_ALLGATHER_ALGORITHM=shm_slots) it runs up to a result of DFC_COLL_SLOTS_PIPE_MAX.
 * DFC_SHM_SLOTS=0 turns it off. A blocking call on dense host buffers runs the exchanges
 * without an instance (dfc_coll_allgather_direct).
 */
#include <string.h>

#include "coll/dfc_coll.h"

/* The limit below 8 ranks: at 4 ranks linear's direct reads won from a 128 KiB result. */
#define SMALL_COMM_MAX ((uint64_t)32 << 10)
/* The limit where the node runs more ranks than it has processors: every piece waits for
 * every rank to be scheduled, and 8 ranks on 2 cores took 1.18-1.23x the rules' time before
 * from a 512 KiB result (0.28-0.83x up to 256 KiB; BENCHMARKS.md, stop 43). */
#define OVERSUBSCRIBED_MAX ((uint64_t)256 << 10)

uint64_t dfc_coll_allgather_slots_limit(int size)
{
    static long max = -1; /* read once; a racing first read gets the same value */
    if (max < 0)
        max = dfc_env_long("DFC_ALLGATHER_SLOTS_MAX", 4 << 20,
                           "largest gathered result in bytes of an allgather that the shm slots "
                           "run on 8 or more processes of one node, in 4 KiB pieces of the "
                           "blocks (at most 16 MiB; on 3 to 7 processes at most 32 KiB)");
    if (size <= 2) return DFC_COMM_SLOT_BYTES; /* blocks of up to 2 KiB: one exchange */
    uint64_t lim = DFC_MIN2(DFC_MAX2((uint64_t)max, DFC_COMM_SLOT_BYTES), DFC_COLL_SLOTS_PIPE_MAX);
    if (size < 8) lim = DFC_MIN2(lim, SMALL_COMM_MAX);
    return dfc_progress_oversubscribed() ? DFC_MIN2(lim, OVERSUBSCRIBED_MAX) : lim;
}

int dfc_coll_allgather_shm_slots_usable(const dfc_coll_args_t *a)
{
    uint64_t bytes = (uint64_t)a->size * a->rbytes;
    return a->kind == DFC_COLL_ALLGATHER && a->slots && !a->gpu && a->size > 1 && a->rbytes > 0 &&
           (a->in_place || a->sbytes == a->rbytes) && bytes <= DFC_COLL_SLOTS_PIPE_MAX;
}

int dfc_coll_allgather_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    s->algorithm = "shm_slots";
    uint64_t at = a->in_place ? (uint64_t)a->rank * a->rbytes : 0; /* the own block */
    for (uint64_t k = 0; k < a->rbytes; k += DFC_COMM_SLOT_BYTES)
        DFC_TRY(dfc_sched_slot_allgather(s, dfc_coll_input_buf(a), at + k, k, a->rbytes,
                                         DFC_MIN2(a->rbytes - k, DFC_COMM_SLOT_BYTES)));
    return DFC_SUCCESS;
}

/* ---- The blocking call without an instance (bcast_shm_slots.c says why) ------------------ */
typedef struct allgather_direct {
    char *out; /* the piece's place in block 0 of the output */
    uint64_t block, bytes;
} allgather_direct_t;

void dfc_coll_allgather_slot_copy(const void *const *in, int n, char *out, uint64_t stride,
                                  uint64_t bytes)
{
    for (int r = 0; r < n; r++) memcpy(out + (uint64_t)r * stride, in[r], bytes);
}

static void allgather_pieces(void *ctx, const void *const *in, int n)
{
    const allgather_direct_t *d = ctx;
    dfc_coll_allgather_slot_copy(in, n, d->out, d->block, d->bytes);
}

int dfc_coll_allgather_direct(dfc_comm_t *c, int in_place, uint64_t sbytes, uint64_t rbytes,
                              const void *sendbuf, void *recvbuf)
{
    uint64_t block = rbytes;
    if (!dfc_comm_slots(c) || c->size < 2 || block == 0 || (!in_place && sbytes != block) ||
        (uint64_t)c->size * block > dfc_coll_slots_direct_limit(DFC_COLL_ALLGATHER, c->size))
        return DFC_COLL_NOT_DIRECT;
    /* In place: the own piece is copied into the slot before any piece of the output is
     * written (the same bytes land where they were). */
    const char *src = in_place ? (const char *)recvbuf + (uint64_t)c->rank * block : sendbuf;
    int rc = DFC_SUCCESS;
    for (uint64_t k = 0; k < block && !rc; k += DFC_COMM_SLOT_BYTES) {
        allgather_direct_t d = {(char *)recvbuf + k, block,
                                DFC_MIN2(block - k, DFC_COMM_SLOT_BYTES)};
        dfc_tl_slot_xchg_t x = {.src = src + k,
                                .bytes = d.bytes,
                                .reduce = allgather_pieces,
                                .ctx = &d,
                                .more = k + DFC_COMM_SLOT_BYTES < block};
        rc = k ? dfc_coll_slot_direct_more(c, &x, "allgather")
               : dfc_coll_slot_direct(c, &x, "allgather");
    }
    return rc;
}
