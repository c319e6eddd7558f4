/*
 * daemon_abi.h - what the host side of the GPU daemon (daemon.c) and its kernel
 * (daemon_kernel.cu) share: limits, the memory they exchange, the mailbox layout.
 * Plain C, fixed-width fields, included by gcc and by nvcc.
 *
 * Three kinds of memory (DESIGN.md 2.1, 2.2):
 *   pinned host memory, mapped into the device (dfc_gpu_host_t): the submission queue (SQ),
 *     the collective descriptors with their schedules, the completion words (CQ), the
 *     kernel's exit marks and counters. The host writes descriptors, then the SQ tail; the
 *     kernel writes a descriptor's done word last.
 *   device memory private to this process (dfc_gpu_dev_t): a copy of each schedule, the
 *     dynamic context of every (collective, channel) saved across preemptions and kernel
 *     exits, the per-block run queues, and the send/receive sequence counters.
 *   the mailbox region, device memory exported with CUDA IPC and mapped by the other
 *     processes of the node (dfc_gpu_box_*): for each (source, channel, slot) a ring of
 *     `depth` entries of `chunk` bytes with a flag each, written by the source over NVLink,
 *     and for each (destination, channel, slot) an ack counter written by the destination.
 *
 * Only channel 0 reads the submission queue across PCIe; it mirrors each entry into device
 * memory (dfc_gpu_dev_t.msq), where the other blocks find it. Sixteen blocks polling pinned
 * memory measurably slowed channel 0's own reads (stop 11: 8-byte allreduce 212 us with 16
 * channels, 41 us with 1).
 *
 * A channel is one thread block; every collective is cut into per-channel slices (NCCL's
 * channels) that run independently except at fences (daemon_kernel.cu). A slot is one FIFO
 * between a pair of GPUs on one channel; the host picks a collective's slot from its tag
 * (dfc_gpu_submit), and a sender holds it only while one of its sends is in flight.
 */
#ifndef DFC_GPU_DAEMON_ABI_H
#define DFC_GPU_DAEMON_ABI_H

#include <stdint.h>

#include "coll/dfc_sched.h"
#include "coll/dfc_policy.h"
#include "gpu/dfc_gpu.h"

#ifdef __CUDACC__
#define DFC_GPU_HD __host__ __device__
#else
#define DFC_GPU_HD
#endif

#define DFC_GPU_MAX_CHANNELS 32 /* thread blocks of the kernel */
#define DFC_GPU_MAX_SLOTS 64    /* FIFOs per (pair of GPUs, channel) */
#define DFC_GPU_MAX_COLLS 128   /* collectives in flight per process */
#define DFC_GPU_THREADS 512     /* threads per block */
#define DFC_GPU_SPILL 4         /* chunks a receiver can move aside per (peer, channel) */
#define DFC_GPU_DEAD 16         /* cancelled idents a channel remembers (late chunks) */
#define DFC_GPU_INVITES \
    256 /* invitation entries per (receiver, channel): twice the
                                  * collectives in flight */

/* Phases a traced collective records (DFC_GPU_TRACE): taken by channel 0, schedule loaded,
 * first chunk sent and first chunk received by channel 0, completed. */
enum {
    DFC_GPU_T_ADMIT,
    DFC_GPU_T_LOADED,
    DFC_GPU_T_SEND,
    DFC_GPU_T_RECV,
    DFC_GPU_T_DONE,
    DFC_GPU_TRACE_POINTS
};

/* DFC_GPU_TRACE=2: where channel 0's thread 0 spends its cycles, part by part (clock64),
 * and the main loop's time in ns as well (globaltimer), which gives the SM clock. */
enum {
    DFC_GPU_P_LOOP,
    DFC_GPU_P_ADMIT,
    DFC_GPU_P_LOAD,
    DFC_GPU_P_PICK,
    DFC_GPU_P_MOVE,
    DFC_GPU_P_POST,
    DFC_GPU_P_FENCE,
    DFC_GPU_P_FINISH,
    DFC_GPU_P_EXIT,
    DFC_GPU_PARTS
};

