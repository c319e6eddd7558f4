/*
 * select.c - the table of algorithms and the choice among them.
 *
 * DFC_<KIND>_ALGORITHM (e.g. DFC_ALLREDUCE_ALGORITHM=ring) forces an algorithm when it is
 * usable for the call; otherwise the rules below pick by message size and rank count,
 * after MPICH's defaults. The size thresholds are parameters (dfc_env(7)), read once; like
 * the forced algorithm, they must be the same on every process.
 *
 * Ring's rank limit (issue 22): ring allreduce and allgather have 2(p-1) and p-1 latency
 * steps where rabenseifner and recursive doubling / bruck have about 2 log2(p) and log2(p),
 * for the same bandwidth term (the cost models in the algorithm files); each of ring's
 * waits is also a chance for the host scheduler to preempt (BENCHMARKS.md: 50 preemptions
 * per collective at 1,024 simulated ranks). Ring's gains: it overlaps its reductions with
 * its transfers (rabenseifner's m gamma is serial), and when p is not a power of two
 * rabenseifner adds 2 (alpha + m beta) + m gamma for its fold. With alpha 3 us per
 * ring step, gamma 0.25 ns/B, m gamma pays for ring's extra steps up to about 30 ranks at
 * 512 KiB and 180 at 4 MiB; dfc_sim (default network, dfc_chaos's sizes) puts the
 * crossover between 64 and 128 ranks for powers of two and, with the fold, between 384 and
 * 640 otherwise. So ring runs on at most DFC_ALLREDUCE_RING_MAX_RANKS (64) ranks, or 8
 * times as many when p is not a power of two; allgather (no reduction, and bruck has no
 * fold) on at most DFC_ALLGATHER_RING_MAX_RANKS (64). Up to 64 ranks the choice is the size
 * rule's alone, as before the limit.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "coll/dfc_coll.h"

static int is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

/* 1 when the communicator's ranks are on more than one node of the job's node map. */
static int spans_nodes(const dfc_coll_args_t *a)
{
    if (!a->world || !a->world_node) return 0;
    for (int r = 1; r < a->size; r++)
        if (a->world_node[a->world[r]] != a->world_node[a->world[0]]) return 1;
    return 0;
}

/* N of the call's hierarchical layout when the default rules may take it for a call of
 * `bytes`, else 0. On nodes of unequal counts (surplus ranks folded in and out,
 * hier_layout.c) only on the host, from `folded_min` bytes: in the GPU daemon (a->gpu) the
 * folds have not run on a GPU yet (over rails they are taken all the same, nothing else
 * fitting there: dfc_coll_select's first rule), and on simulated nodes (BENCHMARKS.md, stop 35: 4-5 rounds, tcp
 * between nodes) the hierarchical bcast took 0.44-0.82x scatter_allgather's time from 1 MiB
 * on nodes of 3, 3 and 2 ranks but 1.1-1.7x at 64-256 KiB, the allgather 0.69-0.90x ring's
 * from 512 KiB gathered but 0.98-1.05x at 128-256 KiB, where the allreduce above
 * DFC_ALLREDUCE_RABENSEIFNER_MAX took 0.51-0.88x ring's. */
static int hier_default(const dfc_coll_args_t *a, uint64_t bytes, uint64_t folded_min)
{
    dfc_hier_layout_t h; /* bcast, allreduce, allgather(v): their algorithms fold */
    if (!dfc_coll_hier_layout(a, &h)) return 0;
    dfc_coll_hier_layout_free(&h);
    if (h.nsurplus && (a->gpu || bytes < folded_min)) return 0;
    return h.nnodes;
}

