/*
 * hier_layout.c - what the hierarchical algorithms (*_hierarchical.c) share: the layout of
 * a communicator over the nodes of the job, the folding of the ranks that do not fit it,
 * and the embedding of a schedule built for a group of the communicator (one rank per node,
 * say) into this rank's schedule.
 *
 * Layout: the node of each rank comes from the job's node map (a->world, a->world_node);
 * nodes are numbered by the first rank on them and local indices in communicator-rank
 * order, the same on every rank. A hierarchical algorithm applies when there are N >= 2
 * nodes holding at least L >= 2 of the communicator's ranks each. The core is the first L
 * local indices of every node, an N x L grid that the algorithms walk. When the nodes are
 * unequal (srun -n 5 over 2 nodes: 3 and 2), the ranks beyond the core are the surplus:
 * surplus local index j stands behind the core rank of its node at index j mod L, its
 * partner. A rooted call's root may be a surplus rank: it stays where it is (bcast's root
 * hands the core of its node their chunks, reduce's core hands it theirs), so the core's
 * local indices are the same for every root, and in the GPU daemon the core's steps across
 * nodes stay on the rails whatever the root (trading the root with its partner, as before,
 * took the call off the rails: staged, BENCHMARKS.md stop 38). The algorithms that fold
 * (bcast, reduce, allreduce here; allgather(v) and reduce_scatter(_block) in their files,
 * the partners carrying the surplus' blocks; reduce_scatter folds in here) run the core's
 * schedule plus, inside each node, a fold in (the surplus' inputs reduced into their
 * partners', before) and a fold out (the result handed to them, after). Gather and scatter
 * do not fold: a node's leader carries the blocks of all its ranks, surplus included
 * (dfc_coll_hier_node_xfer); alltoall's core ranks carry their surplus ranks' blocks
 * across nodes and hand them on (alltoall_hierarchical.c).
 *
 * Fold cost on a node with s surplus ranks (m bytes): each partner takes ceil(s/L) vectors,
 * alpha_n + m (beta_n + gamma) apiece, and sends as many results back, alpha_n + m beta_n:
 * one extra shm round beside the core's 2 (L-1)/L m, where a flat algorithm over the N L + s
 * ranks would cross nodes at more places.
 */
#include <stdlib.h>

#include "coll/dfc_coll.h"

void dfc_coll_hier_layout_free(dfc_hier_layout_t *h)
{
    free(h->node);
    free(h->local);
    free(h->ranks);
    free(h->partner);
    h->node = h->local = h->ranks = h->partner = NULL;
}

/* The core of N nodes of at least L ranks each (fill[n] ranks on node n, local indices
 * set), the surplus behind their partners. */
static int core_of(const dfc_coll_args_t *a, const int *fill, dfc_hier_layout_t *h)
{
    int p = a->size, L = fill[0];
    for (int n = 1; n < h->nnodes; n++) L = DFC_MIN2(L, fill[n]);
    if (h->nnodes < 2 || L < 2) return 0;
    h->nlocal = L;
    h->ranks = malloc((size_t)h->nnodes * L * sizeof(int));
    h->partner = malloc((size_t)p * sizeof(int));
    if (!h->ranks || !h->partner) return 0;
    for (int r = 0; r < p; r++)
        if (h->local[r] < L) h->ranks[h->node[r] * L + h->local[r]] = r;
    for (int r = 0; r < p; r++) {
        h->partner[r] = h->local[r] < L ? -1 : h->ranks[h->node[r] * L + h->local[r] % L];
        h->nsurplus += h->local[r] >= L;
    }
    return 1;
}

int dfc_coll_hier_layout(const dfc_coll_args_t *a, dfc_hier_layout_t *h)
{
    int p = a->size, top = -1;
    *h = (dfc_hier_layout_t){0};
    if (!a->world || !a->world_node || p < 4) return 0;
    h->size = p;
    for (int r = 0; r < p; r++) top = DFC_MAX2(top, a->world_node[a->world[r]]);
    h->node = malloc((size_t)p * sizeof(int));
    h->local = malloc((size_t)p * sizeof(int));
    int *number = malloc((size_t)(top + 1) * sizeof(int)), *fill = calloc((size_t)p, sizeof(int));
    int ok = h->node && h->local && number && fill;
    for (int j = 0; ok && j <= top; j++) number[j] = -1;
    for (int r = 0; ok && r < p; r++) { /* nodes numbered by first appearance */
        int *n = &number[a->world_node[a->world[r]]];
        if (*n < 0) *n = h->nnodes++;
        h->node[r] = *n;
        h->local[r] = fill[*n]++;
    }
    ok = ok && core_of(a, fill, h);
    free(number);
    free(fill);
    if (ok) return 1;
    dfc_coll_hier_layout_free(h);
    return 0;
}

