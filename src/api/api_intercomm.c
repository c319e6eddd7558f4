/*
 * api_intercomm.c - intercommunicators (MPI-4.1 7.6): Intercomm_create, Intercomm_merge,
 * Comm_remote_size, Comm_remote_group, and the intercommunicator forms of Barrier, Bcast,
 * Allreduce, Allgather, Allgatherv, Gather(v), Scatter(v) and Alltoall(v) (6.2.2), which the
 * collective entry points hand here when their communicator is one (dfc_api_inter_*).
 * Argument checks, then one call inward (src/comm/intercomm.c, src/coll/inter_*.c).
 *
 * Only the blocking forms of those collectives take an intercommunicator; every other
 * collective (reductions but Allreduce, scans, Alltoallw), and the nonblocking and persistent
 * forms, fail on one with DFC_ERR_COMM (dfc_coll_check_call) instead of running an
 * intracommunicator algorithm on it.
 */
#include <stdint.h>
#include <stdlib.h>

#include "api/api_coll_common.h"

int DFC_Intercomm_create(DFC_Comm local_comm, int local_leader, DFC_Comm peer_comm,
                         int remote_leader, int tag, DFC_Comm *newintercomm)
{
    int rc;
    dfc_comm_t *lc = NULL, *pc = NULL, *nc = NULL;
    const char *f = __func__;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(local_comm, f, "local_comm", &lc)) ||
        (rc = dfc_comm_intra_check(lc, f, "local_comm")) ||
        (rc = dfc_api_check_ptr(f, "newintercomm", newintercomm)))
        goto fn_fail;
    if (local_leader < 0 || local_leader >= lc->size) {
        rc = dfc_err(DFC_ERR_RANK, f,
                     "invalid argument local_leader: %d is not a rank of local_comm (size %d)",
                     local_leader, lc->size);
        goto fn_fail;
    }
    /* peer_comm, remote_leader and tag matter at the local leader only (MPI-4.1 7.6.2). */
    if (lc->rank == local_leader && ((rc = dfc_comm_check(peer_comm, f, "peer_comm", &pc)) ||
                                     (rc = dfc_api_check_tag(f, "tag", tag, 0))))
        goto fn_fail;
    if ((rc = dfc_intercomm_create(lc, local_leader, pc, remote_leader, tag, f, &nc)) ||
        (rc = dfc_api_comm_give_handle(nc, newintercomm)))
        goto fn_fail;
    API_FAIL_EXIT(lc)
}

int DFC_Intercomm_merge(DFC_Comm intercomm, int high, DFC_Comm *newintracomm)
{
    int rc;
    dfc_comm_t *c = NULL, *nc = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(intercomm, __func__, "intercomm", &c)) ||
        (rc = dfc_comm_inter_check(c, __func__, "intercomm")) ||
        (rc = dfc_api_check_ptr(__func__, "newintracomm", newintracomm)) ||
        (rc = dfc_intercomm_merge(c, high, __func__, &nc)) ||
        (rc = dfc_api_comm_give_handle(nc, newintracomm)))
        goto fn_fail;
    API_FAIL_EXIT(c)
}

int DFC_Comm_remote_size(DFC_Comm comm, int *size)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_comm_inter_check(c, __func__, "comm")) ||
        (rc = dfc_api_check_ptr(__func__, "size", size)))
        goto fn_fail;
    *size = c->remote->size;
    API_FAIL_EXIT(c)
}

int DFC_Comm_remote_group(DFC_Comm comm, DFC_Group *group)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_comm_inter_check(c, __func__, "comm")) ||
        (rc = dfc_api_check_ptr(__func__, "group", group)) ||
        (rc = dfc_group_new_handle(c->remote->size, c->remote->world, __func__, group)))
        goto fn_fail;
    API_FAIL_EXIT(c)
}

/* ---- The collectives' intercommunicator forms -------------------------------------------- */

dfc_comm_t *dfc_api_inter_of(DFC_Comm comm)
{
    dfc_comm_t *c = dfc_comm_get(comm);
    return c && c->remote ? c : NULL;
}

/* Only the blocking forms exist. */
static int check_blocking(const dfc_coll_call_t *call)
{
    if (call->mode == DFC_MODE_BLOCKING) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_COMM, call->func,
                   "invalid argument comm: an intercommunicator, which the nonblocking and "
                   "persistent forms do not take yet (the blocking form does)");
}

int dfc_api_inter_barrier(const dfc_coll_call_t *call, dfc_comm_t *c)
{
    int rc = check_blocking(call);
    return rc ? rc : dfc_coll_inter_barrier(call->func, c);
}

