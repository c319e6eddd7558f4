/*
 * test_shm_wire - the shm transport's record format (src/tl/shm_wire.h), alone.
 *   1. Every packet comes back exactly as it was sent, header field by field and payload byte
 *      by byte, in the form chosen for it: tiny for an EAGER packet of up to 8 bytes from the
 *      ring's producer with a context id below 2^16, short for one of up to 32 bytes whose
 *      left-out fields have their implied values, long for everything else (each field that
 *      forces a larger form is tried on its own). A tiny record is half a line, a short
 *      record of 32 bytes one line.
 *   2. Records that put never writes are refused: a tiny header followed by more than 8
 *      bytes, a short one followed by more than 32 or with reserved bits, a long header with
 *      type 0, a type past the last, or a payload length that disagrees with the record's.
 *   3. 20,000 random packets of all three forms through a 4 KiB ring (wrapping, skip and pad
 *      markers), read back in order and compared.
 */
#include <stdio.h>
#include <string.h>

#include "tl/shm_wire.h"
#include "unit_check.h"

static unsigned char payload[128];

#define PRODUCER 123456u /* the world rank of the ring's producer in these tests */
enum { LONG, SHORT, TINY };
static const char *const form_name[] = {"long", "short", "tiny"};

static int form_of(const dfc_pkt_t *pkt)
{
    return dfc_shm_wire_is_tiny(pkt, PRODUCER) ? TINY : dfc_shm_wire_is_short(pkt) ? SHORT : LONG;
}

static void fresh_payload(unsigned len)
{
    for (unsigned i = 0; i < len; i++) payload[i] = (unsigned char)rnd64();
}

/* Encodes pkt into a poisoned buffer and decodes it; checks the form, the header and the
 * payload. */
static void round_trip(const char *what, const dfc_pkt_t *pkt, int want)
{
    unsigned char rec[256];
    memset(rec, 0xA5, sizeof rec);
    fresh_payload(pkt->payload_len);
    size_t len = dfc_shm_wire_len(pkt, PRODUCER);
    static const size_t hdrs[] = {sizeof(dfc_pkt_t), sizeof(shm_short_t), sizeof(shm_tiny_t)};
    if (form_of(pkt) != want || len != hdrs[want] + pkt->payload_len) {
        FAIL("%s: %s form, %zu bytes", what, form_name[form_of(pkt)], len);
        return;
    }
    dfc_shm_wire_put(rec, len, pkt, payload);
    CHECK(rec[len] == 0xA5, "%s: written past the record", what);
    dfc_pkt_t scratch;
    const void *data = NULL;
    const dfc_pkt_t *got = dfc_shm_wire_get(rec, len, &scratch, &data, PRODUCER);
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
                       .src_world = PRODUCER};
}

/* An EAGER packet that the tiny form takes when its payload is at most 8 bytes. */
static dfc_pkt_t tiny(uint32_t plen)
{
    dfc_pkt_t p = eager(plen);
    p.ctx = UINT16_MAX;
    return p;
}

static void test_forms(void)
{
    static const uint32_t sizes[] = {0, 1, 8, 31, 32};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        dfc_pkt_t p = eager(sizes[i]);
        round_trip("eager", &p, SHORT);
    }
    CHECK(dfc_shm_ring_reclen(dfc_shm_wire_len(
              &(dfc_pkt_t){.type = DFC_PKT_EAGER, .len = 32, .payload_len = 32, .ctx = 1 << 16},
              0)) == DFC_SHM_RING_LINE,
          "a 32-byte short record is more than one line");
    static const uint32_t tiny_sizes[] = {0, 1, 7, 8};
    for (size_t i = 0; i < sizeof tiny_sizes / sizeof tiny_sizes[0]; i++) {
        dfc_pkt_t t = tiny(tiny_sizes[i]);
        round_trip("tiny", &t, TINY);
    }
    dfc_pkt_t t = tiny(8);
    CHECK(dfc_shm_ring_reclen(dfc_shm_wire_len(&t, PRODUCER)) == DFC_SHM_RING_ALIGN,
          "an 8-byte tiny record is more than half a line");
    t.flags = DFC_PKT_FLAG_SYNC;
    t.sreq = UINT32_MAX;
    round_trip("tiny, sync, largest sreq", &t, TINY);
    /* Each field that the tiny form cannot carry, on its own. */
    t = tiny(9);
    round_trip("tiny, 9 bytes", &t, SHORT);
    t = tiny(8);
    t.ctx = UINT16_MAX + 1u;
    round_trip("tiny, ctx 2^16", &t, SHORT);
    t = tiny(8);
    t.src_world = PRODUCER + 1;
    round_trip("tiny, from another process than the ring's", &t, SHORT);
    t = tiny(8);
    t.sreq = (uint64_t)UINT32_MAX + 1;
    round_trip("tiny, sreq 2^32", &t, LONG);
    dfc_pkt_t p = eager(32);
    p.flags = DFC_PKT_FLAG_SYNC;
    p.sreq = UINT32_MAX;
    round_trip("eager, sync, largest short sreq", &p, SHORT);

    p = eager(33);
    round_trip("eager, 33 bytes", &p, LONG);
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
        round_trip(field[i], &p, LONG);
    }
    for (int t = DFC_PKT_EAGER + 1; t < DFC_PKT_TYPE_MAX; t++) {
        p = eager(8);
        p.type = (uint8_t)t;
        p.sreq = 5;
        p.rreq = 6;
        p.offset = 7;
        round_trip("other type", &p, LONG);
    }
}

