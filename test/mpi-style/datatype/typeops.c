/*
 * typeops.c - datatype queries and constructors: sizes and extents of every predefined
 * type (pair types with MPI's struct padding), contiguous (nested) and dup, vector when it
 * is contiguous, commit/free, envelopes, op commutativity, and Get_count/Get_elements on
 * statuses from a send to self on DFC_COMM_SELF.
 */
#include <stdint.h>
#include <wchar.h>

#include "../dfctest.h"

typedef struct {
    float v;
    int i;
} float_int_t;
typedef struct {
    double v;
    int i;
} double_int_t;
typedef struct {
    long v;
    int i;
} long_int_t;
typedef struct {
    int v;
    int i;
} two_int_t;
typedef struct {
    short v;
    int i;
} short_int_t;
typedef struct {
    long double v;
    int i;
} long_double_int_t;

static void check_type(DFC_Datatype t, const char *name, size_t size, size_t extent)
{
    int isize = -1;
    DFC_Count csize = -1;
    DFC_Aint lb = -1, ext = -1;
    int ni = -1, na = -1, nd = -1, combiner = -1;
    DFCT_OK(DFC_Type_size(t, &isize));
    DFCT_OK(DFC_Type_size_c(t, &csize));
    DFCT_OK(DFC_Type_get_extent(t, &lb, &ext));
    DFCT_CHECK(isize == (int)size && csize == (DFC_Count)size, "%s: size %d, want %zu", name, isize,
               size);
    DFCT_CHECK(lb == 0 && ext == (DFC_Aint)extent, "%s: lb %ld extent %ld, want 0 %zu", name,
               (long)lb, (long)ext, extent);
    DFCT_OK(DFC_Type_get_envelope(t, &ni, &na, &nd, &combiner));
    DFCT_CHECK(combiner == DFC_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0,
               "%s: envelope %d %d %d combiner %d", name, ni, na, nd, combiner);
}

#define SCALAR(T, DT) check_type(DT, #DT, sizeof(T), sizeof(T))
#define PAIR(VT, PT, DT) check_type(DT, #DT, sizeof(VT) + sizeof(int), sizeof(PT))

static void test_predefined(void)
{
    SCALAR(char, DFC_CHAR);
    SCALAR(signed char, DFC_SIGNED_CHAR);
    SCALAR(unsigned char, DFC_UNSIGNED_CHAR);
    SCALAR(unsigned char, DFC_BYTE);
    SCALAR(short, DFC_SHORT);
    SCALAR(unsigned short, DFC_UNSIGNED_SHORT);
    SCALAR(int, DFC_INT);
    SCALAR(unsigned, DFC_UNSIGNED);
    SCALAR(long, DFC_LONG);
    SCALAR(unsigned long, DFC_UNSIGNED_LONG);
    SCALAR(long long, DFC_LONG_LONG_INT);
    SCALAR(long long, DFC_LONG_LONG);
    SCALAR(unsigned long long, DFC_UNSIGNED_LONG_LONG);
    SCALAR(float, DFC_FLOAT);
    SCALAR(double, DFC_DOUBLE);
    SCALAR(long double, DFC_LONG_DOUBLE);
    SCALAR(int8_t, DFC_INT8_T);
    SCALAR(int16_t, DFC_INT16_T);
    SCALAR(int32_t, DFC_INT32_T);
    SCALAR(int64_t, DFC_INT64_T);
    SCALAR(uint8_t, DFC_UINT8_T);
    SCALAR(uint16_t, DFC_UINT16_T);
    SCALAR(uint32_t, DFC_UINT32_T);
    SCALAR(uint64_t, DFC_UINT64_T);
    SCALAR(_Bool, DFC_C_BOOL);
    SCALAR(wchar_t, DFC_WCHAR);
    SCALAR(uint16_t, DFC_BFLOAT16);
    SCALAR(uint16_t, DFC_FLOAT16);
    SCALAR(DFC_Aint, DFC_AINT);
    SCALAR(DFC_Offset, DFC_OFFSET);
    SCALAR(DFC_Count, DFC_COUNT);
    SCALAR(char, DFC_PACKED);
    PAIR(float, float_int_t, DFC_FLOAT_INT);
    PAIR(double, double_int_t, DFC_DOUBLE_INT);
    PAIR(long, long_int_t, DFC_LONG_INT);
    PAIR(int, two_int_t, DFC_2INT);
    PAIR(short, short_int_t, DFC_SHORT_INT);
    PAIR(long double, long_double_int_t, DFC_LONG_DOUBLE_INT);
}

