/*
 * modes.c - every synchronization mode moves the right data: fence, lock/unlock (shared and
 * exclusive), lock_all with flush, post/start/complete/wait (and test), request-based
 * operations; Put, Get, Accumulate, Get_accumulate, Fetch_and_op and Compare_and_swap.
 * Each rank owns N ints; values depend on (epoch, origin, index) and are checked element by
 * element after poisoning the destinations.
 */
#include "rmatest.h"

#define N 64
static int rank, size;

static int val(int epoch, int origin, int i) { return epoch * 100000 + origin * 1000 + i; }

/* Every rank puts its values into the slot of the next rank; checks what arrived. */
static void check_ring(const volatile int *mem, int epoch, const char *mode)
{
    int left = (rank - 1 + size) % size;
    for (int i = 0; i < N; i++)
        DFCT_CHECK(mem[i] == val(epoch, left, i), "%s: mem[%d] = %d, expected %d", mode, i, mem[i],
                   val(epoch, left, i));
}

static void fence_mode(DFC_Win win, int *mem)
{
    int src[N], got[N];
    int right = (rank + 1) % size;
    for (int i = 0; i < N; i++) src[i] = val(1, rank, i);
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOPRECEDE, win));
    DFCT_OK(DFC_Put(src, N, DFC_INT, right, 0, N, DFC_INT, win));
    DFCT_OK(DFC_Win_fence(0, win));
    check_ring(mem, 1, "fence put");
    for (int i = 0; i < N; i++) got[i] = -1;
    DFCT_OK(DFC_Get(got, N, DFC_INT, right, 0, N, DFC_INT, win)); /* right's memory: ours */
    DFCT_OK(DFC_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        DFCT_CHECK(got[i] == val(1, rank, i), "fence get[%d] = %d", i, got[i]);
    /* Every rank adds its rank+1 to every element of rank 0 */
    int add[N];
    for (int i = 0; i < N; i++) add[i] = rank + 1;
    DFCT_OK(DFC_Accumulate(add, N, DFC_INT, 0, 0, N, DFC_INT, DFC_SUM, win));
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOSUCCEED, win));
    if (rank == 0)
        for (int i = 0; i < N; i++) {
            int expect = val(1, size - 1, i) + size * (size + 1) / 2;
            DFCT_CHECK(mem[i] == expect, "fence acc mem[%d] = %d, expected %d", i, mem[i], expect);
        }
}

static void lock_mode(DFC_Win win, int *mem, int type)
{
    int src[N], got[N];
    int right = (rank + 1) % size;
    int epoch = type == DFC_LOCK_EXCLUSIVE ? 2 : 3;
    for (int i = 0; i < N; i++) src[i] = val(epoch, rank, i);
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFCT_OK(DFC_Win_lock(type, right, 0, win));
    DFCT_OK(DFC_Put(src, N, DFC_INT, right, 0, N, DFC_INT, win));
    DFCT_OK(DFC_Win_flush(right, win));
    for (int i = 0; i < N; i++) got[i] = -1;
    DFCT_OK(DFC_Get(got, N, DFC_INT, right, 0, N, DFC_INT, win));
    DFCT_OK(DFC_Win_unlock(right, win));
    for (int i = 0; i < N; i++)
        DFCT_CHECK(got[i] == val(epoch, rank, i), "lock %d get[%d] = %d", type, i, got[i]);
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFCT_OK(DFC_Win_lock(DFC_LOCK_EXCLUSIVE, rank, 0, win)); /* a local read in an epoch */
    check_ring(mem, epoch, type == DFC_LOCK_EXCLUSIVE ? "lock exclusive" : "lock shared");
    DFCT_OK(DFC_Win_unlock(rank, win));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
}

