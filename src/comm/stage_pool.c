/*
 * stage_pool.c - what the staging fallback (stage.c) keeps from call to call: pinned host
 * buffers and copy contexts (a stream per direction and its events), made on first need and
 * reused until DFC finalizes, so that no staged call allocates or pins memory of its own.
 *
 * Buffers come in power-of-two classes from 64 KiB. The pool grows on demand until it holds
 * DFC_STAGE_POOL_MAX bytes; past that, idle buffers of other classes are released to make
 * room, and a request that still does not fit gets a pinned buffer of its own, released when
 * it is given back (a "transient": counted in the stats, logged with DFC_DEBUG=2:stage).
 * The CUDA calls go through an ops table so that the unit test (test/unit/test_stage.c) runs
 * all of this against a stand-in without a GPU.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"
#include "cuda/dfc_cuda.h"

#define CLASS_MIN (64 * 1024)

static int cuda_is_device(const void *p) { return dfc_gpu_is_device_ptr(p); }
static const dfc_stage_ops_t cuda_ops = {cuda_is_device,         dfc_gpu_host_alloc,
                                         dfc_gpu_host_free,      dfc_gpu_stream_create,
                                         dfc_gpu_stream_destroy, dfc_gpu_event_create,
                                         dfc_gpu_event_destroy,  dfc_gpu_copy_async,
                                         dfc_gpu_event_record,   dfc_gpu_event_sync,
                                         dfc_gpu_stream_sync,    dfc_gpu_copy2d_async,
                                         dfc_gpu_event_query};
const dfc_stage_ops_t *dfc_stage_ops = &cuda_ops;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static dfc_stage_buf_t *idle; /* pooled buffers nobody uses */
static dfc_stage_ctx_t *ctxs; /* idle copy contexts */
static dfc_stage_stats_t stats;
static dfc_stage_params_t params;
static int params_read;

void dfc_stage_set_ops(const dfc_stage_ops_t *ops)
{
    dfc_stage_finalize();
    dfc_stage_ops = ops ? ops : &cuda_ops;
}

/* Read once (after finalize, again): staged calls must not parse the environment. */
const dfc_stage_params_t *dfc_stage_params(void)
{
    pthread_mutex_lock(&lock);
    if (!params_read) {
        params.chunk = (size_t)dfc_env_long("DFC_STAGE_CHUNK", 4L << 20,
                                            "bytes of one chunk of a pipelined staged collective");
        params.depth = (int)dfc_env_long("DFC_STAGE_DEPTH", 3,
                                         "chunks of a staged collective in flight (buffers)");
        params.pool_max = (size_t)dfc_env_long("DFC_STAGE_POOL_MAX", 256L << 20,
                                               "bytes of pinned staging memory kept for reuse");
        params.chunk_min = (size_t)
            dfc_env_long("DFC_STAGE_CHUNK_MIN", 256L << 10,
                         "smallest chunk a staged collective is cut into to fill its pipeline");
        if (params.chunk < 1) params.chunk = 1;
        params.chunk_min = DFC_MAX2(1, DFC_MIN2(params.chunk_min, params.chunk));
        params.depth = DFC_MAX2(1, DFC_MIN2(params.depth, DFC_STAGE_MAX_DEPTH));
        params_read = 1;
    }
    pthread_mutex_unlock(&lock);
    return &params;
}

static size_t class_of(size_t bytes)
{
    size_t c = CLASS_MIN;
    while (c < bytes) c <<= 1;
    return c;
}

/* Takes an idle buffer of class cls, or makes room for a new one within the cap (releasing
 * idle buffers of other classes). Returns the idle buffer, or NULL with *transient set when
 * the new one does not fit. Under the lock. */
static dfc_stage_buf_t *take_idle(size_t cls, int *transient)
{
    for (dfc_stage_buf_t **pp = &idle; *pp; pp = &(*pp)->next)
        if ((*pp)->bytes == cls) {
            dfc_stage_buf_t *b = *pp;
            *pp = b->next;
            return b;
        }
    while (idle && stats.held + cls > params.pool_max) {
        dfc_stage_buf_t *b = idle;
        idle = b->next;
        stats.held -= b->bytes;
        dfc_stage_ops->host_free(b->p);
        free(b);
    }
    *transient = stats.held + cls > params.pool_max;
    if (!*transient) stats.held += cls; /* reserved before the allocation, outside the lock */
    return NULL;
}

