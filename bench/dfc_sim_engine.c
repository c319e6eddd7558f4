/*
 * dfc_sim_engine.c - the simulator's ranks: schedules from DFC's generators, scheduling
 * decisions from dfc_policy.h, time from the clock and network model (dfc_sim.h).
 *
 * A simulated rank does what a host rank of bench/dfc_chaos does: it starts its persistent
 * collectives (each start posts the first transfers, as dfc_coll_start does), then makes
 * progress passes (src/coll/scheduler.c) until all are complete, and starts the next
 * iteration. A pass runs the head with its spin budget, then every other collective once;
 * a collective that moved may become the head. Spins are not simulated poll by poll: the
 * engine jumps to the poll at which the head's transfers are complete, or to the end of its
 * budget (sim_spin_left, the closed form of dfc_policy_spin_on), and a rank whose whole
 * pass found nothing to do sleeps, its passes repeating with a fixed period, until a
 * transfer it waits for completes; it wakes at the point of its period where the executor
 * would see it. Every decision - the budget after a wait, after a preemption, whether a
 * preemption counts, the queue order, promotion to the head - is made by the policy's
 * functions.
 *
 * Approximation: the checks of one pass see the transfers whose completion times are known
 * when the pass begins (a send posted by another rank during the pass is seen one pass
 * later).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dfc_sim_int.h"

/* ---- Messages in flight: one table keyed by (collective, start, src, dst, ordinal) ------- */
uint64_t sim_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t msg_key(int cdef, int starts, int32_t src, int32_t dst, int seq)
{
    return ((uint64_t)cdef << 54) | ((uint64_t)(starts & 0xff) << 46) | ((uint64_t)src << 31) |
           ((uint64_t)dst << 16) | (uint64_t)seq;
}

static smsg_t *msg_find(sim_t *S, uint64_t key)
{
    size_t m = S->mcap - 1;
    for (size_t i = sim_mix(key) & m;; i = (i + 1) & m) {
        if (!S->msgs[i].state) return NULL;
        if (S->msgs[i].key == key) return &S->msgs[i];
    }
}

int sim_msg_grow(sim_t *S)
{
    size_t cap = S->mcap ? 2 * S->mcap : 1024;
    smsg_t *old = S->msgs, *t = calloc(cap, sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < S->mcap; i++) {
        if (!old[i].state) continue;
        size_t j = sim_mix(old[i].key) & (cap - 1);
        while (t[j].state) j = (j + 1) & (cap - 1);
        t[j] = old[i];
    }
    free(old);
    S->msgs = t;
    S->mcap = cap;
    return 0;
}

static int msg_put(sim_t *S, uint64_t key, int state, double t, int32_t coll, int32_t step)
{
    if (2 * (S->mcount + 1) > S->mcap && sim_msg_grow(S)) return -1;
    size_t m = S->mcap - 1, i = sim_mix(key) & m;
    while (S->msgs[i].state) i = (i + 1) & m;
    S->msgs[i] = (smsg_t){key, t, coll, step, (uint8_t)state};
    S->mcount++;
    return 0;
}

static void msg_del(sim_t *S, smsg_t *e) /* linear probing: shift the cluster back */
{
    size_t m = S->mcap - 1, i = (size_t)(e - S->msgs), j = i;
    S->msgs[i].state = 0;
    for (;;) {
        j = (j + 1) & m;
        if (!S->msgs[j].state) break;
        size_t h = sim_mix(S->msgs[j].key) & m;
        if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
            S->msgs[i] = S->msgs[j];
            S->msgs[j].state = 0;
            i = j;
        }
    }
    S->mcount--;
}

/* ---- Waking ranks ------------------------------------------------------------------------- */
void sim_wake_at(sim_t *S, int32_t r, double t)
{
    srank_t *R = &S->ranks[r];
    R->wake = t;
    R->gen++;
    if (t < SIM_INF) sim_clock_push(&S->clock, t, r, R->gen);
}

/* When the transfers that c waits for are complete (SIM_INF: not known yet). */
static double ready_time(const scoll_t *c)
{
    double t = 0;
    for (int32_t i = 0; i < c->pc - c->fence_start; i++)
        if (c->xt[i] > t) t = c->xt[i];
    return t;
}

/* A sleeping rank's passes repeat with period P from sleep_t0: the head is checked after
 * its exec and after each of its budget - 1 polls, the collective at position pos > 0
 * once, after the head. The first check of position pos at or after tr. */
