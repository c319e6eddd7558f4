/*
 * daemon_plan.h - how the host side prepares a schedule for the GPU daemon: which
 * receive-reduce steps reduce on arrival, which mailbox FIFO a collective uses, and how many
 * channels it runs on. Pure functions of the schedule, shared by daemon.c and its unit test
 * (test/unit/test_gpu_plan.c), which runs without a GPU.
 */
#ifndef DFC_GPU_DAEMON_PLAN_H
#define DFC_GPU_DAEMON_PLAN_H

#include <stdlib.h>

#include "gpu/daemon_abi.h"

static inline int dfc_gpu_is_transfer(const dfc_step_t *st)
{
    return st->kind == DFC_STEP_SEND || st->kind == DFC_STEP_RECV ||
           st->kind == DFC_STEP_RECV_REDUCE;
}

/* The byte range a transfer step reads (send) or writes (receive) in its buffer. */
static inline void dfc_gpu_xfer_range(const dfc_step_t *st, uint64_t item, int *buf, uint64_t *lo,
                                      uint64_t *hi)
{
    int send = st->kind == DFC_STEP_SEND;
    *buf = send ? st->src_buf : st->dst_buf;
    *lo = send ? st->src_off : st->dst_off;
    *hi = *lo + (st->kind == DFC_STEP_RECV_REDUCE ? st->count * item : st->bytes);
}

/* Marks DFC_GPU_FUSED on the receive-reduce steps whose destination no other transfer of the
 * same fence group touches (item = bytes of one datatype item): no send reads it, no other
 * receive writes it. Those may reduce each chunk into the destination as it arrives,
 * skipping the trip through TMP. (A receive into the same range - the pairwise
 * reduce-scatter at 3 ranks receives B = x_(p-1) and reduces x_1 into B in one group - may
 * land after the fused reduction and overwrite it; the deferred one runs at the fence, after
 * every receive of the group.) Returns 1 if a step still needs TMP. */
static inline int dfc_gpu_mark_fused(dfc_step_t *steps, int n, uint64_t item)
{
    for (int start = 0, end; start < n; start = end + 1) {
        for (end = start; end < n && dfc_gpu_is_transfer(&steps[end]); end++) {}
        for (int i = start; i < end; i++) {
            dfc_step_t *r = &steps[i];
            if (r->kind != DFC_STEP_RECV_REDUCE) continue;
            uint64_t lo = r->dst_off, hi = lo + r->count * item;
            int fused = 1;
            for (int j = start; j < end; j++) {
                int xbuf;
                uint64_t xlo, xhi;
                if (j == i) continue;
                dfc_gpu_xfer_range(&steps[j], item, &xbuf, &xlo, &xhi);
                if (xbuf == r->dst_buf && xlo < hi && lo < xhi) fused = 0;
            }
            if (fused) r->order |= DFC_GPU_FUSED;
        }
    }
    for (int i = 0; i < n; i++) {
        const dfc_step_t *st = &steps[i];
        if (st->kind == DFC_STEP_RECV_REDUCE
                ? !(st->order & DFC_GPU_FUSED)
                : st->src_buf == DFC_BUF_TMP || st->dst_buf == DFC_BUF_TMP)
            return 1;
    }
    return 0;
}

/* Numbers each transfer among the collective's transfers with the same peer in the same
 * direction (DFC_GPU_ORDINAL, in a field transfers leave unused): the k-th send to a peer
 * matches that peer's k-th receive from us, which is what its invitations name. */
static inline void dfc_gpu_number_transfers(dfc_step_t *steps, int n, int nranks)
{
    uint32_t sends[DFC_GPU_MAX_LOCAL] = {0}, recvs[DFC_GPU_MAX_LOCAL] = {0};
    for (int i = 0; i < n; i++) {
        dfc_step_t *st = &steps[i];
        if (!dfc_gpu_is_transfer(st) || st->peer < 0 || st->peer >= nranks) continue;
        if (st->kind == DFC_STEP_SEND) st->dst_off = sends[st->peer]++;
        else st->src_off = recvs[st->peer]++;
    }
}