/* Bit set in dfc_step_t.order of a RECV_REDUCE step whose received data may be reduced into
 * its destination as it arrives (no send of the same fence group reads that range), which
 * saves the trip through TMP. Set by the host side when it copies the schedule. */
#define DFC_GPU_FUSED 0x2

/* One submission queue entry: what a block needs to queue a collective, in 16 bytes that
 * channel 0 reads at once (one PCIe round trip instead of one per field). */
typedef struct dfc_gpu_sq_entry {
    uint32_t slot; /* descriptor index */
    uint32_t gen;  /* its start number */
    int32_t priority;
    uint16_t nchan;  /* channels it runs on: 0 .. nchan-1 (dfc_gpu_channels_of) */
    uint16_t nsteps; /* DFC_GPU_CANCEL: drop the queued (slot, gen) instead */
} dfc_gpu_sq_entry_t;
#define DFC_GPU_CANCEL 0xffffu /* a collective the host gave up on (a peer failed) */
/* error[] of a descriptor whose cancel every channel has seen: the host may reuse it. */
#define DFC_GPU_CANCELLED 0x43414e43

/* One collective, written by the host before its SQ entry is published. The head is
 * copied to device memory when a block first takes the collective; steps follow it. */
typedef struct dfc_gpu_desc_head {
    uint64_t bufs[DFC_BUF_COUNT]; /* device addresses of SEND, RECV, TMP (0: none) */
    uint64_t ident;               /* (context << 32 | tag) + 1: matches the peers' copies */
    uint32_t gen;                 /* start number; the done word takes this value */
    uint32_t slot;                /* FIFO slot on every (pair, channel) */
    int32_t nsteps;
    int32_t priority;
    uint8_t type, op, elem; /* reductions: enum dfc_gpu_type, enum dfc_gpu_op, bytes of one */
    uint8_t nchan;          /* channels 0 .. nchan-1 run it; the others never see it */
    uint32_t item;          /* bytes of one item of the datatype (a multiple of elem) */
} dfc_gpu_desc_head_t;      /* the steps' peers are daemon indices (the host translates them) */

typedef struct dfc_gpu_desc {
    dfc_gpu_desc_head_t h;
    dfc_step_t steps[DFC_GPU_MAX_STEPS];
} dfc_gpu_desc_t;

/* The kernel copies a descriptor's head and steps as one run of 32-bit words. */
#ifdef __cplusplus
#define DFC_GPU_STATIC_ASSERT static_assert
#else
#define DFC_GPU_STATIC_ASSERT _Static_assert
#endif
DFC_GPU_STATIC_ASSERT(sizeof(dfc_gpu_desc_head_t) % 8 == 0 && sizeof(dfc_step_t) % 4 == 0,
                      "descriptor words");
DFC_GPU_STATIC_ASSERT(sizeof(dfc_gpu_sq_entry_t) == 16, "an SQ entry is four words");

typedef struct dfc_gpu_host {
    volatile uint32_t sq_tail;                         /* entries published so far */
    volatile uint32_t sq_seen;                         /* entries channel 0 has mirrored (the host
                                                 * never runs more than a ring ahead of it) */
    volatile dfc_gpu_sq_entry_t sq[DFC_GPU_MAX_COLLS]; /* entry i at i % size */
    volatile uint32_t done[DFC_GPU_MAX_COLLS];         /* CQ: gen of the last completed start */
    volatile int32_t error[DFC_GPU_MAX_COLLS];         /* nonzero: the kernel failed it */
    volatile uint32_t exited[DFC_GPU_MAX_CHANNELS];    /* launch epoch at which block exited */
    volatile uint64_t preemptions;                     /* counted by channel 0 */
    volatile uint64_t launches_seen;                   /* epoch the kernel last started */
    volatile uint64_t exits_stuck, exits_idle;         /* why the kernel left (DFC_DEBUG=2:gpu) */
    /* DFC_GPU_TRACE: globaltimer of each collective's phases, written by the kernel. */
    volatile uint64_t trace[DFC_GPU_MAX_COLLS][DFC_GPU_TRACE_POINTS];
    dfc_gpu_desc_t desc[DFC_GPU_MAX_COLLS];
} dfc_gpu_host_t;

