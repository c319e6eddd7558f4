/*
 * init.c - bring-up and tear-down of the comm layer, in dependency order:
 *   bootstrap -> logging -> environment check -> object tables -> node map -> transports ->
 *   protocol -> DFC_COMM_WORLD and DFC_COMM_SELF.
 * Finalize runs it backwards, after flushing queued output and a fence, so that no eager
 * message that a peer still has to receive is dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"
#include "comm/dfc_win.h"
#include "cuda/dfc_cuda.h"
#include "pmix/dfc_boot.h"

dfc_proc_t dfc_proc;
int dfc_lock_enabled;
dfc_lock_line_t dfc_big_lock = {PTHREAD_MUTEX_INITIALIZER};
_Alignas(64) int dfc_lock_wanted; /* written by contending threads only */

dfc_tl_t **dfc_route;
dfc_tl_t *dfc_tls[4];
int dfc_ntls;
static dfc_tl_t tl_self, tl_shm, tl_tcp, tl_ofi;
struct dfc_tl_slot_comm *dfc_world_slots;
int *dfc_node_of; /* node index of each world rank (first-seen order of hostnames) */
dfc_comm_gpu_hooks_t dfc_comm_gpu_hooks;

int dfc_comm_init_predefined(void);
void dfc_comm_finalize_predefined(void);

extern char **environ;

static void boot_abort_hook(int code, const char *msg) { dfc_boot_abort(code, msg); }

/* Groups ranks by hostname, as the launcher reports it (never by guessing). The local rank
 * and size are then this map's (the index among the node's ranks in world order, which the
 * shm transport's rings are laid out by), not PMIx's PMIX_LOCAL_RANK/SIZE: on the lent GPU
 * machine's Open MPI 4.1.6, on simulated nodes of 3 and 2 ranks, the node of 3 was told a
 * local size of at most 2, and shm's init failed there ("world rank 4 is not another rank
 * on this node", BENCHMARKS.md stop 37). */
static int build_node_map(void)
{
    int n = dfc_proc.world_size;
    char(*names)[256] = calloc(n, 256);
    dfc_node_of = calloc(n, sizeof *dfc_node_of);
    if (!names || !dfc_node_of) {
        free(names);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    }
    int nodes = 0, rc = DFC_SUCCESS;
    for (int r = 0; r < n && !rc; r++) {
        rc = dfc_boot_hostname(r, names[r], 256);
        int j;
        for (j = 0; j < r; j++)
            if (!strcmp(names[j], names[r])) break;
        dfc_node_of[r] = j < r ? dfc_node_of[j] : nodes++;
    }
    free(names);
    if (rc) return rc;
    int me = dfc_proc.world_rank, local_rank = 0, local_size = 0;
    for (int r = 0; r < n; r++)
        if (dfc_node_of[r] == dfc_node_of[me]) {
            local_rank += r < me;
            local_size++;
        }
    dfc_proc.local_rank = local_rank;
    dfc_proc.local_size = local_size;
    return DFC_SUCCESS;
}

/* Processes with different hostnames may share one kernel and its processors: containers
 * or UTS namespaces on one machine (Kubernetes pods, the simulated nodes of test/launch),
 * which the node map cannot tell apart from nodes. Each process publishes the kernel's boot
 * id before the transports' fence; after it, dfc_proc.kernel_size counts the processes that
 * run on this kernel, which the waiting policy compares with the processors
 * (dfc_progress_oversubscribed: with it, 8 ranks on 4 simulated nodes of the 2-core CI
 * machine ran test/mpi-style/coll/allred in 2.2 s instead of 14.3, BENCHMARKS.md stop 38).
 * The count reads every rank's id from the data the fence collected: local lookups, one
 * per rank of the job. */
#define KERNEL_ID_LEN 36 /* a UUID */
static char kernel_id[KERNEL_ID_LEN];

static int publish_kernel(void)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    size_t got = f ? fread(kernel_id, 1, KERNEL_ID_LEN, f) : 0;
    if (f) fclose(f);
    if (got != KERNEL_ID_LEN) memset(kernel_id, 0, KERNEL_ID_LEN); /* unknown: never a match */
    return dfc_proc.world_size > 1 ? dfc_boot_put("dfc.kernel", kernel_id, KERNEL_ID_LEN)
                                   : DFC_SUCCESS;
}

