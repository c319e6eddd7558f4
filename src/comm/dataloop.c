/*
 * dataloop.c - the derived-datatype engine: building layouts, and packing/unpacking any byte
 * range of a type's packed form.
 *
 * A derived type is a list of blocks (dfc_comm.h): block i is blens[i] consecutive items of a
 * child type at byte displacement displs[i]. Vectors (contiguous, vector, hvector, dup and
 * resized too) keep the list implicit: block i at i*stride, all of one blocklength, so a
 * vector of a million elements costs O(1) to describe. Indexed and struct types hold their
 * arrays (the size of what the user described), with each block's packed offset, so that a
 * byte offset finds its block by binary search.
 *
 * Pack and unpack walk the tree for the byte range asked for: the cost of starting at an
 * offset is O(depth) (times log(blocks) for indexed levels), then each run of contiguous
 * bytes is one copy; runs of 1, 2, 4, 8 and 16 bytes (strided scalars) have loops of their
 * own so that the compiler copies them with plain moves. Transports can therefore ask for
 * the message piece by piece.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

/* ---- Building ----------------------------------------------------------------------------- */

static int dup_args(const char *func, dfc_dtype_t *dt, const dfc_dtype_args_t *a)
{
    dt->combiner = a->combiner;
    dt->n_ints = a->n_ints;
    dt->n_aints = a->n_aints;
    dt->n_types = a->n_types;
    dt->c_ints = dfc_malloc(sizeof(int) * (size_t)(a->n_ints + 1));
    dt->c_aints = dfc_malloc(sizeof(DFC_Aint) * (size_t)(a->n_aints + 1));
    dt->c_types = dfc_malloc(sizeof(dfc_dtype_t *) * (size_t)(a->n_types + 1));
    if (!dt->c_ints || !dt->c_aints || !dt->c_types)
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for a new datatype's arguments");
    if (a->n_ints) memcpy(dt->c_ints, a->ints, sizeof(int) * (size_t)a->n_ints);
    if (a->n_aints) memcpy(dt->c_aints, a->aints, sizeof(DFC_Aint) * (size_t)a->n_aints);
    for (int i = 0; i < a->n_types; i++) {
        dt->c_types[i] = a->types[i];
        dfc_dtype_retain(a->types[i]);
    }
    return DFC_SUCCESS;
}

/* The end of every constructor: the new type, with a handle when the caller asked for one
 * (on failure the type is gone and the error recorded). */
static int done(const char *func, dfc_dtype_t *dt, const dfc_dtype_args_t *a, dfc_dtype_t **out)
{
    *out = dt;
    return a->publish ? dfc_dtype_publish(func, dt) : DFC_SUCCESS;
}

static dfc_dtype_t *new_type(void)
{
    dfc_dtype_t *dt = dfc_calloc(1, sizeof(*dt));
    if (dt) dt->refcount = 1;
    return dt;
}

/* Bounds of b items of t starting at displacement d: [lo, hi) of the type map (lb/ub) and of
 * the data (true bounds). Extents may be negative (resized), hence both ends. */
typedef struct bounds {
    DFC_Aint lb, ub, tlb, tub;
    int any, tany; /* tany: some data (true bounds cover only bytes that are moved) */
} bounds_t;

static void bounds_add(bounds_t *bd, DFC_Aint d, size_t b, const dfc_dtype_t *t)
{
    if (!b) return;
    DFC_Aint last = (DFC_Aint)(b - 1) * t->extent;
    DFC_Aint lo = d + DFC_MIN2(0, last), hi = d + DFC_MAX2(0, last);
    DFC_Aint lb = lo + t->lb, ub = hi + t->lb + t->extent;
    bd->lb = bd->any ? DFC_MIN2(bd->lb, lb) : lb;
    bd->ub = bd->any ? DFC_MAX2(bd->ub, ub) : ub;
    bd->any = 1;
    if (!t->size) return;
    DFC_Aint tlb = lo + t->true_lb, tub = hi + t->true_lb + t->true_extent;
    bd->tlb = bd->tany ? DFC_MIN2(bd->tlb, tlb) : tlb;
    bd->tub = bd->tany ? DFC_MAX2(bd->tub, tub) : tub;
    bd->tany = 1;
}

