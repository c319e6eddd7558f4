/*
 * manyreads - a window of large messages between every pair at once, received out of order
 * (issue 18: the ofi transport reads up to 256 rendezvous messages at once through the comm
 * layer's rget_start/rget_test, and falls back to a blocking rget when all are taken: with 8
 * processes 7 x 40 = 280 reads are matched at once).
 * Each rank posts NMSG receives of different sizes (all above every transport's eager
 * limit) from every peer, in reverse tag order, into buffers poisoned beforehand, and sends
 * NMSG fresh messages to every peer, all at once; then every element is checked. Any transport passes;
 * the testlist runs it in every mode (under mpirun-nodes-ofi: RMA reads over tcp;ofi_rxm).
 */
#include "../dfctest.h"

#define NMSG 40
#define BASE (DFCT_ABOVE_EAGER_BYTES / 4) /* ints: above every eager limit */

static int count(int k) { return BASE + k * 997; }
static int value(int from, int to, int k, int i)
{
    return from * 1000003 + to * 7919 + k * 131 + i;
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    int rank, size;
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    int npeer = size - 1, nreq = 0;
    int **in = calloc((size_t)size * NMSG, sizeof(int *));
    int **out = calloc((size_t)size * NMSG, sizeof(int *));
    DFC_Request *reqs = malloc(2 * (size_t)size * NMSG * sizeof(*reqs));
    for (int r = 0; r < size; r++) {
        if (r == rank) continue;
        for (int k = NMSG - 1; k >= 0; k--) { /* receives posted in reverse tag order */
            int *b = in[r * NMSG + k] = malloc((size_t)count(k) * sizeof(int));
            for (int i = 0; i < count(k); i++) b[i] = -1;
            DFCT_OK(DFC_Irecv(b, count(k), DFC_INT, r, k, DFC_COMM_WORLD, &reqs[nreq++]));
        }
    }
    for (int r = 0; r < size; r++) {
        if (r == rank) continue;
        for (int k = 0; k < NMSG; k++) { /* all in flight at once: the receiver's window */
            int *b = out[r * NMSG + k] = malloc((size_t)count(k) * sizeof(int));
            for (int i = 0; i < count(k); i++) b[i] = value(rank, r, k, i);
            DFCT_OK(DFC_Isend(b, count(k), DFC_INT, r, k, DFC_COMM_WORLD, &reqs[nreq++]));
        }
    }
    DFCT_OK(DFC_Waitall(nreq, reqs, DFC_STATUSES_IGNORE));
    int checked = 0;
    for (int r = 0; r < size; r++) {
        if (r == rank) continue;
        for (int k = 0; k < NMSG; k++, checked++) {
            const int *b = in[r * NMSG + k];
            for (int i = 0; i < count(k); i++)
                if (b[i] != value(r, rank, k, i)) {
                    DFCT_CHECK(0, "message %d from %d (%d ints): element %d is %d, expected %d", k,
                               r, count(k), i, b[i], value(r, rank, k, i));
                    break;
                }
            free(in[r * NMSG + k]);
        }
    }
    DFCT_CHECK(checked == npeer * NMSG, "checked %d messages, expected %d", checked, npeer * NMSG);
    for (int k = 0; k < size * NMSG; k++) free(out[k]);
    free(out);
    free(in);
    free(reqs);
    return dfct_finalize();
}
