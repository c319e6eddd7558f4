/*
 * test_sim.c - the simulator of bench/dfc_sim (dfc_sim.h): its clock, its network model,
 * the closed form it uses for spins against dfc_policy_spin_on, the policy's functions,
 * and whole runs: determinism per seed, the deadlock that preemption prevents (with its
 * wait-for cycle named), and 1,000 ranks of the chaos workload to completion (the CI run of
 * issue 22). Timings are printed, never asserted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfc_sim.h"

static int failures;
#define CHECK(cond, ...)                                           \
    do {                                                           \
        if (!(cond)) {                                             \
            failures++;                                            \
            fprintf(stderr, "test_sim:%d: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                          \
            fprintf(stderr, "\n");                                 \
        }                                                          \
    } while (0)

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-9; }

/* Random events pop in (time, push order) order; a push into the past lands at `now`. */
static void test_clock(void)
{
    sim_clock_t c;
    CHECK(sim_clock_init(&c) == 0, "init");
    uint64_t s = 42;
    enum { N = 20000 };
    for (int i = 0; i < N; i++)
        CHECK(sim_clock_push(&c, (double)(sim_rand(&s) % 500), i, 0) == 0, "push");
    sim_event_t prev = {-1, 0, -1, 0}, e;
    int n = 0;
    while (sim_clock_pop(&c, &e)) {
        CHECK(e.t > prev.t || (e.t == prev.t && e.rank > prev.rank),
              "event %d (t %g rank %d) after "
              "(t %g rank %d)",
              n, e.t, e.rank, prev.t, prev.rank);
        CHECK(c.now == e.t, "now %g after popping %g", c.now, e.t);
        prev = e;
        n++;
    }
    CHECK(n == N, "popped %d of %d", n, N);
    double now = c.now;
    sim_clock_push(&c, now - 100, 1, 7);
    CHECK(sim_clock_pop(&c, &e) && e.t == now && e.rank == 1 && e.gen == 7,
          "a push before now pops at now (%g): got t %g rank %d gen %u", now, e.t, e.rank, e.gen);
    sim_clock_destroy(&c);
}

/* LogGP times per class: L, G per byte at both ports, serialization, classes by node. */
static void test_network(void)
{
    sim_net_t n;
    CHECK(sim_net_init(&n, 16, 4, 1) == 0, "init");
    n.link[SIM_INTRA] = (sim_link_t){.L = 100, .o = 10, .G = 0.5, .eager = 1000, .jitter = 0};
    n.link[SIM_INTER] = (sim_link_t){.L = 1000, .o = 20, .G = 0.1, .eager = 4000, .jitter = 0};
    CHECK(sim_net_class(&n, 0, 3) == SIM_INTRA && sim_net_class(&n, 3, 4) == SIM_INTER &&
              sim_net_class(&n, 15, 12) == SIM_INTRA,
          "classes by rank / rpn");
    double t = sim_net_data(&n, 0, 1, 1000, 50);
    CHECK(near(t, 50 + 500 + 100), "intra 1000 B at 50: %g, want 650", t);
    t = sim_net_data(&n, 0, 2, 1000, 60); /* src port busy until 550 */
    CHECK(near(t, 550 + 500 + 100), "second message from the same port: %g, want 1150", t);
    t = sim_net_data(&n, 3, 1, 1000, 0); /* dst 1 took bytes until 650: 650 + 500 */
    CHECK(near(t, 1150), "second message into one port: %g, want 1150", t);
    /* Ranks post out of time order: a port taken at 10,000 by a rank that ran ahead leaves
     * its gap before free for a message posted later at an earlier time (one port's "free
     * at" made those wait behind the future one, and consistent order 10-100x slower). */
    t = sim_net_data(&n, 12, 13, 1000, 10000);
    CHECK(near(t, 10600), "a message at 10000: %g, want 10600", t);
    t = sim_net_data(&n, 12, 14, 1000, 0);
    CHECK(near(t, 600), "the same out port earlier: %g, want 600 (the gap)", t);
    t = sim_net_data(&n, 15, 13, 1000, 0);
    CHECK(near(t, 600), "the same in port earlier: %g, want 600 (the gap)", t);
    t = sim_net_data(&n, 15, 13, 1000, 9800); /* in port 13 taken 10100-10600: after it */
    CHECK(near(t, 11100), "into a port taken then: %g, want 11100", t);
    t = sim_net_data(&n, 4, 9, 10000, 0);
    CHECK(near(t, 10000 * 0.1 + 1000), "inter 10000 B: %g, want 2000", t);
    CHECK(near(sim_net_ctrl(&n, 0, 8, 5), 1005), "control message: L only");
    CHECK(sim_net_eager(&n, 0, 1, 1000) && !sim_net_eager(&n, 0, 1, 1001) &&
              sim_net_eager(&n, 0, 5, 4000),
          "eager limits per class");
    n.link[SIM_INTER].jitter = 0.5;
    for (int i = 0; i < 1000; i++) {
        double c = sim_net_ctrl(&n, 0, 8, 0);
        CHECK(c >= 1000 && c < 1500, "jittered latency %g outside [1000, 1500)", c);
    }
    n.slow = calloc(16, 1);
    n.slow[5] = 1;
    n.slow_factor = 3;
    n.link[SIM_INTER].jitter = 0;
    CHECK(near(sim_net_ctrl(&n, 0, 5, 0), 3000), "a slow rank's latency times 3");
    sim_net_destroy(&n);
}

