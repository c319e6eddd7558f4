/*
 * win_am.c - the active-message side of windows (dfc_win.h): operations in flight at the
 * origin, and the target's pass that applies arrived requests.
 *
 * Ordering: requests travel on one point-to-point context, so those of one origin arrive in
 * the order it issued them (non-overtaking); the target receives them in arrival order and
 * applies each only when every earlier one is applied (the inbox is a FIFO). A FLUSH or
 * UNLOCK acknowledgement therefore proves that the origin's earlier operations are done.
 * Atomicity: the target applies requests one at a time, inside its progress engine (under
 * the library lock when threads run), so accumulates from concurrent origins never
 * interleave, whatever their op.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_win.h"

typedef struct win_rec { /* an operation in flight at the origin */
    dfc_list_t link;
    int target;
    size_t len; /* of msg */
    int has_reply, has_data;
    dfc_req_t sreq, rreq, dreq; /* request message, reply, separate data (large Put) */
    void *msg;
    dfc_req_t *user;
    /* Point-to-point inside the library takes host buffers only (the API stages device
     * ones): a device origin's data, or a device result's reply, passes through here. */
    void *stage;      /* host copy, freed with the record */
    void *stage_out;  /* the device result the reply in stage is copied to, or NULL */
    uint64_t stage_n; /* its bytes */
} win_rec_t;

static void rec_free(win_rec_t *r)
{
    free(r->stage);
    free(r->msg);
    free(r);
}

typedef struct win_in { /* a request at the target, received or being received */
    dfc_list_t link;
    dfc_req_t req;
    void *buf;
    size_t len;
    int data_phase; /* a large Put's data is being received into the window */
    void *scratch;  /* ... or here: outside the window, or an Accumulate's */
} win_in_t;

typedef struct win_reply { /* a reply being sent by the target */
    dfc_list_t link;
    dfc_req_t req;
    void *buf;
} win_reply_t;

typedef struct win_waiter { /* a lock request not yet granted */
    dfc_list_t link;
    int src, excl;
    uint32_t tag;
} win_waiter_t;

static void note_error(dfc_win_t *w, int rc)
{
    if (rc && !w->error) w->error = rc;
}

/* Sends r's message (built), awaiting a reply of reply_bytes into reply_buf when >= 0. */
static int rec_start(dfc_win_t *w, win_rec_t *r, void *reply_buf, long reply_bytes)
{
    dfc_win_msg_t *hdr = r->msg;
    r->has_reply = reply_bytes >= 0;
    dfc_req_init_internal(&r->sreq, w->comm);
    dfc_req_init_internal(&r->rreq, w->comm);
    int rc = DFC_SUCCESS;
    if (reply_bytes > 0 && dfc_gpu_is_device_ptr(reply_buf)) { /* received here, copied */
        r->stage_out = reply_buf;
        r->stage_n = (uint64_t)reply_bytes;
        if (!(reply_buf = r->stage = malloc((size_t)reply_bytes))) {
            rec_free(r);
            return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a one-sided operation");
        }
    }
    if (r->has_reply) {
        hdr->tag = w->next_tag++ & 0x3fffffff;
        rc = dfc_p2p_irecv(w->comm, 1, reply_buf, (uint64_t)reply_bytes, r->target, (int)hdr->tag,
                           &r->rreq);
    }
    if (!rc) rc = dfc_p2p_isend(w->comm, 0, r->msg, r->len, r->target, 0, 0, &r->sreq);
    if (rc) {
        rec_free(r);
        return rc;
    }
    dfc_list_insert_tail(&w->recs, &r->link);
    w->pending[r->target]++;
    return DFC_SUCCESS;
}

int dfc_win_am_release(dfc_win_t *w, int target, int ack, int *sent)
{
    win_rec_t *r = w->held[target];
    if (sent) *sent = r != NULL;
    if (!r) return DFC_SUCCESS;
    w->held[target] = NULL;
    if (ack) ((dfc_win_msg_t *)r->msg)->kind |= DFC_WIN_MSG_ACK;
    return rec_start(w, r, NULL, ack ? 0 : -1);
}

