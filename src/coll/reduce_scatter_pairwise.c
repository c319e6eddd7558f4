/*
 * reduce_scatter_pairwise.c - reduce_scatter and reduce_scatter_block by pairwise exchange.
 *
 * Algorithm: in exchange i = 1 .. p-1, rank r sends block (r + i) mod p of its input to
 * rank r + i and receives its own block of rank r - i's input (mod p); p = 1 just copies.
 * The contributions arrive in the order r-1, r-2, .., 0, p-1, p-2, .., r+1, which is
 * exactly what two accumulators need to reduce strictly in rank order: A starts as x_r and
 * takes x_(r-1), .., x_0 on its left (A = x_j op A); B starts as x_(p-1) and takes
 * x_(p-2), .., x_(r+1) on its left; finally A = A op B. So non-commutative ops are fine.
 * Exchanges run in windows of W at a time (one fence per window), W chosen so that the
 * receive slots in TMP stay below 16 MiB (from the largest block, so the same on every
 * rank; exchange i pairs r with r + i on both sides, so windows cannot deadlock).
 * Buffers: A is RECV (without IN_PLACE, after copying this rank's block of SEND into it, and
 * with IN_PLACE on the rank whose block starts at 0), else, with IN_PLACE, a copy of this
 * rank's block in TMP that goes to the front of RECV at the end: RECV past this rank's
 * count keeps the input, as in MPICH and Open MPI (reducing inside RECV at the block's
 * place and moving it left overwrote it). B and the receive slots are in TMP.
 *
 * Cost (m = total input bytes, p ranks): (p-1) alpha + (p-1)/p m beta + (p-1)/p m gamma.
 * Chosen for reduce_scatter and reduce_scatter_block at every size (the only algorithm).
 */
#include "coll/dfc_coll.h"

#define PAIRWISE_TMP_CAP ((uint64_t)16 << 20) /* bytes of receive slots in flight */

int dfc_coll_reduce_scatter_pairwise_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, rank = a->rank;
    uint64_t elem = a->elem;
    int in = dfc_coll_input_buf(a);
    int block = a->kind == DFC_COLL_REDUCE_SCATTER_BLOCK;
    s->algorithm = "pairwise";
#define CNT(j) (block ? a->count : (uint64_t)a->rcounts[(j)])

    uint64_t total = 0, max_cnt = 0, my_disp = 0;
    for (int j = 0; j < n; j++) {
        if (j == rank) my_disp = total;
        total += CNT(j);
        if (CNT(j) > max_cnt) max_cnt = CNT(j);
    }
    if (total * elem == 0) return DFC_SUCCESS;
    uint64_t mycnt = CNT(rank), mybytes = mycnt * elem;

    /* A: the accumulator. */
    int abuf = DFC_BUF_RECV;
    uint64_t aoff = 0;
    int a_in_tmp = a->in_place && my_disp && mybytes;
    if (!a->in_place)
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, my_disp * elem, DFC_BUF_RECV, 0, mybytes));
    if (n == 1) return DFC_SUCCESS;
    if (a_in_tmp) {
        abuf = DFC_BUF_TMP;
        aoff = dfc_sched_tmp(s, mybytes);
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_RECV, my_disp * elem, DFC_BUF_TMP, aoff, mybytes));
    }

    /* Window (the same on every rank: from the largest block). */
    uint64_t max_bytes = max_cnt * elem;
    int w = max_bytes ? (int)DFC_MIN2((uint64_t)(n - 1), DFC_MAX2(PAIRWISE_TMP_CAP / max_bytes, 1))
                      : n - 1;
    uint64_t slot_bytes = (mybytes + 7) & ~(uint64_t)7;
    uint64_t slots = 0, bacc = 0;
    if (mybytes) {
        slots = dfc_sched_tmp(s, (uint64_t)w * slot_bytes);
        if (rank < n - 1) bacc = dfc_sched_tmp(s, mybytes); /* B: ranks above this one */
    }

    uint64_t to_disp = rank + 1 < n ? my_disp + mycnt : 0; /* items before block `to` */
    for (int i = 1; i < n; i++) {
        int to = (rank + i) % n, from = (rank - i + n) % n;
        if (CNT(to)) DFC_TRY(dfc_sched_send(s, to, in, to_disp * elem, CNT(to) * elem));
        to_disp = to + 1 < n ? to_disp + CNT(to) : 0;
        if (mybytes) {
            uint64_t slot = slots + (uint64_t)((i - 1) % w) * slot_bytes;
            if (from < rank) /* A = x_from op A */
                DFC_TRY(dfc_sched_recv_reduce(s, from, abuf, aoff, mycnt, mybytes, slot,
                                              DFC_REDUCE_IN_FIRST));
            else if (from == n - 1) /* B starts as x_(p-1) */
                DFC_TRY(dfc_sched_recv(s, from, DFC_BUF_TMP, bacc, mybytes));
            else /* B = x_from op B */
                DFC_TRY(dfc_sched_recv_reduce(s, from, DFC_BUF_TMP, bacc, mycnt, mybytes, slot,
                                              DFC_REDUCE_IN_FIRST));
        }
        if (i % w == 0 || i == n - 1) DFC_TRY(dfc_sched_fence(s));
    }
    /* A = A op B */
    if (mybytes && rank < n - 1)
        DFC_TRY(dfc_sched_reduce(s, DFC_BUF_TMP, bacc, abuf, aoff, mycnt, DFC_REDUCE_IN_SECOND));
    if (a_in_tmp) DFC_TRY(dfc_sched_copy(s, DFC_BUF_TMP, aoff, DFC_BUF_RECV, 0, mybytes));
    return dfc_sched_fence(s);
#undef CNT
}
