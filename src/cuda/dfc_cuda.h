/*
 * dfc_cuda.h - the CUDA loader: the CUDA runtime, loaded at run time so that one build of
 * libdfc runs on machines with and without GPUs, the memory type of a pointer, and copies.
 *
 * The layer right above util, below the transports and comm (which ask whether a buffer is
 * device memory and copy it); the GPU daemon (src/gpu) sits beside coll and uses it too.
 * Depends on util only. The functions keep their dfc_gpu_ names from before the split.
 */
#ifndef DFC_CUDA_H
#define DFC_CUDA_H

#include <stddef.h>
#include <stdint.h>

/* Loads libcudart if present, once per process (never fails: without it DFC cannot use
 * device buffers). Called by dfc_gpu_init_startup or at the first device buffer. */
void dfc_gpu_init(void);
/* DFC_Init's part: loads CUDA now or leaves it to the first device buffer (DFC_GPU_INIT). */
void dfc_gpu_init_startup(void);
/* dlopen of DFC_CUDA_LIBRARY, else libcudart.so.13, .12, or unversioned; NULL if none loads.
 * Shared with dfc_info, which loads the runtime itself (with or without HAVE_CUDA). */
void *dfc_gpu_cudart_open(void);
void dfc_gpu_finalize(void);
/* 1 when CUDA was loaded and at least one device is visible. */
int dfc_gpu_available(void);
int dfc_gpu_device_count(void);
/* The memory-type cache (memtype.c says how it knows). 1 if ptr is CUDA device (or managed)
 * memory; 0 for host memory (also registered or pinned host memory) or without CUDA. A
 * program without the CUDA driver in the process pays no CUDA call and loads nothing; host
 * pointers of the brk heap or the caller's stack cost no call either. A device answer
 * loads DFC's CUDA runtime (dfc_gpu_init) if it was not loaded yet. Thread-safe. */
int dfc_gpu_is_device_ptr(const void *ptr);
/* Tier 2 of memtype.c, the common answer of a program that never used CUDA, in the caller:
 * while no driver was seen in the process, this points at the loader's last object's link to
 * a next one, and while that is NULL nothing was loaded since the look that found no driver
 * (memtype.c, pin_tail). NULL otherwise, and then the call asks the whole cache. Two loads
 * and a compare per buffer, not a call (issue 16: the call was 50 of a small collective's
 * 600 instructions). */
extern void *const *dfc_gpu_no_driver_while_null;
int dfc_gpu_ptr_device_asked(const void *ptr);
/* The device ordinal holding ptr, or -1 for host memory. */
static inline int dfc_gpu_ptr_device(const void *ptr)
{
    void *const *next = __atomic_load_n(&dfc_gpu_no_driver_while_null, __ATOMIC_ACQUIRE);
    if (__builtin_expect(next && !*(void *const volatile *)next, 1)) return -1;
    return dfc_gpu_ptr_device_asked(ptr);
}
/* The same, and *managed: 1 for managed memory, whose pages may sit in host memory (also when
 * the driver could not say). */
int dfc_gpu_ptr_device_managed(const void *ptr, int *managed);
/* The device of the last device buffer this process passed to DFC (any thread), -1 before
 * the first: where memory of DFC's own that serves this process's buffers goes (the hold
 * arena), since the thread that needs it (the progress thread of DFC_ASYNC_PROGRESS=1) may
 * have another device current than the application's threads. */
int dfc_gpu_home_device(void);
/* The device current in the calling thread (cudaGetDevice), -1 when CUDA cannot say. */
int dfc_gpu_current_device(void);
/* The memo: one device answer kept for the rest of one call of this thread. A blocking device
 * send or receive asks about its buffer two or three times (the eager test or its own look,
 * staging, the copy's device, and a send's IPC name its buffer id: 0.04-0.1 us each, one
 * driver call answers them all). Such a call arms the memo as it starts and
 * clears it before it returns; while armed, the driver's device answers are kept, and the
 * memo answers for that pointer. A buffer in use by the call cannot change its memory type
 * before the call returns, and nothing is kept beyond it or seen by another thread, so
 * nothing goes stale. Initial-exec TLS: arming and clearing are a store each. */