static int count_kernel_mates(void)
{
    int n = dfc_proc.world_size, mates = 0;
    dfc_proc.kernel_size = dfc_proc.local_size;
    if (n == 1 || !kernel_id[0]) return DFC_SUCCESS;
    for (int r = 0; r < n; r++) {
        void *id = NULL;
        size_t len = 0;
        int rc = dfc_boot_get(r, "dfc.kernel", &id, &len);
        if (rc) return rc;
        mates += len == KERNEL_ID_LEN && !memcmp(id, kernel_id, KERNEL_ID_LEN);
        free(id);
    }
    dfc_proc.kernel_size = DFC_MAX2(mates, dfc_proc.local_size);
    return DFC_SUCCESS;
}

/* The world's slots: set 0 (its context id), stamps from 1. */
static int world_slots_open(int n)
{
    int *all = malloc((size_t)n * sizeof(int));
    if (!all) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n; i++) all[i] = i;
    int rc = dfc_tl_shm_slot_open(&tl_shm, 0, all, n, dfc_proc.world_rank, 0, &dfc_world_slots);
    free(all);
    return rc;
}

/* Whether the shm transport could open slots for c: every member is on this node (shm or
 * this process) and the transport is up. The same answer on every member. */
static int slots_possible(const dfc_comm_t *c)
{
    if (!tl_shm.priv || c->size < 2 || c->ctx >= DFC_TL_SLOT_SETS) return 0;
    for (int i = 0; i < c->size; i++)
        if (dfc_route[c->world[i]] != &tl_shm && dfc_route[c->world[i]] != &tl_self) return 0;
    return 1;
}

int dfc_comm_slots_open(dfc_comm_t *c, uint64_t base)
{
    c->slots = NULL;
    if (!slots_possible(c)) return DFC_SUCCESS;
    return dfc_tl_shm_slot_open(&tl_shm, c->ctx, c->world, c->size, c->rank, base, &c->slots);
}

void dfc_comm_slots_close(dfc_comm_t *c)
{
    dfc_tl_shm_slot_close(&tl_shm, c->slots);
    c->slots = NULL;
}

uint64_t dfc_comm_slot_clock(void) { return tl_shm.priv ? dfc_tl_shm_slot_clock(&tl_shm) : 0; }

/* Chooses a transport per peer and initializes each transport on every process (their
 * init is collective, so every process calls each one, even with no peers for it). */
