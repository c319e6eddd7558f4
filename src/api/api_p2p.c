/* api_p2p.c - point-to-point entry points: argument checks, then the protocol in p2p.c. */
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "api/dfc_api.h"
#include "cuda/dfc_cuda.h"

/* The names of (buf, count, datatype, peer, tag) in each call's prototype, so that a
 * message names the argument the user wrote (Sendrecv has two of each). */
typedef struct p2p_names {
    const char *buf, *count, *type, *peer, *tag;
} p2p_names_t;
static const p2p_names_t SEND_ARGS = {"buf", "count", "datatype", "dest", "tag"};
static const p2p_names_t RECV_ARGS = {"buf", "count", "datatype", "source", "tag"};
static const p2p_names_t SR_SEND_ARGS = {"sendbuf", "sendcount", "sendtype", "dest", "sendtag"};
static const p2p_names_t SR_RECV_ARGS = {"recvbuf", "recvcount", "recvtype", "source", "recvtag"};
static const p2p_names_t REPLACE_ARGS = {"buf", "count", "datatype", "dest", "sendtag"};

/* Checks (comm, count, datatype, buf, peer, tag) in MPI's argument order. */
static int check_p2p(const char *func, DFC_Comm comm, const void *buf, int count, DFC_Datatype dt,
                     int peer, const p2p_names_t *n, int tag, int is_recv, dfc_comm_t **c,
                     dfc_dtype_t **d)
{
    int rc;
    /* The common case in one pass (issue 16: the calls below cost a tenth of a small Isend);
     * anything unusual takes them, for their messages. */
    dfc_comm_t *cq = dfc_comm_get(comm);
    dfc_dtype_t *dq = dfc_dtype_get(dt);
    if (DFC_LIKELY(cq && dq && dq->committed && count >= 0 && (buf || count == 0) && tag >= 0 &&
                   peer >= 0 && peer < dfc_comm_npeers(cq))) {
        *c = cq;
        *d = dq;
        return DFC_SUCCESS;
    }
    if ((rc = dfc_comm_check(comm, func, "comm", c)) ||
        (rc = dfc_api_check_count(func, n->count, count)) ||
        (rc = dfc_dtype_check(dt, func, n->type, d)) ||
        (rc = dfc_api_check_userbuf(func, n->buf, buf, count, *d)) ||
        (rc = dfc_api_check_rank(func, n->peer, *c, peer, is_recv)) ||
        (rc = dfc_api_check_tag(func, n->tag, tag, is_recv)))
        return rc;
    return DFC_SUCCESS;
}

static void copy_status(DFC_Status *out, const DFC_Status *in)
{
    if (out != DFC_STATUS_IGNORE && out) *out = *in;
}

static int isend_common(const char *func, const void *buf, int count, DFC_Datatype datatype,
                        int dest, int tag, DFC_Comm comm, int sync, int persistent,
                        DFC_Request *request)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d;
    dfc_req_t *r = NULL;
    DFC_API_ENTER();
    dfc_gpu_memo_arm(); /* the eager test, staging and the IPC name look at buf's memory type */
    if ((rc = check_p2p(func, comm, buf, count, datatype, dest, &SEND_ARGS, tag, 0, &c, &d)) ||
        (rc = dfc_api_check_ptr(func, "request", request)))
        goto fn_fail;
    /* A small contiguous host message goes into the transport now; the send is complete,
     * and its request the shared completed one (request.c says why). Unless the progress
     * thread is to copy it while the program computes (dfc_p2p_defers). */
    int defer = d->dense && dfc_p2p_defers((uint64_t)count * d->size);
    if (!persistent && !sync && !defer && d->dense &&
        dfc_p2p_send_eager_now(c, buf, (uint64_t)count * d->size, dest, tag)) {
        *request = dfc_req_sent_handle;
        goto fn_exit;
    }
    if (!(r = dfc_req_new(DFC_REQ_SEND, c))) {
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory allocating a request");
        goto fn_fail;
    }
    r->bytes = (uint64_t)count * d->size;
    r->func = func; /* names the entry point in a staging error */
    dfc_p2p_send_dst(r, c, dest);
    void *use;
    if ((rc = dfc_req_stage_type(r, (void *)buf, (uint64_t)count, d, 1, 0, 0, &use))) goto fn_fail;
    r->sbuf = use;
    r->peer = dest;
    r->tag = tag;
    r->sync = sync;
    r->defer = defer;
    r->persistent = persistent;
    if (persistent) r->active = 0;
    else if ((rc = dfc_req_stage_in(r)) ||
             (rc = dfc_p2p_isend(c, 0, use, r->bytes, dest, tag, sync, r)))
        goto fn_fail;
    if ((rc = dfc_req_handle(r, request))) goto fn_fail;
