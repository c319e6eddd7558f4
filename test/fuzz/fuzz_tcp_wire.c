/*
 * fuzz_tcp_wire - libFuzzer harness for what the tcp transport parses from the network
 * (src/tl/tcp_wire.c): the handshake messages (tcp_wire.h: CHALLENGE, HELLO, ACK) a
 * connection's two ends check, then the packet framing tcp.c's conn_read applies to the
 * byte stream behind them.
 *
 * Input: byte 0 picks the world size (2..257); then a dfc_tcp_hello_t as it would arrive;
 * the rest is the stream. The receiving rank is the last one (size - 1); the nonces of the
 * connection are the harness's fixed NA and NC (test/fuzz/make-seeds builds valid messages
 * with them). The stream sits in a buffer of exactly its size, so a header or payload read
 * past what arrived is an ASan report. Properties checked (abort = crash):
 *   - a message accepted as any step has the type, magic and step, a sender rank < the
 *     world size and not the receiver, and (HELLO, ACK) exactly the proof that building it
 *     gives; with one bit of the proof flipped it is refused;
 *   - messages built for any rank of that size are accepted with that rank (round trip);
 *   - framing never claims more bytes than arrived, advances in 8-byte steps, never
 *     accepts a header dfc_tcp_pkt_valid rejects, and agrees on every prefix (a packet
 *     complete in a prefix is the same packet in the whole).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tl/tcp_wire.h"

/* tcp_wire.c records errors through dfc_err (socket helpers only); nothing else from util. */
int dfc_err(int errclass, const char *func, const char *fmt, ...) { return errclass; }

static const uint8_t secret[DFC_TCP_SECRET_LEN] = "0123456789abcdef";
static const uint8_t NA[DFC_TCP_NONCE_LEN] = "nonce-of-accept";
static const uint8_t NC[DFC_TCP_NONCE_LEN] = "nonce-of-connec";
#define MAX_PAYLOAD (1u << 16) /* what tcp.c would be configured with, kept small here */

#define REQUIRE(c)         \
    do {                   \
        if (!(c)) abort(); \
    } while (0)

static void check_one(const dfc_tcp_hello_t *h, int step, int me, int wsize)
{
    const char *why = NULL;
    int w = dfc_tcp_hs_check(h, step, me, wsize, secret, NA, NC, &why);
    if (w < 0) {
        REQUIRE(why && *why);
        return;
    }
    REQUIRE(w < wsize && w != me && h->hdr.type == DFC_PKT_HELLO && h->hdr.rreq == (uint64_t)step);
    REQUIRE(!memcmp(h->magic, DFC_TCP_MAGIC, 8));
    if (step == DFC_TCP_HS_CHALLENGE) return;
    dfc_tcp_hello_t built, flipped = *h;
    dfc_tcp_hs_build(&built, step, w, me, wsize, NA, step == DFC_TCP_HS_HELLO ? h->nonce : NC,
                     secret);
    REQUIRE(!memcmp(built.mac, h->mac, DFC_TCP_MAC_LEN));
    flipped.mac[w % DFC_TCP_MAC_LEN] ^= 1;
    REQUIRE(dfc_tcp_hs_check(&flipped, step, me, wsize, secret, NA, NC, &why) < 0);
}

static void check_hello(const uint8_t *data, size_t n, int wsize)
{
    dfc_tcp_hello_t h, built;
    const char *why = NULL;
    int me = wsize - 1;
    if (n >= sizeof h) {
        memcpy(&h, data, sizeof h); /* the receiver reads into an aligned struct too */
        for (int step = DFC_TCP_HS_CHALLENGE; step <= DFC_TCP_HS_ACK; step++)
            check_one(&h, step, me, wsize);
    }
    int rank = n ? data[n - 1] % (wsize - 1) : 0; /* any rank but me */
    for (int step = DFC_TCP_HS_CHALLENGE; step <= DFC_TCP_HS_ACK; step++) {
        dfc_tcp_hs_build(&built, step, rank, step == DFC_TCP_HS_CHALLENGE ? -1 : me, wsize, NA, NC,
                         secret);
        REQUIRE(dfc_tcp_hs_check(&built, step, me, wsize, secret, NA, NC, &why) == rank);
    }
}

static void check_stream(const uint8_t *data, size_t n)
{
    /* 8-byte aligned copy of exactly n bytes (malloc aligns; the end is ASan's redzone). */
    uint8_t *buf = malloc(n ? n : 1);
    memcpy(buf, data, n);
    size_t off = 0;
    uint64_t sum = 0;
    for (;;) {
        long w = dfc_tcp_frame(buf + off, n - off, MAX_PAYLOAD);
        if (w <= 0) {
            if (w < 0) REQUIRE(!dfc_tcp_pkt_valid((const dfc_pkt_t *)(buf + off), MAX_PAYLOAD));
            break;
        }
        const dfc_pkt_t *pkt = (const dfc_pkt_t *)(buf + off);
        REQUIRE((size_t)w <= n - off && w % 8 == 0 && (size_t)w >= sizeof *pkt);
        REQUIRE(dfc_tcp_pkt_valid(pkt, MAX_PAYLOAD) && pkt->payload_len <= (size_t)w - sizeof *pkt);
        /* A shorter prefix of this packet is "need more", never a different packet. */
        REQUIRE(dfc_tcp_frame(buf + off, (size_t)w - 1, MAX_PAYLOAD) == 0);
        /* Deliver in place as tcp.c does: the receiver reads every payload byte. */
        const uint8_t *payload = (const uint8_t *)(pkt + 1);
        for (uint32_t i = 0; i < pkt->payload_len; i++) sum += payload[i];
        off += (size_t)w;
    }
    REQUIRE(off <= n && sum != UINT64_MAX);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int wsize = data[0] + 2;
    data++, size--;
    check_hello(data, size, wsize);
    size_t skip = size < sizeof(dfc_tcp_hello_t) ? size : sizeof(dfc_tcp_hello_t);
    check_stream(data + skip, size - skip);
    return 0;
}