/* lock_all: each rank fetches-and-adds one counter per rank at rank 0, and swaps. */
static void lock_all_mode(DFC_Win win, int *mem)
{
    if (rank == 0) {
        DFCT_OK(DFC_Win_lock(DFC_LOCK_EXCLUSIVE, 0, 0, win));
        for (int i = 0; i < N; i++) mem[i] = 0;
        DFCT_OK(DFC_Win_unlock(0, win));
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFCT_OK(DFC_Win_lock_all(0, win));
    int one = 1, old = -1, seen = 0;
    for (int k = 0; k < 10; k++) {
        DFCT_OK(DFC_Fetch_and_op(&one, &old, DFC_INT, 0, 0, DFC_SUM, win));
        DFCT_OK(DFC_Win_flush(0, win));
        DFCT_CHECK(old >= seen && old < 10 * size, "fetch_and_op returned %d", old);
        seen = old + 1;
    }
    /* Compare_and_swap: slot 1+rank goes 0 -> rank+7, once; a second CAS fails */
    int neu = rank + 7, cmp = 0, res = -1;
    DFCT_OK(DFC_Compare_and_swap(&neu, &cmp, &res, DFC_INT, 0, 1 + rank, win));
    DFCT_OK(DFC_Win_flush_all(win));
    DFCT_CHECK(res == 0, "first CAS returned %d", res);
    int neu2 = 99;
    DFCT_OK(DFC_Compare_and_swap(&neu2, &cmp, &res, DFC_INT, 0, 1 + rank, win));
    DFCT_OK(DFC_Win_flush_local(0, win));
    DFCT_CHECK(res == rank + 7, "second CAS returned %d, expected %d", res, rank + 7);
    /* Get_accumulate with NO_OP reads atomically */
    int r2 = -1;
    DFCT_OK(DFC_Get_accumulate(NULL, 0, DFC_INT, &r2, 1, DFC_INT, 0, 1 + rank, 1, DFC_INT,
                               DFC_NO_OP, win));
    DFCT_OK(DFC_Win_flush_local_all(win));
    DFCT_CHECK(r2 == rank + 7, "NO_OP read %d", r2);
    DFCT_OK(DFC_Win_unlock_all(win));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    if (rank == 0) {
        DFCT_OK(DFC_Win_lock(DFC_LOCK_SHARED, 0, 0, win));
        DFCT_CHECK(mem[0] == 10 * size, "counter %d, expected %d", mem[0], 10 * size);
        for (int r = 0; r < size && r + 1 < N; r++)
            DFCT_CHECK(mem[1 + r] == r + 7, "CAS slot %d = %d", r, mem[1 + r]);
        DFCT_OK(DFC_Win_unlock(0, win));
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
}

/* post/start/complete/wait between neighbors: each rank exposes to its left, accesses its
 * right; rank 0 waits with Win_test. */
static void pscw_mode(DFC_Win win, int *mem)
{
    DFC_Group world, left_g, right_g;
    int left = (rank - 1 + size) % size, right = (rank + 1) % size, src[N];
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &world));
    DFCT_OK(DFC_Group_incl(world, 1, &left, &left_g));
    DFCT_OK(DFC_Group_incl(world, 1, &right, &right_g));
    for (int i = 0; i < N; i++) {
        src[i] = val(4, rank, i);
        mem[i] = -1;
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFCT_OK(DFC_Win_post(left_g, 0, win));
    DFCT_OK(DFC_Win_start(right_g, 0, win));
    DFCT_OK(DFC_Put(src, N / 2, DFC_INT, right, 0, N / 2, DFC_INT, win));
    DFCT_OK(DFC_Accumulate(src + N / 2, N / 2, DFC_INT, right, N / 2, N / 2, DFC_INT, DFC_REPLACE,
                           win));
    DFCT_OK(DFC_Win_complete(win));
    if (rank == 0) {
        int flag = 0;
        while (!flag) DFCT_OK(DFC_Win_test(win, &flag));
    } else DFCT_OK(DFC_Win_wait(win));
    check_ring(mem, 4, "pscw");
    DFC_Group_free(&left_g);
    DFC_Group_free(&right_g);
    DFC_Group_free(&world);
}

/* Request-based operations inside lock_all. */
static void request_mode(DFC_Win win, int *mem)
{
    int right = (rank + 1) % size, src[N], got[N], fetched[N];
    DFC_Request req[3];
    for (int i = 0; i < N; i++) {
        src[i] = val(5, rank, i);
        got[i] = fetched[i] = -1;
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFCT_OK(DFC_Win_lock_all(0, win));
    DFCT_OK(DFC_Rput(src, N, DFC_INT, right, 0, N, DFC_INT, win, &req[0]));
    DFCT_OK(DFC_Wait(&req[0], DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Win_flush(right, win));
    DFCT_OK(DFC_Rget(got, N, DFC_INT, right, 0, N, DFC_INT, win, &req[1]));
    DFCT_OK(DFC_Rget_accumulate(src, 1, DFC_INT, fetched, 1, DFC_INT, right, 0, 1, DFC_INT, DFC_SUM,
                                win, &req[2]));
    DFCT_OK(DFC_Waitall(2, &req[1], DFC_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) DFCT_CHECK(got[i] == val(5, rank, i), "rget[%d] = %d", i, got[i]);
    DFCT_CHECK(fetched[0] == val(5, rank, 0), "rget_accumulate fetched %d", fetched[0]);
    DFCT_OK(DFC_Raccumulate(src, 1, DFC_INT, right, 1, 1, DFC_INT, DFC_MAX, win, &req[0]));
    DFCT_OK(DFC_Wait(&req[0], DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Win_unlock_all(win));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    int left = (rank - 1 + size) % size;
    DFCT_OK(DFC_Win_lock(DFC_LOCK_SHARED, rank, 0, win));
    DFCT_CHECK(mem[0] == 2 * val(5, left, 0), "rget_accumulate left %d", mem[0]);
    DFCT_CHECK(mem[1] == val(5, left, 1), "raccumulate MAX left %d", mem[1]);
    DFCT_OK(DFC_Win_unlock(rank, win));
}

/* Puts and Accumulates larger than the copy threshold travel straight from the origin buffer
 * (win_am.c): two Puts back to back, then a small one into the same memory, must land in
 * order; so must a large Accumulate and a small one after it. */
#define BIG (300 * 1000)
static void large_mode(void)
{
    int *mem, right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int *src = malloc(BIG * sizeof *src), *got = malloc(BIG * sizeof *got);
    DFC_Win win = rmat_win(BIG, &mem, DFC_COMM_WORLD);
    for (int i = 0; i < BIG; i++) {
        mem[i] = -1;
        src[i] = rank * 1000000 + i;
        got[i] = -1;
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFC_Request req;
    DFCT_OK(DFC_Win_lock(DFC_LOCK_EXCLUSIVE, right, 0, win));
    DFCT_OK(DFC_Put(src, BIG / 2, DFC_INT, right, 0, BIG / 2, DFC_INT, win));
    DFCT_OK(DFC_Rput(src + BIG / 2, BIG / 2, DFC_INT, right, BIG / 2, BIG / 2, DFC_INT, win, &req));
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    int seven = 7;
    DFCT_OK(DFC_Put(&seven, 1, DFC_INT, right, BIG - 1, 1, DFC_INT, win)); /* after the big one */
    DFCT_OK(DFC_Win_flush(right, win));
    DFCT_OK(DFC_Get(got, BIG, DFC_INT, right, 0, BIG, DFC_INT, win));
    DFCT_OK(DFC_Win_unlock(right, win));
    int bad = 0;
    for (int i = 0; i < BIG; i++) {
        int e = i == BIG - 1 ? 7 : rank * 1000000 + i;
        if (got[i] != e && bad++ < 5)
            DFCT_CHECK(0, "large get[%d] = %d, expected %d", i, got[i], e);
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    for (int i = 0; i < BIG; i++) {
        int e = i == BIG - 1 ? 7 : left * 1000000 + i;
        if (mem[i] != e && bad++ < 10)
            DFCT_CHECK(0, "large put mem[%d] = %d, expected %d", i, mem[i], e);
    }
    /* Large Accumulates travel the same way, applied once their data is in; a small REPLACE
     * issued after one lands after it. */
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD)); /* every mem checked before it changes */
    DFCT_OK(DFC_Win_lock(DFC_LOCK_EXCLUSIVE, right, 0, win));
    DFCT_OK(DFC_Accumulate(src, BIG / 2, DFC_INT, right, 0, BIG / 2, DFC_INT, DFC_SUM, win));
    DFCT_OK(DFC_Accumulate(&seven, 1, DFC_INT, right, 0, 1, DFC_INT, DFC_REPLACE, win));
    DFCT_OK(DFC_Win_flush(right, win));
    for (int i = 0; i < BIG; i++) got[i] = -1;
    DFCT_OK(DFC_Get(got, BIG / 2, DFC_INT, right, 0, BIG / 2, DFC_INT, win));
    DFCT_OK(DFC_Win_unlock(right, win));
    for (int i = 0; i < BIG / 2; i++) {
        int e = i == 0 ? 7 : 2 * (rank * 1000000 + i);
        if (got[i] != e && bad++ < 15)
            DFCT_CHECK(0, "large accumulate [%d] = %d, expected %d", i, got[i], e);
    }
    rmat_free(&win, mem);
    free(src);
    free(got);
}

static void attrs(DFC_Win win, int *mem)
{
    void *base;
    DFC_Aint *sz;
    int *unit, *flavor, *model, flag = 0, len;
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_BASE, &base, &flag));
    DFCT_CHECK(flag && base == mem, "WIN_BASE %p, expected %p", base, (void *)mem);
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_SIZE, &sz, &flag));
    DFCT_CHECK(flag && *sz == N * (DFC_Aint)sizeof(int), "WIN_SIZE %lld", (long long)*sz);
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_DISP_UNIT, &unit, &flag));
    DFCT_CHECK(flag && *unit == (int)sizeof(int), "WIN_DISP_UNIT %d", *unit);
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_CREATE_FLAVOR, &flavor, &flag));
    DFCT_CHECK(*flavor == (rmat_flavor_create ? DFC_WIN_FLAVOR_CREATE : DFC_WIN_FLAVOR_ALLOCATE),
               "WIN_CREATE_FLAVOR %d", *flavor);
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_MODEL, &model, &flag));
    DFCT_CHECK(*model == DFC_WIN_UNIFIED, "WIN_MODEL %d", *model);
    char name[DFC_MAX_OBJECT_NAME];
    DFCT_OK(DFC_Win_get_name(win, name, &len));
    DFCT_CHECK(len == 0 && name[0] == 0, "default name \"%s\"", name);
    DFCT_OK(DFC_Win_set_name(win, "halo window"));
    DFCT_OK(DFC_Win_get_name(win, name, &len));
    DFCT_CHECK(len == 11 && !strcmp(name, "halo window"), "name \"%s\"", name);
    DFC_Group g;
    int gsize, grank;
    DFCT_OK(DFC_Win_get_group(win, &g));
    DFC_Group_size(g, &gsize);
    DFC_Group_rank(g, &grank);
    DFCT_CHECK(gsize == size && grank == rank, "group %d/%d", grank, gsize);
    DFC_Group_free(&g);
    DFC_Info info, used;
    char v[64];
    DFC_Info_create(&info);
    DFC_Info_set(info, "no_locks", "false");
    DFCT_OK(DFC_Win_set_info(win, info));
    DFCT_OK(DFC_Win_get_info(win, &used));
    DFC_Info_get(used, "no_locks", sizeof v - 1, v, &flag);
    DFCT_CHECK(flag && !strcmp(v, "false"), "info no_locks %d %s", flag, v);
    DFC_Info_free(&info);
    DFC_Info_free(&used);
    DFC_Errhandler eh;
    DFCT_OK(DFC_Win_get_errhandler(win, &eh));
    DFCT_CHECK(eh == DFC_ERRORS_ARE_FATAL, "default errhandler 0x%x", (unsigned)eh);
}

int main(int argc, char **argv)
{
    int *mem;
    dfct_init(&argc, &argv);
    rmat_args(argc, argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Win win = rmat_win(N, &mem, DFC_COMM_WORLD);
    attrs(win, mem);
    fence_mode(win, mem);
    lock_mode(win, mem, DFC_LOCK_EXCLUSIVE);
    lock_mode(win, mem, DFC_LOCK_SHARED);
    lock_all_mode(win, mem);
    pscw_mode(win, mem);
    request_mode(win, mem);
    large_mode();
    DFCT_OK(DFC_Win_sync(win));
    rmat_free(&win, mem);
    return dfct_finalize();
}
