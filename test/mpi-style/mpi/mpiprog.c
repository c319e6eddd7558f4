/* mpiprog.c - an MPI program written only against mpi.h and built with DFC's mpicc: the MPI
 * names, types and constants of mpi.h reach DFC through libmpi. Checks, with fresh data and
 * poisoned outputs: MPI_VERSION/MPI_SUBVERSION as integers (in #if) and MPI_Get_version,
 * point-to-point with MPI_Status's public fields and MPI_Get_count, the ready sends, MPI_STATUS_IGNORE and
 * MPI_STATUSES_IGNORE (libmpi's own markers), nonblocking calls, collectives on
 * MPI_COMM_WORLD and on a split communicator, the c2f/f2c conversions and
 * MPI_Status_c2f/f2c, MPI_Comm_test_inter, MPI_Get_address, an error returned under MPI_ERRORS_RETURN, MPI_Wtime and MPI_Pcontrol.
 * Rank 0 prints " No Errors" when every check of every rank passed. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#if !defined(MPI_VERSION) || MPI_VERSION < 4 || !defined(MPI_SUBVERSION)
#error "MPI_VERSION and MPI_SUBVERSION must be integers usable in #if, 4.x"
#endif

static int errs, rank, size;
#define CHECK(cond, ...)                                            \
    do {                                                            \
        if (!(cond) && errs++ < 20) {                               \
            fprintf(stderr, "[rank %d] line %d: ", rank, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                           \
            fputc('\n', stderr);                                    \
        }                                                           \
    } while (0)

static void check_p2p(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, buf[64], out[64], n = -1;
    MPI_Status st;
    for (int i = 0; i < 64; i++) out[i] = rank * 1000 + i, buf[i] = -1;
    memset(&st, 0xff, sizeof st);
    MPI_Sendrecv(out, 64, MPI_INT, right, 11, buf, 64, MPI_INT, left, 11, MPI_COMM_WORLD, &st);
    for (int i = 0; i < 64; i++) CHECK(buf[i] == left * 1000 + i, "sendrecv buf[%d]=%d", i, buf[i]);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 11, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 64, "MPI_Get_count %d", n);

    MPI_Request req[2], req3[3];
    MPI_Irecv(buf, 10, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(out, 10, MPI_INT, right, 12 + rank, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL, "requests not freed");
    CHECK(buf[9] == left * 1000 + 9, "irecv buf[9]=%d", buf[9]);
    MPI_Recv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    /* Ready sends, into receives posted before a barrier (as MPI requires). */
    int rin[3];
    for (int i = 0; i < 3; i++) {
        rin[i] = -1;
        MPI_Irecv(&rin[i], 1, MPI_INT, left, 20 + i, MPI_COMM_WORLD, &req3[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Request rs[2];
    MPI_Rsend(&out[0], 1, MPI_INT, right, 20, MPI_COMM_WORLD);
    MPI_Irsend(&out[1], 1, MPI_INT, right, 21, MPI_COMM_WORLD, &rs[0]);
    MPI_Rsend_init(&out[2], 1, MPI_INT, right, 22, MPI_COMM_WORLD, &rs[1]);
    MPI_Start(&rs[1]);
    MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);
    MPI_Request_free(&rs[1]);
    MPI_Waitall(3, req3, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 3; i++) CHECK(rin[i] == left * 1000 + i, "rsend %d: %d", i, rin[i]);
}

static void check_coll(void)
{
    long x = rank + 1, sum = -1;
    MPI_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == (long)size * (size + 1) / 2, "allreduce %ld", sum);
    int all[64];
    memset(all, 0xff, sizeof all);
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size && i < 64; i++) CHECK(all[i] == i, "allgather[%d]=%d", i, all[i]);
    double d = rank == 0 ? 2.5 : -1.0;
    MPI_Bcast(&d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    CHECK(d == 2.5, "bcast %g", d);

    MPI_Comm half;
    int hr = -1, hs = -1, m = -1;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    CHECK(hs == (size + 1 - rank % 2) / 2, "split size %d", hs);
    MPI_Allreduce(&rank, &m, 1, MPI_INT, MPI_MAX, half);
    CHECK(hr == 0 ? m == rank : m > rank, "split rank %d max %d", hr, m);
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(half)) == half, "comm c2f/f2c");
    MPI_Comm_free(&half);
    CHECK(half == MPI_COMM_NULL, "comm not freed");
}

static void check_misc(void)
{
    int v = -1, sv = -1, rc, len = 0;
    MPI_Get_version(&v, &sv);
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "version %d.%d", v, sv);
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "type c2f/f2c");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "op c2f/f2c");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "group c2f/f2c");
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL, "info c2f/f2c");
    CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "req c2f");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN,
          "errhandler c2f/f2c");
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC &&
              MPI_Message_c2f(MPI_MESSAGE_NO_PROC) != MPI_Message_c2f(MPI_MESSAGE_NULL),
          "message c2f/f2c");
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "win c2f/f2c");
    MPI_Datatype matched = MPI_DATATYPE_NULL;
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &matched) == MPI_SUCCESS &&
              matched == MPI_DOUBLE,
          "MPI_Type_match_size(REAL, 8)");
    CHECK(MPI_ERR_FILE != MPI_ERR_ARG && MPI_ERR_FILE <= MPI_ERR_LASTCODE &&
              MPI_ERR_SPAWN != MPI_ERR_FILE,
          "MPI-IO and dynamic-process error classes");

    MPI_Status st = {0}, back;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    st.MPI_SOURCE = 3, st.MPI_TAG = 4, st.MPI_ERROR = MPI_ERR_TAG;
    MPI_Status_c2f(&st, f);
    CHECK(f[MPI_F_SOURCE] == 3 && f[MPI_F_TAG] == 4 && f[MPI_F_ERROR] == MPI_ERR_TAG, "c2f");
    memset(&back, 0xff, sizeof back);
    MPI_Status_f2c(f, &back);
    CHECK(back.MPI_SOURCE == 3 && back.MPI_TAG == 4 && back.MPI_ERROR == MPI_ERR_TAG, "f2c");

    /* An error comes back as an MPI error class under MPI_ERRORS_RETURN. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "send to rank %d: class %d", size, cls);
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_string(rc, msg, &len);
    CHECK(len > 0 && strstr(msg, "dest"), "error string %s", msg);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    int inter = -1;
    MPI_Aint a = 0;
    CHECK(MPI_Comm_test_inter(MPI_COMM_WORLD, &inter) == MPI_SUCCESS && inter == 0, "inter");
    CHECK(MPI_Get_address(&v, &a) == MPI_SUCCESS && a == (MPI_Aint)&v, "get_address");

    double t0 = MPI_Wtime();
    CHECK(MPI_Wtime() >= t0 && MPI_Wtick() > 0, "wtime");
    CHECK(MPI_Pcontrol(1) == MPI_SUCCESS, "pcontrol");
}

int main(int argc, char **argv)
{
    int flag = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Initialized(&flag);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(flag == 1, "MPI_Initialized");
    check_p2p();
    check_coll();
    check_misc();
    MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0) printf(" No Errors\n");
        else printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return 0;
}
