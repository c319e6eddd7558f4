/*
 * f90types.c - MPI-4.1's DFC_Type_create_f90_real/_complex/_integer, DFC_Type_get_value_index
 * and DFC_Get_hw_resource_info (issues 17, 21). Each f90 answer must be the smallest type that
 * meets the precision and range asked for (its size, extent and values), carry the f90
 * combiner and (p, r) in its envelope and contents, be the same handle on an equal call and
 * refuse DFC_Type_free; each value-index pair must be MPI's pair type,
 * any other pair DFC_DATATYPE_NULL; the hardware info must carry the four documented keys with
 * the values sysconf gives. Bad input fails with the class and a message naming the argument,
 * and leaves the output alone.
 */
#include "../dfctest.h"

#include <stdlib.h>
#include <unistd.h>

typedef int (*real_fn)(int, int, DFC_Datatype *);

/* got must have want's size and extent, the f90 combiner with contents ints[0..n), refuse
 * DFC_Type_free, and be what a second equal call returns. */
static void expect(const char *what, int rc, DFC_Datatype got, DFC_Datatype want, int combiner,
                   int n, const int *ints, DFC_Datatype again)
{
    int sz = -1, wsz = -2, ni = -1, na = -1, nd = -1, comb = -1, ci[2] = {-9, -9};
    DFC_Aint lb = -1, ext = -1, wlb = -2, wext = -2, ca[1];
    DFC_Datatype ct[1];
    DFCT_CHECK(rc == DFC_SUCCESS, "%s: rc %d", what, rc);
    if (rc) return;
    DFCT_OK(DFC_Type_size(got, &sz));
    DFCT_OK(DFC_Type_size(want, &wsz));
    DFCT_CHECK(sz == wsz, "%s: size %d, want %d", what, sz, wsz);
    DFCT_OK(DFC_Type_get_extent(got, &lb, &ext));
    DFCT_OK(DFC_Type_get_extent(want, &wlb, &wext));
    DFCT_CHECK(lb == wlb && ext == wext, "%s: lb/extent %ld/%ld, want %ld/%ld", what, (long)lb,
               (long)ext, (long)wlb, (long)wext);
    DFCT_OK(DFC_Type_get_envelope(got, &ni, &na, &nd, &comb));
    DFCT_CHECK(comb == combiner && ni == n && na == 0 && nd == 0,
               "%s: envelope combiner %d (%d, %d, %d), want %d (%d, 0, 0)", what, comb, ni, na, nd,
               combiner, n);
    DFCT_OK(DFC_Type_get_contents(got, 2, 0, 0, ci, ca, ct));
    for (int k = 0; k < n; k++)
        DFCT_CHECK(ci[k] == ints[k], "%s: contents[%d] = %d, want %d", what, k, ci[k], ints[k]);
    DFCT_CHECK(again == got, "%s: a second equal call gave 0x%x, the first 0x%x", what,
               (unsigned)again, (unsigned)got);
    DFC_Datatype t = got;
    DFCT_FAILS(DFC_Type_free(&t), DFC_ERR_TYPE, "predefined and cannot be freed");
    DFCT_CHECK(t == got, "%s: a refused Type_free changed the handle", what);
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
        DFC_Datatype t2 = DFC_DATATYPE_NULL;
        int pr[2] = {cases[i].p, cases[i].r};
        int rc = DFC_Type_create_f90_real(cases[i].p, cases[i].r, &t);
        DFCT_OK(DFC_Type_create_f90_real(cases[i].p, cases[i].r, &t2));
        expect(what, rc, t, real[k], DFC_COMBINER_F90_REAL, 2, pr, t2);
        int sz = -1;
        DFCT_OK(DFC_Type_size(t, &sz));
        DFCT_CHECK(sz == rsz[k], "%s: size %d, want %d", what, sz, rsz[k]);
        t = DFC_DATATYPE_NULL;
        snprintf(what, sizeof what, "f90_complex(%d, %d)", cases[i].p, cases[i].r);
        rc = DFC_Type_create_f90_complex(cases[i].p, cases[i].r, &t);
        DFCT_OK(DFC_Type_create_f90_complex(cases[i].p, cases[i].r, &t2));
        expect(what, rc, t, cplx[k], DFC_COMBINER_F90_COMPLEX, 2, pr, t2);
        DFCT_OK(DFC_Type_size(t, &sz));
        DFCT_CHECK(sz == 2 * rsz[k], "%s: size %d, want %d", what, sz, 2 * rsz[k]);
    }
    /* The type carries reals: 0.5 + 0.25 = 0.75 in a reduction over it. */
    DFC_Datatype d;
    double in = 0.5, io = 0.25;
    DFCT_OK(DFC_Type_create_f90_real(15, 300, &d));
    DFCT_OK(DFC_Reduce_local(&in, &io, 1, d, DFC_SUM));
    DFCT_CHECK(io == 0.75, "f90_real(15, 300): 0.5 + 0.25 = %g", io);
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
        DFC_Datatype t2 = DFC_DATATYPE_NULL;
        int rc = DFC_Type_create_f90_integer(r, &t); /* before t is read */
        DFCT_OK(DFC_Type_create_f90_integer(r, &t2));
        expect(what, rc, t, ints[k], DFC_COMBINER_F90_INTEGER, 1, &r, t2);
        int sz = -1;
        DFCT_OK(DFC_Type_size(t, &sz));
        DFCT_CHECK(sz == 1 << k, "%s: size %d, want %d", what, sz, 1 << k);
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
