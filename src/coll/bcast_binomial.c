/*
 * bcast_binomial.c - broadcast along a binomial tree rooted at `root`.
 *
 * In ranks relative to the root (v = (r - root) mod n), rank v > 0 receives the whole
 * message from v - lowbit(v), then sends it to v + m for m = lowbit(v)/2, ..., 2, 1 (for the
 * root: every power of two below n, largest first) where v + m < n. The buffer is RECV on every
 * rank (the root's too: it holds the data).
 * Cost: ceil(log2 n) * (alpha + B * beta) for B bytes. Chosen below 64 KiB
 * (DFC_BCAST_SCATTER_ALLGATHER_MIN) and on fewer than 4 ranks (select.c), and whenever B < n
 * (scatter_allgather needs a byte per rank).
 */
#include "coll/dfc_coll.h"

int dfc_coll_bcast_binomial_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, root = a->root, v = (a->rank - root + n) % n;
    uint64_t bytes = a->count * a->elem;
    int mask = 1;

    s->algorithm = "binomial";
    if (n == 1 || bytes == 0) return DFC_SUCCESS;
    /* Receive from the parent (the root has none). */
    for (; mask < n; mask <<= 1) {
        if (v & mask) {
            DFC_TRY(dfc_sched_recv(s, (v - mask + root) % n, DFC_BUF_RECV, 0, bytes));
            DFC_TRY(dfc_sched_fence(s));
            break;
        }
    }
    /* Send to the children, the largest subtree first (it is the deepest). */
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n) DFC_TRY(dfc_sched_send(s, (v + mask + root) % n, DFC_BUF_RECV, 0, bytes));
    return dfc_sched_fence(s);
}
