/*
 * dfc_gpu.h - the CUDA runtime, loaded at run time, so that one build of libdfc runs on
 * machines with and without GPUs.
 *
 * Today the library moves device buffers by staging them through host memory (see
 * src/api/api_stage.c); the preemptible GPU daemon kernel of DESIGN.md 2.1 is not built yet.
 * Depends on util only.
 */
#ifndef DFC_GPU_H
#define DFC_GPU_H

#include <stddef.h>

/* Loads libcudart if present (never fails: without it no pointer is a device pointer). */
void dfc_gpu_init(void);
void dfc_gpu_finalize(void);
/* 1 when CUDA was loaded and at least one device is visible. */
int dfc_gpu_available(void);
/* 1 if ptr is CUDA device (or managed) memory; 0 for host memory or without CUDA. */
int dfc_gpu_is_device_ptr(const void *ptr);
/* cudaMemcpy with cudaMemcpyDefault; returns DFC_SUCCESS or an error code with a message. */
int dfc_gpu_copy(void *dst, const void *src, size_t bytes);

#endif
