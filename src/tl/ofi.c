/*
 * ofi.c - the ofi transport: peers reached through libfabric (DFC_TRANSPORT=ofi: every
 * other process; auto: other nodes, when a provider other than tcp/udp/sockets exists).
 * Provider discovery and choice are in ofi_prov.c, the message format in ofi_wire.h.
 *
 * Endpoint: one FI_EP_RDM endpoint with FI_TAGGED, FI_ORDER_SAS (packets to one peer
 * arrive in the order sent, which dfc_tl.h asks for), an address vector (FI_AV_TABLE) and
 * one completion queue, with an FI_WAIT_FD wait object where the provider has one.
 *
 * Init (two fences): each process with peers publishes its fi_getname as dfc.ofi.name and
 * its provider as dfc.ofi.prov; world rank 0 publishes a fresh job secret dfc.ofi.secret.
 * After the first fence every process inserts its peers' names into the address vector and
 * checks that they chose its provider (a clear error otherwise); after the second, it posts
 * its receive buffers and sends each peer a HELLO carrying the secret. The second fence
 * makes every address vector complete before the job's first message leaves. Without it
 * the sockets provider lost messages (jobs of 3 or more processes hung): it looks the
 * source of an accepted connection up in the receiver's address vector once, when the
 * connection's first message (its address) arrives, and a connection that came before the
 * receiver inserted the sender's address reports FI_ADDR_NOTAVAIL as the source of every
 * message on it, for good, which the source check below drops.
 * A message is accepted only from a peer whose HELLO had the right secret, only when the
 * provider's source address (FI_SOURCE, where offered) is that peer's address vector
 * entry, and only when it passes dfc_ofi_wire_check; anything else is dropped (logged at
 * info level).
 *
 * Data path: send copies header and payload into a registered bounce buffer and posts one
 * tagged send; large messages are read by the receiver with one RMA read where the provider
 * offers FI_RMA (ofi_rma.c: the RTS carries a key, rget reads), else cut by the comm layer
 * into DATA packets of max_payload bytes (its rendezvous). Flow control: per
 * peer `credits` may be unacknowledged, a packet taking one per started 32 KiB of payload
 * (pkt_cost); the receiver gives credits back (on its
 * own packets, or in a CREDIT message once half of them are used), so the provider never
 * holds more than credits x peers unexpected messages, however fast a sender floods.
 * Without a credit or a free bounce buffer send answers DFC_TL_AGAIN.
 *
 * Failure: an error completion of a send (FI_EIO, a refused connection, ...) fails that
 * peer. Progress sends each peer a BEAT when nothing else went to it for a quarter of
 * DFC_FAULT_TIMEOUT, so a peer whose process died is found by the error completion of a
 * BEAT; with DFC_OFI_KEEPALIVE set, a peer silent that long (its host died without a word)
 * fails too; off by default, since a peer computing between DFC calls is silent as well. Failed peers are reported once by progress, as tcp does.
 *
 * Threads: the comm layer serializes everything but wait; the domain is opened with
 * FI_THREAD_SAFE where offered, since wait calls fi_trywait outside the comm layer's lock.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "pmix/dfc_boot.h"
#include "tl/dfc_tl.h"
#include "tl/ofi_prov.h"
#include "tl/ofi_wire.h"
#include "util/dfc_util.h"

#if HAVE_LIBFABRIC
#include "tl/ofi_fabric.h"
#include "tl/ofi_int.h"


static void ofi_fini(dfc_tl_t *tl);

/* ---- failures ------------------------------------------------------------------------ */

static void rx_release(ofi_t *s, ofi_buf_t *b);

void dfc_ofi_peer_fail(ofi_t *s, ofi_peer_t *p, const char *fmt, ...)
{
    if (p->dead) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why, sizeof(p->why), fmt, ap);
    va_end(ap);
    p->dead = p->unreported = 1;
    s->nunreported++;
    while (p->stash) { /* its messages waiting for an earlier one: never delivered now */
        ofi_buf_t *b = p->stash;
        p->stash = b->snext;
        rx_release(s, b);
    }
    dfc_ofi_rma_peer_gone(s, p); /* its keys and our registrations for it */
    DFC_LOG(DFC_LOG_INFO, "ofi", "peer world rank %d failed: %s", p->world, p->why);
}

int dfc_ofi_dead_err(const char *func, const ofi_peer_t *p)
{
    return dfc_err(DFC_ERR_PROC_FAILED, func, "world rank %d: %s", p->world, p->why);
}

/* ---- buffer pools: one registered region each ------------------------------------------ */

static int pool_init(ofi_t *s, ofi_pool_t *pl, int kind, int n, size_t size)
{
    pl->n = n;
    pl->size = (size + 63) & ~(size_t)63;
    pl->bufs = dfc_calloc((size_t)n, sizeof(ofi_buf_t));
    pl->mem = dfc_malloc((size_t)n * pl->size);
    if (!pl->bufs || !pl->mem)
        return DFC_ERR(DFC_ERR_NO_MEM,
                       "out of memory for %d ofi buffers "
                       "of %zu bytes",
                       n, pl->size);
    void *desc = NULL;
    uint64_t mrm = s->info->domain_attr->mr_mode;
    if (mrm & FI_MR_LOCAL) { /* the provider wants local buffers registered */
        int r = fi_mr_reg(s->domain, pl->mem, (size_t)n * pl->size, FI_SEND | FI_RECV, 0, 0, 0,
                          &pl->mr, NULL);
        if (!r && (mrm & FI_MR_ENDPOINT)) {
            r = fi_mr_bind(pl->mr, &s->ep->fid, 0);
            if (!r) r = fi_mr_enable(pl->mr);
        }
        if (r) return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "fi_mr_reg: %s", fi_strerror(-r));
        desc = fi_mr_desc(pl->mr);
    }
    pl->free = -1;
    for (int i = n - 1; i >= 0; i--) {
        pl->bufs[i] = (ofi_buf_t){.kind = kind,
                                  .next = pl->free,
                                  .mem = pl->mem + i * pl->size,
                                  .desc = desc};
        pl->free = i;
    }
    pl->nfree = n;
    return DFC_SUCCESS;
}

