/*
 * attr.c - attribute caching (MPI-4.1 7.7): keyvals and the attribute lists of objects.
 *
 * A keyval is a handle of kind DFC_KIND_KEYVAL for one object kind (communicators or
 * datatypes). Freeing it removes the handle; the object stays while attributes still use
 * it, so their delete callbacks run when their objects go (MPI-4.1 7.7.2). An object's
 * attributes are a list in the order they were first set: copies run in that order on
 * dup, deletions run in the reverse order (last set, first deleted), which is what MPI
 * requires of DFC_COMM_SELF at DFC_Finalize and what MPICH does everywhere.
 *
 * The callbacks are the user's: they run with the library lock dropped (attr_call_*), so
 * that they may call DFC; the list is read again after each one.
 */
#include <stdlib.h>

#include "comm/dfc_comm.h"

dfc_htable_t dfc_keyval_table;

int dfc_keyval_init(void)
{
    dfc_htable_init(&dfc_keyval_table, DFC_KIND_KEYVAL, DFC_KEYVAL_FIRST_DYNAMIC);
    return DFC_SUCCESS;
}

/* Keys the user never freed go too; nothing reads attributes after this. */
void dfc_keyval_finalize(void)
{
    for (uint32_t i = DFC_KEYVAL_FIRST_DYNAMIC; i < dfc_keyval_table.cap; i++)
        free(dfc_keyval_table.slots[i]);
    dfc_htable_destroy(&dfc_keyval_table);
}

int dfc_keyval_create(int kind, dfc_attr_copy_fn_t *copy, dfc_attr_delete_fn_t *del, void *extra,
                      const char *func, int *out)
{
    dfc_keyval_t *kv = calloc(1, sizeof *kv);
    if (!kv) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory creating a keyval");
    kv->kind = kind;
    kv->copy = copy;
    kv->del = del;
    kv->extra = extra;
    kv->refcount = 1;
    kv->handle = dfc_htable_add(&dfc_keyval_table, kv);
    if (!kv->handle) {
        free(kv);
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory creating a keyval handle");
    }
    *out = kv->handle;
    return DFC_SUCCESS;
}

static void keyval_release(dfc_keyval_t *kv)
{
    if (--kv->refcount == 0) free(kv);
}

void dfc_keyval_free(dfc_keyval_t *kv)
{
    dfc_htable_remove(&dfc_keyval_table, kv->handle); /* callbacks still see kv->handle */
    keyval_release(kv);
}

int dfc_keyval_check(int h, int kind, const char *func, const char *argname, dfc_keyval_t **out)
{
    static const char *const kinds[] = {[DFC_KIND_COMM] = "communicator",
                                        [DFC_KIND_DATATYPE] = "datatype",
                                        [DFC_KIND_WIN] = "window"};
    *out = NULL;
    if (dfc_keyval_predefined(h))
        return dfc_err(DFC_ERR_KEYVAL, func,
                       "invalid argument %s: 0x%x is a predefined attribute key, which "
                       "cannot be set, deleted or freed",
                       argname, (unsigned)h);
    dfc_keyval_t *kv = dfc_htable_get(&dfc_keyval_table, h);
    if (!kv)
        return dfc_err(DFC_ERR_KEYVAL, func, "invalid argument %s: 0x%x is not a valid keyval%s",
                       argname, (unsigned)h,
                       h == DFC_KEYVAL_INVALID ? " (DFC_KEYVAL_INVALID)" : "");
    if (kv->kind != kind)
        return dfc_err(DFC_ERR_KEYVAL, func,
                       "invalid argument %s: keyval 0x%x is a %s keyval, not a %s keyval", argname,
                       (unsigned)h, kinds[kv->kind], kinds[kind]);
    *out = kv;
    return DFC_SUCCESS;
}

static dfc_attr_t *attr_find(dfc_attr_t *list, const dfc_keyval_t *kv)
{
    for (; list; list = list->next)
        if (list->kv == kv) return list;
    return NULL;
}

int dfc_attr_get(dfc_attr_t *list, const dfc_keyval_t *kv, void **val)
{
    dfc_attr_t *a = attr_find(list, kv);
    if (a) *val = a->val;
    return a != NULL;
}

/* Calls the delete callback of `a` (the lock dropped); its code, or DFC_SUCCESS. */
static int attr_call_delete(int obj, dfc_keyval_t *kv, void *val)
{
    if (!kv->del) return DFC_SUCCESS;
    DFC_UNLOCK();
    int rc = kv->del(obj, kv->handle, val, kv->extra);
    DFC_LOCK();
    return rc;
}

static void attr_unlink(dfc_attr_t **list, dfc_attr_t *a)
{
    for (dfc_attr_t **p = list; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            break;
        }
    keyval_release(a->kv);
    free(a);
}

int dfc_attr_set(dfc_attr_t **list, int obj, dfc_keyval_t *kv, void *val, const char *func)
{
    dfc_attr_t *a = attr_find(*list, kv);
    if (a) { /* as if deleted first: the old value's callback runs, and may refuse */
        int rc = attr_call_delete(obj, kv, a->val);
        if (rc != DFC_SUCCESS) return rc;
        if ((a = attr_find(*list, kv))) {
            a->val = val;
            return DFC_SUCCESS;
        }
    }
    a = calloc(1, sizeof *a);
    if (!a) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory storing an attribute");
    a->kv = kv;
    a->val = val;
    kv->refcount++;
    dfc_attr_t **p = list;
    while (*p) p = &(*p)->next;
    *p = a;
    return DFC_SUCCESS;
}

