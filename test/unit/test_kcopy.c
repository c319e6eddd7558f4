/*
 * test_kcopy.c - the small-copy kernel's ring protocol (src/cuda/kcopy.c, kcopy_abi.h) without
 * a GPU: a host thread plays the kernel, following kcopy_kernel.cu's loop step by step, and
 * "device memory" is host memory that fake_device_of calls device 0. A lingering
 * time of a few microseconds makes the stand-in exit between most copies, so tickets
 * published after its last look must be found by the host and served by a new launch.
 *
 * Cases: copies of every size from 0 to 4 KiB and of odd sizes up to DFC_GPU_KCOPY_MAX, data
 * checked byte by byte against fresh random inputs, destinations poisoned and the bytes
 * around them checked untouched; four threads at once; a kernel that does not run yet (the
 * ring fills, the overflow is refused, then everything completes in order); a launch that
 * fails (a copy is refused, an outstanding ticket reports -1); a size above the limit, a host
 * destination and DFC_GPU_KCOPY_MAX=0 refused.
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

#define POOL (8 << 20)
#define SLOT (256 * 1024)       /* per thread: source and destination with guards */
static unsigned char *dev_pool; /* what device_of calls device memory */

static int fake_device_of(const void *p)
{
    const unsigned char *c = p;
    return c >= dev_pool && c < dev_pool + POOL ? 0 : -1;
}

/* A copy as the library's callers start one: with the devices of both ends, and whether the
 * destination is the device's own memory, which the stand-in checks it is told (odd sizes
 * here: a pull into this process's buffer; even ones: a push into a peer's). */
static int start(void *dst, const void *src, size_t n, uint64_t *t)
{
    return dfc_gpu_kcopy_start(fake_device_of(dst), fake_device_of(src), (int)(n & 1), dst, src, n,
                               t);
}
static int wrong_scope; /* entries whose DFC_KCOPY_LOCAL_DST was not start's (atomic) */

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

static int hold;             /* the stand-in waits before its first look while set (atomic) */
static int fail_launch_from; /* launches from this number on fail (0: none) */
static int launches;

/* kcopy_kernel.cu's take_entry: entry e when its three fields carry ticket t's tag. */
static int take_entry(dfc_kcopy_entry_t *e, uint64_t t, char **dst, const char **src, size_t *n)
{
    uint64_t d = __atomic_load_n(&e->dst, __ATOMIC_ACQUIRE);
    uint64_t s = __atomic_load_n(&e->src, __ATOMIC_ACQUIRE);
    uint64_t b = __atomic_load_n(&e->bytes, __ATOMIC_ACQUIRE);
    if (!DFC_KCOPY_TAG_IS(d, t) || !DFC_KCOPY_TAG_IS(s, t) || !DFC_KCOPY_TAG_IS(b, t)) return 0;
    *dst = (char *)(uintptr_t)DFC_KCOPY_FIELD(d);
    *src = (const char *)(uintptr_t)DFC_KCOPY_FIELD(s);
    *n = DFC_KCOPY_SIZE(b);
    if (!(b & DFC_KCOPY_LOCAL_DST) != !(*n & 1))
        __atomic_add_fetch(&wrong_scope, 1, __ATOMIC_RELAXED);
    return 1;
}

