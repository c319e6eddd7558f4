/*
 * api_inter_coll.c - the intercommunicator forms (MPI-4.1 6.2.2) of Reduce, Gather(v),
 * Scatter(v), Allgatherv, Alltoall(v/w) and Reduce_scatter(_block), blocking and
 * nonblocking, which the collective entry points hand here when their communicator is one.
 * Argument checks by MPI's intercommunicator rules (a root is DFC_ROOT, DFC_PROC_NULL or a
 * rank of the remote group; arrays that describe blocks moving across have the remote
 * group's size; DFC_IN_PLACE is never allowed), then one call inward: dfc_coll_inter_direct
 * (src/coll/inter_direct.c), which also keeps the persistent forms' plans.
 */
#include <stdlib.h>

#include "api/api_coll_common.h"

int dfc_api_inter_mode_check(const dfc_coll_call_t *call)
{
    if (call->mode != DFC_MODE_BLOCKING && !call->request)
        return dfc_err(DFC_ERR_ARG, call->func, "invalid argument request: NULL pointer");
    if (call->mode == DFC_MODE_PERSISTENT && call->info != DFC_INFO_NULL &&
        !dfc_htable_get(&dfc_info_table, call->info))
        return dfc_err(DFC_ERR_INFO, call->func,
                       "invalid argument info: 0x%x is not a valid info object",
                       (unsigned)call->info);
    return DFC_SUCCESS;
}

int dfc_api_inter_root_check(const char *func, const dfc_comm_t *c, int root)
{
    if (root == DFC_ROOT || root == DFC_PROC_NULL || (root >= 0 && root < c->remote->size))
        return DFC_SUCCESS;
    return dfc_err(DFC_ERR_ROOT, func,
                   "invalid argument root: %d is neither DFC_ROOT, DFC_PROC_NULL nor a rank of "
                   "the remote group (size %d)",
                   root, c->remote->size);
}

static int no_in_place(const char *func, const char *name, const void *buf)
{
    if (buf != DFC_IN_PLACE) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_BUFFER, func,
                   "invalid argument %s: DFC_IN_PLACE is not allowed on an intercommunicator",
                   name);
}

/* One side of a move: names are buf, counts, displs, type; v: counts/displs of n entries. */
static int check_side(const char *func, const char *const names[4], int v, const void *buf,
                      int count, const int *counts, const int *displs, DFC_Datatype t, int n,
                      dfc_dtype_t **d)
{
    int rc;
    if ((rc = no_in_place(func, names[0], buf))) return rc;
    if (!v) return dfc_coll_check_buf(func, names[0], buf, count, t, 0, d);
    if ((rc = dfc_coll_check_counts(func, names[1], counts, displs, n)) ||
        (rc = dfc_coll_check_counts(func, names[2], displs, NULL, 0)) ||
        (rc = dfc_dtype_check(t, func, names[3], d)))
        return rc;
    for (int i = 0; i < n && !buf && (*d)->size; i++)
        if (counts[i] > 0)
            return dfc_err(DFC_ERR_BUFFER, func, "invalid argument %s: NULL pointer", names[0]);
    return DFC_SUCCESS;
}

