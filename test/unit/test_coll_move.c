/*
 * test_coll_move.c - unit test of the data-movement collective schedules: barrier, bcast
 * (binomial, scatter_allgather), gather(v), scatter(v), allgather(v) (ring, recursive
 * doubling, bruck) and alltoall(v) (pairwise).
 *
 * For n = 1..9 ranks, every root, block sizes 0, 1, 13, 4096 and 1 MiB, in place and not, and
 * v forms with uneven and zero counts, differing send/recv item sizes and permuted
 * displacements with gaps, each rank's schedule is built and all n schedules are run together
 * by a simulator with the schedule semantics of dfc_sched.h, in rank order and in random
 * interleavings. Receive and scratch buffers are poisoned first; afterwards every byte of every
 * receive buffer is compared with a serial reference (gaps must still hold the poison), and
 * send buffers must be unchanged.
 *
 * The simulator (below) posts transfers without waiting and matches them per ordered pair of
 * ranks in posting order; a fence (or COPY, or the end) waits for the transfers posted since
 * the last one. It reports: size mismatches of matched transfers, accesses outside a bound
 * buffer, transfers to self, races (a receive whose region overlaps another transfer's region
 * posted in the same fence window on that rank), transfers after the last fence, deadlocks,
 * unmatched transfers, and for barrier, a rank leaving before it has heard from every rank.
 * Prints one line per collective; exits 1 when anything failed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/dfc_coll.h"

/* Declared by the algorithm files (their prototypes are not in dfc_coll.h yet). */
int dfc_coll_bcast_scatter_allgather_usable(const dfc_coll_args_t *a);
int dfc_coll_allgather_recursive_doubling_usable(const dfc_coll_args_t *a);
int dfc_coll_allgather_bruck_usable(const dfc_coll_args_t *a);

#define NMAX 9
#define POISON 0xEE

static int failures;
static int reported;
static char case_name[256];
#define FAIL(...)                                                                             \
    do {                                                                                      \
        failures++;                                                                           \
        if (reported++ < 30) {                                                                \
            fprintf(stderr, "FAIL [%s] ", case_name);                                         \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fputc('\n', stderr);                                                              \
        }                                                                                     \
    } while (0)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* ---- Buffer images: a length, poison, and segments of generated data ---------------------- */
typedef struct seg {
    uint64_t off, len, seed;
} seg_t;

typedef struct image {
    uint64_t len; /* 0: no buffer (NULL) */
    int nseg;
    seg_t seg[2 * NMAX];
} image_t;

static void image_add(image_t *im, uint64_t off, uint64_t len, uint64_t seed)
{
    if (len == 0) return;
    if (im->nseg == 2 * NMAX) abort();
    im->seg[im->nseg++] = (seg_t){ off, len, seed };
}

/* The bytes of data block `seed`: a stream that differs for every seed. */
static void gen(uint8_t *p, uint64_t len, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    uint64_t i = 0;
    for (; i + 8 <= len; i += 8) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        uint64_t w = x * 0x2545f4914f6cdd1dull;
        memcpy(p + i, &w, 8);
    }
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    uint64_t w = x * 0x2545f4914f6cdd1dull;
    memcpy(p + i, &w, len - i);
}

static uint8_t *image_make(const image_t *im)
{
    if (im->len == 0) return NULL;
    uint8_t *p = malloc(im->len);
    if (!p) abort();
    memset(p, POISON, im->len);
    for (int i = 0; i < im->nseg; i++) gen(p + im->seg[i].off, im->seg[i].len, im->seg[i].seed);
    return p;
}

