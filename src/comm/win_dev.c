/*
 * win_dev.c - windows over device memory (dfc_win.h, "Device memory"): the IPC handles
 * gathered at creation, direct Put and Get through them, and the copies that stand in for
 * memcpy wherever a window's memory or an origin buffer is device memory.
 *
 * Why only Put and Get go direct: MPI makes accumulates atomic per element against each
 * other, and a copy engine cannot read-modify-write; the target applies them one at a time
 * in its progress engine (win_am.c), each as copy to host, arithmetic, copy back. Put and Get
 * need no atomicity (MPI leaves concurrent conflicting Puts undefined), so they are plain
 * copies by the origin's copy engine, the target taking no part.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_win.h"

typedef struct win_devop { /* a direct copy in flight */
    dfc_list_t link;
    int target;
    dfc_gpu_copy_op_t *op;
    dfc_req_t *user;
} win_devop_t;

void dfc_win_dev_mine(dfc_win_t *w, void *base, DFC_Aint size, dfc_win_devinfo_t *mine)
{
    memset(mine, 0, sizeof *mine);
    mine->dev = -1;
    if (w->flavor != DFC_WIN_FLAVOR_CREATE || size <= 0) return;
    mine->dev = dfc_gpu_ptr_device(base); /* the memory-type cache, once per window */
    w->dev_mem = mine->dev >= 0;
    /* Memory IPC cannot name (a pool's, cuMemCreate's) keeps buffer_id 0: reached by
     * messages. */
    if (w->dev_mem && dfc_gpu_ipc_export(base, &mine->ipc) != DFC_SUCCESS) mine->ipc.buffer_id = 0;
}

int dfc_win_dev_setup(dfc_win_t *w, const dfc_win_devinfo_t *all)
{
    int any = 0;
    for (int r = 0; r < w->size; r++)
        any |= r != w->rank && all[r].ipc.buffer_id && all[r].node == all[w->rank].node;
    if (!any) return DFC_SUCCESS;
    dfc_gpu_init(); /* an origin of host buffers maps the peers' memory too */
    if (!dfc_gpu_ipc_available()) return DFC_SUCCESS; /* messages reach them */
    if (!(w->ipc = calloc((size_t)w->size, sizeof *w->ipc)))
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory creating a window");
    for (int r = 0; r < w->size; r++)
        if (r != w->rank && all[r].node == all[w->rank].node) w->ipc[r] = all[r].ipc;
    return DFC_SUCCESS;
}

int dfc_win_dev_is_direct(const dfc_win_t *w, const dfc_win_op_t *op)
{
    return w->ipc && w->ipc[op->target].buffer_id &&
           (op->kind == DFC_WIN_OP_PUT || op->kind == DFC_WIN_OP_GET);
}

int dfc_win_dev_direct(dfc_win_t *w, const dfc_win_op_t *op, uint64_t off, dfc_req_t *user)
{
    dfc_gpu_ipc_t at = w->ipc[op->target];
    at.offset += off;
    int owner = w->comm->world[op->target];
    win_devop_t *d = calloc(1, sizeof *d);
    if (!d) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a one-sided operation");
    int rc = DFC_SUCCESS;
    /* A copy in flight holds its mapping open: with every one of DFC_GPU_IPC_CACHE's taken
     * by ours, they are waited for and the start tried once more. */
    for (int again = 0; again < 2; again++) {
        if (again && (rc = dfc_win_dev_drain(w, -1))) break;
        rc = op->kind == DFC_WIN_OP_PUT
                 ? dfc_gpu_copy_start_to(owner, &at, op->origin, op->bytes, &d->op)
                 : dfc_gpu_copy_start(op->result, NULL, owner, &at, op->bytes, &d->op);
        if (!rc || dfc_list_empty(&w->devops)) break;
    }
    if (rc) {
        free(d);
        return rc;
    }
    d->target = op->target;
    d->user = user;
    dfc_list_insert_tail(&w->devops, &d->link);
    w->pending[op->target]++;
    return DFC_SUCCESS;
}

