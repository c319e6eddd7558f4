/*
 * greq.c - requests that are not one transfer: generalized requests (MPI-4.1 13.2), whose
 * operation the user runs and completes with Grequest_complete, and Isendrecv(_replace)
 * (3.10), a send and a receive completing as one request. Also the Cancel dispatch.
 *
 * Generalized requests call the user's functions in MPI's order: query_fn each time a
 * status is taken (Wait/Test and their forms, Request_get_status), then free_fn when the
 * request is freed: in the Wait/Test that completes it, or, after Request_free, in whichever
 * of Request_free and Grequest_complete comes last; cancel_fn from Cancel, with complete
 * true once Grequest_complete was called.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"
#include "cuda/dfc_cuda.h"

typedef struct greq {
    DFC_Grequest_query_function *query_fn;
    DFC_Grequest_free_function *free_fn;
    DFC_Grequest_cancel_function *cancel_fn;
    void *extra_state;
    int freed; /* free_fn has run */
} greq_t;

static void greq_destroy(dfc_req_t *r)
{
    dfc_greq_free_fn(r);
    free(r->ext);
    r->ext = NULL;
}

int dfc_greq_start(DFC_Grequest_query_function *query_fn, DFC_Grequest_free_function *free_fn,
                   DFC_Grequest_cancel_function *cancel_fn, void *extra_state, DFC_Request *request)
{
    dfc_req_t *r = dfc_req_new(DFC_REQ_GREQ, NULL);
    greq_t *g = calloc(1, sizeof *g);
    if (!r || !g) {
        free(r);
        free(g);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory allocating a generalized request");
    }
    g->query_fn = query_fn;
    g->free_fn = free_fn;
    g->cancel_fn = cancel_fn;
    g->extra_state = extra_state;
    r->ext = g;
    r->destroy = greq_destroy;
    int rc = dfc_req_handle(r, request);
    if (rc) dfc_req_free(r);
    return rc;
}

int dfc_greq_complete(dfc_req_t *r, const char *func)
{
    if (r->kind != DFC_REQ_GREQ)
        return dfc_err(DFC_ERR_REQUEST, func,
                       "invalid argument request: not a generalized request (Grequest_start)");
    if (r->complete)
        return dfc_err(DFC_ERR_REQUEST, func,
                       "invalid argument request: Grequest_complete was already called on it");
    dfc_req_complete(r); /* frees it if Request_free came first (free_fn runs then) */
    return DFC_SUCCESS;
}

int dfc_greq_query(dfc_req_t *r)
{
    greq_t *g = r->ext;
    if (r->kind != DFC_REQ_GREQ || !g->query_fn) return r->status.DFC_ERROR;
    /* MPI leaves the status to query_fn; it starts empty so unset fields read as such. */
    dfc_status_empty(&r->status);
    int rc = g->query_fn(g->extra_state, &r->status);
    if (rc) r->status.DFC_ERROR = rc;
    return r->status.DFC_ERROR;
}

int dfc_greq_free_fn(dfc_req_t *r)
{
    greq_t *g = r->ext;
    if (r->kind != DFC_REQ_GREQ || !g || g->freed) return DFC_SUCCESS;
    g->freed = 1;
    return g->free_fn ? g->free_fn(g->extra_state) : DFC_SUCCESS;
}

int dfc_req_cancel(dfc_req_t *r)
{
    switch (r->kind) {
    case DFC_REQ_RECV: return dfc_p2p_cancel_recv(r);
    case DFC_REQ_SEND: return dfc_p2p_cancel_send(r);
    case DFC_REQ_GREQ: {
        greq_t *g = r->ext;
        return g->cancel_fn ? g->cancel_fn(g->extra_state, r->complete) : DFC_SUCCESS;
    }
    default: return DFC_SUCCESS; /* pairs and flushes: cancelling fails, they complete */
    }
}

/* ---- Isendrecv ------------------------------------------------------------------------------
 * The parent request owns a send and a receive (internal requests); each one's completion
 * callback counts down, and the second completes the parent with the receive's status and
 * the first error (the send's first, as Sendrecv). Non-dense types move packed: the send's
 * shadow is packed when it is posted, the receive's unpacked when it completes. _replace
 * receives into a temporary (dfc_p2p_tmp_t, shared with Sendrecv_replace) and moves it into
 * buf once both are done, since the send reads buf until then. */
