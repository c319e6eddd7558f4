/*
 * cuda.c - run-time loading of the CUDA runtime (libcudart) and the few calls DFC needs:
 * the memory type of a pointer, and copies.
 *
 * Loading is lazy and silent: a machine without CUDA simply has no device pointers. The
 * header is used for types only; every function comes from dlsym, so libdfc does not link
 * against CUDA. DFC_CUDA_LIBRARY names another library file to load.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "gpu/dfc_gpu.h"
#include "util/dfc_util.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>

static void *cudart;
static int ndevices;
static cudaError_t (*p_cudaPointerGetAttributes)(struct cudaPointerAttributes *, const void *);
static cudaError_t (*p_cudaMemcpy)(void *, const void *, size_t, enum cudaMemcpyKind);
static cudaError_t (*p_cudaGetDeviceCount)(int *);
static cudaError_t (*p_cudaGetLastError)(void);
static const char *(*p_cudaGetErrorString)(cudaError_t);

void dfc_gpu_init(void)
{
    const char *names[] = {dfc_env_str("DFC_CUDA_LIBRARY", "libcudart.so.13",
                                       "CUDA runtime library loaded at run time for device buffers"),
                           "libcudart.so.13", "libcudart.so.12", "libcudart.so", NULL};
    for (int i = 0; names[i] && !cudart; i++) cudart = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!cudart) return;
    p_cudaPointerGetAttributes = (cudaError_t(*)(struct cudaPointerAttributes *, const void *))dlsym(cudart, "cudaPointerGetAttributes");
    p_cudaMemcpy = (cudaError_t(*)(void *, const void *, size_t, enum cudaMemcpyKind))dlsym(cudart, "cudaMemcpy");
    p_cudaGetDeviceCount = (cudaError_t(*)(int *))dlsym(cudart, "cudaGetDeviceCount");
    p_cudaGetLastError = (cudaError_t(*)(void))dlsym(cudart, "cudaGetLastError");
    p_cudaGetErrorString = (const char *(*)(cudaError_t))dlsym(cudart, "cudaGetErrorString");
    if (!p_cudaPointerGetAttributes || !p_cudaMemcpy || !p_cudaGetDeviceCount || !p_cudaGetLastError ||
        !p_cudaGetErrorString || p_cudaGetDeviceCount(&ndevices) != cudaSuccess || ndevices == 0) {
        if (p_cudaGetLastError) p_cudaGetLastError(); /* clear the sticky "no device" error */
        dlclose(cudart);
        cudart = NULL;
        ndevices = 0;
        return;
    }
    DFC_LOG(DFC_LOG_INFO, "gpu", "CUDA runtime loaded, %d device(s)", ndevices);
}

void dfc_gpu_finalize(void)
{
    /* libcudart stays loaded: unloading it under a live CUDA context is unsafe. */
}

int dfc_gpu_available(void) { return cudart != NULL; }

int dfc_gpu_is_device_ptr(const void *ptr)
{
    if (!cudart || !ptr || ptr == (const void *)-1) return 0;
    struct cudaPointerAttributes attr;
    if (p_cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
        p_cudaGetLastError();
        return 0;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

int dfc_gpu_copy(void *dst, const void *src, size_t bytes)
{
    if (!bytes) return DFC_SUCCESS;
    cudaError_t e = p_cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
    if (e == cudaSuccess) return DFC_SUCCESS;
    return DFC_ERR(DFC_ERR_OTHER, "cudaMemcpy of %zu bytes failed: %s", bytes, p_cudaGetErrorString(e));
}

#else /* built without CUDA: no pointer is a device pointer */

void dfc_gpu_init(void) {}
void dfc_gpu_finalize(void) {}
int dfc_gpu_available(void) { return 0; }
int dfc_gpu_is_device_ptr(const void *ptr) { (void)ptr; return 0; }
int dfc_gpu_copy(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
    return DFC_SUCCESS;
}
#endif
