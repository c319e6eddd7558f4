/*
 * devstuck - the GPU daemon's relaunch rule without a GPU (issue 14), in CI: run against the
 * CUDA stand-in with FAKE_CUDART_DAEMON=1 (test/unit/fake_cudart_ipc.c), whose daemon kernel
 * leaves at once and never completes anything, and with DFC_HANG_REPORT_SECONDS=1.
 *
 * Every rank starts a device DFC_Iallreduce, which the daemon takes (DFC_Get_gpu_daemon_info
 * names a device), and waits for it. The kernel keeps leaving as a kernel whose collectives
 * are all stuck does, and the host relaunches it every DFC_GPU_RELAUNCH_US; a relaunch is
 * not progress (daemon.c, progress_daemon), or the waiter's idle time would never reach the
 * report's. So within 4 s each rank's stderr must hold the report's header and its line for the
 * allreduce in the GPU daemon, and the kernel must have been launched again. A checking
 * thread looks after 4 s, then lets the stand-in's next launch mark the allreduce done (its
 * output is not computed), so that the wait returns and the test finalizes. Fails when the
 * relaunches count as progress (no report) or the call is staged (no relaunches).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../stderrcap.h"
#include "devtest.h"

long fake_cudart_launches(void); /* the stand-in's count of kernel launches */
void fake_cudart_daemon_finish(void);

static int saved = -1;
static FILE *captured;
static long launches_before;

/* After 4 s of the stuck wait: the checks, then the stand-in's kernel may end the wait. */
static void *check_after_wait(void *arg)
{
    (void)arg;
    sleep(4);
    if (saved >= 0) {
        char *text = restore_stderr(saved, captured), me[24];
        snprintf(me, sizeof me, "rank %d:", dfct_rank);
        DFCT_CHECK(has_line(text, "[dfc hang report]", "DFC_HANG_REPORT_SECONDS", me),
                   "no hang report after 4 s of relaunches without progress; stderr was:\n%s",
                   text);
        DFCT_CHECK(has_line(text, "[dfc hang report]", "collective allreduce", "GPU daemon"),
                   "no report line for the allreduce in the daemon; stderr was:\n%s", text);
        free(text);
    }
    long relaunched = fake_cudart_launches() - launches_before;
    DFCT_CHECK(relaunched >= 2, "the kernel was relaunched %ld times in 4 s", relaunched);
    fake_cudart_daemon_finish();
    return NULL;
}

int main(int argc, char **argv)
{
    dev_watchdog(60);
    dfct_init(&argc, &argv);
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
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    saved = capture_stderr(&captured);
    launches_before = fake_cudart_launches();
    DFC_Request req;
    DFCT_OK(DFC_Iallreduce(in, out, n, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD, &req));
    pthread_t t;
    if (pthread_create(&t, NULL, check_after_wait, NULL)) {
        DFCT_CHECK(0, "cannot start the checking thread");
        return dfct_finalize();
    }
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE)); /* ends once the thread has looked */
    pthread_join(t, NULL);
    CUDA_OK(cudaFree(in));
    CUDA_OK(cudaFree(out));
    return dfct_finalize();
}