/* Dynamic context of one (collective, channel): where it stands, saved in device memory. */
typedef struct dfc_gpu_ctx {
    uint32_t gen; /* start it belongs to */
    int32_t pc, fence_start;
    int32_t budget;       /* spin budget when at the head (adaptive) */
    int32_t preempted_at; /* pc of the last counted preemption */
    int32_t fstate;       /* progress through the current fence point (daemon_kernel.cu) */
    int32_t barriers;     /* barriers between channels passed */
    int32_t at_barrier;   /* arrived at the next one, waiting */
    uint16_t inv_mine[DFC_GPU_MAX_LOCAL]; /* receiver: my invitation's entry in each peer's table */
    uint16_t
        inv_theirs[DFC_GPU_MAX_LOCAL]; /* sender: each peer's invitation's entry in my region */
    uint32_t inv_posted[DFC_GPU_MAX_LOCAL]; /* receiver: ordinal + 1 last posted to each peer */
    uint32_t progress[DFC_GPU_MAX_STEPS];   /* chunks done per step (+ 1<<31 when complete) */
} dfc_gpu_ctx_t;

/* One block's run queue: descriptor indices by priority, FIFO within a priority. */
typedef struct dfc_gpu_queue {
    uint32_t sq_head;
    int32_t n;
    dfc_gpu_sq_entry_t e[DFC_GPU_MAX_COLLS];
} dfc_gpu_queue_t;

/* Device memory private to the process. Sized for the maxima; indexed [peer][chan][slot]. */
typedef struct dfc_gpu_dev {
    volatile uint32_t drain;    /* epoch in which a block decided to exit: all exit */
    volatile uint32_t msq_tail; /* SQ entries mirrored by channel 0 so far */
    /* sq_head of each block after its last admit: the mirror never runs more than
     * DFC_GPU_MAX_COLLS entries ahead of the slowest (an entry is overwritten only once every
     * block has read it). */
    volatile uint32_t admitted[DFC_GPU_MAX_CHANNELS];
    uint32_t cancelled[DFC_GPU_MAX_COLLS]; /* channels that have seen a cancel entry */
    /* Idents of collectives this channel cancelled, the last DFC_GPU_DEAD of them: a chunk of
     * one found at the head of a FIFO later is acknowledged without being copied. */
    uint64_t dead[DFC_GPU_MAX_CHANNELS][DFC_GPU_DEAD];
    /* What this process has written into each peer's invitation table, per channel: the
     * receiver looks for a free entry here instead of across NVLink. */
    uint64_t inv_shadow[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_CHANNELS][DFC_GPU_INVITES];
    uint32_t ndead[DFC_GPU_MAX_CHANNELS];
    uint64_t kicks[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_CHANNELS]; /* last kick word per remote peer */
    uint64_t preemptions;               /* counted by channel 0, copied to the host's */
    uint32_t traced[DFC_GPU_MAX_COLLS]; /* DFC_GPU_TRACE: phases recorded, a bit each */
    uint64_t prof_cycles[DFC_GPU_PARTS], prof_count[DFC_GPU_PARTS],
        prof_loop_ns;                            /* DFC_GPU_TRACE=2 */
    dfc_gpu_sq_entry_t msq[DFC_GPU_MAX_COLLS];   /* the mirror: entry i at i % size */
    volatile uint64_t last_move;                 /* globaltimer of the last progress of any block */
    volatile uint32_t loaded[DFC_GPU_MAX_COLLS]; /* gen whose schedule is in steps[] */
    uint32_t claimed[DFC_GPU_MAX_COLLS];         /* gen whose load a block has claimed */
    uint32_t finished[DFC_GPU_MAX_COLLS];        /* channels done with the current gen */
    uint32_t arrived[DFC_GPU_MAX_COLLS];         /* channel arrivals at barriers (fence_point) */
    volatile uint32_t busy[DFC_GPU_MAX_CHANNELS]; /* a block's run queue is not empty */
    dfc_gpu_desc_head_t head[DFC_GPU_MAX_COLLS];
    dfc_step_t steps[DFC_GPU_MAX_COLLS][DFC_GPU_MAX_STEPS];
    dfc_gpu_queue_t queue[DFC_GPU_MAX_CHANNELS];
    uint64_t sent[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_CHANNELS][DFC_GPU_MAX_SLOTS];
    uint64_t owner[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_CHANNELS][DFC_GPU_MAX_SLOTS];
    uint64_t recvd[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_CHANNELS][DFC_GPU_MAX_SLOTS];
    /* Chunks a receiver moved out of a FIFO because they belong to a collective it is not
     * running yet, so that its own chunks behind them can come through (the GPU's
     * unexpected-message queue): per (peer, channel), owner ident (0: free), slot, sequence
     * number (their age) and size. The data is in the spill region (kargs.spill). */
    uint64_t spill_ident[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_CHANNELS][DFC_GPU_SPILL];
    uint64_t spill_seq[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_CHANNELS][DFC_GPU_SPILL];
    uint32_t spill_slot[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_CHANNELS][DFC_GPU_SPILL];
    uint32_t spill_bytes[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_CHANNELS][DFC_GPU_SPILL];
    /* ctx[DFC_GPU_MAX_COLLS][channels] follows (dfc_gpu_ctx_t), allocated after this */
} dfc_gpu_dev_t;

