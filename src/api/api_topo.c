/*
 * api_topo.c - process topology entry points: Cartesian grids, graphs, distributed graphs,
 * Dims_create and Topo_test (MPI-4.1 chapter 8). The topology lives on the communicator
 * (comm/topo.c). `reorder` is accepted and ignored, as MPICH allows: ranks in the new
 * communicator are the old ones, so a grid is laid out row-major over the old rank order.
 * Error classes follow MPICH: DFC_ERR_TOPOLOGY for a communicator without the topology the
 * call needs, DFC_ERR_DIMS for bad dimension sizes, DFC_ERR_RANK for a rank out of range,
 * DFC_ERR_ARG for the rest.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api_topo.h"

int dfc_unweighted_marker[1]; /* never read: the addresses are the markers */
int dfc_weights_empty_marker[1];


static const char *kind_name(int kind)
{
    return kind == DFC_CART ? "Cartesian" : kind == DFC_GRAPH ? "graph" : "distributed graph";
}

int dfc_topo_api_check(const char *func, DFC_Comm comm, int kind, dfc_comm_t **c, dfc_topo_t **t)
{
    int rc = dfc_comm_check(comm, func, "comm", c);
    if (rc) return rc;
    *t = (*c)->topo;
    if (!*t)
        return dfc_err(DFC_ERR_TOPOLOGY, func, "invalid argument comm: it has no %s topology",
                       kind ? kind_name(kind) : "process");
    if (kind && (*t)->kind != kind)
        return dfc_err(DFC_ERR_TOPOLOGY, func,
                       "invalid argument comm: it has a %s topology, not a %s one",
                       kind_name((*t)->kind), kind_name(kind));
    return DFC_SUCCESS;
}

int dfc_topo_api_give(const char *func, dfc_comm_t *nc, DFC_Comm *out)
{
    if (!nc) {
        *out = DFC_COMM_NULL;
        return DFC_SUCCESS;
    }
    int h = dfc_htable_add(&dfc_comm_table, nc);
    if (!h) {
        dfc_comm_release(nc); /* frees its topology too */
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory allocating a communicator handle");
    }
    nc->handle = h;
    *out = h;
    return DFC_SUCCESS;
}

/* ---- Cartesian ------------------------------------------------------------------------ */

/* Checks (ndims, dims, periods) of Cart_create and Cart_map; *nnodes = product of dims. */
static int check_cart_args(const char *func, const dfc_comm_t *c, int ndims, const int *dims,
                           const int *periods, int *nnodes)
{
    int64_t prod = 1;
    if (ndims < 0)
        return dfc_err(DFC_ERR_DIMS, func, "invalid argument ndims: %d is negative", ndims);
    if (ndims > 0 && !dims)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument dims: NULL pointer");
    if (ndims > 0 && !periods)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument periods: NULL pointer");
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return dfc_err(DFC_ERR_DIMS, func,
                           "invalid argument dims: dims[%d] = %d is not positive", i, dims[i]);
        prod *= dims[i];
        if (prod > c->size) break;
    }
    if (prod > c->size)
        return dfc_err(DFC_ERR_ARG, func,
                       "invalid argument dims: the grid has more than the %d processes "
                       "of the communicator",
                       c->size);
    *nnodes = (int)prod;
    return DFC_SUCCESS;
}

int DFC_Cart_create(DFC_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, DFC_Comm *comm_cart)
{
    int rc, nnodes;
    dfc_comm_t *c = NULL, *nc = NULL;
    DFC_API_ENTER();
    (void)reorder; /* ranks are kept: see the file comment */
    if ((rc = dfc_comm_check(comm_old, __func__, "comm_old", &c)) ||
        (rc = dfc_comm_intra_check(c, __func__, "comm_old")) ||
        (rc = check_cart_args(__func__, c, ndims, dims, periods, &nnodes)) ||
        (rc = dfc_api_check_ptr(__func__, "comm_cart", comm_cart)))
        goto fn_fail;
    if ((rc = dfc_topo_cart_create(__func__, c, ndims, dims, periods, &nc)) ||
        (rc = dfc_topo_api_give(__func__, nc, comm_cart)))
        goto fn_fail;
    TOPO_EXIT(c)
}

int DFC_Cart_map(DFC_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    int rc, nnodes;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = check_cart_args(__func__, c, ndims, dims, periods, &nnodes)) ||
        (rc = dfc_api_check_ptr(__func__, "newrank", newrank)))
        goto fn_fail;
    *newrank = c->rank < nnodes ? c->rank : DFC_UNDEFINED;
    TOPO_EXIT(c)
}

int DFC_Cartdim_get(DFC_Comm comm, int *ndims)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_CART, &c, &t)) ||
        (rc = dfc_api_check_ptr(__func__, "ndims", ndims)))
        goto fn_fail;
    *ndims = t->ndims;
    TOPO_EXIT(c)
}

/* maxdims must hold the grid's dimensions; arrays of that length must not be NULL. */
static int check_maxdims(const char *func, const dfc_topo_t *t, int maxdims)
{
    if (maxdims < t->ndims)
        return dfc_err(DFC_ERR_ARG, func,
                       "invalid argument maxdims: %d is less than the %d dimensions "
                       "of the grid",
                       maxdims, t->ndims);
    return DFC_SUCCESS;
}

