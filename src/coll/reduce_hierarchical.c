/*
 * reduce_hierarchical.c - two-level reduce for communicators that span several nodes: a ring
 * reduce-scatter inside each node, a binomial reduce across nodes among the ranks of equal
 * local index towards the root's node, a gather of the chunks to the root inside that node.
 *
 * Layout as the hierarchical allreduce's (hier_layout.c): N nodes of L >= 2 ranks each; the
 * root is local index lr of node nr. The vector is cut into L chunks. Every rank works in an
 * accumulator: RECV on the root (its input copied there unless IN_PLACE), a TMP copy of the
 * input elsewhere (MPI gives non-roots no receive buffer). Phase 1, steps j = 0 .. L-2 among
 * the ranks of the node: send chunk (l - j) mod L, receive chunk (l - j - 1) mod L and reduce
 * it in; then local rank l holds chunk o = (l + 1) mod L summed over its node. Phase 2: the N
 * ranks of local index l reduce chunk o along a binomial tree rooted at node nr (virtual rank
 * (n - nr) mod N; children in increasing mask order, as reduce_binomial.c), or in the GPU
 * daemon on a ring of rails (a->gpu == DFC_COLL_GPU_RING, whose daemons link neighbouring
 * nodes only) along a pipelined chain, each virtual rank v + 1 to v (reduce_chain.c). Phase
 * 3, on node nr only: every local index l != lr sends its chunk o to the root, which
 * receives each into RECV at its place. A received piece is reduced in through TMP, one
 * chunk large (the chain: each segment at its own place in it); a fence closes every step.
 * The reduction order follows the ring and the tree: commutative ops only. On unequal nodes
 * (hier_layout.c) the surplus ranks' vectors are first reduced into their partners'
 * accumulators (the fold in); a surplus root folds its input in so, and in phase 3 every
 * local index of node nr sends it its chunk.
 *
 * Cost (m bytes): intra-node (L-1) alpha_n + (L-1)/L m (beta_n + gamma), across nodes
 * ceil(log2 N) (alpha_x + (m/L)(beta_x + gamma)) per rank with all L ranks of a node carrying
 * a chunk at once (the chain: (N - 2 + S) (alpha_x + m/(L S) (beta_x + gamma)) in S
 * segments), then alpha_n + (L-1)/L m beta_n into the root (a surplus root: m, after its
 * own m went to its partner in the fold in). A flat binomial reduce sends the
 * whole m across nodes at each of its levels through one rank of a node.
 * Not chosen by default on the host (reduce stays binomial: DFC_REDUCE_ALGORITHM=hierarchical
 * forces it); the GPU daemon takes it over rails and rings of rails (gpu.c), where it is the
 * reduce whose steps join only node mates and ranks of one local index.
 */
#include "coll/dfc_coll.h"

int dfc_coll_reduce_hierarchical_usable(const dfc_coll_args_t *a)
{
    return a->commutative && dfc_coll_hier_nodes(a) > 0;
}

typedef struct red_ctx {
    dfc_sched_t *s;
    const dfc_coll_args_t *a;
    int acc;          /* the accumulator's buffer (RECV or TMP) and offset */
    uint64_t acc_off; /* bytes */
    uint64_t scratch; /* TMP offset of one chunk, for receive-reduces */
    int L;            /* chunks */
} red_ctx_t;

static uint64_t chunk_start(const red_ctx_t *c, int i)
{
    return dfc_coll_chunk_start(c->a->count, c->L, i);
}

/* Send chunk sc to `to` (if it has items), receive chunk rc from `from` and reduce it in. */
static int send_chunk(const red_ctx_t *c, int to, int sc)
{
    uint64_t e = c->a->elem, s0 = chunk_start(c, sc), sn = chunk_start(c, sc + 1) - s0;
    return sn ? dfc_sched_send(c->s, to, c->acc, c->acc_off + s0 * e, sn * e) : DFC_SUCCESS;
}

static int recv_reduce_chunk(const red_ctx_t *c, int from, int rc)
{
    uint64_t e = c->a->elem, r0 = chunk_start(c, rc), rn = chunk_start(c, rc + 1) - r0;
    if (!rn) return DFC_SUCCESS;
    return dfc_sched_recv_reduce(c->s, from, c->acc, c->acc_off + r0 * e, rn, rn * e, c->scratch,
                                 DFC_REDUCE_IN_FIRST);
}

/* Phase 3 at the root: each local index k of node nr but its own (lr; beyond the core for a
 * surplus root) sends chunk (k + 1) mod L, received into RECV at its place. */
