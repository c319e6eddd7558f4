/*
 * test_shm_ring - the shm transport's SPSC record ring (src/tl/shm_ring.h):
 *   1. empty/full: an empty ring peeks NULL; filling it stops at the first reserve that
 *      cannot fit, and draining returns every record in order;
 *   2. wraparound and record boundaries: random produce/consume interleavings with fuzzed
 *      sizes (0 .. max_len, biased to the edges) against a reference FIFO; every byte of
 *      every record is checked, and a reserve may fail only on a non-empty ring;
 *   3. two threads (producer, consumer) pass 10^6 records of fuzzed sizes; order and
 *      contents checked; the rate is printed as information (not a pass criterion).
 *      The 56-byte run is a dfc_pkt_t header without payload: one cache line per record.
 * Needs nothing but the header: no bootstrap, no library.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tl/shm_ring.h"

#define CHECK(c)                                                                              \
    do {                                                                                      \
        if (!(c)) {                                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);            \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static uint64_t rng_next(uint64_t *s) /* xorshift64* */
{
    uint64_t x = *s;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    *s = x;
    return x * 2685821657736338717ull;
}

/* Contents of record `seq`: 8-byte word k = seq * K + k (word 0 is seq itself, so that a
 * misordered record is reported as such), then tail bytes from the same formula. Word-wise
 * so that checking 10^6 records stays fast. */
#define PAT_K 0x9e3779b97f4a7c15ull
static void fill(unsigned char *p, size_t len, uint64_t seq)
{
    size_t k = 0;
    for (; (k + 1) * 8 <= len; k++) {
        uint64_t w = seq * PAT_K + k;
        memcpy(p + 8 * k, &w, 8);
    }
    for (size_t i = 8 * k; i < len; i++) p[i] = (unsigned char)(seq + i);
}

static int verify(const unsigned char *p, size_t len, uint64_t seq)
{
    size_t k = 0;
    for (; (k + 1) * 8 <= len; k++) {
        uint64_t w;
        memcpy(&w, p + 8 * k, 8);
        if (w != seq * PAT_K + k) return 0;
    }
    for (size_t i = 8 * k; i < len; i++)
        if (p[i] != (unsigned char)(seq + i)) return 0;
    return 1;
}

static dfc_shm_ring_t *ring_new(size_t size)
{
    dfc_shm_ring_t *r = aligned_alloc(64, dfc_shm_ring_footprint(size));
    CHECK(r);
    memset(r, 0xa5, dfc_shm_ring_footprint(size)); /* garbage: init must not rely on zeros */
    dfc_shm_ring_init(r, size);
    return r;
}

/* Sizes biased toward the interesting ones: 0, tiny, around the alignment, max. */
static size_t fuzz_len(uint64_t *s, size_t max)
{
    uint64_t x = rng_next(s);
    switch (x & 7) {
    case 0: return 0;
    case 1: return max;
    case 2: return (x >> 8) % 16;
    case 3: {
        size_t k = 64 * (1 + (x >> 8) % 8);
        size_t d = (x >> 20) % 17;
        size_t v = k + d >= 8 ? k + d - 8 : 0; /* straddle the 64-byte record boundary */
        return v > max ? max : v;
    }
    default: return (x >> 8) % (max + 1);
    }
}

static void test_empty_full(void)
{
    size_t size = 4096;
    dfc_shm_ring_t *r = ring_new(size);
    size_t len;
    CHECK(dfc_shm_ring_peek(r, &len) == NULL);
    CHECK(!dfc_shm_ring_pending(r));
    CHECK(dfc_shm_ring_max_len(size) == 2048 - 8);

    /* 56-byte records take exactly one 64-byte slot: 64 fit, the 65th does not. */
    int n = 0;
    for (;;) {
        void *p = dfc_shm_ring_reserve(r, 56);
        if (!p) break;
        fill(p, 56, n);
        dfc_shm_ring_commit(r);
        n++;
    }
    CHECK(n == 64);
    CHECK(dfc_shm_ring_pending(r));
    /* A reserve without commit is invisible. */
    for (int i = 0; i < n; i++) {
        unsigned char *p = dfc_shm_ring_peek(r, &len);
        CHECK(p && len == 56 && verify(p, len, i));
        dfc_shm_ring_release(r);
        if (i == 0) {
            /* One slot free: a 56-byte record fits again, a 57-byte one (two slots) not. */
            CHECK(dfc_shm_ring_reserve(r, 57) == NULL);
        }
    }
    CHECK(dfc_shm_ring_peek(r, &len) == NULL);

    /* Max-size records at every offset: two always fit after draining. */
    size_t max = dfc_shm_ring_max_len(size);
    for (int round = 0; round < 200; round++) {
        void *p = dfc_shm_ring_reserve(r, (round * 72) % 300); /* move the offset around */
        CHECK(p);
        dfc_shm_ring_commit(r);
        CHECK(dfc_shm_ring_peek(r, &len));
        dfc_shm_ring_release(r);
        CHECK(dfc_shm_ring_peek(r, &len) == NULL);
        p = dfc_shm_ring_reserve(r, max);
        CHECK(p); /* an empty ring always takes a max record */
        fill(p, max, round);
        dfc_shm_ring_commit(r);
        unsigned char *q = dfc_shm_ring_peek(r, &len);
        CHECK(q && len == max && verify(q, len, round));
        dfc_shm_ring_release(r);
    }
    free(r);
}

/* Reference FIFO of (seq, len). */
typedef struct {
    uint64_t seq;
    size_t len;
} ref_t;

