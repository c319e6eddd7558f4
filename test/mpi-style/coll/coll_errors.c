/*
 * coll_errors - argument errors of the collectives under DFC_ERRORS_RETURN: each returns
 * its error class with a message naming the function and the argument, in the blocking,
 * nonblocking and persistent forms, and nothing is started (so the sequence numbers that
 * match collectives stay in step). Afterwards the library still works: correct collectives
 * on the same communicator and on WORLD give correct results.
 *   bad root                      -> DFC_ERR_ROOT
 *   negative count(s)             -> DFC_ERR_COUNT
 *   op not defined for the type   -> DFC_ERR_OP (also DFC_OP_NULL, MAXLOC on INT)
 *   DFC_IN_PLACE where forbidden  -> DFC_ERR_BUFFER
 *   sendbuf == recvbuf (aliased)  -> DFC_ERR_BUFFER
 *   NULL request pointer          -> DFC_ERR_ARG
 *   DFC_Cancel on a collective    -> DFC_ERR_REQUEST (the collective then completes normally)
 *   datatype null / uncommitted   -> DFC_ERR_TYPE; invalid comm -> DFC_ERR_COMM;
 *   invalid info -> DFC_ERR_INFO; Start of an active request -> DFC_ERR_REQUEST.
 * Errors that MPI makes local to some ranks (IN_PLACE at a non-root, aliasing at the root)
 * are provoked on those ranks only: a check must fail before anything is communicated.
 */
#include "colltest.h"

static DFC_Comm comm;

/* Whether an error message names the function and (if not NULL) the argument. */
static int names(const char *msg, const char *fn, const char *arg)
{
    return strstr(msg, fn) && (!arg || strstr(msg, arg));
}

/* The call fails with class cls and a message that contains fn and (if not NULL) arg. */
#define EXPECT(call, cls, fn, arg)                                                               \
    do {                                                                                         \
        int rc_ = (call), cls_ = -1, len_ = 0;                                                   \
        char msg_[DFC_MAX_ERROR_STRING] = "";                                                    \
        DFC_Error_class(rc_, &cls_);                                                             \
        DFC_Error_string(rc_, msg_, &len_);                                                      \
        if (cls_ != (cls))                                                                       \
            dfct_fail_at(__FILE__, __LINE__, "%s: expected class %d, got %d (%s)", #call, (cls), \
                         cls_, msg_);                                                            \
        else if (!names(msg_, fn, arg))                                                          \
            dfct_fail_at(__FILE__, __LINE__, "%s: message \"%s\" does not name %s%s%s", #call,   \
                         msg_, fn, (arg) ? " and " : "", (arg) ? (const char *)(arg) : "");      \
    } while (0)

/* After an EXPECT that passed &req: a failed call must leave the request alone. If the
 * call wrongly succeeded, keep the test going: an operation started on every rank is
 * completed ('n'), an inactive persistent request freed ('p'), and one started on some
 * ranks only ('l', on the communicator `solo` that nothing else uses) abandoned. */
static void cleanup(DFC_Request *req, char how, int line)
{
    if (*req == DFC_REQUEST_NULL) return;
    dfct_fail_at(__FILE__, line, "a failed call set the request");
    if (how == 'n') DFCT_OK(DFC_Wait(req, DFC_STATUS_IGNORE));
    else if (how == 'p') DFCT_OK(DFC_Request_free(req));
    *req = DFC_REQUEST_NULL;
}
#define CLEAN(how) cleanup(&req, (how), __LINE__)

