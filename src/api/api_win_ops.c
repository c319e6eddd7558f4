/*
 * api_win_ops.c - Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap and
 * the request-based forms: argument checks, then one call into the window engine
 * (dfc_win_op). Each pair (Put/Rput...) shares one static body.
 */
#include "api/api_win.h"

/* A (count, datatype) buffer: its bytes and predefined element type. */
static int check_side(const char *func, const char *addr_arg, const void *addr,
                      const char *count_arg, int count, const char *type_arg, DFC_Datatype type,
                      uint64_t *bytes, const dfc_dtype_t **base)
{
    dfc_dtype_t *dt;
    int rc;
    if ((rc = dfc_api_check_count(func, count_arg, count)) ||
        (rc = dfc_dtype_check(type, func, type_arg, &dt)) ||
        (rc = dfc_api_check_buf(func, addr_arg, addr, count)))
        return rc;
    *bytes = (uint64_t)count * dt->size;
    *base = dfc_dtype_base_type(dt);
    return DFC_SUCCESS;
}

static int check_target(const char *func, dfc_win_t *w, int rank, DFC_Aint disp, int count,
                        DFC_Datatype type, uint64_t *bytes, const dfc_dtype_t **base)
{
    int rc = dfc_api_check_rank(func, "target_rank", w->comm, rank, 0);
    if (rc) return rc;
    if (disp < 0 && w->flavor != DFC_WIN_FLAVOR_DYNAMIC)
        return dfc_err(DFC_ERR_DISP, func, "invalid argument target_disp: %lld is negative",
                       (long long)disp);
    return check_side(func, "target_disp", (void *)1, "target_count", count, "target_datatype",
                      type, bytes, base);
}

static int check_same(const char *func, const char *what, uint64_t a, uint64_t b)
{
    if (a == b) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_TYPE, func,
                   "invalid argument target_datatype: the %s describes %llu bytes, the target "
                   "%llu (the type signatures must match)",
                   what, (unsigned long long)a, (unsigned long long)b);
}

/* Accumulates: a predefined op defined on the element type, the same on both sides. An
 * operation of no elements combines nothing, so there the op need only be predefined, as
 * MPICH and Open MPI accept it (mpi4py's test_rma: a 0-byte Get_accumulate of DFC_BYTE with
 * DFC_SUM). */
static int check_acc(const char *func, DFC_Op op, const dfc_dtype_t *obase,
                     const dfc_dtype_t *tbase, uint64_t bytes, int allow_no_op,
                     const dfc_op_t **out)
{
    dfc_op_t *o;
    int rc = dfc_op_check(op, bytes ? tbase : NULL, func, "op", &o);
    if (rc) return rc;
    if (!o->builtin)
        return dfc_err(DFC_ERR_OP, func,
                       "invalid argument op: one-sided accumulates take only "
                       "predefined operations");
    if (op == DFC_NO_OP && !allow_no_op)
        return dfc_err(DFC_ERR_OP, func,
                       "invalid argument op: DFC_NO_OP is only for "
                       "DFC_Get_accumulate and DFC_Fetch_and_op");
    if (obase && obase != tbase)
        return dfc_err(DFC_ERR_TYPE, func,
                       "invalid argument origin_datatype: its elements (%s) differ from the "
                       "target's (%s)",
                       obase->name, tbase->name);
    *out = o;
    return DFC_SUCCESS;
}

/* ---- The fast path to shared-memory windows ----------------------------------------------
 * Put, Get and Accumulate without a request to a SHM window (dfc_win.h), from and to host
 * memory, with one dense type (the same handle and count on both sides), in a fence or lock
 * epoch: the shapes of OSU's one-sided benchmarks and of most programs. It makes the general
 * path's checks inline (no calls, no messages recorded), then the engine's inline operation
 * (dfc_win_shm_fast_op); what it does not cover, every error among it, returns FAST_NO and
 * takes the general path, which does the same operation or reports the error. A small Put took
 * about 620 instructions the general way, most of them calls through the library's PLT
 * (BENCHMARKS.md). */
#define FAST_NO (-1)