/* The size thresholds of the rules in dfc_coll_select, in bytes (defaults from MPICH's). */
static struct {
    int read;
    uint64_t bcast_sag_min;        /* bcast: scatter_allgather from this size (4+ ranks) */
    uint64_t gpu_rails_reduce_min; /* reduce over rails in the GPU daemon from this size */
    uint64_t allreduce_rd_max;     /* allreduce: recursive doubling up to this size, */
    uint64_t allreduce_rd_net_max; /* (this one when the communicator spans nodes) */
    uint64_t allreduce_rab_max;    /* then rabenseifner up to this one, then ring */
    uint64_t allgather_short_max;  /* allgather: recursive doubling or bruck up to this
                                     gathered size, then ring */
    /* ring allreduce, allgather on at most this many ranks; above it the log-step ones */
    long allreduce_ring_max_ranks, allgather_ring_max_ranks;
    uint64_t allgather_linear_min; /* allgather on one node: linear from this block size */
} thr;

/* DFC_Init has checked each against its range (0 to 1 GiB, env_registry.c): none is negative. */
static void read_thresholds(void)
{
    thr.bcast_sag_min = (uint64_t)dfc_env_long(
        "DFC_BCAST_SCATTER_ALLGATHER_MIN", 65536,
        "bytes from which bcast on 4 or more processes uses scatter_allgather (below: binomial)");
    thr.gpu_rails_reduce_min = (uint64_t)dfc_env_long(
        "DFC_GPU_RAILS_REDUCE_MIN", 128 << 10,
        "bytes from which a device reduce over rails or a ring of rails runs in the GPU daemon "
        "(below: staged)");
    thr.allreduce_rd_max = (uint64_t)dfc_env_long(
        "DFC_ALLREDUCE_RECURSIVE_DOUBLING_MAX", 16384,
        "largest allreduce in bytes that uses recursive_doubling on 3 or 4 processes of one "
        "node (x 4/n on n > 4, at least a quarter; a blocking call on 2 processes: up to "
        "DFC_ALLREDUCE_RABENSEIFNER_MAX)");
    /* 32 KiB across nodes: one exchange of 32 KiB beat rabenseifner's two of 16 KiB (and
     * its log2(p) more steps) at 2, 4 and 8 ranks over tcp, 0.66-0.80 of the time, where at
     * 64 KiB it lost at 4 and 8 (1.15-1.24x); BENCHMARKS.md, stop 29. On one node (shm,
     * cheap steps) the 16 KiB of before stands. */
    thr.allreduce_rd_net_max = (uint64_t)dfc_env_long(
        "DFC_ALLREDUCE_RECURSIVE_DOUBLING_NET_MAX", 32768,
        "largest allreduce in bytes that uses recursive_doubling on a communicator whose ranks "
        "span more than one node (on one node: DFC_ALLREDUCE_RECURSIVE_DOUBLING_MAX)");
    thr.allreduce_rab_max = (uint64_t)
        dfc_env_long("DFC_ALLREDUCE_RABENSEIFNER_MAX", 512 << 10,
                     "largest allreduce in bytes that uses rabenseifner (above: ring)");
    thr.allgather_short_max = (uint64_t)dfc_env_long(
        "DFC_ALLGATHER_SHORT_MAX", 65536,
        "largest gathered size in bytes for which allgather uses recursive_doubling or bruck "
        "(above: ring)");
    thr.allreduce_ring_max_ranks = dfc_env_long(
        "DFC_ALLREDUCE_RING_MAX_RANKS", 64,
        "largest communicator on which a large allreduce uses ring, 8 times as many when its "
        "size is not a power of two (above: rabenseifner)");
    thr.allgather_ring_max_ranks = dfc_env_long(
        "DFC_ALLGATHER_RING_MAX_RANKS", 64,
        "largest communicator on which a large allgather uses ring (above: recursive_doubling "
        "or bruck)");
    thr.allgather_linear_min = (uint64_t)dfc_env_long(
        "DFC_ALLGATHER_LINEAR_MIN", 4096,
        "smallest block in bytes from which an allgather on one node of at most 16 processes "
        "uses linear (0: never)");
    thr.read = 1;
}