/* The flag of one FIFO entry: the chunk's sequence number in its slot, its owner and size. */
typedef struct dfc_gpu_flag {
    volatile uint64_t ident;
    volatile uint64_t seq;
    volatile uint64_t bytes;
    uint64_t pad;
} dfc_gpu_flag_t;

/* An invitation (daemon_kernel.cu, "rendezvous"): receiver R tells sender P that collective
 * `ident` is ready, on this channel, for the transfer numbered `ordinal - 1` among its
 * transfers from P (DFC_GPU_ORDINAL). Written by R into P's region (ordinal first, the
 * ident last when the entry is new), read by P. ident 0: never used; DFC_GPU_INV_GONE: used
 * and released (lookups go on past it). */
typedef struct dfc_gpu_invite {
    volatile uint64_t ident;
    volatile uint64_t ordinal;
} dfc_gpu_invite_t;
#define DFC_GPU_INV_GONE (~(uint64_t)0)
#define DFC_GPU_INV_NONE 0xffffu /* dfc_gpu_ctx_t.inv_*: no entry */

/* The number of a transfer step among its collective's transfers with the same peer in the
 * same direction (the k-th send to P matches P's k-th receive from us). Stored by the host in
 * a field transfers leave unused: a send's dst_off, a receive's src_off. */
#define DFC_GPU_ORDINAL(st) ((st)->kind == DFC_STEP_SEND ? (st)->dst_off : (st)->src_off)

/* Geometry of the mailbox region, the same on every process of the job. */
typedef struct dfc_gpu_geom {
    uint32_t nlocal;   /* daemon processes on the node */
    uint32_t channels; /* blocks */
    uint32_t slots;    /* FIFOs per (pair, channel) */
    uint32_t depth;    /* entries of one FIFO (chunks in flight) */
    uint32_t chunk;    /* bytes of one entry */
} dfc_gpu_geom_t;

