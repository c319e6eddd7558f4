/*
 * group_errors - every kind of bad argument to the DFC_Group_* functions returns its error
 * class (under DFC_ERRORS_RETURN on DFC_COMM_WORLD, whose handler applies to calls on no
 * communicator) with a message naming the function and the argument, leaves the output
 * arguments alone, and the library keeps working afterwards. Classes follow MPICH: bad
 * handles DFC_ERR_GROUP, bad or repeated ranks in a rank array DFC_ERR_RANK, every fault of
 * a range array and other bad arguments DFC_ERR_ARG.
 */
#include "../dfctest.h"

int main(int argc, char **argv)
{
    int size, rank, val;
    dfct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);

    DFC_Group world, g = DFC_GROUP_NULL, freed;
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &world));

    /* Bad handles: null, another kind's, freed. */
    DFCT_FAILS(DFC_Group_size(DFC_GROUP_NULL, &val), DFC_ERR_GROUP,
               "DFC_Group_size: invalid argument group");
    DFCT_FAILS(DFC_Group_rank((DFC_Group)DFC_COMM_WORLD, &val), DFC_ERR_GROUP,
               "invalid argument group");
    int zero = 0;
    DFCT_OK(DFC_Group_incl(world, 1, &zero, &freed));
    DFC_Group stale = freed;
    DFCT_OK(DFC_Group_free(&freed));
    DFCT_FAILS(DFC_Group_size(stale, &val), DFC_ERR_GROUP, "invalid argument group");
    DFCT_FAILS(DFC_Group_union(world, DFC_GROUP_NULL, &g), DFC_ERR_GROUP,
               "DFC_Group_union: invalid argument group2");
    DFCT_FAILS(DFC_Group_intersection(stale, world, &g), DFC_ERR_GROUP, "invalid argument group1");
    DFCT_FAILS(DFC_Group_compare(world, DFC_GROUP_NULL, &val), DFC_ERR_GROUP,
               "invalid argument group2");
    DFCT_FAILS(DFC_Group_free(&stale), DFC_ERR_GROUP, "DFC_Group_free: invalid argument group");
    g = DFC_GROUP_NULL;
    DFCT_FAILS(DFC_Group_free(&g), DFC_ERR_GROUP, "invalid argument group");

    /* Missing output or input arrays. */
    DFCT_FAILS(DFC_Group_size(world, NULL), DFC_ERR_ARG, "invalid argument size");
    DFCT_FAILS(DFC_Group_rank(world, NULL), DFC_ERR_ARG, "invalid argument rank");
    DFCT_FAILS(DFC_Group_incl(world, 1, &zero, NULL), DFC_ERR_ARG, "invalid argument newgroup");
    DFCT_FAILS(DFC_Group_incl(world, 1, NULL, &g), DFC_ERR_ARG, "invalid argument ranks");
    DFCT_FAILS(DFC_Group_range_incl(world, 1, NULL, &g), DFC_ERR_ARG, "invalid argument ranges");
    DFCT_FAILS(DFC_Group_difference(world, world, NULL), DFC_ERR_ARG, "invalid argument newgroup");
    DFCT_FAILS(DFC_Group_compare(world, world, NULL), DFC_ERR_ARG, "invalid argument result");
    DFCT_FAILS(DFC_Group_free(NULL), DFC_ERR_ARG, "invalid argument group");

    /* Rank arrays: out of range, negative, repeated; n negative. */
    int out_of_range[2] = {0, size};
    g = DFC_GROUP_NULL;
    DFCT_FAILS(DFC_Group_incl(world, 2, out_of_range, &g), DFC_ERR_RANK,
               "DFC_Group_incl: invalid argument ranks");
    DFCT_CHECK(g == DFC_GROUP_NULL, "a failed Group_incl changed newgroup");
    int negative[1] = {-1};
    DFCT_FAILS(DFC_Group_excl(world, 1, negative, &g), DFC_ERR_RANK,
               "DFC_Group_excl: invalid argument ranks");
    int repeated[2] = {0, 0};
    DFCT_FAILS(DFC_Group_incl(world, 2, repeated, &g), DFC_ERR_RANK, "repeats");
    DFCT_FAILS(DFC_Group_excl(world, 2, repeated, &g), DFC_ERR_RANK, "repeats");
    DFCT_FAILS(DFC_Group_incl(world, -1, repeated, &g), DFC_ERR_ARG, "invalid argument n");
    DFCT_FAILS(DFC_Group_excl(world, -2, repeated, &g), DFC_ERR_ARG, "invalid argument n");

    /* Range arrays: first or last out of the group, zero stride, wrong direction, overlap. */
    int first_out[1][3] = {{size, size, 1}};
    DFCT_FAILS(DFC_Group_range_incl(world, 1, first_out, &g), DFC_ERR_ARG,
               "DFC_Group_range_incl: invalid argument ranges");
    int last_out[1][3] = {{0, size, 1}};
    DFCT_FAILS(DFC_Group_range_excl(world, 1, last_out, &g), DFC_ERR_ARG,
               "DFC_Group_range_excl: invalid argument ranges");
    int zero_stride[1][3] = {{0, 0, 0}};
    DFCT_FAILS(DFC_Group_range_incl(world, 1, zero_stride, &g), DFC_ERR_ARG, "stride is 0");
    int backwards[1][3] = {{0, -1, 1}};
    DFCT_FAILS(DFC_Group_range_incl(world, 1, backwards, &g), DFC_ERR_ARG, "leads away");
    int overlap[2][3] = {{0, 0, 1}, {0, 0, -1}};
    DFCT_FAILS(DFC_Group_range_excl(world, 2, overlap, &g), DFC_ERR_ARG, "already named");
    DFCT_FAILS(DFC_Group_range_incl(world, -1, overlap, &g), DFC_ERR_ARG, "invalid argument n");
    DFCT_CHECK(g == DFC_GROUP_NULL, "a failed call changed newgroup");

    /* translate_ranks: ranks outside group1, DFC_UNDEFINED, negative n, missing arrays. */
    int in[2] = {0, size}, out[2] = {-7, -7};
    DFCT_FAILS(DFC_Group_translate_ranks(world, 2, in, world, out), DFC_ERR_RANK,
               "DFC_Group_translate_ranks: invalid argument ranks1");
    DFCT_CHECK(out[0] == -7, "a failed translate_ranks wrote ranks2");
    in[1] = DFC_UNDEFINED;
    DFCT_FAILS(DFC_Group_translate_ranks(world, 2, in, world, out), DFC_ERR_RANK, "ranks1");
    DFCT_FAILS(DFC_Group_translate_ranks(DFC_GROUP_EMPTY, 1, &zero, world, out), DFC_ERR_RANK,
               "ranks1");
    DFCT_FAILS(DFC_Group_translate_ranks(world, -1, in, world, out), DFC_ERR_ARG,
               "invalid argument n");
    DFCT_FAILS(DFC_Group_translate_ranks(world, 1, &zero, world, NULL), DFC_ERR_ARG,
               "invalid argument ranks2");

    /* Still working: the same calls with good arguments succeed. */
    int all = size - 1, r = -1;
    DFCT_OK(DFC_Group_incl(world, 1, &all, &g));
    DFCT_OK(DFC_Group_translate_ranks(g, 1, &zero, world, &r));
    DFCT_CHECK(r == size - 1, "translate after errors gave %d", r);
    DFCT_OK(DFC_Group_free(&g));
    DFCT_OK(DFC_Group_size(world, &val));
    DFCT_CHECK(val == size, "world group size %d after errors", val);
    DFCT_OK(DFC_Group_free(&world));

    return dfct_finalize();
}
