/*
 * test_kcopy.c - the small-copy kernel's ring protocol (src/cuda/kcopy.c, kcopy_abi.h) without
 * a GPU: a host thread plays the kernel, following kcopy_kernel.cu's loop step by step, and
 * "device memory" is host memory that the stand-in's device_of calls device 0. A lingering
 * time of a few microseconds makes the stand-in exit between most copies, so tickets
 * published after its last look must be found by the host and served by a new launch.
 *
 * Cases: copies to, from and between "device" buffers of every size from 0 to the entry's
 * size, data checked byte by byte against fresh random inputs, destinations poisoned and the
 * bytes around them checked untouched; four threads at once; a kernel that does not run yet
 * (the ring fills, the overflow is refused, then everything completes in order); a launch
 * that fails (copies are refused and an outstanding ticket reports -1); sizes above the
 * limit and DFC_GPU_KCOPY_MAX=0 refused.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda/dfc_cuda.h"
#include "cuda/kcopy_abi.h"
#include "dfc.h"
#include "unit_check.h"

#define POOL (1 << 20)
static unsigned char *dev_pool; /* what device_of calls device memory */

static int fake_device_of(const void *p)
{
    const unsigned char *c = p;
    return c >= dev_pool && c < dev_pool + POOL ? 0 : -1;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef struct launch {
    dfc_kcopy_ring_t *r;
    uint64_t linger;
    uint32_t epoch;
} launch_t;

static volatile int hold;    /* the stand-in waits before its first look while set */
static int fail_launch_from; /* launches from this number on fail (0: none) */
static int launches;

/* kcopy_kernel.cu's loop, one thread. */
static void *kernel_standin(void *arg)
{
    launch_t l = *(launch_t *)arg;
    free(arg);
    while (hold) usleep(100);
    dfc_kcopy_ring_t *r = l.r;
    uint64_t done = __atomic_load_n(&r->done, __ATOMIC_ACQUIRE), idle_since = now_ns();
    for (;;) {
        dfc_kcopy_entry_t *e = &r->e[done % DFC_KCOPY_ENTRIES];
        if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) == done + 1) {
            char *dst = e->dst ? (char *)(uintptr_t)e->dst : (char *)e->data;
            const char *src = e->src ? (const char *)(uintptr_t)e->src : (const char *)e->data;
            memcpy(dst, src, e->bytes);
            __atomic_store_n(&r->done, ++done, __ATOMIC_RELEASE);
            idle_since = now_ns();
        } else if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) ||
                   now_ns() - idle_since > l.linger) {
            break;
        }
    }
    __atomic_store_n(&r->exited, l.epoch, __ATOMIC_RELEASE);
    return NULL;
}

static int launch_standin(struct dfc_kcopy_ring *ring, uint64_t linger_ns, uint32_t epoch)
{
    if (fail_launch_from && ++launches >= fail_launch_from) return DFC_ERR_OTHER;
    launch_t *l = malloc(sizeof *l);
    pthread_t t;
    if (!l) return DFC_ERR_NO_MEM;
    *l = (launch_t){ring, linger_ns, epoch};
    if (pthread_create(&t, NULL, kernel_standin, l)) return DFC_ERR_OTHER;
    pthread_detach(t);
    return DFC_SUCCESS;
}

/* rnd64's state is shared: each thread draws from its own (xorshift). */
static __thread uint64_t seed = 0x9e3779b97f4a7c15ull;
static uint64_t trnd(void)
{
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return seed;
}

static void fill(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)trnd();
}

/* One copy of n bytes in direction dir (0 to the device, 1 from it, 2 device to device, by a
 * ticket), at offset off of slot `slot` of the pool; checks data and the guard bytes. */
static void one_copy(int dir, size_t n, int slot)
{
    unsigned char src[DFC_KCOPY_INLINE], host[DFC_KCOPY_INLINE + 64];
    unsigned char *dev = dev_pool + (size_t)slot * 3 * 8192 + 16, *dev2 = dev + 8192;
    fill(src, n);
    memset(host, 0xa5, sizeof host);
    memset(dev - 16, 0xa5, n + 32);
    memset(dev2 - 16, 0xa5, n + 32);
    int rc;
    if (dir == 0) {
        rc = dfc_gpu_kcopy(dev, 1, src, 0, n);
        CHECK(rc == DFC_SUCCESS && !memcmp(dev, src, n), "to the device, %zu bytes: rc %d", n, rc);
    } else if (dir == 1) {
        memcpy(dev, src, n);
        rc = dfc_gpu_kcopy(host + 16, 0, dev, 1, n);
        CHECK(rc == DFC_SUCCESS && !memcmp(host + 16, src, n), "from the device, %zu bytes", n);
        for (size_t i = 0; i < 16; i++)
            CHECK(host[i] == 0xa5 && host[16 + n + i] == 0xa5, "host guard, %zu bytes", n);
    } else {
        memcpy(dev, src, n);
        uint64_t t;
        rc = dfc_gpu_kcopy_start(dev2, dev, n, &t);
        CHECK(rc == DFC_SUCCESS && t, "device to device start, %zu bytes: rc %d", n, rc);
        int k;
        while (rc == DFC_SUCCESS && (k = dfc_gpu_kcopy_test(t)) == 0) {}
        CHECK(rc || k == 1, "ticket %llu: %d", (unsigned long long)t, k);
        CHECK(!memcmp(dev2, src, n), "device to device, %zu bytes", n);
    }
    unsigned char *d = dir == 2 ? dev2 : dev;
    if (dir != 1)
        for (size_t i = 0; i < 16; i++)
            CHECK(d[-16 + (long)i] == 0xa5 && d[n + i] == 0xa5, "device guard, %zu bytes", n);
}

