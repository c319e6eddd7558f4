/*
 * graph - graph and distributed-graph topologies on an irregular graph with multi-edges and
 * self-loops: Graph_create and its queries (Graphdims_get, Graph_get, Graph_neighbors(_count),
 * Graph_map, Topo_test); Dist_graph_create_adjacent (weighted) and Dist_graph_create (every
 * rank naming another rank's edges) with Dist_graph_neighbors(_count); and on them
 * Neighbor_alltoall, Neighbor_allgatherv (uneven counts, gaps kept poisoned),
 * Neighbor_alltoallv and Neighbor_alltoallw, blocking and nonblocking, checked element by
 * element. The reference pairs the k-th message from q to r with r's k-th receive from q,
 * the order MPI's matching gives.
 */
#include "../dfctest.h"

#define MAXN 64
#define MAXDEG 8
#define POISON (-555)

static int rank, size;
static int outl[MAXN][MAXDEG], nout[MAXN]; /* the dist graph's out-lists, every rank's */

/* Rank r's out-neighbors: r+1, r+2 (even r), itself (r % 3 == 0), r+1 again (r % 4 == 1). */
static void build_out(void)
{
    for (int r = 0; r < size; r++) {
        int *o = outl[r], n = 0;
        o[n++] = (r + 1) % size;
        if (r % 2 == 0) o[n++] = (r + 2) % size;
        if (r % 3 == 0) o[n++] = r;
        if (r % 4 == 1) o[n++] = (r + 1) % size;
        nout[r] = n;
    }
}

/* In-list of r from the out-lists: sources in descending rank order, multiplicity kept. */
static int build_in(int r, int *in)
{
    int n = 0;
    for (int q = size - 1; q >= 0; q--)
        for (int j = 0; j < nout[q]; j++)
            if (outl[q][j] == r) in[n++] = q;
    return n;
}

/* The index in q's send list of the message that my i-th receive (from in[i] = q) gets. */
static int sender_block(const int *in, int i, int (*lists)[MAXDEG], const int *nlist)
{
    int q = in[i], k = 0;
    for (int m = 0; m < i; m++) k += in[m] == q;
    for (int j = 0; j < nlist[q]; j++)
        if (lists[q][j] == rank && k-- == 0) return j;
    return -1;
}

static int cnt_of(int q, int j) { return 1 + (q + j) % 3; }
static int v_of(int q, int j, int i, int it) { return ((it * 64 + q) * 16 + j) * 8 + i; }

/* Neighbor_alltoallv (and w) on comm with in-list `in` (senders' lists are `lists`). */
static void check_alltoallv(DFC_Comm comm, const int *in, int nin, int (*lists)[MAXDEG],
                            const int *nlist, int it, int use_w, int nonblocking)
{
    int sb[MAXDEG * 4], rb[MAXDEG * 6], sc[MAXDEG], sd[MAXDEG], rc[MAXDEG], rd[MAXDEG];
    DFC_Aint sdw[MAXDEG], rdw[MAXDEG];
    DFC_Datatype st[MAXDEG], rt[MAXDEG], ctype;
    DFCT_OK(DFC_Type_contiguous(1, DFC_INT, &ctype));
    DFCT_OK(DFC_Type_commit(&ctype));
    int off = 0;
    for (int j = 0; j < nlist[rank]; j++) {
        sc[j] = cnt_of(rank, j);
        sd[j] = off;
        sdw[j] = (DFC_Aint)off * (DFC_Aint)sizeof(int);
        st[j] = DFC_INT;
        for (int i = 0; i < sc[j]; i++) sb[off + i] = v_of(rank, j, i, it);
        off += sc[j];
    }
    off = 1;
    for (int i = 0; i < nin; i++) {
        int j = sender_block(in, i, lists, nlist);
        rc[i] = j < 0 ? 0 : cnt_of(in[i], j);
        rd[i] = off;
        rdw[i] = (DFC_Aint)off * (DFC_Aint)sizeof(int);
        rt[i] = i % 2 ? ctype : DFC_INT;
        off += rc[i] + 2; /* a gap of two items after each block */
    }
    for (int i = 0; i < MAXDEG * 6; i++) rb[i] = POISON;
    DFC_Request req = DFC_REQUEST_NULL;
    if (use_w && nonblocking)
        DFCT_OK(DFC_Ineighbor_alltoallw(sb, sc, sdw, st, rb, rc, rdw, rt, comm, &req));
    else if (use_w) DFCT_OK(DFC_Neighbor_alltoallw(sb, sc, sdw, st, rb, rc, rdw, rt, comm));
    else if (nonblocking)
        DFCT_OK(DFC_Ineighbor_alltoallv(sb, sc, sd, DFC_INT, rb, rc, rd, DFC_INT, comm, &req));
    else DFCT_OK(DFC_Neighbor_alltoallv(sb, sc, sd, DFC_INT, rb, rc, rd, DFC_INT, comm));
    if (nonblocking) DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    int expect[MAXDEG * 6];
    for (int i = 0; i < MAXDEG * 6; i++) expect[i] = POISON;
    for (int i = 0; i < nin; i++) {
        int j = sender_block(in, i, lists, nlist);
        for (int k = 0; k < rc[i]; k++) expect[rd[i] + k] = v_of(in[i], j, k, it);
    }
    for (int i = 0; i < off; i++)
        DFCT_CHECK(rb[i] == expect[i], "alltoall%s%s round %d: item %d = %d, expected %d",
                   use_w ? "w" : "v", nonblocking ? " (nonblocking)" : "", it, i, rb[i], expect[i]);
    DFCT_OK(DFC_Type_free(&ctype));
}

