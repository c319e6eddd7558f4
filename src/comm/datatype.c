/*
 * datatype.c - the predefined datatypes, contiguous derived types (Type_contiguous and
 * Type_dup, nested freely) and the checks the API layer runs on datatype handles.
 *
 * Derived layouts (vector, indexed, struct...) and their packing live in dataloop.c; this
 * file holds the predefined types, handles, references and the element counts of predefined
 * types. Reductions dispatch on `base` over packed data, so they apply to derived types made
 * of one predefined type.
 *
 * The pair types of MAXLOC/MINLOC are MPI's C structs {value; int}, whose extent includes
 * the ABI's padding (DOUBLE_INT: 12 bytes of data in 16). DFC keeps every type dense: the
 * `size` the engine uses (bytes an item occupies in a buffer and on the wire) equals the
 * extent, padding included, so that count * size is always the buffer's span and chunk
 * offsets computed in bytes land on element boundaries. Only DFC_Type_size reports MPI's
 * data size (12), through dfc_dtype_mpi_size. The visible difference from MPI: a pair-type
 * message received as DFC_BYTE counts its padding bytes too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "comm/dfc_comm.h"


dfc_htable_t dfc_dtype_table;

/* The layout of one predefined type: MPI's size (data bytes) and extent; for pair types
 * also the size of the value, which comes first (value_size is 0 for other types). */
typedef struct dfc_dtype_layout {
    DFC_Datatype handle;
    const char *name;
    size_t mpi_size, extent;
    size_t value_size;
    size_t align;
} dfc_dtype_layout_t;

#define SCALAR(h, ctype)                                        \
    {                                                           \
        h, #h, sizeof(ctype), sizeof(ctype), 0, _Alignof(ctype) \
    }
#define PAIR(h, pair_t, value_t)                                                                \
    {                                                                                           \
        h, #h, sizeof(value_t) + sizeof(int), sizeof(pair_t), sizeof(value_t), _Alignof(pair_t) \
    }

static const dfc_dtype_layout_t dfc_dtype_layouts[] = {
    SCALAR(DFC_CHAR, char),
    SCALAR(DFC_SIGNED_CHAR, signed char),
    SCALAR(DFC_UNSIGNED_CHAR, unsigned char),
    SCALAR(DFC_BYTE, unsigned char),
    SCALAR(DFC_SHORT, short),
    SCALAR(DFC_UNSIGNED_SHORT, unsigned short),
    SCALAR(DFC_INT, int),
    SCALAR(DFC_UNSIGNED, unsigned),
    SCALAR(DFC_LONG, long),
    SCALAR(DFC_UNSIGNED_LONG, unsigned long),
    SCALAR(DFC_LONG_LONG_INT, long long),
    SCALAR(DFC_UNSIGNED_LONG_LONG, unsigned long long),
    SCALAR(DFC_FLOAT, float),
    SCALAR(DFC_DOUBLE, double),
    SCALAR(DFC_LONG_DOUBLE, long double),
    SCALAR(DFC_INT8_T, int8_t),
    SCALAR(DFC_INT16_T, int16_t),
    SCALAR(DFC_INT32_T, int32_t),
    SCALAR(DFC_INT64_T, int64_t),
    SCALAR(DFC_UINT8_T, uint8_t),
    SCALAR(DFC_UINT16_T, uint16_t),
    SCALAR(DFC_UINT32_T, uint32_t),
    SCALAR(DFC_UINT64_T, uint64_t),
    SCALAR(DFC_C_BOOL, _Bool),
    SCALAR(DFC_WCHAR, wchar_t),
    SCALAR(DFC_BFLOAT16, uint16_t), /* stored as its 16 bits; arithmetic in op.c */
    SCALAR(DFC_FLOAT16, uint16_t),
    SCALAR(DFC_AINT, DFC_Aint),
    SCALAR(DFC_OFFSET, DFC_Offset),
    SCALAR(DFC_COUNT, DFC_Count),
    SCALAR(DFC_PACKED, unsigned char),
    PAIR(DFC_FLOAT_INT, dfc_pair_float_int_t, float),
    PAIR(DFC_DOUBLE_INT, dfc_pair_double_int_t, double),
    PAIR(DFC_LONG_INT, dfc_pair_long_int_t, long),
    PAIR(DFC_2INT, dfc_pair_2int_t, int),
    PAIR(DFC_SHORT_INT, dfc_pair_short_int_t, short),
    PAIR(DFC_LONG_DOUBLE_INT, dfc_pair_long_double_int_t, long double),
    SCALAR(DFC_C_FLOAT_COMPLEX, float _Complex),
    SCALAR(DFC_C_DOUBLE_COMPLEX, double _Complex),
    SCALAR(DFC_C_LONG_DOUBLE_COMPLEX, long double _Complex),
    SCALAR(DFC_COMPLEX, float _Complex), /* Fortran COMPLEX: two REALs, as C's layout */
    SCALAR(DFC_DOUBLE_COMPLEX, double _Complex),
};
#undef SCALAR
#undef PAIR

