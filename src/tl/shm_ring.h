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
 * A record is an 8-byte header {reclen, ulen} followed by ulen user bytes, padded to half
 * a cache line (DFC_SHM_RING_ALIGN, 32 bytes) when it fits in one, else to whole lines
 * (DFC_SHM_RING_LINE). A record longer than half a line starts on a line: where the tail is
 * at the middle of one, the producer first fills the half with a pad marker. So a record
 * never straddles lines needlessly (a message of one line arrives in one transfer), while
 * two records of half a line share one (an 8-byte message: issue 16, where Open MPI's fast
 * boxes, aligned to 32 bytes, moved twice as many small messages per line transfer).
 * Records never wrap: when one does not fit before the end of the data area, the producer
 * writes a skip marker over the rest and starts the record at offset 0. A record of at most
 * size/2 bytes therefore always fits into an empty ring (if it does not fit before the end,
 * the end is at most size/2 away, so offset 0 up to the current offset is at least size/2
 * long), which is why dfc_shm_ring_max_len() is size/2 minus the header: a bigger record
 * could wait forever on an empty ring.
 *
 * The consumer polls the next record's header, not the producer's position: a small message
 * then costs the consumer one cache-line transfer (header and data together), not two (the
 * position's line, then the record's), as Open MPI's shared-memory fast boxes do. That needs
 * one invariant: **the header word where the next record will start is 0 until the producer
 * publishes a record (or a skip or pad marker) there.** reclen is never 0 in a record the
 * producer writes, so a header word of 0 means "not yet". Two rules keep it:
 *   - the consumer, before it releases space, zeroes the first word of every line that
 *     starts in it (dfc_shm_ring_clear_lines), so that in free space every line's first word
 *     is 0 (at init they are all 0: init zeroes them, or its caller knows the memory is
 *     zeroed, as a new shared segment is);
 *   - the producer, when it reserves a record that ends in the middle of a line, zeroes the
 *     word there (the second half's first word, in the record's own line and in free space:
 *     a reserve keeps half a line beyond the record free, the guard), before it publishes.
 * Why the consumer (issue 16): the producer used to zero the header word after every
 * record, which for a record ending on a line meant taking the next line from the consumer,
 * the line it was polling, once per message, then again for the record itself. A window of
 * 64-byte Isends took 0.090 us per message against 0.058 with the consumer's rule, 1 KiB ones
 * 0.196 against 0.080, on this project's 2-core VM (BENCHMARKS.md, stop 32); the consumer's
 * store goes to a line it has just read, and nobody polls it. The header is published with a
 * release store after the zeroes the producer makes; the consumer's zeroes come before its
 * release store of head, which the producer acquires before it reuses the space. A record
 * behind a skip or pad marker is published before the marker, so a consumer that follows the
 * marker finds the record there.
 *
 * Memory order: the producer fills a record and then publishes its header with a release
 * store; the consumer reads the header with acquire before it reads the record. `tail`
 * is the producer's own position, read by no one else. The consumer returns space with a release store of `head` after it has read the record; the
 * producer reads `head` with acquire before it overwrites that space, and caches it in its
 * own line, re-reading the shared one only when the cache says "full".
 */
#ifndef DFC_SHM_RING_H
#define DFC_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define DFC_SHM_RING_ALIGN 32u       /* record granularity: half a line */
#define DFC_SHM_RING_LINE 64u        /* a cache line: records longer than ALIGN start on one */
#define DFC_SHM_RING_SKIP UINT32_MAX /* ulen of a skip marker (to the end) */
#define DFC_SHM_RING_PAD (UINT32_MAX - 1u) /* ulen of a pad marker (the second half of a line) */
#define DFC_SHM_RING_CORRUPT SIZE_MAX      /* *ulen from peek: a record header is malformed */

typedef struct dfc_shm_rec {
    uint32_t reclen; /* bytes from this header to the next record (ALIGN, or lines) */
    uint32_t ulen;   /* user bytes after the header, or DFC_SHM_RING_SKIP or _PAD */
} dfc_shm_rec_t;

typedef struct dfc_shm_ring {
    /* Producer's line. */
    _Alignas(64) _Atomic uint64_t tail; /* bytes committed so far (the producer's own) */
    uint64_t head_cache;                /* producer's last view of head */
    uint64_t pending;                   /* tail after the reserved, uncommitted record */
    uint64_t pmask;                     /* size - 1 (a copy per side: no shared reads) */
    uint64_t rec_off;                   /* the reserved record's offset... */
    uint64_t rec_word;                  /* ...and its header word, stored at commit */
    uint64_t skip_off;                  /* offset of the skip or pad marker it needs, or NO_SKIP */
    uint64_t skip_word;                 /* that marker's header word */
    /* Consumer's line. */
    _Alignas(64) _Atomic uint64_t head; /* bytes released so far */
    uint64_t cmask;
    uint64_t cnext; /* head after the record peek returned */
    /* Written by both sides, rarely: its own line. */
    _Alignas(64) _Atomic uint32_t space_wanted; /* producer found it full (see below) */
    /* Data area. */
    _Alignas(64) unsigned char data[];
} dfc_shm_ring_t;

