/*
 * daemon.c - the host side of the GPU daemon: device choice, mailboxes over CUDA IPC,
 * submission of schedules, completion, and the kernel's (re)launch (DESIGN.md 2.1, 2.2).
 *
 * Life of a collective: dfc_gpu_submit copies its schedule into a descriptor in pinned
 * memory, marks the receive-reduce steps that may reduce on arrival, sizes its scratch
 * (device memory from a stream-ordered pool, kept per descriptor), and publishes the
 * descriptor's index in the submission queue. The kernel's blocks take it from there;
 * the last block to finish writes the descriptor's done word, which dfc_gpu_test reads.
 *
 * Buffers must be ready when a collective is called, as in CUDA-aware MPI. One case is made
 * safe here: work the application queued on the legacy default stream (a kernel that
 * produced the input, or a cudaMemcpy from pageable memory, which may return before its
 * data has landed). When that stream is busy, the submission records an event on it and the
 * descriptor is published only once the event has completed (dfc_gpu_progress). Work on
 * other streams the application must synchronize itself, as MPI requires.
 *
 * The kernel leaves when everything it holds is stuck (so that cudaDeviceSynchronize,
 * cudaFree and cudaMalloc in the application can complete) or when it has been idle. The
 * host launches it again when new work arrives and, while work is pending, when it notices
 * the exit (after DFC_GPU_RELAUNCH_US). Launches go to one non-blocking stream, so a new
 * launch never overlaps the previous kernel, and the legacy default stream the application
 * synchronizes with never waits for the daemon.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"
#include "gpu/dfc_gpu.h"
#include "gpu/params.h"
#include "gpu/proxy.h"
#include "pmix/dfc_boot.h"
#include "util/dfc_util.h"

#ifdef HAVE_CUDA
#include "cuda/cuda_fns.h"
#include "gpu/daemon_abi.h"
#include "gpu/daemon_logic.h"
#include "gpu/daemon_plan.h"

extern const unsigned char dfc_gpu_daemon_fatbin[]; /* daemon_fatbin.c, made by embed.sh */

/* What each process publishes under "dfc.gpu". */
typedef struct daemon_record {
    int ok;
    int device;
    int mps; /* contexts on this device are shared through CUDA MPS */
    char busid[32];
    dfc_gpu_geom_t geom;
    cudaIpcMemHandle_t box;
} daemon_record_t;

#define TRACE_SAMPLES 8192 /* DFC_GPU_TRACE keeps the phases of this many collectives */

static struct {
    int ok; /* this process runs a daemon */
    int me, nlocal, world_size;
    int nnode;          /* daemon processes of this node (they share its GPUs) */
    const int *node_of; /* node of each world rank (the comm layer's table) */
    int nremote;        /* peers reached through the proxy (pair regions, proxy.c) */
    char *pair_out[DFC_GPU_MAX_LOCAL], *pair_in[DFC_GPU_MAX_LOCAL]; /* their host addresses */
    dfc_gpu_proxy_t *proxy;
    int thread_asked; /* the progress thread was started for the proxy */
    int *index_of;    /* world rank -> daemon index, or -1 */
    int *local_world; /* daemon index -> world rank */
    int peers;        /* which processes the daemon connects: enum dfc_gpu_peers */
    int nnodes;       /* nodes of the job (the ring of RING) */
    int *rail;        /* world rank -> its local index on its node (daemon_plan.h) */
    int *rail_part;   /* RAILS, RING: world rank -> its rail if its daemon takes part, else -1
                       * (every rank's verdict, so that all decide alike, gpu.c) */
    daemon_record_t rec;
    char *box[DFC_GPU_MAX_LOCAL];
    char *spill;          /* chunks moved aside by receivers (dfc_gpu_dev_t.spill_*) */
    dfc_gpu_host_t *host; /* pinned, and its device address: */
    dfc_gpu_host_t *host_dev;
    dfc_gpu_dev_t *dev;
    dfc_gpu_ctx_t *ctx;
    cudaStream_t stream, side;
    cudaKernel_t kernel;
    dfc_gpu_kargs_t kargs;
    uint32_t epoch, gen;
    int launched;
    double exit_noticed; /* Wtime when the current epoch was seen to have exited */
    long fault_launch;   /* DFC_GPU_FAULT_LAUNCH: which launch attempts fail (tests) */
    uint64_t attempts;   /* launch attempts so far */
    int failed_tries;    /* consecutive launches that failed */
    char failed[200];    /* the launch failed for good: why (pending work fails) */
    dfc_gpu_handle_t abandoned[DFC_GPU_MAX_COLLS]; /* cancelled, until the kernel confirms */
    int nabandoned, ncancel_wait; /* ... of which the last ncancel_wait are not published yet */
    int free_slots[DFC_GPU_MAX_COLLS], nfree;
    cudaEvent_t ready[DFC_GPU_MAX_COLLS]; /* legacy-stream work a submission waits for */
    int deferred[DFC_GPU_MAX_COLLS];      /* descriptors waiting for their event */
    int ndeferred;
    void *tmp[DFC_GPU_MAX_COLLS];
    uint64_t tmp_cap[DFC_GPU_MAX_COLLS];
    int pending; /* submitted, not yet tested complete */
    double relaunch_s;
    uint64_t launches;
    /* DFC_GPU_TRACE: submission times, and each traced collective's phase durations in ns
     * (kernel phases from globaltimer, submit-to-seen from the host clock), whose medians
     * are logged at finalize. */
    uint64_t submitted_ns[DFC_GPU_MAX_COLLS];
    uint32_t traced, (*trace_ns)[TRACE_SAMPLES]; /* [phase][sample], [0]: submit to seen */
} d;

static dfc_gpu_params_t prm; /* DFC_GPU_*, read once in params.c */

