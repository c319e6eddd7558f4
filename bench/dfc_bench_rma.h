/*
 * dfc_bench_rma.h - the interface between dfc_bench_rma's driver (dfc_bench_rma.c, which
 * calls DFC) and its anchor (dfc_bench_rma_anchor.c, which calls MPI and is compiled with
 * mpicc's flags), so that one process runs each one-sided workload through both.
 */
#ifndef DFC_BENCH_RMA_H
#define DFC_BENCH_RMA_H

#include <stddef.h>

typedef struct rma_lib {
    const char *name; /* "DFC" or "anchor" */
    char version[256];
    int rank, size;
    int (*barrier)(void);
    /* Win_allocate of `bytes` on the world communicator (disp_unit 1); one window at a time. */
    int (*win_allocate)(size_t bytes, void **base);
    int (*win_free)(void);
    int (*lock)(int rank); /* shared lock, as osu_put_latency */
    int (*unlock)(int rank);
    int (*flush)(int rank);
    int (*fence)(void);
    int (*put)(const void *buf, int bytes, int target);
    int (*get)(void *buf, int bytes, int target);
    /* Accumulate of n doubles with SUM at displacement 0 of target */
    int (*acc)(const double *buf, int n, int target);
    int (*finalize)(void);
} rma_lib_t;

/* Defined by dfc_bench_rma_anchor.c: initializes MPI and returns its table, or NULL (with a
 * reason in `why`) when it cannot. */
const rma_lib_t *rma_anchor_init(int *argc, char ***argv, char *why, int whylen);

#endif
