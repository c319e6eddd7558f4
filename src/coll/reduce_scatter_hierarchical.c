/*
 * reduce_scatter_hierarchical.c - two-level reduce_scatter and reduce_scatter_block for
 * communicators that span several nodes (commutative ops): a ring reduce-scatter inside each
 * node by local index, then a ring reduce-scatter across nodes among the ranks of equal
 * local index.
 *
 * Layout (hier_layout.c): N nodes of L >= 2 ranks each; rank r is local rank l of node n.
 * The "group" of local index g is the blocks of the N ranks ranks[k * L + g] (k = 0..N-1).
 * The whole input is copied into W (TMP; in place, from RECV). Phase 1, L-1 ring steps
 * inside the node: in step j send group (l - j - 1) mod L of W to local rank l + 1, receive
 * group (l - j - 2) mod L from l - 1 and reduce it into W; afterwards W holds group l summed
 * over the node. Phase 2, N-1 ring steps among the ranks of local index l: in step j send
 * the block of node (n - j - 1) mod N's rank, receive that of node (n - j - 2) mod N and
 * reduce it in; afterwards W holds this rank's block summed over all. It is copied to RECV.
 * A group goes as few messages as its blocks' places allow (adjacent blocks as one); a
 * received piece is reduced in through scratch in TMP; a fence closes every step. The
 * reduction order follows the rings, not the rank order: commutative ops only. TMP holds
 * the whole input and one group (pairwise keeps its receive space below 16 MiB): the
 * price of reducing every group in place.
 *
 * Cost (m = total input bytes): inside a node (L-1) alpha_n + (L-1)/L m beta_n +
 * (L-1)/L m gamma; across nodes (N-1) alpha_x + (N-1)/(N L) m (beta_x + gamma), with one
 * alpha more per message of a group whose blocks are not adjacent. Pairwise exchange
 * pays (N L - 1) alpha and sends (N L - 1)/(N L) m from every rank, (N - 1)/N of it across
 * nodes; here each rank sends only 1/L of that across. Never chosen by default: on 2
 * cores with simulated nodes (tcp over loopback, where traffic across nodes costs about
 * what shm does) it took 0.66-1.62x pairwise's time at 512 KiB-4 MiB (BENCHMARKS.md), its
 * L + N - 2 fenced steps and the copy of the input against pairwise's one window.
 * DFC_REDUCE_SCATTER_BLOCK_ALGORITHM=hierarchical (and DFC_REDUCE_SCATTER_ALGORITHM) forces
 * it wherever the layout holds and the op commutes. The GPU daemon runs it too.
 */
#include <stdlib.h>

#include "coll/dfc_coll.h"

int dfc_coll_reduce_scatter_hierarchical_usable(const dfc_coll_args_t *a)
{
    return a->commutative && dfc_coll_hier_nodes(a) > 0;
}

typedef struct rs_ctx {
    dfc_sched_t *s;
    const dfc_coll_args_t *a;
    const dfc_hier_layout_t *h;
    uint64_t *disp; /* items before block p, p = 0..size */
    uint64_t w, scratch;
} rs_ctx_t;

/* Sends (send) or receives and reduces in the blocks of the ranks list[0..k): adjacent ones
 * as one message. Both sides walk the same list. Receives land in scratch, one after the
 * other. */
static int blocks_xfer(const rs_ctx_t *c, const int *list, int k, int stride, int peer, int send)
{
    uint64_t elem = c->a->elem, start = 0, end = 0, tmp = c->scratch;
    for (int i = 0; i <= k; i++) {
        int p = i < k ? list[i * stride] : -1;
        if (p >= 0 && end > start && c->disp[p] == end) {
            end = c->disp[p + 1];
            continue;
        }
        if (end > start && send)
            DFC_TRY(
                dfc_sched_send(c->s, peer, DFC_BUF_TMP, c->w + start * elem, (end - start) * elem));
        else if (end > start) {
            DFC_TRY(dfc_sched_recv_reduce(c->s, peer, DFC_BUF_TMP, c->w + start * elem, end - start,
                                          (end - start) * elem, tmp, DFC_REDUCE_IN_FIRST));
            tmp += (end - start) * elem;
        }
        if (p >= 0) start = c->disp[p], end = c->disp[p + 1];
    }
    return DFC_SUCCESS;
}

static int build_blocks(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, uint64_t *disp,
                        dfc_sched_t *s)
{
    int N = h->nnodes, L = h->nlocal, n = h->node[a->rank], l = h->local[a->rank], p = a->size;
    uint64_t elem = a->elem, total = disp[p], group_max = 0;
    for (int g = 0; g < L; g++) { /* scratch: the largest group */
        uint64_t sum = 0;
        for (int k = 0; k < N; k++) {
            int r = h->ranks[k * L + g];
            sum += disp[r + 1] - disp[r];
        }
        group_max = DFC_MAX2(group_max, sum);
    }
    rs_ctx_t c = {s, a, h, disp, dfc_sched_tmp(s, total * elem), 0};
    c.scratch = dfc_sched_tmp(s, group_max * elem);
    DFC_TRY(dfc_sched_copy(s, dfc_coll_input_buf(a), 0, DFC_BUF_TMP, c.w, total * elem));
    int right = h->ranks[n * L + dfc_coll_mod(l + 1, L)],
        left = h->ranks[n * L + dfc_coll_mod(l - 1, L)];
    for (int j = 0; j < L - 1; j++) {
        DFC_TRY(blocks_xfer(&c, &h->ranks[dfc_coll_mod(l - j - 1, L)], N, L, right, 1));
        DFC_TRY(blocks_xfer(&c, &h->ranks[dfc_coll_mod(l - j - 2, L)], N, L, left, 0));
        DFC_TRY(dfc_sched_fence(s));
    }
    right = h->ranks[dfc_coll_mod(n + 1, N) * L + l],
    left = h->ranks[dfc_coll_mod(n - 1, N) * L + l];
    for (int j = 0; j < N - 1; j++) {
        DFC_TRY(blocks_xfer(&c, &h->ranks[dfc_coll_mod(n - j - 1, N) * L + l], 1, 1, right, 1));
        DFC_TRY(blocks_xfer(&c, &h->ranks[dfc_coll_mod(n - j - 2, N) * L + l], 1, 1, left, 0));
        DFC_TRY(dfc_sched_fence(s));
    }
    uint64_t mine = disp[a->rank + 1] - disp[a->rank];
    if (mine)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_TMP, c.w + disp[a->rank] * elem, DFC_BUF_RECV, 0,
                               mine * elem));
    return dfc_sched_fence(s);
}

/* Items of rank r's block. */
static uint64_t block_items(const dfc_coll_args_t *a, int r)
{
    return a->kind == DFC_COLL_REDUCE_SCATTER_BLOCK ? a->count : (uint64_t)a->rcounts[r];
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int p = a->size;
    uint64_t *disp = malloc((size_t)(p + 1) * sizeof *disp);
    if (!disp) return DFC_ERR(DFC_ERR_NO_MEM, "hierarchical reduce_scatter: out of memory");
    disp[0] = 0;
    for (int r = 0; r < p; r++) disp[r + 1] = disp[r] + block_items(a, r);
    int rc = build_blocks(a, h, disp, s);
    free(disp);
    return rc;
}

int dfc_coll_reduce_scatter_hierarchical_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    uint64_t items = 0;
    for (int r = 0; r < a->size; r++) items += block_items(a, r);
    return dfc_coll_hier_build(a, s, "reduce_scatter", items * a->elem != 0, build);
}
