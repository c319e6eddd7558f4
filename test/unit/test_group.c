/*
 * test_group - the group algebra of src/comm/group.c on synthetic groups, without a
 * bootstrap or the rest of the library:
 *   1. construction: rank_of and the own rank on world-like and shuffled groups;
 *   2. incl/excl/range_incl/range_excl on random arguments, against naive references
 *      (negative strides, single-rank ranges, empty results = dfc_group_empty);
 *   3. union/intersection/difference/translate_ranks/compare on random subsets in random
 *      orders, against naive O(n^2) references;
 *   4. argument faults: class and message of every kind of bad rank or range;
 *   5. handles: DFC_GROUP_EMPTY, publish, check, release removing the handle;
 *   6. 10^4-member groups (world of 3*10^4), checked against expected member lists.
 *
 * group.c (and the util pieces it needs) are compiled into this program directly; dfc_err
 * is replaced by a stub that keeps the last message so that messages can be checked.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/group.c"
#include "util/htable.c"
#include "util/misc.c"

#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

/* ---- stubs for what group.c takes from the rest of the library ---------------------------- */
dfc_proc_t dfc_proc;
static char last_err[1024];
static int last_class;

int dfc_err(int errclass, const char *func, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(last_err, sizeof last_err, "%s: ", func);
    va_start(ap, fmt);
    vsnprintf(last_err + n, sizeof last_err - n, fmt, ap);
    va_end(ap);
    last_class = errclass;
    return (1 << 8) | errclass;
}

