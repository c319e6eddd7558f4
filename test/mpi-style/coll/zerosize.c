/*
 * zerosize.c - collectives whose buffers describe no bytes: MPI lets such a buffer be
 * anything, NULL or the other side's address. mpi4py's test_cco_vec passes two empty arrays
 * that share one address to Allgatherv (count 0); DFC refused them as aliases
 * ("they alias (use DFC_IN_PLACE)") on some calls, and a v form refused NULL with all counts
 * 0. Each call here must succeed and leave the buffers alone; the same calls with data and
 * aliased buffers must still fail with DFC_ERR_BUFFER. Blocking and nonblocking forms.
 */
#include "colltest.h"

#define POISON 0x5b5b5b5b

static void check_untouched(const int *buf, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        DFCT_CHECK(buf[i] == POISON, "%s: element %d changed to %#x", what, i, buf[i]);
}

static void wait_or_not(int rc, DFC_Request *rq)
{
    DFCT_OK(rc);
    if (rc == DFC_SUCCESS) DFCT_OK(DFC_Wait(rq, DFC_STATUS_IGNORE));
}

/* Counts all 0, send and receive at one address. */
static void aliased_empty(int *buf, int *zeros, int *displs, DFC_Datatype *types)
{
    DFC_Request rq;
    DFCT_OK(DFC_Allgather(buf, 0, DFC_INT, buf, 0, DFC_INT, DFC_COMM_WORLD));
    DFCT_OK(DFC_Allgatherv(buf, 0, DFC_INT, buf, zeros, displs, DFC_INT, DFC_COMM_WORLD));
    DFCT_OK(DFC_Alltoall(buf, 0, DFC_INT, buf, 0, DFC_INT, DFC_COMM_WORLD));
    DFCT_OK(
        DFC_Alltoallv(buf, zeros, displs, DFC_INT, buf, zeros, displs, DFC_INT, DFC_COMM_WORLD));
    DFCT_OK(DFC_Alltoallw(buf, zeros, displs, types, buf, zeros, displs, types, DFC_COMM_WORLD));
    wait_or_not(DFC_Iallgatherv(buf, 0, DFC_INT, buf, zeros, displs, DFC_INT, DFC_COMM_WORLD, &rq),
                &rq);
    wait_or_not(DFC_Ialltoallv(buf, zeros, displs, DFC_INT, buf, zeros, displs, DFC_INT,
                               DFC_COMM_WORLD, &rq),
                &rq);
    wait_or_not(DFC_Ialltoallw(buf, zeros, displs, types, buf, zeros, displs, types, DFC_COMM_WORLD,
                               &rq),
                &rq);
}

/* Counts all 0 and NULL buffers in the v forms. */
static void null_empty(int *zeros, int *displs, DFC_Datatype *types)
{
    DFCT_OK(DFC_Allgatherv(NULL, 0, DFC_INT, NULL, zeros, displs, DFC_INT, DFC_COMM_WORLD));
    DFCT_OK(
        DFC_Alltoallv(NULL, zeros, displs, DFC_INT, NULL, zeros, displs, DFC_INT, DFC_COMM_WORLD));
    DFCT_OK(DFC_Alltoallw(NULL, zeros, displs, types, NULL, zeros, displs, types, DFC_COMM_WORLD));
    DFCT_OK(DFC_Gatherv(NULL, 0, DFC_INT, NULL, zeros, displs, DFC_INT, 0, DFC_COMM_WORLD));
    DFCT_OK(DFC_Scatterv(NULL, zeros, displs, DFC_INT, NULL, 0, DFC_INT, 0, DFC_COMM_WORLD));
}

/* An empty send beside a receive that gets data from the others: no alias either. */
static void empty_send_only(int *buf, int *displs)
{
    int *counts = malloc(ct_size * sizeof *counts);
    for (int p = 0; p < ct_size; p++) counts[p] = p == 0 ? 0 : 1, displs[p] = p;
    for (int i = 0; i < ct_size; i++) buf[i] = POISON;
    int mine = ct_rank; /* rank 0 sends nothing, from the address it receives into */
    const void *sbuf = ct_rank == 0 ? (const void *)buf : &mine;
    DFCT_OK(DFC_Allgatherv(sbuf, counts[ct_rank], DFC_INT, buf, counts, displs, DFC_INT,
                           DFC_COMM_WORLD));
    DFCT_CHECK(buf[0] == POISON, "block of rank 0 (0 elements) written: %#x", buf[0]);
    for (int p = 1; p < ct_size; p++) DFCT_CHECK(buf[p] == p, "buf[%d] = %d", p, buf[p]);
    for (int p = 0; p < ct_size; p++) displs[p] = 0;
    free(counts);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    int n = ct_size + 1;
    int *buf = malloc(n * sizeof *buf), *zeros = calloc(ct_size, sizeof(int)),
        *ones = malloc(ct_size * sizeof(int)), *displs = calloc(ct_size, sizeof(int));
    DFC_Datatype *types = malloc(ct_size * sizeof *types);
    for (int p = 0; p < ct_size; p++) types[p] = DFC_INT, ones[p] = 1;
    for (int i = 0; i < n; i++) buf[i] = POISON;
    aliased_empty(buf, zeros, displs, types);
    null_empty(zeros, displs, types);
    check_untouched(buf, n, "0-count collectives");
    empty_send_only(buf, displs);

    /* With data, the same aliasing is still an error (on every rank alike). */
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    for (int p = 0; p < ct_size; p++) displs[p] = p;
    DFCT_FAILS(DFC_Allgatherv(buf, 1, DFC_INT, buf, ones, displs, DFC_INT, DFC_COMM_WORLD),
               DFC_ERR_BUFFER, "DFC_Allgatherv: invalid arguments sendbuf and recvbuf: they alias");
    DFCT_FAILS(DFC_Alltoallv(buf, ones, displs, DFC_INT, buf, ones, displs, DFC_INT,
                             DFC_COMM_WORLD),
               DFC_ERR_BUFFER, "DFC_Alltoallv: invalid arguments sendbuf and recvbuf: they alias");
    for (int p = 0; p < ct_size; p++) displs[p] = p * (int)sizeof(int);
    DFCT_FAILS(DFC_Alltoallw(buf, ones, displs, types, buf, ones, displs, types, DFC_COMM_WORLD),
               DFC_ERR_BUFFER, "DFC_Alltoallw: invalid arguments sendbuf and recvbuf: they alias");
    DFCT_FAILS(DFC_Alltoallv(NULL, ones, displs, DFC_INT, buf, ones, displs, DFC_INT,
                             DFC_COMM_WORLD),
               DFC_ERR_BUFFER, "DFC_Alltoallv: invalid argument sendbuf: NULL");
    free(buf);
    free(zeros);
    free(ones);
    free(displs);
    free(types);
    return dfct_finalize();
}
