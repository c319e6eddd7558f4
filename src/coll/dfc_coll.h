/*
 * dfc_coll.h - the coll layer: collective algorithms compile into schedules
 * (dfc_sched.h); the executor runs them; the scheduler decides which collective runs.
 *
 * Depends on the comm layer (requests, point-to-point on the communicator's collective
 * context, datatypes and ops). The api layer calls dfc_coll_run once per collective call
 * (run.c: routing, selection, building, running); requests call dfc_coll_start.
 */
#ifndef DFC_COLL_H
#define DFC_COLL_H

#include "coll/dfc_sched.h"
#include "comm/dfc_comm.h"
#include "gpu/dfc_gpu.h"

typedef enum dfc_coll_kind {
    DFC_COLL_BARRIER = 0,
    DFC_COLL_BCAST,
    DFC_COLL_REDUCE,
    DFC_COLL_ALLREDUCE,
    DFC_COLL_GATHER,
    DFC_COLL_GATHERV,
    DFC_COLL_SCATTER,
    DFC_COLL_SCATTERV,
    DFC_COLL_ALLGATHER,
    DFC_COLL_ALLGATHERV,
    DFC_COLL_ALLTOALL,
    DFC_COLL_ALLTOALLV,
    DFC_COLL_REDUCE_SCATTER_BLOCK,
    DFC_COLL_REDUCE_SCATTER,
    DFC_COLL_SCAN,
    DFC_COLL_EXSCAN,
    DFC_COLL_NEIGHBOR_ALLGATHER, /* neighborhood collectives: transfers listed in the args */
    DFC_COLL_NEIGHBOR_ALLGATHERV,
    DFC_COLL_NEIGHBOR_ALLTOALL,
    DFC_COLL_NEIGHBOR_ALLTOALLV,
    DFC_COLL_NEIGHBOR_ALLTOALLW,
    DFC_COLL_ALLTOALLW, /* issue 17: per-peer blocks listed in the args (sends, recvs) */
    DFC_COLL_KIND_COUNT
} dfc_coll_kind_t;

/* One transfer of a neighborhood collective: with `peer` (a rank or DFC_PROC_NULL), `bytes`
 * at byte offset `off` of the send or receive buffer. */
typedef struct dfc_coll_xfer {
    int peer;
    uint64_t off, bytes;
} dfc_coll_xfer_t;

/* What a generator knows about one call, on this rank. All sizes are in bytes unless named
 * "count". Datatypes are contiguous, so a block of n items of a type of size s is n*s
 * contiguous bytes. */
typedef struct dfc_coll_args {
    dfc_coll_kind_t kind;
    int rank, size;  /* in the communicator */
    int root;        /* rooted collectives */
    int in_place;    /* sendbuf was DFC_IN_PLACE (on the root only, for rooted ones) */
    int commutative; /* the op is commutative (reductions) */
    /* reductions (reduce, allreduce, reduce_scatter*, scan, exscan) and bcast: */
    uint64_t count;     /* items: total for allreduce/reduce/bcast/scan; per block for
                          reduce_scatter_block */
    uint64_t elem;      /* bytes of one item */
    const int *rcounts; /* reduce_scatter: items per rank */
    /* gather/scatter/allgather/alltoall (and their v forms): */
    uint64_t sbytes;       /* bytes of the send block (sendcount * size of sendtype) */
    uint64_t rbytes;       /* bytes of one receive block (recvcount * size of recvtype) */
    uint64_t selem, relem; /* sizes of sendtype and recvtype (v forms: counts are in items) */
    const int *scounts, *sdispls; /* scatterv, alltoallv: per rank, items of sendtype */
    const int *vcounts, *vdispls; /* gatherv, allgatherv, alltoallv recv side: items of recvtype */
    /* gpu: the schedule runs in the GPU daemon (enum dfc_coll_gpu), which pipelines every
       transfer in chunks over its channels: generators need not cut it into segments.
       slots: the communicator has shm collective slots and the call may use them (host
       engine, not persistent): see allreduce_shm_slots.c.
       nonblocking: a nonblocking or persistent call (select.c: allreduce_rd_limit); part of
       the cache's key, so that every rank's choice is its mode's. */
    int gpu, slots, nonblocking;
    /* neighborhood collectives: this rank's receives and sends, each list in the order its
       transfers must be posted (neighbor_linear.c; built by the api layer from the
       communicator's topology, so the schedule depends on comm, kind and sizes only) */
    int nrecvs, nsends;
    const dfc_coll_xfer_t *recvs, *sends;
    /* non-dense datatypes of the send and receive sides (NULL: dense, used in place): the
       call then runs on packed host copies of its buffers (run.c), whose items are
       selem/relem (elem for reductions) bytes each, as generators expect */
    const dfc_dtype_t *stype, *rtype;
    /* alltoallw uses recvs and sends too: one entry per rank, indexed by rank (nrecvs ==
       nsends == size), each with its byte offset and length (alltoall_pairwise.c) */
    /* where the ranks are (hierarchical algorithms; NULL: not known, as for a test's own
       arguments): the world rank of each communicator rank and the node of each world
       rank (run.c points them at the communicator's peers and dfc_node_of) */
    const int *world, *world_node;
} dfc_coll_args_t;

/* Allgather(v): where rank p's block lies in the receive buffer, and its length (the ring and
 * the hierarchical algorithm both walk blocks by rank). */
static inline uint64_t dfc_coll_allgather_block_off(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_ALLGATHERV) return (uint64_t)(int64_t)a->vdispls[p] * a->relem;
    return (uint64_t)p * a->rbytes;
}

static inline uint64_t dfc_coll_allgather_block_len(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_ALLGATHERV) return (uint64_t)a->vcounts[p] * a->relem;
    return a->rbytes;
}

