/*
 * coll_sim.h - a schedule simulator for unit tests: runs the schedules of n ranks (one
 * dfc_sched_t per rank, built by calling a generator once per rank) in one process, exactly
 * as src/coll/dfc_sched.h defines them, and checks everything it can on the way.
 *
 * Model (the strictest reading of dfc_sched.h):
 *   - SEND/RECV/RECV_REDUCE are posted in step order. Per (sender, receiver) pair the k-th
 *     send posted matches the k-th receive posted. Data moves when both are posted; then
 *     both are complete (a send completes only once matched: no eager buffering, so a
 *     schedule that would only work with buffering deadlocks here).
 *   - FENCE, COPY and REDUCE wait until every transfer posted since the last fence is
 *     complete, then apply that epoch's RECV_REDUCE reductions in step order. COPY/REDUCE
 *     then run; the next epoch starts after them.
 *   - A schedule must end with a fence point (FENCE, COPY or REDUCE) after its last
 *     transfer; transfers after the last one are a failure.
 *   - Reductions: IN_FIRST: dst = in (op) dst; IN_SECOND: dst = dst (op) in. As in exec.c,
 *     the source is scratch afterwards when it is in TMP: the TMP bytes of every RECV_REDUCE,
 *     and the TMP source of an IN_SECOND REDUCE, are overwritten with garbage after use.
 *     Other sources are never written.
 * Checked, each a failure: a byte-count mismatch between matched send and receive; a peer
 *   out of range or equal to the rank itself; an access outside a bound buffer (size 0 or
 *   NULL pointer: no access allowed, except zero-byte ones); any write to SEND;
 *   RECV_REDUCE bytes != count * size; COPY/REDUCE with overlapping source and destination;
 *   within one epoch, a receive destination (RECV dst, RECV_REDUCE TMP) overlapping another
 *   transfer's bytes; a deadlock (no rank can advance while some are unfinished: every
 *   stuck rank's step and peer are reported).
 * Scheduling: COLL_SIM_ORDERED advances ranks round-robin, each as far as it can;
 *   COLL_SIM_RANDOM advances a random rank by a random number of steps each time (seeded).
 *
 * Failures are printed to stderr, one line each, prefixed with the caller's label; a run
 * stops at its first failure.
 */
#ifndef COLL_SIM_H
#define COLL_SIM_H

#include <stdint.h>

#include "coll/dfc_coll.h"

enum { COLL_SIM_ORDERED = 0, COLL_SIM_RANDOM = 1 };

/* One rank of a run. The caller builds `sched` and binds SEND and RECV (ptr, bytes: the
 * bytes the rank may touch; NULL/0 where the buffer is not significant). TMP is allocated
 * by coll_sim_run (sched.tmp_bytes) when buf[DFC_BUF_TMP] is NULL, and freed after. */
typedef struct coll_sim_rank {
    dfc_sched_t sched;
    void *buf[DFC_BUF_COUNT];
    uint64_t bytes[DFC_BUF_COUNT];
} coll_sim_rank_t;

/* Runs the n ranks' schedules to completion. dt and op may be NULL when no schedule
 * reduces. Returns 0, or -1 after printing one failure line. Schedules are not freed. */
int coll_sim_run(const char *label, int n, coll_sim_rank_t *ranks, const dfc_dtype_t *dt,
                 const dfc_op_t *op, int mode, uint64_t seed);

/* ---- Whole reductions against a serial reference ------------------------------------------
 * Kinds: REDUCE, ALLREDUCE, REDUCE_SCATTER_BLOCK, REDUCE_SCATTER, SCAN, EXSCAN, with the
 * buffer meanings of dfc_coll_args_t. Inputs are random (integer-valued for floating types,
 * so that sums are exact in any order); the reference folds x0 op x1 op ... op x(n-1) in rank
 * order with dfc_op_reduce. Checked: every output byte, SEND unchanged, exscan rank 0's RECV
 * unchanged. Non-root RECV of REDUCE and SEND when in place are bound NULL. */
typedef struct coll_sim_case {
    dfc_coll_kind_t kind;
    dfc_coll_build_fn build;
    int n;
    int root;           /* REDUCE */
    int in_place;       /* REDUCE: on the root only */
    uint64_t count;     /* as dfc_coll_args_t.count */
    const int *rcounts; /* REDUCE_SCATTER */
    const dfc_dtype_t *dt;
    const dfc_op_t *op;
    int mode;      /* COLL_SIM_ORDERED or COLL_SIM_RANDOM */
    uint64_t seed; /* inputs and random scheduling */
    /* as dfc_coll_args_t.world and .world_node (hierarchical algorithms), or NULL */
    const int *world, *world_node;
    int gpu; /* as dfc_coll_args_t.gpu (0: the host's schedules) */
} coll_sim_case_t;

/* The arguments a generator gets on `rank` for this case (also for calling `usable`). */
void coll_sim_args(const coll_sim_case_t *c, int rank, dfc_coll_args_t *a);
/* Builds, runs and checks the case. Returns 0, or -1 after printing one failure line
 * starting with `label`. */
int coll_sim_check(const char *label, const coll_sim_case_t *c);

#endif /* COLL_SIM_H */
