/*
 * group.c - process groups and their set algebra (MPI-4.1 section 7.3).
 *
 * A group is an ordered list of distinct world ranks. Groups are immutable once built, so
 * each one carries, from birth, an index of its members sorted by world rank: "which rank
 * has world rank w in g" is then a binary search, and every operation of the algebra runs in
 * O(n log n) rather than the O(n^2) of comparing member lists pairwise (groups of 10^4
 * members are expected).
 *
 * Ownership: dfc_group_new returns one reference. Communicators hold one reference each; a
 * user handle holds one (dfc_group_publish turns a reference into a handle). An empty result
 * is always the static dfc_group_empty (DFC_GROUP_EMPTY), as in MPICH; references to it are
 * not counted and it is never freed.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"


dfc_htable_t dfc_group_table;

/* The refcount is never used (retain/release skip this object); 1 keeps it plausible. */
dfc_group_t dfc_group_empty = {
    .handle = DFC_GROUP_EMPTY, .refcount = 1, .size = 0, .rank = DFC_UNDEFINED, .world = NULL};

/* What dfc_group_new allocates: the public part first, so that a dfc_group_t pointer and a
 * group_impl_t pointer are the same address. Every non-empty group comes from dfc_group_new;
 * dfc_group_empty (size 0) is the only group without this wrapper, and size-0 groups never
 * reach code that reads `by_world`. */
typedef struct group_impl {
    dfc_group_t pub;
    /* (world rank << 32 | group rank) for every member, sorted: the world->rank index. */
    uint64_t *by_world;
} group_impl_t;

static inline const group_impl_t *impl_of(const dfc_group_t *g) { return (const group_impl_t *)g; }

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

int dfc_group_init(void)
{
    dfc_htable_init(&dfc_group_table, DFC_KIND_GROUP, 2);
    dfc_htable_set(&dfc_group_table, DFC_HANDLE_INDEX(DFC_GROUP_EMPTY), &dfc_group_empty);
    if (!dfc_htable_get(&dfc_group_table, DFC_GROUP_EMPTY))
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for the group table");
    return DFC_SUCCESS;
}

/* Groups the user never freed are left allocated: a communicator may still point at one,
 * and freeing it here would turn a leak at exit into a use after free. */
void dfc_group_finalize(void) { dfc_htable_destroy(&dfc_group_table); }

dfc_group_t *dfc_group_new(int size, const int *world_ranks)
{
    if (size <= 0) return &dfc_group_empty;

    group_impl_t *gi = dfc_calloc(1, sizeof *gi);
    int *world = dfc_malloc((size_t)size * sizeof *world);
    uint64_t *index = dfc_malloc((size_t)size * sizeof *index);
    if (!gi || !world || !index) {
        dfc_free(gi);
        dfc_free(world);
        dfc_free(index);
        return NULL;
    }
    memcpy(world, world_ranks, (size_t)size * sizeof *world);
    for (int r = 0; r < size; r++) index[r] = ((uint64_t)(uint32_t)world[r] << 32) | (uint32_t)r;
    qsort(index, (size_t)size, sizeof *index, cmp_u64);

    gi->by_world = index;
    gi->pub.handle = 0;
    gi->pub.refcount = 1;
    gi->pub.size = size;
    gi->pub.world = world;
    gi->pub.rank = dfc_group_rank_of(&gi->pub, dfc_proc.world_rank);
    return &gi->pub;
}

void dfc_group_retain(dfc_group_t *g)
{
    if (g && g != &dfc_group_empty) g->refcount++;
}

void dfc_group_release(dfc_group_t *g)
{
    if (!g || g == &dfc_group_empty) return;
    if (--g->refcount > 0) return;
    if (g->handle) dfc_htable_remove(&dfc_group_table, g->handle);
    group_impl_t *gi = (group_impl_t *)g;
    dfc_free(gi->by_world);
    dfc_free(g->world);
    dfc_free(gi);
}

