/*
 * tcp.c - the tcp transport: processes on other nodes (or every peer with
 * DFC_TRANSPORT=tcp).
 *
 * Init (one fence, always): each process with peers listens on an ephemeral port and
 * publishes "ip:port" as dfc.tcp.addr; world rank 0 publishes 16 random bytes as the job
 * secret dfc.tcp.secret. After the fence the lower rank of every pair connects to the
 * higher one and sends a HELLO carrying the secret (tcp_wire.h); the acceptor checks it in
 * constant time and drops anything that is not a valid HELLO from an expected peer, so a
 * stray or hostile connection cannot take a rank's place or crash the process. All
 * connections are made in init; the listening socket is closed afterwards.
 *
 * Data path, per peer:
 *  - send writes header, payload and padding with one sendmsg straight from the caller's
 *    buffers when nothing is queued (no copy in the common case); what the socket does not
 *    take is copied to a circular output queue, later sends append to it, and once more
 *    than DFC_TCP_MAX_QUEUED bytes wait, send answers DFC_TL_AGAIN.
 *  - progress flushes queues, reads into a per-peer input buffer and delivers every
 *    complete packet in place (8-byte aligned, see tcp_wire.h). A header that fails
 *    validation, EOF or a socket error fails that peer only: progress reports it once
 *    (negated DFC_ERR_PROC_FAILED code naming the world rank), later sends to it fail,
 *    and the other peers keep working. A peer whose host dies sends no FIN or reset: keepalive
 *    probes find it while the connection is idle, and the heartbeat (check_silent: its
 *    kernel leaves our data or window probe unanswered) while it is not, both within about
 *    DFC_FAULT_TIMEOUT seconds. A live peer that only stops reading trips neither.
 *  - wait sleeps in ppoll on an epoll set of all sockets (nanosecond timeouts), plus
 *    POLLOUT on sockets with queued output.
 *
 * Threads: the comm layer serializes everything but wait, which may run outside its lock
 * (only reads state).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "pmix/dfc_boot.h"
#include "tl/dfc_tl.h"
#include "tl/tcp_wire.h"
#include "util/dfc_util.h"

#define TCP_IBUF_MIN 65536    /* first input buffer of a peer; grows for big packets */
#define TCP_OBUF_MIN 65536    /* first output queue of a peer (allocated when needed) */
#define TCP_OBUF_KEEP 1048576 /* a drained queue larger than this is freed */
#define TCP_DIRECT_PEERS 1    /* with one peer progress recv()s directly (1 syscall) */
#define TCP_READ_ROUNDS 4     /* reads per peer per progress call (fairness) */
#define TCP_MAX_PENDING 64    /* unverified inbound connections at once during init */

typedef struct tcp_conn {
    int fd; /* -1 before the handshake and after a failure */
    int world;
    int dead; /* failed: sends fail */
    int unreported;
    uint64_t silent_since; /* first heartbeat check that found its kernel silent, or 0 */
    char why[128];
    /* Output queue: circular, bytes [oh, ot) (counters that only grow), ocap a power of 2. */
    char *obuf;
    size_t ocap;
    uint64_t oh, ot;
    /* Input buffer: linear, unparsed bytes [ih, it). */
    char *ibuf;
    size_t icap, ih, it;
} tcp_conn_t;

typedef struct tcp {
    int rank, size;
    int lfd, epfd;
    tcp_conn_t *conns;
    int nconns;
    int *w2c; /* world rank -> index in conns, or -1 */
    uint8_t secret[DFC_TCP_SECRET_LEN];
    size_t max_payload, max_queued, icap_max;
    int sockbuf;
    int nqueued;     /* live conns with queued output */
    int nunreported; /* failed conns progress has not reported yet */
    int direct;
    int rr;
    unsigned fault_ms;                    /* DFC_FAULT_TIMEOUT; 0: no heartbeat */
    uint64_t live_every_ns, live_next_ns; /* heartbeat checks */
    struct epoll_event *evs;
} tcp_t;

static const char zeros[8];

static void tcp_fini(dfc_tl_t *tl);

/* ---- failures ------------------------------------------------------------------------ */

static void conn_fail(tcp_t *s, tcp_conn_t *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void conn_fail(tcp_t *s, tcp_conn_t *c, const char *fmt, ...)
{
    if (c->dead) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof(c->why), fmt, ap);
    va_end(ap);
    c->dead = 1;
    c->unreported = 1;
    s->nunreported++;
    if (c->fd >= 0) close(c->fd); /* also leaves the epoll set */
    c->fd = -1;
    if (c->ot != c->oh) {
        c->oh = c->ot;
        s->nqueued--;
    }
    /* The input buffer stays: progress may be delivering from it right now. */
    DFC_LOG(DFC_LOG_INFO, "tcp", "peer world rank %d failed: %s", c->world, c->why);
}

static int dead_err(const char *func, const tcp_conn_t *c)
{
    return dfc_err(DFC_ERR_PROC_FAILED, func, "world rank %d: %s", c->world, c->why);
}

/* ---- output queue ---------------------------------------------------------------------- */