static double sleep_check(const sim_t *S, const srank_t *R, int pos, double tr, int32_t *polls,
                          double *periods)
{
    const double exec = S->cpu.exec, poll = S->cpu.poll, P = R->period;
    int64_t spins = sim_spin_left(0, R->budget);
    double d = tr - R->sleep_t0;
    if (d < 0) d = 0;
    double m = floor(d / P), rem = d - m * P;
    *polls = 0;
    if (pos == 0) {
        double j = rem <= exec + SIM_EPS ? 0 : ceil((rem - exec - SIM_EPS) / poll);
        if (j > (double)spins) m += 1, j = 0;
        *polls = (int32_t)j;
        *periods = m;
        return R->sleep_t0 + m * P + exec + j * poll;
    }
    double off = exec + (double)spins * poll + pos * exec;
    if (rem > off + SIM_EPS) m += 1;
    *periods = m;
    return R->sleep_t0 + m * P + off;
}

/* A transfer of rank r's collective ci completed (or its completion time became known). */
static void notify(sim_t *S, int32_t r, int32_t ci)
{
    srank_t *R = &S->ranks[r];
    scoll_t *c = COLL(S, r, ci);
    if (!c->active) return;
    double tr = ready_time(c);
    if (tr >= SIM_INF) return;
    int16_t *q = QUEUE(S, r);
    if (R->phase == PH_SPIN) {
        if (q[0] != ci) return; /* the walk after the spin sees it */
        double j = ceil((tr - R->spin_t0 - SIM_EPS) / S->cpu.poll);
        if (j < 1) j = 1;
        if (j > (double)R->spin_left) return; /* the budget ends first */
        double tw = R->spin_t0 + j * S->cpu.poll;
        if (tw < R->wake) sim_wake_at(S, r, tw);
    } else if (R->phase == PH_SLEEP) {
        int pos = 0;
        while (pos < R->nq && q[pos] != ci) pos++;
        int32_t polls;
        double periods;
        double tw = sleep_check(S, R, pos, tr, &polls, &periods);
        if (tw < R->wake) {
            R->wake_pos = pos;
            R->wake_polls = polls;
            R->wake_periods = periods;
            sim_wake_at(S, r, tw);
        }
    }
}

/* ---- Transfers ---------------------------------------------------------------------------- */
static void xfer_done(sim_t *S, int32_t r, int32_t ci, int32_t step, double t)
{
    scoll_t *c = COLL(S, r, ci);
    c->xt[step - c->fence_start] = t;
    notify(S, r, ci);
}

/* The receiver dst pulls the data at tm (cfg->pull): its CPU copies until the data is in. A
 * rank that had already run past tm was interrupted (debt); one that had not reached tm is
 * busy from then on (busy_until); the rank running now pays at once. */
static void pull(sim_t *S, int32_t src, int32_t sci, int32_t sstep, int32_t dst, int32_t dci,
                 int32_t dstep, uint64_t bytes, double tm)
{
    double td = sim_net_data(&S->net, src, dst, bytes, tm);
    srank_t *D = &S->ranks[dst];
    S->res->messages++;
    S->res->pull_ns += td - tm;
    if (dst == S->running && tm <= D->t + SIM_EPS) D->t += td - tm;
    else if (D->t > tm) D->debt += td - tm;
    else if (td > D->busy_until) D->busy_until = td;
    xfer_done(S, dst, dci, dstep, td);
    xfer_done(S, src, sci, sstep, sim_net_ctrl(&S->net, dst, src, td)); /* FIN */
}

/* Both sides of a rendezvous are known at tm: answer, then the data. */
static void rendezvous(sim_t *S, int32_t src, int32_t sci, int32_t sstep, int32_t dst, int32_t dci,
                       int32_t dstep, uint64_t bytes, double tm)
{
    if (S->cfg->pull && sim_net_class(&S->net, src, dst) == SIM_INTRA) {
        pull(S, src, sci, sstep, dst, dci, dstep, bytes, tm);
        return;
    }
    double answer = sim_net_ctrl(&S->net, dst, src, tm);
    double td = sim_net_data(&S->net, src, dst, bytes, answer);
    S->res->messages++;
    xfer_done(S, dst, dci, dstep, td);
    xfer_done(S, src, sci, sstep, td);
}

