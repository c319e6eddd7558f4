/*
 * test_gpu_plan - the GPU daemon's host-side planning, without a GPU (src/gpu/daemon_abi.h,
 * src/gpu/daemon_plan.h):
 *   - dfc_gpu_slice: for any size and channel count, the channels' slices are disjoint,
 *     cover the step exactly, in order, on boundaries of the largest power of two up to 16
 *     dividing the size (so never inside an element), and small steps go to channel 0;
 *   - dfc_gpu_fifo_of: consecutive collectives of a communicator, and 8 persistent
 *     collectives started together (DFCCL's chaos scenario), never share a FIFO;
 *   - dfc_gpu_mark_fused on real schedules: a fused receive-reduce never has another transfer
 *     of its fence group touching its destination (a send reading it, a receive writing it:
 *     the pairwise reduce-scatter at 3 ranks, issue 23's MPS runs), an unfused one always
 *     has; the ring allreduce
 *     needs no TMP in the daemon; recursive doubling, which sends the buffer it reduces into,
 *     does;
 *   - dfc_gpu_channels_of: no channel past a collective's count gets bytes of any of its
 *     steps from dfc_gpu_slice; small collectives run on one channel, large ones on several;
 *   - dfc_gpu_auto_chunk: the mailboxes fit DFC_GPU_FIFO_MEMORY at any geometry up to 8 GPUs.
 * Prints "ok: ..." lines and exits 0, or reports each failure and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/dfc_coll.h"
#include "gpu/daemon_plan.h"

#include "unit_check.h"

static void test_slices(void)
{
    static const uint64_t sizes[] = {0,         1,         2,       3,
                                     8,         12,        16,      24,
                                     100,       4095,      65534,   65536,
                                     65537,     100003,    1 << 20, (1 << 20) + 6,
                                     123456789, 1ull << 30};
    static const uint32_t chans[] = {1, 2, 3, 16, 32};
    static const uint32_t mins[] = {0, 1, 32768};
    int cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t ci = 0; ci < sizeof chans / sizeof chans[0]; ci++)
            for (size_t mi = 0; mi < sizeof mins / sizeof mins[0]; mi++) {
                uint64_t bytes = sizes[si], unit = 16, next = 0;
                while (unit > 1 && bytes % unit) unit >>= 1;
                for (uint32_t c = 0; c < chans[ci]; c++) {
                    uint64_t lo, hi;
                    dfc_gpu_slice(bytes, c, chans[ci], mins[mi], &lo, &hi);
                    CHECK(lo <= hi && hi <= bytes, "bytes %llu chan %u: [%llu, %llu)",
                          (unsigned long long)bytes, c, (unsigned long long)lo,
                          (unsigned long long)hi);
                    CHECK(lo % unit == 0 && hi % unit == 0,
                          "bytes %llu chan %u: slice not on %llu-byte units",
                          (unsigned long long)bytes, c, (unsigned long long)unit);
                    if (hi > lo) {
                        CHECK(lo == next,
                              "bytes %llu chan %u starts at %llu, the previous ended at %llu",
                              (unsigned long long)bytes, c, (unsigned long long)lo,
                              (unsigned long long)next);
                        next = hi;
                    }
                    if (mins[mi] && bytes < 2ull * mins[mi] && c > 0)
                        CHECK(hi == lo, "bytes %llu (min %u): channel %u is not empty",
                              (unsigned long long)bytes, mins[mi], c);
                    cases++;
                }
                CHECK(next == bytes, "bytes %llu over %u channels: covered %llu",
                      (unsigned long long)bytes, chans[ci], (unsigned long long)next);
            }
    printf("%s: %d channel slices partition their steps\n", failures ? "FAIL" : "ok", cases);
}

static void test_fifos(void)
{
    enum { SLOTS = 16 };
    int cases = 0, before = failures;
    for (uint64_t ctx = 0; ctx < 40; ctx++) {
        for (uint32_t first = 0; first < 100; first++) { /* 16 consecutive tags */
            int used[SLOTS] = {0};
            for (uint32_t t = first; t < first + SLOTS; t++) {
                uint32_t f = dfc_gpu_fifo_of(((ctx << 32) | t) + 1, SLOTS);
                CHECK(f < SLOTS && !used[f], "ctx %llu: tag %u shares FIFO %u",
                      (unsigned long long)ctx, t, f);
                if (f < SLOTS) used[f] = 1;
                cases++;
            }
        }
        for (uint32_t starts = 0; starts < 300; starts++) { /* 8 persistent, started together */
            int used[SLOTS] = {0};
            for (uint32_t pinit = 0; pinit < 8; pinit++) {
                uint32_t tag = 0x40000000u | (pinit << 16) |
                               starts; /* scheduler.c's persistent tag */
                uint32_t f = dfc_gpu_fifo_of(((ctx << 32) | tag) + 1, SLOTS);
                CHECK(!used[f], "ctx %llu start %u: persistent %u shares FIFO %u",
                      (unsigned long long)ctx, starts, pinit, f);
                used[f] = 1;
                cases++;
            }
        }
    }
    printf("%s: %d FIFO choices distinct where they must be\n", failures > before ? "FAIL" : "ok",
           cases);
}

