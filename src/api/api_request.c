/*
 * api_request.c - completion: Wait/Test and their any/all/some forms, Start, Request_free,
 * Cancel, callbacks. Null and inactive requests behave as MPI-4.1 3.7.3 says: they count as
 * complete with an empty status, and an array of only such requests gives DFC_UNDEFINED.
 */
#include <string.h>

#include "api/dfc_api.h"

DFC_Status dfc_status_ignore_marker[1]; /* never written: its address is the marker */

/* Looks up a request handle. *r is NULL for DFC_REQUEST_NULL. */
static int get_req(const char *func, const char *argname, DFC_Request h, dfc_req_t **r)
{
    *r = NULL;
    if (h == DFC_REQUEST_NULL) return DFC_SUCCESS;
    *r = dfc_req_get(h);
    if (*r) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_REQUEST, func,
                   "invalid argument %s: 0x%x is not a valid request (freed or never created)",
                   argname, (unsigned)h);
}

/* countname: "count", or "incount" for the some forms (MPI's argument names). */
static int check_req_array(const char *func, const char *countname, int count, DFC_Request reqs[])
{
    int rc = dfc_api_check_count(func, countname, count);
    if (rc) return rc;
    if (count > 0 && !reqs)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument array_of_requests: NULL with count %d",
                       count);
    for (int i = 0; i < count; i++) {
        dfc_req_t *r;
        if ((rc = get_req(func, "array_of_requests", reqs[i], &r))) return rc;
    }
    return DFC_SUCCESS;
}

static void set_status(DFC_Status *out, const DFC_Status *in)
{
    if (out && out != DFC_STATUS_IGNORE) *out = *in;
}

static void set_empty(DFC_Status *out)
{
    if (out && out != DFC_STATUS_IGNORE) dfc_status_empty(out);
}

/* The status of a complete request, left as it is (Request_get_status and its forms): a
 * generalized request's comes from its query_fn, whose error is the call's. */
static int peek_status(dfc_req_t *r, DFC_Status *status)
{
    int rc = r->kind == DFC_REQ_GREQ ? dfc_greq_query(r) : DFC_SUCCESS;
    set_status(status, &r->status);
    return rc;
}

/* Completes a finished request for the user: copies the status, then frees it or (if
 * persistent) makes it inactive. Returns the operation's error code. */
static int finish(DFC_Request *h, dfc_req_t *r, DFC_Status *status)
{
    int err = r->kind == DFC_REQ_GREQ ? dfc_greq_query(r) : r->status.DFC_ERROR;
    set_status(status, &r->status);
    if (r->persistent) {
        r->active = 0;
    } else {
        /* A generalized request's free_fn runs after its query_fn; its error is returned
         * when the operation itself had none (MPI-4.1 13.2). */
        int ferr = r->kind == DFC_REQ_GREQ ? dfc_greq_free_fn(r) : DFC_SUCCESS;
        if (!err) err = ferr;
        dfc_req_free(r);
        *h = DFC_REQUEST_NULL;
    }
    return err;
}

static DFC_Status *status_at(DFC_Status *arr, int i)
{
    return arr == DFC_STATUSES_IGNORE || !arr ? DFC_STATUS_IGNORE : &arr[i];
}

