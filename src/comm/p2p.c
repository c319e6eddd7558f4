/*
 * p2p.c - point-to-point protocol and matching.
 *
 * Protocol, over the packets of dfc_tl.h:
 *   eager       (len <= the eager limit of the transport to the peer: its own where it
 *               sets one, else DFC_EAGER_LIMIT; eager_limit_for): EAGER carries the data. A send
 *               completes once the transport accepted the packet; Ssend waits for SACK.
 *   rendezvous  (larger): RTS announces the message (and the sender's buffer address).
 *               When it matches, the receiver either pulls the data itself with the
 *               transport's rget (cross-memory attach; or rget_start, whose copies
 *               progress tests, so that several run at once: ofi) and answers FIN, or
 *               answers CTS, after which the sender streams DATA fragments. Nothing
 *               large is ever buffered unexpectedly, so a flood of big messages costs
 *               headers only.
 * Device buffers (dfc(7) "Device buffers") are not staged through host memory, except sends
 * up to DFC_GPU_EAGER_LIMIT to a rank of another node (staged, so that they keep eager
 * semantics; to a rank of this node p2p_hold.c keeps them): a device send is an
 * RTS with DFC_PKT_FLAG_DEV whose payload names the buffer by CUDA IPC (peer on this node);
 * once matched, the receiver copies straight out of it (cuda/ipc.c: the small-copy kernel up
 * to DFC_GPU_KCOPY_MAX, else the copy engine), progress tests the copy, and FIN completes the
 * send (with DFC_GPU_KCOPY_EARLY_FIN, as soon as the copy has read the source, which the kernel
 * tells beside the fence before its done).
 * Without an IPC name the receiver answers CTS
 * and the sender streams DATA through a host bounce buffer; host data that lands in a
 * device receive buffer (EAGER, DATA) is copied there. Matching never sees the difference.
 * Non-contiguous buffers (a derived datatype, host memory; stage.c decides which): the
 * request keeps the datatype (pack_dt) instead of a packed copy of the whole message. A
 * receive unpacks each piece where it lands (EAGER payload, DATA fragment) and answers every
 * RTS with CTS, since rget copies contiguous bytes only; a send above the eager limit marks
 * its RTS DFC_PKT_FLAG_PACKED (no rget of its buffer either) and packs each DATA fragment into
 * a bounce buffer just before the transport copies it. So packing, the wire and unpacking
 * overlap fragment by fragment, and no message-sized temporary exists.
 * Matching: the posted-receive queue and the unexpected-message queue, both in arrival
 * order, keyed by (context, source, tag) with ANY_SOURCE/ANY_TAG wildcards. Transports are
 * FIFO per pair and EAGER/RTS of one pair never overtake each other in the pending queue,
 * which gives MPI's non-overtaking rule.
 * Request ids on the wire are numbers unique in the sending process (request.c), looked up
 * in this process's lists, never dereferenced: peers are members of one job, authenticated
 * at connect time.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

typedef struct dfc_p2p_msg { /* dfc_p2p_msg_t: a matched-probe message (dfc_comm.h) */
    dfc_list_t link;
    dfc_pkt_t pkt; /* EAGER or RTS */
    /* EAGER payload copy: in the same allocation, after the struct (one malloc and free per
     * unexpected message, issue 16), or NULL */
    void *data;
    dfc_p2p_hold_t *hold; /* a device message's bytes held here (p2p_hold.c), or NULL */
} unexp_msg_t;

/* A packet the transport could not take yet (DFC_TL_AGAIN). */
typedef struct pending_pkt {
    dfc_list_t link;
    int world;
    dfc_pkt_t pkt;
    const void *payload; /* the user's send buffer for EAGER (valid until completion) */
    dfc_req_t *complete_on_accept;
} pending_pkt_t;

/* A device send whose RTS names no IPC buffer (its receiver will answer CTS: a peer on
 * another node) issues the copies of its first chunks to host memory with the RTS, so that
 * they run during the RTS/CTS round trip instead of after it. Only while fewer than this many
 * streams are open: each holds DFC_STAGE_DEPTH pinned slots and a copy context until its
 * receiver answers, and a halo exchange that posts sends to all its neighbours before any
 * receive would hold them all (later sends open their stream at CTS, as before). */
#define P2P_EARLY_STREAMS 4
static void stream_dev(dfc_req_t *r, int is_recv, void *dev, uint64_t bytes);
static void msg_matched(dfc_req_t *r, unexp_msg_t *u);

static dfc_list_t posted_recvs;
static dfc_list_t unexpected_msgs;
static dfc_list_t pending_pkts;
static dfc_list_t rndv_sends;   /* requests streaming DATA after a CTS */
static dfc_list_t await_reply;  /* sends waiting for the receiver: CTS/FIN (rendezvous), SACK */
static dfc_list_t rndv_recvs;   /* receives that answered an RTS with CTS, awaiting DATA */
static int *pending_per_world;  /* pending packets per destination, for ordering */
static unsigned *blocked_stamp; /* destinations found full in the current pass */
static unsigned pass_stamp;
static size_t unexpected_bytes, unexpected_limit;
static uint64_t eager_limit;
static uint64_t dev_eager_limit; /* DFC_GPU_EAGER_LIMIT: device sends staged up to it */
static uint64_t defer_min;       /* DFC_ASYNC_DEFER_MIN: see dfc_p2p_defers */
static int rget_enabled;
static dfc_list_t send_cancels; /* cancels asked of receivers (issue 17: see the end) */
static void cancel_arrived(const dfc_pkt_t *pkt);
static void cancel_answered(const dfc_pkt_t *pkt);
static void cancels_fail_peer(int world);
static void report_cancels(FILE *f);

/* Device point-to-point (see the top) */
static dfc_list_t dev_pulls;      /* receives whose copy out of a peer's device buffer runs */
static dfc_list_t tl_pulls;       /* receives whose transport copy runs (rget_start) */
static dfc_list_t unlocked_pulls; /* receives whose rget waits to run without the lock */
static dfc_list_t dev_lands;      /* receives whose last chunks go to the device (p2p_dev.c) */
static void *bounce;              /* a DATA fragment of a device or packed send, in host memory */
static size_t bounce_size;
static int dev_enabled;

static inline uint32_t req_ctx(const dfc_req_t *r) { return r->comm->ctx * 2 + r->coll_ctx; }

int dfc_p2p_init(void)
{
    dfc_list_init(&posted_recvs);
    dfc_list_init(&unexpected_msgs);
    dfc_list_init(&pending_pkts);
    dfc_list_init(&rndv_sends);
    dfc_list_init(&await_reply);
    dfc_list_init(&rndv_recvs);
    dfc_list_init(&dev_pulls);
    dfc_list_init(&tl_pulls);
    dfc_list_init(&unlocked_pulls);
    dfc_list_init(&dev_lands);
    dfc_list_init(&send_cancels);
    pending_per_world = calloc(dfc_proc.world_size, sizeof *pending_per_world);
    blocked_stamp = calloc(dfc_proc.world_size, sizeof *blocked_stamp);
    if (!pending_per_world || !blocked_stamp) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    eager_limit = (uint64_t)
        dfc_env_long("DFC_EAGER_LIMIT", 16384,
                     "largest message sent eagerly (bytes); larger ones use rendezvous");
    unexpected_limit = (size_t)dfc_env_long(
        "DFC_UNEXPECTED_LIMIT", 1L << 30,
        "bytes of unexpected eager data a process buffers before it aborts with a message");
    /* Off by default: on 16 cores it raised the exchange's overlap at 4-16 KiB but made the
     * exchange alone 1.5-3.5x slower, for no shorter exposed time (BENCHMARKS.md stop 37). */
    defer_min = (uint64_t)dfc_env_long(
        "DFC_ASYNC_DEFER_MIN", 0,
        "with the progress thread, a nonblocking eager send of at least this many bytes is "
        "copied into the transport by the thread, not by DFC_Isend (default 0: never)");
    dev_eager_limit = (uint64_t)dfc_env_long(
        "DFC_GPU_EAGER_LIMIT", (long)eager_limit,
        "largest device-buffer send staged and sent eagerly (bytes); larger ones are copied "
        "directly by the receiver on this node (default: DFC_EAGER_LIMIT)");
    dev_enabled = (int)dfc_env_long(
        "DFC_GPU_P2P", 1,
        "1: point-to-point on device buffers of one node copies them directly with CUDA IPC "
        "(sends above DFC_GPU_EAGER_LIMIT); 0: stages them through host memory");
    dfc_gpu_ipc_params();
    dfc_gpu_kcopy_params();
    dfc_gpu_arena_params();
    dfc_p2p_hold_params();
    rget_enabled = (int)dfc_env_long(
        "DFC_RGET", 1,
        "1: receivers pull large messages with cross-memory attach where the transport can");
    return DFC_SUCCESS;
}

