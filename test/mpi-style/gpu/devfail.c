/*
 * devfail - a rank is killed (SIGKILL on itself) while the survivor works on CUDA device
 * buffers: with one process per GPU, the failure path of the GPU daemon (src/coll/gpu.c,
 * dfc_gpu_abandon) and of device-buffer staging in point-to-point (project issue 7).
 *
 * Two ranks; rank 1 is the victim, rank 0 the survivor; both use DFC_ERRORS_RETURN. First
 * both run three checked device Allreduces on WORLD (fresh random inputs, output poisoned
 * beforehand, every element compared with the sum), so the daemon is known to work. Then:
 *   -case=coll    rank 1 starts a 64 MiB DFC_Iallreduce on device buffers, lets it run
 *                 ~20 ms and dies; rank 0 starts the same Iallreduce once rank 1's process
 *                 is gone and waits. (The daemon progresses a collective without its host
 *                 process until the dying process's GPU context is torn down; had rank 0
 *                 started earlier, the collective could legitimately complete. This way rank
 *                 1's kernel may have filled rank 0's mailbox, and rank 0's daemon holds a
 *                 half-done collective that can never finish. Rank 0 may know of the
 *                 failure by then: the call still goes to its daemon, and is abandoned at
 *                 the next progress.)
 *   -case=before  rank 1 dies after a barrier, before entering the collective; rank 0 is
 *                 blocked in a blocking 64 MiB device Allreduce.
 *   -case=p2p     rank 1 dies inside 64 MiB device-buffer transfers with rank 0, one each
 *                 way (rendezvous, staged through host memory). With DFC_RGET=0 both stream
 *                 and rank 1 dies with both half done; otherwise rank 1 announces its send
 *                 and dies at once, and rank 0 matches it after it noticed the failure.
 * Rank 0 must get DFC_ERR_PROC_FAILED (message naming rank 1) within DFC_FAULT_TIMEOUT plus
 * 5 s; it prints the measured time on a line starting "devfail: " (testlist: reportLine).
 * Then it checks that the failure stayed contained: a new device Allreduce on WORLD fails;
 * checked device and host Allreduces on DFC_COMM_SELF work; cudaDeviceSynchronize, cudaFree
 * and cudaMalloc return (the daemon kernel is not stuck on the dead peer forever), within
 * the same bound; with -daemon the GPU daemon ran (DFC_Get_gpu_daemon_info); DFC_Finalize
 * returns; no /dev/shm/dfc-* name appeared that was not there before DFC_Init. Only then it
 * prints " No Errors".
 * -watchdog=S (default 90): a hang prints "watchdog: the test hung" and exits with 3.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "devtest.h"

#define VICTIM 1
#define BIG (16 << 20) /* ints: 64 MiB, many chunks in flight */
#define CHECKED 100003 /* ints of a checked Allreduce: odd, several chunks */
#define MARGIN_S 5.0
#define MAX_SHM 64

#define FAIL_VICTIM VICTIM
#include "../faults/failcheck.h"

static const char *which = "?";
static int rank, size, daemon_wanted;
static pid_t victim_pid;
static unsigned seed, round_no;
static double fail_after = -1, sync_after = -1;
static char shm_before[MAX_SHM][256];
static int nshm_before;

/* DFC_FAULT_TIMEOUT as the library reads it (src/comm/fault.c: default 5), plus a margin. */
static double bound_s(void)
{
    const char *t = getenv("DFC_FAULT_TIMEOUT");
    long s = t ? strtol(t, NULL, 10) : 5;
    return (s > 0 ? s : 5) + MARGIN_S;
}

/* Records how long the failure took to surface, against the bound. */
static void check_time(double t0, const char *what)
{
    fail_after = now() - t0;
    DFCT_CHECK(fail_after <= bound_s(), "%s: the failure took %.3f s, more than %.0f s", what,
               fail_after, bound_s());
}

/* ---- checked Allreduces ---------------------------------------------------------------- */

/* Item i of world rank r's input in round k: fresh per round, small enough to sum. */
static int input(unsigned k, int r, size_t i)
{
    uint32_t x = seed ^ (k * 0x9e3779b9u) ^ ((uint32_t)r * 0x85ebca6bu) ^
                 ((uint32_t)i * 0xc2b2ae35u);
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    return (int)(x & 0xffff) - 0x8000;
}

static void *buf_new(size_t bytes, int dev)
{
    void *p = NULL;
    if (dev) CUDA_OK(cudaMalloc(&p, bytes));
    else if (!(p = malloc(bytes))) {
        fprintf(stderr, "[rank %d] out of memory\n", rank);
        exit(2);
    }
    return p;
}