fn_exit:
    dfc_gpu_memo_clear();
    DFC_API_EXIT();
    return rc;
fn_fail:
    if (r && !r->handle) dfc_req_free(r);
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

static int irecv_common(const char *func, void *buf, int count, DFC_Datatype datatype, int source,
                        int tag, DFC_Comm comm, int persistent, DFC_Request *request)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d;
    dfc_req_t *r = NULL;
    DFC_API_ENTER();
    if ((rc = check_p2p(func, comm, buf, count, datatype, source, &RECV_ARGS, tag, 1, &c, &d)) ||
        (rc = dfc_api_check_ptr(func, "request", request)))
        goto fn_fail;
    if (!(r = dfc_req_new(DFC_REQ_RECV, c))) {
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory allocating a request");
        goto fn_fail;
    }
    r->bytes = (uint64_t)count * d->size;
    void *use = buf;
    /* Copied in too, so that bytes past a shorter message keep their contents. A dense
     * host buffer needs no shadow: one look at its memory type (issue 16). */
    if ((!d->dense || (r->bytes && dfc_gpu_ptr_device(buf) >= 0)) &&
        (rc = dfc_req_stage_type(r, buf, (uint64_t)count, d, 1, 1, 1, &use)))
        goto fn_fail;
    r->rbuf = use;
    r->func = func;
    r->count_arg = "count";
    r->peer = source;
    r->tag = tag;
    r->persistent = persistent;
    if (persistent) r->active = 0;
    else if ((rc = dfc_req_stage_in(r)) ||
             (rc = dfc_p2p_irecv(c, 0, use, r->bytes, source, tag, r)))
        goto fn_fail;
    if ((rc = dfc_req_handle(r, request))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    if (r && !r->handle) dfc_req_free(r);
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Isend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm,
              DFC_Request *request)
{
    return isend_common(__func__, buf, count, datatype, dest, tag, comm, 0, 0, request);
}

int DFC_Issend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm,
               DFC_Request *request)
{
    return isend_common(__func__, buf, count, datatype, dest, tag, comm, 1, 0, request);
}

int DFC_Send_init(const void *buf, int count, DFC_Datatype datatype, int dest, int tag,
                  DFC_Comm comm, DFC_Request *request)
{
    return isend_common(__func__, buf, count, datatype, dest, tag, comm, 0, 1, request);
}

int DFC_Ssend_init(const void *buf, int count, DFC_Datatype datatype, int dest, int tag,
                   DFC_Comm comm, DFC_Request *request)
{
    return isend_common(__func__, buf, count, datatype, dest, tag, comm, 1, 1, request);
}

/* Ready sends (issue 17, part 3): MPI-4.1 3.4 lets a ready send be a standard send, since
 * the matching receive is already posted; so they are, and a ready send without one is
 * delivered like any other instead of being detected as erroneous. */
int DFC_Irsend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm,
               DFC_Request *request)
{
    return isend_common(__func__, buf, count, datatype, dest, tag, comm, 0, 0, request);
}

int DFC_Rsend_init(const void *buf, int count, DFC_Datatype datatype, int dest, int tag,
                   DFC_Comm comm, DFC_Request *request)
{
    return isend_common(__func__, buf, count, datatype, dest, tag, comm, 0, 1, request);
}

int DFC_Irecv(void *buf, int count, DFC_Datatype datatype, int source, int tag, DFC_Comm comm,
              DFC_Request *request)
{
    return irecv_common(__func__, buf, count, datatype, source, tag, comm, 0, request);
}

int DFC_Recv_init(void *buf, int count, DFC_Datatype datatype, int source, int tag, DFC_Comm comm,
                  DFC_Request *request)
{
    return irecv_common(__func__, buf, count, datatype, source, tag, comm, 1, request);
}

