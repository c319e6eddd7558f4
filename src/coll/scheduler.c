/*
 * scheduler.c - which collective runs: the host's run queue, driven by the scheduling policy
 * of DESIGN.md 2.2, whose rules live in dfc_policy.h (shared with the GPU daemon and
 * bench/dfc_sim).
 *
 * Active collectives sit in one run queue ordered by priority (higher first), FIFO within a
 * priority. Each progress pass walks the queue in that order and runs every collective up
 * to its next unmet fence. The head additionally gets a spin budget: while it waits on a
 * peer it keeps polling the network; a head that then still waits is preempted (left,
 * context saved, the walk goes on). The budget adapts (stickiness), and a collective that
 * moved while the head waited may become the head (DFC_SPIN_MOVE_TO_HEAD). Nothing here
 * ever blocks, so no order of initiation across ranks and communicators can deadlock: every
 * queued collective gets its turn on every pass.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "coll/dfc_coll.h"
#include "coll/dfc_policy.h"

static dfc_list_t run_queue;
static uint64_t total_preemptions;
static dfc_policy_t policy;

uint64_t dfc_coll_preemptions(void) { return total_preemptions + dfc_gpu_preemptions(); }

static void enqueue_by_priority(dfc_coll_t *c)
{
    dfc_list_t *e;
    for (e = run_queue.next; e != &run_queue; e = e->next)
        if (!dfc_policy_runs_before(DFC_CONTAINER_OF(e, dfc_coll_t, link)->priority, c->priority))
            break;
    /* insert before e: after every collective of equal or higher priority */
    c->link.next = e;
    c->link.prev = e->prev;
    e->prev->next = &c->link;
    e->prev = &c->link;
}

static void finish(dfc_coll_t *c, int in_start)
{
    dfc_progress_count_coll_done(in_start);
    dfc_list_remove(&c->link);
    dfc_req_complete(c->req);
}

/* Whether c waits in the shm slots (for a stamp in shared memory, not for the network). */
static inline int at_slot_step(const dfc_coll_t *c)
{
    return c->pc < c->sched.nsteps && c->sched.steps[c->pc].kind == DFC_STEP_SLOT_ALLREDUCE;
}

/* Runs the head with its spin budget (dfc_policy.h decides). Returns 1 if it completed. */
static int run_head(dfc_coll_t *c, int *events)
{
    int start_pc = c->pc;
    int32_t polls = 0, budget = (int32_t)c->budget;
    for (;;) {
        int prev = c->pc;
        if (dfc_coll_exec(c)) return 1;
        if (c->pc != prev) {
            /* The wait ended: in step with the peers, so be stickier next time. */
            budget = dfc_policy_budget_moved(&policy, budget, polls);
            polls = 0;
        } else if (DFC_UNLIKELY(__atomic_load_n(&dfc_lock_wanted, __ATOMIC_RELAXED))) {
            /* Another thread waits for the lock that this spin holds (the progress thread's
             * pass, up to budget_max polls, against the application's Wait or next call,
             * issue 16): leave the pass to it, not a preemption; the budget stays. */
            if (c->pc != start_pc) (*events)++;
            c->budget = budget;
            return 0;
        } else if (!dfc_policy_spin_on(&polls, budget)) {
            break;
        }
        /* The next exec sees a peer's stamp without the network: in the slots, poll the
         * network on one spin in 4 only, so that the stamp is seen sooner (issue 16). */
        if ((polls & 3) && at_slot_step(c)) continue;
        int n = dfc_progress_net();
        if (n < 0) break;
        if (n > 0) (*events)++;
    }
    if (c->pc != start_pc) (*events)++;
    if (dfc_policy_is_new_preemption(c->preempted_at, c->pc)) {
        c->preempted_at = c->pc;
        c->preemptions++;
        total_preemptions++;
        budget = dfc_policy_budget_preempted(&policy, budget);
    }
    c->budget = budget;
    return 0;
}

/* One pass over the run queue: the head with its budget, every other collective once. A
 * collective that moved while the head waited may become the head (dfc_policy_promote). */
