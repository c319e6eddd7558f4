/*
 * comm_errors - argument errors of the communicator calls under DFC_ERRORS_RETURN: each
 * returns its class with a message naming the argument, and the library still works
 * afterwards (checked Sendrecv rounds on WORLD and on a duplicate).
 *   DFC_COMM_NULL, a freed communicator, a bogus handle -> DFC_ERR_COMM (every call);
 *   freeing DFC_COMM_WORLD or DFC_COMM_SELF -> DFC_ERR_COMM, and they still work;
 *   an invalid errhandler -> DFC_ERR_ERRHANDLER; a bad group -> DFC_ERR_GROUP; a bad info
 *   -> DFC_ERR_INFO; a negative color -> DFC_ERR_ARG; a bad split_type -> DFC_ERR_ARG;
 *   a bad tag for create_group -> DFC_ERR_TAG; a peer rank out of range for
 *   get_peer_transport -> DFC_ERR_RANK; NULL out-pointers -> DFC_ERR_ARG.
 */
#include "../dfctest.h"

static int rank, size, rounds;

static void sendrecv_round(DFC_Comm comm)
{
    int r, n;
    DFC_Comm_rank(comm, &r);
    DFC_Comm_size(comm, &n);
    int right = (r + 1) % n, left = (r + n - 1) % n, out[16], in[17];
    DFC_Status st;
    rounds++;
    for (int k = 0; k < 16; k++) out[k] = r * 1000 + rounds * 16 + k;
    in[16] = -3;
    DFCT_OK(DFC_Sendrecv(out, 16, DFC_INT, right, 1, in, 16, DFC_INT, left, 1, comm, &st));
    int bad = 0;
    for (int k = 0; k < 16; k++) bad += in[k] != left * 1000 + rounds * 16 + k;
    DFCT_CHECK(!bad && in[16] == -3 && st.DFC_SOURCE == left,
               "Sendrecv round %d after errors: %d bad elements", rounds, bad);
}

