/*
 * api_type_derived.c - the derived-datatype constructors (vector, hvector, indexed and its
 * h/block forms, struct, subarray, darray, resized) and the queries on them (true extent,
 * _x forms, contents, names, addresses). The layouts are built in comm/dataloop.c.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/dfc_api.h"

static int check_nonneg(const char *func, const char *argname, int v)
{
    if (v >= 0) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: %d is negative", argname, v);
}

/* count, an array of count entries (may be NULL when count is 0), and non-negative entries
 * (blocklengths). */
static int check_array(const char *func, const char *argname, int count, const void *a)
{
    if (count > 0 && !a)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL with count %d", argname,
                       count);
    return DFC_SUCCESS;
}

static int check_blocklengths(const char *func, int count, const int *b)
{
    int rc = check_array(func, "array_of_blocklengths", count, b);
    for (int i = 0; !rc && i < count; i++)
        if (b[i] < 0)
            rc = dfc_err(DFC_ERR_ARG, func,
                         "invalid argument array_of_blocklengths: element %d is negative (%d)", i,
                         b[i]);
    return rc;
}

/* The checks every one-oldtype constructor starts with. */
static int check_common(const char *func, int count, DFC_Datatype oldtype, DFC_Datatype *newtype,
                        dfc_dtype_t **old)
{
    int rc;
    if ((rc = dfc_api_check_count(func, "count", count)) ||
        (rc = dfc_dtype_lookup(oldtype, func, "oldtype", old)) ||
        (rc = dfc_api_check_ptr(func, "newtype", newtype)))
        return rc;
    return DFC_SUCCESS;
}

static int vector_common(const char *func, int count, int blocklength, DFC_Aint stride_bytes,
                         DFC_Datatype oldtype, DFC_Datatype *newtype, const dfc_dtype_args_t *a)
{
    int rc;
    dfc_dtype_t *old, *dt;
    if ((rc = check_common(func, count, oldtype, newtype, &old)) ||
        (rc = check_nonneg(func, "blocklength", blocklength)))
        return rc;
    dfc_dtype_args_t args = *a;
    args.types = &old;
    args.publish = 1;
    if ((rc = dfc_dtype_vector(func, (size_t)count, (size_t)blocklength,
                               stride_bytes *
                                   (a->combiner == DFC_COMBINER_VECTOR ? old->extent : 1),
                               old, &args, &dt)))
        return rc;
    *newtype = dt->handle;
    return DFC_SUCCESS;
}

int DFC_Type_vector(int count, int blocklength, int stride, DFC_Datatype oldtype,
                    DFC_Datatype *newtype)
{
    int ints[3] = {count, blocklength, stride};
    dfc_dtype_args_t a = {DFC_COMBINER_VECTOR, 3, 0, 1, ints, NULL, NULL, 1};
    API_BODY(rc = vector_common(__func__, count, blocklength, stride, oldtype, newtype, &a));
}

int DFC_Type_create_hvector(int count, int blocklength, DFC_Aint stride, DFC_Datatype oldtype,
                            DFC_Datatype *newtype)
{
    int ints[2] = {count, blocklength};
    dfc_dtype_args_t a = {DFC_COMBINER_HVECTOR, 2, 1, 1, ints, &stride, NULL, 1};
    API_BODY(rc = vector_common(__func__, count, blocklength, stride, oldtype, newtype, &a));
}

/* The indexed family: blocklengths (or one blocklength), displacements in items (ints) or
 * bytes (aints), one old type. */
typedef struct idx_desc {
    int count;
    const int *blens; /* NULL: every block has `blen` */
    int blen;
    const int *idispls;      /* in extents of oldtype, or */
    const DFC_Aint *adispls; /* in bytes */
} idx_desc_t;

