/*
 * devstuck - the host side of the GPU daemon without a GPU (issue 14), in CI: run against the
 * CUDA stand-in with FAKE_CUDART_DAEMON=1 (test/unit/fake_cudart_ipc.c), whose daemon kernel
 * leaves at once, completes nothing until told to (fake_cudart_daemon_finish: then it marks
 * what it holds done, computing nothing) and confirms the cancels it is sent.
 *
 *   -case=stuck  (default; run with DFC_HANG_REPORT_SECONDS=1) the relaunch rule. Every rank
 *                starts a device DFC_Iallreduce, which the daemon takes, and waits for it.
 *                The kernel keeps leaving as one whose collectives are all stuck does, and
 *                the host relaunches it every DFC_GPU_RELAUNCH_US; a relaunch is not progress
 *                (daemon.c, progress_daemon), or the waiter's idle time would never reach the
 *                report's. So within 4 s each rank's stderr must hold the report's header and
 *                its line for the allreduce in the GPU daemon, and the kernel must have been
 *                launched again. A thread looks every 50 ms until both are there, 4 s at
 *                most, then lets the stand-in finish the allreduce, so that the wait returns
 *                and the test finalizes.
 *   -case=kill   (3 or more ranks, recovery=1) the last rank kills itself while every rank's
 *                device DFC_Iallreduce on WORLD waits in the daemon: the survivors' Wait
 *                fails with DFC_ERR_PROC_FAILED naming it; the daemon cancels the abandoned
 *                allreduce, and once the kernel confirmed that it holds nothing more
 *                (dfc_gpu_busy 0: the descriptor came back); a device allreduce of the
 *                survivors then runs in it.
 *   -case=launch (with DFC_GPU_FAULT_LAUNCH) a failed launch. -expect=ok (FAULT_LAUNCH=1: the
 *                first launch fails): a device allreduce still completes, the launch being
 *                retried. -expect=fail (FAULT_LAUNCH=-1: every launch fails): it fails with
 *                DFC_ERR_OTHER saying the kernel could not be launched, so does the next
 *                device call at once, and a host-buffer allreduce still works.
 *   -case=staged (simulated nodes, the default DFC_GPU_PROXY_STAGE_MAX of 512 KiB) the rule
 *                that stages small collectives across nodes: an allreduce of 16 floats is
 *                staged (right element by element, no kernel launch: the stand-in's kernel
 *                computes nothing), one of 512 KiB + 4 bytes goes to the daemon (launched).
 * The other cases mean the daemon across nodes too: they set DFC_GPU_PROXY_STAGE_MAX=0
 * unless the line sets it. Fails when the relaunches count as progress (no report), when a
 * call is staged (no launches), when an abandoned collective is never reaped, or when a
 * launch failure is lost.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../stderrcap.h"
#include "devtest.h"
#include "gpu/dfc_gpu.h"
static int rank, size;
#define FAIL_VICTIM (size - 1)
#include "../faults/failcheck.h"

long fake_cudart_launches(void); /* the stand-in's count of kernel launches */
void fake_cudart_daemon_finish(void);

static int saved = -1;
static FILE *captured;
static long launches_before;

/* Whether the report's line for the allreduce is out and the kernel was relaunched twice. */
static int seen_enough(void)
{
    if (fake_cudart_launches() - launches_before < 2) return 0;
    if (saved < 0) return 1;
    char *text = peek_stderr(captured);
    int seen = has_line(text, "[dfc hang report]", "collective allreduce", "GPU daemon");
    free(text);
    return seen;
}

/* Once the report and the relaunches are there, and at the latest after 4 s of the stuck
 * wait: the checks, then the stand-in's kernel may end the wait. */
static void *check_after_wait(void *arg)
{
    (void)arg;
    for (int waited_ms = 0; waited_ms < 4000 && !seen_enough(); waited_ms += 50) usleep(50000);
    if (saved >= 0) {
        char *text = restore_stderr(saved, captured), me[24];
        snprintf(me, sizeof me, "rank %d:", rank);
        DFCT_CHECK(has_line(text, "[dfc hang report]", "DFC_HANG_REPORT_SECONDS", me),
                   "no hang report after 4 s of relaunches without progress; stderr was:\n%s",
                   text);
        DFCT_CHECK(has_line(text, "[dfc hang report]", "collective allreduce", "GPU daemon"),
                   "no report line for the allreduce in the daemon; stderr was:\n%s", text);
        free(text);
    }
    long relaunched = fake_cudart_launches() - launches_before;
    DFCT_CHECK(relaunched >= 2, "the kernel was relaunched %ld times", relaunched);
    fake_cudart_daemon_finish();
    return NULL;
}

static void case_stuck(float *in, float *out, int n)
{
    /* Captured from before the barrier: with 10 ranks on the 2-core VM, the last rank may
     * reach it more than the report's second after the first (2 of 4 runs of stop 36's tree),
     * and that report is no failure (the checks look for the allreduce's line). */
    saved = capture_stderr(&captured);
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    launches_before = fake_cudart_launches();
    DFC_Request req;
    DFCT_OK(DFC_Iallreduce(in, out, n, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD, &req));
    pthread_t t;
    if (pthread_create(&t, NULL, check_after_wait, NULL)) {
        DFCT_CHECK(0, "cannot start the checking thread");
        return;
    }
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE)); /* ends once the thread has looked */
    pthread_join(t, NULL);
}

