/*
 * run.c - the collective pipeline behind every collective entry point: where a call runs
 * (host engine, GPU daemon, or host engine on host shadows of device buffers), which
 * algorithm builds its schedule, and how its instance is started, waited for or handed
 * back as a request. The api layer checks the arguments and calls dfc_coll_run once.
 *
 * Device routing has its home here: a later route (a cross-node proxy, say) is one more
 * case of route_of and of prepare_route.
 */
#include <stdlib.h>

#include "coll/dfc_coll.h"

/* Largest byte offset reached by a v-form layout (counts/displs in items of elem). */
static uint64_t v_span(const int *counts, const int *displs, int n, uint64_t elem)
{
    uint64_t end = 0;
    for (int i = 0; counts && displs && i < n; i++)
        if (counts[i] > 0) end = DFC_MAX2(end, ((uint64_t)displs[i] + (uint64_t)counts[i]) * elem);
    return end;
}

/* Largest byte offset reached by a neighborhood collective's transfer list. */
static uint64_t xfer_span(const dfc_coll_xfer_t *x, int n)
{
    uint64_t end = 0;
    for (int i = 0; x && i < n; i++)
        if (x[i].bytes > 0) end = DFC_MAX2(end, x[i].off + x[i].bytes);
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
    case DFC_COLL_REDUCE:
        *send = all;
        *recv = root ? all : 0;
        break;
    case DFC_COLL_ALLREDUCE:
    case DFC_COLL_SCAN:
    case DFC_COLL_EXSCAN: *send = *recv = all; break;
    case DFC_COLL_REDUCE_SCATTER_BLOCK:
        *send = n * all;
        *recv = a->in_place ? n * all : all;
        break;
    case DFC_COLL_REDUCE_SCATTER: {
        uint64_t total = 0;
        for (int i = 0; i < a->size; i++) total += (uint64_t)a->rcounts[i];
        *send = total * a->elem;
        *recv = a->in_place ? total * a->elem : (uint64_t)a->rcounts[a->rank] * a->elem;
        break;
    }
    case DFC_COLL_GATHER:
        *send = a->sbytes;
        *recv = root ? n * a->rbytes : 0;
        break;
    case DFC_COLL_GATHERV:
        *send = a->sbytes;
        *recv = root ? v_span(a->vcounts, a->vdispls, a->size, a->relem) : 0;
        break;
    case DFC_COLL_SCATTER:
        *send = root ? n * a->sbytes : 0;
        *recv = a->rbytes;
        break;
    case DFC_COLL_SCATTERV:
        *send = root ? v_span(a->scounts, a->sdispls, a->size, a->selem) : 0;
        *recv = a->rbytes;
        break;
    case DFC_COLL_ALLGATHER:
        *send = a->sbytes;
        *recv = n * a->rbytes;
        break;
    case DFC_COLL_ALLGATHERV:
        *send = a->sbytes;
        *recv = v_span(a->vcounts, a->vdispls, a->size, a->relem);
        break;
    case DFC_COLL_ALLTOALL:
        *send = n * a->sbytes;
        *recv = n * a->rbytes;
        break;
    case DFC_COLL_ALLTOALLV:
        *send = v_span(a->scounts, a->sdispls, a->size, a->selem);
        *recv = v_span(a->vcounts, a->vdispls, a->size, a->relem);
        break;
    case DFC_COLL_NEIGHBOR_ALLGATHER:
    case DFC_COLL_NEIGHBOR_ALLGATHERV:
    case DFC_COLL_NEIGHBOR_ALLTOALL:
    case DFC_COLL_NEIGHBOR_ALLTOALLV:
    case DFC_COLL_NEIGHBOR_ALLTOALLW:
    case DFC_COLL_ALLTOALLW:
        *send = xfer_span(a->sends, a->nsends);
        *recv = xfer_span(a->recvs, a->nrecvs);
        break;
    default: break;
    }
}

/* Whether the collective writes every byte of the receive span of this rank (so its shadow
 * need not be copied in) and whether it writes any (so it must be copied out). */
