/*
 * api_topo_graph.c - graph and distributed-graph topology entry points (MPI-4.1 8.5.3-8.5.5
 * and 8.5.6's queries). As in api_topo.c, `reorder` is ignored (ranks are kept) and the
 * distributed graph's info hints are checked and ignored.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api_topo.h"

/* ---- Graph ---------------------------------------------------------------------------- */

static int check_graph_args(const char *func, const dfc_comm_t *c, int nnodes, const int *index,
                            const int *edges)
{
    int rc;
    if (nnodes < 0 || nnodes > c->size)
        return dfc_err(DFC_ERR_ARG, func,
                       "invalid argument nnodes: %d is outside 0..%d (the size of "
                       "the communicator)",
                       nnodes, c->size);
    if ((rc = dfc_topo_api_check_array(func, "index", index, nnodes))) return rc;
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i > 0 ? index[i - 1] : 0))
            return dfc_err(DFC_ERR_ARG, func, "invalid argument index: index[%d] = %d is %s", i,
                           index[i], i > 0 ? "less than the entry before it" : "negative");
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    if ((rc = dfc_topo_api_check_array(func, "edges", edges, nedges))) return rc;
    for (int i = 0; i < nedges; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            return dfc_err(DFC_ERR_ARG, func,
                           "invalid argument edges: edges[%d] = %d is not a node "
                           "(0..%d)",
                           i, edges[i], nnodes - 1);
    return DFC_SUCCESS;
}

int DFC_Graph_create(DFC_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, DFC_Comm *comm_graph)
{
    int rc;
    dfc_comm_t *c = NULL, *nc = NULL;
    DFC_API_ENTER();
    (void)reorder;
    if ((rc = dfc_comm_check(comm_old, __func__, "comm_old", &c)) ||
        (rc = dfc_comm_intra_check(c, __func__, "comm_old")) ||
        (rc = check_graph_args(__func__, c, nnodes, index, edges)) ||
        (rc = dfc_api_check_ptr(__func__, "comm_graph", comm_graph)))
        goto fn_fail;
    if ((rc = dfc_topo_graph_create(__func__, c, nnodes, index, edges, &nc)) ||
        (rc = dfc_topo_api_give(__func__, nc, comm_graph)))
        goto fn_fail;
    TOPO_EXIT(c)
}

int DFC_Graph_map(DFC_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = check_graph_args(__func__, c, nnodes, index, edges)) ||
        (rc = dfc_api_check_ptr(__func__, "newrank", newrank)))
        goto fn_fail;
    *newrank = c->rank < nnodes ? c->rank : DFC_UNDEFINED;
    TOPO_EXIT(c)
}

int DFC_Graphdims_get(DFC_Comm comm, int *nnodes, int *nedges)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_GRAPH, &c, &t)) ||
        (rc = dfc_api_check_ptr(__func__, "nnodes", nnodes)) ||
        (rc = dfc_api_check_ptr(__func__, "nedges", nedges)))
        goto fn_fail;
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    TOPO_EXIT(c)
}

int DFC_Graph_get(DFC_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_GRAPH, &c, &t))) goto fn_fail;
    if (maxindex < t->nnodes || maxedges < t->nedges) {
        int idx = maxindex < t->nnodes;
        rc = dfc_err(DFC_ERR_ARG, __func__,
                     "invalid argument %s: %d is less than the graph's %d %s",
                     idx ? "maxindex" : "maxedges", idx ? maxindex : maxedges,
                     idx ? t->nnodes : t->nedges, idx ? "nodes" : "edges");
        goto fn_fail;
    }
    if ((rc = dfc_topo_api_check_array(__func__, "index", index, t->nnodes)) ||
        (rc = dfc_topo_api_check_array(__func__, "edges", edges, t->nedges)))
        goto fn_fail;
    if (t->nnodes > 0) memcpy(index, t->index, (size_t)t->nnodes * sizeof(int));
    if (t->nedges > 0) memcpy(edges, t->edges, (size_t)t->nedges * sizeof(int));
    TOPO_EXIT(c)
}

static int check_graph_rank(const char *func, const dfc_topo_t *t, int rank)
{
    if (rank >= 0 && rank < t->nnodes) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_RANK, func,
                   "invalid argument rank: %d is not a node of the graph (0..%d)", rank,
                   t->nnodes - 1);
}

int DFC_Graph_neighbors_count(DFC_Comm comm, int rank, int *nneighbors)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_GRAPH, &c, &t)) ||
        (rc = check_graph_rank(__func__, t, rank)) ||
        (rc = dfc_api_check_ptr(__func__, "nneighbors", nneighbors)))
        goto fn_fail;
    *nneighbors = t->index[rank] - (rank > 0 ? t->index[rank - 1] : 0);
    TOPO_EXIT(c)
}