/* Neighbor_allgatherv: rank q sends 1 + q % 3 items; blocks land with gaps. */
static void check_allgatherv(DFC_Comm comm, const int *in, int nin, int nonblocking)
{
    int sb[3], rb[MAXDEG * 6], rc[MAXDEG], rd[MAXDEG], off = 2, mine = 1 + rank % 3;
    for (int i = 0; i < mine; i++) sb[i] = rank * 100 + i;
    for (int i = 0; i < nin; i++) {
        rc[i] = 1 + in[i] % 3;
        rd[i] = off;
        off += rc[i] + 1;
    }
    for (int i = 0; i < MAXDEG * 6; i++) rb[i] = POISON;
    if (nonblocking) {
        DFC_Request req;
        DFCT_OK(DFC_Ineighbor_allgatherv(sb, mine, DFC_INT, rb, rc, rd, DFC_INT, comm, &req));
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    } else {
        DFCT_OK(DFC_Neighbor_allgatherv(sb, mine, DFC_INT, rb, rc, rd, DFC_INT, comm));
    }
    int expect[MAXDEG * 6];
    for (int i = 0; i < MAXDEG * 6; i++) expect[i] = POISON;
    for (int i = 0; i < nin; i++)
        for (int k = 0; k < rc[i]; k++) expect[rd[i] + k] = in[i] * 100 + k;
    for (int i = 0; i < MAXDEG * 6; i++)
        DFCT_CHECK(rb[i] == expect[i], "allgatherv%s: item %d = %d, expected %d",
                   nonblocking ? " (nb)" : "", i, rb[i], expect[i]);
}

static void dist_adjacent(void)
{
    int in[MAXN * MAXDEG], nin = build_in(rank, in), sw[MAXDEG * MAXN], dw[MAXDEG];
    for (int i = 0; i < nin; i++) sw[i] = in[i] * 1000 + rank;
    for (int j = 0; j < nout[rank]; j++) dw[j] = rank * 1000 + outl[rank][j];
    DFC_Comm g;
    DFCT_OK(DFC_Dist_graph_create_adjacent(DFC_COMM_WORLD, nin, in, sw, nout[rank], outl[rank], dw,
                                           DFC_INFO_NULL, 0, &g));
    int a, b, w, st, gi[MAXN * MAXDEG], gsw[MAXN * MAXDEG], go[MAXDEG], gdw[MAXDEG];
    DFCT_OK(DFC_Topo_test(g, &st));
    DFCT_OK(DFC_Dist_graph_neighbors_count(g, &a, &b, &w));
    DFCT_CHECK(st == DFC_DIST_GRAPH && a == nin && b == nout[rank] && w == 1,
               "counts %d %d %d topo %d", a, b, w, st);
    DFCT_OK(DFC_Dist_graph_neighbors(g, MAXN * MAXDEG, gi, gsw, MAXDEG, go, gdw));
    for (int i = 0; i < nin; i++)
        DFCT_CHECK(gi[i] == in[i] && gsw[i] == sw[i], "source %d: %d (w %d)", i, gi[i], gsw[i]);
    for (int j = 0; j < nout[rank]; j++)
        DFCT_CHECK(go[j] == outl[rank][j] && gdw[j] == dw[j], "destination %d: %d (w %d)", j, go[j],
                   gdw[j]);
    if (nin <= MAXDEG) {
        for (int it = 0; it < 2; it++) {
            check_alltoallv(g, in, nin, outl, nout, it, 0, it);
            check_alltoallv(g, in, nin, outl, nout, it + 2, 1, it);
            check_allgatherv(g, in, nin, it);
        }
    }
    DFCT_OK(DFC_Comm_free(&g));
}

