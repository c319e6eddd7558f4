/*
 * env.c - environment parameters. Each parameter is read through one of these functions,
 * which remembers its name, default and description so that dfc_info can list every
 * parameter that exists (dfc_env(7) documents them all; a test checks that).
 *
 * The values each parameter accepts are in the registry (env_registry.c). DFC_Init checks the
 * whole environment against it once (dfc_env_check), so that a malformed value fails at
 * once with a message instead of running silently with the default; the readers apply the
 * same rules, and fall back to the default only for values DFC_Init has already refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
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

/* ---- Parsing ----------------------------------------------------------------------------- */

/* An integer in C syntax (0x hexadecimal, leading 0 octal) with one optional k, m or g
 * suffix (x 1024, 1024^2, 1024^3: most parameters are byte counts), and nothing after it. */
static int parse_long(const char *v, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 0);
    if (end == v || errno) return 0;
    int shift = 0;
    switch (*end) {
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
    default: break;
    }
    if (*end) return 0;
    if (x > (LONG_MAX >> shift) || x < -(LONG_MAX >> shift)) return 0; /* overflows a long */
    *out = x * (1L << shift);
    return 1;
}

static int parse_double(const char *v, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(x)) return 0;
    *out = x;
    return 1;
}

/* 1 when the n characters at w are one of the words of list ("a|b|c"). */
static int word_in(const char *w, size_t n, const char *list)
{
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, "|");
        if (len == n && !strncmp(p, w, n)) return 1;
        p += len + (p[len] == '|');
    }
    return 0;
}

/* DFC_DEBUG: "level[:subsys,subsys...]". */
static int debug_ok(const dfc_env_spec_t *spec, const char *v)
{
    size_t n = strcspn(v, ":");
    char level[24];
    long x;
    if (!n || n >= sizeof level) return 0;
    memcpy(level, v, n);
    level[n] = 0;
    if (!parse_long(level, &x) || x < spec->lo || x > spec->hi) return 0;
    if (!v[n]) return 1;
    for (const char *p = v + n + 1;; p++) { /* each word after ':' and after each ',' */
        size_t len = strcspn(p, ",");
        if (!word_in(p, len, spec->choices)) return 0;
        p += len;
        if (!*p) return 1;
    }
}

static int accepts(const dfc_env_spec_t *spec, const char *v)
{
    long x;
    double d;
    struct in_addr a;
    switch (spec->kind) {
    case DFC_ENV_INT: return parse_long(v, &x) && x >= spec->lo && x <= spec->hi;
    case DFC_ENV_REAL: return parse_double(v, &d) && d >= spec->lo && d <= spec->hi;
    case DFC_ENV_CHOICE: return word_in(v, strlen(v), spec->choices);
    case DFC_ENV_DEBUG: return debug_ok(spec, v);
    case DFC_ENV_IPV4: return inet_pton(AF_INET, v, &a) == 1;
    case DFC_ENV_TEXT: return 1;
    }
    return 0;
}

/* What spec accepts, in words, for error messages. */
static void describe(const dfc_env_spec_t *spec, char *buf, size_t len)
{
    char words[240] = "";
    for (const char *p = spec->choices; p && *p;) { /* "a|b|c" -> "a, b, c" */
        size_t n = strcspn(p, "|"), used = strlen(words);
        snprintf(words + used, sizeof words - used, "%s%.*s", used ? ", " : "", (int)n, p);
        p += n + (p[n] == '|');
    }
    const char *units = spec->hi < 1024
                            ? ""
                            : " (a k, m or g suffix multiplies by 1024, 1024^2 or 1024^3)";
    switch (spec->kind) {
    case DFC_ENV_INT:
        if (spec->lo == 0 && spec->hi == 1) snprintf(buf, len, "0 or 1");
        else snprintf(buf, len, "an integer from %ld to %ld%s", spec->lo, spec->hi, units);
        break;
    case DFC_ENV_REAL: snprintf(buf, len, "a number from %ld to %ld", spec->lo, spec->hi); break;
    case DFC_ENV_CHOICE: snprintf(buf, len, "one of %s", words); break;
    case DFC_ENV_DEBUG:
        snprintf(buf, len,
                 "a level from %ld to %ld, optionally followed by ':' and a "
                 "comma-separated list of %s",
                 spec->lo, spec->hi, words);
        break;
    case DFC_ENV_IPV4: snprintf(buf, len, "an IPv4 address such as 192.168.1.10"); break;
    case DFC_ENV_TEXT: snprintf(buf, len, "any text"); break;
    }
}

