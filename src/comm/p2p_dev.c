/*
 * p2p_dev.c - the bytes of a device buffer's rendezvous message streamed through pinned
 * chunk slots: what a device send or receive does when the peer cannot copy the buffer
 * itself (another node, or no CUDA IPC), issue 14 item 3 and issue 15.
 *
 * Before, such a send copied each DATA fragment out of the device with a synchronous
 * cudaMemcpy into a pageable bounce buffer, and a receive copied each fragment in the same
 * way: the wire stood still during every copy and every copy paid the copy engine's fixed
 * cost. Here the message is cut as the staging pipeline cuts it (stage.c: depth pieces, no
 * smaller than DFC_STAGE_CHUNK_MIN, no larger than DFC_STAGE_CHUNK) and each chunk goes
 * through one of depth pinned slots of the stage pool, on a copy context of its own:
 *
 *   send     the copies of chunks 0 .. depth-1 to host memory are issued with the RTS (so
 *            they run during the RTS/CTS round trip; p2p.c's P2P_EARLY_STREAMS bounds how
 *            many sends hold slots so early) or else when the CTS comes;
 *            the transport takes fragments out of a slot once its event says the copy is
 *            done (never before: no fragment is cut across a chunk); a slot whose chunk the
 *            transport took in full (it copies before send returns, dfc_tl.h) is refilled
 *            with chunk k + depth at once. So the wire carries chunk k while chunk k+1 is
 *            copied out.
 *   receive  DATA fragments are copied into the slot of their chunk; a full chunk's copy to
 *            the device is issued at once; the request completes once the last copy is done
 *            (progress tests it). Fragments of one pair arrive in order (transports are FIFO
 *            per pair), so a slot is reused only by chunk k + depth, whose first fragment
 *            waits for chunk k's copy to the device only if the wire outran the copy engine
 *            by depth chunks.
 *
 * Nothing here blocks the progress engine except that rare wait. A stream that cannot
 * start (no pinned memory, no copy context) returns an error and the caller takes the old
 * synchronous path, so the fallback still has a fallback. Copies run on blocking streams,
 * ordered after the program's legacy-stream work, as staging's are (stage_copy.c).
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

enum { TO_HOST = 0, TO_DEV = 1 };

struct dfc_p2p_devstream {
    int dir;         /* TO_HOST: a send's chunks; TO_DEV: a receive's */
    char *dev;       /* the device buffer */
    uint64_t bytes;  /* what is streamed (a truncated receive: its buffer's length) */
    size_t chunk;    /* bytes per chunk, the last one shorter */
    long n, depth;   /* chunks, slots */
    long issued;     /* chunks whose copy was issued */
    long known_done; /* send: chunks whose copy was seen done */
    dfc_stage_ctx_t *ctx;
    dfc_stage_buf_t *slot[DFC_STAGE_MAX_DEPTH];
    uint64_t filled[DFC_STAGE_MAX_DEPTH]; /* receive: bytes landed in the slot's chunk */
    int in_flight[DFC_STAGE_MAX_DEPTH];   /* receive: the slot's copy to the device may run */
};

static int streams_open; /* under the library lock, as all of p2p */

int dfc_p2p_devstreams_open(void) { return streams_open; }

static size_t chunk_len(const dfc_p2p_devstream_t *s, long k)
{
    return (size_t)DFC_MIN2((uint64_t)s->chunk, s->bytes - (uint64_t)k * s->chunk);
}

static void *slot_of(const dfc_p2p_devstream_t *s, long k) { return s->slot[k % s->depth]->p; }

static void *event_of(const dfc_p2p_devstream_t *s, long k)
{
    return s->ctx->ev[s->dir][k % s->depth];
}

/* Names what failed, where (the ops recorded CUDA's reason). */
static int copy_failed(const dfc_p2p_devstream_t *s, int rc, long k, const char *what)
{
    char why[256];
    dfc_err_message(rc, why, sizeof why);
    return dfc_err(DFC_ERR_CLASS(rc), s->dir == TO_HOST ? "send" : "receive",
                   "streaming a %llu-byte device buffer through host memory: %s of chunk %ld "
                   "of %ld failed: %s",
                   (unsigned long long)s->bytes, what, k + 1, s->n, why);
}

/* Whether anything waits for chunk k's copy by its event: every copy out of the device (the
 * transport reads the slot once it is done), and a copy into the device whose slot comes round
 * again or that ends the stream (copies of one stream end in order, so the last one's event
 * says all are done). Under MPS a CUDA call costs microseconds on the progress thread, in
 * the middle of the transfer: a 1 MiB receive in 3 chunks records 1 event, not 3. */
static int needs_event(const dfc_p2p_devstream_t *s, long k)
{
    return s->dir == TO_HOST || k + s->depth < s->n || k == s->n - 1;
}

/* Issues chunk k's copy (into or out of its slot) and records the slot's event if needed. */
static int issue(dfc_p2p_devstream_t *s, long k)
{
    size_t off = (size_t)k * s->chunk;
    void *st = s->ctx->stream[s->dir];
    int rc = s->dir == TO_HOST
                 ? dfc_stage_ops->copy_async(slot_of(s, k), s->dev + off, chunk_len(s, k), st)
                 : dfc_stage_ops->copy_async(s->dev + off, slot_of(s, k), chunk_len(s, k), st);
    if (rc) return copy_failed(s, rc, k, "issuing the copy");
    if (needs_event(s, k) && (rc = dfc_stage_ops->event_record(event_of(s, k), st)))
        return copy_failed(s, rc, k, "recording its event");
    s->issued = k + 1;
    return DFC_SUCCESS;
}

