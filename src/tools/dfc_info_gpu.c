/*
 * dfc_info_gpu.c - the GPU section of dfc_info: for each GPU its name, PCI bus id, memory,
 * compute capability, NUMA node and nearby CPUs (hwloc); for each pair, peer access and the
 * link: NVLink (direct, with its number of active links, or through NVSwitches), else PCIe.
 *
 * Everything is optional: the CUDA runtime (dfc_gpu_cudart_open, as libdfc loads it) and
 * NVML (libnvidia-ml.so.1) are loaded with dlopen, so dfc_info runs on any machine. Every
 * call is checked; a failed one leaves its field "unknown" and prints nothing on stderr.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

#include "cuda/dfc_cuda.h"
#include "tools/dfc_info.h"

/* NVML's types, from its header when the CUDA toolkit has one; otherwise the few used here,
 * as nvml.h declares them (a stable ABI since the _v2 functions). */
#if defined(__has_include) && __has_include(<nvml.h>)
#include <nvml.h>
#else
typedef enum { NVML_SUCCESS = 0 } nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 } nvmlEnableState_t;
typedef enum {
    NVML_NVLINK_DEVICE_TYPE_GPU = 0x00,
    NVML_NVLINK_DEVICE_TYPE_IBMNPU = 0x01,
    NVML_NVLINK_DEVICE_TYPE_SWITCH = 0x02,
    NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xFF
} nvmlIntNvLinkDeviceType_t;
typedef struct nvmlPciInfo_st {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;
#define NVML_NVLINK_MAX_LINKS 18
#endif

/* The start of cudaDeviceProp, unchanged from CUDA 10 to 13 (later members moved in 13, so
 * the compute capability comes from cudaDeviceGetAttribute instead). */
struct prop_head {
    char name[256];
    unsigned char uuid[16];
    char luid[8];
    unsigned int luid_mask;
    size_t total_mem;
};
#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
_Static_assert(offsetof(struct cudaDeviceProp, totalGlobalMem) ==
                   offsetof(struct prop_head, total_mem),
               "cudaDeviceProp begins differently: fix struct prop_head");
#endif
enum { ATTR_CC_MAJOR = 75, ATTR_CC_MINOR = 76 }; /* cudaDevAttrComputeCapabilityMajor/Minor */

typedef struct gpu {
    char name[257], busid[64];
    unsigned dom, bus, dev, fn;
    int has_pci;            /* busid parsed */
    size_t mem;             /* 0: unknown */
    int cc_major, cc_minor; /* -1: unknown */
    nvmlDevice_t nvml;      /* NULL: no NVML handle */
    int switch_links;       /* active NVLinks to NVSwitches */
} gpu_t;

static struct {
    int (*count)(int *);
    int (*busid)(char *, int, int);
    int (*props)(void *, int);
    int (*attr)(int *, int, int);
    int (*can_peer)(int *, int, int);
} cu;

static struct {
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*by_busid)(const char *, nvmlDevice_t *);
    nvmlReturn_t (*link_state)(nvmlDevice_t, unsigned, nvmlEnableState_t *);
    nvmlReturn_t (*remote_pci)(nvmlDevice_t, unsigned, nvmlPciInfo_t *);
    nvmlReturn_t (*remote_type)(nvmlDevice_t, unsigned, nvmlIntNvLinkDeviceType_t *); /* optional */
} nv;

