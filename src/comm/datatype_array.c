/*
 * datatype_array.c - the layouts of Type_create_subarray and Type_create_darray: each
 * dimension becomes one level of the layout (a vector for a subarray, a list of blocks for a
 * distribution), from the fastest-varying dimension outwards, then the whole is resized to
 * the full array, as MPI defines their extents. The api layer has checked the arguments.
 */
#include <stdlib.h>

#include "comm/dfc_comm.h"

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

/* The dimension that varies k-th fastest (k = 0: fastest). */
static int dim_of(int ndims, int order, int k) { return order == DFC_ORDER_C ? ndims - 1 - k : k; }

int dfc_dtype_subarray(const char *func, int ndims, const int *sizes, const int *subsizes,
                       const int *starts, int order, dfc_dtype_t *old, dfc_dtype_t **out)
{
    int rc;
    dfc_dtype_t *t = NULL;
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
        dfc_dtype_args_t a = {DFC_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 1, ints, NULL, &old, 1};
        rc = level_resize(func, &t, old->lb, step, &a);
    }
    free(ints);
    if (rc) {
        dfc_dtype_release(t);
        return rc;
    }
    *out = t;
    return DFC_SUCCESS;
}

/* The blocks of dimension i that process coordinate c owns: (start, length) in elements. */
static size_t darray_blocks(const dfc_darray_t *d, int i, int c, size_t *blens, DFC_Aint *starts)
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

static int darray_build(const char *func, const dfc_darray_t *d, dfc_dtype_t *old,
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

int dfc_dtype_darray(const char *func, const dfc_darray_t *d, dfc_dtype_t *old, dfc_dtype_t **out)
{
    int rc, nd = d->ndims;
    dfc_dtype_t *t = NULL;
    if ((rc = darray_build(func, d, old, &t))) return rc;
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
        dfc_dtype_args_t a = {DFC_COMBINER_DARRAY, 4 * nd + 4, 0, 1, ints, NULL, &old, 1};
        rc = level_resize(func, &t, old->lb, full, &a);
    }
    free(ints);
    if (rc) {
        dfc_dtype_release(t);
        return rc;
    }
    *out = t;
    return DFC_SUCCESS;
}
