/*
 * dfc_tl.h - transports: one ops table for moving packets between processes.
 *
 * A packet is a fixed header (dfc_pkt_t) plus up to `max_payload` bytes. Transports know
 * nothing about communicators, matching or requests: the comm layer builds the protocol
 * (eager, rendezvous) out of packets. Each transport is FIFO per (sender, receiver) pair,
 * which is what gives MPI's non-overtaking order.
 *
 * Peers are world ranks. Transports depend on util and pmix (bootstrap) only.
 *
 * Layering: util <- pmix <- tl <- comm <- coll <- api.
 */
#ifndef DFC_TL_H
#define DFC_TL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Packet types of the point-to-point protocol (interpreted by the comm layer). */
enum {
    DFC_PKT_EAGER = 1,      /* whole message in the payload */
    DFC_PKT_RTS = 2,        /* rendezvous: request to send `len` bytes; sreq identifies it */
    DFC_PKT_CTS = 3,        /* rendezvous: clear to send; rreq identifies the receive */
    DFC_PKT_DATA = 4,       /* rendezvous: a fragment at `offset` for rreq */
    DFC_PKT_FIN = 5,        /* rendezvous: the receiver pulled the data itself (rget) */
    DFC_PKT_SACK = 6,       /* synchronous eager send was matched */
    DFC_PKT_HELLO = 7,      /* transport-internal (tcp handshake); never delivered */
    DFC_PKT_CANCEL = 8,     /* the sender cancels message sreq if it has not matched yet */
    DFC_PKT_CANCEL_ACK = 9, /* the answer: flags DFC_PKT_FLAG_CANCELLED if it was removed */
    DFC_PKT_TYPE_MAX = 10
};

#define DFC_PKT_FLAG_SYNC 0x1      /* sender waits for a match acknowledgement (Ssend) */
#define DFC_PKT_FLAG_NODATA 0x2    /* FIN: the receiver will never read the announced data */
#define DFC_PKT_FLAG_DEV 0x4       /* RTS: device buffer; payload: its CUDA IPC name (comm/p2p.c) */
#define DFC_PKT_FLAG_CANCELLED 0x8 /* CANCEL_ACK: the message was unmatched and is gone */
/* RTS: the data is not contiguous at the sender (a derived datatype, packed fragment by
 * fragment): no rget of its buffer, the receiver answers CTS (comm/p2p.c) */
#define DFC_PKT_FLAG_PACKED 0x10

typedef struct dfc_pkt {
    uint8_t type;
    uint8_t flags;
    uint16_t reserved;
    uint32_t ctx; /* context id of the communicator */
    int32_t src;  /* sender's rank in that communicator */
    int32_t tag;
    uint64_t len;         /* total message length in bytes */
    uint64_t sreq;        /* sender's request id (rendezvous, sync) */
    uint64_t rreq;        /* receiver's request id (CTS, DATA, FIN) */
    uint64_t offset;      /* DATA: where this fragment goes; RTS: sender address (rget) */
    uint32_t payload_len; /* bytes following the header */
    uint32_t src_world;   /* sender's world rank */
} dfc_pkt_t;

/* Return values of send besides DFC_SUCCESS and error codes. */
#define DFC_TL_AGAIN 1000 /* no room now: retry after progress; nothing was taken */

struct dfc_tl;

/* ---- Collective slots: a small exchange among processes of one node --------------------
 * Every member contributes up to DFC_TL_SLOT_BYTES bytes into shared memory and reads every
 * member's contribution in place, without packets (shm: shm_slots.h). Exchanges on the
 * slots are numbered in the order the members begin them, which must be the same on every
 * member (the initiation order of collectives on one communicator). One exchange is driven
 * by repeated calls of slot_xchg, each advancing `phase` as far as it can: */
