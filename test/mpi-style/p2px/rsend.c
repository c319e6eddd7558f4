/*
 * rsend - ready sends (Rsend, Irsend, Rsend_init): the receiver posts its receives, says so
 * with a zero-byte message, and the sender then sends in ready mode, eager and rendezvous;
 * every element is checked. Bad arguments name the function and the argument.
 */
#include "../dfctest.h"

#define N 20000

int main(int argc, char **argv)
{
    int rank, size;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    int *s = malloc(N * 4), *r = malloc(5 * N * 4);
    for (int k = 0; k < 5 * N; k++) r[k] = -1;
    DFC_Request rr[5], sr[3], p;
    int lens[5] = {1, N, 7, N, 100};
    for (int i = 0; i < 5; i++)
        DFCT_OK(DFC_Irecv(r + i * N, lens[i], DFC_INT, from, i, DFC_COMM_WORLD, &rr[i]));
    /* Ready: my receives are posted; wait until the sender's are. */
    DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_BYTE, from, 99, NULL, 0, DFC_BYTE, to, 99, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    for (int k = 0; k < N; k++) s[k] = rank * 1000000 + k;
    DFCT_OK(DFC_Rsend(s, 1, DFC_INT, to, 0, DFC_COMM_WORLD));
    DFCT_OK(DFC_Rsend(s, N, DFC_INT, to, 1, DFC_COMM_WORLD));
    DFCT_OK(DFC_Irsend(s, 7, DFC_INT, to, 2, DFC_COMM_WORLD, &sr[0]));
    DFCT_OK(DFC_Irsend(s, N, DFC_INT, to, 3, DFC_COMM_WORLD, &sr[1]));
    DFCT_OK(DFC_Rsend_init(s, 100, DFC_INT, to, 4, DFC_COMM_WORLD, &p));
    DFCT_OK(DFC_Start(&p));
    DFCT_OK(DFC_Waitall(5, rr, DFC_STATUSES_IGNORE));
    sr[2] = p;
    DFCT_OK(DFC_Waitall(3, sr, DFC_STATUSES_IGNORE));
    DFCT_OK(DFC_Request_free(&p));
    for (int i = 0, bad = 0; i < 5; i++)
        for (int k = 0; k < lens[i]; k++)
            if (r[i * N + k] != from * 1000000 + k && bad++ < 3)
                DFCT_CHECK(0, "message %d element %d: %d", i, k, r[i * N + k]);
    DFCT_CHECK(r[1] == -1 && r[2 * N + 7] == -1, "wrote past a message");
    DFCT_FAILS(DFC_Rsend(s, 1, DFC_INT, size, 0, DFC_COMM_WORLD), DFC_ERR_RANK, "dest");
    DFCT_FAILS(DFC_Irsend(s, 1, DFC_INT, to, -2, DFC_COMM_WORLD, &sr[0]), DFC_ERR_TAG,
               "DFC_Irsend");
    DFCT_FAILS(DFC_Rsend_init(s, -1, DFC_INT, to, 0, DFC_COMM_WORLD, &p), DFC_ERR_COUNT, "count");
    free(s), free(r);
    return dfct_finalize();
}
