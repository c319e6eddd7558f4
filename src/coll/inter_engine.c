/*
 * inter_engine.c - runs an intercommunicator collective as one set of direct transfers
 * (dfc_coll_inter_plan_t, built by inter_direct.c): every send and receive of this process
 * is posted at once, on the intercommunicator's collective context, each as an internal
 * point-to-point request whose completion callback counts down; the last one completes the
 * collective's request. A reduction's contributions arrive in a temporary, one slot per
 * remote process, and are reduced in rank order then (MPI's order for non-commutative ops).
 *
 * Nothing here waits: the transfers progress with every other request, so the nonblocking
 * forms need no schedule and no thread, and the blocking forms wait on the request.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/dfc_coll.h"

typedef struct inter_op {
    dfc_req_t *parent;
    dfc_req_t *kids; /* sends, then receives, then the contributions' receives */
    int n, left;
    int in_cb; /* inside a kid's completion callback (finish) */
    char *tmp; /* reductions: nred slots of count items of dt, packed */
    int nred;
    uint64_t count, off, mine;
    const dfc_dtype_t *dt; /* held */
    const dfc_op_t *op;    /* held */
    void *ruse;            /* the result's place: the parent's (staged) receive buffer */
    struct inter_op *next; /* on the graveyard */
} inter_op_t;

/* An op freed from inside its kid's callback (Request_free came first) cannot be freed
 * there: dfc_req_complete reads the kid after the callback. It waits here until the next
 * intercommunicator collective or finalize (greq.c's pairs do the same). */
static inter_op_t *graveyard;

void dfc_coll_inter_reap(void)
{
    while (graveyard) {
        inter_op_t *o = graveyard;
        graveyard = o->next;
        free(o);
    }
}

/* Reduces the contributions in rank order: slot i becomes slot i-1 (op) slot i. */
static void reduce_slots(inter_op_t *o)
{
    uint64_t cb = o->count * o->dt->size, at = o->off * o->dt->size;
    for (int i = 1; i < o->nred; i++)
        dfc_op_reduce(o->op, o->dt, o->tmp + (uint64_t)(i - 1) * cb + at,
                      o->tmp + (uint64_t)i * cb + at, o->mine);
    memcpy(o->ruse, o->tmp + (uint64_t)(o->nred - 1) * cb + at, o->mine * o->dt->size);
}

static void finish(inter_op_t *o)
{
    dfc_req_t *r = o->parent;
    int err = DFC_SUCCESS;
    for (int i = 0; i < o->n && !err; i++) err = o->kids[i].status.DFC_ERROR;
    if (!err && o->nred && o->mine) reduce_slots(o);
    dfc_status_empty(&r->status);
    r->status.DFC_ERROR = err;
    o->in_cb = 1;
    dfc_req_complete(r); /* may free r and, through op_destroy, o (to the graveyard) */
    o->in_cb = 0;
}

static void kid_done(DFC_Request h, const DFC_Status *st, void *arg)
{
    (void)h, (void)st;
    inter_op_t *o = arg;
    if (--o->left == 0) finish(o);
}

static void op_destroy(dfc_req_t *r)
{
    inter_op_t *o = r->ext;
    if (!o) return;
    for (int i = 0; i < o->n; i++) dfc_req_unstage(&o->kids[i]);
    free(o->kids);
    free(o->tmp);
    if (o->dt) dfc_dtype_release((dfc_dtype_t *)o->dt);
    if (o->op) dfc_op_release((dfc_op_t *)o->op);
    r->ext = NULL;
    if (o->in_cb) {
        o->next = graveyard;
        graveyard = o;
    } else {
        free(o);
    }
}

/* The reduction's part: the temporary, the held type and op, the result's staged place. */
static int prepare_reduction(const char *func, inter_op_t *o, const dfc_coll_inter_plan_t *p)
{
    uint64_t cb = p->count * p->dt->size;
    o->nred = p->nred;
    o->count = p->count;
    o->off = p->off;
    o->mine = p->mine;
    o->dt = p->dt;
    o->op = p->op;
    dfc_dtype_retain((dfc_dtype_t *)o->dt);
    dfc_op_retain((dfc_op_t *)o->op);
    if (!(o->tmp = malloc(cb * (uint64_t)p->nred + 1)))
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for %d contributions of %llu bytes",
                       p->nred, (unsigned long long)cb);
    return dfc_req_stage_type(o->parent, p->rbuf, p->mine, p->dt, 0, 1, 0, &o->ruse);
}

