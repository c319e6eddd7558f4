/*
 * gpu_explore.c - the chunk-level explorer of test_gpu_logic (issue 23, item 5): 2 to 4
 * simulated GPUs, one channel each, run real collective schedules (the generators of
 * src/coll, numbered by dfc_gpu_number_transfers as daemon.c does) through the kernel's
 * decisions in src/gpu/daemon_logic.h - which transfer a sweep takes (dfc_gpu_sweep_first),
 * a send into a FIFO it owns or that is free and has room (dfc_gpu_fifo_free,
 * dfc_gpu_fifo_room), a receive of its own chunk at the FIFO head or from the spill, a dead
 * collective's chunk dropped, another's stolen into the spill (dfc_gpu_head_choice,
 * dfc_gpu_spill_oldest), the invitations (dfc_gpu_inv_*), cancel (dfc_gpu_queue_drop,
 * dfc_gpu_forget, dfc_gpu_dead_add), the exit rule (dfc_gpu_exit_why) and the host's
 * relaunch (dfc_gpu_kernel_gone, dfc_gpu_epoch_after). The loops around them follow
 * pick_actions, post_actions, cancel_coll and inv_post/inv_ready/inv_release of
 * daemon_kernel.cu line for line, over plain arrays instead of mailbox memory.
 *
 * Each GPU's host runs a program: collectives started in its own order, nonblocking
 * (Iallreduce) or blocking (the next waits for it), several at once (bursts); a GPU may die
 * mid-run, after which the survivors' hosts cancel what involved it and go on with a new
 * communicator among themselves. An action is one host step (start, cancel, relaunch) or one
 * sweep of one queued collective by one GPU's kernel; a chunk carries its collective's
 * instance and transfer number, and every receive checks them (stale or misrouted data). A
 * run fails when it ends with collectives that can never complete (a hang: no action can
 * move anything, or only exits and relaunches repeat) or a receive took the wrong chunk.
 *
 * Random runs choose actions at random and finish round robin; exhaustive runs visit every
 * state reachable by actions that change something (states are hashed: each is expanded
 * once) and judge every state where no action changes anything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/dfc_coll.h"
#include "gpu/daemon_logic.h"
#include "gpu/daemon_plan.h"
#include "gpu_explore.h"

#define XG 4      /* GPUs at most */
#define XS 2      /* FIFO slots per pair at most */
#define XD 4      /* FIFO depth at most */
#define XSPEC 6   /* collectives in a scenario at most */
#define XSTEPS 48 /* steps of one schedule at most */
#define XACT (2 * XG)

typedef struct xchunk {
    uint16_t serial, ord; /* the collective instance (spec index) and transfer number */
    uint32_t idx;         /* chunk number within the transfer */
} xchunk_t;

/* One collective as one GPU runs it (dfc_gpu_ctx_t's fields that the kernel uses). */
typedef struct xcoll {
    int32_t pc, fence_start;
    uint32_t progress[XSTEPS];
    uint16_t inv_mine[XG], inv_theirs[XG];
    uint32_t inv_posted[XG];
    uint8_t status; /* 0 not started, 1 queued, 2 complete, 3 cancelled */
} xcoll_t;

/* One GPU: its kernel's FIFO ends (chan_fifo), its mailbox (flags, data, the acks of its
 * sends, invitation tables), its run queue and its host's state. */
typedef struct xgpu {
    uint64_t sent[XG][XS], owner[XG][XS], recvd[XG][XS];
    uint64_t sp_ident[XG][DFC_GPU_SPILL], sp_seq[XG][DFC_GPU_SPILL];
    uint32_t sp_slot[XG][DFC_GPU_SPILL];
    xchunk_t sp_data[XG][DFC_GPU_SPILL];
    uint64_t flag_seq[XG][XS][XD], flag_ident[XG][XS][XD]; /* [source][slot][entry] */
    xchunk_t data[XG][XS][XD];
    uint64_t ack[XG][XS];                    /* [receiver][slot]: written by the receiver */
    uint64_t inv_ident[XG][DFC_GPU_INVITES]; /* [writer]: the receiver's table */
    uint64_t inv_ord[XG][DFC_GPU_INVITES];
    uint64_t inv_shadow[XG][DFC_GPU_INVITES]; /* what I wrote into each peer's table */
    uint64_t dead[DFC_GPU_DEAD];
    uint32_t ndead;
    dfc_gpu_sq_entry_t q[XSPEC]; /* the run queue: slot = spec index */
    int32_t nq;
    xcoll_t c[XSPEC];
    uint32_t next_op, alive, noticed; /* host: next op of its program; death noticed */
    uint32_t running, launched, epoch, exited, attempts, quiet;
} xgpu_t;

typedef struct xworld {
    uint32_t bad, died;
    xgpu_t g[XG];
} xworld_t;

typedef struct xspec {
    const char *algo;
    int n, members[XG], rank_of[XG]; /* rank_of[gpu] = -1: not a member */
    uint64_t ident;
    uint32_t slot;
    dfc_sched_t s[XG]; /* by rank */
} xspec_t;

typedef struct xscen {
    const char *name;
    int n, slots, depth, nspill, rendezvous;
    uint32_t chunk;
    int old_cancel; /* cancel drops the queue entry only, and idents repeat (before defect 3) */
    int flush_dead; /* after the cancel, DFC_GPU_DEAD more (other collectives abandoned, as
                     * devsurvive's 200 failing Iallreduces): the dead list forgets the ident */
    int old_epoch;  /* the epoch advances before the launch (before defect 4) */
    int model_exit; /* kernels exit by the exit rule and are relaunched */
    uint32_t fail_launch; /* this launch attempt of GPU 0 fails (0: none) */
    uint32_t idle;        /* sweeps that move nothing before a kernel exits */
    int die;              /* GPU that dies (-1: none) */
    int nspec;
    xspec_t spec[XSPEC];
    int nops[XG], op[XG][XSPEC], blocking[XG][XSPEC];
} xscen_t;