static void pool_fini(ofi_pool_t *pl)
{
    if (pl->mr) fi_close(&pl->mr->fid);
    dfc_free(pl->bufs);
    dfc_free(pl->mem);
    memset(pl, 0, sizeof(*pl));
}

static ofi_buf_t *pool_get(ofi_pool_t *pl)
{
    if (pl->free < 0) return NULL;
    ofi_buf_t *b = &pl->bufs[pl->free];
    pl->free = b->next;
    pl->nfree--;
    return b;
}

static void pool_put(ofi_pool_t *pl, ofi_buf_t *b)
{
    b->next = pl->free;
    pl->free = (int)(b - pl->bufs);
    pl->nfree++;
}

/* A receive's buffer is done with: back to its pool, or freed (a spill, dfc_ofi_cq_drain). */
static void rx_release(ofi_t *s, ofi_buf_t *b)
{
    if (b->kind == BUF_SPILL) dfc_free(b);
    else pool_put(&s->rx, b);
}

/* Posts every free receive buffer. A provider that is full now (-FI_EAGAIN) gets the rest
 * at the next progress call. */
static int post_recvs(ofi_t *s)
{
    ofi_buf_t *b;
    while ((b = pool_get(&s->rx))) {
        ssize_t r = fi_trecv(s->ep, b->mem, s->rx.size, b->desc, FI_ADDR_UNSPEC, DFC_OFI_TAG, 0,
                             &b->ctx);
        if (r == 0) continue;
        pool_put(&s->rx, b);
        if (r == -FI_EAGAIN) return DFC_SUCCESS;
        return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "fi_trecv: %s", fi_strerror((int)-r));
    }
    return DFC_SUCCESS;
}

/* ---- sending ----------------------------------------------------------------------------- */

/* Posts b (len bytes) to peer p. Returns 0, 1 when the provider is full (b is not taken), or
 * -1 when the peer failed. */
static int post_send(ofi_t *s, ofi_peer_t *p, ofi_buf_t *b, size_t len)
{
    ((dfc_ofi_wire_t *)b->mem)->seq = p->tx_seq;
    ssize_t r = fi_tsend(s->ep, b->mem, len, b->desc, p->addr, DFC_OFI_TAG, &b->ctx);
    if (r == -FI_EAGAIN) {
        if (!p->again_since) p->again_since = dfc_time_ns();
        return 1;
    }
    p->again_since = 0;
    if (r) {
        dfc_ofi_peer_fail(s, p, "fi_tsend: %s", fi_strerror((int)-r));
        return -1;
    }
    b->peer = (int)(p - s->peers);
    p->tx_seq++;
    if (p->inflight++ == 0) p->busy_since = dfc_time_ns();
    s->ntx_busy++;
    p->last_tx = dfc_time_ns();
    return 0;
}

/* A small packet (up to the provider's inject size) goes out with fi_tinject: the provider
 * copies it before returning, so the bounce buffer is free at once and no send completion
 * comes back (per message, one completion queue entry less to write, read and account for).
 * Without a completion no error comes back either: a peer that died is found by the BEATs and other
 * control messages, which keep completions (and do not count injected sends as traffic:
 * last_tx). Returns as post_send; when it returns 0, b is back in its pool. */
static int post_inject(ofi_t *s, ofi_peer_t *p, ofi_buf_t *b, size_t len)
{
    ((dfc_ofi_wire_t *)b->mem)->seq = p->tx_seq;
    ssize_t r = fi_tinject(s->ep, b->mem, len, p->addr, DFC_OFI_TAG);
    if (r == -FI_EAGAIN) {
        if (!p->again_since) p->again_since = dfc_time_ns();
        return 1;
    }
    p->again_since = 0;
    if (r) {
        dfc_ofi_peer_fail(s, p, "fi_tinject: %s", fi_strerror((int)-r));
        return -1;
    }
    p->inj_seq = p->tx_seq++;
    p->injected = 1;
    pool_put(b->kind == BUF_TX ? &s->tx : &s->ctl, b);
    return 0;
}

/* Sends a HELLO, CREDIT or BEAT from the control pool. Returns 0 when posted. */
static int send_ctl(ofi_t *s, ofi_peer_t *p, int kind)
{
    if (p->dead) return -1;
    /* The HELLO goes first, whatever is sent: the peer drops anything before it. */
    if (kind != DFC_OFI_HELLO && !p->hello_sent && send_ctl(s, p, DFC_OFI_HELLO) != 0) return 1;
    ofi_buf_t *b = pool_get(&s->ctl);
    if (!b) return 1;
    size_t len = sizeof(dfc_ofi_wire_t);
    if (kind == DFC_OFI_HELLO) {
        dfc_ofi_hello_build((dfc_ofi_hello_t *)b->mem, s->rank, s->size, s->secret);
        len = sizeof(dfc_ofi_hello_t);
    } else {
        *(dfc_ofi_wire_t *)b->mem = (dfc_ofi_wire_t){.magic = DFC_OFI_MAGIC,
                                                     .kind = (uint16_t)kind,
                                                     .src_world = (uint32_t)s->rank,
                                                     .credits = (uint32_t)p->owed};
    }
    int r = post_send(s, p, b, len);
    if (r != 0) pool_put(&s->ctl, b);
    else if (kind == DFC_OFI_HELLO) p->hello_sent = 1;
    else p->owed = 0;
    return r;
}

/* Credits a packet with plen bytes of payload takes (both sides count alike, from the
 * payload alone): one per started DFC_OFI_CREDIT_BYTES (32 KiB), at least one. So 64 credits
 * let a window of 64 small messages go at once (osu_bw's; with 32 credits it waited for the
 * peer's credit message every window) while a stream of large packets keeps at most 2 MiB
 * in flight (32 of 64 KiB, 16 of 128 KiB), what the sockets of a peer that stops reading
 * take: more, and its sends stay uncompleted past DFC_FAULT_TIMEOUT, and the stuck-send rule
 * fails a live peer (faults/slowreader over tcp;ofi_rxm failed 2 of 3 runs with 64 KiB
 * packets of 1 credit each, passed 3 of 3 with 32). Up to 64 KiB of payload this is the rule
 * of before (2 above half of the 64 KiB packet, else 1); init raises the credits to the cost
 * of a full packet, so that one always fits. */