void dfc_p2p_finalize(void)
{
    dfc_list_t *e, *t;
    if (dfc_p2p_devstreams_open()) /* a path that ended a device send or receive forgot it */
        DFC_LOG(DFC_LOG_ERROR, "p2p",
                "%d device streams were never closed: their pinned slots leak",
                dfc_p2p_devstreams_open());
    DFC_LIST_FOREACH_SAFE(e, t, &unexpected_msgs)
    {
        unexp_msg_t *u = DFC_CONTAINER_OF(e, unexp_msg_t, link);
        dfc_list_remove(e);
        dfc_p2p_msg_free(u);
    }
    dfc_p2p_hold_finalize(); /* its last copies, before the kernel and the mappings go */
    DFC_LIST_FOREACH_SAFE(e, t, &pending_pkts)
    {
        dfc_list_remove(e);
        free(DFC_CONTAINER_OF(e, pending_pkt_t, link));
    }
    free(pending_per_world);
    free(blocked_stamp);
    free(bounce);
    bounce = NULL;
    bounce_size = 0;
    dfc_gpu_kcopy_finalize(); /* before the mappings its last copies may have read close */
    dfc_gpu_arena_finalize(); /* after the kernel, whose copies it may hold (p2p_hold.c) */
    dfc_gpu_ipc_finalize();
    pending_per_world = NULL;
    blocked_stamp = NULL;
}

int dfc_p2p_idle(void)
{
    return dfc_list_empty(&pending_pkts) && dfc_list_empty(&rndv_sends) &&
           dfc_list_empty(&dev_pulls) && dfc_list_empty(&tl_pulls) && dfc_list_empty(&dev_lands) &&
           dfc_list_empty(&unlocked_pulls) && !dfc_p2p_holds_busy();
}

/* Copies that no peer can signal: a waiting thread polls rather than sleeps. A device
 * send's stream counts once its CTS came (rndv_sends: the next fragment waits for a copy);
 * not before, when its early copies are read only at the CTS, which the peer signals, so that
 * a send that waits long for its receiver lets the thread sleep. A receive's stream waits for
 * DATA (signalled), and for its last copies in dev_lands. */
int dfc_p2p_dev_busy(void)
{
    if (!dfc_list_empty(&dev_pulls) || !dfc_list_empty(&dev_lands) || dfc_p2p_holds_busy())
        return 1;
    if (!dfc_p2p_devstreams_open()) return 0;
    for (dfc_list_t *e = rndv_sends.next; e != &rndv_sends; e = e->next)
        if (DFC_CONTAINER_OF(e, dfc_req_t, link)->devstream) return 1;
    return 0;
}

int dfc_p2p_stream_packed(size_t bytes, int is_recv) { return is_recv || bytes > eager_limit; }

void dfc_p2p_send_dst(dfc_req_t *r, dfc_comm_t *c, int dst)
{
    int world = dst >= 0 ? dfc_comm_peers(c)[dst] : -1;
    r->dev_dst_local = world < 0                                                ? 0
                       : world == dfc_proc.world_rank                           ? 2
                       : dfc_node_of[world] == dfc_node_of[dfc_proc.world_rank] ? 1
                                                                                : 0;
}

/* A small device send to a rank of this node goes direct too when its receiver can hold it
 * (p2p_hold.c: an IPC name, or this process; the pull and the hold memory on): it completes
 * without waiting for the receive, as the staged eager send it replaces did. */
int dfc_p2p_dev_direct(dfc_req_t *r, const void *buf, size_t bytes, int is_recv)
{
    r->dev_ipc_ready = 0; /* the name the send takes (post_send), once it is asked for here */
    if (!dev_enabled) return 0;
    if (is_recv || bytes > dev_eager_limit) return 1;
    if (!r->dev_dst_local || !rget_enabled || !dfc_gpu_arena_size()) return 0;
    if (r->dev_dst_local == 2) return 1;
    r->dev_ipc_ready = dfc_gpu_ipc_export(buf, &r->dev_ipc) == DFC_SUCCESS;
    return r->dev_ipc_ready;
}

/* A transport's "peer is gone" declares the failure (if progress has not yet) and becomes
 * the failure's code, whose message names the rank. */
static int peer_gone(int world, int rc)
{
    if (DFC_ERR_CLASS(rc) != DFC_ERR_PROC_FAILED) return rc;
    dfc_fault_peer(world, rc, dfc_route[world]->ops->name);
    int code = dfc_fault_check(NULL, 0, world);
    return code ? code : rc;
}

/* Queues a packet behind earlier packets to the same peer: progress sends it (payload, the
 * sender's, is read then). */
static int queue_packet(int world, const dfc_pkt_t *pkt, const void *payload,
                        dfc_req_t *complete_on_accept)
{
    dfc_progress_changed = 1; /* a thread asleep in this process may be the one to push it */
    pending_pkt_t *p = malloc(sizeof *p);
    if (!p) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory queueing a packet");
    p->world = world;
    p->pkt = *pkt;
    p->payload = payload;
    p->complete_on_accept = complete_on_accept;
    dfc_list_insert_tail(&pending_pkts, &p->link);
    pending_per_world[world]++;
    return DFC_SUCCESS;
}

/* Sends a packet now, or queues it behind earlier packets to the same peer. */
static int post_packet(int world, const dfc_pkt_t *pkt, const void *payload,
                       dfc_req_t *complete_on_accept)
{
    dfc_progress_changed = 1; /* a thread asleep in this process may be the one to push it */
    if (pending_per_world[world] == 0) {
        dfc_tl_t *tl = dfc_route[world];
        int rc = tl->ops->send(tl, world, pkt, payload);
        if (rc == DFC_SUCCESS) {
            if (complete_on_accept) dfc_req_complete(complete_on_accept);
            return DFC_SUCCESS;
        }
        if (rc != DFC_TL_AGAIN) return peer_gone(world, rc);
    }
    return queue_packet(world, pkt, payload, complete_on_accept);
}

int dfc_p2p_defers(uint64_t bytes)
{
    return defer_min && bytes >= defer_min && bytes <= eager_limit && dfc_progress_thread_runs();
}

/* A reply (CTS, FIN, SACK) about message `msg` (its EAGER or RTS packet). It carries the
 * message's context and tag so that the sender can check that the request it names still
 * waits for it (see find_waiting). */
static int send_ctrl_flags(int type, int flags, const dfc_pkt_t *msg, uint64_t rreq)
{
    dfc_pkt_t pkt = {0};
    pkt.type = (uint8_t)type;
    pkt.flags = (uint8_t)flags;
    pkt.ctx = msg->ctx;
    pkt.tag = msg->tag;
    pkt.sreq = msg->sreq;
    pkt.rreq = rreq;
    pkt.src_world = (uint32_t)dfc_proc.world_rank;
    return post_packet((int)msg->src_world, &pkt, NULL, NULL);
}

static int send_ctrl(int type, const dfc_pkt_t *msg, uint64_t rreq)
{
    return send_ctrl_flags(type, 0, msg, rreq);
}

/* ---- Collective rendezvous and a failed member ---------------------------------------------
 * A rendezvous sender must keep its buffer until the receiver answered (FIN or CTS): a live
 * receiver that has not yet noticed a failure may still read it. So a collective's RTS to a
 * live peer is not failed when a third rank fails (dfc_p2p_fail_peer): it keeps waiting,
 * its error recorded. The receiver in turn answers every RTS it will never read, on the
 * collective context of a communicator with a failed member, with FIN|NODATA. */
static dfc_comm_t *comm_of_ctx(uint32_t ctx)
{
    for (uint32_t i = 1; i < dfc_comm_table.cap; i++) {
        dfc_comm_t *c = dfc_comm_table.slots[i];
        if (c && c->ctx == ctx) return c;
    }
    return NULL;
}

/* Answers an unmatched RTS that no receive can match any more; returns 1 if it did. */
static int refuse_dead_rts(const dfc_pkt_t *pkt)
{
    if (DFC_LIKELY(!dfc_fault_count()) || pkt->type != DFC_PKT_RTS || !(pkt->ctx & 1)) return 0;
    dfc_comm_t *c = comm_of_ctx(pkt->ctx / 2);
    if (!c || !dfc_fault_check(c, 1, -1)) return 0;
    /* rreq names the failed member (world rank + 1), so that the sender names it too. */
    uint64_t failed = 0;
    for (int i = 0; i < c->size && !failed; i++)
        if (dfc_fault_check(NULL, 0, c->world[i])) failed = (uint64_t)c->world[i] + 1;
    send_ctrl_flags(DFC_PKT_FIN, DFC_PKT_FLAG_NODATA, pkt, failed);
    return 1;
}

/* The request named by a reply or DATA packet, if it is still in list `l` and waits for
 * exactly this (peer, context, tag). After a peer failure a request may have completed with
 * an error (and been freed) while a live peer's reply to it was on the way: such a stale id
 * must not be dereferenced, so it is looked up rather than trusted. Lists are short. */
static dfc_req_t *find_waiting(dfc_list_t *l, uint64_t id, const dfc_pkt_t *pkt, int is_recv)
{
    dfc_list_t *e;
    for (e = l->next; e != l; e = e->next) {
        dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        if (r->id != id) continue;
        int tag = is_recv ? r->status.DFC_TAG : r->tag;
        if (r->peer_world == (int)pkt->src_world && req_ctx(r) == pkt->ctx && tag == pkt->tag)
            return r;
        break;
    }
    DFC_LOG(DFC_LOG_INFO, "p2p",
            "dropping a type %d packet from world rank %u for a request "
            "that no longer waits for it",
            pkt->type, pkt->src_world);
    return NULL;
}

/* Ends a request with an error (a failed peer, a refused packet). A request that a peer
 * failure completed meanwhile (dfc_fault_peer runs inside post_packet) is left alone. */
static void fail_req(dfc_req_t *r, int code)
{
    if (r->complete) return;
    dfc_list_remove(&r->link);
    if (!r->status.DFC_ERROR) r->status.DFC_ERROR = code;
    dfc_p2p_devstream_close(r); /* once its copies end */
    dfc_req_complete(r);
}

