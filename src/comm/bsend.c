/*
 * bsend.c - buffered sends (MPI-4.1 3.6): the process's buffer (Buffer_attach) and
 * per-communicator buffers (Comm_attach_buffer), flushes, and Bsend/Ibsend/Bsend_init.
 *
 * A buffered send copies the message into the buffer that applies (the communicator's,
 * else the process's) and sends the copy with an internal request whose completion frees
 * the space: the user's call returns at once, its buffer free for reuse. Space is handed out
 * first-fit; each message takes exactly its bytes plus DFC_BSEND_OVERHEAD, which is what MPI
 * tells users to reserve (a buffer of that size holds the message: mpi4py's test_p2p_buf
 * attaches 1 + DFC_BSEND_OVERHEAD bytes for a 1-byte message). The bookkeeping lives outside
 * the user's buffer, so the overhead is reserved, not written; its first bytes let the data
 * start on an 8-byte boundary. A message that does not fit fails with
 * DFC_ERR_BUFFER before anything is sent: nothing is lost, and earlier messages go on.
 * DFC_BUFFER_AUTOMATIC (MPI-4.1) gives each message its own allocation instead.
 * Detach and flush wait until every message of the buffer left it; a nonblocking flush is a
 * request that completes then.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"
#include "cuda/dfc_cuda.h"

typedef struct bseg {
    struct bseg *next; /* in offset order */
    size_t off, len;   /* the part of the buffer it occupies (overhead included) */
    void *mem;         /* DFC_BUFFER_AUTOMATIC: its own allocation */
    struct bbuf *owner;
} bseg_t;

typedef struct bbuf {
    struct bbuf *next;
    dfc_comm_t *comm; /* NULL: the process's buffer */
    char *base;
    size_t size;
    int automatic;
    bseg_t *segs;     /* messages still being sent */
    int pending;      /* their number */
    dfc_list_t flush; /* Ibuffer_flush requests waiting for pending == 0 */
} bbuf_t;

static bbuf_t *buffers;

static bbuf_t *find(dfc_comm_t *comm)
{
    for (bbuf_t *b = buffers; b; b = b->next)
        if (b->comm == comm) return b;
    return NULL;
}

static const char *which(const dfc_comm_t *comm)
{
    return comm ? "the communicator's buffer" : "the process's buffer";
}

int dfc_bsend_attach(dfc_comm_t *comm, const char *func, void *buffer, size_t size)
{
    if (find(comm))
        return dfc_err(DFC_ERR_BUFFER, func,
                       "invalid argument buffer: %s is already attached (detach it first)",
                       which(comm));
    bbuf_t *b = calloc(1, sizeof *b);
    if (!b) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory attaching a buffer");
    b->comm = comm;
    b->automatic = buffer == DFC_BUFFER_AUTOMATIC;
    b->base = b->automatic ? NULL : buffer;
    b->size = b->automatic ? 0 : size;
    dfc_list_init(&b->flush);
    if (comm) comm->refcount++;
    b->next = buffers;
    buffers = b;
    return DFC_SUCCESS;
}

static int drained(void *arg) { return ((bbuf_t *)arg)->pending == 0; }

int dfc_bsend_detach(dfc_comm_t *comm, const char *func, void **buffer, size_t *size)
{
    (void)func;
    bbuf_t *b = find(comm), **pp;
    if (!b) { /* as MPICH: nothing attached gives NULL and 0 */
        *buffer = NULL;
        *size = 0;
        return DFC_SUCCESS;
    }
    int rc = dfc_progress_wait(drained, b);
    if (rc) return rc;
    b = find(comm); /* another thread may have detached it while this one waited */
    if (!b) {
        *buffer = NULL;
        *size = 0;
        return DFC_SUCCESS;
    }
    for (pp = &buffers; *pp != b; pp = &(*pp)->next) {}
    *pp = b->next;
    *buffer = b->automatic ? DFC_BUFFER_AUTOMATIC : b->base;
    *size = b->size;
    if (b->comm) dfc_comm_release(b->comm);
    free(b);
    return DFC_SUCCESS;
}

