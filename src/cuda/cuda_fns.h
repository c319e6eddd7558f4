/*
 * cuda_fns.h - the CUDA runtime functions DFC calls, resolved with dlsym by cuda.c (shared
 * by the loader and the GPU daemon). Every member is non-NULL once dfc_gpu_available()
 * returns 1.
 */
#ifndef DFC_CUDA_CUDA_FNS_H
#define DFC_CUDA_CUDA_FNS_H

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>

/* X(name, return type, parameter list) */
#define DFC_CUDA_FUNCTIONS(X)                                                                \
    X(cudaGetDeviceCount, cudaError_t, (int *))                                              \
    X(cudaGetLastError, cudaError_t, (void))                                                 \
    X(cudaGetErrorString, const char *, (cudaError_t))                                       \
    X(cudaPointerGetAttributes, cudaError_t, (struct cudaPointerAttributes *, const void *)) \
    X(cudaMemcpy, cudaError_t, (void *, const void *, size_t, enum cudaMemcpyKind))          \
    X(cudaSetDevice, cudaError_t, (int))                                                     \
    X(cudaDeviceGetPCIBusId, cudaError_t, (char *, int, int))                                \
    X(cudaDeviceGetAttribute, cudaError_t, (int *, enum cudaDeviceAttr, int))                \
    X(cudaMalloc, cudaError_t, (void **, size_t))                                            \
    X(cudaFree, cudaError_t, (void *))                                                       \
    X(cudaMemset, cudaError_t, (void *, int, size_t))                                        \
    X(cudaHostAlloc, cudaError_t, (void **, size_t, unsigned int))                           \
    X(cudaHostGetDevicePointer, cudaError_t, (void **, void *, unsigned int))                \
    X(cudaFreeHost, cudaError_t, (void *))                                                   \
    X(cudaIpcGetMemHandle, cudaError_t, (cudaIpcMemHandle_t *, void *))                      \
    X(cudaIpcOpenMemHandle, cudaError_t, (void **, cudaIpcMemHandle_t, unsigned int))        \
    X(cudaIpcCloseMemHandle, cudaError_t, (void *))                                          \
    X(cudaStreamCreateWithFlags, cudaError_t, (cudaStream_t *, unsigned int))                \
    X(cudaStreamSynchronize, cudaError_t, (cudaStream_t))                                    \
    X(cudaStreamQuery, cudaError_t, (cudaStream_t))                                          \
    X(cudaStreamDestroy, cudaError_t, (cudaStream_t))                                        \
    X(cudaEventCreateWithFlags, cudaError_t, (cudaEvent_t *, unsigned int))                  \
    X(cudaEventRecord, cudaError_t, (cudaEvent_t, cudaStream_t))                             \
    X(cudaEventQuery, cudaError_t, (cudaEvent_t))                                            \
    X(cudaEventDestroy, cudaError_t, (cudaEvent_t))                                          \
    X(cudaMallocAsync, cudaError_t, (void **, size_t, cudaStream_t))                         \
    X(cudaFreeAsync, cudaError_t, (void *, cudaStream_t))                                    \
    X(cudaLibraryLoadData, cudaError_t,                                                      \
      (cudaLibrary_t *, const void *, enum cudaJitOption *, void **, unsigned int,           \
       enum cudaLibraryOption *, void **, unsigned int))                                     \
    X(cudaLibraryGetKernel, cudaError_t, (cudaKernel_t *, cudaLibrary_t, const char *))      \
    X(cudaLaunchKernel, cudaError_t, (const void *, dim3, dim3, void **, size_t, cudaStream_t))

typedef struct dfc_cuda_fns {
#define DFC_CUDA_MEMBER(name, ret, params) ret(*name) params;
    DFC_CUDA_FUNCTIONS(DFC_CUDA_MEMBER)
#undef DFC_CUDA_MEMBER
} dfc_cuda_fns_t;

extern dfc_cuda_fns_t dfc_cuda;

/* Records "what: <CUDA error string>" and returns DFC_ERR_OTHER's code. */
int dfc_cuda_error(const char *what, cudaError_t e);
#endif

#endif /* DFC_CUDA_CUDA_FNS_H */
