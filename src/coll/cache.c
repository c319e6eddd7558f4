/*
 * cache.c - the per-communicator cache of idle blocking instances.
 *
 * A blocking collective builds a schedule, allocates the instance, its transfer array, its
 * scratch buffer and its request, and frees all of it on return: at 8 bytes that was most of
 * the call. The last few completed blocking instances of a communicator are kept instead
 * (with their requests) and reused by the next blocking call with the same arguments,
 * buffers rebound; the oldest is replaced. Nonblocking instances come back too, when the
 * user's Wait or Test frees their completed request (run.c, keep_nonblocking), and either
 * kind of call takes either kind of instance. Instances with more than CACHE_TMP_MAX bytes of
 * scratch are not kept (their setup is small beside their transfer, their memory is not).
 * A cached request gives its reference on the communicator back while idle; the
 * communicator's destroy hook (dfc_coll_cache_destroy) frees the cache.
 */
#include <stdlib.h>

#include "coll/dfc_coll.h"

#define CACHE_ENTRIES 4
#define CACHE_TMP_MAX 65536

typedef struct cache_entry {
    dfc_coll_t *idle;
    dfc_coll_args_t key;
    int priority;
} cache_entry_t;

struct dfc_coll_comm {
    cache_entry_t e[CACHE_ENTRIES];
    unsigned next; /* the entry replaced next when all are taken */
};

static int same_args(const dfc_coll_args_t *x, const dfc_coll_args_t *y)
{
    return x->kind == y->kind && x->root == y->root && x->in_place == y->in_place &&
           x->commutative == y->commutative && x->count == y->count && x->elem == y->elem &&
           x->sbytes == y->sbytes && x->rbytes == y->rbytes && x->selem == y->selem &&
           x->relem == y->relem && x->gpu == y->gpu && x->slots == y->slots &&
           x->nonblocking == y->nonblocking;
}

int dfc_coll_cacheable(const dfc_coll_args_t *a)
{
    return !a->gpu && !a->rcounts && !a->scounts && !a->sdispls && !a->vcounts && !a->vdispls &&
           !a->sends && !a->recvs;
}

dfc_coll_t *dfc_coll_cache_take(dfc_comm_t *comm, const dfc_coll_args_t *a, const dfc_dtype_t *dt,
                                const dfc_op_t *op, int priority)
{
    struct dfc_coll_comm *cc = comm->coll;
    if (!cc) return NULL;
    for (int i = 0; i < CACHE_ENTRIES; i++) {
        cache_entry_t *e = &cc->e[i];
        dfc_coll_t *c = e->idle;
        if (!c || c->dtype != dt || c->op != op || e->priority != priority ||
            !same_args(&e->key, a))
            continue;
        e->idle = NULL;
        comm->refcount++; /* the request's reference again */
        c->req->active = 1;
        return c;
    }
    return NULL;
}

static void free_idle(dfc_coll_t *c)
{
    dfc_req_t *req = c->req;
    req->keep = NULL; /* freed for good */
    req->comm = NULL; /* its reference was given back when it went idle */
    dfc_req_free(req);
}

int dfc_coll_cache_put(dfc_coll_t *c, const dfc_coll_args_t *a, int priority)
{
    dfc_comm_t *comm = c->comm;
    if (c->on_gpu || c->persistent || c->req->nstages || c->req->handle || comm->refcount < 2 ||
        c->sched.tmp_bytes > CACHE_TMP_MAX)
        return 0;
    if (!comm->coll && !(comm->coll = calloc(1, sizeof *comm->coll))) return 0;
    struct dfc_coll_comm *cc = comm->coll;
    cache_entry_t *e = NULL;
    for (int i = 0; i < CACHE_ENTRIES && !e; i++)
        if (!cc->e[i].idle) e = &cc->e[i];
    if (!e) {
        e = &cc->e[cc->next++ % CACHE_ENTRIES];
        free_idle(e->idle);
    }
    e->idle = c;
    e->key = *a;
    e->key.rcounts = NULL;
    e->priority = priority;
    comm->refcount--; /* the user's handle keeps it alive; the cache must not */
    return 1;
}

void dfc_coll_cache_destroy(dfc_comm_t *comm)
{
    struct dfc_coll_comm *cc = comm->coll;
    if (!cc) return;
    for (int i = 0; i < CACHE_ENTRIES; i++)
        if (cc->e[i].idle) free_idle(cc->e[i].idle);
    free(cc);
    comm->coll = NULL;
}
