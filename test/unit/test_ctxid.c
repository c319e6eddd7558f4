/*
 * test_ctxid.c - unit test of the context-id allocator (src/comm/ctxid.c), linked alone:
 *   1. reset: WORLD (0) and SELF (1) are taken, every other id is free; take/free;
 *   2. pick: the lowest set bit, at word boundaries and at the last id; -1 on an empty mask;
 *   3. and: several masks, laid out with different strides (packed arrays and masks embedded
 *      in larger records, as comm.c gathers them), against a naive bit-by-bit reference;
 *      an id freed on one process but still held by another is never picked;
 *   4. 100,000 create/free cycles of communicators over random subsets of 4 simulated
 *      processes: process 0 is this process (its mask is ctxid.c's static one, driven through
 *      take/free/mask); processes 1-3 are plain mask arrays. Every id handed out must be the
 *      lowest id free on all members in an independent reference, never in use by any member,
 *      and the allocator must never run out (at most 600 communicators live at once);
 *   5. exhaustion: all DFC_CTXID_MAX ids taken (locally, or by disjoint masks of two
 *      processes) makes pick return -1; freeing one id makes exactly that id available;
 *   6. concurrent creations (threads): simulated interleavings of the rounds of ctxid.c's
 *      agreement over 3 processes, in test_ctxid_rounds.c; the lending rule is checked
 *      directly here first.
 * Prints one line per failure (the first 30) and a summary per part; exits 1 on failure.
 * No stubs: ctxid.c needs nothing from the rest of the library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

#define UNIT_RNG_SEED 0x243f6a8885a308d3ull
#include "unit_check.h"

static unsigned rnd(unsigned n) { return (unsigned)((rnd64() >> 11) % n); }

typedef uint32_t mask_t[DFC_CTXID_WORDS];

static int bit(const uint32_t *m, int id) { return (m[id / 32] >> (id % 32)) & 1; }
static void set_bit(uint32_t *m, int id) { m[id / 32] |= 1u << (id % 32); }
static void clr_bit(uint32_t *m, int id) { m[id / 32] &= ~(1u << (id % 32)); }

/* The reference pick: the lowest id whose bit is set in every one of n masks, or -1. */
static int ref_pick(const uint32_t *const *masks, int n)
{
    for (int id = 0; id < DFC_CTXID_MAX; id++) {
        int all = 1;
        for (int i = 0; i < n && all; i++) all = bit(masks[i], id);
        if (all) return id;
    }
    return -1;
}

static int count_free(const uint32_t *m)
{
    int n = 0;
    for (int id = 0; id < DFC_CTXID_MAX; id++) n += bit(m, id);
    return n;
}

/* ---- 1. reset, take, free ------------------------------------------------------------- */
static void test_reset(void)
{
    int before = failures;
    mask_t m;
    /* Dirty the local mask first: reset must restore it completely. */
    for (int id = 0; id < DFC_CTXID_MAX; id += 3) dfc_ctxid_take((uint32_t)id);
    dfc_ctxid_free(0);
    dfc_ctxid_free(1);
    dfc_ctxid_reset();
    dfc_ctxid_mask(m);
    CHECK(!bit(m, 0), "after reset WORLD's id 0 is free");
    CHECK(!bit(m, 1), "after reset SELF's id 1 is free");
    CHECK(count_free(m) == DFC_CTXID_MAX - 2, "after reset %d ids are free, expected %d",
          count_free(m), DFC_CTXID_MAX - 2);
    CHECK(dfc_ctxid_pick(m) == 2, "first pick after reset is %d, expected 2", dfc_ctxid_pick(m));

    dfc_ctxid_take(2);
    dfc_ctxid_take(3);
    dfc_ctxid_mask(m);
    CHECK(dfc_ctxid_pick(m) == 4, "pick after taking 2 and 3 is %d, expected 4", dfc_ctxid_pick(m));
    dfc_ctxid_free(2);
    dfc_ctxid_mask(m);
    CHECK(dfc_ctxid_pick(m) == 2, "pick after freeing 2 is %d, expected 2", dfc_ctxid_pick(m));
    CHECK(!bit(m, 3), "freeing 2 also freed 3");
    /* take/free touch only their own bit, in every word, including the last id */
    int probes[] = {
        31, 32, 33, 63, 64, 1000, DFC_CTXID_MAX - 33, DFC_CTXID_MAX - 32, DFC_CTXID_MAX - 1};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        mask_t a, b;
        dfc_ctxid_mask(a);
        dfc_ctxid_take((uint32_t)probes[i]);
        dfc_ctxid_mask(b);
        clr_bit(a, probes[i]);
        CHECK(!memcmp(a, b, sizeof a), "take(%d) changed other bits", probes[i]);
        dfc_ctxid_free((uint32_t)probes[i]);
        dfc_ctxid_mask(b);
        set_bit(a, probes[i]);
        CHECK(!memcmp(a, b, sizeof a), "free(%d) did not restore exactly that bit", probes[i]);
    }
    dfc_ctxid_reset();
    printf("%s reset/take/free: WORLD and SELF taken after reset, single-bit take and free\n",
           failures == before ? "ok" : "not ok");
}