static int post_send(sim_t *S, int32_t r, int32_t ci, int32_t step)
{
    srank_t *R = &S->ranks[r];
    scoll_t *c = COLL(S, r, ci);
    const sstep_t *st = &c->steps[step];
    int32_t dst = st->peer;
    R->t += S->net.link[sim_net_class(&S->net, r, dst)].o;
    uint64_t key = msg_key(ci, c->starts, r, dst, st->seq);
    smsg_t *e = msg_find(S, key);
    if (sim_net_eager(&S->net, r, dst, st->bytes)) {
        double ta = sim_net_data(&S->net, r, dst, st->bytes, R->t);
        S->res->messages++;
        c->xt[step - c->fence_start] = R->t;
        if (!e) return msg_put(S, key, M_EAGER, ta, ci, step);
        int32_t dci = e->coll, dstep = e->step;
        double tp = e->t;
        msg_del(S, e);
        xfer_done(S, dst, dci, dstep, ta > tp ? ta : tp);
        return 0;
    }
    double ta = sim_net_ctrl(&S->net, r, dst, R->t);
    c->xt[step - c->fence_start] = SIM_INF;
    if (!e) return msg_put(S, key, M_RNDV, ta, ci, step);
    int32_t dci = e->coll, dstep = e->step;
    double tp = e->t;
    msg_del(S, e);
    rendezvous(S, r, ci, step, dst, dci, dstep, st->bytes, ta > tp ? ta : tp);
    return 0;
}

static int post_recv(sim_t *S, int32_t r, int32_t ci, int32_t step)
{
    srank_t *R = &S->ranks[r];
    scoll_t *c = COLL(S, r, ci);
    const sstep_t *st = &c->steps[step];
    int32_t src = st->peer;
    R->t += S->net.link[sim_net_class(&S->net, src, r)].o;
    uint64_t key = msg_key(ci, c->starts, src, r, st->seq);
    smsg_t *e = msg_find(S, key);
    c->xt[step - c->fence_start] = SIM_INF;
    if (!e) return msg_put(S, key, M_RECV, R->t, ci, step);
    double te = e->t;
    int state = e->state;
    int32_t sci = e->coll, sstep = e->step;
    msg_del(S, e);
    if (state == M_EAGER) {
        if (te <= R->t) { /* it waited in the unexpected queue (src/comm/p2p.c): a second copy */
            S->res->unexpected++;
            R->t += S->cpu.copy * (double)st->bytes;
        }
        c->xt[step - c->fence_start] = te > R->t ? te : R->t;
    } else rendezvous(S, src, sci, sstep, r, ci, step, st->bytes, te > R->t ? te : R->t);
    return 0;
}

/* ---- The executor (src/coll/exec.c's semantics, on simulated time) ------------------------ */
static int group_ready(const scoll_t *c, double t)
{
    for (int32_t i = 0; i < c->pc - c->fence_start; i++)
        if (c->xt[i] > t + SIM_EPS) return 0;
    return 1;
}

/* The fence is passed: the reductions of the group's RECV_REDUCE steps cost CPU time. */
static void pass_fence(sim_t *S, srank_t *R, scoll_t *c, int32_t next)
{
    for (int32_t i = c->fence_start; i < c->pc; i++)
        if (c->steps[i].kind == DFC_STEP_RECV_REDUCE)
            R->t += S->cpu.gamma * (double)c->steps[i].bytes;
    c->fence_start = next;
}

/* Runs ci's steps until it completes (1) or waits (0); -1 when out of memory. */
static int exec(sim_t *S, int32_t r, int32_t ci)
{
    srank_t *R = &S->ranks[r];
    scoll_t *c = COLL(S, r, ci);
    while (c->pc < c->nsteps) {
        const sstep_t *st = &c->steps[c->pc];
        int rc = 0;
        switch (st->kind) {
        case DFC_STEP_SEND: rc = post_send(S, r, ci, c->pc); break;
        case DFC_STEP_RECV:
        case DFC_STEP_RECV_REDUCE: rc = post_recv(S, r, ci, c->pc); break;
        default: /* FENCE, COPY, REDUCE: a preemption point */
            if (!group_ready(c, R->t)) return 0;
            pass_fence(S, R, c, c->pc + 1);
            if (st->kind == DFC_STEP_COPY) R->t += S->cpu.copy * (double)st->bytes;
            if (st->kind == DFC_STEP_REDUCE) R->t += S->cpu.gamma * (double)st->bytes;
        }
        if (rc) return -1;
        c->pc++;
    }
    if (!group_ready(c, R->t)) return 0;
    pass_fence(S, R, c, c->pc);
    return 1;
}

