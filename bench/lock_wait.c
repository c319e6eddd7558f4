/*
 * lock_wait - how long one thread's DFC calls wait while another thread of the same process
 * moves large rendezvous messages (issue 16: shm's cross-memory read of a message used to
 * run under the library lock, so every call of every other thread waited for the whole
 * copy; p2p.c's progress_unlocked_pulls now drops the lock around it).
 *
 * Two ranks on one node, DFC_THREAD_MULTIPLE. Rank 1 sends -n messages of -bytes to rank 0.
 * On rank 0 a mover thread receives them (Irecv, Wait: its wait makes the reads), while
 * the main thread keeps calling DFC_Iprobe on a tag nothing is sent to, timing every call
 * with CLOCK_MONOTONIC, until the mover is done. Rank 0 prints the calls' count, median,
 * 99th percentile and maximum in microseconds, and the mover's bandwidth. Every received
 * byte is checked (a wrong one fails the run: exit status 1).
 *
 *     mpirun -n 2 bench/lock_wait [-bytes=16777216] [-n=32]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dfc.h"

static size_t bytes = 16u << 20;
static int nmsg = 32, bad;
static atomic_int mover_done;
static double mover_s;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static unsigned char byte_of(int m, size_t k) { return (unsigned char)(m * 17 + k % 251); }

static void *mover(void *arg)
{
    unsigned char *buf = arg;
    double t0 = now_s();
    for (int m = 0; m < nmsg; m++) {
        DFC_Request r;
        memset(buf, 0, bytes);
        DFC_Irecv(buf, (int)bytes, DFC_BYTE, 1, m, DFC_COMM_WORLD, &r);
        DFC_Wait(&r, DFC_STATUS_IGNORE);
        for (size_t k = 0; k < bytes; k++)
            if (buf[k] != byte_of(m, k)) {
                bad++;
                break;
            }
    }
    mover_s = now_s() - t0;
    atomic_store(&mover_done, 1);
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "-bytes=", 7)) bytes = strtoul(argv[i] + 7, NULL, 10);
        if (!strncmp(argv[i], "-n=", 3)) nmsg = atoi(argv[i] + 3);
    }
    DFC_Init_thread(&argc, &argv, DFC_THREAD_MULTIPLE, &provided);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    unsigned char *buf = malloc(bytes);
    if (size != 2 || provided != DFC_THREAD_MULTIPLE || !buf) {
        if (rank == 0) fprintf(stderr, "lock_wait: needs 2 ranks and DFC_THREAD_MULTIPLE\n");
        DFC_Abort(DFC_COMM_WORLD, 2);
    }
    DFC_Barrier(DFC_COMM_WORLD);
    if (rank == 1) {
        for (int m = 0; m < nmsg; m++) {
            for (size_t k = 0; k < bytes; k++) buf[k] = byte_of(m, k);
            DFC_Send(buf, (int)bytes, DFC_BYTE, 0, m, DFC_COMM_WORLD);
        }
    } else {
        size_t cap = 1 << 22, n = 0;
        double *t = malloc(cap * sizeof *t);
        pthread_t th;
        pthread_create(&th, NULL, mover, buf);
        while (!atomic_load(&mover_done) && n < cap) {
            int flag;
            double t0 = now_s();
            DFC_Iprobe(1, 1 << 20, DFC_COMM_WORLD, &flag, DFC_STATUS_IGNORE);
            t[n++] = (now_s() - t0) * 1e6;
        }
        pthread_join(th, NULL);
        qsort(t, n, sizeof *t, cmp);
        printf("lock_wait: %d messages of %zu bytes in %.1f ms (%.2f GB/s); the other thread's "
               "%zu Iprobe calls meanwhile: median %.2f us, p99 %.2f us, max %.1f us%s\n",
               nmsg, bytes, mover_s * 1e3, nmsg * (double)bytes / mover_s / 1e9, n,
               n ? t[n / 2] : 0, n ? t[n * 99 / 100] : 0, n ? t[n - 1] : 0,
               bad ? " (WRONG DATA)" : "");
        free(t);
    }
    DFC_Barrier(DFC_COMM_WORLD);
    free(buf);
    DFC_Finalize();
    return bad ? 1 : 0;
}