/* Host-only step kinds (dfc_sched.h leaves 0x80 and up to the host executor). Only host
 * calls (not a->gpu) get them, so the GPU daemon's kernel never sees one. */
enum dfc_host_step_kind {
    DFC_STEP_SLOT_ALLREDUCE = DFC_STEP_HOST_ONLY /* allreduce `count` items (`bytes`) of
                               (src_buf, 0) into (dst_buf, 0) through the collective slots
                               (dfc_comm_slot_xchg), scratch at tmp_off; a preemption point
                               of its own */
};

/* Generators stop at the first builder call that fails, returning its code. */
#define DFC_TRY(x)                                          \
    do {                                                    \
        int dfc_try_rc_ = (x);                              \
        if (dfc_try_rc_ != DFC_SUCCESS) return dfc_try_rc_; \
    } while (0)

/* ---- Building schedules (sched.c) --------------------------------------------------------
 * Each returns DFC_SUCCESS or DFC_ERR_NO_MEM (with its message recorded). */
void dfc_sched_init(dfc_sched_t *s);
void dfc_sched_destroy(dfc_sched_t *s);
int dfc_sched_send(dfc_sched_t *s, int peer, int buf, uint64_t off, uint64_t bytes);
int dfc_sched_recv(dfc_sched_t *s, int peer, int buf, uint64_t off, uint64_t bytes);
/* Receives count items (bytes = count*elem) into TMP at tmp_off; at the next fence reduces
 * them into (buf, off) with the given operand order. */
int dfc_sched_recv_reduce(dfc_sched_t *s, int peer, int buf, uint64_t off, uint64_t count,
                          uint64_t bytes, uint64_t tmp_off, int order);
int dfc_sched_copy(dfc_sched_t *s, int src_buf, uint64_t src_off, int dst_buf, uint64_t dst_off,
                   uint64_t bytes);
int dfc_sched_reduce(dfc_sched_t *s, int src_buf, uint64_t src_off, int dst_buf, uint64_t dst_off,
                     uint64_t count, int order);
int dfc_sched_fence(dfc_sched_t *s);
/* One SLOT_ALLREDUCE step (dfc_sched.h); marks the schedule as using the slots. */
int dfc_sched_slot_allreduce(dfc_sched_t *s, int src_buf, uint64_t count, uint64_t bytes,
                             uint64_t tmp_off);
/* A SLOT_ALLREDUCE step with a root (peer = root): only the root contributes the `bytes` of
 * RECV at `off` (one segment of the message), which the others copy into their RECV at `off`
 * (bcast_shm_slots.c). bytes 0 with root -1 through dfc_sched_slot_allreduce is a barrier
 * (barrier_shm_slots.c). */
int dfc_sched_slot_bcast(dfc_sched_t *s, int root, uint64_t off, uint64_t bytes);
/* A SLOT_ALLREDUCE step that is an alltoall (peer = DFC_SLOT_PEER_ALLTOALL): every member
 * contributes its `bytes` (one `block` per member) and takes block `me` of each into RECV. */
#define DFC_SLOT_PEER_ALLTOALL (-2)
int dfc_sched_slot_alltoall(dfc_sched_t *s, int src_buf, uint64_t block, uint64_t bytes);
/* A SLOT_ALLREDUCE step that is an allgather (peer = DFC_SLOT_PEER_ALLGATHER) of one piece of
 * the blocks: every member contributes `bytes` from src_buf at src_off (the piece at byte
 * piece_off of its `block`-byte block) and copies member r's into RECV at r block + piece_off. */
#define DFC_SLOT_PEER_ALLGATHER (-3)
int dfc_sched_slot_allgather(dfc_sched_t *s, int src_buf, uint64_t src_off, uint64_t piece_off,
                             uint64_t block, uint64_t bytes);
/* The two exchanges of allreduce_shm_slots_rs_ag.c over a segment of `count` items at byte
 * `off` of the vector, cut into chunks (dfc_coll_slot_chunk). REDUCE_SCATTER: every member
 * contributes the segment's `bytes` from src_buf and reduces chunk `me` of every member's
 * into that chunk of the segment in RECV, with tmp_off the scratch of
 * dfc_coll_slot_reduce_chunk. ALLGATHER_CHUNKS: every member contributes its chunk, `bytes`
 * from RECV at off + chunk_off, and copies every other member's chunk into its place. */
#define DFC_SLOT_PEER_REDUCE_SCATTER (-4)
#define DFC_SLOT_PEER_ALLGATHER_CHUNKS (-5)
int dfc_sched_slot_reduce_scatter(dfc_sched_t *s, int src_buf, uint64_t off, uint64_t count,
                                  uint64_t bytes, uint64_t tmp_off);
int dfc_sched_slot_allgather_chunks(dfc_sched_t *s, uint64_t off, uint64_t chunk_off,
                                    uint64_t count, uint64_t bytes);
/* Chunk r of `count` items cut among p members: ceil(count / p) items from item *lo (the
 * last chunks shorter, or empty), *items of them. */
static inline uint64_t dfc_coll_slot_chunk_items(uint64_t count, int p)
{
    return (count + (uint64_t)p - 1) / (uint64_t)p;
}
static inline void dfc_coll_slot_chunk(uint64_t count, int p, int r, uint64_t *lo, uint64_t *items)
{
    uint64_t q = dfc_coll_slot_chunk_items(count, p), at = q * (uint64_t)r;
    *lo = at < count ? at : count;
    *items = count - *lo < q ? count - *lo : q;
}
/* Reserves `bytes` of scratch (8-byte aligned) and returns its offset in TMP. */
uint64_t dfc_sched_tmp(dfc_sched_t *s, uint64_t bytes);
/* The own block. An allgather that first copies this rank's block from SEND into RECV (or TMP)
 * sends that block from SEND, not from the copy: the copy has just left it dirty in this
 * core's cache, and the peer reading it there (shm's single-copy read, or the transport's
 * copy-out racing the local copy) made a 2-rank allgather of 64 KiB - 1 MiB 1.8-2.5x Open
 * MPI's time on the 2-core VM; from SEND, 0.96-1.0x (issue 16, BENCHMARKS.md stop 41). Both
 * hold the same bytes, so the schedule means the same.
 *
 * The buffer holding this rank's input: SEND, or RECV when in_place. */
