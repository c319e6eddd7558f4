/*
 * dup - DFC_Comm_dup and DFC_Comm_dup_with_info, DFC_Comm_compare, names and info.
 *
 * A duplicate has the parent's group in the parent's order (CONGRUENT) and its own
 * context: messages on one are never received on the other. Comm_compare gives IDENT for
 * a communicator with itself, CONGRUENT for a duplicate, SIMILAR for the same members in
 * another order, UNEQUAL for other members. dup_with_info with dfc_priority shows the
 * hint in Comm_get_info, a dup of that keeps it (MPI-4.1: dup copies the hints), an
 * explicit info replaces it. Names: WORLD and SELF have their predefined names, a new
 * communicator has "", set_name/get_name round-trip, a dup does not inherit the name.
 */
#include "../dfctest.h"

static int rank, size;

/* The value of `key` in comm's info (set *found). */
static void info_value(DFC_Comm comm, const char *key, char *val, int *found)
{
    DFC_Info info = DFC_INFO_NULL;
    *found = 0;
    val[0] = 0;
    DFCT_OK(DFC_Comm_get_info(comm, &info));
    DFCT_CHECK(info != DFC_INFO_NULL, "Comm_get_info gave DFC_INFO_NULL");
    if (info == DFC_INFO_NULL) return;
    DFCT_OK(DFC_Info_get(info, key, DFC_MAX_INFO_VAL - 1, val, found));
    DFCT_OK(DFC_Info_free(&info));
    DFCT_CHECK(info == DFC_INFO_NULL, "Info_free did not null the handle");
}

/* Messages on a and b with the same (source, tag) go each to its own communicator. */
static void check_isolation(DFC_Comm a, DFC_Comm b, const char *what)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, x = -1, y = -1, one = 1,
        two = 2;
    DFC_Request r[3];
    DFCT_OK(DFC_Isend(&one, 1, DFC_INT, right, 3, a, &r[0]));
    DFCT_OK(DFC_Isend(&two, 1, DFC_INT, right, 3, b, &r[1]));
    DFCT_OK(DFC_Recv(&y, 1, DFC_INT, DFC_ANY_SOURCE, DFC_ANY_TAG, b, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Recv(&x, 1, DFC_INT, left, 3, a, DFC_STATUS_IGNORE));
    DFCT_CHECK(x == 1 && y == 2, "%s: got %d on the first and %d on the second, expected 1 and 2",
               what, x, y);
    DFCT_OK(DFC_Waitall(2, r, DFC_STATUSES_IGNORE));
}

