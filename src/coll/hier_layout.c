/*
 * hier_layout.c - what the hierarchical algorithms (*_hierarchical.c) share: the layout of
 * a communicator over the nodes of the job, and the embedding of a schedule built for a
 * group of the communicator (one rank per node, say) into this rank's schedule.
 *
 * Layout: the node of each rank comes from the job's node map (a->world, a->world_node);
 * nodes are numbered by the first rank on them and local indices in communicator-rank
 * order, the same on every rank. A hierarchical algorithm applies when there are N >= 2
 * nodes holding the same number L >= 2 of the communicator's ranks each.
 */
#include <stdlib.h>

#include "coll/dfc_coll.h"

void dfc_coll_hier_layout_free(dfc_hier_layout_t *h)
{
    free(h->node);
    free(h->local);
    free(h->ranks);
    h->node = h->local = h->ranks = NULL;
}

int dfc_coll_hier_layout(const dfc_coll_args_t *a, dfc_hier_layout_t *h)
{
    int p = a->size, top = -1;
    *h = (dfc_hier_layout_t){0};
    if (!a->world || !a->world_node || p < 4) return 0;
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
    if (ok) {
        h->nlocal = fill[0];
        for (int n = 1; n < h->nnodes; n++) ok &= fill[n] == h->nlocal;
        ok &= h->nnodes >= 2 && h->nlocal >= 2;
    }
    if (ok && (h->ranks = malloc((size_t)p * sizeof(int))))
        for (int r = 0; r < p; r++) h->ranks[h->node[r] * h->nlocal + h->local[r]] = r;
    free(number);
    free(fill);
    if (ok && h->ranks) return 1;
    dfc_coll_hier_layout_free(h);
    return 0;
}

int dfc_coll_hier_nodes(const dfc_coll_args_t *a)
{
    dfc_hier_layout_t h;
    if (!dfc_coll_hier_layout(a, &h)) return 0;
    dfc_coll_hier_layout_free(&h);
    return h.nnodes;
}

int dfc_coll_hier_run_end(const dfc_hier_layout_t *h, int n, int l)
{
    const int *node = &h->ranks[n * h->nlocal];
    int e = l + 1;
    while (e < h->nlocal && node[e] == node[e - 1] + 1) e++;
    return e;
}

int dfc_coll_hier_node_xfer(dfc_sched_t *s, const dfc_hier_layout_t *h, int n, int peer, int send,
                            int buf, uint64_t base, int by_rank, uint64_t b)
{
    for (int k = 0, e; k < h->nlocal; k = e) {
        e = dfc_coll_hier_run_end(h, n, k);
        uint64_t off = by_rank ? (uint64_t)h->ranks[n * h->nlocal + k] * b : base + k * b;
        uint64_t len = (uint64_t)(e - k) * b;
        DFC_TRY(send ? dfc_sched_send(s, peer, buf, off, len)
                     : dfc_sched_recv(s, peer, buf, off, len));
    }
    return DFC_SUCCESS;
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