/* ---- helpers ------------------------------------------------------------------------------ */
static uint64_t rng_state = 88172645463325252ull;
static unsigned rnd(unsigned n) /* uniform-ish in [0, n) */
{
    uint64_t x = rng_state;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    rng_state = x;
    return (unsigned)(x % n);
}

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rnd((unsigned)i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* A group of `n` distinct world ranks drawn from [0, world) in random order. */
static dfc_group_t *random_group(int n, int world)
{
    int *all = malloc((size_t)world * sizeof *all);
    for (int i = 0; i < world; i++) all[i] = i;
    shuffle(all, world);
    dfc_group_t *g = dfc_group_new(n, all);
    CHECK(g);
    free(all);
    return g;
}

static int naive_rank_of(const dfc_group_t *g, int w)
{
    for (int r = 0; r < g->size; r++)
        if (g->world[r] == w) return r;
    return DFC_UNDEFINED;
}

static void expect_members(const dfc_group_t *g, const int *expected, int n)
{
    CHECK(g->size == n);
    if (n == 0) CHECK(g == &dfc_group_empty);
    for (int i = 0; i < n; i++) CHECK(g->world[i] == expected[i]);
    for (int i = 0; i < n; i++) CHECK(dfc_group_rank_of(g, expected[i]) == i);
    CHECK(g->rank == naive_rank_of(g, dfc_proc.world_rank));
}

/* ---- 1. construction ---------------------------------------------------------------------- */
static void test_construction(void)
{
    int ident[16];
    for (int i = 0; i < 16; i++) ident[i] = i;
    dfc_proc.world_rank = 5;
    dfc_group_t *g = dfc_group_new(16, ident);
    CHECK(g && g->refcount == 1 && g->handle == 0 && g->rank == 5);
    for (int w = -3; w < 20; w++) CHECK(dfc_group_rank_of(g, w) == naive_rank_of(g, w));
    dfc_group_release(g);

    CHECK(dfc_group_new(0, NULL) == &dfc_group_empty);
    CHECK(dfc_group_rank_of(&dfc_group_empty, 0) == DFC_UNDEFINED);

    for (int trial = 0; trial < 200; trial++) {
        int world = 1 + (int)rnd(64), n = (int)rnd((unsigned)world + 1);
        dfc_proc.world_rank = (int)rnd((unsigned)world);
        g = random_group(n, world);
        for (int w = -1; w <= world; w++) CHECK(dfc_group_rank_of(g, w) == naive_rank_of(g, w));
        CHECK(g->rank == naive_rank_of(g, dfc_proc.world_rank));
        dfc_group_release(g);
    }
}

/* ---- 2. incl / excl / ranges ---------------------------------------------------------------- */
static void test_incl_excl(void)
{
    for (int trial = 0; trial < 300; trial++) {
        int world = 1 + (int)rnd(40);
        dfc_group_t *g = random_group(1 + (int)rnd((unsigned)world), world), *out;
        int n = (int)rnd((unsigned)g->size + 1), perm[64], expect[64], m = 0;
        for (int i = 0; i < g->size; i++) perm[i] = i;
        shuffle(perm, g->size);

        CHECK(dfc_group_incl(g, n, perm, "f", &out) == DFC_SUCCESS);
        for (int i = 0; i < n; i++) expect[i] = g->world[perm[i]];
        expect_members(out, expect, n);
        dfc_group_release(out);

        CHECK(dfc_group_excl(g, n, perm, "f", &out) == DFC_SUCCESS);
        for (int r = 0; r < g->size; r++) {
            int excluded = 0;
            for (int i = 0; i < n; i++) excluded |= perm[i] == r;
            if (!excluded) expect[m++] = g->world[r];
        }
        expect_members(out, expect, m);
        dfc_group_release(out);
        dfc_group_release(g);
    }
}

static void test_ranges(void)
{
    int w12[12];
    for (int i = 0; i < 12; i++) w12[i] = 100 + i;
    dfc_group_t *g = dfc_group_new(12, w12), *out;

    /* The examples of MPI-4.1 7.3.2 style: forward, backward, single, stride past last. */
    int r1[][3] = {{0, 6, 3}, {11, 7, -2}, {8, 8, 1}, {1, 4, 10}};
    CHECK(dfc_group_range_incl(g, 4, r1, "f", &out) == DFC_SUCCESS);
    int e1[] = {100, 103, 106, 111, 109, 107, 108, 101};
    expect_members(out, e1, 8);
    dfc_group_release(out);

    CHECK(dfc_group_range_excl(g, 4, r1, "f", &out) == DFC_SUCCESS);
    int e2[] = {102, 104, 105, 110};
    expect_members(out, e2, 4);
    dfc_group_release(out);

    /* Everything, backwards; and excluding everything gives the empty group. */
    int r3[][3] = {{11, 0, -1}};
    CHECK(dfc_group_range_incl(g, 1, r3, "f", &out) == DFC_SUCCESS);
    int e3[12];
    for (int i = 0; i < 12; i++) e3[i] = 111 - i;
    expect_members(out, e3, 12);
    dfc_group_release(out);
    CHECK(dfc_group_range_excl(g, 1, r3, "f", &out) == DFC_SUCCESS && out == &dfc_group_empty);
    CHECK(dfc_group_range_incl(g, 0, r3, "f", &out) == DFC_SUCCESS && out == &dfc_group_empty);
    CHECK(dfc_group_range_excl(g, 0, r3, "f", &out) == DFC_SUCCESS);
    expect_members(out, w12, 12);
    dfc_group_release(out);
    dfc_group_release(g);

    /* Random disjoint ranges against a step-by-step expansion. */
    for (int trial = 0; trial < 300; trial++) {
        int size = 1 + (int)rnd(50), used[64] = {0}, ranges[16][3], n = 0, expect[64], m = 0;
        g = random_group(size, size + (int)rnd(10));
        for (int tries = 0; tries < 16 && n < 16; tries++) {
            int first = (int)rnd((unsigned)size), stride = 1 + (int)rnd(4), len = 1 + (int)rnd(6);
            if (rnd(2)) stride = -stride;
            int last = first, ok = !used[first];
            for (int k = 1; k < len; k++) {
                int r = first + k * stride;
                if (r < 0 || r >= size) break;
                last = r;
            }
            for (int r = first; ok && (stride > 0 ? r <= last : r >= last); r += stride)
                ok = !used[r];
            if (!ok) continue;
            for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) used[r] = 1;
            ranges[n][0] = first, ranges[n][1] = last, ranges[n][2] = stride;
            /* Sometimes name a last rank beyond the computed one (still valid). */
            if (rnd(3) == 0 && stride > 1 && last + 1 < size) ranges[n][1] = last + 1;
            n++;
        }
        for (int i = 0; i < n; i++)
            for (int r = ranges[i][0]; ranges[i][2] > 0 ? r <= ranges[i][1] : r >= ranges[i][1];
                 r += ranges[i][2])
                expect[m++] = g->world[r];
        CHECK(dfc_group_range_incl(g, n, ranges, "f", &out) == DFC_SUCCESS);
        expect_members(out, expect, m);
        dfc_group_release(out);

        m = 0;
        for (int r = 0; r < size; r++)
            if (!used[r]) expect[m++] = g->world[r];
        CHECK(dfc_group_range_excl(g, n, ranges, "f", &out) == DFC_SUCCESS);
        expect_members(out, expect, m);
        dfc_group_release(out);
        dfc_group_release(g);
    }
}