int dfc_win_dev_progress(dfc_win_t *w)
{
    int events = 0;
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &w->devops)
    {
        win_devop_t *d = DFC_CONTAINER_OF(e, win_devop_t, link);
        int done = 0, rc = dfc_gpu_copy_test(d->op, &done);
        if (!done) continue;
        if (rc && !w->error) w->error = rc;
        dfc_list_remove(e);
        w->pending[d->target]--;
        if (d->user) {
            d->user->status.DFC_ERROR = rc;
            dfc_req_complete(d->user);
        }
        free(d);
        events++;
    }
    return events;
}

typedef struct {
    dfc_win_t *w;
    int target;
} drain_arg_t;

static int drained(void *arg)
{
    drain_arg_t *a = arg;
    dfc_win_dev_progress(a->w);
    if (a->target < 0) return dfc_list_empty(&a->w->devops);
    for (dfc_list_t *e = a->w->devops.next; e != &a->w->devops; e = e->next)
        if (DFC_CONTAINER_OF(e, win_devop_t, link)->target == a->target) return 0;
    return 1;
}

int dfc_win_dev_drain(dfc_win_t *w, int target)
{
    if (dfc_list_empty(&w->devops)) return DFC_SUCCESS;
    drain_arg_t a = {w, target};
    return dfc_progress_wait(drained, &a);
}

int dfc_win_dev_at(const dfc_win_t *w, const void *t)
{
    if (w->flavor != DFC_WIN_FLAVOR_DYNAMIC) return w->dev_mem;
    for (int i = 0; i < w->nregions; i++)
        if ((uintptr_t)t >= w->regions[i].base &&
            (uintptr_t)t < w->regions[i].base + w->regions[i].size)
            return w->regions[i].dev;
    return 0;
}

int dfc_win_copy(void *dst, const void *src, uint64_t bytes)
{
    if (!bytes) return DFC_SUCCESS;
    if (dfc_gpu_is_device_ptr(dst) || dfc_gpu_is_device_ptr(src))
        return dfc_gpu_copy_wait(dst, src, bytes);
    memcpy(dst, src, bytes);
    return DFC_SUCCESS;
}

/* A read-modify-write of t in host memory: tmp holds t's bytes, then the origin's (o), the
 * compare value (c) where there is one. */
static int rmw(const dfc_win_op_t *op, char *t, int tdev, char *tmp)
{
    uint64_t n = op->bytes;
    char *o = tmp + n, *c = tmp + 2 * n;
    int rc = tdev ? dfc_gpu_copy_wait(tmp, t, n) : (memcpy(tmp, t, n), DFC_SUCCESS);
    int noop = op->kind == DFC_WIN_OP_GACC && op->op->handle == DFC_NO_OP;
    if (!rc && op->origin && !noop) rc = dfc_win_copy(o, op->origin, n);
    if (!rc && op->compare) rc = dfc_win_copy(c, op->compare, n);
    if (!rc && op->result) rc = dfc_win_copy(op->result, tmp, n);
    if (rc) return rc;
    if (op->kind == DFC_WIN_OP_CAS) {
        if (memcmp(tmp, c, n) != 0) return DFC_SUCCESS;
        memcpy(tmp, o, n);
    } else if (!noop) dfc_win_apply(op->op, op->base, o, tmp, n);
    else return DFC_SUCCESS;
    return tdev ? dfc_gpu_copy_wait(t, tmp, n) : (memcpy(t, tmp, n), DFC_SUCCESS);
}

int dfc_win_dev_local(const dfc_win_op_t *op, char *t, int tdev)
{
    if (op->bytes == 0) return DFC_SUCCESS;
    if (op->kind == DFC_WIN_OP_PUT) return dfc_win_copy(t, op->origin, op->bytes);
    if (op->kind == DFC_WIN_OP_GET) return dfc_win_copy(op->result, t, op->bytes);
    char *tmp = malloc(3 * op->bytes);
    if (!tmp) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a one-sided operation");
    int rc = rmw(op, t, tdev, tmp);
    free(tmp);
    return rc;
}
