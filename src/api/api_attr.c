/*
 * api_attr.c - attribute caching on communicators, datatypes and windows (MPI-4.1 7.7).
 *
 * Communicators carry their attribute list (dfc_comm_t.attrs). Datatypes keep theirs here,
 * in a list keyed by handle, apart from the datatype engine: DFC_Type_dup and DFC_Type_free
 * call dfc_api_type_attr_dup/_free, and nothing else of datatypes is touched. Windows carry
 * theirs (dfc_win_t.attrs), deleted by DFC_Win_free; DFC_Win_get_attr is in api_win.c,
 * beside the predefined window attributes.
 * The predefined attribute keys (DFC_TAG_UB ...) are answered on every communicator (by
 * comm/attr.c), as MPICH does, and cannot be set, deleted or freed.
 */
#include <stdlib.h>

#include "api/api_win.h"
#include "api/dfc_api.h"

/* What every kind's create_keyval and free_keyval do (communicators, datatypes, windows: the
 * callbacks of each have dfc_attr_copy_fn_t's and dfc_attr_delete_fn_t's shape, handles being
 * ints); the entry points keep DFC_API_ENTER, whose message names them. */
static int create_keyval(int kind, dfc_attr_copy_fn_t *copy, dfc_attr_delete_fn_t *del, void *extra,
                         const char *func, const char *argname, int *keyval)
{
    int rc = dfc_api_check_ptr(func, argname, keyval);
    return rc ? rc : dfc_keyval_create(kind, copy, del, extra, func, keyval);
}

static int free_keyval(int *keyval, int kind, const char *func)
{
    dfc_keyval_t *kv;
    int rc;
    if ((rc = dfc_api_check_ptr(func, "keyval", keyval)) ||
        (rc = dfc_keyval_check(*keyval, kind, func, "keyval", &kv)))
        return rc;
    dfc_keyval_free(kv);
    *keyval = DFC_KEYVAL_INVALID;
    return DFC_SUCCESS;
}

/* ---- Communicators --------------------------------------------------------------------- */
int DFC_Comm_create_keyval(DFC_Comm_copy_attr_function *comm_copy_attr_fn,
                           DFC_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = create_keyval(DFC_KIND_COMM, comm_copy_attr_fn, comm_delete_attr_fn, extra_state,
                            __func__, "comm_keyval", comm_keyval)))
        goto fn_fail;
    API_FAIL_EXIT(NULL)
}

int DFC_Comm_free_keyval(int *comm_keyval)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = free_keyval(comm_keyval, DFC_KIND_COMM, __func__))) goto fn_fail;
    API_FAIL_EXIT(NULL)
}

int DFC_Comm_set_attr(DFC_Comm comm, int comm_keyval, void *attribute_val)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_attr_set_key(&c->attrs, comm, DFC_KIND_COMM, comm_keyval, attribute_val, __func__,
                               "comm_keyval")))
        goto fn_fail;
    API_FAIL_EXIT(c)
}

int DFC_Comm_get_attr(DFC_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    int rc;
    dfc_comm_t *c = NULL;
    void *val = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "attribute_val", attribute_val)) ||
        (rc = dfc_api_check_ptr(__func__, "flag", flag)))
        goto fn_fail;
    if ((rc = dfc_attr_comm_get(c, comm_keyval, __func__, &val, flag))) goto fn_fail;
    if (*flag) *(void **)attribute_val = val;
    API_FAIL_EXIT(c)
}

int DFC_Comm_delete_attr(DFC_Comm comm, int comm_keyval)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_attr_delete_key(&c->attrs, comm, DFC_KIND_COMM, comm_keyval, __func__,
                                  "comm_keyval")))
        goto fn_fail;
    API_FAIL_EXIT(c)
}

int dfc_api_comm_attr_copy(dfc_comm_t *old, dfc_comm_t *nc, const char *func)
{
    int rc = dfc_attr_copy_all(old->attrs, old->handle, &nc->attrs, func);
    if (rc != DFC_SUCCESS) {
        dfc_attr_delete_all(&nc->attrs, nc->handle); /* undo the copies made */
        dfc_attr_drop_all(&nc->attrs);
    }
    return rc;
}

/* MPI-4.1 11.2.2: DFC_Finalize first deletes DFC_COMM_SELF's attributes, last set first,
 * as if DFC_COMM_SELF were freed; then DFC_COMM_WORLD's, as MPICH does. */
int dfc_api_attr_finalize(void)
{
    int rc = DFC_SUCCESS;
    DFC_Comm pre[2] = {DFC_COMM_SELF, DFC_COMM_WORLD};
    for (int i = 0; i < 2 && rc == DFC_SUCCESS; i++) {
        dfc_comm_t *c = dfc_comm_get(pre[i]);
        if (c) rc = dfc_attr_delete_all(&c->attrs, pre[i]);
    }
    return rc;
}

/* ---- Datatypes ------------------------------------------------------------------------- */
typedef struct type_attrs {
    struct type_attrs *next;
    DFC_Datatype handle;
    dfc_attr_t *attrs;
} type_attrs_t;
static type_attrs_t *type_lists;

static type_attrs_t *type_list(DFC_Datatype h, int create)
{
    for (type_attrs_t *t = type_lists; t; t = t->next)
        if (t->handle == h) return t;
    if (!create) return NULL;
    type_attrs_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->handle = h;
    t->next = type_lists;
    type_lists = t;
    return t;
}

