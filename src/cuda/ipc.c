/*
 * ipc.c - CUDA IPC for point-to-point on device buffers between processes of one node
 * (comm/p2p.c's device rendezvous, dfc(7) "Device buffers"):
 *
 *  - export: the sender names its buffer by the IPC handle of the allocation that holds it
 *    and the offset inside it. Handles are cached per allocation (the driver's buffer id,
 *    which is never reused, tells a freed and re-made allocation at the same address apart),
 *    so cudaIpcGetMemHandle runs once per allocation.
 *  - open: the receiver maps a peer's allocation once and keeps it in a bounded cache
 *    (DFC_GPU_IPC_CACHE entries); an entry no copy uses is closed when evicted, and every
 *    one at finalize. An entry keeps the peer's memory alive while it is open, so the bound
 *    is what a freed peer allocation can cost.
 *  - copies: the receiver's copy engine moves the data (cudaMemcpyAsync on a non-blocking
 *    stream of its own, then an event that progress polls): nothing waits on a peer, and a
 *    cudaDeviceSynchronize of the user's only waits for copies already under way.
 *
 * The runtime functions beyond cuda_fns.h's list, and the two driver functions that name an
 * allocation (cuPointerGetAttribute, cuMemGetAddressRange), are resolved here: from the
 * loaded runtime library first (the CUDA stand-in of the tests provides them), else from
 * libcuda.so.1.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/dfc_cuda.h"
#include "util/dfc_util.h"

#ifdef HAVE_CUDA
#include <cuda.h>

#include "cuda/cuda_fns.h"

#define DFC_IPC_DEVICES 64

static struct {
    int tried, ok;
    cudaError_t (*memcpy_async)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
    CUresult (*ptr_attr)(void *, CUpointer_attribute, CUdeviceptr);
    CUresult (*addr_range)(CUdeviceptr *, size_t *, CUdeviceptr);
    cudaStream_t stream[DFC_IPC_DEVICES]; /* per device: a stream belongs to one */
} ipc;

typedef struct export_ent {
    uint64_t buffer_id; /* 0: free */
    uintptr_t base;
    size_t size;
    cudaIpcMemHandle_t handle;
} export_ent_t;

typedef struct open_ent {
    int owner; /* world rank; -1: free */
    uint64_t buffer_id;
    void *base;
    int refs; /* copies in flight from it */
    uint64_t used;
} open_ent_t;

#define EXPORTS 64
static export_ent_t exports[EXPORTS];
static unsigned export_next;
static open_ent_t *opens;
static int nopens;
static uint64_t use_clock;

struct dfc_gpu_copy_op {
    cudaEvent_t ev;  /* the copy engine's copy, or NULL */
    uint64_t ticket; /* the small-copy kernel's copy (kcopy.c), or 0 */
    open_ent_t *src; /* the mapping the copy reads, or NULL */
    void *dst;       /* what to copy with the copy engine if the kernel goes away */
    const void *from;
    size_t bytes;
    int dev;
};

static void *sym(void *lib, void *drv, const char *name)
{
    void *f = lib ? dlsym(lib, name) : NULL;
    return f ? f : drv ? dlsym(drv, name) : NULL;
}

static int ipc_load(void)
{
    if (ipc.tried) return ipc.ok;
    ipc.tried = 1;
    dfc_gpu_init(); /* a peer's device message may come before this process's first device
                       buffer, and without it the runtime would look absent for good */
    if (!dfc_gpu_available()) return 0;
    void *lib = dfc_gpu_cudart_open(); /* the runtime already loaded: a reference to it */
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    ipc.memcpy_async = sym(lib, drv, "cudaMemcpyAsync");
    ipc.ptr_attr = sym(lib, drv, "cuPointerGetAttribute");
    ipc.addr_range = sym(lib, drv, "cuMemGetAddressRange_v2");
    dfc_gpu_ipc_params();
    opens = calloc((size_t)nopens, sizeof *opens);
    for (int i = 0; opens && i < nopens; i++) opens[i].owner = -1;
    ipc.ok = ipc.memcpy_async && dfc_gpu_current_device() >= 0 && ipc.ptr_attr && ipc.addr_range &&
             opens;
    if (!ipc.ok)
        DFC_LOG(DFC_LOG_INFO, "gpu", "CUDA IPC unavailable: device point-to-point is staged");
    return ipc.ok;
}

