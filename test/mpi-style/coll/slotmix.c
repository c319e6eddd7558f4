/*
 * slotmix - bcast, alltoall and barrier on DFC_COMM_WORLD, which the shm collective slots run
 * on one node (src/coll/bcast_shm_slots.c, alltoall_shm_slots.c, barrier_shm_slots.c; issue
 * 16), mixed with slot allreduces:
 *   1. bcast from every root at 1, 7, 64 and 4096 bytes (slots; at 2 ranks the slots end at
 *      1024 bytes, so 4096 goes by messages there) and 4097 (messages): the
 *      non-roots poison their buffer and check every byte, the root checks that its own
 *      buffer is unchanged;
 *   2. alltoall with blocks of 1 and 3 bytes, the largest block that fits the 4 KiB slot and
 *      one byte more (messages), out of place and in place, every byte checked;
 *   3. K = 37 nonblocking collectives outstanding at once on the world (Ibcast from a moving
 *      root, Ialltoall, Ibarrier, Iallreduce in turn: more than the slots' 16 buffers, so
 *      later ones wait for a free buffer inside the engine), waited for in reverse order on
 *      even ranks and in order on odd ones, with rank 1 sleeping before its waits;
 *   4. barrier really synchronizes: the last rank sleeps 200 ms, then sends every other rank a
 *      message and enters the barrier; a rank that leaves the barrier must find that message
 *      with DFC_Iprobe within 100 ms (a barrier that let it through early would have it look
 *      200 ms too soon).
 */
#include <unistd.h>

#include "colltest.h"

#define K 37

static unsigned char pat(int a, int b, int i, unsigned iter)
{
    return (unsigned char)(a * 31 + b * 7 + i * 3 + iter * 11 + 1);
}

static void bcasts(void)
{
    static const int sizes[] = {1, 7, 64, 4096, 4097};
    unsigned char *buf = ct_malloc(4097);
    for (int si = 0; si < 5; si++)
        for (int root = 0; root < ct_size; root++) {
            int n = sizes[si];
            unsigned it = ++ct_iter;
            for (int i = 0; i < n; i++) buf[i] = ct_rank == root ? pat(root, 0, i, it) : 0xee;
            DFCT_OK(DFC_Bcast(buf, n, DFC_BYTE, root, DFC_COMM_WORLD));
            int bad = 0;
            for (int i = 0; i < n; i++) bad += buf[i] != pat(root, 0, i, it);
            DFCT_CHECK(!bad, "bcast of %d bytes from %d: %d wrong bytes", n, root, bad);
        }
    free(buf);
}

static int check_alltoall(const unsigned char *r, int b, unsigned it)
{
    int bad = 0;
    for (int p = 0; p < ct_size; p++)
        for (int i = 0; i < b; i++) bad += r[p * b + i] != pat(p, ct_rank, i, it);
    return bad;
}

static void alltoalls(void)
{
    int fit = 4096 / ct_size, blocks[] = {1, 3, fit, fit + 1};
    unsigned char *s = ct_malloc((size_t)ct_size * (fit + 1)),
                  *r = ct_malloc((size_t)ct_size * (fit + 1));
    for (int bi = 0; bi < 4; bi++)
        for (int in_place = 0; in_place < 2; in_place++) {
            int b = blocks[bi];
            unsigned it = ++ct_iter;
            unsigned char *in = in_place ? r : s;
            for (int p = 0; p < ct_size; p++)
                for (int i = 0; i < b; i++) in[p * b + i] = pat(ct_rank, p, i, it);
            if (!in_place) memset(r, 0xee, (size_t)ct_size * b);
            DFCT_OK(DFC_Alltoall(in_place ? DFC_IN_PLACE : s, b, DFC_BYTE, r, b, DFC_BYTE,
                                 DFC_COMM_WORLD));
            int bad = check_alltoall(r, b, it);
            DFCT_CHECK(!bad, "alltoall of %d-byte blocks%s: %d wrong bytes", b,
                       in_place ? " in place" : "", bad);
        }
    free(s);
    free(r);
}

