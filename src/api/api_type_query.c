/*
 * api_type_query.c - queries on datatypes (true extent, the _x forms, contents, names),
 * addresses, and Pack/Unpack with their "external32" forms.
 *
 * external32 is big-endian with MPI's fixed sizes; on the LP64 hosts DFC runs on, every
 * scalar type except long double already has its external32 size, so DFC converts the byte
 * order of each element. Types that mix predefined types, pair types and long double are
 * refused with DFC_ERR_UNSUPPORTED_OPERATION.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/dfc_api.h"

static int extent_query(const char *func, DFC_Datatype datatype, int true_, const char *a,
                        const char *b, DFC_Aint *lb, DFC_Aint *extent)
{
    int rc;
    dfc_dtype_t *dt;
    if ((rc = dfc_dtype_lookup(datatype, func, "datatype", &dt)) ||
        (rc = dfc_api_check_ptr(func, a, lb)) || (rc = dfc_api_check_ptr(func, b, extent)))
        return rc;
    *lb = true_ ? dt->true_lb : dt->lb;
    *extent = true_ ? dt->true_extent : dt->extent;
    return DFC_SUCCESS;
}

int DFC_Type_get_true_extent(DFC_Datatype datatype, DFC_Aint *true_lb, DFC_Aint *true_extent)
{
    API_BODY(
        rc = extent_query(__func__, datatype, 1, "true_lb", "true_extent", true_lb, true_extent));
}

int DFC_Type_get_extent_x(DFC_Datatype datatype, DFC_Count *lb, DFC_Count *extent)
{
    DFC_Aint l = 0, e = 0;
    API_BODY(if (!(rc = extent_query(__func__, datatype, 0, "lb", "extent", &l, &e))) {
        *lb = l;
        *extent = e;
    });
}

int DFC_Type_get_true_extent_x(DFC_Datatype datatype, DFC_Count *true_lb, DFC_Count *true_extent)
{
    DFC_Aint l = 0, e = 0;
    API_BODY(if (!(rc = extent_query(__func__, datatype, 1, "true_lb", "true_extent", &l, &e))) {
        *true_lb = l;
        *true_extent = e;
    });
}

int DFC_Type_size_x(DFC_Datatype datatype, DFC_Count *size)
{
    dfc_dtype_t *dt;
    API_BODY(if (!(rc = dfc_dtype_lookup(datatype, __func__, "datatype", &dt)) &&
                 !(rc = dfc_api_check_ptr(__func__, "size",
                                          size))) *size = (DFC_Count)dfc_dtype_mpi_size(dt));
}

static int contents_common(const char *func, DFC_Datatype datatype, int max_i, int max_a, int max_d,
                           int *ints, DFC_Aint *aints, DFC_Datatype *types)
{
    int rc;
    dfc_dtype_t *dt;
    if ((rc = dfc_dtype_lookup(datatype, func, "datatype", &dt))) return rc;
    if (dt->builtin)
        return dfc_err(DFC_ERR_TYPE, func,
                       "invalid argument datatype: %s is predefined (combiner "
                       "DFC_COMBINER_NAMED has no contents)",
                       dfc_dtype_name(dt));
    if (max_i < dt->n_ints || max_a < dt->n_aints || max_d < dt->n_types)
        return dfc_err(DFC_ERR_ARG, func,
                       "invalid arguments max_integers, max_addresses, max_datatypes: %d, %d, %d "
                       "are less than the %d, %d, %d that DFC_Type_get_envelope reports",
                       max_i, max_a, max_d, dt->n_ints, dt->n_aints, dt->n_types);
    if ((dt->n_ints && (rc = dfc_api_check_ptr(func, "array_of_integers", ints))) ||
        (dt->n_aints && (rc = dfc_api_check_ptr(func, "array_of_addresses", aints))) ||
        (dt->n_types && (rc = dfc_api_check_ptr(func, "array_of_datatypes", types))))
        return rc;
    if (dt->n_ints) memcpy(ints, dt->c_ints, sizeof(int) * (size_t)dt->n_ints);
    if (dt->n_aints) memcpy(aints, dt->c_aints, sizeof(DFC_Aint) * (size_t)dt->n_aints);
    /* Derived types come back as new handles the caller frees (MPI-4.1 5.1.13). */
    for (int i = 0; i < dt->n_types; i++)
        if ((rc = dfc_dtype_alias(func, dt->c_types[i], &types[i]))) return rc;
    return DFC_SUCCESS;
}

