/*
 * order - MPI's non-overtaking rule: messages from one sender on one communicator that
 * both match a receive are received in the order sent, whatever mix of eager and
 * rendezvous sizes they have, whether the receives were posted before the messages came
 * (expected) or after (unexpected), and with DFC_ANY_TAG / DFC_ANY_SOURCE.
 *
 * Ranks pair up (0,1), (2,3), ...; the even one sends, the odd one receives; then the
 * roles swap. An odd rank out only takes part in the barriers. Each message carries its
 * sequence number in its first int, and its size depends on the number, so a message out
 * of place is seen both by its count and by its content.
 */
#include "../dfctest.h"

#define NMSG 96
#define MAXLEN (300 * 1000)
#define POISON 0x5a

static int rank, size;
static DFC_Comm bcomm; /* for the barrier, apart from the test's traffic */

static int msglen(int i)
{
    static const int lens[] = {4, 100, 16383, 16384, 16385, 65536, 8, MAXLEN, 0, 20000, 1, 4096};
    return lens[i % (int)(sizeof lens / sizeof *lens)];
}

static unsigned char byte_of(int round, int i, int k)
{
    return (unsigned char)(round * 37 + i * 11 + k * 7 + (k >> 9));
}

static void fill(unsigned char *b, int round, int i)
{
    int n = msglen(i);
    for (int k = 0; k < n; k++) b[k] = byte_of(round, i, k);
    if (n >= (int)sizeof(int)) memcpy(b, &i, sizeof i);
}

static void check_msg(const unsigned char *b, const DFC_Status *st, int round, int i, int src,
                      int tag, const char *what)
{
    int n = msglen(i), count = -1, bad = 0;
    DFCT_OK(DFC_Get_count(st, DFC_BYTE, &count));
    DFCT_CHECK(count == n, "%s: message %d: count %d, expected %d (out of order?)", what, i, count,
               n);
    DFCT_CHECK(st->DFC_SOURCE == src, "%s: message %d: source %d, expected %d", what, i,
               st->DFC_SOURCE, src);
    if (tag != DFC_ANY_TAG)
        DFCT_CHECK(st->DFC_TAG == tag, "%s: message %d: tag %d, expected %d", what, i, st->DFC_TAG,
                   tag);
    if (count != n) return;
    if (n >= (int)sizeof(int)) {
        int seq;
        memcpy(&seq, b, sizeof seq);
        DFCT_CHECK(seq == i, "%s: got message %d where %d was due", what, seq, i);
        if (seq != i) return;
    }
    for (int k = sizeof(int); k < n; k++)
        if (b[k] != byte_of(round, i, k) && bad++ < 3)
            DFCT_CHECK(0, "%s: message %d byte %d is %d, expected %d", what, i, k, b[k],
                       byte_of(round, i, k));
    for (int k = n; k < n + 16; k++)
        if (b[k] != POISON && bad++ < 3)
            DFCT_CHECK(0, "%s: message %d wrote past its end", what, i);
}

static void barrier(void)
{
    for (int d = 1; d < size; d <<= 1)
        DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_BYTE, (rank + d) % size, 0, NULL, 0, DFC_BYTE,
                             (rank - d + size) % size, 0, bcomm, DFC_STATUS_IGNORE));
}

/* Tag of message i in a round: one tag, or alternating tags (for the ANY_TAG rounds). */
static int tag_of(int round, int i) { return round >= 2 ? 10 + i % 3 : 10; }

/*
 * round 0: receiver posts all Irecvs first (expected), given tag.
 * round 1: sender sends everything first (unexpected), receiver uses blocking Recv.
 * round 2: alternating tags, unexpected, receiver uses ANY_TAG.
 * round 3: alternating tags, expected, receiver uses ANY_SOURCE + ANY_TAG Irecvs.
 * round 4: alternating tags, receiver takes tag 12 first, then 11, then 10 (each stream in
 *          order while the others wait unexpected).
 */
static void run_round(int round, int sender, int receiver)
{
    unsigned char **bufs = malloc(NMSG * sizeof *bufs);
    DFC_Request *reqs = malloc(NMSG * sizeof *reqs);
    DFC_Status *sts = malloc(NMSG * sizeof *sts);
    char what[48];
    snprintf(what, sizeof what, "round %d (%d -> %d)", round, sender, receiver);
    int expected = round == 0 || round == 3;
    for (int i = 0; i < NMSG; i++) {
        bufs[i] = malloc(MAXLEN + 16);
        memset(bufs[i], POISON, MAXLEN + 16);
    }
    if (rank == sender) {
        if (expected) barrier();
        for (int i = 0; i < NMSG; i++) {
            fill(bufs[i], round, i);
            DFCT_OK(DFC_Isend(bufs[i], msglen(i), DFC_BYTE, receiver, tag_of(round, i),
                              DFC_COMM_WORLD, &reqs[i]));
        }
        if (!expected) barrier();
        DFCT_OK(DFC_Waitall(NMSG, reqs, DFC_STATUSES_IGNORE));
    } else if (rank == receiver) {
        if (round == 0 || round == 3) {
            for (int i = 0; i < NMSG; i++)
                DFCT_OK(DFC_Irecv(bufs[i], MAXLEN, DFC_BYTE, round == 3 ? DFC_ANY_SOURCE : sender,
                                  round == 3 ? DFC_ANY_TAG : tag_of(round, i), DFC_COMM_WORLD,
                                  &reqs[i]));
            barrier();
            DFCT_OK(DFC_Waitall(NMSG, reqs, sts));
            for (int i = 0; i < NMSG; i++)
                check_msg(bufs[i], &sts[i], round, i, sender, tag_of(round, i), what);
        } else if (round == 1 || round == 2) {
            barrier();
            for (int i = 0; i < NMSG; i++) {
                DFCT_OK(DFC_Recv(bufs[i], MAXLEN, DFC_BYTE, sender,
                                 round == 2 ? DFC_ANY_TAG : tag_of(round, i), DFC_COMM_WORLD,
                                 &sts[i]));
                check_msg(bufs[i], &sts[i], round, i, sender, tag_of(round, i), what);
            }
        } else {
            barrier();
            for (int t = 12; t >= 10; t--)
                for (int i = 0; i < NMSG; i++) {
                    if (tag_of(round, i) != t) continue;
                    DFCT_OK(
                        DFC_Recv(bufs[i], MAXLEN, DFC_BYTE, sender, t, DFC_COMM_WORLD, &sts[i]));
                    check_msg(bufs[i], &sts[i], round, i, sender, t, what);
                }
        }
    } else {
        barrier();
    }
    for (int i = 0; i < NMSG; i++) free(bufs[i]);
    free(bufs), free(reqs), free(sts);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &bcomm));
    int partner = rank % 2 ? rank - 1 : rank + 1;
    if (partner >= size) partner = -1;
    for (int swap = 0; swap < 2; swap++)
        for (int round = 0; round < 5; round++) {
            int even = rank - rank % 2, odd = even + 1;
            int sender = swap ? odd : even, receiver = swap ? even : odd;
            if (partner < 0) sender = receiver = -1;
            run_round(round, sender, receiver);
            barrier();
        }
    DFCT_OK(DFC_Comm_free(&bcomm));
    return dfct_finalize();
}