/* Makes room for `need` more bytes. Returns 0, or -1 when out of memory. */
static int oq_reserve(tcp_conn_t *c, size_t need)
{
    size_t used = (size_t)(c->ot - c->oh);
    if (c->ocap - used >= need) return 0;
    size_t ncap = c->ocap ? c->ocap * 2 : TCP_OBUF_MIN;
    while (ncap - used < need) ncap *= 2;
    char *nb = dfc_malloc(ncap);
    if (!nb) return -1;
    for (size_t done = 0; done < used;) { /* unwrap into the new buffer */
        size_t off = (size_t)((c->oh + done) & (c->ocap - 1));
        size_t n = DFC_MIN2(used - done, c->ocap - off);
        memcpy(nb + done, c->obuf + off, n);
        done += n;
    }
    dfc_free(c->obuf);
    c->obuf = nb;
    c->ocap = ncap;
    c->oh = 0;
    c->ot = used;
    return 0;
}

static void oq_put(tcp_conn_t *c, const void *src, size_t n)
{
    while (n > 0) {
        size_t off = (size_t)(c->ot & (c->ocap - 1));
        size_t k = DFC_MIN2(n, c->ocap - off);
        memcpy(c->obuf + off, src, k);
        c->ot += k;
        src = (const char *)src + k;
        n -= k;
    }
}

static ssize_t sendv(int fd, struct iovec *iov, int n)
{
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)n};
    return sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT); /* no SIGPIPE on a dead peer */
}

static int would_block(int e)
{
    return e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ENOBUFS;
}

/* Writes queued bytes until the socket is full. Returns -1 when the peer failed. */
static int conn_flush(tcp_t *s, tcp_conn_t *c)
{
    while (c->ot != c->oh) {
        size_t used = (size_t)(c->ot - c->oh), off = (size_t)(c->oh & (c->ocap - 1));
        size_t first = DFC_MIN2(used, c->ocap - off);
        struct iovec iov[2] = {{c->obuf + off, first}, {c->obuf, used - first}};
        ssize_t n = sendv(c->fd, iov, used > first ? 2 : 1);
        if (n > 0) {
            c->oh += (uint64_t)n;
            continue;
        }
        if (n < 0 && would_block(errno)) return 0;
        conn_fail(s, c, "send: %s", n < 0 ? strerror(errno) : "no progress");
        return -1;
    }
    c->oh = c->ot = 0;
    s->nqueued--;
    if (c->ocap > TCP_OBUF_KEEP) { /* a burst is over: give the memory back */
        dfc_free(c->obuf);
        c->obuf = NULL;
        c->ocap = 0;
    }
    return 0;
}

/* ---- data path ------------------------------------------------------------------------- */

static inline tcp_conn_t *conn_of(tcp_t *s, int world)
{
    if (DFC_UNLIKELY(world < 0 || world >= s->size || s->w2c[world] < 0)) return NULL;
    return &s->conns[s->w2c[world]];
}

static int tcp_send(dfc_tl_t *tl, int peer, const dfc_pkt_t *pkt, const void *payload)
{
    tcp_t *s = tl->priv;
    tcp_conn_t *c = conn_of(s, peer);
    if (DFC_UNLIKELY(!c)) return DFC_ERR(DFC_ERR_INTERN, "world rank %d is not a tcp peer", peer);
    if (DFC_UNLIKELY(c->dead)) return dead_err(__func__, c);
    uint32_t plen = pkt->payload_len;
    if (DFC_UNLIKELY(plen > s->max_payload))
        return DFC_ERR(DFC_ERR_INTERN, "payload of %u bytes exceeds the maximum %zu", plen,
                       s->max_payload);
    size_t pad = dfc_tcp_wire_len(plen) - sizeof(dfc_pkt_t) - plen;
    struct iovec iov[3] = {{(void *)pkt, sizeof(dfc_pkt_t)},
                           {(void *)payload, plen},
                           {(void *)zeros, pad}};
    size_t total = sizeof(dfc_pkt_t) + plen + pad, done = 0;

    if (c->ot == c->oh) {
        /* Nothing queued: straight from the caller's buffers. */
        int niov = 1;
        if (plen) niov = 2;
        if (pad) iov[niov++] = iov[2];
        ssize_t n = sendv(c->fd, iov, niov);
        if (DFC_LIKELY(n == (ssize_t)total)) return DFC_SUCCESS;
        if (n < 0 && !would_block(errno)) {
            conn_fail(s, c, "send: %s", strerror(errno));
            return dead_err(__func__, c);
        }
        done = n > 0 ? (size_t)n : 0;
    } else if ((size_t)(c->ot - c->oh) + total > s->max_queued) {
        return DFC_TL_AGAIN;
    }
    /* Queue the rest. After a partial write the stream must continue with these bytes,
     * so running out of memory here breaks the connection. */
    if (oq_reserve(c, total - done) != 0) {
        conn_fail(s, c, "out of memory for the output queue");
        return dead_err(__func__, c);
    }
    if (c->ot == c->oh) s->nqueued++;
    for (int i = 0; i < 3; i++) {
        size_t k = iov[i].iov_len;
        if (done >= k) { /* written already (or empty) */
            done -= k;
            continue;
        }
        oq_put(c, (const char *)iov[i].iov_base + done, k - done);
        done = 0;
    }
    return DFC_SUCCESS;
}

