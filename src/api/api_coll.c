/*
 * api_coll.c - collective entry points for barrier, bcast and the reductions, and the
 * machinery all collective entry points share (api_coll_common.h).
 */
#include <stdlib.h>
#include <string.h>

#include "api/api_coll_common.h"

/* ---- Shared machinery ------------------------------------------------------------------- */

int dfc_coll_check_call(const dfc_coll_call_t *call, DFC_Comm comm, dfc_comm_t **c)
{
    int rc = dfc_comm_check(comm, call->func, "comm", c);
    if (rc) return rc;
    if (call->mode != DFC_MODE_BLOCKING && !call->request)
        return dfc_err(DFC_ERR_ARG, call->func, "invalid argument request: NULL pointer");
    if (call->mode == DFC_MODE_PERSISTENT && call->info != DFC_INFO_NULL &&
        !dfc_htable_get(&dfc_info_table, call->info))
        return dfc_err(DFC_ERR_INFO, call->func, "invalid argument info: 0x%x is not a valid info object",
                       (unsigned)call->info);
    return DFC_SUCCESS;
}

int dfc_coll_check_root(const char *func, const dfc_comm_t *c, int root)
{
    if (root >= 0 && root < c->size) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_ROOT, func, "invalid argument root: %d is out of range for a communicator of size %d",
                   root, c->size);
}

int dfc_coll_check_buf(const char *func, const char *bufname, const void *buf, int count, DFC_Datatype dt,
                       int in_place_ok, dfc_dtype_t **d)
{
    int rc;
    if (buf == DFC_IN_PLACE) {
        if (!in_place_ok) return dfc_err(DFC_ERR_BUFFER, func, "invalid argument %s: DFC_IN_PLACE is not allowed here", bufname);
        return DFC_SUCCESS;
    }
    /* The count and type arguments are named after the buffer, as in MPI's prototypes. */
    int is_send = !strcmp(bufname, "sendbuf"), is_recv = !strcmp(bufname, "recvbuf");
    const char *countname = is_send ? "sendcount" : is_recv ? "recvcount" : "count";
    const char *typename = is_send ? "sendtype" : is_recv ? "recvtype" : "datatype";
    if ((rc = dfc_api_check_count(func, countname, count)) || (rc = dfc_dtype_check(dt, func, typename, d)))
        return rc;
    if (!buf && count > 0)
        return dfc_err(DFC_ERR_BUFFER, func, "invalid argument %s: NULL with count %d", bufname, count);
    return DFC_SUCCESS;
}

int dfc_coll_check_counts(const char *func, const char *name, const int *counts, const int *displs, int n)
{
    if (!counts) return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", name);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return dfc_err(DFC_ERR_COUNT, func, "invalid argument %s: element %d is negative (%d)", name, i, counts[i]);
    (void)displs;
    return DFC_SUCCESS;
}

/* Largest byte offset reached by a v-form layout (counts/displs in items of elem). */
static uint64_t v_span(const int *counts, const int *displs, int n, uint64_t elem)
{
    uint64_t end = 0;
    for (int i = 0; counts && displs && i < n; i++)
        if (counts[i] > 0) end = DFC_MAX2(end, ((uint64_t)displs[i] + (uint64_t)counts[i]) * elem);
    return end;
}

/* The bytes of the send and receive buffers this rank's part of the collective touches, for
 * staging device buffers through host memory. 0 where a buffer is not significant here. */
