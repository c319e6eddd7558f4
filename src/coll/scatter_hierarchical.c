/*
 * scatter_hierarchical.c - two-level scatter for communicators that span several nodes: the
 * root sends each node's blocks to that node's rank of the root's local index (its leader)
 * along the root's rail, and each leader hands them out inside its node.
 *
 * Layout (hier_layout.c): N nodes of L >= 2 ranks each; the root is local index lr of node
 * nr; blocks of b bytes. Scatter only: the ranks off the root do not know scatterv's counts,
 * so a leader could not size its node's blocks. Phase 1: the root sends their blocks to its
 * node mates straight and to the leader of every other node its node's L blocks, one message
 * per run of local indices whose communicator ranks are consecutive (adjacent in SEND; one
 * message for a node of consecutive ranks), and copies its own block unless in place. A
 * leader receives the runs into TMP (block of local index k at k * b). Phase 2: the leader
 * sends block k to local index k and copies its own into RECV. The others receive their
 * block from the root (node nr) or their leader. A fence closes every step; a call of empty
 * blocks moves nothing.
 *
 * Cost (b bytes per block): the root sends L-1 blocks inside its node and N-1 packages of
 * L b bytes across nodes (at most (N-1) L messages, when no two ranks of a node are
 * consecutive); a leader sends L-1 blocks inside its node. The linear scatter's root sends
 * (N-1) L messages across nodes. Not chosen by default on the host (scatter stays linear:
 * DFC_SCATTER_ALGORITHM=hierarchical forces it); the GPU daemon takes it over rails (gpu.c),
 * whose daemons connect only node mates and the ranks of one local index.
 */
#include "coll/dfc_coll.h"

int dfc_coll_scatter_hierarchical_usable(const dfc_coll_args_t *a)
{
    return a->kind == DFC_COLL_SCATTER && dfc_coll_hier_nodes(a) > 0;
}

static int build_root(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int L = h->nlocal, N = h->nnodes, nr = h->node[a->root];
    uint64_t b = a->sbytes;
    for (int k = 0; k < L; k++) { /* node mates: their blocks straight */
        int p = h->ranks[nr * L + k];
        if (p != a->root) DFC_TRY(dfc_sched_send(s, p, DFC_BUF_SEND, (uint64_t)p * b, b));
    }
    for (int i = 1; i < N; i++) { /* every other node's blocks to its leader */
        int m = dfc_coll_mod(nr + i, N), leader = h->ranks[m * L + h->local[a->root]];
        DFC_TRY(dfc_coll_hier_node_xfer(s, h, m, leader, 1, DFC_BUF_SEND, 0, 1, b));
    }
    if (!a->in_place)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, (uint64_t)a->root * b, DFC_BUF_RECV, 0, b));
    return dfc_sched_fence(s);
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int L = h->nlocal, n = h->node[a->rank], l = h->local[a->rank];
    int nr = h->node[a->root], lr = h->local[a->root];
    uint64_t b = a->rbytes;
    if (a->rank == a->root) return build_root(a, h, s);
    if (n == nr || l != lr) { /* my block from the root or from my node's leader */
        DFC_TRY(dfc_sched_recv(s, n == nr ? a->root : h->ranks[n * L + lr], DFC_BUF_RECV, 0, b));
        return dfc_sched_fence(s);
    }
    uint64_t pkg = dfc_sched_tmp(s, (uint64_t)L * b); /* a leader: the node's blocks */
    DFC_TRY(dfc_coll_hier_node_xfer(s, h, n, a->root, 0, DFC_BUF_TMP, pkg, 0, b));
    DFC_TRY(dfc_sched_fence(s));
    for (int k = 0; k < L; k++) /* phase 2: hand them out */
        if (k != l) DFC_TRY(dfc_sched_send(s, h->ranks[n * L + k], DFC_BUF_TMP, pkg + k * b, b));
    DFC_TRY(dfc_sched_copy(s, DFC_BUF_TMP, pkg + (uint64_t)l * b, DFC_BUF_RECV, 0, b));
    return dfc_sched_fence(s);
}

int dfc_coll_scatter_hierarchical_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    if (a->kind != DFC_COLL_SCATTER)
        return DFC_ERR(DFC_ERR_INTERN, "scatter_hierarchical cannot build collective kind %d",
                       (int)a->kind);
    uint64_t b = a->rank == a->root ? a->sbytes : a->rbytes; /* the same on every rank */
    return dfc_coll_hier_build(a, s, "scatter", b != 0, build);
}
