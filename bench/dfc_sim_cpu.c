/*
 * dfc_sim_cpu.c - the simulator's processors (sim_config_t.cores): a node with more ranks than
 * cores runs at most `cores` of them at once, as on the 2-core machine with 4 or 8 ranks.
 *
 * What the host does there (src/comm/progress.c, src/coll/scheduler.c): with more ranks than
 * processors a waiting rank yields the processor on every pass that found nothing to do
 * (DFC_SPIN_US 0), and the head's spin budget is 1 poll, so a rank runs while it has work
 * and gives its core away as soon as it waits. The model, at the granularity of the engine's
 * events (a start, a pass, a spin's end):
 *  - an event of a rank without a core takes a free core of its node, or joins the node's
 *    queue (first come, first served) and runs when a core is handed to it;
 *  - a rank keeps its core while it has work (its next event is a pass, a start or a spin:
 *    a spinning head burns its core, as a forced DFC_SPIN_BUDGET does) until it has held it
 *    for a time slice and others are queued (the kernel's preemption); a rank that sleeps
 *    (a pass that found nothing: DFC yields) or is done gives its core back;
 *  - taking a core that another rank ran on last costs the switch time (a sched_yield and a
 *    context switch: measured, BENCHMARKS.md).
 * A sleeping rank's passes (sim_config_t: repeated with a period) take no core: they yield at
 * once when another rank is queued. Not modelled: DFC_YIELD_US (after 2 ms of waiting a rank
 * blocks in the transport until a peer's doorbell; its wake-up costs about as much as a
 * switch), and a sleeping rank's spins under a forced budget above 1.
 */
#include <stdlib.h>

#include "dfc_sim_int.h"

int sim_cpu_init(sim_t *S)
{
    const sim_config_t *cfg = S->cfg;
    int32_t rpn = S->net.rpn, nodes = (S->n + rpn - 1) / rpn;
    if (cfg->cores <= 0 || cfg->cores >= rpn) return 0; /* a core per rank: no sharing */
    S->ncores = cfg->cores;
    S->core_owner = malloc((size_t)nodes * S->ncores * sizeof *S->core_owner);
    S->core_last = malloc((size_t)nodes * S->ncores * sizeof *S->core_last);
    S->core_free = calloc((size_t)nodes * S->ncores, sizeof *S->core_free);
    S->cpu_queue = malloc((size_t)nodes * rpn * sizeof *S->cpu_queue);
    S->cpu_head = calloc((size_t)nodes, sizeof *S->cpu_head);
    S->cpu_len = calloc((size_t)nodes, sizeof *S->cpu_len);
    if (!S->core_owner || !S->core_last || !S->core_free || !S->cpu_queue || !S->cpu_head ||
        !S->cpu_len)
        return -1;
    for (int32_t i = 0; i < nodes * S->ncores; i++) S->core_owner[i] = S->core_last[i] = -1;
    for (int32_t r = 0; r < S->n; r++) S->ranks[r].core = -1;
    return 0;
}

void sim_cpu_destroy(sim_t *S)
{
    free(S->core_owner);
    free(S->core_last);
    free(S->core_free);
    free(S->cpu_queue);
    free(S->cpu_head);
    free(S->cpu_len);
}

static void take(sim_t *S, int32_t r, int32_t core, double t)
{
    srank_t *R = &S->ranks[r];
    S->core_owner[core] = r;
    R->core = core;
    R->run_since = t;
    if (S->core_last[core] != r) { /* the switch to this rank: paid before it runs */
        S->core_last[core] = r;
        R->debt += S->cfg->cpu_switch;
        S->res->switches++;
    }
}

/* Rank r's event at t: 1 when it may run now (it holds a core), 0 when it waits for one. */
int sim_cpu_acquire(sim_t *S, int32_t r, double t)
{
    srank_t *R = &S->ranks[r];
    if (R->core >= 0) return 1;
    if (R->cpu_queued) return 0; /* release hands it a core in its turn */
    int32_t node = r / S->net.rpn, base = node * S->ncores, best = -1;
    for (int32_t i = base; i < base + S->ncores; i++) /* the free core that was free first */
        if (S->core_owner[i] < 0 && (best < 0 || S->core_free[i] < S->core_free[best])) best = i;
    if (best >= 0 && S->core_free[best] <= t + SIM_EPS) {
        take(S, r, best, t);
        return 1;
    }
    if (best >= 0) { /* a core is released at a time the event loop has not reached yet */
        sim_wake_at(S, r, S->core_free[best]);
        return 0;
    }
    if (!R->cpu_queued) {
        int32_t rpn = S->net.rpn, pos = (S->cpu_head[node] + S->cpu_len[node]) % rpn;
        S->cpu_queue[node * rpn + pos] = r;
        S->cpu_len[node]++;
        R->cpu_queued = 1;
        S->res->cpu_waits++;
    }
    return 0;
}

/* After rank r's event: it keeps its core while it has work and its slice lasts (or nobody
 * waits); otherwise the core goes to the first queued rank of the node, at r's time. */
void sim_cpu_release(sim_t *S, int32_t r)
{
    srank_t *R = &S->ranks[r];
    int32_t core = R->core, node = r / S->net.rpn, rpn = S->net.rpn;
    if (core < 0) return;
    int busy = R->phase == PH_PASS || R->phase == PH_START || R->phase == PH_SPIN;
    if (busy && (S->cpu_len[node] == 0 || R->t - R->run_since < S->cfg->cpu_slice)) return;
    S->core_owner[core] = -1;
    R->core = -1;
    double t = R->t;
    S->core_free[core] = t;
    while (S->cpu_len[node] > 0) {
        int32_t w = S->cpu_queue[node * rpn + S->cpu_head[node]];
        S->cpu_head[node] = (S->cpu_head[node] + 1) % rpn;
        S->cpu_len[node]--;
        S->ranks[w].cpu_queued = 0;
        if (S->ranks[w].phase == PH_DONE) continue;
        take(S, w, core, t);
        /* its pending event runs now (or at its own time, if that is later) */
        double tw = S->ranks[w].wake < SIM_INF && S->ranks[w].wake > t ? S->ranks[w].wake : t;
        sim_wake_at(S, w, tw);
        break;
    }
    /* a rank that still has work and lost its core at the slice's end queues again */
    if (busy) sim_cpu_acquire(S, r, t);
}
