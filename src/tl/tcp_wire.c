/*
 * tcp_wire.c - HELLO building and checking, header validation, socket setup for the tcp
 * transport (see tcp_wire.h for the format).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tl/tcp_wire.h"
#include "util/dfc_util.h"

/* ---- the handshake's MAC ------------------------------------------------------------ */

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                  \
    do {                                                          \
        v0 += v1, v1 = ROTL(v1, 13), v1 ^= v0, v0 = ROTL(v0, 32); \
        v2 += v3, v3 = ROTL(v3, 16), v3 ^= v2;                    \
        v0 += v3, v3 = ROTL(v3, 21), v3 ^= v0;                    \
        v2 += v1, v1 = ROTL(v1, 17), v1 ^= v2, v2 = ROTL(v2, 32); \
    } while (0)

/* SipHash-2-4 (Aumasson and Bernstein 2012), the reference algorithm. */
uint64_t dfc_tcp_siphash(const uint8_t key[16], const void *in, size_t len)
{
    const uint8_t *m = in;
    uint64_t k0 = le64(key), k1 = le64(key + 8);
    uint64_t v0 = 0x736f6d6570736575ull ^ k0, v1 = 0x646f72616e646f6dull ^ k1;
    uint64_t v2 = 0x6c7967656e657261ull ^ k0, v3 = 0x7465646279746573ull ^ k1;
    uint64_t b = (uint64_t)len << 56;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w = le64(m + i);
        v3 ^= w;
        SIPROUND;
        SIPROUND;
        v0 ^= w;
    }
    for (size_t k = 0; i + k < len; k++) b |= (uint64_t)m[i + k] << (8 * k);
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    for (int r = 0; r < 4; r++) SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* MAC(secret; step, from, to, size, nA, nC): 128 bits from two domain-separated SipHashes. */
static void hs_mac(uint8_t mac[DFC_TCP_MAC_LEN], int step, int from, int to, int size,
                   const uint8_t *na, const uint8_t *nc, const uint8_t *secret)
{
    uint8_t t[1 + 1 + 12 + 2 * DFC_TCP_NONCE_LEN];
    uint32_t w[3] = {(uint32_t)from, (uint32_t)to, (uint32_t)size};
    t[1] = (uint8_t)step;
    for (int k = 0; k < 12; k++) t[2 + k] = (uint8_t)(w[k / 4] >> (8 * (k % 4)));
    memcpy(t + 14, na, DFC_TCP_NONCE_LEN);
    memcpy(t + 14 + DFC_TCP_NONCE_LEN, nc, DFC_TCP_NONCE_LEN);
    for (int half = 0; half < 2; half++) {
        t[0] = (uint8_t)(half + 1);
        uint64_t v = dfc_tcp_siphash(secret, t, sizeof(t));
        for (int k = 0; k < 8; k++) mac[8 * half + k] = (uint8_t)(v >> (8 * k));
    }
}

void dfc_tcp_hs_build(dfc_tcp_hello_t *h, int step, int from, int to, int size,
                      const uint8_t nonce_a[DFC_TCP_NONCE_LEN],
                      const uint8_t nonce_c[DFC_TCP_NONCE_LEN],
                      const uint8_t secret[DFC_TCP_SECRET_LEN])
{
    memset(h, 0, sizeof(*h));
    h->hdr.type = DFC_PKT_HELLO;
    h->hdr.src_world = (uint32_t)from;
    h->hdr.tag = to;
    h->hdr.len = (uint64_t)size;
    h->hdr.rreq = (uint64_t)step;
    h->hdr.payload_len = sizeof(*h) - sizeof(h->hdr);
    memcpy(h->magic, DFC_TCP_MAGIC, sizeof(h->magic));
    memcpy(h->nonce, step == DFC_TCP_HS_HELLO ? nonce_c : nonce_a, DFC_TCP_NONCE_LEN);
    if (step != DFC_TCP_HS_CHALLENGE)
        hs_mac(h->mac, step, from, to, size, nonce_a, nonce_c, secret);
}

int dfc_tcp_ct_equal(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *x = a, *y = b;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++) d |= x[i] ^ y[i];
    return d == 0;
}