static inline int dfc_coll_input_buf(const dfc_coll_args_t *a)
{
    return a->in_place ? DFC_BUF_RECV : DFC_BUF_SEND;
}

/* The largest power of two <= n (n >= 1): the ranks that recursive doubling and its
 * relatives pair up, the others folding into them first. */
static inline int dfc_coll_pof2(int n)
{
    int pof2 = 1;
    while (pof2 * 2 <= n) pof2 *= 2;
    return pof2;
}
/* Items before chunk i when count items are cut into k chunks, the first count % k of them
 * one item larger (chunk_start(count, k, k) = count). */
static inline uint64_t dfc_coll_chunk_start(uint64_t count, int k, int i)
{
    uint64_t q = count / (uint64_t)k, r = count % (uint64_t)k;
    return (uint64_t)i * q + ((uint64_t)i < r ? (uint64_t)i : r);
}

/* ---- Algorithms ----------------------------------------------------------------------------
 * One algorithm per file (src/coll/<kind>_<algorithm>.c), each opening with a comment that
 * names the algorithm, its cost (alpha = latency per message, beta = time per byte,
 * gamma = time per byte reduced) and when it is chosen. */
typedef int (*dfc_coll_build_fn)(const dfc_coll_args_t *a, dfc_sched_t *s);
/* Returns 1 if the algorithm can run this call (e.g. power-of-two sizes, commutative op). */
typedef int (*dfc_coll_usable_fn)(const dfc_coll_args_t *a);

typedef struct dfc_coll_algo {
    dfc_coll_kind_t kind;
    const char *name; /* as given in DFC_<KIND>_ALGORITHM, e.g. "ring" */
    dfc_coll_build_fn build;
    dfc_coll_usable_fn usable; /* NULL: always usable */
} dfc_coll_algo_t;

/* Every algorithm, in one table (select.c). */
extern const dfc_coll_algo_t dfc_coll_algos[];
extern const int dfc_coll_nalgos;
/* Picks the algorithm for a call: DFC_<KIND>_ALGORITHM when set and usable, else by size
 * and rank count. Returns NULL only if nothing is usable (a bug). */
const dfc_coll_algo_t *dfc_coll_select(const dfc_coll_args_t *a);
/* The algorithm DFC_<KIND>_ALGORITHM forces, or NULL (auto). */
const char *dfc_coll_forced_algorithm(dfc_coll_kind_t kind);
const char *dfc_coll_kind_name(dfc_coll_kind_t kind); /* "allreduce" */

#define DFC_COLL_DECLARE(kind_, algo_) \
    int dfc_coll_##kind_##_##algo_##_build(const dfc_coll_args_t *a, dfc_sched_t *s)
DFC_COLL_DECLARE(barrier, dissemination);
DFC_COLL_DECLARE(bcast, binomial);
DFC_COLL_DECLARE(bcast, scatter_allgather);
DFC_COLL_DECLARE(bcast, hierarchical);
DFC_COLL_DECLARE(bcast, chain);
DFC_COLL_DECLARE(bcast, linear);
DFC_COLL_DECLARE(reduce, binomial);
DFC_COLL_DECLARE(reduce, hierarchical);
DFC_COLL_DECLARE(reduce, chain);
DFC_COLL_DECLARE(allreduce, recursive_doubling);
DFC_COLL_DECLARE(allreduce, rabenseifner);
DFC_COLL_DECLARE(allreduce, ring);
DFC_COLL_DECLARE(allreduce, hierarchical);
DFC_COLL_DECLARE(allreduce, shm_slots);
DFC_COLL_DECLARE(allreduce, shm_slots_rs_ag);
DFC_COLL_DECLARE(gather, linear); /* also gatherv */
DFC_COLL_DECLARE(gather, hierarchical);
DFC_COLL_DECLARE(scatter, linear); /* also scatterv */
DFC_COLL_DECLARE(scatter, hierarchical);
DFC_COLL_DECLARE(allgather, ring); /* also allgatherv */
DFC_COLL_DECLARE(allgather, recursive_doubling);
DFC_COLL_DECLARE(allgather, bruck);
DFC_COLL_DECLARE(allgather, linear);       /* also allgatherv */
DFC_COLL_DECLARE(allgather, hierarchical); /* also allgatherv */
DFC_COLL_DECLARE(alltoall, pairwise);      /* also alltoallv and alltoallw */
DFC_COLL_DECLARE(alltoall, hierarchical);
DFC_COLL_DECLARE(reduce_scatter, pairwise);     /* also reduce_scatter_block */
DFC_COLL_DECLARE(reduce_scatter, hierarchical); /* also reduce_scatter_block */
DFC_COLL_DECLARE(scan, linear);                 /* also exscan */
DFC_COLL_DECLARE(neighbor, linear);             /* every neighborhood collective */
/* Usability rules that belong to an algorithm (select.c consults them). */
int dfc_coll_allreduce_rabenseifner_usable(const dfc_coll_args_t *a); /* count >= pof2 */
int dfc_coll_allreduce_ring_usable(const dfc_coll_args_t *a);         /* commutative op */
int dfc_coll_allreduce_hierarchical_usable(const dfc_coll_args_t *a); /* N x L ranks, op commutes */
int dfc_coll_reduce_hierarchical_usable(const dfc_coll_args_t *a);    /* N x L ranks, op commutes */
int dfc_coll_reduce_chain_usable(const dfc_coll_args_t *a);           /* op commutes */
/* One chain of the pipelined chain reduce (reduce_chain.c), for the algorithm itself and for
 * the hierarchical reduce's phase across nodes on a ring: this rank is at position v of n
 * (0 holds the result), receives from `from` (v + 1) and sends to `to` (v - 1), accumulates
 * `count` items of `elem` bytes at (acc, acc_off), and receive-reduces into TMP at scratch,
 * count items large. */