#define DFC_OFI_CREDIT_BYTES 32768u
static inline int pkt_cost(uint32_t plen)
{
    return plen > DFC_OFI_CREDIT_BYTES
               ? (int)((plen + DFC_OFI_CREDIT_BYTES - 1) / DFC_OFI_CREDIT_BYTES)
               : 1;
}

static int ofi_send(dfc_tl_t *tl, int peer, const dfc_pkt_t *pkt, const void *payload)
{
    ofi_t *s = tl->priv;
    ofi_peer_t *p = dfc_ofi_peer_of(s, peer);
    if (DFC_UNLIKELY(!p)) return DFC_ERR(DFC_ERR_INTERN, "world rank %d is not an ofi peer", peer);
    if (DFC_UNLIKELY(p->dead)) return dfc_ofi_dead_err(__func__, p);
    uint32_t plen = pkt->payload_len;
    if (DFC_UNLIKELY(plen > s->max_payload))
        return DFC_ERR(DFC_ERR_INTERN, "payload of %u bytes exceeds the maximum %zu", plen,
                       s->max_payload);
    int cost = pkt_cost(plen);
    if (p->credits < cost || s->tx.nfree == 0) return DFC_TL_AGAIN;
    if (DFC_UNLIKELY(!p->hello_sent) && send_ctl(s, p, DFC_OFI_HELLO) != 0)
        return p->dead ? dfc_ofi_dead_err(__func__, p) : DFC_TL_AGAIN;
    ofi_buf_t *b = pool_get(&s->tx);
    dfc_ofi_wire_t *w = (dfc_ofi_wire_t *)b->mem;
    *w = (dfc_ofi_wire_t){.magic = DFC_OFI_MAGIC,
                          .kind = DFC_OFI_PKT,
                          .src_world = (uint32_t)s->rank,
                          .credits = (uint32_t)p->owed};
    memcpy(w + 1, pkt, sizeof(*pkt));
    if (plen) memcpy((char *)(w + 1) + sizeof(*pkt), payload, plen);
    size_t len = dfc_ofi_pkt_len(plen);
    dfc_ofi_rkey_t *key = (dfc_ofi_rkey_t *)((char *)b->mem + len);
    struct ofi_expo *e = s->rma ? dfc_ofi_rma_expose(s, pkt, key) : NULL; /* RTS: key */
    if (e) {
        w->flags = DFC_OFI_WF_RKEY;
        len += sizeof(*key);
    }
    int r = !e && len <= s->inject_size ? post_inject(s, p, b, len) : post_send(s, p, b, len);
    if (e) dfc_ofi_rma_sent(s, p, e, r == 0);
    if (r != 0) {
        pool_put(&s->tx, b);
        return r > 0 ? DFC_TL_AGAIN : dfc_ofi_dead_err(__func__, p);
    }
    dfc_ofi_rma_on_pkt_out(s, p, pkt); /* our answer to an RTS: its key is done with */
    p->owed = 0;
    p->credits -= cost;
    return DFC_SUCCESS;
}

/* ---- receiving and completions ----------------------------------------------------------- */

/* Acts on one message of peer p, in the peer's order. */
static void on_msg(ofi_t *s, ofi_peer_t *p, ofi_buf_t *b, int kind)
{
    const dfc_ofi_wire_t *w = (const dfc_ofi_wire_t *)b->mem;
    p->last_rx = dfc_time_ns();
    if (kind == DFC_OFI_HELLO) {
        p->hello_ok = 1;
        return;
    }
    if (!p->hello_ok) {
        DFC_LOG(DFC_LOG_INFO, "ofi",
                "dropped a message from world rank %d: no valid hello "
                "before it",
                p->world);
        return;
    }
    if (w->credits) { /* never more than the initial credits, whatever a peer says */
        uint64_t c = (uint64_t)p->credits + w->credits;
        p->credits = c > (uint64_t)s->credits ? s->credits : (int)c;
    }
    if (kind == DFC_OFI_PKT) {
        const dfc_pkt_t *pkt = (const dfc_pkt_t *)(w + 1);
        p->owed += pkt_cost(pkt->payload_len);
        const dfc_ofi_rkey_t *key = NULL;
        if (w->flags & DFC_OFI_WF_RKEY) /* checked: after an RTS without payload */
            key = (const dfc_ofi_rkey_t *)((const char *)b->mem + dfc_ofi_pkt_len(0));
        dfc_ofi_rma_on_pkt_in(s, p, pkt, key);
        s->deliver(pkt, pkt + 1); /* may call ofi_send: our state is final here */
        s->delivered++;
        if (p->owed >= s->credits / 2) send_ctl(s, p, DFC_OFI_CREDIT); /* else next progress */
    }
}

/* The stashed message of p that is next in order, unlinked, or NULL. */
static ofi_buf_t *stash_take(ofi_peer_t *p)
{
    for (ofi_buf_t **q = &p->stash; *q; q = &(*q)->snext)
        if ((*q)->seq == p->rx_seq) {
            ofi_buf_t *b = *q;
            *q = b->snext;
            return b;
        }
    return NULL;
}