/* The node's memory (bus_G): a message takes the earliest gap long enough at or after its
 * start, so messages of different ports on one node serialize there, other nodes do not. */
static void test_bus(void)
{
    sim_busy_t b = {0};
    CHECK(sim_busy_take(&b, 100, 50, 0) == 100, "an empty bus: at once");
    CHECK(sim_busy_take(&b, 0, 50, 0) == 0, "a gap before a later interval is used");
    CHECK(sim_busy_take(&b, 0, 60, 0) == 150, "a gap too short is skipped");
    CHECK(sim_busy_take(&b, 120, 10, 0) == 210, "after the intervals it overlaps");
    CHECK(b.n == 4, "%zu intervals, want 4", b.n);
    CHECK(sim_busy_take(&b, 300, 10, 160) == 300 && b.n == 3,
          "intervals ended by now are dropped: %zu left, want 3", b.n);
    free(b.t);

    sim_net_t n;
    CHECK(sim_net_init(&n, 8, 4, 1) == 0, "init");
    n.link[SIM_INTRA] = (sim_link_t){.L = 100, .o = 0, .G = 0.5, .eager = 1 << 20, .jitter = 0};
    n.link[SIM_INTER] = (sim_link_t){.L = 1000, .o = 0, .G = 0.1, .eager = 1 << 20, .jitter = 0};
    n.bus_G = 1;
    double t = sim_net_data(&n, 0, 1, 1000, 0);
    CHECK(near(t, 1000 + 100), "the bus is slower than the port: %g, want 1100", t);
    t = sim_net_data(&n, 2, 3, 1000, 0); /* other ports, same node: waits for the bus */
    CHECK(near(t, 2000 + 100), "second message on one node's bus: %g, want 2100", t);
    t = sim_net_data(&n, 4, 5, 1000, 0);
    CHECK(near(t, 1100), "another node has its own bus: %g, want 1100", t);
    t = sim_net_data(&n, 0, 6, 1000, 0); /* inter-node: its own port class, no bus */
    CHECK(near(t, 100 + 1000), "inter-node messages do not take the bus: %g, want 1100", t);
    n.now = 5000; /* the bus is free again: a message at 6000 leaves at once */
    t = sim_net_data(&n, 1, 2, 100, 6000);
    CHECK(near(t, 6000 + 100 + 100), "a free bus: %g, want 6200", t);
    sim_net_destroy(&n);
}

