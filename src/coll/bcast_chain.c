/*
 * bcast_chain.c - broadcast along a pipelined chain: rank v (relative to the root,
 * v = (r - root) mod n) receives the message from v - 1 and passes it on to v + 1, in S
 * segments so that all links carry at once.
 *
 * The B-byte buffer (RECV on every rank) is cut into S = ceil(B / DFC_COLL_CHAIN_SEGMENT)
 * segments (256 KiB by default), at most 32 (then larger ones): dfc_coll_chain_segments. The
 * root posts all S sends to v = 1 and one fence. The last rank posts all S receives from
 * n - 2 and one fence. A rank in between works in S + 1 groups, each closed by a fence: in
 * group k it receives segment k (k < S) and sends segment k - 1 (k > 0), so segment k - 1
 * leaves while segment k arrives. Empty messages move nothing.
 *
 * Cost: (n - 2 + S) (alpha + B/S beta): every link carries B once, and the pipeline fills in
 * n - 2 steps. Binomial pays ceil(log2 n) (alpha + B beta) and scatter_allgather about
 * (log2 n + n - 1) alpha + 2 B beta; the chain wins for large B on few links per rank: each
 * rank talks to its two chain neighbours only, which is what a ring of GPU daemons connects
 * (the hierarchical bcast's phase across nodes on a ring of rails, gpu.c). Never chosen by
 * default on the host (DFC_BCAST_ALGORITHM=chain forces it).
 */
#include "coll/dfc_coll.h"

#define DFC_COLL_CHAIN_MAX_SEGMENTS 32 /* 3 steps each in the schedule */

int dfc_coll_chain_segments(uint64_t bytes)
{
    static long seg; /* read once; a racing first read gets the same value */
    if (!seg) {
        long v = dfc_env_long("DFC_COLL_CHAIN_SEGMENT", 256 << 10,
                              "chain bcast and reduce: bytes per pipeline segment, at least");
        seg = v > 0 ? v : 256 << 10;
    }
    uint64_t n = (bytes + (uint64_t)seg - 1) / (uint64_t)seg;
    return (int)DFC_MIN2(n, (uint64_t)DFC_COLL_CHAIN_MAX_SEGMENTS);
}

int dfc_coll_bcast_chain_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, v = dfc_coll_mod(a->rank - a->root, n);
    uint64_t bytes = a->count * a->elem;
    s->algorithm = "chain";
    if (n == 1 || bytes == 0) return DFC_SUCCESS;
    int nseg = dfc_coll_chain_segments(bytes);
    int prev = dfc_coll_mod(a->rank - 1, n), next = dfc_coll_mod(a->rank + 1, n);
#define OFF(k) dfc_coll_chunk_start(bytes, nseg, (k))
#define LEN(k) (OFF((k) + 1) - OFF(k))
    for (int k = 0; k <= nseg; k++) {
        if (v > 0 && k < nseg) DFC_TRY(dfc_sched_recv(s, prev, DFC_BUF_RECV, OFF(k), LEN(k)));
        if (v == 0 && k < nseg) DFC_TRY(dfc_sched_send(s, next, DFC_BUF_RECV, OFF(k), LEN(k)));
        if (v > 0 && v < n - 1 && k > 0)
            DFC_TRY(dfc_sched_send(s, next, DFC_BUF_RECV, OFF(k - 1), LEN(k - 1)));
        if (v > 0 && v < n - 1) DFC_TRY(dfc_sched_fence(s)); /* the pipeline's groups */
    }
#undef OFF
#undef LEN
    return v == 0 || v == n - 1 ? dfc_sched_fence(s) : DFC_SUCCESS;
}
