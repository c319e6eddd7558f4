/*
 * devwin - one-sided communication on windows over device memory (dfc(7) "Device-memory
 * windows"): Win_create on cudaMalloc'd memory; Put and Get (straight through CUDA IPC on one
 * node, through the target's messages across nodes), Accumulate, Get_accumulate,
 * Fetch_and_op and Compare_and_swap (applied by the target, atomic) under every
 * synchronization mode: fence, lock/unlock (exclusive and shared) with flush and
 * flush_local, lock_all with flush_all and request-based Rput/Rget, post/start/complete/wait
 * and Win_test; origin and result buffers in host and in device memory; sizes on both sides
 * of the message path's copy limit (16 KiB). A Fetch_and_op counter incremented by every
 * rank must hand out every value exactly once; Compare_and_swap must let exactly one rank
 * win; a 2D halo exchange by Put and fence on device tiles; a dynamic window with device
 * memory attached; bad input (range, epoch, NULL base) gets its error class.
 *
 * Windows are poisoned before each case and checked element by element (the elements past
 * the ones written must stay poison). Every device access of the test is a cudaMemcpy, so it
 * runs against the CUDA stand-in of CI (pt2pt/devwinfake, FAKE_CUDART_GUARD=1, where a load
 * or store of the library on device memory faults) as on a GPU. A watchdog fails a hang.
 * -max=N: the largest element count per operation.
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devtest.h"

#define POISON (-7)
enum { HOST, DEV };
static const char *where_name[] = {"host", "device"};
static int rank, size, left, right;
static int wlen; /* ints in each rank's window */

static int val(int epoch, int origin, int i) { return epoch * 1000003 + origin * 65537 + i; }

static int *mk(int where, size_t n)
{
    void *p;
    if (where == DEV) CUDA_OK(cudaMalloc(&p, n * sizeof(int) + 1));
    else if (!(p = malloc(n * sizeof(int) + 1))) exit(2);
    return p;
}

static void release(int where, void *p)
{
    if (where == DEV) CUDA_OK(cudaFree(p));
    else free(p);
}

/* Host copies in and out of a buffer of either kind. */
static void put_in(int where, int *dst, const int *h, size_t n)
{
    if (where == DEV) DEV_UPLOAD(dst, h, n * sizeof(int));
    else memcpy(dst, h, n * sizeof(int));
}

static void take_out(int where, int *h, const int *src, size_t n)
{
    if (where == DEV) CUDA_OK(cudaMemcpy(h, src, n * sizeof(int), cudaMemcpyDeviceToHost));
    else memcpy(h, src, n * sizeof(int));
}

static void fill(int where, int *buf, size_t n, int epoch, int origin)
{
    int *h = malloc(n * sizeof(int) + 1);
    for (size_t i = 0; i < n; i++) h[i] = origin < 0 ? POISON : val(epoch, origin, (int)i);
    put_in(where, buf, h, n);
    CUDA_OK(cudaDeviceSynchronize()); /* the buffer is ready before DFC reads it */
    free(h);
}

/* Checks n elements of (epoch, origin) (origin < 0: poison) at buf[from..from+n). */
static void expect(const char *what, int where, const int *buf, int from, int n, int epoch,
                   int origin)
{
    int *h = malloc((size_t)(from + n) * sizeof(int) + 1);
    take_out(where, h, buf, (size_t)(from + n));
    for (int i = from; i < from + n; i++) {
        int e = origin < 0 ? POISON : val(epoch, origin, i - from);
        DFCT_CHECK(h[i] == e, "%s: [%d] = %d, expected %d", what, i, h[i], e);
    }
    free(h);
}

/* Every rank's window back to poison, then a barrier so that nobody writes before. */
static void poison(int *win_mem)
{
    fill(DEV, win_mem, (size_t)wlen, 0, -1);
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
}