/* Partitioned send and receive (MPI-4.1 4.2; part.c): a persistent send or receive of
 * partitions * count items, with the partitions' state attached. */
static int pinit_check(const char *func, int partitions, DFC_Count count, DFC_Comm comm)
{
    int rc = DFC_SUCCESS;
    DFC_API_ENTER();
    if (partitions < 1)
        rc = dfc_err(DFC_ERR_ARG, func, "invalid argument partitions: %d is less than 1",
                     partitions);
    else if (count < 0)
        rc = dfc_err(DFC_ERR_COUNT, func, "invalid argument count: %lld is negative",
                     (long long)count);
    else if ((DFC_Count)partitions * count > INT_MAX)
        rc = dfc_err(DFC_ERR_COUNT, func,
                     "invalid argument count: partitions * count = %lld is more than %d",
                     (long long)partitions * count, INT_MAX);
    if (rc) rc = dfc_api_error(dfc_comm_get(comm), rc);
    DFC_API_EXIT();
    return rc;
}

static int pinit_common(const char *func, const void *buf, int partitions, DFC_Count count,
                        DFC_Datatype datatype, int peer, int tag, DFC_Comm comm, int is_send,
                        DFC_Request *request)
{
    int rc = pinit_check(func, partitions, count, comm);
    if (rc) return rc;
    int n = (int)(partitions * count);
    rc = is_send ? isend_common(func, buf, n, datatype, peer, tag, comm, 0, 1, request)
                 : irecv_common(func, (void *)buf, n, datatype, peer, tag, comm, 1, request);
    if (rc) return rc;
    DFC_API_ENTER();
    dfc_req_t *r = dfc_req_get(*request);
    if ((rc = dfc_part_attach(r, partitions, is_send))) {
        dfc_req_free(r);
        *request = DFC_REQUEST_NULL;
        rc = dfc_api_error(dfc_comm_get(comm), rc);
    }
    DFC_API_EXIT();
    return rc;
}

int DFC_Psend_init(const void *buf, int partitions, DFC_Count count, DFC_Datatype datatype,
                   int dest, int tag, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    (void)info; /* no hints are read */
    return pinit_common(__func__, buf, partitions, count, datatype, dest, tag, comm, 1, request);
}

int DFC_Precv_init(void *buf, int partitions, DFC_Count count, DFC_Datatype datatype, int source,
                   int tag, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    (void)info;
    return pinit_common(__func__, buf, partitions, count, datatype, source, tag, comm, 0, request);
}

/* Blocking forms run the nonblocking protocol on a request on the stack. */
static int send_common(const char *func, const void *buf, int count, DFC_Datatype datatype,
                       int dest, int tag, DFC_Comm comm, int sync)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d;
    dfc_req_t r; /* zeroed by dfc_req_init_internal; before that, fn_exit finds no shadows */
    r.nstages = 0;
    r.stages = NULL;
    r.pack_dt = NULL;
    DFC_API_ENTER();
    dfc_gpu_memo_arm(); /* the eager test, staging and the IPC name look at buf's memory type */
    if ((rc = check_p2p(func, comm, buf, count, datatype, dest, &SEND_ARGS, tag, 0, &c, &d)))
        goto fn_fail;
    uint64_t bytes = (uint64_t)count * d->size;
    /* A small contiguous host message: straight into the transport, no request (p2p.c). */
    if (!sync && d->dense && dfc_p2p_send_eager_now(c, buf, bytes, dest, tag)) goto sent;
    dfc_req_init_internal(&r, c);
    r.func = func; /* names the entry point in a staging error */
    dfc_p2p_send_dst(&r, c, dest);
    void *use;
    if ((rc = dfc_req_stage_type(&r, (void *)buf, (uint64_t)count, d, 1, 0, 0, &use)) ||
        (rc = dfc_req_stage_in(&r)) ||
        (rc = dfc_p2p_isend(c, 0, use, bytes, dest, tag, sync, &r)) ||
        (rc = dfc_progress_until(&r.complete)) || (rc = r.status.DFC_ERROR))
        goto fn_fail;
fn_exit:
    dfc_req_unstage(&r);