int dfc_win_am_release_unlock(dfc_win_t *w, int target, int *sent)
{
    win_rec_t *r = w->held[target];
    if (r) ((dfc_win_msg_t *)r->msg)->kind |= DFC_WIN_MSG_UNLOCKS;
    return dfc_win_am_release(w, target, 1, sent);
}

int dfc_win_am_send(dfc_win_t *w, int target, dfc_win_msg_t *hdr, const void *data, size_t dbytes,
                    void *reply_buf, long reply_bytes, dfc_req_t *user)
{
    int rc = dfc_win_am_release(w, target, 0, NULL); /* in order, before this one */
    if (rc) return rc;
    win_rec_t *r = calloc(1, sizeof *r);
    void *msg = malloc(sizeof *hdr + dbytes);
    if (!r || !msg) {
        free(r);
        free(msg);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a one-sided operation");
    }
    r->target = target;
    r->msg = msg;
    r->len = sizeof *hdr + dbytes;
    r->user = user;
    memcpy(msg, hdr, sizeof *hdr);
    int rc2 = dfc_win_copy((char *)msg + sizeof *hdr, data, dbytes); /* a device origin */
    if (rc2) {
        free(r);
        free(msg);
        return rc2;
    }
    if (!user && reply_bytes < 0 &&
        (hdr->kind == DFC_WIN_MSG_PUT || hdr->kind == DFC_WIN_MSG_ACC)) {
        w->held[target] = r;
        return DFC_SUCCESS;
    }
    return rec_start(w, r, reply_buf, reply_bytes);
}

int dfc_win_am_send_large(dfc_win_t *w, int target, dfc_win_msg_t *hdr, const void *data,
                          size_t bytes, dfc_req_t *user)
{
    int rc = dfc_win_am_release(w, target, 0, NULL); /* in order, before this one */
    if (rc) return rc;
    win_rec_t *r = calloc(1, sizeof *r);
    void *msg = malloc(sizeof *hdr);
    if (!r || !msg) {
        free(r);
        free(msg);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a one-sided operation");
    }
    r->target = target;
    r->msg = msg;
    r->user = user;
    r->has_data = 1;
    memcpy(msg, hdr, sizeof *hdr);
    if (dfc_gpu_is_device_ptr(data)) { /* sent from a host copy */
        if (!(r->stage = malloc(bytes))) {
            rec_free(r);
            return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a one-sided operation");
        }
        if ((rc = dfc_gpu_copy_wait(r->stage, data, bytes))) {
            rec_free(r);
            return rc;
        }
        data = r->stage;
    }
    dfc_req_init_internal(&r->sreq, w->comm);
    dfc_req_init_internal(&r->dreq, w->comm);
    rc = dfc_p2p_isend(w->comm, 0, msg, sizeof *hdr, target, 0, 0, &r->sreq);
    if (!rc) rc = dfc_p2p_isend(w->comm, 0, data, bytes, target, 1, 0, &r->dreq);
    if (rc) { /* the header alone is harmless: the target would wait for data never sent */
        rec_free(r);
        return rc;
    }
    dfc_list_insert_tail(&w->recs, &r->link);
    w->pending[target]++;
    return DFC_SUCCESS;
}

static int rec_done(const win_rec_t *r)
{
    return r->sreq.complete && (!r->has_reply || r->rreq.complete) &&
           (!r->has_data || r->dreq.complete);
}

/* Frees finished operations, completing their user requests. */
static int sweep_recs(dfc_win_t *w)
{
    int events = 0;
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &w->recs)
    {
        win_rec_t *r = DFC_CONTAINER_OF(e, win_rec_t, link);
        if (!rec_done(r)) continue;
        int err = r->sreq.status.DFC_ERROR ? r->sreq.status.DFC_ERROR
                  : r->has_reply           ? r->rreq.status.DFC_ERROR
                  : r->has_data            ? r->dreq.status.DFC_ERROR
                                           : 0;
        if (!err && r->stage_out) err = dfc_gpu_copy_wait(r->stage_out, r->stage, r->stage_n);
        note_error(w, err);
        dfc_list_remove(e);
        w->pending[r->target]--;
        if (r->user) {
            r->user->status.DFC_ERROR = err;
            dfc_req_complete(r->user);
        }
        rec_free(r);
        events++;
    }
    return events;
}

