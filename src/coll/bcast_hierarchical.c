/*
 * bcast_hierarchical.c - two-level broadcast for communicators that span several nodes:
 * a scatter inside the root's node, a broadcast across nodes among the ranks of equal local
 * index (each carrying one chunk), a ring allgather inside every node.
 *
 * Layout (hier_layout.c): N nodes of L >= 2 ranks each; the root is local rank lr of node
 * nr. The B-byte message is cut into L chunks (the first B%L one byte larger). Phase 1: the
 * root sends chunk j to local rank j of its node (j != lr), all at once. Phase 2: for every
 * l, local rank l of node nr broadcasts chunk l to the ranks of local index l on the other
 * nodes: a binomial tree over the N nodes, or (N >= 4 and the chunk at least N bytes) van
 * de Geijn's scatter_allgather, or in the GPU daemon on a ring of rails (a->gpu ==
 * DFC_COLL_GPU_RING, whose daemons link neighbouring nodes only) a pipelined chain around
 * the nodes (bcast_chain.c); the schedule is the group's own (bcast_binomial.c,
 * bcast_scatter_allgather.c) embedded with its ranks renamed. Now local rank l of every
 * node holds chunk l. Phase 3: L-1 ring steps inside each node: local rank l sends chunk
 * (l - t) mod L to l + 1 and receives chunk (l - t - 1) mod L from l - 1; the root, which
 * has them all, receives nothing (its buffer is never written) and its left neighbour sends
 * it nothing. The buffer is RECV on every rank; a fence closes every step. On unequal
 * nodes (hier_layout.c) the core runs this and each core rank then sends the whole message
 * to the surplus ranks behind it (the fold out); a surplus root sends every local index of
 * its node its chunk in phase 1 (lr is beyond the core), takes no further part, and its
 * partner's fold out passes it by.
 *
 * Cost (B bytes): inside a node (L-1) alpha_n + (L-1)/L B beta_n (phase 1, the root's
 * sends; L alpha_n + B beta_n from a surplus root) and (L-1) (alpha_n + B/L beta_n) (phase 3); across nodes a broadcast of B/L bytes
 * over N: ceil(log2 N) (alpha_x + B/L beta_x), or about (log2 N + N - 1) alpha_x +
 * 2 (N-1)/N B/L beta_x. A flat scatter_allgather over the N L ranks carries its ring across
 * each node boundary through one rank per step (at every step when the ranks alternate
 * between nodes); here all L ranks of a node cross at once, each with 1/L of the message.
 * Chosen instead of scatter_allgather (select.c: from DFC_BCAST_SCATTER_ALLGATHER_MIN) when
 * the layout holds; DFC_BCAST_ALGORITHM=hierarchical forces it wherever it holds. The GPU
 * daemon runs it too (plain transfers), its steps to other nodes through the host proxy.
 */
#include <stdlib.h>

#include "coll/dfc_coll.h"

int dfc_coll_bcast_hierarchical_usable(const dfc_coll_args_t *a)
{
    return dfc_coll_hier_nodes(a) > 0;
}

/* Phase 2 for this rank's local index l: the broadcast of chunk [off, off + len) among the
 * ranks ranks[k * L + l], k = 0 .. N-1, rooted at node nr. */
static int across(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, int nr, uint64_t off,
                  uint64_t len, dfc_sched_t *s)
{
    int N = h->nnodes, L = h->nlocal, l = h->local[a->rank];
    int *group = malloc((size_t)N * sizeof(int));
    if (!group) return DFC_ERR(DFC_ERR_NO_MEM, "hierarchical bcast: out of memory");
    for (int k = 0; k < N; k++) group[k] = h->ranks[k * L + l];
    dfc_coll_args_t g = *a;
    g.rank = h->node[a->rank];
    g.size = N;
    g.root = nr;
    g.count = len;
    g.elem = 1;
    g.world = g.world_node = NULL;
    dfc_sched_t sub;
    dfc_sched_init(&sub);
    int rc = a->gpu == DFC_COLL_GPU_RING ? dfc_coll_bcast_chain_build(&g, &sub) /* neighbours */
             : N >= 4 && dfc_coll_bcast_scatter_allgather_usable(&g)
                 ? dfc_coll_bcast_scatter_allgather_build(&g, &sub)
                 : dfc_coll_bcast_binomial_build(&g, &sub);
    if (rc == DFC_SUCCESS) rc = dfc_coll_hier_embed(s, &sub, group, off);
    dfc_sched_destroy(&sub);
    free(group);
    return rc;
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int L = h->nlocal, n = h->node[a->rank], l = h->local[a->rank];
    int nr = h->node[a->root], lr = h->local[a->root];
    uint64_t bytes = a->count * a->elem;
    int surplus = h->partner[a->rank] >= 0;
    if (surplus && a->rank != a->root) return dfc_coll_hier_fold_out(s, a, h, bytes, a->root);
#define OFF(j) dfc_coll_chunk_start(bytes, L, (j))
#define LEN(j) (OFF((j) + 1) - OFF(j))
    /* Phase 1: the root's node (a surplus root hands out every chunk and is done). */
    if (a->rank == a->root) {
        for (int j = 0; j < L; j++)
            if (j != lr && LEN(j))
                DFC_TRY(dfc_sched_send(s, h->ranks[n * L + j], DFC_BUF_RECV, OFF(j), LEN(j)));
        DFC_TRY(dfc_sched_fence(s));
        if (surplus) return DFC_SUCCESS;
    } else if (n == nr && LEN(l)) {
        DFC_TRY(dfc_sched_recv(s, a->root, DFC_BUF_RECV, OFF(l), LEN(l)));
        DFC_TRY(dfc_sched_fence(s));
    }
    /* Phase 2: across nodes, chunk l. */
    if (LEN(l)) DFC_TRY(across(a, h, nr, OFF(l), LEN(l), s));
    /* Phase 3: ring allgather inside the node. */
    int right = h->ranks[n * L + dfc_coll_mod(l + 1, L)],
        left = h->ranks[n * L + dfc_coll_mod(l - 1, L)];
    for (int t = 0; t < L - 1; t++) {
        int sj = dfc_coll_mod(l - t, L), rj = dfc_coll_mod(l - t - 1, L);
        if (LEN(rj) && a->rank != a->root)
            DFC_TRY(dfc_sched_recv(s, left, DFC_BUF_RECV, OFF(rj), LEN(rj)));
        if (LEN(sj) && right != a->root)
            DFC_TRY(dfc_sched_send(s, right, DFC_BUF_RECV, OFF(sj), LEN(sj)));
        DFC_TRY(dfc_sched_fence(s));
    }
#undef OFF
#undef LEN
    return dfc_coll_hier_fold_out(s, a, h, bytes, a->root); /* to unequal nodes' surplus ranks */
}

int dfc_coll_bcast_hierarchical_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    return dfc_coll_hier_build(a, s, "bcast", a->count * a->elem != 0, build);
}