static void release_resources(void)
{
    dfc_gpu_proxy_destroy(d.proxy);
    for (int i = 0; i < DFC_GPU_MAX_LOCAL; i++) {
        if (d.pair_out[i]) dfc_cuda.cudaFreeHost(d.pair_out[i]);
        if (d.pair_in[i]) dfc_cuda.cudaFreeHost(d.pair_in[i]);
    }
    for (int i = 0; i < DFC_GPU_MAX_LOCAL; i++)
        if (d.box[i] && i != d.me) dfc_cuda.cudaIpcCloseMemHandle(d.box[i]);
    if (d.box[d.me]) dfc_cuda.cudaFree(d.box[d.me]);
    for (int i = 0; i < DFC_GPU_MAX_COLLS; i++)
        if (d.tmp[i]) dfc_cuda.cudaFree(d.tmp[i]);
    if (d.dev) dfc_cuda.cudaFree(d.dev);
    if (d.spill) dfc_cuda.cudaFree(d.spill);
    if (d.host) dfc_cuda.cudaFreeHost(d.host);
    for (int i = 0; i < DFC_GPU_MAX_COLLS; i++)
        if (d.ready[i]) dfc_cuda.cudaEventDestroy(d.ready[i]);
    if (d.stream) dfc_cuda.cudaStreamDestroy(d.stream);
    if (d.side) dfc_cuda.cudaStreamDestroy(d.side);
    free(d.index_of);
    free(d.local_world);
    free(d.rail);
    free(d.rail_part);
    free(d.trace_ns);
    memset(&d, 0, sizeof d);
}

/* Everything that can fail before publishing; on failure the process publishes ok = 0. */
static int start_daemon(void)
{
    cudaError_t e;
    long dev = prm.device, sharers = 1;
    int most = dfc_gpu_largest_node(d.world_size, d.rail);
    if (dev < 0) {
        int ndev = dfc_gpu_device_count();
        dev = d.me % ndev;
        /* DFC_GPU_FIFO_MEMORY is per GPU: processes sharing one (MPS) split it (issue 14).
         * The same on every process that talks to this one, as the mailbox geometry must be:
         * beyond the node (the proxy's modes), the largest node's count. */
        sharers = ((d.peers == DFC_GPU_PEERS_NODE ? d.nnode : most) + ndev - 1) / ndev;
    }
    dfc_gpu_geom_t *g = &d.rec.geom;
    g->nlocal = (uint32_t)dfc_gpu_geom_peers(d.peers, d.world_size, d.nnodes, most, d.nnode);
    uint64_t fifo = ((uint64_t)DFC_MAX2(1, prm.fifo_mib) << 20) / (uint64_t)sharers;
    g->channels = (uint32_t)DFC_MIN2(DFC_GPU_MAX_CHANNELS, DFC_MAX2(1, prm.channels));
    g->slots = (uint32_t)DFC_MIN2(DFC_GPU_MAX_SLOTS, DFC_MAX2(1, prm.slots));
    g->depth = (uint32_t)DFC_MIN2(64, DFC_MAX2(2, prm.depth));
    g->chunk = (uint32_t)(prm.chunk > 0 ? DFC_MAX2(4096, prm.chunk & ~15L)
                                        : dfc_gpu_auto_chunk(g, fifo));
    if ((e = dfc_cuda.cudaSetDevice((int)dev))) return dfc_cuda_error("cudaSetDevice", e);
    d.rec.device = (int)dev;
    int mps = 0;
    if (dfc_cuda.cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, (int)dev))
        dfc_cuda.cudaGetLastError();
    d.rec.mps = mps != 0;
    if ((e = dfc_cuda.cudaDeviceGetPCIBusId(d.rec.busid, sizeof d.rec.busid, (int)dev)))
        return dfc_cuda_error("cudaDeviceGetPCIBusId", e);
    uint64_t box_bytes = dfc_gpu_box_bytes(g);
    size_t dev_bytes = sizeof(dfc_gpu_dev_t) +
                       (size_t)DFC_GPU_MAX_COLLS * g->channels * sizeof(dfc_gpu_ctx_t);
    void *p;
    if ((e = dfc_cuda.cudaMalloc(&p, box_bytes)))
        return dfc_cuda_error("cudaMalloc of the mailboxes", e);
    d.box[d.me] = p;
    if ((e = dfc_cuda.cudaMemset(p, 0, box_bytes))) return dfc_cuda_error("cudaMemset", e);
    size_t spill_bytes = (size_t)g->nlocal * g->channels * DFC_GPU_SPILL * g->chunk;
    if ((e = dfc_cuda.cudaMalloc(&p, spill_bytes)))
        return dfc_cuda_error("cudaMalloc of the spill chunks", e);
    d.spill = p;
    if ((e = dfc_cuda.cudaMalloc(&p, dev_bytes)))
        return dfc_cuda_error("cudaMalloc of the daemon state", e);
    d.dev = p;
    d.ctx = (dfc_gpu_ctx_t *)((char *)p + sizeof(dfc_gpu_dev_t));
    if ((e = dfc_cuda.cudaMemset(p, 0, dev_bytes))) return dfc_cuda_error("cudaMemset", e);
    if ((e = dfc_cuda.cudaHostAlloc(&p, sizeof(dfc_gpu_host_t),
                                    cudaHostAllocMapped | cudaHostAllocPortable)))
        return dfc_cuda_error("cudaHostAlloc of the submission queue", e);
    d.host = p;
    memset(d.host, 0, sizeof *d.host);
    if ((e = dfc_cuda.cudaHostGetDevicePointer(&p, d.host, 0)))
        return dfc_cuda_error("cudaHostGetDevicePointer", e);
    d.host_dev = p;
    cudaLibrary_t lib;
    if ((e = dfc_cuda.cudaLibraryLoadData(&lib, dfc_gpu_daemon_fatbin, NULL, NULL, 0, NULL, NULL,
                                          0)))
        return dfc_cuda_error("loading the daemon kernel", e);
    if ((e = dfc_cuda.cudaLibraryGetKernel(&d.kernel, lib, "dfc_gpu_daemon")))
        return dfc_cuda_error("finding the daemon kernel", e);
    if ((e = dfc_cuda.cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking)) ||
        (e = dfc_cuda.cudaStreamCreateWithFlags(&d.side, cudaStreamNonBlocking)))
        return dfc_cuda_error("cudaStreamCreateWithFlags", e);
    if ((e = dfc_cuda.cudaIpcGetMemHandle(&d.rec.box, d.box[d.me])))
        return dfc_cuda_error("cudaIpcGetMemHandle", e);
    for (int i = 0; i < DFC_GPU_MAX_COLLS; i++)
        if ((e = dfc_cuda.cudaEventCreateWithFlags(&d.ready[i], cudaEventDisableTiming)))
            return dfc_cuda_error("cudaEventCreateWithFlags", e);
    for (int i = 0; i < DFC_GPU_MAX_COLLS; i++) d.free_slots[d.nfree++] = DFC_GPU_MAX_COLLS - 1 - i;
    return DFC_SUCCESS;
}

