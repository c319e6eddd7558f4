/*
 * inter_allgather.c - Allgather on an intercommunicator (MPI-4.1 6.7): each process receives
 * the blocks of every process of the other group, in their rank order.
 *
 * Algorithm: each group gathers its blocks, packed, at its rank 0; the two rank 0s swap
 * them (the received blocks land in recvbuf through recvtype); each broadcasts recvbuf
 * within its group.
 * Cost, m local and r remote processes of n bytes each: a local gather ((m-1) * (alpha +
 * n*beta), linear), one crossing (alpha + r*n*beta) and a local bcast of r*n bytes.
 * Chosen for every intercommunicator allgather.
 */
#include <stdlib.h>

#include "coll/dfc_coll.h"

#define TAG_ALLGATHER 3

int dfc_coll_inter_allgather(const char *func, dfc_comm_t *c, const dfc_coll_side_t *s,
                             const dfc_coll_side_t *r)
{
    uint64_t blk = s->count * s->dt->size, rn = (uint64_t)c->remote->size * r->count;
    const dfc_dtype_t *byte = dfc_dtype_get(DFC_BYTE);
    char *packed = NULL;
    int rc;
    if (c->rank == 0 && !(packed = malloc(blk * (uint64_t)c->size + 1)))
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory gathering %llu bytes",
                       (unsigned long long)(blk * (uint64_t)c->size));
    dfc_coll_args_t a = {.kind = DFC_COLL_GATHER, .root = 0, .selem = s->dt->size, .relem = 1};
    a.sbytes = blk;
    a.rbytes = blk;
    a.stype = s->dt->dense ? NULL : s->dt;
    rc = dfc_coll_inter_local(func, c, &a, s->buf, packed, NULL, NULL);
    if (!rc && c->rank == 0) {
        dfc_coll_side_t out = {packed, blk * (uint64_t)c->size, byte, 0};
        dfc_coll_side_t in = {r->buf, rn, r->dt, 0};
        rc = dfc_coll_inter_xfer(c, TAG_ALLGATHER, &out, &in);
    }
    free(packed);
    dfc_coll_args_t b = {.kind = DFC_COLL_BCAST,
                         .root = 0,
                         .count = rn,
                         .elem = r->dt->size,
                         .rtype = r->dt->dense ? NULL : r->dt};
    if (!rc) rc = dfc_coll_inter_local(func, c, &b, NULL, (void *)r->buf, r->dt, NULL);
    return rc;
}