/* The target memory of a fast operation, or NULL when it is not one; *wp, *dtp: the window
 * and the type. The bound on target_disp is an overflow check of its product with the
 * displacement unit, not a division (a 64-bit divide was the costliest instruction of a small
 * Put: BENCHMARKS.md, "rma4"). */
static inline __attribute__((always_inline)) char *
shm_fast_target(int count, DFC_Datatype type, int trank, DFC_Aint tdisp, int tcount,
                DFC_Datatype ttype, DFC_Win win, dfc_win_t **wp, const dfc_dtype_t **dtp)
{
    dfc_win_t *w = dfc_win_get(win);
    if (!w || w->backend != DFC_WIN_BACKEND_SHM || type != ttype || count != tcount || count <= 0 ||
        trank < 0 || trank >= w->size || tdisp < 0 ||
        !(w->fence_epoch || w->lock_all || w->locked[trank]))
        return NULL;
    const dfc_dtype_t *dt = dfc_dtype_get(type);
    if (!dt || !dt->committed || !dt->dense) return NULL;
    uint64_t bytes = (uint64_t)count * dt->size, off, wsize = (uint64_t)w->sizes[trank];
    if (__builtin_mul_overflow((uint64_t)tdisp, (uint64_t)w->disp_units[trank], &off) ||
        off > wsize || bytes > wsize - off)
        return NULL;
    *wp = w;
    *dtp = dt;
    return w->bases[trank] + off;
}

static int shm_fast_put_get(int kind, void *oaddr, int count, DFC_Datatype type, int trank,
                            DFC_Aint tdisp, int tcount, DFC_Datatype ttype, DFC_Win win)
{
    dfc_win_t *w;
    const dfc_dtype_t *dt;
    char *t = shm_fast_target(count, type, trank, tdisp, tcount, ttype, win, &w, &dt);
    if (!t || !oaddr || dfc_gpu_ptr_device(oaddr) >= 0) return FAST_NO;
    dfc_win_shm_fast_op(w, kind, oaddr, t, (size_t)count, dt, NULL, trank);
    return DFC_SUCCESS;
}

/* DFC_SUM of ints or doubles, the shape of counters and small reductions: defined on the type,
 * so dfc_op_check has nothing to find; up to FAST_SUM_MAX items a loop of its own instead of
 * the op table's dispatch (dfc_op_reduce), with the result op.c gives (signed sums wrap);
 * above that op.c's vectorized loop is faster (64 doubles: 43 ns here against 33). Elements
 * are moved with memcpy: target_disp need not be aligned. */
#define FAST_SUM_MAX 16
static inline int fast_sum_type(DFC_Op o, DFC_Datatype type)
{
    return o == DFC_SUM && (type == DFC_DOUBLE || type == DFC_INT);
}

static inline void fast_sum(DFC_Datatype type, const char *in, char *io, int count)
{
    if (type == DFC_DOUBLE)
        for (int i = 0; i < count; i++) {
            double a, b;
            memcpy(&a, in + i * sizeof a, sizeof a);
            memcpy(&b, io + i * sizeof b, sizeof b);
            b = a + b;
            memcpy(io + i * sizeof b, &b, sizeof b);
        }
    else
        for (int i = 0; i < count; i++) {
            int a, b;
            memcpy(&a, in + i * sizeof a, sizeof a);
            memcpy(&b, io + i * sizeof b, sizeof b);
            b = (int)(0u + (unsigned)a + (unsigned)b);
            memcpy(io + i * sizeof b, &b, sizeof b);
        }
}

/* Accumulate of a predefined type with a predefined op (not NO_OP) defined on it, under the
 * target's accumulate lock as the general path applies it. */
