/*
 * dfc_sim - DFC's collective scheduling simulated for many ranks in one process (issue 22;
 * the model is described in dfc_sim.h and dfc_sim_engine.c, its fitted parameters and
 * results in BENCHMARKS.md).
 *
 * Usage: dfc_sim [options]
 *   -workload chaos|crossed|megatron|FILE   (default chaos)
 *   -ranks N -rpn R          ranks, ranks per node (default 8, 8)
 *   -cores C[,SWITCH,SLICE]  cores per node: at most C of its ranks run at once, a rank that
 *                            takes a core another ran on pays SWITCH ns (default 2000), one
 *                            with work keeps it up to SLICE ns while others wait (default
 *                            1.5e6) (default: one core per rank; dfc_sim_cpu.c)
 *   -k K -counts c1,c2,..    chaos: K persistent allreduces of these float counts (default
 *                            dfc_chaos's eight, 256 .. 1048576)
 *   -rows R                  crossed: an R x (N/R) grid, K allreduces on each row and column
 *   -tp T -dp D -pp P        megatron: tensor, data, pipeline groups (N = T*D*P)
 *   -order chaos|random|same|disorder:P   start orders (default chaos: dfc_chaos's)
 *   -iters I -seeds S -seed X  iterations; seeds X .. X+S-1 (default 5, 1, 1)
 *   -no-preempt              issue order: the head never gives up, never moves aside
 *   -move-to-head 0|1 -budget INIT,MIN,MAX   the policy (default 0; 64,4,4096: the host's)
 *   -intra L,o,G,EAGER -inter L,o,G,EAGER -jitter J   the network (ns, ns, ns/byte, bytes)
 *   -bus G                   ns per byte on a node's memory, shared by all its intra-node
 *                            messages (default 0: no shared limit)
 *   -cpu POLL,EXEC,PASS,START,GAMMA          executor costs (ns, ns/byte)
 *   -poll-peer NS            a poll costs NS more for each other rank on the node (default 0)
 *   -slow N,FACTOR -late N,NS                slow links, late ranks
 *   -alg KIND=NAME           force an algorithm (sets DFC_<KIND>_ALGORITHM)
 *   -learn                   experiment: stickiness also counts the polls of earlier passes
 *                            at the same wait point (not DFC's policy; BENCHMARKS.md)
 *   -grow                    experiment: a collective that moves past the wait point where
 *                            it was preempted gets its budget back to INIT (no collapse to
 *                            MIN; not DFC's policy; BENCHMARKS.md)
 *   -pull                    intra-node rendezvous data pulled by the receiver's CPU (shm's
 *                            process_vm_readv), not moved by the network beside it
 *   -dump                    on a deadlock, every rank's queue and open transfers (stderr)
 *   -no-consistent -csv -q
 * Exit status: 0 when every run completed, 2 when one deadlocked, 1 on a usage error.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfc_sim.h"

int dfc_sim_workload_file(const char *path, sim_config_t *cfg); /* dfc_sim_file.c */

static const int chaos_counts[8] = {256, 147456, 2048, 1024, 65536, 147456, 524288, 1048576};

typedef struct opts {
    const char *workload;
    int k, rows, tp, dp, pp, seeds, consistent, csv, quiet;
    int ncounts;
    uint64_t counts[64];
} opts_t;