static void set_bounds(dfc_dtype_t *dt, const bounds_t *bd)
{
    dt->lb = bd->any ? bd->lb : 0;
    dt->extent = bd->any ? bd->ub - bd->lb : 0;
    dt->true_lb = bd->tany ? bd->tlb : 0;
    dt->true_extent = bd->tany ? bd->tub - bd->tlb : 0;
}

/* b items of t form one run of b*t->size bytes. */
static int run_of(const dfc_dtype_t *t, size_t b)
{
    return t->contig && (b <= 1 || (DFC_Aint)t->size == t->extent);
}

static void finish(dfc_dtype_t *dt)
{
    dt->dense = dt->contig && dt->true_lb == 0 && (DFC_Aint)dt->size == dt->extent;
    if (!dt->size) dt->contig = 1; /* nothing to move */
    if (dt->combiner != DFC_COMBINER_STRUCT || !dt->align) return;
    /* MPICH pads a struct's extent to the alignment of its strictest member, so that
     * count > 1 lays items out as a C array of the struct would. */
    DFC_Aint r = dt->extent % (DFC_Aint)dt->align;
    if (r) dt->extent += (DFC_Aint)dt->align - r;
    dt->dense = dt->contig && dt->true_lb == 0 && (DFC_Aint)dt->size == dt->extent;
}

static void inherit(dfc_dtype_t *dt, const dfc_dtype_t *t, size_t b)
{
    dt->nelem += b * t->nelem;
    dt->size += b * t->size;
    dt->nbase += b * t->nbase;
    dt->mpi_size += b * t->mpi_size;
    dt->align = DFC_MAX2(dt->align, t->align);
}

int dfc_dtype_vector(const char *func, size_t count, size_t blen, DFC_Aint stride_bytes,
                     dfc_dtype_t *old, const dfc_dtype_args_t *args, dfc_dtype_t **out)
{
    size_t n = count * blen;
    if (blen && count > SIZE_MAX / blen) n = SIZE_MAX;
    if (n && (old->size > (size_t)INTPTR_MAX / n ||
              (size_t)DFC_MAX2(old->extent, -old->extent) > (size_t)INTPTR_MAX / n))
        return dfc_err(DFC_ERR_COUNT, func,
                       "invalid argument count: %zu elements of extent %lld overflow the "
                       "address space",
                       n, (long long)old->extent);
    dfc_dtype_t *dt = new_type();
    if (!dt) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for a new datatype");
    dt->dl_kind = DFC_DL_VECTOR;
    dt->dl_count = count;
    dt->dl_blen = blen;
    dt->dl_stride = stride_bytes;
    dt->dl_child = old;
    dfc_dtype_retain(old);
    inherit(dt, old, n);
    bounds_t bd = {0};
    if (count) {
        bounds_add(&bd, 0, blen, old);
        bounds_add(&bd, (DFC_Aint)(count - 1) * stride_bytes, blen, old);
    }
    set_bounds(dt, &bd);
    dt->contig = run_of(old, blen) &&
                 (count <= 1 || stride_bytes == (DFC_Aint)(blen * old->size) || !blen);
    dt->base = old->base;
    int rc = dup_args(func, dt, args);
    if (rc) {
        dfc_dtype_release(dt);
        return rc;
    }
    finish(dt);
    return done(func, dt, args, out);
}

/* Blocks: contiguous when every non-empty block is a run that starts where the previous
 * one's data ended. */
static int blocks_contig(size_t n, const size_t *blens, const DFC_Aint *displs,
                         dfc_dtype_t *const *types)
{
    int have = 0;
    DFC_Aint end = 0;
    for (size_t i = 0; i < n; i++) {
        const dfc_dtype_t *t = types[i];
        if (!blens[i] || !t->size) continue;
        if (!run_of(t, blens[i])) return 0;
        DFC_Aint start = displs[i] + t->true_lb;
        if (have && start != end) return 0;
        have = 1;
        end = start + (DFC_Aint)(blens[i] * t->size);
    }
    return 1;
}

