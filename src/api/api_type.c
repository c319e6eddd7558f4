/*
 * api_type.c - the datatype and reduction-operation entry points: sizes and extents, the
 * contiguous constructors, commit/free, Get_count/Get_elements, user ops, Reduce_local and
 * Type_match_size.
 *
 * The other constructors and queries are in api_type_derived.c, api_type_array.c and
 * api_type_query.c.
 */
#include <limits.h>

#include "api/dfc_api.h"


/* A status that can be read: not NULL and not DFC_STATUS_IGNORE. */
static int check_status(const char *func, const DFC_Status *status)
{
    if (status == DFC_STATUS_IGNORE)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument status: DFC_STATUS_IGNORE");
    return dfc_api_check_ptr(func, "status", status);
}

/* A count as an int, or DFC_UNDEFINED when it does not fit (MPI's rule for the int forms). */
static int count_or_undefined(uint64_t n) { return n > (uint64_t)INT_MAX ? DFC_UNDEFINED : (int)n; }

int DFC_Type_size(DFC_Datatype datatype, int *size)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *dt = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_dtype_lookup(datatype, __func__, "datatype", &dt))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "size", size))) goto fn_fail;
    *size = count_or_undefined(dfc_dtype_mpi_size(dt)); /* MPI's data bytes */
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Type_size_c(DFC_Datatype datatype, DFC_Count *size)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *dt = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_dtype_lookup(datatype, __func__, "datatype", &dt))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "size", size))) goto fn_fail;
    *size = (DFC_Count)dfc_dtype_mpi_size(dt);
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Type_get_extent(DFC_Datatype datatype, DFC_Aint *lb, DFC_Aint *extent)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *dt = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_dtype_lookup(datatype, __func__, "datatype", &dt))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "lb", lb))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "extent", extent))) goto fn_fail;
    *lb = dt->lb;
    *extent = dt->extent;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Type_dup(DFC_Datatype oldtype, DFC_Datatype *newtype)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *old = NULL, *dt = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_dtype_lookup(oldtype, __func__, "oldtype", &old))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "newtype", newtype))) goto fn_fail;
    if ((rc = dfc_dtype_dup(__func__, old, &dt))) goto fn_fail;
    if ((rc = dfc_api_type_attr_dup(oldtype, dt->handle, __func__))) goto fn_fail; /* attrs */
    *newtype = dt->handle;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Type_contiguous(int count, DFC_Datatype oldtype, DFC_Datatype *newtype)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *old = NULL, *dt = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_count(__func__, "count", count))) goto fn_fail;
    if ((rc = dfc_dtype_lookup(oldtype, __func__, "oldtype", &old))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "newtype", newtype))) goto fn_fail;
    if ((rc = dfc_dtype_contiguous(__func__, (size_t)count, old, &dt))) goto fn_fail;
    *newtype = dt->handle;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Type_commit(DFC_Datatype *datatype)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *dt = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "datatype", datatype))) goto fn_fail;
    if ((rc = dfc_dtype_lookup(*datatype, __func__, "datatype", &dt))) goto fn_fail;
    dt->committed = 1; /* layouts are ready when built: commit has nothing to prepare */
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Type_free(DFC_Datatype *datatype)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *dt = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "datatype", datatype))) goto fn_fail;
    if ((rc = dfc_dtype_lookup(*datatype, __func__, "datatype", &dt))) goto fn_fail;
    if (dt->builtin) {
        rc = dfc_err(DFC_ERR_TYPE, __func__,
                     "invalid argument datatype: %s is predefined and cannot be freed", dt->name);
        goto fn_fail;
    }
    if (dt->combiner >= DFC_COMBINER_F90_REAL && dt->combiner <= DFC_COMBINER_F90_INTEGER) {
        rc = dfc_err(DFC_ERR_TYPE, __func__,
                     "invalid argument datatype: a DFC_Type_create_f90_* type is predefined and "
                     "cannot be freed");
        goto fn_fail;
    }
    if ((rc = dfc_api_type_attr_free(*datatype))) goto fn_fail; /* attr hook */
    dfc_dtype_free_handle(dt);
    *datatype = DFC_DATATYPE_NULL;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Type_get_envelope(DFC_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *dt = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_dtype_lookup(datatype, __func__, "datatype", &dt))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "num_integers", num_integers))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "num_addresses", num_addresses))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "num_datatypes", num_datatypes))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "combiner", combiner))) goto fn_fail;
    /* The constructor's arguments as MPI-4.1's table lists them (recorded when built). */
    *combiner = dt->combiner;
    *num_integers = dt->n_ints;
    *num_addresses = dt->n_aints;
    *num_datatypes = dt->n_types;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Get_count(const DFC_Status *status, DFC_Datatype datatype, int *count)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *dt = NULL;
    DFC_API_ENTER();
    if ((rc = check_status(__func__, status))) goto fn_fail;
    if ((rc = dfc_dtype_check(datatype, __func__, "datatype", &dt))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "count", count))) goto fn_fail;
    /* Statuses count bytes as the engine moves them: dt->size per item (see datatype.c). */
    uint64_t bytes = dfc_status_bytes(status);
    if (dt->size == 0) /* MPICH's answer for a zero-size type (agreed by the MPI Forum) */
        *count = bytes ? DFC_UNDEFINED : 0;
    else *count = bytes % dt->size ? DFC_UNDEFINED : count_or_undefined(bytes / dt->size);
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Get_elements(const DFC_Status *status, DFC_Datatype datatype, int *count)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *dt = NULL;
    DFC_API_ENTER();
    if ((rc = check_status(__func__, status))) goto fn_fail;
    if ((rc = dfc_dtype_check(datatype, __func__, "datatype", &dt))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "count", count))) goto fn_fail;
    DFC_Count elements = dfc_dtype_elements_any(dt, dfc_status_bytes(status));
    *count = elements < 0 ? DFC_UNDEFINED : count_or_undefined((uint64_t)elements);
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Op_create(DFC_User_function *user_fn, int commute, DFC_Op *op)
{
    int rc = DFC_SUCCESS;
    dfc_op_t *o = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "user_fn", (const void *)user_fn))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "op", op))) goto fn_fail;
    if ((rc = dfc_op_create(__func__, user_fn, commute, &o))) goto fn_fail;
    *op = o->handle;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Op_free(DFC_Op *op)
{
    int rc = DFC_SUCCESS;
    dfc_op_t *o = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "op", op))) goto fn_fail;
    if ((rc = dfc_op_check(*op, NULL, __func__, "op", &o))) goto fn_fail;
    if (o->builtin) {
        rc = dfc_err(DFC_ERR_OP, __func__,
                     "invalid argument op: %s is predefined and cannot be freed", o->name);
        goto fn_fail;
    }
    dfc_op_free_handle(o);
    *op = DFC_OP_NULL;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Op_commutative(DFC_Op op, int *commute)
{
    int rc = DFC_SUCCESS;
    dfc_op_t *o = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_op_check(op, NULL, __func__, "op", &o))) goto fn_fail;
    if ((rc = dfc_api_check_ptr(__func__, "commute", commute))) goto fn_fail;
    *commute = o->commute;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Reduce_local(const void *inbuf, void *inoutbuf, int count, DFC_Datatype datatype, DFC_Op op)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *dt = NULL;
    dfc_op_t *o = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_count(__func__, "count", count))) goto fn_fail;
    if ((rc = dfc_dtype_check(datatype, __func__, "datatype", &dt))) goto fn_fail;
    if ((rc = dfc_op_check(op, dt, __func__, "op", &o))) goto fn_fail;
    if (inbuf == DFC_IN_PLACE || inoutbuf == DFC_IN_PLACE) {
        rc = dfc_err(DFC_ERR_BUFFER, __func__,
                     "invalid argument %s: DFC_IN_PLACE is not "
                     "allowed in DFC_Reduce_local",
                     inbuf == DFC_IN_PLACE ? "inbuf" : "inoutbuf");
        goto fn_fail;
    }
    if ((rc = dfc_api_check_buf(__func__, "inbuf", inbuf, count))) goto fn_fail;
    if ((rc = dfc_api_check_buf(__func__, "inoutbuf", inoutbuf, count))) goto fn_fail;
    if ((rc = dfc_op_reduce_local(o, dt, inbuf, inoutbuf, (size_t)count))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

/* DFC_Type_match_size: MPI names Fortran's sized types (REAL*n ...), which DFC does not have;
 * like MPICH it answers with the first C type of the class whose size matches. */
int DFC_Type_match_size(int typeclass, int size, DFC_Datatype *datatype)
{
    static const DFC_Datatype reals[] = {DFC_FLOAT, DFC_DOUBLE, DFC_LONG_DOUBLE};
    static const DFC_Datatype ints[] = {DFC_SIGNED_CHAR, DFC_SHORT, DFC_INT, DFC_LONG,
                                        DFC_LONG_LONG};
    static const DFC_Datatype cplx[] = {DFC_C_FLOAT_COMPLEX, DFC_C_DOUBLE_COMPLEX,
                                        DFC_C_LONG_DOUBLE_COMPLEX};
    const DFC_Datatype *list = typeclass == DFC_TYPECLASS_REAL      ? reals
                               : typeclass == DFC_TYPECLASS_INTEGER ? ints
                               : typeclass == DFC_TYPECLASS_COMPLEX ? cplx
                                                                    : NULL;
    size_t n = typeclass == DFC_TYPECLASS_INTEGER ? sizeof ints / sizeof *ints : 3;
    int rc = DFC_SUCCESS;
    DFC_API_ENTER();
    if (!list) {
        rc = dfc_err(DFC_ERR_ARG, __func__,
                     "invalid argument typeclass: %d is not DFC_TYPECLASS_REAL, "
                     "DFC_TYPECLASS_INTEGER or DFC_TYPECLASS_COMPLEX",
                     typeclass);
        goto fn_fail;
    }
    if ((rc = dfc_api_check_ptr(__func__, "datatype", datatype))) goto fn_fail;
    for (size_t i = 0; i < n; i++)
        if (dfc_dtype_mpi_size(dfc_dtype_get(list[i])) == (size_t)size) {
            *datatype = list[i];
            goto fn_exit;
        }
    rc = dfc_err(DFC_ERR_ARG, __func__, "invalid argument size: no predefined %s type has %d bytes",
                 typeclass == DFC_TYPECLASS_REAL      ? "real"
                 : typeclass == DFC_TYPECLASS_INTEGER ? "integer"
                                                      : "complex",
                 size);
fn_fail:
    rc = dfc_api_error(NULL, rc);
fn_exit:
    DFC_API_EXIT();
    return rc;
}
