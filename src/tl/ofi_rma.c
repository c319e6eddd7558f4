/*
 * ofi_rma.c - the ofi transport's rendezvous by RMA read, where the provider offers FI_RMA
 * (tcp;ofi_rxm does; DFC_OFI_RMA=0 turns it off), and the registrations it needs.
 *
 * The comm layer's rendezvous (comm/p2p.c) announces a large message with an RTS carrying
 * the sender's buffer address and, once matched, either pulls the data with the transport's
 * rget and answers FIN, or answers CTS and gets DATA fragments. Over ofi:
 *   sender    ofi_send sees an RTS of host data, registers the buffer (FI_REMOTE_READ, through
 *             the registration cache, ofi_mr.h) and appends its key and base to the message
 *             (DFC_OFI_WF_RKEY). The registration stays referenced (an "exposure") until the
 *             peer answers that message: FIN (it read the data), CTS (it wants fragments),
 *             CANCEL_ACK with CANCELLED; or until the peer fails, or the transport closes.
 *   receiver  an arriving key is kept as an "offer" of that peer until this process answers
 *             the RTS (its FIN, CTS or CANCEL_ACK go through ofi_send). rget finds the offer
 *             for (peer, address), posts fi_read into the receive buffer and waits for its
 *             completion; without an offer (RMA off on either side, no registration) it
 *             answers DFC_ERR_UNSUPPORTED_OPERATION and the comm layer asks for fragments.
 * Read rather than write: the receiver knows the data is there when its own read completes,
 * so the transfer is RTS, read, FIN, where a write needs a CTS first and a FIN the receiver
 * can only trust once the write is ordered before it; and the sender exposes its buffer
 * for reading only, never its memory for writing.
 *
 * Trust: keys travel only inside PKT messages, which go only to peers of the job's address
 * vector whose HELLO carried the job secret. A registration covers exactly the bytes of the
 * message. With the cache on (DFC_OFI_MR_CACHE, default 64) it stays open after its transfer
 * until evicted or freed, so a rank of the job that once got its key could read that range
 * again; DFC_OFI_MR_CACHE=0 closes each registration when its transfer is answered.
 *
 * The comm layer starts reads with rget_start and tests them from progress (up to 256 at
 * once, each in its own context, below), so that a window of large messages is read
 * together; where all are taken it calls rget.
 * rget blocks (dfc_tl.h): it waits for its read, reading the completion queue; receives
 * completed meanwhile are held in s->deferred and delivered by the next progress call (the
 * comm layer called rget from inside a delivery). The read fails with the peer (see
 * read_wait) and rget returns DFC_ERR_PROC_FAILED; a read abandoned that way keeps its
 * context busy until the provider completes it, and rget answers "unsupported" (fragments)
 * meanwhile.
 */
#include "config.h"

#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tl/dfc_tl.h"
#include "util/dfc_util.h"

#if HAVE_LIBFABRIC
#include "tl/ofi_fabric.h"
#include "tl/ofi_int.h"

typedef struct ofi_expo {
    struct ofi_expo *next;
    int peer; /* index in s->peers */
    uint64_t sreq;
    dfc_ofi_mr_t *mr;
} ofi_expo_t;

/* rget_start's read slots come in blocks of OFI_READ_BLOCK, allocated when every slot is
 * taken, up to OFI_READ_BLOCKS blocks (256 reads: net's transmit queue). They used to be 16,
 * fixed: of bw's window of 64 matched RTS of 128 KiB, 16 went by rget_start and the rest by
 * rget, one blocking read after the other (counted on 2 cores: 288 of 582 reads blocking),
 * and bw at 128 KiB took 1.46x DFC's tcp's time over net on 16 cores (BENCHMARKS.md).
 * A block is never moved or freed before the transport closes: the comm layer holds the
 * addresses of its slots. */
#define OFI_READ_BLOCK 16