static void recv_copies(const dfc_coll_args_t *a, int *copy_in, int *copy_out)
{
    int root = a->rank == a->root;
    *copy_out = !(a->kind == DFC_COLL_BCAST && root);
    switch (a->kind) {
    case DFC_COLL_ALLREDUCE:
    case DFC_COLL_REDUCE:
    case DFC_COLL_REDUCE_SCATTER_BLOCK:
    case DFC_COLL_ALLGATHER:
    case DFC_COLL_ALLTOALL:
    case DFC_COLL_GATHER:
    case DFC_COLL_SCATTER: *copy_in = a->in_place; break;
    case DFC_COLL_BCAST: *copy_in = root; break;
    default: *copy_in = 1; /* v forms, scans: bytes the collective leaves alone */
    }
}

/* Device buffers the GPU daemon cannot take run through host shadows from the staging pool
 * (copied in at each start, out at completion): correct on every collective, at the cost of
 * two copies that the operation waits for (blocking reductions and bcast pipeline them
 * instead: run_pipelined). Non-dense datatypes (a->stype, a->rtype) get packed shadows the
 * same way, in host memory; a span is then a whole number of packed items. */
static int stage_one(dfc_coll_t *coll, int buf, uint64_t bytes, const dfc_dtype_t *dt, int copy_in,
                     int copy_out)
{
    void *use;
    int rc = dt ? dfc_req_stage_type(coll->req, coll->bufs[buf], bytes / dt->size, dt, copy_in,
                                     copy_out, 0, &use)
                : dfc_req_stage(coll->req, coll->bufs[buf], bytes, copy_in, copy_out, &use);
    if (rc) return rc;
    coll->bufs[buf] = use;
    return DFC_SUCCESS;
}

static int stage_buffers(dfc_coll_t *coll, const dfc_coll_args_t *a)
{
    uint64_t sbytes, rbytes;
    buffer_spans(a, &sbytes, &rbytes);
    int rc, copy_in, copy_out;
    /* A NULL buffer (DFC_BOTTOM) with a packed type is a type of absolute addresses: packed */
    if ((coll->bufs[DFC_BUF_SEND] || (a->stype && !a->in_place)) && sbytes &&
        (rc = stage_one(coll, DFC_BUF_SEND, sbytes, a->stype, 1, 0)))
        return rc;
    if ((coll->bufs[DFC_BUF_RECV] || a->rtype) && rbytes) {
        recv_copies(a, &copy_in, &copy_out);
        if ((rc = stage_one(coll, DFC_BUF_RECV, rbytes, a->rtype, copy_in, copy_out))) return rc;
    }
    return DFC_SUCCESS;
}

/* A blocking allreduce, reduce or bcast on staged device buffers runs as one host collective
 * per chunk (DFC_STAGE_CHUNK*) on pinned chunk buffers, the copies of the chunks before and
 * after it in flight meanwhile (dfc_stage_pipeline), so that the copies hide behind the host
 * engine. Every rank of such a call must stage it (pass device buffers the daemon does not
 * take), as every rank must take the daemon for it to run there. Ranks may pass different
 * datatypes of one type signature (MPI), so bcast and built-in ops cut the message in
 * elements of the base type, the same on every rank, and run each chunk on that type; a
 * user op sees the caller's datatype, so its chunks are whole items of it. */
typedef struct seg_call {
    const dfc_coll_call_t *call;
    dfc_comm_t *c;
    const dfc_coll_args_t *a;
    void *recvbuf; /* the user's: a non-root reduce passes it on untouched */
    const dfc_dtype_t *dt;
    const dfc_op_t *op;
} seg_call_t;

static int run_segment(void *arg, void *in, void *out, size_t off, size_t bytes)
{
    (void)off;
    const seg_call_t *s = arg;
    dfc_coll_args_t a = *s->a;
    a.elem = s->dt->size;
    a.count = bytes / a.elem;
    if (a.kind == DFC_COLL_BCAST)
        return dfc_coll_run(s->call, s->c, &a, NULL, in ? in : out, s->dt, s->op);
    const void *sb = a.in_place ? DFC_IN_PLACE : in;
    void *rb = a.kind == DFC_COLL_REDUCE && a.rank != a.root ? s->recvbuf : out;
    return dfc_coll_run(s->call, s->c, &a, sb, rb, s->dt, s->op);
}

