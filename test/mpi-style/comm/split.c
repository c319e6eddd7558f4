/*
 * split - DFC_Comm_split with several colors and keys: color rank%3 with reversed keys,
 * DFC_UNDEFINED for one rank (it gets DFC_COMM_NULL), equal keys (parent order kept), one
 * color for all (congruent with the parent), a split of a split. Each new communicator's
 * size, rank and member list (world ranks, exchanged over the new communicator itself)
 * are checked, and its traffic is isolated from the parent's: messages with the same tag
 * sent on the parent first are not received by wildcard receives on the new communicator.
 */
#include "../dfctest.h"

static int wrank, wsize;

/* The world ranks of comm's members, gathered with point-to-point on comm itself. */
static void members(DFC_Comm comm, int *out)
{
    int r, n;
    DFC_Comm_rank(comm, &r);
    DFC_Comm_size(comm, &n);
    DFC_Request *reqs = malloc(2 * n * sizeof *reqs);
    for (int i = 0; i < n; i++) {
        DFCT_OK(DFC_Irecv(&out[i], 1, DFC_INT, i, 50, comm, &reqs[2 * i]));
        DFCT_OK(DFC_Isend(&wrank, 1, DFC_INT, i, 50, comm, &reqs[2 * i + 1]));
    }
    DFCT_OK(DFC_Waitall(2 * n, reqs, DFC_STATUSES_IGNORE));
    free(reqs);
}

/* Checks comm against the expected ordered list of world ranks. */
static void check_comm(DFC_Comm comm, const int *want, int n, const char *what)
{
    int r = -1, s = -1, me = -1;
    for (int i = 0; i < n; i++)
        if (want[i] == wrank) me = i;
    if (me < 0) {
        DFCT_CHECK(comm == DFC_COMM_NULL, "%s: not a member but got a communicator", what);
        return;
    }
    if (comm == DFC_COMM_NULL) {
        DFCT_CHECK(0, "%s: a member got DFC_COMM_NULL", what);
        return;
    }
    DFCT_OK(DFC_Comm_size(comm, &s));
    DFCT_OK(DFC_Comm_rank(comm, &r));
    DFCT_CHECK(s == n, "%s: size %d, expected %d", what, s, n);
    DFCT_CHECK(r == me, "%s: rank %d, expected %d", what, r, me);
    if (s != n) return;
    int *got = malloc(n * sizeof(int));
    members(comm, got);
    for (int i = 0; i < n; i++)
        DFCT_CHECK(got[i] == want[i], "%s: rank %d is world %d, expected %d", what, i, got[i],
                   want[i]);
    free(got);
}

/* Isolation: on the parent, send to my comm-right neighbour's world rank with tag 7; on
 * the new comm, send to comm-right with tag 7 too. Receive on the new comm first with
 * wildcards: must get the new comm's message. Then the parent's. */