/* ---- 3. set operations, translate, compare -------------------------------------------------- */
static void test_set_ops(void)
{
    for (int trial = 0; trial < 500; trial++) {
        int world = 1 + (int)rnd(48);
        dfc_proc.world_rank = (int)rnd((unsigned)world);
        dfc_group_t *a = random_group((int)rnd((unsigned)world + 1), world);
        dfc_group_t *b = random_group((int)rnd((unsigned)world + 1), world), *out;
        int expect[128], m = 0;

        for (int r = 0; r < a->size; r++) expect[m++] = a->world[r];
        for (int r = 0; r < b->size; r++)
            if (naive_rank_of(a, b->world[r]) == DFC_UNDEFINED) expect[m++] = b->world[r];
        CHECK(dfc_group_union(a, b, &out) == DFC_SUCCESS);
        expect_members(out, expect, m);
        dfc_group_release(out);

        m = 0;
        for (int r = 0; r < a->size; r++)
            if (naive_rank_of(b, a->world[r]) != DFC_UNDEFINED) expect[m++] = a->world[r];
        CHECK(dfc_group_intersection(a, b, &out) == DFC_SUCCESS);
        expect_members(out, expect, m);
        dfc_group_release(out);

        m = 0;
        for (int r = 0; r < a->size; r++)
            if (naive_rank_of(b, a->world[r]) == DFC_UNDEFINED) expect[m++] = a->world[r];
        CHECK(dfc_group_difference(a, b, &out) == DFC_SUCCESS);
        expect_members(out, expect, m);
        dfc_group_release(out);

        int in[66], tr[66], n = 0;
        for (int r = 0; r < a->size; r++) in[n++] = r;
        in[n++] = DFC_PROC_NULL;
        shuffle(in, n);
        CHECK(dfc_group_translate_ranks(a, n, in, b, "f", tr) == DFC_SUCCESS);
        for (int i = 0; i < n; i++)
            CHECK(tr[i] ==
                  (in[i] == DFC_PROC_NULL ? DFC_PROC_NULL : naive_rank_of(b, a->world[in[i]])));

        /* compare: against itself, a reordering, a copy, and b. */
        CHECK(dfc_group_compare(a, a) == DFC_IDENT);
        int perm[64];
        if (a->size) memcpy(perm, a->world, (size_t)a->size * sizeof *perm);
        dfc_group_t *same = dfc_group_new(a->size, perm);
        CHECK(dfc_group_compare(a, same) == DFC_IDENT);
        shuffle(perm, a->size);
        dfc_group_t *re = dfc_group_new(a->size, perm);
        int reordered = a->size > 0 && memcmp(perm, a->world, (size_t)a->size * sizeof *perm);
        CHECK(dfc_group_compare(a, re) == (reordered ? DFC_SIMILAR : DFC_IDENT));
        int expect_cmp = DFC_UNEQUAL;
        if (a->size == b->size) {
            int subset = 1;
            for (int r = 0; r < a->size; r++)
                subset &= naive_rank_of(b, a->world[r]) != DFC_UNDEFINED;
            if (subset)
                expect_cmp = a->size == 0 ||
                                     !memcmp(a->world, b->world, (size_t)a->size * sizeof(int))
                                 ? DFC_IDENT
                                 : DFC_SIMILAR;
        }
        CHECK(dfc_group_compare(a, b) == expect_cmp);
        dfc_group_release(same);
        dfc_group_release(re);
        dfc_group_release(a);
        dfc_group_release(b);
    }
}

/* ---- 4. argument faults ------------------------------------------------------------------------ */
static void expect_fault(int rc, int cls, const char *needle)
{
    CHECK(rc != DFC_SUCCESS);
    CHECK(DFC_ERR_CLASS(rc) == cls);
    if (!strstr(last_err, needle)) {
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", last_err, needle);
        exit(1);
    }
}