static int all_done(void *arg)
{
    dfc_win_t *w = arg;
    return dfc_list_empty(&w->recs) && dfc_list_empty(&w->devops);
}

typedef struct {
    dfc_win_t *w;
    int target;
} target_arg_t;

static int target_done(void *arg)
{
    target_arg_t *a = arg;
    return a->w->pending[a->target] == 0;
}

int dfc_win_am_wait_target(dfc_win_t *w, int target)
{
    int rc = DFC_SUCCESS;
    for (int r = target < 0 ? 0 : target; r < (target < 0 ? w->size : target + 1) && !rc; r++)
        rc = dfc_win_am_release(w, r, 0, NULL);
    if (rc) return rc;
    if (target < 0) rc = dfc_progress_wait(all_done, w);
    else {
        target_arg_t a = {w, target};
        rc = dfc_progress_wait(target_done, &a);
    }
    if (!rc && w->error) {
        rc = w->error;
        w->error = 0;
    }
    return rc;
}

/* ---- The target ------------------------------------------------------------------------- */
static void reply(dfc_win_t *w, int dst, uint32_t tag, void *buf, uint64_t bytes, int owned)
{
    win_reply_t *r = calloc(1, sizeof *r);
    if (!r) dfc_fatal("out of memory replying to a one-sided operation");
    r->buf = owned ? buf : NULL; /* freed when sent */
    dfc_req_init_internal(&r->req, w->comm);
    int rc = dfc_p2p_isend(w->comm, 1, buf, bytes, dst, (int)tag, 0, &r->req);
    note_error(w, rc);
    dfc_list_insert_tail(&w->replies, &r->link);
}

char *dfc_win_local_addr(dfc_win_t *w, uint64_t offset, uint64_t bytes)
{
    if (w->flavor == DFC_WIN_FLAVOR_DYNAMIC) {
        for (int i = 0; i < w->nregions; i++)
            if (offset >= w->regions[i].base &&
                offset + bytes <= w->regions[i].base + w->regions[i].size)
                return (char *)(uintptr_t)offset;
    } else if (offset + bytes <= (uint64_t)w->size_bytes) return (char *)w->base + offset;
    return NULL;
}

/* The target memory of a request, or NULL (recorded as an error) when it lies outside. */
static char *target_addr(dfc_win_t *w, const dfc_win_msg_t *m, int src)
{
    char *t = dfc_win_local_addr(w, m->offset, m->bytes);
    if (t) return t;
    note_error(w, dfc_err(DFC_ERR_RMA_RANGE, "DFC_Win (target)",
                          "rank %d accessed %llu bytes at offset 0x%llx, outside the window", src,
                          (unsigned long long)m->bytes, (unsigned long long)m->offset));
    return NULL;
}

void dfc_win_apply(const dfc_op_t *op, const dfc_dtype_t *base, const void *origin, void *target,
                   uint64_t bytes)
{
    if (bytes) dfc_op_reduce(op, base, origin, target, bytes / base->size);
}

static int lock_grantable(const dfc_win_t *w, int excl)
{
    return w->excl_holder < 0 && (!excl || w->nshared == 0);
}

static void lock_take(dfc_win_t *w, int src, int excl, uint32_t tag)
{
    if (excl) w->excl_holder = src;
    else w->nshared++;
    reply(w, src, tag, NULL, 0, 1);
}

/* Grants waiting lock requests in arrival order while they can be granted. */
static void lock_grant_waiters(dfc_win_t *w)
{
    while (!dfc_list_empty(&w->waiters)) {
        win_waiter_t *q = DFC_CONTAINER_OF(w->waiters.next, win_waiter_t, link);
        if (!lock_grantable(w, q->excl)) return;
        dfc_list_remove(&q->link);
        lock_take(w, q->src, q->excl, q->tag);
        free(q);
    }
}

static void lock_request(dfc_win_t *w, int src, int excl, uint32_t tag)
{
    if (dfc_list_empty(&w->waiters) && lock_grantable(w, excl)) {
        lock_take(w, src, excl, tag);
        return;
    }
    win_waiter_t *q = calloc(1, sizeof *q);
    if (!q) dfc_fatal("out of memory queueing a lock request");
    q->src = src;
    q->excl = excl;
    q->tag = tag;
    dfc_list_insert_tail(&w->waiters, &q->link);
}