/* Fence: Put n to the right, Get n back from the right, Accumulate into rank 0. */
static void fence_case(DFC_Win win, int *mem, int ow, int n, int epoch)
{
    char what[96];
    int *src = mk(ow, (size_t)n), *got = mk(ow, (size_t)n);
    poison(mem);
    fill(ow, src, (size_t)n, epoch, rank);
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOPRECEDE, win));
    DFCT_OK(DFC_Put(src, n, DFC_INT, right, 0, n, DFC_INT, win));
    DFCT_OK(DFC_Win_fence(0, win));
    snprintf(what, sizeof what, "fence put n=%d from %s", n, where_name[ow]);
    expect(what, DEV, mem, 0, n, epoch, left);
    expect(what, DEV, mem, n, wlen - n, 0, -1);
    fill(ow, got, (size_t)n, 0, -1);
    DFCT_OK(DFC_Get(got, n, DFC_INT, right, 0, n, DFC_INT, win));
    DFCT_OK(DFC_Win_fence(0, win));
    snprintf(what, sizeof what, "fence get n=%d into %s", n, where_name[ow]);
    expect(what, ow, got, 0, n, epoch, rank);
    /* every rank adds (rank+1) to rank 0's elements: SUM of all is known */
    int *h = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) h[i] = rank + 1;
    put_in(ow, src, h, (size_t)n);
    CUDA_OK(cudaDeviceSynchronize());
    DFCT_OK(DFC_Accumulate(src, n, DFC_INT, 0, 0, n, DFC_INT, DFC_SUM, win));
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOSUCCEED, win));
    if (rank == 0) {
        take_out(DEV, h, mem, (size_t)n);
        for (int i = 0; i < n; i++) {
            int e = val(epoch, size - 1, i) + size * (size + 1) / 2;
            DFCT_CHECK(h[i] == e, "fence acc n=%d from %s: [%d] = %d, expected %d", n,
                       where_name[ow], i, h[i], e);
        }
    }
    free(h);
    release(ow, src);
    release(ow, got);
}

/* Lock (exclusive, shared): Put, flush, Get, flush_local, unlock; then a check. */
static void lock_case(DFC_Win win, int *mem, int ow, int n, int epoch, int type)
{
    char what[96];
    int *src = mk(ow, (size_t)n), *got = mk(ow, (size_t)n);
    poison(mem);
    fill(ow, src, (size_t)n, epoch, rank);
    fill(ow, got, (size_t)n, 0, -1);
    DFCT_OK(DFC_Win_lock(type, right, 0, win));
    DFCT_OK(DFC_Put(src, n, DFC_INT, right, 0, n, DFC_INT, win));
    DFCT_OK(DFC_Win_flush(right, win));
    DFCT_OK(DFC_Get(got, n, DFC_INT, right, 0, n, DFC_INT, win));
    DFCT_OK(DFC_Win_flush_local(right, win));
    snprintf(what, sizeof what, "lock %s get n=%d into %s",
             type == DFC_LOCK_EXCLUSIVE ? "exclusive" : "shared", n, where_name[ow]);
    expect(what, ow, got, 0, n, epoch, rank);
    DFCT_OK(DFC_Win_unlock(right, win));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    snprintf(what, sizeof what, "lock put n=%d from %s", n, where_name[ow]);
    expect(what, DEV, mem, 0, n, epoch, left);
    expect(what, DEV, mem, n, wlen - n, 0, -1);
    release(ow, src);
    release(ow, got);
}

/* Lock_all: Rput to the right, Rget from the left's slot, Wait, flush_all, unlock_all. */
static void lock_all_case(DFC_Win win, int *mem, int ow, int n, int epoch)
{
    char what[96];
    int *src = mk(ow, (size_t)n), *got = mk(ow, (size_t)n);
    poison(mem);
    fill(ow, src, (size_t)n, epoch, rank);
    fill(ow, got, (size_t)n, 0, -1);
    DFC_Request req[2];
    DFCT_OK(DFC_Win_lock_all(0, win));
    DFCT_OK(DFC_Rput(src, n, DFC_INT, right, 0, n, DFC_INT, win, &req[0]));
    DFCT_OK(DFC_Wait(&req[0], DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Win_flush_all(win));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD)); /* every Put is complete at its target */
    DFCT_OK(DFC_Rget(got, n, DFC_INT, left, 0, n, DFC_INT, win, &req[1]));
    DFCT_OK(DFC_Wait(&req[1], DFC_STATUS_IGNORE));
    snprintf(what, sizeof what, "lock_all rget n=%d into %s", n, where_name[ow]);
    expect(what, ow, got, 0, n, epoch, (left - 1 + size) % size);
    DFCT_OK(DFC_Win_flush_local_all(win));
    DFCT_OK(DFC_Win_unlock_all(win));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    snprintf(what, sizeof what, "lock_all rput n=%d from %s", n, where_name[ow]);
    expect(what, DEV, mem, 0, n, epoch, left);
    expect(what, DEV, mem, n, wlen - n, 0, -1);
    release(ow, src);
    release(ow, got);
}