/* ---- 2./3. pick and and ---------------------------------------------------------------- */
typedef struct record { /* a gathered entry as comm.c lays them out: mask inside a record */
    int color, key, rank;
    mask_t mask;
    char pad[5];
} record_t;

static void random_mask(uint32_t *m, int density) /* density: 1 sparse .. 4 dense */
{
    for (int w = 0; w < DFC_CTXID_WORDS; w++) {
        uint32_t x = (uint32_t)rnd64();
        for (int d = 1; d < density; d++) x |= (uint32_t)rnd64();
        if (density == 0) x &= (uint32_t)rnd64() & (uint32_t)rnd64() & (uint32_t)rnd64();
        m[w] = rnd(4) ? x : 0; /* whole empty words too */
    }
}

static void test_pick_and(void)
{
    int before = failures;
    mask_t m;

    memset(m, 0, sizeof m);
    CHECK(dfc_ctxid_pick(m) == -1, "pick of an empty mask is %d, expected -1", dfc_ctxid_pick(m));
    for (int id = 0; id < DFC_CTXID_MAX; id++) {
        memset(m, 0, sizeof m);
        set_bit(m, id);
        if (id + 1 < DFC_CTXID_MAX) set_bit(m, DFC_CTXID_MAX - 1); /* a higher bit too */
        if (id % 32 != 31 && id + 1 < DFC_CTXID_MAX) set_bit(m, id + 1);
        int p = dfc_ctxid_pick(m);
        CHECK(p == id, "pick with lowest set bit %d returned %d", id, p);
    }

    /* and over packed arrays and over records, against the reference */
    enum { NM = 6 };
    static mask_t packed[NM];
    static record_t recs[NM];
    for (int trial = 0; trial < 3000; trial++) {
        int n = 1 + (int)rnd(NM);
        const uint32_t *ptrs[NM];
        for (int i = 0; i < n; i++) {
            random_mask(packed[i], n > 3 ? 4 : (int)rnd(5));
            memcpy(recs[i].mask, packed[i], sizeof(mask_t));
            recs[i].color = recs[i].key = recs[i].rank = -1;
            ptrs[i] = packed[i];
        }
        int want = ref_pick(ptrs, n);

        mask_t acc;
        memset(acc, 0xff, sizeof acc);
        dfc_ctxid_and(acc, packed, n, sizeof(mask_t));
        int got = dfc_ctxid_pick(acc);
        CHECK(got == want, "trial %d: pick of %d packed masks = %d, reference %d", trial, n, got,
              want);
        for (int id = 0; id < DFC_CTXID_MAX; id++) {
            int all = 1;
            for (int i = 0; i < n; i++) all &= bit(ptrs[i], id);
            if (bit(acc, id) != all) {
                FAIL("trial %d: and of %d masks has bit %d = %d, expected %d", trial, n, id,
                     bit(acc, id), all);
                break;
            }
        }

        memset(acc, 0xff, sizeof acc);
        dfc_ctxid_and(acc, recs[0].mask, n, sizeof(record_t));
        got = dfc_ctxid_pick(acc);
        CHECK(got == want, "trial %d: pick of %d masks in records (stride %zu) = %d, reference %d",
              trial, n, sizeof(record_t), got, want);

        /* one at a time with stride 0, as comm.c's build_from_entries calls it */
        memset(acc, 0xff, sizeof acc);
        for (int i = 0; i < n; i++) dfc_ctxid_and(acc, recs[i].mask, 1, 0);
        got = dfc_ctxid_pick(acc);
        CHECK(got == want, "trial %d: pick after %d one-mask ands = %d, reference %d", trial, n,
              got, want);
    }

    /* n = 0 leaves the accumulator alone */
    mask_t acc, copy;
    random_mask(acc, 2);
    memcpy(copy, acc, sizeof acc);
    dfc_ctxid_and(acc, packed, 0, sizeof(mask_t));
    CHECK(!memcmp(acc, copy, sizeof acc), "and of 0 masks changed the accumulator");

    /* Freed on one process, held on another: process 0 (local, through the API) frees 5, 6
     * and 7; the simulated process 1 still holds 5 and 7; 6 is common and must be chosen,
     * then, with 6 taken, 8 (never 5 or 7). */
    dfc_ctxid_reset();
    for (uint32_t id = 2; id < 10; id++) dfc_ctxid_take(id);
    dfc_ctxid_free(5);
    dfc_ctxid_free(6);
    dfc_ctxid_free(7);
    mask_t other;
    memset(other, 0xff, sizeof other);
    for (int id = 0; id < 10; id++)
        if (id != 6) clr_bit(other, id);
    mask_t mine;
    dfc_ctxid_mask(mine);
    memcpy(acc, mine, sizeof acc);
    dfc_ctxid_and(acc, other, 1, 0);
    int p = dfc_ctxid_pick(acc);
    CHECK(p == 6, "local frees 5,6,7, remote holds 5,7: picked %d, expected 6", p);
    dfc_ctxid_take(6);
    clr_bit(other, 6);
    dfc_ctxid_mask(mine);
    memcpy(acc, mine, sizeof acc);
    dfc_ctxid_and(acc, other, 1, 0);
    p = dfc_ctxid_pick(acc);
    CHECK(p == 10, "after taking 6 (5,7 held remotely, 8,9 held locally): picked %d, expected 10",
          p);
    /* and the other way round: the remote frees 8 and 9, the local process still holds them */
    set_bit(other, 8);
    set_bit(other, 9);
    memcpy(acc, mine, sizeof acc);
    dfc_ctxid_and(acc, other, 1, 0);
    p = dfc_ctxid_pick(acc);
    CHECK(p == 10, "remote frees 8,9 held locally: picked %d, expected 10", p);
    dfc_ctxid_reset();

    printf("%s pick/and: lowest common id of 1-%d masks (packed, in records, one by one), "
           "ids held elsewhere skipped\n",
           failures == before ? "ok" : "not ok", NM);
}

