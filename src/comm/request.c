/*
 * request.c - request objects: creation, handles, completion (with the user's callback),
 * persistent restart.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

dfc_htable_t dfc_req_table;

dfc_req_t *dfc_req_new(int kind, dfc_comm_t *comm)
{
    dfc_req_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->kind = kind;
    r->comm = comm;
    r->active = 1;
    r->id = (uint64_t)(uintptr_t)r;
    dfc_list_init(&r->link);
    dfc_status_empty(&r->status);
    if (comm) comm->refcount++;
    return r;
}

int dfc_req_handle(dfc_req_t *req, DFC_Request *out)
{
    int h = dfc_htable_add(&dfc_req_table, req);
    if (!h) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory allocating a request handle");
    req->handle = h;
    *out = h;
    return DFC_SUCCESS;
}

void dfc_req_complete(dfc_req_t *req)
{
    int rc = dfc_req_stage_out(req); /* device buffers: the shadows' contents go back */
    if (rc && !req->status.DFC_ERROR) req->status.DFC_ERROR = rc;
    req->complete = 1;
    dfc_progress_changed = 1; /* another thread may wait for it (progress.c) */
    if (req->cb) {
        /* Cleared before the call, so a callback that re-arms a persistent request is not
         * run twice for one completion. */
        DFC_Request_callback *cb = req->cb;
        req->cb = NULL;
        cb(req->handle ? req->handle : DFC_REQUEST_NULL, &req->status, req->cb_arg);
    }
    /* Freed by the user while active: nobody will wait for it, so it goes now. Callers
     * of dfc_req_complete never touch the request afterwards. */
    if (req->user_freed) dfc_req_free(req);
}

void dfc_req_free(dfc_req_t *req)
{
    if (req->destroy) req->destroy(req);
    dfc_req_unstage(req);
    if (req->handle) dfc_htable_remove(&dfc_req_table, req->handle);
    if (req->comm) dfc_comm_release(req->comm);
    free(req);
}

int dfc_req_start(dfc_req_t *req)
{
    /* Collectives copy in from dfc_coll_start, which also serves nonblocking calls. */
    int rc = req->kind == DFC_REQ_COLL ? DFC_SUCCESS : dfc_req_stage_in(req);
    if (rc) return rc;
    req->active = 1;
    req->complete = 0;
    req->cancelled = 0;
    dfc_status_empty(&req->status);
    switch (req->kind) {
    case DFC_REQ_SEND:
        if (req->start) return req->start(req); /* Bsend_init (bsend.c) */
        return dfc_p2p_isend(req->comm, 0, req->sbuf, req->bytes, req->peer, req->tag, req->sync,
                             req);
    case DFC_REQ_RECV:
        return dfc_p2p_irecv(req->comm, 0, req->rbuf, req->bytes, req->peer, req->tag, req);
    default:
        return req->start ? req->start(req) : DFC_ERR(DFC_ERR_REQUEST, "request cannot be started");
    }
}

void dfc_req_init_internal(dfc_req_t *r, dfc_comm_t *comm)
{
    memset(r, 0, sizeof *r);
    r->comm = comm;
    r->active = 1;
    r->id = (uint64_t)(uintptr_t)r;
    dfc_list_init(&r->link);
    dfc_status_empty(&r->status);
}

int dfc_req_first_complete(int count, const DFC_Request reqs[])
{
    int any_active = 0;
    for (int i = 0; i < count; i++) {
        dfc_req_t *r = dfc_req_get(reqs[i]);
        if (dfc_req_is_inert(r)) continue;
        any_active = 1;
        if (r->complete) return i;
    }
    return any_active ? -1 : -2;
}

typedef struct any_wait {
    int count;
    const DFC_Request *reqs;
} any_wait_t;

static int any_ready(void *arg)
{
    any_wait_t *a = arg;
    return dfc_req_first_complete(a->count, a->reqs) != -1;
}

int dfc_req_waitany(int count, const DFC_Request reqs[], int *index, dfc_req_t **r)
{
    any_wait_t a = {count, reqs};
    int rc = dfc_progress_wait(any_ready, &a);
    if (rc) return rc;
    *index = dfc_req_first_complete(count, reqs);
    *r = *index >= 0 ? dfc_req_get(reqs[*index]) : NULL;
    return DFC_SUCCESS;
}

int dfc_req_testany(int count, const DFC_Request reqs[], int *index, dfc_req_t **r)
{
    int rc;
    *r = NULL;
    if ((*index = dfc_req_first_complete(count, reqs)) == -1) {
        if ((rc = -dfc_progress_poll()) > 0) return rc;
        *index = dfc_req_first_complete(count, reqs);
    }
    if (*index >= 0) *r = dfc_req_get(reqs[*index]);
    return DFC_SUCCESS;
}
