/*
 * threadself - two threads of one process under DFC_THREAD_MULTIPLE: one receives from the
 * process itself, the other sends to it after a pause long enough for the receiver to go to
 * sleep (issue 24, defect 1: with only the self transport, which has no wait op, a waiting
 * thread once yielded while holding the library lock, so the sender blocked on the lock for
 * ever). Every rank does it with itself, so it runs with 1 process (self only) and with
 * several (shm and tcp present); with DFC_ASYNC_PROGRESS=1 the progress thread is a third.
 * Messages alternate eager (1 int) and rendezvous (64 Ki ints, pulled by a copy); every
 * element is checked, and the receive buffer is poisoned before each receive.
 * -watchdog=S (default 60): a hang prints "watchdog: hang in threadself" and exits non-zero.
 */
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "../dfctest.h"

#define NITER 60
#define BIG (64 * 1024)

static int rank;

static int len_of(int it) { return it % 2 ? BIG : 1; }
static int value(int it, int k) { return rank * 1000003 + it * 7919 + k; }

/* The sender: pauses ~1 ms (past DFC_SPIN_US + DFC_YIELD_US, so the receiver sleeps),
 * then sends; every third message from a nonblocking send, waited for. */
static void *sender(void *arg)
{
    int *errs = arg;
    int *out = malloc(BIG * sizeof(int));
    for (int it = 0; it < NITER; it++) {
        int n = len_of(it);
        for (int k = 0; k < n; k++) out[k] = value(it, k);
        nanosleep(&(struct timespec){0, 1000000}, NULL);
        if (it % 3 == 2) {
            DFC_Request r;
            if (DFC_Isend(out, n, DFC_INT, rank, it, DFC_COMM_WORLD, &r) != DFC_SUCCESS ||
                DFC_Wait(&r, DFC_STATUS_IGNORE) != DFC_SUCCESS)
                (*errs)++;
        } else if (DFC_Send(out, n, DFC_INT, rank, it, DFC_COMM_WORLD) != DFC_SUCCESS) {
            (*errs)++;
        }
    }
    free(out);
    return NULL;
}

int main(int argc, char **argv)
{
    int size;
    dfct_watchdog(argc, argv, "threadself", 60);
    dfct_init_multiple(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);

    int send_errs = 0;
    pthread_t t;
    DFCT_CHECK(pthread_create(&t, NULL, sender, &send_errs) == 0, "pthread_create failed");
    int *in = malloc(BIG * sizeof(int));
    for (int it = 0; it < NITER; it++) {
        int n = len_of(it);
        DFC_Status st;
        for (int k = 0; k < BIG; k++) in[k] = -1;
        DFCT_OK(DFC_Recv(in, BIG, DFC_INT, rank, it, DFC_COMM_WORLD, &st));
        int count = -1;
        DFC_Get_count(&st, DFC_INT, &count);
        DFCT_CHECK(count == n && st.DFC_SOURCE == rank && st.DFC_TAG == it,
                   "message %d: count %d source %d tag %d, expected %d %d %d", it, count,
                   st.DFC_SOURCE, st.DFC_TAG, n, rank, it);
        int bad = 0;
        for (int k = 0; k < n; k++) bad += in[k] != value(it, k);
        for (int k = n; k < BIG; k++) bad += in[k] != -1;
        DFCT_CHECK(!bad, "message %d: %d of %d elements wrong", it, bad, BIG);
    }
    pthread_join(t, NULL);
    DFCT_CHECK(send_errs == 0, "%d sends failed", send_errs);
    free(in);
    alarm(0);
    return dfct_finalize();
}
