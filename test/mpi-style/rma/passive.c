/*
 * passive.c - passive target while the target computes: rank 0 exposes a window and then
 * runs a long computation that never calls DFC; it ends only when it reads, in its own
 * window memory, the "done" flag that the last origin puts there. Meanwhile every other rank
 * locks rank 0 (exclusive and shared), puts, gets back what it put, increments a counter with
 * Fetch_and_op (which needs the target's answer), and finally puts the flag. Without
 * progress at the target (its progress thread for messages, nothing for shared memory) the
 * target would compute forever: the runner's time limit fails the test.
 * With one process there is no origin: the test only creates and frees the window.
 */
#include "rmatest.h"

#define N 256
#define FLAG (N + 1)
#define COUNT N

int main(int argc, char **argv)
{
    int rank, size, *mem;
    dfct_init(&argc, &argv);
    rmat_args(argc, argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Win win = rmat_win(N + 2, &mem, DFC_COMM_WORLD);
    for (int i = 0; i < N + 2; i++) mem[i] = 0;
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD)); /* memory initialized everywhere */
    if (rank == 0) {
        /* The computation: a recurrence whose result is checked, so it cannot be elided. */
        volatile int *flag = &mem[FLAG];
        double x = 1.0;
        unsigned long iters = 0;
        while (size > 1 && *flag != size - 1) {
            for (int k = 0; k < 1000; k++) x = x * 1.0000001 + 1e-9;
            iters++;
        }
        DFCT_CHECK(x >= 1.0, "computation %g", x);
        (void)iters;
    } else {
        int src[N / 4], got[N / 4];
        int slot = (rank - 1) % 4 * (N / 4);
        for (int i = 0; i < N / 4; i++) src[i] = rank * 10000 + i;
        DFCT_OK(DFC_Win_lock(DFC_LOCK_EXCLUSIVE, 0, 0, win));
        DFCT_OK(DFC_Put(src, N / 4, DFC_INT, 0, slot, N / 4, DFC_INT, win));
        DFCT_OK(DFC_Win_unlock(0, win));
        DFCT_OK(DFC_Win_lock(DFC_LOCK_EXCLUSIVE, 0, 0, win));
        for (int i = 0; i < N / 4; i++) got[i] = -1;
        DFCT_OK(DFC_Get(got, N / 4, DFC_INT, 0, slot, N / 4, DFC_INT, win));
        DFCT_OK(DFC_Win_unlock(0, win));
        if (size <= 5) /* ranks sharing a slot (more than 4 origins) overwrite each other */
            for (int i = 0; i < N / 4; i++)
                DFCT_CHECK(got[i] == src[i], "got[%d] = %d, expected %d", i, got[i], src[i]);
        DFCT_OK(DFC_Win_lock(DFC_LOCK_SHARED, 0, 0, win));
        int one = 1, old = -1;
        DFCT_OK(DFC_Fetch_and_op(&one, &old, DFC_INT, 0, COUNT, DFC_SUM, win));
        DFCT_OK(DFC_Win_flush(0, win));
        DFCT_CHECK(old >= 0 && old < size - 1, "fetch_and_op returned %d", old);
        DFCT_OK(DFC_Win_unlock(0, win));
        /* The flag: the number of origins done, by an atomic sum. */
        DFCT_OK(DFC_Win_lock(DFC_LOCK_SHARED, 0, 0, win));
        DFCT_OK(DFC_Accumulate(&one, 1, DFC_INT, 0, FLAG, 1, DFC_INT, DFC_SUM, win));
        DFCT_OK(DFC_Win_unlock(0, win));
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    if (rank == 0) {
        DFCT_CHECK(mem[COUNT] == size - 1, "counter %d, expected %d", mem[COUNT], size - 1);
        for (int r = 1; r < size && size <= 5; r++)
            for (int i = 0; i < N / 4; i++)
                DFCT_CHECK(mem[(r - 1) * (N / 4) + i] == r * 10000 + i, "rank %d's [%d] = %d", r, i,
                           mem[(r - 1) * (N / 4) + i]);
    }
    rmat_free(&win, mem);
    return dfct_finalize();
}
