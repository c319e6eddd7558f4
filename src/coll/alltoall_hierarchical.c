/*
 * alltoall_hierarchical.c - two-level alltoall for communicators that span several nodes:
 * blocks are first handed inside each node to the rank that carries them across, packed by
 * the node they go to, carried along the rails, one package per pair of nodes and rail, and
 * on unequal nodes handed on to the surplus ranks at the end.
 *
 * Layout (hier_layout.c): N nodes of M_n >= L ranks each, the core (n, j) for j < L, the
 * surplus ranks of node n behind their partners (local index k >= L behind (n, k mod L));
 * blocks of b bytes. Core rank (n, j) and its surplus ranks form j's group G(n, j) (the core
 * rank first, then the surplus in rank order); on equal nodes every group is its core rank
 * alone. Alltoall only: alltoallv's counts would have to travel with the blocks. The input
 * is SEND, or in place a TMP copy of RECV (RECV is written while the input is still read).
 * Phase 1, inside node n: every rank sends each node mate q its own block for q, and after
 * it, when q is a core rank (n, j), its blocks for the members of G(m, j) of every other
 * node m. Core rank (n, j) packs what it gets, its own blocks included, into X (TMP): for
 * node m, for member t of G(m, j), the blocks of node n's ranks in local order. Phase 2,
 * along rail j: (n, j) sends package X[m] to (m, j), for each member of G(m, j) in runs of
 * local indices whose communicator ranks are consecutive (one message for a node of
 * consecutive ranks, as srun places them); (m, j) receives its own member's part in place
 * (RECV), its surplus ranks' parts into Z (TMP). Phase 3 (unequal nodes): (m, j) hands
 * each of its surplus ranks its blocks from the other nodes, by the same runs, in place.
 * Receives are posted before sends; a fence closes each phase; a call of empty blocks moves
 * nothing.
 *
 * Cost (B = p b bytes per rank, p ranks): inside the node (M_n - 1) messages of b for the
 * final blocks, plus (M_n - 1) (p - M_n) messages of b into the core, (M_n - 1) / M_n of
 * the data that leaves the node; across nodes (N-1) messages per member of the rail's
 * groups, (N-1)/N B beta_x per core rank (more for a core rank with surplus ranks behind it:
 * it carries theirs); phase 3 (N-1) messages of M_m b per surplus rank. The pairwise
 * alltoall sends (N-1) L messages of b across nodes and (L-1) b inside: the hierarchy trades
 * L times fewer messages across nodes (each L times larger) for moving most of the data
 * twice. Not chosen by default on the host (alltoall stays pairwise:
 * DFC_ALLTOALL_ALGORITHM=hierarchical forces it); the GPU daemon takes it over rails (gpu.c),
 * whose daemons connect only node mates and the ranks of one local index.
 */
#include <stdlib.h>

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
    uint64_t b;
    int **group; /* group[m * L + j]: the members of G(m, j), core rank first (into `member`) */
    int *gsize;  /* their counts */
    int *member; /* every rank once, group by group */
    int *count;  /* M_n, the ranks of node n */
} a2a_ctx_t;

static void ctx_free(a2a_ctx_t *c)
{
    free(c->group);
    free(c->gsize);
    free(c->member);
    free(c->count);
}

/* The groups in two passes over the ranks: their sizes, then their members in rank order. */
static int ctx_groups(a2a_ctx_t *c)
{
    const dfc_hier_layout_t *h = c->h;
    int L = h->nlocal, NL = h->nnodes * L, p = h->size;
    c->group = malloc((size_t)NL * sizeof(int *));
    c->gsize = calloc((size_t)NL, sizeof(int));
    c->member = malloc((size_t)p * sizeof(int));
    c->count = calloc((size_t)h->nnodes, sizeof(int));
    if (!c->group || !c->gsize || !c->member || !c->count)
        return DFC_ERR(DFC_ERR_NO_MEM, "alltoall layout");
    for (int r = 0; r < p; r++) {
        int core = h->partner[r] >= 0 ? h->partner[r] : r;
        c->count[h->node[r]]++;
        c->gsize[h->node[core] * L + h->local[core]]++;
    }
    for (int i = 0, at = 0; i < NL; i++) {
        c->group[i] = c->member + at;
        c->group[i][0] = h->ranks[i];
        at += c->gsize[i];
        c->gsize[i] = 1; /* counted again below */
    }
    for (int r = 0; r < p; r++) {
        int core = h->partner[r];
        if (core >= 0) {
            int i = h->node[core] * L + h->local[core];
            c->group[i][c->gsize[i]++] = r;
        }
    }
    return DFC_SUCCESS;
}

