/*
 * badargs - the bad-input matrix: under DFC_ERRORS_RETURN (set on WORLD, SELF and on every
 * communicator created here), each public call family is called with each kind of invalid
 * argument that applies, from tables of rows "call, expected class, argument name":
 *   freed / null / bogus / other-kind handles of communicators, groups, datatypes, ops,
 *   requests and infos; NULL pointers; negative counts; invalid ranks, tags and roots;
 *   a receive buffer too small (DFC_ERR_TRUNCATE, p2p in every form and a collective);
 *   topologies: a communicator without the topology, bad dimensions, ranks and degrees, and
 *   the neighborhood collectives' own arguments on a ring.
 * A row passes when the call fails with that class, its DFC_Error_string message starts
 * with "<function>:" and names the argument, and a failed nonblocking or persistent call
 * hands out no request. At the end the library must still work: a checked Allreduce and
 * Sendrecv ring (poisoned outputs, element by element) on WORLD and on a created comm.
 *
 * Rows are symmetric (every rank fails the same call before any communication) so that a
 * row can never start a collective on some ranks only; arguments only the root checks
 * (the receive side of gather, the send side of scatter) run on DFC_COMM_SELF, where every
 * rank is the root.
 */
#include "../dfctest.h"

#define N 8     /* items per rank in the buffers */
#define MAXP 64 /* largest communicator size the buffers allow */

static int rank, size, rows;
static int ib[N * MAXP], ob[N * MAXP], cnt[MAXP], dsp[MAXP];
static DFC_Request rq = DFC_REQUEST_NULL; /* the request argument of every row */
static DFC_Status st;
static int n_out, flag;
/* WORLD's group, held all along: handles are reused, so a freed group's handle must not be
 * handed out again while the rows test it. */
static DFC_Group wg;
static char name[DFC_MAX_OBJECT_NAME];

/* Checks one row: rc must be an error of class cls, its message "<function>: ...". */
static void expect(int rc, const char *text, int cls, const char *arg, int line)
{
    char msg[DFC_MAX_ERROR_STRING] = "", fn[64];
    int got = -1, len = 0;
    size_t fl = strcspn(text, "( ");
    snprintf(fn, sizeof fn, "%.*s:", (int)fl, text);
    rows++;
    if (rq != DFC_REQUEST_NULL) {
        dfct_fail_at(__FILE__, line, "%s: the call handed out request 0x%x", text, rq);
        DFC_Request_free(&rq);
        rq = DFC_REQUEST_NULL;
    }
    if (rc == DFC_SUCCESS) {
        dfct_fail_at(__FILE__, line, "%s succeeded, expected class %d", text, cls);
        return;
    }
    DFC_Error_class(rc, &got);
    DFC_Error_string(rc, msg, &len);
    if (got != cls)
        dfct_fail_at(__FILE__, line, "%s: class %d, expected %d (%s)", text, got, cls, msg);
    else if (strncmp(msg, fn, strlen(fn)))
        dfct_fail_at(__FILE__, line, "%s: message \"%s\" does not start with \"%s\"", text, msg,
                     fn);
    else if (arg && !strstr(msg, arg))
        dfct_fail_at(__FILE__, line, "%s: message \"%s\" does not name \"%s\"", text, msg, arg);
}
#define ROW(call, cls, arg) expect((call), #call, (cls), (arg), __LINE__)

/* The three forms of a collective (blocking, I..., ..._init) with one bad argument; args is
 * the parenthesized argument list of the blocking form, IF the nonblocking name. */