/* Makes room in the input buffer for the packet being received and for a good read. */
static int ibuf_room(tcp_t *s, tcp_conn_t *c)
{
    size_t avail = c->it - c->ih, need = sizeof(dfc_pkt_t);
    if (avail >= sizeof(dfc_pkt_t)) /* the parse loop validated this header */
        need = dfc_tcp_wire_len(((const dfc_pkt_t *)(c->ibuf + c->ih))->payload_len);
    if (c->icap < need) { /* grows to at most 2 max-size packets (icap_max) */
        size_t ncap = c->icap ? c->icap * 2 : TCP_IBUF_MIN;
        while (ncap < need) ncap *= 2;
        ncap = DFC_MAX2(DFC_MIN2(ncap, s->icap_max), need);
        char *nb = dfc_realloc(c->ibuf, ncap);
        if (!nb) return -1;
        c->ibuf = nb;
        c->icap = ncap;
    }
    if (c->icap - c->ih < need || c->icap - c->it < c->icap / 4) {
        /* Move the unparsed rest (less than one packet) to the front. */
        memmove(c->ibuf, c->ibuf + c->ih, avail);
        c->ih = 0;
        c->it = avail;
    }
    return 0;
}

/* Reads what the socket has and delivers complete packets. Returns the number delivered. */
static int conn_read(tcp_t *s, tcp_conn_t *c, dfc_tl_deliver_fn deliver)
{
    int delivered = 0;
    for (int round = 0; round < TCP_READ_ROUNDS && c->fd >= 0; round++) {
        if (ibuf_room(s, c) != 0) {
            conn_fail(s, c, "out of memory for the input buffer");
            break;
        }
        size_t space = c->icap - c->it;
        ssize_t n = recv(c->fd, c->ibuf + c->it, space, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_fail(s, c, "recv: %s", strerror(errno));
            break;
        }
        if (n == 0) {
            conn_fail(s, c, "connection closed by the peer");
            break;
        }
        c->it += (size_t)n;
        long w;
        while ((w = dfc_tcp_frame(c->ibuf + c->ih, c->it - c->ih, s->max_payload)) != 0) {
            const dfc_pkt_t *pkt = (const dfc_pkt_t *)(c->ibuf + c->ih);
            if (DFC_UNLIKELY(w < 0 || pkt->src_world != (uint32_t)c->world)) {
                /* The connection proved its rank: a packet may not claim another. */
                conn_fail(s, c,
                          "malformed packet header (type %u, payload %u bytes, from "
                          "world rank %u)",
                          pkt->type, pkt->payload_len, pkt->src_world);
                c->ih = c->it = 0;
                return delivered;
            }
            /* Consume first: deliver may call send, which must find our state final. */
            c->ih += (size_t)w;
            deliver(pkt, pkt + 1);
            delivered++;
        }
        if (c->ih == c->it) c->ih = c->it = 0;
        if ((size_t)n < space) break; /* the socket is drained */
    }
    return delivered;
}

/* The heartbeat (dfc_tcp_peer_silent): a peer whose kernel leaves us waiting for an answer
 * for DFC_FAULT_TIMEOUT, in checks at least half of it apart, is lost (its host died, or the
 * network between us). Never a timer that a peer that only stops reading can trip. */
static void check_silent(tcp_t *s, uint64_t now)
{
    s->live_next_ns = now + s->live_every_ns;
    for (int i = 0; i < s->nconns; i++) {
        tcp_conn_t *c = &s->conns[i];
        if (c->fd < 0) continue;
        if (!dfc_tcp_peer_silent(c->fd, s->fault_ms)) {
            c->silent_since = 0;
        } else if (!c->silent_since) {
            c->silent_since = now;
        } else if (now - c->silent_since >= (uint64_t)s->fault_ms * 500000u) {
            conn_fail(s, c, "its host has not answered for %u ms (DFC_FAULT_TIMEOUT)", s->fault_ms);
        }
    }
}

static int tcp_progress(dfc_tl_t *tl, dfc_tl_deliver_fn deliver)
{
    tcp_t *s = tl->priv;
    int n = 0;
    if (!s || s->nconns == 0) return 0;
    if (s->nqueued)
        for (int i = 0; i < s->nconns; i++)
            if (s->conns[i].ot != s->conns[i].oh && s->conns[i].fd >= 0)
                conn_flush(s, &s->conns[i]);
    if (s->direct) {
        for (int k = 0; k < s->nconns; k++) {
            tcp_conn_t *c = &s->conns[(s->rr + k) % s->nconns];
            if (c->fd >= 0) n += conn_read(s, c, deliver);
        }
        s->rr = s->rr + 1 < s->nconns ? s->rr + 1 : 0;
    } else {
        int nev = epoll_wait(s->epfd, s->evs, s->nconns, 0);
        for (int k = 0; k < nev; k++) {
            tcp_conn_t *c = &s->conns[s->evs[k].data.u32];
            if (c->fd >= 0) n += conn_read(s, c, deliver);
        }
    }
    if (s->fault_ms) {
        uint64_t now = dfc_time_ns();
        if (DFC_UNLIKELY(now >= s->live_next_ns)) check_silent(s, now);
    }
    if (DFC_UNLIKELY(s->nunreported)) {
        for (int i = 0; i < s->nconns; i++) {
            tcp_conn_t *c = &s->conns[i];
            if (c->unreported) {
                c->unreported = 0;
                s->nunreported--;
                tl->failed_peer = c->world;
                return -dead_err(__func__, c); /* dfc_tl.h: a failure is returned negated */
            }
        }
    }
    return n;
}

static int tcp_pending(dfc_tl_t *tl)
{
    tcp_t *s = tl->priv;
    return s && s->nqueued > 0;
}

/* Called with the comm layer's lock held (dfc_tl.h): the poll set is built under it, the
 * lock is dropped (tl->wait_release) before the sleep. */