static void check_name(DFC_Comm c, const char *want, const char *what)
{
    char name[DFC_MAX_OBJECT_NAME];
    int len = -1;
    memset(name, 'x', sizeof name);
    DFCT_OK(DFC_Comm_get_name(c, name, &len));
    DFCT_CHECK(!strcmp(name, want) && len == (int)strlen(want),
               "%s: name \"%.*s\" (len %d), expected \"%s\"", what, DFC_MAX_OBJECT_NAME - 1, name,
               len, want);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    int result, r = -1, s = -1;
    DFC_Comm d1, d2, d3, d4, rev, sub;

    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &d1));
    DFCT_OK(DFC_Comm_rank(d1, &r));
    DFCT_OK(DFC_Comm_size(d1, &s));
    DFCT_CHECK(r == rank && s == size, "dup: rank %d size %d", r, s);
    DFCT_CHECK(d1 != DFC_COMM_WORLD && d1 != DFC_COMM_NULL, "dup returned 0x%x", d1);
    check_isolation(DFC_COMM_WORLD, d1, "WORLD and its dup");

    /* Comparisons. */
    DFCT_OK(DFC_Comm_compare(DFC_COMM_WORLD, DFC_COMM_WORLD, &result));
    DFCT_CHECK(result == DFC_IDENT, "compare(WORLD, WORLD) = %d", result);
    DFCT_OK(DFC_Comm_compare(d1, d1, &result));
    DFCT_CHECK(result == DFC_IDENT, "compare(dup, dup) = %d", result);
    DFCT_OK(DFC_Comm_compare(DFC_COMM_WORLD, d1, &result));
    DFCT_CHECK(result == DFC_CONGRUENT, "compare(WORLD, dup) = %d", result);
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, 0, size - rank, &rev));
    DFCT_OK(DFC_Comm_compare(DFC_COMM_WORLD, rev, &result));
    DFCT_CHECK(result == (size > 1 ? DFC_SIMILAR : DFC_CONGRUENT), "compare(WORLD, reversed) = %d",
               result);
    DFCT_OK(DFC_Comm_compare(rev, d1, &result));
    DFCT_CHECK(result == (size > 1 ? DFC_SIMILAR : DFC_CONGRUENT), "compare(reversed, dup) = %d",
               result);
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, rank == 0, rank, &sub));
    DFCT_OK(DFC_Comm_compare(DFC_COMM_WORLD, sub, &result));
    DFCT_CHECK(result == (size > 1 ? DFC_UNEQUAL : DFC_CONGRUENT), "compare(WORLD, subset) = %d",
               result);
    DFCT_OK(DFC_Comm_compare(DFC_COMM_SELF, DFC_COMM_WORLD, &result));
    DFCT_CHECK(result == (size > 1 ? DFC_UNEQUAL : DFC_CONGRUENT), "compare(SELF, WORLD) = %d",
               result);
    DFCT_OK(DFC_Comm_compare(DFC_COMM_SELF, DFC_COMM_SELF, &result));
    DFCT_CHECK(result == DFC_IDENT, "compare(SELF, SELF) = %d", result);

    /* Dup of a dup, and of a reordered communicator (keeps its order). */
    DFCT_OK(DFC_Comm_dup(d1, &d2));
    DFCT_OK(DFC_Comm_compare(d1, d2, &result));
    DFCT_CHECK(result == DFC_CONGRUENT, "compare(dup, dup of dup) = %d", result);
    check_isolation(d1, d2, "a dup and its dup");
    DFC_Comm drev;
    DFCT_OK(DFC_Comm_dup(rev, &drev));
    DFCT_OK(DFC_Comm_rank(drev, &r));
    DFCT_CHECK(r == size - 1 - rank, "dup of the reversed comm: rank %d, expected %d", r,
               size - 1 - rank);
    DFCT_OK(DFC_Comm_compare(rev, drev, &result));
    DFCT_CHECK(result == DFC_CONGRUENT, "compare(reversed, its dup) = %d", result);

    /* Names. */
    check_name(DFC_COMM_WORLD, "DFC_COMM_WORLD", "WORLD");
    check_name(DFC_COMM_SELF, "DFC_COMM_SELF", "SELF");
    check_name(d1, "", "a new dup");
    DFCT_OK(DFC_Comm_set_name(d1, "my dup"));
    check_name(d1, "my dup", "after set_name");
    DFCT_OK(DFC_Comm_set_name(d1, "renamed"));
    check_name(d1, "renamed", "after a second set_name");
    DFCT_OK(DFC_Comm_dup(d1, &d3));
    check_name(d3, "", "dup of a named comm");
    {
        char longname[DFC_MAX_OBJECT_NAME + 40], want[DFC_MAX_OBJECT_NAME];
        memset(longname, 'n', sizeof longname - 1);
        longname[sizeof longname - 1] = 0;
        memset(want, 'n', sizeof want - 1);
        want[sizeof want - 1] = 0;
        DFCT_OK(DFC_Comm_set_name(d3, longname));
        check_name(d3, want, "an over-long name (truncated)");
    }
    DFCT_OK(DFC_Comm_set_name(DFC_COMM_WORLD, "world renamed"));
    check_name(DFC_COMM_WORLD, "world renamed", "WORLD renamed");
    DFCT_OK(DFC_Comm_set_name(DFC_COMM_WORLD, "DFC_COMM_WORLD"));

    /* Info hints: dfc_priority. */
    DFC_Info info;
    char val[DFC_MAX_INFO_VAL];
    int found;
    DFCT_OK(DFC_Info_create(&info));
    DFCT_OK(DFC_Info_set(info, "dfc_priority", "5"));
    DFCT_OK(DFC_Comm_dup_with_info(DFC_COMM_WORLD, info, &d4));
    DFCT_OK(DFC_Info_free(&info)); /* the communicator keeps its own copy */
    DFCT_OK(DFC_Comm_compare(DFC_COMM_WORLD, d4, &result));
    DFCT_CHECK(result == DFC_CONGRUENT, "compare(WORLD, dup_with_info) = %d", result);
    check_isolation(d1, d4, "a dup and a dup_with_info");
    info_value(d4, "dfc_priority", val, &found);
    DFCT_CHECK(found && !strcmp(val, "5"), "dup_with_info: dfc_priority found %d value \"%s\"",
               found, val);
    DFC_Comm d5, d6;
    DFCT_OK(DFC_Comm_dup(d4, &d5));
    info_value(d5, "dfc_priority", val, &found);
    DFCT_CHECK(found && !strcmp(val, "5"), "dup of a comm with dfc_priority: found %d value \"%s\"",
               found, val);
    DFCT_OK(DFC_Info_create(&info));
    DFCT_OK(DFC_Info_set(info, "dfc_priority", "-2"));
    DFCT_OK(DFC_Comm_dup_with_info(d4, info, &d6));
    info_value(d6, "dfc_priority", val, &found);
    DFCT_CHECK(found && !strcmp(val, "-2"), "dup_with_info over a priority: found %d value \"%s\"",
               found, val);
    /* set_info on an existing comm. */
    DFCT_OK(DFC_Info_set(info, "dfc_priority", "7"));
    DFCT_OK(DFC_Comm_set_info(d1, info));
    DFCT_OK(DFC_Info_free(&info));
    info_value(d1, "dfc_priority", val, &found);
    DFCT_CHECK(found && !strcmp(val, "7"), "Comm_set_info: found %d value \"%s\"", found, val);
    /* WORLD's info can be read; dup_with_info(INFO_NULL) works. */
    info_value(DFC_COMM_WORLD, "dfc_no_such_key", val, &found);
    DFCT_CHECK(!found, "WORLD's info has dfc_no_such_key");
    DFC_Comm d7;
    DFCT_OK(DFC_Comm_dup_with_info(DFC_COMM_WORLD, DFC_INFO_NULL, &d7));
    check_isolation(d7, DFC_COMM_WORLD, "dup_with_info(INFO_NULL) and WORLD");

    /* Free in an order other than creation. */
    DFC_Comm *all[] = {&d2, &d5, &d1, &d7, &d3, &rev, &drev, &d6, &d4, &sub};
    for (int i = 0; i < (int)(sizeof all / sizeof *all); i++) {
        DFCT_OK(DFC_Comm_free(all[i]));
        DFCT_CHECK(*all[i] == DFC_COMM_NULL, "Comm_free did not set COMM_NULL");
    }
    /* Many dups alive at once, then freed. */
    DFC_Comm many[64];
    for (int i = 0; i < 64; i++)
        DFCT_OK(DFC_Comm_dup(i % 2 ? many[i - 1] : DFC_COMM_WORLD, &many[i]));
    check_isolation(many[62], many[63], "the last two of 64 dups");
    for (int i = 63; i >= 0; i--) DFCT_OK(DFC_Comm_free(&many[i]));
    return dfct_finalize();
}
