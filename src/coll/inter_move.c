/*
 * inter_move.c - Gather(v), Scatter(v), Allgatherv and Alltoall(v) on an intercommunicator
 * (MPI-4.1 6.5-6.8 with 6.2.2): every block goes from the process that has it straight to the
 * process of the other group that wants it; no process of a group passes on another's data.
 *
 * Algorithm: linear: each process posts a receive for every block it gets and a send for
 * every block it gives (the api layer lists them: dfc_coll_side_t, one per remote process or
 * one to or from the root), all at once, then waits for all of them; posting everything
 * first is what keeps two groups of different sizes from waiting on each other. Blocks of a
 * non-dense type move packed, as point-to-point's do.
 * Cost, r remote processes, n bytes a block: the root of a gather or scatter r * (alpha +
 * n*beta); an alltoall or allgatherv r * (alpha + n*beta) per process, in both directions.
 * Chosen for every intercommunicator call of these kinds (only the blocking forms exist).
 */
#include <stdlib.h>

#include "coll/dfc_coll.h"

#define TAG_MOVE 4

static int post(dfc_comm_t *c, int tag, const dfc_coll_side_t *x, int is_send, dfc_req_t *q)
{
    void *use = NULL;
    int rc;
    dfc_req_init_internal(q, c);
    if ((rc = dfc_req_stage_type(q, (void *)x->buf, x->count, x->dt, 1, !is_send, !is_send,
                                 &use)) ||
        (rc = dfc_req_stage_in(q)))
        return rc;
    uint64_t bytes = x->count * x->dt->size;
    return is_send ? dfc_p2p_isend(c, 1, use, bytes, x->peer, tag, 0, q)
                   : dfc_p2p_irecv(c, 1, use, bytes, x->peer, tag, q);
}

int dfc_coll_inter_move(const char *func, dfc_comm_t *c, const dfc_coll_side_t *s, int ns,
                        const dfc_coll_side_t *r, int nr)
{
    int n = ns + nr, posted = 0, rc = DFC_SUCCESS;
    dfc_req_t *q = calloc((size_t)n + 1, sizeof *q);
    if (!q) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for %d transfers", n);
    for (int i = 0; i < n && !rc; i++, posted++)
        rc = i < nr ? post(c, TAG_MOVE, &r[i], 0, &q[i]) : post(c, TAG_MOVE, &s[i - nr], 1, &q[i]);
    if (rc) {
        /* The posted requests stay in the matching engine, which may still write into them:
         * they are left allocated rather than freed under it. */
        return rc;
    }
    for (int i = 0; i < n; i++)
        if ((rc = dfc_progress_until(&q[i].complete))) return rc; /* as above: left allocated */
    for (int i = 0; i < n && !rc; i++) rc = q[i].status.DFC_ERROR;
    for (int i = 0; i < posted; i++) dfc_req_unstage(&q[i]);
    free(q);
    return rc;
}
