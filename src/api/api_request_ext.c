/*
 * api_request_ext.c - MPI-4.1's Request_get_status_all/any/some (the Test forms that leave
 * the requests as they are) and the status accessors (Status_set_elements(_x),
 * Status_set_cancelled, Status_get/set_source/tag/error), issue 17 part 3.
 * Null and inactive requests count as complete with an empty status, as in the Test forms.
 */
#include "api/dfc_api.h"

static int fail_null(const char *func, const char *argname)
{
    return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", argname);
}

/* count, the array and every handle in it; *active: how many are active. */
static int check_reqs(const char *func, const char *countname, int count, const DFC_Request reqs[])
{
    int rc = dfc_api_check_count(func, countname, count);
    if (rc) return rc;
    if (count > 0 && !reqs) return fail_null(func, "array_of_requests");
    for (int i = 0; i < count; i++)
        if (reqs[i] != DFC_REQUEST_NULL && !dfc_req_get(reqs[i]))
            return dfc_err(DFC_ERR_REQUEST, func,
                           "invalid argument array_of_requests: element %d (0x%x) is not a "
                           "valid request (freed or never created)",
                           i, (unsigned)reqs[i]);
    return DFC_SUCCESS;
}

static DFC_Status *status_at(DFC_Status *arr, int i)
{
    return arr == DFC_STATUSES_IGNORE || !arr ? DFC_STATUS_IGNORE : &arr[i];
}

/* The status of request r (NULL or inactive: empty), into out unless ignored; returns the
 * operation's error (a generalized request's query_fn runs here). */
static int peek(dfc_req_t *r, DFC_Status *out)
{
    DFC_Status empty;
    const DFC_Status *st = &empty;
    int err = DFC_SUCCESS;
    dfc_status_empty(&empty);
    if (!dfc_req_is_inert(r)) {
        err = r->kind == DFC_REQ_GREQ ? dfc_greq_query(r) : r->status.DFC_ERROR;
        st = &r->status;
    }
    if (out && out != DFC_STATUS_IGNORE) *out = *st;
    return err;
}

/* Counts complete active requests (*done) and active ones (*active). */
static void scan(int count, const DFC_Request reqs[], int *done, int *active)
{
    *done = *active = 0;
    for (int i = 0; i < count; i++) {
        dfc_req_t *r = dfc_req_get(reqs[i]);
        if (dfc_req_is_inert(r)) continue;
        (*active)++;
        if (r->complete) (*done)++;
    }
}

/* One progress pass unless a request is complete already (or `all` and all are). */
static int poll_unless(int count, const DFC_Request reqs[], int all)
{
    int done, active, rc;
    scan(count, reqs, &done, &active);
    if (active == 0 || (all ? done == active : done > 0)) return DFC_SUCCESS;
    return (rc = -dfc_progress_poll()) > 0 ? rc : DFC_SUCCESS;
}