/* Device memory at t (win_dev.c): the operation of kind `kind` as copies to host, arithmetic
 * and copies back, done before the next request is applied (so atomic like the rest). */
static void dev_access(dfc_win_t *w, int kind, const dfc_win_msg_t *m, char *t, const char *data,
                       char *result)
{
    dfc_win_op_t op = {0};
    op.kind = kind;
    op.origin = data;
    op.compare = kind == DFC_WIN_OP_CAS ? data + m->bytes : NULL;
    op.result = result;
    op.bytes = m->bytes;
    if (kind == DFC_WIN_OP_ACC || kind == DFC_WIN_OP_GACC) {
        op.op = dfc_op_get(m->op);
        op.base = dfc_dtype_get(m->dtype);
    }
    note_error(w, dfc_win_dev_local(&op, t, 1));
}

static void apply_fetching(dfc_win_t *w, int src, const dfc_win_msg_t *m, const char *data)
{
    char *t = target_addr(w, m, src);
    uint64_t rbytes = m->kind == DFC_WIN_MSG_CAS ? m->bytes : m->bytes;
    char *old = rbytes ? calloc(1, rbytes) : NULL;
    if (rbytes && !old) dfc_fatal("out of memory replying to a one-sided operation");
    if (t && dfc_win_dev_at(w, t))
        dev_access(w, m->kind == DFC_WIN_MSG_CAS ? DFC_WIN_OP_CAS : DFC_WIN_OP_GACC, m, t, data,
                   old);
    else if (t) {
        memcpy(old, t, rbytes);
        if (m->kind == DFC_WIN_MSG_GACC)
            dfc_win_apply(dfc_op_get(m->op), dfc_dtype_get(m->dtype), data, t, m->bytes);
        else if (m->kind == DFC_WIN_MSG_CAS && memcmp(t, data + m->bytes, m->bytes) == 0)
            memcpy(t, data, m->bytes);
    }
    reply(w, src, m->tag, old, rbytes, 1);
}

static void unlock_request(dfc_win_t *w, int src, uint32_t tag)
{
    if (w->excl_holder == src) w->excl_holder = -1;
    else if (w->nshared > 0) w->nshared--;
    reply(w, src, tag, NULL, 0, 1);
    lock_grant_waiters(w);
}

/* After a PUT or ACC: its acknowledgement (and the unlock it carries), when asked for. */
static void acknowledge(dfc_win_t *w, int src, const dfc_win_msg_t *m)
{
    if (m->kind & DFC_WIN_MSG_UNLOCKS) unlock_request(w, src, m->tag);
    else if (m->kind & DFC_WIN_MSG_ACK) reply(w, src, m->tag, NULL, 0, 1);
}

