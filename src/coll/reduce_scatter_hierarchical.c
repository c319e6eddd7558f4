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
 * received piece is reduced in through scratch in TMP; a fence closes every step.
 *
 * Unequal nodes (the core is N x L, L the smallest node's count; hier_layout.c): a core
 * rank's "set" is its block and the blocks of the surplus ranks behind it, and the groups and
 * phases above move sets where they moved blocks. A surplus rank first hands its whole input
 * to its partner, which reduces it into W in the core's L chunks
 * (dfc_coll_hier_fold_in); after phase 2 the partner holds its set summed over all and sends
 * each surplus rank its block. The
 * reduction order follows the rings, not the rank order: commutative ops only. TMP holds
 * the whole input and one group (pairwise keeps its receive space below 16 MiB): the
 * price of reducing every group in place.
 *
 * Cost (m = total input bytes): inside a node (L-1) alpha_n + (L-1)/L m beta_n +
 * (L-1)/L m gamma; across nodes (N-1) alpha_x + (N-1)/(N L) m (beta_x + gamma), with one
 * alpha more per message of a group whose blocks are not adjacent. A surplus rank adds, on
 * its partner's critical path, L alpha_n + m (beta_n + gamma) before and alpha_n + its
 * block's beta_n after; the sets grow the groups by the surplus ranks' blocks. Pairwise exchange
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
    int *member;    /* the sets' ranks: set i (core slot node * L + local) is */
    int *first;     /*   member[first[i] .. first[i + 1]), its core rank first */
    uint64_t w, scratch;
} rs_ctx_t;

/* Sends (send) or receives and reduces in W's items [start, end), a receive through scratch
 * at *tmp (then moved past it). */
static int piece_xfer(const rs_ctx_t *c, uint64_t start, uint64_t end, int peer, int send,
                      uint64_t *tmp)
{
    uint64_t elem = c->a->elem;
    if (end <= start) return DFC_SUCCESS;
    if (send)
        return dfc_sched_send(c->s, peer, DFC_BUF_TMP, c->w + start * elem, (end - start) * elem);
    DFC_TRY(dfc_sched_recv_reduce(c->s, peer, DFC_BUF_TMP, c->w + start * elem, end - start,
                                  (end - start) * elem, *tmp, DFC_REDUCE_IN_FIRST));
    *tmp += (end - start) * elem;
    return DFC_SUCCESS;
}

/* Sends (send) or receives and reduces in the blocks of the sets set0, set0 + stride, ...
 * (k of them): adjacent blocks as one message. Both sides walk the same sets. Receives land
 * in scratch, one after the other. */
static int sets_xfer(const rs_ctx_t *c, int set0, int k, int stride, int peer, int send)
{
    uint64_t start = 0, end = 0, tmp = c->scratch;
    for (int i = 0; i < k; i++) {
        int set = set0 + i * stride;
        for (int m = c->first[set]; m < c->first[set + 1]; m++) {
            int p = c->member[m];
            if (end > start && c->disp[p] == end) {
                end = c->disp[p + 1];
                continue;
            }
            DFC_TRY(piece_xfer(c, start, end, peer, send, &tmp));
            start = c->disp[p], end = c->disp[p + 1];
        }
    }
    return piece_xfer(c, start, end, peer, send, &tmp);
}

/* The items of set i. */
static uint64_t set_items(const rs_ctx_t *c, int i)
{
    uint64_t sum = 0;
    for (int m = c->first[i]; m < c->first[i + 1]; m++)
        sum += c->disp[c->member[m] + 1] - c->disp[c->member[m]];
    return sum;
}

/* A surplus rank: its input to the partner (the fold), then its block back. */
static int build_surplus(const rs_ctx_t *c, uint64_t total)
{
    const dfc_coll_args_t *a = c->a;
    dfc_coll_args_t whole = *a;
    whole.count = total; /* the fold moves the whole input vector */
    DFC_TRY(dfc_coll_hier_fold_in(c->s, &whole, c->h, DFC_BUF_TMP, 0, 0));
    uint64_t mine = c->disp[a->rank + 1] - c->disp[a->rank];
    if (!mine) return DFC_SUCCESS;
    DFC_TRY(dfc_sched_recv(c->s, c->h->partner[a->rank], DFC_BUF_RECV, 0, mine * a->elem));
    return dfc_sched_fence(c->s);
}

