/*
 * shm_ring.h - a single-producer single-consumer ring of variable-length records in shared
 * memory (used by the shm transport, one ring per ordered pair of local ranks).
 *
 * Header-only and dependency-free so that test/unit/test_shm_ring.c can test it alone.
 *
 * Layout: two cache lines of control (one written only by the producer, one written only
 * by the consumer, so neither side's stores invalidate the line the other side spins on),
 * a third for the space_wanted flag (written only when the ring is full), then `size`
 * bytes of data, size a power of two. Positions are byte counters that only
 * grow (64 bits never wrap in practice); the index in the data area is pos & mask.
 *
 * A record is an 8-byte header {reclen, ulen} followed by ulen user bytes, padded to
 * DFC_SHM_RING_ALIGN (a cache line) so that the producer writing record n+1 never shares a
 * line with the consumer reading record n. Records never wrap: when one does not fit before
 * the end of the data area, the producer writes a skip marker over the rest and starts the
 * record at offset 0. A record of at most size/2 bytes therefore always fits into an empty
 * ring (if it does not fit before the end, the end is less than size/2 away, so offset 0 up
 * to the current offset is at least size/2 long), which is why dfc_shm_ring_max_len() is
 * size/2 minus the header: a bigger record could wait forever on an empty ring.
 *
 * Memory order: the producer fills a record and then publishes it with a release store of
 * `tail`; the consumer reads `tail` with acquire before it reads the record. The consumer
 * returns space with a release store of `head` after it has read the record; the producer
 * reads `head` with acquire before it overwrites that space. Each side caches the other
 * side's position in its own line and re-reads the shared one only when the cache says
 * "full" (producer) or "empty" (consumer), so a busy ring costs one coherence miss per
 * batch, not per record.
 */
#ifndef DFC_SHM_RING_H
#define DFC_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define DFC_SHM_RING_ALIGN 64u
#define DFC_SHM_RING_SKIP UINT32_MAX  /* ulen of a skip marker */
#define DFC_SHM_RING_CORRUPT SIZE_MAX /* *ulen from peek: a record header is malformed */

typedef struct dfc_shm_rec {
    uint32_t reclen; /* bytes from this header to the next record (multiple of ALIGN) */
    uint32_t ulen;   /* user bytes after the header, or DFC_SHM_RING_SKIP */
} dfc_shm_rec_t;

typedef struct dfc_shm_ring {
    /* Producer's line. */
    _Alignas(64) _Atomic uint64_t tail; /* bytes published so far */
    uint64_t head_cache;                /* producer's last view of head */
    uint64_t pending;                   /* tail after the reserved, uncommitted record */
    uint64_t pmask;                     /* size - 1 (a copy per side: no shared reads) */
    /* Consumer's line. */
    _Alignas(64) _Atomic uint64_t head; /* bytes released so far */
    uint64_t tail_cache;                /* consumer's last view of tail */
    uint64_t cmask;
    uint64_t cnext; /* head after the record peek returned */
    /* Written by both sides, rarely: its own line. */
    _Alignas(64) _Atomic uint32_t space_wanted; /* producer found it full (see below) */
    /* Data area. */
    _Alignas(64) unsigned char data[];
} dfc_shm_ring_t;

static inline uint32_t dfc_shm_ring_reclen(size_t ulen)
{
    return (uint32_t)((sizeof(dfc_shm_rec_t) + ulen + DFC_SHM_RING_ALIGN - 1) &
                      ~(size_t)(DFC_SHM_RING_ALIGN - 1));
}

/* Bytes a ring with `size` data bytes occupies (header included). */
static inline size_t dfc_shm_ring_footprint(size_t size) { return sizeof(dfc_shm_ring_t) + size; }

/* Largest ulen a ring of `size` data bytes accepts (see the top comment). */
static inline size_t dfc_shm_ring_max_len(size_t size) { return size / 2 - sizeof(dfc_shm_rec_t); }

/* Initializes a ring over zeroed or reused memory. size: a power of two >= 2*ALIGN. */
static inline void dfc_shm_ring_init(dfc_shm_ring_t *r, size_t size)
{
    atomic_store_explicit(&r->tail, 0, memory_order_relaxed);
    atomic_store_explicit(&r->head, 0, memory_order_relaxed);
    r->head_cache = r->pending = 0;
    r->tail_cache = r->cnext = 0;
    r->pmask = r->cmask = size - 1;
    atomic_store_explicit(&r->space_wanted, 0, memory_order_relaxed);
}

/* Producer: returns room for ulen bytes (8-byte aligned), or NULL when the ring is full.
 * Nothing is visible to the consumer until dfc_shm_ring_commit(). A reserve without a
 * commit is simply forgotten by the next reserve. */
