/*
 * create - DFC_Comm_create and DFC_Comm_create_group.
 *
 * Comm_create (collective over the parent) with: the first half of the ranks; the odd
 * ranks in reverse order (new ranks follow the group's order); the whole group
 * (congruent with the parent); DFC_GROUP_EMPTY (everyone gets DFC_COMM_NULL); disjoint
 * groups in one call (the even and the odd ranks each pass their own, as MPI-2.2 allows).
 * Comm_create_group (collective over the group only) called by the odd ranks alone, while
 * the even ranks build their own with the same tag at the same time; and a create_group
 * of a communicator made by create. Every new communicator's size, rank, members and
 * traffic (a checked ring exchange) are verified.
 */
#include "../dfctest.h"

static int wrank, wsize;

static void check_comm(DFC_Comm comm, const int *want, int n, const char *what)
{
    int me = -1, r = -1, s = -1;
    for (int i = 0; i < n; i++)
        if (want[i] == wrank) me = i;
    if (me < 0) {
        DFCT_CHECK(comm == DFC_COMM_NULL, "%s: a non-member got a communicator", what);
        return;
    }
    if (comm == DFC_COMM_NULL) {
        DFCT_CHECK(0, "%s: a member got DFC_COMM_NULL", what);
        return;
    }
    DFCT_OK(DFC_Comm_size(comm, &s));
    DFCT_OK(DFC_Comm_rank(comm, &r));
    DFCT_CHECK(s == n && r == me, "%s: size %d rank %d, expected %d and %d", what, s, r, n, me);
    if (s != n || r != me) return;
    /* Ring exchange of world ranks: left neighbour's must be want[me-1]. */
    int right = (r + 1) % n, left = (r + n - 1) % n, got[2] = {-1, -1}, out[2] = {wrank, 12345};
    DFC_Status st;
    DFCT_OK(DFC_Sendrecv(out, 2, DFC_INT, right, 0, got, 2, DFC_INT, left, 0, comm, &st));
    DFCT_CHECK(got[0] == want[left] && got[1] == 12345 && st.DFC_SOURCE == left,
               "%s: left neighbour is world %d (source %d), expected %d", what, got[0],
               st.DFC_SOURCE, want[left]);
    /* Also the group of the communicator. */
    DFC_Group g;
    int gs = -1, gr = -1;
    DFCT_OK(DFC_Comm_group(comm, &g));
    DFCT_OK(DFC_Group_size(g, &gs));
    DFCT_OK(DFC_Group_rank(g, &gr));
    DFCT_CHECK(gs == n && gr == me, "%s: its group has size %d rank %d", what, gs, gr);
    DFCT_OK(DFC_Group_free(&g));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &wrank);
    DFC_Comm_size(DFC_COMM_WORLD, &wsize);
    DFC_Group world_group, g;
    DFC_Comm c;
    int *ranks = malloc(wsize * sizeof(int)), n, result;
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &world_group));

    /* First half (at least rank 0). */
    n = (wsize + 1) / 2;
    for (int i = 0; i < n; i++) ranks[i] = i;
    DFCT_OK(DFC_Group_incl(world_group, n, ranks, &g));
    DFCT_OK(DFC_Comm_create(DFC_COMM_WORLD, g, &c));
    check_comm(c, ranks, n, "create(first half)");
    if (c != DFC_COMM_NULL) DFCT_OK(DFC_Comm_free(&c));
    DFCT_OK(DFC_Group_free(&g));

    /* Odd ranks, reversed. */
    n = 0;
    for (int w = wsize - 1; w >= 0; w--)
        if (w % 2) ranks[n++] = w;
    DFCT_OK(DFC_Group_incl(world_group, n, ranks, &g));
    DFCT_OK(DFC_Comm_create(DFC_COMM_WORLD, g, &c));
    check_comm(c, ranks, n, "create(odd ranks reversed)");
    DFC_Comm odd_rev = c;
    DFCT_OK(DFC_Group_free(&g));

    /* Disjoint groups in one call (MPI-2.2; mpi4py builds an intercommunicator's local
     * communicator so): the even ranks pass theirs, the odd ranks theirs, reversed. Each must
     * get a communicator of its own group only (it once got one of all ranks). */
    n = 0;
    for (int k = 0; k < wsize; k++) {
        int w = wrank % 2 ? wsize - 1 - k : k;
        if (w % 2 == wrank % 2) ranks[n++] = w;
    }
    DFCT_OK(DFC_Group_incl(world_group, n, ranks, &g));
    DFCT_OK(DFC_Comm_create(DFC_COMM_WORLD, g, &c));
    check_comm(c, ranks, n,
               wrank % 2 ? "create(odd half, disjoint)" : "create(even half, disjoint)");
    if (c != DFC_COMM_NULL) DFCT_OK(DFC_Comm_free(&c));
    DFCT_OK(DFC_Group_free(&g));

    /* The whole group. */
    for (int i = 0; i < wsize; i++) ranks[i] = i;
    DFCT_OK(DFC_Comm_create(DFC_COMM_WORLD, world_group, &c));
    check_comm(c, ranks, wsize, "create(whole group)");
    DFCT_OK(DFC_Comm_compare(DFC_COMM_WORLD, c, &result));
    DFCT_CHECK(result == DFC_CONGRUENT, "create(whole group) compared with WORLD: %d", result);
    DFC_Comm whole = c;

    /* The empty group. */
    c = DFC_COMM_WORLD;
    DFCT_OK(DFC_Comm_create(DFC_COMM_WORLD, DFC_GROUP_EMPTY, &c));
    DFCT_CHECK(c == DFC_COMM_NULL, "create(GROUP_EMPTY) gave 0x%x", c);
    /* An empty group made by exclusion. */
    DFCT_OK(DFC_Group_excl(world_group, wsize, ranks, &g));
    c = DFC_COMM_WORLD;
    DFCT_OK(DFC_Comm_create(whole, g, &c));
    DFCT_CHECK(c == DFC_COMM_NULL, "create(an empty group) gave 0x%x", c);
    DFCT_OK(DFC_Group_free(&g));

    /* create_group: odd ranks alone, even ranks alone, same tag, concurrently. */
    n = 0;
    for (int w = wrank % 2; w < wsize; w += 2) ranks[n++] = w;
    DFCT_OK(DFC_Group_incl(world_group, n, ranks, &g));
    DFCT_OK(DFC_Comm_create_group(DFC_COMM_WORLD, g, 7, &c));
    check_comm(c, ranks, n, wrank % 2 ? "create_group(odd ranks)" : "create_group(even ranks)");
    DFCT_OK(DFC_Group_free(&g));
    if (c != DFC_COMM_NULL) DFCT_OK(DFC_Comm_free(&c));

    /* create_group by the odd ranks only, while the even ranks exchange on WORLD. */
    if (wrank % 2) {
        n = 0;
        for (int w = 1; w < wsize; w += 2) ranks[n++] = w;
        DFCT_OK(DFC_Group_incl(world_group, n, ranks, &g));
        DFCT_OK(DFC_Comm_create_group(DFC_COMM_WORLD, g, 1, &c));
        check_comm(c, ranks, n, "create_group(odd ranks only)");
        DFCT_OK(DFC_Group_free(&g));
        /* And a create_group of that communicator: its first two ranks. */
        if (n >= 2) {
            DFC_Group cg, sub;
            int two[2] = {0, 1};
            DFCT_OK(DFC_Comm_group(c, &cg));
            DFCT_OK(DFC_Group_incl(cg, 2, two, &sub));
            int cr;
            DFCT_OK(DFC_Comm_rank(c, &cr));
            if (cr < 2) {
                DFC_Comm c2;
                DFCT_OK(DFC_Comm_create_group(c, sub, 0, &c2));
                int want2[2] = {ranks[0], ranks[1]};
                check_comm(c2, want2, 2, "create_group of a create_group");
                DFCT_OK(DFC_Comm_free(&c2));
            }
            DFCT_OK(DFC_Group_free(&sub));
            DFCT_OK(DFC_Group_free(&cg));
        }
        DFCT_OK(DFC_Comm_free(&c));
    } else {
        /* A ring over the even ranks. */
        int neven = (wsize + 1) / 2, x = wrank, y = -1;
        int peer = ((wrank / 2 + 1) % neven) * 2, from = ((wrank / 2 + neven - 1) % neven) * 2;
        DFCT_OK(DFC_Sendrecv(&x, 1, DFC_INT, peer, 1, &y, 1, DFC_INT, from, 1, DFC_COMM_WORLD,
                             DFC_STATUS_IGNORE));
        DFCT_CHECK(y == from, "even ranks' exchange during create_group: got %d from %d", y, from);
    }

    if (odd_rev != DFC_COMM_NULL) DFCT_OK(DFC_Comm_free(&odd_rev));
    DFCT_OK(DFC_Comm_free(&whole));
    DFCT_OK(DFC_Group_free(&world_group));
    free(ranks);
    return dfct_finalize();
}
