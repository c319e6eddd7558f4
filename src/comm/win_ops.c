/*
 * win_ops.c - Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap and their
 * request-based forms: the epoch and range checks, then loads and stores (SHM windows) or a
 * message to the target (AM windows; win_am.c).
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_win.h"

/* MPI-4.1 12.5: an operation needs an access epoch to its target. */
static int in_epoch(const dfc_win_t *w, int target)
{
    if (w->fence_epoch || w->lock_all || w->locked[target]) return 1;
    if (w->start_group)
        return dfc_group_rank_of(w->start_group, w->comm->world[target]) != DFC_UNDEFINED;
    return 0;
}

static int check_target(dfc_win_t *w, const char *func, const dfc_win_op_t *op, uint64_t *off)
{
    if (!in_epoch(w, op->target))
        return dfc_err(DFC_ERR_RMA_SYNC, func,
                       "invalid argument target_rank: no access epoch to rank %d is open "
                       "(call DFC_Win_fence, DFC_Win_lock(_all) or DFC_Win_start first)",
                       op->target);
    if (w->flavor == DFC_WIN_FLAVOR_DYNAMIC) {
        *off = (uint64_t)op->disp;
        return DFC_SUCCESS;
    }
    DFC_Aint unit = w->disp_units[op->target];
    if (op->disp < 0 ||
        (uint64_t)op->disp * (uint64_t)unit + op->bytes > (uint64_t)w->sizes[op->target])
        return dfc_err(DFC_ERR_RMA_RANGE, func,
                       "invalid argument target_disp: %lld units of %lld bytes plus %llu bytes "
                       "lie outside the %lld bytes of rank %d's window",
                       (long long)op->disp, (long long)unit, (unsigned long long)op->bytes,
                       (long long)w->sizes[op->target], op->target);
    *off = (uint64_t)op->disp * (uint64_t)unit;
    return DFC_SUCCESS;
}

/* Loads and stores at t, the target memory in this process's address space: SHM windows (t in
 * the segment, accumulates under the target's spinlock) and operations of AM windows whose
 * target is this process (locked 0: atomic with other origins' requests, which the progress
 * engine applies, because this caller excludes it: one thread, or the library lock held).
 * The operation is done when this returns (a Get's data is there). */
static int local_op(dfc_win_t *w, const dfc_win_op_t *op, char *t, int locked)
{
    if (op->bytes == 0) return DFC_SUCCESS;
    int atomic = locked && op->kind != DFC_WIN_OP_PUT && op->kind != DFC_WIN_OP_GET;
    /* Device memory on either side (an own device window, a device origin or result buffer:
     * the memory-type cache answers) takes copies (win_dev.c). */
    int tdev = !locked && dfc_win_dev_at(w, t);
    if (tdev || dfc_gpu_is_device_ptr(op->origin) || dfc_gpu_is_device_ptr(op->result) ||
        dfc_gpu_is_device_ptr(op->compare)) {
        if (atomic) dfc_win_shm_acc_lock(w, op->target);
        int rc = dfc_win_dev_local(op, t, tdev);
        if (atomic) dfc_win_shm_acc_unlock(w, op->target);
        return rc;
    }
    if (atomic) dfc_win_shm_acc_lock(w, op->target);
    switch (op->kind) {
    case DFC_WIN_OP_PUT: memcpy(t, op->origin, op->bytes); break;
    case DFC_WIN_OP_GET: memcpy(op->result, t, op->bytes); break;
    case DFC_WIN_OP_ACC: dfc_win_apply(op->op, op->base, op->origin, t, op->bytes); break;
    case DFC_WIN_OP_GACC:
        memcpy(op->result, t, op->bytes);
        dfc_win_apply(op->op, op->base, op->origin, t, op->bytes);
        break;
    case DFC_WIN_OP_CAS:
        memcpy(op->result, t, op->bytes);
        if (memcmp(t, op->compare, op->bytes) == 0) memcpy(t, op->origin, op->bytes);
        break;
    }
    if (atomic) dfc_win_shm_acc_unlock(w, op->target);
    return DFC_SUCCESS;
}