static void tcp_wait(dfc_tl_t *tl, long timeout_us)
{
    tcp_t *s = tl->priv;
    struct timespec ts, *tsp = NULL;
    if (timeout_us > 0) {
        ts.tv_sec = timeout_us / 1000000;
        ts.tv_nsec = (timeout_us % 1000000) * 1000;
        tsp = &ts;
    }
    if (s && s->nconns > 0 && s->fault_ms &&
        (!tsp || timeout_us > (long)(s->live_every_ns / 1000))) {
        /* Wake for the heartbeat check: a dead host does not wake us. */
        ts.tv_sec = (time_t)(s->live_every_ns / 1000000000u);
        ts.tv_nsec = (long)(s->live_every_ns % 1000000000u);
        tsp = &ts;
    }
    /* The epoll fd turns readable when any socket is; sockets with queued output are
     * added for POLLOUT so a full socket that drains wakes us too. */
    struct pollfd pf[17];
    int k = 0;
    if (s && s->nconns > 0) {
        pf[k++] = (struct pollfd){.fd = s->epfd, .events = POLLIN};
        for (int i = 0; s->nqueued && i < s->nconns && k < 17; i++) {
            const tcp_conn_t *c = &s->conns[i];
            if (c->ot != c->oh && c->fd >= 0)
                pf[k++] = (struct pollfd){.fd = c->fd, .events = POLLOUT};
        }
    }
    const _Atomic uint32_t *wseq = tl->wake_seq;
    uint32_t wseen = wseq ? atomic_load(wseq) : 0;
    if (tl->wait_release) tl->wait_release();
    if (timeout_us == 0 || (wseq && atomic_load(wseq) != wseen)) return;
    if (k == 0) {
        if (tsp) nanosleep(tsp, NULL);
        return;
    }
    ppoll(pf, (nfds_t)k, tsp, NULL);
}

/* ---- init: connections ----------------------------------------------------------------- */

#define TCP_INBOUND_NS 1000000000ull  /* an accepted connection has 1 s to prove itself */
#define TCP_ACK_WAIT_NS 5000000000ull /* a connector waits this long for the ACK, then retries */
#define TCP_RETRY_NS 10000000ull      /* pause before connecting again */

typedef struct inbound { /* a connection we accepted: CHALLENGE sent, HELLO awaited */
    int fd;
    size_t got;
    uint64_t deadline;
    uint8_t nonce_a[DFC_TCP_NONCE_LEN];
    dfc_tcp_hello_t msg;
} inbound_t;

typedef struct outbound { /* our connection to a higher rank */
    int fd;
    int phase; /* 0: connecting, 1: CHALLENGE awaited, 2: ACK awaited */
    size_t got;
    uint64_t retry_at, deadline;
    uint8_t nonce_a[DFC_TCP_NONCE_LEN], nonce_c[DFC_TCP_NONCE_LEN];
    dfc_tcp_hello_t msg;
} outbound_t;

typedef struct hs {
    inbound_t inb[TCP_MAX_PENDING];
    int ninb;
    outbound_t *out;   /* per conn */
    char **addrs;      /* per conn: "ip:port" it published */
    uint32_t *allowed; /* addresses the lower peers published (network order) */
    int nallowed, nconnected, last_err, nevicted, nrefused;
    const char *my_ip;
} hs_t;

static int nonce(uint8_t n[DFC_TCP_NONCE_LEN])
{
    return getrandom(n, DFC_TCP_NONCE_LEN, 0) == DFC_TCP_NONCE_LEN ? 0 : -1;
}

/* Reads the rest of a handshake message; 1 when complete, 0 for more, -1 at EOF/error. Reads
 * no further: data may follow an ACK at once. */
static int hs_recv(int fd, dfc_tcp_hello_t *m, size_t *got)
{
    ssize_t n = recv(fd, (char *)m + *got, sizeof(*m) - *got, MSG_DONTWAIT);
    if (n > 0) *got += (size_t)n;
    if (n == 0 || (n < 0 && !would_block(errno))) return -1;
    return *got == sizeof(*m);
}

static int hs_send(int fd, const dfc_tcp_hello_t *m)
{
    return send(fd, m, sizeof(*m), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(*m) ? 0 : -1;
}

static void inbound_drop(hs_t *hs, int j, const char *why)
{
    DFC_LOG(DFC_LOG_INFO, "tcp", "rejected an inbound connection: %s", why);
    close(hs->inb[j].fd);
    hs->inb[j] = hs->inb[--hs->ninb];
}

/* Accepts what is pending. Only addresses that peers published get a slot; when the slots
 * are full the oldest unproven connection goes (a flood of silent connections cannot keep a
 * peer out: it connects again). Each gets a CHALLENGE at once. EMFILE and the like end init
 * with their own message instead of a timeout. */
static int accept_new(tcp_t *s, hs_t *hs, uint64_t now, uint64_t deadline)
{
    for (;;) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof(sa);
        int fd = accept4(s->lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (would_block(errno) || errno == ECONNABORTED || errno == EPROTO) return DFC_SUCCESS;
            return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "accept4 on the tcp listener: %s%s",
                           strerror(errno),
                           errno == EMFILE || errno == ENFILE
                               ? " (raise the open file limit, ulimit -n)"
                               : "");
        }
        int ok = 0;
        for (int k = 0; k < hs->nallowed && !ok; k++)
            ok = sl >= sizeof(sa) && sa.sin_family == AF_INET &&
                 sa.sin_addr.s_addr == hs->allowed[k];
        if (!ok) { /* not from an address a peer published */
            hs->nrefused++;
            close(fd);
            continue;
        }
        if (hs->ninb == TCP_MAX_PENDING) { /* full: the oldest unproven one goes */
            int old = 0;
            for (int j = 1; j < hs->ninb; j++)
                if (hs->inb[j].deadline < hs->inb[old].deadline) old = j;
            hs->nevicted++;
            inbound_drop(hs, old, "slots full: the oldest unproven connection goes");
        }
        inbound_t *in = &hs->inb[hs->ninb];
        *in = (inbound_t){.fd = fd, .deadline = DFC_MIN2(deadline, now + TCP_INBOUND_NS)};
        dfc_tcp_hello_t ch;
        if (nonce(in->nonce_a) != 0) {
            close(fd);
            return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "getrandom: %s", strerror(errno));
        }
        dfc_tcp_hs_build(&ch, DFC_TCP_HS_CHALLENGE, s->rank, -1, s->size, in->nonce_a, NULL,
                         s->secret);
        if (hs_send(fd, &ch) != 0) {
            close(fd);
            continue;
        }
        hs->ninb++;
    }
}

