/*
 * api_coll.c - collective entry points for barrier, bcast and the reductions, and the
 * argument checks all collective entry points share (api_coll_common.h). Each entry point
 * checks its arguments and calls dfc_coll_run (src/coll/run.c) once.
 */
#include <string.h>

#include "api/api_coll_common.h"

/* ---- Shared argument checks ------------------------------------------------------------------- */

int dfc_coll_check_call(const dfc_coll_call_t *call, DFC_Comm comm, dfc_comm_t **c)
{
    int rc = dfc_comm_check(comm, call->func, "comm", c);
    if (rc) return rc;
    if ((*c)->remote) /* those MPI defines on one came through dfc_api_inter_of first */
        return dfc_err(DFC_ERR_COMM, call->func,
                       "invalid argument comm: an intercommunicator, on which MPI does not "
                       "define this collective");
    if (call->mode != DFC_MODE_BLOCKING && !call->request)
        return dfc_err(DFC_ERR_ARG, call->func, "invalid argument request: NULL pointer");
    if (call->mode == DFC_MODE_PERSISTENT && call->info != DFC_INFO_NULL &&
        !dfc_htable_get(&dfc_info_table, call->info))
        return dfc_err(DFC_ERR_INFO, call->func,
                       "invalid argument info: 0x%x is not a valid info object",
                       (unsigned)call->info);
    return DFC_SUCCESS;
}

int dfc_coll_check_root(const char *func, const dfc_comm_t *c, int root)
{
    if (root >= 0 && root < c->size) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_ROOT, func,
                   "invalid argument root: %d is out of range for a communicator of size %d", root,
                   c->size);
}

int dfc_coll_check_buf(const char *func, const char *bufname, const void *buf, int count,
                       DFC_Datatype dt, int in_place_ok, dfc_dtype_t **d)
{
    int rc;
    if (buf == DFC_IN_PLACE) {
        if (!in_place_ok)
            return dfc_err(DFC_ERR_BUFFER, func,
                           "invalid argument %s: DFC_IN_PLACE is not allowed here", bufname);
        return DFC_SUCCESS;
    }
    /* The count and type arguments are named after the buffer, as in MPI's prototypes. */
    int is_send = bufname[0] == 's' && !strcmp(bufname, "sendbuf"),
        is_recv = bufname[0] == 'r' && !strcmp(bufname, "recvbuf");
    const char *countname = is_send ? "sendcount" : is_recv ? "recvcount" : "count";
    const char *typename = is_send ? "sendtype" : is_recv ? "recvtype" : "datatype";
    if ((rc = dfc_api_check_count(func, countname, count)) ||
        (rc = dfc_dtype_check(dt, func, typename, d)))
        return rc;
    return dfc_api_check_userbuf(func, bufname, buf, count, *d);
}

int dfc_coll_check_counts(const char *func, const char *name, const int *counts, const int *displs,
                          int n)
{
    if (!counts) return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", name);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return dfc_err(DFC_ERR_COUNT, func, "invalid argument %s: element %d is negative (%d)",
                           name, i, counts[i]);
    (void)displs;
    return DFC_SUCCESS;
}

/* ---- Barrier ------------------------------------------------------------------------------- */