int DFC_Request_get_status_all(int count, const DFC_Request array_of_requests[], int *flag,
                               DFC_Status array_of_statuses[])
{
    int rc, done, active, nerr = 0;
    DFC_API_ENTER();
    if ((rc = check_reqs(__func__, "count", count, array_of_requests)) ||
        (rc = dfc_api_check_ptr(__func__, "flag", flag)) ||
        (rc = poll_unless(count, array_of_requests, 1)))
        goto fn_fail;
    scan(count, array_of_requests, &done, &active);
    *flag = done == active;
    for (int i = 0; *flag && i < count; i++)
        if (peek(dfc_req_get(array_of_requests[i]), status_at(array_of_statuses, i))) nerr++;
    if (nerr) {
        rc = dfc_err(DFC_ERR_IN_STATUS, __func__,
                     "%d of %d requests failed; see the statuses' DFC_ERROR", nerr, count);
        goto fn_fail;
    }
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Request_get_status_any(int count, const DFC_Request array_of_requests[], int *index,
                               int *flag, DFC_Status *status)
{
    int rc, done, active;
    DFC_API_ENTER();
    if ((rc = check_reqs(__func__, "count", count, array_of_requests)) ||
        (rc = dfc_api_check_ptr(__func__, "index", index)) ||
        (rc = dfc_api_check_ptr(__func__, "flag", flag)) ||
        (rc = poll_unless(count, array_of_requests, 0)))
        goto fn_fail;
    scan(count, array_of_requests, &done, &active);
    *index = DFC_UNDEFINED;
    *flag = active == 0 || done > 0;
    if (active == 0) peek(NULL, status);
    for (int i = 0; done && i < count; i++) {
        dfc_req_t *r = dfc_req_get(array_of_requests[i]);
        if (dfc_req_is_inert(r) || !r->complete) continue;
        *index = i;
        if ((rc = peek(r, status))) goto fn_fail;
        break;
    }
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Request_get_status_some(int incount, const DFC_Request array_of_requests[], int *outcount,
                                int array_of_indices[], DFC_Status array_of_statuses[])
{
    int rc, done, active, n = 0, nerr = 0;
    DFC_API_ENTER();
    if ((rc = check_reqs(__func__, "incount", incount, array_of_requests)) ||
        (rc = dfc_api_check_ptr(__func__, "outcount", outcount)) ||
        (incount > 0 && (rc = dfc_api_check_ptr(__func__, "array_of_indices", array_of_indices))) ||
        (rc = poll_unless(incount, array_of_requests, 0)))
        goto fn_fail;
    scan(incount, array_of_requests, &done, &active);
    for (int i = 0; i < incount; i++) {
        dfc_req_t *r = dfc_req_get(array_of_requests[i]);
        if (dfc_req_is_inert(r) || !r->complete) continue;
        array_of_indices[n] = i;
        if (peek(r, status_at(array_of_statuses, n))) nerr++;
        n++;
    }
    *outcount = active ? n : DFC_UNDEFINED;
    if (nerr) {
        rc = dfc_err(DFC_ERR_IN_STATUS, __func__,
                     "%d completed requests failed; see the statuses' DFC_ERROR", nerr);
        goto fn_fail;
    }
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

/* ---- Status accessors ---------------------------------------------------------------------
 * They only read or write the status object, so they need no initialized library (MPI-4.1
 * allows Status calls at any time) and take no lock. */
static int check_status(const char *func, const DFC_Status *status)
{
    if (!status) return fail_null(func, "status");
    if (status == DFC_STATUS_IGNORE)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument status: DFC_STATUS_IGNORE");
    return DFC_SUCCESS;
}

static int status_error(int rc)
{
    DFC_API_ENTER();
    rc = dfc_api_error(NULL, rc);
    DFC_API_EXIT();
    return rc;
}

/* The byte count of `count` basic elements of dt (MPI's Status_set_elements), found as the
 * smallest one whose element count (dfc_dtype_elements, as Get_elements computes it) is
 * `count`: so that Get_elements and Get_count read back exactly what was set. */
static int elements_bytes(const char *func, const dfc_dtype_t *d, DFC_Count count, uint64_t *out)
{
    if (count < 0)
        return dfc_err(DFC_ERR_COUNT, func, "invalid argument count: %lld is negative",
                       (long long)count);
    DFC_Count per_item = d->size ? dfc_dtype_elements(d, d->size) : 0;
    if (per_item <= 0) {
        if (count == 0) return *out = 0, DFC_SUCCESS;
        return dfc_err(DFC_ERR_TYPE, func,
                       "invalid argument datatype: it has no elements, so %lld cannot be set",
                       (long long)count);
    }
    uint64_t items = (uint64_t)(count / per_item), base = items * d->size;
    for (uint64_t b = base; b < base + d->size; b++)
        if (dfc_dtype_elements(d, b) == count) return *out = b, DFC_SUCCESS;
    return dfc_err(DFC_ERR_TYPE, func,
                   "invalid argument count: %lld elements do not end on an element boundary "
                   "of the datatype",
                   (long long)count);
}

static int set_elements(const char *func, DFC_Status *status, DFC_Datatype datatype,
                        DFC_Count count)
{
    int rc;
    dfc_dtype_t *d;
    uint64_t bytes = 0;
    if ((rc = check_status(func, status)) ||
        (rc = dfc_dtype_check(datatype, func, "datatype", &d)) ||
        (rc = elements_bytes(func, d, count, &bytes)))
        return status_error(rc);
    dfc_status_set_bytes(status, bytes);
    return DFC_SUCCESS;
}

int DFC_Status_set_elements(DFC_Status *status, DFC_Datatype datatype, int count)
{
    return set_elements(__func__, status, datatype, count);
}

int DFC_Status_set_elements_x(DFC_Status *status, DFC_Datatype datatype, DFC_Count count)
{
    return set_elements(__func__, status, datatype, count);
}

int DFC_Status_set_cancelled(DFC_Status *status, int flag)
{
    int rc = check_status(__func__, status);
    if (rc) return status_error(rc);
    status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
    return DFC_SUCCESS;
}

/* field: 0 source, 1 tag, 2 error; get: the out-argument of a get (NULL for a set). */
static int status_field(const char *func, DFC_Status *status, const DFC_Status *in, int field,
                        int *get, int set)
{
    static const char *names[] = {"source", "tag", "error"};
    int rc = check_status(func, in);
    if (!rc && !status && (rc = dfc_api_check_ptr(func, names[field], get)))
        return status_error(rc);
    if (rc) return status_error(rc);
    if (!status) {
        *get = field == 0 ? in->DFC_SOURCE : field == 1 ? in->DFC_TAG : in->DFC_ERROR;
        return DFC_SUCCESS;
    }
    if (field == 0) status->DFC_SOURCE = set;
    else if (field == 1) status->DFC_TAG = set;
    else status->DFC_ERROR = set;
    return DFC_SUCCESS;
}

int DFC_Status_get_source(const DFC_Status *status, int *source)
{
    return status_field(__func__, NULL, status, 0, source, 0);
}
int DFC_Status_set_source(DFC_Status *status, int source)
{
    return status_field(__func__, status, status, 0, NULL, source);
}
int DFC_Status_get_tag(const DFC_Status *status, int *tag)
{
    return status_field(__func__, NULL, status, 1, tag, 0);
}
int DFC_Status_set_tag(DFC_Status *status, int tag)
{
    return status_field(__func__, status, status, 1, NULL, tag);
}
int DFC_Status_get_error(const DFC_Status *status, int *err)
{
    return status_field(__func__, NULL, status, 2, err, 0);
}
int DFC_Status_set_error(DFC_Status *status, int err)
{
    return status_field(__func__, status, status, 2, NULL, err);
}
