/*
 * inter_barrier.c - Barrier on an intercommunicator (MPI-4.1 6.3): no process leaves before
 * every process of both groups entered.
 *
 * Algorithm: a barrier within the local group, a zero-byte exchange between the groups'
 * rank 0s, a barrier within the local group again (inter_common.c's three phases).
 * Cost: 2 local barriers (2 * ceil(log2 n) alpha each with dissemination) + 1 alpha.
 * Chosen for every intercommunicator barrier.
 */
#include "coll/dfc_coll.h"

#define TAG_BARRIER 0

int dfc_coll_inter_barrier(const char *func, dfc_comm_t *c)
{
    static char none;
    const dfc_dtype_t *byte = dfc_dtype_get(DFC_BYTE);
    dfc_coll_side_t s = {&none, 0, byte, 0}, r = {&none, 0, byte, 0};
    dfc_coll_args_t a = {.kind = DFC_COLL_BARRIER};
    int rc = dfc_coll_inter_local(func, c, &a, NULL, NULL, NULL, NULL);
    if (!rc && c->rank == 0) rc = dfc_coll_inter_xfer(c, TAG_BARRIER, &s, &r);
    dfc_coll_args_t b = {.kind = DFC_COLL_BARRIER};
    if (!rc) rc = dfc_coll_inter_local(func, c, &b, NULL, NULL, NULL, NULL);
    return rc;
}
