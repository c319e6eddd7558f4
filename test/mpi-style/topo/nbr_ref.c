/*
 * nbr_ref - every neighborhood collective (allgather, allgatherv, alltoall, alltoallv,
 * alltoallw; blocking, nonblocking, and persistent started twice) against a plain
 * point-to-point reference, on a random distributed graph with self-loops, repeated edges
 * and processes without neighbors. The reference sends block j to destination j with tag
 * k (this is the k-th edge to that destination) and receives from source i with tag k (the
 * k-th edge from that source): the matching MPI defines. Outputs of both start poisoned,
 * with gaps between blocks, and must agree element by element. -big uses blocks of tens of
 * KiB (the rendezvous protocol) instead of a few items.
 */
#include "../dfctest.h"

#define MAXN 64
#define MAXDEG 5
#define POISON (-4242)

static int rank, size, scale = 3;
static int outl[MAXN][MAXDEG], nout[MAXN], in[MAXN * MAXDEG], nin;

static void build_graph(unsigned seed)
{
    unsigned st = seed;
    for (int q = 0; q < size; q++) {
        nout[q] = (int)(dfct_rand(&st) % (MAXDEG + 1));
        for (int j = 0; j < nout[q]; j++) outl[q][j] = (int)(dfct_rand(&st) % (unsigned)size);
    }
    nin = 0;
    for (int q = 0; q < size; q++)
        for (int j = 0; j < nout[q]; j++)
            if (outl[q][j] == rank) in[nin++] = q;
}

/* Occurrence index of list[i] among list[0..i-1]: the tag of the reference message. */
static int occurrence(const int *list, int i)
{
    int k = 0;
    for (int m = 0; m < i; m++) k += list[m] == list[i];
    return k;
}

enum { AG, AGV, A2A, A2AV, A2AW, NKINDS };
static const char *kind_names[NKINDS] = {"allgather", "allgatherv", "alltoall", "alltoallv",
                                         "alltoallw"};

/* Items in the message from q's send block j (v and w forms); the same rule gives the
 * receiver its count for the matching block. */
static int count_of(int kind, int q, int j)
{
    if (kind == AG || kind == A2A) return scale;
    if (kind == AGV) return scale + q % 3;
    return scale * ((q + 2 * j) % 3); /* alltoallv/w: some blocks empty */
}

typedef struct layout {
    int scnt[MAXDEG], sdsp[MAXDEG], rcnt[MAXN * MAXDEG], rdsp[MAXN * MAXDEG];
    DFC_Aint sdw[MAXDEG], rdw[MAXN * MAXDEG];
    DFC_Datatype st[MAXDEG], rt[MAXN * MAXDEG];
    int slen, rlen;
} layout_t;

/* The sender block of q that my i-th receive gets. */
static int sender_block(int i)
{
    int q = in[i], k = occurrence(in, i);
    for (int j = 0; j < nout[q]; j++)
        if (outl[q][j] == rank && occurrence(outl[q], j) == k) return j;
    return -1;
}

static void make_layout(int kind, layout_t *L, DFC_Datatype pair)
{
    int off = 0;
    for (int j = 0; j < nout[rank]; j++) {
        L->scnt[j] = count_of(kind, rank, j);
        L->sdsp[j] = kind == AG || kind == AGV ? 0 : off;
        L->sdw[j] = (DFC_Aint)L->sdsp[j] * (DFC_Aint)sizeof(int);
        L->st[j] = DFC_INT;
        if (kind == A2A) L->sdsp[j] = j * scale;
        off += L->scnt[j];
    }
    L->slen = kind == AG || kind == AGV ? count_of(kind, rank, 0) : off;
    off = 1;
    for (int i = 0; i < nin; i++) {
        int j = sender_block(i);
        L->rcnt[i] = count_of(kind, in[i], j);
        L->rdsp[i] = kind == AG || kind == A2A ? i * scale : off;
        L->rdw[i] = (DFC_Aint)L->rdsp[i] * (DFC_Aint)sizeof(int);
        L->rt[i] = DFC_INT;
        if (kind == A2AW && i % 2 && L->rcnt[i] % 2 == 0) { /* a 2-int type, half the count */
            L->rt[i] = pair;
            L->rcnt[i] /= 2;
        }
        off += count_of(kind, in[i], j) + 1;
    }
    L->rlen = kind == AG || kind == A2A ? nin * scale : off;
}

static void fill(int *sb, int len, int kind, int it)
{
    for (int i = 0; i < len; i++) sb[i] = ((it * 8 + kind) * 64 + rank) * 100000 + i;
}

/* The reference: point-to-point with occurrence tags. */
static void reference(int kind, const layout_t *L, const int *sb, int *ref)
{
    DFC_Request rq[2 * MAXN * MAXDEG];
    int n = 0;
    for (int i = 0; i < nin; i++) {
        int items = count_of(kind, in[i], sender_block(i));
        int at = kind == AG || kind == A2A ? i * scale : L->rdsp[i];
        DFCT_OK(DFC_Irecv(ref + at, items, DFC_INT, in[i], occurrence(in, i), DFC_COMM_WORLD,
                          &rq[n++]));
    }
    for (int j = 0; j < nout[rank]; j++) {
        int at = kind == AG || kind == AGV ? 0 : L->sdsp[j];
        DFCT_OK(DFC_Isend(sb + at, L->scnt[j], DFC_INT, outl[rank][j], occurrence(outl[rank], j),
                          DFC_COMM_WORLD, &rq[n++]));
    }
    DFCT_OK(DFC_Waitall(n, rq, DFC_STATUSES_IGNORE));
}

/* Starts (or runs) one neighborhood collective; *req gets the request of the I and _init
 * forms (form 0 blocking, 1 nonblocking, 2 persistent). */
