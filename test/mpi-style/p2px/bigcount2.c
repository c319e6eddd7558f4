/*
 * bigcount2 - the large-count (_c) forms beyond bigcount.c's: the synchronous, buffered and
 * ready sends (blocking, nonblocking, persistent), Recv_init_c, Mrecv_c, Imrecv_c, the
 * Sendrecv family, and the collectives with one count per side in all their forms (Bcast,
 * Reduce, Allreduce, Scan, Exscan, Reduce_scatter_block, Gather, Scatter, Allgather,
 * Alltoall) and Reduce_local_c. Element by element with poisoned outputs at counts that fit
 * an int (0, 7, 100000: eager and rendezvous), on a ring; then, unless given -small,
 * Reduce_local_c over 2^31 + 17 bytes (past INT_MAX, so the wrapper builds its derived
 * type and the reduction runs on it), every byte checked; and bad counts.
 */
#include <limits.h>

#include "../dfctest.h"

static int rank, size, to, from;
static DFC_Comm W = DFC_COMM_WORLD;

static int val(int r, int d, int k) { return r * 1000003 + d * 10007 + k; }
static int *fill(DFC_Count n, int r, int d)
{
    int *p = malloc((size_t)n * 4 + 4);
    for (DFC_Count k = 0; k <= n; k++) p[k] = r < 0 || k == n ? -1 : val(r, d, (int)k);
    return p;
}
static void expect(const int *p, DFC_Count n, int r, int d, const char *what)
{
    int bad = 0;
    for (DFC_Count k = 0; k <= n; k++) {
        int want = k < n ? val(r, d, (int)k) : -1;
        if (p[k] != want && bad++ < 3)
            DFCT_CHECK(0, "%s n=%lld element %lld: %d, expected %d", what, (long long)n,
                       (long long)k, p[k], want);
    }
}
static void wait1(DFC_Request *q) { DFCT_OK(DFC_Wait(q, DFC_STATUS_IGNORE)); }
static void start_wait(DFC_Request *q)
{
    DFCT_OK(DFC_Start(q));
    wait1(q);
    DFCT_OK(DFC_Request_free(q));
}

/* Each send form to the next rank, received by an Irecv (or Recv_init_c) posted first. */
static void sends(DFC_Count n)
{
    int *s = fill(n, rank, 1);
    char *bb = malloc(4 * ((size_t)n * 4 + DFC_BSEND_OVERHEAD + 64));
    int bsz = (int)(4 * (n * 4 + DFC_BSEND_OVERHEAD + 64));
    void *det;
    DFCT_OK(DFC_Buffer_attach(bb, bsz));
    for (int form = 0; form < 10; form++) {
        int *r = fill(n, -1, 0);
        DFC_Request rq, sq;
        if (form == 9) DFCT_OK(DFC_Recv_init_c(r, n, DFC_INT, from, form, W, &rq));
        else DFCT_OK(DFC_Irecv_c(r, n, DFC_INT, from, form, W, &rq));
        if (form == 9) DFCT_OK(DFC_Start(&rq));
        DFCT_OK(DFC_Barrier(W)); /* every receive is posted: Rsend may go */
        switch (form) {
        case 0: DFCT_OK(DFC_Ssend_c(s, n, DFC_INT, to, form, W)); break;
        case 1: DFCT_OK(DFC_Bsend_c(s, n, DFC_INT, to, form, W)); break;
        case 2: DFCT_OK(DFC_Rsend_c(s, n, DFC_INT, to, form, W)); break;
        case 3:
            DFCT_OK(DFC_Issend_c(s, n, DFC_INT, to, form, W, &sq));
            wait1(&sq);
            break;
        case 4:
            DFCT_OK(DFC_Ibsend_c(s, n, DFC_INT, to, form, W, &sq));
            wait1(&sq);
            break;
        case 5:
            DFCT_OK(DFC_Irsend_c(s, n, DFC_INT, to, form, W, &sq));
            wait1(&sq);
            break;
        case 6:
            DFCT_OK(DFC_Ssend_init_c(s, n, DFC_INT, to, form, W, &sq));
            start_wait(&sq);
            break;
        case 7:
            DFCT_OK(DFC_Bsend_init_c(s, n, DFC_INT, to, form, W, &sq));
            start_wait(&sq);
            break;
        case 8:
            DFCT_OK(DFC_Rsend_init_c(s, n, DFC_INT, to, form, W, &sq));
            start_wait(&sq);
            break;
        default:
            DFCT_OK(DFC_Send_init_c(s, n, DFC_INT, to, form, W, &sq));
            start_wait(&sq);
            break;
        }
        wait1(&rq);
        if (form == 9) DFCT_OK(DFC_Request_free(&rq));
        expect(r, n, from, 1, "send form");
        free(r);
    }
    DFCT_OK(DFC_Buffer_detach(&det, &bsz));
    free(bb), free(s);
}

