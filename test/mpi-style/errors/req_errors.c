/*
 * req_errors - argument errors of the request calls under DFC_ERRORS_RETURN: each returns
 * its class with a message naming the argument, leaves valid requests of the same call
 * alone, and the library still works afterwards (a checked Sendrecv round).
 *   a bogus, freed or other-kind handle -> DFC_ERR_REQUEST (Wait, Test, Start, Request_free,
 *   Cancel, Request_get_status, Request_set_callback, and inside the arrays of the
 *   any/all/some forms and Startall); Start of an active persistent request, of a
 *   non-persistent one and of DFC_REQUEST_NULL, Request_free and Cancel of
 *   DFC_REQUEST_NULL -> DFC_ERR_REQUEST; negative counts -> DFC_ERR_COUNT; NULL arrays with
 *   count > 0 and NULL flag/index/outcount pointers -> DFC_ERR_ARG; Test_cancelled with
 *   DFC_STATUS_IGNORE -> DFC_ERR_ARG.
 */
#include "../dfctest.h"

static int rank, size, rounds;

static void sendrecv_round(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, out[16], in[17];
    DFC_Status st;
    rounds++;
    for (int k = 0; k < 16; k++) out[k] = rank * 1000 + rounds * 16 + k;
    in[16] = -3;
    DFCT_OK(
        DFC_Sendrecv(out, 16, DFC_INT, right, 1, in, 16, DFC_INT, left, 1, DFC_COMM_WORLD, &st));
    int bad = 0;
    for (int k = 0; k < 16; k++) bad += in[k] != left * 1000 + rounds * 16 + k;
    DFCT_CHECK(!bad && in[16] == -3 && st.DFC_SOURCE == left,
               "Sendrecv round %d after errors: %d bad elements", rounds, bad);
}

static void cb(DFC_Request r, const DFC_Status *s, void *arg) { (*(int *)arg)++; }

/* Every single-request call with the invalid handle `R`. */
static void bad_request(DFC_Request R)
{
    DFC_Request h;
    DFC_Status st;
    int flag, calls = 0;
    h = R;
    DFCT_FAILS(DFC_Wait(&h, &st), DFC_ERR_REQUEST, "request");
    DFCT_CHECK(h == R, "a failed Wait changed the handle");
    h = R;
    DFCT_FAILS(DFC_Test(&h, &flag, &st), DFC_ERR_REQUEST, "request");
    h = R;
    DFCT_FAILS(DFC_Start(&h), DFC_ERR_REQUEST, "request");
    h = R;
    DFCT_FAILS(DFC_Request_free(&h), DFC_ERR_REQUEST, "request");
    DFCT_CHECK(h == R, "a failed Request_free changed the handle");
    h = R;
    DFCT_FAILS(DFC_Cancel(&h), DFC_ERR_REQUEST, "request");
    DFCT_FAILS(DFC_Request_get_status(R, &flag, &st), DFC_ERR_REQUEST, "request");
    DFCT_FAILS(DFC_Request_set_callback(R, cb, &calls), DFC_ERR_REQUEST, "request");
    DFCT_CHECK(calls == 0, "a callback set on an invalid request ran");
}

/* The array forms with `R` among valid pending requests: the error is reported and the
 * valid requests are untouched (completed afterwards). */
