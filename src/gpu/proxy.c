/*
 * proxy.c - the GPU daemon's host proxy (proxy.h, issue 15, src/gpu/PROTOCOL.md section 11).
 *
 * Messages: a batch of records, each a rec_t, a chunk's data inline after its record (padded
 * to 8 bytes). One batch per peer per pass, or more when a batch fills; batches go out in
 * order and are applied in order (the receives of a peer are taken oldest first), so an
 * invitation entry's later state never lands before an earlier one, and acks only grow.
 *
 * Why the kernel's writes are found by polling and not through a work ring: the outbound
 * region already holds everything in a form with no ambiguity (a flag's sequence number says
 * whether its chunk is new, an ack or an invitation is its latest value), so a lost or doubled
 * notification cannot lose or double a record; the kick words only narrow the scan to the
 * channels that wrote. A ring would need room checks in the kernel, a wait the kernel must
 * never have.
 *
 * Buffer reuse: a chunk's data is copied into the batch, so the outbound entry is free again
 * as soon as the kernel may reuse it (after the receiver's ack, which implies this copy). The
 * receiver copies it from its receive buffer into the inbound entry, which the sender does not
 * reuse before this receiver's kernel acknowledged it.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"
#include "gpu/proxy.h"

/* The proxies talk on a context of their own: a shadow of WORLD (its members and ranks) on an
 * id no communicator and no other shadow has (dfc_comm.h lists them), point-to-point semantics
 * (a failure fails only what involves the failed peer, where WORLD's collective context would
 * fail everything once any rank died). */
#define PROXY_CTX ((uint32_t)DFC_CTX_SHADOW_GPU_PROXY)
#define PROXY_TAG 0
#define NRX 16        /* receives posted per remote peer */
#define LINGER_S 0.05 /* keep polling this long after the last event */

enum { REC_CHUNK = 1, REC_ACK, REC_INV };

typedef struct rec {
    uint32_t kind, chan, slot, entry; /* REC_INV: entry is the table index */
    uint64_t a, b, c; /* CHUNK: seq, ident, bytes; ACK: value; INV: ident, ordinal */
} rec_t;

typedef struct tx {
    struct tx *next;
    dfc_req_t req;
    size_t len;
    char buf[];
} tx_t;

typedef struct peer {
    int remote, world, dead;
    char *out, *in;
    uint64_t kick_seen[DFC_GPU_MAX_CHANNELS];
    uint64_t *fwd_seq;          /* [chan][slot]: last chunk forwarded */
    uint64_t *ack_sent;         /* [chan][slot]: last ack value forwarded */
    dfc_gpu_invite_t *inv_sent; /* [chan][DFC_GPU_INVITES]: last entry state forwarded */
    dfc_req_t rx[NRX];
    char *rxbuf[NRX];
    int rx_head;
    int64_t budget;     /* chunk bytes this pass may still copy (scan_out) */
    uint32_t next_chan; /* where the next scan starts (after a pass that ran out of budget) */
    tx_t *cur;          /* the batch being filled */
} peer_t;

struct dfc_gpu_proxy {
    dfc_gpu_geom_t g;
    int me, n;
    size_t cap; /* bytes of one batch */
    dfc_comm_t *comm, shadow;
    peer_t peer[DFC_GPU_MAX_LOCAL];
    tx_t *flight, *spare; /* batches sent and not complete; free ones */
    double last_active;
    uint64_t chunks_out, chunks_in, bytes_out;
};

static int post_rx(dfc_gpu_proxy_t *p, peer_t *q, int i)
{
    dfc_req_init_internal(&q->rx[i], p->comm);
    return dfc_p2p_irecv(p->comm, 0, q->rxbuf[i], p->cap, q->world, PROXY_TAG, &q->rx[i]);
}

static int peer_init(dfc_gpu_proxy_t *p, peer_t *q, char *out, char *in)
{
    size_t pairs = (size_t)p->g.channels * p->g.slots;
    q->remote = 1;
    q->out = out;
    q->in = in;
    q->fwd_seq = calloc(pairs, sizeof(uint64_t));
    q->ack_sent = calloc(pairs, sizeof(uint64_t));
    q->inv_sent = calloc((size_t)p->g.channels * DFC_GPU_INVITES, sizeof(dfc_gpu_invite_t));
    if (!q->fwd_seq || !q->ack_sent || !q->inv_sent)
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < NRX; i++) {
        if (!(q->rxbuf[i] = malloc(p->cap))) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
        int rc = post_rx(p, q, i);
        if (rc) return rc;
    }
    return DFC_SUCCESS;
}

