/* ofi_prov.c - listing libfabric providers and choosing the ofi transport's (ofi_prov.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl/dfc_tl.h"
#include "tl/ofi_prov.h"
#include "util/dfc_util.h"

int dfc_ofi_prov_is_socket(const char *name)
{
    static const char *const sock[] = {"tcp", "udp", "sockets", "net", "shm"};
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", name ? name : "");
    for (char *save = NULL, *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save))
        for (size_t i = 0; i < sizeof(sock) / sizeof(sock[0]); i++)
            if (!strcmp(t, sock[i])) return 1;
    return 0;
}

/* The sockets provider (libfabric 1.17) serves RMA reads and acknowledges sends from its own
 * progress thread, and that thread stalls when ranks read large buffers from each other at
 * the same time: pt2pt/transport at 8 ranks (every pair exchanges 400 KB by rendezvous) had
 * reads wait 5 to 20 s for a response from a peer idle in its wait, and sends to every
 * peer not completed meanwhile (a send completes there when the receiver's provider
 * acknowledges it), so DFC_FAULT_TIMEOUT failed live peers in about 1 run in 4 (8 of 32).
 * With fragments (tagged sends only) it passed every time (16 of 16 before the change, see
 * BENCHMARKS.md for the runs after). So sockets gets fragments whatever DFC_OFI_RMA says;
 * the provider is deprecated upstream in favour of tcp;ofi_rxm, which reads fine. */
int dfc_ofi_prov_reads_ok(const char *name)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", name ? name : "");
    for (char *save = NULL, *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save))
        if (!strcmp(t, "sockets")) return 0;
    return 1;
}

int dfc_ofi_prov_needs_waitset(const char *name)
{
    return name && (!strcmp(name, "net") || !strcmp(name, "tcp"));
}

int dfc_ofi_prov_env_default(const char *name, unsigned long value)
{
    if (getenv(name)) return 0; /* the user's, even an empty one */
    char buf[32];
    snprintf(buf, sizeof(buf), "%lu", value);
    return setenv(name, buf, 0) == 0;
}

int dfc_ofi_prov_rxm_defaults(const char *prov_name, size_t largest_msg)
{
    if (!prov_name || !strstr(prov_name, "ofi_rxm")) return 0;
    return dfc_ofi_prov_env_default("FI_OFI_RXM_EAGER_LIMIT", (unsigned long)largest_msg);
}

const char *dfc_tl_ofi_provider_param(void)
{
    return dfc_env_str("DFC_OFI_PROVIDER", NULL,
                       "ofi: libfabric provider, e.g. 'tcp;ofi_rxm', 'verbs;ofi_rxm', 'efa'; "
                       "default: the first that is not a socket provider (DFC_TRANSPORT=ofi: "
                       "else net, or tcp without rxm, where offered, else the first found); "
                       "every rank must choose the same");
}

#if HAVE_LIBFABRIC
#include <dirent.h>

#include "tl/ofi_fabric.h"

#define OFI_API FI_VERSION(1, 9)

/* rxm sends a message eagerly, in one piece, up to its eager limit (its bounce buffer size,
 * 16 KiB, by default) and moves larger ones by segments (SAR) or its own rendezvous. A DFC
 * eager message of 16 KiB of payload plus our 88-byte header, without room for the header,
 * did not go in one piece (ping-pong 16 KiB: 25 to 80 us here against 8 KiB's 8). Unless the
 * user set it, the buffer gets that room; it is also the inject size. (Larger messages, up
 * to a full packet, go in one piece by FI_OFI_RXM_EAGER_LIMIT: dfc_ofi_prov_rxm_defaults.)
 * libfabric reads the buffer size once, at the first fi_getinfo, so this runs before. */
static void env_defaults(void) { dfc_ofi_prov_env_default("FI_OFI_RXM_BUFFER_SIZE", 16512); }

static struct fi_info *hints_new(const char *want, int source, int safe, uint64_t extra)
{
    struct fi_info *h = fi_allocinfo();
    if (!h) return NULL;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = FI_TAGGED | (source ? FI_SOURCE : 0) | extra;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                              FI_MR_ENDPOINT;
    if (extra & FI_HMEM) h->domain_attr->mr_mode |= FI_MR_HMEM; /* providers require it */
    h->domain_attr->threading = safe ? FI_THREAD_SAFE : FI_THREAD_DOMAIN;
    h->domain_attr->av_type = FI_AV_TABLE;
    if (want && *want) h->fabric_attr->prov_name = strdup(want);
    return h;
}

/* All candidates with capabilities `extra` besides ours: with FI_SOURCE and FI_THREAD_SAFE
 * where offered, else without. */
