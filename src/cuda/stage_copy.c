/*
 * stage_copy.c - what the staging fallback (src/comm/stage.c) needs of the CUDA runtime:
 * pinned host memory, a stream of DFC's own per copy direction, events, asynchronous copies.
 *
 * Resolved here, apart from cuda.c's table, from a handle of its own on the same runtime
 * (dfc_gpu_cudart_open; dlopen counts references), so that the loader's list stays as it is.
 * Resolved on first use: a program that never stages never looks these up.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "cuda/dfc_cuda.h"
#include "util/dfc_util.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>

/* X(name, return type, parameter list) */
#define DFC_STAGE_CUDA_FUNCTIONS(X)                                           \
    X(cudaGetErrorString, const char *, (cudaError_t))                        \
    X(cudaGetLastError, cudaError_t, (void))                                  \
    X(cudaHostAlloc, cudaError_t, (void **, size_t, unsigned int))            \
    X(cudaFreeHost, cudaError_t, (void *))                                    \
    X(cudaStreamCreateWithFlags, cudaError_t, (cudaStream_t *, unsigned int)) \
    X(cudaStreamDestroy, cudaError_t, (cudaStream_t))                         \
    X(cudaStreamSynchronize, cudaError_t, (cudaStream_t))                     \
    X(cudaEventCreateWithFlags, cudaError_t, (cudaEvent_t *, unsigned int))   \
    X(cudaEventDestroy, cudaError_t, (cudaEvent_t))                           \
    X(cudaEventRecord, cudaError_t, (cudaEvent_t, cudaStream_t))              \
    X(cudaEventSynchronize, cudaError_t, (cudaEvent_t))                       \
    X(cudaEventQuery, cudaError_t, (cudaEvent_t))                             \
    X(cudaMemcpyAsync, cudaError_t,                                           \
      (void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t))

static struct {
#define DFC_STAGE_MEMBER(name, ret, params) ret(*name) params;
    DFC_STAGE_CUDA_FUNCTIONS(DFC_STAGE_MEMBER)
#undef DFC_STAGE_MEMBER
} fn;
static pthread_once_t fn_once = PTHREAD_ONCE_INIT;
static int fn_ok;

/* Optional: a runtime (or a stand-in) without it copies 2D layouts row by row. */
typedef cudaError_t copy2d_fn(void *, size_t, const void *, size_t, size_t, size_t,
                              enum cudaMemcpyKind, cudaStream_t);
static copy2d_fn *copy2d;

static void resolve(void)
{
    void *lib = dfc_gpu_cudart_open();
    if (!lib) return;
    copy2d = (copy2d_fn *)dlsym(lib, "cudaMemcpy2DAsync");
    int missing = 0;
#define DFC_STAGE_RESOLVE(name, ret, params)    \
    fn.name = (ret(*) params)dlsym(lib, #name); \
    missing |= !fn.name;
    DFC_STAGE_CUDA_FUNCTIONS(DFC_STAGE_RESOLVE)
#undef DFC_STAGE_RESOLVE
    fn_ok = !missing;
}

/* DFC_SUCCESS, or DFC_ERR_OTHER with "what: <CUDA's reason>" recorded (the caller's name). */
static int check(const char *func, const char *what, cudaError_t e)
{
    if (e == cudaSuccess) return DFC_SUCCESS;
    fn.cudaGetLastError(); /* clear it: the next call must not report it again */
    return dfc_err(DFC_ERR_OTHER, func, "%s: %s", what, fn.cudaGetErrorString(e));
}

static int ready(const char *func)
{
    pthread_once(&fn_once, resolve);
    return fn_ok ? DFC_SUCCESS
                 : dfc_err(DFC_ERR_OTHER, func, "the CUDA runtime lacks what staging needs");
}

int dfc_gpu_host_alloc(size_t bytes, void **out)
{
    int rc = ready(__func__);
    if (rc) return rc;
    *out = NULL;
    return check(__func__, "cudaHostAlloc of pinned staging memory",
                 fn.cudaHostAlloc(out, bytes ? bytes : 1, cudaHostAllocPortable));
}

void dfc_gpu_host_free(void *p)
{
    if (p && fn_ok) fn.cudaFreeHost(p);
}

int dfc_gpu_stream_create(void **out)
{
    int rc = ready(__func__);
    if (rc) return rc;
    /* A blocking stream (cudaStreamDefault): its copies wait for work the program queued
     * on the legacy default stream (a cudaMemset, or a cudaMemcpy from pageable memory,
     * which returns before its DMA lands), as the cudaMemcpy that staging used before did;
     * a non-blocking stream read and wrote device buffers under such work. */
    return check(__func__, "cudaStreamCreateWithFlags",
                 fn.cudaStreamCreateWithFlags((cudaStream_t *)out, cudaStreamDefault));
}

void dfc_gpu_stream_destroy(void *s)
{
    if (s && fn_ok) fn.cudaStreamDestroy((cudaStream_t)s);
}

int dfc_gpu_event_create(void **out)
{
    int rc = ready(__func__);
    if (rc) return rc;
    return check(__func__, "cudaEventCreateWithFlags",
                 fn.cudaEventCreateWithFlags((cudaEvent_t *)out, cudaEventDisableTiming));
}

void dfc_gpu_event_destroy(void *e)
{
    if (e && fn_ok) fn.cudaEventDestroy((cudaEvent_t)e);
}

int dfc_gpu_copy_async(void *dst, const void *src, size_t bytes, void *stream)
{
    return check(__func__, "cudaMemcpyAsync",
                 fn.cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream));
}