/* The transport's own eager limit where it has one (dfc_tl.h), else DFC_EAGER_LIMIT. */
static uint64_t eager_limit_for(const dfc_tl_t *tl)
{
    /* atomic: shm lowers its own to 0 outside the lock (shm_rget) */
    uint64_t own = (uint64_t)__atomic_load_n(&tl->eager_limit, __ATOMIC_RELAXED);
    uint64_t lim = own ? own : eager_limit;
    return DFC_MIN2(lim, (uint64_t)tl->max_payload);
}

/* Send r's: a device send staged through a host shadow keeps the eager semantics that
 * DFC_GPU_EAGER_LIMIT promises (dfc(7)) where the transport's own limit is lower (shm's 4 KiB
 * against its 16 KiB default). A nonblocking collective's send with the progress thread
 * (eager_packet, exec.c) goes eagerly up to DFC_P2P_COLL_EAGER_MAX: a rendezvous needs the
 * receiver's thread to answer and the sender's to take the answer while the application
 * computes: the osu_iallreduce overlap of 8-16 KiB fell below 50 % in 7 of 12 measurements that
 * way (0-72 %) and in 2 of 24 eagerly (27-82 %; 16 cores, BENCHMARKS.md stop 43, call F). */
static uint64_t send_eager_limit(const dfc_req_t *r, const dfc_tl_t *tl)
{
    uint64_t lim = eager_limit_for(tl);
    if (r->nstages && dev_eager_limit > lim)
        lim = DFC_MIN2(dev_eager_limit, (uint64_t)tl->max_payload);
    if (r->eager_packet && lim < DFC_P2P_COLL_EAGER_MAX)
        lim = DFC_MIN2((uint64_t)DFC_P2P_COLL_EAGER_MAX, (uint64_t)tl->max_payload);
    return lim;
}

/* The EAGER or RTS packet that starts a message (dfc_p2p_isend, dfc_p2p_send_eager_now): an
 * EAGER packet carries the whole message; the caller adds flags, offset and a device payload. */
static inline void msg_header(dfc_pkt_t *pkt, int type, const dfc_comm_t *c, int coll_ctx, int tag,
                              uint64_t bytes, uint64_t sreq)
{
    memset(pkt, 0, sizeof *pkt);
    pkt->type = (uint8_t)type;
    pkt->ctx = c->ctx * 2 + (uint32_t)coll_ctx;
    pkt->src = c->rank;
    pkt->tag = tag;
    pkt->len = bytes;
    pkt->sreq = sreq;
    pkt->payload_len = type == DFC_PKT_EAGER ? (uint32_t)bytes : 0;
    pkt->src_world = (uint32_t)dfc_proc.world_rank;
}

/* Whether send r went as one EAGER packet (dfc_p2p_isend's choice): device and packed
 * sends go by rendezvous at any size, since their limits are the global DFC_EAGER_LIMIT
 * while a transport's own limit may be larger. */
static int went_eager(const dfc_req_t *r)
{
    return !r->dev && !r->pack_dt && r->bytes <= send_eager_limit(r, dfc_route[r->peer_world]);
}

int dfc_p2p_isend(dfc_comm_t *c, int coll_ctx, const void *buf, uint64_t bytes, int dst, int tag,
                  int sync, dfc_req_t *req)
{
    req->kind = DFC_REQ_SEND;
    req->comm = c;
    req->coll_ctx = coll_ctx;
    req->sbuf = buf;
    req->bytes = bytes;
    req->peer = dst;
    req->tag = tag;
    req->sync = sync;
    req->complete = 0;
    req->done = 0;
    dfc_status_empty(&req->status);
    if (dst == DFC_PROC_NULL) {
        req->status.DFC_SOURCE = DFC_PROC_NULL;
        req->status.DFC_TAG = DFC_ANY_TAG;
        dfc_req_complete(req);
        return DFC_SUCCESS;
    }
    int world = dfc_comm_peers(c)[dst];
    dfc_tl_t *tl = dfc_route[world];
    req->peer_world = world;
    int rc = dfc_fault_check(c, coll_ctx, world);
    if (rc) {
        fail_req(req, rc); /* through the request, so a collective's other steps stay valid */
        return DFC_SUCCESS;
    }
    dfc_pkt_t pkt;
    const void *payload = buf;
    if (req->dev) { /* a device buffer (see the top): RTS, with its IPC name on this node */
        msg_header(&pkt, DFC_PKT_RTS, c, coll_ctx, tag, bytes, req->id);
        pkt.flags = DFC_PKT_FLAG_DEV | (sync ? DFC_PKT_FLAG_SYNC : 0); /* SYNC: never held */
        pkt.offset = (uint64_t)(uintptr_t)buf;
        payload = NULL;
        if (world != dfc_proc.world_rank &&
            dfc_node_of[world] == dfc_node_of[dfc_proc.world_rank] &&
            (req->dev_ipc_ready || dfc_gpu_ipc_export(buf, &req->dev_ipc) == DFC_SUCCESS)) {
            pkt.payload_len = sizeof req->dev_ipc;
            payload = &req->dev_ipc;
        }
        req->dev_ipc_ready = 0; /* a persistent send's next start asks again */
    } else if (bytes <= send_eager_limit(req, tl) && !req->pack_dt) {
        msg_header(&pkt, DFC_PKT_EAGER, c, coll_ctx, tag, bytes, req->id);
        pkt.flags = sync ? DFC_PKT_FLAG_SYNC : 0;
    } else {
        msg_header(&pkt, DFC_PKT_RTS, c, coll_ctx, tag, bytes, req->id);
        pkt.flags = req->pack_dt ? DFC_PKT_FLAG_PACKED : 0;
        pkt.offset = (uint64_t)(uintptr_t)buf;
    }
    int waits = pkt.type == DFC_PKT_RTS || sync; /* for CTS/FIN or SACK */
    /* Its receiver will answer CTS: no IPC name (decided now: post_packet may complete, and
     * a Bsend free, a request that does not wait). */
    int early_stream = req->dev && !pkt.payload_len && bytes && !req->pack_dt &&
                       dfc_p2p_devstreams_open() < P2P_EARLY_STREAMS;
    if (waits) dfc_list_insert_tail(&await_reply, &req->link);
    if (pkt.type == DFC_PKT_EAGER && req->defer) /* the progress thread copies it out */
        rc = queue_packet(world, &pkt, payload, waits ? NULL : req);
    else
        rc = post_packet(world, &pkt, pkt.type == DFC_PKT_EAGER || req->dev ? payload : NULL,
                         waits ? NULL : req);
    if (rc) fail_req(req, rc);
    /* After the RTS left: opening the stream costs CUDA calls (tens of us under MPS). An RTS
     * that post_packet took leaves its request waiting in await_reply. */
    else if (early_stream && !req->complete) stream_dev(req, 0, (void *)buf, bytes);
    return DFC_SUCCESS;
}

/* The standard send of a small host message (issue 16): its EAGER packet goes to the
 * transport at once. Returns 1 when the transport took the packet; 0 when the caller must take
 * the general path, which then does everything as if this had not been tried: a device
 * buffer, a message above the eager limit, packets queued ahead to that peer, a failed peer,
 * a full ring. The message names no request (sreq, which only SACK and CANCEL use, is 0):
 * a blocking send has none, and DFC_Isend returns the shared completed request
 * (dfc_req_sent, request.c), which nothing can cancel. */
int dfc_p2p_send_eager_now(dfc_comm_t *c, const void *buf, uint64_t bytes, int dst, int tag)
{
    if (dst == DFC_PROC_NULL) return 0;
    int world = dfc_comm_peers(c)[dst];
    dfc_tl_t *tl = dfc_route[world];
    if (pending_per_world[world] || bytes > eager_limit_for(tl) || dfc_fault_check(c, 0, world) ||
        (bytes && dfc_stage_ops->is_device(buf)))
        return 0;
    dfc_pkt_t pkt;
    msg_header(&pkt, DFC_PKT_EAGER, c, 0, tag, bytes, 0);
    if (tl->ops->send(tl, world, &pkt, buf) != DFC_SUCCESS) return 0;
    dfc_progress_changed = 1; /* as post_packet: a sleeping thread of ours may wait for it */
    return 1;
}

static int matches(const dfc_req_t *r, const dfc_pkt_t *pkt)
{
    return req_ctx(r) == pkt->ctx && (r->peer == DFC_ANY_SOURCE || r->peer == pkt->src) &&
           (r->tag == DFC_ANY_TAG || r->tag == pkt->tag);
}

/* Host data for a receive buffer, which may be device memory (see the top). */
static void land(dfc_req_t *r, uint64_t off, const void *src, uint64_t n)
{
    if (!n) return;
    if (r->pack_dt) { /* bytes [off, off + n) of the packed message, into their places */
        dfc_dtype_unpack(r->pack_dt, r->rbuf, off, n, src);
        return;
    }
    if (!r->dev) {
        memcpy((char *)r->rbuf + off, src, n);
        return;
    }
    int rc = dfc_gpu_copy((char *)r->rbuf + off, src, n);
    if (rc && !r->status.DFC_ERROR) r->status.DFC_ERROR = rc;
}

/* A device buffer's DATA through pinned slots (p2p_dev.c); where that cannot start, the
 * fragments are copied one by one and synchronously, as before (fill_bounce, land). */
