/*
 * test_tcp - the tcp transport (src/tl/tcp.c, tcp_wire.c) in forked processes, with a fake
 * bootstrap (tl_fakeboot.h) instead of PMIx:
 *   1. stream: 2 ranks send each other 10^5 packets of fuzzed sizes (0 .. max_payload) at
 *      once, with a small DFC_TCP_MAX_QUEUED, rank 0 starting while rank 1 does not read yet,
 *      so that send must answer "try again"; order, headers and
 *      every payload byte checked; then 1-byte ping-pong (its latency is printed as
 *      information, as is the stream's rate).
 *   2. handshake: between the fence and the connection phase of init, rank 0 attacks rank
 *      1's listening port: after its CHALLENGE, a HELLO proven with a wrong secret, garbage,
 *      out-of-range and unexpected ranks, a proof for another challenge (replay), the
 *      wrong world size, a truncated HELLO, a silent connection. Each must be closed by
 *      rank 1 without an ACK, whose init must still complete with the real rank 0. The
 *      listener does not answer on 127.0.0.1 when another address was published.
 *   3. malformed streams: ranks 2, 3 and 4 are hand-written peers that complete the
 *      handshake and then send a valid packet followed by a header with a too-large
 *      payload, one with a bad type, a truncated header + EOF, a clean EOF, or a packet
 *      that claims to come from another rank (4). Ranks 0 and 1 must get
 *      the valid packets, then one PROC_FAILED error per bad peer naming its world rank,
 *      PROC_FAILED from later sends to it, and keep talking to each other.
 *   4. a peer publishes an address nobody listens on: init fails after
 *      DFC_TCP_CONNECT_TIMEOUT with a message naming it, and leaves nothing behind.
 *   5. a process outside the job floods rank 1's port with silent connections (500, held
 *      open) while rank 0 connects: init completes on both (issue 25, item 1).
 *   6. rank 1 has no file descriptor left for accept4: its init fails naming accept4 and
 *      EMFILE, not with a timeout.
 *   7. DFC_TCP_CONNECT_TIMEOUT=-5: init fails on every rank with DFC_ERR_ARG naming it.
 * And SipHash-2-4 (the handshake's MAC) against the reference vectors.
 * Unit tests run without PMIx: the transport, tcp_wire.c and util are compiled in.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#include "tl_fakeboot.h"
#include "tl/dfc_tl.h"
#include "tl/tcp_wire.h"
#include "util/dfc_util.h"

#define CHECK(c)                                                                                \
    do {                                                                                        \
        if (!(c)) {                                                                             \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s\n", fb_rank, __FILE__, __LINE__, \
                    #c);                                                                        \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static dfc_tl_t tl;
static const dfc_tl_ops_t *ops = &dfc_tl_tcp_ops;
static int peers[64], local_ranks[64];

static int init_quiet, fault_timeout_s;
static int tl_init(int rank, int n)
{
    int np = 0;
    for (int r = 0; r < n; r++) {
        local_ranks[r] = r;
        if (r != rank) peers[np++] = r;
    }
    dfc_tl_job_t job = {.rank = rank,
                        .size = n,
                        .local_rank = rank,
                        .local_size = n,
                        .nspace = "test_tcp",
                        .peers = peers,
                        .npeers = np,
                        .local_ranks = local_ranks,
                        .fault_timeout_s = fault_timeout_s};
    memset(&tl, 0, sizeof(tl));
    tl.ops = ops;
    int rc = ops->init(&tl, &job);
    if (rc != DFC_SUCCESS && !init_quiet) {
        char msg[512];
        dfc_err_message(rc, msg, sizeof(msg));
        fprintf(stderr, "[rank %d] init: %s\n", rank, msg);
    }
    return rc;
}

static long pp_count;
static void deliver_count(const dfc_pkt_t *pkt, const void *payload)
{
    (void)pkt;
    (void)payload;
    pp_count++;
}

/* Flushes, lets every rank finish reading, then closes. */
static void tl_finish(void)
{
    while (ops->pending(&tl)) CHECK(ops->progress(&tl, deliver_count) >= 0);
    dfc_boot_fence();
    ops->fini(&tl);
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    *s = x;
    return x * 2685821657736338717ull;
}

