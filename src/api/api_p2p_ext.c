/*
 * api_p2p_ext.c - the rest of MPI-4.1's point-to-point (issue 17, part 3): matched probe
 * (Mprobe, Improbe, Mrecv, Imrecv), buffered sends and their buffers, Isendrecv(_replace),
 * generalized requests. Argument checks, then one call inward (src/comm/mprobe.c,
 * bsend.c, greq.c).
 */
#include "api/dfc_api.h"

/* (comm, count, datatype, buf, peer, tag) of a send, in MPI's argument order. */
static int check_send(const char *func, DFC_Comm comm, const void *buf, int count, DFC_Datatype dt,
                      int dest, int tag, dfc_comm_t **c, dfc_dtype_t **d)
{
    int rc;
    if ((rc = dfc_comm_check(comm, func, "comm", c)) ||
        (rc = dfc_api_check_count(func, "count", count)) ||
        (rc = dfc_dtype_check(dt, func, "datatype", d)) ||
        (rc = dfc_api_check_userbuf(func, "buf", buf, count, *d)) ||
        (rc = dfc_api_check_rank(func, "dest", *c, dest, 0)) ||
        (rc = dfc_api_check_tag(func, "tag", tag, 0)))
        return rc;
    return DFC_SUCCESS;
}

/* ---- Matched probe ------------------------------------------------------------------------ */
static int mprobe_common(const char *func, int source, int tag, DFC_Comm comm, int *flag,
                         DFC_Message *message, DFC_Status *status)
{
    int rc, f;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, func, "comm", &c)) ||
        (rc = dfc_api_check_rank(func, "source", c, source, 1)) ||
        (rc = dfc_api_check_tag(func, "tag", tag, 1)) ||
        (flag && (rc = dfc_api_check_ptr(func, "flag", flag))) ||
        (rc = dfc_api_check_ptr(func, "message", message)) ||
        (rc = dfc_api_check_ptr(func, "status", status)))
        goto fn_fail;
    if ((rc = dfc_p2p_mprobe(c, source, tag, !flag, &f, message, status))) goto fn_fail;
    if (flag) *flag = f;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Mprobe(int source, int tag, DFC_Comm comm, DFC_Message *message, DFC_Status *status)
{
    return mprobe_common(__func__, source, tag, comm, NULL, message, status);
}

int DFC_Improbe(int source, int tag, DFC_Comm comm, int *flag, DFC_Message *message,
                DFC_Status *status)
{
    if (!flag) { /* checked here: NULL selects the blocking form below */
        int rc;
        DFC_API_ENTER();
        rc = dfc_api_error(NULL, dfc_err(DFC_ERR_ARG, __func__, "invalid argument flag: NULL"));
        DFC_API_EXIT();
        return rc;
    }
    return mprobe_common(__func__, source, tag, comm, flag, message, status);
}

/* (buf, count, datatype, message) of Mrecv/Imrecv; *m is the message. */
static int check_mrecv(const char *func, void *buf, int count, DFC_Datatype dt,
                       DFC_Message *message, dfc_msg_t **m, dfc_dtype_t **d)
{
    int rc;
    if ((rc = dfc_api_check_count(func, "count", count)) ||
        (rc = dfc_dtype_check(dt, func, "datatype", d)) ||
        (rc = dfc_api_check_userbuf(func, "buf", buf, count, *d)) ||
        (rc = dfc_api_check_ptr(func, "message", message)) ||
        (rc = dfc_msg_check(*message, func, "message", m)))
        return rc;
    return DFC_SUCCESS;
}

int DFC_Mrecv(void *buf, int count, DFC_Datatype datatype, DFC_Message *message, DFC_Status *status)
{
    int rc;
    dfc_msg_t *m = NULL;
    dfc_dtype_t *d;
    dfc_comm_t *c = NULL;
    DFC_Status st;
    DFC_API_ENTER();
    if ((rc = check_mrecv(__func__, buf, count, datatype, message, &m, &d))) goto fn_fail;
    c = m->comm; /* for the error handler, as DFC_Wait uses its request's */
    rc = dfc_p2p_mrecv(m, __func__, buf, (uint64_t)count, d, &st);
    if (rc) goto fn_fail;
    *message = DFC_MESSAGE_NULL;
    if (status && status != DFC_STATUS_IGNORE) *status = st;
    if ((rc = st.DFC_ERROR)) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Imrecv(void *buf, int count, DFC_Datatype datatype, DFC_Message *message,
               DFC_Request *request)
{
    int rc;
    dfc_msg_t *m = NULL;
    dfc_dtype_t *d;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = check_mrecv(__func__, buf, count, datatype, message, &m, &d)) ||
        (rc = dfc_api_check_ptr(__func__, "request", request)))
        goto fn_fail;
    c = m->comm; /* as in Mrecv */
    if ((rc = dfc_p2p_imrecv_start(m, __func__, buf, (uint64_t)count, d, request))) goto fn_fail;
    *message = DFC_MESSAGE_NULL;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

