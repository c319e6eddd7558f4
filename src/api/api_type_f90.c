/*
 * api_type_f90.c - MPI-4.1's parameterized predefined types (DFC_Type_create_f90_*),
 * DFC_Type_get_value_index and DFC_Get_hw_resource_info.
 *
 * The f90 functions return the predefined type of the smallest C type that meets the
 * requested precision and decimal range (as Fortran's SELECTED_REAL_KIND and
 * SELECTED_INT_KIND choose). As MPI-4.1 asks, the handle is its own type with the layout of
 * that C type, whose envelope is DFC_COMBINER_F90_* with the arguments (p, r) or (r) as
 * contents, and which DFC_Type_free refuses: one handle per distinct call, kept to the end.
 */
#include <float.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "api/dfc_api.h"

/* Fortran's RANGE of a real kind: min(MAX_10_EXP, -MIN_10_EXP). */
#define F90_RANGE(mx, mn) ((mx) < -(mn) ? (mx) : -(mn))

/* The handles made so far, so that equal calls share one (they are never freed). */
#define F90_CACHE 64
static struct {
    int combiner, p, r;
    DFC_Datatype handle;
} f90_cache[F90_CACHE];
static int f90_ncache;

/* The f90 type of (combiner, p, r) with the layout of the named type base. */
static int f90_type(const char *func, int combiner, int p, int r, DFC_Datatype base,
                    DFC_Datatype *newtype)
{
    for (int i = 0; i < f90_ncache; i++) {
        if (f90_cache[i].combiner == combiner && f90_cache[i].p == p && f90_cache[i].r == r) {
            *newtype = f90_cache[i].handle;
            return DFC_SUCCESS;
        }
    }
    dfc_dtype_t *old, *dt;
    int ints[2] = {p, r}, rc;
    int n = combiner == DFC_COMBINER_F90_INTEGER ? 1 : 2;
    if (n == 1) ints[0] = r;
    if ((rc = dfc_dtype_lookup(base, func, "newtype", &old))) return rc;
    dfc_dtype_args_t args = {.combiner = combiner, .n_ints = n, .ints = ints, .publish = 1};
    if ((rc = dfc_dtype_resized(func, old, old->lb, old->extent, &args, &dt))) return rc;
    dt->committed = 1; /* predefined types need no commit */
    if (f90_ncache < F90_CACHE) {
        f90_cache[f90_ncache].combiner = combiner;
        f90_cache[f90_ncache].p = p;
        f90_cache[f90_ncache].r = r;
        f90_cache[f90_ncache++].handle = dt->handle;
    }
    *newtype = dt->handle;
    return DFC_SUCCESS;
}

static int pick_real(const char *func, int p, int r, int cplx, DFC_Datatype *newtype)
{
    static const DFC_Datatype reals[3] = {DFC_FLOAT, DFC_DOUBLE, DFC_LONG_DOUBLE};
    static const DFC_Datatype cplxs[3] = {DFC_COMPLEX, DFC_DOUBLE_COMPLEX,
                                          DFC_C_LONG_DOUBLE_COMPLEX};
    const int prec[3] = {FLT_DIG, DBL_DIG, LDBL_DIG};
    const int range[3] = {F90_RANGE(FLT_MAX_10_EXP, FLT_MIN_10_EXP),
                          F90_RANGE(DBL_MAX_10_EXP, DBL_MIN_10_EXP),
                          F90_RANGE(LDBL_MAX_10_EXP, LDBL_MIN_10_EXP)};
    int rc = dfc_api_check_ptr(func, "newtype", newtype);
    if (rc) return rc;
    if (p == DFC_UNDEFINED && r == DFC_UNDEFINED)
        return dfc_err(DFC_ERR_ARG, func,
                       "invalid arguments p and r: both are DFC_UNDEFINED (one must be given)");
    if (p != DFC_UNDEFINED && p < 0)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument p: %d is negative", p);
    if (r != DFC_UNDEFINED && r < 0)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument r: %d is negative", r);
    for (int i = 0; i < 3; i++) {
        if ((p == DFC_UNDEFINED || p <= prec[i]) && (r == DFC_UNDEFINED || r <= range[i])) {
            return f90_type(func, cplx ? DFC_COMBINER_F90_COMPLEX : DFC_COMBINER_F90_REAL, p, r,
                            cplx ? cplxs[i] : reals[i], newtype);
        }
    }
    return dfc_err(DFC_ERR_ARG, func,
                   "invalid arguments p=%d, r=%d: no type has that precision and range (the "
                   "largest, long double, has precision %d and range %d)",
                   p, r, prec[2], range[2]);
}

int DFC_Type_create_f90_real(int p, int r, DFC_Datatype *newtype)
{
    API_BODY(rc = pick_real(__func__, p, r, 0, newtype));
}