static uint64_t xrng = 0x9e3779b97f4a7c15ull;
static uint32_t xrnd(uint32_t n)
{
    xrng ^= xrng << 13;
    xrng ^= xrng >> 7;
    xrng ^= xrng << 17;
    return (uint32_t)(xrng % n);
}

static int xfailures;
#define XCHECK(cond, ...)                                        \
    do {                                                         \
        if (!(cond) && xfailures++ < 20) {                       \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fputc('\n', stderr);                                 \
        }                                                        \
    } while (0)

static int is_xfer(int kind)
{
    return kind == DFC_STEP_SEND || kind == DFC_STEP_RECV || kind == DFC_STEP_RECV_REDUCE;
}

/* ---- invitations (daemon_kernel.cu: inv_post, inv_ready, inv_release) -------------------- */
static int x_inv_post(xworld_t *w, int me, xcoll_t *c, int peer, uint64_t ident, uint64_t ord)
{
    if (c->inv_posted[peer] == ord + 1) return 1;
    uint32_t idx = c->inv_mine[peer];
    if (idx == DFC_GPU_INV_NONE) {
        idx = dfc_gpu_inv_insert(w->g[me].inv_shadow[peer], ident);
        if (idx == DFC_GPU_INV_NONE) return 0;
        w->g[peer].inv_ord[me][idx] = ord + 1;
        w->g[peer].inv_ident[me][idx] = ident;
        c->inv_mine[peer] = (uint16_t)idx;
    } else {
        w->g[peer].inv_ord[me][idx] = ord + 1;
    }
    c->inv_posted[peer] = (uint32_t)(ord + 1);
    return 1;
}

static int x_inv_ready(xworld_t *w, int me, xcoll_t *c, int peer, uint64_t ident, uint64_t ord)
{
    uint32_t idx = c->inv_theirs[peer];
    if (idx == DFC_GPU_INV_NONE) {
        idx = dfc_gpu_inv_find(w->g[me].inv_ident[peer], ident);
        if (idx == DFC_GPU_INV_NONE) return 0;
        c->inv_theirs[peer] = (uint16_t)idx;
    }
    return w->g[me].inv_ord[peer][idx] == ord + 1;
}

static void x_inv_release(xworld_t *w, int me, xcoll_t *c, int n)
{
    for (int p = 0; p < n; p++) {
        uint32_t idx = c->inv_mine[p];
        if (idx == DFC_GPU_INV_NONE) continue;
        c->inv_mine[p] = DFC_GPU_INV_NONE;
        uint32_t freed = dfc_gpu_inv_release(w->g[me].inv_shadow[p], idx);
        w->g[p].inv_ident[me][idx] = DFC_GPU_INV_GONE;
        for (uint32_t j = idx, k = 0; k < freed;
             j = (j + DFC_GPU_INVITES - 1) % DFC_GPU_INVITES, k++)
            w->g[p].inv_ident[me][j] = 0;
    }
}

/* ---- one sweep (daemon_kernel.cu: pick_actions, post_actions, fence_point) ---------------- */
typedef struct xact {
    int kind, step, peer, spill;
    uint64_t owner;
    xchunk_t data;
} xact_t;

/* Does chunk d belong to transfer `step` of spec `sp` as seen by its receiver? */
static int chunk_ok(const xchunk_t *d, int sp, const dfc_step_t *st, uint32_t idx)
{
    return d->serial == sp && d->ord == DFC_GPU_ORDINAL(st) && d->idx == idx;
}

/* The choices of one sweep for spec sp on GPU me (pick_actions). Returns all_done. */
static int x_pick(const xscen_t *x, xworld_t *w, int me, int sp, xact_t *act, int *nact, int *moved)
{
    xgpu_t *g = &w->g[me];
    const xspec_t *spec = &x->spec[sp];
    const dfc_step_t *steps = spec->s[spec->rank_of[me]].steps;
    xcoll_t *c = &g->c[sp];
    uint32_t busy_send = 0, busy_recv = 0;
    int all_done = 1;
    const uint32_t slot = spec->slot;
    *nact = 0;
    for (int i = c->fence_start; i < c->pc; i++) {
        const dfc_step_t *st = &steps[i];
        uint32_t prog = c->progress[i];
        if (prog & DFC_GPU_STEP_DONE) continue;
        all_done = 0;
        int sending = st->kind == DFC_STEP_SEND, peer = spec->members[st->peer];
        if (!dfc_gpu_sweep_first(&busy_send, &busy_recv, sending, (uint32_t)peer)) continue;
        uint64_t lo, hi;
        dfc_gpu_slice(st->bytes, 0, 1, 0, &lo, &hi);
        uint32_t nchunks = dfc_gpu_nchunks(lo, hi, x->chunk);
        if (prog >= nchunks) {
            c->progress[i] = DFC_GPU_STEP_DONE;
            (*moved)++;
            continue;
        }
        if (*nact == XACT) continue;
        xact_t *a = &act[*nact];
        a->step = i, a->peer = peer;
        if (sending) {
            if (!dfc_gpu_fifo_free(g->owner[peer][slot], spec->ident)) continue;
            if (x->rendezvous && !x_inv_ready(w, me, c, peer, spec->ident, DFC_GPU_ORDINAL(st)))
                continue;
            uint64_t seq = g->sent[peer][slot] + 1;
            if (!dfc_gpu_fifo_room(g->ack[peer][slot], seq, (uint32_t)x->depth)) continue;
            g->owner[peer][slot] = spec->ident;
            a->kind = DFC_GPU_ACT_SEND;
            a->data = (xchunk_t){(uint16_t)sp, (uint16_t)DFC_GPU_ORDINAL(st), prog};
        } else {
            if (x->rendezvous && !x_inv_post(w, me, c, peer, spec->ident, DFC_GPU_ORDINAL(st)))
                continue;
            int e = dfc_gpu_spill_oldest(g->sp_ident[peer], g->sp_slot[peer], g->sp_seq[peer],
                                         x->nspill, spec->ident, slot);
            if (e >= 0) {
                a->kind = DFC_GPU_ACT_FROM_SPILL, a->spill = e, a->data = g->sp_data[peer][e];
            } else {
                uint64_t seq = g->recvd[peer][slot] + 1;
                uint32_t entry = (uint32_t)(seq % (uint64_t)x->depth);
                if (g->flag_seq[peer][slot][entry] != seq) continue;
                a->owner = g->flag_ident[peer][slot][entry];
                a->data = g->data[peer][slot][entry];
                a->kind = dfc_gpu_head_choice(a->owner, spec->ident, g->dead, x->rendezvous,
                                              g->inv_shadow[peer], g->sp_ident[peer], x->nspill,
                                              &a->spill);
                if (a->kind == DFC_GPU_ACT_WAIT) continue;
            }
        }
        (*nact)++;
    }
    return all_done;
}

