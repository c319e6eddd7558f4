/*
 * dfc_sim_net.c - the simulator's clock (an event heap) and network model (dfc_sim.h).
 *
 * The network model is LogGP-like, per link class: a message of b bytes posted at t leaves
 * the sender's port for that class no earlier than t + o and when the port is free, holds
 * it for b * G, arrives L later (plus jitter), and also holds the receiver's port for
 * b * G (so that many senders into one rank share its bandwidth). Ranks on one node
 * (rank / rpn) use the intra-node class. With bus_G > 0 an intra-node message also holds its
 * node's memory for b * bus_G, first come first served: shared-memory copies of all the
 * node's ranks share one memory bandwidth, so a node on which every rank copies at once
 * (consistent order, in lockstep) waits for it where ranks that copy at different times
 * (chaos order) do not (BENCHMARKS.md, validation of the simulator).
 */
#include <stdlib.h>
#include <string.h>

#include "dfc_sim.h"

/* ---- Clock ------------------------------------------------------------------------------ */
int sim_clock_init(sim_clock_t *c)
{
    memset(c, 0, sizeof *c);
    c->cap = 1024;
    c->heap = malloc(c->cap * sizeof *c->heap);
    return c->heap ? 0 : -1;
}

void sim_clock_destroy(sim_clock_t *c)
{
    free(c->heap);
    memset(c, 0, sizeof *c);
}

static int before(const sim_event_t *a, const sim_event_t *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int sim_clock_push(sim_clock_t *c, double t, int32_t rank, uint32_t gen)
{
    if (c->n == c->cap) {
        sim_event_t *h = realloc(c->heap, 2 * c->cap * sizeof *h);
        if (!h) return -1;
        c->heap = h;
        c->cap *= 2;
    }
    if (t < c->now) t = c->now; /* never into the past: the clock only moves forward */
    sim_event_t e = {t, c->seq++, rank, gen};
    size_t i = c->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&e, &c->heap[p])) break;
        c->heap[i] = c->heap[p];
        i = p;
    }
    c->heap[i] = e;
    return 0;
}

int sim_clock_pop(sim_clock_t *c, sim_event_t *ev)
{
    if (!c->n) return 0;
    *ev = c->heap[0];
    sim_event_t last = c->heap[--c->n];
    size_t i = 0, n = c->n;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const sim_event_t *best = &last;
        if (l < n && before(&c->heap[l], best)) m = l, best = &c->heap[l];
        if (l + 1 < n && before(&c->heap[l + 1], best)) m = l + 1;
        if (m == i) break;
        c->heap[i] = c->heap[m];
        i = m;
    }
    if (n) c->heap[i] = last;
    c->now = ev->t;
    return 1;
}

/* ---- Network ------------------------------------------------------------------------------ */
uint64_t sim_rand(uint64_t *s) /* xorshift64* */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

int sim_net_init(sim_net_t *n, int32_t nranks, int32_t rpn, uint64_t seed)
{
    memset(n, 0, sizeof *n);
    n->nranks = nranks;
    n->rpn = rpn > 0 ? rpn : nranks;
    n->slow_factor = 1;
    n->rng = seed * 0x9e3779b97f4a7c15ull + 0x1234567ull;
    if (!n->rng) n->rng = 1;
    n->port_out = calloc((size_t)nranks * SIM_NCLASS, sizeof *n->port_out);
    n->port_in = calloc((size_t)nranks * SIM_NCLASS, sizeof *n->port_in);
    n->bus = calloc((size_t)(nranks / n->rpn + 1), sizeof *n->bus);
    return n->port_out && n->port_in && n->bus ? 0 : -1;
}

void sim_net_destroy(sim_net_t *n)
{
    for (int32_t i = 0; n->bus && i <= n->nranks / n->rpn; i++) free(n->bus[i].t);
    for (size_t i = 0; n->port_out && i < (size_t)n->nranks * SIM_NCLASS; i++)
        free(n->port_out[i].t);
    for (size_t i = 0; n->port_in && i < (size_t)n->nranks * SIM_NCLASS; i++) free(n->port_in[i].t);
    free(n->port_out);
    free(n->port_in);
    free(n->bus);
    free(n->slow);
    memset(n, 0, sizeof *n);
}

static double slowness(const sim_net_t *n, int32_t a, int32_t b)
{
    return n->slow && (n->slow[a] || n->slow[b]) ? n->slow_factor : 1.0;
}

static double latency(sim_net_t *n, const sim_link_t *l, double f)
{
    double lat = l->L * f;
    if (l->jitter > 0) lat += l->jitter * l->L * (double)(sim_rand(&n->rng) >> 11) * 0x1p-53;
    return lat;
}

double sim_net_data(sim_net_t *n, int32_t src, int32_t dst, uint64_t bytes, double t)
{
    int cls = sim_net_class(n, src, dst);
    const sim_link_t *l = &n->link[cls];
    double f = slowness(n, src, dst), busy = (double)bytes * l->G * f;
    sim_busy_t *out = &n->port_out[(size_t)src * SIM_NCLASS + cls];
    sim_busy_t *in = &n->port_in[(size_t)dst * SIM_NCLASS + cls];
    double start = t;
    if (busy > 0) {
        double s = sim_busy_take(out, t, busy, n->now);
        if (s >= 0) start = s;
    }
    double done = start + busy; /* the last byte has left */
    if (cls == SIM_INTRA && n->bus_G > 0 && bytes > 0) {
        double bb = (double)bytes * n->bus_G,
               s = sim_busy_take(&n->bus[src / n->rpn], start, bb, n->now);
        if (s >= 0 && s + bb > done) done = s + bb;
    }
    double arrive = done + latency(n, l, f);
    /* The receiving end takes the bytes at its own rate (busy before the arrival): a second
     * sender into it waits for a gap. */
    if (busy > 0) {
        double s = sim_busy_take(in, arrive - busy, busy, n->now);
        if (s >= 0) arrive = s + busy;
    }
    return arrive;
}

double sim_busy_take(sim_busy_t *b, double t, double d, double now)
{
    size_t drop = 0;
    while (drop < b->n && b->t[2 * drop + 1] <= now) drop++;
    if (drop) {
        memmove(b->t, b->t + 2 * drop, (b->n - drop) * 2 * sizeof *b->t);
        b->n -= drop;
    }
    size_t i = 0; /* the new interval goes before interval i */
    for (; i < b->n; i++) {
        if (t + d <= b->t[2 * i]) break; /* fits in the gap before interval i */
        if (t < b->t[2 * i + 1]) t = b->t[2 * i + 1];
    }
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        double *nt = realloc(b->t, cap * 2 * sizeof *nt);
        if (!nt) return -1;
        b->t = nt;
        b->cap = cap;
    }
    memmove(b->t + 2 * i + 2, b->t + 2 * i, (b->n - i) * 2 * sizeof *b->t);
    b->t[2 * i] = t;
    b->t[2 * i + 1] = t + d;
    b->n++;
    return t;
}

double sim_net_ctrl(sim_net_t *n, int32_t src, int32_t dst, double t)
{
    const sim_link_t *l = &n->link[sim_net_class(n, src, dst)];
    return t + latency(n, l, slowness(n, src, dst));
}

int sim_net_eager(const sim_net_t *n, int32_t src, int32_t dst, uint64_t bytes)
{
    return (double)bytes <= n->link[sim_net_class(n, src, dst)].eager;
}
