/*
 * intermove - Gather(v), Scatter(v), Allgatherv and Alltoall(v) on an intercommunicator
 * (MPI-4.1 6.2.2), which mpi4py's test_cco_obj_inter uses (its pickled gather, scatter,
 * allgather and alltoall send the sizes with the plain form, then the data with the v form).
 * Groups as in intercomm.c: world ranks with rank % 3 == 0 form group A, the others group B
 * (uneven sizes, interleaved). Every rooted call runs once with the root in each group and
 * each rank of it as the root (DFC_ROOT there, DFC_PROC_NULL at the rest of its group, the
 * root's rank at the other group); the v forms with uneven counts (remote rank j gives or
 * gets j + 1 blocks) and displacements that leave gaps, which must stay poisoned. Data are
 * checked element by element. Bad input: a root outside the remote group (DFC_ERR_ROOT),
 * DFC_IN_PLACE (DFC_ERR_BUFFER), NULL counts (DFC_ERR_ARG), the nonblocking forms
 * (DFC_ERR_COMM).
 */
#include "../dfctest.h"

#define N 3 /* ints per block */
#define POISON (-9)

static int wrank, wsize, in_a, lrank, lsize, rsize;
static int aw[64], bw[64], na, nb; /* world ranks of the groups, in group order */

/* What world rank `from` gives world rank `to`, element k. */
static int val(int from, int to, int k) { return from * 10000 + to * 10 + k; }
static int remote_w(int j) { return in_a ? bw[j] : aw[j]; }

static void poison(int *b, int n)
{
    for (int i = 0; i < n; i++) b[i] = POISON;
}

/* The v layout on the side that has one block per remote process j: j + 1 blocks of N at
 * displacement 2 * j * (rsize + 1) * N (gaps after each). */
static void v_layout(int n, int *counts, int *displs)
{
    for (int j = 0; j < n; j++) counts[j] = (j + 1) * N, displs[j] = 2 * j * (n + 1) * N;
}

/* Block j of a v layout holds count ints from remote rank j; everything else is poisoned. */
static void check_v(const int *b, int n, const int *counts, const int *displs, int from_remote,
                    int me_w, const char *what)
{
    int span = displs[n - 1] + counts[n - 1] + N;
    for (int i = 0, j = 0; i < span; i++) {
        while (j < n - 1 && i >= displs[j + 1]) j++;
        int in = i >= displs[j] && i < displs[j] + counts[j];
        int from = from_remote ? remote_w(j) : me_w, to = from_remote ? me_w : remote_w(j);
        int want = in ? val(from, to, i - displs[j]) : POISON;
        DFCT_CHECK(b[i] == want, "%s: element %d is %d, expected %d", what, i, b[i], want);
    }
}

static void check_gather(DFC_Comm ic, int *buf, int *mine)
{
    int counts[64], displs[64];
    for (int a_root = 0; a_root < 2; a_root++) {
        int root_in_mine = a_root == in_a, nroot = a_root ? na : nb;
        for (int root = 0; root < nroot; root++) {
            int *rootw = a_root ? aw : bw, rw = rootw[root];
            int r = root_in_mine ? (lrank == root ? DFC_ROOT : DFC_PROC_NULL) : root;
            for (int k = 0; k < 64 * N; k++) mine[k] = val(wrank, rw, k);
            poison(buf, 2 * 64 * 64 * N);
            DFCT_OK(DFC_Gather(mine, N, DFC_INT, buf, N, DFC_INT, r, ic));
            if (r == DFC_ROOT)
                for (int j = 0; j < rsize; j++)
                    for (int k = 0; k < N; k++)
                        DFCT_CHECK(buf[j * N + k] == val(remote_w(j), wrank, k),
                                   "Gather root %d: block %d element %d is %d", rw, j, k,
                                   buf[j * N + k]);
            /* Gatherv: remote rank j (by its rank in its group) gives j + 1 blocks. */
            v_layout(rsize, counts, displs);
            poison(buf, 2 * 64 * 64 * N);
            int give = root_in_mine ? 0 : (lrank + 1) * N;
            DFCT_OK(DFC_Gatherv(mine, give, DFC_INT, buf, counts, displs, DFC_INT, r, ic));
            if (r == DFC_ROOT) check_v(buf, rsize, counts, displs, 1, wrank, "Gatherv");
        }
    }
}