static int cmp_seg(const void *x, const void *y)
{
    const seg_t *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

static uint8_t *scratch;
static uint64_t scratch_len;

/* Compares p with the image; returns 0 if equal, else reports the first difference. */
static int image_check(const image_t *im, const uint8_t *p, const char *what, int rank)
{
    image_t s = *im;
    qsort(s.seg, (size_t)s.nseg, sizeof s.seg[0], cmp_seg);
    uint64_t pos = 0;
    for (int i = 0; i <= s.nseg; i++) {
        uint64_t end = i < s.nseg ? s.seg[i].off : s.len;
        for (; pos < end; pos++)
            if (p[pos] != POISON) {
                FAIL("rank %d %s: byte %llu is 0x%02x, expected the poison (untouched)", rank, what,
                     (unsigned long long)pos, p[pos]);
                return 1;
            }
        if (i == s.nseg) break;
        if (s.seg[i].len > scratch_len) {
            scratch = realloc(scratch, s.seg[i].len);
            scratch_len = s.seg[i].len;
        }
        gen(scratch, s.seg[i].len, s.seg[i].seed);
        if (memcmp(scratch, p + pos, s.seg[i].len)) {
            uint64_t k = 0;
            while (scratch[k] == p[pos + k]) k++;
            FAIL("rank %d %s: byte %llu (byte %llu of block seed %llu) is 0x%02x, expected 0x%02x",
                 rank, what, (unsigned long long)(pos + k), (unsigned long long)k,
                 (unsigned long long)s.seg[i].seed, p[pos + k], scratch[k]);
            return 1;
        }
        pos += s.seg[i].len;
    }
    return 0;
}

/* ---- The simulator ------------------------------------------------------------------------- */
typedef struct sim_rank {
    const dfc_sched_t *s;
    uint8_t *buf[DFC_BUF_COUNT];
    uint64_t len[DFC_BUF_COUNT];
    int pc, fence_start, done, checked;
    uint8_t *complete;   /* per step: transfer matched and done */
    uint32_t know;       /* ranks this rank has (transitively) heard from */
    uint32_t *snap;      /* per step: sends: know at posting; recvs: what the message carried */
} sim_rank_t;

typedef struct chan {
    int *q, head, tail, cap;
    int kind; /* DFC_STEP_SEND or DFC_STEP_RECV: what is queued */
} chan_t;

static sim_rank_t sr[NMAX];
static chan_t ch[NMAX][NMAX]; /* [src][dst] */
static int sim_n, sim_bad;

static const char *bufname(int b)
{
    static const char *names[] = { "NONE", "SEND", "RECV", "TMP" };
    return b >= 0 && b < DFC_BUF_COUNT ? names[b] : "?";
}

static int region_ok(int rank, int step, int buf, uint64_t off, uint64_t bytes)
{
    if (bytes == 0) return 1;
    if (buf <= DFC_BUF_NONE || buf >= DFC_BUF_COUNT || !sr[rank].buf[buf] ||
        off > sr[rank].len[buf] || bytes > sr[rank].len[buf] - off) {
        FAIL("rank %d step %d: %llu bytes at %s+%llu are outside the buffer (%llu bytes)", rank, step,
             (unsigned long long)bytes, bufname(buf), (unsigned long long)off,
             (unsigned long long)(buf > 0 && buf < DFC_BUF_COUNT ? sr[rank].len[buf] : 0));
        sim_bad = 1;
        return 0;
    }
    return 1;
}

static void chan_push(chan_t *c, int kind, int step)
{
    if (c->tail == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->q = realloc(c->q, (size_t)c->cap * sizeof *c->q);
    }
    c->kind = kind;
    c->q[c->tail++] = step;
}

static void match(int src, int sstep, int dst, int rstep)
{
    const dfc_step_t *ss = &sr[src].s->steps[sstep], *rs = &sr[dst].s->steps[rstep];
    if (ss->bytes != rs->bytes) {
        FAIL("rank %d step %d sends %llu bytes to rank %d, whose step %d receives %llu", src, sstep,
             (unsigned long long)ss->bytes, dst, rstep, (unsigned long long)rs->bytes);
        sim_bad = 1;
    } else if (region_ok(src, sstep, ss->src_buf, ss->src_off, ss->bytes) &&
               region_ok(dst, rstep, rs->dst_buf, rs->dst_off, rs->bytes) && ss->bytes > 0) {
        memcpy(sr[dst].buf[rs->dst_buf] + rs->dst_off, sr[src].buf[ss->src_buf] + ss->src_off, ss->bytes);
    }
    sr[dst].snap[rstep] = sr[src].snap[sstep];
    sr[src].complete[sstep] = sr[dst].complete[rstep] = 1;
}

static void post(int r, int i)
{
    const dfc_step_t *st = &sr[r].s->steps[i];
    int p = st->peer;
    if (p < 0 || p >= sim_n || p == r) {
        FAIL("rank %d step %d: transfer with peer %d", r, i, p);
        sim_bad = 1;
        return;
    }
    if (st->kind == DFC_STEP_SEND) {
        sr[r].snap[i] = sr[r].know;
        chan_t *c = &ch[r][p];
        if (c->head < c->tail && c->kind == DFC_STEP_RECV)
            match(r, i, p, c->q[c->head++]);
        else
            chan_push(c, DFC_STEP_SEND, i);
    } else {
        chan_t *c = &ch[p][r];
        if (c->head < c->tail && c->kind == DFC_STEP_SEND)
            match(p, c->q[c->head++], r, i);
        else
            chan_push(c, DFC_STEP_RECV, i);
    }
}

static int overlap(int b1, uint64_t o1, uint64_t l1, int b2, uint64_t o2, uint64_t l2)
{
    return b1 == b2 && l1 > 0 && l2 > 0 && o1 < o2 + l2 && o2 < o1 + l1;
}

/* Races inside the window [fence_start, pc) of rank r. */
static void check_window(int r)
{
    const dfc_step_t *st = sr[r].s->steps;
    for (int i = sr[r].fence_start; i < sr[r].pc; i++) {
        if (st[i].kind != DFC_STEP_RECV) continue;
        for (int j = sr[r].fence_start; j < sr[r].pc; j++) {
            if (j == i) continue;
            int b = st[j].kind == DFC_STEP_SEND ? st[j].src_buf : st[j].dst_buf;
            uint64_t o = st[j].kind == DFC_STEP_SEND ? st[j].src_off : st[j].dst_off;
            if (overlap(st[i].dst_buf, st[i].dst_off, st[i].bytes, b, o, st[j].bytes)) {
                FAIL("rank %d: race in one fence window: step %d receives into %s+%llu (%llu bytes), "
                     "step %d %s %s+%llu (%llu bytes)", r, i, bufname(st[i].dst_buf),
                     (unsigned long long)st[i].dst_off, (unsigned long long)st[i].bytes, j,
                     st[j].kind == DFC_STEP_SEND ? "sends from" : "receives into", bufname(b),
                     (unsigned long long)o, (unsigned long long)st[j].bytes);
                sim_bad = 1;
                return;
            }
        }
    }
}

/* Runs rank r for at most max steps; returns the number of steps taken. */
static int advance(int r, int max)
{
    sim_rank_t *x = &sr[r];
    int taken = 0;
    while (!x->done && taken < max && !sim_bad) {
        const dfc_step_t *st = x->pc < x->s->nsteps ? &x->s->steps[x->pc] : NULL;
        if (st && (st->kind == DFC_STEP_SEND || st->kind == DFC_STEP_RECV)) {
            post(r, x->pc);
            x->pc++;
            taken++;
            continue;
        }
        if (st && st->kind != DFC_STEP_FENCE && st->kind != DFC_STEP_COPY) {
            FAIL("rank %d step %d: unexpected step kind %d", r, x->pc, st->kind);
            sim_bad = 1;
            break;
        }
        /* A fence point. */
        if (!st && x->pc > x->fence_start) {
            FAIL("rank %d: the schedule ends with %d transfers after its last fence", r,
                 x->pc - x->fence_start);
            sim_bad = 1;
            break;
        }
        if (!x->checked) {
            check_window(r);
            x->checked = 1;
        }
        for (int i = x->fence_start; i < x->pc; i++)
            if (!x->complete[i]) return taken;
        for (int i = x->fence_start; i < x->pc; i++)
            if (x->s->steps[i].kind == DFC_STEP_RECV) x->know |= x->snap[i];
        if (!st) {
            x->done = 1;
            break;
        }
        if (st->kind == DFC_STEP_COPY) {
            if (region_ok(r, x->pc, st->src_buf, st->src_off, st->bytes) &&
                region_ok(r, x->pc, st->dst_buf, st->dst_off, st->bytes)) {
                if (overlap(st->src_buf, st->src_off, st->bytes, st->dst_buf, st->dst_off, st->bytes)) {
                    FAIL("rank %d step %d: copy between overlapping regions", r, x->pc);
                    sim_bad = 1;
                    break;
                }
                if (st->bytes)
                    memcpy(x->buf[st->dst_buf] + st->dst_off, x->buf[st->src_buf] + st->src_off, st->bytes);
            }
        }
        x->pc++;
        x->fence_start = x->pc;
        x->checked = 0;
        taken++;
    }
    return taken;
}

enum { SIM_ORDERED = 0, SIM_RANDOM = 1 };

/* Runs the n schedules on the bound buffers. Returns 0 on success. */
static int sim_run(int n, const dfc_sched_t *sched, uint8_t *bufs[][DFC_BUF_COUNT],
                   uint64_t lens[][DFC_BUF_COUNT], int mode, uint32_t *know_out)
{
    sim_n = n;
    sim_bad = 0;
    for (int r = 0; r < n; r++) {
        sim_rank_t *x = &sr[r];
        memset(x, 0, sizeof *x);
        x->s = &sched[r];
        for (int b = 0; b < DFC_BUF_COUNT; b++) x->buf[b] = bufs[r][b], x->len[b] = lens[r][b];
        x->complete = calloc((size_t)sched[r].nsteps + 1, 1);
        x->snap = calloc((size_t)sched[r].nsteps + 1, sizeof *x->snap);
        x->know = 1u << r;
        for (int p = 0; p < n; p++) ch[r][p].head = ch[r][p].tail = 0;
    }
    int order[NMAX];
    for (int r = 0; r < n; r++) order[r] = r;
    for (;;) {
        int progress = 0, done = 1;
        if (mode == SIM_RANDOM)
            for (int i = n - 1; i > 0; i--) {
                int j = (int)(rnd() % (uint64_t)(i + 1)), t = order[i];
                order[i] = order[j], order[j] = t;
            }
        for (int i = 0; i < n && !sim_bad; i++)
            progress += advance(order[i], mode == SIM_RANDOM ? 1 + (int)(rnd() % 3) : 1 << 30);
        for (int r = 0; r < n; r++) done &= sr[r].done;
        if (done || sim_bad) break;
        if (!progress) {
            char msg[256];
            int len = 0;
            for (int r = 0; r < n; r++)
                len += snprintf(msg + len, sizeof msg - (size_t)len, " %d@%d/%d", r, sr[r].pc,
                                sr[r].s->nsteps);
            FAIL("deadlock (rank@pc/nsteps):%s", msg);
            sim_bad = 1;
            break;
        }
    }
    for (int r = 0; r < n && !sim_bad; r++)
        for (int p = 0; p < n; p++)
            if (ch[r][p].head != ch[r][p].tail) {
                FAIL("%d unmatched %s from rank %d to rank %d", ch[r][p].tail - ch[r][p].head,
                     ch[r][p].kind == DFC_STEP_SEND ? "sends" : "receives", r, p);
                sim_bad = 1;
            }
    for (int r = 0; r < n; r++) {
        if (know_out) know_out[r] = sr[r].know;
        free(sr[r].complete);
        free(sr[r].snap);
    }
    return sim_bad ? -1 : 0;
}

/* ---- Test cases ---------------------------------------------------------------------------- */
typedef struct tcase {
    int n;
    dfc_coll_args_t a[NMAX];
    image_t send[NMAX], rinit[NMAX], rwant[NMAX];
    /* storage for the count and displacement arrays */
    int scounts[NMAX][NMAX], sdispls[NMAX][NMAX], vcounts[NMAX][NMAX], vdispls[NMAX][NMAX];
} tcase_t;

static tcase_t tc;
static long nruns, ncases;

static uint64_t seed_of(int owner, int dest) { return (uint64_t)owner * 1000 + (uint64_t)dest + 1; }

static void tc_reset(int n, dfc_coll_kind_t kind)
{
    memset(&tc, 0, sizeof tc);
    tc.n = n;
    for (int r = 0; r < n; r++) {
        tc.a[r].kind = kind;
        tc.a[r].rank = r;
        tc.a[r].size = n;
        tc.a[r].selem = tc.a[r].relem = tc.a[r].elem = 1;
    }
}

/* Lays out n blocks of counts[p] items in a permuted order with random gaps of 0-2 items;
 * returns the extent in items. */
static uint64_t layout(int n, const int *counts, int *displs)
{
    int perm[NMAX];
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    uint64_t cur = rnd() % 2;
    for (int i = 0; i < n; i++) {
        displs[perm[i]] = (int)cur;
        cur += (uint64_t)counts[perm[i]] + rnd() % 3;
    }
    return cur;
}

/* An uneven weight for a v-form block: 0 (often), 1, 2 or 3. */
static int weight(void)
{
    static const int w[] = { 0, 0, 1, 1, 2, 3 };
    return w[rnd() % 6];
}

/* Runs the case through one algorithm in the given mode; returns 0 if all checks passed. */
static int run_one(const char *algo, dfc_coll_build_fn build, int mode)
{
    int n = tc.n, rc = 0;
    dfc_sched_t sched[NMAX];
    uint8_t *bufs[NMAX][DFC_BUF_COUNT];
    uint64_t lens[NMAX][DFC_BUF_COUNT];
    uint32_t know[NMAX];

    nruns++;
    memset(bufs, 0, sizeof bufs);
    memset(lens, 0, sizeof lens);
    for (int r = 0; r < n; r++) {
        dfc_sched_init(&sched[r]);
        if (build(&tc.a[r], &sched[r]) != DFC_SUCCESS) {
            FAIL("%s: build failed on rank %d", algo, r);
            rc = -1;
        }
        int nt = 0;
        for (int i = 0; i < sched[r].nsteps; i++)
            nt += sched[r].steps[i].kind == DFC_STEP_SEND || sched[r].steps[i].kind == DFC_STEP_RECV ||
                  sched[r].steps[i].kind == DFC_STEP_RECV_REDUCE;
        if (nt != sched[r].ntransfers) {
            FAIL("%s: rank %d ntransfers %d, counted %d", algo, r, sched[r].ntransfers, nt);
            rc = -1;
        }
        bufs[r][DFC_BUF_SEND] = image_make(&tc.send[r]);
        lens[r][DFC_BUF_SEND] = tc.send[r].len;
        bufs[r][DFC_BUF_RECV] = image_make(&tc.rinit[r]);
        lens[r][DFC_BUF_RECV] = tc.rinit[r].len;
        if (sched[r].tmp_bytes) {
            bufs[r][DFC_BUF_TMP] = malloc(sched[r].tmp_bytes);
            memset(bufs[r][DFC_BUF_TMP], POISON, sched[r].tmp_bytes);
            lens[r][DFC_BUF_TMP] = sched[r].tmp_bytes;
        }
    }
    if (rc == 0 && sim_run(n, sched, bufs, lens, mode, know) != 0) rc = -1;
    for (int r = 0; r < n && rc == 0; r++) {
        if (image_check(&tc.rwant[r], bufs[r][DFC_BUF_RECV], "recv buffer", r) ||
            image_check(&tc.send[r], bufs[r][DFC_BUF_SEND], "send buffer (must be unchanged)", r))
            rc = -1;
        if (tc.a[r].kind == DFC_COLL_BARRIER && know[r] != (1u << n) - 1) {
            FAIL("rank %d left the barrier having heard only from ranks 0x%x", r, know[r]);
            rc = -1;
        }
    }
    for (int r = 0; r < n; r++) {
        for (int b = 0; b < DFC_BUF_COUNT; b++) free(bufs[r][b]);
        dfc_sched_destroy(&sched[r]);
    }
    return rc;
}

typedef struct algo {
    const char *name;
    dfc_coll_build_fn build;
    dfc_coll_usable_fn usable;
} algo_t;

/* Runs the current case through the algorithm: in rank order and two random interleavings. */
static void run_case(const algo_t *al, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_case(const algo_t *al, const char *fmt, ...)
{
    va_list ap;
    int len = snprintf(case_name, sizeof case_name, "%s ", al->name);
    va_start(ap, fmt);
    vsnprintf(case_name + len, sizeof case_name - (size_t)len, fmt, ap);
    va_end(ap);
    for (int r = 0; r < tc.n; r++)
        if (al->usable && !al->usable(&tc.a[r])) return;
    ncases++;
    if (run_one(al->name, al->build, SIM_ORDERED) == 0 && run_one(al->name, al->build, SIM_RANDOM) == 0)
        run_one(al->name, al->build, SIM_RANDOM);
}

static const uint64_t sizes[] = { 0, 1, 13, 4096, 1 << 20 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

/* Roots to try: all of them, except only the ends for the largest size (for time). */
static int skip_root(int n, int root, uint64_t bytes)
{
    return bytes >= (1 << 20) && root != 0 && root != n - 1 && root != n / 2;
}

/* ---- barrier ---- */
static void test_barrier(void)
{
    algo_t al = { "barrier_dissemination", dfc_coll_barrier_dissemination_build, NULL };
    for (int n = 1; n <= NMAX; n++) {
        tc_reset(n, DFC_COLL_BARRIER);
        run_case(&al, "n=%d", n);
    }
}

/* ---- bcast ---- */
static void test_bcast(void)
{
    algo_t algos[] = { { "bcast_binomial", dfc_coll_bcast_binomial_build, NULL },
                       { "bcast_scatter_allgather", dfc_coll_bcast_scatter_allgather_build,
                         dfc_coll_bcast_scatter_allgather_usable } };
    static const uint64_t elems[] = { 1, 8 };
    for (int ai = 0; ai < 2; ai++)
        for (int n = 1; n <= NMAX; n++)
            for (int si = 0; si < NSIZES; si++)
                for (int ei = 0; ei < 2; ei++)
                    for (int root = 0; root < n; root++) {
                        uint64_t bytes = sizes[si] * elems[ei];
                        if (skip_root(n, root, bytes) || (ei == 1 && sizes[si] > 13)) continue;
                        tc_reset(n, DFC_COLL_BCAST);
                        for (int r = 0; r < n; r++) {
                            tc.a[r].root = root;
                            tc.a[r].count = sizes[si];
                            tc.a[r].elem = elems[ei];
                            tc.rinit[r].len = tc.rwant[r].len = bytes;
                            image_add(&tc.rwant[r], 0, bytes, seed_of(root, 0));
                        }
                        image_add(&tc.rinit[root], 0, bytes, seed_of(root, 0));
                        run_case(&algos[ai], "n=%d root=%d count=%llu elem=%llu", n, root,
                                 (unsigned long long)sizes[si], (unsigned long long)elems[ei]);
                    }
}

/* ---- gather / gatherv ---- */
static void test_gather(void)
{
    algo_t al = { "gather_linear", dfc_coll_gather_linear_build, NULL };
    for (int v = 0; v < 2; v++)
        for (int n = 1; n <= NMAX; n++)
            for (int si = 0; si < NSIZES; si++)
                for (int root = 0; root < n; root++)
                    for (int ip = 0; ip < 2; ip++)
                        for (int ev = 0; ev < (v ? 2 : 1); ev++) {
                            uint64_t b = sizes[si];
                            if (skip_root(n, root, b)) continue;
                            tc_reset(n, v ? DFC_COLL_GATHERV : DFC_COLL_GATHER);
                            /* v: items of relem (1 or 4 bytes); senders use selem = relem/2 or 1 */
                            uint64_t relem = ev ? 4 : 1, selem = ev ? 2 : 1;
                            uint64_t unit = v ? (b + relem - 1) / relem : 0;
                            int counts[NMAX], displs[NMAX];
                            uint64_t extent = 0;
                            if (v) {
                                for (int p = 0; p < n; p++) counts[p] = (int)(unit * (uint64_t)weight());
                                extent = layout(n, counts, displs) * relem;
                            }
                            for (int r = 0; r < n; r++) {
                                dfc_coll_args_t *a = &tc.a[r];
                                a->root = root;
                                a->selem = selem;
                                a->relem = relem;
                                uint64_t mine = v ? (uint64_t)counts[r] * relem : b;
                                a->sbytes = mine;
                                a->rbytes = r == root ? b : 777; /* ignored off the root */
                                if (!(ip && r == root)) {
                                    tc.send[r].len = mine;
                                    image_add(&tc.send[r], 0, mine, seed_of(r, 0));
                                }
                            }
                            dfc_coll_args_t *ra = &tc.a[root];
                            ra->in_place = ip;
                            if (ip) ra->sbytes = 999; /* ignored in place */
                            if (v) {
                                memcpy(tc.vcounts[root], counts, sizeof counts);
                                memcpy(tc.vdispls[root], displs, sizeof displs);
                                ra->vcounts = tc.vcounts[root];
                                ra->vdispls = tc.vdispls[root];
                            }
                            image_t *want = &tc.rwant[root], *init = &tc.rinit[root];
                            want->len = init->len = v ? extent : (uint64_t)n * b;
                            for (int p = 0; p < n; p++) {
                                uint64_t off = v ? (uint64_t)displs[p] * relem : (uint64_t)p * b;
                                uint64_t len = v ? (uint64_t)counts[p] * relem : b;
                                image_add(want, off, len, seed_of(p, 0));
                                if (ip && p == root) image_add(init, off, len, seed_of(p, 0));
                            }
                            run_case(&al, "%s n=%d root=%d size=%llu in_place=%d relem=%llu",
                                     v ? "gatherv" : "gather", n, root, (unsigned long long)b, ip,
                                     (unsigned long long)relem);
                        }
}

/* ---- scatter / scatterv ---- */
static void test_scatter(void)
{
    algo_t al = { "scatter_linear", dfc_coll_scatter_linear_build, NULL };
    for (int v = 0; v < 2; v++)
        for (int n = 1; n <= NMAX; n++)
            for (int si = 0; si < NSIZES; si++)
                for (int root = 0; root < n; root++)
                    for (int ip = 0; ip < 2; ip++)
                        for (int ev = 0; ev < (v ? 2 : 1); ev++) {
                            uint64_t b = sizes[si];
                            if (skip_root(n, root, b)) continue;
                            tc_reset(n, v ? DFC_COLL_SCATTERV : DFC_COLL_SCATTER);
                            /* v: blocks in items of selem (1 or 2 bytes), received as relem 1 or 4 */
                            uint64_t selem = ev ? 2 : 1, relem = ev ? 4 : 1;
                            uint64_t unit = v ? (ev ? (b + 3) / 4 * 2 : b) : 0; /* items of selem */
                            int counts[NMAX], displs[NMAX];
                            uint64_t extent = 0;
                            if (v) {
                                for (int p = 0; p < n; p++) counts[p] = (int)(unit * (uint64_t)weight());
                                extent = layout(n, counts, displs) * selem;
                            }
                            for (int r = 0; r < n; r++) {
                                dfc_coll_args_t *a = &tc.a[r];
                                a->root = root;
                                a->selem = selem;
                                a->relem = relem;
                                uint64_t mine = v ? (uint64_t)counts[r] * selem : b;
                                a->rbytes = mine;
                                a->sbytes = r == root ? b : 555; /* ignored off the root */
                                if (!(ip && r == root)) {
                                    tc.rinit[r].len = tc.rwant[r].len = mine;
                                    image_add(&tc.rwant[r], 0, mine, seed_of(root, r));
                                }
                            }
                            dfc_coll_args_t *ra = &tc.a[root];
                            ra->in_place = ip;
                            if (ip) ra->rbytes = 333; /* ignored in place */
                            if (v) {
                                memcpy(tc.scounts[root], counts, sizeof counts);
                                memcpy(tc.sdispls[root], displs, sizeof displs);
                                ra->scounts = tc.scounts[root];
                                ra->sdispls = tc.sdispls[root];
                            }
                            image_t *send = &tc.send[root];
                            send->len = v ? extent : (uint64_t)n * b;
                            for (int p = 0; p < n; p++) {
                                uint64_t off = v ? (uint64_t)displs[p] * selem : (uint64_t)p * b;
                                uint64_t len = v ? (uint64_t)counts[p] * selem : b;
                                image_add(send, off, len, seed_of(root, p));
                            }
                            run_case(&al, "%s n=%d root=%d size=%llu in_place=%d selem=%llu",
                                     v ? "scatterv" : "scatter", n, root, (unsigned long long)b, ip,
                                     (unsigned long long)selem);
                        }
}

/* ---- allgather / allgatherv ---- */
static void test_allgather(void)
{
    algo_t algos[] = {
        { "allgather_ring", dfc_coll_allgather_ring_build, NULL },
        { "allgather_recursive_doubling", dfc_coll_allgather_recursive_doubling_build,
          dfc_coll_allgather_recursive_doubling_usable },
        { "allgather_bruck", dfc_coll_allgather_bruck_build, dfc_coll_allgather_bruck_usable },
    };
    for (int ai = 0; ai < 3; ai++)
        for (int v = 0; v < 2; v++)
            for (int n = 1; n <= NMAX; n++)
                for (int si = 0; si < NSIZES; si++)
                    for (int ip = 0; ip < 2; ip++)
                        for (int ev = 0; ev < (v ? 2 : 1); ev++) {
                            uint64_t b = sizes[si];
                            tc_reset(n, v ? DFC_COLL_ALLGATHERV : DFC_COLL_ALLGATHER);
                            uint64_t relem = ev ? 4 : 1, selem = ev ? 2 : 1;
                            uint64_t unit = v ? (b + relem - 1) / relem : 0;
                            int counts[NMAX], displs[NMAX];
                            uint64_t extent = (uint64_t)n * b;
                            if (v) {
                                for (int p = 0; p < n; p++) counts[p] = (int)(unit * (uint64_t)weight());
                                extent = layout(n, counts, displs) * relem;
                            }
                            for (int r = 0; r < n; r++) {
                                dfc_coll_args_t *a = &tc.a[r];
                                a->in_place = ip;
                                a->selem = selem;
                                a->relem = relem;
                                a->rbytes = b;
                                uint64_t mine = v ? (uint64_t)counts[r] * relem : b;
                                a->sbytes = ip ? 4444 : mine;
                                if (v) {
                                    memcpy(tc.vcounts[r], counts, sizeof counts);
                                    memcpy(tc.vdispls[r], displs, sizeof displs);
                                    a->vcounts = tc.vcounts[r];
                                    a->vdispls = tc.vdispls[r];
                                }
                                if (!ip) {
                                    tc.send[r].len = mine;
                                    image_add(&tc.send[r], 0, mine, seed_of(r, 0));
                                }
                                tc.rinit[r].len = tc.rwant[r].len = extent;
                                for (int p = 0; p < n; p++) {
                                    uint64_t off = v ? (uint64_t)displs[p] * relem : (uint64_t)p * b;
                                    uint64_t len = v ? (uint64_t)counts[p] * relem : b;
                                    image_add(&tc.rwant[r], off, len, seed_of(p, 0));
                                    if (ip && p == r) image_add(&tc.rinit[r], off, len, seed_of(p, 0));
                                }
                            }
                            run_case(&algos[ai], "%s n=%d size=%llu in_place=%d relem=%llu",
                                     v ? "allgatherv" : "allgather", n, (unsigned long long)b, ip,
                                     (unsigned long long)relem);
                        }
}

/* ---- alltoall / alltoallv ---- */
static void test_alltoall(void)
{
    algo_t al = { "alltoall_pairwise", dfc_coll_alltoall_pairwise_build, NULL };
    for (int v = 0; v < 2; v++)
        for (int n = 1; n <= NMAX; n++)
            for (int si = 0; si < NSIZES; si++)
                for (int ip = 0; ip < 2; ip++)
                    for (int ev = 0; ev < (v ? 3 : 1); ev++) {
                        uint64_t b = sizes[si];
                        tc_reset(n, v ? DFC_COLL_ALLTOALLV : DFC_COLL_ALLTOALL);
                        /* v: bytes[r][p] from r to p; ev 2 is sparse (most blocks empty) */
                        uint64_t relem = ev ? 4 : 1, selem = ev ? 2 : 1;
                        uint64_t unit = ev ? (b + 3) / 4 * 4 : b, bytes[NMAX][NMAX];
                        for (int r = 0; r < n; r++)
                            for (int p = 0; p < n; p++) {
                                int w = ev == 2 ? (rnd() % 5 == 0 ? 1 + (int)(rnd() % 3) : 0) : weight();
                                bytes[r][p] = v ? unit * (uint64_t)w : b;
                            }
                        if (ip)
                            for (int r = 0; r < n; r++)
                                for (int p = 0; p < r; p++) bytes[r][p] = bytes[p][r];
                        uint64_t sext[NMAX], rext[NMAX];
                        for (int r = 0; r < n; r++) {
                            dfc_coll_args_t *a = &tc.a[r];
                            a->in_place = ip;
                            a->selem = selem;
                            a->relem = relem;
                            a->sbytes = ip ? 4444 : b;
                            a->rbytes = b;
                            sext[r] = rext[r] = (uint64_t)n * b;
                            if (v) {
                                for (int p = 0; p < n; p++) {
                                    tc.scounts[r][p] = (int)(bytes[r][p] / selem);
                                    tc.vcounts[r][p] = (int)(bytes[p][r] / relem);
                                }
                                sext[r] = layout(n, tc.scounts[r], tc.sdispls[r]) * selem;
                                rext[r] = layout(n, tc.vcounts[r], tc.vdispls[r]) * relem;
                                a->vcounts = tc.vcounts[r];
                                a->vdispls = tc.vdispls[r];
                                if (!ip) {
                                    a->scounts = tc.scounts[r];
                                    a->sdispls = tc.sdispls[r];
                                }
                            }
                            if (!ip) tc.send[r].len = sext[r];
                            tc.rinit[r].len = tc.rwant[r].len = rext[r];
                            for (int p = 0; p < n; p++) {
                                uint64_t soff = v ? (uint64_t)tc.sdispls[r][p] * selem : (uint64_t)p * b;
                                uint64_t roff = v ? (uint64_t)tc.vdispls[r][p] * relem : (uint64_t)p * b;
                                if (ip)
                                    image_add(&tc.rinit[r], roff, bytes[r][p], seed_of(r, p));
                                else
                                    image_add(&tc.send[r], soff, bytes[r][p], seed_of(r, p));
                                image_add(&tc.rwant[r], roff, bytes[p][r], seed_of(p, r));
                            }
                        }
                        run_case(&al, "%s n=%d size=%llu in_place=%d relem=%llu%s",
                                 v ? "alltoallv" : "alltoall", n, (unsigned long long)b, ip,
                                 (unsigned long long)relem, ev == 2 ? " sparse" : "");
                    }
}

/* ---- Negative test: the simulator must catch the mistakes it is meant to catch ----------- */
static void test_simulator(void)
{
    /* A receive and a send of the same region in one window, then a missing fence, then a
     * size mismatch, then a deadlock (both ranks wait for a receive first). */
    dfc_sched_t s[2];
    uint8_t b0[8], b1[8];
    uint8_t *bufs[2][DFC_BUF_COUNT] = { { NULL, b0, b0, NULL }, { NULL, b1, b1, NULL } };
    uint64_t lens[2][DFC_BUF_COUNT] = { { 0, 8, 8, 0 }, { 0, 8, 8, 0 } };
    int before = failures, caught = 0, saved = reported;

    strcpy(case_name, "simulator self-test (these failures are expected)");
    reported = 1000; /* silence */
    for (int t = 0; t < 4; t++) {
        dfc_sched_init(&s[0]);
        dfc_sched_init(&s[1]);
        int f0 = failures;
        switch (t) {
        case 0: /* race */
            dfc_sched_recv(&s[0], 1, DFC_BUF_RECV, 0, 4);
            dfc_sched_send(&s[0], 1, DFC_BUF_RECV, 2, 4);
            dfc_sched_fence(&s[0]);
            dfc_sched_send(&s[1], 0, DFC_BUF_SEND, 0, 4);
            dfc_sched_recv(&s[1], 0, DFC_BUF_RECV, 0, 4);
            dfc_sched_fence(&s[1]);
            break;
        case 1: /* no final fence */
            dfc_sched_send(&s[0], 1, DFC_BUF_SEND, 0, 4);
            dfc_sched_recv(&s[1], 0, DFC_BUF_RECV, 0, 4);
            dfc_sched_fence(&s[1]);
            break;
        case 2: /* size mismatch */
            dfc_sched_send(&s[0], 1, DFC_BUF_SEND, 0, 4);
            dfc_sched_fence(&s[0]);
            dfc_sched_recv(&s[1], 0, DFC_BUF_RECV, 0, 5);
            dfc_sched_fence(&s[1]);
            break;
        case 3: /* deadlock */
            for (int r = 0; r < 2; r++) {
                dfc_sched_recv(&s[r], 1 - r, DFC_BUF_RECV, 0, 4);
                dfc_sched_fence(&s[r]);
                dfc_sched_send(&s[r], 1 - r, DFC_BUF_SEND, 0, 4);
                dfc_sched_fence(&s[r]);
            }
            break;
        }
        sim_run(2, s, bufs, lens, SIM_ORDERED, NULL);
        caught += failures > f0;
        dfc_sched_destroy(&s[0]);
        dfc_sched_destroy(&s[1]);
    }
    failures = before;
    reported = saved;
    if (caught != 4) FAIL("the simulator caught %d of 4 planted mistakes", caught);
    printf("simulator self-test: caught %d of 4 planted mistakes\n", caught);
}

int main(void)
{
    struct {
        const char *name;
        void (*fn)(void);
    } groups[] = { { "barrier", test_barrier },   { "bcast", test_bcast },
                   { "gather(v)", test_gather },  { "scatter(v)", test_scatter },
                   { "allgather(v)", test_allgather }, { "alltoall(v)", test_alltoall } };

    test_simulator();
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        long f0 = failures, c0 = ncases, r0 = nruns;
        groups[g].fn();
        printf("%-14s %5ld cases, %5ld simulated runs: %s\n", groups[g].name, ncases - c0, nruns - r0,
               failures == f0 ? "ok" : "FAILED");
    }
    for (int r = 0; r < NMAX; r++)
        for (int p = 0; p < NMAX; p++) free(ch[r][p].q);
    free(scratch);
    if (failures) printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
