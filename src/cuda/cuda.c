/*
 * cuda.c - run-time loading of the CUDA runtime (libcudart): the functions of cuda_fns.h,
 * the memory type of a pointer, and copies.
 *
 * Loading is lazy and silent: a machine without CUDA simply has no device pointers. The
 * header is used for types only; every function comes from dlsym, so libdfc does not link
 * against CUDA. DFC_CUDA_LIBRARY names another library file to load.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "cuda/dfc_cuda.h"
#include "util/dfc_util.h"

void *dfc_gpu_cudart_open(void)
{
    void *lib = NULL;
    const char *names[] = {
        dfc_env_str("DFC_CUDA_LIBRARY", "libcudart.so.13",
                    "CUDA runtime library loaded at run time for device buffers"),
        "libcudart.so.13", "libcudart.so.12", "libcudart.so", NULL};
    for (int i = 0; names[i] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    return lib;
}

#ifdef HAVE_CUDA
#include "cuda/cuda_fns.h"

dfc_cuda_fns_t dfc_cuda;
static void *cudart;
static int ndevices;
static cudaError_t (*get_device)(int *); /* optional: not every stand-in of the tests has it */

int dfc_cuda_error(const char *what, cudaError_t e)
{
    dfc_cuda.cudaGetLastError(); /* clear it: the next call must not report it again */
    return DFC_ERR(DFC_ERR_OTHER, "%s: %s", what, dfc_cuda.cudaGetErrorString(e));
}

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int load_tried;

static void load_cudart(void)
{
    if (!(cudart = dfc_gpu_cudart_open())) return;
    int missing = 0;
#define DFC_CUDA_RESOLVE(name, ret, params)              \
    dfc_cuda.name = (ret(*) params)dlsym(cudart, #name); \
    missing |= !dfc_cuda.name;
    DFC_CUDA_FUNCTIONS(DFC_CUDA_RESOLVE)
#undef DFC_CUDA_RESOLVE
    if (missing || dfc_cuda.cudaGetDeviceCount(&ndevices) != cudaSuccess || ndevices == 0) {
        if (dfc_cuda.cudaGetLastError)
            dfc_cuda.cudaGetLastError(); /* the sticky "no device" error */
        dlclose(cudart);
        cudart = NULL;
        ndevices = 0;
        memset(&dfc_cuda, 0, sizeof dfc_cuda);
        return;
    }
    get_device = (cudaError_t(*)(int *))dlsym(cudart, "cudaGetDevice");
    DFC_LOG(DFC_LOG_INFO, "gpu", "CUDA runtime loaded, %d device(s)", ndevices);
}

/* Once per process, from DFC_Init (DFC_GPU_INIT) or at the first device buffer (memtype.c),
 * whichever comes first; a thread that comes second waits for the first. */
void dfc_gpu_init(void)
{
    if (__atomic_load_n(&load_tried, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&load_lock);
    if (!load_tried) {
        load_cudart();
        __atomic_store_n(&load_tried, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&load_lock);
}

void dfc_gpu_finalize(void)
{
    /* libcudart stays loaded: unloading it under a live CUDA context is unsafe. */
}

int dfc_gpu_available(void) { return cudart != NULL; }
int dfc_gpu_device_count(void) { return ndevices; }

int dfc_gpu_current_device(void)
{
    int dev = -1;
    return cudart && get_device && get_device(&dev) == cudaSuccess ? dev : -1;
}

int dfc_gpu_cudart_ptr_device(const void *ptr)
{
    if (!cudart || !ptr || ptr == (const void *)-1) return -1;
    struct cudaPointerAttributes attr;
    if (dfc_cuda.cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
        dfc_cuda.cudaGetLastError();
        return -1;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ? attr.device
                                                                                   : -1;
}

int dfc_gpu_copy(void *dst, const void *src, size_t bytes)
{
    if (!bytes) return DFC_SUCCESS;
    dfc_gpu_init(); /* a device buffer was seen, so this has run already; cheap if so */
    if (!cudart)
        return DFC_ERR(DFC_ERR_OTHER, "no CUDA runtime could be loaded to copy %zu bytes", bytes);
    cudaError_t e = dfc_cuda.cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
    if (e == cudaSuccess) return DFC_SUCCESS;
    return DFC_ERR(DFC_ERR_OTHER, "cudaMemcpy of %zu bytes failed: %s", bytes,
                   dfc_cuda.cudaGetErrorString(e));
}

#else /* built without CUDA: no pointer is a device pointer */

void dfc_gpu_init(void) {}
void dfc_gpu_finalize(void) {}
int dfc_gpu_available(void) { return 0; }
int dfc_gpu_device_count(void) { return 0; }
int dfc_gpu_current_device(void) { return -1; }
int dfc_gpu_cudart_ptr_device(const void *ptr)
{
    (void)ptr;
    return -1;
}
int dfc_gpu_copy(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
    return DFC_SUCCESS;
}
#endif
