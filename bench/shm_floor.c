/*
 * shm_floor - the hardware floor of a 2-rank small allreduce on this machine, measured the
 * way dfc_bench measures (each iteration timed on its own with CLOCK_MONOTONIC, the maximum
 * over the two ranks, the median over iterations), without any library: two threads pinned
 * to CPUs 0 and 1 each write 8 bytes and a stamp into their own cache line, spin until the
 * other's stamp appears, and add. Nothing else (no argument checks, no matching, no progress
 * engine, no buffer-reuse protocol) is in the loop, so no library can be faster than this
 * figure, under this timing method, on this machine.
 *
 * With "bcast", the floor of a 2-rank 8-byte broadcast instead: thread 0 (the root) writes 8
 * bytes and a stamp into the next of 16 lines and goes on; thread 1 spins until the stamp
 * appears, reads the bytes and stores the number it has read in a line of its own, which the
 * root reads only when it finds fewer than 8 lines free (as DFC's slots do). A root that runs
 * ahead of its reader is what makes a broadcast cheaper than an exchange under this timing
 * method, so the exchange's floor does not bound a broadcast's.
 *
 *     bench/shm_floor [iterations [bcast]]   (default 200000, the exchange)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    _Alignas(64) _Atomic unsigned long stamp;
    float data[2];
} slot_t;

static slot_t slots[2][4];
static double *times[2];
static long iters = 200000;
static pthread_barrier_t start;

enum { BCAST_LINES = 16, BCAST_SLACK = 8 };
static slot_t ring[BCAST_LINES];                 /* the root's lines */
static _Alignas(64) _Atomic unsigned long taken; /* the reader's count */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *rank_main(void *arg)
{
    int me = (int)(long)arg;
    pin(me);
    float in[2] = {(float)me, 1.0f}, out[2];
    pthread_barrier_wait(&start);
    for (long k = 1; k <= iters; k++) {
        double t0 = now_ns();
        slot_t *mine = &slots[me][k & 3], *other = &slots[!me][k & 3];
        memcpy(mine->data, in, sizeof in);
        atomic_store_explicit(&mine->stamp, (unsigned long)k, memory_order_release);
        while (atomic_load_explicit(&other->stamp, memory_order_acquire) != (unsigned long)k)
            ;
        for (int i = 0; i < 2; i++) out[i] = slots[0][k & 3].data[i] + slots[1][k & 3].data[i];
        times[me][k - 1] = now_ns() - t0;
        if (out[1] != 2.0f) abort();
    }
    return NULL;
}

/* One rank of the broadcast floor: 0 writes, 1 reads. */
static void *bcast_main(void *arg)
{
    int me = (int)(long)arg;
    unsigned long seen = 0; /* the root: the reader's count when it last looked */
    pin(me);
    pthread_barrier_wait(&start);
    for (long k = 1; k <= iters; k++) {
        double t0 = now_ns();
        slot_t *line = &ring[k % BCAST_LINES];
        if (me == 0) {
            if ((unsigned long)k - seen > BCAST_LINES)
                while ((unsigned long)k -
                           (seen = atomic_load_explicit(&taken, memory_order_acquire)) >
                       BCAST_LINES - BCAST_SLACK)
                    ;
            line->data[0] = (float)k;
            atomic_store_explicit(&line->stamp, (unsigned long)k, memory_order_release);
        } else {
            while (atomic_load_explicit(&line->stamp, memory_order_acquire) != (unsigned long)k)
                ;
            if (line->data[0] != (float)k) abort();
            atomic_store_explicit(&taken, (unsigned long)k, memory_order_release);
        }
        times[me][k - 1] = now_ns() - t0;
    }
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc > 1) iters = atol(argv[1]);
    if (iters < 1) iters = 1;
    int bcast = argc > 2 && !strcmp(argv[2], "bcast");
    void *(*rank_fn)(void *) = bcast ? bcast_main : rank_main;
    times[0] = malloc(iters * sizeof(double));
    times[1] = malloc(iters * sizeof(double));
    double *m = malloc(iters * sizeof(double));
    if (!times[0] || !times[1] || !m) return 1;
    pthread_t t;
    pthread_barrier_init(&start, NULL, 2);
    pthread_create(&t, NULL, rank_fn, (void *)1L);
    rank_fn((void *)0L);
    pthread_join(t, NULL);
    for (long i = 0; i < iters; i++) m[i] = times[0][i] > times[1][i] ? times[0][i] : times[1][i];
    qsort(m, iters, sizeof *m, cmp);
    qsort(times[0], iters, sizeof(double), cmp);
    printf("shm_floor: 8-byte %s between CPUs 0 and 1: median of the max over both ranks %.0f "
           "ns (rank 0 alone %.0f ns), %ld iterations\n",
           bcast ? "broadcast" : "exchange", m[iters / 2], times[0][iters / 2], iters);
    return 0;
}