/* Publishes the sweep's moves (post_actions) and checks each received chunk. */
static void x_post(const xscen_t *x, xworld_t *w, int me, int sp, const xact_t *act, int nact)
{
    xgpu_t *g = &w->g[me];
    const xspec_t *spec = &x->spec[sp];
    const dfc_step_t *steps = spec->s[spec->rank_of[me]].steps;
    xcoll_t *c = &g->c[sp];
    const uint32_t slot = spec->slot;
    for (int k = 0; k < nact; k++) {
        const xact_t *a = &act[k];
        const dfc_step_t *st = &steps[a->step];
        int peer = a->peer, e = a->spill;
        uint32_t nchunks = dfc_gpu_nchunks(0, st->bytes, x->chunk);
        uint32_t prog = c->progress[a->step] + 1;
        if (a->kind == DFC_GPU_ACT_SEND) {
            uint64_t seq = ++g->sent[peer][slot];
            uint32_t entry = (uint32_t)(seq % (uint64_t)x->depth);
            xgpu_t *r = &w->g[peer];
            r->flag_ident[me][slot][entry] = spec->ident;
            r->data[me][slot][entry] = a->data;
            r->flag_seq[me][slot][entry] = seq;
            g->owner[peer][slot] = dfc_gpu_owner_after(g->owner[peer][slot], prog, nchunks);
        } else if (a->kind == DFC_GPU_ACT_FROM_SPILL) {
            g->sp_ident[peer][e] = 0;
            if (!chunk_ok(&a->data, sp, st, prog - 1)) w->bad = 1;
        } else {
            uint64_t seq = ++g->recvd[peer][slot];
            w->g[peer].ack[me][slot] = seq;
            if (a->kind == DFC_GPU_ACT_DROP) continue;
            if (a->kind == DFC_GPU_ACT_STEAL) {
                g->sp_ident[peer][e] = a->owner;
                g->sp_slot[peer][e] = slot;
                g->sp_seq[peer][e] = seq;
                g->sp_data[peer][e] = a->data;
                continue;
            }
            if (!chunk_ok(&a->data, sp, st, prog - 1)) w->bad = 1;
        }
        c->progress[a->step] = dfc_gpu_progress_after(prog, nchunks);
    }
}

/* One sweep of queue entry qi on GPU me (advance's first pass, then the fence point on one
 * channel: no barriers, local steps move no chunks). Returns 1 if anything moved. */
static int x_sweep(const xscen_t *x, xworld_t *w, int me, int qi)
{
    xgpu_t *g = &w->g[me];
    int sp = (int)g->q[qi].slot, moved = 0, nact;
    const xspec_t *spec = &x->spec[sp];
    const dfc_sched_t *s = &spec->s[spec->rank_of[me]];
    xcoll_t *c = &g->c[sp];
    xact_t act[XACT];
    while (c->pc < s->nsteps && is_xfer(s->steps[c->pc].kind)) c->pc++;
    int done = x_pick(x, w, me, sp, act, &nact, &moved);
    x_post(x, w, me, sp, act, nact);
    moved += nact;
    if (done) {
        int next = c->pc < s->nsteps ? c->pc + 1 : c->pc;
        c->pc = c->fence_start = next;
        moved = 1;
        if (next >= s->nsteps) { /* run_coll + finish_coll: complete */
            if (x->rendezvous) x_inv_release(w, me, c, x->n);
            c->status = 2;
            for (int j = qi; j + 1 < g->nq; j++) g->q[j] = g->q[j + 1];
            g->nq--;
        }
    }
    return moved > 0;
}

/* ---- the host side ------------------------------------------------------------------------ */
static int involves(const xspec_t *s, int gpu) { return s->rank_of[gpu] >= 0; }

/* A launch attempt (daemon.c: launch); GPU 0's attempt number fail_launch fails. */
static void x_launch(const xscen_t *x, xgpu_t *g, int me)
{
    uint32_t n = ++g->attempts;
    int ok = !(me == 0 && n == x->fail_launch);
    if (x->old_epoch) g->epoch++; /* before issue 23: even when the launch fails */
    else g->epoch = dfc_gpu_epoch_after(g->epoch, ok);
    if (!ok) return;
    g->running = g->launched = 1;
    g->quiet = 0;
}

/* The host starts its next op when every blocking op before it has ended; an op among a
 * dead GPU fails at once when the death is known. Returns 1 if it started or ended one. */
static int x_submit(const xscen_t *x, xworld_t *w, int me)
{
    xgpu_t *g = &w->g[me];
    if (g->next_op >= (uint32_t)x->nops[me]) return 0;
    for (uint32_t i = 0; i < g->next_op; i++)
        if (x->blocking[me][i] && g->c[x->op[me][i]].status < 2) return 0;
    int sp = x->op[me][g->next_op++];
    if (g->noticed && involves(&x->spec[sp], x->die)) {
        g->c[sp].status = 3;
        return 1;
    }
    xcoll_t *c = &g->c[sp];
    memset(c, 0, sizeof *c);
    for (int p = 0; p < XG; p++) c->inv_mine[p] = c->inv_theirs[p] = DFC_GPU_INV_NONE;
    c->status = 1;
    g->q[g->nq++] = (dfc_gpu_sq_entry_t){.slot = (uint32_t)sp, .gen = 1, .nchan = 1};
    if (x->model_exit && !g->running &&
        dfc_gpu_kernel_gone((int)g->launched, &g->exited, 1, g->epoch))
        x_launch(x, g, me);
    return 1;
}