_Static_assert(sizeof(dfc_dtype_layouts) / sizeof(dfc_dtype_layouts[0]) == DFC_DATATYPE_BUILTIN_MAX,
               "every predefined datatype of dfc.h needs a layout");

/* Objects of the predefined types, and each one's layout, by handle index. */
static dfc_dtype_t dfc_dtype_builtin[DFC_DATATYPE_BUILTIN_MAX + 1];
static const dfc_dtype_layout_t *dfc_dtype_layout_of[DFC_DATATYPE_BUILTIN_MAX + 1];

int dfc_dtype_init(void)
{
    dfc_htable_init(&dfc_dtype_table, DFC_KIND_DATATYPE, DFC_DATATYPE_BUILTIN_MAX + 1);
    for (size_t k = 0; k < sizeof(dfc_dtype_layouts) / sizeof(dfc_dtype_layouts[0]); k++) {
        const dfc_dtype_layout_t *l = &dfc_dtype_layouts[k];
        uint32_t idx = DFC_HANDLE_INDEX(l->handle);
        dfc_dtype_t *dt = &dfc_dtype_builtin[idx];
        memset(dt, 0, sizeof(*dt));
        dt->handle = l->handle;
        dt->refcount = 1;
        dt->builtin = 1;
        dt->base = (int)idx;
        dt->size = l->extent; /* dense: see the top of this file */
        dt->nbase = 1;
        dt->nelem = l->value_size ? 2 : 1;
        dt->mpi_size = l->mpi_size;
        dt->align = l->align;
        dt->lb = dt->true_lb = 0;
        dt->extent = dt->true_extent = (DFC_Aint)l->extent;
        dt->contig = dt->dense = 1;
        dt->committed = 1; /* predefined types need no commit */
        dt->combiner = DFC_COMBINER_NAMED;
        dt->name = l->name;
        dfc_dtype_layout_of[idx] = l;
        dfc_htable_set(&dfc_dtype_table, idx, dt);
    }
    return DFC_SUCCESS;
}

void dfc_dtype_finalize(void)
{
    /* Derived types the user never freed die with the library. */
    for (uint32_t i = dfc_dtype_table.first; i < dfc_dtype_table.cap; i++) {
        dfc_dtype_t *dt = dfc_dtype_table.slots[i];
        if (dt && !dt->builtin) {
            /* Its children may be other leaked handles: drop only this handle's reference
             * and let the counts free what nobody holds any more. */
            dfc_htable_remove(&dfc_dtype_table, dt->handle);
            dt->handle = DFC_DATATYPE_NULL;
            dfc_dtype_release(dt);
        }
    }
    for (int i = 0; i <= DFC_DATATYPE_BUILTIN_MAX; i++) {
        free(dfc_dtype_builtin[i].uname);
        dfc_dtype_builtin[i].uname = NULL;
    }
    dfc_htable_destroy(&dfc_dtype_table);
}

/* Records why h is not a datatype: null, another kind of handle, or freed/unknown. */
static int dfc_dtype_bad_handle(DFC_Datatype h, const char *func, const char *argname)
{
    if (h == DFC_DATATYPE_NULL)
        return dfc_err(DFC_ERR_TYPE, func, "invalid argument %s: DFC_DATATYPE_NULL", argname);
    if (DFC_HANDLE_KIND(h) != DFC_KIND_DATATYPE)
        return dfc_err(DFC_ERR_TYPE, func, "invalid argument %s: 0x%x is not a datatype handle",
                       argname, (unsigned)h);
    return dfc_err(DFC_ERR_TYPE, func,
                   "invalid argument %s: datatype 0x%x was freed or never created", argname,
                   (unsigned)h);
}

/* A live datatype handle, committed or not (constructors, size and extent queries). */
int dfc_dtype_lookup(DFC_Datatype h, const char *func, const char *argname, dfc_dtype_t **out)
{
    dfc_dtype_t *dt = dfc_dtype_get(h);
    if (DFC_UNLIKELY(!dt)) return dfc_dtype_bad_handle(h, func, argname);
    *out = dt;
    return DFC_SUCCESS;
}

int dfc_dtype_check(DFC_Datatype h, const char *func, const char *argname, dfc_dtype_t **out)
{
    dfc_dtype_t *dt = dfc_dtype_get(h);
    if (DFC_UNLIKELY(!dt)) return dfc_dtype_bad_handle(h, func, argname);
    if (DFC_UNLIKELY(!dt->committed))
        return dfc_err(DFC_ERR_TYPE, func,
                       "invalid argument %s: datatype 0x%x is not committed (call "
                       "DFC_Type_commit before using it in communication)",
                       argname, (unsigned)h);
    *out = dt;
    return DFC_SUCCESS;
}

