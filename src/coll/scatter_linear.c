/*
 * scatter_linear.c - scatter and scatterv, linear: the root sends block p of SEND (at p * sbytes,
 * or at sdispls[p] items of selem for scatterv) straight to rank p, posting all n - 1 sends at
 * once, and copies its own block into RECV unless in place (then it stays in SEND). Each
 * non-root receives rbytes into RECV. Empty blocks are not transferred.
 * Cost: (n - 1) * alpha + (n - 1) * b * beta at the root for blocks of b bytes; the root's
 * link is the bottleneck either way. The only scatter algorithm, so always chosen.
 */
#include "coll/dfc_coll.h"

/* Where block p is in SEND at the root, and its size. */
static uint64_t block_off(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_SCATTERV) return (uint64_t)(int64_t)a->sdispls[p] * a->selem;
    return (uint64_t)p * a->sbytes;
}

static uint64_t block_len(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_SCATTERV) return (uint64_t)a->scounts[p] * a->selem;
    return a->sbytes;
}

int dfc_coll_scatter_linear_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, root = a->root;

    if (a->kind != DFC_COLL_SCATTER && a->kind != DFC_COLL_SCATTERV)
        return DFC_ERR(DFC_ERR_INTERN, "scatter_linear cannot build collective kind %d",
                       (int)a->kind);
    s->algorithm = "linear";
    if (a->rank != root) {
        if (a->rbytes == 0) return DFC_SUCCESS;
        DFC_TRY(dfc_sched_recv(s, root, DFC_BUF_RECV, 0, a->rbytes));
        return dfc_sched_fence(s);
    }
    /* The root: its own block first (no transfer is pending, so the copy does not wait). */
    if (!a->in_place)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, block_off(a, root), DFC_BUF_RECV, 0,
                               block_len(a, root)));
    for (int i = 1; i < n; i++) {
        int p = (root + i) % n;
        if (block_len(a, p) > 0)
            DFC_TRY(dfc_sched_send(s, p, DFC_BUF_SEND, block_off(a, p), block_len(a, p)));
    }
    return dfc_sched_fence(s);
}