/* The host noticed the death: every queued collective that involved the dead GPU is
 * cancelled (cancel_coll; before issue 23 only the queue entry was dropped). */
static int x_cancel(const xscen_t *x, xworld_t *w, int me)
{
    xgpu_t *g = &w->g[me];
    if (!w->died || g->noticed) return 0;
    g->noticed = 1;
    for (int sp = 0; sp < x->nspec; sp++) {
        xcoll_t *c = &g->c[sp];
        if (c->status != 1 || !involves(&x->spec[sp], x->die)) continue;
        uint64_t ident = x->spec[sp].ident;
        g->nq = dfc_gpu_queue_drop(g->q, g->nq, (uint32_t)sp, 1);
        c->status = 3;
        if (x->old_cancel) continue;
        for (int p = 0; p < x->n; p++)
            dfc_gpu_forget(g->owner[p], (uint32_t)x->slots, g->sp_ident[p], x->nspill, ident);
        dfc_gpu_dead_add(g->dead, &g->ndead, ident);
        if (x->rendezvous) x_inv_release(w, me, c, x->n);
    }
    for (int k = 0; x->flush_dead && k < DFC_GPU_DEAD; k++) /* cancels of collectives that */
        dfc_gpu_dead_add(g->dead, &g->ndead, dfc_gpu_ident(1, 6, k)); /* never ran here */
    return 1;
}

/* The kernel's exit rule after a sweep that moved nothing, and the host's relaunch. */
static void x_exit_rule(const xscen_t *x, xgpu_t *g, int moved)
{
    if (!x->model_exit) return;
    g->quiet = moved ? 0 : g->quiet + 1;
    uint32_t tail = g->next_op, head = g->next_op, busy = g->nq > 0;
    if (dfc_gpu_exit_why(g->nq > 0, g->quiet, x->idle, 2 * x->idle, &tail, head, &busy, 1)) {
        g->running = 0;
        g->exited = g->epoch;
    }
}
static int x_relaunch(const xscen_t *x, xgpu_t *g, int me)
{
    if (!x->model_exit || g->running || !g->nq ||
        !dfc_gpu_kernel_gone((int)g->launched, &g->exited, 1, g->epoch))
        return 0;
    x_launch(x, g, me);
    return 1;
}

/* ---- actions, runs, verdicts -------------------------------------------------------------- */
enum { X_SUBMIT, X_CANCEL, X_RELAUNCH, X_SWEEP, X_DIE };

/* Applies one action; returns 1 if it moved something (a relaunch or an exit does not). */
static int x_apply(const xscen_t *x, xworld_t *w, int kind, int me, int qi)
{
    xgpu_t *g = &w->g[me];
    if (kind == X_DIE) {
        if (x->die < 0 || w->died) return 0;
        w->died = 1;
        w->g[x->die].alive = 0;
        return 1;
    }
    if (!g->alive) return 0;
    if (kind == X_SUBMIT) return x_submit(x, w, me);
    if (kind == X_CANCEL) return x_cancel(x, w, me);
    if (kind == X_RELAUNCH) {
        x_relaunch(x, g, me);
        return 0;
    }
    if (qi >= g->nq || (x->model_exit && !g->running)) return 0;
    int moved = x_sweep(x, w, me, qi);
    x_exit_rule(x, g, moved);
    return moved;
}

static void x_init(const xscen_t *x, xworld_t *w)
{
    memset(w, 0, sizeof *w);
    for (int i = 0; i < x->n; i++) {
        w->g[i].alive = 1;
        w->g[i].running = !x->model_exit;
    }
}

/* Every live GPU's program ended (each op complete, or cancelled after the death). */
static int x_finished(const xscen_t *x, const xworld_t *w)
{
    for (int i = 0; i < x->n; i++) {
        const xgpu_t *g = &w->g[i];
        if (!g->alive) continue;
        if (g->next_op < (uint32_t)x->nops[i] || g->nq) return 0;
    }
    return 1;
}

/* Round robin until nothing but exits and relaunches happens for idle + 4 rounds. */
static void x_closure(const xscen_t *x, xworld_t *w)
{
    for (int quiet = 0; quiet < (int)x->idle + 4 && !w->bad;) {
        int moved = 0;
        moved |= x_apply(x, w, X_DIE, 0, 0);
        for (int i = 0; i < x->n; i++) {
            while (x_apply(x, w, X_SUBMIT, i, 0)) moved = 1;
            moved |= x_apply(x, w, X_CANCEL, i, 0);
            x_apply(x, w, X_RELAUNCH, i, 0);
            for (int qi = 0; qi < w->g[i].nq; qi++) moved |= x_apply(x, w, X_SWEEP, i, qi);
        }
        quiet = moved ? 0 : quiet + 1;
    }
}

/* Owners or spill entries left set on a live GPU after the end: a FIFO blocked for later
 * collectives, a spill entry lost for good. */
static int x_blocked_fifos(const xscen_t *x, const xworld_t *w)
{
    int n = 0;
    for (int i = 0; i < x->n; i++)
        for (int p = 0; p < x->n && w->g[i].alive; p++) {
            for (int k = 0; k < x->slots; k++) n += w->g[i].owner[p][k] != 0;
            for (int e = 0; e < x->nspill; e++) n += w->g[i].sp_ident[p][e] != 0;
        }
    return n;
}

/* 0: fine; 1: hang; 2: wrong data; 3: finished with a FIFO blocked or a spill entry held. */
static int x_verdict(const xscen_t *x, const xworld_t *w)
{
    if (w->bad) return 2;
    if (!x_finished(x, w)) return 1;
    return x_blocked_fifos(x, w) ? 3 : 0;
}

/* One random run: `steps` random actions (bursts of starts, sweeps of random entries, the
 * death at a random moment), then round robin. Returns the verdict. */
