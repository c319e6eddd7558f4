/*
 * stage.c - device buffers staged through pinned host memory (the interface and the pool
 * are in dfc_comm.h and stage_pool.c).
 *
 * The pipeline: the operation runs chunk after chunk on pinned chunk buffers, DFC_STAGE_DEPTH
 * of them per side. A chunk is a multiple of the item size: the message cut into depth
 * pieces, so that a message of a few megabytes overlaps its copies too, but no smaller than
 * DFC_STAGE_CHUNK_MIN (each chunk pays a host collective's fixed costs) and no larger than
 * DFC_STAGE_CHUNK. Copies run on a
 * context's two streams, device-to-host (IN) and host-to-device (OUT), so both directions
 * run at once. Before chunk k runs, the device-to-host copies of the chunks up to
 * k + depth - 1 are issued (k + depth - 2 when input and output share one buffer, whose
 * slot must first have been copied out); after it runs, its host-to-device copy is issued
 * and not waited for until its slot comes round again. So chunk k's operation overlaps the
 * copy in of chunk k+1 and the copy out of chunk k-1. Every wait is on an event of the
 * slot's last copy (a message of one chunk waits on its stream instead: a record less of the
 * five CUDA calls that are most of a small staged call's time under MPS), so an error leaves
 * nothing in flight once both streams are drained.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

enum { IN = 0, OUT = 1 };

/* Where the pipeline's time goes (DFC_DEBUG=2:stage prints it at finalize): taking the buffers
 * and the copy context, issuing the copies (both directions), waits for each direction's
 * copies, the host operation of the chunks, the drain at the end. A clock read
 * per phase, counted only while the log asks for it; threads may stage at once, so the
 * counters are atomic (PROF_ADD). */
static struct {
    uint64_t calls, chunks, total, setup, wait[2], seg, issue, drain;
} prof;
static int prof_on = -1;
#define PROF_ADD(field, v) __atomic_fetch_add(&prof.field, (uint64_t)(v), __ATOMIC_RELAXED)

static uint64_t prof_now(void)
{
    int on = __atomic_load_n(&prof_on, __ATOMIC_RELAXED);
    if (on < 0) {
        on = dfc_log_enabled(DFC_LOG_INFO, "stage") && dfc_log_level >= 2;
        __atomic_store_n(&prof_on, on, __ATOMIC_RELAXED);
    }
    return on ? dfc_time_ns() : 0;
}

void dfc_stage_pipe_log(void)
{
    if (prof.calls)
        DFC_LOG(DFC_LOG_INFO, "stage",
                "pipeline: %llu calls, %.1f chunks each; mean us per call: total %.1f, setup %.1f, "
                "waits for copies in %.1f, out %.1f, host operations %.1f, issuing copies %.1f, "
                "drain %.1f",
                (unsigned long long)prof.calls, (double)prof.chunks / prof.calls,
                prof.total / 1e3 / prof.calls, prof.setup / 1e3 / prof.calls,
                prof.wait[IN] / 1e3 / prof.calls, prof.wait[OUT] / 1e3 / prof.calls,
                prof.seg / 1e3 / prof.calls, prof.issue / 1e3 / prof.calls,
                prof.drain / 1e3 / prof.calls);
    memset(&prof, 0, sizeof prof); /* at finalize: no pipeline runs */
    __atomic_store_n(&prof_on, -1, __ATOMIC_RELAXED);
}

typedef struct pipe_run {
    const dfc_stage_pipe_t *p;
    dfc_stage_ctx_t *ctx;
    int in_dev, out_dev, alias; /* alias: input and output are one device buffer */
    size_t chunk;
    long n;      /* chunks */
    int depth;   /* slots */
    long issued; /* chunks whose copy in was issued (or that need none) */
    dfc_stage_buf_t *buf[2][DFC_STAGE_MAX_DEPTH];
} pipe_run_t;

static size_t chunk_len(const pipe_run_t *r, long k)
{
    size_t off = (size_t)k * r->chunk;
    return DFC_MIN2(r->chunk, r->p->bytes - off);
}

