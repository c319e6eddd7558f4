/*
 * dfc_sim.h - a discrete-event simulation of DFC's collective scheduling for many ranks in
 * one process (issue 22): DFC's schedule generators (src/coll, through dfc_coll_select and
 * the algorithm builders) give every simulated rank its schedules, DFC's scheduling policy
 * (src/coll/dfc_policy.h, the functions the executors call) decides which collective runs,
 * and a LogGP-style network model with one parameter set per link class (intra-node,
 * inter-node) says when transfers complete. Time is simulated (nanoseconds, a double);
 * the run is deterministic for a given seed.
 *
 * Three parts: the clock (an event heap; one pending wake-up per rank), the network model
 * (per-message times from the link class, ports serialize bytes at both ends), and the
 * engine (ranks that start collectives, run progress passes and wait, as the host
 * scheduler in src/coll/scheduler.c does).
 */
#ifndef DFC_SIM_H
#define DFC_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "coll/dfc_coll.h"
#include "coll/dfc_policy.h"

#define SIM_INF 1e300

/* ---- The clock (dfc_sim_net.c) ----------------------------------------------------------
 * Events are (time, rank, generation); equal times pop in the order they were pushed, so
 * a run is reproducible. A rank's later push makes its earlier events stale (the
 * generation tells), which is how a wake-up is moved earlier. */
typedef struct sim_event {
    double t;
    uint64_t seq;
    int32_t rank;
    uint32_t gen;
} sim_event_t;

typedef struct sim_clock {
    sim_event_t *heap;
    size_t n, cap;
    uint64_t seq;
    double now; /* time of the last event popped */
} sim_clock_t;

int sim_clock_init(sim_clock_t *c);
void sim_clock_destroy(sim_clock_t *c);
int sim_clock_push(sim_clock_t *c, double t, int32_t rank, uint32_t gen);
/* Pops the earliest event into *ev; 0 when none is left. */
int sim_clock_pop(sim_clock_t *c, sim_event_t *ev);

/* ---- The network model (dfc_sim_net.c) --------------------------------------------------- */
enum { SIM_INTRA = 0, SIM_INTER = 1, SIM_NCLASS = 2 };

typedef struct sim_link {
    double L;      /* latency, ns */
    double o;      /* CPU overhead per message, ns (charged to the sender at post, the receiver
                      when it posts its receive) */
    double G;      /* ns per byte at each end (1 / bandwidth) */
    double eager;  /* bytes: larger messages rendezvous (the receiver must have posted) */
    double jitter; /* each message's latency gets a uniform extra in [0, jitter * L) */
} sim_link_t;

/* The intervals in which one node's memory, or one port, is taken, sorted, disjoint: a message
 * takes the earliest gap long enough at or after its start (messages are not posted in time
 * order: a rank that ran ahead in its pass may have taken a later slot already). */
typedef struct sim_busy {
    double *t; /* start, end, start, end, ... */
    size_t n, cap;
} sim_busy_t;

/* Takes the earliest free interval of length d at or after t; returns its start (-1: out of
 * memory). Intervals that end at or before `now` are dropped first. */
double sim_busy_take(sim_busy_t *b, double t, double d, double now);

typedef struct sim_net {
    sim_link_t link[SIM_NCLASS];
    int32_t nranks, rpn; /* ranks per node (block layout: node = rank / rpn) */
    double slow_factor;  /* L and G of every message to or from a slow rank, multiplied */
    uint8_t *slow;       /* per rank, or NULL */
    sim_busy_t *port_out, *port_in; /* per rank and class: when the port is taken (as the
                                       bus: ranks post out of time order, and a port reserved
                                       by a rank that ran ahead must not hold back an earlier
                                       message: that made consistent order 10-100x slower with
                                       -pull at 8-16 ranks, BENCHMARKS.md) */
    double bus_G;                   /* ns per byte on the node's memory, shared by all its ranks'
                                   intra-node messages (0: no such limit; the per-rank ports
                                   then are the only bandwidth bound) */
    sim_busy_t *bus;                /* per node: when its memory is taken (bus_G > 0) */
    double now;                     /* the clock: port and bus intervals that end before it are
                                   dropped */
    uint64_t rng;
} sim_net_t;

int sim_net_init(sim_net_t *n, int32_t nranks, int32_t rpn, uint64_t seed);
void sim_net_destroy(sim_net_t *n);
static inline int sim_net_class(const sim_net_t *n, int32_t a, int32_t b)
{
    return a / n->rpn == b / n->rpn ? SIM_INTRA : SIM_INTER;
}
uint64_t sim_rand(uint64_t *s);
/* Data of `bytes` leaves src no earlier than t (after the sender's overhead is spent) and
 * arrives at dst: returns the arrival time; occupies both ports for bytes * G, and an
 * intra-node message also the node's memory for bytes * bus_G (first come, first served). */
double sim_net_data(sim_net_t *n, int32_t src, int32_t dst, uint64_t bytes, double t);
/* A small control message (rendezvous request or answer) sent at t: arrival time. */
double sim_net_ctrl(sim_net_t *n, int32_t src, int32_t dst, double t);
int sim_net_eager(const sim_net_t *n, int32_t src, int32_t dst, uint64_t bytes);

