/*
 * dfc_bench.h - the interface between dfc_bench's driver (dfc_bench.c, which calls DFC) and
 * its anchor (dfc_bench_anchor.c, which calls MPI and is compiled with mpicc's flags).
 *
 * Both libraries sit behind the same table of calls so that one driver runs one workload
 * through each, with the same buffers, timer and statistics, in the same process. DFC_ and
 * MPI_ names do not clash, so a process can be a client of both (both are PMIx clients of
 * the launcher's server).
 */
#ifndef DFC_BENCH_H
#define DFC_BENCH_H

#define BENCH_MAX_WINDOW 64 /* osu_bw's window: sends in flight per bandwidth iteration */

typedef struct bench_lib {
    const char *name; /* "DFC" or "anchor" */
    char version[256];
    int rank, size;
    int (*barrier)(void);
    /* The harness's own waits (dfc_bench.c, "Waits between libraries"): a nonblocking
     * barrier, its test (0 or an error code; *done set), and one call that makes progress
     * and matches nothing. */
    int (*ibarrier_start)(void);
    int (*ibarrier_test)(int *done);
    void (*poke)(void);
    /* Collectives on the world communicator; counts are in floats or bytes as named. */
    int (*allreduce_float)(const float *sbuf, float *rbuf, int count);
    int (*allgather_bytes)(const void *sbuf, void *rbuf, int bytes_per_rank);
    int (*reduce_scatter_block_float)(const float *sbuf, float *rbuf, int count_per_rank);
    int (*bcast_bytes)(void *buf, int bytes, int root);
    int (*alltoall_bytes)(const void *sbuf, void *rbuf, int bytes_per_rank);
    int (*alltoallv_bytes)(const void *sbuf, const int *scounts, const int *sdispls, void *rbuf,
                           const int *rcounts, const int *rdispls);
    /* Point-to-point. */
    int (*send_bytes)(const void *buf, int bytes, int dest, int tag);
    int (*recv_bytes)(void *buf, int bytes, int src, int tag);
    /* `window` nonblocking sends (receives) of the same buffer, then wait for them all. */
    int (*send_window)(const void *buf, int bytes, int dest, int tag, int window);
    int (*recv_window)(void *buf, int bytes, int src, int tag, int window);
    /* Nonblocking allreduce: start one (the library keeps the request), then wait for it. */
    int (*iallreduce_start)(const float *sbuf, float *rbuf, int count);
    int (*iallreduce_wait)(void);
    /* Nonblocking exchange with one partner: Irecv and Isend of `bytes` (the library keeps
     * both requests), then wait for both. */
    int (*iexchange_start)(const void *sbuf, void *rbuf, int bytes, int partner, int tag);
    int (*iexchange_wait)(void);
    /* Non-contiguous (issue 17): n doubles, every other one (a stride-2 vector type). The
     * allgather receives rank p's block at double 2*n*p (the vector resized to 2n). */
    int (*send_vec)(const double *buf, int n, int dest, int tag);
    int (*recv_vec)(double *buf, int n, int src, int tag);
    int (*allgather_vec)(const double *sbuf, double *rbuf, int n);
    int (*finalize)(void);
} bench_lib_t;

/* Defined by dfc_bench_anchor.c: initializes MPI and returns its table, or NULL (with a
 * reason in `why`) when it cannot. */
const bench_lib_t *bench_anchor_init(int *argc, char ***argv, char *why, int whylen);

#endif
