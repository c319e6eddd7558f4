/*
 * allreduce_hierarchical.c - two-level allreduce for communicators that span several nodes:
 * a ring reduce-scatter inside each node, a ring allreduce across nodes among the ranks of
 * equal local index, a ring allgather inside each node.
 *
 * Layout: N nodes, each with the same number L >= 2 of the communicator's ranks (nodes and
 * local indices numbered in communicator-rank order, the same on every rank: the node of
 * each rank comes from the job's node map, a->world and a->world_node). The vector is cut
 * into L chunks. Phase 1, steps j = 0 .. L-2 among the ranks of the node (left and right by
 * local index): send chunk (l - j) mod L, receive chunk (l - j - 1) mod L and reduce it in;
 * afterwards local rank l holds chunk o = (l + 1) mod L summed over its node. Phase 2: the N
 * ranks of local index l (one per node, all holding chunk o) run a ring allreduce on it: o
 * cut into N pieces, N-1 reduce-scatter steps, N-1 allgather steps. Phase 3, steps t = 0 ..
 * L-2 inside the node: send chunk (l + 1 - t) mod L, receive chunk (l - t) mod L.
 * Everything runs in RECV (the input copied there first unless IN_PLACE); a received piece
 * is reduced in through TMP, one chunk large; a fence closes every step. The reduction order
 * follows the rings, not the rank order: commutative ops only. On unequal nodes
 * (hier_layout.c) the core runs this between a fold in (after the copy: each surplus rank's
 * vector reduced into its partner's RECV, chunk by chunk through TMP) and a fold out (the
 * result sent to it): 2 alpha_n + 2 m beta_n + m gamma more inside a node, once per surplus
 * rank behind a partner.
 *
 * Cost (m bytes): intra-node 2(L-1) alpha_n + 2 (L-1)/L m beta_n + (L-1)/L m gamma;
 * across nodes 2(N-1) alpha_x + 2 (N-1)/N (m/L) beta_x + (N-1)/N (m/L) gamma per rank. A flat
 * ring over the N L ranks pays 2(NL-1) alpha, and carries 2 (NL-1)/(NL) m across the one
 * boundary of each node through one rank; here the L ranks of a node each carry 1/L of the
 * traffic across nodes (all of a node's network links at work, and 2(N-1)/N m in all), and a
 * communicator whose ranks alternate between nodes does not cross nodes at every step.
 * Chosen for allreduce above DFC_ALLREDUCE_RABENSEIFNER_MAX (commutative op) when the
 * communicator spans several nodes with at least two ranks on each, and N is within ring's
 * rank limit (DFC_ALLREDUCE_RING_MAX_RANKS: the phase across nodes is a ring of N);
 * DFC_ALLREDUCE_ALGORITHM=hierarchical forces it wherever that layout holds. On 4 simulated
 * nodes of 2 ranks (tcp between them, shm inside) it took 0.5-0.8x ring's time at 1-4 MiB;
 * on nodes of 3 and 2, and of 3, 3 and 2, 0.51-0.88x from 1 MiB (BENCHMARKS.md, stop 35).
 * The GPU daemon runs it too (a->gpu: the steps are plain transfers), its steps to other
 * nodes through the host proxy; not yet on unequal nodes (gpu.c).
 */
#include "coll/dfc_coll.h"

int dfc_coll_allreduce_hierarchical_usable(const dfc_coll_args_t *a)
{
    return a->commutative && dfc_coll_hier_nodes(a) > 0;
}

/* One ring step of k ring members (this one at position i, whose neighbours are ranks
 * right and left) on the items [base, base + len) cut into k pieces: send piece `sp`,
 * receive piece `rp`, reduced in through TMP (`reduce`) or stored. A fence closes it. */
typedef struct ring_ctx {
    dfc_sched_t *s;
    const dfc_coll_args_t *a;
    int k, right, left;
    uint64_t base, len, tmp;
} ring_ctx_t;

static int ring_step(const ring_ctx_t *c, int sp, int rp, int reduce)
{
    uint64_t elem = c->a->elem;
    uint64_t s0 = dfc_coll_chunk_start(c->len, c->k, sp);
    uint64_t sn = dfc_coll_chunk_start(c->len, c->k, sp + 1) - s0;
    uint64_t r0 = dfc_coll_chunk_start(c->len, c->k, rp);
    uint64_t rn = dfc_coll_chunk_start(c->len, c->k, rp + 1) - r0;
    if (sn) DFC_TRY(dfc_sched_send(c->s, c->right, DFC_BUF_RECV, (c->base + s0) * elem, sn * elem));
    if (rn && reduce)
        DFC_TRY(dfc_sched_recv_reduce(c->s, c->left, DFC_BUF_RECV, (c->base + r0) * elem, rn,
                                      rn * elem, c->tmp, DFC_REDUCE_IN_FIRST));
    else if (rn)
        DFC_TRY(dfc_sched_recv(c->s, c->left, DFC_BUF_RECV, (c->base + r0) * elem, rn * elem));
    return dfc_sched_fence(c->s);
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int L = h->nlocal, N = h->nnodes, n = h->node[a->rank], l = h->local[a->rank];
    uint64_t bytes = a->count * a->elem;
    if (h->partner[a->rank] >= 0) { /* surplus: the input to the partner, the result back */
        DFC_TRY(dfc_coll_hier_fold_in(s, a, h, DFC_BUF_RECV, 0, 0));
        return dfc_coll_hier_fold_out(s, a, h, bytes, -1);
    }
    if (!a->in_place) DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, 0, bytes));
    ring_ctx_t node = {s,
                       a,
                       L,
                       h->ranks[n * L + dfc_coll_mod(l + 1, L)],
                       h->ranks[n * L + dfc_coll_mod(l - 1, L)],
                       0,
                       a->count,
                       0};
    node.tmp = dfc_sched_tmp(s, dfc_coll_chunk_start(a->count, L, 1) * a->elem);
    DFC_TRY(dfc_coll_hier_fold_in(s, a, h, DFC_BUF_RECV, 0, node.tmp));
    for (int j = 0; j < L - 1; j++)
        DFC_TRY(ring_step(&node, dfc_coll_mod(l - j, L), dfc_coll_mod(l - j - 1, L), 1));
    int o = dfc_coll_mod(l + 1, L); /* the chunk this rank now holds for its node */
    ring_ctx_t across = {s,
                         a,
                         N,
                         h->ranks[dfc_coll_mod(n + 1, N) * L + l],
                         h->ranks[dfc_coll_mod(n - 1, N) * L + l],
                         dfc_coll_chunk_start(a->count, L, o),
                         dfc_coll_chunk_start(a->count, L, o + 1) -
                             dfc_coll_chunk_start(a->count, L, o),
                         node.tmp};
    for (int j = 0; j < N - 1; j++)
        DFC_TRY(ring_step(&across, dfc_coll_mod(n - j, N), dfc_coll_mod(n - j - 1, N), 1));
    for (int t = 0; t < N - 1; t++)
        DFC_TRY(ring_step(&across, dfc_coll_mod(n + 1 - t, N), dfc_coll_mod(n - t, N), 0));
    for (int t = 0; t < L - 1; t++)
        DFC_TRY(ring_step(&node, dfc_coll_mod(l + 1 - t, L), dfc_coll_mod(l - t, L), 0));
    return dfc_coll_hier_fold_out(s, a, h, bytes, -1);
}

int dfc_coll_allreduce_hierarchical_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    return dfc_coll_hier_build(a, s, "allreduce", a->count != 0, build);
}
