/*
 * threadcomm - two threads per process create communicators at the same time (DFC_Comm_dup
 * of two different parents, legal under DFC_THREAD_MULTIPLE), 200 times; the two new
 * communicators must get distinct context ids, which is checked by traffic: a message sent
 * on one must never arrive on the other (wildcard receives would take it).
 */
#include <pthread.h>

#include "../dfctest.h"

static DFC_Comm parent[2], child[2];

static void *dup_parent(void *arg)
{
    int i = (int)(long)arg;
    DFCT_OK(DFC_Comm_dup(parent[i], &child[i]));
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size, iters = 200;
    DFC_Init_thread(&argc, &argv, DFC_THREAD_MULTIPLE, &provided);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    dfct_rank = rank;
    DFCT_CHECK(provided == DFC_THREAD_MULTIPLE, "provided %d", provided);
    parent[0] = DFC_COMM_WORLD;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &parent[1]));
    for (int it = 0; it < iters; it++) {
        pthread_t t[2];
        for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, dup_parent, (void *)i);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        int right = (rank + 1) % size, one = 1, two = 2, x = -1, y = -1;
        DFC_Request r[2];
        DFCT_OK(DFC_Isend(&one, 1, DFC_INT, right, 5, child[0], &r[0]));
        DFCT_OK(DFC_Isend(&two, 1, DFC_INT, right, 5, child[1], &r[1]));
        DFCT_OK(DFC_Recv(&y, 1, DFC_INT, DFC_ANY_SOURCE, DFC_ANY_TAG, child[1], DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Recv(&x, 1, DFC_INT, DFC_ANY_SOURCE, DFC_ANY_TAG, child[0], DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Waitall(2, r, DFC_STATUSES_IGNORE));
        DFCT_CHECK(x == 1 && y == 2, "iteration %d: got %d on the first dup and %d on the second",
                   it, x, y);
        DFCT_OK(DFC_Comm_free(&child[0]));
        DFCT_OK(DFC_Comm_free(&child[1]));
    }
    DFCT_OK(DFC_Comm_free(&parent[1]));
    return dfct_finalize();
}