int dfc_gpu_proxy_create(const dfc_gpu_geom_t *g, int me, int n, const int *world_of,
                         char *const *out, char *const *in, dfc_gpu_proxy_t **pp)
{
    dfc_gpu_proxy_t *p = calloc(1, sizeof *p);
    if (!p) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    p->g = *g;
    p->me = me;
    p->n = n;
    p->cap = 8192 + (size_t)g->chunk; /* a full chunk and its record always fit */
    p->shadow = *dfc_comm_get(DFC_COMM_WORLD);
    p->shadow.ctx = PROXY_CTX;
    p->shadow.is_world = p->shadow.is_self = 0;
    p->shadow.slots = NULL; /* no collective runs here; WORLD's slots are not the shadow's */
    p->comm = &p->shadow;
    p->last_active = dfc_time_now();
    int rc = DFC_SUCCESS;
    for (int i = 0; i < n && !rc; i++) {
        p->peer[i].world = world_of[i];
        if (i != me && out[i] && in[i]) rc = peer_init(p, &p->peer[i], out[i], in[i]);
    }
    if (rc) {
        dfc_gpu_proxy_destroy(p);
        return rc;
    }
    *pp = p;
    return DFC_SUCCESS;
}

/* ---- Sending ------------------------------------------------------------------------------ */

static tx_t *tx_get(dfc_gpu_proxy_t *p)
{
    tx_t *t = p->spare;
    if (t) p->spare = t->next;
    else t = malloc(sizeof *t + p->cap);
    if (t) t->len = 0;
    return t;
}

static int flush(dfc_gpu_proxy_t *p, peer_t *q)
{
    tx_t *t = q->cur;
    if (!t || !t->len) return DFC_SUCCESS;
    q->cur = NULL;
    dfc_req_init_internal(&t->req, p->comm);
    int rc = dfc_p2p_isend(p->comm, 0, t->buf, t->len, q->world, PROXY_TAG, 0, &t->req);
    t->next = p->flight;
    p->flight = t;
    if (rc) t->req.complete = 1; /* reaped at once; the peer is dropped by the caller */
    return rc;
}

/* Room for `bytes` in the peer's batch (a new batch when it is full): its address, or NULL. */
static char *reserve(dfc_gpu_proxy_t *p, peer_t *q, size_t bytes)
{
    if (q->cur && q->cur->len + bytes > p->cap && flush(p, q)) return NULL;
    if (!q->cur && !(q->cur = tx_get(p))) return NULL;
    char *at = q->cur->buf + q->cur->len;
    q->cur->len += bytes;
    return at;
}

static int add_rec(dfc_gpu_proxy_t *p, peer_t *q, const rec_t *r, const volatile char *data)
{
    size_t pad = r->kind == REC_CHUNK ? (r->c + 7) & ~(size_t)7 : 0;
    char *at = reserve(p, q, sizeof *r + pad);
    if (!at) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a proxy batch");
    memcpy(at, r, sizeof *r);
    if (pad) memcpy(at + sizeof *r, (const char *)data, r->c);
    return DFC_SUCCESS;
}

/* New chunks (in sequence order) and the ack of one FIFO. */
static int scan_fifo(dfc_gpu_proxy_t *p, peer_t *q, uint32_t chan, uint32_t slot, int *events,
                     int *partial)
{
    const dfc_gpu_geom_t *g = &p->g;
    uint64_t *fwd = &q->fwd_seq[chan * g->slots + slot];
    for (;;) {
        if (q->budget <= 0) { /* the rest in the next pass */
            *partial = 1;
            break;
        }
        uint64_t seq = *fwd + 1;
        uint32_t entry = (uint32_t)(seq % g->depth);
        volatile dfc_gpu_flag_t *f =
            (volatile dfc_gpu_flag_t *)(q->out + dfc_gpu_pair_flags_off(g, chan, slot, entry));
        if (f->seq != seq) break;
        __sync_synchronize(); /* the flag's body and the chunk were written before its seq */
        rec_t r = {REC_CHUNK, chan, slot, entry, seq, f->ident, f->bytes};
        if (r.c > g->chunk) r.c = g->chunk;
        int rc = add_rec(p, q, &r, q->out + dfc_gpu_pair_data_off(g, chan, slot, entry));
        if (rc) return rc;
        *fwd = seq;
        q->budget -= (int64_t)r.c;
        p->chunks_out++;
        p->bytes_out += r.c;
        (*events)++;
    }
    uint64_t ack = *(volatile uint64_t *)(q->out + dfc_gpu_pair_acks_off(g, chan, slot));
    uint64_t *sent = &q->ack_sent[chan * g->slots + slot];
    if (ack == *sent) return DFC_SUCCESS;
    rec_t r = {REC_ACK, chan, slot, 0, ack, 0, 0};
    *sent = ack;
    (*events)++;
    return add_rec(p, q, &r, NULL);
}

