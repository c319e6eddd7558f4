/*
 * commextra.c - communicator extras of MPI-4.1: Comm_test_inter, Comm_idup (attributes
 * copied, the new communicator usable), Comm_idup_with_info, Comm_create_from_group (two
 * groups at once, told apart by their string tags), Pcontrol, Alloc_mem/Free_mem and
 * Info_create_env, with their bad arguments.
 */
#include "../dfctest.h"

static void test_inter_idup(int rank, int size)
{
    int flag = -1, key, cmp, sum = -1, a = 42;
    void *v;
    DFC_Comm dup, dup2;
    DFC_Request req;
    DFCT_OK(DFC_Comm_test_inter(DFC_COMM_WORLD, &flag));
    DFCT_CHECK(flag == 0, "test_inter(WORLD) = %d", flag);
    flag = -1;
    DFCT_OK(DFC_Comm_test_inter(DFC_COMM_SELF, &flag));
    DFCT_CHECK(flag == 0, "test_inter(SELF) = %d", flag);
    DFCT_FAILS(DFC_Comm_test_inter(DFC_COMM_NULL, &flag), DFC_ERR_COMM,
               "DFC_Comm_test_inter: invalid argument comm");
    DFCT_FAILS(DFC_Comm_test_inter(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "invalid argument flag");

    DFCT_OK(DFC_Comm_create_keyval(DFC_COMM_DUP_FN, DFC_COMM_NULL_DELETE_FN, &key, NULL));
    DFCT_OK(DFC_Comm_set_attr(DFC_COMM_WORLD, key, &a));
    dup = DFC_COMM_NULL;
    req = DFC_REQUEST_NULL;
    DFCT_OK(DFC_Comm_idup(DFC_COMM_WORLD, &dup, &req));
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    DFCT_CHECK(req == DFC_REQUEST_NULL, "request not freed by Wait");
    DFCT_OK(DFC_Comm_compare(dup, DFC_COMM_WORLD, &cmp));
    DFCT_CHECK(cmp == DFC_CONGRUENT, "idup: compare %d", cmp);
    DFCT_OK(DFC_Allreduce(&rank, &sum, 1, DFC_INT, DFC_SUM, dup));
    DFCT_CHECK(sum == size * (size - 1) / 2, "allreduce on the idup: %d", sum);
    DFCT_OK(DFC_Comm_get_attr(dup, key, &v, &flag));
    DFCT_CHECK(flag == 1 && v == &a, "idup did not copy the attribute");

    DFC_Info info, used;
    char val[DFC_MAX_INFO_VAL];
    DFCT_OK(DFC_Info_create(&info));
    DFCT_OK(DFC_Info_set(info, "attr_test_key", "yes"));
    DFCT_OK(DFC_Comm_idup_with_info(dup, info, &dup2, &req));
    int done = 0;
    while (!done) DFCT_OK(DFC_Test(&req, &done, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Comm_get_info(dup2, &used));
    flag = 0;
    DFCT_OK(DFC_Info_get(used, "attr_test_key", sizeof val - 1, val, &flag));
    DFCT_CHECK(flag && !strcmp(val, "yes"), "idup_with_info: hint not kept");
    DFCT_OK(DFC_Comm_get_attr(dup2, key, &v, &flag));
    DFCT_CHECK(flag == 1 && v == &a, "idup_with_info did not copy the attribute");
    DFCT_FAILS(DFC_Comm_idup(DFC_COMM_WORLD, &dup2, NULL), DFC_ERR_ARG,
               "DFC_Comm_idup: invalid argument request");
    DFCT_FAILS(DFC_Comm_idup_with_info(DFC_COMM_WORLD, 77, &dup2, &req), DFC_ERR_INFO,
               "DFC_Comm_idup_with_info: invalid argument info");
    DFCT_OK(DFC_Info_free(&info));
    DFCT_OK(DFC_Info_free(&used));
    DFCT_OK(DFC_Comm_free(&dup2));
    DFCT_OK(DFC_Comm_free(&dup));
    DFCT_OK(DFC_Comm_delete_attr(DFC_COMM_WORLD, key));
    DFCT_OK(DFC_Comm_free_keyval(&key));
}

static void test_from_group(int rank, int size)
{
    DFC_Group world, mine;
    DFC_Comm comm;
    DFC_Errhandler eh;
    int n = 0, members[64], myrank = -1, nsize = -1, sum = -1, want = 0;
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &world));
    /* Evens and odds, each its own group, created at the same time. */
    for (int r = rank % 2; r < size; r += 2) members[n++] = r;
    for (int i = 0; i < n; i++) want += members[i];
    DFCT_OK(DFC_Group_incl(world, n, members, &mine));
    DFCT_OK(DFC_Comm_create_from_group(mine, rank % 2 ? "attr.odds" : "attr.evens", DFC_INFO_NULL,
                                       DFC_ERRORS_RETURN, &comm));
    DFCT_OK(DFC_Comm_size(comm, &nsize));
    DFCT_OK(DFC_Comm_rank(comm, &myrank));
    DFCT_CHECK(nsize == n && myrank == rank / 2, "from_group: size %d rank %d", nsize, myrank);
    DFCT_OK(DFC_Allreduce(&rank, &sum, 1, DFC_INT, DFC_SUM, comm));
    DFCT_CHECK(sum == want, "allreduce over the new communicator: %d, expected %d", sum, want);
    DFCT_OK(DFC_Comm_get_errhandler(comm, &eh));
    DFCT_CHECK(eh == DFC_ERRORS_RETURN, "errhandler 0x%x", (unsigned)eh);
    DFCT_OK(DFC_Comm_free(&comm));
    DFCT_OK(DFC_Comm_create_from_group(DFC_GROUP_EMPTY, "attr.empty", DFC_INFO_NULL,
                                       DFC_ERRORS_RETURN, &comm));
    DFCT_CHECK(comm == DFC_COMM_NULL, "empty group gave 0x%x", (unsigned)comm);
    DFCT_FAILS(DFC_Comm_create_from_group(mine, NULL, DFC_INFO_NULL, DFC_ERRORS_RETURN, &comm),
               DFC_ERR_ARG, "DFC_Comm_create_from_group: invalid argument stringtag");
    DFCT_FAILS(DFC_Comm_create_from_group(DFC_GROUP_NULL, "x", DFC_INFO_NULL, DFC_ERRORS_RETURN,
                                          &comm),
               DFC_ERR_GROUP, "invalid argument group");
    DFCT_FAILS(DFC_Comm_create_from_group(mine, "x", DFC_INFO_NULL, 12345, &comm),
               DFC_ERR_ERRHANDLER, "invalid argument errhandler");
    if (size > 1) {
        DFC_Group other;
        int o = (rank + 1) % size;
        DFCT_OK(DFC_Group_incl(world, 1, &o, &other));
        DFCT_FAILS(DFC_Comm_create_from_group(other, "x", DFC_INFO_NULL, DFC_ERRORS_RETURN, &comm),
                   DFC_ERR_GROUP, "not a member");
        DFCT_OK(DFC_Group_free(&other));
    }
    DFCT_OK(DFC_Group_free(&mine));
    DFCT_OK(DFC_Group_free(&world));
}

