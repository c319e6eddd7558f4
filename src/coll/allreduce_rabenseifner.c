/*
 * allreduce_rabenseifner.c - Rabenseifner's allreduce: a reduce-scatter by recursive halving
 * followed by an allgather by recursive doubling (MPICH's reduce_scatter_allgather).
 *
 * Algorithm: with p' the largest power of two <= p and rem = p - p', the same pre-step as
 * recursive doubling folds the first 2*rem ranks pairwise (even sends to odd), leaving p'
 * ranks with new ranks r'. The vector is cut into p' chunks (count/p' items, the first
 * count % p' chunks one item more). Reduce-scatter: for mask = 1, 2, .., p'/2 a rank and
 * r' ^ mask split their current chunk range in halves; the lower new rank keeps the lower
 * half; each sends the other half and reduces what it receives into the half it keeps.
 * Allgather: the same pairs in the reverse order exchange their ranges, which double back
 * to the whole vector. Post-step: odd ranks below 2*rem send the result to rank - 1.
 * Each rank's partners stand for adjacent rank ranges, so with the lower range's data first
 * the result is x_0 op ... op x_(p-1) even for non-commutative ops (tested; MPICH uses it
 * for commutative ops only).
 * Buffers: RECV accumulates; the first halving without IN_PLACE sends from SEND and
 * receives straight into RECV, then reduces SEND into it. TMP holds the largest half.
 *
 * Cost (m bytes, p ranks): 2 log2(p') alpha + 2 (p'-1)/p' m beta + (p'-1)/p' m gamma, plus
 * 2 (alpha + m beta) + m gamma when p is not a power of two.
 * Chosen for allreduce of more than 16 KiB up to 512 KiB (select.c:
 * DFC_ALLREDUCE_RECURSIVE_DOUBLING_MAX, DFC_ALLREDUCE_RABENSEIFNER_MAX), and above that on
 * more ranks than ring's limit (DFC_ALLREDUCE_RING_MAX_RANKS); usable when count >= p'
 * (every chunk holds at least one item).
 */
#include "coll/dfc_coll.h"


int dfc_coll_allreduce_rabenseifner_usable(const dfc_coll_args_t *a)
{
    return a->count >= (uint64_t)dfc_coll_pof2(a->size);
}

/* What the two phases share: this rank's place among the p' ranks, the chunk range
 * [lo, hi) it holds, and the ranges before each halving, which the allgather undoes. */
typedef struct halving {
    dfc_sched_t *s;
    uint64_t count, elem, tmp;
    int pof2, rem, newrank;
    int acc_ready; /* RECV holds this rank's partial result */
    int lo, hi, nsteps;
    int slo[32], shi[32]; /* the range before each halving */
} halving_t;

/* The rank that stands for new rank newrank ^ mask. */
static int partner(const halving_t *h, int mask)
{
    int newdst = h->newrank ^ mask;
    return newdst < h->rem ? 2 * newdst + 1 : newdst + h->rem;
}

/* Reduce-scatter by recursive halving: [lo, hi) is the chunk range this rank holds. */
static int reduce_scatter(halving_t *h)
{
    dfc_sched_t *s = h->s;
    uint64_t count = h->count, elem = h->elem;
    int pof2 = h->pof2, lo = h->lo, hi = h->hi;
    for (int mask = 1; mask < pof2; mask <<= 1) {
        int newdst = h->newrank ^ mask, dst = partner(h, mask);
        int mid = lo + (hi - lo) / 2, keep_lo, keep_hi, send_lo, send_hi;
        h->slo[h->nsteps] = lo, h->shi[h->nsteps] = hi, h->nsteps++;
        if (h->newrank < newdst) keep_lo = lo, keep_hi = mid, send_lo = mid, send_hi = hi;
        else keep_lo = mid, keep_hi = hi, send_lo = lo, send_hi = mid;
        uint64_t so = dfc_coll_chunk_start(count, pof2, send_lo);
        uint64_t sn = dfc_coll_chunk_start(count, pof2, send_hi) - so;
        uint64_t ko = dfc_coll_chunk_start(count, pof2, keep_lo);
        uint64_t kn = dfc_coll_chunk_start(count, pof2, keep_hi) - ko;
        int lower = newdst < h->newrank; /* the partner's data comes first */
        if (h->acc_ready) {
            if (sn) DFC_TRY(dfc_sched_send(s, dst, DFC_BUF_RECV, so * elem, sn * elem));
            if (kn)
                DFC_TRY(dfc_sched_recv_reduce(s, dst, DFC_BUF_RECV, ko * elem, kn, kn * elem,
                                              h->tmp,
                                              lower ? DFC_REDUCE_IN_FIRST : DFC_REDUCE_IN_SECOND));
            DFC_TRY(dfc_sched_fence(s));
        } else {
            if (sn) DFC_TRY(dfc_sched_send(s, dst, DFC_BUF_SEND, so * elem, sn * elem));
            if (kn) DFC_TRY(dfc_sched_recv(s, dst, DFC_BUF_RECV, ko * elem, kn * elem));
            DFC_TRY(dfc_sched_reduce(s, DFC_BUF_SEND, ko * elem, DFC_BUF_RECV, ko * elem, kn,
                                     lower ? DFC_REDUCE_IN_SECOND : DFC_REDUCE_IN_FIRST));
            h->acc_ready = 1;
        }
        lo = keep_lo, hi = keep_hi;
    }
    h->lo = lo, h->hi = hi;
    return DFC_SUCCESS;
}