/* Changed invitation entries of one channel: the ident read first, then the ordinal (the
 * kernel writes a new entry's ordinal before its ident), so a forwarded ident never comes
 * with an ordinal older than the one written before it. */
static int scan_invites(dfc_gpu_proxy_t *p, peer_t *q, uint32_t chan, int *events)
{
    dfc_gpu_invite_t *sent = &q->inv_sent[chan * DFC_GPU_INVITES];
    for (uint32_t i = 0; i < DFC_GPU_INVITES; i++) {
        volatile dfc_gpu_invite_t *e =
            (volatile dfc_gpu_invite_t *)(q->out + dfc_gpu_pair_inv_off(&p->g, chan, i));
        uint64_t ident = e->ident;
        __sync_synchronize();
        uint64_t ord = e->ordinal;
        if (ident == sent[i].ident && ord == sent[i].ordinal) continue;
        sent[i].ident = ident;
        sent[i].ordinal = ord;
        rec_t r = {REC_INV, chan, 0, i, ident, ord, 0};
        int rc = add_rec(p, q, &r, NULL);
        if (rc) return rc;
        (*events)++;
    }
    return DFC_SUCCESS;
}

/* Forwards what the kernel wrote for q since the last pass, in the channels it kicked. A pass
 * copies about 4 chunks, so that the transport moves (and the receiver applies) one part
 * while the next is copied, rather than a whole step's chunks after one long copy; a channel
 * left unfinished keeps its kick unseen and comes first in the next pass. */
static int scan_out(dfc_gpu_proxy_t *p, peer_t *q, int *events)
{
    q->budget = 4 * (int64_t)p->g.chunk;
    for (uint32_t i = 0; i < p->g.channels; i++) {
        uint32_t c = (q->next_chan + i) % p->g.channels;
        uint64_t kick = *(volatile uint64_t *)(q->out + c * sizeof(uint64_t));
        if (kick == q->kick_seen[c]) continue;
        __sync_synchronize(); /* the writes the kick announces */
        int partial = 0, rc = DFC_SUCCESS;
        for (uint32_t s = 0; s < p->g.slots && !rc; s++)
            rc = scan_fifo(p, q, c, s, events, &partial);
        if (!rc) rc = scan_invites(p, q, c, events);
        if (rc) return rc;
        if (partial) {
            q->next_chan = c;
            break;
        }
        q->kick_seen[c] = kick;
    }
    return flush(p, q);
}

/* ---- Receiving ---------------------------------------------------------------------------- */

/* Applies one batch to the inbound region, in the order the kernel's protocol requires. */
static void apply(dfc_gpu_proxy_t *p, peer_t *q, const char *msg, size_t len)
{
    const dfc_gpu_geom_t *g = &p->g;
    size_t at = 0;
    while (at + sizeof(rec_t) <= len) {
        rec_t r;
        memcpy(&r, msg + at, sizeof r);
        at += sizeof r;
        if (r.chan >= g->channels || r.slot >= g->slots) break; /* not ours: never happens */
        if (r.kind == REC_CHUNK && r.entry < g->depth && r.c <= g->chunk) {
            volatile dfc_gpu_flag_t *f =
                (volatile dfc_gpu_flag_t *)(q->in +
                                            dfc_gpu_pair_flags_off(g, r.chan, r.slot, r.entry));
            memcpy(q->in + dfc_gpu_pair_data_off(g, r.chan, r.slot, r.entry), msg + at, r.c);
            at += (r.c + 7) & ~(size_t)7;
            __sync_synchronize(); /* the chunk before the flag */
            f->ident = r.b;
            f->bytes = r.c;
            __sync_synchronize(); /* the flag's body before its seq */
            f->seq = r.a;
            p->chunks_in++;
        } else if (r.kind == REC_ACK) {
            *(volatile uint64_t *)(q->in + dfc_gpu_pair_acks_off(g, r.chan, r.slot)) = r.a;
        } else if (r.kind == REC_INV && r.entry < DFC_GPU_INVITES) {
            volatile dfc_gpu_invite_t *e =
                (volatile dfc_gpu_invite_t *)(q->in + dfc_gpu_pair_inv_off(g, r.chan, r.entry));
            if (e->ident != r.a && e->ident != 0 && e->ident != DFC_GPU_INV_GONE) {
                e->ident = DFC_GPU_INV_GONE; /* another collective's entry: released first */
                __sync_synchronize();
            }
            e->ordinal = r.b;
            __sync_synchronize(); /* the ordinal before the ident that makes it found */
            e->ident = r.a;
        } else {
            break;
        }
    }
}

