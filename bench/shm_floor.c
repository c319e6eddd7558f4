/*
 * shm_floor - hardware floors of 2-rank small operations on this machine, measured the way
 * dfc_bench measures (each iteration timed on its own with CLOCK_MONOTONIC, the maximum over
 * the two ranks, the median over iterations), without any library: two threads pinned to CPUs
 * 0 and 1 move the bytes through cache lines they share. Nothing else (no argument checks, no
 * matching, no progress engine, no buffer-reuse protocol) is in the loop, so no library can be
 * faster than these figures, under this timing method, on this machine. Issue 16 lets a row
 * stand where Open MPI already sits at such a floor and DFC is within 10 % of it.
 *
 *     bench/shm_floor [iterations [bcast | exchange | pingpong]]   (default 200000)
 *
 * - no mode: an 8-byte allreduce. Each thread writes 8 bytes and a stamp into its own cache
 *   line, spins until the other's stamp appears, and adds.
 * - bcast: a 2-rank 8-byte broadcast. Thread 0 (the root) writes 8 bytes and a stamp into the
 *   next of 16 lines and goes on; thread 1 spins until the stamp appears, reads the bytes and
 *   stores the number it has read in a line of its own, which the root reads only when it
 *   finds fewer than 8 lines free (as DFC's slots do). A root that runs ahead of its reader is
 *   what makes a broadcast cheaper than an exchange under this timing method, so the
 *   exchange's floor does not bound a broadcast's.
 * - exchange: a 2-rank allgather or alltoall of B bytes (dfc_bench's sizes: the gathered
 *   output, or what one rank sends), 8 B to 4 KiB. Each thread writes its block of B/2 bytes
 *   and a stamp into a slot of its own, copies the block into its output, spins until the
 *   other's stamp appears and copies the other's block out: the three copies of B/2 that any
 *   design without single-copy tools makes.
 * - pingpong: a ping-pong of B bytes, 8 B to 4 KiB, one way (half the round trip, as
 *   dfc_bench prints). Thread 0 writes B bytes and a stamp into its slot; thread 1 spins on
 *   the stamp, copies the bytes out, and answers the same way; thread 0 copies the answer out.
 * The first and last byte of every block carry the iteration's number, written before the
 * clock starts, and every copy out is checked on them (abort on a stale or wrong one).
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

/* ---- The sized floors: exchange and pingpong, 8 B - 4 KiB ----------------------------------- */

enum { MAX_BYTES = 4096, NSLOTS = 4 };
typedef struct {
    _Alignas(64) _Atomic unsigned long stamp;
    _Alignas(64) unsigned char data[MAX_BYTES];
} big_slot_t;

static big_slot_t big[2][NSLOTS]; /* [writer][iteration % NSLOTS] */
static size_t bytes;              /* the size being measured */
static _Alignas(64) unsigned char src[2][MAX_BYTES], dst[2][MAX_BYTES];
static int sized_pingpong;

/* Spins until the other thread's slot of iteration k is written. Slots are reused every
 * NSLOTS iterations; the threads stay within one iteration of each other, so no slot is
 * rewritten before its reader is done with it. */
static const big_slot_t *await(int writer, long k)
{
    const big_slot_t *s = &big[writer][k % NSLOTS];
    while (atomic_load_explicit(&s->stamp, memory_order_acquire) != (unsigned long)k)
        ;
    return s;
}

static void post(int me, long k, const unsigned char *from, size_t n)
{
    big_slot_t *s = &big[me][k % NSLOTS];
    memcpy(s->data, from, n);
    atomic_store_explicit(&s->stamp, (unsigned long)k, memory_order_release);
}

static void copy_out(unsigned char *to, const unsigned char *from, size_t n, long k)
{
    memcpy(to, from, n);
    if (to[0] != (unsigned char)k || to[n - 1] != (unsigned char)k) abort();
}

static void *sized_main(void *arg)
{
    int me = (int)(long)arg;
    size_t half = bytes / 2, n = sized_pingpong ? bytes : half;
    pin(me);
    pthread_barrier_wait(&start);
    for (long k = 1; k <= iters; k++) {
        src[me][0] = src[me][n - 1] = (unsigned char)k; /* fresh data each iteration */
        double t0 = now_ns();
        if (!sized_pingpong) { /* exchange: my block out, my own copy, then the other's */
            post(me, k, src[me], half);
            copy_out(dst[me] + (size_t)me * half, src[me], half, k);
            copy_out(dst[me] + (size_t)!me * half, await(!me, k)->data, half, k);
        } else if (me == 0) {
            post(0, k, src[0], n);
            copy_out(dst[0], await(1, k)->data, n, k);
        } else {
            copy_out(dst[1], await(0, k)->data, n, k);
            post(1, k, src[1], n);
        }
        times[me][k - 1] = (now_ns() - t0) / (sized_pingpong ? 2 : 1);
    }
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs rank_fn on two threads and returns the median over iterations of the maximum over the
 * two, and in *alone rank 0's own median. */
static double run_pair(void *(*rank_fn)(void *), double *m, double *alone)
{
    pthread_t t;
    pthread_barrier_init(&start, NULL, 2);
    pthread_create(&t, NULL, rank_fn, (void *)1L);
    rank_fn((void *)0L);
    pthread_join(t, NULL);
    pthread_barrier_destroy(&start);
    for (long i = 0; i < iters; i++) m[i] = times[0][i] > times[1][i] ? times[0][i] : times[1][i];
    qsort(m, iters, sizeof *m, cmp);
    qsort(times[0], iters, sizeof(double), cmp);
    *alone = times[0][iters / 2];
    return m[iters / 2];
}

int main(int argc, char **argv)
{
    if (argc > 1) iters = atol(argv[1]);
    if (iters < 1) iters = 1;
    const char *mode = argc > 2 ? argv[2] : "";
    int bcast = !strcmp(mode, "bcast");
    sized_pingpong = !strcmp(mode, "pingpong");
    if (*mode && !bcast && !sized_pingpong && strcmp(mode, "exchange")) {
        fprintf(stderr, "usage: shm_floor [iterations [bcast | exchange | pingpong]]\n");
        return 2;
    }
    times[0] = malloc(iters * sizeof(double));
    times[1] = malloc(iters * sizeof(double));
    double *m = malloc(iters * sizeof(double)), alone;
    if (!times[0] || !times[1] || !m) return 1;
    if (!*mode || bcast) {
        double med = run_pair(bcast ? bcast_main : rank_main, m, &alone);
        printf("shm_floor: 8-byte %s between CPUs 0 and 1: median of the max over both ranks %.0f "
               "ns (rank 0 alone %.0f ns), %ld iterations\n",
               bcast ? "broadcast" : "exchange", med, alone, iters);
    } else {
        printf("# shm_floor: 2-rank %s between CPUs 0 and 1, %ld iterations a size\n",
               sized_pingpong ? "ping-pong (one way, half the round trip)"
                              : "exchange (allgather or alltoall of B bytes: B/2 a rank)",
               iters);
        printf("# %8s %12s %16s\n", "bytes", "median ns", "rank 0 alone ns");
        for (bytes = 8; bytes <= MAX_BYTES; bytes *= 2) {
            for (int w = 0; w < 2; w++) /* each size counts its iterations from 1 again */
                for (int i = 0; i < NSLOTS; i++) atomic_store(&big[w][i].stamp, 0);
            double med = run_pair(sized_main, m, &alone);
            printf("  %8zu %12.0f %16.0f\n", bytes, med, alone);
        }
    }
    free(m);
    free(times[0]);
    free(times[1]);
    return 0;
}