int dfc_api_inter_move(const dfc_coll_call_t *call, dfc_comm_t *c, const move_desc_t *m)
{
    static const char *const sn[4] = {"sendbuf", "sendcounts", "sdispls", "sendtype"};
    static const char *const rn[4] = {"recvbuf", "recvcounts", "rdispls", "recvtype"};
    static const char *const svn[4] = {"sendbuf", "sendcounts", "displs", "sendtype"};
    static const char *const rvn[4] = {"recvbuf", "recvcounts", "displs", "recvtype"};
    const char *f = call->func;
    int rc, n = c->remote->size, a2a = m->vsend && m->vrecv;
    int gat = m->kind == DFC_COLL_GATHER || m->kind == DFC_COLL_GATHERV;
    int send_used = 1, recv_used = 1;
    dfc_dtype_t *sd = NULL, *rd = NULL;
    if ((rc = dfc_api_inter_mode_check(call))) return rc;
    if (m->rooted) {
        if ((rc = dfc_api_inter_root_check(f, c, m->root))) return rc;
        int remote = m->root >= 0; /* the root is in the other group */
        send_used = m->root != DFC_PROC_NULL && (gat ? remote : !remote);
        recv_used = m->root != DFC_PROC_NULL && (gat ? !remote : remote);
    }
    if ((send_used && (rc = check_side(f, a2a ? sn : svn, m->vsend, m->sendbuf, m->sendcount,
                                       m->sendcounts, m->sdispls, m->sendtype, n, &sd))) ||
        (recv_used && (rc = check_side(f, a2a ? rn : rvn, m->vrecv, m->recvbuf, m->recvcount,
                                       m->recvcounts, m->rdispls, m->recvtype, n, &rd))))
        return rc;
    dfc_coll_inter_args_t a = {.kind = m->kind, .root = m->root, .stype = sd, .rtype = rd};
    if (send_used) {
        a.sbuf = m->sendbuf;
        a.scount = (uint64_t)m->sendcount;
        a.scounts = m->sendcounts;
        a.sdispls = m->sdispls;
    }
    if (recv_used) {
        a.rbuf = m->recvbuf;
        a.rcount = (uint64_t)m->recvcount;
        a.rcounts = m->recvcounts;
        a.rdispls = m->rdispls;
    }
    return dfc_coll_inter_direct(call, c, &a);
}

/* count, datatype and op of a reduction, and the buffer significant here (name). */
static int check_red(const char *func, const char *name, const void *buf, int count,
                     DFC_Datatype datatype, DFC_Op op, dfc_dtype_t **d, dfc_op_t **o)
{
    int rc;
    if ((rc = dfc_api_check_count(func, "count", count)) ||
        (rc = dfc_dtype_check(datatype, func, "datatype", d)) ||
        (rc = dfc_op_check(op, *d, func, "op", o)) || (rc = no_in_place(func, name, buf)))
        return rc;
    if (count > 0 && !buf)
        return dfc_err(DFC_ERR_BUFFER, func, "invalid argument %s: NULL with count %d", name,
                       count);
    return DFC_SUCCESS;
}

int dfc_api_inter_reduction(const dfc_coll_call_t *call, dfc_comm_t *c, dfc_coll_kind_t kind,
                            const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype,
                            DFC_Op op, int root)
{
    const char *f = call->func;
    dfc_dtype_t *d = NULL;
    dfc_op_t *o = NULL;
    int rc;
    if (kind == DFC_COLL_ALLREDUCE)
        return dfc_api_inter_allreduce(call, c, sendbuf, recvbuf, count, datatype, op);
    if (kind != DFC_COLL_REDUCE) /* MPI-4.1 6.2.2 lists no scan on intercommunicators */
        return dfc_err(DFC_ERR_COMM, f,
                       "invalid argument comm: an intercommunicator, on which MPI does not "
                       "define %s",
                       kind == DFC_COLL_SCAN ? "Scan" : "Exscan");
    if ((rc = dfc_api_inter_mode_check(call)) || (rc = dfc_api_inter_root_check(f, c, root)))
        return rc;
    if (root != DFC_PROC_NULL &&
        (rc = check_red(f, root == DFC_ROOT ? "recvbuf" : "sendbuf",
                        root == DFC_ROOT ? recvbuf : sendbuf, count, datatype, op, &d, &o)))
        return rc;
    dfc_coll_inter_args_t a = {.kind = kind,
                               .root = root,
                               .sbuf = sendbuf,
                               .rbuf = recvbuf,
                               .scount = (uint64_t)count,
                               .stype = d,
                               .op = o};
    return dfc_coll_inter_direct(call, c, &a);
}

