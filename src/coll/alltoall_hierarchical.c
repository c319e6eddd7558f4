/*
 * alltoall_hierarchical.c - two-level alltoall for communicators that span several nodes:
 * blocks are first exchanged inside each node, gathered by the local index they go to, then
 * carried across nodes along the rails, one package per pair of nodes.
 *
 * Layout (hier_layout.c): N nodes of L >= 2 ranks each; rank (n, l) is local index l of
 * node n; blocks of b bytes. Alltoall only: alltoallv's counts would have to travel with
 * the blocks. The input is SEND, or in place a TMP copy of RECV (RECV is written while the
 * input is still read). Phase 1, inside the node: rank (n, l) sends local index j != l of
 * its node every block bound for local index j of any node: for node n it is j's own block
 * (received into RECV), for node m != n it goes into j's package for m, TMP X at
 * (m L + l) b. It copies its own blocks for local index l likewise (its own block into
 * RECV). Now X[m] holds the L blocks that node n's ranks send to (m, l), in local order.
 * Phase 2, along the rail: rank (n, l) sends X[m] to (m, l) and receives X[n] of node m's
 * (m, l) into RECV, both cut into runs of local indices whose communicator ranks are
 * consecutive (one message for a node of consecutive ranks, as srun places them). Receives
 * are posted before sends; a fence closes each phase; a call of empty blocks moves nothing.
 *
 * Cost (B = N L b bytes per rank): inside the node (L-1) N messages of b, (L-1)/L B beta_n in
 * all; across nodes N-1 messages of L b, (N-1)/N B beta_x (up to (N-1) L messages when no
 * two ranks of a node are consecutive). The pairwise alltoall sends (N-1) L messages of b
 * across nodes and (L-1) b inside: the hierarchy trades L times fewer messages across nodes
 * (each L times larger) for moving most of the data twice. Not chosen by default on the host
 * (alltoall stays pairwise: DFC_ALLTOALL_ALGORITHM=hierarchical forces it); the GPU daemon
 * takes it over rails (gpu.c), whose daemons connect only node mates and the ranks of one
 * local index.
 */
#include "coll/dfc_coll.h"

int dfc_coll_alltoall_hierarchical_usable(const dfc_coll_args_t *a)
{
    return a->kind == DFC_COLL_ALLTOALL && dfc_coll_hier_nodes(a) > 0;
}

typedef struct a2a_ctx {
    dfc_sched_t *s;
    const dfc_hier_layout_t *h;
    int in;       /* the input's buffer: SEND, or TMP in place */
    uint64_t in0; /* its offset */
    uint64_t x;   /* TMP offset of the packages, N L blocks */
    uint64_t b;
} a2a_ctx_t;

/* Phase 1 with local index j of my node n: the blocks I send to (m, j) for every node m go
 * to j (send) or, from j, the blocks j sends to (m, l) arrive (receive). */
static int mates_xfer(const a2a_ctx_t *c, int n, int l, int j, int send)
{
    int N = c->h->nnodes, L = c->h->nlocal, peer = c->h->ranks[n * L + j];
    for (int m = 0; m < N; m++) {
        uint64_t b = c->b;
        if (send) {
            DFC_TRY(dfc_sched_send(c->s, peer, c->in, c->in0 + c->h->ranks[m * L + j] * b, b));
        } else if (m == n) { /* j's block for me: its final place */
            DFC_TRY(dfc_sched_recv(c->s, peer, DFC_BUF_RECV, (uint64_t)peer * b, b));
        } else {
            DFC_TRY(dfc_sched_recv(c->s, peer, DFC_BUF_TMP, c->x + (uint64_t)(m * L + j) * b, b));
        }
    }
    return DFC_SUCCESS;
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int N = h->nnodes, L = h->nlocal, n = h->node[a->rank], l = h->local[a->rank];
    uint64_t b = a->rbytes, total = (uint64_t)a->size * b;
    a2a_ctx_t c = {s, h, DFC_BUF_SEND, 0, dfc_sched_tmp(s, total), b};
    if (a->in_place) {
        c.in = DFC_BUF_TMP;
        c.in0 = dfc_sched_tmp(s, total);
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_RECV, 0, DFC_BUF_TMP, c.in0, total));
    }
    for (int j = 0; j < L; j++) /* phase 1: receives first */
        if (j != l) DFC_TRY(mates_xfer(&c, n, l, j, 0));
    for (int i = 1; i < L; i++) DFC_TRY(mates_xfer(&c, n, l, dfc_coll_mod(l + i, L), 1));
    for (int m = 0; m < N; m++) { /* my own blocks for local index l */
        uint64_t src = c.in0 + (uint64_t)h->ranks[m * L + l] * b;
        if (m == n && !a->in_place)
            DFC_TRY(dfc_sched_copy(s, c.in, src, DFC_BUF_RECV, (uint64_t)a->rank * b, b));
        else if (m != n)
            DFC_TRY(dfc_sched_copy(s, c.in, src, DFC_BUF_TMP, c.x + (uint64_t)(m * L + l) * b, b));
    }
    DFC_TRY(dfc_sched_fence(s));
    for (int i = 1; i < N; i++) { /* phase 2: node m's package for me, in place */
        int m = dfc_coll_mod(n - i, N);
        DFC_TRY(dfc_coll_hier_node_xfer(s, h, m, h->ranks[m * L + l], 0, DFC_BUF_RECV, 0, 1, b));
    }
    for (int i = 1; i < N; i++) { /* my package X[m] for (m, l) */
        int m = dfc_coll_mod(n + i, N);
        DFC_TRY(dfc_coll_hier_node_xfer(s, h, n, h->ranks[m * L + l], 1, DFC_BUF_TMP,
                                        c.x + (uint64_t)m * L * b, 0, b));
    }
    return dfc_sched_fence(s);
}

int dfc_coll_alltoall_hierarchical_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    if (a->kind != DFC_COLL_ALLTOALL)
        return DFC_ERR(DFC_ERR_INTERN, "alltoall_hierarchical cannot build collective kind %d",
                       (int)a->kind);
    return dfc_coll_hier_build(a, s, "alltoall", a->rbytes != 0, build);
}