/* ---- 4. create/free cycles across 4 simulated processes -------------------------------- */
enum { NPROC = 4, MAXLIVE = 600, CYCLES = 100000 };

typedef struct live_comm {
    int ctx;
    unsigned members; /* bit p: process p is a member */
} live_comm_t;

static void test_cycles(void)
{
    int before = failures;
    static record_t remote[NPROC]; /* processes 1..3; [0] unused (process 0 is ctxid.c) */
    static unsigned char in_use[NPROC][DFC_CTXID_MAX]; /* the reference state */
    static live_comm_t live[MAXLIVE];
    int nlive = 0, created = 0, max_ctx = 0, max_live = 0, stop = 0;

    dfc_ctxid_reset();
    memset(in_use, 0, sizeof in_use);
    for (int p = 0; p < NPROC; p++) {
        in_use[p][0] = in_use[p][1] = 1; /* WORLD and SELF on every process */
        memset(remote[p].mask, 0xff, sizeof(mask_t));
        clr_bit(remote[p].mask, 0);
        clr_bit(remote[p].mask, 1);
    }

    for (int cycle = 0; cycle < CYCLES && !stop; cycle++) {
        /* Phases of growth and shrinking, so that the live set both fills up (hundreds of
         * ids, fragmented) and drains. */
        int grow_bias = (cycle / 5000) % 2 ? 35 : 65;
        int create = nlive == 0 || (nlive < MAXLIVE && (int)rnd(100) < grow_bias);
        if (create) {
            unsigned members = 1 + rnd((1u << NPROC) - 1); /* non-empty subset */
            mask_t acc;
            memset(acc, 0xff, sizeof acc);
            if (members & 1) {
                mask_t mine;
                dfc_ctxid_mask(mine);
                dfc_ctxid_and(acc, mine, 1, 0);
            }
            if ((members & 0xe) == 0xe && rnd(2)) {
                /* all three remote masks in one call, stride of the record */
                dfc_ctxid_and(acc, remote[1].mask, 3, sizeof(record_t));
            } else {
                for (int p = 1; p < NPROC; p++)
                    if (members & (1u << p)) dfc_ctxid_and(acc, remote[p].mask, 1, 0);
            }
            int ctx = dfc_ctxid_pick(acc);
            int want = -1;
            for (int id = 0; id < DFC_CTXID_MAX && want < 0; id++) {
                int ok = 1;
                for (int p = 0; p < NPROC; p++)
                    if ((members & (1u << p)) && in_use[p][id]) ok = 0;
                if (ok) want = id;
            }
            if (ctx < 0) {
                FAIL("cycle %d: ran out of context ids with %d communicators live (members 0x%x)",
                     cycle, nlive, members);
                stop = 1;
                break;
            }
            for (int p = 0; p < NPROC; p++)
                if ((members & (1u << p)) && in_use[p][ctx]) {
                    FAIL("cycle %d: id %d handed out but still in use on process %d", cycle, ctx,
                         p);
                    stop = 1;
                }
            if (ctx != want) {
                FAIL("cycle %d: picked id %d, the lowest id free on all members 0x%x is %d", cycle,
                     ctx, members, want);
                stop = 1;
            }
            if (stop) break;
            for (int p = 0; p < NPROC; p++)
                if (members & (1u << p)) {
                    in_use[p][ctx] = 1;
                    if (p == 0) dfc_ctxid_take((uint32_t)ctx);
                    else clr_bit(remote[p].mask, ctx);
                }
            live[nlive].ctx = ctx;
            live[nlive].members = members;
            nlive++;
            created++;
            if (ctx > max_ctx) max_ctx = ctx;
            if (nlive > max_live) max_live = nlive;
        } else {
            int k = (int)rnd((unsigned)nlive);
            live_comm_t c = live[k];
            live[k] = live[--nlive];
            for (int p = 0; p < NPROC; p++)
                if (c.members & (1u << p)) {
                    in_use[p][c.ctx] = 0;
                    if (p == 0) dfc_ctxid_free((uint32_t)c.ctx);
                    else set_bit(remote[p].mask, c.ctx);
                }
        }
        /* the local mask always agrees with the reference */
        if (cycle % 97 == 0 || cycle == CYCLES - 1) {
            mask_t mine;
            dfc_ctxid_mask(mine);
            for (int id = 0; id < DFC_CTXID_MAX; id++)
                if (bit(mine, id) != !in_use[0][id]) {
                    FAIL("cycle %d: local mask has id %d %s, the reference has it %s", cycle, id,
                         bit(mine, id) ? "free" : "taken", in_use[0][id] ? "in use" : "free");
                    stop = 1;
                    break;
                }
        }
    }
    /* free everything: all processes are back to WORLD and SELF only */
    while (nlive > 0 && !stop) {
        live_comm_t c = live[--nlive];
        for (int p = 0; p < NPROC; p++)
            if (c.members & (1u << p)) {
                if (p == 0) dfc_ctxid_free((uint32_t)c.ctx);
                else set_bit(remote[p].mask, c.ctx);
            }
    }
    if (!stop) {
        mask_t mine;
        dfc_ctxid_mask(mine);
        CHECK(count_free(mine) == DFC_CTXID_MAX - 2 && !bit(mine, 0) && !bit(mine, 1),
              "after freeing every communicator the local mask has %d free ids", count_free(mine));
        mask_t acc;
        memcpy(acc, mine, sizeof acc);
        dfc_ctxid_and(acc, remote[1].mask, 3, sizeof(record_t));
        CHECK(dfc_ctxid_pick(acc) == 2,
              "after freeing everything the common pick is %d, expected 2", dfc_ctxid_pick(acc));
    }
    dfc_ctxid_reset();
    printf("%s %d create/free cycles on %d processes: %d communicators created, up to %d live, "
           "highest id %d%s\n",
           failures == before ? "ok" : "not ok", CYCLES, NPROC, created, max_live, max_ctx,
           failures == before ? "; never exhausted, never an id in use" : "");
}

