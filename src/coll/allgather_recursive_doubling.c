/*
 * allgather_recursive_doubling.c - allgather by recursive doubling (n a power of two).
 *
 * Rank r first places its own block in RECV at r * rbytes (in place it is there already).
 * Before step k (k = 0 .. log2 n - 1) r holds the 2^k blocks of its aligned group
 * [r & ~(2^k - 1), + 2^k), contiguous in RECV; it exchanges them with r ^ 2^k, whose group is
 * the other half of the next larger one, and fences.
 * Cost: log2(n) * alpha + (n - 1)/n * B * beta for a B-byte result. Chosen for results up to
 * 64 KiB (DFC_ALLGATHER_SHORT_MAX), and for all on more than 64 ranks
 * (DFC_ALLGATHER_RING_MAX_RANKS), when n is a power of two (select.c); allgather only.
 */
#include "coll/dfc_coll.h"

int dfc_coll_allgather_recursive_doubling_usable(const dfc_coll_args_t *a)
{
    return a->kind == DFC_COLL_ALLGATHER && a->size > 0 && (a->size & (a->size - 1)) == 0;
}

int dfc_coll_allgather_recursive_doubling_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, r = a->rank;
    uint64_t b = a->rbytes;

    if (!dfc_coll_allgather_recursive_doubling_usable(a))
        return DFC_ERR(DFC_ERR_INTERN,
                       "allgather_recursive_doubling cannot build collective kind %d on %d ranks",
                       (int)a->kind, n);
    s->algorithm = "recursive_doubling";
    if (!a->in_place) DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, (uint64_t)r * b, b));
    if (b == 0) return DFC_SUCCESS;
    for (int mask = 1; mask < n; mask <<= 1) {
        int peer = r ^ mask;
        uint64_t mine = (uint64_t)(r & ~(mask - 1)) * b;
        uint64_t theirs = (uint64_t)(peer & ~(mask - 1)) * b;
        DFC_TRY(dfc_sched_recv(s, peer, DFC_BUF_RECV, theirs, (uint64_t)mask * b));
        if (mask == 1 && !a->in_place) /* its own block: from SEND (dfc_coll.h, "own block") */
            DFC_TRY(dfc_sched_send(s, peer, DFC_BUF_SEND, 0, b));
        else DFC_TRY(dfc_sched_send(s, peer, DFC_BUF_RECV, mine, (uint64_t)mask * b));
        DFC_TRY(dfc_sched_fence(s));
    }
    return DFC_SUCCESS;
}