int dfc_dtype_blocks(const char *func, size_t n, const size_t *blens, const DFC_Aint *displs,
                     dfc_dtype_t *const *types, const dfc_dtype_args_t *args, dfc_dtype_t **out)
{
    dfc_dtype_t *dt = new_type();
    if (!dt) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for a new datatype");
    dt->dl_kind = DFC_DL_BLOCKS;
    dt->dl_count = n;
    dt->dl_displs = dfc_malloc(sizeof(DFC_Aint) * (n + 1));
    dt->dl_blens = dfc_malloc(sizeof(size_t) * (n + 1));
    dt->dl_pofs = dfc_malloc(sizeof(size_t) * (n + 1));
    dt->dl_types = dfc_malloc(sizeof(dfc_dtype_t *) * (n + 1));
    int rc = DFC_SUCCESS;
    if (!dt->dl_displs || !dt->dl_blens || !dt->dl_pofs || !dt->dl_types) {
        dfc_free(dt->dl_types);
        dt->dl_types = NULL;
        dt->dl_count = 0;
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory for a datatype of %zu blocks", n);
        goto fail;
    }
    bounds_t bd = {0};
    dt->base = n ? types[0]->base : DFC_HANDLE_INDEX(DFC_BYTE);
    for (size_t i = 0; i < n; i++) {
        dt->dl_displs[i] = displs[i];
        dt->dl_blens[i] = blens[i];
        dt->dl_types[i] = types[i];
        dfc_dtype_retain(types[i]);
        dt->dl_pofs[i] = dt->size;
        if (types[i]->base != dt->base && types[i]->size && blens[i]) dt->base = -1;
        inherit(dt, types[i], blens[i]);
        bounds_add(&bd, displs[i], blens[i], types[i]);
    }
    dt->dl_pofs[n] = dt->size;
    set_bounds(dt, &bd);
    dt->contig = blocks_contig(n, blens, displs, types);
    if ((rc = dup_args(func, dt, args))) goto fail;
    finish(dt);
    return done(func, dt, args, out);
fail:
    dfc_dtype_release(dt);
    return rc;
}

int dfc_dtype_resized(const char *func, dfc_dtype_t *old, DFC_Aint lb, DFC_Aint extent,
                      const dfc_dtype_args_t *args, dfc_dtype_t **out)
{
    dfc_dtype_args_t none = {.combiner = args->combiner};
    int rc = dfc_dtype_vector(func, 1, 1, 0, old, &none, out);
    if (rc) return rc;
    dfc_dtype_t *dt = *out;
    dt->lb = lb;
    dt->extent = extent;
    dt->n_ints = 0;
    free(dt->c_ints);
    free(dt->c_aints);
    free(dt->c_types);
    dt->c_ints = NULL;
    dt->c_aints = NULL;
    dt->c_types = NULL;
    if ((rc = dup_args(func, dt, args))) {
        dfc_dtype_release(dt);
        return rc;
    }
    dt->dense = dt->contig && dt->true_lb == 0 && (DFC_Aint)dt->size == dt->extent;
    return done(func, dt, args, out);
}

void dfc_dtype_span(const dfc_dtype_t *dt, uint64_t count, DFC_Aint *lo, DFC_Aint *hi)
{
    bounds_t bd = {0};
    bounds_add(&bd, 0, (size_t)count, dt);
    *lo = bd.tany ? bd.tlb : 0;
    *hi = bd.tany ? bd.tub : 0;
}

/* ---- Packing ------------------------------------------------------------------------------ */

/* nblk runs of `run` bytes, `stride` apart in user memory, consecutive in packed memory. */
#define RUNS(N)                                                                         \
    do {                                                                                \
        if (unpack)                                                                     \
            for (size_t k = 0; k < nblk; k++, u += stride, p += (N)) memcpy(u, p, (N)); \
        else                                                                            \
            for (size_t k = 0; k < nblk; k++, u += stride, p += (N)) memcpy(p, u, (N)); \
    } while (0)

