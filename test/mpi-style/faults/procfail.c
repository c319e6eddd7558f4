/*
 * procfail - a rank dies (SIGKILL on itself); the others see DFC_ERR_PROC_FAILED on what
 * depends on it and nothing else (dfc(7), "Process failure"; ULFM's rules).
 *
 * The victim V is the last rank (3 or more ranks). Communicators: ALL (a dup of WORLD,
 * contains V) and LIVE (split without V). Every rank uses DFC_ERRORS_RETURN.
 *   -case=rndv  V dies inside two 64 MiB rendezvous transfers with rank 0 (one each way,
 *               with DFC_RGET=0 so that both stream DATA packets; without, V dies after
 *               announcing one, which rank 0 matches later): rank 0's send and receive
 *               fail; rank 1's receive from V and its DFC_ANY_SOURCE receive on ALL fail.
 *   -case=coll  V dies right after starting a 16 MiB DFC_Iallreduce (ring) on ALL: it fails
 *               on every live rank,
 *               also on ranks that exchange nothing with V, while an DFC_Iallreduce on
 *               LIVE pending at the same time completes with the right sum.
 *   -case=idle  V dies between calls after a barrier; a blocking receive from it fails.
 *   -case=read  V dies while rank 0 receives its 256 MiB message (over ofi with FI_RMA,
 *               rank 0 reads it out of V's registered buffer; over tcp it streams): rank 0's
 *               receive fails, and its own 256 MiB send to V, announced with a key to its
 *               buffer that V never used, fails too (the testlist's DFC_DEBUG=1:ofi shows
 *               a registration still exposed when the transport closes).
 * Then every case checks on the live ranks: a new send to V and a new receive from V fail;
 * a collective on ALL fails; an allreduce on LIVE and point-to-point between live ranks on
 * ALL work; then the live ranks sum their error counts over LIVE and finalize.
 *   -case=fatal V dies; rank 0 keeps the default DFC_ERRORS_ARE_FATAL and receives from V:
 *               the job must end with one message naming rank V (the testlist expects it).
 * -watchdog=S (default 60): a hang prints "watchdog: hang in procfail <case>" and exits.
 */
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "../dfctest.h"

static const char *which = "?";
static int rank, size, victim;
static DFC_Comm all, live;

#define FAIL_VICTIM victim
#include "failcheck.h"

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "watchdog: hang in procfail\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(3);
}

/* The victim dies only after every live rank has left the collectives on WORLD that came
 * before: a rank that finishes a barrier may leave while others are still inside it, and
 * ULFM lets a collective fail on the ranks still in it once a member is gone (that race
 * failed -case=idle's first barrier on simulated nodes). The live ranks meet on LIVE, then
 * rank 0 tells the victim it may go on. */
static void settle(void)
{
    const int settle_tag = 10;
    int go = 1;
    if (rank != victim) DFCT_OK(DFC_Barrier(live));
    if (rank == 0) DFCT_OK(DFC_Send(&go, 1, DFC_INT, victim, settle_tag, all));
    if (rank == victim) DFCT_OK(DFC_Recv(&go, 1, DFC_INT, 0, settle_tag, all, DFC_STATUS_IGNORE));
}

/* Waits for each request and expects DFC_ERR_PROC_FAILED in its status. */
static void expect_failed_reqs(int n, DFC_Request *reqs, const char *what)
{
    DFC_Status st[4];
    int cls = -1;
    DFC_Error_class(DFC_Waitall(n, reqs, st), &cls);
    DFCT_CHECK(cls == DFC_ERR_IN_STATUS,
               "%s: DFC_Waitall returned class %d, expected "
               "DFC_ERR_IN_STATUS",
               what, cls);
    for (int i = 0; i < n; i++) EXPECT_FAILED(st[i].DFC_ERROR, what);
}

/* DFC_RGET=0: both transfers stream DATA packets, and V dies with both half done. Otherwise
 * a receiver would pull the whole message at once when it matches, so V announces a 64 MiB
 * message and dies at once; rank 0 receives it only after it noticed the failure. V dies only
 * after rank 1 posted its receives: an DFC_ANY_SOURCE receive fails when it is pending as the
 * failure is found (DFC_Error_class(3)), and posted later it would wait for a live sender.
 * Without the wait, a progress thread (DFC_ASYNC_PROGRESS=1) that found V dead before rank 1
 * posted left that receive pending for ever (1 run in 3 on the 2-core VM). */