static void on_recv(ofi_t *s, ofi_buf_t *b, size_t len, fi_addr_t src)
{
    const char *why = NULL;
    int kind = dfc_ofi_wire_check(b->mem, len, s->size, s->max_payload, s->secret, &why);
    const dfc_ofi_wire_t *w = (const dfc_ofi_wire_t *)b->mem;
    ofi_peer_t *p = kind >= 0 ? dfc_ofi_peer_of(s, (int)w->src_world) : NULL;
    if (kind >= 0 && !p) why = "sender is not a peer of this transport";
    else if (p && s->has_source && src != p->addr) why = "source address is not the sender's";
    else if (p && p->dead) why = "the sender has failed";
    else if (p && w->seq - p->rx_seq >= (uint32_t)s->rx.n) why = "sequence number out of range";
    if (why) {
        DFC_LOG(DFC_LOG_INFO, "ofi", "dropped a message of %zu bytes: %s", len, why);
        rx_release(s, b);
        return;
    }
    if (w->seq != p->rx_seq) { /* an earlier message has not completed yet */
        b->seq = w->seq;
        b->len = len;
        b->snext = p->stash;
        p->stash = b;
        return;
    }
    for (;;) {
        p->rx_seq++;
        on_msg(s, p, b, kind);
        rx_release(s, b);
        if (!p->stash || !(b = stash_take(p))) break;
        kind = ((const dfc_ofi_wire_t *)b->mem)->kind;
    }
}

static void on_cq_error(ofi_t *s)
{
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof(e));
    if (fi_cq_readerr(s->cq, &e, 0) < 1) return;
    ofi_buf_t *b = e.op_context;
    const char *msg = fi_cq_strerror(s->cq, e.prov_errno, e.err_data, NULL, 0);
    if (!b) {
        DFC_LOG(DFC_LOG_INFO, "ofi", "completion error without context: %s", fi_strerror(e.err));
        return;
    }
    if (b->kind == BUF_READ) { /* rget's: it reports the error (a bad key is not a death) */
        DFC_LOG(DFC_LOG_INFO, "ofi", "read error: %s (%s)", fi_strerror(e.err), msg ? msg : "");
        dfc_ofi_read_done(s, b, e.err ? e.err : FI_EIO);
        return;
    }
    if (b->kind == BUF_RX) { /* a truncated or broken receive: drop it, repost the buffer */
        DFC_LOG(DFC_LOG_INFO, "ofi", "receive error: %s (%s)", fi_strerror(e.err), msg ? msg : "");
        pool_put(&s->rx, b);
        return;
    }
    s->ntx_busy--;
    ofi_peer_t *p = &s->peers[b->peer];
    p->inflight--;
    pool_put(b->kind == BUF_TX ? &s->tx : &s->ctl, b);
    if (e.err != FI_ECANCELED)
        dfc_ofi_peer_fail(s, p, "send failed: %s%s%s", fi_strerror(e.err), msg ? ": " : "",
                          msg ? msg : "");
}

/* A receive completed while rget waits: copied out, so that its buffer is posted again at
 * once. Providers that buffer nothing for a receive not posted stop reading that peer's
 * connection until one is: the net provider keeps 4 small unexpected messages a connection,
 * then waits, and a read's response behind them never came while rget held every buffer
 * (pt2pt/manyreads with 4 processes hung: 16 reads in flight, the 17th blocking, 96 credits
 * against 64 buffers). Without memory for the copy the buffer is held, as before. */
static ofi_buf_t *spill(ofi_t *s, ofi_buf_t *b, size_t len)
{
    ofi_buf_t *c = dfc_malloc(sizeof(*c) + len);
    if (!c) return b;
    *c = (ofi_buf_t){.kind = BUF_SPILL, .mem = (char *)(c + 1)};
    memcpy(c->mem, b->mem, len);
    pool_put(&s->rx, b);
    return c;
}

/* Room for a batch of deferred receives; 0 when there is none (read nothing then). */
static int defer_room(ofi_t *s)
{
    if (s->ndeferred + OFI_CQ_BATCH <= s->deferred_cap) return 1;
    int cap = 2 * s->deferred_cap;
    ofi_rx_done_t *d = dfc_realloc(s->deferred, (size_t)cap * sizeof(*d));
    if (!d) return 0;
    s->deferred = d;
    s->deferred_cap = cap;
    return 1;
}

void dfc_ofi_cq_drain(ofi_t *s, int defer)
{
    struct fi_cq_tagged_entry e[OFI_CQ_BATCH];
    fi_addr_t src[OFI_CQ_BATCH];
    for (int i = 0; !defer && i < s->ndeferred; i++) /* held back during a read */
        on_recv(s, s->deferred[i].b, s->deferred[i].len, s->deferred[i].src);
    if (!defer) s->ndeferred = 0;
    for (int round = 0; round < 4 && (!defer || defer_room(s)); round++) {
        ssize_t n = s->has_source ? fi_cq_readfrom(s->cq, e, OFI_CQ_BATCH, src)
                                  : fi_cq_read(s->cq, e, OFI_CQ_BATCH);
        if (n == -FI_EAVAIL) {
            on_cq_error(s);
            continue;
        }
        if (n <= 0) break;
        for (ssize_t i = 0; i < n; i++) {
            ofi_buf_t *b = e[i].op_context;
            fi_addr_t from = s->has_source ? src[i] : FI_ADDR_NOTAVAIL;
            if (b->kind == BUF_READ) {
                dfc_ofi_read_done(s, b, 0);
            } else if (b->kind == BUF_RX && defer) { /* rget runs inside a delivery */
                s->deferred[s->ndeferred++] = (ofi_rx_done_t){spill(s, b, e[i].len), e[i].len,
                                                              from};
            } else if (b->kind == BUF_RX) {
                on_recv(s, b, e[i].len, from);
            } else {
                ofi_peer_t *p = &s->peers[b->peer];
                /* Sends to a peer leave in order: what was injected before this one is out. */
                if (p->injected && (int32_t)(((dfc_ofi_wire_t *)b->mem)->seq - p->inj_seq) > 0)
                    p->injected = 0;
                p->inflight--;
                p->busy_since = dfc_time_ns();
                s->ntx_busy--;
                pool_put(b->kind == BUF_TX ? &s->tx : &s->ctl, b);
            }
        }
        if (n < OFI_CQ_BATCH) break;
    }
    if (defer && post_recvs(s)) DFC_LOG(DFC_LOG_INFO, "ofi", "reposting receive buffers failed");
}

