/*
 * memtype.c - the memory-type cache: is a buffer CUDA device memory, and on which device,
 * without a CUDA call per host buffer (DESIGN.md 1.2, issue 16).
 *
 * How it knows, in the order it asks:
 *  1. Ranges that are host memory by construction, whatever CUDA does: the brk heap
 *     ([start_brk, sbrk(0)), where small malloc blocks live; the driver maps its address
 *     ranges with mmap, and no mmap can land inside a live brk heap) and the calling
 *     thread's own stack. These cost two compares; registering them with CUDA
 *     (cudaHostRegister) keeps them host memory, which is what DFC treats them as.
 *  2. No CUDA driver in the process, no device memory. Every device allocation, pool,
 *     managed range or IPC mapping is made by the driver, libcuda.so.1, in this process. While
 *     it is not mapped (dlopen with RTLD_NOLOAD), every pointer is host memory. Whether it
 *     got mapped since the last look is told by the dynamic loader's count of objects
 *     loaded so far (dl_iterate_phdr's dlpi_adds, read from its first entry): while that
 *     count has not moved, the answer has not changed. Once seen, the driver stays "present"
 *     (its handle is kept, so it cannot go away under us). This costs a program that never
 *     used CUDA two loads per buffer, inline in the caller (dfc_cuda.h: the loader's last
 *     object's link, pin_tail below), and loads nothing; it is asked before tier 1.
 *  3. Anything else is asked of the driver with one cuPointerGetAttributes call, which needs
 *     no context and creates none: memory type, managed flag and device ordinal. There is no
 *     positive cache: a device answer costs one driver call (nanoseconds against the
 *     microseconds of any device operation) and therefore cannot go stale after cudaFree and
 *     reuse of the range, after a pool (cudaMallocAsync) trims, or after VMM remapping.
 *     The one exception lives for a single call: a blocking device send or receive arms the
 *     memo (dfc_cuda.h), which keeps the driver's device answers for that call's thread
 *     until the call returns, since it asks about its buffer two or three times.
 *     Driver errors other than "not initialized" (no context can exist then) fall back to
 *     the CUDA runtime's cudaPointerGetAttributes, the old query, so that nothing is
 *     misclassified on a driver that answers differently.
 *  Managed memory counts as device memory (of the device it was allocated for), as before;
 *  host memory registered with or allocated by CUDA (cudaHostRegister, cudaHostAlloc) is
 *  host memory.
 *
 * A device answer loads DFC's own use of CUDA (the runtime, for copies: dfc_gpu_init) if
 * it is not loaded yet: that is where a process that started lazily (DFC_GPU_INIT) first
 * touches CUDA.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/dfc_cuda.h"
#include "util/dfc_util.h"

#ifdef HAVE_CUDA
/* The driver API's values (cuda.h), stable across CUDA versions. */
enum {
    CU_OK = 0,
    CU_NOT_INITIALIZED = 3,
    CU_DEINITIALIZED = 4,
    CU_ATTR_MEMORY_TYPE = 2,
    CU_ATTR_IS_MANAGED = 8,
    CU_ATTR_DEVICE_ORDINAL = 9,
    CU_ATTR_BUFFER_ID = 7,
    CU_MEMTYPE_DEVICE = 2,
    CU_MEMTYPE_UNIFIED = 4
};
typedef int (*cu_ptr_attrs_fn)(unsigned, int *, void **, unsigned long long);

static _Atomic(cu_ptr_attrs_fn) driver_query; /* set once libcuda.so.1 is seen */
static _Atomic unsigned long long seen_adds = ~0ULL;
static pthread_mutex_t driver_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uintptr_t heap_start; /* start_brk, read at the first classification */
static pthread_once_t heap_once = PTHREAD_ONCE_INIT;
static _Atomic unsigned long driver_queries;

static int first_object_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
    unsigned long long adds = 0;
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        adds = info->dlpi_adds;
    *(unsigned long long *)arg = adds;
    return 1; /* the first entry is enough */
}

/* start_brk, field 47 of /proc/self/stat (Linux 3.5 and later); 0 when unknown. */
static uintptr_t read_heap_start(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return 0;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    unsigned long long v = 0;
    for (int field = 2; p && *p; p++)
        if (*p == ' ' && ++field == 47) {
            sscanf(p + 1, "%llu", &v);
            break;
        }
    return (uintptr_t)v;
}

/* The faster form of tier 2's question: the loader appends every object it loads to the
 * end of its list (the base namespace's). The last object seen when the driver was last
 * found absent is pinned (RTLD_NODELETE, so it is never unloaded and its link_map stays
 * valid); while its l_next is NULL, nothing was loaded since, so the driver is still absent:
 * one load instead of dl_iterate_phdr's lock (2 ns against 15-40). The walk to the end runs
 * inside a dl_iterate_phdr callback, under the loader's lock. Side effect: that one object
 * (and each later last object) can no longer be unloaded by dlclose. */