int dfc_api_inter_bcast(const dfc_coll_call_t *call, dfc_comm_t *c, void *buffer, int count,
                        DFC_Datatype datatype, int root)
{
    int rc;
    dfc_dtype_t *d = NULL;
    if ((rc = check_blocking(call))) return rc;
    if (root != DFC_ROOT && root != DFC_PROC_NULL && (root < 0 || root >= c->remote->size))
        return dfc_err(DFC_ERR_ROOT, call->func,
                       "invalid argument root: %d is neither DFC_ROOT, DFC_PROC_NULL nor a rank "
                       "of the remote group (size %d)",
                       root, c->remote->size);
    if (root == DFC_PROC_NULL) return DFC_SUCCESS; /* the buffer is not significant */
    if ((rc = dfc_coll_check_buf(call->func, "buffer", buffer, count, datatype, 0, &d))) return rc;
    return dfc_coll_inter_bcast(call->func, c, buffer, (uint64_t)count, d, root);
}

int dfc_api_inter_allreduce(const dfc_coll_call_t *call, dfc_comm_t *c, const void *sendbuf,
                            void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op)
{
    int rc;
    dfc_dtype_t *d = NULL;
    dfc_op_t *o = NULL;
    const char *f = call->func;
    if ((rc = check_blocking(call)) || (rc = dfc_api_check_count(f, "count", count)) ||
        (rc = dfc_dtype_check(datatype, f, "datatype", &d)) ||
        (rc = dfc_op_check(op, d, f, "op", &o)))
        return rc;
    if (sendbuf == DFC_IN_PLACE || recvbuf == DFC_IN_PLACE)
        return dfc_err(DFC_ERR_BUFFER, f,
                       "invalid argument %s: DFC_IN_PLACE is not allowed on an intercommunicator",
                       sendbuf == DFC_IN_PLACE ? "sendbuf" : "recvbuf");
    if ((rc = dfc_coll_check_buf(f, "sendbuf", sendbuf, count, datatype, 0, &d)) ||
        (rc = dfc_coll_check_buf(f, "recvbuf", recvbuf, count, datatype, 0, &d)))
        return rc;
    return dfc_coll_inter_allreduce(f, c, sendbuf, recvbuf, (uint64_t)count, d, o);
}

int dfc_api_inter_allgather(const dfc_coll_call_t *call, dfc_comm_t *c, const void *sendbuf,
                            int sendcount, DFC_Datatype sendtype, void *recvbuf, int recvcount,
                            DFC_Datatype recvtype)
{
    int rc;
    dfc_dtype_t *sd = NULL, *rd = NULL;
    const char *f = call->func;
    if ((rc = check_blocking(call))) return rc;
    if (sendbuf == DFC_IN_PLACE || recvbuf == DFC_IN_PLACE)
        return dfc_err(DFC_ERR_BUFFER, f,
                       "invalid argument %s: DFC_IN_PLACE is not allowed on an intercommunicator",
                       sendbuf == DFC_IN_PLACE ? "sendbuf" : "recvbuf");
    if ((rc = dfc_coll_check_buf(f, "sendbuf", sendbuf, sendcount, sendtype, 0, &sd)) ||
        (rc = dfc_coll_check_buf(f, "recvbuf", recvbuf, recvcount, recvtype, 0, &rd)))
        return rc;
    dfc_coll_side_t s = {sendbuf, (uint64_t)sendcount, sd, 0};
    dfc_coll_side_t r = {recvbuf, (uint64_t)recvcount, rd, 0};
    return dfc_coll_inter_allgather(f, c, &s, &r);
}

/* ---- Gather(v), Scatter(v), Allgatherv, Alltoall(v) (issue 21) ---------------------------- */

enum { BLOCKS_ONE, BLOCKS_EACH, BLOCKS_SAME }; /* to/from the root; one a remote; one for all */

/* Checks one side of m (send: is_send) and lists its blocks: BLOCKS_ONE, the whole buffer
 * with peer `peer`; BLOCKS_EACH, block i (count or counts[i] items at i * count or displs[i]
 * extents) with remote process i; BLOCKS_SAME, the whole buffer with every remote process. */