static void buf_free(void *p, int dev)
{
    if (dev) CUDA_OK(cudaFree(p));
    else free(p);
}

/* Allreduce (int sum) of CHECKED items on WORLD or DFC_COMM_SELF, on device or host
 * buffers; the output is poisoned first and every element is compared. */
static void checked_allreduce(DFC_Comm comm, int dev, const char *what)
{
    size_t bytes = CHECKED * sizeof(int);
    unsigned k = round_no++;
    int *h = buf_new(bytes, 0), *want = buf_new(bytes, 0), *s = buf_new(bytes, dev),
        *r = buf_new(bytes, dev);
    for (size_t i = 0; i < CHECKED; i++) {
        h[i] = input(k, rank, i);
        want[i] = 0;
        for (int p = 0; p < size; p++)
            if (comm == DFC_COMM_WORLD || p == rank) want[i] += input(k, p, i);
    }
    if (dev) {
        DEV_UPLOAD(s, h, bytes);
        DEV_MEMSET(r, 0xa5, bytes);
    } else {
        memcpy(s, h, bytes);
        memset(r, 0xa5, bytes);
    }
    int rc = DFC_Allreduce(s, r, CHECKED, DFC_INT, DFC_SUM, comm);
    DFCT_CHECK(rc == DFC_SUCCESS, "%s: DFC_Allreduce returned %d", what, rc);
    if (dev) CUDA_OK(cudaMemcpy(h, r, bytes, cudaMemcpyDeviceToHost));
    else memcpy(h, r, bytes);
    for (size_t i = 0; rc == DFC_SUCCESS && i < CHECKED; i++)
        if (h[i] != want[i]) {
            DFCT_CHECK(0, "%s: element %zu is %d, expected %d (round %u)", what, i, h[i], want[i],
                       k);
            break;
        }
    buf_free(s, dev);
    buf_free(r, dev);
    free(h);
    free(want);
}

/* ---- the victim's death ---------------------------------------------------------------- */

/* Gone: no /proc entry, or a zombie (its GPU context was torn down on exit). */
static int victim_gone(void)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)victim_pid);
    FILE *f = fopen(path, "r");
    if (!f) return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the state follows the command name */
    return p && (p[2] == 'Z' || p[2] == 'X');
}

static void wait_victim_gone(void)
{
    double t0 = now();
    while (!victim_gone() && now() - t0 < 10) usleep(1000);
    DFCT_CHECK(victim_gone(), "rank 1 (pid %d) is still alive 10 s after SIGKILL", (int)victim_pid);
}

/* ---- cases ------------------------------------------------------------------------------ */

static void case_coll(int *s, int *r)
{
    DFC_Request req;
    if (rank == VICTIM) {
        DFCT_OK(DFC_Iallreduce(s, r, BIG, DFC_INT, DFC_SUM, DFC_COMM_WORLD, &req));
        /* Let its daemon (or its host ring) send what it can without rank 0. */
        for (double t0 = now(); now() - t0 < 0.02;) {
            int flag;
            DFC_Test(&req, &flag, DFC_STATUS_IGNORE);
        }
        raise(SIGKILL);
    }
    wait_victim_gone();
    double t0 = now();
    int rc = DFC_Iallreduce(s, r, BIG, DFC_INT, DFC_SUM, DFC_COMM_WORLD, &req);
    if (rc == DFC_SUCCESS) rc = DFC_Wait(&req, DFC_STATUS_IGNORE);
    check_time(t0, "64 MiB device DFC_Iallreduce");
    EXPECT_FAILED(rc, "64 MiB device DFC_Iallreduce");
}

static void case_before(int *s, int *r)
{
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    if (rank == VICTIM) raise(SIGKILL);
    double t0 = now();
    int rc = DFC_Allreduce(s, r, BIG, DFC_INT, DFC_SUM, DFC_COMM_WORLD);
    check_time(t0, "blocking 64 MiB device DFC_Allreduce");
    EXPECT_FAILED(rc, "blocking 64 MiB device DFC_Allreduce");
}

/* Waits for both requests and expects DFC_ERR_PROC_FAILED in each status. */
static void expect_failed_reqs(DFC_Request *reqs, double t0, const char *what)
{
    DFC_Status st[2];
    int cls = -1;
    DFC_Error_class(DFC_Waitall(2, reqs, st), &cls);
    check_time(t0, what);
    DFCT_CHECK(cls == DFC_ERR_IN_STATUS,
               "%s: DFC_Waitall returned class %d, expected "
               "DFC_ERR_IN_STATUS",
               what, cls);
    for (int i = 0; i < 2; i++) EXPECT_FAILED(st[i].DFC_ERROR, what);
}