static void case_rndv(void)
{
    const int n = 64 << 20, go_tag = 9, posted_tag = 11;
    const char *rget = getenv("DFC_RGET");
    int stream = rget && !strcmp(rget, "0"), go = 1, v;
    char *out = malloc(n), *in = malloc(n);
    DFCT_CHECK(out && in, "out of memory");
    memset(out, 1, n);
    DFC_Request r[2];
    if (rank == victim) /* rank 1's receives are pending */
        DFCT_OK(DFC_Recv(&go, 1, DFC_INT, 1, posted_tag, all, DFC_STATUS_IGNORE));
    if (rank == victim && !stream) {
        DFCT_OK(DFC_Isend(out, n, DFC_CHAR, 0, 1, all, &r[1]));
        raise(SIGKILL);
    }
    if (rank == victim) {
        DFCT_OK(DFC_Irecv(in, n, DFC_CHAR, 0, 2, all, &r[0]));
        DFCT_OK(DFC_Isend(out, n, DFC_CHAR, 0, 1, all, &r[1]));
        /* Rank 0's RTS came before its go message: both transfers are under way. */
        DFCT_OK(DFC_Recv(&go, 1, DFC_INT, 0, go_tag, all, DFC_STATUS_IGNORE));
        /* A pass moves at most what the buffers hold (the testlist keeps tcp's small, a shm
         * ring is 256 KiB): 20 passes cannot finish 64 MiB either way. */
        for (int i = 0; i < 20; i++) {
            int flag;
            DFC_Testall(2, r, &flag, DFC_STATUSES_IGNORE);
        }
        raise(SIGKILL);
    }
    if (rank == 0) {
        double t0 = now();
        if (stream) {
            DFCT_OK(DFC_Irecv(in, n, DFC_CHAR, victim, 1, all, &r[0]));
            DFCT_OK(DFC_Isend(out, n, DFC_CHAR, victim, 2, all, &r[1]));
            DFCT_OK(DFC_Send(&go, 1, DFC_INT, victim, go_tag, all));
            t0 = now();
        } else {
            EXPECT_FAILED(DFC_Recv(&v, 1, DFC_INT, victim, 3, all, DFC_STATUS_IGNORE),
                          "rank 0's receive from the victim");
            DFCT_OK(DFC_Irecv(in, n, DFC_CHAR, victim, 1, all, &r[0])); /* matches its RTS */
            DFCT_OK(DFC_Isend(out, n, DFC_CHAR, victim, 2, all, &r[1]));
        }
        expect_failed_reqs(2, r, "rank 0's 64 MiB receive from and send to the victim");
        if (getenv("PROCFAIL_VERBOSE"))
            fprintf(stderr, "rank 0: rendezvous failed %.3f s after %s\n", now() - t0,
                    stream ? "the go message" : "the start");
    } else if (rank == 1) {
        DFCT_OK(DFC_Irecv(in, 1, DFC_CHAR, victim, 3, all, &r[0]));
        DFCT_OK(DFC_Irecv(in, 1, DFC_CHAR, DFC_ANY_SOURCE, 4, all, &r[1]));
        DFCT_OK(DFC_Send(&go, 1, DFC_INT, victim, posted_tag, all));
        expect_failed_reqs(2, r, "rank 1's receive from the victim and its ANY_SOURCE receive");
    }
    free(out);
    free(in);
}

static void case_read(void)
{
    const int n = 256 << 20, go_tag = 9;
    char *out = malloc(n), *in = malloc(n);
    DFCT_CHECK(out && in, "out of memory");
    memset(out, 3, n);
    DFC_Request r[2];
    int go = 1;
    if (rank == victim) {
        /* Rank 0's receive is posted: it matches the RTS as soon as it arrives. */
        DFCT_OK(DFC_Recv(&go, 1, DFC_INT, 0, go_tag, all, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Isend(out, n, DFC_CHAR, 0, 1, all, &r[1]));
        /* The provider serves rank 0's read in V's progress calls: 20 cannot move 256 MiB. */
        for (int i = 0; i < 20; i++) {
            int flag;
            DFC_Test(&r[1], &flag, DFC_STATUS_IGNORE);
        }
        raise(SIGKILL);
    }
    if (rank == 0) {
        DFCT_OK(DFC_Irecv(in, n, DFC_CHAR, victim, 1, all, &r[0]));
        DFCT_OK(DFC_Isend(out, n, DFC_CHAR, victim, 2, all, &r[1])); /* V never receives it */
        DFCT_OK(DFC_Send(&go, 1, DFC_INT, victim, go_tag, all));
        expect_failed_reqs(2, r, "rank 0's 256 MiB receive from and send to the victim");
    }
    free(out);
    free(in);
}

static void case_coll(void)
{
    const int n = 4 << 20; /* ints: 16 MiB, a pipelined ring of many steps */
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int)), x = rank + 1, sum = 0;
    DFCT_CHECK(a && b, "out of memory");
    for (int i = 0; i < n; i++) a[i] = 1;
    DFC_Request r, rl = DFC_REQUEST_NULL;
    if (rank != victim) DFCT_OK(DFC_Iallreduce(&x, &sum, 1, DFC_INT, DFC_SUM, live, &rl));
    DFCT_OK(DFC_Iallreduce(a, b, n, DFC_INT, DFC_SUM, all, &r));
    /* V dies with its first transfers posted: a ring needs V to forward data, so the
     * collective cannot complete anywhere. */
    if (rank == victim) raise(SIGKILL);
    DFC_Status st;
    EXPECT_FAILED(DFC_Wait(&r, &st), "DFC_Iallreduce on ALL");
    DFCT_OK(DFC_Wait(&rl, DFC_STATUS_IGNORE));
    int want = 0;
    for (int i = 0; i < size; i++) want += i != victim ? i + 1 : 0;
    DFCT_CHECK(sum == want, "DFC_Iallreduce on LIVE gave %d, expected %d", sum, want);
    free(a);
    free(b);
}