typedef struct pair {
    dfc_req_t send, recv;
    dfc_req_t *parent;
    int left;
    dfc_p2p_tmp_t tmp;     /* _replace: the temporary (tmp.p NULL otherwise), */
    void *buf;             /* the user's buffer */
    const dfc_dtype_t *dt; /* and its type (held) */
    int in_cb;             /* inside a child's completion callback (pair_done) */
    struct pair *next;     /* on the graveyard */
} pair_t;

/* A pair freed from inside its child's callback (Request_free came first) cannot be freed
 * there: dfc_req_complete reads the child after the callback. It waits here until the next
 * Isendrecv or finalize, both under the library lock, when that callback has returned. */
static pair_t *graveyard;

static void pair_reap(void)
{
    while (graveyard) {
        pair_t *p = graveyard;
        graveyard = p->next;
        free(p);
    }
}

static void pair_done(DFC_Request h, const DFC_Status *st, void *arg)
{
    (void)h, (void)st;
    pair_t *p = arg;
    if (--p->left) return;
    dfc_req_t *r = p->parent;
    r->status = p->recv.status;
    if (p->send.status.DFC_ERROR) r->status.DFC_ERROR = p->send.status.DFC_ERROR;
    if (p->tmp.p && p->recv.peer != DFC_PROC_NULL) {
        int rc = dfc_p2p_tmp_unpack(&p->tmp, p->buf, p->dt, dfc_status_bytes(&p->recv.status));
        if (rc && !r->status.DFC_ERROR) r->status.DFC_ERROR = rc;
    }
    p->in_cb = 1;
    dfc_req_complete(r); /* may free r and, through pair_destroy, p (to the graveyard) */
    p->in_cb = 0;
}

static void pair_destroy(dfc_req_t *r)
{
    pair_t *p = r->ext;
    dfc_req_unstage(&p->send);
    dfc_req_unstage(&p->recv);
    if (p->tmp.p) dfc_p2p_tmp_put(&p->tmp);
    if (p->dt) dfc_dtype_release((dfc_dtype_t *)p->dt);
    r->ext = NULL;
    if (p->in_cb) {
        p->next = graveyard;
        graveyard = p;
    } else {
        free(p);
    }
}

/* The pair's receive side: the temporary (replace) or the user's buffer, staged. */
static int pair_recv_buf(pair_t *p, const char *func, const dfc_p2p_side_t *rs, int replace,
                         void **use)
{
    uint64_t bytes = rs->count * rs->dt->size;
    if (!replace) return dfc_req_stage_type(&p->recv, rs->buf, rs->count, rs->dt, 1, 1, 1, use);
    int rc = dfc_p2p_tmp_get(func, rs->buf, bytes, &p->tmp);
    if (rc) return rc;
    p->buf = rs->buf;
    p->dt = rs->dt;
    dfc_dtype_retain((dfc_dtype_t *)p->dt);
    *use = p->tmp.p;
    return DFC_SUCCESS;
}

int dfc_p2p_isendrecv(dfc_comm_t *c, const char *func, const dfc_p2p_side_t *s,
                      const dfc_p2p_side_t *rs, int replace, DFC_Request *request)
{
    int rc;
    void *suse, *ruse;
    pair_reap();
    dfc_req_t *r = dfc_req_new(DFC_REQ_PAIR, c);
    pair_t *p = calloc(1, sizeof *p);
    if (!r || !p) {
        free(p);
        if (r) dfc_req_free(r);
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory allocating a request");
    }
    r->ext = p;
    r->destroy = pair_destroy;
    p->parent = r;
    p->left = 2;
    dfc_req_init_internal(&p->send, c);
    dfc_req_init_internal(&p->recv, c);
    p->recv.func = func;
    p->recv.count_arg = replace ? "count" : "recvcount";
    p->send.cb = p->recv.cb = pair_done;
    p->send.cb_arg = p->recv.cb_arg = p;
    if ((rc = pair_recv_buf(p, func, rs, replace, &ruse)) || (rc = dfc_req_stage_in(&p->recv)) ||
        (rc = dfc_req_stage_type(&p->send, s->buf, s->count, s->dt, 1, 0, 0, &suse)) ||
        (rc = dfc_req_stage_in(&p->send)) || (rc = dfc_req_handle(r, request)))
        goto fail;
    /* Posted last: from here on the callbacks may complete r. */
    dfc_p2p_irecv(c, 0, ruse, rs->count * rs->dt->size, rs->peer, rs->tag, &p->recv);
    dfc_p2p_isend(c, 0, suse, s->count * s->dt->size, s->peer, s->tag, 0, &p->send);
    return DFC_SUCCESS;
fail:
    dfc_req_free(r);
    return rc;
}

void dfc_greq_finalize(void) { pair_reap(); }