/* Offsets inside a mailbox region: flags, then acks, then data (256-byte aligned). */
DFC_GPU_HD static inline uint64_t dfc_gpu_box_index(const dfc_gpu_geom_t *g, uint32_t peer,
                                                    uint32_t chan, uint32_t slot)
{
    return ((uint64_t)peer * g->channels + chan) * g->slots + slot;
}
DFC_GPU_HD static inline uint64_t dfc_gpu_box_flags_off(const dfc_gpu_geom_t *g, uint32_t src,
                                                        uint32_t chan, uint32_t slot,
                                                        uint32_t entry)
{
    return (dfc_gpu_box_index(g, src, chan, slot) * g->depth + entry) * sizeof(dfc_gpu_flag_t);
}
DFC_GPU_HD static inline uint64_t dfc_gpu_box_acks_off(const dfc_gpu_geom_t *g, uint32_t dst,
                                                       uint32_t chan, uint32_t slot)
{
    uint64_t flags = (uint64_t)g->nlocal * g->channels * g->slots * g->depth *
                     sizeof(dfc_gpu_flag_t);
    return flags + dfc_gpu_box_index(g, dst, chan, slot) * sizeof(uint64_t);
}
DFC_GPU_HD static inline uint64_t dfc_gpu_box_data_off(const dfc_gpu_geom_t *g, uint32_t src,
                                                       uint32_t chan, uint32_t slot, uint32_t entry)
{
    uint64_t n = (uint64_t)g->nlocal * g->channels * g->slots;
    uint64_t head = (n * g->depth * sizeof(dfc_gpu_flag_t) + n * sizeof(uint64_t) + 255) &
                    ~(uint64_t)255;
    return head + (dfc_gpu_box_index(g, src, chan, slot) * g->depth + entry) * (uint64_t)g->chunk;
}
/* The invitations (rendezvous, daemon_kernel.cu): in the sender's region, for each receiver
 * `writer` and channel, a table of DFC_GPU_INVITES entries written by that receiver. */
DFC_GPU_HD static inline uint64_t dfc_gpu_box_inv_off(const dfc_gpu_geom_t *g, uint32_t writer,
                                                      uint32_t chan, uint32_t idx)
{
    uint64_t end = dfc_gpu_box_data_off(g, g->nlocal, 0, 0, 0);
    return end + (((uint64_t)writer * g->channels + chan) * DFC_GPU_INVITES + idx) *
                     sizeof(dfc_gpu_invite_t);
}
DFC_GPU_HD static inline uint64_t dfc_gpu_box_bytes(const dfc_gpu_geom_t *g)
{
    return dfc_gpu_box_inv_off(g, g->nlocal, 0, 0);
}

/* Everything the kernel is launched with (by value). */
typedef struct dfc_gpu_kargs {
    dfc_gpu_host_t *host; /* device address of the pinned block */
    dfc_gpu_dev_t *dev;
    dfc_gpu_ctx_t *ctx;             /* [DFC_GPU_MAX_COLLS][channels] */
    char *box[DFC_GPU_MAX_LOCAL];   /* where I write to peer i: its mailbox region through IPC,
                                   * mine at [me], or the outbound pair region of a remote peer */
    char *inbox[DFC_GPU_MAX_LOCAL]; /* remote peer i: the inbound pair region its writes to me
                                     * arrive in (proxy.c); NULL: a peer of this node */
    char *spill;                    /* [peer][channel][DFC_GPU_SPILL] chunks of `chunk` bytes */
    dfc_gpu_geom_t geom;
    uint32_t me;             /* my daemon index */
    uint32_t epoch;          /* launch number */
    uint32_t chan_min_bytes; /* a step's slice per channel is at least this */
    uint64_t idle_ns;        /* exit when every held collective is stuck this long */
    uint64_t linger_ns;      /* exit when the queue has been empty this long */
    dfc_policy_t policy;     /* the spin-budget policy (coll/dfc_policy.h), shared with the host */
    uint32_t trace;          /* record phase times in host->trace */
    uint32_t rendezvous;     /* DFC_GPU_RENDEZVOUS: a sender waits for an invitation */
} dfc_gpu_kargs_t;

