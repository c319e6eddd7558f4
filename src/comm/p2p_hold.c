/*
 * p2p_hold.c - small device messages that arrive before their receive, held in device memory
 * of the receiver's own (dfc(7) "Device buffers", DFC_GPU_EAGER_LIMIT).
 *
 * A device send to a rank of this node is an RTS naming the sender's buffer (p2p.c), and the
 * receiver copies the bytes straight out of it once a receive matches: one copy by the
 * small-copy kernel, the fastest path there is when the receive is posted first. But a send
 * that waits for its receive loses what an eager send gives: Send returns before the peer
 * receives, and two ranks that each Send to the other before they Recv still finish. Staging
 * kept that, at two copies through host memory (11 us for 8 bytes under MPS). Here the
 * receiver keeps it instead. When an RTS of at most DFC_GPU_EAGER_LIMIT bytes from a plain
 * (not synchronous) device send finds no receive, p2p.c gives it a hold (dfc_p2p_hold_new):
 *
 *   wait     for DFC_GPU_HOLD_DELAY_US: a receive that matches the message by then takes it
 *            as a rendezvous (dfc_p2p_hold_claim says so), one copy. This is the common
 *            case: in a ping-pong the FIN that completes a send often arrives in the same
 *            poll as the peer's next RTS, a moment before the receive for it is posted;
 *   hold     the bytes are copied out of the sender's buffer into the hold arena
 *            (cuda/arena.c), and FIN goes to the sender once the copy has read them: its
 *            send completes as an eager one would, without any receive posted;
 *   deliver  the receive that later matches the message (it keeps its place in the
 *            unexpected queue, so matching order is unchanged) copies it from the arena into
 *            its buffer, once the first copy is done; the hold is freed when that copy is.
 *
 * So a message whose receive comes late costs two device copies, as staging did, but a send
 * waits for its receive at most the delay and a copy, and a message whose receive comes in
 * time costs one. A message the arena has no room for is held in pinned host memory from the
 * staging pool instead (stage_pool.c): its second copy crosses PCIe, but its send completes
 * all the same, so a program that sends more small device messages ahead of their receives
 * than DFC_GPU_HOLD_MEMORY holds runs as it would with eager host sends. A hold that cannot
 * start at all (no memory anywhere, no CUDA in this process, a failed copy start) leaves the
 * message a rendezvous: its send completes when a receive matches it, as MPI allows.
 * Waiting threads poll while a hold waits or copies (dfc_p2p_holds_busy).
 *
 * A failed copy into the arena still answers FIN (the sender's buffer is no longer needed,
 * and nothing can resend it); the receive that matches the message fails with the copy's
 * error instead. Everything here runs under the library lock; nothing waits for a peer.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

typedef enum {
    HOLD_WAITING, /* in `waiting` until due */
    HOLD_COPYING, /* in `copying`: the copy into the arena runs */
    HOLD_HELD,    /* on no list: the bytes are in the arena (or the copy failed: rc) */
    HOLD_NONE     /* on no list: it could not start, the message stays a rendezvous */
} hold_state_t;

struct dfc_p2p_hold {
    dfc_list_t link;
    hold_state_t state;
    uint64_t due;           /* HOLD_WAITING: when to start (dfc_time_ns) */
    dfc_pkt_t rts;          /* the message's RTS, which its FIN names */
    dfc_gpu_ipc_t name;     /* the sender's buffer (unless the sender is this process) */
    void *buf;              /* rts.len bytes in the arena, or in `spill`'s pinned memory */
    dfc_stage_buf_t *spill; /* from the staging pool, when the arena had no room */
    dfc_gpu_copy_op_t *op;  /* the copy into buf, or NULL once done */
    int rc;                 /* that copy's outcome */
    int fin_sent;           /* the sender was told its buffer is free */
    int dropped;            /* its message is gone: free it when the copy is done */
    int cancelled;          /* its send was cancelled: no FIN */
    dfc_req_t *recv;        /* the receive that matched it while the copy ran */
    uint64_t n;             /* the bytes that receive takes */
};

static dfc_list_t waiting = {&waiting, &waiting};          /* holds, in due order */
static dfc_list_t copying = {&copying, &copying};          /* holds: copies into the arena */
static dfc_list_t delivering = {&delivering, &delivering}; /* receives: copies out of it */

/* Gives back the memory that holds the bytes, arena or pool. */
static void hold_release(dfc_p2p_hold_t *h)
{
    if (h->spill) dfc_stage_buf_put(h->spill);
    else dfc_gpu_arena_free(h->buf, h->rts.len);
    h->spill = NULL;
    h->buf = NULL;
}

static void hold_free(dfc_p2p_hold_t *h)
{
    hold_release(h);
    free(h);
}

