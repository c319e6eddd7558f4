/*
 * threadpull - rendezvous messages received by several threads of a process at once under
 * DFC_THREAD_MULTIPLE. Between processes of one node shm reads each message out of the
 * sender's memory (cross-memory attach), and that copy runs without the library lock (issue
 * 16; p2p.c, progress_unlocked_pulls): several at once, beside the other threads' sends,
 * receives and waits. Ranks pair up (r with r ^ 1; an odd last rank with itself). Each of
 * NTHREADS threads exchanges with the partner on its own tag (Irecv, Isend, Waitall) at
 * sizes just above the eager limit, odd, 1 MiB and 4 MiB + 3; contents are fresh every
 * iteration, the receive buffer is poisoned up to one guard byte past the message, and every
 * byte is checked, the guard too. A last thread keeps ping-ponging 8-byte messages with the
 * partner meanwhile, each checked. Run also with DFC_ASYNC_PROGRESS=1 (the progress thread
 * copies too), DFC_SHM_CMA=0 (the queued reads are refused: CTS, then DATA) and across nodes.
 * -watchdog=S (default 120): a hang prints "watchdog: hang in threadpull" and exits non-zero.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "../dfctest.h"

#define NTHREADS 3
#define ITERS 12
#define SMALL_ITERS 2000
#define GUARD 0x5a

static const size_t sizes[] = {DFCT_ABOVE_EAGER_BYTES, DFCT_ABOVE_EAGER_BYTES + 4093, 1 << 20,
                               (4 << 20) + 3};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAXBYTES ((4 << 20) + 3)

static int rank, partner;
static atomic_int errs;

/* The byte k of the message that world rank `from` sends on tag t in iteration it. */
static unsigned char byte_of(int from, int t, int it, size_t k)
{
    return (unsigned char)(from * 131 + t * 31 + it * 7 + k * 2654435761u % 251);
}

static void report(int t, int it, const char *what, size_t k, int got, int want)
{
    if (atomic_fetch_add(&errs, 1) < DFCT_MAX_REPORTS)
        fprintf(stderr, "[%d] thread %d iteration %d: %s at byte %zu: got %d, expected %d\n", rank,
                t, it, what, k, got, want);
}

static void *puller(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *out = malloc(MAXBYTES), *in = malloc(MAXBYTES + 1);
    if (!out || !in) {
        atomic_fetch_add(&errs, 1);
        return NULL;
    }
    for (int it = 0; it < ITERS; it++) {
        size_t n = sizes[(it + t) % NSIZES];
        for (size_t k = 0; k < n; k++) out[k] = byte_of(rank, t, it, k);
        memset(in, GUARD, n + 1);
        DFC_Request rq[2];
        DFC_Status st[2];
        if (DFC_Irecv(in, (int)n, DFC_BYTE, partner, t, DFC_COMM_WORLD, &rq[0]) ||
            DFC_Isend(out, (int)n, DFC_BYTE, partner, t, DFC_COMM_WORLD, &rq[1]) ||
            DFC_Waitall(2, rq, st)) {
            report(t, it, "a call failed", 0, 0, 0);
            continue;
        }
        int count = -1;
        DFC_Get_count(&st[0], DFC_BYTE, &count);
        if (count != (int)n) report(t, it, "count", 0, count, (int)n);
        for (size_t k = 0; k < n; k++)
            if (in[k] != byte_of(partner, t, it, k)) {
                report(t, it, "data", k, in[k], byte_of(partner, t, it, k));
                break;
            }
        if (in[n] != GUARD) report(t, it, "guard byte past the message", n, in[n], GUARD);
    }
    free(out);
    free(in);
    return NULL;
}

/* Small messages in between: a ping-pong on its own tag, each value checked. */
static void *pinger(void *arg)
{
    (void)arg;
    int tag = NTHREADS, first = rank <= partner;
    for (int i = 0; i < SMALL_ITERS; i++) {
        long v = -1, mine = (long)rank * 1000003 + i, theirs = (long)partner * 1000003 + i;
        int rc = first
                     ? DFC_Send(&mine, 1, DFC_LONG, partner, tag, DFC_COMM_WORLD) ||
                           DFC_Recv(&v, 1, DFC_LONG, partner, tag, DFC_COMM_WORLD,
                                    DFC_STATUS_IGNORE)
                     : DFC_Recv(&v, 1, DFC_LONG, partner, tag, DFC_COMM_WORLD, DFC_STATUS_IGNORE) ||
                           DFC_Send(&mine, 1, DFC_LONG, partner, tag, DFC_COMM_WORLD);
        if (rc) report(NTHREADS, i, "a small call failed", 0, 0, 0);
        else if (v != theirs && partner != rank)
            report(NTHREADS, i, "small value", 0, (int)(v - theirs), 0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int size;
    dfct_watchdog(argc, argv, "threadpull", 120);
    dfct_init_multiple(&argc, &argv);
    rank = dfct_rank;
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    partner = (rank ^ 1) < size ? rank ^ 1 : rank;

    pthread_t th[NTHREADS + 1];
    for (int t = 0; t < NTHREADS; t++)
        DFCT_CHECK(pthread_create(&th[t], NULL, puller, (void *)(intptr_t)t) == 0,
                   "pthread_create failed");
    DFCT_CHECK(pthread_create(&th[NTHREADS], NULL, pinger, NULL) == 0, "pthread_create failed");
    for (int t = 0; t <= NTHREADS; t++) pthread_join(th[t], NULL);
    DFCT_CHECK(atomic_load(&errs) == 0, "%d errors", atomic_load(&errs));
    return dfct_finalize();
}