int dfc_gpu_ipc_available(void) { return ipc_load(); }

/* Makes the device of `p` (else of `q`, when not NULL) current in this thread (the progress
 * thread of DFC_ASYNC_PROGRESS=1 matches messages too, and its current device is 0), saving
 * the one it replaces in *saved (-1: none replaced). Host memory leaves the current device.
 * p_dev, when not NULL: p's own device (-1: host memory), which callers pass on rather than
 * ask the driver again; *p_managed: 1 when p is managed memory. */
static int enter_device(const void *p, const void *q, int *saved, int *p_dev, int *p_managed)
{
    int managed, dev = dfc_gpu_ptr_device_managed(p, &managed), cur = -1;
    if (p_dev) *p_dev = dev;
    if (p_managed) *p_managed = managed;
    if (dev < 0 && q) dev = dfc_gpu_ptr_device(q);
    *saved = -1;
    if (dev < 0) dev = cur = dfc_gpu_current_device(); /* host memory */
    if (dev < 0 || dev >= DFC_IPC_DEVICES) return 0;
    if (cur < 0 && (cur = dfc_gpu_current_device()) < 0) return dev;
    if (cur != dev && dfc_cuda.cudaSetDevice(dev) == cudaSuccess) *saved = cur;
    return dev;
}

static void leave_device(int saved)
{
    if (saved >= 0) dfc_cuda.cudaSetDevice(saved);
}

static int export_new(const void *ptr, uint64_t id, export_ent_t **out);

/* The allocation's id comes first (one driver query): an allocation sent from before needs
 * nothing else, not even its device made current. */
int dfc_gpu_ipc_export(const void *ptr, dfc_gpu_ipc_t *out)
{
    if (!ipc_load()) return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "CUDA IPC unavailable");
    unsigned long long id = ptr == dfc_gpu_memo.ptr ? dfc_gpu_memo.buffer_id : 0;
    if (!id &&
        (ipc.ptr_attr(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, (CUdeviceptr)(uintptr_t)ptr) || !id))
        return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "no buffer id for device pointer %p", ptr);
    export_ent_t *e = NULL;
    for (int i = 0; i < EXPORTS && !e; i++)
        if (exports[i].buffer_id == id) e = &exports[i];
    if (!e) {
        int saved;
        enter_device(ptr, NULL, &saved, NULL, NULL);
        int rc = export_new(ptr, id, &e);
        leave_device(saved);
        if (rc) return rc;
    }
    memcpy(out->handle, &e->handle, sizeof out->handle);
    out->buffer_id = id;
    out->offset = (uint64_t)((uintptr_t)ptr - e->base);
    return DFC_SUCCESS;
}

/* On ptr's device: the handle of the allocation holding ptr, into the cache. */
static int export_new(const void *ptr, uint64_t id, export_ent_t **out)
{
    CUdeviceptr base;
    size_t size;
    cudaIpcMemHandle_t h;
    if (ipc.addr_range(&base, &size, (CUdeviceptr)(uintptr_t)ptr))
        return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "no allocation holds %p", ptr);
    cudaError_t ce = dfc_cuda.cudaIpcGetMemHandle(&h, (void *)(uintptr_t)base);
    if (ce != cudaSuccess) {
        dfc_cuda.cudaGetLastError();
        return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "cudaIpcGetMemHandle(%p): %s", ptr,
                       dfc_cuda.cudaGetErrorString(ce));
    }
    export_ent_t *e = &exports[export_next++ % EXPORTS]; /* an evicted handle needs no release */
    e->buffer_id = id;
    e->base = (uintptr_t)base;
    e->size = size;
    e->handle = h;
    *out = e;
    return DFC_SUCCESS;
}

