/*
 * typeattr.c - datatype attributes (MPI-4.1 7.7.3): keyvals, set/get/delete, copy on
 * Type_dup, delete on Type_free, on predefined types too, and bad arguments.
 */
#include "../dfctest.h"

static int ncopy, ndelete, last_deleted;

static int copy_fn(DFC_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)keyval, (void)extra;
    ncopy++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return DFC_SUCCESS;
}

static int delete_fn(DFC_Datatype type, int keyval, void *val, void *extra)
{
    (void)type, (void)keyval, (void)extra;
    ndelete++;
    last_deleted = (int)(intptr_t)val;
    return DFC_SUCCESS;
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    int k, flag;
    void *v;
    DFC_Datatype t, d;
    DFCT_OK(DFC_Type_create_keyval(copy_fn, delete_fn, &k, NULL));
    DFCT_OK(DFC_Type_contiguous(4, DFC_INT, &t));
    DFCT_OK(DFC_Type_get_attr(t, k, &v, &flag));
    DFCT_CHECK(flag == 0, "unset type attribute found");
    DFCT_OK(DFC_Type_set_attr(t, k, (void *)(intptr_t)100));
    DFCT_OK(DFC_Type_get_attr(t, k, &v, &flag));
    DFCT_CHECK(flag == 1 && (intptr_t)v == 100, "get: flag %d value %ld", flag, (long)(intptr_t)v);
    DFCT_OK(DFC_Type_dup(t, &d));
    DFCT_CHECK(ncopy == 1, "Type_dup ran %d copy callbacks", ncopy);
    DFCT_OK(DFC_Type_get_attr(d, k, &v, &flag));
    DFCT_CHECK(flag == 1 && (intptr_t)v == 101, "dup: flag %d value %ld", flag, (long)(intptr_t)v);
    DFCT_OK(DFC_Type_free(&t));
    DFCT_CHECK(ndelete == 1 && last_deleted == 100, "Type_free: %d deletes, last %d", ndelete,
               last_deleted);
    /* A new type that reuses t's handle has no attributes. */
    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &t));
    DFCT_OK(DFC_Type_get_attr(t, k, &v, &flag));
    DFCT_CHECK(flag == 0, "a new type inherited a freed type's attribute");
    DFCT_OK(DFC_Type_free(&t));
    DFCT_OK(DFC_Type_delete_attr(d, k));
    DFCT_CHECK(ndelete == 2 && last_deleted == 101, "delete_attr: %d, last %d", ndelete,
               last_deleted);
    DFCT_OK(DFC_Type_free(&d));
    DFCT_CHECK(ndelete == 2, "Type_free after delete_attr ran the callback again");
    /* Predefined types carry attributes too. */
    DFCT_OK(DFC_Type_set_attr(DFC_DOUBLE, k, (void *)(intptr_t)7));
    DFCT_OK(DFC_Type_get_attr(DFC_DOUBLE, k, &v, &flag));
    DFCT_CHECK(flag == 1 && (intptr_t)v == 7, "DFC_DOUBLE attribute");
    DFCT_OK(DFC_Type_get_attr(DFC_FLOAT, k, &v, &flag));
    DFCT_CHECK(flag == 0, "DFC_FLOAT has DFC_DOUBLE's attribute");
    DFCT_OK(DFC_Type_delete_attr(DFC_DOUBLE, k));
    DFCT_CHECK(ndelete == 3 && last_deleted == 7, "predefined delete");
    /* Bad arguments. */
    DFCT_FAILS(DFC_Type_set_attr(DFC_DATATYPE_NULL, k, NULL), DFC_ERR_TYPE,
               "DFC_Type_set_attr: invalid argument datatype");
    DFCT_FAILS(DFC_Type_get_attr(DFC_INT, DFC_TAG_UB, &v, &flag), DFC_ERR_KEYVAL, "predefined");
    int ck;
    DFCT_OK(DFC_Comm_create_keyval(NULL, NULL, &ck, NULL));
    DFCT_FAILS(DFC_Type_set_attr(DFC_INT, ck, NULL), DFC_ERR_KEYVAL, "not a datatype keyval");
    DFCT_OK(DFC_Comm_free_keyval(&ck));
    DFCT_FAILS(DFC_Type_get_attr(DFC_INT, k, &v, NULL), DFC_ERR_ARG, "invalid argument flag");
    DFCT_FAILS(DFC_Type_create_keyval(NULL, NULL, NULL, NULL), DFC_ERR_ARG, "type_keyval");
    DFCT_OK(DFC_Type_free_keyval(&k));
    DFCT_CHECK(k == DFC_KEYVAL_INVALID, "Type_free_keyval left 0x%x", (unsigned)k);
    return dfct_finalize();
}
