/*
 * wakeup - how soon a thread asleep in DFC_Recv is woken by another thread of its process
 * (issue 24, defect 3: a waiter registered only after dropping the library lock, and a send
 * to self rang no doorbell, so it slept the whole DFC_SLEEP_US).
 *
 * Rank 0 runs two threads (DFC_THREAD_MULTIPLE): A receives from rank 0 itself; B waits
 * 2 ms (A is asleep by then: DFC_SPIN_US + DFC_YIELD_US are 0.22 ms), notes the time and
 * sends. The delay is A's return minus B's send. The testlist runs it with a long
 * DFC_SLEEP_US, so that a lost wake-up costs tens of milliseconds; the median delay over
 * -n rounds must stay below -bound_us (default 2000: a futex wake-up plus scheduling on a
 * loaded machine, far below the sleep). Other ranks only wait in a receive from rank 0, so
 * that shm (and its doorbell) is the transport rank 0 sleeps in when there are several.
 * Prints "wakeup: median M us, max X us (N rounds)" on rank 0 (a reportLine).
 */
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "../dfctest.h"

static int nrounds = 40;
static double sent_at[1000], done_at[1000];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "watchdog: hang in wakeup\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(3);
}

static void *sender(void *arg)
{
    int *errs = arg;
    for (int i = 0; i < nrounds; i++) {
        int v = 1000 + i;
        nanosleep(&(struct timespec){0, 2000000}, NULL);
        sent_at[i] = now_s();
        if (DFC_Send(&v, 1, DFC_INT, 0, i, DFC_COMM_WORLD) != DFC_SUCCESS) (*errs)++;
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int provided = -1, rank, size, bound_us = 2000;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "-n=", 3)) nrounds = atoi(argv[i] + 3);
        if (!strncmp(argv[i], "-bound_us=", 10)) bound_us = atoi(argv[i] + 10);
    }
    if (nrounds < 1 || nrounds > 1000) nrounds = 40;
    signal(SIGALRM, on_alarm);
    alarm(60);
    DFC_Init_thread(&argc, &argv, DFC_THREAD_MULTIPLE, &provided);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    dfct_rank = rank;
    if (rank == 0) {
        int send_errs = 0;
        pthread_t t;
        DFCT_CHECK(pthread_create(&t, NULL, sender, &send_errs) == 0, "pthread_create failed");
        for (int i = 0; i < nrounds; i++) {
            int v = -1;
            DFCT_OK(DFC_Recv(&v, 1, DFC_INT, 0, i, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
            done_at[i] = now_s();
            DFCT_CHECK(v == 1000 + i, "round %d: received %d, expected %d", i, v, 1000 + i);
        }
        pthread_join(t, NULL);
        DFCT_CHECK(send_errs == 0, "%d sends failed", send_errs);
        double d[1000], max = 0;
        for (int i = 0; i < nrounds; i++) {
            d[i] = (done_at[i] - sent_at[i]) * 1e6;
            if (d[i] > max) max = d[i];
        }
        qsort(d, (size_t)nrounds, sizeof d[0], cmp_double);
        double median = d[nrounds / 2];
        printf("wakeup: median %.0f us, max %.0f us (%d rounds, %d ranks)\n", median, max, nrounds,
               size);
        DFCT_CHECK(median < bound_us, "median wake-up delay %.0f us exceeds %d us", median,
                   bound_us);
        for (int r = 1; r < size; r++) DFCT_OK(DFC_Send(&r, 1, DFC_INT, r, 0, DFC_COMM_WORLD));
    } else {
        int v = -1;
        DFCT_OK(DFC_Recv(&v, 1, DFC_INT, 0, 0, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        DFCT_CHECK(v == rank, "received %d, expected %d", v, rank);
    }
    alarm(0);
    return dfct_finalize();
}