#define UNPAREN(...) __VA_ARGS__
#define COLL3(F, IF, args, cls, arg)                                     \
    do {                                                                 \
        ROW(DFC_##F args, cls, arg);                                     \
        ROW(DFC_##IF(UNPAREN args, &rq), cls, arg);                      \
        ROW(DFC_##F##_init(UNPAREN args, DFC_INFO_NULL, &rq), cls, arg); \
    } while (0)

static void myop(void *in, void *inout, int *len, DFC_Datatype *dt)
{
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

/* Every call that takes a communicator, with the bad communicator bc. */
static void comm_rows(DFC_Comm bc)
{
    DFC_Comm nc = DFC_COMM_NULL, tmp = bc;
    DFC_Group g = DFC_GROUP_NULL;
    DFC_Info info = DFC_INFO_NULL;
    DFC_Errhandler eh;
    const char *C = "comm";
    ROW(DFC_Send(ib, 1, DFC_INT, 0, 0, bc), DFC_ERR_COMM, C);
    ROW(DFC_Ssend(ib, 1, DFC_INT, 0, 0, bc), DFC_ERR_COMM, C);
    ROW(DFC_Isend(ib, 1, DFC_INT, 0, 0, bc, &rq), DFC_ERR_COMM, C);
    ROW(DFC_Issend(ib, 1, DFC_INT, 0, 0, bc, &rq), DFC_ERR_COMM, C);
    ROW(DFC_Send_init(ib, 1, DFC_INT, 0, 0, bc, &rq), DFC_ERR_COMM, C);
    ROW(DFC_Ssend_init(ib, 1, DFC_INT, 0, 0, bc, &rq), DFC_ERR_COMM, C);
    ROW(DFC_Recv(ob, 1, DFC_INT, 0, 0, bc, &st), DFC_ERR_COMM, C);
    ROW(DFC_Irecv(ob, 1, DFC_INT, 0, 0, bc, &rq), DFC_ERR_COMM, C);
    ROW(DFC_Recv_init(ob, 1, DFC_INT, 0, 0, bc, &rq), DFC_ERR_COMM, C);
    ROW(DFC_Sendrecv(ib, 1, DFC_INT, 0, 0, ob, 1, DFC_INT, 0, 0, bc, &st), DFC_ERR_COMM, C);
    ROW(DFC_Sendrecv_replace(ob, 1, DFC_INT, 0, 0, 0, 0, bc, &st), DFC_ERR_COMM, C);
    ROW(DFC_Probe(0, 0, bc, &st), DFC_ERR_COMM, C);
    ROW(DFC_Iprobe(0, 0, bc, &flag, &st), DFC_ERR_COMM, C);
    ROW(DFC_Barrier(bc), DFC_ERR_COMM, C);
    ROW(DFC_Ibarrier(bc, &rq), DFC_ERR_COMM, C);
    ROW(DFC_Barrier_init(bc, DFC_INFO_NULL, &rq), DFC_ERR_COMM, C);
    COLL3(Bcast, Ibcast, (ob, 1, DFC_INT, 0, bc), DFC_ERR_COMM, C);
    COLL3(Reduce, Ireduce, (ib, ob, 1, DFC_INT, DFC_SUM, 0, bc), DFC_ERR_COMM, C);
    COLL3(Allreduce, Iallreduce, (ib, ob, 1, DFC_INT, DFC_SUM, bc), DFC_ERR_COMM, C);
    COLL3(Scan, Iscan, (ib, ob, 1, DFC_INT, DFC_SUM, bc), DFC_ERR_COMM, C);
    COLL3(Exscan, Iexscan, (ib, ob, 1, DFC_INT, DFC_SUM, bc), DFC_ERR_COMM, C);
    COLL3(Reduce_scatter_block, Ireduce_scatter_block, (ib, ob, 1, DFC_INT, DFC_SUM, bc),
          DFC_ERR_COMM, C);
    COLL3(Reduce_scatter, Ireduce_scatter, (ib, ob, cnt, DFC_INT, DFC_SUM, bc), DFC_ERR_COMM, C);
    COLL3(Gather, Igather, (ib, 1, DFC_INT, ob, 1, DFC_INT, 0, bc), DFC_ERR_COMM, C);
    COLL3(Gatherv, Igatherv, (ib, 1, DFC_INT, ob, cnt, dsp, DFC_INT, 0, bc), DFC_ERR_COMM, C);
    COLL3(Scatter, Iscatter, (ib, 1, DFC_INT, ob, 1, DFC_INT, 0, bc), DFC_ERR_COMM, C);
    COLL3(Scatterv, Iscatterv, (ib, cnt, dsp, DFC_INT, ob, 1, DFC_INT, 0, bc), DFC_ERR_COMM, C);
    COLL3(Allgather, Iallgather, (ib, 1, DFC_INT, ob, 1, DFC_INT, bc), DFC_ERR_COMM, C);
    COLL3(Allgatherv, Iallgatherv, (ib, 1, DFC_INT, ob, cnt, dsp, DFC_INT, bc), DFC_ERR_COMM, C);
    COLL3(Alltoall, Ialltoall, (ib, 1, DFC_INT, ob, 1, DFC_INT, bc), DFC_ERR_COMM, C);
    COLL3(Alltoallv, Ialltoallv, (ib, cnt, dsp, DFC_INT, ob, cnt, dsp, DFC_INT, bc), DFC_ERR_COMM,
          C);
    ROW(DFC_Comm_size(bc, &n_out), DFC_ERR_COMM, C);
    ROW(DFC_Comm_rank(bc, &n_out), DFC_ERR_COMM, C);
    ROW(DFC_Comm_dup(bc, &nc), DFC_ERR_COMM, C);
    ROW(DFC_Comm_dup_with_info(bc, DFC_INFO_NULL, &nc), DFC_ERR_COMM, C);
    ROW(DFC_Comm_split(bc, 0, 0, &nc), DFC_ERR_COMM, C);
    ROW(DFC_Comm_split_type(bc, DFC_COMM_TYPE_SHARED, 0, DFC_INFO_NULL, &nc), DFC_ERR_COMM, C);
    ROW(DFC_Comm_create(bc, wg, &nc), DFC_ERR_COMM, C);
    ROW(DFC_Comm_create_group(bc, wg, 0, &nc), DFC_ERR_COMM, C);
    ROW(DFC_Comm_compare(bc, DFC_COMM_WORLD, &n_out), DFC_ERR_COMM, "comm1");
    ROW(DFC_Comm_compare(DFC_COMM_WORLD, bc, &n_out), DFC_ERR_COMM, "comm2");
    ROW(DFC_Comm_group(bc, &g), DFC_ERR_COMM, C);
    ROW(DFC_Comm_set_name(bc, "x"), DFC_ERR_COMM, C);
    ROW(DFC_Comm_get_name(bc, name, &n_out), DFC_ERR_COMM, C);
    ROW(DFC_Comm_set_info(bc, DFC_INFO_NULL), DFC_ERR_COMM, C);
    ROW(DFC_Comm_get_info(bc, &info), DFC_ERR_COMM, C);
    ROW(DFC_Comm_set_errhandler(bc, DFC_ERRORS_RETURN), DFC_ERR_COMM, C);
    ROW(DFC_Comm_get_errhandler(bc, &eh), DFC_ERR_COMM, C);
    ROW(DFC_Comm_get_peer_transport(bc, 0, name, &n_out), DFC_ERR_COMM, C);
    ROW(DFC_Comm_free(&tmp), DFC_ERR_COMM, C);
    DFCT_CHECK(nc == DFC_COMM_NULL && g == DFC_GROUP_NULL && info == DFC_INFO_NULL && tmp == bc,
               "a failed call wrote its output handle (comm 0x%x)", bc);
}

/* Every call that takes a datatype, with the bad datatype bt; W is an intracomm, S is SELF
 * (for the arguments only a root checks). committed_only: bt is merely uncommitted, which
 * only communication rejects. */
static void type_rows(DFC_Datatype bt, DFC_Comm W, int committed_only)
{
    DFC_Comm S = DFC_COMM_SELF;
    DFC_Datatype nt = DFC_DATATYPE_NULL, tmp = bt;
    const char *D = "datatype", *ST = "sendtype", *RT = "recvtype";
    int P = DFC_PROC_NULL;
    ROW(DFC_Send(ib, 1, bt, P, 0, W), DFC_ERR_TYPE, D);
    ROW(DFC_Isend(ib, 1, bt, P, 0, W, &rq), DFC_ERR_TYPE, D);
    ROW(DFC_Ssend_init(ib, 1, bt, P, 0, W, &rq), DFC_ERR_TYPE, D);
    ROW(DFC_Recv(ob, 1, bt, P, 0, W, &st), DFC_ERR_TYPE, D);
    ROW(DFC_Irecv(ob, 1, bt, P, 0, W, &rq), DFC_ERR_TYPE, D);
    ROW(DFC_Recv_init(ob, 1, bt, P, 0, W, &rq), DFC_ERR_TYPE, D);
    ROW(DFC_Sendrecv(ib, 1, bt, P, 0, ob, 1, DFC_INT, P, 0, W, &st), DFC_ERR_TYPE, ST);
    ROW(DFC_Sendrecv(ib, 1, DFC_INT, P, 0, ob, 1, bt, P, 0, W, &st), DFC_ERR_TYPE, RT);
    ROW(DFC_Sendrecv_replace(ob, 1, bt, P, 0, P, 0, W, &st), DFC_ERR_TYPE, D);
    COLL3(Bcast, Ibcast, (ob, 1, bt, 0, W), DFC_ERR_TYPE, D);
    COLL3(Reduce, Ireduce, (ib, ob, 1, bt, DFC_SUM, 0, W), DFC_ERR_TYPE, D);
    COLL3(Allreduce, Iallreduce, (ib, ob, 1, bt, DFC_SUM, W), DFC_ERR_TYPE, D);
    COLL3(Scan, Iscan, (ib, ob, 1, bt, DFC_SUM, W), DFC_ERR_TYPE, D);
    COLL3(Exscan, Iexscan, (ib, ob, 1, bt, DFC_SUM, W), DFC_ERR_TYPE, D);
    COLL3(Reduce_scatter_block, Ireduce_scatter_block, (ib, ob, 1, bt, DFC_SUM, W), DFC_ERR_TYPE,
          D);
    COLL3(Reduce_scatter, Ireduce_scatter, (ib, ob, cnt, bt, DFC_SUM, W), DFC_ERR_TYPE, D);
    COLL3(Gather, Igather, (ib, 1, bt, ob, 1, DFC_INT, 0, W), DFC_ERR_TYPE, ST);
    COLL3(Gather, Igather, (ib, 1, DFC_INT, ob, 1, bt, 0, S), DFC_ERR_TYPE, RT);
    COLL3(Gatherv, Igatherv, (ib, 1, DFC_INT, ob, cnt, dsp, bt, 0, S), DFC_ERR_TYPE, RT);
    COLL3(Scatter, Iscatter, (ib, 1, bt, ob, 1, DFC_INT, 0, S), DFC_ERR_TYPE, ST);
    COLL3(Scatter, Iscatter, (ib, 1, DFC_INT, ob, 1, bt, 0, W), DFC_ERR_TYPE, RT);
    COLL3(Scatterv, Iscatterv, (ib, cnt, dsp, bt, ob, 1, DFC_INT, 0, S), DFC_ERR_TYPE, ST);
    COLL3(Allgather, Iallgather, (ib, 1, bt, ob, 1, DFC_INT, W), DFC_ERR_TYPE, ST);
    COLL3(Allgather, Iallgather, (ib, 1, DFC_INT, ob, 1, bt, W), DFC_ERR_TYPE, RT);
    COLL3(Allgatherv, Iallgatherv, (ib, 1, DFC_INT, ob, cnt, dsp, bt, W), DFC_ERR_TYPE, RT);
    COLL3(Alltoall, Ialltoall, (ib, 1, bt, ob, 1, DFC_INT, W), DFC_ERR_TYPE, ST);
    COLL3(Alltoallv, Ialltoallv, (ib, cnt, dsp, DFC_INT, ob, cnt, dsp, bt, W), DFC_ERR_TYPE, RT);
    if (committed_only) return;
    DFC_Count csz;
    DFC_Aint lb, ext;
    int a, b, c, d;
    ROW(DFC_Reduce_local(ib, ob, 1, bt, DFC_SUM), DFC_ERR_TYPE, D);
    ROW(DFC_Type_size(bt, &n_out), DFC_ERR_TYPE, D);
    ROW(DFC_Type_size_c(bt, &csz), DFC_ERR_TYPE, D);
    ROW(DFC_Type_get_extent(bt, &lb, &ext), DFC_ERR_TYPE, D);
    ROW(DFC_Type_get_envelope(bt, &a, &b, &c, &d), DFC_ERR_TYPE, D);
    ROW(DFC_Type_dup(bt, &nt), DFC_ERR_TYPE, "oldtype");
    ROW(DFC_Type_contiguous(1, bt, &nt), DFC_ERR_TYPE, "oldtype");
    ROW(DFC_Type_vector(1, 1, 1, bt, &nt), DFC_ERR_TYPE, "oldtype");
    ROW(DFC_Type_commit(&tmp), DFC_ERR_TYPE, D);
    ROW(DFC_Type_free(&tmp), DFC_ERR_TYPE, D);
    DFC_Status s0 = {0};
    ROW(DFC_Get_count(&s0, bt, &n_out), DFC_ERR_TYPE, D);
    ROW(DFC_Get_elements(&s0, bt, &n_out), DFC_ERR_TYPE, D);
    DFCT_CHECK(nt == DFC_DATATYPE_NULL && tmp == bt,
               "a failed type call wrote its output (type 0x%x)", bt);
}

/* Every call that takes an op, with the bad op bo, or with a valid op bo that is not defined
 * for dt (the calls without a type are then left out). */
static void op_rows(DFC_Op bo, DFC_Datatype dt, DFC_Comm W, int op_invalid)
{
    DFC_Op tmp = bo;
    COLL3(Reduce, Ireduce, (ib, ob, 1, dt, bo, 0, W), DFC_ERR_OP, "op");
    COLL3(Allreduce, Iallreduce, (ib, ob, 1, dt, bo, W), DFC_ERR_OP, "op");
    COLL3(Scan, Iscan, (ib, ob, 1, dt, bo, W), DFC_ERR_OP, "op");
    COLL3(Exscan, Iexscan, (ib, ob, 1, dt, bo, W), DFC_ERR_OP, "op");
    COLL3(Reduce_scatter_block, Ireduce_scatter_block, (ib, ob, 1, dt, bo, W), DFC_ERR_OP, "op");
    COLL3(Reduce_scatter, Ireduce_scatter, (ib, ob, cnt, dt, bo, W), DFC_ERR_OP, "op");
    ROW(DFC_Reduce_local(ib, ob, 1, dt, bo), DFC_ERR_OP, "op");
    if (!op_invalid) return;
    ROW(DFC_Op_commutative(bo, &n_out), DFC_ERR_OP, "op");
    ROW(DFC_Op_free(&tmp), DFC_ERR_OP, "op");
    DFCT_CHECK(tmp == bo, "a failed Op_free wrote its handle (op 0x%x)", bo);
}

/* Negative counts, bad ranks, tags and roots, NULL buffers and NULL request pointers, on
 * the intracommunicator W (S: DFC_COMM_SELF). */
static void value_rows(DFC_Comm W)
{
    DFC_Comm S = DFC_COMM_SELF;
    int n, P = DFC_PROC_NULL, neg[MAXP], negS[1] = {-1};
    DFC_Comm_size(W, &n);
    for (int i = 0; i < MAXP; i++) neg[i] = i == n - 1 ? -1 : 1; /* the last one: all are checked */
    /* counts */
    ROW(DFC_Send(ib, -1, DFC_INT, 0, 0, W), DFC_ERR_COUNT, "count");
    ROW(DFC_Issend(ib, -5, DFC_INT, P, 0, W, &rq), DFC_ERR_COUNT, "count");
    ROW(DFC_Recv(ob, -1, DFC_INT, 0, 0, W, &st), DFC_ERR_COUNT, "count");
    ROW(DFC_Recv_init(ob, -1, DFC_INT, 0, 0, W, &rq), DFC_ERR_COUNT, "count");
    ROW(DFC_Sendrecv(ib, -1, DFC_INT, P, 0, ob, 1, DFC_INT, P, 0, W, &st), DFC_ERR_COUNT,
        "sendcount");
    ROW(DFC_Sendrecv(ib, 1, DFC_INT, P, 0, ob, -1, DFC_INT, P, 0, W, &st), DFC_ERR_COUNT,
        "recvcount");
    COLL3(Bcast, Ibcast, (ob, -1, DFC_INT, 0, W), DFC_ERR_COUNT, "count");
    COLL3(Reduce, Ireduce, (ib, ob, -1, DFC_INT, DFC_SUM, 0, W), DFC_ERR_COUNT, "count");
    COLL3(Allreduce, Iallreduce, (ib, ob, -2, DFC_INT, DFC_SUM, W), DFC_ERR_COUNT, "count");
    COLL3(Scan, Iscan, (ib, ob, -1, DFC_INT, DFC_SUM, W), DFC_ERR_COUNT, "count");
    COLL3(Exscan, Iexscan, (ib, ob, -1, DFC_INT, DFC_SUM, W), DFC_ERR_COUNT, "count");
    /* MPI calls it recvcount; "count" until api_coll.c (not this branch's) says so */
    COLL3(Reduce_scatter_block, Ireduce_scatter_block, (ib, ob, -1, DFC_INT, DFC_SUM, W),
          DFC_ERR_COUNT, "count");
    COLL3(Reduce_scatter, Ireduce_scatter, (ib, ob, neg, DFC_INT, DFC_SUM, W), DFC_ERR_COUNT,
          "recvcounts");
    COLL3(Gather, Igather, (ib, -1, DFC_INT, ob, 1, DFC_INT, 0, W), DFC_ERR_COUNT, "sendcount");
    COLL3(Gather, Igather, (ib, 1, DFC_INT, ob, -1, DFC_INT, 0, S), DFC_ERR_COUNT, "recvcount");
    COLL3(Gatherv, Igatherv, (ib, 1, DFC_INT, ob, negS, dsp, DFC_INT, 0, S), DFC_ERR_COUNT,
          "recvcounts");
    COLL3(Scatter, Iscatter, (ib, 1, DFC_INT, ob, -1, DFC_INT, 0, W), DFC_ERR_COUNT, "recvcount");
    COLL3(Scatterv, Iscatterv, (ib, negS, dsp, DFC_INT, ob, 1, DFC_INT, 0, S), DFC_ERR_COUNT,
          "sendcounts");
    COLL3(Allgather, Iallgather, (ib, 1, DFC_INT, ob, -1, DFC_INT, W), DFC_ERR_COUNT, "recvcount");
    COLL3(Allgatherv, Iallgatherv, (ib, 1, DFC_INT, ob, neg, dsp, DFC_INT, W), DFC_ERR_COUNT,
          "recvcounts");
    COLL3(Alltoall, Ialltoall, (ib, -1, DFC_INT, ob, 1, DFC_INT, W), DFC_ERR_COUNT, "sendcount");
    COLL3(Alltoallv, Ialltoallv, (ib, neg, dsp, DFC_INT, ob, cnt, dsp, DFC_INT, W), DFC_ERR_COUNT,
          "sendcounts");
    COLL3(Alltoallv, Ialltoallv, (ib, cnt, dsp, DFC_INT, ob, neg, dsp, DFC_INT, W), DFC_ERR_COUNT,
          "recvcounts");
    /* ranks */
    ROW(DFC_Send(ib, 1, DFC_INT, n, 0, W), DFC_ERR_RANK, "dest");
    ROW(DFC_Isend(ib, 1, DFC_INT, DFC_ANY_SOURCE, 0, W, &rq), DFC_ERR_RANK, "dest");
    ROW(DFC_Recv(ob, 1, DFC_INT, -5, 0, W, &st), DFC_ERR_RANK, "source");
    ROW(DFC_Irecv(ob, 1, DFC_INT, n + 7, 0, W, &rq), DFC_ERR_RANK, "source");
    ROW(DFC_Probe(n, 0, W, &st), DFC_ERR_RANK, "source");
    ROW(DFC_Iprobe(-9, 0, W, &flag, &st), DFC_ERR_RANK, "source");
    ROW(DFC_Sendrecv(ib, 1, DFC_INT, n, 0, ob, 1, DFC_INT, P, 0, W, &st), DFC_ERR_RANK, "dest");
    ROW(DFC_Sendrecv(ib, 1, DFC_INT, P, 0, ob, 1, DFC_INT, n, 0, W, &st), DFC_ERR_RANK, "source");
    ROW(DFC_Comm_get_peer_transport(W, n, name, &n_out), DFC_ERR_RANK, "rank");
    /* tags */
    ROW(DFC_Send(ib, 1, DFC_INT, P, -3, W), DFC_ERR_TAG, "tag");
    ROW(DFC_Ssend(ib, 1, DFC_INT, P, DFC_ANY_TAG, W), DFC_ERR_TAG, "tag");
    ROW(DFC_Send_init(ib, 1, DFC_INT, P, -3, W, &rq), DFC_ERR_TAG, "tag");
    ROW(DFC_Irecv(ob, 1, DFC_INT, P, -2, W, &rq), DFC_ERR_TAG, "tag");
    ROW(DFC_Sendrecv(ib, 1, DFC_INT, P, -3, ob, 1, DFC_INT, P, 0, W, &st), DFC_ERR_TAG, "sendtag");
    ROW(DFC_Sendrecv(ib, 1, DFC_INT, P, 0, ob, 1, DFC_INT, P, -3, W, &st), DFC_ERR_TAG, "recvtag");
    ROW(DFC_Sendrecv_replace(ob, 1, DFC_INT, P, 0, P, -4, W, &st), DFC_ERR_TAG, "recvtag");
    ROW(DFC_Probe(P, -4, W, &st), DFC_ERR_TAG, "tag");
    ROW(DFC_Comm_create_group(W, DFC_GROUP_EMPTY, -1, &n_out), DFC_ERR_TAG, "tag");
    /* roots: out of range, PROC_NULL and DFC_ROOT (only intercommunicators have them) */
    int roots[] = {n, -7, DFC_PROC_NULL, DFC_ROOT, DFC_ANY_SOURCE};
    for (int k = 0; k < (int)(sizeof roots / sizeof roots[0]); k++) {
        int r = roots[k];
        COLL3(Bcast, Ibcast, (ob, 1, DFC_INT, r, W), DFC_ERR_ROOT, "root");
        COLL3(Reduce, Ireduce, (ib, ob, 1, DFC_INT, DFC_SUM, r, W), DFC_ERR_ROOT, "root");
        COLL3(Gather, Igather, (ib, 1, DFC_INT, ob, 1, DFC_INT, r, W), DFC_ERR_ROOT, "root");
        COLL3(Gatherv, Igatherv, (ib, 1, DFC_INT, ob, cnt, dsp, DFC_INT, r, W), DFC_ERR_ROOT,
              "root");
        COLL3(Scatter, Iscatter, (ib, 1, DFC_INT, ob, 1, DFC_INT, r, W), DFC_ERR_ROOT, "root");
        COLL3(Scatterv, Iscatterv, (ib, cnt, dsp, DFC_INT, ob, 1, DFC_INT, r, W), DFC_ERR_ROOT,
              "root");
    }
    /* NULL buffers with a positive count */
    ROW(DFC_Send(NULL, 1, DFC_INT, P, 0, W), DFC_ERR_BUFFER, "buf");
    ROW(DFC_Irecv(NULL, 2, DFC_INT, P, 0, W, &rq), DFC_ERR_BUFFER, "buf");
    ROW(DFC_Sendrecv(NULL, 1, DFC_INT, P, 0, ob, 1, DFC_INT, P, 0, W, &st), DFC_ERR_BUFFER,
        "sendbuf");
    ROW(DFC_Sendrecv(ib, 1, DFC_INT, P, 0, NULL, 1, DFC_INT, P, 0, W, &st), DFC_ERR_BUFFER,
        "recvbuf");
    COLL3(Bcast, Ibcast, (NULL, 1, DFC_INT, 0, W), DFC_ERR_BUFFER, "buffer");
    COLL3(Allreduce, Iallreduce, (NULL, ob, 1, DFC_INT, DFC_SUM, W), DFC_ERR_BUFFER, "sendbuf");
    COLL3(Allreduce, Iallreduce, (ib, NULL, 1, DFC_INT, DFC_SUM, W), DFC_ERR_BUFFER, "recvbuf");
    COLL3(Reduce, Ireduce, (ib, NULL, 1, DFC_INT, DFC_SUM, 0, S), DFC_ERR_BUFFER, "recvbuf");
    COLL3(Gather, Igather, (NULL, 1, DFC_INT, ob, 1, DFC_INT, 0, W), DFC_ERR_BUFFER, "sendbuf");
    COLL3(Gather, Igather, (ib, 1, DFC_INT, NULL, 1, DFC_INT, 0, S), DFC_ERR_BUFFER, "recvbuf");
    COLL3(Scatter, Iscatter, (ib, 1, DFC_INT, NULL, 1, DFC_INT, 0, W), DFC_ERR_BUFFER, "recvbuf");
    COLL3(Allgather, Iallgather, (ib, 1, DFC_INT, NULL, 1, DFC_INT, W), DFC_ERR_BUFFER, "recvbuf");
    COLL3(Alltoall, Ialltoall, (NULL, 1, DFC_INT, ob, 1, DFC_INT, W), DFC_ERR_BUFFER, "sendbuf");
    COLL3(Scan, Iscan, (ib, NULL, 1, DFC_INT, DFC_SUM, W), DFC_ERR_BUFFER, "recvbuf");
    ROW(DFC_Reduce_local(NULL, ob, 1, DFC_INT, DFC_SUM), DFC_ERR_BUFFER, "inbuf");
    ROW(DFC_Reduce_local(ib, NULL, 1, DFC_INT, DFC_SUM), DFC_ERR_BUFFER, "inoutbuf");
    /* NULL displacement arrays where they are significant */
    COLL3(Gatherv, Igatherv, (ib, 1, DFC_INT, ob, cnt, NULL, DFC_INT, 0, S), DFC_ERR_ARG, "displs");
    COLL3(Alltoallv, Ialltoallv, (ib, cnt, NULL, DFC_INT, ob, cnt, dsp, DFC_INT, W), DFC_ERR_ARG,
          "sdispls");
    COLL3(Alltoallv, Ialltoallv, (ib, cnt, dsp, DFC_INT, ob, cnt, NULL, DFC_INT, W), DFC_ERR_ARG,
          "rdispls");
    /* NULL count arrays of the v forms */
    COLL3(Gatherv, Igatherv, (ib, 1, DFC_INT, ob, NULL, dsp, DFC_INT, 0, S), DFC_ERR_ARG,
          "recvcounts");
    COLL3(Scatterv, Iscatterv, (ib, NULL, dsp, DFC_INT, ob, 1, DFC_INT, 0, S), DFC_ERR_ARG,
          "sendcounts");
    COLL3(Allgatherv, Iallgatherv, (ib, 1, DFC_INT, ob, NULL, dsp, DFC_INT, W), DFC_ERR_ARG,
          "recvcounts");
    COLL3(Alltoallv, Ialltoallv, (ib, NULL, dsp, DFC_INT, ob, cnt, dsp, DFC_INT, W), DFC_ERR_ARG,
          "sendcounts");
    COLL3(Alltoallv, Ialltoallv, (ib, cnt, dsp, DFC_INT, ob, NULL, dsp, DFC_INT, W), DFC_ERR_ARG,
          "recvcounts");
    COLL3(Reduce_scatter, Ireduce_scatter, (ib, ob, NULL, DFC_INT, DFC_SUM, W), DFC_ERR_ARG,
          "recvcounts");
    /* NULL request pointers of the nonblocking and persistent forms */
    ROW(DFC_Isend(ib, 1, DFC_INT, P, 0, W, NULL), DFC_ERR_ARG, "request");
    ROW(DFC_Irecv(ob, 1, DFC_INT, P, 0, W, NULL), DFC_ERR_ARG, "request");
    ROW(DFC_Ssend_init(ib, 1, DFC_INT, P, 0, W, NULL), DFC_ERR_ARG, "request");
    ROW(DFC_Ibarrier(W, NULL), DFC_ERR_ARG, "request");
    ROW(DFC_Barrier_init(W, DFC_INFO_NULL, NULL), DFC_ERR_ARG, "request");
    ROW(DFC_Ibcast(ob, 1, DFC_INT, 0, W, NULL), DFC_ERR_ARG, "request");
    ROW(DFC_Iallreduce(ib, ob, 1, DFC_INT, DFC_SUM, W, NULL), DFC_ERR_ARG, "request");
    ROW(DFC_Reduce_init(ib, ob, 1, DFC_INT, DFC_SUM, 0, W, DFC_INFO_NULL, NULL), DFC_ERR_ARG,
        "request");
    ROW(DFC_Ialltoallv(ib, cnt, dsp, DFC_INT, ob, cnt, dsp, DFC_INT, W, NULL), DFC_ERR_ARG,
        "request");
    ROW(DFC_Iprobe(P, 0, W, NULL, &st), DFC_ERR_ARG, "flag");
}

/* Calls on groups, with the bad group bg. */
static void group_rows(DFC_Group bg)
{
    DFC_Group ng = DFC_GROUP_NULL, tmp = bg;
    DFC_Comm nc = DFC_COMM_NULL;
    int r0[1] = {0}, r1[1], range[1][3] = {{0, 0, 1}};
    ROW(DFC_Group_size(bg, &n_out), DFC_ERR_GROUP, "group");
    ROW(DFC_Group_rank(bg, &n_out), DFC_ERR_GROUP, "group");
    ROW(DFC_Group_incl(bg, 1, r0, &ng), DFC_ERR_GROUP, "group");
    ROW(DFC_Group_excl(bg, 1, r0, &ng), DFC_ERR_GROUP, "group");
    ROW(DFC_Group_range_incl(bg, 1, range, &ng), DFC_ERR_GROUP, "group");
    ROW(DFC_Group_range_excl(bg, 1, range, &ng), DFC_ERR_GROUP, "group");
    ROW(DFC_Group_union(bg, wg, &ng), DFC_ERR_GROUP, "group1");
    ROW(DFC_Group_union(wg, bg, &ng), DFC_ERR_GROUP, "group2");
    ROW(DFC_Group_intersection(bg, wg, &ng), DFC_ERR_GROUP, "group1");
    ROW(DFC_Group_difference(wg, bg, &ng), DFC_ERR_GROUP, "group2");
    ROW(DFC_Group_translate_ranks(bg, 1, r0, wg, r1), DFC_ERR_GROUP, "group1");
    ROW(DFC_Group_translate_ranks(wg, 1, r0, bg, r1), DFC_ERR_GROUP, "group2");
    ROW(DFC_Group_compare(bg, wg, &n_out), DFC_ERR_GROUP, "group1");
    ROW(DFC_Group_compare(wg, bg, &n_out), DFC_ERR_GROUP, "group2");
    ROW(DFC_Group_free(&tmp), DFC_ERR_GROUP, "group");
    ROW(DFC_Comm_create(DFC_COMM_WORLD, bg, &nc), DFC_ERR_GROUP, "group");
    ROW(DFC_Comm_create_group(DFC_COMM_WORLD, bg, 0, &nc), DFC_ERR_GROUP, "group");
    DFCT_CHECK(ng == DFC_GROUP_NULL && nc == DFC_COMM_NULL && tmp == bg,
               "a failed group call wrote its output (group 0x%x)", bg);
}

/* Calls on infos, with the bad info bi; null_ok: bi is DFC_INFO_NULL, which the calls that
 * take hints accept. */
static void info_rows(DFC_Info bi, int null_ok)
{
    DFC_Info ni = DFC_INFO_NULL, tmp = bi;
    DFC_Comm nc = DFC_COMM_NULL;
    char val[16], key[DFC_MAX_INFO_KEY + 1];
    int len = sizeof val;
    ROW(DFC_Info_set(bi, "k", "v"), DFC_ERR_INFO, "info");
    ROW(DFC_Info_get(bi, "k", 15, val, &flag), DFC_ERR_INFO, "info");
    ROW(DFC_Info_get_string(bi, "k", &len, val, &flag), DFC_ERR_INFO, "info");
    ROW(DFC_Info_get_valuelen(bi, "k", &n_out, &flag), DFC_ERR_INFO, "info");
    ROW(DFC_Info_delete(bi, "k"), DFC_ERR_INFO, "info");
    ROW(DFC_Info_dup(bi, &ni), DFC_ERR_INFO, "info");
    ROW(DFC_Info_get_nkeys(bi, &n_out), DFC_ERR_INFO, "info");
    ROW(DFC_Info_get_nthkey(bi, 0, key), DFC_ERR_INFO, "info");
    ROW(DFC_Info_free(&tmp), DFC_ERR_INFO, "info");
    if (!null_ok) {
        ROW(DFC_Comm_dup_with_info(DFC_COMM_WORLD, bi, &nc), DFC_ERR_INFO, "info");
        ROW(DFC_Comm_set_info(DFC_COMM_WORLD, bi), DFC_ERR_INFO, "info");
        ROW(DFC_Comm_split_type(DFC_COMM_WORLD, DFC_COMM_TYPE_SHARED, 0, bi, &nc), DFC_ERR_INFO,
            "info");
        ROW(DFC_Barrier_init(DFC_COMM_WORLD, bi, &rq), DFC_ERR_INFO, "info");
        ROW(DFC_Allreduce_init(ib, ob, 1, DFC_INT, DFC_SUM, DFC_COMM_WORLD, bi, &rq), DFC_ERR_INFO,
            "info");
        ROW(DFC_Alltoall_init(ib, 1, DFC_INT, ob, 1, DFC_INT, DFC_COMM_WORLD, bi, &rq),
            DFC_ERR_INFO, "info");
    }
    DFCT_CHECK(ni == DFC_INFO_NULL && nc == DFC_COMM_NULL && tmp == bi,
               "a failed info call wrote its output (info 0x%x)", bi);
}

/* Calls on requests, with the bad request handle br (the handle must stay as it was). */
static void request_rows(DFC_Request br)
{
    DFC_Request a[2] = {DFC_REQUEST_NULL, br}, h = br;
    DFC_Status sts[2];
    int idx[2], k;
    ROW(DFC_Wait(&h, &st), DFC_ERR_REQUEST, "request");
    ROW(DFC_Test(&h, &flag, &st), DFC_ERR_REQUEST, "request");
    ROW(DFC_Start(&h), DFC_ERR_REQUEST, "request");
    ROW(DFC_Request_free(&h), DFC_ERR_REQUEST, "request");
    ROW(DFC_Cancel(&h), DFC_ERR_REQUEST, "request");
    ROW(DFC_Request_get_status(br, &flag, &st), DFC_ERR_REQUEST, "request");
    ROW(DFC_Request_set_callback(br, NULL, NULL), DFC_ERR_REQUEST, "request");
    ROW(DFC_Waitany(2, a, &k, &st), DFC_ERR_REQUEST, "array_of_requests");
    ROW(DFC_Testany(2, a, &k, &flag, &st), DFC_ERR_REQUEST, "array_of_requests");
    ROW(DFC_Waitall(2, a, sts), DFC_ERR_REQUEST, "array_of_requests");
    ROW(DFC_Testall(2, a, &flag, sts), DFC_ERR_REQUEST, "array_of_requests");
    ROW(DFC_Waitsome(2, a, &k, idx, sts), DFC_ERR_REQUEST, "array_of_requests");
    ROW(DFC_Testsome(2, a, &k, idx, sts), DFC_ERR_REQUEST, "array_of_requests");
    ROW(DFC_Startall(2, a), DFC_ERR_REQUEST, "array_of_requests");
    DFCT_CHECK(h == br && a[1] == br, "a failed request call changed the bad handle 0x%x", br);
}

/* NULL pointers and negative counts of the request, group, info, type and other calls. */
static void pointer_rows(void)
{
    DFC_Request a[1] = {DFC_REQUEST_NULL};
    DFC_Info info;
    DFC_Datatype t = DFC_INT;
    DFC_Op op = DFC_SUM;
    int r0[1] = {0}, r1[1], k;
    char big[DFC_MAX_INFO_VAL + 2];
    DFC_Info_create(&info);
    ROW(DFC_Wait(NULL, &st), DFC_ERR_ARG, "request");
    ROW(DFC_Test(a, NULL, &st), DFC_ERR_ARG, "flag");
    ROW(DFC_Waitany(1, a, NULL, &st), DFC_ERR_ARG, "index");
    ROW(DFC_Waitall(1, NULL, DFC_STATUSES_IGNORE), DFC_ERR_ARG, "array_of_requests");
    ROW(DFC_Testall(1, a, NULL, DFC_STATUSES_IGNORE), DFC_ERR_ARG, "flag");
    ROW(DFC_Waitsome(1, a, NULL, r1, DFC_STATUSES_IGNORE), DFC_ERR_ARG, "outcount");
    ROW(DFC_Testsome(1, a, &k, NULL, DFC_STATUSES_IGNORE), DFC_ERR_ARG, "array_of_indices");
    ROW(DFC_Start(NULL), DFC_ERR_ARG, "request");
    ROW(DFC_Startall(1, NULL), DFC_ERR_ARG, "array_of_requests");
    ROW(DFC_Request_free(NULL), DFC_ERR_ARG, "request");
    ROW(DFC_Cancel(NULL), DFC_ERR_ARG, "request");
    ROW(DFC_Waitall(-1, a, DFC_STATUSES_IGNORE), DFC_ERR_COUNT, "count");
    ROW(DFC_Testany(-1, a, &k, &flag, &st), DFC_ERR_COUNT, "count");
    ROW(DFC_Waitsome(-1, a, &k, r1, DFC_STATUSES_IGNORE), DFC_ERR_COUNT, "incount");
    ROW(DFC_Startall(-2, a), DFC_ERR_COUNT, "count");
    /* null and inactive requests are no error, but Start and Request_free need one */
    ROW(DFC_Start(a), DFC_ERR_REQUEST, "request");
    ROW(DFC_Request_free(a), DFC_ERR_REQUEST, "request");
    ROW(DFC_Comm_size(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "size");
    ROW(DFC_Comm_rank(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "rank");
    ROW(DFC_Comm_dup(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "newcomm");
    ROW(DFC_Comm_split(DFC_COMM_WORLD, 0, 0, NULL), DFC_ERR_ARG, "newcomm");
    ROW(DFC_Comm_group(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "group");
    ROW(DFC_Comm_compare(DFC_COMM_WORLD, DFC_COMM_SELF, NULL), DFC_ERR_ARG, "result");
    ROW(DFC_Comm_set_name(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "comm_name");
    ROW(DFC_Comm_get_name(DFC_COMM_WORLD, NULL, &k), DFC_ERR_ARG, "comm_name");
    ROW(DFC_Comm_get_name(DFC_COMM_WORLD, name, NULL), DFC_ERR_ARG, "resultlen");
    ROW(DFC_Comm_get_info(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "info_used");
    ROW(DFC_Comm_get_errhandler(DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "errhandler");
    ROW(DFC_Comm_set_errhandler(DFC_COMM_WORLD, (DFC_Errhandler)0x07000fff), DFC_ERR_ERRHANDLER,
        "errhandler");
    ROW(DFC_Comm_free(NULL), DFC_ERR_ARG, "comm");
    ROW(DFC_Comm_split(DFC_COMM_WORLD, -3, 0, &k), DFC_ERR_ARG, "color");
    ROW(DFC_Comm_split_type(DFC_COMM_WORLD, 77, 0, DFC_INFO_NULL, &k), DFC_ERR_ARG, "split_type");
    ROW(DFC_Group_size(wg, NULL), DFC_ERR_ARG, "size");
    ROW(DFC_Group_rank(wg, NULL), DFC_ERR_ARG, "rank");
    ROW(DFC_Group_incl(wg, 1, NULL, &k), DFC_ERR_ARG, "ranks");
    ROW(DFC_Group_incl(wg, 1, r0, NULL), DFC_ERR_ARG, "newgroup");
    ROW(DFC_Group_incl(wg, -1, r0, &k), DFC_ERR_ARG, "n");
    ROW(DFC_Group_excl(wg, -1, r0, &k), DFC_ERR_ARG, "n");
    ROW(DFC_Group_range_incl(wg, 1, NULL, &k), DFC_ERR_ARG, "ranges");
    ROW(DFC_Group_union(wg, wg, NULL), DFC_ERR_ARG, "newgroup");
    ROW(DFC_Group_compare(wg, wg, NULL), DFC_ERR_ARG, "result");
    ROW(DFC_Group_translate_ranks(wg, 1, NULL, wg, r1), DFC_ERR_ARG, "ranks1");
    ROW(DFC_Group_translate_ranks(wg, 1, r0, wg, NULL), DFC_ERR_ARG, "ranks2");
    ROW(DFC_Group_translate_ranks(wg, -1, r0, wg, r1), DFC_ERR_ARG, "n");
    ROW(DFC_Group_free(NULL), DFC_ERR_ARG, "group");
    /* ranks out of range or repeated in a group's rank list */
    int bad[2] = {size, 0}, dup2[2] = {0, 0}, brange[1][3] = {{0, size, 1}};
    ROW(DFC_Group_incl(wg, 1, bad, &k), DFC_ERR_RANK, "ranks");
    ROW(DFC_Group_incl(wg, 2, dup2, &k), DFC_ERR_RANK, "ranks");
    ROW(DFC_Group_excl(wg, 1, bad, &k), DFC_ERR_RANK, "ranks");
    ROW(DFC_Group_range_incl(wg, 1, brange, &k), DFC_ERR_ARG, "ranges"); /* MPICH's class */
    ROW(DFC_Group_translate_ranks(wg, 1, bad, wg, r1), DFC_ERR_RANK, "ranks1");
    ROW(DFC_Info_create(NULL), DFC_ERR_ARG, "info");
    ROW(DFC_Info_set(info, NULL, "v"), DFC_ERR_INFO_KEY, "key");
    ROW(DFC_Info_set(info, "", "v"), DFC_ERR_INFO_KEY, "key");
    memset(big, 'k', sizeof big - 1);
    big[DFC_MAX_INFO_KEY + 1] = '\0';
    ROW(DFC_Info_set(info, big, "v"), DFC_ERR_INFO_KEY, "key");
    ROW(DFC_Info_set(info, "k", NULL), DFC_ERR_INFO_VALUE, "value");
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ROW(DFC_Info_set(info, "k", big), DFC_ERR_INFO_VALUE, "value");
    ROW(DFC_Info_delete(info, "absent"), DFC_ERR_INFO_NOKEY, "key");
    ROW(DFC_Info_get(info, "k", -1, name, &flag), DFC_ERR_ARG, "valuelen");
    ROW(DFC_Info_get(info, "k", 4, name, NULL), DFC_ERR_ARG, "flag");
    ROW(DFC_Info_get_nkeys(info, NULL), DFC_ERR_ARG, "nkeys");
    ROW(DFC_Info_get_nthkey(info, 0, name), DFC_ERR_ARG, "n"); /* no keys yet */
    ROW(DFC_Info_dup(info, NULL), DFC_ERR_ARG, "newinfo");
    ROW(DFC_Info_free(NULL), DFC_ERR_ARG, "info");
    ROW(DFC_Type_size(DFC_INT, NULL), DFC_ERR_ARG, "size");
    ROW(DFC_Type_contiguous(1, DFC_INT, NULL), DFC_ERR_ARG, "newtype");
    ROW(DFC_Type_contiguous(-1, DFC_INT, &t), DFC_ERR_COUNT, "count");
    ROW(DFC_Type_vector(-1, 1, 1, DFC_INT, &t), DFC_ERR_COUNT, "count");
    ROW(DFC_Type_vector(1, -1, 1, DFC_INT, &t), DFC_ERR_ARG, "blocklength");
    ROW(DFC_Type_commit(NULL), DFC_ERR_ARG, "datatype");
    ROW(DFC_Type_free(NULL), DFC_ERR_ARG, "datatype");
    ROW(DFC_Type_free(&t), DFC_ERR_TYPE, "datatype"); /* predefined */
    ROW(DFC_Get_count(NULL, DFC_INT, &k), DFC_ERR_ARG, "status");
    ROW(DFC_Get_count(&st, DFC_INT, NULL), DFC_ERR_ARG, "count");
    ROW(DFC_Op_create(NULL, 1, &op), DFC_ERR_ARG, "user_fn");
    ROW(DFC_Op_create(myop, 1, NULL), DFC_ERR_ARG, "op");
    ROW(DFC_Op_free(NULL), DFC_ERR_ARG, "op");
    ROW(DFC_Op_free(&op), DFC_ERR_OP, "op"); /* predefined */
    ROW(DFC_Op_commutative(DFC_SUM, NULL), DFC_ERR_ARG, "commute");
    ROW(DFC_Reduce_local(ib, ob, -1, DFC_INT, DFC_SUM), DFC_ERR_COUNT, "count");
    ROW(DFC_Get_processor_name(NULL, &k), DFC_ERR_ARG, "name");
    ROW(DFC_Get_processor_name(name, NULL), DFC_ERR_ARG, "resultlen");
    ROW(DFC_Get_library_version(NULL, &k), DFC_ERR_ARG, "version");
    DFCT_CHECK(t == DFC_INT && op == DFC_SUM, "a failed call changed a predefined handle");
    DFC_Info_free(&info);
}

/* A receive buffer too small: every p2p receive form reports DFC_ERR_TRUNCATE, naming the
 * call that posted the receive and its count; the first count items arrive, the rest of
 * the buffer is untouched. Sizes: eager (8 ints) and rendezvous (256 KiB). */
static void truncate_rows(DFC_Comm W, int items)
{
    int n, me, right, left;
    DFC_Comm_size(W, &n);
    DFC_Comm_rank(W, &me);
    right = (me + 1) % n, left = (me + n - 1) % n;
    int *out = malloc(items * sizeof(int)), *in = malloc((items + 1) * sizeof(int)),
        half = items / 2;
    DFC_Request s, r, arr[2];
    DFC_Status sts[2];
    for (int i = 0; i < items; i++) out[i] = me * 100000 + i;
    for (int form = 0; form < 7; form++) {
        for (int i = 0; i <= items; i++) in[i] = -7;
        int rc = DFC_SUCCESS, idx;
        const char *text = "";
        DFCT_OK(DFC_Isend(out, items, DFC_INT, right, 40 + form, W, &s));
        switch (form) {
        case 0: rc = DFC_Recv(in, half, DFC_INT, left, 40, W, &st), text = "DFC_Recv(count)"; break;
        case 1:
            DFCT_OK(DFC_Irecv(in, half, DFC_INT, left, 41, W, &r));
            rc = DFC_Wait(&r, &st), text = "DFC_Irecv(count)";
            break;
        case 2:
            DFCT_OK(DFC_Recv_init(in, half, DFC_INT, left, 42, W, &r));
            DFCT_OK(DFC_Start(&r));
            rc = DFC_Wait(&r, &st), text = "DFC_Recv_init(count)";
            DFCT_OK(DFC_Request_free(&r));
            break;
        case 3: /* Waitall: DFC_ERR_IN_STATUS, the receive's status says TRUNCATE */
            DFCT_OK(DFC_Irecv(in, half, DFC_INT, left, 43, W, &arr[1]));
            arr[0] = s, s = DFC_REQUEST_NULL;
            sts[0].DFC_ERROR = sts[1].DFC_ERROR = -1;
            ROW(DFC_Waitall(2, arr, sts), DFC_ERR_IN_STATUS, "requests");
            DFC_Error_class(sts[1].DFC_ERROR, &idx);
            DFCT_CHECK(sts[0].DFC_ERROR == DFC_SUCCESS && idx == DFC_ERR_TRUNCATE,
                       "Waitall statuses: send %d, truncated receive class %d", sts[0].DFC_ERROR,
                       idx);
            rc = sts[1].DFC_ERROR, text = "DFC_Irecv(count)";
            break;
        case 4:
            DFCT_OK(DFC_Irecv(in, half, DFC_INT, left, 44, W, &r));
            rc = DFC_Waitany(1, &r, &idx, &st), text = "DFC_Irecv(count)";
            DFCT_CHECK(idx == 0 && r == DFC_REQUEST_NULL, "Waitany after truncation: index %d",
                       idx);
            break;
        case 5:
            rc = DFC_Sendrecv(ib, 0, DFC_INT, DFC_PROC_NULL, 0, in, half, DFC_INT, left, 45, W,
                              &st);
            text = "DFC_Sendrecv(recvcount)";
            break;
        case 6:
            rc = DFC_Sendrecv_replace(in, half, DFC_INT, DFC_PROC_NULL, 0, left, 46, W, &st);
            text = "DFC_Sendrecv_replace(count)";
            break;
        }
        expect(rc, text, DFC_ERR_TRUNCATE, "count", __LINE__);
        if (s != DFC_REQUEST_NULL) DFCT_OK(DFC_Wait(&s, DFC_STATUS_IGNORE));
        int bad = 0;
        for (int i = 0; i < half; i++) bad += in[i] != left * 100000 + i;
        DFCT_CHECK(!bad && in[half] == -7 && in[items] == -7,
                   "truncated receive form %d (%d items): %d bad items, guard %d", form, items, bad,
                   in[half]);
    }
    free(out);
    free(in);
}

/* A collective whose receive buffer is too small: the non-roots send 2*N items to a Gather
 * whose root expects N from each. The root must see DFC_ERR_TRUNCATE with the first N items
 * of each block in place and nothing written past them; the senders succeed. (Not Bcast:
 * in a tree, a rank whose receive is truncated stops and its children hang; reported.) */
static void coll_truncate_row(DFC_Comm W)
{
    int n, me;
    DFC_Comm_size(W, &n);
    DFC_Comm_rank(W, &me);
    if (n < 2) return;
    int mine[2 * N], *all = malloc((N * n + 1) * sizeof(int)), cls = -1, len, bad = 0;
    char msg[DFC_MAX_ERROR_STRING] = "";
    for (int i = 0; i < 2 * N; i++) mine[i] = me * 1000 + i;
    for (int i = 0; i <= N * n; i++) all[i] = -7;
    int rc = DFC_Gather(mine, me == 0 ? N : 2 * N, DFC_INT, all, N, DFC_INT, 0, W);
    DFC_Error_class(rc, &cls);
    DFC_Error_string(rc, msg, &len);
    if (me == 0) {
        /* The message comes from the collective engine, which does not know the entry
         * point's name (src/coll and api_coll.c are not this branch's): check the reason. */
        DFCT_CHECK(cls == DFC_ERR_TRUNCATE && strstr(msg, "longer than the receive buffer"),
                   "Gather into a short buffer: class %d (%s)", cls, msg);
        for (int p = 0; p < n; p++)
            for (int i = 0; i < N; i++) bad += all[p * N + i] != p * 1000 + i;
        DFCT_CHECK(!bad && all[N * n] == -7, "truncated Gather: %d bad items, guard %d", bad,
                   all[N * n]);
    } else {
        DFCT_CHECK(rc == DFC_SUCCESS, "Gather sender with a truncating root: %s", msg);
    }
    free(all);
}

/* The library still works: a checked Allreduce and a Sendrecv ring, outputs poisoned. */
/* The topology functions and neighborhood collectives with the bad communicator bc. */
static void topo_comm_rows(DFC_Comm bc)
{
    int d[2] = {1, 1}, p[2] = {0, 0}, x, y, z;
    DFC_Aint ad[1] = {0};
    DFC_Datatype ty[1] = {DFC_INT};
    DFC_Comm nc = DFC_COMM_NULL;
    ROW(DFC_Cart_create(bc, 2, d, p, 0, &nc), DFC_ERR_COMM, "comm_old");
    ROW(DFC_Cart_map(bc, 2, d, p, &x), DFC_ERR_COMM, "comm");
    ROW(DFC_Cart_shift(bc, 0, 1, &x, &y), DFC_ERR_COMM, "comm");
    ROW(DFC_Graph_create(bc, 1, d, p, 0, &nc), DFC_ERR_COMM, "comm_old");
    ROW(DFC_Dist_graph_create_adjacent(bc, 0, d, DFC_UNWEIGHTED, 0, d, DFC_UNWEIGHTED,
                                       DFC_INFO_NULL, 0, &nc),
        DFC_ERR_COMM, "comm_old");
    ROW(DFC_Dist_graph_neighbors_count(bc, &x, &y, &z), DFC_ERR_COMM, "comm");
    ROW(DFC_Topo_test(bc, &x), DFC_ERR_COMM, "comm");
    COLL3(Neighbor_allgather, Ineighbor_allgather, (ib, 1, DFC_INT, ob, 1, DFC_INT, bc),
          DFC_ERR_COMM, "comm");
    COLL3(Neighbor_alltoallv, Ineighbor_alltoallv,
          (ib, cnt, dsp, DFC_INT, ob, cnt, dsp, DFC_INT, bc), DFC_ERR_COMM, "comm");
    COLL3(Neighbor_alltoallw, Ineighbor_alltoallw, (ib, cnt, ad, ty, ob, cnt, ad, ty, bc),
          DFC_ERR_COMM, "comm");
    DFCT_CHECK(nc == DFC_COMM_NULL, "a failed topology constructor handed out a communicator");
}

/* Bad values for the topology functions, on W (which has no topology) and on a grid made
 * from it; every rank fails the same row before any communication. */
static void topo_rows(DFC_Comm W)
{
    int n, x, y, z, big[1], zero[2] = {0, 1}, one[2] = {1, 1}, per[2] = {0, 0}, c1[2] = {1, 0};
    int bad[1], negd[2] = {-1, 0}, three[2] = {3, 0};
    DFC_Comm nc = DFC_COMM_NULL, cart;
    DFC_Comm_size(W, &n);
    big[0] = n + 1;
    bad[0] = n;
    ROW(DFC_Cart_create(W, -1, one, per, 0, &nc), DFC_ERR_DIMS, "ndims");
    ROW(DFC_Cart_create(W, 2, zero, per, 0, &nc), DFC_ERR_DIMS, "dims");
    ROW(DFC_Cart_create(W, 1, big, per, 0, &nc), DFC_ERR_ARG, "dims");
    ROW(DFC_Cart_create(W, 2, one, NULL, 0, &nc), DFC_ERR_ARG, "periods");
    ROW(DFC_Cart_create(W, 2, one, per, 0, NULL), DFC_ERR_ARG, "comm_cart");
    ROW(DFC_Cartdim_get(W, &x), DFC_ERR_TOPOLOGY, "comm");
    ROW(DFC_Cart_get(W, 2, one, per, c1), DFC_ERR_TOPOLOGY, "comm");
    ROW(DFC_Cart_shift(W, 0, 1, &x, &y), DFC_ERR_TOPOLOGY, "comm");
    ROW(DFC_Cart_sub(W, one, &nc), DFC_ERR_TOPOLOGY, "comm");
    ROW(DFC_Graphdims_get(W, &x, &y), DFC_ERR_TOPOLOGY, "comm");
    ROW(DFC_Dist_graph_neighbors_count(W, &x, &y, &z), DFC_ERR_TOPOLOGY, "comm");
    ROW(DFC_Dims_create(10, 2, three), DFC_ERR_DIMS, "dims");
    ROW(DFC_Dims_create(4, 2, negd), DFC_ERR_DIMS, "dims");
    ROW(DFC_Dims_create(0, 1, zero), DFC_ERR_ARG, "nnodes");
    ROW(DFC_Graph_create(W, n + 1, one, one, 0, &nc), DFC_ERR_ARG, "nnodes");
    ROW(DFC_Dist_graph_create_adjacent(W, 1, bad, DFC_UNWEIGHTED, 0, one, DFC_UNWEIGHTED,
                                       DFC_INFO_NULL, 0, &nc),
        DFC_ERR_RANK, "sources");
    ROW(DFC_Dist_graph_create(W, 1, zero, negd, zero, DFC_UNWEIGHTED, DFC_INFO_NULL, 0, &nc),
        DFC_ERR_ARG, "degrees");
    COLL3(Neighbor_allgather, Ineighbor_allgather, (ib, 1, DFC_INT, ob, 1, DFC_INT, W),
          DFC_ERR_TOPOLOGY, "comm");
    COLL3(Neighbor_allgatherv, Ineighbor_allgatherv, (ib, 1, DFC_INT, ob, cnt, dsp, DFC_INT, W),
          DFC_ERR_TOPOLOGY, "comm");
    COLL3(Neighbor_alltoall, Ineighbor_alltoall, (ib, 1, DFC_INT, ob, 1, DFC_INT, W),
          DFC_ERR_TOPOLOGY, "comm");
    DFCT_CHECK(nc == DFC_COMM_NULL, "a failed topology constructor handed out a communicator");
    /* On a ring: the arguments of the neighborhood collectives themselves. */
    int dims[1] = {n}, periods[1] = {1};
    DFCT_OK(DFC_Cart_create(W, 1, dims, periods, 0, &cart));
    DFCT_OK(DFC_Comm_set_errhandler(cart, DFC_ERRORS_RETURN));
    ROW(DFC_Cart_coords(cart, n, 1, c1), DFC_ERR_RANK, "rank");
    ROW(DFC_Cart_shift(cart, 1, 1, &x, &y), DFC_ERR_ARG, "direction");
    COLL3(Neighbor_allgather, Ineighbor_allgather, (DFC_IN_PLACE, 1, DFC_INT, ob, 1, DFC_INT, cart),
          DFC_ERR_BUFFER, "sendbuf");
    COLL3(Neighbor_alltoall, Ineighbor_alltoall, (ib, -1, DFC_INT, ob, 1, DFC_INT, cart),
          DFC_ERR_COUNT, "sendcount");
    COLL3(Neighbor_alltoallv, Ineighbor_alltoallv,
          (ib, NULL, dsp, DFC_INT, ob, cnt, dsp, DFC_INT, cart), DFC_ERR_ARG, "sendcounts");
    DFCT_OK(DFC_Comm_free(&cart));
}

static void still_works(DFC_Comm W)
{
    int n, me;
    DFC_Comm_size(W, &n);
    DFC_Comm_rank(W, &me);
    int right = (me + 1) % n, left = (me + n - 1) % n, in[N], out[N + 1], bad = 0;
    for (int i = 0; i < N; i++) in[i] = me * 10 + i, out[i] = -7;
    out[N] = -9;
    DFCT_OK(DFC_Allreduce(in, out, N, DFC_INT, DFC_SUM, W));
    for (int i = 0; i < N; i++) bad += out[i] != 10 * n * (n - 1) / 2 + n * i;
    DFCT_CHECK(!bad && out[N] == -9, "Allreduce after the errors: %d bad items", bad);
    for (int i = 0; i <= N; i++) out[i] = -7;
    st.DFC_SOURCE = st.DFC_TAG = -7;
    DFCT_OK(DFC_Sendrecv(in, N, DFC_INT, right, 9, out, N, DFC_INT, left, 9, W, &st));
    bad = 0;
    for (int i = 0; i < N; i++) bad += out[i] != left * 10 + i;
    DFC_Get_count(&st, DFC_INT, &n_out);
    DFCT_CHECK(!bad && out[N] == -7 && st.DFC_SOURCE == left && st.DFC_TAG == 9 && n_out == N,
               "Sendrecv ring after the errors: %d bad items, source %d, count %d", bad,
               st.DFC_SOURCE, n_out);
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    if (size > MAXP) return dfct_finalize();
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_SELF, DFC_ERRORS_RETURN));
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &wg));
    for (int i = 0; i < N * MAXP; i++) ib[i] = i;
    for (int i = 0; i < MAXP; i++) cnt[i] = 1, dsp[i] = i;

    /* A created communicator (ranks reversed), with its own ERRORS_RETURN. */
    DFC_Comm rev;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, 0, size - rank, &rev));
    DFCT_OK(DFC_Comm_set_errhandler(rev, DFC_ERRORS_RETURN));

    /* Handles that are no longer or never were valid, of each kind. */
    DFC_Comm fc1, fc2;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &fc1));
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, rank % 2, 0, &fc2));
    DFC_Comm freed_c[2] = {fc1, fc2};
    DFCT_OK(DFC_Comm_free(&fc1));
    DFCT_OK(DFC_Comm_free(&fc2));
    DFC_Comm bad_comms[] = {DFC_COMM_NULL, freed_c[0], freed_c[1], (DFC_Comm)0x01fffff0,
                            (DFC_Comm)DFC_INT};
    for (unsigned i = 0; i < sizeof bad_comms / sizeof *bad_comms; i++) comm_rows(bad_comms[i]);
    for (unsigned i = 0; i < sizeof bad_comms / sizeof *bad_comms; i++)
        topo_comm_rows(bad_comms[i]);

    DFC_Datatype ft, unc;
    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &ft));
    DFCT_OK(DFC_Type_commit(&ft));
    DFC_Datatype freed_t = ft;
    DFCT_OK(DFC_Type_free(&ft));
    DFC_Datatype bad_types[] = {DFC_DATATYPE_NULL, freed_t, (DFC_Datatype)0x03fffff0,
                                (DFC_Datatype)DFC_SUM};
    for (unsigned i = 0; i < sizeof bad_types / sizeof *bad_types; i++)
        type_rows(bad_types[i], DFC_COMM_WORLD, 0);
    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &unc));
    type_rows(unc, rev, 1);
    DFCT_OK(DFC_Type_free(&unc));

    DFC_Op fo;
    DFCT_OK(DFC_Op_create(myop, 1, &fo));
    DFC_Op freed_o = fo;
    DFCT_OK(DFC_Op_free(&fo));
    DFC_Op bad_ops[] = {DFC_OP_NULL, freed_o, (DFC_Op)0x04fffff0, (DFC_Op)DFC_INT};
    for (unsigned i = 0; i < sizeof bad_ops / sizeof *bad_ops; i++)
        op_rows(bad_ops[i], DFC_INT, DFC_COMM_WORLD, 1);
    op_rows(DFC_BAND, DFC_FLOAT, rev, 0); /* bitwise op on a float */
    op_rows(DFC_MAXLOC, DFC_INT, rev, 0); /* MAXLOC needs a pair type */
    op_rows(DFC_LAND, DFC_2INT, rev, 0);  /* logical op on a pair type */

    value_rows(DFC_COMM_WORLD);
    value_rows(rev);
    topo_rows(DFC_COMM_WORLD);
    topo_rows(rev);

    DFC_Group fg;
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &fg));
    DFC_Group freed_g = fg;
    DFCT_OK(DFC_Group_free(&fg));
    DFC_Group bad_groups[] = {DFC_GROUP_NULL, freed_g, (DFC_Group)0x02fffff0,
                              (DFC_Group)DFC_COMM_WORLD};
    for (unsigned i = 0; i < sizeof bad_groups / sizeof *bad_groups; i++) group_rows(bad_groups[i]);

    DFC_Info fi;
    DFCT_OK(DFC_Info_create(&fi));
    DFC_Info freed_i = fi;
    DFCT_OK(DFC_Info_free(&fi));
    info_rows(DFC_INFO_NULL, 1);
    DFC_Info bad_infos[] = {freed_i, (DFC_Info)0x06fffff0, (DFC_Info)DFC_COMM_WORLD};
    for (unsigned i = 0; i < sizeof bad_infos / sizeof *bad_infos; i++) info_rows(bad_infos[i], 0);

    DFC_Request fr;
    DFCT_OK(DFC_Isend(ib, 1, DFC_INT, DFC_PROC_NULL, 0, DFC_COMM_WORLD, &fr));
    DFC_Request freed_r = fr;
    DFCT_OK(DFC_Wait(&fr, DFC_STATUS_IGNORE));
    DFC_Request bad_reqs[] = {freed_r, (DFC_Request)0x05fffff0, (DFC_Request)DFC_COMM_WORLD};
    for (unsigned i = 0; i < sizeof bad_reqs / sizeof *bad_reqs; i++) request_rows(bad_reqs[i]);
    pointer_rows();

    truncate_rows(DFC_COMM_WORLD, 2 * N);
    truncate_rows(rev, 64 * 1024);
    coll_truncate_row(DFC_COMM_WORLD);

    still_works(DFC_COMM_WORLD);
    still_works(rev);
    DFCT_OK(DFC_Comm_free(&rev));
    DFCT_OK(DFC_Group_free(&wg));
    DFCT_CHECK(rows > 1000, "only %d rows ran", rows);
    return dfct_finalize();
}