/* Checks the fusion marks of one schedule against their definition; returns uses_tmp. */
static int check_fusion(const char *what, dfc_sched_t *s, uint64_t item)
{
    int uses_tmp = dfc_gpu_mark_fused(s->steps, s->nsteps, item);
    for (int start = 0, end; start < s->nsteps; start = end + 1) {
        for (end = start; end < s->nsteps && dfc_gpu_is_transfer(&s->steps[end]); end++) {}
        for (int i = start; i < end; i++) {
            const dfc_step_t *r = &s->steps[i];
            if (r->kind != DFC_STEP_RECV_REDUCE) continue;
            int overlap = 0;
            for (int j = start; j < end; j++) {
                const dfc_step_t *x = &s->steps[j];
                int send = x->kind == DFC_STEP_SEND, xbuf = send ? x->src_buf : x->dst_buf;
                uint64_t xlo = send ? x->src_off : x->dst_off;
                uint64_t xhi = xlo + (x->kind == DFC_STEP_RECV_REDUCE ? x->count * item : x->bytes);
                if (j != i && xbuf == r->dst_buf && xlo < r->dst_off + r->count * item &&
                    r->dst_off < xhi)
                    overlap = 1;
            }
            CHECK(overlap == !(r->order & DFC_GPU_FUSED),
                  "%s: step %d fused %d with another transfer overlapping %d", what, i,
                  !!(r->order & DFC_GPU_FUSED), overlap);
        }
    }
    return uses_tmp;
}

/* The channels of a collective (16 blocks, 32 KiB minimum slice): no step gives a byte to a
 * channel at or past the count. Returns the count. */
static uint32_t check_channels(const char *what, const dfc_sched_t *s, uint64_t item)
{
    uint32_t n = dfc_gpu_channels_of(s->steps, s->nsteps, item, 32768, 16);
    for (int i = 0; i < s->nsteps; i++) {
        const dfc_step_t *st = &s->steps[i];
        uint64_t bytes = st->kind == DFC_STEP_REDUCE || st->kind == DFC_STEP_RECV_REDUCE
                             ? st->count * item
                             : st->bytes;
        for (uint32_t c = n; c < 16; c++) {
            uint64_t lo, hi;
            dfc_gpu_slice(bytes, c, 16, 32768, &lo, &hi);
            CHECK(hi <= lo,
                  "%s: step %d (%llu bytes) gives channel %u bytes but the collective runs on %u",
                  what, i, (unsigned long long)bytes, c, n);
        }
    }
    return n;
}

static void build(dfc_coll_build_fn fn, dfc_coll_args_t *a, dfc_sched_t *s)
{
    dfc_sched_init(s);
    CHECK(fn(a, s) == DFC_SUCCESS, "building a schedule failed");
}

