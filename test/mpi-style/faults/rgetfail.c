/*
 * rgetfail - the cross-memory read of a rendezvous fails on a live sender (issue 24,
 * defect 4: the receive failed but neither FIN nor CTS went back, so the sender waited for
 * ever). The receiver must fall back to asking for the data as packets (CTS): both sides
 * complete with the right data.
 *
 * This program defines process_vm_readv itself, so the library's calls come here (the
 * executable's definition interposes on libc's, shared or static library alike). For the
 * first -fails=K (3) calls it fails as -mode says, then it does the real system call:
 *   efault   -1 with EFAULT (a bad remote range)
 *   enomem   -1 with ENOMEM
 *   partial  reads half of what was asked for, then the next call returns 0 (no progress)
 *   dead     kills the sender (SIGKILL) and waits until its memory is gone: the read fails
 *            with ESRCH, and the receive must fail with DFC_ERR_PROC_FAILED, not hang or
 *            fall back (with the progress thread the read runs without the library lock,
 *            issue 16); rank 0 then finalizes alone (the testlist's recovery=1)
 *   packets  injects nothing, and sends 1 MiB + 12 bytes: run with DFC_SHM_CMA_MAX below
 *            that, the receiver must not pull at all (the data comes as ring packets)
 * Rank 1 sends rank 0 -n (4) messages of -len (256 KiB + 12) bytes (rendezvous: above the
 * eager limit), alternating blocking and nonblocking sends; rank 0 poisons its buffer before
 * each receive and checks every byte. The test fails if the injection was never reached
 * (rank 0 counts its calls), so it cannot pass without exercising the fallback. Needs 2
 * ranks on one node (shm: the testlist runs it under mpirun only). -watchdog=S (default 60).
 *
 * The shared pull (DFC_SHM_COOP_MIN) is turned off before DFC_Init: with it the sender may
 * push every piece before the receiver's first read (the progress thread of an ASan build did,
 * in CI), and then nothing here is exercised. faults/shmcoop tests the shared pull.
 * DFC_TRANSPORT is set to auto (shm between ranks of one node): with tcp exported, as a
 * sweep of the suite over tcp did, nothing is read across memory and the test failed.
 */
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../dfctest.h"
#include "rndvmsg.h"

static int len = (256 << 10) + 12; /* -len */
static int mode;                   /* 0 efault, 1 enomem, 2 partial, 3 dead, 4 packets */
static int fails_left = 3, calls, injected, partial_pending;

ssize_t process_vm_readv(pid_t pid, const struct iovec *local, unsigned long liovcnt,
                         const struct iovec *remote, unsigned long riovcnt, unsigned long flags)
{
    calls++;
    if (partial_pending) {
        partial_pending = 0;
        injected++;
        return 0;
    }
    if (fails_left > 0 && mode == 3) {
        fails_left = 0;
        injected++;
        kill(pid, SIGKILL);
        char c;
        struct iovec l = {&c, 1}, r = {remote[0].iov_base, 1};
        for (int i = 0; i < 2000; i++) { /* until its memory is gone: 2 s at most */
            if (syscall(SYS_process_vm_readv, pid, &l, 1UL, &r, 1UL, 0UL) < 0 && errno == ESRCH)
                break;
            usleep(1000);
        }
    }
    if (fails_left > 0) {
        fails_left--;
        if (mode == 0 || mode == 1) {
            injected++;
            errno = mode == 0 ? EFAULT : ENOMEM;
            return -1;
        }
        if (liovcnt == 1 && riovcnt == 1 && local[0].iov_len > 1) {
            struct iovec l = {local[0].iov_base, local[0].iov_len / 2};
            struct iovec r = {remote[0].iov_base, local[0].iov_len / 2};
            partial_pending = 1;
            return syscall(SYS_process_vm_readv, pid, &l, 1UL, &r, 1UL, flags);
        }
    }
    return syscall(SYS_process_vm_readv, pid, local, liovcnt, remote, riovcnt, flags);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "watchdog: hang in rgetfail\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(3);
}

/* -mode=dead: rank 1 sends one message and is killed by rank 0's read of it. */
static int dead_sender(int rank, unsigned char *buf)
{
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    memset(buf, 0x3c, len);
    if (rank == 1) {
        DFC_Send(buf, len, DFC_BYTE, 0, 0, DFC_COMM_WORLD); /* killed inside, waiting for FIN */
        DFCT_CHECK(0, "rank 1 survived its receiver's read");
        _exit(1);
    }
    int rc = DFC_Recv(buf, len, DFC_BYTE, 1, 0, DFC_COMM_WORLD, DFC_STATUS_IGNORE), cls = -1;
    DFC_Error_class(rc, &cls);
    DFCT_CHECK(cls == DFC_ERR_PROC_FAILED,
               "the receive from the killed sender: class %d, expected DFC_ERR_PROC_FAILED", cls);
    DFCT_CHECK(injected == 1, "the sender was not killed inside the read (%d calls)", calls);
    /* and the next receive from it fails at once */
    rc = DFC_Recv(buf, 1, DFC_BYTE, 1, 1, DFC_COMM_WORLD, DFC_STATUS_IGNORE);
    DFC_Error_class(rc, &cls);
    DFCT_CHECK(cls == DFC_ERR_PROC_FAILED, "a later receive from it: class %d", cls);
    return rndv_finish_alone(buf);
}

int main(int argc, char **argv)
{
    int nmsg = 4, watchdog = 60, rank, size;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-mode=efault")) mode = 0;
        if (!strcmp(argv[i], "-mode=enomem")) mode = 1;
        if (!strcmp(argv[i], "-mode=partial")) mode = 2;
        if (!strcmp(argv[i], "-mode=dead")) mode = 3;
        if (!strcmp(argv[i], "-mode=packets")) mode = 4, fails_left = 0, len = (1 << 20) + 12;
        if (!strncmp(argv[i], "-len=", 5)) len = atoi(argv[i] + 5);
        if (!strncmp(argv[i], "-fails=", 7)) fails_left = atoi(argv[i] + 7);
        if (!strncmp(argv[i], "-n=", 3)) nmsg = atoi(argv[i] + 3);
        if (!strncmp(argv[i], "-watchdog=", 10)) watchdog = atoi(argv[i] + 10);
    }
    signal(SIGALRM, on_alarm);
    alarm((unsigned)watchdog);
    setenv("DFC_SHM_COOP_MIN", "0", 1); /* the receiver reads alone: see the header */
    setenv("DFC_TRANSPORT", "auto", 1); /* shm: see the header */
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_CHECK(size == 2, "rgetfail needs 2 ranks, not %d", size);
    unsigned char *buf = malloc(len);
    if (mode == 3 && size == 2) return dead_sender(rank, buf);
    for (int m = 0; size == 2 && m < nmsg; m++) {
        if (rank == 1) rndv_send(buf, len, m);
        else DFCT_OK(rndv_recv(buf, len, m));
    }
    if (rank == 0 && mode == 4)
        DFCT_CHECK(
            calls == 0,
            "%d process_vm_readv calls for messages of %d bytes (run it with DFC_SHM_CMA_MAX "
            "below that)",
            calls, len);
    else if (rank == 0)
        DFCT_CHECK(injected > 0,
                   "no failure was injected (%d process_vm_readv calls): the "
                   "receiver never pulled the data",
                   calls);
    free(buf);
    alarm(0);
    return dfct_finalize();
}