static int scheduler_pass(void)
{
    /* A thread that dropped the lock inside a pass (a user op, a long reduction or copy)
     * holds its place in the queue (e, t below): no other pass may run until it is back
     * (exec.c, exec_unlocked). */
    static int pass_running;
    if (pass_running) {
        /* That thread needs the lock back to go on, and its pass likely completes what our
         * caller waits for: a waiting caller that kept the lock would hold it until its own
         * wait backs off (DFC_SPIN_US). So leave the lock to it first. */
        if (__atomic_load_n(&dfc_lock_wanted, __ATOMIC_RELAXED)) {
            DFC_UNLOCK();
            sched_yield();
            DFC_LOCK();
        }
        return 0;
    }
    /* Every empty poll of a wait comes here; with no collective queued only the GPU's part has
     * work (issue 16: the walk's setup was most of the pass's cost then). */
    if (dfc_list_empty(&run_queue)) return dfc_coll_gpu_pass();
    pass_running = 1;
    int events = dfc_coll_gpu_pass();
    dfc_list_t *e, *t;
    int head = 1, pos = 0, head_prio = 0; /* pos: the position in the queue as it is now */
    DFC_LIST_FOREACH_SAFE(e, t, &run_queue)
    {
        dfc_coll_t *c = DFC_CONTAINER_OF(e, dfc_coll_t, link);
        int start_pc = c->pc, done;
        if (c->in_user_op) { /* another thread is in its user op, outside a pass */
            pos++;
            continue;
        }
        if (head) {
            head = 0;
            head_prio = c->priority;
            done = run_head(c, &events);
            /* finishing may have completed others' transfers; t is still valid since only
             * c can leave the queue here */
        } else {
            done = dfc_coll_exec(c);
            if (c->pc != start_pc) events++;
        }
        if (done) {
            finish(c, 0);
            events++;
            continue;
        }
        if (dfc_policy_promote(&policy, pos, c->pc != start_pc, c->priority, head_prio)) {
            dfc_list_remove(&c->link);
            c->link.next = run_queue.next;
            c->link.prev = &run_queue;
            run_queue.next->prev = &c->link;
            run_queue.next = &c->link;
        }
        pos++;
    }
    pass_running = 0;
    return events;
}

/* With the progress thread (DFC_ASYNC_PROGRESS=1), a nonblocking or persistent start only
 * queues the instance and the thread runs every step, the first ones too (issue 16). The
 * call's time is what osu_iallreduce's overlap counts, and running the first steps in it
 * ran the whole of a small collective there whenever the peers' data had come first: the
 * receive matched at once and the reduction followed, in the call. With two ranks one of
 * them is always the later one, and the earlier one then waited in Wait for the later
 * one's longer call: the 0 % overlap at 8-16 KiB on 16 cores (BENCHMARKS.md, stop 19).
 * The call leaves dfc_progress_changed set, so that its unlock wakes the thread if it sleeps
 * (progress.c), and a thread that polls takes the lock as the call drops it. Not for a
 * blocking call, whose caller waits at once and runs the steps itself, nor on the thread
 * (a completion callback's call). */
static int hand_to_thread(const dfc_coll_t *c)
{
    return !c->blocking && !dfc_progress_on_thread() && dfc_progress_thread_runs();
}

/* For the progress thread: scheduled collectives wait on their peers; it must not sleep. */
static int scheduler_active(void) { return !dfc_list_empty(&run_queue); }

int dfc_coll_start(dfc_coll_t *c)
{
    int rc = dfc_req_stage_in(c->req); /* device buffers: fresh host shadows */
    if (rc) return rc;
    if (c->persistent) {
        /* Persistent instances match by (communicator, _init sequence, start count), so
         * their Starts may come in any order across ranks. */
        c->tag = (int)(0x40000000u | ((c->pinit_seq & 0x3fffu) << 16) | (c->starts & 0xffffu));
        c->starts++;
    } else {
        c->tag = (int)(c->comm->coll_seq++ & 0x3fffffffu);
    }
    if (c->sched.uses_slots && (rc = dfc_coll_slot_begin(c))) return rc;
    c->pc = 0;
    c->fence_start = 0;
    c->budget = policy.budget_init;
    c->preempted_at = -1;
    c->req->complete = 0;
    dfc_status_empty(&c->req->status);
    if (c->on_gpu) return dfc_coll_gpu_start(c);
    enqueue_by_priority(c);
    if (hand_to_thread(c)) {
        dfc_progress_changed = 1;
        return DFC_SUCCESS;
    }
    /* Post the first transfers now: peers that are already waiting start at once. */
    if (dfc_coll_exec(c)) finish(c, 1);
    return DFC_SUCCESS;
}

int dfc_coll_new(dfc_comm_t *comm, dfc_sched_t *sched, const void *sendbuf, void *recvbuf,
                 const dfc_dtype_t *dt, const dfc_op_t *op, int persistent, int priority,
                 dfc_coll_t **out)
{
    dfc_coll_t *c = calloc(1, sizeof *c);
    if (!c) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a collective");
    c->sched = *sched;
    dfc_sched_init(sched);
    c->comm = comm;
    c->dtype = dt;
    c->op = op;
    /* The user may free the type or op while the operation is pending (MPI allows it). */
    if (dt) dfc_dtype_retain((dfc_dtype_t *)dt);
    if (op) dfc_op_retain((dfc_op_t *)op);
    c->persistent = persistent;
    c->priority = priority;
    dfc_list_init(&c->link);
    c->bufs[DFC_BUF_SEND] = (void *)sendbuf;
    c->bufs[DFC_BUF_RECV] = recvbuf;
    c->xfer = calloc(c->sched.nsteps ? c->sched.nsteps : 1, sizeof *c->xfer);
    c->bufs[DFC_BUF_TMP] = c->sched.tmp_bytes ? malloc(c->sched.tmp_bytes) : NULL;
    if (!c->xfer || (c->sched.tmp_bytes && !c->bufs[DFC_BUF_TMP])) {
        dfc_coll_free(c);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a collective's %llu-byte scratch buffer",
                       (unsigned long long)sched->tmp_bytes);
    }
    *out = c;
    return DFC_SUCCESS;
}

