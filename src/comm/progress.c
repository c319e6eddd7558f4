/*
 * progress.c - the host progress engine.
 *
 * One pass (dfc_progress) runs three phases, each one call (the first two are
 * dfc_progress_net, which the collective scheduler also calls while it spins):
 *   1. transports: deliver what arrived. First, because arrivals free ring space in peers,
 *      complete receives and answer rendezvous handshakes.
 *   2. queued output: packets a full transport refused earlier, then rendezvous DATA.
 *   3. the collective scheduler (registered by the coll layer): runs the ready steps of
 *      active collectives, preempting those that wait on a peer.
 * Waiting (dfc_progress_until) spins on passes while they make progress, then backs off:
 * sched_yield, then a blocking wait inside a transport (futex doorbell for shm, poll for
 * tcp), or on a futex of this process when no transport can wait (a single process). That is what lets 8 ranks share 2 cores (DESIGN.md 2.2): a waiting rank leaves the
 * CPU to the rank it waits for instead of spinning against it.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "comm/dfc_comm.h"
#include "comm/dfc_win.h"
#include "gpu/dfc_gpu.h"
#include "pmix/dfc_boot.h"
#include "util/dfc_place.h"

static dfc_progress_hook_fn coll_hook;
static dfc_progress_hook_fn coll_active_hook; /* 1 while collectives are scheduled */
static dfc_report_hook_fn coll_report_hook;
/* Set while windows exist (win.c): a pointer, so that progress does not link the window
 * engine into programs without it (the unit tests). */
int (*dfc_win_progress_hook)(void);
void (*dfc_win_report_hook)(FILE *f);
extern dfc_tl_t *dfc_tls[];
extern int dfc_ntls;

static long spin_ns = -1, yield_ns, sleep_us, thread_spin_ns;
static long lock_spin_ns = 10000; /* DFC_LOCK_SPIN_US; read before a second thread calls in */
static int oversubscribed = -1;

/* More of the job's processes on this kernel than processors online (init.c counts them by
 * the kernel's boot id, also across containers): then a rank that polls only delays the peer
 * it waits for, which needs its core (issue 16). Read once; the scheduler (coll) shortens its
 * spin budgets by it too. */
int dfc_progress_oversubscribed(void)
{
    if (oversubscribed < 0) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        oversubscribed = ncpu > 0 && DFC_MAX2(dfc_proc.kernel_size, dfc_proc.local_size) > ncpu;
    }
    return oversubscribed;
}

/* Reads the waiting parameters once. Spinning is bounded by time, not by passes: a pass over
 * tcp is a system call, and a rank that spins while its peer needs the core only delays the
 * message it waits for. */
static void read_wait_params(void)
{
    if (spin_ns >= 0) return;
    /* More ranks on this node than processors: spinning only delays the peer we wait
     * for, so yield from the first empty pass (what Open MPI does when oversubscribed). */
    int oversubscribed = dfc_progress_oversubscribed();
    spin_ns =
        1000 *
        dfc_env_long(
            "DFC_SPIN_US", oversubscribed ? 0 : 20,
            "microseconds a waiting thread spins on progress before it starts yielding the CPU "
            "(default 20, or 0 when the node has more ranks than processors)");
    yield_ns =
        1000 *
        dfc_env_long(
            "DFC_YIELD_US", oversubscribed ? 2000 : 200,
            "further microseconds of progress with sched_yield before a waiting thread sleeps "
            "(default 200, or 2000 when the node has more ranks than processors)");
    sleep_us =
        dfc_env_long("DFC_SLEEP_US", 1000,
                     "longest sleep (microseconds) of a waiting thread before it polls again");
    thread_spin_ns =
        1000 * dfc_env_long("DFC_ASYNC_SPIN_US", oversubscribed ? 0 : 1000,
                            "microseconds the progress thread keeps polling after its last event "
                            "before it sleeps (default 1000, or 0 when the node has more ranks "
                            "than processors)");
    lock_spin_ns =
        1000 * dfc_env_long("DFC_LOCK_SPIN_US", oversubscribed ? 0 : 10,
                            "microseconds a thread that finds the library lock held spins for it "
                            "before it sleeps in the mutex (default 10, or 0 when the node has "
                            "more ranks than processors)");
}

