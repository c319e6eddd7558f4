/*
 * topo_errors - bad input to the topology functions and neighborhood collectives, under
 * DFC_ERRORS_RETURN: each call must fail with the expected class and a message that names
 * the function and the argument. Covers a communicator without (or with another) topology,
 * out-of-range dimensions, coordinates, directions, ranks, node counts, edges and weights,
 * short output arrays, NULL arrays, DFC_IN_PLACE and negative counts. The communicators
 * stay usable afterwards (a checked Neighbor_allgather).
 */
#include "../dfctest.h"

int main(int argc, char **argv)
{
    int rank, size, x, y, z, arr[8], ok[2] = {0, 0};
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    DFC_Comm W = DFC_COMM_WORLD, cart, graph, dist, nc = DFC_COMM_NULL;
    int dims[2] = {size, 1}, periods[2] = {1, 0}, big[2] = {size + 1, 1}, zero[2] = {0, 1},
        neg[2] = {-1, 1};
    DFCT_OK(DFC_Cart_create(W, 2, dims, periods, 0, &cart));
    DFCT_OK(DFC_Comm_set_errhandler(cart, DFC_ERRORS_RETURN));
    int index[64], edges[64];
    for (int r = 0; r < size && r < 64; r++) index[r] = r + 1, edges[r] = (r + 1) % size;
    DFCT_OK(DFC_Graph_create(W, size, index, edges, 0, &graph));
    DFCT_OK(DFC_Comm_set_errhandler(graph, DFC_ERRORS_RETURN));
    int src = (rank + size - 1) % size, dst = (rank + 1) % size, w1[1] = {1};
    DFCT_OK(DFC_Dist_graph_create_adjacent(W, 1, &src, DFC_UNWEIGHTED, 1, &dst, DFC_UNWEIGHTED,
                                           DFC_INFO_NULL, 0, &dist));
    DFCT_OK(DFC_Comm_set_errhandler(dist, DFC_ERRORS_RETURN));

    /* Cart_create and Cart_map */
    DFCT_FAILS(DFC_Cart_create(DFC_COMM_NULL, 2, dims, periods, 0, &nc), DFC_ERR_COMM, "comm_old");
    DFCT_FAILS(DFC_Cart_create(W, -1, dims, periods, 0, &nc), DFC_ERR_DIMS, "ndims");
    DFCT_FAILS(DFC_Cart_create(W, 2, zero, periods, 0, &nc), DFC_ERR_DIMS, "dims[0]");
    DFCT_FAILS(DFC_Cart_create(W, 2, neg, periods, 0, &nc), DFC_ERR_DIMS, "dims[0]");
    DFCT_FAILS(DFC_Cart_create(W, 2, big, periods, 0, &nc), DFC_ERR_ARG, "dims");
    DFCT_FAILS(DFC_Cart_create(W, 2, NULL, periods, 0, &nc), DFC_ERR_ARG, "dims");
    DFCT_FAILS(DFC_Cart_create(W, 2, dims, NULL, 0, &nc), DFC_ERR_ARG, "periods");
    DFCT_FAILS(DFC_Cart_create(W, 2, dims, periods, 0, NULL), DFC_ERR_ARG, "comm_cart");
    DFCT_FAILS(DFC_Cart_map(W, 2, big, periods, &x), DFC_ERR_ARG, "dims");
    DFCT_FAILS(DFC_Cart_map(W, 2, dims, periods, NULL), DFC_ERR_ARG, "newrank");
    DFCT_CHECK(nc == DFC_COMM_NULL, "a failed Cart_create handed out a communicator");
    /* Cartesian queries */
    DFCT_FAILS(DFC_Cartdim_get(W, &x), DFC_ERR_TOPOLOGY, "comm");
    DFCT_FAILS(DFC_Cartdim_get(graph, &x), DFC_ERR_TOPOLOGY, "graph");
    DFCT_FAILS(DFC_Cartdim_get(cart, NULL), DFC_ERR_ARG, "ndims");
    DFCT_FAILS(DFC_Cart_get(cart, 1, arr, arr + 2, arr + 4), DFC_ERR_ARG, "maxdims");
    DFCT_FAILS(DFC_Cart_get(cart, 2, NULL, arr + 2, arr + 4), DFC_ERR_ARG, "dims");
    DFCT_FAILS(DFC_Cart_get(dist, 2, arr, arr + 2, arr + 4), DFC_ERR_TOPOLOGY, "comm");
    int badc[2] = {0, 1}; /* dimension 1 is non-periodic, size 1 */
    DFCT_FAILS(DFC_Cart_rank(cart, badc, &x), DFC_ERR_ARG, "coords[1]");
    DFCT_FAILS(DFC_Cart_rank(cart, NULL, &x), DFC_ERR_ARG, "coords");
    DFCT_FAILS(DFC_Cart_rank(cart, ok, NULL), DFC_ERR_ARG, "rank");
    DFCT_FAILS(DFC_Cart_coords(cart, size, 2, arr), DFC_ERR_RANK, "rank");
    DFCT_FAILS(DFC_Cart_coords(cart, -1, 2, arr), DFC_ERR_RANK, "rank");
    DFCT_FAILS(DFC_Cart_coords(cart, 0, 1, arr), DFC_ERR_ARG, "maxdims");
    DFCT_FAILS(DFC_Cart_shift(cart, 2, 1, &x, &y), DFC_ERR_ARG, "direction");
    DFCT_FAILS(DFC_Cart_shift(cart, -1, 1, &x, &y), DFC_ERR_ARG, "direction");
    DFCT_FAILS(DFC_Cart_shift(cart, 0, 1, NULL, &y), DFC_ERR_ARG, "rank_source");
    DFCT_FAILS(DFC_Cart_shift(graph, 0, 1, &x, &y), DFC_ERR_TOPOLOGY, "comm");
    DFCT_FAILS(DFC_Cart_sub(cart, NULL, &nc), DFC_ERR_ARG, "remain_dims");
    DFCT_FAILS(DFC_Cart_sub(cart, ok, NULL), DFC_ERR_ARG, "newcomm");
    DFCT_FAILS(DFC_Cart_sub(W, ok, &nc), DFC_ERR_TOPOLOGY, "comm");
    /* Graph */
    int badidx[1] = {-1}, bade[2] = {size, 0};
    DFCT_FAILS(DFC_Graph_create(W, size + 1, index, edges, 0, &nc), DFC_ERR_ARG, "nnodes");
    DFCT_FAILS(DFC_Graph_create(W, -1, index, edges, 0, &nc), DFC_ERR_ARG, "nnodes");
    DFCT_FAILS(DFC_Graph_create(W, 1, badidx, edges, 0, &nc), DFC_ERR_ARG, "index");
    DFCT_FAILS(DFC_Graph_create(W, size, index, NULL, 0, &nc), DFC_ERR_ARG, "edges");
    int i1[1] = {1};
    DFCT_FAILS(DFC_Graph_create(W, 1, i1, bade, 0, &nc), DFC_ERR_ARG, "edges[0]");
    DFCT_FAILS(DFC_Graph_create(W, size, index, edges, 0, NULL), DFC_ERR_ARG, "comm_graph");
    DFCT_FAILS(DFC_Graph_map(W, 1, i1, bade, &x), DFC_ERR_ARG, "edges");
    DFCT_FAILS(DFC_Graphdims_get(cart, &x, &y), DFC_ERR_TOPOLOGY, "Cartesian");
    DFCT_FAILS(DFC_Graphdims_get(graph, NULL, &y), DFC_ERR_ARG, "nnodes");
    DFCT_FAILS(DFC_Graph_get(graph, size - 1, 64, index, edges), DFC_ERR_ARG, "maxindex");
    DFCT_FAILS(DFC_Graph_get(graph, size, size - 1, index, edges), DFC_ERR_ARG, "maxedges");
    DFCT_FAILS(DFC_Graph_neighbors_count(graph, size, &x), DFC_ERR_RANK, "rank");
    DFCT_FAILS(DFC_Graph_neighbors(graph, 0, 0, arr), DFC_ERR_ARG, "maxneighbors");
    DFCT_FAILS(DFC_Graph_neighbors(graph, -1, 4, arr), DFC_ERR_RANK, "rank");
    DFCT_FAILS(DFC_Graph_neighbors(dist, 0, 4, arr), DFC_ERR_TOPOLOGY, "comm");
    /* Distributed graph */
    int outr[1] = {size}, negw[1] = {-3};
    DFCT_FAILS(DFC_Dist_graph_create_adjacent(W, -1, &src, DFC_UNWEIGHTED, 1, &dst, DFC_UNWEIGHTED,
                                              DFC_INFO_NULL, 0, &nc),
               DFC_ERR_ARG, "indegree");
    DFCT_FAILS(DFC_Dist_graph_create_adjacent(W, 1, outr, DFC_UNWEIGHTED, 1, &dst, DFC_UNWEIGHTED,
                                              DFC_INFO_NULL, 0, &nc),
               DFC_ERR_RANK, "sources");
    DFCT_FAILS(DFC_Dist_graph_create_adjacent(W, 1, &src, DFC_UNWEIGHTED, 1, outr, DFC_UNWEIGHTED,
                                              DFC_INFO_NULL, 0, &nc),
               DFC_ERR_RANK, "destinations");
    DFCT_FAILS(DFC_Dist_graph_create_adjacent(W, 1, &src, negw, 1, &dst, w1, DFC_INFO_NULL, 0, &nc),
               DFC_ERR_ARG, "sourceweights");
    DFCT_FAILS(DFC_Dist_graph_create_adjacent(W, 1, &src, w1, 1, &dst, DFC_UNWEIGHTED,
                                              DFC_INFO_NULL, 0, &nc),
               DFC_ERR_ARG, "DFC_UNWEIGHTED");
    DFCT_FAILS(DFC_Dist_graph_create_adjacent(W, 1, &src, DFC_WEIGHTS_EMPTY, 1, &dst, w1,
                                              DFC_INFO_NULL, 0, &nc),
               DFC_ERR_ARG, "DFC_WEIGHTS_EMPTY");
    DFCT_FAILS(DFC_Dist_graph_create_adjacent(W, 1, &src, NULL, 1, &dst, w1, DFC_INFO_NULL, 0, &nc),
               DFC_ERR_ARG, "sourceweights");
    DFCT_FAILS(DFC_Dist_graph_create_adjacent(W, 1, &src, DFC_UNWEIGHTED, 1, &dst, DFC_UNWEIGHTED,
                                              (DFC_Info)0x06fffff0, 0, &nc),
               DFC_ERR_INFO, "info");
    int deg[1] = {-1}, one = 1;
    DFCT_FAILS(DFC_Dist_graph_create(W, -1, &src, &one, &dst, DFC_UNWEIGHTED, DFC_INFO_NULL, 0,
                                     &nc),
               DFC_ERR_ARG, "n");
    DFCT_FAILS(DFC_Dist_graph_create(W, 1, &src, deg, &dst, DFC_UNWEIGHTED, DFC_INFO_NULL, 0, &nc),
               DFC_ERR_ARG, "degrees[0]");
    DFCT_FAILS(DFC_Dist_graph_create(W, 1, outr, &one, &dst, DFC_UNWEIGHTED, DFC_INFO_NULL, 0, &nc),
               DFC_ERR_RANK, "sources[0]");
    DFCT_FAILS(DFC_Dist_graph_create(W, 1, &src, &one, outr, DFC_UNWEIGHTED, DFC_INFO_NULL, 0, &nc),
               DFC_ERR_RANK, "destinations");
    DFCT_FAILS(DFC_Dist_graph_create(W, 1, &src, &one, &dst, negw, DFC_INFO_NULL, 0, &nc),
               DFC_ERR_ARG, "weights");
    DFCT_FAILS(DFC_Dist_graph_neighbors_count(cart, &x, &y, &z), DFC_ERR_TOPOLOGY, "comm");
    DFCT_FAILS(DFC_Dist_graph_neighbors_count(dist, &x, NULL, &z), DFC_ERR_ARG, "outdegree");
    DFCT_FAILS(DFC_Dist_graph_neighbors(dist, 0, arr, arr, 1, arr, arr), DFC_ERR_ARG,
               "maxindegree");
    DFCT_FAILS(DFC_Dist_graph_neighbors(dist, 1, NULL, arr, 1, arr, arr), DFC_ERR_ARG, "sources");
    DFCT_FAILS(DFC_Topo_test(W, NULL), DFC_ERR_ARG, "status");
    DFCT_FAILS(DFC_Topo_test(DFC_COMM_NULL, &x), DFC_ERR_COMM, "comm");
    DFCT_CHECK(nc == DFC_COMM_NULL, "a failed creation handed out a communicator");

    /* Neighborhood collectives */
    int sb[8] = {0}, rb[8], cnt[4] = {1, 1, 1, 1}, ncnt[4] = {-1, 1, 1, 1}, dsp[4] = {0, 1, 2, 3};
    DFC_Aint adsp[4] = {0, 4, 8, 12};
    DFC_Datatype ty[4] = {DFC_INT, DFC_INT, DFC_INT, DFC_INT},
                 badty[4] = {DFC_DATATYPE_NULL, DFC_INT, DFC_INT, DFC_INT};
    DFC_Request rq = DFC_REQUEST_NULL;
    DFCT_FAILS(DFC_Neighbor_allgather(sb, 1, DFC_INT, rb, 1, DFC_INT, W), DFC_ERR_TOPOLOGY, "comm");
    DFCT_FAILS(DFC_Ineighbor_allgather(sb, 1, DFC_INT, rb, 1, DFC_INT, W, &rq), DFC_ERR_TOPOLOGY,
               "comm");
    DFCT_FAILS(DFC_Neighbor_allgather_init(sb, 1, DFC_INT, rb, 1, DFC_INT, W, DFC_INFO_NULL, &rq),
               DFC_ERR_TOPOLOGY, "comm");
    DFCT_FAILS(DFC_Neighbor_allgather(DFC_IN_PLACE, 1, DFC_INT, rb, 1, DFC_INT, cart),
               DFC_ERR_BUFFER, "sendbuf");
    DFCT_FAILS(DFC_Neighbor_allgather(sb, -1, DFC_INT, rb, 1, DFC_INT, cart), DFC_ERR_COUNT,
               "sendcount");
    DFCT_FAILS(DFC_Neighbor_allgather(sb, 1, DFC_DATATYPE_NULL, rb, 1, DFC_INT, cart), DFC_ERR_TYPE,
               "sendtype");
    DFCT_FAILS(DFC_Neighbor_allgather(sb, 1, DFC_INT, NULL, 1, DFC_INT, cart), DFC_ERR_BUFFER,
               "recvbuf");
    DFCT_FAILS(DFC_Ineighbor_alltoall(sb, 1, DFC_INT, rb, 1, DFC_INT, cart, NULL), DFC_ERR_ARG,
               "request");
    DFCT_FAILS(DFC_Neighbor_alltoall_init(sb, 1, DFC_INT, rb, 1, DFC_INT, cart,
                                          (DFC_Info)0x06fffff0, &rq),
               DFC_ERR_INFO, "info");
    DFCT_FAILS(DFC_Neighbor_allgatherv(sb, 1, DFC_INT, rb, NULL, dsp, DFC_INT, dist), DFC_ERR_ARG,
               "recvcounts");
    DFCT_FAILS(DFC_Neighbor_allgatherv(sb, 1, DFC_INT, rb, cnt, NULL, DFC_INT, dist), DFC_ERR_ARG,
               "displs");
    DFCT_FAILS(DFC_Neighbor_allgatherv(sb, 1, DFC_INT, rb, ncnt, dsp, DFC_INT, dist), DFC_ERR_COUNT,
               "recvcounts");
    DFCT_FAILS(DFC_Neighbor_alltoallv(sb, ncnt, dsp, DFC_INT, rb, cnt, dsp, DFC_INT, dist),
               DFC_ERR_COUNT, "sendcounts");
    DFCT_FAILS(DFC_Neighbor_alltoallv(sb, cnt, NULL, DFC_INT, rb, cnt, dsp, DFC_INT, dist),
               DFC_ERR_ARG, "sdispls");
    DFCT_FAILS(DFC_Ineighbor_alltoallv(sb, cnt, dsp, DFC_INT, rb, cnt, NULL, DFC_INT, dist, &rq),
               DFC_ERR_ARG, "rdispls");
    DFCT_FAILS(DFC_Neighbor_alltoallw(sb, cnt, adsp, badty, rb, cnt, adsp, ty, dist), DFC_ERR_TYPE,
               "sendtypes");
    DFCT_FAILS(DFC_Neighbor_alltoallw(sb, cnt, adsp, ty, rb, cnt, adsp, NULL, dist), DFC_ERR_ARG,
               "recvtypes");
    DFCT_FAILS(DFC_Neighbor_alltoallw_init(sb, cnt, adsp, ty, rb, ncnt, adsp, ty, dist,
                                           DFC_INFO_NULL, &rq),
               DFC_ERR_COUNT, "recvcounts");
    DFCT_CHECK(rq == DFC_REQUEST_NULL, "a failed call handed out a request");
    /* A ring of one process (its own neighbor both ways): sending more than the block holds
     * is truncation, as for a message. */
    DFC_Comm self_ring;
    int one1[1] = {1}, per1[1] = {1};
    DFCT_OK(DFC_Cart_create(DFC_COMM_SELF, 1, one1, per1, 0, &self_ring));
    DFCT_OK(DFC_Comm_set_errhandler(self_ring, DFC_ERRORS_RETURN));
    DFCT_FAILS(DFC_Neighbor_alltoall(sb, 2, DFC_INT, rb, 1, DFC_INT, self_ring), DFC_ERR_TRUNCATE,
               "truncated");
    DFCT_OK(DFC_Neighbor_alltoall(sb, 1, DFC_INT, rb, 2, DFC_INT, self_ring)); /* shorter: fine */
    DFCT_OK(DFC_Comm_free(&self_ring));

    /* Still usable: a checked Neighbor_allgather on the grid and the distributed ring (the
     * graph above is one-way, which a neighborhood collective cannot use). */
    DFC_Comm cs[3] = {cart, DFC_COMM_NULL, dist};
    for (int k = 0; k < 3; k += 2) {
        int mine = 100 + rank, got[2] = {-1, -1};
        DFCT_OK(DFC_Neighbor_allgather(&mine, 1, DFC_INT, got, 1, DFC_INT, cs[k]));
        int left = (rank + size - 1) % size, right = (rank + 1) % size;
        if (k == 0) /* dim 0 periodic: left, right; dim 1 non-periodic size 1: nothing */
            DFCT_CHECK(got[0] == 100 + left && got[1] == 100 + right, "cart: %d %d", got[0],
                       got[1]);
        else if (k == 2) DFCT_CHECK(got[0] == 100 + left, "dist: %d", got[0]);
    }
    DFCT_OK(DFC_Comm_free(&cart));
    DFCT_OK(DFC_Comm_free(&graph));
    DFCT_OK(DFC_Comm_free(&dist));
    return dfct_finalize();
}