int dfc_stage_buf_get(size_t bytes, dfc_stage_buf_t **out)
{
    dfc_stage_params();
    size_t cls = class_of(bytes);
    int transient = 0;
    pthread_mutex_lock(&lock);
    dfc_stage_buf_t *b = take_idle(cls, &transient);
    stats.in_use++;
    pthread_mutex_unlock(&lock);
    if (b) {
        *out = b;
        return DFC_SUCCESS;
    }
    int rc = DFC_SUCCESS;
    if (!(b = calloc(1, sizeof *b)))
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a staging buffer's record");
    else if ((rc = dfc_stage_ops->host_alloc(cls, &b->p))) free(b);
    pthread_mutex_lock(&lock);
    if (rc) {
        stats.in_use--;
        if (!transient) stats.held -= cls;
    } else {
        stats.allocs++;
        stats.transients += transient;
    }
    pthread_mutex_unlock(&lock);
    if (rc) return rc;
    b->bytes = cls;
    b->transient = transient;
    if (transient)
        DFC_LOG(DFC_LOG_INFO, "stage", "%zu-byte staging buffer past DFC_STAGE_POOL_MAX (%zu)", cls,
                params.pool_max);
    *out = b;
    return DFC_SUCCESS;
}

void dfc_stage_buf_put(dfc_stage_buf_t *b)
{
    if (!b) return;
    pthread_mutex_lock(&lock);
    stats.in_use--;
    if (!b->transient) {
        b->next = idle;
        idle = b;
        b = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (b) {
        dfc_stage_ops->host_free(b->p);
        free(b);
    }
}

static void ctx_destroy(dfc_stage_ctx_t *x)
{
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < DFC_STAGE_MAX_DEPTH; i++) dfc_stage_ops->event_destroy(x->ev[d][i]);
        dfc_stage_ops->stream_destroy(x->stream[d]);
    }
    free(x);
}

static int ctx_create(dfc_stage_ctx_t **out)
{
    dfc_stage_ctx_t *x = calloc(1, sizeof *x);
    if (!x) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a staging copy context");
    int rc = DFC_SUCCESS;
    for (int d = 0; d < 2 && !rc; d++) {
        rc = dfc_stage_ops->stream_create(&x->stream[d]);
        for (int i = 0; i < DFC_STAGE_MAX_DEPTH && !rc; i++)
            rc = dfc_stage_ops->event_create(&x->ev[d][i]);
    }
    if (rc) {
        ctx_destroy(x);
        return rc;
    }
    *out = x;
    return DFC_SUCCESS;
}

int dfc_stage_ctx_get(dfc_stage_ctx_t **out)
{
    pthread_mutex_lock(&lock);
    dfc_stage_ctx_t *x = ctxs;
    if (x) ctxs = x->next;
    pthread_mutex_unlock(&lock);
    int made = !x, rc = x ? DFC_SUCCESS : ctx_create(&x);
    if (rc) return rc;
    pthread_mutex_lock(&lock);
    stats.ctx_in_use++;
    stats.ctxs += made;
    pthread_mutex_unlock(&lock);
    x->next = NULL;
    *out = x;
    return DFC_SUCCESS;
}

void dfc_stage_ctx_put(dfc_stage_ctx_t *x)
{
    if (!x) return;
    pthread_mutex_lock(&lock);
    stats.ctx_in_use--;
    x->next = ctxs;
    ctxs = x;
    pthread_mutex_unlock(&lock);
}

void dfc_stage_get_stats(dfc_stage_stats_t *out)
{
    pthread_mutex_lock(&lock);
    *out = stats;
    pthread_mutex_unlock(&lock);
}

/* Releases every idle buffer and context (those still in use belong to requests the user
 * never freed: they go with the process). The parameters are read again on next use. */
void dfc_stage_finalize(void)
{
    dfc_stage_pipe_log();
    pthread_mutex_lock(&lock);
    dfc_stage_buf_t *b = idle;
    dfc_stage_ctx_t *x = ctxs;
    idle = NULL;
    ctxs = NULL;
    while (b) {
        dfc_stage_buf_t *next = b->next;
        stats.held -= b->bytes;
        dfc_stage_ops->host_free(b->p);
        free(b);
        b = next;
    }
    while (x) {
        dfc_stage_ctx_t *next = x->next;
        stats.ctxs--;
        ctx_destroy(x);
        x = next;
    }
    params_read = 0;
    pthread_mutex_unlock(&lock);
}
