/*
 * fuzz_tcp_wire - libFuzzer harness for what the tcp transport parses from the network
 * (src/tl/tcp_wire.c): the HELLO an acceptor checks on a new connection, then the packet
 * framing tcp.c's conn_read applies to the byte stream behind it.
 *
 * Input: byte 0 picks the world size (1..256); then a dfc_tcp_hello_t as it would arrive;
 * the rest is the stream. The stream sits in a buffer of exactly its size, so a header or
 * payload read past what arrived is an ASan report. Properties checked (abort = crash):
 *   - an accepted HELLO carries the type, magic and secret, and a rank < the world size;
 *   - a HELLO built for any rank of that size is accepted with that rank (round trip);
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
#define MAX_PAYLOAD (1u << 16) /* what tcp.c would be configured with, kept small here */

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

static void check_hello(const uint8_t *data, size_t n, int wsize)
{
    dfc_tcp_hello_t h, built;
    const char *why = NULL;
    if (n >= sizeof h) {
        memcpy(&h, data, sizeof h); /* the acceptor reads into an aligned struct too */
        int w = dfc_tcp_hello_check(&h, secret, wsize, &why);
        if (w >= 0) {
            REQUIRE(w < wsize && h.hdr.type == DFC_PKT_HELLO);
            REQUIRE(!memcmp(h.magic, DFC_TCP_MAGIC, 8) && !memcmp(h.secret, secret, sizeof secret));
        } else {
            REQUIRE(why && *why);
        }
    }
    int rank = n ? data[n - 1] % wsize : 0;
    dfc_tcp_hello_build(&built, rank, wsize, secret);
    REQUIRE(dfc_tcp_hello_check(&built, secret, wsize, &why) == rank);
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
    int wsize = data[0] + 1;
    data++, size--;
    check_hello(data, size, wsize);
    size_t skip = size < sizeof(dfc_tcp_hello_t) ? size : sizeof(dfc_tcp_hello_t);
    check_stream(data + skip, size - skip);
    return 0;
}