typedef struct {
    const void *ptr;
    unsigned long long buffer_id; /* its allocation's (the IPC export's key), or 0 */
    int dev, managed, armed;
} dfc_gpu_memo_t;
extern __thread dfc_gpu_memo_t dfc_gpu_memo __attribute__((tls_model("initial-exec")));
static inline void dfc_gpu_memo_arm(void) { dfc_gpu_memo.armed = 1; }
static inline void dfc_gpu_memo_clear(void) /* the rest is read only where ptr matches */
{
    dfc_gpu_memo.ptr = NULL;
    dfc_gpu_memo.armed = 0;
}
/* 1 once the CUDA driver (libcuda.so.1) is mapped in this process (by DFC or the program). */
int dfc_gpu_driver_in_process(void);
/* Driver queries the cache made so far (tests: host pointers must not reach the driver). */
unsigned long dfc_gpu_memtype_queries(void);
/* The CUDA runtime's own answer (cudaPointerGetAttributes), the cache's fallback. */
int dfc_gpu_cudart_ptr_device(const void *ptr);
/* cudaMemcpy with cudaMemcpyDefault; returns DFC_SUCCESS or an error code with a message. */
int dfc_gpu_copy(void *dst, const void *src, size_t bytes);

/* ---- Staging copies (stage_copy.c, used by src/comm/stage.c) ------------------------------
 * Pinned host memory, streams and events of DFC's own, and asynchronous copies (any
 * direction, cudaMemcpyDefault). Streams and events are opaque pointers (cudaStream_t,
 * cudaEvent_t). Each returns DFC_SUCCESS or DFC_ERR_OTHER with CUDA's reason recorded. */
int dfc_gpu_host_alloc(size_t bytes, void **out);
void dfc_gpu_host_free(void *p);
int dfc_gpu_stream_create(void **out); /* ordered after the legacy default stream */
void dfc_gpu_stream_destroy(void *s);
int dfc_gpu_event_create(void **out); /* without timing */
void dfc_gpu_event_destroy(void *e);
int dfc_gpu_copy_async(void *dst, const void *src, size_t bytes, void *stream);
int dfc_gpu_event_record(void *e, void *stream);
/* DFC_GPU_COPY_FLAGS (stage_copy.c): the smallest copy whose completion a flag word reports,
 * -1 for none; read once (dfc_info reads it through dfc_env_register_all). */
long dfc_gpu_copy_flags_min(void);
int dfc_gpu_event_sync(void *e); /* waits until the copies before the record are done */
/* *done = 1 once the copies before the record are done (an error counts as done) */
int dfc_gpu_event_query(void *e, int *done);
int dfc_gpu_stream_sync(void *s); /* waits until every copy on s is done */
/* height rows of width bytes from src to dst, rows spitch and dpitch bytes apart
 * (cudaMemcpy2DAsync; row by row where the runtime lacks it) */
int dfc_gpu_copy2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, void *stream);
/* ---- CUDA IPC for device point-to-point on one node (ipc.c) ----
 * The sender exports its buffer (once per allocation); the receiver's copy engine copies out
 * of it through a mapping opened once per peer allocation, and progress tests the copy. */
typedef struct dfc_gpu_ipc {
    unsigned char handle[64]; /* cudaIpcMemHandle_t of the allocation holding the buffer */
    uint64_t buffer_id;       /* the driver's id of that allocation (never reused) */
    uint64_t offset;          /* of the buffer inside the allocation */
} dfc_gpu_ipc_t;
typedef struct dfc_gpu_copy_op dfc_gpu_copy_op_t;
/* Reads DFC_GPU_IPC_CACHE (at init, so that dfc_info lists it). */
void dfc_gpu_ipc_params(void);
/* 1 when the IPC path can run here (CUDA and the functions it needs are loaded). */
int dfc_gpu_ipc_available(void);
/* Names device buffer ptr for a peer; DFC_ERR_UNSUPPORTED_OPERATION where IPC cannot (memory
 * of a pool or of cuMemCreate, no IPC support). */
int dfc_gpu_ipc_export(const void *ptr, dfc_gpu_ipc_t *out);
/* Starts copying `bytes` to dst (device or host) from src, or, when `in` is not NULL, from
 * the buffer world rank `owner` exported as *in (src is then ignored). Never waits. */
int dfc_gpu_copy_start(void *dst, const void *src, int owner, const dfc_gpu_ipc_t *in, size_t bytes,
                       dfc_gpu_copy_op_t **op);
/* The reverse direction, for one-sided Put (comm/win_dev.c): starts copying `bytes` from src
 * (device or host) into the buffer world rank `owner` exported as *in. Never waits. */
int dfc_gpu_copy_start_to(int owner, const dfc_gpu_ipc_t *in, const void *src, size_t bytes,
                          dfc_gpu_copy_op_t **op);
/* A copy between this process's buffers (either may be device memory) on DFC's own stream of
 * the device involved, waited for: the target's read-modify-write of device windows. */
