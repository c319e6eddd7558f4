/*
 * dfc_topo.h - process topologies kept on a communicator (topo.c): Cartesian grids, graphs
 * and distributed graphs, with the neighbor lists the neighborhood collectives use.
 *
 * A topology is immutable once attached; Comm_dup copies it and the communicator's release
 * frees it (comm.c). Argument checking is the api layer's (api_topo.c).
 */
#ifndef DFC_TOPO_H
#define DFC_TOPO_H

#include "comm/dfc_comm.h"

typedef struct dfc_topo {
    int kind; /* DFC_CART, DFC_GRAPH or DFC_DIST_GRAPH */
    /* Cartesian */
    int ndims;
    int *dims, *periods;
    /* graph: index[] and edges[] as given to Graph_create */
    int nnodes, nedges;
    int *index, *edges;
    /* distributed graph: this process's neighbors, in the order given */
    int indeg, outdeg, weighted;
    int *sources, *sweights, *dests, *dweights;
} dfc_topo_t;

/* Constructors copy their arrays; NULL when out of memory. */
dfc_topo_t *dfc_topo_cart_new(int ndims, const int *dims, const int *periods);
dfc_topo_t *dfc_topo_graph_new(int nnodes, const int *index, const int *edges);
dfc_topo_t *dfc_topo_dist_new(int indeg, const int *sources, const int *sweights, int outdeg,
                              const int *dests, const int *dweights, int weighted);
dfc_topo_t *dfc_topo_copy(const dfc_topo_t *t);
void dfc_topo_free(dfc_topo_t *t);

/* Cartesian helpers. coords_of: row-major coordinates of rank. rank_of: the rank at coords,
 * wrapping periodic dimensions; -1 when a non-periodic coordinate is out of range. */
void dfc_topo_cart_coords(const dfc_topo_t *t, int rank, int *coords);
int dfc_topo_cart_rank(const dfc_topo_t *t, const int *coords);
/* MPI_Cart_shift from `rank`: DFC_PROC_NULL beyond a non-periodic border. */
void dfc_topo_cart_shift(const dfc_topo_t *t, int rank, int dir, int disp, int *src, int *dst);

/* The neighbors of `rank` as the neighborhood collectives see them (MPI-4.1 8.6): counts,
 * then the lists (malloc'd, caller frees; NULL when the count is 0). Cartesian: 2 * ndims
 * each way, per dimension the negative then the positive neighbor, DFC_PROC_NULL at a
 * non-periodic border; graph: the adjacency list both ways; dist graph: sources and
 * destinations. Returns DFC_SUCCESS or DFC_ERR_NO_MEM. */
int dfc_topo_neighbors(const dfc_topo_t *t, int rank, int *indeg, int **in, int *outdeg, int **out);

/* The Dims_create computation (MPICH's result: the most balanced factorization, in
 * non-increasing order, into the zero entries of dims). The caller has checked that the
 * product of the positive entries divides nnodes. */
void dfc_topo_dims_create(int nnodes, int ndims, int *dims);

/* The constructors of topology communicators (Cart_create, Cart_sub, Graph_create,
 * Dist_graph_create_adjacent), collective over c, arguments already checked: a new
 * communicator with the topology attached in *out, ranks in c's order (`reorder` is not
 * acted on), or NULL on a process that is not part of it (rank >= the grid's or graph's size).
 * Errors name func; nothing is left allocated after one. Dist_graph_create, which exchanges
 * edges by collectives, is coll's (dfc_coll_dist_graph_create). */
int dfc_topo_cart_create(const char *func, dfc_comm_t *c, int ndims, const int *dims,
                         const int *periods, dfc_comm_t **out);
int dfc_topo_cart_sub(const char *func, dfc_comm_t *c, const int *remain_dims, dfc_comm_t **out);
int dfc_topo_graph_create(const char *func, dfc_comm_t *c, int nnodes, const int *index,
                          const int *edges, dfc_comm_t **out);
int dfc_topo_dist_create(const char *func, dfc_comm_t *c, int indeg, const int *sources,
                         const int *sweights, int outdeg, const int *dests, const int *dweights,
                         int weighted, dfc_comm_t **out);

#endif /* DFC_TOPO_H */