static struct link_map *_Atomic pinned_tail;
/* &pinned_tail->l_next while the driver is absent (dfc_cuda.h's inline tier 2), else NULL. */
void *const *dfc_gpu_no_driver_while_null;

typedef struct tail_walk {
    struct link_map *map;
    char name[4096];
} tail_walk_t;

static int walk_to_tail(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)info;
    (void)size;
    tail_walk_t *w = arg;
    while (w->map->l_next) w->map = w->map->l_next;
    snprintf(w->name, sizeof w->name, "%s", w->map->l_name ? w->map->l_name : "");
    return 1;
}

/* The loader's last object, pinned, or NULL when it cannot be (then tier 2 keeps counting). */
static struct link_map *pin_tail(void)
{
    static tail_walk_t w; /* under driver_lock */
    void *self = dlopen(NULL, RTLD_LAZY);
    w.map = NULL;
    if (!self || dlinfo(self, RTLD_DI_LINKMAP, &w.map)) w.map = NULL;
    if (self) dlclose(self);
    if (!w.map) return NULL;
    dl_iterate_phdr(walk_to_tail, &w);
    if (!w.name[0]) return NULL; /* the program itself: never the last one in practice */
    void *h = dlopen(w.name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
    struct link_map *m = NULL;
    if (h && !dlinfo(h, RTLD_DI_LINKMAP, &m) && m == w.map) return m; /* the reference stays */
    if (h) dlclose(h);
    return NULL;
}

/* The driver's query once libcuda.so.1 is in the process, else NULL (tier 2). */
static cu_ptr_attrs_fn driver(void)
{
    cu_ptr_attrs_fn fn = atomic_load_explicit(&driver_query, memory_order_acquire);
    if (DFC_LIKELY(fn != NULL)) return fn;
    struct link_map *t = atomic_load_explicit(&pinned_tail, memory_order_acquire);
    if (DFC_LIKELY(t != NULL) && *(struct link_map *volatile *)&t->l_next == NULL) return NULL;
    unsigned long long adds = 0;
    dl_iterate_phdr(first_object_adds, &adds);
    if (!t && adds && adds == atomic_load_explicit(&seen_adds, memory_order_relaxed)) return NULL;
    pthread_mutex_lock(&driver_lock);
    if (!(fn = atomic_load(&driver_query))) {
        /* the last object is found before the driver is looked for: whatever is loaded
         * after that look comes after the pinned one */
        struct link_map *tail = pin_tail();
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
        /* A stand-in runtime named by DFC_CUDA_LIBRARY (the tests without a GPU) counts as the
         * driver when it is loaded and answers the driver's query. */
        const char *lib = getenv("DFC_CUDA_LIBRARY");
        if (!h && lib && *lib) h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
        if (h && !(fn = (cu_ptr_attrs_fn)dlsym(h, "cuPointerGetAttributes"))) dlclose(h);
        if (fn) { /* the handle is kept: the driver stays loaded */
            __atomic_store_n(&dfc_gpu_no_driver_while_null, NULL, __ATOMIC_RELEASE);
            atomic_store_explicit(&driver_query, fn, memory_order_release);
        } else {
            atomic_store(&seen_adds, adds);
            atomic_store_explicit(&pinned_tail, tail, memory_order_release);
            __atomic_store_n(&dfc_gpu_no_driver_while_null,
                             tail ? (void *const *)&tail->l_next : NULL, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&driver_lock);
    return fn;
}

static __thread uintptr_t stack_lo, stack_hi;

static void init_heap_start(void) { atomic_store(&heap_start, read_heap_start()); }

/* Tier 1: the brk heap and this thread's stack are host memory whatever CUDA does. */
static int host_by_construction(uintptr_t p)
{
    pthread_once(&heap_once, init_heap_start);
    uintptr_t h = atomic_load_explicit(&heap_start, memory_order_relaxed);
    if (h && p >= h && p < (uintptr_t)sbrk(0)) return 1;
    if (!stack_hi) {
        pthread_attr_t attr;
        void *lo;
        size_t sz;
        stack_hi = 1; /* asked once per thread, found or not */
        if (!pthread_getattr_np(pthread_self(), &attr)) {
            if (!pthread_attr_getstack(&attr, &lo, &sz)) {
                stack_lo = (uintptr_t)lo;
                stack_hi = (uintptr_t)lo + sz;
            }
            pthread_attr_destroy(&attr);
        }
    }
    return p >= stack_lo && p < stack_hi;
}

/* Tier 3: one driver call. Returns the device ordinal, -1 for host memory, -2 when the
 * driver could not say; *managed: 1 for managed memory; *id: the allocation's buffer id
 * (device memory), which the IPC export then need not ask for (the memo keeps it). */
static int ask_driver(cu_ptr_attrs_fn fn, const void *ptr, int *managed_out, unsigned long long *id)
{
    unsigned int type = 0;
    int ordinal = -1, managed = 0; /* bool in the driver: an int zeroed first holds it */
    int attrs[4] = {CU_ATTR_MEMORY_TYPE, CU_ATTR_IS_MANAGED, CU_ATTR_DEVICE_ORDINAL,
                    CU_ATTR_BUFFER_ID};
    void *data[4] = {&type, &managed, &ordinal, id};
    *id = 0;
    atomic_fetch_add_explicit(&driver_queries, 1, memory_order_relaxed);
    int rc = fn(4, attrs, data, (unsigned long long)(uintptr_t)ptr);
    if (rc == CU_NOT_INITIALIZED || rc == CU_DEINITIALIZED) return -1; /* no context: host */
    if (rc != CU_OK) return -2;
    *managed_out = (managed & 0xff) != 0;
    if (type != CU_MEMTYPE_DEVICE && type != CU_MEMTYPE_UNIFIED && !*managed_out) return -1;
    return ordinal >= 0 ? ordinal : -2;
}

/* The memo (dfc_cuda.h): the device answer last given in this thread since it was armed. */
__thread dfc_gpu_memo_t dfc_gpu_memo __attribute__((tls_model("initial-exec")));

/* The device of the last device buffer any thread asked about (dfc_gpu_home_device). */
static int home_device = -1;

static int seen_device(int dev)
{
    if (dev >= 0 && __atomic_load_n(&home_device, __ATOMIC_RELAXED) != dev)
        __atomic_store_n(&home_device, dev, __ATOMIC_RELAXED);
    return dev;
}

int dfc_gpu_home_device(void) { return __atomic_load_n(&home_device, __ATOMIC_RELAXED); }

int dfc_gpu_ptr_device_managed(const void *ptr, int *managed)
{
    *managed = 0;
    if (!ptr || ptr == (const void *)-1) return -1;
    cu_ptr_attrs_fn fn = driver();
    if (DFC_LIKELY(!fn)) return -1;
    if (host_by_construction((uintptr_t)ptr)) return -1;
    if (ptr == dfc_gpu_memo.ptr) {
        *managed = dfc_gpu_memo.managed;
        return dfc_gpu_memo.dev;
    }
    unsigned long long id;
    int dev = ask_driver(fn, ptr, managed, &id);
    if (dev == -1) return -1;
    if (dev >= 0 && dfc_gpu_memo.armed) dfc_gpu_memo = (dfc_gpu_memo_t){ptr, id, dev, *managed, 1};
    dfc_gpu_init(); /* DFC's own CUDA (copies, the daemon's queries), loaded once */
    if (dev >= 0) return seen_device(dev);
    *managed = 1; /* the runtime's answer does not say: the cautious one */
    return seen_device(dfc_gpu_cudart_ptr_device(ptr));
}

int dfc_gpu_ptr_device_asked(const void *ptr)
{
    int managed;
    return dfc_gpu_ptr_device_managed(ptr, &managed);
}

int dfc_gpu_is_device_ptr(const void *ptr) { return dfc_gpu_ptr_device(ptr) >= 0; }

int dfc_gpu_driver_in_process(void) { return driver() != NULL; }

unsigned long dfc_gpu_memtype_queries(void) { return atomic_load(&driver_queries); }

/* DFC_GPU_INIT: when DFC_Init loads CUDA and starts the GPU daemon (dfc(7), "Lazy start"). */
static int cuda_already_mapped(void)
{
    const char *names[] = {"libcuda.so.1", "libcudart.so.13", "libcudart.so.12", "libcudart.so",
                           NULL};
    for (int i = 0; names[i]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
        if (h) {
            dlclose(h); /* only counted down: it was loaded before */
            return 1;
        }
    }
    return 0;
}
#else
static void *const never_loaded = NULL; /* built without CUDA: every pointer is host memory */
void *const *dfc_gpu_no_driver_while_null = &never_loaded;
int dfc_gpu_ptr_device_asked(const void *ptr)
{
    (void)ptr;
    return -1;
}
int dfc_gpu_ptr_device_managed(const void *ptr, int *managed)
{
    (void)ptr;
    *managed = 0;
    return -1;
}
int dfc_gpu_is_device_ptr(const void *ptr)
{
    (void)ptr;
    return 0;
}
int dfc_gpu_driver_in_process(void) { return 0; }
int dfc_gpu_home_device(void) { return -1; }
unsigned long dfc_gpu_memtype_queries(void) { return 0; }
__thread dfc_gpu_memo_t dfc_gpu_memo __attribute__((tls_model("initial-exec")));
static int cuda_already_mapped(void) { return 0; }
#endif

void dfc_gpu_init_startup(void)
{
    const char *mode = dfc_env_str(
        "DFC_GPU_INIT", "auto",
        "when DFC_Init loads CUDA and starts the GPU daemon: eager (always), lazy (never: CUDA "
        "is loaded at the first device buffer, which is then staged through host memory), "
        "auto (eager when the CUDA runtime or driver is already in the process, else lazy)");
    if (!strcmp(mode, "eager") || (strcmp(mode, "lazy") && cuda_already_mapped())) dfc_gpu_init();
}
