/*
 * api_file_err.c - error handlers of files (MPI-4.1 9.3.3, 14.7): DFC_ERRORS_RETURN by
 * default, as MPI says for files. DFC_FILE_NULL's handler (settable too) is the one that
 * File_open and File_delete, the calls without a file, report to.
 */
#include "api/api_file.h"

int dfc_api_file_error(dfc_file_t *f, int code)
{
    if (code == DFC_SUCCESS) return code;
    DFC_Errhandler h = f ? f->errhandler : dfc_io_null_errhandler;
    if (h == DFC_ERRORS_RETURN) return code;
    if (dfc_api_errhandler_is_user(h, 0)) { /* the user's, then the code returns */
        dfc_api_errhandler_invoke(h, f ? f->handle : DFC_FILE_NULL, &code);
        return code;
    }
    char msg[DFC_MAX_ERROR_STRING];
    dfc_err_message(code, msg, sizeof msg);
    dfc_fatal("%s", msg);
}

int DFC_File_create_errhandler(DFC_File_errhandler_function *file_errhandler_fn,
                               DFC_Errhandler *errhandler)
{
    int rc;
    DFC_API_ENTER();
    rc = dfc_api_errhandler_create(DFC_KIND_FILE,
                                   (DFC_Comm_errhandler_function *)file_errhandler_fn, __func__,
                                   "file_errhandler_fn", errhandler);
    if (rc) rc = dfc_api_error(NULL, rc);
    DFC_API_EXIT();
    return rc;
}

/* fh may be DFC_FILE_NULL (its handler is then the one set or got). */
static int lookup(DFC_File fh, const char *func, dfc_file_t **f, DFC_Errhandler **slot)
{
    *f = NULL;
    *slot = &dfc_io_null_errhandler;
    if (fh == DFC_FILE_NULL) return DFC_SUCCESS;
    int rc = dfc_file_check(fh, func, "file", f);
    if (!rc) *slot = &(*f)->errhandler;
    return rc;
}

static int check_errhandler(DFC_Errhandler h, const char *func)
{
    int user = dfc_api_errhandler_is_user(h, 1);
    if (h != DFC_ERRORS_ARE_FATAL && h != DFC_ERRORS_RETURN && h != DFC_ERRORS_ABORT && !user)
        return dfc_err(DFC_ERR_ERRHANDLER, func,
                       "invalid argument errhandler: 0x%x is not an error handler", (unsigned)h);
    if (user && dfc_api_errhandler_kind(h) != DFC_KIND_FILE)
        return dfc_err(DFC_ERR_ERRHANDLER, func,
                       "invalid argument errhandler: 0x%x is not a file error handler "
                       "(DFC_File_create_errhandler)",
                       (unsigned)h);
    return DFC_SUCCESS;
}

int DFC_File_set_errhandler(DFC_File file, DFC_Errhandler errhandler)
{
    int rc;
    dfc_file_t *f = NULL;
    DFC_Errhandler *slot;
    DFC_API_ENTER();
    if ((rc = lookup(file, __func__, &f, &slot)) || (rc = check_errhandler(errhandler, __func__)))
        goto fn_fail;
    *slot = errhandler == DFC_ERRORS_ABORT ? DFC_ERRORS_ARE_FATAL : errhandler;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_file_error(f, rc);
    goto fn_exit;
}

int DFC_File_get_errhandler(DFC_File file, DFC_Errhandler *errhandler)
{
    int rc;
    dfc_file_t *f = NULL;
    DFC_Errhandler *slot;
    DFC_API_ENTER();
    if ((rc = lookup(file, __func__, &f, &slot)) ||
        (rc = dfc_api_check_ptr(__func__, "errhandler", errhandler)))
        goto fn_fail;
    *errhandler = *slot;
    dfc_api_errhandler_retain(*slot); /* the user frees what get returns (9.3.4) */
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_file_error(f, rc);
    goto fn_exit;
}

int DFC_File_call_errhandler(DFC_File fh, int errorcode)
{
    int rc;
    dfc_file_t *f = NULL;
    DFC_Errhandler *slot;
    DFC_API_ENTER();
    if ((rc = lookup(fh, __func__, &f, &slot))) {
        rc = dfc_api_file_error(NULL, rc);
        goto fn_exit;
    }
    /* MPI-4.1 9.3: DFC_SUCCESS once the handler was called and returned. */
    if (*slot != DFC_ERRORS_RETURN) (void)dfc_api_file_error(f, errorcode);
fn_exit:
    DFC_API_EXIT();
    return rc;
}
