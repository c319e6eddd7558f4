/*
 * devcoll - every collective on CUDA device buffers against the same call on host buffers.
 *
 * For each collective, datatype, op and size (1, 13, 4099 and 300001 items, so that odd
 * sizes, unaligned tails and multi-channel splits all occur), in turn blocking, nonblocking
 * and persistent form: the inputs are generated fresh, the host call runs on the host engine
 * (the reference, checked by the coll/ tests), the device call runs on device buffers poisoned
 * beforehand, and the whole receive buffer (poison included) must match byte for byte.
 * Reductions cover int, unsigned, int64_t, float, double, bfloat16 and float16 with SUM,
 * PROD, MIN and MAX, plus the logical and bitwise ops on the integers; a contiguous
 * derived type (3 floats) checks reductions over a type whose item is not one element.
 *
 * With -daemon the test also requires the GPU daemon to have run the device calls (every
 * rank has its own GPU); without it the calls may be staged (several ranks per GPU).
 * Runs on the GPU machine (test/mpi-style/gpu/testlist); a watchdog fails it on a hang.
 */
#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devtest.h"

enum kind {
    ALLREDUCE,
    ALLREDUCE_INPLACE,
    REDUCE,
    REDUCE_SCATTER_BLOCK,
    REDUCE_SCATTER,
    SCAN,
    EXSCAN,
    BCAST,
    ALLGATHER,
    ALLGATHERV,
    ALLTOALL,
    ALLTOALLV,
    GATHER,
    GATHERV,
    SCATTER,
    SCATTERV,
    BARRIER,
    NKINDS
};
static const char *kind_name[NKINDS] = {"allreduce",      "allreduce(in place)",
                                        "reduce",         "reduce_scatter_block",
                                        "reduce_scatter", "scan",
                                        "exscan",         "bcast",
                                        "allgather",      "allgatherv",
                                        "alltoall",       "alltoallv",
                                        "gather",         "gatherv",
                                        "scatter",        "scatterv",
                                        "barrier"};
static const char *mode_name[3] = {"blocking", "nonblocking", "persistent"};

static int rank, size, root;
static int *counts, *displs;   /* v forms: rank r gets count + r items, with a gap of 2 */
static int *acounts, *adispls; /* alltoallv: between ranks r and p, count + (r + p) % 3 items
                                  each way (symmetric, as MPI requires of send and receive) */
static DFC_Datatype three_floats;

