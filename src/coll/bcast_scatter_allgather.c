/*
 * bcast_scatter_allgather.c - van de Geijn broadcast: binomial scatter, then ring allgather.
 *
 * The B-byte message is cut into n chunks, chunk j (j a rank relative to the root) being
 * B/n bytes plus one for the first B%n chunks. Scatter: in relative ranks, v > 0 receives
 * chunks [v, min(v + lowbit(v), n)) from v - lowbit(v), then hands chunks [v + m, min(v + 2m,
 * n)) to v + m for m = lowbit(v)/2, ..., 1 (the root: every power of two below n). Allgather:
 * n - 1 ring steps; in step i, v sends chunk (v - i) mod n to v + 1 and receives chunk
 * (v - i - 1) mod n from v - 1, skipping (on both sides) chunks the receiver got in the
 * scatter, so the root's buffer is never written. The buffer is RECV on every rank.
 * Cost: (ceil(log2 n) + n - 1) * alpha + 2 (n-1)/n * B * beta. Chosen from 64 KiB
 * (DFC_BCAST_SCATTER_ALLGATHER_MIN) on 4 or more ranks (select.c), where the bandwidth term
 * beats the binomial tree's log2(n) * B * beta; usable when B >= n.
 */
#include "coll/dfc_coll.h"

int dfc_coll_bcast_scatter_allgather_usable(const dfc_coll_args_t *a)
{
    return a->count * a->elem >= (uint64_t)a->size;
}

/* Byte offset of chunk j (0 <= j <= n; chunk n is the end). */
static uint64_t chunk_off(uint64_t bytes, int n, int j)
{
    uint64_t base = bytes / (uint64_t)n, rem = bytes % (uint64_t)n;
    return (uint64_t)j * base + ((uint64_t)j < rem ? (uint64_t)j : rem);
}

/* The size of relative rank v's scatter subtree before clipping to n: lowbit(v), or for the
 * root the smallest power of two >= n. */
static int subtree(int v, int n)
{
    int m = 1;
    if (v > 0) return v & -v;
    while (m < n) m <<= 1;
    return m;
}

/* Whether relative rank v holds chunk j after the scatter: chunks [v, v + subtree(v)) < n. */
static int holds_after_scatter(int v, int n, int j)
{
    return j >= v && j < v + subtree(v, n) && j < n;
}

int dfc_coll_bcast_scatter_allgather_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, root = a->root, v = (a->rank - root + n) % n;
    uint64_t bytes = a->count * a->elem;

    s->algorithm = "scatter_allgather";
    if (n == 1 || bytes == 0) return DFC_SUCCESS;

    /* Binomial scatter. */
    int sub = subtree(v, n);
    if (v > 0) {
        int end = v + sub < n ? v + sub : n;
        uint64_t off = chunk_off(bytes, n, v), len = chunk_off(bytes, n, end) - off;
        if (len > 0) {
            DFC_TRY(dfc_sched_recv(s, (v - sub + root) % n, DFC_BUF_RECV, off, len));
            DFC_TRY(dfc_sched_fence(s));
        }
    }
    for (int m = sub >> 1; m > 0; m >>= 1) {
        if (v + m >= n) continue;
        int end = v + 2 * m < n ? v + 2 * m : n;
        uint64_t off = chunk_off(bytes, n, v + m), len = chunk_off(bytes, n, end) - off;
        if (len > 0) DFC_TRY(dfc_sched_send(s, (v + m + root) % n, DFC_BUF_RECV, off, len));
    }
    DFC_TRY(dfc_sched_fence(s));

    /* Ring allgather over relative ranks. */
    int right = (v + 1) % n, left = (v - 1 + n) % n;
    for (int i = 0; i < n - 1; i++) {
        int sj = ((v - i) % n + n) % n, rj = ((v - i - 1) % n + n) % n;
        uint64_t soff = chunk_off(bytes, n, sj), slen = chunk_off(bytes, n, sj + 1) - soff;
        uint64_t roff = chunk_off(bytes, n, rj), rlen = chunk_off(bytes, n, rj + 1) - roff;
        if (rlen > 0 && !holds_after_scatter(v, n, rj))
            DFC_TRY(dfc_sched_recv(s, (left + root) % n, DFC_BUF_RECV, roff, rlen));
        if (slen > 0 && !holds_after_scatter(right, n, sj))
            DFC_TRY(dfc_sched_send(s, (right + root) % n, DFC_BUF_RECV, soff, slen));
        DFC_TRY(dfc_sched_fence(s));
    }
    return DFC_SUCCESS;
}
