/*
 * fake_stage_ops.h - a stand-in for what staging needs of the CUDA runtime
 * (dfc_stage_ops_t), for test_stage and test_p2p_dev: "device memory" is host memory the
 * stand-in calls device memory, and copies are deferred, as a GPU's are: a copy runs only
 * when an event recorded after it is synchronized or seen complete by a query (the third
 * query after the record), or its stream is synchronized. So a buffer read before its copy
 * was waited for, or reused while a copy out of it was in flight, shows up as wrong data.
 * Pinned "host" buffers start filled with 0xee. Counters: live buffers, streams, events
 * (leaks), copies issued; fail_copy_at and fail_alloc_at make one call fail.
 * Static definitions in a header: each unit test is one translation unit.
 */
#ifndef DFC_TEST_FAKE_STAGE_OPS_H
#define DFC_TEST_FAKE_STAGE_OPS_H

#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"
#define MAXDEV 16
#define MAXQ 4096
static struct {
    char *p;
    size_t n;
} devs[MAXDEV];
typedef struct fcopy {
    void *dst;
    const void *src;
    size_t n;
} fcopy_t;
typedef struct fstream {
    fcopy_t q[MAXQ]; /* a ring: copy i is q[i % MAXQ] */
    long nq, done;   /* copies issued, and run */
} fstream_t;
typedef struct fevent {
    fstream_t *s;
    long pos;    /* the copies before it */
    int queries; /* since the record */
} fevent_t;
static long live_host, live_streams, live_events, copies, fail_copy_at = -1, fail_alloc_at = -1,
                                                          host_allocs;

static void *dev_alloc(size_t n)
{
    for (int i = 0; i < MAXDEV; i++)
        if (!devs[i].p) {
            devs[i].p = malloc(n + 64);
            devs[i].n = n + 64;
            return devs[i].p;
        }
    abort();
}
static void dev_free(void *p)
{
    for (int i = 0; i < MAXDEV; i++)
        if (devs[i].p == p) {
            free(p);
            devs[i].p = NULL;
        }
}
static int f_is_device(const void *p)
{
    for (int i = 0; i < MAXDEV; i++)
        if (devs[i].p && (const char *)p >= devs[i].p && (const char *)p < devs[i].p + devs[i].n)
            return 1;
    return 0;
}
static int f_host_alloc(size_t n, void **out)
{
    if (host_allocs++ == fail_alloc_at)
        return dfc_err(DFC_ERR_OTHER, "cudaHostAlloc", "fake allocation failure");
    *out = malloc(n);
    memset(*out, 0xee, n);
    live_host++;
    return DFC_SUCCESS;
}
static void f_host_free(void *p)
{
    free(p);
    live_host--;
}
static int f_stream_create(void **out)
{
    *out = calloc(1, sizeof(fstream_t));
    live_streams++;
    return DFC_SUCCESS;
}
static void f_stream_destroy(void *s)
{
    if (!s) return;
    free(s);
    live_streams--;
}
static int f_event_create(void **out)
{
    *out = calloc(1, sizeof(fevent_t));
    live_events++;
    return DFC_SUCCESS;
}
static void f_event_destroy(void *e)
{
    if (!e) return;
    free(e);
    live_events--;
}
static int f_copy_async(void *dst, const void *src, size_t n, void *stream)
{
    fstream_t *s = stream;
    if (copies++ == fail_copy_at)
        return dfc_err(DFC_ERR_OTHER, "cudaMemcpyAsync", "fake copy failure");
    if (s->nq - s->done == MAXQ) abort();
    s->q[s->nq++ % MAXQ] = (fcopy_t){dst, src, n};
    return DFC_SUCCESS;
}
static int f_event_record(void *e, void *stream)
{
    fevent_t *ev = e;
    ev->s = stream;
    ev->pos = ev->s->nq;
    ev->queries = 0;
    return DFC_SUCCESS;
}
static void run_to(fstream_t *s, long pos)
{
    for (; s->done < pos; s->done++) {
        fcopy_t *c = &s->q[s->done % MAXQ];
        memcpy(c->dst, c->src, c->n);
    }
}
static int f_event_sync(void *e)
{
    fevent_t *ev = e;
    if (ev->s) run_to(ev->s, ev->pos);
    return DFC_SUCCESS;
}
static int f_event_query(void *e, int *done)
{
    fevent_t *ev = e;
    *done = !ev->s || ev->s->done >= ev->pos || ++ev->queries >= 3;
    if (*done && ev->s) run_to(ev->s, ev->pos);
    return DFC_SUCCESS;
}
static int f_stream_sync(void *stream)
{
    fstream_t *s = stream;
    run_to(s, s->nq);
    return DFC_SUCCESS;
}
static const dfc_stage_ops_t fake = {f_is_device,     f_host_alloc,     f_host_free,
                                     f_stream_create, f_stream_destroy, f_event_create,
                                     f_event_destroy, f_copy_async,     f_event_record,
                                     f_event_sync,    f_stream_sync,    NULL /* rows */,
                                     f_event_query};
/* cudaMemcpy2DAsync: deferred like the others, one row per queued copy; counted. */
static long copies2d;
static int f_copy2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height, void *stream)
{
    copies2d++;
    for (size_t k = 0; k < height; k++) {
        fstream_t *s = stream;
        if (s->nq - s->done == MAXQ) abort();
        s->q[s->nq++ % MAXQ] = (fcopy_t){(char *)dst + k * dpitch, (const char *)src + k * spitch,
                                         width};
    }
    return DFC_SUCCESS;
}
static const dfc_stage_ops_t fake2d = {f_is_device,     f_host_alloc,     f_host_free,
                                       f_stream_create, f_stream_destroy, f_event_create,
                                       f_event_destroy, f_copy_async,     f_event_record,
                                       f_event_sync,    f_stream_sync,    f_copy2d_async,
                                       f_event_query};

#endif /* DFC_TEST_FAKE_STAGE_OPS_H */
