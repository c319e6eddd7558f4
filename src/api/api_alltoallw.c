/*
 * api_alltoallw.c - Alltoallw, Ialltoallw, Alltoallw_init (MPI-4.1 6.8): an alltoall where
 * each peer's block has its own count, byte displacement and datatype, on both sides.
 *
 * The entry points check the arguments, list this rank's blocks as transfers (one per rank,
 * byte offset and length: dfc_coll_xfer_t) and hand them to dfc_coll_run, which runs them
 * by pairwise exchange (src/coll/alltoall_pairwise.c). A side with a non-dense type runs
 * packed: its blocks become one internal struct type (block p: counts[p] items of types[p]
 * at displs[p] bytes), whose packed form is the blocks one after another in rank order, and
 * the transfers address that packed copy, which run.c packs and unpacks as for any
 * collective with a non-dense type. With DFC_IN_PLACE as sendbuf the
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

/* One side's blocks as one struct type, and its transfers re-addressed to its packed form. */
static int side_packed(const char *func, const a2aw_side_t *sd, dfc_dtype_t **dts, int n,
                       dfc_coll_xfer_t *x, dfc_dtype_t **out)
{
    size_t *blens = malloc(((size_t)n + 1) * sizeof *blens);
    DFC_Aint *displs = malloc(((size_t)n + 1) * sizeof *displs);
    int rc = DFC_SUCCESS;
    uint64_t at = 0;
    if (!blens || !displs) {
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory describing the blocks");
        goto out;
    }
    for (int p = 0; p < n; p++) {
        blens[p] = (size_t)sd->counts[p];
        displs[p] = sd->displs[p];
        x[p].off = at;
        at += x[p].bytes;
    }
    dfc_dtype_args_t args = {.combiner = DFC_COMBINER_STRUCT};
    rc = dfc_dtype_blocks(func, (size_t)n, blens, displs, dts, &args, out);
out:
    free(blens);
    free(displs);
    return rc;
}

/* Checks one side and lists its blocks in x (n entries); names: buf, counts, displs, types.
 * *packed: the side's struct type when one of its types is not dense (NULL otherwise; the
 * caller releases it). */
static int side_blocks(const char *func, const a2aw_side_t *sd, const char *const names[4], int n,
                       dfc_coll_xfer_t *x, dfc_dtype_t **packed)
{
    int rc, dense = 1;
    dfc_dtype_t **dts;
    *packed = NULL;
    if ((rc = dfc_coll_check_counts(func, names[1], sd->counts, NULL, n))) return rc;
    if (n > 0 && !sd->displs)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", names[2]);
    if (n > 0 && !sd->types)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", names[3]);
    if (!(dts = malloc(((size_t)n + 1) * sizeof *dts)))
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory listing the blocks");
    for (int p = 0; p < n; p++) {
        if ((rc = dfc_dtype_check(sd->types[p], func, names[3], &dts[p]))) goto out;
        x[p].peer = p;
        x[p].off = (uint64_t)(int64_t)sd->displs[p];
        x[p].bytes = (uint64_t)sd->counts[p] * dts[p]->size;
        if (sd->counts[p] && !dts[p]->dense) dense = 0;
        if (!sd->buf && x[p].bytes && !dfc_api_bottom_ok(dts[p])) {
            rc = dfc_err(DFC_ERR_BUFFER, func,
                         "invalid argument %s: NULL while %s element %d is a datatype whose data "
                         "starts at its origin (DFC_BOTTOM needs a type of absolute addresses)",
                         names[0], names[3], p);
            goto out;
        }
    }
    if (!dense) rc = side_packed(func, sd, dts, n, x, packed);
out:
    free(dts);
    return rc;
}

static int alltoallw_common(dfc_coll_call_t call, const a2aw_side_t *s, const a2aw_side_t *r,
                            DFC_Comm comm)
{
    static const char *const snames[4] = {"sendbuf", "sendcounts", "sdispls", "sendtypes"};
    static const char *const rnames[4] = {"recvbuf", "recvcounts", "rdispls", "recvtypes"};
    int rc, in_place = s->buf == DFC_IN_PLACE;
    dfc_comm_t *c = NULL;
    dfc_coll_xfer_t *sx = NULL, *rx = NULL;
    dfc_dtype_t *spk = NULL, *rpk = NULL; /* packed sides (side_blocks) */
    DFC_API_ENTER();
    if ((c = dfc_api_inter_of(comm))) { /* api_inter_coll.c */
        if ((rc = dfc_api_inter_alltoallw(&call, c, s->buf, s->counts, s->displs, s->types,
                                          (void *)r->buf, r->counts, r->displs, r->types)))
            goto fn_fail;
        goto fn_exit;
    }
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
    if ((!in_place && (rc = side_blocks(call.func, s, snames, c->size, sx, &spk))) ||
        (rc = side_blocks(call.func, r, rnames, c->size, rx, &rpk)))
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
    a.stype = in_place ? NULL : spk; /* in place: sends read the receive side's packed copy */
    a.rtype = rpk;
    if ((rc = dfc_coll_run(&call, c, &a, in_place ? NULL : s->buf, (void *)r->buf, NULL, NULL)))
        goto fn_fail;
fn_exit:
    if (spk) dfc_dtype_release(spk); /* a pending call's shadows hold their own reference */
    if (rpk) dfc_dtype_release(rpk);
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