/* Mrecv_c, Imrecv_c and the four Sendrecv forms. */
static void pairs(DFC_Count n)
{
    int *s = fill(n, rank, 2), *r = fill(n, -1, 0), *x;
    DFC_Request q, q2;
    DFC_Message m;
    DFC_Status st;
    for (int im = 0; im < 2; im++) {
        DFCT_OK(DFC_Isend_c(s, n, DFC_INT, to, 30 + im, W, &q));
        DFCT_OK(DFC_Mprobe(from, 30 + im, W, &m, &st));
        if (im) {
            DFCT_OK(DFC_Imrecv_c(r, n, DFC_INT, &m, &q2));
            wait1(&q2);
        } else {
            DFCT_OK(DFC_Mrecv_c(r, n, DFC_INT, &m, &st));
        }
        wait1(&q);
        expect(r, n, from, 2, im ? "Imrecv_c" : "Mrecv_c");
        for (DFC_Count k = 0; k < n; k++) r[k] = -1;
    }
    DFCT_OK(DFC_Sendrecv_c(s, n, DFC_INT, to, 40, r, n, DFC_INT, from, 40, W, &st));
    expect(r, n, from, 2, "Sendrecv_c");
    for (DFC_Count k = 0; k < n; k++) r[k] = -1;
    DFCT_OK(DFC_Isendrecv_c(s, n, DFC_INT, to, 41, r, n, DFC_INT, from, 41, W, &q));
    wait1(&q);
    expect(r, n, from, 2, "Isendrecv_c");
    x = fill(n, rank, 2);
    DFCT_OK(DFC_Sendrecv_replace_c(x, n, DFC_INT, to, 42, from, 42, W, &st));
    expect(x, n, from, 2, "Sendrecv_replace_c");
    free(x), x = fill(n, rank, 2);
    DFCT_OK(DFC_Isendrecv_replace_c(x, n, DFC_INT, to, 43, from, 43, W, &q));
    wait1(&q);
    expect(x, n, from, 2, "Isendrecv_replace_c");
    free(x), free(s), free(r);
}

/* Runs the form f of a collective (0 blocking, 1 nonblocking on q, 2 persistent on q). */
#define FORMS(f, blocking, nonblocking, persistent) \
    do {                                            \
        DFC_Request q;                              \
        if ((f) == 0) DFCT_OK(blocking);            \
        else if ((f) == 1) {                        \
            DFCT_OK(nonblocking);                   \
            wait1(&q);                              \
        } else {                                    \
            DFCT_OK(persistent);                    \
            start_wait(&q);                         \
        }                                           \
    } while (0)
#define I DFC_INFO_NULL

