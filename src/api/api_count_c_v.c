/*
 * api_count_c_v.c - the large-count forms (MPI-4.1 6.2: "_c", DFC_Count counts, DFC_Aint
 * displacements) of Gatherv, Scatterv, Allgatherv, Alltoallv, Alltoallw and Reduce_scatter,
 * blocking, nonblocking and persistent, on intra- and intercommunicators.
 *
 * The first five go through the w form (Alltoallw, Ialltoallw, Alltoallw_init) with the
 * blocks of api_count_c_w.c: a gather is the all-to-all where every process sends its
 * block to the root only, a scatter the converse, an allgather the one where every process
 * sends its block to all; empty blocks move nothing (alltoall_pairwise.c), so the root of
 * a gather still receives p - 1 messages and the others send one. Their arguments are
 * checked here first, under the names of the form called (DFC_ERR_COUNT for a negative
 * count, DFC_ERR_ROOT, DFC_ERR_BUFFER for a misplaced DFC_IN_PLACE). Reduce_scatter_c gets
 * the same counts on every process: the int form when they fit, else the int form over
 * a unit of g items (g: their greatest common divisor) when that fits.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/api_coll_common.h"
#include "api/api_count_c.h"

/* What a call sees of its communicator: n blocks (the remote group's size on an
 * intercommunicator), this rank, and whether the root argument makes it the root (is_root)
 * or a process that sends to or receives from root index `peer`. */
typedef struct vshape {
    int inter, n, rank;
    int is_root, peer; /* rooted: peer >= 0 when this process talks to the root */
} vshape_t;

/* Under the lock: the communicator and, when rooted, the root. */
static int shape_of(const char *func, DFC_Comm comm, int rooted, int root, vshape_t *v)
{
    dfc_comm_t *c;
    int rc = dfc_comm_check(comm, func, "comm", &c);
    if (rc) return rc;
    *v = (vshape_t){.inter = c->remote != NULL, .n = c->size, .rank = c->rank, .peer = -1};
    if (v->inter) {
        v->n = c->remote->size;
        v->rank = -1; /* no block of its own among the remote group's */
        if (rooted && (rc = dfc_api_inter_root_check(func, c, root))) return rc;
        v->is_root = rooted && root == DFC_ROOT;
        v->peer = rooted && root >= 0 ? root : -1;
        return DFC_SUCCESS;
    }
    if (rooted && (rc = dfc_coll_check_root(func, c, root))) return rc;
    v->is_root = rooted && root == c->rank;
    v->peer = rooted ? root : -1;
    return DFC_SUCCESS;
}

/* A datatype's extent (for displacements counted in items). */
static int extent_of(const char *func, const char *name, DFC_Datatype t, DFC_Aint *ext)
{
    dfc_dtype_t *d;
    int rc = dfc_dtype_check(t, func, name, &d);
    if (!rc) *ext = d->extent;
    return rc;
}

static int in_place_bad(const char *func, const char *name, const char *why)
{
    return dfc_err(DFC_ERR_BUFFER, func, "invalid argument %s: DFC_IN_PLACE is %s", name, why);
}

static int run_w(const dfc_api_kcall_t *k, const void *sb, const dfc_api_wside_t *s, void *rb,
                 const dfc_api_wside_t *r, DFC_Comm comm)
{
    if (k->mode == 0)
        return DFC_Alltoallw(sb, s->counts, s->displs, s->types, rb, r->counts, r->displs, r->types,
                             comm);
    if (k->mode == 1)
        return DFC_Ialltoallw(sb, s->counts, s->displs, s->types, rb, r->counts, r->displs,
                              r->types, comm, k->request);
    return DFC_Alltoallw_init(sb, s->counts, s->displs, s->types, rb, r->counts, r->displs,
                              r->types, comm, k->info, k->request);
}

