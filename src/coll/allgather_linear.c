/*
 * allgather_linear.c - allgather and allgatherv by direct exchange with every other rank.
 *
 * Rank r places its own block in RECV (in place it is there already), posts a receive of
 * every other rank's block into its place, then sends its own block to every other rank,
 * starting with r + 1 and r - 1 so that no rank is every rank's first target; one fence.
 * Every transfer is independent of the others: above the eager limit each receiver reads the
 * sender's block directly (shm's single-copy read), all at once, where ring forwards each
 * block through n - 1 ranks in n - 1 fenced steps.
 * Cost: alpha + (n - 1)/n * B * beta for a B-byte result when the n - 1 transfers proceed in
 * parallel (one node, single-copy reads); n - 1 messages from every rank at once, so it is
 * for one node and moderate n, not for a network. Chosen on one node of 3 to 16 ranks from
 * 4 KiB blocks (DFC_ALLGATHER_LINEAR_MIN; select.c says what was measured).
 */
#include "coll/dfc_coll.h"

int dfc_coll_allgather_linear_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, r = a->rank;
    if (a->kind != DFC_COLL_ALLGATHER && a->kind != DFC_COLL_ALLGATHERV)
        return DFC_ERR(DFC_ERR_INTERN, "allgather_linear cannot build collective kind %d",
                       (int)a->kind);
    s->algorithm = "linear";
    uint64_t own = dfc_coll_allgather_block_len(a, r);
    /* The own block leaves from SEND, not from its copy in RECV (dfc_coll.h, "own block"). */
    int src = a->in_place ? DFC_BUF_RECV : DFC_BUF_SEND;
    uint64_t src_off = a->in_place ? dfc_coll_allgather_block_off(a, r) : 0;
    if (!a->in_place && own > 0)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, dfc_coll_allgather_block_off(a, r),
                               own));
    for (int i = 1; i < n; i++) { /* from r - 1, r + 1, r - 2, r + 2, ... */
        int peer = dfc_coll_mod(i % 2 ? r - (i + 1) / 2 : r + i / 2, n);
        if (dfc_coll_allgather_block_len(a, peer) > 0)
            DFC_TRY(dfc_sched_recv(s, peer, DFC_BUF_RECV, dfc_coll_allgather_block_off(a, peer),
                                   dfc_coll_allgather_block_len(a, peer)));
    }
    for (int i = 1; i < n && own > 0; i++) { /* to r + 1, r - 1, r + 2, r - 2, ... */
        int peer = dfc_coll_mod(i % 2 ? r + (i + 1) / 2 : r - i / 2, n);
        DFC_TRY(dfc_sched_send(s, peer, src, src_off, own));
    }
    return dfc_sched_fence(s);
}
