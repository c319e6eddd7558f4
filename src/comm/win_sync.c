/*
 * win_sync.c - synchronization of windows: fence, passive target (lock/unlock, flush,
 * sync) and general active target (post/start/complete/wait).
 *
 * Remote completion at an AM target is an acknowledged FLUSH (or UNLOCK): the target
 * applies requests in arrival order (win_am.c), so the acknowledgement follows the
 * origin's earlier operations. SHM windows complete at the store itself; their locks are
 * words in the segment (dfc_win_ctl_t) taken with atomics, so the target takes no part.
 * Post/start/complete/wait use POST and DONE messages on both backends.
 */
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "comm/dfc_win.h"

static int sync_err(const char *func, const char *what)
{
    return dfc_err(DFC_ERR_RMA_SYNC, func, "%s", what);
}

/* Remote completion of this origin's operations at target (-1: every target). */
static int complete_at(dfc_win_t *w, int target)
{
    if (w->backend == DFC_WIN_BACKEND_SHM) {
        atomic_thread_fence(memory_order_seq_cst);
        return DFC_SUCCESS;
    }
    for (int r = target < 0 ? 0 : target; r < (target < 0 ? w->size : target + 1); r++) {
        if (!w->touched[r]) continue;
        int sent = 0; /* the last Put or Accumulate, when held, carries the flush */
        int rc = dfc_win_am_release(w, r, 1, &sent);
        dfc_win_msg_t m = {0};
        m.kind = DFC_WIN_MSG_FLUSH;
        if (!rc && !sent) rc = dfc_win_am_send(w, r, &m, NULL, 0, NULL, 0, NULL);
        if (rc) return rc;
        w->touched[r] = 0;
    }
    return dfc_win_am_wait_target(w, target);
}

/* SHM windows: a dissemination barrier on flags in the segment (dfc_win_ctl_t.bar), the
 * window's own: no message, no request, no pass over the transports while the partner's
 * flag is already up. Round k stores this fence's number into bar[k] of rank + 2^k and waits
 * for rank - 2^k's; the numbers only grow and each flag has one writer, so a partner already
 * in the next fence (its number one higher) also lets this one through. The stores and loads
 * are sequentially consistent: every member's stores before its fence reach every member
 * after it, and a waiter that went to sleep on its flag (after BAR_SLEEP_NS: no transport
 * would wake it for a store) is seen by the store, which wakes it (Dekker: count yourself,
 * then look; store, then look for sleepers). */
#define BAR_SPIN_NS 20000ull    /* progress passes without yielding: DFC_SPIN_US's default */
#define BAR_SLEEP_NS 2000000ull /* then yielding, until 2 ms: past DFC_YIELD_US's default */
#define BAR_NAP_NS 1000000      /* then asleep, 1 ms at most: the rest of progress goes on */

static int bar_up(const _Atomic uint32_t *flag, uint32_t seq)
{
    return (int32_t)(atomic_load(flag) - seq) >= 0;
}