/* Post/start/complete/wait with both neighbours; the target checks after Wait (or Test). */
static void pscw_case(DFC_Win win, int *mem, int ow, int n, int epoch, int use_test)
{
    char what[96];
    int *src = mk(ow, (size_t)n);
    DFC_Group world, nbrs;
    int ranks[2] = {left, right};
    poison(mem);
    fill(ow, src, (size_t)n, epoch, rank);
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &world));
    DFCT_OK(DFC_Group_incl(world, left == right ? 1 : 2, ranks, &nbrs));
    DFCT_OK(DFC_Win_post(nbrs, 0, win));
    DFCT_OK(DFC_Win_start(nbrs, 0, win));
    DFCT_OK(DFC_Put(src, n, DFC_INT, right, 0, n, DFC_INT, win));
    DFCT_OK(DFC_Win_complete(win));
    if (use_test) {
        int flag = 0;
        while (!flag) DFCT_OK(DFC_Win_test(win, &flag));
    } else DFCT_OK(DFC_Win_wait(win));
    snprintf(what, sizeof what, "pscw%s put n=%d from %s", use_test ? " (test)" : "", n,
             where_name[ow]);
    expect(what, DEV, mem, 0, n, epoch, left);
    expect(what, DEV, mem, n, wlen - n, 0, -1);
    DFCT_OK(DFC_Group_free(&nbrs));
    DFCT_OK(DFC_Group_free(&world));
    release(ow, src);
}

/* Fetch_and_op: every rank adds 1 to rank 0's counter k times under lock_all; the values
 * fetched, gathered at rank 0, must be 0..size*k-1, each once. Then Get_accumulate and
 * Compare_and_swap. */
static void atomic_case(DFC_Win win, int *mem, int ow, int k)
{
    int *one = mk(ow, 1), *res = mk(ow, 1), *cmp = mk(ow, 1);
    int h = 1, *mine = malloc((size_t)k * sizeof(int)), *all = NULL;
    poison(mem);
    if (rank == 0) {
        int z = 0;
        put_in(DEV, mem, &z, 1);
        CUDA_OK(cudaDeviceSynchronize());
    }
    put_in(ow, one, &h, 1);
    CUDA_OK(cudaDeviceSynchronize());
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFCT_OK(DFC_Win_lock_all(0, win));
    for (int i = 0; i < k; i++) {
        DFCT_OK(DFC_Fetch_and_op(one, res, DFC_INT, 0, 0, DFC_SUM, win));
        DFCT_OK(DFC_Win_flush(0, win));
        take_out(ow, &mine[i], res, 1);
    }
    DFCT_OK(DFC_Win_unlock_all(win));
    if (rank == 0) all = calloc((size_t)size * k, sizeof(int));
    DFCT_OK(DFC_Gather(mine, k, DFC_INT, all, k, DFC_INT, 0, DFC_COMM_WORLD));
    if (rank == 0) {
        char *seen = calloc((size_t)size * k, 1);
        for (int i = 0; i < size * k; i++) {
            int v = all[i];
            DFCT_CHECK(v >= 0 && v < size * k && !seen[v], "fetch_and_op (%s): value %d %s",
                       where_name[ow], v,
                       v >= 0 && v < size * k ? "fetched twice" : "out of range");
            if (v >= 0 && v < size * k) seen[v] = 1;
        }
        free(seen);
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    if (rank == 0) expect("fetch_and_op final", DEV, mem, 1, wlen - 1, 0, -1);
    if (rank == 0) {
        int c;
        take_out(DEV, &c, mem, 1);
        DFCT_CHECK(c == size * k, "fetch_and_op (%s): counter %d, expected %d", where_name[ow], c,
                   size * k);
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD)); /* checked before the swaps */
    /* Compare_and_swap: slot 1 holds POISON; every rank swaps in its rank; one wins */
    h = rank;
    put_in(ow, one, &h, 1);
    h = POISON;
    put_in(ow, cmp, &h, 1);
    CUDA_OK(cudaDeviceSynchronize());
    DFCT_OK(DFC_Win_lock(DFC_LOCK_SHARED, 0, 0, win));
    DFCT_OK(DFC_Compare_and_swap(one, cmp, res, DFC_INT, 0, 1, win));
    DFCT_OK(DFC_Win_unlock(0, win));
    take_out(ow, &h, res, 1);
    int won = h == POISON, winners = 0;
    DFCT_OK(DFC_Allreduce(&won, &winners, 1, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    DFCT_CHECK(winners == 1, "compare_and_swap (%s): %d winners", where_name[ow], winners);
    /* Get_accumulate with DFC_MAX, then DFC_NO_OP reading it back */
    DFCT_OK(DFC_Win_fence(0, win));
    h = 100 + rank;
    put_in(ow, one, &h, 1);
    CUDA_OK(cudaDeviceSynchronize());
    DFCT_OK(DFC_Get_accumulate(one, 1, DFC_INT, res, 1, DFC_INT, 0, 2, 1, DFC_INT, DFC_MAX, win));
    DFCT_OK(DFC_Win_fence(0, win));
    DFCT_OK(
        DFC_Get_accumulate(NULL, 0, DFC_INT, res, 1, DFC_INT, 0, 2, 1, DFC_INT, DFC_NO_OP, win));
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOSUCCEED, win));
    take_out(ow, &h, res, 1);
    DFCT_CHECK(h == 100 + size - 1, "get_accumulate max (%s): %d, expected %d", where_name[ow], h,
               100 + size - 1);
    free(mine);
    free(all);
    release(ow, one);
    release(ow, res);
    release(ow, cmp);
}