int DFC_Type_create_f90_complex(int p, int r, DFC_Datatype *newtype)
{
    API_BODY(rc = pick_real(__func__, p, r, 1, newtype));
}

/* Decimal digits each width holds in full: int8 to 10^2, int16 10^4, int32 10^9, int64 10^18. */
static int pick_integer(const char *func, int r, DFC_Datatype *newtype)
{
    static const DFC_Datatype ints[4] = {DFC_INT8_T, DFC_INT16_T, DFC_INT32_T, DFC_INT64_T};
    static const int range[4] = {2, 4, 9, 18};
    int rc = dfc_api_check_ptr(func, "newtype", newtype);
    if (rc) return rc;
    if (r == DFC_UNDEFINED || r < 0)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument r: %d is %s", r,
                       r == DFC_UNDEFINED ? "DFC_UNDEFINED (a range must be given)" : "negative");
    for (int i = 0; i < 4; i++) {
        if (r <= range[i]) {
            return f90_type(func, DFC_COMBINER_F90_INTEGER, DFC_UNDEFINED, r, ints[i], newtype);
        }
    }
    return dfc_err(DFC_ERR_ARG, func,
                   "invalid argument r: %d decimal digits exceed the largest integer type "
                   "(int64_t, 18 digits)",
                   r);
}

int DFC_Type_create_f90_integer(int r, DFC_Datatype *newtype)
{
    API_BODY(rc = pick_integer(__func__, r, newtype));
}

/* MPI-4.1 Table 6.3: the pair types of MINLOC/MAXLOC; any other pair is DFC_DATATYPE_NULL. */
static int value_index(const char *func, DFC_Datatype value_type, DFC_Datatype index_type,
                       DFC_Datatype *pair_type)
{
    static const DFC_Datatype values[6] = {DFC_FLOAT, DFC_DOUBLE, DFC_LONG,
                                           DFC_INT,   DFC_SHORT,  DFC_LONG_DOUBLE};
    static const DFC_Datatype pairs[6] = {DFC_FLOAT_INT, DFC_DOUBLE_INT, DFC_LONG_INT,
                                          DFC_2INT,      DFC_SHORT_INT,  DFC_LONG_DOUBLE_INT};
    dfc_dtype_t *dt;
    int rc;
    if ((rc = dfc_dtype_lookup(value_type, func, "value_type", &dt)) ||
        (rc = dfc_dtype_lookup(index_type, func, "index_type", &dt)) ||
        (rc = dfc_api_check_ptr(func, "pair_type", pair_type)))
        return rc;
    *pair_type = DFC_DATATYPE_NULL;
    if (index_type != DFC_INT) return DFC_SUCCESS;
    for (int i = 0; i < 6; i++)
        if (value_type == values[i]) *pair_type = pairs[i];
    return DFC_SUCCESS;
}

int DFC_Type_get_value_index(DFC_Datatype value_type, DFC_Datatype index_type,
                             DFC_Datatype *pair_type)
{
    API_BODY(rc = value_index(__func__, value_type, index_type, pair_type));
}

/* The keys are documented in DFC_Get_hw_resource_info(3); values come from sysconf and the
 * process's CPU affinity mask, so they say what this process may use now. */
static int hw_info_fill(dfc_info_t *info)
{
    char v[32];
    cpu_set_t set;
    int rc;
    snprintf(v, sizeof v, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    if ((rc = dfc_info_put(info, "dfc_hw_cpus_online", v))) return rc;
    long allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                               : sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(v, sizeof v, "%ld", allowed);
    if ((rc = dfc_info_put(info, "dfc_hw_cpus_allowed", v))) return rc;
    snprintf(v, sizeof v, "%ld", sysconf(_SC_PAGESIZE));
    if ((rc = dfc_info_put(info, "dfc_hw_page_size", v))) return rc;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    snprintf(v, sizeof v, "%lld", pages > 0 && psz > 0 ? (long long)pages * psz : 0LL);
    return dfc_info_put(info, "dfc_hw_memory_bytes", v);
}

static int hw_info(const char *func, DFC_Info *hw_info_out)
{
    int rc = dfc_api_check_ptr(func, "hw_info", hw_info_out);
    if (rc) return rc;
    dfc_info_t *info = dfc_info_new();
    if (!info) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for an info object");
    if ((rc = hw_info_fill(info))) {
        dfc_info_destroy(info);
        return rc;
    }
    int h = dfc_htable_add(&dfc_info_table, info);
    if (!h) {
        dfc_info_destroy(info);
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for an info handle");
    }
    info->handle = h;
    *hw_info_out = h;
    return DFC_SUCCESS;
}

int DFC_Get_hw_resource_info(DFC_Info *hw_info_out)
{
    API_BODY(rc = hw_info(__func__, hw_info_out));
}
