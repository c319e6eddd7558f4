/*
 * ssend - synchronous sends complete only after the matching receive has started.
 *
 * Ranks pair up (0,1), (2,3), ... For each size (eager and rendezvous):
 *   - the sender starts an Issend; the receiver waits with Probe until the message is there
 *     (so it has arrived and is not matched) and tells the sender so on another tag;
 *   - the sender Tests the Issend many times while waiting for that notice and for a
 *     while after it (driving progress): the flag must stay 0;
 *   - the sender then says "go"; only then does the receiver post the receive; the Issend
 *     completes and the data is checked.
 * Then blocking Ssend against a pre-posted receive and against a late one, Ssend_init and
 * Issend to DFC_PROC_NULL, and Issend to oneself.
 */
#include <sched.h>

#include "../dfctest.h"

#define TAG_MSG 1
#define TAG_ARRIVED 2
#define TAG_GO 3
#define SPIN_TESTS 2000 /* Tests of a pending Issend after the receiver saw the message */
#define POISON 0x5a

static int rank, size;

static void fill(unsigned char *b, int n, int seed)
{
    for (int i = 0; i < n; i++) b[i] = (unsigned char)(seed * 13 + i * 7 + (i >> 8));
}

static void check(const unsigned char *b, int n, int seed, const DFC_Status *st, int src, int tag,
                  const char *what)
{
    int count = -1, bad = 0;
    DFCT_CHECK(st->DFC_SOURCE == src && st->DFC_TAG == tag, "%s: status %d/%d, expected %d/%d",
               what, st->DFC_SOURCE, st->DFC_TAG, src, tag);
    DFCT_OK(DFC_Get_count(st, DFC_BYTE, &count));
    DFCT_CHECK(count == n, "%s: count %d, expected %d", what, count, n);
    for (int i = 0; i < n; i++)
        if (b[i] != (unsigned char)(seed * 13 + i * 7 + (i >> 8)) && bad++ < 3)
            DFCT_CHECK(0, "%s: byte %d of %d wrong", what, i, n);
    for (int i = n; i < n + 16; i++)
        if (b[i] != POISON && bad++ < 3) DFCT_CHECK(0, "%s: wrote past the end", what);
}

