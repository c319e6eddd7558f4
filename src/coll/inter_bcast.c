/*
 * inter_bcast.c - Bcast on an intercommunicator (MPI-4.1 6.4): the root (root DFC_ROOT) sends
 * to every process of the other group (root: the root's rank in that group); the rest of
 * the root's group (DFC_PROC_NULL) takes no part.
 *
 * Algorithm: the root sends the message to rank 0 of the other group, which broadcasts it
 * within its group (the intracommunicator bcast's selection).
 * Cost: alpha + n*beta for the crossing, then a local bcast (binomial: ceil(log2 m) *
 * (alpha + n*beta)). Chosen for every intercommunicator bcast.
 */
#include "coll/dfc_coll.h"

#define TAG_BCAST 1

int dfc_coll_inter_bcast(const char *func, dfc_comm_t *c, void *buf, uint64_t count,
                         const dfc_dtype_t *dt, int root)
{
    int rc = DFC_SUCCESS;
    dfc_coll_side_t side = {buf, count, dt, 0};
    if (root == DFC_PROC_NULL) return DFC_SUCCESS;
    if (root == DFC_ROOT) return dfc_coll_inter_xfer(c, TAG_BCAST, &side, NULL);
    side.peer = root;
    if (c->rank == 0 && (rc = dfc_coll_inter_xfer(c, TAG_BCAST, NULL, &side))) return rc;
    dfc_coll_args_t a = {.kind = DFC_COLL_BCAST,
                         .root = 0,
                         .count = count,
                         .elem = dt->size,
                         .rtype = dt->dense ? NULL : dt};
    return dfc_coll_inter_local(func, c, &a, NULL, buf, dt, NULL);
}