/* Bcast from the last rank, Reduce to rank 0, Allreduce, Scan, Exscan (SUM). */
static void rooted_reductions(DFC_Count n, int f)
{
    int *b = rank == size - 1 ? fill(n, rank, 3) : fill(n, -1, 0);
    int *s = fill(n, rank, 4), *r = fill(n, -1, 0), bad = 0;
    if (f == 0) DFCT_OK(DFC_Bcast_c(b, n, DFC_INT, size - 1, W)); /* bigcount.c's; here I/init */
    else
        FORMS(f, 0, DFC_Ibcast_c(b, n, DFC_INT, size - 1, W, &q),
              DFC_Bcast_init_c(b, n, DFC_INT, size - 1, W, I, &q));
    expect(b, n, size - 1, 3, "Bcast_c");
    for (int kind = 0; kind < 4; kind++) {
        for (DFC_Count k = 0; k < n; k++) r[k] = -1;
        if (kind == 0 && f)
            FORMS(f, 0, DFC_Ireduce_c(s, r, n, DFC_INT, DFC_SUM, 0, W, &q),
                  DFC_Reduce_init_c(s, r, n, DFC_INT, DFC_SUM, 0, W, I, &q));
        if (kind == 1 && f)
            FORMS(f, 0, DFC_Iallreduce_c(s, r, n, DFC_INT, DFC_SUM, W, &q),
                  DFC_Allreduce_init_c(s, r, n, DFC_INT, DFC_SUM, W, I, &q));
        if (kind == 2)
            FORMS(f, DFC_Scan_c(s, r, n, DFC_INT, DFC_SUM, W),
                  DFC_Iscan_c(s, r, n, DFC_INT, DFC_SUM, W, &q),
                  DFC_Scan_init_c(s, r, n, DFC_INT, DFC_SUM, W, I, &q));
        if (kind == 3)
            FORMS(f, DFC_Exscan_c(s, r, n, DFC_INT, DFC_SUM, W),
                  DFC_Iexscan_c(s, r, n, DFC_INT, DFC_SUM, W, &q),
                  DFC_Exscan_init_c(s, r, n, DFC_INT, DFC_SUM, W, I, &q));
        if (kind < 2 && !f) continue; /* blocking Reduce_c/Allreduce_c: bigcount.c */
        int hi = kind == 0 || kind == 1 ? size - 1 : kind == 2 ? rank : rank - 1;
        int defined = kind == 0 ? rank == 0 : kind == 3 ? rank > 0 : 1;
        for (DFC_Count k = 0; k <= n; k++) {
            int want = 0;
            for (int p = 0; p <= hi; p++) want += val(p, 4, (int)k);
            if (k == n) want = -1;
            if (defined && r[k] != want && bad++ < 3)
                DFCT_CHECK(0, "reduction %d form %d n=%lld element %lld: %d, expected %d", kind, f,
                           (long long)n, (long long)k, r[k], want);
        }
    }
    free(b), free(s), free(r);
}

/* Reduce_scatter_block (n per rank), Gather and Scatter at the last rank, Allgather,
 * Alltoall: block p of n items. */
static void blocks(DFC_Count n, int f)
{
    size_t all = (size_t)(n * size);
    int *s = malloc(all * 4 + 4), *r = malloc(all * 4 + 4), root = size - 1, bad = 0;
    for (int kind = 0; kind < 5; kind++) {
        for (size_t k = 0; k < all; k++) s[k] = val(rank, 5 + kind, (int)k), r[k] = -1;
        r[all] = -1;
        if (kind == 0)
            FORMS(f, DFC_Reduce_scatter_block_c(s, r, n, DFC_INT, DFC_SUM, W),
                  DFC_Ireduce_scatter_block_c(s, r, n, DFC_INT, DFC_SUM, W, &q),
                  DFC_Reduce_scatter_block_init_c(s, r, n, DFC_INT, DFC_SUM, W, I, &q));
        if (kind == 1)
            FORMS(f, DFC_Gather_c(s, n, DFC_INT, r, n, DFC_INT, root, W),
                  DFC_Igather_c(s, n, DFC_INT, r, n, DFC_INT, root, W, &q),
                  DFC_Gather_init_c(s, n, DFC_INT, r, n, DFC_INT, root, W, I, &q));
        if (kind == 2)
            FORMS(f, DFC_Scatter_c(s, n, DFC_INT, r, n, DFC_INT, root, W),
                  DFC_Iscatter_c(s, n, DFC_INT, r, n, DFC_INT, root, W, &q),
                  DFC_Scatter_init_c(s, n, DFC_INT, r, n, DFC_INT, root, W, I, &q));
        if (kind == 3 && f)
            FORMS(f, 0, DFC_Iallgather_c(s, n, DFC_INT, r, n, DFC_INT, W, &q),
                  DFC_Allgather_init_c(s, n, DFC_INT, r, n, DFC_INT, W, I, &q));
        if (kind == 4)
            FORMS(f, DFC_Alltoall_c(s, n, DFC_INT, r, n, DFC_INT, W),
                  DFC_Ialltoall_c(s, n, DFC_INT, r, n, DFC_INT, W, &q),
                  DFC_Alltoall_init_c(s, n, DFC_INT, r, n, DFC_INT, W, I, &q));
        if (kind == 3 && !f) continue; /* blocking Allgather_c: bigcount.c */
        for (size_t k = 0; k <= all; k++) {
            int p = n ? (int)(k / (size_t)n) : 0, i = n ? (int)(k % (size_t)n) : 0, want = -1;
            if (kind == 0 && k < (size_t)n)
                for (int x = want = 0; x < size; x++) want += val(x, 5, (int)(rank * n + i));
            if (kind == 1 && rank == root && k < all) want = val(p, 6, i);
            if (kind == 2 && k < (size_t)n) want = val(root, 7, (int)(rank * n + i));
            if (kind == 3 && k < all) want = val(p, 8, i);
            if (kind == 4 && k < all) want = val(p, 9, (int)(rank * n + i));
            if (r[k] != want && bad++ < 3)
                DFCT_CHECK(0, "block kind %d form %d n=%lld element %zu: %d, expected %d", kind, f,
                           (long long)n, k, r[k], want);
        }
    }
    free(s), free(r);
}