int dfc_tcp_hs_check(const dfc_tcp_hello_t *h, int step, int me, int size,
                     const uint8_t secret[DFC_TCP_SECRET_LEN],
                     const uint8_t nonce_a[DFC_TCP_NONCE_LEN],
                     const uint8_t nonce_c[DFC_TCP_NONCE_LEN], const char **why)
{
    uint32_t from = h->hdr.src_world;
    int proof_ok = 1;
    if (step != DFC_TCP_HS_CHALLENGE) { /* always computed: the time says nothing */
        uint8_t want[DFC_TCP_MAC_LEN];
        hs_mac(want, step, (int)from, me, size, nonce_a,
               step == DFC_TCP_HS_HELLO ? h->nonce : nonce_c, secret);
        proof_ok = dfc_tcp_ct_equal(want, h->mac, DFC_TCP_MAC_LEN);
    }
    if (h->hdr.type != DFC_PKT_HELLO || h->hdr.payload_len != sizeof(*h) - sizeof(h->hdr) ||
        memcmp(h->magic, DFC_TCP_MAGIC, sizeof(h->magic)) != 0 || h->hdr.rreq != (uint64_t)step) {
        *why = "not a DFC handshake message of the expected step";
        return -1;
    }
    if (h->hdr.len != (uint64_t)size || from >= (uint32_t)size || from == (uint32_t)me ||
        (step != DFC_TCP_HS_CHALLENGE && h->hdr.tag != me)) {
        *why = "world size or rank out of range";
        return -1;
    }
    if (step == DFC_TCP_HS_ACK && !dfc_tcp_ct_equal(h->nonce, nonce_a, DFC_TCP_NONCE_LEN))
        proof_ok = 0;
    if (!proof_ok) {
        *why = "wrong proof of the job secret";
        return -1;
    }
    return (int)from;
}

int dfc_tcp_pkt_valid(const dfc_pkt_t *h, size_t max_payload)
{
    return h->type > 0 && h->type < DFC_PKT_TYPE_MAX && h->type != DFC_PKT_HELLO &&
           h->payload_len <= max_payload;
}

long dfc_tcp_frame(const void *buf, size_t len, size_t max_payload)
{
    if (len < sizeof(dfc_pkt_t)) return 0;
    const dfc_pkt_t *h = buf;
    if (!dfc_tcp_pkt_valid(h, max_payload)) return -1;
    size_t w = dfc_tcp_wire_len(h->payload_len);
    return len < w ? 0 : (long)w;
}

int dfc_tcp_listen(const char *bind_ip, int sockbuf, int *fd, int *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    if (bind_ip && inet_pton(AF_INET, bind_ip, &sa.sin_addr) != 1)
        return DFC_ERR(DFC_ERR_ARG, "DFC_TCP_IF_ADDR=%s is not an IPv4 address", bind_ip);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0) return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "socket: %s", strerror(errno));
    dfc_tcp_sockopts(s, sockbuf); /* accepted sockets inherit them */
    socklen_t sl = sizeof(sa);
    if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(s, SOMAXCONN) != 0 ||
        getsockname(s, (struct sockaddr *)&sa, &sl) != 0) {
        int e = errno;
        close(s);
        return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "bind/listen on %s: %s",
                       bind_ip ? bind_ip : "any address", strerror(e));
    }
    *fd = s;
    *port = ntohs(sa.sin_port);
    return DFC_SUCCESS;
}

static int is_loopback(struct in_addr a) { return (ntohl(a.s_addr) >> 24) == 127; }

/* The IPv4 address of interface `name` (want_name) or of the first interface that is up
 * and not loopback (want_name NULL). Returns 1 when found. */
static int if_addr_of(const char *want_name, struct in_addr *out, char *name, size_t namelen)
{
    struct ifaddrs *ifs = NULL;
    int found = 0;
    if (getifaddrs(&ifs) != 0) return 0;
    for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
        struct in_addr a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
        if (want_name ? strcmp(i->ifa_name, want_name) != 0
                      : !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK) || is_loopback(a))
            continue;
        *out = a;
        snprintf(name, namelen, "%s", i->ifa_name);
        found = 1;
    }
    freeifaddrs(ifs);
    return found;
}

