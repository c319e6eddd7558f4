/*
 * fake_cudart.c - a stand-in CUDA runtime (and the two driver functions DFC's IPC path uses)
 * in which "device memory" is host memory that other processes can map, so that CI, which
 * has no GPU, runs device point-to-point (comm/p2p.c, cuda/ipc.c) between real processes:
 * test/mpi-style/pt2pt/devfake is test/mpi-style/gpu/devp2p linked against this library,
 * which DFC then loads as its CUDA runtime (DFC_CUDA_LIBRARY=libfakecudart.so names the copy
 * already loaded).
 *
 * cudaMalloc makes a memfd and maps it; its IPC handle is (pid, fd, size, id), and another
 * process maps it through /proc/<pid>/fd/<fd>. As on a GPU, where a mapping takes the
 * exporter's own addresses, a handle whose range overlaps a mapping the process still holds of
 * that exporter (an allocation freed there whose addresses were reused, as a small cudaMalloc's
 * soon are) fails with cudaErrorAlreadyMapped until that mapping is closed. Copies are memcpy. An event reports "not
 * ready" to its first two queries, so the path that polls a copy runs too. What the GPU
 * daemon needs (kernels, mapped host memory, pools) fails: run with DFC_GPU_DAEMON=0.
 * FAKE_CUDART_GUARD=1 makes device memory what it is on a GPU, memory the host cannot touch:
 * the pointers handed out map it PROT_NONE, and copies go through a second, writable mapping
 * of the same pages, so a load or store of DFC's on a device pointer ends in SIGSEGV (the
 * device-window test, gpu/devwin, runs so). FAKE_CUDART_ASYNC=1 makes cudaMemcpyAsync what it
 * is on a GPU, late: the copy is done only when an event recorded after it is seen complete,
 * or a synchronization (stream, event, device, or a synchronous copy of this process) comes,
 * so that a caller who uses the data before that sees the old bytes.
 * FAKE_CUDART_DAEMON=1 lets the GPU daemon start (one "GPU" per process of the node, mapped
 * host memory, a kernel library) with a kernel that does nothing: every block of every launch
 * leaves at once, as a kernel whose collectives are all stuck leaves after DFC_GPU_IDLE_US,
 * so a collective submitted to the daemon does not complete and the host relaunches the
 * kernel again and again (gpu/devstuck; fake_cudart_launches() counts the launches), until
 * fake_cudart_daemon_finish() is called: from then on a launch marks every queued collective
 * done (its output is not computed) before it leaves. A cancel (a collective the host gave up
 * on) is confirmed at the next launch, as a kernel's channels confirm it.
 * cuStreamWriteValue64_v2 (DFC's copy flags) is a late copy of its value under
 * FAKE_CUDART_ASYNC=1, so a flag word is set only once the copies before it are done.
 * FAKE_CUDART_KCOPY=1 lets the small-copy kernel (cuda/kcopy.c) load, with a launch that
 * makes the copies published so far and leaves (fake_cudart_kcopy_copies() counts them, and
 * fake_cudart_kcopy_local() and _wrong_scope() the scopes they asked for). cudaMallocManaged
 * is cudaMalloc with the driver's managed flag set.
 * The signatures use plain C types of the same ABI as CUDA's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda/kcopy_abi.h"
#include "gpu/daemon_abi.h"

enum { OK = 0, INVALID = 1, NOMEM = 2, ALREADY_MAPPED = 208, NOT_READY = 600 };

typedef struct {
    char bytes[64];
} ipc_handle_t;
typedef struct {
    int pid, fd;
    size_t size;
    unsigned long long id;
    uintptr_t at; /* the allocation's address in the exporting process */
} handle_body_t;
typedef struct {
    int type, device;
    void *dptr, *hptr;
} attr_t;

typedef struct region {
    char *base;
    char *shadow; /* the writable mapping copies use: base unless FAKE_CUDART_GUARD=1 */
    size_t size;
    int fd; /* own allocations; -1 for a peer's mapping */
    unsigned long long id;
    int managed;  /* cudaMallocManaged's */
    int peer_pid; /* a peer's mapping: the exporter, and where the memory is there */
    uintptr_t peer_at;
} region_t;

