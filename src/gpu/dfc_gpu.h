/*
 * dfc_gpu.h - the GPU daemon (DESIGN.md 2.1, 2.2): a persistent, preemptible kernel per GPU
 * that runs collective schedules on device buffers and moves data between the GPUs of a node
 * through mailboxes mapped with CUDA IPC.
 *
 * Depends on util, the bootstrap (the daemon publishes its mailbox at init, as the
 * transports do), the CUDA loader (cuda/dfc_cuda.h, below comm) and the schedule format
 * (coll/dfc_sched.h, a plain header shared by both executors). The coll layer submits
 * schedules and polls their completion; the api layer sets the daemon up through comm's
 * init hooks (dfc_comm_gpu_hooks_t), since comm may not call it.
 */
#ifndef DFC_GPU_H
#define DFC_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "coll/dfc_sched.h"
#include "cuda/dfc_cuda.h"

/* ---- The daemon (daemon.c) ---------------------------------------------------------------
 * Setup is split around the transports' init, whose fence publishes the daemon's key:
 * dfc_gpu_daemon_publish before it (choose the device, allocate, put the IPC handle),
 * dfc_gpu_daemon_connect after it (map the mailboxes of the other GPUs of the node).
 * Neither fails the job: a process whose daemon cannot start uses the staging path. */
void dfc_gpu_daemon_publish(int world_rank, int world_size, const int *node_of);
void dfc_gpu_daemon_connect(void);
/* Waits for the kernel to leave and frees everything (after the finalize fence). */
void dfc_gpu_daemon_finalize(void);
/* The daemon index (position among the daemon's peers, daemon_plan.h: the processes of this
 * node; with the host proxy every process of a job of at most DFC_GPU_MAX_LOCAL, or in a
 * larger job of equal nodes this node's and this rail's, or its rail's ring neighbours') of
 * world rank r, or -1 when
 * collectives with r cannot run in the daemon: no daemon here or there, another node not
 * connected, or a GPU shared by several processes without MPS. */
int dfc_gpu_daemon_index(int world_rank);
/* Rails (a job of more than DFC_GPU_MAX_LOCAL processes with the proxy whose daemons connect
 * node mates and rail peers, daemon_plan.h): for each world rank, its local index on its node
 * when its daemon takes part, else -1; the same table on every process. NULL when the
 * daemons do not connect by rails (then dfc_gpu_daemon_index alone decides). */
const int *dfc_gpu_daemon_rails(void);
/* Rails on a ring (daemon_plan.h, RING): the number of nodes N when each daemon connects only
 * the rail peers on nodes n - 1 and n + 1 mod N (node numbers as dfc_node_of's); 0 when it
 * connects its whole rail, or no rail. */
int dfc_gpu_daemon_ring(void);
/* Whether nodes a and b (of nnodes, numbered densely) are neighbours on the ring of nodes. */
static inline int dfc_gpu_ring_adjacent(int a, int b, int nnodes)
{
    int d = ((a - b) % nnodes + nnodes) % nnodes;
    return d == 1 || d == nnodes - 1;
}
/* The device this process's daemon runs on, or -1. */
int dfc_gpu_daemon_device(void);
/* 1 when the daemon reaches world rank r through the host proxy (another node, or
 * DFC_GPU_PROXY=force), and the proxy's chunk records sent and received so far (tests). */
int dfc_gpu_daemon_remote(int world_rank);
/* 1 when a device collective of `bytes` among world ranks world[0 .. n-1] should be staged
 * rather than run by the daemon through its proxy: they span nodes (any two, under
 * DFC_GPU_PROXY=force) and bytes is at most DFC_GPU_PROXY_STAGE_MAX. The same answer on
 * every member. */
int dfc_gpu_daemon_stage_across_nodes(const int *world, int n, uint64_t bytes);
void dfc_gpu_daemon_proxy_counts(uint64_t *chunks_out, uint64_t *chunks_in);

#define DFC_GPU_MAX_LOCAL \
    16                        /* processes the daemon connects (a node's; with the proxy the
                             * job's, or beyond it a node's and a rail's) */
#define DFC_GPU_MAX_STEPS 512 /* steps of one schedule the daemon runs */

/* Element types and operations the kernel reduces (others stay on the host path). */
enum dfc_gpu_type {
    DFC_GPU_I32,
    DFC_GPU_U32,
    DFC_GPU_I64,
    DFC_GPU_U64,
    DFC_GPU_F32,
    DFC_GPU_F64,
    DFC_GPU_BF16,
    DFC_GPU_F16,
    DFC_GPU_NTYPES
};
enum dfc_gpu_op {
    DFC_GPU_SUM,
    DFC_GPU_PROD,
    DFC_GPU_MIN,
    DFC_GPU_MAX,
    DFC_GPU_LAND,
    DFC_GPU_LOR,
    DFC_GPU_LXOR,
    DFC_GPU_BAND,
    DFC_GPU_BOR,
    DFC_GPU_BXOR,
    DFC_GPU_NOPS
};

typedef struct dfc_gpu_job {
    const dfc_sched_t *sched;
    void *send, *recv; /* device buffers (NULL where not significant) */
    uint64_t ident;    /* same on every rank: dfc_gpu_ident */
    int priority;
    int type, op;     /* reductions (DFC_GPU_I32.., DFC_GPU_SUM..); type -1: none */
    int elem, item;   /* bytes of one element of `type`, of one datatype item */
    const int *world; /* communicator rank -> world rank (the steps' peers are ranks) */
} dfc_gpu_job_t;

/* The ident of a collective: the same on every rank, and distinct across tags (32 bits),
 * context ids (< 4096) and communicator incarnations (dfc_comm_t.incarnation, 16 bits of it:
 * only a chunk left over from 65536 incarnations earlier could alias). Never 0. */
static inline uint64_t dfc_gpu_ident(uint64_t incarnation, uint32_t ctx, int tag)
{
    return ((incarnation & 0xffff) << 48 | (uint64_t)(ctx & 0xffff) << 32 | (uint32_t)tag) + 1;
}

typedef struct dfc_gpu_handle {
    int slot; /* descriptor in flight, -1 when none */
    uint32_t gen;
} dfc_gpu_handle_t;

/* Queues a collective. Returns DFC_SUCCESS, DFC_ERR_PENDING when every descriptor is in use
 * (try again after progress), or an error code with a message. Never blocks on peers. */
int dfc_gpu_submit(const dfc_gpu_job_t *job, dfc_gpu_handle_t *h);
/* 1 when the collective completed (*err: its error code or DFC_SUCCESS); frees the slot. */
int dfc_gpu_test(dfc_gpu_handle_t *h, int *err);
/* Gives up on a submitted collective whose peer died: it no longer counts as pending, and
 * its descriptor stays with the kernel (never reused). */
void dfc_gpu_abandon(dfc_gpu_handle_t *h);
/* Relaunches the kernel when work is pending and it has left (on DFC_GPU_RELAUNCH_US). */
int dfc_gpu_progress(void);
/* 1 while submitted collectives have not been tested complete (waiters should not sleep). */
int dfc_gpu_busy(void);
/* Preemptions counted by the kernel (channel 0), for benchmarks and tests. */
uint64_t dfc_gpu_preemptions(void);
/* Launches of the kernel so far, for tests (a relaunch after an exit counts). */
uint64_t dfc_gpu_launches(void);

#endif