/* Closes `owner`'s mappings that no copy uses; how many. */
static int close_idle(int owner)
{
    int n = 0;
    for (int i = 0; i < nopens; i++)
        if (opens[i].owner == owner && !opens[i].refs) {
            dfc_cuda.cudaIpcCloseMemHandle(opens[i].base);
            opens[i].owner = -1;
            n++;
        }
    return n;
}

/* Maps `owner`'s allocation `in` into free entry o. A mapping takes the owner's own addresses,
 * and the driver soon reuses a freed small allocation's addresses (it sub-allocates them from
 * blocks of its own): while this process still maps a freed allocation (cached under its old
 * buffer id), the one the owner made in its place cannot be mapped (seen on an H100, stop 49).
 * So a failed open closes the owner's mappings that no copy uses and tries once more. */
static cudaError_t map_entry(open_ent_t *o, int owner, const dfc_gpu_ipc_t *in)
{
    cudaIpcMemHandle_t h;
    memcpy(&h, in->handle, sizeof h);
    cudaError_t ce = dfc_cuda.cudaIpcOpenMemHandle(&o->base, h, cudaIpcMemLazyEnablePeerAccess);
    if (ce != cudaSuccess && (dfc_cuda.cudaGetLastError(), close_idle(owner)))
        ce = dfc_cuda.cudaIpcOpenMemHandle(&o->base, h, cudaIpcMemLazyEnablePeerAccess);
    if (ce != cudaSuccess) {
        dfc_cuda.cudaGetLastError();
        return ce;
    }
    o->owner = owner;
    o->buffer_id = in->buffer_id;
    o->refs = 0;
    o->used = ++use_clock;
    return cudaSuccess;
}

/* The cache entry for (owner, buffer_id), opening it (and evicting) when needed. */
static int open_entry(int owner, const dfc_gpu_ipc_t *in, open_ent_t **out)
{
    open_ent_t *victim = NULL;
    for (int i = 0; i < nopens; i++) {
        open_ent_t *o = &opens[i];
        if (o->owner == owner && o->buffer_id == in->buffer_id) {
            o->used = ++use_clock;
            *out = o;
            return DFC_SUCCESS;
        }
        if (o->refs) continue; /* a copy in flight reads it */
        if (!victim || (victim->owner >= 0 && (o->owner < 0 || o->used < victim->used)))
            victim = o; /* a free entry, else the least recently used */
    }
    if (!victim)
        return DFC_ERR(DFC_ERR_OTHER, "all %d CUDA IPC mappings are in use (DFC_GPU_IPC_CACHE)",
                       nopens);
    if (victim->owner >= 0) dfc_cuda.cudaIpcCloseMemHandle(victim->base);
    victim->owner = -1;
    cudaError_t ce = map_entry(victim, owner, in);
    if (ce != cudaSuccess)
        return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "cudaIpcOpenMemHandle of rank %d: %s", owner,
                       dfc_cuda.cudaGetErrorString(ce));
    *out = victim;
    return DFC_SUCCESS;
}

/* How copy_here copies: out of a peer's buffer (or within this process) into memory of this
 * device, the same into managed memory (whose pages may sit in host memory), or into a peer's
 * buffer. The small-copy kernel orders only the first with a device-scope fence (kcopy_abi.h). */
typedef enum { COPY_PULL, COPY_PULL_MANAGED, COPY_PUSH } copy_way_t;
static int copy_here(int dev, int user_dev, void *dst, const void *src, int owner,
                     const dfc_gpu_ipc_t *in, copy_way_t way, size_t bytes, dfc_gpu_copy_op_t **op);
static int engine_copy(dfc_gpu_copy_op_t *c);