typedef struct dfc_coll_chain {
    int v, n, from, to;
    int acc;
    uint64_t acc_off, scratch; /* bytes */
    uint64_t count, elem;
} dfc_coll_chain_t;
int dfc_coll_reduce_chain_steps(dfc_sched_t *s, const dfc_coll_chain_t *c);
/* The segments a chain cuts `bytes` into (bcast_chain.c; DFC_COLL_CHAIN_SEGMENT, at most 32). */
int dfc_coll_chain_segments(uint64_t bytes);
/* The layout of the hierarchical algorithms (hier_layout.c): N = nnodes >= 2 nodes of at
 * least L = nlocal >= 2 of the communicator's ranks each; node[r] and local[r] of every rank
 * r, and the rank of (node, local index) of the core (local index < L) in ranks[node * L +
 * local]. The others, nsurplus of them on unequal nodes, have local[r] >= L and a partner
 * in the core, partner[r] (-1 for core ranks); a rooted call's root may be either. The
 * layout function returns 0 (and holds nothing to free) when the ranks are not so placed or
 * memory ran out. */
typedef struct dfc_hier_layout {
    int size, nnodes, nlocal, nsurplus; /* size: the communicator's */
    int *node, *local, *ranks, *partner;
} dfc_hier_layout_t;
int dfc_coll_hier_layout(const dfc_coll_args_t *a, dfc_hier_layout_t *h);
void dfc_coll_hier_layout_free(dfc_hier_layout_t *h);
/* N of the layout, 0 when the ranks have none (every hierarchical algorithm takes unequal
 * nodes: some fold the surplus ranks in and out, others carry their blocks). */
int dfc_coll_hier_nodes(const dfc_coll_args_t *a);
/* The folds of the surplus ranks (bcast, reduce, allreduce; reduce_scatter's fold in), steps
 * inside each node.
 * Fold in: a surplus rank sends its input (dfc_coll_input_buf) to its partner in the core's
 * L chunks of the vector; a core rank receives each of its surplus ranks' chunks through
 * `scratch` (TMP, one chunk large) and reduces them into (acc, acc_off) (commutative ops).
 * Fold out: a core rank sends RECV's first `bytes` to each of its surplus ranks but
 * `has_them` (a bcast's root; -1: none), which receive them into RECV. A fence closes each. */
int dfc_coll_hier_fold_in(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h,
                          int acc, uint64_t acc_off, uint64_t scratch);
int dfc_coll_hier_fold_out(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h,
                           uint64_t bytes, int has_them);
/* The frame of every hierarchical generator: names the schedule "hierarchical"; when the call
 * moves bytes (`moves`), takes the layout, calls build with it and frees it. An internal
 * error names `kind` when the ranks have no layout (usable() said they had). */
typedef int (*dfc_hier_build_fn)(const dfc_coll_args_t *a, const dfc_hier_layout_t *h,
                                 dfc_sched_t *s);
int dfc_coll_hier_build(const dfc_coll_args_t *a, dfc_sched_t *s, const char *kind, int moves,
                        dfc_hier_build_fn build);
/* Sends (send != 0) or receives the blocks of b bytes of node n's ranks, surplus included, to
 * or from peer, one transfer per run of consecutive communicator ranks on the node (adjacent
 * blocks: one message for a node of consecutive ranks): placed by rank (block of rank p at
 * p * b in buf, by_rank) or packed in local order (block of local index k at base + k * b).
 * Both sides walk the same runs, so they match. */
int dfc_coll_hier_node_xfer(dfc_sched_t *s, const dfc_hier_layout_t *h, int n, int peer, int send,
                            int buf, uint64_t base, int by_rank, uint64_t b);
/* Gather and scatter (their files say how): the root's core rank, the root itself or a
 * surplus root's partner, whose local index the node leaders have; the bytes of node n's
 * blocks; and node_xfer over the nodes other than the root's, in ring order from it, with
 * each node's leader (peer < 0) or with peer, the blocks placed by rank (tmp < 0: SEND when
 * sending, RECV when receiving) or packed in TMP from tmp, one node after another. */
int dfc_coll_hier_root_core(const dfc_coll_args_t *a, const dfc_hier_layout_t *h);
uint64_t dfc_coll_hier_node_bytes(const dfc_hier_layout_t *h, int n, uint64_t b);
int dfc_coll_hier_other_nodes(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h,
                              int peer, int send, int64_t tmp, uint64_t b);
/* A surplus root's partner passing the other nodes' blocks on: receives them from `from`
 * into TMP, then sends them to `to` (each < 0: every node's leader), a fence after each. */
int dfc_coll_hier_relay(dfc_sched_t *s, const dfc_coll_args_t *a, const dfc_hier_layout_t *h,
                        int from, int to, uint64_t b);
/* x mod k in 0 .. k-1, also for negative x (ring and tree positions). */
static inline int dfc_coll_mod(int x, int k) { return ((x % k) + k) % k; }
/* Appends the steps of `sub`, a schedule built for a group of the communicator (its peer k
 * is rank group[k] here), to s: RECV offsets moved by recv_base, its TMP given a region of
 * s's own; SEND as it is. Only plain steps (no slot steps). */
int dfc_coll_hier_embed(dfc_sched_t *s, const dfc_sched_t *sub, const int *group,
                        uint64_t recv_base);
