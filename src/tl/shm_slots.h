/*
 * shm_slots.h - the collective slots in the shm segment: small allreduces on a communicator
 * whose ranks all share one node, without packets or matching.
 *
 * Each local rank owns one dfc_slot_rank_t: a control line and DFC_SLOT_NBUF buffers, each
 * a 64-bit stamp followed by up to DFC_SLOT_DATA bytes (the stamp and the first 48 bytes
 * share a cache line, so an 8-byte contribution is one line: flag in data). Only the owner
 * writes its slot; every local rank reads the others'.
 *
 * Protocol for the slot collective with stamp k (k = base + 1, base + 2, ... on the
 * communicator, the same on every rank, since collectives on one communicator are initiated
 * in one order; base below):
 *   write: buffer b = k % NBUF is free once every member's `done` >= k - NBUF (each has
 *          finished reading what was written there before; this rank reads its own
 *          contribution from its slot too); copy the input, then publish it with a
 *          release store of the stamp k;
 *   read:  wait until every other member's buffer b carries stamp k (acquire), and until
 *          this rank's own `done` is k - 1 (completion in order); reduce; release-store
 *          done = k.
 * A rooted exchange (bcast: dfc_tl_slot_xchg_t.rooted) is the same with one writer: only
 * the root writes its buffer b (after the same free check), the others skip the write and
 * wait for the root's stamp alone; everyone still reads in order and publishes `done`.
 * The protocol runs in the transport's slot_xchg (dfc_tl.h), which never blocks: each wait
 * is a DFC_TL_AGAIN, which the executor (src/coll/exec.c, through dfc_comm_slot_xchg)
 * turns into "not ready", so it may park the collective and run another: the slots add no
 * blocking wait. Writers ring no doorbell
 * (that would cost a full fence per collective); instead a process with a slot collective
 * in flight (`inflight`) never sleeps in the shm transport's wait: it yields the CPU.
 *
 * Communicators (issue 16): every local rank owns DFC_SLOT_SETS such slots, one per set; a
 * communicator whose members are all on this node and whose context id is below
 * DFC_SLOT_SETS uses set = its context id (dfc_tl_shm_slot_open). A context id is unique
 * among the live communicators of each process, so no two live communicators that share a
 * member use one set. Stamps are never reset; instead each communicator's stamps start
 * above `base`, the largest stamp any member used in any communicator it closed before (a
 * Lamport clock gathered at creation, like the incarnation), so stamps and `done` values
 * left in a set by an earlier communicator are always below the new one's and are never
 * taken for its data. One hazard is left: a member of the earlier communicator that is not
 * in the new one may still be reading this rank's buffers there (a nonblocking collective
 * still pending on a freed communicator). So closing records, per set, the `done` each
 * earlier member must reach (`need`), and the first DFC_SLOT_NBUF writes of the next
 * communicator in the set wait for that too.
 */
#ifndef DFC_SHM_SLOTS_H
#define DFC_SHM_SLOTS_H

#include <stdatomic.h>
#include <stdint.h>

#include "tl/dfc_tl.h"

/* 16 buffers, not 4: a bcast root runs up to NBUF exchanges ahead of its slowest reader,
 * and with 4 it waited for readers often enough to double a small bcast's time (2-core
 * machine, 2 ranks: 8 B 0.18 -> 0.11 us; 4 ranks on 2 cores 0.26 -> 0.12 us). */
#define DFC_SLOT_NBUF 16
/* A writer that found a buffer still in use waits, once it looks again, until SLACK buffers
 * are free rather than one: a bcast root that is ahead of its reader then writes SLACK
 * exchanges without reading the reader's `done` line (which the reader writes each time), and
 * stays ahead, instead of trailing it one line transfer per exchange. */
#define DFC_SLOT_SLACK 8
#define DFC_SLOT_SETS DFC_TL_SLOT_SETS
#define DFC_SLOT_DATA DFC_TL_SLOT_BYTES

typedef struct dfc_slot_ctrl {
    _Alignas(64) _Atomic uint64_t done; /* last slot collective this rank finished reading */
} dfc_slot_ctrl_t;

typedef struct dfc_slot_buf {
    _Alignas(64) _Atomic uint64_t stamp;
    uint64_t pad;
    unsigned char data[DFC_SLOT_DATA];
} dfc_slot_buf_t;

typedef struct dfc_slot_rank {
    dfc_slot_ctrl_t ctrl;
    dfc_slot_buf_t buf[DFC_SLOT_NBUF];
} dfc_slot_rank_t;

/* One communicator's view of its set (dfc_tl_shm_slot_open; process memory). */
typedef struct dfc_tl_slot_comm {
    dfc_slot_rank_t **slot; /* by member index: that member's slot in this set */
    uint64_t *done_cache;   /* by member: last `done` read */
    int *lrank;             /* by member: local rank */
    int n, me;
    unsigned set;
    uint64_t base;  /* this communicator's stamps are base + 1, base + 2, ... */
    uint64_t seq;   /* last stamp begun */
    uint64_t *need; /* the set's drain record (by local rank), see above */
    int draining;   /* need may hold something not yet seen */
} dfc_tl_slot_comm_t;

/* This process's view of the slots (the shm transport's own state). */
typedef struct dfc_shm_slots {
    dfc_slot_rank_t *ranks; /* local rank l, set c: ranks[l * DFC_SLOT_SETS + c] */
    int me;                 /* my local rank */
    int nlocal;
    const int *lrank_of_world; /* world rank -> local rank (-1: not on this node) */
    uint64_t *need;            /* by set, then local rank: the drain records */
    uint64_t clock;            /* largest stamp of a communicator closed here */
    volatile int inflight;     /* slot collectives started here and not finished */
} dfc_shm_slots_t;

#endif /* DFC_SHM_SLOTS_H */
