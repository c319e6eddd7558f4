/*
 * alltoallw - Alltoallw, Ialltoallw, Alltoallw_init (MPI-4.1 6.8), element by element:
 * every pair (s, d) has its own count (0 included) and datatype (int, double, short, char),
 * blocks sit at byte displacements with gaps, and the receive side lays them out in reverse
 * rank order; the gaps must keep their poison. Also: the persistent form started three
 * times with fresh data, DFC_IN_PLACE (symmetric counts and types, as MPI requires), and
 * bad arguments.
 */
#include "../dfctest.h"

#define GAP 8

static int rank, size;
static const DFC_Datatype types[4] = {DFC_INT, DFC_DOUBLE, DFC_SHORT, DFC_CHAR};
static const int tsize[4] = {4, 8, 2, 1};

static int cnt(int s, int d) { return (s + 2 * d) % 4 == 3 ? 0 : 1 + (s * 3 + d * 5) % 7; }
static int tix(int s, int d) { return (s + d) % 4; }
static int val(int s, int d, int k, int it) { return (s * 37 + d * 11 + k * 3 + it * 5) % 120; }

static void put(char *p, int t, int v)
{
    if (t == 0) *(int *)p = v;
    else if (t == 1) *(double *)p = v;
    else if (t == 2) *(short *)p = (short)v;
    else *p = (char)v;
}
static int get(const char *p, int t)
{
    return t == 0   ? *(const int *)p
           : t == 1 ? (int)*(const double *)p
           : t == 2 ? *(const short *)p
                    : *p;
}

typedef struct layout {
    int counts[64], displs[64];
    DFC_Datatype types[64];
    int t[64], bytes;
} layout_t;

/* Sends (is_send): block for d at increasing offsets; receives: from s, in reverse order. */
static void make_layout(layout_t *l, int is_send, int sym)
{
    int off = 0;
    for (int i = 0; i < size; i++) {
        int p = is_send ? i : size - 1 - i;
        int s = is_send ? rank : p, d = is_send ? p : rank;
        int c = sym ? 1 + (s + d) % 3 : cnt(s, d);
        l->t[p] = tix(s, d);
        l->types[p] = types[l->t[p]];
        l->counts[p] = c;
        l->displs[p] = off;
        off += ((c * tsize[l->t[p]] + 7) & ~7) + GAP;
    }
    l->bytes = off;
}

static void fill_send(char *buf, const layout_t *l, int it)
{
    for (int d = 0; d < size; d++)
        for (int k = 0; k < l->counts[d]; k++)
            put(buf + l->displs[d] + k * tsize[l->t[d]], l->t[d], val(rank, d, k, it));
}

/* Every received element, and every byte between blocks still poisoned (0xEE). */
static void check_recv(const char *buf, const layout_t *l, int it, const char *what)
{
    char *touched = calloc(l->bytes, 1);
    int bad = 0;
    for (int s = 0; s < size; s++)
        for (int k = 0; k < l->counts[s]; k++) {
            int off = l->displs[s] + k * tsize[l->t[s]], v = get(buf + off, l->t[s]);
            memset(touched + off, 1, tsize[l->t[s]]);
            if (v != val(s, rank, k, it) && bad++ < 5)
                DFCT_CHECK(0, "%s: from %d element %d is %d, expected %d", what, s, k, v,
                           val(s, rank, k, it));
        }
    for (int b = 0; b < l->bytes; b++)
        if (!touched[b] && (unsigned char)buf[b] != 0xEE && bad++ < 5)
            DFCT_CHECK(0, "%s: byte %d outside every block was written", what, b);
    free(touched);
}

