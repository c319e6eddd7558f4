/*
 * api_neighbor.c - the neighborhood collectives (MPI-4.1 8.6): Neighbor_allgather(v) and
 * Neighbor_alltoall(v/w), blocking, nonblocking and persistent.
 *
 * The entry points check the arguments, list this rank's transfers from the topology and
 * the counts (dfc_coll_xfer_t: peer, byte offset, bytes), and hand them to dfc_coll_run
 * like any collective (generator: src/coll/neighbor_linear.c). Matching between two ranks
 * goes by posting order, so the lists' order is the matching rule:
 *  - graph and distributed graph: receives in the order of the sources, sends in the order
 *    of the destinations; the k-th message from p to q matches q's k-th receive from p;
 *  - Cartesian: per dimension, the receive from the negative neighbor is posted before the
 *    one from the positive neighbor, and the send to the positive neighbor before the one
 *    to the negative neighbor, so that in a periodic dimension of size 1 or 2 (where both
 *    neighbors are one process) the block sent in the positive direction still lands in
 *    the receiver's block from its negative neighbor, as a halo exchange expects and as
 *    MPI_Cart_shift-based send-receives would deliver it.
 * DFC_IN_PLACE is not allowed (MPI-4.1 defines no in-place form here).
 */
#include <stdlib.h>
#include <string.h>

#include "api/api_topo.h"

/* One call's arguments; the v and w forms fill the arrays, the others the scalars. */
typedef struct nbr_call {
    dfc_coll_kind_t kind;
    const void *sendbuf;
    int sendcount;
    const int *sendcounts, *sdispls;
    const DFC_Aint *sdispls_w;
    DFC_Datatype sendtype;
    const DFC_Datatype *sendtypes;
    void *recvbuf;
    int recvcount;
    const int *recvcounts, *rdispls;
    const DFC_Aint *rdispls_w;
    DFC_Datatype recvtype;
    const DFC_Datatype *recvtypes;
} nbr_call_t;

static int check_counts(const char *func, const char *cname, const int *counts, const char *dname,
                        const void *displs, int n)
{
    if (n <= 0) return DFC_SUCCESS;
    if (!counts) return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", cname);
    if (!displs) return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", dname);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return dfc_err(DFC_ERR_COUNT, func, "invalid argument %s: element %d is negative (%d)",
                           cname, i, counts[i]);
    return DFC_SUCCESS;
}

