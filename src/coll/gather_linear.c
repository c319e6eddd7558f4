/*
 * gather_linear.c - gather and gatherv, linear: every non-root sends its block straight to the
 * root, which posts all n - 1 receives at once (placing block p at p * rbytes, or at
 * vdispls[p] items of relem for gatherv) and copies its own block from SEND unless in place.
 * Empty blocks are not transferred (both sides know the size is 0).
 * Cost: (n - 1) * alpha + (n - 1) * b * beta at the root for blocks of b bytes; the root's
 * link is the bottleneck either way, and a tree would only cut the latency term. The only
 * gather algorithm, so always chosen.
 */
#include "coll/dfc_coll.h"

/* Where block p goes in RECV at the root, and its size. */
static uint64_t block_off(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_GATHERV) return (uint64_t)(int64_t)a->vdispls[p] * a->relem;
    return (uint64_t)p * a->rbytes;
}

static uint64_t block_len(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_GATHERV) return (uint64_t)a->vcounts[p] * a->relem;
    return a->rbytes;
}

int dfc_coll_gather_linear_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, root = a->root;

    if (a->kind != DFC_COLL_GATHER && a->kind != DFC_COLL_GATHERV)
        return DFC_ERR(DFC_ERR_INTERN, "gather_linear cannot build collective kind %d",
                       (int)a->kind);
    s->algorithm = "linear";
    if (a->rank != root) {
        if (a->sbytes == 0) return DFC_SUCCESS;
        DFC_TRY(dfc_sched_send(s, root, DFC_BUF_SEND, 0, a->sbytes));
        return dfc_sched_fence(s);
    }
    /* The root: its own block first (no transfer is pending, so the copy does not wait). */
    if (!a->in_place)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, block_off(a, root),
                               block_len(a, root)));
    for (int i = 1; i < n; i++) {
        int p = (root + i) % n;
        if (block_len(a, p) > 0)
            DFC_TRY(dfc_sched_recv(s, p, DFC_BUF_RECV, block_off(a, p), block_len(a, p)));
    }
    return dfc_sched_fence(s);
}