int dfc_group_rank_of(const dfc_group_t *g, int w)
{
    if (!g || g->size == 0 || w < 0) return DFC_UNDEFINED;
    /* Most groups in practice are world-like (rank i is world rank i) near rank w. */
    if (w < g->size && g->world[w] == w) return w;

    const uint64_t *index = impl_of(g)->by_world;
    int lo = 0, hi = g->size - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int mw = (int)(index[mid] >> 32);
        if (mw == w) return (int)(uint32_t)index[mid];
        if (mw < w) lo = mid + 1;
        else hi = mid - 1;
    }
    return DFC_UNDEFINED;
}

int dfc_group_check(DFC_Group h, const char *func, const char *argname, dfc_group_t **out)
{
    if (h == DFC_GROUP_NULL)
        return dfc_err(DFC_ERR_GROUP, func, "invalid argument %s: is DFC_GROUP_NULL", argname);
    dfc_group_t *g = dfc_htable_get(&dfc_group_table, h);
    if (!g)
        return dfc_err(DFC_ERR_GROUP, func, "invalid argument %s: 0x%x is not a valid group handle",
                       argname, (unsigned)h);
    *out = g;
    return DFC_SUCCESS;
}

int dfc_group_publish(dfc_group_t *g, DFC_Group *out)
{
    if (g == &dfc_group_empty) {
        *out = DFC_GROUP_EMPTY;
        return DFC_SUCCESS;
    }
    if (g->handle) {
        /* A second handle for the same object would be the same integer anyway; the
         * caller's reference now belongs to the handle, so nothing to release. */
        *out = g->handle;
        return DFC_SUCCESS;
    }
    int h = dfc_htable_add(&dfc_group_table, g);
    if (!h) {
        dfc_group_release(g);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a group handle");
    }
    g->handle = h;
    *out = h;
    return DFC_SUCCESS;
}

/* Builds the result group from `n` world ranks collected in `world` (which it frees). */
static int finish(int *world, int n, dfc_group_t **out)
{
    dfc_group_t *g = dfc_group_new(n, world);
    dfc_free(world);
    if (!g) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a group of %d members", n);
    *out = g;
    return DFC_SUCCESS;
}

/* Room for up to `n` world ranks (at least one, so that 0 is not mistaken for failure). */
static int *alloc_ranks(int n) { return dfc_malloc((size_t)(n > 0 ? n : 1) * sizeof(int)); }

/* ---- incl / excl --------------------------------------------------------------------------- */

/* Checks that ranks[0..n) are distinct ranks of g (MPICH: DFC_ERR_RANK for both faults) and
 * marks each in `chosen` (g->size entries, zeroed) with its position + 1. An n larger than
 * the group is reported, as in MPICH, at the first repeated or foreign rank; that also
 * bounds the loop by g->size + 1 iterations. */
static int mark_ranks(const dfc_group_t *g, int n, const int ranks[], const char *func, int *chosen)
{
    if (n < 0) return dfc_err(DFC_ERR_ARG, func, "invalid argument n: %d is negative", n);
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return dfc_err(DFC_ERR_RANK, func,
                           "invalid argument ranks: ranks[%d] = %d is not a rank of the group "
                           "(size %d)",
                           i, r, g->size);
        if (chosen[r])
            return dfc_err(DFC_ERR_RANK, func,
                           "invalid argument ranks: ranks[%d] = %d repeats ranks[%d]", i, r,
                           chosen[r] - 1);
        chosen[r] = i + 1;
    }
    return DFC_SUCCESS;
}

/* Shared by incl and excl: both validate the same way and differ in which members stay. */
static int incl_or_excl(dfc_group_t *g, int n, const int ranks[], int include, const char *func,
                        dfc_group_t **out)
{
    int *chosen = dfc_calloc((size_t)(g->size > 0 ? g->size : 1), sizeof *chosen);
    if (!chosen) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    int rc = mark_ranks(g, n, ranks, func, chosen);
    if (rc) {
        dfc_free(chosen);
        return rc;
    }
    int *world = alloc_ranks(g->size);
    if (!world) {
        dfc_free(chosen);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    }
    int m = 0;
    if (include) {
        for (int i = 0; i < n; i++) world[m++] = g->world[ranks[i]];
    } else {
        for (int r = 0; r < g->size; r++)
            if (!chosen[r]) world[m++] = g->world[r];
    }
    dfc_free(chosen);
    return finish(world, m, out);
}

