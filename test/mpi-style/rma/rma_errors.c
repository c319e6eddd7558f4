/*
 * rma_errors.c - bad input to the one-sided functions: each returns (under
 * DFC_ERRORS_RETURN, set on DFC_COMM_WORLD for the creators and on the window for the rest)
 * the right error class, and a message naming the function and the argument.
 */
#include "rmatest.h"

static int dummy_fn_called;
static void user_sum(void *in, void *inout, int *len, DFC_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
    dummy_fn_called = 1;
}

static void creation_errors(void)
{
    int buf[4];
    void *base;
    DFC_Win win;
    DFCT_FAILS(DFC_Win_create(buf, -1, 4, DFC_INFO_NULL, DFC_COMM_WORLD, &win), DFC_ERR_SIZE,
               "DFC_Win_create: invalid argument size");
    DFCT_FAILS(DFC_Win_create(buf, 16, 0, DFC_INFO_NULL, DFC_COMM_WORLD, &win), DFC_ERR_DISP,
               "DFC_Win_create: invalid argument disp_unit");
    DFCT_FAILS(DFC_Win_create(NULL, 16, 4, DFC_INFO_NULL, DFC_COMM_WORLD, &win), DFC_ERR_BASE,
               "DFC_Win_create: invalid argument base");
    DFCT_FAILS(DFC_Win_create(buf, 16, 4, DFC_INFO_NULL, DFC_COMM_NULL, &win), DFC_ERR_COMM,
               "DFC_Win_create: invalid argument comm");
    DFCT_FAILS(DFC_Win_allocate(16, 4, (DFC_Info)0x0600beef, DFC_COMM_WORLD, &base, &win),
               DFC_ERR_INFO, "DFC_Win_allocate: invalid argument info");
    DFCT_FAILS(DFC_Win_allocate(16, 4, DFC_INFO_NULL, DFC_COMM_WORLD, NULL, &win), DFC_ERR_ARG,
               "DFC_Win_allocate: invalid argument baseptr");
    DFCT_FAILS(DFC_Win_allocate_shared(-8, 4, DFC_INFO_NULL, DFC_COMM_WORLD, &base, &win),
               DFC_ERR_SIZE, "DFC_Win_allocate_shared: invalid argument size");
    /* Across nodes (the simulated nodes) the world cannot share memory. */
    DFC_Comm node;
    int nsize, wsize;
    DFCT_OK(DFC_Comm_split_type(DFC_COMM_WORLD, DFC_COMM_TYPE_SHARED, 0, DFC_INFO_NULL, &node));
    DFC_Comm_size(node, &nsize);
    DFC_Comm_size(DFC_COMM_WORLD, &wsize);
    DFC_Comm_free(&node);
    if (nsize < wsize)
        DFCT_FAILS(DFC_Win_allocate_shared(16, 4, DFC_INFO_NULL, DFC_COMM_WORLD, &base, &win),
                   DFC_ERR_RMA_SHARED, "DFC_Win_allocate_shared: invalid argument comm");
    DFC_Win nullwin = DFC_WIN_NULL;
    DFCT_FAILS(DFC_Win_free(&nullwin), DFC_ERR_WIN, "DFC_Win_free: invalid argument win");
    DFCT_FAILS(DFC_Put(buf, 1, DFC_INT, 0, 0, 1, DFC_INT, DFC_WIN_NULL), DFC_ERR_WIN,
               "DFC_Put: invalid argument win");
    DFCT_FAILS(DFC_Win_fence(0, (DFC_Win)0x0a00abcd), DFC_ERR_WIN,
               "DFC_Win_fence: invalid argument win");
}