/* Re-records a copy's failure with where it happened (the ops recorded CUDA's reason). */
static int copy_failed(const pipe_run_t *r, int rc, int dir, long k, const char *what)
{
    char why[256];
    dfc_err_message(rc, why, sizeof why);
    return dfc_err(DFC_ERR_CLASS(rc), "dfc_stage_pipeline",
                   "staging a device buffer: %s (%s) of chunk %ld of %ld (%zu bytes at offset "
                   "%zu) failed: %s",
                   dir == IN ? "device-to-host copy" : "host-to-device copy", what, k + 1, r->n,
                   chunk_len(r, k), (size_t)k * r->chunk, why);
}

/* Issues the copy of chunk k in one direction and records its slot's event, where anything
 * waits for that event: every copy in, and a copy out whose slot comes round again (the
 * last depth copies out are waited for by the drain). Under MPS each CUDA call costs 1.6 to
 * 5 us (BENCHMARKS.md, issue 14), on the path between two chunks' host operations. */
static int issue_copy(pipe_run_t *r, int dir, long k)
{
    int s = (int)(k % r->depth);
    size_t off = (size_t)k * r->chunk, len = chunk_len(r, k);
    void *host = r->buf[dir == OUT && r->alias ? IN : dir][s]->p;
    void *st = r->ctx->stream[dir];
    int rc = dir == IN ? dfc_stage_ops->copy_async(host, (const char *)r->p->in + off, len, st)
                       : dfc_stage_ops->copy_async((char *)r->p->out + off, host, len, st);
    if (rc) return copy_failed(r, rc, dir, k, "issue");
    if (dir == OUT && k + r->depth >= r->n) return DFC_SUCCESS;
    if (dir == IN && r->n == 1) return DFC_SUCCESS; /* alone on its stream: wait_chunk syncs it */
    if ((rc = dfc_stage_ops->event_record(r->ctx->ev[dir][s], st)))
        return copy_failed(r, rc, dir, k, "event record");
    return DFC_SUCCESS;
}

/* issue_copy, its time counted (the profile's "issuing copies", both directions). */
static int copy_chunk(pipe_run_t *r, int dir, long k)
{
    uint64_t t0 = prof_now();
    int rc = issue_copy(r, dir, k);
    if (t0) PROF_ADD(issue, prof_now() - t0);
    return rc;
}

static int wait_chunk(pipe_run_t *r, int dir, long k)
{
    uint64_t t0 = prof_now();
    int rc = dir == IN && r->n == 1 ? dfc_stage_ops->stream_sync(r->ctx->stream[IN])
                                    : dfc_stage_ops->event_sync(r->ctx->ev[dir][k % r->depth]);
    if (t0) PROF_ADD(wait[dir], prof_now() - t0);
    return rc ? copy_failed(r, rc, dir, k, "completion") : DFC_SUCCESS;
}

/* Issues the copies in of the chunks up to `upto`; a slot shared with the output is reused
 * only once its previous chunk's copy out is done. */
static int prefetch(pipe_run_t *r, long upto)
{
    int rc;
    for (; r->issued <= upto && r->issued < r->n; r->issued++) {
        long j = r->issued;
        if (!r->in_dev) continue;
        if (r->alias && j >= r->depth && (rc = wait_chunk(r, OUT, j - r->depth))) return rc;
        if ((rc = copy_chunk(r, IN, j))) return rc;
    }
    return DFC_SUCCESS;
}

static int run_chunk(pipe_run_t *r, long k)
{
    int rc, s = (int)(k % r->depth);
    long ahead = DFC_MAX2(0, r->depth - 1 - r->alias);
    if ((rc = prefetch(r, k + ahead))) return rc;
    if (r->in_dev && (rc = wait_chunk(r, IN, k))) return rc;
    if (r->out_dev && !r->alias && k >= r->depth && (rc = wait_chunk(r, OUT, k - r->depth)))
        return rc;
    size_t off = (size_t)k * r->chunk;
    void *in = r->in_dev ? r->buf[IN][s]->p : r->p->in ? (char *)r->p->in + off : NULL;
    void *out = r->alias     ? in
                : r->out_dev ? r->buf[OUT][s]->p
                : r->p->out  ? (char *)r->p->out + off
                             : NULL;
    uint64_t t0 = prof_now();
    if ((rc = r->p->segment(r->p->arg, in, out, off, chunk_len(r, k)))) return rc;
    if (t0) PROF_ADD(seg, prof_now() - t0);
    return r->out_dev ? copy_chunk(r, OUT, k) : DFC_SUCCESS;
}