static int x_random(const xscen_t *x, xworld_t *w, int steps)
{
    x_init(x, w);
    for (int t = 0; t < steps && !w->bad && !x_finished(x, w); t++) {
        uint32_t r = xrnd(16), me = xrnd((uint32_t)x->n);
        if (r == 0) x_apply(x, w, X_DIE, 0, 0);
        else if (r < 3) {
            int burst = 1 + (int)xrnd(3);
            while (burst-- && x_apply(x, w, X_SUBMIT, (int)me, 0)) {}
        } else if (r == 3) x_apply(x, w, X_CANCEL, (int)me, 0);
        else if (r == 4) x_apply(x, w, X_RELAUNCH, (int)me, 0);
        else x_apply(x, w, X_SWEEP, (int)me, (int)xrnd(XSPEC));
    }
    x_closure(x, w);
    return x_verdict(x, w);
}

/* ---- exhaustive: every state reachable by actions that change something ------------------- */
typedef struct xvisit {
    uint64_t *tab;
    size_t cap, n;
} xvisit_t;

static uint64_t x_hash(const xworld_t *w, int n)
{
    const uint64_t *p = (const uint64_t *)w;
    size_t words = (offsetof(xworld_t, g) + (size_t)n * sizeof(xgpu_t)) / 8;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < words; i++) h = (h ^ p[i]) * 0x100000001b3ull + (h >> 29);
    return h | 1;
}

/* Inserts h; returns 0 when it was there already. */
static int x_visit(xvisit_t *v, uint64_t h)
{
    if (2 * (v->n + 1) > v->cap) {
        xvisit_t bigger = {calloc(v->cap ? 2 * v->cap : 1 << 16, 8), v->cap ? 2 * v->cap : 1 << 16,
                           0};
        if (!bigger.tab) abort();
        for (size_t i = 0; i < v->cap; i++)
            if (v->tab[i]) x_visit(&bigger, v->tab[i]);
        free(v->tab);
        *v = bigger;
    }
    size_t i = h % v->cap;
    while (v->tab[i] && v->tab[i] != h) i = (i + 1) % v->cap;
    if (v->tab[i]) return 0;
    v->tab[i] = h;
    v->n++;
    return 1;
}

typedef struct xstats {
    long states, ends, verdicts[4];
    int truncated;
} xstats_t;

static void x_dfs(const xscen_t *x, xworld_t *stack, int depth, int maxdepth, xvisit_t *v,
                  xstats_t *st, long budget)
{
    xworld_t *w = &stack[depth];
    int any = 0;
    if (w->bad || depth + 1 >= maxdepth || st->states >= budget) {
        st->truncated |= !w->bad;
        if (w->bad) st->ends++, st->verdicts[2]++;
        return;
    }
    st->states++;
    for (int me = -1; me < x->n; me++) {
        int kinds[3] = {X_SUBMIT, X_CANCEL, X_SWEEP}, nk = me < 0 ? 1 : 3;
        for (int k = 0; k < nk; k++) {
            int kind = me < 0 ? X_DIE : kinds[k];
            int nqi = kind == X_SWEEP ? w->g[me].nq : 1;
            for (int qi = 0; qi < nqi; qi++) {
                xworld_t *next = &stack[depth + 1];
                size_t bytes = offsetof(xworld_t, g) + (size_t)x->n * sizeof(xgpu_t);
                memcpy(next, w, bytes);
                /* an invitation posted moves no chunk but changes what the peer may do */
                if (!x_apply(x, next, kind, me < 0 ? 0 : me, qi) && !memcmp(next, w, bytes))
                    continue;
                any = 1;
                if (x_visit(v, x_hash(next, x->n)))
                    x_dfs(x, stack, depth + 1, maxdepth, v, st, budget);
            }
        }
    }
    if (!any) {
        st->ends++;
        st->verdicts[x_verdict(x, w)]++;
    }
}

static void x_exhaustive(const xscen_t *x, long budget, xstats_t *st)
{
    enum { MAXDEPTH = 400 };
    xworld_t *stack = calloc(MAXDEPTH, sizeof *stack);
    xvisit_t v = {0};
    memset(st, 0, sizeof *st);
    if (!stack) abort();
    for (int i = 0; i < MAXDEPTH; i++) x_init(x, &stack[i]);
    x_visit(&v, x_hash(&stack[0], x->n));
    x_dfs(x, stack, 0, MAXDEPTH, &v, st, budget);
    free(v.tab);
    free(stack);
}

/* ---- scenarios ---------------------------------------------------------------------------- */
static const struct {
    const char *name;
    dfc_coll_build_fn fn;
    int rsb;
} algos[] = {{"ring allreduce", dfc_coll_allreduce_ring_build, 0},
             {"recursive doubling", dfc_coll_allreduce_recursive_doubling_build, 0},
             {"rabenseifner", dfc_coll_allreduce_rabenseifner_build, 0},
             {"reduce_scatter pairwise", dfc_coll_reduce_scatter_pairwise_build, 1}};

/* Adds a collective among `n` GPUs (members[]) with real schedules from generator `algo`. */
static int x_spec(xscen_t *x, int algo, int n, const int *members, uint64_t count, uint64_t ident)
{
    xspec_t *s = &x->spec[x->nspec];
    s->algo = algos[algo].name;
    s->n = n;
    s->ident = ident;
    s->slot = dfc_gpu_fifo_of(ident, (uint32_t)x->slots);
    for (int i = 0; i < XG; i++) s->rank_of[i] = -1;
    for (int r = 0; r < n; r++) {
        s->members[r] = members[r];
        s->rank_of[members[r]] = r;
        dfc_coll_args_t a = {.kind = algos[algo].rsb ? DFC_COLL_REDUCE_SCATTER_BLOCK
                                                     : DFC_COLL_ALLREDUCE,
                             .rank = r,
                             .size = n,
                             .count = count,
                             .elem = 4,
                             .commutative = 1,
                             .gpu = 1};
        dfc_sched_init(&s->s[r]);
        XCHECK(algos[algo].fn(&a, &s->s[r]) == DFC_SUCCESS && s->s[r].nsteps <= XSTEPS,
               "%s at %d ranks: no schedule of at most %d steps", s->algo, n, XSTEPS);
        dfc_gpu_number_transfers(s->s[r].steps, s->s[r].nsteps, n);
    }
    return x->nspec++;
}