const dfc_env_spec_t *dfc_env_spec(const char *name)
{
    int n;
    const dfc_env_spec_t *s = dfc_env_specs(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(s[i].name, name)) return &s[i];
    return NULL;
}

int dfc_env_validate(const dfc_env_spec_t *spec, const char *value, const char *func)
{
    if (!value || !*value || accepts(spec, value)) return DFC_SUCCESS;
    char what[400];
    describe(spec, what, sizeof what);
    return dfc_err(DFC_ERR_ARG, func,
                   "invalid environment parameter %s=%.64s%s: %s accepts %s "
                   "(see dfc_env(7))",
                   spec->name, value, strlen(value) > 64 ? "..." : "", spec->name, what);
}

/* ---- The check at DFC_Init -------------------------------------------------------------- */

/* Edit distance of a and b, capped: enough to suggest the parameter a typo meant. */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int row[64];
    if (la >= 64 || lb >= 64) return 99;
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int is_script_var(const char *name)
{
    int n;
    const char *const *v = dfc_env_script_vars(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i], name)) return 1;
    return 0;
}

static void warn_unknown(FILE *warn, int rank, const char *name)
{
    int n, best = 3;
    const dfc_env_spec_t *s = dfc_env_specs(&n), *near = NULL;
    for (int i = 0; i < n; i++) {
        int d = distance(name, s[i].name);
        if (d < best) best = d, near = &s[i];
    }
    fprintf(warn,
            "[dfc rank %d] warning: %s is set, but DFC has no such parameter%s%s%s "
            "(see dfc_env(7))\n",
            rank, name, near ? "; did you mean " : "", near ? near->name : "", near ? "?" : "");
}

int dfc_env_check(char *const *envp, const char *func, int rank, FILE *warn)
{
    int rc = DFC_SUCCESS;
    for (char *const *e = envp; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        char name[128];
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        if (strncmp(*e, "DFC_", 4) || n >= sizeof name) continue;
        memcpy(name, *e, n);
        name[n] = 0;
        const dfc_env_spec_t *spec = dfc_env_spec(name);
        if (spec) {
            if (!rc) rc = dfc_env_validate(spec, eq ? eq + 1 : "", func);
        } else if (!is_script_var(name) && warn) {
            warn_unknown(warn, rank, name);
        }
    }
    if (warn) fflush(warn);
    return rc;
}

/* ---- The readers ------------------------------------------------------------------------- */

/* The value of name when set, not empty and acceptable to the registry (parameters not in
 * it yet are taken as they are); NULL means the default. */
static const char *value_of(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v) return NULL;
    const dfc_env_spec_t *spec = dfc_env_spec(name);
    return !spec || accepts(spec, v) ? v : NULL;
}

long dfc_env_long(const char *name, long dflt, const char *desc)
{
    char d[32];
    snprintf(d, sizeof d, "%ld", dflt);
    remember(name, d, desc);
    const char *v = value_of(name);
    long x;
    return v && parse_long(v, &x) ? x : dflt;
}

double dfc_env_double(const char *name, double dflt, const char *desc)
{
    char d[32];
    snprintf(d, sizeof d, "%g", dflt);
    remember(name, d, desc);
    const char *v = value_of(name);
    double x;
    return v && parse_double(v, &x) ? x : dflt;
}

const char *dfc_env_str(const char *name, const char *dflt, const char *desc)
{
    remember(name, dflt ? dflt : "", desc);
    const char *v = value_of(name);
    return v ? v : dflt;
}

const dfc_env_param_t *dfc_env_params(int *count)
{
    *count = nparams;
    return params;
}
