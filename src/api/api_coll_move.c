/*
 * api_coll_move.c - collective entry points that move data without reducing it: gather,
 * scatter, allgather, alltoall and their v forms.
 */
#include "api/api_coll_common.h"

/* Whether a side describes no bytes at all: MPI lets such a buffer be anything, NULL or the
 * other side's address (mpi4py passes two empty arrays that share one address). */
static int side_empty(int v, int count, const int *counts, int n, const dfc_dtype_t *d)
{
    if (!d || d->size == 0) return 1;
    if (!v) return count == 0;
    for (int i = 0; i < n; i++)
        if (counts[i] > 0) return 0;
    return 1;
}

/* The send side, where it is significant and not DFC_IN_PLACE. */
static int check_send(const char *func, const move_desc_t *m, const dfc_comm_t *c, int in_place_ok,
                      dfc_dtype_t **sd)
{
    int rc;
    if (!m->vsend)
        return dfc_coll_check_buf(func, "sendbuf", m->sendbuf, m->sendcount, m->sendtype,
                                  in_place_ok, sd);
    if ((rc = dfc_coll_check_counts(func, "sendcounts", m->sendcounts, m->sdispls, c->size)) ||
        (rc = dfc_coll_check_counts(func, "sdispls", m->sdispls, NULL, 0)) ||
        (rc = dfc_dtype_check(m->sendtype, func, "sendtype", sd)))
        return rc;
    if (!m->sendbuf && !side_empty(1, 0, m->sendcounts, c->size, *sd) && !dfc_api_bottom_ok(*sd))
        return dfc_err(DFC_ERR_BUFFER, func,
                       "invalid argument sendbuf: NULL with a datatype whose data starts at its "
                       "origin (DFC_BOTTOM needs a type of absolute addresses)");
    return DFC_SUCCESS;
}

/* The receive side, where it is significant (not at the root of an in-place scatter). */
static int check_recv(const char *func, const move_desc_t *m, const dfc_comm_t *c, dfc_dtype_t **rd)
{
    int rc;
    if (m->recvbuf == DFC_IN_PLACE)
        return dfc_err(DFC_ERR_BUFFER, func,
                       "invalid argument recvbuf: DFC_IN_PLACE is not allowed here");
    if (!m->vrecv)
        return dfc_coll_check_buf(func, "recvbuf", m->recvbuf, m->recvcount, m->recvtype, 0, rd);
    if ((rc = dfc_coll_check_counts(func, "recvcounts", m->recvcounts, m->rdispls, c->size)) ||
        (rc = dfc_coll_check_counts(func, "rdispls", m->rdispls, NULL, 0)) ||
        (rc = dfc_dtype_check(m->recvtype, func, "recvtype", rd)))
        return rc;
    if (!m->recvbuf && !side_empty(1, 0, m->recvcounts, c->size, *rd) && !dfc_api_bottom_ok(*rd))
        return dfc_err(DFC_ERR_BUFFER, func,
                       "invalid argument recvbuf: NULL with a datatype whose data starts at its "
                       "origin (DFC_BOTTOM needs a type of absolute addresses)");
    return DFC_SUCCESS;
}

/* A blocking allgather or alltoall whose arguments are plainly valid may go without an
 * instance straight into the shm slots (issue 16), as bcast_common's and reduction_common's do:
 * move_common's checks in short (the buffers' memory type in the coll layer), then
 * dfc_coll_move_host_direct. On 2 ranks the general path's checks and routing were a quarter of
 * an 8-byte allgather (BENCHMARKS.md, stop 51). The entry points call it before they build a
 * move_desc_t, whose zeroing was 5 % of the call. DFC_COLL_NOT_DIRECT: take the general path. */
static int move_direct(dfc_coll_kind_t kind, const void *sendbuf, int sendcount,
                       DFC_Datatype sendtype, void *recvbuf, int recvcount, DFC_Datatype recvtype,
                       DFC_Comm comm)
{
    int rc = DFC_COLL_NOT_DIRECT;
    dfc_comm_t *c;
    dfc_dtype_t *sd, *rd;
    DFC_API_ENTER();
    if ((c = dfc_comm_get(comm)) && !c->remote && (sd = dfc_dtype_get(sendtype)) && sd->committed &&
        sd->dense && (rd = dfc_dtype_get(recvtype)) && rd->committed && rd->dense &&
        sendcount > 0 && recvcount > 0 && sendbuf && recvbuf && sendbuf != DFC_IN_PLACE &&
        recvbuf != DFC_IN_PLACE && sendbuf != recvbuf &&
        (rc = dfc_coll_move_host_direct(c, kind, sendbuf, (uint64_t)sendcount * sd->size, recvbuf,
                                        (uint64_t)recvcount * rd->size)) > 0)
        rc = dfc_api_error(c, rc);
    DFC_API_EXIT();
    return rc;
}
#define MOVE_DIRECT_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm

static int move_common(dfc_coll_call_t call, const move_desc_t *m, DFC_Comm comm)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *sd = NULL, *rd = NULL;
    DFC_API_ENTER();
    if ((c = dfc_api_inter_of(comm))) {
        rc = m->kind == DFC_COLL_ALLGATHER
                 ? dfc_api_inter_allgather(&call, c, m->sendbuf, m->sendcount, m->sendtype,
                                           m->recvbuf, m->recvcount, m->recvtype)
                 : dfc_api_inter_move(&call, c, m);
        if (rc) goto fn_fail;
        goto fn_exit;
    }
    if ((rc = dfc_coll_check_call(&call, comm, &c))) goto fn_fail;
    int rooted = m->rooted, is_root = 1;
    if (rooted) {
        if ((rc = dfc_coll_check_root(call.func, c, m->root))) goto fn_fail;
        is_root = c->rank == m->root;
    }
    int scatter_like = m->kind == DFC_COLL_SCATTER || m->kind == DFC_COLL_SCATTERV;
    int gather_like = m->kind == DFC_COLL_GATHER || m->kind == DFC_COLL_GATHERV;
    int send_used = !scatter_like || is_root; /* is the send side significant here? */
    int recv_used = !gather_like || is_root;
    /* DFC_IN_PLACE: sendbuf at the root of gather and everywhere for allgather/alltoall;
     * recvbuf at the root of scatter. */
    int send_in_place_ok = scatter_like ? 0 : (gather_like ? is_root : 1);
    int in_place = (send_used && m->sendbuf == DFC_IN_PLACE) ||
                   (scatter_like && is_root && m->recvbuf == DFC_IN_PLACE);
    if (scatter_like && !is_root && m->recvbuf == DFC_IN_PLACE) {
        rc = dfc_err(DFC_ERR_BUFFER, call.func,
                     "invalid argument recvbuf: DFC_IN_PLACE is only allowed at the root");
        goto fn_fail;
    }
    if (send_used && m->sendbuf == DFC_IN_PLACE && !send_in_place_ok) {
        rc = dfc_err(DFC_ERR_BUFFER, call.func, "invalid argument sendbuf: DFC_IN_PLACE is %s",
                     gather_like ? "only allowed at the root" : "not allowed here");
        goto fn_fail;
    }
    if (send_used && m->sendbuf != DFC_IN_PLACE &&
        (rc = check_send(call.func, m, c, send_in_place_ok, &sd)))
        goto fn_fail;
    if (recv_used && !(scatter_like && in_place) && (rc = check_recv(call.func, m, c, &rd)))
        goto fn_fail;
    if (!rooted && m->sendbuf && m->sendbuf != DFC_IN_PLACE && m->sendbuf == m->recvbuf &&
        !side_empty(m->vsend, m->sendcount, m->sendcounts, c->size, sd) &&
        !side_empty(m->vrecv, m->recvcount, m->recvcounts, c->size, rd)) {
        rc = dfc_err(DFC_ERR_BUFFER, call.func,
                     "invalid arguments sendbuf and recvbuf: they alias (use DFC_IN_PLACE)");
        goto fn_fail;
    }
    dfc_coll_args_t a = {.kind = m->kind, .root = rooted ? m->root : 0, .in_place = in_place};
    a.selem = sd ? sd->size : 0;
    a.relem = rd ? rd->size : 0;
    a.sbytes = sd && !m->vsend ? (uint64_t)m->sendcount * sd->size : 0;
    a.rbytes = rd && !m->vrecv ? (uint64_t)m->recvcount * rd->size : 0;
    a.stype = sd && !sd->dense ? sd : NULL;
    a.rtype = rd && !rd->dense ? rd : NULL;
    a.scounts = m->sendcounts;
    a.sdispls = m->sdispls;
    a.vcounts = m->recvcounts;
    a.vdispls = m->rdispls;
    const void *sbuf = m->sendbuf == DFC_IN_PLACE ? NULL : m->sendbuf;
    void *rbuf = m->recvbuf == DFC_IN_PLACE ? NULL : m->recvbuf;
    if ((rc = dfc_coll_run(&call, c, &a, sbuf, rbuf, NULL, NULL))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

#define NO_ROOT (-0x7fffffff) /* marks the forms without a root argument */
#define BLOCK_DESC(kind_, root_)                 \
    ((move_desc_t){.kind = (kind_),              \
                   .sendbuf = sendbuf,           \
                   .sendcount = sendcount,       \
                   .sendtype = sendtype,         \
                   .recvbuf = recvbuf,           \
                   .recvcount = recvcount,       \
                   .recvtype = recvtype,         \
                   .rooted = (root_) != NO_ROOT, \
                   .root = (root_)})

/* ---- Gather / Gatherv ---------------------------------------------------------------------- */
int DFC_Gather(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
               int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm)
{
    return move_common(DFC_BLOCKING_CALL, &BLOCK_DESC(DFC_COLL_GATHER, root), comm);
}
int DFC_Igather(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm, DFC_Request *request)
{
    return move_common(DFC_NONBLOCKING_CALL(request), &BLOCK_DESC(DFC_COLL_GATHER, root), comm);
}
int DFC_Gather_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                    int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm, DFC_Info info,
                    DFC_Request *request)
{
    return move_common(DFC_PERSISTENT_CALL(info, request), &BLOCK_DESC(DFC_COLL_GATHER, root),
                       comm);
}