/* Loads NVML and initializes it; 0 when unavailable (no driver, or an old one). */
static int nvml_open(void)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return 0;
    *(void **)&nv.init = dlsym(lib, "nvmlInit_v2");
    *(void **)&nv.by_busid = dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nv.link_state = dlsym(lib, "nvmlDeviceGetNvLinkState");
    *(void **)&nv.remote_pci = dlsym(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    *(void **)&nv.remote_type = dlsym(lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
    /* No nvmlShutdown and no dlclose: the process exits right after printing. */
    return nv.init && nv.by_busid && nv.link_state && nv.remote_pci && nv.init() == NVML_SUCCESS;
}

/* Fills g[d] from the CUDA runtime (and its NVML handle when nvml). */
static void describe(gpu_t *g, int d, int nvml)
{
    static union { /* cudaDeviceProp, whose size varies by version: room to spare */
        struct prop_head head;
        char bytes[1 << 16];
    } props;
    snprintf(g->name, sizeof g->name, "unknown");
    snprintf(g->busid, sizeof g->busid, "unknown");
    g->cc_major = g->cc_minor = -1;
    if (cu.props && cu.props(&props, d) == 0) {
        memcpy(g->name, props.head.name, 256);
        g->name[256] = '\0';
        g->mem = props.head.total_mem;
    }
    if (cu.attr &&
        (cu.attr(&g->cc_major, ATTR_CC_MAJOR, d) || cu.attr(&g->cc_minor, ATTR_CC_MINOR, d)))
        g->cc_major = g->cc_minor = -1;
    if (!cu.busid || cu.busid(g->busid, sizeof g->busid, d) != 0)
        snprintf(g->busid, sizeof g->busid, "unknown");
    g->has_pci = sscanf(g->busid, "%x:%x:%x.%x", &g->dom, &g->bus, &g->dev, &g->fn) == 4;
    if (nvml && g->has_pci && nv.by_busid(g->busid, &g->nvml) != NVML_SUCCESS) g->nvml = NULL;
}

/* Counts the active NVLinks of g[i]: to each other GPU (links[i * n + j]) and to switches. */
static void count_links(gpu_t *g, int n, int i, int *links)
{
    if (!g[i].nvml) return;
    for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
        nvmlEnableState_t on;
        if (nv.link_state(g[i].nvml, l, &on) != NVML_SUCCESS || on != NVML_FEATURE_ENABLED)
            continue;
        nvmlIntNvLinkDeviceType_t type;
        if (nv.remote_type && nv.remote_type(g[i].nvml, l, &type) == NVML_SUCCESS &&
            type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
            g[i].switch_links++;
            continue;
        }
        nvmlPciInfo_t pci;
        if (nv.remote_pci(g[i].nvml, l, &pci) != NVML_SUCCESS) continue;
        for (int j = 0; j < n; j++)
            if (j != i && g[j].has_pci && g[j].dom == pci.domain && g[j].bus == pci.bus &&
                g[j].dev == pci.device)
                links[i * n + j]++;
    }
}

/* ---- hwloc: the NUMA nodes and CPUs next to a PCI device ----------------------------- */
typedef struct near {
    char *numa, *cpus; /* lists such as "0" and "0-47", NULL: unknown */
    int cores;         /* -1: unknown */
} near_t;

#ifdef HAVE_HWLOC
static hwloc_topology_t topo;

/* Loads the topology with PCI devices (GPUs are "important" ones); 0 on failure. */
static int topo_open(void)
{
    if (hwloc_topology_init(&topo)) return 0;
    if (hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) ||
        hwloc_topology_load(topo)) {
        hwloc_topology_destroy(topo);
        return 0;
    }
    return 1;
}

static void find_near(const gpu_t *g, near_t *r)
{
    if (!g->has_pci) return;
    hwloc_obj_t pci = hwloc_get_pcidev_by_busid(topo, g->dom, g->bus, g->dev, g->fn);
    hwloc_obj_t anc = pci ? hwloc_get_non_io_ancestor_obj(topo, pci) : NULL;
    if (!anc) return;
    if (anc->nodeset && !hwloc_bitmap_iszero(anc->nodeset) &&
        hwloc_bitmap_list_asprintf(&r->numa, anc->nodeset) < 0)
        r->numa = NULL;
    if (anc->cpuset && !hwloc_bitmap_iszero(anc->cpuset)) {
        if (hwloc_bitmap_list_asprintf(&r->cpus, anc->cpuset) < 0) r->cpus = NULL;
        r->cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, anc->cpuset, HWLOC_OBJ_CORE);
    }
}
#endif

/* ---- Printing ------------------------------------------------------------------------ */
static const char *or_unknown(const char *s) { return s ? s : "unknown"; }

