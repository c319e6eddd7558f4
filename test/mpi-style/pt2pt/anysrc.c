/*
 * anysrc - wildcard receives and completion of many receives.
 *
 * 1. Every rank but the root sends NMSG messages of mixed eager/rendezvous sizes to the root
 *    with distinct tags; the root receives them all with ANY_SOURCE+ANY_TAG and identifies
 *    each by the status (source, tag, count), checking its content and that each source's
 *    messages arrive in the order sent.
 * 2. The same with ANY_SOURCE and a given tag, and a given source with ANY_TAG.
 * 3. Waitany over many Irecvs with given (source, tag), posted in shuffled order.
 * 4. Waitsome over Irecvs with ANY_SOURCE and one tag per round: every (source, round)
 *    arrives exactly once, whichever receive it lands in.
 * Each phase is done by every rank in turn as the receiver ("root"), so that all ranks run
 * the wildcard paths. Phases are separated by barriers on a duplicate of WORLD, so that no
 * wildcard receive can meet a message of another phase.
 */
#include "../dfctest.h"

#define NMSG 12
#define MAXLEN DFCT_ABOVE_EAGER_BYTES /* above every eager limit */
#define POISON 0x5a

static int rank, size;

/* Size of message i from sender s: eager and rendezvous mixed, 0 included. */
static int msglen(int s, int i)
{
    static const int lens[] = {0, 1, 7, 100, 16384, 16385, 40000, 3, MAXLEN, 4096, 20000, 12};
    return lens[(i + s) % (int)(sizeof lens / sizeof *lens)];
}

static unsigned char byte_of(int phase, int s, int i, int k)
{
    return (unsigned char)(phase * 31 + s * 17 + i * 7 + k * 13 + (k >> 8));
}

static void fill(unsigned char *b, int phase, int s, int i)
{
    for (int k = 0; k < msglen(s, i); k++) b[k] = byte_of(phase, s, i, k);
}

static void check_msg(const unsigned char *b, int phase, int s, int i, const DFC_Status *st,
                      const char *what)
{
    int n = msglen(s, i), count = -1, bad = 0;
    DFCT_OK(DFC_Get_count(st, DFC_BYTE, &count));
    DFCT_CHECK(count == n, "%s: message %d from %d has count %d, expected %d", what, i, s, count,
               n);
    for (int k = 0; k < n; k++)
        if (b[k] != byte_of(phase, s, i, k) && bad++ < 3)
            DFCT_CHECK(0, "%s: message %d from %d byte %d is %d, expected %d", what, i, s, k, b[k],
                       byte_of(phase, s, i, k));
    for (int k = n; k < n + 16; k++)
        if (b[k] != POISON && bad++ < 3)
            DFCT_CHECK(0, "%s: message %d from %d wrote byte %d past its end", what, i, s, k);
}

/* A p2p-only barrier (dissemination) on a duplicate of WORLD, so that its messages cannot
 * match the wildcard receives of the test. */
static DFC_Comm bcomm;
static void barrier(void)
{
    for (int d = 1; d < size; d <<= 1)
        DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_BYTE, (rank + d) % size, 999, NULL, 0, DFC_BYTE,
                             (rank - d + size) % size, 999, bcomm, DFC_STATUS_IGNORE));
}

/* Senders: NMSG messages to root with tag base + i. */
typedef struct sends {
    unsigned char *bufs[NMSG];
    DFC_Request reqs[NMSG];
} sends_t;

static void send_start(sends_t *S, int root, int phase, int base)
{
    for (int i = 0; i < NMSG; i++) {
        S->bufs[i] = malloc(MAXLEN);
        fill(S->bufs[i], phase, rank, i);
        DFCT_OK(DFC_Isend(S->bufs[i], msglen(rank, i), DFC_BYTE, root, base + i, DFC_COMM_WORLD,
                          &S->reqs[i]));
    }
}

static void send_finish(sends_t *S)
{
    DFCT_OK(DFC_Waitall(NMSG, S->reqs, DFC_STATUSES_IGNORE));
    for (int i = 0; i < NMSG; i++) free(S->bufs[i]);
}

static void send_all(int root, int phase, int base)
{
    sends_t S;
    send_start(&S, root, phase, base);
    send_finish(&S);
}