/* Runs one collective in one form. sbuf/rbuf are host or device buffers alike. */
static int run(int k, int mode, const void *sbuf, void *rbuf, int count, DFC_Datatype dt, DFC_Op op)
{
    DFC_Request req = DFC_REQUEST_NULL;
    DFC_Request *rq = mode ? &req : NULL;
    DFC_Info info = DFC_INFO_NULL;
    DFC_Comm comm = DFC_COMM_WORLD;
    int rc;
#define FORM(blocking, nonblocking, persistent) \
    (mode == 0 ? (blocking) : mode == 1 ? (nonblocking) : (persistent))
    switch (k) {
    case ALLREDUCE:
        rc = FORM(DFC_Allreduce(sbuf, rbuf, count, dt, op, comm),
                  DFC_Iallreduce(sbuf, rbuf, count, dt, op, comm, rq),
                  DFC_Allreduce_init(sbuf, rbuf, count, dt, op, comm, info, rq));
        break;
    case ALLREDUCE_INPLACE:
        rc = FORM(DFC_Allreduce(DFC_IN_PLACE, rbuf, count, dt, op, comm),
                  DFC_Iallreduce(DFC_IN_PLACE, rbuf, count, dt, op, comm, rq),
                  DFC_Allreduce_init(DFC_IN_PLACE, rbuf, count, dt, op, comm, info, rq));
        break;
    case REDUCE:
        rc = FORM(DFC_Reduce(sbuf, rbuf, count, dt, op, root, comm),
                  DFC_Ireduce(sbuf, rbuf, count, dt, op, root, comm, rq),
                  DFC_Reduce_init(sbuf, rbuf, count, dt, op, root, comm, info, rq));
        break;
    case REDUCE_SCATTER_BLOCK:
        rc = FORM(DFC_Reduce_scatter_block(sbuf, rbuf, count, dt, op, comm),
                  DFC_Ireduce_scatter_block(sbuf, rbuf, count, dt, op, comm, rq),
                  DFC_Reduce_scatter_block_init(sbuf, rbuf, count, dt, op, comm, info, rq));
        break;
    case REDUCE_SCATTER:
        rc = FORM(DFC_Reduce_scatter(sbuf, rbuf, counts, dt, op, comm),
                  DFC_Ireduce_scatter(sbuf, rbuf, counts, dt, op, comm, rq),
                  DFC_Reduce_scatter_init(sbuf, rbuf, counts, dt, op, comm, info, rq));
        break;
    case SCAN:
        rc = FORM(DFC_Scan(sbuf, rbuf, count, dt, op, comm),
                  DFC_Iscan(sbuf, rbuf, count, dt, op, comm, rq),
                  DFC_Scan_init(sbuf, rbuf, count, dt, op, comm, info, rq));
        break;
    case EXSCAN:
        rc = FORM(DFC_Exscan(sbuf, rbuf, count, dt, op, comm),
                  DFC_Iexscan(sbuf, rbuf, count, dt, op, comm, rq),
                  DFC_Exscan_init(sbuf, rbuf, count, dt, op, comm, info, rq));
        break;
    case BCAST:
        rc = FORM(DFC_Bcast(rbuf, count, dt, root, comm),
                  DFC_Ibcast(rbuf, count, dt, root, comm, rq),
                  DFC_Bcast_init(rbuf, count, dt, root, comm, info, rq));
        break;
    case ALLGATHER:
        rc = FORM(DFC_Allgather(sbuf, count, dt, rbuf, count, dt, comm),
                  DFC_Iallgather(sbuf, count, dt, rbuf, count, dt, comm, rq),
                  DFC_Allgather_init(sbuf, count, dt, rbuf, count, dt, comm, info, rq));
        break;
    case ALLGATHERV:
        rc = FORM(DFC_Allgatherv(sbuf, counts[rank], dt, rbuf, counts, displs, dt, comm),
                  DFC_Iallgatherv(sbuf, counts[rank], dt, rbuf, counts, displs, dt, comm, rq),
                  DFC_Allgatherv_init(sbuf, counts[rank], dt, rbuf, counts, displs, dt, comm, info,
                                      rq));
        break;
    case ALLTOALL:
        rc = FORM(DFC_Alltoall(sbuf, count, dt, rbuf, count, dt, comm),
                  DFC_Ialltoall(sbuf, count, dt, rbuf, count, dt, comm, rq),
                  DFC_Alltoall_init(sbuf, count, dt, rbuf, count, dt, comm, info, rq));
        break;
    case ALLTOALLV:
        rc = FORM(DFC_Alltoallv(sbuf, acounts, adispls, dt, rbuf, acounts, adispls, dt, comm),
                  DFC_Ialltoallv(sbuf, acounts, adispls, dt, rbuf, acounts, adispls, dt, comm, rq),
                  DFC_Alltoallv_init(sbuf, acounts, adispls, dt, rbuf, acounts, adispls, dt, comm,
                                     info, rq));
        break;
    case GATHER:
        rc = FORM(DFC_Gather(sbuf, count, dt, rbuf, count, dt, root, comm),
                  DFC_Igather(sbuf, count, dt, rbuf, count, dt, root, comm, rq),
                  DFC_Gather_init(sbuf, count, dt, rbuf, count, dt, root, comm, info, rq));
        break;
    case GATHERV:
        rc = FORM(DFC_Gatherv(sbuf, counts[rank], dt, rbuf, counts, displs, dt, root, comm),
                  DFC_Igatherv(sbuf, counts[rank], dt, rbuf, counts, displs, dt, root, comm, rq),
                  DFC_Gatherv_init(sbuf, counts[rank], dt, rbuf, counts, displs, dt, root, comm,
                                   info, rq));
        break;
    case SCATTER:
        rc = FORM(DFC_Scatter(sbuf, count, dt, rbuf, count, dt, root, comm),
                  DFC_Iscatter(sbuf, count, dt, rbuf, count, dt, root, comm, rq),
                  DFC_Scatter_init(sbuf, count, dt, rbuf, count, dt, root, comm, info, rq));
        break;
    case SCATTERV:
        rc = FORM(DFC_Scatterv(sbuf, counts, displs, dt, rbuf, counts[rank], dt, root, comm),
                  DFC_Iscatterv(sbuf, counts, displs, dt, rbuf, counts[rank], dt, root, comm, rq),
                  DFC_Scatterv_init(sbuf, counts, displs, dt, rbuf, counts[rank], dt, root, comm,
                                    info, rq));
        break;
    default: rc = FORM(DFC_Barrier(comm), DFC_Ibarrier(comm, rq), DFC_Barrier_init(comm, info, rq));
    }
    if (rc || !mode) return rc;
    if (mode == 2) {
        for (int rep = 0; rep < 2 && !rc; rep++) /* a persistent operation runs twice */
            if (!(rc = DFC_Start(&req))) rc = DFC_Wait(&req, DFC_STATUS_IGNORE);
        DFC_Request_free(&req);
        return rc;
    }
    return DFC_Wait(&req, DFC_STATUS_IGNORE);
}

