/*
 * slotstream - blocking bcasts that run straight through the shm slots, without an instance
 * (src/coll/bcast_shm_slots.c, dfc_coll_bcast_direct; issue 16), where the root returns as
 * soon as its message is in its slot and runs ahead of its readers:
 *   1. streams: from every root, STREAM blocking bcasts back to back (more than five times
 *      the slots' 16 buffers, so the root wraps around them) at 1, 8, 100 and 4096 bytes,
 *      and at 70001 bytes (from 3 ranks a pipeline of 18 exchanges, so one call wraps around
 *      the buffers: bcast_shm_slots.c), each with its own contents; the root rewrites its buffer with the next message as
 *      soon as a call returns and poisons it in between (a root whose message was not yet
 *      copied out of its buffer would send poison), and one reader sleeps every 16 calls so
 *      that the root must wait for free buffers; every reader poisons before each call and
 *      checks every byte after it, so a message overwritten before it was read, or read out
 *      of order, fails;
 *   2. in order behind nonblocking ones: an Iallreduce and an Ibcast on the slots pending,
 *      then blocking bcasts and a barrier, then the waits (a blocking bcast must let the
 *      pending exchanges finish first while it waits);
 *   3. mixed paths: the root sends DFC_INT, readers receive the same signature as a dense
 *      contiguous type (the direct path) or as a vector with holes (the general path, on a
 *      packed copy), in one call; the holes must keep their poison;
 *   4. progress while waiting: the root posts a 1 MiB Isend (rendezvous) to a reader and
 *      sleeps before its bcast, so the reader waits inside the bcast while the send's
 *      handshake arrives; then the reader receives it and checks it;
 *   5. the same streams on a duplicate of DFC_COMM_WORLD and on an even/odd split.
 * Options: -stream=N (default 83) bcasts per stream.
 */
#include <unistd.h>

#include "colltest.h"

static int stream_len = 83;

static unsigned char pat(int root, int i, unsigned iter)
{
    return (unsigned char)(root * 29 + i * 7 + iter * 13 + 1);
}

/* One stream of blocking bcasts of n bytes from root on comm. */
static void stream(DFC_Comm comm, const char *name, int root, size_t n)
{
    int rank, size;
    DFC_Comm_rank(comm, &rank);
    DFC_Comm_size(comm, &size);
    unsigned char *buf = ct_malloc((size_t)n);
    unsigned base = ct_iter;
    int bad_calls = 0, first_bad = -1;
    if (rank == root)
        for (size_t i = 0; i < n; i++) buf[i] = pat(root, i, base);
    for (int s = 0; s < stream_len; s++) {
        unsigned it = base + (unsigned)s;
        if (rank != root) memset(buf, 0xee, (size_t)n);
        if (rank == (root + 1) % size && s % 16 == 15) usleep(2000);
        DFCT_OK(DFC_Bcast(buf, (int)n, DFC_BYTE, root, comm));
        int bad = 0;
        if (rank == root) {
            for (size_t i = 0; i < n; i++) bad += buf[i] != pat(root, i, it); /* left alone */
            memset(buf, 0xee, (size_t)n);                                     /* reused at once */
            for (size_t i = 0; i < n; i++) buf[i] = pat(root, i, it + 1);
        } else {
            for (size_t i = 0; i < n; i++) bad += buf[i] != pat(root, i, it);
        }
        if (bad && !bad_calls++) first_bad = s;
    }
    DFCT_CHECK(!bad_calls,
               "%s: stream of %zu-byte bcasts from %d: %d of %d calls wrong (first: %d)", name, n,
               root, bad_calls, stream_len, first_bad);
    ct_iter += (unsigned)stream_len;
    free(buf);
}

static void streams(DFC_Comm comm, const char *name)
{
    static const size_t sizes[] = {1, 8, 100, 4096, 70001};
    int size;
    DFC_Comm_size(comm, &size);
    for (int si = 0; si < 5; si++)
        for (int root = 0; root < size; root++) stream(comm, name, root, sizes[si]);
}

/* Case 2: blocking bcasts behind pending slot exchanges. The Ibcast's root then sends
 * BEHIND blocking bcasts (more than the slots' buffers), each of which its readers find
 * written when they call: a reader that took those while the Ibcast was still unread would
 * let the root overwrite the Ibcast's buffer (and then wait for it forever). */