/* Every communicator call with an invalid communicator `C`. */
static void bad_comm(DFC_Comm C, const char *needle)
{
    int x, flag;
    char name[DFC_MAX_OBJECT_NAME];
    DFC_Comm nc = DFC_COMM_WORLD, cc = C;
    DFC_Group g;
    DFC_Info info;
    DFC_Errhandler eh;
    DFCT_FAILS(DFC_Comm_size(C, &x), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_rank(C, &x), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_dup(C, &nc), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_dup_with_info(C, DFC_INFO_NULL, &nc), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_split(C, 0, 0, &nc), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_split_type(C, DFC_COMM_TYPE_SHARED, 0, DFC_INFO_NULL, &nc), DFC_ERR_COMM,
               needle);
    DFCT_FAILS(DFC_Comm_create(C, DFC_GROUP_EMPTY, &nc), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_create_group(C, DFC_GROUP_EMPTY, 0, &nc), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_free(&cc), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_compare(C, DFC_COMM_WORLD, &x), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_compare(DFC_COMM_WORLD, C, &x), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_group(C, &g), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_set_name(C, "x"), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_get_name(C, name, &x), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_set_info(C, DFC_INFO_NULL), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_get_info(C, &info), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_set_errhandler(C, DFC_ERRORS_RETURN), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_get_errhandler(C, &eh), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Comm_get_peer_transport(C, 0, name, &x), DFC_ERR_COMM, needle);
    DFCT_FAILS(DFC_Iprobe(0, 0, C, &flag, DFC_STATUS_IGNORE), DFC_ERR_COMM, needle);
    DFCT_CHECK(nc == DFC_COMM_WORLD, "a failed constructor set newcomm to 0x%x", nc);
    DFCT_CHECK(cc == C, "a failed Comm_free changed the handle to 0x%x", cc);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    DFC_Errhandler eh = DFC_ERRHANDLER_NULL;
    DFCT_OK(DFC_Comm_get_errhandler(DFC_COMM_WORLD, &eh));
    DFCT_CHECK(eh == DFC_ERRORS_RETURN, "get_errhandler after set: 0x%x", eh);
    DFC_Comm dup, c, freed;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &dup));

    /* Invalid communicators. */
    bad_comm(DFC_COMM_NULL, "comm");
    bad_comm((DFC_Comm)0x01ffff00, "comm");
    bad_comm((DFC_Comm)DFC_GROUP_EMPTY, "comm");
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &c));
    freed = c;
    DFCT_OK(DFC_Comm_free(&c));
    bad_comm(freed, "comm");
    sendrecv_round(DFC_COMM_WORLD);
    sendrecv_round(dup);

    /* Predefined communicators cannot be freed, and stay usable. */
    c = DFC_COMM_WORLD;
    DFCT_FAILS(DFC_Comm_free(&c), DFC_ERR_COMM, "comm");
    DFCT_CHECK(c == DFC_COMM_WORLD, "a failed free of WORLD changed the handle to 0x%x", c);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_SELF, DFC_ERRORS_RETURN));
    c = DFC_COMM_SELF;
    DFCT_FAILS(DFC_Comm_free(&c), DFC_ERR_COMM, "comm");
    sendrecv_round(DFC_COMM_WORLD);
    sendrecv_round(DFC_COMM_SELF);

    /* Error handlers. */
    DFCT_FAILS(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRHANDLER_NULL), DFC_ERR_ERRHANDLER,
               "errhandler");
    DFCT_FAILS(DFC_Comm_set_errhandler(DFC_COMM_WORLD, (DFC_Errhandler)0x07fffff0),
               DFC_ERR_ERRHANDLER, "errhandler");
    DFCT_FAILS(DFC_Comm_set_errhandler(dup, (DFC_Errhandler)DFC_COMM_WORLD), DFC_ERR_ERRHANDLER,
               "errhandler");
    {
        DFC_Errhandler bad = (DFC_Errhandler)0x07fffff0;
        DFCT_FAILS(DFC_Errhandler_free(&bad), DFC_ERR_ERRHANDLER, "errhandler");
        DFCT_FAILS(DFC_Comm_get_errhandler(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "errhandler");
    }
    DFCT_OK(DFC_Comm_get_errhandler(DFC_COMM_WORLD, &eh));
    DFCT_CHECK(eh == DFC_ERRORS_RETURN, "a failed set_errhandler changed WORLD's handler to 0x%x",
               eh);
    sendrecv_round(DFC_COMM_WORLD);

    /* Constructor arguments. */
    DFC_Comm nc = DFC_COMM_WORLD;
    DFCT_FAILS(DFC_Comm_split(DFC_COMM_WORLD, -5, 0, &nc), DFC_ERR_ARG, "color");
    DFCT_FAILS(DFC_Comm_split(DFC_COMM_WORLD, 0, 0, NULL), DFC_ERR_ARG, "newcomm");
    DFCT_FAILS(DFC_Comm_dup(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "newcomm");
    DFCT_FAILS(DFC_Comm_split_type(DFC_COMM_WORLD, 12345, 0, DFC_INFO_NULL, &nc), DFC_ERR_ARG,
               "split_type");
    DFCT_FAILS(DFC_Comm_split_type(DFC_COMM_WORLD, DFC_COMM_TYPE_SHARED, 0, (DFC_Info)0x06fffff0,
                                   &nc),
               DFC_ERR_INFO, "info");
    DFCT_FAILS(DFC_Comm_dup_with_info(DFC_COMM_WORLD, (DFC_Info)0x06fffff0, &nc), DFC_ERR_INFO,
               "info");
    DFCT_FAILS(DFC_Comm_dup_with_info(DFC_COMM_WORLD, (DFC_Info)DFC_COMM_WORLD, &nc), DFC_ERR_INFO,
               "info");
    DFCT_FAILS(DFC_Comm_set_info(dup, (DFC_Info)0x06fffff0), DFC_ERR_INFO, "info");
    DFCT_FAILS(DFC_Comm_create(DFC_COMM_WORLD, DFC_GROUP_NULL, &nc), DFC_ERR_GROUP, "group");
    DFCT_FAILS(DFC_Comm_create(DFC_COMM_WORLD, (DFC_Group)0x02fffff0, &nc), DFC_ERR_GROUP, "group");
    DFCT_FAILS(DFC_Comm_create_group(DFC_COMM_WORLD, DFC_GROUP_NULL, 0, &nc), DFC_ERR_GROUP,
               "group");
    {
        DFC_Group wg, mine, freed_group;
        DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &wg));
        DFCT_FAILS(DFC_Comm_create_group(DFC_COMM_WORLD, wg, -3, &nc), DFC_ERR_TAG, "tag");
        /* create_group by a process that is not in the group. */
        if (size > 1) {
            int other = (rank + 1) % size;
            DFCT_OK(DFC_Group_incl(wg, 1, &other, &mine));
            DFCT_FAILS(DFC_Comm_create_group(DFC_COMM_WORLD, mine, 0, &nc), DFC_ERR_GROUP, "group");
            DFCT_OK(DFC_Group_free(&mine));
        }
        DFCT_OK(DFC_Group_incl(wg, 1, &rank, &mine));
        freed_group = mine;
        DFCT_OK(DFC_Group_free(&mine));
        DFCT_FAILS(DFC_Comm_create(DFC_COMM_WORLD, freed_group, &nc), DFC_ERR_GROUP, "group");
        /* A group with members outside the communicator (COMM_SELF has only me). */
        if (size > 1) {
            DFCT_FAILS(DFC_Comm_create(DFC_COMM_SELF, wg, &nc), DFC_ERR_GROUP, "group");
        }
        DFCT_OK(DFC_Group_free(&wg));
    }
    DFCT_CHECK(nc == DFC_COMM_WORLD, "a failed constructor set newcomm to 0x%x", nc);
    sendrecv_round(DFC_COMM_WORLD);
    sendrecv_round(dup);

    /* Other arguments. */
    {
        char name[DFC_MAX_TRANSPORT_NAME];
        int len, result;
        DFCT_FAILS(DFC_Comm_get_peer_transport(DFC_COMM_WORLD, size, name, &len), DFC_ERR_RANK,
                   "rank");
        DFCT_FAILS(DFC_Comm_get_peer_transport(DFC_COMM_WORLD, -1, name, &len), DFC_ERR_RANK,
                   "rank");
        DFCT_FAILS(DFC_Comm_get_peer_transport(DFC_COMM_WORLD, 0, NULL, &len), DFC_ERR_ARG, "name");
        DFCT_FAILS(DFC_Comm_get_peer_transport(DFC_COMM_WORLD, 0, name, NULL), DFC_ERR_ARG,
                   "resultlen");
        DFCT_FAILS(DFC_Comm_size(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "size");
        DFCT_FAILS(DFC_Comm_rank(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "rank");
        DFCT_FAILS(DFC_Comm_compare(DFC_COMM_WORLD, dup, NULL), DFC_ERR_ARG, "result");
        DFCT_FAILS(DFC_Comm_set_name(dup, NULL), DFC_ERR_ARG, "comm_name");
        DFCT_FAILS(DFC_Comm_get_name(dup, NULL, &len), DFC_ERR_ARG, "comm_name");
        DFCT_FAILS(DFC_Comm_get_info(dup, NULL), DFC_ERR_ARG, "info");
        DFCT_OK(DFC_Comm_compare(DFC_COMM_WORLD, dup, &result));
        DFCT_CHECK(result == DFC_CONGRUENT, "compare(WORLD, dup) after errors: %d", result);
    }
    sendrecv_round(DFC_COMM_WORLD);
    sendrecv_round(dup);

    /* New communicators still come out right, with the handler inherited. */
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, rank % 2, -rank, &c));
    DFCT_OK(DFC_Comm_get_errhandler(c, &eh));
    DFCT_CHECK(eh == DFC_ERRORS_RETURN, "split of WORLD has errhandler 0x%x", eh);
    sendrecv_round(c);
    DFCT_OK(DFC_Comm_free(&c));
    DFCT_OK(DFC_Comm_free(&dup));
    sendrecv_round(DFC_COMM_WORLD);
    return dfct_finalize();
}