/* Applies the batches that arrived, oldest first, and posts their receives again. */
static int take_rx(dfc_gpu_proxy_t *p, peer_t *q, int *events)
{
    while (q->rx[q->rx_head].complete) {
        dfc_req_t *r = &q->rx[q->rx_head];
        if (r->status.DFC_ERROR) return r->status.DFC_ERROR;
        apply(p, q, q->rxbuf[q->rx_head], (size_t)(uint32_t)r->status.count_lo);
        (*events)++;
        int rc = post_rx(p, q, q->rx_head);
        if (rc) return rc;
        q->rx_head = (q->rx_head + 1) % NRX;
    }
    return DFC_SUCCESS;
}

/* ---- The pass ----------------------------------------------------------------------------- */

/* The transport failed towards q, or q was declared failed: nothing more goes to it or comes
 * from it. The collectives that wait on it are failed by the coll layer's fault check
 * (dfc_coll_gpu_pass: DFC_ERR_PROC_FAILED, then the daemon's cancel). */
static void drop_peer(dfc_gpu_proxy_t *p, peer_t *q)
{
    q->dead = 1;
    for (int i = 0; i < NRX; i++)
        if (!q->rx[i].complete) dfc_p2p_cancel_recv(&q->rx[i]);
    if (q->cur) {
        q->cur->next = p->spare;
        p->spare = q->cur;
        q->cur = NULL;
    }
}

static int reap_tx(dfc_gpu_proxy_t *p)
{
    int n = 0;
    for (tx_t **t = &p->flight; *t;) {
        tx_t *x = *t;
        if (!x->req.complete) {
            t = &x->next;
            continue;
        }
        *t = x->next;
        x->next = p->spare;
        p->spare = x;
        n++;
    }
    return n;
}

int dfc_gpu_proxy_pass(dfc_gpu_proxy_t *p)
{
    int events = 0;
    for (int i = 0; i < p->n; i++) {
        peer_t *q = &p->peer[i];
        if (!q->remote || q->dead) continue;
        int rc = dfc_fault_check(NULL, 0, q->world);
        if (!rc) rc = take_rx(p, q, &events);
        if (!rc) rc = scan_out(p, q, &events);
        if (rc) {
            if (!dfc_fault_check(NULL, 0, q->world)) /* a transport error of ours: say so */
                dfc_fault_peer(q->world, DFC_ERR_PROC_FAILED, "gpu proxy");
            drop_peer(p, q);
            events++;
        }
    }
    events += reap_tx(p);
    if (events) p->last_active = dfc_time_now();
    return events;
}

int dfc_gpu_proxy_busy(dfc_gpu_proxy_t *p)
{
    return p->flight || dfc_time_now() - p->last_active < LINGER_S;
}

void dfc_gpu_proxy_touch(dfc_gpu_proxy_t *p) { p->last_active = dfc_time_now(); }

int dfc_gpu_proxy_peer_failed(const dfc_gpu_proxy_t *p, int i)
{
    return i >= 0 && i < p->n && p->peer[i].dead;
}

void dfc_gpu_proxy_stats(const dfc_gpu_proxy_t *p, uint64_t *chunks_out, uint64_t *chunks_in,
                         uint64_t *bytes_out)
{
    *chunks_out = p->chunks_out;
    *chunks_in = p->chunks_in;
    *bytes_out = p->bytes_out;
}

void dfc_gpu_proxy_destroy(dfc_gpu_proxy_t *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++) {
        peer_t *q = &p->peer[i];
        if (q->remote && !q->dead) drop_peer(p, q);
    }
    /* the last batches (acks) are small and eager: they complete, unless a peer is gone */
    double until = dfc_time_now() + 1.0;
    while (p->flight && dfc_time_now() < until) {
        dfc_progress_net();
        reap_tx(p);
    }
    for (int i = 0; i < p->n; i++) {
        peer_t *q = &p->peer[i];
        for (int k = 0; k < NRX; k++) free(q->rxbuf[k]);
        free(q->fwd_seq);
        free(q->ack_sent);
        free(q->inv_sent);
    }
    for (tx_t *t = p->spare, *nx; t; t = nx) {
        nx = t->next;
        free(t);
    }
    /* a send still in flight keeps its batch: the transport may read it yet */
    free(p);
}
