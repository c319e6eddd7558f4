/*
 * fuzz_shm_ring - libFuzzer harness for the shm transport's record ring (src/tl/shm_ring.h)
 * as its consumer parses it.
 *
 * The ring lives in memory shared with another process, so the consumer must survive any
 * bytes in it. Each input runs two phases on a ring of 128 << (byte0 & 7) data bytes,
 * allocated with exactly its footprint (a read past the data area is an ASan report):
 *   1. round trip: the input bytes are operations (odd: reserve+commit a record of a
 *      length taken from the byte, even: peek+release one); every record comes back in
 *      order with its length and contents, and a full ring refuses instead of overwriting;
 *   2. hostile producer: the data area is the input's bytes (the consumer polls the header
 *      word at its position, so the bytes decide everything) and the consumer starts at an
 *      offset taken from the input's last 8 bytes; it then reads records as shm.c does
 *      (peek, check the packet header, read every payload byte, release) and must stay
 *      inside the data area and terminate (a loop is caught by libFuzzer's -timeout).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tl/dfc_tl.h"
#include "tl/shm_ring.h"

#define REQUIRE(c)         \
    do {                   \
        if (!(c)) abort(); \
    } while (0)
#define QMAX 4096

static dfc_shm_ring_t *ring_new(size_t size)
{
    dfc_shm_ring_t *r = aligned_alloc(64, dfc_shm_ring_footprint(size));
    memset(r, 0, dfc_shm_ring_footprint(size));
    dfc_shm_ring_init(r, size, 1);
    return r;
}

static void round_trip(const uint8_t *ops, size_t n, size_t size)
{
    dfc_shm_ring_t *r = ring_new(size);
    static uint32_t qlen[QMAX];
    size_t qh = 0, qt = 0, maxlen = dfc_shm_ring_max_len(size), len;
    uint32_t seq = 0, got = 0;
    for (size_t i = 0; i < n; i++) {
        if (ops[i] & 1 && qt - qh < QMAX) {
            uint32_t l = (uint32_t)((ops[i] >> 1) * 37u % (maxlen + 1));
            uint8_t *p = dfc_shm_ring_reserve(r, l);
            if (p) {
                REQUIRE(((uintptr_t)p & 7) == 0);
                for (uint32_t k = 0; k < l; k++) p[k] = (uint8_t)(seq + k);
                dfc_shm_ring_commit(r);
                qlen[qt++ % QMAX] = l;
                seq++;
                continue;
            }
            REQUIRE(qt > qh); /* an empty ring takes any record of at most max_len bytes */
        }
        const uint8_t *p = dfc_shm_ring_peek(r, &len);
        if (!p) {
            REQUIRE(qt == qh && len != DFC_SHM_RING_CORRUPT);
            continue;
        }
        REQUIRE(qt > qh && len == qlen[qh++ % QMAX]);
        for (size_t k = 0; k < len; k++) REQUIRE(p[k] == (uint8_t)(got + k));
        got++;
        dfc_shm_ring_release(r);
    }
    free(r);
}

static void hostile(const uint8_t *data, size_t n, size_t size)
{
    dfc_shm_ring_t *r = ring_new(size);
    uint64_t start = 0;
    if (n >= 8) memcpy(&start, data + n - 8, 8);
    memcpy(r->data, data, n < size ? n : size);
    atomic_store(&r->head, (start % size) & ~(uint64_t)(DFC_SHM_RING_ALIGN - 1));
    size_t len;
    uint64_t sum = 0;
    for (int i = 0; i < 4096; i++) {
        const uint8_t *rec = dfc_shm_ring_peek(r, &len);
        if (!rec) break;
        /* shm.c: a record is a packet header and exactly its payload. */
        const dfc_pkt_t *pkt = (const dfc_pkt_t *)rec;
        if (len < sizeof(dfc_pkt_t) || pkt->payload_len != len - sizeof(dfc_pkt_t)) break;
        for (size_t k = 0; k < len; k++) sum += rec[k];
        dfc_shm_ring_release(r);
    }
    REQUIRE(sum != UINT64_MAX);
    free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    if (n < 1) return 0;
    size_t size = (size_t)128 << (data[0] & 7);
    round_trip(data + 1, n - 1, size);
    hostile(data, n, size);
    return 0;
}
