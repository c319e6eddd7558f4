/*
 * type_errors.c - every bad argument of the datatype and op functions returns its error
 * class under DFC_ERRORS_RETURN, with a message naming the function and the argument; ops
 * are rejected on the types for which MPI does not define them. The library must stay
 * usable after each error.
 */
#include "../dfctest.h"

static void user_fn(void *in, void *inout, int *len, DFC_Datatype *type) {}

static void test_type_errors(void)
{
    DFC_Datatype t, freed, uncommitted;
    int size;
    DFC_Aint lb, extent;
    int ni, na, nd, combiner;

    DFCT_FAILS(DFC_Type_size(DFC_DATATYPE_NULL, &size), DFC_ERR_TYPE,
               "DFC_Type_size: invalid argument datatype: DFC_DATATYPE_NULL");
    DFCT_FAILS(DFC_Type_size(DFC_COMM_WORLD, &size), DFC_ERR_TYPE,
               "DFC_Type_size: invalid argument datatype");
    DFCT_FAILS(DFC_Type_size(DFC_INT, NULL), DFC_ERR_ARG, "DFC_Type_size: invalid argument size");
    DFCT_FAILS(DFC_Type_size_c(DFC_DATATYPE_NULL, NULL), DFC_ERR_TYPE, "DFC_Type_size_c");
    DFCT_FAILS(DFC_Type_get_extent(DFC_INT, NULL, &extent), DFC_ERR_ARG,
               "DFC_Type_get_extent: invalid argument lb");
    DFCT_FAILS(DFC_Type_get_extent(DFC_DATATYPE_NULL, &lb, &extent), DFC_ERR_TYPE,
               "DFC_Type_get_extent: invalid argument datatype");

    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &freed));
    DFCT_OK(DFC_Type_commit(&freed));
    t = freed;
    DFCT_OK(DFC_Type_free(&t));
    DFCT_FAILS(DFC_Type_size(freed, &size), DFC_ERR_TYPE, "freed");
    DFCT_FAILS(DFC_Type_free(&freed), DFC_ERR_TYPE, "DFC_Type_free: invalid argument datatype");
    DFCT_FAILS(DFC_Type_commit(&freed), DFC_ERR_TYPE, "DFC_Type_commit: invalid argument datatype");

    DFCT_FAILS(DFC_Type_contiguous(-1, DFC_INT, &t), DFC_ERR_COUNT,
               "DFC_Type_contiguous: invalid argument count");
    DFCT_FAILS(DFC_Type_contiguous(2, DFC_DATATYPE_NULL, &t), DFC_ERR_TYPE,
               "DFC_Type_contiguous: invalid argument oldtype");
    DFCT_FAILS(DFC_Type_contiguous(2, DFC_INT, NULL), DFC_ERR_ARG,
               "DFC_Type_contiguous: invalid argument newtype");
    DFCT_FAILS(DFC_Type_dup(DFC_DATATYPE_NULL, &t), DFC_ERR_TYPE,
               "DFC_Type_dup: invalid argument oldtype");
    DFCT_FAILS(DFC_Type_dup(DFC_INT, NULL), DFC_ERR_ARG, "DFC_Type_dup: invalid argument newtype");

    DFCT_FAILS(DFC_Type_vector(-1, 1, 1, DFC_INT, &t), DFC_ERR_COUNT,
               "DFC_Type_vector: invalid argument count");
    DFCT_FAILS(DFC_Type_vector(2, -1, 1, DFC_INT, &t), DFC_ERR_ARG,
               "DFC_Type_vector: invalid argument blocklength");
    DFCT_FAILS(DFC_Type_vector(2, 1, 1, DFC_OP_NULL, &t), DFC_ERR_TYPE,
               "DFC_Type_vector: invalid argument oldtype");
    DFCT_FAILS(DFC_Type_vector(4, 1, 3, DFC_DATATYPE_NULL, &t), DFC_ERR_TYPE,
               "DFC_Type_vector: invalid argument oldtype: DFC_DATATYPE_NULL");

    DFCT_FAILS(DFC_Type_commit(NULL), DFC_ERR_ARG, "DFC_Type_commit: invalid argument datatype");
    DFCT_FAILS(DFC_Type_free(NULL), DFC_ERR_ARG, "DFC_Type_free: invalid argument datatype");
    t = DFC_INT;
    DFCT_FAILS(DFC_Type_free(&t), DFC_ERR_TYPE, "DFC_Type_free: invalid argument datatype");
    DFCT_CHECK(t == DFC_INT, "a failed Type_free changed the handle");
    t = DFC_DATATYPE_NULL;
    DFCT_FAILS(DFC_Type_free(&t), DFC_ERR_TYPE, "DFC_DATATYPE_NULL");
    DFCT_FAILS(DFC_Type_get_envelope(DFC_INT, &ni, &na, &nd, NULL), DFC_ERR_ARG,
               "DFC_Type_get_envelope: invalid argument combiner");
    DFCT_FAILS(DFC_Type_get_envelope(DFC_DATATYPE_NULL, &ni, &na, &nd, &combiner), DFC_ERR_TYPE,
               "DFC_Type_get_envelope: invalid argument datatype");

    /* Communication needs a committed type; queries do not. */
    DFCT_OK(DFC_Type_contiguous(3, DFC_INT, &uncommitted));
    DFCT_OK(DFC_Type_size(uncommitted, &size));
    DFC_Status st;
    int count;
    memset(&st, 0, sizeof st);
    DFCT_FAILS(DFC_Get_count(&st, uncommitted, &count), DFC_ERR_TYPE,
               "DFC_Get_count: invalid argument datatype");
    DFCT_FAILS(DFC_Get_count(DFC_STATUS_IGNORE, DFC_INT, &count), DFC_ERR_ARG,
               "DFC_Get_count: invalid argument status");
    DFCT_FAILS(DFC_Get_count(NULL, DFC_INT, &count), DFC_ERR_ARG,
               "DFC_Get_count: invalid argument status");
    DFCT_FAILS(DFC_Get_count(&st, DFC_DATATYPE_NULL, &count), DFC_ERR_TYPE,
               "DFC_Get_count: invalid argument datatype");
    DFCT_FAILS(DFC_Get_count(&st, DFC_INT, NULL), DFC_ERR_ARG,
               "DFC_Get_count: invalid argument count");
    DFCT_FAILS(DFC_Get_elements(DFC_STATUS_IGNORE, DFC_INT, &count), DFC_ERR_ARG,
               "DFC_Get_elements: invalid argument status");
    DFCT_FAILS(DFC_Get_elements(&st, uncommitted, &count), DFC_ERR_TYPE,
               "DFC_Get_elements: invalid argument datatype");
    int in[3] = {1, 2, 3}, io[3] = {0};
    DFCT_FAILS(DFC_Reduce_local(in, io, 1, uncommitted, DFC_SUM), DFC_ERR_TYPE, "committed");
    DFCT_OK(DFC_Type_free(&uncommitted));
}