static void operation_errors(DFC_Win win, int size)
{
    int v[8] = {0}, r[8];
    DFC_Op uop;
    DFCT_FAILS(DFC_Put(v, 1, DFC_INT, 0, 0, 1, DFC_INT, win), DFC_ERR_RMA_SYNC,
               "DFC_Put: invalid argument target_rank: no access epoch");
    DFCT_FAILS(DFC_Win_unlock(0, win), DFC_ERR_RMA_SYNC, "DFC_Win_unlock: invalid argument rank");
    DFCT_FAILS(DFC_Win_flush(0, win), DFC_ERR_RMA_SYNC, "DFC_Win_flush: invalid argument rank");
    DFCT_FAILS(DFC_Win_unlock_all(win), DFC_ERR_RMA_SYNC, "DFC_Win_unlock_all");
    DFCT_FAILS(DFC_Win_complete(win), DFC_ERR_RMA_SYNC, "DFC_Win_complete");
    DFCT_FAILS(DFC_Win_wait(win), DFC_ERR_RMA_SYNC, "DFC_Win_wait");
    DFCT_FAILS(DFC_Win_lock(77, 0, 0, win), DFC_ERR_LOCKTYPE,
               "DFC_Win_lock: invalid argument lock_type");
    DFCT_FAILS(DFC_Win_lock(DFC_LOCK_SHARED, size, 0, win), DFC_ERR_RANK,
               "DFC_Win_lock: invalid argument rank");
    DFCT_FAILS(DFC_Win_lock(DFC_LOCK_SHARED, 0, 0x3, win), DFC_ERR_ASSERT,
               "DFC_Win_lock: invalid argument assert");
    DFCT_FAILS(DFC_Win_fence(DFC_MODE_NOCHECK, win), DFC_ERR_ASSERT,
               "DFC_Win_fence: invalid argument assert");
    DFCT_FAILS(DFC_Win_attach(win, v, 4), DFC_ERR_RMA_FLAVOR,
               "DFC_Win_attach: invalid argument win");
    DFCT_OK(DFC_Win_fence(0, win));
    DFC_Request req = DFC_REQUEST_NULL;
    DFCT_FAILS(DFC_Rput(v, 1, DFC_INT, 0, 0, 1, DFC_INT, win, &req), DFC_ERR_RMA_SYNC,
               "DFC_Rput: invalid argument target_rank: request-based");
    DFCT_CHECK(req == DFC_REQUEST_NULL, "a failed Rput returned a request");
    DFCT_OK(DFC_Win_fence(DFC_MODE_NOSUCCEED, win));
    DFCT_OK(DFC_Win_lock_all(0, win));
    DFCT_FAILS(DFC_Win_lock_all(0, win), DFC_ERR_RMA_SYNC, "DFC_Win_lock_all");
    DFCT_FAILS(DFC_Put(v, 9, DFC_INT, 0, 0, 9, DFC_INT, win), DFC_ERR_RMA_RANGE,
               "DFC_Put: invalid argument target_disp");
    DFCT_FAILS(DFC_Get(r, 1, DFC_INT, 0, 8, 1, DFC_INT, win), DFC_ERR_RMA_RANGE,
               "DFC_Get: invalid argument target_disp");
    DFCT_FAILS(DFC_Put(v, 1, DFC_INT, 0, -1, 1, DFC_INT, win), DFC_ERR_DISP,
               "DFC_Put: invalid argument target_disp");
    DFCT_FAILS(DFC_Put(v, 1, DFC_INT, size, 0, 1, DFC_INT, win), DFC_ERR_RANK,
               "DFC_Put: invalid argument target_rank");
    DFCT_FAILS(DFC_Put(v, -1, DFC_INT, 0, 0, 1, DFC_INT, win), DFC_ERR_COUNT,
               "DFC_Put: invalid argument origin_count");
    DFCT_FAILS(DFC_Put(v, 2, DFC_INT, 0, 0, 1, DFC_INT, win), DFC_ERR_TYPE,
               "DFC_Put: invalid argument target_datatype");
    DFCT_FAILS(DFC_Get(NULL, 1, DFC_INT, 0, 0, 1, DFC_INT, win), DFC_ERR_BUFFER,
               "DFC_Get: invalid argument origin_addr");
    DFCT_FAILS(DFC_Get(r, 1, DFC_DATATYPE_NULL, 0, 0, 1, DFC_INT, win), DFC_ERR_TYPE,
               "DFC_Get: invalid argument origin_datatype");
    DFCT_FAILS(DFC_Accumulate(v, 1, DFC_INT, 0, 0, 1, DFC_INT, DFC_NO_OP, win), DFC_ERR_OP,
               "DFC_Accumulate: invalid argument op");
    DFCT_FAILS(DFC_Accumulate(v, 1, DFC_FLOAT, 0, 0, 1, DFC_INT, DFC_SUM, win), DFC_ERR_TYPE,
               "DFC_Accumulate: invalid argument origin_datatype");
    DFCT_FAILS(DFC_Accumulate(v, 1, DFC_FLOAT, 0, 0, 1, DFC_FLOAT, DFC_BAND, win), DFC_ERR_OP,
               "DFC_Accumulate: invalid argument op");
    DFCT_OK(DFC_Op_create(user_sum, 1, &uop));
    DFCT_FAILS(DFC_Accumulate(v, 1, DFC_INT, 0, 0, 1, DFC_INT, uop, win), DFC_ERR_OP,
               "DFC_Accumulate: invalid argument op");
    DFC_Op_free(&uop);
    DFCT_FAILS(DFC_Fetch_and_op(v, NULL, DFC_INT, 0, 0, DFC_SUM, win), DFC_ERR_BUFFER,
               "DFC_Fetch_and_op: invalid argument result_addr");
    DFCT_FAILS(DFC_Compare_and_swap(v, NULL, r, DFC_INT, 0, 0, win), DFC_ERR_BUFFER,
               "DFC_Compare_and_swap: invalid argument compare_addr");
    DFCT_FAILS(DFC_Rput(v, 1, DFC_INT, 0, 0, 1, DFC_INT, win, NULL), DFC_ERR_ARG,
               "DFC_Rput: invalid argument request");
    DFCT_OK(DFC_Put(v, 1, DFC_INT, DFC_PROC_NULL, 0, 1, DFC_INT, win)); /* a no-op */
    DFCT_OK(DFC_Win_unlock_all(win));
    int flag;
    DFCT_FAILS(DFC_Win_get_attr(win, 12345, &r, &flag), DFC_ERR_KEYVAL,
               "DFC_Win_get_attr: invalid argument win_keyval: 0x3039 is not a valid keyval");
    DFCT_FAILS(DFC_Win_get_attr(win, DFC_TAG_UB, &r, &flag), DFC_ERR_ARG,
               "DFC_Win_get_attr: invalid argument win_keyval");
    DFCT_FAILS(DFC_Win_set_errhandler(win, (DFC_Errhandler)0x0700dead), DFC_ERR_ERRHANDLER,
               "DFC_Win_set_errhandler: invalid argument errhandler");
    DFC_Aint sz;
    int unit;
    void *p;
    DFCT_FAILS(DFC_Win_shared_query(win, size, &sz, &unit, &p), DFC_ERR_RANK,
               "DFC_Win_shared_query: invalid argument rank");
    DFC_Group empty = DFC_GROUP_EMPTY;
    DFCT_FAILS(DFC_Win_post(DFC_GROUP_NULL, 0, win), DFC_ERR_GROUP,
               "DFC_Win_post: invalid argument group");
    DFCT_OK(DFC_Win_post(empty, 0, win));
    DFCT_FAILS(DFC_Win_post(empty, 0, win), DFC_ERR_RMA_SYNC, "DFC_Win_post");
    DFCT_FAILS(DFC_Win_fence(0, win), DFC_ERR_RMA_SYNC, "DFC_Win_fence: invalid argument win");
    DFCT_OK(DFC_Win_wait(win));
    DFCT_CHECK(!dummy_fn_called, "the user op ran");
}

int main(int argc, char **argv)
{
    int size, *mem;
    dfct_init(&argc, &argv);
    rmat_args(argc, argv);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    creation_errors();
    DFC_Win win = rmat_win(8, &mem, DFC_COMM_WORLD);
    DFCT_OK(DFC_Win_set_errhandler(win, DFC_ERRORS_RETURN));
    DFC_Errhandler eh;
    DFCT_OK(DFC_Win_get_errhandler(win, &eh));
    DFCT_CHECK(eh == DFC_ERRORS_RETURN, "errhandler 0x%x", (unsigned)eh);
    operation_errors(win, size);
    rmat_free(&win, mem);
    return dfct_finalize();
}
