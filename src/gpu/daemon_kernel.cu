/*
 * daemon_kernel.cu - the GPU daemon: a persistent kernel that runs collective schedules
 * (src/coll/dfc_sched.h) on device buffers and can be preempted (DESIGN.md 2.1, 2.2).
 *
 * One thread block per channel. Each block keeps its own run queue of collectives (taken
 * from the submission queue in pinned host memory, by priority) and runs its slice of each:
 *
 *   loop:
 *     admit new submissions                     (SQ -> run queue, by priority)
 *     for each queued collective, head first:
 *       run_coll: advance its current fence group as far as peers allow
 *                 (the head keeps trying for its spin budget, the others once)
 *       complete -> the last channel done writes the completion word (CQ)
 *     nothing moved anywhere for idle_ns (or nothing queued anywhere for linger_ns)
 *       -> all blocks exit
 *
 * A collective whose steps all fit one channel runs on channel 0 alone; the others are cut
 * into one slice per channel, and its channels meet at fences (barrier_try) where the next
 * steps split the bytes differently.
 *
 * Transfers go through mailbox slots in the receiver's memory (daemon_abi.h): a send writes
 * a chunk into a free entry of the peer's FIFO over NVLink, then its flag (ident, size, and
 * last the sequence number); a receive waits for the flag of the next sequence number,
 * consumes the chunk (copy, or reduce straight into the destination when the step is fused)
 * and returns the entry to the sender with an ack. A sender writes a step's chunks only
 * once the receiver has invited that step (rendezvous, below), so the chunk at the head of a
 * FIFO always belongs to a receive that is running and is taken at its owner's next sweep:
 * no collective waits behind another's chunks (src/gpu/PROTOCOL.md, dfc(7)). With
 * DFC_GPU_RENDEZVOUS=0 (the earlier eager protocol) a chunk of another collective at the
 * head is moved aside into a spill entry while there is room (DFC_GPU_SPILL per peer and
 * channel). Everything a collective needs to resume - pc, fence start, chunks done per step,
 * its invitations - lives in device memory (dfc_gpu_ctx_t), so a collective can be left at
 * any wait (preemption) and the whole kernel can exit and be relaunched (so that host-side
 * cudaDeviceSynchronize, cudaFree or cudaMalloc can complete) without losing anything.
 *
 * Thread 0 of a block makes every decision (flags, acks, queues) and publishes it through
 * shared memory; all threads move the bytes.
 */
#include "gpu/daemon_logic.h"
#include "gpu/daemon_prof.cuh"
#include "gpu/daemon_reduce.cuh"

#define STEP_DONE DFC_GPU_STEP_DONE

/* This channel's end of every FIFO: send and receive counters, the sender's ownership, the
 * spill entries. Only this block uses them, so they live in shared memory while the kernel
 * runs (thread 0 reads them many times per sweep) and in dfc_gpu_dev_t across launches. */
struct chan_fifo {
    uint64_t sent[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_SLOTS];
    uint64_t owner[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_SLOTS];
    uint64_t recvd[DFC_GPU_MAX_LOCAL][DFC_GPU_MAX_SLOTS];
    uint64_t spill_ident[DFC_GPU_MAX_LOCAL][DFC_GPU_SPILL];
    uint64_t spill_seq[DFC_GPU_MAX_LOCAL][DFC_GPU_SPILL];
    uint32_t spill_slot[DFC_GPU_MAX_LOCAL][DFC_GPU_SPILL];
    uint32_t spill_bytes[DFC_GPU_MAX_LOCAL][DFC_GPU_SPILL];
};

/* The collective a block is running, copied to shared memory by run_coll when its
 * schedule is short enough (most are): thread 0's decisions read the head, the steps and
 * the context dozens of times per sweep, and each read of device memory costs a trip to
 * L2. The context is written back whenever run_coll returns. */
#define CACHED_STEPS 128
struct coll_cache {
    dfc_gpu_desc_head_t h;
    dfc_step_t steps[CACHED_STEPS];
    dfc_gpu_ctx_t c;
};

/* Chunk moves one sweep may choose (pick_actions): one per peer and direction of the
 * current fence group, so 2 x DFC_GPU_MAX_LOCAL covers every group; more would wait for the
 * next sweep. The block moves them one after the other between two __syncthreads. */
#define MAX_ACTIONS (2 * DFC_GPU_MAX_LOCAL)

struct block_state {
    dfc_gpu_queue_t q; /* this block's run queue (copied from/to device memory) */
    chan_fifo f;
    coll_cache cc;
    int go;   /* thread 0's decision, read by all */
    int nact; /* actions chosen in this sweep */
    int act_step[MAX_ACTIONS];
    char *act_src[MAX_ACTIONS], *act_dst[MAX_ACTIONS];
    uint64_t act_bytes[MAX_ACTIONS];
    int act_reduce[MAX_ACTIONS]; /* fused receive: reduce instead of copy */
    int act_order[MAX_ACTIONS];
    int act_kind[MAX_ACTIONS];       /* enum act_kind */
    int act_spill[MAX_ACTIONS];      /* spill entry (ACT_FROM_SPILL, ACT_STEAL) */
    uint64_t act_ident[MAX_ACTIONS]; /* ACT_STEAL, ACT_DROP: the owner of the chunk */
};

/* ACT_DROP: a chunk of a cancelled collective, acknowledged without a copy. */
enum act_kind {
    ACT_SEND = DFC_GPU_ACT_SEND,
    ACT_RECV = DFC_GPU_ACT_RECV,
    ACT_FROM_SPILL = DFC_GPU_ACT_FROM_SPILL,
    ACT_STEAL = DFC_GPU_ACT_STEAL,
    ACT_DROP = DFC_GPU_ACT_DROP
};

__device__ static inline char *spill_at(const dfc_gpu_kargs_t &a, uint32_t peer, uint32_t chan,
                                        int e)
{
    return a.spill + (((uint64_t)peer * a.geom.channels + chan) * DFC_GPU_SPILL + e) * a.geom.chunk;
}

static __device__ __forceinline__ bool is_xfer(int kind)
{
    return kind == DFC_STEP_SEND || kind == DFC_STEP_RECV || kind == DFC_STEP_RECV_REDUCE;
}

static __device__ __forceinline__ char *buf_at(const dfc_gpu_desc_head_t *h, int name, uint64_t off)
{
    return (char *)(uintptr_t)h->bufs[name] + off;
}