/* For dfc_env_register_all (dfc_info): a job that never waits reads them nowhere else. */
static int bind_param(void)
{
    return (int)dfc_env_long("DFC_ASYNC_PROGRESS_BIND", 1,
                             "1: the progress thread runs on a core of the rank's binding other "
                             "than its main thread's (hwloc); 0: it inherits the binding");
}

void dfc_progress_register_params(void)
{
    read_wait_params();
    bind_param();
}

void dfc_progress_set_coll_hook(dfc_progress_hook_fn fn) { coll_hook = fn; }
void dfc_progress_set_coll_active_hook(dfc_progress_hook_fn fn) { coll_active_hook = fn; }
void dfc_progress_set_coll_report_hook(dfc_report_hook_fn fn) { coll_report_hook = fn; }

/* ---- The hang report ---------------------------------------------------------------------
 * On SIGUSR1, or after DFC_HANG_REPORT_SECONDS inside one blocking wait without a progress
 * event, each rank prints its pending operations to stderr. The signal handler only sets a
 * flag; the report is printed by the progress loop (a waiting caller, a Test poll or the
 * progress thread), which holds the library lock and may walk the queues safely. */
static volatile sig_atomic_t hang_report_requested;
static uint64_t hang_report_ns; /* 0: no timeout report */
static int hang_signal_installed;
static struct sigaction hang_old_action;

static void hang_signal_handler(int sig)
{
    (void)sig;
    hang_report_requested = 1;
}

void dfc_hang_report(FILE *f, const char *reason, double waited_s)
{
    fprintf(f, "[dfc hang report] rank %d: pid %d host %s waited %.1f s without progress (%s)\n",
            dfc_proc.world_rank, (int)getpid(), dfc_proc.hostname, waited_s, reason);
    dfc_p2p_report(f);
    if (coll_report_hook) coll_report_hook(f);
    if (dfc_win_report_hook) dfc_win_report_hook(f);
    fprintf(f, "[dfc hang report] rank %d: end\n", dfc_proc.world_rank);
    fflush(f);
}

/* Prints the report if SIGUSR1 asked for one. idle_since: start of the current idle
 * period (0: none). */
static void hang_check_signal(uint64_t idle_since)
{
    if (!hang_report_requested) return;
    hang_report_requested = 0;
    double waited = idle_since ? (double)(dfc_time_ns() - idle_since) / 1e9 : 0.0;
    dfc_hang_report(stderr, "SIGUSR1", waited);
}

void dfc_progress_hang_check(uint64_t idle_since, int *reported)
{
    hang_check_signal(idle_since);
    uint64_t idle = dfc_time_ns() - idle_since;
    if (hang_report_ns && !*reported && idle >= hang_report_ns) {
        *reported = 1;
        dfc_hang_report(stderr, "DFC_HANG_REPORT_SECONDS", (double)idle / 1e9);
    }
}

void dfc_hang_report_init(void)
{
    long secs = dfc_env_long(
        "DFC_HANG_REPORT_SECONDS", 0,
        "seconds a blocking call may wait without any progress event before each rank prints "
        "its pending operations to stderr (0: never)");
    hang_report_ns = secs > 0 ? (uint64_t)secs * 1000000000ull : 0;
    if (!dfc_env_long("DFC_HANG_REPORT_SIGNAL", 1,
                      "1: SIGUSR1 makes a rank print its pending operations to stderr (installed "
                      "only if the application has no SIGUSR1 handler); 0: no handler"))
        return;
    struct sigaction old;
    if (sigaction(SIGUSR1, NULL, &old) != 0) return;
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) return; /* the app's own */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hang_signal_handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGUSR1, &sa, NULL) == 0) {
        hang_old_action = old;
        hang_signal_installed = 1;
    }
}

void dfc_hang_report_finalize(void)
{
    if (!hang_signal_installed) return;
    sigaction(SIGUSR1, &hang_old_action, NULL);
    hang_signal_installed = 0;
}

