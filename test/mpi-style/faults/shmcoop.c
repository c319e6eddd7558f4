/*
 * shmcoop - the shared pull of a large message (src/tl/shm_coop.h): the sender pushes pieces
 * with process_vm_writev while the receiver pulls the others. Rank 1 sends rank 0 messages of
 * -len (1 MiB + 12) bytes, alternating blocking and nonblocking sends; rank 0 poisons its
 * buffer before each receive and checks every byte.
 *
 * This program defines process_vm_writev itself (the executable's definition interposes on
 * libc's), counts the calls and, as -mode says, fails or dies in them:
 *   help   (default) nothing injected; the sender must have pushed pieces: rounds go on (at
 *          most 400) until it has, and the test fails if it never did
 *   none   20 rounds, no writev may happen (run with DFC_SHM_COOP_MIN=0)
 *   reduce 20 DFC_Reduce of -len bytes of ints to rank 0, results checked: the root reduces
 *          what it receives at once, so it pulls alone (DFC_TL_RGET_ALONE): no writev
 *   wfail  the first 3 writes fail with EFAULT: the receiver pulls those pieces again
 *   dead   the sender's first write kills it (SIGKILL) while the receiver waits for that
 *          piece: the receive must fail with DFC_ERR_PROC_FAILED naming rank 1, not hang;
 *          rank 0 then finalizes alone (the testlist's recovery=1)
 * Needs 2 ranks on one node (shm: the testlist runs it under mpirun only; DFC_TRANSPORT is
 * set to auto before DFC_Init, so that an exported tcp does not take shm away). -watchdog=S
 * (60).
 */
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../dfctest.h"
#include "rndvmsg.h"

static int len = (1 << 20) + 12; /* -len */
static enum { HELP, NONE, WFAIL, DEAD, REDUCE } mode = HELP;
static int calls, injected;

ssize_t process_vm_writev(pid_t pid, const struct iovec *local, unsigned long liovcnt,
                          const struct iovec *remote, unsigned long riovcnt, unsigned long flags)
{
    calls++;
    if (mode == DEAD) raise(SIGKILL);
    if (mode == WFAIL && injected < 3) {
        injected++;
        errno = EFAULT;
        return -1;
    }
    return syscall(SYS_process_vm_writev, pid, local, liovcnt, remote, riovcnt, flags);
}

/* -mode=dead: rank 1 sends until its first push kills it; rank 0's receive must fail. */
static int dead_sender(int rank, unsigned char *buf)
{
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    if (rank == 1) {
        for (int m = 0; m < 400; m++) rndv_send(buf, len, m);
        DFCT_CHECK(0, "rank 1 sent 400 messages without pushing a piece of any");
        _exit(1);
    }
    int rc = DFC_SUCCESS, m;
    for (m = 0; m < 400 && rc == DFC_SUCCESS; m++) rc = rndv_recv(buf, len, m);
    int cls = -1, n = 0;
    char msg[DFC_MAX_ERROR_STRING] = "";
    DFC_Error_class(rc, &cls);
    DFC_Error_string(rc, msg, &n);
    DFCT_CHECK(cls == DFC_ERR_PROC_FAILED,
               "the receive from the killed sender (message %d): class %d, expected "
               "DFC_ERR_PROC_FAILED",
               m - 1, cls);
    DFCT_CHECK(strstr(msg, "rank 1 of DFC_COMM_WORLD has failed") != NULL,
               "the failure's message does not name rank 1: \"%s\"", msg);
    return rndv_finish_alone(buf);
}

/* -mode=reduce: the root's receives are reductions' and pull alone. */
static void reduce_rounds(int rank, unsigned char *buf)
{
    int n = len / (int)sizeof(int), *in = (int *)buf, *out = malloc((size_t)n * sizeof(int));
    for (int m = 0; m < 20; m++) {
        for (int k = 0; k < n; k++) in[k] = (rank + 1) * (m + k % 1000);
        for (int k = 0; k < n; k++) out[k] = -1;
        DFCT_OK(DFC_Reduce(in, out, n, DFC_INT, DFC_SUM, 0, DFC_COMM_WORLD));
        long bad = 0;
        for (int k = 0; rank == 0 && k < n; k++) bad += out[k] != 3 * (m + k % 1000);
        DFCT_CHECK(!bad, "reduce %d: %ld of %d elements wrong", m, bad, n);
    }
    free(out);
    if (rank == 1) DFCT_CHECK(calls == 0, "%d pushes into a reduction's receive", calls);
}

int main(int argc, char **argv)
{
    int rank, size;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-mode=none")) mode = NONE;
        if (!strcmp(argv[i], "-mode=wfail")) mode = WFAIL;
        if (!strcmp(argv[i], "-mode=dead")) mode = DEAD;
        if (!strcmp(argv[i], "-mode=reduce")) mode = REDUCE;
        if (!strncmp(argv[i], "-len=", 5)) len = atoi(argv[i] + 5);
    }
    dfct_watchdog(argc, argv, "shmcoop", 60);
    setenv("DFC_TRANSPORT", "auto", 1); /* shm: see the header */
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_CHECK(size == 2, "shmcoop needs 2 ranks, not %d", size);
    unsigned char *buf = malloc(len);
    if (mode == DEAD && size == 2) return dead_sender(rank, buf);
    if (mode == REDUCE && size == 2) {
        reduce_rounds(rank, buf);
        free(buf);
        alarm(0);
        return dfct_finalize();
    }
    /* help and wfail: on until the sender's writes were seen (or failed), then 3 more */
    int rounds = mode == NONE ? 20 : 400, after = -1;
    for (int m = 0; size == 2 && m < rounds; m++) {
        if (rank == 1) rndv_send(buf, len, m);
        else rndv_recv(buf, len, m);
        int seen = mode == WFAIL ? injected > 0 : calls > 0;
        DFCT_OK(DFC_Bcast(&seen, 1, DFC_INT, 1, DFC_COMM_WORLD));
        if (mode != NONE && seen && after < 0) after = m + 3;
        if (m == after) break;
    }
    if (rank == 1 && mode == NONE)
        DFCT_CHECK(calls == 0, "%d process_vm_writev calls with shared pulls off", calls);
    if (rank == 1 && mode == HELP)
        DFCT_CHECK(calls > 0, "the sender pushed no piece of 400 messages of %d bytes", len);
    if (rank == 1 && mode == WFAIL)
        DFCT_CHECK(injected > 0, "no write failed (%d calls): the sender never pushed", calls);
    free(buf);
    alarm(0);
    return dfct_finalize();
}