/* A rooted or all-gather call's arguments, as one description. */
typedef struct vcall {
    const void *sendbuf;
    DFC_Count sendcount;
    const DFC_Count *sendcounts;
    const DFC_Aint *sdispls;
    DFC_Datatype sendtype;
    void *recvbuf;
    DFC_Count recvcount;
    const DFC_Count *recvcounts;
    const DFC_Aint *rdispls;
    DFC_Datatype recvtype;
    int root;
} vcall_t;

enum { V_GATHER, V_SCATTER, V_ALLGATHER };

/* Under the lock: the arguments that matter at this process. The v side (counts and
 * displacements: a gather's or allgather's receive side, a scatter's send side) matters at
 * the root and everywhere in an allgather; the block side wherever a block moves to or from
 * a root, and everywhere in an allgather. ext: the v side's extent. */
static int check_v(const char *func, int kind, const vcall_t *a, const vshape_t *v, DFC_Aint *ext)
{
    int rc, scat = kind == V_SCATTER, v_side = kind == V_ALLGATHER || v->is_root;
    const void *obuf = scat ? a->recvbuf : a->sendbuf, *vbuf = scat ? a->sendbuf : a->recvbuf;
    const char *oname = scat ? "recvbuf" : "sendbuf", *vname = scat ? "sendbuf" : "recvbuf";
    DFC_Aint oext;
    if (obuf == DFC_IN_PLACE && (v->inter || !v_side))
        return in_place_bad(func, oname,
                            v->inter ? "not allowed on an intercommunicator"
                                     : "only allowed at the root");
    if (vbuf == DFC_IN_PLACE && v_side) return in_place_bad(func, vname, "not allowed here");
    if ((kind == V_ALLGATHER || v->peer >= 0) && obuf != DFC_IN_PLACE) {
        DFC_Count cnt = scat ? a->recvcount : a->sendcount;
        if (cnt < 0)
            return dfc_err(DFC_ERR_COUNT, func, "invalid argument %s: negative (%lld)",
                           scat ? "recvcount" : "sendcount", (long long)cnt);
        if ((rc = extent_of(func, scat ? "recvtype" : "sendtype", scat ? a->recvtype : a->sendtype,
                            &oext)))
            return rc;
    }
    if (!v_side) return DFC_SUCCESS;
    if ((rc = dfc_api_count_check(func, scat ? "sendcounts" : "recvcounts",
                                  scat ? a->sendcounts : a->recvcounts, v->n)))
        return rc;
    if (v->n > 0 && !(scat ? a->sdispls : a->rdispls))
        return dfc_err(DFC_ERR_ARG, func, "invalid argument displs: NULL pointer");
    return extent_of(func, scat ? "sendtype" : "recvtype", scat ? a->sendtype : a->recvtype, ext);
}

