/*
 * iallreduce_thread - with DFC_ASYNC_PROGRESS=1 the progress thread runs a whole nonblocking
 * allreduce while the caller makes no DFC call (issue 16: the start hands the collective to
 * the thread, and reductions of 16 KiB and more run outside the library lock), and a second
 * application thread keeps calling DFC meanwhile (Iallreduce and Wait on a duplicate
 * communicator), so that its calls meet the thread's unlocked reductions.
 * For 1 KiB (shm slots), 4 and 16 KiB (recursive doubling), 256 KiB (recursive doubling on 2
 * ranks, rabenseifner on 3) and 1 MiB (ring): Iallreduce of ints with DFC_SUM, a completion callback that sets a flag, then the
 * caller waits for the flag with no DFC call (30 s at most: "not completed by the progress
 * thread"), then Wait, and every element is checked, as is every result of the second
 * thread. -watchdog=S (default 120): a hang prints "watchdog: hang in iallreduce_thread".
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "../dfctest.h"

#define ITERS 3
#define SIDE_ITERS 300

static DFC_Comm side_comm;
static int rank, size;
static atomic_int side_errs;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_flag(DFC_Request req, const DFC_Status *status, void *arg)
{
    (void)req;
    (void)status;
    atomic_store((atomic_int *)arg, 1);
}

/* The second thread: small allreduces on its own communicator, each result checked. */
static void *side(void *arg)
{
    (void)arg;
    for (int i = 0; i < SIDE_ITERS; i++) {
        int in = rank + i, out = -1;
        DFC_Request req;
        if (DFC_Iallreduce(&in, &out, 1, DFC_INT, DFC_SUM, side_comm, &req) != DFC_SUCCESS ||
            DFC_Wait(&req, DFC_STATUS_IGNORE) != DFC_SUCCESS ||
            out != size * i + size * (size - 1) / 2)
            atomic_fetch_add(&side_errs, 1);
    }
    return NULL;
}

static int value(int r, long k, int it) { return r + (int)(k % 13) + it; }

static void one(long bytes, int it, int *sbuf, int *rbuf)
{
    long n = bytes / (long)sizeof(int);
    for (long k = 0; k < n; k++) {
        sbuf[k] = value(rank, k, it);
        rbuf[k] = -1;
    }
    atomic_int done = 0;
    DFC_Request req;
    DFCT_OK(DFC_Iallreduce(sbuf, rbuf, (int)n, DFC_INT, DFC_SUM, DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Request_set_callback(req, set_flag, &done));
    double t0 = now();
    while (!atomic_load(&done) && now() - t0 < 30.0) nanosleep(&(struct timespec){0, 20000}, NULL);
    DFCT_CHECK(atomic_load(&done), "%ld bytes, iteration %d: not completed by the progress thread",
               bytes, it);
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    long bad = 0;
    for (long k = 0; k < n; k++) {
        int want = 0;
        for (int r = 0; r < size; r++) want += value(r, k, it);
        if (rbuf[k] != want && bad++ < 3)
            DFCT_CHECK(0, "%ld bytes, iteration %d: element %ld is %d, expected %d", bytes, it, k,
                       rbuf[k], want);
    }
}

int main(int argc, char **argv)
{
    dfct_watchdog(argc, argv, "iallreduce_thread", 120);
    dfct_init_multiple(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    const char *ap = getenv("DFC_ASYNC_PROGRESS");
    DFCT_CHECK(ap && !strcmp(ap, "1"), "run with DFC_ASYNC_PROGRESS=1 (the testlist sets it)");
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &side_comm));
    static const long sizes[] = {1024, 4096, 16384, 256 << 10, 1 << 20};
    int *sbuf = malloc(1 << 20), *rbuf = malloc(1 << 20);
    pthread_t th;
    DFCT_CHECK(pthread_create(&th, NULL, side, NULL) == 0, "pthread_create failed");
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int it = 0; it < ITERS; it++) one(sizes[s], it, sbuf, rbuf);
    pthread_join(th, NULL);
    DFCT_CHECK(atomic_load(&side_errs) == 0, "%d of the second thread's allreduces failed",
               atomic_load(&side_errs));
    DFCT_OK(DFC_Comm_free(&side_comm));
    free(sbuf);
    free(rbuf);
    return dfct_finalize();
}
