/*
 * shm_wire.h - how the shm transport lays a packet into a ring record (shm_ring.h).
 *
 * A record's user bytes are a packet header and its payload. The header is the whole
 * dfc_pkt_t (56 bytes) or, for a small EAGER packet, a 24-byte short or a 16-byte tiny one:
 *
 *   long:  dfc_pkt_t | payload                      any packet
 *   short: shm_short_t | payload (<= 32 bytes)      EAGER, len == payload_len, rreq and offset
 *                                                   0, sreq below 2^32, reserved 0
 *   tiny:  shm_tiny_t | payload (<= 8 bytes)        as short, and ctx below 2^16, and sent by
 *                                                   the ring's producer (src_world implied)
 *
 * Why (issue 16). With the ring's 8-byte record header, a dfc_pkt_t fills a cache line by
 * itself, so even an 8-byte message was two lines: the receiver saw the header line arrive,
 * then waited for the second one before it could copy the data out. Ping-pong on 16 idle
 * cores stayed flat at 0.62-0.70 us from 8 to 64 bytes, where Open MPI, whose 8-byte fast-box
 * message is one line, took 0.51-0.55 (BENCHMARKS.md, stop 23). In the short form, 8 + 24 +
 * 32 = 64: a message of up to 32 bytes is one line. (Longer EAGER packets could take it too,
 * a line less whenever their last line holds at most 32 bytes; on 16 cores that gained
 * nothing at 72 and 144 bytes and a 16-rank alltoall of 192-byte blocks was slower: stop 24.)
 * In the tiny form, 8 + 16 + 8 = 32: half a line, so two such messages share one line
 * transfer (the ring's half-line records), as in Open MPI's fast boxes of 32-byte slots: a
 * window of 8-byte Isends had cost DFC one line per message against their one per two.
 *
 * The first byte tells the forms apart: a dfc_pkt_t's type is below DFC_PKT_TYPE_MAX, a short
 * header's is SHM_WIRE_SHORT, a tiny one's SHM_WIRE_TINY. Every field a form leaves out has
 * the value it implies (above; the sender's world rank is the ring's producer, which the
 * reader passes in), so decoding gives back exactly the packet that was sent; whatever does
 * not fit goes in a larger form. Header-only and free of the transport's state, so that
 * test/unit/test_shm_wire.c checks it alone.
 */
#ifndef DFC_SHM_WIRE_H
#define DFC_SHM_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tl/dfc_tl.h"
#include "tl/shm_ring.h"

#define SHM_WIRE_SHORT 0x80 /* first byte of a short header; no dfc_pkt_t type */
#define SHM_WIRE_TINY 0x81  /* first byte of a tiny header */

typedef struct shm_short {
    uint8_t type; /* SHM_WIRE_SHORT */
    uint8_t flags;
    uint16_t reserved; /* 0 */
    uint32_t ctx;
    int32_t src;
    int32_t tag;
    uint32_t src_world;
    uint32_t sreq;
} shm_short_t;

typedef struct shm_tiny {
    uint8_t type; /* SHM_WIRE_TINY */
    uint8_t flags;
    uint16_t ctx;
    int32_t src;
    int32_t tag;
    uint32_t sreq;
} shm_tiny_t;

_Static_assert(sizeof(shm_short_t) == 24, "the short header's size is part of the format");
_Static_assert(sizeof(shm_tiny_t) == 16, "the tiny header's size is part of the format");
_Static_assert(DFC_PKT_TYPE_MAX <= SHM_WIRE_SHORT, "a packet type would look like a short header");

/* Payload bytes that share one cache line with the ring's and the short header, and half a
 * line with the ring's and the tiny header. */
#define SHM_WIRE_SHORT_MAX (DFC_SHM_RING_LINE - sizeof(dfc_shm_rec_t) - sizeof(shm_short_t))
#define SHM_WIRE_TINY_MAX (DFC_SHM_RING_ALIGN - sizeof(dfc_shm_rec_t) - sizeof(shm_tiny_t))

static inline int dfc_shm_wire_is_short(const dfc_pkt_t *pkt)
{
    return pkt->type == DFC_PKT_EAGER && pkt->payload_len <= SHM_WIRE_SHORT_MAX &&
           pkt->len == pkt->payload_len && !pkt->rreq && !pkt->offset && pkt->sreq <= UINT32_MAX &&
           !pkt->reserved;
}

/* self_world: the world rank of the ring's producer, the sending process. */
static inline int dfc_shm_wire_is_tiny(const dfc_pkt_t *pkt, uint32_t self_world)
{
    return pkt->payload_len <= SHM_WIRE_TINY_MAX && pkt->ctx <= UINT16_MAX &&
           pkt->src_world == self_world && dfc_shm_wire_is_short(pkt);
}

