/*
 * fastpath.c - the shapes that shared-memory windows take inline (api_win_ops.c and
 * api_win_sync.c: Put, Get and Accumulate of one dense type, lock, unlock, flush; fence as a
 * barrier on flags in the segment), checked element by element, beside the shapes that
 * leave them (other types on the two sides, errors). Run with -flavor=allocate (the fast
 * paths on one node, messages across nodes) and -flavor=create (messages).
 *  1. Exclusive-lock counter: every rank ITERS times locks rank 0 exclusively, Gets the
 *     counter, flushes, Puts it plus one, unlocks. A lock that let two in, a Get that did not
 *     see the last holder's Put, or an unlock that freed the lock before the Put was visible
 *     loses an increment: the total must be exact.
 *  2. Concurrent accumulates: every rank adds to one int at rank 0 with Accumulate (the fast
 *     path) and Fetch_and_op (the general path) in turn, under a shared lock (and lock_all),
 *     and to vectors of 37 doubles and 70 ints (the op table's loop) and of 3 ints of both
 *     signs and 4 doubles (the inline DFC_SUM of at most 16 items): exact totals.
 *  3. Fence epochs: FENCES rounds, each rank Puts a fresh pattern (length and place change
 *     every round) into its right neighbour and Gets its left neighbour's previous one; after
 *     the fence each side checks every element. A fence that let a rank through early shows
 *     the previous round's values. In four rounds one rank is 5 ms late, so that the others
 *     wait asleep (woken by its store).
 *  4. Put then flush then Get of the same target memory, of DFC_DOUBLE, DFC_BYTE and a
 *     contiguous derived type; a Put of two ints into one DFC_LONG_LONG of the target (the
 *     general path); the window's last element (in range) and one past it (DFC_ERR_RMA_RANGE),
 *     an operation outside any epoch (DFC_ERR_RMA_SYNC), Accumulate with DFC_NO_OP
 *     (DFC_ERR_OP), flush and unlock without a lock (DFC_ERR_RMA_SYNC).
 */
#include <unistd.h>

#include "rmatest.h"

#define ITERS 300
#define FENCES 400
#define NWIN 256 /* ints per process */

static void excl_counter(DFC_Win win, int *mem, int rank, int size)
{
    for (int k = 0; k < ITERS; k++) {
        int v = -1;
        DFCT_OK(DFC_Win_lock(DFC_LOCK_EXCLUSIVE, 0, 0, win));
        DFCT_OK(DFC_Get(&v, 1, DFC_INT, 0, 3, 1, DFC_INT, win));
        DFCT_OK(DFC_Win_flush(0, win));
        v++;
        DFCT_OK(DFC_Put(&v, 1, DFC_INT, 0, 3, 1, DFC_INT, win));
        DFCT_OK(DFC_Win_unlock(0, win));
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD)); /* every unlock completed at rank 0 */
    if (rank == 0)
        DFCT_CHECK(mem[3] == ITERS * size, "exclusive counter %d, expected %d", mem[3],
                   ITERS * size);
}