int dfc_coll_allreduce_shm_slots_usable(const dfc_coll_args_t *a); /* slots, <= 4 KiB */
/* The slot algorithms, as DFC_<KIND>_ALGORITHM forces them (dfc_coll_slots_forced, read once
 * per kind) and as the rules choose them (dfc_coll_allreduce_slots_choice). */
typedef enum {
    DFC_SLOTS_AWAY = -1, /* another algorithm (messages) */
    DFC_SLOTS_AUTO = 0,  /* nothing forced: the rules choose */
    DFC_SLOTS_ONE = 1,   /* shm_slots */
    DFC_SLOTS_RS_AG = 2  /* shm_slots_rs_ag */
} dfc_coll_slot_algo_t;
/* slots, <= 16 KiB: the wider of the two slot allreduces' limits, so also where select.c lets
 * dfc_coll_allreduce_slots_choice pick between them */
int dfc_coll_allreduce_shm_slots_rs_ag_usable(const dfc_coll_args_t *a);
#define DFC_COLL_RS_AG_MAX 16384 /* the largest allreduce shm_slots_rs_ag runs */
/* The allreduce the rules choose for `bytes` on `size` ranks where the slots serve the
 * communicator: DFC_SLOTS_ONE, DFC_SLOTS_RS_AG or DFC_SLOTS_AWAY (messages). */
dfc_coll_slot_algo_t dfc_coll_allreduce_slots_choice(int size, uint64_t bytes);
int dfc_coll_allgather_recursive_doubling_usable(const dfc_coll_args_t *a); /* 2^k ranks */
int dfc_coll_allgather_bruck_usable(const dfc_coll_args_t *a);              /* allgather only */
int dfc_coll_bcast_scatter_allgather_usable(const dfc_coll_args_t *a);      /* bytes >= ranks */
int dfc_coll_bcast_hierarchical_usable(const dfc_coll_args_t *a);           /* N x L ranks */
/* N x L ranks, the block forms only (gather, scatter, alltoall) */
int dfc_coll_gather_hierarchical_usable(const dfc_coll_args_t *a);
int dfc_coll_scatter_hierarchical_usable(const dfc_coll_args_t *a);
int dfc_coll_alltoall_hierarchical_usable(const dfc_coll_args_t *a);
int dfc_coll_allgather_hierarchical_usable(const dfc_coll_args_t *a); /* N x L ranks */
/* N x L ranks, op commutes */
int dfc_coll_reduce_scatter_hierarchical_usable(const dfc_coll_args_t *a);
/* bcast and barrier through the slots (issue 16). bcast and allgather run a long message as
 * a pipeline of 4 KiB exchanges, forced up to DFC_COLL_SLOTS_PIPE_MAX (a schedule step and
 * a request each), by the rules up to their limits (DFC_BCAST_SLOTS_MAX on `size` ranks;
 * DFC_ALLGATHER_SLOTS_MAX, the gathered result). */
#define DFC_COLL_SLOTS_PIPE_MAX ((uint64_t)16 << 20)
int dfc_coll_bcast_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s);
int dfc_coll_bcast_shm_slots_usable(const dfc_coll_args_t *a); /* slots, <= the PIPE_MAX */
uint64_t dfc_coll_bcast_slots_limit(int size);
uint64_t dfc_coll_allgather_slots_limit(int size);
/* The largest bcast (DFC_COLL_BCAST), allgather result (DFC_COLL_ALLGATHER) or alltoall send
 * buffer (DFC_COLL_ALLTOALL) that dfc_coll_select runs through the slots on `size` ranks: the
 * rules' limit, or DFC_COLL_SLOTS_PIPE_MAX where DFC_<KIND>_ALGORITHM forces shm_slots; 0
 * where it forces another algorithm. The blocking calls' fast paths ask it on every call, and
 * the answer never changes once the parameters are read: kept per kind and size (up to
 * DFC_COLL_DIRECT_SIZES - 1 ranks), a load instead of four calls (issue 16). */
#define DFC_COLL_DIRECT_SIZES 65
/* The answers + 1 (0: not asked yet). */
extern uint64_t dfc_coll_direct_known[DFC_COLL_KIND_COUNT][DFC_COLL_DIRECT_SIZES];
uint64_t dfc_coll_slots_direct_limit_read(dfc_coll_kind_t kind, int size);
static inline uint64_t dfc_coll_slots_direct_limit(dfc_coll_kind_t kind, int size)
{
    uint64_t v = size < DFC_COLL_DIRECT_SIZES
                     ? __atomic_load_n(&dfc_coll_direct_known[kind][size], __ATOMIC_RELAXED)
                     : 0;
    return DFC_LIKELY(v) ? v - 1 : dfc_coll_slots_direct_limit_read(kind, size);
}
/* A blocking bcast of `bytes` at buf (a dense buffer; arguments checked) that would select
 * shm_slots, run without an instance (bcast_shm_slots.c): the api layer's fast path and
 * run.c call it; DFC_COLL_NOT_DIRECT where it does not apply (run the call as usual). The
 * hang report's lines for those waiting. */
#define DFC_COLL_NOT_DIRECT (-1)
int dfc_coll_bcast_direct(dfc_comm_t *c, void *buf, uint64_t bytes, int root);
/* The same for a blocking allreduce (arguments checked, host buffers, a built-in op, dense
 * dt: count items of dt->size bytes; in_place: sendbuf was DFC_IN_PLACE) and barrier that
 * would select shm_slots (allreduce_shm_slots.c, barrier_shm_slots.c). Scalars, not a
 * dfc_coll_args_t: the api layer's fast paths would zero one per call (30 instructions). */
int dfc_coll_allreduce_direct(dfc_comm_t *c, int in_place, uint64_t count, const void *sendbuf,
                              void *recvbuf, const dfc_dtype_t *dt, const dfc_op_t *op);
