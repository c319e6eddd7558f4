/*
 * api_errext.c - user error classes, codes and strings, and user error handlers
 * (MPI-4.1 9.3 and 9.5).
 *
 * A user handler is an object in a table of kind DFC_KIND_ERRHANDLER after the predefined
 * three. Communicators hold its handle; the user's references are counted, and when they
 * are all freed the handle stops being accepted by DFC_Comm_set_errhandler, but the
 * object (and its slot) stays until DFC_Finalize, so the communicators still using it keep
 * calling it (MPI-4.1 9.3.4) without a count on every communicator.
 */
#include <stdlib.h>
#include <string.h>

#include "api/dfc_api.h"

typedef struct user_errhandler {
    DFC_Comm_errhandler_function *fn; /* a DFC_Win_errhandler_function for windows: both take
                                         (int handle *, int *, ...), handles being ints */
    int user_refs;
    int kind; /* DFC_KIND_COMM or DFC_KIND_WIN: what it may be set on */
} user_errhandler_t;

static dfc_htable_t eh_table;
static int eh_table_ready;

int dfc_api_errhandler_is_user(DFC_Errhandler h, int live_only)
{
    user_errhandler_t *e = eh_table_ready ? dfc_htable_get(&eh_table, h) : NULL;
    return e && (!live_only || e->user_refs > 0);
}

int dfc_api_errhandler_kind(DFC_Errhandler h)
{
    user_errhandler_t *e = eh_table_ready ? dfc_htable_get(&eh_table, h) : NULL;
    return e ? e->kind : 0;
}

void dfc_api_errhandler_retain(DFC_Errhandler h)
{
    user_errhandler_t *e = eh_table_ready ? dfc_htable_get(&eh_table, h) : NULL;
    if (e) e->user_refs++;
}

void dfc_api_errhandler_release(DFC_Errhandler h)
{
    user_errhandler_t *e = eh_table_ready ? dfc_htable_get(&eh_table, h) : NULL;
    if (e && e->user_refs > 0) e->user_refs--;
}

/* Calls the user's function with the lock dropped: it may call DFC (MPI-4.1 9.3). obj: the
 * communicator or window. */
void dfc_api_errhandler_invoke(DFC_Errhandler h, int obj, int *code)
{
    user_errhandler_t *e = dfc_htable_get(&eh_table, h);
    DFC_UNLOCK();
    e->fn(&obj, code);
    DFC_LOCK();
}

void dfc_api_errhandler_finalize(void)
{
    if (!eh_table_ready) return;
    for (uint32_t i = 4; i < eh_table.cap; i++) free(eh_table.slots[i]);
    dfc_htable_destroy(&eh_table);
    eh_table_ready = 0;
}

/* Comm_create_errhandler and Win_create_errhandler: a handler of kind (DFC_KIND_COMM or
 * DFC_KIND_WIN), set only on objects of that kind. */
int dfc_api_errhandler_create(int kind, DFC_Comm_errhandler_function *fn, const char *func,
                              const char *fn_arg, DFC_Errhandler *errhandler)
{
    int rc = DFC_SUCCESS;
    user_errhandler_t *e = NULL;
    if ((rc = dfc_api_check_ptr(func, fn_arg, (void *)fn)) ||
        (rc = dfc_api_check_ptr(func, "errhandler", errhandler)))
        return rc;
    if (!eh_table_ready) {
        dfc_htable_init(&eh_table, DFC_KIND_ERRHANDLER, 4);
        eh_table_ready = 1;
    }
    int h = (e = calloc(1, sizeof *e)) ? dfc_htable_add(&eh_table, e) : 0;
    if (!h) {
        free(e);
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory creating an error handler");
    }
    e->fn = fn;
    e->user_refs = 1;
    e->kind = kind;
    *errhandler = h;
    return DFC_SUCCESS;
}

int DFC_Comm_create_errhandler(DFC_Comm_errhandler_function *comm_errhandler_fn,
                               DFC_Errhandler *errhandler)
{
    int rc;
    DFC_API_ENTER();
    rc = dfc_api_errhandler_create(DFC_KIND_COMM, comm_errhandler_fn, __func__,
                                   "comm_errhandler_fn", errhandler);
    if (rc) rc = dfc_api_error(NULL, rc);
    DFC_API_EXIT();
    return rc;
}

int DFC_Comm_call_errhandler(DFC_Comm comm, int errorcode)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c))) goto fn_fail;
    /* MPI-4.1 9.3: DFC_SUCCESS once the handler was called and returned (ERRORS_RETURN
     * included); the fatal handlers end the job with errorcode's message. */
    if (c->errhandler != DFC_ERRORS_RETURN) {
        (void)dfc_api_error(c, errorcode);
    }
    API_FAIL_EXIT(c)
}

int DFC_Add_error_class(int *errorclass)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "errorclass", errorclass)) ||
        (rc = dfc_err_add_class(errorclass)))
        goto fn_fail;
    API_FAIL_EXIT(NULL)
}

int DFC_Add_error_code(int errorclass, int *errorcode)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "errorcode", errorcode))) goto fn_fail;
    if (errorclass < 0 || errorclass > 255 || !dfc_err_class_string(errorclass)) {
        rc = DFC_ERR(DFC_ERR_ARG, "invalid argument errorclass: %d is not an error class",
                     errorclass);
        goto fn_fail;
    }
    if ((rc = dfc_err_add_code(errorclass, errorcode))) goto fn_fail;
    API_FAIL_EXIT(NULL)
}

int DFC_Add_error_string(int errorcode, const char *string)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "string", string))) goto fn_fail;
    if (!dfc_err_valid(errorcode) || dfc_err_is_predefined(errorcode) ||
        (errorcode > 255 && errorcode < (DFC_ERR_USER_SLOT << 8))) {
        rc = DFC_ERR(DFC_ERR_ARG,
                     "invalid argument errorcode: %d is not a class or code added by "
                     "DFC_Add_error_class or DFC_Add_error_code",
                     errorcode);
        goto fn_fail;
    }
    if (strlen(string) >= DFC_MAX_ERROR_STRING) {
        rc = DFC_ERR(DFC_ERR_ARG,
                     "invalid argument string: %zu characters, more than DFC_MAX_ERROR_STRING - 1 "
                     "(%d)",
                     strlen(string), DFC_MAX_ERROR_STRING - 1);
        goto fn_fail;
    }
    if ((rc = dfc_err_add_string(errorcode, string))) goto fn_fail;
    API_FAIL_EXIT(NULL)
}

/* MPI-4.1 9.5: the three removals share their checks (dfc_err_remove). */
static int remove_common(int code, int what, const char *func)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = dfc_err_remove(code, what, func))) rc = dfc_api_error(NULL, rc);
    DFC_API_EXIT();
    return rc;
}

int DFC_Remove_error_class(int errorclass)
{
    return remove_common(errorclass, DFC_ERR_REMOVE_CLASS, __func__);
}

int DFC_Remove_error_code(int errorcode)
{
    return remove_common(errorcode, DFC_ERR_REMOVE_CODE, __func__);
}

int DFC_Remove_error_string(int errorcode)
{
    return remove_common(errorcode, DFC_ERR_REMOVE_STRING, __func__);
}