/* The engine jumps over spins with sim_spin_left; it must agree with the policy's loop. */
static void test_policy(void)
{
    for (int32_t budget = 1; budget < 70; budget++)
        for (int32_t polls = 0; polls < 80; polls++) {
            int32_t p = polls;
            int64_t n = 0;
            while (dfc_policy_spin_on(&p, budget)) n++;
            CHECK(n == sim_spin_left(polls, budget),
                  "budget %d polls %d: loop %lld, closed form %lld", budget, polls, (long long)n,
                  (long long)sim_spin_left(polls, budget));
        }
    dfc_policy_t p = dfc_policy_make(64, 4, 4096, 1);
    CHECK(dfc_policy_budget_moved(&p, 64, 10) == 64 &&
              dfc_policy_budget_moved(&p, 64, 100) == 200 &&
              dfc_policy_budget_moved(&p, 64, 5000) == 4096 &&
              dfc_policy_budget_moved(&p, 64, 0) == 64,
          "stickiness: max(budget, 2 polls) up to the maximum");
    CHECK(dfc_policy_budget_preempted(&p, 64) == 32 && dfc_policy_budget_preempted(&p, 5) == 4,
          "a preemption halves, not below the minimum");
    CHECK(dfc_policy_is_new_preemption(-1, 0) && !dfc_policy_is_new_preemption(3, 3),
          "once per wait point");
    CHECK(dfc_policy_runs_before(2, 1) && dfc_policy_runs_before(1, 1) &&
              !dfc_policy_runs_before(0, 1),
          "priority first, FIFO within one");
    CHECK(dfc_policy_promote(&p, 2, 1, 0, 0) && !dfc_policy_promote(&p, 0, 1, 0, 0) &&
              !dfc_policy_promote(&p, 2, 0, 0, 0) && !dfc_policy_promote(&p, 2, 1, 0, 1),
          "promotion");
    p.move_to_head = 0;
    CHECK(!dfc_policy_promote(&p, 2, 1, 0, 0), "no promotion when the rule is off");
    dfc_policy_t q = dfc_policy_make(1, 10, 5, 0);
    CHECK(q.budget_min == 5 && q.budget_init == 5 && q.budget_max == 5,
          "make orders min <= init <= max");
    dfc_policy_t never = {DFC_POLICY_BUDGET_NEVER, 4, DFC_POLICY_BUDGET_NEVER, 0};
    CHECK(dfc_policy_budget_moved(&never, DFC_POLICY_BUDGET_NEVER, 1000) ==
                  DFC_POLICY_BUDGET_NEVER &&
              dfc_policy_budget_preempted(&never, DFC_POLICY_BUDGET_NEVER) ==
                  DFC_POLICY_BUDGET_NEVER,
          "a budget without end stays so");
}

static sim_comm_t world;
static sim_cdef_t cdefs[8];

static void chaos_config(sim_config_t *cfg, int n, int rpn, int k, uint64_t seed)
{
    static const uint64_t counts[8] = {256, 147456, 2048, 1024, 65536, 147456, 524288, 1048576};
    sim_config_defaults(cfg);
    cfg->nranks = n;
    cfg->rpn = rpn;
    cfg->seed = seed;
    cfg->iters = 3;
    world = (sim_comm_t){"world", 1, n};
    cfg->comms = &world;
    cfg->ncomm = 1;
    for (int i = 0; i < k; i++)
        cdefs[i] = (sim_cdef_t){.comm = 0,
                                .kind = DFC_COLL_ALLREDUCE,
                                .count = counts[i],
                                .elem = 4,
                                .bytes = 4 * counts[i]};
    for (int i = 0; i < k; i++) snprintf(cdefs[i].name, sizeof cdefs[i].name, "ar%d", i);
    cfg->cdefs = cdefs;
    cfg->ncdef = k;
}

