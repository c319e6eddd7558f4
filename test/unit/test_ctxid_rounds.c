/*
 * test_ctxid_rounds.c - part 6 of test_ctxid: concurrent creations (ctxid.c's agreement of
 * rounds), simulated. NPROC processes, each with its own dfc_ctxid_space_t, run the program
 * of the mpi-style test comm/dupthreads for ROUNDS rounds: in round i every process
 * duplicates parents A (context 0) and B (context 2), either in two threads at once
 * ("concurrent") or in one thread, B then A ("sequential"); the round's two communicators
 * are freed when both are made. Patterns: "both" (all concurrent: issue 25 item 4), "mixed"
 * (process i % NPROC concurrent, the others sequential: item 5), "random" (each process
 * chooses per round), "single" (random, but process NPROC-1 always sequential and below
 * THREAD_MULTIPLE: its first round offers its mask).
 * A random scheduler interleaves the steps of every thread as the ring gather allows: start
 * a creation, offer for round r (the mask or nothing), and finish round r once every
 * participant has offered for it (then take the id, or go again). Checked: no process gives
 * an id to two live communicators, every participant agrees on each id, and everything ends
 * within a step budget (else: no progress).
 * The same scheduler also drives a model of the old rule (comm.c before the fix: the mask is
 * offered whenever no smaller key is in flight, and never lent): over the seeds it must be
 * caught giving one id twice and never finishing, so the check can fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

enum { NPROC = 3, ROUNDS = 20, NCRE = 2 * ROUNDS };
enum { BOTH, MIXED, RANDOM, SINGLE, NPATTERNS };
static const char *pattern_name[] = {"both", "mixed", "random", "single"};

typedef struct lane {         /* one thread of one process in the current round */
    int todo[2], ntodo, next; /* creations (2*i + parent), in order */
    int cur;                  /* creation in progress or -1 */
    int round, offered;       /* its round, and whether this lane posted it */
    dfc_ctxid_creation_t cr;
} lane_t;

typedef struct proc {
    dfc_ctxid_space_t s;
    int round, nlanes, single;
    lane_t lane[2];
    int ids[2];             /* ids of the round's two communicators (-1: not yet) */
    uint64_t old_flight[4]; /* the old rule's keys in flight */
    int old_n;
} proc_t;

typedef struct sim {
    int old_rule, pattern;
    proc_t p[NPROC];
    /* offers of each creation, two rounds deep (a process is at most one round ahead) */
    int posted[NCRE][NPROC]; /* last round posted, -1 none */
    int offered[NCRE][2][NPROC];
    uint32_t mask[NCRE][2][NPROC][DFC_CTXID_WORDS];
    int agreed[NCRE];       /* the id the first finisher took, -1 none */
    int dup_id, max_rounds; /* the first id given twice (-1), the most rounds one took */
} sim_t;

static uint64_t rng;
static unsigned rnd(unsigned n)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (unsigned)(((rng * 0x2545f4914f6cdd1dull) >> 11) % n);
}

static uint64_t key_of(int c) { return (uint64_t)(c % 2 ? 2 : 0) << 32 | (uint32_t)-10; }

static void start_round(sim_t *m, proc_t *p)
{
    int i = p->round, conc;
    if (m->pattern == BOTH) conc = 1;
    else if (m->pattern == MIXED) conc = (int)(p - m->p) == i % NPROC;
    else conc = p->single ? 0 : (int)rnd(2);
    memset(p->lane, 0, sizeof p->lane);
    p->nlanes = conc ? 2 : 1;
    if (conc) {
        p->lane[0].todo[0] = 2 * i, p->lane[0].ntodo = 1;
        p->lane[1].todo[0] = 2 * i + 1, p->lane[1].ntodo = 1;
    } else {
        p->lane[0].todo[0] = 2 * i + 1, p->lane[0].todo[1] = 2 * i, p->lane[0].ntodo = 2;
    }
    for (int l = 0; l < 2; l++) p->lane[l].cur = -1;
    p->ids[0] = p->ids[1] = -1;
}