#define DFC_SHM_RING_NO_SKIP UINT64_MAX

/* A record header as one 64-bit word (the layout of dfc_shm_rec_t on a little-endian
 * machine), so that it is published and polled by single atomic accesses. */
static inline uint64_t dfc_shm_ring_word(uint32_t reclen, uint32_t ulen)
{
    return (uint64_t)reclen | (uint64_t)ulen << 32;
}

static inline _Atomic uint64_t *dfc_shm_ring_hdr(dfc_shm_ring_t *r, uint64_t off)
{
    return (_Atomic uint64_t *)(void *)(r->data + off);
}

/* The record length for ulen user bytes: half a line when it fits, else whole lines. The
 * consumer checks every header against it. uint64_t: a corrupt ulen must not wrap. */
static inline uint64_t dfc_shm_ring_reclen(uint64_t ulen)
{
    uint64_t total = sizeof(dfc_shm_rec_t) + ulen;
    if (total <= DFC_SHM_RING_ALIGN) return DFC_SHM_RING_ALIGN;
    return (total + DFC_SHM_RING_LINE - 1) & ~(uint64_t)(DFC_SHM_RING_LINE - 1);
}

/* Bytes a ring with `size` data bytes occupies (header included). */
static inline size_t dfc_shm_ring_footprint(size_t size) { return sizeof(dfc_shm_ring_t) + size; }

/* Largest ulen a ring of `size` data bytes accepts (see the top comment). With the guard,
 * an empty ring still takes it: a record that wraps leaves fewer than reclen bytes behind
 * (a multiple of ALIGN: at most reclen - ALIGN), so with the guard it needs at most
 * 2 * reclen <= size bytes. */
static inline size_t dfc_shm_ring_max_len(size_t size) { return size / 2 - sizeof(dfc_shm_rec_t); }

/* Initializes a ring. size: a power of two >= 2*LINE. Free space needs a 0 in the first
 * word of every line (the top comment's invariant). data_zeroed: the caller knows the data
 * area holds only zeroes (a freshly created shared segment), so init writes none of it;
 * otherwise (any memory) it zeroes those words. Why: writing them touches every page of
 * every ring, and the process that creates a node's segment then holds all of them resident
 * (16 local ranks: 240 rings, rank 0 grew by 62 MB against 6 MB, stop 33); left alone, a
 * ring's pages are touched only as far as its messages reach. */