const dfc_coll_algo_t dfc_coll_algos[] = {
    {DFC_COLL_BARRIER, "dissemination", dfc_coll_barrier_dissemination_build, NULL},
    {DFC_COLL_BCAST, "binomial", dfc_coll_bcast_binomial_build, NULL},
    {DFC_COLL_BCAST, "scatter_allgather", dfc_coll_bcast_scatter_allgather_build,
     dfc_coll_bcast_scatter_allgather_usable},
    {DFC_COLL_BCAST, "hierarchical", dfc_coll_bcast_hierarchical_build,
     dfc_coll_bcast_hierarchical_usable},
    {DFC_COLL_BCAST, "chain", dfc_coll_bcast_chain_build, NULL},
    {DFC_COLL_BCAST, "linear", dfc_coll_bcast_linear_build, NULL},
    {DFC_COLL_REDUCE, "binomial", dfc_coll_reduce_binomial_build, NULL},
    {DFC_COLL_REDUCE, "hierarchical", dfc_coll_reduce_hierarchical_build,
     dfc_coll_reduce_hierarchical_usable},
    {DFC_COLL_REDUCE, "chain", dfc_coll_reduce_chain_build, dfc_coll_reduce_chain_usable},
    {DFC_COLL_ALLREDUCE, "recursive_doubling", dfc_coll_allreduce_recursive_doubling_build, NULL},
    {DFC_COLL_ALLREDUCE, "rabenseifner", dfc_coll_allreduce_rabenseifner_build,
     dfc_coll_allreduce_rabenseifner_usable},
    {DFC_COLL_ALLREDUCE, "ring", dfc_coll_allreduce_ring_build, dfc_coll_allreduce_ring_usable},
    {DFC_COLL_ALLREDUCE, "hierarchical", dfc_coll_allreduce_hierarchical_build,
     dfc_coll_allreduce_hierarchical_usable},
    {DFC_COLL_ALLREDUCE, "shm_slots", dfc_coll_allreduce_shm_slots_build,
     dfc_coll_allreduce_shm_slots_usable},
    {DFC_COLL_ALLREDUCE, "shm_slots_rs_ag", dfc_coll_allreduce_shm_slots_rs_ag_build,
     dfc_coll_allreduce_shm_slots_rs_ag_usable},
    {DFC_COLL_GATHER, "linear", dfc_coll_gather_linear_build, NULL},
    {DFC_COLL_GATHERV, "linear", dfc_coll_gather_linear_build, NULL},
    {DFC_COLL_SCATTER, "linear", dfc_coll_scatter_linear_build, NULL},
    {DFC_COLL_SCATTERV, "linear", dfc_coll_scatter_linear_build, NULL},
    {DFC_COLL_GATHER, "hierarchical", dfc_coll_gather_hierarchical_build,
     dfc_coll_gather_hierarchical_usable},
    {DFC_COLL_SCATTER, "hierarchical", dfc_coll_scatter_hierarchical_build,
     dfc_coll_scatter_hierarchical_usable},
    {DFC_COLL_ALLGATHER, "shm_slots", dfc_coll_allgather_shm_slots_build,
     dfc_coll_allgather_shm_slots_usable},
    {DFC_COLL_ALLGATHER, "ring", dfc_coll_allgather_ring_build, NULL},
    {DFC_COLL_ALLGATHER, "recursive_doubling", dfc_coll_allgather_recursive_doubling_build,
     dfc_coll_allgather_recursive_doubling_usable},
    {DFC_COLL_ALLGATHER, "bruck", dfc_coll_allgather_bruck_build, dfc_coll_allgather_bruck_usable},
    {DFC_COLL_ALLGATHER, "linear", dfc_coll_allgather_linear_build, NULL},
    {DFC_COLL_ALLGATHERV, "ring", dfc_coll_allgather_ring_build, NULL},
    {DFC_COLL_ALLGATHERV, "linear", dfc_coll_allgather_linear_build, NULL},
    {DFC_COLL_ALLGATHER, "hierarchical", dfc_coll_allgather_hierarchical_build,
     dfc_coll_allgather_hierarchical_usable},
    {DFC_COLL_ALLGATHERV, "hierarchical", dfc_coll_allgather_hierarchical_build,
     dfc_coll_allgather_hierarchical_usable},
    {DFC_COLL_ALLTOALL, "pairwise", dfc_coll_alltoall_pairwise_build, NULL},
    {DFC_COLL_ALLTOALLV, "pairwise", dfc_coll_alltoall_pairwise_build, NULL},
    {DFC_COLL_ALLTOALL, "hierarchical", dfc_coll_alltoall_hierarchical_build,
     dfc_coll_alltoall_hierarchical_usable},
    {DFC_COLL_REDUCE_SCATTER_BLOCK, "pairwise", dfc_coll_reduce_scatter_pairwise_build, NULL},
    {DFC_COLL_REDUCE_SCATTER, "pairwise", dfc_coll_reduce_scatter_pairwise_build, NULL},
    {DFC_COLL_REDUCE_SCATTER_BLOCK, "hierarchical", dfc_coll_reduce_scatter_hierarchical_build,
     dfc_coll_reduce_scatter_hierarchical_usable},
    {DFC_COLL_REDUCE_SCATTER, "hierarchical", dfc_coll_reduce_scatter_hierarchical_build,
     dfc_coll_reduce_scatter_hierarchical_usable},
    {DFC_COLL_SCAN, "linear", dfc_coll_scan_linear_build, NULL},
    {DFC_COLL_EXSCAN, "linear", dfc_coll_scan_linear_build, NULL},
    {DFC_COLL_NEIGHBOR_ALLGATHER, "linear", dfc_coll_neighbor_linear_build, NULL},
    {DFC_COLL_NEIGHBOR_ALLGATHERV, "linear", dfc_coll_neighbor_linear_build, NULL},
    {DFC_COLL_NEIGHBOR_ALLTOALL, "linear", dfc_coll_neighbor_linear_build, NULL},
    {DFC_COLL_NEIGHBOR_ALLTOALLV, "linear", dfc_coll_neighbor_linear_build, NULL},
    {DFC_COLL_NEIGHBOR_ALLTOALLW, "linear", dfc_coll_neighbor_linear_build, NULL},
    /* the shm slots for bcast and barrier (issue 16) */
    {DFC_COLL_BCAST, "shm_slots", dfc_coll_bcast_shm_slots_build, dfc_coll_bcast_shm_slots_usable},
    {DFC_COLL_BARRIER, "shm_slots", dfc_coll_barrier_shm_slots_build,
     dfc_coll_barrier_shm_slots_usable},
    {DFC_COLL_ALLTOALL, "shm_slots", dfc_coll_alltoall_shm_slots_build,
     dfc_coll_alltoall_shm_slots_usable},
    {DFC_COLL_ALLTOALLW, "pairwise", dfc_coll_alltoall_pairwise_build, NULL},
};
const int dfc_coll_nalgos = sizeof dfc_coll_algos / sizeof dfc_coll_algos[0];