int dfc_coll_barrier_direct(dfc_comm_t *c);
/* The api layer's fast path of a blocking allreduce (arguments checked: count > 0, dense
 * committed type, a built-in op defined on it, distinct buffers or sendbuf DFC_IN_PLACE):
 * dfc_coll_allreduce_direct when both buffers are host memory. */
int dfc_coll_allreduce_host_direct(dfc_comm_t *c, const void *sendbuf, void *recvbuf,
                                   uint64_t count, const dfc_dtype_t *dt, const dfc_op_t *op);
/* And for a blocking alltoall of dense host buffers (alltoall_shm_slots.c): sbytes and
 * rbytes per block (the send and receive counts in bytes). */
int dfc_coll_alltoall_direct(dfc_comm_t *c, int in_place, uint64_t sbytes, uint64_t rbytes,
                             const void *sendbuf, void *recvbuf);
/* And for a blocking allgather of dense host buffers (allgather_shm_slots.c). */
int dfc_coll_allgather_direct(dfc_comm_t *c, int in_place, uint64_t sbytes, uint64_t rbytes,
                              const void *sendbuf, void *recvbuf);
/* The api layer's fast path of a blocking allgather or alltoall (`kind`; arguments checked:
 * counts > 0, dense committed types, distinct buffers, neither DFC_IN_PLACE): the two above
 * when both buffers are host memory. */
int dfc_coll_move_host_direct(dfc_comm_t *c, dfc_coll_kind_t kind, const void *sendbuf,
                              uint64_t sbytes, void *recvbuf, uint64_t rbytes);
/* Runs slot exchange x (src, bytes, reduce, ctx, rooted, root set; named `kind` in the hang
 * report) to completion for a blocking call, without an instance (bcast_shm_slots.c). */
int dfc_coll_slot_direct(dfc_comm_t *c, dfc_tl_slot_xchg_t *x, const char *kind);
/* The same for a further exchange of the same call (numbered once, by the first). */
int dfc_coll_slot_direct_more(dfc_comm_t *c, dfc_tl_slot_xchg_t *x, const char *kind);
void dfc_coll_slot_direct_report(FILE *f);
dfc_coll_slot_algo_t dfc_coll_slots_forced(dfc_coll_kind_t kind);
/* 1 unless DFC_<KIND>_ALGORITHM forces an algorithm other than shm_slots. */
int dfc_coll_slots_not_forced_away(dfc_coll_kind_t kind);
/* The slot allreduce's reduction (exec.c): recursive doubling's bracketing of in[0..n) into
 * out; tmp holds dfc_coll_pof2(n) * bytes (unused for n <= 2). */
void dfc_coll_slot_reduce(const dfc_op_t *op, const dfc_dtype_t *dt, const void *const *in, int n,
                          void *out, uint64_t count, uint64_t bytes, char *tmp);
/* The slot alltoall's and allgather's copies out of the members' contributions in[], for
 * the executor and their blocking calls: block `me` of every other member's, in rank order,
 * and the own block from `own`, the caller's send buffer (its block was not copied into the
 * slot: dfc_tl_slot_xchg_t.skip_off; nothing to copy in place); every member's `bytes` (a
 * piece of its block) to out + r stride, in rank order. */
void dfc_coll_alltoall_slot_copy(const void *const *in, int n, int me, char *out, uint64_t block,
                                 const char *own);
void dfc_coll_allgather_slot_copy(const void *const *in, int n, char *out, uint64_t stride,
                                  uint64_t bytes);
/* allreduce_shm_slots_rs_ag.c's two copies, for the executor and its blocking call: chunk
 * `me` of the n members' vectors in[] (count items) reduced into that chunk of out (tmp:
 * dfc_coll_pof2(n) chunks); every other member's chunk in[r] copied into its place in out. */
void dfc_coll_slot_reduce_chunk(const dfc_op_t *op, const dfc_dtype_t *dt, const void *const *in,
                                int n, int me, char *out, uint64_t count, char *tmp);
void dfc_coll_slot_gather_chunks(const void *const *in, int n, int me, char *out, uint64_t count,
                                 uint64_t elem);
/* The stack scratch of a blocking slot allreduce's reduction (its bracketing tree's leaves). */
#define DFC_COLL_SLOT_DIRECT_TMP 8192
/* A blocking allreduce of `count` items through its two exchanges (src: the input). */
int dfc_coll_allreduce_rs_ag_direct(dfc_comm_t *c, const void *src, void *recvbuf, uint64_t count,
                                    const dfc_dtype_t *dt, const dfc_op_t *op);
int dfc_coll_barrier_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s);
int dfc_coll_barrier_shm_slots_usable(const dfc_coll_args_t *a);
int dfc_coll_alltoall_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s);
int dfc_coll_alltoall_shm_slots_usable(const dfc_coll_args_t *a);
int dfc_coll_allgather_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s);
int dfc_coll_allgather_shm_slots_usable(const dfc_coll_args_t *a);

