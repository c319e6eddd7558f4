/*
 * allgather_bruck.c - allgather by Bruck's algorithm (Bruck et al. 1997), any n.
 *
 * Work in TMP (n blocks of rbytes), where block i stands for rank (r + i) mod n: rank r copies
 * its own block to TMP block 0. In step k (d = 2^k < n), with c = min(d, n - d), r sends TMP
 * blocks [0, c) to r - d and receives TMP blocks [d, d + c) from r + d (its blocks [0, c)),
 * then fences. After ceil(log2 n) steps TMP holds all blocks rotated by r; two copies rotate
 * them into RECV (block (r + i) mod n = TMP block i).
 * Cost: ceil(log2 n) * alpha + (n - 1)/n * B * beta for a B-byte result, plus two local
 * copies of B. Chosen for results up to 64 KiB (DFC_ALLGATHER_SHORT_MAX), and for all on
 * more than 64 ranks (DFC_ALLGATHER_RING_MAX_RANKS), when n is not a power of two
 * (select.c): fewer rounds than the ring's n - 1; allgather only.
 */
#include "coll/dfc_coll.h"

int dfc_coll_allgather_bruck_usable(const dfc_coll_args_t *a)
{
    return a->kind == DFC_COLL_ALLGATHER;
}

int dfc_coll_allgather_bruck_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, r = a->rank;
    uint64_t b = a->rbytes;

    if (!dfc_coll_allgather_bruck_usable(a))
        return DFC_ERR(DFC_ERR_INTERN, "allgather_bruck cannot build collective kind %d",
                       (int)a->kind);
    s->algorithm = "bruck";
    if (n == 1 || b == 0) {
        if (a->in_place) return DFC_SUCCESS;
        return dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, (uint64_t)r * b, b);
    }
    uint64_t tmp = dfc_sched_tmp(s, (uint64_t)n * b);
    if (a->in_place) DFC_TRY(dfc_sched_copy(s, DFC_BUF_RECV, (uint64_t)r * b, DFC_BUF_TMP, tmp, b));
    else DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_TMP, tmp, b));
    for (int d = 1; d < n; d <<= 1) {
        uint64_t c = (uint64_t)(d < n - d ? d : n - d);
        DFC_TRY(dfc_sched_recv(s, (r + d) % n, DFC_BUF_TMP, tmp + (uint64_t)d * b, c * b));
        if (d == 1 && !a->in_place) /* its own block: from SEND (dfc_coll.h, "own block") */
            DFC_TRY(dfc_sched_send(s, r - 1 + (r == 0 ? n : 0), DFC_BUF_SEND, 0, b));
        else DFC_TRY(dfc_sched_send(s, (r - d + n) % n, DFC_BUF_TMP, tmp, c * b));
        DFC_TRY(dfc_sched_fence(s));
    }
    /* TMP blocks [0, n - r) -> RECV blocks [r, n); TMP blocks [n - r, n) -> RECV [0, r). */
    uint64_t head = (uint64_t)(n - r) * b;
    DFC_TRY(dfc_sched_copy(s, DFC_BUF_TMP, tmp, DFC_BUF_RECV, (uint64_t)r * b, head));
    return dfc_sched_copy(s, DFC_BUF_TMP, tmp + head, DFC_BUF_RECV, 0, (uint64_t)r * b);
}
