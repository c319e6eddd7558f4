/*
 * isendrecv - Isendrecv and Isendrecv_replace (MPI-4.1 3.10): a ring shift at sizes from 0
 * to rendezvous, checked element by element with poisoned receive buffers; several pairs
 * in flight at once completed by Waitall in reverse order; DFC_PROC_NULL on either side;
 * a pair freed with Request_free before it completes; truncation; bad arguments.
 * Non-contiguous types through every call of this family that once refused them (they now
 * pack and unpack through the datatype engine): a vector, an indexed type and a struct
 * with gaps and negative displacements, all of six ints, sent as one and received as
 * another, through Isendrecv, Isendrecv_replace, Sendrecv_replace, Bsend/Ibsend/Bsend_init
 * received by Mprobe+Mrecv and Improbe+Imrecv, and Alltoallw; every int of the buffers is
 * checked: data where the type puts it, the poison untouched in the gaps.
 */
#include "../dfctest.h"

static int rank, size;

static int val(int r, int i, int k) { return r * 1000000 + i * 10000 + k % 10000; }

static void ring(int n)
{
    enum { NP = 3 };
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    int *s[NP], *r[NP], *x[NP];
    DFC_Request req[2 * NP];
    DFC_Status st[2 * NP];
    for (int i = 0; i < NP; i++) {
        s[i] = malloc((n + 1) * 4), r[i] = malloc((n + 1) * 4), x[i] = malloc((n + 1) * 4);
        for (int k = 0; k <= n; k++)
            s[i][k] = val(rank, i, k), r[i][k] = -1, x[i][k] = val(rank, i + 10, k);
        DFCT_OK(DFC_Isendrecv(s[i], n, DFC_INT, to, i, r[i], n, DFC_INT, from, i, DFC_COMM_WORLD,
                              &req[i]));
        DFCT_OK(DFC_Isendrecv_replace(x[i], n, DFC_INT, to, 100 + i, from, 100 + i, DFC_COMM_WORLD,
                                      &req[NP + i]));
    }
    for (int i = 0; i < 2 * NP; i++) st[i].DFC_SOURCE = -99;
    DFCT_OK(DFC_Waitall(2 * NP, req, st));
    for (int i = 0; i < NP; i++) {
        int bad = 0, c1 = -1, c2 = -1;
        DFCT_OK(DFC_Get_count(&st[i], DFC_INT, &c1));
        DFCT_OK(DFC_Get_count(&st[NP + i], DFC_INT, &c2));
        DFCT_CHECK(st[i].DFC_SOURCE == from && st[i].DFC_TAG == i && c1 == n,
                   "n=%d pair %d: status %d/%d count %d", n, i, st[i].DFC_SOURCE, st[i].DFC_TAG,
                   c1);
        DFCT_CHECK(st[NP + i].DFC_SOURCE == from && st[NP + i].DFC_TAG == 100 + i && c2 == n,
                   "n=%d replace %d: status %d/%d count %d", n, i, st[NP + i].DFC_SOURCE,
                   st[NP + i].DFC_TAG, c2);
        for (int k = 0; k < n; k++) {
            if (r[i][k] != val(from, i, k) && bad++ < 3)
                DFCT_CHECK(0, "n=%d pair %d element %d: %d, expected %d", n, i, k, r[i][k],
                           val(from, i, k));
            if (x[i][k] != val(from, i + 10, k) && bad++ < 3)
                DFCT_CHECK(0, "n=%d replace %d element %d: %d, expected %d", n, i, k, x[i][k],
                           val(from, i + 10, k));
        }
        DFCT_CHECK(r[i][n] == -1 && x[i][n] == val(rank, i + 10, n), "n=%d: wrote past the count",
                   n);
        free(s[i]), free(r[i]), free(x[i]);
    }
}

