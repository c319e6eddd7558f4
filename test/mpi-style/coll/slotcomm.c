/*
 * slotcomm - the shm collective slots on communicators other than DFC_COMM_WORLD (issue 16):
 * dups and splits whose members all share this node get slots of their own (a set per
 * context id, src/tl/shm_slots.h). Every result is checked element by element against
 * fresh inputs, into poisoned outputs:
 *   1. on a dup, a split by parity, a split in reverse order (member order unlike the
 *      world's) and DFC_Comm_split_type's node communicator (the slots' case on several
 *      nodes, where the world has none): bcast from every root (1, 8, 4096 bytes through
 *      the slots (1024 at most on 2 ranks), 4097 by messages), allreduce of 1, 256 (1 KiB)
 *      and 257 ints, alltoall and barrier;
 *   2. the same communicators interleaved call by call with the world (each has its own
 *      numbering in the slots), and nonblocking ones outstanding on two at once (20 on
 *      each, more than the slots' 16 buffers, so later ones wait for a free one), waited
 *      for in reverse order;
 *   3. a communicator freed and re-created ITERS times (default 300), a varying number of
 *      collectives each time (so stamps left in a set never line up with the next one's),
 *      alternating dup and split: a stale slot would show as wrong data. The context ids,
 *      and so the sets, come back each time: a set never given back would run out;
 *   4. an Ibcast still pending on a freed communicator while others create the next one,
 *      which may take the same set (its first writes must wait for the pending reader).
 * Options: -iters=N.
 */
#include <unistd.h>

#include "colltest.h"

static unsigned char pat(int a, int b, int i, unsigned iter)
{
    return (unsigned char)(a * 31 + b * 7 + i * 3 + iter * 11 + 1);
}

static void check_bcast(DFC_Comm c, int n, int root, const char *name)
{
    int me, np;
    DFCT_OK(DFC_Comm_rank(c, &me));
    DFCT_OK(DFC_Comm_size(c, &np));
    root %= np;
    unsigned char *buf = ct_malloc((size_t)n);
    unsigned it = ++ct_iter;
    for (int i = 0; i < n; i++) buf[i] = me == root ? pat(root, 0, i, it) : 0xee;
    DFCT_OK(DFC_Bcast(buf, n, DFC_BYTE, root, c));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += buf[i] != pat(root, 0, i, it);
    DFCT_CHECK(!bad, "%s: bcast of %d bytes from %d: %d wrong bytes", name, n, root, bad);
    free(buf);
}

static void check_allreduce(DFC_Comm c, int n, const char *name)
{
    int me, np;
    DFCT_OK(DFC_Comm_rank(c, &me));
    DFCT_OK(DFC_Comm_size(c, &np));
    int *in = ct_malloc((size_t)n * sizeof(int)), *out = ct_malloc((size_t)n * sizeof(int));
    unsigned it = ++ct_iter;
    for (int i = 0; i < n; i++) in[i] = me * 1000 + i + (int)it, out[i] = -7;
    DFCT_OK(DFC_Allreduce(in, out, n, DFC_INT, DFC_SUM, c));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += out[i] != 1000 * np * (np - 1) / 2 + np * (i + (int)it);
    DFCT_CHECK(!bad, "%s: allreduce of %d ints: %d wrong elements", name, n, bad);
    free(in);
    free(out);
}

static void check_alltoall(DFC_Comm c, int b, const char *name)
{
    int me, np;
    DFCT_OK(DFC_Comm_rank(c, &me));
    DFCT_OK(DFC_Comm_size(c, &np));
    unsigned char *s = ct_malloc((size_t)np * b), *r = ct_malloc((size_t)np * b);
    unsigned it = ++ct_iter;
    for (int p = 0; p < np; p++)
        for (int i = 0; i < b; i++) s[p * b + i] = pat(me, p, i, it), r[p * b + i] = 0xee;
    DFCT_OK(DFC_Alltoall(s, b, DFC_BYTE, r, b, DFC_BYTE, c));
    int bad = 0;
    for (int p = 0; p < np; p++)
        for (int i = 0; i < b; i++) bad += r[p * b + i] != pat(p, me, i, it);
    DFCT_CHECK(!bad, "%s: alltoall of %d-byte blocks: %d wrong bytes", name, b, bad);
    free(s);
    free(r);
}

static void all_kinds(DFC_Comm c, const char *name)
{
    static const int bsizes[] = {1, 8, 4096, 4097}, asizes[] = {1, 256, 257};
    int np;
    DFCT_OK(DFC_Comm_size(c, &np));
    /* ct_size roots (modulo the size) everywhere: ct_iter stays the same on every rank */
    for (int si = 0; si < 4; si++)
        for (int root = 0; root < ct_size; root++) check_bcast(c, bsizes[si], root, name);
    for (int si = 0; si < 3; si++) check_allreduce(c, asizes[si], name);
    check_alltoall(c, 1, name);
    check_alltoall(c, 4096 / np, name);
    DFCT_OK(DFC_Barrier(c));
}

