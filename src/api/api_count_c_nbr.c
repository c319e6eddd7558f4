/*
 * api_count_c_nbr.c - the large-count forms (MPI-4.1 8.6: "_c") of the neighborhood
 * collectives, blocking, nonblocking and persistent.
 *
 * Neighbor_allgather_c and Neighbor_alltoall_c make a count past an int one item of a large
 * type (api_count_c.c). Neighbor_allgatherv_c, Neighbor_alltoallv_c and
 * Neighbor_alltoallw_c go through the w form (Neighbor_alltoallw and its nonblocking and
 * persistent forms), whose displacements are DFC_Aint bytes already: only a count past an
 * int makes a type of its own (api_count_c_w.c), so every process makes the same call.
 * The in- and out-degrees, which size the arrays, come from the topology's own queries.
 */
#include <stdlib.h>

#include "api/api_count_c.h"

/* ---- Neighbor_allgather_c, Neighbor_alltoall_c ----------------------------------------- */

static int block_run(const dfc_api_kcall_t *k, int a2a, const void *sb, const dfc_api_big_t *s,
                     void *rb, const dfc_api_big_t *r, DFC_Comm comm)
{
    if (a2a) {
        if (k->mode == 0) return DFC_Neighbor_alltoall(sb, s->n, s->use, rb, r->n, r->use, comm);
        if (k->mode == 1)
            return DFC_Ineighbor_alltoall(sb, s->n, s->use, rb, r->n, r->use, comm, k->request);
        return DFC_Neighbor_alltoall_init(sb, s->n, s->use, rb, r->n, r->use, comm, k->info,
                                          k->request);
    }
    if (k->mode == 0) return DFC_Neighbor_allgather(sb, s->n, s->use, rb, r->n, r->use, comm);
    if (k->mode == 1)
        return DFC_Ineighbor_allgather(sb, s->n, s->use, rb, r->n, r->use, comm, k->request);
    return DFC_Neighbor_allgather_init(sb, s->n, s->use, rb, r->n, r->use, comm, k->info,
                                       k->request);
}

static int block_common(const dfc_api_kcall_t *k, int a2a, const void *sendbuf, DFC_Count sendcount,
                        DFC_Datatype sendtype, void *recvbuf, DFC_Count recvcount,
                        DFC_Datatype recvtype, DFC_Comm comm)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = block_run(k, a2a, sendbuf, &s, recvbuf, &r, comm);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

#define BLOCK_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm

int DFC_Neighbor_allgather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                             void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                             DFC_Comm comm)
{
    return block_common(&DFC_API_KB, 0, BLOCK_ARGS);
}
int DFC_Ineighbor_allgather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                              void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                              DFC_Comm comm, DFC_Request *request)
{
    return block_common(&DFC_API_KN(request), 0, BLOCK_ARGS);
}
int DFC_Neighbor_allgather_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                                  void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                                  DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return block_common(&DFC_API_KP(info, request), 0, BLOCK_ARGS);
}
int DFC_Neighbor_alltoall_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                            void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                            DFC_Comm comm)
{
    return block_common(&DFC_API_KB, 1, BLOCK_ARGS);
}
int DFC_Ineighbor_alltoall_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                             void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                             DFC_Comm comm, DFC_Request *request)
{
    return block_common(&DFC_API_KN(request), 1, BLOCK_ARGS);
}
int DFC_Neighbor_alltoall_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                                 void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                                 DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return block_common(&DFC_API_KP(info, request), 1, BLOCK_ARGS);
}

/* ---- The v and w forms, through Neighbor_alltoallw ------------------------------------- */

/* In- and out-degree of comm's topology; 0 and 0 when it has none (the inner call then
 * reports that). */
static void degrees(DFC_Comm comm, int *in, int *out)
{
    int kind = DFC_UNDEFINED, nd = 0, rank = 0, weighted;
    *in = *out = 0;
    if (DFC_Topo_test(comm, &kind)) return;
    if (kind == DFC_CART && !DFC_Cartdim_get(comm, &nd)) *in = *out = 2 * nd;
    if (kind == DFC_GRAPH && !DFC_Comm_rank(comm, &rank))
        DFC_Graph_neighbors_count(comm, rank, in), *out = *in;
    if (kind == DFC_DIST_GRAPH) DFC_Dist_graph_neighbors_count(comm, in, out, &weighted);
}