static void proc_null(void)
{
    int a = 5, b = -1, count = -1;
    DFC_Request req;
    DFC_Status st;
    DFCT_OK(DFC_Isendrecv(&a, 1, DFC_INT, DFC_PROC_NULL, 0, &b, 1, DFC_INT, DFC_PROC_NULL, 0,
                          DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Wait(&req, &st));
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
    DFCT_CHECK(st.DFC_SOURCE == DFC_PROC_NULL && st.DFC_TAG == DFC_ANY_TAG && count == 0 && b == -1,
               "PROC_NULL pair: %d/%d count %d b %d", st.DFC_SOURCE, st.DFC_TAG, count, b);
    DFCT_OK(DFC_Isendrecv_replace(&a, 1, DFC_INT, DFC_PROC_NULL, 0, DFC_PROC_NULL, 0,
                                  DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Wait(&req, &st));
    DFCT_CHECK(a == 5 && st.DFC_SOURCE == DFC_PROC_NULL, "PROC_NULL replace changed a to %d", a);
    /* One side only: send to the right, receive from nobody (and the converse). */
    int to = (rank + 1) % size, from = (rank - 1 + size) % size, v = rank;
    DFCT_OK(DFC_Isendrecv(&v, 1, DFC_INT, to, 7, &b, 1, DFC_INT, DFC_PROC_NULL, 7, DFC_COMM_WORLD,
                          &req));
    DFCT_OK(DFC_Wait(&req, &st));
    DFCT_OK(DFC_Isendrecv(&v, 1, DFC_INT, DFC_PROC_NULL, 7, &b, 1, DFC_INT, from, 7, DFC_COMM_WORLD,
                          &req));
    DFCT_OK(DFC_Wait(&req, &st));
    DFCT_CHECK(b == from && st.DFC_SOURCE == from, "one-sided pair got %d from %d", b,
               st.DFC_SOURCE);
}

/* Freed before it completes: the operation still happens (the receive lands). */
static void freed_early(void)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size, v = rank + 100, w = -1, z = -1;
    DFC_Request req;
    DFCT_OK(DFC_Isendrecv(&v, 1, DFC_INT, to, 8, &w, 1, DFC_INT, from, 8, DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Request_free(&req));
    DFCT_CHECK(req == DFC_REQUEST_NULL, "Request_free left the handle");
    /* A second exchange on the same tag: non-overtaking puts it after the first. */
    DFCT_OK(DFC_Sendrecv(&v, 1, DFC_INT, to, 8, &z, 1, DFC_INT, from, 8, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    DFCT_CHECK(w == from + 100 && z == from + 100, "freed pair: w %d z %d", w, z);
}

static void errors(void)
{
    int a[4] = {1, 2, 3, 4}, b[2];
    DFC_Request req;
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    DFCT_OK(DFC_Isendrecv(a, 4, DFC_INT, to, 9, b, 2, DFC_INT, from, 9, DFC_COMM_WORLD, &req));
    DFCT_FAILS(DFC_Wait(&req, DFC_STATUS_IGNORE), DFC_ERR_TRUNCATE, "DFC_Isendrecv");
    DFCT_FAILS(DFC_Isendrecv(a, -1, DFC_INT, to, 0, b, 1, DFC_INT, from, 0, DFC_COMM_WORLD, &req),
               DFC_ERR_COUNT, "sendcount");
    DFCT_FAILS(DFC_Isendrecv(a, 1, DFC_INT, to, 0, b, 1, DFC_INT, size, 0, DFC_COMM_WORLD, &req),
               DFC_ERR_RANK, "source");
    DFCT_FAILS(DFC_Isendrecv(a, 1, DFC_INT, to, -3, b, 1, DFC_INT, from, 0, DFC_COMM_WORLD, &req),
               DFC_ERR_TAG, "sendtag");
    DFCT_FAILS(DFC_Isendrecv(a, 1, DFC_INT, to, 0, b, 1, DFC_DATATYPE_NULL, from, 0, DFC_COMM_WORLD,
                             &req),
               DFC_ERR_TYPE, "recvtype");
    DFCT_FAILS(DFC_Isendrecv(a, 1, DFC_INT, to, 0, b, 1, DFC_INT, from, 0, DFC_COMM_WORLD, NULL),
               DFC_ERR_ARG, "request");
    DFCT_FAILS(DFC_Isendrecv_replace(NULL, 3, DFC_INT, to, 0, from, 0, DFC_COMM_WORLD, &req),
               DFC_ERR_BUFFER, "DFC_Isendrecv_replace");
    DFCT_FAILS(DFC_Isendrecv_replace(a, 1, DFC_INT, to, 0, from, 0, DFC_COMM_NULL, &req),
               DFC_ERR_COMM, "comm");
}

/* ---- Non-contiguous types ---------------------------------------------------------------
 * Each type holds six ints per item at offs[] (in ints from the item's start, negative for
 * the struct), items ext ints apart; a buffer of n items starts base ints into its
 * allocation, so that negative displacements stay inside it. */
enum { NT = 3, PER = 6, POISON = -7 };
typedef struct tlay {
    DFC_Datatype t;
    int offs[PER], ext, base;
    const char *name;
} tlay_t;
static tlay_t T[NT];

static void types_make(void)
{
    int ib[3] = {1, 3, 2}, id[3] = {0, 2, 7}, sb[2] = {2, 4};
    DFC_Aint sd[2] = {-8, 12};
    DFC_Datatype st[2] = {DFC_INT, DFC_INT};
    DFCT_OK(DFC_Type_vector(3, 2, 5, DFC_INT, &T[0].t));
    DFCT_OK(DFC_Type_indexed(3, ib, id, DFC_INT, &T[1].t));
    DFCT_OK(DFC_Type_create_struct(2, sb, sd, st, &T[2].t));
    const int o[NT][PER] = {{0, 1, 5, 6, 10, 11}, {0, 2, 3, 4, 7, 8}, {-2, -1, 3, 4, 5, 6}};
    const int ext[NT] = {12, 9, 9}, base[NT] = {0, 0, 2};
    const char *names[NT] = {"vector", "indexed", "struct"};
    for (int i = 0; i < NT; i++) {
        DFCT_OK(DFC_Type_commit(&T[i].t));
        memcpy(T[i].offs, o[i], sizeof o[i]);
        T[i].ext = ext[i], T[i].base = base[i], T[i].name = names[i];
        DFC_Aint lb, extent;
        DFCT_OK(DFC_Type_get_extent(T[i].t, &lb, &extent));
        DFCT_CHECK(extent == 4 * ext[i], "%s: extent %ld", names[i], (long)extent);
    }
}

static int tv(int who, int k) { return who * 100000 + k + 1; }
static int alloc_ints(const tlay_t *l, int n) { return l->base + n * l->ext + 3; }
/* A poisoned allocation for n items of l; the buffer to pass is at + l->base. */
static int *tbuf(const tlay_t *l, int n, int who)
{
    int m = alloc_ints(l, n), *a = malloc((size_t)m * sizeof *a);
    for (int i = 0; i < m; i++) a[i] = POISON;
    if (who >= 0)
        for (int k = 0; k < n * PER; k++)
            a[l->base + (k / PER) * l->ext + l->offs[k % PER]] = tv(who, k);
    return a;
}
/* Data k of n items must be tv(who, k) (who < 0: untouched), everything else the poison. */
static void tcheck(const int *a, const tlay_t *l, int n, int who, const char *what)
{
    int m = alloc_ints(l, n), bad = 0;
    int *want = malloc((size_t)m * sizeof *want);
    for (int i = 0; i < m; i++) want[i] = POISON;
    for (int k = 0; who >= 0 && k < n * PER; k++)
        want[l->base + (k / PER) * l->ext + l->offs[k % PER]] = tv(who, k);
    for (int i = 0; i < m; i++)
        if (a[i] != want[i] && bad++ < 3)
            DFCT_CHECK(0, "%s (%s, %d items): int %d is %d, expected %d", what, l->name, n, i, a[i],
                       want[i]);
    free(want);
}

static void typed_pairs(int n, int i, int j)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size, c = -1;
    const tlay_t *S = &T[i], *R = &T[j];
    int *s = tbuf(S, n, rank), *r = tbuf(R, n, -1), *x = tbuf(S, n, rank + 50);
    DFC_Request req[2];
    DFC_Status st[2];
    DFCT_OK(DFC_Isendrecv(s + S->base, n, S->t, to, 20, r + R->base, n, R->t, from, 20,
                          DFC_COMM_WORLD, &req[0]));
    DFCT_OK(DFC_Isendrecv_replace(x + S->base, n, S->t, to, 21, from, 21, DFC_COMM_WORLD, &req[1]));
    DFCT_OK(DFC_Waitall(2, req, st));
    DFCT_OK(DFC_Get_count(&st[0], R->t, &c));
    DFCT_CHECK(c == n && st[0].DFC_SOURCE == from, "Isendrecv %s->%s: count %d source %d", S->name,
               R->name, c, st[0].DFC_SOURCE);
    tcheck(r, R, n, from, "Isendrecv");
    tcheck(x, S, n, from + 50, "Isendrecv_replace");
    tcheck(s, S, n, rank, "Isendrecv's send buffer");
    free(x);
    x = tbuf(R, n, rank + 60);
    DFCT_OK(DFC_Sendrecv_replace(x + R->base, n, R->t, to, 22, from, 22, DFC_COMM_WORLD, &st[0]));
    DFCT_OK(DFC_Get_count(&st[0], R->t, &c));
    DFCT_CHECK(c == n, "Sendrecv_replace %s: count %d", R->name, c);
    tcheck(x, R, n, from + 60, "Sendrecv_replace");
    free(s), free(r), free(x);
}

/* Buffered sends of S received through matched probes as R. */
static void typed_bsend(int n, int i, int j)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size, c = -1, bsize;
    const tlay_t *S = &T[i], *R = &T[j];
    int *s = tbuf(S, n, rank), *r1 = tbuf(R, n, -1), *r2 = tbuf(R, n, -1), *r3 = tbuf(R, n, -1);
    int msg = n * PER * 4, room = 4 * (msg + DFC_BSEND_OVERHEAD + 8); /* 3 + a restart */
    char *bbuf = malloc((size_t)room);
    void *back;
    DFC_Request sreq, preq, rreq;
    DFC_Message m;
    DFC_Status st;
    DFCT_OK(DFC_Buffer_attach(bbuf, room));
    DFCT_OK(DFC_Bsend(s + S->base, n, S->t, to, 30, DFC_COMM_WORLD));
    DFCT_OK(DFC_Ibsend(s + S->base, n, S->t, to, 31, DFC_COMM_WORLD, &sreq));
    DFCT_OK(DFC_Bsend_init(s + S->base, n, S->t, to, 32, DFC_COMM_WORLD, &preq));
    DFCT_OK(DFC_Wait(&sreq, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Start(&preq));
    DFCT_OK(DFC_Wait(&preq, DFC_STATUS_IGNORE));
    for (int k = 0; k < n * PER; k++) /* the persistent send reads it anew at each start */
        s[S->base + (k / PER) * S->ext + S->offs[k % PER]] = tv(rank + 70, k);
    DFCT_OK(DFC_Mprobe(from, 30, DFC_COMM_WORLD, &m, &st));
    DFCT_OK(DFC_Mrecv(r1 + R->base, n, R->t, &m, &st));
    DFCT_OK(DFC_Get_count(&st, R->t, &c));
    DFCT_CHECK(c == n && m == DFC_MESSAGE_NULL, "Bsend %s->Mrecv %s: count %d", S->name, R->name,
               c);
    tcheck(r1, R, n, from, "Bsend+Mrecv");
    int flag = 0;
    while (!flag) DFCT_OK(DFC_Improbe(from, 31, DFC_COMM_WORLD, &flag, &m, &st));
    DFCT_OK(DFC_Imrecv(r2 + R->base, n, R->t, &m, &rreq));
    DFCT_OK(DFC_Wait(&rreq, &st));
    tcheck(r2, R, n, from, "Ibsend+Imrecv");
    DFCT_OK(DFC_Recv(r3 + R->base, n, R->t, from, 32, DFC_COMM_WORLD, &st));
    tcheck(r3, R, n, from, "Bsend_init's first start");
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD)); /* every rank has refreshed its data */
    DFCT_OK(DFC_Start(&preq));
    DFCT_OK(DFC_Wait(&preq, DFC_STATUS_IGNORE));
    free(r3);
    r3 = tbuf(R, n, -1);
    DFCT_OK(DFC_Recv(r3 + R->base, n, R->t, from, 32, DFC_COMM_WORLD, &st));
    tcheck(r3, R, n, from + 70, "Bsend_init's second start");
    DFCT_OK(DFC_Request_free(&preq));
    DFCT_OK(DFC_Buffer_detach(&back, &bsize));
    DFCT_CHECK(back == bbuf && bsize == room, "Buffer_detach gave %p/%d", back, bsize);
    free(bbuf), free(s), free(r1), free(r2), free(r3);
}

/* Alltoallw: the block for peer p has (rank + p) % 3 + n items of T[(rank + p) % NT] on the
 * send side; the receive side takes it as T[(p + 2 * rank) % NT] in reverse rank order. */
static int a2a_cnt(int s, int d, int n) { return (s + d) % 3 == 1 ? 0 : (s + d) % 3 + n; }
static void typed_alltoallw(int n)
{
    int sc[64], sd[64], rc[64], rd[64], soff = 0, roff = 0;
    DFC_Datatype stt[64], rtt[64];
    int *sblk[64], *rblk[64];
    if (size > 64) return;
    for (int q = 0; q < size; q++) {
        int p = size - 1 - q; /* receive blocks in reverse order */
        const tlay_t *S = &T[(rank + q) % NT], *R = &T[(p + 2 * rank) % NT];
        sc[q] = a2a_cnt(rank, q, n), rc[p] = a2a_cnt(p, rank, n);
        stt[q] = S->t, rtt[p] = R->t;
        sd[q] = 4 * (soff + S->base), rd[p] = 4 * (roff + R->base);
        sblk[q] = tbuf(S, sc[q], rank * 64 + q), rblk[p] = tbuf(R, rc[p], -1);
        soff += alloc_ints(S, sc[q]), roff += alloc_ints(R, rc[p]);
    }
    int *sb = malloc((size_t)soff * 4 + 4), *rb = malloc((size_t)roff * 4 + 4);
    soff = roff = 0;
    for (int q = 0; q < size; q++) {
        int p = size - 1 - q;
        const tlay_t *S = &T[(rank + q) % NT], *R = &T[(p + 2 * rank) % NT];
        memcpy(sb + soff, sblk[q], (size_t)alloc_ints(S, sc[q]) * 4);
        memcpy(rb + roff, rblk[p], (size_t)alloc_ints(R, rc[p]) * 4);
        soff += alloc_ints(S, sc[q]), roff += alloc_ints(R, rc[p]);
    }
    DFCT_OK(DFC_Alltoallw(sb, sc, sd, stt, rb, rc, rd, rtt, DFC_COMM_WORLD));
    for (int p = 0; p < size; p++) {
        const tlay_t *R = &T[(p + 2 * rank) % NT];
        tcheck(rb + rd[p] / 4 - R->base, R, rc[p], p * 64 + rank, "Alltoallw");
        free(sblk[p]), free(rblk[p]);
    }
    free(sb), free(rb);
}

static void typed(void)
{
    int sizes[] = {0, 1, 5, 6000}; /* 6000 items: 144000 bytes, past every eager limit */
    types_make();
    for (int z = 0; z < 4; z++) {
        for (int i = 0; i < NT; i++)
            for (int j = 0; j < NT; j++) {
                typed_pairs(sizes[z], i, j);
                typed_bsend(sizes[z], i, j);
            }
        typed_alltoallw(sizes[z]);
    }
    for (int i = 0; i < NT; i++) DFCT_OK(DFC_Type_free(&T[i].t));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    int sizes[] = {0, 1, 100, 4096, 4097, 70000};
    for (int i = 0; i < 6; i++) ring(sizes[i]);
    proc_null();
    freed_early();
    errors();
    typed();
    return dfct_finalize();
}