#define GATHERV_DESC                         \
    ((move_desc_t){.kind = DFC_COLL_GATHERV, \
                   .vrecv = 1,               \
                   .sendbuf = sendbuf,       \
                   .sendcount = sendcount,   \
                   .sendtype = sendtype,     \
                   .recvbuf = recvbuf,       \
                   .recvcounts = recvcounts, \
                   .rdispls = displs,        \
                   .recvtype = recvtype,     \
                   .rooted = 1,              \
                   .root = root})
int DFC_Gatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], DFC_Datatype recvtype, int root,
                DFC_Comm comm)
{
    return move_common(DFC_BLOCKING_CALL, &GATHERV_DESC, comm);
}
int DFC_Igatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], DFC_Datatype recvtype, int root,
                 DFC_Comm comm, DFC_Request *request)
{
    return move_common(DFC_NONBLOCKING_CALL(request), &GATHERV_DESC, comm);
}
int DFC_Gatherv_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], DFC_Datatype recvtype, int root,
                     DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return move_common(DFC_PERSISTENT_CALL(info, request), &GATHERV_DESC, comm);
}

/* ---- Scatter / Scatterv -------------------------------------------------------------------- */
int DFC_Scatter(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm)
{
    return move_common(DFC_BLOCKING_CALL, &BLOCK_DESC(DFC_COLL_SCATTER, root), comm);
}
int DFC_Iscatter(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                 int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm,
                 DFC_Request *request)
{
    return move_common(DFC_NONBLOCKING_CALL(request), &BLOCK_DESC(DFC_COLL_SCATTER, root), comm);
}
int DFC_Scatter_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                     int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm, DFC_Info info,
                     DFC_Request *request)
{
    return move_common(DFC_PERSISTENT_CALL(info, request), &BLOCK_DESC(DFC_COLL_SCATTER, root),
                       comm);
}

#define SCATTERV_DESC                         \
    ((move_desc_t){.kind = DFC_COLL_SCATTERV, \
                   .vsend = 1,                \
                   .sendbuf = sendbuf,        \
                   .sendcounts = sendcounts,  \
                   .sdispls = displs,         \
                   .sendtype = sendtype,      \
                   .recvbuf = recvbuf,        \
                   .recvcount = recvcount,    \
                   .recvtype = recvtype,      \
                   .rooted = 1,               \
                   .root = root})
int DFC_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 DFC_Datatype sendtype, void *recvbuf, int recvcount, DFC_Datatype recvtype,
                 int root, DFC_Comm comm)
{
    return move_common(DFC_BLOCKING_CALL, &SCATTERV_DESC, comm);
}
int DFC_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  DFC_Datatype sendtype, void *recvbuf, int recvcount, DFC_Datatype recvtype,
                  int root, DFC_Comm comm, DFC_Request *request)
{
    return move_common(DFC_NONBLOCKING_CALL(request), &SCATTERV_DESC, comm);
}
int DFC_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      DFC_Datatype sendtype, void *recvbuf, int recvcount, DFC_Datatype recvtype,
                      int root, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return move_common(DFC_PERSISTENT_CALL(info, request), &SCATTERV_DESC, comm);
}