static int barrier_common(dfc_coll_call_t call, DFC_Comm comm)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((c = dfc_api_inter_of(comm))) {
        if ((rc = dfc_api_inter_barrier(&call, c))) goto fn_fail;
        goto fn_exit;
    }
    if ((rc = dfc_coll_check_call(&call, comm, &c))) goto fn_fail;
    dfc_coll_args_t a = {.kind = DFC_COLL_BARRIER};
    if ((rc = dfc_coll_run(&call, c, &a, NULL, NULL, NULL, NULL))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Barrier(DFC_Comm comm) { return barrier_common(DFC_BLOCKING_CALL, comm); }
int DFC_Ibarrier(DFC_Comm comm, DFC_Request *request)
{
    return barrier_common(DFC_NONBLOCKING_CALL(request), comm);
}
int DFC_Barrier_init(DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return barrier_common(DFC_PERSISTENT_CALL(info, request), comm);
}

/* ---- Bcast --------------------------------------------------------------------------------- */

static int bcast_common(dfc_coll_call_t call, void *buffer, int count, DFC_Datatype datatype,
                        int root, DFC_Comm comm)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d = NULL;
    DFC_API_ENTER();
    /* A blocking bcast whose arguments are plainly valid may go without an instance straight
     * into the shm slots (issue 16): the checks below in short, then the coll layer's
     * dfc_coll_bcast_direct; anything else takes the general path. */
    if (call.mode == DFC_MODE_BLOCKING && (c = dfc_comm_get(comm)) && !c->remote &&
        (d = dfc_dtype_get(datatype)) && d->committed && d->dense && count > 0 && buffer &&
        buffer != DFC_IN_PLACE && root >= 0 && root < c->size &&
        (rc = dfc_coll_bcast_direct(c, buffer, (uint64_t)count * d->size, root)) !=
            DFC_COLL_NOT_DIRECT) {
        if (rc) goto fn_fail;
        goto fn_exit;
    }
    c = NULL;
    d = NULL;
    if ((c = dfc_api_inter_of(comm))) {
        if ((rc = dfc_api_inter_bcast(&call, c, buffer, count, datatype, root))) goto fn_fail;
        goto fn_exit;
    }
    if ((rc = dfc_coll_check_call(&call, comm, &c)) ||
        (rc = dfc_coll_check_buf(call.func, "buffer", buffer, count, datatype, 0, &d)) ||
        (rc = dfc_coll_check_root(call.func, c, root)))
        goto fn_fail;
    dfc_coll_args_t a = {.kind = DFC_COLL_BCAST,
                         .root = root,
                         .count = (uint64_t)count,
                         .elem = d->size,
                         .rtype = d->dense ? NULL : d};
    if ((rc = dfc_coll_run(&call, c, &a, NULL, buffer, d, NULL))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Bcast(void *buffer, int count, DFC_Datatype datatype, int root, DFC_Comm comm)
{
    return bcast_common(DFC_BLOCKING_CALL, buffer, count, datatype, root, comm);
}
int DFC_Ibcast(void *buffer, int count, DFC_Datatype datatype, int root, DFC_Comm comm,
               DFC_Request *request)
{
    return bcast_common(DFC_NONBLOCKING_CALL(request), buffer, count, datatype, root, comm);
}
int DFC_Bcast_init(void *buffer, int count, DFC_Datatype datatype, int root, DFC_Comm comm,
                   DFC_Info info, DFC_Request *request)
{
    return bcast_common(DFC_PERSISTENT_CALL(info, request), buffer, count, datatype, root, comm);
}

/* ---- Reductions: reduce, allreduce, scan, exscan, reduce_scatter(_block) -------------------- */

/* Checks sendbuf/recvbuf/count/datatype/op for a reduction. `recv_needed`: recvbuf must be
 * valid on this rank (all but non-root ranks of reduce). */
static int check_reduction(const char *func, const void *sendbuf, const void *recvbuf, int count,
                           DFC_Datatype datatype, DFC_Op op, int recv_needed, int in_place_ok,
                           dfc_dtype_t **d, dfc_op_t **o)
{
    int rc;
    if ((rc = dfc_api_check_count(func, "count", count)) ||
        (rc = dfc_dtype_check(datatype, func, "datatype", d)) ||
        (rc = dfc_op_check(op, *d, func, "op", o)))
        return rc;
    if (sendbuf == DFC_IN_PLACE && !in_place_ok)
        return dfc_err(DFC_ERR_BUFFER, func,
                       "invalid argument sendbuf: DFC_IN_PLACE is only allowed at the root");
    if (recvbuf == DFC_IN_PLACE)
        return dfc_err(DFC_ERR_BUFFER, func,
                       "invalid argument recvbuf: DFC_IN_PLACE is not allowed for recvbuf");
    if ((rc = dfc_api_check_userbuf(func, "sendbuf", sendbuf, count, *d)) ||
        (recv_needed && (rc = dfc_api_check_userbuf(func, "recvbuf", recvbuf, count, *d))))
        return rc;
    if (count > 0 && recv_needed && sendbuf == recvbuf)
        return dfc_err(DFC_ERR_BUFFER, func,
                       "invalid arguments sendbuf and recvbuf: they alias (use DFC_IN_PLACE)");
    return DFC_SUCCESS;
}

static int reduction_common(dfc_coll_call_t call, dfc_coll_kind_t kind, const void *sendbuf,
                            void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, int root,
                            DFC_Comm comm)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d = NULL;
    dfc_op_t *o = NULL;
    DFC_API_ENTER();
    /* A blocking allreduce whose arguments are plainly valid may go without an instance straight
     * into the shm slots (issue 16), as bcast_common's does: the checks below in short (the
     * buffers' memory type in the coll layer), then dfc_coll_allreduce_host_direct. */
    if (kind == DFC_COLL_ALLREDUCE && call.mode == DFC_MODE_BLOCKING && (c = dfc_comm_get(comm)) &&
        !c->remote && (d = dfc_dtype_get(datatype)) && d->committed && d->dense && count > 0 &&
        sendbuf && recvbuf && recvbuf != DFC_IN_PLACE && sendbuf != recvbuf &&
        (o = dfc_op_get(op)) && dfc_op_builtin_on(o, d) &&
        (rc = dfc_coll_allreduce_host_direct(c, sendbuf, recvbuf, (uint64_t)count, d, o)) !=
            DFC_COLL_NOT_DIRECT) {
        if (rc) goto fn_fail;
        goto fn_exit;
    }
    c = NULL;
    d = NULL;
    o = NULL;
    if ((c = dfc_api_inter_of(comm))) {
        if ((rc = dfc_api_inter_reduction(&call, c, kind, sendbuf, recvbuf, count, datatype, op,
                                          root)))
            goto fn_fail;
        goto fn_exit;
    }
    if ((rc = dfc_coll_check_call(&call, comm, &c))) goto fn_fail;
    int is_root = 1;
    if (kind == DFC_COLL_REDUCE) {
        if ((rc = dfc_coll_check_root(call.func, c, root))) goto fn_fail;
        is_root = c->rank == root;
    }
    if ((rc = check_reduction(call.func, sendbuf, recvbuf, count, datatype, op, is_root, is_root,
                              &d, &o)))
        goto fn_fail;
    dfc_coll_args_t a = {.kind = kind,
                         .root = root,
                         .in_place = sendbuf == DFC_IN_PLACE,
                         .commutative = o->commute,
                         .count = (uint64_t)count,
                         .elem = d->size,
                         .stype = d->dense ? NULL : d,
                         .rtype = d->dense ? NULL : d};
    if ((rc = dfc_coll_run(&call, c, &a, sendbuf, recvbuf, d, o))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}


int DFC_Reduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
               int root, DFC_Comm comm)
{
    return reduction_common(DFC_BLOCKING_CALL, DFC_COLL_REDUCE, sendbuf, recvbuf, count, datatype,
                            op, root, comm);
}
int DFC_Ireduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                int root, DFC_Comm comm, DFC_Request *request)
{
    return reduction_common(DFC_NONBLOCKING_CALL(request), DFC_COLL_REDUCE, sendbuf, recvbuf, count,
                            datatype, op, root, comm);
}
int DFC_Reduce_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                    int root, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return reduction_common(DFC_PERSISTENT_CALL(info, request), DFC_COLL_REDUCE, sendbuf, recvbuf,
                            count, datatype, op, root, comm);
}