int dfc_progress_net(void)
{
    int events = 0;
    for (int i = 0; i < dfc_ntls; i++) {
        int n = dfc_tls[i]->ops->progress(dfc_tls[i], dfc_p2p_deliver);
        if (n > 0) events += n;
        else if (n < 0) { /* a lost peer fails what depends on it; the rest goes on */
            dfc_fault_peer(dfc_tls[i]->failed_peer, -n, dfc_tls[i]->ops->name);
            events++;
        }
    }
    if (DFC_UNLIKELY(dfc_boot_failed_pending())) events += dfc_fault_poll();
    return events + dfc_p2p_progress_sends();
}

/* Phase 3 of a pass and the one-sided requests, given the events of phases 1-2. */
static int progress_hooks(int events)
{
    if (coll_hook) events += coll_hook();
    if (dfc_win_progress_hook) events += dfc_win_progress_hook(); /* one-sided requests */
    if (events) dfc_progress_changed = 1; /* what another thread waits for may have moved */
    return events;
}

int dfc_progress(void)
{
    int events = dfc_progress_net();
    if (events < 0) return events;
    return progress_hooks(events);
}

/* ---- Sleeping and waking (dfc(7), "Waiting", is the comment of record) ------------------
 * Between processes, a transport's wait sleeps on what a peer can signal (shm: this
 * process's doorbell, rung for data and for freed ring space; tcp: poll). Between threads
 * of this process: a thread about to sleep counts itself in dfc_lock_sleepers and the
 * transport reads wake_seq, both while it still holds the lock; a thread that changed
 * state another may wait for (dfc_progress_changed: a request completed, a packet posted, a
 * pass that moved something) bumps wake_seq and wakes the sleepers as it drops the lock
 * (DFC_UNLOCK). Everything is under the one lock except the sleep itself, so no wake-up
 * falls between a sleeper's last look and its sleep. Nothing sleeps or yields with the
 * lock held. */
int dfc_lock_sleepers, dfc_progress_changed;
static _Atomic uint32_t wake_seq;

static long futex_private(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, (uint32_t *)addr, op | FUTEX_PRIVATE_FLAG, val, ts, NULL, 0);
}

void dfc_progress_wake(void)
{
    dfc_progress_changed = 0;
    atomic_fetch_add_explicit(&wake_seq, 1, memory_order_seq_cst);
    for (int i = 0; i < dfc_ntls; i++)
        if (dfc_tls[i]->ops->wake) dfc_tls[i]->ops->wake(dfc_tls[i]);
    futex_private(&wake_seq, FUTEX_WAKE, INT_MAX, NULL);
}

/* ---- The library lock under contention (dfc_comm.h, DFC_LOCK) ----------------------------
 * With the progress thread (or several application threads) the lock changes hands often,
 * and each pass of the thread holds it for well under a microsecond. A thread that slept in
 * the mutex whenever it found it held paid a futex wake-up and made the holder's unlock a
 * system call: beside the thread, a 1-rank Iallreduce call of 0.2 us (median) took up to
 * 5 us on average and 13-17 us at the 99th percentile in a third of the runs on the 2-core
 * machine (13-22 us at the 90th when the thread slept between operations), more than a
 * whole small nonblocking collective, which is what the overlap benchmark's Iallreduce +
 * Wait measure (issue 16: 0 % below 32 KiB; BENCHMARKS.md, sixth pass). So a contended
 * thread first spins on the lock for DFC_LOCK_SPIN_US (0 when oversubscribed: the holder may
 * need our core), then sleeps. */

/* What the lock cost, logged when the progress thread stops (DFC_DEBUG=2:sched), so that a
 * run on another machine shows where an overlap figure went. Written under the lock. */
static struct {
    uint64_t waits, slept, wait_ns, wait_max_ns;   /* dfc_lock_contended */
    uint64_t passes, sleeps, hold_ns, hold_max_ns; /* the progress thread */
    uint64_t coll_passes;                          /* its passes with collectives queued */
    uint64_t done_start, done_thread, done_other;  /* dfc_progress_count_coll_done */
} lock_stats;

static __thread int on_progress_thread;

int dfc_progress_on_thread(void) { return on_progress_thread; }

/* Whether the thread moves the collectives at all is what an overlap figure of 0 asks first
 * (issue 16): counted where they complete, under the lock. */