/* ---- The engine (dfc_sim_engine.c, dfc_sim_run.c) -------------------------------------------- */
/* A communicator family: every rank w is in the group whose members are
 * base + i * stride (i < size), base = w - ((w / stride) % size) * stride. World: stride 1,
 * size N; Megatron tensor groups stride 1, data groups stride tp, pipeline stride tp * dp. */
typedef struct sim_comm {
    char name[16];
    int32_t stride, size;
} sim_comm_t;

/* One collective of the workload, on every group of its communicator family. */
typedef struct sim_cdef {
    char name[16];
    int32_t comm;
    dfc_coll_kind_t kind;
    uint64_t count, elem; /* reductions and bcast: items, bytes per item */
    uint64_t bytes;       /* gather/scatter/allgather/alltoall: bytes per block */
    int32_t root, priority;
    const char *algorithm; /* filled by the build: the generator dfc_coll_select chose */
} sim_cdef_t;

/* The costs of the executor itself (fitted: BENCHMARKS.md). */
typedef struct sim_cpu {
    double poll;      /* one network poll of the spinning head (and its re-check), ns */
    double poll_peer; /* more per poll for each other rank on the node: the shm transport
                         drains every peer's ring on each poll (src/tl/shm.c), ns */
    double exec;      /* one executor call on a collective that does not move, ns */
    double pass;      /* the rest of one progress pass (the network poll before the walk), ns */
    double start;     /* DFC_Start of one persistent collective, ns (plus its first exec) */
    double gamma;     /* ns per byte reduced */
    double copy;      /* ns per byte copied (COPY steps) */
    double iter_gap;  /* between Waitall's return and the next iteration's first start, ns */
} sim_cpu_t;

typedef struct sim_config {
    int32_t nranks, rpn;
    int32_t ncomm, ncdef;
    sim_comm_t *comms;
    sim_cdef_t *cdefs;
    int32_t iters;
    int chaos;        /* 0: every rank starts in cdef order; 1: dfc_chaos's permutations;
                           2: a uniformly random permutation per rank and iteration */
    double disorder;  /* chaos 3: with this probability a rank swaps two adjacent starts */
    int32_t **orders; /* workload file: per rank its start order (NULL: cdef order) */
    dfc_policy_t policy;
    sim_cpu_t cpu;
    sim_link_t link[SIM_NCLASS];
    int32_t nslow; /* ranks with slow links (random, by seed) */
    double slow_factor;
    double bus_G;  /* ns per byte on each node's memory, shared by its intra-node messages
                      (sim_net_t.bus_G; 0: off) */
    int32_t nlate; /* stragglers: ranks that start every iteration late by `late` ns */
    double late;
    int32_t cores;     /* cores per node (0: one per rank); with fewer cores than ranks on a
                          node, at most `cores` of its ranks run at once (dfc_sim_cpu.c) */
    double cpu_switch; /* ns: a rank that takes a core another rank ran on last (a yield and a
                          context switch) */
    double cpu_slice;  /* ns: a rank with work keeps its core this long while others wait */
    uint64_t seed;
    int verbose;
    int pull;  /* intra-node rendezvous data is pulled by the receiver's CPU (the shm
                  transport's process_vm_readv): no answer round trip, the receiver's CPU is
                  busy for the copy (it cannot poll or run collectives meanwhile), the sender
                  completes on a FIN one latency after the copy */
    int grow;  /* experiment, not DFC's policy: a collective that moves past the wait point where
                * it was preempted gets budget_init back (its budget never stays below it) */
    int learn; /* experiment (issue 22's stretch goal), not DFC's policy: a head that
                           moves counts, for its stickiness, the polls it spent at the same wait
                           point in earlier passes too */
} sim_config_t;

#define SIM_HIST 4097 /* preemptions per collective instance: 0 .. 4095, and more */

typedef struct sim_result {
    int deadlock;
    char cycle[1024]; /* the wait-for cycle, named, when deadlocked */
    int32_t ranks_done;
    double time_ns;     /* when the last rank finished its last iteration */
    uint64_t instances; /* collective instances completed */
    uint64_t preemptions;
    uint64_t max_rank_preemptions;
    uint64_t hist[SIM_HIST];
    uint64_t events, messages;
    double pull_ns;      /* CPU time that receivers spent copying pulled data (cfg->pull) */
    uint64_t unexpected; /* eager messages whose data was in before the receive was posted:
                            src/comm/p2p.c buffered them, and the receiver pays a second copy
                            (sim_cpu_t.copy per byte) when it posts the receive */
    uint64_t switches;   /* a rank took a core another had run on (cfg->cores) */
    uint64_t cpu_waits;  /* an event of a rank waited for a core (cfg->cores) */
    double wall_s;
    size_t sched_bytes; /* memory held by the schedules */
} sim_result_t;

void sim_config_defaults(sim_config_t *cfg);
/* Builds every rank's schedules, runs the workload, fills *res. DFC_SUCCESS or an error
 * (with a message on stderr) for a workload that cannot be built. */
int sim_run(const sim_config_t *cfg, sim_result_t *res);
/* The number of polls that dfc_policy_spin_on allows from `polls` before it says stop: the
 * closed form the engine uses to jump over a spin (test_sim checks it against the loop). */
static inline int64_t sim_spin_left(int32_t polls, int32_t budget)
{
    int64_t left = (int64_t)budget - 1 - polls;
    return left > 0 ? left : 0;
}

#endif /* DFC_SIM_H */