int dfc_coll_hier_nodes(const dfc_coll_args_t *a)
{
    dfc_hier_layout_t h;
    if (!dfc_coll_hier_layout(a, &h)) return 0;
    dfc_coll_hier_layout_free(&h);
    return h.nnodes; /* every hierarchical algorithm takes unequal nodes */
}

int dfc_coll_hier_node_xfer(dfc_sched_t *s, const dfc_hier_layout_t *h, int n, int peer, int send,
                            int buf, uint64_t base, int by_rank, uint64_t b)
{
    for (int r = 0, e; r < h->size; r = e) { /* local indices follow communicator ranks */
        e = r + 1;
        if (h->node[r] != n) continue;
        while (e < h->size && h->node[e] == n) e++;
        uint64_t off = by_rank ? (uint64_t)r * b : base + (uint64_t)h->local[r] * b;
        uint64_t len = (uint64_t)(e - r) * b;
        DFC_TRY(send ? dfc_sched_send(s, peer, buf, off, len)
                     : dfc_sched_recv(s, peer, buf, off, len));
    }
    return DFC_SUCCESS;
}

int dfc_coll_hier_root_core(const dfc_coll_args_t *a, const dfc_hier_layout_t *h)
{
    return h->partner[a->root] >= 0 ? h->partner[a->root] : a->root;
}

uint64_t dfc_coll_hier_node_bytes(const dfc_hier_layout_t *h, int n, uint64_t b)
{
    uint64_t bytes = 0;
    for (int r = 0; r < h->size; r++) bytes += h->node[r] == n ? b : 0;
    return bytes;
}

int dfc_coll_hier_other_nodes(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h,
                              int peer, int send, int64_t tmp, uint64_t b)
{
    int L = h->nlocal, N = h->nnodes, nr = h->node[a->root];
    int lc = h->local[dfc_coll_hier_root_core(a, h)];
    uint64_t at = tmp < 0 ? 0 : (uint64_t)tmp;
    for (int i = 1; i < N; i++) {
        int m = dfc_coll_mod(nr + i, N), other = peer >= 0 ? peer : h->ranks[m * L + lc];
        int buf = tmp >= 0 ? DFC_BUF_TMP : send ? DFC_BUF_SEND : DFC_BUF_RECV;
        DFC_TRY(dfc_coll_hier_node_xfer(s, h, m, other, send, buf, at, tmp < 0, b));
        at += dfc_coll_hier_node_bytes(h, m, b);
    }
    return DFC_SUCCESS;
}

int dfc_coll_hier_relay(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h,
                        int from, int to, uint64_t b)
{
    uint64_t all = (uint64_t)a->size * b - dfc_coll_hier_node_bytes(h, h->node[a->root], b);
    int64_t tmp = (int64_t)dfc_sched_tmp(s, all);
    DFC_TRY(dfc_coll_hier_other_nodes(s, a, h, from, 0, tmp, b));
    DFC_TRY(dfc_sched_fence(s));
    DFC_TRY(dfc_coll_hier_other_nodes(s, a, h, to, 1, tmp, b));
    return dfc_sched_fence(s);
}

int dfc_coll_hier_build(const dfc_coll_args_t *a, dfc_sched_t *s, const char *kind, int moves,
                        dfc_hier_build_fn build)
{
    s->algorithm = "hierarchical";
    if (!moves) return DFC_SUCCESS;
    dfc_hier_layout_t h;
    if (!dfc_coll_hier_layout(a, &h))
        return DFC_ERR(DFC_ERR_INTERN,
                       "hierarchical %s: no layout of N >= 2 nodes with L >= 2 ranks each", kind);
    int rc = build(a, &h, s);
    dfc_coll_hier_layout_free(&h);
    return rc;
}

