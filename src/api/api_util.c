/* api_util.c - argument checks and error-handler dispatch shared by the entry points. */
#include <stdio.h>

#include "api/dfc_api.h"

void dfc_api_not_initialized(const char *func)
{
    dfc_fatal("%s: called %s DFC_Init", func,
              dfc_proc.finalized ? "after DFC_Finalize, outside" : "before");
}

int dfc_api_error(dfc_comm_t *c, int code)
{
    if (code == DFC_SUCCESS) return code;
    DFC_Errhandler eh = c ? c->errhandler : DFC_ERRORS_ARE_FATAL;
    if (!c) {
        dfc_comm_t *w = dfc_comm_get(DFC_COMM_WORLD);
        if (w) eh = w->errhandler;
    }
    if (eh == DFC_ERRORS_RETURN) return code;
    if (dfc_api_errhandler_is_user(eh, 0)) { /* the user's function, then the code returns */
        dfc_api_errhandler_invoke(eh, c ? c->handle : DFC_COMM_WORLD, &code);
        return code;
    }
    char msg[DFC_MAX_ERROR_STRING];
    dfc_err_message(code, msg, sizeof msg);
    dfc_fatal("%s", msg);
}

int dfc_api_check_count(const char *func, const char *argname, int count)
{
    if (count >= 0) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_COUNT, func, "invalid argument %s: %d is negative", argname, count);
}

int dfc_api_check_buf(const char *func, const char *argname, const void *buf, int count)
{
    if (buf || count == 0) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_BUFFER, func, "invalid argument %s: NULL with count %d", argname, count);
}

int dfc_api_bottom_ok(const dfc_dtype_t *d) { return d->size == 0 || d->true_lb != 0; }

int dfc_api_check_userbuf(const char *func, const char *argname, const void *buf, int count,
                          const dfc_dtype_t *d)
{
    if (buf || count == 0 || dfc_api_bottom_ok(d)) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_BUFFER, func,
                   "invalid argument %s: NULL with count %d of a datatype whose data starts at "
                   "its origin (DFC_BOTTOM needs a type of absolute addresses)",
                   argname, count);
}

int dfc_api_check_tag(const char *func, const char *argname, int tag, int allow_any)
{
    if ((tag >= 0 && tag <= DFC_TAG_UB_VALUE) || (allow_any && tag == DFC_ANY_TAG))
        return DFC_SUCCESS;
    return dfc_err(DFC_ERR_TAG, func, "invalid argument %s: %d is not a valid tag (0..%d%s)",
                   argname, tag, DFC_TAG_UB_VALUE, allow_any ? " or DFC_ANY_TAG" : "");
}

int dfc_api_check_rank(const char *func, const char *argname, const dfc_comm_t *c, int rank,
                       int allow_any)
{
    int n = dfc_comm_npeers(c); /* an intercommunicator's ranks name its remote group */
    if ((rank >= 0 && rank < n) || rank == DFC_PROC_NULL || (allow_any && rank == DFC_ANY_SOURCE))
        return DFC_SUCCESS;
    return dfc_err(DFC_ERR_RANK, func,
                   "invalid argument %s: rank %d is out of range for a communicator of size %d%s",
                   argname, rank, n,
                   c->remote ? " (the remote group of an intercommunicator)" : "");
}

int dfc_api_check_ptr(const char *func, const char *argname, const void *p)
{
    if (p) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", argname);
}
