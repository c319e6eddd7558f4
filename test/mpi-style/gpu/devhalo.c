/*
 * devhalo - non-contiguous datatypes on device buffers (issue 17): halo exchanges on 2D and
 * 3D grids of doubles, periodic over a process grid from DFC_Dims_create, with
 * Type_create_subarray faces (and, in 2D, Type_vector columns), through Irecv/Isend/Waitall
 * (every halo's receive in flight at once, their spans overlapping in one allocation),
 * Isend + blocking Recv, Sendrecv, persistent Recv_init/Send_init started twice, and a
 * Sendrecv_replace shift of a face; a struct type with gaps (small and large counts, device
 * to device, host to device, device to host, a partial receive, blocking Send/Recv); Allgather
 * with a strided send type and a resized vector receive type, Bcast and Ibcast of a vector
 * type; Bsend of a vector type; and bad input (a datatype whose span covers device and
 * host memory: DFC_ERR_BUFFER, nothing sent). Each case runs on host buffers, then on device
 * buffers.
 *
 * Every element of every buffer is checked after each operation: interior cells keep their
 * values, each halo holds its neighbour's face, and the cells no type map covers (grid edges
 * and corners, a struct's gaps, a vector's gaps, the guard after each buffer) keep their
 * poison. Inputs change with each round (a generation number), outputs are poisoned first.
 *
 * Runs on the GPU machine (gpu/testlist) and in CI against the stand-in CUDA runtime
 * (test/unit/fake_cudart_ipc.c) as pt2pt/devhalofake, with DFC_GPU_DAEMON=0.
 */
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devtest.h"

enum { HOST, DEV };
static const char *where_name[] = {"host", "device"};
static int rank, nprocs;
#define POISON (-7.0)
#define GUARD 64 /* doubles after each grid */

static void *mk(int where, size_t n)
{
    void *p;
    if (where == DEV) CUDA_OK(cudaMalloc(&p, n));
    else if (!(p = malloc(n))) exit(2);
    return p;
}

static void release(int where, void *p)
{
    if (where == DEV) CUDA_OK(cudaFree(p));
    else free(p);
}

static void put(int where, void *dst, const void *src, size_t n)
{
    if (where == DEV) DEV_UPLOAD(dst, src, n);
    else memcpy(dst, src, n);
}

static void get(int where, void *dst, const void *src, size_t n)
{
    if (where == DEV) CUDA_OK(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost));
    else memcpy(dst, src, n);
}

/* ---- Halo exchange on a D-dimensional grid (D = 2 or 3), C order ------------------------ */

typedef struct grid {
    int D, L[3], n[3]; /* interior sizes; n = L + 2 */
    int P[3], c[3];    /* process grid and this rank's coordinates */
    size_t cells;
    int vec; /* 2D: columns as Type_vector, rows contiguous (else subarrays) */
} grid_t;

static int rank_of(const grid_t *g, const int *c)
{
    int r = 0;
    for (int d = 0; d < g->D; d++) r = r * g->P[d] + (c[d] + g->P[d]) % g->P[d];
    return r;
}

static int nbr(const grid_t *g, int d, int side)
{
    int c[3] = {g->c[0], g->c[1], g->c[2]};
    c[d] += side ? 1 : -1;
    return rank_of(g, c);
}

static double val(int r, const int *p, int gen)
{
    return gen * 1e12 + r * 1e9 + p[0] * 1e6 + p[1] * 1e3 + p[2];
}

static size_t idx(const grid_t *g, const int *p)
{
    size_t i = 0;
    for (int d = 0; d < g->D; d++) i = i * (size_t)g->n[d] + (size_t)p[d];
    return i;
}

/* The type of the slab at index `at` of dimension d (interior range in the others), and the
 * byte offset the caller adds to the grid's address. */
static DFC_Datatype slab(const grid_t *g, int d, int at, size_t *off)
{
    DFC_Datatype t;
    *off = 0;
    if (g->vec && g->D == 2) {
        int p[3] = {1, 1, 0};
        p[d] = at;
        *off = idx(g, p) * sizeof(double);
        if (d == 1) DFCT_OK(DFC_Type_vector(g->L[0], 1, g->n[1], DFC_DOUBLE, &t));
        else DFCT_OK(DFC_Type_contiguous(g->L[1], DFC_DOUBLE, &t));
    } else {
        int sub[3], st[3];
        for (int k = 0; k < g->D; k++) sub[k] = g->L[k], st[k] = 1;
        sub[d] = 1;
        st[d] = at;
        DFCT_OK(DFC_Type_create_subarray(g->D, g->n, sub, st, DFC_ORDER_C, DFC_DOUBLE, &t));
    }
    DFCT_OK(DFC_Type_commit(&t));
    return t;
}

