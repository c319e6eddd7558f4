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

/* One 256 MiB transfer from rank 0 to rank 1, the slow side (rank 1, or rank 0 with
 * -sender) computing for `secs` without calling DFC once the transfer runs. Returns on every
 * rank whether the slow side still had the transfer in flight when it started computing;
 * if not, nothing was tested. Twice CI saw a single DFC_Test move all 256 MiB while the
 * other rank drained the loopback socket as fast as it filled; a progress pass now hands a
 * send at most 4 MiB (P2P_PUMP_PASS_BYTES), and the retries stay as a guard. The receiver
 * checks every byte either way. */
static int transfer(int rank, unsigned char *buf, size_t n, unsigned seed, double secs,
                    int slow_sender)
{
    DFC_Request r;
    int go = 1, flag = 0, slow = slow_sender ? 0 : 1;
    if (rank == 0) {
        for (size_t i = 0; i < n; i++) buf[i] = pattern(i, seed);
    } else {
        memset(buf, 0xa5, n); /* poisoned */
        DFCT_OK(DFC_Irecv(buf, (int)n, DFC_BYTE, 0, 1, DFC_COMM_WORLD, &r));
    }
    if (slow_sender) {
        /* Rank 1's receive is posted before the send starts: the request to send matches it. */
        if (rank == 1) DFCT_OK(DFC_Send(&go, 1, DFC_INT, 0, 2, DFC_COMM_WORLD));
        if (rank == 0) DFCT_OK(DFC_Recv(&go, 1, DFC_INT, 1, 2, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        if (rank == 0) DFCT_OK(DFC_Isend(buf, (int)n, DFC_BYTE, 1, 1, DFC_COMM_WORLD, &r));
    } else {
        /* Behind the request to send on the same connection: when rank 1 has this, it has
         * answered the request and the data streams. */
        if (rank == 0) DFCT_OK(DFC_Isend(buf, (int)n, DFC_BYTE, 1, 1, DFC_COMM_WORLD, &r));
        if (rank == 0) DFCT_OK(DFC_Send(&go, 1, DFC_INT, 1, 2, DFC_COMM_WORLD));
        if (rank == 1) DFCT_OK(DFC_Recv(&go, 1, DFC_INT, 0, 2, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    }
    DFC_Status st;
    if (rank == slow) {
        /* Let the transfer start (the answer to the request to send, the first data). */
        for (double t0 = now(); now() - t0 < 0.002 && !flag;) DFC_Test(&r, &flag, &st);
        if (!flag) compute(secs);
    }
    if (!flag) DFCT_OK(DFC_Wait(&r, &st));
    if (rank == 1) {
        int count = -1;
        DFC_Get_count(&st, DFC_BYTE, &count);
        DFCT_CHECK(count == (int)n, "received %d bytes, expected %zu", count, n);
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < n; i++)
            if (buf[i] != pattern(i, seed) && bad++ == 0) first = i;
        DFCT_CHECK(bad == 0, "%zu of %zu bytes wrong, first at %zu", bad, n, first);
    }
    int tested = !flag;
    DFCT_OK(DFC_Bcast(&tested, 1, DFC_INT, slow, DFC_COMM_WORLD));
    return tested;
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
    int tested = 0, attempts = 0;
    while (buf && !tested && attempts++ < 5)
        tested = transfer(rank, buf, n, seed + (unsigned)attempts, compute_s, slow_sender);
    DFCT_CHECK(!buf || tested,
               "the 256 MiB transfer completed before the %s computed, %d times "
               "of %d: nothing was tested",
               slow_sender ? "sender" : "receiver", attempts - 1, attempts - 1);
    free(buf);
    dfct_finalize();
    return 0;
}
