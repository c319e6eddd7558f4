/*
 * api_win.c - one-sided communication: argument checks, then one call into the window
 * engine (src/comm/dfc_win.h). Errors go to the window's error handler (DFC_ERRORS_ARE_FATAL
 * until Win_set_errhandler), or to DFC_COMM_WORLD's where there is no window yet.
 */
#include <stdio.h>
#include <string.h>

#include "api/dfc_api.h"
#include "api/api_win.h"

/* Applies the window's error handler (DFC_COMM_WORLD's before a window exists). */
int dfc_api_win_error(dfc_win_t *w, int code)
{
    if (code == DFC_SUCCESS || !w) return dfc_api_error(NULL, code);
    if (w->errhandler == DFC_ERRORS_RETURN) return code;
    if (dfc_api_errhandler_is_user(w->errhandler, 0)) { /* the user's, then the code returns */
        dfc_api_errhandler_invoke(w->errhandler, w->handle, &code);
        return code;
    }
    char msg[DFC_MAX_ERROR_STRING];
    dfc_err_message(code, msg, sizeof msg);
    dfc_fatal("%s", msg);
}

static int check_info(DFC_Info info, const char *func, dfc_info_t **out)
{
    *out = NULL;
    if (info == DFC_INFO_NULL) return DFC_SUCCESS;
    *out = dfc_htable_get(&dfc_info_table, info);
    if (*out) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_INFO, func, "invalid argument info: 0x%x is not a valid info object",
                   (unsigned)info);
}

static int check_size(const char *func, DFC_Aint size, int disp_unit)
{
    if (size < 0)
        return dfc_err(DFC_ERR_SIZE, func, "invalid argument size: %lld is negative",
                       (long long)size);
    if (disp_unit <= 0)
        return dfc_err(DFC_ERR_DISP, func, "invalid argument disp_unit: %d is not positive",
                       disp_unit);
    return DFC_SUCCESS;
}

/* Checks common to the creators, returning the communicator and info. */
static int check_create(const char *func, DFC_Aint size, int disp_unit, DFC_Info info,
                        DFC_Comm comm, const void *out, const char *outname, dfc_comm_t **c,
                        dfc_info_t **inf)
{
    int rc;
    if ((rc = dfc_comm_check(comm, func, "comm", c)) ||
        (rc = dfc_comm_intra_check(*c, func, "comm")) || (rc = check_size(func, size, disp_unit)) ||
        (rc = check_info(info, func, inf)) || (rc = dfc_api_check_ptr(func, outname, out)))
        return rc;
    return DFC_SUCCESS;
}

int DFC_Win_create(void *base, DFC_Aint size, int disp_unit, DFC_Info info, DFC_Comm comm,
                   DFC_Win *win)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_info_t *inf;
    DFC_API_ENTER();
    if ((rc = check_create(__func__, size, disp_unit, info, comm, win, "win", &c, &inf)))
        goto fn_fail;
    if (!base && size > 0) {
        rc = DFC_ERR(DFC_ERR_BASE, "invalid argument base: NULL with size %lld", (long long)size);
        goto fn_fail;
    }
    if ((rc = dfc_win_create(DFC_WIN_FLAVOR_CREATE, base, size, disp_unit, inf, c, NULL, win)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Win_allocate(DFC_Aint size, int disp_unit, DFC_Info info, DFC_Comm comm, void *baseptr,
                     DFC_Win *win)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_info_t *inf;
    DFC_API_ENTER();
    if ((rc = check_create(__func__, size, disp_unit, info, comm, win, "win", &c, &inf)) ||
        (rc = dfc_api_check_ptr(__func__, "baseptr", baseptr)) ||
        (rc = dfc_win_create(DFC_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, inf, c, baseptr, win)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Win_allocate_shared(DFC_Aint size, int disp_unit, DFC_Info info, DFC_Comm comm,
                            void *baseptr, DFC_Win *win)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_info_t *inf;
    DFC_API_ENTER();
    if ((rc = check_create(__func__, size, disp_unit, info, comm, win, "win", &c, &inf)) ||
        (rc = dfc_api_check_ptr(__func__, "baseptr", baseptr)) ||
        (rc = dfc_win_create(DFC_WIN_FLAVOR_SHARED, NULL, size, disp_unit, inf, c, baseptr, win)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Win_create_dynamic(DFC_Info info, DFC_Comm comm, DFC_Win *win)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_info_t *inf;
    DFC_API_ENTER();
    if ((rc = check_create(__func__, 0, 1, info, comm, win, "win", &c, &inf)) ||
        (rc = dfc_win_create(DFC_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, inf, c, NULL, win)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Win_shared_query(DFC_Win win, int rank, DFC_Aint *size, int *disp_unit, void *baseptr)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) ||
        (rc = dfc_api_check_rank(__func__, "rank", w->comm, rank, 0)) ||
        (rc = dfc_api_check_ptr(__func__, "size", size)) ||
        (rc = dfc_api_check_ptr(__func__, "disp_unit", disp_unit)) ||
        (rc = dfc_api_check_ptr(__func__, "baseptr", baseptr)) ||
        (rc = dfc_win_shared_query(w, rank, size, disp_unit, baseptr)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

static int check_dynamic(dfc_win_t *w, const char *func)
{
    if (w->flavor == DFC_WIN_FLAVOR_DYNAMIC) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_RMA_FLAVOR, func,
                   "invalid argument win: not a window of DFC_Win_create_dynamic");
}

int DFC_Win_attach(DFC_Win win, void *base, DFC_Aint size)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) || (rc = check_dynamic(w, __func__)) ||
        (rc = check_size(__func__, size, 1)))
        goto fn_fail;
    if (!base && size > 0) {
        rc = DFC_ERR(DFC_ERR_RMA_ATTACH, "invalid argument base: NULL with size %lld",
                     (long long)size);
        goto fn_fail;
    }
    if ((rc = dfc_win_attach(w, base, size))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

int DFC_Win_detach(DFC_Win win, const void *base)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) || (rc = check_dynamic(w, __func__)) ||
        (rc = dfc_win_detach(w, base)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

int DFC_Win_free(DFC_Win *win)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "win", win)) ||
        (rc = dfc_win_check(*win, __func__, "win", &w)))
        goto fn_fail;
    DFC_Errhandler eh = w->errhandler;
    int kept = 0;
    rc = dfc_win_free(w, &kept);
    if (kept) goto fn_fail; /* a delete callback refused: the window stays */
    *win = DFC_WIN_NULL;
    if (rc && eh != DFC_ERRORS_RETURN) {
        w = NULL; /* freed: the fatal handler applies through DFC_COMM_WORLD's */
        goto fn_fail;
    }
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

int DFC_Win_get_attr(DFC_Win win, int win_keyval, void *attribute_val, int *flag)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) ||
        (rc = dfc_api_check_ptr(__func__, "attribute_val", attribute_val)) ||
        (rc = dfc_api_check_ptr(__func__, "flag", flag)))
        goto fn_fail;
    if ((rc = dfc_win_get_attr(w, win_keyval, attribute_val, flag))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

int DFC_Win_get_group(DFC_Win win, DFC_Group *group)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) ||
        (rc = dfc_api_check_ptr(__func__, "group", group)) || (rc = dfc_win_get_group(w, group)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

int DFC_Win_set_name(DFC_Win win, const char *win_name)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) ||
        (rc = dfc_api_check_ptr(__func__, "win_name", win_name)))
        goto fn_fail;
    /* MPI truncates a name longer than DFC_MAX_OBJECT_NAME - 1. */
    snprintf(w->name, sizeof w->name, "%s", win_name);
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