static void stream_dev(dfc_req_t *r, int is_recv, void *dev, uint64_t bytes)
{
    int rc = dfc_p2p_devstream_open(r, is_recv, dev, bytes);
    if (!rc) return;
    char why[256];
    dfc_err_message(rc, why, sizeof why);
    DFC_LOG(DFC_LOG_INFO, "p2p", "device %s of %llu bytes copied fragment by fragment: %s",
            is_recv ? "receive" : "send", (unsigned long long)bytes, why);
}

static void land_streamed(dfc_req_t *r, uint64_t off, const void *src, uint64_t n)
{
    int rc = dfc_p2p_devstream_land(r, off, src, n);
    if (!rc) return;
    if (!r->status.DFC_ERROR) r->status.DFC_ERROR = rc;
    dfc_p2p_devstream_close(r); /* the rest lands synchronously, the error reported */
}

/* Receives whose last chunks were copying to the device: complete once the copies end. */
static int progress_dev_lands(void)
{
    int events = 0, done, rc;
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &dev_lands)
    {
        dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        rc = r->devstream ? dfc_p2p_devstream_drained(r, &done) : (done = 1, 0);
        if (!done && !rc) continue;
        if (rc && !r->status.DFC_ERROR) r->status.DFC_ERROR = rc;
        dfc_list_remove(e);
        dfc_p2p_devstream_close(r);
        dfc_req_complete(r);
        events++;
    }
    return events;
}

/* Starts the copy out of the sender's device buffer for a matched DFC_PKT_FLAG_DEV RTS;
 * returns 0 when it cannot (no IPC name, no mapping: the caller asks for DATA instead). */
static int dev_pull(dfc_req_t *r, const dfc_pkt_t *pkt, const void *payload, uint64_t n)
{
    dfc_gpu_ipc_t name;
    int self = (int)pkt->src_world == dfc_proc.world_rank;
    if (!self && pkt->payload_len != sizeof name) return 0;
    if (!self) memcpy(&name, payload, sizeof name);
    int rc = dfc_gpu_copy_start(r->rbuf, (const void *)(uintptr_t)pkt->offset, (int)pkt->src_world,
                                self ? NULL : &name, n, &r->dev_op);
    if (rc) {
        char why[256];
        dfc_err_message(rc, why, sizeof why);
        DFC_LOG(DFC_LOG_INFO, "p2p", "device copy from world rank %u: %s; asking for packets",
                pkt->src_world, why);
        return 0;
    }
    dfc_list_insert_tail(&dev_pulls, &r->link);
    return 1;
}

/* The header of the rendezvous message a matched receive pulls, as its replies (FIN, CTS)
 * name it (send_ctrl_flags). */
static dfc_pkt_t matched_msg(const dfc_req_t *r)
{
    return (dfc_pkt_t){.ctx = req_ctx(r),
                       .tag = r->status.DFC_TAG,
                       .sreq = r->remote_id,
                       .src_world = (uint32_t)r->peer_world};
}

void dfc_p2p_fin(const dfc_pkt_t *msg) { send_ctrl(DFC_PKT_FIN, msg, 0); }

/* FIN to the sender of the message r pulls (its reply names the message), once. */
static void dev_pull_fin(dfc_req_t *r)
{
    if (r->dev_fin_sent) return;
    dfc_pkt_t msg = matched_msg(r);
    r->dev_fin_sent = 1;
    send_ctrl(DFC_PKT_FIN, &msg, 0); /* to a failed sender: refused, and nothing waits */
}

/* A device pull finished: FIN to the sender unless it went when the source was read, then
 * complete. */
static void dev_pull_done(dfc_req_t *r, int rc)
{
    dfc_list_remove(&r->link);
    r->dev_op = NULL;
    if (rc && !r->status.DFC_ERROR) r->status.DFC_ERROR = rc;
    dev_pull_fin(r);
    r->dev_fin_sent = 0; /* for its next start, whichever path that takes */
    dfc_req_complete(r);
}

/* The sender's buffer is free once the copy has read it, which the small-copy kernel tells
 * (DFC_GPU_KCOPY_EARLY_FIN) beside the fence that makes the bytes visible here: its FIN goes
 * then, so that the sender's next step overlaps the end of the copy. */
static int progress_dev_pulls(void)
{
    int events = 0, done, rc;
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &dev_pulls)
    {
        dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        rc = dfc_gpu_copy_test(r->dev_op, &done);
        if (!done) {
            if (!r->dev_fin_sent && dfc_gpu_copy_source_read(r->dev_op)) dev_pull_fin(r), events++;
            continue;
        }
        dev_pull_done(r, rc);
        events++;
    }
    return events;
}

/* A transport copy (rget_start, or rget without the lock) of r, now on no list, ended with
 * rc: FIN to the sender, then complete, as dev_pull_done; a failed sender fails the receive;
 * another error asks for this message as packets (CTS), which rewrite whatever the failed
 * copy left in the buffer, since the live sender waits for CTS or FIN. */
static void pull_finish(dfc_req_t *r, int rc)
{
    if (DFC_ERR_CLASS(rc) == DFC_ERR_PROC_FAILED) {
        fail_req(r, peer_gone(r->peer_world, rc));
        return;
    }
    if (!rc) {
        dev_pull_done(r, 0); /* FIN, complete */
        return;
    }
    if (DFC_ERR_CLASS(rc) != DFC_ERR_UNSUPPORTED_OPERATION) {
        char why[256];
        dfc_err_message(rc, why, sizeof why);
        DFC_LOG(DFC_LOG_INFO, "p2p",
                "pulling %llu bytes from world rank %d failed (%s); asking for them as packets",
                (unsigned long long)DFC_MIN2(r->msg_len, r->bytes), r->peer_world, why);
    }
    dfc_pkt_t msg = matched_msg(r);
    dfc_list_insert_tail(&rndv_recvs, &r->link);
    rc = send_ctrl(DFC_PKT_CTS, &msg, r->id);
    if (rc) fail_req(r, rc);
}

static int progress_tl_pulls(void)
{
    int events = 0, done, rc;
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &tl_pulls)
    {
        dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        dfc_tl_t *tl = dfc_route[r->peer_world];
        done = 0;
        rc = tl->ops->rget_test(tl, r->tl_op, &done);
        if (!done) continue;
        r->tl_op = NULL;
        events++;
        dfc_list_remove(e);
        pull_finish(r, rc);
    }
    return events;
}

/* rget's flags for r (dfc_tl.h). */
static inline unsigned pull_flags(const dfc_req_t *r)
{
    return r->pull_alone ? DFC_TL_RGET_ALONE : 0;
}

/* Receives whose rget runs without the library lock (dfc_tl.h, rget_unlocked: shm's
 * cross-memory attach). Under the lock, with the progress thread or several application
 * threads, a rendezvous copy held it for its whole length (7-15 ms at a few MiB, BENCHMARKS.md
 * stop 20) and every call of every other thread waited behind it (issue 16). Why this is
 * safe: each request is taken off the list under the lock, so exactly one thread copies it;
 * while it copies, the request is on no list, so nothing else completes, fails or reports it
 * (a peer that fails meanwhile is the copy's own result), and MPI keeps the user off its
 * buffer until it completes; the sender's buffer stays put until our FIN. The list is read
 * afresh after every copy, since other threads changed it meanwhile, and our caller walks no
 * p2p list across this call (dfc_p2p_progress_sends runs it first, dfc_progress_net last; a
 * scheduler pass that polls the network keeps other passes off its walk, as exec.c's
 * unlocked steps do). */
static int progress_unlocked_pulls(void)
{
    int events = 0;
    while (!dfc_list_empty(&unlocked_pulls)) {
        dfc_req_t *r = DFC_CONTAINER_OF(unlocked_pulls.next, dfc_req_t, link);
        dfc_list_remove(&r->link);
        dfc_tl_t *tl = dfc_route[r->peer_world];
        DFC_UNLOCK();
        int rc = tl->ops->rget(tl, r->peer_world, r->rbuf, r->pull_addr,
                               DFC_MIN2(r->msg_len, r->bytes), pull_flags(r));
        DFC_LOCK();
        pull_finish(r, rc);
        dfc_progress_changed = 1; /* another thread may wait for r */
        events++;
    }
    return events;
}

/* Starts a transport copy of a matched RTS where the transport can run several at once;
 * returns 1 when it runs, 0 when the caller goes on with rget or CTS. */
static int tl_pull(dfc_tl_t *tl, dfc_req_t *r, const dfc_pkt_t *pkt, uint64_t n)
{
    if (!tl->ops->rget_start || !n) return 0;
    int rc = tl->ops->rget_start(tl, (int)pkt->src_world, r->rbuf, pkt->offset, n, &r->tl_op);
    if (rc != DFC_SUCCESS) return 0; /* rget says the same (or runs, when out of slots) */
    dfc_list_insert_tail(&tl_pulls, &r->link);
    return 1;
}

/* A receive met message pkt: its status (a message longer than the buffer: DFC_ERR_TRUNCATE);
 * returns the bytes it takes. */