/* ---- 5. exhaustion ----------------------------------------------------------------------- */
static void test_exhaustion(void)
{
    int before = failures;
    mask_t m;
    dfc_ctxid_reset();
    int taken = 2;
    for (;;) {
        dfc_ctxid_mask(m);
        int id = dfc_ctxid_pick(m);
        if (id < 0) break;
        if (bit(m, id) == 0 || id < 2 || taken >= DFC_CTXID_MAX) {
            FAIL("exhaustion: pick returned %d after %d ids were taken", id, taken);
            break;
        }
        dfc_ctxid_take((uint32_t)id);
        taken++;
    }
    CHECK(taken == DFC_CTXID_MAX, "exhaustion: %d ids could be taken, expected %d", taken,
          DFC_CTXID_MAX);
    dfc_ctxid_mask(m);
    CHECK(dfc_ctxid_pick(m) == -1, "all %d ids taken: pick returned %d, expected -1", DFC_CTXID_MAX,
          dfc_ctxid_pick(m));
    dfc_ctxid_free(DFC_CTXID_MAX - 1);
    dfc_ctxid_mask(m);
    CHECK(dfc_ctxid_pick(m) == DFC_CTXID_MAX - 1, "only the last id free: pick returned %d",
          dfc_ctxid_pick(m));
    dfc_ctxid_take(DFC_CTXID_MAX - 1);
    dfc_ctxid_free(1000);
    dfc_ctxid_mask(m);
    CHECK(dfc_ctxid_pick(m) == 1000, "only id 1000 free: pick returned %d", dfc_ctxid_pick(m));

    /* Exhaustion by agreement: each of two processes has half its ids free, but no id is free
     * on both. */
    dfc_ctxid_reset();
    for (int id = 2; id < DFC_CTXID_MAX; id += 2) dfc_ctxid_take((uint32_t)id); /* odd free */
    mask_t other, acc;
    memset(other, 0, sizeof other);
    for (int id = 2; id < DFC_CTXID_MAX; id += 2) set_bit(other, id); /* even free */
    dfc_ctxid_mask(acc);
    dfc_ctxid_and(acc, other, 1, 0);
    CHECK(dfc_ctxid_pick(acc) == -1, "disjoint free sets: pick returned %d, expected -1",
          dfc_ctxid_pick(acc));
    set_bit(other, 3001);
    dfc_ctxid_mask(acc);
    dfc_ctxid_and(acc, other, 1, 0);
    CHECK(dfc_ctxid_pick(acc) == 3001, "only 3001 free on both: pick returned %d",
          dfc_ctxid_pick(acc));
    dfc_ctxid_reset();
    printf("%s exhaustion: all %d ids taken gives -1; one freed id is found again\n",
           failures == before ? "ok" : "not ok", DFC_CTXID_MAX);
}

