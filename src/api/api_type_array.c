/*
 * api_type_array.c - Type_create_subarray and Type_create_darray: each dimension becomes one
 * level of the layout (a vector for a subarray, a list of blocks for a distribution), from
 * the fastest-varying dimension outwards, then the whole is resized to the full array, as
 * MPI defines their extents.
 */
#include <stdlib.h>

#include "api/dfc_api.h"

/* Builds (internal, handle-less) types level by level; drops the builder's reference to
 * each intermediate once its parent holds it. */
static int level_blocks(const char *func, dfc_dtype_t **t, size_t n, const size_t *blens,
                        const DFC_Aint *displs)
{
    dfc_dtype_t **types = malloc(sizeof(*types) * (n + 1)), *nt;
    if (!types) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
    for (size_t i = 0; i < n; i++) types[i] = *t;
    dfc_dtype_args_t none = {.combiner = DFC_COMBINER_HINDEXED};
    int rc = dfc_dtype_blocks(func, n, blens, displs, types, &none, &nt);
    free(types);
    if (rc) return rc;
    dfc_dtype_release(*t);
    *t = nt;
    return DFC_SUCCESS;
}

static int level_resize(const char *func, dfc_dtype_t **t, DFC_Aint lb, DFC_Aint extent,
                        const dfc_dtype_args_t *a)
{
    dfc_dtype_t *nt;
    dfc_dtype_args_t none = {.combiner = DFC_COMBINER_RESIZED};
    int rc = dfc_dtype_resized(func, *t, lb, extent, a ? a : &none, &nt);
    if (rc) return rc;
    dfc_dtype_release(*t);
    *t = nt;
    return DFC_SUCCESS;
}

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

/* The dimension that varies k-th fastest (k = 0: fastest). */
static int dim_of(int ndims, int order, int k) { return order == DFC_ORDER_C ? ndims - 1 - k : k; }

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
    dfc_dtype_t *old, *t = NULL;
    if ((rc = subarray_checks(func, ndims, sizes, subsizes, starts, order, newtype)) ||
        (rc = dfc_dtype_lookup(oldtype, func, "oldtype", &old)))
        return rc;
    dfc_dtype_args_t none = {.combiner = DFC_COMBINER_VECTOR};
    int d0 = dim_of(ndims, order, 0);
    if ((rc = dfc_dtype_vector(func, 1, (size_t)subsizes[d0], 0, old, &none, &t))) return rc;
    DFC_Aint step = old->extent, disp = 0;
    for (int k = 0; k < ndims; k++) {
        int d = dim_of(ndims, order, k);
        disp += (DFC_Aint)starts[d] * step;
        if (k > 0) {
            dfc_dtype_t *nt;
            if ((rc = dfc_dtype_vector(func, (size_t)subsizes[d], 1, step, t, &none, &nt))) break;
            dfc_dtype_release(t);
            t = nt;
        }
        step *= sizes[d];
    }
    size_t one = 1;
    if (!rc) rc = level_blocks(func, &t, 1, &one, &disp);
    int *ints = malloc(sizeof(int) * (size_t)(3 * ndims + 2));
    if (!rc && !ints) rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
    if (!rc) {
        ints[0] = ndims;
        for (int i = 0; i < ndims; i++) {
            ints[1 + i] = sizes[i];
            ints[1 + ndims + i] = subsizes[i];
            ints[1 + 2 * ndims + i] = starts[i];
        }
        ints[1 + 3 * ndims] = order;
        dfc_dtype_args_t a = {DFC_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 1, ints, NULL, &old};
        rc = level_resize(func, &t, old->lb, step, &a);
    }
    free(ints);
    if (rc) {
        dfc_dtype_release(t);
        return rc;
    }
    if ((rc = dfc_dtype_publish(func, t))) return rc; /* it released t */
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

typedef struct darray_desc {
    int size, rank, ndims;
    const int *gsizes, *distribs, *dargs, *psizes;
    int order;
} darray_desc_t;

static int darray_checks(const char *func, const darray_desc_t *d, DFC_Datatype *newtype)
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

