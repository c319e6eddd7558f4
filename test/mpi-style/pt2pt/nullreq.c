/*
 * nullreq - MPI-4.1 3.7.3 null and inactive requests, and DFC_PROC_NULL.
 *
 * Wait/Test on DFC_REQUEST_NULL or on an inactive persistent request return at once with an
 * empty status (source DFC_ANY_SOURCE, tag DFC_ANY_TAG, error DFC_SUCCESS, count 0, not
 * cancelled). An array of only such requests gives index/outcount DFC_UNDEFINED from the
 * any/some forms (Testany: flag 1). Waitall/Testall accept count 0 with NULL arrays.
 * Operations with DFC_PROC_NULL complete at once with source DFC_PROC_NULL, tag
 * DFC_ANY_TAG and count 0. Runs with any number of processes, a singleton included.
 */
#include "../dfctest.h"

#define NREQ 5

static void poison_status(DFC_Status *s) { memset(s, 0x5a, sizeof *s); }

static void check_empty_at(const DFC_Status *s, const char *what, int line)
{
    int count = -1, elems = -1, cancelled = -1;
    if (s->DFC_SOURCE != DFC_ANY_SOURCE)
        dfct_fail_at(__FILE__, line, "%s: source %d, expected DFC_ANY_SOURCE", what, s->DFC_SOURCE);
    if (s->DFC_TAG != DFC_ANY_TAG)
        dfct_fail_at(__FILE__, line, "%s: tag %d, expected DFC_ANY_TAG", what, s->DFC_TAG);
    if (s->DFC_ERROR != DFC_SUCCESS)
        dfct_fail_at(__FILE__, line, "%s: error %d, expected DFC_SUCCESS", what, s->DFC_ERROR);
    DFCT_OK(DFC_Get_count(s, DFC_INT, &count));
    DFCT_OK(DFC_Get_elements(s, DFC_BYTE, &elems));
    DFCT_OK(DFC_Test_cancelled(s, &cancelled));
    if (count != 0) dfct_fail_at(__FILE__, line, "%s: count %d, expected 0", what, count);
    if (elems != 0) dfct_fail_at(__FILE__, line, "%s: elements %d, expected 0", what, elems);
    if (cancelled != 0)
        dfct_fail_at(__FILE__, line, "%s: cancelled %d, expected 0", what, cancelled);
}
#define CHECK_EMPTY(s, what) check_empty_at((s), (what), __LINE__)

/* A PROC_NULL status: source PROC_NULL, tag ANY_TAG, count 0. */
static void check_procnull_at(const DFC_Status *s, const char *what, int line)
{
    int count = -1;
    if (s->DFC_SOURCE != DFC_PROC_NULL)
        dfct_fail_at(__FILE__, line, "%s: source %d, expected DFC_PROC_NULL", what, s->DFC_SOURCE);
    if (s->DFC_TAG != DFC_ANY_TAG)
        dfct_fail_at(__FILE__, line, "%s: tag %d, expected DFC_ANY_TAG", what, s->DFC_TAG);
    DFCT_OK(DFC_Get_count(s, DFC_INT, &count));
    if (count != 0) dfct_fail_at(__FILE__, line, "%s: count %d, expected 0", what, count);
}
#define CHECK_PROCNULL(s, what) check_procnull_at((s), (what), __LINE__)