int dfc_gpu_copy_start(void *dst, const void *src, int owner, const dfc_gpu_ipc_t *in, size_t bytes,
                       dfc_gpu_copy_op_t **op)
{
    *op = NULL;
    if (!ipc_load()) return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "CUDA IPC unavailable");
    /* the receiving device maps and copies (a host dst: the device of a device src) */
    int saved, dst_dev, managed,
        dev = enter_device(dst, in ? NULL : src, &saved, &dst_dev, &managed);
    int rc = copy_here(dev, dst_dev, dst, src, owner, in, managed ? COPY_PULL_MANAGED : COPY_PULL,
                       bytes, op);
    leave_device(saved);
    return rc;
}

int dfc_gpu_copy_start_to(int owner, const dfc_gpu_ipc_t *in, const void *src, size_t bytes,
                          dfc_gpu_copy_op_t **op)
{
    *op = NULL;
    if (!ipc_load()) return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "CUDA IPC unavailable");
    int saved, src_dev, dev = enter_device(src, NULL, &saved, &src_dev, NULL); /* the sender's */
    int rc = copy_here(dev, src_dev, NULL, src, owner, in, COPY_PUSH, bytes, op);
    leave_device(saved);
    return rc;
}

int dfc_gpu_copy_wait(void *dst, const void *src, size_t bytes)
{
    dfc_gpu_copy_op_t *op;
    int done = 0, rc = dfc_gpu_copy_start(dst, src, -1, NULL, bytes, &op);
    while (!rc && !done) rc = dfc_gpu_copy_test(op, &done);
    return rc;
}

/* in: the peer's buffer is the copy's source (a pull: src is ignored) or its destination (a
 * push: dst is ignored). dev: the current device, where a mapping opens; user_dev: the
 * device of this process's own buffer (dst when pulling, src when pushing; -1: host memory). */
static int copy_here(int dev, int user_dev, void *dst, const void *src, int owner,
                     const dfc_gpu_ipc_t *in, copy_way_t way, size_t bytes, dfc_gpu_copy_op_t **op)
{
    int rc, to_peer = way == COPY_PUSH;
    open_ent_t *o = NULL;
    if (in && (rc = open_entry(owner, in, &o))) return rc;
    if (o && to_peer) dst = (char *)o->base + in->offset;
    else if (o) src = (const char *)o->base + in->offset;
    dfc_gpu_copy_op_t *c = calloc(1, sizeof *c);
    if (!c) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    c->dst = dst, c->from = src, c->bytes = bytes, c->dev = dev;
    /* The devices the kernel needs are known but for a copy within this process (no mapping) */
    int kdst = to_peer ? dev : user_dev;
    int ksrc = to_peer ? user_dev : o ? dev : dfc_gpu_ptr_device(src);
    if (!bytes || dfc_gpu_kcopy_start(kdst, ksrc, way == COPY_PULL, dst, src, bytes, &c->ticket)) {
        if ((rc = engine_copy(c))) {
            free(c);
            return rc;
        }
    }
    if ((c->src = o)) o->refs++;
    *op = c;
    return DFC_SUCCESS;
}

/* The copy engine's copy of op, on the device's stream of DFC's own, and its event. */
static int engine_copy(dfc_gpu_copy_op_t *c)
{
    cudaError_t ce = cudaSuccess;
    cudaStream_t *st = &ipc.stream[c->dev];
    if (!*st) ce = dfc_cuda.cudaStreamCreateWithFlags(st, cudaStreamNonBlocking);
    if (ce == cudaSuccess) ce = dfc_cuda.cudaEventCreateWithFlags(&c->ev, cudaEventDisableTiming);
    if (ce == cudaSuccess && c->bytes)
        ce = ipc.memcpy_async(c->dst, c->from, c->bytes, cudaMemcpyDefault, *st);
    if (ce == cudaSuccess) ce = dfc_cuda.cudaEventRecord(c->ev, *st);
    if (ce == cudaSuccess) return DFC_SUCCESS;
    if (c->ev) dfc_cuda.cudaEventDestroy(c->ev);
    c->ev = NULL;
    return dfc_cuda_error("device point-to-point copy", ce);
}