static int event_done(const dfc_p2p_devstream_t *s, long k, int *done)
{
    int rc;
    if (dfc_stage_ops->event_query) rc = dfc_stage_ops->event_query(event_of(s, k), done);
    else rc = dfc_stage_ops->event_sync(event_of(s, k)), *done = 1;
    return rc ? copy_failed(s, rc, k, "its completion") : DFC_SUCCESS;
}

int dfc_p2p_devstream_open(dfc_req_t *r, int is_recv, void *dev, uint64_t bytes)
{
    const dfc_stage_params_t *prm = dfc_stage_params();
    dfc_p2p_devstream_t *s = calloc(1, sizeof *s);
    if (!s) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a device stream");
    s->dir = is_recv ? TO_DEV : TO_HOST;
    s->dev = dev;
    s->bytes = bytes;
    uint64_t piece = (bytes + (uint64_t)prm->depth - 1) / (uint64_t)prm->depth;
    s->chunk = DFC_MIN2(prm->chunk, DFC_MAX2(prm->chunk_min, (size_t)piece));
    s->n = (long)((bytes + s->chunk - 1) / s->chunk);
    s->depth = DFC_MIN2((long)prm->depth, s->n);
    int rc = DFC_SUCCESS;
    for (long j = 0; j < s->depth && !rc; j++) rc = dfc_stage_buf_get(s->chunk, &s->slot[j]);
    if (!rc) rc = dfc_stage_ctx_get(&s->ctx);
    r->devstream = s;
    streams_open++;
    for (long k = 0; !rc && !is_recv && k < s->depth; k++) rc = issue(s, k);
    if (rc) dfc_p2p_devstream_close(r);
    return rc;
}

void dfc_p2p_devstream_close(dfc_req_t *r)
{
    dfc_p2p_devstream_t *s = r->devstream;
    if (!s) return;
    r->devstream = NULL;
    streams_open--;
    if (s->ctx) { /* after a failure copies may still run into or out of the slots */
        dfc_stage_ops->stream_sync(s->ctx->stream[s->dir]);
        dfc_stage_ctx_put(s->ctx);
    }
    for (long j = 0; j < s->depth; j++) dfc_stage_buf_put(s->slot[j]);
    free(s);
}

int dfc_p2p_devstream_peek(dfc_req_t *r, uint64_t off, uint64_t *avail, const void **src)
{
    dfc_p2p_devstream_t *s = r->devstream;
    long k = (long)(off / s->chunk);
    *avail = 0;
    if (k >= s->issued) return DFC_SUCCESS; /* its slot still goes out: cannot happen */
    if (k >= s->known_done) {
        int done, rc = event_done(s, k, &done);
        if (rc || !done) return rc;
        s->known_done = k + 1; /* copies of one stream end in order */
    }
    uint64_t in = off - (uint64_t)k * s->chunk;
    *avail = chunk_len(s, k) - in;
    *src = (const char *)slot_of(s, k) + in;
    return DFC_SUCCESS;
}

int dfc_p2p_devstream_sent(dfc_req_t *r, uint64_t upto)
{
    dfc_p2p_devstream_t *s = r->devstream;
    long taken = (long)(upto / s->chunk); /* chunks the transport took whole */
    int rc = DFC_SUCCESS;
    while (!rc && s->issued < s->n && s->issued < taken + s->depth) rc = issue(s, s->issued);
    return rc;
}

int dfc_p2p_devstream_land(dfc_req_t *r, uint64_t off, const void *src, uint64_t n)
{
    dfc_p2p_devstream_t *s = r->devstream;
    int rc = DFC_SUCCESS;
    while (n && !rc) {
        long k = (long)(off / s->chunk);
        int j = (int)(k % s->depth);
        if (s->in_flight[j]) { /* chunk k - depth's copy out of this slot */
            if ((rc = dfc_stage_ops->event_sync(event_of(s, k))))
                return copy_failed(s, rc, k - s->depth, "its completion");
            s->in_flight[j] = 0;
        }
        uint64_t in = off - (uint64_t)k * s->chunk;
        uint64_t piece = DFC_MIN2(n, chunk_len(s, k) - in);
        memcpy((char *)slot_of(s, k) + in, src, piece);
        s->filled[j] += piece;
        if (s->filled[j] == chunk_len(s, k)) {
            s->filled[j] = 0;
            rc = issue(s, k);
            s->in_flight[j] = !rc;
        }
        off += piece, n -= piece, src = (const char *)src + piece;
    }
    return rc;
}

int dfc_p2p_devstream_drained(dfc_req_t *r, int *done)
{
    dfc_p2p_devstream_t *s = r->devstream;
    *done = 0;
    if (s->issued < s->n) return DFC_SUCCESS; /* bytes still to come */
    return event_done(s, s->n - 1, done);     /* the last copy of the one stream */
}