static const char *const kind_names[DFC_COLL_KIND_COUNT] = {"barrier",
                                                            "bcast",
                                                            "reduce",
                                                            "allreduce",
                                                            "gather",
                                                            "gatherv",
                                                            "scatter",
                                                            "scatterv",
                                                            "allgather",
                                                            "allgatherv",
                                                            "alltoall",
                                                            "alltoallv",
                                                            "reduce_scatter_block",
                                                            "reduce_scatter",
                                                            "scan",
                                                            "exscan",
                                                            "neighbor_allgather",
                                                            "neighbor_allgatherv",
                                                            "neighbor_alltoall",
                                                            "neighbor_alltoallv",
                                                            "neighbor_alltoallw",
                                                            "alltoallw"};

const char *dfc_coll_kind_name(dfc_coll_kind_t kind) { return kind_names[kind]; }

static const dfc_coll_algo_t *find(dfc_coll_kind_t kind, const char *name, const dfc_coll_args_t *a)
{
    for (int i = 0; i < dfc_coll_nalgos; i++) {
        const dfc_coll_algo_t *al = &dfc_coll_algos[i];
        if (al->kind == kind && !strcmp(al->name, name) && (!al->usable || al->usable(a)))
            return al;
    }
    return NULL;
}

/* The forced algorithm from the environment, read once per kind. */
static const char *forced_name(dfc_coll_kind_t kind)
{
    static const char *cache[DFC_COLL_KIND_COUNT];
    static int read[DFC_COLL_KIND_COUNT];
    static char names[DFC_COLL_KIND_COUNT][48];
    if (!read[kind]) {
        int i = 0;
        const char *k = kind_names[kind];
        i = snprintf(names[kind], sizeof names[kind], "DFC_");
        for (; *k && i < (int)sizeof names[kind] - 11; k++)
            names[kind][i++] = (char)toupper((unsigned char)*k);
        snprintf(names[kind] + i, sizeof names[kind] - i, "_ALGORITHM");
        const char *v =
            dfc_env_str(names[kind], "auto",
                        "force the algorithm of this collective (see dfc_env(7) for names)");
        cache[kind] = strcmp(v, "auto") ? v : NULL; /* no strcmp per call */
        read[kind] = 1;
    }
    return cache[kind];
}

