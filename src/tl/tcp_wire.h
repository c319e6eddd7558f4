/*
 * tcp_wire.h - the tcp transport's wire format and socket helpers (internal to src/tl,
 * separate from tcp.c so that test/unit/test_tcp.c can speak the protocol, well or badly).
 *
 * Wire format: a stream of packets, each a dfc_pkt_t (56 bytes, host byte order: the
 * cluster is assumed homogeneous) followed by payload_len bytes and zero padding up to a
 * multiple of 8, so that every header and payload lands 8-byte aligned in the receive
 * buffer and is delivered in place.
 *
 * Handshake (challenge-response: both sides prove that they know the job secret and which
 * ranks they are, and the secret never travels): the lower world rank C connects to the
 * higher one A. Three messages of one layout (dfc_tcp_hello_t: a dfc_pkt_t of type
 * DFC_PKT_HELLO with src_world = the sender's rank, len = world size, rreq = the step,
 * tag = the rank meant to receive it or -1; then the magic "DFCTCP02", a nonce, a proof):
 *   1. A -> C, CHALLENGE, as soon as A accepts: A's fresh random nonce nA, no proof;
 *   2. C -> A, HELLO: C's fresh nonce nC and MAC(secret; 2, C, A, size, nA, nC);
 *   3. A -> C, ACK: nA again and MAC(secret; 3, A, C, size, nA, nC).
 * MAC is SipHash-2-4 keyed with the 16-byte secret (two outputs with different domain
 * bytes: 128 bits). Fresh nonces on both sides make a recorded message useless on another
 * connection; the step in the MAC keeps a proof from being reflected. A closes a connection
 * whose HELLO is wrong, and counts the link once it has sent the ACK; C counts it only once
 * the ACK checks, and otherwise connects again.
 */
#ifndef DFC_TCP_WIRE_H
#define DFC_TCP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "tl/dfc_tl.h"

#define DFC_TCP_SECRET_LEN 16
#define DFC_TCP_NONCE_LEN 16
#define DFC_TCP_MAC_LEN 16
#define DFC_TCP_MAGIC "DFCTCP02"

enum { DFC_TCP_HS_CHALLENGE = 1, DFC_TCP_HS_HELLO = 2, DFC_TCP_HS_ACK = 3 };

typedef struct dfc_tcp_hello {
    dfc_pkt_t hdr;
    char magic[8];
    uint8_t nonce[DFC_TCP_NONCE_LEN];
    uint8_t mac[DFC_TCP_MAC_LEN];
} dfc_tcp_hello_t;

/* Bytes a packet with payload_len bytes occupies on the wire. */
static inline size_t dfc_tcp_wire_len(uint32_t payload_len)
{
    return sizeof(dfc_pkt_t) + (((size_t)payload_len + 7) & ~(size_t)7);
}

/* Builds handshake message `step` from world rank `from` to `to` (-1 for a CHALLENGE) in a
 * world of `size`: the nonce field is nonce_a (CHALLENGE, ACK) or nonce_c (HELLO); HELLO and
 * ACK carry the proof over both nonces. */
void dfc_tcp_hs_build(dfc_tcp_hello_t *h, int step, int from, int to, int size,
                      const uint8_t nonce_a[DFC_TCP_NONCE_LEN],
                      const uint8_t nonce_c[DFC_TCP_NONCE_LEN],
                      const uint8_t secret[DFC_TCP_SECRET_LEN]);
/* Checks a received handshake message of `step` for world rank `me` in a world of `size`.
 * CHALLENGE: the format only. HELLO: nonce_a is ours, nonce_c comes in the message. ACK:
 * nonce_a is the challenge's, nonce_c ours. Returns the sender's world rank (0 <= rank <
 * size, not me), or -1 with a static description in *why. The proof is computed and
 * compared in constant time whatever else is wrong. */
int dfc_tcp_hs_check(const dfc_tcp_hello_t *h, int step, int me, int size,
                     const uint8_t secret[DFC_TCP_SECRET_LEN],
                     const uint8_t nonce_a[DFC_TCP_NONCE_LEN],
                     const uint8_t nonce_c[DFC_TCP_NONCE_LEN], const char **why);
/* SipHash-2-4 of in[0..len) under a 16-byte key (the handshake's MAC; exported for tests). */
uint64_t dfc_tcp_siphash(const uint8_t key[16], const void *in, size_t len);

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

/* A nonblocking listening socket on bind_ip (an IPv4 address), ephemeral port, with
 * dfc_tcp_sockopts(sockbuf) applied (accepted sockets inherit them). */
int dfc_tcp_listen(const char *bind_ip, int sockbuf, int *fd, int *port);
/* The IPv4 address to listen on and to publish: if_addr (DFC_TCP_IF_ADDR) when given; else
 * the first interface in the comma-separated list ifs (DFC_TCP_IF) that has one; else the
 * address the host name resolves to unless it is a loopback address (Debian resolves its
 * host name to 127.0.1.1: peers on other hosts would connect to themselves); else the first
 * interface that is up and not loopback; else 127.0.0.1 (one host only). Writes the address
 * to ip and why it was chosen to how. DFC_ERR_ARG when if_addr is not an IPv4 address or no
 * interface in ifs has one. */
int dfc_tcp_choose_addr(const char *if_addr, const char *ifs, char *ip, size_t iplen, char *how,
                        size_t howlen);
/* Starts a nonblocking connect to "ip:port" from src_ip (NULL: any; binding makes the
 * acceptor see the address we published). Options are applied first. Returns 0 with *fd set
 * (connected or in progress), or an errno value (EINVAL: malformed address); records no
 * error message, since the caller retries refused connections. */
int dfc_tcp_connect_start(const char *addr, const char *src_ip, int sockbuf, int *fd);
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