/* Fills one side's transfer list (send: is_send) and checks that side's arguments. */
static int side_xfers(const char *func, const nbr_call_t *k, int is_send, const int *peers, int n,
                      dfc_coll_xfer_t *x, const dfc_dtype_t **dt0)
{
    int rc, v = k->kind == DFC_COLL_NEIGHBOR_ALLTOALLV ||
                (!is_send && k->kind == DFC_COLL_NEIGHBOR_ALLGATHERV);
    int w = k->kind == DFC_COLL_NEIGHBOR_ALLTOALLW;
    int a2a = k->kind == DFC_COLL_NEIGHBOR_ALLTOALL || k->kind == DFC_COLL_NEIGHBOR_ALLTOALLV || w;
    const void *buf = is_send ? k->sendbuf : k->recvbuf;
    const char *bname = is_send ? "sendbuf" : "recvbuf";
    const int *counts = is_send ? k->sendcounts : k->recvcounts;
    const int *displs = is_send ? k->sdispls : k->rdispls;
    const DFC_Aint *wdispls = is_send ? k->sdispls_w : k->rdispls_w;
    const DFC_Datatype *types = is_send ? k->sendtypes : k->recvtypes;
    dfc_dtype_t *d = NULL;
    uint64_t total = 0;
    if (buf == DFC_IN_PLACE)
        return dfc_err(DFC_ERR_BUFFER, func,
                       "invalid argument %s: DFC_IN_PLACE is not allowed in a "
                       "neighborhood collective",
                       bname);
    if (w) {
        if ((rc = check_counts(func, is_send ? "sendcounts" : "recvcounts", counts,
                               is_send ? "sdispls" : "rdispls", wdispls, n)) ||
            (rc = dfc_topo_api_check_array(func, is_send ? "sendtypes" : "recvtypes", types, n)))
            return rc;
    } else if (v) {
        if ((rc = check_counts(func, is_send ? "sendcounts" : "recvcounts", counts,
                               is_send ? "sdispls"
                                       : (k->kind == DFC_COLL_NEIGHBOR_ALLGATHERV ? "displs"
                                                                                  : "rdispls"),
                               displs, n)))
            return rc;
    }
    if (!w) {
        /* The count here; the buffer below, against the bytes this process really moves (a
         * process without neighbors on a side may pass NULL). */
        int cnt = is_send ? k->sendcount : k->recvcount;
        if ((!v && (rc = dfc_api_check_count(func, is_send ? "sendcount" : "recvcount", cnt))) ||
            (rc = dfc_coll_check_buf(func, bname, buf, 0, is_send ? k->sendtype : k->recvtype, 0,
                                     &d)))
            return rc;
        *dt0 = d;
    }
    for (int i = 0; i < n; i++) {
        x[i].peer = peers[i];
        if (w) {
            if ((rc = dfc_dtype_check(types[i], func, is_send ? "sendtypes" : "recvtypes", &d)))
                return rc;
            /* No *dt0: byte displacements cannot address a packed copy, so a block must be
             * one run of bytes, as it is when its type's data is (a struct at absolute
             * addresses for DFC_BOTTOM is) and its items follow one another. */
            if (counts[i] && (!d->contig || (counts[i] > 1 && d->extent != (DFC_Aint)d->size)))
                return dfc_err(DFC_ERR_UNSUPPORTED_OPERATION, func,
                               "invalid argument %s: element %d is a non-contiguous datatype, "
                               "which the w form does not support yet",
                               is_send ? "sendtypes" : "recvtypes", i);
            x[i].off = (uint64_t)(wdispls[i] + d->true_lb);
            x[i].bytes = (uint64_t)counts[i] * d->size;
            /* With DFC_BOTTOM the address may be in the displacement (a DFC_Aint) or in
             * the type; a block whose data would start at 0 has it in neither. */
            if (!buf && x[i].bytes && peers[i] != DFC_PROC_NULL && x[i].off == 0)
                return dfc_err(DFC_ERR_BUFFER, func,
                               "invalid argument %s: NULL while block %d (%s element %d, %s "
                               "element %d) starts at address 0 (DFC_BOTTOM needs absolute "
                               "addresses in the displacements or the datatype)",
                               bname, i, is_send ? "sdispls" : "rdispls", i,
                               is_send ? "sendtypes" : "recvtypes", i);
        } else if (v) {
            x[i].off = (uint64_t)(int64_t)displs[i] * d->size;
            x[i].bytes = (uint64_t)counts[i] * d->size;
        } else {
            uint64_t blk = (uint64_t)(is_send ? k->sendcount : k->recvcount) * d->size;
            x[i].off = is_send && !a2a ? 0 : (uint64_t)i * blk;
            x[i].bytes = blk;
        }
        if (peers[i] != DFC_PROC_NULL) total += x[i].bytes;
    }
    if (total > 0 && !buf && !w && !dfc_api_bottom_ok(d))
        return dfc_err(DFC_ERR_BUFFER, func,
                       "invalid argument %s: NULL with a datatype whose data starts at its "
                       "origin (DFC_BOTTOM needs a type of absolute addresses)",
                       bname);
    return DFC_SUCCESS;
}

/* Cartesian: posts the send to the positive neighbor of each dimension first (file comment). */
static void cart_send_order(const dfc_topo_t *t, dfc_coll_xfer_t *x)
{
    for (int d = 0; d < t->ndims; d++) {
        dfc_coll_xfer_t tmp = x[2 * d];
        x[2 * d] = x[2 * d + 1];
        x[2 * d + 1] = tmp;
    }
}