/* Device buffers of a dense type (non-dense ones are packed host copies: stage_buffers). */
static int pipelinable(const dfc_coll_call_t *call, const dfc_coll_args_t *a)
{
    return call->mode == DFC_MODE_BLOCKING && !a->stype && !a->rtype &&
           (a->kind == DFC_COLL_ALLREDUCE || a->kind == DFC_COLL_REDUCE ||
            a->kind == DFC_COLL_BCAST);
}

static int run_pipelined(const dfc_coll_call_t *call, dfc_comm_t *c, const dfc_coll_args_t *a,
                         const void *sendbuf, void *recvbuf, const dfc_dtype_t *dt,
                         const dfc_op_t *op)
{
    if (!op || op->builtin) dt = dfc_dtype_base_type(dt);
    seg_call_t s = {call, c, a, recvbuf, dt, op};
    int root = a->rank == a->root;
    dfc_stage_pipe_t p = {.bytes = a->count * a->elem,
                          .unit = dt->size,
                          .segment = run_segment,
                          .arg = &s};
    if (a->kind == DFC_COLL_BCAST) {
        p.in = root ? recvbuf : NULL;
        p.out = root ? NULL : recvbuf;
    } else {
        p.in = a->in_place ? recvbuf : sendbuf;
        p.out = a->kind == DFC_COLL_REDUCE && !root ? NULL : recvbuf;
    }
    return dfc_stage_pipeline(&p);
}

/* Where a call runs: host buffers on the host engine; device buffers in the GPU daemon when
 * it can run the call (gpu.c), else staged through host memory. In the daemon both
 * buffers must be on this rank's GPU. Decided before the schedule is built, since
 * generators shape schedules for the daemon (a->gpu). */
enum { ROUTE_HOST, ROUTE_STAGE, ROUTE_GPU };
static int route_of(const char *func, dfc_comm_t *c, const dfc_coll_args_t *a, const void *sendbuf,
                    const void *recvbuf, const dfc_dtype_t *dt, const dfc_op_t *op, int *route,
                    int *gpu)
{
    uint64_t sbytes, rbytes;
    buffer_spans(a, &sbytes, &rbytes);
    const void *sb = sbytes && !a->in_place ? sendbuf : NULL;
    const void *rb = rbytes ? recvbuf : NULL;
    int sdev = sb ? dfc_gpu_ptr_device(sb) : -1, rdev = rb ? dfc_gpu_ptr_device(rb) : -1;
    *route = ROUTE_HOST;
    *gpu = 0;
    if (sdev < 0 && rdev < 0 && !a->stype && !a->rtype) return DFC_SUCCESS;
    *route = ROUTE_STAGE; /* non-dense types: packed copies (pinned ones for device buffers) */
    if (a->stype || a->rtype) return DFC_SUCCESS;
    int kind = dfc_coll_gpu_eligible(c, a, dt, op);
    if (!kind) return DFC_SUCCESS;
    int mine = dfc_gpu_daemon_device();
    if ((sb && sdev != mine) || (rb && rdev != mine))
        return dfc_err(DFC_ERR_BUFFER, func,
                       "invalid arguments sendbuf and recvbuf: in the GPU daemon both must be "
                       "device memory of this rank's GPU %d (sendbuf: %s %d, recvbuf: %s %d)",
                       mine, sdev < 0 ? "host" : "device", sdev, rdev < 0 ? "host" : "device",
                       rdev);
    *route = ROUTE_GPU;
    *gpu = kind;
    return DFC_SUCCESS;
}

/* Readies a new instance for its route: the daemon takes it, or its device buffers get
 * host shadows. */