int DFC_Wait(DFC_Request *request, DFC_Status *status)
{
    int rc;
    dfc_req_t *r = NULL;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "request", request)) ||
        (rc = get_req(__func__, "request", *request, &r)))
        goto fn_fail;
    if (dfc_req_is_inert(r)) {
        set_empty(status);
        goto fn_exit;
    }
    c = r->comm;
    if ((rc = dfc_progress_until(&r->complete))) goto fn_fail;
    if ((rc = finish(request, r, status))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Test(DFC_Request *request, int *flag, DFC_Status *status)
{
    int rc;
    dfc_req_t *r = NULL;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "request", request)) ||
        (rc = dfc_api_check_ptr(__func__, "flag", flag)) ||
        (rc = get_req(__func__, "request", *request, &r)))
        goto fn_fail;
    *flag = 1;
    if (dfc_req_is_inert(r)) {
        set_empty(status);
        goto fn_exit;
    }
    c = r->comm;
    if (!r->complete && (rc = -dfc_progress_poll()) > 0) goto fn_fail;
    rc = DFC_SUCCESS;
    *flag = r->complete;
    if (*flag && (rc = finish(request, r, status))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Waitany(int count, DFC_Request array_of_requests[], int *index, DFC_Status *status)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = check_req_array(__func__, "count", count, array_of_requests)) ||
        (rc = dfc_api_check_ptr(__func__, "index", index)))
        goto fn_fail;
    int i;
    dfc_req_t *r;
    if ((rc = dfc_req_waitany(count, array_of_requests, &i, &r))) goto fn_fail;
    if (i < 0) {
        *index = DFC_UNDEFINED;
        set_empty(status);
        goto fn_exit;
    }
    *index = i;
    c = r->comm;
    if ((rc = finish(&array_of_requests[i], r, status))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Testany(int count, DFC_Request array_of_requests[], int *index, int *flag,
                DFC_Status *status)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = check_req_array(__func__, "count", count, array_of_requests)) ||
        (rc = dfc_api_check_ptr(__func__, "index", index)) ||
        (rc = dfc_api_check_ptr(__func__, "flag", flag)))
        goto fn_fail;
    int i;
    dfc_req_t *r;
    if ((rc = dfc_req_testany(count, array_of_requests, &i, &r))) goto fn_fail;
    *index = DFC_UNDEFINED;
    *flag = i != -1;
    if (i == -2) set_empty(status);
    if (i < 0) goto fn_exit;
    *index = i;
    c = r->comm;
    if ((rc = finish(&array_of_requests[i], r, status))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

/* Whether reqs[*first ..] are all complete or inert; *first moves past those found so. A
 * request stays complete until this wait finishes it, so a window of many requests (an
 * osu_bw window) costs one look per request in all, not one per request per pass. */
static int all_complete(int count, DFC_Request reqs[], int *first)
{
    for (; *first < count; ++*first) {
        dfc_req_t *r = dfc_req_get(reqs[*first]);
        if (!dfc_req_is_inert(r) && !r->complete) return 0;
    }
    return 1;
}

typedef struct all_wait {
    int count;
    DFC_Request *reqs;
    int first; /* reqs before it are complete or inert */
} all_wait_t;

static int all_ready(void *arg)
{
    all_wait_t *a = arg;
    return all_complete(a->count, a->reqs, &a->first);
}

/* Completes every request of the array (all are complete or inert). With an error in any,
 * returns DFC_ERR_IN_STATUS and each status's DFC_ERROR says which (MPI-4.1 3.7.5). */
static int finish_all(const char *func, int count, DFC_Request reqs[], DFC_Status statuses[],
                      dfc_comm_t **c)
{
    int nerr = 0;
    for (int i = 0; i < count; i++) {
        dfc_req_t *r = dfc_req_get(reqs[i]);
        DFC_Status *st = status_at(statuses, i);
        if (dfc_req_is_inert(r)) {
            set_empty(st);
            continue;
        }
        *c = r->comm;
        if (finish(&reqs[i], r, st)) nerr++;
    }
    if (!nerr) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_IN_STATUS, func, "%d of %d requests failed; see the statuses' DFC_ERROR",
                   nerr, count);
}