int dfc_tcp_choose_addr(const char *if_addr, const char *ifs, char *ip, size_t iplen, char *how,
                        size_t howlen)
{
    struct in_addr a;
    char name[64];
    if (if_addr && *if_addr) {
        if (inet_pton(AF_INET, if_addr, &a) != 1)
            return DFC_ERR(DFC_ERR_ARG, "DFC_TCP_IF_ADDR=%s is not an IPv4 address", if_addr);
        snprintf(ip, iplen, "%s", if_addr);
        snprintf(how, howlen, "DFC_TCP_IF_ADDR");
        return DFC_SUCCESS;
    }
    if (ifs && *ifs) { /* the first listed interface that has an IPv4 address */
        char list[256], *save = NULL;
        snprintf(list, sizeof(list), "%s", ifs);
        for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (!if_addr_of(t, &a, name, sizeof(name))) continue;
            inet_ntop(AF_INET, &a, ip, (socklen_t)iplen);
            snprintf(how, howlen, "interface %s, from DFC_TCP_IF", name);
            return DFC_SUCCESS;
        }
        return DFC_ERR(DFC_ERR_ARG,
                       "DFC_TCP_IF=%s: no interface of the list has an IPv4 "
                       "address (see ip -4 addr)",
                       ifs);
    }
    char host[256];
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (gethostname(host, sizeof(host) - 1) == 0) {
        host[sizeof(host) - 1] = '\0';
        if (getaddrinfo(host, NULL, &hints, &res) == 0 && res) {
            a = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
            freeaddrinfo(res);
            if (!is_loopback(a)) {
                inet_ntop(AF_INET, &a, ip, (socklen_t)iplen);
                snprintf(how, howlen, "the address of host name %s", host);
                return DFC_SUCCESS;
            }
        }
    }
    if (if_addr_of(NULL, &a, name, sizeof(name))) {
        inet_ntop(AF_INET, &a, ip, (socklen_t)iplen);
        snprintf(how, howlen, "interface %s, the first up and not loopback", name);
        return DFC_SUCCESS;
    }
    snprintf(ip, iplen, "127.0.0.1");
    snprintf(how, howlen, "loopback: no other interface is up (one host only)");
    return DFC_SUCCESS;
}

int dfc_tcp_connect_start(const char *addr, const char *src_ip, int sockbuf, int *fd)
{
    char ip[64];
    const char *colon = strrchr(addr, ':');
    struct sockaddr_in sa = {.sin_family = AF_INET}, src = {.sin_family = AF_INET};
    long port = colon ? strtol(colon + 1, NULL, 10) : 0;
    if (!colon || (size_t)(colon - addr) >= sizeof(ip) || port <= 0 || port > 65535) return EINVAL;
    memcpy(ip, addr, (size_t)(colon - addr));
    ip[colon - addr] = '\0';
    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) return EINVAL;
    if (src_ip && inet_pton(AF_INET, src_ip, &src.sin_addr) != 1) return EINVAL;
    sa.sin_port = htons((uint16_t)port);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0) return errno;
    dfc_tcp_sockopts(s, sockbuf); /* before connect: the window scale is fixed by the SYN */
    if ((src_ip && bind(s, (struct sockaddr *)&src, sizeof(src)) != 0) ||
        (connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0 && errno != EINPROGRESS)) {
        int e = errno;
        close(s);
        return e;
    }
    *fd = s;
    return 0;
}

void dfc_tcp_keepalive(int fd, int timeout_s)
{
    if (fd < 0 || timeout_s <= 0) return;
    /* idle + cnt * intvl <= timeout: the first probe after timeout/2 s of silence, then
     * 3 probes spaced timeout/6 s apart (each at least 1 s, the kernel's unit). No
     * TCP_USER_TIMEOUT: it also ends a connection whose peer only stopped reading (a zero
     * window probed longer than the timeout, answered or not); dfc_tcp_peer_silent covers
     * the time when data or a window probe is outstanding instead. */
    int one = 1, idle = DFC_MAX2(1, timeout_s / 2), cnt = 3, intvl = DFC_MAX2(1, timeout_s / 6);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

int dfc_tcp_peer_silent(int fd, unsigned timeout_ms)
{
    struct tcp_info ti;
    socklen_t len = sizeof(ti);
    memset(&ti, 0, sizeof(ti));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return 0;
    /* Waiting for the peer's kernel: data sent and not acknowledged, or a window probe not
     * answered (a live peer's kernel answers probes even while its process never reads). */
    int waiting = ti.tcpi_unacked > 0 || ti.tcpi_probes > 0;
    return waiting && ti.tcpi_last_ack_recv >= timeout_ms;
}

void dfc_tcp_sockopts(int fd, int sockbuf)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (sockbuf > 0) {
        /* A fixed size turns off the kernel's autotuning (and is capped by
         * net.core.[rw]mem_max), which is why it is not the default. */
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sockbuf, sizeof(sockbuf));
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sockbuf, sizeof(sockbuf));
    }
}