static void x_free(xscen_t *x)
{
    for (int i = 0; i < x->nspec; i++)
        for (int r = 0; r < x->spec[i].n; r++) dfc_sched_destroy(&x->spec[i].s[r]);
    x->nspec = 0;
}

static void x_base(xscen_t *x, const char *name, int n, int slots, int depth, int nspill,
                   uint32_t chunk)
{
    memset(x, 0, sizeof *x);
    x->name = name, x->n = n, x->slots = slots, x->depth = depth, x->nspill = nspill;
    x->chunk = chunk, x->rendezvous = 1, x->idle = 4, x->die = -1;
}

static void x_op(xscen_t *x, int gpu, int spec, int blocking)
{
    x->op[gpu][x->nops[gpu]] = spec;
    x->blocking[gpu][x->nops[gpu]++] = blocking;
}

/* Can the programs complete when every collective completes as soon as all its members
 * started it (the MPI semantics)? Invalid programs hang under any protocol. */
static int x_programs_valid(const xscen_t *x)
{
    int next[XG] = {0}, started[XSPEC] = {0}, done[XSPEC] = {0}, changed = 1;
    while (changed) {
        changed = 0;
        for (int g = 0; g < x->n; g++)
            while (next[g] < x->nops[g]) {
                int ok = 1;
                for (int i = 0; i < next[g]; i++)
                    if (x->blocking[g][i] && !done[x->op[g][i]]) ok = 0;
                if (!ok) break;
                started[x->op[g][next[g]++]]++;
                changed = 1;
            }
        for (int s = 0; s < x->nspec; s++)
            if (!done[s] && started[s] == x->spec[s].n) done[s] = changed = 1;
    }
    for (int s = 0; s < x->nspec; s++)
        if (!done[s]) return 0;
    return 1;
}

/* Two idents of one communicator whose collectives share a FIFO at `slots` slots. */
static uint64_t x_ident_sharing(uint64_t a, int slots)
{
    uint64_t b = a + 1;
    while (dfc_gpu_fifo_of(b, (uint32_t)slots) != dfc_gpu_fifo_of(a, (uint32_t)slots)) b++;
    return b;
}

/* Defect 1: GPU 0 starts Iallreduce(A) then Allreduce(B); GPU 1 Allreduce(B) then
 * Iallreduce(A); A and B share a FIFO; A's steps have `achunks` chunks. */
static void x_crossed(xscen_t *x, int slots, int depth, int nspill, int achunks, int rendezvous)
{
    static const int m[2] = {0, 1};
    x_base(x, "crossed", 2, slots, depth, nspill, 16);
    x->rendezvous = rendezvous;
    uint64_t ia = dfc_gpu_ident(1, 5, 7), ib = x_ident_sharing(ia, slots);
    int a = x_spec(x, 0, 2, m, (uint64_t)achunks * 2 * 4, ia);
    int b = x_spec(x, 0, 2, m, 8, ib);
    x_op(x, 0, a, 0), x_op(x, 0, b, 1), x_op(x, 1, b, 1), x_op(x, 1, a, 0);
}

/* Defect 3: A among GPUs 0-2, GPU 2 dies; the survivors cancel A, then run B among
 * themselves (a communicator re-created with A's context id: the same ident before issue 23,
 * the next incarnation's now). */
static void x_cancel_case_flush(xscen_t *x, int slots, int depth, int achunks, int old, int flush)
{
    static const int all[3] = {0, 1, 2};
    x_base(x, "cancel", 3, slots, depth, DFC_GPU_SPILL, 16);
    x->old_cancel = old;
    x->flush_dead = flush;
    x->die = 2;
    uint64_t ia = dfc_gpu_ident(1, 5, 7), ib = old ? ia : dfc_gpu_ident(2, 5, 7);
    int a = x_spec(x, 0, 3, all, (uint64_t)achunks * 3 * 4, ia);
    int b = x_spec(x, 0, 2, all, (uint64_t)achunks * 2 * 4, ib);
    for (int g = 0; g < 2; g++) x_op(x, g, a, 1), x_op(x, g, b, 1);
    x_op(x, 2, a, 1);
}
static void x_cancel_case(xscen_t *x, int slots, int depth, int achunks, int old)
{
    x_cancel_case_flush(x, slots, depth, achunks, old, 0);
}

/* Defect 4: A among 2 GPUs; kernels exit by the exit rule and GPU 0's second launch fails. */
static void x_relaunch_case(xscen_t *x, int old)
{
    static const int m[2] = {0, 1};
    x_base(x, "relaunch", 2, 1, 2, DFC_GPU_SPILL, 16);
    x->model_exit = 1, x->fail_launch = 2, x->old_epoch = old, x->idle = 3;
    int a = x_spec(x, 0, 2, m, 64, dfc_gpu_ident(1, 5, 7));
    int b = x_spec(x, 1, 2, m, 24, dfc_gpu_ident(1, 5, 8));
    for (int g = 0; g < 2; g++) x_op(x, g, a, 1), x_op(x, g, b, 1);
}

/* Chaos: n GPUs, nspec collectives of random algorithms and sizes on one communicator (a
 * few sharing FIFOs), started by every GPU in its own random order, some blocking (only
 * programs valid under MPI's semantics), a GPU dying in some. */