/* Gatherv_c, Scatterv_c, Allgatherv_c through the w form. */
static int v_common(const dfc_api_kcall_t *k, int kind, const vcall_t *a, DFC_Comm comm)
{
    vshape_t v;
    DFC_Aint ext[1] = {0}; /* the v side's type's */
    dfc_api_wside_t s = {0}, r = {0};
    DFC_API_ENTER();
    int rc = shape_of(k->func, comm, kind != V_ALLGATHER, a->root, &v);
    if (!rc) rc = check_v(k->func, kind, a, &v, ext);
    if (!rc && k->mode && !k->request)
        rc = dfc_err(DFC_ERR_ARG, k->func, "invalid argument request: NULL pointer");
    DFC_API_EXIT();
    if (rc) return dfc_api_c_fail(comm, rc);
    if (dfc_api_wside_init(&s, v.n) || dfc_api_wside_init(&r, v.n)) {
        DFC_API_ENTER();
        rc = dfc_err(DFC_ERR_NO_MEM, k->func, "out of memory listing %d blocks", v.n);
        DFC_API_EXIT();
        return dfc_api_wside_done(&s, dfc_api_wside_done(&r, dfc_api_c_fail(comm, rc)));
    }
    const void *sb = NULL;
    void *rb = NULL;
    if (kind == V_SCATTER) {
        if (v.is_root) {
            sb = a->sendbuf;
            for (int i = 0; i < v.n && !rc; i++)
                if (i != v.rank || a->recvbuf != DFC_IN_PLACE)
                    rc = dfc_api_wside_block(&s, i, a->sendcounts[i], a->sendtype,
                                             a->sdispls[i] * ext[0]);
        }
        if (!rc && v.peer >= 0 && a->recvbuf != DFC_IN_PLACE) {
            rb = a->recvbuf;
            rc = dfc_api_wside_block(&r, v.peer, a->recvcount, a->recvtype, 0);
        }
    } else {
        int all = kind == V_ALLGATHER, ip = a->sendbuf == DFC_IN_PLACE;
        if (all || v.is_root) {
            rb = a->recvbuf;
            for (int i = 0; i < v.n && !rc; i++)
                if (i != v.rank || !ip)
                    rc = dfc_api_wside_block(&r, i, a->recvcounts[i], a->recvtype,
                                             a->rdispls[i] * ext[0]);
        }
        /* In place (allgather): this process's block is in recvbuf already, and goes from
         * there to the others, described by its absolute address (the w form refuses one
         * buffer as both sendbuf and recvbuf). */
        DFC_Count sc = ip && all ? a->recvcounts[v.rank] : a->sendcount;
        DFC_Datatype st = ip && all ? a->recvtype : a->sendtype;
        DFC_Aint sd = 0;
        if (ip && all) {
            sd = (DFC_Aint)(uintptr_t)a->recvbuf + a->rdispls[v.rank] * ext[0];
            s.force = 1;
        }
        sb = ip ? NULL : a->sendbuf;
        for (int i = 0; i < v.n && !rc; i++)
            if ((all && (i != v.rank || !ip)) || (!all && i == v.peer && !ip))
                rc = dfc_api_wside_block(&s, i, sc, st, sd);
    }
    if (!rc) rc = run_w(k, sb, &s, rb, &r, comm);
    return dfc_api_wside_done(&s, dfc_api_wside_done(&r, rc));
}

#define GATHERV_ARGS                      \
    (&(vcall_t){.sendbuf = sendbuf,       \
                .sendcount = sendcount,   \
                .sendtype = sendtype,     \
                .recvbuf = recvbuf,       \
                .recvcounts = recvcounts, \
                .rdispls = displs,        \
                .recvtype = recvtype,     \
                .root = root})
#define SCATTERV_ARGS                     \
    (&(vcall_t){.sendbuf = sendbuf,       \
                .sendcounts = sendcounts, \
                .sdispls = displs,        \
                .sendtype = sendtype,     \
                .recvbuf = recvbuf,       \
                .recvcount = recvcount,   \
                .recvtype = recvtype,     \
                .root = root})
#define ALLGATHERV_ARGS                   \
    (&(vcall_t){.sendbuf = sendbuf,       \
                .sendcount = sendcount,   \
                .sendtype = sendtype,     \
                .recvbuf = recvbuf,       \
                .recvcounts = recvcounts, \
                .rdispls = displs,        \
                .recvtype = recvtype})

int DFC_Gatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                  const DFC_Count recvcounts[], const DFC_Aint displs[], DFC_Datatype recvtype,
                  int root, DFC_Comm comm)
{
    return v_common(&DFC_API_KB, V_GATHER, GATHERV_ARGS, comm);
}
int DFC_Igatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                   const DFC_Count recvcounts[], const DFC_Aint displs[], DFC_Datatype recvtype,
                   int root, DFC_Comm comm, DFC_Request *request)
{
    return v_common(&DFC_API_KN(request), V_GATHER, GATHERV_ARGS, comm);
}
int DFC_Gatherv_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                       void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint displs[],
                       DFC_Datatype recvtype, int root, DFC_Comm comm, DFC_Info info,
                       DFC_Request *request)
{
    return v_common(&DFC_API_KP(info, request), V_GATHER, GATHERV_ARGS, comm);
}

