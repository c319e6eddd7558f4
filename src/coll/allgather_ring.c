/*
 * allgather_ring.c - allgather and allgatherv along a ring.
 *
 * Rank r first places its own block in RECV (block p at p * rbytes, or at vdispls[p] items of
 * relem for allgatherv; in place it is there already). Then n - 1 steps, each fenced: in step
 * i, r sends block (r - i) mod n to r + 1 and receives block (r - i - 1) mod n from r - 1.
 * Empty blocks are not transferred (every rank knows every block's size). Receives are posted
 * before sends, so that a message finds its receive waiting. Step 0 sends from SEND.
 * Cost: (n - 1) * alpha + (n - 1)/n * B * beta for a B-byte result; bandwidth-optimal and
 * neighbour-only. Chosen for allgather results above 64 KiB (DFC_ALLGATHER_SHORT_MAX,
 * select.c) on up to 64 ranks (DFC_ALLGATHER_RING_MAX_RANKS), and always for allgatherv.
 */
#include "coll/dfc_coll.h"

int dfc_coll_allgather_ring_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, r = a->rank;
    int right = (r + 1) % n, left = (r - 1 + n) % n;

    if (a->kind != DFC_COLL_ALLGATHER && a->kind != DFC_COLL_ALLGATHERV)
        return DFC_ERR(DFC_ERR_INTERN, "allgather_ring cannot build collective kind %d",
                       (int)a->kind);
    s->algorithm = "ring";
    if (!a->in_place)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, dfc_coll_allgather_block_off(a, r),
                               dfc_coll_allgather_block_len(a, r)));
    for (int i = 0; i < n - 1; i++) {
        int sb = (r - i + n) % n, rb = (r - i - 1 + n) % n;
        if (dfc_coll_allgather_block_len(a, rb) > 0)
            DFC_TRY(dfc_sched_recv(s, left, DFC_BUF_RECV, dfc_coll_allgather_block_off(a, rb),
                                   dfc_coll_allgather_block_len(a, rb)));
        /* The first send, of this rank's own block, leaves from SEND, not from the copy of it
         * just made in RECV (dfc_coll.h, "own block"). */
        if (dfc_coll_allgather_block_len(a, sb) > 0)
            DFC_TRY(
                i == 0 && !a->in_place
                    ? dfc_sched_send(s, right, DFC_BUF_SEND, 0, dfc_coll_allgather_block_len(a, sb))
                    : dfc_sched_send(s, right, DFC_BUF_RECV, dfc_coll_allgather_block_off(a, sb),
                                     dfc_coll_allgather_block_len(a, sb)));
        DFC_TRY(dfc_sched_fence(s));
    }
    return DFC_SUCCESS;
}
