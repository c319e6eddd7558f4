/*
 * ofi_floor - the floors under DFC's two network transports on this machine: what the kernel's
 * tcp sockets alone cost (under DFC_TRANSPORT=tcp), and what a libfabric provider alone costs
 * (under DFC_TRANSPORT=ofi), for the three patterns bench/run-ofi.sh compares between 2 ranks:
 *
 *   pingpong   one way, half the round trip (dfc_bench's pingpong);
 *   exchange   both ranks send a message and receive the other's: the data movement of a
 *              2-rank allreduce (dfc_bench's allreduce at 2 ranks is one exchange and a sum);
 *   bw         a window of 64 messages, then a 4-byte acknowledgement; time per message
 *              (dfc_bench's bw, osu_bw's window).
 *
 * Nothing of DFC runs and nothing else is in the loop: no headers, no matching, no bounce
 * copies, no credits, no progress engine. The sockets side makes the calls DFC's tcp transport
 * makes on its fast path (send and recv with MSG_DONTWAIT on a TCP_NODELAY connection,
 * spinning); the provider side makes the calls DFC's ofi transport makes (an FI_EP_RDM
 * endpoint, tagged messages, fi_tinject up to the inject size and fi_tsend above, receives
 * posted ahead, fi_cq_read spinning), but receives land in the caller's buffer, where DFC's
 * land in its bounce buffers and are copied out. So a transport's time minus its floor is what DFC adds,
 * and the provider's floor minus the kernel's is what the provider adds: the ofi transport
 * cannot be faster than the provider under it.
 *
 * Two processes (fork), joined by a socketpair for the provider's addresses and the timings,
 * over the loopback path, which is what dfc-mpirun-nodes' simulated nodes use. Timing as
 * dfc_bench's: every iteration timed on its own (CLOCK_MONOTONIC), the max of the two ranks
 * per iteration, the median over iterations; iterations scale down above 64 KiB.
 *
 *     bench/ofi_floor [-p PROVIDER] [-minsize B] [-maxsize B] [-iters N] [-csv FILE]
 *
 * PROVIDER: a libfabric provider name as fi_info -l lists it (default net; "tcp;ofi_rxm"
 * for rxm over the tcp provider). Sizes double from -minsize (8) to -maxsize (256 KiB);
 * -iters (2000) iterations per size up to 64 KiB. Every received byte is checked after each
 * batch (receive buffers poisoned before it). The CSV has dfc_bench's columns workload, bytes and
 * median_us, with lib "sockets" or "ofi".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { W_PINGPONG, W_EXCHANGE, W_BW, NWORK };
static const char *work_names[NWORK] = {"pingpong", "exchange", "bw"};
#define WINDOW 64
#define TAG 0x1ULL

static int rank, ctl; /* ctl: the socketpair end that reaches the other rank */
static long base_iters = 2000;

static void die(const char *what, const char *why)
{
    fprintf(stderr, "ofi_floor (rank %d): %s: %s\n", rank, what, why);
    exit(1);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void ctl_io(int send_it, void *buf, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t n = send_it ? write(ctl, (char *)buf + done, len - done)
                            : read(ctl, (char *)buf + done, len - done);
        if (n <= 0) die("control socket", n ? strerror(errno) : "closed");
        done += (size_t)n;
    }
}

/* The patterns, over either path: send one message, wait for one, wait for the sends. */
typedef struct {
    void (*post)(void *buf, size_t len); /* a receive into buf, before its message is due */
    void (*send)(const void *buf, size_t len);
    void (*recv)(void *buf, size_t len); /* waits for the oldest receive posted */
    void (*flush)(void);                 /* until every send is complete (its buffer free) */
} path_t;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs `iters` timed iterations of workload w at `len` bytes; rank 0 gets the median of the
 * per-iteration max over both ranks, in us per operation. */