static int inter_blocks(const char *f, const dfc_comm_t *c, const move_desc_t *m, int is_send,
                        int how, int peer, dfc_coll_side_t **out, int *n)
{
    const void *buf = is_send ? m->sendbuf : m->recvbuf;
    const char *bname = is_send ? "sendbuf" : "recvbuf";
    int v = is_send ? m->vsend : m->vrecv, count = is_send ? m->sendcount : m->recvcount;
    const int *counts = is_send ? m->sendcounts : m->recvcounts;
    const int *displs = is_send ? m->sdispls : m->rdispls;
    DFC_Datatype type = is_send ? m->sendtype : m->recvtype;
    dfc_dtype_t *d = NULL;
    int rc, nb = how == BLOCKS_ONE ? 1 : c->remote->size;
    uint64_t total = 0;
    if (buf == DFC_IN_PLACE)
        return dfc_err(DFC_ERR_BUFFER, f,
                       "invalid argument %s: DFC_IN_PLACE is not allowed on an intercommunicator",
                       bname);
    if (!v) {
        if ((rc = dfc_coll_check_buf(f, bname, buf, count, type, 0, &d))) return rc;
    } else if ((rc = dfc_coll_check_counts(f, is_send ? "sendcounts" : "recvcounts", counts, NULL,
                                           nb)) ||
               (rc = dfc_dtype_check(type, f, is_send ? "sendtype" : "recvtype", &d))) {
        return rc;
    } else if (!displs) {
        return dfc_err(DFC_ERR_ARG, f, "invalid argument %s: NULL pointer",
                       is_send ? "sdispls"
                               : (m->kind == DFC_COLL_ALLTOALLV ? "rdispls" : "displs"));
    }
    dfc_coll_side_t *x = malloc((size_t)nb * sizeof *x);
    if (!x) return dfc_err(DFC_ERR_NO_MEM, f, "out of memory listing %d blocks", nb);
    for (int i = 0; i < nb; i++) {
        int each = how == BLOCKS_EACH;
        int64_t at = !each ? 0 : v ? displs[i] : (int64_t)i * count;
        x[i].buf = (const void *)((uintptr_t)buf + (uintptr_t)(at * d->extent)); /* BOTTOM too */
        x[i].count = (uint64_t)(v && each ? counts[i] : count);
        x[i].dt = d;
        x[i].peer = how == BLOCKS_ONE ? peer : i;
        total += x[i].count * d->size;
    }
    if (v && !buf && total && !dfc_api_bottom_ok(d)) {
        free(x);
        return dfc_err(DFC_ERR_BUFFER, f,
                       "invalid argument %s: NULL with a datatype whose data starts at its "
                       "origin (DFC_BOTTOM needs a type of absolute addresses)",
                       bname);
    }
    *out = x;
    *n = nb;
    return DFC_SUCCESS;
}

int dfc_api_inter_move(const dfc_coll_call_t *call, dfc_comm_t *c, const move_desc_t *m)
{
    const char *f = call->func;
    int rc, ns = 0, nr = 0, gather = m->kind == DFC_COLL_GATHER || m->kind == DFC_COLL_GATHERV;
    dfc_coll_side_t *s = NULL, *r = NULL;
    if ((rc = check_blocking(call))) return rc;
    if (m->rooted && m->root != DFC_ROOT && m->root != DFC_PROC_NULL &&
        (m->root < 0 || m->root >= c->remote->size))
        return dfc_err(DFC_ERR_ROOT, f,
                       "invalid argument root: %d is neither DFC_ROOT, DFC_PROC_NULL nor a rank "
                       "of the remote group (size %d)",
                       m->root, c->remote->size);
    if (m->rooted && m->root == DFC_PROC_NULL) return DFC_SUCCESS; /* nothing is significant */
    if (!m->rooted) { /* allgatherv: this block to every remote process; alltoall(v): one each */
        int how = m->kind == DFC_COLL_ALLGATHERV ? BLOCKS_SAME : BLOCKS_EACH;
        rc = inter_blocks(f, c, m, 1, how, 0, &s, &ns);
        if (!rc) rc = inter_blocks(f, c, m, 0, BLOCKS_EACH, 0, &r, &nr);
    } else if (m->root == DFC_ROOT) { /* gather: one from each; scatter: one to each */
        rc = gather ? inter_blocks(f, c, m, 0, BLOCKS_EACH, 0, &r, &nr)
                    : inter_blocks(f, c, m, 1, BLOCKS_EACH, 0, &s, &ns);
    } else {
        rc = gather ? inter_blocks(f, c, m, 1, BLOCKS_ONE, m->root, &s, &ns)
                    : inter_blocks(f, c, m, 0, BLOCKS_ONE, m->root, &r, &nr);
    }
    if (!rc) rc = dfc_coll_inter_move(f, c, s, ns, r, nr);
    free(s);
    free(r);
    return rc;
}
