/*
 * env.c - environment parameters. Each parameter is read through one of these functions,
 * which remembers its name, default and description so that dfc_info can list every
 * parameter that exists (dfc_env(7) documents them all; a test checks that).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/dfc_util.h"

#define DFC_ENV_MAX 128
static dfc_env_param_t params[DFC_ENV_MAX];
static char defaults[DFC_ENV_MAX][32];
static int nparams;
static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;

static void remember(const char *name, const char *dflt, const char *desc)
{
    pthread_mutex_lock(&env_lock);
    for (int i = 0; i < nparams; i++)
        if (!strcmp(params[i].name, name)) goto out;
    if (nparams < DFC_ENV_MAX) {
        snprintf(defaults[nparams], sizeof defaults[nparams], "%s", dflt);
        params[nparams].name = name;
        params[nparams].dflt = defaults[nparams];
        params[nparams].desc = desc;
        nparams++;
    }
out:
    pthread_mutex_unlock(&env_lock);
}

long dfc_env_long(const char *name, long dflt, const char *desc)
{
    char d[32];
    snprintf(d, sizeof d, "%ld", dflt);
    remember(name, d, desc);
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    long x = strtol(v, &end, 0);
    /* Accept size suffixes, since most parameters are byte counts. */
    if (*end == 'k' || *end == 'K') x <<= 10;
    else if (*end == 'm' || *end == 'M') x <<= 20;
    else if (*end == 'g' || *end == 'G') x <<= 30;
    return x;
}

double dfc_env_double(const char *name, double dflt, const char *desc)
{
    char d[32];
    snprintf(d, sizeof d, "%g", dflt);
    remember(name, d, desc);
    const char *v = getenv(name);
    return v && *v ? strtod(v, NULL) : dflt;
}

const char *dfc_env_str(const char *name, const char *dflt, const char *desc)
{
    remember(name, dflt ? dflt : "", desc);
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

const dfc_env_param_t *dfc_env_params(int *count)
{
    *count = nparams;
    return params;
}
