/*
 * shm_coop.c - a large cross-memory pull shared by both ends (the protocol: shm_coop.h).
 */
#include "config.h"

#include "tl/shm_coop.h"

#include <errno.h>
#include <sched.h>
#include <sys/uio.h>

#include "tl/dfc_tl.h"
#include "util/dfc_util.h"

/* Pieces a message is cut into: enough that whoever finishes first steals from the other's
 * share (the two cores rarely copy at one speed), few enough that each piece's system call
 * and page pinning stay small beside its copy. */
#define DFC_SHM_COOP_PIECES 8

#define PIECE_BITS 24
#define PIECE_MASK ((1ull << PIECE_BITS) - 1)

static inline uint64_t claim_pack(uint64_t gen, uint64_t front, uint64_t back)
{
    return (gen << (2 * PIECE_BITS)) | (front << PIECE_BITS) | back;
}
static inline uint64_t claim_gen(uint64_t c) { return c >> (2 * PIECE_BITS); }
static inline uint64_t claim_front(uint64_t c) { return (c >> PIECE_BITS) & PIECE_MASK; }
static inline uint64_t claim_back(uint64_t c) { return c & PIECE_MASK; }

size_t dfc_shm_coop_piece(size_t len, size_t min_piece)
{
    size_t p = (len / DFC_SHM_COOP_PIECES + 4095) & ~(size_t)4095;
    p = p > min_piece ? p : min_piece;
    /* the count must fit its field */
    while ((len + p - 1) / p > PIECE_MASK) p *= 2;
    return p;
}

/* Claims pieces: the reader takes half of what is left from the front (at least one), so
 * that without a helper it makes a handful of copies, not one per piece; the sender takes
 * one from the back, so that the reader finds the rest still there. Returns the first
 * piece's index and sets *count, or returns -1 when none is left. *word is the claim word
 * the taker saw last. */
static int64_t take(dfc_shm_coop_t *d, int reader, uint64_t *word, uint64_t *count)
{
    uint64_t c = *word;
    for (;;) {
        uint64_t f = claim_front(c), b = claim_back(c);
        if (f >= b) {
            *word = c;
            return -1;
        }
        uint64_t k = reader ? (b - f + 1) / 2 : 1;
        uint64_t next = reader ? claim_pack(claim_gen(c), f + k, b)
                               : claim_pack(claim_gen(c), f, b - 1);
        if (atomic_compare_exchange_weak_explicit(&d->claim, &c, next, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            *word = next;
            *count = k;
            return reader ? (int64_t)f : (int64_t)(b - 1);
        }
    }
}

/* Ends the request early (a pull failed): no piece is left to take. */
static uint64_t close_claims(dfc_shm_coop_t *d)
{
    uint64_t c = atomic_load_explicit(&d->claim, memory_order_acquire);
    while (claim_front(c) < claim_back(c) &&
           !atomic_compare_exchange_weak_explicit(&d->claim, &c,
                                                  claim_pack(claim_gen(c), claim_back(c),
                                                             claim_back(c)),
                                                  memory_order_acq_rel, memory_order_acquire))
        ;
    return c;
}

/* Waits until the sender finished its `want` pieces. Returns DFC_SUCCESS, or io->alive's
 * error once the sender is gone. */
static int wait_helped(dfc_shm_coop_t *d, uint32_t want, const dfc_shm_coop_io_t *io)
{
    uint64_t next_look = 0;
    for (unsigned spins = 0; atomic_load_explicit(&d->helped, memory_order_acquire) < want;
         spins++) {
        if (spins < 1000) {
            dfc_cpu_relax();
            continue;
        }
        uint64_t now = dfc_time_ns();
        if (now >= next_look) {
            int rc = io->alive(io->arg);
            if (rc != DFC_SUCCESS) return rc;
            next_look = now + 1000000; /* a millisecond */
        }
        sched_yield(); /* oversubscribed: the sender may need this core to finish */
    }
    return DFC_SUCCESS;
}

int dfc_shm_coop_pull(dfc_shm_coop_t *d, void *local, uint64_t remote, size_t len, size_t piece,
                      const dfc_shm_coop_io_t *io)
{
    if (atomic_exchange_explicit(&d->busy, 1, memory_order_acquire)) return DFC_TL_AGAIN;
    uint64_t n = (len + piece - 1) / piece;
    uint64_t gen = (claim_gen(atomic_load_explicit(&d->claim, memory_order_relaxed)) + 1) & 0xffff;
    d->dst = (uint64_t)(uintptr_t)local;
    d->src = remote;
    d->len = len;
    d->piece = piece;
    atomic_store_explicit(&d->helped, 0, memory_order_relaxed);
    atomic_store_explicit(&d->help_failed, 0, memory_order_relaxed);
    uint64_t word = claim_pack(gen, 0, n);
    atomic_store_explicit(&d->claim, word, memory_order_release); /* the request is up */
    io->notify(io->arg);

    int rc = DFC_SUCCESS;
    int64_t k;
    uint64_t count;
    while ((k = take(d, 1, &word, &count)) >= 0) {
        size_t off = (size_t)k * piece, m = len - off < count * piece ? len - off : count * piece;
        rc = io->pull(io->arg, (char *)local + off, remote + off, m);
        if (rc != DFC_SUCCESS) {
            word = close_claims(d);
            break;
        }
    }
    /* Now front == back: the sender took [back, n) and may still be copying its last. */
    uint64_t sender_from = claim_back(word);
    int wrc = wait_helped(d, (uint32_t)(n - sender_from), io);
    if (rc == DFC_SUCCESS) rc = wrc;
    if (rc == DFC_SUCCESS && atomic_load_explicit(&d->help_failed, memory_order_relaxed)) {
        size_t off = (size_t)sender_from * piece; /* the sender's pieces, pulled again */
        rc = io->pull(io->arg, (char *)local + off, remote + off, len - off);
    }
    /* Only after the wait: a sender still copying must not see this descriptor free. */
    atomic_store_explicit(&d->busy, 0, memory_order_release);
    return rc;
}

int dfc_shm_coop_help(dfc_shm_coop_t *d, pid_t reader)
{
    int done = 0;
    uint64_t word = atomic_load_explicit(&d->claim, memory_order_acquire);
    int64_t k;
    uint64_t one;
    while ((k = take(d, 0, &word, &one)) >= 0) {
        /* Claimed: the reader waits for this piece, so the request's fields hold. */
        size_t off = (size_t)k * d->piece, m = d->len - off < d->piece ? d->len - off : d->piece;
        struct iovec l = {(void *)(uintptr_t)(d->src + off), m};
        struct iovec r = {(void *)(uintptr_t)(d->dst + off), m};
        ssize_t w;
        do w = process_vm_writev(reader, &l, 1, &r, 1, 0);
        while (w < 0 && errno == EINTR);
        if (w != (ssize_t)m) atomic_store_explicit(&d->help_failed, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&d->helped, 1, memory_order_release);
        done++;
    }
    return done;
}
