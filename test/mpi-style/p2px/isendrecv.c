/*
 * isendrecv - Isendrecv and Isendrecv_replace (MPI-4.1 3.10): a ring shift at sizes from 0
 * to rendezvous, checked element by element with poisoned receive buffers; several pairs
 * in flight at once completed by Waitall in reverse order; DFC_PROC_NULL on either side;
 * a pair freed with Request_free before it completes; truncation; bad arguments.
 */
#include "../dfctest.h"

static int rank, size;

static int val(int r, int i, int k) { return r * 1000000 + i * 10000 + k % 10000; }

static void ring(int n)
{
    enum { NP = 3 };
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    int *s[NP], *r[NP], *x[NP];
    DFC_Request req[2 * NP];
    DFC_Status st[2 * NP];
    for (int i = 0; i < NP; i++) {
        s[i] = malloc((n + 1) * 4), r[i] = malloc((n + 1) * 4), x[i] = malloc((n + 1) * 4);
        for (int k = 0; k <= n; k++)
            s[i][k] = val(rank, i, k), r[i][k] = -1, x[i][k] = val(rank, i + 10, k);
        DFCT_OK(DFC_Isendrecv(s[i], n, DFC_INT, to, i, r[i], n, DFC_INT, from, i, DFC_COMM_WORLD,
                              &req[i]));
        DFCT_OK(DFC_Isendrecv_replace(x[i], n, DFC_INT, to, 100 + i, from, 100 + i, DFC_COMM_WORLD,
                                      &req[NP + i]));
    }
    for (int i = 0; i < 2 * NP; i++) st[i].DFC_SOURCE = -99;
    DFCT_OK(DFC_Waitall(2 * NP, req, st));
    for (int i = 0; i < NP; i++) {
        int bad = 0, c1 = -1, c2 = -1;
        DFCT_OK(DFC_Get_count(&st[i], DFC_INT, &c1));
        DFCT_OK(DFC_Get_count(&st[NP + i], DFC_INT, &c2));
        DFCT_CHECK(st[i].DFC_SOURCE == from && st[i].DFC_TAG == i && c1 == n,
                   "n=%d pair %d: status %d/%d count %d", n, i, st[i].DFC_SOURCE, st[i].DFC_TAG,
                   c1);
        DFCT_CHECK(st[NP + i].DFC_SOURCE == from && st[NP + i].DFC_TAG == 100 + i && c2 == n,
                   "n=%d replace %d: status %d/%d count %d", n, i, st[NP + i].DFC_SOURCE,
                   st[NP + i].DFC_TAG, c2);
        for (int k = 0; k < n; k++) {
            if (r[i][k] != val(from, i, k) && bad++ < 3)
                DFCT_CHECK(0, "n=%d pair %d element %d: %d, expected %d", n, i, k, r[i][k],
                           val(from, i, k));
            if (x[i][k] != val(from, i + 10, k) && bad++ < 3)
                DFCT_CHECK(0, "n=%d replace %d element %d: %d, expected %d", n, i, k, x[i][k],
                           val(from, i + 10, k));
        }
        DFCT_CHECK(r[i][n] == -1 && x[i][n] == val(rank, i + 10, n), "n=%d: wrote past the count",
                   n);
        free(s[i]), free(r[i]), free(x[i]);
    }
}