void dfc_coll_free(dfc_coll_t *c)
{
    if (!c) return;
    dfc_sched_destroy(&c->sched);
    if (c->dtype) dfc_dtype_release((dfc_dtype_t *)c->dtype);
    if (c->op) dfc_op_release((dfc_op_t *)c->op);
    free(c->xfer);
    free(c->bufs[DFC_BUF_TMP]);
    free(c);
}

int dfc_coll_layer_init(void)
{
    dfc_comm_destroy_hook = dfc_coll_cache_destroy;
    dfc_list_init(&run_queue);
    /* Oversubscribed, a poll inside the pass cannot see a peer that is not running: the
     * head gets one poll per pass and the wait around it yields (issue 16: 4 ranks on 2
     * cores spent up to 4096 polls per pass). */
    int over = dfc_progress_oversubscribed();
    long init = dfc_env_long("DFC_SPIN_BUDGET", over ? 1 : 64,
                             "network polls the head collective may spend waiting on a peer "
                             "before it is preempted (default 64, 1 when oversubscribed)");
    long min = dfc_env_long("DFC_SPIN_BUDGET_MIN", over ? 1 : 4,
                            "smallest adaptive spin budget (default 4, 1 when oversubscribed)");
    long max = dfc_env_long("DFC_SPIN_BUDGET_MAX", over ? 1 : 4096,
                            "largest adaptive spin budget (default 4096, 1 when oversubscribed)");
    /* Off by default: on the host the rule doubled chaos order's preemptions without
     * shortening it, measured and simulated (BENCHMARKS.md, "Simulating the scheduler"). */
    long move = dfc_env_long(
        "DFC_SPIN_MOVE_TO_HEAD", 0,
        "1: a collective that moved while the head waited becomes the head; 0: queue order only");
    policy = dfc_policy_make(init, min, max, move != 0);
    dfc_progress_set_coll_hook(scheduler_pass);
    dfc_progress_set_coll_active_hook(scheduler_active);
    dfc_progress_set_coll_report_hook(dfc_coll_report);
    return DFC_SUCCESS;
}

void dfc_coll_layer_finalize(void)
{
    dfc_progress_set_coll_hook(NULL);
    dfc_progress_set_coll_active_hook(NULL);
    dfc_progress_set_coll_report_hook(NULL);
    dfc_coll_inter_reap();
}

/* One line per queued collective: where it stands and the first transfer it waits for
 * (the oldest incomplete one since its last fence), which names the missing peer. */
void dfc_coll_report(FILE *f)
{
    dfc_coll_gpu_report(f);
    dfc_coll_slot_direct_report(f);
    dfc_list_t *e;
    for (e = run_queue.next; e != &run_queue; e = e->next) {
        dfc_coll_t *c = DFC_CONTAINER_OF(e, dfc_coll_t, link);
        char comm[DFC_MAX_OBJECT_NAME + 16], wait[128];
        if (c->comm->name[0]) snprintf(comm, sizeof comm, "%s", c->comm->name);
        else snprintf(comm, sizeof comm, "ctx %u", c->comm->ctx);
        snprintf(wait, sizeof wait, "runnable (no transfer pending)");
        if (at_slot_step(c)) {
            int who = dfc_comm_slot_waiting_for(c->comm, c->slot_stamp, c->slot_written,
                                                c->sched.steps[c->pc].peer);
            const char *what = c->slot_written ? "its contribution" : "a free slot";
            if (who >= 0)
                snprintf(wait, sizeof wait, "waiting for rank %d in the shm slots (stamp %llu, %s)",
                         who, (unsigned long long)c->slot_stamp, what);
            else
                snprintf(wait, sizeof wait, "waiting in the shm slots (stamp %llu, %s)",
                         (unsigned long long)c->slot_stamp, what);
        }
        for (int i = c->fence_start; i < c->pc && i < c->sched.nsteps; i++) {
            const dfc_step_t *st = &c->sched.steps[i];
            if (st->kind != DFC_STEP_SEND && st->kind != DFC_STEP_RECV &&
                st->kind != DFC_STEP_RECV_REDUCE)
                continue;
            if (c->xfer[i].complete) continue;
            snprintf(wait, sizeof wait, "waiting for rank %d (%s, %llu/%llu bytes)", st->peer,
                     st->kind == DFC_STEP_SEND ? "send" : "recv",
                     (unsigned long long)c->xfer[i].done, (unsigned long long)st->bytes);
            break;
        }
        fprintf(f,
                "[dfc hang report] rank %d: collective %s on comm %s seq %d step %d/%d %s "
                "preemptions %llu\n",
                dfc_proc.world_rank, c->kind ? c->kind : "unknown", comm, c->tag, c->pc,
                (int)c->sched.nsteps, wait, (unsigned long long)c->preemptions);
    }
}
