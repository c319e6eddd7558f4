/*
 * reqstatus - Request_get_status_all/any/some (MPI-4.1 3.7.5): they report completion
 * without freeing or deactivating anything, so the requests are still there for Wait; null
 * and inactive requests count as complete with an empty status. The status accessors
 * Status_set_elements(_x), Status_set_cancelled, Status_get/set_source/tag/error, read back
 * through Get_count, Get_elements and Test_cancelled (cancel_send.c tests Cancel).
 */
#include "../dfctest.h"

static int rank, size;

static void get_status_forms(void)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    int v[3] = {rank, rank + 1, rank + 2}, w[3] = {-1, -1, -1}, u = -1, flag = -1, idx = -1, n;
    int ind[4];
    DFC_Request r[4];
    DFC_Status st[4], one;
    DFCT_OK(DFC_Irecv(w, 3, DFC_INT, from, 1, DFC_COMM_WORLD, &r[0]));
    DFCT_OK(DFC_Irecv(&u, 1, DFC_INT, from, 2, DFC_COMM_WORLD, &r[1])); /* sent later */
    r[2] = DFC_REQUEST_NULL;
    DFCT_OK(DFC_Recv_init(&u, 1, DFC_INT, from, 3, DFC_COMM_WORLD, &r[3])); /* inactive */
    DFCT_OK(DFC_Request_get_status_all(4, r, &flag, st));
    DFCT_CHECK(flag == 0, "get_status_all before any message: flag %d", flag);
    DFCT_OK(DFC_Send(v, 3, DFC_INT, to, 1, DFC_COMM_WORLD));
    for (flag = 0; !flag;) DFCT_OK(DFC_Request_get_status_any(4, r, &idx, &flag, &one));
    DFCT_CHECK(idx == 0 && one.DFC_SOURCE == from && one.DFC_TAG == 1,
               "get_status_any: index %d status %d/%d", idx, one.DFC_SOURCE, one.DFC_TAG);
    DFCT_CHECK(r[0] != DFC_REQUEST_NULL, "get_status_any freed the request");
    DFCT_OK(DFC_Request_get_status_some(4, r, &n, ind, st));
    DFCT_CHECK(n == 1 && ind[0] == 0 && st[0].DFC_TAG == 1, "get_status_some: %d, first %d", n,
               ind[0]);
    /* Tag 2 goes out only after its receiver checked the above (a token from it). */
    DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_BYTE, from, 98, NULL, 0, DFC_BYTE, to, 98, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Send(v, 1, DFC_INT, to, 2, DFC_COMM_WORLD));
    for (flag = 0; !flag;) DFCT_OK(DFC_Request_get_status_all(4, r, &flag, st));
    DFCT_CHECK(st[1].DFC_TAG == 2 && st[2].DFC_SOURCE == DFC_ANY_SOURCE &&
                   st[3].DFC_TAG == DFC_ANY_TAG,
               "get_status_all: tags %d, null source %d, inactive tag %d", st[1].DFC_TAG,
               st[2].DFC_SOURCE, st[3].DFC_TAG);
    DFCT_CHECK(r[0] != DFC_REQUEST_NULL && r[1] != DFC_REQUEST_NULL,
               "get_status_all freed a request");
    DFCT_OK(DFC_Waitall(4, r, st)); /* the requests are still there */
    DFCT_CHECK(w[0] == from && w[2] == from + 2 && u == from, "received %d %d %d", w[0], w[2], u);
    DFCT_OK(DFC_Request_free(&r[3]));
    /* Only null requests: any gives flag true and DFC_UNDEFINED, some DFC_UNDEFINED. */
    r[0] = r[1] = DFC_REQUEST_NULL;
    DFCT_OK(DFC_Request_get_status_any(2, r, &idx, &flag, &one));
    DFCT_CHECK(flag == 1 && idx == DFC_UNDEFINED, "any of nulls: flag %d index %d", flag, idx);
    DFCT_OK(DFC_Request_get_status_some(2, r, &n, ind, st));
    DFCT_CHECK(n == DFC_UNDEFINED, "some of nulls: outcount %d", n);
    DFCT_OK(DFC_Request_get_status_all(0, NULL, &flag, DFC_STATUSES_IGNORE));
    DFCT_CHECK(flag == 1, "all of none: flag %d", flag);
    r[0] = 0x05000fff;
    DFCT_FAILS(DFC_Request_get_status_all(1, r, &flag, st), DFC_ERR_REQUEST, "array_of_requests");
    DFCT_FAILS(DFC_Request_get_status_any(1, r, NULL, &flag, &one), DFC_ERR_REQUEST,
               "DFC_Request_get_status_any");
    r[0] = DFC_REQUEST_NULL;
    DFCT_FAILS(DFC_Request_get_status_any(1, r, NULL, &flag, &one), DFC_ERR_ARG, "index");
    DFCT_FAILS(DFC_Request_get_status_some(-1, r, &n, ind, st), DFC_ERR_COUNT, "incount");
}