/* 4 KiB, not 1: bcast and alltoall of 2-4 KiB at 8 and 16 ranks took 0.35-0.49x the time of
 * the message algorithms through them (16 ranks: alltoall of 2 KiB 2.4 against 14.3 us,
 * bcast of 4 KiB 1.3 against 4.0; BENCHMARKS.md, stop 33; a bcast of 2 ranks stops at 1 KiB:
 * coll's bcast_shm_slots.c says why). An allreduce where every member would read every
 * other's 2-4 KiB (slower than recursive doubling at 16 ranks) takes two exchanges instead,
 * each reading a chunk (coll's allreduce_shm_slots_rs_ag.c). The price is shared memory,
 * reserved at init: 16 sets of 16 buffers per local rank, about 1 MiB per rank (270 KiB
 * before); only what collectives use becomes resident. */
#define DFC_TL_SLOT_BYTES 4096
#define DFC_TL_SLOT_SETS 16 /* slot sets per local rank: communicators with context id below */
struct dfc_tl_slot_comm;    /* one communicator's slots (dfc_tl_shm_slot_open) */
enum dfc_tl_slot_phase {
    DFC_TL_SLOT_BEGIN = 0, /* takes the exchange's number (stamp): call in initiation order */
    DFC_TL_SLOT_WRITE,     /* copies the contribution in and publishes it once the slot is free */
    DFC_TL_SLOT_READ,      /* waits for every member's contribution, hands them to reduce,
                              then publishes that this member has finished reading */
    DFC_TL_SLOT_DONE,      /* finished */
    DFC_TL_SLOT_CANCEL,    /* the caller gives up (a member failed): the exchange ends here */
    DFC_TL_SLOT_RUN        /* BEGIN, then WRITE in the same call: for a caller that would
                              call WRITE at once (one call less on a blocking fast path) */
};
typedef struct dfc_tl_slot_xchg {
    /* the communicator's slots (dfc_tl_shm_slot_open): exchanges are numbered per one */
    struct dfc_tl_slot_comm *sc;
    const int *members; /* world ranks of the members, all on this node, in one order */
    int n, me;          /* number of members; the caller's index among them */
    const void *src;    /* the caller's contribution: `bytes` <= DFC_TL_SLOT_BYTES, the same */
    uint64_t bytes;     /*   size on every member */
    /* Called once per exchange, from slot_xchg, when every contribution is there: in[i] is
     * member i's (the caller's own included), readable only during the call. */
    void (*reduce)(void *ctx, const void *const *in, int n);
    void *ctx;
    uint64_t stamp; /* set by BEGIN; the caller keeps it and `phase` between calls */
    int phase;      /* enum dfc_tl_slot_phase */
    /* rooted 0: every member contributes and waits for all (allreduce, barrier). rooted 1:
     * only member `root` (an index into members) contributes (bcast): the others write
     * nothing and wait only for it; reduce still gets an array of n, but only in[root] is set. */
    int rooted, root;
    /* A part of src that no other member reads (an alltoall's own block), skip_len bytes at
     * skip_off: not copied into the slot, so in[me] holds no meaning there and reduce takes
     * those bytes from src itself. skip_len 0 (the default): the whole contribution. */
    uint64_t skip_off, skip_len;
    /* 1: the caller's next exchange is the next piece of this one, as long (a bcast or
     * allgather cut into slot buffers, coll's *_shm_slots.c), so a reader may fetch it
     * ahead while it copies this one (shm); 0: anything else may come next. */
    int more;
} dfc_tl_slot_xchg_t;

/* Called by progress for every packet that arrives. `pkt` and `payload` are valid only
 * during the call (the transport reuses their memory afterwards, or decoded the header into
 * its own stack: shm_wire.h). The callback may call send on any transport (the comm layer
 * answers an RTS with a CTS from inside it), so a transport's progress must keep its state
 * consistent across the call. */
typedef void (*dfc_tl_deliver_fn)(const dfc_pkt_t *pkt, const void *payload);