void dfc_gpu_daemon_publish(int world_rank, int world_size, const int *node_of)
{
    dfc_gpu_params_read(&prm); /* registers them all, GPU or not */
    if (!prm.daemon) return;
    if (!dfc_gpu_available()) {
        /* CUDA not loaded at DFC_Init (DFC_GPU_INIT, issue 16): publish "no daemon", so that
         * a peer that runs one reads a record rather than asks PMIx for a missing key */
        memset(&d.rec, 0, sizeof d.rec);
        dfc_boot_put("dfc.gpu", &d.rec, sizeof d.rec);
        return;
    }
    d.world_size = world_size;
    d.index_of = malloc(world_size * sizeof(int));
    d.local_world = malloc(DFC_GPU_MAX_LOCAL * sizeof(int));
    d.rail = malloc(world_size * sizeof(int));
    if (!d.index_of || !d.local_world || !d.rail) {
        release_resources();
        return;
    }
    /* The daemon's peers (daemon_plan.h, dfc_gpu_choose_peers): this node's processes; with
     * the proxy (issue 15) every process of a job of at most DFC_GPU_PEERS_MAX, or this node's
     * and this rail's (or its rail's ring neighbours') in a larger job of equal nodes. The same
     * choice on every process: the parameters and the node map are the job's. */
    d.peers = dfc_gpu_choose_peers(world_size, node_of, prm.proxy != DFC_GPU_PROXY_OFF,
                                   (int)prm.peers_max, d.rail, &d.nnodes);
    d.node_of = node_of;
    d.nnode = 0;
    for (int r = 0; r < world_size; r++) {
        d.index_of[r] = -1;
        d.nnode += node_of[r] == node_of[world_rank];
    }
    d.nlocal = dfc_gpu_peer_table(d.peers, world_size, node_of, d.rail, d.nnodes, world_rank,
                                  d.local_world, DFC_GPU_MAX_LOCAL, &d.me);
    int rc = d.nlocal > DFC_GPU_MAX_LOCAL
                 ? DFC_ERR(DFC_ERR_OTHER, "%d processes to connect (this node's%s), more than %d",
                           d.nlocal, d.peers == DFC_GPU_PEERS_NODE ? "" : " and others",
                           DFC_GPU_MAX_LOCAL)
                 : start_daemon();
    d.rec.ok = rc == DFC_SUCCESS;
    if (!d.rec.ok && dfc_log_level >= DFC_LOG_INFO) {
        char why[256];
        dfc_err_message(rc, why, sizeof why);
        DFC_LOG(DFC_LOG_INFO, "gpu", "GPU daemon not started (device buffers are staged): %s", why);
    }
    dfc_boot_put("dfc.gpu", &d.rec, sizeof d.rec);
    if (!d.rec.ok) release_resources();
    else d.ok = 1;
    d.relaunch_s = prm.relaunch_us * 1e-6;
    d.kargs.idle_ns = (uint64_t)prm.idle_us * 1000;
    d.kargs.linger_ns = (uint64_t)prm.linger_us * 1000;
    d.kargs.chan_min_bytes = (uint32_t)prm.channel_min_bytes;
    /* the kernel keeps move-to-head: measured on 2 x H200, chaos order did not finish without
     * it (stop 11); the host's default is the other way (dfc(7), DFC_SPIN_MOVE_TO_HEAD) */
    d.kargs.policy = dfc_policy_make(prm.spin_budget, prm.spin_budget_min, prm.spin_budget_max, 1);
    d.fault_launch = prm.fault_launch;
    d.kargs.rendezvous = prm.rendezvous != 0;
    d.trace_ns = prm.trace && d.ok ? calloc(DFC_GPU_TRACE_POINTS, sizeof *d.trace_ns) : NULL;
    d.kargs.trace = d.trace_ns ? (uint32_t)prm.trace : 0;
}

/* Is daemon peer i reached through the proxy? Another node, or any other process with
 * DFC_GPU_PROXY=force (the proxy between ranks of one node, for tests and benchmarks). */
static int is_remote(int i)
{
    if (i == d.me) return 0;
    return prm.proxy == DFC_GPU_PROXY_FORCE ||
           d.node_of[d.local_world[i]] != d.node_of[d.local_world[d.me]];
}

/* The pinned, mapped host regions of remote peer i (daemon_abi.h, dfc_gpu_pair_*). */
static void open_pair(int i)
{
    uint64_t bytes = dfc_gpu_pair_bytes(&d.rec.geom);
    void *p[2];
    for (int k = 0; k < 2; k++) {
        cudaError_t e = dfc_cuda.cudaHostAlloc(&p[k], bytes,
                                               cudaHostAllocMapped | cudaHostAllocPortable);
        if (e) /* the peers believe this process takes part: better stop than hang later */
            dfc_fatal("cannot allocate %llu bytes of pinned memory for the GPU proxy to rank %d "
                      "(%s); run with DFC_GPU_PROXY=off",
                      (unsigned long long)bytes, d.local_world[i], dfc_cuda.cudaGetErrorString(e));
        memset(p[k], 0, bytes);
    }
    d.pair_out[i] = p[0];
    d.pair_in[i] = p[1];
    d.nremote++;
}

