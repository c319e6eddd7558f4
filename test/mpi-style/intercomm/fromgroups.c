/*
 * fromgroups - DFC_Intercomm_create_from_groups (MPI-4.0): groups from DFC_COMM_WORLD (world
 * ranks with rank % 3 == 0 form group A, the others B; 4 ranks: 2+2, 5: 2+3, 2: 1+1), one
 * intercommunicator per string tag. Checked: Comm_test_inter, local and remote sizes and
 * groups (translated to world ranks), the error handler given, point-to-point between every
 * pair across the groups, Allreduce and Ialltoall on it (element by element, poisoned
 * outputs), two intercommunicators with different string tags apart. Bad input: overlapping
 * groups, a caller outside local_group, an empty remote group, a bad local_leader, a NULL
 * stringtag, a bad error handler.
 */
#include "intertest.h"

static int wrank, wsize, in_a, lsize, lrank, rsize;
static int aw[64], bw[64], na, nb;

static int val(int w, int d, int k) { return w * 100000 + d * 1000 + k; }
static int rw(int j) { return in_a ? bw[j] : aw[j]; }

/* The shape (intertest.h), and the error handler given at creation. */
static void check_shape(DFC_Comm ic, DFC_Group wg)
{
    DFC_Errhandler eh;
    intert_check_shape(ic, wg, lsize, lrank, rsize, in_a ? bw : aw);
    DFCT_OK(DFC_Comm_get_errhandler(ic, &eh));
    DFCT_CHECK(eh == DFC_ERRORS_RETURN, "error handler %d, expected DFC_ERRORS_RETURN", (int)eh);
    if (eh != DFC_ERRORS_RETURN) DFC_Errhandler_free(&eh);
}

/* A message to and from every remote rank, then an Allreduce and an Ialltoall. */
static void check_traffic(DFC_Comm ic, int d)
{
    int s[64], r[64], ar = -1, sum = 0, sa[64], ra[65];
    DFC_Request q[128];
    for (int j = 0; j < rsize; j++) s[j] = val(wrank, d, j), r[j] = -1;
    for (int j = 0; j < rsize; j++) DFCT_OK(DFC_Irecv(&r[j], 1, DFC_INT, j, d, ic, &q[j]));
    for (int j = 0; j < rsize; j++) DFCT_OK(DFC_Isend(&s[j], 1, DFC_INT, j, d, ic, &q[rsize + j]));
    DFCT_OK(DFC_Waitall(2 * rsize, q, DFC_STATUSES_IGNORE));
    int me = -1;
    DFCT_OK(DFC_Comm_rank(ic, &me));
    for (int j = 0; j < rsize; j++)
        DFCT_CHECK(r[j] == val(rw(j), d, me), "p2p from %d: %d, expected %d", j, r[j],
                   val(rw(j), d, me));
    DFCT_OK(DFC_Allreduce(&wrank, &ar, 1, DFC_INT, DFC_SUM, ic));
    for (int j = 0; j < rsize; j++) sum += rw(j);
    DFCT_CHECK(ar == sum, "Allreduce %d, expected %d", ar, sum);
    for (int j = 0; j < rsize; j++) sa[j] = val(wrank, d + 1, j);
    for (int j = 0; j <= rsize; j++) ra[j] = -1;
    DFCT_OK(DFC_Ialltoall(sa, 1, DFC_INT, ra, 1, DFC_INT, ic, &q[0]));
    DFCT_OK(DFC_Wait(&q[0], DFC_STATUS_IGNORE));
    for (int j = 0; j <= rsize; j++) {
        int want = j < rsize ? val(rw(j), d + 1, me) : -1;
        DFCT_CHECK(ra[j] == want, "Ialltoall block %d: %d, expected %d", j, ra[j], want);
    }
}

static void check_errors(DFC_Group lg, DFC_Group rg, DFC_Group wg)
{
    DFC_Comm bad = 5;
    DFC_Group none;
    DFCT_FAILS(DFC_Intercomm_create_from_groups(lg, 0, wg, 0, "x", DFC_INFO_NULL, DFC_ERRORS_RETURN,
                                                &bad),
               DFC_ERR_GROUP, "overlap");
    DFCT_FAILS(DFC_Intercomm_create_from_groups(rg, 0, lg, 0, "x", DFC_INFO_NULL, DFC_ERRORS_RETURN,
                                                &bad),
               DFC_ERR_GROUP, "not a member");
    DFCT_OK(DFC_Group_difference(rg, rg, &none));
    DFCT_FAILS(DFC_Intercomm_create_from_groups(lg, 0, none, 0, "x", DFC_INFO_NULL,
                                                DFC_ERRORS_RETURN, &bad),
               DFC_ERR_GROUP, "empty");
    DFCT_FAILS(DFC_Intercomm_create_from_groups(lg, lsize, rg, 0, "x", DFC_INFO_NULL,
                                                DFC_ERRORS_RETURN, &bad),
               DFC_ERR_RANK, "local_leader");
    DFCT_FAILS(DFC_Intercomm_create_from_groups(lg, 0, rg, 0, NULL, DFC_INFO_NULL,
                                                DFC_ERRORS_RETURN, &bad),
               DFC_ERR_ARG, "stringtag");
    DFCT_FAILS(DFC_Intercomm_create_from_groups(lg, 0, rg, 0, "x", DFC_INFO_NULL, 12345, &bad),
               DFC_ERR_ERRHANDLER, "errhandler");
    DFCT_CHECK(bad == 5, "newintercomm written on failure");
    DFCT_OK(DFC_Group_free(&none));
}

int main(int argc, char **argv)
{
    DFC_Group wg, lg, rg;
    DFC_Comm ic, ic2;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &wrank);
    DFC_Comm_size(DFC_COMM_WORLD, &wsize);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    if (wsize < 2 || wsize > 64) return dfct_finalize(); /* two groups needed */
    for (int w = 0; w < wsize; w++) {
        if (w == wrank) lrank = w % 3 == 0 ? na : nb; /* in group order */
        if (w % 3 == 0) aw[na++] = w;
        else bw[nb++] = w;
    }
    in_a = wrank % 3 == 0;
    lsize = in_a ? na : nb;
    rsize = in_a ? nb : na;
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &wg));
    DFCT_OK(DFC_Group_incl(wg, lsize, in_a ? aw : bw, &lg));
    DFCT_OK(DFC_Group_incl(wg, rsize, in_a ? bw : aw, &rg));
    /* Leaders: the last process of each group (any rank will do; nothing is exchanged). */
    DFCT_OK(DFC_Intercomm_create_from_groups(lg, lsize - 1, rg, rsize - 1, "fromgroups-1",
                                             DFC_INFO_NULL, DFC_ERRORS_RETURN, &ic));
    DFCT_OK(DFC_Intercomm_create_from_groups(lg, 0, rg, 0, "fromgroups-2", DFC_INFO_NULL,
                                             DFC_ERRORS_RETURN, &ic2));
    check_shape(ic, wg);
    check_shape(ic2, wg);
    check_traffic(ic2, 20);
    check_traffic(ic, 10);
    check_errors(lg, rg, wg);
    DFCT_OK(DFC_Comm_free(&ic));
    DFCT_OK(DFC_Comm_free(&ic2));
    DFCT_OK(DFC_Group_free(&lg));
    DFCT_OK(DFC_Group_free(&rg));
    DFCT_OK(DFC_Group_free(&wg));
    return dfct_finalize();
}