static inline void *dfc_shm_ring_reserve(dfc_shm_ring_t *r, size_t ulen)
{
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t size = r->pmask + 1;
    uint32_t reclen = dfc_shm_ring_reclen(ulen);
    uint64_t off = t & r->pmask, contig = size - off;
    uint64_t need = reclen <= contig ? reclen : contig + reclen;

    if (t + need - r->head_cache > size) {
        r->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
        if (t + need - r->head_cache > size) return NULL;
    }
    if (reclen > contig) {
        /* Skip the tail end of the data area; the consumer jumps to offset 0. */
        dfc_shm_rec_t *skip = (dfc_shm_rec_t *)(r->data + off);
        skip->reclen = (uint32_t)contig;
        skip->ulen = DFC_SHM_RING_SKIP;
        t += contig;
        off = 0;
    }
    dfc_shm_rec_t *rec = (dfc_shm_rec_t *)(r->data + off);
    rec->reclen = reclen;
    rec->ulen = (uint32_t)ulen;
    r->pending = t + reclen;
    return rec + 1;
}

/* Producer: publishes the record returned by the last reserve. */
static inline void dfc_shm_ring_commit(dfc_shm_ring_t *r)
{
    atomic_store_explicit(&r->tail, r->pending, memory_order_release);
}

/* Consumer: the oldest record (its user bytes; *ulen set), or NULL when empty. The record
 * stays valid until dfc_shm_ring_release(). NULL with *ulen == DFC_SHM_RING_CORRUPT: the
 * next header is not one a producer writes (memory corruption, or a peer gone wrong); the
 * ring is then unusable. Each header is read once and checked against the published tail
 * and the end of the data area, so that no header, whatever its bytes, makes the consumer
 * read outside the data area or loop (found by test/fuzz/fuzz_shm_ring). */
static inline void *dfc_shm_ring_peek(dfc_shm_ring_t *r, size_t *ulen)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed), size = r->cmask + 1;
    *ulen = 0;
    for (;;) {
        if (h == r->tail_cache) {
            r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
            if (h == r->tail_cache) return NULL;
        }
        uint64_t off = h & r->cmask, avail = r->tail_cache - h;
        if (avail > size || (off & (DFC_SHM_RING_ALIGN - 1))) break;
        dfc_shm_rec_t *rec = (dfc_shm_rec_t *)(r->data + off);
        uint32_t reclen = rec->reclen, len = rec->ulen; /* read once: the producer may be wild */
        if (len == DFC_SHM_RING_SKIP) {
            /* A skip marker always covers the rest of the data area. */
            if (reclen != size - off || reclen > avail) break;
            h += reclen;
            atomic_store_explicit(&r->head, h, memory_order_release);
            continue;
        }
        uint64_t need = (sizeof(dfc_shm_rec_t) + (uint64_t)len + DFC_SHM_RING_ALIGN - 1) &
                        ~(uint64_t)(DFC_SHM_RING_ALIGN - 1);
        if (reclen != need || reclen > avail || off + reclen > size) break;
        r->cnext = h + reclen;
        *ulen = len;
        return rec + 1;
    }
    *ulen = DFC_SHM_RING_CORRUPT;
    return NULL;
}

/* Consumer: frees the record returned by the last peek (its checked length, not a second
 * read of the shared header). */
static inline void dfc_shm_ring_release(dfc_shm_ring_t *r)
{
    atomic_store_explicit(&r->head, r->cnext, memory_order_release);
}

/* Freed space (the transport's "room" doorbell). A producer that found the ring full and
 * will sleep until space is freed raises space_wanted and then, before it sleeps, checks
 * whether head moved since its failed reserve (dfc_shm_ring_room_freed); the consumer, after
 * it released records, checks space_wanted (dfc_shm_ring_take_space_wanted) and, if raised,
 * rings the producer's doorbell. A full fence on both sides between the store and the load
 * (Dekker) means at least one of the two sees the other: the producer its freed space, or
 * the consumer its flag. */

/* Producer, after reserve returned NULL: returns the head it saw (for room_freed). */
static inline uint64_t dfc_shm_ring_want_space(dfc_shm_ring_t *r)
{
    atomic_store_explicit(&r->space_wanted, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    return r->head_cache;
}

/* Anyone: whether the consumer released space since the producer saw head == seen. */
static inline int dfc_shm_ring_room_freed(dfc_shm_ring_t *r, uint64_t seen)
{
    return atomic_load_explicit(&r->head, memory_order_acquire) != seen;
}

/* Consumer, after releasing: 1 if the producer asked to be woken (the request is consumed).
 * light: the producer's side makes the fence heavy instead (a system-wide barrier before it
 * sleeps, see shm.c "Asymmetric fences"), so that this side needs only a compiler barrier. */
static inline int dfc_shm_ring_take_space_wanted(dfc_shm_ring_t *r, int light)
{
    if (light) atomic_signal_fence(memory_order_seq_cst);
    else atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&r->space_wanted, memory_order_relaxed)) return 0;
    return atomic_exchange_explicit(&r->space_wanted, 0, memory_order_relaxed) != 0;
}

/* Anyone: whether the ring looks non-empty. Reads only the shared positions (no cache
 * updates), so a thread other than the consumer may call it (the blocking wait does). */
static inline int dfc_shm_ring_pending(dfc_shm_ring_t *r)
{
    return atomic_load_explicit(&r->tail, memory_order_acquire) !=
           atomic_load_explicit(&r->head, memory_order_acquire);
}

#endif /* DFC_SHM_RING_H */