/* What a transport is told about the job at init. */
typedef struct dfc_tl_job {
    int rank, size;             /* world */
    int local_rank, local_size; /* on this node */
    const char *nspace;         /* for naming shared segments */
    const int *peers;           /* world ranks this transport must reach (sorted) */
    int npeers;
    const int *local_ranks; /* world rank of each local rank (shm), local_size entries */
    int fault_timeout_s;    /* DFC_FAULT_TIMEOUT: detect a silent peer's loss within it */
} dfc_tl_job_t;

/* rget's flags (see there). */
#define DFC_TL_RGET_ALONE 1u

typedef struct dfc_tl_ops {
    const char *name; /* "self", "shm", "tcp" */

    /* Sets up connections to job->peers. Collective: every process of the job calls it
     * (those with no peers too, with npeers 0), since it uses bootstrap put/fence/get.
     * May block (it runs inside DFC_Init). On failure returns an error code with its
     * message recorded and leaves nothing behind (no segment, no socket). */
    int (*init)(struct dfc_tl *tl, const dfc_tl_job_t *job);

    /* Queues one packet to world rank `peer`. Never blocks. On DFC_SUCCESS the packet and
     * payload were copied: the caller keeps ownership of both buffers. Returns DFC_TL_AGAIN
     * when the transport has no room (nothing was taken; retry after progress), or an error
     * code of class DFC_ERR_PROC_FAILED once the peer is known to be gone. Packets to one
     * peer are delivered in the order send accepted them. payload_len <= max_payload. */
    int (*send)(struct dfc_tl *tl, int peer, const dfc_pkt_t *pkt, const void *payload);

    /* Optional (NULL if absent): copies len bytes from `remote_addr` in peer's address
     * space to `local` (shm: cross-memory attach; ofi: an RMA read with the key that came
     * with the peer's RTS for that address). Blocks for the copy only. Returns DFC_SUCCESS,
     * or DFC_ERR_UNSUPPORTED_OPERATION when it cannot (the caller falls back to DATA
     * packets), or another error code. A transport that hands out keys (ofi) watches the
     * RTS it sends and the FIN, CTS and CANCEL_ACK that answer it, and so learns when a
     * buffer may no longer be read: the comm layer answers every RTS it matched.
     * flags: DFC_TL_RGET_ALONE when the caller reads the data right after (a reduction):
     * the copy runs on the caller's core, so that the data lands in its cache (shm: no pull
     * shared with the sender, shm_coop.h); 0 otherwise. */
    int (*rget)(struct dfc_tl *tl, int peer, void *local, uint64_t remote_addr, size_t len,
                unsigned flags);

    /* 1 when rget may run without the comm layer's lock: in several threads at once and
     * beside any other op of this transport in another thread (the comm layer then copies
     * with the lock dropped, so that a long copy holds up no other thread). Such an rget
     * reads only what init fixed and what other ops change atomically, writes nothing but
     * atomic flags and state it alone owns (shm: its shared-pull descriptor, one thread at
     * a time), and reports a failed peer by its return value alone (progress reports it
     * too, as it finds it). 0 (ofi): rget runs under the lock like every other op. */
    int rget_unlocked;

    /* Optional (NULL if absent): rget without blocking, so that several copies overlap (ofi:
     * RMA reads in flight together). rget_start returns DFC_SUCCESS with *op set (the copy
     * runs; `local` stays the transport's until rget_test says done), DFC_TL_AGAIN when no
     * more copies may run now (the caller uses rget), or what rget would return.
     * rget_test never blocks: *done = 0 while the copy runs; with *done = 1 it returns the
     * copy's result as rget would (op is gone then). A copy from a peer that failed ends
     * with DFC_ERR_PROC_FAILED. Called from the comm layer's progress, under its lock. */
    int (*rget_start)(struct dfc_tl *tl, int peer, void *local, uint64_t remote_addr, size_t len,
                      void **op);
    int (*rget_test)(struct dfc_tl *tl, void *op, int *done);

    /* Delivers arrived packets through `deliver` and flushes queued output. Never blocks
     * (shm may copy pieces of a peer's rget of this process's memory into it, shm_coop.h:
     * a bounded copy, no wait).
     * Returns the number of packets delivered (>= 0) or, when a peer failed, the NEGATED
     * error code (-code; the message names the peer) with tl->failed_peer set to its world
     * rank; each failed peer is reported once, and progress still works for the others. */
    int (*progress)(struct dfc_tl *tl, dfc_tl_deliver_fn deliver);

    /* Optional: blocks the caller up to timeout_us microseconds or until something may have
     * arrived for this process on this transport, room freed for output it refused, or
     * *tl->wake_seq changed. Spurious returns are allowed. Called only after progress found
     * nothing, with the caller's lock held: it reads its own state and *tl->wake_seq, then
     * calls tl->wait_release (when set), which drops that lock, and only then sleeps; it
     * returns without the lock. Several threads may be inside wait at once. */
    void (*wait)(struct dfc_tl *tl, long timeout_us);

    /* Optional: makes this process's threads inside wait return; the caller has already
     * changed *tl->wake_seq. Called with the caller's lock held. A transport whose wait has
     * no wake sleeps only briefly when other threads of its process may wake it. */
    void (*wake)(struct dfc_tl *tl);

    /* Optional: non-zero while packets accepted by send are still queued inside the
     * transport (not yet handed to the OS or to shared memory). Finalize progresses until
     * it returns 0, so that a completed eager send is never lost. Never blocks. */
    int (*pending)(struct dfc_tl *tl);

    /* Optional (NULL if absent; shm has it, usable on x->sc from dfc_tl_shm_slot_open):
     * advances one slot exchange from x->phase as far as it can. Never blocks.
     * Returns DFC_SUCCESS when the phase asked for is done (BEGIN: x->stamp is set and phase
     * is WRITE; RUN, WRITE or READ: phase is DONE and reduce has run; CANCEL: phase is DONE;
     * RUN fails as BEGIN does or else returns as WRITE does, its stamp set),
     * DFC_TL_AGAIN when it must wait for another member (phase says how far it got: call
     * again later, with the same x), or an error code with its message recorded (slots off,
     * an unknown phase), in which case nothing was taken or changed. Buffers: src is only
     * read, during the call that moves phase past WRITE, and stays the caller's; the
     * contributions handed to reduce stay the transport's. The transport does not watch
     * for failed members: a caller that got DFC_TL_AGAIN checks for them itself and, when
     * one failed, ends its exchange with CANCEL (the others' exchanges then wait in vain:
     * once a member failed, the slots serve no later exchange). Called under the comm
     * layer's lock, like send. */
    int (*slot_xchg)(struct dfc_tl *tl, dfc_tl_slot_xchg_t *x);

    /* Releases everything init created. Not collective; safe after a failed init. */
    void (*fini)(struct dfc_tl *tl);
} dfc_tl_ops_t;