static void buffer_spans(const dfc_coll_args_t *a, uint64_t *send, uint64_t *recv)
{
    uint64_t n = (uint64_t)a->size, all = a->count * a->elem;
    int root = a->rank == a->root;
    *send = *recv = 0;
    switch (a->kind) {
    case DFC_COLL_BARRIER: break;
    case DFC_COLL_BCAST: *recv = all; break;
    case DFC_COLL_REDUCE: *send = all; *recv = root ? all : 0; break;
    case DFC_COLL_ALLREDUCE:
    case DFC_COLL_SCAN:
    case DFC_COLL_EXSCAN: *send = *recv = all; break;
    case DFC_COLL_REDUCE_SCATTER_BLOCK: *send = n * all; *recv = a->in_place ? n * all : all; break;
    case DFC_COLL_REDUCE_SCATTER: {
        uint64_t total = 0;
        for (int i = 0; i < a->size; i++) total += (uint64_t)a->rcounts[i];
        *send = total * a->elem;
        *recv = a->in_place ? total * a->elem : (uint64_t)a->rcounts[a->rank] * a->elem;
        break;
    }
    case DFC_COLL_GATHER: *send = a->sbytes; *recv = root ? n * a->rbytes : 0; break;
    case DFC_COLL_GATHERV: *send = a->sbytes; *recv = root ? v_span(a->vcounts, a->vdispls, a->size, a->relem) : 0; break;
    case DFC_COLL_SCATTER: *send = root ? n * a->sbytes : 0; *recv = a->rbytes; break;
    case DFC_COLL_SCATTERV: *send = root ? v_span(a->scounts, a->sdispls, a->size, a->selem) : 0; *recv = a->rbytes; break;
    case DFC_COLL_ALLGATHER: *send = a->sbytes; *recv = n * a->rbytes; break;
    case DFC_COLL_ALLGATHERV: *send = a->sbytes; *recv = v_span(a->vcounts, a->vdispls, a->size, a->relem); break;
    case DFC_COLL_ALLTOALL: *send = n * a->sbytes; *recv = n * a->rbytes; break;
    case DFC_COLL_ALLTOALLV:
        *send = v_span(a->scounts, a->sdispls, a->size, a->selem);
        *recv = v_span(a->vcounts, a->vdispls, a->size, a->relem);
        break;
    default: break;
    }
}

/* Device buffers run through host shadows (copied in at each start, out at completion):
 * correct on every collective, at the cost of two copies, until the GPU daemon exists. */
static int stage_buffers(dfc_coll_t *coll, const dfc_coll_args_t *a)
{
    uint64_t sbytes, rbytes;
    buffer_spans(a, &sbytes, &rbytes);
    void *use;
    int rc;
    if (coll->bufs[DFC_BUF_SEND] && sbytes) {
        if ((rc = dfc_req_stage(coll->req, coll->bufs[DFC_BUF_SEND], sbytes, 1, 0, &use))) return rc;
        coll->bufs[DFC_BUF_SEND] = use;
    }
    if (coll->bufs[DFC_BUF_RECV] && rbytes) {
        /* copied in as well: in-place input, and bytes the collective leaves alone */
        if ((rc = dfc_req_stage(coll->req, coll->bufs[DFC_BUF_RECV], rbytes, 1, 1, &use))) return rc;
        coll->bufs[DFC_BUF_RECV] = use;
    }
    return DFC_SUCCESS;
}

/* Where a call runs: host buffers on the host engine; device buffers in the GPU daemon when
 * it can run the call (src/coll/gpu.c), else staged through host memory. In the daemon both
 * buffers must be on this rank's GPU. Decided before the schedule is built, since
 * generators shape schedules for the daemon (a->gpu). */
enum { ROUTE_HOST, ROUTE_STAGE, ROUTE_GPU };
static int route_of(const char *func, dfc_comm_t *c, const dfc_coll_args_t *a, const void *sendbuf,
                    const void *recvbuf, const dfc_dtype_t *dt, const dfc_op_t *op, int *route)
{
    uint64_t sbytes, rbytes;
    buffer_spans(a, &sbytes, &rbytes);
    const void *sb = sbytes && !a->in_place ? sendbuf : NULL;
    const void *rb = rbytes ? recvbuf : NULL;
    int sdev = sb ? dfc_gpu_ptr_device(sb) : -1, rdev = rb ? dfc_gpu_ptr_device(rb) : -1;
    *route = ROUTE_HOST;
    if (sdev < 0 && rdev < 0) return DFC_SUCCESS;
    *route = ROUTE_STAGE;
    if (!dfc_coll_gpu_eligible(c, dt, op)) return DFC_SUCCESS;
    int mine = dfc_gpu_daemon_device();
    if ((sb && sdev != mine) || (rb && rdev != mine))
        return dfc_err(DFC_ERR_BUFFER, func,
                       "invalid arguments sendbuf and recvbuf: in the GPU daemon both must be device "
                       "memory of this rank's GPU %d (sendbuf: %s %d, recvbuf: %s %d)", mine,
                       sdev < 0 ? "host" : "device", sdev, rdev < 0 ? "host" : "device", rdev);
    *route = ROUTE_GPU;
    return DFC_SUCCESS;
}

