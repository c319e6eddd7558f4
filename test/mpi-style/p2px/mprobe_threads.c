/*
 * mprobe_threads - matched probe under concurrent senders and concurrent receivers
 * (DFC_THREAD_MULTIPLE), the use that Mprobe exists for: with Probe then Recv, two threads
 * can probe the same message and one of them receives another; with Mprobe each message
 * goes to exactly the thread that matched it.
 *
 * Every rank but 0 runs NT threads, each sending NMSG messages to rank 0 (tag = thread,
 * sizes mixing eager and rendezvous, payload naming (rank, thread, sequence)). Rank 0 runs
 * NT threads, each taking its share of all messages with Mprobe(ANY_SOURCE, ANY_TAG) (or
 * an Improbe loop) and Mrecv (or Imrecv). Then every message must have been received
 * exactly once, its payload consistent with the status the probe gave, and, per sender
 * thread, in the order it was sent by each receiving thread (non-overtaking).
 */
#include <pthread.h>

#include "../dfctest.h"

#define NT 4
#define NMSG 60

static int rank, size;
static DFC_Comm tc; /* the test's traffic, apart from dfct_finalize's */
static int *seen;   /* [src][thread][seq]: times received */
static int thread_errs[NT];

static int msg_ints(int t, int i) { return (i * 7 + t) % 5 == 0 ? 9000 : 1 + (i * 13 + t) % 40; }
static int value(int s, int t, int i, int k)
{
    return (s * 100 + t) * 100000 + i * 1000 + k % 1000;
}

static void *sender(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < NMSG; i++) {
        int n = msg_ints(t, i), *buf = malloc(n * sizeof(int));
        buf[0] = i;
        for (int k = 1; k < n; k++) buf[k] = value(rank, t, i, k);
        if (DFC_Send(buf, n, DFC_INT, 0, t, tc)) thread_errs[t]++;
        free(buf);
    }
    return NULL;
}

static void *receiver(void *arg)
{
    int t = (int)(long)arg, share = (size - 1) * NMSG;   /* NT threads, NT * share messages */
    int *last = malloc((size_t)size * NT * sizeof(int)); /* last seq per (src, thread) */
    for (int k = 0; k < size * NT; k++) last[k] = -1;
    for (int got = 0; got < share; got++) {
        DFC_Message msg = DFC_MESSAGE_NULL;
        DFC_Status st, rst;
        int count = -1, flag = 0;
        if (t % 2 == 0) {
            if (DFC_Mprobe(DFC_ANY_SOURCE, DFC_ANY_TAG, tc, &msg, &st)) thread_errs[t]++;
        } else {
            while (!flag)
                if (DFC_Improbe(DFC_ANY_SOURCE, DFC_ANY_TAG, tc, &flag, &msg, &st))
                    thread_errs[t]++, flag = 1;
        }
        DFC_Get_count(&st, DFC_INT, &count);
        int *buf = malloc((count + 1) * sizeof(int));
        if (got % 2) {
            DFC_Request req;
            if (DFC_Imrecv(buf, count, DFC_INT, &msg, &req) || DFC_Wait(&req, &rst))
                thread_errs[t]++;
        } else if (DFC_Mrecv(buf, count, DFC_INT, &msg, &rst)) {
            thread_errs[t]++;
        }
        int s = st.DFC_SOURCE, st_t = st.DFC_TAG, i = count > 0 ? buf[0] : -1;
        if (s < 1 || s >= size || st_t < 0 || st_t >= NT || i < 0 || i >= NMSG ||
            count != msg_ints(st_t, i) || rst.DFC_SOURCE != s || rst.DFC_TAG != st_t) {
            fprintf(stderr, "[rank 0 thread %d] bad message: source %d tag %d seq %d count %d\n", t,
                    s, st_t, i, count);
            thread_errs[t]++;
            free(buf);
            continue;
        }
        for (int k = 1; k < count; k++)
            if (buf[k] != value(s, st_t, i, k)) {
                thread_errs[t]++;
                fprintf(stderr, "[rank 0 thread %d] from %d/%d seq %d element %d: %d\n", t, s, st_t,
                        i, k, buf[k]);
                break;
            }
        __atomic_fetch_add(&seen[(s * NT + st_t) * NMSG + i], 1, __ATOMIC_RELAXED);
        /* This thread matched them one after the other: their order is the sending order. */
        if (i <= last[s * NT + st_t]) {
            fprintf(stderr, "[rank 0 thread %d] from %d/%d seq %d after seq %d\n", t, s, st_t, i,
                    last[s * NT + st_t]);
            thread_errs[t]++;
        }
        last[s * NT + st_t] = i;
        free(buf);
    }
    free(last);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    DFC_Init_thread(&argc, &argv, DFC_THREAD_MULTIPLE, &provided);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    dfct_rank = rank;
    DFCT_CHECK(provided == DFC_THREAD_MULTIPLE, "provided %d", provided);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &tc));
    seen = calloc((size_t)size * NT * NMSG, sizeof(int));
    pthread_t th[NT];
    for (long t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, rank == 0 ? receiver : sender, (void *)t);
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++) dfct_errs += thread_errs[t];
    if (rank == 0)
        for (int s = 1; s < size; s++)
            for (int t = 0; t < NT; t++)
                for (int i = 0; i < NMSG; i++)
                    DFCT_CHECK(seen[(s * NT + t) * NMSG + i] == 1,
                               "message %d of rank %d thread %d received %d times", i, s, t,
                               seen[(s * NT + t) * NMSG + i]);
    free(seen);
    DFCT_OK(DFC_Comm_free(&tc));
    return dfct_finalize();
}