/* ---- Peers on other nodes: the host proxy (proxy.c, issue 15) ----------------------------
 * A remote peer P has no mailbox region this process can map. For each remote P there are two
 * pair regions in pinned, mapped host memory with one compact layout (only what the pair
 * uses): the outbound one holds what my kernel would write into P's region (my chunks and
 * their flags for P, my acks of P's chunks, my invitations to P), the inbound one what P's
 * kernel wrote for me, mirrored there by my proxy in the order PROTOCOL.md 4 and 5 require
 * (data, flag body, seq; ordinal, ident). After each write into an outbound region a block's
 * thread 0 stores a new value of its channel's kick word there (release, after the writes),
 * so that the proxy scans only the channels that changed. Layout: kick words, flags, acks,
 * invitations, then the data (256-byte aligned). */
#define DFC_GPU_PAIR_KICKS 256 /* bytes: one 64-bit kick word per channel (32 at most) */
DFC_GPU_HD static inline uint64_t dfc_gpu_pair_flags_off(const dfc_gpu_geom_t *g, uint32_t chan,
                                                         uint32_t slot, uint32_t entry)
{
    return DFC_GPU_PAIR_KICKS +
           (((uint64_t)chan * g->slots + slot) * g->depth + entry) * sizeof(dfc_gpu_flag_t);
}
DFC_GPU_HD static inline uint64_t dfc_gpu_pair_acks_off(const dfc_gpu_geom_t *g, uint32_t chan,
                                                        uint32_t slot)
{
    return dfc_gpu_pair_flags_off(g, g->channels, 0, 0) +
           ((uint64_t)chan * g->slots + slot) * sizeof(uint64_t);
}
DFC_GPU_HD static inline uint64_t dfc_gpu_pair_inv_off(const dfc_gpu_geom_t *g, uint32_t chan,
                                                       uint32_t idx)
{
    return dfc_gpu_pair_acks_off(g, g->channels, 0) +
           ((uint64_t)chan * DFC_GPU_INVITES + idx) * sizeof(dfc_gpu_invite_t);
}
DFC_GPU_HD static inline uint64_t dfc_gpu_pair_data_off(const dfc_gpu_geom_t *g, uint32_t chan,
                                                        uint32_t slot, uint32_t entry)
{
    uint64_t head = (dfc_gpu_pair_inv_off(g, g->channels, 0) + 255) & ~(uint64_t)255;
    return head + (((uint64_t)chan * g->slots + slot) * g->depth + entry) * (uint64_t)g->chunk;
}
DFC_GPU_HD static inline uint64_t dfc_gpu_pair_bytes(const dfc_gpu_geom_t *g)
{
    return dfc_gpu_pair_data_off(g, g->channels, 0, 0);
}

/* Where the kernel writes for peer p (to_*) and where p's writes for it are (from_*): the
 * IPC mailboxes for a peer of this node, the pair regions for a remote one. Every read of
 * a flag, chunk, ack or invitation that p wrote goes through from_*. */
