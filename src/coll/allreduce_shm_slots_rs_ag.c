/*
 * allreduce_shm_slots_rs_ag.c - allreduce through the shm collective slots in two exchanges:
 * a reduce-scatter, then an allgather (issue 16).
 *
 * Algorithm: the vector of n items is cut into p chunks (dfc_coll_slot_chunk: ceil(n/p)
 * items each, the last ones shorter or empty). Exchange 1: every rank copies its whole input
 * into its slot; rank r then reduces chunk r of every rank's slot into chunk r of its receive
 * buffer, in the bracketing of allreduce_shm_slots.c (dfc_coll_slot_reduce, item by item), so
 * the result is bit-identical to that algorithm's and to recursive doubling's, for
 * non-commutative ops too. Exchange 2: every rank copies its reduced chunk into its slot and
 * copies every other rank's chunk into its receive buffer. In place works: each exchange's
 * input is in the slot before its output is written.
 *
 * Cost (m bytes, p ranks on one node): 2 (p - 1) m / p bytes read from other ranks' slots (a
 * cache line per 64 bytes), against (p - 1) m for allreduce_shm_slots' one exchange; two
 * exchanges' waits instead of one; (p - 1) m / p gamma. At 16 ranks and 4 KiB each rank reads
 * 7.5 KiB instead of 60.
 *
 * Chosen for allreduce of 1025 to 4096 bytes (DFC_COMM_SLOT_SMALL_BYTES to DFC_TL_SLOT_BYTES)
 * where allreduce_shm_slots is (communicators with slots, blocking and nonblocking calls);
 * DFC_ALLREDUCE_ALGORITHM=shm_slots_rs_ag forces it for 1 to 4096 bytes.
 */
#include <string.h>

#include "coll/dfc_coll.h"

int dfc_coll_allreduce_shm_slots_rs_ag_usable(const dfc_coll_args_t *a)
{
    uint64_t bytes = a->count * a->elem;
    return a->slots && !a->gpu && a->size > 1 && bytes > 0 && bytes <= DFC_COMM_SLOT_BYTES;
}

/* Scratch of the chunk reduction: one chunk per leaf of the bracketing tree (none on 2). */
static uint64_t chunk_tmp_bytes(int size, uint64_t count, uint64_t elem)
{
    return size > 2 ? (uint64_t)dfc_coll_pof2(size) * dfc_coll_slot_chunk_items(count, size) * elem
                    : 0;
}

int dfc_coll_allreduce_shm_slots_rs_ag_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    uint64_t bytes = a->count * a->elem, lo, n;
    s->algorithm = "shm_slots_rs_ag";
    if (bytes == 0) return DFC_SUCCESS;
    uint64_t tmp = dfc_sched_tmp(s, chunk_tmp_bytes(a->size, a->count, a->elem));
    int rc = dfc_sched_slot_reduce_scatter(s, dfc_coll_input_buf(a), a->count, bytes, tmp);
    dfc_coll_slot_chunk(a->count, a->size, a->rank, &lo, &n);
    return rc ? rc : dfc_sched_slot_allgather_chunks(s, lo * a->elem, a->count, n * a->elem);
}

void dfc_coll_slot_reduce_chunk(const dfc_op_t *op, const dfc_dtype_t *dt, const void *const *in,
                                int n, int me, char *out, uint64_t count, char *tmp)
{
    uint64_t lo, items, elem = dt->size;
    dfc_coll_slot_chunk(count, n, me, &lo, &items);
    if (!items) return;
    const void *chunk[n];
    for (int r = 0; r < n; r++) chunk[r] = (const char *)in[r] + lo * elem;
    dfc_coll_slot_reduce(op, dt, chunk, n, out + lo * elem, items, items * elem, tmp);
}

void dfc_coll_slot_gather_chunks(const void *const *in, int n, int me, char *out, uint64_t count,
                                 uint64_t elem)
{
    for (int r = 0; r < n; r++) {
        uint64_t lo, items;
        dfc_coll_slot_chunk(count, n, r, &lo, &items);
        if (r != me && items) memcpy(out + lo * elem, in[r], items * elem);
    }
}

/* ---- The blocking call without an instance (bcast_shm_slots.c says why) ------------------ */
#define DIRECT_TMP 8192 /* the chunk reduction's scratch, on the stack */
typedef struct rs_ag_direct {
    char *out;
    const dfc_op_t *op;
    const dfc_dtype_t *dt;
    uint64_t count;
    int me;
} rs_ag_direct_t;

static void direct_reduce_chunk(void *ctx, const void *const *in, int n)
{
    const rs_ag_direct_t *d = ctx;
    char tmp[DIRECT_TMP];
    dfc_coll_slot_reduce_chunk(d->op, d->dt, in, n, d->me, d->out, d->count, tmp);
}

static void direct_gather_chunks(void *ctx, const void *const *in, int n)
{
    const rs_ag_direct_t *d = ctx;
    dfc_coll_slot_gather_chunks(in, n, d->me, d->out, d->count, d->dt->size);
}

int dfc_coll_allreduce_rs_ag_direct(dfc_comm_t *c, const void *src, void *recvbuf, uint64_t count,
                                    const dfc_dtype_t *dt, const dfc_op_t *op)
{
    if (chunk_tmp_bytes(c->size, count, dt->size) > DIRECT_TMP) return DFC_COLL_NOT_DIRECT;
    uint64_t lo, items;
    dfc_coll_slot_chunk(count, c->size, c->rank, &lo, &items);
    rs_ag_direct_t d = {recvbuf, op, dt, count, c->rank};
    dfc_tl_slot_xchg_t rs = {.src = src,
                             .bytes = count * dt->size,
                             .reduce = direct_reduce_chunk,
                             .ctx = &d};
    int rc = dfc_coll_slot_direct(c, &rs, "allreduce");
    if (rc) return rc;
    dfc_tl_slot_xchg_t ag = {.src = (char *)recvbuf + lo * dt->size,
                             .bytes = items * dt->size,
                             .reduce = direct_gather_chunks,
                             .ctx = &d};
    return dfc_coll_slot_direct_more(c, &ag, "allreduce");
}