static uint64_t match_status(dfc_req_t *r, const dfc_pkt_t *pkt)
{
    uint64_t n = pkt->len;
    r->status.DFC_SOURCE = pkt->src;
    r->status.DFC_TAG = pkt->tag;
    r->peer_world = (int)pkt->src_world;
    if (n > r->bytes) {
        r->status.DFC_ERROR = dfc_err(
            DFC_ERR_TRUNCATE,
            r->func       ? r->func
            : r->coll_ctx ? "collective"
                          : "receive",
            "message of %llu bytes from rank %d (tag %d) is longer than the receive buffer of %llu bytes "
            "(argument %s too small)",
            (unsigned long long)pkt->len, pkt->src, pkt->tag, (unsigned long long)r->bytes,
            r->count_arg ? r->count_arg : "count");
        n = r->bytes;
    }
    dfc_status_set_bytes(&r->status, n);
    return n;
}

/* A receive met its message (EAGER data in hand, or an RTS). */
static void recv_matched(dfc_req_t *r, const dfc_pkt_t *pkt, const void *payload)
{
    uint64_t n = match_status(r, pkt);
    if (pkt->type == DFC_PKT_EAGER) {
        land(r, 0, payload, n);
        if (pkt->flags & DFC_PKT_FLAG_SYNC) send_ctrl(DFC_PKT_SACK, pkt, 0);
        dfc_req_complete(r);
        return;
    }
    /* The data of a rendezvous is still at the sender: if it is gone, so is the data. */
    int rc = dfc_fault_check(NULL, 0, (int)pkt->src_world);
    if (rc) {
        fail_req(r, rc);
        return;
    }
    r->remote_id = pkt->sreq;
    r->msg_len = pkt->len;
    r->done = 0;
    /* DFC_RGET=0 asks for DATA packets from device senders too (tests stream with it). */
    if ((pkt->flags & DFC_PKT_FLAG_DEV) && rget_enabled && !r->pack_dt &&
        dev_pull(r, pkt, payload, n))
        return;
    dfc_tl_t *tl = dfc_route[pkt->src_world];
    /* Cross-memory attach reads and writes host memory only, and only up to the transport's
     * rget_max where it sets one (above, the sender streams DATA packets after the CTS). */
    if (rget_enabled && tl->ops->rget && !r->dev && !r->pack_dt &&
        !(pkt->flags & (DFC_PKT_FLAG_DEV | DFC_PKT_FLAG_PACKED)) &&
        (!tl->rget_max || n <= tl->rget_max)) {
        if (tl_pull(tl, r, pkt, n)) return;
        if (n && tl->ops->rget_unlocked && dfc_lock_enabled) { /* progress_unlocked_pulls */
            r->pull_addr = pkt->offset;
            dfc_list_insert_tail(&unlocked_pulls, &r->link);
            return;
        }
        pull_finish(r, n ? tl->ops->rget(tl, (int)pkt->src_world, r->rbuf, pkt->offset, n,
                                         pull_flags(r))
                         : DFC_SUCCESS);
        return;
    }
    dfc_list_insert_tail(&rndv_recvs, &r->link);
    rc = send_ctrl(DFC_PKT_CTS, pkt, r->id);
    if (rc) fail_req(r, rc);
}

int dfc_p2p_irecv(dfc_comm_t *c, int coll_ctx, void *buf, uint64_t bytes, int src, int tag,
                  dfc_req_t *req)
{
    req->kind = DFC_REQ_RECV;
    req->comm = c;
    req->coll_ctx = coll_ctx;
    req->rbuf = buf;
    req->bytes = bytes;
    req->peer = src;
    req->tag = tag;
    req->complete = 0;
    req->cancelled = 0;
    dfc_status_empty(&req->status);
    if (src == DFC_PROC_NULL) {
        req->status.DFC_SOURCE = DFC_PROC_NULL;
        req->status.DFC_TAG = DFC_ANY_TAG;
        dfc_req_complete(req);
        return DFC_SUCCESS;
    }
    dfc_list_t *e, *t;
    /* A collective's transfer on a communicator with a failed member fails at once, so that
     * the collective fails on every live rank. A point-to-point message that arrived before
     * its sender failed is still received (matched first); only a receive from a failed
     * rank that could wait forever fails. */
    int failed = dfc_fault_check(c, coll_ctx, src == DFC_ANY_SOURCE ? -1 : dfc_comm_peers(c)[src]);
    if (failed && coll_ctx) {
        dfc_list_init(&req->link);
        fail_req(req, failed);
        return DFC_SUCCESS;
    }
    DFC_LIST_FOREACH_SAFE(e, t, &unexpected_msgs)
    {
        unexp_msg_t *u = DFC_CONTAINER_OF(e, unexp_msg_t, link);
        if (!matches(req, &u->pkt)) continue;
        dfc_list_remove(e);
        if (u->pkt.type == DFC_PKT_EAGER) unexpected_bytes -= u->pkt.payload_len;
        msg_matched(req, u);
        return DFC_SUCCESS;
    }
    dfc_list_init(&req->link);
    if (failed && src != DFC_ANY_SOURCE) {
        fail_req(req, failed);
        return DFC_SUCCESS;
    }
    dfc_list_insert_tail(&posted_recvs, &req->link);
    return DFC_SUCCESS;
}

/* A receive met a held device message (p2p_hold.c): a copy out of the hold, or for a
 * non-contiguous host receive, through host memory. */
static void held_matched(dfc_req_t *r, unexp_msg_t *u)
{
    r->peer_world = (int)u->pkt.src_world;
    uint64_t n = match_status(r, &u->pkt);
    if (!r->pack_dt) {
        dfc_p2p_hold_deliver(u->hold, r, n);
        return;
    }
    void *tmp = malloc(n ? n : 1);
    int rc = dfc_p2p_hold_take(u->hold, tmp, tmp ? n : 0);
    if (!tmp) rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a held device message");
    if (!rc) land(r, 0, tmp, n);
    else if (!r->status.DFC_ERROR) r->status.DFC_ERROR = rc;
    free(tmp);
    dfc_req_complete(r);
}

/* A receive met unexpected message u, which it frees. */
static void msg_matched(dfc_req_t *r, unexp_msg_t *u)
{
    if (u->hold && !dfc_p2p_hold_claim(u->hold)) u->hold = NULL; /* not started: rendezvous */
    if (u->hold) held_matched(r, u);
    else recv_matched(r, &u->pkt, u->data);
    free(u); /* its data with it */
}

/* A device message (an RTS naming a device buffer) that the receiver may hold until its
 * receive comes, so that its send completes (p2p_hold.c): plain sends of at most
 * DFC_GPU_EAGER_LIMIT bytes with an IPC name or from this process. */
static int holdable(const dfc_pkt_t *pkt)
{
    return pkt->type == DFC_PKT_RTS && (pkt->flags & DFC_PKT_FLAG_DEV) &&
           !(pkt->flags & DFC_PKT_FLAG_SYNC) && !(pkt->ctx & 1) && pkt->len &&
           pkt->len <= dev_eager_limit && dev_enabled && rget_enabled &&
           ((int)pkt->src_world == dfc_proc.world_rank ||
            pkt->payload_len == sizeof(dfc_gpu_ipc_t));
}

static void store_unexpected(const dfc_pkt_t *pkt, const void *payload)
{
    size_t keep = 0; /* EAGER data, or a device buffer's IPC name in an RTS */
    if (pkt->type == DFC_PKT_EAGER && pkt->payload_len) {
        unexpected_bytes += pkt->payload_len;
        if (unexpected_bytes > unexpected_limit)
            dfc_fatal(
                "rank %d holds %zu bytes of unexpected messages (limit DFC_UNEXPECTED_LIMIT=%zu): "
                "a sender floods it with messages that are not received",
                dfc_proc.world_rank, unexpected_bytes, unexpected_limit);
        keep = pkt->payload_len;
    } else if (pkt->type == DFC_PKT_RTS && pkt->payload_len) keep = pkt->payload_len;
    unexp_msg_t *u = malloc(sizeof *u + keep);
    if (!u)
        dfc_fatal("out of memory buffering an unexpected message from world rank %u",
                  pkt->src_world);
    void *data = keep ? (void *)(u + 1) : NULL;
    if (data) memcpy(data, payload, keep);
    u->pkt = *pkt;
    u->data = data;
    u->hold = holdable(pkt) ? dfc_p2p_hold_new(pkt, payload) : NULL;
    dfc_list_insert_tail(&unexpected_msgs, &u->link);
}

