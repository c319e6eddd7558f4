/*
 * rmatest.h - what the rma tests share: a window of `n` ints made by the flavor named on the
 * command line (-flavor=create: Win_create on user memory, messages; -flavor=allocate:
 * Win_allocate, shared memory on one node unless DFC_RMA_SHM=0).
 */
#ifndef RMATEST_H
#define RMATEST_H

#include "../dfctest.h"

static int rmat_flavor_create = 1;

static inline void rmat_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-flavor=allocate")) rmat_flavor_create = 0;
}

/* A window over n ints per process; *mem is this process's part. */
static inline DFC_Win rmat_win(int n, int **mem, DFC_Comm comm)
{
    DFC_Win win = DFC_WIN_NULL;
    if (rmat_flavor_create) {
        *mem = calloc(n ? n : 1, sizeof(int));
        DFCT_OK(DFC_Win_create(*mem, (DFC_Aint)n * sizeof(int), sizeof(int), DFC_INFO_NULL, comm,
                               &win));
    } else {
        DFCT_OK(DFC_Win_allocate((DFC_Aint)n * sizeof(int), sizeof(int), DFC_INFO_NULL, comm, mem,
                                 &win));
    }
    return win;
}

static inline void rmat_free(DFC_Win *win, int *mem)
{
    DFCT_OK(DFC_Win_free(win));
    DFCT_CHECK(*win == DFC_WIN_NULL, "Win_free left the handle");
    if (rmat_flavor_create) free(mem);
}

#endif /* RMATEST_H */
