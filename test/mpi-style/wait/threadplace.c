/*
 * threadplace - where DFC_ASYNC_PROGRESS=1 puts its progress thread (issue 16; the rule in
 * dfc_env(7), DFC_ASYNC_PROGRESS_BIND). Before DFC_Init each rank narrows its own binding
 * with -cpus=N (0: leave it as the launcher set it; 1: the processor it runs on; 2: that one
 * and the next allowed one), then finds the thread named "dfc-progress" among its tasks and
 * reads the thread's binding:
 *   - DFC_ASYNC_PROGRESS_BIND unset or 1, two processors or more allowed: a non-empty strict
 *     subset of the rank's binding (which processor it leaves out, the main thread's at
 *     DFC_Init, test/unit/test_place checks: the main thread may move before this test
 *     could see where it was);
 *   - one processor, DFC_ASYNC_PROGRESS_BIND=0, or fewer online processors on the node than
 *     twice its ranks: the rank's binding, unchanged.
 * Then a checked Iallreduce that only the thread can move during a pause, so a thread placed
 * where it cannot run would show. Prints nothing else on success.
 */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "../dfctest.h"

/* Narrows this process's binding to `n` processors starting with the current one. */
static void narrow(int n, cpu_set_t *set)
{
    cpu_set_t all;
    sched_getaffinity(0, sizeof all, &all);
    CPU_ZERO(set);
    int here = sched_getcpu(), got = 0;
    if (here >= 0 && CPU_ISSET(here, &all)) CPU_SET(here, set), got++;
    for (int c = 0; c < CPU_SETSIZE && got < n; c++)
        if (CPU_ISSET(c, &all) && !CPU_ISSET(c, set)) CPU_SET(c, set), got++;
    DFCT_CHECK(sched_setaffinity(0, sizeof *set, set) == 0, "sched_setaffinity failed");
}

/* The thread id of the task named `name` in this process, or -1 (-2: more than one). */
static pid_t task_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    pid_t found = -1;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[300], comm[64] = ""; /* d_name: up to 255 bytes */
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0;
        fclose(f);
        if (!strcmp(comm, name)) found = found == -1 ? (pid_t)atoi(e->d_name) : -2;
    }
    if (d) closedir(d);
    return found;
}

static void list(const cpu_set_t *s, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && n + 8 < len; c++)
        if (CPU_ISSET(c, s)) n += snprintf(out + n, len - n, "%s%d", n ? "," : "", c);
}

int main(int argc, char **argv)
{
    dfct_watchdog(argc, argv, "threadplace", 60);
    int cpus = (int)dfct_opt_long(argc, argv, "cpus", 0);
    cpu_set_t mine;
    if (cpus > 0) narrow(cpus, &mine);
    else sched_getaffinity(0, sizeof mine, &mine);
    dfct_init(&argc, &argv);
    const char *bind_env = getenv("DFC_ASYNC_PROGRESS_BIND");
    int bind = !bind_env || strcmp(bind_env, "0");
    DFC_Comm node;
    int local = 1;
    DFCT_OK(DFC_Comm_split_type(DFC_COMM_WORLD, DFC_COMM_TYPE_SHARED, 0, DFC_INFO_NULL, &node));
    DFC_Comm_size(node, &local);
    DFCT_OK(DFC_Comm_free(&node));
    if (2 * local > sysconf(_SC_NPROCESSORS_ONLN)) bind = 0; /* no core free for each thread */
    pid_t tid = task_named("dfc-progress");
    DFCT_CHECK(tid > 0, "%s task named dfc-progress (DFC_ASYNC_PROGRESS=1 is needed)",
               tid == -2 ? "more than one" : "no");
    if (tid > 0) {
        cpu_set_t th;
        char a[256], b[256];
        DFCT_CHECK(sched_getaffinity(tid, sizeof th, &th) == 0, "sched_getaffinity(%d)", tid);
        list(&mine, a, sizeof a);
        list(&th, b, sizeof b);
        cpu_set_t both;
        CPU_AND(&both, &th, &mine);
        if (bind && CPU_COUNT(&mine) >= 2) {
            DFCT_CHECK(CPU_COUNT(&th) > 0 && CPU_EQUAL(&both, &th) && !CPU_EQUAL(&th, &mine),
                       "thread on {%s}: not a strict subset of the rank's {%s}", b, a);
        } else {
            DFCT_CHECK(CPU_EQUAL(&th, &mine), "thread on {%s}, the rank's binding is {%s}", b, a);
        }
    }
    /* The thread moves an Iallreduce while the caller sleeps, wherever it was put. */
    int size, rank;
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    enum { N = 4096 };
    static int in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = rank * 7 + i, out[i] = -1;
    DFC_Request r;
    DFCT_OK(DFC_Iallreduce(in, out, N, DFC_INT, DFC_SUM, DFC_COMM_WORLD, &r));
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    DFCT_OK(DFC_Wait(&r, DFC_STATUS_IGNORE));
    for (int i = 0; i < N; i++) {
        int want = 7 * size * (size - 1) / 2 + size * i;
        if (out[i] != want) {
            DFCT_CHECK(0, "element %d: %d, expected %d", i, out[i], want);
            break;
        }
    }
    return dfct_finalize();
}