static inline void dfc_shm_ring_init(dfc_shm_ring_t *r, size_t size, int data_zeroed)
{
    atomic_store_explicit(&r->tail, 0, memory_order_relaxed);
    atomic_store_explicit(&r->head, 0, memory_order_relaxed);
    r->head_cache = r->pending = 0;
    r->rec_off = r->rec_word = 0;
    r->skip_off = DFC_SHM_RING_NO_SKIP;
    r->skip_word = 0;
    r->cnext = 0;
    r->pmask = r->cmask = size - 1;
    atomic_store_explicit(&r->space_wanted, 0, memory_order_relaxed);
    for (size_t l = 0; !data_zeroed && l < size; l += DFC_SHM_RING_LINE)
        atomic_store_explicit(dfc_shm_ring_hdr(r, l), 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

/* Producer: returns room for ulen bytes (8-byte aligned), or NULL when the ring is full.
 * Nothing is visible to the consumer until dfc_shm_ring_commit(): the headers are written
 * there. A reserve without a commit is simply forgotten by the next reserve. */
static inline void *dfc_shm_ring_reserve(dfc_shm_ring_t *r, size_t ulen)
{
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t size = r->pmask + 1;
    uint64_t reclen = dfc_shm_ring_reclen(ulen);
    uint64_t off = t & r->pmask, contig = size - off;
    /* Bytes skipped before the record: a pad to the next line for a long record at the
     * middle of one, or the rest of the data area when the record does not fit before it. */
    uint64_t pad = reclen > DFC_SHM_RING_ALIGN && (off & (DFC_SHM_RING_LINE - 1))
                       ? DFC_SHM_RING_ALIGN
                       : 0;
    int wraps = reclen + pad > contig;
    uint64_t skip = wraps ? contig : pad;
    uint64_t need = skip + reclen + DFC_SHM_RING_ALIGN;

    if (t + need - r->head_cache > size) {
        r->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
        if (t + need - r->head_cache > size) return NULL;
    }
    r->skip_off = DFC_SHM_RING_NO_SKIP;
    if (skip) {
        r->skip_off = off;
        r->skip_word = dfc_shm_ring_word((uint32_t)skip,
                                         wraps ? DFC_SHM_RING_SKIP : DFC_SHM_RING_PAD);
        t += skip;
        off = t & r->pmask;
    }
    r->rec_off = off;
    r->rec_word = dfc_shm_ring_word((uint32_t)reclen, (uint32_t)ulen);
    r->pending = t + reclen;
    /* The next record's header word, when it is in the middle of a line (on a line, the
     * consumer zeroed it: top comment). Free space, so harmless if this reserve is abandoned;
     * in the record's own line, so it costs no line transfer. */
    if (r->pending & (DFC_SHM_RING_LINE - 1))
        atomic_store_explicit(dfc_shm_ring_hdr(r, r->pending & r->pmask), 0, memory_order_relaxed);
    return r->data + off + sizeof(dfc_shm_rec_t);
}

/* Producer: publishes the record returned by the last reserve (see the top comment for the
 * order of the stores: the record, then the marker in front of it). */
static inline void dfc_shm_ring_commit(dfc_shm_ring_t *r)
{
    atomic_store_explicit(dfc_shm_ring_hdr(r, r->rec_off), r->rec_word, memory_order_release);
    if (r->skip_off != DFC_SHM_RING_NO_SKIP)
        atomic_store_explicit(dfc_shm_ring_hdr(r, r->skip_off), r->skip_word, memory_order_release);
    atomic_store_explicit(&r->tail, r->pending, memory_order_relaxed);
}

/* Consumer: zeroes the first word of every line that starts in [from, to), space it has read
 * and is about to release (the top comment's first rule). */
static inline void dfc_shm_ring_clear_lines(dfc_shm_ring_t *r, uint64_t from, uint64_t to)
{
    uint64_t l = (from + DFC_SHM_RING_LINE - 1) & ~(uint64_t)(DFC_SHM_RING_LINE - 1);
    for (; l < to; l += DFC_SHM_RING_LINE)
        atomic_store_explicit(dfc_shm_ring_hdr(r, l & r->cmask), 0, memory_order_relaxed);
}

/* Consumer: the oldest record (its user bytes; *ulen set), or NULL when empty. The record
 * stays valid until dfc_shm_ring_release(). NULL with *ulen == DFC_SHM_RING_CORRUPT: the
 * next header is not one a producer writes (memory corruption, or a peer gone wrong); the
 * ring is then unusable. Each header is read once and checked against the end of the data
 * area, so that no header, whatever its bytes, makes the consumer read outside the data
 * area or loop: a pad marker must fill the second half of a line, and a skip marker must
 * start past offset 0 and run to the end, so at most a pad and a skip are followed per call
 * (found by test/fuzz/fuzz_shm_ring). */
static inline void *dfc_shm_ring_peek(dfc_shm_ring_t *r, size_t *ulen)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed), size = r->cmask + 1;
    *ulen = 0;
    for (;;) {
        uint64_t off = h & r->cmask, mid = off & (DFC_SHM_RING_LINE - 1);
        if (off & (DFC_SHM_RING_ALIGN - 1)) break;
        uint64_t word = atomic_load_explicit(dfc_shm_ring_hdr(r, off), memory_order_acquire);
        if (!word) return NULL;
        uint32_t reclen = (uint32_t)word, len = (uint32_t)(word >> 32);
        if (len == DFC_SHM_RING_SKIP || len == DFC_SHM_RING_PAD) {
            if (len == DFC_SHM_RING_SKIP ? off == 0 || reclen != size - off
                                         : !mid || reclen != DFC_SHM_RING_ALIGN)
                break;
            dfc_shm_ring_clear_lines(r, h, h + reclen);
            h += reclen;
            atomic_store_explicit(&r->head, h, memory_order_release);
            continue;
        }
        if (reclen != dfc_shm_ring_reclen(len) || off + reclen > size ||
            (mid && reclen > DFC_SHM_RING_ALIGN))
            break;
        r->cnext = h + reclen;
        *ulen = len;
        return r->data + off + sizeof(dfc_shm_rec_t);
    }
    *ulen = DFC_SHM_RING_CORRUPT;
    return NULL;
}

/* Consumer: frees the record returned by the last peek (its checked length, not a second
 * read of the shared header), its lines' first words zeroed first. */
static inline void dfc_shm_ring_release(dfc_shm_ring_t *r)
{
    dfc_shm_ring_clear_lines(r, atomic_load_explicit(&r->head, memory_order_relaxed), r->cnext);
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

/* Anyone: whether the ring looks non-empty: the header word where the next record starts
 * (see the top comment) is set. Reads only shared memory (no cache updates), so a thread
 * other than the consumer may call it (the blocking wait does). A producer that died
 * between its stores leaves either a published record or a 0 here, never a state that
 * stays "pending" after everything published was consumed. */
static inline int dfc_shm_ring_pending(dfc_shm_ring_t *r)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
    return atomic_load_explicit(dfc_shm_ring_hdr(r, h & r->cmask), memory_order_acquire) != 0;
}

#endif /* DFC_SHM_RING_H */
