/*
 * topo_dist_graph.c - Dist_graph_create's construction (MPI-4.1 8.5.4): the edges any
 * process names are delivered to both of their ends by collectives, then each process builds
 * its distributed-graph topology. Cost: one split, one alltoall of counts and one alltoallv
 * of 3 ints per edge end (every edge travels twice).
 */
#include <stdlib.h>
#include <string.h>

#include "coll/dfc_coll.h"
#include "comm/dfc_topo.h"

/* Every process may name any edges. Each edge (s, d, w) goes to both
 * ends as a record (direction, other end, weight), by an alltoall of counts and an alltoallv
 * of records on the new communicator; each process then lists its in- and out-neighbors in
 * the order the records arrive (by sending rank, then the order it gave them). MPI leaves
 * that order to the implementation; the neighborhood collectives use the same one. */
enum { REC_IN = 0, REC_OUT = 1, REC_INTS = 3 };

static int exchange_ints(const char *func, dfc_comm_t *nc, dfc_coll_kind_t kind, const int *sbuf,
                         const int *scounts, const int *sdispls, int *rbuf, const int *rcounts,
                         const int *rdispls)
{
    dfc_coll_call_t call = {func, DFC_MODE_BLOCKING, DFC_INFO_NULL, NULL};
    dfc_coll_args_t a = {.kind = kind,
                         .sbytes = sizeof(int),
                         .rbytes = sizeof(int),
                         .selem = sizeof(int),
                         .relem = sizeof(int)};
    if (kind == DFC_COLL_ALLTOALLV) {
        a.scounts = scounts;
        a.sdispls = sdispls;
        a.vcounts = rcounts;
        a.vdispls = rdispls;
    }
    return dfc_coll_run(&call, nc, &a, sbuf, rbuf, dfc_dtype_get(DFC_INT), NULL);
}

/* Builds this process's topology from the records all processes sent it. */
static int records_to_topo(const char *func, const int *recs, int nrecs, int weighted,
                           dfc_topo_t **out)
{
    int nin = 0, nout = 0, rc = DFC_SUCCESS;
    for (int i = 0; i < nrecs; i++) {
        if (recs[REC_INTS * i] == REC_IN) nin++;
        else nout++;
    }
    int *buf = malloc((size_t)(2 * (nin + nout) + 1) * sizeof(int));
    if (!buf) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory building the graph");
    int *src = buf, *sw = buf + nin, *dst = buf + 2 * nin, *dw = dst + nout, ki = 0, ko = 0;
    for (int i = 0; i < nrecs; i++) {
        const int *r = recs + REC_INTS * i;
        if (r[0] == REC_IN) {
            src[ki] = r[1];
            sw[ki++] = r[2];
        } else {
            dst[ko] = r[1];
            dw[ko++] = r[2];
        }
    }
    if (!(*out = dfc_topo_dist_new(nin, src, sw, nout, dst, dw, weighted)))
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory allocating the topology");
    free(buf);
    return rc;
}

/* Packs the records for every process (counts and displacements in ints). */
static int pack_records(const dfc_comm_t *c, int n, const int *sources, const int *degrees,
                        const int *destinations, const int *weights, int *scounts, int *sdispls,
                        int **sbuf)
{
    int size = c->size, k = 0, total = 0;
    const int *w = weights == DFC_UNWEIGHTED || weights == DFC_WEIGHTS_EMPTY ? NULL : weights;
    memset(scounts, 0, (size_t)size * sizeof(int));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            scounts[sources[i]] += REC_INTS;
            scounts[destinations[k]] += REC_INTS;
        }
    for (int p = 0; p < size; p++) {
        sdispls[p] = total;
        total += scounts[p];
    }
    if (!(*sbuf = malloc((size_t)(total + 1) * sizeof(int)))) return DFC_ERR_NO_MEM;
    int *fill = malloc((size_t)size * sizeof(int));
    if (!fill) return DFC_ERR_NO_MEM;
    memcpy(fill, sdispls, (size_t)size * sizeof(int));
    k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            int s = sources[i], d = destinations[k], wt = w ? w[k] : 1;
            int *r = *sbuf + fill[s];
            r[0] = REC_OUT, r[1] = d, r[2] = wt;
            fill[s] += REC_INTS;
            r = *sbuf + fill[d];
            r[0] = REC_IN, r[1] = s, r[2] = wt;
            fill[d] += REC_INTS;
        }
    free(fill);
    return DFC_SUCCESS;
}

int dfc_coll_dist_graph_create(const char *func, dfc_comm_t *c, int n, const int *sources,
                               const int *degrees, const int *destinations, const int *weights,
                               dfc_comm_t **out)
{
    int rc, size = c->size, total = 0;
    dfc_comm_t *nc = NULL;
    dfc_topo_t *t = NULL;
    int *sbuf = NULL, *rbuf = NULL, *counts = malloc(4 * (size_t)size * sizeof(int));
    *out = NULL;
    if (!counts) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
    int *scounts = counts, *sdispls = counts + size, *rcounts = counts + 2 * size,
        *rdispls = counts + 3 * size;
    if (pack_records(c, n, sources, degrees, destinations, weights, scounts, sdispls, &sbuf)) {
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
        goto out;
    }
    if ((rc = dfc_comm_split(c, 0, c->rank, &nc)) ||
        (rc = exchange_ints(func, nc, DFC_COLL_ALLTOALL, scounts, NULL, NULL, rcounts, NULL, NULL)))
        goto out;
    for (int p = 0; p < size; p++) {
        rdispls[p] = total;
        total += rcounts[p];
    }
    if (!(rbuf = malloc((size_t)(total + 1) * sizeof(int)))) {
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
        goto out;
    }
    if ((rc = exchange_ints(func, nc, DFC_COLL_ALLTOALLV, sbuf, scounts, sdispls, rbuf, rcounts,
                            rdispls)) ||
        (rc = records_to_topo(func, rbuf, total / REC_INTS, weights != DFC_UNWEIGHTED, &t)))
        goto out;
    nc->topo = t;
    *out = nc;
    nc = NULL;
out:
    if (nc) dfc_comm_release(nc);
    free(counts);
    free(sbuf);
    free(rbuf);
    return rc;
}
