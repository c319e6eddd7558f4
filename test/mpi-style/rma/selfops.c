/*
 * selfops.c - operations whose target is the calling process are done when the call returns
 * (DFC's promise, as Open MPI and MPICH behave; dfc(7)): the result is there before any
 * synchronization and the buffers may be freed at once. mpi4py's test_rma relies on it: on
 * a window over DFC_COMM_SELF it frees a Compare_and_swap's 1-byte buffers (Alloc_mem) before
 * the closing fence, and DFC, which sent the operation to itself as a message, wrote the
 * reply into the freed result buffer inside that fence (a heap corruption glibc noticed
 * later; ASan names it). The same sequence here, on DFC_COMM_SELF and on DFC_COMM_WORLD
 * targeting oneself, for every kind of operation, under fence and lock epochs, and on a
 * dynamic window (an address outside the attached memory fails at the call).
 */
#include "rmatest.h"

#define N 8

/* The window's memory holds i * 10 + 1 at element i before each round. */
static void fill(int *mem)
{
    for (int i = 0; i < N; i++) mem[i] = i * 10 + 1;
}

/* The mpi4py sequence: 1-byte buffers from Alloc_mem, freed before the closing fence. */
static void cas_bytes(DFC_Win win, int me, unsigned char *winbytes)
{
    unsigned char *o, *c, *r;
    DFCT_OK(DFC_Win_fence(0, win));
    DFCT_OK(DFC_Alloc_mem(1, DFC_INFO_NULL, &o));
    DFCT_OK(DFC_Alloc_mem(1, DFC_INFO_NULL, &c));
    DFCT_OK(DFC_Alloc_mem(1, DFC_INFO_NULL, &r));
    *o = 0x5a;
    *c = winbytes[0]; /* equal: the swap happens */
    *r = 0xee;
    unsigned char old = winbytes[0];
    DFCT_OK(DFC_Compare_and_swap(o, c, r, DFC_BYTE, me, 0, win));
    DFCT_CHECK(*r == old, "Compare_and_swap to itself: result %#x before the fence, expected %#x",
               *r, old);
    DFCT_OK(DFC_Free_mem(o));
    DFCT_OK(DFC_Free_mem(c));
    DFCT_OK(DFC_Free_mem(r));
    DFCT_OK(DFC_Win_fence(0, win));
    DFCT_CHECK(winbytes[0] == 0x5a, "Compare_and_swap to itself: window byte %#x, expected 0x5a",
               winbytes[0]);
}

/* Every kind, from malloc'd buffers checked and freed before the epoch ends. */
static void every_kind(DFC_Win win, int me, int *mem)
{
    int *src = malloc(N * sizeof *src), *res = malloc(N * sizeof *res);
    for (int i = 0; i < N; i++) src[i] = 1000 + i, res[i] = -7;
    DFCT_OK(DFC_Put(src, 2, DFC_INT, me, 0, 2, DFC_INT, win));
    DFCT_CHECK(mem[0] == 1000 && mem[1] == 1001, "Put to itself: %d %d", mem[0], mem[1]);
    DFCT_OK(DFC_Get(res, 2, DFC_INT, me, 2, 2, DFC_INT, win));
    DFCT_CHECK(res[0] == 21 && res[1] == 31 && res[2] == -7, "Get from itself: %d %d %d", res[0],
               res[1], res[2]);
    DFCT_OK(DFC_Accumulate(src, 1, DFC_INT, me, 4, 1, DFC_INT, DFC_SUM, win));
    DFCT_CHECK(mem[4] == 41 + 1000, "Accumulate to itself: %d", mem[4]);
    res[0] = -7;
    DFCT_OK(DFC_Get_accumulate(src, 1, DFC_INT, res, 1, DFC_INT, me, 5, 1, DFC_INT, DFC_MAX, win));
    DFCT_CHECK(res[0] == 51 && mem[5] == 1000, "Get_accumulate on itself: old %d, now %d", res[0],
               mem[5]);
    res[0] = -7;
    DFCT_OK(DFC_Fetch_and_op(NULL, res, DFC_INT, me, 6, DFC_NO_OP, win));
    DFCT_CHECK(res[0] == 61 && mem[6] == 61, "Fetch_and_op(NO_OP) on itself: %d, now %d", res[0],
               mem[6]);
    int cmp = 999; /* differs: no swap */
    res[0] = -7;
    DFCT_OK(DFC_Compare_and_swap(src, &cmp, res, DFC_INT, me, 7, win));
    DFCT_CHECK(res[0] == 71 && mem[7] == 71, "Compare_and_swap (no swap) on itself: %d, now %d",
               res[0], mem[7]);
    free(src);
    free(res);
}