/* One read of rget_start: a message read in pieces of at most max_msg bytes, one at a time. */
typedef struct ofi_read {
    ofi_buf_t ctx; /* first: its completion gives the read back (dfc_ofi_read_done) */
    int used;      /* started and not yet ended by rget_test */
    int busy;      /* a piece is posted and its completion has not come */
    int err;       /* the completion error of a piece */
    int peer;      /* index in s->peers */
    char *dst;
    size_t len, off, n; /* the message, what has been read, the piece in flight */
    uint64_t raddr, key;
    dfc_ofi_mr_t *mr;
} ofi_read_t;

typedef struct ofi_offer {
    struct ofi_offer *next;
    uint64_t sreq, addr, len;
    dfc_ofi_rkey_t key;
} ofi_offer_t;

static int mr_reg(void *ctx, dfc_ofi_mr_t *mr)
{
    ofi_t *s = ctx;
    struct fid_mr *f = NULL;
    uint64_t key = s->mr_mode & FI_MR_PROV_KEY ? 0 : s->next_key++;
    int r = fi_mr_reg(s->domain, (void *)mr->base, mr->len, mr->access, 0, key, 0, &f, NULL);
    if (!r && (s->mr_mode & FI_MR_ENDPOINT)) {
        r = fi_mr_bind(f, &s->ep->fid, 0);
        if (!r) r = fi_mr_enable(f);
        if (r) fi_close(&f->fid);
    }
    if (r)
        return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "fi_mr_reg of %zu bytes: %s", mr->len,
                       fi_strerror(-r));
    mr->handle = f;
    mr->desc = fi_mr_desc(f);
    mr->key = fi_mr_key(f);
    if (mr->key == FI_KEY_NOTAVAIL) { /* raw keys (FI_MR_RAW): not carried by our trailer */
        fi_close(&f->fid);
        return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "the provider's keys are raw");
    }
    return DFC_SUCCESS;
}

static void mr_dereg(void *ctx, dfc_ofi_mr_t *mr)
{
    (void)ctx;
    if (mr->handle) fi_close(&((struct fid_mr *)mr->handle)->fid);
}

/* One more block of read slots; NULL without memory or when all OFI_READ_BLOCKS exist. */
static ofi_read_t *read_block(ofi_t *s)
{
    if (s->nreadblk == OFI_READ_BLOCKS) return NULL;
    ofi_read_t *b = dfc_calloc(OFI_READ_BLOCK, sizeof(ofi_read_t));
    if (!b) return NULL;
    for (int i = 0; i < OFI_READ_BLOCK; i++) b[i].ctx.kind = BUF_READ;
    s->reads[s->nreadblk++] = b;
    return b;
}

int dfc_ofi_rma_init(ofi_t *s, long cache_entries)
{
    s->mr_mode = s->info->domain_attr->mr_mode;
    s->max_msg = s->info->ep_attr->max_msg_size ? s->info->ep_attr->max_msg_size : 1u << 30;
    s->next_key = 1;
    if ((s->mr_mode & FI_MR_RAW) || s->info->domain_attr->mr_key_size > sizeof(uint64_t))
        s->rma = 0;
    s->rd.kind = BUF_READ;
    s->deferred_cap = s->rx.n + OFI_CQ_BATCH;
    s->deferred = dfc_calloc((size_t)s->deferred_cap, sizeof(*s->deferred));
    if (!s->deferred || !read_block(s)) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    dfc_ofi_mrc_init(&s->mrc, (int)cache_entries, mr_reg, mr_dereg, s);
    return DFC_SUCCESS;
}

static void offers_free(ofi_peer_t *p)
{
    while (p->offers) {
        ofi_offer_t *o = p->offers;
        p->offers = o->next;
        dfc_free(o);
    }
}

