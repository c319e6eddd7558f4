/*
 * slowreader - a live receiver that stops reading is not a failed one (issue 25, item 2).
 *
 * Rank 0 sends 256 MiB to rank 1. Rank 1 posts the receive, lets the transfer start, then
 * computes for 3 x DFC_FAULT_TIMEOUT seconds without calling DFC: its socket's receive
 * window closes and rank 0's kernel probes a zero window all that time. Failure detection
 * must not mistake that for a lost peer (TCP_USER_TIMEOUT did: both ranks got
 * DFC_ERR_PROC_FAILED after DFC_FAULT_TIMEOUT). Then the receive completes without error
 * and every byte is checked; rank 0's send completes without error as well.
 * The testlist runs it with DFC_TRANSPORT=tcp and a small DFC_FAULT_TIMEOUT, and over the
 * transport its mode chooses with -compute=S seconds (the ofi transport once failed a peer
 * silent for 4 x DFC_FAULT_TIMEOUT; issue 18).
 * -sender: the roles turn: rank 0 starts the send and then computes, rank 1 waits in its
 * receive. Over ofi with FI_RMA rank 1 reads rank 0's buffer, and the provider serves the
 * read only in rank 0's DFC calls: the receiver waits for a live sender, which must not be
 * taken for dead either (the RMA read's wait once had a DFC_FAULT_TIMEOUT of its own).
 */
#include <stdint.h>
#include <time.h>

#include "../dfctest.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned char pattern(size_t i, unsigned seed)
{
    return (unsigned char)((i * 2654435761u + seed) >> 7);
}

static void compute(double seconds) /* without calling DFC */
{
    volatile double x = 0;
    for (double t0 = now(); now() - t0 < seconds;)
        for (int i = 0; i < 100000; i++) x += i * 0.5;
}

static void run_slow_sender(int rank, unsigned char *buf, size_t n, unsigned seed, double secs)
{
    DFC_Request r;
    int go = 1, flag = 0;
    if (rank == 0) {
        for (size_t i = 0; i < n; i++) buf[i] = pattern(i, seed);
        /* Rank 1's receive is posted: it matches the request to send when it arrives. */
        DFCT_OK(DFC_Recv(&go, 1, DFC_INT, 1, 2, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Isend(buf, (int)n, DFC_BYTE, 1, 1, DFC_COMM_WORLD, &r));
        /* 1 ms, not 10: over tcp on one host the receiver may read all 256 MiB by cross-memory
         * attach without this rank, in under 10 ms (CI saw it once); 256 GB/s it cannot do */
        for (double t0 = now(); now() - t0 < 0.001;) DFC_Test(&r, &flag, DFC_STATUS_IGNORE);
        DFCT_CHECK(!flag, "the 256 MiB send completed within 1 ms: nothing was tested");
        compute(secs);
        if (!flag) DFCT_OK(DFC_Wait(&r, DFC_STATUS_IGNORE));
        return;
    }
    memset(buf, 0xa5, n); /* poisoned */
    DFCT_OK(DFC_Irecv(buf, (int)n, DFC_BYTE, 0, 1, DFC_COMM_WORLD, &r));
    DFCT_OK(DFC_Send(&go, 1, DFC_INT, 0, 2, DFC_COMM_WORLD));
    DFC_Status st;
    DFCT_OK(DFC_Wait(&r, &st));
    int count = -1;
    DFC_Get_count(&st, DFC_BYTE, &count);
    DFCT_CHECK(count == (int)n, "received %d bytes, expected %zu", count, n);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] != pattern(i, seed) && bad++ == 0) first = i;
    DFCT_CHECK(bad == 0, "%zu of %zu bytes wrong, first at %zu", bad, n, first);
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)256 << 20;
    int rank, size;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    const char *t = getenv("DFC_FAULT_TIMEOUT");
    double compute_s = 3.0 * (t && atoi(t) > 0 ? atoi(t) : 5);
    int slow_sender = 0;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "-compute=", 9)) compute_s = atof(argv[i] + 9);
        if (!strcmp(argv[i], "-sender")) slow_sender = 1;
    }
    unsigned seed = (unsigned)time(NULL);
    DFCT_OK(DFC_Bcast(&seed, 1, DFC_UNSIGNED, 0, DFC_COMM_WORLD));
    unsigned char *buf = malloc(n);
    DFCT_CHECK(buf != NULL, "out of memory for %zu bytes", n);
    if (buf && slow_sender) {
        run_slow_sender(rank, buf, n, seed, compute_s);
    } else if (buf && rank == 0) {
        DFC_Request r;
        int go = 1;
        for (size_t i = 0; i < n; i++) buf[i] = pattern(i, seed);
        DFCT_OK(DFC_Isend(buf, (int)n, DFC_BYTE, 1, 1, DFC_COMM_WORLD, &r));
        /* Behind the request to send on the same connection: when rank 1 has this, it has
         * answered the request and the data streams. */
        DFCT_OK(DFC_Send(&go, 1, DFC_INT, 1, 2, DFC_COMM_WORLD));
        DFCT_OK(DFC_Wait(&r, DFC_STATUS_IGNORE));
    } else if (buf && rank == 1) {
        memset(buf, 0xa5, n); /* poisoned */
        DFC_Request r;
        int flag = 0, go = 0;
        DFCT_OK(DFC_Irecv(buf, (int)n, DFC_BYTE, 0, 1, DFC_COMM_WORLD, &r));
        DFCT_OK(DFC_Recv(&go, 1, DFC_INT, 0, 2, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        for (double t0 = now(); now() - t0 < 0.01;) DFC_Test(&r, &flag, DFC_STATUS_IGNORE);
        DFCT_CHECK(!flag, "the 256 MiB receive completed within 10 ms: nothing was tested");
        compute(compute_s);
        DFC_Status st;
        DFCT_OK(DFC_Wait(&r, &st));
        int count = -1;
        DFC_Get_count(&st, DFC_BYTE, &count);
        DFCT_CHECK(count == (int)n, "received %d bytes, expected %zu", count, n);
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < n; i++)
            if (buf[i] != pattern(i, seed) && bad++ == 0) first = i;
        DFCT_CHECK(bad == 0, "%zu of %zu bytes wrong, first at %zu", bad, n, first);
    }
    free(buf);
    dfct_finalize();
    return 0;
}