static void destroy_coll(dfc_req_t *req)
{
    dfc_coll_free(req->coll);
    req->coll = NULL;
}

static int start_coll(dfc_req_t *req) { return dfc_coll_start(req->coll); }

static int priority_of(const dfc_coll_call_t *call, const dfc_comm_t *c)
{
    if (call->mode == DFC_MODE_PERSISTENT && call->info != DFC_INFO_NULL) {
        const char *p = dfc_info_lookup(dfc_htable_get(&dfc_info_table, call->info), "dfc_priority");
        if (p) return atoi(p);
    }
    return c->priority;
}

int dfc_coll_run(const dfc_coll_call_t *call, dfc_comm_t *c, dfc_coll_args_t *a, const void *sendbuf,
                 void *recvbuf, const dfc_dtype_t *dt, const dfc_op_t *op)
{
    a->rank = c->rank;
    a->size = c->size;
    int route, rc = route_of(call->func, c, a, sendbuf, recvbuf, dt, op, &route);
    if (rc) return rc;
    a->gpu = route == ROUTE_GPU;
    a->slots = route != ROUTE_GPU && call->mode != DFC_MODE_PERSISTENT && dfc_comm_slots(c) != NULL;
    int prio = priority_of(call, c);
    int cacheable = call->mode == DFC_MODE_BLOCKING && route == ROUTE_HOST && dfc_coll_cacheable(a);
    dfc_coll_t *coll = NULL;
    dfc_req_t *req = NULL;
    if (cacheable && (coll = dfc_coll_cache_take(c, a, dt, op, prio))) {
        coll->bufs[DFC_BUF_SEND] = (void *)sendbuf;
        coll->bufs[DFC_BUF_RECV] = recvbuf;
        req = coll->req;
        goto start;
    }
    const dfc_coll_algo_t *algo = dfc_coll_select(a);
    if (!algo)
        return dfc_err(DFC_ERR_INTERN, call->func, "no %s algorithm is usable for this call",
                       dfc_coll_kind_name(a->kind));
    dfc_sched_t sched;
    dfc_sched_init(&sched);
    sched.algorithm = algo->name;
    rc = algo->build(a, &sched);
    if (!rc) rc = dfc_coll_new(c, &sched, sendbuf, recvbuf, dt, op, call->mode == DFC_MODE_PERSISTENT,
                               prio, &coll);
    dfc_sched_destroy(&sched);
    if (rc) return rc;
    if (!(req = dfc_req_new(DFC_REQ_COLL, c))) {
        dfc_coll_free(coll);
        return dfc_err(DFC_ERR_NO_MEM, call->func, "out of memory allocating a request");
    }
    coll->kind = dfc_coll_kind_name(a->kind);
    req->coll = coll;
    req->destroy = destroy_coll;
    req->start = start_coll;
    coll->req = req;
    if (route == ROUTE_GPU) rc = dfc_coll_gpu_prepare(coll);
    else if (route == ROUTE_STAGE) rc = stage_buffers(coll, a);
    if (rc) {
        dfc_req_free(req);
        return rc;
    }
    if (call->mode == DFC_MODE_PERSISTENT) {
        req->persistent = 1;
        req->active = 0;
        coll->pinit_seq = c->pcoll_seq++;
        if ((rc = dfc_req_handle(req, call->request))) dfc_req_free(req);
        return rc;
    }
start:
    if ((rc = dfc_coll_start(coll))) {
        dfc_req_free(req);
        return rc;
    }
    if (call->mode == DFC_MODE_NONBLOCKING) {
        if ((rc = dfc_req_handle(req, call->request))) req->user_freed = 1; /* cannot be waited for */
        return rc;
    }
    rc = dfc_progress_until(&req->complete);
    if (!rc) rc = req->status.DFC_ERROR;
    if (!(cacheable && !rc && req->complete && dfc_coll_cache_put(coll, a, prio))) dfc_req_free(req);
    return rc;
}

/* ---- Barrier ------------------------------------------------------------------------------- */

static int barrier_common(dfc_coll_call_t call, DFC_Comm comm)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
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