static int am_op(dfc_win_t *w, const dfc_win_op_t *op, uint64_t off, dfc_req_t *user)
{
    dfc_win_msg_t m = {0};
    m.offset = off;
    m.bytes = op->bytes;
    if (op->op) m.op = op->op->handle;
    if (op->base) m.dtype = op->base->handle;
    switch (op->kind) {
    case DFC_WIN_OP_PUT:
        m.kind = DFC_WIN_MSG_PUT;
        w->touched[op->target] = 1;
        if (op->bytes > DFC_WIN_PUT_COPY_MAX) {
            m.kind = DFC_WIN_MSG_PUT_LARGE;
            return dfc_win_am_send_large(w, op->target, &m, op->origin, op->bytes, user);
        }
        return dfc_win_am_send(w, op->target, &m, op->origin, op->bytes, NULL, -1, user);
    case DFC_WIN_OP_ACC:
        m.kind = DFC_WIN_MSG_ACC;
        w->touched[op->target] = 1;
        if (op->bytes > DFC_WIN_PUT_COPY_MAX) {
            m.kind = DFC_WIN_MSG_ACC_LARGE;
            return dfc_win_am_send_large(w, op->target, &m, op->origin, op->bytes, user);
        }
        return dfc_win_am_send(w, op->target, &m, op->origin, op->bytes, NULL, -1, user);
    case DFC_WIN_OP_GET:
        m.kind = DFC_WIN_MSG_GET;
        return dfc_win_am_send(w, op->target, &m, NULL, 0, op->result, (long)op->bytes, user);
    case DFC_WIN_OP_GACC: /* NO_OP sends no data: the target reads only */
        m.kind = DFC_WIN_MSG_GACC;
        return dfc_win_am_send(w, op->target, &m, op->origin,
                               op->op->handle == DFC_NO_OP ? 0 : op->bytes, op->result,
                               (long)op->bytes, user);
    default: { /* CAS: the new value, then the compare value */
        char pair[64];
        int rc = dfc_win_copy(pair, op->origin, op->bytes); /* either may be device memory */
        if (!rc) rc = dfc_win_copy(pair + op->bytes, op->compare, op->bytes);
        if (rc) return rc;
        m.kind = DFC_WIN_MSG_CAS;
        return dfc_win_am_send(w, op->target, &m, pair, 2 * op->bytes, op->result, (long)op->bytes,
                               user);
    }
    }
}

int dfc_win_op(dfc_win_t *w, const char *func, const dfc_win_op_t *op, DFC_Request *request)
{
    dfc_req_t *user = NULL;
    uint64_t off = 0;
    int rc = DFC_SUCCESS;
    if (op->target != DFC_PROC_NULL && (rc = check_target(w, func, op, &off))) return rc;
    if (request && op->target != DFC_PROC_NULL && !w->lock_all && !w->locked[op->target])
        return dfc_err(DFC_ERR_RMA_SYNC, func,
                       "invalid argument target_rank: request-based operations need a "
                       "passive-target epoch (DFC_Win_lock or DFC_Win_lock_all) to rank %d",
                       op->target);
    if (request) {
        if (!(user = dfc_req_new(DFC_REQ_SEND, w->comm)))
            return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a request");
        if ((rc = dfc_req_handle(user, request))) {
            dfc_req_free(user);
            return rc;
        }
    }
    /* An AM window's operation on this process itself is done here at once, as on SHM
     * windows, rather than sent to ourselves: MPI lets it complete anywhere in the epoch, but
     * Open MPI and MPICH complete it at once and programs rely on that (mpi4py's test_rma
     * frees a Compare_and_swap's result buffer before the closing fence, which the reply
     * would have written after the free). No earlier operation to ourselves is still in
     * flight to be overtaken: they all take this path. */
    char *t = NULL;
    if (op->target == w->rank && w->backend == DFC_WIN_BACKEND_AM &&
        !(t = dfc_win_local_addr(w, off, op->bytes)))
        return dfc_err(DFC_ERR_RMA_RANGE, func,
                       "invalid argument target_disp: %llu bytes at 0x%llx are not in memory "
                       "attached to the window",
                       (unsigned long long)op->bytes, (unsigned long long)off);
    if (w->backend == DFC_WIN_BACKEND_SHM && op->target != DFC_PROC_NULL)
        t = w->bases[op->target] + off;
    if (op->target == DFC_PROC_NULL || t) {
        if (t) rc = local_op(w, op, t, w->backend == DFC_WIN_BACKEND_SHM);
        if (user && !rc) dfc_req_complete(user);
        if (user && rc) {
            *request = DFC_REQUEST_NULL;
            dfc_req_free(user);
        }
        return rc;
    }
    rc = dfc_win_dev_is_direct(w, op) ? dfc_win_dev_direct(w, op, off, user)
                                      : am_op(w, op, off, user);
    if (rc && user) {
        *request = DFC_REQUEST_NULL;
        dfc_req_free(user);
    }
    return rc;
}