int dfc_bsend_flush(dfc_comm_t *comm, DFC_Request *request)
{
    bbuf_t *b = find(comm);
    if (!request) return b ? dfc_progress_wait(drained, b) : DFC_SUCCESS;
    dfc_req_t *r = dfc_req_new(DFC_REQ_FLUSH, comm);
    if (!r) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory allocating a request");
    int rc = dfc_req_handle(r, request);
    if (rc) {
        dfc_req_free(r);
        return rc;
    }
    if (!b || !b->pending) dfc_req_complete(r);
    else dfc_list_insert_tail(&b->flush, &r->link);
    return DFC_SUCCESS;
}

/* First fit: the offset of a gap of len bytes, with *prev the segment before it. */
static int place(bbuf_t *b, size_t len, size_t *off, bseg_t ***link)
{
    size_t at = 0;
    bseg_t **pp = &b->segs;
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->off - at >= len) break;
        at = (*pp)->off + (*pp)->len;
    }
    if (at > b->size || b->size - at < len) return 0;
    *off = at;
    *link = pp;
    return 1;
}

static void seg_done(DFC_Request h, const DFC_Status *st, void *arg)
{
    (void)h, (void)st;
    bseg_t *s = arg, **pp;
    bbuf_t *b = s->owner;
    for (pp = &b->segs; *pp != s; pp = &(*pp)->next) {}
    *pp = s->next;
    free(s->mem);
    free(s);
    if (--b->pending) return;
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &b->flush)
    {
        dfc_list_remove(e);
        dfc_req_complete(DFC_CONTAINER_OF(e, dfc_req_t, link));
    }
}

/* Takes space for `bytes` in b; returns its memory in *mem. */
static int take(bbuf_t *b, const char *func, uint64_t bytes, bseg_t **out, void **mem)
{
    size_t len = (size_t)bytes + DFC_BSEND_OVERHEAD, off = 0;
    bseg_t **link = &b->segs, *s = calloc(1, sizeof *s);
    if (!s) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for a buffered send");
    if (b->automatic) {
        while (*link) link = &(*link)->next;
        if (!(s->mem = malloc(bytes ? bytes : 1))) {
            free(s);
            return dfc_err(DFC_ERR_BUFFER, func,
                           "out of memory buffering a %llu-byte message "
                           "(DFC_BUFFER_AUTOMATIC); nothing was sent",
                           (unsigned long long)bytes);
        }
        *mem = s->mem;
    } else if (!place(b, len, &off, &link)) {
        size_t used = 0;
        for (bseg_t *x = b->segs; x; x = x->next) used += x->len;
        free(s);
        return dfc_err(DFC_ERR_BUFFER, func,
                       "%s (%zu bytes, %zu in use by %d pending messages) has no room for a "
                       "%llu-byte message plus DFC_BSEND_OVERHEAD (%d): nothing was sent; "
                       "attach a larger buffer or wait for earlier messages (Buffer_flush)",
                       which(b->comm), b->size, used, b->pending, (unsigned long long)bytes,
                       DFC_BSEND_OVERHEAD);
    } else { /* aligned up by at most 7 of the overhead's bytes */
        *mem = (void *)(((uintptr_t)(b->base + off) + 7) & ~(uintptr_t)7);
    }
    s->off = off;
    s->len = len;
    s->owner = b;
    s->next = *link;
    *link = s;
    b->pending++;
    *out = s;
    return DFC_SUCCESS;
}