int DFC_Graph_neighbors(DFC_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_GRAPH, &c, &t)) ||
        (rc = check_graph_rank(__func__, t, rank)))
        goto fn_fail;
    int first = rank > 0 ? t->index[rank - 1] : 0, n = t->index[rank] - first;
    if (maxneighbors < n) {
        rc = dfc_err(DFC_ERR_ARG, __func__,
                     "invalid argument maxneighbors: %d is less than the %d neighbors "
                     "of rank %d",
                     maxneighbors, n, rank);
        goto fn_fail;
    }
    if ((rc = dfc_topo_api_check_array(__func__, "neighbors", neighbors, n))) goto fn_fail;
    if (n > 0) memcpy(neighbors, t->edges + first, (size_t)n * sizeof(int));
    TOPO_EXIT(c)
}

/* ---- Distributed graph ---------------------------------------------------------------- */

/* Checks one side (ranks and weights) of an adjacency list of `n` entries. */
static int check_adjacent(const char *func, const dfc_comm_t *c, const char *rname,
                          const int *ranks, const char *wname, const int *weights, int n)
{
    int rc;
    if (n < 0)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: %d is negative",
                       !strcmp(rname, "sources") ? "indegree" : "outdegree", n);
    if ((rc = dfc_topo_api_check_array(func, rname, ranks, n))) return rc;
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= c->size)
            return dfc_err(DFC_ERR_RANK, func,
                           "invalid argument %s: %s[%d] = %d is out of range for a "
                           "communicator of size %d",
                           rname, rname, i, ranks[i], c->size);
    if (weights == DFC_WEIGHTS_EMPTY && n > 0) /* MPI-4.1: only where there are no edges */
        return dfc_err(DFC_ERR_ARG, func,
                       "invalid argument %s: DFC_WEIGHTS_EMPTY with %d edges (give their weights)",
                       wname, n);
    if (weights == DFC_UNWEIGHTED || weights == DFC_WEIGHTS_EMPTY) return DFC_SUCCESS;
    if ((rc = dfc_topo_api_check_array(func, wname, weights, n))) return rc;
    for (int i = 0; i < n; i++)
        if (weights[i] < 0)
            return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: %s[%d] = %d is negative", wname,
                           wname, i, weights[i]);
    return DFC_SUCCESS;
}

static int check_info_arg(const char *func, DFC_Info info)
{
    if (info == DFC_INFO_NULL || dfc_htable_get(&dfc_info_table, info)) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_INFO, func, "invalid argument info: 0x%x is not a valid info object",
                   (unsigned)info);
}

int DFC_Dist_graph_create_adjacent(DFC_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], DFC_Info info,
                                   int reorder, DFC_Comm *comm_dist_graph)
{
    int rc;
    dfc_comm_t *c = NULL, *nc = NULL;
    DFC_API_ENTER();
    (void)reorder;
    if ((rc = dfc_comm_check(comm_old, __func__, "comm_old", &c)) ||
        (rc = dfc_comm_intra_check(c, __func__, "comm_old")) ||
        (rc = check_adjacent(__func__, c, "sources", sources, "sourceweights", sourceweights,
                             indegree)) ||
        (rc = check_adjacent(__func__, c, "destinations", destinations, "destweights", destweights,
                             outdegree)) ||
        (rc = check_info_arg(__func__, info)) ||
        (rc = dfc_api_check_ptr(__func__, "comm_dist_graph", comm_dist_graph)))
        goto fn_fail;
    if ((sourceweights == DFC_UNWEIGHTED) != (destweights == DFC_UNWEIGHTED)) {
        rc = dfc_err(DFC_ERR_ARG, __func__,
                     "invalid argument %s: DFC_UNWEIGHTED must be given for both "
                     "weight arrays or neither",
                     sourceweights == DFC_UNWEIGHTED ? "destweights" : "sourceweights");
        goto fn_fail;
    }
    int weighted = sourceweights != DFC_UNWEIGHTED;
    const int *sw = sourceweights == DFC_WEIGHTS_EMPTY ? NULL : sourceweights;
    const int *dw = destweights == DFC_WEIGHTS_EMPTY ? NULL : destweights;
    if ((rc = dfc_topo_dist_create(__func__, c, indegree, sources, sw, outdegree, destinations, dw,
                                   weighted, &nc)) ||
        (rc = dfc_topo_api_give(__func__, nc, comm_dist_graph)))
        goto fn_fail;
    TOPO_EXIT(c)
}

