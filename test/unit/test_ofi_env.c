/*
 * test_ofi_env - the libfabric variables the ofi transport sets for rxm (src/tl/ofi_prov.c,
 * dfc_tl_ofi(7)): set where the environment has none, never over the user's value (an
 * empty one included), and FI_OFI_RXM_EAGER_LIMIT only for an rxm provider. No libfabric
 * needed: the functions only touch the environment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl/ofi_prov.h"

static int fails;

#define CHECK(c, ...)                                       \
    do {                                                    \
        if (!(c)) {                                         \
            fails++;                                        \
            fprintf(stderr, "test_ofi_env:%d: ", __LINE__); \
            fprintf(stderr, __VA_ARGS__);                   \
            fputc('\n', stderr);                            \
        }                                                   \
    } while (0)

static void check_var(const char *name, const char *want)
{
    const char *v = getenv(name);
    if (!want) CHECK(!v, "%s is '%s', expected unset", name, v);
    else CHECK(v && !strcmp(v, want), "%s is '%s', expected '%s'", name, v ? v : "(unset)", want);
}

int main(void)
{
    const char *ev = "FI_OFI_RXM_EAGER_LIMIT";
    unsetenv(ev);
    /* not rxm: nothing set */
    CHECK(dfc_ofi_prov_rxm_defaults("efa", 65640) == 0, "set for efa");
    CHECK(dfc_ofi_prov_rxm_defaults("net", 65640) == 0, "set for net");
    CHECK(dfc_ofi_prov_rxm_defaults(NULL, 65640) == 0, "set for no provider");
    check_var(ev, NULL);
    /* rxm, unset: the transport's largest packet */
    CHECK(dfc_ofi_prov_rxm_defaults("tcp;ofi_rxm", 65640) == 1, "not set for tcp;ofi_rxm");
    check_var(ev, "65640");
    /* set (by us or the user): kept */
    CHECK(dfc_ofi_prov_rxm_defaults("tcp;ofi_rxm", 1234) == 0, "overwrote a set value");
    check_var(ev, "65640");
    setenv(ev, "16384", 1);
    CHECK(dfc_ofi_prov_rxm_defaults("verbs;ofi_rxm", 65640) == 0, "overwrote the user's");
    check_var(ev, "16384");
    setenv(ev, "", 1); /* empty is the user's too */
    CHECK(dfc_ofi_prov_rxm_defaults("tcp;ofi_rxm", 65640) == 0, "overwrote an empty value");
    check_var(ev, "");
    /* the generic helper, as used for FI_OFI_RXM_BUFFER_SIZE */
    unsetenv("DFC_TEST_OFI_ENV_X");
    CHECK(dfc_ofi_prov_env_default("DFC_TEST_OFI_ENV_X", 16512) == 1, "helper did not set");
    check_var("DFC_TEST_OFI_ENV_X", "16512");
    CHECK(dfc_ofi_prov_env_default("DFC_TEST_OFI_ENV_X", 1) == 0, "helper overwrote");
    check_var("DFC_TEST_OFI_ENV_X", "16512");
    if (fails) {
        fprintf(stderr, "test_ofi_env: %d failure(s)\n", fails);
        return 1;
    }
    return 0;
}
