/*
 * request.c - request objects: creation, handles, completion (with the user's callback),
 * persistent restart.
 *
 * Requests come from a per-process cache of freed ones (issue 16): calloc and free were a
 * quarter of a sender's time in a window of 8-byte Isends. Everything runs under the library
 * lock, so the cache is a plain list, last freed first reused (its memory is still in the
 * caches of the CPU). It keeps at most DFC_REQ_CACHE requests; the rest go back to malloc,
 * and DFC_REQ_CACHE=0 turns it off (every request its own calloc and free, as valgrind wants
 * them to find a request used after it was freed). In a build with AddressSanitizer a cached
 * request is poisoned, so a use after free is reported until the request is reused; with
 * DFC_REQ_CACHE=0, also afterwards (ASan's quarantine). Ids, which replies on the wire name,
 * come from a counter rather than the address, so that a late reply for a freed request never
 * names the request that reuses its memory.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

#if defined(__SANITIZE_ADDRESS__)
#define REQ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REQ_ASAN 1
#endif
#endif
#ifdef REQ_ASAN
#include <sanitizer/asan_interface.h>
#define REQ_POISON(r) ASAN_POISON_MEMORY_REGION((r), sizeof(dfc_req_t))
#define REQ_UNPOISON(r) ASAN_UNPOISON_MEMORY_REGION((r), sizeof(dfc_req_t))
#else
#define REQ_POISON(r) ((void)(r))
#define REQ_UNPOISON(r) ((void)(r))
#endif

dfc_htable_t dfc_req_table;

/* The cache: chained through the first bytes of each (poisoned) request, read only here. */
typedef struct req_free {
    struct req_free *next;
} req_free_t;
static req_free_t *req_cache;
static int req_cached, req_cache_max; /* 0 until dfc_req_cache_init, and after finalize */
static uint64_t req_next_id;

void dfc_req_cache_init(void)
{
    req_cache_max = (int)dfc_env_long("DFC_REQ_CACHE", 256,
                                      "freed requests kept for reuse (0: each request is "
                                      "allocated and freed on its own)");
}

void dfc_req_cache_finalize(void)
{
    req_cache_max = 0; /* requests freed from now on (none should be) go straight back */
    while (req_cache) {
        req_free_t *f = req_cache;
        REQ_UNPOISON(f);
        req_cache = f->next;
        free(f);
    }
    req_cached = 0;
}

/* Zeroes a request with 16-byte stores (issue 16). gcc inlines the memset of its 368 bytes
 * as `rep stosq`, whose start-up costs tens of cycles on the AMD machines measured here: a
 * window of 8-byte Isends took 69-72 ns per message with it and 64-67 with these stores on
 * the 2-core VM (BENCHMARKS.md, stop 32). Where line transfers between the cores dominate
 * (the VM's slow spells) either takes 170-176. */
typedef char req_v16 __attribute__((vector_size(16), aligned(8), may_alias));
static inline void req_zero(dfc_req_t *r)
{
    enum { PIECES = sizeof(dfc_req_t) / 16 };
    req_v16 *v = (req_v16 *)r;
#pragma GCC unroll 64
    for (size_t i = 0; i < PIECES; i++) v[i] = (req_v16){0};
    memset(v + PIECES, 0, sizeof(dfc_req_t) % 16); /* none while the size is a multiple */
}

static dfc_req_t *req_alloc(void)
{
    req_free_t *f = req_cache;
    if (!f) return calloc(1, sizeof(dfc_req_t));
    REQ_UNPOISON(f);
    req_cache = f->next;
    req_cached--;
    req_zero((dfc_req_t *)f);
    return (dfc_req_t *)f;
}

static void req_release(dfc_req_t *r)
{
    if (req_cached >= req_cache_max) {
        free(r);
        return;
    }
    req_free_t *f = (req_free_t *)r;
    f->next = req_cache;
    req_cache = f;
    req_cached++;
    REQ_POISON(r);
}

