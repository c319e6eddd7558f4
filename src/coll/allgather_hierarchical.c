/*
 * allgather_hierarchical.c - two-level allgather (and allgatherv) for communicators that
 * span several nodes: a ring across nodes among the ranks of equal local index, then a
 * ring inside each node passing each local index's blocks of every node.
 *
 * Layout (hier_layout.c): N nodes of L >= 2 ranks each; rank r is local rank l of node n.
 * Rank r first places its own block in RECV (as allgather_ring.c: block p at p * rbytes, or
 * at vdispls[p] items of relem for allgatherv). Phase 1, N-1 steps among the ranks of
 * local index l (one per node, a ring by node): in step i send the block of node
 * (n - i) mod N's rank of index l to the next node's, receive that of node (n - i - 1) mod N
 * from the previous one. Now every rank holds the "group" of its local index: the blocks
 * of the N ranks of that index. Phase 2, L-1 ring steps inside the node: in step t send
 * group (l - t) mod L to local rank l + 1, receive group (l - t - 1) mod L from l - 1. A
 * group is N blocks, sent as few messages as their places allow (blocks adjacent in RECV
 * go as one: with ranks alternating between nodes, rank l * N + k is local rank l of node
 * k, and a group is one contiguous run). Receives are posted before sends; a fence closes
 * every step; empty blocks are not transferred.
 *
 * Cost (B bytes gathered, b = B/(N L) per block): across nodes (N-1) (alpha_x + b beta_x);
 * inside a node (L-1) (alpha_n + N b beta_n), one alpha per message of a group when its
 * blocks are not adjacent. A flat ring over the N L ranks pays (N L - 1) steps, each across
 * a node boundary for one rank per node (for every rank when the ranks alternate between
 * nodes); here each rank sends only (N-1) b across, all L ranks of a node at once.
 * Chosen instead of ring (select.c: above DFC_ALLGATHER_SHORT_MAX gathered, with N within
 * DFC_ALLGATHER_RING_MAX_RANKS) when the layout holds; DFC_ALLGATHER_ALGORITHM=hierarchical
 * (and DFC_ALLGATHERV_ALGORITHM=hierarchical, never the default) forces it wherever it
 * holds. The GPU daemon runs it too, its steps to other nodes through the host proxy.
 */
#include "coll/dfc_coll.h"

int dfc_coll_allgather_hierarchical_usable(const dfc_coll_args_t *a)
{
    return dfc_coll_hier_nodes(a) > 0;
}

/* Sends (send != 0) or receives the group of local index g to or from peer: the blocks of
 * ranks[k * L + g], k = 0 .. N-1, adjacent ones merged into one transfer. Both sides walk
 * the same list, so their messages match. */
static int group_xfer(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h, int g,
                      int peer, int send)
{
    uint64_t off = 0, len = 0;
    for (int k = 0; k <= h->nnodes; k++) {
        int p = k < h->nnodes ? h->ranks[k * h->nlocal + g] : -1;
        if (p >= 0 && len && dfc_coll_allgather_block_off(a, p) == off + len) {
            len += dfc_coll_allgather_block_len(a, p);
            continue;
        }
        if (len && send) DFC_TRY(dfc_sched_send(s, peer, DFC_BUF_RECV, off, len));
        else if (len) DFC_TRY(dfc_sched_recv(s, peer, DFC_BUF_RECV, off, len));
        if (p >= 0)
            off = dfc_coll_allgather_block_off(a, p), len = dfc_coll_allgather_block_len(a, p);
    }
    return DFC_SUCCESS;
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int N = h->nnodes, L = h->nlocal, n = h->node[a->rank], l = h->local[a->rank];
    if (!a->in_place)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_RECV,
                               dfc_coll_allgather_block_off(a, a->rank),
                               dfc_coll_allgather_block_len(a, a->rank)));
    int right = h->ranks[dfc_coll_mod(n + 1, N) * L + l],
        left = h->ranks[dfc_coll_mod(n - 1, N) * L + l];
    for (int i = 0; i < N - 1; i++) {
        int sb = h->ranks[dfc_coll_mod(n - i, N) * L + l],
            rb = h->ranks[dfc_coll_mod(n - i - 1, N) * L + l];
        if (dfc_coll_allgather_block_len(a, rb))
            DFC_TRY(dfc_sched_recv(s, left, DFC_BUF_RECV, dfc_coll_allgather_block_off(a, rb),
                                   dfc_coll_allgather_block_len(a, rb)));
        if (dfc_coll_allgather_block_len(a, sb))
            DFC_TRY(dfc_sched_send(s, right, DFC_BUF_RECV, dfc_coll_allgather_block_off(a, sb),
                                   dfc_coll_allgather_block_len(a, sb)));
        DFC_TRY(dfc_sched_fence(s));
    }
    right = h->ranks[n * L + dfc_coll_mod(l + 1, L)],
    left = h->ranks[n * L + dfc_coll_mod(l - 1, L)];
    for (int t = 0; t < L - 1; t++) {
        DFC_TRY(group_xfer(s, a, h, dfc_coll_mod(l - t - 1, L), left, 0));
        DFC_TRY(group_xfer(s, a, h, dfc_coll_mod(l - t, L), right, 1));
        DFC_TRY(dfc_sched_fence(s));
    }
    return DFC_SUCCESS;
}

int dfc_coll_allgather_hierarchical_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    if (a->kind != DFC_COLL_ALLGATHER && a->kind != DFC_COLL_ALLGATHERV)
        return DFC_ERR(DFC_ERR_INTERN, "allgather_hierarchical cannot build collective kind %d",
                       (int)a->kind);
    return dfc_coll_hier_build(a, s, "allgather", 1, build);
}
