/*
 * dupthreads - communicator creation from two threads at once under DFC_THREAD_MULTIPLE
 * (issue 25, items 4 and 5). Two parents: A = DFC_COMM_WORLD (the smallest context id) and
 * B = a duplicate of it. Each pattern runs `rounds` rounds (argument, default 100):
 *   "both":  every rank duplicates A and B in two threads at once. The thread that dups B
 *            (the larger key) starts first and the one that dups A follows after a short,
 *            varying delay, so that a creation with a smaller key starts while the larger
 *            one's round is in flight (item 4: both once took the same context id);
 *   "mixed": in round i, rank i % size duplicates A and B in two threads at once, A's thread
 *            first, while every other rank duplicates B, then A, in one thread (item 5: this
 *            legal program used to hang, B's round on the first rank offering an empty mask
 *            for ever while A waited; each communicator sees its creations in one order).
 * After each round every rank sends a message on each new communicator to its right
 * neighbour, A's first, and receives with wildcards on B's first: if the two had one context
 * id, B's receive would take A's message (wrong value and tag). Values name the round, the
 * communicator and the sender; source and tag are checked too. Both must be congruent to
 * their parents. A hang (the old behaviour of "mixed") is caught by the runner's time limit.
 */
#include <pthread.h>
#include <time.h>

#include "../dfctest.h"

static DFC_Comm parent[2], child[2];
static int delay_us[2];

static void *dup_one(void *arg)
{
    int i = (int)(long)arg;
    if (delay_us[i]) {
        struct timespec ts = {0, delay_us[i] * 1000L};
        nanosleep(&ts, NULL);
    }
    DFCT_OK(DFC_Comm_dup(parent[i], &child[i]));
    return NULL;
}

/* Both dups at once: the thread of parent `first` starts, the other after `delay` us. */
static void dup_both(int first, int delay)
{
    pthread_t t[2];
    delay_us[first] = 0;
    delay_us[1 - first] = delay;
    pthread_create(&t[first], NULL, dup_one, (void *)(long)first);
    pthread_create(&t[1 - first], NULL, dup_one, (void *)(long)(1 - first));
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
}

static void check_children(const char *pattern, int round, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    for (int i = 0; i < 2; i++) {
        int cmp = -1;
        DFCT_OK(DFC_Comm_compare(parent[i], child[i], &cmp));
        DFCT_CHECK(cmp == DFC_CONGRUENT, "%s round %d: dup of parent %d compares %d", pattern,
                   round, i, cmp);
    }
    int out[2], in[2] = {-1, -1};
    DFC_Request r[2];
    DFC_Status st[2];
    for (int i = 0; i < 2; i++) {
        out[i] = round * 1000 + i * 100 + rank;
        DFCT_OK(DFC_Isend(&out[i], 1, DFC_INT, right, 10 + i, child[i], &r[i]));
    }
    DFCT_OK(DFC_Recv(&in[1], 1, DFC_INT, DFC_ANY_SOURCE, DFC_ANY_TAG, child[1], &st[1]));
    DFCT_OK(DFC_Recv(&in[0], 1, DFC_INT, DFC_ANY_SOURCE, DFC_ANY_TAG, child[0], &st[0]));
    DFCT_OK(DFC_Waitall(2, r, DFC_STATUSES_IGNORE));
    for (int i = 0; i < 2; i++) {
        int want = round * 1000 + i * 100 + left;
        DFCT_CHECK(in[i] == want && st[i].DFC_TAG == 10 + i && st[i].DFC_SOURCE == left,
                   "%s round %d: on the dup of parent %d got %d (tag %d, source %d), expected %d "
                   "(tag %d, source %d): the two new communicators share a context id",
                   pattern, round, i, in[i], st[i].DFC_TAG, st[i].DFC_SOURCE, want, 10 + i, left);
    }
    for (int i = 0; i < 2; i++) DFCT_OK(DFC_Comm_free(&child[i]));
}

int main(int argc, char **argv)
{
    int provided, rank, size, rounds = argc > 1 ? atoi(argv[1]) : 100;
    DFC_Init_thread(&argc, &argv, DFC_THREAD_MULTIPLE, &provided);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    dfct_rank = rank;
    DFCT_CHECK(provided == DFC_THREAD_MULTIPLE, "provided %d", provided);
    parent[0] = DFC_COMM_WORLD;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &parent[1]));

    const char *only = argc > 2 ? argv[2] : ""; /* "both" or "mixed": one pattern alone */
    for (int round = 0; round < rounds && strcmp(only, "mixed"); round++) {
        dup_both(1, (round * 37 + rank * 11) % 200); /* 0..199 us, different on each rank */
        check_children("both", round, rank, size);
    }
    for (int round = 0; round < rounds && strcmp(only, "both"); round++) {
        if (rank == round % size) {
            dup_both(0, (round * 37) % 200);
        } else {
            DFCT_OK(DFC_Comm_dup(parent[1], &child[1]));
            DFCT_OK(DFC_Comm_dup(parent[0], &child[0]));
        }
        check_children("mixed", round, rank, size);
    }
    DFCT_OK(DFC_Comm_free(&parent[1]));
    return dfct_finalize();
}