void dfc_ofi_rma_fini(ofi_t *s)
{
    /* Every RTS is answered or its peer failed by now, in a correct program: one left is a
     * leak (an error-level message, which faults/procfail -case=read asks for). */
    if (s->nexpos)
        DFC_LOG(DFC_LOG_ERROR, "ofi", "%d registration(s) still exposed to peers at close",
                s->nexpos);
    while (s->expos) {
        ofi_expo_t *e = s->expos;
        s->expos = e->next;
        dfc_ofi_mrc_put(&s->mrc, e->mr);
        dfc_free(e);
    }
    s->nexpos = 0;
    for (int i = 0; i < s->npeers; i++) offers_free(&s->peers[i]);
    for (int k = 0; k < s->nreadblk; k++) {
        for (int i = 0; i < OFI_READ_BLOCK; i++)
            if (s->reads[k][i].used && s->reads[k][i].mr)
                dfc_ofi_mrc_put(&s->mrc, s->reads[k][i].mr);
        dfc_free(s->reads[k]);
        s->reads[k] = NULL;
    }
    s->nreadblk = 0;
    dfc_ofi_mrc_fini(&s->mrc);
    for (int i = 0; i < s->ndeferred; i++)
        if (s->deferred[i].b->kind == BUF_SPILL) dfc_free(s->deferred[i].b);
    s->ndeferred = 0;
    dfc_free(s->deferred);
    s->deferred = NULL;
    DFC_LOG(DFC_LOG_INFO, "ofi",
            "registration cache: %llu hits, %llu misses, %llu evicted, %llu freed",
            (unsigned long long)s->mrc.hits, (unsigned long long)s->mrc.misses,
            (unsigned long long)s->mrc.evicted, (unsigned long long)s->mrc.stale);
}

/* ---- sender -------------------------------------------------------------------------- */

ofi_expo_t *dfc_ofi_rma_expose(ofi_t *s, const dfc_pkt_t *pkt, dfc_ofi_rkey_t *key)
{
    /* Below rma_min a plain RTS too: the receiver finds no key and asks for fragments. */
    if (!s->rma || pkt->type != DFC_PKT_RTS || (pkt->flags & DFC_PKT_FLAG_DEV) ||
        pkt->payload_len || !pkt->len || !pkt->offset || pkt->len < s->rma_min)
        return NULL;
    ofi_expo_t *e = dfc_malloc(sizeof(*e));
    if (!e) return NULL;
    int rc = dfc_ofi_mrc_get(&s->mrc, (const void *)(uintptr_t)pkt->offset, pkt->len,
                             FI_REMOTE_READ, &e->mr);
    if (rc) { /* a plain RTS: the receiver asks for fragments */
        DFC_LOG(DFC_LOG_INFO, "ofi", "no registration for a rendezvous; fragments instead");
        dfc_free(e);
        return NULL;
    }
    e->sreq = pkt->sreq;
    key->key = e->mr->key;
    key->base = e->mr->base;
    return e;
}

void dfc_ofi_rma_sent(ofi_t *s, ofi_peer_t *p, ofi_expo_t *e, int posted)
{
    if (!posted) {
        dfc_ofi_mrc_put(&s->mrc, e->mr);
        dfc_free(e);
        return;
    }
    e->peer = (int)(p - s->peers);
    e->next = s->expos;
    s->expos = e;
    s->nexpos++;
}

static void expo_release(ofi_t *s, int peer, uint64_t sreq, int all)
{
    for (ofi_expo_t **l = &s->expos; *l;) {
        ofi_expo_t *e = *l;
        if (e->peer != peer || (!all && e->sreq != sreq)) {
            l = &e->next;
            continue;
        }
        *l = e->next;
        s->nexpos--;
        dfc_ofi_mrc_put(&s->mrc, e->mr);
        dfc_free(e);
        if (!all) return;
    }
}

/* ---- both sides: answers and keys --------------------------------------------------- */

static int answers(const dfc_pkt_t *pkt)
{
    return pkt->type == DFC_PKT_FIN || pkt->type == DFC_PKT_CTS ||
           (pkt->type == DFC_PKT_CANCEL_ACK && (pkt->flags & DFC_PKT_FLAG_CANCELLED));
}