/* Offset in X of the part of package m (the blocks of node n's ranks for G(m, j)) that goes
 * to member t; X holds a (unused) part for m = n too, which keeps the arithmetic plain. */
static uint64_t x_part(const a2a_ctx_t *c, int n, int j, int m, int t)
{
    int L = c->h->nlocal;
    uint64_t blocks = 0;
    for (int i = 0; i < m; i++) blocks += (uint64_t)c->gsize[i * L + j];
    return (blocks + (uint64_t)t) * (uint64_t)c->count[n] * c->b;
}

/* Offset in Z of what member t >= 1 of my group G(n, j) gets from node m != n: for each
 * surplus member, the blocks of every other node, one node after another in local order. */
static uint64_t z_part(const a2a_ctx_t *c, int n, int t, int m)
{
    uint64_t blocks = (uint64_t)(t - 1) * (uint64_t)(c->h->size - c->count[n]);
    for (int i = 0; i < m; i++) blocks += i == n ? 0 : (uint64_t)c->count[i];
    return blocks * c->b;
}

/* Phase 1 between me and node mate q: my block for q, then, when q is core rank (n, j), my
 * blocks for the groups G(m, j) of the other nodes m (send); or q's block for me, then, when
 * I am (n, j), q's blocks for those groups into X at x (receive). Both sides walk the same
 * order, so the pair's transfers match. */
static int mate_xfer(const a2a_ctx_t *c, int me, int q, int send, uint64_t x)
{
    const dfc_hier_layout_t *h = c->h;
    int n = h->node[me], L = h->nlocal, core = send ? q : me, j = h->local[core];
    uint64_t b = c->b;
    if (send) DFC_TRY(dfc_sched_send(c->s, q, c->in, c->in0 + (uint64_t)q * b, b));
    else DFC_TRY(dfc_sched_recv(c->s, q, DFC_BUF_RECV, (uint64_t)q * b, b));
    if (j >= L) return DFC_SUCCESS; /* a surplus rank carries nothing across */
    for (int m = 0; m < h->nnodes; m++)
        for (int t = 0; m != n && t < c->gsize[m * L + j]; t++) {
            int d = c->group[m * L + j][t];
            if (send) DFC_TRY(dfc_sched_send(c->s, q, c->in, c->in0 + (uint64_t)d * b, b));
            else
                DFC_TRY(dfc_sched_recv(c->s, q, DFC_BUF_TMP,
                                       x + x_part(c, n, j, m, t) + (uint64_t)h->local[q] * b, b));
        }
    return DFC_SUCCESS;
}

/* Phase 1 at me: receives from every node mate, then sends to each, then my own blocks
 * into place (RECV, and X when I am a core rank). */
static int phase_node(const a2a_ctx_t *c, int me, const int *mates, int M, uint64_t x)
{
    const dfc_hier_layout_t *h = c->h;
    int n = h->node[me], L = h->nlocal, l = h->local[me];
    uint64_t b = c->b;
    for (int k = 0; k < M; k++)
        if (k != l) DFC_TRY(mate_xfer(c, me, mates[k], 0, x));
    for (int i = 1; i < M; i++) DFC_TRY(mate_xfer(c, me, mates[(l + i) % M], 1, x));
    if (c->in != DFC_BUF_TMP)
        DFC_TRY(dfc_sched_copy(c->s, c->in, c->in0 + (uint64_t)me * b, DFC_BUF_RECV,
                               (uint64_t)me * b, b));
    for (int m = 0; l < L && m < h->nnodes; m++)
        for (int t = 0; m != n && t < c->gsize[m * L + l]; t++)
            DFC_TRY(dfc_sched_copy(c->s, c->in, c->in0 + (uint64_t)c->group[m * L + l][t] * b,
                                   DFC_BUF_TMP, x + x_part(c, n, l, m, t) + (uint64_t)l * b, b));
    return dfc_sched_fence(c->s);
}

/* Phases 2 and 3 at core rank (n, l): the packages of the other nodes' rail l for my group
 * (mine in place, my surplus ranks' into Z at z), mine for theirs, then my surplus ranks'
 * parts on to them. */