/* Takes the slots' buffers and a copy context. */
static int pipe_setup(pipe_run_t *r)
{
    int rc = DFC_SUCCESS;
    for (int s = 0; s < r->depth && !rc; s++) {
        if (r->in_dev) rc = dfc_stage_buf_get(r->chunk, &r->buf[IN][s]);
        if (!rc && r->out_dev && !r->alias) rc = dfc_stage_buf_get(r->chunk, &r->buf[OUT][s]);
    }
    if (!rc) rc = dfc_stage_ctx_get(&r->ctx);
    return rc;
}

/* Drains the streams (after a failure copies may still be in flight into the buffers; after
 * a success only copies out are: every copy in was waited for) and gives everything back. */
static int pipe_teardown(pipe_run_t *r, int rc)
{
    if (r->ctx) {
        for (int d = 0; d < 2; d++) {
            if (!rc && (d == IN || !r->out_dev)) continue;
            int rc2 = dfc_stage_ops->stream_sync(r->ctx->stream[d]);
            if (rc2 && !rc) rc = copy_failed(r, rc2, d, r->n - 1, "stream synchronization");
        }
        dfc_stage_ctx_put(r->ctx);
    }
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < r->depth; s++) dfc_stage_buf_put(r->buf[d][s]);
    return rc;
}

int dfc_stage_pipeline(const dfc_stage_pipe_t *p)
{
    if (!p->bytes) return p->segment(p->arg, (void *)p->in, p->out, 0, 0);
    const dfc_stage_params_t *prm = dfc_stage_params();
    size_t unit = p->unit ? p->unit : 1;
    pipe_run_t r = {.p = p};
    r.in_dev = p->in && dfc_stage_ops->is_device(p->in);
    r.out_dev = p->out && dfc_stage_ops->is_device(p->out);
    r.alias = r.in_dev && r.out_dev && p->in == p->out;
    size_t piece = (p->bytes + (size_t)prm->depth - 1) / (size_t)prm->depth;
    size_t chunk = DFC_MIN2(prm->chunk, DFC_MAX2(prm->chunk_min, piece));
    /* Rounded up to whole items where DFC_STAGE_CHUNK allows: rounded down, a message cut
     * into depth pieces left a last chunk of a few bytes (1 MiB of floats at depth 3: three
     * of 349524 bytes and one of 4), which paid a host collective and two copies of its own. */
    size_t up = (chunk + unit - 1) / unit * unit;
    r.chunk = up <= prm->chunk ? up : DFC_MAX2(unit, chunk / unit * unit);
    r.n = (long)((p->bytes + r.chunk - 1) / r.chunk);
    r.depth = (int)DFC_MIN2((long)prm->depth, r.n);
    if (r.alias && r.depth < 2 && r.n > 1) r.depth = 2; /* else each chunk waits for the last */
    uint64_t t0 = prof_now();
    int rc = pipe_setup(&r);
    if (t0) PROF_ADD(setup, prof_now() - t0);
    for (long k = 0; !rc && k < r.n; k++) rc = run_chunk(&r, k);
    uint64_t t1 = prof_now();
    rc = pipe_teardown(&r, rc);
    if (t0) {
        uint64_t t2 = prof_now();
        PROF_ADD(calls, 1), PROF_ADD(chunks, r.n), PROF_ADD(total, t2 - t0);
        PROF_ADD(drain, t2 - t1);
    }
    return rc;
}

/* ---- Whole-buffer shadows on requests --------------------------------------------------- */

/* A new zeroed shadow entry on r (its buffer not yet set). */
static dfc_stage_t *stage_add(dfc_req_t *r)
{
    dfc_stage_t *st = realloc(r->stages, (r->nstages + 1) * sizeof *st);
    if (!st) return NULL;
    r->stages = st;
    st = &r->stages[r->nstages];
    memset(st, 0, sizeof *st);
    return st;
}

