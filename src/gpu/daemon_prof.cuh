/*
 * daemon_prof.cuh - the GPU daemon's clock and its DFC_GPU_TRACE instrumentation, kept out
 * of the kernel's reading path (daemon_kernel.cu): trace_point records when a traced
 * collective passes a phase (DFC_GPU_TRACE=1), prof_laps adds up the cycles of each part of
 * channel 0's work (DFC_GPU_TRACE=2). With tracing off each call is one branch on a kernel
 * argument.
 */
#ifndef DFC_GPU_DAEMON_PROF_CUH
#define DFC_GPU_DAEMON_PROF_CUH

#include "gpu/daemon_abi.h"

__device__ static inline uint64_t now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Thread 0: records a phase of a traced collective (DFC_GPU_TRACE), the first time only
 * (admission, by channel 0, clears the marks). A write across PCIe, never a read. */
__device__ static inline void trace_point(const dfc_gpu_kargs_t &a, uint32_t slot, int point)
{
    if (!a.trace) return;
    uint32_t *mark = &a.dev->traced[slot];
    if (point == DFC_GPU_T_ADMIT) *mark = 0;
    else if (atomicOr(mark, 1u << point) & (1u << point)) return;
    a.host->trace[slot][point] = now_ns();
}

/* DFC_GPU_TRACE=2: thread 0 of channel 0 adds up the cycles of each part of its work. A
 * part runs from the last lap (or restart, or the construction) to the next lap; with
 * tracing off every call is one predictable branch. */
struct prof_laps {
    dfc_gpu_dev_t *dev;
    bool on;
    long long t0, pass0;
    uint64_t ns0;
    __device__ prof_laps(const dfc_gpu_kargs_t &a, uint32_t chan)
        : dev(a.dev), on(a.trace > 1 && chan == 0 && threadIdx.x == 0), t0(on ? clock64() : 0),
          pass0(t0), ns0(0)
    {
    }
    __device__ void restart()
    {
        if (on) t0 = clock64();
    }
    /* Ends the current part as `part` (when `counted`) and starts the next. */
    __device__ void lap(int part, bool counted = true)
    {
        if (!on) return;
        long long t = clock64();
        if (counted) {
            dev->prof_cycles[part] += t - t0;
            dev->prof_count[part]++;
        }
        t0 = t;
    }
    /* The main loop's pass: its cycles and nanoseconds (start_pass at its top). */
    __device__ void start_pass()
    {
        if (on) ns0 = now_ns();
    }
    __device__ void end_pass()
    {
        if (!on) return;
        dev->prof_cycles[DFC_GPU_P_LOOP] += clock64() - pass0;
        dev->prof_count[DFC_GPU_P_LOOP]++;
        dev->prof_loop_ns += now_ns() - ns0;
    }
};

#endif /* DFC_GPU_DAEMON_PROF_CUH */
