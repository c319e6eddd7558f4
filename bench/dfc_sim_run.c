/*
 * dfc_sim_run.c - one simulation run (dfc_sim.h's sim_run): every rank's schedules from DFC's
 * generators, the event loop, and on a deadlock the wait-for cycle, named.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dfc_sim_int.h"

/* ---- Building every rank's schedules ------------------------------------------------------ */
/* Rank w's schedule of cdef d, from DFC's own selection and generator, compacted to what the
 * simulation needs (kind, world peer, bytes, pair ordinal). */
static int build_one(sim_t *S, int32_t w, int d, int32_t *nsend, int32_t *nrecv, int32_t *maxgroup)
{
    sim_config_t *cfg = (sim_config_t *)S->cfg;
    sim_cdef_t *cd = &cfg->cdefs[d];
    const sim_comm_t *cm = &cfg->comms[cd->comm];
    int32_t crank = (w / cm->stride) % cm->size, base = w - crank * cm->stride;
    dfc_coll_args_t a = {.kind = cd->kind,
                         .rank = crank,
                         .size = cm->size,
                         .root = cd->root,
                         .commutative = 1,
                         .count = cd->count,
                         .elem = cd->elem,
                         .sbytes = cd->bytes,
                         .rbytes = cd->bytes,
                         .selem = cd->elem,
                         .relem = cd->elem};
    const dfc_coll_algo_t *al = dfc_coll_select(&a);
    if (!al) {
        fprintf(stderr, "dfc_sim: no algorithm for collective %s\n", cd->name);
        return -1;
    }
    cd->algorithm = al->name;
    dfc_sched_t sc;
    dfc_sched_init(&sc);
    if (al->build(&a, &sc) != DFC_SUCCESS) {
        fprintf(stderr, "dfc_sim: building %s (%s) for rank %d failed\n", cd->name, al->name, w);
        dfc_sched_destroy(&sc);
        return -1;
    }
    scoll_t *c = COLL(S, w, d);
    c->nsteps = sc.nsteps;
    c->steps = malloc((size_t)(sc.nsteps ? sc.nsteps : 1) * sizeof *c->steps);
    if (!c->steps) return -1;
    int32_t group = 0, ok = 1;
    for (int32_t i = 0; i < sc.nsteps; i++) {
        const dfc_step_t *st = &sc.steps[i];
        sstep_t *o = &c->steps[i];
        o->kind = st->kind;
        o->peer = base + st->peer * cm->stride;
        o->bytes = st->kind == DFC_STEP_REDUCE ? st->count * cd->elem : st->bytes;
        if (st->kind == DFC_STEP_SEND || st->kind == DFC_STEP_RECV ||
            st->kind == DFC_STEP_RECV_REDUCE) {
            int32_t *cnt = st->kind == DFC_STEP_SEND ? nsend : nrecv;
            if (cnt[o->peer] > 0xffff) ok = 0;
            o->seq = (uint16_t)cnt[o->peer]++;
            group++;
        } else {
            if (group > *maxgroup) *maxgroup = group;
            group = 0;
        }
    }
    if (group > *maxgroup) *maxgroup = group;
    for (int32_t i = 0; i < sc.nsteps; i++) nsend[c->steps[i].peer] = nrecv[c->steps[i].peer] = 0;
    S->res->sched_bytes += (size_t)sc.nsteps * sizeof(sstep_t);
    dfc_sched_destroy(&sc);
    if (!ok)
        fprintf(stderr, "dfc_sim: more than 65536 transfers between one pair in %s\n", cd->name);
    return ok ? 0 : -1;
}

static int build_all(sim_t *S)
{
    int32_t *nsend = calloc((size_t)S->n, sizeof *nsend),
            *nrecv = calloc((size_t)S->n, sizeof *nrecv);
    int rc = nsend && nrecv ? 0 : -1;
    for (int32_t w = 0; w < S->n && !rc; w++) {
        int32_t maxgroup = 0;
        for (int d = 0; d < S->k && !rc; d++) rc = build_one(S, w, d, nsend, nrecv, &maxgroup);
        if (rc) break;
        for (int d = 0; d < S->k && !rc; d++) {
            scoll_t *c = COLL(S, w, d);
            c->xt = malloc((size_t)(maxgroup ? maxgroup : 1) * sizeof *c->xt);
            if (!c->xt) rc = -1;
        }
    }
    free(nsend);
    free(nrecv);
    return rc;
}