/* How a walk moves bytes: unpack or pack, with memcpy, or through a mover's calls (the
 * first error stops further calls and is kept in m->rc). */
typedef struct walk_how {
    int unpack;
    dfc_dtype_mover_t *m;
} walk_how_t;

static void strided_runs(char *u, DFC_Aint stride, char *p, size_t run, size_t nblk,
                         const walk_how_t *w)
{
    int unpack = w->unpack;
    if (w->m) {
        if (!w->m->rc) w->m->rc = w->m->strided(w->m->arg, u, stride, p, run, nblk, unpack);
        return;
    }
    switch (run) {
    case 1: RUNS(1); break;
    case 2: RUNS(2); break;
    case 4: RUNS(4); break;
    case 8: RUNS(8); break;
    case 16: RUNS(16); break;
    default: RUNS(run); break;
    }
}
#undef RUNS

static inline void copy(char *u, char *p, size_t n, const walk_how_t *w)
{
    if (w->m) {
        if (!w->m->rc) w->m->rc = w->m->strided(w->m->arg, u, (DFC_Aint)n, p, n, 1, w->unpack);
    } else if (w->unpack) memcpy(u, p, n);
    else memcpy(p, u, n);
}

static void walk(const dfc_dtype_t *dt, char *origin, char *p, size_t lo, size_t hi,
                 const walk_how_t *w);

/* Packed bytes [lo, hi) of b items of t, the first at origin. */
static void walk_items(const dfc_dtype_t *t, size_t b, char *origin, char *p, size_t lo, size_t hi,
                       const walk_how_t *w)
{
    if (run_of(t, b)) {
        copy(origin + t->true_lb + lo, p, hi - lo, w);
        return;
    }
    size_t j = lo / t->size;
    while (lo < hi) {
        size_t base = j * t->size, end = DFC_MIN2(hi - base, t->size);
        walk(t, origin + (DFC_Aint)j * t->extent, p, lo - base, end, w);
        p += end - (lo - base);
        lo = base + end;
        j++;
    }
}

static void walk_vector(const dfc_dtype_t *dt, char *origin, char *p, size_t lo, size_t hi,
                        const walk_how_t *w)
{
    const dfc_dtype_t *t = dt->dl_child;
    size_t bsize = dt->dl_blen * t->size;
    size_t i = lo / bsize;
    /* A partial first block. */
    if (lo % bsize) {
        size_t end = DFC_MIN2(hi - i * bsize, bsize);
        walk_items(t, dt->dl_blen, origin + (DFC_Aint)i * dt->dl_stride, p, lo % bsize, end, w);
        p += end - lo % bsize;
        lo = i * bsize + end;
        i++;
    }
    /* Whole blocks: strided runs when a block is one run. */
    size_t nwhole = (hi - lo) / bsize;
    if (nwhole && run_of(t, dt->dl_blen)) {
        strided_runs(origin + (DFC_Aint)i * dt->dl_stride + t->true_lb, dt->dl_stride, p, bsize,
                     nwhole, w);
        p += nwhole * bsize;
        lo += nwhole * bsize;
        i += nwhole;
    } else
        for (; nwhole; nwhole--, i++, p += bsize, lo += bsize)
            walk_items(t, dt->dl_blen, origin + (DFC_Aint)i * dt->dl_stride, p, 0, bsize, w);
    if (lo < hi) walk_items(t, dt->dl_blen, origin + (DFC_Aint)i * dt->dl_stride, p, 0, hi - lo, w);
}