static void null_requests(void)
{
    DFC_Request req = DFC_REQUEST_NULL, reqs[NREQ];
    DFC_Status st, sts[NREQ];
    int flag, index, outcount, indices[NREQ];

    poison_status(&st);
    DFCT_OK(DFC_Wait(&req, &st));
    CHECK_EMPTY(&st, "Wait(REQUEST_NULL)");
    DFCT_CHECK(req == DFC_REQUEST_NULL, "Wait changed a null request to 0x%x", req);
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));

    poison_status(&st);
    flag = -1;
    DFCT_OK(DFC_Test(&req, &flag, &st));
    DFCT_CHECK(flag == 1, "Test(REQUEST_NULL): flag %d, expected 1", flag);
    CHECK_EMPTY(&st, "Test(REQUEST_NULL)");

    poison_status(&st);
    flag = -1;
    DFCT_OK(DFC_Request_get_status(DFC_REQUEST_NULL, &flag, &st));
    DFCT_CHECK(flag == 1, "Request_get_status(REQUEST_NULL): flag %d, expected 1", flag);
    CHECK_EMPTY(&st, "Request_get_status(REQUEST_NULL)");

    for (int i = 0; i < NREQ; i++) reqs[i] = DFC_REQUEST_NULL;

    poison_status(&st);
    index = -1;
    DFCT_OK(DFC_Waitany(NREQ, reqs, &index, &st));
    DFCT_CHECK(index == DFC_UNDEFINED, "Waitany(all null): index %d, expected DFC_UNDEFINED",
               index);
    CHECK_EMPTY(&st, "Waitany(all null)");
    index = -1;
    DFCT_OK(DFC_Waitany(0, NULL, &index, DFC_STATUS_IGNORE));
    DFCT_CHECK(index == DFC_UNDEFINED, "Waitany(count 0): index %d, expected DFC_UNDEFINED", index);

    poison_status(&st);
    index = -1;
    flag = -1;
    DFCT_OK(DFC_Testany(NREQ, reqs, &index, &flag, &st));
    DFCT_CHECK(flag == 1, "Testany(all null): flag %d, expected 1", flag);
    DFCT_CHECK(index == DFC_UNDEFINED, "Testany(all null): index %d, expected DFC_UNDEFINED",
               index);
    CHECK_EMPTY(&st, "Testany(all null)");
    index = -1;
    flag = -1;
    DFCT_OK(DFC_Testany(0, NULL, &index, &flag, DFC_STATUS_IGNORE));
    DFCT_CHECK(flag == 1 && index == DFC_UNDEFINED, "Testany(count 0): flag %d index %d", flag,
               index);

    outcount = -1;
    DFCT_OK(DFC_Waitsome(NREQ, reqs, &outcount, indices, sts));
    DFCT_CHECK(outcount == DFC_UNDEFINED, "Waitsome(all null): outcount %d, expected DFC_UNDEFINED",
               outcount);
    outcount = -1;
    DFCT_OK(DFC_Testsome(NREQ, reqs, &outcount, indices, DFC_STATUSES_IGNORE));
    DFCT_CHECK(outcount == DFC_UNDEFINED, "Testsome(all null): outcount %d, expected DFC_UNDEFINED",
               outcount);
    outcount = -1;
    DFCT_OK(DFC_Waitsome(0, NULL, &outcount, NULL, NULL));
    DFCT_CHECK(outcount == DFC_UNDEFINED, "Waitsome(count 0): outcount %d", outcount);
    outcount = -1;
    DFCT_OK(DFC_Testsome(0, NULL, &outcount, NULL, NULL));
    DFCT_CHECK(outcount == DFC_UNDEFINED, "Testsome(count 0): outcount %d", outcount);

    for (int i = 0; i < NREQ; i++) poison_status(&sts[i]);
    DFCT_OK(DFC_Waitall(NREQ, reqs, sts));
    for (int i = 0; i < NREQ; i++) CHECK_EMPTY(&sts[i], "Waitall(all null)");
    for (int i = 0; i < NREQ; i++) poison_status(&sts[i]);
    flag = -1;
    DFCT_OK(DFC_Testall(NREQ, reqs, &flag, sts));
    DFCT_CHECK(flag == 1, "Testall(all null): flag %d", flag);
    for (int i = 0; i < NREQ; i++) CHECK_EMPTY(&sts[i], "Testall(all null)");
    DFCT_OK(DFC_Waitall(NREQ, reqs, DFC_STATUSES_IGNORE));

    /* Count 0 with NULL arrays. */
    DFCT_OK(DFC_Waitall(0, NULL, NULL));
    DFCT_OK(DFC_Waitall(0, NULL, DFC_STATUSES_IGNORE));
    flag = -1;
    DFCT_OK(DFC_Testall(0, NULL, &flag, NULL));
    DFCT_CHECK(flag == 1, "Testall(count 0): flag %d", flag);
    DFCT_OK(DFC_Startall(0, NULL));
    for (int i = 0; i < NREQ; i++) DFCT_CHECK(reqs[i] == DFC_REQUEST_NULL, "request %d changed", i);
}

