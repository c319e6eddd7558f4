/*
 * reduce_chain.c - reduce along a pipelined chain: rank v (relative to the root,
 * v = (r - root) mod n) receives the partial result of v + 1 .. n - 1 from v + 1, reduces its
 * own into it and passes it on to v - 1, in S segments so that all links carry at once. The
 * mirror of bcast_chain.c.
 *
 * The m-byte vector is cut into segments of whole items as bcast_chain.c cuts its message
 * (dfc_coll_chain_segments: S of DFC_COLL_CHAIN_SEGMENT bytes, at most 32). Every rank works
 * in an accumulator: RECV on the root (its input copied there unless IN_PLACE), a TMP copy of
 * the input elsewhere. The chain's far end (v = n - 1) posts all S sends to v - 1 and one fence;
 * the root posts all S receive-reduces from v = 1 and one fence; a rank in between works in
 * S + 1 groups, each closed by a fence: in group k it receive-reduces segment k (k < S) and
 * sends segment k - 1 (k > 0), which its fence k - 1 has completed. Each segment is received
 * into its own place of a TMP scratch as large as the vector, so no two receives of a group
 * share bytes. The sum runs v op (v + 1 op (...)) around the ring from the root: commutative
 * ops only.
 *
 * Cost: (n - 2 + S) (alpha + m/S (beta + gamma)): every link carries m once, and the pipeline
 * fills in n - 2 steps. Binomial pays ceil(log2 n) (alpha + m (beta + gamma)); the chain wins
 * for large m on few links per rank: each rank talks to its two chain neighbours only, which
 * is what a ring of GPU daemons connects (the hierarchical reduce's phase across nodes on a
 * ring of rails, dfc_coll_reduce_chain_steps). Never chosen by default on the host
 * (DFC_REDUCE_ALGORITHM=chain forces it).
 */
#include "coll/dfc_coll.h"

int dfc_coll_reduce_chain_usable(const dfc_coll_args_t *a) { return a->commutative; }

int dfc_coll_reduce_chain_steps(dfc_sched_t *s, const dfc_coll_chain_t *c)
{
    uint64_t bytes = c->count * c->elem;
    if (c->n == 1 || bytes == 0) return DFC_SUCCESS;
    int nseg = (int)DFC_MIN2((uint64_t)dfc_coll_chain_segments(bytes), c->count); /* none empty */
    int v = c->v, last = c->n - 1;
#define ITEMS(k) dfc_coll_chunk_start(c->count, nseg, (k))
#define OFF(k) (ITEMS(k) * c->elem)
#define LEN(k) (OFF((k) + 1) - OFF(k))
    for (int k = 0; k <= nseg; k++) {
        if (v < last && k < nseg)
            DFC_TRY(dfc_sched_recv_reduce(s, c->from, c->acc, c->acc_off + OFF(k),
                                          ITEMS(k + 1) - ITEMS(k), LEN(k), c->scratch + OFF(k),
                                          DFC_REDUCE_IN_FIRST));
        if (v == last && k < nseg)
            DFC_TRY(dfc_sched_send(s, c->to, c->acc, c->acc_off + OFF(k), LEN(k)));
        if (v > 0 && v < last && k > 0)
            DFC_TRY(dfc_sched_send(s, c->to, c->acc, c->acc_off + OFF(k - 1), LEN(k - 1)));
        if (v > 0 && v < last) DFC_TRY(dfc_sched_fence(s)); /* the pipeline's groups */
    }
#undef ITEMS
#undef OFF
#undef LEN
    return v == 0 || v == last ? dfc_sched_fence(s) : DFC_SUCCESS;
}

int dfc_coll_reduce_chain_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, is_root = a->rank == a->root;
    uint64_t bytes = a->count * a->elem;
    s->algorithm = "chain";
    if (bytes == 0) return DFC_SUCCESS;
    dfc_coll_chain_t c = {
        .v = dfc_coll_mod(a->rank - a->root, n),
        .n = n,
        .to = dfc_coll_mod(a->rank - 1, n),
        .from = dfc_coll_mod(a->rank + 1, n),
        .acc = is_root ? DFC_BUF_RECV : DFC_BUF_TMP,
        .count = a->count,
        .elem = a->elem,
    };
    if (!is_root) c.acc_off = dfc_sched_tmp(s, bytes);
    if (c.v < n - 1) c.scratch = dfc_sched_tmp(s, bytes);
    if (!(is_root && a->in_place)) /* a fence point: done before the first send */
        DFC_TRY(dfc_sched_copy(s, dfc_coll_input_buf(a), 0, c.acc, c.acc_off, bytes));
    return dfc_coll_reduce_chain_steps(s, &c);
}