static int root_gathers(const red_ctx_t *c, const dfc_hier_layout_t *h, int nr, int lr)
{
    for (int k = 0; k < c->L; k++) {
        int q = dfc_coll_mod(k + 1, c->L);
        uint64_t e = c->a->elem, r0 = chunk_start(c, q), rn = chunk_start(c, q + 1) - r0;
        if (k != lr && rn)
            DFC_TRY(dfc_sched_recv(c->s, h->ranks[nr * c->L + k], DFC_BUF_RECV, r0 * e, rn * e));
    }
    return dfc_sched_fence(c->s);
}

static int build(const dfc_coll_args_t *a, const dfc_hier_layout_t *h, dfc_sched_t *s)
{
    int L = h->nlocal, N = h->nnodes, n = h->node[a->rank], l = h->local[a->rank];
    int nr = h->node[a->root], lr = h->local[a->root], is_root = a->rank == a->root;
    uint64_t bytes = a->count * a->elem;
    red_ctx_t c = {s, a, is_root ? DFC_BUF_RECV : DFC_BUF_TMP, 0, 0, L};
    if (h->partner[a->rank] >= 0) { /* surplus: the input to the partner (its fence first) */
        DFC_TRY(dfc_coll_hier_fold_in(s, a, h, 0, 0, 0));
        return is_root ? root_gathers(&c, h, nr, lr) : DFC_SUCCESS;
    }
    if (!is_root) c.acc_off = dfc_sched_tmp(s, bytes);
    c.scratch = dfc_sched_tmp(s, dfc_coll_chunk_start(a->count, L, 1) * a->elem);
    if (!(is_root && a->in_place))
        DFC_TRY(dfc_sched_copy(s, dfc_coll_input_buf(a), 0, c.acc, c.acc_off, bytes));
    DFC_TRY(dfc_coll_hier_fold_in(s, a, h, c.acc, c.acc_off, c.scratch));
    int right = h->ranks[n * L + dfc_coll_mod(l + 1, L)],
        left = h->ranks[n * L + dfc_coll_mod(l - 1, L)];
    for (int j = 0; j < L - 1; j++) { /* phase 1: the node's ring reduce-scatter */
        DFC_TRY(send_chunk(&c, right, dfc_coll_mod(l - j, L)));
        DFC_TRY(recv_reduce_chunk(&c, left, dfc_coll_mod(l - j - 1, L)));
        DFC_TRY(dfc_sched_fence(s));
    }
    int o = dfc_coll_mod(l + 1, L), v = dfc_coll_mod(n - nr, N);
    if (a->gpu == DFC_COLL_GPU_RING) { /* phase 2: a chain round the ring of nodes to nr */
        uint64_t o0 = chunk_start(&c, o);
        dfc_coll_chain_t ch = {.v = v,
                               .n = N,
                               .from = h->ranks[dfc_coll_mod(n + 1, N) * L + l],
                               .to = h->ranks[dfc_coll_mod(n - 1, N) * L + l],
                               .acc = c.acc,
                               .acc_off = c.acc_off + o0 * a->elem,
                               .scratch = c.scratch,
                               .count = chunk_start(&c, o + 1) - o0,
                               .elem = a->elem};
        DFC_TRY(dfc_coll_reduce_chain_steps(s, &ch));
        if (v != 0) return DFC_SUCCESS; /* a node other than nr: done */
    }
    for (int mask = 1; mask < N && a->gpu != DFC_COLL_GPU_RING; mask <<= 1) { /* or binomial */
        if (v & mask) {
            DFC_TRY(send_chunk(&c, h->ranks[dfc_coll_mod(v - mask + nr, N) * L + l], o));
            DFC_TRY(dfc_sched_fence(s));
            return DFC_SUCCESS; /* a node other than nr: done */
        }
        if (v + mask < N) {
            DFC_TRY(recv_reduce_chunk(&c, h->ranks[dfc_coll_mod(v + mask + nr, N) * L + l], o));
            DFC_TRY(dfc_sched_fence(s));
        }
    }
    if (!is_root) { /* phase 3 on node nr: my chunk to the root */
        DFC_TRY(send_chunk(&c, a->root, o));
        return dfc_sched_fence(s);
    }
    return root_gathers(&c, h, nr, lr);
}

int dfc_coll_reduce_hierarchical_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    return dfc_coll_hier_build(a, s, "reduce", a->count != 0, build);
}
