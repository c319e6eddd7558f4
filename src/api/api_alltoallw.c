/*
 * api_alltoallw.c - Alltoallw, Ialltoallw, Alltoallw_init (MPI-4.1 6.8): an alltoall where
 * each peer's block has its own count, byte displacement and datatype, on both sides.
 *
 * The entry points check the arguments, list this rank's blocks as transfers (one per rank,
 * byte offset and length: dfc_coll_xfer_t) and hand them to dfc_coll_run, which runs them
 * by pairwise exchange (src/coll/alltoall_pairwise.c). With DFC_IN_PLACE as sendbuf the
 * data to send is taken from recvbuf with the receive side's layout (counts, displacements
 * and types), as MPI says; the send side's arrays are then not read.
 */
#include <stdlib.h>

#include "api/api_coll_common.h"

typedef struct a2aw {
    const void *buf;
    const int *counts, *displs;
    const DFC_Datatype *types;
} a2aw_side_t;

/* Checks one side and lists its blocks in x (n entries); names: buf, counts, displs, types. */
static int side_blocks(const char *func, const a2aw_side_t *sd, const char *const names[4], int n,
                       dfc_coll_xfer_t *x)
{
    int rc;
    uint64_t total = 0;
    if ((rc = dfc_coll_check_counts(func, names[1], sd->counts, NULL, n))) return rc;
    if (n > 0 && !sd->displs)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", names[2]);
    if (n > 0 && !sd->types)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", names[3]);
    for (int p = 0; p < n; p++) {
        dfc_dtype_t *d;
        if ((rc = dfc_dtype_check(sd->types[p], func, names[3], &d)) ||
            (rc = dfc_api_check_dense(func, names[3], d)))
            return rc;
        x[p].peer = p;
        x[p].off = (uint64_t)(int64_t)sd->displs[p];
        x[p].bytes = (uint64_t)sd->counts[p] * d->size;
        total += x[p].bytes;
    }
    if (total > 0 && !sd->buf)
        return dfc_err(DFC_ERR_BUFFER, func, "invalid argument %s: NULL pointer", names[0]);
    return DFC_SUCCESS;
}

static int alltoallw_common(dfc_coll_call_t call, const a2aw_side_t *s, const a2aw_side_t *r,
                            DFC_Comm comm)
{
    static const char *const snames[4] = {"sendbuf", "sendcounts", "sdispls", "sendtypes"};
    static const char *const rnames[4] = {"recvbuf", "recvcounts", "rdispls", "recvtypes"};
    int rc, in_place = s->buf == DFC_IN_PLACE;
    dfc_comm_t *c = NULL;
    dfc_coll_xfer_t *sx = NULL, *rx = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_coll_check_call(&call, comm, &c))) goto fn_fail;
    if (r->buf == DFC_IN_PLACE) {
        rc = dfc_err(DFC_ERR_BUFFER, call.func,
                     "invalid argument recvbuf: DFC_IN_PLACE is not allowed here");
        goto fn_fail;
    }
    if (!(sx = malloc((size_t)c->size * sizeof *sx)) ||
        !(rx = malloc((size_t)c->size * sizeof *rx))) {
        rc = dfc_err(DFC_ERR_NO_MEM, call.func, "out of memory listing the blocks");
        goto fn_fail;
    }
    if ((!in_place && (rc = side_blocks(call.func, s, snames, c->size, sx))) ||
        (rc = side_blocks(call.func, r, rnames, c->size, rx)))
        goto fn_fail;
    uint64_t sbytes = 0, rbytes = 0; /* buffers of no bytes may share an address (MPI) */
    for (int p = 0; p < c->size; p++) {
        sbytes += in_place ? 0 : sx[p].bytes;
        rbytes += rx[p].bytes;
    }
    if (!in_place && s->buf && s->buf == r->buf && sbytes && rbytes) {
        rc = dfc_err(DFC_ERR_BUFFER, call.func,
                     "invalid arguments sendbuf and recvbuf: they alias (use DFC_IN_PLACE)");
        goto fn_fail;
    }
    dfc_coll_args_t a = {.kind = DFC_COLL_ALLTOALLW, .in_place = in_place, .selem = 1, .relem = 1};
    a.nsends = a.nrecvs = c->size;
    a.sends = in_place ? rx : sx;
    a.recvs = rx;
    if ((rc = dfc_coll_run(&call, c, &a, in_place ? NULL : s->buf, (void *)r->buf, NULL, NULL)))
        goto fn_fail;
fn_exit:
    free(sx);
    free(rx);
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

#define A2AW_SIDES                                                          \
    &(a2aw_side_t){sendbuf, sendcounts, sdispls, sendtypes}, &(a2aw_side_t) \
    {                                                                       \
        recvbuf, recvcounts, rdispls, recvtypes                             \
    }

int DFC_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const DFC_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm)
{
    return alltoallw_common(DFC_BLOCKING_CALL, A2AW_SIDES, comm);
}

int DFC_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const DFC_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm,
                   DFC_Request *request)
{
    return alltoallw_common(DFC_NONBLOCKING_CALL(request), A2AW_SIDES, comm);
}

int DFC_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const DFC_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm,
                       DFC_Info info, DFC_Request *request)
{
    return alltoallw_common(DFC_PERSISTENT_CALL(info, request), A2AW_SIDES, comm);
}