typedef struct nside {
    const void *buf;
    DFC_Count count; /* allgatherv's send side: one block for every out-neighbor */
    const DFC_Count *counts;
    const DFC_Aint *displs; /* items of type (v) or bytes (w) */
    DFC_Datatype type;
    const DFC_Datatype *types;
} nside_t;

static int w_run(const dfc_api_kcall_t *k, const void *sb, const dfc_api_wside_t *s, void *rb,
                 const dfc_api_wside_t *r, DFC_Comm comm)
{
    if (k->mode == 0)
        return DFC_Neighbor_alltoallw(sb, s->counts, s->adispls, s->types, rb, r->counts,
                                      r->adispls, r->types, comm);
    if (k->mode == 1)
        return DFC_Ineighbor_alltoallw(sb, s->counts, s->adispls, s->types, rb, r->counts,
                                       r->adispls, r->types, comm, k->request);
    return DFC_Neighbor_alltoallw_init(sb, s->counts, s->adispls, s->types, rb, r->counts,
                                       r->adispls, r->types, comm, k->info, k->request);
}

/* Under the lock: one side (names: counts, displs, type(s)); ext: the v form's extent. */
static int check_n(const char *func, const char *const nm[3], const nside_t *x, int n,
                   DFC_Aint *ext)
{
    int rc;
    dfc_dtype_t *d;
    if (!x->counts) {
        if (x->count < 0)
            return dfc_err(DFC_ERR_COUNT, func, "invalid argument sendcount: negative (%lld)",
                           (long long)x->count);
    } else if ((rc = dfc_api_count_check(func, nm[0], x->counts, n))) {
        return rc;
    } else if (n > 0 && !x->displs) {
        return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", nm[1]);
    }
    if (x->types) {
        for (int i = 0; i < n; i++)
            if ((rc = dfc_dtype_check(x->types[i], func, nm[2], &d))) return rc;
        return DFC_SUCCESS;
    }
    if ((rc = dfc_dtype_check(x->type, func, nm[2], &d))) return rc;
    *ext = d->extent;
    return DFC_SUCCESS;
}

static int nbr_common(const dfc_api_kcall_t *k, const nside_t *s, const nside_t *r, DFC_Comm comm)
{
    static const char *const sn[2][3] = {{"sendcounts", "sdispls", "sendtype"},
                                         {"sendcounts", "sdispls", "sendtypes"}};
    static const char *const rn[2][3] = {{"recvcounts", "rdispls", "recvtype"},
                                         {"recvcounts", "rdispls", "recvtypes"}};
    int in, out, w = r->types != NULL, rc = DFC_SUCCESS;
    DFC_Aint sext = 1, rext = 1;
    dfc_api_wside_t ws = {0}, wr = {0};
    degrees(comm, &in, &out);
    DFC_API_ENTER();
    if (in || out) { /* else the inner call reports the communicator */
        rc = check_n(k->func, sn[w], s, out, &sext);
        if (!rc) rc = check_n(k->func, rn[w], r, in, &rext);
    }
    DFC_API_EXIT();
    if (rc) return dfc_api_c_fail(comm, rc);
    if (w) sext = rext = 1;
    if (dfc_api_wside_init(&ws, out) || dfc_api_wside_init(&wr, in)) {
        DFC_API_ENTER();
        rc = dfc_err(DFC_ERR_NO_MEM, k->func, "out of memory listing %d blocks", in + out);
        DFC_API_EXIT();
        return dfc_api_wside_done(&ws, dfc_api_wside_done(&wr, dfc_api_c_fail(comm, rc)));
    }
    ws.aint = wr.aint = 1; /* Neighbor_alltoallw takes DFC_Aint displacements */
    for (int i = 0; i < out && !rc; i++)
        rc = dfc_api_wside_block(&ws, i, s->counts ? s->counts[i] : s->count,
                                 w ? s->types[i] : s->type, s->counts ? s->displs[i] * sext : 0);
    for (int i = 0; i < in && !rc; i++)
        rc = dfc_api_wside_block(&wr, i, r->counts[i], w ? r->types[i] : r->type,
                                 r->displs[i] * rext);
    if (!rc) rc = w_run(k, s->buf, &ws, (void *)r->buf, &wr, comm);
    return dfc_api_wside_done(&ws, dfc_api_wside_done(&wr, rc));
}

