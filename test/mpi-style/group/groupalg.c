/*
 * groupalg - the group algebra on DFC_COMM_WORLD's group, at any number of processes:
 * incl, excl, range_incl and range_excl (negative strides included), union, intersection
 * and difference, each result checked member by member (as world ranks, through
 * translate_ranks into the world group) and by the calling process's own rank in it.
 * Empty results must be DFC_GROUP_EMPTY itself, as in MPICH; freeing DFC_GROUP_EMPTY is
 * allowed (MPI-4.1) and leaves it usable. A final loop builds random subsets, the same on
 * every process, and checks every operation on them against lists computed here.
 */
#include "../dfctest.h"

static int world_size, world_rank;
static DFC_Group world_group;

/* Checks that g has exactly the world ranks expected[0..n) in that order, that the own rank
 * matches, and, when n is 0, that g is DFC_GROUP_EMPTY. */
static void check_members(DFC_Group g, const int *expected, int n, const char *what)
{
    int size = -1, rank = -2, members[64], all[64];
    DFCT_OK(DFC_Group_size(g, &size));
    DFCT_CHECK(size == n, "%s: size %d, expected %d", what, size, n);
    if (size != n) return;
    if (n == 0) DFCT_CHECK(g == DFC_GROUP_EMPTY, "%s: empty result is not DFC_GROUP_EMPTY", what);
    for (int i = 0; i < n; i++) all[i] = i;
    DFCT_OK(DFC_Group_translate_ranks(g, n, all, world_group, members));
    int my_rank = DFC_UNDEFINED;
    for (int i = 0; i < n; i++) {
        DFCT_CHECK(members[i] == expected[i], "%s: member %d is world rank %d, expected %d", what,
                   i, members[i], expected[i]);
        if (expected[i] == world_rank) my_rank = i;
    }
    DFCT_OK(DFC_Group_rank(g, &rank));
    DFCT_CHECK(rank == my_rank, "%s: own rank %d, expected %d", what, rank, my_rank);
}

static void free_group(DFC_Group *g)
{
    DFCT_OK(DFC_Group_free(g));
    DFCT_CHECK(*g == DFC_GROUP_NULL, "Group_free did not set the handle to DFC_GROUP_NULL");
}

static void fixed_cases(void)
{
    int n = world_size, ranks[64], expect[64], m;
    DFC_Group g, odds, evens;

    /* incl in reverse order */
    for (int i = 0; i < n; i++) ranks[i] = expect[i] = n - 1 - i;
    DFCT_OK(DFC_Group_incl(world_group, n, ranks, &g));
    check_members(g, expect, n, "incl reversed");
    int cmp = -1;
    DFCT_OK(DFC_Group_compare(world_group, g, &cmp));
    DFCT_CHECK(cmp == (n > 1 ? DFC_SIMILAR : DFC_IDENT), "compare(world, reversed) = %d", cmp);
    /* intersection keeps the order of group1 */
    DFC_Group inter;
    DFCT_OK(DFC_Group_intersection(world_group, g, &inter));
    DFCT_OK(DFC_Group_compare(world_group, inter, &cmp));
    DFCT_CHECK(cmp == DFC_IDENT, "intersection(world, reversed) is %d, not IDENT", cmp);
    free_group(&inter);
    free_group(&g);

    /* excl of the even ranks leaves the odd ones; range_excl of the odd ones the even ones */
    m = 0;
    for (int i = 0; i < n; i += 2) ranks[m++] = i;
    DFCT_OK(DFC_Group_excl(world_group, m, ranks, &odds));
    m = 0;
    for (int i = 1; i < n; i += 2) expect[m++] = i;
    check_members(odds, expect, m, "excl evens");

    int odd_ranges[1][3] = {{1, n - 1, 2}};
    DFCT_OK(DFC_Group_range_excl(world_group, n > 1 ? 1 : 0, odd_ranges, &evens));
    m = 0;
    for (int i = 0; i < n; i += 2) expect[m++] = i;
    check_members(evens, expect, m, "range_excl odds");

    /* union: group1's members, then group2's new ones in group2's order */
    DFCT_OK(DFC_Group_union(odds, evens, &g));
    m = 0;
    for (int i = 1; i < n; i += 2) expect[m++] = i;
    for (int i = 0; i < n; i += 2) expect[m++] = i;
    check_members(g, expect, m, "union(odds, evens)");
    free_group(&g);

    /* difference: world minus odds = evens, in world order */
    DFCT_OK(DFC_Group_difference(world_group, odds, &g));
    DFCT_OK(DFC_Group_compare(g, evens, &cmp));
    DFCT_CHECK(cmp == DFC_IDENT, "difference(world, odds) vs evens: %d", cmp);
    free_group(&g);

    /* Empty results are DFC_GROUP_EMPTY. */
    DFCT_OK(DFC_Group_intersection(odds, evens, &g));
    check_members(g, NULL, 0, "intersection(odds, evens)");
    DFCT_OK(DFC_Group_difference(world_group, world_group, &g));
    check_members(g, NULL, 0, "difference(world, world)");
    DFCT_OK(DFC_Group_incl(world_group, 0, NULL, &g));
    check_members(g, NULL, 0, "incl of nothing");
    DFCT_OK(DFC_Group_excl(world_group, 0, NULL, &g));
    for (int i = 0; i < n; i++) expect[i] = i;
    check_members(g, expect, n, "excl of nothing");
    free_group(&g);
    int all_ranges[1][3] = {{0, n - 1, 1}};
    DFCT_OK(DFC_Group_range_excl(world_group, 1, all_ranges, &g));
    check_members(g, NULL, 0, "range_excl of everything");
    DFCT_OK(DFC_Group_union(g, world_group, &g));
    DFCT_OK(DFC_Group_compare(g, world_group, &cmp));
    DFCT_CHECK(cmp == DFC_IDENT, "union(empty, world) is %d, not IDENT", cmp);
    free_group(&g);

    /* range_incl: downwards by 2 from the top, then upwards by 2 over the ranks left */
    int ranges[2][3] = {{n - 1, 0, -2}, {n % 2 == 0 ? 0 : 1, n - 2, 2}};
    int nr = n >= 2 ? 2 : 1;
    m = 0;
    for (int r = n - 1; r >= 0; r -= 2) expect[m++] = r;
    for (int r = n % 2 == 0 ? 0 : 1; nr == 2 && r <= n - 2; r += 2) expect[m++] = r;
    DFCT_OK(DFC_Group_range_incl(world_group, nr, ranges, &g));
    check_members(g, expect, m, "range_incl");
    free_group(&g);

    free_group(&odds);
    free_group(&evens);

    /* Freeing DFC_GROUP_EMPTY is allowed and leaves it valid. */
    g = DFC_GROUP_EMPTY;
    free_group(&g);
    int size = -1;
    DFCT_OK(DFC_Group_size(DFC_GROUP_EMPTY, &size));
    DFCT_CHECK(size == 0, "DFC_GROUP_EMPTY has size %d after a free", size);
}