void dfc_p2p_deliver(const dfc_pkt_t *pkt, const void *payload)
{
    dfc_req_t *r;
    switch (pkt->type) {
    case DFC_PKT_EAGER:
    case DFC_PKT_RTS: {
        dfc_list_t *e;
        if (pkt->type == DFC_PKT_EAGER && pkt->len != pkt->payload_len) { /* before any copy */
            DFC_LOG(DFC_LOG_ERROR, "p2p",
                    "dropping an eager packet from world rank %u: len %llu "
                    "!= payload %u bytes",
                    pkt->src_world, (unsigned long long)pkt->len, pkt->payload_len);
            return;
        }
        for (e = posted_recvs.next; e != &posted_recvs; e = e->next) {
            r = DFC_CONTAINER_OF(e, dfc_req_t, link);
            if (!matches(r, pkt)) continue;
            dfc_list_remove(e);
            recv_matched(r, pkt, payload);
            return;
        }
        if (!refuse_dead_rts(pkt)) store_unexpected(pkt, payload);
        return;
    }
    case DFC_PKT_CTS:
        if (!(r = find_waiting(&await_reply, pkt->sreq, pkt, 0))) return;
        dfc_list_remove(&r->link);
        r->remote_id = pkt->rreq;
        r->done = 0;
        dfc_list_insert_tail(&rndv_sends, &r->link);
        if (r->dev && !r->pack_dt && r->bytes && !r->devstream)
            stream_dev(r, 0, (void *)r->sbuf, r->bytes);
        return;
    case DFC_PKT_DATA:
        if (!(r = find_waiting(&rndv_recvs, pkt->rreq, pkt, 1))) return;
        if (pkt->offset < r->bytes) {
            uint64_t n = DFC_MIN2((uint64_t)pkt->payload_len, r->bytes - pkt->offset);
            if (r->dev && !r->pack_dt && !r->done)
                stream_dev(r, 1, r->rbuf, DFC_MIN2(r->bytes, r->msg_len));
            if (r->devstream) land_streamed(r, pkt->offset, payload, n);
            else land(r, pkt->offset, payload, n);
        }
        r->done += pkt->payload_len;
        if (r->done >= r->msg_len) {
            dfc_list_remove(&r->link);
            if (r->devstream) dfc_list_insert_tail(&dev_lands, &r->link); /* copies run */
            else dfc_req_complete(r);
        }
        return;
    case DFC_PKT_FIN:
    case DFC_PKT_SACK:
        if (!(r = find_waiting(&await_reply, pkt->sreq, pkt, 0))) return;
        dfc_list_remove(&r->link);
        dfc_p2p_devstream_close(r); /* opened before a CTS that did not come */
        if ((pkt->flags & DFC_PKT_FLAG_NODATA) && !r->status.DFC_ERROR) {
            /* The receiver knew of a failure before us: declare it (rreq names it). */
            if (pkt->rreq && pkt->rreq <= (uint64_t)dfc_proc.world_size)
                dfc_fault_peer((int)pkt->rreq - 1,
                               dfc_err(DFC_ERR_PROC_FAILED, "p2p", "reported by world rank %u",
                                       pkt->src_world),
                               "p2p");
            int code = dfc_fault_check(r->comm, r->coll_ctx, -1);
            r->status.DFC_ERROR =
                code
                    ? code
                    : dfc_err(
                          DFC_ERR_PROC_FAILED, "collective",
                          "world rank %u dropped the transfer: a member of the communicator failed",
                          pkt->src_world);
        }
        dfc_req_complete(r);
        return;
    case DFC_PKT_CANCEL: cancel_arrived(pkt); return;
    case DFC_PKT_CANCEL_ACK: cancel_answered(pkt); return;
    default:
        DFC_LOG(DFC_LOG_ERROR, "p2p", "dropping packet of unknown type %d from world rank %u",
                pkt->type, pkt->src_world);
    }
}

/* Puts bytes [r->done, r->done + frag) of send r into the bounce buffer and points *src
 * there: a device buffer the receiver could not map is copied out, a non-contiguous one
 * packed. The transport copies the fragment before send returns, so one buffer serves all. */
static int fill_bounce(dfc_req_t *r, uint64_t frag, const void **src)
{
    if (bounce_size < frag) {
        void *b = realloc(bounce, frag);
        if (!b)
            return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a %llu-byte bounce buffer",
                           (unsigned long long)frag);
        bounce = b;
        bounce_size = frag;
    }
    if (r->pack_dt) {
        dfc_dtype_pack(r->pack_dt, r->sbuf, r->done, frag, bounce);
    } else {
        int rc = dfc_gpu_copy(bounce, *src, frag);
        if (rc) return rc;
    }
    *src = bounce;
    return DFC_SUCCESS;
}

/* Bytes one rendezvous send may hand its transport in one progress pass. Without a bound a
 * receiver that drains as fast as we write (loopback tcp) kept one pass writing a whole
 * 256 MiB message: no receive, no other peer and no other send moved meanwhile, and a
 * DFC_Test after Isend did the entire transfer inside one call. 4 MiB is about a millisecond
 * of a fast link and costs one pass (a microsecond) per 4 MiB. */
#define P2P_PUMP_PASS_BYTES ((uint64_t)4 << 20)

/* Streams DATA fragments of one rendezvous send, at most P2P_PUMP_PASS_BYTES; returns 1
 * when all were accepted. A lost peer is left to the caller (*gone): declaring it changes
 * the list being walked. */
static int pump_rendezvous(dfc_req_t *r, int *events, int *gone)
{
    dfc_tl_t *tl = dfc_route[r->peer_world];
    dfc_pkt_t pkt = {0};
    pkt.type = DFC_PKT_DATA;
    pkt.ctx = req_ctx(r);
    pkt.tag = r->tag;
    pkt.rreq = r->remote_id;
    pkt.src_world = (uint32_t)dfc_proc.world_rank;
    uint64_t pass_end = r->done + P2P_PUMP_PASS_BYTES;
    while (r->done < r->bytes) {
        if (r->done >= pass_end) return 0; /* the rest in later passes (counted as events) */
        uint64_t frag = DFC_MIN2((uint64_t)tl->max_payload, r->bytes - r->done);
        pkt.offset = r->done;
        pkt.payload_len = (uint32_t)frag;
        const void *src = (const char *)r->sbuf + r->done;
        if (r->devstream) { /* from the chunk's slot, once its copy is done */
            uint64_t avail;
            int rc = dfc_p2p_devstream_peek(r, r->done, &avail, &src);
            if (rc) {
                r->status.DFC_ERROR = rc;
                return 1;
            }
            if (!avail) return 0;
            frag = DFC_MIN2(frag, avail);
            pkt.payload_len = (uint32_t)frag;
        } else if (r->dev || r->pack_dt) { /* the fragment's bytes, contiguous in host memory */
            int rc = fill_bounce(r, frag, &src);
            if (rc) {
                r->status.DFC_ERROR = rc;
                return 1;
            }
        }
        int rc = tl->ops->send(tl, r->peer_world, &pkt, src);
        if (rc == DFC_TL_AGAIN) return 0;
        if (DFC_ERR_CLASS(rc) == DFC_ERR_PROC_FAILED) {
            *gone = rc;
            return 0;
        }
        if (rc) {
            r->status.DFC_ERROR = rc;
            return 1;
        }
        r->done += frag;
        (*events)++;
        if (r->devstream && (rc = dfc_p2p_devstream_sent(r, r->done))) {
            r->status.DFC_ERROR = rc;
            return 1;
        }
    }
    return 1;
}

int dfc_p2p_progress_sends(void)
{
    /* Every poll of every wait comes here: nothing to do is the common case (issue 16). */
    if (dfc_p2p_idle()) return 0;
    int events = 0, gone_world = -1, gone_rc = 0, rc;
    dfc_list_t *e, *t;
    if (!dfc_list_empty(&unlocked_pulls)) events += progress_unlocked_pulls(); /* first */
    if (!dfc_list_empty(&dev_pulls)) events += progress_dev_pulls();
    if (dfc_p2p_holds_busy()) events += dfc_p2p_hold_progress();
    if (!dfc_list_empty(&tl_pulls)) events += progress_tl_pulls();
    if (!dfc_list_empty(&dev_lands)) events += progress_dev_lands();
    if (!dfc_list_empty(&pending_pkts)) {
        /* A destination that refuses a packet is skipped for the rest of the pass, so that
         * later packets to it cannot overtake; other destinations still move. */
        pass_stamp++;
        DFC_LIST_FOREACH_SAFE(e, t, &pending_pkts)
        {
            pending_pkt_t *p = DFC_CONTAINER_OF(e, pending_pkt_t, link);
            if (blocked_stamp[p->world] == pass_stamp) continue;
            dfc_tl_t *tl = dfc_route[p->world];
            rc = tl->ops->send(tl, p->world, &p->pkt, p->payload);
            if (rc == DFC_TL_AGAIN || DFC_ERR_CLASS(rc) == DFC_ERR_PROC_FAILED) {
                if (rc != DFC_TL_AGAIN && !gone_rc) gone_world = p->world, gone_rc = rc;
                blocked_stamp[p->world] = pass_stamp;
                continue;
            }
            dfc_list_remove(e);
            pending_per_world[p->world]--;
            if (p->complete_on_accept) {
                if (rc) p->complete_on_accept->status.DFC_ERROR = rc;
                dfc_req_complete(p->complete_on_accept);
            }
            free(p);
            events++;
        }
    }
    DFC_LIST_FOREACH_SAFE(e, t, &rndv_sends)
    {
        dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        rc = 0;
        if (!pump_rendezvous(r, &events, &rc)) {
            if (rc && !gone_rc) gone_world = r->peer_world, gone_rc = rc;
            continue;
        }
        dfc_list_remove(e);
        dfc_p2p_devstream_close(r); /* every chunk was taken: no copy runs */
        dfc_req_complete(r);
    }
    if (gone_rc) { /* outside the walks: the failure's code names the rank (EPIPE, reset) */
        dfc_p2p_fail_peer(gone_world, peer_gone(gone_world, gone_rc));
        events++;
    }
    return events;
}

int dfc_p2p_iprobe(dfc_comm_t *c, int src, int tag, int *flag, DFC_Status *status)
{
    dfc_req_t probe = {0};
    probe.comm = c;
    probe.peer = src;
    probe.tag = tag;
    *flag = 0;
    if (src == DFC_PROC_NULL) {
        *flag = 1;
        if (status != DFC_STATUS_IGNORE) {
            dfc_status_empty(status);
            status->DFC_SOURCE = DFC_PROC_NULL;
        }
        return DFC_SUCCESS;
    }
    dfc_list_t *e;
    for (e = unexpected_msgs.next; e != &unexpected_msgs; e = e->next) {
        unexp_msg_t *u = DFC_CONTAINER_OF(e, unexp_msg_t, link);
        if (!matches(&probe, &u->pkt)) continue;
        *flag = 1;
        if (status != DFC_STATUS_IGNORE) {
            dfc_status_empty(status);
            status->DFC_SOURCE = u->pkt.src;
            status->DFC_TAG = u->pkt.tag;
            dfc_status_set_bytes(status, u->pkt.len);
        }
        break;
    }
    return DFC_SUCCESS;
}

