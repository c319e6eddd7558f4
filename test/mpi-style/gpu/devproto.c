/*
 * devproto - regression tests for the GPU daemon's protocol (project issue 23), on device
 * buffers, each under a watchdog (a hang prints "watchdog: the test hung", exit 3):
 *
 *   -case=cross   defect 1: a crossed order on two communicators. Even ranks start
 *                 DFC_Iallreduce(A) on comm A, then a blocking DFC_Allreduce(B) on comm B;
 *                 odd ranks DFC_Allreduce(B) first, then DFC_Iallreduce(A); then Wait.
 *                 A has 64 MiB steps (many chunks per channel), B 16 MiB. Every other
 *                 iteration adds a small allreduce on comm A first, so that A and B share a
 *                 FIFO in half the iterations with DFC_GPU_SLOTS=2 (always with 1).
 *                 -iters=N (default 6). DFC_Reduce(3) promises this completes.
 *   -case=burst   defect 2: one 1 GiB float DFC_Iallreduce in flight while 500 small
 *                 nonblocking allreduces (every 10th a 512 KiB one, which runs on several
 *                 channels) come and go, more than the daemon's 128-entry SQ mirror holds.
 *   -case=launch  defect 4 (run with DFC_ASYNC_PROGRESS=1 and DFC_GPU_FAULT_LAUNCH): after
 *                 one checked allreduce, the kernel is left to exit (idle), then 20 rounds
 *                 of DFC_Iallreduce while the application thread only sleeps, then Wait.
 *                 -expect=ok: each is checked (a failed launch was retried by the progress
 *                 thread); -expect=fail: DFC_Wait returns an error of class DFC_ERR_OTHER
 *                 whose message says the kernel could not be launched, within the watchdog.
 *   -case=hang    the hang report for a collective in the daemon (run with
 *                 DFC_HANG_REPORT_SECONDS=1): rank 0's device DFC_Allreduce waits while the
 *                 others sleep 4 s before joining; meanwhile its kernel leaves when idle and
 *                 is relaunched again and again, which must not count as progress. Rank 0's
 *                 stderr must then hold the report's header and a line for the allreduce in
 *                 the GPU daemon; the result is checked.
 * Every result is checked element by element (fresh inputs, poisoned outputs). The test
 * requires the GPU daemon (DFC_Get_gpu_daemon_info) and prints nothing else on success.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../stderrcap.h"
#include "devtest.h"

static int rank, size;

/* A device buffer of n floats: input (rank + 1) * (i % 7 + salt), integers, so that sums are
 * exact; the output poisoned with NaN. */
typedef struct {
    float *in, *out;
    size_t n;
} vec_t;

__attribute__((unused)) static void vec_alloc(vec_t *v, size_t n)
{
    v->n = n;
    CUDA_OK(cudaMalloc((void **)&v->in, n * sizeof(float)));
    CUDA_OK(cudaMalloc((void **)&v->out, n * sizeof(float)));
}

static float *host_scratch(size_t n)
{
    static float *h;
    static size_t cap;
    if (n > cap) {
        free(h);
        h = malloc(n * sizeof(float));
        cap = n;
        if (!h) {
            fprintf(stderr, "out of host memory\n");
            exit(2);
        }
    }
    return h;
}

static void vec_fill(vec_t *v, int salt)
{
    float *h = host_scratch(v->n);
    for (size_t i = 0; i < v->n; i++) h[i] = (float)((rank + 1) * (int)(i % 7 + salt));
    DEV_UPLOAD(v->in, h, v->n * sizeof(float));
    DEV_MEMSET(v->out, 0xff, v->n * sizeof(float));
}