int DFC_Waitall(int count, DFC_Request array_of_requests[], DFC_Status array_of_statuses[])
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = check_req_array(__func__, "count", count, array_of_requests))) goto fn_fail;
    all_wait_t a = {count, array_of_requests, 0};
    if ((rc = dfc_progress_wait(all_ready, &a)) ||
        (rc = finish_all(__func__, count, array_of_requests, array_of_statuses, &c)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Testall(int count, DFC_Request array_of_requests[], int *flag,
                DFC_Status array_of_statuses[])
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = check_req_array(__func__, "count", count, array_of_requests)) ||
        (rc = dfc_api_check_ptr(__func__, "flag", flag)))
        goto fn_fail;
    int first = 0;
    if (!all_complete(count, array_of_requests, &first) && (rc = -dfc_progress_poll()) > 0)
        goto fn_fail;
    rc = DFC_SUCCESS;
    *flag = all_complete(count, array_of_requests, &first);
    if (*flag && (rc = finish_all(__func__, count, array_of_requests, array_of_statuses, &c)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

/* Completes every finished active request; *outcount = DFC_UNDEFINED if all are inert. */
static int finish_some(const char *func, int incount, DFC_Request reqs[], int *outcount,
                       int indices[], DFC_Status statuses[], dfc_comm_t **c)
{
    int n = 0, any_active = 0, nerr = 0;
    for (int i = 0; i < incount; i++) {
        dfc_req_t *r = dfc_req_get(reqs[i]);
        if (dfc_req_is_inert(r)) continue;
        any_active = 1;
        if (!r->complete) continue;
        *c = r->comm;
        indices[n] = i;
        if (finish(&reqs[i], r, status_at(statuses, n))) nerr++;
        n++;
    }
    *outcount = any_active ? n : DFC_UNDEFINED;
    if (!nerr) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_IN_STATUS, func,
                   "%d completed requests failed; see the statuses' DFC_ERROR", nerr);
}

int DFC_Waitsome(int incount, DFC_Request array_of_requests[], int *outcount,
                 int array_of_indices[], DFC_Status array_of_statuses[])
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = check_req_array(__func__, "incount", incount, array_of_requests)) ||
        (rc = dfc_api_check_ptr(__func__, "outcount", outcount)) ||
        (incount > 0 && (rc = dfc_api_check_ptr(__func__, "array_of_indices", array_of_indices))))
        goto fn_fail;
    int i;
    dfc_req_t *r;
    if ((rc = dfc_req_waitany(incount, array_of_requests, &i, &r)) ||
        (rc = finish_some(__func__, incount, array_of_requests, outcount, array_of_indices,
                          array_of_statuses, &c)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Testsome(int incount, DFC_Request array_of_requests[], int *outcount,
                 int array_of_indices[], DFC_Status array_of_statuses[])
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = check_req_array(__func__, "incount", incount, array_of_requests)) ||
        (rc = dfc_api_check_ptr(__func__, "outcount", outcount)) ||
        (incount > 0 && (rc = dfc_api_check_ptr(__func__, "array_of_indices", array_of_indices))))
        goto fn_fail;
    int i;
    dfc_req_t *r;
    if ((rc = dfc_req_testany(incount, array_of_requests, &i, &r))) goto fn_fail;
    if ((rc = finish_some(__func__, incount, array_of_requests, outcount, array_of_indices,
                          array_of_statuses, &c)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Start(DFC_Request *request)
{
    int rc;
    dfc_req_t *r = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "request", request)) ||
        (rc = get_req(__func__, "request", *request, &r)))
        goto fn_fail;
    if (!r || !r->persistent) {
        rc = DFC_ERR(DFC_ERR_REQUEST, "invalid argument request: not a persistent request");
        goto fn_fail;
    }
    if (r->active) {
        rc = DFC_ERR(DFC_ERR_REQUEST,
                     "invalid argument request: already active (started and not completed)");
        goto fn_fail;
    }
    if ((rc = dfc_req_start(r))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(r ? r->comm : NULL, rc);
    goto fn_exit;
}

int DFC_Startall(int count, DFC_Request array_of_requests[])
{
    int rc = check_req_array(__func__, "count", count, array_of_requests);
    if (rc) {
        DFC_API_ENTER();
        rc = dfc_api_error(NULL, rc);
        DFC_API_EXIT();
        return rc;
    }
    for (int i = 0; i < count; i++)
        if ((rc = DFC_Start(&array_of_requests[i]))) return rc;
    return DFC_SUCCESS;
}