/* As procfail's rndv case, on device buffers (staged through host memory). */
static void case_p2p(int *s, int *r)
{
    const char *rget = getenv("DFC_RGET");
    int stream = rget && !strcmp(rget, "0"), go = 1, v;
    const int go_tag = 9;
    DFC_Request q[2];
    if (rank == VICTIM && !stream) {
        DFCT_OK(DFC_Isend(s, BIG, DFC_INT, 0, 1, DFC_COMM_WORLD, &q[1]));
        raise(SIGKILL);
    }
    if (rank == VICTIM) {
        DFCT_OK(DFC_Irecv(r, BIG, DFC_INT, 0, 2, DFC_COMM_WORLD, &q[0]));
        DFCT_OK(DFC_Isend(s, BIG, DFC_INT, 0, 1, DFC_COMM_WORLD, &q[1]));
        /* Rank 0's RTS came before its go message: both transfers are under way. */
        DFCT_OK(DFC_Recv(&go, 1, DFC_INT, 0, go_tag, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        /* Killed at once: the receive of go drove progress, so both transfers are under way,
         * and a pass may move many megabytes now that staged device data streams from pinned
         * memory (20 passes, then 2, finished the 64 MiB on the H200). */
        raise(SIGKILL);
    }
    double t0 = now();
    if (stream) {
        DFCT_OK(DFC_Irecv(r, BIG, DFC_INT, VICTIM, 1, DFC_COMM_WORLD, &q[0]));
        DFCT_OK(DFC_Isend(s, BIG, DFC_INT, VICTIM, 2, DFC_COMM_WORLD, &q[1]));
        DFCT_OK(DFC_Send(&go, 1, DFC_INT, VICTIM, go_tag, DFC_COMM_WORLD));
        t0 = now();
    } else {
        EXPECT_FAILED(DFC_Recv(&v, 1, DFC_INT, VICTIM, 3, DFC_COMM_WORLD, DFC_STATUS_IGNORE),
                      "a receive from the victim");
        DFCT_OK(DFC_Irecv(r, BIG, DFC_INT, VICTIM, 1, DFC_COMM_WORLD, &q[0])); /* its RTS */
        DFCT_OK(DFC_Isend(s, BIG, DFC_INT, VICTIM, 2, DFC_COMM_WORLD, &q[1]));
    }
    expect_failed_reqs(q, t0, "64 MiB device receive from and send to the victim");
}

/* ---- after the failure ----------------------------------------------------------------- */

/* The device must still be usable: the daemon kernel leaves a collective stuck on a dead
 * peer (daemon_kernel.cu's exit rules), so synchronization and allocation complete. */
static void check_device_usable(int *s, int *r)
{
    double t0 = now();
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaFree(s));
    CUDA_OK(cudaFree(r));
    void *p;
    CUDA_OK(cudaMalloc(&p, (size_t)BIG * sizeof(int)));
    DEV_MEMSET(p, 0, (size_t)BIG * sizeof(int));
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaFree(p));
    sync_after = now() - t0;
    DFCT_CHECK(sync_after <= bound_s(), "cudaDeviceSynchronize/cudaFree/cudaMalloc took %.3f s",
               sync_after);
}

static void after(int *s, int *r)
{
    int v = 7, got = 0;
    EXPECT_FAILED(DFC_Allreduce(&v, &got, 1, DFC_INT, DFC_SUM, DFC_COMM_WORLD),
                  "a new host DFC_Allreduce on WORLD");
    int *ds = buf_new(sizeof(int), 1), *dr = buf_new(sizeof(int), 1);
    EXPECT_FAILED(DFC_Allreduce(ds, dr, 1, DFC_INT, DFC_SUM, DFC_COMM_WORLD),
                  "a new device DFC_Allreduce on WORLD");
    buf_free(ds, 1);
    buf_free(dr, 1);
    checked_allreduce(DFC_COMM_SELF, 1, "device DFC_Allreduce on DFC_COMM_SELF");
    checked_allreduce(DFC_COMM_SELF, 0, "host DFC_Allreduce on DFC_COMM_SELF");
    check_device_usable(s, r);
    checked_allreduce(DFC_COMM_SELF, 1, "device DFC_Allreduce on DFC_COMM_SELF after the sync");
    int device = -1;
    DFC_Count launches = 0;
    DFCT_OK(DFC_Get_gpu_daemon_info(&device, &launches));
    if (daemon_wanted) {
        DFCT_CHECK(device >= 0, "the GPU daemon is not running (device %d)", device);
        DFCT_CHECK(launches > 0, "the GPU daemon kernel was never launched");
    }
}