static void apply_request(dfc_win_t *w, int src, const void *buf, size_t len)
{
    dfc_win_msg_t m;
    memcpy(&m, buf, sizeof m);
    const char *data = (const char *)buf + sizeof m;
    char *t;
    (void)len;
    switch (m.kind & DFC_WIN_MSG_KIND) {
    case DFC_WIN_MSG_PUT:
        if ((t = target_addr(w, &m, src)) && dfc_win_dev_at(w, t))
            dev_access(w, DFC_WIN_OP_PUT, &m, t, data, NULL);
        else if (t && m.bytes) memcpy(t, data, m.bytes);
        acknowledge(w, src, &m);
        break;
    case DFC_WIN_MSG_ACC:
        if ((t = target_addr(w, &m, src)) && dfc_win_dev_at(w, t))
            dev_access(w, DFC_WIN_OP_ACC, &m, t, data, NULL);
        else if (t) dfc_win_apply(dfc_op_get(m.op), dfc_dtype_get(m.dtype), data, t, m.bytes);
        acknowledge(w, src, &m);
        break;
    case DFC_WIN_MSG_GET: {
        /* Host memory is sent straight out of the window: MPI makes a local store to it
         * while a Get reads it erroneous, and the origin's epoch (hence any synchronization
         * that allows the store) ends only after the reply arrived, so the window is not
         * written while the reply is in flight; dfc_win_free waits for the replies. A copy
         * (calloc'd: 1 MiB of fresh pages cost more than the wire across nodes) is made only
         * for device memory and for a request outside the window (zeros, the error noted). */
        t = target_addr(w, &m, src);
        if (t && !dfc_win_dev_at(w, t)) {
            reply(w, src, m.tag, t, m.bytes, 0);
            break;
        }
        char *copy = m.bytes ? calloc(1, m.bytes) : NULL;
        if (m.bytes && !copy) dfc_fatal("out of memory replying to a one-sided operation");
        if (t) dev_access(w, DFC_WIN_OP_GET, &m, t, NULL, copy);
        reply(w, src, m.tag, copy, m.bytes, 1);
        break;
    }
    case DFC_WIN_MSG_GACC:
    case DFC_WIN_MSG_CAS: apply_fetching(w, src, &m, data); break;
    case DFC_WIN_MSG_LOCK_SHARED: lock_request(w, src, 0, m.tag); break;
    case DFC_WIN_MSG_LOCK_EXCL: lock_request(w, src, 1, m.tag); break;
    case DFC_WIN_MSG_UNLOCK: unlock_request(w, src, m.tag); break;
    case DFC_WIN_MSG_FLUSH: reply(w, src, m.tag, NULL, 0, 1); break;
    case DFC_WIN_MSG_POST: w->posts_seen[src]++; break;
    case DFC_WIN_MSG_DONE: w->dones_seen[src]++; break;
    default: note_error(w, DFC_ERR(DFC_ERR_INTERN, "unknown one-sided message %u", m.kind));
    }
}

/* The header of a large Put or Accumulate was reached in order: receive its data (the next
 * message of tag 1 from that origin) into the window (Put) or scratch (Accumulate, applied by
 * large_acc_apply). Returns 1 when it did (the entry stays at the head). */
static int large_put_data(dfc_win_t *w, win_in_t *in)
{
    dfc_win_msg_t m;
    memcpy(&m, in->buf, sizeof m);
    if (m.kind != DFC_WIN_MSG_PUT_LARGE && m.kind != DFC_WIN_MSG_ACC_LARGE) return 0;
    int src = in->req.status.DFC_SOURCE;
    /* a Put into device memory lands in scratch too: receives take host memory here */
    void *dst = m.kind == DFC_WIN_MSG_PUT_LARGE ? target_addr(w, &m, src) : NULL;
    if (dst && dfc_win_dev_at(w, dst)) dst = NULL;
    if (!dst && !(dst = in->scratch = malloc(m.bytes)))
        dfc_fatal("out of memory receiving a one-sided operation");
    in->data_phase = 1;
    dfc_req_init_internal(&in->req, w->comm);
    note_error(w, dfc_p2p_irecv(w->comm, 0, dst, m.bytes, src, 1, &in->req));
    return 1;
}

/* A large Accumulate's data (or a large Put's into device memory) is in scratch: apply it. */
static void large_acc_apply(dfc_win_t *w, win_in_t *in)
{
    dfc_win_msg_t m;
    memcpy(&m, in->buf, sizeof m);
    char *t;
    if (!in->scratch || !(t = target_addr(w, &m, in->req.status.DFC_SOURCE))) return;
    if (m.kind == DFC_WIN_MSG_PUT_LARGE) /* device memory (large_put_data) */
        dev_access(w, DFC_WIN_OP_PUT, &m, t, in->scratch, NULL);
    else if (dfc_win_dev_at(w, t)) dev_access(w, DFC_WIN_OP_ACC, &m, t, in->scratch, NULL);
    else dfc_win_apply(dfc_op_get(m.op), dfc_dtype_get(m.dtype), in->scratch, t, m.bytes);
}