static struct fi_info *candidates_with(const char *want, uint64_t extra, uint32_t api)
{
    struct fi_info *list = NULL;
    env_defaults();
    for (int k = 3; k >= 0 && !list; k--) {
        struct fi_info *h = hints_new(want, k & 1, k >> 1, extra);
        if (!h) return NULL;
        if (fi_getinfo(api, NULL, NULL, 0, h, &list) != 0) list = NULL;
        fi_freeinfo(h);
    }
    return list;
}

static struct fi_info *candidates(const char *want) { return candidates_with(want, 0, OFI_API); }

/* The same provider and domain as i with extra capabilities, or NULL (caller frees). */
static struct fi_info *with_caps(const struct fi_info *i, uint64_t extra, uint32_t api)
{
    struct fi_info *list = candidates_with(i->fabric_attr->prov_name, extra, api), *hit = NULL;
    for (struct fi_info *j = list; j && !hit; j = j->next)
        if (!strcmp(j->fabric_attr->prov_name, i->fabric_attr->prov_name) &&
            (!i->domain_attr->name || !j->domain_attr->name ||
             !strcmp(j->domain_attr->name, i->domain_attr->name)))
            hit = j;
    struct fi_info *out = hit ? fi_dupinfo(hit) : NULL;
    if (list) fi_freeinfo(list);
    return out;
}

int dfc_ofi_prov_hmem(const struct fi_info *i)
{
    struct fi_info *h = with_caps(i, FI_HMEM, FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION));
    if (h) fi_freeinfo(h);
    return h != NULL;
}

/* Unnamed: the first provider that is not a socket provider; else, where a socket provider
 * may do (DFC_TRANSPORT=ofi), the tcp path with a native FI_EP_RDM endpoint, without rxm on
 * top: net (libfabric 1.17), or tcp alone (1.18 and later, where net's code became the tcp
 * provider; 1.17's tcp lists RDM only under rxm); else the first listed (tcp;ofi_rxm).
 * Fewer system calls and locks a message than rxm: faster at small sizes (BENCHMARKS.md). */
static struct fi_info *pick(struct fi_info *list, const char *want, int any_ok)
{
    static const char *const native[] = {"net", "tcp"};
    if (want && *want) return list;
    for (struct fi_info *i = list; i; i = i->next)
        if (!dfc_ofi_prov_is_socket(i->fabric_attr->prov_name)) return i;
    if (!any_ok) return NULL;
    for (size_t k = 0; k < sizeof(native) / sizeof(native[0]); k++)
        for (struct fi_info *i = list; i; i = i->next)
            if (!strcmp(i->fabric_attr->prov_name, native[k])) return i;
    return list;
}

/* The same choice with the largest inject size the provider grants up to `want` bytes (asked
 * for: rxm reports 64 unless asked, and grants up to its buffer size, 16 KiB by default), so
 * that small messages go out by fi_tinject (ofi.c). Keeps *io where the provider refuses. */
static void widen_inject(struct fi_info **io, size_t want)
{
    struct fi_info *h = fi_dupinfo(*io), *list = NULL, *hit = NULL;
    if (!h || !h->tx_attr) goto out;
    for (; want >= 1024 && !list; want = want > 16384 ? 16384 : want / 4) {
        h->tx_attr->inject_size = want;
        if (fi_getinfo(OFI_API, NULL, NULL, 0, h, &list) != 0) list = NULL;
    }
    for (struct fi_info *j = list; j && !hit; j = j->next)
        if (!strcmp(j->fabric_attr->prov_name, (*io)->fabric_attr->prov_name) && j->tx_attr &&
            j->tx_attr->inject_size > (*io)->tx_attr->inject_size && j->caps == (*io)->caps)
            hit = j;
    if (hit && (hit = fi_dupinfo(hit))) {
        fi_freeinfo(*io);
        *io = hit;
    }
out:
    if (list) fi_freeinfo(list);
    if (h) fi_freeinfo(h);
}

int dfc_ofi_prov_choose(const char *want, int any_ok, int rma, struct fi_info **out)
{
    *out = NULL;
    struct fi_info *list = candidates(want);
    struct fi_info *i = list ? pick(list, want, any_ok) : NULL;
    /* The provider chosen, with FI_RMA (rendezvous by read, ofi_rma.c) where it has it. */
    if (i && rma) *out = with_caps(i, FI_RMA | FI_READ | FI_REMOTE_READ, OFI_API);
    if (i && !*out) *out = fi_dupinfo(i);
    if (list) fi_freeinfo(list);
    if (*out && (*out)->tx_attr) widen_inject(out, 16512);
    if (*out) return DFC_SUCCESS;
    const char *why = dfc_tl_ofi_load_error();
    if (why) return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "libfabric: %s (DFC_OFI_LIBRARY)", why);
    if (want && *want)
        return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                       "libfabric has no provider '%s' with "
                       "FI_EP_RDM, FI_TAGGED and ordered sends (DFC_OFI_PROVIDER; fi_info -l "
                       "lists them)",
                       want);
    return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                   "libfabric has no%s provider with FI_EP_RDM, "
                   "FI_TAGGED and ordered sends",
                   any_ok ? "" : " non-socket");
}