static double run(const path_t *p, int w, size_t len, long iters, char *sbuf, char *rbuf)
{
    double *t = malloc((size_t)iters * sizeof *t);
    if (!t) die("malloc", "out of memory");
    char ack[4] = {0};
    for (long i = -iters / 10 - 1; i < iters; i++) { /* negative: warm-up */
        double t0 = now_us();
        if (w == W_PINGPONG && rank == 0) {
            p->post(rbuf, len);
            p->send(sbuf, len);
            p->recv(rbuf, len);
        } else if (w == W_PINGPONG) {
            p->post(rbuf, len);
            p->recv(rbuf, len);
            p->send(sbuf, len);
        } else if (w == W_EXCHANGE) {
            p->post(rbuf, len);
            p->send(sbuf, len);
            p->recv(rbuf, len);
        } else if (rank == 0) { /* bw */
            p->post(ack, sizeof ack);
            for (int k = 0; k < WINDOW; k++) p->send(sbuf + (size_t)k * len, len);
            p->recv(ack, sizeof ack);
        } else {
            for (int k = 0; k < WINDOW; k++) p->post(rbuf + (size_t)k * len, len);
            for (int k = 0; k < WINDOW; k++) p->recv(rbuf + (size_t)k * len, len);
            p->send(ack, sizeof ack);
        }
        p->flush();
        if (i >= 0) t[i] = (now_us() - t0) / (w == W_PINGPONG ? 2 : w == W_BW ? WINDOW : 1);
    }
    if (rank == 1) {
        ctl_io(1, t, (size_t)iters * sizeof *t);
        free(t);
        return 0;
    }
    double *o = malloc((size_t)iters * sizeof *o);
    if (!o) die("malloc", "out of memory");
    ctl_io(0, o, (size_t)iters * sizeof *o);
    for (long i = 0; i < iters; i++) t[i] = t[i] > o[i] ? t[i] : o[i];
    qsort(t, (size_t)iters, sizeof *t, cmp);
    double m = iters % 2 ? t[iters / 2] : 0.5 * (t[iters / 2 - 1] + t[iters / 2]);
    free(o);
    free(t);
    return m;
}

/* ---- the kernel's sockets ----------------------------------------------------------------- */

static int sock;
/* Receives posted, in order: the stream's bytes fill them one after the other. A send that
 * finds the socket full reads meanwhile, so that two ranks exchanging large messages do not
 * both wait for room (DFC's tcp progress does the same). */
static struct {
    char *buf;
    size_t len;
} sposted[WINDOW + 1];
static long sposts, sfilled, sseen; /* posted, filled whole, handed to sock_recv */
static size_t sfill_at;             /* bytes of the oldest unfilled receive */

static void sock_post(void *buf, size_t len)
{
    sposted[sposts % (WINDOW + 1)].buf = buf;
    sposted[sposts % (WINDOW + 1)].len = len;
    sposts++;
}

static void sock_read_some(void)
{
    if (sfilled == sposts) return;
    char *buf = sposted[sfilled % (WINDOW + 1)].buf;
    size_t len = sposted[sfilled % (WINDOW + 1)].len;
    ssize_t n = recv(sock, buf + sfill_at, len - sfill_at, MSG_DONTWAIT);
    if (n == 0) die("recv", "connection closed");
    if (n < 0 && errno != EAGAIN && errno != EINTR) die("recv", strerror(errno));
    if (n > 0 && (sfill_at += (size_t)n) == len) {
        sfilled++;
        sfill_at = 0;
    }
}

static void sock_send(const void *buf, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t n = send(sock, (const char *)buf + done, len - done, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) done += (size_t)n;
        else if (n < 0 && errno != EAGAIN && errno != EINTR) die("send", strerror(errno));
        else sock_read_some();
    }
}

static void sock_recv(void *buf, size_t len)
{
    (void)buf;
    (void)len;
    while (sfilled == sseen) sock_read_some();
    sseen++;
}

static void sock_flush(void) {}

/* Rank 0 listens on the loopback address, rank 1 connects: the port goes over ctl. */
static void sock_open(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    int one = 1;
    if (rank == 0) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1) ||
            getsockname(l, (struct sockaddr *)&a, &alen))
            die("listen", strerror(errno));
        ctl_io(1, &a.sin_port, sizeof a.sin_port);
        sock = accept(l, NULL, NULL);
        close(l);
    } else {
        ctl_io(0, &a.sin_port, sizeof a.sin_port);
        sock = socket(AF_INET, SOCK_STREAM, 0);
        if (sock >= 0 && connect(sock, (struct sockaddr *)&a, sizeof a)) sock = -1;
    }
    if (sock < 0) die("connect", strerror(errno));
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* ---- the provider ------------------------------------------------------------------------- */