static void inactive_persistent(int rank)
{
    int buf[4] = {1, 2, 3, 4};
    DFC_Request reqs[3];
    DFC_Status st, sts[3];
    int flag, index, outcount, indices[3];

    /* Inactive persistent requests to/from ourselves: never started. */
    DFCT_OK(DFC_Send_init(buf, 4, DFC_INT, rank, 11, DFC_COMM_WORLD, &reqs[0]));
    DFCT_OK(DFC_Recv_init(buf, 4, DFC_INT, rank, 11, DFC_COMM_WORLD, &reqs[1]));
    reqs[2] = DFC_REQUEST_NULL;
    DFCT_CHECK(reqs[0] != DFC_REQUEST_NULL && reqs[1] != DFC_REQUEST_NULL,
               "Send/Recv_init gave null");

    poison_status(&st);
    DFCT_OK(DFC_Wait(&reqs[0], &st));
    CHECK_EMPTY(&st, "Wait(inactive)");
    DFCT_CHECK(reqs[0] != DFC_REQUEST_NULL, "Wait(inactive) nulled a persistent request");
    poison_status(&st);
    flag = -1;
    DFCT_OK(DFC_Test(&reqs[1], &flag, &st));
    DFCT_CHECK(flag == 1, "Test(inactive): flag %d", flag);
    CHECK_EMPTY(&st, "Test(inactive)");
    DFCT_CHECK(reqs[1] != DFC_REQUEST_NULL, "Test(inactive) nulled a persistent request");
    poison_status(&st);
    flag = -1;
    DFCT_OK(DFC_Request_get_status(reqs[1], &flag, &st));
    DFCT_CHECK(flag == 1, "Request_get_status(inactive): flag %d", flag);
    CHECK_EMPTY(&st, "Request_get_status(inactive)");

    index = -1;
    poison_status(&st);
    DFCT_OK(DFC_Waitany(3, reqs, &index, &st));
    DFCT_CHECK(index == DFC_UNDEFINED, "Waitany(inactive+null): index %d", index);
    CHECK_EMPTY(&st, "Waitany(inactive+null)");
    index = -1;
    flag = -1;
    DFCT_OK(DFC_Testany(3, reqs, &index, &flag, &st));
    DFCT_CHECK(flag == 1 && index == DFC_UNDEFINED, "Testany(inactive+null): flag %d index %d",
               flag, index);
    outcount = -1;
    DFCT_OK(DFC_Waitsome(3, reqs, &outcount, indices, sts));
    DFCT_CHECK(outcount == DFC_UNDEFINED, "Waitsome(inactive+null): outcount %d", outcount);
    outcount = -1;
    DFCT_OK(DFC_Testsome(3, reqs, &outcount, indices, sts));
    DFCT_CHECK(outcount == DFC_UNDEFINED, "Testsome(inactive+null): outcount %d", outcount);
    for (int i = 0; i < 3; i++) poison_status(&sts[i]);
    DFCT_OK(DFC_Waitall(3, reqs, sts));
    for (int i = 0; i < 3; i++) CHECK_EMPTY(&sts[i], "Waitall(inactive+null)");
    flag = -1;
    DFCT_OK(DFC_Testall(3, reqs, &flag, sts));
    DFCT_CHECK(flag == 1, "Testall(inactive+null): flag %d", flag);
    DFCT_CHECK(reqs[0] != DFC_REQUEST_NULL && reqs[1] != DFC_REQUEST_NULL,
               "Waitall/Testall nulled inactive persistent requests");

    /* One round through them, then they are inactive again. */
    int out[4] = {0};
    DFCT_OK(DFC_Request_free(&reqs[1]));
    DFCT_CHECK(reqs[1] == DFC_REQUEST_NULL, "Request_free did not null the handle");
    DFCT_OK(DFC_Recv_init(out, 4, DFC_INT, rank, 11, DFC_COMM_WORLD, &reqs[1]));
    DFCT_OK(DFC_Startall(2, reqs));
    DFCT_OK(DFC_Waitall(2, reqs, sts));
    DFCT_CHECK(sts[1].DFC_SOURCE == rank && sts[1].DFC_TAG == 11, "self receive status %d/%d",
               sts[1].DFC_SOURCE, sts[1].DFC_TAG);
    for (int i = 0; i < 4; i++) DFCT_CHECK(out[i] == i + 1, "self receive out[%d] = %d", i, out[i]);
    poison_status(&st);
    DFCT_OK(DFC_Wait(&reqs[1], &st));
    CHECK_EMPTY(&st, "Wait(inactive after a completed round)");
    DFCT_OK(DFC_Request_free(&reqs[0]));
    DFCT_OK(DFC_Request_free(&reqs[1]));
    DFCT_CHECK(reqs[0] == DFC_REQUEST_NULL && reqs[1] == DFC_REQUEST_NULL, "Request_free");
}

