/*
 * shared.c - Win_allocate_shared on the processes of one node (Comm_split_type SHARED): the
 * memory of every rank is reached by plain loads and stores through Win_shared_query, with
 * Win_sync and a barrier between the writer and the readers (MPI-4.1 12.7, the unified
 * model); the default layout is contiguous; DFC_PROC_NULL queries the first rank with memory.
 */
#include "../dfctest.h"

#define N 100

int main(int argc, char **argv)
{
    int wrank, rank, size;
    DFC_Comm node;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &wrank);
    DFCT_OK(DFC_Comm_split_type(DFC_COMM_WORLD, DFC_COMM_TYPE_SHARED, 0, DFC_INFO_NULL, &node));
    DFC_Comm_rank(node, &rank);
    DFC_Comm_size(node, &size);
    double *mine = NULL;
    DFC_Win win;
    /* rank 1 contributes no memory: the query for PROC_NULL must skip nothing then */
    DFC_Aint bytes = rank == 1 ? 0 : N * sizeof(double);
    DFCT_OK(DFC_Win_allocate_shared(bytes, sizeof(double), DFC_INFO_NULL, node, &mine, &win));
    int *model, flag;
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_MODEL, &model, &flag));
    DFCT_CHECK(flag && *model == DFC_WIN_UNIFIED, "model %d", *model);
    DFCT_OK(DFC_Win_lock_all(DFC_MODE_NOCHECK, win));
    for (int i = 0; rank != 1 && i < N; i++) mine[i] = rank * 1000.0 + i;
    DFCT_OK(DFC_Win_sync(win));
    DFCT_OK(DFC_Barrier(node));
    DFCT_OK(DFC_Win_sync(win));
    char *prev_end = NULL;
    for (int r = 0; r < size; r++) {
        DFC_Aint sz;
        int unit;
        double *p = (double *)-1;
        DFCT_OK(DFC_Win_shared_query(win, r, &sz, &unit, &p));
        DFCT_CHECK(unit == (int)sizeof(double), "rank %d disp_unit %d", r, unit);
        DFCT_CHECK(sz == (r == 1 ? 0 : N * (DFC_Aint)sizeof(double)), "rank %d size %lld", r,
                   (long long)sz);
        if (r == 1) continue;
        if (prev_end) DFCT_CHECK((char *)p == prev_end, "rank %d memory not contiguous", r);
        prev_end = (char *)p + sz;
        for (int i = 0; i < N; i++)
            DFCT_CHECK(p[i] == r * 1000.0 + i, "rank %d [%d] = %g", r, i, p[i]);
    }
    /* Everybody writes its rank into slot `rank` of rank 0's memory, directly. */
    DFC_Aint sz0;
    int u0;
    double *p0;
    DFCT_OK(DFC_Win_shared_query(win, 0, &sz0, &u0, &p0));
    DFCT_OK(DFC_Barrier(node));
    p0[rank] = -1.0 - rank;
    DFCT_OK(DFC_Win_sync(win));
    DFCT_OK(DFC_Barrier(node));
    DFCT_OK(DFC_Win_sync(win));
    for (int r = 0; r < size; r++)
        DFCT_CHECK(p0[r] == -1.0 - r, "direct store from rank %d: %g", r, p0[r]);
    DFC_Aint szn;
    int un;
    double *pn;
    DFCT_OK(DFC_Win_shared_query(win, DFC_PROC_NULL, &szn, &un, &pn));
    DFCT_CHECK(pn == p0 && szn == sz0, "PROC_NULL query %p, expected %p", (void *)pn, (void *)p0);
    /* Put through the window reaches the same memory */
    double v = 42.5;
    int right = (rank + 1) % size;
    DFCT_OK(DFC_Put(&v, 1, DFC_DOUBLE, right == 1 ? 0 : right, N - 1 - rank, 1, DFC_DOUBLE, win));
    DFCT_OK(DFC_Win_unlock_all(win));
    DFCT_OK(DFC_Barrier(node));
    if (rank != 1 && size > 1) {
        int from = (rank - 1 + size) % size;
        DFCT_CHECK(mine[N - 1 - from] == 42.5, "put from %d: %g", from, mine[N - 1 - from]);
    }
    DFCT_OK(DFC_Win_free(&win));
    DFC_Comm_free(&node);
    return dfct_finalize();
}