/* ---- the rule under test: ctxid.c, or the model of the old one ----------------------- */
static void rule_begin(sim_t *m, proc_t *p, lane_t *l)
{
    if (!m->old_rule) dfc_ctxid_begin(&p->s, &l->cr, key_of(l->cur), p->single);
    else p->old_flight[p->old_n++] = key_of(l->cur);
}

static int rule_offer(sim_t *m, proc_t *p, lane_t *l, uint32_t *mask)
{
    if (!m->old_rule) return dfc_ctxid_offer(&p->s, &l->cr, mask);
    for (int i = 0; i < p->old_n; i++)
        if (p->old_flight[i] < key_of(l->cur)) {
            memset(mask, 0, sizeof p->s.free);
            return 0;
        }
    memcpy(mask, p->s.free, sizeof p->s.free);
    return 1;
}

static void rule_round_end(sim_t *m, proc_t *p, lane_t *l)
{
    if (!m->old_rule) dfc_ctxid_round_end(&p->s, &l->cr);
}

static void rule_end(sim_t *m, proc_t *p, lane_t *l)
{
    if (!m->old_rule) {
        dfc_ctxid_end(&p->s, &l->cr);
        return;
    }
    for (int i = 0; i < p->old_n; i++)
        if (p->old_flight[i] == key_of(l->cur)) {
            p->old_flight[i] = p->old_flight[--p->old_n];
            break;
        }
}

/* ---- one step of one lane; returns 1 if it did something ------------------------------ */
static int finish_round(sim_t *m, proc_t *p, lane_t *l, int *fails);

static int lane_step(sim_t *m, int pi, int li, int *fails)
{
    proc_t *p = &m->p[pi];
    lane_t *l = &p->lane[li];
    if (l->cur < 0) {
        if (l->next == l->ntodo) return 0;
        l->cur = l->todo[l->next++];
        l->round = 0;
        l->offered = 0;
        rule_begin(m, p, l);
        return 1;
    }
    int c = l->cur, slot = l->round % 2;
    if (!l->offered) {
        m->offered[c][slot][pi] = rule_offer(m, p, l, m->mask[c][slot][pi]);
        m->posted[c][pi] = l->round;
        l->offered = 1;
        return 1;
    }
    for (int q = 0; q < NPROC; q++)
        if (m->posted[c][q] < l->round) return 0; /* the gather waits for q */
    return finish_round(m, p, l, fails);
}

static int finish_round(sim_t *m, proc_t *p, lane_t *l, int *fails)
{
    int c = l->cur, slot = l->round % 2, pi = (int)(p - m->p), all = 1;
    uint32_t acc[DFC_CTXID_WORDS];
    memset(acc, 0xff, sizeof acc);
    for (int q = 0; q < NPROC; q++) {
        all &= m->offered[c][slot][q];
        dfc_ctxid_and(acc, m->mask[c][slot][q], 1, 0);
    }
    if (all) {
        int id = dfc_ctxid_pick(acc);
        if (id < 0) {
            (*fails)++;
            fprintf(stderr, "FAIL ctxid rounds: no id for creation %d on process %d\n", c, pi);
            return 0;
        }
        if (id == p->ids[0] || id == p->ids[1]) m->dup_id = m->dup_id < 0 ? id : m->dup_id;
        if (m->agreed[c] < 0) m->agreed[c] = id;
        else if (m->agreed[c] != id) {
            (*fails)++;
            fprintf(stderr, "FAIL ctxid rounds: creation %d got id %d on process %d, %d before\n",
                    c, id, pi, m->agreed[c]);
        }
        dfc_ctxid_space_take(&p->s, (uint32_t)id);
        p->ids[c % 2] = id;
    }
    rule_round_end(m, p, l);
    if (l->round + 1 > m->max_rounds) m->max_rounds = l->round + 1;
    if (!all) {
        l->round++;
        l->offered = 0;
        return 1;
    }
    rule_end(m, p, l);
    l->cur = -1;
    int done = 1; /* the join: are all lanes of this round done? */
    for (int k = 0; k < p->nlanes; k++)
        done &= p->lane[k].cur < 0 && p->lane[k].next == p->lane[k].ntodo;
    if (done) { /* both communicators made: free them, next round */
        dfc_ctxid_space_free(&p->s, (uint32_t)p->ids[0]);
        dfc_ctxid_space_free(&p->s, (uint32_t)p->ids[1]);
        if (++p->round < ROUNDS) start_round(m, p);
    }
    return 1;
}

