/*
 * api_intercomm.c - intercommunicators (MPI-4.1 7.6): Intercomm_create, Intercomm_merge,
 * Comm_remote_size, Comm_remote_group, and the intercommunicator forms of Barrier, Bcast,
 * Allreduce and Allgather (6.2.2), which the collective entry points hand here when their
 * communicator is one (dfc_api_inter_*). Argument checks, then one call inward
 * (src/comm/intercomm.c, src/coll/inter_*.c).
 *
 * The blocking forms of those four run three-phase algorithms (src/coll/inter_*.c); their
 * nonblocking forms, like every other intercommunicator collective (api_inter_coll.c), run
 * the direct algorithm (src/coll/inter_direct.c). The persistent forms fail with
 * DFC_ERR_COMM (dfc_api_inter_mode_check).
 */
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

int dfc_api_inter_barrier(const dfc_coll_call_t *call, dfc_comm_t *c)
{
    int rc = dfc_api_inter_mode_check(call);
    dfc_coll_inter_args_t a = {.kind = DFC_COLL_BARRIER};
    if (rc) return rc;
    if (call->mode != DFC_MODE_BLOCKING) return dfc_coll_inter_direct(call, c, &a);
    return dfc_coll_inter_barrier(call->func, c);
}

int dfc_api_inter_bcast(const dfc_coll_call_t *call, dfc_comm_t *c, void *buffer, int count,
                        DFC_Datatype datatype, int root)
{
    int rc;
    dfc_dtype_t *d = NULL;
    int nb = call->mode != DFC_MODE_BLOCKING; /* nonblocking or persistent: direct */
    if ((rc = dfc_api_inter_mode_check(call)) ||
        (rc = dfc_api_inter_root_check(call->func, c, root)))
        return rc;
    /* DFC_PROC_NULL: the buffer is not significant; the nonblocking and persistent forms
     * still make a request (and take their sequence number). */
    if (root == DFC_PROC_NULL && !nb) return DFC_SUCCESS;
    if (root != DFC_PROC_NULL &&
        (rc = dfc_coll_check_buf(call->func, "buffer", buffer, count, datatype, 0, &d)))
        return rc;
    dfc_coll_inter_args_t a = {.kind = DFC_COLL_BCAST,
                               .root = root,
                               .rbuf = buffer,
                               .rcount = (uint64_t)count,
                               .rtype = d};
    if (nb) return dfc_coll_inter_direct(call, c, &a);
    return dfc_coll_inter_bcast(call->func, c, buffer, (uint64_t)count, d, root);
}

int dfc_api_inter_allreduce(const dfc_coll_call_t *call, dfc_comm_t *c, const void *sendbuf,
                            void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op)
{
    int rc;
    dfc_dtype_t *d = NULL;
    dfc_op_t *o = NULL;
    const char *f = call->func;
    if ((rc = dfc_api_inter_mode_check(call)) || (rc = dfc_api_check_count(f, "count", count)) ||
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
    dfc_coll_inter_args_t a = {.kind = DFC_COLL_ALLREDUCE,
                               .sbuf = sendbuf,
                               .rbuf = recvbuf,
                               .scount = (uint64_t)count,
                               .stype = d,
                               .op = o};
    if (call->mode != DFC_MODE_BLOCKING) return dfc_coll_inter_direct(call, c, &a);
    return dfc_coll_inter_allreduce(f, c, sendbuf, recvbuf, (uint64_t)count, d, o);
}

int dfc_api_inter_allgather(const dfc_coll_call_t *call, dfc_comm_t *c, const void *sendbuf,
                            int sendcount, DFC_Datatype sendtype, void *recvbuf, int recvcount,
                            DFC_Datatype recvtype)
{
    int rc;
    dfc_dtype_t *sd = NULL, *rd = NULL;
    const char *f = call->func;
    if ((rc = dfc_api_inter_mode_check(call))) return rc;
    if (sendbuf == DFC_IN_PLACE || recvbuf == DFC_IN_PLACE)
        return dfc_err(DFC_ERR_BUFFER, f,
                       "invalid argument %s: DFC_IN_PLACE is not allowed on an intercommunicator",
                       sendbuf == DFC_IN_PLACE ? "sendbuf" : "recvbuf");
    if ((rc = dfc_coll_check_buf(f, "sendbuf", sendbuf, sendcount, sendtype, 0, &sd)) ||
        (rc = dfc_coll_check_buf(f, "recvbuf", recvbuf, recvcount, recvtype, 0, &rd)))
        return rc;
    dfc_coll_side_t s = {sendbuf, (uint64_t)sendcount, sd, 0};
    dfc_coll_side_t r = {recvbuf, (uint64_t)recvcount, rd, 0};
    dfc_coll_inter_args_t a = {.kind = DFC_COLL_ALLGATHER,
                               .sbuf = sendbuf,
                               .rbuf = recvbuf,
                               .scount = (uint64_t)sendcount,
                               .rcount = (uint64_t)recvcount,
                               .stype = sd,
                               .rtype = rd};
    if (call->mode != DFC_MODE_BLOCKING) return dfc_coll_inter_direct(call, c, &a);
    return dfc_coll_inter_allgather(f, c, &s, &r);
}