int dfc_topo_api_check_array(const char *func, const char *name, const void *p, int n)
{
    if (p || n <= 0) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", name);
}

int DFC_Cart_get(DFC_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_CART, &c, &t)) ||
        (rc = check_maxdims(__func__, t, maxdims)) ||
        (rc = dfc_topo_api_check_array(__func__, "dims", dims, t->ndims)) ||
        (rc = dfc_topo_api_check_array(__func__, "periods", periods, t->ndims)) ||
        (rc = dfc_topo_api_check_array(__func__, "coords", coords, t->ndims)))
        goto fn_fail;
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
    }
    dfc_topo_cart_coords(t, c->rank, coords);
    TOPO_EXIT(c)
}

int DFC_Cart_rank(DFC_Comm comm, const int coords[], int *rank)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_CART, &c, &t)) ||
        (rc = dfc_topo_api_check_array(__func__, "coords", coords, t->ndims)) ||
        (rc = dfc_api_check_ptr(__func__, "rank", rank)))
        goto fn_fail;
    for (int i = 0; i < t->ndims; i++)
        if (!t->periods[i] && (coords[i] < 0 || coords[i] >= t->dims[i])) {
            rc = dfc_err(DFC_ERR_ARG, __func__,
                         "invalid argument coords: coords[%d] = %d is outside "
                         "0..%d of a non-periodic dimension",
                         i, coords[i], t->dims[i] - 1);
            goto fn_fail;
        }
    *rank = dfc_topo_cart_rank(t, coords);
    TOPO_EXIT(c)
}

int DFC_Cart_coords(DFC_Comm comm, int rank, int maxdims, int coords[])
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_CART, &c, &t))) goto fn_fail;
    if (rank < 0 || rank >= c->size) {
        rc = dfc_err(DFC_ERR_RANK, __func__,
                     "invalid argument rank: %d is out of range for a "
                     "communicator of size %d",
                     rank, c->size);
        goto fn_fail;
    }
    if ((rc = check_maxdims(__func__, t, maxdims)) ||
        (rc = dfc_topo_api_check_array(__func__, "coords", coords, t->ndims)))
        goto fn_fail;
    dfc_topo_cart_coords(t, rank, coords);
    TOPO_EXIT(c)
}

int DFC_Cart_shift(DFC_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_CART, &c, &t)) ||
        (rc = dfc_api_check_ptr(__func__, "rank_source", rank_source)) ||
        (rc = dfc_api_check_ptr(__func__, "rank_dest", rank_dest)))
        goto fn_fail;
    if (direction < 0 || direction >= t->ndims) {
        rc = dfc_err(DFC_ERR_ARG, __func__,
                     "invalid argument direction: %d is not a dimension of the "
                     "%d-dimensional grid",
                     direction, t->ndims);
        goto fn_fail;
    }
    dfc_topo_cart_shift(t, c->rank, direction, disp, rank_source, rank_dest);
    TOPO_EXIT(c)
}

/* Cart_sub: processes that agree on the dropped coordinates form one grid of the kept
 * dimensions; row-major order of the kept coordinates is the order of the old ranks. */
int DFC_Cart_sub(DFC_Comm comm, const int remain_dims[], DFC_Comm *newcomm)
{
    int rc;
    dfc_comm_t *c = NULL, *nc = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_CART, &c, &t)) ||
        (rc = dfc_topo_api_check_array(__func__, "remain_dims", remain_dims, t->ndims)) ||
        (rc = dfc_api_check_ptr(__func__, "newcomm", newcomm)))
        goto fn_fail;
    if ((rc = dfc_topo_cart_sub(__func__, c, remain_dims, &nc)) ||
        (rc = dfc_topo_api_give(__func__, nc, newcomm)))
        goto fn_fail;
    TOPO_EXIT(c)
}

int DFC_Dims_create(int nnodes, int ndims, int dims[])
{
    int rc = DFC_SUCCESS;
    int64_t prod = 1;
    DFC_API_ENTER();
    if (nnodes <= 0) {
        rc = dfc_err(DFC_ERR_ARG, __func__, "invalid argument nnodes: %d is not positive", nnodes);
        goto fn_fail;
    }
    if (ndims < 0) {
        rc = dfc_err(DFC_ERR_ARG, __func__, "invalid argument ndims: %d is negative", ndims);
        goto fn_fail;
    }
    if ((rc = dfc_topo_api_check_array(__func__, "dims", dims, ndims))) goto fn_fail;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0) {
            rc = dfc_err(DFC_ERR_DIMS, __func__, "invalid argument dims: dims[%d] = %d is negative",
                         i, dims[i]);
            goto fn_fail;
        }
        if (dims[i] > 0 && prod <= nnodes) prod *= dims[i];
    }
    if (nnodes % prod != 0 || prod > nnodes) {
        rc = dfc_err(DFC_ERR_DIMS, __func__,
                     "invalid argument dims: the product of its positive entries "
                     "does not divide nnodes = %d",
                     nnodes);
        goto fn_fail;
    }
    /* every entry given: MPICH checks only that their product divides nnodes */
    dfc_topo_dims_create(nnodes, ndims, dims);
    TOPO_EXIT(NULL)
}

int DFC_Topo_test(DFC_Comm comm, int *status)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "status", status)))
        goto fn_fail;
    *status = c->topo ? c->topo->kind : DFC_UNDEFINED;
    TOPO_EXIT(c)
}