#define MAX_REGIONS 4096
static region_t regions[MAX_REGIONS];
static unsigned long long next_id = 1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long opens, handles, polls, id_queries; /* FAKE_CUDART_VERBOSE=1 prints them */
static int current_device; /* cudaSetDevice's; all of a process's memory is on it */

__attribute__((destructor)) static void report(void)
{
    const char *v = getenv("FAKE_CUDART_VERBOSE");
    if (v && *v == '1')
        fprintf(stderr,
                "fake_cudart[%d]: %lu IPC handles, %lu opens, %lu event polls, %lu buffer-id "
                "queries\n",
                getpid(), handles, opens, polls, id_queries);
}

static region_t *find(const void *p)
{
    for (int i = 0; i < MAX_REGIONS; i++)
        if (regions[i].base && (const char *)p >= regions[i].base &&
            (const char *)p < regions[i].base + regions[i].size)
            return &regions[i];
    return NULL;
}

static int add(char *base, char *shadow, size_t size, int fd)
{
    for (int i = 0; i < MAX_REGIONS; i++)
        if (!regions[i].base) {
            regions[i] = (region_t){base, shadow, size, fd, next_id++, 0};
            return OK;
        }
    return NOMEM;
}

/* Maps fd's n bytes: *shadow writable, and what the program sees: the same mapping, or under
 * FAKE_CUDART_GUARD=1 a second one the host cannot access. */
static char *map_pages(int fd, size_t n, char **shadow)
{
    const char *g = getenv("FAKE_CUDART_GUARD");
    void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return NULL;
    *shadow = m;
    if (!g || *g != '1') return m;
    void *d = mmap(NULL, n, PROT_NONE, MAP_SHARED, fd, 0);
    if (d != MAP_FAILED) return d;
    munmap(m, n);
    return NULL;
}

static void unmap_pages(region_t *r)
{
    if (r->shadow != r->base) munmap(r->shadow, r->size);
    munmap(r->base, r->size);
}

/* Where a copy reads or writes p: its writable mapping when p is device memory. */
static void *xl(const void *p)
{
    pthread_mutex_lock(&lock);
    region_t *r = find(p);
    void *q = r ? r->shadow + ((const char *)p - r->base) : (void *)p;
    pthread_mutex_unlock(&lock);
    return q;
}

/* Device memory, or managed memory: device memory that the driver says is managed
 * (cuPointerGetAttributes) and the host may touch (never behind FAKE_CUDART_GUARD's guard). */
static int alloc_region(void **p, size_t size, int managed)
{
    size_t n = size ? (size + 4095) & ~(size_t)4095 : 4096;
    int fd = memfd_create("fakecudart", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)n)) return NOMEM;
    char *shadow, *m = managed ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                               : map_pages(fd, n, &shadow);
    if (managed && m == MAP_FAILED) m = NULL;
    if (!m) return NOMEM;
    if (managed) shadow = m;
    pthread_mutex_lock(&lock);
    int rc = add(m, shadow, n, fd);
    if (rc == OK) find(m)->managed = managed;
    pthread_mutex_unlock(&lock);
    *p = m;
    return rc;
}

int cudaMalloc(void **p, size_t size) { return alloc_region(p, size, 0); }

int cudaMallocManaged(void **p, size_t size, unsigned flags)
{
    (void)flags;
    return alloc_region(p, size, 1);
}