int DFC_Win_get_name(DFC_Win win, char *win_name, int *resultlen)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) ||
        (rc = dfc_api_check_ptr(__func__, "win_name", win_name)) ||
        (rc = dfc_api_check_ptr(__func__, "resultlen", resultlen)))
        goto fn_fail;
    strcpy(win_name, w->name);
    *resultlen = (int)strlen(w->name);
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

int DFC_Win_set_info(DFC_Win win, DFC_Info info)
{
    int rc;
    dfc_win_t *w = NULL;
    dfc_info_t *inf;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) || (rc = check_info(info, __func__, &inf)) ||
        (rc = dfc_win_set_info(w, inf)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

int DFC_Win_get_info(DFC_Win win, DFC_Info *info_used)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) ||
        (rc = dfc_api_check_ptr(__func__, "info_used", info_used)) ||
        (rc = dfc_win_get_info(w, info_used)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

int DFC_Win_set_errhandler(DFC_Win win, DFC_Errhandler errhandler)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w))) goto fn_fail;
    int user = dfc_api_errhandler_is_user(errhandler, 1);
    if (errhandler != DFC_ERRORS_ARE_FATAL && errhandler != DFC_ERRORS_RETURN &&
        errhandler != DFC_ERRORS_ABORT && !user) {
        rc = DFC_ERR(DFC_ERR_ERRHANDLER,
                     "invalid argument errhandler: 0x%x is not an error handler",
                     (unsigned)errhandler);
        goto fn_fail;
    }
    if (user && dfc_api_errhandler_kind(errhandler) != DFC_KIND_WIN) {
        rc = DFC_ERR(DFC_ERR_ERRHANDLER,
                     "invalid argument errhandler: 0x%x is a communicator error handler "
                     "(DFC_Comm_create_errhandler), not a window one (DFC_Win_create_errhandler)",
                     (unsigned)errhandler);
        goto fn_fail;
    }
    w->errhandler = errhandler == DFC_ERRORS_ABORT ? DFC_ERRORS_ARE_FATAL : errhandler;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

int DFC_Win_get_errhandler(DFC_Win win, DFC_Errhandler *errhandler)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) ||
        (rc = dfc_api_check_ptr(__func__, "errhandler", errhandler)))
        goto fn_fail;
    *errhandler = w->errhandler;
    dfc_api_errhandler_retain(w->errhandler); /* the user frees what get returns (9.3.4) */
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_win_error(w, rc);
    goto fn_exit;
}

int DFC_Win_create_errhandler(DFC_Win_errhandler_function *win_errhandler_fn,
                              DFC_Errhandler *errhandler)
{
    int rc;
    DFC_API_ENTER();
    rc = dfc_api_errhandler_create(DFC_KIND_WIN, (DFC_Comm_errhandler_function *)win_errhandler_fn,
                                   __func__, "win_errhandler_fn", errhandler);
    if (rc) rc = dfc_api_error(NULL, rc);
    DFC_API_EXIT();
    return rc;
}

int DFC_Win_call_errhandler(DFC_Win win, int errorcode)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w))) {
        rc = dfc_api_win_error(NULL, rc);
        goto fn_exit;
    }
    /* MPI-4.1 9.3: DFC_SUCCESS once the handler was called and returned (ERRORS_RETURN
     * included); the fatal handlers end the job with errorcode's message. */
    if (w->errhandler != DFC_ERRORS_RETURN) (void)dfc_api_win_error(w, errorcode);
fn_exit:
    DFC_API_EXIT();
    return rc;
}