/* A 0-element accumulate combines nothing: its op need only be predefined (MPICH and Open MPI
 * accept DFC_SUM on DFC_BYTE there; mpi4py's test_rma calls it); with elements it fails. */
static void zero_count(DFC_Win win, int me, int *mem)
{
    unsigned char o = 3, r = 0xee;
    DFCT_OK(DFC_Win_set_errhandler(win, DFC_ERRORS_RETURN));
    DFCT_OK(DFC_Get_accumulate(&o, 0, DFC_BYTE, &r, 0, DFC_BYTE, me, 0, 0, DFC_BYTE, DFC_SUM, win));
    DFCT_OK(DFC_Accumulate(&o, 0, DFC_BYTE, me, 0, 0, DFC_BYTE, DFC_PROD, win));
    DFCT_CHECK(r == 0xee && mem[0] == 1000, "a 0-element accumulate changed %#x, %d", r, mem[0]);
    DFCT_FAILS(DFC_Get_accumulate(&o, 1, DFC_BYTE, &r, 1, DFC_BYTE, me, 0, 1, DFC_BYTE, DFC_SUM,
                                  win),
               DFC_ERR_OP,
               "DFC_Get_accumulate: invalid argument op: DFC_SUM is not defined for "
               "DFC_BYTE");
}

/* Request-based forms inside a lock: complete at once, the result there. */
static void requests(DFC_Win win, int me, int *mem)
{
    int *res = malloc(2 * sizeof *res), one = 1, flag = 0;
    res[0] = res[1] = -7;
    DFC_Request rq;
    DFCT_OK(DFC_Win_lock(DFC_LOCK_EXCLUSIVE, me, 0, win));
    DFCT_OK(DFC_Rget(res, 2, DFC_INT, me, 1, 2, DFC_INT, win, &rq));
    DFCT_OK(DFC_Test(&rq, &flag, DFC_STATUS_IGNORE));
    DFCT_CHECK(flag && res[0] == 11 && res[1] == 21, "Rget from itself: flag %d, %d %d", flag,
               res[0], res[1]);
    if (!flag) DFCT_OK(DFC_Wait(&rq, DFC_STATUS_IGNORE));
    free(res);
    DFCT_OK(DFC_Raccumulate(&one, 1, DFC_INT, me, 3, 1, DFC_INT, DFC_SUM, win, &rq));
    DFCT_OK(DFC_Wait(&rq, DFC_STATUS_IGNORE));
    DFCT_CHECK(mem[3] == 32, "Raccumulate on itself: %d", mem[3]);
    DFCT_OK(DFC_Win_unlock(me, win));
}

static void on_comm(DFC_Comm comm)
{
    int me, *mem;
    DFC_Comm_rank(comm, &me);
    DFC_Win win = rmat_win(N, &mem, comm);
    fill(mem);
    DFCT_OK(DFC_Win_fence(0, win));
    every_kind(win, me, mem);
    zero_count(win, me, mem);
    DFCT_OK(DFC_Win_fence(0, win));
    fill(mem);
    DFCT_OK(DFC_Win_fence(0, win));
    requests(win, me, mem);
    cas_bytes(win, me, (unsigned char *)mem);
    rmat_free(&win, mem);
}

/* Dynamic: the address is checked against the attached memory at the call. */
static void dynamic(void)
{
    DFC_Win win;
    int me, *mem = calloc(N, sizeof *mem), out = 0;
    DFC_Comm_rank(DFC_COMM_WORLD, &me);
    DFCT_OK(DFC_Win_create_dynamic(DFC_INFO_NULL, DFC_COMM_WORLD, &win));
    DFCT_OK(DFC_Win_attach(win, mem, N * sizeof *mem));
    DFCT_OK(DFC_Win_set_errhandler(win, DFC_ERRORS_RETURN));
    int v = 77;
    DFCT_OK(DFC_Win_lock(DFC_LOCK_SHARED, me, 0, win));
    DFCT_OK(DFC_Put(&v, 1, DFC_INT, me, (DFC_Aint)(uintptr_t)(mem + 2), 1, DFC_INT, win));
    DFCT_CHECK(mem[2] == 77, "Put to itself on a dynamic window: %d", mem[2]);
    DFCT_FAILS(DFC_Get(&out, 1, DFC_INT, me, (DFC_Aint)(uintptr_t)(mem + N), 1, DFC_INT, win),
               DFC_ERR_RMA_RANGE, "DFC_Get: invalid argument target_disp");
    DFCT_OK(DFC_Win_unlock(me, win));
    DFCT_OK(DFC_Win_detach(win, mem));
    DFCT_OK(DFC_Win_free(&win));
    free(mem);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    rmat_args(argc, argv);
    on_comm(DFC_COMM_SELF);
    on_comm(DFC_COMM_WORLD);
    dynamic();
    return dfct_finalize();
}
