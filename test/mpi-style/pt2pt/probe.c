/*
 * probe - Probe/Iprobe, then a receive sized from the probed status.
 *
 * Every rank sends to every other rank messages whose sizes and tags the receiver does not
 * know (eager and rendezvous, 0 included). The receiver Probes (ANY_SOURCE/ANY_TAG, or
 * a given source, or Iprobe in a loop), allocates exactly Get_count elements, receives
 * from the probed source and tag, and checks the count and the content. Also: Iprobe
 * for a tag nobody sends gives flag 0; a probed message stays there for a second Probe;
 * Get_count of a size that is no multiple of the type gives DFC_UNDEFINED.
 */
#include "../dfctest.h"

#define NMSG 6
#define TAG_DONE 999

static int rank, size;
static DFC_Comm bcomm;

/* Message i from s to d: its size in ints and its tag. */
static int msg_ints(int s, int d, int i)
{
    static const int lens[] = {0, 1, 1000, 4096, 4097, 50000, 3, 300000};
    return lens[(s * 3 + d + i) % (int)(sizeof lens / sizeof *lens)];
}
static int msg_tag(int s, int d, int i) { return 10 + (s + 2 * d + 3 * i) % 7; }
static int value(int s, int d, int i, int k) { return s * 1000003 + d * 10007 + i * 101 + k; }

static void barrier(void)
{
    for (int d = 1; d < size; d <<= 1)
        DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_BYTE, (rank + d) % size, 0, NULL, 0, DFC_BYTE,
                             (rank - d + size) % size, 0, bcomm, DFC_STATUS_IGNORE));
}

/* Receives one probed message. The probes match any tag, so the message probed from a
 * source is the next one it sent (non-overtaking), and so is the one the receive with the
 * probed source and tag gets. */
