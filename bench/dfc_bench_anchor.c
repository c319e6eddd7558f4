/*
 * dfc_bench_anchor.c - the anchor half of dfc_bench: the same calls as the DFC half,
 * through MPI (Open MPI from Debian's libopenmpi on the host). Compiled with the flags of
 * the mpicc that configure found (`mpicc --showme:compile`), and linked with its libraries.
 * Nothing in here knows about DFC.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "dfc_bench.h"

static bench_lib_t lib;
static MPI_Request reqs[BENCH_MAX_WINDOW];
static MPI_Request ireq = MPI_REQUEST_NULL;

static int a_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static MPI_Request breq = MPI_REQUEST_NULL;
static int a_ibarrier_start(void) { return MPI_Ibarrier(MPI_COMM_WORLD, &breq); }
static int a_ibarrier_test(int *done) { return MPI_Test(&breq, done, MPI_STATUS_IGNORE); }
static void a_poke(void)
{
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

static int a_allreduce(const float *s, float *r, int n)
{
    return MPI_Allreduce(s, r, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static int a_allgather(const void *s, void *r, int b)
{
    return MPI_Allgather(s, b, MPI_BYTE, r, b, MPI_BYTE, MPI_COMM_WORLD);
}

static int a_reduce_scatter_block(const float *s, float *r, int n)
{
    return MPI_Reduce_scatter_block(s, r, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static int a_bcast(void *buf, int b, int root)
{
    return MPI_Bcast(buf, b, MPI_BYTE, root, MPI_COMM_WORLD);
}

static int a_alltoall(const void *s, void *r, int b)
{
    return MPI_Alltoall(s, b, MPI_BYTE, r, b, MPI_BYTE, MPI_COMM_WORLD);
}

static int a_alltoallv(const void *s, const int *sc, const int *sd, void *r, const int *rc,
                       const int *rd)
{
    return MPI_Alltoallv(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
}

static int a_send(const void *buf, int b, int dest, int tag)
{
    return MPI_Send(buf, b, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}

static int a_recv(void *buf, int b, int src, int tag)
{
    return MPI_Recv(buf, b, MPI_BYTE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static int a_send_window(const void *buf, int b, int dest, int tag, int window)
{
    for (int i = 0; i < window; i++)
        MPI_Isend(buf, b, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &reqs[i]);
    return MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
}

static int a_recv_window(void *buf, int b, int src, int tag, int window)
{
    for (int i = 0; i < window; i++)
        MPI_Irecv(buf, b, MPI_BYTE, src, tag, MPI_COMM_WORLD, &reqs[i]);
    return MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
}

static int a_iallreduce_start(const float *s, float *r, int n)
{
    return MPI_Iallreduce(s, r, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &ireq);
}

static int a_iallreduce_wait(void) { return MPI_Wait(&ireq, MPI_STATUS_IGNORE); }

static MPI_Request xreq[2];
static int a_iexchange_start(const void *s, void *r, int b, int partner, int tag)
{
    return MPI_Irecv(r, b, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &xreq[0]) |
           MPI_Isend(s, b, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &xreq[1]);
}

static int a_iexchange_wait(void) { return MPI_Waitall(2, xreq, MPI_STATUSES_IGNORE); }

/* The stride-2 vector of n doubles, and the same resized to 2n doubles, made once per n. */
static MPI_Datatype vec, vec_resized;
static int vec_n = -1;
static void vec_types(int n)
{
    if (n == vec_n) return;
    if (vec_n >= 0) {
        MPI_Type_free(&vec);
        MPI_Type_free(&vec_resized);
    }
    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * sizeof(double)) * n, &vec_resized);
    MPI_Type_commit(&vec);
    MPI_Type_commit(&vec_resized);
    vec_n = n;
}

static int a_send_vec(const double *buf, int n, int dest, int tag)
{
    vec_types(n);
    return MPI_Send(buf, 1, vec, dest, tag, MPI_COMM_WORLD);
}

static int a_recv_vec(double *buf, int n, int src, int tag)
{
    vec_types(n);
    return MPI_Recv(buf, 1, vec, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static int a_allgather_vec(const double *s, double *r, int n)
{
    vec_types(n);
    return MPI_Allgather(s, 1, vec, r, 1, vec_resized, MPI_COMM_WORLD);
}

static int a_finalize(void) { return MPI_Finalize(); }

const bench_lib_t *bench_anchor_init(int *argc, char ***argv, char *why, int whylen)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        snprintf(why, whylen, "MPI_Init failed");
        return NULL;
    }
    lib.name = "anchor";
    int len = 0;
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(v, &len);
    v[strcspn(v, ",\n")] = 0; /* "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4" */
    snprintf(lib.version, sizeof lib.version, "%s", v);
    MPI_Comm_rank(MPI_COMM_WORLD, &lib.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &lib.size);
    lib.barrier = a_barrier;
    lib.ibarrier_start = a_ibarrier_start;
    lib.ibarrier_test = a_ibarrier_test;
    lib.poke = a_poke;
    lib.allreduce_float = a_allreduce;
    lib.allgather_bytes = a_allgather;
    lib.reduce_scatter_block_float = a_reduce_scatter_block;
    lib.bcast_bytes = a_bcast;
    lib.alltoall_bytes = a_alltoall;
    lib.alltoallv_bytes = a_alltoallv;
    lib.send_bytes = a_send;
    lib.recv_bytes = a_recv;
    lib.send_window = a_send_window;
    lib.recv_window = a_recv_window;
    lib.iallreduce_start = a_iallreduce_start;
    lib.iallreduce_wait = a_iallreduce_wait;
    lib.iexchange_start = a_iexchange_start;
    lib.iexchange_wait = a_iexchange_wait;
    lib.send_vec = a_send_vec;
    lib.recv_vec = a_recv_vec;
    lib.allgather_vec = a_allgather_vec;
    lib.finalize = a_finalize;
    return &lib;
}