static int nbr_common(dfc_coll_call_t call, const nbr_call_t *k, DFC_Comm comm)
{
    int rc, indeg = 0, outdeg = 0, *in = NULL, *out = NULL;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    dfc_coll_xfer_t *rx = NULL, *sx = NULL;
    const dfc_dtype_t *sdt = NULL, *rdt = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_coll_check_call(&call, comm, &c))) goto fn_fail;
    if ((rc = dfc_topo_api_check(call.func, comm, 0, &c, &t)) ||
        (rc = dfc_topo_neighbors(t, c->rank, &indeg, &in, &outdeg, &out)))
        goto fn_fail;
    rx = malloc((size_t)(indeg + 1) * sizeof *rx);
    sx = malloc((size_t)(outdeg + 1) * sizeof *sx);
    if (!rx || !sx) {
        rc = dfc_err(DFC_ERR_NO_MEM, call.func, "out of memory listing the transfers");
        goto fn_fail;
    }
    if ((rc = side_xfers(call.func, k, 1, out, outdeg, sx, &sdt)) ||
        (rc = side_xfers(call.func, k, 0, in, indeg, rx, &rdt)))
        goto fn_fail;
    if (t->kind == DFC_CART) cart_send_order(t, sx);
    dfc_coll_args_t a = {.kind = k->kind,
                         .nrecvs = indeg,
                         .nsends = outdeg,
                         .recvs = rx,
                         .sends = sx,
                         .selem = sdt ? sdt->size : 1,
                         .relem = rdt ? rdt->size : 1};
    /* The schedule depends on comm, kind and these sizes only, so the blocking scalar forms
     * may be cached (coll/cache.c); the v and w forms mark their arrays and are not. */
    a.sbytes = (uint64_t)k->sendcount * a.selem;
    a.rbytes = (uint64_t)k->recvcount * a.relem;
    a.stype = sdt && !sdt->dense ? sdt : NULL;
    a.rtype = rdt && !rdt->dense ? rdt : NULL;
    a.scounts = k->sendcounts;
    a.vcounts = k->recvcounts;
    if ((rc = dfc_coll_run(&call, c, &a, k->sendbuf, k->recvbuf, NULL, NULL))) goto fn_fail;
fn_exit:
    free(in);
    free(out);
    free(rx);
    free(sx);
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

/* ---- Entry points ------------------------------------------------------------------------- */

#define NBR_SCALAR(kind_, sb, sc, st, rb, rc_, rt) \
    (&(nbr_call_t){.kind = (kind_),                \
                   .sendbuf = (sb),                \
                   .sendcount = (sc),              \
                   .sendtype = (st),               \
                   .recvbuf = (rb),                \
                   .recvcount = (rc_),             \
                   .recvtype = (rt)})

int DFC_Neighbor_allgather(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                           int recvcount, DFC_Datatype recvtype, DFC_Comm comm)
{
    return nbr_common(DFC_BLOCKING_CALL,
                      NBR_SCALAR(DFC_COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype),
                      comm);
}
int DFC_Ineighbor_allgather(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                            void *recvbuf, int recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                            DFC_Request *request)
{
    return nbr_common(DFC_NONBLOCKING_CALL(request),
                      NBR_SCALAR(DFC_COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype),
                      comm);
}
int DFC_Neighbor_allgather_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                                void *recvbuf, int recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                                DFC_Info info, DFC_Request *request)
{
    return nbr_common(DFC_PERSISTENT_CALL(info, request),
                      NBR_SCALAR(DFC_COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype),
                      comm);
}

int DFC_Neighbor_alltoall(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                          int recvcount, DFC_Datatype recvtype, DFC_Comm comm)
{
    return nbr_common(DFC_BLOCKING_CALL,
                      NBR_SCALAR(DFC_COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype),
                      comm);
}
int DFC_Ineighbor_alltoall(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                           int recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                           DFC_Request *request)
{
    return nbr_common(DFC_NONBLOCKING_CALL(request),
                      NBR_SCALAR(DFC_COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype),
                      comm);
}
int DFC_Neighbor_alltoall_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                               void *recvbuf, int recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                               DFC_Info info, DFC_Request *request)
{
    return nbr_common(DFC_PERSISTENT_CALL(info, request),
                      NBR_SCALAR(DFC_COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype),
                      comm);
}