static void test_faults(void)
{
    int w[6] = {0, 1, 2, 3, 4, 5};
    dfc_group_t *g = dfc_group_new(6, w), *out = NULL;

    int bad_rank[] = {0, 6};
    expect_fault(dfc_group_incl(g, 2, bad_rank, "DFC_Group_incl", &out), DFC_ERR_RANK,
                 "DFC_Group_incl: invalid argument ranks: ranks[1] = 6");
    int neg_rank[] = {-1};
    expect_fault(dfc_group_excl(g, 1, neg_rank, "DFC_Group_excl", &out), DFC_ERR_RANK,
                 "invalid argument ranks: ranks[0] = -1");
    int dup[] = {3, 1, 3};
    expect_fault(dfc_group_incl(g, 3, dup, "f", &out), DFC_ERR_RANK,
                 "ranks[2] = 3 repeats ranks[0]");
    expect_fault(dfc_group_excl(g, 3, dup, "f", &out), DFC_ERR_RANK, "repeats");
    expect_fault(dfc_group_incl(g, -1, dup, "f", &out), DFC_ERR_ARG, "invalid argument n");
    int seven[7] = {0, 1, 2, 3, 4, 5, 0};
    expect_fault(dfc_group_excl(g, 7, seven, "f", &out), DFC_ERR_RANK, "ranks[6] = 0 repeats");

    int first_out[][3] = {{6, 6, 1}};
    expect_fault(dfc_group_range_incl(g, 1, first_out, "DFC_Group_range_incl", &out), DFC_ERR_ARG,
                 "DFC_Group_range_incl: invalid argument ranges: ranges[0]");
    int zero_stride[][3] = {{0, 5, 0}};
    expect_fault(dfc_group_range_excl(g, 1, zero_stride, "f", &out), DFC_ERR_ARG, "stride is 0");
    int wrong_way[][3] = {{4, 1, 1}};
    expect_fault(dfc_group_range_incl(g, 1, wrong_way, "f", &out), DFC_ERR_ARG, "leads away");
    int wrong_way2[][3] = {{1, 4, -1}};
    expect_fault(dfc_group_range_incl(g, 1, wrong_way2, "f", &out), DFC_ERR_ARG, "leads away");
    int last_out[][3] = {{0, 8, 2}};
    expect_fault(dfc_group_range_incl(g, 1, last_out, "f", &out), DFC_ERR_ARG, "rank 8 is not");
    int below[][3] = {{2, -3, -2}};
    expect_fault(dfc_group_range_incl(g, 1, below, "f", &out), DFC_ERR_ARG, "rank -2 is not");
    int overlap[][3] = {{0, 4, 2}, {5, 2, -1}};
    expect_fault(dfc_group_range_excl(g, 2, overlap, "f", &out), DFC_ERR_ARG,
                 "ranges[1] = (5, 2, -1): rank 4 is already named by ranges[0]");
    int overlap2[][3] = {{0, 0, 1}, {1, 3, 1}, {5, 2, -1}};
    expect_fault(dfc_group_range_incl(g, 3, overlap2, "f", &out), DFC_ERR_ARG,
                 "rank 3 is already named by ranges[1]");
    /* Extreme values must not overflow into a "valid" range. */
    int huge[][3] = {{0, 2147483647, 1073741824}};
    expect_fault(dfc_group_range_incl(g, 1, huge, "f", &out), DFC_ERR_ARG, "is not in the group");
    int huge_ok[][3] = {{5, 0, -2147483647 - 1}};
    CHECK(dfc_group_range_incl(g, 1, huge_ok, "f", &out) == DFC_SUCCESS);
    int e5[] = {5};
    expect_members(out, e5, 1);
    dfc_group_release(out);

    int tr_in[] = {0, DFC_PROC_NULL, 6}, tr_out[3] = {-7, -7, -7};
    expect_fault(dfc_group_translate_ranks(g, 3, tr_in, g, "DFC_Group_translate_ranks", tr_out),
                 DFC_ERR_RANK, "invalid argument ranks1: ranks1[2] = 6");
    CHECK(tr_out[0] == -7); /* untouched on failure */
    int tr_bad[] = {DFC_UNDEFINED};
    expect_fault(dfc_group_translate_ranks(g, 1, tr_bad, g, "f", tr_out), DFC_ERR_RANK,
                 "ranks1[0]");
    dfc_group_release(g);
}

