/*
 * topo.c - process topologies on communicators (dfc_topo.h): their storage, the
 * Cartesian arithmetic, the neighbor lists of the neighborhood collectives and the
 * Dims_create factorization.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_topo.h"

/* A malloc'd copy of n ints (NULL for n == 0 or a NULL source). *ok is cleared on failure. */
static int *dup_ints(const int *src, int n, int *ok)
{
    if (n <= 0 || !src) return NULL;
    int *p = malloc((size_t)n * sizeof *p);
    if (!p) {
        *ok = 0;
        return NULL;
    }
    memcpy(p, src, (size_t)n * sizeof *p);
    return p;
}

dfc_topo_t *dfc_topo_cart_new(int ndims, const int *dims, const int *periods)
{
    dfc_topo_t *t = calloc(1, sizeof *t);
    int ok = 1;
    if (!t) return NULL;
    t->kind = DFC_CART;
    t->ndims = ndims;
    t->dims = dup_ints(dims, ndims, &ok);
    t->periods = calloc(ndims > 0 ? (size_t)ndims : 1, sizeof(int));
    if (!t->periods) ok = 0;
    for (int i = 0; ok && i < ndims; i++) t->periods[i] = periods[i] != 0;
    if (!ok) {
        dfc_topo_free(t);
        return NULL;
    }
    return t;
}

dfc_topo_t *dfc_topo_graph_new(int nnodes, const int *index, const int *edges)
{
    dfc_topo_t *t = calloc(1, sizeof *t);
    int ok = 1;
    if (!t) return NULL;
    t->kind = DFC_GRAPH;
    t->nnodes = nnodes;
    t->nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    t->index = dup_ints(index, nnodes, &ok);
    t->edges = dup_ints(edges, t->nedges, &ok);
    if (!ok) {
        dfc_topo_free(t);
        return NULL;
    }
    return t;
}

dfc_topo_t *dfc_topo_dist_new(int indeg, const int *sources, const int *sweights, int outdeg,
                              const int *dests, const int *dweights, int weighted)
{
    dfc_topo_t *t = calloc(1, sizeof *t);
    int ok = 1;
    if (!t) return NULL;
    t->kind = DFC_DIST_GRAPH;
    t->indeg = indeg;
    t->outdeg = outdeg;
    t->weighted = weighted;
    t->sources = dup_ints(sources, indeg, &ok);
    t->dests = dup_ints(dests, outdeg, &ok);
    if (weighted) {
        t->sweights = dup_ints(sweights, indeg, &ok);
        t->dweights = dup_ints(dweights, outdeg, &ok);
    }
    if (!ok) {
        dfc_topo_free(t);
        return NULL;
    }
    return t;
}

dfc_topo_t *dfc_topo_copy(const dfc_topo_t *t)
{
    if (t->kind == DFC_CART) return dfc_topo_cart_new(t->ndims, t->dims, t->periods);
    if (t->kind == DFC_GRAPH) return dfc_topo_graph_new(t->nnodes, t->index, t->edges);
    return dfc_topo_dist_new(t->indeg, t->sources, t->sweights, t->outdeg, t->dests, t->dweights,
                             t->weighted);
}

void dfc_topo_free(dfc_topo_t *t)
{
    if (!t) return;
    free(t->dims);
    free(t->periods);
    free(t->index);
    free(t->edges);
    free(t->sources);
    free(t->sweights);
    free(t->dests);
    free(t->dweights);
    free(t);
}

void dfc_topo_cart_coords(const dfc_topo_t *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int dfc_topo_cart_rank(const dfc_topo_t *t, const int *coords)
{
    int rank = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], d = t->dims[i];
        if (t->periods[i]) c = ((c % d) + d) % d;
        else if (c < 0 || c >= d) return -1;
        rank = rank * d + c;
    }
    return rank;
}

