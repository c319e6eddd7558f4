/*
 * userop_unlocked - a user op of a collective runs without the library lock, under
 * DFC_THREAD_MULTIPLE. Each reduction waits until a second thread of its process has made a
 * DFC call (DFC_Comm_size, which takes the lock) while the op runs: the way Python's GIL
 * meets the library lock under mpi4py. When the op ran under the lock that call blocked, the
 * op waited for it and the process hung (found by mpi4py's test suite, issue 21).
 * Allreduce, Reduce and Scan with a non-commutative op (a 2x2 matrix product, checked element
 * by element against the product in rank order), blocking and nonblocking, on
 * DFC_COMM_WORLD and a duplicate; with DFC_ASYNC_PROGRESS=1 the progress thread runs ops.
 * An op that waits more than 20 s for the other thread reports the hang and the test fails.
 * -watchdog=S (default 90): a hang elsewhere prints "watchdog: hang in userop_unlocked".
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "../dfctest.h"

#define NITER 20

static atomic_int op_waiting;  /* an op waits for the other thread's call */
static atomic_int call_made;   /* the other thread's call returned while an op waited */
static atomic_int op_timeouts; /* ops that gave up waiting */
static atomic_int stop_caller;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* b = a x b for 2x2 integer matrices (row-major), modulo a prime; non-commutative. */
static void mul_into(const long *a, long *b)
{
    long r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                 a[2] * b[1] + a[3] * b[3]};
    for (int k = 0; k < 4; k++) b[k] = r[k] % 1000003;
}

/* The user op: inout = in x inout, per matrix, once the other thread has made its call. */
static void matmul_op(void *invec, void *inoutvec, int *len, DFC_Datatype *dt)
{
    (void)dt;
    atomic_store(&call_made, 0);
    atomic_store(&op_waiting, 1);
    double t0 = now();
    while (!atomic_load(&call_made)) {
        if (now() - t0 > 20.0) {
            atomic_fetch_add(&op_timeouts, 1);
            break;
        }
        nanosleep(&(struct timespec){0, 100000}, NULL);
    }
    atomic_store(&op_waiting, 0);
    const long *a = invec;
    long *b = inoutvec;
    for (int i = 0; i < *len; i++, a += 4, b += 4) mul_into(a, b);
}

/* The other thread: whenever an op waits, makes a DFC call and tells it. */
static void *caller(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_caller)) {
        if (atomic_load(&op_waiting) && !atomic_load(&call_made)) {
            int size = -1;
            DFC_Comm_size(DFC_COMM_WORLD, &size);
            if (size > 0) atomic_store(&call_made, 1);
        }
        nanosleep(&(struct timespec){0, 50000}, NULL);
    }
    return NULL;
}

static void matrix_of(int rank, int it, long m[4])
{
    m[0] = 1 + rank, m[1] = it + 1, m[2] = 2 * rank + 1, m[3] = 1;
}

/* The product M_0 x M_1 x ... x M_upto of the ranks' matrices (MPI's order for ops). */
static void product(int upto, int it, long out[4])
{
    long m[4];
    matrix_of(upto, it, out);
    for (int r = upto - 1; r >= 0; r--) {
        matrix_of(r, it, m);
        mul_into(m, out);
    }
}

static void check(const char *what, int it, const long got[4], const long want[4])
{
    for (int k = 0; k < 4; k++)
        DFCT_CHECK(got[k] == want[k], "%s iteration %d: element %d is %ld, expected %ld", what, it,
                   k, got[k], want[k]);
}

int main(int argc, char **argv)
{
    int rank, size;
    dfct_watchdog(argc, argv, "userop_unlocked", 90);
    dfct_init_multiple(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);

    DFC_Datatype mat;
    DFC_Op op;
    DFC_Comm dup;
    DFCT_OK(DFC_Type_contiguous(4, DFC_LONG, &mat));
    DFCT_OK(DFC_Type_commit(&mat));
    DFCT_OK(DFC_Op_create(matmul_op, 0, &op));
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &dup));
    pthread_t t;
    DFCT_CHECK(pthread_create(&t, NULL, caller, NULL) == 0, "pthread_create failed");

    for (int it = 0; it < NITER; it++) {
        DFC_Comm comm = it % 2 ? dup : DFC_COMM_WORLD;
        long in[4], out[4] = {-1, -1, -1, -1}, want[4];
        matrix_of(rank, it, in);
        if (it % 3 == 0) {
            DFCT_OK(DFC_Allreduce(in, out, 1, mat, op, comm));
        } else {
            DFC_Request r;
            DFCT_OK(DFC_Iallreduce(in, out, 1, mat, op, comm, &r));
            DFCT_OK(DFC_Wait(&r, DFC_STATUS_IGNORE));
        }
        product(size - 1, it, want);
        check("allreduce", it, out, want);

        long red[4] = {-1, -1, -1, -1};
        DFCT_OK(DFC_Reduce(in, red, 1, mat, op, 0, comm));
        if (rank == 0) check("reduce", it, red, want);

        long sc[4] = {-1, -1, -1, -1};
        DFCT_OK(DFC_Scan(in, sc, 1, mat, op, comm));
        product(rank, it, want);
        check("scan", it, sc, want);
    }
    atomic_store(&stop_caller, 1);
    pthread_join(t, NULL);
    DFCT_CHECK(atomic_load(&op_timeouts) == 0,
               "%d user-op calls waited 20 s for another thread's DFC call (run under the "
               "library lock)",
               atomic_load(&op_timeouts));
    DFCT_OK(DFC_Comm_free(&dup));
    DFCT_OK(DFC_Op_free(&op));
    DFCT_OK(DFC_Type_free(&mat));
    alarm(0);
    return dfct_finalize();
}