static int shm_fast_acc(const char *func, const void *oaddr, int count, DFC_Datatype type,
                        int trank, DFC_Aint tdisp, int tcount, DFC_Datatype ttype, DFC_Op o,
                        DFC_Win win)
{
    dfc_win_t *w;
    const dfc_dtype_t *dt;
    dfc_op_t *op = NULL;
    char *t = shm_fast_target(count, type, trank, tdisp, tcount, ttype, win, &w, &dt);
    if (!t || !oaddr) return FAST_NO;
    int sum = fast_sum_type(o, type); /* predefined, dense, SUM defined on it */
    if (sum ? !(op = dfc_op_get(o))
            : (!dt->builtin || dt->base != (int)DFC_HANDLE_INDEX(type) || o == DFC_NO_OP ||
               !(op = dfc_op_get(o)) || !op->builtin || dfc_op_check(o, dt, func, "op", &op)))
        return FAST_NO;
    if (dfc_gpu_ptr_device(oaddr) >= 0) return FAST_NO;
    if (!sum || count > FAST_SUM_MAX) {
        dfc_win_shm_fast_op(w, DFC_WIN_OP_ACC, (void *)oaddr, t, (size_t)count, dt, op, trank);
        return DFC_SUCCESS;
    }
    dfc_win_shm_acc_enter(w, trank);
    fast_sum(type, oaddr, t, count);
    dfc_win_shm_acc_exit(w, trank);
    return DFC_SUCCESS;
}

/* The general path of Put and Get (and of every Rput/Rget), the library lock held: every
 * argument checked, then the engine. Kept out of line so that the fast path's caller does not
 * set up its frame (a zeroed dfc_win_op_t among it) for a call that returns early. */
static __attribute__((noinline)) int put_get_checked(const char *func, int kind, const void *oaddr,
                                                     int ocount, DFC_Datatype otype, int trank,
                                                     DFC_Aint tdisp, int tcount, DFC_Datatype ttype,
                                                     DFC_Win win, DFC_Request *request)
{
    int rc;
    dfc_win_t *w = NULL;
    dfc_win_op_t op = {0};
    uint64_t obytes = 0;
    const dfc_dtype_t *obase, *tbase;
    if ((rc = dfc_win_check(win, func, "win", &w)) ||
        (rc = check_side(func, "origin_addr", oaddr, "origin_count", ocount, "origin_datatype",
                         otype, &obytes, &obase)) ||
        (rc = check_target(func, w, trank, tdisp, tcount, ttype, &op.bytes, &tbase)) ||
        (rc = check_same(func, "origin", obytes, op.bytes)) ||
        (request && (rc = dfc_api_check_ptr(func, "request", request))))
        return dfc_api_win_error(w, rc);
    op.kind = kind;
    op.origin = oaddr;
    op.result = (void *)oaddr;
    op.target = trank;
    op.disp = tdisp;
    if ((rc = dfc_win_op(w, func, &op, request))) return dfc_api_win_error(w, rc);
    return DFC_SUCCESS;
}

static int put_get(const char *func, int kind, const void *oaddr, int ocount, DFC_Datatype otype,
                   int trank, DFC_Aint tdisp, int tcount, DFC_Datatype ttype, DFC_Win win,
                   DFC_Request *request)
{
    int rc;
    DFC_API_ENTER();
    if (request || (rc = shm_fast_put_get(kind, (void *)oaddr, ocount, otype, trank, tdisp, tcount,
                                          ttype, win)) == FAST_NO)
        rc = put_get_checked(func, kind, oaddr, ocount, otype, trank, tdisp, tcount, ttype, win,
                             request);
    DFC_API_EXIT();
    return rc;
}

int DFC_Put(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
            int target_rank, DFC_Aint target_disp, int target_count, DFC_Datatype target_datatype,
            DFC_Win win)
{
    return put_get(__func__, DFC_WIN_OP_PUT, origin_addr, origin_count, origin_datatype,
                   target_rank, target_disp, target_count, target_datatype, win, NULL);
}

int DFC_Rput(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
             int target_rank, DFC_Aint target_disp, int target_count, DFC_Datatype target_datatype,
             DFC_Win win, DFC_Request *request)
{
    if (!request) {
        DFC_API_ENTER();
        int rc = dfc_api_error(NULL, DFC_ERR(DFC_ERR_ARG, "invalid argument request: NULL"));
        DFC_API_EXIT();
        return rc;
    }
    return put_get(__func__, DFC_WIN_OP_PUT, origin_addr, origin_count, origin_datatype,
                   target_rank, target_disp, target_count, target_datatype, win, request);
}