static void test_env(int argc, char **argv)
{
    char *p = NULL;
    DFCT_OK(DFC_Pcontrol(0));
    DFCT_OK(DFC_Pcontrol(2, "ignored"));
    DFCT_OK(DFC_Alloc_mem(4096, DFC_INFO_NULL, &p));
    DFCT_CHECK(p && ((uintptr_t)p & 63) == 0, "Alloc_mem: %p", (void *)p);
    if (p) {
        for (int i = 0; i < 4096; i++) p[i] = (char)i;
        int bad = 0;
        for (int i = 0; i < 4096; i++) bad += p[i] != (char)i;
        DFCT_CHECK(!bad, "Alloc_mem memory does not hold data");
    }
    DFCT_OK(DFC_Free_mem(p));
    DFCT_OK(DFC_Alloc_mem(0, DFC_INFO_NULL, &p));
    DFCT_OK(DFC_Free_mem(p));
    DFCT_FAILS(DFC_Alloc_mem(-1, DFC_INFO_NULL, &p), DFC_ERR_ARG,
               "DFC_Alloc_mem: invalid argument size");
    DFCT_FAILS(DFC_Alloc_mem(8, DFC_INFO_NULL, NULL), DFC_ERR_ARG, "invalid argument baseptr");
    DFCT_FAILS(DFC_Alloc_mem(8, 77, &p), DFC_ERR_INFO, "invalid argument info");

    DFC_Info info;
    char val[DFC_MAX_INFO_VAL];
    int flag = 0;
    DFCT_OK(DFC_Info_create_env(argc, argv, &info));
    DFCT_OK(DFC_Info_get(info, "command", sizeof val - 1, val, &flag));
    DFCT_CHECK(flag && !strcmp(val, argv[0]), "command: %s", flag ? val : "(none)");
    DFCT_OK(DFC_Info_free(&info));
    char *args[] = {"prog", "a", "b c", NULL};
    DFCT_OK(DFC_Info_create_env(3, args, &info));
    DFCT_OK(DFC_Info_get(info, "argv", sizeof val - 1, val, &flag));
    DFCT_CHECK(flag && !strcmp(val, "a b c"), "argv: %s", flag ? val : "(none)");
    DFCT_OK(DFC_Info_free(&info));
    DFCT_OK(DFC_Info_create_env(0, NULL, &info));
    DFCT_OK(DFC_Info_free(&info));
    DFCT_FAILS(DFC_Info_create_env(-1, NULL, &info), DFC_ERR_ARG,
               "DFC_Info_create_env: invalid argument argc");
    DFCT_FAILS(DFC_Info_create_env(0, NULL, NULL), DFC_ERR_ARG, "invalid argument info");
}

int main(int argc, char **argv)
{
    int rank, size;
    dfct_init(&argc, &argv);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    test_inter_idup(rank, size);
    test_from_group(rank, size);
    test_env(argc, argv);
    return dfct_finalize();
}