/* Ends the process (WORLD has a dead member: dfct_finalize's allreduce on it would fail). */
static void case_kill(float *in, float *out, int n)
{
    int victim = size - 1, go = 1;
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFC_Comm live;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, rank == victim, rank, &live));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFC_Request req;
    DFCT_OK(DFC_Iallreduce(in, out, n, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD, &req));
    kill_victim_once_started(rank, size);
    EXPECT_FAILED(DFC_Wait(&req, DFC_STATUS_IGNORE), "DFC_Wait of the device allreduce");
    double t0 = now();
    while (dfc_gpu_busy() && now() - t0 < 10) /* progress: relaunches, the cancel's reaping */
        DFC_Iprobe(DFC_ANY_SOURCE, DFC_ANY_TAG, live, &go, DFC_STATUS_IGNORE);
    DFCT_CHECK(!dfc_gpu_busy(), "the abandoned allreduce was not reaped in 10 s");
    fake_cudart_daemon_finish();
    long before = fake_cudart_launches();
    DFCT_OK(DFC_Allreduce(in, out, n, DFC_FLOAT, DFC_SUM, live));
    DFCT_CHECK(fake_cudart_launches() > before, "the survivors' allreduce was not in the daemon");
    finish_among_survivors(&live);
}

/* The class of rc is DFC_ERR_OTHER, its message that the kernel could not be launched. */
static void expect_unlaunched(int rc, const char *what)
{
    int cls = -1, len = 0;
    char msg[DFC_MAX_ERROR_STRING] = "";
    DFC_Error_class(rc, &cls);
    DFC_Error_string(rc, msg, &len);
    DFCT_CHECK(cls == DFC_ERR_OTHER && strstr(msg, "could not be launched"),
               "%s: class %d, message \"%s\"", what, cls, msg);
}

static void case_launch(float *in, float *out, int n, int fail)
{
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    if (!fail) fake_cudart_daemon_finish(); /* a launch that is made completes the call */
    int rc = DFC_Allreduce(in, out, n, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD);
    if (!fail) {
        DFCT_CHECK(rc == DFC_SUCCESS && fake_cudart_launches() > 0,
                   "launch: the allreduce after a failed launch: rc %d, %ld launches", rc,
                   fake_cudart_launches());
        return;
    }
    expect_unlaunched(rc, "launch: the allreduce");
    double t0 = now();
    expect_unlaunched(DFC_Allreduce(in, out, n, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD),
                      "launch: the next device allreduce");
    DFCT_CHECK(now() - t0 < 1, "launch: the next device allreduce took %.2f s", now() - t0);
    int one = 1, sum = 0;
    DFCT_OK(DFC_Allreduce(&one, &sum, 1, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    DFCT_CHECK(sum == size, "launch: host allreduce gave %d, want %d", sum, size);
}

/* The allreduce of k floats: staged (no launch, every element summed) or in the daemon. */
static void staged_or_not(int k, int want_staged)
{
    float *in, *out, *h = malloc(k * sizeof(float));
    CUDA_OK(cudaMalloc((void **)&in, k * sizeof(float)));
    CUDA_OK(cudaMalloc((void **)&out, k * sizeof(float)));
    for (int i = 0; i < k; i++) h[i] = (float)(rank + i);
    CUDA_OK(cudaMemcpy(in, h, k * sizeof(float), cudaMemcpyHostToDevice));
    long before = fake_cudart_launches();
    DFCT_OK(DFC_Allreduce(in, out, k, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD));
    long launched = fake_cudart_launches() - before;
    DFCT_CHECK(want_staged ? launched == 0 : launched > 0,
               "staged: an allreduce of %d floats across nodes %s (%ld launches)", k,
               want_staged ? "went to the daemon" : "was staged", launched);
    CUDA_OK(cudaMemcpy(h, out, k * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; want_staged && i < k; i++)
        if (h[i] != (float)(size * (size - 1) / 2 + size * i)) {
            DFCT_CHECK(0, "staged: element %d is %g, want %d", i, h[i],
                       size * (size - 1) / 2 + size * i);
            break;
        }
    CUDA_OK(cudaFree(in));
    CUDA_OK(cudaFree(out));
    free(h);
}

static void case_staged(void)
{
    fake_cudart_daemon_finish(); /* what the daemon takes completes (computing nothing) */
    staged_or_not(16, 1);
    staged_or_not(524288 / 4 + 1, 0);
}

int main(int argc, char **argv)
{
    dev_watchdog(60);
    if (strcmp(dfct_opt_str(argc, argv, "case", "stuck"), "staged")) dev_daemon_at_every_size();
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    int device = -1, n = 1000;
    DFC_Count launches = 0;
    DFCT_OK(DFC_Get_gpu_daemon_info(&device, &launches));
    if (device < 0) { /* nothing to test: say so and stop */
        DFCT_CHECK(0, "the GPU daemon is not running (device %d)", device);
        return dfct_finalize();
    }
    float *in, *out;
    CUDA_OK(cudaMalloc((void **)&in, n * sizeof(float)));
    CUDA_OK(cudaMalloc((void **)&out, n * sizeof(float)));
    const char *which = dfct_opt_str(argc, argv, "case", "stuck");
    if (!strcmp(which, "kill")) case_kill(in, out, n);
    else if (!strcmp(which, "launch"))
        case_launch(in, out, n, !strcmp(dfct_opt_str(argc, argv, "expect", "ok"), "fail"));
    else if (!strcmp(which, "stuck")) case_stuck(in, out, n);
    else if (!strcmp(which, "staged")) case_staged();
    else DFCT_CHECK(0, "unknown -case=%s", which);
    CUDA_OK(cudaFree(in));
    CUDA_OK(cudaFree(out));
    return dfct_finalize();
}