/* ---- /dev/shm -------------------------------------------------------------------------- */

/* Names of /dev/shm starting with "dfc-" (what the runner also checks), at most MAX_SHM. */
static int list_shm(char names[][256], int max)
{
    int n = 0;
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    while (d && (e = readdir(d)) && n < max)
        if (!strncmp(e->d_name, "dfc-", 4)) snprintf(names[n++], 256, "%s", e->d_name);
    if (d) closedir(d);
    return n;
}

/* After DFC_Finalize: a dfc- name that was not there before DFC_Init is this job's. */
static void check_shm_clean(void)
{
    static char names[MAX_SHM][256];
    int n = list_shm(names, MAX_SHM);
    for (int i = 0; i < n; i++) {
        int old = 0;
        for (int j = 0; j < nshm_before && !old; j++) old = !strcmp(names[i], shm_before[j]);
        DFCT_CHECK(old, "/dev/shm/%s is left after DFC_Finalize", names[i]);
    }
}

/* ---- main ------------------------------------------------------------------------------- */

/* Rank 0 learns the victim's pid and shares a seed for the inputs. */
static void setup(void)
{
    int mine[2] = {(int)getpid(), (int)time(NULL)}, theirs[2] = {0, 0};
    int peer = rank == 0 ? VICTIM : 0;
    DFCT_OK(DFC_Sendrecv(mine, 2, DFC_INT, peer, 8, theirs, 2, DFC_INT, peer, 8, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    victim_pid = rank == 0 ? (pid_t)theirs[0] : getpid();
    seed = (unsigned)(rank == 0 ? mine[1] : theirs[1]);
}

/* The victim's errors so far would die with it: rank 0 counts them. */
static void share_errors(void)
{
    int theirs = 0, peer = rank == 0 ? VICTIM : 0;
    DFCT_OK(DFC_Sendrecv(&dfct_errs, 1, DFC_INT, peer, 10, &theirs, 1, DFC_INT, peer, 10,
                         DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    if (rank == 0) dfct_errs += theirs;
}

static int finish(void)
{
    if (rank == 0)
        printf("devfail: %s: the failure surfaced after %.3f s (bound %.0f s); device sync, "
               "free and malloc after it %.3f s\n",
               which, fail_after, bound_s(), sync_after);
    DFC_Finalize();
    check_shm_clean();
    if (dfct_errs == 0) printf(" No Errors\n");
    else printf(" Found %d errors\n", dfct_errs);
    fflush(stdout);
    return dfct_errs ? 1 : 0;
}

int main(int argc, char **argv)
{
    int ndev = 0;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "-case=", 6)) which = argv[i] + 6;
        if (!strcmp(argv[i], "-daemon")) daemon_wanted = 1;
    }
    if (daemon_wanted) dev_daemon_at_every_size();
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "devfail: no CUDA device; this test runs on the GPU machine only\n");
        return 77;
    }
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    if (!lr) lr = getenv("SLURM_LOCALID");
    CUDA_OK(cudaSetDevice((lr ? atoi(lr) : 0) % ndev)); /* one GPU per rank */
    dev_watchdog((unsigned)dfct_opt_long(argc, argv, "watchdog", 90));
    nshm_before = list_shm(shm_before, MAX_SHM);
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) printf("devfail needs 2 processes\n");
        DFC_Finalize();
        return 1;
    }
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFC_Comm_set_errhandler(DFC_COMM_SELF, DFC_ERRORS_RETURN);
    setup();
    for (int i = 0; i < 3; i++)
        checked_allreduce(DFC_COMM_WORLD, 1, "device DFC_Allreduce on WORLD");
    share_errors();
    int *s = buf_new((size_t)BIG * sizeof(int), 1), *r = buf_new((size_t)BIG * sizeof(int), 1);
    DEV_MEMSET(s, 1, (size_t)BIG * sizeof(int));
    DEV_MEMSET(r, 0xa5, (size_t)BIG * sizeof(int));
    if (!strcmp(which, "coll")) case_coll(s, r);
    else if (!strcmp(which, "before")) case_before(s, r);
    else if (!strcmp(which, "p2p")) case_p2p(s, r);
    else {
        DFCT_CHECK(0, "unknown -case=%s", which);
        if (rank == VICTIM) raise(SIGKILL);
    }
    after(s, r);
    return finish();
}