/* The grid as this rank fills it: interior values of generation gen, poison elsewhere. */
static void fill_grid(const grid_t *g, double *h, int gen)
{
    int p[3] = {0, 0, 0};
    for (size_t i = 0; i < g->cells; i++) {
        size_t r = i;
        int inner = 1;
        for (int d = g->D - 1; d >= 0; d--) {
            p[d] = (int)(r % (size_t)g->n[d]);
            r /= (size_t)g->n[d];
            inner &= p[d] >= 1 && p[d] <= g->L[d];
        }
        h[i] = inner ? val(rank, p, gen) : POISON;
    }
    for (int i = 0; i < GUARD; i++) h[g->cells + i] = POISON;
}

/* What a cell must hold after the exchange (shift: only the Sendrecv_replace of the low
 * face of dimension sd, which then holds the high neighbour's low face). */
static double expect(const grid_t *g, const int *p, int gen, int shift, int sd)
{
    int nh = 0, hd = -1, q[3] = {p[0], p[1], p[2]};
    for (int d = 0; d < g->D; d++)
        if (p[d] < 1 || p[d] > g->L[d]) nh++, hd = d;
    if (shift) {
        if (nh) return POISON;
        return p[sd] == 1 ? val(nbr(g, sd, 1), p, gen) : val(rank, p, gen);
    }
    if (nh == 0) return val(rank, p, gen);
    if (nh > 1) return POISON; /* edges and corners: no face covers them */
    int side = p[hd] > g->L[hd];
    q[hd] = side ? 1 : g->L[hd];
    return val(nbr(g, hd, side), q, gen);
}

static void check_grid(const grid_t *g, const double *h, int gen, int shift, int sd,
                       const char *what)
{
    int p[3] = {0, 0, 0}, bad = 0;
    for (size_t i = 0; i < g->cells; i++) {
        size_t r = i;
        for (int d = g->D - 1; d >= 0; d--) p[d] = (int)(r % (size_t)g->n[d]), r /= g->n[d];
        double e = expect(g, p, gen, shift, sd);
        if (h[i] != e && bad++ < 3)
            DFCT_CHECK(0, "%s: cell (%d,%d,%d) is %.0f, expected %.0f", what, p[0], p[1], p[2],
                       h[i], e);
    }
    for (int i = 0; i < GUARD; i++)
        DFCT_CHECK(h[g->cells + i] == POISON, "%s: guard %d written", what, i);
    DFCT_CHECK(!bad, "%s: %d cells wrong", what, bad);
}

enum { M_NONBLOCKING, M_IRECV_BLOCKING, M_SENDRECV, M_PERSISTENT, M_REPLACE, M_COUNT };
static const char *mode_name[] = {"isend/irecv/waitall", "isend/recv", "sendrecv", "persistent",
                                  "sendrecv_replace"};