/* ---- Deadlock: the wait-for cycle ------------------------------------------------------- */
/* Who rank r waits for: the first transfer of unknown completion in its head (or, when
 * preempted, in the first collective that has one). -1 if none. */
static int32_t waits_for(sim_t *S, int32_t r, int32_t *ci_out, int32_t *step_out)
{
    srank_t *R = &S->ranks[r];
    for (int pos = 0; pos < R->nq; pos++) {
        int32_t ci = QUEUE(S, r)[pos];
        scoll_t *c = COLL(S, r, ci);
        for (int32_t i = c->fence_start; i < c->pc; i++)
            if (c->xt[i - c->fence_start] >= SIM_INF) {
                *ci_out = ci;
                *step_out = i;
                return c->steps[i].peer;
            }
    }
    return -1;
}

static void name_cycle(sim_t *S)
{
    sim_result_t *res = S->res;
    int32_t *seen = calloc((size_t)(uint32_t)S->n, sizeof *seen);
    int32_t start = -1, r, ci = 0, step = 0;
    for (r = 0; r < S->n && start < 0; r++)
        if (S->ranks[r].phase != PH_DONE) start = r;
    if (!seen || start < 0) {
        free(seen);
        return;
    }
    /* follow the edges until a rank comes back: that rank is on the cycle */
    int32_t stamp = 1;
    for (r = start; r >= 0 && !seen[r]; r = waits_for(S, r, &ci, &step)) seen[r] = stamp++;
    if (r < 0) {
        snprintf(res->cycle, sizeof res->cycle,
                 "rank %d waits with no transfer pending (a workload "
                 "that never completes, not a cycle)",
                 start);
        free(seen);
        return;
    }
    size_t len = 0;
    int32_t first = r, n = 0;
    do {
        int32_t next = waits_for(S, r, &ci, &step);
        const sstep_t *st = &COLL(S, r, ci)->steps[step];
        if (n++ < 8)
            len += (size_t)snprintf(res->cycle + len, sizeof res->cycle - len,
                                    "rank %d (%s step %d: %s rank %d) -> ", r,
                                    S->cfg->cdefs[ci].name, step,
                                    st->kind == DFC_STEP_SEND ? "send to" : "recv from", next);
        if (len >= sizeof res->cycle) break;
        r = next;
    } while (r != first);
    if (len < sizeof res->cycle)
        snprintf(res->cycle + len, sizeof res->cycle - len, "%srank %d (%d ranks in the cycle)",
                 n > 8 ? "... -> " : "", first, n);
    free(seen);
}

/* ---- The run ------------------------------------------------------------------------------ */
static int setup(sim_t *S, const sim_config_t *cfg, sim_result_t *res)
{
    memset(S, 0, sizeof *S);
    memset(res, 0, sizeof *res);
    S->cfg = cfg;
    S->res = res;
    S->pol = cfg->policy;
    S->cpu = cfg->cpu;
    S->n = cfg->nranks;
    S->k = cfg->ncdef;
    if (cfg->cpu.poll <= 0) {
        fprintf(stderr, "dfc_sim: a poll must take some time (-cpu POLL > 0)\n");
        return -1;
    }
    if (S->k < 1 || S->k > 1023 || S->n < 1 || S->n > 32767) {
        fprintf(stderr, "dfc_sim: 1..1023 collectives and 1..32767 ranks are supported\n");
        return -1;
    }
    S->ranks = calloc((size_t)S->n, sizeof *S->ranks);
    S->colls = calloc((size_t)S->n * S->k, sizeof *S->colls);
    S->queues = calloc((size_t)S->n * S->k, sizeof *S->queues);
    S->perm = calloc((size_t)S->k, sizeof *S->perm);
    if (!S->ranks || !S->colls || !S->queues || !S->perm || sim_clock_init(&S->clock) ||
        sim_net_init(&S->net, S->n, cfg->rpn, cfg->seed))
        return -1;
    int32_t on_node = cfg->rpn < S->n ? cfg->rpn : S->n;
    S->cpu.poll += cfg->cpu.poll_peer * (double)(on_node - 1); /* before the scaling below */
    memcpy(S->net.link, cfg->link, sizeof S->net.link);
    S->net.bus_G = cfg->bus_G;
    if (sim_msg_grow(S) || sim_cpu_init(S)) return -1;
    S->rng = sim_mix(cfg->seed + 77) | 1;
    if (cfg->nslow > 0) {
        S->net.slow = calloc((size_t)S->n, 1);
        if (!S->net.slow) return -1;
        S->net.slow_factor = cfg->slow_factor;
        for (int32_t i = 0; i < cfg->nslow && i < S->n; i++)
            S->net.slow[sim_rand(&S->rng) % (uint64_t)S->n] = 1;
    }
    for (int32_t i = 0; i < cfg->nlate && i < S->n; i++)
        S->ranks[sim_rand(&S->rng) % (uint64_t)S->n].late = 1;
    return build_all(S);
}