static int add_comm(sim_config_t *cfg, const char *name, int32_t stride, int32_t size)
{
    if (size < 1 || stride < 1 || cfg->nranks % (stride * size)) {
        fprintf(stderr, "dfc_sim: communicator %s (stride %d, size %d) does not tile %d ranks\n",
                name, stride, size, cfg->nranks);
        return -1;
    }
    sim_comm_t *c = &cfg->comms[cfg->ncomm++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->stride = stride;
    c->size = size;
    return cfg->ncomm - 1;
}

static void add_coll(sim_config_t *cfg, int comm, dfc_coll_kind_t kind, uint64_t count,
                     const char *fmt, int i)
{
    sim_cdef_t *d = &cfg->cdefs[cfg->ncdef++];
    snprintf(d->name, sizeof d->name, fmt, i);
    d->comm = comm;
    d->kind = kind;
    d->count = count;
    d->elem = 4;
    d->bytes = count * 4;
}

/* The built-in workloads: chaos (k allreduces on the world), crossed (k on each row and
 * column of a grid), megatron (allreduces on tensor and data groups, allgathers on
 * pipeline groups). */
static int build_workload(const opts_t *o, sim_config_t *cfg)
{
    static sim_comm_t comms[8];
    static sim_cdef_t cdefs[1024];
    cfg->comms = comms;
    cfg->cdefs = cdefs;
    int k = o->k, n = cfg->nranks;
    if (!strcmp(o->workload, "chaos")) {
        int w = add_comm(cfg, "world", 1, n);
        if (w < 0) return -1;
        for (int i = 0; i < k; i++)
            add_coll(cfg, w, DFC_COLL_ALLREDUCE, o->counts[i % o->ncounts], "ar%d", i);
    } else if (!strcmp(o->workload, "crossed")) {
        int rows = o->rows ? o->rows : 2;
        int row = add_comm(cfg, "row", 1, n / rows), col = add_comm(cfg, "col", n / rows, rows);
        if (row < 0 || col < 0) return -1;
        for (int i = 0; i < k; i++) {
            add_coll(cfg, row, DFC_COLL_ALLREDUCE, o->counts[i % o->ncounts], "row%d", i);
            add_coll(cfg, col, DFC_COLL_ALLREDUCE, o->counts[(i + 1) % o->ncounts], "col%d", i);
        }
    } else if (!strcmp(o->workload, "megatron")) {
        int tp = o->tp ? o->tp : 1, dp = o->dp ? o->dp : 1, pp = o->pp ? o->pp : 1;
        if (tp * dp * pp != n) {
            fprintf(stderr, "dfc_sim: -tp %d -dp %d -pp %d makes %d ranks, not %d\n", tp, dp, pp,
                    tp * dp * pp, n);
            return -1;
        }
        int t = add_comm(cfg, "tensor", 1, tp), d = add_comm(cfg, "data", tp, dp);
        int p = add_comm(cfg, "pipe", tp * dp, pp);
        if (t < 0 || d < 0 || p < 0) return -1;
        for (int i = 0; i < k; i++) { /* activations (small), gradients (large), stage edges */
            add_coll(cfg, t, DFC_COLL_ALLREDUCE, o->counts[i % o->ncounts] / 4 + 1, "tp%d", i);
            add_coll(cfg, d, DFC_COLL_ALLREDUCE, o->counts[i % o->ncounts], "dp%d", i);
            add_coll(cfg, p, DFC_COLL_ALLGATHER, 0, "pp%d", i);
            cfg->cdefs[cfg->ncdef - 1].bytes = 4096;
        }
    } else {
        return dfc_sim_workload_file(o->workload, cfg);
    }
    return 0;
}

static int parse_list(const char *s, double *v, int max)
{
    int n = 0;
    while (n < max && *s) {
        char *end;
        v[n++] = strtod(s, &end);
        if (end == s) return -1;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return n;
}

static double percentile(const uint64_t *hist, uint64_t total, double p)
{
    uint64_t want = (uint64_t)((double)total * p + 0.5), acc = 0;
    if (!total) return 0;
    for (int i = 0; i < SIM_HIST; i++) {
        acc += hist[i];
        if (acc >= want && acc) return i;
    }
    return SIM_HIST - 1;
}

static int usage(const char *msg)
{
    fprintf(stderr, "dfc_sim: %s (see the comment at the top of bench/dfc_sim.c)\n", msg);
    return 1;
}

/* One if-chain over the options, the usage comment at the top in code: longer than 80 lines
 * only because there are that many options. */
static int parse_args(int argc, char **argv, opts_t *o, sim_config_t *cfg)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double x[8];
        int n;
#define TAKE() (i++, v)                  /* v is not NULL here */
        if (!strcmp(a, "-no-preempt")) { /* issue order, as NCCL: no budget end, no promotion */
            cfg->policy.budget_init = cfg->policy.budget_max = DFC_POLICY_BUDGET_NEVER;
            cfg->policy.move_to_head = 0;
        } else if (!strcmp(a, "-no-consistent")) o->consistent = 0;
        else if (!strcmp(a, "-csv")) o->csv = 1;
        else if (!strcmp(a, "-q")) o->quiet = 1;
        else if (!strcmp(a, "-learn")) cfg->learn = 1;
        else if (!strcmp(a, "-grow")) cfg->grow = 1;
        else if (!strcmp(a, "-pull")) cfg->pull = 1;
        else if (!strcmp(a, "-dump")) cfg->verbose = 1;
        else if (!v) return usage("an option without its value");
        else if (!strcmp(a, "-workload")) o->workload = TAKE();
        else if (!strcmp(a, "-ranks")) cfg->nranks = atoi(TAKE());
        else if (!strcmp(a, "-rpn")) cfg->rpn = atoi(TAKE());
        else if (!strcmp(a, "-k")) o->k = atoi(TAKE());
        else if (!strcmp(a, "-rows")) o->rows = atoi(TAKE());
        else if (!strcmp(a, "-tp")) o->tp = atoi(TAKE());
        else if (!strcmp(a, "-dp")) o->dp = atoi(TAKE());
        else if (!strcmp(a, "-pp")) o->pp = atoi(TAKE());
        else if (!strcmp(a, "-iters")) cfg->iters = atoi(TAKE());
        else if (!strcmp(a, "-seeds")) o->seeds = atoi(TAKE());
        else if (!strcmp(a, "-seed")) cfg->seed = strtoull(TAKE(), NULL, 0);
        else if (!strcmp(a, "-move-to-head")) cfg->policy.move_to_head = atoi(TAKE()) != 0;
        else if (!strcmp(a, "-order")) {
            const char *m = TAKE();
            if (!strcmp(m, "chaos")) cfg->chaos = 1;
            else if (!strcmp(m, "random")) cfg->chaos = 2;
            else if (!strcmp(m, "same")) cfg->chaos = 0;
            else if (!strncmp(m, "disorder:", 9)) cfg->chaos = 3, cfg->disorder = atof(m + 9);
            else return usage("-order takes chaos, random, same or disorder:P");
        } else if (!strcmp(a, "-counts")) {
            double c[64];
            if ((n = parse_list(TAKE(), c, 64)) < 1) return usage("bad -counts");
            for (int j = 0; j < n; j++) o->counts[j] = (uint64_t)c[j];
            o->ncounts = n;
        } else if (!strcmp(a, "-budget")) {
            if (parse_list(TAKE(), x, 3) != 3) return usage("-budget takes INIT,MIN,MAX");
            cfg->policy = dfc_policy_make((int64_t)x[0], (int64_t)x[1], (int64_t)x[2],
                                          cfg->policy.move_to_head);
        } else if (!strcmp(a, "-intra") || !strcmp(a, "-inter")) {
            sim_link_t *l = &cfg->link[!strcmp(a, "-intra") ? SIM_INTRA : SIM_INTER];
            if (parse_list(TAKE(), x, 4) != 4) return usage("-intra/-inter take L,o,G,EAGER");
            l->L = x[0], l->o = x[1], l->G = x[2], l->eager = x[3];
        } else if (!strcmp(a, "-cores")) {
            if ((n = parse_list(TAKE(), x, 3)) < 1) return usage("-cores takes C[,SWITCH,SLICE]");
            cfg->cores = (int32_t)x[0];
            if (n > 1) cfg->cpu_switch = x[1];
            if (n > 2) cfg->cpu_slice = x[2];
        } else if (!strcmp(a, "-poll-peer")) {
            cfg->cpu.poll_peer = atof(TAKE());
        } else if (!strcmp(a, "-bus")) {
            cfg->bus_G = atof(TAKE());
        } else if (!strcmp(a, "-jitter")) {
            cfg->link[0].jitter = cfg->link[1].jitter = atof(TAKE());
        } else if (!strcmp(a, "-cpu")) {
            if (parse_list(TAKE(), x, 5) != 5)
                return usage("-cpu takes POLL,EXEC,PASS,START,GAMMA");
            cfg->cpu.poll = x[0], cfg->cpu.exec = x[1], cfg->cpu.pass = x[2], cfg->cpu.start = x[3];
            cfg->cpu.gamma = x[4];
        } else if (!strcmp(a, "-slow")) {
            if (parse_list(TAKE(), x, 2) != 2) return usage("-slow takes N,FACTOR");
            cfg->nslow = (int32_t)x[0], cfg->slow_factor = x[1];
        } else if (!strcmp(a, "-late")) {
            if (parse_list(TAKE(), x, 2) != 2) return usage("-late takes N,NS");
            cfg->nlate = (int32_t)x[0], cfg->late = x[1];
        } else if (!strcmp(a, "-alg")) {
            const char *s = TAKE(), *eq = strchr(s, '=');
            char name[64];
            int j = snprintf(name, sizeof name, "DFC_");
            if (!eq) return usage("-alg takes KIND=NAME");
            for (const char *p = s; p < eq && j < 40; p++)
                name[j++] = (char)toupper((unsigned char)*p);
            snprintf(name + j, sizeof name - j, "_ALGORITHM");
            setenv(name, eq + 1, 1);
        } else {
            return usage("unknown option");
        }
#undef TAKE
    }
    if (cfg->nranks < 2) return usage("-ranks must be at least 2");
    if (cfg->rpn <= 0) cfg->rpn = cfg->nranks < 8 ? cfg->nranks : 8;
    if (o->k < 1 || o->k > 300) return usage("-k must be 1..300");
    if (cfg->iters < 1 || o->seeds < 1) return usage("-iters and -seeds must be positive");
    return 0;
}