int DFC_Scatterv_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint displs[],
                   DFC_Datatype sendtype, void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                   int root, DFC_Comm comm)
{
    return v_common(&DFC_API_KB, V_SCATTER, SCATTERV_ARGS, comm);
}
int DFC_Iscatterv_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint displs[],
                    DFC_Datatype sendtype, void *recvbuf, DFC_Count recvcount,
                    DFC_Datatype recvtype, int root, DFC_Comm comm, DFC_Request *request)
{
    return v_common(&DFC_API_KN(request), V_SCATTER, SCATTERV_ARGS, comm);
}
int DFC_Scatterv_init_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint displs[],
                        DFC_Datatype sendtype, void *recvbuf, DFC_Count recvcount,
                        DFC_Datatype recvtype, int root, DFC_Comm comm, DFC_Info info,
                        DFC_Request *request)
{
    return v_common(&DFC_API_KP(info, request), V_SCATTER, SCATTERV_ARGS, comm);
}

int DFC_Allgatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                     const DFC_Count recvcounts[], const DFC_Aint displs[], DFC_Datatype recvtype,
                     DFC_Comm comm)
{
    return v_common(&DFC_API_KB, V_ALLGATHER, ALLGATHERV_ARGS, comm);
}
int DFC_Iallgatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                      void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint displs[],
                      DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request)
{
    return v_common(&DFC_API_KN(request), V_ALLGATHER, ALLGATHERV_ARGS, comm);
}
int DFC_Allgatherv_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                          void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint displs[],
                          DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return v_common(&DFC_API_KP(info, request), V_ALLGATHER, ALLGATHERV_ARGS, comm);
}

/* ---- Alltoallv_c, Alltoallw_c ------------------------------------------------------------ */

/* One side of an all-to-all: counts, displacements (items of type, or bytes with types). */
typedef struct aside {
    const void *buf;
    const DFC_Count *counts;
    const DFC_Aint *displs;
    DFC_Datatype type;
    const DFC_Datatype *types; /* w: one per block */
} aside_t;

/* Under the lock: a side's arguments (names: buf, counts, displs, type(s)); ext: the v
 * form's extent. */
static int check_a(const char *func, const char *const nm[4], const aside_t *x, int n,
                   DFC_Aint *ext)
{
    int rc = dfc_api_count_check(func, nm[1], x->counts, n);
    if (rc) return rc;
    if (n > 0 && !x->displs)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", nm[2]);
    if (!x->types) return extent_of(func, nm[3], x->type, ext);
    for (int i = 0; i < n; i++)
        if ((rc = extent_of(func, nm[3], x->types[i], ext))) return rc;
    return DFC_SUCCESS;
}