void dfc_ofi_rma_on_pkt_in(ofi_t *s, ofi_peer_t *p, const dfc_pkt_t *pkt, const dfc_ofi_rkey_t *key)
{
    if (answers(pkt) && s->expos) expo_release(s, (int)(p - s->peers), pkt->sreq, 0);
    if (!key) return;
    ofi_offer_t *o = dfc_malloc(sizeof(*o));
    if (!o) return; /* rget finds no offer: fragments */
    *o = (ofi_offer_t){.sreq = pkt->sreq, .addr = pkt->offset, .len = pkt->len, .key = *key};
    ofi_offer_t **l = &p->offers;
    while (*l) l = &(*l)->next;
    *l = o;
}

void dfc_ofi_rma_on_pkt_out(ofi_t *s, ofi_peer_t *p, const dfc_pkt_t *pkt)
{
    (void)s;
    if (!p->offers || !answers(pkt)) return;
    for (ofi_offer_t **l = &p->offers; *l; l = &(*l)->next)
        if ((*l)->sreq == pkt->sreq) {
            ofi_offer_t *o = *l;
            *l = o->next;
            dfc_free(o);
            return;
        }
}

void dfc_ofi_rma_peer_gone(ofi_t *s, ofi_peer_t *p)
{
    expo_release(s, (int)(p - s->peers), 0, 1);
    offers_free(p);
}

/* ---- receiver: the read ----------------------------------------------------------- */

/* Leaves the core to others for a moment (2 shared cores: the sender may need it). With a
 * wait fd, sleeps on it: rxm's polls the connections' sockets, so the read's data (or any
 * other message) wakes it, though no completion is written until the next progress call;
 * measured here, 32 KiB ping-pong with sleeping waits took 137 us a message this way against
 * 990 us with the yields below, which kept both processes of a pair busy on 2 cores. The
 * timeout bounds the cost should a provider's fd not wake for it. Without a wait fd: yields,
 * then 20 us naps for a slow sender. */
static void read_nap(ofi_t *s, uint64_t spins)
{
    if (s->wait_fd >= 0) {
        if (dfc_ofi_wait_ready(s)) return; /* something is there */
        struct pollfd pf = {.fd = s->wait_fd, .events = POLLIN};
        struct timespec ts = {0, 100000}; /* short: the comm layer's lock is held */
        ppoll(&pf, 1, &ts, NULL);
        return;
    }
    if (spins < 20000) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, 20000}; /* a slow sender: 20 us naps */
    nanosleep(&ts, NULL);
}

/* Waits for s->rd's completion; 0, or an error code (the peer failed, the read failed).
 * No timeout of its own: a live sender that computes between DFC calls serves the read
 * late, and is not dead. The periodic rules of progress keep running meanwhile (dfc_ofi_tick:
 * beats to every peer, the stuck-send rule, DFC_OFI_KEEPALIVE), so a sender whose process
 * or host died is found as anywhere else: an error completion of the read or of a beat, or
 * a beat that does not complete within DFC_FAULT_TIMEOUT. */
static int read_wait(ofi_t *s, ofi_peer_t *p)
{
    uint64_t spins = 0;
    while (s->rd_busy) {
        dfc_ofi_cq_drain(s, 1);
        if (!s->rd_busy) break;
        if (p->dead) return dfc_ofi_dead_err("ofi_rget", p);
        if ((++spins & 63) == 0) dfc_ofi_tick(s);
        if (spins > 200) read_nap(s, spins); /* do not spin on 2 shared cores */
    }
    switch (s->rd_err) {
    case 0: return DFC_SUCCESS;
    /* The key or range was refused: this message only (the caller asks for fragments). */
    case FI_EACCES:
    case FI_EINVAL:
    case FI_EKEYREJECTED:
    case FI_ENOKEY:
    case FI_EFAULT:
    case FI_ETRUNC:
        return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "fi_read from world rank %d: %s", p->world,
                       fi_strerror(s->rd_err));
    default: /* the connection broke (FI_EIO, FI_ECONNRESET ...): the peer is gone */
        dfc_ofi_peer_fail(s, p, "a read failed: %s", fi_strerror(s->rd_err));
        return dfc_ofi_dead_err("ofi_rget", p);
    }
}