void dfc_progress_count_coll_done(int in_start)
{
    if (in_start) lock_stats.done_start++;
    else if (on_progress_thread) lock_stats.done_thread++;
    else lock_stats.done_other++;
}

void dfc_lock_contended(void)
{
    __atomic_add_fetch(&dfc_lock_wanted, 1, __ATOMIC_RELAXED);
    uint64_t start = dfc_time_ns(), t = start;
    int slept = 0;
    for (unsigned i = 1; lock_spin_ns > 0; i++) {
        dfc_cpu_relax();
        if (!pthread_mutex_trylock(&dfc_big_lock.mutex)) goto locked;
        if (i % 64) continue; /* the clock costs more than a look at the lock */
        if ((t = dfc_time_ns()) - start > (uint64_t)lock_spin_ns) break;
    }
    slept = 1;
    pthread_mutex_lock(&dfc_big_lock.mutex);
locked:
    __atomic_sub_fetch(&dfc_lock_wanted, 1, __ATOMIC_RELAXED);
    t = dfc_time_ns() - start;
    lock_stats.waits++;
    lock_stats.slept += slept;
    lock_stats.wait_ns += t;
    if (t > lock_stats.wait_max_ns) lock_stats.wait_max_ns = t;
}

static void release_lock(void)
{
    if (dfc_lock_enabled) pthread_mutex_unlock(&dfc_big_lock.mutex);
}

/* Sleeps in the transport that can wake us; with several, the one with a wait op and a
 * short timeout, since a packet on another transport does not wake it. With none (a single
 * process: self only), on wake_seq, which other threads of this process bump. Called and
 * returns with the lock held. */
static void sleep_in_transports(long max_us)
{
    dfc_tl_t *waiter = NULL;
    int nwait = 0;
    for (int i = 0; i < dfc_ntls; i++)
        if (dfc_tls[i]->ops->wait) {
            waiter = dfc_tls[i];
            nwait++;
        }
    long us = nwait > 1 ? DFC_MIN2(max_us, 200) : max_us;
    /* A wait that a thread of ours cannot interrupt must not sleep long while others run. */
    if (waiter && !waiter->ops->wake && dfc_lock_enabled) us = DFC_MIN2(us, 200);
    /* We saw the latest state; those already asleep may not have: wake them first. */
    if (dfc_lock_sleepers && dfc_progress_changed) dfc_progress_wake();
    dfc_progress_changed = 0;
    dfc_lock_sleepers++;
    if (waiter) {
        waiter->wake_seq = &wake_seq;
        waiter->wait_release = release_lock;
        waiter->ops->wait(waiter, us); /* drops the lock */
    } else {
        uint32_t seen = atomic_load_explicit(&wake_seq, memory_order_seq_cst);
        struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
        release_lock();
        futex_private(&wake_seq, FUTEX_WAIT, seen, &ts);
    }
    DFC_LOCK();
    dfc_lock_sleepers--;
}

/* Test-family calls make one pass each. A program that polls in a loop (while (!flag)
 * DFC_Test(...)) must still leave the core to the peer it waits for: after DFC_SPIN_US of
 * polls without an event, each further empty poll yields the processor, and after
 * DFC_YIELD_US more, a poll that follows the last within POLL_LOOP_NS (the program does
 * nothing else) sleeps in the transports for at most POLL_SLEEP_US, woken by an arrival.
 * Yielding alone is no sleep: on the 2-core VM, ranks that polled and yielded for seconds
 * starved the kernel's threads, tcp's delivery with them (issue 16, BENCHMARKS.md stop 37).
 * A program that computes between its polls never sleeps here. */
