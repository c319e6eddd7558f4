/*
 * reduce_binomial.c - reduce along a binomial tree.
 *
 * Algorithm: in round k (mask = 2^k) a rank whose virtual rank v has bit k set sends its
 * partial result to v - mask and leaves; the others receive from v + mask (if it exists)
 * and reduce. Children are handled in increasing mask order, each covering the ranks right
 * after those already reduced, so the partial result of v is always x_v op ... op
 * x_(v+2^k-1). Commutative ops use v = (rank - root) mod n, so the tree is rooted at root.
 * Non-commutative ops use v = rank (a tree rooted at 0, reducing strictly in rank order) and
 * rank 0 then sends the result to root when root != 0 (one extra message).
 * Buffers: the root accumulates in RECV; other ranks accumulate in TMP and never touch
 * RECV. A rank's first child is received straight into the accumulator and its own input is
 * reduced into it, which saves copying the input.
 *
 * Cost (m bytes, p ranks): ceil(log2 p) (alpha + m beta + m gamma) on the critical path,
 * plus alpha + m beta for a non-commutative op with root != 0.
 * Chosen for reduce at every size (the only reduce algorithm); it is latency-optimal for
 * small messages.
 */
#include "coll/dfc_coll.h"

int dfc_coll_reduce_binomial_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, rank = a->rank, root = a->root;
    uint64_t count = a->count, bytes = a->count * a->elem;
    int in = dfc_coll_input_buf(a);
    s->algorithm = "binomial";
    if (bytes == 0) return DFC_SUCCESS;

    /* The tree: rooted at root (commutative) or at 0 (rank order). */
    int troot = a->commutative ? root : 0;
    int v = (rank - troot + n) % n;
    int is_root = rank == root, is_troot = rank == troot;

    /* Where this rank accumulates: RECV on the tree root when it is the real root, else TMP. */
    int acc_buf = is_troot && is_root ? DFC_BUF_RECV : DFC_BUF_TMP;
    uint64_t acc_off = 0, rtmp = 0;
    int have_rtmp = 0;
    int acc_ready = is_troot && is_root && a->in_place; /* the input already is the accumulator */
    int have_acc = acc_ready;                           /* acc holds x_v op (children so far) */

    int mask = 1, parent = -1;
    while (mask < n) {
        if (v & mask) {
            parent = ((v - mask) + troot) % n;
            break;
        }
        if (v + mask < n) {
            int child = (v + mask + troot) % n;
            if (!have_acc) {
                /* First child: receive into the accumulator, then acc = mine op child. */
                if (acc_buf == DFC_BUF_TMP) acc_off = dfc_sched_tmp(s, bytes);
                DFC_TRY(dfc_sched_recv(s, child, acc_buf, acc_off, bytes));
                /* (a REDUCE step first completes the transfers before it) */
                DFC_TRY(dfc_sched_reduce(s, in, 0, acc_buf, acc_off, count, DFC_REDUCE_IN_FIRST));
                have_acc = 1;
            } else {
                if (!have_rtmp) rtmp = dfc_sched_tmp(s, bytes), have_rtmp = 1;
                DFC_TRY(dfc_sched_recv_reduce(s, child, acc_buf, acc_off, count, bytes, rtmp,
                                              DFC_REDUCE_IN_SECOND));
                DFC_TRY(dfc_sched_fence(s));
            }
        }
        mask <<= 1;
    }

    if (parent >= 0) {
        /* A leaf sends its input as is. */
        DFC_TRY(dfc_sched_send(s, parent, have_acc ? acc_buf : in, have_acc ? acc_off : 0, bytes));
        DFC_TRY(dfc_sched_fence(s));
    } else if (!have_acc && is_root) {
        /* n == 1 (or the tree root has no children): the result is the input. */
        DFC_TRY(dfc_sched_copy(s, in, 0, DFC_BUF_RECV, 0, bytes));
    }

    /* Non-commutative with root != 0: the tree root (rank 0) forwards the result. */
    if (troot != root) {
        if (is_troot) {
            DFC_TRY(
                dfc_sched_send(s, root, have_acc ? acc_buf : in, have_acc ? acc_off : 0, bytes));
            DFC_TRY(dfc_sched_fence(s));
        } else if (is_root) {
            DFC_TRY(dfc_sched_recv(s, troot, DFC_BUF_RECV, 0, bytes));
            DFC_TRY(dfc_sched_fence(s));
        }
    }
    return DFC_SUCCESS;
}
