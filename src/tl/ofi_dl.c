/*
 * ofi_dl.c - libfabric loaded when the ofi transport is first asked for, not with libdfc.
 *
 * Why. Debian's libfabric links the providers' libraries (psm, psm2, efa, verbs, rdmacm),
 * and the constructors of libpsm2 and libpsm_infinipath spin about 0.1 s each when a
 * process loads them, RDMA hardware or not: 0.22 s of a core at every start of every DFC
 * program, also of one that never leaves its node (2-core CI machine, 2026-12-03; the
 * test suite starts about 2,000 jobs). So libdfc does not link
 * libfabric: the five functions of it that DFC calls are defined here under DFC's names
 * (ofi_fabric.h renames DFC's calls to them) and forward to the library, which the first
 * of them loads with dlopen.
 *
 * Who loads it: the ofi transport's init (DFC_TRANSPORT=ofi, or auto in a job that spans
 * nodes on a host that lists a fabric device, whose probe is the first fi_getinfo:
 * ofi_prov.c) and dfc_info's provider list. A library that
 * cannot be loaded makes fi_getinfo and fi_fabric answer -FI_ENOSYS and fi_dupinfo NULL, so
 * the probe finds no provider; dfc_tl_ofi_load_error says why (ofi_prov.c puts it in its
 * error). DFC_OFI_LIBRARY names another library file (default libfabric.so.1, libfabric's
 * soname since 1.0). The names are DFC's own, so a program that links libdfc (shared or
 * static) and libfabric itself gets one definition of each of libfabric's functions.
 */
#include "config.h"

#if HAVE_LIBFABRIC
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "tl/ofi_fabric.h"
#include "tl/ofi_prov.h"
#include "util/dfc_util.h"

static struct {
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
} lf;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];

static void load(void)
{
    const char *name = dfc_env_str("DFC_OFI_LIBRARY", "libfabric.so.1",
                                   "ofi: the libfabric library loaded when the ofi transport "
                                   "is first asked for");
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_error, sizeof load_error, "cannot load %s: %s", name, dlerror());
        return;
    }
    /* dlsym answers each symbol's default version, the one a link against it would bind. */
    *(void **)&lf.getinfo = dlsym(h, "fi_getinfo");
    *(void **)&lf.freeinfo = dlsym(h, "fi_freeinfo");
    *(void **)&lf.dupinfo = dlsym(h, "fi_dupinfo");
    *(void **)&lf.fabric = dlsym(h, "fi_fabric");
    *(void **)&lf.strerror = dlsym(h, "fi_strerror");
    if (!lf.getinfo || !lf.freeinfo || !lf.dupinfo || !lf.fabric || !lf.strerror) {
        snprintf(load_error, sizeof load_error,
                 "%s lacks fi_getinfo, fi_freeinfo, fi_dupinfo, "
                 "fi_fabric or fi_strerror",
                 name);
        lf.getinfo = NULL; /* the handle stays open: a half-usable library is not unloaded */
    }
}

/* 1 when libfabric is loaded (loading it now if it was not tried). */
static int loaded(void)
{
    pthread_once(&load_once, load);
    return lf.getinfo != NULL;
}

const char *dfc_tl_ofi_load_error(void) { return loaded() ? NULL : load_error; }

int dfc_ofi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
                    const struct fi_info *hints, struct fi_info **info)
{
    if (!loaded()) return -FI_ENOSYS;
    return lf.getinfo(version, node, service, flags, hints, info);
}

void dfc_ofi_freeinfo(struct fi_info *info)
{
    if (info && loaded()) lf.freeinfo(info); /* an info exists only if it loaded */
}

struct fi_info *dfc_ofi_dupinfo(const struct fi_info *info)
{
    return loaded() ? lf.dupinfo(info) : NULL;
}

int dfc_ofi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    if (!loaded()) return -FI_ENOSYS;
    return lf.fabric(attr, fabric, context);
}

const char *dfc_ofi_strerror(int errnum) { return loaded() ? lf.strerror(errnum) : load_error; }
#endif