/* ---- The scheduler (src/coll/scheduler.c's loop; every decision from dfc_policy.h) -------- */
static void finish(sim_t *S, int32_t r, int32_t ci)
{
    srank_t *R = &S->ranks[r];
    scoll_t *c = COLL(S, r, ci);
    int16_t *q = QUEUE(S, r);
    int pos = 0;
    while (pos < R->nq && q[pos] != ci) pos++;
    memmove(&q[pos], &q[pos + 1], (size_t)(R->nq - pos - 1) * sizeof *q);
    R->nq--;
    c->active = 0;
    R->remaining--;
    S->res->instances++;
    S->res->preemptions += c->preemptions;
    S->res->hist[c->preemptions < SIM_HIST - 1 ? c->preemptions : SIM_HIST - 1]++;
}

static int walk(sim_t *S, int32_t r);
static int end_pass(sim_t *S, int32_t r);

static void add_waited(scoll_t *c, double polls)
{
    double w = c->waited + polls;
    c->waited = w > INT32_MAX / 2 ? INT32_MAX / 2 : (int32_t)w;
}

/* The head's budget ran out (the spin_on that says stop) at its wait point. */
static int preempt_head(sim_t *S, int32_t r)
{
    srank_t *R = &S->ranks[r];
    scoll_t *c = COLL(S, r, QUEUE(S, r)[0]);
    R->polls = (int32_t)(R->spin_polls0 + R->spin_left);
    if (dfc_policy_spin_on(&R->polls, R->budget)) {
        fprintf(stderr, "dfc_sim: internal error: the spin budget did not run out\n");
        return -1;
    }
    add_waited(c, R->polls);
    if (dfc_policy_is_new_preemption(c->preempted_at, c->pc)) {
        c->preempted_at = c->pc;
        c->preemptions++;
        R->preemptions++;
        R->budget = dfc_policy_budget_preempted(&S->pol, R->budget);
    }
    c->budget = R->budget;
    R->walk_pos = 1;
    return walk(S, r);
}

/* The head: exec, and spin while its budget lasts (jumping to the poll that sees it ready). */
static int head_run(sim_t *S, int32_t r)
{
    srank_t *R = &S->ranks[r];
    for (;;) {
        int32_t ci = QUEUE(S, r)[0];
        scoll_t *c = COLL(S, r, ci);
        int32_t prev = c->pc;
        R->t += S->cpu.exec;
        int rc = exec(S, r, ci);
        if (rc < 0) return -1;
        if (rc) {
            finish(S, r, ci);
            R->moved = 1;
            R->walk_pos = 0;
            return walk(S, r);
        }
        if (c->pc != prev) {
            R->moved = 1;
            int32_t waited = R->polls;
            if (S->cfg->learn) add_waited(c, R->polls), waited = c->waited;
            R->budget = dfc_policy_budget_moved(&S->pol, R->budget, waited);
            if (S->cfg->grow && c->preempted_at == prev && R->budget < S->pol.budget_init)
                R->budget = S->pol.budget_init;
            R->polls = 0;
            c->waited = 0;
            continue;
        }
        int64_t left = sim_spin_left(R->polls, R->budget);
        double tr = ready_time(c);
        if (tr < SIM_INF) {
            double j = ceil((tr - R->t - SIM_EPS) / S->cpu.poll);
            if (j < 1) j = 1;
            if (j <= (double)left) { /* j polls, each spin_on saying go on */
                R->polls += (int32_t)j;
                R->t += j * S->cpu.poll;
                continue;
            }
        }
        R->phase = PH_SPIN;
        R->spin_t0 = R->t;
        R->spin_polls0 = R->polls;
        R->spin_left = left;
        sim_wake_at(S, r,
                    R->budget == DFC_POLICY_BUDGET_NEVER ? SIM_INF
                                                         : R->t + (double)left * S->cpu.poll);
        return 0;
    }
}

