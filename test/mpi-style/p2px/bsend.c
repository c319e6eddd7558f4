/*
 * bsend - buffered sends (MPI-4.1 3.6): Bsend, Ibsend, Bsend_init, Buffer_attach/detach,
 * Buffer_flush/iflush, the per-communicator buffers (Comm_attach_buffer, _detach_buffer,
 * _flush_buffer, _iflush_buffer) and DFC_BUFFER_AUTOMATIC.
 *
 * Exhaustion: rank 0 fills a buffer sized for K rendezvous messages (their space stays
 * taken until rank 1 receives them, which it does only after a go-ahead), so the (K+1)-th
 * Bsend fails with DFC_ERR_BUFFER and a message that says why; then every one of the K
 * messages arrives intact, the failed one never arrives, and after a flush the buffer
 * takes messages again. Every message's content is checked element by element; the user's
 * buffer is overwritten right after each buffered send returns.
 */
#include "../dfctest.h"

/* ints: above every eager limit (with fewer, the messages went eagerly over ofi and the
 * (K+1)-th Bsend found room), so the space stays taken until received */
#define BIG (DFCT_ABOVE_EAGER_BYTES / 4)
#define K 3

static int rank, size;
static DFC_Comm side; /* for go-aheads, apart from the tested traffic */

static void go(int to) { DFCT_OK(DFC_Send(NULL, 0, DFC_BYTE, to, 99, side)); }
static void wait_go(int from)
{
    DFCT_OK(DFC_Recv(NULL, 0, DFC_BYTE, from, 99, side, DFC_STATUS_IGNORE));
}

static void fill(int *b, int n, int seed)
{
    for (int k = 0; k < n; k++) b[k] = seed * 100000 + k;
}

static void recv_check(int n, int seed, int from, int tag, DFC_Comm comm)
{
    int *b = malloc((n + 1) * sizeof(int)), bad = 0, count = -1;
    DFC_Status st;
    for (int k = 0; k <= n; k++) b[k] = -1;
    DFCT_OK(DFC_Recv(b, n + 1, DFC_INT, from, tag, comm, &st));
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
    DFCT_CHECK(count == n, "tag %d: %d ints, expected %d", tag, count, n);
    for (int k = 0; k < n; k++)
        if (b[k] != seed * 100000 + k && bad++ < 3)
            DFCT_CHECK(0, "tag %d element %d: %d, expected %d", tag, k, b[k], seed * 100000 + k);
    free(b);
}

static void exhaustion(void)
{
    int sz = K * (BIG * (int)sizeof(int) + DFC_BSEND_OVERHEAD), *buf = malloc(BIG * sizeof(int));
    char *mem = malloc(sz);
    void *addr = NULL;
    int got = -1;
    if (rank == 0) {
        DFCT_OK(DFC_Buffer_attach(mem, sz));
        DFCT_FAILS(DFC_Buffer_attach(mem, sz), DFC_ERR_BUFFER, "already attached");
        for (int i = 0; i < K; i++) {
            fill(buf, BIG, i + 1);
            DFCT_OK(DFC_Bsend(buf, BIG, DFC_INT, 1, 10 + i, DFC_COMM_WORLD));
            fill(buf, BIG, 77); /* the copy was taken: the user's buffer is free */
        }
        fill(buf, BIG, 9);
        DFCT_FAILS(DFC_Bsend(buf, BIG, DFC_INT, 1, 20, DFC_COMM_WORLD), DFC_ERR_BUFFER,
                   "DFC_Bsend");
        DFCT_FAILS(DFC_Bsend(buf, BIG, DFC_INT, 1, 20, DFC_COMM_WORLD), DFC_ERR_BUFFER, "no room");
        DFC_Request r;
        DFCT_FAILS(DFC_Ibsend(buf, BIG, DFC_INT, 1, 20, DFC_COMM_WORLD, &r), DFC_ERR_BUFFER,
                   "nothing was sent");
        go(1);
        DFCT_OK(DFC_Buffer_flush()); /* returns once rank 1 took all K */
        fill(buf, BIG, 5);
        DFCT_OK(DFC_Bsend(buf, BIG, DFC_INT, 1, 21, DFC_COMM_WORLD)); /* room again */
        DFCT_OK(DFC_Buffer_detach(&addr, &got));
        DFCT_CHECK(addr == mem && got == sz, "detach gave %p/%d, attached %p/%d", addr, got,
                   (void *)mem, sz);
    } else if (rank == 1) {
        wait_go(0);
        for (int i = 0; i < K; i++) recv_check(BIG, i + 1, 0, 10 + i, DFC_COMM_WORLD);
        recv_check(BIG, 5, 0, 21, DFC_COMM_WORLD);
        int flag = 1;
        DFCT_OK(DFC_Iprobe(0, 20, DFC_COMM_WORLD, &flag, DFC_STATUS_IGNORE));
        DFCT_CHECK(!flag, "the refused message arrived");
    }
    free(mem);
    free(buf);
}

