/*
 * api_type_array.c - Type_create_subarray and Type_create_darray: their argument checks; the
 * layouts are built in comm/datatype_array.c.
 */
#include <stdlib.h>

#include "api/dfc_api.h"

static int check_order(const char *func, int order)
{
    if (order == DFC_ORDER_C || order == DFC_ORDER_FORTRAN) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_ARG, func,
                   "invalid argument order: %d is neither DFC_ORDER_C nor DFC_ORDER_FORTRAN",
                   order);
}

static int check_dims(const char *func, int ndims, const int *a, const char *name, int min)
{
    if (!a) return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", name);
    for (int i = 0; i < ndims; i++)
        if (a[i] < min)
            return dfc_err(DFC_ERR_ARG, func,
                           "invalid argument %s: element %d is %d (must be >= %d)", name, i, a[i],
                           min);
    return DFC_SUCCESS;
}

static int subarray_checks(const char *func, int ndims, const int *sizes, const int *subsizes,
                           const int *starts, int order, DFC_Datatype *newtype)
{
    int rc;
    if (ndims <= 0)
        return dfc_err(DFC_ERR_DIMS, func, "invalid argument ndims: %d (must be positive)", ndims);
    if ((rc = check_dims(func, ndims, sizes, "array_of_sizes", 1)) ||
        (rc = check_dims(func, ndims, subsizes, "array_of_subsizes", 0)) ||
        (rc = check_dims(func, ndims, starts, "array_of_starts", 0)) ||
        (rc = check_order(func, order)) || (rc = dfc_api_check_ptr(func, "newtype", newtype)))
        return rc;
    for (int i = 0; i < ndims; i++)
        if (subsizes[i] > sizes[i] || starts[i] > sizes[i] - subsizes[i])
            return dfc_err(DFC_ERR_ARG, func,
                           "invalid argument array_of_starts: dimension %d: start %d + subsize %d "
                           "exceeds size %d",
                           i, starts[i], subsizes[i], sizes[i]);
    return DFC_SUCCESS;
}

static int subarray_common(const char *func, int ndims, const int *sizes, const int *subsizes,
                           const int *starts, int order, DFC_Datatype oldtype,
                           DFC_Datatype *newtype)
{
    int rc;
    dfc_dtype_t *old, *t;
    if ((rc = subarray_checks(func, ndims, sizes, subsizes, starts, order, newtype)) ||
        (rc = dfc_dtype_lookup(oldtype, func, "oldtype", &old)) ||
        (rc = dfc_dtype_subarray(func, ndims, sizes, subsizes, starts, order, old, &t)))
        return rc;
    *newtype = t->handle;
    return DFC_SUCCESS;
}

int DFC_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, DFC_Datatype oldtype,
                             DFC_Datatype *newtype)
{
    int rc;
    DFC_API_ENTER();
    rc = subarray_common(__func__, ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                         oldtype, newtype);
    DFC_API_EXIT();
    return rc ? dfc_api_error(NULL, rc) : rc;
}

/* ---- darray ------------------------------------------------------------------------------- */


static int darray_checks(const char *func, const dfc_darray_t *d, DFC_Datatype *newtype)
{
    int rc;
    if (d->size <= 0)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument size: %d (must be positive)", d->size);
    if (d->rank < 0 || d->rank >= d->size)
        return dfc_err(DFC_ERR_RANK, func, "invalid argument rank: %d is not in [0, %d)", d->rank,
                       d->size);
    if (d->ndims <= 0)
        return dfc_err(DFC_ERR_DIMS, func, "invalid argument ndims: %d (must be positive)",
                       d->ndims);
    if ((rc = check_dims(func, d->ndims, d->gsizes, "array_of_gsizes", 1)) ||
        (rc = check_dims(func, d->ndims, d->psizes, "array_of_psizes", 1)) ||
        (rc = check_dims(func, d->ndims, d->distribs, "array_of_distribs", 0)) ||
        (rc = check_dims(func, d->ndims, d->dargs, "array_of_dargs", DFC_DISTRIBUTE_DFLT_DARG)) ||
        (rc = check_order(func, d->order)) || (rc = dfc_api_check_ptr(func, "newtype", newtype)))
        return rc;
    long prod = 1;
    for (int i = 0; i < d->ndims; i++) {
        int ds = d->distribs[i], darg = d->dargs[i];
        prod *= d->psizes[i];
        if (ds != DFC_DISTRIBUTE_BLOCK && ds != DFC_DISTRIBUTE_CYCLIC && ds != DFC_DISTRIBUTE_NONE)
            return dfc_err(DFC_ERR_ARG, func,
                           "invalid argument array_of_distribs: element %d is %d (not a "
                           "DFC_DISTRIBUTE_ constant)",
                           i, ds);
        if (ds == DFC_DISTRIBUTE_NONE && d->psizes[i] != 1)
            return dfc_err(DFC_ERR_ARG, func,
                           "invalid argument array_of_psizes: element %d is %d where the "
                           "distribution is DFC_DISTRIBUTE_NONE (must be 1)",
                           i, d->psizes[i]);
        if (darg != DFC_DISTRIBUTE_DFLT_DARG && darg <= 0)
            return dfc_err(DFC_ERR_ARG, func,
                           "invalid argument array_of_dargs: element %d is %d (must be positive "
                           "or DFC_DISTRIBUTE_DFLT_DARG)",
                           i, darg);
        if (ds == DFC_DISTRIBUTE_BLOCK && darg != DFC_DISTRIBUTE_DFLT_DARG &&
            (long)darg * d->psizes[i] < d->gsizes[i])
            return dfc_err(DFC_ERR_ARG, func,
                           "invalid argument array_of_dargs: element %d: blocks of %d on %d "
                           "processes cannot hold %d elements",
                           i, darg, d->psizes[i], d->gsizes[i]);
    }
    if (prod != d->size)
        return dfc_err(DFC_ERR_ARG, func,
                       "invalid argument array_of_psizes: their product %ld differs from size %d",
                       prod, d->size);
    return DFC_SUCCESS;
}

static int darray_common(const char *func, const dfc_darray_t *d, DFC_Datatype oldtype,
                         DFC_Datatype *newtype)
{
    int rc;
    dfc_dtype_t *old, *t;
    if ((rc = darray_checks(func, d, newtype)) ||
        (rc = dfc_dtype_lookup(oldtype, func, "oldtype", &old)) ||
        (rc = dfc_dtype_darray(func, d, old, &t)))
        return rc;
    *newtype = t->handle;
    return DFC_SUCCESS;
}

int DFC_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, DFC_Datatype oldtype,
                           DFC_Datatype *newtype)
{
    int rc;
    dfc_darray_t d = {
        size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes,
        order};
    DFC_API_ENTER();
    rc = darray_common(__func__, &d, oldtype, newtype);
    DFC_API_EXIT();
    return rc ? dfc_api_error(NULL, rc) : rc;
}