/* Dist_graph_create: rank r names the out-edges of rank r+1, with weights. */
static void dist_general(void)
{
    int src = (rank + 1) % size, deg = nout[src], w[MAXDEG];
    for (int j = 0; j < deg; j++) w[j] = src * 1000 + j;
    DFC_Comm g;
    DFCT_OK(
        DFC_Dist_graph_create(DFC_COMM_WORLD, 1, &src, &deg, outl[src], w, DFC_INFO_NULL, 1, &g));
    int a, b, wt, gi[MAXN * MAXDEG], gsw[MAXN * MAXDEG], go[MAXDEG], gdw[MAXDEG];
    DFCT_OK(DFC_Dist_graph_neighbors_count(g, &a, &b, &wt));
    int in[MAXN * MAXDEG], nin = build_in(rank, in);
    DFCT_CHECK(a == nin && b == nout[rank] && wt == 1, "counts %d %d %d, expected %d %d 1", a, b,
               wt, nin, nout[rank]);
    DFCT_OK(DFC_Dist_graph_neighbors(g, MAXN * MAXDEG, gi, gsw, MAXDEG, go, gdw));
    /* Out-edges come from one process, in its order. */
    for (int j = 0; j < b && j < MAXDEG; j++)
        DFCT_CHECK(go[j] == outl[rank][j] && gdw[j] == rank * 1000 + j, "destination %d: %d (w %d)",
                   j, go[j], gdw[j]);
    /* In-edges: the same multiset as the reference, each with its weight. */
    int seen[MAXN] = {0}, want[MAXN] = {0};
    for (int i = 0; i < nin; i++) want[in[i]]++;
    for (int i = 0; i < a && i < MAXN * MAXDEG; i++) {
        if (gi[i] < 0 || gi[i] >= size) {
            DFCT_CHECK(0, "source %d is %d", i, gi[i]);
            continue;
        }
        seen[gi[i]]++;
        DFCT_CHECK(gsw[i] / 1000 == gi[i], "source %d: weight %d not from %d", i, gsw[i], gi[i]);
    }
    for (int q = 0; q < size; q++)
        DFCT_CHECK(seen[q] == want[q], "%d edges from %d, expected %d", seen[q], q, want[q]);
    if (a <= MAXDEG) check_alltoallv(g, gi, a, outl, nout, 7, 0, 0);
    DFCT_OK(DFC_Comm_free(&g));
}