static int bcast_common(dfc_coll_call_t call, void *buffer, int count, DFC_Datatype datatype, int root, DFC_Comm comm)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_coll_check_call(&call, comm, &c)) ||
        (rc = dfc_coll_check_buf(call.func, "buffer", buffer, count, datatype, 0, &d)) ||
        (rc = dfc_coll_check_root(call.func, c, root)))
        goto fn_fail;
    dfc_coll_args_t a = {.kind = DFC_COLL_BCAST, .root = root, .count = (uint64_t)count, .elem = d->size};
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
int DFC_Ibcast(void *buffer, int count, DFC_Datatype datatype, int root, DFC_Comm comm, DFC_Request *request)
{
    return bcast_common(DFC_NONBLOCKING_CALL(request), buffer, count, datatype, root, comm);
}
int DFC_Bcast_init(void *buffer, int count, DFC_Datatype datatype, int root, DFC_Comm comm, DFC_Info info,
                   DFC_Request *request)
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
    if ((rc = dfc_api_check_count(func, "count", count)) || (rc = dfc_dtype_check(datatype, func, "datatype", d)) ||
        (rc = dfc_op_check(op, *d, func, "op", o)))
        return rc;
    if (sendbuf == DFC_IN_PLACE && !in_place_ok)
        return dfc_err(DFC_ERR_BUFFER, func, "invalid argument sendbuf: DFC_IN_PLACE is only allowed at the root");
    if (recvbuf == DFC_IN_PLACE)
        return dfc_err(DFC_ERR_BUFFER, func, "invalid argument recvbuf: DFC_IN_PLACE is not allowed for recvbuf");
    if (count > 0 && !sendbuf)
        return dfc_err(DFC_ERR_BUFFER, func, "invalid argument sendbuf: NULL with count %d", count);
    if (count > 0 && recv_needed && !recvbuf)
        return dfc_err(DFC_ERR_BUFFER, func, "invalid argument recvbuf: NULL with count %d", count);
    if (count > 0 && recv_needed && sendbuf == recvbuf)
        return dfc_err(DFC_ERR_BUFFER, func, "invalid arguments sendbuf and recvbuf: they alias (use DFC_IN_PLACE)");
    return DFC_SUCCESS;
}

static int reduction_common(dfc_coll_call_t call, dfc_coll_kind_t kind, const void *sendbuf, void *recvbuf,
                            int count, DFC_Datatype datatype, DFC_Op op, int root, DFC_Comm comm)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d = NULL;
    dfc_op_t *o = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_coll_check_call(&call, comm, &c))) goto fn_fail;
    int is_root = 1;
    if (kind == DFC_COLL_REDUCE) {
        if ((rc = dfc_coll_check_root(call.func, c, root))) goto fn_fail;
        is_root = c->rank == root;
    }
    if ((rc = check_reduction(call.func, sendbuf, recvbuf, count, datatype, op, is_root, is_root, &d, &o)))
        goto fn_fail;
    dfc_coll_args_t a = {.kind = kind, .root = root, .in_place = sendbuf == DFC_IN_PLACE,
                         .commutative = o->commute, .count = (uint64_t)count, .elem = d->size};
    if ((rc = dfc_coll_run(&call, c, &a, sendbuf, recvbuf, d, o))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}


int DFC_Reduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, int root, DFC_Comm comm)
{
    return reduction_common(DFC_BLOCKING_CALL, DFC_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm);
}
int DFC_Ireduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, int root,
                DFC_Comm comm, DFC_Request *request)
{
    return reduction_common(DFC_NONBLOCKING_CALL(request), DFC_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm);
}
int DFC_Reduce_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, int root,
                    DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return reduction_common(DFC_PERSISTENT_CALL(info, request), DFC_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm);
}

