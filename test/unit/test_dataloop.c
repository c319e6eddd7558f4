/*
 * test_dataloop.c - unit test of the derived-datatype engine (src/comm/dataloop.c).
 *
 * For random nested types (vectors with positive, zero and negative strides, indexed lists
 * in any order, structs of mixed types, resized levels) the engine's packing is compared
 * with a reference: the type map flattened independently into a list of (offset, bytes)
 * runs straight from the constructors' definitions. Each type is packed whole and in random
 * pieces (the transports' streaming: pack must be resumable at any byte), and unpacked in
 * pieces into a poisoned buffer that must equal the reference byte for byte. Also: a vector
 * of a million elements is described in O(1) memory, extents and true extents follow MPI's
 * definitions, and Get_elements counts on every byte boundary.
 * Prints one line per check group; exits 1 when anything failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

#include "unit_check.h"

static int rndi(int lo, int hi) { return lo + (int)(rnd64() % (uint64_t)(hi - lo + 1)); }

/* ---- The reference: a type map as a flat list of byte offsets -------------------------- */
typedef struct {
    long *off; /* one entry per data byte, in type-map order */
    size_t n, cap;
} map_t;

static void map_push(map_t *m, long off)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 256;
        m->off = realloc(m->off, m->cap * sizeof(long));
    }
    m->off[m->n++] = off;
}

/* A reference type: how it was built, independently of the engine's fields. */
typedef struct ref {
    int kind; /* 0 predefined, 1 vector (bytes stride), 2 blocks, 3 resized */
    size_t size;
    long lb, extent;
    int count, blen;
    long stride;
    int n;
    int blens[8];
    long displs[8];
    struct ref *child[8];
    dfc_dtype_t *dt;
} ref_t;

static void flatten(const ref_t *r, long origin, map_t *m)
{
    switch (r->kind) {
    case 0:
        for (size_t b = 0; b < r->size; b++) map_push(m, origin + (long)b);
        break;
    case 1:
        for (int i = 0; i < r->count; i++)
            for (int j = 0; j < r->blen; j++)
                flatten(r->child[0], origin + i * r->stride + j * r->child[0]->extent, m);
        break;
    case 2:
        for (int i = 0; i < r->n; i++)
            for (int j = 0; j < r->blens[i]; j++)
                flatten(r->child[i], origin + r->displs[i] + j * r->child[i]->extent, m);
        break;
    default: flatten(r->child[0], origin, m);
    }
}

/* ---- Random types ----------------------------------------------------------------------- */
static ref_t pool[4096];
static int npool;
static const DFC_Datatype scalars[] = {DFC_CHAR, DFC_SHORT, DFC_INT, DFC_DOUBLE, DFC_FLOAT};

static ref_t *leaf(void)
{
    ref_t *r = &pool[npool++];
    memset(r, 0, sizeof *r);
    r->dt = dfc_dtype_get(scalars[rnd64() % 5]);
    r->size = r->dt->size;
    r->extent = r->dt->extent;
    return r;
}

/* MPI's lb/extent of the children placed by displacement, for the reference's own bounds. */
static void bounds(ref_t *r, long d, int b, const ref_t *c, long *lo, long *hi, int *any)
{
    if (!b) return;
    long last = (long)(b - 1) * c->extent;
    long l = d + (last < 0 ? last : 0) + c->lb, h = d + (last > 0 ? last : 0) + c->lb + c->extent;
    if (!*any || l < *lo) *lo = l;
    if (!*any || h > *hi) *hi = h;
    *any = 1;
    (void)r;
}

