/*
 * kcopy.c - small device copies by a resident kernel instead of the copy engine (the ring and
 * its protocol: kcopy_abi.h). Device point-to-point on one node uses it for the direct copy
 * out of a peer's buffer (cuda/ipc.c) of up to DFC_GPU_KCOPY_MAX bytes: the copy engine's
 * cudaMemcpyAsync, event record and event queries cost 11-15 us under MPS whatever the size,
 * the kernel's copy a read of the ring across PCIe and a completion write. Neither is ordered
 * after the receiving program's streams (the copy engine's stream is non-blocking too).
 *
 * The kernel runs on the device of the first destination copied into; a destination on
 * another device takes the copy engine. Launches, publications and relaunches hold kc.lock.
 * The protocol half (tickets, exits, relaunches) runs without CUDA as well, with the launch
 * replaced by a test's stand-in (dfc_gpu_kcopy_set_launcher), so CI exercises it
 * (test/unit/test_kcopy.c).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/dfc_cuda.h"
#include "cuda/kcopy_abi.h"
#include "util/dfc_util.h"

static struct {
    pthread_mutex_t lock;
    int state;  /* 0: not set up, 1: ready, -1: unavailable (copies take the copy engine) */
    int device; /* the kernel's device */
    dfc_kcopy_ring_t *ring;
    uint64_t posted;                /* the last ticket handed out */
    uint32_t epoch;                 /* of the last launch */
    int running;                    /* launched and not seen to exit */
    size_t max;                     /* DFC_GPU_KCOPY_MAX */
    int early_fin;                  /* DFC_GPU_KCOPY_EARLY_FIN: tickets report `read` */
    uint64_t linger;                /* ns */
    dfc_gpu_kcopy_launch_fn launch; /* the CUDA launch, or a test's stand-in */
    unsigned long launches;
} kc = {.lock = PTHREAD_MUTEX_INITIALIZER, .device = -1};

void dfc_gpu_kcopy_params(void)
{
    long m = dfc_env_long("DFC_GPU_KCOPY_MAX", 65536,
                          "direct device point-to-point copies up to this many bytes are made "
                          "by a resident kernel instead of the copy engine (0: never)");
    kc.max = m < 0 ? 0 : m > DFC_KCOPY_MAX_BYTES ? DFC_KCOPY_MAX_BYTES : (size_t)m;
    long us = dfc_env_long("DFC_GPU_KCOPY_LINGER_US", 200,
                           "the small-copy kernel exits after this long without a copy");
    kc.linger = us < 0 ? 0 : (uint64_t)us * 1000;
    kc.early_fin = dfc_env_long("DFC_GPU_KCOPY_EARLY_FIN", 0,
                                "1: the small-copy kernel reports a copy's source read before "
                                "its bytes are visible, and the sender completes then") != 0;
}

void dfc_gpu_kcopy_set_launcher(dfc_gpu_kcopy_launch_fn fn)
{
    pthread_mutex_lock(&kc.lock);
    kc.launch = fn;
    pthread_mutex_unlock(&kc.lock);
}

static uint64_t ring_done(void) { return __atomic_load_n(&kc.ring->done, __ATOMIC_ACQUIRE); }
static uint32_t ring_exited(void) { return __atomic_load_n(&kc.ring->exited, __ATOMIC_ACQUIRE); }

/* kc.lock held: launches the kernel again when it has exited with tickets left or none was
 * launched yet. Returns DFC_SUCCESS or the launch's error (then kc.state is -1). */
static int ensure_running(void)
{
    if (kc.running && ring_exited() == kc.epoch) kc.running = 0;
    if (kc.running) return DFC_SUCCESS;
    int rc = kc.launch(kc.ring, kc.linger, kc.epoch + 1);
    if (rc) {
        kc.state = -1;
        return rc;
    }
    kc.epoch++;
    kc.running = 1;
    kc.launches++;
    return DFC_SUCCESS;
}

static int cuda_setup(int device); /* below: the ring in mapped memory and the CUDA launch */
static dfc_gpu_kcopy_launch_fn cuda_launch_fn(void);

/* kc.lock held: 1 when copies for `device` can go to the kernel. */
static int usable(int device)
{
    if (device < 0) return 0; /* host memory on both sides: not ours */
    if (kc.state == 0) {
        dfc_gpu_kcopy_params();
        if (!kc.max) kc.state = -1;
        else if (kc.launch) { /* a test's stand-in: host memory plays mapped memory */
            kc.ring = calloc(1, sizeof *kc.ring);
            kc.state = kc.ring ? 1 : -1;
            kc.device = device;
        } else kc.state = cuda_setup(device) == DFC_SUCCESS ? 1 : -1;
    }
    return kc.state == 1 && device == kc.device;
}

