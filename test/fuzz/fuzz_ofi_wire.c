/*
 * fuzz_ofi_wire - libFuzzer harness for what the ofi transport accepts from the fabric
 * (src/tl/ofi_wire.c): every message that completes a receive goes through
 * dfc_ofi_wire_check before ofi.c looks at anything else in it.
 *
 * Input: byte 0 picks the world size (1..256); the rest is one received message, in a
 * buffer of exactly its size (8-byte aligned by malloc), so a read past what arrived is an
 * ASan report. Properties checked (abort = crash):
 *   - an accepted message has the magic, a sender < the world size and a length that
 *     matches its kind exactly; an accepted PKT has a deliverable type, payload_len <=
 *     the maximum, the wire's sender, and every payload byte lies inside the message;
 *     one with a memory key (DFC_OFI_WF_RKEY) is a host RTS without payload and the key
 *     lies inside the message; other kinds have no flags;
 *     an accepted HELLO carries the job secret and the world size;
 *   - a rejected message comes with a reason;
 *   - a HELLO built for any rank of that size is accepted (round trip), and a PKT built
 *     from the input's bytes is accepted exactly when its header is deliverable.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tl/ofi_wire.h"

static const uint8_t secret[DFC_OFI_SECRET_LEN] = "0123456789abcdef";
#define MAX_PAYLOAD (1u << 16)

#define REQUIRE(c)         \
    do {                   \
        if (!(c)) abort(); \
    } while (0)

static void check_accepted(const uint8_t *buf, size_t n, int kind, int wsize)
{
    const dfc_ofi_wire_t *w = (const dfc_ofi_wire_t *)buf;
    REQUIRE(n >= sizeof *w && w->magic == DFC_OFI_MAGIC && w->src_world < (uint32_t)wsize);
    REQUIRE(kind == w->kind);
    if (kind == DFC_OFI_PKT) {
        const dfc_pkt_t *p = (const dfc_pkt_t *)(w + 1);
        size_t key = (w->flags & DFC_OFI_WF_RKEY) ? sizeof(dfc_ofi_rkey_t) : 0;
        REQUIRE((w->flags & ~DFC_OFI_WF_RKEY) == 0);
        REQUIRE(!key ||
                (p->type == DFC_PKT_RTS && p->payload_len == 0 && !(p->flags & DFC_PKT_FLAG_DEV)));
        REQUIRE(n == dfc_ofi_pkt_len(p->payload_len) + key && p->payload_len <= MAX_PAYLOAD);
        if (key) { /* ofi.c reads the key where the payload would start */
            dfc_ofi_rkey_t k;
            memcpy(&k, buf + dfc_ofi_pkt_len(0), sizeof k);
            volatile uint64_t sink = k.key ^ k.base;
            (void)sink;
        }
        REQUIRE(p->type >= 1 && p->type < DFC_PKT_TYPE_MAX && p->type != DFC_PKT_HELLO);
        REQUIRE(p->src_world == w->src_world);
        uint64_t sum = 0; /* ofi.c delivers the payload in place: read all of it */
        const uint8_t *payload = (const uint8_t *)(p + 1);
        for (uint32_t i = 0; i < p->payload_len; i++) sum += payload[i];
        REQUIRE(sum != UINT64_MAX);
    } else if (kind == DFC_OFI_HELLO) {
        const dfc_ofi_hello_t *h = (const dfc_ofi_hello_t *)buf;
        REQUIRE(n == sizeof *h && h->size == (uint32_t)wsize);
        REQUIRE(!memcmp(h->secret, secret, sizeof secret));
    } else {
        REQUIRE((kind == DFC_OFI_CREDIT || kind == DFC_OFI_BEAT) && n == sizeof *w);
    }
    REQUIRE(kind == DFC_OFI_PKT || w->flags == 0);
}

static void check_built(const uint8_t *data, size_t n, int wsize)
{
    const char *why = NULL;
    dfc_ofi_hello_t h;
    int rank = n ? data[n - 1] % wsize : 0;
    dfc_ofi_hello_build(&h, rank, wsize, secret);
    REQUIRE(dfc_ofi_wire_check(&h, sizeof h, wsize, MAX_PAYLOAD, secret, &why) == DFC_OFI_HELLO);
    if (n < sizeof(dfc_pkt_t)) return;
    /* A PKT whose dfc_pkt_t comes from the input, with a payload of the length it names
     * (when that is small enough to build). */
    dfc_pkt_t p;
    memcpy(&p, data, sizeof p);
    if (p.payload_len > 2 * MAX_PAYLOAD) return;
    size_t len = dfc_ofi_pkt_len(p.payload_len);
    uint8_t *buf = calloc(1, len);
    dfc_ofi_wire_t w = {.magic = DFC_OFI_MAGIC, .kind = DFC_OFI_PKT, .src_world = p.src_world};
    memcpy(buf, &w, sizeof w);
    memcpy(buf + sizeof w, &p, sizeof p);
    int ok = p.type >= 1 && p.type < DFC_PKT_TYPE_MAX && p.type != DFC_PKT_HELLO &&
             p.payload_len <= MAX_PAYLOAD && p.src_world < (uint32_t)wsize;
    int kind = dfc_ofi_wire_check(buf, len, wsize, MAX_PAYLOAD, secret, &why);
    REQUIRE((kind == DFC_OFI_PKT) == ok);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int wsize = data[0] + 1;
    data++, size--;
    uint8_t *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    const char *why = NULL;
    int kind = dfc_ofi_wire_check(buf, size, wsize, MAX_PAYLOAD, secret, &why);
    if (kind >= 0) check_accepted(buf, size, kind, wsize);
    else REQUIRE(why && *why);
    free(buf);
    check_built(data, size, wsize);
    return 0;
}