#define POLL_LOOP_NS 20000
#define POLL_SLEEP_US 100
int dfc_progress_poll(void)
{
    static uint64_t idle_since, last_poll;
    static unsigned idle_polls;
    static int spun; /* idle for DFC_SPIN_US: yielding or sleeping from now on */
    read_wait_params();
    hang_check_signal(idle_since);
    int n = dfc_progress();
    if (n != 0) {
        idle_since = 0;
        spun = 0;
        return n;
    }
    /* While it spins, a poll reads the clock once in 16 empty polls: the read cost a third of
     * an empty DFC_Test on the 2-core VM (issue 16). Oversubscribed (no spin), every empty
     * poll yields, as below. */
    if (spin_ns > 0 && idle_since && !spun && (++idle_polls & 15)) return 0;
    uint64_t now = dfc_time_ns(), gap = now - last_poll;
    last_poll = now;
    if (!idle_since) idle_since = now;
    spun = now - idle_since > (uint64_t)spin_ns;
    if (spun && now - idle_since > (uint64_t)(spin_ns + yield_ns) && gap < POLL_LOOP_NS &&
        !dfc_gpu_busy() && !dfc_p2p_dev_busy())
        sleep_in_transports(DFC_MIN2(sleep_us, POLL_SLEEP_US));
    else if (spun) {
        DFC_UNLOCK();
        sched_yield();
        DFC_LOCK();
    }
    return 0;
}

static int flag_is_set(void *arg) { return *(volatile int *)arg; }

int dfc_progress_until(volatile int *done) { return dfc_progress_wait(flag_is_set, (void *)done); }

int dfc_progress_wait(int (*ready)(void *arg), void *arg)
{
    read_wait_params();
    uint64_t idle_since = 0; /* 0: not idle */
    unsigned idle_passes = 0;
    int reported = 0; /* the timeout report was printed for this idle period */
    while (!ready(arg)) {
        hang_check_signal(idle_since);
        int n = dfc_progress_net();
        /* The pass whose transports completed what we wait for returns before the collective
         * phase, which the next call runs: as when the request completed before the wait
         * (a blocking receive's reply goes out that much sooner, issue 16). */
        if (n > 0 && ready(arg)) {
            dfc_progress_changed = 1;
            break;
        }
        if (n >= 0) n = progress_hooks(n);
        if (n < 0) return -n;
        if (n > 0) {
            idle_since = 0;
            idle_passes = 0;
            reported = 0;
            continue;
        }
        /* The clock is read on one idle pass in 16: it costs more than an empty poll.
         * Oversubscribed, every empty pass yields (as Open MPI's yield_when_idle does):
         * the peer that has to move runs only when this rank leaves the core. */
        if (++idle_passes & 15) {
            if (oversubscribed && spin_ns == 0) {
                DFC_UNLOCK();
                sched_yield();
                DFC_LOCK();
            }
            continue;
        }
        uint64_t now = dfc_time_ns();
        if (!idle_since) idle_since = now;
        uint64_t idle = now - idle_since;
        if (hang_report_ns && !reported && idle >= hang_report_ns) {
            reported = 1;
            dfc_hang_report(stderr, "DFC_HANG_REPORT_SECONDS", (double)idle / 1e9);
        }
        if (idle < (uint64_t)spin_ns) continue;
        /* While the GPU daemon holds work, its completion is a word in pinned memory that no
         * transport can wake us for: keep yielding rather than sleeping. */
        if (idle < (uint64_t)(spin_ns + yield_ns) || dfc_gpu_busy() || dfc_p2p_dev_busy()) {
            DFC_UNLOCK();
            sched_yield();
            DFC_LOCK();
            continue;
        }
        sleep_in_transports(sleep_us);
    }
    return DFC_SUCCESS;
}

/* ---- The asynchronous progress thread (DFC_ASYNC_PROGRESS=1) ------------------------------
 * Drives the same passes as a waiting caller, so that nonblocking operations advance while
 * the application computes. It holds the library lock for one pass at a time and yields the
 * processor between passes. It does not sleep while work it could move is in flight
 * (scheduled collectives, rendezvous data, device copies) and events keep coming: a sleep's
 * wake-up (tens of microseconds) is longer than the whole of a small nonblocking collective
 * (thread_may_sleep_busy says when it sleeps all the same). (Overlap below 32 KiB still
 * measured 0 on 16 cores with this, BENCHMARKS.md stop 18; the likely cause, seen on 2
 * cores: the application's calls slept in the mutex behind the thread's passes and spins,
 * see dfc_lock_contended and scheduler.c's run_head.)
 * Without such work it polls DFC_ASYNC_SPIN_US after its last event
 * (the next operation usually comes within that), then sleeps in the transports, so that
 * an idle rank does not keep a core busy. */