int DFC_Allreduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                  DFC_Comm comm)
{
    return reduction_common(DFC_BLOCKING_CALL, DFC_COLL_ALLREDUCE, sendbuf, recvbuf, count,
                            datatype, op, 0, comm);
}
int DFC_Iallreduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                   DFC_Comm comm, DFC_Request *request)
{
    return reduction_common(DFC_NONBLOCKING_CALL(request), DFC_COLL_ALLREDUCE, sendbuf, recvbuf,
                            count, datatype, op, 0, comm);
}
int DFC_Allreduce_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype,
                       DFC_Op op, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return reduction_common(DFC_PERSISTENT_CALL(info, request), DFC_COLL_ALLREDUCE, sendbuf,
                            recvbuf, count, datatype, op, 0, comm);
}

int DFC_Scan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
             DFC_Comm comm)
{
    return reduction_common(DFC_BLOCKING_CALL, DFC_COLL_SCAN, sendbuf, recvbuf, count, datatype, op,
                            0, comm);
}
int DFC_Iscan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
              DFC_Comm comm, DFC_Request *request)
{
    return reduction_common(DFC_NONBLOCKING_CALL(request), DFC_COLL_SCAN, sendbuf, recvbuf, count,
                            datatype, op, 0, comm);
}
int DFC_Scan_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                  DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return reduction_common(DFC_PERSISTENT_CALL(info, request), DFC_COLL_SCAN, sendbuf, recvbuf,
                            count, datatype, op, 0, comm);
}

int DFC_Exscan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
               DFC_Comm comm)
{
    return reduction_common(DFC_BLOCKING_CALL, DFC_COLL_EXSCAN, sendbuf, recvbuf, count, datatype,
                            op, 0, comm);
}
int DFC_Iexscan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                DFC_Comm comm, DFC_Request *request)
{
    return reduction_common(DFC_NONBLOCKING_CALL(request), DFC_COLL_EXSCAN, sendbuf, recvbuf, count,
                            datatype, op, 0, comm);
}
int DFC_Exscan_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                    DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return reduction_common(DFC_PERSISTENT_CALL(info, request), DFC_COLL_EXSCAN, sendbuf, recvbuf,
                            count, datatype, op, 0, comm);
}