static void forms(void)
{
    layout_t sl, rl;
    make_layout(&sl, 1, 0);
    make_layout(&rl, 0, 0);
    char *sb = malloc(sl.bytes + 1), *rb = malloc(rl.bytes + 1);
    DFC_Request req;
    for (int form = 0; form < 2; form++) {
        fill_send(sb, &sl, form);
        memset(rb, 0xEE, rl.bytes);
        if (form == 0) {
            DFCT_OK(DFC_Alltoallw(sb, sl.counts, sl.displs, sl.types, rb, rl.counts, rl.displs,
                                  rl.types, DFC_COMM_WORLD));
        } else {
            DFCT_OK(DFC_Ialltoallw(sb, sl.counts, sl.displs, sl.types, rb, rl.counts, rl.displs,
                                   rl.types, DFC_COMM_WORLD, &req));
            DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
        }
        check_recv(rb, &rl, form, form ? "Ialltoallw" : "Alltoallw");
    }
    DFCT_OK(DFC_Alltoallw_init(sb, sl.counts, sl.displs, sl.types, rb, rl.counts, rl.displs,
                               rl.types, DFC_COMM_WORLD, DFC_INFO_NULL, &req));
    for (int it = 2; it < 5; it++) {
        fill_send(sb, &sl, it); /* each Start reads the buffers as they are then */
        memset(rb, 0xEE, rl.bytes);
        DFCT_OK(DFC_Start(&req));
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
        check_recv(rb, &rl, it, "Alltoallw_init");
    }
    DFCT_OK(DFC_Request_free(&req));
    free(sb), free(rb);
}

static void in_place(void)
{
    layout_t rl;
    make_layout(&rl, 0, 1);
    char *rb = malloc(rl.bytes + 1);
    memset(rb, 0xEE, rl.bytes);
    fill_send(rb, &rl, 7); /* the outgoing blocks, in the receive layout */
    DFCT_OK(DFC_Alltoallw(DFC_IN_PLACE, NULL, NULL, NULL, rb, rl.counts, rl.displs, rl.types,
                          DFC_COMM_WORLD));
    check_recv(rb, &rl, 7, "Alltoallw in place");
    free(rb);
}

static void bad_args(void)
{
    layout_t l;
    make_layout(&l, 1, 0);
    char b[8] = {0};
    int neg[64];
    DFC_Datatype badt[64];
    for (int i = 0; i < size; i++) neg[i] = i == size - 1 ? -1 : 0, badt[i] = DFC_INT;
    badt[0] = DFC_DATATYPE_NULL;
    DFCT_FAILS(DFC_Alltoallw(b, neg, l.displs, l.types, b + 1, l.counts, l.displs, l.types,
                             DFC_COMM_WORLD),
               DFC_ERR_COUNT, "sendcounts");
    DFCT_FAILS(DFC_Alltoallw(b, l.counts, l.displs, badt, b + 1, l.counts, l.displs, l.types,
                             DFC_COMM_WORLD),
               DFC_ERR_TYPE, "sendtypes");
    DFCT_FAILS(DFC_Alltoallw(b, l.counts, l.displs, l.types, b + 1, l.counts, NULL, l.types,
                             DFC_COMM_WORLD),
               DFC_ERR_ARG, "rdispls");
    DFCT_FAILS(DFC_Alltoallw(b, l.counts, l.displs, l.types, DFC_IN_PLACE, l.counts, l.displs,
                             l.types, DFC_COMM_WORLD),
               DFC_ERR_BUFFER, "recvbuf");
    DFCT_FAILS(DFC_Alltoallw(b, l.counts, l.displs, l.types, b, l.counts, l.displs, l.types,
                             DFC_COMM_NULL),
               DFC_ERR_COMM, "DFC_Alltoallw");
    DFCT_FAILS(DFC_Ialltoallw(b, l.counts, l.displs, l.types, b + 1, l.counts, l.displs, l.types,
                              DFC_COMM_WORLD, NULL),
               DFC_ERR_ARG, "request");
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    if (size > 64) return dfct_finalize();
    forms();
    in_place();
    bad_args();
    return dfct_finalize();
}
