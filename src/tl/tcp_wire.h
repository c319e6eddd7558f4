/*
 * tcp_wire.h - the tcp transport's wire format and socket helpers (internal to src/tl,
 * separate from tcp.c so that test/unit/test_tcp.c can speak the protocol, well or badly).
 *
 * Wire format: a stream of packets, each a dfc_pkt_t (56 bytes, host byte order: the
 * cluster is assumed homogeneous) followed by payload_len bytes and zero padding up to a
 * multiple of 8, so that every header and payload lands 8-byte aligned in the receive
 * buffer and is delivered in place.
 *
 * Handshake: the lower world rank connects to the higher one and sends one HELLO packet
 * (type DFC_PKT_HELLO, src_world = its rank, len = world size) whose payload is the magic
 * "DFCTCP01" and the 16-byte job secret. The acceptor sends nothing back; it closes any
 * connection whose HELLO is malformed or carries the wrong secret.
 */
#ifndef DFC_TCP_WIRE_H
#define DFC_TCP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "tl/dfc_tl.h"

#define DFC_TCP_SECRET_LEN 16
#define DFC_TCP_MAGIC      "DFCTCP01"

typedef struct dfc_tcp_hello {
    dfc_pkt_t hdr;
    char magic[8];
    uint8_t secret[DFC_TCP_SECRET_LEN];
} dfc_tcp_hello_t;

/* Bytes a packet with payload_len bytes occupies on the wire. */
static inline size_t dfc_tcp_wire_len(uint32_t payload_len)
{
    return sizeof(dfc_pkt_t) + (((size_t)payload_len + 7) & ~(size_t)7);
}

void dfc_tcp_hello_build(dfc_tcp_hello_t *h, int rank, int size,
                         const uint8_t secret[DFC_TCP_SECRET_LEN]);
/* Checks a received HELLO. Returns the sender's world rank (0 <= rank < size), or -1 with
 * a static description of what is wrong in *why. Constant time in the secret. */
int dfc_tcp_hello_check(const dfc_tcp_hello_t *h, const uint8_t secret[DFC_TCP_SECRET_LEN],
                        int size, const char **why);

/* 1 when a data packet header is acceptable: a deliverable type (not HELLO) and
 * payload_len <= max_payload. Anything else means the stream is corrupt. */
int dfc_tcp_pkt_valid(const dfc_pkt_t *h, size_t max_payload);

/* The receive side's framing, for the bytes buf[0..len) received so far (buf 8-byte
 * aligned, at a packet boundary): the wire length of the complete packet at buf, 0 when more
 * bytes are needed, -1 when its header is not acceptable (dfc_tcp_pkt_valid). The header has
 * been validated whenever the result is not -1 and len >= sizeof(dfc_pkt_t). */
long dfc_tcp_frame(const void *buf, size_t len, size_t max_payload);

/* Compares n bytes in time independent of where they differ. 1 when equal. */
int dfc_tcp_ct_equal(const void *a, const void *b, size_t n);

/* A nonblocking listening socket on bind_ip (NULL: any address), ephemeral port, with
 * dfc_tcp_sockopts(sockbuf) applied (accepted sockets inherit them). */
int dfc_tcp_listen(const char *bind_ip, int sockbuf, int *fd, int *port);
/* The address peers should use to reach this host: bind_ip when given, else the IPv4
 * address `hostname` resolves to, else 127.0.0.1. */
void dfc_tcp_public_ip(const char *bind_ip, char *buf, size_t len);
/* Starts a nonblocking connect to "ip:port" (options applied first). Returns 0 with *fd set
 * (connected or in progress), or an errno value (EINVAL: malformed address); records no
 * error message, since the caller retries refused connections. */
int dfc_tcp_connect_start(const char *addr, int sockbuf, int *fd);
/* TCP_NODELAY and, when sockbuf > 0, SO_SNDBUF/SO_RCVBUF. */
void dfc_tcp_sockopts(int fd, int sockbuf);
/* Makes a silent loss of the peer (its host died) fail an idle socket within about
 * timeout_s seconds (keepalive probes). */
void dfc_tcp_keepalive(int fd, int timeout_s);
/* The transport's heartbeat, read from the kernel (TCP_INFO): 1 when the socket waits for
 * an answer from the peer's kernel (unacknowledged data, or an unanswered zero-window
 * probe) and none came for timeout_ms. A peer process that computes without reading still
 * has a kernel that acknowledges and answers probes, so it never looks silent; a dead host
 * does. The caller requires the state to last (a probe is briefly unanswered each RTT). */
int dfc_tcp_peer_silent(int fd, unsigned timeout_ms);

#endif /* DFC_TCP_WIRE_H */