/* Random subsets in random orders, the same on every process (same seed). */
static void random_cases(void)
{
    unsigned seed = 12345;
    int n = world_size;
    for (int iter = 0; iter < 50; iter++) {
        int perm[64], a[64], b[64], na, nb, expect[64], m;
        for (int i = 0; i < n; i++) perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(dfct_rand(&seed) % (unsigned)(i + 1)), t = perm[i];
            perm[i] = perm[j], perm[j] = t;
        }
        na = (int)(dfct_rand(&seed) % (unsigned)(n + 1));
        memcpy(a, perm, sizeof(int) * (size_t)na);
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(dfct_rand(&seed) % (unsigned)(i + 1)), t = perm[i];
            perm[i] = perm[j], perm[j] = t;
        }
        nb = (int)(dfct_rand(&seed) % (unsigned)(n + 1));
        memcpy(b, perm, sizeof(int) * (size_t)nb);

        DFC_Group ga, gb, g;
        DFCT_OK(DFC_Group_incl(world_group, na, a, &ga));
        DFCT_OK(DFC_Group_incl(world_group, nb, b, &gb));
        check_members(ga, a, na, "random incl");

        m = 0;
        for (int i = 0; i < na; i++) expect[m++] = a[i];
        for (int j = 0; j < nb; j++) {
            int found = 0;
            for (int i = 0; i < na; i++) found |= a[i] == b[j];
            if (!found) expect[m++] = b[j];
        }
        DFCT_OK(DFC_Group_union(ga, gb, &g));
        check_members(g, expect, m, "random union");
        if (g != DFC_GROUP_EMPTY) free_group(&g);

        for (int keep = 0; keep < 2; keep++) { /* keep=1: intersection, 0: difference */
            m = 0;
            for (int i = 0; i < na; i++) {
                int found = 0;
                for (int j = 0; j < nb; j++) found |= a[i] == b[j];
                if (found == keep) expect[m++] = a[i];
            }
            if (keep) DFCT_OK(DFC_Group_intersection(ga, gb, &g));
            else DFCT_OK(DFC_Group_difference(ga, gb, &g));
            check_members(g, expect, m, keep ? "random intersection" : "random difference");
            if (g != DFC_GROUP_EMPTY) free_group(&g);
        }

        /* excl of a's ranks from the world, in world order */
        m = 0;
        for (int r = 0; r < n; r++) {
            int found = 0;
            for (int i = 0; i < na; i++) found |= a[i] == r;
            if (!found) expect[m++] = r;
        }
        DFCT_OK(DFC_Group_excl(world_group, na, a, &g));
        check_members(g, expect, m, "random excl");
        if (g != DFC_GROUP_EMPTY) free_group(&g);

        if (ga != DFC_GROUP_EMPTY) free_group(&ga);
        if (gb != DFC_GROUP_EMPTY) free_group(&gb);
    }
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_size(DFC_COMM_WORLD, &world_size);
    DFC_Comm_rank(DFC_COMM_WORLD, &world_rank);
    if (world_size > 64) {
        fprintf(stderr, "groupalg handles at most 64 processes\n");
        DFC_Abort(DFC_COMM_WORLD, 1);
    }
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &world_group));
    int rank = -1;
    DFCT_OK(DFC_Group_rank(world_group, &rank));
    DFCT_CHECK(rank == world_rank, "world group rank %d, comm rank %d", rank, world_rank);

    fixed_cases();
    random_cases();

    DFCT_OK(DFC_Group_free(&world_group));
    return dfct_finalize();
}