/* ---- Running collectives (exec.c, scheduler.c) --------------------------------------------- */
typedef struct dfc_coll dfc_coll_t;
struct dfc_coll {
    dfc_req_t *req; /* the request that completes with it */
    dfc_comm_t *comm;
    const char *kind; /* "allreduce" (dfc_coll_kind_name), for the hang report */
    dfc_sched_t sched;
    void *bufs[DFC_BUF_COUNT]; /* SEND, RECV, TMP bound to addresses */
    const dfc_dtype_t *dtype;  /* reductions */
    const dfc_op_t *op;
    int priority;
    int tag; /* matching tag of this instance (from the sequence numbers) */
    int persistent;
    uint32_t pinit_seq; /* persistent: sequence number of the _init call */
    uint32_t starts;    /* persistent: how many times started */
    /* dynamic context, saved across preemptions */
    int pc;              /* next step */
    int fence_start;     /* first step after the last fence */
    dfc_req_t *xfer;     /* one request per step (transfers use theirs) */
    uint64_t slot_stamp; /* SLOT_ALLREDUCE: the stamp of the step under way, whether its */
    int slot_written;    /* contribution is written, and how many of the stamps begun at */
    int slot_left;       /* the start are not yet done (dynamic context) */
    int in_user_op;      /* a thread runs a user op, or a long reduction or copy, without
                          * the library lock (exec.c): no other thread may advance this
                          * instance until it is back */
    int blocking;        /* started by a blocking call, whose caller runs it (scheduler.c) */
    /* scheduling */
    dfc_list_t link;  /* run queue */
    long budget;      /* spin budget when at the head (adaptive) */
    int preempted_at; /* pc of the last preemption (-1: none yet in this run) */
    uint64_t preemptions;
    /* in the GPU daemon (gpu.c): set by dfc_coll_gpu_prepare */
    int on_gpu;
    int gpu_submitted;
    dfc_gpu_handle_t gpu;
    int gpu_type, gpu_op, gpu_elem, gpu_item;
    dfc_coll_args_t key; /* nonblocking: its arguments, for the cache when its request ends */
};

/* ---- The pipeline of every collective call (run.c) ------------------------------------- */
typedef enum { DFC_MODE_BLOCKING, DFC_MODE_NONBLOCKING, DFC_MODE_PERSISTENT } dfc_coll_mode_t;

/* The per-call context of an entry point. */
typedef struct dfc_coll_call {
    const char *func; /* the entry point, for messages */
    dfc_coll_mode_t mode;
    DFC_Info info;        /* persistent: hints (dfc_priority) */
    DFC_Request *request; /* nonblocking and persistent: where the handle goes */
} dfc_coll_call_t;

/* Runs the collective described by `a` (kind, root and sizes filled in by the caller, whose
 * arguments are already checked): routes it (host engine, GPU daemon, or host shadows of
 * device buffers), selects the algorithm and builds its schedule (or takes a cached
 * instance), then by mode runs it to completion, starts it and returns its request, or
 * returns an inactive persistent request. Fills a's rank, size, gpu and slots. */
int dfc_coll_run(const dfc_coll_call_t *call, dfc_comm_t *c, dfc_coll_args_t *a,
                 const void *sendbuf, void *recvbuf, const dfc_dtype_t *dt, const dfc_op_t *op);

/* ---- Intercommunicator collectives: three-phase blocking forms (inter_*.c) --------------
 * One side of a transfer: count items of dt at buf, with a remote peer. */
typedef struct dfc_coll_side {
    const void *buf;
    uint64_t count;
    const dfc_dtype_t *dt;
    int peer;
} dfc_coll_side_t;
/* Receives r (if any) and sends s (if any) across intercommunicator c on its collective
 * context, staged and packed as point-to-point is; waits for both. */
int dfc_coll_inter_xfer(dfc_comm_t *c, int tag, const dfc_coll_side_t *s, const dfc_coll_side_t *r);
/* A blocking collective within the local group (c->local), named func in messages. */
int dfc_coll_inter_local(const char *func, dfc_comm_t *c, dfc_coll_args_t *a, const void *sendbuf,
                         void *recvbuf, const dfc_dtype_t *dt, const dfc_op_t *op);
int dfc_coll_inter_barrier(const char *func, dfc_comm_t *c);
/* Comm_disconnect (disconnect.c): waits for c's pending operations, a barrier over c (both
 * groups of an intercommunicator), then dfc_comm_free. */
int dfc_coll_comm_disconnect(const char *func, dfc_comm_t *c);
/* root: DFC_ROOT, DFC_PROC_NULL, or the root's rank in the remote group. */
int dfc_coll_inter_bcast(const char *func, dfc_comm_t *c, void *buf, uint64_t count,
                         const dfc_dtype_t *dt, int root);
int dfc_coll_inter_allreduce(const char *func, dfc_comm_t *c, const void *sendbuf, void *recvbuf,
                             uint64_t count, const dfc_dtype_t *dt, const dfc_op_t *op);
/* s: this process's block; r: what it receives from each remote process (buf: recvbuf). */
int dfc_coll_inter_allgather(const char *func, dfc_comm_t *c, const dfc_coll_side_t *s,
                             const dfc_coll_side_t *r);

/* ---- Intercommunicator collectives as one set of direct transfers -----------------------
 * (inter_direct.c builds the plan, inter_engine.c posts it.) The arguments of one call:
 * block forms use the counts, v forms the arrays (items of their type; alltoallw: byte
 * displacements and a type per peer); a reduction reduces scount items of stype with op;
 * bcast moves (rbuf, rcount, rtype) both ways. Arrays have the size of the group they
 * describe: the remote group's for the blocks that move across, the local group's for
 * Reduce_scatter's recvcounts. */
typedef struct dfc_coll_inter_args {
    dfc_coll_kind_t kind;
    int root; /* rooted: DFC_ROOT, DFC_PROC_NULL or the root's rank in the remote group */
    const void *sbuf;
    void *rbuf;
    uint64_t scount, rcount;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    const dfc_dtype_t *stype, *rtype;
    const dfc_dtype_t *const *stypes, *const *rtypes; /* alltoallw */
    const dfc_op_t *op;
} dfc_coll_inter_args_t;
/* Runs it by call->mode: blocking (waits), nonblocking (the request goes to call->request),
 * persistent (an inactive request goes to call->request; DFC_Start posts the plan again). */
int dfc_coll_inter_direct(const dfc_coll_call_t *call, dfc_comm_t *c,
                          const dfc_coll_inter_args_t *a);
/* This process's transfers: sends and recvs (peers are remote ranks), and for reductions
 * nred contributions of count items of dt (one from each remote rank 0..nred-1), of which
 * items [off, off + mine) are reduced with op into rbuf (mine items of dt). */