/* The shared completed send request (issue 16). A DFC_Isend whose message the transport took
 * within the call (a small contiguous host message, p2p.c's dfc_p2p_send_eager_now) is
 * complete before it returns, so it returns this one request's handle rather than a new
 * request: no request is allocated, zeroed, entered in the handle table or freed. dfc_bench's
 * window of 8-32 byte Isends took 0.79-0.87 of its time per message with it on the 2-core VM
 * (BENCHMARKS.md, stop 33). MPICH returns such a built-in completed request too. What it
 * changes for the user:
 *   - every such send returns the same handle value (MPI handles are opaque; Waitall on an
 *     array of them completes each element and sets it to DFC_REQUEST_NULL);
 *   - Wait and Test give an empty status, as for any completed send;
 *   - DFC_Cancel cannot cancel such a send: the message has left and its request names it
 *     not; the cancel fails and Test_cancelled says false (MPI-4.1 3.8.4 lets a cancel fail;
 *     Open MPI never cancels a send). Sends still pending (rendezvous, queued behind other
 *     packets, synchronous, persistent) keep their own request and can be cancelled.
 * It is complete, active and not persistent, has no communicator, and dfc_req_free ignores
 * it, so every call on requests treats it as any completed send without a special case
 * beyond Request_free's handle removal. peer DFC_PROC_NULL makes a cancel a no-op. */
dfc_req_t dfc_req_sent;
DFC_Request dfc_req_sent_handle;

int dfc_req_sent_init(void)
{
    memset(&dfc_req_sent, 0, sizeof dfc_req_sent);
    dfc_req_sent.kind = DFC_REQ_SEND;
    dfc_req_sent.active = dfc_req_sent.complete = 1;
    dfc_req_sent.peer = DFC_PROC_NULL; /* nothing to cancel */
    dfc_list_init(&dfc_req_sent.link);
    dfc_status_empty(&dfc_req_sent.status);
    return dfc_req_handle(&dfc_req_sent, &dfc_req_sent_handle);
}

dfc_req_t *dfc_req_new(int kind, dfc_comm_t *comm)
{
    dfc_req_t *r = req_alloc();
    if (!r) return NULL;
    r->kind = kind;
    r->comm = comm;
    r->active = 1;
    r->id = ++req_next_id;
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
    if (DFC_UNLIKELY(req == &dfc_req_sent)) return;
    if (req->keep && req->complete && !req->user_freed && !req->status.DFC_ERROR && !req->cb) {
        if (req->handle) dfc_htable_remove(&dfc_req_table, req->handle);
        req->handle = 0;
        if (req->keep(req)) return;
    }
    if (req->destroy) req->destroy(req);
    if (req->stages || req->pack_dt) dfc_req_unstage(req); /* no call for the usual one */
    if (req->handle) dfc_htable_remove(&dfc_req_table, req->handle);
    if (req->comm) {
        if (req->user_freed) req->comm->orphans--;
        if (req->comm->refcount > 1) req->comm->refcount--; /* dfc_comm_release's no-op case */
        else dfc_comm_release(req->comm);
    }
    req_release(req);
}

void dfc_req_orphan(dfc_req_t *req)
{
    req->user_freed = 1;
    if (req->comm) req->comm->orphans++;
}

void dfc_req_release_user(dfc_req_t *req)
{
    if (req->complete || dfc_req_is_inert(req)) dfc_req_free(req);
    else dfc_req_orphan(req); /* freed when the operation completes */
}

/* True when no request on c is pending. Scans the whole request table, which only
 * Comm_disconnect, a rare call, pays for. */
static int comm_quiet(void *arg)
{
    const dfc_comm_t *c = arg;
    if (c->orphans > 0) return 0;
    for (uint32_t i = 1; i < dfc_req_table.next; i++) {
        const dfc_req_t *r = dfc_req_table.slots[i];
        if (r && r->comm == c && r->active && !r->complete) return 0;
    }
    return 1;
}

int dfc_req_wait_comm(dfc_comm_t *c)
{
    if (comm_quiet(c)) return DFC_SUCCESS;
    return dfc_progress_wait(comm_quiet, c);
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
    r->id = ++req_next_id;
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
