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
 *    probes and TCP_USER_TIMEOUT find it within DFC_FAULT_TIMEOUT seconds.
 *  - wait sleeps in ppoll on an epoll set of all sockets (nanosecond timeouts), plus
 *    POLLOUT on sockets with queued output.
 *
 * Threads: the comm layer serializes everything but wait, which may run outside its lock
 * (only reads state).
 */
#include "config.h"

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

#define TCP_IBUF_MIN      65536   /* first input buffer of a peer; grows for big packets */
#define TCP_OBUF_MIN      65536   /* first output queue of a peer (allocated when needed) */
#define TCP_OBUF_KEEP     1048576 /* a drained queue larger than this is freed */
#define TCP_DIRECT_PEERS  1       /* with one peer progress recv()s directly (1 syscall) */
#define TCP_READ_ROUNDS   4       /* reads per peer per progress call (fairness) */
#define TCP_MAX_PENDING   64      /* unverified inbound connections at once during init */

typedef struct tcp_conn {
    int fd;      /* -1 before the handshake and after a failure */
    int world;
    int dead;    /* failed: sends fail */
    int unreported;
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

static int would_block(int e) { return e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ENOBUFS; }

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
    struct iovec iov[3] = {{(void *)pkt, sizeof(dfc_pkt_t)}, {(void *)payload, plen}, {(void *)zeros, pad}};
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
            if (errno != EAGAIN && errno != EWOULDBLOCK) conn_fail(s, c, "recv: %s", strerror(errno));
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
            if (DFC_UNLIKELY(w < 0)) {
                conn_fail(s, c, "malformed packet header (type %u, payload %u bytes)", pkt->type,
                          pkt->payload_len);
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

static int tcp_progress(dfc_tl_t *tl, dfc_tl_deliver_fn deliver)
{
    tcp_t *s = tl->priv;
    int n = 0;
    if (!s || s->nconns == 0) return 0;
    if (s->nqueued)
        for (int i = 0; i < s->nconns; i++)
            if (s->conns[i].ot != s->conns[i].oh && s->conns[i].fd >= 0) conn_flush(s, &s->conns[i]);
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
    /* The epoll fd turns readable when any socket is; sockets with queued output are
     * added for POLLOUT so a full socket that drains wakes us too. */
    struct pollfd pf[17];
    int k = 0;
    if (s && s->nconns > 0) {
        pf[k++] = (struct pollfd){.fd = s->epfd, .events = POLLIN};
        for (int i = 0; s->nqueued && i < s->nconns && k < 17; i++) {
            const tcp_conn_t *c = &s->conns[i];
            if (c->ot != c->oh && c->fd >= 0) pf[k++] = (struct pollfd){.fd = c->fd, .events = POLLOUT};
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

typedef struct inbound {
    int fd;
    size_t got;
    uint64_t deadline;
    dfc_tcp_hello_t hello;
} inbound_t;

/* Takes a checked HELLO's socket as the connection of world rank `w`, if expected. */
static int adopt(tcp_t *s, inbound_t *in, int w, const char **why)
{
    if (w >= s->rank || s->w2c[w] < 0) {
        *why = "unexpected rank";
        return 0;
    }
    tcp_conn_t *c = &s->conns[s->w2c[w]];
    if (c->fd >= 0) {
        *why = "rank already connected";
        return 0;
    }
    c->fd = in->fd;
    return 1;
}

/* Connects to higher peers and accepts lower ones; returns when all are connected or at
 * the deadline. addrs[i] is conns[i]'s "ip:port" (needed for higher peers only). */
static int connect_all(tcp_t *s, char **addrs, double timeout_s)
{
    uint64_t now = dfc_time_ns(), deadline = now + (uint64_t)(timeout_s * 1e9);
    int nconnected = 0, ninb = 0, rc = DFC_SUCCESS, last_err = 0;
    inbound_t inb[TCP_MAX_PENDING];
    int *cfd = dfc_malloc(s->nconns * sizeof(int));           /* connect in progress */
    uint64_t *retry = dfc_calloc(s->nconns, sizeof(uint64_t)); /* next connect attempt */
    struct pollfd *pf = dfc_malloc((1 + s->nconns + TCP_MAX_PENDING) * sizeof(*pf));
    int *who = dfc_malloc((1 + s->nconns + TCP_MAX_PENDING) * sizeof(int));
    if (!cfd || !retry || !pf || !who) {
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < s->nconns; i++) cfd[i] = -1;

    while (nconnected < s->nconns) {
        now = dfc_time_ns();
        if (now >= deadline) {
            int missing = -1;
            for (int i = 0; i < s->nconns && missing < 0; i++)
                if (s->conns[i].fd < 0) missing = s->conns[i].world;
            rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                         "%d of %d tcp connections not made within DFC_TCP_CONNECT_TIMEOUT=%g s "
                         "(first missing: world rank %d%s%s)",
                         s->nconns - nconnected, s->nconns, timeout_s, missing,
                         last_err ? "; last connect error: " : "", last_err ? strerror(last_err) : "");
            goto out;
        }
        int np = 0;
        pf[np] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
        who[np++] = -1;
        for (int i = 0; i < s->nconns; i++) {
            tcp_conn_t *c = &s->conns[i];
            if (c->world < s->rank || c->fd >= 0) continue;
            if (cfd[i] < 0 && now >= retry[i]) {
                int e = dfc_tcp_connect_start(addrs[i], s->sockbuf, &cfd[i]);
                if (e == EINVAL) {
                    rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "world rank %d published a "
                                 "malformed address '%s'", c->world, addrs[i]);
                    goto out;
                }
                if (e) {
                    last_err = e;
                    retry[i] = now + 10000000; /* 10 ms */
                }
            }
            if (cfd[i] >= 0) {
                pf[np] = (struct pollfd){.fd = cfd[i], .events = POLLOUT};
                who[np++] = i;
            }
        }
        for (int j = 0; j < ninb; j++) {
            pf[np] = (struct pollfd){.fd = inb[j].fd, .events = POLLIN};
            who[np++] = s->nconns + j;
        }
        uint64_t left_ms = (deadline - now) / 1000000 + 1;
        if (poll(pf, (nfds_t)np, (int)DFC_MIN2(left_ms, 10)) < 0 && errno != EINTR) {
            rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "poll: %s", strerror(errno));
            goto out;
        }
        now = dfc_time_ns();
        for (int k = 0; k < np; k++) {
            if (!pf[k].revents) continue;
            if (who[k] < 0) { /* new inbound connections */
                int fd;
                while ((fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    if (ninb == TCP_MAX_PENDING) { /* a flood: keep the older ones */
                        close(fd);
                        continue;
                    }
                    inb[ninb++] = (inbound_t){.fd = fd, .deadline = DFC_MIN2(deadline, now + 5000000000ull)};
                }
            } else if (who[k] < s->nconns) { /* our connect finished */
                int i = who[k], err = 0;
                socklen_t el = sizeof(err);
                if (getsockopt(cfd[i], SOL_SOCKET, SO_ERROR, &err, &el) != 0) err = errno;
                dfc_tcp_hello_t h;
                dfc_tcp_hello_build(&h, s->rank, s->size, s->secret);
                if (!err && send(cfd[i], &h, sizeof(h), MSG_NOSIGNAL) != (ssize_t)sizeof(h))
                    err = errno ? errno : EIO;
                if (err) {
                    last_err = err;
                    close(cfd[i]);
                    retry[i] = now + 10000000;
                } else {
                    s->conns[i].fd = cfd[i];
                    nconnected++;
                }
                cfd[i] = -1;
            }
        }
        /* Inbound HELLOs (read exactly one HELLO; data behind it stays in the socket). */
        for (int j = 0; j < ninb; j++) {
            inbound_t *in = &inb[j];
            int done = 0;
            const char *why = NULL;
            ssize_t n = recv(in->fd, (char *)&in->hello + in->got, sizeof(in->hello) - in->got, 0);
            if (n > 0) in->got += (size_t)n;
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
                why = n == 0 ? "closed before a full hello" : strerror(errno);
                done = 1;
            } else if (in->got == sizeof(in->hello)) {
                int w = dfc_tcp_hello_check(&in->hello, s->secret, s->size, &why);
                if (w >= 0 && adopt(s, in, w, &why)) {
                    nconnected++;
                    why = NULL;
                    in->fd = -1; /* now owned by the conn */
                }
                done = 1;
            } else if (now >= in->deadline) {
                why = "no hello in time";
                done = 1;
            }
            if (!done) continue;
            if (why) DFC_LOG(DFC_LOG_INFO, "tcp", "rejected an inbound connection: %s", why);
            if (in->fd >= 0) close(in->fd);
            inb[j--] = inb[--ninb];
        }
    }
out:
    for (int j = 0; j < ninb; j++) close(inb[j].fd);
    if (cfd)
        for (int i = 0; i < s->nconns; i++)
            if (cfd[i] >= 0) close(cfd[i]);
    dfc_free(cfd);
    dfc_free(retry);
    dfc_free(pf);
    dfc_free(who);
    return rc;
}

/* Socket options and epoll registration of connected sockets. */
static int conns_ready(tcp_t *s)
{
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    s->evs = dfc_calloc(s->nconns, sizeof(*s->evs));
    if (s->epfd < 0 || !s->evs) return DFC_ERR(DFC_ERR_NO_MEM, "epoll_create1: %s", strerror(errno));
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
    long max_payload, max_queued, sockbuf, connect_timeout;
    const char *if_addr;
} tcp_params_t;

static void read_params(tcp_params_t *p)
{
    p->max_payload = dfc_env_long("DFC_TCP_MAX_PAYLOAD", 262144,
                                  "tcp: largest packet payload in bytes (rendezvous fragment size)");
    p->max_queued = dfc_env_long("DFC_TCP_MAX_QUEUED", 8L << 20,
                                 "tcp: bytes queued per peer beyond what the socket takes before send "
                                 "answers 'try again'");
    p->sockbuf = dfc_env_long("DFC_TCP_SOCKBUF", 0,
                              "tcp: SO_SNDBUF/SO_RCVBUF in bytes; 0 keeps the kernel's "
                              "autotuning (a fixed size disables it)");
    p->connect_timeout = dfc_env_long("DFC_TCP_CONNECT_TIMEOUT", 30,
                                      "tcp: seconds init waits for all connections");
    p->if_addr = dfc_env_str("DFC_TCP_IF_ADDR", NULL,
                             "tcp: IPv4 address to listen on and publish; default: listen "
                             "on all, publish the address `hostname` resolves to (else "
                             "127.0.0.1)");
}

void dfc_tl_tcp_register_params(void)
{
    tcp_params_t p;
    read_params(&p);
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
    s->icap_max = 2 * dfc_tcp_wire_len((uint32_t)s->max_payload);
    long mq = prm.max_queued;
    s->max_queued = mq > 0 ? (size_t)mq : (size_t)8 << 20;
    s->sockbuf = (int)prm.sockbuf;
    double timeout = (double)prm.connect_timeout;
    const char *bind_ip = prm.if_addr;
    int rc = DFC_SUCCESS, frc;
    char **addrs = NULL;
    void *val = NULL;
    size_t len = 0;

    if (job->npeers > 0) {
        int port;
        char ip[64], addr[96];
        rc = dfc_tcp_listen(bind_ip, s->sockbuf, &s->lfd, &port);
        if (rc == DFC_SUCCESS) {
            dfc_tcp_public_ip(bind_ip, ip, sizeof(ip));
            snprintf(addr, sizeof(addr), "%s:%d", ip, port);
            rc = dfc_boot_put("dfc.tcp.addr", addr, strlen(addr) + 1);
        }
    }
    if (job->rank == 0) { /* rank 0 publishes the secret whether or not it uses tcp */
        uint8_t secret[DFC_TCP_SECRET_LEN];
        if (getrandom(secret, sizeof(secret), 0) != (ssize_t)sizeof(secret)) {
            if (rc == DFC_SUCCESS)
                rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "getrandom: %s", strerror(errno));
        } else {
            frc = dfc_boot_put("dfc.tcp.secret", secret, sizeof(secret));
            if (rc == DFC_SUCCESS) rc = frc;
        }
    }
    frc = dfc_boot_fence(); /* the only fence */
    if (rc == DFC_SUCCESS) rc = frc;
    if (rc != DFC_SUCCESS || job->npeers == 0) goto out;

    rc = dfc_boot_get(0, "dfc.tcp.secret", &val, &len);
    if (rc == DFC_SUCCESS && len != DFC_TCP_SECRET_LEN)
        rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "the job secret has %zu bytes", len);
    if (rc == DFC_SUCCESS) memcpy(s->secret, val, DFC_TCP_SECRET_LEN);
    free(val);
    if (rc != DFC_SUCCESS) goto out;

    s->conns = dfc_calloc(job->npeers, sizeof(*s->conns));
    s->w2c = dfc_malloc((size_t)job->size * sizeof(int));
    addrs = dfc_calloc(job->npeers, sizeof(char *));
    if (!s->conns || !s->w2c || !addrs) {
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory for %d tcp peers", job->npeers);
        goto out;
    }
    for (int w = 0; w < job->size; w++) s->w2c[w] = -1;
    for (int i = 0; i < job->npeers; i++) {
        int w = job->peers[i];
        if (w < 0 || w >= job->size || w == job->rank || s->w2c[w] >= 0) {
            rc = DFC_ERR(DFC_ERR_INTERN, "bad tcp peer list entry %d", w);
            goto out;
        }
        s->conns[i] = (tcp_conn_t){.fd = -1, .world = w};
        s->w2c[w] = i;
        s->nconns++;
        if (w > job->rank) { /* we connect to it: fetch its address */
            rc = dfc_boot_get(w, "dfc.tcp.addr", &val, &len);
            if (rc != DFC_SUCCESS) goto out;
            addrs[i] = val;
            if (len == 0 || addrs[i][len - 1] != '\0') {
                rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "world rank %d published a malformed "
                             "address", w);
                goto out;
            }
        }
    }
    rc = connect_all(s, addrs, timeout);
    if (rc == DFC_SUCCESS) rc = conns_ready(s);
    for (int i = 0; rc == DFC_SUCCESS && i < s->nconns; i++)
        dfc_tcp_keepalive(s->conns[i].fd, job->fault_timeout_s);
    s->direct = s->nconns <= TCP_DIRECT_PEERS;
    DFC_LOG(DFC_LOG_INFO, "tcp", "%d peers connected, max payload %zu", s->nconns, s->max_payload);
out:
    if (s->lfd >= 0) { /* every peer is connected (or init failed): no more listening */
        close(s->lfd);
        s->lfd = -1;
    }
    if (addrs)
        for (int i = 0; i < job->npeers; i++) free(addrs[i]);
    free(addrs);
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