int dfc_gpu_copy_wait(void *dst, const void *src, size_t bytes);
/* *done = 1 when the copy finished (op is then freed; the return value is its error). */
int dfc_gpu_copy_test(dfc_gpu_copy_op_t *op, int *done);
/* 1 when a copy not yet done has read its whole source (the small-copy kernel says so before
 * its bytes are visible; a copy engine's copy only by being done): the source may be reused. */
int dfc_gpu_copy_source_read(const dfc_gpu_copy_op_t *op);
/* Closes every mapping (at finalize, after the last copy). */
void dfc_gpu_ipc_finalize(void);

/* ---- The hold arena (arena.c) -------------------------------------------------------------
 * Device memory of DFC's own for device messages that arrive before their receive
 * (comm/p2p_hold.c): DFC_GPU_HOLD_MEMORY bytes, allocated at the first request on the device
 * current then. alloc returns NULL (no error: the caller does without) when the arena is full,
 * was never made (no CUDA, 0 bytes, cudaMalloc failed) or `bytes` is 0; it never waits.
 * Not thread-safe: under the library lock, as p2p. */
void dfc_gpu_arena_params(void); /* reads DFC_GPU_HOLD_MEMORY */
size_t dfc_gpu_arena_size(void); /* DFC_GPU_HOLD_MEMORY: 0 holds nothing */
void *dfc_gpu_arena_alloc(size_t bytes);
void dfc_gpu_arena_free(void *p, size_t bytes); /* the same bytes as its alloc; NULL: nothing */
size_t dfc_gpu_arena_in_use(void);              /* bytes handed out (tests, the hang report) */
void dfc_gpu_arena_finalize(void);
/* Tests: the arena over `bytes` of mem (any memory) from now on, all of it free. */
void dfc_gpu_arena_use(void *mem, size_t bytes);

/* ---- Small copies by a resident kernel (kcopy.c; the ring: kcopy_abi.h) ----
 * For the direct device point-to-point copies (above) of up to DFC_GPU_KCOPY_MAX bytes, a
 * kernel polling a ring in mapped host memory instead of the copy engine (11-15 us of CUDA
 * calls per copy under MPS). Not ordered after the program's streams, as the copy engine's
 * copies there are not either. */
void dfc_gpu_kcopy_params(void); /* reads DFC_GPU_KCOPY_MAX and DFC_GPU_KCOPY_LINGER_US */
/* Starts a copy between two device addresses the kernel's context maps (dst on its device,
 * src device memory too: a host src takes the copy engine), given the devices of dst and src
 * (-1: host memory), which the caller knows: asking the driver costs 0.04-0.1 us a pointer.
 * dst_local: dst is memory of dst_dev itself, not a peer's buffer mapped there (the kernel's
 * fence before done is then device-scope: kcopy_abi.h, DFC_KCOPY_LOCAL_DST). The
 * ticket is tested with dfc_gpu_kcopy_test: 1 done, 0 not yet, -1 never (the kernel can no
 * longer be launched: copy again with the copy engine). Returns
 * DFC_ERR_UNSUPPORTED_OPERATION, without recording a message, when the copy must take the
 * copy engine instead: too large, disabled, no kernel, another device, the ring full. */
int dfc_gpu_kcopy_start(int dst_dev, int src_dev, int dst_local, void *dst, const void *src,
                        size_t bytes, uint64_t *ticket);
int dfc_gpu_kcopy_test(uint64_t ticket);
/* 1 when the kernel has read the whole source of the ticket's copy (kcopy_abi.h, `read`,
 * with DFC_GPU_KCOPY_EARLY_FIN=1): often before its done, beside the fence that orders the
 * bytes; 0 when not yet (or never: the parameter is off, or the copy engine makes the copy
 * instead). For a ticket started and not yet seen done. */
int dfc_gpu_kcopy_read(uint64_t ticket);
/* Stops the kernel and frees the ring (at finalize; the next copy sets it up again). */
void dfc_gpu_kcopy_finalize(void);
/* Kernel launches so far (tests, dfc_info). */
unsigned long dfc_gpu_kcopy_launches(void);
/* Tests: replaces the kernel's launch by fn (a host thread serving the ring: kcopy_abi.h),
 * with the ring in ordinary memory, so that the protocol runs without CUDA. Before first use
 * or after dfc_gpu_kcopy_finalize; NULL restores CUDA's. */
struct dfc_kcopy_ring;
typedef int (*dfc_gpu_kcopy_launch_fn)(struct dfc_kcopy_ring *ring, uint64_t linger_ns,
                                       uint32_t epoch);
void dfc_gpu_kcopy_set_launcher(dfc_gpu_kcopy_launch_fn fn);

#endif /* DFC_CUDA_H */