static int indexed_common(const char *func, const idx_desc_t *d, DFC_Datatype oldtype,
                          DFC_Datatype *newtype, dfc_dtype_args_t *a)
{
    int rc;
    dfc_dtype_t *old, *dt;
    if ((rc = check_common(func, d->count, oldtype, newtype, &old))) return rc;
    if (d->blens ? (rc = check_blocklengths(func, d->count, d->blens))
                 : (rc = check_nonneg(func, "blocklength", d->blen)))
        return rc;
    if ((rc = check_array(func, "array_of_displacements", d->count,
                          d->idispls ? (const void *)d->idispls : (const void *)d->adispls)))
        return rc;
    size_t n = (size_t)d->count;
    size_t *blens = malloc(sizeof(size_t) * (n + 1));
    DFC_Aint *displs = malloc(sizeof(DFC_Aint) * (n + 1));
    dfc_dtype_t **types = malloc(sizeof(dfc_dtype_t *) * (n + 1));
    if (!blens || !displs || !types) {
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory for %d blocks", d->count);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        blens[i] = (size_t)(d->blens ? d->blens[i] : d->blen);
        displs[i] = d->idispls ? (DFC_Aint)d->idispls[i] * old->extent : d->adispls[i];
        types[i] = old;
    }
    a->types = &old;
    a->publish = 1;
    if (!(rc = dfc_dtype_blocks(func, n, blens, displs, types, a, &dt))) *newtype = dt->handle;
out:
    free(blens);
    free(displs);
    free(types);
    return rc;
}

/* MPI's integer list for the indexed forms: count, then the given int arrays. */
static int *int_list(int count, const int *first, int nfirst, const int *b, const int *c, int *n)
{
    *n = nfirst + (b ? count : 0) + (c ? count : 0);
    int *l = malloc(sizeof(int) * (size_t)(*n + 1));
    if (!l) return NULL;
    memcpy(l, first, sizeof(int) * (size_t)nfirst);
    if (b && count > 0) memcpy(l + nfirst, b, sizeof(int) * (size_t)count);
    if (c && count > 0) memcpy(l + nfirst + (b ? count : 0), c, sizeof(int) * (size_t)count);
    return l;
}

static int indexed_entry(const char *func, const idx_desc_t *d, int combiner, const int *first,
                         int nfirst, DFC_Datatype oldtype, DFC_Datatype *newtype)
{
    int n, rc;
    /* Arrays are checked before they are read for the contents list. */
    if (d->count < 0) return dfc_api_check_count(func, "count", d->count);
    int per_block = combiner == DFC_COMBINER_INDEXED || combiner == DFC_COMBINER_HINDEXED;
    if (per_block && (rc = check_array(func, "array_of_blocklengths", d->count, d->blens)))
        return rc;
    if ((rc = check_array(func, "array_of_displacements", d->count,
                          d->idispls ? (const void *)d->idispls : (const void *)d->adispls)))
        return rc;
    int *ints = int_list(d->count, first, nfirst, d->blens, d->idispls, &n);
    if (!ints) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
    dfc_dtype_args_t a = {combiner, n, d->adispls ? d->count : 0, 1, ints, d->adispls, NULL, 1};
    rc = indexed_common(func, d, oldtype, newtype, &a);
    free(ints);
    return rc;
}

int DFC_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], DFC_Datatype oldtype,
                     DFC_Datatype *newtype)
{
    idx_desc_t d = {count, array_of_blocklengths, 0, array_of_displacements, NULL};
    API_BODY(rc = indexed_entry(__func__, &d, DFC_COMBINER_INDEXED, &count, 1, oldtype, newtype));
}

int DFC_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const DFC_Aint array_of_displacements[], DFC_Datatype oldtype,
                             DFC_Datatype *newtype)
{
    idx_desc_t d = {count, array_of_blocklengths, 0, NULL, array_of_displacements};
    API_BODY(rc = indexed_entry(__func__, &d, DFC_COMBINER_HINDEXED, &count, 1, oldtype, newtype));
}