/* Takes a proven connection of world rank w (lower than us). A newer proof from the same
 * rank replaces an older connection: that peer gave the older one up (no ACK reached it). */
static int adopt(tcp_t *s, int fd, int w)
{
    tcp_conn_t *c = &s->conns[s->w2c[w]];
    int was = c->fd >= 0;
    if (was) close(c->fd);
    c->fd = fd;
    return !was;
}

/* Reads HELLOs; a proven one gets its ACK and becomes the peer's connection. */
static void inbound_step(tcp_t *s, hs_t *hs, uint64_t now)
{
    for (int j = 0; j < hs->ninb; j++) {
        inbound_t *in = &hs->inb[j];
        const char *why = NULL;
        int r = hs_recv(in->fd, &in->msg, &in->got);
        if (r < 0) why = "closed before a full hello";
        else if (r == 0 && now >= in->deadline) why = "no hello in time";
        if (r == 0 && !why) continue;
        if (r > 0) {
            int w = dfc_tcp_hs_check(&in->msg, DFC_TCP_HS_HELLO, s->rank, s->size, s->secret,
                                     in->nonce_a, NULL, &why);
            if (w >= 0 && (w >= s->rank || s->w2c[w] < 0)) {
                w = -1;
                why = "unexpected rank";
            }
            dfc_tcp_hello_t ack;
            if (w >= 0) {
                dfc_tcp_hs_build(&ack, DFC_TCP_HS_ACK, s->rank, w, s->size, in->nonce_a,
                                 in->msg.nonce, s->secret);
                if (hs_send(in->fd, &ack) != 0) why = "the ACK could not be sent";
                else hs->nconnected += adopt(s, in->fd, w);
            }
            if (w >= 0 && !why) {
                hs->inb[j--] = hs->inb[--hs->ninb]; /* the fd is the conn's now */
                continue;
            }
        }
        inbound_drop(hs, j--, why);
    }
}

static void outbound_reset(hs_t *hs, int i, uint64_t now, int err)
{
    outbound_t *o = &hs->out[i];
    if (err) hs->last_err = err;
    if (o->phase > 0)
        DFC_LOG(DFC_LOG_INFO, "tcp", "connecting again to conn %d: %s in handshake step %d", i,
                strerror(err), o->phase);
    if (o->fd >= 0) close(o->fd);
    o->fd = -1;
    o->phase = 0;
    o->retry_at = now + TCP_RETRY_NS;
}