static void x_chaos(xscen_t *x, int n, int slots, int depth, int nspill, int nspec, int die,
                    int model_exit)
{
    static const int all[XG] = {0, 1, 2, 3};
    x_base(x, "chaos", n, slots, depth, nspill, 16);
    x->model_exit = model_exit;
    x->die = die;
    for (int s = 0; s < nspec; s++) {
        uint64_t count = 1 + xrnd(12) * (uint64_t)n;
        x_spec(x, (int)xrnd(4), n, all, count, dfc_gpu_ident(1, 5, s * 3 + (int)xrnd(3)));
    }
    do {
        memset(x->nops, 0, sizeof x->nops);
        for (int g = 0; g < n; g++) {
            int perm[XSPEC];
            for (int s = 0; s < nspec; s++) perm[s] = s;
            for (int s = nspec - 1; s > 0; s--) {
                int j = (int)xrnd((uint32_t)s + 1), t = perm[s];
                perm[s] = perm[j], perm[j] = t;
            }
            for (int s = 0; s < nspec; s++) x_op(x, g, perm[s], die < 0 && !xrnd(3));
        }
    } while (!x_programs_valid(x));
}

/* ---- the runs ----------------------------------------------------------------------------- */
typedef struct xtally {
    long runs, bad[4];
} xtally_t;

static long x_bad(const xtally_t *t) { return t->bad[1] + t->bad[2] + t->bad[3]; }

static void x_runs(const xscen_t *x, xworld_t *w, int runs, xtally_t *t)
{
    for (int r = 0; r < runs; r++) {
        int v = x_random(x, w, 40 + (int)xrnd(400));
        t->runs++;
        t->bad[v]++;
    }
}

static void x_say(const char *what, const xtally_t *t)
{
    printf("  %-58s %7ld runs: %ld hang, %ld wrong data, %ld left held\n", what, t->runs, t->bad[1],
           t->bad[2], t->bad[3]);
}

static void x_say_exh(const char *what, const xstats_t *st)
{
    printf("  %-58s %7ld states, %ld end states: %ld hang, %ld wrong data, %ld left held%s\n", what,
           st->states, st->ends, st->verdicts[1], st->verdicts[2], st->verdicts[3],
           st->truncated ? " (budget reached)" : "");
}

/* Defect 1: the eager protocol hangs on the crossed order, the rendezvous never does. */
static void explore_crossed(xworld_t *w, int scale)
{
    xscen_t x;
    xtally_t eager = {0}, rdv = {0};
    for (int slots = 1; slots <= 2; slots++)
        for (int depth = 1; depth <= 2; depth++) {
            x_crossed(&x, slots, depth, DFC_GPU_SPILL, DFC_GPU_SPILL + 1, 0);
            x_runs(&x, w, 50 * scale, &eager);
            x_free(&x);
            x_crossed(&x, slots, depth, DFC_GPU_SPILL, DFC_GPU_SPILL + 1, 1);
            x_runs(&x, w, 50 * scale, &rdv);
            x_free(&x);
        }
    x_say("crossed Iallreduce/Allreduce, 5-chunk steps, eager:", &eager);
    x_say("crossed Iallreduce/Allreduce, 5-chunk steps, rendezvous:", &rdv);
    XCHECK(eager.bad[1] > 0, "the explorer did not find defect 1's hang (eager, spill 4)");
    XCHECK(!x_bad(&rdv), "the rendezvous failed %ld crossed runs", x_bad(&rdv));
    xstats_t st;
    x_crossed(&x, 1, 1, DFC_GPU_SPILL, DFC_GPU_SPILL + 1, 0);
    x_exhaustive(&x, 200000L * scale, &st);
    x_say_exh("every schedule, spill 4, depth 1, eager:", &st);
    XCHECK(st.verdicts[1] > 0, "exhaustive: defect 1's hang not found");
    x_free(&x);
    x_crossed(&x, 1, 1, DFC_GPU_SPILL, DFC_GPU_SPILL, 0); /* the spill holds A's step */
    x_exhaustive(&x, 200000L * scale, &st);
    x_say_exh("every schedule, spill 4, 4-chunk steps, eager:", &st);
    XCHECK(st.ends && !st.verdicts[1] && !st.verdicts[2] && !st.verdicts[3],
           "exhaustive: the eager protocol failed where the spill holds a whole step");
    x_free(&x);
    for (int depth = 1; depth <= 2; depth++) {
        x_crossed(&x, 1, depth, DFC_GPU_SPILL, DFC_GPU_SPILL + 1, 1);
        x_exhaustive(&x, 200000L * scale, &st);
        x_say_exh(depth == 1 ? "every schedule, depth 1, rendezvous:"
                             : "every schedule, depth 2, rendezvous:",
                  &st);
        XCHECK(st.ends && !st.verdicts[1] && !st.verdicts[2] && !st.verdicts[3],
               "exhaustive: the rendezvous failed on the crossed order (depth %d)", depth);
        x_free(&x);
    }
}

/* Defect 3: the old cancel leaves a FIFO blocked or a later collective eats stale chunks. */
static void explore_cancel(xworld_t *w, int scale)
{
    xscen_t x;
    xtally_t old = {0}, now = {0};
    for (int depth = 1; depth <= 2; depth++)
        for (int chunks = 1; chunks <= 3; chunks++) {
            x_cancel_case(&x, 1, depth, chunks, 1);
            x_runs(&x, w, 40 * scale, &old);
            x_free(&x);
            x_cancel_case(&x, 1, depth, chunks, 0);
            x_runs(&x, w, 40 * scale, &now);
            x_free(&x);
        }
    x_say("GPU 2 dies mid-allreduce, survivors cancel, then B, old cancel:", &old);
    x_say("GPU 2 dies mid-allreduce, survivors cancel, then B, cancel now:", &now);
    XCHECK(x_bad(&old) > 0, "the explorer did not catch the old cancel (defect 3)");
    XCHECK(!x_bad(&now), "cancel failed %ld runs", x_bad(&now));
    xstats_t st;
    x_cancel_case(&x, 1, 1, 1, 1);
    x_exhaustive(&x, 200000L * scale, &st);
    x_say_exh("every schedule, 3 GPUs, one dies, old cancel:", &st);
    XCHECK(st.verdicts[1] + st.verdicts[2] + st.verdicts[3] > 0,
           "exhaustive: the old cancel not caught");
    x_free(&x);
    x_cancel_case(&x, 1, 1, 1, 0);
    x_exhaustive(&x, 200000L * scale, &st);
    x_say_exh("every schedule, 3 GPUs, one dies, cancel now:", &st);
    XCHECK(st.ends && !st.verdicts[1] && !st.verdicts[2] && !st.verdicts[3],
           "exhaustive: cancel failed");
    x_free(&x);
    /* devsurvive: more than DFC_GPU_DEAD other cancels between the cancel and B */
    xtally_t flush = {0};
    for (int depth = 1; depth <= 2; depth++)
        for (int chunks = 1; chunks <= 3; chunks++) {
            x_cancel_case_flush(&x, 1, depth, chunks, 0, 1);
            x_runs(&x, w, 40 * scale, &flush);
            x_free(&x);
        }
    x_say("the same, then 16 other cancels before B:", &flush);
    XCHECK(!x_bad(&flush), "cancel with the dead list flushed failed %ld runs", x_bad(&flush));
    x_cancel_case_flush(&x, 1, 1, 1, 0, 1);
    x_exhaustive(&x, 200000L * scale, &st);
    x_say_exh("every schedule, one dies, 16 other cancels before B:", &st);
    XCHECK(st.ends && !st.verdicts[1] && !st.verdicts[2] && !st.verdicts[3],
           "exhaustive: cancel with the dead list flushed failed");
    x_free(&x);
}