/* Items [c0, c0 + cn) of the core's chunk j of the vector (the algorithms' L chunks). */
static void core_chunk(const dfc_coll_args_t *a, int L, int j, uint64_t *c0, uint64_t *cn)
{
    *c0 = dfc_coll_chunk_start(a->count, L, j);
    *cn = dfc_coll_chunk_start(a->count, L, j + 1) - *c0;
}

int dfc_coll_hier_fold_in(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h,
                          int acc, uint64_t acc_off, uint64_t scratch)
{
    int L = h->nlocal, me = a->rank;
    uint64_t e = a->elem, c0, cn;
    if (h->partner[me] >= 0) { /* surplus: the input to the partner, chunk by chunk */
        for (int j = 0; j < L; j++) {
            core_chunk(a, L, j, &c0, &cn);
            if (cn)
                DFC_TRY(dfc_sched_send(s, h->partner[me], dfc_coll_input_buf(a), c0 * e, cn * e));
        }
        return dfc_sched_fence(s);
    }
    for (int q = 0; q < a->size; q++) /* a core rank: each of its surplus, in rank order */
        for (int j = 0; j < L && h->partner[q] == me; j++) {
            core_chunk(a, L, j, &c0, &cn);
            if (!cn) continue;
            DFC_TRY(dfc_sched_recv_reduce(s, q, acc, acc_off + c0 * e, cn, cn * e, scratch,
                                          DFC_REDUCE_IN_FIRST));
            DFC_TRY(dfc_sched_fence(s)); /* scratch is one chunk */
        }
    return DFC_SUCCESS;
}

int dfc_coll_hier_fold_out(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h,
                           uint64_t bytes, int has_them)
{
    int me = a->rank, sent = 0;
    if (!bytes) return DFC_SUCCESS;
    if (h->partner[me] >= 0) {
        DFC_TRY(dfc_sched_recv(s, h->partner[me], DFC_BUF_RECV, 0, bytes));
        return dfc_sched_fence(s);
    }
    for (int q = 0; q < a->size; q++)
        if (h->partner[q] == me && q != has_them) {
            DFC_TRY(dfc_sched_send(s, q, DFC_BUF_RECV, 0, bytes));
            sent = 1;
        }
    return sent ? dfc_sched_fence(s) : DFC_SUCCESS;
}

int dfc_coll_hier_embed(dfc_sched_t *s, const dfc_sched_t *sub, const int *group,
                        uint64_t recv_base)
{
    uint64_t tmp = sub->tmp_bytes ? dfc_sched_tmp(s, sub->tmp_bytes) : 0;
#define OFF(buf, off) ((off) + ((buf) == DFC_BUF_RECV ? recv_base : (buf) == DFC_BUF_TMP ? tmp : 0))
    for (int i = 0; i < sub->nsteps; i++) {
        const dfc_step_t *t = &sub->steps[i];
        switch (t->kind) {
        case DFC_STEP_SEND:
            DFC_TRY(dfc_sched_send(s, group[t->peer], t->src_buf, OFF(t->src_buf, t->src_off),
                                   t->bytes));
            break;
        case DFC_STEP_RECV:
            DFC_TRY(dfc_sched_recv(s, group[t->peer], t->dst_buf, OFF(t->dst_buf, t->dst_off),
                                   t->bytes));
            break;
        case DFC_STEP_RECV_REDUCE:
            DFC_TRY(dfc_sched_recv_reduce(s, group[t->peer], t->dst_buf,
                                          OFF(t->dst_buf, t->dst_off), t->count, t->bytes,
                                          t->tmp_off + tmp, t->order));
            break;
        case DFC_STEP_COPY:
            DFC_TRY(dfc_sched_copy(s, t->src_buf, OFF(t->src_buf, t->src_off), t->dst_buf,
                                   OFF(t->dst_buf, t->dst_off), t->bytes));
            break;
        case DFC_STEP_REDUCE:
            DFC_TRY(dfc_sched_reduce(s, t->src_buf, OFF(t->src_buf, t->src_off), t->dst_buf,
                                     OFF(t->dst_buf, t->dst_off), t->count, t->order));
            break;
        case DFC_STEP_FENCE: DFC_TRY(dfc_sched_fence(s)); break;
        default:
            return DFC_ERR(DFC_ERR_INTERN, "hierarchical: cannot embed a step of kind %d",
                           (int)t->kind);
        }
    }
#undef OFF
    return DFC_SUCCESS;
}
