/*
 * gpu.c - collectives on device buffers in the GPU daemon (src/gpu): which calls can go
 * there, and their submission and completion.
 *
 * A collective runs in the daemon when every rank of its communicator is one of the daemon's
 * peers (dfc_gpu_daemon_index: on this node, or on another through the host proxy, issue 15)
 * - or, in a job larger than the daemon's peer tables, when its hierarchical schedule talks
 * only to node mates and rail peers (dfc_gpu_daemon_rails; on a ring of nodes only to the
 * neighbours, dfc_gpu_daemon_ring) -, its buffers are device memory,
 * and its reduction
 * (if any) is one the kernel computes: builtin arithmetic, logical and bitwise operations
 * on 32- and 64-bit integers, float, double, bfloat16 and float16. These conditions hold
 * or fail alike on every rank (buffer kinds aside: a collective must use device buffers on
 * all ranks or on none), so all ranks pick the same executor. Other device-buffer calls are
 * staged through host memory and run on the host engine.
 *
 * Queued collectives live in gpu_queue, not in the host run queue: the kernel schedules
 * them; the host only submits (when a descriptor is free) and reads completions.
 */
#include "coll/dfc_coll.h"
#include "gpu/dfc_gpu.h"

static dfc_list_t gpu_queue = {&gpu_queue, &gpu_queue};

static int gpu_type_of(const dfc_dtype_t *dt, int *elem)
{
    static const struct {
        DFC_Datatype h;
        int type, elem;
    } map[] = {
        {DFC_INT, DFC_GPU_I32, 4},
        {DFC_INT32_T, DFC_GPU_I32, 4},
        {DFC_UNSIGNED, DFC_GPU_U32, 4},
        {DFC_UINT32_T, DFC_GPU_U32, 4},
        {DFC_LONG, DFC_GPU_I64, 8},
        {DFC_LONG_LONG, DFC_GPU_I64, 8},
        {DFC_INT64_T, DFC_GPU_I64, 8},
        {DFC_UNSIGNED_LONG, DFC_GPU_U64, 8},
        {DFC_UNSIGNED_LONG_LONG, DFC_GPU_U64, 8},
        {DFC_UINT64_T, DFC_GPU_U64, 8},
        {DFC_FLOAT, DFC_GPU_F32, 4},
        {DFC_DOUBLE, DFC_GPU_F64, 8},
        {DFC_BFLOAT16, DFC_GPU_BF16, 2},
        {DFC_FLOAT16, DFC_GPU_F16, 2},
    };
    /* Derived contiguous types reduce element by element over their base type. */
    DFC_Datatype base = (DFC_Datatype)(0x03000000 | dt->base);
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].h == base && dt->size == dt->nbase * (size_t)map[i].elem) {
            *elem = map[i].elem;
            return map[i].type;
        }
    return -1;
}

static int gpu_op_of(const dfc_op_t *op)
{
    static const struct {
        DFC_Op h;
        int op;
    } map[] = {
        {DFC_SUM, DFC_GPU_SUM},   {DFC_PROD, DFC_GPU_PROD}, {DFC_MIN, DFC_GPU_MIN},
        {DFC_MAX, DFC_GPU_MAX},   {DFC_LAND, DFC_GPU_LAND}, {DFC_LOR, DFC_GPU_LOR},
        {DFC_LXOR, DFC_GPU_LXOR}, {DFC_BAND, DFC_GPU_BAND}, {DFC_BOR, DFC_GPU_BOR},
        {DFC_BXOR, DFC_GPU_BXOR},
    };
    for (size_t i = 0; op->builtin && i < sizeof map / sizeof map[0]; i++)
        if (map[i].h == op->handle) return map[i].op;
    return -1;
}

/* Rails: whether the daemons of world ranks u and v connect each other: node mates, or one
 * rail (ring: N > 0, and nodes next to each other on the ring of N; daemon_plan.h). */
static int rails_linked(const dfc_coll_args_t *a, const int *rail, int ring, int u, int v)
{
    int nu = a->world_node[u], nv = a->world_node[v];
    return nu == nv || (rail[u] == rail[v] && (!ring || dfc_gpu_ring_adjacent(nu, nv, ring)));
}

/* Rails: whether every pair of members is connected. Every rank judges every pair alike, where
 * "every member is my peer" would differ from rank to rank (a rank's rail peer on another
 * node may be on no rail of its node mates). */