int dfc_req_stage(dfc_req_t *r, void *buf, size_t bytes, int copy_in, int copy_out, void **use)
{
    *use = buf;
    if (!bytes || !dfc_stage_ops->is_device(buf)) return DFC_SUCCESS;
    /* Device point-to-point (p2p.c) moves it with CUDA IPC, unstaged. */
    if (r->kind != DFC_REQ_COLL && dfc_p2p_dev_direct(r, buf, bytes, copy_out)) {
        r->dev = 1;
        return DFC_SUCCESS;
    }
    dfc_stage_t *st = stage_add(r);
    if (!st) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    int rc = dfc_stage_buf_get(bytes, &st->buf);
    if (rc) return rc;
    st->host = st->buf->p;
    st->dev = buf;
    st->bytes = bytes;
    st->copy_in = copy_in;
    st->copy_out = copy_out;
    r->nstages++;
    *use = st->host;
    return DFC_SUCCESS;
}

/* The rest of a packed shadow st (host memory set) of count items of dt for buf, counted in
 * the request. A receive unpacks only what arrived, so partial ones pack nothing in. */
static int packed_shadow(dfc_req_t *r, dfc_stage_t *st, void *buf, uint64_t count,
                         const dfc_dtype_t *dt, int copy_in, int copy_out, int partial, void **use)
{
    st->dev = buf;
    st->bytes = count * dt->size;
    st->copy_in = partial ? 0 : copy_in;
    st->copy_out = copy_out;
    st->dt = dt;
    st->count = count;
    st->partial = partial;
    dfc_dtype_retain((dfc_dtype_t *)dt);
    r->nstages++;
    *use = st->host;
    return DFC_SUCCESS;
}

/* A non-dense datatype on a device buffer: a packed shadow in pinned memory from the pool,
 * which stage_in fills and stage_out empties through the type map's runs (stage_dtype.c).
 * Staged whole, not streamed in pieces as host types are (p2p.c). */
static int stage_dev_type(dfc_req_t *r, void *buf, uint64_t count, const dfc_dtype_t *dt,
                          int copy_in, int copy_out, int partial, void **use)
{
    dfc_stage_t *st = stage_add(r);
    if (!st) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    int rc = dfc_stage_buf_get(count * dt->size, &st->buf);
    if (rc) return rc;
    st->host = st->buf->p;
    return packed_shadow(r, st, buf, count, dt, copy_in, copy_out, partial, use);
}

/* Non-dense datatypes in host memory: point-to-point receives, and sends the protocol moves
 * by rendezvous, keep the datatype and the user's buffer, and p2p.c packs and unpacks piece
 * by piece as the data moves (no message-sized copy, packing overlaps the wire). Everything
 * else gets a packed shadow in host memory (the whole message, packed at start, unpacked at
 * completion), so eager sends and the collective schedules move contiguous bytes unchanged. */
int dfc_req_stage_type(dfc_req_t *r, void *buf, uint64_t count, const dfc_dtype_t *dt, int copy_in,
                       int copy_out, int partial, void **use)
{
    uint64_t bytes = count * dt->size;
    if (dt->dense || !bytes) return dfc_req_stage(r, buf, bytes, copy_in, copy_out, use);
    DFC_Aint lo, hi;
    dfc_dtype_span(dt, count, &lo, &hi);
    int dev = dfc_stage_ops->is_device((char *)buf + lo);
    if (dev != dfc_stage_ops->is_device((char *)buf + hi - 1))
        return dfc_err(DFC_ERR_BUFFER, r->func ? r->func : __func__,
                       "invalid argument buf: the %llu items of its datatype%s%s span device and "
                       "host memory (bytes %lld to %lld from the buffer's address): a buffer must "
                       "be one or the other; nothing was moved",
                       (unsigned long long)count, *dfc_dtype_name(dt) ? " " : "",
                       dfc_dtype_name(dt), (long long)lo, (long long)hi);
    if (dev) return stage_dev_type(r, buf, count, dt, copy_in, copy_out, partial, use);
    if (r->kind != DFC_REQ_COLL && dfc_p2p_stream_packed(bytes, copy_out)) {
        dfc_dtype_retain((dfc_dtype_t *)dt);
        r->pack_dt = dt;
        *use = buf;
        return DFC_SUCCESS;
    }
    dfc_stage_t *st = stage_add(r);
    if (!st) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    if (!(st->host = malloc(bytes)))
        return DFC_ERR(DFC_ERR_NO_MEM,
                       "out of memory for a %llu-byte packed copy of a non-contiguous buffer",
                       (unsigned long long)bytes);
    return packed_shadow(r, st, buf, count, dt, copy_in, copy_out, partial, use);
}