int dfc_p2p_cancel_recv(dfc_req_t *req)
{
    if (req->complete) return DFC_SUCCESS; /* too late: it matched */
    dfc_list_t *e;
    for (e = posted_recvs.next; e != &posted_recvs; e = e->next) {
        if (e != &req->link) continue;
        dfc_list_remove(e);
        req->cancelled = 1;
        req->status.count_hi_and_cancelled |= 1;
        dfc_req_complete(req);
        break;
    }
    return DFC_SUCCESS;
}

/* ---- Peer failure (fault.c calls this once per failed world rank) -------------------------
 * Fails every operation that depends on `world`: those with it as the peer, wildcard
 * receives on communicators that contain it (ULFM's rule: the message they wait for may
 * have been the dead rank's), and every transfer of a collective on such a communicator,
 * whatever its peer (the live peer's side fails too, as it detects the same failure). */
static int depends(const dfc_req_t *r, int world, int matched)
{
    if (r->coll_ctx && dfc_comm_has_member(r->comm, world)) return 1;
    if (matched) return r->peer_world == world; /* its peer is known */
    if (r->peer == DFC_ANY_SOURCE) return dfc_comm_has_member(r->comm, world);
    return dfc_comm_peers(r->comm)[r->peer] == world;
}

/* A collective's rendezvous send to a live peer whose RTS may be read (see comm_of_ctx). */
static int keeps_buffer(const dfc_req_t *r, int world, dfc_list_t *list)
{
    return list == &await_reply && r->peer_world != world && r->coll_ctx &&
           !(r->sync && went_eager(r));
}

void dfc_p2p_fail_peer(int world, int code)
{
    /* Not dev_lands: every byte of those arrived; they complete as a host receive would. */
    dfc_list_t *lists[] = {&posted_recvs, &rndv_recvs, &await_reply,   &rndv_sends,
                           &dev_pulls,    &tl_pulls,   &unlocked_pulls};
    dfc_list_t *e, *t;
    for (int i = 0; i < 7; i++) DFC_LIST_FOREACH_SAFE(e, t, lists[i])
        {
            dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
            if (!depends(r, world, i > 0)) continue;
            /* A copy in flight still writes the buffer: it completes when it ends (a
             * transport copy from a failed peer ends with the failure, rget_test). */
            if (keeps_buffer(r, world, lists[i]) || lists[i] == &dev_pulls ||
                lists[i] == &tl_pulls) {
                if (!r->status.DFC_ERROR) r->status.DFC_ERROR = code; /* at FIN or CTS */
                continue;
            }
            fail_req(r, code);
        }
    DFC_LIST_FOREACH_SAFE(e, t, &unexpected_msgs)
    { /* RTS nobody here will match now */
        unexp_msg_t *u = DFC_CONTAINER_OF(e, unexp_msg_t, link);
        if (!refuse_dead_rts(&u->pkt)) continue; /* (never a held message: collective) */
        dfc_list_remove(e);
        free(u); /* its data with it */
    }
    DFC_LIST_FOREACH_SAFE(e, t, &pending_pkts)
    {
        pending_pkt_t *p = DFC_CONTAINER_OF(e, pending_pkt_t, link);
        if (p->world != world) continue;
        dfc_list_remove(e);
        pending_per_world[world]--;
        if (p->complete_on_accept) {
            p->complete_on_accept->status.DFC_ERROR = code;
            dfc_req_complete(p->complete_on_accept);
        }
        free(p);
    }
    cancels_fail_peer(world);
}

/* ---- The hang report ----------------------------------------------------------------------
 * One line per pending operation; "(collective)" marks the transfers of collectives, which
 * use the communicator's collective context. A rendezvous send appears once: waiting for the
 * receiver's CTS/FIN (its RTS perhaps still queued), or streaming DATA. */
static const char *ctx_note(uint32_t ctx) { return (ctx & 1) ? " (collective)" : ""; }

/* Receives that matched and whose bytes are on their way by a copy of ours. */
static void report_matched(FILE *f, dfc_list_t *l, const char *what)
{
    for (dfc_list_t *e = l->next; e != l; e = e->next) {
        dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        fprintf(f,
                "[dfc hang report] rank %d: p2p recv from %d tag %d comm %u%s (%s: %llu bytes)\n",
                dfc_proc.world_rank, r->status.DFC_SOURCE, r->status.DFC_TAG, r->comm->ctx,
                r->coll_ctx ? " (collective)" : "", what, (unsigned long long)r->msg_len);
    }
}

/* Messages that arrived before their receive: the first few, then how many more. */
static void report_unexpected(FILE *f)
{
    enum { SHOWN = 16 };
    int n = 0;
    for (dfc_list_t *e = unexpected_msgs.next; e != &unexpected_msgs; e = e->next, n++) {
        const unexp_msg_t *u = DFC_CONTAINER_OF(e, unexp_msg_t, link);
        if (n >= SHOWN) continue;
        fprintf(f,
                "[dfc hang report] rank %d: p2p message from world rank %u tag %d comm %u%s "
                "(unexpected: no receive matched it; %s, %llu bytes%s%s)\n",
                dfc_proc.world_rank, u->pkt.src_world, u->pkt.tag, u->pkt.ctx / 2,
                ctx_note(u->pkt.ctx), u->pkt.type == DFC_PKT_EAGER ? "eager" : "rendezvous",
                (unsigned long long)u->pkt.len, u->hold ? ", device, " : "",
                u->hold ? dfc_p2p_hold_state(u->hold) : "");
    }
    if (n > SHOWN)
        fprintf(f, "[dfc hang report] rank %d: and %d more unexpected messages\n",
                dfc_proc.world_rank, n - SHOWN);
}

void dfc_p2p_report(FILE *f)
{
    int me = dfc_proc.world_rank;
    dfc_list_t *e;
    for (e = posted_recvs.next; e != &posted_recvs; e = e->next) {
        dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        char src[16], tag[16];
        if (r->peer == DFC_ANY_SOURCE) snprintf(src, sizeof src, "any");
        else snprintf(src, sizeof src, "%d", r->peer);
        if (r->tag == DFC_ANY_TAG) snprintf(tag, sizeof tag, "any");
        else snprintf(tag, sizeof tag, "%d", r->tag);
        fprintf(
            f, "[dfc hang report] rank %d: p2p recv from %s tag %s comm %u%s (%llu bytes posted)\n",
            me, src, tag, r->comm->ctx, r->coll_ctx ? " (collective)" : "",
            (unsigned long long)r->bytes);
    }
    for (e = pending_pkts.next; e != &pending_pkts; e = e->next) {
        pending_pkt_t *p = DFC_CONTAINER_OF(e, pending_pkt_t, link);
        if (p->pkt.type != DFC_PKT_EAGER) continue; /* an RTS: listed with await_reply */
        fprintf(f,
                "[dfc hang report] rank %d: p2p send to world rank %d tag %d comm %u%s "
                "(eager, 0/%llu bytes, queued: the transport is full)\n",
                me, p->world, p->pkt.tag, p->pkt.ctx / 2, ctx_note(p->pkt.ctx),
                (unsigned long long)p->pkt.len);
    }
    for (e = await_reply.next; e != &await_reply; e = e->next) {
        dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        fprintf(f,
                "[dfc hang report] rank %d: p2p send to %d tag %d comm %u%s "
                "(%s, 0/%llu bytes, waiting for the receiver's %s)\n",
                me, r->peer, r->tag, r->comm->ctx, r->coll_ctx ? " (collective)" : "",
                r->sync && went_eager(r) ? "synchronous" : "rendezvous",
                (unsigned long long)r->bytes, r->sync && went_eager(r) ? "match" : "CTS");
    }
    for (e = rndv_recvs.next; e != &rndv_recvs; e = e->next) {
        dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        fprintf(f,
                "[dfc hang report] rank %d: p2p recv from %d tag %d comm %u%s "
                "(rendezvous, %llu/%llu bytes, matched, waiting for DATA)\n",
                me, r->status.DFC_SOURCE, r->status.DFC_TAG, r->comm->ctx,
                r->coll_ctx ? " (collective)" : "", (unsigned long long)r->done,
                (unsigned long long)r->msg_len);
    }
    report_matched(f, &dev_pulls, "device, matched, copying out of the sender's buffer");
    report_matched(f, &dev_lands, "device, every byte arrived, copying the last chunks in");
    dfc_p2p_hold_report(f);
    report_matched(f, &tl_pulls, "rendezvous, matched, reading the sender's buffer");
    report_matched(f, &unlocked_pulls,
                   "rendezvous, matched, its read of the sender's buffer queued");
    for (e = rndv_sends.next; e != &rndv_sends; e = e->next) {
        dfc_req_t *r = DFC_CONTAINER_OF(e, dfc_req_t, link);
        fprintf(f,
                "[dfc hang report] rank %d: p2p send to %d tag %d comm %u%s "
                "(rendezvous, %llu/%llu bytes)\n",
                me, r->peer, r->tag, r->comm->ctx, r->coll_ctx ? " (collective)" : "",
                (unsigned long long)r->done, (unsigned long long)r->bytes);
    }
    report_cancels(f);
    report_unexpected(f);
}