/* Over rails, gather and scatter in the daemon took 1.0-5.6x the staged call's time from 8 B
 * to 16 MiB on 20 ranks, alltoall 0.9-1.8x (BENCHMARKS.md, stop 26, call U): they ride the
 * rails only when DFC_<KIND>_ALGORITHM=hierarchical asks for it. */
static int rails_on_request(dfc_coll_kind_t kind)
{
    return kind == DFC_COLL_GATHER || kind == DFC_COLL_SCATTER || kind == DFC_COLL_ALLTOALL;
}

/* Allgather's linear exchange (allgather_linear.c) on one node: every receiver reads every
 * block straight out of its sender, all at once, where ring (or recursive doubling, bruck)
 * moves it through other ranks in fenced steps. On 16 cores (BENCHMARKS.md, stop 42, call E,
 * 2 rounds) from 4 KiB blocks up it took 0.5-0.95x the default's time at 4, 8 and 16 ranks
 * (8 ranks, 16 KiB blocks: 37.9 against ring's 63.1 us, Open MPI 47.8; 16 ranks, 16 KiB:
 * 68.6 against 140.9, Open MPI 93.1); with 2 KiB blocks it lost at 4 ranks (4.4 against 3.5
 * us). Nothing was measured above 16 ranks on a node, nor in the GPU daemon. */
static int allgather_linear_fits(const dfc_coll_args_t *a)
{
    return !a->gpu && thr.allgather_linear_min && a->rbytes >= thr.allgather_linear_min &&
           a->size > 2 && a->size <= 16 && !spans_nodes(a);
}

/* The largest allreduce that recursive doubling runs. It moves the whole vector log2(n)
 * times where rabenseifner moves it about twice in 2 log2(n) steps, so its limit falls as n
 * grows. On one node of 16 cores (BENCHMARKS.md, stop 30: every algorithm forced, 3 rounds):
 *   2 ranks   one exchange of the vector against rabenseifner's two of half of it: recursive
 *             doubling took 0.57-0.72 of rabenseifner's time from 32 to 512 KiB, so a
 *             blocking call runs it up to DFC_ALLREDUCE_RABENSEIFNER_MAX (above: ring, as
 *             before). Not a nonblocking or persistent one: with the progress thread,
 *             Iallreduce's overlap (osu_iallreduce's measure) fell from 86-93 % with
 *             rabenseifner to 19-87 % at 64-256 KiB (3 rounds), issue 16's 90 % lost;
 *   4 ranks   it won up to 16 KiB (DFC_ALLREDUCE_RECURSIVE_DOUBLING_MAX) and lost from 32;
 *   8 ranks   it won at 4 KiB, tied at 8 and lost 1.13x at 16 KiB (2.1x at 32);
 *   16 ranks  it tied at 4 KiB (1.05x) and lost 1.19x at 8 KiB (1.40x at 16);
 * so from 4 ranks up the limit is DFC_ALLREDUCE_RECURSIVE_DOUBLING_MAX x 4/n, no lower than
 * a quarter of it (nothing was measured above 16 ranks on one node).
 * Across nodes, DFC_ALLREDUCE_RECURSIVE_DOUBLING_NET_MAX (measured at 2, 4 and 8 ranks). */