/* Posts a receive for every request that arrived, then applies those received, in order. */
static int target_pass(dfc_win_t *w)
{
    int events = 0;
    for (;;) {
        int flag = 0;
        DFC_Status st;
        dfc_p2p_iprobe(w->comm, DFC_ANY_SOURCE, 0, &flag, &st); /* tag 1: Put data */
        if (!flag) break;
        win_in_t *in = calloc(1, sizeof *in);
        if (in) in->len = (size_t)dfc_status_bytes(&st);
        if (!in || !(in->buf = malloc(in->len ? in->len : 1)))
            dfc_fatal("out of memory receiving a one-sided operation");
        dfc_req_init_internal(&in->req, w->comm);
        note_error(w, dfc_p2p_irecv(w->comm, 0, in->buf, in->len, st.DFC_SOURCE, st.DFC_TAG,
                                    &in->req));
        dfc_list_insert_tail(&w->inbox, &in->link);
        events++;
    }
    while (!dfc_list_empty(&w->inbox)) {
        win_in_t *in = DFC_CONTAINER_OF(w->inbox.next, win_in_t, link);
        if (!in->req.complete) break;
        events++;
        if (!in->data_phase && !in->req.status.DFC_ERROR && large_put_data(w, in)) continue;
        dfc_list_remove(&in->link);
        if (in->req.status.DFC_ERROR) note_error(w, in->req.status.DFC_ERROR);
        else if (!in->data_phase) apply_request(w, in->req.status.DFC_SOURCE, in->buf, in->len);
        else large_acc_apply(w, in);
        free(in->scratch);
        free(in->buf);
        free(in);
    }
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &w->replies)
    {
        win_reply_t *r = DFC_CONTAINER_OF(e, win_reply_t, link);
        if (!r->req.complete) continue;
        note_error(w, r->req.status.DFC_ERROR);
        dfc_list_remove(e);
        free(r->buf);
        free(r);
        events++;
    }
    return events;
}

int dfc_win_progress(void)
{
    int events = 0;
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &dfc_win_list)
    {
        dfc_win_t *w = DFC_CONTAINER_OF(e, dfc_win_t, link);
        events += target_pass(w);
        events += sweep_recs(w);
        events += dfc_win_dev_progress(w);
    }
    return events;
}

/* ---- SHM windows: the accumulate lock --------------------------------------------------- */
void dfc_win_shm_acc_lock(dfc_win_t *w, int target)
{
    _Atomic int *l = &w->ctl[target].acc;
    for (int spins = 0;; spins++) {
        int expect = 0;
        if (atomic_compare_exchange_weak_explicit(l, &expect, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
        if (spins > 64) sched_yield(); /* the holder may be descheduled (2 cores, 4 ranks) */
    }
}

void dfc_win_shm_acc_unlock(dfc_win_t *w, int target)
{
    atomic_store_explicit(&w->ctl[target].acc, 0, memory_order_release);
}

/* The hang report (progress.c): one line per window with what it waits for. */
void dfc_win_report(FILE *f)
{
    dfc_list_t *e;
    for (e = dfc_win_list.next; e != &dfc_win_list; e = e->next) {
        dfc_win_t *w = DFC_CONTAINER_OF(e, dfc_win_t, link);
        int inflight = 0, held = 0, inbox = 0, waiters = 0, locks = 0;
        dfc_list_t *x;
        for (x = w->recs.next; x != &w->recs; x = x->next) inflight++;
        for (x = w->inbox.next; x != &w->inbox; x = x->next) inbox++;
        for (x = w->waiters.next; x != &w->waiters; x = x->next) waiters++;
        for (int r = 0; r < w->size; r++) {
            locks += w->locked[r] != 0;
            held += w->held[r] != NULL;
        }
        fprintf(f,
                "[dfc hang report] rank %d: window 0x%x (%s, %s, %d processes): %d operations "
                "in flight (%d more held for their synchronization), %d requests not yet "
                "applied, %d lock requests queued, exclusive "
                "holder %d, %d shared; epochs: fence %d, locks held %d%s%s%s\n",
                dfc_proc.world_rank, (unsigned)w->handle, w->name[0] ? w->name : "unnamed",
                w->backend == DFC_WIN_BACKEND_SHM ? "shared memory" : "messages", w->size, inflight,
                held, inbox, waiters, w->excl_holder, w->nshared, w->fence_epoch, locks,
                w->lock_all ? ", lock_all" : "", w->start_group ? ", start" : "",
                w->post_group ? ", post" : "");
    }
}
