/*
 * dynamic.c - Win_create_dynamic with Win_attach/Win_detach: each rank attaches two buffers,
 * publishes their addresses (Allgather), and its left neighbour puts into and gets from them
 * under a lock, addressing them by address (disp_unit 1); then detach, and a detach of memory
 * never attached fails with DFC_ERR_RMA_ATTACH.
 */
#include "../dfctest.h"

#define N 32

int main(int argc, char **argv)
{
    int rank, size;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Win win;
    DFCT_OK(DFC_Win_create_dynamic(DFC_INFO_NULL, DFC_COMM_WORLD, &win));
    int *flavor, flag;
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_CREATE_FLAVOR, &flavor, &flag));
    DFCT_CHECK(*flavor == DFC_WIN_FLAVOR_DYNAMIC, "flavor %d", *flavor);
    long *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    DFCT_OK(DFC_Win_attach(win, a, N * sizeof *a));
    DFCT_OK(DFC_Win_attach(win, b, N * sizeof *b));
    DFC_Aint mine[2] = {(DFC_Aint)(uintptr_t)a, (DFC_Aint)(uintptr_t)b};
    DFC_Aint *all = malloc(2 * size * sizeof *all);
    DFCT_OK(DFC_Allgather(mine, 2, DFC_AINT, all, 2, DFC_AINT, DFC_COMM_WORLD));
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    long src[N], got[N];
    for (int i = 0; i < N; i++) src[i] = rank * 100 + i;
    DFCT_OK(DFC_Win_lock(DFC_LOCK_EXCLUSIVE, right, 0, win));
    DFCT_OK(DFC_Put(src, N, DFC_LONG, right, all[2 * right], N, DFC_LONG, win));
    DFCT_OK(DFC_Put(src, N / 2, DFC_LONG, right, all[2 * right + 1] + N / 2 * sizeof(long), N / 2,
                    DFC_LONG, win));
    DFCT_OK(DFC_Win_flush(right, win));
    for (int i = 0; i < N; i++) got[i] = -1;
    DFCT_OK(DFC_Get(got, N, DFC_LONG, right, all[2 * right], N, DFC_LONG, win));
    DFCT_OK(DFC_Win_unlock(right, win));
    for (int i = 0; i < N; i++) DFCT_CHECK(got[i] == src[i], "get[%d] = %ld", i, got[i]);
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        DFCT_CHECK(a[i] == left * 100 + i, "a[%d] = %ld", i, a[i]);
        long e = i < N / 2 ? 0 : left * 100 + (i - N / 2);
        DFCT_CHECK(b[i] == e, "b[%d] = %ld, expected %ld", i, b[i], e);
    }
    DFCT_OK(DFC_Win_detach(win, b));
    DFCT_OK(DFC_Win_detach(win, a));
    DFCT_OK(DFC_Win_set_errhandler(win, DFC_ERRORS_RETURN));
    DFCT_FAILS(DFC_Win_detach(win, a), DFC_ERR_RMA_ATTACH, "DFC_Win_detach: invalid argument base");
    DFCT_OK(DFC_Win_free(&win));
    free(a);
    free(b);
    free(all);
    return dfct_finalize();
}