static double per_coll(const sim_result_t *r)
{
    return r->instances ? (double)r->preemptions / r->instances : 0;
}

/* At 8 ranks Rabenseifner replaces ring too (DFC_ALLREDUCE_ALGORITHM, set in main). */
static void test_runs(void)
{
    sim_config_t cfg;
    sim_result_t a, b;
    chaos_config(&cfg, 8, 4, 8, 3);
    CHECK(sim_run(&cfg, &a) == DFC_SUCCESS && sim_run(&cfg, &b) == DFC_SUCCESS, "runs");
    CHECK(!a.deadlock && a.ranks_done == 8 && a.instances == 8 * 8 * 3,
          "chaos completes: %d ranks, %llu "
          "instances",
          a.ranks_done, (unsigned long long)a.instances);
    CHECK(a.time_ns == b.time_ns && a.preemptions == b.preemptions && a.events == b.events &&
              !memcmp(a.hist, b.hist, sizeof a.hist),
          "one seed, one result (%g vs %g ns)", a.time_ns, b.time_ns);
    cfg.seed = 4;
    CHECK(sim_run(&cfg, &b) == DFC_SUCCESS && b.time_ns != a.time_ns,
          "another seed, another jitter");
    printf("test_sim: 8 ranks chaos: %.3f ms simulated, %.2f preemptions per collective\n",
           a.time_ns * 1e-6, per_coll(&a));

    /* Preemption off: the consistent order completes, chaos deadlocks, with a named cycle. */
    cfg.policy.budget_init = cfg.policy.budget_max = DFC_POLICY_BUDGET_NEVER;
    cfg.policy.move_to_head = 0;
    cfg.chaos = 0;
    CHECK(sim_run(&cfg, &a) == DFC_SUCCESS && !a.deadlock && a.preemptions == 0,
          "consistent order without preemption completes (deadlock %d)", a.deadlock);
    cfg.chaos = 1;
    CHECK(sim_run(&cfg, &a) == DFC_SUCCESS && a.deadlock, "chaos without preemption deadlocks");
    CHECK(strstr(a.cycle, "ranks in the cycle") && strstr(a.cycle, "-> rank"),
          "the cycle is named: %s", a.cycle);
    printf("test_sim: chaos without preemption: %s\n", a.cycle);
}

/* The engine's timing against the model by hand: 2 ranks, one 1 KiB allreduce (Rabenseifner,
 * forced in main: two exchanges of 512 bytes), no CPU costs but a 1 ns poll, L 1 us, 1 ns per
 * byte: each exchange takes 512 + 1000 ns, and the waiting rank sees the data at its next
 * check, 1 ns later at most. */
