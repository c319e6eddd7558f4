/*
 * f90types.c - MPI-4.1's DFC_Type_create_f90_real/_complex/_integer, DFC_Type_get_value_index
 * and DFC_Get_hw_resource_info (issues 17, 21). Each f90 answer must be the smallest type that
 * meets the precision and range asked for (checked by handle and by DFC_Type_size), be named
 * (DFC_COMBINER_NAMED) and refuse DFC_Type_free; each value-index pair must be MPI's pair type,
 * any other pair DFC_DATATYPE_NULL; the hardware info must carry the four documented keys with
 * the values sysconf gives. Bad input fails with the class and a message naming the argument,
 * and leaves the output alone.
 */
#include "../dfctest.h"

#include <stdlib.h>
#include <unistd.h>

typedef int (*real_fn)(int, int, DFC_Datatype *);

static void expect(const char *what, int rc, DFC_Datatype got, DFC_Datatype want, int size)
{
    int sz = -1, ni = -1, na = -1, nd = -1, comb = -1;
    DFCT_CHECK(rc == DFC_SUCCESS, "%s: rc %d", what, rc);
    DFCT_CHECK(got == want, "%s: got 0x%x, want 0x%x", what, (unsigned)got, (unsigned)want);
    DFCT_OK(DFC_Type_size(got, &sz));
    DFCT_CHECK(sz == size, "%s: size %d, want %d", what, sz, size);
    DFCT_OK(DFC_Type_get_envelope(got, &ni, &na, &nd, &comb));
    DFCT_CHECK(comb == DFC_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0,
               "%s: combiner %d (%d, %d, %d), want DFC_COMBINER_NAMED", what, comb, ni, na, nd);
    DFC_Datatype t = got;
    DFCT_FAILS(DFC_Type_free(&t), DFC_ERR_TYPE, "predefined");
}

static void test_reals(void)
{
    static const struct {
        int p, r, idx;
    } cases[] = {{6, 37, 0},
                 {DFC_UNDEFINED, 30, 0},
                 {6, DFC_UNDEFINED, 0},
                 {7, 1, 1},
                 {6, 38, 1},
                 {15, 307, 1},
                 {16, 10, 2},
                 {15, 308, 2},
                 {18, 4931, 2},
                 {0, 0, 0}};
    static const DFC_Datatype real[3] = {DFC_FLOAT, DFC_DOUBLE, DFC_LONG_DOUBLE};
    static const DFC_Datatype cplx[3] = {DFC_COMPLEX, DFC_DOUBLE_COMPLEX,
                                         DFC_C_LONG_DOUBLE_COMPLEX};
    const int rsz[3] = {4, 8, (int)sizeof(long double)};
    char what[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        DFC_Datatype t = DFC_DATATYPE_NULL;
        int k = cases[i].idx;
        snprintf(what, sizeof what, "f90_real(%d, %d)", cases[i].p, cases[i].r);
        int rc = DFC_Type_create_f90_real(cases[i].p, cases[i].r, &t);
        expect(what, rc, t, real[k], rsz[k]);
        t = DFC_DATATYPE_NULL;
        snprintf(what, sizeof what, "f90_complex(%d, %d)", cases[i].p, cases[i].r);
        rc = DFC_Type_create_f90_complex(cases[i].p, cases[i].r, &t);
        expect(what, rc, t, cplx[k], 2 * rsz[k]);
    }
    real_fn fns[2] = {DFC_Type_create_f90_real, DFC_Type_create_f90_complex};
    for (int f = 0; f < 2; f++) {
        DFC_Datatype t = DFC_INT;
        DFCT_FAILS(fns[f](19, DFC_UNDEFINED, &t), DFC_ERR_ARG,
                   "invalid arguments p=19, r=-32766: no type has that precision and range");
        DFCT_FAILS(fns[f](DFC_UNDEFINED, 4933, &t), DFC_ERR_ARG, "no type has that precision");
        DFCT_FAILS(fns[f](DFC_UNDEFINED, DFC_UNDEFINED, &t), DFC_ERR_ARG,
                   "invalid arguments p and r: both are DFC_UNDEFINED");
        DFCT_FAILS(fns[f](-1, 5, &t), DFC_ERR_ARG, "invalid argument p: -1 is negative");
        DFCT_FAILS(fns[f](5, -2, &t), DFC_ERR_ARG, "invalid argument r: -2 is negative");
        DFCT_FAILS(fns[f](6, 30, NULL), DFC_ERR_ARG, "invalid argument newtype");
        DFCT_CHECK(t == DFC_INT, "a failed call changed the output to 0x%x", (unsigned)t);
    }
    DFC_Datatype t;
    DFCT_FAILS(DFC_Type_create_f90_complex(19, 1, &t), DFC_ERR_ARG, "DFC_Type_create_f90_complex");
    DFCT_FAILS(DFC_Type_create_f90_real(19, 1, &t), DFC_ERR_ARG, "DFC_Type_create_f90_real");
}