static void test_fuzz(void)
{
    const size_t sizes[] = {256, 4096, 65536};
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int si = 0; si < 3; si++) {
        size_t size = sizes[si], max = dfc_shm_ring_max_len(size);
        dfc_shm_ring_t *r = ring_new(size);
        size_t cap = size / DFC_SHM_RING_ALIGN + 1;
        ref_t *ref = calloc(cap, sizeof(*ref));
        size_t rh = 0, rt = 0; /* reference FIFO indices (rt - rh entries) */
        uint64_t seq = 0, next_out = 0, fails = 0, wraps_hint = 0;
        for (int step = 0; step < 400000; step++) {
            uint64_t x = rng_next(&seed);
            if ((x & 3) != 0) { /* produce (3/4 of the steps: the ring is often full) */
                size_t len = fuzz_len(&seed, max);
                unsigned char *p = dfc_shm_ring_reserve(r, len);
                if (!p) {
                    CHECK(rt != rh); /* only a non-empty ring may refuse */
                    fails++;
                    continue;
                }
                CHECK(((uintptr_t)p & 7) == 0);
                CHECK(p >= r->data && p + len <= r->data + size); /* never straddles the end */
                fill(p, len, seq);
                if ((x >> 2) & 1) { /* sometimes a reserve is abandoned and redone */
                    p = dfc_shm_ring_reserve(r, len);
                    CHECK(p);
                    fill(p, len, seq);
                }
                dfc_shm_ring_commit(r);
                CHECK(rt - rh < cap);
                ref[rt++ % cap] = (ref_t){seq++, len};
            } else { /* consume a burst */
                int burst = 1 + (int)((x >> 2) % 8);
                for (int b = 0; b < burst; b++) {
                    size_t len;
                    unsigned char *p = dfc_shm_ring_peek(r, &len);
                    if (rt == rh) {
                        CHECK(p == NULL);
                        break;
                    }
                    CHECK(p);
                    ref_t e = ref[rh++ % cap];
                    CHECK(e.seq == next_out && len == e.len);
                    CHECK(verify(p, len, e.seq));
                    if (p == r->data + sizeof(dfc_shm_rec_t)) wraps_hint++;
                    next_out++;
                    dfc_shm_ring_release(r);
                }
            }
        }
        /* Drain. */
        size_t len;
        unsigned char *p;
        while ((p = dfc_shm_ring_peek(r, &len))) {
            ref_t e = ref[rh++ % cap];
            CHECK(e.seq == next_out++ && len == e.len && verify(p, len, e.seq));
            dfc_shm_ring_release(r);
        }
        CHECK(rh == rt);
        CHECK(wraps_hint > 10); /* the data area really wrapped many times */
        CHECK(fails > 10);      /* and was really full at times */
        free(ref);
        free(r);
    }
}

/* ---- Two threads ------------------------------------------------------------------------ */
typedef struct {
    dfc_shm_ring_t *r;
    long n;
    size_t maxlen;
    uint64_t seed;
    int check; /* fill/verify every byte */
} thr_arg_t;

static void *producer(void *arg)
{
    thr_arg_t *a = arg;
    uint64_t s = a->seed;
    for (long i = 0; i < a->n; i++) {
        size_t len = a->maxlen ? fuzz_len(&s, a->maxlen) : 56;
        unsigned char *p;
        for (int spin = 0; !(p = dfc_shm_ring_reserve(a->r, len)); spin++)
            if (spin > 64) sched_yield(); /* 2 cores, other jobs: don't burn a time slice */
        if (a->check)
            fill(p, len, i);
        else if (len >= 8)
            memcpy(p, &i, 8);
        dfc_shm_ring_commit(a->r);
    }
    return NULL;
}

static long consume(thr_arg_t *a, double *bytes)
{
    uint64_t s = a->seed;
    long bad = 0;
    *bytes = 0;
    for (long i = 0; i < a->n; i++) {
        size_t want = a->maxlen ? fuzz_len(&s, a->maxlen) : 56, len;
        unsigned char *p;
        for (int spin = 0; !(p = dfc_shm_ring_peek(a->r, &len)); spin++)
            if (spin > 64) sched_yield();
        *bytes += len;
        if (len != want) bad++;
        else if (a->check ? !verify(p, len, i) : (len >= 8 && memcmp(p, &i, 8) != 0)) bad++;
        dfc_shm_ring_release(a->r);
    }
    return bad;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void run_threads(const char *what, size_t size, long n, size_t maxlen, int check)
{
    dfc_shm_ring_t *r = ring_new(size);
    thr_arg_t a = {r, n, maxlen, 12345, check};
    pthread_t t;
    double t0 = now();
    CHECK(pthread_create(&t, NULL, producer, &a) == 0);
    double bytes;
    long bad = consume(&a, &bytes);
    pthread_join(t, NULL);
    double dt = now() - t0;
    size_t len;
    CHECK(dfc_shm_ring_peek(r, &len) == NULL);
    if (bad) fprintf(stderr, "%s: %ld bad records\n", what, bad);
    CHECK(bad == 0);
    printf("# %-34s %8ld records  %6.2f Mrec/s  %6.2f GB/s  %.3f s\n", what, n, n / dt / 1e6,
           bytes / dt / 1e9, dt);
    free(r);
}

int main(void)
{
    test_empty_full();
    test_fuzz();
    /* 10^6 records up to 4 KiB, then 10^5 up to the shm transport's 32 KiB payload. */
    run_threads("threads, sizes 0..4K, checked", 262144, 1000000, 4096, 1);
    run_threads("threads, sizes 0..32K, checked", 262144, 100000, 32768 + 56, 1);
    run_threads("threads, 56-byte records", 262144, 1000000, 0, 0);
    printf("test_shm_ring: ok\n");
    return 0;
}
