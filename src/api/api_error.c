/* api_error.c - error classes, strings and error handlers. */
#include <stdio.h>
#include <string.h>

#include "api/dfc_api.h"

int DFC_Error_class(int errorcode, int *errorclass)
{
    if (!errorclass) return DFC_ERR(DFC_ERR_ARG, "invalid argument errorclass: NULL pointer");
    if (!dfc_err_valid(errorcode))
        return DFC_ERR(DFC_ERR_ARG, "invalid argument errorcode: %d is not an error code",
                       errorcode);
    *errorclass = DFC_ERR_CLASS(errorcode);
    return DFC_SUCCESS;
}

int DFC_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen) return DFC_ERR(DFC_ERR_ARG, "invalid argument: NULL pointer");
    if (!dfc_err_valid(errorcode)) {
        *resultlen = snprintf(string, DFC_MAX_ERROR_STRING, "unknown error code %d", errorcode);
        return DFC_ERR(DFC_ERR_ARG, "invalid argument errorcode: %d is not an error code",
                       errorcode);
    }
    dfc_err_message(errorcode, string, DFC_MAX_ERROR_STRING);
    *resultlen = (int)strlen(string);
    return DFC_SUCCESS;
}

static int predefined_errhandler(DFC_Errhandler e)
{
    return e == DFC_ERRORS_ARE_FATAL || e == DFC_ERRORS_RETURN || e == DFC_ERRORS_ABORT;
}

static int valid_errhandler(DFC_Errhandler e)
{
    return predefined_errhandler(e) || dfc_api_errhandler_is_user(e, 1);
}

int DFC_Comm_set_errhandler(DFC_Comm comm, DFC_Errhandler errhandler)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c))) goto fn_fail;
    if (!valid_errhandler(errhandler)) {
        rc = DFC_ERR(DFC_ERR_ERRHANDLER,
                     "invalid argument errhandler: 0x%x is not an error handler",
                     (unsigned)errhandler);
        goto fn_fail;
    }
    if (dfc_api_errhandler_kind(errhandler) == DFC_KIND_WIN) {
        rc = DFC_ERR(DFC_ERR_ERRHANDLER,
                     "invalid argument errhandler: 0x%x is a window error handler "
                     "(DFC_Win_create_errhandler), not a communicator one",
                     (unsigned)errhandler);
        goto fn_fail;
    }
    /* Kept as given, so that get_errhandler returns it (ERRORS_ABORT used to come back as
     * ERRORS_ARE_FATAL); dfc_api_error treats both as fatal. */
    c->errhandler = errhandler;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Comm_get_errhandler(DFC_Comm comm, DFC_Errhandler *errhandler)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "errhandler", errhandler)))
        goto fn_fail;
    *errhandler = c->errhandler;
    dfc_api_errhandler_retain(c->errhandler); /* the user frees what get returns (9.3.4) */
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(c, rc);
    goto fn_exit;
}

int DFC_Errhandler_free(DFC_Errhandler *errhandler)
{
    int rc = DFC_SUCCESS;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "errhandler", errhandler))) goto fn_fail;
    if (!valid_errhandler(*errhandler)) {
        rc = DFC_ERR(DFC_ERR_ERRHANDLER,
                     "invalid argument errhandler: 0x%x is not an error handler",
                     (unsigned)*errhandler);
        goto fn_fail;
    }
    /* Handlers stay valid for the communicators using them (MPI-4.1 9.3.4): a user one
     * only loses the user's reference (api_errext.c). */
    if (!predefined_errhandler(*errhandler)) dfc_api_errhandler_release(*errhandler);
    *errhandler = DFC_ERRHANDLER_NULL;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}