/* kc.lock held: a ticket for the copy; 0 when the ring is full or the kernel cannot run (the
 * caller takes the copy engine). */
static uint64_t post(void *dst, const void *src, size_t bytes, int dst_local)
{
    if (kc.posted - ring_done() >= DFC_KCOPY_ENTRIES) return 0;
    if (DFC_KCOPY_FIELD((uintptr_t)dst) != (uintptr_t)dst ||
        DFC_KCOPY_FIELD((uintptr_t)src) != (uintptr_t)src)
        return 0; /* beyond the tags' 48 bits: never on today's machines */
    /* Before the fields: the tags publish the entry, and a failed launch must leave nothing
     * published (the ticket is handed out again to a copy the engine then makes). */
    if (ensure_running()) return 0;
    uint64_t t = kc.posted + 1;
    dfc_kcopy_entry_t *e = &kc.ring->e[(t - 1) % DFC_KCOPY_ENTRIES];
    /* one 8-byte store per field: the kernel may read them while they are written (kcopy_abi.h) */
    __atomic_store_n(&e->dst, DFC_KCOPY_TAGGED((uintptr_t)dst, t), __ATOMIC_RELEASE);
    __atomic_store_n(&e->src, DFC_KCOPY_TAGGED((uintptr_t)src, t), __ATOMIC_RELEASE);
    uint64_t size = bytes | (dst_local ? DFC_KCOPY_LOCAL_DST : 0) |
                    (kc.early_fin ? DFC_KCOPY_REPORT_READ : 0);
    __atomic_store_n(&e->bytes, DFC_KCOPY_TAGGED(size, t), __ATOMIC_RELEASE);
    __atomic_store_n(&e->seq, t, __ATOMIC_RELEASE);
    kc.posted = t;
    return t;
}

/* Without the lock: 1 when no copy of `bytes` can go to the kernel (the common large copy
 * and the disabled kernel skip the lock). State and max are set once, max first. */
static int surely_not(size_t bytes)
{
    int st = __atomic_load_n(&kc.state, __ATOMIC_ACQUIRE);
    return bytes > DFC_KCOPY_MAX_BYTES || st < 0 || (st > 0 && bytes > kc.max);
}

int dfc_gpu_kcopy_start(int dst_dev, int src_dev, int dst_local, void *dst, const void *src,
                        size_t bytes, uint64_t *ticket)
{
    *ticket = 0;
    if (surely_not(bytes)) return DFC_ERR_UNSUPPORTED_OPERATION;
    pthread_mutex_lock(&kc.lock);
    if (usable(dst_dev) && src_dev >= 0 && bytes <= kc.max)
        *ticket = post(dst, src, bytes, dst_local);
    pthread_mutex_unlock(&kc.lock);
    return *ticket ? DFC_SUCCESS : DFC_ERR_UNSUPPORTED_OPERATION;
}

int dfc_gpu_kcopy_test(uint64_t ticket)
{
    if (ring_done() >= ticket) return 1;
    int alive = 1;
    pthread_mutex_lock(&kc.lock);
    if (ring_exited() == kc.epoch && ring_done() < ticket) {
        kc.running = 0;
        alive = ensure_running() == DFC_SUCCESS;
    }
    pthread_mutex_unlock(&kc.lock);
    return ring_done() >= ticket ? 1 : alive ? 0 : -1;
}

int dfc_gpu_kcopy_read(uint64_t ticket)
{
    return kc.early_fin && __atomic_load_n(&kc.ring->read, __ATOMIC_ACQUIRE) >= ticket;
}

unsigned long dfc_gpu_kcopy_launches(void) { return kc.launches; }

static void cuda_teardown(void);

void dfc_gpu_kcopy_finalize(void)
{
    pthread_mutex_lock(&kc.lock);
    if (kc.ring) {        /* set up, and usable or not (a launch that failed leaves it -1) */
        if (kc.running) { /* ask it to leave, and give it a second */
            __atomic_store_n(&kc.ring->stop, 1, __ATOMIC_RELEASE);
            uint64_t until = dfc_time_ns() + 1000000000ull;
            while (ring_exited() != kc.epoch && dfc_time_ns() < until) {}
        }
        if (kc.launch == cuda_launch_fn()) cuda_teardown();
        else free(kc.ring);
    }
    if (kc.launch == cuda_launch_fn()) kc.launch = NULL;
    kc.ring = NULL;
    kc.state = kc.running = 0;
    kc.posted = kc.epoch = 0;
    kc.device = -1;
    pthread_mutex_unlock(&kc.lock);
}