/* Bytes of value i of a type: small numbers, exact in every type, varying with rank. */
static void fill(void *buf, size_t n, DFC_Datatype dt, int salt)
{
    for (size_t i = 0; i < n; i++) {
        int v = (int)((rank * 31 + i * 7 + salt * 13) % 13) + 1;
        if (dt == DFC_FLOAT || dt == three_floats) ((float *)buf)[i] = v * 0.25f;
        else if (dt == DFC_DOUBLE) ((double *)buf)[i] = v * 0.25;
        else if (dt == DFC_BFLOAT16) {
            float f = v * 0.25f;
            uint32_t b;
            memcpy(&b, &f, 4);
            ((uint16_t *)buf)[i] = (uint16_t)(b >> 16); /* exact: few significant bits */
        } else if (dt == DFC_FLOAT16) ((_Float16 *)buf)[i] = (_Float16)(v * 0.25f);
        else if (dt == DFC_INT64_T) ((int64_t *)buf)[i] = (int64_t)v * 1000003 * (i % 3 ? 1 : -1);
        else if (dt == DFC_UNSIGNED) ((unsigned *)buf)[i] = (unsigned)v * 2654435761u;
        else
            ((int *)buf)[i] = (i % 5 == 0) ? 0
                                           : v * (i % 2 ? 1 : -1); /* zeros for the logical ops */
    }
}

static size_t elem_size(DFC_Datatype dt)
{
    int s;
    DFC_Type_size(dt, &s);
    return (size_t)s;
}

static int cases, device_calls;