/* kcopy_kernel.cu's loop, one thread. */
static void *kernel_standin(void *arg)
{
    launch_t l = *(launch_t *)arg;
    free(arg);
    while (__atomic_load_n(&hold, __ATOMIC_ACQUIRE)) usleep(100);
    dfc_kcopy_ring_t *r = l.r;
    uint64_t done = __atomic_load_n(&r->done, __ATOMIC_ACQUIRE), idle_since = now_ns();
    for (;;) {
        dfc_kcopy_entry_t *e = &r->e[done % DFC_KCOPY_ENTRIES];
        char *dst;
        const char *src;
        size_t n;
        if (take_entry(e, done + 1, &dst, &src, &n)) {
            memcpy(dst, src, n);
            if (DFC_KCOPY_FIELD(e->bytes) & DFC_KCOPY_REPORT_READ)
                __atomic_store_n(&r->read, done + 1, __ATOMIC_RELEASE);
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

/* One copy of n bytes from a fresh source to a poisoned destination in slot `slot` of the
 * pool, by a ticket; checks the data and the guard bytes around it. */
static void one_copy(size_t n, int slot)
{
    unsigned char *src = dev_pool + (size_t)slot * SLOT + 64, *dst = src + SLOT / 2;
    fill(src, n);
    memset(dst - 16, 0xa5, n + 32);
    uint64_t t;
    int rc = start(dst, src, n, &t), k = 0;
    CHECK(rc == DFC_SUCCESS && t, "start, %zu bytes: rc %d", n, rc);
    while (rc == DFC_SUCCESS && (k = dfc_gpu_kcopy_test(t)) == 0) {}
    CHECK(rc || k == 1, "ticket %llu: %d", (unsigned long long)t, k);
    CHECK(rc || dfc_gpu_kcopy_read(t), "ticket %llu done and its source not read",
          (unsigned long long)t);
    CHECK(!memcmp(dst, src, n), "%zu bytes differ", n);
    for (size_t i = 0; i < 16; i++)
        CHECK(dst[-16 + (long)i] == 0xa5 && dst[n + i] == 0xa5, "guard, %zu bytes", n);
}

static void *worker(void *arg)
{
    int slot = (int)(intptr_t)arg;
    seed += (uint64_t)slot * 0x1234567;
    for (int i = 0; i < 500; i++) {
        size_t n = i % 7 == 0 ? (size_t)(trnd() % 17) : (size_t)(trnd() % (65536 + 1));
        one_copy(n, slot);
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
    unsigned char *a = dev_pool + 6 * SLOT, *b = a + 64 * DFC_KCOPY_ENTRIES;
    __atomic_store_n(&hold, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < DFC_KCOPY_ENTRIES; i++) {
        memset(a + 64 * i, i + 1, 64);
        CHECK(start(b + 64 * i, a + 64 * i, 64, &t[i]) == DFC_SUCCESS, "ticket %d refused", i);
        CHECK(dfc_gpu_kcopy_test(t[i]) == 0, "ticket %d done before the kernel ran", i);
        CHECK(!dfc_gpu_kcopy_read(t[i]), "ticket %d read before the kernel ran", i);
    }
    CHECK(start(b, a, 64, &t[DFC_KCOPY_ENTRIES]) == DFC_ERR_UNSUPPORTED_OPERATION,
          "a 33rd ticket was taken by a full ring");
    __atomic_store_n(&hold, 0, __ATOMIC_RELEASE);
    for (int i = 0; i < DFC_KCOPY_ENTRIES; i++) {
        while (dfc_gpu_kcopy_test(t[i]) == 0) {}
        for (int j = 0; j < 64; j++) CHECK(b[64 * i + j] == i + 1, "ticket %d, byte %d", i, j);
    }
}

/* The kernel runs once, exits, and cannot be launched again: a copy then is refused, and a
 * ticket published after it left reports -1 (the caller copies with the copy engine). */
static void case_launch_fails(void)
{
    unsigned char *a = dev_pool + 7 * SLOT;
    uint64_t t1, t2;
    dfc_gpu_kcopy_finalize();
    launches = 0;
    fail_launch_from = 1;
    CHECK(start(a + 64, a, 8, &t1) == DFC_ERR_UNSUPPORTED_OPERATION,
          "a copy was taken without a kernel");
    dfc_gpu_kcopy_finalize();
    launches = 0;
    fail_launch_from = 2;
    CHECK(start(a + 64, a, 8, &t1) == DFC_SUCCESS, "first ticket");
    while (dfc_gpu_kcopy_test(t1) == 0) {}
    usleep(2000); /* past the lingering time: it has exited */
    int rc = start(a + 128, a, 8, &t2), k = 0;
    if (rc == DFC_SUCCESS) { /* published before the relaunch was found to fail */
        for (int i = 0; i < 1000 && (k = dfc_gpu_kcopy_test(t2)) == 0; i++) usleep(10);
        CHECK(k == -1, "a ticket after the kernel left for good: %d, wanted -1", k);
    }
    CHECK(start(a + 192, a, 8, &t2) == DFC_ERR_UNSUPPORTED_OPERATION,
          "a copy was taken after a failed launch");
    fail_launch_from = 0;
    dfc_gpu_kcopy_finalize();
}

int main(void)
{
    alarm(300); /* a ticket that is never served (no relaunch) hangs: fail instead */
    setenv("DFC_GPU_KCOPY_LINGER_US", "5", 1);
    setenv("DFC_GPU_KCOPY_EARLY_FIN", "1", 1); /* every ticket reports its source read */
    dev_pool = calloc(1, POOL);
    unsigned char host[64];
    uint64_t t;
    if (!dev_pool) return 2;
    dfc_gpu_kcopy_set_launcher(launch_standin);
    CHECK(start(dev_pool + 65536 * 2, dev_pool, 65537, &t) == DFC_ERR_UNSUPPORTED_OPERATION,
          "a copy above DFC_GPU_KCOPY_MAX was taken");
    CHECK(start(host, dev_pool, 8, &t) == DFC_ERR_UNSUPPORTED_OPERATION,
          "a copy into host memory was taken");
    CHECK(start(dev_pool, host, 8, &t) == DFC_ERR_UNSUPPORTED_OPERATION,
          "a copy from host memory was taken");
    for (size_t n = 0; n <= 4096; n += n < 64 ? 1 : 61) one_copy(n, 5);
    for (size_t n = 4097; n <= 65536; n += 4093) one_copy(n, 5);
    one_copy(65536, 5);
    case_threads();
    case_full_ring();
    case_launch_fails();
    setenv("DFC_GPU_KCOPY_MAX", "0", 1);
    CHECK(start(dev_pool + 64, dev_pool, 8, &t) == DFC_ERR_UNSUPPORTED_OPERATION,
          "DFC_GPU_KCOPY_MAX=0 still copies");
    dfc_gpu_kcopy_finalize();
    free(dev_pool);
    CHECK(!wrong_scope, "%d entries with the wrong DFC_KCOPY_LOCAL_DST", wrong_scope);
    printf("test_kcopy: %d failures, %lu launches\n", failures, dfc_gpu_kcopy_launches());
    return failures != 0;
}
