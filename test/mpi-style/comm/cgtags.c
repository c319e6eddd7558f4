/*
 * cgtags - DFC_Comm_create_group with tags that differ only above bit 29, from two threads at
 * once on one parent (issue 25, item 6: tags were masked with 0x3fffffff, so 5 and 5 + 2^30
 * met on one internal tag and their creation rings crossed: one communicator got different
 * context ids on different ranks). Pairs (5, 5 + 2^30), (0, 2^30) and
 * (DFC_TAG_UB_VALUE - 2^30, DFC_TAG_UB_VALUE), `rounds` rounds each (argument, default 30).
 * Thread 0 creates over every rank in order; thread 1 over the same group in even rounds and
 * over every rank but the last in odd rounds (so a rank's ring neighbours are shared by both
 * creations on some ranks and not on others). Each new communicator must have the size and
 * rank order of its group, and a message to the right neighbour on each must arrive there,
 * on the right communicator (wildcard receives on the second first) with its value, tag and
 * source. A hang (messages sent on a context the receiver does not use) is caught by the
 * runner's time limit.
 */
#include <pthread.h>

#include "../dfctest.h"

static DFC_Group group[2];
static DFC_Comm child[2];
static int tag[2];

static void *create_one(void *arg)
{
    int i = (int)(long)arg;
    DFCT_OK(DFC_Comm_create_group(DFC_COMM_WORLD, group[i], tag[i], &child[i]));
    return NULL;
}

static void check_child(int i, int pair, int round, int rank, int n)
{
    int csize = -1, crank = -1;
    DFCT_OK(DFC_Comm_size(child[i], &csize));
    DFCT_OK(DFC_Comm_rank(child[i], &crank));
    DFCT_CHECK(csize == n && crank == rank,
               "pair %d round %d: communicator %d (tag %d) has "
               "rank %d of %d, expected %d of %d",
               pair, round, i, tag[i], crank, csize, rank, n);
}

int main(int argc, char **argv)
{
    int provided, rank, size, rounds = argc > 1 ? atoi(argv[1]) : 30;
    const int pairs[3][2] = {{5, 5 + (1 << 30)},
                             {0, 1 << 30},
                             {DFC_TAG_UB_VALUE - (1 << 30), DFC_TAG_UB_VALUE}};
    DFC_Init_thread(&argc, &argv, DFC_THREAD_MULTIPLE, &provided);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    dfct_rank = rank;
    DFCT_CHECK(provided == DFC_THREAD_MULTIPLE, "provided %d", provided);
    DFC_Group world;
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &world));
    int last = size - 1;
    DFC_Group all_but_last;
    DFCT_OK(DFC_Group_excl(world, 1, &last, &all_but_last));

    for (int pair = 0; pair < 3; pair++)
        for (int round = 0; round < rounds; round++) {
            int n[2] = {size, round % 2 && size > 2 ? size - 1 : size};
            int member[2] = {1, rank < n[1]};
            group[0] = world;
            group[1] = n[1] == size ? world : all_but_last;
            tag[0] = pairs[pair][round % 4 < 2 ? 0 : 1]; /* either tag on either group */
            tag[1] = pairs[pair][round % 4 < 2 ? 1 : 0];
            pthread_t t[2];
            for (long i = 0; i < 2; i++)
                if (member[i]) pthread_create(&t[i], NULL, create_one, (void *)i);
            for (int i = 0; i < 2; i++)
                if (member[i]) pthread_join(t[i], NULL);
            for (int i = 0; i < 2; i++)
                if (member[i]) check_child(i, pair, round, rank, n[i]);

            int out[2], in[2] = {-1, -1};
            DFC_Request r[2];
            DFC_Status st[2];
            for (int i = 0; i < 2; i++)
                if (member[i]) {
                    out[i] = round * 1000 + i * 100 + rank;
                    DFCT_OK(
                        DFC_Isend(&out[i], 1, DFC_INT, (rank + 1) % n[i], 7 + i, child[i], &r[i]));
                }
            for (int i = 1; i >= 0; i--)
                if (member[i]) {
                    int left = (rank - 1 + n[i]) % n[i], want = round * 1000 + i * 100 + left;
                    DFCT_OK(DFC_Recv(&in[i], 1, DFC_INT, DFC_ANY_SOURCE, DFC_ANY_TAG, child[i],
                                     &st[i]));
                    DFCT_CHECK(in[i] == want && st[i].DFC_TAG == 7 + i && st[i].DFC_SOURCE == left,
                               "pair %d round %d: on communicator %d (tag %d) got %d (tag %d, "
                               "source %d), expected %d (tag %d, source %d)",
                               pair, round, i, tag[i], in[i], st[i].DFC_TAG, st[i].DFC_SOURCE, want,
                               7 + i, left);
                }
            for (int i = 0; i < 2; i++)
                if (member[i]) {
                    DFCT_OK(DFC_Wait(&r[i], DFC_STATUS_IGNORE));
                    DFCT_OK(DFC_Comm_free(&child[i]));
                }
        }
    DFCT_OK(DFC_Group_free(&all_but_last));
    DFCT_OK(DFC_Group_free(&world));
    return dfct_finalize();
}