/* One exchange (or, persistent, two rounds) of every face; checks the grid after each. */
static void exchange(const grid_t *g, int where, int mode, int gen)
{
    size_t bytes = (g->cells + GUARD) * sizeof(double);
    double *h = malloc(bytes), *buf = mk(where, bytes);
    DFC_Datatype st[3][2], rt[3][2];
    size_t soff[3][2], roff[3][2];
    DFC_Request req[12];
    for (int d = 0; d < g->D; d++)
        for (int s = 0; s < 2; s++) {
            st[d][s] = slab(g, d, s ? g->L[d] : 1, &soff[d][s]);
            rt[d][s] = slab(g, d, s ? g->L[d] + 1 : 0, &roff[d][s]);
        }
    char what[160];
    snprintf(what, sizeof what, "%dD %s %s on %s", g->D, g->vec ? "vector" : "subarray",
             mode_name[mode], where_name[where]);
    int rounds = mode == M_PERSISTENT ? 2 : 1, nr = 0;
    for (int round = 0; round < rounds; round++, gen++) {
        fill_grid(g, h, gen);
        put(where, buf, h, bytes);
        char *b = (char *)buf;
        for (int d = 0; d < g->D && mode != M_REPLACE; d++)
            for (int s = 0; s < 2; s++) {
                /* halo side s of dimension d <- neighbour (d, s)'s opposite face */
                int from = nbr(g, d, s), to = nbr(g, d, s), rtag = d * 2 + !s, stag = d * 2 + s;
                if (mode == M_SENDRECV) { /* face s out, halo !s in: tags pair up */
                    DFCT_OK(DFC_Sendrecv(b + soff[d][s], 1, st[d][s], to, stag, b + roff[d][!s], 1,
                                         rt[d][!s], nbr(g, d, !s), stag, DFC_COMM_WORLD,
                                         DFC_STATUS_IGNORE));
                } else if (mode == M_PERSISTENT && round == 0) {
                    DFCT_OK(DFC_Recv_init(b + roff[d][s], 1, rt[d][s], from, rtag, DFC_COMM_WORLD,
                                          &req[nr++]));
                    DFCT_OK(DFC_Send_init(b + soff[d][s], 1, st[d][s], to, stag, DFC_COMM_WORLD,
                                          &req[nr++]));
                } else if (mode == M_NONBLOCKING) {
                    DFCT_OK(DFC_Irecv(b + roff[d][s], 1, rt[d][s], from, rtag, DFC_COMM_WORLD,
                                      &req[nr++]));
                    DFCT_OK(DFC_Isend(b + soff[d][s], 1, st[d][s], to, stag, DFC_COMM_WORLD,
                                      &req[nr++]));
                } else if (mode == M_IRECV_BLOCKING) {
                    DFCT_OK(DFC_Isend(b + soff[d][s], 1, st[d][s], to, stag, DFC_COMM_WORLD,
                                      &req[nr++]));
                }
            }
        if (mode == M_IRECV_BLOCKING)
            for (int d = 0; d < g->D; d++)
                for (int s = 0; s < 2; s++)
                    DFCT_OK(DFC_Recv(b + roff[d][s], 1, rt[d][s], nbr(g, d, s), d * 2 + !s,
                                     DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        if (mode == M_PERSISTENT) DFCT_OK(DFC_Startall(nr, req));
        if (mode == M_REPLACE) /* my low face <- the high neighbour's low face */
            DFCT_OK(DFC_Sendrecv_replace(b + soff[0][0], 1, st[0][0], nbr(g, 0, 0), 9, nbr(g, 0, 1),
                                         9, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        if (nr) DFCT_OK(DFC_Waitall(nr, req, DFC_STATUSES_IGNORE));
        if (mode != M_PERSISTENT) nr = 0;
        get(where, h, buf, bytes);
        check_grid(g, h, gen, mode == M_REPLACE, 0, what);
        DFCT_OK(DFC_Barrier(DFC_COMM_WORLD)); /* nobody refills while a peer still reads */
    }
    for (int i = 0; i < nr; i++) DFCT_OK(DFC_Request_free(&req[i]));
    for (int d = 0; d < g->D; d++)
        for (int s = 0; s < 2; s++) {
            DFCT_OK(DFC_Type_free(&st[d][s]));
            DFCT_OK(DFC_Type_free(&rt[d][s]));
        }
    release(where, buf);
    free(h);
}

static void halo(int D, const int *L, int vec, int where)
{
    grid_t g = {.D = D, .vec = vec};
    int dims[3] = {0, 0, 0};
    DFCT_OK(DFC_Dims_create(nprocs, D, dims));
    g.cells = 1;
    for (int d = 0, r = rank, div = nprocs; d < D; d++) {
        g.L[d] = L[d];
        g.n[d] = L[d] + 2;
        g.P[d] = dims[d];
        div /= dims[d];
        g.c[d] = r / div;
        r %= div;
        g.cells *= (size_t)g.n[d];
    }
    for (int mode = 0; mode < M_COUNT; mode++) exchange(&g, where, mode, 10 * mode + 1);
}

/* ---- A struct with gaps ------------------------------------------------------------------ */

typedef struct item {
    int a;    /* gap of 4 bytes after it */
    double b; /* at 8 */
    char c;   /* at 16, then 7 bytes of gap */
    char pad[7];
} item_t;

static DFC_Datatype item_type(void)
{
    int bl[3] = {1, 1, 1};
    DFC_Aint disp[3] = {offsetof(item_t, a), offsetof(item_t, b), offsetof(item_t, c)};
    DFC_Datatype types[3] = {DFC_INT, DFC_DOUBLE, DFC_CHAR}, t;
    DFCT_OK(DFC_Type_create_struct(3, bl, disp, types, &t));
    DFCT_OK(DFC_Type_commit(&t));
    return t;
}

static void item_fill(item_t *it, int n, int src, int gen, int poison)
{
    memset(it, poison ? 0x5a : 0x33, sizeof *it * (size_t)n);
    if (poison) return;
    for (int i = 0; i < n; i++) {
        it[i].a = src * 100000 + gen * 1000 + i;
        it[i].b = src + gen * 0.5 + i * 0.25;
        it[i].c = (char)(src * 7 + gen + i);
    }
}

/* n items received of m posted from src: the first n hold src's values, the gaps and the
 * items past n keep the poison. */
static void item_check(const item_t *it, int n, int m, int src, int gen, const char *what)
{
    item_t want[1], poison;
    memset(&poison, 0x5a, sizeof poison);
    int bad = 0;
    for (int i = 0; i < m; i++) {
        memcpy(want, &poison, sizeof poison);
        if (i < n) {
            want->a = src * 100000 + gen * 1000 + i;
            want->b = src + gen * 0.5 + i * 0.25;
            want->c = (char)(src * 7 + gen + i);
        }
        if (memcmp(&it[i], want, sizeof *want) && bad++ < 3)
            DFCT_CHECK(0, "%s: item %d of %d wrong (a=%d b=%g c=%d, gap byte %#x)", what, i, m,
                       it[i].a, it[i].b, it[i].c, ((const unsigned char *)&it[i])[4]);
    }
    DFCT_CHECK(!bad, "%s: %d items wrong", what, bad);
}

/* Ring: rank sends n items of the struct to rank+1 (from `sw` memory) and receives into
 * `rw` memory from rank-1, with room for m >= n items (a partial receive when m > n). */
static void structs(int sw, int rw, int n, int m, int gen)
{
    DFC_Datatype t = item_type();
    size_t sb = sizeof(item_t) * (size_t)n, rb = sizeof(item_t) * (size_t)m;
    item_t *hs = malloc(sb), *hr = malloc(rb);
    void *s = mk(sw, sb), *r = mk(rw, rb);
    int to = (rank + 1) % nprocs, from = (rank + nprocs - 1) % nprocs, cnt = -1;
    item_fill(hs, n, rank, gen, 0);
    item_fill(hr, m, 0, 0, 1);
    put(sw, s, hs, sb);
    put(rw, r, hr, rb);
    DFC_Request q;
    DFC_Status st;
    char what[128];
    snprintf(what, sizeof what, "struct %d of %d items, %s to %s", n, m, where_name[sw],
             where_name[rw]);
    if (gen % 2) {
        DFCT_OK(DFC_Irecv(r, m, t, from, 3, DFC_COMM_WORLD, &q));
        DFCT_OK(DFC_Send(s, n, t, to, 3, DFC_COMM_WORLD));
        DFCT_OK(DFC_Wait(&q, &st));
    } else {
        DFCT_OK(DFC_Isend(s, n, t, to, 3, DFC_COMM_WORLD, &q));
        DFCT_OK(DFC_Recv(r, m, t, from, 3, DFC_COMM_WORLD, &st));
        DFCT_OK(DFC_Wait(&q, DFC_STATUS_IGNORE));
    }
    DFCT_OK(DFC_Get_count(&st, t, &cnt));
    DFCT_CHECK(cnt == n, "%s: Get_count %d, expected %d", what, cnt, n);
    get(rw, hr, r, rb);
    item_check(hr, n, m, from, gen, what);
    release(sw, s);
    release(rw, r);
    free(hs);
    free(hr);
    DFCT_OK(DFC_Type_free(&t));
}

/* ---- Collectives with vector types ------------------------------------------------------ */

/* Allgather: each rank sends M doubles at stride 3, receives every rank's M at stride 2
 * (a vector resized to 2M doubles, so the odd slots are gaps). */
static void allgather(int where, int M, int gen)
{
    DFC_Datatype sv, rv0, rv;
    DFCT_OK(DFC_Type_vector(M, 1, 3, DFC_DOUBLE, &sv));
    DFCT_OK(DFC_Type_commit(&sv));
    DFCT_OK(DFC_Type_vector(M, 1, 2, DFC_DOUBLE, &rv0));
    DFCT_OK(DFC_Type_create_resized(rv0, 0, (DFC_Aint)(2 * M * sizeof(double)), &rv));
    DFCT_OK(DFC_Type_commit(&rv));
    size_t sn = 3 * (size_t)M, rn = 2 * (size_t)M * nprocs + GUARD;
    double *hs = malloc(sn * sizeof(double)), *hr = malloc(rn * sizeof(double));
    for (size_t i = 0; i < sn; i++) hs[i] = i % 3 ? POISON - 1 : rank * 1e6 + gen * 1e4 + i / 3;
    for (size_t i = 0; i < rn; i++) hr[i] = POISON;
    double *s = mk(where, sn * sizeof(double)), *r = mk(where, rn * sizeof(double));
    put(where, s, hs, sn * sizeof(double));
    put(where, r, hr, rn * sizeof(double));
    DFCT_OK(DFC_Allgather(s, 1, sv, r, 1, rv, DFC_COMM_WORLD));
    get(where, hr, r, rn * sizeof(double));
    int bad = 0;
    for (size_t i = 0; i < rn; i++) {
        size_t src = i / (2 * (size_t)M), k = (i % (2 * (size_t)M)) / 2;
        double e = i % 2 || src >= (size_t)nprocs ? POISON : src * 1e6 + gen * 1e4 + k;
        if (hr[i] != e && bad++ < 3)
            DFCT_CHECK(0, "allgather on %s: element %zu is %g, expected %g", where_name[where], i,
                       hr[i], e);
    }
    DFCT_CHECK(!bad, "allgather on %s: %d elements wrong", where_name[where], bad);
    release(where, s);
    release(where, r);
    free(hs);
    free(hr);
    DFCT_OK(DFC_Type_free(&sv));
    DFCT_OK(DFC_Type_free(&rv0));
    DFCT_OK(DFC_Type_free(&rv));
}

/* Bcast (blocking, then Ibcast) from each root of M blocks of 2 ints at stride 5. */
static void bcast(int where, int M, int gen)
{
    DFC_Datatype v;
    DFCT_OK(DFC_Type_vector(M, 2, 5, DFC_INT, &v));
    DFCT_OK(DFC_Type_commit(&v));
    size_t n = 5 * (size_t)M + GUARD;
    int *h = malloc(n * sizeof(int)), *b = mk(where, n * sizeof(int));
    for (int root = 0; root < nprocs; root++)
        for (int nb = 0; nb < 2; nb++) {
            for (size_t i = 0; i < n; i++)
                h[i] = rank == root && i % 5 < 2 && i < 5 * (size_t)M
                           ? root * 1000000 + gen * 10000 + nb * 5000 + (int)i
                           : -1 - rank;
            put(where, b, h, n * sizeof(int));
            if (nb) {
                DFC_Request q;
                DFCT_OK(DFC_Ibcast(b, 1, v, root, DFC_COMM_WORLD, &q));
                DFCT_OK(DFC_Wait(&q, DFC_STATUS_IGNORE));
            } else {
                DFCT_OK(DFC_Bcast(b, 1, v, root, DFC_COMM_WORLD));
            }
            get(where, h, b, n * sizeof(int));
            int bad = 0;
            for (size_t i = 0; i < n; i++) {
                int e = i % 5 < 2 && i < 5 * (size_t)M
                            ? root * 1000000 + gen * 10000 + nb * 5000 + (int)i
                            : -1 - rank;
                if (h[i] != e && bad++ < 3)
                    DFCT_CHECK(0, "%s from %d on %s: element %zu is %d, expected %d",
                               nb ? "ibcast" : "bcast", root, where_name[where], i, h[i], e);
            }
            DFCT_CHECK(!bad, "bcast on %s: %d elements wrong", where_name[where], bad);
        }
    release(where, b);
    free(h);
    DFCT_OK(DFC_Type_free(&v));
}

/* Bsend of a vector from `where` to this rank itself, received contiguous on the host. */
static void bsend(int where, int M, int gen)
{
    DFC_Datatype v;
    DFCT_OK(DFC_Type_vector(M, 3, 4, DFC_FLOAT, &v));
    DFCT_OK(DFC_Type_commit(&v));
    size_t n = 4 * (size_t)M, att = 3 * M * sizeof(float) + 4 * DFC_BSEND_OVERHEAD;
    float *h = malloc(n * sizeof(float)), *r = malloc(3 * M * sizeof(float) + 4);
    for (size_t i = 0; i < n; i++) h[i] = i % 4 == 3 ? -1.0f : (float)(gen * 100000 + (int)i);
    float *b = mk(where, n * sizeof(float));
    void *mem = malloc(att), *back;
    int sz;
    put(where, b, h, n * sizeof(float));
    DFCT_OK(DFC_Buffer_attach(mem, (int)att));
    DFCT_OK(DFC_Bsend(b, 1, v, rank, 11, DFC_COMM_WORLD));
    DFCT_OK(DFC_Recv(r, 3 * M, DFC_FLOAT, rank, 11, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Buffer_detach(&back, &sz));
    int bad = 0;
    for (int k = 0; k < 3 * M; k++) {
        float e = (float)(gen * 100000 + (k / 3) * 4 + k % 3);
        if (r[k] != e && bad++ < 3)
            DFCT_CHECK(0, "bsend from %s: element %d is %g, expected %g", where_name[where], k,
                       r[k], e);
    }
    DFCT_CHECK(!bad, "bsend from %s: %d elements wrong", where_name[where], bad);
    release(where, b);
    free(h);
    free(r);
    free(mem);
    DFCT_OK(DFC_Type_free(&v));
}

/* ---- Bad input --------------------------------------------------------------------------- */

/* A struct of absolute addresses (DFC_BOTTOM) with one block in device memory and one in
 * host memory: refused with DFC_ERR_BUFFER by sends and receives, nothing sent. */
static void mixed_span(void)
{
    double *d = mk(DEV, 4 * sizeof(double)), h[4] = {1, 2, 3, 4};
    DFC_Aint a[2];
    DFCT_OK(DFC_Get_address(d, &a[0]));
    DFCT_OK(DFC_Get_address(h, &a[1]));
    int bl[2] = {4, 4};
    DFC_Datatype types[2] = {DFC_DOUBLE, DFC_DOUBLE}, t;
    DFCT_OK(DFC_Type_create_struct(2, bl, a, types, &t));
    DFCT_OK(DFC_Type_commit(&t));
    DFC_Request q;
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    DFCT_FAILS(DFC_Send(DFC_BOTTOM, 1, t, rank, 5, DFC_COMM_WORLD), DFC_ERR_BUFFER,
               "span device and host memory");
    DFCT_FAILS(DFC_Isend(DFC_BOTTOM, 1, t, rank, 5, DFC_COMM_WORLD, &q), DFC_ERR_BUFFER,
               "DFC_Isend");
    DFCT_FAILS(DFC_Irecv(DFC_BOTTOM, 1, t, rank, 5, DFC_COMM_WORLD, &q), DFC_ERR_BUFFER,
               "invalid argument buf");
    DFCT_FAILS(DFC_Bcast(DFC_BOTTOM, 1, t, 0, DFC_COMM_WORLD), DFC_ERR_BUFFER,
               "span device and host memory");
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_ARE_FATAL));
    int flag = 1;
    DFCT_OK(DFC_Iprobe(DFC_ANY_SOURCE, 5, DFC_COMM_WORLD, &flag, DFC_STATUS_IGNORE));
    DFCT_CHECK(!flag, "a refused send left a message behind");
    DFCT_OK(DFC_Type_free(&t));
    release(DEV, d);
}

int main(int argc, char **argv)
{
    int ndev = 0; /* one GPU per local rank where there are several */
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    if (!lr) lr = getenv("SLURM_LOCALID");
    CUDA_OK(cudaGetDeviceCount(&ndev));
    if (ndev > 1) CUDA_OK(cudaSetDevice((lr ? atoi(lr) : 0) % ndev));
    dfct_init(&argc, &argv);
    dev_watchdog(240);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &nprocs);
    static const int l2[3] = {24, 20, 0}, l2big[3] = {300, 260, 0}, l3[3] = {12, 10, 8};
    for (int where = HOST; where <= DEV; where++) {
        halo(2, l2, 1, where);
        halo(2, l2, 0, where);
        halo(2, l2big, 1, where);
        halo(3, l3, 0, where);
        allgather(where, 1000, 3 + where);
        bcast(where, 700, 5 + where);
        bsend(where, 500, 7 + where);
        for (int other = HOST; other <= DEV; other++) {
            structs(where, other, 5, 5, 1);
            structs(where, other, 1000, 1000, 2);
            structs(where, other, 3, 7, 3); /* partial: items 3 to 6 untouched */
        }
    }
    mixed_span();
    return dfct_finalize();
}