/* Nonblocking collectives outstanding on two communicators at once, waited in reverse. */
static void outstanding(DFC_Comm a, DFC_Comm b)
{
    enum { K = 40 }; /* 20 on each: more than the slots' 16 buffers */
    DFC_Request req[K];
    int in[K][4], out[K][4], me[2], np[2];
    DFC_Comm cs[2] = {a, b};
    for (int x = 0; x < 2; x++) {
        DFCT_OK(DFC_Comm_rank(cs[x], &me[x]));
        DFCT_OK(DFC_Comm_size(cs[x], &np[x]));
    }
    unsigned it = ct_iter += K;
    for (int j = 0; j < K; j++) {
        int x = j % 2;
        for (int i = 0; i < 4; i++) in[j][i] = me[x] * 100 + i + j + (int)it, out[j][i] = -1;
        DFCT_OK(DFC_Iallreduce(in[j], out[j], 4, DFC_INT, DFC_SUM, cs[x], &req[j]));
    }
    for (int j = K - 1; j >= 0; j--) DFCT_OK(DFC_Wait(&req[j], DFC_STATUS_IGNORE));
    for (int j = 0; j < K; j++) {
        int x = j % 2, bad = 0;
        for (int i = 0; i < 4; i++)
            bad += out[j][i] != 100 * np[x] * (np[x] - 1) / 2 + np[x] * (i + j + (int)it);
        DFCT_CHECK(!bad, "outstanding iallreduce %d: %d wrong elements", j, bad);
    }
}

static void recreate(int iters)
{
    for (int t = 0; t < iters; t++) {
        DFC_Comm c;
        if (t % 2) DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &c));
        else DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, (ct_rank + t / 2) % 2, ct_size - ct_rank, &c));
        int np;
        DFCT_OK(DFC_Comm_size(c, &np));
        int n = 1 + t % 7;
        for (int k = 0; k < n; k++) {
            int root = (t + k) % np;
            switch ((t + k) % 3) {
            case 0: check_bcast(c, 1 + (t * 13 + k) % 64, root, "re-created"); break;
            case 1: check_allreduce(c, 1 + k, "re-created"); break;
            default:
                if (k % 2) check_alltoall(c, 2, "re-created");
                else DFCT_OK(DFC_Barrier(c));
            }
        }
        DFCT_OK(DFC_Comm_free(&c));
    }
}

/* Member 0 roots Ibcasts on a dup and frees it at once; the last rank's copy stays pending
 * while 0 and 1 build a new communicator (it may take the same set) and bcast in it. */
static void pending_on_freed(void)
{
    if (ct_size < 3) return;
    enum { NB = 6 };
    DFC_Comm a, b;
    DFC_Request req[NB];
    unsigned char buf[NB][32];
    unsigned it = ct_iter += NB;
    int last = ct_size - 1;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &a));
    for (int j = 0; j < NB; j++) {
        for (int i = 0; i < 32; i++) buf[j][i] = ct_rank == 0 ? pat(0, 2, i, it + j) : 0xee;
        DFCT_OK(DFC_Ibcast(buf[j], 32, DFC_BYTE, 0, a, &req[j]));
    }
    if (ct_rank != last) DFCT_OK(DFC_Waitall(NB, req, DFC_STATUSES_IGNORE));
    DFCT_OK(DFC_Comm_free(&a));
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, ct_rank < 2 ? 0 : 1, ct_rank, &b));
    if (ct_rank < 2)
        for (int k = 0; k < 3 * NB; k++) check_bcast(b, 32, 0, "after a freed one");
    else ct_iter += 3 * NB;
    if (ct_rank == last) {
        usleep(20000);
        DFCT_OK(DFC_Waitall(NB, req, DFC_STATUSES_IGNORE));
    }
    for (int j = 0; j < NB; j++) {
        int bad = 0;
        for (int i = 0; i < 32; i++) bad += buf[j][i] != pat(0, 2, i, it + j);
        DFCT_CHECK(!bad, "ibcast %d pending on a freed communicator: %d wrong bytes", j, bad);
    }
    DFCT_OK(DFC_Comm_free(&b));
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    int iters = (int)ct_opt(argc, argv, "iters", 300);
    DFC_Comm dup, par, rev;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &dup));
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, ct_rank % 2, ct_rank, &par));
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, 0, -ct_rank, &rev));
    all_kinds(dup, "dup");
    all_kinds(par, "split by parity");
    all_kinds(rev, "reversed split");
    DFC_Comm node;
    DFCT_OK(
        DFC_Comm_split_type(DFC_COMM_WORLD, DFC_COMM_TYPE_SHARED, ct_rank, DFC_INFO_NULL, &node));
    all_kinds(node, "node");
    DFCT_OK(DFC_Comm_free(&node));
    for (int k = 0; k < 20; k++) {
        DFC_Comm c = k % 3 == 0 ? DFC_COMM_WORLD : k % 3 == 1 ? dup : rev;
        check_allreduce(c, 1 + k % 5, "interleaved");
        check_bcast(k % 2 ? par : c, 8, k % 2, "interleaved");
    }
    outstanding(dup, rev);
    outstanding(par, DFC_COMM_WORLD);
    recreate(iters);
    pending_on_freed();
    DFCT_OK(DFC_Comm_free(&dup));
    DFCT_OK(DFC_Comm_free(&par));
    DFCT_OK(DFC_Comm_free(&rev));
    return dfct_finalize();
}
