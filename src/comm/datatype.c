/*
 * datatype.c - the predefined datatypes, contiguous derived types (Type_contiguous and
 * Type_dup, nested freely) and the checks the API layer runs on datatype handles.
 *
 * Every DFC datatype is `nbase` consecutive elements of one predefined `base` type, laid out
 * at the base type's extent. That is all the host engine and the reduction loops need: data
 * moves as bytes and reductions dispatch on `base`. Non-contiguous layouts (a strided
 * Type_vector, structs, indexed types) are not supported.
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
} dfc_dtype_layout_t;

#define SCALAR(h, ctype)                       \
    {                                          \
        h, #h, sizeof(ctype), sizeof(ctype), 0 \
    }
#define PAIR(h, pair_t, value_t)                                              \
    {                                                                         \
        h, #h, sizeof(value_t) + sizeof(int), sizeof(pair_t), sizeof(value_t) \
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
        dt->lb = 0;
        dt->extent = (DFC_Aint)l->extent;
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
        if (dt && !dt->builtin) dfc_free(dt);
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
        dfc_free(dt);
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for a new datatype handle");
    }
    /* Build the full handle whether the table returns an index or a handle. */
    dt->handle = (int)(((unsigned)DFC_KIND_DATATYPE << 24) | DFC_HANDLE_INDEX(h));
    *out = dt;
    return DFC_SUCCESS;
}

int dfc_dtype_contiguous(const char *func, size_t count, const dfc_dtype_t *old, dfc_dtype_t **out)
{
    /* The extent is a DFC_Aint, so the whole type must stay below INTPTR_MAX bytes. */
    if (count && (size_t)old->extent > (size_t)INTPTR_MAX / count)
        return dfc_err(DFC_ERR_COUNT, func,
                       "invalid argument count: %zu elements of extent %lld overflow the "
                       "address space",
                       count, (long long)old->extent);
    dfc_dtype_t *dt = dfc_calloc(1, sizeof(*dt));
    if (!dt) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for a new datatype");
    dt->refcount = 1;
    dt->base = old->base;
    dt->size = count * old->size;
    dt->nbase = count * old->nbase;
    dt->lb = 0;
    dt->extent = (DFC_Aint)(count * (size_t)old->extent);
    dt->combiner = DFC_COMBINER_CONTIGUOUS;
    return dfc_dtype_register(func, dt, out);
}

int dfc_dtype_dup(const char *func, const dfc_dtype_t *old, dfc_dtype_t **out)
{
    dfc_dtype_t *dt = dfc_malloc(sizeof(*dt));
    if (!dt) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for a new datatype");
    *dt = *old;
    dt->handle = 0;
    dt->refcount = 1;
    dt->builtin = 0;
    dt->name = NULL;
    dt->combiner = DFC_COMBINER_DUP; /* committed state is inherited, as MPI says */
    return dfc_dtype_register(func, dt, out);
}

/* Pending operations that keep a derived type after its handle is freed hold a reference. */
void dfc_dtype_retain(dfc_dtype_t *dt)
{
    if (!dt->builtin) dt->refcount++;
}

void dfc_dtype_release(dfc_dtype_t *dt)
{
    if (!dt->builtin && --dt->refcount == 0) dfc_free(dt);
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
    return &dfc_dtype_builtin[dt->base];
}

/* What DFC_Type_size reports: MPI's data bytes, without the padding of pair types. */
size_t dfc_dtype_mpi_size(const dfc_dtype_t *dt)
{
    return dt->nbase * dfc_dtype_layout_of[dt->base]->mpi_size;
}

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