static uint64_t allreduce_rd_limit(const dfc_coll_args_t *a)
{
    if (spans_nodes(a)) return thr.allreduce_rd_net_max;
    if (a->size == 2 && !a->nonblocking)
        return DFC_MAX2(thr.allreduce_rd_max, thr.allreduce_rab_max);
    if (a->size <= 4) return thr.allreduce_rd_max;
    return thr.allreduce_rd_max * 4 / (uint64_t)DFC_MIN2(a->size, 16);
}

static const char *bcast_rules(const dfc_coll_args_t *a, uint64_t bytes)
{
    if (dfc_coll_bcast_shm_slots_usable(a) && bytes <= dfc_coll_bcast_slots_limit(a->size))
        return "shm_slots";
    if (bytes < thr.bcast_sag_min || a->size < 4) return "binomial";
    if (hier_default(a, bytes, 8 * thr.bcast_sag_min) > 0) return "hierarchical"; /* spans nodes */
    return "scatter_allgather";
}

const dfc_coll_algo_t *dfc_coll_select(const dfc_coll_args_t *a)
{
    /* In the GPU daemon over rails (gpu.c), the hierarchical schedule is the one whose peers
     * all connect, whatever the environment forces; NULL for a call without one, for a
     * bcast below the size where the host leaves its binomial tree: its chain of daemon
     * handoffs took 5-9x the staged call's time up to 16 KiB at 20 ranks (BENCHMARKS.md,
     * stop 25, call R), where allgather gained at every size and allreduce lost at most 1.4x
     * (1-16 KiB) and gained up to 4.7x (1 MiB); and for a reduce below
     * DFC_GPU_RAILS_REDUCE_MIN: staged, one host binomial tree, it took 0.2-0.8x the daemon's
     * time from 8 B to 64 KiB (once 1.5x, at 64 KiB) and 1.7-2.4x at 256 KiB, at 20 ranks
     * (stop 27, calls Z and Z2). */
    if (a->gpu == DFC_COLL_GPU_RAILS || a->gpu == DFC_COLL_GPU_RING) {
        if (DFC_UNLIKELY(!thr.read)) read_thresholds();
        uint64_t bytes = a->count * a->elem;
        if (a->kind == DFC_COLL_BCAST && bytes < thr.bcast_sag_min) return NULL;
        if (a->kind == DFC_COLL_REDUCE && bytes < thr.gpu_rails_reduce_min) return NULL;
        if (rails_on_request(a->kind)) {
            const char *forced = forced_name(a->kind);
            if (!forced || strcmp(forced, "hierarchical")) return NULL;
        }
        return find(a->kind, "hierarchical", a);
    }
    const char *forced = forced_name(a->kind);
    const dfc_coll_algo_t *al = forced ? find(a->kind, forced, a) : NULL;
    if (al) return al;
    if (DFC_UNLIKELY(!thr.read)) read_thresholds();
    uint64_t bytes = a->count * a->elem;
    const char *name = NULL;
    int nodes;
    dfc_coll_slot_algo_t slots;
    switch (a->kind) {
    case DFC_COLL_BARRIER:
        if (dfc_coll_barrier_shm_slots_usable(a)) name = "shm_slots";
        break;
    case DFC_COLL_ALLTOALL:
        if (dfc_coll_alltoall_shm_slots_usable(a)) name = "shm_slots";
        break;
    case DFC_COLL_BCAST: name = bcast_rules(a, bytes); break;
    case DFC_COLL_ALLREDUCE:
        slots = dfc_coll_allreduce_shm_slots_rs_ag_usable(a)
                    ? dfc_coll_allreduce_slots_choice(a->size, bytes)
                    : DFC_SLOTS_AWAY;
        if (slots == DFC_SLOTS_ONE) name = "shm_slots";
        else if (slots == DFC_SLOTS_RS_AG) name = "shm_slots_rs_ag";
        else if (bytes <= allreduce_rd_limit(a)) name = "recursive_doubling";
        else if (bytes <= thr.allreduce_rab_max) name = "rabenseifner";
        else if (a->commutative && (nodes = hier_default(a, bytes, 0)) > 0 &&
                 nodes <= thr.allreduce_ring_max_ranks * (is_pow2(nodes) ? 1 : 8))
            name = "hierarchical"; /* its ring across nodes: the rank limit applies to N */
        else if (a->size <= thr.allreduce_ring_max_ranks * (is_pow2(a->size) ? 1 : 8) ||
                 !dfc_coll_allreduce_rabenseifner_usable(a))
            name = "ring";
        else name = "rabenseifner";
        break;
    case DFC_COLL_ALLGATHER:
        if (dfc_coll_allgather_shm_slots_usable(a) &&
            (uint64_t)a->size * a->rbytes <= dfc_coll_allgather_slots_limit(a->size))
            name = "shm_slots";
        else if (allgather_linear_fits(a)) name = "linear";
        else if ((uint64_t)a->size * a->rbytes > thr.allgather_short_max &&
                 (nodes = hier_default(a, (uint64_t)a->size * a->rbytes,
                                       8 * thr.allgather_short_max)) > 0 &&
                 nodes <= thr.allgather_ring_max_ranks &&
                 a->size / nodes <= thr.allgather_ring_max_ranks)
            name = "hierarchical"; /* rings of N and of L ranks: the rank limit applies to them */
        else if ((uint64_t)a->size * a->rbytes > thr.allgather_short_max &&
                 a->size <= thr.allgather_ring_max_ranks)
            name = "ring";
        else name = is_pow2(a->size) ? "recursive_doubling" : "bruck";
        break;
    default: break;
    }
    if (name && (al = find(a->kind, name, a))) return al;
    for (int i = 0; i < dfc_coll_nalgos; i++) /* the first usable one of the kind */
        if (dfc_coll_algos[i].kind == a->kind &&
            (!dfc_coll_algos[i].usable || dfc_coll_algos[i].usable(a)))
            return &dfc_coll_algos[i];
    return NULL;
}