static void teardown(sim_t *S)
{
    if (S->colls)
        for (size_t i = 0; i < (size_t)S->n * S->k; i++) {
            free(S->colls[i].steps);
            free(S->colls[i].xt);
        }
    free(S->colls);
    free(S->ranks);
    free(S->queues);
    free(S->perm);
    free(S->msgs);
    sim_cpu_destroy(S);
    sim_clock_destroy(&S->clock);
    sim_net_destroy(&S->net);
}

int sim_run(const sim_config_t *cfg, sim_result_t *res)
{
    sim_t S;
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    int rc = setup(&S, cfg, res);
    for (int32_t r = 0; r < S.n && !rc; r++) {
        S.ranks[r].phase = PH_START;
        S.ranks[r].wake = SIM_INF;
        sim_wake_at(&S, r, S.ranks[r].late ? cfg->late : 0);
    }
    sim_event_t ev;
    while (!rc && sim_clock_pop(&S.clock, &ev)) {
        if (ev.gen != S.ranks[ev.rank].gen) continue; /* moved earlier since */
        res->events++;
        S.ranks[ev.rank].wake = SIM_INF;
        S.net.now = ev.t;
        rc = sim_step_rank(&S, ev.rank, ev.t);
    }
    if (!rc && res->ranks_done < S.n) {
        res->deadlock = 1;
        if (cfg->verbose) /* every rank's queue and open transfers, for debugging */
            for (int32_t r = 0; r < S.n; r++) {
                srank_t *R = &S.ranks[r];
                fprintf(stderr, "rank %d phase %d iter %d t %.0f nq %d:", r, R->phase, R->iter,
                        R->t, R->nq);
                for (int p = 0; p < R->nq; p++) {
                    scoll_t *c = COLL(&S, r, QUEUE(&S, r)[p]);
                    fprintf(stderr, " %s pc %d/%d fs %d [", cfg->cdefs[QUEUE(&S, r)[p]].name, c->pc,
                            c->nsteps, c->fence_start);
                    for (int i = c->fence_start; i < c->pc; i++)
                        fprintf(stderr, " %d:%d>%d:%g", i, c->steps[i].kind, c->steps[i].peer,
                                c->xt[i - c->fence_start]);
                    fprintf(stderr, "]");
                }
                fprintf(stderr, "\n");
            }
        name_cycle(&S);
    }
    if (rc)
        fprintf(stderr, "dfc_sim: cannot run this workload (out of memory, or the error above)\n");
    teardown(&S);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    res->wall_s = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
    return rc ? DFC_ERR_NO_MEM : DFC_SUCCESS;
}

void sim_config_defaults(sim_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->iters = 5;
    cfg->chaos = 1;
    cfg->policy = dfc_policy_make(64, 4, 4096, 0); /* the host's defaults */
    /* Fitted to bench/dfc_chaos at 4 and 8 ranks on the 2-core machine (BENCHMARKS.md). */
    cfg->cpu = (sim_cpu_t){.poll = 150,
                           .exec = 100,
                           .pass = 300,
                           .start = 500,
                           .gamma = 0.25,
                           .copy = 0.1,
                           .iter_gap = 1000};
    cfg->link[SIM_INTRA] =
        (sim_link_t){.L = 600, .o = 300, .G = 0.2, .eager = 16384, .jitter = 0.1};
    cfg->link[SIM_INTER] =
        (sim_link_t){.L = 2000, .o = 500, .G = 0.08, .eager = 16384, .jitter = 0.1};
    cfg->slow_factor = 1;
    cfg->cpu_switch = 2000; /* a sched_yield to a peer on the same core (2-core machine) */
    cfg->cpu_slice = 1.5e6; /* EEVDF's base slice on 2 CPUs: 0.75 ms x (1 + log2 2) */
    cfg->seed = 1;
}
