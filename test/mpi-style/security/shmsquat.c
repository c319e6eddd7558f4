/*
 * shmsquat - another user cannot stop a job by creating its shared segment's name first,
 * and a segment left by a killed creator is removed (issue 25, item 3).
 *
 * Before DFC_Init, local rank 0 of each node
 *  - creates, as user nobody (setpriv), the name the segment used to have, derived from the
 *    PMIx namespace and the host name (/dfc-<fnv32(nspace)>-<fnv32(host)>), and 16 more in
 *    the same pattern, mode 0600: the job used to die in DFC_Init with "File exists";
 *  - creates, as itself, a segment named as if a process that no longer exists had
 *    created it ("/dfc-<pid>-<start time>-<random>", the pid of a child that has exited):
 *    DFC_Init must remove it (and must leave nobody's names alone).
 * Then every rank checks a ring exchange between all ranks (shm between local ranks), and
 * local rank 0 removes nobody's names. Needs root (setpriv); elsewhere it only checks the
 * exchange.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../dfctest.h"

#define NSQUAT 17

static uint32_t fnv1a(const char *str)
{
    uint32_t h = 2166136261u;
    for (; *str; str++) h = (h ^ (unsigned char)*str) * 16777619u;
    return h;
}

static int squat(char names[NSQUAT][96])
{
    const char *ns = getenv("PMIX_NAMESPACE"), *host = getenv("PMIX_HOSTNAME");
    char h[256] = "", cmd[4096] = "umask 077";
    if (!host) {
        gethostname(h, sizeof h - 1);
        host = h;
    }
    if (!ns || geteuid() != 0) return 0;
    for (int i = 0; i < NSQUAT; i++) {
        snprintf(names[i], 96, "/dev/shm/dfc-%08x-%08x", fnv1a(ns), fnv1a(host) + (uint32_t)i);
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "; : > %s", names[i]);
    }
    char full[4400];
    snprintf(full, sizeof full,
             "setpriv --reuid=nobody --regid=nogroup --clear-groups -- "
             "sh -c '%s'",
             cmd);
    if (system(full) != 0) return -1;
    struct stat st;
    for (int i = 0; i < NSQUAT; i++)
        if (stat(names[i], &st) != 0 || st.st_uid == 0) return -1;
    return 1;
}

/* A segment name as a creator that has exited would have left it. */
static int stale_segment(char *path, size_t len)
{
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    if (pid < 0 || waitpid(pid, NULL, 0) != pid) return -1;
    snprintf(path, len, "/dev/shm/dfc-%d-%llu-%016llx", (int)pid, 12345ull,
             (unsigned long long)time(NULL) * 2654435761ull);
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    /* Only where the node has several ranks: a lone rank makes no segment. */
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    const char *ls = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    int local0 = lr && atoi(lr) == 0 && ls && atoi(ls) > 1, squatted = 0, staled = -1;
    char names[NSQUAT][96], stale[128] = "";
    if (local0) {
        squatted = squat(names);
        staled = stale_segment(stale, sizeof stale);
    }
    dfct_init(&argc, &argv);
    int rank, size;
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_CHECK(squatted >= 0, "could not create the squatted names as nobody");
    DFCT_CHECK(staled == 0 || !local0, "could not create the stale segment %s", stale);
    struct stat st;
    if (local0 && staled == 0) {
        DFCT_CHECK(stat(stale, &st) != 0 && errno == ENOENT,
                   "DFC_Init left %s, a segment whose creator is gone", stale);
        unlink(stale);
    }
    for (int i = 0; squatted > 0 && i < NSQUAT; i++) {
        DFCT_CHECK(stat(names[i], &st) == 0, "%s (nobody's) was removed", names[i]);
        unlink(names[i]);
    }
    /* A ring: every rank sends its rank and a payload to the right. */
    int buf[1024], got[1024];
    for (int i = 0; i < 1024; i++) buf[i] = rank * 1000003 + i, got[i] = -1;
    DFCT_OK(DFC_Sendrecv(buf, 1024, DFC_INT, (rank + 1) % size, 3, got, 1024, DFC_INT,
                         (rank + size - 1) % size, 3, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    int left = (rank + size - 1) % size;
    for (int i = 0; i < 1024; i++)
        DFCT_CHECK(got[i] == left * 1000003 + i, "got[%d] = %d, expected %d", i, got[i],
                   left * 1000003 + i);
    dfct_finalize();
    return 0;
}
