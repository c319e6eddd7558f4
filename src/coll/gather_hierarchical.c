/*
 * gather_hierarchical.c - two-level gather for communicators that span several nodes: each
 * node gathers its blocks to its rank of the root's local index (its leader), which forwards
 * them to the root along the root's rail.
 *
 * Layout (hier_layout.c): N nodes of L >= 2 ranks each; the root is local index lr of node
 * nr; blocks of b bytes. Gather only: the ranks off the root do not know gatherv's counts, so
 * a leader could not size its node's blocks. Phase 1: on a node n != nr, every local index
 * l != lr sends its block to the leader (local index lr), which receives them into TMP at
 * l * b and copies its own there: TMP holds the node's L blocks in local order. On node nr
 * the node mates send straight to the root. Phase 2: each leader sends TMP to the root, one
 * message per run of local indices whose communicator ranks are consecutive (their blocks
 * are adjacent in the root's RECV: one message for a node of consecutive ranks, as srun
 * places them; L messages when ranks are dealt round robin), received in place. The root
 * posts every receive at once and copies its own block unless in place; a fence closes
 * every step; a call of empty blocks moves nothing.
 *
 * Cost (b bytes per block): the root takes L-1 blocks from its node mates and N-1 packages
 * of L b bytes across nodes (at most (N-1) L messages, when no two ranks of a node are
 * consecutive); a leader takes L-1 blocks inside its node. The linear gather's root takes
 * (N-1) L messages across nodes, every one from a different rank. Not chosen by default on
 * the host (gather stays linear: DFC_GATHER_ALGORITHM=hierarchical forces it); the GPU
 * daemon takes it over rails (gpu.c), whose daemons connect only node mates and the ranks of
 * one local index.
 */
#include "coll/dfc_coll.h"

int dfc_coll_gather_hierarchical_usable(const dfc_coll_args_t *a)
{
    return a->kind == DFC_COLL_GATHER && dfc_coll_hier_nodes(a) > 0;
}

static int build_root(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int L = h->nlocal, N = h->nnodes, nr = h->node[a->root];
    uint64_t b = a->rbytes;
    if (!a->in_place)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, (uint64_t)a->root * b, b));
    for (int k = 0; k < L; k++) { /* node mates: their blocks straight */
        int p = h->ranks[nr * L + k];
        if (p != a->root) DFC_TRY(dfc_sched_recv(s, p, DFC_BUF_RECV, (uint64_t)p * b, b));
    }
    for (int i = 1; i < N; i++) { /* every other node's blocks from its leader, in place */
        int m = dfc_coll_mod(nr + i, N), leader = h->ranks[m * L + h->local[a->root]];
        DFC_TRY(dfc_coll_hier_node_xfer(s, h, m, leader, 0, DFC_BUF_RECV, 0, 1, b));
    }
    return dfc_sched_fence(s);
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int L = h->nlocal, n = h->node[a->rank], l = h->local[a->rank];
    int nr = h->node[a->root], lr = h->local[a->root];
    uint64_t b = a->sbytes;
    if (a->rank == a->root) return build_root(a, h, s);
    if (n == nr || l != lr) { /* phase 1: my block to the root or to my node's leader */
        DFC_TRY(dfc_sched_send(s, n == nr ? a->root : h->ranks[n * L + lr], DFC_BUF_SEND, 0, b));
        return dfc_sched_fence(s);
    }
    uint64_t pkg = dfc_sched_tmp(s, (uint64_t)L * b); /* a leader: the node's blocks */
    for (int k = 0; k < L; k++)
        if (k != l) DFC_TRY(dfc_sched_recv(s, h->ranks[n * L + k], DFC_BUF_TMP, pkg + k * b, b));
    DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_TMP, pkg + (uint64_t)l * b, b));
    DFC_TRY(dfc_sched_fence(s));
    DFC_TRY(dfc_coll_hier_node_xfer(s, h, n, a->root, 1, DFC_BUF_TMP, pkg, 0, b)); /* phase 2 */
    return dfc_sched_fence(s);
}

int dfc_coll_gather_hierarchical_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    if (a->kind != DFC_COLL_GATHER)
        return DFC_ERR(DFC_ERR_INTERN, "gather_hierarchical cannot build collective kind %d",
                       (int)a->kind);
    uint64_t b = a->rank == a->root ? a->rbytes : a->sbytes; /* the same on every rank */
    return dfc_coll_hier_build(a, s, "gather", b != 0, build);
}
