/*
 * dfc_info - prints how this DFC was built and what it can use, like ompi_info: the
 * version, the build configuration, the transports, the GPUs (when CUDA and devices are
 * present) and every environment parameter with its current value and default.
 *
 * The parameter list comes from dfc_env_params(), which knows only the parameters read so
 * far; so dfc_info initializes DFC as a singleton, calls each collective once on
 * DFC_COMM_SELF (collective algorithm variables are read on first use), and finalizes.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

#include "dfc.h"
#include "util/dfc_util.h"

#ifndef DFC_CUDA_DIR
#define DFC_CUDA_DIR ""
#endif

static int parsable;

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "Usage: %s [-p|--parsable] [-h|--help]\n"
            "Print the DFC version, build configuration, transports, GPUs and environment\n"
            "parameters.\n"
            "  -p, --parsable  print machine-readable key:value lines\n"
            "  -h, --help      print this help and exit\n",
            prog);
}

static void heading(const char *title)
{
    if (!parsable) printf("\n%s:\n", title);
}

/* ---- Version ------------------------------------------------------------------------ */
static void print_version(void)
{
    char v[DFC_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    v[0] = '\0';
    DFC_Get_library_version(v, &len);
    /* Keep the first line only for the parsable form. */
    char *nl = strchr(v, '\n');
    if (nl) *nl = '\0';
    if (parsable) {
        printf("version:%s\n", VERSION);
        printf("library_version:%s\n", v);
    } else {
        printf("DFC version:     %s\n", VERSION);
        printf("Library version: %s\n", v);
    }
}

/* ---- Build configuration ------------------------------------------------------------ */
static void config_line(const char *key, const char *value)
{
    if (parsable) printf("config:%s:%s\n", key, value);
    else printf("  %-14s %s\n", key, value);
}

static void print_config(void)
{
    heading("Build configuration");
#ifdef HAVE_CUDA
    config_line("cuda", "yes");
    config_line("cuda_dir", DFC_CUDA_DIR[0] ? DFC_CUDA_DIR : "unknown");
#else
    config_line("cuda", "no");
#endif
    const char *pv = PMIx_Get_version();
    config_line("pmix", "yes");
    config_line("pmix_version", pv && *pv ? pv : "unknown");
#ifdef HAVE_HWLOC
    config_line("hwloc", "yes");
#else
    config_line("hwloc", "no");
#endif
#ifdef HAVE_IBVERBS
    config_line("ibverbs", "yes (no transport built)");
#else
    config_line("ibverbs", "no");
#endif
}

/* ---- Transports --------------------------------------------------------------------- */
static void print_transports(void)
{
    static const char *const tl[] = {"self", "shm", "tcp"};
    heading("Transports");
    for (int i = 0; i < 3; i++) {
        if (parsable) printf("transport:%s\n", tl[i]);
        else printf("  %s\n", tl[i]);
    }
}

/* ---- GPUs --------------------------------------------------------------------------- */
#ifdef HAVE_HWLOC
static hwloc_topology_t topo;
static int topo_loaded;

/* The NUMA nodes near the PCI device at busid ("dddd:bb:dd.f"), or NULL. */
static char *gpu_numa(const char *busid)
{
    unsigned dom, bus, dev, fn;
    if (sscanf(busid, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4) return NULL;
    if (!topo_loaded) {
        if (hwloc_topology_init(&topo)) return NULL;
        hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
        if (hwloc_topology_load(topo)) {
            hwloc_topology_destroy(topo);
            return NULL;
        }
        topo_loaded = 1;
    }
    hwloc_obj_t pci = hwloc_get_pcidev_by_busid(topo, dom, bus, dev, fn);
    if (!pci) return NULL;
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, pci);
    if (!anc || !anc->nodeset || hwloc_bitmap_iszero(anc->nodeset)) return NULL;
    char *s = NULL;
    if (hwloc_bitmap_list_asprintf(&s, anc->nodeset) < 0) return NULL;
    return s;
}
#endif

static void print_gpus(void)
{
    heading("GPUs");
    int count = 0;
    void *lib = NULL;
    const char *env = getenv("DFC_CUDA_LIBRARY");
    const char *names[] = {env && *env ? env : "libcudart.so.13", "libcudart.so.13",
                           "libcudart.so.12", "libcudart.so", NULL};
    for (int i = 0; names[i] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    int (*get_count)(int *) = NULL;
    int (*get_busid)(char *, int, int) = NULL;
    int (*get_props)(void *, int) = NULL;
    if (lib) {
        get_count = (int (*)(int *))dlsym(lib, "cudaGetDeviceCount");
        get_busid = (int (*)(char *, int, int))dlsym(lib, "cudaDeviceGetPCIBusId");
        get_props = (int (*)(void *, int))dlsym(lib, "cudaGetDeviceProperties_v2");
        if (!get_props) get_props = (int (*)(void *, int))dlsym(lib, "cudaGetDeviceProperties");
        if (!get_count || get_count(&count) != 0) count = 0;
    }
    if (parsable) printf("gpu:count:%d\n", count);
    else if (!lib) printf("  none (CUDA runtime not found)\n");
    else if (!count) printf("  none (no CUDA device visible)\n");
    /* cudaDeviceProp begins with char name[256] in every CUDA version; its size varies,
     * so a generous buffer receives it. */
    static union {
        char name[256];
        double align;
        char bytes[1 << 16];
    } props;
    for (int d = 0; d < count; d++) {
        char name[257] = "unknown", busid[64] = "unknown";
        if (get_props && get_props(&props, d) == 0) {
            memcpy(name, props.name, 256);
            name[256] = '\0';
        }
        if (!get_busid || get_busid(busid, sizeof busid, d) != 0) snprintf(busid, sizeof busid, "unknown");
        char *numa = NULL;
#ifdef HAVE_HWLOC
        if (strcmp(busid, "unknown")) numa = gpu_numa(busid);
#endif
        if (parsable)
            printf("gpu:%d:name:%s\ngpu:%d:pci:%s\ngpu:%d:numa:%s\n", d, name, d, busid, d,
                   numa ? numa : "unknown");
        else
            printf("  GPU %d: %s, PCI %s, NUMA node %s\n", d, name, busid, numa ? numa : "unknown");
        free(numa);
    }
#ifdef HAVE_HWLOC
    if (topo_loaded) hwloc_topology_destroy(topo);
    topo_loaded = 0;
#endif
    /* lib stays loaded: unloading the CUDA runtime at exit can misbehave. */
}

/* ---- Environment parameters --------------------------------------------------------- */
/* Touches every collective once on DFC_COMM_SELF so that the parameters they read lazily
 * are registered. */
static void run_collectives(void)
{
    int s = 1, r = 0, one = 1, zero = 0;
    DFC_Comm c = DFC_COMM_SELF;
    DFC_Comm_set_errhandler(c, DFC_ERRORS_RETURN);
    DFC_Allreduce(&s, &r, 1, DFC_INT, DFC_SUM, c);
    DFC_Bcast(&s, 1, DFC_INT, 0, c);
    DFC_Reduce(&s, &r, 1, DFC_INT, DFC_SUM, 0, c);
    DFC_Allgather(&s, 1, DFC_INT, &r, 1, DFC_INT, c);
    DFC_Allgatherv(&s, 1, DFC_INT, &r, &one, &zero, DFC_INT, c);
    DFC_Gather(&s, 1, DFC_INT, &r, 1, DFC_INT, 0, c);
    DFC_Gatherv(&s, 1, DFC_INT, &r, &one, &zero, DFC_INT, 0, c);
    DFC_Scatter(&s, 1, DFC_INT, &r, 1, DFC_INT, 0, c);
    DFC_Scatterv(&s, &one, &zero, DFC_INT, &r, 1, DFC_INT, 0, c);
    DFC_Alltoall(&s, 1, DFC_INT, &r, 1, DFC_INT, c);
    DFC_Alltoallv(&s, &one, &zero, DFC_INT, &r, &one, &zero, DFC_INT, c);
    DFC_Reduce_scatter_block(&s, &r, 1, DFC_INT, DFC_SUM, c);
    DFC_Reduce_scatter(&s, &r, &one, DFC_INT, DFC_SUM, c);
    DFC_Scan(&s, &r, 1, DFC_INT, DFC_SUM, c);
    DFC_Exscan(&s, &r, 1, DFC_INT, DFC_SUM, c);
    DFC_Barrier(c);
}

/* Parameters a singleton never reads: the shm and tcp transports are initialized only when
 * a job has more than one process, and the ring allreduce (never chosen on one process)
 * reads its segment size on first use. They are registered here with the names, defaults
 * and descriptions of src/tl/shm.c, src/tl/tcp.c and src/coll/allreduce_ring.c; keep them
 * in step. A parameter the library did read keeps the library's entry (the first one). */
static void register_unread_params(void)
{
    dfc_env_long("DFC_COLL_RING_SEGMENT", 1 << 20,
                 "ring allreduce: largest message of its pipeline, in bytes");
    dfc_env_long("DFC_SHM_RING_BYTES", 0,
                 "shm: bytes per ring (one per ordered pair of local ranks; rounded "
                 "up to a power of two); 0: 256 KiB, scaled down above 16 local ranks");
    dfc_env_long("DFC_SHM_MAX_PAYLOAD", 32768,
                 "shm: largest packet payload in bytes (at most 1/8 of the ring "
                 "unless set, and always below half of it)");
    dfc_env_long("DFC_SHM_BURST", 16, "shm: packets taken from one peer per progress call (fairness)");
    dfc_env_long("DFC_SHM_CMA", 1,
                 "shm: 1 lets receivers pull large messages with process_vm_readv "
                 "(cross-memory attach), 0 sends them as packets");
    dfc_env_long("DFC_SHM_LIVENESS_MS", 100, "shm: how often (ms) to check that local peers are alive");
    dfc_env_long("DFC_TCP_MAX_PAYLOAD", 262144,
                 "tcp: largest packet payload in bytes (rendezvous fragment size)");
    dfc_env_long("DFC_TCP_MAX_QUEUED", 8L << 20,
                 "tcp: bytes queued per peer beyond what the socket takes before send "
                 "answers 'try again'");
    dfc_env_long("DFC_TCP_SOCKBUF", 0,
                 "tcp: SO_SNDBUF/SO_RCVBUF in bytes; 0 keeps the kernel's "
                 "autotuning (a fixed size disables it)");
    dfc_env_long("DFC_TCP_CONNECT_TIMEOUT", 30, "tcp: seconds init waits for all connections");
    dfc_env_str("DFC_TCP_IF_ADDR", NULL,
                "tcp: IPv4 address to listen on and publish; default: listen "
                "on all, publish the address `hostname` resolves to (else "
                "127.0.0.1)");
}

static int print_env(void)
{
    heading("Environment parameters (current value, default)");
    int n = 0;
    const dfc_env_param_t *p = dfc_env_params(&n);
    for (int i = 0; i < n; i++) {
        const char *v = getenv(p[i].name);
        const char *value = v && *v ? v : p[i].dflt;
        if (parsable)
            printf("env:%s:value:%s:default:%s\n", p[i].name, value, p[i].dflt);
        else
            printf("  %-36s %-12s (default %s)\n      %s\n", p[i].name, value,
                   *p[i].dflt ? p[i].dflt : "none", p[i].desc ? p[i].desc : "");
    }
    return n;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--parsable")) parsable = 1;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout, "dfc_info");
            return 0;
        } else {
            fprintf(stderr, "%s: unknown option '%s'\n", argv[0], argv[i]);
            usage(stderr, "dfc_info");
            return 2;
        }
    }

    if (DFC_Init(&argc, &argv) != DFC_SUCCESS) {
        fprintf(stderr, "%s: DFC_Init failed\n", argv[0]);
        return 1;
    }
    run_collectives();
    DFC_Finalize();
    register_unread_params();

    print_version();
    print_config();
    print_transports();
    print_gpus();
    print_env();
    return fflush(stdout) ? 1 : 0;
}
