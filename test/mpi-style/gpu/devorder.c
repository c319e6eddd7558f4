/*
 * devorder - the ordering scenarios that hang NCCL, on device buffers, with a watchdog.
 *
 *   -test=chaos   DFCCL's chaos-order test: 8 persistent allreduces (float sum, 1 Ki to
 *                 256 Ki items) started in a different random permutation on every rank in
 *                 every one of 200 iterations, then Waitall; every result is checked.
 *   -test=random  nonblocking collectives on 4 communicators (two dups of WORLD, WORLD
 *                 reversed, a dup of that) in random per-rank order: batches of 1 to 16
 *                 operations (allreduce, bcast, allgather, alltoall, reduce_scatter_block
 *                 on random sizes), issued in a per-rank random interleaving of the
 *                 communicators (in order within each, as MPI requires) with a
 *                 cudaDeviceSynchronize now and then, completed with a random mix of Wait,
 *                 Waitany, Waitsome, Testall and Test loops; -ops=N operations in all
 *                 (default 10000). Every result is checked.
 * Both require the GPU daemon (with -daemon) and report nothing else on success.
 */
#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devtest.h"

static int rank, size;

/* xorshift64: a shared state gives the same sequence on every rank (the operations of a
 * batch), a per-rank state each rank's own order. */
static uint64_t shared_rng, local_rng;
static uint32_t xorshift(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (uint32_t)(*state >> 11);
}

