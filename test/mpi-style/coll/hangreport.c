/*
 * hangreport - the hang report (dfc(7), "Hang report"): a rank stuck in a collective
 * prints its pending operations to stderr, naming the collective and the missing peer.
 *
 * 1. DFC_HANG_REPORT_SECONDS=1 (set here before DFC_Init): rank 0 waits for an
 *    DFC_Iallreduce on a dup of COMM_WORLD while rank 1 sleeps 3 s before joining; rank 0's
 *    stderr goes to a temporary file, which must then hold a report line naming
 *    "allreduce" and "waiting for rank 1".
 * 2. SIGUSR1: rank 0 raises it while an DFC_Ibarrier is pending (rank 1 joins 0.5 s late);
 *    the next wait prints a report marked "(SIGUSR1)" that lists the barrier.
 * 3. Rendezvous in flight (DFC_RGET=0, so the receiver takes DATA packets instead of pulling):
 *    rank 0 posts a 1 MiB DFC_Isend that rank 1 has not received yet and raises SIGUSR1; its
 *    report must list the send waiting for the receiver's CTS with 0/1048576 bytes. Rank 0
 *    then tells rank 1 to receive and stays out of the library for 1.5 s, so rank 1's
 *    matched DFC_Irecv waits for DATA: rank 1's SIGUSR1 report must list it with
 *    0/1048576 bytes; before that, a SIGUSR1 report of rank 1's lists the send's RTS as an
 *    unexpected message. Both then complete and the data is checked.
 * 4. SIGUSR1 while rank 0 waits in a blocking DFC_Bcast whose root (rank 1) joins 0.5 s
 *    late: the report lists the bcast waiting for rank 1.
 * 5. The same for a blocking DFC_Alltoall that rank 1 joins 0.5 s late (on one node it too
 *    waits in the slots without an instance, alltoall_shm_slots.c); the blocks are checked.
 * The progress thread is turned off before init (DFC_ASYNC_PROGRESS=0): it prints a SIGUSR1
 * report at its next pass, which may come before the operation the test names has started
 * waiting (run with it, parts 2, 4 and 5 failed so).
 */
#include <signal.h>
#include <unistd.h>

#include "../stderrcap.h"

/* Parts 4 and 5: restores stderr and checks that the SIGUSR1 report lists `what` (a blocking
 * collective) waiting for rank 1. */
static void expect_waiting(int saved, FILE *tmp, const char *what)
{
    char *text = restore_stderr(saved, tmp);
    DFCT_CHECK(has_line(text, "[dfc hang report]", what, "waiting for rank 1"),
               "no hang-report line for the blocking %s waiting for rank 1 after SIGUSR1; "
               "stderr was:\n%s",
               what, text);
    free(text);
}