void dfc_req_unstage(dfc_req_t *r)
{
    if (r->pack_dt) {
        dfc_dtype_release((dfc_dtype_t *)r->pack_dt);
        r->pack_dt = NULL;
    }
    for (int i = 0; i < r->nstages; i++) {
        dfc_stage_t *st = &r->stages[i];
        if (st->dt) {
            dfc_dtype_release((dfc_dtype_t *)st->dt);
            if (st->buf) dfc_stage_buf_put(st->buf); /* a device buffer's */
            else free(st->host);
        } else {
            dfc_stage_buf_put(st->buf);
        }
    }
    if (!r->stages) return; /* the common case: nothing staged, no call into free */
    free(r->stages);
    r->stages = NULL;
    r->nstages = 0;
}

/* Packs (IN) or unpacks (OUT) the request's packed shadows, from and into host buffers
 * here, device ones through their runs' copies (stage_dtype.c). */
static int pack_all(dfc_req_t *r, int dir)
{
    int rc = DFC_SUCCESS;
    for (int i = 0; i < r->nstages && !rc; i++) {
        dfc_stage_t *st = &r->stages[i];
        if (!st->dt) continue;
        if (dir == IN && st->copy_in) {
            if (st->buf) rc = dfc_stage_dev_pack(st->dt, st->dev, st->count, st->host);
            else dfc_dtype_pack(st->dt, st->dev, 0, st->bytes, st->host);
        } else if (dir == OUT && st->copy_out && !r->cancelled) {
            uint64_t n = st->partial ? DFC_MIN2(dfc_status_bytes(&r->status), st->bytes)
                                     : st->bytes;
            if (st->buf) rc = dfc_stage_dev_unpack(st->dt, st->dev, n, st->host);
            else dfc_dtype_unpack(st->dt, st->dev, 0, n, st->host);
        }
    }
    return rc;
}

/* Issues the request's copies in one direction together on one stream, then waits once. */
static int copy_all(dfc_req_t *r, int dir)
{
    int any = 0;
    for (int i = 0; i < r->nstages; i++)
        if (!r->stages[i].dt) any |= dir == IN ? r->stages[i].copy_in : r->stages[i].copy_out;
    if (!any) return DFC_SUCCESS;
    dfc_stage_ctx_t *x;
    int rc = dfc_stage_ctx_get(&x), rc2;
    if (rc) return rc;
    for (int i = 0; i < r->nstages && !rc; i++) {
        dfc_stage_t *st = &r->stages[i];
        if (st->dt) continue; /* packed, not copied (pack_all) */
        if (dir == IN && st->copy_in)
            rc = dfc_stage_ops->copy_async(st->host, st->dev, st->bytes, x->stream[IN]);
        else if (dir == OUT && st->copy_out)
            rc = dfc_stage_ops->copy_async(st->dev, st->host, st->bytes, x->stream[OUT]);
    }
    if ((rc2 = dfc_stage_ops->stream_sync(x->stream[dir])) && !rc) rc = rc2;
    dfc_stage_ctx_put(x);
    if (!rc) return DFC_SUCCESS;
    char why[256];
    dfc_err_message(rc, why, sizeof why);
    return dfc_err(DFC_ERR_CLASS(rc), "dfc_req_stage", "staging a device buffer: %s failed: %s",
                   dir == IN ? "device-to-host copy" : "host-to-device copy", why);
}

int dfc_req_stage_in(dfc_req_t *r)
{
    if (!r->nstages) return DFC_SUCCESS;
    int rc = pack_all(r, IN);
    return rc ? rc : copy_all(r, IN);
}

int dfc_req_stage_out(dfc_req_t *r)
{
    if (!r->nstages) return DFC_SUCCESS;
    int rc = pack_all(r, OUT), rc2 = copy_all(r, OUT);
    return rc ? rc : rc2;
}