int dfc_group_incl(dfc_group_t *g, int n, const int ranks[], const char *func, dfc_group_t **out)
{
    return incl_or_excl(g, n, ranks, 1, func, out);
}

int dfc_group_excl(dfc_group_t *g, int n, const int ranks[], const char *func, dfc_group_t **out)
{
    return incl_or_excl(g, n, ranks, 0, func, out);
}

/* ---- range_incl / range_excl --------------------------------------------------------------- */

/* Expands the triplets (first, last, stride) into the ranks first, first+stride, ... that do
 * not pass last, in order, into `seq` (room for g->size) and sets *count. As MPICH does, every
 * fault is DFC_ERR_ARG: a first or computed last rank outside the group, a zero stride, a
 * stride leading away from last, and a rank named twice. The duplicate check also bounds
 * the work: no more than g->size ranks are ever written. */
static int expand_ranges(const dfc_group_t *g, int n, int ranges[][3], const char *func, int *seq,
                         int *count)
{
    if (n < 0) return dfc_err(DFC_ERR_ARG, func, "invalid argument n: %d is negative", n);
    int size = g->size, m = 0, rc = DFC_SUCCESS;
    int *seen_in = dfc_calloc((size_t)(size > 0 ? size : 1), sizeof *seen_in);
    if (!seen_in) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");

    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
#define RANGE_FAIL(...)                               \
    do {                                              \
        rc = dfc_err(DFC_ERR_ARG, func, __VA_ARGS__); \
        goto out;                                     \
    } while (0)
        if (first < 0 || first >= size)
            RANGE_FAIL("invalid argument ranges: ranges[%d] = (%d, %d, %d): first rank %d is "
                       "not in the group (size %d)",
                       i, first, last, stride, first, size);
        if (stride == 0)
            RANGE_FAIL("invalid argument ranges: ranges[%d] = (%d, %d, %d): stride is 0", i, first,
                       last, stride);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            RANGE_FAIL("invalid argument ranges: ranges[%d] = (%d, %d, %d): stride %d leads "
                       "away from the last rank",
                       i, first, last, stride, stride);
        /* 64-bit: last - first can exceed INT_MAX. */
        long long steps = ((long long)last - first) / stride;
        long long act_last = first + steps * stride;
        if (act_last >= size || act_last < 0)
            RANGE_FAIL("invalid argument ranges: ranges[%d] = (%d, %d, %d): rank %lld is not "
                       "in the group (size %d)",
                       i, first, last, stride, act_last, size);
        for (long long k = 0; k <= steps; k++) {
            int r = (int)(first + k * stride);
            if (seen_in[r])
                RANGE_FAIL("invalid argument ranges: ranges[%d] = (%d, %d, %d): rank %d is "
                           "already named by ranges[%d]",
                           i, first, last, stride, r, seen_in[r] - 1);
            seen_in[r] = i + 1;
            seq[m++] = r;
        }
#undef RANGE_FAIL
    }
    *count = m;
out:
    dfc_free(seen_in);
    return rc;
}

static int range_incl_or_excl(dfc_group_t *g, int n, int ranges[][3], int include, const char *func,
                              dfc_group_t **out)
{
    int m = 0;
    int *seq = alloc_ranks(g->size);
    if (!seq) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    int rc = expand_ranges(g, n, ranges, func, seq, &m);
    if (rc) {
        dfc_free(seq);
        return rc;
    }
    if (include) {
        /* seq holds group ranks in the order the ranges name them: map to world in place. */
        for (int i = 0; i < m; i++) seq[i] = g->world[seq[i]];
        return finish(seq, m, out);
    }
    int *named = dfc_calloc((size_t)(g->size > 0 ? g->size : 1), sizeof *named);
    if (!named) {
        dfc_free(seq);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < m; i++) named[seq[i]] = 1;
    int k = 0;
    for (int r = 0; r < g->size; r++)
        if (!named[r]) seq[k++] = g->world[r];
    dfc_free(named);
    return finish(seq, k, out);
}