int DFC_Allreduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, DFC_Comm comm)
{
    return reduction_common(DFC_BLOCKING_CALL, DFC_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
int DFC_Iallreduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, DFC_Comm comm,
                   DFC_Request *request)
{
    return reduction_common(DFC_NONBLOCKING_CALL(request), DFC_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
int DFC_Allreduce_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, DFC_Comm comm,
                       DFC_Info info, DFC_Request *request)
{
    return reduction_common(DFC_PERSISTENT_CALL(info, request), DFC_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm);
}

int DFC_Scan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, DFC_Comm comm)
{
    return reduction_common(DFC_BLOCKING_CALL, DFC_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
int DFC_Iscan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, DFC_Comm comm,
              DFC_Request *request)
{
    return reduction_common(DFC_NONBLOCKING_CALL(request), DFC_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
int DFC_Scan_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, DFC_Comm comm,
                  DFC_Info info, DFC_Request *request)
{
    return reduction_common(DFC_PERSISTENT_CALL(info, request), DFC_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm);
}

int DFC_Exscan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, DFC_Comm comm)
{
    return reduction_common(DFC_BLOCKING_CALL, DFC_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
int DFC_Iexscan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, DFC_Comm comm,
                DFC_Request *request)
{
    return reduction_common(DFC_NONBLOCKING_CALL(request), DFC_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
int DFC_Exscan_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op, DFC_Comm comm,
                    DFC_Info info, DFC_Request *request)
{
    return reduction_common(DFC_PERSISTENT_CALL(info, request), DFC_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm);
}

/* Reduce_scatter_block has `recvcount` items per rank; Reduce_scatter has recvcounts[]. */
static int reduce_scatter_common(dfc_coll_call_t call, const void *sendbuf, void *recvbuf, int vform, int recvcount,
                                 const int *recvcounts, DFC_Datatype datatype, DFC_Op op, DFC_Comm comm)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d = NULL;
    dfc_op_t *o = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_coll_check_call(&call, comm, &c))) goto fn_fail;
    int mine = recvcount;
    int64_t total = (int64_t)recvcount * c->size;
    if (vform) {
        if ((rc = dfc_coll_check_counts(call.func, "recvcounts", recvcounts, NULL, c->size))) goto fn_fail;
        total = 0;
        for (int i = 0; i < c->size; i++) total += recvcounts[i];
        mine = recvcounts[c->rank];
    }
    if ((rc = check_reduction(call.func, sendbuf, recvbuf, mine, datatype, op, 1, 1, &d, &o))) goto fn_fail;
    if (total > 0 && !sendbuf) {
        rc = dfc_err(DFC_ERR_BUFFER, call.func, "invalid argument sendbuf: NULL");
        goto fn_fail;
    }
    dfc_coll_args_t a = {.kind = vform ? DFC_COLL_REDUCE_SCATTER : DFC_COLL_REDUCE_SCATTER_BLOCK,
                         .in_place = sendbuf == DFC_IN_PLACE, .commutative = o->commute,
                         .count = (uint64_t)recvcount, .elem = d->size, .rcounts = recvcounts};
    if ((rc = dfc_coll_run(&call, c, &a, sendbuf, recvbuf, d, o))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, DFC_Datatype datatype, DFC_Op op,
                             DFC_Comm comm)
{
    return reduce_scatter_common(DFC_BLOCKING_CALL, sendbuf, recvbuf, 0, recvcount, NULL, datatype, op, comm);
}
int DFC_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, DFC_Datatype datatype, DFC_Op op,
                              DFC_Comm comm, DFC_Request *request)
{
    return reduce_scatter_common(DFC_NONBLOCKING_CALL(request), sendbuf, recvbuf, 0, recvcount, NULL, datatype, op, comm);
}
int DFC_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, DFC_Datatype datatype,
                                  DFC_Op op, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return reduce_scatter_common(DFC_PERSISTENT_CALL(info, request), sendbuf, recvbuf, 0, recvcount, NULL, datatype, op, comm);
}

int DFC_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], DFC_Datatype datatype, DFC_Op op,
                       DFC_Comm comm)
{
    return reduce_scatter_common(DFC_BLOCKING_CALL, sendbuf, recvbuf, 1, 0, recvcounts, datatype, op, comm);
}
int DFC_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], DFC_Datatype datatype, DFC_Op op,
                        DFC_Comm comm, DFC_Request *request)
{
    return reduce_scatter_common(DFC_NONBLOCKING_CALL(request), sendbuf, recvbuf, 1, 0, recvcounts, datatype, op, comm);
}
int DFC_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], DFC_Datatype datatype,
                            DFC_Op op, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return reduce_scatter_common(DFC_PERSISTENT_CALL(info, request), sendbuf, recvbuf, 1, 0, recvcounts, datatype, op, comm);
}

int DFC_Get_gpu_daemon_info(int *device, DFC_Count *launches)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "device", device)) || (rc = dfc_api_check_ptr(__func__, "launches", launches)))
        goto fn_fail;
    *device = dfc_gpu_daemon_device();
    *launches = (DFC_Count)dfc_gpu_launches();
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
