/*
 * inter_common.c - what the intercommunicator collectives (inter_*.c, MPI-4.1 6.2.2) share:
 * the leaders' exchange across the groups and the local phases' blocking calls.
 *
 * Every intercommunicator collective here runs in three phases: a collective within the
 * local group on the intercommunicator's private local communicator (c->local), one
 * exchange between the two groups' rank 0s over the intercommunicator's collective context
 * (point-to-point ranks there name the remote group), and a collective within the local
 * group again. Only the blocking forms exist.
 */
#include "coll/dfc_coll.h"

int dfc_coll_inter_xfer(dfc_comm_t *c, int tag, const dfc_coll_side_t *s, const dfc_coll_side_t *r)
{
    dfc_req_t sr = {0}, rr = {0};
    void *suse = NULL, *ruse = NULL;
    int rc = DFC_SUCCESS;
    dfc_req_init_internal(&sr, c);
    dfc_req_init_internal(&rr, c);
    if (r && !(rc = dfc_req_stage_type(&rr, (void *)r->buf, r->count, r->dt, 1, 1, 1, &ruse)) &&
        !(rc = dfc_req_stage_in(&rr)))
        rc = dfc_p2p_irecv(c, 1, ruse, r->count * r->dt->size, r->peer, tag, &rr);
    if (!rc && s &&
        !(rc = dfc_req_stage_type(&sr, (void *)s->buf, s->count, s->dt, 1, 0, 0, &suse)) &&
        !(rc = dfc_req_stage_in(&sr)))
        rc = dfc_p2p_isend(c, 1, suse, s->count * s->dt->size, s->peer, tag, 0, &sr);
    if (!rc && r) rc = dfc_progress_until(&rr.complete);
    if (!rc && s) rc = dfc_progress_until(&sr.complete);
    if (!rc) rc = sr.status.DFC_ERROR ? sr.status.DFC_ERROR : rr.status.DFC_ERROR;
    dfc_req_unstage(&sr);
    dfc_req_unstage(&rr);
    return rc;
}

int dfc_coll_inter_local(const char *func, dfc_comm_t *c, dfc_coll_args_t *a, const void *sendbuf,
                         void *recvbuf, const dfc_dtype_t *dt, const dfc_op_t *op)
{
    dfc_coll_call_t call = {func, DFC_MODE_BLOCKING, DFC_INFO_NULL, NULL};
    return dfc_coll_run(&call, c->local, a, sendbuf, recvbuf, dt, op);
}