static void issend_held(int sender, int receiver, int n, int seed)
{
    unsigned char *buf = malloc(n + 16);
    char what[64];
    snprintf(what, sizeof what, "Issend of %d bytes %d -> %d", n, sender, receiver);
    if (rank == sender) {
        DFC_Request sreq, nreq;
        int flag = 0, noticed = 0, note;
        fill(buf, n, seed);
        DFCT_OK(DFC_Issend(buf, n, DFC_BYTE, receiver, TAG_MSG, DFC_COMM_WORLD, &sreq));
        DFCT_OK(DFC_Irecv(&note, 1, DFC_INT, receiver, TAG_ARRIVED, DFC_COMM_WORLD, &nreq));
        while (!noticed) {
            DFCT_OK(DFC_Test(&sreq, &flag, DFC_STATUS_IGNORE));
            if (flag) break;
            DFCT_OK(DFC_Test(&nreq, &noticed, DFC_STATUS_IGNORE));
        }
        DFCT_CHECK(!flag, "%s: completed before the receiver saw the message", what);
        for (int i = 0; i < SPIN_TESTS && !flag; i++) {
            DFCT_OK(DFC_Test(&sreq, &flag, DFC_STATUS_IGNORE));
            if (i % 64 == 0) sched_yield();
        }
        DFCT_CHECK(!flag, "%s: completed while the message was unmatched at the receiver", what);
        DFCT_OK(DFC_Send(NULL, 0, DFC_BYTE, receiver, TAG_GO, DFC_COMM_WORLD));
        if (!flag) DFCT_OK(DFC_Wait(&sreq, DFC_STATUS_IGNORE));
        if (!noticed) DFCT_OK(DFC_Wait(&nreq, DFC_STATUS_IGNORE));
    } else if (rank == receiver) {
        DFC_Status st;
        int note = 1, count = -1;
        DFCT_OK(DFC_Probe(sender, TAG_MSG, DFC_COMM_WORLD, &st));
        DFCT_OK(DFC_Get_count(&st, DFC_BYTE, &count));
        DFCT_CHECK(count == n, "%s: probed count %d", what, count);
        DFCT_OK(DFC_Send(&note, 1, DFC_INT, sender, TAG_ARRIVED, DFC_COMM_WORLD));
        DFCT_OK(DFC_Recv(NULL, 0, DFC_BYTE, sender, TAG_GO, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        memset(buf, POISON, n + 16);
        DFCT_OK(DFC_Recv(buf, n + 16, DFC_BYTE, sender, TAG_MSG, DFC_COMM_WORLD, &st));
        check(buf, n, seed, &st, sender, TAG_MSG, what);
    }
    free(buf);
}

/* Blocking Ssend: receive posted before (the receiver says so first) or after. */
static void ssend_blocking(int sender, int receiver, int n, int seed, int preposted)
{
    unsigned char *buf = malloc(n + 16);
    char what[64];
    snprintf(what, sizeof what, "Ssend of %d bytes, %s receive", n,
             preposted ? "pre-posted" : "late");
    if (rank == sender) {
        fill(buf, n, seed);
        if (preposted)
            DFCT_OK(
                DFC_Recv(NULL, 0, DFC_BYTE, receiver, TAG_GO, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Ssend(buf, n, DFC_BYTE, receiver, TAG_MSG, DFC_COMM_WORLD));
    } else if (rank == receiver) {
        DFC_Request req;
        DFC_Status st;
        memset(buf, POISON, n + 16);
        if (preposted) {
            DFCT_OK(DFC_Irecv(buf, n + 16, DFC_BYTE, sender, TAG_MSG, DFC_COMM_WORLD, &req));
            DFCT_OK(DFC_Send(NULL, 0, DFC_BYTE, sender, TAG_GO, DFC_COMM_WORLD));
        } else {
            DFCT_OK(DFC_Probe(sender, TAG_MSG, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
            DFCT_OK(DFC_Irecv(buf, n + 16, DFC_BYTE, sender, TAG_MSG, DFC_COMM_WORLD, &req));
        }
        DFCT_OK(DFC_Wait(&req, &st));
        check(buf, n, seed, &st, sender, TAG_MSG, what);
    }
    free(buf);
}

/* Persistent synchronous sends, several rounds, each held until the receiver posts. */
static void ssend_init_rounds(int sender, int receiver, int n)
{
    unsigned char *buf = malloc(n + 16);
    DFC_Request req;
    memset(buf, 0, n + 16);
    if (rank == sender) {
        DFCT_OK(DFC_Ssend_init(buf, n, DFC_BYTE, receiver, TAG_MSG, DFC_COMM_WORLD, &req));
        for (int it = 0; it < 4; it++) {
            int flag = 0;
            fill(buf, n, 100 + it);
            DFCT_OK(DFC_Start(&req));
            /* The receiver has not posted (it waits for TAG_GO): must not complete. */
            for (int i = 0; i < 200 && !flag; i++)
                DFCT_OK(DFC_Test(&req, &flag, DFC_STATUS_IGNORE));
            DFCT_CHECK(!flag, "Ssend_init of %d bytes round %d completed before the receive", n,
                       it);
            DFCT_OK(DFC_Send(NULL, 0, DFC_BYTE, receiver, TAG_GO, DFC_COMM_WORLD));
            if (!flag) DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
            DFCT_CHECK(req != DFC_REQUEST_NULL, "Wait nulled a persistent request");
        }
        DFCT_OK(DFC_Request_free(&req));
    } else if (rank == receiver) {
        for (int it = 0; it < 4; it++) {
            DFC_Status st;
            char what[64];
            snprintf(what, sizeof what, "Ssend_init of %d bytes round %d", n, it);
            DFCT_OK(DFC_Recv(NULL, 0, DFC_BYTE, sender, TAG_GO, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
            memset(buf, POISON, n + 16);
            DFCT_OK(DFC_Recv(buf, n + 16, DFC_BYTE, sender, TAG_MSG, DFC_COMM_WORLD, &st));
            check(buf, n, 100 + it, &st, sender, TAG_MSG, what);
        }
    }
    free(buf);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {0, 8, 16384, 16385, 1 << 20};
    const int nsizes = sizeof sizes / sizeof *sizes;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);

    int even = rank - rank % 2, odd = even + 1;
    if (odd < size) {
        for (int swap = 0; swap < 2; swap++) {
            int s = swap ? odd : even, r = swap ? even : odd;
            for (int k = 0; k < nsizes; k++) {
                issend_held(s, r, sizes[k], k + 10 * swap);
                ssend_blocking(s, r, sizes[k], k + 20, 1);
                ssend_blocking(s, r, sizes[k], k + 30, 0);
            }
            ssend_init_rounds(s, r, 100);
            ssend_init_rounds(s, r, 100000);
        }
    }

    /* To DFC_PROC_NULL: complete at once. */
    DFC_Request req;
    int flag = 0, x = 5;
    DFCT_OK(DFC_Issend(&x, 1, DFC_INT, DFC_PROC_NULL, 0, DFC_COMM_WORLD, &req));
    DFCT_OK(DFC_Test(&req, &flag, DFC_STATUS_IGNORE));
    DFCT_CHECK(flag, "Issend to PROC_NULL did not complete at once");
    DFCT_OK(DFC_Ssend(&x, 1, DFC_INT, DFC_PROC_NULL, 0, DFC_COMM_WORLD));

    /* To oneself: held until the receive is posted. */
    for (int k = 0; k < nsizes; k++) {
        unsigned char *buf = malloc(sizes[k] + 16), *rbuf = malloc(sizes[k] + 16);
        DFC_Status st;
        fill(buf, sizes[k], 77 + k);
        memset(rbuf, POISON, sizes[k] + 16);
        flag = 0;
        DFCT_OK(DFC_Issend(buf, sizes[k], DFC_BYTE, rank, 9, DFC_COMM_WORLD, &req));
        for (int i = 0; i < 100 && !flag; i++) DFCT_OK(DFC_Test(&req, &flag, DFC_STATUS_IGNORE));
        DFCT_CHECK(!flag, "Issend of %d bytes to self completed before the receive", sizes[k]);
        DFCT_OK(DFC_Recv(rbuf, sizes[k] + 16, DFC_BYTE, rank, 9, DFC_COMM_WORLD, &st));
        if (!flag) DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
        check(rbuf, sizes[k], 77 + k, &st, rank, 9, "Issend to self");
        free(buf);
        free(rbuf);
    }
    return dfct_finalize();
}