/* Posts one read of n bytes, waiting for room where the provider has none. */
static int read_post(ofi_t *s, ofi_peer_t *p, char *dst, size_t n, void *desc, uint64_t raddr,
                     uint64_t key)
{
    s->rd_busy = 1;
    s->rd_err = 0;
    for (;;) {
        ssize_t r = fi_read(s->ep, dst, n, desc, p->addr, raddr, key, &s->rd.ctx);
        if (r == 0) return DFC_SUCCESS;
        if (r != -FI_EAGAIN) {
            s->rd_busy = 0;
            return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "fi_read: %s", fi_strerror((int)-r));
        }
        dfc_ofi_cq_drain(s, 1);
        if (p->dead) {
            s->rd_busy = 0;
            return dfc_ofi_dead_err("ofi_rget", p);
        }
    }
}

/* The live peer of world rank `peer` and the offer (remote key) that covers [remote_addr,
 * + len) of its memory; an error for an unknown or failed peer or when no offer covers it
 * (RMA off on its side). `func` names the caller in the failure's message. */
static int find_offer(ofi_t *s, const char *func, int peer, uint64_t remote_addr, size_t len,
                      ofi_peer_t **pp, ofi_offer_t **oo)
{
    ofi_peer_t *p = s ? dfc_ofi_peer_of(s, peer) : NULL;
    if (!p) return DFC_ERR(DFC_ERR_INTERN, "world rank %d is not an ofi peer", peer);
    if (p->dead) return dfc_ofi_dead_err(func, p);
    ofi_offer_t *o = p->offers;
    while (o && (o->addr != remote_addr || o->len < len)) o = o->next;
    if (!o) return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "no remote key for this message");
    *pp = p, *oo = o;
    return DFC_SUCCESS;
}

int dfc_ofi_rget(dfc_tl_t *tl, int peer, void *local, uint64_t remote_addr, size_t len,
                 unsigned flags)
{
    (void)flags; /* the copy is the NIC's either way */
    ofi_t *s = tl->priv;
    ofi_peer_t *p;
    ofi_offer_t *o;
    int rc = find_offer(s, __func__, peer, remote_addr, len, &p, &o);
    if (rc) return rc;
    if (s->rd_busy) /* a read abandoned earlier */
        return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "no remote key for this message");
    dfc_ofi_rkey_t key = o->key; /* o may go with the peer while we wait */
    dfc_ofi_mr_t *mr = NULL;
    if (s->mr_mode & FI_MR_LOCAL) rc = dfc_ofi_mrc_get(&s->mrc, local, len, FI_READ, &mr);
    uint64_t raddr = s->mr_mode & FI_MR_VIRT_ADDR ? remote_addr : remote_addr - key.base;
    for (size_t off = 0; !rc && off < len; off += s->max_msg) {
        size_t n = DFC_MIN2(s->max_msg, len - off);
        rc = read_post(s, p, (char *)local + off, n, mr ? mr->desc : NULL, raddr + off, key.key);
        if (!rc) rc = read_wait(s, p);
    }
    if (mr) dfc_ofi_mrc_put(&s->mrc, mr);
    return rc;
}

/* ---- receiver: reads that overlap (rget_start, rget_test) ---------------------------------
 * The comm layer starts a read per matched RTS and tests it from progress, so that a window
 * of large messages is read together instead of one blocking rget after the other (over
 * tcp;ofi_rxm each read waits for the sender's process to serve it). Completions come
 * through dfc_ofi_cq_drain (the transport's progress); a message longer than max_msg is read
 * piece after piece by rget_test. */

void dfc_ofi_read_done(ofi_t *s, ofi_buf_t *b, int err)
{
    if (b == &s->rd) { /* rget's */
        s->rd_busy = 0;
        s->rd_err = err;
        return;
    }
    ofi_read_t *r = (ofi_read_t *)b; /* ctx is its first member */
    r->busy = 0;
    if (err) r->err = err;
    else r->off += r->n;
}