static ref_t *random_type(int depth)
{
    if (depth == 0 || rnd64() % 4 == 0) return leaf();
    ref_t *r = &pool[npool++];
    memset(r, 0, sizeof *r);
    dfc_dtype_args_t none = {.combiner = DFC_COMBINER_HVECTOR};
    long lo = 0, hi = 0;
    int any = 0, k = rndi(1, 3);
    if (k == 1) {
        r->kind = 1;
        r->child[0] = random_type(depth - 1);
        r->count = rndi(0, 5);
        r->blen = rndi(0, 3);
        r->stride = (long)rndi(-3, 4) * r->child[0]->extent + rndi(0, 1) * 3;
        if (dfc_dtype_vector("test", (size_t)r->count, (size_t)r->blen, r->stride, r->child[0]->dt,
                             &none, &r->dt))
            FAIL("vector");
        for (int i = 0; i<r->count; i += r->count - 1> 0 ? r->count - 1 : 1)
            bounds(r, i * r->stride, r->blen, r->child[0], &lo, &hi, &any);
        r->size = (size_t)r->count * (size_t)r->blen * r->child[0]->size;
    } else if (k == 2) {
        r->kind = 2;
        r->n = rndi(0, 4);
        size_t blens[8];
        DFC_Aint displs[8];
        dfc_dtype_t *types[8];
        for (int i = 0; i < r->n; i++) {
            r->child[i] = random_type(depth - 1);
            r->blens[i] = rndi(0, 3);
            r->displs[i] = rndi(-40, 60);
            blens[i] = (size_t)r->blens[i];
            displs[i] = r->displs[i];
            types[i] = r->child[i]->dt;
            bounds(r, r->displs[i], r->blens[i], r->child[i], &lo, &hi, &any);
            r->size += (size_t)r->blens[i] * r->child[i]->size;
        }
        if (dfc_dtype_blocks("test", (size_t)r->n, blens, displs, types, &none, &r->dt))
            FAIL("blocks");
    } else {
        r->kind = 3;
        r->child[0] = random_type(depth - 1);
        lo = rndi(-8, 8);
        hi = lo + rndi(0, 64);
        any = 1;
        if (dfc_dtype_resized("test", r->child[0]->dt, lo, hi - lo, &none, &r->dt)) FAIL("resized");
        r->size = r->child[0]->size;
    }
    r->lb = any ? lo : 0;
    r->extent = any ? hi - lo : 0;
    if (r->dt->lb != r->lb || r->dt->extent != r->extent)
        FAIL("kind %d: lb/extent %ld/%ld, reference %ld/%ld", r->kind, (long)r->dt->lb,
             (long)r->dt->extent, r->lb, r->extent);
    if (r->dt->size != r->size) FAIL("size %zu, reference %zu", r->dt->size, r->size);
    return r;
}

/* ---- Checks ----------------------------------------------------------------------------- */
static void check_type(const ref_t *r, int count)
{
    map_t m = {0};
    for (int i = 0; i < count; i++) flatten(r, (long)i * r->extent, &m);
    if (m.n != (size_t)count * r->size) FAIL("map has %zu bytes, want %zu", m.n, count * r->size);
    long lo = 0, hi = 0;
    for (size_t i = 0; i < m.n; i++) {
        if (!i || m.off[i] < lo) lo = m.off[i];
        if (!i || m.off[i] > hi) hi = m.off[i];
    }
    size_t span = m.n ? (size_t)(hi - lo + 1) : 1, n = m.n;
    unsigned char *user = malloc(span), *packed = malloc(n + 1), *back = malloc(span);
    for (size_t i = 0; i < span; i++) user[i] = (unsigned char)rnd64();
    unsigned char *origin = user - lo; /* so that origin + off is inside user */
    /* whole */
    memset(packed, 0xEE, n + 1);
    dfc_dtype_pack(r->dt, origin, 0, n, packed);
    for (size_t i = 0; i < n; i++)
        if (packed[i] != origin[m.off[i]]) {
            FAIL("pack: byte %zu of %zu differs", i, n);
            break;
        }
    if (packed[n] != 0xEE) FAIL("pack wrote past its end");
    /* in random pieces, packing and unpacking: resumable at any byte */
    unsigned char *pieces = malloc(n + 1);
    memset(back, 0x5A, span);
    for (size_t at = 0; at < n;) {
        size_t want = (size_t)rndi(1, 40); /* DFC_MIN2 evaluates its arguments twice */
        size_t len = DFC_MIN2(n - at, want);
        dfc_dtype_pack(r->dt, origin, at, len, pieces + at);
        dfc_dtype_unpack(r->dt, back - lo, at, len, pieces + at);
        at += len;
    }
    if (n && memcmp(pieces, packed, n)) FAIL("pack in pieces differs from pack whole");
    /* unpacked: every byte of the map has the user's value, every other byte its poison (a
     * byte the map names twice takes the last value, which equals the first here) */
    unsigned char *want = malloc(span);
    memset(want, 0x5A, span);
    for (size_t i = 0; i < n; i++) want[m.off[i] - lo] = user[m.off[i] - lo];
    if (memcmp(want, back, span)) FAIL("unpack in pieces differs from the reference");
    free(want);
    free(pieces);
    free(user);
    free(packed);
    free(back);
    free(m.off);
}