/* Memory for the bytes: the arena, else pinned host memory from the staging pool (a second
 * copy crosses PCIe, but the send still completes without its receive). 0 when neither. */
static int hold_buffer(dfc_p2p_hold_t *h)
{
    if ((h->buf = dfc_gpu_arena_alloc(h->rts.len))) return 1;
    if (dfc_stage_buf_get(h->rts.len, &h->spill)) { /* recorded; not the program's error */
        DFC_LOG(DFC_LOG_INFO, "p2p",
                "no memory to hold a %llu-byte device message from world "
                "rank %u: left to its receive",
                (unsigned long long)h->rts.len, h->rts.src_world);
        h->spill = NULL;
        return 0;
    }
    h->buf = h->spill->p;
    return 1;
}

static void send_fin(dfc_p2p_hold_t *h)
{
    if (h->fin_sent || h->cancelled) return;
    h->fin_sent = 1;
    dfc_p2p_fin(&h->rts); /* to a failed sender: refused, and nothing waits */
}

static uint64_t delay_ns; /* DFC_GPU_HOLD_DELAY_US */

void dfc_p2p_hold_params(void)
{
    long us = dfc_env_long("DFC_GPU_HOLD_DELAY_US", 20,
                           "a small device message that finds no receive is held by the "
                           "receiver after this long without one (microseconds)");
    delay_ns = us < 0 ? 0 : (uint64_t)us * 1000;
}

/* Starts the copy into the arena; on failure the message stays a rendezvous (HOLD_NONE). */
static void hold_start(dfc_p2p_hold_t *h)
{
    int self = (int)h->rts.src_world == dfc_proc.world_rank, rc;
    h->state = HOLD_NONE;
    if (!hold_buffer(h)) return;
    rc = dfc_gpu_copy_start(h->buf, (const void *)(uintptr_t)h->rts.offset, (int)h->rts.src_world,
                            self ? NULL : &h->name, h->rts.len, &h->op);
    if (rc) {
        char why[256];
        dfc_err_message(rc, why, sizeof why);
        DFC_LOG(DFC_LOG_INFO, "p2p",
                "holding a device message from world rank %u: %s; left to its receive",
                h->rts.src_world, why);
        hold_release(h);
        return;
    }
    h->state = HOLD_COPYING;
    dfc_list_insert_tail(&copying, &h->link);
}

dfc_p2p_hold_t *dfc_p2p_hold_new(const dfc_pkt_t *rts, const void *payload)
{
    if (!dfc_gpu_arena_size()) return NULL;
    dfc_p2p_hold_t *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->rts = *rts;
    if ((int)rts->src_world != dfc_proc.world_rank) memcpy(&h->name, payload, sizeof h->name);
    if (!delay_ns) {
        hold_start(h);
        return h;
    }
    h->state = HOLD_WAITING;
    h->due = dfc_time_ns() + delay_ns;
    dfc_list_insert_tail(&waiting, &h->link);
    return h;
}

int dfc_p2p_hold_claim(dfc_p2p_hold_t *h)
{
    if (h->state == HOLD_COPYING || h->state == HOLD_HELD) return 1;
    dfc_p2p_hold_drop(h);
    return 0;
}

/* The receive r takes the held bytes: a copy out of the arena, tested by progress. */
static void start_out(dfc_p2p_hold_t *h, dfc_req_t *r)
{
    int rc = h->rc;
    if (rc)
        rc = dfc_err(DFC_ERR_CLASS(rc), r->func ? r->func : "receive",
                     "the %llu-byte device message from world rank %u arrived before its "
                     "receive, and copying it into device memory to hold it failed",
                     (unsigned long long)h->rts.len, h->rts.src_world);
    else if (h->n && !(rc = dfc_gpu_copy_start(r->rbuf, h->buf, -1, NULL, h->n, &r->dev_op))) {
        r->dev_hold = h;
        dfc_list_insert_tail(&delivering, &r->link);
        return;
    }
    if (rc && !r->status.DFC_ERROR) r->status.DFC_ERROR = rc;
    hold_free(h);
    dfc_req_complete(r);
}

void dfc_p2p_hold_deliver(dfc_p2p_hold_t *h, dfc_req_t *r, uint64_t n)
{
    h->n = n;
    if (h->state == HOLD_COPYING) h->recv = r; /* progress starts the copy out after it */
    else start_out(h, r);
}

int dfc_p2p_hold_take(dfc_p2p_hold_t *h, void *host, uint64_t n)
{
    while (h->state == HOLD_COPYING) dfc_p2p_hold_progress(); /* our own copy: it ends */
    int rc = h->rc ? h->rc : n ? dfc_gpu_copy(host, h->buf, n) : DFC_SUCCESS;
    hold_free(h);
    return rc;
}