int dfc_group_range_incl(dfc_group_t *g, int n, int ranges[][3], const char *func,
                         dfc_group_t **out)
{
    return range_incl_or_excl(g, n, ranges, 1, func, out);
}

int dfc_group_range_excl(dfc_group_t *g, int n, int ranges[][3], const char *func,
                         dfc_group_t **out)
{
    return range_incl_or_excl(g, n, ranges, 0, func, out);
}

/* ---- union / intersection / difference ----------------------------------------------------- */

int dfc_group_union(const dfc_group_t *a, const dfc_group_t *b, dfc_group_t **out)
{
    /* MPI: all of a in a's order, then the members of b not in a, in b's order. */
    int *world = alloc_ranks(a->size + b->size);
    if (!world) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    int m = 0;
    for (int r = 0; r < a->size; r++) world[m++] = a->world[r];
    for (int r = 0; r < b->size; r++)
        if (dfc_group_rank_of(a, b->world[r]) == DFC_UNDEFINED) world[m++] = b->world[r];
    return finish(world, m, out);
}

/* Members of a (in a's order) that are (keep_common) or are not (!keep_common) in b. */
static int filter_by_membership(const dfc_group_t *a, const dfc_group_t *b, int keep_common,
                                dfc_group_t **out)
{
    int *world = alloc_ranks(a->size);
    if (!world) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    int m = 0;
    for (int r = 0; r < a->size; r++) {
        int in_b = dfc_group_rank_of(b, a->world[r]) != DFC_UNDEFINED;
        if (in_b == keep_common) world[m++] = a->world[r];
    }
    return finish(world, m, out);
}

int dfc_group_intersection(const dfc_group_t *a, const dfc_group_t *b, dfc_group_t **out)
{
    return filter_by_membership(a, b, 1, out);
}

int dfc_group_difference(const dfc_group_t *a, const dfc_group_t *b, dfc_group_t **out)
{
    return filter_by_membership(a, b, 0, out);
}

/* ---- translate_ranks / compare --------------------------------------------------------------- */

int dfc_group_translate_ranks(const dfc_group_t *a, int n, const int ranks1[], const dfc_group_t *b,
                              const char *func, int ranks2[])
{
    if (n < 0) return dfc_err(DFC_ERR_ARG, func, "invalid argument n: %d is negative", n);
    /* Check everything before writing, so that a failed call leaves ranks2 untouched. */
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        if (r != DFC_PROC_NULL && (r < 0 || r >= a->size))
            return dfc_err(DFC_ERR_RANK, func,
                           "invalid argument ranks1: ranks1[%d] = %d is not a rank of group1 "
                           "(size %d) nor DFC_PROC_NULL",
                           i, r, a->size);
    }
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        ranks2[i] = r == DFC_PROC_NULL ? DFC_PROC_NULL : dfc_group_rank_of(b, a->world[r]);
    }
    return DFC_SUCCESS;
}

int dfc_group_compare(const dfc_group_t *a, const dfc_group_t *b)
{
    if (a == b) return DFC_IDENT;
    if (a->size != b->size) return DFC_UNEQUAL;
    if (a->size == 0 || !memcmp(a->world, b->world, (size_t)a->size * sizeof *a->world))
        return DFC_IDENT;
    /* Members are distinct and the sizes equal, so a inside b means the same set. */
    for (int r = 0; r < a->size; r++)
        if (dfc_group_rank_of(b, a->world[r]) == DFC_UNDEFINED) return DFC_UNEQUAL;
    return DFC_SIMILAR;
}

int dfc_group_new_handle(int size, const int *world_ranks, const char *func, DFC_Group *out)
{
    dfc_group_t *g = dfc_group_new(size, world_ranks);
    int h = g ? dfc_htable_add(&dfc_group_table, g) : 0;
    if (!h) {
        if (g) dfc_group_release(g);
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory");
    }
    g->handle = h;
    *out = h;
    return DFC_SUCCESS;
}