/* What world rank r published under "dfc.gpu" (zeroed: nothing, or not a record). */
static void read_record(int r, daemon_record_t *out)
{
    void *v = NULL;
    size_t len = 0;
    memset(out, 0, sizeof *out);
    if (r == d.local_world[d.me]) *out = d.rec;
    else if (dfc_boot_get(r, "dfc.gpu", &v, &len) == DFC_SUCCESS && len == sizeof *out)
        memcpy(out, v, len);
    free(v);
}

/* Every process computes the same verdict from the same records: a rank takes part if its
 * daemon started, with the same geometry, on a GPU no other process of its node uses - or
 * that every process using it shares through CUDA MPS, under which their persistent kernels
 * run side by side (without MPS they would take turns in ~2 ms time slices). mates: the
 * records of its node's n processes, its own among them. */
static int judge(const daemon_record_t *r, const daemon_record_t *const *mates, int n)
{
    if (!r->ok || memcmp(&r->geom, &d.rec.geom, sizeof r->geom)) return 0;
    for (int j = 0; j < n; j++)
        if (mates[j] != r && mates[j]->ok && !strcmp(mates[j]->busid, r->busid) &&
            !(r->mps && mates[j]->mps))
            return 0;
    return 1;
}

/* d.index_of for the peers (NODE and JOB: their node mates are peers too), and their records
 * in recs (daemon index order). */
static void judge_peers(daemon_record_t *recs)
{
    const daemon_record_t *mates[DFC_GPU_MAX_LOCAL];
    for (int i = 0; i < d.nlocal; i++) read_record(d.local_world[i], &recs[i]);
    for (int i = 0; i < d.nlocal; i++) {
        int n = 0;
        for (int j = 0; j < d.nlocal; j++)
            if (d.node_of[d.local_world[j]] == d.node_of[d.local_world[i]]) mates[n++] = &recs[j];
        d.index_of[d.local_world[i]] = judge(&recs[i], mates, n) ? i : -1;
    }
}

/* RAILS and RING: the verdict of every process of the job, not only of the peers, so that every
 * process can tell whether a communicator's hierarchical schedule reaches only daemons that
 * take part (dfc_gpu_daemon_rails). Nodes are numbered densely from 0 by the comm layer and
 * may hold different counts: node k's processes are pos[first[k] .. first[k + 1] - 1], in
 * local index order. */
static void judge_job(daemon_record_t *peer_recs)
{
    int w = d.world_size, N = d.nnodes;
    daemon_record_t *recs = calloc((size_t)w, sizeof *recs);
    const daemon_record_t **pos = calloc((size_t)w, sizeof *pos);
    int *first = calloc((size_t)N + 1, sizeof(int));
    d.rail_part = calloc((size_t)w, sizeof(int));
    if (!recs || !pos || !first || !d.rail_part) /* the peers believe this process takes part */
        dfc_fatal("out of memory reading the GPU daemons of %d processes; run with "
                  "DFC_GPU_PROXY=off",
                  w);
    for (int r = 0; r < w; r++) first[d.node_of[r] + 1]++;
    for (int k = 0; k < N; k++) first[k + 1] += first[k];
    for (int r = 0; r < w; r++) {
        read_record(r, &recs[r]);
        pos[first[d.node_of[r]] + d.rail[r]] = &recs[r];
    }
    for (int r = 0; r < w; r++) {
        int k = d.node_of[r];
        d.rail_part[r] = judge(&recs[r], &pos[first[k]], first[k + 1] - first[k]) ? d.rail[r] : -1;
    }
    for (int i = 0; i < d.nlocal; i++) {
        d.index_of[d.local_world[i]] = d.rail_part[d.local_world[i]] >= 0 ? i : -1;
        peer_recs[i] = recs[d.local_world[i]];
    }
    free(recs);
    free(pos);
    free(first);
}

void dfc_gpu_daemon_connect(void)
{
    if (!d.ok) return;
    daemon_record_t recs[DFC_GPU_MAX_LOCAL];
    if (d.peers == DFC_GPU_PEERS_RAILS || d.peers == DFC_GPU_PEERS_RING) judge_job(recs);
    else judge_peers(recs);
    if (d.index_of[d.local_world[d.me]] < 0) {
        DFC_LOG(DFC_LOG_INFO, "gpu",
                "GPU %s is shared with another process: device buffers are staged", d.rec.busid);
        for (int i = 0; i < d.nlocal; i++) d.index_of[d.local_world[i]] = -1;
        return;
    }
    for (int i = 0; i < d.nlocal; i++) {
        if (i == d.me || d.index_of[d.local_world[i]] < 0) continue;
        if (is_remote(i)) {
            open_pair(i);
            continue;
        }
        void *p;
        cudaError_t e = dfc_cuda.cudaIpcOpenMemHandle(&p, recs[i].box,
                                                      cudaIpcMemLazyEnablePeerAccess);
        if (e) { /* the peers believe this process takes part: better stop than hang later */
            dfc_fatal(
                "cannot map the GPU mailbox of rank %d with CUDA IPC (%s); run with DFC_GPU_DAEMON=0",
                d.local_world[i], dfc_cuda.cudaGetErrorString(e));
        }
        d.box[i] = p;
    }
    dfc_gpu_kargs_t *k = &d.kargs;
    k->host = d.host_dev;
    k->dev = d.dev;
    k->ctx = d.ctx;
    memcpy(k->box, d.box, sizeof k->box);
    for (int i = 0; i < d.nlocal; i++) /* remote peers: the pair regions */
        if (d.pair_out[i]) {
            void *out, *in;
            dfc_cuda.cudaHostGetDevicePointer(&out, d.pair_out[i], 0);
            dfc_cuda.cudaHostGetDevicePointer(&in, d.pair_in[i], 0);
            k->box[i] = out;
            k->inbox[i] = in;
        }
    k->spill = d.spill;
    k->geom = d.rec.geom;
    k->me = (uint32_t)d.me;
    DFC_LOG(DFC_LOG_INFO, "gpu",
            "GPU daemon on device %d (%s), %u channels, %u slots of %u x %u bytes, %d of %d "
            "peers through the host proxy",
            d.rec.device, d.rec.busid, k->geom.channels, k->geom.slots, k->geom.depth,
            k->geom.chunk, d.nremote, d.nlocal - 1);
}