#define BEHIND 40
static void behind_pending(void)
{
    int in[4], out[4], ib[8], b1[BEHIND][2], b2[3];
    DFC_Request req[2];
    unsigned it = ++ct_iter;
    int r1 = 1 % ct_size, r2 = ct_size - 1;
    for (int i = 0; i < 4; i++) in[i] = ct_rank + i, out[i] = -1;
    for (int i = 0; i < 8; i++) ib[i] = ct_rank == r1 ? ct_val(r1, i, 1, it) : -1;
    for (int j = 0; j < BEHIND; j++)
        for (int i = 0; i < 2; i++) b1[j][i] = ct_rank == r1 ? ct_val(r1, i, 2 + j, it) : -1;
    for (int i = 0; i < 3; i++) b2[i] = ct_rank == r2 ? ct_val(r2, i, 99, it) : -1;
    DFCT_OK(DFC_Iallreduce(in, out, 4, DFC_INT, DFC_SUM, DFC_COMM_WORLD, &req[0]));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    /* The readers start the Ibcast before its root has written it, then stay away while the
     * root writes it and as many blocking bcasts as the slots take: their blocking bcasts
     * find data at once, and must still finish the Ibcast first. */
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    if (ct_rank == r1) usleep(20000);
    DFCT_OK(DFC_Ibcast(ib, 8, DFC_INT, r1, DFC_COMM_WORLD, &req[1]));
    if (ct_rank != r1) usleep(50000);
    for (int j = 0; j < BEHIND; j++) {
        DFCT_OK(DFC_Bcast(b1[j], 2, DFC_INT, r1, DFC_COMM_WORLD));
        if (ct_rank != r1 && j < 24) usleep(2000); /* the next one is there when asked for */
    }
    DFCT_OK(DFC_Bcast(b2, 3, DFC_INT, r2, DFC_COMM_WORLD));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFCT_OK(DFC_Waitall(2, req, DFC_STATUSES_IGNORE));
    int bad = 0;
    for (int i = 0; i < 4; i++) bad += out[i] != ct_size * (ct_size - 1) / 2 + ct_size * i;
    for (int i = 0; i < 8; i++) bad += ib[i] != ct_val(r1, i, 1, it);
    for (int j = 0; j < BEHIND; j++)
        for (int i = 0; i < 2; i++) bad += b1[j][i] != ct_val(r1, i, 2 + j, it);
    for (int i = 0; i < 3; i++) bad += b2[i] != ct_val(r2, i, 99, it);
    DFCT_CHECK(!bad, "blocking bcasts behind a pending Iallreduce and Ibcast: %d wrong", bad);
}

/* Case 3: one call, the root with DFC_INT, readers with a dense or a holed type. */
static void mixed_types(void)
{
    enum { N = 24 };
    DFC_Datatype contig, vec;
    DFCT_OK(DFC_Type_contiguous(4, DFC_INT, &contig));
    DFCT_OK(DFC_Type_commit(&contig));
    DFCT_OK(DFC_Type_vector(N, 1, 2, DFC_INT, &vec));
    DFCT_OK(DFC_Type_commit(&vec));
    int buf[2 * N];
    for (int root = 0; root < ct_size; root++) {
        unsigned it = ++ct_iter;
        int holed = ct_rank != root && (ct_rank + root) % 2;
        for (int i = 0; i < 2 * N; i++) buf[i] = ct_rank == root ? ct_val(root, i, 4, it) : -7;
        if (ct_rank == root) DFCT_OK(DFC_Bcast(buf, N, DFC_INT, root, DFC_COMM_WORLD));
        else if (holed) DFCT_OK(DFC_Bcast(buf, 1, vec, root, DFC_COMM_WORLD));
        else DFCT_OK(DFC_Bcast(buf, N / 4, contig, root, DFC_COMM_WORLD));
        int bad = 0;
        for (int i = 0; i < N; i++) {
            int want = ct_val(root, i, 4, it);
            if (holed) bad += buf[2 * i] != want || buf[2 * i + 1] != -7;
            else bad += buf[i] != want;
        }
        DFCT_CHECK(!bad, "bcast from %d received as %s: %d wrong elements", root,
                   ct_rank == root ? "the root's"
                   : holed         ? "a vector"
                                   : "a contiguous type",
                   bad);
    }
    DFC_Type_free(&contig);
    DFC_Type_free(&vec);
}

/* Case 4: a rendezvous send's handshake arrives while its receiver waits in a bcast. */
static void progress_while_waiting(void)
{
    enum { BIG = 1 << 20 };
    int peer = ct_size - 1;
    unsigned char *big = ct_malloc(BIG);
    unsigned it = ++ct_iter;
    int small = ct_rank == 0 ? (int)it : -1;
    DFC_Request req = DFC_REQUEST_NULL;
    if (ct_rank == 0) {
        for (int i = 0; i < BIG; i++) big[i] = pat(5, i, it);
        DFCT_OK(DFC_Isend(big, BIG, DFC_BYTE, peer, 9, DFC_COMM_WORLD, &req));
        usleep(30000);
    }
    DFCT_OK(DFC_Bcast(&small, 1, DFC_INT, 0, DFC_COMM_WORLD));
    DFCT_CHECK(small == (int)it, "bcast while a rendezvous is pending: got %d, want %u", small, it);
    if (ct_rank == 0) DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
    if (ct_rank == peer) {
        memset(big, 0, BIG);
        DFCT_OK(DFC_Recv(big, BIG, DFC_BYTE, 0, 9, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        int bad = 0;
        for (int i = 0; i < BIG; i++) bad += big[i] != pat(5, i, it);
        DFCT_CHECK(!bad, "1 MiB sent while its receiver waited in a bcast: %d wrong bytes", bad);
    }
    free(big);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    stream_len = (int)ct_opt(argc, argv, "stream", 83);
    streams(DFC_COMM_WORLD, "world");
    behind_pending();
    mixed_types();
    if (ct_size > 1) progress_while_waiting();
    DFC_Comm dup, half;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &dup));
    streams(dup, "dup");
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, ct_rank % 2, ct_rank, &half));
    streams(half, "split"); /* the last case: ct_iter may differ between the halves now */
    DFC_Comm_free(&half);
    DFC_Comm_free(&dup);
    return dfct_finalize();
}