int dfc_gpu_copy_test(dfc_gpu_copy_op_t *op, int *done)
{
    *done = 0;
    if (op->ticket) { /* the small-copy kernel's; the copy engine's if the kernel went away */
        int k = dfc_gpu_kcopy_test(op->ticket);
        if (k == 0) return DFC_SUCCESS;
        op->ticket = 0;
        int rc = DFC_SUCCESS;
        if (k < 0) {
            int saved;
            enter_device(op->dst, op->from, &saved, NULL, NULL);
            rc = engine_copy(op);
            leave_device(saved);
            if (rc == DFC_SUCCESS) return DFC_SUCCESS; /* tested as the engine's from now */
        }
        *done = 1;
        if (op->src) op->src->refs--;
        free(op);
        return rc;
    }
    cudaError_t ce = dfc_cuda.cudaEventQuery(op->ev);
    *done = ce != cudaErrorNotReady;
    if (!*done) return DFC_SUCCESS;
    dfc_cuda.cudaEventDestroy(op->ev);
    if (op->src) op->src->refs--;
    free(op);
    return ce == cudaSuccess ? DFC_SUCCESS : dfc_cuda_error("device point-to-point copy", ce);
}

int dfc_gpu_copy_source_read(const dfc_gpu_copy_op_t *op)
{
    return op->ticket && dfc_gpu_kcopy_read(op->ticket);
}

void dfc_gpu_ipc_finalize(void)
{
    for (int i = 0; opens && i < nopens; i++)
        if (opens[i].owner >= 0) dfc_cuda.cudaIpcCloseMemHandle(opens[i].base);
    free(opens);
    opens = NULL;
    for (int i = 0; i < DFC_IPC_DEVICES; i++)
        if (ipc.stream[i]) dfc_cuda.cudaStreamDestroy(ipc.stream[i]);
    memset(&ipc, 0, sizeof ipc);
    memset(exports, 0, sizeof exports);
}

#else /* built without CUDA */

static int nopens; /* DFC_GPU_IPC_CACHE, read below and unused: there is no IPC */
int dfc_gpu_ipc_available(void) { return 0; }
int dfc_gpu_ipc_export(const void *ptr, dfc_gpu_ipc_t *out)
{
    (void)ptr;
    (void)out;
    return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "built without CUDA");
}
int dfc_gpu_copy_start(void *dst, const void *src, int owner, const dfc_gpu_ipc_t *in, size_t bytes,
                       dfc_gpu_copy_op_t **op)
{
    (void)dst, (void)src, (void)owner, (void)in, (void)bytes;
    *op = NULL;
    return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "built without CUDA");
}
int dfc_gpu_copy_start_to(int owner, const dfc_gpu_ipc_t *in, const void *src, size_t bytes,
                          dfc_gpu_copy_op_t **op)
{
    (void)owner, (void)in, (void)src, (void)bytes;
    *op = NULL;
    return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "built without CUDA");
}
int dfc_gpu_copy_wait(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
    return DFC_SUCCESS;
}
int dfc_gpu_copy_test(dfc_gpu_copy_op_t *op, int *done)
{
    (void)op;
    *done = 1;
    return DFC_SUCCESS;
}
int dfc_gpu_copy_source_read(const dfc_gpu_copy_op_t *op)
{
    (void)op;
    return 0;
}
void dfc_gpu_ipc_finalize(void) {}
#endif

/* Read in both builds, so that dfc_info lists every parameter dfc_env(7) documents. */
void dfc_gpu_ipc_params(void)
{
    long n = dfc_env_long("DFC_GPU_IPC_CACHE", 32,
                          "peer device allocations a process keeps mapped for point-to-point "
                          "(CUDA IPC); the least recently used unused one is closed beyond it");
    nopens = n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}