/* The record's user bytes for pkt and its payload, sent by world rank self_world. */
static inline size_t dfc_shm_wire_len(const dfc_pkt_t *pkt, uint32_t self_world)
{
    size_t hdr = dfc_shm_wire_is_tiny(pkt, self_world) ? sizeof(shm_tiny_t)
                 : dfc_shm_wire_is_short(pkt)          ? sizeof(shm_short_t)
                                                       : sizeof(dfc_pkt_t);
    return hdr + pkt->payload_len;
}

/* Writes pkt and its payload into rec, which holds len = dfc_shm_wire_len(pkt) bytes: the
 * length, already known to the caller that reserved them, tells the form (the send path
 * decides it once). The small headers are written field by field into the record, not built
 * on the stack and copied: gcc then read the stack copy back with one 16-byte load over
 * narrower stores, which cannot be forwarded and so waited until every older store had
 * reached the cache, among them the ring's store into the next line (dfc_shm_ring_reserve),
 * a line the consumer holds. A window of 8-byte Isends took 96 ns per message, then 81
 * (stop 31). */
static inline void dfc_shm_wire_put(void *rec, size_t len, const dfc_pkt_t *pkt,
                                    const void *payload)
{
    char *p = rec;
    size_t hdr = len - pkt->payload_len;
    if (hdr == sizeof(shm_tiny_t)) {
        shm_tiny_t *h = (shm_tiny_t *)rec;
        h->type = SHM_WIRE_TINY;
        h->flags = pkt->flags;
        h->ctx = (uint16_t)pkt->ctx;
        h->src = pkt->src;
        h->tag = pkt->tag;
        h->sreq = (uint32_t)pkt->sreq;
    } else if (hdr == sizeof(shm_short_t)) {
        shm_short_t *h = (shm_short_t *)rec;
        h->type = SHM_WIRE_SHORT;
        h->flags = pkt->flags;
        h->reserved = 0;
        h->ctx = pkt->ctx;
        h->src = pkt->src;
        h->tag = pkt->tag;
        h->src_world = pkt->src_world;
        h->sreq = (uint32_t)pkt->sreq;
    } else {
        memcpy(p, pkt, sizeof *pkt); /* field by field gained nothing here (stop 31) */
    }
    if (pkt->payload_len) memcpy(p + hdr, payload, pkt->payload_len);
}

/* The EAGER packet a short or tiny header stands for, in *scratch. */
static inline const dfc_pkt_t *dfc_shm_wire_eager(dfc_pkt_t *scratch, uint8_t flags, uint32_t ctx,
                                                  int32_t src, int32_t tag, uint32_t src_world,
                                                  uint32_t sreq, size_t plen)
{
    memset(scratch, 0, sizeof *scratch);
    scratch->type = DFC_PKT_EAGER;
    scratch->flags = flags;
    scratch->ctx = ctx;
    scratch->src = src;
    scratch->tag = tag;
    scratch->len = plen;
    scratch->sreq = sreq;
    scratch->payload_len = (uint32_t)plen;
    scratch->src_world = src_world;
    return scratch;
}

/* Reads the packet in a record of len user bytes from the ring of world rank producer:
 * returns its header (in place, or decoded into *scratch) and sets *payload, or returns NULL
 * when the record is not one that dfc_shm_wire_put writes (a short or tiny header with more
 * payload than its form takes, a long one whose payload_len disagrees with len, an unknown
 * type). */
static inline const dfc_pkt_t *dfc_shm_wire_get(const void *rec, size_t len, dfc_pkt_t *scratch,
                                                const void **payload, uint32_t producer)
{
    const unsigned char *p = rec;
    if (len >= sizeof(shm_tiny_t) && p[0] == SHM_WIRE_TINY) {
        shm_tiny_t h;
        memcpy(&h, p, sizeof h);
        size_t plen = len - sizeof h;
        if (plen > SHM_WIRE_TINY_MAX) return NULL;
        *payload = p + sizeof h;
        return dfc_shm_wire_eager(scratch, h.flags, h.ctx, h.src, h.tag, producer, h.sreq, plen);
    }
    if (len >= sizeof(shm_short_t) && p[0] == SHM_WIRE_SHORT) {
        shm_short_t h;
        memcpy(&h, p, sizeof h);
        size_t plen = len - sizeof h;
        if (plen > SHM_WIRE_SHORT_MAX || h.reserved) return NULL;
        *payload = p + sizeof h;
        return dfc_shm_wire_eager(scratch, h.flags, h.ctx, h.src, h.tag, h.src_world, h.sreq, plen);
    }
    const dfc_pkt_t *pkt = rec;
    if (len < sizeof *pkt || pkt->payload_len != len - sizeof *pkt || pkt->type == 0 ||
        pkt->type >= DFC_PKT_TYPE_MAX)
        return NULL;
    *payload = p + sizeof *pkt;
    return pkt;
}

#endif /* DFC_SHM_WIRE_H */
