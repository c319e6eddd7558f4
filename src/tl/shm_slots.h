/*
 * shm_slots.h - the collective slots in the shm segment: small allreduces on a communicator
 * whose ranks all share one node, without packets or matching.
 *
 * Each local rank owns one dfc_slot_rank_t: a control line and DFC_SLOT_NBUF buffers, each
 * a 64-bit stamp followed by up to DFC_SLOT_DATA bytes (the stamp and the first 48 bytes
 * share a cache line, so an 8-byte contribution is one line: flag in data). Only the owner
 * writes its slot; every local rank reads the others'.
 *
 * Protocol for the k-th slot collective (k = 1, 2, ... on the communicator, the same on
 * every rank, since collectives on one communicator are initiated in one order):
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
 * Stamps are never reset, so slots serve only communicators that live as long as the
 * segment (DFC_COMM_WORLD when every rank is on this node; see dfc_comm_slots).
 */
#ifndef DFC_SHM_SLOTS_H
#define DFC_SHM_SLOTS_H

#include <stdatomic.h>
#include <stdint.h>

#include "tl/dfc_tl.h"

#define DFC_SLOT_NBUF 4
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

/* This process's view of the slots (the shm transport's own state). */
typedef struct dfc_shm_slots {
    dfc_slot_rank_t *ranks; /* by local rank */
    int me;                 /* my local rank */
    int nlocal;
    const int *lrank_of_world; /* world rank -> local rank (-1: not on this node) */
    uint64_t *done_cache;      /* by local rank: last `done` read (process memory) */
    uint64_t seq;              /* slot collectives started on DFC_COMM_WORLD */
    volatile int inflight;     /* slot collectives started here and not finished */
} dfc_shm_slots_t;

#endif /* DFC_SHM_SLOTS_H */
