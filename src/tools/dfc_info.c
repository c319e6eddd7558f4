/*
 * dfc_info - prints how this DFC was built and what it can use, like ompi_info: the
 * version, the build configuration, the transports, the GPUs (when CUDA and devices are
 * present) and every environment parameter with its current value and default.
 *
 * The parameter list comes from the library's registry (dfc_env_params), which knows the
 * parameters read so far: dfc_info initializes DFC as a singleton, which reads most, and
 * calls dfc_env_register_all for the ones read lazily, only in multi-process jobs or only
 * with a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "api/dfc_params.h"
#include "dfc.h"
#include "tl/dfc_tl.h"
#include "tools/dfc_info.h"
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
#ifdef HAVE_LIBFABRIC
    config_line("libfabric", "yes");
#else
    config_line("libfabric", "no");
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
    static const char *const tl[] = {"self", "shm", "tcp", "ofi"};
    heading("Transports");
#ifdef HAVE_LIBFABRIC
    int n = 4;
#else
    int n = 3;
#endif
    for (int i = 0; i < n; i++) {
        if (parsable) printf("transport:%s\n", tl[i]);
        else printf("  %s\n", tl[i]);
    }
    /* The address tcp listens on and publishes here (DFC_TCP_IF_ADDR, DFC_TCP_IF, or the
     * choice that skips loopback), and why. */
    char ip[64], how[160];
    int rc = dfc_tl_tcp_address(ip, sizeof ip, how, sizeof how);
    if (rc != DFC_SUCCESS) {
        snprintf(ip, sizeof ip, "none");
        dfc_err_message(rc, how, sizeof how);
    }
    if (parsable) printf("transport:tcp:address:%s\ntransport:tcp:address_from:%s\n", ip, how);
    else printf("  tcp address: %s (%s)\n", ip, how);
    char found[1024], chosen[256];
    dfc_tl_ofi_providers(found, sizeof(found), chosen, sizeof(chosen));
    if (parsable) {
        printf("ofi_providers:%s\nofi_provider:%s\n", found, chosen);
    } else {
        printf("  ofi providers found: %s\n", found);
        printf("  ofi provider chosen: %s\n", chosen);
    }
}

/* ---- Environment parameters --------------------------------------------------------- */
static int print_env(void)
{
    heading("Environment parameters (current value, default)");
    int n = 0;
    const dfc_env_param_t *p = dfc_env_params(&n);
    for (int i = 0; i < n; i++) {
        const char *v = getenv(p[i].name);
        const char *value = v && *v ? v : p[i].dflt;
        if (parsable) printf("env:%s:value:%s:default:%s\n", p[i].name, value, p[i].dflt);
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
    dfc_env_register_all();
    DFC_Finalize();

    print_version();
    print_config();
    print_transports();
    dfc_info_gpus(parsable);
    print_env();
    return fflush(stdout) ? 1 : 0;
}