static void print_gpu(int d, const gpu_t *g, const near_t *r, int parsable)
{
    char cc[32] = "unknown", mem[48] = "unknown";
    if (g->cc_major >= 0) snprintf(cc, sizeof cc, "%d.%d", g->cc_major, g->cc_minor);
    if (parsable) {
        if (g->mem) snprintf(mem, sizeof mem, "%zu", g->mem);
        printf("gpu:%d:name:%s\ngpu:%d:pci:%s\ngpu:%d:memory_bytes:%s\n", d, g->name, d, g->busid,
               d, mem);
        printf("gpu:%d:compute_capability:%s\ngpu:%d:numa:%s\ngpu:%d:cpus:%s\n", d, cc, d,
               or_unknown(r->numa), d, or_unknown(r->cpus));
        if (r->cores >= 0) printf("gpu:%d:cores:%d\n", d, r->cores);
        else printf("gpu:%d:cores:unknown\n", d);
        return;
    }
    if (g->mem) snprintf(mem, sizeof mem, "%.1f GiB", g->mem / (double)(1 << 30));
    printf("  GPU %d: %s, PCI %s, %s, compute capability %s\n", d, g->name, g->busid, mem, cc);
    printf("      NUMA node %s, CPUs %s", or_unknown(r->numa), or_unknown(r->cpus));
    if (r->cores >= 0) printf(" (%d cores)", r->cores);
    printf("\n");
}

/* The link between g[i] and g[j]: "nvlink" (direct links), "nvswitch" (both reach
 * NVSwitches), "pcie" (NVML knows both and sees no NVLink), or "unknown" (no NVML). */
static const char *link_kind(const gpu_t *g, int n, int i, int j, const int *links, int *count)
{
    *count = links[i * n + j];
    if (*count) return "nvlink";
    if (g[i].switch_links && g[j].switch_links) {
        *count = g[i].switch_links;
        return "nvswitch";
    }
    return g[i].nvml && g[j].nvml ? "pcie" : "unknown";
}

static void print_pair(const gpu_t *g, int n, int i, int j, const int *links, int parsable)
{
    int ok = 0, nl;
    const char *access = !cu.can_peer || cu.can_peer(&ok, i, j) ? "unknown" : ok ? "yes" : "no";
    const char *kind = link_kind(g, n, i, j, links, &nl);
    if (parsable) {
        printf("gpu:%d:peer:%d:access:%s\ngpu:%d:peer:%d:link:%s\ngpu:%d:peer:%d:nvlinks:%d\n", i,
               j, access, i, j, kind, i, j, nl);
        return;
    }
    printf("      to GPU %d: peer access %s, ", j, access);
    if (!strcmp(kind, "nvlink")) printf("NVLink (%d links)\n", nl);
    else if (!strcmp(kind, "nvswitch")) printf("NVLink through NVSwitch (%d links)\n", nl);
    else if (!strcmp(kind, "pcie")) printf("PCIe\n");
    else printf("link unknown (NVML unavailable)\n");
}