void dfc_topo_cart_shift(const dfc_topo_t *t, int rank, int dir, int disp, int *src, int *dst)
{
    int coords[64], *c = t->ndims <= 64 ? coords : malloc((size_t)t->ndims * sizeof(int));
    int r;
    if (!c) { /* cannot happen for any grid that fits in an int of ranks */
        *src = *dst = DFC_PROC_NULL;
        return;
    }
    dfc_topo_cart_coords(t, rank, c);
    int mine = c[dir];
    c[dir] = mine + disp;
    r = dfc_topo_cart_rank(t, c);
    *dst = r < 0 ? DFC_PROC_NULL : r;
    c[dir] = mine - disp;
    r = dfc_topo_cart_rank(t, c);
    *src = r < 0 ? DFC_PROC_NULL : r;
    if (c != coords) free(c);
}

int dfc_topo_neighbors(const dfc_topo_t *t, int rank, int *indeg, int **in, int *outdeg, int **out)
{
    int ni, no;
    const int *si = NULL, *so = NULL;
    *in = *out = NULL;
    if (t->kind == DFC_CART) {
        ni = no = 2 * t->ndims;
    } else if (t->kind == DFC_GRAPH) {
        int first = rank > 0 ? t->index[rank - 1] : 0;
        ni = no = t->index[rank] - first;
        si = so = t->edges + first;
    } else {
        ni = t->indeg;
        no = t->outdeg;
        si = t->sources;
        so = t->dests;
    }
    if ((ni > 0 && !(*in = malloc((size_t)ni * sizeof(int)))) ||
        (no > 0 && !(*out = malloc((size_t)no * sizeof(int))))) {
        free(*in);
        *in = NULL;
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory listing the neighbors of rank %d", rank);
    }
    if (t->kind == DFC_CART) {
        for (int d = 0; d < t->ndims; d++) {
            int src, dst;
            dfc_topo_cart_shift(t, rank, d, 1, &src, &dst);
            (*in)[2 * d] = (*out)[2 * d] = src;
            (*in)[2 * d + 1] = (*out)[2 * d + 1] = dst;
        }
    } else {
        if (ni > 0) memcpy(*in, si, (size_t)ni * sizeof(int));
        if (no > 0) memcpy(*out, so, (size_t)no * sizeof(int));
    }
    *indeg = ni;
    *outdeg = no;
    return DFC_SUCCESS;
}

/* ---- Dims_create ----------------------------------------------------------------------
 * MPI asks for dimensions "as close to each other as possible"; MPICH (since 3.2, after
 * Traeff and Luebbe, EuroMPI'15) returns the factorization of nnodes into k factors whose
 * largest minus smallest is least, in non-increasing order. An exhaustive search over
 * non-increasing factor sequences with pruning finds the same one: k is small and a number
 * that fits in an int has few factorizations. Ties (only possible for k >= 4) go to the
 * first found, which has the largest leading factors. */
typedef struct dims_search {
    int k;
    int *cur, *best;
    long best_bal; /* -1: none yet */
} dims_search_t;

/* Chooses cur[i..k-1] (each <= cur[i-1]) with product rem. */
static void dims_search(dims_search_t *s, int i, int rem, int maxf)
{
    if (i == s->k - 1) {
        if (rem > maxf) return;
        s->cur[i] = rem;
        long bal = (long)s->cur[0] - rem;
        if (s->best_bal < 0 || bal < s->best_bal) {
            s->best_bal = bal;
            memcpy(s->best, s->cur, (size_t)s->k * sizeof(int));
        }
        return;
    }
    int left = s->k - i; /* factors still to choose, this one included */
    for (int f = maxf < rem ? maxf : rem; f >= 1; f--) {
        if (rem % f) continue;
        /* the remaining left-1 factors are <= f: f^left must reach rem */
        long long p = 1;
        for (int j = 0; j < left && p < rem; j++) p *= f;
        if (p < rem) break; /* smaller f only makes it worse */
        /* the smallest factor will be <= f, so the balance is at least cur[0] - f, and
         * only grows as f shrinks */
        int first = i == 0 ? f : s->cur[0];
        if (s->best_bal >= 0 && (long)first - f > s->best_bal) break;
        s->cur[i] = f;
        dims_search(s, i + 1, rem / f, f);
    }
}