int main(int argc, char **argv)
{
    setenv("DFC_HANG_REPORT_SECONDS", "1", 1);
    setenv("DFC_ASYNC_PROGRESS", "0", 1); /* the report must come from the waiting call */
    setenv("DFC_RGET", "0", 1); /* part 3: a matched receive then waits for DATA packets */
    dfct_init(&argc, &argv);
    int rank, size;
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm comm;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));

    /* 1. The timeout report. */
    int in = rank + 1, out = 0;
    DFC_Request req;
    if (rank == 1) sleep(3);
    FILE *tmp = NULL;
    int saved = rank == 0 ? capture_stderr(&tmp) : -1;
    DFCT_OK(DFC_Iallreduce(&in, &out, 1, DFC_INT, DFC_SUM, comm, &req));
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    DFCT_CHECK(out == size * (size + 1) / 2, "allreduce gave %d, expected %d", out,
               size * (size + 1) / 2);
    if (saved >= 0) {
        char *text = restore_stderr(saved, tmp);
        DFCT_CHECK(has_line(text, "[dfc hang report]", "DFC_HANG_REPORT_SECONDS", "pid"),
                   "no hang-report header after 1 s without progress; stderr was:\n%s", text);
        DFCT_CHECK(has_line(text, "[dfc hang report]", "collective allreduce",
                            "waiting for rank 1"),
                   "no hang-report line for the allreduce waiting for rank 1; stderr was:\n%s",
                   text);
        free(text);
    }

    /* 2. The report on SIGUSR1. */
    if (rank == 1) usleep(500000);
    saved = rank == 0 ? capture_stderr(&tmp) : -1;
    DFCT_OK(DFC_Ibarrier(comm, &req));
    if (rank == 0) raise(SIGUSR1);
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    if (saved >= 0) {
        char *text = restore_stderr(saved, tmp);
        DFCT_CHECK(has_line(text, "[dfc hang report]", "(SIGUSR1)", "rank 0"),
                   "no hang-report header after SIGUSR1; stderr was:\n%s", text);
        DFCT_CHECK(has_line(text, "[dfc hang report]", "collective barrier", "waiting for rank 1"),
                   "no hang-report line for the pending barrier after SIGUSR1; stderr was:\n%s",
                   text);
        free(text);
    }

    /* 3. Rendezvous transfers waiting for the peer. */
    const int n = 1 << 20, go_tag = 5, big_tag = 77;
    char *big = malloc(n);
    int go = 1;
    DFCT_CHECK(big != NULL, "out of memory");
    if (rank == 0) {
        for (int i = 0; i < n; i++) big[i] = (char)(i * 7);
        DFCT_OK(DFC_Isend(big, n, DFC_CHAR, 1, big_tag, comm, &req));
        saved = capture_stderr(&tmp);
        raise(SIGUSR1);
        int flag = 0;
        DFCT_OK(DFC_Test(&req, &flag, DFC_STATUS_IGNORE));
        char *text = restore_stderr(saved, tmp);
        DFCT_CHECK(!flag, "the 1 MiB send completed before rank 1 posted its receive");
        DFCT_CHECK(
            has_line(text, "p2p send to 1 tag 77", "rendezvous, 0/1048576 bytes",
                     "waiting for the receiver's CTS"),
            "no hang-report line for the rendezvous send waiting for its CTS; stderr was:\n%s",
            text);
        free(text);
        DFCT_OK(DFC_Send(&go, 1, DFC_INT, 1, go_tag, comm));
        usleep(1500000); /* no progress here: rank 1's receive waits for DATA meanwhile */
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    } else if (rank == 1) {
        DFCT_OK(DFC_Recv(&go, 1, DFC_INT, 0, go_tag, comm, DFC_STATUS_IGNORE));
        saved = capture_stderr(&tmp); /* the send's RTS came before `go`: no receive has it */
        raise(SIGUSR1);
        int there = 0, none = 0; /* a probe that finds nothing polls, and prints the report */
        DFCT_OK(DFC_Iprobe(0, big_tag + 1, comm, &none, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Iprobe(0, big_tag, comm, &there, DFC_STATUS_IGNORE));
        char *early = restore_stderr(saved, tmp);
        DFCT_CHECK(there && has_line(early, "p2p message from world rank 0 tag 77", "unexpected",
                                     "rendezvous, 1048576 bytes"),
                   "no hang-report line for the unexpected 1 MiB message; stderr was:\n%s", early);
        free(early);
        memset(big, 0, n);
        DFCT_OK(DFC_Irecv(big, n, DFC_CHAR, 0, big_tag, comm, &req));
        saved = capture_stderr(&tmp);
        raise(SIGUSR1);
        int flag = 0;
        DFCT_OK(DFC_Test(&req, &flag, DFC_STATUS_IGNORE));
        DFCT_CHECK(!flag, "the 1 MiB receive completed while rank 0 stayed out of the library");
        DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE)); /* its timeout report goes to the file too */
        char *text = restore_stderr(saved, tmp);
        DFCT_CHECK(has_line(text, "(SIGUSR1)", "rank 1", "[dfc hang report]") &&
                       has_line(text, "p2p recv from 0 tag 77", "rendezvous, 0/1048576 bytes",
                                "waiting for DATA"),
                   "no SIGUSR1 report with the matched receive waiting for DATA; stderr was:\n%s",
                   text);
        free(text);
        int bad = 0;
        for (int i = 0; i < n; i++) bad += big[i] != (char)(i * 7);
        DFCT_CHECK(bad == 0, "%d of %d received bytes are wrong", bad, n);
    }
    free(big);

    /* 4. A blocking bcast waiting for its root (on one node it waits in the shm slots without
     * an instance, src/coll/bcast_shm_slots.c; across nodes in the run queue). */
    int v = rank == 1 ? 4242 : -1;
    if (rank == 1) usleep(500000);
    saved = rank == 0 ? capture_stderr(&tmp) : -1;
    if (rank == 0) raise(SIGUSR1);
    DFCT_OK(DFC_Bcast(&v, 1, DFC_INT, 1, comm));
    DFCT_CHECK(v == 4242, "bcast gave %d, expected 4242", v);
    if (saved >= 0) expect_waiting(saved, tmp, "collective bcast");

    /* 5. A blocking alltoall waiting for rank 1 (size ints per rank, one to each). */
    int *sb = malloc(size * sizeof(int)), *rb = malloc(size * sizeof(int));
    for (int r = 0; r < size; r++) sb[r] = rank * 100 + r, rb[r] = -1;
    if (rank == 1) usleep(500000);
    saved = rank == 0 ? capture_stderr(&tmp) : -1;
    if (rank == 0) raise(SIGUSR1);
    DFCT_OK(DFC_Alltoall(sb, 1, DFC_INT, rb, 1, DFC_INT, comm));
    for (int r = 0; r < size; r++)
        DFCT_CHECK(rb[r] == r * 100 + rank, "alltoall: block %d is %d, expected %d", r, rb[r],
                   r * 100 + rank);
    if (saved >= 0) expect_waiting(saved, tmp, "collective alltoall");
    free(sb);
    free(rb);

    DFCT_OK(DFC_Comm_free(&comm));
    return dfct_finalize();
}