int dfc_gpu_copy2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, void *stream)
{
    if (copy2d)
        return check(__func__, "cudaMemcpy2DAsync",
                     copy2d(dst, dpitch, src, spitch, width, height, cudaMemcpyDefault,
                            (cudaStream_t)stream));
    int rc = DFC_SUCCESS;
    for (size_t k = 0; k < height && !rc; k++)
        rc = dfc_gpu_copy_async((char *)dst + k * dpitch, (const char *)src + k * spitch, width,
                                stream);
    return rc;
}

int dfc_gpu_event_record(void *e, void *stream)
{
    return check(__func__, "cudaEventRecord",
                 fn.cudaEventRecord((cudaEvent_t)e, (cudaStream_t)stream));
}

int dfc_gpu_event_sync(void *e)
{
    return check(__func__, "cudaEventSynchronize", fn.cudaEventSynchronize((cudaEvent_t)e));
}

int dfc_gpu_event_query(void *e, int *done)
{
    cudaError_t q = fn.cudaEventQuery((cudaEvent_t)e);
    *done = q != cudaErrorNotReady;
    return q == cudaErrorNotReady ? DFC_SUCCESS : check(__func__, "cudaEventQuery", q);
}

int dfc_gpu_stream_sync(void *s)
{
    return check(__func__, "cudaStreamSynchronize", fn.cudaStreamSynchronize((cudaStream_t)s));
}

#else /* built without CUDA: nothing is ever staged (no pointer is a device pointer) */

static int absent(const char *func)
{
    return dfc_err(DFC_ERR_OTHER, func, "DFC was built without CUDA");
}
int dfc_gpu_host_alloc(size_t bytes, void **out)
{
    (void)bytes;
    *out = NULL;
    return absent(__func__);
}
void dfc_gpu_host_free(void *p) { (void)p; }
int dfc_gpu_stream_create(void **out)
{
    *out = NULL;
    return absent(__func__);
}
void dfc_gpu_stream_destroy(void *s) { (void)s; }
int dfc_gpu_event_create(void **out)
{
    *out = NULL;
    return absent(__func__);
}
void dfc_gpu_event_destroy(void *e) { (void)e; }
int dfc_gpu_copy_async(void *dst, const void *src, size_t bytes, void *stream)
{
    (void)stream;
    memcpy(dst, src, bytes);
    return DFC_SUCCESS;
}
int dfc_gpu_copy2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, void *stream)
{
    (void)stream;
    for (size_t k = 0; k < height; k++)
        memcpy((char *)dst + k * dpitch, (const char *)src + k * spitch, width);
    return DFC_SUCCESS;
}
int dfc_gpu_event_record(void *e, void *stream)
{
    (void)e;
    (void)stream;
    return DFC_SUCCESS;
}
int dfc_gpu_event_sync(void *e)
{
    (void)e;
    return DFC_SUCCESS;
}
int dfc_gpu_event_query(void *e, int *done)
{
    (void)e;
    *done = 1;
    return DFC_SUCCESS;
}
int dfc_gpu_stream_sync(void *s)
{
    (void)s;
    return DFC_SUCCESS;
}
#endif