static int begin_head(sim_t *S, int32_t r, int32_t polls)
{
    srank_t *R = &S->ranks[r];
    scoll_t *h = COLL(S, r, QUEUE(S, r)[0]);
    R->moved = 0;
    R->head_prio = S->cfg->cdefs[QUEUE(S, r)[0]].priority;
    R->budget = h->budget;
    R->polls = polls;
    return head_run(S, r);
}

static int walk(sim_t *S, int32_t r)
{
    srank_t *R = &S->ranks[r];
    int16_t *q = QUEUE(S, r);
    for (int pos = R->walk_pos; pos < R->nq;) {
        int16_t ci = q[pos];
        scoll_t *c = COLL(S, r, ci);
        int32_t start = c->pc;
        R->t += S->cpu.exec;
        int rc = exec(S, r, ci);
        if (rc < 0) return -1;
        if (rc) {
            finish(S, r, ci);
            R->moved = 1;
            continue;
        }
        if (c->pc != start) {
            R->moved = 1;
            c->waited = 0;
            if (S->cfg->grow && c->preempted_at == start && c->budget < S->pol.budget_init)
                c->budget = S->pol.budget_init;
            if (dfc_policy_promote(&S->pol, pos, 1, S->cfg->cdefs[ci].priority, R->head_prio)) {
                memmove(&q[1], &q[0], (size_t)pos * sizeof *q);
                q[0] = ci;
            }
        }
        pos++;
    }
    return end_pass(S, r);
}

static void sleep_enter(sim_t *S, int32_t r)
{
    srank_t *R = &S->ranks[r];
    R->phase = PH_SLEEP;
    R->sleep_t0 = R->t;
    R->budget = COLL(S, r, QUEUE(S, r)[0])->budget;
    R->period = S->cpu.exec * R->nq + (double)sim_spin_left(0, R->budget) * S->cpu.poll +
                S->cpu.pass;
    R->wake = SIM_INF;
    R->gen++;
    for (int pos = 0; pos < R->nq; pos++) {
        double tr = ready_time(COLL(S, r, QUEUE(S, r)[pos]));
        if (tr >= SIM_INF) continue;
        int32_t polls;
        double periods;
        double tw = sleep_check(S, R, pos, tr, &polls, &periods);
        if (tw < R->wake)
            R->wake = tw, R->wake_pos = pos, R->wake_polls = polls, R->wake_periods = periods;
    }
    if (R->wake < SIM_INF) sim_wake_at(S, r, R->wake);
}

static void end_iteration(sim_t *S, int32_t r)
{
    srank_t *R = &S->ranks[r];
    if (++R->iter < S->cfg->iters) {
        R->t += S->cpu.iter_gap + (R->late ? S->cfg->late : 0);
        R->phase = PH_START;
        sim_wake_at(S, r, R->t);
        return;
    }
    R->phase = PH_DONE;
    R->wake = SIM_INF;
    S->res->ranks_done++;
    if (R->t > S->res->time_ns) S->res->time_ns = R->t;
    if (R->preemptions > S->res->max_rank_preemptions)
        S->res->max_rank_preemptions = R->preemptions;
}

static int end_pass(sim_t *S, int32_t r)
{
    srank_t *R = &S->ranks[r];
    R->t += S->cpu.pass;
    if (R->remaining == 0) end_iteration(S, r);
    else if (R->moved) {
        R->phase = PH_PASS;
        sim_wake_at(S, r, R->t);
    } else {
        sleep_enter(S, r);
    }
    return 0;
}

/* ---- Starting an iteration -------------------------------------------------------------- */
/* dfc_chaos's permutation (bench/dfc_chaos.c), for any k: distinct first element across the
 * first k ranks, then a rank-dependent shuffle of the tail. */
