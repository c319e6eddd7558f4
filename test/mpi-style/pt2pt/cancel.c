/*
 * cancel - DFC_Cancel of receives.
 *
 * An Irecv that matched nothing is cancelled: it completes, Test_cancelled says true, its
 * buffer is untouched, and a message sent afterwards with its tag goes to the next receive
 * instead. An Irecv that already matched (its data arrived, or the message was waiting
 * when it was posted) is not cancelled: Test_cancelled says false and the data is there.
 * A persistent receive cancelled in one round works normally in the next. Eager and
 * rendezvous sizes. Ranks pair up (0,1), (2,3), ...; rank 1 of a pair receives.
 */
#include "../dfctest.h"

#define POISON 0x5a

static int rank, size;
static DFC_Comm comm; /* a duplicate of WORLD: wildcard receives meet only this test's messages */

static void fill(int *b, int n, int seed)
{
    for (int i = 0; i < n; i++) b[i] = seed * 7919 + i;
}

static void check(const int *b, int n, int seed, const char *what)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (b[i] != seed * 7919 + i && bad++ < 3)
            DFCT_CHECK(0, "%s: element %d is %d, expected %d", what, i, b[i], seed * 7919 + i);
}

static void check_poisoned(const int *b, int n, const char *what)
{
    const unsigned char *p = (const unsigned char *)b;
    for (size_t i = 0; i < n * sizeof(int); i++)
        if (p[i] != POISON) {
            DFCT_CHECK(0, "%s: a cancelled receive wrote byte %zu", what, i);
            return;
        }
}