/* ---- Matched probe and send cancellation (issue 17, part 3) -------------------------------
 * Improbe takes the message off the unexpected queue, so that no other receive or probe can
 * match it; Imrecv then receives it as a receive that met it (eager data copied, or the
 * rendezvous answered). A message whose sender failed meanwhile fails there, as a receive of
 * it would have. */
int dfc_p2p_improbe(dfc_comm_t *c, int src, int tag, int *flag, dfc_p2p_msg_t **msg,
                    DFC_Status *status)
{
    dfc_req_t probe = {0};
    dfc_list_t *e;
    probe.comm = c;
    probe.peer = src;
    probe.tag = tag;
    *flag = 0;
    for (e = unexpected_msgs.next; e != &unexpected_msgs; e = e->next) {
        unexp_msg_t *u = DFC_CONTAINER_OF(e, unexp_msg_t, link);
        if (!matches(&probe, &u->pkt)) continue;
        dfc_list_remove(e);
        if (u->pkt.type == DFC_PKT_EAGER) unexpected_bytes -= u->pkt.payload_len;
        *flag = 1;
        *msg = u;
        if (status != DFC_STATUS_IGNORE) {
            dfc_status_empty(status);
            status->DFC_SOURCE = u->pkt.src;
            status->DFC_TAG = u->pkt.tag;
            dfc_status_set_bytes(status, u->pkt.len);
        }
        break;
    }
    return DFC_SUCCESS;
}

int dfc_p2p_imrecv(dfc_comm_t *c, dfc_p2p_msg_t *m, void *buf, uint64_t bytes, dfc_req_t *req)
{
    req->kind = DFC_REQ_RECV;
    req->comm = c;
    req->coll_ctx = 0;
    req->rbuf = buf;
    req->bytes = bytes;
    req->peer = m->pkt.src;
    req->tag = m->pkt.tag;
    req->complete = 0;
    req->cancelled = 0;
    dfc_status_empty(&req->status);
    dfc_list_init(&req->link);
    msg_matched(req, m);
    return DFC_SUCCESS;
}

void dfc_p2p_msg_free(dfc_p2p_msg_t *m)
{
    if (m->hold) dfc_p2p_hold_drop(m->hold);
    free(m); /* its data with it */
}

/* Cancelling a send (MPI-4.1 3.8.4: it succeeds only if the message has not matched).
 * While its first packet (EAGER or RTS) still waits in this process, it is dropped here.
 * Once sent, the receiver is asked (CANCEL): if the message is still in its unexpected
 * queue it removes it and answers CANCELLED, else it answers without; the send completes
 * cancelled, or as it would have. An eager send that completed locally is made incomplete
 * again until the answer comes, so that Wait says which. A send that is streaming its data
 * has matched: nothing is asked. */
typedef struct send_cancel {
    dfc_list_t link;
    dfc_req_t *req;
    int world;
    int reopened; /* the send had completed locally (eager): complete it again at the answer */
} send_cancel_t;

static void cancel_done(dfc_req_t *req)
{
    req->cancelled = 1;
    req->status.count_hi_and_cancelled |= 1;
    dfc_p2p_devstream_close(req); /* a device send's copies issued before the CTS */
    if (!req->complete) dfc_req_complete(req);
}

static int in_list(dfc_list_t *l, dfc_list_t *x)
{
    for (dfc_list_t *e = l->next; e != l; e = e->next)
        if (e == x) return 1;
    return 0;
}

static int cancel_settled(void *arg) { return ((dfc_req_t *)arg)->cancel_state == 0; }

int dfc_p2p_cancel_send(dfc_req_t *req)
{
    dfc_list_t *e, *t;
    if (req->cancelled || req->cancel_state || req->peer == DFC_PROC_NULL || req->status.DFC_ERROR)
        return DFC_SUCCESS;
    DFC_LIST_FOREACH_SAFE(e, t, &pending_pkts)
    {
        pending_pkt_t *p = DFC_CONTAINER_OF(e, pending_pkt_t, link);
        int first = p->pkt.type == DFC_PKT_EAGER || p->pkt.type == DFC_PKT_RTS;
        if (!first || p->pkt.sreq != req->id || p->world != req->peer_world) continue;
        dfc_list_remove(e);
        pending_per_world[p->world]--;
        if (!p->complete_on_accept) dfc_list_remove(&req->link); /* it awaited a reply */
        free(p);
        cancel_done(req);
        return DFC_SUCCESS;
    }
    /* Matched already: streaming its data, or completed by the receiver's CTS/FIN/SACK. */
    if (!req->complete && !in_list(&await_reply, &req->link)) return DFC_SUCCESS;
    if (req->complete && (req->sync || !went_eager(req))) return DFC_SUCCESS;
    send_cancel_t *sc = malloc(sizeof *sc);
    if (!sc) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory cancelling a send");
    sc->req = req;
    sc->world = req->peer_world;
    sc->reopened = req->complete;
    req->complete = 0;
    req->cancel_state = 1;
    dfc_list_insert_tail(&send_cancels, &sc->link); /* before the packet: self may answer now */
    dfc_pkt_t pkt = {0};
    pkt.type = DFC_PKT_CANCEL;
    pkt.ctx = req_ctx(req);
    pkt.tag = req->tag;
    pkt.sreq = req->id;
    pkt.src_world = (uint32_t)dfc_proc.world_rank;
    int rc = post_packet(req->peer_world, &pkt, NULL, NULL);
    if (rc && req->cancel_state) { /* no answer will come: the send stands */
        int reopened = sc->reopened;
        dfc_list_remove(&sc->link);
        free(sc);
        req->cancel_state = 0;
        if (reopened) dfc_req_complete(req);
    }
    /* A send to this process itself is answered here and now (as MPICH does): a program may
     * read the outcome with Request_get_status right after Cancel, and mpi4py's
     * test_p2p_buf then receives the message when it was not cancelled; answered later,
     * the message was gone by then and the receive waited forever. */
    if (!rc && req->cancel_state && req->peer_world == dfc_proc.world_rank)
        return dfc_progress_wait(cancel_settled, req);
    return DFC_SUCCESS;
}

/* The receiver's side: removes the message if nobody matched it, and says so. */
static void cancel_arrived(const dfc_pkt_t *pkt)
{
    int flags = 0;
    dfc_list_t *e;
    for (e = unexpected_msgs.next; e != &unexpected_msgs; e = e->next) {
        unexp_msg_t *u = DFC_CONTAINER_OF(e, unexp_msg_t, link);
        if (u->pkt.src_world != pkt->src_world || u->pkt.sreq != pkt->sreq ||
            u->pkt.ctx != pkt->ctx)
            continue;
        if (u->hold && !dfc_p2p_hold_cancel(u->hold)) break; /* its FIN completed the send */
        dfc_list_remove(e);
        if (u->pkt.type == DFC_PKT_EAGER) unexpected_bytes -= u->pkt.payload_len;
        free(u); /* its data with it */
        flags = DFC_PKT_FLAG_CANCELLED;
        break;
    }
    send_ctrl_flags(DFC_PKT_CANCEL_ACK, flags, pkt, 0);
}

static void cancel_answered(const dfc_pkt_t *pkt)
{
    dfc_list_t *e;
    for (e = send_cancels.next; e != &send_cancels; e = e->next) {
        send_cancel_t *sc = DFC_CONTAINER_OF(e, send_cancel_t, link);
        if (sc->req->id != pkt->sreq || sc->world != (int)pkt->src_world) continue;
        dfc_req_t *req = sc->req;
        dfc_list_remove(e);
        req->cancel_state = 0;
        if (pkt->flags & DFC_PKT_FLAG_CANCELLED) {
            if (!sc->reopened) dfc_list_remove(&req->link); /* no CTS, FIN or SACK will come */
            cancel_done(req);
        } else if (sc->reopened) {
            dfc_req_complete(req);
        }
        free(sc);
        return;
    }
}

/* The receiver failed: no answer will come. Sends it failed already are complete. */
static void cancels_fail_peer(int world)
{
    dfc_list_t *e, *t;
    DFC_LIST_FOREACH_SAFE(e, t, &send_cancels)
    {
        send_cancel_t *sc = DFC_CONTAINER_OF(e, send_cancel_t, link);
        if (sc->world != world) continue;
        dfc_list_remove(e);
        sc->req->cancel_state = 0;
        if (!sc->req->complete) dfc_req_complete(sc->req);
        free(sc);
    }
}
/* The hang report's lines for sends whose cancel waits for the receiver's answer. */
static void report_cancels(FILE *f)
{
    for (dfc_list_t *e = send_cancels.next; e != &send_cancels; e = e->next) {
        send_cancel_t *sc = DFC_CONTAINER_OF(e, send_cancel_t, link);
        fprintf(f,
                "[dfc hang report] rank %d: p2p send to %d tag %d comm %u (%llu bytes, "
                "cancelled, waiting for the receiver's answer)\n",
                dfc_proc.world_rank, sc->req->peer, sc->req->tag, sc->req->comm->ctx,
                (unsigned long long)sc->req->bytes);
    }
}
/* ---- end of issue 17, part 3 ---------------------------------------------------------- */