static void case_idle(void)
{
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    settle();
    if (rank == victim) raise(SIGKILL);
    int v = 0;
    if (rank == 0)
        EXPECT_FAILED(DFC_Recv(&v, 1, DFC_INT, victim, 5, all, DFC_STATUS_IGNORE),
                      "a blocking receive from the idle victim");
}

/* What must hold on every live rank after the failure. */
static void after(void)
{
    int v = 7, got = 0;
    /* The receive waits until this rank has noticed the failure; a small send before that
     * could legitimately complete (eager data left in a buffer). */
    EXPECT_FAILED(DFC_Recv(&v, 1, DFC_INT, victim, 6, all, DFC_STATUS_IGNORE),
                  "a new receive from the victim");
    v = 7;
    EXPECT_FAILED(DFC_Send(&v, 1, DFC_INT, victim, 6, all), "a new send to the victim");
    EXPECT_FAILED(DFC_Barrier(all), "DFC_Barrier on ALL");
    EXPECT_FAILED(DFC_Allreduce(&v, &got, 1, DFC_INT, DFC_SUM, all), "DFC_Allreduce on ALL");
    int lrank, lsize;
    DFC_Comm_rank(live, &lrank);
    DFC_Comm_size(live, &lsize);
    DFCT_OK(DFC_Allreduce(&v, &got, 1, DFC_INT, DFC_SUM, live));
    DFCT_CHECK(got == 7 * lsize, "DFC_Allreduce on LIVE gave %d, expected %d", got, 7 * lsize);
    /* A ring among the live ranks on ALL (world ranks 0..victim-1). */
    int right = (rank + 1) % victim, left = (rank + victim - 1) % victim, from = -1;
    DFCT_OK(DFC_Sendrecv(&rank, 1, DFC_INT, right, 8, &from, 1, DFC_INT, left, 8, all,
                         DFC_STATUS_IGNORE));
    DFCT_CHECK(from == left, "ring on ALL: got %d from rank %d", from, left);
}

/* dfct_finalize without the victim: the live ranks sum their errors over LIVE. */
static int finish(void)
{
    int total = 0;
    DFCT_OK(DFC_Allreduce(&dfct_errs, &total, 1, DFC_INT, DFC_SUM, live));
    if (rank == 0) {
        if (total == 0 && dfct_errs == 0) printf(" No Errors\n");
        else printf(" Found %d errors\n", total ? total : dfct_errs);
        fflush(stdout);
    }
    DFCT_OK(DFC_Comm_free(&all));
    DFCT_OK(DFC_Comm_free(&live));
    DFC_Finalize();
    return total || dfct_errs ? 1 : 0;
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "-case=", 6)) which = argv[i] + 6;
    signal(SIGALRM, on_alarm);
    alarm((unsigned)dfct_opt_long(argc, argv, "watchdog", 60));
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    victim = size - 1;
    if (size < 3) {
        if (rank == 0) printf("procfail needs 3 or more processes\n");
        DFC_Finalize();
        return 1;
    }
    int fatal = !strcmp(which, "fatal");
    if (!fatal) DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &all));
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, rank == victim, rank, &live));
    if (!fatal) DFC_Comm_set_errhandler(all, DFC_ERRORS_RETURN);

    settle(); /* the dup and split above are collectives on WORLD */
    if (fatal) {
        DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
        settle();
        if (rank == victim) raise(SIGKILL);
        int v;
        if (rank == 0) DFC_Recv(&v, 1, DFC_INT, victim, 5, all, DFC_STATUS_IGNORE);
        /* The others wait for the job to end. */
        if (rank != 0) DFC_Recv(&v, 1, DFC_INT, 0, 5, live, DFC_STATUS_IGNORE);
        printf("procfail: rank %d survived a fatal failure\n", rank);
        return 1;
    }
    if (!strcmp(which, "rndv")) case_rndv();
    else if (!strcmp(which, "coll")) case_coll();
    else if (!strcmp(which, "idle")) case_idle();
    else if (!strcmp(which, "read")) case_read();
    else {
        DFCT_CHECK(0, "unknown -case=%s", which);
        if (rank == victim) raise(SIGKILL);
    }
    after();
    int rc = finish();
    return rc;
}