/* A 2D halo exchange on device tiles: a px x py periodic grid of ny x nx tiles; each tile's
 * window holds ghost row, ny rows, ghost row, then the west and east ghost columns. Rows are
 * Put straight from the window's own memory, columns from packed device buffers; fence. */
#define HX 37
#define HY 23
static double gval(int gx, int gy, int it) { return it * 1e6 + gy * 1000.0 + gx + 0.5; }

static void halo(void)
{
    int dims[2] = {0, 0};
    DFCT_OK(DFC_Dims_create(size, 2, dims));
    int py = dims[0], px = dims[1], cy = rank / px, cx = rank % px, gw = px * HX, gh = py * HY;
    int north = ((cy - 1 + py) % py) * px + cx, south = ((cy + 1) % py) * px + cx;
    int west = cy * px + (cx - 1 + px) % px, east = cy * px + (cx + 1) % px;
    size_t cells = (size_t)(HY + 2) * HX + 2 * HY;
    double *tile, *wcol, *ecol, *h = malloc(cells * sizeof(double));
    CUDA_OK(cudaMalloc((void **)&tile, cells * sizeof(double)));
    CUDA_OK(cudaMalloc((void **)&wcol, HY * sizeof(double)));
    CUDA_OK(cudaMalloc((void **)&ecol, HY * sizeof(double)));
    DFC_Win win;
    DFCT_OK(DFC_Win_create(tile, (DFC_Aint)(cells * sizeof(double)), sizeof(double), DFC_INFO_NULL,
                           DFC_COMM_WORLD, &win));
    double *hw = h + (size_t)(HY + 2) * HX, *he = hw + HY;
    for (int it = 0; it < 3; it++) {
        for (size_t c = 0; c < cells; c++) h[c] = -7.0;
        for (int y = 1; y <= HY; y++)
            for (int x = 0; x < HX; x++)
                h[(size_t)y * HX + x] = gval(cx * HX + x, cy * HY + y - 1, it);
        double col[2][HY];
        for (int y = 0; y < HY; y++) {
            col[0][y] = h[(size_t)(y + 1) * HX];
            col[1][y] = h[(size_t)(y + 1) * HX + HX - 1];
        }
        DEV_UPLOAD(tile, h, cells * sizeof(double));
        DEV_UPLOAD(wcol, col[0], sizeof col[0]);
        DEV_UPLOAD(ecol, col[1], sizeof col[1]);
        CUDA_OK(cudaDeviceSynchronize());
        DFCT_OK(DFC_Win_fence(0, win));
        DFCT_OK(DFC_Put(tile + HX, HX, DFC_DOUBLE, north, (DFC_Aint)(HY + 1) * HX, HX, DFC_DOUBLE,
                        win));
        DFCT_OK(DFC_Put(tile + (size_t)HY * HX, HX, DFC_DOUBLE, south, 0, HX, DFC_DOUBLE, win));
        DFCT_OK(
            DFC_Put(wcol, HY, DFC_DOUBLE, west, (DFC_Aint)(HY + 2) * HX + HY, HY, DFC_DOUBLE, win));
        DFCT_OK(DFC_Put(ecol, HY, DFC_DOUBLE, east, (DFC_Aint)(HY + 2) * HX, HY, DFC_DOUBLE, win));
        DFCT_OK(DFC_Win_fence(0, win));
        CUDA_OK(cudaMemcpy(h, tile, cells * sizeof(double), cudaMemcpyDeviceToHost));
        for (int x = 0; x < HX; x++) {
            double top = gval(cx * HX + x, (cy * HY - 1 + gh) % gh, it);
            double bot = gval(cx * HX + x, ((cy + 1) * HY) % gh, it);
            DFCT_CHECK(h[x] == top, "halo it %d: top ghost [%d] = %g, expected %g", it, x, h[x],
                       top);
            DFCT_CHECK(h[(size_t)(HY + 1) * HX + x] == bot,
                       "halo it %d: bottom ghost [%d] = %g, expected %g", it, x,
                       h[(size_t)(HY + 1) * HX + x], bot);
        }
        for (int y = 0; y < HY; y++) {
            double w = gval((cx * HX - 1 + gw) % gw, cy * HY + y, it);
            double e = gval(((cx + 1) * HX) % gw, cy * HY + y, it);
            DFCT_CHECK(hw[y] == w, "halo it %d: west ghost [%d] = %g, expected %g", it, y, hw[y],
                       w);
            DFCT_CHECK(he[y] == e, "halo it %d: east ghost [%d] = %g, expected %g", it, y, he[y],
                       e);
        }
        for (int y = 1; y <= HY; y++) /* the interior untouched */
            for (int x = 0; x < HX; x++)
                DFCT_CHECK(h[(size_t)y * HX + x] == gval(cx * HX + x, cy * HY + y - 1, it),
                           "halo it %d: interior (%d,%d) changed", it, x, y);
    }
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOSUCCEED, win));
    DFCT_OK(DFC_Win_free(&win));
    CUDA_OK(cudaFree(tile));
    CUDA_OK(cudaFree(wcol));
    CUDA_OK(cudaFree(ecol));
    free(h);
}