static void bad_in_array(DFC_Request R)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, in[3] = {-1, -1, -1},
        out[3] = {rank, rank, rank};
    DFC_Request reqs[4];
    DFC_Status sts[4];
    int index, flag, outcount, indices[4];
    DFCT_OK(DFC_Irecv(&in[0], 1, DFC_INT, left, 20, DFC_COMM_WORLD, &reqs[0]));
    DFCT_OK(DFC_Irecv(&in[1], 1, DFC_INT, left, 21, DFC_COMM_WORLD, &reqs[1]));
    reqs[2] = R;
    reqs[3] = DFC_REQUEST_NULL;
    DFC_Request save0 = reqs[0], save1 = reqs[1];
    DFCT_FAILS(DFC_Waitall(4, reqs, sts), DFC_ERR_REQUEST, "request");
    DFCT_FAILS(DFC_Testall(4, reqs, &flag, sts), DFC_ERR_REQUEST, "request");
    DFCT_FAILS(DFC_Waitany(4, reqs, &index, &sts[0]), DFC_ERR_REQUEST, "request");
    DFCT_FAILS(DFC_Testany(4, reqs, &index, &flag, &sts[0]), DFC_ERR_REQUEST, "request");
    DFCT_FAILS(DFC_Waitsome(4, reqs, &outcount, indices, sts), DFC_ERR_REQUEST, "request");
    DFCT_FAILS(DFC_Testsome(4, reqs, &outcount, indices, sts), DFC_ERR_REQUEST, "request");
    DFCT_CHECK(reqs[0] == save0 && reqs[1] == save1 && reqs[2] == R,
               "a failed array call changed the handles");
    /* Let the messages come and complete the valid ones. */
    DFCT_OK(DFC_Send(&out[0], 1, DFC_INT, right, 20, DFC_COMM_WORLD));
    DFCT_OK(DFC_Send(&out[1], 1, DFC_INT, right, 21, DFC_COMM_WORLD));
    DFCT_OK(DFC_Waitall(2, reqs, sts));
    DFCT_CHECK(in[0] == left && in[1] == left && sts[0].DFC_TAG == 20 && sts[1].DFC_TAG == 21,
               "valid requests next to an invalid one: got %d %d", in[0], in[1]);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    int right = (rank + 1) % size, left = (rank + size - 1) % size, x = 7, y = -1, flag, index,
        outcount;
    DFC_Request req, freed;
    DFC_Status st;

    /* Bogus handles and handles of another kind. */
    bad_request((DFC_Request)0x05fffff0);
    bad_request((DFC_Request)DFC_COMM_WORLD);
    bad_request((DFC_Request)0x05000001 + 4000);
    sendrecv_round();

    /* A freed request: completed by Wait (handle copy kept), then used at once (handles
     * are reused by later requests, so nothing is created in between). */
    DFCT_OK(DFC_Irecv(&y, 1, DFC_INT, DFC_PROC_NULL, 0, DFC_COMM_WORLD, &req));
    freed = req;
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    DFCT_CHECK(req == DFC_REQUEST_NULL, "Wait did not null the handle");
    bad_request(freed);
    DFCT_OK(DFC_Send_init(&x, 1, DFC_INT, right, 2, DFC_COMM_WORLD, &req));
    freed = req;
    DFCT_OK(DFC_Request_free(&req));
    bad_request(freed);
    sendrecv_round();

    /* Invalid handles inside arrays. */
    bad_in_array((DFC_Request)0x05fffff0);
    bad_in_array((DFC_Request)DFC_INFO_ENV);
    {
        DFC_Request starts[2];
        DFCT_OK(DFC_Recv_init(&y, 1, DFC_INT, left, 3, DFC_COMM_WORLD, &starts[0]));
        starts[1] = (DFC_Request)0x05fffff0;
        DFCT_FAILS(DFC_Startall(2, starts), DFC_ERR_REQUEST, "request");
        /* Startall checks the whole array before starting any: starts[0] is inactive. */
        flag = 0;
        DFCT_OK(DFC_Test(&starts[0], &flag, &st));
        DFCT_CHECK(flag == 1 && st.DFC_SOURCE == DFC_ANY_SOURCE,
                   "Startall with an invalid handle started the valid one (flag %d source %d)",
                   flag, st.DFC_SOURCE);
        DFCT_OK(DFC_Request_free(&starts[0]));
    }
    sendrecv_round();

    /* Null requests where a request is required. */
    req = DFC_REQUEST_NULL;
    DFCT_FAILS(DFC_Start(&req), DFC_ERR_REQUEST, "request");
    DFCT_FAILS(DFC_Request_free(&req), DFC_ERR_REQUEST, "request");
    DFCT_FAILS(DFC_Cancel(&req), DFC_ERR_REQUEST, "request");
    {
        int calls = 0;
        DFCT_FAILS(DFC_Request_set_callback(DFC_REQUEST_NULL, cb, &calls), DFC_ERR_REQUEST,
                   "request");
    }
    DFCT_FAILS(DFC_Startall(1, &req), DFC_ERR_REQUEST, "request");
    sendrecv_round();

    /* Start of an active persistent request, and of a non-persistent one. */
    {
        DFC_Request pr, nb;
        DFCT_OK(DFC_Recv_init(&y, 1, DFC_INT, left, 4, DFC_COMM_WORLD, &pr));
        DFCT_OK(DFC_Start(&pr));
        DFCT_FAILS(DFC_Start(&pr), DFC_ERR_REQUEST, "active");
        DFCT_FAILS(DFC_Startall(1, &pr), DFC_ERR_REQUEST, "active");
        DFCT_OK(DFC_Irecv(&x, 1, DFC_INT, left, 5, DFC_COMM_WORLD, &nb));
        DFCT_FAILS(DFC_Start(&nb), DFC_ERR_REQUEST, "persistent");
        /* Both complete normally: exactly one message each. */
        int a = 100 + rank, b = 200 + rank;
        DFCT_OK(DFC_Send(&a, 1, DFC_INT, right, 4, DFC_COMM_WORLD));
        DFCT_OK(DFC_Send(&b, 1, DFC_INT, right, 5, DFC_COMM_WORLD));
        DFCT_OK(DFC_Wait(&pr, &st));
        DFCT_CHECK(y == 100 + left && st.DFC_TAG == 4,
                   "active persistent receive after the failed Start: %d", y);
        DFCT_OK(DFC_Wait(&nb, &st));
        DFCT_CHECK(x == 200 + left, "Irecv after a failed Start: %d", x);
        /* No second message was posted by the failed Start: a later message on tag 4 goes to
         * the next receive. */
        DFCT_OK(DFC_Send(&b, 1, DFC_INT, right, 4, DFC_COMM_WORLD));
        DFCT_OK(DFC_Start(&pr));
        DFCT_OK(DFC_Wait(&pr, &st));
        DFCT_CHECK(y == 200 + left, "the restarted persistent receive got %d", y);
        DFCT_OK(DFC_Request_free(&pr));
    }
    sendrecv_round();

    /* Counts and pointers. */
    {
        DFC_Request reqs[2] = {DFC_REQUEST_NULL, DFC_REQUEST_NULL};
        int indices[2];
        DFCT_FAILS(DFC_Waitall(-1, reqs, DFC_STATUSES_IGNORE), DFC_ERR_COUNT, "count");
        DFCT_FAILS(DFC_Testall(-1, reqs, &flag, DFC_STATUSES_IGNORE), DFC_ERR_COUNT, "count");
        DFCT_FAILS(DFC_Waitany(-1, reqs, &index, DFC_STATUS_IGNORE), DFC_ERR_COUNT, "count");
        DFCT_FAILS(DFC_Testany(-1, reqs, &index, &flag, DFC_STATUS_IGNORE), DFC_ERR_COUNT, "count");
        DFCT_FAILS(DFC_Waitsome(-1, reqs, &outcount, indices, DFC_STATUSES_IGNORE), DFC_ERR_COUNT,
                   "count");
        DFCT_FAILS(DFC_Testsome(-1, reqs, &outcount, indices, DFC_STATUSES_IGNORE), DFC_ERR_COUNT,
                   "count");
        DFCT_FAILS(DFC_Startall(-1, reqs), DFC_ERR_COUNT, "count");
        DFCT_FAILS(DFC_Waitall(2, NULL, DFC_STATUSES_IGNORE), DFC_ERR_ARG, "array_of_requests");
        DFCT_FAILS(DFC_Waitany(2, NULL, &index, DFC_STATUS_IGNORE), DFC_ERR_ARG,
                   "array_of_requests");
        DFCT_FAILS(DFC_Testsome(2, NULL, &outcount, indices, DFC_STATUSES_IGNORE), DFC_ERR_ARG,
                   "array_of_requests");
        DFCT_FAILS(DFC_Startall(2, NULL), DFC_ERR_ARG, "array_of_requests");
        DFCT_FAILS(DFC_Test(&reqs[0], NULL, DFC_STATUS_IGNORE), DFC_ERR_ARG, "flag");
        DFCT_FAILS(DFC_Testall(2, reqs, NULL, DFC_STATUSES_IGNORE), DFC_ERR_ARG, "flag");
        DFCT_FAILS(DFC_Testany(2, reqs, NULL, &flag, DFC_STATUS_IGNORE), DFC_ERR_ARG, "index");
        DFCT_FAILS(DFC_Testany(2, reqs, &index, NULL, DFC_STATUS_IGNORE), DFC_ERR_ARG, "flag");
        DFCT_FAILS(DFC_Waitany(2, reqs, NULL, DFC_STATUS_IGNORE), DFC_ERR_ARG, "index");
        DFCT_FAILS(DFC_Waitsome(2, reqs, NULL, indices, DFC_STATUSES_IGNORE), DFC_ERR_ARG,
                   "outcount");
        DFCT_FAILS(DFC_Testsome(2, reqs, &outcount, NULL, DFC_STATUSES_IGNORE), DFC_ERR_ARG,
                   "array_of_indices");
        DFCT_FAILS(DFC_Wait(NULL, DFC_STATUS_IGNORE), DFC_ERR_ARG, "request");
        DFCT_FAILS(DFC_Request_free(NULL), DFC_ERR_ARG, "request");
        DFCT_FAILS(DFC_Request_get_status(DFC_REQUEST_NULL, NULL, DFC_STATUS_IGNORE), DFC_ERR_ARG,
                   "flag");
        DFCT_FAILS(DFC_Test_cancelled(DFC_STATUS_IGNORE, &flag), DFC_ERR_ARG, "status");
        DFCT_FAILS(DFC_Test_cancelled(NULL, &flag), DFC_ERR_ARG, "status");
        DFCT_FAILS(DFC_Test_cancelled(&st, NULL), DFC_ERR_ARG, "flag");
    }
    sendrecv_round();
    return dfct_finalize();
}