#define NAGV_SIDES                                                         \
    &(nside_t){sendbuf, sendcount, NULL, NULL, sendtype, NULL}, &(nside_t) \
    {                                                                      \
        recvbuf, 0, recvcounts, displs, recvtype, NULL                     \
    }
#define NA2AV_SIDES                                                         \
    &(nside_t){sendbuf, 0, sendcounts, sdispls, sendtype, NULL}, &(nside_t) \
    {                                                                       \
        recvbuf, 0, recvcounts, rdispls, recvtype, NULL                     \
    }
#define NA2AW_SIDES                                                                       \
    &(nside_t){sendbuf, 0, sendcounts, sdispls, DFC_DATATYPE_NULL, sendtypes}, &(nside_t) \
    {                                                                                     \
        recvbuf, 0, recvcounts, rdispls, DFC_DATATYPE_NULL, recvtypes                     \
    }

int DFC_Neighbor_allgatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                              void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint displs[],
                              DFC_Datatype recvtype, DFC_Comm comm)
{
    return nbr_common(&DFC_API_KB, NAGV_SIDES, comm);
}
int DFC_Ineighbor_allgatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                               void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint displs[],
                               DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request)
{
    return nbr_common(&DFC_API_KN(request), NAGV_SIDES, comm);
}
int DFC_Neighbor_allgatherv_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                                   void *recvbuf, const DFC_Count recvcounts[],
                                   const DFC_Aint displs[], DFC_Datatype recvtype, DFC_Comm comm,
                                   DFC_Info info, DFC_Request *request)
{
    return nbr_common(&DFC_API_KP(info, request), NAGV_SIDES, comm);
}

int DFC_Neighbor_alltoallv_c(const void *sendbuf, const DFC_Count sendcounts[],
                             const DFC_Aint sdispls[], DFC_Datatype sendtype, void *recvbuf,
                             const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                             DFC_Datatype recvtype, DFC_Comm comm)
{
    return nbr_common(&DFC_API_KB, NA2AV_SIDES, comm);
}
int DFC_Ineighbor_alltoallv_c(const void *sendbuf, const DFC_Count sendcounts[],
                              const DFC_Aint sdispls[], DFC_Datatype sendtype, void *recvbuf,
                              const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                              DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request)
{
    return nbr_common(&DFC_API_KN(request), NA2AV_SIDES, comm);
}
int DFC_Neighbor_alltoallv_init_c(const void *sendbuf, const DFC_Count sendcounts[],
                                  const DFC_Aint sdispls[], DFC_Datatype sendtype, void *recvbuf,
                                  const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                                  DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info,
                                  DFC_Request *request)
{
    return nbr_common(&DFC_API_KP(info, request), NA2AV_SIDES, comm);
}

int DFC_Neighbor_alltoallw_c(const void *sendbuf, const DFC_Count sendcounts[],
                             const DFC_Aint sdispls[], const DFC_Datatype sendtypes[],
                             void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                             const DFC_Datatype recvtypes[], DFC_Comm comm)
{
    return nbr_common(&DFC_API_KB, NA2AW_SIDES, comm);
}
int DFC_Ineighbor_alltoallw_c(const void *sendbuf, const DFC_Count sendcounts[],
                              const DFC_Aint sdispls[], const DFC_Datatype sendtypes[],
                              void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                              const DFC_Datatype recvtypes[], DFC_Comm comm, DFC_Request *request)
{
    return nbr_common(&DFC_API_KN(request), NA2AW_SIDES, comm);
}
int DFC_Neighbor_alltoallw_init_c(const void *sendbuf, const DFC_Count sendcounts[],
                                  const DFC_Aint sdispls[], const DFC_Datatype sendtypes[],
                                  void *recvbuf, const DFC_Count recvcounts[],
                                  const DFC_Aint rdispls[], const DFC_Datatype recvtypes[],
                                  DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return nbr_common(&DFC_API_KP(info, request), NA2AW_SIDES, comm);
}