static void test_random(void)
{
    int types = 0;
    for (int t = 0; t < 300; t++) {
        npool = 0;
        const ref_t *r = random_type(4);
        check_type(r, rndi(1, 3));
        types++;
        for (int i = npool - 1; i >= 0; i--)
            if (!pool[i].dt->builtin) dfc_dtype_release(pool[i].dt);
    }
    printf("random nested types: %d checked whole and in pieces\n", types);
}

static void test_big_vector(void)
{
    dfc_dtype_args_t none = {.combiner = DFC_COMBINER_VECTOR};
    dfc_dtype_t *v, *d = dfc_dtype_get(DFC_DOUBLE);
    if (dfc_dtype_vector("test", 1000000, 1, 16, d, &none, &v)) FAIL("vector");
    /* O(1): no per-block arrays */
    if (v->dl_kind != DFC_DL_VECTOR || v->dl_displs || v->dl_blens) FAIL("vector is not O(1)");
    if (v->size != 8000000 || v->extent != 16 * 999999 + 8) FAIL("vector size/extent");
    double *src = malloc(16 * 1000000), *dst = malloc(8 * 1000000);
    for (int i = 0; i < 2000000; i++) src[i] = i;
    dfc_dtype_pack(v, src, 0, v->size, dst);
    for (int i = 0; i < 1000000; i++)
        if (dst[i] != 2.0 * i) {
            FAIL("big vector element %d", i);
            break;
        }
    /* a piece starting inside an element */
    unsigned char piece[11];
    dfc_dtype_pack(v, src, 8 * 500000 + 3, 11, piece);
    if (memcmp(piece, (unsigned char *)&src[1000000] + 3, 5) || memcmp(piece + 5, &src[1000002], 6))
        FAIL("piece across two elements");
    /* Get_elements on every boundary: n doubles, then undefined inside one */
    if (dfc_dtype_elements_any(v, 8 * 777) != 777 || dfc_dtype_elements_any(v, 8 * 777 + 4) != -1)
        FAIL("elements");
    free(src);
    free(dst);
    dfc_dtype_release(v);
    printf("vector of 1e6 doubles: O(1) description, pack, pieces, elements\n");
}

static void test_struct_elements(void)
{
    /* {int; double; DOUBLE_INT pair}: elements 1 + 1 + 2 per item */
    size_t blens[3] = {1, 1, 1};
    DFC_Aint displs[3] = {0, 8, 16};
    dfc_dtype_t *types[3] = {dfc_dtype_get(DFC_INT), dfc_dtype_get(DFC_DOUBLE),
                             dfc_dtype_get(DFC_DOUBLE_INT)};
    dfc_dtype_args_t none = {.combiner = DFC_COMBINER_STRUCT};
    dfc_dtype_t *s;
    if (dfc_dtype_blocks("test", 3, blens, displs, types, &none, &s)) FAIL("struct");
    if (s->base != -1 || s->nelem != 4 || s->size != 28 || s->extent != 32 || s->mpi_size != 24)
        FAIL("struct: base %d nelem %zu size %zu extent %ld", s->base, s->nelem, s->size,
             (long)s->extent);
    static const struct {
        uint64_t bytes;
        DFC_Count want;
    } cases[] = {{0, 0}, {4, 1}, {6, -1}, {12, 2}, {20, 3}, {28, 4}, {32, 5}, {56, 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (dfc_dtype_elements_any(s, cases[i].bytes) != cases[i].want)
            FAIL("struct elements(%llu) = %lld, want %lld", (unsigned long long)cases[i].bytes,
                 (long long)dfc_dtype_elements_any(s, cases[i].bytes), (long long)cases[i].want);
    dfc_dtype_release(s);
    printf("struct of mixed types: size, extent padding, elements\n");
}

int main(void)
{
    if (dfc_dtype_init()) {
        fprintf(stderr, "dfc_dtype_init failed\n");
        return 1;
    }
    test_random();
    test_big_vector();
    test_struct_elements();
    dfc_dtype_finalize();
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