int DFC_Get(void *origin_addr, int origin_count, DFC_Datatype origin_datatype, int target_rank,
            DFC_Aint target_disp, int target_count, DFC_Datatype target_datatype, DFC_Win win)
{
    return put_get(__func__, DFC_WIN_OP_GET, origin_addr, origin_count, origin_datatype,
                   target_rank, target_disp, target_count, target_datatype, win, NULL);
}

int DFC_Rget(void *origin_addr, int origin_count, DFC_Datatype origin_datatype, int target_rank,
             DFC_Aint target_disp, int target_count, DFC_Datatype target_datatype, DFC_Win win,
             DFC_Request *request)
{
    if (!request) {
        DFC_API_ENTER();
        int rc = dfc_api_error(NULL, DFC_ERR(DFC_ERR_ARG, "invalid argument request: NULL"));
        DFC_API_EXIT();
        return rc;
    }
    return put_get(__func__, DFC_WIN_OP_GET, origin_addr, origin_count, origin_datatype,
                   target_rank, target_disp, target_count, target_datatype, win, request);
}

typedef struct {
    const void *oaddr;
    int ocount;
    DFC_Datatype otype;
    void *raddr;
    int rcount;
    DFC_Datatype rtype;
} acc_bufs_t;

/* Accumulate (no result) and Get_accumulate (result) share this body: the general path, the
 * library lock held, out of line as put_get_checked is. */
static __attribute__((noinline)) int accumulate_checked(const char *func, const acc_bufs_t *b,
                                                        int trank, DFC_Aint tdisp, int tcount,
                                                        DFC_Datatype ttype, DFC_Op o, DFC_Win win,
                                                        DFC_Request *request)
{
    int rc;
    dfc_win_t *w = NULL;
    dfc_win_op_t op = {0};
    uint64_t obytes = 0, rbytes = 0;
    const dfc_dtype_t *obase = NULL, *rbase = NULL, *tbase;
    int no_op = o == DFC_NO_OP && b->raddr; /* origin buffer ignored (MPI-4.1 12.3.4) */
    if ((rc = dfc_win_check(win, func, "win", &w)) ||
        (rc = check_target(func, w, trank, tdisp, tcount, ttype, &op.bytes, &tbase)) ||
        (!no_op && ((rc = check_side(func, "origin_addr", b->oaddr, "origin_count", b->ocount,
                                     "origin_datatype", b->otype, &obytes, &obase)) ||
                    (rc = check_same(func, "origin", obytes, op.bytes)))) ||
        (b->raddr && ((rc = check_side(func, "result_addr", b->raddr, "result_count", b->rcount,
                                       "result_datatype", b->rtype, &rbytes, &rbase)) ||
                      (rc = check_same(func, "result", rbytes, op.bytes)))) ||
        (rc = check_acc(func, o, obase ? obase : rbase, tbase, op.bytes, b->raddr != NULL,
                        &op.op)) ||
        (request && (rc = dfc_api_check_ptr(func, "request", request))))
        return dfc_api_win_error(w, rc);
    op.kind = b->raddr ? DFC_WIN_OP_GACC : DFC_WIN_OP_ACC;
    op.origin = b->oaddr;
    op.result = b->raddr;
    op.base = tbase;
    op.target = trank;
    op.disp = tdisp;
    if ((rc = dfc_win_op(w, func, &op, request))) return dfc_api_win_error(w, rc);
    return DFC_SUCCESS;
}

static int accumulate(const char *func, const acc_bufs_t *b, int trank, DFC_Aint tdisp, int tcount,
                      DFC_Datatype ttype, DFC_Op o, DFC_Win win, DFC_Request *request)
{
    int rc;
    DFC_API_ENTER();
    if (request || b->raddr ||
        (rc = shm_fast_acc(func, b->oaddr, b->ocount, b->otype, trank, tdisp, tcount, ttype, o,
                           win)) == FAST_NO)
        rc = accumulate_checked(func, b, trank, tdisp, tcount, ttype, o, win, request);
    DFC_API_EXIT();
    return rc;
}

int DFC_Accumulate(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
                   int target_rank, DFC_Aint target_disp, int target_count,
                   DFC_Datatype target_datatype, DFC_Op op, DFC_Win win)
{
    acc_bufs_t b = {origin_addr, origin_count, origin_datatype, NULL, 0, DFC_DATATYPE_NULL};
    return accumulate(__func__, &b, target_rank, target_disp, target_count, target_datatype, op,
                      win, NULL);
}