static int rails_all_linked(const dfc_coll_args_t *a, const int *rail, int ring)
{
    if (a->size > DFC_GPU_MAX_LOCAL) return 0;
    for (int u = 0; u < a->size; u++)
        for (int v = u + 1; v < a->size; v++)
            if (!rails_linked(a, rail, ring, a->world[u], a->world[v])) return 0;
    return 1;
}

/* Ring: the kinds whose hierarchical schedules cross nodes only between neighbours on the
 * ring of the nodes (bcast and reduce: by their chains, bcast_chain.c and reduce_chain.c, when
 * a->gpu says ring). */
static int ring_kind(dfc_coll_kind_t k)
{
    return k == DFC_COLL_ALLREDUCE || k == DFC_COLL_ALLGATHER || k == DFC_COLL_ALLGATHERV ||
           k == DFC_COLL_REDUCE_SCATTER || k == DFC_COLL_REDUCE_SCATTER_BLOCK ||
           k == DFC_COLL_BCAST || k == DFC_COLL_REDUCE;
}

/* Rails: whether the call's hierarchical algorithm talks along them only: the members lie on
 * N >= 2 nodes of at least L >= 2 each (hier_layout.c), and the core's members of each local
 * index (below L) of the communicator share one rail of the job (the schedule's steps across
 * nodes join them; its steps inside a node, the surplus ranks' folds among them, join node
 * mates, always connected). On a ring, only the kinds whose
 * steps across nodes go round the communicator's nodes in order, and only when each of its
 * nodes is the job's ring neighbour of the next. */
static int rails_reach(const dfc_coll_args_t *a, const int *rail, int ring)
{
    dfc_hier_layout_t h;
    if (ring && !ring_kind(a->kind)) return 0;
    if (!dfc_coll_hier_layout(a, &h)) return 0;
    int ok = 1, L = h.nlocal, N = h.nnodes;
    for (int j = 0; j < L && ok; j++)
        for (int n = 1; n < N && ok; n++)
            ok = rail[a->world[h.ranks[n * L + j]]] == rail[a->world[h.ranks[j]]];
    for (int n = 0; n < N && ok && ring; n++) /* node n's rank of local index 0, and n + 1's */
        ok = rails_linked(a, rail, ring, a->world[h.ranks[n * L]],
                          a->world[h.ranks[dfc_coll_mod(n + 1, N) * L]]);
    dfc_coll_hier_layout_free(&h);
    dfc_coll_args_t t = *a;
    t.gpu = ring ? DFC_COLL_GPU_RING : DFC_COLL_GPU_RAILS;
    return ok && dfc_coll_select(&t) != NULL; /* the kind has a usable hierarchical one */
}

int dfc_coll_gpu_rails_route(const dfc_coll_args_t *a, const int *rail, int ring)
{
    for (int r = 0; r < a->size; r++)
        if (rail[a->world[r]] < 0) return 0; /* a member's daemon does not take part */
    if (rails_all_linked(a, rail, ring)) return DFC_COLL_GPU_DAEMON;
    if (!rails_reach(a, rail, ring)) return 0;
    return ring ? DFC_COLL_GPU_RING : DFC_COLL_GPU_RAILS;
}

/* Allreduce, reduce and bcast across nodes up to DFC_GPU_PROXY_STAGE_MAX are staged (issue
 * 15): through its proxy the daemon's chain of handoffs (reads across PCIe, the proxies'
 * passes, the wire, acks back) took 114 us for an 8 B allreduce of 4 ranks on 2 nodes over
 * tcp, staging 39 (two copies under MPS and the host engine); the daemon wins from about
 * 1 MiB (BENCHMARKS.md, stop 45). All members agree: the kind, the bytes (one type
 * signature) and the nodes are the same on every one. */
static int staged_across_nodes(const dfc_comm_t *comm, const dfc_coll_args_t *a)
{
    if (a->kind != DFC_COLL_ALLREDUCE && a->kind != DFC_COLL_REDUCE && a->kind != DFC_COLL_BCAST)
        return 0;
    return dfc_gpu_daemon_stage_across_nodes(comm->world, comm->size, a->count * a->elem);
}