/* Ibsend, Bsend_init and a nonblocking flush, small and large, through the process buffer. */
static void nonblocking(void)
{
    int sz = 8 * (BIG * (int)sizeof(int) + DFC_BSEND_OVERHEAD), got, *buf = malloc(BIG * 4);
    char *mem = malloc(sz);
    void *addr;
    DFC_Request r, p;
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    DFCT_OK(DFC_Buffer_attach(mem, sz));
    fill(buf, BIG, 31);
    DFCT_OK(DFC_Ibsend(buf, BIG, DFC_INT, to, 30, DFC_COMM_WORLD, &r));
    fill(buf, 5, 32);
    int flag = 0;
    DFCT_OK(DFC_Test(&r, &flag, DFC_STATUS_IGNORE));
    DFCT_CHECK(flag, "an Ibsend is complete once the data is copied");
    DFCT_OK(DFC_Ibsend(buf, 5, DFC_INT, to, 31, DFC_COMM_WORLD, &r));
    fill(buf, BIG, 0);
    DFCT_OK(DFC_Wait(&r, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Bsend_init(buf, BIG, DFC_INT, to, 32, DFC_COMM_WORLD, &p));
    for (int i = 0; i < 3; i++) {
        fill(buf, BIG, 40 + i); /* each Start sends the buffer as it is then */
        DFCT_OK(DFC_Start(&p));
        DFCT_OK(DFC_Wait(&p, DFC_STATUS_IGNORE));
    }
    DFCT_OK(DFC_Request_free(&p));
    DFCT_OK(DFC_Buffer_iflush(&r));
    recv_check(BIG, 31, from, 30, DFC_COMM_WORLD);
    recv_check(5, 32, from, 31, DFC_COMM_WORLD);
    for (int i = 0; i < 3; i++) recv_check(BIG, 40 + i, from, 32, DFC_COMM_WORLD);
    DFCT_OK(DFC_Wait(&r, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Buffer_detach(&addr, &got));
    DFCT_CHECK(addr == mem && got == sz, "detach gave %p/%d", addr, got);
    free(mem);
    free(buf);
}

/* A communicator's buffer is used before the process's (here: none attached). */
static void comm_buffer(void)
{
    DFC_Comm c;
    int sz = 2 * (BIG * 4 + DFC_BSEND_OVERHEAD), got, *buf = malloc(BIG * 4);
    char *mem = malloc(sz);
    void *addr;
    DFC_Request r;
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &c));
    DFCT_FAILS(DFC_Bsend(buf, 1, DFC_INT, to, 1, c), DFC_ERR_BUFFER, "no buffer is attached");
    DFCT_OK(DFC_Comm_attach_buffer(c, mem, sz));
    DFCT_FAILS(DFC_Comm_attach_buffer(c, mem, sz), DFC_ERR_BUFFER, "already attached");
    DFCT_FAILS(DFC_Bsend(buf, 1, DFC_INT, to, 1, DFC_COMM_WORLD), DFC_ERR_BUFFER, "no buffer");
    fill(buf, BIG, 50);
    DFCT_OK(DFC_Bsend(buf, BIG, DFC_INT, to, 1, c));
    fill(buf, BIG, 51);
    DFCT_OK(DFC_Bsend(buf, BIG, DFC_INT, to, 2, c));
    DFCT_OK(DFC_Comm_iflush_buffer(c, &r));
    recv_check(BIG, 50, from, 1, c);
    recv_check(BIG, 51, from, 2, c);
    DFCT_OK(DFC_Wait(&r, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Comm_flush_buffer(c));
    DFCT_OK(DFC_Comm_detach_buffer(c, &addr, &got));
    DFCT_CHECK(addr == mem && got == sz, "Comm_detach_buffer gave %p/%d", addr, got);
    DFCT_OK(DFC_Comm_free(&c));
    free(mem);
    free(buf);
}

static void automatic(void)
{
    int buf[100], got = -1;
    void *addr = NULL;
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    DFCT_OK(DFC_Buffer_attach(DFC_BUFFER_AUTOMATIC, 0));
    for (int i = 0; i < 20; i++) {
        fill(buf, 100, 60 + i);
        DFCT_OK(DFC_Bsend(buf, 100, DFC_INT, to, 60 + i, DFC_COMM_WORLD));
    }
    for (int i = 0; i < 20; i++) recv_check(100, 60 + i, from, 60 + i, DFC_COMM_WORLD);
    DFCT_OK(DFC_Buffer_detach(&addr, &got));
    DFCT_CHECK(addr == DFC_BUFFER_AUTOMATIC, "detach of DFC_BUFFER_AUTOMATIC gave %p", addr);
}

static void bad_args(void)
{
    int x = 0, got = 5;
    void *addr = &x;
    DFCT_FAILS(DFC_Buffer_attach(&x, -1), DFC_ERR_ARG, "size");
    DFCT_FAILS(DFC_Buffer_attach(NULL, 10), DFC_ERR_BUFFER, "DFC_Buffer_attach");
    DFCT_FAILS(DFC_Buffer_detach(NULL, &got), DFC_ERR_ARG, "buffer_addr");
    DFCT_FAILS(DFC_Comm_attach_buffer(DFC_COMM_NULL, &x, 4), DFC_ERR_COMM, "comm");
    DFCT_FAILS(DFC_Bsend(&x, 1, DFC_INT, size, 0, DFC_COMM_WORLD), DFC_ERR_RANK, "dest");
    DFCT_FAILS(DFC_Ibsend(&x, 1, DFC_INT, 0, 0, DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "request");
    DFCT_OK(DFC_Buffer_detach(&addr, &got)); /* nothing attached: NULL and 0, as MPICH */
    DFCT_CHECK(addr == NULL && got == 0, "detach without a buffer: %p/%d", addr, got);
    DFCT_OK(DFC_Bsend(&x, 1, DFC_INT, DFC_PROC_NULL, 0, DFC_COMM_WORLD));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &side));
    bad_args();
    if (size > 1) exhaustion();
    nonblocking();
    comm_buffer();
    automatic();
    DFCT_OK(DFC_Comm_free(&side));
    return dfct_finalize();
}
