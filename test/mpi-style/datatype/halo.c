/*
 * halo.c - non-contiguous datatypes on the communication paths, on any number of processes:
 *   - a 2D halo exchange on a periodic ring of processes, columns sent as Type_vector and
 *     rows as Type_create_subarray (eager size), then the same with a grid large enough
 *     for rendezvous;
 *   - a 3D halo exchange of the faces across the fastest dimension (subarray, the most
 *     scattered face);
 *   - Allgather, Bcast and Allreduce (SUM) with a strided vector type.
 * Every received element is checked against a global formula; halos start poisoned and
 * interior points must keep their values.
 */
#include <complex.h>
#include <stdlib.h>

#include "../dfctest.h"

static int rank, size;
#define POISON (-1e30)

static double f2(int gx, int gy) { return gx * 1000.0 + gy; }

/* Local (nx+2) x (ny+2) block of a global (size*nx) x ny array, split along x; periodic. */
static void halo2d(int nx, int ny)
{
    int W = ny + 2;
    double *a = malloc(sizeof(double) * (size_t)(nx + 2) * (size_t)W);
    for (int i = 0; i < nx + 2; i++)
        for (int j = 0; j < W; j++) {
            int interior = i >= 1 && i <= nx && j >= 1 && j <= ny;
            a[i * W + j] = interior ? f2(rank * nx + i - 1, j - 1) : POISON;
        }
    int up = (rank + size - 1) % size, down = (rank + 1) % size;
    /* Rows along x: subarrays of one row; columns along y: vectors (periodic in y locally). */
    DFC_Datatype row_send_top, row_send_bot, row_recv_top, row_recv_bot, col;
    int sizes[2] = {nx + 2, W}, sub[2] = {1, ny};
    DFCT_OK(DFC_Type_create_subarray(2, sizes, sub, (int[]){1, 1}, DFC_ORDER_C, DFC_DOUBLE,
                                     &row_send_top));
    DFCT_OK(DFC_Type_create_subarray(2, sizes, sub, (int[]){nx, 1}, DFC_ORDER_C, DFC_DOUBLE,
                                     &row_send_bot));
    DFCT_OK(DFC_Type_create_subarray(2, sizes, sub, (int[]){0, 1}, DFC_ORDER_C, DFC_DOUBLE,
                                     &row_recv_top));
    DFCT_OK(DFC_Type_create_subarray(2, sizes, sub, (int[]){nx + 1, 1}, DFC_ORDER_C, DFC_DOUBLE,
                                     &row_recv_bot));
    DFCT_OK(DFC_Type_vector(nx, 1, W, DFC_DOUBLE, &col));
    DFC_Datatype *ts[] = {&row_send_top, &row_send_bot, &row_recv_top, &row_recv_bot, &col};
    for (int k = 0; k < 5; k++) DFCT_OK(DFC_Type_commit(ts[k]));
    /* x direction between processes */
    DFCT_OK(DFC_Sendrecv(a, 1, row_send_top, up, 1, a, 1, row_recv_bot, down, 1, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    DFC_Request rq[2];
    DFCT_OK(DFC_Irecv(a, 1, row_recv_top, up, 2, DFC_COMM_WORLD, &rq[0]));
    DFCT_OK(DFC_Isend(a, 1, row_send_bot, down, 2, DFC_COMM_WORLD, &rq[1]));
    DFCT_OK(DFC_Waitall(2, rq, DFC_STATUSES_IGNORE));
    /* y direction, periodic within the process: a message to self through the vector type */
    DFCT_OK(DFC_Sendrecv(&a[W + ny], 1, col, rank, 3, &a[W], 1, col, rank, 3, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE)); /* column ny into the halo column 0 */
    int errs_before = dfct_errs;
    for (int i = 0; i < nx + 2; i++)
        for (int j = 0; j < W; j++) {
            double want;
            int gx = rank * nx + i - 1, gy = j - 1;
            if (j == W - 1) want = POISON;
            else if (j == 0) want = i == 0 || i == nx + 1 ? POISON : f2(gx, ny - 1);
            else if (i == 0 || i == nx + 1) want = f2((gx + size * nx) % (size * nx), gy);
            else want = f2(gx, gy);
            if (dfct_errs - errs_before < 5)
                DFCT_CHECK(a[i * W + j] == want, "halo2d %dx%d: a[%d][%d] = %g, want %g", nx, ny, i,
                           j, a[i * W + j], want);
        }
    for (int k = 0; k < 5; k++) DFCT_OK(DFC_Type_free(ts[k]));
    free(a);
}

/* 3D: local n0 x n1 x (n2+2) block, the halo planes across the fastest dimension exchanged
 * with the ring neighbours (each face is n0*n1 scattered doubles). */
static void halo3d(int n0, int n1, int n2)
{
    int W = n2 + 2;
    size_t total = (size_t)n0 * (size_t)n1 * (size_t)W;
    double *a = malloc(sizeof(double) * total);
    for (int i = 0; i < n0; i++)
        for (int j = 0; j < n1; j++)
            for (int k = 0; k < W; k++)
                a[((size_t)i * n1 + j) * W + k] = k >= 1 && k <= n2
                                                      ? i * 1e6 + j * 1e3 + rank * n2 + k - 1
                                                      : POISON;
    int sizes[3] = {n0, n1, W}, sub[3] = {n0, n1, 1};
    DFC_Datatype face[4];
    int starts[4] = {1, n2, 0, n2 + 1};
    for (int f = 0; f < 4; f++) {
        DFCT_OK(DFC_Type_create_subarray(3, sizes, sub, (int[]){0, 0, starts[f]}, DFC_ORDER_C,
                                         DFC_DOUBLE, &face[f]));
        DFCT_OK(DFC_Type_commit(&face[f]));
    }
    int lo = (rank + size - 1) % size, hi = (rank + 1) % size;
    DFCT_OK(DFC_Sendrecv(a, 1, face[0], lo, 7, a, 1, face[3], hi, 7, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Sendrecv(a, 1, face[1], hi, 8, a, 1, face[2], lo, 8, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    int errs_before = dfct_errs, gn = size * n2;
    for (int i = 0; i < n0; i++)
        for (int j = 0; j < n1; j++)
            for (int k = 0; k < W; k++) {
                int g = rank * n2 + k - 1;
                g = (g + gn) % gn;
                double want = i * 1e6 + j * 1e3 + g;
                double got = a[((size_t)i * n1 + j) * W + k];
                if (dfct_errs - errs_before < 5)
                    DFCT_CHECK(got == want, "halo3d: a[%d][%d][%d] = %g, want %g", i, j, k, got,
                               want);
            }
    for (int f = 0; f < 4; f++) DFCT_OK(DFC_Type_free(&face[f]));
    free(a);
}

/* Collectives with a stride-2 vector: each item is n doubles, every other one. */
static void collectives(int n)
{
    DFC_Datatype v, vr;
    DFCT_OK(DFC_Type_vector(n, 1, 2, DFC_DOUBLE, &v));
    DFCT_OK(DFC_Type_commit(&v));
    /* resized so that consecutive items interleave: item r starts at double r*2n */
    DFCT_OK(DFC_Type_create_resized(v, 0, (DFC_Aint)(2 * n) * 8, &vr));
    DFCT_OK(DFC_Type_commit(&vr));
    double *s = malloc(sizeof(double) * 2 * (size_t)n);
    double *r = malloc(sizeof(double) * 2 * (size_t)n * (size_t)size);
    for (int i = 0; i < 2 * n; i++) s[i] = i % 2 ? -1 : rank * 1e6 + i / 2;
    for (int i = 0; i < 2 * n * size; i++) r[i] = POISON;
    DFCT_OK(DFC_Allgather(s, 1, v, r, 1, vr, DFC_COMM_WORLD));
    int eb = dfct_errs;
    for (int p = 0; p < size; p++)
        for (int i = 0; i < 2 * n; i++) {
            double want = i % 2 ? POISON : p * 1e6 + i / 2, got = r[(size_t)p * 2 * n + i];
            if (dfct_errs - eb < 5)
                DFCT_CHECK(got == want, "allgather n=%d: r[%d][%d] = %g, want %g", n, p, i, got,
                           want);
        }
    /* Bcast from the last rank into a poisoned strided buffer. */
    for (int i = 0; i < 2 * n; i++) s[i] = rank == size - 1 ? (i % 2 ? -1 : i * 0.5) : POISON;
    DFCT_OK(DFC_Bcast(s, 1, v, size - 1, DFC_COMM_WORLD));
    for (int i = 0; i < 2 * n; i++) {
        double want = i % 2 ? (rank == size - 1 ? -1 : POISON) : i * 0.5;
        if (dfct_errs - eb < 5)
            DFCT_CHECK(s[i] == want, "bcast n=%d: s[%d] = %g, want %g", n, i, s[i], want);
    }
    /* Allreduce SUM over the vector's elements; the gaps of recvbuf stay as they were. */
    for (int i = 0; i < 2 * n; i++) s[i] = i % 2 ? -3 : rank + i;
    for (int i = 0; i < 2 * n; i++) r[i] = POISON;
    DFCT_OK(DFC_Allreduce(s, r, 1, v, DFC_SUM, DFC_COMM_WORLD));
    for (int i = 0; i < 2 * n; i++) {
        double want = i % 2 ? POISON : (double)size * (size - 1) / 2 + (double)size * i;
        if (dfct_errs - eb < 5)
            DFCT_CHECK(r[i] == want, "allreduce n=%d: r[%d] = %g, want %g", n, i, r[i], want);
    }
    DFCT_OK(DFC_Type_free(&v));
    DFCT_OK(DFC_Type_free(&vr));
    free(s);
    free(r);
}

/* Allreduce of complex numbers through a stride-2 vector: SUM and PROD. */
static void complex_allreduce(void)
{
    DFC_Datatype v;
    double _Complex s[8], r[8];
    DFCT_OK(DFC_Type_vector(4, 1, 2, DFC_C_DOUBLE_COMPLEX, &v));
    DFCT_OK(DFC_Type_commit(&v));
    for (int i = 0; i < 8; i++) s[i] = (rank + 1) + i * I, r[i] = POISON;
    DFCT_OK(DFC_Allreduce(s, r, 1, v, DFC_SUM, DFC_COMM_WORLD));
    for (int i = 0; i < 8; i += 2)
        DFCT_CHECK(r[i] == (double)size * (size + 1) / 2 + size * i * I && r[i + 1] == POISON,
                   "complex SUM r[%d] = %g%+gi", i, creal(r[i]), cimag(r[i]));
    DFCT_OK(DFC_Allreduce(s, r, 1, v, DFC_PROD, DFC_COMM_WORLD));
    for (int i = 0; i < 8; i += 2) {
        double _Complex want = 1;
        for (int p = 0; p < size; p++) want *= (p + 1) + i * I;
        DFCT_CHECK(cabs(r[i] - want) <= 1e-12 * cabs(want), "complex PROD r[%d] = %g%+gi", i,
                   creal(r[i]), cimag(r[i]));
    }
    DFCT_OK(DFC_Type_free(&v));
}

/* Sendrecv_replace around the ring through a strided vector: elements replaced by the left
 * neighbour's, gaps untouched. */
static void ring_replace(int n)
{
    DFC_Datatype v;
    double *b = malloc(sizeof(double) * 3 * (size_t)n);
    DFCT_OK(DFC_Type_vector(n, 1, 3, DFC_DOUBLE, &v));
    DFCT_OK(DFC_Type_commit(&v));
    for (int i = 0; i < 3 * n; i++) b[i] = i % 3 ? -i : rank * 1e6 + i;
    DFCT_OK(DFC_Sendrecv_replace(b, 1, v, (rank + 1) % size, 6, (rank + size - 1) % size, 6,
                                 DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    int left = (rank + size - 1) % size, eb = dfct_errs;
    for (int i = 0; i < 3 * n && dfct_errs - eb < 5; i++)
        DFCT_CHECK(b[i] == (i % 3 ? -i : left * 1e6 + i), "replace n=%d: b[%d] = %g", n, i, b[i]);
    DFCT_OK(DFC_Type_free(&v));
    free(b);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    halo2d(4, 6);
    halo2d(50, 3000); /* rows of 24 KB: rendezvous */
    halo3d(3, 4, 5);
    halo3d(40, 50, 6); /* faces of 16 KB */
    collectives(7);
    collectives(1 << 16); /* 512 KiB of payload per item */
    complex_allreduce();
    ring_replace(5);
    ring_replace(100000); /* rendezvous */
    return dfct_finalize();
}
