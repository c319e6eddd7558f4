/*
 * alltoall_pairwise.c - alltoall and alltoallv by pairwise exchange, windowed.
 *
 * Rank r copies its own block from SEND to RECV. In step k (k = 1 .. n - 1) it sends its block
 * for (r + k) mod n and receives the block from (r - k) mod n. Steps are posted in windows of
 * DFC_ALLTOALL_WINDOW with one fence per window (a window's partners are the same steps on
 * every rank, so windows never wait on each other crosswise). Empty blocks are not
 * transferred (the sender's count for p equals p's count for the sender), which keeps
 * alltoallv cheap for sparse MoE-style traffic: a window of empty steps costs nothing.
 * Send blocks: p * sbytes, or sdispls[p] items of selem; receive blocks: p * rbytes, or
 * vdispls[p] items of relem. In place the input is RECV with the receive layout: the blocks
 * for the other ranks are first copied to TMP (packed), then sent from there.
 * Cost: (n - 1) * alpha + (n - 1)/n * B * beta for B bytes sent per rank, with up to
 * DFC_ALLTOALL_WINDOW exchanges in flight. The only alltoall algorithm, so always chosen.
 */
#include "coll/dfc_coll.h"

#ifndef DFC_ALLTOALL_WINDOW
#define DFC_ALLTOALL_WINDOW 4 /* steps posted per fence */
#endif

static uint64_t recv_off(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_ALLTOALLV) return (uint64_t)(int64_t)a->vdispls[p] * a->relem;
    return (uint64_t)p * a->rbytes;
}

static uint64_t recv_len(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_ALLTOALLV) return (uint64_t)a->vcounts[p] * a->relem;
    return a->rbytes;
}

static uint64_t send_off(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_ALLTOALLV) return (uint64_t)(int64_t)a->sdispls[p] * a->selem;
    return (uint64_t)p * a->sbytes;
}

static uint64_t send_len(const dfc_coll_args_t *a, int p)
{
    if (a->kind == DFC_COLL_ALLTOALLV) return (uint64_t)a->scounts[p] * a->selem;
    return a->sbytes;
}

int dfc_coll_alltoall_pairwise_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, r = a->rank, rc;
    int sbuf = DFC_BUF_SEND;
    uint64_t tmp = 0;

    if (a->kind != DFC_COLL_ALLTOALL && a->kind != DFC_COLL_ALLTOALLV)
        return DFC_ERR(DFC_ERR_INTERN, "alltoall_pairwise cannot build collective kind %d", (int)a->kind);
    s->algorithm = "alltoall_pairwise";
    if (a->in_place) {
        /* Save the outgoing blocks (receive layout) to TMP, packed in step order; blocks
         * adjacent in RECV go in one copy (for alltoall: two copies in all). */
        uint64_t total = 0;
        for (int k = 1; k < n; k++) total += recv_len(a, (r + k) % n);
        if (total > 0) tmp = dfc_sched_tmp(s, total);
        uint64_t src = 0, dst = tmp, len = 0;
        for (int k = 1; k < n; k++) {
            int p = (r + k) % n;
            uint64_t plen = recv_len(a, p);
            if (plen == 0) continue;
            if (len > 0 && src + len != recv_off(a, p)) {
                if ((rc = dfc_sched_copy(s, DFC_BUF_RECV, src, DFC_BUF_TMP, dst, len)) != DFC_SUCCESS)
                    return rc;
                dst += len;
                len = 0;
            }
            if (len == 0) src = recv_off(a, p);
            len += plen;
        }
        if ((rc = dfc_sched_copy(s, DFC_BUF_RECV, src, DFC_BUF_TMP, dst, len)) != DFC_SUCCESS) return rc;
        sbuf = DFC_BUF_TMP;
    } else {
        rc = dfc_sched_copy(s, DFC_BUF_SEND, send_off(a, r), DFC_BUF_RECV, recv_off(a, r), recv_len(a, r));
        if (rc != DFC_SUCCESS) return rc;
    }
    for (int k = 1; k < n; k++) {
        int to = (r + k) % n, from = (r - k + n) % n;
        uint64_t soff = a->in_place ? tmp : send_off(a, to);
        uint64_t slen = a->in_place ? recv_len(a, to) : send_len(a, to);
        uint64_t rlen = recv_len(a, from);
        if (slen > 0 && (rc = dfc_sched_send(s, to, sbuf, soff, slen)) != DFC_SUCCESS) return rc;
        if (rlen > 0 && (rc = dfc_sched_recv(s, from, DFC_BUF_RECV, recv_off(a, from), rlen)) != DFC_SUCCESS)
            return rc;
        tmp += a->in_place ? slen : 0;
        if (k % DFC_ALLTOALL_WINDOW == 0 || k == n - 1)
            if ((rc = dfc_sched_fence(s)) != DFC_SUCCESS) return rc;
    }
    return DFC_SUCCESS;
}
