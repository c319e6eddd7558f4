/*
 * greq - generalized requests (MPI-4.1 13.2): the user's query, free and cancel functions
 * run in MPI's order, each with its extra_state:
 *   Wait/Test: query_fn (its status is the one returned), then free_fn;
 *   Request_get_status: query_fn only, the request stays;
 *   Request_free before Grequest_complete: free_fn at Grequest_complete, with no query_fn;
 *   Cancel: cancel_fn(complete = whether Grequest_complete was called);
 *   an error from query_fn is the Wait's error (and DFC_ERR_IN_STATUS in Waitall).
 * Also: Grequest_complete twice, or on a request that is not generalized, is an error;
 * a generalized request in a Waitall with a point-to-point one.
 */
#include "../dfctest.h"

typedef struct state {
    char log[64];
    int query_rc, cancelled, id;
} state_t;

static void note(state_t *s, char c)
{
    size_t n = strlen(s->log);
    if (n + 1 < sizeof s->log) s->log[n] = c, s->log[n + 1] = 0;
}

static int query(void *extra, DFC_Status *st)
{
    state_t *s = extra;
    note(s, 'q');
    DFC_Status_set_elements(st, DFC_INT, 3 + s->id);
    DFC_Status_set_cancelled(st, s->cancelled);
    st->DFC_SOURCE = 40 + s->id;
    st->DFC_TAG = 50 + s->id;
    return s->query_rc;
}
static int freefn(void *extra)
{
    note(extra, 'f');
    return DFC_SUCCESS;
}
static int cancelfn(void *extra, int complete)
{
    state_t *s = extra;
    note(s, complete ? 'C' : 'c');
    if (!complete) s->cancelled = 1;
    return DFC_SUCCESS;
}

static void expect(const state_t *s, const char *log, const char *what)
{
    DFCT_CHECK(!strcmp(s->log, log), "%s: callbacks ran as \"%s\", expected \"%s\"", what, s->log,
               log);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFC_Comm_set_errhandler(DFC_COMM_SELF, DFC_ERRORS_RETURN);
    DFC_Request r, keep;
    DFC_Status st;
    int flag = -1, count = -1;

    /* Test before completion: nothing runs; after: query, then free. */
    state_t a = {"", 0, 0, 0};
    DFCT_OK(DFC_Grequest_start(query, freefn, cancelfn, &a, &r));
    DFCT_OK(DFC_Test(&r, &flag, &st));
    DFCT_CHECK(flag == 0, "Test of an incomplete generalized request: flag %d", flag);
    expect(&a, "", "Test before completion");
    DFCT_OK(DFC_Request_get_status(r, &flag, &st));
    DFCT_CHECK(flag == 0, "Request_get_status before completion: flag %d", flag);
    DFCT_OK(DFC_Grequest_complete(r));
    keep = r;
    DFCT_OK(DFC_Request_get_status(r, &flag, &st));
    DFCT_CHECK(flag == 1 && st.DFC_SOURCE == 40, "Request_get_status: flag %d source %d", flag,
               st.DFC_SOURCE);
    expect(&a, "q", "Request_get_status");
    DFCT_OK(DFC_Wait(&r, &st));
    expect(&a, "qqf", "Wait");
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
    DFCT_CHECK(r == DFC_REQUEST_NULL && count == 3 && st.DFC_SOURCE == 40 && st.DFC_TAG == 50,
               "Wait: request %x count %d status %d/%d", r, count, st.DFC_SOURCE, st.DFC_TAG);
    DFCT_FAILS(DFC_Grequest_complete(keep), DFC_ERR_REQUEST, "DFC_Grequest_complete");

    /* Request_free first: free_fn at Grequest_complete, query_fn never. */
    state_t b = {"", 0, 0, 1};
    DFCT_OK(DFC_Grequest_start(query, freefn, cancelfn, &b, &r));
    keep = r;
    DFCT_OK(DFC_Request_free(&r));
    expect(&b, "", "Request_free before completion");
    DFCT_OK(DFC_Grequest_complete(keep));
    expect(&b, "f", "Grequest_complete after Request_free");

    /* Cancel before completion, then complete: cancel_fn(false), query says cancelled. */
    state_t c = {"", 0, 0, 2};
    DFCT_OK(DFC_Grequest_start(query, freefn, cancelfn, &c, &r));
    DFCT_OK(DFC_Cancel(&r));
    DFCT_OK(DFC_Grequest_complete(r));
    DFCT_OK(DFC_Cancel(&r)); /* after completion: cancel_fn(true) */
    DFCT_OK(DFC_Wait(&r, &st));
    expect(&c, "cCqf", "Cancel, complete, Cancel, Wait");
    DFCT_OK(DFC_Test_cancelled(&st, &flag));
    DFCT_CHECK(flag == 1, "Test_cancelled after cancel_fn: %d", flag);

    /* query_fn's error is the Wait's, and Waitall's DFC_ERR_IN_STATUS. */
    state_t d = {"", DFC_ERR_OTHER, 0, 3};
    DFCT_OK(DFC_Grequest_start(query, freefn, cancelfn, &d, &r));
    DFCT_OK(DFC_Grequest_complete(r));
    DFCT_FAILS(DFC_Wait(&r, &st), DFC_ERR_OTHER, "");
    expect(&d, "qf", "Wait with a failing query_fn");
    state_t e = {"", DFC_ERR_OTHER, 0, 4};
    DFC_Request two[2];
    DFC_Status sts[2];
    int x = 11, y = -1;
    DFCT_OK(DFC_Grequest_start(query, freefn, cancelfn, &e, &two[0]));
    DFCT_OK(DFC_Irecv(&y, 1, DFC_INT, 0, 3, DFC_COMM_SELF, &two[1]));
    DFCT_OK(DFC_Send(&x, 1, DFC_INT, 0, 3, DFC_COMM_SELF));
    DFCT_OK(DFC_Grequest_complete(two[0]));
    DFCT_FAILS(DFC_Waitall(2, two, sts), DFC_ERR_IN_STATUS, "DFC_Waitall");
    DFCT_CHECK(sts[0].DFC_ERROR == DFC_ERR_OTHER && sts[1].DFC_ERROR == DFC_SUCCESS && y == 11,
               "Waitall: errors %d %d, y %d", sts[0].DFC_ERROR, sts[1].DFC_ERROR, y);
    expect(&e, "qf", "Waitall");

    /* A request that is not generalized is refused. */
    DFCT_OK(DFC_Irecv(&y, 1, DFC_INT, 0, 4, DFC_COMM_SELF, &r));
    DFCT_FAILS(DFC_Grequest_complete(r), DFC_ERR_REQUEST, "not a generalized request");
    DFCT_OK(DFC_Cancel(&r));
    DFCT_OK(DFC_Wait(&r, &st));
    DFCT_FAILS(DFC_Grequest_complete(DFC_REQUEST_NULL), DFC_ERR_REQUEST, "request");
    DFCT_FAILS(DFC_Grequest_start(query, freefn, cancelfn, NULL, NULL), DFC_ERR_ARG, "request");
    return dfct_finalize();
}