/* A dynamic window with device memory attached: Put and Accumulate by address, fence. */
static void dynamic(void)
{
    const int n = 5000; /* past the message path's copy limit */
    int *mem = mk(DEV, (size_t)n), *src = mk(DEV, (size_t)n);
    DFC_Win win;
    DFC_Aint mine, *addr = malloc((size_t)size * sizeof(DFC_Aint));
    DFCT_OK(DFC_Win_create_dynamic(DFC_INFO_NULL, DFC_COMM_WORLD, &win));
    DFCT_OK(DFC_Win_attach(win, mem, (DFC_Aint)n * sizeof(int)));
    DFCT_OK(DFC_Get_address(mem, &mine));
    DFCT_OK(DFC_Allgather(&mine, 1, DFC_AINT, addr, 1, DFC_AINT, DFC_COMM_WORLD));
    fill(DEV, mem, (size_t)n, 0, -1);
    fill(DEV, src, (size_t)n, 77, rank);
    DFCT_OK(DFC_Win_fence(0, win));
    DFCT_OK(DFC_Put(src, n, DFC_INT, right, addr[right], n, DFC_INT, win));
    DFCT_OK(DFC_Win_fence(0, win));
    expect("dynamic put", DEV, mem, 0, n, 77, left);
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD)); /* checked before anyone accumulates */
    int *h = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) h[i] = 1;
    put_in(DEV, src, h, (size_t)n);
    CUDA_OK(cudaDeviceSynchronize());
    DFCT_OK(DFC_Accumulate(src, n, DFC_INT, 0, addr[0], n, DFC_INT, DFC_SUM, win));
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOSUCCEED, win));
    if (rank == 0) {
        take_out(DEV, h, mem, (size_t)n);
        for (int i = 0; i < n; i++)
            DFCT_CHECK(h[i] == val(77, size - 1, i) + size, "dynamic acc [%d] = %d, expected %d", i,
                       h[i], val(77, size - 1, i) + size);
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFCT_OK(DFC_Win_detach(win, mem));
    DFCT_OK(DFC_Win_free(&win));
    free(h);
    free(addr);
    release(DEV, mem);
    release(DEV, src);
}