/* Defect 4: a failed relaunch with the epoch advanced first never relaunches. */
static void explore_relaunch(xworld_t *w, int scale)
{
    xscen_t x;
    xtally_t old = {0}, now = {0};
    x_relaunch_case(&x, 1);
    x_runs(&x, w, 100 * scale, &old);
    x_free(&x);
    x_relaunch_case(&x, 0);
    x_runs(&x, w, 100 * scale, &now);
    x_free(&x);
    x_say("kernels exit and relaunch, 2nd launch fails, old epoch rule:", &old);
    x_say("kernels exit and relaunch, 2nd launch fails, epoch rule now:", &now);
    XCHECK(old.bad[1] > 0, "the explorer did not catch the old epoch rule (defect 4)");
    XCHECK(!x_bad(&now), "relaunch failed %ld runs", x_bad(&now));
}

/* Chaos orders, bursts, blocking and nonblocking, deaths, exits: nothing may fail with the
 * rendezvous; the eager protocol's failures are counted, not asserted. */
static void explore_chaos(xworld_t *w, int scale)
{
    xscen_t x;
    xtally_t rdv = {0}, eager = {0};
    for (int k = 0; k < 60 * scale; k++) {
        int n = 2 + (int)xrnd(3), slots = 1 + (int)xrnd(2), depth = 1 + (int)xrnd(2);
        int nspill = 1 + (int)xrnd(DFC_GPU_SPILL), nspec = 2 + (int)xrnd(3);
        int die = xrnd(4) ? -1 : (int)xrnd((uint32_t)n), model_exit = (int)xrnd(2);
        x_chaos(&x, n, slots, depth, nspill, nspec, die, model_exit);
        x_runs(&x, w, 10, &rdv);
        x.rendezvous = 0;
        x_runs(&x, w, 10, &eager);
        x_free(&x);
    }
    x_say("chaos orders, 2-4 GPUs, 1-2 slots, deaths, exits, rendezvous:", &rdv);
    x_say("the same, eager (counted, not asserted):", &eager);
    XCHECK(!x_bad(&rdv), "chaos: the rendezvous failed %ld runs", x_bad(&rdv));
    xstats_t st;
    x_chaos(&x, 2, 1, 1, 1, 2, -1, 0);
    x_exhaustive(&x, 200000L * scale, &st);
    x_say_exh("every schedule, 2 GPUs, 2 collectives in chaos order:", &st);
    XCHECK(st.ends && !st.verdicts[1] && !st.verdicts[2] && !st.verdicts[3],
           "exhaustive chaos failed");
    x_free(&x);
}

/* Long runs only (scale > 1): larger exhaustive cases - the cancel with 2-chunk steps and
 * 2-entry FIFOs, the crossed order on 2 slots, 3 GPUs in chaos order. */
static void explore_long(int scale)
{
    xscen_t x;
    xstats_t st;
    long budget = 100000L * scale;
    x_cancel_case(&x, 1, 2, 2, 0);
    x_exhaustive(&x, budget, &st);
    x_say_exh("every schedule, cancel now, 2-chunk steps, depth 2:", &st);
    XCHECK(!st.verdicts[1] && !st.verdicts[2] && !st.verdicts[3], "exhaustive: cancel failed");
    x_free(&x);
    x_crossed(&x, 2, 2, DFC_GPU_SPILL, DFC_GPU_SPILL + 2, 1);
    x_exhaustive(&x, budget, &st);
    x_say_exh("every schedule, crossed, 2 slots, depth 2, 6 chunks, rendezvous:", &st);
    XCHECK(!st.verdicts[1] && !st.verdicts[2] && !st.verdicts[3], "exhaustive: crossed failed");
    x_free(&x);
    for (int k = 0; k < 4; k++) {
        x_chaos(&x, 3, 1 + k % 2, 1 + k / 2, 1, 2, -1, 0);
        x_exhaustive(&x, budget, &st);
        x_say_exh("every schedule, 3 GPUs, 2 collectives in chaos order:", &st);
        XCHECK(!st.verdicts[1] && !st.verdicts[2] && !st.verdicts[3], "exhaustive chaos failed");
        x_free(&x);
    }
}

int gpu_explore_all(int scale)
{
    xworld_t *w = malloc(sizeof *w);
    if (!w) return 1;
    clock_t t0 = clock();
    setvbuf(stdout, NULL, _IOLBF, 0); /* a long run shows its progress */
    xrng = 0x2545f4914f6cdd1dull;
    printf("explorer (scale %d):\n", scale);
    explore_crossed(w, scale);
    explore_cancel(w, scale);
    explore_relaunch(w, scale);
    explore_chaos(w, scale);
    if (scale > 1) explore_long(scale);
    printf("%s: explorer of the kernel's decisions, %.1f s\n", xfailures ? "FAIL" : "ok",
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    free(w);
    return xfailures;
}