int dfc_gpu_daemon_index(int world_rank)
{
    if (!d.ok || world_rank < 0 || world_rank >= d.world_size) return -1;
    return d.index_of[world_rank];
}

const int *dfc_gpu_daemon_rails(void) { return d.ok ? d.rail_part : NULL; }

int dfc_gpu_daemon_ring(void) { return d.ok && d.peers == DFC_GPU_PEERS_RING ? d.nnodes : 0; }

int dfc_gpu_daemon_device(void) { return d.ok ? d.rec.device : -1; }

int dfc_gpu_daemon_remote(int world_rank)
{
    int i = dfc_gpu_daemon_index(world_rank);
    return i >= 0 && d.pair_out[i] != NULL;
}

int dfc_gpu_daemon_stage_across_nodes(const int *world, int n, uint64_t bytes)
{
    if (!d.ok || prm.proxy_stage_max <= 0 || bytes > (uint64_t)prm.proxy_stage_max) return 0;
    int spans = 0; /* a process of another job (spawned, connected) has no daemon index: 0 */
    for (int r = 0; r < n; r++) {
        if (world[r] < 0 || world[r] >= d.world_size) return 0;
        spans |= d.node_of[world[r]] != d.node_of[world[0]];
    }
    return spans || (prm.proxy == DFC_GPU_PROXY_FORCE && n > 1);
}

void dfc_gpu_daemon_proxy_counts(uint64_t *chunks_out, uint64_t *chunks_in)
{
    uint64_t bytes;
    *chunks_out = *chunks_in = 0;
    if (d.proxy) dfc_gpu_proxy_stats(d.proxy, chunks_out, chunks_in, &bytes);
}

/* CUDA's current device belongs to a thread, and a thread that never chose one works on
 * device 0: every entry that makes CUDA calls for the daemon sets it first, once per
 * thread (the progress thread of DFC_ASYNC_PROGRESS=1 relaunches the kernel too: issue 23,
 * defect 4). The application thread that called DFC_Init has it from start_daemon. */
static __thread int thread_device = -1;
static int on_device(void)
{
    if (thread_device == d.rec.device) return DFC_SUCCESS;
    cudaError_t e = dfc_cuda.cudaSetDevice(d.rec.device);
    if (e) return dfc_cuda_error("cudaSetDevice (the GPU daemon's device, in a new thread)", e);
    thread_device = d.rec.device;
    return DFC_SUCCESS;
}

#define LAUNCH_TRIES 4 /* consecutive failed launches after which pending work fails */

/* Launches the kernel as epoch d.epoch + 1. The epoch advances only once the launch has
 * been accepted: a failed launch leaves the exit marks of the last one in place, so the
 * kernel still counts as gone and dfc_gpu_progress tries again after DFC_GPU_RELAUNCH_US;
 * after LAUNCH_TRIES failures in a row the daemon gives up and every pending collective
 * fails with the reason (dfc_gpu_test). Returns DFC_SUCCESS or the launch's error. */
static int launch(void)
{
    if (d.failed[0]) return DFC_ERR(DFC_ERR_OTHER, "%s", d.failed);
    int rc = on_device();
    if (rc == DFC_SUCCESS) {
        long f = d.fault_launch;
        uint64_t n = ++d.attempts;
        int inject = (f > 0 && n == (uint64_t)f) || (f < 0 && n >= (uint64_t)-f);
        d.kargs.epoch = d.epoch + 1;
        void *args[] = {&d.kargs};
        cudaError_t e = dfc_cuda.cudaLaunchKernel((const void *)d.kernel,
                                                  (dim3){inject ? 0 : d.kargs.geom.channels, 1, 1},
                                                  (dim3){DFC_GPU_THREADS, 1, 1}, args, 0, d.stream);
        if (e) {
            dfc_cuda.cudaGetLastError(); /* not sticky: clear it */
            rc = dfc_cuda_error("launching the GPU daemon kernel", e);
        }
    }
    d.exit_noticed = 0;
    if (rc != DFC_SUCCESS) {
        if (++d.failed_tries >= LAUNCH_TRIES) {
            char why[120];
            dfc_err_message(rc, why, sizeof why);
            snprintf(d.failed, sizeof d.failed,
                     "the GPU daemon kernel could not be launched (%d tries): %s", d.failed_tries,
                     why);
            dfc_cuda.cudaStreamSynchronize(d.stream); /* the last kernel is leaving: let it go */
            for (int i = 0; i < d.nabandoned; i++)    /* no kernel will confirm these cancels */
                d.free_slots[d.nfree++] = d.abandoned[i].slot;
            d.nabandoned = d.ncancel_wait = 0;
        }
        return rc;
    }
    d.epoch = dfc_gpu_epoch_after(d.epoch, 1); /* accepted: only now (dfc_gpu_kernel_gone) */
    d.failed_tries = 0;
    d.launched = 1;
    d.launches++;
    return DFC_SUCCESS;
}

/* Has a block of the current launch exited? (Then work may sit in no running block.) */
static int kernel_left(void)
{
    return dfc_gpu_kernel_gone(d.launched, d.host->exited, d.kargs.geom.channels, d.epoch);
}

