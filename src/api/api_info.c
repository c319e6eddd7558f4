/*
 * api_info.c - DFC_Info_*: argument checks, then one call into comm/info.c.
 *
 * Info objects belong to no communicator, so errors go to DFC_COMM_WORLD's error handler.
 * Error classes follow MPICH: a bad handle is DFC_ERR_INFO, a missing, empty or too long key
 * DFC_ERR_INFO_KEY, a missing or too long value DFC_ERR_INFO_VALUE, deleting an absent key
 * DFC_ERR_INFO_NOKEY, other bad arguments DFC_ERR_ARG.
 */
#include <string.h>

#include "api/dfc_api.h"


static int check_info(DFC_Info h, const char *func, const char *argname, dfc_info_t **out)
{
    if (h == DFC_INFO_NULL)
        return dfc_err(DFC_ERR_INFO, func, "invalid argument %s: is DFC_INFO_NULL", argname);
    dfc_info_t *info = dfc_htable_get(&dfc_info_table, h);
    if (!info)
        return dfc_err(DFC_ERR_INFO, func, "invalid argument %s: 0x%x is not a valid info handle",
                       argname, (unsigned)h);
    *out = info;
    return DFC_SUCCESS;
}

static int check_key(const char *func, const char *key)
{
    if (!key) return dfc_err(DFC_ERR_INFO_KEY, func, "invalid argument key: is NULL");
    /* strnlen: a key without a terminator must not send us reading far past the limit. */
    size_t len = strnlen(key, DFC_MAX_INFO_KEY + 1);
    if (len == 0) return dfc_err(DFC_ERR_INFO_KEY, func, "invalid argument key: is empty");
    if (len > DFC_MAX_INFO_KEY)
        return dfc_err(DFC_ERR_INFO_KEY, func,
                       "invalid argument key: longer than DFC_MAX_INFO_KEY (%d) characters",
                       DFC_MAX_INFO_KEY);
    return DFC_SUCCESS;
}

/* Gives a new info object a user handle; destroys it when no handle can be had. */
static int publish(dfc_info_t *info, DFC_Info *out)
{
    int h = dfc_htable_add(&dfc_info_table, info);
    if (!h) {
        dfc_info_destroy(info);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for an info handle");
    }
    info->handle = h;
    *out = h;
    return DFC_SUCCESS;
}

