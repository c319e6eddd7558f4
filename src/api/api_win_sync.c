/*
 * api_win_sync.c - synchronization of windows (fence, lock/unlock, flush, sync,
 * post/start/complete/wait/test): argument checks, then one call into the window engine.
 */
#include "api/api_win.h"

static int check_assert(const char *func, int assert, int allowed)
{
    if ((assert & ~allowed) == 0) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_ASSERT, func,
                   "invalid argument assert: 0x%x holds bits that are not assertions of this "
                   "call (allowed: 0x%x)",
                   (unsigned)assert, (unsigned)allowed);
}

/* A window rank: 0..size-1 (DFC_PROC_NULL is no target of a synchronization). */
static int check_win_rank(const char *func, const dfc_win_t *w, int rank)
{
    if (rank >= 0 && rank < w->size) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_RANK, func,
                   "invalid argument rank: %d is out of range for a window of %d processes", rank,
                   w->size);
}

/* The shape every synchronization entry point shares: check the window, then the rest. */
#define WIN_SYNC_BODY(checks, call)                                                         \
    int rc;                                                                                 \
    dfc_win_t *w = NULL;                                                                    \
    DFC_API_ENTER();                                                                        \
    if ((rc = dfc_win_check(win, __func__, "win", &w)) || (rc = (checks)) || (rc = (call))) \
        rc = dfc_api_win_error(w, rc);                                                      \
    DFC_API_EXIT();                                                                         \
    return rc

/* ---- Fast paths of passive target on shared-memory windows ---------------------------------
 * Lock, unlock and flush of a SHM window (dfc_win.h) are atomics on a word of the segment and
 * a memory fence: these take them inline when every argument is right and the call cannot
 * wait (a lock not free goes the general way, which waits for it). FAST_NO: not taken. */
#define FAST_NO (-1)

/* Inline in every fast path (as a separate function it was a tenth of a small flush's time). */
static inline __attribute__((always_inline)) dfc_win_t *shm_win(DFC_Win win, int rank)
{
    dfc_win_t *w = dfc_win_get(win);
    return w && w->backend == DFC_WIN_BACKEND_SHM && rank >= 0 && rank < w->size ? w : NULL;
}

static int shm_fast_lock(int lock_type, int rank, int assert, DFC_Win win)
{
    dfc_win_t *w = shm_win(win, rank);
    if (!w || (lock_type != DFC_LOCK_SHARED && lock_type != DFC_LOCK_EXCLUSIVE) ||
        (assert & ~DFC_MODE_NOCHECK) || w->locked[rank] || w->lock_all || w->start_group ||
        w->post_group || !dfc_win_shm_try_lock(w, rank, lock_type == DFC_LOCK_EXCLUSIVE))
        return FAST_NO;
    w->locked[rank] = lock_type;
    return DFC_SUCCESS;
}

static int shm_fast_unlock(int rank, DFC_Win win)
{
    dfc_win_t *w = shm_win(win, rank);
    if (!w || !w->locked[rank] || w->lock_all) return FAST_NO;
    int excl = w->locked[rank] == DFC_LOCK_EXCLUSIVE;
    w->locked[rank] = 0;
    dfc_win_shm_unlock(w, rank, excl);
    return DFC_SUCCESS;
}

/* Flush (and flush_local: DFC completes at the store) of rank. Every operation of the epoch
 * was done by this process's own loads and stores before the flush (accumulates under the
 * target's lock, released by a store): what is left is to order the Puts' stores before
 * whatever this process stores next (the synchronization the target may wait for). That is a
 * store fence, not a full one: on x86 ordinary stores are already seen in order and the
 * sfence covers the non-temporal stores memcpy uses for large copies; elsewhere the release
 * fence orders them. A full fence (mfence) was most of a small flush's time (BENCHMARKS.md,
 * "rma4"). */
static int shm_fast_flush(int rank, DFC_Win win)
{
    dfc_win_t *w = shm_win(win, rank);
    if (!w || !(w->lock_all || w->locked[rank])) return FAST_NO;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#endif
    atomic_thread_fence(memory_order_release);
    return DFC_SUCCESS;
}

/* WIN_SYNC_BODY with a fast path tried first. */
#define WIN_SYNC_FAST_BODY(fast, checks, call)                                                \
    int rc;                                                                                   \
    dfc_win_t *w = NULL;                                                                      \
    DFC_API_ENTER();                                                                          \
    if ((rc = (fast)) == FAST_NO &&                                                           \
        ((rc = dfc_win_check(win, __func__, "win", &w)) || (rc = (checks)) || (rc = (call)))) \
        rc = dfc_api_win_error(w, rc);                                                        \
    DFC_API_EXIT();                                                                           \
    return rc

int DFC_Win_fence(int assert, DFC_Win win)
{
    WIN_SYNC_BODY(check_assert(__func__, assert,
                               DFC_MODE_NOSTORE | DFC_MODE_NOPUT | DFC_MODE_NOPRECEDE |
                                   DFC_MODE_NOSUCCEED),
                  dfc_win_fence(w, assert));
}