/* Appends an SQ entry for descriptor `slot`: the entry, then the tail the kernel polls. */
static int publish_entry(int slot, uint16_t nchan, uint16_t nsteps)
{
    const dfc_gpu_desc_head_t *hd = &d.host->desc[slot].h;
    uint32_t tail = d.host->sq_tail;
    volatile dfc_gpu_sq_entry_t *e = &d.host->sq[tail % DFC_GPU_MAX_COLLS];
    e->slot = (uint32_t)slot;
    e->gen = hd->gen;
    e->priority = hd->priority;
    e->nchan = nchan;
    e->nsteps = nsteps;
    __sync_synchronize(); /* descriptor and entry before the tail */
    d.host->sq_tail = tail + 1;
    /* No running block may see the entry: launch. A failed launch is retried by
     * dfc_gpu_progress, and fails the pending work only after LAUNCH_TRIES. */
    if (kernel_left()) launch();
    return DFC_SUCCESS;
}

/* Room for one more SQ entry: the kernel's mirror must have taken the one a ring back
 * (entries for descriptors always have room; cancels may not). */
static int sq_room(void) { return d.host->sq_tail - d.host->sq_seen < DFC_GPU_MAX_COLLS; }

/* Publishes the cancels that waited for room in the SQ, in order. */
static void publish_cancels(void)
{
    while (d.ncancel_wait && sq_room()) {
        int slot = d.abandoned[d.nabandoned - d.ncancel_wait].slot;
        publish_entry(slot, (uint16_t)d.kargs.geom.channels, DFC_GPU_CANCEL);
        d.ncancel_wait--;
    }
}

/* Frees the descriptors whose cancel every channel of the kernel has confirmed. */
static void reap_abandoned(void)
{
    int n = 0;
    for (int i = 0; i < d.nabandoned; i++) {
        dfc_gpu_handle_t *h = &d.abandoned[i];
        /* error first: a collective that completed before its cancel was seen has its done
         * word too, and the kernel still reads the descriptor when the cancel comes */
        if (i < d.nabandoned - d.ncancel_wait && d.host->done[h->slot] == h->gen &&
            d.host->error[h->slot] == DFC_GPU_CANCELLED) {
            __sync_synchronize();
            d.free_slots[d.nfree++] = h->slot;
        } else {
            d.abandoned[n++] = *h;
        }
    }
    d.nabandoned = n;
}

/* Hands a filled descriptor to the kernel. */
static int publish(int slot)
{
    const dfc_gpu_desc_head_t *hd = &d.host->desc[slot].h;
    return publish_entry(slot, hd->nchan, (uint16_t)hd->nsteps);
}

/* Publishes the deferred descriptors whose legacy-stream work has completed, in order. */
static int publish_ready(void)
{
    int n = 0, rc = DFC_SUCCESS;
    while (n < d.ndeferred && !rc && sq_room()) {
        cudaError_t e = dfc_cuda.cudaEventQuery(d.ready[d.deferred[n]]);
        if (e == cudaErrorNotReady) break;
        if (e) rc = dfc_cuda_error("waiting for the legacy stream", e);
        else rc = publish(d.deferred[n]);
        n++;
    }
    memmove(d.deferred, d.deferred + n, (d.ndeferred - n) * sizeof(int));
    d.ndeferred -= n;
    return rc;
}

static int progress_daemon(void);

/* The proxy talks over DFC_COMM_WORLD's members, which exist only once the comm layer's init
 * is over (after connect): it is made at the first progress or submission. */
static int proxy_ready(void)
{
    if (d.proxy || !d.nremote) return DFC_SUCCESS;
    int rc = dfc_gpu_proxy_create(&d.rec.geom, d.me, d.nlocal, d.local_world, d.pair_out, d.pair_in,
                                  &d.proxy);
    if (rc) { /* dfc_gpu_submit fails from now on: no collective waits on a proxy */
        char why[120];
        dfc_err_message(rc, why, sizeof why);
        snprintf(d.failed, sizeof d.failed, "the GPU daemon's host proxy did not start: %s", why);
        d.nremote = 0;
    }
    return rc;
}

int dfc_gpu_progress(void)
{
    if (!d.ok || on_device()) return 0;
    int events = 0;
    proxy_ready();
    if (d.proxy) {
        events = dfc_gpu_proxy_pass(d.proxy);
        if (d.pending) dfc_gpu_proxy_touch(d.proxy); /* the kernel may write for peers */
    }
    return events + progress_daemon();
}

static int progress_daemon(void)
{
    if (d.ndeferred) publish_ready();
    if (d.nabandoned) {
        publish_cancels();
        reap_abandoned();
    }
    if ((!d.pending && !d.nabandoned) || !kernel_left() || d.failed[0]) return 0;
    double now = dfc_time_now();
    if (!d.exit_noticed) d.exit_noticed = now;
    if (now - d.exit_noticed < d.relaunch_s) return 0;
    /* Not a progress event: a kernel whose collectives are all stuck leaves after
     * DFC_GPU_IDLE_US and is relaunched here, every ~1 ms; counted as progress, that kept a
     * waiter's idle timer at 0 and silenced DFC_HANG_REPORT_SECONDS (devsurvive's hang). */
    launch();
    return 0;
}

