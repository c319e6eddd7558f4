/*
 * devtest.h - what the device-buffer tests share (after dfctest.h): a check on CUDA calls
 * and a watchdog that fails a test which hangs.
 */
#ifndef DEVTEST_H
#define DEVTEST_H

#include <cuda_runtime_api.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../dfctest.h"

/* A CUDA call that fails ends the test (exit 2) with the call, the rank and CUDA's reason. */
#define CUDA_OK(call)                                                                          \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "[rank %d] %s:%d: %s: %s\n", dfct_rank, __FILE__, __LINE__, #call, \
                    cudaGetErrorString(e_));                                                   \
            exit(2);                                                                           \
        }                                                                                      \
    } while (0)

/* cudaMemcpy from (pageable) host memory to the device, then waits for it: such a copy
 * returns once the bytes are staged, before they land, and DFC's direct device copies
 * (dfc(7)) are not ordered after it, as in CUDA-aware MPI. */
#define DEV_UPLOAD(d, h, n)                                         \
    do {                                                            \
        CUDA_OK(cudaMemcpy((d), (h), (n), cudaMemcpyHostToDevice)); \
        CUDA_OK(cudaDeviceSynchronize());                           \
    } while (0)

/* cudaMemset, then waits for it: DFC's direct device point-to-point copies (dfc(7)) are not
 * ordered after work queued on the program's streams, as in CUDA-aware MPI, so a buffer is
 * made ready before DFC reads or writes it. */
#define DEV_MEMSET(p, v, n)                 \
    do {                                    \
        CUDA_OK(cudaMemset((p), (v), (n))); \
        CUDA_OK(cudaDeviceSynchronize());   \
    } while (0)

static void dev_watchdog_fire(int sig)
{
    (void)sig;
    static const char msg[] = "watchdog: the test hung\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
    _exit(3);
}

/* After `seconds`, the process prints that it hung and exits with status 3. */
static inline void dev_watchdog(unsigned seconds)
{
    signal(SIGALRM, dev_watchdog_fire);
    alarm(seconds);
}

#endif /* DEVTEST_H */
