/*
 * progress.c - the host progress engine.
 *
 * One pass (dfc_progress) runs three phases, each one call:
 *   1. transports: deliver what arrived. First, because arrivals free ring space in peers,
 *      complete receives and answer rendezvous handshakes.
 *   2. queued output: packets a full transport refused earlier, then rendezvous DATA.
 *   3. the collective scheduler (registered by the coll layer): runs the ready steps of
 *      active collectives, preempting those that wait on a peer.
 * Waiting (dfc_progress_until) spins on passes while they make progress, then backs off:
 * sched_yield, then a blocking wait inside a transport (futex doorbell for shm, poll for
 * tcp). That is what lets 8 ranks share 2 cores (DESIGN.md 2.2): a waiting rank leaves the
 * CPU to the rank it waits for instead of spinning against it.
 */
#include <sched.h>

#include "comm/dfc_comm.h"

static dfc_progress_hook_fn coll_hook;
extern dfc_tl_t *dfc_tls[];
extern int dfc_ntls;

static long spin_passes = -1, yield_passes, sleep_us;

void dfc_progress_set_coll_hook(dfc_progress_hook_fn fn) { coll_hook = fn; }

int dfc_progress(void)
{
    int events = 0;
    for (int i = 0; i < dfc_ntls; i++) {
        int n = dfc_tls[i]->ops->progress(dfc_tls[i], dfc_p2p_deliver);
        if (n > 0) events += n;
        else if (n < 0) return n;
    }
    events += dfc_p2p_progress_sends();
    if (coll_hook) events += coll_hook();
    return events;
}

/* Sleeps in the transport that can wake us; with several, the one with a wait op and a
 * short timeout, since a packet on another transport does not wake it. */
static void sleep_in_transports(void)
{
    dfc_tl_t *waiter = NULL;
    int nwait = 0;
    for (int i = 0; i < dfc_ntls; i++)
        if (dfc_tls[i]->ops->wait) {
            waiter = dfc_tls[i];
            nwait++;
        }
    if (!waiter) {
        sched_yield();
        return;
    }
    long us = nwait > 1 ? DFC_MIN2(sleep_us, 200) : sleep_us;
    DFC_UNLOCK();
    waiter->ops->wait(waiter, us);
    DFC_LOCK();
}

static int flag_is_set(void *arg) { return *(volatile int *)arg; }

int dfc_progress_until(volatile int *done) { return dfc_progress_wait(flag_is_set, (void *)done); }

int dfc_progress_wait(int (*ready)(void *arg), void *arg)
{
    if (spin_passes < 0) {
        spin_passes = dfc_env_long("DFC_SPIN_PASSES", 2000,
            "idle progress passes a waiting thread spins before it starts yielding the CPU");
        yield_passes = dfc_env_long("DFC_YIELD_PASSES", 200,
            "idle passes with sched_yield before a waiting thread sleeps in the transport");
        sleep_us = dfc_env_long("DFC_SLEEP_US", 1000,
            "longest sleep (microseconds) of a waiting thread before it polls again");
    }
    long idle = 0;
    while (!ready(arg)) {
        int n = dfc_progress();
        if (n < 0) return n;
        if (n > 0) {
            idle = 0;
            continue;
        }
        idle++;
        if (idle <= spin_passes) continue;
        if (idle <= spin_passes + yield_passes) {
            DFC_UNLOCK();
            sched_yield();
            DFC_LOCK();
            continue;
        }
        sleep_in_transports();
    }
    return DFC_SUCCESS;
}