/* Beats to peers we sent nothing to lately, credits still owed, and the silence rule. */
static void keepalive(ofi_t *s, uint64_t now)
{
    /* We did not listen for long (no progress calls): no verdict on anyone this time. */
    int deaf = s->last_progress + s->stuck_ns / 2 < now;
    for (int i = 0; i < s->npeers; i++) {
        ofi_peer_t *p = &s->peers[i];
        if (p->dead) continue;
        if (deaf) {
            p->last_rx = now;
            if (p->inflight) p->busy_since = now;
            if (p->again_since) p->again_since = now;
        }
        /* A HELLO the provider refused at init goes out here (send_ctl sends it first);
         * the rules below judge a peer that never accepts it as any other. */
        if (!p->hello_sent || p->owed >= s->credits / 2 || p->last_tx + s->beat_ns <= now)
            send_ctl(s, p, p->owed ? DFC_OFI_CREDIT : DFC_OFI_BEAT);
        /* rxm retries a refused connection forever and never fails the send: a send that
         * has not completed within DFC_FAULT_TIMEOUT fails the peer, unless the peer's own
         * messages (beats at least) still arrive. Our sends can wait behind a large read of
         * our memory that a live peer is serving: a 2 GiB one over tcp;ofi_rxm on the loaded
         * 2-core CI host took over 5 s (pt2pt/bigmsg failed 2 of 3 CI runs in stop 27). */
        int heard = p->last_rx + s->stuck_ns >= now;
        if (!heard && ((p->inflight > 0 && p->busy_since + s->stuck_ns < now) ||
                       (p->again_since && p->again_since + s->stuck_ns < now)))
            dfc_ofi_peer_fail(s, p, "sends not %s within DFC_FAULT_TIMEOUT=%.0f s",
                              p->again_since ? "accepted by the provider" : "completed",
                              s->stuck_ns / 1e9);
        else if (s->silence_ns && p->last_rx + s->silence_ns < now)
            dfc_ofi_peer_fail(s, p, "no message for %.0f s (DFC_OFI_KEEPALIVE)",
                              s->silence_ns / 1e9);
    }
}

void dfc_ofi_tick(ofi_t *s)
{
    uint64_t now = dfc_time_ns();
    if (s->last_progress + s->beat_ns / 4 <= now) {
        keepalive(s, now);
        s->last_progress = now;
    }
}

static int ofi_progress(dfc_tl_t *tl, dfc_tl_deliver_fn deliver)
{
    ofi_t *s = tl->priv;
    if (!s || s->npeers == 0) return 0;
    s->deliver = deliver;
    s->delivered = 0;
    dfc_ofi_cq_drain(s, 0);
    int rc = post_recvs(s);
    if (rc) DFC_LOG(DFC_LOG_INFO, "ofi", "reposting receive buffers failed");
    dfc_ofi_tick(s);
    if (DFC_UNLIKELY(s->nunreported)) {
        for (int i = 0; i < s->npeers; i++) {
            ofi_peer_t *p = &s->peers[i];
            if (p->unreported) {
                p->unreported = 0;
                s->nunreported--;
                tl->failed_peer = p->world;
                return -dfc_ofi_dead_err(__func__, p); /* dfc_tl.h: a failure is returned negated */
            }
        }
    }
    return s->delivered;
}

/* Sends to failed peers may never complete (rxm keeps them): only live peers count. An
 * injected packet has no completion, and the provider may still hold it (a connection not
 * up yet, a full socket) while we would sit in the finalize fence that its peer never joins
 * without it: a peer that got one since our last completed send gets a BEAT, whose
 * completion says that everything before it left (sends to one peer go out in order). */
static int ofi_pending(dfc_tl_t *tl)
{
    ofi_t *s = tl->priv;
    if (!s) return 0;
    int busy = 0;
    for (int i = 0; i < s->npeers; i++) {
        ofi_peer_t *p = &s->peers[i];
        if (p->dead || (!p->inflight && !p->injected)) continue;
        if (!p->inflight) send_ctl(s, p, DFC_OFI_BEAT);
        busy = 1;
    }
    return busy;
}

int dfc_ofi_wait_ready(ofi_t *s)
{
    /* Resets the set's signal and looks at the queue; -FI_ETIMEDOUT: nothing there. */
    if (s->waitset) return fi_wait(s->waitset, 0) != -FI_ETIMEDOUT;
    struct fid *f = &s->cq->fid;
    return fi_trywait(s->fabric, &f, 1) != FI_SUCCESS;
}

/* dfc_tl.h: called with the caller's lock held; decides under it whether to sleep, drops it
 * (tl->wait_release) on every path, and sleeps without it. */
static void ofi_wait(dfc_tl_t *tl, long timeout_us)
{
    ofi_t *s = tl->priv;
    /* Receives an RMA read took off the queue wait in s->deferred: the wait object will not
     * say so. */
    int now = timeout_us == 0 || (s && s->ndeferred);
    long cap = s && s->npeers ? (long)(s->beat_ns / 4000) : -1; /* beats must go out */
    /* Our buffers exposed to reads, over a provider that serves reads only inside its calls
     * (manual data progress: tcp;ofi_rxm): a peer's read request makes no completion here.
     * rxm's wait fd still wakes for it (it polls the connections' sockets, which is how any
     * message wakes it under manual progress), so only without one sleep briefly and look
     * again. (It used to be 20 us naps with the fd too: a sender woke 50,000 times a second
     * while its peer read.) */
    if (s && s->nexpos && s->manual_progress && s->wait_fd < 0) cap = 20;
    if (cap > 0 && (timeout_us < 0 || timeout_us > cap)) timeout_us = cap;
    int fd = s ? s->wait_fd : -1;
    if (!now && fd >= 0) now = dfc_ofi_wait_ready(s);
    if (tl->wait_release) tl->wait_release(); /* it used to be kept: a self-deadlock */
    if (now) return;
    if (fd >= 0) {
        struct timespec ts = {timeout_us / 1000000, (timeout_us % 1000000) * 1000};
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        ppoll(&pf, 1, timeout_us < 0 ? NULL : &ts, NULL);
        return;
    }
    if (timeout_us < 0 || timeout_us > 50) timeout_us = 50; /* no wait object: poll often */
    struct timespec ts = {0, timeout_us * 1000};
    nanosleep(&ts, NULL);
}

