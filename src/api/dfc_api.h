/*
 * dfc_api.h - helpers shared by the public entry points (the files of src/api).
 *
 * Every public function has the same shape:
 *
 *     int DFC_Foo(..., DFC_Comm comm, ...)
 *     {
 *         int rc = DFC_SUCCESS;
 *         dfc_comm_t *c = NULL;
 *         DFC_API_ENTER();
 *         rc = dfc_comm_check(comm, __func__, "comm", &c);      // argument checks first
 *         if (rc) goto fn_fail;
 *         if (count < 0) { rc = DFC_ERR(DFC_ERR_COUNT, "invalid argument count: %d is negative", count); goto fn_fail; }
 *         rc = dfc_something(c, ...);                          // then one call inward
 *         if (rc) goto fn_fail;
 *     fn_exit:
 *         DFC_API_EXIT();
 *         return rc;
 *     fn_fail:
 *         rc = dfc_api_error(c, rc);                           // applies the errhandler
 *         goto fn_exit;
 *     }
 *
 * Messages read "<function>: invalid argument <name>: <reason>" for argument errors, so the
 * user sees the function, the argument and the reason.
 */
#ifndef DFC_API_H
#define DFC_API_H

#include "comm/dfc_comm.h"
#include "util/dfc_util.h"

/* Takes the library lock (when threads are enabled) and checks that DFC is initialized;
 * a call before DFC_Init or after DFC_Finalize is reported as fatal. */
#define DFC_API_ENTER()                                                \
    do {                                                               \
        if (DFC_UNLIKELY(!dfc_proc.initialized || dfc_proc.finalized)) \
            dfc_api_not_initialized(__func__);                         \
        DFC_LOCK();                                                    \
    } while (0)
#define DFC_API_EXIT() DFC_UNLOCK()

void dfc_api_not_initialized(const char *func) __attribute__((noreturn));

/* The two labels that end every entry point of the shape above, for an entry point whose
 * errors go to the handler of `cobj` (a dfc_comm_t *, NULL for DFC_COMM_WORLD's). */
#define API_FAIL_EXIT(cobj)         \
    fn_exit:                        \
    DFC_API_EXIT();                 \
    return rc;                      \
    fn_fail:                        \
    rc = dfc_api_error((cobj), rc); \
    goto fn_exit;

/* A whole entry point of one statement list that sets rc, whose errors go to
 * DFC_COMM_WORLD's handler (the datatype functions: no communicator to name). */
#define API_BODY(stmts)                   \
    int rc = DFC_SUCCESS;                 \
    DFC_API_ENTER();                      \
    stmts;                                \
    DFC_API_EXIT();                       \
    if (rc) rc = dfc_api_error(NULL, rc); \
    return rc

/* Applies the error handler of `c` (of DFC_COMM_WORLD when c is NULL) to `code`: under
 * DFC_ERRORS_ARE_FATAL prints the message and aborts the job; under DFC_ERRORS_RETURN
 * returns code. */
int dfc_api_error(dfc_comm_t *c, int code);

/* Common checks; each records its own message and returns an error code or DFC_SUCCESS. */
int dfc_api_check_count(const char *func, const char *argname, int count);
int dfc_api_check_buf(const char *func, const char *argname, const void *buf, int count);
/* MPI's rule for a NULL buffer (DFC_BOTTOM), as MPICH applies it: legal when nothing is moved
 * (count 0, a type of no bytes) or when the type's data does not start at its origin
 * (true_lb != 0: built on absolute addresses, as from DFC_Get_address). With a predefined
 * type, or a derived one whose data starts at 0, it would address memory at 0. */
int dfc_api_bottom_ok(const dfc_dtype_t *d);
int dfc_api_check_userbuf(const char *func, const char *argname, const void *buf, int count,
                          const dfc_dtype_t *d);
int dfc_api_check_tag(const char *func, const char *argname, int tag, int allow_any);
/* rank must be in [0, size) or PROC_NULL (or ANY_SOURCE when allow_any). */
int dfc_api_check_rank(const char *func, const char *argname, const dfc_comm_t *c, int rank,
                       int allow_any);
int dfc_api_check_ptr(const char *func, const char *argname, const void *p);
/* *comm (checked, non-NULL) names a communicator the program may release: not
 * DFC_COMM_WORLD or DFC_COMM_SELF. *out is set once *comm names one (for the error handler);
 * `what` completes "cannot be ..." in the message. (api_comm.c) */
int dfc_api_comm_releasable(const char *func, const DFC_Comm *comm, const char *what,
                            dfc_comm_t **out);

/* Attributes (api_attr.c). Copies comm's attributes to a duplicate (undone on failure);
 * the datatype hooks of DFC_Type_dup and DFC_Type_free (the engine keeps no attributes);
 * DFC_Finalize's deletion of DFC_COMM_SELF's and DFC_COMM_WORLD's attributes. */
/* DFC_Comm_dup's work (api_comm.c): the copy and its attributes, a handle in *newcomm. */
int dfc_api_comm_dup(dfc_comm_t *c, const dfc_info_t *inf, const char *func, DFC_Comm *newcomm);
/* Hands a new communicator to the user (DFC_COMM_NULL for NULL); releases it on failure. */
int dfc_api_comm_give_handle(dfc_comm_t *nc, DFC_Comm *newcomm);
int dfc_api_comm_attr_copy(dfc_comm_t *old, dfc_comm_t *nc, const char *func);
/* (dup frees newtype when a copy callback fails) */
int dfc_api_type_attr_dup(DFC_Datatype oldtype, DFC_Datatype newtype, const char *func);
int dfc_api_type_attr_free(DFC_Datatype datatype);
void dfc_api_type_attr_finalize(void);
int dfc_api_attr_finalize(void);
/* User error handlers (api_errext.c): 1 if h is a live user handler; its call; finalize. */
int dfc_api_errhandler_is_user(DFC_Errhandler h, int live_only);
void dfc_api_errhandler_invoke(DFC_Errhandler h, int obj, int *code);
int dfc_api_errhandler_kind(DFC_Errhandler h); /* DFC_KIND_COMM/_WIN; 0: not a user one */
int dfc_api_errhandler_create(int kind, DFC_Comm_errhandler_function *fn, const char *func,
                              const char *fn_arg, DFC_Errhandler *errhandler);
void dfc_api_errhandler_retain(DFC_Errhandler h); /* a new user reference */
void dfc_api_errhandler_release(DFC_Errhandler h);
void dfc_api_errhandler_finalize(void);

#endif /* DFC_API_H */