/* Reduce_scatter_block has `recvcount` items per rank; Reduce_scatter has recvcounts[]. */
static int reduce_scatter_common(dfc_coll_call_t call, const void *sendbuf, void *recvbuf,
                                 int vform, int recvcount, const int *recvcounts,
                                 DFC_Datatype datatype, DFC_Op op, DFC_Comm comm)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d = NULL;
    dfc_op_t *o = NULL;
    DFC_API_ENTER();
    if ((c = dfc_api_inter_of(comm))) {
        if ((rc = dfc_api_inter_reduce_scatter(&call, c, sendbuf, recvbuf, vform, recvcount,
                                               recvcounts, datatype, op)))
            goto fn_fail;
        goto fn_exit;
    }
    if ((rc = dfc_coll_check_call(&call, comm, &c))) goto fn_fail;
    int mine = recvcount;
    int64_t total = (int64_t)recvcount * c->size;
    if (vform) {
        if ((rc = dfc_coll_check_counts(call.func, "recvcounts", recvcounts, NULL, c->size)))
            goto fn_fail;
        total = 0;
        for (int i = 0; i < c->size; i++) total += recvcounts[i];
        mine = recvcounts[c->rank];
    }
    if ((rc = check_reduction(call.func, sendbuf, recvbuf, mine, datatype, op, 1, 1, &d, &o)))
        goto fn_fail;
    if (total > 0 && !sendbuf && !dfc_api_bottom_ok(d)) {
        rc = dfc_err(DFC_ERR_BUFFER, call.func,
                     "invalid argument sendbuf: NULL with a datatype whose data starts at its "
                     "origin (DFC_BOTTOM needs a type of absolute addresses)");
        goto fn_fail;
    }
    dfc_coll_args_t a = {.kind = vform ? DFC_COLL_REDUCE_SCATTER : DFC_COLL_REDUCE_SCATTER_BLOCK,
                         .in_place = sendbuf == DFC_IN_PLACE,
                         .commutative = o->commute,
                         .count = (uint64_t)recvcount,
                         .elem = d->size,
                         .stype = d->dense ? NULL : d,
                         .rtype = d->dense ? NULL : d,
                         .rcounts = recvcounts};
    if ((rc = dfc_coll_run(&call, c, &a, sendbuf, recvbuf, d, o))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             DFC_Datatype datatype, DFC_Op op, DFC_Comm comm)
{
    return reduce_scatter_common(DFC_BLOCKING_CALL, sendbuf, recvbuf, 0, recvcount, NULL, datatype,
                                 op, comm);
}
int DFC_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Request *request)
{
    return reduce_scatter_common(DFC_NONBLOCKING_CALL(request), sendbuf, recvbuf, 0, recvcount,
                                 NULL, datatype, op, comm);
}
int DFC_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Info info,
                                  DFC_Request *request)
{
    return reduce_scatter_common(DFC_PERSISTENT_CALL(info, request), sendbuf, recvbuf, 0, recvcount,
                                 NULL, datatype, op, comm);
}

int DFC_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       DFC_Datatype datatype, DFC_Op op, DFC_Comm comm)
{
    return reduce_scatter_common(DFC_BLOCKING_CALL, sendbuf, recvbuf, 1, 0, recvcounts, datatype,
                                 op, comm);
}
int DFC_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Request *request)
{
    return reduce_scatter_common(DFC_NONBLOCKING_CALL(request), sendbuf, recvbuf, 1, 0, recvcounts,
                                 datatype, op, comm);
}
int DFC_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Info info,
                            DFC_Request *request)
{
    return reduce_scatter_common(DFC_PERSISTENT_CALL(info, request), sendbuf, recvbuf, 1, 0,
                                 recvcounts, datatype, op, comm);
}

int DFC_Get_gpu_daemon_info(int *device, DFC_Count *launches)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "device", device)) ||
        (rc = dfc_api_check_ptr(__func__, "launches", launches)))
        goto fn_fail;
    uint64_t n;
    dfc_coll_gpu_info(device, &n);
    *launches = (DFC_Count)n;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Get_preemption_count(DFC_Count *count)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "count", count))) goto fn_fail;
    *count = (DFC_Count)dfc_coll_preemptions();
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}
