/*
 * flood - a flood of unexpected messages: every rank but 0 sends rank 0 NMSG small eager
 * messages (blocking sends, which complete locally) while rank 0 sleeps, so that all of
 * them arrive before any receive is posted; then rank 0 receives them with DFC_ANY_SOURCE
 * and checks each one's sender, tag, length and every element, and that each sender's
 * messages come in the order sent. Transports must hold the flood back (the ofi transport's
 * credits) or take it, and lose nothing either way. A last round the other way (rank 0 to
 * everyone, the receivers asleep) checks the reverse direction.
 */
#include <unistd.h>

#include "../dfctest.h"

#define NMSG 5000
#define LEN 6 /* ints per message: sender, index, then a pattern */

static int value(int src, int i, int k) { return src * 1000003 + i * 7 + k; }

static void fill(int *buf, int src, int i)
{
    buf[0] = src;
    buf[1] = i;
    for (int k = 2; k < LEN; k++) buf[k] = value(src, i, k);
}

static void check(const int *buf, int src, int i, const char *what)
{
    DFCT_CHECK(buf[0] == src && buf[1] == i, "%s: message %d from %d holds sender %d index %d",
               what, i, src, buf[0], buf[1]);
    for (int k = 2; k < LEN; k++)
        DFCT_CHECK(buf[k] == value(src, i, k), "%s: message %d from %d element %d is %d", what, i,
                   src, k, buf[k]);
}

int main(int argc, char **argv)
{
    int rank, size, buf[LEN];
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    /* Senders to rank 0 flood it while it sleeps. */
    if (rank != 0) {
        for (int i = 0; i < NMSG; i++) {
            fill(buf, rank, i);
            DFCT_OK(DFC_Send(buf, LEN, DFC_INT, 0, i % 7, DFC_COMM_WORLD));
        }
    } else {
        sleep(1);
        int *next = calloc((size_t)size, sizeof(int));
        for (int n = 0; n < NMSG * (size - 1); n++) {
            DFC_Status st;
            int count = -1;
            for (int k = 0; k < LEN; k++) buf[k] = -1; /* poisoned */
            DFCT_OK(DFC_Recv(buf, LEN, DFC_INT, DFC_ANY_SOURCE, DFC_ANY_TAG, DFC_COMM_WORLD, &st));
            DFC_Get_count(&st, DFC_INT, &count);
            int src = st.DFC_SOURCE;
            DFCT_CHECK(src > 0 && src < size && count == LEN, "recv %d: source %d count %d", n, src,
                       count);
            if (src <= 0 || src >= size) continue;
            DFCT_CHECK(st.DFC_TAG == next[src] % 7, "recv %d from %d: tag %d, expected %d", n, src,
                       st.DFC_TAG, next[src] % 7);
            check(buf, src, next[src]++, "flood to rank 0");
        }
        free(next);
    }
    /* And back: rank 0 floods each receiver while they sleep. */
    if (rank == 0) {
        for (int i = 0; i < NMSG; i++)
            for (int r = 1; r < size; r++) {
                fill(buf, 0, i);
                DFCT_OK(DFC_Send(buf, LEN, DFC_INT, r, 3, DFC_COMM_WORLD));
            }
    } else {
        sleep(1);
        for (int i = 0; i < NMSG; i++) {
            for (int k = 0; k < LEN; k++) buf[k] = -1;
            DFCT_OK(DFC_Recv(buf, LEN, DFC_INT, 0, 3, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
            check(buf, 0, i, "flood from rank 0");
        }
    }
    return dfct_finalize();
}