static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_ep *ep;
static fi_addr_t peer;
static size_t inject_size;
static long sends_out, recvs_done, recvs_seen;

static struct fi_context2 rctx, sctx; /* receives and sends: the count says which are done */

static void fi_check(int r, const char *what)
{
    if (r) die(what, fi_strerror(-r));
}

/* Reads completions. Receives complete in the order they were posted (one tag, FI_ORDER_SAS). */
static void poll_cq(void)
{
    struct fi_cq_tagged_entry e[16];
    ssize_t n = fi_cq_read(cq, e, 16);
    if (n == -FI_EAGAIN) return;
    if (n < 0) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(cq, &err, 0);
        die("completion", fi_strerror(err.err));
    }
    for (ssize_t i = 0; i < n; i++) {
        if (e[i].op_context == &sctx) sends_out--;
        else recvs_done++;
    }
}

static void ofi_send(const void *buf, size_t len)
{
    ssize_t r;
    if (len <= inject_size) {
        while ((r = fi_tinject(ep, buf, len, peer, TAG)) == -FI_EAGAIN) poll_cq();
    } else {
        while ((r = fi_tsend(ep, buf, len, NULL, peer, TAG, &sctx)) == -FI_EAGAIN) poll_cq();
        sends_out++;
    }
    fi_check((int)r, "fi_tsend");
}

/* Straight into the caller's buffer: the floor has no bounce buffer (DFC's transport
 * receives into its own and copies out). */
static void ofi_post(void *buf, size_t len)
{
    ssize_t r;
    while ((r = fi_trecv(ep, buf, len, NULL, FI_ADDR_UNSPEC, TAG, 0, &rctx)) == -FI_EAGAIN)
        poll_cq();
    fi_check((int)r, "fi_trecv");
}

static void ofi_recv(void *buf, size_t len)
{
    (void)buf;
    (void)len;
    while (recvs_done == recvs_seen) poll_cq();
    recvs_seen++;
}

static void ofi_flush(void)
{
    while (sends_out) poll_cq();
}

static void ofi_open(const char *prov)
{
    struct fi_info *h = fi_allocinfo(), *info = NULL;
    if (!h) die("fi_allocinfo", "out of memory");
    h->ep_attr->type = FI_EP_RDM;
    h->caps = FI_TAGGED;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->tx_attr->msg_order = h->rx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->fabric_attr->prov_name = strdup(prov);
    fi_check(fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, &info), "fi_getinfo");
    inject_size = info->tx_attr->inject_size;
    struct fi_av_attr aa = {.type = FI_AV_TABLE};
    struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_TAGGED, .size = 8 * WINDOW};
    fi_check(fi_fabric(info->fabric_attr, &fabric, NULL), "fi_fabric");
    fi_check(fi_domain(fabric, info, &domain, NULL), "fi_domain");
    fi_check(fi_av_open(domain, &aa, &av, NULL), "fi_av_open");
    fi_check(fi_cq_open(domain, &ca, &cq, NULL), "fi_cq_open");
    fi_check(fi_endpoint(domain, info, &ep, NULL), "fi_endpoint");
    fi_check(fi_ep_bind(ep, &av->fid, 0), "fi_ep_bind");
    fi_check(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind");
    fi_check(fi_enable(ep), "fi_enable");
    char name[256], pname[256];
    size_t nlen = sizeof name;
    fi_check(fi_getname(&ep->fid, name, &nlen), "fi_getname");
    ctl_io(1, &nlen, sizeof nlen);
    ctl_io(1, name, nlen);
    size_t plen;
    ctl_io(0, &plen, sizeof plen);
    if (plen > sizeof pname) die("address", "too long");
    ctl_io(0, pname, plen);
    if (fi_av_insert(av, pname, 1, &peer, 0, NULL) != 1) die("fi_av_insert", "failed");
    fi_freeinfo(info);
    fi_freeinfo(h);
}

/* ---- main --------------------------------------------------------------------------------- */

static long iters_for(size_t len)
{
    long n = len > 65536 ? (long)((double)base_iters * 65536 / (double)len) : base_iters;
    return n < 20 ? 20 : n;
}

