/*
 * grouptrans - DFC_Group_translate_ranks and DFC_Group_compare:
 *   - translation into a reversed group, into a subset (absent -> DFC_UNDEFINED), into
 *     DFC_COMM_SELF's group and from DFC_GROUP_EMPTY; DFC_PROC_NULL stays DFC_PROC_NULL;
 *     n = 0 is allowed;
 *   - compare: IDENT (same members, same order, also for a separately built copy), SIMILAR
 *     (same members, other order), UNEQUAL (other members or other size).
 */
#include "../dfctest.h"

int main(int argc, char **argv)
{
    int size, rank, cmp;
    dfct_init(&argc, &argv);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);

    DFC_Group world, reversed, firsthalf, self, copy;
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &world));
    DFCT_OK(DFC_Comm_group(DFC_COMM_SELF, &self));

    int *ranks = malloc(sizeof(int) * (size_t)(size + 2));
    int *out = malloc(sizeof(int) * (size_t)(size + 2));
    for (int i = 0; i < size; i++) ranks[i] = size - 1 - i;
    DFCT_OK(DFC_Group_incl(world, size, ranks, &reversed));
    int half = (size + 1) / 2;
    for (int i = 0; i < half; i++) ranks[i] = i;
    DFCT_OK(DFC_Group_incl(world, half, ranks, &firsthalf));

    /* world -> reversed: r -> size-1-r; PROC_NULL at both ends stays PROC_NULL. */
    ranks[0] = DFC_PROC_NULL;
    for (int i = 0; i < size; i++) ranks[i + 1] = i;
    ranks[size + 1] = DFC_PROC_NULL;
    DFCT_OK(DFC_Group_translate_ranks(world, size + 2, ranks, reversed, out));
    DFCT_CHECK(out[0] == DFC_PROC_NULL && out[size + 1] == DFC_PROC_NULL,
               "PROC_NULL translated to %d and %d", out[0], out[size + 1]);
    for (int i = 0; i < size; i++)
        DFCT_CHECK(out[i + 1] == size - 1 - i, "world %d -> reversed %d, expected %d", i,
                   out[i + 1], size - 1 - i);

    /* world -> first half: members keep their rank, the others are UNDEFINED. */
    DFCT_OK(DFC_Group_translate_ranks(world, size, ranks + 1, firsthalf, out));
    for (int i = 0; i < size; i++)
        DFCT_CHECK(out[i] == (i < half ? i : DFC_UNDEFINED), "world %d -> first half %d", i,
                   out[i]);

    /* self -> world: rank 0 of COMM_SELF's group is this process. */
    int zero = 0, mine = -5;
    DFCT_OK(DFC_Group_translate_ranks(self, 1, &zero, world, &mine));
    DFCT_CHECK(mine == rank, "self rank 0 -> world %d, expected %d", mine, rank);
    /* world -> self: only this process is present. */
    DFCT_OK(DFC_Group_translate_ranks(world, size, ranks + 1, self, out));
    for (int i = 0; i < size; i++)
        DFCT_CHECK(out[i] == (i == rank ? 0 : DFC_UNDEFINED), "world %d -> self %d", i, out[i]);

    /* From the empty group only PROC_NULL can be translated; n = 0 is fine anywhere. */
    int pn = DFC_PROC_NULL, res = 7;
    DFCT_OK(DFC_Group_translate_ranks(DFC_GROUP_EMPTY, 1, &pn, world, &res));
    DFCT_CHECK(res == DFC_PROC_NULL, "PROC_NULL from the empty group -> %d", res);
    DFCT_OK(DFC_Group_translate_ranks(world, 0, NULL, DFC_GROUP_EMPTY, NULL));
    DFCT_OK(DFC_Group_translate_ranks(world, 1, &zero, DFC_GROUP_EMPTY, &res));
    DFCT_CHECK(res == DFC_UNDEFINED, "rank 0 into the empty group -> %d", res);

    /* compare */
    for (int i = 0; i < size; i++) ranks[i] = i;
    DFCT_OK(DFC_Group_incl(world, size, ranks, &copy));
    DFCT_OK(DFC_Group_compare(world, world, &cmp));
    DFCT_CHECK(cmp == DFC_IDENT, "compare(world, world) = %d", cmp);
    DFCT_OK(DFC_Group_compare(world, copy, &cmp));
    DFCT_CHECK(cmp == DFC_IDENT, "compare(world, copy) = %d", cmp);
    DFCT_OK(DFC_Group_compare(world, reversed, &cmp));
    DFCT_CHECK(cmp == (size > 1 ? DFC_SIMILAR : DFC_IDENT), "compare(world, reversed) = %d", cmp);
    DFCT_OK(DFC_Group_compare(world, firsthalf, &cmp));
    DFCT_CHECK(cmp == (size > 1 ? DFC_UNEQUAL : DFC_IDENT), "compare(world, half) = %d", cmp);
    DFCT_OK(DFC_Group_compare(self, world, &cmp));
    DFCT_CHECK(cmp == (size > 1 ? DFC_UNEQUAL : DFC_IDENT), "compare(self, world) = %d", cmp);
    DFCT_OK(DFC_Group_compare(DFC_GROUP_EMPTY, DFC_GROUP_EMPTY, &cmp));
    DFCT_CHECK(cmp == DFC_IDENT, "compare(empty, empty) = %d", cmp);
    DFCT_OK(DFC_Group_compare(world, DFC_GROUP_EMPTY, &cmp));
    DFCT_CHECK(cmp == DFC_UNEQUAL, "compare(world, empty) = %d", cmp);
    if (size > 1) {
        /* Same size, different members: the first half against the second half. */
        DFC_Group second;
        DFCT_OK(DFC_Group_difference(world, firsthalf, &second));
        DFC_Group shorter = firsthalf;
        if (size % 2) { /* make the sizes equal: drop the last member of the first half */
            int last[1][3] = {{half - 1, half - 1, 1}};
            DFCT_OK(DFC_Group_range_excl(firsthalf, 1, last, &shorter));
        }
        DFCT_OK(DFC_Group_compare(shorter, second, &cmp));
        DFCT_CHECK(cmp == DFC_UNEQUAL, "compare(first half, second half) = %d", cmp);
        if (shorter != firsthalf && shorter != DFC_GROUP_EMPTY) DFCT_OK(DFC_Group_free(&shorter));
        DFCT_OK(DFC_Group_free(&second));
    }

    DFCT_OK(DFC_Group_free(&copy));
    DFCT_OK(DFC_Group_free(&firsthalf));
    DFCT_OK(DFC_Group_free(&reversed));
    DFCT_OK(DFC_Group_free(&self));
    DFCT_OK(DFC_Group_free(&world));
    free(ranks);
    free(out);
    return dfct_finalize();
}