static void expect_derived(DFC_Datatype t, const char *what, int size, DFC_Aint extent,
                           int combiner, int nints, int ntypes)
{
    int s = -1, ni = -1, na = -1, nd = -1, c = -1;
    DFC_Aint lb = -1, ext = -1;
    DFCT_OK(DFC_Type_size(t, &s));
    DFCT_OK(DFC_Type_get_extent(t, &lb, &ext));
    DFCT_OK(DFC_Type_get_envelope(t, &ni, &na, &nd, &c));
    DFCT_CHECK(s == size && lb == 0 && ext == extent, "%s: size %d extent %ld, want %d %ld", what,
               s, (long)ext, size, (long)extent);
    DFCT_CHECK(c == combiner && ni == nints && na == 0 && nd == ntypes,
               "%s: envelope %d %d %d combiner %d", what, ni, na, nd, c);
}

static void test_constructors(void)
{
    DFC_Datatype c3, c3x2, d, dd, z, v, v1, pairs;
    DFCT_OK(DFC_Type_contiguous(3, DFC_INT, &c3));
    expect_derived(c3, "contiguous(3, INT)", 12, 12, DFC_COMBINER_CONTIGUOUS, 1, 1);
    DFCT_OK(DFC_Type_contiguous(2, c3, &c3x2)); /* from an uncommitted type: allowed */
    expect_derived(c3x2, "contiguous(2, contiguous(3, INT))", 24, 24, DFC_COMBINER_CONTIGUOUS, 1,
                   1);
    DFCT_OK(DFC_Type_dup(c3x2, &d));
    expect_derived(d, "dup", 24, 24, DFC_COMBINER_DUP, 0, 1);
    DFCT_OK(DFC_Type_dup(DFC_DOUBLE, &dd));
    expect_derived(dd, "dup(DOUBLE)", 8, 8, DFC_COMBINER_DUP, 0, 1);
    DFCT_OK(DFC_Type_contiguous(0, DFC_DOUBLE, &z));
    expect_derived(z, "contiguous(0, DOUBLE)", 0, 0, DFC_COMBINER_CONTIGUOUS, 1, 1);
    DFCT_OK(DFC_Type_contiguous(4, DFC_SHORT_INT, &pairs)); /* extent keeps the padding */
    expect_derived(pairs, "contiguous(4, SHORT_INT)", 4 * (int)(sizeof(short) + sizeof(int)),
                   4 * (DFC_Aint)sizeof(short_int_t), DFC_COMBINER_CONTIGUOUS, 1, 1);
    /* A vector whose stride equals its block length has a contiguous layout, and so has one
     * block; both report the vector combiner with its three integers. */
    DFCT_OK(DFC_Type_vector(3, 2, 2, DFC_INT, &v));
    expect_derived(v, "vector(3, 2, 2, INT)", 24, 24, DFC_COMBINER_VECTOR, 3, 1);
    DFCT_OK(DFC_Type_vector(1, 5, 100, DFC_FLOAT, &v1));
    expect_derived(v1, "vector(1, 5, 100, FLOAT)", 20, 20, DFC_COMBINER_VECTOR, 3, 1);

    /* Commit is idempotent and legal on predefined types; free resets the handle. */
    DFC_Datatype dbl = DFC_DOUBLE;
    DFCT_OK(DFC_Type_commit(&dbl));
    DFCT_CHECK(dbl == DFC_DOUBLE, "commit changed a predefined handle");
    DFCT_OK(DFC_Type_commit(&c3x2));
    DFCT_OK(DFC_Type_commit(&c3x2));
    DFC_Datatype all[] = {c3, c3x2, d, dd, z, pairs, v, v1};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        DFCT_OK(DFC_Type_free(&all[k]));
        DFCT_CHECK(all[k] == DFC_DATATYPE_NULL, "Type_free did not reset handle %zu", k);
    }
    /* Freed handles are reused without confusion: many create/free cycles. */
    for (int k = 0; k < 1000; k++) {
        DFC_Datatype t;
        int s = 0;
        DFCT_OK(DFC_Type_contiguous(k, DFC_CHAR, &t));
        DFCT_OK(DFC_Type_size(t, &s));
        DFCT_CHECK(s == k, "cycle %d: size %d", k, s);
        DFCT_OK(DFC_Type_free(&t));
    }
}

static void never_called(void *in, void *inout, int *len, DFC_Datatype *type)
{
    dfct_fail_at(__FILE__, __LINE__, "the user op was called");
}

