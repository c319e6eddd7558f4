/*
 * test_shm_wire - the shm transport's record format (src/tl/shm_wire.h), alone.
 *   1. Every packet comes back exactly as it was sent, header field by field and payload byte
 *      by byte, in the form chosen for it: short for an EAGER packet of up to 32 bytes whose
 *      left-out fields have their implied values, long for everything else (each field that
 *      forces the long form is tried on its own). A short record of 32 bytes is one line.
 *   2. Records that put never writes are refused: a short header followed by more than 32
 *      bytes or with reserved bits, a long header with type 0, a type past the last, or a
 *      payload length that disagrees with the record's.
 *   3. 20,000 random packets of both forms through a 4 KiB ring (wrapping, skip markers),
 *      read back in order and compared.
 */
#include <stdio.h>
#include <string.h>

#include "tl/shm_wire.h"
#include "unit_check.h"

static unsigned char payload[128];

static void fresh_payload(unsigned len)
{
    for (unsigned i = 0; i < len; i++) payload[i] = (unsigned char)rnd64();
}

/* Encodes pkt into a poisoned buffer and decodes it; checks the form, the header and the
 * payload. */
static void round_trip(const char *what, const dfc_pkt_t *pkt, int want_short)
{
    unsigned char rec[256];
    memset(rec, 0xA5, sizeof rec);
    fresh_payload(pkt->payload_len);
    size_t len = dfc_shm_wire_len(pkt);
    size_t hdr = want_short ? sizeof(shm_short_t) : sizeof(dfc_pkt_t);
    if (dfc_shm_wire_is_short(pkt) != want_short || len != hdr + pkt->payload_len) {
        FAIL("%s: %s form, %zu bytes", what, dfc_shm_wire_is_short(pkt) ? "short" : "long", len);
        return;
    }
    dfc_shm_wire_put(rec, len, pkt, payload);
    CHECK(rec[len] == 0xA5, "%s: written past the record", what);
    dfc_pkt_t scratch;
    const void *data = NULL;
    const dfc_pkt_t *got = dfc_shm_wire_get(rec, len, &scratch, &data);
    CHECK(got && !memcmp(got, pkt, sizeof *pkt) && !memcmp(data, payload, pkt->payload_len),
          "%s: decoded packet differs", what);
}

static dfc_pkt_t eager(uint32_t plen)
{
    return (dfc_pkt_t){.type = DFC_PKT_EAGER,
                       .ctx = 0xfffffffeu,
                       .src = 70000,
                       .tag = -7,
                       .len = plen,
                       .payload_len = plen,
                       .src_world = 123456};
}

static void test_forms(void)
{
    static const uint32_t sizes[] = {0, 1, 8, 31, 32};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        dfc_pkt_t p = eager(sizes[i]);
        round_trip("eager", &p, 1);
    }
    CHECK(dfc_shm_ring_reclen(dfc_shm_wire_len(
              &(dfc_pkt_t){.type = DFC_PKT_EAGER, .len = 32, .payload_len = 32})) == 64,
          "a 32-byte short record is more than one line");
    dfc_pkt_t p = eager(32);
    p.flags = DFC_PKT_FLAG_SYNC;
    p.sreq = UINT32_MAX;
    round_trip("eager, sync, largest short sreq", &p, 1);

    p = eager(33);
    round_trip("eager, 33 bytes", &p, 0);
    /* Each field that the short form cannot carry, on its own. */
    static const char *const field[] = {"sreq 2^32", "len != payload_len", "rreq", "offset",
                                        "reserved"};
    for (int i = 0; i < 5; i++) {
        p = eager(8);
        switch (i) {
        case 0: p.sreq = (uint64_t)UINT32_MAX + 1; break;
        case 1: p.len = 9; break;
        case 2: p.rreq = 1; break;
        case 3: p.offset = 64; break;
        default: p.reserved = 1;
        }
        round_trip(field[i], &p, 0);
    }
    for (int t = DFC_PKT_EAGER + 1; t < DFC_PKT_TYPE_MAX; t++) {
        p = eager(8);
        p.type = (uint8_t)t;
        p.sreq = 5;
        p.rreq = 6;
        p.offset = 7;
        round_trip("other type", &p, 0);
    }
}