/* 1 when some directory of `dirs` has an entry (a device): readdir, no libfabric. */
static int any_entry(const char *const *dirs)
{
    for (; *dirs; dirs++) {
        DIR *d = opendir(*dirs);
        if (!d) continue;
        struct dirent *e;
        while ((e = readdir(d)) && e->d_name[0] == '.') {}
        closedir(d);
        if (e) return 1;
    }
    return 0;
}

/* auto leaves the node over ofi only through a provider that is not a socket one, and each
 * of those drives a device that the kernel lists: verbs (InfiniBand, RoCE, iWARP), efa,
 * usnic, psm2 and opx (hfi1) under /sys/class/infiniband (and /dev/infiniband where a
 * container hides /sys), cxi under /sys/class/cxi. Where none is listed, auto keeps DFC's
 * tcp without loading libfabric, whose providers' libraries cost every process of a job
 * that spans nodes 0.22 s of a core and a 2-process job 0.5 s of start-up (2-core CI
 * machine, 2026-12-03; ofi_dl.c says why). DFC_TRANSPORT=ofi and DFC_OFI_PROVIDER do not
 * look: they ask for libfabric by name. */
static int fabric_device_listed(void)
{
    static const char *const dirs[] = {"/sys/class/infiniband", "/dev/infiniband", "/sys/class/cxi",
                                       NULL};
    return any_entry(dirs);
}

int dfc_tl_ofi_auto_usable(void)
{
    const char *want = dfc_tl_ofi_provider_param();
    if (want && *want) return !dfc_ofi_prov_is_socket(want);
    if (!fabric_device_listed()) return 0;
    struct fi_info *list = candidates(NULL);
    int ok = list && pick(list, NULL, 0) != NULL;
    if (list) fi_freeinfo(list);
    return ok;
}

void dfc_tl_ofi_providers(char *found, size_t flen, char *chosen, size_t clen)
{
    const char *want = dfc_tl_ofi_provider_param();
    struct fi_info *list = candidates(NULL);
    size_t k = 0;
    found[0] = chosen[0] = '\0';
    for (struct fi_info *i = list; i; i = i->next) {
        const char *n = i->fabric_attr->prov_name;
        char key[160];
        snprintf(key, sizeof(key), " %s,", n); /* list each provider once */
        char have[1024];
        snprintf(have, sizeof(have), " %s,", found);
        if (strstr(have, key)) continue;
        k += (size_t)snprintf(found + k, k < flen ? flen - k : 0, "%s%s", k ? ", " : "", n);
        if (k >= flen) break;
    }
    struct fi_info *c = NULL;
    if (dfc_ofi_prov_choose(want, 1, 1, &c) == DFC_SUCCESS) {
        snprintf(chosen, clen, "%s%s; %s; %s", c->fabric_attr->prov_name,
                 dfc_ofi_prov_is_socket(c->fabric_attr->prov_name)
                     ? " (a socket provider: auto keeps DFC's tcp between nodes)"
                     : "",
                 !(c->caps & FI_RMA) ? "no FI_RMA: rendezvous by fragments"
                 : dfc_ofi_prov_reads_ok(c->fabric_attr->prov_name)
                     ? "FI_RMA: rendezvous by RMA read"
                     : "FI_RMA not used (its reads stall): rendezvous by fragments",
                 dfc_ofi_prov_hmem(c) ? "FI_HMEM reported, not used: device data is staged"
                                      : "no FI_HMEM: device data is staged");
        fi_freeinfo(c);
    } else {
        snprintf(chosen, clen, "none");
    }
    if (list) fi_freeinfo(list);
}
#else
int dfc_ofi_prov_choose(const char *want, int any_ok, int rma, struct fi_info **out)
{
    (void)want;
    (void)any_ok;
    (void)rma;
    *out = NULL;
    return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "DFC was built without libfabric "
                                                  "(configure --with-ofi)");
}

int dfc_tl_ofi_auto_usable(void) { return 0; }

void dfc_tl_ofi_providers(char *found, size_t flen, char *chosen, size_t clen)
{
    snprintf(found, flen, "none (built without libfabric)");
    snprintf(chosen, clen, "none");
}
#endif
