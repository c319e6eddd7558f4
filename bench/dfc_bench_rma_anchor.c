/* dfc_bench_rma_anchor.c - the MPI half of dfc_bench_rma (see dfc_bench_rma.h). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "dfc_bench_rma.h"

static rma_lib_t lib;
static MPI_Win win = MPI_WIN_NULL;

static int a_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static int a_win_allocate(size_t bytes, void **base)
{
    return MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, base, &win);
}
static int a_win_free(void) { return MPI_Win_free(&win); }
static int a_lock(int r) { return MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win); }
static int a_unlock(int r) { return MPI_Win_unlock(r, win); }
static int a_flush(int r) { return MPI_Win_flush(r, win); }
static int a_fence(void) { return MPI_Win_fence(0, win); }
static int a_put(const void *b, int n, int t)
{
    return MPI_Put(b, n, MPI_BYTE, t, 0, n, MPI_BYTE, win);
}
static int a_get(void *b, int n, int t) { return MPI_Get(b, n, MPI_BYTE, t, 0, n, MPI_BYTE, win); }
static int a_acc(const double *b, int n, int t)
{
    return MPI_Accumulate(b, n, MPI_DOUBLE, t, 0, n, MPI_DOUBLE, MPI_SUM, win);
}
static int a_finalize(void) { return MPI_Finalize(); }

const rma_lib_t *rma_anchor_init(int *argc, char ***argv, char *why, int whylen)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        snprintf(why, whylen, "MPI_Init failed");
        return NULL;
    }
    lib.name = "anchor";
    int len = 0;
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(v, &len);
    v[strcspn(v, ",\n")] = 0;
    snprintf(lib.version, sizeof lib.version, "%s", v);
    MPI_Comm_rank(MPI_COMM_WORLD, &lib.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &lib.size);
    lib.barrier = a_barrier;
    lib.win_allocate = a_win_allocate;
    lib.win_free = a_win_free;
    lib.lock = a_lock;
    lib.unlock = a_unlock;
    lib.flush = a_flush;
    lib.fence = a_fence;
    lib.put = a_put;
    lib.get = a_get;
    lib.acc = a_acc;
    lib.finalize = a_finalize;
    return &lib;
}