static void one_case(int k, int mode, DFC_Datatype dt, DFC_Op op, int count)
{
    size_t es = elem_size(dt), nel = (dt == three_floats ? 3 : 1);
    /* enough for every layout: size blocks of count + size + 2 items */
    size_t items = (size_t)size * (count + size + 2) + 8, bytes = items * es;
    char *hs = malloc(bytes), *hr = malloc(bytes), *got = malloc(bytes);
    void *ds, *dr;
    CUDA_OK(cudaMalloc(&ds, bytes));
    CUDA_OK(cudaMalloc(&dr, bytes));
    fill(hs, items * nel, dt == three_floats ? DFC_FLOAT : dt, k + mode);
    fill(hr, items * nel, dt == three_floats ? DFC_FLOAT : dt,
         k + mode + 100); /* in-place input, bcast root data */
    memset(got, 0xa5, bytes);
    if (k != ALLREDUCE_INPLACE && !(k == BCAST && rank == root))
        memset(hr, 0xa5, bytes); /* poison */
    DEV_UPLOAD(ds, hs, bytes);
    DEV_UPLOAD(dr, hr, bytes);
    for (int i = 0; i < size; i++) {
        counts[i] = count + i;
        displs[i] = i ? displs[i - 1] + counts[i - 1] + 2 : 1;
        acounts[i] = count + (rank + i) % 3;
        adispls[i] = i ? adispls[i - 1] + acounts[i - 1] + 2 : 1;
    }
    int rc = run(k, mode, hs, hr, count, dt, op);
    DFCT_CHECK(rc == DFC_SUCCESS, "host %s failed (%d)", kind_name[k], rc);
    rc = run(k, mode, ds, dr, count, dt, op);
    DFCT_CHECK(rc == DFC_SUCCESS, "device %s failed (%d)", kind_name[k], rc);
    CUDA_OK(cudaMemcpy(got, dr, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < bytes; i++)
        if (got[i] != hr[i]) {
            DFCT_CHECK(
                0,
                "%s %s type 0x%x op 0x%x count %d: byte %zu of %zu differs (device 0x%02x, host 0x%02x)",
                kind_name[k], mode_name[mode], (unsigned)dt, (unsigned)op, count, i, bytes,
                (unsigned char)got[i], (unsigned char)hr[i]);
            break;
        }
    CUDA_OK(cudaFree(ds));
    CUDA_OK(cudaFree(dr));
    free(hs);
    free(hr);
    free(got);
    cases++;
    device_calls++;
}

int main(int argc, char **argv)
{
    dev_watchdog(600);
    int ndev = 0, want_daemon = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-daemon")) want_daemon = 1;
    CUDA_OK(cudaGetDeviceCount(&ndev));
    if (want_daemon) dev_daemon_at_every_size();
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    root = size - 1;
    counts = malloc(size * sizeof(int));
    displs = malloc(size * sizeof(int));
    acounts = malloc(size * sizeof(int));
    adispls = malloc(size * sizeof(int));
    DFC_Type_contiguous(3, DFC_FLOAT, &three_floats);
    DFC_Type_commit(&three_floats);

    static const int sizes[] = {1, 13, 4099, 300001};
    DFC_Datatype int_types[] = {DFC_INT, DFC_UNSIGNED, DFC_INT64_T};
    DFC_Datatype float_types[] = {DFC_FLOAT, DFC_DOUBLE, DFC_BFLOAT16, DFC_FLOAT16};
    DFC_Op arith[] = {DFC_SUM, DFC_PROD, DFC_MIN, DFC_MAX};
    DFC_Op logic[] = {DFC_LAND, DFC_LOR, DFC_LXOR, DFC_BAND, DFC_BOR, DFC_BXOR};
    int mode = 0;
    for (int k = ALLREDUCE; k <= EXSCAN; k++)
        for (int s = 0; s < 4; s++) {
            for (int t = 0; t < 3; t++) {
                for (int o = 0; o < 4; o++)
                    one_case(k, mode++ % 3, int_types[t], arith[o], sizes[s]);
                for (int o = 0; o < 6; o++)
                    one_case(k, mode++ % 3, int_types[t], logic[o], sizes[s]);
            }
            for (int t = 0; t < 4; t++)
                for (int o = 0; o < 4; o++)
                    one_case(k, mode++ % 3, float_types[t], arith[o], sizes[s]);
            one_case(k, mode++ % 3, three_floats, DFC_SUM, sizes[s]);
        }
    for (int k = BCAST; k < NKINDS; k++)
        for (int s = 0; s < 4; s++)
            for (int m = 0; m < 3; m++) {
                one_case(k, m, DFC_INT, DFC_OP_NULL, sizes[s]);
                one_case(k, m, DFC_BFLOAT16, DFC_OP_NULL,
                         sizes[s]); /* 2-byte items: unaligned tails */
            }

    int device;
    DFC_Count launches;
    DFCT_OK(DFC_Get_gpu_daemon_info(&device, &launches));
    if (want_daemon) {
        DFCT_CHECK(device >= 0, "the GPU daemon is not running (device %d)", device);
        DFCT_CHECK(launches > 0, "the GPU daemon kernel was never launched");
    }
    DFC_Type_free(&three_floats);
    free(counts);
    free(displs);
    free(acounts);
    free(adispls);
    (void)ndev;
    (void)device_calls;
    return dfct_finalize();
}