int dfc_attr_delete(dfc_attr_t **list, int obj, dfc_keyval_t *kv)
{
    dfc_attr_t *a = attr_find(*list, kv);
    if (!a) return DFC_SUCCESS; /* nothing set: MPICH returns success too */
    kv->refcount++;             /* the callback may free the keyval */
    int rc = attr_call_delete(obj, kv, a->val);
    if (rc == DFC_SUCCESS && (a = attr_find(*list, kv))) attr_unlink(list, a);
    keyval_release(kv);
    return rc;
}

int dfc_attr_delete_all(dfc_attr_t **list, int obj)
{
    while (*list) {
        dfc_attr_t *last = *list;
        while (last->next) last = last->next;
        int rc = dfc_attr_delete(list, obj, last->kv);
        if (rc != DFC_SUCCESS) return rc;
    }
    return DFC_SUCCESS;
}

int dfc_attr_copy_all(dfc_attr_t *src, int oldobj, dfc_attr_t **dst, const char *func)
{
    int n = 0;
    for (dfc_attr_t *a = src; a; a = a->next) n++;
    if (!n) return DFC_SUCCESS;
    /* A snapshot: callbacks may change src while they run. */
    dfc_attr_t *snap = malloc((size_t)n * sizeof *snap);
    if (!snap) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory copying attributes");
    n = 0;
    for (dfc_attr_t *a = src; a; a = a->next, n++) {
        snap[n] = *a;
        a->kv->refcount++;
    }
    int rc = DFC_SUCCESS;
    for (int i = 0; i < n && rc == DFC_SUCCESS; i++) {
        dfc_keyval_t *kv = snap[i].kv;
        void *out = NULL;
        int flag = 0;
        if (!kv->copy) continue;
        DFC_UNLOCK();
        rc = kv->copy(oldobj, kv->handle, kv->extra, snap[i].val, &out, &flag);
        DFC_LOCK();
        if (rc == DFC_SUCCESS && flag) rc = dfc_attr_set(dst, 0, kv, out, func);
    }
    for (int i = 0; i < n; i++) keyval_release(snap[i].kv);
    free(snap);
    return rc;
}

void dfc_attr_drop_all(dfc_attr_t **list)
{
    while (*list) attr_unlink(list, *list);
}

int dfc_attr_set_key(dfc_attr_t **list, int obj, int kind, int keyval, void *val, const char *func,
                     const char *argname)
{
    dfc_keyval_t *kv;
    int rc = dfc_keyval_check(keyval, kind, func, argname, &kv);
    return rc ? rc : dfc_attr_set(list, obj, kv, val, func);
}

int dfc_attr_get_key(dfc_attr_t *list, int kind, int keyval, const char *func, const char *argname,
                     void **val, int *flag)
{
    dfc_keyval_t *kv;
    int rc = dfc_keyval_check(keyval, kind, func, argname, &kv);
    if (!rc) *flag = dfc_attr_get(list, kv, val);
    return rc;
}

int dfc_attr_delete_key(dfc_attr_t **list, int obj, int kind, int keyval, const char *func,
                        const char *argname)
{
    dfc_keyval_t *kv;
    int rc = dfc_keyval_check(keyval, kind, func, argname, &kv);
    return rc ? rc : dfc_attr_delete(list, obj, kv);
}

/* The values of the predefined attributes: MPI hands out pointers to them. */
static int attr_tag_ub = DFC_TAG_UB_VALUE, attr_host = DFC_PROC_NULL, attr_io = DFC_ANY_SOURCE,
           attr_wtime_is_global = 0, attr_appnum, attr_universe_size, attr_lastusedcode;

/* Sets *val for a predefined key; 0 when this launcher does not give it. */
static int predefined_attr(int keyval, void **val)
{
    switch (keyval) {
    case DFC_TAG_UB: *val = &attr_tag_ub; return 1;
    case DFC_HOST: *val = &attr_host; return 1;
    case DFC_IO: *val = &attr_io; return 1;
    case DFC_WTIME_IS_GLOBAL: *val = &attr_wtime_is_global; return 1;
    case DFC_APPNUM:
        attr_appnum = dfc_proc.appnum;
        *val = &attr_appnum;
        return attr_appnum >= 0;
    case DFC_UNIVERSE_SIZE:
        /* Without the launcher's word, the processes that exist (as MPICH answers). */
        attr_universe_size = dfc_proc.universe_size >= 0 ? dfc_proc.universe_size
                                                         : dfc_proc.world_size;
        *val = &attr_universe_size;
        return 1;
    case DFC_LASTUSEDCODE:
        attr_lastusedcode = dfc_err_last_used();
        *val = &attr_lastusedcode;
        return 1;
    default: return 0;
    }
}

int dfc_attr_comm_get(struct dfc_comm *c, int keyval, const char *func, void **val, int *flag)
{
    if (dfc_keyval_predefined(keyval)) {
        *flag = predefined_attr(keyval, val);
        return DFC_SUCCESS;
    }
    return dfc_attr_get_key(c->attrs, DFC_KIND_COMM, keyval, func, "comm_keyval", val, flag);
}