static void test_fusion_and_channels(void)
{
    int schedules = 0, before = failures;
    for (int n = 2; n <= 8; n++)
        for (int rank = 0; rank < n; rank++)
            for (uint64_t count = 1; count <= (1u << 22); count *= 16) {
                for (int in_place = 0; in_place < 2; in_place++) {
                    dfc_coll_args_t a = {.kind = DFC_COLL_ALLREDUCE,
                                         .rank = rank,
                                         .size = n,
                                         .count = count,
                                         .elem = 4,
                                         .commutative = 1,
                                         .in_place = in_place,
                                         .gpu = 1};
                    dfc_sched_t s;
                    build(dfc_coll_allreduce_ring_build, &a, &s);
                    int tmp = check_fusion("ring allreduce", &s, 4);
                    if (count >= (uint64_t)n)
                        CHECK(!tmp, "ring allreduce n %d count %llu needs TMP in the daemon", n,
                              (unsigned long long)count);
                    uint32_t nchan = check_channels("ring allreduce", &s, 4);
                    if (count * 4 >= (uint64_t)n * 65536)
                        CHECK(nchan > 1, "a %llu-byte ring allreduce on one channel",
                              (unsigned long long)count * 4);
                    dfc_sched_destroy(&s);
                    build(dfc_coll_allreduce_recursive_doubling_build, &a, &s);
                    tmp = check_fusion("recursive doubling allreduce", &s, 4);
                    int rr = 0;
                    for (int i = 0; i < s.nsteps; i++)
                        rr += s.steps[i].kind == DFC_STEP_RECV_REDUCE;
                    CHECK(!rr || tmp,
                          "recursive doubling sends the buffer it reduces into: it must use TMP");
                    if (check_channels("recursive doubling allreduce", &s, 4) != 1)
                        CHECK(count * 4 >= 65536, "a %llu-byte allreduce not on one channel",
                              (unsigned long long)count * 4);
                    dfc_sched_destroy(&s);
                    build(dfc_coll_allreduce_rabenseifner_build, &a, &s);
                    check_fusion("rabenseifner allreduce", &s, 4);
                    check_channels("rabenseifner allreduce", &s, 4);
                    dfc_sched_destroy(&s);
                    schedules += 3;
                }
                dfc_coll_args_t a = {.kind = DFC_COLL_REDUCE_SCATTER_BLOCK,
                                     .rank = rank,
                                     .size = n,
                                     .count = count,
                                     .elem = 8,
                                     .commutative = 1,
                                     .gpu = 1};
                dfc_sched_t s;
                build(dfc_coll_reduce_scatter_pairwise_build, &a, &s);
                check_fusion("reduce_scatter_block", &s, 8);
                check_channels("reduce_scatter_block", &s, 8);
                dfc_sched_destroy(&s);
                schedules++;
            }
    printf("%s: fusion marks and channel counts of %d schedules match their definitions\n",
           failures > before ? "FAIL" : "ok", schedules);
}

/* The automatic chunk: the FIFO memory of every geometry up to 8 GPUs fits the budget, is
 * as large as the budget allows (twice the chunk would not fit, or it is 256 KiB), and the
 * defaults give 256 KiB at 2 GPUs and 64 KiB at 8 (192 MiB each, dfc_env(7)). */
static void test_auto_chunk(void)
{
    int before = failures, geoms = 0;
    const uint64_t budget = 256ull << 20;
    for (uint32_t nlocal = 1; nlocal <= 8; nlocal++)
        for (uint32_t channels = 1; channels <= 32; channels *= 2)
            for (uint32_t slots = 1; slots <= 16; slots *= 2)
                for (uint32_t depth = 2; depth <= 8; depth *= 2) {
                    dfc_gpu_geom_t g = {.nlocal = nlocal,
                                        .channels = channels,
                                        .slots = slots,
                                        .depth = depth};
                    uint64_t chunk = dfc_gpu_auto_chunk(&g, budget);
                    uint64_t chunks = (uint64_t)nlocal * channels * (slots * depth + DFC_GPU_SPILL);
                    CHECK(chunk >= 16384 && chunk <= 262144 && !(chunk & (chunk - 1)), "chunk %llu",
                          (unsigned long long)chunk);
                    if (chunk > 16384)
                        CHECK(chunk * chunks <= budget, "%u GPUs: %llu bytes of FIFOs", nlocal,
                              (unsigned long long)(chunk * chunks));
                    if (chunk < 262144)
                        CHECK(2 * chunk * chunks > budget, "%u GPUs: chunk %llu could double",
                              nlocal, (unsigned long long)chunk);
                    geoms++;
                }
    dfc_gpu_geom_t two = {.nlocal = 2, .channels = 32, .slots = 2, .depth = 4}, eight = two;
    eight.nlocal = 8;
    CHECK(dfc_gpu_auto_chunk(&two, budget) == 262144, "defaults at 2 GPUs: %u",
          dfc_gpu_auto_chunk(&two, budget));
    CHECK(dfc_gpu_auto_chunk(&eight, budget) == 65536, "defaults at 8 GPUs: %u",
          dfc_gpu_auto_chunk(&eight, budget));
    printf("%s: automatic chunk of %d geometries fits the FIFO budget\n",
           failures > before ? "FAIL" : "ok", geoms);
}