/* Allgather by recursive doubling, undoing the halvings in reverse order. */
static int allgather(halving_t *h)
{
    dfc_sched_t *s = h->s;
    uint64_t count = h->count, elem = h->elem;
    int pof2 = h->pof2, lo = h->lo, hi = h->hi;
    for (int k = h->nsteps - 1; k >= 0; k--) {
        int dst = partner(h, 1 << k);
        /* The partner holds the other half of [slo[k], shi[k]). */
        int plo = lo == h->slo[k] ? hi : h->slo[k], phi = lo == h->slo[k] ? h->shi[k] : lo;
        uint64_t so = dfc_coll_chunk_start(count, pof2, lo);
        uint64_t sn = dfc_coll_chunk_start(count, pof2, hi) - so;
        uint64_t ro = dfc_coll_chunk_start(count, pof2, plo);
        uint64_t rn = dfc_coll_chunk_start(count, pof2, phi) - ro;
        if (sn) DFC_TRY(dfc_sched_send(s, dst, DFC_BUF_RECV, so * elem, sn * elem));
        if (rn) DFC_TRY(dfc_sched_recv(s, dst, DFC_BUF_RECV, ro * elem, rn * elem));
        DFC_TRY(dfc_sched_fence(s));
        lo = h->slo[k], hi = h->shi[k];
    }
    return DFC_SUCCESS;
}

int dfc_coll_allreduce_rabenseifner_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, rank = a->rank;
    uint64_t count = a->count, elem = a->elem, bytes = a->count * a->elem;
    int in = dfc_coll_input_buf(a);
    s->algorithm = "rabenseifner";
    if (bytes == 0) return DFC_SUCCESS;
    if (n == 1) return dfc_sched_copy(s, in, 0, DFC_BUF_RECV, 0, bytes);

    int pof2 = dfc_coll_pof2(n), rem = n - pof2;
    int acc_ready = a->in_place;
    if (rank < 2 * rem && rank % 2 == 0) {
        /* Hand the input to rank + 1, wait for the result. */
        DFC_TRY(dfc_sched_send(s, rank + 1, in, 0, bytes));
        if (a->in_place) DFC_TRY(dfc_sched_fence(s)); /* the send reads RECV */
        DFC_TRY(dfc_sched_recv(s, rank + 1, DFC_BUF_RECV, 0, bytes));
        return dfc_sched_fence(s);
    }
    /* Largest receive into TMP: the whole vector (pre-step, in place) or the first half. */
    uint64_t tmp = dfc_sched_tmp(s, (rank < 2 * rem && acc_ready)
                                        ? bytes
                                        : dfc_coll_chunk_start(count, pof2, pof2 / 2) * elem);

    int newrank;
    if (rank < 2 * rem) { /* odd: RECV = x_(rank-1) op x_rank */
        if (acc_ready) {
            DFC_TRY(dfc_sched_recv_reduce(s, rank - 1, DFC_BUF_RECV, 0, count, bytes, tmp,
                                          DFC_REDUCE_IN_FIRST));
            DFC_TRY(dfc_sched_fence(s));
        } else {
            DFC_TRY(dfc_sched_recv(s, rank - 1, DFC_BUF_RECV, 0, bytes));
            DFC_TRY(
                dfc_sched_reduce(s, DFC_BUF_SEND, 0, DFC_BUF_RECV, 0, count, DFC_REDUCE_IN_SECOND));
            acc_ready = 1;
        }
        newrank = rank / 2;
    } else {
        newrank = rank - rem;
    }

    halving_t h = {.s = s,
                   .count = count,
                   .elem = elem,
                   .tmp = tmp,
                   .pof2 = pof2,
                   .rem = rem,
                   .newrank = newrank,
                   .acc_ready = acc_ready,
                   .lo = 0,
                   .hi = pof2};
    DFC_TRY(reduce_scatter(&h));
    DFC_TRY(allgather(&h));
    if (rank < 2 * rem) DFC_TRY(dfc_sched_send(s, rank - 1, DFC_BUF_RECV, 0, bytes));
    return dfc_sched_fence(s);
}
