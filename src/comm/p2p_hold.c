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
 * (not synchronous) device send finds no receive, p2p.c hands it to dfc_p2p_hold_start:
 *
 *   hold     the bytes are copied out of the sender's buffer into the hold arena
 *            (cuda/arena.c), and FIN goes to the sender once the copy has read them: its
 *            send completes as an eager one would, without any receive posted;
 *   deliver  the receive that later matches the message (it keeps its place in the
 *            unexpected queue, so matching order is unchanged) copies it from the arena into
 *            its buffer, once the first copy is done; the hold is freed when that copy is.
 *
 * So a message whose receive comes late costs two device copies, as staging did, but a send
 * never waits for a receive, and a message whose receive was posted first costs one. A hold
 * the arena cannot take (full, no CUDA in this process, a failed copy start) leaves the
 * message a rendezvous: its send completes when a receive matches it, as MPI allows.
 *
 * A failed copy into the arena still answers FIN (the sender's buffer is no longer needed,
 * and nothing can resend it); the receive that matches the message fails with the copy's
 * error instead. Everything here runs under the library lock; nothing waits for a peer.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

struct dfc_p2p_hold {
    dfc_list_t link;       /* in `copying` while the copy into the arena runs */
    dfc_pkt_t rts;         /* the message's RTS, which its FIN names */
    void *buf;             /* in the arena: rts.len bytes */
    dfc_gpu_copy_op_t *op; /* the copy into buf, or NULL once done */
    int rc;                /* that copy's outcome */
    int fin_sent;          /* the sender was told its buffer is free */
    int dropped;           /* its message is gone: free it when the copy is done */
    int cancelled;         /* its send was cancelled: no FIN */
    dfc_req_t *recv;       /* the receive that matched it while the copy ran */
    uint64_t n;            /* the bytes that receive takes */
};

static dfc_list_t copying = {&copying, &copying};          /* holds: copies into the arena */
static dfc_list_t delivering = {&delivering, &delivering}; /* receives: copies out of it */

static void hold_free(dfc_p2p_hold_t *h)
{
    dfc_gpu_arena_free(h->buf, h->rts.len);
    free(h);
}

static void send_fin(dfc_p2p_hold_t *h)
{
    if (h->fin_sent || h->cancelled) return;
    h->fin_sent = 1;
    dfc_p2p_fin(&h->rts); /* to a failed sender: refused, and nothing waits */
}

dfc_p2p_hold_t *dfc_p2p_hold_start(const dfc_pkt_t *rts, const void *payload)
{
    int self = (int)rts->src_world == dfc_proc.world_rank;
    void *buf = dfc_gpu_arena_alloc(rts->len);
    dfc_p2p_hold_t *h = buf ? calloc(1, sizeof *h) : NULL;
    if (!h) {
        dfc_gpu_arena_free(buf, rts->len);
        return NULL;
    }
    dfc_gpu_ipc_t name;
    if (!self) memcpy(&name, payload, sizeof name);
    int rc = dfc_gpu_copy_start(buf, (const void *)(uintptr_t)rts->offset, (int)rts->src_world,
                                self ? NULL : &name, rts->len, &h->op);
    if (rc) {
        char why[256];
        dfc_err_message(rc, why, sizeof why);
        DFC_LOG(DFC_LOG_INFO, "p2p",
                "holding a device message from world rank %u: %s; left to "
                "its receive",
                rts->src_world, why);
        hold_free(h);
        return NULL;
    }
    h->rts = *rts;
    h->buf = buf;
    dfc_list_insert_tail(&copying, &h->link);
    return h;
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
    if (h->op) h->recv = r; /* progress starts the copy out once the copy in is done */
    else start_out(h, r);
}

int dfc_p2p_hold_take(dfc_p2p_hold_t *h, void *host, uint64_t n)
{
    while (h->op) dfc_p2p_hold_progress(); /* a copy of this process's own: it ends */
    int rc = h->rc ? h->rc : n ? dfc_gpu_copy(host, h->buf, n) : DFC_SUCCESS;
    hold_free(h);
    return rc;
}

int dfc_p2p_hold_cancel(dfc_p2p_hold_t *h)
{
    if (h->fin_sent) return 0; /* its send completed, or is about to */
    h->cancelled = 1;
    dfc_p2p_hold_drop(h);
    return 1;
}

void dfc_p2p_hold_drop(dfc_p2p_hold_t *h)
{
    if (h->op) h->dropped = 1; /* freed when the copy ends, after its FIN unless cancelled */
    else hold_free(h);
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

int dfc_p2p_hold_progress(void) { return progress_copying() + progress_delivering(); }

int dfc_p2p_holds_busy(void) { return !dfc_list_empty(&copying) || !dfc_list_empty(&delivering); }

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
 * which need no peer), then the receives' (a receive the program never waited for). */
void dfc_p2p_hold_finalize(void)
{
    while (dfc_p2p_holds_busy()) dfc_p2p_hold_progress();
    dfc_gpu_arena_finalize();
}
