/*
 * isendirecv - storms of Isend/Irecv between all pairs of ranks, completed with Waitall,
 * Testall, Testany and Testsome in turn, with receives posted before the sends in some
 * rounds and after in others. Every message has its own size (eager and rendezvous mixed)
 * and content; every receive's status (source, tag, count) and every byte are checked.
 */
#include "../dfctest.h"

#define K 8 /* messages per ordered pair and round */
#define POISON 0x5a

static int rank, size;

static int msglen(int src, int dst, int k, int round)
{
    static const int lens[] = {0, 64, 4000, 16384, 16385, 1, 120000, 777, 30000, 8};
    int i = (src * 3 + dst * 5 + k + round) % (int)(sizeof lens / sizeof *lens);
    /* Big messages only on some pairs, to keep 8 ranks on 2 cores quick. */
    if (lens[i] > 100000 && (src + dst + round) % 3) return 50000;
    return lens[i];
}

static unsigned char byte_of(int src, int dst, int k, int round, int j)
{
    return (unsigned char)(src * 29 + dst * 13 + k * 7 + round * 3 + j * 5 + (j >> 8));
}

static int tag_of(int k, int round) { return 1000 * round + k; }

typedef struct msg {
    unsigned char *buf;
    int peer, k, recv;
} msg_t;

static void check_recv(const msg_t *m, const DFC_Status *st, int round, const char *how)
{
    int n = msglen(m->peer, rank, m->k, round), count = -1, bad = 0;
    DFCT_CHECK(st->DFC_SOURCE == m->peer, "%s round %d: source %d, expected %d", how, round,
               st->DFC_SOURCE, m->peer);
    DFCT_CHECK(st->DFC_TAG == tag_of(m->k, round), "%s round %d: tag %d, expected %d", how, round,
               st->DFC_TAG, tag_of(m->k, round));
    DFCT_OK(DFC_Get_count(st, DFC_BYTE, &count));
    DFCT_CHECK(count == n, "%s round %d: count %d from %d (k %d), expected %d", how, round, count,
               m->peer, m->k, n);
    for (int j = 0; j < n; j++)
        if (m->buf[j] != byte_of(m->peer, rank, m->k, round, j) && bad++ < 3)
            DFCT_CHECK(0, "%s round %d: from %d k %d byte %d is %d, expected %d", how, round,
                       m->peer, m->k, j, m->buf[j], byte_of(m->peer, rank, m->k, round, j));
    for (int j = n; j < n + 16; j++)
        if (m->buf[j] != POISON && bad++ < 3)
            DFCT_CHECK(0, "%s round %d: from %d k %d: wrote past the end", how, round, m->peer,
                       m->k);
}

static void run_round(int round, int method)
{
    static const char *names[] = {"Waitall", "Testall", "Testany", "Testsome"};
    int nmsg = 2 * K * size; /* sends and receives with every rank, self included */
    msg_t *msgs = calloc(nmsg, sizeof *msgs);
    DFC_Request *reqs = malloc(nmsg * sizeof *reqs);
    DFC_Status *sts = malloc(nmsg * sizeof *sts);
    int *indices = malloc(nmsg * sizeof(int)), *done = calloc(nmsg, sizeof(int));
    int recv_first = round % 2 == 0, m = 0;

    for (int phase = 0; phase < 2; phase++) {
        int posting_recvs = (phase == 0) == recv_first;
        for (int off = 0; off < size; off++) {
            /* Receives from rank-off, sends to rank+off: every pair in some order. */
            int peer = posting_recvs ? (rank - off + size) % size : (rank + off) % size;
            for (int k = 0; k < K; k++, m++) {
                msg_t *x = &msgs[m];
                x->peer = peer;
                x->k = k;
                x->recv = posting_recvs;
                if (posting_recvs) {
                    int n = msglen(peer, rank, k, round);
                    x->buf = malloc(n + 16);
                    memset(x->buf, POISON, n + 16);
                    DFCT_OK(DFC_Irecv(x->buf, n + 16, DFC_BYTE, peer, tag_of(k, round),
                                      DFC_COMM_WORLD, &reqs[m]));
                } else {
                    int n = msglen(rank, peer, k, round);
                    x->buf = malloc(n + 1);
                    for (int j = 0; j < n; j++) x->buf[j] = byte_of(rank, peer, k, round, j);
                    DFCT_OK(DFC_Isend(x->buf, n, DFC_BYTE, peer, tag_of(k, round), DFC_COMM_WORLD,
                                      &reqs[m]));
                }
            }
        }
    }

    int ncompleted = 0, flag = 0, index, outcount;
    switch (method) {
    case 0:
        DFCT_OK(DFC_Waitall(nmsg, reqs, sts));
        for (int i = 0; i < nmsg; i++)
            if (msgs[i].recv) check_recv(&msgs[i], &sts[i], round, names[method]);
        ncompleted = nmsg;
        break;
    case 1:
        while (!flag) DFCT_OK(DFC_Testall(nmsg, reqs, &flag, sts));
        for (int i = 0; i < nmsg; i++)
            if (msgs[i].recv) check_recv(&msgs[i], &sts[i], round, names[method]);
        ncompleted = nmsg;
        break;
    case 2:
        for (;;) {
            DFC_Status st;
            flag = 0;
            index = -1;
            DFCT_OK(DFC_Testany(nmsg, reqs, &index, &flag, &st));
            if (!flag) {
                DFCT_CHECK(index == DFC_UNDEFINED, "Testany: flag 0 with index %d", index);
                continue;
            }
            if (index == DFC_UNDEFINED) break;
            if (index < 0 || index >= nmsg || done[index]) {
                DFCT_CHECK(0, "Testany: bad or repeated index %d", index);
                break;
            }
            DFCT_CHECK(reqs[index] == DFC_REQUEST_NULL, "Testany did not null request %d", index);
            done[index] = 1;
            ncompleted++;
            if (msgs[index].recv) check_recv(&msgs[index], &st, round, names[method]);
        }
        break;
    case 3:
        for (;;) {
            outcount = -1;
            DFCT_OK(DFC_Testsome(nmsg, reqs, &outcount, indices, sts));
            if (outcount == DFC_UNDEFINED) break;
            if (outcount < 0 || outcount > nmsg - ncompleted) {
                DFCT_CHECK(0, "Testsome: outcount %d with %d left", outcount, nmsg - ncompleted);
                break;
            }
            for (int j = 0; j < outcount; j++) {
                int i = indices[j];
                if (i < 0 || i >= nmsg || done[i]) {
                    DFCT_CHECK(0, "Testsome: bad or repeated index %d", i);
                    continue;
                }
                DFCT_CHECK(reqs[i] == DFC_REQUEST_NULL, "Testsome did not null request %d", i);
                done[i] = 1;
                ncompleted++;
                if (msgs[i].recv) check_recv(&msgs[i], &sts[j], round, names[method]);
            }
        }
        break;
    }
    DFCT_CHECK(ncompleted == nmsg, "%s round %d: %d of %d completed", names[method], round,
               ncompleted, nmsg);
    for (int i = 0; i < nmsg; i++)
        DFCT_CHECK(reqs[i] == DFC_REQUEST_NULL, "%s round %d: request %d not null", names[method],
                   round, i);
    for (int i = 0; i < nmsg; i++) free(msgs[i].buf);
    free(msgs), free(reqs), free(sts), free(indices), free(done);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    for (int round = 0; round < 8; round++) run_round(round, round % 4);
    return dfct_finalize();
}