sent: /* nothing staged */
    dfc_gpu_memo_clear();
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Send(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm)
{
    return send_common(__func__, buf, count, datatype, dest, tag, comm, 0);
}

int DFC_Ssend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm)
{
    return send_common(__func__, buf, count, datatype, dest, tag, comm, 1);
}

int DFC_Rsend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm)
{
    return send_common(__func__, buf, count, datatype, dest, tag, comm, 0);
}

int DFC_Recv(void *buf, int count, DFC_Datatype datatype, int source, int tag, DFC_Comm comm,
             DFC_Status *status)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d;
    DFC_Status st;
    DFC_API_ENTER();
    if ((rc = check_p2p(__func__, comm, buf, count, datatype, source, &RECV_ARGS, tag, 1, &c, &d)))
        goto fn_fail;
    if ((rc = dfc_p2p_recv_blocking(c, __func__, "count", buf, (uint64_t)count, d, source, tag,
                                    &st)))
        goto fn_fail;
    copy_status(status, &st);
    if ((rc = st.DFC_ERROR)) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Sendrecv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, DFC_Datatype recvtype, int source, int recvtag,
                 DFC_Comm comm, DFC_Status *status)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *sd, *rd;
    DFC_Status st;
    int err;
    DFC_API_ENTER();
    if ((rc = check_p2p(__func__, comm, sendbuf, sendcount, sendtype, dest, &SR_SEND_ARGS, sendtag,
                        0, &c, &sd)) ||
        (rc = check_p2p(__func__, comm, recvbuf, recvcount, recvtype, source, &SR_RECV_ARGS,
                        recvtag, 1, &c, &rd)))
        goto fn_fail;
    if ((rc = dfc_p2p_sendrecv_blocking(c, __func__, sendbuf, (uint64_t)sendcount, sd, dest,
                                        sendtag, recvbuf, (uint64_t)recvcount, rd, source, recvtag,
                                        &st, &err)))
        goto fn_fail;
    copy_status(status, &st);
    if ((rc = err)) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Sendrecv_replace(void *buf, int count, DFC_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, DFC_Comm comm, DFC_Status *status)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d;
    DFC_Status st;
    int err;
    DFC_API_ENTER();
    if ((rc = check_p2p(__func__, comm, buf, count, datatype, dest, &REPLACE_ARGS, sendtag, 0, &c,
                        &d)) ||
        (rc = dfc_api_check_rank(__func__, "source", c, source, 1)) ||
        (rc = dfc_api_check_tag(__func__, "recvtag", recvtag, 1)))
        goto fn_fail;
    if ((rc = dfc_p2p_sendrecv_replace_blocking(c, __func__, buf, (uint64_t)count, d, dest, sendtag,
                                                source, recvtag, &st, &err)))
        goto fn_fail;
    copy_status(status, &st);
    if ((rc = err)) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

static int check_probe(const char *func, int source, int tag, DFC_Comm comm, dfc_comm_t **c)
{
    int rc;
    if ((rc = dfc_comm_check(comm, func, "comm", c)) ||
        (rc = dfc_api_check_rank(func, "source", *c, source, 1)) ||
        (rc = dfc_api_check_tag(func, "tag", tag, 1)))
        return rc;
    return DFC_SUCCESS;
}

int DFC_Iprobe(int source, int tag, DFC_Comm comm, int *flag, DFC_Status *status)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = check_probe(__func__, source, tag, comm, &c)) ||
        (rc = dfc_api_check_ptr(__func__, "flag", flag)))
        goto fn_fail;
    if ((rc = dfc_p2p_iprobe_progress(c, source, tag, flag, status))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

typedef struct probe_wait {
    dfc_comm_t *c;
    int source, tag, flag;
    DFC_Status *status;
} probe_wait_t;

static int probe_ready(void *arg)
{
    probe_wait_t *p = arg;
    dfc_p2p_iprobe(p->c, p->source, p->tag, &p->flag, p->status);
    return p->flag;
}

int DFC_Probe(int source, int tag, DFC_Comm comm, DFC_Status *status)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = check_probe(__func__, source, tag, comm, &c))) goto fn_fail;
    probe_wait_t p = {.c = c, .source = source, .tag = tag, .flag = 0, .status = status};
    if ((rc = dfc_progress_wait(probe_ready, &p))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}
