/*
 * allreduce_shm_slots_rs_ag.c - allreduce through the shm collective slots in two exchanges
 * per segment: a reduce-scatter, then an allgather (issue 16).
 *
 * Algorithm: the vector is cut into segments of at most one slot buffer (DFC_TL_SLOT_BYTES,
 * whole items), each segment into p chunks (dfc_coll_slot_chunk: ceil(n/p) of its n items
 * each, the last ones shorter or empty). Per segment, exchange 1: every rank copies the
 * segment of its input into its slot; rank r then reduces chunk r of every rank's slot into
 * chunk r of its receive buffer, in the bracketing of allreduce_shm_slots.c
 * (dfc_coll_slot_reduce, item by item), so the result is bit-identical to that algorithm's and
 * to recursive doubling's, for non-commutative ops too. Exchange 2: every rank copies its
 * reduced chunk into its slot and every other rank's chunk out of theirs. In place works:
 * each exchange's input is in the slot before its output is written, and a segment's output
 * is no other segment's input.
 *
 * Cost (m bytes, p ranks on one node): 2 (p - 1) m / p bytes read from other ranks' slots (a
 * cache line per 64 bytes), against allreduce_shm_slots' (p - 1) m; two exchanges' waits per
 * 4 KiB instead of one in all; (p - 1) m / p gamma. At 16 ranks and 4 KiB each rank reads 7.5
 * KiB instead of 60.
 *
 * Chosen (dfc_coll_allreduce_slots_choice) where the slots serve the communicator, from 3
 * ranks up: above 1 KiB up to 4 KiB, and from 8 ranks above 512 bytes up to 8 KiB. On 16
 * cores (BENCHMARKS.md, stop 42) it took 0.34-0.47x Open MPI's time at 2-4 KiB on 8 and 16
 * ranks, where recursive doubling, the choice before, took 0.81-0.87x. On 2 ranks it is not
 * chosen: it reads what shm_slots reads, in two exchanges instead of one. Forced
 * (DFC_ALLREDUCE_ALGORITHM=shm_slots_rs_ag), it runs up to DFC_COLL_RS_AG_MAX.
 */
#include <string.h>

#include "coll/dfc_coll.h"

/* Items per segment: as many whole items as a slot buffer holds. */
static uint64_t seg_items(uint64_t elem) { return DFC_COMM_SLOT_BYTES / elem; }

int dfc_coll_allreduce_shm_slots_rs_ag_usable(const dfc_coll_args_t *a)
{
    uint64_t bytes = a->count * a->elem;
    return a->slots && !a->gpu && a->size > 1 && bytes > 0 && bytes <= DFC_COLL_RS_AG_MAX &&
           a->elem <= DFC_COMM_SLOT_BYTES;
}

/* Measured on 16 cores (BENCHMARKS.md, stop 42, every algorithm forced, 2 rounds): on 2 ranks
 * shm_slots took 1.4 us at 2 KiB against recursive doubling's 1.6 and tied at 4 KiB; on 4
 * ranks it tied this algorithm at 2 KiB, which won at 4 KiB (3.7 against 4.2 us) and lost to
 * rabenseifner at 16 KiB; on 8 and 16 ranks this one won from 1 KiB (16 ranks: 3.4 against
 * 4.6 us) and at 8 KiB (8.1-9.4 against rabenseifner's 10.4-13.7) and tied or lost at 16. */
dfc_coll_slot_algo_t dfc_coll_allreduce_slots_choice(int size, uint64_t bytes)
{
    if (size == 2) return bytes <= 2048 ? DFC_SLOTS_ONE : DFC_SLOTS_AWAY;
    if (bytes <= (size >= 8 ? 512u : 1024u)) return DFC_SLOTS_ONE;
    return bytes <= (size >= 8 ? 8192u : 4096u) ? DFC_SLOTS_RS_AG : DFC_SLOTS_AWAY;
}

/* Scratch of the chunk reduction: one chunk per leaf of the bracketing tree (none on 2). */
static uint64_t chunk_tmp_bytes(int size, uint64_t count, uint64_t elem)
{
    uint64_t items = count < seg_items(elem) ? count : seg_items(elem);
    return size > 2 ? (uint64_t)dfc_coll_pof2(size) * dfc_coll_slot_chunk_items(items, size) * elem
                    : 0;
}

int dfc_coll_allreduce_shm_slots_rs_ag_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    s->algorithm = "shm_slots_rs_ag";
    uint64_t tmp = dfc_sched_tmp(s, chunk_tmp_bytes(a->size, a->count, a->elem)), lo, n;
    int in = dfc_coll_input_buf(a), rc = DFC_SUCCESS;
    for (uint64_t at = 0; at < a->count && !rc; at += seg_items(a->elem)) {
        uint64_t items = DFC_MIN2(seg_items(a->elem), a->count - at), off = at * a->elem;
        dfc_coll_slot_chunk(items, a->size, a->rank, &lo, &n);
        if (!(rc = dfc_sched_slot_reduce_scatter(s, in, off, items, items * a->elem, tmp)))
            rc = dfc_sched_slot_allgather_chunks(s, off, lo * a->elem, items, n * a->elem);
    }
    return rc;
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
typedef struct rs_ag_direct {
    char *out; /* the segment's place in the receive buffer */
    const dfc_op_t *op;
    const dfc_dtype_t *dt;
    uint64_t count; /* the segment's items */
    int me;
} rs_ag_direct_t;

static void direct_reduce_chunk(void *ctx, const void *const *in, int n)
{
    const rs_ag_direct_t *d = ctx;
    char tmp[DFC_COLL_SLOT_DIRECT_TMP]; /* the chunk reduction's scratch */
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
    uint64_t elem = dt->size, lo, n;
    if (chunk_tmp_bytes(c->size, count, elem) > DFC_COLL_SLOT_DIRECT_TMP ||
        elem > DFC_COMM_SLOT_BYTES)
        return DFC_COLL_NOT_DIRECT;
    int rc = DFC_SUCCESS;
    for (uint64_t at = 0; at < count && !rc; at += seg_items(elem)) {
        uint64_t items = DFC_MIN2(seg_items(elem), count - at), off = at * elem;
        dfc_coll_slot_chunk(items, c->size, c->rank, &lo, &n);
        rs_ag_direct_t d = {(char *)recvbuf + off, op, dt, items, c->rank};
        dfc_tl_slot_xchg_t rs = {.src = (const char *)src + off,
                                 .bytes = items * elem,
                                 .reduce = direct_reduce_chunk,
                                 .ctx = &d};
        rc = at ? dfc_coll_slot_direct_more(c, &rs, "allreduce")
                : dfc_coll_slot_direct(c, &rs, "allreduce");
        if (rc) break;
        dfc_tl_slot_xchg_t ag = {.src = d.out + lo * elem,
                                 .bytes = n * elem,
                                 .reduce = direct_gather_chunks,
                                 .ctx = &d};
        rc = dfc_coll_slot_direct_more(c, &ag, "allreduce");
    }
    return rc;
}