/* Bad input on a device window: each error class, the window kept usable. */
static void bad_input(DFC_Win win)
{
    int *buf = mk(DEV, 4);
    DFCT_OK(DFC_Win_set_errhandler(win, DFC_ERRORS_RETURN));
    DFCT_FAILS(DFC_Put(buf, 1, DFC_INT, right, 0, 1, DFC_INT, win), DFC_ERR_RMA_SYNC,
               "access epoch");
    DFCT_OK(DFC_Win_fence(0, win));
    DFCT_FAILS(DFC_Put(buf, 4, DFC_INT, right, wlen - 2, 4, DFC_INT, win), DFC_ERR_RMA_RANGE,
               "target_disp");
    DFCT_FAILS(DFC_Get(buf, 1, DFC_INT, right, -1, 1, DFC_INT, win), DFC_ERR_DISP, "target_disp");
    DFCT_FAILS(DFC_Accumulate(buf, 1, DFC_INT, right, 0, 1, DFC_INT, DFC_NO_OP, win), DFC_ERR_OP,
               "DFC_NO_OP");
    DFCT_FAILS(DFC_Put(buf, 1, DFC_INT, size, 0, 1, DFC_INT, win), DFC_ERR_RANK, "target_rank");
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOSUCCEED, win));
    DFC_Win bad;
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    DFCT_FAILS(DFC_Win_create(NULL, 16, 4, DFC_INFO_NULL, DFC_COMM_WORLD, &bad), DFC_ERR_BASE,
               "base");
    DFCT_FAILS(DFC_Win_create(buf, 16, 0, DFC_INFO_NULL, DFC_COMM_WORLD, &bad), DFC_ERR_DISP,
               "disp_unit");
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_ARE_FATAL));
    release(DEV, buf);
}

int main(int argc, char **argv)
{
    int max = 6000;
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "-max=", 5)) max = atoi(argv[i] + 5);
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    dfct_rank = rank;
    dev_watchdog(280);
    int ndev = 0;
    CUDA_OK(cudaGetDeviceCount(&ndev));
    CUDA_OK(cudaSetDevice(rank % ndev));
    left = (rank - 1 + size) % size;
    right = (rank + 1) % size;
    wlen = max + 5;
    int *mem = mk(DEV, (size_t)wlen);
    DFC_Win win;
    DFCT_OK(DFC_Win_create(mem, (DFC_Aint)wlen * sizeof(int), sizeof(int), DFC_INFO_NULL,
                           DFC_COMM_WORLD, &win));
    const int sizes[] = {1, 3, 1000, 4097, 6000};
    int epoch = 1;
    for (int ow = HOST; ow <= DEV; ow++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int n = sizes[s] < max ? sizes[s] : max;
            fence_case(win, mem, ow, n, epoch++);
            lock_case(win, mem, ow, n, epoch++, DFC_LOCK_EXCLUSIVE);
            lock_case(win, mem, ow, n, epoch++, DFC_LOCK_SHARED);
            lock_all_case(win, mem, ow, n, epoch++);
            pscw_case(win, mem, ow, n, epoch++, s % 2);
        }
    for (int ow = HOST; ow <= DEV; ow++) atomic_case(win, mem, ow, 50);
    bad_input(win);
    DFCT_OK(DFC_Win_free(&win));
    release(DEV, mem);
    halo();
    dynamic();
    return dfct_finalize();
}