static void check_scatter(DFC_Comm ic, int *buf, int *src)
{
    int counts[64], displs[64];
    for (int a_root = 0; a_root < 2; a_root++) {
        int root_in_mine = a_root == in_a, nroot = a_root ? na : nb;
        for (int root = 0; root < nroot; root++) {
            int rw = (a_root ? aw : bw)[root];
            int r = root_in_mine ? (lrank == root ? DFC_ROOT : DFC_PROC_NULL) : root;
            poison(src, 2 * 64 * 64 * N);
            if (r == DFC_ROOT)
                for (int j = 0; j < rsize; j++)
                    for (int k = 0; k < N; k++) src[j * N + k] = val(wrank, remote_w(j), k);
            poison(buf, 64 * N);
            DFCT_OK(DFC_Scatter(src, N, DFC_INT, buf, N, DFC_INT, r, ic));
            if (!root_in_mine)
                for (int k = 0; k < N + 1; k++)
                    DFCT_CHECK(buf[k] == (k < N ? val(rw, wrank, k) : POISON),
                               "Scatter root %d: element %d is %d", rw, k, buf[k]);
            v_layout(rsize, counts, displs);
            poison(src, 2 * 64 * 64 * N);
            if (r == DFC_ROOT)
                for (int j = 0; j < rsize; j++)
                    for (int k = 0; k < counts[j]; k++)
                        src[displs[j] + k] = val(wrank, remote_w(j), k);
            poison(buf, 64 * N);
            int get = root_in_mine ? 0 : (lrank + 1) * N;
            DFCT_OK(DFC_Scatterv(src, counts, displs, DFC_INT, buf, get, DFC_INT, r, ic));
            if (!root_in_mine)
                for (int k = 0; k < get + 1; k++)
                    DFCT_CHECK(buf[k] == (k < get ? val(rw, wrank, k) : POISON),
                               "Scatterv root %d: element %d is %d", rw, k, buf[k]);
        }
    }
}

static void check_all(DFC_Comm ic, int *buf, int *src)
{
    int counts[64], displs[64], scounts[64], sdispls[64];
    /* Allgatherv: this process gives (lrank + 1) * N ints to every remote process. */
    v_layout(rsize, counts, displs);
    for (int k = 0; k < 64 * N; k++) src[k] = val(wrank, -1, k);
    poison(buf, 2 * 64 * 64 * N);
    DFCT_OK(DFC_Allgatherv(src, (lrank + 1) * N, DFC_INT, buf, counts, displs, DFC_INT, ic));
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < counts[j]; k++)
            DFCT_CHECK(buf[displs[j] + k] == val(remote_w(j), -1, k),
                       "Allgatherv: block %d element %d is %d", j, k, buf[displs[j] + k]);
    for (int j = 0; j < rsize; j++) DFCT_CHECK(buf[displs[j] + counts[j]] == POISON, "gap %d", j);
    /* Alltoall: block j to remote rank j. */
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < N; k++) src[j * N + k] = val(wrank, remote_w(j), k);
    poison(buf, 2 * 64 * 64 * N);
    DFCT_OK(DFC_Alltoall(src, N, DFC_INT, buf, N, DFC_INT, ic));
    for (int j = 0; j < rsize + 1; j++)
        for (int k = 0; k < N; k++)
            DFCT_CHECK(buf[j * N + k] == (j < rsize ? val(remote_w(j), wrank, k) : POISON),
                       "Alltoall: block %d element %d is %d", j, k, buf[j * N + k]);
    /* Alltoallv: remote rank j gets lrank + 1 blocks from this process and gives it j + 1. */
    v_layout(rsize, counts, displs);
    poison(src, 2 * 64 * 64 * N);
    for (int j = 0; j < rsize; j++) {
        scounts[j] = (lrank + 1) * N, sdispls[j] = j * (lsize + 1) * N;
        for (int k = 0; k < scounts[j]; k++) src[sdispls[j] + k] = val(wrank, remote_w(j), k);
    }
    poison(buf, 2 * 64 * 64 * N);
    DFCT_OK(DFC_Alltoallv(src, scounts, sdispls, DFC_INT, buf, counts, displs, DFC_INT, ic));
    check_v(buf, rsize, counts, displs, 1, wrank, "Alltoallv");
}

