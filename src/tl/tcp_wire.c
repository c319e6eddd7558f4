/*
 * tcp_wire.c - HELLO building and checking, header validation, socket setup for the tcp
 * transport (see tcp_wire.h for the format).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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

void dfc_tcp_hello_build(dfc_tcp_hello_t *h, int rank, int size,
                         const uint8_t secret[DFC_TCP_SECRET_LEN])
{
    memset(h, 0, sizeof(*h));
    h->hdr.type = DFC_PKT_HELLO;
    h->hdr.src_world = (uint32_t)rank;
    h->hdr.len = (uint64_t)size;
    h->hdr.payload_len = sizeof(*h) - sizeof(h->hdr);
    memcpy(h->magic, DFC_TCP_MAGIC, sizeof(h->magic));
    memcpy(h->secret, secret, DFC_TCP_SECRET_LEN);
}

int dfc_tcp_ct_equal(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *x = a, *y = b;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++) d |= x[i] ^ y[i];
    return d == 0;
}

int dfc_tcp_hello_check(const dfc_tcp_hello_t *h, const uint8_t secret[DFC_TCP_SECRET_LEN],
                        int size, const char **why)
{
    /* Check the secret first and always, so the time taken says nothing about it. */
    int secret_ok = dfc_tcp_ct_equal(h->secret, secret, DFC_TCP_SECRET_LEN);
    if (h->hdr.type != DFC_PKT_HELLO || h->hdr.payload_len != sizeof(*h) - sizeof(h->hdr) ||
        memcmp(h->magic, DFC_TCP_MAGIC, sizeof(h->magic)) != 0) {
        *why = "not a DFC hello";
        return -1;
    }
    if (!secret_ok) {
        *why = "wrong job secret";
        return -1;
    }
    if (h->hdr.len != (uint64_t)size || h->hdr.src_world >= (uint32_t)size) {
        *why = "world size or rank out of range";
        return -1;
    }
    return (int)h->hdr.src_world;
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

void dfc_tcp_public_ip(const char *bind_ip, char *buf, size_t len)
{
    char host[256];
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (bind_ip) {
        snprintf(buf, len, "%s", bind_ip);
        return;
    }
    snprintf(buf, len, "127.0.0.1");
    if (gethostname(host, sizeof(host) - 1) != 0) return;
    host[sizeof(host) - 1] = '\0';
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res) return;
    inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, buf, (socklen_t)len);
    freeaddrinfo(res);
}

int dfc_tcp_connect_start(const char *addr, int sockbuf, int *fd)
{
    char ip[64];
    const char *colon = strrchr(addr, ':');
    struct sockaddr_in sa = {.sin_family = AF_INET};
    long port = colon ? strtol(colon + 1, NULL, 10) : 0;
    if (!colon || (size_t)(colon - addr) >= sizeof(ip) || port <= 0 || port > 65535) return EINVAL;
    memcpy(ip, addr, (size_t)(colon - addr));
    ip[colon - addr] = '\0';
    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) return EINVAL;
    sa.sin_port = htons((uint16_t)port);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0) return errno;
    dfc_tcp_sockopts(s, sockbuf); /* before connect: the window scale is fixed by the SYN */
    if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0 && errno != EINPROGRESS) {
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
