/*
 * devsurvive - the GPU daemon after a peer dies mid-transfer (project issue 23, defect 3),
 * with 3 or more ranks on device buffers; the last rank is the victim (SIGKILL on itself).
 *
 *   1. Two checked device Allreduces on WORLD; a communicator of the survivors is split off.
 *   2. Every rank starts a 64 MiB DFC_Iallreduce on WORLD; the victim lets it run ~20 ms and
 *      dies, so that survivors hold FIFOs (sender ownership) and spill entries of it on
 *      every channel. Survivors get an error of class DFC_ERR_PROC_FAILED, or success when
 *      the victim's kernel finished its part before its context went.
 *   3. Each survivor starts 200 small DFC_Iallreduces on WORLD, each of which fails: 200
 *      abandons in one process, more than the daemon's 128 descriptors.
 *   4. 200 checked device Allreduces on the survivors' communicator (every 20th 64 MiB),
 *      which use the same FIFOs (DFC_GPU_SLOTS=1 makes sure) and need descriptors.
 * Inputs are fresh every round, outputs poisoned, every element compared. A hang prints
 * "watchdog: the test hung" (-watchdog=S, default 180) and exits with 3.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "devtest.h"

static int rank, size;
#define FAIL_VICTIM (size - 1)
#include "../faults/failcheck.h"

#define BIG (16 << 20) /* ints: 64 MiB */
#define SMALL 100003

static int input(unsigned k, int r, size_t i)
{
    uint32_t x = (k * 0x9e3779b9u) ^ ((uint32_t)r * 0x85ebca6bu) ^ ((uint32_t)i * 0xc2b2ae35u);
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    return (int)(x & 0xffff) - 0x8000;
}

/* Allreduce (int sum) of n items on comm over `members` ranks (world ranks 0 .. members-1). */
static void checked(DFC_Comm comm, int members, size_t n, unsigned k, int *ds, int *dr, int *h,
                    const char *what)
{
    for (size_t i = 0; i < n; i++) h[i] = input(k, rank, i);
    DEV_UPLOAD(ds, h, n * sizeof(int));
    DEV_MEMSET(dr, 0xa5, n * sizeof(int));
    int rc = DFC_Allreduce(ds, dr, (int)n, DFC_INT, DFC_SUM, comm);
    DFCT_CHECK(rc == DFC_SUCCESS, "%s %u: DFC_Allreduce returned %d", what, k, rc);
    if (rc) return;
    CUDA_OK(cudaMemcpy(h, dr, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
        int want = 0;
        for (int p = 0; p < members; p++) want += input(k, p, i);
        if (h[i] != want) {
            DFCT_CHECK(0, "%s %u: element %zu is %d, expected %d", what, k, i, h[i], want);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) return 77;
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    CUDA_OK(cudaSetDevice((lr ? atoi(lr) : 0) % ndev));
    dev_watchdog((unsigned)dfct_opt_long(argc, argv, "watchdog", 180));
    dev_daemon_at_every_size();
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_CHECK(size >= 3, "devsurvive needs 3 or more processes");
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    int device = -1;
    DFC_Count launches = 0;
    DFCT_OK(DFC_Get_gpu_daemon_info(&device, &launches));
    DFCT_CHECK(device >= 0, "the GPU daemon is not running (device %d)", device);
    int *ds, *dr, *h = malloc((size_t)BIG * sizeof(int));
    CUDA_OK(cudaMalloc((void **)&ds, (size_t)BIG * sizeof(int)));
    CUDA_OK(cudaMalloc((void **)&dr, (size_t)BIG * sizeof(int)));
    unsigned k = 0;
    dev_phase = "WORLD before";
    for (int i = 0; i < 2; i++)
        checked(DFC_COMM_WORLD, size, SMALL, k++, ds, dr, h, "WORLD before");
    DFC_Comm surv;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, rank == size - 1 ? DFC_UNDEFINED : 0, rank, &surv));
    if (surv != DFC_COMM_NULL) DFC_Comm_set_errhandler(surv, DFC_ERRORS_RETURN);

    DFC_Request req;
    dev_phase = "64 MiB Iallreduce";
    DEV_MEMSET(ds, 1, (size_t)BIG * sizeof(int));
    DFCT_OK(DFC_Iallreduce(ds, dr, BIG, DFC_INT, DFC_SUM, DFC_COMM_WORLD, &req));
    if (rank == size - 1) {
        for (double t0 = now(); now() - t0 < 0.02;) {
            int flag;
            DFC_Test(&req, &flag, DFC_STATUS_IGNORE);
        }
        raise(SIGKILL);
    }
    /* The victim's kernel may finish its part before its context is torn down (then the
     * collective completes: measured under MPS), else the survivors see the failure. */
    int rc = DFC_Wait(&req, DFC_STATUS_IGNORE);
    DFCT_CHECK(rc == DFC_SUCCESS || failed_class(rc, "64 MiB Iallreduce") == DFC_ERR_PROC_FAILED,
               "the 64 MiB Iallreduce with a dying rank returned %d", rc);
    dev_phase = "abandon";
    for (int i = 0; i < 200; i++) {
        dev_phase_i = i;
        rc = DFC_Iallreduce(ds, dr, 1024, DFC_INT, DFC_SUM, DFC_COMM_WORLD, &req);
        if (rc == DFC_SUCCESS) rc = DFC_Wait(&req, DFC_STATUS_IGNORE);
        if (failed_class(rc, "small Iallreduce") != DFC_ERR_PROC_FAILED) {
            DFCT_CHECK(0, "abandon %d: the Iallreduce with a dead rank returned %d", i, rc);
            break;
        }
    }
    dev_phase = "survivors";
    dev_phase_i = 0;
    for (int i = 0; i < 200; i++, dev_phase_i = i)
        checked(surv, size - 1, i % 20 == 19 ? BIG : SMALL, k++, ds, dr, h, "survivors");
    dev_phase = "synchronize and finalize";
    CUDA_OK(cudaDeviceSynchronize());
    DFCT_OK(DFC_Get_gpu_daemon_info(&device, &launches));
    DFCT_CHECK(launches > 0,
               "the GPU daemon kernel was never launched (device buffers were staged)");
    CUDA_OK(cudaFree(ds));
    CUDA_OK(cudaFree(dr));
    free(h);
    DFC_Comm_free(&surv);
    DFC_Finalize();
    if (rank == 0 && dfct_errs == 0) printf(" No Errors\n");
    else if (dfct_errs) printf(" Found %d errors\n", dfct_errs);
    fflush(stdout);
    return dfct_errs ? 1 : 0;
}