static void proc_null(void)
{
    int a = 5, b = -1, count = -1;
    DFC_Request req;
    DFC_Status st;
    DFCT_OK(DFC_Isendrecv(&a, 1, DFC_INT, DFC_PROC_NULL, 0, &b, 1, DFC_INT, DFC_PROC_NULL, 0,
                          DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Wait(&req, &st));
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
    DFCT_CHECK(st.DFC_SOURCE == DFC_PROC_NULL && st.DFC_TAG == DFC_ANY_TAG && count == 0 && b == -1,
               "PROC_NULL pair: %d/%d count %d b %d", st.DFC_SOURCE, st.DFC_TAG, count, b);
    DFCT_OK(DFC_Isendrecv_replace(&a, 1, DFC_INT, DFC_PROC_NULL, 0, DFC_PROC_NULL, 0,
                                  DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Wait(&req, &st));
    DFCT_CHECK(a == 5 && st.DFC_SOURCE == DFC_PROC_NULL, "PROC_NULL replace changed a to %d", a);
    /* One side only: send to the right, receive from nobody (and the converse). */
    int to = (rank + 1) % size, from = (rank - 1 + size) % size, v = rank;
    DFCT_OK(DFC_Isendrecv(&v, 1, DFC_INT, to, 7, &b, 1, DFC_INT, DFC_PROC_NULL, 7, DFC_COMM_WORLD,
                          &req));
    DFCT_OK(DFC_Wait(&req, &st));
    DFCT_OK(DFC_Isendrecv(&v, 1, DFC_INT, DFC_PROC_NULL, 7, &b, 1, DFC_INT, from, 7, DFC_COMM_WORLD,
                          &req));
    DFCT_OK(DFC_Wait(&req, &st));
    DFCT_CHECK(b == from && st.DFC_SOURCE == from, "one-sided pair got %d from %d", b,
               st.DFC_SOURCE);
}

/* Freed before it completes: the operation still happens (the receive lands). */
static void freed_early(void)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size, v = rank + 100, w = -1, z = -1;
    DFC_Request req;
    DFCT_OK(DFC_Isendrecv(&v, 1, DFC_INT, to, 8, &w, 1, DFC_INT, from, 8, DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Request_free(&req));
    DFCT_CHECK(req == DFC_REQUEST_NULL, "Request_free left the handle");
    /* A second exchange on the same tag: non-overtaking puts it after the first. */
    DFCT_OK(DFC_Sendrecv(&v, 1, DFC_INT, to, 8, &z, 1, DFC_INT, from, 8, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    DFCT_CHECK(w == from + 100 && z == from + 100, "freed pair: w %d z %d", w, z);
}

static void errors(void)
{
    int a[4] = {1, 2, 3, 4}, b[2];
    DFC_Request req;
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    DFCT_OK(DFC_Isendrecv(a, 4, DFC_INT, to, 9, b, 2, DFC_INT, from, 9, DFC_COMM_WORLD, &req));
    DFCT_FAILS(DFC_Wait(&req, DFC_STATUS_IGNORE), DFC_ERR_TRUNCATE, "DFC_Isendrecv");
    DFCT_FAILS(DFC_Isendrecv(a, -1, DFC_INT, to, 0, b, 1, DFC_INT, from, 0, DFC_COMM_WORLD, &req),
               DFC_ERR_COUNT, "sendcount");
    DFCT_FAILS(DFC_Isendrecv(a, 1, DFC_INT, to, 0, b, 1, DFC_INT, size, 0, DFC_COMM_WORLD, &req),
               DFC_ERR_RANK, "source");
    DFCT_FAILS(DFC_Isendrecv(a, 1, DFC_INT, to, -3, b, 1, DFC_INT, from, 0, DFC_COMM_WORLD, &req),
               DFC_ERR_TAG, "sendtag");
    DFCT_FAILS(DFC_Isendrecv(a, 1, DFC_INT, to, 0, b, 1, DFC_DATATYPE_NULL, from, 0, DFC_COMM_WORLD,
                             &req),
               DFC_ERR_TYPE, "recvtype");
    DFCT_FAILS(DFC_Isendrecv(a, 1, DFC_INT, to, 0, b, 1, DFC_INT, from, 0, DFC_COMM_WORLD, NULL),
               DFC_ERR_ARG, "request");
    DFCT_FAILS(DFC_Isendrecv_replace(NULL, 3, DFC_INT, to, 0, from, 0, DFC_COMM_WORLD, &req),
               DFC_ERR_BUFFER, "DFC_Isendrecv_replace");
    DFCT_FAILS(DFC_Isendrecv_replace(a, 1, DFC_INT, to, 0, from, 0, DFC_COMM_NULL, &req),
               DFC_ERR_COMM, "comm");
    /* Non-contiguous types are refused, before anything is sent, by the calls of this family
     * that move bytes unpacked (Isendrecv, Bsend, Mrecv, Alltoallw). */
    DFC_Datatype vec;
    DFCT_OK(DFC_Type_vector(2, 1, 2, DFC_INT, &vec));
    DFCT_OK(DFC_Type_commit(&vec));
    DFCT_FAILS(DFC_Isendrecv(a, 1, vec, to, 0, b, 1, DFC_INT, from, 0, DFC_COMM_WORLD, &req),
               DFC_ERR_UNSUPPORTED_OPERATION, "sendtype");
    DFCT_FAILS(DFC_Isendrecv(a, 1, DFC_INT, to, 0, b, 1, vec, from, 0, DFC_COMM_WORLD, &req),
               DFC_ERR_UNSUPPORTED_OPERATION, "recvtype");
    DFCT_FAILS(DFC_Isendrecv_replace(a, 1, vec, to, 0, from, 0, DFC_COMM_WORLD, &req),
               DFC_ERR_UNSUPPORTED_OPERATION, "non-contiguous");
    DFCT_FAILS(DFC_Bsend(a, 1, vec, to, 0, DFC_COMM_WORLD), DFC_ERR_UNSUPPORTED_OPERATION,
               "DFC_Bsend");
    DFC_Message msg = DFC_MESSAGE_NULL;
    DFCT_FAILS(DFC_Mrecv(b, 1, vec, &msg, DFC_STATUS_IGNORE), DFC_ERR_UNSUPPORTED_OPERATION,
               "DFC_Mrecv");
    int cnt[64] = {0}, dsp[64] = {0};
    DFC_Datatype types[64];
    for (int i = 0; i < 64; i++) types[i] = vec;
    if (size <= 64)
        DFCT_FAILS(DFC_Alltoallw(a, cnt, dsp, types, b, cnt, dsp, types, DFC_COMM_WORLD),
                   DFC_ERR_UNSUPPORTED_OPERATION, "sendtypes");
    DFCT_OK(DFC_Type_free(&vec));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    int sizes[] = {0, 1, 100, 4096, 4097, 70000};
    for (int i = 0; i < 6; i++) ring(sizes[i]);
    proc_null();
    freed_early();
    errors();
    return dfct_finalize();
}