static void test_timing(void)
{
    sim_config_t cfg;
    sim_result_t r;
    chaos_config(&cfg, 2, 2, 1, 1);
    cdefs[0].count = 256;
    cdefs[0].bytes = 1024;
    cfg.iters = 1;
    cfg.cpu = (sim_cpu_t){.poll = 1};
    cfg.link[SIM_INTRA] = (sim_link_t){.L = 1000, .o = 0, .G = 1, .eager = 1 << 20, .jitter = 0};
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && !r.deadlock, "run");
    CHECK(r.time_ns >= 3024 && r.time_ns <= 3026, "2-rank 1 KiB allreduce: %g ns, want 3024",
          r.time_ns);
    CHECK(r.messages == 4 && r.instances == 2, "%llu messages, %llu instances",
          (unsigned long long)r.messages, (unsigned long long)r.instances);
    /* a rank that starts 10 us late finds the other's first message in (unexpected) and pays
     * a second copy of its 512 bytes (cpu.copy per byte) when it posts the receive. Without
     * it the end is the early rank's second message at the late one: 10000 + 2 x 1512; with 5
     * ns per byte the late rank's second send leaves 2560 ns later: 10000 + 1512 + 2560 */
    cfg.nlate = 1;
    cfg.late = 10000;
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && !r.deadlock && r.unexpected == 1,
          "late rank: %llu unexpected messages, want 1", (unsigned long long)r.unexpected);
    CHECK(r.time_ns >= 13024 && r.time_ns <= 13024 + 3 * 63, "late rank: %g ns, want 13024",
          r.time_ns);
    cfg.cpu.copy = 5;
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && r.unexpected == 1 && r.time_ns >= 14072 &&
              r.time_ns <= 14072 + 3 * 63,
          "the second copy: %g ns, want 14072", r.time_ns);
    cfg.cpu.copy = 0;
    cfg.nlate = 0;
    cfg.late = 0;
    /* above the eager limit: request (L), answer (L), then the data (512 + L), twice */
    cfg.link[SIM_INTRA].eager = 256;
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && !r.deadlock, "run");
    CHECK(r.time_ns >= 7024 && r.time_ns <= 7026, "rendezvous: %g ns, want 7024", r.time_ns);
    /* an overhead of 100 ns per message: each exchange starts 100 ns later */
    cfg.link[SIM_INTRA] = (sim_link_t){.L = 1000, .o = 100, .G = 1, .eager = 1 << 20, .jitter = 0};
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && !r.deadlock, "run");
    CHECK(r.time_ns >= 3224 && r.time_ns <= 3426, "with o = 100: %g ns, want 3224 .. 3426",
          r.time_ns);
    /* the node's memory at 1 ns per byte: the two 512-byte messages of an exchange take turns
     * on it. Rank 1 gets rank 0's first at 1512 and sends its second at once (bus 1512 ..
     * 2024, arrives 3024); rank 0 waits for rank 1's first until 2024 (it had the bus after
     * rank 0's), so its second arrives at 3536; each wait may end up to one sleeping pass
     * (63 polls of 1 ns) late. */
    cfg.link[SIM_INTRA].o = 0;
    cfg.bus_G = 1;
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && !r.deadlock, "run");
    CHECK(r.time_ns >= 3536 && r.time_ns <= 3536 + 3 * 63, "with the bus: %g ns, want 3536 .. 3725",
          r.time_ns);
    /* a poll of 0.25 ns plus 0.75 per other rank on the node is the 1 ns poll at 2 ranks */
    double t_bus = r.time_ns;
    cfg.cpu.poll = 0.25;
    cfg.cpu.poll_peer = 0.75;
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && r.time_ns == t_bus,
          "poll_peer: %g ns, want %g as with a poll of 1 ns", r.time_ns, t_bus);
    cfg.bus_G = 0;
    cfg.cpu.poll_peer = 0;
    /* the receiver pulls (shm's process_vm_readv): the request (L), its copy (512 + L), the
     * FIN (L) to the sender: 3L + 512 per exchange as with request, answer and data, but
     * each of the 4 messages costs its receiver 1512 ns of CPU; a pull waits up to a
     * sleeping pass (63 ns) to be seen */
    cfg.link[SIM_INTRA].eager = 256;
    cfg.pull = 1;
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && !r.deadlock, "run");
    CHECK(r.time_ns >= 7024 && r.time_ns <= 7024 + 2 * 63, "pull: %g ns, want 7024 .. 7150",
          r.time_ns);
    CHECK(near(r.pull_ns, 4 * 1512), "pull: %g ns of copies, want 6048", r.pull_ns);
    cfg.pull = 0;
    cfg.cpu.poll = 0;
    CHECK(sim_run(&cfg, &r) != DFC_SUCCESS, "a poll of no time is refused");
}