static int prepare_route(dfc_coll_t *coll, const dfc_coll_args_t *a, int route)
{
    if (route == ROUTE_GPU) return dfc_coll_gpu_prepare(coll);
    if (route == ROUTE_STAGE) return stage_buffers(coll, a);
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
        dfc_info_t *info = dfc_htable_get(&dfc_info_table, call->info);
        const char *p = dfc_info_lookup(info, "dfc_priority");
        if (p) return atoi(p);
    }
    return c->priority;
}

/* Selects the algorithm, builds the schedule and makes an instance with its request, ready
 * for its route. */
static int build_instance(const dfc_coll_call_t *call, dfc_comm_t *c, const dfc_coll_args_t *a,
                          const void *sendbuf, void *recvbuf, const dfc_dtype_t *dt,
                          const dfc_op_t *op, int route, int prio, dfc_coll_t **out)
{
    const dfc_coll_algo_t *algo = dfc_coll_select(a);
    if (!algo)
        return dfc_err(DFC_ERR_INTERN, call->func, "no %s algorithm is usable for this call",
                       dfc_coll_kind_name(a->kind));
    dfc_sched_t sched;
    dfc_sched_init(&sched);
    sched.algorithm = algo->name;
    dfc_coll_t *coll = NULL;
    int rc = algo->build(a, &sched);
    DFC_LOG(DFC_LOG_TRACE, "coll", "%s: %s, %llu items of %llu bytes, %d ranks: %d steps",
            call->func, sched.algorithm, (unsigned long long)a->count, (unsigned long long)a->elem,
            a->size, sched.nsteps);
    if (!rc)
        rc = dfc_coll_new(c, &sched, sendbuf, recvbuf, dt, op, call->mode == DFC_MODE_PERSISTENT,
                          prio, &coll);
    dfc_sched_destroy(&sched);
    if (rc) return rc;
    dfc_req_t *req = dfc_req_new(DFC_REQ_COLL, c);
    if (!req) {
        dfc_coll_free(coll);
        return dfc_err(DFC_ERR_NO_MEM, call->func, "out of memory allocating a request");
    }
    coll->kind = dfc_coll_kind_name(a->kind);
    req->coll = coll;
    req->destroy = destroy_coll;
    req->start = start_coll;
    coll->req = req;
    req->func = call->func; /* names the entry point in a staging error */
    if ((rc = prepare_route(coll, a, route))) {
        dfc_req_free(req);
        return rc;
    }
    *out = coll;
    return DFC_SUCCESS;
}

/* Persistent: the instance waits, inactive, for DFC_Start. */
static int hand_back_persistent(const dfc_coll_call_t *call, dfc_comm_t *c, dfc_coll_t *coll)
{
    dfc_req_t *req = coll->req;
    req->persistent = 1;
    req->active = 0;
    coll->pinit_seq = c->pcoll_seq++;
    int rc = dfc_req_handle(req, call->request);
    if (rc) dfc_req_free(req);
    return rc;
}

/* Starts the instance; a nonblocking call returns its request, a blocking one waits and
 * then keeps the instance in the cache (when `cacheable`) or frees it. */
static int start_instance(const dfc_coll_call_t *call, const dfc_coll_args_t *a, dfc_coll_t *coll,
                          int cacheable, int prio)
{
    dfc_req_t *req = coll->req;
    coll->blocking = call->mode == DFC_MODE_BLOCKING;
    int rc = dfc_coll_start(coll);
    if (rc) {
        dfc_req_free(req);
        return rc;
    }
    if (call->mode == DFC_MODE_NONBLOCKING) {
        rc = dfc_req_handle(req, call->request);
        if (rc) dfc_req_orphan(req); /* cannot be waited for */
        return rc;
    }
    rc = dfc_progress_until(&req->complete);
    if (!rc) rc = req->status.DFC_ERROR;
    int kept = cacheable && !rc && req->complete && dfc_coll_cache_put(coll, a, prio);
    if (!kept) dfc_req_free(req);
    return rc;
}

/* The request of a completed nonblocking instance, freed by the user's Wait or Test
 * (dfc_req_free): back to the cache, as a blocking call's instance after its wait, so that
 * the next Iallreduce of the same arguments builds nothing (issue 16: building took most of
 * a small Iallreduce's 2,800 instructions, which osu_iallreduce's overlap counts whole). */
