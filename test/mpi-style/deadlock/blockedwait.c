/*
 * blockedwait - a rank blocked in a DFC call on one thing while its peers need it to
 * progress another first. Each scenario hangs under an implementation that progresses only
 * what the caller waits for (or runs collectives one at a time in initiation order, as a
 * single NCCL stream does), and must complete in DFC, where every blocking call drives all
 * outstanding work. Results are checked. -iters=N repeats everything with other sizes
 * (default 2); -watchdog=S.
 *
 *  crossed   even ranks start Iallreduce on A then B and wait for B first; odd ranks
 *            start B then A and wait for A first.
 *  p2p       rank 0 starts Y, then blocks in Waitall on receives that the others send only
 *            after their Y completed (which needs rank 0's part of Y).
 *  recv      the same with a blocking DFC_Recv, and with DFC_Probe.
 *  blocking  rank 0 starts Y, then enters a blocking Allreduce on B that the others enter
 *            only after their Y completed.
 *  persist   persistent Y started, then Waitany/Waitsome on receives that depend on Y.
 *  chain     every rank r > 0 blocks in Recv from r - 1, which sends only after its Y
 *            completed: all of Y's progress happens inside blocking receives.
 *  stuckhead rank 0 starts Z (on H) that the others start only after W (on L) completed,
 *            then W, and waits for W: Z sits first in rank 0's queue, stuck, and must not
 *            keep W from running.
 * prioritydl.c compiles this file with DL_PRIORITY: the same scenarios with priorities set
 * on the communicators (dfc_priority info through DFC_Comm_dup_with_info, crossed so that
 * what a peer needs first is sometimes the lower priority) and on persistent _init calls.
 */
#include "dltest.h"

#ifndef DL_PRIORITY
#define DL_PRIORITY 0
#endif
#define TEST_NAME (DL_PRIORITY ? "prioritydl" : "blockedwait")

static DFC_Comm A, B, H, L;
static int rank, size;

static DFC_Comm dup_prio(int prio)
{
    DFC_Comm c;
    if (!DL_PRIORITY) {
        DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &c));
        return c;
    }
    DFC_Info info;
    char v[16];
    snprintf(v, sizeof v, "%d", prio);
    DFCT_OK(DFC_Info_create(&info));
    DFCT_OK(DFC_Info_set(info, "dfc_priority", v));
    DFCT_OK(DFC_Comm_dup_with_info(DFC_COMM_WORLD, info, &c));
    DFCT_OK(DFC_Info_free(&info));
    return c;
}

/* A buffer pair for one allreduce: inputs depend on (rank, salt). */
typedef struct buf {
    float *s, *r;
    int n, salt;
} buf_t;

static buf_t mkbuf(int n, int salt)
{
    buf_t b = {ct_malloc(n * sizeof(float)), ct_malloc(n * sizeof(float)), n, salt};
    for (int i = 0; i < n; i++) b.s[i] = (float)((rank + salt + i) % 13);
    memset(b.r, 0xff, n * sizeof(float));
    return b;
}
static void check(const buf_t *b, const char *what)
{
    for (int i = 0; i < b->n; i++) {
        int e = 0;
        for (int q = 0; q < size; q++) e += (q + b->salt + i) % 13;
        if (b->r[i] != (float)e) {
            DFCT_CHECK(0, "%s: element %d of %d is %g, expected %d", what, i, b->n, (double)b->r[i],
                       e);
            break;
        }
    }
}
/* Checks the result, then frees the buffers. */
static void chkbuf(buf_t *b, const char *what)
{
    check(b, what);
    free(b->s), free(b->r);
}
static void iallreduce(buf_t *b, DFC_Comm c, DFC_Request *q)
{
    DFCT_OK(DFC_Iallreduce(b->s, b->r, b->n, DFC_FLOAT, DFC_SUM, c, q));
}