/* Reduce_local_c: BXOR of bytes, past INT_MAX when large. */
static void reduce_local(DFC_Count n)
{
    unsigned char *a = calloc((size_t)n + 1, 1), *b = calloc((size_t)n + 1, 1);
    size_t bad = 0;
    if (!a || !b) {
        DFCT_CHECK(0, "no memory for %lld bytes", (long long)n);
        free(a), free(b);
        return;
    }
    for (size_t i = 0; i < (size_t)n; i++)
        a[i] = (unsigned char)(i * 7 + 3), b[i] = (unsigned char)i;
    DFCT_OK(DFC_Reduce_local_c(a, b, n, DFC_UNSIGNED_CHAR, DFC_BXOR));
    for (size_t i = 0; i < (size_t)n; i++)
        if (b[i] != (unsigned char)((i * 7 + 3) ^ i) && bad++ < 3)
            DFCT_CHECK(0, "Reduce_local_c n=%lld byte %zu: %d", (long long)n, i, b[i]);
    free(a), free(b);
}

static void errors(void)
{
    int a = 0, b = 0;
    DFC_Request q;
    DFCT_FAILS(DFC_Ssend_c(&a, -3, DFC_INT, to, 0, W), DFC_ERR_COUNT, "count");
    DFCT_FAILS(DFC_Ialltoall_c(&a, -((DFC_Count)1 << 40), DFC_INT, &b, 1, DFC_INT, W, &q),
               DFC_ERR_COUNT, "sendcount");
    DFCT_FAILS(DFC_Scan_c(&a, &b, 1, DFC_DATATYPE_NULL, DFC_SUM, W), DFC_ERR_TYPE, "datatype");
    DFCT_FAILS(DFC_Reduce_local_c(&a, &b, -1, DFC_INT, DFC_SUM), DFC_ERR_COUNT, "count");
}

int main(int argc, char **argv)
{
    int only_small = 0;
    dfct_init(&argc, &argv);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-small")) only_small = 1;
    DFC_Comm_rank(W, &rank);
    DFC_Comm_size(W, &size);
    DFC_Comm_set_errhandler(W, DFC_ERRORS_RETURN);
    to = (rank + 1) % size, from = (rank - 1 + size) % size;
    DFC_Count ns[3] = {0, 7, 100000};
    for (int i = 0; i < 3; i++) {
        sends(ns[i]);
        pairs(ns[i]);
        for (int f = 0; f < 3; f++) rooted_reductions(ns[i], f), blocks(ns[i], f);
        reduce_local(ns[i]);
    }
    errors();
    if (!only_small && rank == 0) reduce_local((DFC_Count)INT_MAX + 18);
    return dfct_finalize();
}