int DFC_Request_free(DFC_Request *request)
{
    int rc;
    dfc_req_t *r = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "request", request)) ||
        (rc = get_req(__func__, "request", *request, &r)))
        goto fn_fail;
    if (!r) {
        rc = DFC_ERR(DFC_ERR_REQUEST, "invalid argument request: DFC_REQUEST_NULL");
        goto fn_fail;
    }
    /* A generalized request keeps its handle until it is freed: Grequest_complete names it
     * (MPI-4.1 13.2 lets Request_free come first). */
    if (r->kind != DFC_REQ_GREQ && r != &dfc_req_sent) {
        dfc_htable_remove(&dfc_req_table, r->handle);
        r->handle = 0;
    }
    *request = DFC_REQUEST_NULL;
    dfc_req_release_user(r); /* now, or when the operation completes */
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(r ? r->comm : NULL, rc);
    goto fn_exit;
}

int DFC_Request_get_status(DFC_Request request, int *flag, DFC_Status *status)
{
    int rc;
    dfc_req_t *r = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "flag", flag)) ||
        (rc = get_req(__func__, "request", request, &r)))
        goto fn_fail;
    *flag = 1;
    if (dfc_req_is_inert(r)) {
        set_empty(status);
        goto fn_exit;
    }
    if (!r->complete && (rc = -dfc_progress_poll()) > 0) goto fn_fail;
    rc = DFC_SUCCESS;
    *flag = r->complete;
    if (*flag) rc = peek_status(r, status);
    if (rc) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(r ? r->comm : NULL, rc);
    goto fn_exit;
}

int DFC_Cancel(DFC_Request *request)
{
    int rc;
    dfc_req_t *r = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "request", request)) ||
        (rc = get_req(__func__, "request", *request, &r)))
        goto fn_fail;
    if (!r) {
        rc = DFC_ERR(DFC_ERR_REQUEST, "invalid argument request: DFC_REQUEST_NULL");
        goto fn_fail;
    }
    if (r->kind == DFC_REQ_COLL) {
        rc = DFC_ERR(DFC_ERR_REQUEST,
                     "invalid argument request: collective operations cannot be cancelled");
        goto fn_fail;
    }
    /* Receives that have not matched are cancelled, and sends whose message has not left
     * this process; later ones complete normally and Test_cancelled reports false (MPI-4.1
     * lets a cancel fail). Generalized requests call their cancel_fn. */
    if (!dfc_req_is_inert(r)) rc = dfc_req_cancel(r);
    if (rc) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(r ? r->comm : NULL, rc);
    goto fn_exit;
}

int DFC_Test_cancelled(const DFC_Status *status, int *flag)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "status", status)) ||
        (rc = dfc_api_check_ptr(__func__, "flag", flag)))
        goto fn_fail;
    if (status == DFC_STATUS_IGNORE) {
        rc = DFC_ERR(DFC_ERR_ARG, "invalid argument status: DFC_STATUS_IGNORE");
        goto fn_fail;
    }
    *flag = status->count_hi_and_cancelled & 1;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Request_set_callback(DFC_Request request, DFC_Request_callback *fn, void *arg)
{
    int rc;
    dfc_req_t *r = NULL;
    DFC_API_ENTER();
    if ((rc = get_req(__func__, "request", request, &r))) goto fn_fail;
    if (!r) {
        rc = DFC_ERR(DFC_ERR_REQUEST, "invalid argument request: DFC_REQUEST_NULL");
        goto fn_fail;
    }
    r->cb = fn;
    r->cb_arg = arg;
    /* Already complete: the completion has happened, so the callback runs now. */
    if (fn && r->complete && !dfc_req_is_inert(r)) {
        r->cb = NULL;
        fn(request, &r->status, arg);
    }
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(r ? r->comm : NULL, rc);
    goto fn_exit;
}
