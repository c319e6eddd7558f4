/*
 * disconnect - DFC_Comm_get_parent and DFC_Comm_disconnect (issue 21).
 *
 * get_parent gives DFC_COMM_NULL (no process is spawned). disconnect of a dup, a split and
 * an intercommunicator (two halves of WORLD; skipped on one process) while nonblocking
 * sends and receives are pending on it, posted before the call with fresh data: small
 * (eager) and 1 MiB (rendezvous) messages, a send the sender freed with Request_free, a
 * receive whose sender posts only after a pause (so it is still pending on entry), and an
 * Iallreduce. Each receive buffer is poisoned, then checked element by element right after
 * disconnect returned, before any other call could make progress: disconnect must have
 * completed them. Then: the handle is DFC_COMM_NULL, the old handle is invalid, the
 * requests are complete (Waitall gives the right sources and counts), and the attribute's
 * delete callback ran once. Bad input under DFC_ERRORS_RETURN: WORLD, SELF, COMM_NULL, a
 * freed handle (DFC_ERR_COMM), NULL pointers (DFC_ERR_ARG), each naming the function.
 * Argument -n=N repeats the three cases N times (default 2). -before calls Comm_get_parent
 * before DFC_Init, -after calls Comm_disconnect after DFC_Finalize: both must end the process
 * with a fatal message naming the function (testlist checks the line and the exit status).
 */
#include <unistd.h>

#include "../dfctest.h"

#define SMALL 16
#define LARGE (256 * 1024) /* ints: 1 MiB, above every transport's eager limit */
#define MAXREQ 64

static int wrank, wsize, deletes;

static int count_delete(DFC_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    deletes++;
    return DFC_SUCCESS;
}

/* The value element i of a message from world rank src with tag t carries, in round it. */
static int value(int it, int src, int t, int i)
{
    return it * 1000003 + src * 7919 + t * 104729 + i;
}

typedef struct {
    DFC_Request req[MAXREQ];
    int nreq;
    int *rbuf[MAXREQ], *sbuf[MAXREQ];
    int rlen[MAXREQ], rsrc[MAXREQ], rsrc_world[MAXREQ], rtag[MAXREQ], is_recv[MAXREQ];
} pending_t;

static void post_recv(pending_t *p, DFC_Comm c, int len, int src, int src_world, int tag)
{
    int k = p->nreq++;
    p->rbuf[k] = malloc(len * sizeof(int));
    for (int i = 0; i < len; i++) p->rbuf[k][i] = -1; /* poison */
    p->rlen[k] = len, p->rsrc[k] = src, p->rsrc_world[k] = src_world, p->rtag[k] = tag;
    p->is_recv[k] = 1;
    p->sbuf[k] = NULL;
    DFCT_OK(DFC_Irecv(p->rbuf[k], len, DFC_INT, src, tag, c, &p->req[k]));
}

/* freed: the send's request is freed at once (Request_free); its buffer lives to the end. */
static void post_send(pending_t *p, DFC_Comm c, int it, int len, int dst, int tag, int freed)
{
    int k = p->nreq++;
    p->sbuf[k] = malloc(len * sizeof(int));
    for (int i = 0; i < len; i++) p->sbuf[k][i] = value(it, wrank, tag, i);
    p->rbuf[k] = NULL;
    p->is_recv[k] = 0;
    DFCT_OK(DFC_Isend(p->sbuf[k], len, DFC_INT, dst, tag, c, &p->req[k]));
    if (freed) DFCT_OK(DFC_Request_free(&p->req[k]));
}

/* Checks every receive's data (right after disconnect), then the requests themselves. */
static void check_done(pending_t *p, int it, const char *what)
{
    for (int k = 0; k < p->nreq; k++) {
        if (!p->is_recv[k]) continue;
        int bad = -1;
        for (int i = 0; i < p->rlen[k] && bad < 0; i++)
            if (p->rbuf[k][i] != value(it, p->rsrc_world[k], p->rtag[k], i)) bad = i;
        DFCT_CHECK(bad < 0,
                   "%s round %d: receive %d (tag %d from world %d) element %d is %d, "
                   "expected %d: not complete when disconnect returned",
                   what, it, k, p->rtag[k], p->rsrc_world[k], bad, bad < 0 ? 0 : p->rbuf[k][bad],
                   bad < 0 ? 0 : value(it, p->rsrc_world[k], p->rtag[k], bad));
    }
    for (int k = 0; k < p->nreq; k++) {
        DFC_Status st;
        int flag = 0;
        if (p->req[k] == DFC_REQUEST_NULL) continue; /* freed by Request_free */
        DFCT_OK(DFC_Request_get_status(p->req[k], &flag, &st));
        DFCT_CHECK(flag, "%s round %d: request %d not complete after disconnect", what, it, k);
        DFCT_OK(DFC_Wait(&p->req[k], &st));
        if (p->is_recv[k]) {
            int n = -1;
            DFC_Get_count(&st, DFC_INT, &n);
            DFCT_CHECK(
                st.DFC_SOURCE == p->rsrc[k] && st.DFC_TAG == p->rtag[k] && n == p->rlen[k],
                "%s round %d: receive %d status source %d tag %d count %d, expected %d %d %d", what,
                it, k, st.DFC_SOURCE, st.DFC_TAG, n, p->rsrc[k], p->rtag[k], p->rlen[k]);
        }
    }
    for (int k = 0; k < p->nreq; k++) free(p->is_recv[k] ? p->rbuf[k] : p->sbuf[k]);
    p->nreq = 0;
}