int dfc_p2p_hold_cancel(dfc_p2p_hold_t *h)
{
    if (h->fin_sent) return 0; /* its send completed, or is about to (a copy started) */
    h->cancelled = 1;
    dfc_p2p_hold_drop(h);
    return 1;
}

void dfc_p2p_hold_drop(dfc_p2p_hold_t *h)
{
    if (h->state == HOLD_COPYING) {
        h->dropped = 1; /* freed when the copy ends, after its FIN unless cancelled */
        return;
    }
    if (h->state == HOLD_WAITING) dfc_list_remove(&h->link);
    hold_free(h);
}

/* Copies into the arena: FIN once the source is read (DFC_GPU_KCOPY_EARLY_FIN) or the copy is
 * done; then the copy out for a receive that matched meanwhile. */
static int progress_copying(void)
{
    int events = 0, done;
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &copying)
    {
        dfc_p2p_hold_t *h = DFC_CONTAINER_OF(e, dfc_p2p_hold_t, link);
        int rc = dfc_gpu_copy_test(h->op, &done);
        if (!done) {
            if (!h->fin_sent && dfc_gpu_copy_source_read(h->op)) send_fin(h), events++;
            continue;
        }
        events++;
        dfc_list_remove(e);
        h->op = NULL;
        h->rc = rc;
        h->state = HOLD_HELD;
        send_fin(h);
        if (h->dropped) hold_free(h);
        else if (h->recv) start_out(h, h->recv);
    }
    return events;
}

static int progress_delivering(void)
{
    int events = 0, done;
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &delivering)
    {
        dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        int rc = dfc_gpu_copy_test(r->dev_op, &done);
        if (!done) continue;
        events++;
        dfc_list_remove(e);
        r->dev_op = NULL;
        if (rc && !r->status.DFC_ERROR) r->status.DFC_ERROR = rc;
        hold_free(r->dev_hold);
        r->dev_hold = NULL;
        dfc_req_complete(r);
    }
    return events;
}

/* Holds whose delay ran out start their copies (the list is in due order). */
static int progress_waiting(void)
{
    int events = 0;
    uint64_t now = dfc_time_ns();
    while (!dfc_list_empty(&waiting)) {
        dfc_p2p_hold_t *h = DFC_CONTAINER_OF(waiting.next, dfc_p2p_hold_t, link);
        if (h->due > now) break;
        dfc_list_remove(&h->link);
        hold_start(h);
        events++;
    }
    return events;
}

int dfc_p2p_hold_progress(void)
{
    return progress_waiting() + progress_copying() + progress_delivering();
}

int dfc_p2p_holds_busy(void)
{
    return !dfc_list_empty(&waiting) || !dfc_list_empty(&copying) || !dfc_list_empty(&delivering);
}

const char *dfc_p2p_hold_state(const dfc_p2p_hold_t *h)
{
    static const char *const names[] = {[HOLD_WAITING] = "waiting to be held",
                                        [HOLD_COPYING] = "being copied to be held",
                                        [HOLD_HELD] = "held",
                                        [HOLD_NONE] =
                                            "not held: no hold memory or the copy did not start"};
    if (h->state == HOLD_HELD && h->rc) return "its copy to hold it failed";
    return h->state == HOLD_HELD && h->spill ? "held in pinned host memory" : names[h->state];
}

void dfc_p2p_hold_report(FILE *f)
{
    for (dfc_list_t *e = copying.next; e != &copying; e = e->next) {
        const dfc_p2p_hold_t *h = DFC_CONTAINER_OF(e, dfc_p2p_hold_t, link);
        fprintf(f,
                "[dfc hang report] rank %d: p2p device message from world rank %u tag %d comm "
                "%u (unexpected, copying its %llu bytes to hold them%s)\n",
                dfc_proc.world_rank, h->rts.src_world, h->rts.tag, h->rts.ctx / 2,
                (unsigned long long)h->rts.len, h->recv ? "; a receive waits for it" : "");
    }
    for (dfc_list_t *e = delivering.next; e != &delivering; e = e->next) {
        const dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        fprintf(f,
                "[dfc hang report] rank %d: p2p recv from %d tag %d comm %u (device, matched a "
                "held message, copying it in: %llu bytes)\n",
                dfc_proc.world_rank, r->status.DFC_SOURCE, r->status.DFC_TAG, r->comm->ctx,
                (unsigned long long)dfc_status_bytes(&r->status));
    }
}

/* After every unexpected message was dropped: their copies end (this process's own copies,
 * which need no peer), then the receives' (a receive the program never waited for). The
 * arena goes after the small-copy kernel (p2p.c): cudaFree would wait for that kernel. A
 * matched-probe message's hold may still wait here; dfc_msg_finalize drops it later. */
void dfc_p2p_hold_finalize(void)
{
    while (!dfc_list_empty(&copying) || !dfc_list_empty(&delivering)) dfc_p2p_hold_progress();
}