/* Whether a record of len user bytes at rec decodes, against what is wanted. */
static void decodes(const unsigned char *rec, size_t len, int want, const char *what)
{
    dfc_pkt_t scratch;
    const void *data;
    int got = dfc_shm_wire_get(rec, len, &scratch, &data) != NULL;
    CHECK(got == want, "%s (%zu bytes): %s", what, len, got ? "accepted" : "refused");
}

static void test_refused(void)
{
    unsigned char rec[256];
    dfc_pkt_t p = eager(32);
    dfc_shm_wire_put(rec, dfc_shm_wire_len(&p), &p, payload);
    decodes(rec, sizeof(shm_short_t) + 32, 1, "short, 32 bytes");
    decodes(rec, sizeof(shm_short_t) + 33, 0, "short, 33 bytes");
    rec[2] = 1; /* reserved */
    decodes(rec, sizeof(shm_short_t) + 32, 0, "short, reserved bits");
    decodes(rec, sizeof(shm_short_t) - 1, 0, "short, cut");

    p = eager(40);
    dfc_shm_wire_put(rec, dfc_shm_wire_len(&p), &p, payload);
    decodes(rec, sizeof(dfc_pkt_t) + 40, 1, "long");
    decodes(rec, sizeof(dfc_pkt_t) + 41, 0, "long, payload_len disagrees");
    ((dfc_pkt_t *)(void *)rec)->type = 0;
    decodes(rec, sizeof(dfc_pkt_t) + 40, 0, "long, type 0");
    ((dfc_pkt_t *)(void *)rec)->type = DFC_PKT_TYPE_MAX;
    decodes(rec, sizeof(dfc_pkt_t) + 40, 0, "long, type past the last");
}

static dfc_pkt_t random_packet(void)
{
    dfc_pkt_t p = eager((uint32_t)(rnd64() % 72));
    p.src = (int32_t)rnd64();
    p.tag = (int32_t)rnd64();
    p.sreq = rnd64() % 4 ? (uint32_t)rnd64() : rnd64() | (uint64_t)1 << 33; /* long: >= 2^33 */
    if (rnd64() % 4 == 0) p.type = (uint8_t)(1 + rnd64() % (DFC_PKT_TYPE_MAX - 1));
    return p;
}

static void test_through_ring(void)
{
    enum { SIZE = 4096, N = 20000 };
    static _Alignas(64) unsigned char mem[sizeof(dfc_shm_ring_t) + SIZE];
    dfc_shm_ring_t *r = (dfc_shm_ring_t *)mem;
    dfc_shm_ring_init(r, SIZE);
    static dfc_pkt_t sent[N];
    static unsigned char sent_data[N][72];
    int nsent = 0, nread = 0, nshort = 0;
    while (nread < N) {
        while (nsent < N) { /* fill until full */
            dfc_pkt_t p = random_packet();
            size_t plen = dfc_shm_wire_len(&p);
            void *rec = dfc_shm_ring_reserve(r, plen);
            if (!rec) break;
            for (uint32_t i = 0; i < p.payload_len; i++)
                sent_data[nsent][i] = (unsigned char)rnd64();
            dfc_shm_wire_put(rec, plen, &p, sent_data[nsent]);
            dfc_shm_ring_commit(r);
            nshort += dfc_shm_wire_is_short(&p);
            sent[nsent++] = p;
        }
        size_t len;
        void *rec;
        while ((rec = dfc_shm_ring_peek(r, &len))) {
            dfc_pkt_t scratch;
            const void *data;
            const dfc_pkt_t *got = dfc_shm_wire_get(rec, len, &scratch, &data);
            if (!got || memcmp(got, &sent[nread], sizeof *got) ||
                memcmp(data, sent_data[nread], got->payload_len)) {
                FAIL("ring: packet %d differs", nread);
                return;
            }
            dfc_shm_ring_release(r);
            nread++;
        }
        CHECK(len == 0, "ring: a record the consumer cannot read");
    }
    CHECK(nshort > N / 4 && nshort < N, "ring: %d of %d packets short, not both forms", nshort, N);
}

int main(void)
{
    test_forms();
    test_refused();
    test_through_ring();
    printf("%s test_shm_wire (%d failures)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