/* Disconnects c (which carries an attribute with a counting delete callback) and checks the
 * handle: DFC_COMM_NULL, and the old value no longer a communicator. */
static void disconnect_and_check(DFC_Comm *c, const char *what)
{
    DFC_Comm old = *c;
    int before = deletes, sz = -1;
    DFCT_OK(DFC_Comm_disconnect(c));
    DFCT_CHECK(*c == DFC_COMM_NULL, "%s: handle is 0x%x after disconnect", what, (unsigned)*c);
    DFCT_CHECK(deletes == before + 1, "%s: delete callback ran %d times", what, deletes - before);
    DFCT_FAILS(DFC_Comm_size(old, &sz), DFC_ERR_COMM, "not a valid communicator");
}

/* A ring on intracommunicator c: each rank receives from its left neighbour a small and a
 * large message, the small one late when `late` (the sender waits before posting it), and
 * a third message the sender frees with Request_free; plus a pending Iallreduce. */
static void ring_case(DFC_Comm c, int keyval, int it, const char *what)
{
    int r, n, wl;
    pending_t p = {.nreq = 0};
    DFC_Comm_rank(c, &r);
    DFC_Comm_size(c, &n);
    int right = (r + 1) % n, left = (r + n - 1) % n;
    DFC_Group g, wg;
    DFC_Comm_group(c, &g);
    DFC_Comm_group(DFC_COMM_WORLD, &wg);
    DFC_Group_translate_ranks(g, 1, &left, wg, &wl);
    DFC_Group_free(&g);
    DFC_Group_free(&wg);
    DFCT_OK(DFC_Comm_set_attr(c, keyval, NULL));
    post_recv(&p, c, SMALL, left, wl, 1);
    post_recv(&p, c, LARGE, left, wl, 2);
    post_recv(&p, c, SMALL, left, wl, 3);
    int in = value(it, wrank, 0, 0), sum = -1, want = 0;
    for (int i = 0; i < n; i++) {
        int w;
        DFC_Comm_group(c, &g);
        DFC_Comm_group(DFC_COMM_WORLD, &wg);
        DFC_Group_translate_ranks(g, 1, &i, wg, &w);
        DFC_Group_free(&g);
        DFC_Group_free(&wg);
        want += value(it, w, 0, 0);
    }
    DFC_Request ar;
    DFCT_OK(DFC_Iallreduce(&in, &sum, 1, DFC_INT, DFC_SUM, c, &ar));
    post_send(&p, c, it, LARGE, right, 2, 0);
    post_send(&p, c, it, SMALL, right, 3, 1);
    if (r == 0) usleep(20000); /* rank 1 enters disconnect with its tag-1 receive pending */
    post_send(&p, c, it, SMALL, right, 1, 0);
    disconnect_and_check(&c, what);
    DFCT_CHECK(sum == want, "%s round %d: Iallreduce gave %d, expected %d", what, it, sum, want);
    DFCT_OK(DFC_Wait(&ar, DFC_STATUS_IGNORE));
    check_done(&p, it, what);
}

/* WORLD's two halves joined by an intercommunicator: every process sends a small and a large
 * message to every remote process and receives the same from each. */
static void inter_case(int keyval, int it)
{
    int half = wsize / 2, low = wrank < half, lr, rn;
    DFC_Comm local, inter;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, low, wrank, &local));
    DFCT_OK(DFC_Intercomm_create(local, 0, DFC_COMM_WORLD, low ? half : 0, 77, &inter));
    DFC_Comm_rank(inter, &lr);
    DFC_Comm_remote_size(inter, &rn);
    DFCT_OK(DFC_Comm_set_attr(inter, keyval, NULL));
    pending_t p = {.nreq = 0};
    for (int q = 0; q < rn && p.nreq + 4 <= MAXREQ; q++) {
        int qw = low ? half + q : q;
        post_recv(&p, inter, SMALL, q, qw, 10);
        post_recv(&p, inter, LARGE, q, qw, 11);
    }
    if (lr == 0 && !low) usleep(20000); /* the low half waits for these in disconnect */
    for (int q = 0; q < rn && p.nreq + 2 <= MAXREQ; q++) {
        post_send(&p, inter, it, LARGE, q, 11, 0);
        post_send(&p, inter, it, SMALL, q, 10, q % 2);
    }
    disconnect_and_check(&inter, "intercomm");
    check_done(&p, it, "intercomm");
    DFCT_OK(DFC_Comm_free(&local));
}