static int a2a_common(const dfc_api_kcall_t *k, const aside_t *s, const aside_t *r, int w,
                      DFC_Comm comm)
{
    static const char *const sn[2][4] = {{"sendbuf", "sendcounts", "sdispls", "sendtype"},
                                         {"sendbuf", "sendcounts", "sdispls", "sendtypes"}};
    static const char *const rn[2][4] = {{"recvbuf", "recvcounts", "rdispls", "recvtype"},
                                         {"recvbuf", "recvcounts", "rdispls", "recvtypes"}};
    vshape_t v;
    DFC_Aint sext = 1, rext = 1, e;
    dfc_api_wside_t ws = {0}, wr = {0};
    int ip = s->buf == DFC_IN_PLACE;
    DFC_API_ENTER();
    int rc = shape_of(k->func, comm, 0, 0, &v);
    if (!rc && !ip) rc = check_a(k->func, sn[w], s, v.n, &sext);
    if (!rc) rc = check_a(k->func, rn[w], r, v.n, &rext);
    if (!rc && r->buf == DFC_IN_PLACE) rc = in_place_bad(k->func, "recvbuf", "not allowed here");
    if (!rc && k->mode && !k->request)
        rc = dfc_err(DFC_ERR_ARG, k->func, "invalid argument request: NULL pointer");
    DFC_API_EXIT();
    if (rc) return dfc_api_c_fail(comm, rc);
    if (w) sext = rext = 1; /* byte displacements */
    if (dfc_api_wside_init(&ws, v.n) || dfc_api_wside_init(&wr, v.n)) {
        DFC_API_ENTER();
        rc = dfc_err(DFC_ERR_NO_MEM, k->func, "out of memory listing %d blocks", v.n);
        DFC_API_EXIT();
        return dfc_api_wside_done(&ws, dfc_api_wside_done(&wr, dfc_api_c_fail(comm, rc)));
    }
    for (int i = 0; i < v.n && !rc; i++) {
        e = w ? 1 : rext;
        rc = dfc_api_wside_block(&wr, i, r->counts[i], w ? r->types[i] : r->type, r->displs[i] * e);
        if (!rc && !ip)
            rc = dfc_api_wside_block(&ws, i, s->counts[i], w ? s->types[i] : s->type,
                                     s->displs[i] * (w ? 1 : sext));
    }
    if (!rc) rc = run_w(k, s->buf, &ws, (void *)r->buf, &wr, comm);
    return dfc_api_wside_done(&ws, dfc_api_wside_done(&wr, rc));
}

#define A2AV_SIDES                                            \
    &(aside_t){sendbuf, sendcounts, sdispls, sendtype, NULL}, \
        &(aside_t){recvbuf, recvcounts, rdispls, recvtype, NULL}, 0
#define A2AW_SIDES                                                          \
    &(aside_t){sendbuf, sendcounts, sdispls, DFC_DATATYPE_NULL, sendtypes}, \
        &(aside_t){recvbuf, recvcounts, rdispls, DFC_DATATYPE_NULL, recvtypes}, 1

int DFC_Alltoallv_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint sdispls[],
                    DFC_Datatype sendtype, void *recvbuf, const DFC_Count recvcounts[],
                    const DFC_Aint rdispls[], DFC_Datatype recvtype, DFC_Comm comm)
{
    return a2a_common(&DFC_API_KB, A2AV_SIDES, comm);
}
int DFC_Ialltoallv_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint sdispls[],
                     DFC_Datatype sendtype, void *recvbuf, const DFC_Count recvcounts[],
                     const DFC_Aint rdispls[], DFC_Datatype recvtype, DFC_Comm comm,
                     DFC_Request *request)
{
    return a2a_common(&DFC_API_KN(request), A2AV_SIDES, comm);
}
int DFC_Alltoallv_init_c(const void *sendbuf, const DFC_Count sendcounts[],
                         const DFC_Aint sdispls[], DFC_Datatype sendtype, void *recvbuf,
                         const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                         DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    return a2a_common(&DFC_API_KP(info, request), A2AV_SIDES, comm);
}

int DFC_Alltoallw_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint sdispls[],
                    const DFC_Datatype sendtypes[], void *recvbuf, const DFC_Count recvcounts[],
                    const DFC_Aint rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm)
{
    return a2a_common(&DFC_API_KB, A2AW_SIDES, comm);
}
int DFC_Ialltoallw_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint sdispls[],
                     const DFC_Datatype sendtypes[], void *recvbuf, const DFC_Count recvcounts[],
                     const DFC_Aint rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm,
                     DFC_Request *request)
{
    return a2a_common(&DFC_API_KN(request), A2AW_SIDES, comm);
}
int DFC_Alltoallw_init_c(const void *sendbuf, const DFC_Count sendcounts[],
                         const DFC_Aint sdispls[], const DFC_Datatype sendtypes[], void *recvbuf,
                         const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                         const DFC_Datatype recvtypes[], DFC_Comm comm, DFC_Info info,
                         DFC_Request *request)
{
    return a2a_common(&DFC_API_KP(info, request), A2AW_SIDES, comm);
}

