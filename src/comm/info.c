/*
 * info.c - info objects: ordered (key, value) string pairs (MPI-4.1 section 10).
 *
 * Keys stay in insertion order because DFC_Info_get_nthkey numbers them that way (setting an
 * existing key keeps its place, as in MPICH). Info objects hold a handful of hints, so lookups
 * scan linearly. Length limits (DFC_MAX_INFO_KEY/VAL) are the api layer's to check: internal
 * callers may store what they like.
 *
 * DFC_INFO_ENV (index 1) is built by dfc_info_init from the process state, so init must
 * call it after dfc_proc.hostname and dfc_proc.thread_level are known.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"


dfc_htable_t dfc_info_table;

static char *copy_string(const char *s)
{
    size_t len = strlen(s) + 1;
    char *c = dfc_malloc(len);
    if (c) memcpy(c, s, len);
    return c;
}

static int find_key(const dfc_info_t *info, const char *key)
{
    for (int i = 0; i < info->nkeys; i++)
        if (!strcmp(info->keys[i], key)) return i;
    return -1;
}

dfc_info_t *dfc_info_new(void) { return dfc_calloc(1, sizeof(dfc_info_t)); }

void dfc_info_destroy(dfc_info_t *info)
{
    if (!info) return;
    if (info->handle) dfc_htable_remove(&dfc_info_table, info->handle);
    for (int i = 0; i < info->nkeys; i++) {
        dfc_free(info->keys[i]);
        dfc_free(info->vals[i]);
    }
    dfc_free(info->keys);
    dfc_free(info->vals);
    dfc_free(info);
}

dfc_info_t *dfc_info_copy(const dfc_info_t *src)
{
    dfc_info_t *info = dfc_info_new();
    if (!info) return NULL;
    for (int i = 0; src && i < src->nkeys; i++) {
        if (dfc_info_put(info, src->keys[i], src->vals[i]) != DFC_SUCCESS) {
            dfc_info_destroy(info);
            return NULL;
        }
    }
    return info;
}

const char *dfc_info_lookup(const dfc_info_t *info, const char *key)
{
    if (!info) return NULL;
    int i = find_key(info, key);
    return i < 0 ? NULL : info->vals[i];
}

int dfc_info_put(dfc_info_t *info, const char *key, const char *value)
{
    char *v = copy_string(value);
    if (!v) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for an info value");

    int i = find_key(info, key);
    if (i >= 0) {
        dfc_free(info->vals[i]);
        info->vals[i] = v;
        return DFC_SUCCESS;
    }
    if (info->nkeys == info->cap) {
        int cap = info->cap ? 2 * info->cap : 8;
        char **keys = dfc_realloc(info->keys, (size_t)cap * sizeof *keys);
        if (!keys) goto fail_no_mem;
        info->keys = keys;
        char **vals = dfc_realloc(info->vals, (size_t)cap * sizeof *vals);
        if (!vals) goto fail_no_mem;
        info->vals = vals;
        info->cap = cap;
    }
    char *k = copy_string(key);
    if (!k) goto fail_no_mem;
    info->keys[info->nkeys] = k;
    info->vals[info->nkeys] = v;
    info->nkeys++;
    return DFC_SUCCESS;

fail_no_mem:
    dfc_free(v);
    return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for an info key");
}

int dfc_info_remove(dfc_info_t *info, const char *key, const char *func)
{
    int i = find_key(info, key);
    if (i < 0)
        return dfc_err(DFC_ERR_INFO_NOKEY, func, "invalid argument key: \"%s\" is not set", key);
    dfc_free(info->keys[i]);
    dfc_free(info->vals[i]);
    /* Shift down rather than swap with the last: nthkey order must stay insertion order. */
    memmove(info->keys + i, info->keys + i + 1, (size_t)(info->nkeys - i - 1) * sizeof(char *));
    memmove(info->vals + i, info->vals + i + 1, (size_t)(info->nkeys - i - 1) * sizeof(char *));
    info->nkeys--;
    return DFC_SUCCESS;
}

static const char *thread_level_name(int level)
{
    switch (level) {
    case DFC_THREAD_FUNNELED: return "DFC_THREAD_FUNNELED";
    case DFC_THREAD_SERIALIZED: return "DFC_THREAD_SERIALIZED";
    case DFC_THREAD_MULTIPLE: return "DFC_THREAD_MULTIPLE";
    default: return "DFC_THREAD_SINGLE";
    }
}

int dfc_info_init(void)
{
    dfc_htable_init(&dfc_info_table, DFC_KIND_INFO, 2);

    /* MPI-4.1 10.4.4 reserved keys of MPI_INFO_ENV that DFC can answer. "command" stays
     * empty until init learns argv[0] (it may dfc_info_put it later). */
    dfc_info_t *env = dfc_info_new();
    if (!env) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for DFC_INFO_ENV");
    int rc = dfc_info_put(env, "command", "");
    if (!rc) rc = dfc_info_put(env, "host", dfc_proc.hostname);
    if (!rc) rc = dfc_info_put(env, "thread_level", thread_level_name(dfc_proc.thread_level));
    if (rc) {
        dfc_info_destroy(env);
        return rc;
    }
    env->handle = DFC_INFO_ENV;
    dfc_htable_set(&dfc_info_table, DFC_HANDLE_INDEX(DFC_INFO_ENV), env);
    if (!dfc_htable_get(&dfc_info_table, DFC_INFO_ENV)) {
        env->handle = 0;
        dfc_info_destroy(env);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for the info table");
    }
    return DFC_SUCCESS;
}

/* Only DFC_INFO_ENV, which the library made, is freed here. Info objects the user never
 * freed stay allocated: whoever else may point at one (a communicator's hints) is not known
 * here, and a leak at exit is harmless where a use after free is not. */
void dfc_info_finalize(void)
{
    dfc_info_t *env = dfc_htable_get(&dfc_info_table, DFC_INFO_ENV);
    if (env) dfc_info_destroy(env);
    dfc_htable_destroy(&dfc_info_table);
}

int dfc_info_dup_handle(const dfc_info_t *src, const char *func, DFC_Info *out)
{
    dfc_info_t *copy = src ? dfc_info_copy(src) : dfc_info_new();
    int h = copy ? dfc_htable_add(&dfc_info_table, copy) : 0;
    if (!h) {
        if (copy) dfc_info_destroy(copy);
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
    }
    copy->handle = h;
    *out = h;
    return DFC_SUCCESS;
}

int dfc_info_create_env(int argc, char *argv[], const char *func, DFC_Info *out)
{
    int rc = dfc_info_dup_handle(dfc_htable_get(&dfc_info_table, DFC_INFO_ENV), func, out);
    if (rc || argc <= 0 || !argv[0]) return rc;
    dfc_info_t *inf = dfc_htable_get(&dfc_info_table, *out);
    size_t len = 1;
    for (int i = 1; i < argc && argv[i]; i++) len += strlen(argv[i]) + 1;
    char *args = calloc(1, len);
    if (!args) rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
    for (int i = 1; !rc && i < argc && argv[i]; i++) {
        if (i > 1) strcat(args, " ");
        strcat(args, argv[i]);
    }
    if (!rc) rc = dfc_info_put(inf, "command", argv[0]);
    if (!rc && argc > 1 && args[0]) rc = dfc_info_put(inf, "argv", args);
    free(args);
    if (rc) { /* no half-made object for the user */
        dfc_info_destroy(inf);
        *out = DFC_INFO_NULL;
    }
    return rc;
}