static void *worker(void *arg)
{
    int slot = (int)(intptr_t)arg;
    seed += (uint64_t)slot * 0x1234567;
    for (int i = 0; i < 1000; i++) {
        size_t n = i % 7 == 0 ? (size_t)(trnd() % 17) : (size_t)(trnd() % (DFC_KCOPY_INLINE + 1));
        one_copy(i % 3, n, slot);
        if (i % 5 == 0) usleep((useconds_t)(trnd() % 40)); /* let it exit now and then */
    }
    return NULL;
}

static void case_threads(void)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    CHECK(dfc_gpu_kcopy_launches() > 1, "the stand-in never exited: %lu launches",
          dfc_gpu_kcopy_launches());
}

/* The kernel has not started: 32 tickets fit, the 33rd is refused, then all complete. */
static void case_full_ring(void)
{
    uint64_t t[DFC_KCOPY_ENTRIES + 1];
    unsigned char *a = dev_pool + POOL / 2, *b = a + 64 * DFC_KCOPY_ENTRIES;
    hold = 1;
    for (int i = 0; i < DFC_KCOPY_ENTRIES; i++) {
        memset(a + 64 * i, i + 1, 64);
        CHECK(dfc_gpu_kcopy_start(b + 64 * i, a + 64 * i, 64, &t[i]) == DFC_SUCCESS,
              "ticket %d refused", i);
        CHECK(dfc_gpu_kcopy_test(t[i]) == 0, "ticket %d done before the kernel ran", i);
    }
    CHECK(dfc_gpu_kcopy_start(b, a, 64, &t[DFC_KCOPY_ENTRIES]) == DFC_ERR_UNSUPPORTED_OPERATION,
          "a 33rd ticket was taken by a full ring");
    hold = 0;
    for (int i = 0; i < DFC_KCOPY_ENTRIES; i++) {
        while (dfc_gpu_kcopy_test(t[i]) == 0) {}
        for (int j = 0; j < 64; j++) CHECK(b[64 * i + j] == i + 1, "ticket %d, byte %d", i, j);
    }
}

static void case_launch_fails(void)
{
    dfc_gpu_kcopy_finalize();
    launches = 0;
    fail_launch_from = 1;
    unsigned char h[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(dfc_gpu_kcopy(dev_pool, 1, h, 0, 8) == DFC_ERR_UNSUPPORTED_OPERATION,
          "a copy succeeded without a kernel");
    CHECK(dfc_gpu_kcopy(dev_pool, 1, h, 0, 8) == DFC_ERR_UNSUPPORTED_OPERATION,
          "a second copy succeeded without a kernel");
    /* the kernel runs once, exits, and cannot come back: an outstanding ticket says -1 */
    dfc_gpu_kcopy_finalize();
    launches = 0;
    fail_launch_from = 2;
    hold = 1;
    uint64_t t1, t2;
    CHECK(dfc_gpu_kcopy_start(dev_pool + 64, dev_pool, 8, &t1) == DFC_SUCCESS, "first ticket");
    hold = 0;
    while (dfc_gpu_kcopy_test(t1) == 0) {}
    usleep(2000); /* past the lingering time: it has exited */
    CHECK(dfc_gpu_kcopy_start(dev_pool + 128, dev_pool, 8, &t2) == DFC_SUCCESS ||
              dfc_gpu_kcopy_test(t1) == 1,
          "second ticket");
    int k = 0;
    for (int i = 0; i < 1000 && (k = dfc_gpu_kcopy_test(t2)) == 0; i++) usleep(10);
    CHECK(k == -1 || k == 1, "ticket after a failed relaunch: %d (wanted -1, or 1 if served)", k);
    fail_launch_from = 0;
    dfc_gpu_kcopy_finalize();
}

int main(void)
{
    setenv("DFC_GPU_KCOPY_LINGER_US", "5", 1);
    dev_pool = calloc(1, POOL);
    if (!dev_pool) return 2;
    dfc_gpu_kcopy_set_launcher(launch_standin, fake_device_of);
    unsigned char big[DFC_KCOPY_INLINE + 1];
    CHECK(dfc_gpu_kcopy(dev_pool, 1, big, 0, sizeof big) == DFC_ERR_UNSUPPORTED_OPERATION,
          "a copy above the entry size was taken");
    CHECK(dfc_gpu_kcopy(big, 0, big + 8, 0, 8) == DFC_ERR_UNSUPPORTED_OPERATION,
          "a host-to-host copy was taken");
    for (size_t n = 0; n <= DFC_KCOPY_INLINE; n += n < 64 ? 1 : 61)
        for (int dir = 0; dir < 3; dir++) one_copy(dir, n, 5);
    case_threads();
    case_full_ring();
    case_launch_fails();
    dfc_gpu_kcopy_finalize();
    setenv("DFC_GPU_KCOPY_MAX", "0", 1);
    CHECK(dfc_gpu_kcopy(dev_pool, 1, big, 0, 8) == DFC_ERR_UNSUPPORTED_OPERATION,
          "DFC_GPU_KCOPY_MAX=0 still copies");
    dfc_gpu_kcopy_finalize();
    free(dev_pool);
    printf("test_kcopy: %d failures, %lu launches\n", failures, dfc_gpu_kcopy_launches());
    return failures != 0;
}
