/*
 * initthread - DFC_Init_thread asking for DFC_THREAD_MULTIPLE gets it: provided and
 * Query_thread say MULTIPLE, Is_thread_main is true in the main thread and false in
 * another, and two threads of each rank then run point-to-point concurrently (on different
 * tags, eager and rendezvous sizes) with their data checked.
 */
#include <pthread.h>

#include "../dfctest.h"

#define NTHREADS 2
#define NITER 50

static int rank, size;

typedef struct targ {
    int id, errs, is_main;
} targ_t;

static void *thread_main(void *p)
{
    targ_t *a = p;
    int flag = -1;
    if (DFC_Is_thread_main(&flag) != DFC_SUCCESS || flag != 0) a->errs++;
    a->is_main = flag;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static const int lens[] = {1, 1000, 30000};
    int *out = malloc(30000 * sizeof(int)), *in = malloc(30000 * sizeof(int));
    for (int it = 0; it < NITER; it++) {
        int n = lens[it % 3], tag = 100 + a->id;
        DFC_Status st;
        for (int k = 0; k < n; k++) out[k] = rank * 1000003 + a->id * 100003 + it * 101 + k;
        if (DFC_Sendrecv(out, n, DFC_INT, right, tag, in, n, DFC_INT, left, tag, DFC_COMM_WORLD,
                         &st) != DFC_SUCCESS)
            a->errs++;
        if (st.DFC_SOURCE != left || st.DFC_TAG != tag) a->errs++;
        for (int k = 0; k < n; k++)
            if (in[k] != left * 1000003 + a->id * 100003 + it * 101 + k) {
                a->errs++;
                break;
            }
        /* Nonblocking too. */
        DFC_Request r[2];
        DFC_Irecv(in, n, DFC_INT, right, tag + 50, DFC_COMM_WORLD, &r[0]);
        DFC_Isend(out, n, DFC_INT, left, tag + 50, DFC_COMM_WORLD, &r[1]);
        if (DFC_Waitall(2, r, DFC_STATUSES_IGNORE) != DFC_SUCCESS) a->errs++;
        for (int k = 0; k < n; k++)
            if (in[k] != right * 1000003 + a->id * 100003 + it * 101 + k) {
                a->errs++;
                break;
            }
    }
    free(out);
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, flag = -1;
    DFC_Init_thread(&argc, &argv, DFC_THREAD_MULTIPLE, &provided);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    dfct_rank = rank;
    DFCT_CHECK(provided == DFC_THREAD_MULTIPLE, "Init_thread(MULTIPLE) provided %d", provided);
    DFCT_OK(DFC_Query_thread(&provided));
    DFCT_CHECK(provided == DFC_THREAD_MULTIPLE, "Query_thread %d", provided);
    DFCT_OK(DFC_Is_thread_main(&flag));
    DFCT_CHECK(flag == 1, "Is_thread_main in the main thread: %d", flag);
    flag = -1;
    DFCT_OK(DFC_Initialized(&flag));
    DFCT_CHECK(flag == 1, "Initialized after Init_thread: %d", flag);

    pthread_t th[NTHREADS];
    targ_t args[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        args[i] = (targ_t){.id = i, .errs = 0, .is_main = -1};
        if (pthread_create(&th[i], NULL, thread_main, &args[i]))
            DFCT_CHECK(0, "pthread_create failed");
    }
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(th[i], NULL);
        DFCT_CHECK(args[i].is_main == 0, "Is_thread_main in thread %d: %d", i, args[i].is_main);
        DFCT_CHECK(args[i].errs == 0, "thread %d: %d errors in its point-to-point", i,
                   args[i].errs);
    }
    return dfct_finalize();
}