static void run(int sender, int receiver, int n)
{
    int *buf = malloc(n * sizeof(int) + 16), *buf2 = malloc(n * sizeof(int) + 16);
    char what[64];
    DFC_Request req;
    DFC_Status st;
    int flag, count;

    if (rank == receiver) {
        /* 1. Unmatched: cancel, then complete with Wait. */
        snprintf(what, sizeof what, "cancelled Irecv (%d ints)", n);
        memset(buf, POISON, n * sizeof(int) + 16);
        DFCT_OK(DFC_Irecv(buf, n, DFC_INT, sender, 10, comm, &req));
        DFCT_OK(DFC_Cancel(&req));
        DFCT_CHECK(req != DFC_REQUEST_NULL, "%s: Cancel nulled the request", what);
        memset(&st, 0, sizeof st);
        DFCT_OK(DFC_Wait(&req, &st));
        flag = 0;
        DFCT_OK(DFC_Test_cancelled(&st, &flag));
        DFCT_CHECK(flag == 1, "%s: Test_cancelled %d", what, flag);
        check_poisoned(buf, n, what);

        /* 2. Unmatched, cancelled, completed by a Test. */
        DFCT_OK(DFC_Irecv(buf, n, DFC_INT, DFC_ANY_SOURCE, DFC_ANY_TAG, comm, &req));
        DFCT_OK(DFC_Cancel(&req));
        flag = 0;
        while (!flag) DFCT_OK(DFC_Test(&req, &flag, &st));
        flag = 0;
        DFCT_OK(DFC_Test_cancelled(&st, &flag));
        DFCT_CHECK(flag == 1, "cancelled ANY_SOURCE/ANY_TAG Irecv: Test_cancelled %d", flag);
        check_poisoned(buf, n, "cancelled ANY_SOURCE/ANY_TAG Irecv");

        /* Let the sender go: the message with tag 10 must reach the next receive. */
        DFCT_OK(DFC_Send(NULL, 0, DFC_INT, sender, 1, comm));
        memset(buf2, POISON, n * sizeof(int) + 16);
        DFCT_OK(DFC_Recv(buf2, n, DFC_INT, sender, 10, comm, &st));
        snprintf(what, sizeof what, "receive after a cancel (%d ints)", n);
        check(buf2, n, 1, what);
        DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
        DFCT_CHECK(count == n && st.DFC_SOURCE == sender && st.DFC_TAG == 10,
                   "%s: status %d/%d count %d", what, st.DFC_SOURCE, st.DFC_TAG, count);
        check_poisoned(buf, n, "the cancelled receives' buffer after a later message");

        /* 3. Matched before the cancel (message already waiting when posted). */
        DFCT_OK(DFC_Probe(sender, 11, comm, DFC_STATUS_IGNORE));
        memset(buf, POISON, n * sizeof(int) + 16);
        DFCT_OK(DFC_Irecv(buf, n, DFC_INT, sender, 11, comm, &req));
        DFCT_OK(DFC_Cancel(&req));
        DFCT_OK(DFC_Wait(&req, &st));
        flag = 1;
        DFCT_OK(DFC_Test_cancelled(&st, &flag));
        snprintf(what, sizeof what, "Irecv matched before Cancel (%d ints)", n);
        DFCT_CHECK(flag == 0, "%s: Test_cancelled %d", what, flag);
        check(buf, n, 2, what);
        DFCT_CHECK(st.DFC_SOURCE == sender && st.DFC_TAG == 11, "%s: status %d/%d", what,
                   st.DFC_SOURCE, st.DFC_TAG);

        /* 4. Posted, matched by a later message and complete, then cancelled. */
        memset(buf, POISON, n * sizeof(int) + 16);
        DFCT_OK(DFC_Irecv(buf, n, DFC_INT, sender, 12, comm, &req));
        DFCT_OK(DFC_Send(NULL, 0, DFC_INT, sender, 2, comm));
        flag = 0;
        while (!flag) DFCT_OK(DFC_Request_get_status(req, &flag, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Cancel(&req));
        DFCT_OK(DFC_Wait(&req, &st));
        flag = 1;
        DFCT_OK(DFC_Test_cancelled(&st, &flag));
        snprintf(what, sizeof what, "completed Irecv, then Cancel (%d ints)", n);
        DFCT_CHECK(flag == 0, "%s: Test_cancelled %d", what, flag);
        check(buf, n, 3, what);

        /* 5. Persistent: round 1 cancelled, round 2 receives. */
        DFC_Request preq;
        DFCT_OK(DFC_Recv_init(buf, n, DFC_INT, sender, 13, comm, &preq));
        memset(buf, POISON, n * sizeof(int) + 16);
        DFCT_OK(DFC_Start(&preq));
        DFCT_OK(DFC_Cancel(&preq));
        DFCT_OK(DFC_Wait(&preq, &st));
        flag = 0;
        DFCT_OK(DFC_Test_cancelled(&st, &flag));
        DFCT_CHECK(flag == 1, "cancelled persistent receive: Test_cancelled %d", flag);
        DFCT_CHECK(preq != DFC_REQUEST_NULL, "Wait nulled a cancelled persistent request");
        check_poisoned(buf, n, "cancelled persistent receive");
        DFCT_OK(DFC_Start(&preq));
        DFCT_OK(DFC_Send(NULL, 0, DFC_INT, sender, 3, comm));
        DFCT_OK(DFC_Wait(&preq, &st));
        flag = 1;
        DFCT_OK(DFC_Test_cancelled(&st, &flag));
        DFCT_CHECK(flag == 0, "restarted persistent receive: Test_cancelled %d", flag);
        check(buf, n, 4, "restarted persistent receive");
        DFCT_OK(DFC_Request_free(&preq));
    } else if (rank == sender) {
        int *s1 = malloc(n * sizeof(int)), *s2 = malloc(n * sizeof(int));
        fill(s1, n, 1);
        DFCT_OK(DFC_Recv(NULL, 0, DFC_INT, receiver, 1, comm, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Send(s1, n, DFC_INT, receiver, 10, comm));
        fill(s2, n, 2);
        DFC_Request r2;
        DFCT_OK(DFC_Isend(s2, n, DFC_INT, receiver, 11, comm, &r2));
        DFCT_OK(DFC_Recv(NULL, 0, DFC_INT, receiver, 2, comm, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Wait(&r2, DFC_STATUS_IGNORE));
        fill(s1, n, 3);
        DFCT_OK(DFC_Send(s1, n, DFC_INT, receiver, 12, comm));
        DFCT_OK(DFC_Recv(NULL, 0, DFC_INT, receiver, 3, comm, DFC_STATUS_IGNORE));
        fill(s1, n, 4);
        DFCT_OK(DFC_Send(s1, n, DFC_INT, receiver, 13, comm));
        free(s1);
        free(s2);
    }
    free(buf);
    free(buf2);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {1, 100, 50000};
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    int even = rank - rank % 2, odd = even + 1;
    for (int k = 0; k < 3; k++) {
        if (odd < size) {
            run(even, odd, sizes[k]);
            run(odd, even, sizes[k]);
        }
        /* A self pair as well: cancel of a receive that only oneself could match. */
        DFC_Request req;
        DFC_Status st;
        int x = -1, flag = 0;
        DFCT_OK(DFC_Irecv(&x, 1, DFC_INT, rank, 99, comm, &req));
        DFCT_OK(DFC_Cancel(&req));
        DFCT_OK(DFC_Wait(&req, &st));
        DFCT_OK(DFC_Test_cancelled(&st, &flag));
        DFCT_CHECK(flag == 1 && x == -1, "self Irecv cancel: flag %d x %d", flag, x);
    }
    DFCT_OK(DFC_Comm_free(&comm));
    return dfct_finalize();
}