/* A release fence at system scope: the block's writes before it (made visible to thread 0
 * by __syncthreads), in peer GPU and host memory too, are seen before the stores after it.
 * Lighter than __threadfence_system (fence.sc.sys), which also orders every load. */
__device__ static inline void fence_release_sys(void)
{
    asm volatile("fence.acq_rel.sys;" ::: "memory");
}

/* Acquire loads: nothing this thread reads after one may be older than what it saw. The
 * system scope covers writes from the host and from other GPUs (flags, acks, the SQ). */
__device__ static inline uint32_t load_acquire_sys(const volatile uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ static inline uint64_t load_acquire_sys(const volatile uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ static inline uint32_t load_acquire_gpu(const volatile uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* Thread 0 of channel 0: copies the SQ entries published since the last call from pinned
 * memory to the device-memory mirror that every block admits from. The four words of an
 * entry are independent loads, so one entry costs one PCIe round trip.
 *
 * The mirror is a ring of DFC_GPU_MAX_COLLS entries, and a block may spend milliseconds in
 * one large collective without admitting: the mirror never runs more than a ring ahead of
 * the slowest block's published head (dev->admitted), so that no entry is overwritten
 * before every block has read it (issue 23, defect 2: a lost entry hangs, a duplicate adds
 * a barrier arrival). The host in turn never runs more than a ring ahead of the mirror
 * (host->sq_seen, written here). */
__device__ static uint32_t mirror_sq(const dfc_gpu_kargs_t &a)
{
    dfc_gpu_dev_t *d = a.dev;
    uint32_t tail = load_acquire_sys(&a.host->sq_tail), mirrored = d->msq_tail;
    if (tail == mirrored) return tail;
    uint32_t room = dfc_gpu_mirror_room(mirrored, d->admitted, a.geom.channels, DFC_GPU_MAX_COLLS);
    __threadfence(); /* the heads read before the entries they let us overwrite */
    if (tail - mirrored > room) tail = mirrored + room;
    if (tail == mirrored) return tail;
    for (uint32_t i = mirrored; i != tail; i++) {
        const volatile uint32_t *w = (const volatile uint32_t *)&a.host->sq[i % DFC_GPU_MAX_COLLS];
        uint32_t *m = (uint32_t *)&d->msq[i % DFC_GPU_MAX_COLLS];
        uint32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
        m[0] = w0, m[1] = w1, m[2] = w2, m[3] = w3;
    }
    __threadfence(); /* the entries before the tail that announces them */
    d->msq_tail = tail;
    a.host->sq_seen = tail; /* a write across PCIe: the host may reuse these entries */
    return tail;
}

__device__ static void inv_release(const dfc_gpu_kargs_t &a, dfc_gpu_ctx_t *c, uint32_t chan);

/* Thread 0: forgets every trace of a cancelled collective in this channel (issue 23,
 * defect 3): its queue entry, the FIFOs it owns as a sender, its chunks in the spill; it
 * remembers the ident so that chunks of it still arriving are acknowledged and dropped.
 * The last channel to see the cancel resets the collective's shared counters and confirms
 * with the done word (error DFC_GPU_CANCELLED): then the host reuses the descriptor. */
__device__ static void cancel_coll(const dfc_gpu_kargs_t &a, block_state *s, uint32_t chan,
                                   const dfc_gpu_sq_entry_t &e)
{
    dfc_gpu_dev_t *d = a.dev;
    s->q.n = dfc_gpu_queue_drop(s->q.e, s->q.n, e.slot, e.gen);
    /* the host leaves the descriptor alone until the cancel is confirmed */
    const uint64_t ident = *(const volatile uint64_t *)&a.host->desc[e.slot].h.ident;
    for (uint32_t p = 0; p < a.geom.nlocal; p++)
        dfc_gpu_forget(s->f.owner[p], a.geom.slots, s->f.spill_ident[p], DFC_GPU_SPILL, ident);
    dfc_gpu_dead_add(d->dead[chan], &d->ndead[chan], ident);
    dfc_gpu_ctx_t *c = &a.ctx[(uint64_t)e.slot * a.geom.channels + chan];
    if (c->gen == e.gen) inv_release(a, c, chan);
    __threadfence();
    if (atomicAdd(&d->cancelled[e.slot], 1u) + 1 != e.nchan) return;
    d->cancelled[e.slot] = d->finished[e.slot] = d->arrived[e.slot] = 0;
    fence_release_sys();
    a.host->error[e.slot] = DFC_GPU_CANCELLED;
    fence_release_sys();
    a.host->done[e.slot] = e.gen;
}

/* Thread 0: takes new SQ entries (from the mirror) into the run queue, by priority (FIFO
 * within one). A collective on nchan channels is taken by channels 0 .. nchan-1 only; a
 * cancel entry names every channel. Publishes the block's head for mirror_sq. */
__device__ static void admit(const dfc_gpu_kargs_t &a, block_state *s, uint32_t chan)
{
    uint32_t tail = chan == 0 ? mirror_sq(a) : load_acquire_gpu(&a.dev->msq_tail);
    while (s->q.sq_head != tail && s->q.n < DFC_GPU_MAX_COLLS) {
        dfc_gpu_sq_entry_t e = a.dev->msq[s->q.sq_head % DFC_GPU_MAX_COLLS];
        s->q.sq_head++;
        if (chan >= e.nchan) continue;
        if (e.nsteps == DFC_GPU_CANCEL) { /* its peer failed: it never completes */
            cancel_coll(a, s, chan, e);
            continue;
        }
        if (chan == 0) trace_point(a, e.slot, DFC_GPU_T_ADMIT);
        int i = s->q.n;
        while (i > 0 && !dfc_policy_runs_before(s->q.e[i - 1].priority, e.priority)) {
            s->q.e[i] = s->q.e[i - 1];
            i--;
        }
        s->q.e[i] = e;
        s->q.n++;
    }
    __threadfence(); /* the entries read before the head that lets channel 0 overwrite them */
    a.dev->admitted[chan] = s->q.sq_head;
}

/* All threads: makes sure the schedule of queue entry e is in device memory and this
 * channel's context belongs to its start. Returns 0 while another block is still loading it. */
__device__ static int load_coll(const dfc_gpu_kargs_t &a, block_state *s,
                                const dfc_gpu_sq_entry_t &e, dfc_gpu_ctx_t *c)
{
    dfc_gpu_dev_t *d = a.dev;
    const uint32_t slot = e.slot, gen = e.gen;
    if (threadIdx.x == 0) {
        s->go = 1;
        if (d->loaded[slot] != gen) {
            uint32_t old = d->claimed[slot];
            s->go = (old != gen && atomicCAS(&d->claimed[slot], old, gen) == old) ? 2 : 0;
        }
    }
    __syncthreads();
    int go = s->go;
    __syncthreads();
    if (go == 2) { /* this block copies head and steps from pinned memory, in one pass */
        const uint32_t *src = (const uint32_t *)&a.host->desc[slot];
        const uint32_t head_words = sizeof(dfc_gpu_desc_head_t) / 4;
        const uint32_t words = head_words + e.nsteps * (uint32_t)(sizeof(dfc_step_t) / 4);
        uint32_t *head = (uint32_t *)&d->head[slot], *steps = (uint32_t *)d->steps[slot];
        for (uint32_t i = threadIdx.x; i < words; i += blockDim.x) {
            uint32_t w = __ldcv((const unsigned int *)src + i);
            if (i < head_words) head[i] = w;
            else steps[i - head_words] = w;
        }
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) {
            d->loaded[slot] = gen;
            trace_point(a, slot, DFC_GPU_T_LOADED);
        }
        go = 1;
    }
    if (!go) return 0;
    __threadfence();
    if (c->gen != gen) { /* first time this channel runs this start */
        int n = d->head[slot].nsteps;
        for (int i = threadIdx.x; i < n; i += blockDim.x) c->progress[i] = 0;
        __syncthreads();
        if (threadIdx.x == 0) {
            c->pc = c->fence_start = 0;
            c->fstate = c->barriers = c->at_barrier = 0;
            c->budget = a.policy.budget_init;
            c->preempted_at = -1;
            for (int p = 0; p < DFC_GPU_MAX_LOCAL; p++) {
                c->inv_mine[p] = c->inv_theirs[p] = DFC_GPU_INV_NONE;
                c->inv_posted[p] = 0;
            }
            c->gen = gen;
        }
        __syncthreads();
    }
    return 1;
}

/* ---- Rendezvous (issue 23, defect 1) -------------------------------------------------------
 * A sender writes the chunks of a step into a FIFO shared with other collectives only once
 * the receiver has invited that step: the receiver invites, per peer and channel, the oldest
 * unfinished receive from that peer in its collective's current fence group, and nothing
 * else. So every chunk in a FIFO belongs to a receive that is running now and completes by
 * taking these chunks with no other condition; the collective that owns the chunk at the
 * head takes it at its next sweep (every queued collective is swept on every pass), and no
 * collective's chunks ever wait behind another's, whatever order the ranks started them in.
 * Each collective then depends only on its own schedule run with unbuffered sends (a send
 * completes when the peer's matching receive runs), as the host executor runs schedules
 * above the eager limit; see dfc(7) and src/gpu/PROTOCOL.md. The invitation tables live in
 * the sender's region, open addressing keyed by ident; the receiver alone writes its table,
 * and keeps a shadow of it in its own memory. */

__device__ static inline dfc_gpu_invite_t *inv_at(const dfc_gpu_kargs_t &a, uint32_t owner_box,
                                                  uint32_t writer, uint32_t chan, uint32_t idx)
{
    return (dfc_gpu_invite_t *)(owner_box == a.me ? dfc_gpu_from_inv(&a, writer, chan, idx)
                                                  : dfc_gpu_to_inv(&a, owner_box, chan, idx));
}

/* Thread 0, after writes into the outbound region of a remote peer (daemon_abi.h): a new
 * value of the channel's kick word, after them, tells the proxy to look. */
__device__ static void kick(const dfc_gpu_kargs_t &a, uint32_t peer, uint32_t chan)
{
    if (!a.inbox[peer]) return;
    fence_release_sys();
    *dfc_gpu_kick_word(&a, peer, chan) = ++a.dev->kicks[peer][chan];
}

/* Receiver, thread 0: invites transfer `ord` of collective h from peer on this channel.
 * Returns 0 when the peer's table has no free entry (try again next sweep). */
__device__ static int inv_post(const dfc_gpu_kargs_t &a, dfc_gpu_ctx_t *c, uint32_t peer,
                               uint32_t chan, const dfc_gpu_desc_head_t *h, uint64_t ord)
{
    if (c->inv_posted[peer] == ord + 1) return 1;
    uint32_t idx = c->inv_mine[peer];
    if (idx == DFC_GPU_INV_NONE) {
        idx = dfc_gpu_inv_insert(a.dev->inv_shadow[peer][chan], h->ident);
        if (idx == DFC_GPU_INV_NONE) return 0;
        dfc_gpu_invite_t *e = inv_at(a, peer, a.me, chan, idx);
        e->ordinal = ord + 1;
        fence_release_sys(); /* the ordinal before the ident that makes the entry found */
        e->ident = h->ident;
        c->inv_mine[peer] = (uint16_t)idx;
    } else {
        inv_at(a, peer, a.me, chan, idx)->ordinal = ord + 1;
    }
    kick(a, peer, chan);
    c->inv_posted[peer] = (uint32_t)(ord + 1);
    return 1;
}

/* Receiver, thread 0: the collective's slice on this channel is over (complete or
 * cancelled): its entries become DFC_GPU_INV_GONE (the sender's lookups go on past them). */
__device__ static void inv_release(const dfc_gpu_kargs_t &a, dfc_gpu_ctx_t *c, uint32_t chan)
{
    for (uint32_t p = 0; p < a.geom.nlocal; p++) {
        uint32_t idx = c->inv_mine[p];
        if (idx == DFC_GPU_INV_NONE) continue;
        c->inv_mine[p] = DFC_GPU_INV_NONE;
        /* GONE, or free with the GONE run before it when no lookup needs it (else the
         * lookups of idents not invited yet would cross the whole table in time) */
        uint32_t freed = dfc_gpu_inv_release(a.dev->inv_shadow[p][chan], idx);
        inv_at(a, p, a.me, chan, idx)->ident = DFC_GPU_INV_GONE;
        for (uint32_t j = idx, n = 0; n < freed;
             j = (j + DFC_GPU_INVITES - 1) % DFC_GPU_INVITES, n++)
            inv_at(a, p, a.me, chan, j)->ident = 0;
        kick(a, p, chan);
    }
}

/* Sender, thread 0: has peer invited transfer `ord` of collective h on this channel? */
__device__ static int inv_ready(const dfc_gpu_kargs_t &a, dfc_gpu_ctx_t *c, uint32_t peer,
                                uint32_t chan, const dfc_gpu_desc_head_t *h, uint64_t ord)
{
    uint32_t idx = c->inv_theirs[peer];
    if (idx == DFC_GPU_INV_NONE) {
        uint32_t i = dfc_gpu_inv_hash(h->ident);
        for (uint32_t n = 0; n < DFC_GPU_INVITES; n++, i = (i + 1) % DFC_GPU_INVITES) {
            uint64_t id = load_acquire_sys(&inv_at(a, a.me, peer, chan, i)->ident);
            if (id == h->ident) {
                idx = i;
                break;
            }
            if (!id) return 0; /* not invited yet */
        }
        if (idx == DFC_GPU_INV_NONE) return 0;
        c->inv_theirs[peer] = (uint16_t)idx;
    }
    return load_acquire_sys(&inv_at(a, a.me, peer, chan, idx)->ordinal) == ord + 1;
}

/* Thread 0, the choices of one sweep (pick_actions): each helper fills action k of s->act_*
 * and returns 1, or returns 0 when its transfer cannot move now. */

/* Send: the FIFO must not be owned by another collective's send in flight (a sender holds
 * it from a step's first chunk to its last, so the receiver sees each step's chunks in one
 * run), and one of its `depth` entries must have been acknowledged. */
__device__ static int pick_send(const dfc_gpu_kargs_t &a, block_state *s, int k, uint32_t peer,
                                uint32_t chan, const dfc_gpu_desc_head_t *h, const dfc_step_t *st,
                                uint64_t off, dfc_gpu_ctx_t *c)
{
    const dfc_gpu_geom_t *g = &a.geom;
    uint64_t *owner = &s->f.owner[peer][h->slot];
    if (!dfc_gpu_fifo_free(*owner, h->ident)) return 0;
    if (a.rendezvous && !inv_ready(a, c, peer, chan, h, DFC_GPU_ORDINAL(st))) return 0;
    uint64_t seq = s->f.sent[peer][h->slot] + 1;
    volatile uint64_t *ack = (volatile uint64_t *)dfc_gpu_from_ack(&a, peer, chan, h->slot);
    if (!dfc_gpu_fifo_room(load_acquire_sys(ack), seq, g->depth)) return 0; /* all unread */
    *owner = h->ident;
    s->act_src[k] = buf_at(h, st->src_buf, st->src_off + off);
    s->act_dst[k] = dfc_gpu_to_data(&a, peer, chan, h->slot, (uint32_t)(seq % g->depth));
    s->act_kind[k] = ACT_SEND;
    return 1;
}

/* Receive from the spill: this collective's oldest chunk that another moved aside earlier
 * comes before anything in the FIFO. */
__device__ static int pick_from_spill(const dfc_gpu_kargs_t &a, block_state *s, int k,
                                      uint32_t peer, uint32_t chan, const dfc_gpu_desc_head_t *h)
{
    int best = dfc_gpu_spill_oldest(s->f.spill_ident[peer], s->f.spill_slot[peer],
                                    s->f.spill_seq[peer], DFC_GPU_SPILL, h->ident, h->slot);
    if (best < 0) return 0;
    s->act_kind[k] = ACT_FROM_SPILL;
    s->act_spill[k] = best;
    s->act_src[k] = spill_at(a, peer, chan, best);
    return 1;
}

/* The head of the FIFO holds a chunk of another collective (dfc_gpu_head_choice): a
 * cancelled one's (with rendezvous: any this channel has no live invitation of) is dropped
 * (acknowledged, not copied); another's is moved aside into a
 * free spill entry so that the chunks behind it can come through (its owner takes it from
 * there later). With the spill full, or with rendezvous, the receive waits: the owner will
 * take the chunk when it runs. Fills action k with the move and returns 1, or returns 0. */
__device__ static int pick_steal(const dfc_gpu_kargs_t &a, block_state *s, int k, uint32_t peer,
                                 uint32_t chan, int step, const dfc_gpu_flag_t *f, uint64_t owner,
                                 uint64_t ident)
{
    s->act_reduce[k] = 0;
    s->act_step[k] = step;
    s->act_ident[k] = owner;
    int e = -1;
    int what = dfc_gpu_head_choice(owner, ident, a.dev->dead[chan], a.rendezvous,
                                   a.dev->inv_shadow[peer][chan], s->f.spill_ident[peer],
                                   DFC_GPU_SPILL, &e);
    if (what == DFC_GPU_ACT_DROP) {
        s->act_kind[k] = ACT_DROP;
        s->act_dst[k] = s->act_src[k];
        s->act_bytes[k] = 0;
        return 1;
    }
    if (what != DFC_GPU_ACT_STEAL) return 0;
    s->act_kind[k] = ACT_STEAL;
    s->act_spill[k] = e;
    s->act_dst[k] = spill_at(a, peer, chan, e);
    s->act_bytes[k] = f->bytes;
    return 1;
}

/* Receive: from the spill, else the next chunk of the FIFO if it is this collective's
 * (else pick_steal). Returns 1 for this step's chunk, 2 for a chunk moved aside or
 * dropped (action k filled, not this step's progress), 0 when nothing can move. */
__device__ static int pick_recv(const dfc_gpu_kargs_t &a, block_state *s, int k, uint32_t peer,
                                uint32_t chan, int step, const dfc_gpu_desc_head_t *h,
                                const dfc_step_t *st, dfc_gpu_ctx_t *c)
{
    if (a.rendezvous && !inv_post(a, c, peer, chan, h, DFC_GPU_ORDINAL(st))) return 0;
    if (pick_from_spill(a, s, k, peer, chan, h)) return 1;
    const dfc_gpu_geom_t *g = &a.geom;
    uint64_t seq = s->f.recvd[peer][h->slot] + 1;
    uint32_t entry = (uint32_t)(seq % g->depth);
    dfc_gpu_flag_t *f = (dfc_gpu_flag_t *)dfc_gpu_from_flag(&a, peer, chan, h->slot, entry);
    if (load_acquire_sys(&f->seq) != seq) return 0;
    uint64_t owner = f->ident;
    s->act_src[k] = dfc_gpu_from_data(&a, peer, chan, h->slot, entry);
    if (owner != h->ident) return pick_steal(a, s, k, peer, chan, step, f, owner, h->ident) ? 2 : 0;
    s->act_kind[k] = ACT_RECV;
    return 1;
}

/* Thread 0: one sweep over the transfers of the current fence group [fence_start, pc).
 * Picks every transfer that can move one chunk now (at most one per peer and direction,
 * the oldest, so that a pair's transfers keep their order; at most MAX_ACTIONS in all),
 * records it in s->act_*, and marks transfers that have finished. Returns 1 when the whole
 * group is complete. */
__device__ static int pick_actions(const dfc_gpu_kargs_t &a, block_state *s, uint32_t slot,
                                   uint32_t chan, const dfc_gpu_desc_head_t *h,
                                   const dfc_step_t *steps, dfc_gpu_ctx_t *c, int *moved)
{
    const dfc_gpu_geom_t *g = &a.geom;
    uint32_t busy_send = 0, busy_recv = 0; /* peers whose oldest transfer was seen */
    int all_done = 1;
    s->nact = 0;
    for (int i = c->fence_start; i < c->pc; i++) {
        const dfc_step_t *st = &steps[i];
        uint32_t prog = c->progress[i];
        if (prog & STEP_DONE) continue;
        all_done = 0;
        int sending = st->kind == DFC_STEP_SEND;
        uint32_t peer = (uint32_t)st->peer; /* a daemon index (dfc_gpu_steps_to_daemon) */
        if (!dfc_gpu_sweep_first(&busy_send, &busy_recv, sending, peer)) continue;
        uint64_t lo, hi;
        dfc_gpu_slice(st->bytes, chan, g->channels, a.chan_min_bytes, &lo, &hi);
        uint32_t nchunks = dfc_gpu_nchunks(lo, hi, g->chunk);
        if (prog >= nchunks) { /* nothing (left) to move in this channel */
            c->progress[i] = STEP_DONE;
            (*moved)++;
            continue;
        }
        if (s->nact == MAX_ACTIONS) continue;
        uint64_t off = lo + (uint64_t)prog * g->chunk,
                 bytes = hi - off < g->chunk ? hi - off : g->chunk;
        int k = s->nact, r;
        if (sending) {
            if (!pick_send(a, s, k, peer, chan, h, st, off, c)) continue;
            s->act_reduce[k] = 0;
        } else {
            if (!(r = pick_recv(a, s, k, peer, chan, i, h, st, c))) continue;
            if (r == 2) { /* another collective's chunk moved aside or dropped */
                s->nact++;
                continue;
            }
            if (s->act_kind[k] == ACT_RECV && chan == 0) trace_point(a, slot, DFC_GPU_T_RECV);
            int fused = st->kind == DFC_STEP_RECV_REDUCE && (st->order & DFC_GPU_FUSED);
            s->act_reduce[k] = fused;
            s->act_order[k] = st->order & 1;
            if (st->kind == DFC_STEP_RECV_REDUCE && !fused)
                s->act_dst[k] = buf_at(h, DFC_BUF_TMP, st->tmp_off + off);
            else s->act_dst[k] = buf_at(h, st->dst_buf, st->dst_off + off);
        }
        s->act_step[k] = i;
        s->act_bytes[k] = bytes;
        s->nact++;
    }
    return all_done;
}

/* Thread 0, after the block moved the chunks of the sweep: publishes them (flags for sends,
 * acks for receives) and counts progress. One system-scope fence orders every chunk and
 * flag body of the sweep before the sequence numbers that announce them; a sweep with no
 * send needs only the device scope (its acks follow reads that have completed). */
__device__ static void post_actions(const dfc_gpu_kargs_t &a, block_state *s, uint32_t slot,
                                    uint32_t chan, const dfc_gpu_desc_head_t *h,
                                    const dfc_step_t *steps, dfc_gpu_ctx_t *c)
{
    const dfc_gpu_geom_t *g = &a.geom;
    int sends = 0;
    uint32_t remote = 0; /* remote peers written to: kicked at the end */
    for (int k = 0; k < s->nact; k++) {
        if (s->act_kind[k] != ACT_SEND) continue;
        const dfc_step_t *st = &steps[s->act_step[k]];
        uint32_t peer = (uint32_t)st->peer;
        uint64_t seq = s->f.sent[peer][h->slot] + 1;
        dfc_gpu_flag_t *f = (dfc_gpu_flag_t *)dfc_gpu_to_flag(&a, peer, chan, h->slot,
                                                              (uint32_t)(seq % g->depth));
        f->ident = h->ident; /* the receiver reads these only after the new seq */
        f->bytes = s->act_bytes[k];
        sends++;
    }
    if (sends) {
        fence_release_sys(); /* data and flag bodies (peer memory) come first */
        if (chan == 0) trace_point(a, slot, DFC_GPU_T_SEND);
    } else {
        __threadfence();
    }
    for (int k = 0; k < s->nact; k++) {
        const dfc_step_t *st = &steps[s->act_step[k]];
        uint32_t peer = (uint32_t)st->peer;
        uint64_t lo, hi;
        dfc_gpu_slice(st->bytes, chan, g->channels, a.chan_min_bytes, &lo, &hi);
        uint32_t nchunks = dfc_gpu_nchunks(lo, hi, g->chunk);
        uint32_t prog = c->progress[s->act_step[k]] + 1;
        int e = s->act_spill[k];
        if (s->act_kind[k] == ACT_SEND) {
            uint64_t seq = ++s->f.sent[peer][h->slot];
            dfc_gpu_flag_t *f = (dfc_gpu_flag_t *)dfc_gpu_to_flag(&a, peer, chan, h->slot,
                                                                  (uint32_t)(seq % g->depth));
            f->seq = seq;
            remote |= a.inbox[peer] ? 1u << peer : 0;
            uint64_t *owner = &s->f.owner[peer][h->slot];
            *owner = dfc_gpu_owner_after(*owner, prog, nchunks); /* free after the last chunk */
        } else if (s->act_kind[k] == ACT_FROM_SPILL) {
            s->f.spill_ident[peer][e] = 0; /* the entry is free again */
        } else { /* ACT_RECV, ACT_STEAL, ACT_DROP: the FIFO advances, the sender may reuse it */
            uint64_t seq = ++s->f.recvd[peer][h->slot];
            volatile uint64_t *ack = (volatile uint64_t *)dfc_gpu_to_ack(&a, peer, chan, h->slot);
            *ack = seq;
            remote |= a.inbox[peer] ? 1u << peer : 0;
            if (s->act_kind[k] == ACT_DROP) continue; /* not this step's chunk either */
            if (s->act_kind[k] == ACT_STEAL) {
                s->f.spill_ident[peer][e] = s->act_ident[k];
                s->f.spill_slot[peer][e] = h->slot;
                s->f.spill_seq[peer][e] = seq;
                s->f.spill_bytes[peer][e] = (uint32_t)s->act_bytes[k];
                continue; /* not this step's chunk */
            }
        }
        c->progress[s->act_step[k]] = dfc_gpu_progress_after(prog, nchunks);
    }
    for (uint32_t p = 0; remote; p++, remote >>= 1)
        if (remote & 1) kick(a, p, chan);
}

/* All threads: a local step (COPY, REDUCE) or the deferred reductions of a finished fence
 * group, on this channel's slice. */
__device__ static void local_step(const dfc_gpu_desc_head_t *h, const dfc_step_t *st, uint32_t chan,
                                  const dfc_gpu_kargs_t &a)
{
    uint64_t bytes = st->kind == DFC_STEP_COPY ? st->bytes : st->count * h->item, lo, hi;
    dfc_gpu_slice(bytes, chan, a.geom.channels, a.chan_min_bytes, &lo, &hi);
    if (hi <= lo) return;
    if (st->kind == DFC_STEP_COPY) {
        block_copy(buf_at(h, st->dst_buf, st->dst_off + lo),
                   buf_at(h, st->src_buf, st->src_off + lo), hi - lo);
    } else {
        int src_buf = st->kind == DFC_STEP_REDUCE ? st->src_buf : DFC_BUF_TMP;
        uint64_t src_off = st->kind == DFC_STEP_REDUCE ? st->src_off : st->tmp_off;
        block_reduce(h->type, h->op, buf_at(h, src_buf, src_off + lo),
                     buf_at(h, st->dst_buf, st->dst_off + lo), (hi - lo) / h->elem, st->order & 1);
    }
    __syncthreads();
}

/* Thread 0: the channels of a collective meet here between fence groups whose byte ranges
 * they split differently (a local step over a whole block after transfers in chunks, for
 * instance). Non-blocking: 1 once every channel has arrived at this channel's next barrier. */
__device__ static int barrier_try(const dfc_gpu_kargs_t &a, uint32_t slot, uint32_t nchan,
                                  dfc_gpu_ctx_t *c)
{
    volatile uint32_t *count = &a.dev->arrived[slot];
    if (!c->at_barrier) {
        __threadfence(); /* this channel's writes before its arrival */
        atomicAdd((uint32_t *)count, 1u);
        c->at_barrier = 1;
    }
    if (*count < (uint32_t)(c->barriers + 1) * nchan) return 0;
    __threadfence();
    c->at_barrier = 0;
    c->barriers++;
    return 1;
}

/* All threads, at a fence point (the current group's transfers are complete): the deferred
 * reductions, a barrier, the local step (COPY, REDUCE) if the fence is one, a barrier, then
 * the next group. fstate remembers how far it got, since the barriers may have to wait and
 * the reductions must not run twice. A collective whose every step fits one channel
 * (h->nchan == 1) skips the barriers: no other channel takes part. Returns 2 when
 * the schedule is done, 1 when it moved, 0 when it waits at a barrier. */
__device__ static int fence_point(const dfc_gpu_kargs_t &a, block_state *s, uint32_t slot,
                                  uint32_t chan, dfc_gpu_ctx_t *c, const dfc_gpu_desc_head_t *h,
                                  const dfc_step_t *steps)
{
    int pc = c->pc, moved = 0; /* read alike by every thread */
    int local = pc < h->nsteps && steps[pc].kind != DFC_STEP_FENCE;
    if (c->fstate == 0) {
        for (int i = c->fence_start; i < pc; i++)
            if (steps[i].kind == DFC_STEP_RECV_REDUCE && !(steps[i].order & DFC_GPU_FUSED))
                local_step(h, &steps[i], chan, a);
        __syncthreads();
        if (threadIdx.x == 0) c->fstate = 1;
        moved = 1;
    }
    for (;;) {
        __syncthreads();
        int st = c->fstate;
        __syncthreads();
        if (st == 1 || st == 3) { /* barriers */
            if (threadIdx.x == 0) s->go = h->nchan == 1 || barrier_try(a, slot, h->nchan, c);
            __syncthreads();
            if (!s->go) return moved;
            if (threadIdx.x == 0) c->fstate = st == 1 && local ? 2 : 4;
            moved = 1;
        } else if (st == 2) {
            local_step(h, &steps[pc], chan, a);
            if (threadIdx.x == 0) c->fstate = 3;
        } else { /* 4: on to the next group */
            int next = pc < h->nsteps ? pc + 1 : pc;
            __syncthreads();
            if (threadIdx.x == 0) {
                c->pc = c->fence_start = next;
                c->fstate = 0;
            }
            __syncthreads();
            return next >= h->nsteps ? 2 : 1;
        }
    }
}

/* All threads: copy a collective's head, steps and context into shared memory (into), or
 * its context back to device memory (out). Only the first nsteps progress words count. */
__device__ static void cache_in(block_state *s, const dfc_gpu_desc_head_t *h,
                                const dfc_step_t *steps, const dfc_gpu_ctx_t *c, uint32_t nsteps)
{
    const uint32_t hw = sizeof *h / 4, sw = nsteps * (uint32_t)(sizeof *steps / 4);
    const uint32_t cw = (uint32_t)(offsetof(dfc_gpu_ctx_t, progress) / 4) + nsteps;
    for (uint32_t i = threadIdx.x; i < hw + sw + cw; i += blockDim.x) {
        if (i < hw) ((uint32_t *)&s->cc.h)[i] = ((const uint32_t *)h)[i];
        else if (i < hw + sw) ((uint32_t *)s->cc.steps)[i - hw] = ((const uint32_t *)steps)[i - hw];
        else ((uint32_t *)&s->cc.c)[i - hw - sw] = ((const uint32_t *)c)[i - hw - sw];
    }
    __syncthreads();
}
__device__ static void cache_out(block_state *s, dfc_gpu_ctx_t *c, uint32_t nsteps)
{
    __syncthreads();
    const uint32_t cw = (uint32_t)(offsetof(dfc_gpu_ctx_t, progress) / 4) + nsteps;
    for (uint32_t i = threadIdx.x; i < cw; i += blockDim.x)
        ((uint32_t *)c)[i] = ((const uint32_t *)&s->cc.c)[i];
    __syncthreads();
}

/* All threads: one collective's slice, from where it stands, until it cannot move. The head
 * keeps polling for its spin budget. Returns 2 when it completed, else 1 if it moved, 0 if not. */
__device__ static int advance(const dfc_gpu_kargs_t &a, block_state *s, uint32_t slot,
                              uint32_t chan, int head, const dfc_gpu_desc_head_t *h,
                              const dfc_step_t *steps, dfc_gpu_ctx_t *c)
{
    /* Loop decisions use values every thread holds alike (registers, shared memory). */
    int moved_total = 0;
    int32_t polls = 0, budget = c->budget;
    for (;;) {
        __shared__ int s_done, s_moved;
        prof_laps prof(a, chan);
        if (threadIdx.x == 0) {
            /* post the transfers up to the next local step or fence */
            while (c->pc < h->nsteps && is_xfer(steps[c->pc].kind)) c->pc++;
            s_moved = 0;
            s_done = pick_actions(a, s, slot, chan, h, steps, c, &s_moved);
        }
        __syncthreads();
        prof.lap(DFC_GPU_P_PICK);
        for (int k = 0; k < s->nact; k++) {
            if (s->act_reduce[k])
                block_reduce(h->type, h->op, s->act_src[k], s->act_dst[k],
                             s->act_bytes[k] / h->elem, s->act_order[k]);
            else block_copy(s->act_dst[k], s->act_src[k], s->act_bytes[k]);
        }
        __syncthreads();
        int nact = s->nact, done = s_done, moved = s_moved + nact;
        prof.lap(DFC_GPU_P_MOVE, nact);
        if (threadIdx.x == 0 && nact) post_actions(a, s, slot, chan, h, steps, c);
        __syncthreads();
        prof.lap(DFC_GPU_P_POST, nact);
        if (done) { /* fence reached */
            int r = fence_point(a, s, slot, chan, c, h, steps);
            prof.lap(DFC_GPU_P_FENCE);
            if (r == 2) return 2;
            moved = r || moved;
        }
        if (moved) {
            /* a long collective may run here for milliseconds: the exit rule must see it move */
            if (threadIdx.x == 0) a.dev->last_move = now_ns();
            moved_total = 1;
            budget = dfc_policy_budget_moved(&a.policy, budget, polls); /* in step: stickier */
            polls = 0;
            continue;
        }
        if (!head || !dfc_policy_spin_on(&polls, budget)) break;
    }
    if (head && dfc_policy_is_new_preemption(c->preempted_at, c->pc)) {
        budget = dfc_policy_budget_preempted(&a.policy, budget); /* once per wait point */
        __syncthreads();
        if (threadIdx.x == 0) {
            c->preempted_at = c->pc;
            if (chan == 0)
                a.host->preemptions = ++a.dev->preemptions; /* a write across PCIe, no read */
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) c->budget = budget;
    __syncthreads();
    return moved_total;
}

/* All threads: loads the collective of queue entry e if needed, then advances it, from a
 * copy in shared memory when its schedule is short enough (CACHED_STEPS). */
__device__ static int run_coll(const dfc_gpu_kargs_t &a, block_state *s,
                               const dfc_gpu_sq_entry_t &e, uint32_t chan, int head)
{
    const uint32_t slot = e.slot;
    dfc_gpu_ctx_t *c = &a.ctx[(uint64_t)slot * a.geom.channels + chan];
    prof_laps prof(a, chan);
    if (!load_coll(a, s, e, c)) return 0;
    const dfc_gpu_desc_head_t *h = &a.dev->head[slot];
    const dfc_step_t *steps = a.dev->steps[slot];
    int r;
    if (e.nsteps > CACHED_STEPS) {
        r = advance(a, s, slot, chan, head, h, steps, c);
        __syncthreads();
    } else {
        cache_in(s, h, steps, c, e.nsteps);
        prof.lap(DFC_GPU_P_LOAD);
        r = advance(a, s, slot, chan, head, &s->cc.h, s->cc.steps, &s->cc.c);
        cache_out(s, c, e.nsteps);
    }
    if (r == 2 && threadIdx.x == 0) inv_release(a, c, chan);
    return r;
}

/* Thread 0: this channel finished (slot, gen); the last channel writes the completion. */
__device__ static void finish_coll(const dfc_gpu_kargs_t &a, uint32_t slot, uint32_t nchan,
                                   uint32_t gen)
{
    fence_release_sys(); /* this channel's results before its count (or the done word) */
    if (nchan > 1) {
        if (atomicAdd(&a.dev->finished[slot], 1u) + 1 != nchan) return;
        a.dev->finished[slot] = 0;
        a.dev->arrived[slot] = 0; /* every channel is past every barrier */
        fence_release_sys();      /* acquire the others' results (cumulative), release the resets */
    }
    trace_point(a, slot, DFC_GPU_T_DONE);
    a.host->done[slot] = gen;
}

/* All threads: this channel's FIFO state between device memory (across launches) and
 * shared memory (while the kernel runs). */
__device__ static void fifo_state(const dfc_gpu_kargs_t &a, block_state *s, uint32_t chan,
                                  bool save)
{
    dfc_gpu_dev_t *d = a.dev;
    const uint32_t n = a.geom.nlocal, slots = a.geom.slots;
    for (uint32_t i = threadIdx.x; i < n * slots; i += blockDim.x) {
        uint32_t p = i / slots, k = i % slots;
        if (save) {
            d->sent[p][chan][k] = s->f.sent[p][k];
            d->owner[p][chan][k] = s->f.owner[p][k];
            d->recvd[p][chan][k] = s->f.recvd[p][k];
        } else {
            s->f.sent[p][k] = d->sent[p][chan][k];
            s->f.owner[p][k] = d->owner[p][chan][k];
            s->f.recvd[p][k] = d->recvd[p][chan][k];
        }
    }
    for (uint32_t i = threadIdx.x; i < n * DFC_GPU_SPILL; i += blockDim.x) {
        uint32_t p = i / DFC_GPU_SPILL, k = i % DFC_GPU_SPILL;
        if (save) {
            d->spill_ident[p][chan][k] = s->f.spill_ident[p][k];
            d->spill_seq[p][chan][k] = s->f.spill_seq[p][k];
            d->spill_slot[p][chan][k] = s->f.spill_slot[p][k];
            d->spill_bytes[p][chan][k] = s->f.spill_bytes[p][k];
        } else {
            s->f.spill_ident[p][k] = d->spill_ident[p][chan][k];
            s->f.spill_seq[p][k] = d->spill_seq[p][chan][k];
            s->f.spill_slot[p][k] = d->spill_slot[p][chan][k];
            s->f.spill_bytes[p][k] = d->spill_bytes[p][chan][k];
        }
    }
    __syncthreads();
}

/* Thread 0: the exit rule, for the whole kernel at once (drain), so that no work is ever left
 * in a block that has gone while the others run. Stuck: this block holds collectives and no
 * block has moved anything for idle_ns - everything waits for peers, and host-side
 * synchronization must be able to complete. Idle: no block holds anything, nothing new was
 * submitted, for linger_ns. Returns 1 when this block must leave. */
__device__ static int exit_decision(const dfc_gpu_kargs_t &a, const block_state *s, uint32_t chan,
                                    int moved, uint64_t launched_at)
{
    uint64_t t = now_ns();
    a.dev->busy[chan] = s->q.n > 0;
    if (moved) a.dev->last_move = t;
    /* Another block may have stored a time later than t: then nothing is quiet (an unsigned
     * t - last would wrap to centuries and take the kernel down). last_move may be older
     * than this launch, from a previous one. */
    uint64_t quiet = dfc_gpu_quiet(t, a.dev->last_move, launched_at);
    int quit = a.dev->drain == a.epoch, why = 0;
    if (!quit)
        quit = why = dfc_gpu_exit_why(s->q.n > 0, quiet, a.idle_ns, a.linger_ns, &a.host->sq_tail,
                                      s->q.sq_head, a.dev->busy, a.geom.channels);
    if (why && atomicExch((uint32_t *)&a.dev->drain, a.epoch) !=
                   a.epoch) { /* the first to decide counts */
        if (why == 1) a.host->exits_stuck = a.host->exits_stuck + 1;
        else a.host->exits_idle = a.host->exits_idle + 1;
    }
    return quit;
}

/* All threads: one pass over the run queue, head first; completed collectives leave it, and
 * one that moved while the head waited becomes the head. Returns 1 if anything moved. */
__device__ static int run_queue(const dfc_gpu_kargs_t &a, block_state *s, uint32_t chan)
{
    int moved = 0;
    for (int i = 0; i < s->q.n;) {
        const dfc_gpu_sq_entry_t e = s->q.e[i];
        int r = run_coll(a, s, e, chan, i == 0);
        if (r == 2) {
            if (threadIdx.x == 0) {
                prof_laps prof(a, chan);
                finish_coll(a, e.slot, e.nchan, e.gen);
                prof.lap(DFC_GPU_P_FINISH);
                for (int j = i; j + 1 < s->q.n; j++) s->q.e[j] = s->q.e[j + 1];
                s->q.n--;
            }
            __syncthreads();
            moved = 1;
            continue;
        }
        moved |= r;
        if (dfc_policy_promote(&a.policy, i, r == 1, e.priority, s->q.e[0].priority)) {
            /* It moved while the head waited: the peers are on it now, so it becomes the
             * head and gets the spin budget (ranks that started collectives in different
             * orders converge on one collective instead of each spinning on its own). */
            __syncthreads();
            if (threadIdx.x == 0) {
                for (int j = i; j > 0; j--) s->q.e[j] = s->q.e[j - 1];
                s->q.e[0] = e;
            }
            __syncthreads();
        }
        i++;
    }
    return moved;
}

/* Thread 0: takes new work from the submission queue at once when idle, and every 4th pass
 * otherwise (channel 0's look is a read across PCIe). */
__device__ static void admit_phase(const dfc_gpu_kargs_t &a, block_state *s, uint32_t chan,
                                   uint32_t iter, prof_laps *prof)
{
    if (threadIdx.x == 0 && (s->q.n == 0 || (iter & 3) == 0)) admit(a, s, chan);
    prof->lap(DFC_GPU_P_ADMIT);
    __syncthreads();
}

/* All threads: whether the kernel exits now (exit_decision, thread 0's verdict shared). */
__device__ static int exit_phase(const dfc_gpu_kargs_t &a, block_state *s, uint32_t chan, int moved,
                                 uint64_t launched_at, prof_laps *prof)
{
    __shared__ int s_exit;
    prof->restart();
    if (threadIdx.x == 0) s_exit = exit_decision(a, s, chan, moved, launched_at);
    __syncthreads();
    prof->lap(DFC_GPU_P_EXIT);
    prof->end_pass();
    return s_exit;
}

extern "C" __global__ void __launch_bounds__(DFC_GPU_THREADS) dfc_gpu_daemon(dfc_gpu_kargs_t a)
{
    __shared__ block_state s;
    const uint32_t chan = blockIdx.x;
    dfc_gpu_queue_t *saved = &a.dev->queue[chan];
    for (int i = threadIdx.x; i < (int)(sizeof s.q / 4); i += blockDim.x)
        ((uint32_t *)&s.q)[i] = ((uint32_t *)saved)[i];
    if (threadIdx.x == 0 && chan == 0) a.host->launches_seen = a.epoch;
    fifo_state(a, &s, chan, false);
    const uint64_t launched_at = now_ns();
    for (uint32_t iter = 0;; iter++) {
        prof_laps prof(a, chan); /* DFC_GPU_TRACE=2: the cycles of each phase */
        prof.start_pass();
        admit_phase(a, &s, chan, iter, &prof);
        int moved = run_queue(a, &s, chan);
        if (exit_phase(a, &s, chan, moved, launched_at, &prof)) break;
        /* A block with nothing queued naps between polls of the SQ mirror, to keep off the
         * L2 lines that the working blocks use. */
        if (chan > 0 && s.q.n == 0) __nanosleep(2000);
    }
    for (int i = threadIdx.x; i < (int)(sizeof s.q / 4); i += blockDim.x)
        ((uint32_t *)saved)[i] = ((uint32_t *)&s.q)[i];
    fifo_state(a, &s, chan, true);
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) a.host->exited[chan] = a.epoch;
}