static void walk_blocks(const dfc_dtype_t *dt, char *origin, char *p, size_t lo, size_t hi,
                        const walk_how_t *w)
{
    /* The last block whose packed offset is <= lo. */
    size_t a = 0, b = dt->dl_count;
    while (b - a > 1) {
        size_t m = a + (b - a) / 2;
        if (dt->dl_pofs[m] <= lo) a = m;
        else b = m;
    }
    for (size_t i = a; i < dt->dl_count && lo < hi; i++) {
        size_t start = dt->dl_pofs[i], bsize = dt->dl_pofs[i + 1] - start;
        if (!bsize || lo >= start + bsize) continue;
        size_t end = DFC_MIN2(hi, start + bsize);
        walk_items(dt->dl_types[i], dt->dl_blens[i], origin + dt->dl_displs[i], p, lo - start,
                   end - start, w);
        p += end - lo;
        lo = end;
    }
}

/* Packed bytes [lo, hi) of one item of dt whose origin (displacement 0) is at origin. */
static void walk(const dfc_dtype_t *dt, char *origin, char *p, size_t lo, size_t hi,
                 const walk_how_t *w)
{
    if (lo >= hi) return;
    if (dt->contig) copy(origin + dt->true_lb + lo, p, hi - lo, w);
    else if (dt->dl_kind == DFC_DL_VECTOR) walk_vector(dt, origin, p, lo, hi, w);
    else walk_blocks(dt, origin, p, lo, hi, w);
}

static void walk_top(const dfc_dtype_t *dt, char *buf, uint64_t first, uint64_t len, char *p,
                     const walk_how_t *w)
{
    if (!len || !dt->size) return;
    walk_items(dt, SIZE_MAX, buf, p, (size_t)first, (size_t)(first + len), w);
}

void dfc_dtype_pack(const dfc_dtype_t *dt, const void *buf, uint64_t first, uint64_t len, void *out)
{
    walk_how_t w = {0, NULL};
    walk_top(dt, (char *)buf, first, len, out, &w);
}

void dfc_dtype_unpack(const dfc_dtype_t *dt, void *buf, uint64_t first, uint64_t len,
                      const void *in)
{
    walk_how_t w = {1, NULL};
    walk_top(dt, buf, first, len, (char *)in, &w);
}

int dfc_dtype_move(const dfc_dtype_t *dt, void *buf, uint64_t first, uint64_t len, void *packed,
                   int unpack, dfc_dtype_mover_t *m)
{
    walk_how_t w = {unpack, m};
    m->rc = DFC_SUCCESS;
    walk_top(dt, buf, first, len, packed, &w);
    return m->rc;
}

/* ---- Elements ----------------------------------------------------------------------------- */

static DFC_Count elements_of(const dfc_dtype_t *dt, uint64_t bytes);

/* Basic elements in the first `bytes` packed bytes of b items of t; -1: not on an element
 * boundary. */
static DFC_Count elements_items(const dfc_dtype_t *t, uint64_t bytes)
{
    if (!t->size) return 0;
    uint64_t full = bytes / t->size, rest = bytes % t->size;
    DFC_Count part = rest ? elements_of(t, rest) : 0;
    return part < 0 ? -1 : (DFC_Count)(full * t->nelem) + part;
}

static DFC_Count elements_of(const dfc_dtype_t *dt, uint64_t bytes)
{
    if (dt->builtin) return dfc_dtype_elements(dt, bytes);
    if (dt->dl_kind == DFC_DL_VECTOR) return elements_items(dt->dl_child, bytes);
    DFC_Count n = 0;
    for (size_t i = 0; i < dt->dl_count && bytes; i++) {
        uint64_t bsize = dt->dl_pofs[i + 1] - dt->dl_pofs[i];
        if (bytes >= bsize) {
            n += (DFC_Count)(dt->dl_blens[i] * dt->dl_types[i]->nelem);
            bytes -= bsize;
            continue;
        }
        DFC_Count part = elements_items(dt->dl_types[i], bytes);
        return part < 0 ? -1 : n + part;
    }
    return n;
}

/* Get_elements on a status of `bytes` received as items of dt. */
DFC_Count dfc_dtype_elements_any(const dfc_dtype_t *dt, uint64_t bytes)
{
    return elements_items(dt, bytes);
}