int dfc_coll_gpu_eligible(const dfc_comm_t *comm, const dfc_coll_args_t *a, const dfc_dtype_t *dt,
                          const dfc_op_t *op)
{
    int elem;
    if (op && (gpu_type_of(dt, &elem) < 0 || gpu_op_of(op) < 0)) return 0;
    if (staged_across_nodes(comm, a)) return 0;
    const int *rail = dfc_gpu_daemon_rails();
    if (rail) return dfc_coll_gpu_rails_route(a, rail, dfc_gpu_daemon_ring());
    if (comm->size > DFC_GPU_MAX_LOCAL) return 0; /* not by rails: this daemon's peers decide */
    for (int r = 0; r < comm->size; r++)
        if (dfc_gpu_daemon_index(comm->world[r]) < 0) return 0;
    return DFC_COLL_GPU_DAEMON;
}

int dfc_coll_gpu_prepare(dfc_coll_t *c)
{
    if (c->sched.nsteps > DFC_GPU_MAX_STEPS)
        return DFC_ERR(DFC_ERR_INTERN,
                       "the %s schedule has %d steps, more than the GPU daemon's %d",
                       c->sched.algorithm, c->sched.nsteps, DFC_GPU_MAX_STEPS);
    c->gpu_type = c->gpu_op = -1;
    c->gpu_elem = c->gpu_item = 1;
    if (c->op) { /* a reduction */
        c->gpu_type = gpu_type_of(c->dtype, &c->gpu_elem);
        c->gpu_op = gpu_op_of(c->op);
        c->gpu_item = (int)c->dtype->size;
    }
    c->on_gpu = 1;
    return DFC_SUCCESS;
}

/* Submits when a descriptor is free; otherwise the collective waits in the queue. */
static int try_submit(dfc_coll_t *c)
{
    dfc_gpu_job_t job = {
        .sched = &c->sched,
        .send = c->bufs[DFC_BUF_SEND],
        .recv = c->bufs[DFC_BUF_RECV],
        .ident = dfc_gpu_ident(c->comm->incarnation, c->comm->ctx, c->tag),
        .priority = c->priority,
        .type = c->gpu_type,
        .op = c->gpu_op,
        .elem = c->gpu_elem,
        .item = c->gpu_item,
        .world = c->comm->world,
    };
    int rc = dfc_gpu_submit(&job, &c->gpu);
    if (rc == DFC_SUCCESS) c->gpu_submitted = 1;
    return rc == DFC_ERR_PENDING ? DFC_SUCCESS : rc;
}

int dfc_coll_gpu_start(dfc_coll_t *c)
{
    c->gpu_submitted = 0;
    c->gpu.slot = -1;
    dfc_list_insert_tail(&gpu_queue, &c->link);
    int rc = try_submit(c);
    if (rc) dfc_list_remove(&c->link);
    return rc;
}

int dfc_coll_gpu_pass(void)
{
    int events = dfc_gpu_progress();
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &gpu_queue)
    {
        dfc_coll_t *c = DFC_CONTAINER_OF(e, dfc_coll_t, link);
        int err = DFC_SUCCESS;
        if ((err = dfc_fault_check(c->comm, 1, -1))) {
            /* A member died: its GPU will never send, so the kernel cannot finish this one.
             * Report it (DFC_ERR_PROC_FAILED) and leave the descriptor to the kernel. */
            if (c->gpu_submitted) dfc_gpu_abandon(&c->gpu);
        } else if (!c->gpu_submitted) {
            if ((err = try_submit(c)) == DFC_SUCCESS) continue;
        } else if (!dfc_gpu_test(&c->gpu, &err)) {
            continue;
        }
        if (err) c->req->status.DFC_ERROR = err;
        dfc_list_remove(&c->link);
        dfc_req_complete(c->req);
        events++;
    }
    return events;
}

void dfc_coll_gpu_report(FILE *f)
{
    dfc_list_t *e;
    for (e = gpu_queue.next; e != &gpu_queue; e = e->next) {
        dfc_coll_t *c = DFC_CONTAINER_OF(e, dfc_coll_t, link);
        fprintf(
            f,
            "[dfc hang report] rank %d: collective %s on comm ctx %u seq %d in the GPU daemon (%s) "
            "kernel preemptions %llu\n",
            dfc_proc.world_rank, c->kind ? c->kind : "unknown", c->comm->ctx, c->tag,
            c->gpu_submitted ? "submitted" : "waiting for a free descriptor",
            (unsigned long long)dfc_gpu_preemptions());
    }
}

void dfc_coll_gpu_info(int *device, uint64_t *launches)
{
    *device = dfc_gpu_daemon_device();
    *launches = dfc_gpu_launches();
}