/* ---- init ------------------------------------------------------------------------------- */

typedef struct ofi_params {
    long max_payload, credits, rx_bufs, tx_bufs, keepalive, rma, mr_cache, eager_limit, rma_min;
    const char *provider;
} ofi_params_t;

static void read_params(ofi_params_t *p)
{
    p->provider = dfc_tl_ofi_provider_param();
    /* 128 KiB: with the eager limit, a message of 64 to 128 KiB goes as one provider message
     * instead of a rendezvous: over net and rxm, ping-pong of 96 and 128 KiB took 0.54-0.69
     * of the time with 64 KiB on 2 cores and 0.82-0.91 on 16, allreduce of 192 and 256 KiB
     * 0.50-0.64 and 0.84 (BENCHMARKS.md, stop 29). */
    p->max_payload = dfc_env_long("DFC_OFI_MAX_PAYLOAD", 131072,
                                  "ofi: largest packet payload in bytes (rendezvous fragment "
                                  "size); every rank must use the same");
    /* 64, osu_bw's window: with 32 a window of 64 small messages stalled every time for the
     * peer's credit message (on 2 cores 66040 of 69649 sends at 256 B refused for want of a
     * credit, 2344 of 38350 with 64; bw 128 B to 16 KiB was 1.2x DFC's tcp over net on 16
     * cores; BENCHMARKS.md). A packet takes one per started 32 KiB of payload (pkt_cost),
     * so the bytes in flight stay as with 32 of 64 KiB. Receive buffers: DFC_OFI_RX_BUFS. */
    p->credits = dfc_env_long("DFC_OFI_CREDITS", 64,
                              "ofi: credits a rank may spend on packets to one peer before "
                              "the peer acknowledges them (one per started 32 KiB of payload; "
                              "flow control)");
    p->rx_bufs = dfc_env_long("DFC_OFI_RX_BUFS", 64, "ofi: receive buffers kept posted");
    p->tx_bufs = dfc_env_long("DFC_OFI_TX_BUFS", 64,
                              "ofi: send bounce buffers; with all in flight send answers "
                              "'try again'");
    p->keepalive = dfc_env_long("DFC_OFI_KEEPALIVE", 0,
                                "ofi: seconds without any message from a peer after which it "
                                "is failed; 0: never (a busy peer sends nothing)");
    p->rma = dfc_env_long("DFC_OFI_RMA", 1,
                          "ofi: 1: large messages are read by the receiver with RMA where the "
                          "provider offers FI_RMA; 0: sent as fragments");
    /* 128 KiB: over tcp;ofi_rxm a 32 or 64 KiB message went faster as one provider message
     * (rxm cuts it into segments and streams them) than by DFC's rendezvous, whose RMA read
     * waits for the sender's process to serve it (rxm's progress is manual), and over net and
     * rxm alike so did 96 and 128 KiB once the idle 2-core VM could tell (stop 29; the
     * loaded runs of 2026-12-02, branch ofi6, could not); BENCHMARKS.md. */
    p->eager_limit = dfc_env_long("DFC_OFI_EAGER_LIMIT", 131072,
                                  "ofi: largest message sent eagerly to an ofi peer (bytes, at "
                                  "most DFC_OFI_MAX_PAYLOAD); 0: DFC_EAGER_LIMIT");
    /* 0: over tcp;ofi_rxm, fragments (each one tcp message) were no faster than the read at
     * 128 KiB in A/B runs (ping-pong slower, bw about the same), slower from 256 KiB
     * (BENCHMARKS.md); the switch stays for providers where a read costs more. */
    p->rma_min = dfc_env_long("DFC_OFI_RMA_MIN", 0,
                              "ofi: smallest rendezvous message read by RMA (bytes); smaller "
                              "ones go as fragments; 0: every one is read");
    p->mr_cache = dfc_env_long("DFC_OFI_MR_CACHE", 64,
                               "ofi: memory registrations kept for reuse after their transfer "
                               "(at most 256); 0: each is closed when its transfer ends");
}

void dfc_tl_ofi_register_params(void)
{
    ofi_params_t p;
    read_params(&p);
}

/* The completion queue, with an fd to sleep on where the provider has one and the domain is
 * thread safe (wait runs outside the comm layer's lock): the queue's own FI_WAIT_FD, or a
 * wait set of ours where the provider's fi_trywait cannot be trusted (ofi_prov.h). Returns
 * 0 or a negative libfabric error. */
static int open_cq(ofi_t *s, size_t size, int safe)
{
    struct fi_cq_attr cq = {.format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_FD, .size = size};
    struct fi_wait_attr wa = {.wait_obj = FI_WAIT_FD};
    if (safe && dfc_ofi_prov_needs_waitset(s->info->fabric_attr->prov_name) &&
        fi_wait_open(s->fabric, &wa, &s->waitset) == 0) {
        cq.wait_obj = FI_WAIT_SET;
        cq.wait_set = s->waitset;
    }
    struct fid *w = s->waitset ? &s->waitset->fid : NULL;
    if (safe && fi_cq_open(s->domain, &cq, &s->cq, NULL) == 0 &&
        fi_control(w ? w : &s->cq->fid, FI_GETWAIT, &s->wait_fd) != 0) {
        fi_close(&s->cq->fid); /* a wait object we cannot sleep on: none */
        s->cq = NULL;
    }
    if (s->cq) return 0;
    if (s->waitset) fi_close(&s->waitset->fid);
    s->waitset = NULL;
    s->wait_fd = -1;
    cq.wait_obj = FI_WAIT_NONE;
    cq.wait_set = NULL;
    return fi_cq_open(s->domain, &cq, &s->cq, NULL);
}

