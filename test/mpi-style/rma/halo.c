/*
 * halo.c - a 2D halo exchange by Put and fence on a periodic process grid (Dims_create,
 * Cart_create): each rank owns an NX x NY block with one ghost cell around it in its window,
 * and puts its edge rows and columns into the ghost cells of its four neighbours. Interior
 * values are a function of (step, global cell), so every ghost cell is checked exactly, over
 * several steps with fresh values.
 */
#include "rmatest.h"

#define NX 6
#define NY 5
#define W (NY + 2) /* row length with ghosts */
#define STEPS 4

static int px, py; /* process grid */

/* The value of global cell (gx, gy) at step s on the periodic global grid. */
static int f(int s, int gx, int gy)
{
    gx = (gx + px * NX) % (px * NX);
    gy = (gy + py * NY) % (py * NY);
    return s * 1000000 + gx * 1000 + gy;
}

int main(int argc, char **argv)
{
    int size, rank, dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
    int *mem;
    DFC_Comm cart;
    dfct_init(&argc, &argv);
    rmat_args(argc, argv);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Dims_create(size, 2, dims));
    px = dims[0];
    py = dims[1];
    DFCT_OK(DFC_Cart_create(DFC_COMM_WORLD, 2, dims, periods, 0, &cart));
    DFC_Comm_rank(cart, &rank);
    DFCT_OK(DFC_Cart_coords(cart, rank, 2, coords));
    int up, down, left, right; /* x: rows, y: columns */
    DFCT_OK(DFC_Cart_shift(cart, 0, 1, &up, &down));
    DFCT_OK(DFC_Cart_shift(cart, 1, 1, &left, &right));
    DFC_Win win = rmat_win((NX + 2) * W, &mem, cart);
    int x0 = coords[0] * NX, y0 = coords[1] * NY;
    for (int s = 1; s <= STEPS; s++) {
        for (int i = 0; i < (NX + 2) * W; i++) mem[i] = -1; /* poison ghosts too */
        for (int i = 1; i <= NX; i++)
            for (int j = 1; j <= NY; j++) mem[i * W + j] = f(s, x0 + i - 1, y0 + j - 1);
        DFCT_OK(DFC_Win_fence(0, win));
        DFCT_OK(DFC_Put(&mem[1 * W + 1], NY, DFC_INT, up, (NX + 1) * W + 1, NY, DFC_INT, win));
        DFCT_OK(DFC_Put(&mem[NX * W + 1], NY, DFC_INT, down, 0 * W + 1, NY, DFC_INT, win));
        for (int i = 1; i <= NX; i++) {
            DFCT_OK(DFC_Put(&mem[i * W + 1], 1, DFC_INT, left, i * W + NY + 1, 1, DFC_INT, win));
            DFCT_OK(DFC_Put(&mem[i * W + NY], 1, DFC_INT, right, i * W + 0, 1, DFC_INT, win));
        }
        DFCT_OK(DFC_Win_fence(0, win));
        for (int j = 1; j <= NY; j++) {
            int gy = y0 + j - 1;
            DFCT_CHECK(mem[0 * W + j] == f(s, x0 - 1, gy), "step %d top ghost %d = %d", s, j,
                       mem[j]);
            DFCT_CHECK(mem[(NX + 1) * W + j] == f(s, x0 + NX, gy), "step %d bottom ghost %d = %d",
                       s, j, mem[(NX + 1) * W + j]);
        }
        for (int i = 1; i <= NX; i++) {
            int gx = x0 + i - 1;
            DFCT_CHECK(mem[i * W + 0] == f(s, gx, y0 - 1), "step %d left ghost %d = %d", s, i,
                       mem[i * W]);
            DFCT_CHECK(mem[i * W + NY + 1] == f(s, gx, y0 + NY), "step %d right ghost %d = %d", s,
                       i, mem[i * W + NY + 1]);
        }
        /* corners are not exchanged: still poisoned */
        DFCT_CHECK(mem[0] == -1 && mem[W - 1] == -1, "step %d corner overwritten", s);
    }
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOSUCCEED, win));
    rmat_free(&win, mem);
    DFC_Comm_free(&cart);
    return dfct_finalize();
}
