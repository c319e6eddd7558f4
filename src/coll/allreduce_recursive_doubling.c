/*
 * allreduce_recursive_doubling.c - allreduce by recursive doubling (MPICH's algorithm).
 *
 * Algorithm: let p' be the largest power of two <= p and rem = p - p'. Pre-step: among the
 * first 2*rem ranks, each even rank sends its input to the odd rank above it, which reduces
 * (x_even op x_odd) and stands for both; the even ranks then wait. The p' remaining ranks
 * (new rank r' = rank/2 for the odd ones below 2*rem, rank - rem above) exchange their whole
 * vectors with r' ^ 2^k for k = 0 .. log2(p') - 1 and reduce. Post-step: each odd rank below
 * 2*rem sends the result to the even rank below it. Every rank stands for a contiguous range
 * of ranks and the partner's range is adjacent, so reducing the lower rank's data first
 * (IN_FIRST when the partner is lower, IN_SECOND when higher) gives x_0 op ... op x_(p-1) for
 * non-commutative ops too.
 * Buffers: the result accumulates in RECV. Without IN_PLACE, the first exchange sends from
 * SEND and receives straight into RECV, then reduces SEND into it (no copy); later rounds
 * send RECV while receiving into TMP (count items) and reduce at the fence.
 *
 * Cost (m bytes, p ranks): log2(p') (alpha + m beta + m gamma), plus 2 (alpha + m beta) and
 * m gamma when p is not a power of two.
 * Chosen for allreduce of up to 16 KiB (DFC_ALLREDUCE_RECURSIVE_DOUBLING_MAX, select.c:
 * latency-bound) that the shm slots do not take, and for calls of any size that the chosen
 * algorithm cannot run (rabenseifner with count < p', ring with a non-commutative op).
 */
#include "coll/dfc_coll.h"

int dfc_coll_allreduce_recursive_doubling_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, rank = a->rank;
    uint64_t count = a->count, bytes = a->count * a->elem;
    int in = dfc_coll_input_buf(a);
    s->algorithm = "recursive_doubling";
    if (bytes == 0) return DFC_SUCCESS;
    if (n == 1) return dfc_sched_copy(s, in, 0, DFC_BUF_RECV, 0, bytes);

    int pof2 = dfc_coll_pof2(n);
    int rem = n - pof2;
    int acc_ready = a->in_place; /* RECV holds this rank's partial result */
    uint64_t tmp = 0;
    int have_tmp = 0;
#define TMP_OFF() (have_tmp ? tmp : (have_tmp = 1, tmp = dfc_sched_tmp(s, bytes)))

    int newrank;
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            /* Hand the input to rank + 1, wait for the result. */
            DFC_TRY(dfc_sched_send(s, rank + 1, in, 0, bytes));
            if (a->in_place) DFC_TRY(dfc_sched_fence(s)); /* the send reads RECV */
            DFC_TRY(dfc_sched_recv(s, rank + 1, DFC_BUF_RECV, 0, bytes));
            return dfc_sched_fence(s);
        }
        /* RECV = x_(rank-1) op x_rank */
        if (acc_ready) {
            DFC_TRY(dfc_sched_recv_reduce(s, rank - 1, DFC_BUF_RECV, 0, count, bytes, TMP_OFF(),
                                          DFC_REDUCE_IN_FIRST));
            DFC_TRY(dfc_sched_fence(s));
        } else {
            DFC_TRY(dfc_sched_recv(s, rank - 1, DFC_BUF_RECV, 0, bytes));
            DFC_TRY(
                dfc_sched_reduce(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, 0, count, DFC_REDUCE_IN_SECOND));
            acc_ready = 1;
        }
        newrank = rank / 2;
    } else {
        newrank = rank - rem;
    }

    for (int mask = 1; mask < pof2; mask <<= 1) {
        int newdst = newrank ^ mask;
        int dst = newdst < rem ? 2 * newdst + 1 : newdst + rem;
        int lower = dst < rank; /* the partner's data comes first */
        if (acc_ready) {
            DFC_TRY(dfc_sched_send(s, dst, DFC_BUF_RECV, 0, bytes));
            DFC_TRY(dfc_sched_recv_reduce(s, dst, DFC_BUF_RECV, 0, count, bytes, TMP_OFF(),
                                          lower ? DFC_REDUCE_IN_FIRST : DFC_REDUCE_IN_SECOND));
            DFC_TRY(dfc_sched_fence(s));
        } else {
            /* First round without IN_PLACE: RECV = partner's; then reduce SEND into it. */
            DFC_TRY(dfc_sched_send(s, dst, DFC_BUF_SEND, 0, bytes));
            DFC_TRY(dfc_sched_recv(s, dst, DFC_BUF_RECV, 0, bytes));
            DFC_TRY(dfc_sched_reduce(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, 0, count,
                                     lower ? DFC_REDUCE_IN_SECOND : DFC_REDUCE_IN_FIRST));
            acc_ready = 1;
        }
    }

    if (rank < 2 * rem) /* odd: hand the result back to rank - 1 */
        DFC_TRY(dfc_sched_send(s, rank - 1, DFC_BUF_RECV, 0, bytes));
    return dfc_sched_fence(s);
#undef TMP_OFF
}