int DFC_Raccumulate(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
                    int target_rank, DFC_Aint target_disp, int target_count,
                    DFC_Datatype target_datatype, DFC_Op op, DFC_Win win, DFC_Request *request)
{
    acc_bufs_t b = {origin_addr, origin_count, origin_datatype, NULL, 0, DFC_DATATYPE_NULL};
    if (!request) {
        DFC_API_ENTER();
        int rc = dfc_api_error(NULL, DFC_ERR(DFC_ERR_ARG, "invalid argument request: NULL"));
        DFC_API_EXIT();
        return rc;
    }
    return accumulate(__func__, &b, target_rank, target_disp, target_count, target_datatype, op,
                      win, request);
}

int DFC_Get_accumulate(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
                       void *result_addr, int result_count, DFC_Datatype result_datatype,
                       int target_rank, DFC_Aint target_disp, int target_count,
                       DFC_Datatype target_datatype, DFC_Op op, DFC_Win win)
{
    acc_bufs_t b = {origin_addr, origin_count, origin_datatype,
                    result_addr, result_count, result_datatype};
    if (!result_addr && result_count == 0) b.raddr = (void *)1; /* nothing to fetch */
    return accumulate(__func__, &b, target_rank, target_disp, target_count, target_datatype, op,
                      win, NULL);
}

int DFC_Rget_accumulate(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
                        void *result_addr, int result_count, DFC_Datatype result_datatype,
                        int target_rank, DFC_Aint target_disp, int target_count,
                        DFC_Datatype target_datatype, DFC_Op op, DFC_Win win, DFC_Request *request)
{
    acc_bufs_t b = {origin_addr, origin_count, origin_datatype,
                    result_addr, result_count, result_datatype};
    if (!result_addr && result_count == 0) b.raddr = (void *)1;
    if (!request) {
        DFC_API_ENTER();
        int rc = dfc_api_error(NULL, DFC_ERR(DFC_ERR_ARG, "invalid argument request: NULL"));
        DFC_API_EXIT();
        return rc;
    }
    return accumulate(__func__, &b, target_rank, target_disp, target_count, target_datatype, op,
                      win, request);
}

int DFC_Fetch_and_op(const void *origin_addr, void *result_addr, DFC_Datatype datatype,
                     int target_rank, DFC_Aint target_disp, DFC_Op op, DFC_Win win)
{
    acc_bufs_t b = {origin_addr, 1, datatype, result_addr, 1, datatype};
    if (!result_addr) { /* a NULL result cannot be told from "no result" below */
        DFC_API_ENTER();
        int rc = dfc_api_win_error(dfc_win_get(win),
                                   DFC_ERR(DFC_ERR_BUFFER, "invalid argument result_addr: NULL"));
        DFC_API_EXIT();
        return rc;
    }
    return accumulate(__func__, &b, target_rank, target_disp, 1, datatype, op, win, NULL);
}

int DFC_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         DFC_Datatype datatype, int target_rank, DFC_Aint target_disp, DFC_Win win)
{
    int rc;
    dfc_win_t *w = NULL;
    dfc_win_op_t op = {0};
    const dfc_dtype_t *base;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) ||
        (rc = check_target(__func__, w, target_rank, target_disp, 1, datatype, &op.bytes, &base)) ||
        (rc = dfc_api_check_buf(__func__, "origin_addr", origin_addr, 1)) ||
        (rc = dfc_api_check_buf(__func__, "compare_addr", compare_addr, 1)) ||
        (rc = dfc_api_check_buf(__func__, "result_addr", result_addr, 1)))
        goto fn_fail;
    if (op.bytes > 32 || op.bytes != base->size) {
        rc = DFC_ERR(DFC_ERR_TYPE, "invalid argument datatype: not a predefined element type");
        goto fn_fail;
    }
    op.kind = DFC_WIN_OP_CAS;
    op.origin = origin_addr;
    op.compare = compare_addr;
    op.result = result_addr;
    op.target = target_rank;
    op.disp = target_disp;
    if ((rc = dfc_win_op(w, __func__, &op, NULL))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}
