/*
 * agree.c - the io layer's only collective traffic: blocking allreduces of a few int64
 * values over the file's duplicate communicator (coll's dfc_coll_run, as DFC_Allreduce).
 * They agree on errors (open, set_size), act as the barrier of close and set_size, hand
 * rank 0's choices to the others (the shared pointer's lock file) and gather the counts of
 * ordered access (each rank fills its own slot of a zeroed vector, summed).
 */
#include <stdlib.h>
#include <string.h>

#include "coll/dfc_coll.h"
#include "io/dfc_io.h"

static int allreduce_comm(dfc_comm_t *c, int64_t *vals, int n, int sum, const char *func)
{
    int64_t stack[8], *in = n <= 8 ? stack : malloc((size_t)n * sizeof *in);
    if (!in) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory (%d values to agree on)", n);
    memcpy(in, vals, (size_t)n * sizeof *in);
    dfc_coll_call_t call = {func, DFC_MODE_BLOCKING, DFC_INFO_NULL, NULL};
    dfc_coll_args_t a = {.kind = DFC_COLL_ALLREDUCE,
                         .commutative = 1,
                         .count = (uint64_t)n,
                         .elem = sizeof(int64_t)};
    int rc = dfc_coll_run(&call, c, &a, in, vals, dfc_dtype_get(DFC_INT64_T),
                          dfc_op_get(sum ? DFC_SUM : DFC_MAX));
    if (in != stack) free(in);
    return rc;
}

int dfc_io_allreduce(dfc_file_t *f, int64_t *vals, int n, int sum, const char *func)
{
    return allreduce_comm(f->comm, vals, n, sum, func);
}

int dfc_io_agree(dfc_comm_t *c, int rc, const char *func, const char *what)
{
    int64_t v = rc & 0xff; /* the class (a code is (message slot << 8) | class) */
    int arc = allreduce_comm(c, &v, 1, 0, func);
    if (arc) return arc;
    if (v && !rc)
        return dfc_err((int)v, func,
                       "%s failed on another process of the communicator "
                       "(error class %d there)",
                       what ? what : "the call", (int)v);
    return rc;
}
