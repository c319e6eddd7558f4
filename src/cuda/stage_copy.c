/*
 * stage_copy.c - what the staging fallback (src/comm/stage.c) needs of the CUDA runtime:
 * pinned host memory, a stream of DFC's own per copy direction, events, asynchronous copies.
 *
 * Resolved here, apart from cuda.c's table, from a handle of its own on the same runtime
 * (dfc_gpu_cudart_open; dlopen counts references), so that the loader's list stays as it is.
 * Resolved on first use: a program that never stages never looks these up.
 *
 * Events after large copies are words of mapped pinned memory where the driver has stream
 * memory operations (issue 15). Under MPS a cudaEventQuery costs 1.6-2.1 us (BENCHMARKS.md),
 * and the staged and streamed paths query an event on every progress pass until its copy is
 * done, on the thread that also moves the wire. Here recording enqueues
 * cuStreamWriteValue64(word, ticket) after the copy (its default barrier orders it after the
 * copy's writes), and a query reads the word: no CUDA call. One query in 64 that finds the
 * word short asks the stream instead (cudaStreamQuery: an idle stream means the write is
 * done; an error is reported, not waited for). The write costs more to issue than an event
 * record (a staged 8-byte allreduce took 18-20 us with it against 16), and a small copy is
 * done by its first query anyway: so only a record that follows a copy of at least
 * DFC_GPU_COPY_FLAGS bytes (256 KiB; -1: none) writes a word, the others record the CUDA
 * event that every event also has.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/dfc_cuda.h"
#include "util/dfc_util.h"

static long copy_flags_min;
static void read_copy_flags(void)
{
    copy_flags_min = dfc_env_long("DFC_GPU_COPY_FLAGS", 262144,
                                  "staged copies of at least this many bytes report completion "
                                  "through a word of mapped pinned memory, smaller ones through "
                                  "a CUDA event (-1: all through events)");
}

long dfc_gpu_copy_flags_min(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_copy_flags);
    return copy_flags_min;
}

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
    X(cudaStreamQuery, cudaError_t, (cudaStream_t))                           \
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

/* Optional: cuStreamWriteValue64 (the driver's; the tests' stand-in runtime has its own). */
typedef int write_value_fn(cudaStream_t, unsigned long long, unsigned long long, unsigned);
static write_value_fn *write_value;
static int use_flags;             /* 0 after a write failed, or without the call */
static __thread size_t last_copy; /* bytes of this thread's last copy issued */

static void resolve_write_value(void *lib)
{
    const char *names[] = {"cuStreamWriteValue64_v2", "cuStreamWriteValue64"};
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    for (int i = 0; i < 2 && !write_value; i++) {
        write_value = (write_value_fn *)dlsym(lib, names[i]);
        if (!write_value && drv) write_value = (write_value_fn *)dlsym(drv, names[i]);
    }
    use_flags = write_value && dfc_gpu_copy_flags_min() >= 0; /* sets copy_flags_min */
}