static int init_transports(void)
{
    int n = dfc_proc.world_size, me = dfc_proc.world_rank, rc;
    const char *force = dfc_env_str(
        "DFC_TRANSPORT", "auto",
        "auto: shm on one node; across nodes ofi when libfabric offers a provider other than "
        "tcp/udp/sockets (asked only where the kernel lists a fabric device), else tcp; tcp "
        "or ofi: that transport between all processes");
    int force_tcp = !strcmp(force, "tcp"), force_ofi = !strcmp(force, "ofi");
    /* auto probes libfabric (fi_getinfo: ~0.2 s) only in jobs that span nodes, and only on
     * hosts that list a fabric device (ofi_prov.c); ranks whose probes disagree fail ofi's
     * init clearly. */
    int multinode = 0;
    for (int r = 1; r < n; r++) multinode |= dfc_node_of[r] != dfc_node_of[0];
    int use_ofi = force_ofi || (!force_tcp && multinode && dfc_tl_ofi_auto_usable());
#ifdef HAVE_LIBFABRIC
    int ofi_collective = use_ofi || (!force_tcp && multinode); /* every rank enters its init */
#else
    int ofi_collective = use_ofi;
#endif
    int *shm_peers = calloc(n, sizeof(int)), *tcp_peers = calloc(n, sizeof(int));
    int *local_ranks = calloc(n, sizeof(int));
    dfc_route = calloc(n, sizeof *dfc_route);
    if (!shm_peers || !tcp_peers || !local_ranks || !dfc_route) {
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
        goto out;
    }
    /* tcp_peers holds the between-nodes peers of whichever of tcp and ofi is used. */
    dfc_tl_t *net = use_ofi ? &tl_ofi : &tl_tcp;
    int nshm = 0, ntcp = 0, nlocal = 0;
    for (int r = 0; r < n; r++) {
        if (dfc_node_of[r] == dfc_node_of[me]) local_ranks[nlocal++] = r;
        if (r == me) dfc_route[r] = &tl_self;
        else if (!force_tcp && !force_ofi && dfc_node_of[r] == dfc_node_of[me]) {
            shm_peers[nshm++] = r;
            dfc_route[r] = &tl_shm;
        } else {
            tcp_peers[ntcp++] = r;
            dfc_route[r] = net;
        }
    }
    dfc_tl_job_t job = {.rank = me,
                        .size = n,
                        .local_rank = dfc_proc.local_rank,
                        .local_size = dfc_proc.local_size,
                        .nspace = dfc_proc.nspace,
                        .local_ranks = local_ranks,
                        .fault_timeout_s = dfc_fault_timeout_s};
    tl_self.ops = &dfc_tl_self_ops;
    rc = tl_self.ops->init(&tl_self, &job);
    if (rc) goto out;
    dfc_tls[dfc_ntls++] = &tl_self;
    if (n > 1) {
        job.peers = shm_peers;
        job.npeers = nshm;
        tl_shm.ops = &dfc_tl_shm_ops;
        rc = tl_shm.ops->init(&tl_shm, &job);
        if (rc) goto out;
        if (nshm) dfc_tls[dfc_ntls++] = &tl_shm;
        job.peers = tcp_peers;
        job.npeers = use_ofi ? 0 : ntcp;
        tl_tcp.ops = &dfc_tl_tcp_ops;
        rc = tl_tcp.ops->init(&tl_tcp, &job);
        if (rc) goto out;
        if (job.npeers) dfc_tls[dfc_ntls++] = &tl_tcp;
        if (ofi_collective) { /* with no peers where this rank chose tcp */
            job.npeers = use_ofi ? ntcp : 0;
            tl_ofi.ops = &dfc_tl_ofi_ops;
            rc = tl_ofi.ops->init(&tl_ofi, &job);
            if (rc) goto out;
            if (job.npeers) dfc_tls[dfc_ntls++] = &tl_ofi;
        }
    }
    if (n > 1 && nshm == n - 1) rc = world_slots_open(n);
    if (rc) goto out;
    DFC_LOG(DFC_LOG_INFO, "tl", "transports: %d shm peers, %d %s peers%s", nshm, ntcp,
            use_ofi ? "ofi" : "tcp", dfc_world_slots ? " (collective slots on)" : "");
out:
    free(shm_peers);
    free(tcp_peers);
    free(local_ranks);
    return rc;
}

/* CUDA is loaded first; the GPU daemon publishes its mailbox before the transports' init,
 * whose fence makes it visible, and maps its peers' mailboxes after it. */
static int init_gpu_and_transports(void)
{
    dfc_gpu_init_startup(); /* CUDA now, or at the first device buffer (DFC_GPU_INIT) */
    if (dfc_comm_gpu_hooks.publish)
        dfc_comm_gpu_hooks.publish(dfc_proc.world_rank, dfc_proc.world_size, dfc_node_of);
    int rc = init_transports();
    if (!rc && dfc_comm_gpu_hooks.connect) dfc_comm_gpu_hooks.connect();
    return rc;
}