/* ---- Reduce_scatter_c ---------------------------------------------------------------------- */

static DFC_Count gcd(DFC_Count a, DFC_Count b)
{
    while (b) {
        DFC_Count t = a % b;
        a = b, b = t;
    }
    return a;
}

static int rs_run(const dfc_api_kcall_t *k, const void *sb, void *rb, const int *cnts,
                  DFC_Datatype t, DFC_Op op, DFC_Comm comm)
{
    if (k->mode == 0) return DFC_Reduce_scatter(sb, rb, cnts, t, op, comm);
    if (k->mode == 1) return DFC_Ireduce_scatter(sb, rb, cnts, t, op, comm, k->request);
    return DFC_Reduce_scatter_init(sb, rb, cnts, t, op, comm, k->info, k->request);
}

/* Every process has the same recvcounts (MPI), so all take the same path: the counts as
 * they are, or in units of g items of datatype (a contiguous type, which the reductions
 * take), or none (DFC_ERR_UNSUPPORTED_OPERATION on every process alike). */
static int rs_common(const dfc_api_kcall_t *k, const void *sendbuf, void *recvbuf,
                     const DFC_Count *recvcounts, DFC_Datatype datatype, DFC_Op op, DFC_Comm comm)
{
    dfc_comm_t *c;
    int rc, n = 0, *cnts = NULL;
    DFC_Count g = 0, max = 0;
    DFC_Datatype unit = DFC_DATATYPE_NULL;
    DFC_API_ENTER();
    if (!(rc = dfc_comm_check(comm, k->func, "comm", &c))) {
        n = c->size; /* recvcounts has the local group's size on an intercommunicator too */
        rc = dfc_api_count_check(k->func, "recvcounts", recvcounts, n);
    }
    for (int i = 0; i < n && !rc; i++)
        g = gcd(recvcounts[i], g), max = recvcounts[i] > max ? recvcounts[i] : max;
    if (!rc && max > INT_MAX && (g > INT_MAX || max / g > INT_MAX))
        rc = dfc_err(DFC_ERR_UNSUPPORTED_OPERATION, k->func,
                     "invalid argument recvcounts: counts past 2^31-1 whose greatest common "
                     "divisor (%lld) leaves them past it too",
                     (long long)g);
    if (!rc && !(cnts = malloc(((size_t)n + 1) * sizeof *cnts)))
        rc = dfc_err(DFC_ERR_NO_MEM, k->func, "out of memory listing %d counts", n);
    DFC_API_EXIT();
    if (rc) return dfc_api_c_fail(comm, rc);
    if (max <= INT_MAX) g = 1;
    for (int i = 0; i < n; i++) cnts[i] = (int)(recvcounts[i] / g);
    if (g > 1 && !(rc = DFC_Type_contiguous((int)g, datatype, &unit))) rc = DFC_Type_commit(&unit);
    if (!rc) rc = rs_run(k, sendbuf, recvbuf, cnts, g > 1 ? unit : datatype, op, comm);
    if (unit != DFC_DATATYPE_NULL) DFC_Type_free(&unit);
    free(cnts);
    return rc;
}

int DFC_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const DFC_Count recvcounts[],
                         DFC_Datatype datatype, DFC_Op op, DFC_Comm comm)
{
    return rs_common(&DFC_API_KB, sendbuf, recvbuf, recvcounts, datatype, op, comm);
}
int DFC_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const DFC_Count recvcounts[],
                          DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Request *request)
{
    return rs_common(&DFC_API_KN(request), sendbuf, recvbuf, recvcounts, datatype, op, comm);
}
int DFC_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const DFC_Count recvcounts[],
                              DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Info info,
                              DFC_Request *request)
{
    return rs_common(&DFC_API_KP(info, request), sendbuf, recvbuf, recvcounts, datatype, op, comm);
}