/* Whether a record of len user bytes at rec decodes, against what is wanted. */
static void decodes(const unsigned char *rec, size_t len, int want, const char *what)
{
    dfc_pkt_t scratch;
    const void *data;
    int got = dfc_shm_wire_get(rec, len, &scratch, &data, PRODUCER) != NULL;
    CHECK(got == want, "%s (%zu bytes): %s", what, len, got ? "accepted" : "refused");
}

static void test_refused(void)
{
    unsigned char rec[256];
    dfc_pkt_t p = tiny(8);
    dfc_shm_wire_put(rec, dfc_shm_wire_len(&p, PRODUCER), &p, payload);
    decodes(rec, sizeof(shm_tiny_t) + 8, 1, "tiny, 8 bytes");
    decodes(rec, sizeof(shm_tiny_t) + 9, 0, "tiny, 9 bytes");
    decodes(rec, sizeof(shm_tiny_t) - 1, 0, "tiny, cut");

    p = eager(32);
    dfc_shm_wire_put(rec, dfc_shm_wire_len(&p, PRODUCER), &p, payload);
    decodes(rec, sizeof(shm_short_t) + 32, 1, "short, 32 bytes");
    decodes(rec, sizeof(shm_short_t) + 33, 0, "short, 33 bytes");
    rec[2] = 1; /* reserved */
    decodes(rec, sizeof(shm_short_t) + 32, 0, "short, reserved bits");
    decodes(rec, sizeof(shm_short_t) - 1, 0, "short, cut");

    p = eager(40);
    dfc_shm_wire_put(rec, dfc_shm_wire_len(&p, PRODUCER), &p, payload);
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
    if (rnd64() % 2) p.ctx = (uint32_t)(rnd64() % (UINT16_MAX + 1u)); /* tiny below 9 bytes */
    if (rnd64() % 2) p.payload_len = p.len = (uint32_t)(rnd64() % 9);
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
    dfc_shm_ring_init(r, SIZE, 0); /* static memory: zeroed, but init must not rely on it */
    static dfc_pkt_t sent[N];
    static unsigned char sent_data[N][72];
    int nsent = 0, nread = 0, nform[3] = {0};
    while (nread < N) {
        while (nsent < N) { /* fill until full */
            dfc_pkt_t p = random_packet();
            size_t plen = dfc_shm_wire_len(&p, PRODUCER);
            void *rec = dfc_shm_ring_reserve(r, plen);
            if (!rec) break;
            for (uint32_t i = 0; i < p.payload_len; i++)
                sent_data[nsent][i] = (unsigned char)rnd64();
            dfc_shm_wire_put(rec, plen, &p, sent_data[nsent]);
            dfc_shm_ring_commit(r);
            nform[form_of(&p)]++;
            sent[nsent++] = p;
        }
        size_t len;
        void *rec;
        while ((rec = dfc_shm_ring_peek(r, &len))) {
            dfc_pkt_t scratch;
            const void *data;
            const dfc_pkt_t *got = dfc_shm_wire_get(rec, len, &scratch, &data, PRODUCER);
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
    for (int f = 0; f < 3; f++)
        CHECK(nform[f] > N / 10, "ring: %d of %d packets %s, too few", nform[f], N, form_name[f]);
}

int main(void)
{
    test_forms();
    test_refused();
    test_through_ring();
    printf("%s test_shm_wire (%d failures)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