DFC_GPU_HD static inline char *dfc_gpu_to_flag(const dfc_gpu_kargs_t *a, uint32_t p, uint32_t chan,
                                               uint32_t slot, uint32_t entry)
{
    return a->box[p] + (a->inbox[p] ? dfc_gpu_pair_flags_off(&a->geom, chan, slot, entry)
                                    : dfc_gpu_box_flags_off(&a->geom, a->me, chan, slot, entry));
}
DFC_GPU_HD static inline char *dfc_gpu_to_data(const dfc_gpu_kargs_t *a, uint32_t p, uint32_t chan,
                                               uint32_t slot, uint32_t entry)
{
    return a->box[p] + (a->inbox[p] ? dfc_gpu_pair_data_off(&a->geom, chan, slot, entry)
                                    : dfc_gpu_box_data_off(&a->geom, a->me, chan, slot, entry));
}
DFC_GPU_HD static inline char *dfc_gpu_to_ack(const dfc_gpu_kargs_t *a, uint32_t p, uint32_t chan,
                                              uint32_t slot)
{
    return a->box[p] + (a->inbox[p] ? dfc_gpu_pair_acks_off(&a->geom, chan, slot)
                                    : dfc_gpu_box_acks_off(&a->geom, a->me, chan, slot));
}
DFC_GPU_HD static inline char *dfc_gpu_to_inv(const dfc_gpu_kargs_t *a, uint32_t p, uint32_t chan,
                                              uint32_t idx)
{
    return a->box[p] + (a->inbox[p] ? dfc_gpu_pair_inv_off(&a->geom, chan, idx)
                                    : dfc_gpu_box_inv_off(&a->geom, a->me, chan, idx));
}
DFC_GPU_HD static inline char *dfc_gpu_from_flag(const dfc_gpu_kargs_t *a, uint32_t p,
                                                 uint32_t chan, uint32_t slot, uint32_t entry)
{
    return a->inbox[p] ? a->inbox[p] + dfc_gpu_pair_flags_off(&a->geom, chan, slot, entry)
                       : a->box[a->me] + dfc_gpu_box_flags_off(&a->geom, p, chan, slot, entry);
}
DFC_GPU_HD static inline char *dfc_gpu_from_data(const dfc_gpu_kargs_t *a, uint32_t p,
                                                 uint32_t chan, uint32_t slot, uint32_t entry)
{
    return a->inbox[p] ? a->inbox[p] + dfc_gpu_pair_data_off(&a->geom, chan, slot, entry)
                       : a->box[a->me] + dfc_gpu_box_data_off(&a->geom, p, chan, slot, entry);
}
DFC_GPU_HD static inline char *dfc_gpu_from_ack(const dfc_gpu_kargs_t *a, uint32_t p, uint32_t chan,
                                                uint32_t slot)
{
    return a->inbox[p] ? a->inbox[p] + dfc_gpu_pair_acks_off(&a->geom, chan, slot)
                       : a->box[a->me] + dfc_gpu_box_acks_off(&a->geom, p, chan, slot);
}
DFC_GPU_HD static inline char *dfc_gpu_from_inv(const dfc_gpu_kargs_t *a, uint32_t p, uint32_t chan,
                                                uint32_t idx)
{
    return a->inbox[p] ? a->inbox[p] + dfc_gpu_pair_inv_off(&a->geom, chan, idx)
                       : a->box[a->me] + dfc_gpu_box_inv_off(&a->geom, p, chan, idx);
}
/* The kick word of channel chan in the outbound region of remote peer p. */
DFC_GPU_HD static inline volatile uint64_t *dfc_gpu_kick_word(const dfc_gpu_kargs_t *a, uint32_t p,
                                                              uint32_t chan)
{
    return (volatile uint64_t *)(a->box[p] + (uint64_t)chan * sizeof(uint64_t));
}

/* The part of a step that channel `chan` of `nchan_max` moves: [lo, hi) bytes. Sender and
 * receiver compute the same split from the step's size alone; slices are multiples of the
 * largest power of two up to 16 that divides the size (a multiple of any element size). */
DFC_GPU_HD static inline void dfc_gpu_slice(uint64_t bytes, uint32_t chan, uint32_t nchan_max,
                                            uint32_t min_bytes, uint64_t *lo, uint64_t *hi)
{
    uint64_t unit = 16;
    while (unit > 1 && bytes % unit) unit >>= 1;
    uint64_t nch = min_bytes ? bytes / min_bytes : nchan_max;
    if (nch < 1) nch = 1;
    if (nch > nchan_max) nch = nchan_max;
    uint64_t units = bytes / unit, per = (units + nch - 1) / nch;
    uint64_t a = (uint64_t)chan * per, b = a + per;
    if (a > units) a = units;
    if (b > units) b = units;
    *lo = a * unit;
    *hi = b * unit;
}

#endif /* DFC_GPU_DAEMON_ABI_H */