static void accumulates(DFC_Win win, int *mem, int rank, int size)
{
    double dv[37];
    int iv[70], sv[3] = {-3, 5, -7};
    double sd[4] = {0.25, -1.5, 3.0, 1e10};
    for (int i = 0; i < 37; i++) dv[i] = i + 0.5;
    for (int i = 0; i < 70; i++) iv[i] = i + 1;
    for (int k = 0; k < ITERS; k++) {
        int one = 1, old = -1;
        if (k % 2) DFCT_OK(DFC_Win_lock_all(0, win));
        else DFCT_OK(DFC_Win_lock(DFC_LOCK_SHARED, 0, 0, win));
        DFCT_OK(DFC_Accumulate(&one, 1, DFC_INT, 0, 4, 1, DFC_INT, DFC_SUM, win));
        DFCT_OK(DFC_Fetch_and_op(&one, &old, DFC_INT, 0, 4, DFC_SUM, win));
        /* 37 doubles from int 8 on (disp_unit 4: byte 32, aligned for doubles) */
        DFCT_OK(DFC_Accumulate(dv, 37, DFC_DOUBLE, 0, 8, 37, DFC_DOUBLE, DFC_SUM, win));
        DFCT_OK(DFC_Accumulate(iv, 70, DFC_INT, 0, 100, 70, DFC_INT, DFC_SUM, win));
        DFCT_OK(DFC_Accumulate(sv, 3, DFC_INT, 0, 200, 3, DFC_INT, DFC_SUM, win));
        DFCT_OK(DFC_Accumulate(sd, 4, DFC_DOUBLE, 0, 210, 4, DFC_DOUBLE, DFC_SUM, win));
        DFCT_OK(DFC_Win_flush(0, win));
        DFCT_CHECK(old >= 0 && old < 2 * ITERS * size, "Fetch_and_op saw %d", old);
        if (k % 2) DFCT_OK(DFC_Win_unlock_all(win));
        else DFCT_OK(DFC_Win_unlock(0, win));
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    if (rank != 0) return;
    DFCT_CHECK(mem[4] == 2 * ITERS * size, "accumulated %d, expected %d", mem[4], 2 * ITERS * size);
    const double *d = (const double *)(mem + 8);
    for (int i = 0; i < 37; i++)
        DFCT_CHECK(d[i] == (i + 0.5) * ITERS * size, "double %d: %g, expected %g", i, d[i],
                   (i + 0.5) * ITERS * size);
    for (int i = 0; i < 70; i++)
        DFCT_CHECK(mem[100 + i] == (i + 1) * ITERS * size, "int %d: %d, expected %d", 100 + i,
                   mem[100 + i], (i + 1) * ITERS * size);
    for (int i = 0; i < 3; i++)
        DFCT_CHECK(mem[200 + i] == sv[i] * ITERS * size, "int %d: %d, expected %d", 200 + i,
                   mem[200 + i], sv[i] * ITERS * size);
    const double *e = (const double *)(mem + 210);
    for (int i = 0; i < 4; i++)
        DFCT_CHECK(e[i] == sd[i] * ITERS * size, "double at int 210, %d: %g, expected %g", i, e[i],
                   sd[i] * ITERS * size);
}

static int pattern(int round, int from, int i) { return round * 100003 + from * 1009 + i + 1; }

static void fences(DFC_Win win, int *mem, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int buf[64], got[64];
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOPRECEDE, win));
    for (int r = 0; r < FENCES; r++) {
        /* even rounds write the lower half, odd ones the upper: the Get of the round before's
         * place reads what no one writes in this round */
        int n = 1 + r % 64, at = (r % 2) * 128 + (r * 7) % 64;
        for (int i = 0; i < 64; i++) buf[i] = pattern(r, rank, i), got[i] = -7;
        /* now and then one rank is late: the others wait long enough to sleep on their flags
         * (win_sync.c, BAR_SLEEP_NS), and its store must wake them */
        if (r % 100 == 50 && rank == r / 100 % size) usleep(5000);
        DFCT_OK(DFC_Put(buf, n, DFC_INT, right, at, n, DFC_INT, win));
        /* the left neighbour's Put of the previous round sits in its own window at its
         * previous place (my Put went to my right, not to it) */
        int pn = 1 + (r + 63) % 64, pat = ((r + 1) % 2) * 128 + ((r + 63) * 7) % 64;
        if (r > 0) DFCT_OK(DFC_Get(got, pn, DFC_INT, left, pat, pn, DFC_INT, win));
        DFCT_OK(DFC_Win_fence(0, win));
        for (int i = 0; i < n; i++)
            DFCT_CHECK(mem[at + i] == pattern(r, left, i), "fence %d: int %d is %d, expected %d", r,
                       at + i, mem[at + i], pattern(r, left, i));
        /* left's window held what left's left put in round r-1 */
        int ll = (left - 1 + size) % size;
        for (int i = 0; r > 0 && i < pn; i++)
            DFCT_CHECK(got[i] == pattern(r - 1, ll, i), "fence %d: Get %d is %d, expected %d", r, i,
                       got[i], pattern(r - 1, ll, i));
        for (int i = pn; r > 0 && i < 64; i++)
            DFCT_CHECK(got[i] == -7, "fence %d: Get wrote past its end at %d", r, i);
        DFCT_OK(DFC_Win_fence(0, win)); /* reads done before the next round's Puts */
    }
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOSUCCEED, win));
}