static void print_run(const opts_t *o, const sim_config_t *cfg, const sim_result_t *r,
                      const sim_result_t *same, int header)
{
    const char *order[] = {"same", "chaos", "random", "disorder"};
    double ppc = r->instances ? (double)r->preemptions / (double)r->instances : 0;
    double over = same && same->time_ns > 0 && !same->deadlock && !r->deadlock
                      ? 100.0 * (r->time_ns - same->time_ns) / same->time_ns
                      : 0;
    int preempt = cfg->policy.budget_max != DFC_POLICY_BUDGET_NEVER;
    if (o->csv) {
        if (header)
            printf("workload,ranks,rpn,colls,iters,seed,order,preempt,move_to_head,result,time_ms,"
                   "consistent_ms,overhead_pct,preempt_per_coll,p50,p90,p99,max,max_rank,events,"
                   "wall_s,consistent_preempt_per_coll\n");
        printf(
            "%s,%d,%d,%d,%d,%llu,%s,%d,%d,%s,%.4f,%.4f,%.2f,%.4f,%g,%g,%g,%g,%llu,%llu,%.2f,%.4f\n",
            o->workload, cfg->nranks, cfg->rpn, cfg->ncdef, cfg->iters,
            (unsigned long long)cfg->seed, order[cfg->chaos], preempt, cfg->policy.move_to_head,
            r->deadlock ? "deadlock" : "completed", r->time_ns * 1e-6,
            same ? same->time_ns * 1e-6 : 0, over, ppc, percentile(r->hist, r->instances, 0.5),
            percentile(r->hist, r->instances, 0.9), percentile(r->hist, r->instances, 0.99),
            percentile(r->hist, r->instances, 1.0), (unsigned long long)r->max_rank_preemptions,
            (unsigned long long)r->events, r->wall_s,
            same && same->instances ? (double)same->preemptions / (double)same->instances : 0);
        return;
    }
    if (o->quiet && !r->deadlock) return;
    printf("dfc_sim: %s, %d ranks (%d per node), %d collectives x %d iterations, seed %llu, "
           "order %s, preemption %s, move-to-head %d\n",
           o->workload, cfg->nranks, cfg->rpn, cfg->ncdef, cfg->iters,
           (unsigned long long)cfg->seed, order[cfg->chaos], preempt ? "on" : "off",
           cfg->policy.move_to_head);
    if (header)
        for (int i = 0; i < cfg->ncdef && i < 12; i++)
            printf("  %-8s on %-6s %-10s %10llu B  %s\n", cfg->cdefs[i].name,
                   cfg->comms[cfg->cdefs[i].comm].name, dfc_coll_kind_name(cfg->cdefs[i].kind),
                   (unsigned long long)(cfg->cdefs[i].count
                                            ? cfg->cdefs[i].count * cfg->cdefs[i].elem
                                            : cfg->cdefs[i].bytes),
                   cfg->cdefs[i].algorithm ? cfg->cdefs[i].algorithm : "?");
    if (r->deadlock) {
        printf("  DEADLOCK: %d of %d ranks finished; wait-for cycle: %s\n", r->ranks_done,
               cfg->nranks, r->cycle);
    } else {
        printf("  completed in %.3f ms simulated", r->time_ns * 1e-6);
        if (same && !same->deadlock)
            printf("; consistent order %.3f ms (%.3f preemptions per collective); overhead %.1f %%",
                   same->time_ns * 1e-6,
                   same->instances ? (double)same->preemptions / same->instances : 0, over);
        printf("\n");
    }
    printf("  preemptions per collective: %.3f (p50 %g, p90 %g, p99 %g, max %g; most on one rank "
           "%llu)\n",
           ppc, percentile(r->hist, r->instances, 0.5), percentile(r->hist, r->instances, 0.9),
           percentile(r->hist, r->instances, 0.99), percentile(r->hist, r->instances, 1.0),
           (unsigned long long)r->max_rank_preemptions);
    printf("  %llu events, %llu messages (%llu unexpected), schedules %.1f MB, %.2f s wall\n",
           (unsigned long long)r->events, (unsigned long long)r->messages,
           (unsigned long long)r->unexpected, (double)r->sched_bytes / 1e6, r->wall_s);
    if (cfg->cores > 0 && cfg->cores < cfg->rpn)
        printf("  %d cores per node: %llu switches, %llu waits for a core\n", cfg->cores,
               (unsigned long long)r->switches, (unsigned long long)r->cpu_waits);
}

