/*
 * inter_allreduce.c - Allreduce on an intercommunicator (MPI-4.1 6.9.6): each group receives
 * the reduction of the other group's contributions.
 *
 * Algorithm: each group reduces its contributions to its rank 0 (into recvbuf there), the
 * two rank 0s swap their results, each broadcasts what it got within its group.
 * Cost: a local reduce and a local bcast (binomial: ceil(log2 m) * (alpha + n*beta) each,
 * plus the reduction's n*gamma per step) and one crossing, alpha + n*beta, both ways at once.
 * Chosen for every intercommunicator allreduce.
 */
#include "coll/dfc_coll.h"

#define TAG_ALLREDUCE 2

int dfc_coll_inter_allreduce(const char *func, dfc_comm_t *c, const void *sendbuf, void *recvbuf,
                             uint64_t count, const dfc_dtype_t *dt, const dfc_op_t *op)
{
    const dfc_dtype_t *sd = dt->dense ? NULL : dt;
    dfc_coll_args_t a = {.kind = DFC_COLL_REDUCE,
                         .root = 0,
                         .commutative = op->commute,
                         .count = count,
                         .elem = dt->size,
                         .stype = sd,
                         .rtype = sd};
    int rc = dfc_coll_inter_local(func, c, &a, sendbuf, recvbuf, dt, op);
    if (!rc && c->rank == 0) {
        /* The local result goes out of recvbuf while the remote one comes in: replace. */
        DFC_Status st;
        int err = DFC_SUCCESS;
        rc = dfc_p2p_sendrecv_replace_coll(c, func, recvbuf, count, dt, 0, TAG_ALLREDUCE, 0,
                                           TAG_ALLREDUCE, &st, &err);
        if (!rc) rc = err;
    }
    dfc_coll_args_t b = {
        .kind = DFC_COLL_BCAST, .root = 0, .count = count, .elem = dt->size, .rtype = sd};
    if (!rc) rc = dfc_coll_inter_local(func, c, &b, NULL, recvbuf, dt, NULL);
    return rc;
}