int DFC_Type_get_contents(DFC_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[], DFC_Aint array_of_addresses[],
                          DFC_Datatype array_of_datatypes[])
{
    API_BODY(rc = contents_common(__func__, datatype, max_integers, max_addresses, max_datatypes,
                                  array_of_integers, array_of_addresses, array_of_datatypes));
}

/* Names: predefined types answer their DFC spelling ("DFC_INT"), which is what error
 * messages print too; programs built on mpi.h only display the name (OSU prints it, mpi4py
 * checks that it is not empty and that a name set is read back). */
static int set_name(const char *func, DFC_Datatype datatype, const char *name)
{
    int rc;
    dfc_dtype_t *dt;
    if ((rc = dfc_dtype_lookup(datatype, func, "datatype", &dt)) ||
        (rc = dfc_api_check_ptr(func, "type_name", name)))
        return rc;
    size_t n = strnlen(name, DFC_MAX_OBJECT_NAME);
    char *copy = malloc(n + 1); /* longer names are truncated, as MPI allows */
    if (!copy) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
    memcpy(copy, name, n);
    copy[n == DFC_MAX_OBJECT_NAME ? n - 1 : n] = '\0';
    free(dt->uname);
    dt->uname = copy;
    return DFC_SUCCESS;
}

int DFC_Type_set_name(DFC_Datatype datatype, const char *type_name)
{
    API_BODY(rc = set_name(__func__, datatype, type_name));
}

int DFC_Type_get_name(DFC_Datatype datatype, char *type_name, int *resultlen)
{
    dfc_dtype_t *dt;
    API_BODY(if (!(rc = dfc_dtype_lookup(datatype, __func__, "datatype", &dt)) &&
                 !(rc = dfc_api_check_ptr(__func__, "type_name", type_name)) &&
                 !(rc = dfc_api_check_ptr(__func__, "resultlen", resultlen))) {
        snprintf(type_name, DFC_MAX_OBJECT_NAME, "%s", dfc_dtype_name(dt));
        *resultlen = (int)strlen(type_name);
    });
}

int DFC_Get_address(const void *location, DFC_Aint *address)
{
    API_BODY(if (!(rc = dfc_api_check_ptr(__func__, "address",
                                          address))) *address = (DFC_Aint)(uintptr_t)location);
}

/* MPI allows both without initialization: plain arithmetic on flat addresses. */
DFC_Aint DFC_Aint_add(DFC_Aint base, DFC_Aint disp)
{
    return (DFC_Aint)((uintptr_t)base + (uintptr_t)disp);
}

