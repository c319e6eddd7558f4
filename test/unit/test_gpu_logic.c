/*
 * test_gpu_logic - the GPU daemon kernel's decisions (src/gpu/daemon_logic.h), compiled for
 * the host and driven through interleavings without a GPU (issue 23, item 5):
 *
 *   - the submission mirror (PROTOCOL.md 1 and 2): a host publishing entries while the SQ has
 *     room, channel 0 mirroring them into a ring, and blocks that admit at random moments
 *     or stall for a long while (a block inside a large collective). Every block must read
 *     every entry exactly once, in order. Random schedules (2 to 32 blocks, rings of 4 to
 *     128) and every schedule of a small case (2 blocks, a ring of 2, 5 entries, each step
 *     any of the three actors). The rule before issue 23 (mirror everything published) is
 *     run on the same schedules and must be caught losing an entry: the regression case of
 *     defect 2.
 *   - the invitation tables (PROTOCOL.md 5): random invitations and releases of up to 128
 *     live idents, some sharing a hash. Every lookup finds a live ident at the entry it was
 *     put in and never finds a released one; an insertion always finds an entry; when all
 *     are released the table is free again.
 *   - the chunk, spill, invitation, cancel, exit and relaunch decisions (gpu_explore.c): 2 to
 *     4 simulated GPUs run real schedules in crossed and chaos orders, with bursts, a GPU that
 *     dies, kernels that exit and are relaunched; random runs, and every reachable state of
 *     small cases. The rules before issue 23 must be caught: the eager protocol (rendezvous
 *     off) hangs on the crossed Iallreduce/Allreduce with 5-chunk steps and a 4-entry spill
 *     (defect 1), the cancel that only dropped the queue entry (idents repeating) hangs or
 *     feeds a later collective stale chunks (defect 3), the epoch advanced before a launch
 *     that fails never relaunches (defect 4). The same defects are checked on the GPU
 *     machine by test/mpi-style/gpu/testlist-mps.
 * The budget is fixed (about 3 s of CPU for the explorer). TEST_GPU_EXPLORE=N multiplies the
 * random runs by N and, when N > 1, adds larger exhaustive cases of up to 100,000 x N states
 * each (a long run: N = 20 takes about 30 s of CPU, N = 100 over 10 minutes).
 * Prints "ok: ..." lines and exits 0, or reports each failure and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/daemon_logic.h"
#include "gpu_explore.h"

#include "unit_check.h"

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* ---- the mirror ----------------------------------------------------------------------- */
#define MAXB 32
#define MAXRING 128
typedef struct mirror_sim {
    uint32_t blocks, ring, total; /* entries the host publishes in all */
    uint32_t host_ring[MAXRING], msq[MAXRING];
    uint32_t sq_tail, sq_seen, msq_tail;
    uint32_t admitted[MAXB], next[MAXB]; /* head published; next entry value expected */
    int bounded, bad;
} mirror_sim_t;

/* The host publishes entry number sq_tail (its value) while the SQ has room. */
static void host_step(mirror_sim_t *m)
{
    if (m->sq_tail == m->total || m->sq_tail - m->sq_seen >= m->ring) return;
    m->host_ring[m->sq_tail % m->ring] = m->sq_tail;
    m->sq_tail++;
}

/* Channel 0's mirror_sq: everything published (old rule), or within the bound. */
static void mirror_step(mirror_sim_t *m)
{
    uint32_t tail = m->sq_tail;
    if (m->bounded) {
        uint32_t room = dfc_gpu_mirror_room(m->msq_tail, m->admitted, m->blocks, m->ring);
        if (tail - m->msq_tail > room) tail = m->msq_tail + room;
    }
    for (uint32_t i = m->msq_tail; i != tail; i++) m->msq[i % m->ring] = m->host_ring[i % m->ring];
    m->msq_tail = tail;
    m->sq_seen = tail;
}

/* Block b admits everything mirrored so far, checking that it reads entries in order. */
static void admit_step(mirror_sim_t *m, uint32_t b)
{
    for (uint32_t h = m->admitted[b]; h != m->msq_tail; h++) {
        if (m->msq[h % m->ring] != m->next[b]) m->bad = 1;
        m->next[b]++;
    }
    m->admitted[b] = m->msq_tail;
}

static int mirror_done(const mirror_sim_t *m)
{
    for (uint32_t b = 0; b < m->blocks; b++)
        if (m->next[b] != m->total) return 0;
    return 1;
}

static void mirror_init(mirror_sim_t *m, uint32_t blocks, uint32_t ring, uint32_t total,
                        int bounded)
{
    memset(m, 0, sizeof *m);
    m->blocks = blocks, m->ring = ring, m->total = total, m->bounded = bounded;
}

/* One random schedule: block 1 stalls for long stretches (a large collective). Returns 1
 * when some block read an entry out of order (lost or duplicated). */
static int mirror_random(uint32_t blocks, uint32_t ring, uint32_t total, int bounded, uint64_t seed)
{
    mirror_sim_t m;
    mirror_init(&m, blocks, ring, total, bounded);
    rng = seed | 1;
    uint32_t stall = 0;
    for (int step = 0; step < 200000 && !mirror_done(&m) && !m.bad; step++) {
        uint32_t what = rnd(4);
        if (what == 0) host_step(&m);
        else if (what == 1) mirror_step(&m);
        else {
            uint32_t b = rnd(blocks);
            if (b == 1 && blocks > 1) {
                if (stall) {
                    stall--;
                    continue;
                }
                stall = rnd(8) ? 0 : rnd(4 * ring);
            }
            admit_step(&m, b);
        }
    }
    CHECK(m.bad || mirror_done(&m),
          "mirror: %u blocks, ring %u, bounded %d: stuck after %u of %u entries", blocks, ring,
          bounded, m.next[0], total);
    return m.bad;
}