int DFC_Dist_graph_neighbors_count(DFC_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_DIST_GRAPH, &c, &t)) ||
        (rc = dfc_api_check_ptr(__func__, "indegree", indegree)) ||
        (rc = dfc_api_check_ptr(__func__, "outdegree", outdegree)) ||
        (rc = dfc_api_check_ptr(__func__, "weighted", weighted)))
        goto fn_fail;
    *indegree = t->indeg;
    *outdegree = t->outdeg;
    *weighted = t->weighted;
    TOPO_EXIT(c)
}

int DFC_Dist_graph_neighbors(DFC_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[])
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_topo_t *t;
    DFC_API_ENTER();
    if ((rc = dfc_topo_api_check(__func__, comm, DFC_DIST_GRAPH, &c, &t))) goto fn_fail;
    if (maxindegree < t->indeg || maxoutdegree < t->outdeg) {
        int in = maxindegree < t->indeg;
        rc = dfc_err(DFC_ERR_ARG, __func__,
                     "invalid argument %s: %d is less than the %d %s neighbors",
                     in ? "maxindegree" : "maxoutdegree", in ? maxindegree : maxoutdegree,
                     in ? t->indeg : t->outdeg, in ? "in" : "out");
        goto fn_fail;
    }
    if ((rc = dfc_topo_api_check_array(__func__, "sources", sources, t->indeg)) ||
        (rc = dfc_topo_api_check_array(__func__, "destinations", destinations, t->outdeg)))
        goto fn_fail;
    if (t->indeg > 0) memcpy(sources, t->sources, (size_t)t->indeg * sizeof(int));
    if (t->outdeg > 0) memcpy(destinations, t->dests, (size_t)t->outdeg * sizeof(int));
    /* Weights are written only for a weighted graph, into arrays the caller gave. */
    if (t->weighted && sourceweights && sourceweights != DFC_UNWEIGHTED && t->indeg > 0 &&
        t->sweights)
        memcpy(sourceweights, t->sweights, (size_t)t->indeg * sizeof(int));
    if (t->weighted && destweights && destweights != DFC_UNWEIGHTED && t->outdeg > 0 && t->dweights)
        memcpy(destweights, t->dweights, (size_t)t->outdeg * sizeof(int));
    TOPO_EXIT(c)
}

static int check_dist_edges(const char *func, const dfc_comm_t *c, int n, const int *sources,
                            const int *degrees, const int *destinations, const int *weights,
                            int *nedges)
{
    int rc, k = 0;
    if (n < 0) return dfc_err(DFC_ERR_ARG, func, "invalid argument n: %d is negative", n);
    if ((rc = dfc_topo_api_check_array(func, "sources", sources, n)) ||
        (rc = dfc_topo_api_check_array(func, "degrees", degrees, n)))
        return rc;
    for (int i = 0; i < n; i++) {
        if (sources[i] < 0 || sources[i] >= c->size)
            return dfc_err(DFC_ERR_RANK, func,
                           "invalid argument sources: sources[%d] = %d is out of range for "
                           "a communicator of size %d",
                           i, sources[i], c->size);
        if (degrees[i] < 0)
            return dfc_err(DFC_ERR_ARG, func,
                           "invalid argument degrees: degrees[%d] = %d is negative", i, degrees[i]);
        k += degrees[i];
    }
    if ((rc = check_adjacent(func, c, "destinations", destinations, "weights", weights, k)))
        return rc;
    *nedges = k;
    return DFC_SUCCESS;
}

int DFC_Dist_graph_create(DFC_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], DFC_Info info, int reorder,
                          DFC_Comm *comm_dist_graph)
{
    int rc, nedges;
    dfc_comm_t *c = NULL, *nc = NULL;
    DFC_API_ENTER();
    (void)reorder;
    if ((rc = dfc_comm_check(comm_old, __func__, "comm_old", &c)) ||
        (rc = dfc_comm_intra_check(c, __func__, "comm_old")) ||
        (rc = check_dist_edges(__func__, c, n, sources, degrees, destinations, weights, &nedges)) ||
        (rc = check_info_arg(__func__, info)) ||
        (rc = dfc_api_check_ptr(__func__, "comm_dist_graph", comm_dist_graph)))
        goto fn_fail;
    if ((rc = dfc_coll_dist_graph_create(__func__, c, n, sources, degrees, destinations, weights,
                                         &nc)) ||
        (rc = dfc_topo_api_give(__func__, nc, comm_dist_graph)))
        goto fn_fail;
    TOPO_EXIT(c)
}