static void recv_probed(const DFC_Status *pst, int *next, const char *how)
{
    int s = pst->DFC_SOURCE, tag = pst->DFC_TAG, count = -1;
    if (s < 0 || s >= size || s == rank || next[s] >= NMSG) {
        DFCT_CHECK(0, "%s: probed source %d", how, s);
        return;
    }
    int i = next[s]++;
    DFCT_CHECK(tag == msg_tag(s, rank, i), "%s: tag %d from %d, expected %d (message %d)", how, tag,
               s, msg_tag(s, rank, i), i);
    DFCT_OK(DFC_Get_count(pst, DFC_INT, &count));
    DFCT_CHECK(count == msg_ints(s, rank, i), "%s: probed count %d from %d (msg %d), expected %d",
               how, count, s, i, msg_ints(s, rank, i));
    if (count < 0) return;
    int *buf = malloc((count + 1) * sizeof(int));
    DFC_Status st;
    buf[count] = -7;
    DFCT_OK(DFC_Recv(count ? buf : NULL, count, DFC_INT, s, tag, DFC_COMM_WORLD, &st));
    DFCT_CHECK(st.DFC_SOURCE == s && st.DFC_TAG == tag, "%s: received %d/%d after probing %d/%d",
               how, st.DFC_SOURCE, st.DFC_TAG, s, tag);
    int rcount = -1, bad = 0;
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &rcount));
    DFCT_CHECK(rcount == count, "%s: received count %d, probed %d", how, rcount, count);
    for (int k = 0; k < count; k++)
        if (buf[k] != value(s, rank, i, k) && bad++ < 3)
            DFCT_CHECK(0, "%s: from %d msg %d element %d is %d, expected %d", how, s, i, k, buf[k],
                       value(s, rank, i, k));
    DFCT_CHECK(buf[count] == -7, "%s: wrote past the probed count", how);
    free(buf);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &bcomm));

    /* Nothing was sent with tag 555: Iprobe says so (with progress), status untouched. */
    int flag = -1;
    DFC_Status st;
    memset(&st, 0x5a, sizeof st);
    DFCT_OK(DFC_Iprobe(DFC_ANY_SOURCE, 555, DFC_COMM_WORLD, &flag, &st));
    DFCT_CHECK(flag == 0, "Iprobe for an unsent tag: flag %d", flag);

    for (int mode = 0; mode < 3; mode++) {
        /* Send NMSG messages to every other rank. */
        int nsend = (size - 1) * NMSG, m = 0;
        DFC_Request *reqs = malloc((nsend + 1) * sizeof *reqs);
        int **bufs = malloc((nsend + 1) * sizeof *bufs);
        for (int d = 0; d < size; d++) {
            if (d == rank) continue;
            for (int i = 0; i < NMSG; i++, m++) {
                int n = msg_ints(rank, d, i);
                bufs[m] = malloc((n + 1) * sizeof(int));
                for (int k = 0; k < n; k++) bufs[m][k] = value(rank, d, i, k);
                DFCT_OK(DFC_Isend(bufs[m], n, DFC_INT, d, msg_tag(rank, d, i), DFC_COMM_WORLD,
                                  &reqs[m]));
            }
        }
        /* Receive (size-1)*NMSG messages, in the order the probes show them. Messages of one
         * source are probed in the order sent, since the probes match any tag (modes 0, 2)
         * or any tag of a given source (mode 1). */
        int *next = calloc(size, sizeof(int));
        for (int got = 0; got < nsend; got++) {
            const char *how = mode == 0   ? "Probe(ANY_SOURCE, ANY_TAG)"
                              : mode == 1 ? "Probe(source, ANY_TAG)"
                                          : "Iprobe loop";
            memset(&st, 0x5a, sizeof st);
            if (mode == 0) {
                DFCT_OK(DFC_Probe(DFC_ANY_SOURCE, DFC_ANY_TAG, DFC_COMM_WORLD, &st));
            } else if (mode == 1) {
                int s = got / NMSG;
                if (s >= rank) s++;
                DFCT_OK(DFC_Probe(s, DFC_ANY_TAG, DFC_COMM_WORLD, &st));
                DFCT_CHECK(st.DFC_SOURCE == s, "Probe(%d): source %d", s, st.DFC_SOURCE);
                /* Probing again finds the same message. */
                DFC_Status st2;
                flag = 0;
                DFCT_OK(DFC_Iprobe(s, DFC_ANY_TAG, DFC_COMM_WORLD, &flag, &st2));
                DFCT_CHECK(flag && st2.DFC_SOURCE == st.DFC_SOURCE && st2.DFC_TAG == st.DFC_TAG,
                           "second probe found another message (%d %d/%d vs %d/%d)", flag,
                           st2.DFC_SOURCE, st2.DFC_TAG, st.DFC_SOURCE, st.DFC_TAG);
            } else {
                flag = 0;
                while (!flag)
                    DFCT_OK(DFC_Iprobe(DFC_ANY_SOURCE, DFC_ANY_TAG, DFC_COMM_WORLD, &flag, &st));
            }
            recv_probed(&st, next, how);
        }
        for (int s = 0; s < size; s++)
            if (s != rank)
                DFCT_CHECK(next[s] == NMSG, "mode %d: %d of %d messages from %d", mode, next[s],
                           NMSG, s);
        DFCT_OK(DFC_Waitall(nsend, reqs, DFC_STATUSES_IGNORE));
        for (int k = 0; k < nsend; k++) free(bufs[k]);
        free(bufs), free(reqs), free(next);
        barrier();
    }

    /* Get_count of 6 bytes as DFC_INT is DFC_UNDEFINED; as DFC_SHORT, 3. */
    {
        int to = (rank + 1) % size, from = (rank - 1 + size) % size, count = 0;
        char six[6] = {1, 2, 3, 4, 5, 6}, got[6] = {0};
        DFC_Request req;
        DFCT_OK(DFC_Isend(six, 6, DFC_BYTE, to, 77, DFC_COMM_WORLD, &req));
        DFCT_OK(DFC_Probe(from, 77, DFC_COMM_WORLD, &st));
        DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
        DFCT_CHECK(count == DFC_UNDEFINED,
                   "Get_count(6 bytes, DFC_INT) = %d, expected DFC_UNDEFINED", count);
        DFCT_OK(DFC_Get_count(&st, DFC_SHORT, &count));
        DFCT_CHECK(count == 3, "Get_count(6 bytes, DFC_SHORT) = %d", count);
        DFCT_OK(DFC_Recv(got, 6, DFC_BYTE, from, 77, DFC_COMM_WORLD, &st));
        DFCT_CHECK(!memcmp(six, got, 6), "6-byte message content");
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    }
    DFCT_OK(DFC_Comm_free(&bcomm));
    return dfct_finalize();
}