/* Every schedule of `depth` steps, each step one of host, mirror, block 0, block 1. */
static void mirror_exhaustive(mirror_sim_t *m, int depth, int *found_bad, long *schedules)
{
    if (m->bad || depth == 0) {
        if (m->bad) (*found_bad)++;
        (*schedules)++;
        return;
    }
    for (int a = 0; a < 4; a++) {
        mirror_sim_t copy = *m;
        if (a == 0) host_step(&copy);
        else if (a == 1) mirror_step(&copy);
        else admit_step(&copy, (uint32_t)a - 2);
        mirror_exhaustive(&copy, depth - 1, found_bad, schedules);
    }
}

static void test_mirror(void)
{
    int before = failures, runs = 0, old_bad = 0, new_bad = 0;
    for (uint32_t blocks = 2; blocks <= MAXB; blocks *= 2)
        for (uint32_t ring = 4; ring <= MAXRING; ring *= 2)
            for (uint64_t seed = 1; seed <= 20; seed++) {
                new_bad += mirror_random(blocks, ring, 6 * ring, 1, seed * 7919);
                old_bad += mirror_random(blocks, ring, 6 * ring, 0, seed * 7919);
                runs++;
            }
    CHECK(!new_bad,
          "mirror: the bounded rule lost or duplicated an entry in %d of %d random schedules",
          new_bad, runs);
    CHECK(old_bad > 0,
          "mirror: the explorer did not catch the unbounded rule (defect 2) in %d schedules", runs);
    mirror_sim_t m;
    int bad = 0, bad_old = 0;
    long schedules = 0;
    mirror_init(&m, 2, 2, 5, 1);
    mirror_exhaustive(&m, 11, &bad, &schedules);
    mirror_init(&m, 2, 2, 5, 0);
    long schedules_old = 0;
    mirror_exhaustive(&m, 11, &bad_old, &schedules_old);
    CHECK(!bad, "mirror: the bounded rule failed in %d of %ld exhaustive schedules", bad,
          schedules);
    CHECK(bad_old > 0, "mirror: exhaustive schedules did not catch the unbounded rule");
    printf(
        "%s: mirror bound holds in %d random and %ld exhaustive schedules (the old rule failed %d and %d)\n",
        failures > before ? "FAIL" : "ok", runs, schedules, old_bad, bad_old);
}

/* ---- the invitation tables ------------------------------------------------------------- */
static void test_invitations(void)
{
    int before = failures;
    uint64_t shadow[DFC_GPU_INVITES] = {0}, live[128];
    uint32_t at[128], nlive = 0, max_probe = 0;
    long ops = 0;
    uint64_t next_ident = 1;
    rng = 12345;
    for (int step = 0; step < 200000; step++) {
        if (nlive < 128 && (nlive == 0 || rnd(2))) {
            /* every 4th ident shares its hash with a live one: clusters */
            uint64_t ident = next_ident++;
            if (nlive && rnd(4) == 0) {
                uint32_t want = dfc_gpu_inv_hash(live[rnd(nlive)]);
                while (dfc_gpu_inv_hash(ident) != want) ident = next_ident++;
            }
            CHECK(dfc_gpu_inv_find(shadow, ident) == DFC_GPU_INV_NONE,
                  "ident %llu found before its invitation", (unsigned long long)ident);
            uint32_t idx = dfc_gpu_inv_insert(shadow, ident);
            CHECK(idx != DFC_GPU_INV_NONE, "no entry for an invitation with %u live", nlive);
            if (idx == DFC_GPU_INV_NONE) break;
            live[nlive] = ident, at[nlive] = idx, nlive++;
        } else {
            uint32_t k = rnd(nlive);
            uint64_t gone = live[k];
            dfc_gpu_inv_release(shadow, at[k]);
            live[k] = live[nlive - 1], at[k] = at[nlive - 1], nlive--;
            CHECK(dfc_gpu_inv_find(shadow, gone) == DFC_GPU_INV_NONE,
                  "released ident %llu still found", (unsigned long long)gone);
        }
        for (uint32_t k = 0; k < nlive; k++) {
            uint32_t found = dfc_gpu_inv_find(shadow, live[k]);
            CHECK(found == at[k], "ident %llu at %u found at %u", (unsigned long long)live[k],
                  at[k], found);
            uint32_t probe = (found + DFC_GPU_INVITES - dfc_gpu_inv_hash(live[k])) %
                             DFC_GPU_INVITES;
            if (probe > max_probe) max_probe = probe;
        }
        ops++;
    }
    while (nlive) {
        dfc_gpu_inv_release(shadow, at[nlive - 1]);
        nlive--;
    }
    int dirty = 0;
    for (uint32_t i = 0; i < DFC_GPU_INVITES; i++) dirty += shadow[i] != 0;
    CHECK(!dirty, "%d entries not free once every invitation was released", dirty);
    printf("%s: invitation tables through %ld invitations and releases (longest probe %u)\n",
           failures > before ? "FAIL" : "ok", ops, max_probe);
}

int main(void)
{
    const char *scale = getenv("TEST_GPU_EXPLORE");
    test_mirror();
    test_invitations();
    failures += gpu_explore_all(scale && atoi(scale) > 0 ? atoi(scale) : 1);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    return 0;
}
