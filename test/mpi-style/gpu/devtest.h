/*
 * devtest.h - what the device-buffer tests share (after dfctest.h): a check on CUDA calls
 * and a watchdog that fails a test which hangs and says where.
 */
#ifndef DEVTEST_H
#define DEVTEST_H

#include <cuda_runtime_api.h>
#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
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

/* Where the test is, for the watchdog's message: a test sets it as it goes (a string
 * constant and a counter). */
static const char *volatile dev_phase = "start";
static volatile long dev_phase_i = -1;

/* The watchdog says where the test hung: its phase, every thread's stack by gdb where the
 * machine has it and lets it attach (fork and exec are safe in a signal handler), and the
 * stack of the thread that took the signal. */
static void dev_watchdog_fire(int sig)
{
    (void)sig;
    char msg[160];
    int n = snprintf(msg, sizeof msg, "watchdog: the test hung (rank %d pid %d, phase %s %ld)\n",
                     dfct_rank, (int)getpid(), dev_phase, dev_phase_i);
    if (write(2, msg, (size_t)n) < 0) _exit(3);
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    pid_t g = fork();
    if (g == 0) {
        dup2(2, 1);
        execlp("gdb", "gdb", "-p", pid, "-batch", "-nx", "-ex", "thread apply all bt", (char *)0);
        _exit(127);
    }
    int st = 0;
    if (g > 0) waitpid(g, &st, 0);
    void *bt[64]; /* also when gdb could not attach (ptrace not allowed) */
    backtrace_symbols_fd(bt, backtrace(bt, 64), 2);
    _exit(3);
}

/* A test of the daemon across nodes (the host proxy) at every size: allreduce, reduce and
 * bcast across nodes of at most DFC_GPU_PROXY_STAGE_MAX bytes are staged by default, so the
 * bound is set to 0 unless the line sets it. Before DFC_Init. */
static inline void dev_daemon_at_every_size(void) { setenv("DFC_GPU_PROXY_STAGE_MAX", "0", 0); }

/* After `seconds`, the process prints that it hung and where, and exits with status 3. */
static inline void dev_watchdog(unsigned seconds)
{
    void *bt[1];
    backtrace(bt, 1); /* loads what backtrace needs now, not in the handler */
    signal(SIGALRM, dev_watchdog_fire);
    alarm(seconds);
}

/* The byte at i of a message from rank src in round `seed`: each source and round its own,
 * and not periodic at powers of two (so a chunk copied to the wrong offset shows). */
static inline unsigned char dev_pattern(int src, size_t i, int seed)
{
    return (unsigned char)((src + 3) * 31 + i * 11 + (i >> 9) * 5 + seed * 17);
}

/* Checks the n bytes at buf (device memory when on_dev, else read in place) against
 * dev_pattern(src, i, seed), and that the byte after them is still `poison`. */
static inline void dev_check_bytes(const char *what, int on_dev, const void *buf, size_t n, int src,
                                   int seed, unsigned char poison)
{
    unsigned char *h = on_dev ? malloc(n + 1) : (unsigned char *)buf;
    if (on_dev) CUDA_OK(cudaMemcpy(h, buf, n + 1, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (h[i] != dev_pattern(src, i, seed)) {
            DFCT_CHECK(0, "%s, %zu bytes: byte %zu is %u, want %u", what, n, i, h[i],
                       dev_pattern(src, i, seed));
            break;
        }
    DFCT_CHECK(h[n] == poison, "%s, %zu bytes: the byte past the message was overwritten", what, n);
    if (on_dev) free(h);
}

#endif /* DEVTEST_H */