typedef struct dfc_coll_inter_plan {
    int nsend, nrecv, nred;
    dfc_coll_side_t *sends, *recvs;
    uint64_t count, off, mine;
    const dfc_dtype_t *dt;
    const dfc_op_t *op;
    void *rbuf;
} dfc_coll_inter_plan_t;
/* Posts every transfer of p with tag on c's collective context; *out completes when all
 * have (the request gets a user handle in *handle unless handle is NULL). */
int dfc_coll_inter_post(const char *func, dfc_comm_t *c, int tag, const dfc_coll_inter_plan_t *p,
                        DFC_Request *handle, dfc_req_t **out);
/* The same plan kept in an inactive persistent request (handle), which every start posts
 * with a tag of its own. */
int dfc_coll_inter_persist(const char *func, dfc_comm_t *c, const dfc_coll_inter_plan_t *p,
                           DFC_Request *handle);
void dfc_coll_inter_reap(void); /* frees what completed inside a callback (finalize) */

int dfc_coll_layer_init(void);
void dfc_coll_layer_finalize(void);
/* Creates an instance for comm with a built schedule and bound buffers; takes ownership of
 * the schedule. The TMP buffer is allocated here. */
int dfc_coll_new(dfc_comm_t *comm, dfc_sched_t *sched, const void *sendbuf, void *recvbuf,
                 const dfc_dtype_t *dt, const dfc_op_t *op, int persistent, int priority,
                 dfc_coll_t **out);
/* Assigns the next tag, resets the dynamic context and queues the instance; runs its first
 * steps unless the progress thread takes them (scheduler.c, hand_to_thread). */
int dfc_coll_start(dfc_coll_t *coll);
/* Runs steps until the collective completes (1), or must wait for a peer (0), or fails
 * (error code < 0 is never returned: failures complete the request with an error). */
int dfc_coll_exec(dfc_coll_t *coll);
/* At each start of an instance whose schedule has a slot step (sched.uses_slots), in
 * initiation order: takes the instance's place among the slots' exchanges. */
int dfc_coll_slot_begin(dfc_coll_t *coll);
void dfc_coll_free(dfc_coll_t *coll);
/* The per-communicator cache of idle blocking instances (cache.c). cacheable: the
 * call's arguments are all scalars (no count arrays), so they key an instance. take: the
 * idle instance if it was built for the same arguments, datatype, op and priority (its
 * request active again, buffers still to be bound), else NULL. put: keeps a completed
 * instance instead of freeing it; 0 if it was not kept. */
int dfc_coll_cacheable(const dfc_coll_args_t *a);
dfc_coll_t *dfc_coll_cache_take(dfc_comm_t *comm, const dfc_coll_args_t *a, const dfc_dtype_t *dt,
                                const dfc_op_t *op, int priority);
int dfc_coll_cache_put(dfc_coll_t *c, const dfc_coll_args_t *a, int priority);
/* Frees comm's cache (the communicator's destroy hook). */
void dfc_coll_cache_destroy(dfc_comm_t *comm);
/* The GPU daemon path (gpu.c). eligible: whether the daemon can run the call a on comm with
 * this datatype and op (a reduction the kernel computes, and daemons that take part and
 * connect each other): DFC_COLL_GPU_DAEMON when every member's daemon connects every other,
 * DFC_COLL_GPU_RAILS when they connect by rails (a job larger than the daemon's peer tables,
 * daemon_plan.h) and the call's hierarchical algorithm talks only along them,
 * DFC_COLL_GPU_RING the same on a ring of rails (its generators then cross nodes only between
 * neighbours: the hierarchical bcast by a chain), else 0; the
 * same answer on every rank. prepare: readies an instance for the daemon (sets on_gpu, after
 * which dfc_coll_start submits it instead of queueing it on the host). */
enum dfc_coll_gpu { DFC_COLL_GPU_DAEMON = 1, DFC_COLL_GPU_RAILS = 2, DFC_COLL_GPU_RING = 3 };
int dfc_coll_gpu_eligible(const dfc_comm_t *comm, const dfc_coll_args_t *a, const dfc_dtype_t *dt,
                          const dfc_op_t *op);
/* The rails part of eligible, given the job's table (dfc_gpu_daemon_rails: each world rank's
 * rail, -1 where its daemon does not take part), its ring (dfc_gpu_daemon_ring: N, or 0 when
 * whole rails connect) and a's world and world_node; for tests. */
int dfc_coll_gpu_rails_route(const dfc_coll_args_t *a, const int *rail, int ring);
int dfc_coll_gpu_prepare(dfc_coll_t *c);
int dfc_coll_gpu_start(dfc_coll_t *c);
int dfc_coll_gpu_pass(void);       /* submissions, completions, kernel relaunch */
void dfc_coll_gpu_report(FILE *f); /* hang-report lines for collectives in the daemon */
/* This rank's GPU daemon device (-1: none) and its kernel launches so far. */
void dfc_coll_gpu_info(int *device, uint64_t *launches);
/* Total preemptions in this process, for benchmarks and tests. */
uint64_t dfc_coll_preemptions(void);
/* Prints one hang-report line per collective in the run queue (registered with
 * dfc_progress_set_coll_report_hook by dfc_coll_layer_init). */
void dfc_coll_report(FILE *f);

/* Dist_graph_create (topo_dist_graph.c): a new communicator over all of c, ranks kept, with
 * the distributed graph the processes' edge lists describe together; collective over c,
 * arguments already checked; errors name func and leave nothing allocated. */
int dfc_coll_dist_graph_create(const char *func, dfc_comm_t *c, int n, const int *sources,
                               const int *degrees, const int *destinations, const int *weights,
                               dfc_comm_t **out);

#endif /* DFC_COLL_H */
