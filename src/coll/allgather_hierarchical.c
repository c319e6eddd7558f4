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
 * every step; empty blocks are not transferred. On unequal nodes (hier_layout.c) the core
 * runs this with each core rank carrying, beside its own, the blocks of the surplus ranks
 * behind it (in rank order): a surplus rank hands its block to its partner first (fold in)
 * and gets every block from it last (fold out), (p - 1) b more inside its node.
 *
 * Cost (B bytes gathered, b = B/(N L) per block): across nodes (N-1) (alpha_x + b beta_x);
 * inside a node (L-1) (alpha_n + N b beta_n), one alpha per message of a group when its
 * blocks are not adjacent. A flat ring over the N L ranks pays (N L - 1) steps, each across
 * a node boundary for one rank per node (for every rank when the ranks alternate between
 * nodes); here each rank sends only (N-1) b across, all L ranks of a node at once.
 * Chosen instead of ring (select.c: above DFC_ALLGATHER_SHORT_MAX gathered, with N within
 * DFC_ALLGATHER_RING_MAX_RANKS) when the layout holds; DFC_ALLGATHER_ALGORITHM=hierarchical
 * (and DFC_ALLGATHERV_ALGORITHM=hierarchical, never the default) forces it wherever it
 * holds; on unequal nodes by default from 8 x DFC_ALLGATHER_SHORT_MAX gathered (select.c).
 * The GPU daemon runs it too, its steps to other nodes through the host proxy, not yet on
 * unequal nodes (gpu.c).
 */
#include <stdlib.h>

#include "coll/dfc_coll.h"

int dfc_coll_allgather_hierarchical_usable(const dfc_coll_args_t *a)
{
    return dfc_coll_hier_nodes(a) > 0;
}

/* The ranks whose blocks local index l of node k carries, in rank order: its core rank and,
 * on unequal nodes, the surplus ranks behind it (hier_layout.c). Returns how many. */
static int carried(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, int k, int l, int *out)
{
    int n = 0, core = h->ranks[k * h->nlocal + l];
    if (!h->nsurplus) {
        out[0] = core;
        return 1;
    }
    for (int p = 0; p < a->size; p++)
        if (p == core || h->partner[p] == core) out[n++] = p;
    return n;
}

/* Sends (send != 0) or receives the blocks of the ranks list[0 .. n-1] in RECV to or from
 * peer, adjacent ones merged into one transfer, empty ones skipped. Both sides walk the same
 * list, so their messages match. */
static int blocks_xfer(dfc_sched_t *s, const dfc_coll_args_t *a, const int *list, int n, int peer,
                       int send)
{
    uint64_t off = 0, len = 0;
    for (int i = 0; i <= n; i++) {
        int p = i < n ? list[i] : -1;
        if (p >= 0 && dfc_coll_allgather_block_off(a, p) == off + len) {
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

/* Sends or receives the group of local index g: the blocks carried by ranks[k * L + g],
 * k = 0 .. N-1 (list: room for every rank). */
static int group_xfer(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h, int g,
                      int peer, int send, int *list)
{
    int n = 0;
    for (int k = 0; k < h->nnodes; k++) n += carried(a, h, k, g, list + n);
    return blocks_xfer(s, a, list, n, peer, send);
}

/* The folds of unequal nodes: a surplus rank's block to its partner first; everything to
 * the surplus rank last (every block, in rank order). */
static int fold_block_in(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h)
{
    int me = a->rank, sent = 0;
    if (h->partner[me] >= 0) {
        uint64_t len = dfc_coll_allgather_block_len(a, me);
        if (!len) return DFC_SUCCESS;
        DFC_TRY(dfc_sched_send(s, h->partner[me], a->in_place ? DFC_BUF_RECV : DFC_BUF_SEND,
                               a->in_place ? dfc_coll_allgather_block_off(a, me) : 0, len));
        return dfc_sched_fence(s);
    }
    for (int q = 0; q < a->size; q++)
        if (h->partner[q] == me && dfc_coll_allgather_block_len(a, q)) {
            DFC_TRY(dfc_sched_recv(s, q, DFC_BUF_RECV, dfc_coll_allgather_block_off(a, q),
                                   dfc_coll_allgather_block_len(a, q)));
            sent = 1;
        }
    return sent ? dfc_sched_fence(s) : DFC_SUCCESS;
}

static int fold_blocks_out(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h,
                           int *list)
{
    int me = a->rank, any = 0;
    for (int p = 0; p < a->size; p++) list[p] = p;
    if (h->partner[me] >= 0) {
        DFC_TRY(blocks_xfer(s, a, list, a->size, h->partner[me], 0));
        return dfc_sched_fence(s);
    }
    for (int q = 0; q < a->size; q++)
        if (h->partner[q] == me) {
            DFC_TRY(blocks_xfer(s, a, list, a->size, q, 1));
            any = 1;
        }
    return any ? dfc_sched_fence(s) : DFC_SUCCESS;
}

static int phases(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s, int *list)
{
    int N = h->nnodes, L = h->nlocal, n = h->node[a->rank], l = h->local[a->rank];
    DFC_TRY(fold_block_in(s, a, h));
    int right = h->ranks[dfc_coll_mod(n + 1, N) * L + l],
        left = h->ranks[dfc_coll_mod(n - 1, N) * L + l];
    for (int i = 0; i < N - 1; i++) { /* across nodes: what local index l of each node carries */
        int k = carried(a, h, dfc_coll_mod(n - i - 1, N), l, list);
        DFC_TRY(blocks_xfer(s, a, list, k, left, 0));
        k = carried(a, h, dfc_coll_mod(n - i, N), l, list);
        DFC_TRY(blocks_xfer(s, a, list, k, right, 1));
        DFC_TRY(dfc_sched_fence(s));
    }
    right = h->ranks[n * L + dfc_coll_mod(l + 1, L)],
    left = h->ranks[n * L + dfc_coll_mod(l - 1, L)];
    for (int t = 0; t < L - 1; t++) {
        DFC_TRY(group_xfer(s, a, h, dfc_coll_mod(l - t - 1, L), left, 0, list));
        DFC_TRY(group_xfer(s, a, h, dfc_coll_mod(l - t, L), right, 1, list));
        DFC_TRY(dfc_sched_fence(s));
    }
    return fold_blocks_out(s, a, h, list);
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    if (!a->in_place)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_RECV,
                               dfc_coll_allgather_block_off(a, a->rank),
                               dfc_coll_allgather_block_len(a, a->rank)));
    int *list = malloc((size_t)a->size * sizeof(int));
    if (!list) return DFC_ERR(DFC_ERR_NO_MEM, "hierarchical allgather: out of memory");
    int rc;
    if (h->partner[a->rank] < 0) rc = phases(a, h, s, list);
    else if ((rc = fold_block_in(s, a, h)) == DFC_SUCCESS)
        rc = fold_blocks_out(s, a, h, list); /* surplus */
    free(list);
    return rc;
}

int dfc_coll_allgather_hierarchical_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    if (a->kind != DFC_COLL_ALLGATHER && a->kind != DFC_COLL_ALLGATHERV)
        return DFC_ERR(DFC_ERR_INTERN, "allgather_hierarchical cannot build collective kind %d",
                       (int)a->kind);
    return dfc_coll_hier_build(a, s, "allgather", 1, build);
}