/* The blocks of dimension i that process coordinate c owns: (start, length) in elements. */
static size_t darray_blocks(const darray_desc_t *d, int i, int c, size_t *blens, DFC_Aint *starts)
{
    int g = d->gsizes[i], p = d->psizes[i], ds = d->distribs[i], k = d->dargs[i];
    if (ds == DFC_DISTRIBUTE_NONE) {
        blens[0] = (size_t)g;
        starts[0] = 0;
        return 1;
    }
    if (ds == DFC_DISTRIBUTE_BLOCK) {
        int b = k == DFC_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : k;
        long lo = (long)c * b, hi = DFC_MIN2((long)(c + 1) * b, (long)g);
        blens[0] = hi > lo ? (size_t)(hi - lo) : 0;
        starts[0] = (DFC_Aint)lo;
        return 1;
    }
    if (k == DFC_DISTRIBUTE_DFLT_DARG) k = 1;
    size_t n = 0;
    for (long j = (long)c * k; j < g; j += (long)p * k) {
        blens[n] = (size_t)DFC_MIN2((long)k, g - j);
        starts[n++] = (DFC_Aint)j;
    }
    return n;
}

static int darray_build(const char *func, const darray_desc_t *d, dfc_dtype_t *old,
                        dfc_dtype_t **out)
{
    int coords[64], rc = DFC_SUCCESS, r = d->rank;
    if (d->ndims > 64)
        return dfc_err(DFC_ERR_DIMS, func, "invalid argument ndims: %d > 64", d->ndims);
    for (int i = d->ndims - 1; i >= 0; i--) { /* the process grid is row-major */
        coords[i] = r % d->psizes[i];
        r /= d->psizes[i];
    }
    dfc_dtype_t *t = old;
    dfc_dtype_retain(old);
    DFC_Aint step = old->extent;
    for (int k = 0; k < d->ndims && !rc; k++) {
        int i = dim_of(d->ndims, d->order, k);
        size_t max = (size_t)d->gsizes[i] + 1, n;
        size_t *blens = malloc(sizeof(size_t) * max);
        DFC_Aint *displs = malloc(sizeof(DFC_Aint) * max);
        if (!blens || !displs) rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
        else {
            n = darray_blocks(d, i, coords[i], blens, displs);
            for (size_t j = 0; j < n; j++) displs[j] *= step;
            /* Items of the level below are one row of it apart. */
            if (!(rc = level_resize(func, &t, 0, step, NULL)))
                rc = level_blocks(func, &t, n, blens, displs);
        }
        free(blens);
        free(displs);
        step *= d->gsizes[i];
    }
    if (rc) {
        dfc_dtype_release(t);
        return rc;
    }
    *out = t;
    return DFC_SUCCESS;
}

static int darray_common(const char *func, const darray_desc_t *d, DFC_Datatype oldtype,
                         DFC_Datatype *newtype)
{
    int rc, nd = d->ndims;
    dfc_dtype_t *old, *t = NULL;
    if ((rc = darray_checks(func, d, newtype)) ||
        (rc = dfc_dtype_lookup(oldtype, func, "oldtype", &old)) ||
        (rc = darray_build(func, d, old, &t)))
        return rc;
    int *ints = malloc(sizeof(int) * (size_t)(4 * nd + 4));
    DFC_Aint full = old->extent;
    for (int i = 0; i < nd; i++) full *= d->gsizes[i];
    if (!ints) rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
    else {
        ints[0] = d->size;
        ints[1] = d->rank;
        ints[2] = nd;
        for (int i = 0; i < nd; i++) {
            ints[3 + i] = d->gsizes[i];
            ints[3 + nd + i] = d->distribs[i];
            ints[3 + 2 * nd + i] = d->dargs[i];
            ints[3 + 3 * nd + i] = d->psizes[i];
        }
        ints[3 + 4 * nd] = d->order;
        dfc_dtype_args_t a = {DFC_COMBINER_DARRAY, 4 * nd + 4, 0, 1, ints, NULL, &old};
        rc = level_resize(func, &t, old->lb, full, &a);
    }
    free(ints);
    if (rc) {
        dfc_dtype_release(t);
        return rc;
    }
    if ((rc = dfc_dtype_publish(func, t))) return rc; /* it released t */
    *newtype = t->handle;
    return DFC_SUCCESS;
}

int DFC_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, DFC_Datatype oldtype,
                           DFC_Datatype *newtype)
{
    int rc;
    darray_desc_t d = {
        size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes,
        order};
    DFC_API_ENTER();
    rc = darray_common(__func__, &d, oldtype, newtype);
    DFC_API_EXIT();
    return rc ? dfc_api_error(NULL, rc) : rc;
}
