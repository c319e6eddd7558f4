/*
 * gather_hierarchical.c - two-level gather for communicators that span several nodes: each
 * node gathers its blocks to its rank of the root's local index (its leader), which forwards
 * them to the root along the root's rail.
 *
 * Layout (hier_layout.c): N nodes of at least L >= 2 ranks each (unequal nodes too); the
 * root sits on node nr; blocks of b bytes. Gather only: the ranks off the root do not know
 * gatherv's counts, so a leader could not size its node's blocks. Each node's leader is its
 * core rank of local index lc, the root's own or, for a surplus root, its partner's (lr mod
 * L): leaders and the root's core rank c (the root, or its partner) share a rail. Phase 1: on
 * a node n != nr, every other rank, surplus ones too, sends its block to the leader, which
 * receives them into TMP (block of local index k at k * b) and copies its own there: TMP
 * holds the node's blocks in local order. On node nr the node mates send straight to the
 * root. Phase 2: each leader sends TMP to c, one message per run of the node's ranks whose
 * communicator ranks are consecutive (adjacent blocks in the root's RECV: one message for a
 * node of consecutive ranks, as srun places them; one per rank when ranks are dealt round
 * robin). The root receives them in place; a surplus root's partner receives them into TMP
 * (one node after another) and passes them on, run by run, after its own block. The root
 * posts every receive at once and copies its own block unless in place; a fence closes
 * every step; a call of empty blocks moves nothing.
 *
 * Cost (b bytes per block, M_n ranks on node n): the root takes M_nr - 1 blocks from its
 * node mates and N-1 packages of M_n b bytes across nodes (behind a surplus root, its
 * partner takes them and hands them on inside the node); a leader takes M_n - 1 blocks
 * inside its node. The linear gather's root takes a message from every rank of every other
 * node. Not chosen by default on the host (gather stays linear:
 * DFC_GATHER_ALGORITHM=hierarchical forces it); the GPU daemon takes it over rails (gpu.c),
 * whose daemons connect only node mates and the ranks of one local index.
 */
#include "coll/dfc_coll.h"

int dfc_coll_gather_hierarchical_usable(const dfc_coll_args_t *a)
{
    return a->kind == DFC_COLL_GATHER && dfc_coll_hier_nodes(a) > 0;
}

static int build_root(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    uint64_t b = a->rbytes;
    int nr = h->node[a->root], c = dfc_coll_hier_root_core(a, h);
    if (!a->in_place)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, (uint64_t)a->root * b, b));
    for (int p = 0; p < a->size; p++) /* node mates: their blocks straight (c: before its relay) */
        if (h->node[p] == nr && p != a->root)
            DFC_TRY(dfc_sched_recv(s, p, DFC_BUF_RECV, (uint64_t)p * b, b));
    DFC_TRY(dfc_coll_hier_other_nodes(s, a, h, c == a->root ? -1 : c, 0, -1, b)); /* in place */
    return dfc_sched_fence(s);
}

/* A surplus root's partner: its own block to the root, then the other nodes' packages on. */
static int build_relay(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    DFC_TRY(dfc_sched_send(s, a->root, DFC_BUF_SEND, 0, a->sbytes));
    return dfc_coll_hier_relay(s, a, h, -1, a->root, a->sbytes); /* as the root takes them */
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int L = h->nlocal, n = h->node[a->rank], l = h->local[a->rank];
    int nr = h->node[a->root], c = dfc_coll_hier_root_core(a, h), lc = h->local[c];
    uint64_t b = a->sbytes;
    if (a->rank == a->root) return build_root(a, h, s);
    if (a->rank == c) return build_relay(a, h, s);
    if (n == nr || l != lc) { /* phase 1: my block to the root or to my node's leader */
        DFC_TRY(dfc_sched_send(s, n == nr ? a->root : h->ranks[n * L + lc], DFC_BUF_SEND, 0, b));
        return dfc_sched_fence(s);
    }
    /* a leader: its node's blocks, packed in local order */
    uint64_t pkg = dfc_sched_tmp(s, dfc_coll_hier_node_bytes(h, n, b));
    for (int r = 0; r < a->size; r++)
        if (h->node[r] == n && r != a->rank)
            DFC_TRY(dfc_sched_recv(s, r, DFC_BUF_TMP, pkg + (uint64_t)h->local[r] * b, b));
    DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_TMP, pkg + (uint64_t)l * b, b));
    DFC_TRY(dfc_sched_fence(s));
    DFC_TRY(dfc_coll_hier_node_xfer(s, h, n, c, 1, DFC_BUF_TMP, pkg, 0, b)); /* phase 2 */
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