/* Which processes a daemon connects (issue 15), with at most `cap` (<= DFC_GPU_MAX_LOCAL, its
 * peer tables; DFC_GPU_PEERS_MAX lowers it for tests) in its table, itself included. NODE: the
 * processes of its node. JOB (the host proxy on, at most cap processes): every process of the
 * job. In a larger job on N nodes, whose largest holds Lmax processes and smallest Lmin, the
 * processes of its node and of its rail, the processes with its local index on the other
 * nodes: all of the rail (RAILS, Lmax + N - 1 <= cap), or its rail neighbours on the ring of
 * the nodes, nodes n - 1 and n + 1 mod N (RING, Lmin >= 2 and Lmax + 2 <= cap: any number of
 * nodes). The hierarchical algorithms talk inside a node and across nodes among equal local
 * indices, and those whose steps across nodes are a ring of the nodes (allreduce, allgather,
 * reduce_scatter) or a chain round it (bcast, reduce) talk to the rail neighbours only. On
 * unequal nodes only the core (local indices below the smallest node's count) crosses nodes;
 * a surplus rank talks to a node mate (hier_layout.c), so a rail that some nodes lack is
 * harmless.
 * Nodes are numbered densely from 0 (the comm layer's node map), and that numbering is the
 * ring. Pure and deterministic, so every process of the job computes the same for everyone:
 * rail[r] is r's local index (its position among its node's processes in world-rank order)
 * whatever the mode; *nnodes the number of nodes. */
enum dfc_gpu_peers {
    DFC_GPU_PEERS_NODE,
    DFC_GPU_PEERS_JOB,
    DFC_GPU_PEERS_RAILS,
    DFC_GPU_PEERS_RING
};

static inline int dfc_gpu_choose_peers(int world_size, const int *node_of, int proxy, int cap,
                                       int *rail, int *nnodes)
{
    int mode = DFC_GPU_PEERS_NODE;
    int *seen = (int *)calloc((size_t)world_size, sizeof(int)); /* node ids are < world_size */
    int most = 0;
    *nnodes = 0;
    for (int r = 0; r < world_size; r++) {
        if (seen) rail[r] = seen[node_of[r]]++;
        else /* no memory: the same numbers, slowly */
            for (int q = rail[r] = 0; q < r; q++) rail[r] += node_of[q] == node_of[r];
        *nnodes += rail[r] == 0;
        most = rail[r] + 1 > most ? rail[r] + 1 : most;
    }
    if (!proxy) {
        free(seen);
        return mode;
    }
    int least = most; /* the smallest node's count (every node id below nnodes holds one) */
    for (int k = 0; k < *nnodes; k++) {
        int count = 0;
        if (seen) count = seen[k];
        else
            for (int r = 0; r < world_size; r++) count += node_of[r] == k;
        least = count < least ? count : least;
    }
    free(seen);
    if (world_size <= cap) return DFC_GPU_PEERS_JOB;
    if (most + *nnodes - 1 <= cap) mode = DFC_GPU_PEERS_RAILS;
    else if (least >= 2 && most + 2 <= cap) mode = DFC_GPU_PEERS_RING;
    return mode;
}

/* Whether the daemons of world ranks u and v connect each other in `mode` (symmetric). */
static inline int dfc_gpu_peers_linked(int mode, const int *node_of, const int *rail, int nnodes,
                                       int u, int v)
{
    if (mode == DFC_GPU_PEERS_JOB || node_of[u] == node_of[v]) return 1;
    if (mode == DFC_GPU_PEERS_RING)
        return rail[u] == rail[v] && dfc_gpu_ring_adjacent(node_of[u], node_of[v], nnodes);
    return mode == DFC_GPU_PEERS_RAILS && rail[u] == rail[v];
}

/* The daemon table of world rank w (daemon index -> world rank) in `mode`: its node's
 * processes first, in world order, then its other peers in world order. A node mate writes
 * into a daemon's mailbox at its own index (daemon_abi.h, dfc_gpu_to_*), so its index must be
 * the same in every table of the node: its local index, which node-first order gives. (Remote
 * peers' pair regions are per pair: their indices need not agree.) Writes at most `max`
 * entries; returns the table's length (more than max: too many peers) and w's index in *me. */
static inline int dfc_gpu_peer_table(int mode, int world_size, const int *node_of, const int *rail,
                                     int nnodes, int w, int *table, int max, int *me)
{
    int n = 0;
    for (int mates = 1; mates >= 0; mates--)
        for (int r = 0; r < world_size; r++) {
            if ((node_of[r] == node_of[w]) != mates ||
                !dfc_gpu_peers_linked(mode, node_of, rail, nnodes, w, r))
                continue;
            if (r == w) *me = n;
            if (n < max) table[n] = r;
            n++;
        }
    return n;
}

