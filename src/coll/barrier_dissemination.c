/*
 * barrier_dissemination.c - barrier by dissemination (Hensgen, Finkel, Manber 1988).
 *
 * Round k (k = 0 .. ceil(log2 n) - 1): receive a 0-byte message from (r - 2^k) % n and send
 * one to (r + 2^k) % n, then fence. After round k a rank has heard (transitively) from the 2^(k+1)
 * ranks before it, so after the last round from all n.
 * Cost: ceil(log2 n) * alpha, no bandwidth term; works for any n. The only barrier algorithm,
 * so always chosen.
 */
#include "coll/dfc_coll.h"

int dfc_coll_barrier_dissemination_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, r = a->rank;

    s->algorithm = "dissemination";
    for (int d = 1; d < n; d <<= 1) {
        DFC_TRY(dfc_sched_recv(s, (r - d + n) % n, DFC_BUF_NONE, 0, 0));
        DFC_TRY(dfc_sched_send(s, (r + d) % n, DFC_BUF_NONE, 0, 0));
        DFC_TRY(dfc_sched_fence(s));
    }
    return DFC_SUCCESS;
}
