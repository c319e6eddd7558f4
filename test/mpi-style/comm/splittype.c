/*
 * splittype - DFC_Comm_split_type(DFC_COMM_TYPE_SHARED): the members of the new
 * communicator are exactly the world ranks with this rank's processor name (names are
 * exchanged with point-to-point), ordered by key (given in reverse), and it carries
 * traffic. DFC_UNDEFINED as split_type gives DFC_COMM_NULL.
 */
#include "../dfctest.h"

#define NAMELEN DFC_MAX_PROCESSOR_NAME

int main(int argc, char **argv)
{
    int rank, size, len;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);

    char *names = calloc(size, NAMELEN);
    DFCT_OK(DFC_Get_processor_name(names + (size_t)rank * NAMELEN, &len));
    DFC_Request *reqs = malloc(2 * size * sizeof *reqs);
    int nr = 0;
    for (int r = 0; r < size; r++) {
        if (r == rank) continue;
        DFCT_OK(DFC_Irecv(names + (size_t)r * NAMELEN, NAMELEN, DFC_CHAR, r, 1, DFC_COMM_WORLD,
                          &reqs[nr++]));
        DFCT_OK(DFC_Isend(names + (size_t)rank * NAMELEN, NAMELEN, DFC_CHAR, r, 1, DFC_COMM_WORLD,
                          &reqs[nr++]));
    }
    DFCT_OK(DFC_Waitall(nr, reqs, DFC_STATUSES_IGNORE));
    const char *mine = names + (size_t)rank * NAMELEN;

    /* Expected members: world ranks on my host, in decreasing order (key -rank). */
    int *want = malloc(size * sizeof(int)), n = 0, me = -1;
    for (int w = size - 1; w >= 0; w--)
        if (!strcmp(names + (size_t)w * NAMELEN, mine)) {
            if (w == rank) me = n;
            want[n++] = w;
        }

    DFC_Comm node;
    DFCT_OK(DFC_Comm_split_type(DFC_COMM_WORLD, DFC_COMM_TYPE_SHARED, -rank, DFC_INFO_NULL, &node));
    int r = -1, s = -1;
    DFCT_CHECK(node != DFC_COMM_NULL, "split_type(SHARED) gave DFC_COMM_NULL");
    DFCT_OK(DFC_Comm_rank(node, &r));
    DFCT_OK(DFC_Comm_size(node, &s));
    DFCT_CHECK(s == n && r == me,
               "split_type(SHARED): size %d rank %d, expected %d and %d (host %s)", s, r, n, me,
               mine);
    if (s == n && r == me) {
        /* Each member tells its world rank and processor name to all others. */
        for (int i = 0; i < n; i++) {
            struct {
                int w;
                char name[NAMELEN];
            } out, in;
            out.w = rank;
            memcpy(out.name, mine, NAMELEN);
            int to = (r + i) % n, from = (r - i + n) % n;
            DFCT_OK(DFC_Sendrecv(&out, (int)sizeof out, DFC_BYTE, to, 2, &in, (int)sizeof in,
                                 DFC_BYTE, from, 2, node, DFC_STATUS_IGNORE));
            DFCT_CHECK(in.w == want[from], "node comm rank %d is world %d, expected %d", from, in.w,
                       want[from]);
            DFCT_CHECK(!strncmp(in.name, mine, NAMELEN),
                       "node comm rank %d has host \"%s\", mine is \"%s\"", from, in.name, mine);
        }
    }
    /* Splitting it again by type gives the same members. */
    DFC_Comm again;
    int result = -1;
    DFCT_OK(DFC_Comm_split_type(node, DFC_COMM_TYPE_SHARED, 0, DFC_INFO_NULL, &again));
    DFCT_OK(DFC_Comm_compare(node, again, &result));
    DFCT_CHECK(result == DFC_CONGRUENT, "split_type of the node comm compared with it: %d", result);
    DFCT_OK(DFC_Comm_free(&again));
    DFCT_OK(DFC_Comm_free(&node));

    DFC_Comm none = DFC_COMM_WORLD;
    DFCT_OK(DFC_Comm_split_type(DFC_COMM_WORLD, DFC_UNDEFINED, 0, DFC_INFO_NULL, &none));
    DFCT_CHECK(none == DFC_COMM_NULL, "split_type(UNDEFINED) gave 0x%x", none);

    free(names);
    free(reqs);
    free(want);
    return dfct_finalize();
}