static void test_integers(void)
{
    static const DFC_Datatype ints[4] = {DFC_INT8_T, DFC_INT16_T, DFC_INT32_T, DFC_INT64_T};
    static const int limit[4] = {2, 4, 9, 18};
    char what[64];
    for (int r = 0; r <= 18; r++) {
        int k = 0;
        while (r > limit[k]) k++;
        DFC_Datatype t = DFC_DATATYPE_NULL;
        snprintf(what, sizeof what, "f90_integer(%d)", r);
        int rc = DFC_Type_create_f90_integer(r, &t); /* before t is read */
        expect(what, rc, t, ints[k], 1 << k);
    }
    DFC_Datatype t = DFC_INT;
    DFCT_FAILS(DFC_Type_create_f90_integer(19, &t), DFC_ERR_ARG,
               "DFC_Type_create_f90_integer: invalid argument r: 19 decimal digits exceed");
    DFCT_FAILS(DFC_Type_create_f90_integer(-1, &t), DFC_ERR_ARG,
               "DFC_Type_create_f90_integer: invalid argument r: -1 is negative");
    DFCT_FAILS(DFC_Type_create_f90_integer(DFC_UNDEFINED, &t), DFC_ERR_ARG,
               "invalid argument r: -32766 is DFC_UNDEFINED");
    DFCT_FAILS(DFC_Type_create_f90_integer(4, NULL), DFC_ERR_ARG,
               "DFC_Type_create_f90_integer: invalid argument newtype");
    DFCT_CHECK(t == DFC_INT, "a failed call changed the output to 0x%x", (unsigned)t);
}

static void test_value_index(void)
{
    static const DFC_Datatype vals[6] = {DFC_FLOAT, DFC_DOUBLE, DFC_LONG,
                                         DFC_INT,   DFC_SHORT,  DFC_LONG_DOUBLE};
    static const DFC_Datatype pairs[6] = {DFC_FLOAT_INT, DFC_DOUBLE_INT, DFC_LONG_INT,
                                          DFC_2INT,      DFC_SHORT_INT,  DFC_LONG_DOUBLE_INT};
    for (int i = 0; i < 6; i++) {
        DFC_Datatype p = DFC_BYTE;
        DFCT_OK(DFC_Type_get_value_index(vals[i], DFC_INT, &p));
        DFCT_CHECK(p == pairs[i], "pair %d: got 0x%x, want 0x%x", i, (unsigned)p,
                   (unsigned)pairs[i]);
        p = DFC_BYTE; /* not DFC_INT as index: no pair type */
        DFCT_OK(DFC_Type_get_value_index(vals[i], DFC_LONG, &p));
        DFCT_CHECK(p == DFC_DATATYPE_NULL, "pair %d with DFC_LONG index: got 0x%x", i, (unsigned)p);
    }
    DFC_Datatype p = DFC_BYTE, v;
    DFCT_OK(DFC_Type_get_value_index(DFC_CHAR, DFC_INT, &p));
    DFCT_CHECK(p == DFC_DATATYPE_NULL, "(DFC_CHAR, DFC_INT): got 0x%x", (unsigned)p);
    DFCT_OK(DFC_Type_contiguous(1, DFC_FLOAT, &v)); /* derived, same layout: still no pair */
    p = DFC_BYTE;
    DFCT_OK(DFC_Type_get_value_index(v, DFC_INT, &p));
    DFCT_CHECK(p == DFC_DATATYPE_NULL, "(contiguous float, DFC_INT): got 0x%x", (unsigned)p);
    DFCT_OK(DFC_Type_free(&v));
    DFCT_FAILS(DFC_Type_get_value_index(DFC_DATATYPE_NULL, DFC_INT, &p), DFC_ERR_TYPE,
               "DFC_Type_get_value_index: invalid argument value_type");
    DFCT_FAILS(DFC_Type_get_value_index(DFC_FLOAT, DFC_DATATYPE_NULL, &p), DFC_ERR_TYPE,
               "DFC_Type_get_value_index: invalid argument index_type");
    DFCT_FAILS(DFC_Type_get_value_index(DFC_FLOAT, DFC_INT, NULL), DFC_ERR_ARG,
               "DFC_Type_get_value_index: invalid argument pair_type");
}

static void check_key(DFC_Info info, const char *key, long want)
{
    char val[DFC_MAX_INFO_VAL + 1] = "poison";
    int len = sizeof val, flag = 0;
    DFCT_OK(DFC_Info_get_string(info, key, &len, val, &flag));
    DFCT_CHECK(flag, "hw info lacks %s", key);
    if (!flag) return;
    char *end;
    long got = strtol(val, &end, 10);
    DFCT_CHECK(*end == '\0' && got > 0, "%s = \"%s\" is not a positive integer", key, val);
    if (want > 0) DFCT_CHECK(got == want, "%s = %ld, sysconf says %ld", key, got, want);
}

static void test_hw_info(void)
{
    DFC_Info info = DFC_INFO_NULL;
    int n = -1;
    DFCT_OK(DFC_Get_hw_resource_info(&info));
    DFCT_CHECK(info != DFC_INFO_NULL, "no info object returned");
    DFCT_OK(DFC_Info_get_nkeys(info, &n));
    DFCT_CHECK(n == 4, "hw info has %d keys, want 4", n);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), psz = sysconf(_SC_PAGESIZE);
    check_key(info, "dfc_hw_cpus_online", cpus);
    check_key(info, "dfc_hw_cpus_allowed", 0);
    check_key(info, "dfc_hw_page_size", psz);
    check_key(info, "dfc_hw_memory_bytes", sysconf(_SC_PHYS_PAGES) * psz);
    DFCT_OK(DFC_Info_free(&info));
    DFCT_FAILS(DFC_Get_hw_resource_info(NULL), DFC_ERR_ARG,
               "DFC_Get_hw_resource_info: invalid argument hw_info");
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    test_reals();
    test_integers();
    test_value_index();
    test_hw_info();
    return dfct_finalize();
}