static void vec_check(vec_t *v, int salt, const char *what, int iter)
{
    float *h = host_scratch(v->n);
    CUDA_OK(cudaMemcpy(h, v->out, v->n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < v->n; i++) {
        float want = (float)(size * (size + 1) / 2 * (int)(i % 7 + salt));
        if (h[i] != want) {
            DFCT_CHECK(0, "%s %d: item %zu is %g, want %g", what, iter, i, h[i], want);
            return;
        }
    }
}

static void vec_free(vec_t *v)
{
    CUDA_OK(cudaFree(v->in));
    CUDA_OK(cudaFree(v->out));
}

static void case_cross(int iters)
{
    DFC_Comm ca, cb;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &ca));
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &cb));
    vec_t a, b, s;
    vec_alloc(&a, (size_t)size * (16u << 20)); /* 64 MiB per rank's step */
    vec_alloc(&b, 4u << 20);
    vec_alloc(&s, 1024);
    for (int it = 0; it < iters; it++) {
        DFC_Request r;
        vec_fill(&a, it + 1);
        vec_fill(&b, it + 2);
        if (it & 1) { /* shifts A's tag against B's: the other FIFO with 2 slots */
            vec_fill(&s, 3);
            DFCT_OK(DFC_Allreduce(s.in, s.out, (int)s.n, DFC_FLOAT, DFC_SUM, ca));
            vec_check(&s, 3, "cross: small allreduce", it);
        }
        if (rank % 2 == 0) {
            DFCT_OK(DFC_Iallreduce(a.in, a.out, (int)a.n, DFC_FLOAT, DFC_SUM, ca, &r));
            DFCT_OK(DFC_Allreduce(b.in, b.out, (int)b.n, DFC_FLOAT, DFC_SUM, cb));
        } else {
            DFCT_OK(DFC_Allreduce(b.in, b.out, (int)b.n, DFC_FLOAT, DFC_SUM, cb));
            DFCT_OK(DFC_Iallreduce(a.in, a.out, (int)a.n, DFC_FLOAT, DFC_SUM, ca, &r));
        }
        DFCT_OK(DFC_Wait(&r, DFC_STATUS_IGNORE));
        vec_check(&a, it + 1, "cross: Iallreduce A", it);
        vec_check(&b, it + 2, "cross: Allreduce B", it);
    }
    vec_free(&a);
    vec_free(&b);
    vec_free(&s);
    DFC_Comm_free(&ca);
    DFC_Comm_free(&cb);
}

static void case_burst(void)
{
    enum { NSMALL = 500 };
    vec_t big, small[NSMALL];
    DFC_Request req[NSMALL + 1];
    vec_alloc(&big, (size_t)1 << 28); /* 1 GiB of floats */
    vec_fill(&big, 5);
    for (int i = 0; i < NSMALL; i++) {
        vec_alloc(&small[i], i % 10 == 9 ? 131072 : (size_t)(4 + 37 * (i % 20)));
        vec_fill(&small[i], i % 11 + 1);
    }
    DFCT_OK(DFC_Iallreduce(big.in, big.out, (int)big.n, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD,
                           &req[NSMALL]));
    for (int i = 0; i < NSMALL; i++) {
        DFCT_OK(DFC_Iallreduce(small[i].in, small[i].out, (int)small[i].n, DFC_FLOAT, DFC_SUM,
                               DFC_COMM_WORLD, &req[i]));
        if (i % 50 == 49) { /* some complete while the big one runs, so entries come and go */
            int done = 0;
            DFCT_OK(DFC_Testall(i + 1, req, &done, DFC_STATUSES_IGNORE));
        }
    }
    DFCT_OK(DFC_Waitall(NSMALL + 1, req, DFC_STATUSES_IGNORE));
    for (int i = 0; i < NSMALL; i++) {
        vec_check(&small[i], i % 11 + 1, "burst: small allreduce", i);
        vec_free(&small[i]);
    }
    vec_check(&big, 5, "burst: 1 GiB allreduce", 0);
    vec_free(&big);
}

/* -expect=fail: the verdict on rc, a collective's result in round `round` (-1: the first
 * allreduce). 1 once the failure came (checked: class and message), 0 to go on. */
static int launch_failed(int rc, int round)
{
    if (rc == DFC_SUCCESS) return 0; /* a peer may still hold a launched kernel: no verdict */
    int cls = -1, len = 0;
    char msg[DFC_MAX_ERROR_STRING] = "";
    DFC_Error_class(rc, &cls);
    DFC_Error_string(rc, msg, &len);
    DFCT_CHECK(cls == DFC_ERR_OTHER || cls == DFC_ERR_PROC_FAILED,
               "launch: round %d: class %d (%s)", round, cls, msg);
    if (cls == DFC_ERR_OTHER)
        DFCT_CHECK(strstr(msg, "could not be launched") != NULL, "launch: round %d: message \"%s\"",
                   round, msg);
    return 1; /* the daemon is gone on this rank: the others may wait on it */
}