static int work_in_flight(void)
{
    return (coll_active_hook && coll_active_hook()) || !dfc_p2p_idle() || dfc_gpu_busy() ||
           dfc_p2p_dev_busy();
}

/* With work in flight but no event for the spin and yield budgets, the thread sleeps in the
 * transports too (they wake it on an arrival; DFC_SLEEP_US bounds it): the peer it waits
 * for is late anyway. Yielding without end is no sleep: 8 ranks' threads yielding on the
 * 2-core VM starved the kernel's own threads (rcu_preempt, the workqueues) for tens of
 * seconds, and tcp stalled with them (issue 16, BENCHMARKS.md stop 36). Not while the GPU
 * daemon or a device copy holds work: no transport wakes for their completion words. */
static int thread_may_sleep_busy(uint64_t idle)
{
    return idle > (uint64_t)(spin_ns + thread_spin_ns + yield_ns) && !dfc_gpu_busy() &&
           !dfc_p2p_dev_busy();
}

static pthread_t progress_thread;
static int progress_thread_running; /* written by the application's thread under the lock */
static int progress_thread_stop;    /* under the lock */

int dfc_progress_thread_runs(void) { return progress_thread_running; }

/* The progress thread takes the lock again only once no other thread waits for it: a
 * rank's Iallreduce, Test or Wait would otherwise lose every race against the thread and
 * queue behind a run of its passes. It does not sleep in the mutex either while it polls
 * anyway (DFC_ASYNC_SPIN_US): a sleeper there turns the application's every unlock into a
 * futex wake, a system call on the application's time. It tries, yielding in between, and
 * sleeps in the mutex only after that budget (an application thread that holds the lock
 * so long waits in a blocking call, which moves the operations itself). */
static void thread_lock(void)
{
    uint64_t t0 = 0;
    for (;;) {
        if (!__atomic_load_n(&dfc_lock_wanted, __ATOMIC_RELAXED) &&
            !pthread_mutex_trylock(&dfc_big_lock.mutex))
            return;
        /* Not a tight loop of tries: each takes the lock's cache line from the holder, whose
         * call then runs slower (a 0.2 us Iallreduce took 0.9 us in some runs). */
        sched_yield(); /* also: a core shared with the application's thread goes to it */
        uint64_t now = dfc_time_ns();
        if (!t0) t0 = now;
        else if (now - t0 > (uint64_t)(spin_ns + thread_spin_ns)) break;
    }
    pthread_mutex_lock(&dfc_big_lock.mutex);
}

static void *progress_thread_main(void *arg)
{
    (void)arg;
    uint64_t idle_since = 0;
    on_progress_thread = 1;
    thread_lock();
    uint64_t locked_at = dfc_time_ns();
    while (!progress_thread_stop) {
        hang_check_signal(idle_since);
        if (coll_active_hook && coll_active_hook()) lock_stats.coll_passes++;
        int n = dfc_progress();
        uint64_t now = dfc_time_ns(), held = now - locked_at;
        lock_stats.passes++;
        lock_stats.hold_ns += held;
        if (held > lock_stats.hold_max_ns) lock_stats.hold_max_ns = held;
        if (n != 0) idle_since = 0;
        else if (!idle_since) idle_since = now;
        int sleepy = idle_since && now - idle_since > (uint64_t)(spin_ns + thread_spin_ns) &&
                     (!work_in_flight() || thread_may_sleep_busy(now - idle_since));
        if (sleepy) {
            lock_stats.sleeps++;
            sleep_in_transports(sleep_us);
        } else {
            DFC_UNLOCK();
            sched_yield(); /* let the application thread take the lock */
            thread_lock();
        }
        locked_at = dfc_time_ns();
    }
    DFC_UNLOCK();
    return NULL;
}

/* Starts the thread on a core of the rank's binding that the calling (main) thread does not
 * use (util/dfc_place.h has the rule), unless DFC_ASYNC_PROGRESS_BIND=0: a thread on the
 * computing core, or on its hyperthread sibling, slows the computation it is meant to
 * overlap. The choice is logged (DFC_DEBUG=2:sched). */