/* dfc_gpu_number_transfers: on both sides of every pair, the k-th send from r to q and q's
 * k-th receive from r carry the same number and the same size, for every schedule the daemon
 * runs at 2 to 8 ranks (what the rendezvous's invitations rely on). */
static void test_ordinals(void)
{
    int before = failures, pairs = 0;
    dfc_coll_build_fn fns[] = {dfc_coll_allreduce_ring_build,
                               dfc_coll_allreduce_recursive_doubling_build,
                               dfc_coll_allreduce_rabenseifner_build,
                               dfc_coll_reduce_scatter_pairwise_build};
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++)
        for (int n = 2; n <= 8; n++)
            for (uint64_t count = 1; count <= (1u << 20); count *= 64) {
                dfc_sched_t s[8];
                for (int r = 0; r < n; r++) {
                    dfc_coll_args_t a = {.kind = f == 3 ? DFC_COLL_REDUCE_SCATTER_BLOCK
                                                        : DFC_COLL_ALLREDUCE,
                                         .rank = r,
                                         .size = n,
                                         .count = count,
                                         .elem = 4,
                                         .commutative = 1,
                                         .gpu = 1};
                    build(fns[f], &a, &s[r]);
                    dfc_gpu_number_transfers(s[r].steps, s[r].nsteps, n);
                }
                for (int r = 0; r < n; r++)
                    for (int q = 0; q < n; q++) {
                        if (q == r) continue;
                        const dfc_step_t *snd[DFC_GPU_MAX_STEPS], *rcv[DFC_GPU_MAX_STEPS];
                        int ns = 0, nr = 0;
                        for (int i = 0; i < s[r].nsteps; i++)
                            if (s[r].steps[i].kind == DFC_STEP_SEND && s[r].steps[i].peer == q)
                                snd[ns++] = &s[r].steps[i];
                        for (int i = 0; i < s[q].nsteps; i++)
                            if (dfc_gpu_is_transfer(&s[q].steps[i]) &&
                                s[q].steps[i].kind != DFC_STEP_SEND && s[q].steps[i].peer == r)
                                rcv[nr++] = &s[q].steps[i];
                        CHECK(ns == nr, "fn %zu n %d: %d sends from %d to %d, %d receives", f, n,
                              ns, r, q, nr);
                        for (int k = 0; k < ns && k < nr; k++) {
                            CHECK(DFC_GPU_ORDINAL(snd[k]) == (uint64_t)k &&
                                      DFC_GPU_ORDINAL(rcv[k]) == (uint64_t)k,
                                  "fn %zu n %d %d->%d transfer %d numbered %llu and %llu", f, n, r,
                                  q, k, (unsigned long long)DFC_GPU_ORDINAL(snd[k]),
                                  (unsigned long long)DFC_GPU_ORDINAL(rcv[k]));
                            CHECK(snd[k]->bytes == rcv[k]->bytes,
                                  "fn %zu n %d %d->%d transfer %d: %llu bytes sent, %llu received",
                                  f, n, r, q, k, (unsigned long long)snd[k]->bytes,
                                  (unsigned long long)rcv[k]->bytes);
                        }
                        pairs++;
                    }
                for (int r = 0; r < n; r++) dfc_sched_destroy(&s[r]);
            }
    printf("%s: transfers of %d ordered pairs numbered alike on both sides\n",
           failures > before ? "FAIL" : "ok", pairs);
}

int main(void)
{
    test_ordinals();
    test_slices();
    test_fifos();
    test_fusion_and_channels();
    test_auto_chunk();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    return 0;
}
