/*
 * sendrecv - blocking point-to-point around a ring: DFC_Send/DFC_Recv passed around the
 * ring once (rank 0 starts, the others receive first), then DFC_Sendrecv shifting right and
 * left. Sizes 0 B, 1 B, 64 KiB and 1 MiB (and 64 MiB with -big), so eager and rendezvous
 * paths both run. Every element is checked, the receive buffer is poisoned beforehand and
 * has a guard zone behind the message that must stay untouched, statuses are checked.
 */
#include "../dfctest.h"

#define GUARD 64 /* bytes after the message that must not be written */
#define POISON 0xa5
#define TAG 17

static int rank, size;

/* Fresh content for each (sender, size index, round): a byte stream. */
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
    for (size_t i = n; i < n + GUARD; i++)
        if (buf[i] != POISON && bad++ < 5)
            DFCT_CHECK(0, "%s: guard byte %zu (message of %zu) was written", what, i, n);
}

static void check_status(const DFC_Status *st, int src, int tag, size_t n, const char *what)
{
    int count = -2;
    DFCT_CHECK(st->DFC_SOURCE == src, "%s: status source %d, expected %d", what, st->DFC_SOURCE,
               src);
    DFCT_CHECK(st->DFC_TAG == tag, "%s: status tag %d, expected %d", what, st->DFC_TAG, tag);
    DFCT_OK(DFC_Get_count(st, DFC_BYTE, &count));
    DFCT_CHECK(count == (int)n, "%s: Get_count %d, expected %zu", what, count, n);
    if (n % sizeof(int) == 0) {
        DFCT_OK(DFC_Get_count(st, DFC_INT, &count));
        DFCT_CHECK(count == (int)(n / sizeof(int)), "%s: Get_count(INT) %d, expected %zu", what,
                   count, n / sizeof(int));
    }
}

static unsigned seed_of(int sender, int sizeidx, int round)
{
    return (unsigned)(sender * 1000003 + sizeidx * 101 + round * 7 + 1);
}

/* Elements of `n` bytes: DFC_INT when n is a multiple of 4 (so that count != bytes), else
 * bytes. */
static void as_type(size_t n, int *count, DFC_Datatype *type)
{
    if (n && n % sizeof(int) == 0) {
        *count = (int)(n / sizeof(int));
        *type = DFC_INT;
    } else {
        *count = (int)n;
        *type = DFC_BYTE;
    }
}

static void ring_pass(size_t n, int sizeidx, unsigned char *sbuf, unsigned char *rbuf)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, count;
    DFC_Datatype type;
    DFC_Status st;
    char what[64];
    as_type(n, &count, &type);
    snprintf(what, sizeof what, "ring Send/Recv of %zu bytes", n);

    fill(sbuf, n, seed_of(rank, sizeidx, 0));
    memset(rbuf, POISON, n + GUARD);
    memset(&st, 0x5a, sizeof st);
    if (rank == 0) {
        DFCT_OK(DFC_Send(sbuf, count, type, right, TAG, DFC_COMM_WORLD));
        DFCT_OK(DFC_Recv(rbuf, count, type, left, TAG, DFC_COMM_WORLD, &st));
    } else {
        DFCT_OK(DFC_Recv(rbuf, count, type, left, TAG, DFC_COMM_WORLD, &st));
        DFCT_OK(DFC_Send(sbuf, count, type, right, TAG, DFC_COMM_WORLD));
    }
    check(rbuf, n, seed_of(left, sizeidx, 0), what);
    check_status(&st, left, TAG, n, what);

    /* The receive buffer larger than the message: the status tells the real size. */
    fill(sbuf, n, seed_of(rank, sizeidx, 1));
    memset(rbuf, POISON, n + GUARD);
    if (rank == 0) {
        DFCT_OK(DFC_Send(sbuf, (int)n, DFC_BYTE, right, TAG + 1, DFC_COMM_WORLD));
        DFCT_OK(DFC_Recv(rbuf, (int)n + GUARD, DFC_BYTE, left, DFC_ANY_TAG, DFC_COMM_WORLD, &st));
    } else {
        DFCT_OK(
            DFC_Recv(rbuf, (int)n + GUARD, DFC_BYTE, DFC_ANY_SOURCE, TAG + 1, DFC_COMM_WORLD, &st));
        DFCT_OK(DFC_Send(sbuf, (int)n, DFC_BYTE, right, TAG + 1, DFC_COMM_WORLD));
    }
    snprintf(what, sizeof what, "ring Send/Recv of %zu bytes, larger buffer", n);
    check(rbuf, n, seed_of(left, sizeidx, 1), what);
    check_status(&st, left, TAG + 1, n, what);
}

static void shift(size_t n, int sizeidx, unsigned char *sbuf, unsigned char *rbuf)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, count;
    DFC_Datatype type;
    DFC_Status st;
    char what[64];
    as_type(n, &count, &type);
    for (int dir = 0; dir < 2; dir++) {
        int dst = dir ? left : right, src = dir ? right : left, round = 2 + dir;
        fill(sbuf, n, seed_of(rank, sizeidx, round));
        memset(rbuf, POISON, n + GUARD);
        memset(&st, 0x5a, sizeof st);
        DFCT_OK(DFC_Sendrecv(sbuf, count, type, dst, TAG + 2 + dir, rbuf, count, type, src,
                             TAG + 2 + dir, DFC_COMM_WORLD, &st));
        snprintf(what, sizeof what, "Sendrecv %s of %zu bytes", dir ? "left" : "right", n);
        check(rbuf, n, seed_of(src, sizeidx, round), what);
        check_status(&st, src, TAG + 2 + dir, n, what);
    }
}

int main(int argc, char **argv)
{
    size_t sizes[] = {0, 1, 64 << 10, 1 << 20, (size_t)64 << 20};
    int nsizes = 4;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-big")) nsizes = 5;

    size_t max = sizes[nsizes - 1];
    unsigned char *sbuf = malloc(max + GUARD), *rbuf = malloc(max + GUARD);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "out of memory\n");
        DFC_Abort(DFC_COMM_WORLD, 1);
    }
    for (int k = 0; k < nsizes; k++) {
        /* A blocking send to oneself before the receive is unsafe: no ring pass alone. */
        if (size > 1) ring_pass(sizes[k], k, sbuf, rbuf);
        shift(sizes[k], k, sbuf, rbuf);
    }
    /* Count 0 with a NULL buffer is valid. */
    DFC_Status st;
    DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_INT, (rank + 1) % size, 5, NULL, 0, DFC_INT,
                         (rank + size - 1) % size, 5, DFC_COMM_WORLD, &st));
    check_status(&st, (rank + size - 1) % size, 5, 0, "Sendrecv of NULL, 0");
    free(sbuf);
    free(rbuf);
    return dfct_finalize();
}
