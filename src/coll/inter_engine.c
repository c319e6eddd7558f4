/*
 * inter_engine.c - runs an intercommunicator collective as one set of direct transfers
 * (dfc_coll_inter_plan_t, built by inter_direct.c): every send and receive of this process
 * is posted at once, on the intercommunicator's collective context, each as an internal
 * point-to-point request whose completion callback counts down; the last one completes the
 * collective's request. A reduction's contributions arrive in a temporary, one slot per
 * remote process, and are reduced in rank order then (MPI's order for non-commutative ops).
 *
 * Nothing here waits: the transfers progress with every other request, so the nonblocking
 * forms need no schedule and no thread, and the blocking forms wait on the request. The
 * persistent forms keep the plan and the staged buffers in the request and post the same
 * transfers again at every DFC_Start (op_start).
 */
#include <stdlib.h>
#include <string.h>

#include "coll/dfc_coll.h"

typedef struct inter_op {
    dfc_req_t *parent;
    dfc_req_t *kids; /* sends, then receives, then the contributions' receives */
    void **use;      /* where each kid moves from or to (its staged buffer) */
    int n, left;
    int in_cb; /* inside a kid's completion callback (finish) */
    char *tmp; /* reductions: nred slots of count items of dt, packed */
    int nred;
    uint64_t count, off, mine;
    const dfc_dtype_t *dt;  /* held */
    const dfc_op_t *op;     /* held */
    void *ruse;             /* the result's place: the parent's (staged) receive buffer */
    dfc_coll_side_t *sides; /* the plan's sends then receives (counts in bytes once staged) */
    int nsend, nrecv;
    dfc_comm_t *c;
    const char *func;
    uint32_t pinit_seq, starts; /* persistent: the _init call's number, starts so far */
    struct inter_op *next;      /* on the graveyard */
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
    free(o->use);
    free(o->sides);
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

/* Readies kid i for a (re)start: a fresh internal request that keeps its staged shadows. */
static void kid_reset(inter_op_t *o, int i)
{
    dfc_req_t *k = &o->kids[i];
    struct dfc_stage *stages = k->stages;
    int nstages = k->nstages;
    dfc_req_init_internal(k, o->c);
    k->stages = stages;
    k->nstages = nstages;
    k->cb = kid_done;
    k->cb_arg = o;
    k->func = o->func;
    k->count_arg = "recvcount";
}

/* Stages kid i's buffer once (a send when i < nsend; copied in at every start) and records
 * where it moves from or to. */
static int stage_kid(inter_op_t *o, int i)
{
    int nsr = o->nsend + o->nrecv;
    kid_reset(o, i);
    if (i >= nsr) { /* a contribution: into its slot, packed */
        o->use[i] = o->tmp + (uint64_t)(i - nsr) * o->count * o->dt->size;
        return DFC_SUCCESS;
    }
    dfc_coll_side_t *s = &o->sides[i];
    int recv = i >= o->nsend;
    int rc = dfc_req_stage_type(&o->kids[i], (void *)s->buf, s->count, s->dt, 1, recv, recv,
                                &o->use[i]);
    /* From here on the side is bytes: the user may free a derived type after _init (the
     * stage holds what a non-dense one needs). */
    s->count *= s->dt->size;
    s->dt = NULL;
    return rc;
}

/* Posts kid i; a failure completes it with the error, so the count still runs down. */
static void post_kid(inter_op_t *o, int tag, int i)
{
    dfc_req_t *k = &o->kids[i];
    int nsr = o->nsend + o->nrecv, rc = dfc_req_stage_in(k);
    const dfc_coll_side_t *s = i < nsr ? &o->sides[i] : NULL;
    if (!rc && i < o->nsend) rc = dfc_p2p_isend(o->c, 1, o->use[i], s->count, s->peer, tag, 0, k);
    else if (!rc && s) rc = dfc_p2p_irecv(o->c, 1, o->use[i], s->count, s->peer, tag, k);
    else if (!rc) rc = dfc_p2p_irecv(o->c, 1, o->use[i], o->count * o->dt->size, i - nsr, tag, k);
    if (rc) {
        k->status.DFC_ERROR = rc;
        dfc_req_complete(k);
    }
}

/* Posts every kid with tag. One extra count keeps the parent open until every kid is
 * posted, and completes it when there is none. */
static void launch(inter_op_t *o, int tag)
{
    o->left = o->n + 1;
    for (int i = 0; i < o->n; i++) post_kid(o, tag, i);
    if (--o->left == 0) finish(o);
}

/* A persistent request's Start: the tag from the _init call's number and the start count,
 * as the intracommunicator instances make theirs (scheduler.c), so that starts of
 * different persistent operations never match each other's messages. */
static int op_start(dfc_req_t *r)
{
    inter_op_t *o = r->ext;
    int tag = (int)(0x40000000u | ((o->pinit_seq & 0x3fffu) << 16) | (o->starts++ & 0xffffu));
    dfc_coll_inter_reap();
    for (int i = 0; i < o->n; i++) kid_reset(o, i);
    launch(o, tag);
    return DFC_SUCCESS;
}

/* The request and its op: the plan copied, every buffer staged; nothing posted. */
static int build(const char *func, dfc_comm_t *c, const dfc_coll_inter_plan_t *p, dfc_req_t **out)
{
    int rc = DFC_SUCCESS, n = p->nsend + p->nrecv + p->nred, nsr = p->nsend + p->nrecv;
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
    *o = (inter_op_t){.parent = r, .nsend = p->nsend, .nrecv = p->nrecv, .c = c, .func = func};
    if (!(o->kids = calloc((size_t)n + 1, sizeof *o->kids)) ||
        !(o->use = calloc((size_t)n + 1, sizeof *o->use)) ||
        !(o->sides = calloc((size_t)nsr + 1, sizeof *o->sides))) {
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory listing %d transfers", n);
        goto fail;
    }
    for (int i = 0; i < nsr; i++) o->sides[i] = i < p->nsend ? p->sends[i] : p->recvs[i - p->nsend];
    o->n = n;
    for (int i = 0; i < n; i++) dfc_req_init_internal(&o->kids[i], c);
    if (p->nred && (rc = prepare_reduction(func, o, p))) goto fail;
    for (int i = 0; i < n && !rc; i++) rc = stage_kid(o, i);
    if (rc) goto fail;
    *out = r;
    return DFC_SUCCESS;
fail:
    dfc_req_free(r);
    return rc;
}

int dfc_coll_inter_post(const char *func, dfc_comm_t *c, int tag, const dfc_coll_inter_plan_t *p,
                        DFC_Request *handle, dfc_req_t **out)
{
    dfc_req_t *r = NULL;
    int rc = build(func, c, p, &r);
    if (rc) return rc;
    if (handle && (rc = dfc_req_handle(r, handle))) {
        dfc_req_free(r);
        return rc;
    }
    *out = r; /* before the launch, which may complete (not free) r */
    launch(r->ext, tag);
    return DFC_SUCCESS;
}

int dfc_coll_inter_persist(const char *func, dfc_comm_t *c, const dfc_coll_inter_plan_t *p,
                           DFC_Request *handle)
{
    dfc_req_t *r = NULL;
    int rc = build(func, c, p, &r);
    if (rc) return rc;
    inter_op_t *o = r->ext;
    o->pinit_seq = c->pcoll_seq++;
    r->persistent = 1;
    r->active = 0;
    r->start = op_start;
    if ((rc = dfc_req_handle(r, handle))) dfc_req_free(r);
    return rc;
}