static int keep_nonblocking(dfc_req_t *req)
{
    dfc_coll_t *coll = req->coll;
    return dfc_coll_cache_put(coll, &coll->key, coll->priority);
}

int dfc_coll_run(const dfc_coll_call_t *call, dfc_comm_t *c, dfc_coll_args_t *a,
                 const void *sendbuf, void *recvbuf, const dfc_dtype_t *dt, const dfc_op_t *op)
{
    a->rank = c->rank;
    a->size = c->size;
    a->world = dfc_comm_peers(c);
    a->world_node = dfc_node_of;
    a->nonblocking = call->mode != DFC_MODE_BLOCKING; /* MPI: modes never match each other */
    int route, gpu, rc = route_of(call->func, c, a, sendbuf, recvbuf, dt, op, &route, &gpu);
    if (rc) return rc;
    if (route == ROUTE_STAGE && pipelinable(call, a))
        return run_pipelined(call, c, a, sendbuf, recvbuf, dt, op);
    if (route == ROUTE_HOST && a->kind == DFC_COLL_BCAST && call->mode == DFC_MODE_BLOCKING &&
        !a->rtype &&
        (rc = dfc_coll_bcast_direct(c, recvbuf, a->count * a->elem, a->root)) !=
            DFC_COLL_NOT_DIRECT) /* the slot exchange without an instance */
        return rc;
    if (route == ROUTE_HOST && call->mode == DFC_MODE_BLOCKING && !a->stype && !a->rtype &&
        ((a->kind == DFC_COLL_BARRIER &&
          (rc = dfc_coll_barrier_direct(c)) != DFC_COLL_NOT_DIRECT) ||
         (a->kind == DFC_COLL_ALLREDUCE && op && !op->user_fn &&
          (rc = dfc_coll_allreduce_direct(c, a->in_place, a->count, sendbuf, recvbuf, dt, op)) !=
              DFC_COLL_NOT_DIRECT) ||
         (a->kind == DFC_COLL_ALLTOALL &&
          (rc = dfc_coll_alltoall_direct(c, a->in_place, a->sbytes, a->rbytes, sendbuf, recvbuf)) !=
              DFC_COLL_NOT_DIRECT) ||
         (a->kind == DFC_COLL_ALLGATHER &&
          (rc = dfc_coll_allgather_direct(c, a->in_place, a->sbytes, a->rbytes, sendbuf,
                                          recvbuf)) != DFC_COLL_NOT_DIRECT)))
        return rc;
    a->gpu = gpu; /* DFC_COLL_GPU_DAEMON, _RAILS, _RING, or 0 */
    /* Not for a user op: the slot exchange reduces inside the transport's call, where the
     * library lock cannot be dropped for it (exec.c, exec_reduce). */
    a->slots = route != ROUTE_GPU && call->mode != DFC_MODE_PERSISTENT &&
               dfc_comm_slots(c) != NULL && !(op && op->user_fn);
    int prio = priority_of(call, c);
    int cacheable = call->mode != DFC_MODE_PERSISTENT && route == ROUTE_HOST &&
                    dfc_coll_cacheable(a);
    dfc_coll_t *coll = cacheable ? dfc_coll_cache_take(c, a, dt, op, prio) : NULL;
    if (coll) { /* an idle instance built for the same arguments: bind the buffers */
        coll->bufs[DFC_BUF_SEND] = (void *)sendbuf;
        coll->bufs[DFC_BUF_RECV] = recvbuf;
        coll->req->func = call->func;
    } else {
        if ((rc = build_instance(call, c, a, sendbuf, recvbuf, dt, op, route, prio, &coll)))
            return rc;
        if (call->mode == DFC_MODE_PERSISTENT) return hand_back_persistent(call, c, coll);
    }
    coll->req->keep = NULL;
    if (cacheable && call->mode == DFC_MODE_NONBLOCKING) {
        coll->key = *a;
        coll->req->keep = keep_nonblocking;
    }
    return start_instance(call, a, coll, cacheable && call->mode == DFC_MODE_BLOCKING, prio);
}