static void chaos_order(int32_t *perm, int k, int rank, unsigned seed)
{
    int rot = rank % k;
    for (int i = 0; i < k; i++) perm[i] = (i + rot) % k;
    unsigned s = seed * 2654435761u + (unsigned)rank * 40503u + 1;
    for (int i = k - 1; i > 1; i--) {
        s = s * 1103515245u + 12345u;
        int j = 1 + (int)((s >> 8) % (unsigned)i);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

static void start_order(sim_t *S, int32_t r, int32_t *perm)
{
    const sim_config_t *cfg = S->cfg;
    int k = S->k;
    int iter = S->ranks[r].iter;
    uint64_t s = sim_mix(cfg->seed * 1000003u + (uint64_t)r * 7919u + (uint64_t)iter) | 1;
    if (cfg->orders && cfg->orders[r]) {
        memcpy(perm, cfg->orders[r], (size_t)k * sizeof *perm);
        return;
    }
    for (int i = 0; i < k; i++) perm[i] = i;
    if (cfg->chaos == 1 && k > 1) {
        chaos_order(perm, k, r, (unsigned)(iter + cfg->seed * 7919u));
    } else if (cfg->chaos == 2) {
        for (int i = k - 1; i > 0; i--) {
            int j = (int)(sim_rand(&s) % (uint64_t)(i + 1)), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    } else if (cfg->chaos == 3 && k > 1 && (double)(sim_rand(&s) >> 11) * 0x1p-53 < cfg->disorder) {
        int i = (int)(sim_rand(&s) % (uint64_t)(k - 1)), t = perm[i];
        perm[i] = perm[i + 1];
        perm[i + 1] = t;
    }
}

static int start_iteration(sim_t *S, int32_t r)
{
    srank_t *R = &S->ranks[r];
    int16_t *q = QUEUE(S, r);
    start_order(S, r, S->perm);
    R->remaining = S->k;
    for (int i = 0; i < S->k; i++) {
        int32_t ci = S->perm[i];
        scoll_t *c = COLL(S, r, ci);
        c->pc = c->fence_start = 0;
        c->budget = S->pol.budget_init;
        c->preempted_at = -1;
        c->preemptions = 0;
        c->waited = 0;
        c->active = 1;
        c->starts = (uint8_t)R->iter;
        int32_t prio = S->cfg->cdefs[ci].priority, pos = 0;
        while (pos < R->nq && dfc_policy_runs_before(S->cfg->cdefs[q[pos]].priority, prio)) pos++;
        memmove(&q[pos + 1], &q[pos], (size_t)(R->nq - pos) * sizeof *q);
        q[pos] = (int16_t)ci;
        R->nq++;
        R->t += S->cpu.start;
        int rc = exec(S, r, ci); /* post the first transfers now, as dfc_coll_start does */
        if (rc < 0) return -1;
        if (rc) finish(S, r, ci);
    }
    R->phase = PH_PASS;
    sim_wake_at(S, r, R->t);
    return 0;
}

/* One event of rank r at time t, on a core it holds. */
static int step_phase(sim_t *S, int32_t r, double t)
{
    srank_t *R = &S->ranks[r];
    if (t > R->t) R->t = t;
    S->running = r;
    R->t += R->debt; /* copies of pulled data (cfg->pull) took its CPU */
    R->debt = 0;
    if (R->t < R->busy_until) R->t = R->busy_until;
    switch (R->phase) {
    case PH_START: return start_iteration(S, r);
    case PH_PASS:
        if (R->nq == 0) return end_pass(S, r);
        return begin_head(S, r, 0);
    case PH_SPIN:
        if (group_ready(COLL(S, r, QUEUE(S, r)[0]), R->t)) {
            /* polls until the event (a copy that took the CPU since is no poll) */
            double since = (t > R->spin_t0 ? t : R->spin_t0) - R->spin_t0;
            int64_t polls = llround(since / S->cpu.poll);
            R->polls = R->spin_polls0 + (int32_t)(polls < R->spin_left ? polls : R->spin_left);
            return head_run(S, r);
        }
        return preempt_head(S, r);
    case PH_SLEEP:
        R->t -= S->cpu.exec; /* the check at wake time is the exec that begins now */
        /* the head spun its budget in every pass slept through (and in this one, when the
         * wake-up is for another collective) */
        add_waited(COLL(S, r, QUEUE(S, r)[0]),
                   (R->wake_periods + (R->wake_pos > 0)) * (double)sim_spin_left(0, R->budget));
        if (R->wake_pos == 0) return begin_head(S, r, R->wake_polls);
        R->moved = 0;
        R->head_prio = S->cfg->cdefs[QUEUE(S, r)[0]].priority;
        R->walk_pos = R->wake_pos;
        return walk(S, r);
    default: return 0;
    }
}

int sim_step_rank(sim_t *S, int32_t r, double t)
{
    if (!S->ncores) return step_phase(S, r, t);
    if (!sim_cpu_acquire(S, r, t)) return 0;
    int rc = step_phase(S, r, t);
    sim_cpu_release(S, r);
    return rc;
}