static int build_core(rs_ctx_t *c, uint64_t total)
{
    const dfc_coll_args_t *a = c->a;
    const dfc_hier_layout_t *h = c->h;
    dfc_sched_t *s = c->s;
    int N = h->nnodes, L = h->nlocal, n = h->node[a->rank], l = h->local[a->rank];
    uint64_t elem = a->elem, group_max = (total + L - 1) / L + 1; /* also a fold chunk */
    for (int g = 0; g < L; g++) {                                 /* scratch: the largest group */
        uint64_t sum = 0;
        for (int k = 0; k < N; k++) sum += set_items(c, k * L + g);
        group_max = DFC_MAX2(group_max, sum);
    }
    c->w = dfc_sched_tmp(s, total * elem);
    c->scratch = dfc_sched_tmp(s, group_max * elem);
    DFC_TRY(dfc_sched_copy(s, dfc_coll_input_buf(a), 0, DFC_BUF_TMP, c->w, total * elem));
    if (h->nsurplus) {
        dfc_coll_args_t whole = *a;
        whole.count = total;
        DFC_TRY(dfc_sched_fence(s)); /* the surplus ranks' inputs reduce into the copy */
        DFC_TRY(dfc_coll_hier_fold_in(s, &whole, h, DFC_BUF_TMP, c->w, c->scratch));
    }
    int right = h->ranks[n * L + dfc_coll_mod(l + 1, L)],
        left = h->ranks[n * L + dfc_coll_mod(l - 1, L)];
    for (int j = 0; j < L - 1; j++) {
        DFC_TRY(sets_xfer(c, dfc_coll_mod(l - j - 1, L), N, L, right, 1));
        DFC_TRY(sets_xfer(c, dfc_coll_mod(l - j - 2, L), N, L, left, 0));
        DFC_TRY(dfc_sched_fence(s));
    }
    right = h->ranks[dfc_coll_mod(n + 1, N) * L + l],
    left = h->ranks[dfc_coll_mod(n - 1, N) * L + l];
    for (int j = 0; j < N - 1; j++) {
        DFC_TRY(sets_xfer(c, dfc_coll_mod(n - j - 1, N) * L + l, 1, 1, right, 1));
        DFC_TRY(sets_xfer(c, dfc_coll_mod(n - j - 2, N) * L + l, 1, 1, left, 0));
        DFC_TRY(dfc_sched_fence(s));
    }
    for (int m = c->first[n * L + l]; m < c->first[n * L + l + 1]; m++) { /* me, then surplus */
        int q = c->member[m];
        uint64_t items = c->disp[q + 1] - c->disp[q];
        if (!items) continue;
        if (q == a->rank)
            DFC_TRY(dfc_sched_copy(s, DFC_BUF_TMP, c->w + c->disp[q] * elem, DFC_BUF_RECV, 0,
                                   items * elem));
        else DFC_TRY(dfc_sched_send(s, q, DFC_BUF_TMP, c->w + c->disp[q] * elem, items * elem));
    }
    return dfc_sched_fence(s);
}

/* The sets: core slot i's rank, then the surplus ranks whose partner it is, in rank order. */
static void make_sets(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, int *member, int *first)
{
    int slots = h->nnodes * h->nlocal, m = 0;
    for (int i = 0; i < slots; i++) {
        first[i] = m;
        member[m++] = h->ranks[i];
        for (int q = 0; q < a->size; q++)
            if (h->partner[q] == h->ranks[i]) member[m++] = q;
    }
    first[slots] = m;
}

/* Items of rank r's block. */
static uint64_t block_items(const dfc_coll_args_t *a, int r)
{
    return a->kind == DFC_COLL_REDUCE_SCATTER_BLOCK ? a->count : (uint64_t)a->rcounts[r];
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int p = a->size, slots = h->nnodes * h->nlocal;
    uint64_t *disp = malloc((size_t)(p + 1) * sizeof *disp);
    int *member = malloc((size_t)p * sizeof(int)),
        *first = malloc((size_t)(slots + 1) * sizeof(int));
    int rc = DFC_ERR(DFC_ERR_NO_MEM, "hierarchical reduce_scatter: out of memory");
    if (disp && member && first) {
        disp[0] = 0;
        for (int r = 0; r < p; r++) disp[r + 1] = disp[r] + block_items(a, r);
        make_sets(a, h, member, first);
        rs_ctx_t c = {s, a, h, disp, member, first, 0, 0};
        rc = h->partner[a->rank] >= 0 ? build_surplus(&c, disp[p]) : build_core(&c, disp[p]);
    }
    free(disp);
    free(member);
    free(first);
    return rc;
}

int dfc_coll_reduce_scatter_hierarchical_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    uint64_t items = 0;
    for (int r = 0; r < a->size; r++) items += block_items(a, r);
    return dfc_coll_hier_build(a, s, "reduce_scatter", items * a->elem != 0, build);
}
