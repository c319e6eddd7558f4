/*
 * slots - allreduces on DFC_COMM_WORLD that the shm collective slots run (one node: up to
 * 1 KiB in one exchange, src/coll/allreduce_shm_slots.c; up to 4 KiB in a reduce-scatter
 * and an allgather, allreduce_shm_slots_rs_ag.c), checked bit for bit against recursive
 * doubling's bracketing computed here from every rank's input (gathered on a duplicate of
 * DFC_COMM_WORLD, which moves bytes and adds nothing): the slots must give that exact
 * bracketing, so float sums of values of mixed magnitude (where the order of additions
 * shows in the last bits) are compared as bits.
 *
 * Cases, for counts around the rules' edges (dfc_coll_allreduce_slots_choice): 1, 2, 13, 128
 * and 129 (512 bytes: one exchange up to it from 8 ranks), 256 and 257 (1 KiB: below 8
 * ranks), 512 and 513 (2 KiB: on 2 ranks), 700, 1024 and 1025 (4 KiB: a slot buffer, one
 * segment; the two exchanges up to it below 8 ranks), 2048 and 2049 (8 KiB: from 8 ranks),
 * 3000, 4096 (16 KiB: the most the two exchanges run, forced) and 4097 floats:
 *   1. blocking, then in place;
 *   2. K = 3 * DFC_SLOT_NBUF + 1 Iallreduces outstanding at once on the world (more than
 *      the slots have buffers, so later ones must wait for a free buffer inside the engine),
 *      waited for in reverse order, with a blocking allgather on the duplicate and a
 *      point-to-point exchange in between;
 *   3. the same with the ranks waiting in different orders (even ranks forward, odd ranks
 *      in reverse) and one rank sleeping before its waits;
 *   4. a persistent allreduce on the world (messages) started between slot allreduces.
 */
#include <math.h>
#include <unistd.h>

#include "colltest.h"

#define K 13
static const int counts[] = {1,   2,    13,   128,  129,  256,  257,  512, 513,
                             700, 1024, 1025, 2048, 2049, 3000, 4096, 4097};

static void fill(float *v, int n, unsigned iter)
{
    unsigned s = ct_seed(ct_rank, iter, 7);
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        /* magnitudes from 1e-3 to 1e5, both signs: the order of the sum shows */
        float m = (float)((s >> 8) % 100000) / 997.0f;
        v[i] = ((s >> 3) & 1 ? -m : m) * powf(10.0f, (float)((int)((s >> 4) % 9) - 3));
    }
}

/* Recursive doubling's bracketing of every rank's vector (exec.c, dfc_coll_slot_reduce): the
 * first 2 rem ranks in pairs, then a balanced tree; float addition commutes bit for bit, so
 * only the tree shows. all: ct_size vectors of c floats; scratch: as many. */
static void rd_sum(const float *all, float *scratch, int c, float *out)
{
    int pof2 = 1;
    while (2 * pof2 <= ct_size) pof2 *= 2;
    int rem = ct_size - pof2;
    for (int j = 0; j < pof2; j++)
        for (int i = 0; i < c; i++)
            scratch[j * c + i] = j < rem ? all[2 * j * c + i] + all[(2 * j + 1) * c + i]
                                         : all[(j + rem) * c + i];
    for (int mask = 1; mask < pof2; mask *= 2)
        for (int j = 0; j < pof2; j += 2 * mask)
            for (int i = 0; i < c; i++) scratch[j * c + i] += scratch[(j + mask) * c + i];
    memcpy(out, scratch, (size_t)c * sizeof(float));
}

/* The reference of one allreduce of `in` (c floats): gathered on dup, summed here. */
static float *all, *scratch;
static void reference(const float *in, int c, float *ref, DFC_Comm dup)
{
    DFCT_OK(DFC_Allgather(in, c, DFC_FLOAT, all, c, DFC_FLOAT, dup));
    rd_sum(all, scratch, c, ref);
}

static void check(const char *what, int count, const float *got, const float *ref)
{
    DFCT_CHECK(!memcmp(got, ref, (size_t)count * sizeof(float)),
               "%s count %d: differs from recursive doubling's bracketing (first: %a vs %a)", what,
               count, got[0], ref[0]);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    DFC_Comm dup;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &dup));
    int maxc = 4097;
    float *in = ct_malloc(K * maxc * sizeof(float)), *out = ct_malloc(K * maxc * sizeof(float));
    float *ref = ct_malloc(K * maxc * sizeof(float));
    all = ct_malloc((size_t)ct_size * maxc * sizeof(float));
    scratch = ct_malloc((size_t)ct_size * maxc * sizeof(float));
    for (int ci = 0; ci < (int)(sizeof counts / sizeof *counts); ci++) {
        int c = counts[ci];
        /* 1. blocking and in place */
        fill(in, c, ct_iter);
        DFCT_OK(DFC_Allreduce(in, out, c, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD));
        reference(in, c, ref, dup);
        check("blocking", c, out, ref);
        memcpy(out, in, c * sizeof(float));
        DFCT_OK(DFC_Allreduce(DFC_IN_PLACE, out, c, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD));
        check("in place", c, out, ref);
        ct_iter++;
        /* 2. and 3. K outstanding */
        for (int order = 0; order < 2; order++) {
            DFC_Request req[K];
            for (int k = 0; k < K; k++) {
                fill(in + k * c, c, ct_iter + k);
                DFCT_OK(DFC_Iallreduce(in + k * c, out + k * c, c, DFC_FLOAT, DFC_SUM,
                                       DFC_COMM_WORLD, &req[k]));
            }
            for (int k = 0; k < K; k++) reference(in + k * c, c, ref + k * c, dup);
            int peer = ct_rank ^ 1, x = ct_rank, y = -1;
            if (peer < ct_size)
                DFCT_OK(DFC_Sendrecv(&x, 1, DFC_INT, peer, 5, &y, 1, DFC_INT, peer, 5,
                                     DFC_COMM_WORLD, DFC_STATUS_IGNORE));
            if (order == 1 && ct_rank == ct_size - 1) usleep(20000);
            for (int i = 0; i < K; i++) {
                int k = order == 0 || ct_rank % 2 ? K - 1 - i : i;
                DFCT_OK(DFC_Wait(&req[k], DFC_STATUS_IGNORE));
            }
            for (int k = 0; k < K; k++)
                check(order ? "Iallreduce, mixed wait order" : "Iallreduce", c, out + k * c,
                      ref + k * c);
            ct_iter += K;
        }
        /* 4. a persistent allreduce between slot ones */
        DFC_Request p;
        fill(in, c, ct_iter);
        fill(in + c, c, ct_iter + 1);
        DFCT_OK(
            DFC_Allreduce_init(in, out, c, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD, DFC_INFO_NULL, &p));
        DFCT_OK(DFC_Start(&p));
        DFCT_OK(DFC_Allreduce(in + c, out + c, c, DFC_FLOAT, DFC_SUM, DFC_COMM_WORLD));
        DFCT_OK(DFC_Wait(&p, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Request_free(&p));
        reference(in, c, ref, dup);
        reference(in + c, c, ref + c, dup);
        check("persistent", c, out, ref);
        check("blocking beside a persistent one", c, out + c, ref + c);
        ct_iter += 2;
    }
    free(in), free(out), free(ref), free(all), free(scratch);
    DFCT_OK(DFC_Comm_free(&dup));
    return dfct_finalize();
}