/* ---- Allgather / Allgatherv ---------------------------------------------------------------- */
int DFC_Allgather(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                  int recvcount, DFC_Datatype recvtype, DFC_Comm comm)
{
    int rc = move_direct(DFC_COLL_ALLGATHER, MOVE_DIRECT_ARGS);
    if (rc != DFC_COLL_NOT_DIRECT) return rc;
    return move_common(DFC_BLOCKING_CALL, &BLOCK_DESC(DFC_COLL_ALLGATHER, NO_ROOT), comm);
}
int DFC_Iallgather(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                   int recvcount, DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request)
{
    return move_common(DFC_NONBLOCKING_CALL(request), &BLOCK_DESC(DFC_COLL_ALLGATHER, NO_ROOT),
                       comm);
}
int DFC_Allgather_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                       int recvcount, DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info,
                       DFC_Request *request)
{
    return move_common(DFC_PERSISTENT_CALL(info, request), &BLOCK_DESC(DFC_COLL_ALLGATHER, NO_ROOT),
                       comm);
}

#define ALLGATHERV_DESC                         \
    ((move_desc_t){.kind = DFC_COLL_ALLGATHERV, \
                   .vrecv = 1,                  \
                   .sendbuf = sendbuf,          \
                   .sendcount = sendcount,      \
                   .sendtype = sendtype,        \
                   .recvbuf = recvbuf,          \
                   .recvcounts = recvcounts,    \
                   .rdispls = displs,           \
                   .recvtype = recvtype,        \
                   .root = 0})
int DFC_Allgatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], DFC_Datatype recvtype, DFC_Comm comm)
{
    return move_common(DFC_BLOCKING_CALL, &ALLGATHERV_DESC, comm);
}
int DFC_Iallgatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], DFC_Datatype recvtype,
                    DFC_Comm comm, DFC_Request *request)
{
    return move_common(DFC_NONBLOCKING_CALL(request), &ALLGATHERV_DESC, comm);
}
int DFC_Allgatherv_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], DFC_Datatype recvtype,
                        DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return move_common(DFC_PERSISTENT_CALL(info, request), &ALLGATHERV_DESC, comm);
}

/* ---- Alltoall / Alltoallv ------------------------------------------------------------------ */
int DFC_Alltoall(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                 int recvcount, DFC_Datatype recvtype, DFC_Comm comm)
{
    int rc = move_direct(DFC_COLL_ALLTOALL, MOVE_DIRECT_ARGS);
    if (rc != DFC_COLL_NOT_DIRECT) return rc;
    return move_common(DFC_BLOCKING_CALL, &BLOCK_DESC(DFC_COLL_ALLTOALL, NO_ROOT), comm);
}
int DFC_Ialltoall(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                  int recvcount, DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request)
{
    return move_common(DFC_NONBLOCKING_CALL(request), &BLOCK_DESC(DFC_COLL_ALLTOALL, NO_ROOT),
                       comm);
}
int DFC_Alltoall_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                      int recvcount, DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info,
                      DFC_Request *request)
{
    return move_common(DFC_PERSISTENT_CALL(info, request), &BLOCK_DESC(DFC_COLL_ALLTOALL, NO_ROOT),
                       comm);
}

#define ALLTOALLV_DESC                         \
    ((move_desc_t){.kind = DFC_COLL_ALLTOALLV, \
                   .vsend = 1,                 \
                   .vrecv = 1,                 \
                   .sendbuf = sendbuf,         \
                   .sendcounts = sendcounts,   \
                   .sdispls = sdispls,         \
                   .sendtype = sendtype,       \
                   .recvbuf = recvbuf,         \
                   .recvcounts = recvcounts,   \
                   .rdispls = rdispls,         \
                   .recvtype = recvtype,       \
                   .root = 0})
int DFC_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  DFC_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  DFC_Datatype recvtype, DFC_Comm comm)
{
    return move_common(DFC_BLOCKING_CALL, &ALLTOALLV_DESC, comm);
}
int DFC_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   DFC_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request)
{
    return move_common(DFC_NONBLOCKING_CALL(request), &ALLTOALLV_DESC, comm);
}
int DFC_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       DFC_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info,
                       DFC_Request *request)
{
    return move_common(DFC_PERSISTENT_CALL(info, request), &ALLTOALLV_DESC, comm);
}