static void resolve(void)
{
    void *lib = dfc_gpu_cudart_open();
    if (!lib) return;
    copy2d = (copy2d_fn *)dlsym(lib, "cudaMemcpy2DAsync");
    resolve_write_value(lib);
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

/* An event: CUDA's, and a flag word (NULL without flags). */
typedef struct stage_event {
    cudaEvent_t ev;
    volatile uint64_t *word; /* mapped pinned memory, written by the stream */
    uint64_t ticket;         /* what the last record's write puts there */
    cudaStream_t stream;     /* of the last record */
    unsigned short_queries;  /* queries that found the word short since that record */
    int flagged;             /* the last record wrote the word (else: ev was recorded) */
} stage_event_t;

/* Flag words: pinned pages carved into words, a free list of those given back; the pages are
 * freed when no event holds a word (the pool's finalize destroys them all). Word 0 of a page
 * links the pages. The host address is the device's (unified addressing), so no
 * cudaHostGetDevicePointer is asked. */
#define WORDS_PER_PAGE (4096 / sizeof(uint64_t))
static pthread_mutex_t words_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *word_free, *page_next, *page_end, *pages;
static long words_out;

static volatile uint64_t *word_get(void)
{
    pthread_mutex_lock(&words_lock);
    uint64_t *w = word_free;
    if (w) word_free = (uint64_t *)(uintptr_t)*w;
    else if (page_next == page_end) {
        void *p = NULL;
        if (fn.cudaHostAlloc(&p, 4096, cudaHostAllocPortable | cudaHostAllocMapped) ==
            cudaSuccess) {
            page_next = p;
            page_end = page_next + WORDS_PER_PAGE;
            *page_next++ = (uint64_t)(uintptr_t)pages;
            pages = p;
        } else fn.cudaGetLastError();
    }
    if (!w && page_next != page_end) w = page_next++;
    words_out += w != NULL;
    pthread_mutex_unlock(&words_lock);
    if (w) *w = 0;
    return w;
}

static void word_put(volatile uint64_t *w)
{
    pthread_mutex_lock(&words_lock);
    *w = (uint64_t)(uintptr_t)word_free;
    word_free = (uint64_t *)(uintptr_t)w;
    if (--words_out == 0) { /* every word is back: the pages go */
        while (pages) {
            uint64_t *next = (uint64_t *)(uintptr_t)*pages;
            fn.cudaFreeHost(pages);
            pages = next;
        }
        word_free = page_next = page_end = NULL;
    }
    pthread_mutex_unlock(&words_lock);
}

int dfc_gpu_event_create(void **out)
{
    int rc = ready(__func__);
    if (rc) return rc;
    stage_event_t *e = calloc(1, sizeof *e);
    if (!e) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a copy event");
    rc = check(__func__, "cudaEventCreateWithFlags",
               fn.cudaEventCreateWithFlags(&e->ev, cudaEventDisableTiming));
    if (rc) {
        free(e);
        return rc;
    }
    if (use_flags) e->word = word_get(); /* none left: this event uses CUDA's */
    *out = e;
    return DFC_SUCCESS;
}

void dfc_gpu_event_destroy(void *p)
{
    stage_event_t *e = p;
    if (!e || !fn_ok) return;
    fn.cudaEventDestroy(e->ev);
    if (e->flagged && *e->word < e->ticket) /* its write must not land in the next owner's */
        fn.cudaStreamSynchronize(e->stream);
    if (e->word) word_put(e->word);
    free(e);
}

int dfc_gpu_copy_async(void *dst, const void *src, size_t bytes, void *stream)
{
    last_copy = bytes;
    return check(__func__, "cudaMemcpyAsync",
                 fn.cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream));
}

int dfc_gpu_copy2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, void *stream)
{
    int rc = DFC_SUCCESS;
    if (copy2d)
        rc = check(__func__, "cudaMemcpy2DAsync",
                   copy2d(dst, dpitch, src, spitch, width, height, cudaMemcpyDefault,
                          (cudaStream_t)stream));
    else /* row by row */
        for (size_t k = 0; k < height && !rc; k++)
            rc = dfc_gpu_copy_async((char *)dst + k * dpitch, (const char *)src + k * spitch, width,
                                    stream);
    last_copy = width * height; /* what the next record follows: all the rows */
    return rc;
}

int dfc_gpu_event_record(void *p, void *stream)
{
    stage_event_t *e = p;
    e->stream = (cudaStream_t)stream;
    e->short_queries = 0;
    e->flagged = 0;
    if (e->word && last_copy >= (size_t)copy_flags_min &&
        __atomic_load_n(&use_flags, __ATOMIC_RELAXED)) {
        if (write_value(e->stream, (unsigned long long)(uintptr_t)e->word, e->ticket + 1, 0) == 0) {
            e->ticket++;
            e->flagged = 1;
            return DFC_SUCCESS;
        }
        __atomic_store_n(&use_flags, 0, __ATOMIC_RELAXED); /* events from now on */
        DFC_LOG(DFC_LOG_INFO, "gpu", "cuStreamWriteValue64 failed: copies report by events");
    }
    return check(__func__, "cudaEventRecord", fn.cudaEventRecord(e->ev, e->stream));
}

/* A flagged event: 1 when its word has the ticket or its stream is idle, 0 when not yet,
 * <0 (an error code) when the stream failed. Asks the stream only when ask is set. */
static int flag_done(stage_event_t *e, int ask)
{
    if (__atomic_load_n(e->word, __ATOMIC_ACQUIRE) >= e->ticket) return 1;
    if (!ask) return 0;
    cudaError_t q = fn.cudaStreamQuery(e->stream);
    if (q == cudaErrorNotReady) return 0;
    int rc = check("dfc_gpu_event_query", "cudaStreamQuery", q);
    return rc ? -rc : 1;
}

int dfc_gpu_event_sync(void *p)
{
    stage_event_t *e = p;
    if (!e->flagged) return check(__func__, "cudaEventSynchronize", fn.cudaEventSynchronize(e->ev));
    for (unsigned spins = 1;; spins++) {
        int k = flag_done(e, spins % 1024 == 0);
        if (k) return k < 0 ? -k : DFC_SUCCESS;
    }
}

int dfc_gpu_event_query(void *p, int *done)
{
    stage_event_t *e = p;
    if (e->flagged) {
        int k = flag_done(e, ++e->short_queries % 64 == 0);
        *done = k != 0;
        return k < 0 ? -k : DFC_SUCCESS;
    }
    cudaError_t q = fn.cudaEventQuery(e->ev);
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