typedef struct dfc_tl {
    const dfc_tl_ops_t *ops;
    size_t max_payload; /* set by init */
    /* Set by init, optional: the largest message the comm layer sends to this transport's
     * peers eagerly (data in the EAGER packet; larger: rendezvous). 0, the default: the
     * comm layer's own DFC_EAGER_LIMIT. Either way the comm layer uses at most max_payload.
     * A transport sets it where its own rendezvous makes a different threshold pay (ofi:
     * DFC_OFI_EAGER_LIMIT, since a provider-level message of up to 128 KiB costs less there
     * than the RTS, RMA read and FIN of DFC's rendezvous; shm: DFC_SHM_EAGER_LIMIT, since the
     * receiver's one copy by cross-memory attach beats two through the ring from a few KiB,
     * and shm sets it to 0 once that attach fails). Only the sender decides by it; the comm
     * layer reads it atomically. */
    size_t eager_limit;
    /* Set by init, optional: the largest rendezvous message the comm layer pulls with rget;
     * a larger one asks the sender for DATA packets (CTS). 0, the default: no limit. shm
     * sets it from DFC_SHM_CMA_MAX (unlimited unless set). Only the receiver decides by it. */
    size_t rget_max;
    int failed_peer; /* world rank named by the last negative progress return */
    void *priv;      /* the transport's own state */
    /* Set by the comm layer for wait (NULL in single-threaded tests): the word its threads
     * bump when they change state another may wait for, and the function that drops the
     * lock wait is called under. */
    const _Atomic uint32_t *wake_seq;
    void (*wait_release)(void);
} dfc_tl_t;

