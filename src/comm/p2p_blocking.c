/*
 * p2p_blocking.c - the blocking point-to-point operations (Recv, Sendrecv,
 * Sendrecv_replace, Iprobe's poll) as one call each, so that the api layer makes one call
 * inward and device-buffer staging has one home next to the protocol.
 * Each returns DFC_SUCCESS once the operation completed, with its status in *status; the
 * operation's own error (a truncation, a failed peer) is status->DFC_ERROR (for the pairs:
 * *err, the send's first), which the caller reports after handing out the status.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"
#include "cuda/dfc_cuda.h"

int dfc_p2p_recv_blocking(dfc_comm_t *c, const char *func, const char *count_arg, void *buf,
                          uint64_t count, const dfc_dtype_t *dt, int src, int tag,
                          DFC_Status *status)
{
    uint64_t bytes = count * dt->size;
    int rc;
    dfc_req_t r; /* zeroed by dfc_req_init_internal (unstage then finds no shadows) */
    void *use = buf;
    dfc_req_init_internal(&r, c);
    r.func = func; /* names the entry point in a truncation message */
    r.count_arg = count_arg;
    /* A dense host buffer needs no shadow: one look at its memory type (issue 16). A device
     * buffer's answer is kept for staging and the copy, which would ask again (issue 14). */
    dfc_gpu_memo_arm();
    int plain = dt->dense && (!bytes || dfc_gpu_ptr_device(buf) < 0);
    if (!(rc = plain ? DFC_SUCCESS : dfc_req_stage_type(&r, buf, count, dt, 1, 1, 1, &use)) &&
        !(rc = dfc_req_stage_in(&r)) && !(rc = dfc_p2p_irecv(c, 0, use, bytes, src, tag, &r)) &&
        !(rc = dfc_progress_until(&r.complete)))
        *status = r.status;
    dfc_gpu_memo_clear();
    dfc_req_unstage(&r);
    return rc;
}

int dfc_p2p_sendrecv_blocking(dfc_comm_t *c, const char *func, const void *sendbuf, uint64_t scount,
                              const dfc_dtype_t *sdt, int dst, int sendtag, void *recvbuf,
                              uint64_t rcount, const dfc_dtype_t *rdt, int src, int recvtag,
                              DFC_Status *status, int *err)
{
    uint64_t sbytes = scount * sdt->size, rbytes = rcount * rdt->size;
    int rc;
    dfc_req_t sr = {0}, rr = {0};
    void *suse, *ruse;
    dfc_req_init_internal(&sr, c);
    dfc_req_init_internal(&rr, c);
    rr.func = sr.func = func;
    rr.count_arg = "recvcount";
    dfc_p2p_send_dst(&sr, c, dst);
    if (!(rc = dfc_req_stage_type(&sr, (void *)sendbuf, scount, sdt, 1, 0, 0, &suse)) &&
        !(rc = dfc_req_stage_in(&sr)) &&
        !(rc = dfc_req_stage_type(&rr, recvbuf, rcount, rdt, 1, 1, 1, &ruse)) &&
        !(rc = dfc_req_stage_in(&rr)) &&
        !(rc = dfc_p2p_irecv(c, 0, ruse, rbytes, src, recvtag, &rr)) &&
        !(rc = dfc_p2p_isend(c, 0, suse, sbytes, dst, sendtag, 0, &sr)) &&
        !(rc = dfc_progress_until(&rr.complete)) && !(rc = dfc_progress_until(&sr.complete))) {
        *status = rr.status;
        *err = sr.status.DFC_ERROR ? sr.status.DFC_ERROR : rr.status.DFC_ERROR;
    }
    dfc_req_unstage(&sr);
    dfc_req_unstage(&rr);
    return rc;
}

/* ---- The _replace forms' temporary ---------------------------------------------------- */
int dfc_p2p_tmp_get(const char *func, const void *buf, uint64_t bytes, dfc_p2p_tmp_t *t)
{
    memset(t, 0, sizeof *t);
    t->dev = bytes && dfc_stage_ops->is_device(buf);
    if (t->dev) {
        int rc = dfc_stage_buf_get(bytes, &t->tb);
        if (rc) return rc;
        t->p = t->tb->p;
    } else if (!(t->p = malloc(bytes ? bytes : 1))) {
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for a %llu-byte temporary buffer",
                       (unsigned long long)bytes);
    }
    return DFC_SUCCESS;
}