#ifdef HAVE_CUDA
#include "cuda/cuda_fns.h"

extern const unsigned char dfc_kcopy_fatbin[]; /* kcopy_fatbin.c, made by src/gpu/embed.sh */

static struct {
    cudaStream_t stream;
    const void *kernel;
    void *ring_dev; /* the ring as the kernel addresses it */
} cu;

/* The launch of kc.launch: one block on DFC's own non-blocking stream, on kc.device. */
static int cuda_launch(dfc_kcopy_ring_t *ring, uint64_t linger_ns, uint32_t epoch)
{
    (void)ring;
    int cur = dfc_gpu_current_device();
    if (cur >= 0 && cur != kc.device) dfc_cuda.cudaSetDevice(kc.device);
    void *args[] = {&cu.ring_dev, &linger_ns, &epoch};
    cudaError_t e = dfc_cuda.cudaLaunchKernel(cu.kernel, (dim3){1, 1, 1},
                                              (dim3){DFC_KCOPY_THREADS, 1, 1}, args, 0, cu.stream);
    if (cur >= 0 && cur != kc.device) dfc_cuda.cudaSetDevice(cur);
    if (e == cudaSuccess) return DFC_SUCCESS;
    DFC_LOG(DFC_LOG_INFO, "gpu", "small-copy kernel not launched (%s): copy engine from now on",
            dfc_cuda.cudaGetErrorString(e));
    dfc_cuda.cudaGetLastError();
    return DFC_ERR_OTHER;
}

static dfc_gpu_kcopy_launch_fn cuda_launch_fn(void) { return cuda_launch; }

/* The ring in pinned memory the kernel maps, the kernel from the embedded fat binary, a
 * stream; on kc.device. Any failure leaves the copy engine to do every copy. */
static int cuda_setup(int device)
{
    if (device < 0 || !dfc_gpu_available()) return DFC_ERR_UNSUPPORTED_OPERATION;
    int cur = dfc_gpu_current_device();
    if (cur < 0) return DFC_ERR_UNSUPPORTED_OPERATION;
    if (cur != device) dfc_cuda.cudaSetDevice(device);
    void *p = NULL;
    cudaLibrary_t klib;
    cudaKernel_t k;
    cudaError_t e = dfc_cuda.cudaLibraryLoadData(&klib, dfc_kcopy_fatbin, NULL, NULL, 0, NULL, NULL,
                                                 0);
    if (!e) e = dfc_cuda.cudaLibraryGetKernel(&k, klib, "dfc_kcopy_kernel");
    if (!e)
        e = dfc_cuda.cudaHostAlloc(&p, sizeof *kc.ring,
                                   cudaHostAllocMapped | cudaHostAllocPortable);
    if (!e) memset(p, 0, sizeof *kc.ring);
    if (!e) e = dfc_cuda.cudaHostGetDevicePointer(&cu.ring_dev, p, 0);
    if (!e) e = dfc_cuda.cudaStreamCreateWithFlags(&cu.stream, cudaStreamNonBlocking);
    if (cur != device) dfc_cuda.cudaSetDevice(cur);
    if (e) {
        DFC_LOG(DFC_LOG_INFO, "gpu", "no small-copy kernel (%s): copy engine for every copy",
                dfc_cuda.cudaGetErrorString(e));
        dfc_cuda.cudaGetLastError();
        if (p) dfc_cuda.cudaFreeHost(p);
        return DFC_ERR_UNSUPPORTED_OPERATION;
    }
    cu.kernel = (const void *)k;
    kc.ring = p;
    kc.device = device;
    kc.launch = cuda_launch;
    return DFC_SUCCESS;
}

static void cuda_teardown(void)
{
    if (cu.stream) dfc_cuda.cudaStreamSynchronize(cu.stream); /* the kernel has gone */
    if (cu.stream) dfc_cuda.cudaStreamDestroy(cu.stream);
    dfc_cuda.cudaFreeHost(kc.ring);
    memset(&cu, 0, sizeof cu);
}
#else
static dfc_gpu_kcopy_launch_fn cuda_launch_fn(void) { return NULL; }
static int cuda_setup(int device)
{
    (void)device;
    return DFC_ERR_UNSUPPORTED_OPERATION;
}
static void cuda_teardown(void) {}
#endif
