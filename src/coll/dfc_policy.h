/*
 * dfc_policy.h - the scheduling policy of DESIGN.md 2.2, written once: the host scheduler
 * (src/coll/scheduler.c), the GPU daemon kernel (src/gpu/daemon_kernel.cu) and the
 * simulator (bench/dfc_sim) make every scheduling decision through these functions.
 *
 * The executors keep the loop (who polls what, how a pass walks its queue) and ask here:
 *   - where a new collective goes in the run queue (dfc_policy_runs_before: by priority,
 *     first come first served within one);
 *   - whether the head keeps spinning after a poll without a move (dfc_policy_spin_on);
 *   - the head's budget after a wait that ended (dfc_policy_budget_moved: stickiness, up
 *     to twice the polls the wait took) and after giving up (dfc_policy_is_new_preemption,
 *     dfc_policy_budget_preempted: counted and halved once per wait point);
 *   - whether a collective that moved while the head waited becomes the head
 *     (dfc_policy_promote: the peers are on it now, so this rank follows them).
 *
 * Plain C with fixed-width integers, no libc, no pointers into executor state: the kernel
 * calls these from device code with values held in registers or shared memory (hence pure
 * functions returning the new value rather than updating a state struct).
 */
#ifndef DFC_POLICY_H
#define DFC_POLICY_H

#include <stdint.h>

#if defined(__CUDACC__)
#define DFC_HOST_DEVICE __host__ __device__
#else
#define DFC_HOST_DEVICE
#endif

/* The policy's parameters, read from the environment by each executor (DFC_SPIN_BUDGET*,
 * DFC_GPU_SPIN_BUDGET*, DFC_MOVE_TO_HEAD) and passed by value to the kernel. A budget of
 * DFC_POLICY_BUDGET_NEVER never runs out: the head is never preempted (the simulator's
 * "preemption off", which deadlocks in crossed orders). */
typedef struct dfc_policy {
    int32_t budget_init;  /* spin budget of a collective when it starts (polls) */
    int32_t budget_min;   /* a preemption never halves the budget below this */
    int32_t budget_max;   /* a wait that ended never raises the budget above this */
    int32_t move_to_head; /* 1: a collective that moved while the head waited becomes head */
} dfc_policy_t;

#define DFC_POLICY_BUDGET_NEVER INT32_MAX

/* Makes the parameters consistent (1 <= min <= init <= max), whatever the environment gave. */
DFC_HOST_DEVICE static inline dfc_policy_t dfc_policy_make(int64_t init, int64_t min, int64_t max,
                                                           int move_to_head)
{
    dfc_policy_t p;
    if (max > INT32_MAX) max = INT32_MAX;
    if (max < 1) max = 1;
    if (min < 1) min = 1;
    if (min > max) min = max;
    if (init < min) init = min;
    if (init > max) init = max;
    p.budget_init = (int32_t)init;
    p.budget_min = (int32_t)min;
    p.budget_max = (int32_t)max;
    p.move_to_head = move_to_head ? 1 : 0;
    return p;
}

/* Run queue order: does a collective of priority `queued` stay ahead of a new one of
 * priority `incoming`? Higher priority first, FIFO within one: the new collective goes
 * before the first queued one for which this returns 0. */
DFC_HOST_DEVICE static inline int dfc_policy_runs_before(int32_t queued, int32_t incoming)
{
    return queued >= incoming;
}

/* The head polled once more and did not move: count the poll; 1 while it may keep
 * spinning, 0 when its budget is spent (it is then preempted). */
DFC_HOST_DEVICE static inline int dfc_policy_spin_on(int32_t *polls, int32_t budget)
{
    return ++*polls < budget;
}

/* The head moved after waiting `polls` polls: the peers were in step with it, so it gets
 * at least twice that wait next time (stickiness), up to budget_max. polls == 0 (it moved
 * without waiting) changes nothing. */
DFC_HOST_DEVICE static inline int32_t dfc_policy_budget_moved(const dfc_policy_t *p, int32_t budget,
                                                              int32_t polls)
{
    if (polls <= 0 || budget == DFC_POLICY_BUDGET_NEVER) return budget;
    int64_t want = 2 * (int64_t)polls;
    if (want < budget) want = budget;
    if (want > p->budget_max) want = p->budget_max;
    return (int32_t)want;
}

/* The head's budget ran out at step pc. A preemption is counted once per wait point: later
 * passes that find the collective still waiting at the same pc are the same preemption. */
DFC_HOST_DEVICE static inline int dfc_policy_is_new_preemption(int32_t preempted_at, int32_t pc)
{
    return preempted_at != pc;
}

/* The budget after a new preemption: halved, not below budget_min. */
DFC_HOST_DEVICE static inline int32_t dfc_policy_budget_preempted(const dfc_policy_t *p,
                                                                  int32_t budget)
{
    if (budget == DFC_POLICY_BUDGET_NEVER) return budget;
    int32_t b = budget / 2;
    return b < p->budget_min ? p->budget_min : b;
}

/* A collective at queue position pos (0 = head) moved (and is not complete) during a pass
 * in which the head waited: does it become the head? Only within the head's priority, so
 * the queue stays ordered by priority. */
DFC_HOST_DEVICE static inline int dfc_policy_promote(const dfc_policy_t *p, int pos, int moved,
                                                     int32_t prio, int32_t head_prio)
{
    return p->move_to_head && pos > 0 && moved && prio == head_prio;
}

#endif /* DFC_POLICY_H */
