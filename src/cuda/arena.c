/*
 * arena.c - device memory of DFC's own that holds small device messages which arrived before
 * their receive (comm/p2p_hold.c): one cudaMalloc of DFC_GPU_HOLD_MEMORY bytes, made at the
 * first such message, cut into granules of DFC_ARENA_GRANULE bytes. It goes on the device of
 * the last device buffer this process gave DFC (dfc_gpu_home_device), where the receives that
 * take the messages most likely are; the device current in the thread that holds the first
 * message only when the process has given none yet. That thread may be the progress thread of
 * DFC_ASYNC_PROGRESS=1, whose current device is 0 whatever the application chose: on a node of
 * several GPUs, the arena would land on another rank's GPU, and every held message would
 * cross between GPUs twice.
 *
 * Why one block and not cudaMalloc per message: under MPS a cudaMalloc costs tens of
 * microseconds and may synchronize the device, and a held message lives for microseconds.
 * First fit from a rotating cursor over a byte per granule (4096 of them at the default 1 MiB):
 * messages are freed in about the order they came, so the cursor usually finds free granules
 * at once, and a scan of the whole map is a few microseconds at worst. A request the arena
 * cannot serve gets NULL, and the caller does without (p2p_hold.c: pinned host
 * memory holds the message), so the arena never grows and never waits.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda/dfc_cuda.h"
#include "util/dfc_util.h"

#define DFC_ARENA_GRANULE 256

#ifdef HAVE_CUDA
#include "cuda/cuda_fns.h"

static struct {
    char *base;    /* NULL until the first allocation (or after it failed: tried) */
    int tried;     /* the cudaMalloc was attempted */
    size_t n;      /* granules */
    uint8_t *used; /* per granule: 1 taken */
    size_t cursor; /* where the next search starts */
    size_t bytes;  /* DFC_GPU_HOLD_MEMORY */
    int borrowed;  /* base came from dfc_gpu_arena_use: not ours to free */
} ar;

void dfc_gpu_arena_params(void)
{
    long b = dfc_env_long("DFC_GPU_HOLD_MEMORY", 1L << 20,
                          "bytes of device memory a process takes, at its first device message "
                          "that arrives before its receive, to hold such messages (0: none)");
    ar.bytes = b < 0 ? 0 : (size_t)b / DFC_ARENA_GRANULE * DFC_ARENA_GRANULE;
}

size_t dfc_gpu_arena_size(void) { return ar.bytes; }

static int arena_open(void)
{
    ar.tried = 1;
    dfc_gpu_init(); /* the first held message may come before this process's first device buffer */
    if (!ar.bytes || !dfc_gpu_available()) return 0;
    ar.n = ar.bytes / DFC_ARENA_GRANULE;
    ar.used = calloc(ar.n, 1);
    void *p = NULL;
    int home = dfc_gpu_home_device(), cur = home >= 0 ? dfc_gpu_current_device() : -1;
    if (cur == home) cur = -1; /* cur >= 0: the device to make current again */
    if (cur >= 0) dfc_cuda.cudaSetDevice(home);
    cudaError_t e = ar.used ? dfc_cuda.cudaMalloc(&p, ar.bytes) : cudaErrorMemoryAllocation;
    if (cur >= 0) dfc_cuda.cudaSetDevice(cur);
    if (e != cudaSuccess) {
        DFC_LOG(DFC_LOG_INFO, "gpu", "no memory to hold early device messages (%zu bytes): %s",
                ar.bytes, dfc_cuda.cudaGetErrorString(e));
        free(ar.used);
        ar.used = NULL;
        return 0;
    }
    ar.base = p;
    return 1;
}

void dfc_gpu_arena_use(void *mem, size_t bytes)
{
    dfc_gpu_arena_finalize();
    ar.tried = 1;
    ar.n = bytes / DFC_ARENA_GRANULE;
    ar.bytes = ar.n * DFC_ARENA_GRANULE;
    ar.used = calloc(ar.n ? ar.n : 1, 1);
    ar.base = mem;
    ar.borrowed = 1;
}

/* The first run of k free granules from granule `from` up to `to`, or ar.n. */
static size_t find_run(size_t from, size_t to, size_t k)
{
    size_t run = 0;
    for (size_t i = from; i < to; i++) {
        run = ar.used[i] ? 0 : run + 1;
        if (run == k) return i + 1 - k;
    }
    return ar.n;
}

void *dfc_gpu_arena_alloc(size_t bytes)
{
    if (!ar.base && (ar.tried || !arena_open())) return NULL;
    size_t k = (bytes + DFC_ARENA_GRANULE - 1) / DFC_ARENA_GRANULE;
    if (!k || k > ar.n) return NULL;
    size_t at = find_run(ar.cursor, ar.n, k);
    if (at == ar.n) at = find_run(0, DFC_MIN2(ar.n, ar.cursor + k - 1), k);
    if (at == ar.n) return NULL;
    memset(ar.used + at, 1, k);
    ar.cursor = at + k == ar.n ? 0 : at + k;
    return ar.base + at * DFC_ARENA_GRANULE;
}

void dfc_gpu_arena_free(void *p, size_t bytes)
{
    if (!p || !ar.used) return; /* nothing, or after finalize (a matched-probe message's) */
    size_t at = (size_t)((char *)p - ar.base) / DFC_ARENA_GRANULE;
    memset(ar.used + at, 0, (bytes + DFC_ARENA_GRANULE - 1) / DFC_ARENA_GRANULE);
}

size_t dfc_gpu_arena_in_use(void)
{
    size_t n = 0;
    for (size_t i = 0; ar.used && i < ar.n; i++) n += ar.used[i];
    return n * DFC_ARENA_GRANULE;
}

void dfc_gpu_arena_finalize(void)
{
    if (ar.base && !ar.borrowed) dfc_cuda.cudaFree(ar.base);
    free(ar.used);
    size_t bytes = ar.bytes;
    memset(&ar, 0, sizeof ar);
    ar.bytes = bytes;
}

#else /* no CUDA: no device messages to hold */

void dfc_gpu_arena_params(void) {}
size_t dfc_gpu_arena_size(void) { return 0; }
void dfc_gpu_arena_use(void *mem, size_t bytes) { (void)mem, (void)bytes; }
void *dfc_gpu_arena_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}
void dfc_gpu_arena_free(void *p, size_t bytes) { (void)p, (void)bytes; }
size_t dfc_gpu_arena_in_use(void) { return 0; }
void dfc_gpu_arena_finalize(void) {}
#endif
