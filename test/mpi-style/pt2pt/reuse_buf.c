/*
 * reuse_buf - large messages from buffers that are reused, freed and allocated again (issue
 * 18: the ofi transport's registration cache must never send what a buffer held before).
 * Over ofi with FI_RMA the sender's buffer is registered and read by the receiver; the
 * cache keeps registrations for reuse and must drop those of freed memory. Every rank sends
 * to its right neighbour and receives from its left, round after round:
 *   - one buffer reused with new contents each round (the cache's hit);
 *   - a buffer freed and allocated again each round, the same size, so the allocator hands
 *     back the same address (small enough for glibc's heap and large enough for mmap:
 *     64 KiB and 1 MiB), with new contents;
 *   - a buffer from mmap, unmapped and mapped again each round;
 *   - a message from the middle of a buffer, then from a range around it.
 * Every byte is checked against fresh per-round contents; receive buffers are poisoned.
 * Runs under any transport (over shm and tcp it checks the rendezvous all the same).
 */
#include <sys/mman.h>

#include "../dfctest.h"

#define ROUNDS 12
#define POISON 0xa5

static int rank, size;

static void fill(unsigned char *buf, size_t n, unsigned seed)
{
    unsigned s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)(dfct_rand(&s) >> 3);
}

static void check(const unsigned char *buf, size_t n, unsigned seed, const char *what)
{
    unsigned s = seed * 2654435761u + 1;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char want = (unsigned char)(dfct_rand(&s) >> 3);
        if (buf[i] != want && bad++ < 5)
            DFCT_CHECK(0, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, n, buf[i],
                       want);
    }
}

static unsigned seed_of(int sender, int kind, int round)
{
    return (unsigned)(sender * 1000003 + kind * 1009 + round * 7 + 1);
}

/* Sends n bytes of sbuf (filled for this round) right, receives from the left, checks. */
static void exchange(unsigned char *sbuf, size_t n, int kind, int round, unsigned char *rbuf)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char what[96];
    fill(sbuf, n, seed_of(rank, kind, round));
    memset(rbuf, POISON, n);
    DFCT_OK(DFC_Sendrecv(sbuf, (int)n, DFC_BYTE, right, kind, rbuf, (int)n, DFC_BYTE, left, kind,
                         DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    snprintf(what, sizeof what, "kind %d, round %d, %zu bytes", kind, round, n);
    check(rbuf, n, seed_of(left, kind, round), what);
}

int main(int argc, char **argv)
{
    const size_t small = 64 << 10, big = 1 << 20;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    unsigned char *rbuf = malloc(2 * big), *kept = malloc(big);
    if (!rbuf || !kept) {
        fprintf(stderr, "out of memory\n");
        DFC_Abort(DFC_COMM_WORLD, 1);
    }
    for (int round = 0; round < ROUNDS; round++) {
        exchange(kept, big, 1, round, rbuf); /* reused: a cache hit after round 0 */
        unsigned char *a = malloc(small), *b = malloc(big);
        DFCT_CHECK(a && b, "out of memory");
        exchange(a, small, 2, round, rbuf); /* freed below: same address next round */
        exchange(b, big, 3, round, rbuf);
        free(a);
        free(b);
        unsigned char *m = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                                0);
        DFCT_CHECK(m != MAP_FAILED, "mmap of %zu bytes failed", big);
        exchange(m, big, 4, round, rbuf);
        munmap(m, big);
        exchange(kept + 4096, big / 4, 5, round, rbuf); /* inside the kept buffer's range */
        exchange(kept + 4000, big / 2, 6, round, rbuf); /* around it */
    }
    free(rbuf);
    free(kept);
    return dfct_finalize();
}