/* Shared cores (dfc_sim_cpu.c): the timing case of test_timing (2 ranks, one 1 KiB allreduce
 * as two exchanges of 512 bytes, L 1 us, 1 ns per byte, 1 ns per poll) with an exec of 100 ns
 * and the host's oversubscribed budget of 1. As many cores as ranks change nothing. On one
 * core: rank 0 runs first (a switch: 1000 ns), sends at 1000 (in at 2512) and sleeps at 1100;
 * rank 1 gets the core (switch: 2100), sends (in at 3612), sleeps; it wakes for rank 0's data
 * at 2512 on the free core it ran on last (no switch), sends its second message (in at 4124)
 * and sleeps; rank 0 takes the core at 3612 (switch: 4612), sends its second (in at 6124),
 * completes; rank 1 takes it at 6124 (switch: 7124) and completes after its execs: 7300. A
 * spinning head keeps its core: with a budget of 4096 polls rank 1 waits for rank 0's spins. */
static void test_cores(void)
{
    sim_config_t cfg;
    sim_result_t r, off;
    chaos_config(&cfg, 2, 2, 1, 1);
    cdefs[0].count = 256;
    cdefs[0].bytes = 1024;
    cfg.iters = 1;
    cfg.cpu = (sim_cpu_t){.poll = 1, .exec = 100};
    cfg.link[SIM_INTRA] = (sim_link_t){.L = 1000, .o = 0, .G = 1, .eager = 1 << 20, .jitter = 0};
    cfg.policy = dfc_policy_make(1, 1, 1, 0);
    cfg.cpu_switch = 1000;
    CHECK(sim_run(&cfg, &off) == DFC_SUCCESS && !off.deadlock, "run");
    cfg.cores = 2;
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && r.time_ns == off.time_ns && r.switches == 0,
          "a core per rank: %g ns, want %g as without the model", r.time_ns, off.time_ns);
    cfg.cores = 1;
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && !r.deadlock, "run on one core");
    CHECK(near(r.time_ns, 7300) && r.switches == 4,
          "one core: %g ns and %llu switches, want 7300 and 4", r.time_ns,
          (unsigned long long)r.switches);
    double one = r.time_ns;
    cfg.policy = dfc_policy_make(4096, 4, 4096, 0);
    double spin_off = 0;
    cfg.cores = 0;
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && !r.deadlock, "run");
    spin_off = r.time_ns;
    cfg.cores = 1;
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS && !r.deadlock && r.time_ns > 7300 + 4000,
          "one core, spins of 4096 polls: %g ns, want above 11300 (without sharing %g)", r.time_ns,
          spin_off);
    printf("test_sim: 2 ranks on one core: %.0f ns (a core each: %.0f); spinning: %.0f (%.0f)\n",
           one, off.time_ns, r.time_ns, spin_off);
}

/* Issue 22: a 1,000-rank chaos run in CI (125 nodes of 8; Rabenseifner, which the default
 * selection also picks there since ring's rank limit, select.c). */
static void test_thousand(void)
{
    sim_config_t cfg;
    sim_result_t r;
    chaos_config(&cfg, 1000, 8, 8, 1);
    cfg.iters = 2;
    CHECK(sim_run(&cfg, &r) == DFC_SUCCESS, "run");
    CHECK(!r.deadlock && r.ranks_done == 1000 && r.instances == 1000 * 8 * 2,
          "1,000 ranks complete (%d ranks done, deadlock %d: %s)", r.ranks_done, r.deadlock,
          r.cycle);
    printf("test_sim: 1000 ranks chaos: %.3f ms simulated, %.2f preemptions per collective, %llu "
           "events, "
           "%.2f s wall\n",
           r.time_ns * 1e-6, per_coll(&r), (unsigned long long)r.events, r.wall_s);
}

int main(void)
{
    /* read once by dfc_coll_select, on the first selection */
    setenv("DFC_ALLREDUCE_ALGORITHM", "rabenseifner", 1);
    test_clock();
    test_network();
    test_bus();
    test_policy();
    test_runs();
    test_timing();
    test_cores();
    test_thousand();
    if (failures) fprintf(stderr, "test_sim: %d failures\n", failures);
    return failures ? 1 : 0;
}