/* One step of our connection to conns[i]; revents from poll. */
static void outbound_step(tcp_t *s, hs_t *hs, int i, short revents, uint64_t now)
{
    outbound_t *o = &hs->out[i];
    tcp_conn_t *c = &s->conns[i];
    const char *why = NULL;
    if (o->phase == 0) {
        int err = 0;
        socklen_t el = sizeof(err);
        if (!(revents & (POLLOUT | POLLERR | POLLHUP))) return;
        if (getsockopt(o->fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0) err = errno;
        if (err) return outbound_reset(hs, i, now, err);
        o->phase = 1;
        o->got = 0;
        return;
    }
    int r = hs_recv(o->fd, &o->msg, &o->got);
    if (r < 0) return outbound_reset(hs, i, now, ECONNRESET); /* evicted or refused: again */
    if (r == 0) {
        if (o->phase == 2 && now >= o->deadline) outbound_reset(hs, i, now, ETIMEDOUT);
        return;
    }
    o->got = 0;
    if (o->phase == 1) {
        int w = dfc_tcp_hs_check(&o->msg, DFC_TCP_HS_CHALLENGE, s->rank, s->size, s->secret, NULL,
                                 NULL, &why);
        dfc_tcp_hello_t h;
        if (w != c->world || nonce(o->nonce_c) != 0) return outbound_reset(hs, i, now, EPROTO);
        memcpy(o->nonce_a, o->msg.nonce, DFC_TCP_NONCE_LEN);
        dfc_tcp_hs_build(&h, DFC_TCP_HS_HELLO, s->rank, c->world, s->size, o->nonce_a, o->nonce_c,
                         s->secret);
        if (hs_send(o->fd, &h) != 0) return outbound_reset(hs, i, now, errno ? errno : EIO);
        o->phase = 2;
        o->deadline = now + TCP_ACK_WAIT_NS;
        return;
    }
    int w = dfc_tcp_hs_check(&o->msg, DFC_TCP_HS_ACK, s->rank, s->size, s->secret, o->nonce_a,
                             o->nonce_c, &why);
    if (w != c->world) {
        DFC_LOG(DFC_LOG_INFO, "tcp", "world rank %d's address answered with a bad ACK: %s",
                c->world, why ? why : "another rank");
        return outbound_reset(hs, i, now, EPROTO);
    }
    c->fd = o->fd; /* proven both ways: the link counts */
    o->fd = -1;
    hs->nconnected++;
}

/* Starts the connections that are due. A malformed address or EMFILE ends init at once. */
static int outbound_start(tcp_t *s, hs_t *hs, uint64_t now)
{
    for (int i = 0; i < s->nconns; i++) {
        tcp_conn_t *c = &s->conns[i];
        outbound_t *o = &hs->out[i];
        if (c->world < s->rank || c->fd >= 0 || o->fd >= 0 || now < o->retry_at) continue;
        int e = dfc_tcp_connect_start(hs->addrs[i], hs->my_ip, s->sockbuf, &o->fd);
        if (e == EINVAL)
            return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                           "world rank %d published a malformed "
                           "address '%s'",
                           c->world, hs->addrs[i]);
        if (e == EMFILE || e == ENFILE)
            return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                           "socket: %s (raise the open file limit, "
                           "ulimit -n)",
                           strerror(e));
        if (e) {
            o->fd = -1;
            outbound_reset(hs, i, now, e);
        } else {
            o->phase = 0;
        }
    }
    return DFC_SUCCESS;
}

static int connect_timeout_err(tcp_t *s, hs_t *hs, double timeout_s)
{
    int missing = -1;
    for (int i = 0; i < s->nconns && missing < 0; i++)
        if (s->conns[i].fd < 0) missing = s->conns[i].world;
    return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                   "%d of %d tcp connections not made within DFC_TCP_CONNECT_TIMEOUT=%g s "
                   "(first missing: world rank %d%s%s; %d unproven inbound connections "
                   "dropped for room, %d from addresses no peer published)",
                   s->nconns - hs->nconnected, s->nconns, timeout_s, missing,
                   hs->last_err ? "; last connect error: " : "",
                   hs->last_err ? strerror(hs->last_err) : "", hs->nevicted, hs->nrefused);
}

/* Connects to higher peers and accepts lower ones until all are proven or the deadline. */
static int connect_all(tcp_t *s, hs_t *hs, double timeout_s)
{
    uint64_t now = dfc_time_ns(), deadline = now + (uint64_t)(timeout_s * 1e9);
    int rc = DFC_SUCCESS;
    struct pollfd *pf = dfc_malloc((1 + s->nconns + TCP_MAX_PENDING) * sizeof(*pf));
    int *who = dfc_malloc((1 + s->nconns + TCP_MAX_PENDING) * sizeof(int));
    if (!pf || !who) rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    while (rc == DFC_SUCCESS && hs->nconnected < s->nconns) {
        now = dfc_time_ns();
        if (now >= deadline) {
            rc = connect_timeout_err(s, hs, timeout_s);
            break;
        }
        if ((rc = outbound_start(s, hs, now)) != DFC_SUCCESS) break;
        int np = 0;
        pf[np] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
        who[np++] = -1;
        for (int i = 0; i < s->nconns; i++) {
            if (hs->out[i].fd < 0) continue;
            pf[np] = (struct pollfd){.fd = hs->out[i].fd,
                                     .events = hs->out[i].phase ? POLLIN : POLLOUT};
            who[np++] = i;
        }
        for (int j = 0; j < hs->ninb; j++) {
            pf[np] = (struct pollfd){.fd = hs->inb[j].fd, .events = POLLIN};
            who[np++] = -2;
        }
        uint64_t left_ms = (deadline - now) / 1000000 + 1;
        if (poll(pf, (nfds_t)np, (int)DFC_MIN2(left_ms, 10)) < 0 && errno != EINTR) {
            rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "poll: %s", strerror(errno));
            break;
        }
        now = dfc_time_ns();
        for (int k = 1; k < np; k++)
            if (who[k] >= 0 && pf[k].revents) outbound_step(s, hs, who[k], pf[k].revents, now);
        inbound_step(s, hs, now);
        if (pf[0].revents && (rc = accept_new(s, hs, now, deadline)) != DFC_SUCCESS) break;
    }
    for (int j = 0; j < hs->ninb; j++) close(hs->inb[j].fd);
    hs->ninb = 0;
    for (int i = 0; i < s->nconns; i++)
        if (hs->out[i].fd >= 0) close(hs->out[i].fd);
    dfc_free(pf);
    dfc_free(who);
    return rc;
}

/* Socket options and epoll registration of connected sockets. */
static int conns_ready(tcp_t *s)
{
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    s->evs = dfc_calloc(s->nconns, sizeof(*s->evs));
    if (s->epfd < 0 || !s->evs)
        return DFC_ERR(DFC_ERR_NO_MEM, "epoll_create1: %s", strerror(errno));
    for (int i = 0; i < s->nconns; i++) {
        tcp_conn_t *c = &s->conns[i];
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        dfc_tcp_sockopts(c->fd, 0); /* TCP_NODELAY on accepted sockets too */
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0)
            return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "epoll_ctl: %s", strerror(errno));
    }
    return DFC_SUCCESS;
}