/* Runs one pattern with one seed: 0 ended, 1 ran out of steps. *steps: steps taken. */
static int sim_run(sim_t *m, int old_rule, int pattern, uint64_t seed, long budget, int *fails,
                   long *steps)
{
    memset(m, 0, sizeof *m);
    m->old_rule = old_rule;
    m->pattern = pattern;
    m->dup_id = -1;
    rng = seed * 0x9e3779b97f4a7c15ull + 1;
    memset(m->posted, 0xff, sizeof m->posted);
    memset(m->agreed, 0xff, sizeof m->agreed);
    for (int pi = 0; pi < NPROC; pi++) {
        dfc_ctxid_space_reset(&m->p[pi].s);
        m->p[pi].single = pattern == SINGLE && pi == NPROC - 1;
        start_round(m, &m->p[pi]);
    }
    for (*steps = 0; *steps < budget; ++*steps) {
        int live = 0;
        for (int pi = 0; pi < NPROC; pi++) live += m->p[pi].round < ROUNDS;
        if (!live) return 0;
        /* a random lane that can move; try them all from a random start */
        int start = (int)rnd(NPROC * 2), moved = 0;
        for (int k = 0; k < NPROC * 2 && !moved; k++) {
            int pi = (start + k) % (NPROC * 2) / 2, li = (start + k) % 2;
            if (m->p[pi].round < ROUNDS && li < m->p[pi].nlanes)
                moved = lane_step(m, pi, li, fails);
        }
        if (!moved) return 1; /* nothing can move: a deadlock */
    }
    return 1;
}

int ctxid_rounds_test(void)
{
    static sim_t m;
    int fails = 0, seeds = 100;
    for (int pattern = 0; pattern < NPATTERNS; pattern++) {
        long max_steps = 0, steps;
        int max_rounds = 0, f0 = fails;
        for (int seed = 0; seed < seeds; seed++) {
            int stuck = sim_run(&m, 0, pattern, (uint64_t)seed, 200000, &fails, &steps);
            if (stuck) {
                fails++;
                fprintf(stderr,
                        "FAIL ctxid rounds %s seed %d: no progress after %ld steps "
                        "(rounds reached:",
                        pattern_name[pattern], seed, steps);
                for (int pi = 0; pi < NPROC; pi++) fprintf(stderr, " %d", m.p[pi].round);
                fprintf(stderr, ")\n");
            }
            if (m.dup_id >= 0) {
                fails++;
                fprintf(stderr,
                        "FAIL ctxid rounds %s seed %d: id %d given to two live "
                        "communicators\n",
                        pattern_name[pattern], seed, m.dup_id);
            }
            if (steps > max_steps) max_steps = steps;
            if (m.max_rounds > max_rounds) max_rounds = m.max_rounds;
        }
        printf("%s concurrent creations, pattern %s: %d seeds x %d rounds x 2 dups on %d "
               "processes, distinct agreed ids, done in <= %ld steps, <= %d gather rounds each\n",
               fails == f0 ? "ok" : "not ok", pattern_name[pattern], seeds, ROUNDS, NPROC,
               max_steps, max_rounds);
    }
    /* The old rule must be caught: a shared id (both) and a hang (mixed). */
    int dups = 0, hangs = 0;
    long steps;
    for (int seed = 0; seed < seeds; seed++) {
        sim_run(&m, 1, BOTH, (uint64_t)seed, 200000, &fails, &steps);
        dups += m.dup_id >= 0;
        hangs += sim_run(&m, 1, MIXED, (uint64_t)seed, 20000, &fails, &steps);
    }
    int ok = dups > 0 && hangs > 0;
    if (!ok) fails++;
    printf("%s the old rule is caught: one id given twice in %d of %d seeds (both), no progress "
           "in %d of %d (mixed)\n",
           ok ? "ok" : "not ok", dups, seeds, hangs, seeds);
    return fails;
}