static int start_thread(void)
{
    pthread_attr_t attr;
    cpu_set_t cpus;
    char why[200];
    /* Unless the node has a processor for every rank and every rank's thread, no core is
     * free for the thread: leave it to the scheduler, which moves it to whichever processor
     * a waiting rank leaves (pinned beside another rank's main thread on 2 cores, exchanges of
     * 1-16 KiB took 1.17-1.27x as long on this project's 2-core VM). */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int bind = 0;
    if (!bind_param()) snprintf(why, sizeof why, "DFC_ASYNC_PROGRESS_BIND=0: the caller's binding");
    else if (ncpu > 0 && 2L * dfc_proc.local_size > ncpu)
        snprintf(why, sizeof why, "fewer processors than ranks and threads: the caller's binding");
    else bind = dfc_place_helper_thread(dfc_proc.local_rank, &cpus, why, sizeof why);
    if (pthread_attr_init(&attr)) return DFC_ERR(DFC_ERR_OTHER, "cannot start the progress thread");
    if (bind && pthread_attr_setaffinity_np(&attr, sizeof cpus, &cpus)) {
        snprintf(why, sizeof why, "the binding was refused: the caller's binding");
        bind = 0;
    }
    DFC_LOG(DFC_LOG_INFO, "sched", "progress thread: %s", why);
    progress_thread_stop = 0;
    int rc = pthread_create(&progress_thread, &attr, progress_thread_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc) return DFC_ERR(DFC_ERR_OTHER, "cannot start the progress thread");
    pthread_setname_np(progress_thread, "dfc-progress"); /* for top -H, gdb, and threadplace */
    progress_thread_running = 1;
    return DFC_SUCCESS;
}

int dfc_progress_thread_start(void)
{
    if (!dfc_env_long("DFC_ASYNC_PROGRESS", 0,
                      "1: a progress thread advances nonblocking operations without DFC calls"))
        return DFC_SUCCESS;
    read_wait_params();
    dfc_lock_enabled = 1;
    return start_thread();
}

/* The first window reached by messages starts the thread (win.c, DFC_RMA_PROGRESS_THREAD)
 * from inside an API call that entered without the lock (threads were off): taking it here
 * keeps that call's unlock at exit balanced. */
int dfc_progress_thread_ensure(void)
{
    if (progress_thread_running) return DFC_SUCCESS;
    read_wait_params();
    if (!dfc_lock_enabled) {
        dfc_lock_enabled = 1;
        pthread_mutex_lock(&dfc_big_lock.mutex);
    }
    return start_thread();
}

void dfc_progress_thread_stop(void)
{
    if (!progress_thread_running) return;
    progress_thread_stop = 1;
    dfc_progress_changed = 1; /* so that DFC_UNLOCK wakes the thread if it sleeps */
    DFC_UNLOCK();             /* the caller holds the lock: let the thread finish its pass */
    pthread_join(progress_thread, NULL);
    DFC_LOCK();
    progress_thread_running = 0;
    uint64_t w = lock_stats.waits ? lock_stats.waits : 1,
             p = lock_stats.passes ? lock_stats.passes : 1;
    DFC_LOG(DFC_LOG_INFO, "sched",
            "progress thread: %llu passes (mean %.2f us, longest %.1f us under the lock; %llu "
            "with collectives queued), %llu sleeps; lock found held %llu times (mean wait %.2f "
            "us, longest %.1f us, %llu slept in the mutex); collectives completed: %llu in the "
            "posting call, %llu by the thread, %llu by other calls",
            (unsigned long long)lock_stats.passes, lock_stats.hold_ns / 1e3 / p,
            lock_stats.hold_max_ns / 1e3, (unsigned long long)lock_stats.coll_passes,
            (unsigned long long)lock_stats.sleeps, (unsigned long long)lock_stats.waits,
            lock_stats.wait_ns / 1e3 / w, lock_stats.wait_max_ns / 1e3,
            (unsigned long long)lock_stats.slept, (unsigned long long)lock_stats.done_start,
            (unsigned long long)lock_stats.done_thread, (unsigned long long)lock_stats.done_other);
}
