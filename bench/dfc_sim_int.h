/*
 * dfc_sim_int.h - the simulator's internal state, shared by the engine (dfc_sim_engine.c: ranks,
 * transfers, the scheduler loop) and the run (dfc_sim_run.c: schedules, deadlock cycles, setup).
 */
#ifndef DFC_SIM_INT_H
#define DFC_SIM_INT_H

#include "dfc_sim.h"

#define SIM_EPS 1e-6 /* ns: equal times compare equal despite rounding */

enum { PH_START = 1, PH_PASS, PH_SPIN, PH_SLEEP, PH_DONE };

typedef struct sstep {
    uint64_t bytes;
    int32_t peer; /* world rank */
    uint16_t seq; /* ordinal among this schedule's transfers to (or from) the same peer */
    uint8_t kind;
    uint8_t pad;
} sstep_t;

typedef struct scoll {
    sstep_t *steps;
    double *xt; /* completion time of each transfer since the last fence (SIM_INF: unknown) */
    int32_t nsteps, pc, fence_start, budget, preempted_at;
    int32_t waited; /* polls spent at this wait point in earlier passes (sim_config_t.learn) */
    uint32_t preemptions;
    uint8_t active, starts;
} scoll_t;

typedef struct srank {
    double t;    /* this rank's clock */
    double wake; /* its pending wake-up (SIM_INF: none) */
    double spin_t0, sleep_t0, period;
    int64_t spin_left;
    uint64_t preemptions;
    uint32_t gen;
    int32_t polls, budget, head_prio, spin_polls0, wake_pos, wake_polls;
    double wake_periods; /* whole sleeping passes before the wake-up */
    double debt;         /* copy time (pull) to add to this rank's clock at its next event */
    double busy_until;   /* its CPU copies (pull) until then, from a time it had not reached */
    int32_t iter, remaining, nq, walk_pos;
    int32_t core;     /* the core it runs on (sim_config_t.cores; -1: none) */
    double run_since; /* since when it holds that core */
    uint8_t phase, moved, late, cpu_queued;
} srank_t;

enum { M_RECV = 1, M_EAGER, M_RNDV };
typedef struct smsg {
    uint64_t key;
    double t; /* M_RECV: posted; M_EAGER: data arrives; M_RNDV: request arrives */
    int32_t coll, step;
    uint8_t state; /* 0: empty slot */
} smsg_t;

typedef struct sim {
    const sim_config_t *cfg;
    dfc_policy_t pol;
    sim_cpu_t cpu;
    int32_t n, k;
    srank_t *ranks;
    scoll_t *colls;  /* [rank * k + cdef] */
    int16_t *queues; /* [rank * k + position]: cdef indices */
    sim_clock_t clock;
    sim_net_t net;
    smsg_t *msgs;
    size_t mcap, mcount;
    sim_result_t *res;
    int32_t *perm;
    uint64_t rng;
    int32_t running; /* the rank whose event is being processed */
    /* cores shared by the ranks of a node (dfc_sim_cpu.c; ncores 0: a core per rank) */
    int32_t ncores;
    int32_t *core_owner, *core_last;         /* [node * ncores + i]: its rank now (-1) and last */
    double *core_free;                       /* [node * ncores + i]: free from then on */
    int32_t *cpu_queue, *cpu_head, *cpu_len; /* per node: ranks waiting for a core (FIFO) */
} sim_t;

#define COLL(S, r, ci) (&(S)->colls[(size_t)(r) * (S)->k + (ci)])
#define QUEUE(S, r) (&(S)->queues[(size_t)(r) * (S)->k])

uint64_t sim_mix(uint64_t x);
int sim_msg_grow(sim_t *S);
/* Rank r's next event at t (SIM_INF: none); earlier events of r become stale. */
void sim_wake_at(sim_t *S, int32_t r, double t);
/* One event of rank r at time t: 0, or -1 when out of memory. */
int sim_step_rank(sim_t *S, int32_t r, double t);
/* The shared cores (dfc_sim_cpu.c): -1 when out of memory. */
int sim_cpu_init(sim_t *S);
void sim_cpu_destroy(sim_t *S);
/* Rank r's event at t may run (1), or waits for a core (0: queued, or moved to when one is
 * free); after the event, release gives the core away where the rank has no work left or
 * its slice is over and others wait. */
int sim_cpu_acquire(sim_t *S, int32_t r, double t);
void sim_cpu_release(sim_t *S, int32_t r);

#endif /* DFC_SIM_INT_H */