static int open_endpoint(ofi_t *s, const ofi_params_t *prm, char *name, size_t *namelen)
{
    int r, rc = dfc_ofi_prov_choose(prm->provider, 1, prm->rma != 0, &s->info);
    if (rc) return rc;
    struct fi_info *i = s->info;
    s->has_source = (i->caps & FI_SOURCE) != 0;
    s->rma = prm->rma != 0 && (i->caps & FI_RMA) && (i->caps & FI_READ) &&
             dfc_ofi_prov_reads_ok(i->fabric_attr->prov_name);
    s->rma_min = prm->rma_min > 0 ? (size_t)prm->rma_min : 0;
    s->manual_progress = i->domain_attr->data_progress != FI_PROGRESS_AUTO;
    s->inject_size = i->tx_attr ? i->tx_attr->inject_size : 0;
    int safe = i->domain_attr->threading == FI_THREAD_SAFE; /* wait may run unlocked */
    /* Every packet, an RTS's key trailer included, as one rxm eager message (ofi_prov.h). */
    dfc_ofi_prov_rxm_defaults(i->fabric_attr->prov_name,
                              dfc_ofi_pkt_len((uint32_t)s->max_payload) + sizeof(dfc_ofi_rkey_t));
    const char *what = "fi_fabric";
    if ((r = fi_fabric(i->fabric_attr, &s->fabric, NULL))) goto fail;
    what = "fi_domain";
    if ((r = fi_domain(s->fabric, i, &s->domain, NULL))) goto fail;
    struct fi_av_attr av = {.type = FI_AV_TABLE};
    what = "fi_av_open";
    if ((r = fi_av_open(s->domain, &av, &s->av, NULL))) goto fail;
    what = "fi_cq_open";
    if ((r = open_cq(s, (size_t)(prm->rx_bufs + prm->tx_bufs) * 4, safe))) goto fail;
    what = "fi_endpoint";
    if ((r = fi_endpoint(s->domain, i, &s->ep, NULL))) goto fail;
    what = "fi_ep_bind";
    if ((r = fi_ep_bind(s->ep, &s->av->fid, 0)) ||
        (r = fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV)))
        goto fail;
    what = "fi_enable";
    if ((r = fi_enable(s->ep))) goto fail;
    what = "fi_getname";
    if ((r = fi_getname(&s->ep->fid, name, namelen))) goto fail;
    return DFC_SUCCESS;
fail:
    return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "%s (provider %s): %s", what,
                   i->fabric_attr->prov_name, fi_strerror(-r));
}

/* After the fence: the secret, the peers' names in the address vector, their provider. */
static int connect_peers(ofi_t *s, const dfc_tl_job_t *job)
{
    void *val = NULL;
    size_t len = 0;
    int rc = dfc_boot_get(0, "dfc.ofi.secret", &val, &len);
    if (!rc && len != DFC_OFI_SECRET_LEN)
        rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "the job secret has %zu bytes", len);
    if (!rc) memcpy(s->secret, val, DFC_OFI_SECRET_LEN);
    free(val);
    if (rc) return rc;
    const char *mine = s->info->fabric_attr->prov_name;
    uint64_t now = dfc_time_ns();
    for (int k = 0; k < job->npeers; k++) {
        int w = job->peers[k];
        if (w < 0 || w >= job->size || w == job->rank || s->w2p[w] >= 0)
            return DFC_ERR(DFC_ERR_INTERN, "bad ofi peer list entry %d", w);
        ofi_peer_t *p = &s->peers[s->npeers];
        *p = (ofi_peer_t){.world = w, .credits = s->credits, .last_rx = now, .last_tx = now};
        if (dfc_boot_get(w, "dfc.ofi.prov", &val, &len))
            return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                           "world rank %d opened no ofi endpoint "
                           "(with DFC_TRANSPORT=auto: libfabric finds other providers on its "
                           "node; set DFC_TRANSPORT or DFC_OFI_PROVIDER alike everywhere)",
                           w);
        int same = len > 0 && ((char *)val)[len - 1] == '\0' && !strcmp(val, mine);
        if (!same)
            rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                         "world rank %d uses libfabric provider "
                         "'%.*s', this rank (%d) '%s': set DFC_OFI_PROVIDER alike on every rank",
                         w, (int)DFC_MIN2(len, 64), len ? (char *)val : "", job->rank, mine);
        free(val);
        if (rc) return rc;
        if ((rc = dfc_boot_get(w, "dfc.ofi.name", &val, &len))) return rc;
        int n = fi_av_insert(s->av, val, 1, &p->addr, 0, NULL);
        free(val);
        if (n != 1)
            return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                           "fi_av_insert of world rank %d's "
                           "address failed",
                           w);
        s->w2p[w] = s->npeers++;
    }
    return DFC_SUCCESS;
}

/* Receive buffers, HELLO to every peer (waiting for room where the provider is full). */
static int start_peers(ofi_t *s, const ofi_params_t *prm)
{
    int rc;
    size_t big = dfc_ofi_pkt_len((uint32_t)s->max_payload);
    if ((rc = pool_init(s, &s->rx, BUF_RX, (int)prm->rx_bufs, big)) ||
        (rc = pool_init(s, &s->tx, BUF_TX, (int)prm->tx_bufs, big)) ||
        (rc = pool_init(s, &s->ctl, BUF_CTL, 2 * s->npeers + 64, sizeof(dfc_ofi_hello_t))) ||
        (rc = dfc_ofi_rma_init(s, prm->mr_cache)) || (rc = post_recvs(s)))
        return rc;
    /* The HELLOs the provider has no room for now go out from send or progress, first. */
    for (int k = 0; k < s->npeers; k++) send_ctl(s, &s->peers[k], DFC_OFI_HELLO);
    return DFC_SUCCESS;
}

static int alloc_and_connect(ofi_t *s, const dfc_tl_job_t *job)
{
    s->peers = dfc_calloc((size_t)job->npeers, sizeof(*s->peers));
    s->w2p = dfc_malloc((size_t)job->size * sizeof(int));
    if (!s->peers || !s->w2p)
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for %d ofi peers", job->npeers);
    for (int w = 0; w < job->size; w++) s->w2p[w] = -1;
    return connect_peers(s, job);
}