static void crossed(int n, int salt)
{
    dl_phase("crossed");
    buf_t a = mkbuf(n, salt), b = mkbuf(n, salt + 1);
    DFC_Request ra, rb;
    if (rank % 2 == 0) {
        iallreduce(&a, A, &ra);
        iallreduce(&b, B, &rb);
        DFCT_OK(DFC_Wait(&rb, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Wait(&ra, DFC_STATUS_IGNORE));
    } else {
        iallreduce(&b, B, &rb);
        iallreduce(&a, A, &ra);
        DFCT_OK(DFC_Wait(&ra, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Wait(&rb, DFC_STATUS_IGNORE));
    }
    chkbuf(&a, "crossed: allreduce on A");
    chkbuf(&b, "crossed: allreduce on B");
}

/* how: 0 Waitall on Irecvs, 1 blocking Recv, 2 Probe then Recv */
static void p2p(int n, int salt, int how)
{
    dl_phase(how == 0 ? "p2p" : how == 1 ? "recv" : "probe");
    buf_t y = mkbuf(n, salt);
    DFC_Request ry;
    int tag = 500 + how;
    iallreduce(&y, A, &ry);
    if (rank == 0) {
        int *tok = ct_malloc(size * sizeof(int));
        DFC_Request *rr = ct_malloc(size * sizeof *rr);
        for (int p = 1; p < size; p++) {
            tok[p] = -1;
            if (how == 0) DFCT_OK(DFC_Irecv(&tok[p], 1, DFC_INT, p, tag, B, &rr[p - 1]));
        }
        for (int p = 1; p < size; p++) {
            if (how == 2) {
                DFC_Status st;
                DFCT_OK(DFC_Probe(DFC_ANY_SOURCE, tag, B, &st));
                DFCT_OK(DFC_Recv(&tok[st.DFC_SOURCE], 1, DFC_INT, st.DFC_SOURCE, tag, B,
                                 DFC_STATUS_IGNORE));
            } else if (how == 1) {
                DFCT_OK(DFC_Recv(&tok[p], 1, DFC_INT, p, tag, B, DFC_STATUS_IGNORE));
            }
        }
        if (how == 0) DFCT_OK(DFC_Waitall(size - 1, rr, DFC_STATUSES_IGNORE));
        for (int p = 1; p < size; p++)
            DFCT_CHECK(tok[p] == p * 10 + how, "p2p: token from %d is %d", p, tok[p]);
        DFCT_OK(DFC_Wait(&ry, DFC_STATUS_IGNORE));
        free(tok), free(rr);
    } else {
        DFCT_OK(DFC_Wait(&ry, DFC_STATUS_IGNORE));
        int tok = rank * 10 + how;
        DFCT_OK(DFC_Send(&tok, 1, DFC_INT, 0, tag, B));
    }
    chkbuf(&y, "p2p: allreduce Y");
}

static void blocking(int n, int salt)
{
    dl_phase("blocking");
    buf_t y = mkbuf(n, salt), z = mkbuf(3, salt + 2);
    DFC_Request ry;
    iallreduce(&y, A, &ry);
    if (rank == 0) {
        DFCT_OK(DFC_Allreduce(z.s, z.r, 3, DFC_FLOAT, DFC_SUM, B));
        DFCT_OK(DFC_Wait(&ry, DFC_STATUS_IGNORE));
    } else {
        DFCT_OK(DFC_Wait(&ry, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Allreduce(z.s, z.r, 3, DFC_FLOAT, DFC_SUM, B));
    }
    chkbuf(&y, "blocking: allreduce Y");
    chkbuf(&z, "blocking: blocking allreduce on B");
}

static void persist(int n, int salt)
{
    dl_phase("persist");
    buf_t y = mkbuf(n, salt);
    DFC_Request ry;
    DFC_Info info = DFC_INFO_NULL;
    if (DL_PRIORITY) {
        DFCT_OK(DFC_Info_create(&info));
        DFCT_OK(DFC_Info_set(info, "dfc_priority", salt % 2 ? "-5" : "20"));
    }
    DFCT_OK(DFC_Allreduce_init(y.s, y.r, n, DFC_FLOAT, DFC_SUM, A, info, &ry));
    if (info != DFC_INFO_NULL) DFCT_OK(DFC_Info_free(&info));
    for (int round = 0; round < 2; round++) {
        memset(y.r, 0xff, n * sizeof(float));
        DFCT_OK(DFC_Start(&ry));
        int tag = 600 + round;
        if (rank == 0) {
            int *tok = ct_malloc(size * sizeof(int)), *idx = ct_malloc(size * sizeof(int));
            DFC_Request *rr = ct_malloc(size * sizeof *rr);
            for (int p = 1; p < size; p++)
                DFCT_OK(DFC_Irecv(&tok[p], 1, DFC_INT, p, tag, B, &rr[p - 1]));
            int left = size - 1;
            while (left > 0) {
                if (round == 0) {
                    int index;
                    DFCT_OK(DFC_Waitany(size - 1, rr, &index, DFC_STATUS_IGNORE));
                    left--;
                } else {
                    int outc;
                    DFCT_OK(DFC_Waitsome(size - 1, rr, &outc, idx, DFC_STATUSES_IGNORE));
                    left -= outc;
                }
            }
            for (int p = 1; p < size; p++)
                DFCT_CHECK(tok[p] == p + round, "persist: token from %d is %d", p, tok[p]);
            DFCT_OK(DFC_Wait(&ry, DFC_STATUS_IGNORE));
            free(tok), free(idx), free(rr);
        } else {
            DFCT_OK(DFC_Wait(&ry, DFC_STATUS_IGNORE));
            int tok = rank + round;
            DFCT_OK(DFC_Send(&tok, 1, DFC_INT, 0, tag, B));
        }
        check(&y, "persist: persistent allreduce Y");
    }
    DFCT_OK(DFC_Request_free(&ry));
    free(y.s), free(y.r);
}

static void chain(int n, int salt)
{
    dl_phase("chain");
    buf_t y = mkbuf(n, salt);
    DFC_Request ry;
    iallreduce(&y, A, &ry);
    int tok = -1;
    if (rank > 0) {
        DFCT_OK(DFC_Recv(&tok, 1, DFC_INT, rank - 1, 700, B, DFC_STATUS_IGNORE));
        DFCT_CHECK(tok == rank - 1, "chain: token %d from %d", tok, rank - 1);
    }
    DFCT_OK(DFC_Wait(&ry, DFC_STATUS_IGNORE));
    tok = rank;
    if (rank + 1 < size) DFCT_OK(DFC_Send(&tok, 1, DFC_INT, rank + 1, 700, B));
    chkbuf(&y, "chain: allreduce Y");
}

static void stuckhead(int n, int salt)
{
    dl_phase("stuckhead");
    buf_t z = mkbuf(n, salt), w = mkbuf(n, salt + 3);
    DFC_Request rz, rw;
    if (rank == 0) {
        iallreduce(&z, H, &rz);
        iallreduce(&w, L, &rw);
        DFCT_OK(DFC_Wait(&rw, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Wait(&rz, DFC_STATUS_IGNORE));
    } else {
        iallreduce(&w, L, &rw);
        DFCT_OK(DFC_Wait(&rw, DFC_STATUS_IGNORE));
        iallreduce(&z, H, &rz);
        DFCT_OK(DFC_Wait(&rz, DFC_STATUS_IGNORE));
    }
    chkbuf(&z, "stuckhead: allreduce Z on H");
    chkbuf(&w, "stuckhead: allreduce W on L");
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    dl_watchdog(argc, argv, TEST_NAME);
    rank = ct_rank, size = ct_size;
    int iters = (int)ct_opt(argc, argv, "iters", 2);
    A = dup_prio(0);
    B = dup_prio(10);  /* the peers' messages come on the higher priority */
    H = dup_prio(100); /* the stuck head has the highest priority */
    L = dup_prio(-100);
    static const int sizes[] = {1 << 18, 16, 30000, 1};
    for (int it = 0; it < iters; it++) {
        int n = sizes[it % 4];
        crossed(n, it);
        for (int how = 0; how < 3; how++) p2p(n, it + how, how);
        blocking(n, it);
        persist(n, it);
        chain(n, it);
        stuckhead(n, it);
    }
    if (DL_PRIORITY) { /* the same with the priorities the other way round */
        DFC_Comm t = A;
        A = B, B = t;
        t = H, H = L, L = t;
        crossed(1 << 16, 7);
        p2p(1 << 16, 8, 0);
        blocking(1 << 16, 9);
        chain(1 << 16, 10);
        stuckhead(1 << 16, 11);
    }
    dl_phase("finalize");
    DFCT_OK(DFC_Comm_free(&A));
    DFCT_OK(DFC_Comm_free(&B));
    DFCT_OK(DFC_Comm_free(&H));
    DFCT_OK(DFC_Comm_free(&L));
    dl_watchdog_off();
    return dfct_finalize();
}