static void check_works(DFC_Comm c, const char *when)
{
    int size, rank, in[100], out[100];
    DFC_Comm_size(c, &size);
    DFC_Comm_rank(c, &rank);
    for (int i = 0; i < 100; i++) in[i] = rank * 1000 + i;
    memset(out, 0, sizeof out);
    DFCT_OK(DFC_Allreduce(in, out, 100, DFC_INT, DFC_SUM, c));
    for (int i = 0; i < 100; i++)
        if (out[i] != 1000 * size * (size - 1) / 2 + size * i) {
            DFCT_CHECK(0, "%s: allreduce element %d is %d, expected %d", when, i, out[i],
                       1000 * size * (size - 1) / 2 + size * i);
            break;
        }
    int v = rank == size - 1 ? 4242 : -1;
    DFCT_OK(DFC_Bcast(&v, 1, DFC_INT, size - 1, c));
    DFCT_CHECK(v == 4242, "%s: bcast gave %d", when, v);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    int n = ct_size, me = ct_rank;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    DFCT_OK(DFC_Comm_set_errhandler(comm, DFC_ERRORS_RETURN));
    DFC_Comm solo; /* for errors provoked on some ranks only (nothing else runs on it) */
    DFCT_OK(DFC_Comm_dup(comm, &solo));
    int a[64], b[64], counts[64], displs[64];
    float f[8], g[8];
    memset(a, 0, sizeof a), memset(b, 0, sizeof b), memset(f, 0, sizeof f), memset(g, 0, sizeof g);
    for (int i = 0; i < 64; i++) counts[i] = 1, displs[i] = i;
    DFC_Request req = DFC_REQUEST_NULL;

    /* ---- Bad root (every rank gets the error) ---- */
    EXPECT(DFC_Bcast(a, 1, DFC_INT, n, comm), DFC_ERR_ROOT, "DFC_Bcast", "root");
    EXPECT(DFC_Bcast(a, 1, DFC_INT, -1, comm), DFC_ERR_ROOT, "DFC_Bcast", "root");
    EXPECT(DFC_Ibcast(a, 1, DFC_INT, n + 5, comm, &req), DFC_ERR_ROOT, "DFC_Ibcast", "root");
    CLEAN('n');
    EXPECT(DFC_Bcast_init(a, 1, DFC_INT, -2, comm, DFC_INFO_NULL, &req), DFC_ERR_ROOT,
           "DFC_Bcast_init", "root");
    CLEAN('p');
    EXPECT(DFC_Reduce(a, b, 1, DFC_INT, DFC_SUM, n, comm), DFC_ERR_ROOT, "DFC_Reduce", "root");
    EXPECT(DFC_Ireduce(a, b, 1, DFC_INT, DFC_SUM, -1, comm, &req), DFC_ERR_ROOT, "DFC_Ireduce",
           "root");
    CLEAN('n');
    EXPECT(DFC_Gather(a, 1, DFC_INT, b, 1, DFC_INT, n, comm), DFC_ERR_ROOT, "DFC_Gather", "root");
    EXPECT(DFC_Gatherv(a, 1, DFC_INT, b, counts, displs, DFC_INT, -1, comm), DFC_ERR_ROOT,
           "DFC_Gatherv", "root");
    EXPECT(DFC_Scatter(a, 1, DFC_INT, b, 1, DFC_INT, n, comm), DFC_ERR_ROOT, "DFC_Scatter", "root");
    EXPECT(DFC_Iscatterv(a, counts, displs, DFC_INT, b, 1, DFC_INT, n, comm, &req), DFC_ERR_ROOT,
           "DFC_Iscatterv", "root");
    CLEAN('n');
    EXPECT(DFC_Scatter_init(a, 1, DFC_INT, b, 1, DFC_INT, DFC_PROC_NULL, comm, DFC_INFO_NULL, &req),
           DFC_ERR_ROOT, "DFC_Scatter_init", "root");
    CLEAN('p');
    DFCT_CHECK(req == DFC_REQUEST_NULL, "a failed call set the request");

    /* ---- Negative counts ---- */
    EXPECT(DFC_Allreduce(a, b, -1, DFC_INT, DFC_SUM, comm), DFC_ERR_COUNT, "DFC_Allreduce",
           "count");
    EXPECT(DFC_Iallreduce(a, b, -3, DFC_INT, DFC_SUM, comm, &req), DFC_ERR_COUNT, "DFC_Iallreduce",
           "count");
    CLEAN('n');
    EXPECT(DFC_Allreduce_init(a, b, -1, DFC_INT, DFC_SUM, comm, DFC_INFO_NULL, &req), DFC_ERR_COUNT,
           "DFC_Allreduce_init", "count");
    CLEAN('p');
    EXPECT(DFC_Bcast(a, -1, DFC_INT, 0, comm), DFC_ERR_COUNT, "DFC_Bcast", "count");
    EXPECT(DFC_Reduce(a, b, -1, DFC_INT, DFC_SUM, 0, comm), DFC_ERR_COUNT, "DFC_Reduce", "count");
    EXPECT(DFC_Scan(a, b, -1, DFC_INT, DFC_SUM, comm), DFC_ERR_COUNT, "DFC_Scan", "count");
    EXPECT(DFC_Iexscan(a, b, -1, DFC_INT, DFC_SUM, comm, &req), DFC_ERR_COUNT, "DFC_Iexscan",
           "count");
    CLEAN('n');
    EXPECT(DFC_Allgather(a, -1, DFC_INT, b, 1, DFC_INT, comm), DFC_ERR_COUNT, "DFC_Allgather",
           "count");
    EXPECT(DFC_Alltoall(a, 1, DFC_INT, b, -1, DFC_INT, comm), DFC_ERR_COUNT, "DFC_Alltoall",
           "count");
    EXPECT(DFC_Reduce_scatter_block(a, b, -1, DFC_INT, DFC_SUM, comm), DFC_ERR_COUNT,
           "DFC_Reduce_scatter_block", "count");
    counts[n - 1] = -1;
    EXPECT(DFC_Reduce_scatter(a, b, counts, DFC_INT, DFC_SUM, comm), DFC_ERR_COUNT,
           "DFC_Reduce_scatter", "counts");
    EXPECT(DFC_Allgatherv(a, 1, DFC_INT, b, counts, displs, DFC_INT, comm), DFC_ERR_COUNT,
           "DFC_Allgatherv", "counts");
    EXPECT(DFC_Alltoallv(a, counts, displs, DFC_INT, b, counts, displs, DFC_INT, comm),
           DFC_ERR_COUNT, "DFC_Alltoallv", "counts");
    counts[n - 1] = 1;

    /* ---- Op not defined for the type ---- */
    EXPECT(DFC_Allreduce(f, g, 8, DFC_FLOAT, DFC_BAND, comm), DFC_ERR_OP, "DFC_Allreduce", "op");
    EXPECT(DFC_Iallreduce(f, g, 4, DFC_DOUBLE, DFC_LAND, comm, &req), DFC_ERR_OP, "DFC_Iallreduce",
           "op");
    CLEAN('n');
    EXPECT(DFC_Allreduce_init(f, g, 8, DFC_BFLOAT16, DFC_BXOR, comm, DFC_INFO_NULL, &req),
           DFC_ERR_OP, "DFC_Allreduce_init", "op");
    CLEAN('p');
    EXPECT(DFC_Allreduce(a, b, 4, DFC_INT, DFC_MAXLOC, comm), DFC_ERR_OP, "DFC_Allreduce", "op");
    EXPECT(DFC_Allreduce(a, b, 4, DFC_INT, DFC_OP_NULL, comm), DFC_ERR_OP, "DFC_Allreduce", "op");
    EXPECT(DFC_Reduce(f, g, 8, DFC_FLOAT16, DFC_BOR, 0, comm), DFC_ERR_OP, "DFC_Reduce", "op");
    EXPECT(DFC_Scan(f, g, 8, DFC_FLOAT, DFC_LOR, comm), DFC_ERR_OP, "DFC_Scan", "op");
    EXPECT(DFC_Reduce_scatter_block(f, g, 1, DFC_FLOAT, DFC_BAND, comm), DFC_ERR_OP,
           "DFC_Reduce_scatter_block", "op");

    /* ---- DFC_IN_PLACE where it is not allowed (every rank) ---- */
    EXPECT(DFC_Bcast(DFC_IN_PLACE, 1, DFC_INT, 0, comm), DFC_ERR_BUFFER, "DFC_Bcast", "buffer");
    EXPECT(DFC_Allreduce(a, DFC_IN_PLACE, 1, DFC_INT, DFC_SUM, comm), DFC_ERR_BUFFER,
           "DFC_Allreduce", "recvbuf");
    EXPECT(DFC_Iallreduce(DFC_IN_PLACE, DFC_IN_PLACE, 1, DFC_INT, DFC_SUM, comm, &req),
           DFC_ERR_BUFFER, "DFC_Iallreduce", "recvbuf");
    CLEAN('n');
    EXPECT(DFC_Allgather(a, 1, DFC_INT, DFC_IN_PLACE, 1, DFC_INT, comm), DFC_ERR_BUFFER,
           "DFC_Allgather", "recvbuf");
    EXPECT(DFC_Alltoall(a, 1, DFC_INT, DFC_IN_PLACE, 1, DFC_INT, comm), DFC_ERR_BUFFER,
           "DFC_Alltoall", "recvbuf");
    /* ... and where MPI allows it only at the root: provoked on the non-roots alone */
    if (n > 1 && me != 0) {
        EXPECT(DFC_Ireduce(DFC_IN_PLACE, b, 1, DFC_INT, DFC_SUM, 0, solo, &req), DFC_ERR_BUFFER,
               "DFC_Ireduce", "sendbuf");
        CLEAN('l');
        EXPECT(DFC_Igather(DFC_IN_PLACE, 1, DFC_INT, b, 1, DFC_INT, 0, solo, &req), DFC_ERR_BUFFER,
               "DFC_Igather", "sendbuf");
        CLEAN('l');
        EXPECT(DFC_Igatherv(DFC_IN_PLACE, 1, DFC_INT, b, counts, displs, DFC_INT, 0, solo, &req),
               DFC_ERR_BUFFER, "DFC_Igatherv", "sendbuf");
        CLEAN('l');
        EXPECT(DFC_Iscatter(a, 1, DFC_INT, DFC_IN_PLACE, 1, DFC_INT, 0, solo, &req), DFC_ERR_BUFFER,
               "DFC_Iscatter", "recvbuf");
        CLEAN('l');
    }

    /* ---- Aliased send and receive buffers ---- */
    EXPECT(DFC_Allreduce(a, a, 4, DFC_INT, DFC_SUM, comm), DFC_ERR_BUFFER, "DFC_Allreduce",
           "recvbuf");
    EXPECT(DFC_Iallreduce(a, a, 4, DFC_INT, DFC_SUM, comm, &req), DFC_ERR_BUFFER, "DFC_Iallreduce",
           "recvbuf");
    CLEAN('n');
    EXPECT(DFC_Scan(a, a, 4, DFC_INT, DFC_SUM, comm), DFC_ERR_BUFFER, "DFC_Scan", "recvbuf");
    EXPECT(DFC_Reduce_scatter_block(a, a, 1, DFC_INT, DFC_SUM, comm), DFC_ERR_BUFFER,
           "DFC_Reduce_scatter_block", "recvbuf");
    EXPECT(DFC_Allgather(a, 1, DFC_INT, a, 1, DFC_INT, comm), DFC_ERR_BUFFER, "DFC_Allgather",
           "recvbuf");
    EXPECT(DFC_Alltoall(a, 1, DFC_INT, a, 1, DFC_INT, comm), DFC_ERR_BUFFER, "DFC_Alltoall",
           "recvbuf");
    if (me == 0 && n > 1) { /* aliasing matters only at the root, where recvbuf is significant */
        EXPECT(DFC_Ireduce(a, a, 4, DFC_INT, DFC_SUM, 0, solo, &req), DFC_ERR_BUFFER, "DFC_Ireduce",
               "recvbuf");
        CLEAN('l');
    }

    /* ---- NULL request pointers ---- */
    EXPECT(DFC_Ibarrier(comm, NULL), DFC_ERR_ARG, "DFC_Ibarrier", "request");
    EXPECT(DFC_Iallreduce(a, b, 1, DFC_INT, DFC_SUM, comm, NULL), DFC_ERR_ARG, "DFC_Iallreduce",
           "request");
    EXPECT(DFC_Ibcast(a, 1, DFC_INT, 0, comm, NULL), DFC_ERR_ARG, "DFC_Ibcast", "request");
    EXPECT(DFC_Ialltoall(a, 1, DFC_INT, b, 1, DFC_INT, comm, NULL), DFC_ERR_ARG, "DFC_Ialltoall",
           "request");
    EXPECT(DFC_Allreduce_init(a, b, 1, DFC_INT, DFC_SUM, comm, DFC_INFO_NULL, NULL), DFC_ERR_ARG,
           "DFC_Allreduce_init", "request");
    EXPECT(DFC_Barrier_init(comm, DFC_INFO_NULL, NULL), DFC_ERR_ARG, "DFC_Barrier_init", "request");

    /* ---- Datatypes, info ---- */
    DFC_Datatype unc;
    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &unc));
    EXPECT(DFC_Allreduce(a, b, 1, DFC_DATATYPE_NULL, DFC_SUM, comm), DFC_ERR_TYPE, "DFC_Allreduce",
           "datatype");
    EXPECT(DFC_Bcast(a, 1, unc, 0, comm), DFC_ERR_TYPE, "DFC_Bcast", "datatype");
    EXPECT(DFC_Allgather(a, 1, DFC_INT, b, 1, unc, comm), DFC_ERR_TYPE, "DFC_Allgather", NULL);
    DFCT_OK(DFC_Type_free(&unc));
    EXPECT(DFC_Allreduce_init(a, b, 1, DFC_INT, DFC_SUM, comm, (DFC_Info)0x06000fff, &req),
           DFC_ERR_INFO, "DFC_Allreduce_init", "info");
    CLEAN('p');

    /* ---- DFC_Cancel on collective requests; Start of an active one ---- */
    for (int i = 0; i < 8; i++) a[i] = me + i;
    DFCT_OK(DFC_Iallreduce(a, b, 8, DFC_INT, DFC_SUM, comm, &req));
    EXPECT(DFC_Cancel(&req), DFC_ERR_REQUEST, "DFC_Cancel", "request");
    DFCT_CHECK(req != DFC_REQUEST_NULL, "DFC_Cancel freed the request");
    DFC_Status st;
    DFCT_OK(DFC_Wait(&req, &st));
    int cancelled = -1;
    DFCT_OK(DFC_Test_cancelled(&st, &cancelled));
    DFCT_CHECK(cancelled == 0, "a collective reports itself cancelled");
    for (int i = 0; i < 8; i++)
        DFCT_CHECK(b[i] == n * (n - 1) / 2 + n * i, "allreduce after Cancel: element %d is %d", i,
                   b[i]);
    DFCT_OK(DFC_Allreduce_init(a, b, 8, DFC_INT, DFC_MAX, comm, DFC_INFO_NULL, &req));
    EXPECT(DFC_Cancel(&req), DFC_ERR_REQUEST, "DFC_Cancel", "request"); /* inactive */
    DFCT_OK(DFC_Start(&req));
    EXPECT(DFC_Cancel(&req), DFC_ERR_REQUEST, "DFC_Cancel", "request"); /* active */
    EXPECT(DFC_Start(&req), DFC_ERR_REQUEST, "DFC_Start", "request");   /* already active */
    DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    for (int i = 0; i < 8; i++)
        DFCT_CHECK(b[i] == n - 1 + i, "persistent allreduce after Cancel: element %d is %d", i,
                   b[i]);
    DFCT_OK(DFC_Request_free(&req));

    /* ---- An invalid communicator (reported through WORLD's handler) ---- */
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    EXPECT(DFC_Barrier(DFC_COMM_NULL), DFC_ERR_COMM, "DFC_Barrier", "comm");
    EXPECT(DFC_Iallreduce(a, b, 1, DFC_INT, DFC_SUM, DFC_COMM_NULL, &req), DFC_ERR_COMM,
           "DFC_Iallreduce", "comm");
    CLEAN('n');
    EXPECT(DFC_Bcast(a, 1, DFC_INT, 0, (DFC_Comm)0x01000fff), DFC_ERR_COMM, "DFC_Bcast", "comm");
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_ARE_FATAL));

    /* ---- Still works ---- */
    check_works(comm, "after the errors, on their communicator");
    check_works(DFC_COMM_WORLD, "after the errors, on WORLD");
    DFCT_OK(DFC_Comm_free(&solo));
    DFCT_OK(DFC_Comm_free(&comm));
    return dfct_finalize();
}