#define NBR_GATHERV(sb, sc, st, rb, rcs, ds, rt)         \
    (&(nbr_call_t){.kind = DFC_COLL_NEIGHBOR_ALLGATHERV, \
                   .sendbuf = (sb),                      \
                   .sendcount = (sc),                    \
                   .sendtype = (st),                     \
                   .recvbuf = (rb),                      \
                   .recvcounts = (rcs),                  \
                   .rdispls = (ds),                      \
                   .recvtype = (rt)})

int DFC_Neighbor_allgatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            DFC_Datatype recvtype, DFC_Comm comm)
{
    return nbr_common(DFC_BLOCKING_CALL,
                      NBR_GATHERV(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype),
                      comm);
}
int DFC_Ineighbor_allgatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request)
{
    return nbr_common(DFC_NONBLOCKING_CALL(request),
                      NBR_GATHERV(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype),
                      comm);
}
int DFC_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info,
                                 DFC_Request *request)
{
    return nbr_common(DFC_PERSISTENT_CALL(info, request),
                      NBR_GATHERV(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype),
                      comm);
}

#define NBR_A2AV(sb, scs, sds, st, rb, rcs, rds, rt)    \
    (&(nbr_call_t){.kind = DFC_COLL_NEIGHBOR_ALLTOALLV, \
                   .sendbuf = (sb),                     \
                   .sendcounts = (scs),                 \
                   .sdispls = (sds),                    \
                   .sendtype = (st),                    \
                   .recvbuf = (rb),                     \
                   .recvcounts = (rcs),                 \
                   .rdispls = (rds),                    \
                   .recvtype = (rt)})

int DFC_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           DFC_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], DFC_Datatype recvtype, DFC_Comm comm)
{
    return nbr_common(DFC_BLOCKING_CALL,
                      NBR_A2AV(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype),
                      comm);
}
int DFC_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            DFC_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], DFC_Datatype recvtype, DFC_Comm comm,
                            DFC_Request *request)
{
    return nbr_common(DFC_NONBLOCKING_CALL(request),
                      NBR_A2AV(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype),
                      comm);
}
int DFC_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                DFC_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], DFC_Datatype recvtype, DFC_Comm comm,
                                DFC_Info info, DFC_Request *request)
{
    return nbr_common(DFC_PERSISTENT_CALL(info, request),
                      NBR_A2AV(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype),
                      comm);
}

#define NBR_A2AW(sb, scs, sds, sts, rb, rcs, rds, rts)  \
    (&(nbr_call_t){.kind = DFC_COLL_NEIGHBOR_ALLTOALLW, \
                   .sendbuf = (sb),                     \
                   .sendcounts = (scs),                 \
                   .sdispls_w = (sds),                  \
                   .sendtypes = (sts),                  \
                   .recvbuf = (rb),                     \
                   .recvcounts = (rcs),                 \
                   .rdispls_w = (rds),                  \
                   .recvtypes = (rts)})

int DFC_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const DFC_Aint sdispls[],
                           const DFC_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const DFC_Aint rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm)
{
    return nbr_common(DFC_BLOCKING_CALL,
                      NBR_A2AW(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes),
                      comm);
}
int DFC_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const DFC_Aint sdispls[],
                            const DFC_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const DFC_Aint rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm,
                            DFC_Request *request)
{
    return nbr_common(DFC_NONBLOCKING_CALL(request),
                      NBR_A2AW(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes),
                      comm);
}
int DFC_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const DFC_Aint sdispls[], const DFC_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const DFC_Aint rdispls[],
                                const DFC_Datatype recvtypes[], DFC_Comm comm, DFC_Info info,
                                DFC_Request *request)
{
    return nbr_common(DFC_PERSISTENT_CALL(info, request),
                      NBR_A2AW(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes),
                      comm);
}