int DFC_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  DFC_Datatype oldtype, DFC_Datatype *newtype)
{
    idx_desc_t d = {count, NULL, blocklength, array_of_displacements, NULL};
    int first[2] = {count, blocklength};
    API_BODY(
        rc = indexed_entry(__func__, &d, DFC_COMBINER_INDEXED_BLOCK, first, 2, oldtype, newtype));
}

int DFC_Type_create_hindexed_block(int count, int blocklength,
                                   const DFC_Aint array_of_displacements[], DFC_Datatype oldtype,
                                   DFC_Datatype *newtype)
{
    idx_desc_t d = {count, NULL, blocklength, NULL, array_of_displacements};
    int first[2] = {count, blocklength};
    API_BODY(
        rc = indexed_entry(__func__, &d, DFC_COMBINER_HINDEXED_BLOCK, first, 2, oldtype, newtype));
}

static int struct_common(const char *func, int count, const int *blens, const DFC_Aint *displs,
                         const DFC_Datatype *types, DFC_Datatype *newtype)
{
    int rc, n;
    if ((rc = dfc_api_check_count(func, "count", count)) ||
        (rc = check_blocklengths(func, count, blens)) ||
        (rc = check_array(func, "array_of_displacements", count, displs)) ||
        (rc = check_array(func, "array_of_types", count, types)) ||
        (rc = dfc_api_check_ptr(func, "newtype", newtype)))
        return rc;
    size_t *bl = malloc(sizeof(size_t) * ((size_t)count + 1));
    dfc_dtype_t **ts = malloc(sizeof(dfc_dtype_t *) * ((size_t)count + 1));
    int *ints = int_list(count, &count, 1, blens, NULL, &n);
    dfc_dtype_t *dt;
    if (!bl || !ts || !ints) {
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory for %d blocks", count);
        goto out;
    }
    for (int i = 0; i < count; i++) {
        char name[64];
        snprintf(name, sizeof name, "array_of_types[%d]", i);
        if ((rc = dfc_dtype_lookup(types[i], func, name, &ts[i]))) goto out;
        bl[i] = (size_t)blens[i];
    }
    dfc_dtype_args_t a = {DFC_COMBINER_STRUCT, n, count, count, ints, displs, ts, 1};
    if (!(rc = dfc_dtype_blocks(func, (size_t)count, bl, displs, ts, &a, &dt)))
        *newtype = dt->handle;
out:
    free(bl);
    free(ts);
    free(ints);
    return rc;
}

int DFC_Type_create_struct(int count, const int array_of_blocklengths[],
                           const DFC_Aint array_of_displacements[],
                           const DFC_Datatype array_of_types[], DFC_Datatype *newtype)
{
    API_BODY(rc = struct_common(__func__, count, array_of_blocklengths, array_of_displacements,
                                array_of_types, newtype));
}

static int resized_common(const char *func, DFC_Datatype oldtype, DFC_Aint lb, DFC_Aint extent,
                          DFC_Datatype *newtype)
{
    int rc;
    dfc_dtype_t *old, *dt;
    if ((rc = dfc_dtype_lookup(oldtype, func, "oldtype", &old)) ||
        (rc = dfc_api_check_ptr(func, "newtype", newtype)))
        return rc;
    DFC_Aint aints[2] = {lb, extent};
    dfc_dtype_args_t a = {DFC_COMBINER_RESIZED, 0, 2, 1, NULL, aints, &old, 1};
    if ((rc = dfc_dtype_resized(func, old, lb, extent, &a, &dt))) return rc;
    *newtype = dt->handle;
    return DFC_SUCCESS;
}

int DFC_Type_create_resized(DFC_Datatype oldtype, DFC_Aint lb, DFC_Aint extent,
                            DFC_Datatype *newtype)
{
    API_BODY(rc = resized_common(__func__, oldtype, lb, extent, newtype));
}