int cudaFree(void *p)
{
    if (!p) return OK;
    pthread_mutex_lock(&lock);
    region_t *r = find(p);
    int rc = r && r->fd >= 0 && r->base == p ? OK : INVALID;
    if (rc == OK) {
        unmap_pages(r);
        close(r->fd);
        r->base = NULL;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

int cudaPointerGetAttributes(attr_t *a, const void *p)
{
    pthread_mutex_lock(&lock);
    int dev = find(p) != NULL;
    pthread_mutex_unlock(&lock);
    memset(a, 0, sizeof *a);
    a->type = dev ? 2 : 0; /* cudaMemoryTypeDevice : cudaMemoryTypeUnregistered */
    a->device = dev ? current_device : -2;
    return OK;
}

/* The driver's query that DFC's memory-type cache asks (it takes this library for the driver
 * since DFC_CUDA_LIBRARY names it): 2 memory type, 8 managed, 9 device ordinal, 7 buffer id. */
int cuPointerGetAttributes(unsigned n, int *attrs, void **data, unsigned long long p)
{
    pthread_mutex_lock(&lock);
    region_t *r = find((void *)(uintptr_t)p);
    int dev = r != NULL, managed = r && r->managed;
    unsigned long long id = r ? r->id : 0;
    pthread_mutex_unlock(&lock);
    for (unsigned k = 0; k < n; k++) switch (attrs[k]) {
        case 2: *(unsigned *)data[k] = dev ? 2 : 0; break;
        case 8: *(unsigned char *)data[k] = (unsigned char)managed; break;
        case 9: *(int *)data[k] = dev ? current_device : -2; break;
        case 7: *(unsigned long long *)data[k] = id; break;
        default: return INVALID;
        }
    return OK;
}

int cuPointerGetAttribute(void *data, int attr, uintptr_t p)
{
    pthread_mutex_lock(&lock);
    region_t *r = find((void *)p);
    if (r && attr == 7) *(unsigned long long *)data = r->id; /* CU_POINTER_ATTRIBUTE_BUFFER_ID */
    id_queries++;
    pthread_mutex_unlock(&lock);
    return r && attr == 7 ? OK : INVALID;
}

int cuMemGetAddressRange_v2(uintptr_t *base, size_t *size, uintptr_t p)
{
    pthread_mutex_lock(&lock);
    region_t *r = find((void *)p);
    if (r) *base = (uintptr_t)r->base, *size = r->size;
    pthread_mutex_unlock(&lock);
    return r ? OK : INVALID;
}

int cudaIpcGetMemHandle(ipc_handle_t *h, void *p)
{
    pthread_mutex_lock(&lock);
    region_t *r = find(p);
    int rc = r && r->fd >= 0 && r->base == p ? OK : INVALID;
    if (rc == OK) {
        handle_body_t b = {getpid(), r->fd, r->size, r->id, (uintptr_t)r->base};
        handles++;
        memset(h, 0, sizeof *h);
        memcpy(h->bytes, &b, sizeof b);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* A mapping this process holds of exporter pid's memory at [at, at + size) there. */
static int overlaps_mapping(int pid, uintptr_t at, size_t size)
{
    for (int i = 0; i < MAX_REGIONS; i++)
        if (regions[i].base && regions[i].fd < 0 && regions[i].peer_pid == pid &&
            at < regions[i].peer_at + regions[i].size && regions[i].peer_at < at + size)
            return 1;
    return 0;
}

int cudaIpcOpenMemHandle(void **p, ipc_handle_t h, unsigned flags)
{
    (void)flags;
    handle_body_t b;
    char path[64];
    memcpy(&b, h.bytes, sizeof b);
    pthread_mutex_lock(&lock);
    int taken = overlaps_mapping(b.pid, b.at, b.size);
    pthread_mutex_unlock(&lock);
    if (taken) return ALREADY_MAPPED;
    snprintf(path, sizeof path, "/proc/%d/fd/%d", b.pid, b.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return INVALID;
    char *shadow, *m = map_pages(fd, b.size, &shadow);
    close(fd);
    if (!m) return INVALID;
    pthread_mutex_lock(&lock);
    int rc = add(m, shadow, b.size, -1);
    if (rc == OK) find(m)->peer_pid = b.pid, find(m)->peer_at = b.at;
    opens++;
    pthread_mutex_unlock(&lock);
    *p = m;
    return rc;
}

int cudaIpcCloseMemHandle(void *p)
{
    pthread_mutex_lock(&lock);
    region_t *r = find(p);
    int rc = r && r->fd < 0 && r->base == p ? OK : INVALID;
    if (rc == OK) {
        unmap_pages(r);
        r->base = NULL;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* FAKE_CUDART_ASYNC=1: the asynchronous copies not yet done, in issue order (under lock). */
typedef struct late_copy {
    void *d;
    const void *s;
    size_t n;
    uint64_t value; /* the source of a stream write (cuStreamWriteValue64_v2) */
    unsigned long seq;
    struct late_copy *next;
} late_copy_t;
static late_copy_t *late_head, **late_tail = &late_head;
static unsigned long late_seq;

/* Does the late copies issued up to seq (~0UL: all). */
static void late_run(unsigned long seq)
{
    pthread_mutex_lock(&lock);
    while (late_head && late_head->seq <= seq) {
        late_copy_t *c = late_head;
        memmove(c->d, c->s, c->n);
        if (!(late_head = c->next)) late_tail = &late_head;
        free(c);
    }
    pthread_mutex_unlock(&lock);
}

int cudaMemcpy(void *d, const void *s, size_t n, int kind)
{
    (void)kind;
    late_run(~0UL);
    if (n) memmove(xl(d), xl(s), n);
    return OK;
}
int cudaMemcpyAsync(void *d, const void *s, size_t n, int kind, void *stream)
{
    (void)stream;
    const char *a = getenv("FAKE_CUDART_ASYNC");
    late_copy_t *c = a && *a == '1' && n ? calloc(1, sizeof *c) : NULL;
    if (!c) return cudaMemcpy(d, s, n, kind);
    c->d = xl(d);
    c->s = xl(s);
    c->n = n;
    pthread_mutex_lock(&lock);
    c->seq = ++late_seq;
    *late_tail = c;
    late_tail = &c->next;
    pthread_mutex_unlock(&lock);
    return OK;
}
/* The driver's stream write (DFC's copy flags, cuda/stage_copy.c): with FAKE_CUDART_ASYNC=1
 * a late 8-byte copy of the value, in order with the late copies before it, so that the word
 * is set only when they are done; else at once. */
int cuStreamWriteValue64_v2(void *stream, uint64_t addr, uint64_t value, unsigned flags)
{
    (void)stream, (void)flags;
    const char *a = getenv("FAKE_CUDART_ASYNC");
    late_copy_t *c = a && *a == '1' ? calloc(1, sizeof *c) : NULL;
    if (!c) {
        late_run(~0UL); /* the copies before it are done first */
        __atomic_store_n((uint64_t *)(uintptr_t)addr, value, __ATOMIC_RELEASE);
        return OK;
    }
    c->value = value;
    c->d = (void *)(uintptr_t)addr;
    c->s = &c->value;
    c->n = sizeof value;
    pthread_mutex_lock(&lock);
    c->seq = ++late_seq;
    *late_tail = c;
    late_tail = &c->next;
    pthread_mutex_unlock(&lock);
    return OK;
}
/* rows of width bytes, pitches apart (what DFC issues for strided datatypes) */
int cudaMemcpy2DAsync(void *d, size_t dpitch, const void *s, size_t spitch, size_t width,
                      size_t height, int kind, void *stream)
{
    (void)kind;
    (void)stream;
    for (size_t k = 0; k < height; k++)
        memmove((char *)d + k * dpitch, (const char *)s + k * spitch, width);
    return OK;
}
int cudaMemset(void *p, int v, size_t n)
{
    if (n) memset(xl(p), v, n);
    return OK;
}

/* Streams and events: an event counts the queries it answered and remembers the last late
 * copy issued before it was recorded (any stream's: stricter than CUDA, never looser). */
typedef struct {
    int polls;
    unsigned long seq;
} event_t;
int cudaStreamCreateWithFlags(void **s, unsigned f)
{
    (void)f;
    *s = malloc(1);
    return *s ? OK : NOMEM;
}
int cudaStreamDestroy(void *s)
{
    free(s);
    return OK;
}
int cudaStreamSynchronize(void *s)
{
    (void)s;
    late_run(~0UL);
    return OK;
}
int cudaStreamQuery(void *s)
{
    (void)s;
    late_run(~0UL);
    return OK;
}
int cudaEventCreateWithFlags(event_t **e, unsigned f)
{
    (void)f;
    *e = calloc(1, sizeof **e);
    return *e ? OK : NOMEM;
}
int cudaEventRecord(event_t *e, void *s)
{
    (void)s;
    e->polls = 0;
    pthread_mutex_lock(&lock);
    e->seq = late_seq;
    pthread_mutex_unlock(&lock);
    return OK;
}
int cudaEventQuery(event_t *e)
{
    polls++;
    if (++e->polls <= 2) return NOT_READY;
    late_run(e->seq);
    return OK;
}
int cudaEventSynchronize(event_t *e)
{
    late_run(e->seq);
    return OK;
}
int cudaEventDestroy(event_t *e)
{
    free(e);
    return OK;
}

/* The device: one, or with FAKE_CUDART_DAEMON=1 one per process of a node of up to 16 */
static int daemon_mode(void)
{
    static int mode = -1;
    if (mode < 0) mode = getenv("FAKE_CUDART_DAEMON") && atoi(getenv("FAKE_CUDART_DAEMON"));
    return mode;
}
/* FAKE_CUDART_KCOPY=1: the small-copy kernel (cuda/kcopy.c) loads and runs (below). */
static int kcopy_mode(void)
{
    static int mode = -1;
    if (mode < 0) mode = getenv("FAKE_CUDART_KCOPY") && atoi(getenv("FAKE_CUDART_KCOPY"));
    return mode;
}
int cudaGetDeviceCount(int *n)
{
    *n = daemon_mode() ? 16 : 1;
    return OK;
}
int cudaSetDevice(int d)
{
    if (d < 0 || d >= (daemon_mode() ? 16 : 1)) return INVALID;
    current_device = d;
    return OK;
}
int cudaGetDevice(int *d)
{
    *d = current_device;
    return OK;
}
int cudaDeviceSynchronize(void)
{
    late_run(~0UL);
    return OK;
}
int cudaGetLastError(void) { return OK; }
const char *cudaGetErrorString(int e) { return e == OK ? "no error" : "fake CUDA error"; }
int cudaDeviceGetPCIBusId(char *s, int len, int d)
{
    snprintf(s, (size_t)len, "0000:%02x:00.0", d + 1);
    return OK;
}
int cudaDeviceGetAttribute(int *v, int attr, int d)
{
    (void)attr, (void)d;
    *v = 0;
    return OK;
}

/* Pinned host memory (DFC's staging pool: eager device sends are staged): host memory. */
int cudaHostAlloc(void **p, size_t n, unsigned f)
{
    (void)f;
    return (*p = malloc(n ? n : 1)) ? OK : NOMEM;
}
int cudaFreeHost(void *p)
{
    free(p);
    return OK;
}

/* What only the GPU daemon uses: unavailable unless FAKE_CUDART_DAEMON=1, and then a
 * mapped host block is its own device address, pools are plain allocations and the kernel
 * is the one that leaves at once. */
int cudaHostGetDevicePointer(void **d, void *h, unsigned f)
{
    (void)f;
    *d = h;
    return daemon_mode() || kcopy_mode() ? OK : INVALID;
}
int cudaMallocAsync(void **p, size_t n, void *s)
{
    (void)s;
    return daemon_mode() ? cudaMalloc(p, n) : NOMEM;
}
int cudaFreeAsync(void *p, void *s)
{
    (void)s;
    return daemon_mode() ? cudaFree(p) : INVALID;
}
int cudaLibraryLoadData(void **lib)
{
    *lib = (void *)&next_id;
    return daemon_mode() || kcopy_mode() ? OK : INVALID;
}
static int kcopy_kernel; /* its handle's address */
int cudaLibraryGetKernel(void **kernel, void *lib, const char *name)
{
    (void)lib;
    if (!strcmp(name, "dfc_kcopy_kernel")) {
        *kernel = (void *)&kcopy_kernel;
        return kcopy_mode() ? OK : INVALID;
    }
    *kernel = (void *)&next_id;
    return daemon_mode() ? OK : INVALID;
}

/* The small-copy kernel (kcopy_abi.h; launched with the ring, the linger and the epoch):
 * copies every ticket published by now, in order, then leaves; a ticket published after it
 * makes the host launch it again (the ring's rule), so every copy is made. */
static long kcopy_copies, kcopy_local, kcopy_wrong_scope;
long fake_cudart_kcopy_copies(void) { return kcopy_copies; }
/* Copies marked DFC_KCOPY_LOCAL_DST (a device-scope fence), and those so marked whose
 * destination is not plain memory of this process (managed, or a peer's mapping). */
long fake_cudart_kcopy_local(void) { return kcopy_local; }
long fake_cudart_kcopy_wrong_scope(void) { return kcopy_wrong_scope; }
static int kcopy_launch(void **args)
{
    dfc_kcopy_ring_t *r = *(dfc_kcopy_ring_t **)args[0];
    uint32_t epoch = *(uint32_t *)args[2];
    for (uint64_t done = r->done;; done++) {
        dfc_kcopy_entry_t *e = &r->e[done % DFC_KCOPY_ENTRIES];
        if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != done + 1) break;
        size_t n = DFC_KCOPY_SIZE(e->bytes);
        if (e->bytes & DFC_KCOPY_LOCAL_DST) {
            pthread_mutex_lock(&lock);
            region_t *d = find((void *)(uintptr_t)DFC_KCOPY_FIELD(e->dst));
            int plain = d && !d->managed && d->fd >= 0;
            pthread_mutex_unlock(&lock);
            __atomic_fetch_add(plain ? &kcopy_local : &kcopy_wrong_scope, 1, __ATOMIC_RELAXED);
        }
        if (n)
            memmove(xl((void *)(uintptr_t)DFC_KCOPY_FIELD(e->dst)),
                    xl((void *)(uintptr_t)DFC_KCOPY_FIELD(e->src)), n);
        __atomic_fetch_add(&kcopy_copies, 1, __ATOMIC_RELAXED);
        if (e->bytes & DFC_KCOPY_REPORT_READ) /* as the kernel: read first */
            __atomic_store_n(&r->read, done + 1, __ATOMIC_RELEASE);
        __atomic_store_n(&r->done, done + 1, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&r->exited, epoch, __ATOMIC_RELEASE);
    return OK;
}

typedef struct {
    unsigned x, y, z;
} dim3_t;
static long launches;
static int finish;
static dfc_gpu_sq_entry_t held[DFC_GPU_MAX_COLLS]; /* the collectives the kernel holds */
static int nheld;
long fake_cudart_launches(void) { return launches; }
void fake_cudart_daemon_finish(void) { __atomic_store_n(&finish, 1, __ATOMIC_RELEASE); }
/* The daemon kernel (daemon_abi.h: launched with one argument, its dfc_gpu_kargs_t) whose
 * blocks all leave at once: each writes the launch's epoch into host->exited[block]. After
 * fake_cudart_daemon_finish, it first completes every queued entry (done[slot] = gen). */
int cudaLaunchKernel(const void *f, dim3_t grid, dim3_t block, void **args, size_t shmem,
                     void *stream)
{
    (void)f, (void)block, (void)shmem, (void)stream;
    if (f == &kcopy_kernel) return kcopy_mode() ? kcopy_launch(args) : INVALID;
    if (!daemon_mode() || grid.x == 0 || grid.x > DFC_GPU_MAX_CHANNELS) return INVALID;
    const dfc_gpu_kargs_t *k = args[0];
    dfc_gpu_host_t *h = k->host;
    for (; h->sq_seen != h->sq_tail; h->sq_seen++) { /* take the new entries */
        dfc_gpu_sq_entry_t e = *(const dfc_gpu_sq_entry_t *)&h->sq[h->sq_seen % DFC_GPU_MAX_COLLS];
        if (e.nsteps != DFC_GPU_CANCEL) {
            held[nheld++] = e;
            continue;
        }
        for (int i = 0; i < nheld; i++) /* dropped: never completes */
            if (held[i].slot == e.slot) held[i--] = held[--nheld];
        h->error[e.slot] = DFC_GPU_CANCELLED;
        __atomic_thread_fence(__ATOMIC_RELEASE);
        h->done[e.slot] = e.gen;
    }
    for (; __atomic_load_n(&finish, __ATOMIC_ACQUIRE) && nheld > 0; nheld--) {
        h->error[held[nheld - 1].slot] = 0;
        __atomic_thread_fence(__ATOMIC_RELEASE);
        h->done[held[nheld - 1].slot] = held[nheld - 1].gen;
    }
    for (unsigned b = 0; b < grid.x; b++) h->exited[b] = k->epoch;
    __atomic_fetch_add(&launches, 1, __ATOMIC_RELAXED);
    return OK;
}