/* ---- 6. the lending rule, step by step (the interleavings are in test_ctxid_rounds.c) --- */
int ctxid_rounds_test(void);

static void test_lending(void)
{
    int before = failures;
    dfc_ctxid_space_t s;
    dfc_ctxid_creation_t a, b, c;
    mask_t m, full;
    dfc_ctxid_space_reset(&s);
    memcpy(full, s.free, sizeof full);
    /* A concurrent creation offers nothing in its first round (it may wait for ever). */
    dfc_ctxid_begin(&s, &b, 2ull << 32, 0);
    CHECK(!dfc_ctxid_offer(&s, &b, m) && count_free(m) == 0, "first round of B offered a mask");
    dfc_ctxid_round_end(&s, &b);
    /* Entered, B gets the mask; A, entering later with a smaller key, must not get it while
     * B's round holds it (issue 25 item 4: both offered one snapshot). */
    CHECK(dfc_ctxid_offer(&s, &b, m) && !memcmp(m, full, sizeof m), "entered B got no mask");
    dfc_ctxid_begin(&s, &a, 0, 0);
    CHECK(!dfc_ctxid_offer(&s, &a, m) && count_free(m) == 0, "A's first round offered a mask");
    dfc_ctxid_round_end(&s, &a);
    CHECK(!dfc_ctxid_offer(&s, &a, m) && count_free(m) == 0, "A got the mask B's round holds");
    dfc_ctxid_round_end(&s, &a);
    /* B's round takes id 2, then returns the mask: A (smaller key) has it next, without 2. */
    dfc_ctxid_space_take(&s, 2);
    dfc_ctxid_round_end(&s, &b);
    dfc_ctxid_end(&s, &b);
    CHECK(dfc_ctxid_offer(&s, &a, m) && !bit(m, 2) && dfc_ctxid_pick(m) == 3,
          "A's offer after B took 2 picks %d", dfc_ctxid_pick(m));
    dfc_ctxid_round_end(&s, &a);
    /* Priority: with A and C entered, only the smaller key is lent the mask. */
    dfc_ctxid_begin(&s, &c, 5ull << 32, 0);
    dfc_ctxid_round_end(&s, &c);
    CHECK(!dfc_ctxid_offer(&s, &c, m), "C got the mask while the smaller key A is entered");
    dfc_ctxid_round_end(&s, &c);
    CHECK(dfc_ctxid_offer(&s, &a, m), "A did not get the mask");
    dfc_ctxid_end(&s, &a); /* an error path: the mask comes back with the creation's end */
    CHECK(s.lent_to == NULL && s.flight == &c, "end left the mask lent or A in flight");
    CHECK(dfc_ctxid_offer(&s, &c, m), "C did not get the mask once A was gone");
    dfc_ctxid_end(&s, &c);
    /* Below THREAD_MULTIPLE the first round offers. */
    dfc_ctxid_begin(&s, &a, 0, 1);
    CHECK(dfc_ctxid_offer(&s, &a, m), "a single-threaded creation's first round offered nothing");
    dfc_ctxid_end(&s, &a);
    CHECK(s.flight == NULL && s.lent_to == NULL, "space not empty at the end");
    printf("%s lending: the first concurrent round offers nothing, one round holds the mask "
           "until its id is taken, the smallest entered key goes first\n",
           failures == before ? "ok" : "not ok");
}

int main(void)
{
    test_reset();
    test_pick_and();
    test_cycles();
    test_exhaustion();
    test_lending();
    failures += ctxid_rounds_test();
    printf("%s test_ctxid (%d failures)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