static void accessors(void)
{
    DFC_Status st;
    int v = -1, flag = -1;
    memset(&st, 0, sizeof st);
    DFCT_OK(DFC_Status_set_source(&st, 7));
    DFCT_OK(DFC_Status_set_tag(&st, 8));
    DFCT_OK(DFC_Status_set_error(&st, DFC_ERR_TRUNCATE));
    DFCT_OK(DFC_Status_get_source(&st, &v));
    DFCT_CHECK(v == 7 && st.DFC_SOURCE == 7, "source %d", v);
    DFCT_OK(DFC_Status_get_tag(&st, &v));
    DFCT_CHECK(v == 8, "tag %d", v);
    DFCT_OK(DFC_Status_get_error(&st, &v));
    DFCT_CHECK(v == DFC_ERR_TRUNCATE, "error %d", v);
    DFCT_OK(DFC_Status_set_elements(&st, DFC_INT, 5));
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &v));
    DFCT_CHECK(v == 5, "Get_count after set_elements(INT, 5): %d", v);
    DFCT_OK(DFC_Get_count(&st, DFC_SHORT, &v));
    DFCT_CHECK(v == 10, "Get_count(SHORT) after set_elements(INT, 5): %d", v);
    DFCT_OK(DFC_Status_set_elements_x(&st, DFC_DOUBLE_INT, 3)); /* one pair and a half */
    DFCT_OK(DFC_Get_elements(&st, DFC_DOUBLE_INT, &v));
    DFCT_CHECK(v == 3, "Get_elements(DOUBLE_INT) after set_elements_x 3: %d", v);
    DFCT_OK(DFC_Get_count(&st, DFC_DOUBLE_INT, &v));
    DFCT_CHECK(v == DFC_UNDEFINED, "Get_count(DOUBLE_INT) of 3 elements: %d", v);
    DFCT_OK(DFC_Status_set_elements(&st, DFC_DOUBLE_INT, 4));
    DFCT_OK(DFC_Get_count(&st, DFC_DOUBLE_INT, &v));
    DFCT_CHECK(v == 2, "Get_count(DOUBLE_INT) of 4 elements: %d", v);
    DFCT_OK(DFC_Status_set_cancelled(&st, 1));
    DFCT_OK(DFC_Test_cancelled(&st, &flag));
    DFCT_CHECK(flag == 1, "Test_cancelled after set_cancelled(1): %d", flag);
    DFCT_OK(DFC_Get_count(&st, DFC_DOUBLE_INT, &v));
    DFCT_CHECK(v == 2, "set_cancelled changed the count: %d", v);
    DFCT_OK(DFC_Status_set_cancelled(&st, 0));
    DFCT_OK(DFC_Test_cancelled(&st, &flag));
    DFCT_CHECK(flag == 0, "Test_cancelled after set_cancelled(0): %d", flag);
    DFCT_FAILS(DFC_Status_set_elements(&st, DFC_INT, -1), DFC_ERR_COUNT, "count");
    DFCT_FAILS(DFC_Status_set_elements(&st, DFC_DATATYPE_NULL, 1), DFC_ERR_TYPE, "datatype");
    DFCT_FAILS(DFC_Status_set_elements(NULL, DFC_INT, 1), DFC_ERR_ARG, "DFC_Status_set_elements");
    DFCT_FAILS(DFC_Status_set_tag(DFC_STATUS_IGNORE, 1), DFC_ERR_ARG, "status");
    DFCT_FAILS(DFC_Status_get_source(&st, NULL), DFC_ERR_ARG, "source");
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    get_status_forms();
    accessors();
    return dfct_finalize();
}