static void bar_store(dfc_win_ctl_t *to, int k, uint32_t seq)
{
    atomic_store(&to->bar[k], seq);
    if (atomic_load(&to->bar_sleepers))
        syscall(SYS_futex, (uint32_t *)&to->bar[k], FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void bar_nap(dfc_win_ctl_t *me, int k, uint32_t seq)
{
    atomic_fetch_add(&me->bar_sleepers, 1);
    uint32_t v = atomic_load(&me->bar[k]);
    if ((int32_t)(v - seq) < 0) {
        struct timespec ts = {0, BAR_NAP_NS};
        DFC_UNLOCK();
        syscall(SYS_futex, (uint32_t *)&me->bar[k], FUTEX_WAIT, v, &ts, NULL, 0);
        DFC_LOCK();
    }
    atomic_fetch_sub(&me->bar_sleepers, 1);
}

/* Waits for flag k, progressing the rest meanwhile: passes, then passes that yield (from
 * the first when the node is oversubscribed, as dfc_progress_wait), then naps. */
static int bar_wait(dfc_win_ctl_t *me, int k, uint32_t seq)
{
    for (int spin = 0; spin < 128; spin++) /* the partner of a balanced fence is that close */
        if (bar_up(&me->bar[k], seq)) return DFC_SUCCESS;
    uint64_t spin_ns = dfc_progress_oversubscribed() ? 0 : BAR_SPIN_NS;
    uint64_t idle_since = dfc_time_ns();
    int reported = 0;
    while (!bar_up(&me->bar[k], seq)) {
        int n = dfc_progress();
        if (n < 0) return -n;
        uint64_t now = dfc_time_ns();
        if (n > 0) idle_since = now, reported = 0;
        else if (now - idle_since >= BAR_SLEEP_NS) {
            dfc_progress_hang_check(idle_since, &reported);
            bar_nap(me, k, seq);
        } else if (now - idle_since >= spin_ns) {
            DFC_UNLOCK();
            sched_yield();
            DFC_LOCK();
        }
    }
    return DFC_SUCCESS;
}

static int shm_barrier(dfc_win_t *w)
{
    uint32_t seq = ++w->fences;
    for (int d = 1, k = 0; d < w->size; d *= 2, k++) {
        bar_store(&w->ctl[(w->rank + d) % w->size], k, seq);
        int rc = bar_wait(&w->ctl[w->rank], k, seq);
        if (rc) return rc;
    }
    return DFC_SUCCESS;
}

int dfc_win_fence(dfc_win_t *w, int assert)
{
    if (w->start_group || w->post_group || w->lock_all)
        return sync_err("DFC_Win_fence",
                        "invalid argument win: a post/start or lock epoch is open");
    for (int r = 0; r < w->size; r++)
        if (w->locked[r])
            return sync_err("DFC_Win_fence", "invalid argument win: a lock epoch is open");
    int rc = complete_at(w, -1);
    if (!rc)
        rc = w->backend == DFC_WIN_BACKEND_SHM && w->size < (1 << DFC_WIN_BAR_ROUNDS)
                 ? shm_barrier(w)
                 : dfc_win_barrier(w);
    w->fence_epoch = !(assert &DFC_MODE_NOSUCCEED);
    return rc;
}

/* ---- Passive target ---------------------------------------------------------------------- */
typedef struct {
    dfc_win_t *w;
    int rank, excl;
} shm_lock_arg_t;

static int shm_try_lock(void *arg)
{
    shm_lock_arg_t *a = arg;
    return dfc_win_shm_try_lock(a->w, a->rank, a->excl);
}

static int lock_one(dfc_win_t *w, int rank, int excl)
{
    if (w->backend == DFC_WIN_BACKEND_SHM) {
        shm_lock_arg_t a = {w, rank, excl};
        return dfc_progress_wait(shm_try_lock, &a);
    }
    dfc_win_msg_t m = {0};
    m.kind = excl ? DFC_WIN_MSG_LOCK_EXCL : DFC_WIN_MSG_LOCK_SHARED;
    return dfc_win_am_send(w, rank, &m, NULL, 0, NULL, 0, NULL);
}

static int unlock_one(dfc_win_t *w, int rank)
{
    int excl = w->locked[rank] == DFC_LOCK_EXCLUSIVE;
    w->locked[rank] = 0;
    if (w->backend == DFC_WIN_BACKEND_SHM) {
        dfc_win_shm_unlock(w, rank, excl); /* a full fence itself */
        return DFC_SUCCESS;
    }
    int rc = dfc_win_dev_drain(w, rank); /* direct copies land before the lock is released */
    if (rc) return rc;
    dfc_win_msg_t m = {0};
    m.kind = DFC_WIN_MSG_UNLOCK;
    w->touched[rank] = 0; /* the acknowledgement of UNLOCK completes them */
    int sent = 0;         /* the last Put or Accumulate, when held, carries the UNLOCK */
    rc = dfc_win_am_release_unlock(w, rank, &sent);
    return rc || sent ? rc : dfc_win_am_send(w, rank, &m, NULL, 0, NULL, 0, NULL);
}

int dfc_win_lock(dfc_win_t *w, int lock_type, int rank)
{
    if (w->locked[rank] || w->lock_all)
        return dfc_err(DFC_ERR_RMA_SYNC, "DFC_Win_lock",
                       "invalid argument rank: this process already holds a lock on rank %d", rank);
    if (w->start_group || w->post_group)
        return sync_err("DFC_Win_lock", "invalid argument win: a post/start epoch is open");
    int rc = lock_one(w, rank, lock_type == DFC_LOCK_EXCLUSIVE);
    if (!rc && w->backend == DFC_WIN_BACKEND_AM) rc = dfc_win_am_wait_target(w, rank);
    if (!rc) w->locked[rank] = lock_type;
    return rc;
}

int dfc_win_unlock(dfc_win_t *w, int rank)
{
    if (!w->locked[rank] || w->lock_all)
        return dfc_err(DFC_ERR_RMA_SYNC, "DFC_Win_unlock",
                       "invalid argument rank: this process holds no lock on rank %d (from "
                       "DFC_Win_lock)",
                       rank);
    int rc = unlock_one(w, rank);
    if (!rc && w->backend == DFC_WIN_BACKEND_AM) rc = dfc_win_am_wait_target(w, rank);
    return rc;
}

int dfc_win_lock_all(dfc_win_t *w)
{
    if (w->lock_all)
        return sync_err("DFC_Win_lock_all", "invalid argument win: DFC_Win_lock_all was "
                                            "already called");
    for (int r = 0; r < w->size; r++)
        if (w->locked[r])
            return dfc_err(DFC_ERR_RMA_SYNC, "DFC_Win_lock_all",
                           "invalid argument win: this process holds a lock on rank %d", r);
    int rc = DFC_SUCCESS;
    for (int r = 0; r < w->size && !rc; r++) rc = lock_one(w, r, 0);
    if (!rc && w->backend == DFC_WIN_BACKEND_AM) rc = dfc_win_am_wait_target(w, -1);
    if (rc) return rc;
    for (int r = 0; r < w->size; r++) w->locked[r] = DFC_LOCK_SHARED;
    w->lock_all = 1;
    return DFC_SUCCESS;
}

int dfc_win_unlock_all(dfc_win_t *w)
{
    if (!w->lock_all)
        return sync_err("DFC_Win_unlock_all",
                        "invalid argument win: no epoch of DFC_Win_lock_all is open");
    int rc = DFC_SUCCESS;
    for (int r = 0; r < w->size && !rc; r++) rc = unlock_one(w, r);
    w->lock_all = 0;
    if (!rc && w->backend == DFC_WIN_BACKEND_AM) rc = dfc_win_am_wait_target(w, -1);
    return rc;
}

int dfc_win_flush(dfc_win_t *w, int rank) { return complete_at(w, rank); }

int dfc_win_sync(dfc_win_t *w)
{
    (void)w;
    atomic_thread_fence(memory_order_seq_cst);
    return DFC_SUCCESS;
}

/* ---- General active target -------------------------------------------------------------- */
/* Window rank of group member i (groups hold world ranks). */
static int member(dfc_win_t *w, dfc_group_t *g, int i)
{
    return dfc_group_rank_of(w->comm->group, g->world[i]);
}

static int check_group(dfc_win_t *w, dfc_group_t *g, const char *func)
{
    for (int i = 0; i < g->size; i++)
        if (member(w, g, i) == DFC_UNDEFINED)
            return dfc_err(DFC_ERR_GROUP, func,
                           "invalid argument group: its member %d (world rank %d) is not in "
                           "the window",
                           i, g->world[i]);
    return DFC_SUCCESS;
}

static int send_all(dfc_win_t *w, dfc_group_t *g, int kind)
{
    for (int i = 0; i < g->size; i++) {
        dfc_win_msg_t m = {0};
        m.kind = (uint32_t)kind;
        int rc = dfc_win_am_send(w, member(w, g, i), &m, NULL, 0, NULL, -1, NULL);
        if (rc) return rc;
    }
    return DFC_SUCCESS;
}

int dfc_win_post(dfc_win_t *w, dfc_group_t *g)
{
    if (w->post_group)
        return sync_err("DFC_Win_post", "invalid argument win: an exposure epoch of "
                                        "DFC_Win_post is already open");
    int rc = check_group(w, g, "DFC_Win_post");
    if (rc) return rc;
    atomic_thread_fence(memory_order_seq_cst);
    if ((rc = send_all(w, g, DFC_WIN_MSG_POST))) return rc;
    dfc_group_retain(g);
    w->post_group = g;
    return DFC_SUCCESS;
}

typedef struct {
    dfc_win_t *w;
    dfc_group_t *g;
    int *seen;
} seen_arg_t;

static int all_seen(void *arg)
{
    seen_arg_t *a = arg;
    for (int i = 0; i < a->g->size; i++)
        if (a->seen[member(a->w, a->g, i)] == 0) return 0;
    return 1;
}

static void consume(seen_arg_t *a)
{
    for (int i = 0; i < a->g->size; i++) a->seen[member(a->w, a->g, i)]--;
}

int dfc_win_start(dfc_win_t *w, dfc_group_t *g)
{
    if (w->start_group)
        return sync_err("DFC_Win_start", "invalid argument win: an access epoch of "
                                         "DFC_Win_start is already open");
    int rc = check_group(w, g, "DFC_Win_start");
    if (rc) return rc;
    seen_arg_t a = {w, g, w->posts_seen};
    if ((rc = dfc_progress_wait(all_seen, &a))) return rc;
    consume(&a);
    dfc_group_retain(g);
    w->start_group = g;
    return DFC_SUCCESS;
}

int dfc_win_complete(dfc_win_t *w)
{
    if (!w->start_group)
        return sync_err("DFC_Win_complete",
                        "invalid argument win: no access epoch of DFC_Win_start is open");
    atomic_thread_fence(memory_order_seq_cst);
    dfc_group_t *g = w->start_group;
    int rc = dfc_win_dev_drain(w, -1); /* direct copies land before the targets' Wait ends */
    if (!rc) rc = send_all(w, g, DFC_WIN_MSG_DONE);
    for (int i = 0; i < g->size; i++) w->touched[member(w, g, i)] = 0; /* DONE follows them */
    if (!rc) rc = dfc_win_am_wait_target(w, -1);
    w->start_group = NULL;
    dfc_group_release(g);
    return rc;
}

int dfc_win_wait(dfc_win_t *w, int test, int *flag)
{
    if (!w->post_group)
        return sync_err(test ? "DFC_Win_test" : "DFC_Win_wait",
                        "invalid argument win: no exposure epoch of DFC_Win_post is open");
    seen_arg_t a = {w, w->post_group, w->dones_seen};
    int rc = DFC_SUCCESS;
    if (test) {
        int n = dfc_progress_poll();
        if (n < 0) return -n;
        if (!all_seen(&a)) {
            *flag = 0;
            return DFC_SUCCESS;
        }
    } else if ((rc = dfc_progress_wait(all_seen, &a))) return rc;
    consume(&a);
    atomic_thread_fence(memory_order_seq_cst);
    dfc_group_release(w->post_group);
    w->post_group = NULL;
    if (flag) *flag = 1;
    return DFC_SUCCESS;
}
