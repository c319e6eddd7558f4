/*
 * sendrecv_replace - DFC_Sendrecv_replace shifting a buffer around the ring (both
 * directions), eager and rendezvous sizes, with wildcard receive arguments; a non-periodic
 * shift where the ends use DFC_PROC_NULL (their buffer stays as it was, their status
 * says PROC_NULL); and a buffer larger than the message, where the tail stays untouched.
 */
#include "../dfctest.h"

static int rank, size;

static int value(int src, int round, int k) { return src * 1000003 + round * 10007 + k; }

static void fill(int *b, int n, int src, int round)
{
    for (int k = 0; k < n; k++) b[k] = value(src, round, k);
}

static void check(const int *b, int n, int src, int round, const char *what)
{
    int bad = 0;
    for (int k = 0; k < n; k++)
        if (b[k] != value(src, round, k) && bad++ < 3)
            DFCT_CHECK(0, "%s: element %d of %d is %d, expected %d", what, k, n, b[k],
                       value(src, round, k));
}

static void check_status(const DFC_Status *st, int src, int tag, int n, const char *what)
{
    int count = -1;
    DFCT_CHECK(st->DFC_SOURCE == src && st->DFC_TAG == tag, "%s: status %d/%d, expected %d/%d",
               what, st->DFC_SOURCE, st->DFC_TAG, src, tag);
    DFCT_OK(DFC_Get_count(st, DFC_INT, &count));
    DFCT_CHECK(count == n, "%s: count %d, expected %d", what, count, n);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {0, 1, 100, 4096, 4097, 100000, 1 << 18};
    const int nsizes = sizeof sizes / sizeof *sizes;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *buf = malloc(((1 << 18) + 8) * sizeof(int));
    char what[80];
    DFC_Status st;

    for (int k = 0; k < nsizes; k++) {
        int n = sizes[k];
        for (int dir = 0; dir < 2; dir++) {
            int dst = dir ? left : right, src = dir ? right : left, round = 10 * k + dir;
            /* Given source and tag. */
            fill(buf, n, rank, round);
            memset(&st, 0x5a, sizeof st);
            DFCT_OK(DFC_Sendrecv_replace(buf, n, DFC_INT, dst, 7, src, 7, DFC_COMM_WORLD, &st));
            snprintf(what, sizeof what, "Sendrecv_replace of %d ints, %s", n,
                     dir ? "left" : "right");
            check(buf, n, src, round, what);
            check_status(&st, src, 7, n, what);
            /* Back again with a wildcard (ANY_SOURCE with a tag used once, or the source
             * with ANY_TAG): the round trip restores our own data. */
            int backtag = 1000 + 10 * k + dir;
            DFCT_OK(DFC_Sendrecv_replace(buf, n, DFC_INT, src, backtag, dir ? dst : DFC_ANY_SOURCE,
                                         dir ? DFC_ANY_TAG : backtag, DFC_COMM_WORLD, &st));
            snprintf(what, sizeof what, "Sendrecv_replace back, %d ints, %s", n,
                     dir ? "ANY_TAG" : "ANY_SOURCE");
            check(buf, n, rank, round, what);
            check_status(&st, dst, backtag, n, what);
        }
    }

    /* Non-periodic shift right: rank 0 receives from PROC_NULL, the last sends to it. */
    for (int k = 0; k < nsizes; k++) {
        int n = sizes[k], dst = rank + 1 < size ? rank + 1 : DFC_PROC_NULL,
            src = rank > 0 ? rank - 1 : DFC_PROC_NULL;
        fill(buf, n, rank, 100 + k);
        memset(&st, 0x5a, sizeof st);
        DFCT_OK(DFC_Sendrecv_replace(buf, n, DFC_INT, dst, 3, src, 3, DFC_COMM_WORLD, &st));
        snprintf(what, sizeof what, "non-periodic shift of %d ints", n);
        if (src == DFC_PROC_NULL) {
            check(buf, n, rank, 100 + k, "buffer of a Sendrecv_replace from PROC_NULL");
            DFCT_CHECK(st.DFC_SOURCE == DFC_PROC_NULL && st.DFC_TAG == DFC_ANY_TAG,
                       "%s: status %d/%d from PROC_NULL", what, st.DFC_SOURCE, st.DFC_TAG);
            int count = -1;
            DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
            DFCT_CHECK(count == 0, "%s: count %d from PROC_NULL", what, count);
        } else {
            check(buf, n, src, 100 + k, what);
            check_status(&st, src, 3, n, what);
        }
    }

    /* A longer buffer than the message: the receive writes only the message. */
    if (size > 1) {
        int n = 1000, cap = 1008;
        /* Rank 0 sends 1000 ints; rank 1 receives them with Sendrecv_replace of 1008 (its
         * send goes to PROC_NULL). */
        if (rank == 0) {
            fill(buf, n, 0, 200);
            DFCT_OK(DFC_Send(buf, n, DFC_INT, 1, 4, DFC_COMM_WORLD));
        } else if (rank == 1) {
            for (int k = 0; k < cap; k++) buf[k] = -5;
            DFCT_OK(DFC_Sendrecv_replace(buf, cap, DFC_INT, DFC_PROC_NULL, 4, 0, 4, DFC_COMM_WORLD,
                                         &st));
            check(buf, n, 0, 200, "Sendrecv_replace with a larger buffer");
            for (int k = n; k < cap; k++)
                DFCT_CHECK(buf[k] == -5, "Sendrecv_replace with a larger buffer wrote element %d",
                           k);
            check_status(&st, 0, 4, n, "Sendrecv_replace with a larger buffer");
        }
    }
    free(buf);
    return dfct_finalize();
}
