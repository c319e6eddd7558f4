/*
 * test_memtype - the memory-type cache (src/cuda/memtype.c), in three settings:
 *   - as is (no CUDA in the process): brk heap, stack, mmap and static pointers are host
 *     memory, no driver query is made, and neither libcuda nor libcudart gets loaded;
 *   - OTHER_LIBRARY=path: another library loaded after the first look changes nothing;
 *   - FAKE_CUDA_DRIVER=path (check_memtype.sh): a fake libcuda.so.1 answers from ranges the
 *     test sets: before "cuInit" everything is host; device, managed and pool-like ranges
 *     give their ordinal, registered host ranges are host; a range freed and reused as host
 *     or as another device's is answered anew; the home device (dfc_gpu_home_device) is
 *     the last device answer's, from any thread; heap and stack pointers never reach the driver
 *     (built without CUDA: every pointer is host and the driver is never asked);
 *   - DFC_TEST_CUDA=1 (the GPU machine): real cudaMalloc, cudaMallocManaged, cudaHostAlloc,
 *     cudaHostRegister, cudaMallocAsync memory, freed and allocated again.
 * Links libdfc_unit (the library's objects) and needs no bootstrap.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda/dfc_cuda.h"

#define CHECK(c, ...)                                                     \
    do {                                                                  \
        if (!(c)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                        \
            exit(1);                                                      \
        }                                                                 \
    } while (0)

static char static_buf[4096];

static int loaded(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    if (h) dlclose(h);
    return h != NULL;
}

static void *map_bytes(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED, "mmap of %zu bytes failed", n);
    return p;
}

/* No CUDA in the process: every pointer is host, for free. */
static void host_only(void)
{
    char stack_buf[64];
    char *small = malloc(100), *big = map_bytes(1 << 20);
    CHECK(!dfc_gpu_driver_in_process(), "the driver counts as present without CUDA");
    const void *ptrs[] = {small, small + 99, stack_buf, big, big + 12345, static_buf, NULL};
    for (int i = 0; i < 7; i++) {
        CHECK(dfc_gpu_ptr_device(ptrs[i]) == -1, "pointer %d (%p) is not host", i, ptrs[i]);
        CHECK(!dfc_gpu_is_device_ptr(ptrs[i]), "pointer %d is device", i);
    }
    CHECK(dfc_gpu_memtype_queries() == 0, "%lu driver queries without a driver",
          dfc_gpu_memtype_queries());
    CHECK(!loaded("libcuda.so.1") && !loaded("libcudart.so.13") && !loaded("libcudart.so.12"),
          "classifying host pointers loaded CUDA");
    free(small);
    munmap(big, 1 << 20);
}

static void *memo_probe;
static int memo_probe_dev = -3;
static void *ask_elsewhere(void *arg)
{
    (void)arg;
    memo_probe_dev = dfc_gpu_ptr_device(memo_probe);
    return NULL;
}

