/*
 * bigcount - the large-count (_c) forms: Send_c, Recv_c, Isend_c, Irecv_c, Bcast_c,
 * Reduce_c, Allreduce_c, Allgather_c, Get_count_c and Type_size_c, element by element with
 * poisoned outputs at counts that fit an int (0, 7, 100000: eager and rendezvous); then,
 * unless given -small, one message of 2^31 + 17 bytes (past INT_MAX, so the wrappers build
 * their derived type) sent to the next rank (itself at 1 rank) and broadcast from rank 0,
 * every byte checked; and bad counts.
 */
#include <limits.h>

#include "../dfctest.h"

static int rank, size;

static int val(int r, int k) { return r * 1000003 + k; }

static void small(DFC_Count n)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size, bad = 0;
    int *s = malloc((size_t)n * 4 + 4), *r = malloc((size_t)n * 4 + 4);
    int *g = malloc((size_t)(n * size) * 4 + 4);
    DFC_Request q[2];
    DFC_Status st;
    DFC_Count c = -1;
    for (int k = 0; k < n; k++) s[k] = val(rank, k), r[k] = -1;
    DFCT_OK(DFC_Irecv_c(r, n, DFC_INT, from, 1, DFC_COMM_WORLD, &q[0]));
    DFCT_OK(DFC_Isend_c(s, n, DFC_INT, to, 1, DFC_COMM_WORLD, &q[1]));
    DFCT_OK(DFC_Waitall(2, q, DFC_STATUSES_IGNORE));
    for (int k = 0; k < n; k++)
        if (r[k] != val(from, k) && bad++ < 3)
            DFCT_CHECK(0, "Isend_c/Irecv_c n=%lld element %d: %d", (long long)n, k, r[k]);
    for (int k = 0; k < n; k++) r[k] = -1;
    /* Recv_c against an Isend_c, then Send_c against an Irecv_c (safe at 1 rank too). */
    DFCT_OK(DFC_Isend_c(s, n, DFC_INT, to, 2, DFC_COMM_WORLD, &q[1]));
    DFCT_OK(DFC_Recv_c(r, n, DFC_INT, from, 2, DFC_COMM_WORLD, &st));
    DFCT_OK(DFC_Wait(&q[1], DFC_STATUS_IGNORE));
    int *r2 = malloc((size_t)n * 4 + 4);
    for (int k = 0; k < n; k++) r2[k] = -1;
    DFCT_OK(DFC_Irecv_c(r2, n, DFC_INT, from, 5, DFC_COMM_WORLD, &q[0]));
    DFCT_OK(DFC_Send_c(s, n, DFC_INT, to, 5, DFC_COMM_WORLD));
    DFCT_OK(DFC_Wait(&q[0], DFC_STATUS_IGNORE));
    for (int k = 0; k < n; k++)
        if (r2[k] != val(from, k) && bad++ < 3)
            DFCT_CHECK(0, "Send_c/Irecv_c n=%lld element %d: %d", (long long)n, k, r2[k]);
    free(r2);
    DFCT_OK(DFC_Get_count_c(&st, DFC_INT, &c));
    DFCT_CHECK(c == n, "Get_count_c %lld, expected %lld", (long long)c, (long long)n);
    for (int k = 0; k < n; k++)
        if (r[k] != val(from, k) && bad++ < 3)
            DFCT_CHECK(0, "Send_c/Recv_c n=%lld element %d: %d", (long long)n, k, r[k]);
    /* Bcast_c from the last rank. */
    for (int k = 0; k < n; k++) r[k] = rank == size - 1 ? val(size - 1, k) : -1;
    DFCT_OK(DFC_Bcast_c(r, n, DFC_INT, size - 1, DFC_COMM_WORLD));
    for (int k = 0; k < n; k++)
        if (r[k] != val(size - 1, k) && bad++ < 3)
            DFCT_CHECK(0, "Bcast_c n=%lld element %d: %d", (long long)n, k, r[k]);
    /* Allreduce_c and Reduce_c (to rank 0) of SUM: sum over ranks of val(rank, k). */
    for (int op = 0; op < 2; op++) {
        for (int k = 0; k < n; k++) r[k] = -1;
        if (op) DFCT_OK(DFC_Reduce_c(s, r, n, DFC_INT, DFC_SUM, 0, DFC_COMM_WORLD));
        else DFCT_OK(DFC_Allreduce_c(s, r, n, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
        for (int k = 0; k < n; k++) {
            int want = 0;
            for (int p = 0; p < size; p++) want += val(p, k);
            if (op && rank != 0) want = -1;
            if (r[k] != want && bad++ < 3)
                DFCT_CHECK(0, "%s n=%lld element %d: %d, expected %d",
                           op ? "Reduce_c" : "Allreduce_c", (long long)n, k, r[k], want);
        }
    }
    for (int k = 0; k <= n * size; k++) g[k] = -1;
    DFCT_OK(DFC_Allgather_c(s, n, DFC_INT, g, n, DFC_INT, DFC_COMM_WORLD));
    for (int p = 0; p < size; p++)
        for (int k = 0; k < n; k++)
            if (g[p * n + k] != val(p, k) && bad++ < 3)
                DFCT_CHECK(0, "Allgather_c n=%lld block %d element %d: %d", (long long)n, p, k,
                           g[p * n + k]);
    DFCT_CHECK(g[n * size] == -1, "Allgather_c wrote past the blocks");
    free(s), free(r), free(g);
}

static unsigned char pat(int r, size_t i) { return (unsigned char)(i * 7 + (size_t)r * 13 + 3); }

/* 2^31 + 17 bytes to the next rank, then broadcast from rank 0. */
static void large(void)
{
    DFC_Count n = (DFC_Count)INT_MAX + 18;
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    size_t bad = 0;
    unsigned char *b = malloc((size_t)n), *x = size == 1 ? malloc((size_t)n) : NULL;
    DFC_Status st;
    DFC_Count c = -1;
    if (!b || (size == 1 && !x)) {
        DFCT_CHECK(0, "no memory for %lld bytes", (long long)n);
        return;
    }
    /* Rank 0 sends to 1 (to itself at 1 rank); the others take no part. */
    if (rank == 0) {
        for (size_t i = 0; i < (size_t)n; i++) b[i] = pat(0, i);
        DFC_Request q;
        DFCT_OK(DFC_Isend_c(b, n, DFC_BYTE, to, 3, DFC_COMM_WORLD, &q));
        if (size == 1) {
            memset(x, 0, (size_t)n);
            DFCT_OK(DFC_Recv_c(x, n, DFC_BYTE, 0, 3, DFC_COMM_WORLD, &st));
        }
        DFCT_OK(DFC_Wait(&q, DFC_STATUS_IGNORE));
    } else if (rank == 1) {
        memset(b, 0, (size_t)n);
        DFCT_OK(DFC_Recv_c(b, n, DFC_BYTE, from, 3, DFC_COMM_WORLD, &st));
    }
    if (rank == (size == 1 ? 0 : 1)) { /* the receiver */
        unsigned char *got = size == 1 ? x : b;
        DFCT_OK(DFC_Get_count_c(&st, DFC_BYTE, &c));
        DFCT_CHECK(c == n, "Get_count_c of the large message: %lld, expected %lld", (long long)c,
                   (long long)n);
        for (size_t i = 0; i < (size_t)n; i++)
            if (got[i] != pat(0, i) && bad++ < 3)
                DFCT_CHECK(0, "large message byte %zu: %d, expected %d", i, got[i], pat(0, i));
    }
    if (rank != 0) memset(b, 0, (size_t)n);
    DFCT_OK(DFC_Bcast_c(b, n, DFC_BYTE, 0, DFC_COMM_WORLD));
    for (size_t i = 0; i < (size_t)n; i++)
        if (b[i] != pat(0, i) && bad++ < 3)
            DFCT_CHECK(0, "large Bcast_c byte %zu: %d, expected %d", i, b[i], pat(0, i));
    free(b), free(x);
}

static void errors(void)
{
    int a = 0;
    DFC_Count sz = -1;
    DFCT_FAILS(DFC_Send_c(&a, -3, DFC_INT, 0, 0, DFC_COMM_WORLD), DFC_ERR_COUNT, "negative");
    DFCT_FAILS(DFC_Send_c(&a, -((DFC_Count)1 << 40), DFC_INT, 0, 0, DFC_COMM_WORLD), DFC_ERR_COUNT,
               "count");
    DFCT_FAILS(DFC_Bcast_c(&a, 1, DFC_DATATYPE_NULL, 0, DFC_COMM_WORLD), DFC_ERR_TYPE, "datatype");
    DFCT_FAILS(DFC_Get_count_c(DFC_STATUS_IGNORE, DFC_INT, &sz), DFC_ERR_ARG, "status");
    DFCT_OK(DFC_Type_size_c(DFC_DOUBLE, &sz));
    DFCT_CHECK(sz == 8, "Type_size_c(DFC_DOUBLE) = %lld", (long long)sz);
}

int main(int argc, char **argv)
{
    int only_small = 0;
    dfct_init(&argc, &argv);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-small")) only_small = 1;
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFC_Count ns[3] = {0, 7, 100000};
    for (int i = 0; i < 3; i++) small(ns[i]);
    errors();
    if (!only_small) large();
    return dfct_finalize();
}