/* ---- Buffered sends ----------------------------------------------------------------------- */
static int bsend_common(const char *func, const void *buf, int count, DFC_Datatype datatype,
                        int dest, int tag, DFC_Comm comm, int mode, DFC_Request *request)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d;
    DFC_API_ENTER();
    if ((rc = check_send(func, comm, buf, count, datatype, dest, tag, &c, &d)) ||
        (mode && (rc = dfc_api_check_ptr(func, "request", request))))
        goto fn_fail;
    if ((rc = dfc_bsend(c, func, buf, (uint64_t)count, d, dest, tag, mode, request))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Bsend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm)
{
    return bsend_common(__func__, buf, count, datatype, dest, tag, comm, 0, NULL);
}

int DFC_Ibsend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm,
               DFC_Request *request)
{
    return bsend_common(__func__, buf, count, datatype, dest, tag, comm, 1, request);
}

int DFC_Bsend_init(const void *buf, int count, DFC_Datatype datatype, int dest, int tag,
                   DFC_Comm comm, DFC_Request *request)
{
    return bsend_common(__func__, buf, count, datatype, dest, tag, comm, 2, request);
}

/* op: 0 attach, 1 detach, 2 flush, 3 iflush; with_comm: the Comm_ forms. */
static int buffer_common(const char *func, int with_comm, DFC_Comm comm, int op, void *buffer,
                         int size, int *size_out, DFC_Request *request)
{
    int rc;
    dfc_comm_t *c = NULL;
    size_t sz;
    DFC_API_ENTER();
    if (with_comm && (rc = dfc_comm_check(comm, func, "comm", &c))) goto fn_fail;
    if (op == 0 && buffer != DFC_BUFFER_AUTOMATIC) {
        if (size < 0) {
            rc = dfc_err(DFC_ERR_ARG, func, "invalid argument size: %d is negative", size);
            goto fn_fail;
        }
        if (!buffer && size > 0) {
            rc = dfc_err(DFC_ERR_BUFFER, func, "invalid argument buffer: NULL with size %d", size);
            goto fn_fail;
        }
    }
    if ((op == 1 && ((rc = dfc_api_check_ptr(func, "buffer_addr", buffer)) ||
                     (rc = dfc_api_check_ptr(func, "size", size_out)))) ||
        (op == 3 && (rc = dfc_api_check_ptr(func, "request", request))))
        goto fn_fail;
    switch (op) {
    case 0: rc = dfc_bsend_attach(c, func, buffer, (size_t)size); break;
    case 1:
        if (!(rc = dfc_bsend_detach(c, func, (void **)buffer, &sz))) *size_out = (int)sz;
        break;
    default: rc = dfc_bsend_flush(c, op == 3 ? request : NULL);
    }
    if (rc) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Buffer_attach(void *buffer, int size)
{
    return buffer_common(__func__, 0, DFC_COMM_NULL, 0, buffer, size, NULL, NULL);
}
int DFC_Buffer_detach(void *buffer_addr, int *size)
{
    return buffer_common(__func__, 0, DFC_COMM_NULL, 1, buffer_addr, 0, size, NULL);
}
int DFC_Buffer_flush(void) { return buffer_common(__func__, 0, DFC_COMM_NULL, 2, 0, 0, 0, 0); }
int DFC_Buffer_iflush(DFC_Request *request)
{
    return buffer_common(__func__, 0, DFC_COMM_NULL, 3, NULL, 0, NULL, request);
}
int DFC_Comm_attach_buffer(DFC_Comm comm, void *buffer, int size)
{
    return buffer_common(__func__, 1, comm, 0, buffer, size, NULL, NULL);
}
int DFC_Comm_detach_buffer(DFC_Comm comm, void *buffer_addr, int *size)
{
    return buffer_common(__func__, 1, comm, 1, buffer_addr, 0, size, NULL);
}
int DFC_Comm_flush_buffer(DFC_Comm comm)
{
    return buffer_common(__func__, 1, comm, 2, NULL, 0, NULL, NULL);
}
int DFC_Comm_iflush_buffer(DFC_Comm comm, DFC_Request *request)
{
    return buffer_common(__func__, 1, comm, 3, NULL, 0, NULL, request);
}

/* ---- Isendrecv ---------------------------------------------------------------------------- */
int DFC_Isendrecv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, DFC_Datatype recvtype, int source, int recvtag,
                  DFC_Comm comm, DFC_Request *request)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *sd, *rd;
    const char *f = __func__;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, f, "comm", &c)) ||
        (rc = dfc_api_check_count(f, "sendcount", sendcount)) ||
        (rc = dfc_dtype_check(sendtype, f, "sendtype", &sd)) ||
        (rc = dfc_api_check_userbuf(f, "sendbuf", sendbuf, sendcount, sd)) ||
        (rc = dfc_api_check_rank(f, "dest", c, dest, 0)) ||
        (rc = dfc_api_check_tag(f, "sendtag", sendtag, 0)) ||
        (rc = dfc_api_check_count(f, "recvcount", recvcount)) ||
        (rc = dfc_dtype_check(recvtype, f, "recvtype", &rd)) ||
        (rc = dfc_api_check_userbuf(f, "recvbuf", recvbuf, recvcount, rd)) ||
        (rc = dfc_api_check_rank(f, "source", c, source, 1)) ||
        (rc = dfc_api_check_tag(f, "recvtag", recvtag, 1)) ||
        (rc = dfc_api_check_ptr(f, "request", request)))
        goto fn_fail;
    dfc_p2p_side_t s = {(void *)sendbuf, (uint64_t)sendcount, sd, dest, sendtag};
    dfc_p2p_side_t r = {recvbuf, (uint64_t)recvcount, rd, source, recvtag};
    if ((rc = dfc_p2p_isendrecv(c, f, &s, &r, 0, request))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Isendrecv_replace(void *buf, int count, DFC_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, DFC_Comm comm, DFC_Request *request)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_dtype_t *d;
    const char *f = __func__;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, f, "comm", &c)) ||
        (rc = dfc_api_check_count(f, "count", count)) ||
        (rc = dfc_dtype_check(datatype, f, "datatype", &d)) ||
        (rc = dfc_api_check_userbuf(f, "buf", buf, count, d)) ||
        (rc = dfc_api_check_rank(f, "dest", c, dest, 0)) ||
        (rc = dfc_api_check_tag(f, "sendtag", sendtag, 0)) ||
        (rc = dfc_api_check_rank(f, "source", c, source, 1)) ||
        (rc = dfc_api_check_tag(f, "recvtag", recvtag, 1)) ||
        (rc = dfc_api_check_ptr(f, "request", request)))
        goto fn_fail;
    dfc_p2p_side_t s = {buf, (uint64_t)count, d, dest, sendtag};
    dfc_p2p_side_t r = {buf, (uint64_t)count, d, source, recvtag};
    if ((rc = dfc_p2p_isendrecv(c, f, &s, &r, 1, request))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

/* ---- Generalized requests ----------------------------------------------------------------- */
int DFC_Grequest_start(DFC_Grequest_query_function *query_fn, DFC_Grequest_free_function *free_fn,
                       DFC_Grequest_cancel_function *cancel_fn, void *extra_state,
                       DFC_Request *request)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "request", request))) goto fn_fail;
    if ((rc = dfc_greq_start(query_fn, free_fn, cancel_fn, extra_state, request))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Grequest_complete(DFC_Request request)
{
    int rc;
    dfc_req_t *r = dfc_req_get(request);
    DFC_API_ENTER();
    if (!r) {
        rc = dfc_err(DFC_ERR_REQUEST, __func__,
                     "invalid argument request: 0x%x is not a valid request%s", (unsigned)request,
                     request == DFC_REQUEST_NULL ? " (DFC_REQUEST_NULL)" : "");
        goto fn_fail;
    }
    if ((rc = dfc_greq_complete(r, __func__))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}