static void bad_input(void)
{
    DFC_Comm c = DFC_COMM_WORLD, d;
    DFCT_FAILS(DFC_Comm_disconnect(&c), DFC_ERR_COMM, "DFC_Comm_disconnect");
    DFCT_FAILS(DFC_Comm_disconnect(&c), DFC_ERR_COMM, "cannot be disconnected");
    DFCT_CHECK(c == DFC_COMM_WORLD, "a refused disconnect changed the WORLD handle");
    c = DFC_COMM_SELF;
    DFCT_FAILS(DFC_Comm_disconnect(&c), DFC_ERR_COMM, "cannot be disconnected");
    DFCT_CHECK(c == DFC_COMM_SELF, "a refused disconnect changed the SELF handle");
    c = DFC_COMM_NULL;
    DFCT_FAILS(DFC_Comm_disconnect(&c), DFC_ERR_COMM, "DFC_COMM_NULL");
    DFCT_FAILS(DFC_Comm_disconnect(NULL), DFC_ERR_ARG, "DFC_Comm_disconnect");
    DFCT_FAILS(DFC_Comm_disconnect(NULL), DFC_ERR_ARG, "comm");
    DFCT_FAILS(DFC_Comm_get_parent(NULL), DFC_ERR_ARG, "DFC_Comm_get_parent");
    DFCT_FAILS(DFC_Comm_get_parent(NULL), DFC_ERR_ARG, "parent");
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &c));
    d = c;
    DFCT_OK(DFC_Comm_free(&c));
    DFCT_FAILS(DFC_Comm_disconnect(&d), DFC_ERR_COMM, "not a valid communicator");
    /* WORLD still works after the refusals. */
    int one = 1, sum = 0;
    DFCT_OK(DFC_Allreduce(&one, &sum, 1, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
    DFCT_CHECK(sum == wsize, "Allreduce on WORLD after the refusals gave %d", sum);
}

int main(int argc, char **argv)
{
    int rounds = 2, keyval;
    DFC_Comm parent = (DFC_Comm)12345;
    if (argc > 1 && !strcmp(argv[1], "-before")) {
        DFC_Comm_get_parent(&parent); /* aborts */
        fprintf(stderr, "Comm_get_parent before DFC_Init returned\n");
        return 0; /* exit status 0: the runner's exitStatus=nonzero fails the test */
    }
    if (argc > 1 && !strcmp(argv[1], "-after")) {
        DFC_Init(&argc, &argv);
        DFC_Comm c = DFC_COMM_SELF;
        DFC_Comm_dup(DFC_COMM_SELF, &c);
        DFC_Finalize();
        DFC_Comm_disconnect(&c); /* aborts */
        fprintf(stderr, "Comm_disconnect after DFC_Finalize returned\n");
        return 0;
    }
    dfct_init(&argc, &argv);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "-n=", 3)) rounds = atoi(argv[i] + 3);
    DFC_Comm_rank(DFC_COMM_WORLD, &wrank);
    DFC_Comm_size(DFC_COMM_WORLD, &wsize);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFC_Comm_set_errhandler(DFC_COMM_SELF, DFC_ERRORS_RETURN);

    DFCT_OK(DFC_Comm_get_parent(&parent));
    DFCT_CHECK(parent == DFC_COMM_NULL, "Comm_get_parent gave 0x%x", (unsigned)parent);
    bad_input();

    DFCT_OK(DFC_Comm_create_keyval(DFC_COMM_NULL_COPY_FN, count_delete, &keyval, NULL));
    for (int it = 0; it < rounds; it++) {
        DFC_Comm c;
        DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &c));
        ring_case(c, keyval, it, "dup");
        DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, wrank % 2, wsize - wrank, &c));
        ring_case(c, keyval, it, "split");
        if (wsize >= 2) inter_case(keyval, it);
    }
    DFCT_OK(DFC_Comm_free_keyval(&keyval));
    DFCT_OK(DFC_Comm_get_parent(&parent));
    DFCT_CHECK(parent == DFC_COMM_NULL, "Comm_get_parent gave 0x%x at the end", (unsigned)parent);
    return dfct_finalize();
}
