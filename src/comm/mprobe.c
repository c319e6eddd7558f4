/*
 * mprobe.c - matched probe (MPI-4.1 3.8.2): DFC_Message handles for messages that
 * Mprobe/Improbe took off the matching queue, and their receipt by Mrecv/Imrecv.
 *
 * A matched message is out of the unexpected queue (p2p.c), so no other probe or receive,
 * in this thread or another, can match it: each message is received exactly once, by the
 * call that holds its handle. The handle table is created at the first Mprobe.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

static dfc_htable_t msg_table;
static int msg_table_ready;
static dfc_msg_t msg_no_proc = {DFC_MESSAGE_NO_PROC, NULL, NULL};

int dfc_msg_check(DFC_Message h, const char *func, const char *argname, dfc_msg_t **m)
{
    if (h == DFC_MESSAGE_NO_PROC) {
        *m = &msg_no_proc;
        return DFC_SUCCESS;
    }
    if (h == DFC_MESSAGE_NULL)
        return dfc_err(DFC_ERR_REQUEST, func,
                       "invalid argument %s: DFC_MESSAGE_NULL (no message was matched, or it "
                       "was already received)",
                       argname);
    *m = msg_table_ready ? dfc_htable_get(&msg_table, h) : NULL;
    if (*m) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_REQUEST, func,
                   "invalid argument %s: 0x%x is not a message from Mprobe or Improbe (or it "
                   "was already received)",
                   argname, (unsigned)h);
}

typedef struct mprobe_wait {
    dfc_comm_t *c;
    int src, tag, flag;
    dfc_p2p_msg_t *m;
    DFC_Status *status;
} mprobe_wait_t;

static int mprobe_ready(void *arg)
{
    mprobe_wait_t *w = arg;
    dfc_p2p_improbe(w->c, w->src, w->tag, &w->flag, &w->m, w->status);
    return w->flag;
}

/* Gives a matched message its handle. Without memory for it, the message goes back to no
 * one: it is lost, so this reports it as an error the caller cannot miss. */
static int msg_new(dfc_comm_t *c, dfc_p2p_msg_t *pm, DFC_Message *out)
{
    dfc_msg_t *m = malloc(sizeof *m);
    if (!msg_table_ready) {
        dfc_htable_init(&msg_table, DFC_KIND_MESSAGE, 2);
        msg_table_ready = 1;
    }
    int h = m ? dfc_htable_add(&msg_table, m) : 0;
    if (!h) {
        free(m);
        dfc_p2p_msg_free(pm);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a message handle (message dropped)");
    }
    m->handle = h;
    m->comm = c;
    m->m = pm;
    c->refcount++;
    *out = h;
    return DFC_SUCCESS;
}

int dfc_p2p_mprobe(dfc_comm_t *c, int src, int tag, int blocking, int *flag, DFC_Message *message,
                   DFC_Status *status)
{
    int rc, n;
    *flag = 1;
    if (src == DFC_PROC_NULL) {
        *message = DFC_MESSAGE_NO_PROC;
        if (status != DFC_STATUS_IGNORE) {
            dfc_status_empty(status);
            status->DFC_SOURCE = DFC_PROC_NULL;
        }
        return DFC_SUCCESS;
    }
    mprobe_wait_t w = {.c = c, .src = src, .tag = tag, .status = status};
    if (blocking) {
        if ((rc = dfc_progress_wait(mprobe_ready, &w))) return rc;
    } else if (!mprobe_ready(&w)) {
        /* As Iprobe: progress once and look again, so a polling loop sees every message. */
        if ((n = dfc_progress_poll()) < 0) return -n;
        if (!mprobe_ready(&w)) {
            *flag = 0;
            *message = DFC_MESSAGE_NULL;
            return DFC_SUCCESS;
        }
    }
    return msg_new(c, w.m, message);
}

/* Takes m out of the table; after this only the caller owns it. */
static dfc_p2p_msg_t *msg_take(dfc_msg_t *m, dfc_comm_t **c)
{
    dfc_p2p_msg_t *pm = m->m;
    *c = m->comm;
    if (m == &msg_no_proc) return NULL;
    dfc_htable_remove(&msg_table, m->handle);
    free(m);
    return pm;
}

/* Posts the receive of m on r (an internal or new request, already staged: stage()). */
static int post(dfc_msg_t *m, void *use, uint64_t bytes, dfc_req_t *r)
{
    dfc_comm_t *c;
    dfc_p2p_msg_t *pm = msg_take(m, &c);
    if (!pm) { /* DFC_MESSAGE_NO_PROC: a receive from DFC_PROC_NULL */
        dfc_status_empty(&r->status);
        r->status.DFC_SOURCE = DFC_PROC_NULL;
        r->kind = DFC_REQ_RECV;
        dfc_req_complete(r);
        return DFC_SUCCESS;
    }
    int rc = dfc_p2p_imrecv(c, pm, use, bytes, r);
    dfc_comm_release(c); /* the message's reference; the request holds its own */
    return rc;
}

/* Device buffers get a host shadow; non-dense types are unpacked piece by piece as the
 * message lands (stage.c); the message stays matched until post(). */
static int stage(const char *func, void *buf, uint64_t count, const dfc_dtype_t *dt, dfc_req_t *r,
                 void **use)
{
    int rc;
    r->func = func;
    r->count_arg = "count";
    if ((rc = dfc_req_stage_type(r, buf, count, dt, 1, 1, 1, use)) || (rc = dfc_req_stage_in(r)))
        return rc;
    return DFC_SUCCESS;
}

int dfc_p2p_mrecv(dfc_msg_t *m, const char *func, void *buf, uint64_t count, const dfc_dtype_t *dt,
                  DFC_Status *status)
{
    int rc;
    void *use;
    dfc_req_t r = {0};
    dfc_req_init_internal(&r, m->comm);
    if (!(rc = stage(func, buf, count, dt, &r, &use)) &&
        !(rc = post(m, use, count * dt->size, &r)) && !(rc = dfc_progress_until(&r.complete)))
        *status = r.status;
    dfc_req_unstage(&r);
    return rc;
}

int dfc_p2p_imrecv_start(dfc_msg_t *m, const char *func, void *buf, uint64_t count,
                         const dfc_dtype_t *dt, DFC_Request *request)
{
    int rc;
    void *use;
    dfc_req_t *r = dfc_req_new(DFC_REQ_RECV, m->comm);
    if (!r) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory allocating a request");
    if ((rc = stage(func, buf, count, dt, r, &use))) { /* the message is still the user's */
        dfc_req_free(r);
        return rc;
    }
    if ((rc = post(m, use, count * dt->size, r)) || (rc = dfc_req_handle(r, request))) {
        if (!r->complete) return rc; /* posted: the message is in flight into buf */
        dfc_req_free(r);
    }
    return rc;
}

void dfc_msg_finalize(void)
{
    if (!msg_table_ready) return;
    for (uint32_t i = 2; i < msg_table.cap; i++) {
        dfc_msg_t *m = msg_table.slots[i];
        if (!m) continue;
        dfc_p2p_msg_free(m->m);
        free(m);
    }
    dfc_htable_destroy(&msg_table);
    msg_table_ready = 0;
}
