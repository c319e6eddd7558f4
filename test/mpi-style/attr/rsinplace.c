/*
 * rsinplace.c - Reduce_scatter with DFC_IN_PLACE leaves the receive buffer past this
 * rank's block as it was (issue 17: counts {1,2}, MIN turned rank 1's [1,1,1] into
 * [0,0,0]; MPICH and Open MPI give [0,0,1]). Several count patterns, blocking,
 * nonblocking and persistent, with MIN and SUM, checked element by element.
 */
#include "../dfctest.h"

#define MAXN 64

static void run(int kind, const int *counts, int total, DFC_Op op, int rank, int size)
{
    int buf[MAXN * 4], want[MAXN * 4];
    int disp = 0;
    for (int r = 0; r < rank; r++) disp += counts[r];
    for (int i = 0; i < total; i++) buf[i] = (op == DFC_MIN ? rank : 1) + i * 7 + 1;
    for (int i = 0; i < total; i++) want[i] = buf[i]; /* past the block: the input */
    for (int i = 0; i < counts[rank]; i++) {
        int j = disp + i, acc = op == DFC_MIN ? 1 << 30 : 0;
        for (int r = 0; r < size; r++) {
            int x = (op == DFC_MIN ? r : 1) + j * 7 + 1;
            acc = op == DFC_MIN ? (x < acc ? x : acc) : acc + x;
        }
        want[i] = acc;
    }
    DFC_Request req;
    if (kind == 0)
        DFCT_OK(DFC_Reduce_scatter(DFC_IN_PLACE, buf, counts, DFC_INT, op, DFC_COMM_WORLD));
    else if (kind == 1) {
        DFCT_OK(DFC_Ireduce_scatter(DFC_IN_PLACE, buf, counts, DFC_INT, op, DFC_COMM_WORLD, &req));
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    } else {
        DFCT_OK(DFC_Reduce_scatter_init(DFC_IN_PLACE, buf, counts, DFC_INT, op, DFC_COMM_WORLD,
                                        DFC_INFO_NULL, &req));
        DFCT_OK(DFC_Start(&req));
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Request_free(&req));
    }
    for (int i = 0; i < total; i++)
        DFCT_CHECK(buf[i] == want[i], "kind %d op %s counts[rank]=%d: buf[%d] = %d, expected %d",
                   kind, op == DFC_MIN ? "MIN" : "SUM", counts[rank], i, buf[i], want[i]);
}

int main(int argc, char **argv)
{
    int rank, size;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    if (size > MAXN) size = MAXN;
    int counts[MAXN], total;
    /* The case (for 2 ranks: {1,2}) and others: growing, shrinking, zeros. */
    for (int pattern = 0; pattern < 4; pattern++) {
        total = 0;
        for (int r = 0; r < size; r++) {
            counts[r] = pattern == 0   ? r + 1
                        : pattern == 1 ? size - r + 1
                        : pattern == 2 ? (r % 2 ? 3 : 0)
                                       : 2;
            total += counts[r];
        }
        for (int kind = 0; kind < 3; kind++) {
            run(kind, counts, total, DFC_MIN, rank, size);
            run(kind, counts, total, DFC_SUM, rank, size);
        }
    }
    return dfct_finalize();
}