/* Stages kid i's buffer (a send when i < nsend) and returns where it moves from or to. */
static int stage_kid(const char *func, inter_op_t *o, const dfc_coll_inter_plan_t *p, int i,
                     void **use)
{
    dfc_req_t *k = &o->kids[i];
    int nsr = p->nsend + p->nrecv;
    k->cb = kid_done;
    k->cb_arg = o;
    k->func = func;
    k->count_arg = "recvcount";
    if (i >= nsr) { /* a contribution: into its slot, packed */
        *use = o->tmp + (uint64_t)(i - nsr) * o->count * o->dt->size;
        return DFC_SUCCESS;
    }
    const dfc_coll_side_t *s = i < p->nsend ? &p->sends[i] : &p->recvs[i - p->nsend];
    int recv = i >= p->nsend;
    int rc = dfc_req_stage_type(k, (void *)s->buf, s->count, s->dt, 1, recv, recv, use);
    return rc ? rc : dfc_req_stage_in(k);
}

/* Posts kid i; a failure completes it with the error, so the count still runs down. */
static void post_kid(inter_op_t *o, const dfc_coll_inter_plan_t *p, dfc_comm_t *c, int tag, int i,
                     void *use)
{
    dfc_req_t *k = &o->kids[i];
    int nsr = p->nsend + p->nrecv, rc;
    if (i < p->nsend) {
        const dfc_coll_side_t *s = &p->sends[i];
        rc = dfc_p2p_isend(c, 1, use, s->count * s->dt->size, s->peer, tag, 0, k);
    } else if (i < nsr) {
        const dfc_coll_side_t *s = &p->recvs[i - p->nsend];
        rc = dfc_p2p_irecv(c, 1, use, s->count * s->dt->size, s->peer, tag, k);
    } else {
        rc = dfc_p2p_irecv(c, 1, use, o->count * o->dt->size, i - nsr, tag, k);
    }
    if (rc) {
        k->status.DFC_ERROR = rc;
        dfc_req_complete(k);
    }
}

int dfc_coll_inter_post(const char *func, dfc_comm_t *c, int tag, const dfc_coll_inter_plan_t *p,
                        DFC_Request *handle, dfc_req_t **out)
{
    int rc = DFC_SUCCESS, n = p->nsend + p->nrecv + p->nred;
    void **use = NULL;
    dfc_coll_inter_reap();
    dfc_req_t *r = dfc_req_new(DFC_REQ_COLL, c);
    inter_op_t *o = calloc(1, sizeof *o);
    if (!r || !o) {
        free(o);
        if (r) dfc_req_free(r);
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory allocating a request");
    }
    r->ext = o;
    r->destroy = op_destroy;
    o->parent = r;
    if (!(o->kids = calloc((size_t)n + 1, sizeof *o->kids)) ||
        !(use = calloc((size_t)n + 1, sizeof *use))) {
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory listing %d transfers", n);
        goto fail;
    }
    o->n = n;
    for (int i = 0; i < n; i++) dfc_req_init_internal(&o->kids[i], c);
    if (p->nred && (rc = prepare_reduction(func, o, p))) goto fail;
    for (int i = 0; i < n && !rc; i++) rc = stage_kid(func, o, p, i, &use[i]);
    if (rc || (handle && (rc = dfc_req_handle(r, handle)))) goto fail;
    /* Posted last: from here on the kids' callbacks may complete r. One extra count keeps
     * r open until every kid is posted, and completes it when there is none. */
    o->left = n + 1;
    for (int i = 0; i < n; i++) post_kid(o, p, c, tag, i, use[i]);
    free(use);
    *out = r;
    if (--o->left == 0) finish(o);
    return DFC_SUCCESS;
fail:
    free(use);
    dfc_req_free(r);
    return rc;
}
