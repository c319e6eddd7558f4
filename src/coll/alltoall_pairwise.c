/*
 * alltoall_pairwise.c - alltoall, alltoallv and alltoallw by pairwise exchange, windowed.
 *
 * Rank r copies its own block from SEND to RECV. In step k (k = 1 .. n - 1) it sends its block
 * for (r + k) mod n and receives the block from (r - k) mod n. Steps are posted in windows of
 * DFC_ALLTOALL_WINDOW steps: the window's receives first, then its sends, then one fence. A
 * pair exchanges in the same step, so in the same window, on both sides: windows never wait
 * on each other crosswise. Empty blocks are not transferred (the sender's count for p equals
 * p's count for the sender), which keeps alltoallv cheap for sparse MoE-style traffic: a
 * window of empty steps costs nothing.
 * Send blocks: p * sbytes, or sdispls[p] items of selem; receive blocks: p * rbytes, or
 * vdispls[p] items of relem; alltoallw: a->sends[p] and a->recvs[p] (byte offset and
 * length, from the per-rank datatypes). In place the input is RECV with the receive layout: the blocks
 * for the other ranks are first copied to TMP (packed), then sent from there.
 * Cost: (n - 1) * alpha + (n - 1)/n * B * beta for B bytes sent per rank, with up to
 * DFC_ALLTOALL_WINDOW exchanges in flight (DFC_ALLTOALL_SMALL_WINDOW for blocks of at most
 * 1 KiB: window_of). The only alltoall algorithm, so always chosen.
 */
#include "coll/dfc_coll.h"

#ifndef DFC_ALLTOALL_WINDOW
#define DFC_ALLTOALL_WINDOW 4 /* steps posted per fence */
#endif
/* Blocks of at most this many bytes go in windows of up to DFC_ALLTOALL_SMALL_WINDOW steps. */
#define DFC_ALLTOALL_SMALL_BLOCK 1024
#define DFC_ALLTOALL_SMALL_WINDOW 32

static uint64_t recv_off(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_ALLTOALLW) return a->recvs[p].off;
    if (a->kind == DFC_COLL_ALLTOALLV) return (uint64_t)(int64_t)a->vdispls[p] * a->relem;
    return (uint64_t)p * a->rbytes;
}

static uint64_t recv_len(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_ALLTOALLW) return a->recvs[p].bytes;
    if (a->kind == DFC_COLL_ALLTOALLV) return (uint64_t)a->vcounts[p] * a->relem;
    return a->rbytes;
}

static uint64_t send_off(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_ALLTOALLW) return a->sends[p].off;
    if (a->kind == DFC_COLL_ALLTOALLV) return (uint64_t)(int64_t)a->sdispls[p] * a->selem;
    return (uint64_t)p * a->sbytes;
}

static uint64_t send_len(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_ALLTOALLW) return a->sends[p].bytes;
    if (a->kind == DFC_COLL_ALLTOALLV) return (uint64_t)a->scounts[p] * a->selem;
    return a->sbytes;
}

/* Steps per window. A window bounds the data in flight, which matters for large blocks
 * only; for small ones each fence is a wait for the slowest of the window's peers, and with
 * 4 steps per window a 16-rank alltoall of 128-byte blocks waited 4 times (16 us on 16 idle
 * cores where 256-byte blocks, same windows, took 10: BENCHMARKS.md, stop 24). Small blocks
 * therefore go up to DFC_ALLTOALL_SMALL_WINDOW steps at a time: at most 32 KiB in flight
 * per rank, one message to each peer. */
static int window_of(const dfc_coll_args_t *a)
{
    uint64_t largest = 0;
    for (int p = 0; p < a->size; p++) {
        largest = DFC_MAX2(largest, recv_len(a, p));
        if (!a->in_place) largest = DFC_MAX2(largest, send_len(a, p)); /* else recv's layout */
    }
    return largest <= DFC_ALLTOALL_SMALL_BLOCK ? DFC_ALLTOALL_SMALL_WINDOW : DFC_ALLTOALL_WINDOW;
}

int dfc_coll_alltoall_pairwise_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, r = a->rank;
    int sbuf = a->in_place ? DFC_BUF_TMP : DFC_BUF_SEND;
    uint64_t tmp = 0;

    if (a->kind != DFC_COLL_ALLTOALL && a->kind != DFC_COLL_ALLTOALLV &&
        a->kind != DFC_COLL_ALLTOALLW)
        return DFC_ERR(DFC_ERR_INTERN, "alltoall_pairwise cannot build collective kind %d",
                       (int)a->kind);
    if (a->kind == DFC_COLL_ALLTOALLW && (!a->sends || !a->recvs || a->nsends < n || a->nrecvs < n))
        return DFC_ERR(DFC_ERR_INTERN, "alltoallw needs one send and one receive block per rank");
    s->algorithm = "pairwise";
    if (a->in_place) {
        /* Save the outgoing blocks (receive layout) to TMP, packed in step order; blocks
         * adjacent in RECV go in one copy (for alltoall: two copies in all). */
        uint64_t total = 0, src = 0, dst, len = 0;
        for (int k = 1; k < n; k++) total += recv_len(a, (r + k) % n);
        dst = tmp = total > 0 ? dfc_sched_tmp(s, total) : 0;
        for (int k = 1; k < n; k++) {
            int p = (r + k) % n;
            if (recv_len(a, p) == 0) continue;
            if (len > 0 && src + len != recv_off(a, p)) {
                DFC_TRY(dfc_sched_copy(s, DFC_BUF_RECV, src, DFC_BUF_TMP, dst, len));
                dst += len;
                len = 0;
            }
            if (len == 0) src = recv_off(a, p);
            len += recv_len(a, p);
        }
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_RECV, src, DFC_BUF_TMP, dst, len));
    } else {
        DFC_TRY(dfc_sched_copy(s, DFC_BUF_SEND, send_off(a, r), DFC_BUF_RECV, recv_off(a, r),
                               recv_len(a, r)));
    }
    /* Windows of steps [k0, k1): the receives, then the sends, then a fence. */
    int window = window_of(a);
    for (int k0 = 1; k0 < n; k0 += window) {
        int k1 = k0 + window < n ? k0 + window : n;
        for (int k = k0; k < k1; k++) {
            int from = (r - k + n) % n;
            if (recv_len(a, from) > 0)
                DFC_TRY(
                    dfc_sched_recv(s, from, DFC_BUF_RECV, recv_off(a, from), recv_len(a, from)));
        }
        for (int k = k0; k < k1; k++) {
            int to = (r + k) % n;
            if (a->in_place) {
                if (recv_len(a, to) > 0) DFC_TRY(dfc_sched_send(s, to, sbuf, tmp, recv_len(a, to)));
                tmp += recv_len(a, to);
            } else if (send_len(a, to) > 0) {
                DFC_TRY(dfc_sched_send(s, to, sbuf, send_off(a, to), send_len(a, to)));
            }
        }
        DFC_TRY(dfc_sched_fence(s));
    }
    return DFC_SUCCESS;
}