/* Which path device buffers take with this environment (dfc(7) "Host and device buffers"). */
static void print_paths(int n, int parsable)
{
    const char *d = getenv("DFC_GPU_DAEMON"), *p = getenv("DFC_GPU_P2P");
    int daemon = n && (!d || atoi(d) != 0), ipc = n && (!p || atoi(p) != 0);
    const char *coll = daemon ? "daemon" : "staged", *p2p = ipc ? "ipc" : "staged";
    /* issue 15: members on other nodes through the daemon's host proxy (DFC_GPU_PROXY) */
    const char *x = getenv("DFC_GPU_PROXY");
    int force = x && !strcmp(x, "force"), proxy = daemon && !(x && !strcmp(x, "off"));
    const char *remote = proxy ? "proxy" : "staged";
    if (parsable) {
        printf("gpu:path:collectives:%s\ngpu:path:p2p:%s\n", coll, p2p);
        printf("gpu:path:collectives_other_nodes:%s\ngpu:path:proxy_forced:%d\n", remote, force);
        printf("gpu:path:p2p_other_nodes:%s\n", ipc ? "streamed" : "staged");
        return;
    }
    printf("  Device collectives with members on other nodes: %s\n",
           !proxy  ? "staged through host memory (DFC_GPU_PROXY=off or no daemon)"
           : force ? "in the GPU daemon through the host proxy, also between ranks of one node "
                     "(DFC_GPU_PROXY=force)"
                   : "in the GPU daemon through the host proxy (any collective in jobs of at "
                     "most 16 processes; in larger jobs of equal nodes the hierarchical "
                     "reduce (from DFC_GPU_RAILS_REDUCE_MIN), allreduce, bcast (from 64 KiB), "
                     "allgather and reduce_scatter along rails, "
                     "and gather, scatter and alltoall when DFC_<KIND>_ALGORITHM=hierarchical; "
                     "with more nodes allreduce, allgather, reduce_scatter, bcast and reduce "
                     "around a ring of rails; else staged); allreduce, reduce and bcast of at "
                     "most DFC_GPU_PROXY_STAGE_MAX bytes staged");
    printf("  Device buffers: collectives %s; point-to-point on one node %s\n",
           daemon ? "in the GPU daemon (one GPU per rank, or shared under MPS; else staged)"
                  : "staged through host memory",
           ipc ? "copied directly with CUDA IPC; a send up to DFC_GPU_EAGER_LIMIT that comes "
                 "before its receive is held by the receiver (DFC_GPU_HOLD_MEMORY), else staged"
               : "staged through host memory");
    printf("  Device point-to-point with other nodes: %s\n",
           ipc ? "streamed through pinned host slots above the eager limit (DFC_STAGE_CHUNK, "
                 "_DEPTH), staged below it"
           : n ? "staged through host memory (DFC_GPU_P2P=0)"
               : "staged through host memory");
}

void dfc_info_gpus(int parsable)
{
    int n = 0;
    void *lib = dfc_gpu_cudart_open(); /* stays loaded: unloading CUDA at exit can misbehave */
    if (lib) {
        *(void **)&cu.count = dlsym(lib, "cudaGetDeviceCount");
        *(void **)&cu.busid = dlsym(lib, "cudaDeviceGetPCIBusId");
        *(void **)&cu.attr = dlsym(lib, "cudaDeviceGetAttribute");
        *(void **)&cu.can_peer = dlsym(lib, "cudaDeviceCanAccessPeer");
        *(void **)&cu.props = dlsym(lib, "cudaGetDeviceProperties_v2"); /* CUDA 12 */
        if (!cu.props) *(void **)&cu.props = dlsym(lib, "cudaGetDeviceProperties");
        if (!cu.count || cu.count(&n) != 0 || n < 0) n = 0;
    }
    gpu_t *g = n ? calloc((size_t)n, sizeof *g) : NULL;
    near_t *r = n ? calloc((size_t)n, sizeof *r) : NULL;
    int *links = n ? calloc((size_t)n * n, sizeof *links) : NULL;
    if (!g || !r || !links) n = 0;
    if (parsable) printf("gpu:count:%d\n", n);
    else if (!n) printf("\nGPUs: none (no CUDA runtime or no device)\n");
    else printf("\nGPUs:\n");
    if (n) {
        int nvml = nvml_open();
        for (int d = 0; d < n; d++) {
            describe(&g[d], d, nvml);
            r[d].cores = -1;
        }
        for (int d = 0; d < n; d++) count_links(g, n, d, links);
#ifdef HAVE_HWLOC
        if (topo_open()) {
            for (int d = 0; d < n; d++) find_near(&g[d], &r[d]);
            hwloc_topology_destroy(topo);
        }
#endif
        for (int i = 0; i < n; i++) {
            print_gpu(i, &g[i], &r[i], parsable);
            for (int j = 0; j < n; j++)
                if (j != i) print_pair(g, n, i, j, links, parsable);
        }
        for (int d = 0; d < n; d++) {
            free(r[d].numa);
            free(r[d].cpus);
        }
    }
    print_paths(n, parsable);
    free(g);
    free(r);
    free(links);
}