static void call(int kind, int form, DFC_Comm g, const layout_t *L, const int *sb, int *rb,
                 DFC_Request *req)
{
    DFC_Info I = DFC_INFO_NULL;
    switch (kind * 3 + form) {
    case AG * 3: DFCT_OK(DFC_Neighbor_allgather(sb, scale, DFC_INT, rb, scale, DFC_INT, g)); break;
    case AG * 3 + 1:
        DFCT_OK(DFC_Ineighbor_allgather(sb, scale, DFC_INT, rb, scale, DFC_INT, g, req));
        break;
    case AG * 3 + 2:
        DFCT_OK(DFC_Neighbor_allgather_init(sb, scale, DFC_INT, rb, scale, DFC_INT, g, I, req));
        break;
    case AGV * 3:
        DFCT_OK(DFC_Neighbor_allgatherv(sb, L->slen, DFC_INT, rb, L->rcnt, L->rdsp, DFC_INT, g));
        break;
    case AGV * 3 + 1:
        DFCT_OK(
            DFC_Ineighbor_allgatherv(sb, L->slen, DFC_INT, rb, L->rcnt, L->rdsp, DFC_INT, g, req));
        break;
    case AGV * 3 + 2:
        DFCT_OK(DFC_Neighbor_allgatherv_init(sb, L->slen, DFC_INT, rb, L->rcnt, L->rdsp, DFC_INT, g,
                                             I, req));
        break;
    case A2A * 3: DFCT_OK(DFC_Neighbor_alltoall(sb, scale, DFC_INT, rb, scale, DFC_INT, g)); break;
    case A2A * 3 + 1:
        DFCT_OK(DFC_Ineighbor_alltoall(sb, scale, DFC_INT, rb, scale, DFC_INT, g, req));
        break;
    case A2A * 3 + 2:
        DFCT_OK(DFC_Neighbor_alltoall_init(sb, scale, DFC_INT, rb, scale, DFC_INT, g, I, req));
        break;
    case A2AV * 3:
        DFCT_OK(DFC_Neighbor_alltoallv(sb, L->scnt, L->sdsp, DFC_INT, rb, L->rcnt, L->rdsp, DFC_INT,
                                       g));
        break;
    case A2AV * 3 + 1:
        DFCT_OK(DFC_Ineighbor_alltoallv(sb, L->scnt, L->sdsp, DFC_INT, rb, L->rcnt, L->rdsp,
                                        DFC_INT, g, req));
        break;
    case A2AV * 3 + 2:
        DFCT_OK(DFC_Neighbor_alltoallv_init(sb, L->scnt, L->sdsp, DFC_INT, rb, L->rcnt, L->rdsp,
                                            DFC_INT, g, I, req));
        break;
    case A2AW * 3:
        DFCT_OK(DFC_Neighbor_alltoallw(sb, L->scnt, L->sdw, L->st, rb, L->rcnt, L->rdw, L->rt, g));
        break;
    case A2AW * 3 + 1:
        DFCT_OK(DFC_Ineighbor_alltoallw(sb, L->scnt, L->sdw, L->st, rb, L->rcnt, L->rdw, L->rt, g,
                                        req));
        break;
    default:
        DFCT_OK(DFC_Neighbor_alltoallw_init(sb, L->scnt, L->sdw, L->st, rb, L->rcnt, L->rdw, L->rt,
                                            g, I, req));
        break;
    }
}

static void one_kind(int kind, DFC_Comm g, DFC_Datatype pair, int *sb, int *rb, int *ref, int cap)
{
    layout_t L;
    make_layout(kind, &L, pair);
    if (L.slen > cap || L.rlen > cap) return;
    for (int form = 0; form < 3; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        int runs = form == 2 ? 2 : 1;
        for (int it = 0; it < runs; it++) {
            fill(sb, L.slen, kind, form * 2 + it);
            for (int i = 0; i < L.rlen; i++) rb[i] = ref[i] = POISON;
            if (form < 2 || it == 0) call(kind, form, g, &L, sb, rb, &req);
            if (form == 2) DFCT_OK(DFC_Start(&req));
            if (form > 0) DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
            reference(kind, &L, sb, ref);
            int bad = 0;
            for (int i = 0; i < L.rlen; i++)
                if (rb[i] != ref[i] && bad++ < 5)
                    DFCT_CHECK(0, "%s form %d run %d: item %d = %d, reference %d", kind_names[kind],
                               form, it, i, rb[i], ref[i]);
        }
        if (form == 2) DFCT_OK(DFC_Request_free(&req));
    }
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-big")) scale = 12000; /* 48 KB per full block */
    if (size > MAXN) return dfct_finalize();
    int cap = (MAXN * MAXDEG + 2) * (scale + 3);
    int *sb = malloc((size_t)cap * sizeof(int)), *rb = malloc((size_t)cap * sizeof(int));
    int *ref = malloc((size_t)cap * sizeof(int));
    DFC_Datatype pair;
    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &pair));
    DFCT_OK(DFC_Type_commit(&pair));
    for (unsigned seed = 1; seed <= 4; seed++) {
        build_graph(seed * 7919u);
        DFC_Comm g;
        DFCT_OK(DFC_Dist_graph_create_adjacent(DFC_COMM_WORLD, nin, in, DFC_UNWEIGHTED, nout[rank],
                                               outl[rank], DFC_UNWEIGHTED, DFC_INFO_NULL, 0, &g));
        for (int kind = 0; kind < NKINDS; kind++) one_kind(kind, g, pair, sb, rb, ref, cap);
        DFCT_OK(DFC_Comm_free(&g));
    }
    DFCT_OK(DFC_Type_free(&pair));
    free(sb);
    free(rb);
    free(ref);
    return dfct_finalize();
}