#define PAT_K 0x9e3779b97f4a7c15ull
static void fill(unsigned char *p, size_t len, uint64_t seq)
{
    size_t k = 0;
    for (; (k + 1) * 8 <= len; k++) {
        uint64_t w = seq * PAT_K + k;
        memcpy(p + 8 * k, &w, 8);
    }
    for (size_t i = 8 * k; i < len; i++) p[i] = (unsigned char)(seq + i);
}

static int verify(const unsigned char *p, size_t len, uint64_t seq)
{
    size_t k = 0;
    for (; (k + 1) * 8 <= len; k++) {
        uint64_t w;
        memcpy(&w, p + 8 * k, 8);
        if (w != seq * PAT_K + k) return 0;
    }
    for (size_t i = 8 * k; i < len; i++)
        if (p[i] != (unsigned char)(seq + i)) return 0;
    return 1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static dfc_pkt_t mkpkt(int src, uint64_t seq, uint32_t len)
{
    dfc_pkt_t p = {.type = DFC_PKT_EAGER,
                   .ctx = 7,
                   .src = src,
                   .tag = (int32_t)seq,
                   .len = len,
                   .sreq = seq * 3,
                   .rreq = ~seq,
                   .offset = seq << 20,
                   .payload_len = len,
                   .src_world = (uint32_t)src};
    return p;
}

/* ---- 1. stream ---------------------------------------------------------------------- */
#define NSTREAM 100000

static uint64_t rx_seed, rx_seq;
static long rx_bad;
static size_t max_payload;

static uint32_t stream_len(uint64_t *s)
{
    uint64_t x = rng_next(s);
    if ((x & 31) == 0) return (uint32_t)((x >> 8) % (max_payload + 1)); /* 1/32 large */
    if ((x & 31) == 1) return (uint32_t)max_payload;
    return (uint32_t)((x >> 8) % 257);
}

static void deliver_stream(const dfc_pkt_t *pkt, const void *payload)
{
    uint64_t seq = rx_seq++;
    uint32_t len = stream_len(&rx_seed);
    dfc_pkt_t want = mkpkt(pkt->src_world, seq, len);
    if (memcmp(pkt, &want, sizeof(want)) != 0 || !verify(payload, len, seq ^ 0x5555)) {
        if (rx_bad++ < 3)
            fprintf(stderr, "[rank %d] packet %llu: tag %d len %u, expected len %u\n", fb_rank,
                    (unsigned long long)seq, pkt->tag, pkt->payload_len, len);
    }
}

/* Round trips of 1-byte packets between ranks a and b; returns seconds per round trip. */
static double pingpong(int me, int a, int b, int iters)
{
    char c = 'x';
    dfc_pkt_t p = mkpkt(me, 0, 1);
    long target = 0;
    double t0 = now();
    for (int i = 0; i < iters; i++) {
        if (me == a) CHECK(ops->send(&tl, b, &p, &c) == DFC_SUCCESS);
        target++;
        for (int idle = 0; pp_count < target;) {
            int r = ops->progress(&tl, deliver_count);
            CHECK(r >= 0);
            idle = r ? 0 : idle + 1;
            if (idle > 100) ops->wait(&tl, 1000); /* as the comm layer does: don't spin long */
        }
        if (me == b) CHECK(ops->send(&tl, a, &p, &c) == DFC_SUCCESS);
    }
    return (now() - t0) / iters;
}

static int stream_rank(int rank, int n)
{
    CHECK(tl_init(rank, n) == DFC_SUCCESS);
    max_payload = tl.max_payload;
    int peer = 1 - rank;
    uint64_t tx_seed = 1000 + rank, tx_seq = 0;
    rx_seed = 1000 + peer;
    rx_seq = 0;
    unsigned char *buf = malloc(max_payload);
    long again = 0;
    double bytes = 0, t0 = now();
    uint32_t len = stream_len(&tx_seed);
    fill(buf, len, tx_seq ^ 0x5555);
    /* Rank 0 starts alone, without progress, while rank 1 waits at the fence: the socket
     * and the small queue fill up, so send must say "try again" (checked below). */
    int alone = rank == 0;
    if (rank == 1) dfc_boot_fence();
    while (tx_seq < NSTREAM || rx_seq < NSTREAM) {
        for (int burst = 0; (burst < 64 || alone) && tx_seq < NSTREAM; burst++) {
            dfc_pkt_t p = mkpkt(rank, tx_seq, len);
            int rc = ops->send(&tl, peer, &p, buf);
            if (rc == DFC_TL_AGAIN) {
                again++;
                if (alone) {
                    alone = 0;
                    dfc_boot_fence();
                }
                break;
            }
            CHECK(rc == DFC_SUCCESS);
            bytes += len;
            if (++tx_seq < NSTREAM) {
                len = stream_len(&tx_seed);
                fill(buf, len, tx_seq ^ 0x5555);
            }
        }
        int got = ops->progress(&tl, deliver_stream);
        CHECK(got >= 0);
    }
    double dt = now() - t0;
    CHECK(rx_bad == 0);
    CHECK(rank != 0 || again > 0); /* the bound (DFC_TCP_MAX_QUEUED, small here) applied */
    CHECK(!alone);
    /* The peer may still be reading our stream: flush, and meet before the ping-pong. */
    while (ops->pending(&tl)) CHECK(ops->progress(&tl, deliver_stream) >= 0);
    dfc_boot_fence();
    double rtt = pingpong(rank, 0, 1, 10000);
    if (rank == 0)
        printf("# tcp stream: %d packets each way in %.2f s (%.0f kpkt/s, %.0f MB/s per "
               "direction, %ld retries); 1-byte ping-pong %.1f us half round trip\n",
               NSTREAM, dt, NSTREAM / dt / 1e3, bytes / dt / 1e6, again, rtt / 2 * 1e6);
    free(buf);
    tl_finish();
    return 0;
}

/* Information: rank 0 streams 256 MiB of max-size packets to rank 1 (default queue bound). */
static void bulk(int rank)
{
    size_t mp = tl.max_payload;
    long npk = (256L << 20) / (long)mp;
    char *buf = calloc(1, mp);
    dfc_boot_fence();
    long base = pp_count;
    double t0 = now();
    if (rank == 0) {
        for (long i = 0; i < npk;) {
            dfc_pkt_t p = mkpkt(0, (uint64_t)i, (uint32_t)mp);
            int rc = ops->send(&tl, 1, &p, buf);
            if (rc == DFC_SUCCESS) i++;
            else CHECK(rc == DFC_TL_AGAIN);
            if (rc != DFC_SUCCESS) CHECK(ops->progress(&tl, deliver_count) >= 0);
        }
        while (ops->pending(&tl)) CHECK(ops->progress(&tl, deliver_count) >= 0);
    } else {
        while (pp_count - base < npk) CHECK(ops->progress(&tl, deliver_count) >= 0);
        double dt = now() - t0;
        printf("# tcp bulk: %ld packets of %zu bytes, %.0f MB/s\n", npk, mp,
               npk * (double)mp / dt / 1e6);
    }
    free(buf);
}

/* ---- 2. handshake ------------------------------------------------------------------- */

static int raw_connect(const char *addr)
{
    int fd;
    CHECK(dfc_tcp_connect_start(addr, NULL, 0, &fd) == 0);
    struct pollfd pf = {fd, POLLOUT, 0};
    CHECK(poll(&pf, 1, 5000) == 1);
    int err = 0;
    socklen_t el = sizeof(err);
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
    CHECK(err == 0);
    return fd;
}

/* 1 when the other side closes fd (EOF or reset) within 5 s, reading past any data. */
static int closed_by_peer(int fd)
{
    double end = now() + 5;
    char buf[256];
    while (now() < end) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, 100) <= 0) continue;
        ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) return 1;
    }
    return 0;
}