int dfc_p2p_tmp_unpack(const dfc_p2p_tmp_t *t, void *buf, const dfc_dtype_t *dt, uint64_t n)
{
    if (!n) return DFC_SUCCESS;
    if (!dt->dense && t->dev) return dfc_stage_dev_unpack(dt, buf, n, t->p);
    else if (!dt->dense) dfc_dtype_unpack(dt, buf, 0, n, t->p);
    else if (t->dev) return dfc_gpu_copy(buf, t->p, n);
    else memcpy(buf, t->p, n);
    return DFC_SUCCESS;
}

void dfc_p2p_tmp_put(dfc_p2p_tmp_t *t)
{
    if (t->tb) dfc_stage_buf_put(t->tb);
    else free(t->p);
    t->p = NULL;
    t->tb = NULL;
}

/* Receives into a temporary while the send reads buf's old contents (packed first when dt
 * is not dense), then moves the message into buf; on c's point-to-point context (coll 0) or
 * its collective one (1). */
static int replace(dfc_comm_t *c, int coll, const char *func, void *buf, uint64_t count,
                   const dfc_dtype_t *dt, int dst, int sendtag, int src, int recvtag,
                   DFC_Status *status, int *err)
{
    uint64_t bytes = count * dt->size;
    int rc;
    dfc_req_t sr = {0}, rr = {0};
    void *suse;
    dfc_p2p_tmp_t tmp;
    if ((rc = dfc_p2p_tmp_get(func, buf, bytes, &tmp))) return rc;
    dfc_req_init_internal(&sr, c);
    dfc_req_init_internal(&rr, c);
    rr.func = sr.func = func;
    rr.count_arg = "count";
    if ((rc = dfc_req_stage_type(&sr, buf, count, dt, 1, 0, 0, &suse)) ||
        (rc = dfc_req_stage_in(&sr)) ||
        (rc = dfc_p2p_irecv(c, coll, tmp.p, bytes, src, recvtag, &rr)) ||
        (rc = dfc_p2p_isend(c, coll, suse, bytes, dst, sendtag, 0, &sr)) ||
        (rc = dfc_progress_until(&rr.complete)) || (rc = dfc_progress_until(&sr.complete)))
        goto out;
    if (src != DFC_PROC_NULL &&
        (rc = dfc_p2p_tmp_unpack(&tmp, buf, dt, dfc_status_bytes(&rr.status))))
        goto out;
    *status = rr.status;
    *err = sr.status.DFC_ERROR ? sr.status.DFC_ERROR : rr.status.DFC_ERROR;
out:
    dfc_p2p_tmp_put(&tmp);
    dfc_req_unstage(&sr);
    return rc;
}

int dfc_p2p_sendrecv_replace_blocking(dfc_comm_t *c, const char *func, void *buf, uint64_t count,
                                      const dfc_dtype_t *dt, int dst, int sendtag, int src,
                                      int recvtag, DFC_Status *status, int *err)
{
    return replace(c, 0, func, buf, count, dt, dst, sendtag, src, recvtag, status, err);
}

int dfc_p2p_sendrecv_replace_coll(dfc_comm_t *c, const char *func, void *buf, uint64_t count,
                                  const dfc_dtype_t *dt, int dst, int sendtag, int src, int recvtag,
                                  DFC_Status *status, int *err)
{
    return replace(c, 1, func, buf, count, dt, dst, sendtag, src, recvtag, status, err);
}

/* Iprobe: when nothing matches yet, makes progress once and looks again, so that a polling
 * loop of Iprobe alone eventually sees every message. */
int dfc_p2p_iprobe_progress(dfc_comm_t *c, int src, int tag, int *flag, DFC_Status *status)
{
    int rc, n;
    if ((rc = dfc_p2p_iprobe(c, src, tag, flag, status)) || *flag) return rc;
    if ((n = dfc_progress_poll()) < 0) return -n;
    return dfc_p2p_iprobe(c, src, tag, flag, status);
}
