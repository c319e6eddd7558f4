/*
 * finfail.c - a delete callback of a DFC_COMM_SELF attribute that fails at DFC_Finalize:
 * under DFC_ERRORS_RETURN, DFC_Finalize returns the callback's code and still finalizes
 * (the other processes wait for this one at the finalize fence); as in DFC_Comm_free, the
 * deletion stops at the failing callback (the attribute set before it keeps its value and
 * its callback does not run: deletion goes last set first). Each rank
 * checks itself after DFC_Finalize: a failure prints on stderr and exits 1.
 */
#include "../dfctest.h"

static int ncalls, order[2];

static int del_ok(DFC_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    if (ncalls < 2) order[ncalls] = 1;
    ncalls++;
    return DFC_SUCCESS;
}

static int del_fail(DFC_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    if (ncalls < 2) order[ncalls] = 2;
    ncalls++;
    return DFC_ERR_OTHER;
}

int main(int argc, char **argv)
{
    int k1, k2, fin = 0, rank;
    dfct_init(&argc, &argv);
    rank = dfct_rank;
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFCT_OK(DFC_Comm_create_keyval(NULL, del_fail, &k1, NULL));
    DFCT_OK(DFC_Comm_create_keyval(NULL, del_ok, &k2, NULL));
    DFCT_OK(DFC_Comm_set_attr(DFC_COMM_SELF, k2, NULL)); /* set first: deleted last */
    DFCT_OK(DFC_Comm_set_attr(DFC_COMM_SELF, k1, NULL));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    int rc = DFC_Finalize();
    DFC_Finalized(&fin);
    if (dfct_errs || rc != DFC_ERR_OTHER || !fin || ncalls != 1 || order[0] != 2) {
        fprintf(stderr,
                "[rank %d] DFC_Finalize with a failing SELF delete callback: rc %d (expected "
                "%d), finalized %d, %d callbacks (first %d), %d errors before\n",
                rank, rc, DFC_ERR_OTHER, fin, ncalls, order[0], dfct_errs);
        return 1;
    }
    if (rank == 0) printf(" No Errors\n");
    return 0;
}