/* The mailbox geometry's peer count (dfc_gpu_geom_t.nlocal): the longest daemon table that
 * links to this process's, so that every daemon this one talks to lays its mailbox and pair
 * regions out alike (a node mate writes at offsets the geometry gives, and the auto chunk
 * size depends on it). NODE: the node's processes (`mates`); JOB: every process; RAILS and
 * RING: the table of local index 0 on the largest node (`most` processes; every node has a
 * local index 0), on unequal nodes longer than some processes' own. The processes of a node
 * get the same answer, and in JOB, RAILS and RING modes every process of the job. */
static inline int dfc_gpu_geom_peers(int mode, int world_size, int nnodes, int most, int mates)
{
    if (mode == DFC_GPU_PEERS_NODE) return mates;
    if (mode == DFC_GPU_PEERS_JOB) return world_size;
    if (mode == DFC_GPU_PEERS_RAILS) return most + nnodes - 1;
    return most + (nnodes >= 3 ? 2 : nnodes - 1); /* RING: n - 1 and n + 1, one node when N = 2 */
}

/* The largest node's count of processes, from rail numbers (dfc_gpu_choose_peers). */
static inline int dfc_gpu_largest_node(int world_size, const int *rail)
{
    int most = 0;
    for (int r = 0; r < world_size; r++) most = rail[r] + 1 > most ? rail[r] + 1 : most;
    return most;
}

/* A descriptor's steps name peers by communicator rank; the kernel's tables go by daemon
 * index. Rewrites each transfer's peer to the daemon index of its world rank (world: the
 * communicator's ranks in the world; index_of: world rank -> daemon index or -1). Returns the
 * number of transfers whose peer the daemon does not connect (then nothing may be submitted).
 */
static inline int dfc_gpu_steps_to_daemon(dfc_step_t *steps, int n, const int *world,
                                          const int *index_of)
{
    int missing = 0;
    for (int i = 0; i < n; i++) {
        dfc_step_t *st = &steps[i];
        if (!dfc_gpu_is_transfer(st)) continue;
        int idx = st->peer >= 0 ? index_of[world[st->peer]] : -1;
        missing += idx < 0;
        st->peer = idx;
    }
    return missing;
}

/* The FIFO of a collective (ident = dfc_gpu_ident: (incarnation << 48 | context << 32 | tag)
 * + 1; `ctx` below holds the incarnation's bits too), the same on every rank.
 * Consecutive tags of a communicator take consecutive FIFOs, and so do persistent
 * collectives started together: their tags differ in bits 16 and up (the _init number). */
static inline uint32_t dfc_gpu_fifo_of(uint64_t ident, uint32_t nslots)
{
    uint64_t tag = (uint32_t)(ident - 1), ctx = (ident - 1) >> 32;
    return (uint32_t)((tag + (tag >> 16) * 5 + ctx * 7) % nslots);
}

/* The channels a collective runs on, 0 .. n-1: the most that dfc_gpu_slice gives any of
 * its steps (bytes / chan_min, at least 1, at most `channels`). Slicing depends on a step's
 * size alone, so sender and receiver agree on which channel moves what even when their
 * schedules' other steps differ; blocks at or past n never take the collective, and its
 * barriers count n channels. A collective of small steps runs on channel 0 alone. */
static inline uint32_t dfc_gpu_channels_of(const dfc_step_t *steps, int n, uint64_t item,
                                           uint64_t chan_min, uint32_t channels)
{
    if (!chan_min) return channels;
    uint64_t most = 1;
    for (int i = 0; i < n; i++) {
        uint64_t b = steps[i].kind == DFC_STEP_REDUCE ? steps[i].count * item : steps[i].bytes;
        if (b / chan_min > most) most = b / chan_min;
    }
    return most < channels ? (uint32_t)most : channels;
}

/* DFC_GPU_CHUNK=0: the largest power of two from 16 KiB to 256 KiB with which a process's
 * mailboxes (nlocal x channels x slots x depth chunks) and spill entries (nlocal x channels
 * x DFC_GPU_SPILL chunks) fit `budget` bytes (DFC_GPU_FIFO_MEMORY); 16 KiB even when they
 * do not. Every process of the node computes the same from the same geometry. */
static inline uint32_t dfc_gpu_auto_chunk(const dfc_gpu_geom_t *g, uint64_t budget)
{
    uint64_t chunks = (uint64_t)g->nlocal * g->channels * (g->slots * g->depth + DFC_GPU_SPILL);
    uint64_t chunk = 256 << 10;
    while (chunk > (16 << 10) && chunk * chunks > budget) chunk /= 2;
    return (uint32_t)chunk;
}

#endif /* DFC_GPU_DAEMON_PLAN_H */