void dfc_topo_dims_create(int nnodes, int ndims, int *dims)
{
    int needed = 0, prod = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] == 0) needed++;
        else prod *= dims[i];
    }
    if (needed == 0) return;
    int m = nnodes / prod;
    int *cur = malloc(2 * (size_t)needed * sizeof(int));
    if (!cur) { /* fall back to m, 1, 1, ...: valid, if not balanced */
        for (int i = 0, first = 1; i < ndims; i++)
            if (dims[i] == 0) {
                dims[i] = first ? m : 1;
                first = 0;
            }
        return;
    }
    dims_search_t s = {.k = needed, .cur = cur, .best = cur + needed, .best_bal = -1};
    dims_search(&s, 0, m, m);
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0) dims[i] = s.best[j++];
    free(cur);
}

/* ---- Constructors: split, then attach ------------------------------------------------- */

/* The common tail of every topology constructor: splits c into the processes that take part
 * (member) and the others (DFC_UNDEFINED: *out = NULL), ranks kept in c's order, and
 * attaches t to the new communicator. t belongs to this function from here on: attached, or
 * freed on a non-member or a failure. Collective over c. */
static int split_attach(const char *func, dfc_comm_t *c, int member, int color, int key,
                        dfc_topo_t *t, dfc_comm_t **out)
{
    *out = NULL;
    /* Out of memory on a member still joins the split, so the others do not wait for it. */
    int nomem = member && !t;
    int rc = dfc_comm_split(c, member ? color : DFC_UNDEFINED, key, out);
    if (!rc && nomem) rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory allocating the topology");
    if (rc || !*out) {
        if (*out) dfc_comm_release(*out);
        *out = NULL;
        dfc_topo_free(t);
        return rc;
    }
    (*out)->topo = t;
    return DFC_SUCCESS;
}

int dfc_topo_cart_create(const char *func, dfc_comm_t *c, int ndims, const int *dims,
                         const int *periods, dfc_comm_t **out)
{
    int nnodes = 1;
    for (int i = 0; i < ndims; i++) nnodes *= dims[i];
    int member = c->rank < nnodes;
    dfc_topo_t *t = member ? dfc_topo_cart_new(ndims, dims, periods) : NULL;
    return split_attach(func, c, member, 0, c->rank, t, out);
}

int dfc_topo_cart_sub(const char *func, dfc_comm_t *c, const int *remain_dims, dfc_comm_t **out)
{
    const dfc_topo_t *t = c->topo;
    int color = 0, key = 0, nd = 0;
    size_t n = (size_t)(t->ndims > 0 ? t->ndims : 1);
    int *buf = malloc(3 * n * sizeof(int)); /* coords, then the kept dims and periods */
    dfc_topo_t *nt = NULL;
    if (buf) {
        int *coords = buf, *dims = buf + n, *periods = buf + 2 * n;
        dfc_topo_cart_coords(t, c->rank, coords);
        /* Row-major over the kept dimensions gives the key, over the dropped ones the color. */
        for (int i = 0; i < t->ndims; i++) {
            if (remain_dims[i]) {
                key = key * t->dims[i] + coords[i];
                dims[nd] = t->dims[i];
                periods[nd++] = t->periods[i];
            } else {
                color = color * t->dims[i] + coords[i];
            }
        }
        nt = dfc_topo_cart_new(nd, dims, periods);
        free(buf);
    }
    return split_attach(func, c, 1, color, key, nt, out);
}

int dfc_topo_graph_create(const char *func, dfc_comm_t *c, int nnodes, const int *index,
                          const int *edges, dfc_comm_t **out)
{
    /* nnodes == 0: every process gets DFC_COMM_NULL (MPI-4.1 8.5.3) */
    int member = c->rank < nnodes;
    dfc_topo_t *t = member ? dfc_topo_graph_new(nnodes, index, edges) : NULL;
    return split_attach(func, c, member, 0, c->rank, t, out);
}

int dfc_topo_dist_create(const char *func, dfc_comm_t *c, int indeg, const int *sources,
                         const int *sweights, int outdeg, const int *dests, const int *dweights,
                         int weighted, dfc_comm_t **out)
{
    dfc_topo_t *t = dfc_topo_dist_new(indeg, sources, sweights, outdeg, dests, dweights, weighted);
    return split_attach(func, c, 1, 0, c->rank, t, out);
}
