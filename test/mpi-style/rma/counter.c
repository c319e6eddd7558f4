/*
 * counter.c - accumulate atomicity under concurrent origins: every rank increments one
 * counter at rank 0 with Fetch_and_op (ITERS times, under a shared lock_all, so origins run
 * at once), adds to a second one with Accumulate, and swaps a third with Compare_and_swap
 * loops. The final values are exact, and the values Fetch_and_op returned are all distinct
 * (each increment saw a different predecessor), which a lost update would break.
 */
#include "rmatest.h"

#define ITERS 200

int main(int argc, char **argv)
{
    int rank, size, *mem;
    dfct_init(&argc, &argv);
    rmat_args(argc, argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Win win = rmat_win(4, &mem, DFC_COMM_WORLD);
    for (int i = 0; i < 4; i++) mem[i] = 0; /* Win_allocate's memory is not zeroed */
    DFCT_OK(DFC_Win_fence(0, win));
    int one = 1, *seen = malloc(ITERS * sizeof *seen);
    DFCT_OK(DFC_Win_lock_all(0, win));
    for (int k = 0; k < ITERS; k++) {
        DFCT_OK(DFC_Fetch_and_op(&one, &seen[k], DFC_INT, 0, 0, DFC_SUM, win));
        DFCT_OK(DFC_Win_flush(0, win));
        int two = 2;
        DFCT_OK(DFC_Accumulate(&two, 1, DFC_INT, 0, 1, 1, DFC_INT, DFC_SUM, win));
        /* CAS loop: slot 2 += 3 */
        int cur = 0, res = -1;
        DFCT_OK(DFC_Get_accumulate(NULL, 0, DFC_INT, &cur, 1, DFC_INT, 0, 2, 1, DFC_INT, DFC_NO_OP,
                                   win));
        DFCT_OK(DFC_Win_flush(0, win));
        for (;;) {
            int neu = cur + 3;
            DFCT_OK(DFC_Compare_and_swap(&neu, &cur, &res, DFC_INT, 0, 2, win));
            DFCT_OK(DFC_Win_flush(0, win));
            if (res == cur) break;
            cur = res;
        }
    }
    DFCT_OK(DFC_Win_unlock_all(win));
    DFCT_OK(DFC_Win_fence(0, win));
    if (rank == 0) {
        DFCT_CHECK(mem[0] == size * ITERS, "fetch_and_op counter %d, expected %d", mem[0],
                   size * ITERS);
        DFCT_CHECK(mem[1] == 2 * size * ITERS, "accumulate counter %d, expected %d", mem[1],
                   2 * size * ITERS);
        DFCT_CHECK(mem[2] == 3 * size * ITERS, "CAS counter %d, expected %d", mem[2],
                   3 * size * ITERS);
    }
    /* All fetched values together are 0 .. size*ITERS-1, each once. */
    int *all = rank == 0 ? calloc((size_t)size * ITERS, sizeof *all) : NULL;
    DFCT_OK(DFC_Gather(seen, ITERS, DFC_INT, all, ITERS, DFC_INT, 0, DFC_COMM_WORLD));
    if (rank == 0) {
        char *hit = calloc((size_t)size * ITERS, 1);
        for (int i = 0; i < size * ITERS; i++) {
            int v = all[i];
            if (v < 0 || v >= size * ITERS || hit[v]) {
                DFCT_CHECK(0, "fetched value %d (index %d) out of range or seen twice", v, i);
                continue;
            }
            hit[v] = 1;
        }
        free(hit);
    }
    free(all);
    free(seen);
    rmat_free(&win, mem);
    return dfct_finalize();
}