static void test_op_errors(void)
{
    int in[4] = {1, 2, 3, 4}, io[4] = {0}, commute;
    DFC_Op op, freed;

    DFCT_FAILS(DFC_Reduce_local(in, io, -1, DFC_INT, DFC_SUM), DFC_ERR_COUNT,
               "DFC_Reduce_local: invalid argument count");
    DFCT_FAILS(DFC_Reduce_local(in, io, 1, DFC_DATATYPE_NULL, DFC_SUM), DFC_ERR_TYPE,
               "DFC_Reduce_local: invalid argument datatype");
    DFCT_FAILS(DFC_Reduce_local(in, io, 1, DFC_INT, DFC_OP_NULL), DFC_ERR_OP,
               "DFC_Reduce_local: invalid argument op: DFC_OP_NULL");
    DFCT_FAILS(DFC_Reduce_local(in, io, 1, DFC_INT, DFC_INT), DFC_ERR_OP,
               "DFC_Reduce_local: invalid argument op");
    DFCT_FAILS(DFC_Reduce_local(NULL, io, 2, DFC_INT, DFC_SUM), DFC_ERR_BUFFER,
               "DFC_Reduce_local: invalid argument inbuf");
    DFCT_FAILS(DFC_Reduce_local(in, NULL, 2, DFC_INT, DFC_SUM), DFC_ERR_BUFFER,
               "DFC_Reduce_local: invalid argument inoutbuf");
    DFCT_FAILS(DFC_Reduce_local(DFC_IN_PLACE, io, 2, DFC_INT, DFC_SUM), DFC_ERR_BUFFER,
               "DFC_Reduce_local: invalid argument inbuf");
    DFCT_OK(DFC_Reduce_local(NULL, NULL, 0, DFC_INT, DFC_SUM)); /* nothing to touch */

    /* Ops on types MPI does not define them for (MPI-4.1 §6.9.2). */
    struct {
        DFC_Op op;
        DFC_Datatype type;
        const char *needle;
    } bad[] = {
        {DFC_SUM, DFC_C_BOOL, "DFC_SUM is not defined for DFC_C_BOOL"},
        {DFC_MAX, DFC_BYTE, "DFC_MAX is not defined for DFC_BYTE"},
        {DFC_PROD, DFC_PACKED, "DFC_PROD"},
        {DFC_SUM, DFC_WCHAR, "DFC_WCHAR"},
        {DFC_LAND, DFC_FLOAT, "DFC_LAND is not defined for DFC_FLOAT"},
        {DFC_LOR, DFC_BFLOAT16, "DFC_BFLOAT16"},
        {DFC_LXOR, DFC_BYTE, "DFC_LXOR"},
        {DFC_BAND, DFC_DOUBLE, "DFC_BAND is not defined for DFC_DOUBLE"},
        {DFC_BOR, DFC_C_BOOL, "DFC_BOR"},
        {DFC_BXOR, DFC_FLOAT16, "DFC_BXOR"},
        {DFC_MAXLOC, DFC_INT, "DFC_MAXLOC is not defined for DFC_INT"},
        {DFC_MINLOC, DFC_DOUBLE, "DFC_MINLOC"},
        {DFC_SUM, DFC_2INT, "DFC_SUM is not defined for DFC_2INT"},
        {DFC_MAX, DFC_DOUBLE_INT, "DFC_MAX"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        DFCT_FAILS(DFC_Reduce_local(in, io, 1, bad[k].type, bad[k].op), DFC_ERR_OP, bad[k].needle);
    /* The same rule applies to the elements of a derived type. */
    DFC_Datatype bools;
    DFCT_OK(DFC_Type_contiguous(2, DFC_C_BOOL, &bools));
    DFCT_OK(DFC_Type_commit(&bools));
    DFCT_FAILS(DFC_Reduce_local(in, io, 1, bools, DFC_SUM), DFC_ERR_OP, "DFC_C_BOOL");
    DFCT_OK(DFC_Reduce_local(in, io, 1, bools, DFC_LOR));
    DFCT_OK(DFC_Type_free(&bools));

    DFCT_FAILS(DFC_Op_create(NULL, 1, &op), DFC_ERR_ARG, "DFC_Op_create: invalid argument user_fn");
    DFCT_FAILS(DFC_Op_create(user_fn, 1, NULL), DFC_ERR_ARG, "DFC_Op_create: invalid argument op");
    op = DFC_SUM;
    DFCT_FAILS(DFC_Op_free(&op), DFC_ERR_OP, "DFC_Op_free: invalid argument op");
    DFCT_CHECK(op == DFC_SUM, "a failed Op_free changed the handle");
    DFCT_FAILS(DFC_Op_free(NULL), DFC_ERR_ARG, "DFC_Op_free: invalid argument op");
    DFCT_FAILS(DFC_Op_commutative(DFC_OP_NULL, &commute), DFC_ERR_OP,
               "DFC_Op_commutative: invalid argument op");
    DFCT_FAILS(DFC_Op_commutative(DFC_SUM, NULL), DFC_ERR_ARG,
               "DFC_Op_commutative: invalid argument commute");
    DFCT_OK(DFC_Op_create(user_fn, 0, &freed));
    op = freed;
    DFCT_OK(DFC_Op_free(&op));
    DFCT_FAILS(DFC_Reduce_local(in, io, 1, DFC_INT, freed), DFC_ERR_OP, "freed");
    DFCT_FAILS(DFC_Op_free(&freed), DFC_ERR_OP, "DFC_Op_free: invalid argument op");
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    test_type_errors();
    test_op_errors();
    /* Still usable after all those errors. */
    int in = 2, io = 3;
    DFCT_OK(DFC_Reduce_local(&in, &io, 1, DFC_INT, DFC_PROD));
    DFCT_CHECK(io == 6, "Reduce_local after errors: %d", io);
    return dfct_finalize();
}