const char *dfc_coll_forced_algorithm(dfc_coll_kind_t kind) { return forced_name(kind); }

/* For dfc_env_register_all (dfc_info): reads every DFC_<KIND>_ALGORITHM and threshold, and
 * builds each algorithm's schedule once for a small two-rank call, so that the parameters a
 * generator reads on first use (DFC_COLL_RING_SEGMENT) are registered without a
 * multi-process job. Building only fills memory; nothing is sent. */
void dfc_coll_register_params(void)
{
    static const int counts[2] = {2, 2}, displs[2] = {0, 2};
    for (int k = 0; k < DFC_COLL_KIND_COUNT; k++) forced_name((dfc_coll_kind_t)k);
    read_thresholds();
    dfc_coll_bcast_slots_limit(3); /* the slot pipelines' limits, read on first use */
    dfc_coll_allgather_slots_limit(3);
    for (int i = 0; i < dfc_coll_nalgos; i++) {
        const dfc_coll_algo_t *al = &dfc_coll_algos[i];
        dfc_coll_args_t a = {.kind = al->kind,
                             .rank = 0,
                             .size = 2,
                             .root = 0,
                             .commutative = 1,
                             .count = 4,
                             .elem = 4,
                             .rcounts = counts,
                             .sbytes = 8,
                             .rbytes = 8,
                             .selem = 4,
                             .relem = 4,
                             .scounts = counts,
                             .sdispls = displs,
                             .vcounts = counts,
                             .vdispls = displs};
        if (al->usable && !al->usable(&a)) continue;
        dfc_sched_t s;
        dfc_sched_init(&s);
        al->build(&a, &s); /* a failure (out of memory) only leaves a parameter unread */
        dfc_sched_destroy(&s);
    }
}