static void check_isolation(DFC_Comm parent, DFC_Comm comm, const char *what)
{
    int r = 0, n = 1, pr, pn;
    if (comm != DFC_COMM_NULL) { /* non-members take part on the parent only */
        DFC_Comm_rank(comm, &r);
        DFC_Comm_size(comm, &n);
    }
    DFC_Comm_rank(parent, &pr);
    DFC_Comm_size(parent, &pn);
    int right = (r + 1) % n, left = (r + n - 1) % n;
    int pright = (pr + 1) % pn, pleft = (pr + pn - 1) % pn;
    int pmsg[2] = {-1, -1}, cmsg[2] = {-1, -1}, pout[2] = {1, pr}, cout[2] = {2, r};
    DFC_Request rq[2];
    DFC_Status st;
    /* Parent message first; then make sure it has arrived before posting on comm, by a
     * zero-byte message behind it (non-overtaking on the parent). */
    DFCT_OK(DFC_Isend(pout, 2, DFC_INT, pright, 7, parent, &rq[0]));
    DFCT_OK(DFC_Isend(NULL, 0, DFC_INT, pright, 8, parent, &rq[1]));
    DFCT_OK(DFC_Probe(pleft, 8, parent, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Recv(NULL, 0, DFC_INT, pleft, 8, parent, DFC_STATUS_IGNORE));
    if (comm != DFC_COMM_NULL) {
        DFCT_OK(DFC_Sendrecv(cout, 2, DFC_INT, right, 7, cmsg, 2, DFC_INT, DFC_ANY_SOURCE,
                             DFC_ANY_TAG, comm, &st));
        DFCT_CHECK(cmsg[0] == 2 && cmsg[1] == left, "%s: comm receive got {%d,%d}, expected {2,%d}",
                   what, cmsg[0], cmsg[1], left);
        DFCT_CHECK(st.DFC_SOURCE == left && st.DFC_TAG == 7, "%s: comm status %d/%d", what,
                   st.DFC_SOURCE, st.DFC_TAG);
    }
    DFCT_OK(DFC_Recv(pmsg, 2, DFC_INT, DFC_ANY_SOURCE, 7, parent, &st));
    DFCT_CHECK(pmsg[0] == 1 && pmsg[1] == pleft, "%s: parent receive got {%d,%d}, expected {1,%d}",
               what, pmsg[0], pmsg[1], pleft);
    DFCT_OK(DFC_Waitall(2, rq, DFC_STATUSES_IGNORE));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &wrank);
    DFC_Comm_size(DFC_COMM_WORLD, &wsize);
    int *want = malloc(wsize * sizeof(int)), n;
    DFC_Comm c1, c2, c3, c4, c5;

    /* color rank%3, key -rank (reversed), the last rank UNDEFINED. */
    int color = wrank == wsize - 1 && wsize > 1 ? DFC_UNDEFINED : wrank % 3;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, color, -wrank, &c1));
    n = 0;
    if (color != DFC_UNDEFINED)
        for (int w = wsize - 1; w >= 0; w--)
            if (w % 3 == color && !(w == wsize - 1 && wsize > 1)) want[n++] = w;
    check_comm(c1, want, color == DFC_UNDEFINED ? 0 : n, "split(rank%3, -rank)");
    check_isolation(DFC_COMM_WORLD, c1, "split(rank%3, -rank)");

    /* Equal keys: parent order. Colors: first half / second half. */
    color = wrank < wsize / 2;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, color, 0, &c2));
    n = 0;
    for (int w = 0; w < wsize; w++)
        if ((w < wsize / 2) == color) want[n++] = w;
    check_comm(c2, want, n, "split(half, 0)");
    check_isolation(DFC_COMM_WORLD, c2, "split(half, 0)");

    /* One color, keys rank: same members and order as the parent. */
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, 5, wrank, &c3));
    for (int w = 0; w < wsize; w++) want[w] = w;
    check_comm(c3, want, wsize, "split(5, rank)");
    int result = -1;
    DFCT_OK(DFC_Comm_compare(DFC_COMM_WORLD, c3, &result));
    DFCT_CHECK(result == DFC_CONGRUENT,
               "split(5, rank) compared with WORLD: %d, expected CONGRUENT", result);
    check_isolation(DFC_COMM_WORLD, c3, "split(5, rank)");

    /* Keys with ties broken by parent rank: key rank/2, reversed by color. */
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, 0, (wsize - wrank) / 2, &c4));
    n = 0;
    for (int k = 0; k <= wsize; k++)
        for (int w = 0; w < wsize; w++)
            if ((wsize - w) / 2 == k) want[n++] = w;
    check_comm(c4, want, wsize, "split(0, (size-rank)/2)");

    /* Split of a split: c2 by its rank parity, reversed. */
    int r2, s2;
    DFC_Comm_rank(c2, &r2);
    DFC_Comm_size(c2, &s2);
    DFCT_OK(DFC_Comm_split(c2, r2 % 2, s2 - r2, &c5));
    {
        int all[64], m = 0;
        for (int w = 0; w < wsize; w++)
            if ((w < wsize / 2) == (wrank < wsize / 2)) all[m++] = w; /* c2's members */
        n = 0;
        for (int i = m - 1; i >= 0; i--)
            if (i % 2 == r2 % 2) want[n++] = all[i];
        check_comm(c5, want, n, "split of a split");
        check_isolation(c2, c5, "split of a split");
    }

    /* All UNDEFINED: everyone gets COMM_NULL. */
    DFC_Comm cn = DFC_COMM_WORLD;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, DFC_UNDEFINED, wrank, &cn));
    DFCT_CHECK(cn == DFC_COMM_NULL, "split(UNDEFINED) gave 0x%x", cn);

    /* Splits of COMM_SELF. */
    DFC_Comm cs;
    DFCT_OK(DFC_Comm_split(DFC_COMM_SELF, 3, 0, &cs));
    want[0] = wrank;
    check_comm(cs, want, 1, "split of COMM_SELF");

    DFC_Comm *all[] = {&c1, &c2, &c3, &c4, &c5, &cs};
    for (int i = 5; i >= 0; i--)
        if (*all[i] != DFC_COMM_NULL) {
            DFCT_OK(DFC_Comm_free(all[i]));
            DFCT_CHECK(*all[i] == DFC_COMM_NULL, "Comm_free did not set COMM_NULL");
        }
    free(want);
    return dfct_finalize();
}