int dfc_comm_layer_init(int required, int *provided)
{
    dfc_boot_info_t bi;
    int rc = dfc_boot_init(&bi);
    if (rc) return rc;
    dfc_abort_hook = boot_abort_hook;
    dfc_proc.world_rank = bi.rank;
    dfc_proc.world_size = bi.size;
    dfc_proc.local_rank = bi.local_rank;
    dfc_proc.local_size = bi.local_size;
    dfc_proc.singleton = bi.singleton;
    dfc_proc.appnum = bi.appnum;
    dfc_proc.universe_size = bi.universe_size;
    memcpy(dfc_proc.hostname, bi.hostname, sizeof dfc_proc.hostname);
    memcpy(dfc_proc.nspace, bi.nspace, sizeof dfc_proc.nspace);
    dfc_proc.main_thread = pthread_self();
    dfc_log_init(bi.rank);
    /* Before anything reads a parameter; rank 0 alone warns of unknown DFC_ variables, as
     * launchers give every process the same environment. */
    if ((rc = dfc_env_check(environ, "DFC_Init", bi.rank, bi.rank == 0 ? stderr : NULL))) return rc;

    /* Every level is provided: MULTIPLE serializes calls through one lock. */
    dfc_proc.thread_level = required < DFC_THREAD_SINGLE     ? DFC_THREAD_SINGLE
                            : required > DFC_THREAD_MULTIPLE ? DFC_THREAD_MULTIPLE
                                                             : required;
    dfc_lock_enabled = dfc_proc.thread_level == DFC_THREAD_MULTIPLE;
    if (provided) *provided = dfc_proc.thread_level;

    dfc_htable_init(&dfc_req_table, DFC_KIND_REQUEST, 1);
    dfc_req_cache_init();
    if ((rc = dfc_req_sent_init()) || (rc = dfc_dtype_init()) || (rc = dfc_op_init()) ||
        (rc = dfc_group_init()) || (rc = dfc_info_init()) || (rc = dfc_keyval_init()) ||
        (rc = dfc_win_init()) || (rc = build_node_map()) || (rc = publish_kernel()) ||
        (rc = dfc_fault_init()) || (rc = init_gpu_and_transports()) ||
        (rc = count_kernel_mates()) || (rc = dfc_p2p_init()) || (rc = dfc_comm_init_predefined()))
        return rc;
    dfc_hang_report_init();
    /* Before a second thread can call in: the contended lock reads DFC_LOCK_SPIN_US. */
    if (dfc_lock_enabled) dfc_progress_register_params();
    dfc_proc.initialized = 1;
    return DFC_SUCCESS;
}

/* After a failure only the live ranks meet (those this rank knows of: a rank that has not
 * noticed the failure yet waits for everyone, as without one). */
static int finalize_fence(void)
{
    if (!dfc_fault_count()) return dfc_boot_fence();
    int n = 0, *live = malloc(dfc_proc.world_size * sizeof *live);
    if (!live) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    for (int r = 0; r < dfc_proc.world_size; r++)
        if (r == dfc_proc.world_rank || !dfc_fault_check(NULL, 0, r)) live[n++] = r;
    int rc = dfc_boot_fence_among(live, n);
    free(live);
    return rc;
}

int dfc_comm_layer_finalize(void)
{
    /* Hand every queued packet to the transports and the OS before the fence: a peer may
     * still be waiting for an eager message that completed here. */
    for (;;) {
        int busy = !dfc_p2p_idle();
        for (int i = 0; i < dfc_ntls; i++)
            if (dfc_tls[i]->ops->pending && dfc_tls[i]->ops->pending(dfc_tls[i])) busy = 1;
        if (!busy) break;
        if (dfc_progress() < 0) break;
    }
    int rc = finalize_fence();
    if (dfc_comm_gpu_hooks.finalize) dfc_comm_gpu_hooks.finalize(); /* after the fence */
    dfc_win_finalize(); /* windows the program did not free are forgotten, not freed */
    dfc_comm_finalize_predefined();
    dfc_hang_report_finalize();
    dfc_p2p_finalize();
    dfc_stage_finalize(); /* the pinned staging buffers */
    dfc_msg_finalize();   /* issue 17, part 3 */
    dfc_bsend_finalize();
    dfc_greq_finalize();
    dfc_fault_finalize();
    dfc_tl_shm_slot_close(&tl_shm, dfc_world_slots);
    for (int i = 0; i < 4; i++) {
        dfc_tl_t *tl = i == 0 ? &tl_self : i == 1 ? &tl_shm : i == 2 ? &tl_tcp : &tl_ofi;
        if (tl->ops && tl->ops->fini) tl->ops->fini(tl);
    }
    dfc_ntls = 0;
    dfc_world_slots = NULL;
    free(dfc_route);
    dfc_route = NULL;
    free(dfc_node_of);
    dfc_node_of = NULL;
    dfc_info_finalize();
    dfc_keyval_finalize();
    dfc_err_user_reset();
    dfc_group_finalize();
    dfc_op_finalize();
    dfc_dtype_finalize();
    dfc_htable_destroy(&dfc_req_table);
    dfc_req_cache_finalize();
    int rc2 = dfc_boot_finalize();
    dfc_proc.finalized = 1;
    return rc ? rc : rc2;
}