static int phase_rail(const a2a_ctx_t *c, int me, uint64_t x, uint64_t z)
{
    const dfc_hier_layout_t *h = c->h;
    int N = h->nnodes, L = h->nlocal, n = h->node[me], l = h->local[me], g = c->gsize[n * L + l];
    uint64_t b = c->b;
    for (int i = 1; i < N; i++) {
        int m = dfc_coll_mod(n - i, N), peer = h->ranks[m * L + l];
        for (int t = 0; t < g; t++)
            DFC_TRY(t ? dfc_coll_hier_node_xfer(c->s, h, m, peer, 0, DFC_BUF_TMP,
                                                z + z_part(c, n, t, m), 0, b)
                      : dfc_coll_hier_node_xfer(c->s, h, m, peer, 0, DFC_BUF_RECV, 0, 1, b));
    }
    for (int i = 1; i < N; i++) {
        int m = dfc_coll_mod(n + i, N), peer = h->ranks[m * L + l];
        for (int t = 0; t < c->gsize[m * L + l]; t++)
            DFC_TRY(dfc_coll_hier_node_xfer(c->s, h, n, peer, 1, DFC_BUF_TMP,
                                            x + x_part(c, n, l, m, t), 0, b));
    }
    DFC_TRY(dfc_sched_fence(c->s));
    for (int t = 1; t < g; t++) /* phase 3 */
        for (int i = 1; i < N; i++) {
            int m = dfc_coll_mod(n - i, N);
            DFC_TRY(dfc_coll_hier_node_xfer(c->s, h, m, c->group[n * L + l][t], 1, DFC_BUF_TMP,
                                            z + z_part(c, n, t, m), 0, b));
        }
    return g > 1 ? dfc_sched_fence(c->s) : DFC_SUCCESS;
}

/* Phase 3 at a surplus rank: the other nodes' blocks from my partner, in place. */
static int phase_surplus(const a2a_ctx_t *c, int me)
{
    const dfc_hier_layout_t *h = c->h;
    int N = h->nnodes, n = h->node[me];
    for (int i = 1; i < N; i++)
        DFC_TRY(dfc_coll_hier_node_xfer(c->s, h, dfc_coll_mod(n - i, N), h->partner[me], 0,
                                        DFC_BUF_RECV, 0, 1, c->b));
    return dfc_sched_fence(c->s);
}

static int build_steps(a2a_ctx_t *c, const dfc_coll_args_t *a)
{
    const dfc_hier_layout_t *h = c->h;
    DFC_TRY(ctx_groups(c));
    int me = a->rank, n = h->node[me], L = h->nlocal, l = h->local[me], M = c->count[n];
    uint64_t total = (uint64_t)a->size * c->b;
    int *mates = malloc((size_t)M * sizeof(int)); /* my node's ranks in local order */
    if (!mates) return DFC_ERR(DFC_ERR_NO_MEM, "alltoall layout");
    for (int r = 0, k = 0; r < a->size; r++)
        if (h->node[r] == n) mates[k++] = r;
    if (a->in_place) {
        c->in = DFC_BUF_TMP;
        c->in0 = dfc_sched_tmp(c->s, total);
    }
    int rc = a->in_place ? dfc_sched_copy(c->s, DFC_BUF_RECV, 0, DFC_BUF_TMP, c->in0, total) : 0;
    uint64_t x = 0, z = 0;
    if (!rc && l < L) {
        x = dfc_sched_tmp(c->s, x_part(c, n, l, h->nnodes, 0));
        int g = c->gsize[n * L + l];
        if (g > 1) z = dfc_sched_tmp(c->s, (uint64_t)(g - 1) * (total - (uint64_t)M * c->b));
    }
    if (!rc) rc = phase_node(c, me, mates, M, x);
    free(mates);
    if (rc) return rc;
    return l < L ? phase_rail(c, me, x, z) : phase_surplus(c, me);
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    a2a_ctx_t c = {.s = s, .h = h, .in = DFC_BUF_SEND, .b = a->rbytes};
    int rc = build_steps(&c, a);
    ctx_free(&c);
    return rc;
}

int dfc_coll_alltoall_hierarchical_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    if (a->kind != DFC_COLL_ALLTOALL)
        return DFC_ERR(DFC_ERR_INTERN, "alltoall_hierarchical cannot build collective kind %d",
                       (int)a->kind);
    return dfc_coll_hier_build(a, s, "alltoall", a->rbytes != 0, build);
}