/* The parameters of tcp, read in this one place: by tcp_init, and through
 * dfc_tl_tcp_register_params by dfc_info, since a singleton never starts tcp. */
typedef struct tcp_params {
    long max_payload, max_queued, sockbuf, connect_timeout, eager_limit;
    const char *if_addr, *ifs;
} tcp_params_t;

static void read_params(tcp_params_t *p)
{
    p->max_payload =
        dfc_env_long("DFC_TCP_MAX_PAYLOAD", 262144,
                     "tcp: largest packet payload in bytes (rendezvous fragment size)");
    p->max_queued =
        dfc_env_long("DFC_TCP_MAX_QUEUED", 8L << 20,
                     "tcp: bytes queued per peer beyond what the socket takes before send "
                     "answers 'try again'");
    /* 64 KiB, as Open MPI's btl tcp: between hosts a rendezvous (RTS, CTS, data) costs a
     * round trip more than one message, which one-sided operations of 32 KiB paid as
     * 1.23-1.36x Open MPI's time (BENCHMARKS.md, rma4 on 16 cores). */
    p->eager_limit = dfc_env_long("DFC_TCP_EAGER_LIMIT", 65536,
                                  "tcp: largest message sent eagerly to a tcp peer (bytes, at "
                                  "most DFC_TCP_MAX_PAYLOAD); 0: DFC_EAGER_LIMIT");
    p->sockbuf = dfc_env_long("DFC_TCP_SOCKBUF", 0,
                              "tcp: SO_SNDBUF/SO_RCVBUF in bytes; 0 keeps the kernel's "
                              "autotuning (a fixed size disables it)");
    p->connect_timeout = dfc_env_long(
        "DFC_TCP_CONNECT_TIMEOUT", 30,
        "tcp: seconds init waits for all connections (1 to 86400; checked at DFC_Init)");
    p->if_addr = dfc_env_str("DFC_TCP_IF_ADDR", NULL,
                             "tcp: IPv4 address to listen on and publish (overrides DFC_TCP_IF)");
    p->ifs = dfc_env_str("DFC_TCP_IF", NULL,
                         "tcp: interfaces to listen on, comma-separated, the first with an IPv4 "
                         "address wins; default: the host name's address unless loopback, else "
                         "the first interface up and not loopback");
}

void dfc_tl_tcp_register_params(void)
{
    tcp_params_t p;
    read_params(&p);
}

int dfc_tl_tcp_address(char *ip, size_t iplen, char *how, size_t howlen)
{
    tcp_params_t p;
    read_params(&p);
    return dfc_tcp_choose_addr(p.if_addr, p.ifs, ip, iplen, how, howlen);
}

/* Listens on the chosen address and publishes it; rank 0 also publishes the job secret
 * (whether or not it uses tcp). Then the only fence. */
static int publish(tcp_t *s, const dfc_tl_job_t *job, const tcp_params_t *prm, char *ip,
                   size_t iplen)
{
    int rc = DFC_SUCCESS, frc;
    if (job->npeers > 0) {
        int port;
        char how[160], addr[96];
        rc = dfc_tcp_choose_addr(prm->if_addr, prm->ifs, ip, iplen, how, sizeof(how));
        if (rc == DFC_SUCCESS) rc = dfc_tcp_listen(ip, s->sockbuf, &s->lfd, &port);
        if (rc == DFC_SUCCESS) {
            snprintf(addr, sizeof(addr), "%s:%d", ip, port);
            DFC_LOG(DFC_LOG_INFO, "tcp", "listening on %s (%s)", addr, how);
            rc = dfc_boot_put("dfc.tcp.addr", addr, strlen(addr) + 1);
        }
    }
    if (job->rank == 0) {
        uint8_t secret[DFC_TCP_SECRET_LEN];
        if (getrandom(secret, sizeof(secret), 0) != (ssize_t)sizeof(secret)) {
            if (rc == DFC_SUCCESS)
                rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "getrandom: %s", strerror(errno));
        } else {
            frc = dfc_boot_put("dfc.tcp.secret", secret, sizeof(secret));
            if (rc == DFC_SUCCESS) rc = frc;
        }
    }
    frc = dfc_boot_fence();
    return rc == DFC_SUCCESS ? frc : rc;
}

/* The peers' published addresses (addrs[i] for conns[i]) and the set of those that lower
 * peers, which connect to us, may come from. */
static int fetch_addrs(tcp_t *s, const dfc_tl_job_t *job, hs_t *hs)
{
    for (int i = 0; i < job->npeers; i++) {
        int w = job->peers[i];
        void *val = NULL;
        size_t len = 0;
        if (w < 0 || w >= job->size || w == job->rank || s->w2c[w] >= 0)
            return DFC_ERR(DFC_ERR_INTERN, "bad tcp peer list entry %d", w);
        s->conns[i] = (tcp_conn_t){.fd = -1, .world = w};
        s->w2c[w] = i;
        s->nconns++;
        hs->out[i].fd = -1;
        int rc = dfc_boot_get(w, "dfc.tcp.addr", &val, &len);
        if (rc != DFC_SUCCESS) return rc;
        hs->addrs[i] = val;
        char ip[64];
        const char *colon = len ? memchr(val, ':', len) : NULL;
        struct in_addr a;
        if (len == 0 || hs->addrs[i][len - 1] != '\0' || !colon ||
            (size_t)(colon - hs->addrs[i]) >= sizeof(ip))
            return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                           "world rank %d published a malformed "
                           "address",
                           w);
        memcpy(ip, val, (size_t)(colon - hs->addrs[i]));
        ip[colon - hs->addrs[i]] = '\0';
        if (w < job->rank && inet_pton(AF_INET, ip, &a) == 1)
            hs->allowed[hs->nallowed++] = a.s_addr;
    }
    return DFC_SUCCESS;
}