extern const dfc_tl_ops_t dfc_tl_self_ops;
extern const dfc_tl_ops_t dfc_tl_shm_ops;
extern const dfc_tl_ops_t dfc_tl_tcp_ops;

/* Read (and so register with dfc_env) the parameters of shm and tcp without starting them,
 * for dfc_env_register_all: a singleton initializes neither. */
void dfc_tl_shm_register_params(void);
/* The collective slots of the shm segment (shm_slots.h) for one communicator: set `set`
 * (its context id), n members (world ranks, `me` is mine), stamps above `base` (the largest
 * dfc_tl_shm_slot_clock of its members, gathered at creation). *out NULL, and nothing
 * taken, when shm is not in use, DFC_SHM_SLOTS=0, set >= DFC_TL_SLOT_SETS, n < 2 or a
 * member is not on this node: the same answer on every member. DFC_ERR_NO_MEM when memory
 * is short (here alone: the caller fails the communicator's creation). Non-NULL: tl's
 * slot_xchg may run exchanges among these members. Close gives it back (not collective:
 * pending exchanges must be over here). Under the comm layer's lock. */
int dfc_tl_shm_slot_open(struct dfc_tl *tl, unsigned set, const int *members, int n, int me,
                         uint64_t base, struct dfc_tl_slot_comm **out);
void dfc_tl_shm_slot_close(struct dfc_tl *tl, struct dfc_tl_slot_comm *sc);
uint64_t dfc_tl_shm_slot_clock(struct dfc_tl *tl);
/* For the hang report: the first member (index) that the exchange `stamp` waits for, from
 * shared memory alone: whose contribution is missing (written 1; rooted: only the root's
 * counts), or who has not finished reading an earlier exchange that used the buffer
 * (written 0); -1 when it waits for none (for itself). */
int dfc_tl_shm_slot_waiting_for(const struct dfc_tl_slot_comm *sc, uint64_t stamp, int written,
                                int rooted, int root);
void dfc_tl_tcp_register_params(void);
/* The IPv4 address tcp would listen on and publish here, and why (DFC_TCP_IF_ADDR,
 * DFC_TCP_IF, the host name, the first interface not loopback): for dfc_info. */
int dfc_tl_tcp_address(char *ip, size_t iplen, char *how, size_t howlen);

/* ofi (libfabric, src/tl/ofi.c; a stub whose init fails when built without it). */
extern const dfc_tl_ops_t dfc_tl_ofi_ops;
void dfc_tl_ofi_register_params(void);
/* DFC_OFI_PROVIDER (NULL when unset). */
const char *dfc_tl_ofi_provider_param(void);
/* 1 when DFC_TRANSPORT=auto should use ofi between nodes: the provider it would choose is
 * not a socket provider (tcp, udp, sockets), so DFC's own tcp is no better. */
int dfc_tl_ofi_auto_usable(void);
/* For dfc_info: the providers libfabric offers (comma separated) and the one ofi chooses. */
void dfc_tl_ofi_providers(char *found, size_t flen, char *chosen, size_t clen);

#endif /* DFC_TL_H */