/* Copies (a non-dense type: packs) count items of dt into mem. */
static int fill(const char *func, void *mem, const void *buf, uint64_t count, const dfc_dtype_t *dt)
{
    uint64_t bytes = count * dt->size;
    if (!bytes) return DFC_SUCCESS;
    if (!dt->dense) {
        DFC_Aint lo, hi;
        dfc_dtype_span(dt, count, &lo, &hi);
        if (dfc_gpu_is_device_ptr((const char *)buf + lo))
            return dfc_stage_dev_pack(dt, buf, count, mem); /* the type map's runs */
        dfc_dtype_pack(dt, buf, 0, bytes, mem);
        return DFC_SUCCESS;
    }
    if (dfc_gpu_is_device_ptr(buf)) return dfc_gpu_copy(mem, buf, bytes);
    (void)func;
    memcpy(mem, buf, bytes);
    return DFC_SUCCESS;
}

/* Copies and sends one message (Bsend; and Ibsend/Bsend_init through their requests): the
 * message takes its packed size in the buffer. */
static int post(dfc_comm_t *c, const char *func, const void *buf, uint64_t count,
                const dfc_dtype_t *dt, int dst, int tag)
{
    int rc;
    bseg_t *s = NULL;
    void *mem = NULL;
    uint64_t bytes = count * dt->size;
    if (dst == DFC_PROC_NULL) return DFC_SUCCESS;
    bbuf_t *b = find(c);
    if (!b && !(b = find(NULL)))
        return dfc_err(DFC_ERR_BUFFER, func,
                       "no buffer is attached for buffered sends (DFC_Buffer_attach or "
                       "DFC_Comm_attach_buffer): nothing was sent");
    if ((rc = take(b, func, bytes, &s, &mem))) return rc;
    rc = fill(func, mem, buf, count, dt);
    dfc_req_t *r = rc ? NULL : dfc_req_new(DFC_REQ_SEND, c);
    if (!r) {
        seg_done(0, NULL, s);
        return rc ? rc : dfc_err(DFC_ERR_NO_MEM, func, "out of memory allocating a request");
    }
    r->cb = seg_done; /* frees the space once the transport is done with it */
    r->cb_arg = s;
    dfc_req_orphan(r); /* nobody waits for it: freed at completion */
    return dfc_p2p_isend(c, 0, mem, bytes, dst, tag, 0, r);
}

/* Bsend_init's Start: sends the message again from the user's buffer, as it is now (its
 * count in r->bytes, its type, held, in r->ext). */
static int start_persistent(dfc_req_t *r)
{
    int rc = post(r->comm, "DFC_Start", r->sbuf, r->bytes, r->ext, r->peer, r->tag);
    r->status.DFC_ERROR = rc;
    dfc_req_complete(r);
    return rc;
}

static void destroy_persistent(dfc_req_t *r)
{
    dfc_dtype_release(r->ext);
    r->ext = NULL;
}

int dfc_bsend(dfc_comm_t *c, const char *func, const void *buf, uint64_t count,
              const dfc_dtype_t *dt, int dst, int tag, int mode, DFC_Request *request)
{
    int rc = mode == 2 ? DFC_SUCCESS : post(c, func, buf, count, dt, dst, tag);
    if (rc || mode == 0) return rc;
    dfc_req_t *r = dfc_req_new(DFC_REQ_SEND, c);
    if (!r) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory allocating a request");
    r->cancel_state = -1; /* the message left with its own request: nothing to cancel */
    r->sbuf = buf;
    r->bytes = count * dt->size;
    r->peer = dst;
    r->tag = tag;
    if (mode == 2) {
        r->persistent = 1;
        r->active = 0;
        r->start = start_persistent;
        r->bytes = count;
        r->ext = (void *)dt;
        r->destroy = destroy_persistent;
        dfc_dtype_retain((dfc_dtype_t *)dt);
    } else {
        dfc_req_complete(r);
    }
    if ((rc = dfc_req_handle(r, request))) dfc_req_free(r);
    return rc;
}

void dfc_bsend_finalize(void)
{
    while (buffers) {
        bbuf_t *b = buffers;
        buffers = b->next;
        while (b->segs) {
            bseg_t *s = b->segs;
            b->segs = s->next;
            free(s->mem);
            free(s);
        }
        free(b);
    }
}
