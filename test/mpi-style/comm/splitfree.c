/*
 * splitfree - many DFC_Comm_split/DFC_Comm_free cycles (color rank%2, key rank): context
 * ids are reused and nothing leaks or slows down. Every 1000 cycles a Sendrecv ring on the
 * new communicator checks that it works and carries its own traffic only.
 * -n=N sets the number of cycles (default 100000; 10000 under ASan, dfct_under_asan, where
 * a cycle costs 50 times more: 200 s of CI's 40 minutes for 100000 at 4 ranks on 2 cores. A
 * split that leaked its id would still run out of the DFC_CTXID_MAX (4096) ids long before
 * cycle 10000).
 */
#include <stdlib.h>

#include "../dfctest.h"

int main(int argc, char **argv)
{
    long ncycles = dfct_under_asan() ? 10000 : 100000;
    int rank, size;
    dfct_init(&argc, &argv);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "-n=", 3)) ncycles = atol(argv[i] + 3);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    int color = rank % 2, n = (size - color + 1) / 2, me = rank / 2;

    for (long it = 0; it < ncycles; it++) {
        DFC_Comm c = DFC_COMM_NULL;
        DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, color, rank, &c));
        if (c == DFC_COMM_NULL) {
            DFCT_CHECK(0, "cycle %ld: split gave DFC_COMM_NULL", it);
            break;
        }
        if (it % 1000 == 0 || it == ncycles - 1) {
            int r = -1, s = -1;
            DFCT_OK(DFC_Comm_rank(c, &r));
            DFCT_OK(DFC_Comm_size(c, &s));
            DFCT_CHECK(r == me && s == n, "cycle %ld: rank %d size %d, expected %d and %d", it, r,
                       s, me, n);
            int right = (me + 1) % n, left = (me + n - 1) % n;
            long out[2] = {it, rank}, in[2] = {-1, -1};
            DFC_Status st;
            DFCT_OK(DFC_Sendrecv(out, 2, DFC_LONG, right, 0, in, 2, DFC_LONG, DFC_ANY_SOURCE,
                                 DFC_ANY_TAG, c, &st));
            DFCT_CHECK(in[0] == it && in[1] == 2 * left + color && st.DFC_SOURCE == left &&
                           st.DFC_TAG == 0,
                       "cycle %ld: got {%ld, %ld} from %d, expected {%ld, %d} from %d", it, in[0],
                       in[1], st.DFC_SOURCE, it, 2 * left + color, left);
        }
        DFCT_OK(DFC_Comm_free(&c));
        if (dfct_errs) break;
    }
    return dfct_finalize();
}