int DFC_Info_create(DFC_Info *info)
{
    int rc = DFC_SUCCESS;
    dfc_info_t *obj = NULL;
    DFC_API_ENTER();
    rc = dfc_api_check_ptr(__func__, "info", info);
    if (rc) goto fn_fail;
    obj = dfc_info_new();
    if (!obj) {
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory for an info object");
        goto fn_fail;
    }
    rc = publish(obj, info);
    if (rc) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Info_set(DFC_Info info, const char *key, const char *value)
{
    int rc = DFC_SUCCESS;
    dfc_info_t *obj = NULL;
    DFC_API_ENTER();
    rc = check_info(info, __func__, "info", &obj);
    if (rc) goto fn_fail;
    rc = check_key(__func__, key);
    if (rc) goto fn_fail;
    if (!value) {
        rc = DFC_ERR(DFC_ERR_INFO_VALUE, "invalid argument value: is NULL");
        goto fn_fail;
    }
    if (strnlen(value, DFC_MAX_INFO_VAL + 1) > DFC_MAX_INFO_VAL) {
        rc = DFC_ERR(DFC_ERR_INFO_VALUE,
                     "invalid argument value: longer than DFC_MAX_INFO_VAL (%d) characters",
                     DFC_MAX_INFO_VAL);
        goto fn_fail;
    }
    rc = dfc_info_put(obj, key, value);
    if (rc) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Info_get(DFC_Info info, const char *key, int valuelen, char *value, int *flag)
{
    int rc = DFC_SUCCESS;
    dfc_info_t *obj = NULL;
    DFC_API_ENTER();
    rc = check_info(info, __func__, "info", &obj);
    if (rc) goto fn_fail;
    rc = check_key(__func__, key);
    if (rc) goto fn_fail;
    if (valuelen < 0) {
        rc = DFC_ERR(DFC_ERR_ARG, "invalid argument valuelen: %d is negative", valuelen);
        goto fn_fail;
    }
    rc = dfc_api_check_ptr(__func__, "value", value);
    if (rc) goto fn_fail;
    rc = dfc_api_check_ptr(__func__, "flag", flag);
    if (rc) goto fn_fail;

    const char *found = dfc_info_lookup(obj, key);
    *flag = found != NULL;
    if (found) {
        /* valuelen excludes the terminator (value has valuelen + 1 bytes); a longer value
         * is truncated silently, as MPI specifies. */
        size_t n = strlen(found);
        if (n > (size_t)valuelen) n = (size_t)valuelen;
        memcpy(value, found, n);
        value[n] = '\0';
    }
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Info_get_string(DFC_Info info, const char *key, int *buflen, char *value, int *flag)
{
    int rc = DFC_SUCCESS;
    dfc_info_t *obj = NULL;
    DFC_API_ENTER();
    rc = check_info(info, __func__, "info", &obj);
    if (rc) goto fn_fail;
    rc = check_key(__func__, key);
    if (rc) goto fn_fail;
    rc = dfc_api_check_ptr(__func__, "buflen", buflen);
    if (rc) goto fn_fail;
    if (*buflen < 0) {
        rc = DFC_ERR(DFC_ERR_ARG, "invalid argument buflen: *buflen = %d is negative", *buflen);
        goto fn_fail;
    }
    if (*buflen > 0) {
        rc = dfc_api_check_ptr(__func__, "value", value);
        if (rc) goto fn_fail;
    }
    rc = dfc_api_check_ptr(__func__, "flag", flag);
    if (rc) goto fn_fail;

    const char *found = dfc_info_lookup(obj, key);
    *flag = found != NULL;
    if (found) {
        /* MPI-4.1 10.2: buflen counts the terminator; *buflen 0 asks only for the length
         * and leaves value alone; on return *buflen is the full length + 1. */
        size_t len = strlen(found);
        if (*buflen > 0) {
            size_t n = len < (size_t)*buflen ? len : (size_t)*buflen - 1;
            memcpy(value, found, n);
            value[n] = '\0';
        }
        *buflen = (int)len + 1;
    }
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Info_get_valuelen(DFC_Info info, const char *key, int *valuelen, int *flag)
{
    int rc = DFC_SUCCESS;
    dfc_info_t *obj = NULL;
    DFC_API_ENTER();
    rc = check_info(info, __func__, "info", &obj);
    if (rc) goto fn_fail;
    rc = check_key(__func__, key);
    if (rc) goto fn_fail;
    rc = dfc_api_check_ptr(__func__, "valuelen", valuelen);
    if (rc) goto fn_fail;
    rc = dfc_api_check_ptr(__func__, "flag", flag);
    if (rc) goto fn_fail;

    const char *found = dfc_info_lookup(obj, key);
    *flag = found != NULL;
    if (found) *valuelen = (int)strlen(found); /* without the terminator */
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Info_delete(DFC_Info info, const char *key)
{
    int rc = DFC_SUCCESS;
    dfc_info_t *obj = NULL;
    DFC_API_ENTER();
    rc = check_info(info, __func__, "info", &obj);
    if (rc) goto fn_fail;
    rc = check_key(__func__, key);
    if (rc) goto fn_fail;
    rc = dfc_info_remove(obj, key, __func__);
    if (rc) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Info_dup(DFC_Info info, DFC_Info *newinfo)
{
    int rc = DFC_SUCCESS;
    dfc_info_t *obj = NULL, *copy = NULL;
    DFC_API_ENTER();
    rc = check_info(info, __func__, "info", &obj);
    if (rc) goto fn_fail;
    rc = dfc_api_check_ptr(__func__, "newinfo", newinfo);
    if (rc) goto fn_fail;
    copy = dfc_info_copy(obj);
    if (!copy) {
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory for an info object");
        goto fn_fail;
    }
    rc = publish(copy, newinfo);
    if (rc) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Info_free(DFC_Info *info)
{
    int rc = DFC_SUCCESS;
    dfc_info_t *obj = NULL;
    DFC_API_ENTER();
    rc = dfc_api_check_ptr(__func__, "info", info);
    if (rc) goto fn_fail;
    rc = check_info(*info, __func__, "info", &obj);
    if (rc) goto fn_fail;
    if (*info == DFC_INFO_ENV) {
        rc = DFC_ERR(DFC_ERR_INFO, "invalid argument info: DFC_INFO_ENV cannot be freed");
        goto fn_fail;
    }
    dfc_info_destroy(obj);
    *info = DFC_INFO_NULL;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Info_get_nkeys(DFC_Info info, int *nkeys)
{
    int rc = DFC_SUCCESS;
    dfc_info_t *obj = NULL;
    DFC_API_ENTER();
    rc = check_info(info, __func__, "info", &obj);
    if (rc) goto fn_fail;
    rc = dfc_api_check_ptr(__func__, "nkeys", nkeys);
    if (rc) goto fn_fail;
    *nkeys = obj->nkeys;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Info_get_nthkey(DFC_Info info, int n, char *key)
{
    int rc = DFC_SUCCESS;
    dfc_info_t *obj = NULL;
    DFC_API_ENTER();
    rc = check_info(info, __func__, "info", &obj);
    if (rc) goto fn_fail;
    if (n < 0 || n >= obj->nkeys) {
        rc = DFC_ERR(DFC_ERR_ARG, "invalid argument n: %d is not in [0, %d), the number of keys", n,
                     obj->nkeys);
        goto fn_fail;
    }
    rc = dfc_api_check_ptr(__func__, "key", key);
    if (rc) goto fn_fail;
    /* key has room for DFC_MAX_INFO_KEY + 1 bytes; longer keys are internal only. */
    size_t len = strlen(obj->keys[n]);
    if (len > DFC_MAX_INFO_KEY) len = DFC_MAX_INFO_KEY;
    memcpy(key, obj->keys[n], len);
    key[len] = '\0';
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}