/* Rank r's send buffer holds byte i = i * 7 + r: what arrived must be the other rank's. */
static void fill(char *buf, size_t n, int r)
{
    for (size_t i = 0; i < n; i++) buf[i] = (char)(i * 7 + (size_t)r);
}

static void check(int w, size_t len, const char *rbuf)
{
    size_t n = w == W_BW ? (rank == 1 ? WINDOW * len : 0) : len; /* bw's rank 0 gets the ack */
    for (size_t i = 0; i < n; i++)
        if (rbuf[i] != (char)(i * 7 + (size_t)!rank)) {
            fprintf(stderr, "ofi_floor (rank %d): %s %zu bytes: byte %zu is wrong\n", rank,
                    work_names[w], len, i);
            exit(1);
        }
}

/* A size: digits with an optional K or M (KiB, MiB), as dfc_bench takes them. */
static size_t parse_size(const char *v)
{
    char *end;
    size_t n = strtoul(v, &end, 0);
    if (*end == 'K' || *end == 'k') n <<= 10;
    else if (*end == 'M' || *end == 'm') n <<= 20;
    else if (*end) die("bad size", v);
    return n;
}

static void barrier(void)
{
    char c = 0;
    ctl_io(1, &c, 1);
    ctl_io(0, &c, 1);
}

int main(int argc, char **argv)
{
    const char *prov = "net", *csv = NULL;
    size_t minsize = 8, maxsize = 256 * 1024;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            die("usage", "bench/ofi_floor [-p PROVIDER] [-minsize B] [-maxsize B] "
                         "[-iters N] [-csv FILE]");
        if (!strcmp(a, "-p")) prov = v;
        else if (!strcmp(a, "-minsize")) minsize = parse_size(v);
        else if (!strcmp(a, "-maxsize")) maxsize = parse_size(v);
        else if (!strcmp(a, "-iters")) base_iters = strtol(v, NULL, 0);
        else if (!strcmp(a, "-csv")) csv = v;
        else die("unknown option", a);
        i++;
    }
    if (minsize < 1 || maxsize < minsize || base_iters < 1) die("usage", "bad sizes or -iters");
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) die("socketpair", strerror(errno));
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) die("fork", strerror(errno));
    rank = child == 0;
    ctl = sv[rank];
    close(sv[!rank]);
    char *sbuf = malloc(WINDOW * maxsize), *rbuf = malloc(WINDOW * maxsize);
    if (!sbuf || !rbuf) die("malloc", "out of memory");
    fill(sbuf, WINDOW * maxsize, rank);
    sock_open();
    ofi_open(prov);
    path_t paths[2] = {{sock_post, sock_send, sock_recv, sock_flush},
                       {ofi_post, ofi_send, ofi_recv, ofi_flush}};
    const char *path_names[2] = {"sockets", "ofi"};
    FILE *out = NULL;
    if (rank == 0 && csv && !(out = fopen(csv, "w"))) die(csv, strerror(errno));
    if (out) fprintf(out, "# ofi_floor: provider %s\nworkload,lib,bytes,iters,median_us\n", prov);
    if (rank == 0)
        printf("# ofi_floor: 2 processes over loopback; median us per operation (pingpong: one "
               "way; bw: per message)\n%-10s %10s %12s %12s %10s\n",
               "workload", "bytes", "sockets", prov, "ratio");
    for (int w = 0; w < NWORK; w++) {
        for (size_t len = minsize; len <= maxsize; len *= 2) {
            double m[2];
            for (int p = 0; p < 2; p++) {
                memset(rbuf, 0xff, WINDOW * maxsize);
                barrier();
                m[p] = run(&paths[p], w, len, iters_for(len), sbuf, rbuf);
                check(w, len, rbuf);
                if (out)
                    fprintf(out, "%s,%s,%zu,%ld,%.3f\n", work_names[w], path_names[p], len,
                            iters_for(len), m[p]);
            }
            if (rank == 0)
                printf("%-10s %10zu %12.2f %12.2f %10.2f\n", work_names[w], len, m[0], m[1],
                       m[1] / m[0]);
        }
    }
    if (out) fclose(out);
    fi_close(&ep->fid);
    fi_close(&cq->fid);
    fi_close(&av->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    close(sock);
    if (rank == 0) {
        int st = 0;
        waitpid(child, &st, 0);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    }
    return 0;
}