static int tcp_init(dfc_tl_t *tl, const dfc_tl_job_t *job)
{
    tcp_t *s = dfc_calloc(1, sizeof(*s));
    if (!s) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    tl->priv = s;
    s->lfd = s->epfd = -1;
    s->rank = job->rank;
    s->size = job->size;
    tcp_params_t prm;
    read_params(&prm);
    long maxp = prm.max_payload;
    s->max_payload = maxp >= 1024 && maxp <= (1L << 30) ? (size_t)maxp : 262144;
    tl->max_payload = s->max_payload;
    tl->eager_limit = prm.eager_limit > 0 ? DFC_MIN2((size_t)prm.eager_limit, s->max_payload) : 0;
    s->icap_max = 2 * dfc_tcp_wire_len((uint32_t)s->max_payload);
    long mq = prm.max_queued;
    s->max_queued = mq > 0 ? (size_t)mq : (size_t)8 << 20;
    s->sockbuf = (int)prm.sockbuf;
    char ip[64] = "";
    hs_t *hs = NULL;
    void *val = NULL;
    size_t len = 0;
    int rc = publish(s, job, &prm, ip, sizeof(ip));
    if (rc != DFC_SUCCESS || job->npeers == 0) goto out;

    rc = dfc_boot_get(0, "dfc.tcp.secret", &val, &len);
    if (rc == DFC_SUCCESS && len != DFC_TCP_SECRET_LEN)
        rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "the job secret has %zu bytes", len);
    if (rc == DFC_SUCCESS) memcpy(s->secret, val, DFC_TCP_SECRET_LEN);
    free(val);
    if (rc != DFC_SUCCESS) goto out;

    s->conns = dfc_calloc(job->npeers, sizeof(*s->conns));
    s->w2c = dfc_malloc((size_t)job->size * sizeof(int));
    hs = dfc_calloc(1, sizeof(*hs));
    if (hs) {
        hs->out = dfc_calloc(job->npeers, sizeof(*hs->out));
        hs->addrs = dfc_calloc(job->npeers, sizeof(char *));
        hs->allowed = dfc_calloc(job->npeers, sizeof(uint32_t));
        hs->my_ip = ip;
    }
    if (!s->conns || !s->w2c || !hs || !hs->out || !hs->addrs || !hs->allowed) {
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory for %d tcp peers", job->npeers);
        goto out;
    }
    for (int w = 0; w < job->size; w++) s->w2c[w] = -1;
    rc = fetch_addrs(s, job, hs);
    if (rc == DFC_SUCCESS) rc = connect_all(s, hs, (double)prm.connect_timeout);
    if (rc == DFC_SUCCESS) rc = conns_ready(s);
    for (int i = 0; rc == DFC_SUCCESS && i < s->nconns; i++)
        dfc_tcp_keepalive(s->conns[i].fd, job->fault_timeout_s);
    s->direct = s->nconns <= TCP_DIRECT_PEERS;
    s->fault_ms = job->fault_timeout_s > 0 ? (unsigned)job->fault_timeout_s * 1000u : 0;
    s->live_every_ns = (uint64_t)s->fault_ms * 125000u; /* 8 checks per DFC_FAULT_TIMEOUT */
    s->live_next_ns = dfc_time_ns() + s->live_every_ns;
    DFC_LOG(DFC_LOG_INFO, "tcp", "%d peers connected, max payload %zu", s->nconns, s->max_payload);
out:
    if (s->lfd >= 0) { /* every peer is connected (or init failed): no more listening */
        close(s->lfd);
        s->lfd = -1;
    }
    if (hs) {
        for (int i = 0; hs->addrs && i < job->npeers; i++) free(hs->addrs[i]);
        dfc_free(hs->addrs);
        dfc_free(hs->out);
        dfc_free(hs->allowed);
        dfc_free(hs);
    }
    if (rc != DFC_SUCCESS) tcp_fini(tl);
    return rc;
}

static void tcp_fini(dfc_tl_t *tl)
{
    tcp_t *s = tl->priv;
    if (!s) return;
    for (int i = 0; i < s->nconns; i++) {
        if (s->conns[i].fd >= 0) close(s->conns[i].fd);
        dfc_free(s->conns[i].obuf);
        dfc_free(s->conns[i].ibuf);
    }
    if (s->lfd >= 0) close(s->lfd);
    if (s->epfd >= 0) close(s->epfd);
    dfc_free(s->conns);
    dfc_free(s->w2c);
    dfc_free(s->evs);
    dfc_free(s);
    tl->priv = NULL;
}

const dfc_tl_ops_t dfc_tl_tcp_ops = {
    .name = "tcp",
    .init = tcp_init,
    .send = tcp_send,
    .rget = NULL,
    .progress = tcp_progress,
    .wait = tcp_wait,
    .pending = tcp_pending,
    .fini = tcp_fini,
};