int main(int argc, char **argv)
{
    opts_t o = {.workload = "chaos", .k = 8, .seeds = 1, .consistent = 1, .ncounts = 8};
    for (int i = 0; i < 8; i++) o.counts[i] = (uint64_t)chaos_counts[i];
    sim_config_t cfg;
    sim_config_defaults(&cfg);
    cfg.nranks = 8;
    if (parse_args(argc, argv, &o, &cfg)) return 1;
    if (build_workload(&o, &cfg)) return 1;
    int deadlocks = 0, runs = 0;
    uint64_t seed0 = cfg.seed;
    for (int s = 0; s < o.seeds; s++) {
        cfg.seed = seed0 + (uint64_t)s;
        sim_result_t r, same;
        if (sim_run(&cfg, &r) != DFC_SUCCESS) return 1;
        int have_same = 0;
        if (o.consistent && cfg.chaos && !cfg.orders) {
            sim_config_t c2 = cfg;
            c2.chaos = 0;
            if (sim_run(&c2, &same) != DFC_SUCCESS) return 1;
            have_same = 1;
        }
        print_run(&o, &cfg, &r, have_same ? &same : NULL, s == 0);
        deadlocks += r.deadlock;
        runs++;
    }
    if (o.seeds > 1 && !o.csv)
        printf("dfc_sim: %d of %d seeds deadlocked (%.1f %%)\n", deadlocks, runs,
               100.0 * deadlocks / runs);
    fflush(stdout);
    return deadlocks ? 2 : 0;
}