static int ofi_init(dfc_tl_t *tl, const dfc_tl_job_t *job)
{
    ofi_t *s = dfc_calloc(1, sizeof(*s));
    if (!s) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    tl->priv = s;
    s->wait_fd = -1;
    s->rank = job->rank;
    s->size = job->size;
    ofi_params_t prm;
    read_params(&prm);
    s->max_payload = prm.max_payload >= 1024 && prm.max_payload <= (1L << 26)
                         ? (size_t)prm.max_payload
                         : 131072;
    tl->max_payload = s->max_payload;
    tl->eager_limit = prm.eager_limit > 0 ? DFC_MIN2((size_t)prm.eager_limit, s->max_payload) : 0;
    s->credits = prm.credits >= 2 && prm.credits <= 4096 ? (int)prm.credits : 64;
    s->credits = DFC_MAX2(s->credits, pkt_cost((uint32_t)s->max_payload)); /* a full one fits */
    if (prm.rx_bufs < 1) prm.rx_bufs = 64;
    if (prm.tx_bufs < 1) prm.tx_bufs = 64;
    int ft = job->fault_timeout_s > 0 ? job->fault_timeout_s : 5;
    s->beat_ns = (uint64_t)ft * 250000000ull; /* a quarter of DFC_FAULT_TIMEOUT */
    s->stuck_ns = (uint64_t)ft * 1000000000ull;
    /* Off by default: a live process computing between DFC calls sends no beats, and being
     * taken for dead is worse than a late verdict (the launcher's PMIx events, the error
     * completions and the stuck-send rule find failures without it). */
    s->silence_ns = (uint64_t)(prm.keepalive > 0 ? prm.keepalive : 0) * 1000000000ull;
    s->last_progress = dfc_time_ns();
    int rc = DFC_SUCCESS, frc;
    if (job->npeers > 0) {
        char name[OFI_NAME_MAX];
        size_t namelen = sizeof(name);
        rc = open_endpoint(s, &prm, name, &namelen);
        if (!rc) rc = dfc_boot_put("dfc.ofi.name", name, namelen);
        if (!rc) {
            const char *pn = s->info->fabric_attr->prov_name;
            rc = dfc_boot_put("dfc.ofi.prov", pn, strlen(pn) + 1);
        }
    }
    if (job->rank == 0) { /* rank 0 publishes the secret whether or not it uses ofi */
        uint8_t secret[DFC_OFI_SECRET_LEN];
        if (getrandom(secret, sizeof(secret), 0) != (ssize_t)sizeof(secret)) {
            if (!rc) rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "getrandom: %s", strerror(errno));
        } else {
            frc = dfc_boot_put("dfc.ofi.secret", secret, sizeof(secret));
            if (!rc) rc = frc;
        }
    }
    frc = dfc_boot_fence(); /* fence 1: names, providers and the secret are published */
    if (!rc) rc = frc;
    if (!rc && job->npeers > 0) rc = alloc_and_connect(s, job);
    /* Fence 2, on every process whatever happened here (the others wait in it): every
     * address vector is filled before any message is sent (the header says why). */
    frc = dfc_boot_fence();
    if (!rc) rc = frc;
    if (rc || job->npeers == 0) goto out;
    rc = start_peers(s, &prm);
    if (!rc)
        DFC_LOG(DFC_LOG_INFO, "ofi", "%d peers over provider %s, max payload %zu, inject %zu%s%s%s",
                s->npeers, s->info->fabric_attr->prov_name, s->max_payload, s->inject_size,
                s->wait_fd >= 0 ? ", FI_WAIT_FD" : "", s->has_source ? ", FI_SOURCE" : "",
                s->rma ? ", rendezvous by RMA read" : "");
out:
    if (rc) ofi_fini(tl);
    return rc;
}

static void ofi_fini(dfc_tl_t *tl)
{
    ofi_t *s = tl->priv;
    if (!s) return;
    if (s->ep) fi_close(&s->ep->fid);   /* first: it cancels what is posted in the pools */
    if (s->domain) dfc_ofi_rma_fini(s); /* registrations, before their domain */
    for (int i = 0; i < s->npeers; i++) /* copies (spill) waiting there are freed */
        while (s->peers[i].stash) {
            ofi_buf_t *b = s->peers[i].stash;
            s->peers[i].stash = b->snext;
            rx_release(s, b);
        }
    pool_fini(&s->rx);
    pool_fini(&s->tx);
    pool_fini(&s->ctl);
    if (s->av) fi_close(&s->av->fid);
    if (s->cq) fi_close(&s->cq->fid);
    if (s->waitset) fi_close(&s->waitset->fid); /* after the queue bound to it */
    if (s->domain) fi_close(&s->domain->fid);
    if (s->fabric) fi_close(&s->fabric->fid);
    if (s->info) fi_freeinfo(s->info);
    dfc_free(s->peers);
    dfc_free(s->w2p);
    dfc_free(s);
    tl->priv = NULL;
}

const dfc_tl_ops_t dfc_tl_ofi_ops = {
    .name = "ofi",
    .init = ofi_init,
    .send = ofi_send,
    .rget = dfc_ofi_rget, /* DFC_ERR_UNSUPPORTED_OPERATION without RMA: fragments */
    .rget_start = dfc_ofi_rget_start,
    .rget_test = dfc_ofi_rget_test,
    .progress = ofi_progress,
    .wait = ofi_wait,
    .pending = ofi_pending,
    .fini = ofi_fini,
};

#else /* !HAVE_LIBFABRIC: selecting ofi fails at init with a clear message */

static int ofi_init(dfc_tl_t *tl, const dfc_tl_job_t *job)
{
    (void)job;
    tl->priv = NULL;
    return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "DFC_TRANSPORT=ofi: DFC was built without "
                                                  "libfabric (configure --with-ofi)");
}

static void ofi_fini(dfc_tl_t *tl) { tl->priv = NULL; }

void dfc_tl_ofi_register_params(void) { (void)dfc_tl_ofi_provider_param(); }

const dfc_tl_ops_t dfc_tl_ofi_ops = {.name = "ofi", .init = ofi_init, .fini = ofi_fini};
#endif
