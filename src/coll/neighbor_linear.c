/*
 * neighbor_linear.c - the neighborhood collectives (Neighbor_allgather(v),
 * Neighbor_alltoall(v/w)) as one round of direct exchanges with the neighbors.
 *
 * The api layer lists this rank's receives and sends (peer, byte offset, bytes) from the
 * communicator's topology, each list in the order its transfers must be posted; this
 * generator turns them into one round: every receive, then every send, then one fence.
 * Transfers with DFC_PROC_NULL or of 0 bytes are left out (a matching pair has the same
 * size on both sides, so both sides leave it out). Transfers to this rank itself (a
 * periodic dimension of size 1, a self-loop in a graph) become local copies, the k-th send
 * to self paired with the k-th receive from self, which is how the messages would match.
 * Two ranks' transfers match in posting order (dfc_sched.h), so the lists' order is the
 * matching rule; everything is posted before the one fence, so no pair can wait on
 * another: deadlock-free for any graph.
 * Cost: alpha + max(in, out) * m * beta for m bytes per neighbor with in/out neighbors
 * (all transfers in flight at once). The only neighborhood algorithm, so always chosen.
 */
#include "coll/dfc_coll.h"

static int is_self(const dfc_coll_args_t *a, const dfc_coll_xfer_t *x)
{
    return x->peer == a->rank;
}

/* The k-th receive from self (its index in a->recvs), or -1. */
static int kth_self_recv(const dfc_coll_args_t *a, int k)
{
    for (int i = 0; i < a->nrecvs; i++)
        if (is_self(a, &a->recvs[i]) && k-- == 0) return i;
    return -1;
}

int dfc_coll_neighbor_linear_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int nself = 0;
    s->algorithm = "linear";
    /* Local copies first: they depend on nothing. */
    for (int i = 0; i < a->nsends; i++) {
        const dfc_coll_xfer_t *x = &a->sends[i];
        if (!is_self(a, x)) continue;
        int j = kth_self_recv(a, nself++);
        if (j < 0) continue; /* no receive posted for it: as an unmatched send, dropped */
        if (x->bytes > a->recvs[j].bytes) /* what the transport reports for a message */
            return DFC_ERR(DFC_ERR_TRUNCATE,
                           "message truncated: this process sends itself "
                           "%llu bytes into a block of %llu",
                           (unsigned long long)x->bytes, (unsigned long long)a->recvs[j].bytes);
        if (x->bytes > 0)
            DFC_TRY(
                dfc_sched_copy(s, DFC_BUF_SEND, x->off, DFC_BUF_RECV, a->recvs[j].off, x->bytes));
    }
    int posted = 0;
    for (int i = 0; i < a->nrecvs; i++) {
        const dfc_coll_xfer_t *x = &a->recvs[i];
        if (x->peer < 0 || is_self(a, x) || x->bytes == 0) continue;
        DFC_TRY(dfc_sched_recv(s, x->peer, DFC_BUF_RECV, x->off, x->bytes));
        posted++;
    }
    for (int i = 0; i < a->nsends; i++) {
        const dfc_coll_xfer_t *x = &a->sends[i];
        if (x->peer < 0 || is_self(a, x) || x->bytes == 0) continue;
        DFC_TRY(dfc_sched_send(s, x->peer, DFC_BUF_SEND, x->off, x->bytes));
        posted++;
    }
    if (posted > 0) DFC_TRY(dfc_sched_fence(s));
    return DFC_SUCCESS;
}