static void type_list_remove(type_attrs_t *t)
{
    for (type_attrs_t **p = &type_lists; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    dfc_attr_drop_all(&t->attrs);
    free(t);
}

static int check_type(DFC_Datatype h, const char *func)
{
    if (dfc_dtype_get(h)) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_TYPE, func, "invalid argument datatype: 0x%x is not a valid datatype%s",
                   (unsigned)h, h == DFC_DATATYPE_NULL ? " (DFC_DATATYPE_NULL)" : "");
}

int DFC_Type_create_keyval(DFC_Type_copy_attr_function *type_copy_attr_fn,
                           DFC_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = create_keyval(DFC_KIND_DATATYPE, type_copy_attr_fn, type_delete_attr_fn, extra_state,
                            __func__, "type_keyval", type_keyval)))
        goto fn_fail;
    API_FAIL_EXIT(NULL)
}

int DFC_Type_free_keyval(int *type_keyval)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = free_keyval(type_keyval, DFC_KIND_DATATYPE, __func__))) goto fn_fail;
    API_FAIL_EXIT(NULL)
}

int DFC_Type_set_attr(DFC_Datatype datatype, int type_keyval, void *attribute_val)
{
    int rc;
    dfc_keyval_t *kv;
    type_attrs_t *t;
    DFC_API_ENTER();
    if ((rc = check_type(datatype, __func__)) ||
        (rc = dfc_keyval_check(type_keyval, DFC_KIND_DATATYPE, __func__, "type_keyval", &kv)))
        goto fn_fail;
    if (!(t = type_list(datatype, 1))) {
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory storing an attribute");
        goto fn_fail;
    }
    if ((rc = dfc_attr_set(&t->attrs, datatype, kv, attribute_val, __func__))) goto fn_fail;
    API_FAIL_EXIT(NULL)
}

int DFC_Type_get_attr(DFC_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    int rc;
    dfc_keyval_t *kv;
    void *val = NULL;
    DFC_API_ENTER();
    if ((rc = check_type(datatype, __func__)) ||
        (rc = dfc_keyval_check(type_keyval, DFC_KIND_DATATYPE, __func__, "type_keyval", &kv)) ||
        (rc = dfc_api_check_ptr(__func__, "attribute_val", attribute_val)) ||
        (rc = dfc_api_check_ptr(__func__, "flag", flag)))
        goto fn_fail;
    type_attrs_t *t = type_list(datatype, 0);
    *flag = t ? dfc_attr_get(t->attrs, kv, &val) : 0;
    if (*flag) *(void **)attribute_val = val;
    API_FAIL_EXIT(NULL)
}

int DFC_Type_delete_attr(DFC_Datatype datatype, int type_keyval)
{
    int rc;
    dfc_keyval_t *kv;
    DFC_API_ENTER();
    if ((rc = check_type(datatype, __func__)) ||
        (rc = dfc_keyval_check(type_keyval, DFC_KIND_DATATYPE, __func__, "type_keyval", &kv)))
        goto fn_fail;
    type_attrs_t *t = type_list(datatype, 0);
    if (t && (rc = dfc_attr_delete(&t->attrs, datatype, kv))) goto fn_fail;
    API_FAIL_EXIT(NULL)
}

int dfc_api_type_attr_dup(DFC_Datatype oldtype, DFC_Datatype newtype, const char *func)
{
    type_attrs_t *t = type_list(oldtype, 0), *n;
    if (!t || !t->attrs) return DFC_SUCCESS;
    if (!(n = type_list(newtype, 1)))
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory copying attributes");
    int rc = dfc_attr_copy_all(t->attrs, oldtype, &n->attrs, func);
    if (rc != DFC_SUCCESS) { /* undo: the copies, then the new datatype itself */
        dfc_attr_delete_all(&n->attrs, newtype);
        type_list_remove(n);
        dfc_dtype_free_handle(dfc_dtype_get(newtype));
    }
    return rc;
}

int dfc_api_type_attr_free(DFC_Datatype datatype)
{
    type_attrs_t *t = type_list(datatype, 0);
    if (!t) return DFC_SUCCESS;
    int rc = dfc_attr_delete_all(&t->attrs, datatype);
    if (rc == DFC_SUCCESS) type_list_remove(t);
    return rc;
}

void dfc_api_type_attr_finalize(void)
{
    while (type_lists) type_list_remove(type_lists);
}

/* ---- Windows --------------------------------------------------------------------------- */
int DFC_Win_create_keyval(DFC_Win_copy_attr_function *win_copy_attr_fn,
                          DFC_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = create_keyval(DFC_KIND_WIN, win_copy_attr_fn, win_delete_attr_fn, extra_state,
                            __func__, "win_keyval", win_keyval)))
        goto fn_fail;
    API_FAIL_EXIT(NULL)
}

int DFC_Win_free_keyval(int *win_keyval)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = free_keyval(win_keyval, DFC_KIND_WIN, __func__))) goto fn_fail;
    API_FAIL_EXIT(NULL)
}

int DFC_Win_set_attr(DFC_Win win, int win_keyval, void *attribute_val)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) ||
        (rc = dfc_attr_set_key(&w->attrs, win, DFC_KIND_WIN, win_keyval, attribute_val, __func__,
                               "win_keyval")))
        rc = dfc_api_win_error(w, rc);
    DFC_API_EXIT();
    return rc;
}

int DFC_Win_delete_attr(DFC_Win win, int win_keyval)
{
    int rc;
    dfc_win_t *w = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_win_check(win, __func__, "win", &w)) ||
        (rc = dfc_attr_delete_key(&w->attrs, win, DFC_KIND_WIN, win_keyval, __func__,
                                  "win_keyval")))
        rc = dfc_api_win_error(w, rc);
    DFC_API_EXIT();
    return rc;
}
