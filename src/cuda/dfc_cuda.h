/*
 * dfc_cuda.h - the CUDA loader: the CUDA runtime, loaded at run time so that one build of
 * libdfc runs on machines with and without GPUs, the memory type of a pointer, and copies.
 *
 * The layer right above util, below the transports and comm (which ask whether a buffer is
 * device memory and copy it); the GPU daemon (src/gpu) sits beside coll and uses it too.
 * Depends on util only. The functions keep their dfc_gpu_ names from before the split.
 */
#ifndef DFC_CUDA_H
#define DFC_CUDA_H

#include <stddef.h>

/* Loads libcudart if present (never fails: without it no pointer is a device pointer). */
void dfc_gpu_init(void);
/* dlopen of DFC_CUDA_LIBRARY, else libcudart.so.13, .12, or unversioned; NULL if none loads.
 * Shared with dfc_info, which loads the runtime itself (with or without HAVE_CUDA). */
void *dfc_gpu_cudart_open(void);
void dfc_gpu_finalize(void);
/* 1 when CUDA was loaded and at least one device is visible. */
int dfc_gpu_available(void);
int dfc_gpu_device_count(void);
/* 1 if ptr is CUDA device (or managed) memory; 0 for host memory or without CUDA. */
int dfc_gpu_is_device_ptr(const void *ptr);
/* The device ordinal holding ptr, or -1 for host memory. */
int dfc_gpu_ptr_device(const void *ptr);
/* cudaMemcpy with cudaMemcpyDefault; returns DFC_SUCCESS or an error code with a message. */
int dfc_gpu_copy(void *dst, const void *src, size_t bytes);

/* ---- Staging copies (stage_copy.c, used by src/comm/stage.c) ------------------------------
 * Pinned host memory, streams and events of DFC's own, and asynchronous copies (any
 * direction, cudaMemcpyDefault). Streams and events are opaque pointers (cudaStream_t,
 * cudaEvent_t). Each returns DFC_SUCCESS or DFC_ERR_OTHER with CUDA's reason recorded. */
int dfc_gpu_host_alloc(size_t bytes, void **out);
void dfc_gpu_host_free(void *p);
int dfc_gpu_stream_create(void **out); /* ordered after the legacy default stream */
void dfc_gpu_stream_destroy(void *s);
int dfc_gpu_event_create(void **out); /* without timing */
void dfc_gpu_event_destroy(void *e);
int dfc_gpu_copy_async(void *dst, const void *src, size_t bytes, void *stream);
int dfc_gpu_event_record(void *e, void *stream);
int dfc_gpu_event_sync(void *e);  /* waits until the copies before the record are done */
int dfc_gpu_stream_sync(void *s); /* waits until every copy on s is done */

#endif /* DFC_CUDA_H */