static void case_launch(const char *expect)
{
    int fail = !strcmp(expect, "fail");
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    vec_t v;
    vec_alloc(&v, 100003);
    vec_fill(&v, 1);
    /* With every launch failing from the second on, the first allreduce may already need one:
     * the kernel launched at DFC_Init leaves when idle (DFC_GPU_LINGER_US) when the buffers'
     * setup takes longer, as it did in 4 of 5 runs on an H100 host (stop 52). Its failure is
     * then the one expected. */
    int rc = DFC_Allreduce(v.in, v.out, (int)v.n, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD);
    int failed = fail && launch_failed(rc, -1);
    if (!failed) {
        DFCT_CHECK(rc == DFC_SUCCESS, "launch: first allreduce failed (rc %d)", rc);
        if (rc == DFC_SUCCESS) vec_check(&v, 1, "launch: first allreduce", 0);
    }
    for (int round = 0; round < 20 && !failed; round++) {
        usleep(
            20000); /* the kernel leaves when idle (DFC_GPU_LINGER_US): the next needs a launch */
        vec_fill(&v, round + 2);
        DFC_Request r;
        rc = DFC_Iallreduce(v.in, v.out, (int)v.n, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD, &r);
        if (rc == DFC_SUCCESS) {
            usleep(20000); /* only the progress thread works now */
            rc = DFC_Wait(&r, DFC_STATUS_IGNORE);
        }
        if (fail) {
            failed = launch_failed(rc, round);
            continue;
        }
        DFCT_CHECK(rc == DFC_SUCCESS, "launch: round %d failed (rc %d)", round, rc);
        if (rc == DFC_SUCCESS) vec_check(&v, round + 2, "launch: allreduce", round);
    }
    if (fail) DFCT_CHECK(failed, "launch: every launch failed but no collective reported it");
    vec_free(&v);
}

static void case_hang(void)
{
    vec_t v;
    vec_alloc(&v, 1000);
    vec_fill(&v, 3);
    CUDA_OK(cudaDeviceSynchronize());
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    if (rank != 0) sleep(4);
    FILE *tmp = NULL;
    int saved = rank == 0 ? capture_stderr(&tmp) : -1;
    DFCT_OK(DFC_Allreduce(v.in, v.out, (int)v.n, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD));
    if (saved >= 0) {
        char *text = restore_stderr(saved, tmp);
        DFCT_CHECK(has_line(text, "[dfc hang report]", "DFC_HANG_REPORT_SECONDS", "rank 0"),
                   "hang: no report header after 4 s without progress; stderr was:\n%s", text);
        DFCT_CHECK(has_line(text, "[dfc hang report]", "collective allreduce", "GPU daemon"),
                   "hang: no report line for the allreduce in the daemon; stderr was:\n%s", text);
        free(text);
    }
    vec_check(&v, 3, "hang: allreduce", 0);
    vec_free(&v);
}

int main(int argc, char **argv)
{
    const char *which = dfct_opt_str(argc, argv, "case", "?");
    dev_watchdog((unsigned)dfct_opt_long(argc, argv, "watchdog", 300));
    dev_daemon_at_every_size();
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    int device = -1;
    DFC_Count launches = 0;
    DFCT_OK(DFC_Get_gpu_daemon_info(&device, &launches));
    DFCT_CHECK(device >= 0, "the GPU daemon is not running (device %d)", device);
    if (!strcmp(which, "cross")) case_cross((int)dfct_opt_long(argc, argv, "iters", 6));
    else if (!strcmp(which, "burst")) case_burst();
    else if (!strcmp(which, "launch")) case_launch(dfct_opt_str(argc, argv, "expect", "ok"));
    else if (!strcmp(which, "hang")) case_hang();
    else DFCT_CHECK(0, "unknown -case=%s", which);
    DFCT_OK(DFC_Get_gpu_daemon_info(&device, &launches));
    DFCT_CHECK(launches > 0,
               "the GPU daemon kernel was never launched (device buffers were staged)");
    return dfct_finalize();
}