/* Graph_create on a symmetric graph with multi-edges: r+1, r-1, r^1 (if a node). */
static void graph(void)
{
    int index[MAXN], edges[MAXN * 3], e = 0, lists[MAXN][MAXDEG], nl[MAXN];
    for (int r = 0; r < size; r++) {
        nl[r] = 0;
        lists[r][nl[r]++] = (r + 1) % size;
        lists[r][nl[r]++] = (r - 1 + size) % size;
        if ((r ^ 1) < size) lists[r][nl[r]++] = r ^ 1;
        for (int j = 0; j < nl[r]; j++) edges[e++] = lists[r][j];
        index[r] = e;
    }
    DFC_Comm g;
    int newrank, st, nn, ne, gi[MAXN], ge[MAXN * 3], cnt, nb[MAXDEG];
    DFCT_OK(DFC_Graph_map(DFC_COMM_WORLD, size, index, edges, &newrank));
    DFCT_CHECK(newrank == rank, "Graph_map: %d", newrank);
    DFCT_OK(DFC_Graph_create(DFC_COMM_WORLD, size, index, edges, 1, &g));
    DFCT_OK(DFC_Topo_test(g, &st));
    DFCT_OK(DFC_Graphdims_get(g, &nn, &ne));
    DFCT_CHECK(st == DFC_GRAPH && nn == size && ne == e, "Topo_test %d, Graphdims_get %d %d", st,
               nn, ne);
    DFCT_OK(DFC_Graph_get(g, MAXN, MAXN * 3, gi, ge));
    for (int r = 0; r < size; r++) DFCT_CHECK(gi[r] == index[r], "index[%d] = %d", r, gi[r]);
    for (int k = 0; k < e; k++) DFCT_CHECK(ge[k] == edges[k], "edges[%d] = %d", k, ge[k]);
    for (int r = 0; r < size; r++) {
        DFCT_OK(DFC_Graph_neighbors_count(g, r, &cnt));
        DFCT_OK(DFC_Graph_neighbors(g, r, MAXDEG, nb));
        DFCT_CHECK(cnt == nl[r], "Graph_neighbors_count(%d) = %d", r, cnt);
        for (int j = 0; j < cnt && j < nl[r]; j++)
            DFCT_CHECK(nb[j] == lists[r][j], "neighbor %d of %d", j, r);
    }
    /* Neighbor_alltoall: block j to neighbor j; multi-edges matched in order. */
    int sb[MAXDEG * 2], rb[MAXDEG * 2];
    for (int j = 0; j < nl[rank]; j++)
        sb[2 * j] = v_of(rank, j, 0, 5), sb[2 * j + 1] = v_of(rank, j, 1, 5);
    for (int i = 0; i < MAXDEG * 2; i++) rb[i] = POISON;
    DFCT_OK(DFC_Neighbor_alltoall(sb, 2, DFC_INT, rb, 2, DFC_INT, g));
    for (int i = 0; i < nl[rank]; i++) {
        int j = sender_block(lists[rank], i, lists, nl);
        for (int k = 0; k < 2; k++)
            DFCT_CHECK(rb[2 * i + k] == v_of(lists[rank][i], j, k, 5),
                       "graph alltoall block %d item %d = %d", i, k, rb[2 * i + k]);
    }
    check_allgatherv(g, lists[rank], nl[rank], 1);
    /* nnodes 0: DFC_COMM_NULL everywhere; fewer nodes than processes: the rest get it. */
    DFC_Comm z;
    DFCT_OK(DFC_Graph_create(DFC_COMM_WORLD, 0, index, edges, 0, &z));
    DFCT_CHECK(z == DFC_COMM_NULL, "Graph_create with 0 nodes gave a communicator");
    DFCT_OK(DFC_Comm_free(&g));
}

/* No edges at all, weighted (DFC_WEIGHTS_EMPTY): no neighbors, and the collectives move
 * nothing and leave the buffers alone. */
static void dist_empty(void)
{
    DFC_Comm g;
    int a = -1, b = -1, w = -1, x = 5;
    DFCT_OK(DFC_Dist_graph_create_adjacent(DFC_COMM_WORLD, 0, NULL, DFC_WEIGHTS_EMPTY, 0, NULL,
                                           DFC_WEIGHTS_EMPTY, DFC_INFO_NULL, 0, &g));
    DFCT_OK(DFC_Dist_graph_neighbors_count(g, &a, &b, &w));
    DFCT_CHECK(a == 0 && b == 0 && w == 1, "empty graph: %d %d %d", a, b, w);
    DFCT_OK(DFC_Neighbor_allgather(&x, 1, DFC_INT, NULL, 1, DFC_INT, g));
    DFCT_OK(DFC_Neighbor_alltoall(NULL, 1, DFC_INT, NULL, 1, DFC_INT, g));
    DFCT_CHECK(x == 5, "send buffer changed");
    DFCT_OK(DFC_Comm_free(&g));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    if (size > MAXN) return dfct_finalize();
    build_out();
    dist_adjacent();
    dist_general();
    graph();
    dist_empty();
    return dfct_finalize();
}