static void phase_anysrc_anytag(int root)
{
    const int phase = 1, base = 100;
    if (rank != root) {
        send_all(root, phase, base);
        return;
    }
    unsigned char *buf = malloc(MAXLEN + 16);
    int *next = calloc(size, sizeof(int)), total = (size - 1) * NMSG;
    for (int m = 0; m < total; m++) {
        DFC_Status st;
        memset(buf, POISON, MAXLEN + 16);
        DFCT_OK(DFC_Recv(buf, MAXLEN, DFC_BYTE, DFC_ANY_SOURCE, DFC_ANY_TAG, DFC_COMM_WORLD, &st));
        int s = st.DFC_SOURCE, i = st.DFC_TAG - base;
        if (s < 0 || s >= size || s == root || i < 0 || i >= NMSG) {
            DFCT_CHECK(0, "ANY_SOURCE/ANY_TAG: unexpected status source %d tag %d", s, st.DFC_TAG);
            continue;
        }
        DFCT_CHECK(i == next[s],
                   "ANY_SOURCE/ANY_TAG: from %d got message %d before %d (overtaking)", s, i,
                   next[s]);
        next[s] = i + 1;
        check_msg(buf, phase, s, i, &st, "ANY_SOURCE/ANY_TAG");
    }
    for (int s = 0; s < size; s++)
        if (s != root)
            DFCT_CHECK(next[s] == NMSG, "ANY_SOURCE/ANY_TAG: %d of %d from %d", next[s], NMSG, s);
    free(next);
    free(buf);
}

/* ANY_SOURCE with given tags (in reverse order of sending), then given sources with ANY_TAG
 * for a second batch with other tags. */
static void phase_partial_wildcards(int root)
{
    const int phase = 2, base = 200;
    if (rank != root) {
        send_all(root, phase, base);
        send_all(root, phase + 1, base + 50);
        return;
    }
    unsigned char *buf = malloc(MAXLEN + 16);
    /* First batch: for each tag (last first), one message from every sender. */
    for (int i = NMSG - 1; i >= 0; i--)
        for (int k = 1; k < size; k++) {
            DFC_Status st;
            memset(buf, POISON, MAXLEN + 16);
            DFCT_OK(DFC_Recv(buf, MAXLEN, DFC_BYTE, DFC_ANY_SOURCE, base + i, DFC_COMM_WORLD, &st));
            DFCT_CHECK(st.DFC_TAG == base + i, "ANY_SOURCE: tag %d, expected %d", st.DFC_TAG,
                       base + i);
            DFCT_CHECK(st.DFC_SOURCE >= 0 && st.DFC_SOURCE < size && st.DFC_SOURCE != root,
                       "ANY_SOURCE: source %d", st.DFC_SOURCE);
            if (st.DFC_SOURCE >= 0 && st.DFC_SOURCE < size)
                check_msg(buf, phase, st.DFC_SOURCE, i, &st, "ANY_SOURCE, given tag");
        }
    /* Second batch: by source (last first), ANY_TAG: in the order sent. */
    for (int s = size - 1; s >= 0; s--) {
        if (s == root) continue;
        for (int i = 0; i < NMSG; i++) {
            DFC_Status st;
            memset(buf, POISON, MAXLEN + 16);
            DFCT_OK(DFC_Recv(buf, MAXLEN, DFC_BYTE, s, DFC_ANY_TAG, DFC_COMM_WORLD, &st));
            DFCT_CHECK(st.DFC_SOURCE == s, "ANY_TAG: source %d, expected %d", st.DFC_SOURCE, s);
            DFCT_CHECK(st.DFC_TAG == base + 50 + i, "ANY_TAG from %d: tag %d, expected %d (order)",
                       s, st.DFC_TAG, base + 50 + i);
            check_msg(buf, phase + 1, s, i, &st, "given source, ANY_TAG");
        }
    }
    free(buf);
}

/* Waitany over (size-1)*NMSG Irecvs with given source and tag, posted in a shuffled order,
 * before (round 0) or after (round 1) the messages arrive. */