/* Operation j of the mixed batch: 0 Ibcast, 1 Ialltoall, 2 Ibarrier, 3 Iallreduce. */
static void outstanding(void)
{
    DFC_Request req[K];
    unsigned char bc[K][16], a2a[K][64], a2a_in[K][64];
    int ar_in[K][4], ar_out[K][4];
    unsigned base = ct_iter;
    int b = 64 / ct_size > 4 ? 4 : 64 / ct_size;
    for (int j = 0; j < K; j++) {
        unsigned it = base + j;
        int root = j % ct_size;
        switch (j % 4) {
        case 0:
            for (int i = 0; i < 16; i++) bc[j][i] = ct_rank == root ? pat(root, 1, i, it) : 0xee;
            DFCT_OK(DFC_Ibcast(bc[j], 16, DFC_BYTE, root, DFC_COMM_WORLD, &req[j]));
            break;
        case 1:
            for (int p = 0; p < ct_size; p++)
                for (int i = 0; i < b; i++) a2a_in[j][p * b + i] = pat(ct_rank, p, i, it);
            memset(a2a[j], 0xee, sizeof a2a[j]);
            DFCT_OK(DFC_Ialltoall(a2a_in[j], b, DFC_BYTE, a2a[j], b, DFC_BYTE, DFC_COMM_WORLD,
                                  &req[j]));
            break;
        case 2: DFCT_OK(DFC_Ibarrier(DFC_COMM_WORLD, &req[j])); break;
        default:
            for (int i = 0; i < 4; i++) ar_in[j][i] = ct_rank * 100 + i + j, ar_out[j][i] = -1;
            DFCT_OK(
                DFC_Iallreduce(ar_in[j], ar_out[j], 4, DFC_INT, DFC_SUM, DFC_COMM_WORLD, &req[j]));
        }
    }
    if (ct_rank == 1) usleep(50000);
    for (int w = 0; w < K; w++) {
        int j = ct_rank % 2 ? w : K - 1 - w;
        DFCT_OK(DFC_Wait(&req[j], DFC_STATUS_IGNORE));
    }
    for (int j = 0; j < K; j++) {
        unsigned it = base + j;
        int root = j % ct_size, bad = 0;
        if (j % 4 == 0)
            for (int i = 0; i < 16; i++) bad += bc[j][i] != pat(root, 1, i, it);
        if (j % 4 == 1)
            for (int p = 0; p < ct_size; p++)
                for (int i = 0; i < b; i++) bad += a2a[j][p * b + i] != pat(p, ct_rank, i, it);
        if (j % 4 == 3)
            for (int i = 0; i < 4; i++)
                bad += ar_out[j][i] != 100 * ct_size * (ct_size - 1) / 2 + ct_size * (i + j);
        DFCT_CHECK(!bad, "outstanding operation %d (kind %d): %d wrong elements", j, j % 4, bad);
    }
    ct_iter += K;
}

static void barrier_synchronizes(void)
{
    int late = ct_size - 1, token = 7;
    for (int round = 0; round < 2; round++) {
        if (ct_rank == late) {
            usleep(200000);
            for (int p = 0; p < ct_size; p++)
                if (p != late) DFCT_OK(DFC_Send(&token, 1, DFC_INT, p, 50 + round, DFC_COMM_WORLD));
        }
        DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
        if (ct_rank == late) continue;
        double t0 = DFC_Wtime();
        int flag = 0;
        while (!flag && DFC_Wtime() - t0 < 0.1)
            DFCT_OK(DFC_Iprobe(late, 50 + round, DFC_COMM_WORLD, &flag, DFC_STATUS_IGNORE));
        DFCT_CHECK(flag, "round %d: left the barrier before the last rank's message existed",
                   round);
        DFCT_OK(DFC_Recv(&token, 1, DFC_INT, late, 50 + round, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    }
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    bcasts();
    alltoalls();
    outstanding();
    barrier_synchronizes();
    return dfct_finalize();
}
