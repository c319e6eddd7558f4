/*
 * collrndv - a third rank dies while a collective's rendezvous transfer between two live
 * ranks is announced but not yet read (issue 24). Rank 0 broadcasts -bytes (1 MiB: a
 * rendezvous, which the receiver pulls with cross-memory attach) on ALL (a dup of WORLD) to
 * ranks 1 and the victim V (the last rank), which is already dead. Rank 0 notices the
 * failure while it waits, and its broadcast fails; it then overwrites its buffer with a
 * different pattern, as an application may once the call has returned. Rank 1 calls the
 * broadcast only later (after -delay_ms, 150, outside DFC, so that it has noticed
 * nothing; the testlist sets DFC_SHM_LIVENESS_MS=10 so that rank 0 notices well before): it must either fail with DFC_ERR_PROC_FAILED or receive exactly rank 0's
 * original data; reading the overwritten buffer would return wrong data as a success.
 * Both then receive from V (which fails: both know of the failure before they finalize)
 * and sum their errors on LIVE (everything but V). -watchdog=S (default 60).
 */
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "../dfctest.h"

static int rank, size, victim;
#define FAIL_VICTIM victim
#include "failcheck.h"

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "watchdog: hang in collrndv\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(3);
}

static unsigned char pattern(long k) { return (unsigned char)(k * 13 + (k >> 9) + 1); }

int main(int argc, char **argv)
{
    DFC_Comm all, live;
    dfct_init(&argc, &argv);
    signal(SIGALRM, on_alarm);
    alarm((unsigned)dfct_opt_long(argc, argv, "watchdog", 60));
    long bytes = dfct_opt_long(argc, argv, "bytes", 1 << 20),
         delay_ms = dfct_opt_long(argc, argv, "delay_ms", 150);
    (void)now;
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    victim = size - 1;
    DFCT_CHECK(size == 3, "collrndv needs 3 processes, not %d", size);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &all));
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, rank == victim, rank, &live));
    DFC_Comm_set_errhandler(all, DFC_ERRORS_RETURN);
    unsigned char *buf = malloc(bytes);
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    if (rank == victim) raise(SIGKILL);

    int cls = DFC_SUCCESS;
    if (rank == 0) {
        for (long k = 0; k < bytes; k++) buf[k] = pattern(k);
        usleep(20000); /* V is gone, not yet noticed: the announcements go out */
        cls = failed_class(DFC_Bcast(buf, (int)bytes, DFC_BYTE, 0, all), "rank 0's broadcast");
        DFCT_CHECK(cls == DFC_ERR_PROC_FAILED,
                   "rank 0's broadcast: class %d, expected "
                   "DFC_ERR_PROC_FAILED",
                   cls);
        memset(buf, 0xee, bytes); /* the application reuses its buffer */
    } else {
        memset(buf, 0x5a, bytes);
        usleep((useconds_t)delay_ms * 1000);
        cls = failed_class(DFC_Bcast(buf, (int)bytes, DFC_BYTE, 0, all), "rank 1's broadcast");
        DFCT_CHECK(cls == DFC_SUCCESS || cls == DFC_ERR_PROC_FAILED,
                   "rank 1's broadcast: "
                   "class %d",
                   cls);
        if (cls == DFC_SUCCESS) {
            long bad = 0, first = -1;
            for (long k = 0; k < bytes; k++)
                if (buf[k] != pattern(k) && !bad++) first = k;
            DFCT_CHECK(!bad,
                       "rank 1's broadcast succeeded with %ld of %ld bytes wrong (first "
                       "at %ld: 0x%02x, expected 0x%02x)",
                       bad, bytes, first, first >= 0 ? buf[first] : 0,
                       first >= 0 ? pattern(first) : 0);
        }
    }
    /* Finalize fences among the ranks each believes alive: both must know of V first
     * (rank 1 may not, if its broadcast read the data without noticing). */
    int v = 0;
    cls = failed_class(DFC_Recv(&v, 1, DFC_INT, victim, 9, all, DFC_STATUS_IGNORE),
                       "a receive from the victim");
    DFCT_CHECK(cls == DFC_ERR_PROC_FAILED, "a receive from the victim: class %d", cls);
    int total = 0;
    DFCT_OK(DFC_Allreduce(&dfct_errs, &total, 1, DFC_INT, DFC_SUM, live));
    if (rank == 0) {
        if (total == 0) printf(" No Errors\n");
        else printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    free(buf);
    DFCT_OK(DFC_Comm_free(&all));
    DFCT_OK(DFC_Comm_free(&live));
    DFC_Finalize();
    return total ? 1 : 0;
}