static void proc_null(void)
{
    int buf[8], sbuf[8];
    DFC_Request req, reqs[4];
    DFC_Status st, sts[4];
    int flag;

    for (int i = 0; i < 8; i++) {
        buf[i] = -1000 - i;
        sbuf[i] = i;
    }
    DFCT_OK(DFC_Send(sbuf, 8, DFC_INT, DFC_PROC_NULL, 3, DFC_COMM_WORLD));
    DFCT_OK(DFC_Ssend(sbuf, 8, DFC_INT, DFC_PROC_NULL, 3, DFC_COMM_WORLD));
    DFCT_OK(DFC_Send(NULL, 0, DFC_INT, DFC_PROC_NULL, 3, DFC_COMM_WORLD));

    poison_status(&st);
    DFCT_OK(DFC_Recv(buf, 8, DFC_INT, DFC_PROC_NULL, 3, DFC_COMM_WORLD, &st));
    CHECK_PROCNULL(&st, "Recv(PROC_NULL)");
    for (int i = 0; i < 8; i++) DFCT_CHECK(buf[i] == -1000 - i, "Recv(PROC_NULL) wrote buf[%d]", i);
    poison_status(&st);
    DFCT_OK(DFC_Recv(buf, 8, DFC_INT, DFC_PROC_NULL, DFC_ANY_TAG, DFC_COMM_WORLD, &st));
    CHECK_PROCNULL(&st, "Recv(PROC_NULL, ANY_TAG)");

    /* Nonblocking: complete on the first Test. */
    DFCT_OK(DFC_Irecv(buf, 8, DFC_INT, DFC_PROC_NULL, 5, DFC_COMM_WORLD, &req));
    poison_status(&st);
    flag = 0;
    DFCT_OK(DFC_Test(&req, &flag, &st));
    DFCT_CHECK(flag == 1, "Test(Irecv from PROC_NULL): flag %d", flag);
    DFCT_CHECK(req == DFC_REQUEST_NULL, "completed Irecv request not nulled");
    CHECK_PROCNULL(&st, "Irecv(PROC_NULL)");
    for (int i = 0; i < 8; i++)
        DFCT_CHECK(buf[i] == -1000 - i, "Irecv(PROC_NULL) wrote buf[%d]", i);

    DFCT_OK(DFC_Isend(sbuf, 8, DFC_INT, DFC_PROC_NULL, 5, DFC_COMM_WORLD, &req));
    flag = 0;
    poison_status(&st);
    DFCT_OK(DFC_Test(&req, &flag, &st));
    DFCT_CHECK(flag == 1, "Test(Isend to PROC_NULL): flag %d", flag);
    DFCT_CHECK(req == DFC_REQUEST_NULL, "completed Isend request not nulled");

    DFCT_OK(DFC_Issend(sbuf, 8, DFC_INT, DFC_PROC_NULL, 5, DFC_COMM_WORLD, &reqs[0]));
    DFCT_OK(DFC_Irecv(buf, 8, DFC_INT, DFC_PROC_NULL, DFC_ANY_TAG, DFC_COMM_WORLD, &reqs[1]));
    DFCT_OK(DFC_Isend(sbuf, 0, DFC_INT, DFC_PROC_NULL, 0, DFC_COMM_WORLD, &reqs[2]));
    DFCT_OK(DFC_Irecv(NULL, 0, DFC_INT, DFC_PROC_NULL, 0, DFC_COMM_WORLD, &reqs[3]));
    flag = 0;
    for (int i = 0; i < 4; i++) poison_status(&sts[i]);
    DFCT_OK(DFC_Testall(4, reqs, &flag, sts));
    DFCT_CHECK(flag == 1, "Testall(PROC_NULL requests): flag %d", flag);
    for (int i = 0; i < 4; i++) {
        /* MPI defines the status of receives from PROC_NULL; that of sends is not read. */
        if (i % 2) CHECK_PROCNULL(&sts[i], "Testall(Irecv from PROC_NULL)");
        DFCT_CHECK(reqs[i] == DFC_REQUEST_NULL, "Testall left request %d", i);
    }

    /* Persistent to PROC_NULL: start, complete, inactive again. */
    DFCT_OK(DFC_Recv_init(buf, 8, DFC_INT, DFC_PROC_NULL, 9, DFC_COMM_WORLD, &reqs[0]));
    DFCT_OK(DFC_Send_init(sbuf, 8, DFC_INT, DFC_PROC_NULL, 9, DFC_COMM_WORLD, &reqs[1]));
    DFCT_OK(DFC_Ssend_init(sbuf, 8, DFC_INT, DFC_PROC_NULL, 9, DFC_COMM_WORLD, &reqs[2]));
    for (int it = 0; it < 3; it++) {
        DFCT_OK(DFC_Startall(3, reqs));
        for (int i = 0; i < 3; i++) poison_status(&sts[i]);
        DFCT_OK(DFC_Waitall(3, reqs, sts));
        CHECK_PROCNULL(&sts[0], "persistent Recv_init from PROC_NULL");
        DFCT_CHECK(reqs[0] != DFC_REQUEST_NULL && reqs[1] != DFC_REQUEST_NULL &&
                       reqs[2] != DFC_REQUEST_NULL,
                   "Waitall nulled persistent requests");
    }
    for (int i = 0; i < 3; i++) DFCT_OK(DFC_Request_free(&reqs[i]));

    /* Sendrecv and Sendrecv_replace with PROC_NULL on both sides. */
    poison_status(&st);
    DFCT_OK(DFC_Sendrecv(sbuf, 8, DFC_INT, DFC_PROC_NULL, 1, buf, 8, DFC_INT, DFC_PROC_NULL, 1,
                         DFC_COMM_WORLD, &st));
    CHECK_PROCNULL(&st, "Sendrecv(PROC_NULL)");
    for (int i = 0; i < 8; i++)
        DFCT_CHECK(buf[i] == -1000 - i, "Sendrecv(PROC_NULL) wrote buf[%d]", i);
    poison_status(&st);
    DFCT_OK(DFC_Sendrecv_replace(buf, 8, DFC_INT, DFC_PROC_NULL, 1, DFC_PROC_NULL, 1,
                                 DFC_COMM_WORLD, &st));
    CHECK_PROCNULL(&st, "Sendrecv_replace(PROC_NULL)");
    for (int i = 0; i < 8; i++)
        DFCT_CHECK(buf[i] == -1000 - i, "Sendrecv_replace(PROC_NULL) changed buf[%d] to %d", i,
                   buf[i]);

    /* Probe of PROC_NULL. */
    poison_status(&st);
    DFCT_OK(DFC_Probe(DFC_PROC_NULL, DFC_ANY_TAG, DFC_COMM_WORLD, &st));
    CHECK_PROCNULL(&st, "Probe(PROC_NULL)");
    poison_status(&st);
    flag = 0;
    DFCT_OK(DFC_Iprobe(DFC_PROC_NULL, 4, DFC_COMM_WORLD, &flag, &st));
    DFCT_CHECK(flag == 1, "Iprobe(PROC_NULL): flag %d", flag);
    CHECK_PROCNULL(&st, "Iprobe(PROC_NULL)");
}

int main(int argc, char **argv)
{
    int rank;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);

    DFCT_CHECK(DFC_STATUS_IGNORE == DFC_STATUSES_IGNORE,
               "DFC_STATUS_IGNORE != DFC_STATUSES_IGNORE");
    null_requests();
    inactive_persistent(rank);
    proc_null();
    return dfct_finalize();
}