int dfc_api_inter_reduce_scatter(const dfc_coll_call_t *call, dfc_comm_t *c, const void *sendbuf,
                                 void *recvbuf, int vform, int recvcount, const int *recvcounts,
                                 DFC_Datatype datatype, DFC_Op op)
{
    const char *f = call->func;
    dfc_dtype_t *d = NULL;
    dfc_op_t *o = NULL;
    int rc, mine = recvcount;
    int64_t total = (int64_t)recvcount * c->size;
    if ((rc = dfc_api_inter_mode_check(call))) return rc;
    if (vform) { /* recvcounts: the local group's blocks of the remote group's result */
        if ((rc = dfc_coll_check_counts(f, "recvcounts", recvcounts, NULL, c->size))) return rc;
        total = 0;
        for (int i = 0; i < c->size; i++) total += recvcounts[i];
        mine = recvcounts[c->rank];
    } else if ((rc = dfc_api_check_count(f, "recvcount", recvcount))) {
        return rc;
    }
    if ((rc = check_red(f, "recvbuf", recvbuf, mine, datatype, op, &d, &o)) ||
        (rc = no_in_place(f, "sendbuf", sendbuf)))
        return rc;
    if (total > 0 && !sendbuf)
        return dfc_err(DFC_ERR_BUFFER, f, "invalid argument sendbuf: NULL pointer");
    dfc_coll_inter_args_t a = {.kind = vform ? DFC_COLL_REDUCE_SCATTER
                                             : DFC_COLL_REDUCE_SCATTER_BLOCK,
                               .sbuf = sendbuf,
                               .rbuf = recvbuf,
                               .rcount = (uint64_t)recvcount,
                               .rcounts = recvcounts,
                               .stype = d,
                               .op = o};
    return dfc_coll_inter_direct(call, c, &a);
}

/* One alltoallw side: n counts, displacements and types (names as in check_side). */
static int check_w(const char *func, const char *const names[4], const void *buf, const int *counts,
                   const int *displs, const DFC_Datatype *types, int n, const dfc_dtype_t **dts)
{
    int rc;
    uint64_t bytes = 0;
    if ((rc = no_in_place(func, names[0], buf)) ||
        (rc = dfc_coll_check_counts(func, names[1], counts, NULL, n)) ||
        (rc = dfc_coll_check_counts(func, names[2], displs, NULL, 0)))
        return rc;
    if (!types) return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", names[3]);
    for (int i = 0; i < n; i++) {
        dfc_dtype_t *d;
        if ((rc = dfc_dtype_check(types[i], func, names[3], &d))) return rc;
        dts[i] = d;
        bytes += (uint64_t)counts[i] * d->size;
    }
    if (bytes && !buf)
        return dfc_err(DFC_ERR_BUFFER, func, "invalid argument %s: NULL pointer", names[0]);
    return DFC_SUCCESS;
}

int dfc_api_inter_alltoallw(const dfc_coll_call_t *call, dfc_comm_t *c, const void *sendbuf,
                            const int *sendcounts, const int *sdispls,
                            const DFC_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
                            const int *rdispls, const DFC_Datatype *recvtypes)
{
    static const char *const sn[4] = {"sendbuf", "sendcounts", "sdispls", "sendtypes"};
    static const char *const rn[4] = {"recvbuf", "recvcounts", "rdispls", "recvtypes"};
    int rc, n = c->remote->size;
    const dfc_dtype_t **st = malloc(((size_t)n + 1) * sizeof *st);
    const dfc_dtype_t **rt = malloc(((size_t)n + 1) * sizeof *rt);
    if (!st || !rt) {
        rc = dfc_err(DFC_ERR_NO_MEM, call->func, "out of memory listing the blocks");
        goto out;
    }
    if ((rc = dfc_api_inter_mode_check(call)) ||
        (rc = check_w(call->func, sn, sendbuf, sendcounts, sdispls, sendtypes, n, st)) ||
        (rc = check_w(call->func, rn, recvbuf, recvcounts, rdispls, recvtypes, n, rt)))
        goto out;
    dfc_coll_inter_args_t a = {.kind = DFC_COLL_ALLTOALLW,
                               .sbuf = sendbuf,
                               .rbuf = recvbuf,
                               .scounts = sendcounts,
                               .sdispls = sdispls,
                               .rcounts = recvcounts,
                               .rdispls = rdispls,
                               .stypes = st,
                               .rtypes = rt};
    rc = dfc_coll_inter_direct(call, c, &a);
out:
    free(st);
    free(rt);
    return rc;
}