static int check_lock_type(int lock_type)
{
    if (lock_type == DFC_LOCK_SHARED || lock_type == DFC_LOCK_EXCLUSIVE) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_LOCKTYPE, "DFC_Win_lock",
                   "invalid argument lock_type: %d is neither DFC_LOCK_SHARED nor "
                   "DFC_LOCK_EXCLUSIVE",
                   lock_type);
}

static int check_lock(const dfc_win_t *w, int lock_type, int rank, int assert)
{
    int rc;
    if ((rc = check_lock_type(lock_type)) || (rc = check_win_rank("DFC_Win_lock", w, rank)) ||
        (rc = check_assert("DFC_Win_lock", assert, DFC_MODE_NOCHECK)))
        return rc;
    return DFC_SUCCESS;
}

int DFC_Win_lock(int lock_type, int rank, int assert, DFC_Win win)
{
    WIN_SYNC_FAST_BODY(shm_fast_lock(lock_type, rank, assert, win),
                       check_lock(w, lock_type, rank, assert), dfc_win_lock(w, lock_type, rank));
}

int DFC_Win_unlock(int rank, DFC_Win win)
{
    WIN_SYNC_FAST_BODY(shm_fast_unlock(rank, win), check_win_rank(__func__, w, rank),
                       dfc_win_unlock(w, rank));
}

int DFC_Win_lock_all(int assert, DFC_Win win)
{
    WIN_SYNC_BODY(check_assert(__func__, assert, DFC_MODE_NOCHECK), dfc_win_lock_all(w));
}

int DFC_Win_unlock_all(DFC_Win win) { WIN_SYNC_BODY(DFC_SUCCESS, dfc_win_unlock_all(w)); }

/* Flushes need a passive-target epoch (MPI-4.1 12.5.4). */
static int check_passive(const char *func, const dfc_win_t *w, int rank)
{
    int rc = rank >= 0 ? check_win_rank(func, w, rank) : DFC_SUCCESS;
    if (rc) return rc;
    if (w->lock_all || (rank >= 0 && w->locked[rank])) return DFC_SUCCESS;
    if (rank < 0)
        for (int r = 0; r < w->size; r++)
            if (w->locked[r]) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_RMA_SYNC, func,
                   "invalid argument %s: no passive-target epoch (DFC_Win_lock or "
                   "DFC_Win_lock_all) is open%s",
                   rank >= 0 ? "rank" : "win", rank >= 0 ? " to that rank" : "");
}

int DFC_Win_flush(int rank, DFC_Win win)
{
    WIN_SYNC_FAST_BODY(shm_fast_flush(rank, win), check_passive(__func__, w, rank),
                       dfc_win_flush(w, rank));
}

int DFC_Win_flush_all(DFC_Win win)
{
    WIN_SYNC_BODY(check_passive(__func__, w, -1), dfc_win_flush(w, -1));
}

/* Local completion: DFC copies the origin data when an operation starts, so it is the
 * remote completion of flush (stronger, as MPI allows). */
int DFC_Win_flush_local(int rank, DFC_Win win)
{
    WIN_SYNC_FAST_BODY(shm_fast_flush(rank, win), check_passive(__func__, w, rank),
                       dfc_win_flush(w, rank));
}

int DFC_Win_flush_local_all(DFC_Win win)
{
    WIN_SYNC_BODY(check_passive(__func__, w, -1), dfc_win_flush(w, -1));
}

int DFC_Win_sync(DFC_Win win) { WIN_SYNC_BODY(DFC_SUCCESS, dfc_win_sync(w)); }

static int check_group_arg(const char *func, DFC_Group group, int assert, int allowed,
                           dfc_group_t **g)
{
    int rc;
    if ((rc = dfc_group_check(group, func, "group", g)) ||
        (rc = check_assert(func, assert, allowed)))
        return rc;
    return DFC_SUCCESS;
}

int DFC_Win_post(DFC_Group group, int assert, DFC_Win win)
{
    dfc_group_t *g = NULL;
    WIN_SYNC_BODY(check_group_arg(__func__, group, assert,
                                  DFC_MODE_NOCHECK | DFC_MODE_NOSTORE | DFC_MODE_NOPUT, &g),
                  dfc_win_post(w, g));
}

int DFC_Win_start(DFC_Group group, int assert, DFC_Win win)
{
    dfc_group_t *g = NULL;
    WIN_SYNC_BODY(check_group_arg(__func__, group, assert, DFC_MODE_NOCHECK, &g),
                  dfc_win_start(w, g));
}

int DFC_Win_complete(DFC_Win win) { WIN_SYNC_BODY(DFC_SUCCESS, dfc_win_complete(w)); }

int DFC_Win_wait(DFC_Win win) { WIN_SYNC_BODY(DFC_SUCCESS, dfc_win_wait(w, 0, NULL)); }

int DFC_Win_test(DFC_Win win, int *flag)
{
    WIN_SYNC_BODY(dfc_api_check_ptr(__func__, "flag", flag), dfc_win_wait(w, 1, flag));
}