int dfc_gpu_submit(const dfc_gpu_job_t *job, dfc_gpu_handle_t *h)
{
    const dfc_sched_t *s = job->sched;
    if (!d.ok) return DFC_ERR(DFC_ERR_INTERN, "the GPU daemon is not running");
    if (d.failed[0]) return DFC_ERR(DFC_ERR_OTHER, "%s", d.failed);
    int rc = on_device();
    if (rc) return rc;
    if ((rc = proxy_ready())) return rc;
    if (d.nremote && !d.thread_asked) {
        /* The proxy must run while the application waits in cudaDeviceSynchronize, outside
         * DFC: the progress thread drives it (as RMA starts it, on first need). */
        d.thread_asked = 1;
        if ((rc = dfc_progress_thread_ensure())) return rc;
    }
    if (s->nsteps > DFC_GPU_MAX_STEPS)
        return DFC_ERR(DFC_ERR_INTERN, "a %d-step schedule exceeds the GPU daemon's limit (%d)",
                       s->nsteps, DFC_GPU_MAX_STEPS);
    if (!d.nfree) return DFC_ERR_PENDING;
    int slot = d.free_slots[d.nfree - 1];
    dfc_gpu_desc_t *desc = &d.host->desc[slot];
    memcpy(desc->steps, s->steps, s->nsteps * sizeof(dfc_step_t));
    if (dfc_gpu_steps_to_daemon(desc->steps, s->nsteps, job->world, d.index_of))
        return DFC_ERR(DFC_ERR_INTERN,
                       "the %s schedule sends to a process this GPU daemon does not connect",
                       s->algorithm ? s->algorithm : "collective's");
    if (dfc_gpu_mark_fused(desc->steps, s->nsteps, job->type >= 0 ? (uint64_t)job->item : 1) &&
        d.tmp_cap[slot] < s->tmp_bytes) {
        cudaError_t e;
        if (d.tmp[slot]) dfc_cuda.cudaFreeAsync(d.tmp[slot], d.side);
        d.tmp[slot] = NULL;
        d.tmp_cap[slot] = 0;
        if ((e = dfc_cuda.cudaMallocAsync(&d.tmp[slot], s->tmp_bytes, d.side)) ||
            (e = dfc_cuda.cudaStreamSynchronize(d.side)))
            return dfc_cuda_error("allocating a collective's device scratch", e);
        d.tmp_cap[slot] = s->tmp_bytes;
    }
    dfc_gpu_number_transfers(desc->steps, s->nsteps, DFC_GPU_MAX_LOCAL);
    d.nfree--;
    dfc_gpu_desc_head_t *hd = &desc->h;
    memset(hd, 0, sizeof *hd);
    hd->bufs[DFC_BUF_SEND] = (uint64_t)(uintptr_t)job->send;
    hd->bufs[DFC_BUF_RECV] = (uint64_t)(uintptr_t)job->recv;
    hd->bufs[DFC_BUF_TMP] = (uint64_t)(uintptr_t)d.tmp[slot];
    hd->ident = job->ident;
    hd->gen = ++d.gen;
    hd->slot = dfc_gpu_fifo_of(job->ident, d.rec.geom.slots);
    hd->nsteps = s->nsteps;
    hd->priority = job->priority;
    hd->type = (uint8_t)(job->type >= 0 ? job->type : 0);
    hd->op = (uint8_t)(job->op >= 0 ? job->op : 0);
    hd->elem = (uint8_t)(job->type >= 0 ? job->elem : 1);
    hd->item = (uint32_t)(job->type >= 0 ? job->item : 1);
    hd->nchan = (uint8_t)dfc_gpu_channels_of(s->steps, s->nsteps, hd->item, d.kargs.chan_min_bytes,
                                             d.kargs.geom.channels);
    d.host->error[slot] = 0;
    if (d.kargs.trace) {
        for (int i = 0; i < DFC_GPU_TRACE_POINTS; i++) d.host->trace[slot][i] = 0;
        d.submitted_ns[slot] = dfc_time_ns();
    }
    d.pending++;
    h->slot = slot;
    h->gen = hd->gen;
    cudaError_t e = dfc_cuda.cudaStreamQuery(cudaStreamLegacy);
    if (e != cudaSuccess && e != cudaErrorNotReady)
        dfc_cuda.cudaGetLastError(); /* no verdict: go on */
    if (e != cudaErrorNotReady && !d.ndeferred && sq_room()) return publish(slot);
    /* The legacy stream is busy (or earlier submissions wait for it, or the SQ is full of
     * cancels the kernel has not mirrored yet): wait for its work, and for room. */
    if ((e = dfc_cuda.cudaEventRecord(d.ready[slot], cudaStreamLegacy))) {
        dfc_cuda.cudaGetLastError();
        return publish(slot); /* cannot order after it: at least run the collective */
    }
    d.deferred[d.ndeferred++] = slot;
    return publish_ready();
}

/* DFC_GPU_TRACE: keeps one completed collective's phase durations (the first
 * TRACE_SAMPLES). A phase not recorded (no chunk sent or received on channel 0), or recorded
 * before the previous one (a chunk received before the first send), lasts 0. */