static void test_ops(void)
{
    static const DFC_Op builtin[] = {DFC_MAX, DFC_MIN, DFC_SUM,  DFC_PROD, DFC_LAND,   DFC_BAND,
                                     DFC_LOR, DFC_BOR, DFC_LXOR, DFC_BXOR, DFC_MAXLOC, DFC_MINLOC};
    int commute = -1;
    for (size_t k = 0; k < sizeof builtin / sizeof builtin[0]; k++) {
        DFCT_OK(DFC_Op_commutative(builtin[k], &commute));
        DFCT_CHECK(commute == 1, "predefined op #%zu reports commute %d", k, commute);
    }
    DFC_Op op;
    DFCT_OK(DFC_Op_create(never_called, 1, &op));
    DFCT_OK(DFC_Op_commutative(op, &commute));
    DFCT_CHECK(commute == 1, "commutative user op reports %d", commute);
    DFCT_OK(DFC_Op_free(&op));
    DFCT_CHECK(op == DFC_OP_NULL, "Op_free did not reset the handle");
}

/* Get_count and Get_elements on statuses of messages sent to self. */
static void test_counts(void)
{
    DFC_Status st;
    int count = -1, elements = -1;
    int ints[5] = {1, 2, 3, 4, 5}, rints[8] = {0};
    DFC_Datatype pair_of_ints;
    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &pair_of_ints));
    DFCT_OK(DFC_Type_commit(&pair_of_ints));

    DFCT_OK(DFC_Sendrecv(ints, 5, DFC_INT, 0, 1, rints, 8, DFC_INT, 0, 1, DFC_COMM_SELF, &st));
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
    DFCT_CHECK(count == 5, "Get_count(INT) = %d, want 5", count);
    DFCT_OK(DFC_Get_count(&st, DFC_BYTE, &count));
    DFCT_CHECK(count == 5 * (int)sizeof(int), "Get_count(BYTE) = %d", count);
    DFCT_OK(DFC_Get_count(&st, pair_of_ints, &count)); /* 5 ints: 2.5 items */
    DFCT_CHECK(count == DFC_UNDEFINED, "Get_count(2 INT) = %d, want DFC_UNDEFINED", count);
    DFCT_OK(DFC_Get_elements(&st, pair_of_ints, &elements));
    DFCT_CHECK(elements == 5, "Get_elements(2 INT) = %d, want 5", elements);
    DFCT_OK(DFC_Get_count(&st, DFC_DOUBLE, &count)); /* 20 bytes are not whole doubles */
    DFCT_CHECK(count == DFC_UNDEFINED, "Get_count(DOUBLE) = %d, want DFC_UNDEFINED", count);
    DFCT_CHECK(rints[4] == 5 && rints[5] == 0, "Sendrecv data");

    /* Pair types: 3 DOUBLE_INT arrive whole (padding and all) and count as 6 elements. */
    double_int_t p[3] = {{1.5, 10}, {2.5, 20}, {3.5, 30}}, q[3];
    memset(q, 0, sizeof q);
    DFCT_OK(
        DFC_Sendrecv(p, 3, DFC_DOUBLE_INT, 0, 2, q, 3, DFC_DOUBLE_INT, 0, 2, DFC_COMM_SELF, &st));
    DFCT_OK(DFC_Get_count(&st, DFC_DOUBLE_INT, &count));
    DFCT_CHECK(count == 3, "Get_count(DOUBLE_INT) = %d, want 3", count);
    DFCT_OK(DFC_Get_elements(&st, DFC_DOUBLE_INT, &elements));
    DFCT_CHECK(elements == 6, "Get_elements(DOUBLE_INT) = %d, want 6", elements);
    for (int k = 0; k < 3; k++)
        DFCT_CHECK(q[k].v == p[k].v && q[k].i == p[k].i, "DOUBLE_INT %d: (%g, %d)", k, q[k].v,
                   q[k].i);

    /* An empty message: count 0 for any type, zero-size types included. */
    DFC_Datatype empty;
    DFCT_OK(DFC_Type_contiguous(0, DFC_INT, &empty));
    DFCT_OK(DFC_Type_commit(&empty));
    DFCT_OK(DFC_Sendrecv(NULL, 0, DFC_INT, 0, 3, NULL, 0, DFC_INT, 0, 3, DFC_COMM_SELF, &st));
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
    DFCT_CHECK(count == 0, "empty Get_count = %d", count);
    DFCT_OK(DFC_Get_count(&st, empty, &count));
    DFCT_CHECK(count == 0, "empty Get_count(zero-size type) = %d", count);
    DFCT_OK(DFC_Get_elements(&st, DFC_INT, &elements));
    DFCT_CHECK(elements == 0, "empty Get_elements = %d", elements);
    DFCT_OK(DFC_Type_free(&empty));
    DFCT_OK(DFC_Type_free(&pair_of_ints));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    test_predefined();
    test_constructors();
    test_ops();
    test_counts();
    return dfct_finalize();
}