static int attack_results = -1, silent_fd = -1;

/* Reads one handshake message (5 s at most); 0 on success. */
static int read_msg(int fd, dfc_tcp_hello_t *m)
{
    size_t got = 0;
    while (got < sizeof(*m)) {
        struct pollfd q = {fd, POLLIN, 0};
        if (poll(&q, 1, 5000) != 1) return -1;
        ssize_t r = recv(fd, (char *)m + got, sizeof(*m) - got, 0);
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

/* One attack on the acceptor at addr: connect, take its CHALLENGE, answer with `how`.
 * Returns 1 when the acceptor closes the connection (and sent no ACK). */
static int attack_one(const char *addr, const uint8_t *secret, int how)
{
    uint8_t key[DFC_TCP_SECRET_LEN], nc[DFC_TCP_NONCE_LEN] = {1, 2, 3}, na[DFC_TCP_NONCE_LEN];
    dfc_tcp_hello_t ch, h;
    const char *why;
    int fd = raw_connect(addr), rank = 0, size = 2;
    CHECK(read_msg(fd, &ch) == 0);
    CHECK(dfc_tcp_hs_check(&ch, DFC_TCP_HS_CHALLENGE, 0, 2, secret, NULL, NULL, &why) == 1);
    memcpy(key, secret, sizeof(key));
    memcpy(na, ch.nonce, sizeof(na));
    if (how == 'k') key[7] ^= 1; /* a wrong secret */
    if (how == 'r') rank = 5;    /* rank out of range */
    if (how == 'u') rank = 1;    /* a rank the acceptor does not expect (itself) */
    if (how == 'n') na[0] ^= 1;  /* a proof for another challenge (replay) */
    if (how == 's') size = 3;    /* the wrong world size */
    dfc_tcp_hs_build(&h, DFC_TCP_HS_HELLO, rank, 1, size, na, nc, key);
    if (how == 'g') memset(&h, 0x5a, sizeof(h)); /* garbage */
    size_t len = how == 't' ? 40 : sizeof(h);    /* truncated, then end of stream */
    CHECK(send(fd, &h, len, MSG_NOSIGNAL) == (ssize_t)len);
    if (how == 't') shutdown(fd, SHUT_WR);
    int ok = closed_by_peer(fd);
    close(fd);
    return ok;
}

static void attack(int nfence)
{
    if (nfence != 1) return;
    void *v;
    size_t len;
    uint8_t secret[DFC_TCP_SECRET_LEN];
    char addr[128];
    CHECK(dfc_boot_get(1, "dfc.tcp.addr", &v, &len) == DFC_SUCCESS);
    snprintf(addr, sizeof(addr), "%s", (char *)v);
    free(v);
    CHECK(dfc_boot_get(0, "dfc.tcp.secret", &v, &len) == DFC_SUCCESS && len == sizeof(secret));
    memcpy(secret, v, sizeof(secret));
    free(v);
    /* The listener is bound to the published address only, not to all interfaces. */
    char *colon = strrchr(addr, ':'), other[64];
    CHECK(colon);
    if (strncmp(addr, "127.0.0.1:", 10) != 0) {
        snprintf(other, sizeof(other), "127.0.0.1%s", colon);
        int fd, e = 0;
        socklen_t el = sizeof(e);
        CHECK(dfc_tcp_connect_start(other, NULL, 0, &fd) == 0);
        struct pollfd pf = {fd, POLLOUT, 0};
        CHECK(poll(&pf, 1, 5000) == 1);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
        CHECK(e == ECONNREFUSED);
        close(fd);
    }
    int ok = 0;
    const char *hows = "kgrunst";
    for (const char *p = hows; *p; p++) ok += attack_one(addr, secret, *p);
    /* silent: closed by the acceptor within its short deadline (checked after init) */
    silent_fd = raw_connect(addr);
    attack_results = ok == (int)strlen(hows) ? 5 : ok;
}

static int handshake_rank(int rank, int n)
{
    int fds = fb_count_fds();
    if (rank == 0) fb_after_fence = attack;
    CHECK(tl_init(rank, n) == DFC_SUCCESS);
    fb_after_fence = NULL;
    if (rank == 0) {
        CHECK(attack_results == 5);
        CHECK(closed_by_peer(silent_fd));
        close(silent_fd);
    }
    pingpong(rank, 0, 1, 1000);
    bulk(rank);
    tl_finish();
    CHECK(fb_count_fds() == fds); /* fini closed every socket */
    return 0;
}

/* ---- 3. malformed streams ----------------------------------------------------------- */

static int got_valid[5], failed[5];

static void deliver_mal(const dfc_pkt_t *pkt, const void *payload)
{
    if (pkt->src_world >= 2 && pkt->tag == 42 && pkt->payload_len == 8 &&
        !memcmp(payload, "rawdata!", 8))
        got_valid[pkt->src_world]++;
    else pp_count++;
}

/* A hand-written peer (rank 2 or 3): handshake, then one valid packet and bad bytes. */
static int raw_rank(int rank, int n)
{
    int lfd, port, fds[2] = {-1, -1};
    char addr[64];
    CHECK(dfc_tcp_listen("127.0.0.1", 0, &lfd, &port) == DFC_SUCCESS);
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
    dfc_boot_put("dfc.tcp.addr", addr, strlen(addr) + 1);
    dfc_boot_fence();
    void *v;
    size_t len;
    CHECK(dfc_boot_get(0, "dfc.tcp.secret", &v, &len) == DFC_SUCCESS);
    /* Ranks 0 and 1 connect to us (lower ranks connect); rank 3 does not (we skip it). */
    for (int k = 0; k < 2; k++) {
        struct pollfd pf = {lfd, POLLIN, 0};
        CHECK(poll(&pf, 1, 10000) == 1);
        int fd = accept(lfd, NULL, NULL);
        CHECK(fd >= 0);
        uint8_t na[DFC_TCP_NONCE_LEN] = {(uint8_t)k, (uint8_t)rank, 7};
        dfc_tcp_hello_t h;
        dfc_tcp_hs_build(&h, DFC_TCP_HS_CHALLENGE, rank, -1, n, na, NULL, v);
        CHECK(send(fd, &h, sizeof(h), MSG_NOSIGNAL) == sizeof(h));
        CHECK(read_msg(fd, &h) == 0);
        const char *why;
        int w = dfc_tcp_hs_check(&h, DFC_TCP_HS_HELLO, rank, n, v, na, NULL, &why);
        CHECK(w == 0 || w == 1);
        dfc_tcp_hello_t ack;
        dfc_tcp_hs_build(&ack, DFC_TCP_HS_ACK, rank, w, n, na, h.nonce, v);
        CHECK(send(fd, &ack, sizeof(ack), MSG_NOSIGNAL) == sizeof(ack));
        fds[w] = fd;
    }
    free(v);
    CHECK(fds[0] >= 0 && fds[1] >= 0);
    struct {
        dfc_pkt_t h;
        char data[8];
    } good = {mkpkt(rank, 42, 8), "rawdata!"};
    good.h.tag = 42;
    for (int w = 0; w < 2; w++) {
        dfc_pkt_t bad = mkpkt(rank, 43, 8);
        size_t badlen = sizeof(bad);
        if (rank == 2 && w == 0) bad.payload_len = 0x7fffffff; /* larger than max_payload */
        if (rank == 2 && w == 1) bad.type = 99;                /* no such type */
        if (rank == 3 && w == 0) badlen = 20;                  /* truncated, then EOF */
        if (rank == 3 && w == 1) badlen = 0;                   /* clean EOF */
        if (rank == 4) bad.src_world = 2;                      /* claims another rank */
        CHECK(send(fds[w], &good, sizeof(good), MSG_NOSIGNAL) == sizeof(good));
        if (badlen) CHECK(send(fds[w], &bad, badlen, MSG_NOSIGNAL) == (ssize_t)badlen);
        if (rank == 4) CHECK(send(fds[w], "payload!", 8, MSG_NOSIGNAL) == 8); /* complete */
        if (rank == 3) close(fds[w]);
    }
    dfc_boot_fence(); /* the real ranks have seen everything */
    if (rank == 2) close(fds[0]), close(fds[1]);
    close(lfd);
    return 0;
}

static int malformed_rank(int rank, int n)
{
    if (rank >= 2) return raw_rank(rank, n);
    int fds = fb_count_fds();
    CHECK(tl_init(rank, n) == DFC_SUCCESS);
    double end = now() + 20;
    while (!(got_valid[2] && got_valid[3] && got_valid[4] && failed[2] && failed[3] && failed[4]) &&
           now() < end) {
        int r = ops->progress(&tl, deliver_mal);
        if (r < 0) {
            char msg[512];
            dfc_err_message(-r, msg, sizeof(msg));
            CHECK(DFC_ERR_CLASS(-r) == DFC_ERR_PROC_FAILED);
            const char *at = strstr(msg, "world rank ");
            int w = at ? atoi(at + 11) : -1;       /* the first rank named is the failed one */
            CHECK(w >= 2 && w <= 4 && !failed[w]); /* named, and reported once */
            CHECK(got_valid[w] == 1);              /* after what it sent before */
            failed[w] = 1;
        } else if (r == 0) {
            ops->wait(&tl, 10000);
        }
    }
    CHECK(got_valid[2] == 1 && got_valid[3] == 1 && got_valid[4] == 1);
    CHECK(failed[2] && failed[3] && failed[4]);
    dfc_pkt_t p = mkpkt(rank, 1, 0);
    CHECK(DFC_ERR_CLASS(ops->send(&tl, 2, &p, NULL)) == DFC_ERR_PROC_FAILED);
    CHECK(DFC_ERR_CLASS(ops->send(&tl, 3, &p, NULL)) == DFC_ERR_PROC_FAILED);
    CHECK(DFC_ERR_CLASS(ops->send(&tl, 4, &p, NULL)) == DFC_ERR_PROC_FAILED);
    pingpong(rank, 0, 1, 1000); /* the good pair still works (pings may have come early) */
    CHECK(ops->progress(&tl, deliver_mal) >= 0); /* nothing reported twice */
    tl_finish();
    CHECK(fb_count_fds() == fds); /* fini closed the sockets of failed peers too */
    return 0;
}

/* ---- 4. a peer that cannot be reached: init fails on time ------------------------- */

static int unreachable_rank(int rank, int n)
{
    if (rank == 1) { /* publishes a port nobody listens on */
        dfc_boot_put("dfc.tcp.addr", "127.0.0.1:1", 12);
        dfc_boot_fence();
        return 0;
    }
    init_quiet = 1;
    int fds = fb_count_fds();
    int rc = tl_init(rank, n);
    CHECK(fb_count_fds() == fds); /* a failed init leaves no socket */
    CHECK(rc != DFC_SUCCESS && tl.priv == NULL);
    char msg[512];
    dfc_err_message(rc, msg, sizeof(msg));
    CHECK(strstr(msg, "world rank 1") && strstr(msg, "DFC_TCP_CONNECT_TIMEOUT"));
    ops->fini(&tl); /* safe after a failed init */
    return 0;
}

/* ---- 5. a flood of silent connections during init ------------------------------- */
#define FLOOD_BURST 200 /* silent connections before rank 0 connects */
#define FLOOD_MAX 500   /* in all: then one per millisecond */

static pid_t flooder = -1;

/* After the fence, rank 0 starts a process outside the job that opens silent connections
 * to rank 1's port and keeps them open, and waits until the first FLOOD_BURST are queued
 * ahead of its own. Rank 1 used to hold 64 of them and close the rest, rank 0's too, while
 * rank 0 counted its link as made: init failed ("1 of 1 tcp connections not made"). */
static void flood(int nfence)
{
    if (nfence != 1) return;
    void *v;
    size_t len;
    char addr[128], c;
    int p[2];
    CHECK(dfc_boot_get(1, "dfc.tcp.addr", &v, &len) == DFC_SUCCESS);
    snprintf(addr, sizeof(addr), "%s", (char *)v);
    free(v);
    CHECK(pipe(p) == 0);
    flooder = fork();
    CHECK(flooder >= 0);
    if (flooder == 0) {
        for (int fd = 3; fd < 1024; fd++)
            if (fd != p[1]) close(fd);
        for (int k = 0; k < FLOOD_MAX; k++) {
            int fd;
            if (k < FLOOD_BURST) fd = raw_connect(addr);
            else if (dfc_tcp_connect_start(addr, NULL, 0, &fd) != 0) continue;
            if (k == FLOOD_BURST - 1) CHECK(write(p[1], "x", 1) == 1);
            if (k >= FLOOD_BURST) usleep(1000);
        }
        pause(); /* holding every connection, until killed */
        _exit(0);
    }
    close(p[1]);
    CHECK(read(p[0], &c, 1) == 1);
    close(p[0]);
}

static int flood_rank(int rank, int n)
{
    int fds = fb_count_fds();
    if (rank == 0) fb_after_fence = flood;
    int rc = tl_init(rank, n);
    fb_after_fence = NULL;
    if (rank == 0 && flooder > 0) {
        kill(flooder, SIGKILL);
        waitpid(flooder, NULL, 0);
    }
    CHECK(rc == DFC_SUCCESS);
    pingpong(rank, 0, 1, 1000);
    tl_finish();
    CHECK(fb_count_fds() == fds);
    return 0;
}

/* ---- 6. accept4 failing with EMFILE is reported as such ---------------------------- */
#include <sys/resource.h>

static int emfile_rank(int rank, int n)
{
    init_quiet = 1;
    if (rank == 1) { /* room for the listener, none for an accepted socket */
        struct rlimit rl;
        CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
        int lowest = dup(0); /* the listener will get this one */
        CHECK(lowest >= 0);
        close(lowest);
        rl.rlim_cur = (rlim_t)lowest + 1;
        CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    }
    int rc = tl_init(rank, n);
    CHECK(rc != DFC_SUCCESS);
    char msg[512];
    dfc_err_message(rc, msg, sizeof(msg));
    if (getenv("TEST_TCP_VERBOSE")) fprintf(stderr, "[rank %d] %s\n", rank, msg);
    if (rank == 1) {
        if (!strstr(msg, "accept4") || !strstr(msg, strerror(EMFILE)))
            fprintf(stderr, "[rank 1] %s\n", msg);
        CHECK(strstr(msg, "accept4") && strstr(msg, strerror(EMFILE)));
    }
    return 0;
}

/* ---- 7. a negative DFC_TCP_CONNECT_TIMEOUT is an error --------------------------------
 * DFC_Init checks every DFC_ variable against src/util/env_registry.c before any transport
 * starts (dfc_env_check), so tcp never sees the value; a reader given it anyway falls back
 * to the default rather than waiting a negative time. */
static int badtimeout_check(void)
{
    char *env[] = {"DFC_TCP_CONNECT_TIMEOUT=-5", NULL};
    char msg[512];
    int rc = dfc_env_check(env, "DFC_Init", 0, NULL);
    dfc_err_message(rc, msg, sizeof(msg));
    CHECK(DFC_ERR_CLASS(rc) == DFC_ERR_ARG && strstr(msg, "DFC_TCP_CONNECT_TIMEOUT=-5"));
    setenv("DFC_TCP_CONNECT_TIMEOUT", "-5", 1);
    CHECK(dfc_env_long("DFC_TCP_CONNECT_TIMEOUT", 30, "test") == 30);
    unsetenv("DFC_TCP_CONNECT_TIMEOUT");
    return 0;
}

/* ---- 8. a silent peer host (run by check_tcp_silent.sh in a private network namespace) -
 * DFC_FAULT_TIMEOUT 1 s. Rank 1 is alive but stops reading while rank 0 streams to it:
 * its window closes and rank 0's kernel probes it, answered. Rank 0 keeps sending and
 * progressing for 3 s: no failure (a slow reader is alive). Then rank 1 takes the loopback
 * interface down: the network is silent as if its host had died (no reset, no FIN), and
 * rank 0 must report rank 1 failed by its heartbeat within a bound (10 s; about 1.5 s
 * expected). Then the same with data in flight instead of a closed window: rank 1 reads
 * everything until the interface goes down and rank 0 sends one packet after it. */
static int silent_rank(int rank, int n, int closed_window)
{
    CHECK(tl_init(rank, n) == DFC_SUCCESS);
    dfc_boot_fence();
    if (rank == 1) {
        /* closed window: read nothing; else: read until rank 0 says so */
        while (!closed_window && !__atomic_load_n(&fb->counter, __ATOMIC_SEQ_CST))
            CHECK(ops->progress(&tl, deliver_count) >= 0);
        if (closed_window)
            while (__atomic_load_n(&fb->counter, __ATOMIC_SEQ_CST) < 1) usleep(1000);
        CHECK(system("ip link set lo down") == 0);
        __atomic_store_n(&fb->counter, 2, __ATOMIC_SEQ_CST);
        while (__atomic_load_n(&fb->counter, __ATOMIC_SEQ_CST) < 3) usleep(1000);
        return 0; /* no fini: the network is gone */
    }
    static char buf[65536];
    dfc_pkt_t p = mkpkt(0, 1, sizeof(buf));
    double t0 = now();
    long again = 0;
    while (closed_window && now() - t0 < 3) { /* the slow reader is alive */
        int rc = ops->send(&tl, 1, &p, buf);
        CHECK(rc == DFC_SUCCESS || rc == DFC_TL_AGAIN);
        again += rc == DFC_TL_AGAIN;
        CHECK(ops->progress(&tl, deliver_count) >= 0);
        if (rc == DFC_TL_AGAIN) ops->wait(&tl, 10000);
    }
    CHECK(!closed_window || again > 0); /* the window did close */
    __atomic_store_n(&fb->counter, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&fb->counter, __ATOMIC_SEQ_CST) < 2) usleep(1000);
    if (!closed_window) CHECK(ops->send(&tl, 1, &p, buf) == DFC_SUCCESS); /* never acked */
    int r = 0;
    for (t0 = now(); r >= 0 && now() - t0 < 10;) {
        r = ops->progress(&tl, deliver_count);
        if (r == 0) ops->wait(&tl, 100000);
    }
    char msg[512] = "";
    if (r < 0) dfc_err_message(-r, msg, sizeof(msg));
    if (getenv("TEST_TCP_VERBOSE")) fprintf(stderr, "[rank 0] after %.2f s: %s\n", now() - t0, msg);
    CHECK(r < 0 && DFC_ERR_CLASS(-r) == DFC_ERR_PROC_FAILED && strstr(msg, "world rank 1") &&
          strstr(msg, "has not answered"));
    __atomic_store_n(&fb->counter, 3, __ATOMIC_SEQ_CST);
    ops->fini(&tl);
    return 0;
}

static int silent_window_rank(int rank, int n) { return silent_rank(rank, n, 1); }
static int silent_data_rank(int rank, int n) { return silent_rank(rank, n, 0); }

/* ---- the handshake's MAC: SipHash-2-4 reference vectors (the paper's appendix) ------ */
static void siphash_vectors(void)
{
    uint8_t key[16], in[15];
    for (int i = 0; i < 16; i++) key[i] = (uint8_t)i;
    for (int i = 0; i < 15; i++) in[i] = (uint8_t)i;
    CHECK(dfc_tcp_siphash(key, in, 0) == 0x726fdb47dd0e0e31ull);
    CHECK(dfc_tcp_siphash(key, in, 15) == 0xa129ca6149be45e5ull);
}

int main(void)
{
    siphash_vectors();
    /* No SIGPIPE handler: the transport must not raise it (MSG_NOSIGNAL). */
    setenv("DFC_TCP_MAX_QUEUED", "65536", 1);   /* make send say "try again" in the stream */
    const char *only = getenv("TEST_TCP_ONLY"); /* debugging: one phase */
    if (only && !strcmp(only, "malformed")) return fb_run(5, malformed_rank);
    if (only && !strcmp(only, "handshake")) return fb_run(2, handshake_rank);
    if (only && !strcmp(only, "flood")) return fb_run(2, flood_rank);
    if (only && !strcmp(only, "silent")) { /* check_tcp_silent.sh, in its own netns */
        fault_timeout_s = 1;
        if (fb_run(2, silent_window_rank)) return fprintf(stderr, "test_tcp: silent (window)\n"), 1;
        if (system("ip link set lo up") != 0) return 1;
        if (fb_run(2, silent_data_rank)) return fprintf(stderr, "test_tcp: silent (data)\n"), 1;
        printf("test_tcp: silent ok\n");
        return 0;
    }
    if (only && !strcmp(only, "emfile")) return fb_run(2, emfile_rank);
    int bad = fb_run(2, stream_rank);
    unsetenv("DFC_TCP_MAX_QUEUED");
    if (bad) return fprintf(stderr, "test_tcp: stream failed\n"), 1;
    if (fb_run(2, handshake_rank)) return fprintf(stderr, "test_tcp: handshake failed\n"), 1;
    if (fb_run(5, malformed_rank)) return fprintf(stderr, "test_tcp: malformed failed\n"), 1;
    setenv("DFC_TCP_CONNECT_TIMEOUT", "1", 1);
    int r4 = fb_run(2, unreachable_rank);
    unsetenv("DFC_TCP_CONNECT_TIMEOUT");
    if (r4) return fprintf(stderr, "test_tcp: unreachable failed\n"), 1;
    setenv("DFC_TCP_CONNECT_TIMEOUT", "20", 1); /* bounds the flood test on old code */
    int r5 = fb_run(2, flood_rank);
    setenv("DFC_TCP_CONNECT_TIMEOUT", "3", 1);
    int r6 = fb_run(2, emfile_rank);
    unsetenv("DFC_TCP_CONNECT_TIMEOUT");
    if (badtimeout_check()) return fprintf(stderr, "test_tcp: bad timeout failed\n"), 1;
    if (r5) return fprintf(stderr, "test_tcp: flood failed\n"), 1;
    if (r6) return fprintf(stderr, "test_tcp: emfile failed\n"), 1;
    printf("test_tcp: ok\n");
    return 0;
}