static void trace_add(int slot)
{
    volatile uint64_t *t = d.host->trace[slot];
    uint64_t prev = t[DFC_GPU_T_ADMIT];
    if (!prev || d.traced >= TRACE_SAMPLES) return;
    for (int i = 1; i < DFC_GPU_TRACE_POINTS; i++) {
        uint64_t v = t[i] > prev ? t[i] : prev;
        d.trace_ns[i][d.traced] = (uint32_t)(v - prev);
        prev = v;
    }
    d.trace_ns[0][d.traced] = (uint32_t)(dfc_time_ns() - d.submitted_ns[slot]);
    d.traced++;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static double trace_median_us(int phase)
{
    qsort(d.trace_ns[phase], d.traced, sizeof(uint32_t), cmp_u32);
    return d.trace_ns[phase][d.traced / 2] / 1000.0;
}

int dfc_gpu_test(dfc_gpu_handle_t *h, int *err)
{
    if (h->slot < 0) return 1;
    if (d.host->done[h->slot] != h->gen) {
        if (!d.failed[0]) return 0;
        /* The kernel cannot be launched any more (launch has waited for the last one to
         * leave): the collective never completes. */
        *err = DFC_ERR(DFC_ERR_OTHER, "%s; the collective did not complete", d.failed);
    } else {
        __sync_synchronize();
        *err = d.host->error[h->slot] ? DFC_ERR(DFC_ERR_OTHER, "the GPU daemon failed a collective")
                                      : DFC_SUCCESS;
    }
    if (d.kargs.trace) trace_add(h->slot);
    d.free_slots[d.nfree++] = h->slot;
    d.pending--;
    h->slot = -1;
    return 1;
}

/* A peer of the collective failed: it will never complete. One still waiting for the
 * legacy stream is simply not published; one the kernel holds is cancelled through the SQ
 * (when the SQ has room: else at the next progress), and its descriptor is reused once every
 * channel of the kernel has confirmed the cancel (its done word, error DFC_GPU_CANCELLED:
 * reap_abandoned). So abandons are bounded by the descriptors, as submissions are. */
void dfc_gpu_abandon(dfc_gpu_handle_t *h)
{
    if (h->slot < 0) return;
    on_device();
    int n = 0, deferred = 0;
    for (int i = 0; i < d.ndeferred; i++) {
        if (d.deferred[i] == h->slot) deferred = 1;
        else d.deferred[n++] = d.deferred[i];
    }
    d.ndeferred = n;
    if (deferred || d.failed[0]) {
        d.free_slots[d.nfree++] = h->slot;
    } else {
        d.abandoned[d.nabandoned++] = *h;
        d.ncancel_wait++;
        publish_cancels();
    }
    d.pending--;
    h->slot = -1;
}

/* DFC_GPU_TRACE=2: where channel 0 spent its time (the kernel has left: its counters are
 * final). The SM clock comes from the main loop's cycles over its nanoseconds. */
static void log_profile(void)
{
    static const char *name[DFC_GPU_PARTS] = {"loop", "admit", "load",   "pick", "move",
                                              "post", "fence", "finish", "exit"};
    uint64_t cycles[DFC_GPU_PARTS], count[DFC_GPU_PARTS], ns = 0;
    if (dfc_cuda.cudaMemcpy(cycles, d.dev->prof_cycles, sizeof cycles, cudaMemcpyDeviceToHost) ||
        dfc_cuda.cudaMemcpy(count, d.dev->prof_count, sizeof count, cudaMemcpyDeviceToHost) ||
        dfc_cuda.cudaMemcpy(&ns, &d.dev->prof_loop_ns, sizeof ns, cudaMemcpyDeviceToHost) || !ns)
        return;
    double ghz = (double)cycles[DFC_GPU_P_LOOP] / ns;
    char line[512];
    int n = snprintf(line, sizeof line, "channel 0 at %.2f GHz, mean us per call (calls):", ghz);
    for (int i = 0; i < DFC_GPU_PARTS && n < (int)sizeof line; i++)
        n += snprintf(line + n, sizeof line - n, " %s %.2f (%llu)", name[i],
                      count[i] ? cycles[i] / ghz / 1000.0 / count[i] : 0.0,
                      (unsigned long long)count[i]);
    DFC_LOG(DFC_LOG_ERROR, "gpu", "%s", line);
}

void dfc_gpu_daemon_finalize(void)
{
    if (!d.ok) return;
    if (d.launched) dfc_cuda.cudaStreamSynchronize(d.stream); /* the kernel leaves once idle */
    DFC_LOG(DFC_LOG_INFO, "gpu",
            "daemon: %llu launches, left %llu times stuck and %llu times idle, %llu preemptions",
            (unsigned long long)d.launches, (unsigned long long)d.host->exits_stuck,
            (unsigned long long)d.host->exits_idle, (unsigned long long)d.host->preemptions);
    if (d.kargs.trace > 1) log_profile();
    if (d.traced) {
        DFC_LOG(
            DFC_LOG_ERROR, "gpu",
            "trace of %u collectives, median us: submit to completion seen %.2f; in the "
            "kernel: admitted to loaded %.2f, to first send %.2f, to first receive %.2f, to done %.2f",
            d.traced, trace_median_us(0), trace_median_us(DFC_GPU_T_LOADED),
            trace_median_us(DFC_GPU_T_SEND), trace_median_us(DFC_GPU_T_RECV),
            trace_median_us(DFC_GPU_T_DONE));
    }
    release_resources();
}

/* Cancels waiting for the kernel's confirmation count too: their descriptors come back only
 * through dfc_gpu_progress (reap_abandoned), so waiters should keep polling. */
int dfc_gpu_busy(void)
{
    return d.ok && (d.pending > 0 || d.nabandoned > 0 || (d.proxy && dfc_gpu_proxy_busy(d.proxy)));
}
uint64_t dfc_gpu_preemptions(void) { return d.ok ? d.host->preemptions : 0; }
uint64_t dfc_gpu_launches(void) { return d.launches; }

#else /* built without CUDA */

void dfc_gpu_daemon_publish(int world_rank, int world_size, const int *node_of)
{
    (void)world_rank, (void)world_size, (void)node_of;
    dfc_gpu_params_read(NULL); /* registered for dfc_info all the same */
}
void dfc_gpu_daemon_connect(void) {}
void dfc_gpu_daemon_finalize(void) {}
int dfc_gpu_daemon_index(int world_rank)
{
    (void)world_rank;
    return -1;
}
const int *dfc_gpu_daemon_rails(void) { return NULL; }
int dfc_gpu_daemon_ring(void) { return 0; }
int dfc_gpu_daemon_device(void) { return -1; }
int dfc_gpu_daemon_remote(int world_rank)
{
    (void)world_rank;
    return 0;
}
int dfc_gpu_daemon_stage_across_nodes(const int *world, int n, uint64_t bytes)
{
    (void)world, (void)n, (void)bytes;
    return 0;
}
void dfc_gpu_daemon_proxy_counts(uint64_t *chunks_out, uint64_t *chunks_in)
{
    *chunks_out = *chunks_in = 0;
}
int dfc_gpu_submit(const dfc_gpu_job_t *job, dfc_gpu_handle_t *h)
{
    (void)job, (void)h;
    return DFC_ERR(DFC_ERR_INTERN, "built without CUDA");
}
int dfc_gpu_test(dfc_gpu_handle_t *h, int *err)
{
    (void)h;
    *err = DFC_SUCCESS;
    return 1;
}
int dfc_gpu_progress(void) { return 0; }
int dfc_gpu_busy(void) { return 0; }
void dfc_gpu_abandon(dfc_gpu_handle_t *h) { h->slot = -1; }
uint64_t dfc_gpu_preemptions(void) { return 0; }
uint64_t dfc_gpu_launches(void) { return 0; }
#endif
