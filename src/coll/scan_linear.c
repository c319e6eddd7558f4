/*
 * scan_linear.c - scan and exscan along a chain.
 *
 * Algorithm: rank r receives the prefix x_0 op .. op x_(r-1) from r - 1, forms its result
 * and sends the prefix x_0 op .. op x_r to r + 1. The received prefix always comes first,
 * so non-commutative ops reduce in rank order.
 *   scan:   result_r = prefix_(r-1) op x_r, which is also what r forwards.
 *   exscan: result_r = prefix_(r-1) (rank 0's RECV is left untouched); r forwards
 *           prefix_(r-1) op x_r, built in TMP (or, with IN_PLACE, in RECV, which gets the
 *           received prefix back from TMP once the send is done).
 * Buffers: without IN_PLACE the prefix is received straight into RECV and SEND reduced into
 * it; with IN_PLACE through TMP (RECV_REDUCE).
 *
 * Cost (m bytes, p ranks): (p-1) (alpha + m beta + m gamma) on the critical path to the last
 * rank; each rank sends and receives once.
 * Chosen for scan and exscan at every size (the only algorithm).
 */
#include "coll/dfc_coll.h"

static int scan_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, rank = a->rank;
    uint64_t count = a->count, bytes = a->count * a->elem;
    int in = dfc_coll_input_buf(a);
    int last = rank == n - 1;
    if (rank == 0) {
        DFC_TRY(dfc_sched_copy(s, in, 0, DFC_BUF_RECV, 0, bytes));
        if (!last) DFC_TRY(dfc_sched_send(s, 1, in, 0, bytes));
        return dfc_sched_fence(s);
    }
    if (a->in_place) {
        DFC_TRY(dfc_sched_recv_reduce(s, rank - 1, DFC_BUF_RECV, 0, count, bytes,
                                      dfc_sched_tmp(s, bytes), DFC_REDUCE_IN_FIRST));
        DFC_TRY(dfc_sched_fence(s));
    } else {
        DFC_TRY(dfc_sched_recv(s, rank - 1, DFC_BUF_RECV, 0, bytes));
        DFC_TRY(dfc_sched_reduce(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, 0, count, DFC_REDUCE_IN_SECOND));
    }
    if (!last) DFC_TRY(dfc_sched_send(s, rank + 1, DFC_BUF_RECV, 0, bytes));
    return dfc_sched_fence(s);
}

static int exscan_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, rank = a->rank;
    uint64_t count = a->count, bytes = a->count * a->elem;
    int in = dfc_coll_input_buf(a);
    int last = rank == n - 1;
    if (rank == 0) {
        if (!last) DFC_TRY(dfc_sched_send(s, 1, in, 0, bytes));
        return dfc_sched_fence(s);
    }
    if (last) { /* the input is not needed: the prefix is the result */
        DFC_TRY(dfc_sched_recv(s, rank - 1, DFC_BUF_RECV, 0, bytes));
        return dfc_sched_fence(s);
    }
    uint64_t t = dfc_sched_tmp(s, bytes);
    if (a->in_place) {
        /* TMP = prefix; RECV = prefix op x_r is sent on, then RECV = prefix. */
        DFC_TRY(dfc_sched_recv(s, rank - 1, DFC_BUF_TMP, t, bytes));
        DFC_TRY(dfc_sched_reduce(s, DFC_BUF_TMP, t, DFC_BUF_RECV, 0, count, DFC_REDUCE_IN_FIRST));
        DFC_TRY(dfc_sched_send(s, rank + 1, DFC_BUF_RECV, 0, bytes));
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_TMP, t, DFC_BUF_RECV, 0, bytes));
    } else {
        /* TMP = x_r; RECV = prefix; TMP = prefix op x_r is sent on. */
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, 0, DFC_BUF_TMP, t, bytes));
        DFC_TRY(dfc_sched_recv(s, rank - 1, DFC_BUF_RECV, 0, bytes));
        DFC_TRY(dfc_sched_reduce(s, DFC_BUF_RECV, 0, DFC_BUF_TMP, t, count, DFC_REDUCE_IN_FIRST));
        DFC_TRY(dfc_sched_send(s, rank + 1, DFC_BUF_TMP, t, bytes));
    }
    return dfc_sched_fence(s);
}

int dfc_coll_scan_linear_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    s->algorithm = "linear";
    if (a->count * a->elem == 0) return DFC_SUCCESS;
    return a->kind == DFC_COLL_EXSCAN ? exscan_build(a, s) : scan_build(a, s);
}