/* Gives a new derived type its handle; on failure frees it and records the error. */
static int dfc_dtype_register(const char *func, dfc_dtype_t *dt, dfc_dtype_t **out)
{
    int h = dfc_htable_add(&dfc_dtype_table, dt);
    if (DFC_HANDLE_INDEX(h) == 0) {
        dfc_dtype_release(dt);
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for a new datatype handle");
    }
    /* Build the full handle whether the table returns an index or a handle. */
    dt->handle = (int)(((unsigned)DFC_KIND_DATATYPE << 24) | DFC_HANDLE_INDEX(h));
    *out = dt;
    return DFC_SUCCESS;
}

int dfc_dtype_publish(const char *func, dfc_dtype_t *dt)
{
    return dfc_dtype_register(func, dt, &dt);
}

int dfc_dtype_contiguous(const char *func, size_t count, const dfc_dtype_t *old, dfc_dtype_t **out)
{
    int n = count > INT32_MAX ? INT32_MAX : (int)count;
    dfc_dtype_t *o = (dfc_dtype_t *)old;
    dfc_dtype_args_t args = {DFC_COMBINER_CONTIGUOUS, 1, 0, 1, &n, NULL, &o, 1};
    return dfc_dtype_vector(func, 1, count, 0, o, &args, out);
}

int dfc_dtype_dup(const char *func, const dfc_dtype_t *old, dfc_dtype_t **out)
{
    dfc_dtype_t *o = (dfc_dtype_t *)old;
    dfc_dtype_args_t args = {DFC_COMBINER_DUP, 0, 0, 1, NULL, NULL, &o, 1};
    int rc = dfc_dtype_resized(func, o, old->lb, old->extent, &args, out);
    if (!rc) (*out)->committed = old->committed; /* inherited, as MPI says */
    return rc;
}

int dfc_dtype_alias(const char *func, dfc_dtype_t *dt, DFC_Datatype *out)
{
    if (dt->builtin) {
        *out = dt->handle;
        return DFC_SUCCESS;
    }
    /* A wrapper around dt (it holds dt) that reports dt's envelope and contents. */
    int rc;
    dfc_dtype_t *w = NULL;
    dfc_dtype_args_t args = {dt->combiner, dt->n_ints,  dt->n_aints, dt->n_types,
                             dt->c_ints,   dt->c_aints, dt->c_types, 1};
    if ((rc = dfc_dtype_resized(func, dt, dt->lb, dt->extent, &args, &w))) return rc;
    w->committed = dt->committed;
    *out = w->handle;
    return DFC_SUCCESS;
}

/* Pending operations that keep a derived type after its handle is freed hold a reference. */
void dfc_dtype_retain(dfc_dtype_t *dt)
{
    if (!dt->builtin) dt->refcount++;
}

void dfc_dtype_release(dfc_dtype_t *dt)
{
    if (dt->builtin || --dt->refcount > 0) return;
    if (dt->dl_child) dfc_dtype_release(dt->dl_child);
    for (size_t i = 0; dt->dl_types && i < dt->dl_count; i++) dfc_dtype_release(dt->dl_types[i]);
    for (int i = 0; dt->c_types && i < dt->n_types; i++) dfc_dtype_release(dt->c_types[i]);
    free(dt->dl_displs);
    free(dt->dl_blens);
    free(dt->dl_pofs);
    free(dt->dl_types);
    free(dt->c_ints);
    free(dt->c_aints);
    free(dt->c_types);
    free(dt->uname);
    dfc_free(dt);
}

/* Type_free: the handle dies now, the object when its last user releases it. */
void dfc_dtype_free_handle(dfc_dtype_t *dt)
{
    dfc_htable_remove(&dfc_dtype_table, dt->handle);
    dt->handle = DFC_DATATYPE_NULL;
    dfc_dtype_release(dt);
}

/* The predefined type dt is made of (for names in messages). */
const dfc_dtype_t *dfc_dtype_base_type(const dfc_dtype_t *dt)
{
    return &dfc_dtype_builtin[dt->base < 0 ? DFC_HANDLE_INDEX(DFC_BYTE) : dt->base];
}

const char *dfc_dtype_name(const dfc_dtype_t *dt)
{
    return dt->uname ? dt->uname : dt->name ? dt->name : "";
}

/* What DFC_Type_size reports: MPI's data bytes, without the padding of pair types. */
size_t dfc_dtype_mpi_size(const dfc_dtype_t *dt) { return dt->mpi_size; }

/* DFC_Get_elements: basic elements in `bytes` of received data of type dt, or -1 when the
 * bytes do not end on an element boundary. A pair counts as two elements (as in MPICH), and
 * a message may end after the value of its last pair. */
DFC_Count dfc_dtype_elements(const dfc_dtype_t *dt, uint64_t bytes)
{
    const dfc_dtype_layout_t *l = dfc_dtype_layout_of[dt->base];
    uint64_t items = bytes / l->extent, rest = bytes % l->extent;
    if (!l->value_size) return rest ? -1 : (DFC_Count)items;
    if (rest == 0) return (DFC_Count)(2 * items);
    if (rest == l->value_size) return (DFC_Count)(2 * items + 1);
    return -1;
}