static void shuffle(int *a, int n, uint64_t *state)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(xorshift(state) % (uint32_t)(i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* ---- chaos ---------------------------------------------------------------------------- */
static void test_chaos(void)
{
    enum { NCOLL = 8, ITERS = 200 };
    DFC_Request req[NCOLL];
    float *in[NCOLL], *out[NCOLL], *h = NULL;
    int n[NCOLL] = {1024, 2048, 4096, 8192, 16384, 65536, 131072, 262144}, order[NCOLL];
    for (int c = 0; c < NCOLL; c++) {
        CUDA_OK(cudaMalloc((void **)&in[c], n[c] * sizeof(float)));
        CUDA_OK(cudaMalloc((void **)&out[c], n[c] * sizeof(float)));
        DFCT_OK(DFC_Allreduce_init(in[c], out[c], n[c], DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD,
                                   DFC_INFO_NULL, &req[c]));
        order[c] = c;
    }
    h = malloc((size_t)(1 << 18) * sizeof(float));
    for (int it = 0; it < ITERS; it++) {
        for (int c = 0; c < NCOLL; c++) {
            for (int i = 0; i < n[c]; i++) h[i] = (float)((rank + 1) * (it % 7 + 1) + i % 5);
            DEV_UPLOAD(in[c], h, n[c] * sizeof(float));
            DEV_MEMSET(out[c], 0xff, n[c] * sizeof(float)); /* poison: NaN */
        }
        shuffle(order, NCOLL, &local_rng);
        for (int c = 0; c < NCOLL; c++) DFCT_OK(DFC_Start(&req[order[c]]));
        DFCT_OK(DFC_Waitall(NCOLL, req, DFC_STATUSES_IGNORE));
        for (int c = 0; c < NCOLL; c++) {
            CUDA_OK(cudaMemcpy(h, out[c], n[c] * sizeof(float), cudaMemcpyDeviceToHost));
            for (int i = 0; i < n[c]; i++) {
                float want = (float)((size * (size + 1) / 2) * (it % 7 + 1) + size * (i % 5));
                if (h[i] != want) {
                    DFCT_CHECK(0, "chaos iteration %d allreduce %d item %d: %g, want %g", it, c, i,
                               h[i], want);
                    break;
                }
            }
        }
    }
    for (int c = 0; c < NCOLL; c++) {
        DFC_Request_free(&req[c]);
        cudaFree(in[c]);
        cudaFree(out[c]);
    }
    free(h);
}

/* ---- random --------------------------------------------------------------------------- */
enum { OP_ALLREDUCE, OP_BCAST, OP_ALLGATHER, OP_ALLTOALL, OP_REDUCE_SCATTER, NOPS };
typedef struct op {
    int kind, comm, count, seed;
    int *sdev, *rdev;
    DFC_Request req;
} op_t;

static int value(int seed, int r, int i) { return (seed * 7 + r * 131 + i * 3) % 1000; }

static void post(op_t *o, DFC_Comm *comms)
{
    DFC_Comm comm = comms[o->comm];
    int cr, cs, n = o->count;
    DFC_Comm_rank(comm, &cr);
    DFC_Comm_size(comm, &cs);
    size_t sitems = (size_t)n * cs, ritems = (size_t)n * cs;
    int *h = malloc(sitems * sizeof(int));
    for (size_t i = 0; i < sitems; i++) h[i] = value(o->seed, cr, (int)i);
    CUDA_OK(cudaMalloc((void **)&o->sdev, sitems * sizeof(int)));
    CUDA_OK(cudaMalloc((void **)&o->rdev, ritems * sizeof(int)));
    DEV_UPLOAD(o->sdev, h, sitems * sizeof(int));
    DEV_UPLOAD(o->rdev, h, o->kind == OP_BCAST ? n * sizeof(int) : 0);
    free(h);
    switch (o->kind) {
    case OP_ALLREDUCE:
        DFCT_OK(DFC_Iallreduce(o->sdev, o->rdev, n, DFC_INT, DFC_SUM, comm, &o->req));
        break;
    case OP_BCAST: DFCT_OK(DFC_Ibcast(o->rdev, n, DFC_INT, o->seed % cs, comm, &o->req)); break;
    case OP_ALLGATHER:
        DFCT_OK(DFC_Iallgather(o->sdev, n, DFC_INT, o->rdev, n, DFC_INT, comm, &o->req));
        break;
    case OP_ALLTOALL:
        DFCT_OK(DFC_Ialltoall(o->sdev, n, DFC_INT, o->rdev, n, DFC_INT, comm, &o->req));
        break;
    default:
        DFCT_OK(DFC_Ireduce_scatter_block(o->sdev, o->rdev, n, DFC_INT, DFC_SUM, comm, &o->req));
    }
}

static void check(op_t *o, DFC_Comm *comms)
{
    DFC_Comm comm = comms[o->comm];
    int cr, cs, n = o->count, bad = -1, want = 0, gotv = 0;
    DFC_Comm_rank(comm, &cr);
    DFC_Comm_size(comm, &cs);
    int ritems = o->kind == OP_ALLREDUCE || o->kind == OP_BCAST || o->kind == OP_REDUCE_SCATTER
                     ? n
                     : n * cs;
    int *got = malloc(ritems * sizeof(int));
    CUDA_OK(cudaMemcpy(got, o->rdev, ritems * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < ritems && bad < 0; i++) {
        switch (o->kind) {
        case OP_ALLREDUCE:
            want = 0;
            for (int r = 0; r < cs; r++) want += value(o->seed, r, i);
            break;
        case OP_BCAST: want = value(o->seed, o->seed % cs, i); break;
        case OP_ALLGATHER: want = value(o->seed, i / n, i % n); break;
        case OP_ALLTOALL: want = value(o->seed, i / n, cr * n + i % n); break;
        default:
            want = 0;
            for (int r = 0; r < cs; r++) want += value(o->seed, r, cr * n + i);
        }
        if (got[i] != want) {
            bad = i;
            gotv = got[i];
        }
    }
    DFCT_CHECK(bad < 0, "random op kind %d on comm %d count %d: item %d is %d, want %d", o->kind,
               o->comm, n, bad, gotv, want);
    free(got);
    cudaFree(o->sdev);
    cudaFree(o->rdev);
}

static void test_random(int total)
{
    DFC_Comm comms[4], rev;
    DFC_Comm_dup(DFC_COMM_WORLD, &comms[0]);
    DFC_Comm_dup(DFC_COMM_WORLD, &comms[1]);
    DFC_Comm_split(DFC_COMM_WORLD, 0, size - rank, &rev);
    comms[2] = rev;
    DFC_Comm_dup(rev, &comms[3]);
    shared_rng = 0x9e3779b97f4a7c15ull;
    op_t ops[16];
    DFC_Request reqs[16];
    int order[16], done = 0, batch_no = 0;
    while (done < total) {
        int nb = (int)(xorshift(&shared_rng) % 16) + 1;
        if (nb > total - done) nb = total - done;
        for (int i = 0; i < nb; i++) {
            ops[i].kind = (int)(xorshift(&shared_rng) % NOPS);
            ops[i].comm = (int)(xorshift(&shared_rng) % 4);
            uint32_t sz = xorshift(&shared_rng) % 100;
            uint32_t limit = sz < 70 ? 64 : sz < 95 ? 8192 : 262144; /* mostly small, some large */
            ops[i].count = (int)(xorshift(&shared_rng) % limit) + 1;
            ops[i].seed = (int)(xorshift(&shared_rng) % 100000);
            order[i] = i;
        }
        /* Each rank interleaves the 4 communicators' operations at random, keeping the
         * order within a communicator (MPI: collectives on one communicator are called in
         * the same order everywhere; only the order across communicators may differ). */
        int next[4] = {0, 0, 0, 0}, k = 0;
        while (k < nb) {
            int c = (int)(xorshift(&local_rng) % 4);
            while (next[c] < nb && ops[next[c]].comm != c) next[c]++;
            if (next[c] == nb) continue;
            order[k++] = next[c]++;
        }
        for (int i = 0; i < nb; i++) {
            post(&ops[order[i]], comms);
            if (xorshift(&local_rng) % 8 == 0) CUDA_OK(cudaDeviceSynchronize()); /* NCCL's trap */
        }
        for (int i = 0; i < nb; i++) reqs[i] = ops[i].req;
        switch (xorshift(&local_rng) % 4) {
        case 0: DFCT_OK(DFC_Waitall(nb, reqs, DFC_STATUSES_IGNORE)); break;
        case 1:
            for (int left = nb; left > 0; left--) {
                int idx;
                DFCT_OK(DFC_Waitany(nb, reqs, &idx, DFC_STATUS_IGNORE));
            }
            break;
        case 2: {
            int left = nb, outc, idx[16];
            while (left > 0) {
                DFCT_OK(DFC_Waitsome(nb, reqs, &outc, idx, DFC_STATUSES_IGNORE));
                left -= outc;
            }
            break;
        }
        default: {
            int flag = 0;
            while (!flag) DFCT_OK(DFC_Testall(nb, reqs, &flag, DFC_STATUSES_IGNORE));
        }
        }
        for (int i = 0; i < nb; i++) check(&ops[i], comms);
        done += nb;
        batch_no++;
    }
    for (int c = 0; c < 4; c++) DFC_Comm_free(&comms[c]);
}

int main(int argc, char **argv)
{
    dev_watchdog(900);
    const char *test = "chaos";
    int total = 10000, want_daemon = 0;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "-test=", 6)) test = argv[i] + 6;
        else if (!strncmp(argv[i], "-ops=", 5)) total = atoi(argv[i] + 5);
        else if (!strcmp(argv[i], "-daemon")) want_daemon = 1;
    }
    if (want_daemon) dev_daemon_at_every_size();
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    local_rng = 0x2545f4914f6cdd1dull * (uint64_t)(rank + 1);
    if (!strcmp(test, "chaos")) test_chaos();
    else test_random(total);
    int device;
    DFC_Count launches, preemptions;
    DFCT_OK(DFC_Get_gpu_daemon_info(&device, &launches));
    DFCT_OK(DFC_Get_preemption_count(&preemptions));
    if (want_daemon)
        DFCT_CHECK(device >= 0 && launches > 0, "the GPU daemon did not run (device %d)", device);
    if (getenv("DEVORDER_VERBOSE"))
        fprintf(stderr, "[rank %d] %s: daemon device %d, %lld launches, %lld preemptions\n", rank,
                test, device, (long long)launches, (long long)preemptions);
    return dfct_finalize();
}
