/*
 * allreduce_ring.c - ring allreduce: a ring reduce-scatter followed by a ring allgather,
 * pipelined in segments.
 *
 * Algorithm: the vector is cut into p chunks (count/p items, the first count % p chunks one
 * item more). Reduce-scatter step s = 0 .. p-2: send chunk (rank - s) mod p to the right
 * neighbour, receive chunk (rank - s - 1) mod p from the left one and reduce it into the
 * local copy; afterwards rank holds chunk (rank + 1) mod p fully reduced. Allgather step
 * t = 0 .. p-2: send chunk (rank + 1 - t) mod p, receive chunk (rank - t) mod p.
 * Pipelining: each chunk is cut into segments of at most DFC_COLL_RING_SEGMENT bytes (whole
 * items; default 1 MiB) - on the host only: the GPU daemon pipelines every transfer in
 * chunks over its channels itself, and each fence there costs a meeting of the channels. Segment k of step j depends only on segment k of step j - 1, so
 * epoch e (between two fences) carries segment e - j of every step j: a wavefront that keeps
 * up to min(2(p-1), segments per chunk) messages in flight per direction, each segment in
 * its own TMP slot (TMP = one chunk, and none at all without IN_PLACE).
 * Buffers: RECV accumulates. Without IN_PLACE, reduce-scatter receives go straight into
 * RECV and SEND's chunk is reduced into them after the fence (REDUCE steps); with
 * IN_PLACE they are RECV_REDUCEs through TMP. The reduction order follows the ring, not the
 * rank order: commutative ops only.
 *
 * Cost (m bytes, p ranks, g segments per chunk): (2(p-1) + g - 1) alpha
 * + 2 (p-1)/p m beta + (p-1)/p m gamma: bandwidth-optimal.
 * Chosen for allreduce of more than 512 KiB (DFC_ALLREDUCE_RABENSEIFNER_MAX, select.c) with
 * commutative ops on up to 64 ranks (DFC_ALLREDUCE_RING_MAX_RANKS), or 512 when p is not a
 * power of two, where rabenseifner pays its extra pre/post steps; above, its 2(p-1) alpha
 * (and as many preemption points) lose to rabenseifner's 2 log2(p') alpha.
 */
#include "coll/dfc_coll.h"


int dfc_coll_allreduce_ring_usable(const dfc_coll_args_t *a) { return a->commutative; }

static uint64_t ring_segment_bytes(void)
{
    static long seg; /* read once; a racing first read gets the same value */
    if (!seg) {
        long v = dfc_env_long("DFC_COLL_RING_SEGMENT", 1 << 20,
                              "ring allreduce: largest message of its pipeline, in bytes");
        seg = v > 0 ? v : 1 << 20;
    }
    return (uint64_t)seg;
}

int dfc_coll_allreduce_ring_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, rank = a->rank;
    uint64_t count = a->count, elem = a->elem, bytes = a->count * a->elem;
    int in = dfc_coll_input_buf(a);
    s->algorithm = "ring";
    if (bytes == 0) return DFC_SUCCESS;
    if (n == 1) return dfc_sched_copy(s, in, 0, DFC_BUF_RECV, 0, bytes);

    uint64_t seg_items = (a->gpu ? UINT64_MAX / 2 : ring_segment_bytes()) / elem;
    if (seg_items == 0) seg_items = 1;
    uint64_t max_chunk = dfc_coll_chunk_start(count, n, 1); /* chunk 0 is a largest one */
    int nseg = (int)((max_chunk + seg_items - 1) / seg_items);
    if (nseg == 0) nseg = 1;
    int right = (rank + 1) % n, left = (rank - 1 + n) % n;
    int nstep = 2 * (n - 1);
    uint64_t tmp = a->in_place ? dfc_sched_tmp(s, max_chunk * elem) : 0;

    for (int e = 0; e < nstep + nseg - 1; e++) {
        int jlo = e - nseg + 1 > 0 ? e - nseg + 1 : 0, jhi = e < nstep - 1 ? e : nstep - 1;
        for (int j = jlo; j <= jhi; j++) {
            uint64_t k0 = (uint64_t)(e - j) * seg_items; /* segment start inside the chunk */
            int rs = j < n - 1, t = j - (n - 1);
            int sc = rs ? ((rank - j) % n + n) % n : ((rank + 1 - t) % n + n) % n;
            int rc = rs ? ((rank - j - 1) % n + n) % n : ((rank - t) % n + n) % n;
            uint64_t s0 = dfc_coll_chunk_start(count, n, sc);
            uint64_t sl = dfc_coll_chunk_start(count, n, sc + 1) - s0;
            uint64_t r0 = dfc_coll_chunk_start(count, n, rc);
            uint64_t rl = dfc_coll_chunk_start(count, n, rc + 1) - r0;
            uint64_t sn = sl > k0 ? DFC_MIN2(seg_items, sl - k0) : 0;
            uint64_t rn = rl > k0 ? DFC_MIN2(seg_items, rl - k0) : 0;
            if (sn) {
                int from = rs && j == 0 ? in : DFC_BUF_RECV;
                DFC_TRY(dfc_sched_send(s, right, from, (s0 + k0) * elem, sn * elem));
            }
            if (!rn) continue;
            if (rs && a->in_place)
                DFC_TRY(dfc_sched_recv_reduce(s, left, DFC_BUF_RECV, (r0 + k0) * elem, rn,
                                              rn * elem, tmp + k0 * elem, DFC_REDUCE_IN_FIRST));
            else DFC_TRY(dfc_sched_recv(s, left, DFC_BUF_RECV, (r0 + k0) * elem, rn * elem));
        }
        DFC_TRY(dfc_sched_fence(s));
        if (a->in_place) continue;
        /* Without IN_PLACE: add this rank's input to the partial sums just received. */
        for (int j = jlo; j <= jhi && j < n - 1; j++) {
            uint64_t k0 = (uint64_t)(e - j) * seg_items;
            int rc = ((rank - j - 1) % n + n) % n;
            uint64_t r0 = dfc_coll_chunk_start(count, n, rc);
            uint64_t rl = dfc_coll_chunk_start(count, n, rc + 1) - r0;
            uint64_t rn = rl > k0 ? DFC_MIN2(seg_items, rl - k0) : 0;
            DFC_TRY(dfc_sched_reduce(s, DFC_BUF_SEND, (r0 + k0) * elem, DFC_BUF_RECV,
                                     (r0 + k0) * elem, rn, DFC_REDUCE_IN_SECOND));
        }
    }
    return dfc_sched_fence(s);
}