static void check_errors(DFC_Comm ic, int *buf, int *src)
{
    DFC_Request req;
    int counts[64] = {0}, displs[64] = {0};
    DFCT_FAILS(DFC_Gather(src, 1, DFC_INT, buf, 1, DFC_INT, rsize, ic), DFC_ERR_ROOT,
               "DFC_Gather: invalid argument root: ");
    DFCT_FAILS(DFC_Scatterv(src, counts, displs, DFC_INT, buf, 1, DFC_INT, -7, ic), DFC_ERR_ROOT,
               "DFC_Scatterv: invalid argument root: -7 is neither DFC_ROOT");
    DFCT_FAILS(DFC_Alltoall(DFC_IN_PLACE, 1, DFC_INT, buf, 1, DFC_INT, ic), DFC_ERR_BUFFER,
               "DFC_Alltoall: invalid argument sendbuf: DFC_IN_PLACE is not allowed on an "
               "intercommunicator");
    DFCT_FAILS(DFC_Alltoallv(src, NULL, displs, DFC_INT, buf, counts, displs, DFC_INT, ic),
               DFC_ERR_ARG, "DFC_Alltoallv: invalid argument sendcounts: NULL");
    DFCT_FAILS(DFC_Allgatherv(src, 1, DFC_INT, buf, counts, NULL, DFC_INT, ic), DFC_ERR_ARG,
               "DFC_Allgatherv: invalid argument displs: NULL");
    DFCT_FAILS(DFC_Igather(src, 1, DFC_INT, buf, 1, DFC_INT, 0, ic, &req), DFC_ERR_COMM,
               "nonblocking");
}

int main(int argc, char **argv)
{
    DFC_Comm local, ic;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &wrank);
    DFC_Comm_size(DFC_COMM_WORLD, &wsize);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    if (wsize < 2 || wsize > 64) return dfct_finalize(); /* two groups needed */
    for (int w = 0; w < wsize; w++) {
        if (w % 3 == 0) aw[na++] = w;
        else bw[nb++] = w;
    }
    in_a = wrank % 3 == 0;
    lsize = in_a ? na : nb;
    rsize = in_a ? nb : na;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, in_a, wrank, &local));
    DFCT_OK(DFC_Comm_rank(local, &lrank));
    DFCT_OK(DFC_Intercomm_create(local, 0, DFC_COMM_WORLD, in_a ? 1 : 0, 78, &ic));
    DFCT_OK(DFC_Comm_set_errhandler(ic, DFC_ERRORS_RETURN));
    int *buf = malloc(2 * 64 * 64 * N * sizeof(int)), *src = malloc(2 * 64 * 64 * N * sizeof(int));
    check_gather(ic, buf, src);
    check_scatter(ic, buf, src);
    check_all(ic, buf, src);
    check_errors(ic, buf, src);
    free(buf);
    free(src);
    DFCT_OK(DFC_Comm_free(&ic));
    DFCT_OK(DFC_Comm_free(&local));
    return dfct_finalize();
}
