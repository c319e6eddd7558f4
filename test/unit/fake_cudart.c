/*
 * fake_cudart.c - a stand-in CUDA runtime for check_stage_fake.sh, so that the staging of
 * device buffers (src/comm/stage.c, src/coll/run.c's pipelined collectives, the request
 * shadows) runs end to end, under mpirun, on machines without GPUs.
 *
 * Preloaded into test/mpi-style/gpu/devstage (LD_PRELOAD: its cudaMalloc and cudaMemcpy come
 * from here) and loaded by libdfc (DFC_CUDA_LIBRARY: the same object, so both agree on what is
 * device memory). "Device memory" is a reserved host region that cudaPointerGetAttributes
 * calls device memory; copies are plain memcpy, done at once (test_stage.c models deferred
 * copies); no kernel can be loaded, so the GPU daemon never starts (run with
 * DFC_GPU_DAEMON=0). With FAKE_CUDART_COUNTS set, each process appends at exit a line
 * "<pinned allocations> <async copies>" to that file, so that the script can tell that the
 * staging path ran.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static char *base;
static size_t used;
static const size_t cap = (size_t)8 << 30; /* reserved, not committed */
static long host_allocs, async_copies;

static int in_device(const void *p)
{
    if (!base) {
        base = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
        if (base == MAP_FAILED) abort();
    }
    return (const char *)p >= base && (const char *)p < base + cap;
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("FAKE_CUDART_COUNTS");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    fprintf(f, "%ld %ld\n", host_allocs, async_copies);
    fclose(f);
}

struct attr { /* cudaPointerAttributes: type (2 = device), device, two pointers */
    int type, device;
    void *dev, *host;
};

int cudaGetDeviceCount(int *n)
{
    *n = 1;
    return 0;
}
int cudaGetLastError(void) { return 0; }
const char *cudaGetErrorString(int e)
{
    (void)e;
    return "fake CUDA error";
}
int cudaPointerGetAttributes(struct attr *a, const void *p)
{
    memset(a, 0, sizeof *a);
    a->type = in_device(p) ? 2 : 0;
    return 0;
}
/* The driver's query, which DFC's memory-type cache asks once it finds "libcuda.so.1" in the
 * process (check_stage_fake.sh gives this library that soname): the attributes memtype.c
 * reads, 2 memory type (2: device), 8 managed, 9 device ordinal, 7 buffer id (none). */
int cuPointerGetAttributes(unsigned n, int *attrs, void **data, unsigned long long ptr)
{
    int dev = in_device((const void *)(uintptr_t)ptr);
    for (unsigned k = 0; k < n; k++) switch (attrs[k]) {
        case 2: *(unsigned *)data[k] = dev ? 2 : 0; break;
        case 8: *(unsigned char *)data[k] = 0; break;
        case 9: *(int *)data[k] = dev ? 0 : -2; break;
        case 7: *(unsigned long long *)data[k] = 0; break; /* no IPC here: no buffer id */
        default: return 1;                                 /* CUDA_ERROR_INVALID_VALUE */
        }
    return 0;
}
int cudaMalloc(void **p, size_t n)
{
    in_device(NULL);
    n = (n + 255) & ~(size_t)255;
    if (used + n > cap) return 2; /* cudaErrorMemoryAllocation */
    *p = base + used;
    used += n; /* never reused: a freed buffer's stale contents cannot pass for fresh */
    return 0;
}
int cudaFree(void *p)
{
    (void)p;
    return 0;
}
int cudaMemcpy(void *d, const void *s, size_t n, int kind)
{
    (void)kind;
    memmove(d, s, n);
    return 0;
}
int cudaMemcpyAsync(void *d, const void *s, size_t n, int kind, void *stream)
{
    (void)kind;
    (void)stream;
    async_copies++;
    memmove(d, s, n);
    return 0;
}
/* rows of width bytes, pitches apart (what DFC issues for strided datatypes) */
int cudaMemcpy2DAsync(void *d, size_t dpitch, const void *s, size_t spitch, size_t width,
                      size_t height, int kind, void *stream)
{
    (void)kind;
    (void)stream;
    async_copies++;
    for (size_t k = 0; k < height; k++)
        memmove((char *)d + k * dpitch, (const char *)s + k * spitch, width);
    return 0;
}
int cudaMemset(void *p, int v, size_t n)
{
    memset(p, v, n);
    return 0;
}
int cudaHostAlloc(void **p, size_t n, unsigned flags)
{
    (void)flags;
    host_allocs++;
    *p = malloc(n);
    return *p ? 0 : 2;
}
int cudaFreeHost(void *p)
{
    free(p);
    return 0;
}
int cudaSetDevice(int d)
{
    (void)d;
    return 0;
}
int cudaDeviceGetPCIBusId(char *s, int len, int d)
{
    (void)d;
    snprintf(s, (size_t)len, "0000:01:00.0");
    return 0;
}
int cudaDeviceGetAttribute(int *v, int attr, int d)
{
    (void)attr;
    (void)d;
    *v = 0;
    return 0;
}
int cudaDeviceSynchronize(void) { return 0; }

/* streams and events: copies are done when issued, so every wait is over at once */
static int token;
int cudaStreamCreateWithFlags(void **s, unsigned flags)
{
    (void)flags;
    *s = &token;
    return 0;
}
int cudaStreamSynchronize(void *s)
{
    (void)s;
    return 0;
}
int cudaStreamQuery(void *s)
{
    (void)s;
    return 0;
}
int cudaStreamDestroy(void *s)
{
    (void)s;
    return 0;
}
int cudaEventCreateWithFlags(void **e, unsigned flags)
{
    (void)flags;
    *e = &token;
    return 0;
}
int cudaEventRecord(void *e, void *s)
{
    (void)e;
    (void)s;
    return 0;
}
int cudaEventQuery(void *e)
{
    (void)e;
    return 0;
}
int cudaEventSynchronize(void *e)
{
    (void)e;
    return 0;
}
int cudaEventDestroy(void *e)
{
    (void)e;
    return 0;
}
int cudaMallocAsync(void **p, size_t n, void *s)
{
    (void)s;
    return cudaMalloc(p, n);
}
int cudaFreeAsync(void *p, void *s)
{
    (void)p;
    (void)s;
    return 0;
}

/* what the daemon and CUDA IPC need: refused (1 = cudaErrorInvalidValue) */
int cudaHostGetDevicePointer(void) { return 1; }
int cudaIpcGetMemHandle(void) { return 1; }
int cudaIpcOpenMemHandle(void) { return 1; }
int cudaIpcCloseMemHandle(void) { return 1; }
int cudaLibraryLoadData(void) { return 1; }
int cudaLibraryGetKernel(void) { return 1; }
int cudaLaunchKernel(void) { return 1; }
