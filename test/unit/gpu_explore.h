/*
 * gpu_explore.h - the chunk-level explorer of test_gpu_logic (gpu_explore.c): simulated GPUs
 * that run real collective schedules through the kernel's decisions in daemon_logic.h.
 */
#ifndef DFC_TEST_GPU_EXPLORE_H
#define DFC_TEST_GPU_EXPLORE_H

/* Runs every explorer case; `scale` multiplies the budgets (1 in make check). Returns the
 * number of failures (each reported on stderr). */
int gpu_explore_all(int scale);

#endif