DFC_Aint DFC_Aint_diff(DFC_Aint addr1, DFC_Aint addr2)
{
    return (DFC_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

int DFC_Get_elements_x(const DFC_Status *status, DFC_Datatype datatype, DFC_Count *count)
{
    dfc_dtype_t *dt;
    API_BODY(if (status == DFC_STATUS_IGNORE || !status)
                 rc = dfc_err(DFC_ERR_ARG, __func__, "invalid argument status: %s",
                              status ? "DFC_STATUS_IGNORE" : "NULL pointer");
             else if (!(rc = dfc_dtype_check(datatype, __func__, "datatype", &dt)) &&
                      !(rc = dfc_api_check_ptr(__func__, "count", count))) {
                 DFC_Count n = dfc_dtype_elements_any(dt, dfc_status_bytes(status));
                 *count = n < 0 ? DFC_UNDEFINED : n;
             });
}

/* MPI-4.0's name for Get_elements_x (the same DFC_Count result). */
int DFC_Get_elements_c(const DFC_Status *status, DFC_Datatype datatype, DFC_Count *count)
{
    dfc_dtype_t *dt;
    API_BODY(if (status == DFC_STATUS_IGNORE || !status)
                 rc = dfc_err(DFC_ERR_ARG, __func__, "invalid argument status: %s",
                              status ? "DFC_STATUS_IGNORE" : "NULL pointer");
             else if (!(rc = dfc_dtype_check(datatype, __func__, "datatype", &dt)) &&
                      !(rc = dfc_api_check_ptr(__func__, "count", count))) {
                 DFC_Count n = dfc_dtype_elements_any(dt, dfc_status_bytes(status));
                 *count = n < 0 ? DFC_UNDEFINED : n;
             });
}

/* ---- Pack and Unpack ---------------------------------------------------------------------- */

typedef struct pack_call {
    const char *func;
    const void *in;
    void *out;
    uint64_t count;
    DFC_Datatype type;
    uint64_t room; /* outsize (Pack) or insize (Unpack) */
    uint64_t pos;
    int unpack, external;
} pack_call_t;

static void swap_elements(char *p, uint64_t bytes, size_t esize)
{
    if (esize <= 1) return;
    for (uint64_t o = 0; o + esize <= bytes; o += esize)
        for (size_t i = 0; i < esize / 2; i++) {
            char t = p[o + i];
            p[o + i] = p[o + esize - 1 - i];
            p[o + esize - 1 - i] = t;
        }
}

/* The element size external32 swaps by, or 0 when DFC cannot convert the type. */
static size_t external_elem(const dfc_dtype_t *dt)
{
    if (dt->base < 0 || dt->nelem != dt->nbase) return 0; /* mixed, or pair types */
    const dfc_dtype_t *b = dfc_dtype_base_type(dt);
    if (b->handle == DFC_LONG_DOUBLE) return 0;
    return b->size;
}

static int pack_run(pack_call_t *c, dfc_dtype_t *dt)
{
    uint64_t bytes = c->count * dt->size;
    size_t esize = c->external ? external_elem(dt) : 1;
    if (c->external && !esize && bytes)
        return dfc_err(DFC_ERR_UNSUPPORTED_OPERATION, c->func,
                       "invalid argument datatype: \"external32\" is supported for types made "
                       "of one predefined type other than pair types and DFC_LONG_DOUBLE");
    if (c->pos > c->room || bytes > c->room - c->pos)
        return dfc_err(DFC_ERR_TRUNCATE, c->func,
                       "invalid argument %s: %llu bytes at position %llu do not fit in %llu",
                       c->unpack ? "insize" : "outsize", (unsigned long long)bytes,
                       (unsigned long long)c->pos, (unsigned long long)c->room);
    if (c->unpack) {
        const char *src = (const char *)c->in + c->pos;
        char *tmp = NULL;
        if (c->external && esize > 1) {
            if (!(tmp = malloc(bytes ? bytes : 1)))
                return dfc_err(DFC_ERR_NO_MEM, c->func, "out of memory");
            memcpy(tmp, src, bytes);
            swap_elements(tmp, bytes, esize);
            src = tmp;
        }
        dfc_dtype_unpack(dt, c->out, 0, bytes, src);
        free(tmp);
    } else {
        char *dst = (char *)c->out + c->pos;
        dfc_dtype_pack(dt, c->in, 0, bytes, dst);
        if (c->external) swap_elements(dst, bytes, esize);
    }
    c->pos += bytes;
    return DFC_SUCCESS;
}

static int pack_common(pack_call_t *c, DFC_Comm comm, const char *countname)
{
    int rc;
    dfc_dtype_t *dt;
    dfc_comm_t *cm;
    if (!c->external && (rc = dfc_comm_check(comm, c->func, "comm", &cm))) return rc;
    if ((rc = dfc_dtype_check(c->type, c->func, "datatype", &dt))) return rc;
    /* The typed side may be DFC_BOTTOM with a type of absolute addresses; the packed one not. */
    if (c->count && dt->size && !c->in && (c->unpack || !dfc_api_bottom_ok(dt)))
        return dfc_err(DFC_ERR_BUFFER, c->func, "invalid argument inbuf: NULL pointer");
    if (c->count && dt->size && !c->out && (!c->unpack || !dfc_api_bottom_ok(dt)))
        return dfc_err(DFC_ERR_BUFFER, c->func, "invalid argument outbuf: NULL pointer");
    (void)countname;
    return pack_run(c, dt);
}

static int check_external(const char *func, const char *datarep)
{
    int rc = dfc_api_check_ptr(func, "datarep", datarep);
    if (rc) return rc;
    if (strcmp(datarep, "external32"))
        return dfc_err(DFC_ERR_ARG, func,
                       "invalid argument datarep: \"%s\" (only \"external32\" is defined)",
                       datarep);
    return DFC_SUCCESS;
}

int DFC_Pack(const void *inbuf, int incount, DFC_Datatype datatype, void *outbuf, int outsize,
             int *position, DFC_Comm comm)
{
    pack_call_t c = {__func__, inbuf, outbuf, 0, datatype, 0, 0, 0, 0};
    API_BODY(if (!(rc = dfc_api_check_count(__func__, "incount", incount)) &&
                 !(rc = dfc_api_check_count(__func__, "outsize", outsize)) &&
                 !(rc = dfc_api_check_ptr(__func__, "position", position)) &&
                 !(rc = dfc_api_check_count(__func__, "position", *position))) {
        c.count = (uint64_t)incount;
        c.room = (uint64_t)outsize;
        c.pos = (uint64_t)*position;
        if (!(rc = pack_common(&c, comm, "incount"))) *position = (int)c.pos;
    });
}

int DFC_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               DFC_Datatype datatype, DFC_Comm comm)
{
    pack_call_t c = {__func__, inbuf, outbuf, 0, datatype, 0, 0, 1, 0};
    API_BODY(if (!(rc = dfc_api_check_count(__func__, "insize", insize)) &&
                 !(rc = dfc_api_check_ptr(__func__, "position", position)) &&
                 !(rc = dfc_api_check_count(__func__, "position", *position)) &&
                 !(rc = dfc_api_check_count(__func__, "outcount", outcount))) {
        c.count = (uint64_t)outcount;
        c.room = (uint64_t)insize;
        c.pos = (uint64_t)*position;
        if (!(rc = pack_common(&c, comm, "outcount"))) *position = (int)c.pos;
    });
}

int DFC_Pack_size(int incount, DFC_Datatype datatype, DFC_Comm comm, int *size)
{
    dfc_dtype_t *dt;
    dfc_comm_t *c;
    API_BODY(if (!(rc = dfc_api_check_count(__func__, "incount", incount)) &&
                 !(rc = dfc_dtype_check(datatype, __func__, "datatype", &dt)) &&
                 !(rc = dfc_comm_check(comm, __func__, "comm", &c)) &&
                 !(rc = dfc_api_check_ptr(__func__, "size", size))) {
        uint64_t n = (uint64_t)incount * dt->size;
        if (n > INT_MAX)
            rc = dfc_err(DFC_ERR_COUNT, __func__,
                         "invalid argument incount: %d items take %llu bytes, more than an "
                         "int holds (use DFC_Pack_size_c)",
                         incount, (unsigned long long)n);
        else *size = (int)n;
    });
}

int DFC_Pack_external(const char datarep[], const void *inbuf, int incount, DFC_Datatype datatype,
                      void *outbuf, DFC_Aint outsize, DFC_Aint *position)
{
    pack_call_t c = {__func__, inbuf, outbuf, 0, datatype, 0, 0, 0, 1};
    API_BODY(if (!(rc = check_external(__func__, datarep)) &&
                 !(rc = dfc_api_check_count(__func__, "incount", incount)) &&
                 !(rc = dfc_api_check_ptr(__func__, "position", position))) {
        if (outsize < 0 || *position < 0)
            rc = dfc_err(DFC_ERR_ARG, __func__, "invalid argument %s: negative",
                         outsize < 0 ? "outsize" : "position");
        else {
            c.count = (uint64_t)incount;
            c.room = (uint64_t)outsize;
            c.pos = (uint64_t)*position;
            if (!(rc = pack_common(&c, DFC_COMM_NULL, "incount"))) *position = (DFC_Aint)c.pos;
        }
    });
}

int DFC_Unpack_external(const char datarep[], const void *inbuf, DFC_Aint insize,
                        DFC_Aint *position, void *outbuf, int outcount, DFC_Datatype datatype)
{
    pack_call_t c = {__func__, inbuf, outbuf, 0, datatype, 0, 0, 1, 1};
    API_BODY(if (!(rc = check_external(__func__, datarep)) &&
                 !(rc = dfc_api_check_count(__func__, "outcount", outcount)) &&
                 !(rc = dfc_api_check_ptr(__func__, "position", position))) {
        if (insize < 0 || *position < 0)
            rc = dfc_err(DFC_ERR_ARG, __func__, "invalid argument %s: negative",
                         insize < 0 ? "insize" : "position");
        else {
            c.count = (uint64_t)outcount;
            c.room = (uint64_t)insize;
            c.pos = (uint64_t)*position;
            if (!(rc = pack_common(&c, DFC_COMM_NULL, "outcount"))) *position = (DFC_Aint)c.pos;
        }
    });
}

int DFC_Pack_external_size(const char datarep[], int incount, DFC_Datatype datatype, DFC_Aint *size)
{
    dfc_dtype_t *dt;
    API_BODY(if (!(rc = check_external(__func__, datarep)) &&
                 !(rc = dfc_api_check_count(__func__, "incount", incount)) &&
                 !(rc = dfc_dtype_check(datatype, __func__, "datatype", &dt)) &&
                 !(rc = dfc_api_check_ptr(__func__, "size", size))) {
        if (incount && dt->size && !external_elem(dt))
            rc = dfc_err(DFC_ERR_UNSUPPORTED_OPERATION, __func__,
                         "invalid argument datatype: \"external32\" is supported for types "
                         "made of one predefined type other than pair types and "
                         "DFC_LONG_DOUBLE");
        else *size = (DFC_Aint)((uint64_t)incount * dt->size);
    });
}