/* Posts the next piece of r; 0 also when the provider is full now (the next test retries). */
static int read_piece(ofi_t *s, ofi_read_t *r)
{
    size_t n = DFC_MIN2(s->max_msg, r->len - r->off);
    ssize_t rc = fi_read(s->ep, r->dst + r->off, n, r->mr ? r->mr->desc : NULL,
                         s->peers[r->peer].addr, r->raddr + r->off, r->key, &r->ctx.ctx);
    if (rc == -FI_EAGAIN) return DFC_SUCCESS;
    if (rc) return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "fi_read: %s", fi_strerror((int)-rc));
    r->n = n;
    r->busy = 1;
    return DFC_SUCCESS;
}

/* Ends r for the comm layer: its registration goes back; a read still posted (its peer
 * failed) keeps the slot until its completion comes. */
static int read_end(ofi_t *s, ofi_read_t *r, int rc, int *done)
{
    if (r->mr) dfc_ofi_mrc_put(&s->mrc, r->mr);
    r->mr = NULL;
    r->used = 0;
    s->nreads--;
    *done = 1;
    return rc;
}

int dfc_ofi_rget_start(dfc_tl_t *tl, int peer, void *local, uint64_t remote_addr, size_t len,
                       void **op)
{
    ofi_t *s = tl->priv;
    ofi_peer_t *p;
    ofi_offer_t *o;
    int rc = find_offer(s, __func__, peer, remote_addr, len, &p, &o);
    if (rc) return rc;
    ofi_read_t *r = NULL;
    for (int k = 0; k < s->nreadblk && !r; k++)
        for (int i = 0; i < OFI_READ_BLOCK && !r; i++)
            if (!s->reads[k][i].used && !s->reads[k][i].busy) r = &s->reads[k][i];
    if (!r) r = read_block(s); /* a wider window than before */
    if (!r) return DFC_TL_AGAIN;
    *r = (ofi_read_t){.ctx = r->ctx,
                      .used = 1,
                      .peer = (int)(p - s->peers),
                      .dst = local,
                      .len = len,
                      .key = o->key.key};
    r->raddr = s->mr_mode & FI_MR_VIRT_ADDR ? remote_addr : remote_addr - o->key.base;
    if (s->mr_mode & FI_MR_LOCAL) rc = dfc_ofi_mrc_get(&s->mrc, local, len, FI_READ, &r->mr);
    if (!rc) rc = read_piece(s, r);
    s->nreads++;
    if (rc) {
        int done;
        return read_end(s, r, rc, &done);
    }
    *op = r;
    return DFC_SUCCESS;
}

int dfc_ofi_rget_test(dfc_tl_t *tl, void *op, int *done)
{
    ofi_t *s = tl->priv;
    ofi_read_t *r = op;
    ofi_peer_t *p = &s->peers[r->peer];
    *done = 0;
    if (p->dead) return read_end(s, r, dfc_ofi_dead_err("ofi_rget", p), done);
    if (r->busy) return DFC_SUCCESS;
    switch (r->err) {
    case 0: break;
    case FI_EACCES: /* the key or range was refused: this message only (as read_wait) */
    case FI_EINVAL:
    case FI_EKEYREJECTED:
    case FI_ENOKEY:
    case FI_EFAULT:
    case FI_ETRUNC:
        return read_end(s, r,
                        DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "fi_read from world rank %d: %s",
                                p->world, fi_strerror(r->err)),
                        done);
    default: /* the connection broke: the peer is gone */
        dfc_ofi_peer_fail(s, p, "a read failed: %s", fi_strerror(r->err));
        return read_end(s, r, dfc_ofi_dead_err("ofi_rget", p), done);
    }
    if (r->off < r->len) {
        int rc = read_piece(s, r);
        return rc ? read_end(s, r, rc, done) : DFC_SUCCESS;
    }
    return read_end(s, r, DFC_SUCCESS, done);
}

#endif /* HAVE_LIBFABRIC */