/* ---- 5. handles ------------------------------------------------------------------------------ */
static void test_handles(void)
{
    CHECK(dfc_group_init() == DFC_SUCCESS);
    dfc_group_t *g = NULL;
    CHECK(dfc_group_check(DFC_GROUP_EMPTY, "f", "group", &g) == DFC_SUCCESS);
    CHECK(g == &dfc_group_empty);
    expect_fault(dfc_group_check(DFC_GROUP_NULL, "DFC_Group_size", "group", &g), DFC_ERR_GROUP,
                 "DFC_Group_size: invalid argument group: is DFC_GROUP_NULL");
    expect_fault(dfc_group_check(DFC_COMM_WORLD, "f", "group2", &g), DFC_ERR_GROUP,
                 "invalid argument group2: 0x1000001 is not a valid group handle");
    expect_fault(dfc_group_check(DFC_GROUP_EMPTY + 1, "f", "group", &g), DFC_ERR_GROUP,
                 "not a valid");

    DFC_Group h = DFC_GROUP_NULL, h2 = DFC_GROUP_NULL;
    CHECK(dfc_group_publish(&dfc_group_empty, &h) == DFC_SUCCESS && h == DFC_GROUP_EMPTY);

    int w[3] = {2, 0, 1};
    g = dfc_group_new(3, w);
    CHECK(dfc_group_publish(g, &h) == DFC_SUCCESS);
    CHECK(DFC_HANDLE_KIND(h) == DFC_KIND_GROUP && DFC_HANDLE_INDEX(h) >= 2);
    dfc_group_t *back = NULL;
    CHECK(dfc_group_check(h, "f", "group", &back) == DFC_SUCCESS && back == g);
    /* Publishing again (a second DFC_Comm_group) hands out the same handle. */
    dfc_group_retain(g);
    CHECK(dfc_group_publish(g, &h2) == DFC_SUCCESS && h2 == h && g->refcount == 2);
    dfc_group_release(g);
    CHECK(dfc_group_check(h, "f", "group", &back) == DFC_SUCCESS);
    dfc_group_release(g); /* the last reference: the handle goes with it */
    CHECK(dfc_group_check(h, "f", "group", &back) != DFC_SUCCESS);

    /* Releasing the empty group any number of times leaves it valid. */
    for (int i = 0; i < 3; i++) dfc_group_release(&dfc_group_empty);
    CHECK(dfc_group_check(DFC_GROUP_EMPTY, "f", "group", &back) == DFC_SUCCESS);
    dfc_group_finalize();
}

/* ---- 6. large groups --------------------------------------------------------------------------- */
static void test_large(void)
{
    enum { N = 10000 };
    /* a: the even world ranks below 2N, descending; b: multiples of 3, ascending. */
    int *evens = malloc(N * sizeof(int)), *thirds = malloc(N * sizeof(int));
    int *expect = malloc(2 * N * sizeof(int)), *tr = malloc(N * sizeof(int));
    int *in = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) evens[i] = 2 * N - 2 - 2 * i; /* 19998, 19996, ..., 0 */
    for (int i = 0; i < N; i++) thirds[i] = 3 * i;            /* 0, 3, ..., 29997 */
    dfc_proc.world_rank = 6;
    dfc_group_t *a = dfc_group_new(N, evens), *b = dfc_group_new(N, thirds), *out;
    CHECK(a->rank == N - 4 && b->rank == 2);

    /* The multiples of 6 below 20000 are in both: 3334 of them. */
    int m = 0;
    for (int i = 0; i < N; i++)
        if (evens[i] % 3 == 0) expect[m++] = evens[i];
    CHECK(m == 3334);
    CHECK(dfc_group_intersection(a, b, &out) == DFC_SUCCESS);
    expect_members(out, expect, m);
    dfc_group_release(out);

    m = 0;
    for (int i = 0; i < N; i++) expect[m++] = evens[i];
    for (int i = 0; i < N; i++)
        if (thirds[i] % 2 || thirds[i] >= 2 * N) expect[m++] = thirds[i];
    CHECK(dfc_group_union(a, b, &out) == DFC_SUCCESS);
    expect_members(out, expect, m);
    dfc_group_release(out);

    m = 0;
    for (int i = 0; i < N; i++)
        if (thirds[i] % 2 || thirds[i] >= 2 * N) expect[m++] = thirds[i];
    CHECK(dfc_group_difference(b, a, &out) == DFC_SUCCESS);
    expect_members(out, expect, m);
    dfc_group_release(out);

    for (int i = 0; i < N; i++) in[i] = N - 1 - i;
    CHECK(dfc_group_translate_ranks(b, N, in, a, "f", tr) == DFC_SUCCESS);
    for (int i = 0; i < N; i++) {
        int w = thirds[in[i]];
        CHECK(tr[i] == (w % 2 || w >= 2 * N ? DFC_UNDEFINED : (2 * N - 2 - w) / 2));
    }

    /* incl of every rank, reversed, is SIMILAR; range_excl of the odd ranks keeps evens. */
    CHECK(dfc_group_incl(a, N, in, "f", &out) == DFC_SUCCESS);
    CHECK(dfc_group_compare(a, out) == DFC_SIMILAR);
    dfc_group_release(out);
    int odd[][3] = {{N - 1, 1, -2}};
    CHECK(dfc_group_range_excl(a, 1, odd, "f", &out) == DFC_SUCCESS);
    m = 0;
    for (int i = 0; i < N; i += 2) expect[m++] = evens[i];
    expect_members(out, expect, m);
    dfc_group_release(out);

    dfc_group_release(a);
    dfc_group_release(b);
    free(evens), free(thirds), free(expect), free(tr), free(in);
}

int main(void)
{
    test_construction();
    test_incl_excl();
    test_ranges();
    test_set_ops();
    test_faults();
    test_handles();
    test_large();
    return 0;
}
