/*
 * scatter_hierarchical.c - two-level scatter for communicators that span several nodes: the
 * root sends each node's blocks to that node's rank of the root's local index (its leader)
 * along the root's rail, and each leader hands them out inside its node.
 *
 * Layout (hier_layout.c): N nodes of at least L >= 2 ranks each (unequal nodes too); the
 * root sits on node nr; blocks of b bytes. Scatter only: the ranks off the root do not know
 * scatterv's counts, so a leader could not size its node's blocks. Each node's leader is its
 * core rank of local index lc, the root's own or, for a surplus root, its partner's (lr mod
 * L): leaders and the root's core rank c (the root, or its partner) share a rail. Phase 1:
 * the root sends their blocks to its node mates straight and, for every other node, that
 * node's blocks to c, one message per run of the node's ranks whose communicator ranks are
 * consecutive (adjacent in SEND; one message for a node of consecutive ranks), and copies
 * its own block unless in place. A surplus root's partner receives them into TMP (one node
 * after another), after its own block, and passes them on to the leaders run by run. A
 * leader receives its node's runs into TMP (block of local index k at k * b). Phase 2: the
 * leader sends each of its node's ranks, surplus ones too, its block and copies its own into
 * RECV. The others receive their block from the root (node nr) or their leader. A fence
 * closes every step; a call of empty blocks moves nothing.
 *
 * Cost (b bytes per block, M_n ranks on node n): the root sends M_nr - 1 blocks inside its
 * node and N-1 packages of M_n b bytes across nodes (a surplus root hands them to its
 * partner inside the node, which sends them across); a leader sends M_n - 1 blocks inside its
 * node. The linear scatter's root sends a message to every rank of every other node. Not
 * chosen by default on the host (scatter stays linear: DFC_SCATTER_ALGORITHM=hierarchical
 * forces it); the GPU daemon takes it over rails (gpu.c), whose daemons connect only node
 * mates and the ranks of one local index.
 */
#include "coll/dfc_coll.h"

int dfc_coll_scatter_hierarchical_usable(const dfc_coll_args_t *a)
{
    return a->kind == DFC_COLL_SCATTER && dfc_coll_hier_nodes(a) > 0;
}

static int build_root(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    uint64_t b = a->sbytes;
    int nr = h->node[a->root], c = dfc_coll_hier_root_core(a, h);
    for (int p = 0; p < a->size; p++) /* node mates: their blocks straight (c: before its relay) */
        if (h->node[p] == nr && p != a->root)
            DFC_TRY(dfc_sched_send(s, p, DFC_BUF_SEND, (uint64_t)p * b, b));
    DFC_TRY(dfc_coll_hier_other_nodes(s, a, h, c == a->root ? -1 : c, 1, -1, b));
    if (!a->in_place)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, (uint64_t)a->root * b, DFC_BUF_RECV, 0, b));
    return dfc_sched_fence(s);
}

/* A surplus root's partner: its own block from the root, then the other nodes' packages on. */
static int build_relay(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    DFC_TRY(dfc_sched_recv(s, a->root, DFC_BUF_RECV, 0, a->rbytes));
    return dfc_coll_hier_relay(s, a, h, a->root, -1, a->rbytes); /* as the root sends them */
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int L = h->nlocal, n = h->node[a->rank], l = h->local[a->rank];
    int nr = h->node[a->root], c = dfc_coll_hier_root_core(a, h), lc = h->local[c];
    uint64_t b = a->rbytes;
    if (a->rank == a->root) return build_root(a, h, s);
    if (a->rank == c) return build_relay(a, h, s);
    if (n == nr || l != lc) { /* my block from the root or from my node's leader */
        DFC_TRY(dfc_sched_recv(s, n == nr ? a->root : h->ranks[n * L + lc], DFC_BUF_RECV, 0, b));
        return dfc_sched_fence(s);
    }
    /* a leader: its node's blocks, packed in local order */
    uint64_t pkg = dfc_sched_tmp(s, dfc_coll_hier_node_bytes(h, n, b));
    DFC_TRY(dfc_coll_hier_node_xfer(s, h, n, c, 0, DFC_BUF_TMP, pkg, 0, b));
    DFC_TRY(dfc_sched_fence(s));
    for (int r = 0; r < a->size; r++) /* phase 2: hand them out */
        if (h->node[r] == n && r != a->rank)
            DFC_TRY(dfc_sched_send(s, r, DFC_BUF_TMP, pkg + (uint64_t)h->local[r] * b, b));
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
