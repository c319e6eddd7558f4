/*
 * bigmsg - messages of 2 GiB (2^29 DFC_INTs, more bytes than an int counts) and 64 MiB
 * between ranks 0 and 1: 0 -> 1 with blocking Send/Recv, 1 -> 0 with Isend/Irecv, every
 * element checked, a guard zone behind the message checked, the status's count checked
 * (Get_count in DFC_BYTE must be DFC_UNDEFINED for 2^31 bytes). Needs 2 GiB per rank.
 * Meant for 2 processes; other ranks only take part in the final error count.
 */
#include <stdint.h>

#include "../dfctest.h"

#define GUARD_INTS 16
#define POISON 0xa5a5a5a5u

static unsigned value(size_t i, unsigned seed)
{
    uint32_t x = (uint32_t)i * 2654435761u ^ seed;
    x ^= x >> 15;
    return x * 2246822519u + (uint32_t)(i >> 32);
}

static void fill(unsigned *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) buf[i] = value(i, seed);
}

static void check(const unsigned *buf, size_t n, unsigned seed, const char *what)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == value(i, seed)) continue;
        if (bad++ < 5)
            DFCT_CHECK(0, "%s: element %zu of %zu is 0x%08x, expected 0x%08x", what, i, n, buf[i],
                       value(i, seed));
    }
    for (size_t i = n; i < n + GUARD_INTS; i++)
        if (buf[i] != POISON && bad++ < 5)
            DFCT_CHECK(0, "%s: guard element %zu written", what, i - n);
    DFCT_CHECK(bad == 0, "%s: %zu bad elements", what, bad);
}

static void poison(unsigned *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) buf[i] = POISON;
}

static void check_status(const DFC_Status *st, int src, int tag, size_t n, const char *what)
{
    int count = -2;
    DFCT_CHECK(st->DFC_SOURCE == src && st->DFC_TAG == tag, "%s: status source %d tag %d", what,
               st->DFC_SOURCE, st->DFC_TAG);
    DFCT_OK(DFC_Get_count(st, DFC_INT, &count));
    DFCT_CHECK(count == (int)n, "%s: Get_count(DFC_INT) %d, expected %zu", what, count, n);
    DFCT_OK(DFC_Get_count(st, DFC_BYTE, &count));
    if (n * sizeof(int) > 0x7fffffff)
        DFCT_CHECK(count == DFC_UNDEFINED, "%s: Get_count(DFC_BYTE) %d, expected DFC_UNDEFINED",
                   what, count);
    else DFCT_CHECK(count == (int)(n * sizeof(int)), "%s: Get_count(DFC_BYTE) %d", what, count);
}

/* Moves n ints 0 -> 1 (blocking) and 1 -> 0 (nonblocking) through buf. */
static void exchange(int rank, unsigned *buf, size_t n, int tag)
{
    DFC_Status st;
    char what[96];
    if (rank == 0) {
        fill(buf, n, 0x1234u + (unsigned)n);
        DFCT_OK(DFC_Send(buf, (int)n, DFC_INT, 1, tag, DFC_COMM_WORLD));
        poison(buf, n + GUARD_INTS);
        DFC_Request req;
        memset(&st, 0x5a, sizeof st);
        DFCT_OK(DFC_Irecv(buf, (int)n + GUARD_INTS, DFC_INT, 1, tag + 1, DFC_COMM_WORLD, &req));
        DFCT_OK(DFC_Wait(&req, &st));
        snprintf(what, sizeof what, "Isend/Irecv of %zu ints 1 -> 0", n);
        check(buf, n, 0x9876u + (unsigned)n, what);
        check_status(&st, 1, tag + 1, n, what);
    } else if (rank == 1) {
        poison(buf, n + GUARD_INTS);
        memset(&st, 0x5a, sizeof st);
        DFCT_OK(DFC_Recv(buf, (int)n + GUARD_INTS, DFC_INT, 0, tag, DFC_COMM_WORLD, &st));
        snprintf(what, sizeof what, "Send/Recv of %zu ints 0 -> 1", n);
        check(buf, n, 0x1234u + (unsigned)n, what);
        check_status(&st, 0, tag, n, what);
        fill(buf, n, 0x9876u + (unsigned)n);
        DFC_Request req;
        DFCT_OK(DFC_Isend(buf, (int)n, DFC_INT, 0, tag + 1, DFC_COMM_WORLD, &req));
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_CHECK(size >= 2, "bigmsg needs 2 processes (has %d)", size);

    const size_t big = (size_t)1 << 29, mid = (size_t)16 << 20; /* 2 GiB and 64 MiB of ints */
    if (size >= 2 && rank < 2) {
        unsigned *buf = malloc((big + GUARD_INTS) * sizeof *buf);
        if (!buf) {
            DFCT_CHECK(0, "cannot allocate %zu bytes", (big + GUARD_INTS) * sizeof *buf);
            DFC_Abort(DFC_COMM_WORLD, 1);
        }
        exchange(rank, buf, mid, 10);
        exchange(rank, buf, big, 20);
        exchange(rank, buf, mid, 30); /* the library still works after the big one */
        free(buf);
    }
    return dfct_finalize();
}