static void fake_driver(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    CHECK(h, "cannot load the fake driver %s: %s", path, dlerror());
    void (*init)(int) = (void (*)(int))dlsym(h, "fake_cu_init");
    void (*set)(int, void *, size_t, unsigned, int,
                int) = (void (*)(int, void *, size_t, unsigned, int, int))dlsym(h, "fake_cu_set");
    unsigned long *calls = dlsym(h, "fake_cu_calls");
    CHECK(init && set && calls, "the fake driver lacks its controls");
#ifndef HAVE_CUDA
    /* Built without CUDA, the library has no device paths: even with a driver in the process
     * that claims a range, every pointer is host memory and the driver is never asked. */
    {
        char *range = mmap(NULL, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(range != MAP_FAILED, "mmap of the fake device range failed");
        init(1);
        set(0, range, 1 << 20, 2, 0, 0);
        unsigned long before = *calls;
        CHECK(!dfc_gpu_driver_in_process(), "a build without CUDA looks for a driver");
        CHECK(dfc_gpu_ptr_device(range) == -1, "a build without CUDA sees device memory");
        CHECK(*calls == before, "a build without CUDA asked the driver %lu times", *calls - before);
        munmap(range, 1 << 20);
        return;
    }
#endif
    /* The first question after the load is a pointer's: the header's inline tier 2
     * (dfc_cuda.h) must notice the load by itself, before anything else looks again. */
    CHECK(dfc_gpu_home_device() == -1, "a home device before any device buffer");
    char *first = mmap(NULL, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(first != MAP_FAILED, "mmap of the fake device range failed");
    init(1);
    set(5, first, 1 << 20, 2, 0, 0);
    CHECK(dfc_gpu_ptr_device(first) == 0, "device memory of a driver loaded late is host");
    set(5, first, 0, 0, 0, 0);
    init(0);
    munmap(first, 1 << 20);
    CHECK(dfc_gpu_driver_in_process(), "a driver loaded after the first look is not seen");

    /* Address space of our own stands in for device ranges (nothing is touched). */
    char *va = mmap(NULL, 8 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(va != MAP_FAILED, "mmap of the fake device range failed");
    unsigned long c0 = *calls;
    CHECK(dfc_gpu_ptr_device(va) == -1, "before cuInit a pointer is device");
    CHECK(*calls == c0 + 1, "the driver was asked %lu times, expected once", *calls - c0);
    init(1);
    set(0, va, 2 << 20, 2, 0, 1);              /* cudaMalloc on device 1 */
    set(1, va + (2 << 20), 1 << 20, 2, 1, 0);  /* cudaMallocManaged on device 0 */
    set(2, va + (3 << 20), 1 << 20, 1, 0, 0);  /* cudaHostRegister / cudaHostAlloc */
    set(3, va + (4 << 20), 64 << 10, 2, 0, 0); /* a block of a cudaMallocAsync pool */
    CHECK(dfc_gpu_home_device() == 0, "home device %d, not the first buffer's (device 0)",
          dfc_gpu_home_device());
    CHECK(dfc_gpu_ptr_device(va) == 1, "device range start: %d", dfc_gpu_ptr_device(va));
    CHECK(dfc_gpu_home_device() == 1, "home device %d after a buffer of device 1",
          dfc_gpu_home_device());
    CHECK(dfc_gpu_ptr_device(va + (2 << 20) - 1) == 1, "device range end");
    CHECK(dfc_gpu_ptr_device(va + (2 << 20) + 8) == 0, "managed memory is not device 0");
    CHECK(dfc_gpu_ptr_device(va + (3 << 20)) == -1, "registered host memory is device");
    CHECK(dfc_gpu_ptr_device(va + (4 << 20) + 100) == 0, "pool memory is not device 0");
    CHECK(dfc_gpu_ptr_device(va + (5 << 20)) == -1, "memory CUDA does not know is device");
    CHECK(dfc_gpu_home_device() == 0,
          "home device %d: host answers moved it, or the last "
          "device answer (device 0) did not",
          dfc_gpu_home_device());
    /* Freed, then the range reused: the answer follows at once (nothing stale is kept). */
    set(0, va, 0, 0, 0, 0);
    CHECK(dfc_gpu_ptr_device(va) == -1, "a freed device range still counts as device");
    set(0, va, 1 << 20, 2, 0, 0);
    CHECK(dfc_gpu_ptr_device(va + 4096) == 0, "a range reused on device 0 is not device 0");
    set(0, va, 1 << 20, 1, 0, 0);
    CHECK(dfc_gpu_ptr_device(va + 4096) == -1, "a range reused as host memory is device");
    set(3, va + (4 << 20), 0, 0, 0, 0); /* the pool trimmed */
    CHECK(dfc_gpu_ptr_device(va + (4 << 20) + 100) == -1, "a trimmed pool block is device");

    /* The memo (a blocking device send's or receive's, dfc_gpu_memo_arm): once armed, the
     * driver's device answers are kept, with the buffer id, for their pointer in this
     * thread until cleared; host answers are not kept. */
    set(0, va, 1 << 20, 2, 0, 1);
    c0 = *calls;
    CHECK(dfc_gpu_ptr_device(va) == 1 && dfc_gpu_ptr_device(va) == 1 && *calls == c0 + 2,
          "a memo not armed answered");
    dfc_gpu_memo_arm();
    CHECK(dfc_gpu_ptr_device(va) == 1 && dfc_gpu_ptr_device(va) == 1 && *calls == c0 + 3,
          "the memo's pointer reached the driver again (%lu calls)", *calls - c0);
    CHECK(dfc_gpu_memo.buffer_id == 1, "the memo kept buffer id %llu, want 1",
          dfc_gpu_memo.buffer_id);
    CHECK(dfc_gpu_ptr_device(va + (3 << 20)) == -1 && dfc_gpu_ptr_device(va + (3 << 20)) == -1 &&
              *calls == c0 + 5,
          "a host answer was kept");
    CHECK(dfc_gpu_ptr_device(va + 64) == 1 && *calls == c0 + 6,
          "another pointer was not asked of the driver");
    pthread_t other;
    memo_probe = va + 64;
    CHECK(!pthread_create(&other, NULL, ask_elsewhere, NULL) && !pthread_join(other, NULL),
          "pthread_create failed");
    CHECK(memo_probe_dev == 1 && *calls == c0 + 7, "another thread's query used the memo");
    dfc_gpu_memo_clear();
    set(0, va, 1 << 20, 1, 0, 0); /* now host memory: a memo left behind would say device */
    CHECK(dfc_gpu_ptr_device(va + 64) == -1 && *calls == c0 + 8, "a cleared memo still answered");
    /* The home device follows device answers given in any thread (the progress thread's) */
    CHECK(dfc_gpu_ptr_device(va + (2 << 20) + 8) == 0 && dfc_gpu_home_device() == 0,
          "managed memory of device 0 did not make it the home");
    set(0, va, 1 << 20, 2, 0, 1);
    CHECK(!pthread_create(&other, NULL, ask_elsewhere, NULL) && !pthread_join(other, NULL),
          "pthread_create failed");
    CHECK(memo_probe_dev == 1 && dfc_gpu_home_device() == 1,
          "another thread's device answer did not make device 1 the home");

    /* The brk heap and the stack never reach the driver, even one that claims everything. */
#ifdef __SANITIZE_ADDRESS__
    /* ASan's allocator does not take from the brk heap: heap memory straight from sbrk */
    char stack_buf[64], *small = sbrk(4096);
#else
    char stack_buf[64], *small = malloc(64);
#endif
    set(4, (void *)4096, ~(size_t)0 >> 1, 2, 0, 0);
    c0 = *calls;
    for (int i = 0; i < 1000; i++)
        CHECK(dfc_gpu_ptr_device(i & 1 ? small : stack_buf) == -1, "heap or stack is device");
    CHECK(*calls == c0, "heap and stack pointers reached the driver %lu times", *calls - c0);
#ifndef __SANITIZE_ADDRESS__
    free(small);
#endif
    munmap(va, 8 << 20);
}

typedef int (*cuda_fn)();
static void real_cuda(void)
{
    void *rt = dlopen("libcudart.so.13", RTLD_NOW);
    if (!rt) rt = dlopen("libcudart.so.12", RTLD_NOW);
    CHECK(rt, "no CUDA runtime: %s", dlerror());
#define FN(name) cuda_fn name = (cuda_fn)dlsym(rt, #name)
    FN(cudaMalloc);
    FN(cudaFree);
    FN(cudaMallocManaged);
    FN(cudaHostAlloc);
    FN(cudaFreeHost);
    FN(cudaHostRegister);
    FN(cudaHostUnregister);
    FN(cudaMallocAsync);
    FN(cudaFreeAsync);
    FN(cudaDeviceSynchronize);
    void *d = NULL, *m = NULL, *h = NULL, *a = NULL;
    char *big = map_bytes(4 << 20);
    CHECK(dfc_gpu_ptr_device(big) == -1, "host memory before any CUDA allocation is device");
    CHECK(!cudaMalloc(&d, (size_t)1 << 20), "cudaMalloc failed");
    CHECK(dfc_gpu_ptr_device(d) == 0 && dfc_gpu_ptr_device((char *)d + 1000) == 0,
          "cudaMalloc memory is not device 0");
    CHECK(dfc_gpu_ptr_device(big) == -1, "mmap host memory is device");
    CHECK(!cudaMallocManaged(&m, (size_t)1 << 20, 1), "cudaMallocManaged failed");
    CHECK(dfc_gpu_ptr_device(m) == 0, "managed memory is not device 0");
    CHECK(!cudaHostAlloc(&h, (size_t)1 << 20, 0), "cudaHostAlloc failed");
    CHECK(dfc_gpu_ptr_device(h) == -1, "cudaHostAlloc memory is device");
    CHECK(!cudaHostRegister(big, (size_t)4 << 20, 0), "cudaHostRegister failed");
    CHECK(dfc_gpu_ptr_device(big + 100) == -1, "registered host memory is device");
    CHECK(!cudaMallocAsync(&a, (size_t)256 << 10, NULL), "cudaMallocAsync failed");
    CHECK(dfc_gpu_ptr_device(a) == 0, "pool memory is not device 0");
    CHECK(!cudaFreeAsync(a, NULL) && !cudaDeviceSynchronize(), "cudaFreeAsync failed");
    void *d2 = NULL;
    CHECK(!cudaFree(d), "cudaFree failed");
    CHECK(!cudaMalloc(&d2, (size_t)1 << 20), "cudaMalloc failed");
    CHECK(dfc_gpu_ptr_device(d2) == 0, "reallocated device memory (%s address) is not device",
          d2 == d ? "same" : "another");
    CHECK(!cudaFree(d2) && !cudaFree(m) && !cudaFreeHost(h) && !cudaHostUnregister(big),
          "freeing failed");
    CHECK(dfc_gpu_ptr_device(big) == -1, "unregistered host memory is device");
    printf("test_memtype: real CUDA checks passed (reallocation at the %s address)\n",
           d2 == d ? "same" : "another");
}

int main(void)
{
    host_only();
    const char *other = getenv("OTHER_LIBRARY");
    if (other && *other) { /* a library that is not the driver: still no device memory */
        CHECK(dlopen(other, RTLD_NOW | RTLD_LOCAL), "cannot load %s: %s", other, dlerror());
        host_only();
    }
    const char *fake = getenv("FAKE_CUDA_DRIVER");
    if (fake && *fake) fake_driver(fake);
    /* Not behind the fake driver: check_memtype.sh's second run loads it in this process
     * (with DFC_TEST_CUDA=1 in the environment, the real runtime then got the fake driver
     * and its claimed ranges: on the lent H200, stop 23). */
    const char *real = getenv("DFC_TEST_CUDA");
    if (real && !strcmp(real, "1") && !(fake && *fake)) real_cuda();
    return 0;
}