static void phase_waitany(int root, int round)
{
    const int phase = 4 + round, base = 300;
    if (rank != root) {
        sends_t S;
        if (round == 0) barrier(); /* root has posted its receives */
        send_start(&S, root, phase, base);
        if (round == 1) barrier(); /* root posts its receives after this */
        send_finish(&S);
        return;
    }
    int total = (size - 1) * NMSG;
    DFC_Request *reqs = malloc(total * sizeof *reqs);
    unsigned char **bufs = malloc(total * sizeof *bufs);
    int *src = malloc(total * sizeof(int)), *idx = malloc(total * sizeof(int)),
        *done = calloc(total, sizeof(int));
    unsigned st8 = 12345u + (unsigned)root;
    for (int m = 0; m < total; m++) {
        int s = m / NMSG;
        src[m] = s >= root ? s + 1 : s;
        idx[m] = m % NMSG;
    }
    for (int m = total - 1; m > 0; m--) { /* shuffle */
        int j = (int)(dfct_rand(&st8) % (unsigned)(m + 1)), t;
        t = src[m], src[m] = src[j], src[j] = t;
        t = idx[m], idx[m] = idx[j], idx[j] = t;
    }
    if (round == 1) barrier(); /* the messages were sent: they are unexpected here */
    for (int m = 0; m < total; m++) {
        bufs[m] = malloc(MAXLEN + 16);
        memset(bufs[m], POISON, MAXLEN + 16);
        DFCT_OK(
            DFC_Irecv(bufs[m], MAXLEN, DFC_BYTE, src[m], base + idx[m], DFC_COMM_WORLD, &reqs[m]));
    }
    if (round == 0) barrier(); /* the receives are posted: senders go */
    for (int n = 0; n < total; n++) {
        int index = -1;
        DFC_Status st;
        DFCT_OK(DFC_Waitany(total, reqs, &index, &st));
        if (index < 0 || index >= total) {
            DFCT_CHECK(0, "Waitany: index %d of %d", index, total);
            break;
        }
        DFCT_CHECK(!done[index], "Waitany: request %d completed twice", index);
        done[index] = 1;
        DFCT_CHECK(reqs[index] == DFC_REQUEST_NULL, "Waitany did not null request %d", index);
        DFCT_CHECK(st.DFC_SOURCE == src[index] && st.DFC_TAG == base + idx[index],
                   "Waitany: request %d status %d/%d, expected %d/%d", index, st.DFC_SOURCE,
                   st.DFC_TAG, src[index], base + idx[index]);
        check_msg(bufs[index], phase, src[index], idx[index], &st, "Waitany");
    }
    int index = 0;
    DFCT_OK(DFC_Waitany(total, reqs, &index, DFC_STATUS_IGNORE));
    DFCT_CHECK(index == DFC_UNDEFINED, "Waitany after all completed: index %d", index);
    for (int m = 0; m < total; m++) free(bufs[m]);
    free(bufs), free(reqs), free(src), free(idx), free(done);
}

/* Waitsome: NMSG rounds of (size-1) ANY_SOURCE receives with tag base + round. */
static void phase_waitsome(int root)
{
    const int phase = 6, base = 400;
    if (rank != root) {
        barrier();
        send_all(root, phase, base);
        return;
    }
    int total = (size - 1) * NMSG;
    DFC_Request *reqs = malloc(total * sizeof *reqs);
    DFC_Status *sts = malloc(total * sizeof *sts);
    unsigned char **bufs = malloc(total * sizeof *bufs);
    int *indices = malloc(total * sizeof(int)), *seen = calloc((size_t)size * NMSG, sizeof(int));
    for (int m = 0; m < total; m++) {
        bufs[m] = malloc(MAXLEN + 16);
        memset(bufs[m], POISON, MAXLEN + 16);
        DFCT_OK(DFC_Irecv(bufs[m], MAXLEN, DFC_BYTE, DFC_ANY_SOURCE, base + m % NMSG,
                          DFC_COMM_WORLD, &reqs[m]));
    }
    barrier();
    int got = 0, calls = 0;
    for (;;) {
        int outcount = -1;
        DFCT_OK(DFC_Waitsome(total, reqs, &outcount, indices, sts));
        calls++;
        if (outcount == DFC_UNDEFINED) break;
        DFCT_CHECK(outcount >= 1 && outcount <= total - got, "Waitsome: outcount %d with %d left",
                   outcount, total - got);
        if (outcount < 1 || outcount > total - got) break;
        for (int j = 0; j < outcount; j++) {
            int m = indices[j], s = sts[j].DFC_SOURCE, i = sts[j].DFC_TAG - base;
            DFCT_CHECK(m >= 0 && m < total && reqs[m] == DFC_REQUEST_NULL,
                       "Waitsome: index %d not completed", m);
            if (s < 0 || s >= size || s == root || i != m % NMSG) {
                DFCT_CHECK(0, "Waitsome: request %d status %d/%d", m, s, sts[j].DFC_TAG);
                continue;
            }
            DFCT_CHECK(!seen[s * NMSG + i], "Waitsome: (%d, %d) received twice", s, i);
            seen[s * NMSG + i] = 1;
            check_msg(bufs[m], phase, s, i, &sts[j], "Waitsome");
        }
        got += outcount;
    }
    DFCT_CHECK(got == total, "Waitsome: %d of %d completed", got, total);
    for (int m = 0; m < total; m++) free(bufs[m]);
    free(bufs), free(reqs), free(sts), free(indices), free(seen);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &bcomm));
    /* Each phase ends with a barrier: a wildcard receive of one phase must not meet the
     * messages of the next. */
    for (int root = 0; root < size; root++) {
        phase_anysrc_anytag(root);
        barrier();
        phase_partial_wildcards(root);
        barrier();
        phase_waitany(root, 0);
        barrier();
        phase_waitany(root, 1);
        barrier();
        phase_waitsome(root);
        barrier();
    }
    DFCT_OK(DFC_Comm_free(&bcomm));
    return dfct_finalize();
}