static void put_get_types(DFC_Win win, int rank, int size)
{
    int t = (rank + 1) % size;
    double d[5] = {1.25, -2.5, 3.75, 1e300, -0.0}, dr[5];
    unsigned char b[13], br[13];
    for (int i = 0; i < 13; i++) b[i] = (unsigned char)(rank * 13 + i), br[i] = 0xee;
    for (int i = 0; i < 5; i++) dr[i] = -99;
    DFC_Datatype three;
    DFCT_OK(DFC_Type_contiguous(3, DFC_INT, &three));
    DFCT_OK(DFC_Type_commit(&three));
    int tri[6] = {rank, 7, 8, 9, 10, -rank}, trr[6] = {0};
    DFCT_OK(DFC_Win_lock(DFC_LOCK_EXCLUSIVE, t, 0, win));
    DFCT_OK(DFC_Put(d, 5, DFC_DOUBLE, t, 100, 5, DFC_DOUBLE, win));
    DFCT_OK(DFC_Put(b, 13, DFC_BYTE, t, 120, 13, DFC_BYTE, win)); /* byte 480 */
    DFCT_OK(DFC_Put(tri, 2, three, t, 130, 2, three, win));
    int pair[2] = {0x1234567, -5};
    DFCT_OK(DFC_Put(pair, 2, DFC_INT, t, 140, 1, DFC_LONG_LONG, win)); /* general path */
    DFCT_OK(DFC_Win_flush(t, win));
    DFCT_OK(DFC_Get(dr, 5, DFC_DOUBLE, t, 100, 5, DFC_DOUBLE, win));
    DFCT_OK(DFC_Get(br, 13, DFC_BYTE, t, 120, 13, DFC_BYTE, win));
    DFCT_OK(DFC_Get(trr, 2, three, t, 130, 2, three, win));
    long long ll = 0;
    DFCT_OK(DFC_Get(&ll, 1, DFC_LONG_LONG, t, 140, 1, DFC_LONG_LONG, win));
    int last = 4242 + rank, lastr = 0;
    DFCT_OK(DFC_Put(&last, 1, DFC_INT, t, NWIN - 1, 1, DFC_INT, win));
    DFCT_OK(DFC_Get(&lastr, 1, DFC_INT, t, NWIN - 1, 1, DFC_INT, win));
    DFCT_FAILS(DFC_Put(&last, 1, DFC_INT, t, NWIN, 1, DFC_INT, win), DFC_ERR_RMA_RANGE,
               "DFC_Put: invalid argument target_disp");
    DFCT_FAILS(DFC_Get(&last, 2, DFC_INT, t, NWIN - 1, 2, DFC_INT, win), DFC_ERR_RMA_RANGE,
               "DFC_Get: invalid argument target_disp");
    DFCT_FAILS(DFC_Accumulate(&last, 1, DFC_INT, t, 0, 1, DFC_INT, DFC_NO_OP, win), DFC_ERR_OP,
               "DFC_NO_OP");
    DFCT_FAILS(DFC_Win_lock(DFC_LOCK_SHARED, t, 0, win), DFC_ERR_RMA_SYNC, "already holds");
    DFCT_OK(DFC_Win_unlock(t, win));
    DFCT_FAILS(DFC_Win_flush(t, win), DFC_ERR_RMA_SYNC, "no passive-target epoch");
    DFCT_FAILS(DFC_Win_unlock(t, win), DFC_ERR_RMA_SYNC, "holds no lock");
    DFCT_FAILS(DFC_Put(d, 1, DFC_DOUBLE, t, 0, 1, DFC_DOUBLE, win), DFC_ERR_RMA_SYNC,
               "no access epoch");
    for (int i = 0; i < 5; i++)
        DFCT_CHECK(dr[i] == d[i], "double %d: %g, expected %g", i, dr[i], d[i]);
    for (int i = 0; i < 13; i++)
        DFCT_CHECK(br[i] == b[i], "byte %d: %d, expected %d", i, br[i], b[i]);
    for (int i = 0; i < 6; i++)
        DFCT_CHECK(trr[i] == tri[i], "int of the derived type %d: %d, expected %d", i, trr[i],
                   tri[i]);
    long long want;
    memcpy(&want, pair, sizeof want);
    DFCT_CHECK(ll == want, "the two ints as DFC_LONG_LONG: %llx, expected %llx",
               (unsigned long long)ll, (unsigned long long)want);
    DFCT_CHECK(lastr == last, "last element %d, expected %d", lastr, last);
    DFCT_OK(DFC_Type_free(&three));
}

int main(int argc, char **argv)
{
    int rank, size, *mem;
    dfct_init(&argc, &argv);
    rmat_args(argc, argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Win win = rmat_win(NWIN, &mem, DFC_COMM_WORLD);
    DFCT_OK(DFC_Win_set_errhandler(win, DFC_ERRORS_RETURN));
    for (int i = 0; i < NWIN; i++) mem[i] = 0;
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOSUCCEED, win)); /* zeros everywhere, no epoch open */
    excl_counter(win, mem, rank, size);
    accumulates(win, mem, rank, size);
    fences(win, mem, rank, size);
    put_get_types(win, rank, size);
    rmat_free(&win, mem);
    return dfct_finalize();
}
