/*
 * test_op.c - unit test of the reduction loops (src/comm/op.c) and datatypes (datatype.c).
 *
 * op.c is included, not linked, so that its static bfloat16/float16 conversions and loop
 * table can be tested directly; datatype.c and util are linked. Every result is compared
 * with a reference written independently: integers through 64-bit arithmetic, 16-bit floats
 * through double arithmetic and a rounding routine built on frexp/ldexp/rint.
 * Prints one line per check group; exits 1 when anything failed.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "comm/op.c"

#include "unit_check.h"

/* ---- Reference 16-bit float arithmetic ------------------------------------------------- */
typedef struct {
    int frac_bits, emin, emax;
} fmt16_t;
static const fmt16_t FP16 = {10, -14, 15}, BF16 = {7, -126, 127};

/* The value of a 16-bit pattern: 1 sign, then exponent, then frac_bits of fraction. */
static double ref_decode(fmt16_t f, uint16_t h)
{
    int ebits = 15 - f.frac_bits, bias = f.emax;
    int e = (h >> f.frac_bits) & ((1 << ebits) - 1), m = h & ((1 << f.frac_bits) - 1);
    double v;
    if (e == (1 << ebits) - 1) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp(m, f.emin - f.frac_bits);
    else v = ldexp(m + (1 << f.frac_bits), e - bias - f.frac_bits);
    return (h & 0x8000) ? -v : v;
}

/* x rounded to the format, to nearest with ties to even; infinity past the largest. */
static double ref_round(fmt16_t f, double x)
{
    if (isnan(x) || isinf(x) || x == 0) return x;
    int e;
    frexp(fabs(x), &e); /* |x| = m * 2^e, m in [0.5, 1): the leading bit is 2^(e-1) */
    int lead = e - 1 < f.emin ? f.emin : e - 1;
    double quantum = ldexp(1, lead - f.frac_bits);
    double r = rint(fabs(x) / quantum) * quantum;
    double max = ldexp(2 - ldexp(1, -f.frac_bits), f.emax);
    if (r > max) r = INFINITY;
    return copysign(r, x);
}

static int is_nan16(fmt16_t f, uint16_t h) { return isnan(ref_decode(f, h)); }

/* h must encode exactly the value v (NaN matches any NaN; zero's sign must match). */
static int matches(fmt16_t f, uint16_t h, double v)
{
    double d = ref_decode(f, h);
    if (isnan(v)) return isnan(d);
    return d == v && signbit(d) == signbit(v);
}

static void test_conversions(void)
{
    int before = failures;
    /* Every float16 and bfloat16 widens exactly and narrows back to itself (a NaN comes back
     * quiet, with its sign). */
    for (uint32_t u = 0; u < 65536; u++) {
        uint16_t h = (uint16_t)u;
        float f = dfc_fp16_to_float(h);
        if (!matches(FP16, h, f)) FAIL("fp16 0x%04x widened to %a", h, f);
        uint16_t back = dfc_float_to_fp16(f);
        if (is_nan16(FP16, h) ? (back != (h | 0x0200)) : back != h)
            FAIL("fp16 0x%04x -> %a -> 0x%04x", h, f, back);
        float g = dfc_bf16_to_float(h);
        if (!matches(BF16, h, g)) FAIL("bf16 0x%04x widened to %a", h, g);
        uint16_t bback = dfc_float_to_bf16(g);
        if (is_nan16(BF16, h) ? (bback != (h | 0x0040)) : bback != h)
            FAIL("bf16 0x%04x -> %a -> 0x%04x", h, g, bback);
    }
    /* Ties and their neighbours: the midpoint of every pair of adjacent finite values, and
     * one float ulp on each side, for both formats and both signs. */
    for (uint32_t u = 0; u < 0x7f80; u++) {
        for (int bf = 0; bf < 2; bf++) {
            fmt16_t fm = bf ? BF16 : FP16;
            if (!bf && u >= 0x7c00) continue;
            double lo = ref_decode(fm, (uint16_t)u), hi = ref_decode(fm, (uint16_t)(u + 1));
            if (isinf(hi)) hi = ldexp(2, fm.emax); /* the overflow threshold's midpoint */
            float mid = (float)((lo + hi) / 2);    /* exact: fewer than 24 bits */
            float cases[3] = {nextafterf(mid, 0), mid, nextafterf(mid, INFINITY)};
            for (int k = 0; k < 3; k++) {
                for (int s = 0; s < 2; s++) {
                    float x = s ? -cases[k] : cases[k];
                    uint16_t got = bf ? dfc_float_to_bf16(x) : dfc_float_to_fp16(x);
                    if (!matches(fm, got, ref_round(fm, x)))
                        FAIL("%s(%a) = 0x%04x, want %a", bf ? "bf16" : "fp16", x, got,
                             ref_round(fm, x));
                }
            }
        }
    }
    /* A NaN never narrows to infinity, even when its payload sits in the dropped bits. */
    if (!is_nan16(FP16, dfc_float_to_fp16(dfc_bits_float(0x7f800001u)))) FAIL("fp16 NaN lost");
    if (!is_nan16(BF16, dfc_float_to_bf16(dfc_bits_float(0xff800001u)))) FAIL("bf16 NaN lost");
    /* Random floats over the whole range. */
    for (int k = 0; k < 2000000; k++) {
        float x = dfc_bits_float((uint32_t)rnd64());
        if (!matches(FP16, dfc_float_to_fp16(x), ref_round(FP16, x)))
            FAIL("fp16(%a) = 0x%04x", x, dfc_float_to_fp16(x));
        if (!matches(BF16, dfc_float_to_bf16(x), ref_round(BF16, x)))
            FAIL("bf16(%a) = 0x%04x", x, dfc_float_to_bf16(x));
    }
    printf("%s conversions: bfloat16/float16 round trips, ties, subnormals, inf, NaN\n",
           failures == before ? "ok" : "not ok");
}

/* ---- Which (op, type) pairs MPI defines: written out independently of op.c ------------- */
enum fam { F_NONE, F_INT, F_FLOAT, F_HALF, F_BOOL, F_BYTE, F_PAIR, F_COMPLEX };
static enum fam family(int t)
{
    switch (t | (DFC_KIND_DATATYPE << 24)) {
    case DFC_FLOAT:
    case DFC_DOUBLE:
    case DFC_LONG_DOUBLE: return F_FLOAT;
    case DFC_BFLOAT16:
    case DFC_FLOAT16: return F_HALF;
    case DFC_C_BOOL: return F_BOOL;
    case DFC_BYTE: return F_BYTE;
    case DFC_WCHAR:
    case DFC_PACKED: return F_NONE;
    case DFC_FLOAT_INT:
    case DFC_DOUBLE_INT:
    case DFC_LONG_INT:
    case DFC_2INT:
    case DFC_SHORT_INT:
    case DFC_LONG_DOUBLE_INT: return F_PAIR;
    case DFC_C_FLOAT_COMPLEX:
    case DFC_C_DOUBLE_COMPLEX:
    case DFC_C_LONG_DOUBLE_COMPLEX:
    case DFC_COMPLEX:
    case DFC_DOUBLE_COMPLEX: return F_COMPLEX; /* SUM and PROD only (MPI-4.1 6.9.2) */
    default: return F_INT; /* CHAR (as MPICH), the C integers, AINT, OFFSET, COUNT */
    }
}

static int mpi_defines(int o, int t)
{
    enum fam f = family(t);
    switch (o | (DFC_KIND_OP << 24)) {
    case DFC_MAX:
    case DFC_MIN: return f == F_INT || f == F_FLOAT || f == F_HALF;
    case DFC_SUM:
    case DFC_PROD: return f == F_INT || f == F_FLOAT || f == F_HALF || f == F_COMPLEX;
    case DFC_LAND:
    case DFC_LOR:
    case DFC_LXOR: return f == F_INT || f == F_BOOL;
    case DFC_BAND:
    case DFC_BOR:
    case DFC_BXOR: return f == F_INT || f == F_BYTE;
    case DFC_MAXLOC:
    case DFC_MINLOC: return f == F_PAIR;
    default: return 1; /* REPLACE, NO_OP */
    }
}

/* ---- Reference element operations -------------------------------------------------------- */
static int is_signed_int(int t)
{
    switch (t | (DFC_KIND_DATATYPE << 24)) {
    case DFC_CHAR: return CHAR_MIN < 0;
    case DFC_SIGNED_CHAR:
    case DFC_SHORT:
    case DFC_INT:
    case DFC_LONG:
    case DFC_LONG_LONG_INT:
    case DFC_INT8_T:
    case DFC_INT16_T:
    case DFC_INT32_T:
    case DFC_INT64_T:
    case DFC_AINT:
    case DFC_OFFSET:
    case DFC_COUNT: return 1;
    default: return 0;
    }
}

static uint64_t load_bits(const void *p, size_t size)
{
    switch (size) {
    case 1: return *(const uint8_t *)p;
    case 2: return *(const uint16_t *)p;
    case 4: return *(const uint32_t *)p;
    default: return *(const uint64_t *)p;
    }
}
static int64_t sign_extend(uint64_t v, size_t size)
{
    return size == 8 ? (int64_t)v : (int64_t)(v << (64 - 8 * size)) >> (64 - 8 * size);
}
static void store_bits(void *p, size_t size, uint64_t v)
{
    switch (size) {
    case 1: *(uint8_t *)p = (uint8_t)v; break;
    case 2: *(uint16_t *)p = (uint16_t)v; break;
    case 4: *(uint32_t *)p = (uint32_t)v; break;
    default: *(uint64_t *)p = v; break;
    }
}

/* inout = in op inout for one integer, bool or byte element, in 64-bit arithmetic. */
static void ref_int(uint32_t o, int t, size_t size, const void *in, void *io)
{
    uint64_t a = load_bits(in, size), b = load_bits(io, size), r = 0;
    int sg = is_signed_int(t);
    int a_gt_b = sg ? sign_extend(a, size) > sign_extend(b, size) : a > b;
    int a_lt_b = sg ? sign_extend(a, size) < sign_extend(b, size) : a < b;
    switch (o | (DFC_KIND_OP << 24)) {
    case DFC_MAX: r = a_gt_b ? a : b; break;
    case DFC_MIN: r = a_lt_b ? a : b; break;
    case DFC_SUM: r = a + b; break; /* modulo 2^64, then truncated: wraps like the type */
    case DFC_PROD: r = a * b; break;
    case DFC_LAND: r = a && b; break;
    case DFC_LOR: r = a || b; break;
    case DFC_LXOR: r = !a != !b; break;
    case DFC_BAND: r = a & b; break;
    case DFC_BOR: r = a | b; break;
    case DFC_BXOR: r = a ^ b; break;
    }
    store_bits(io, size, r);
}

#define REF_FLOAT(T)                                          \
    static void ref_##T(uint32_t o, const void *in, void *io) \
    {                                                         \
        T a, b;                                               \
        memcpy(&a, in, sizeof a);                             \
        memcpy(&b, io, sizeof b);                             \
        T r = (o == OP_INDEX(DFC_MAX))   ? (a > b ? a : b)    \
              : (o == OP_INDEX(DFC_MIN)) ? (a < b ? a : b)    \
              : (o == OP_INDEX(DFC_SUM)) ? a + b              \
                                         : a * b;             \
        memcpy(io, &r, sizeof r);                             \
    }
typedef long double long_double;
REF_FLOAT(float)
REF_FLOAT(double)
REF_FLOAT(long_double)

/* Whether a computed float element equals the reference (NaN equals any NaN). */
#define SAME_FLOAT(T, x, y)                                                 \
    ({                                                                      \
        T x_, y_;                                                           \
        memcpy(&x_, (x), sizeof x_);                                        \
        memcpy(&y_, (y), sizeof y_);                                        \
        (x_ != x_ && y_ != y_) || (x_ == y_ && signbit(x_) == signbit(y_)); \
    })

/* Whether g is the right result of inout = in op inout on 16-bit floats a (in), b (inout). */
static int half_ok(uint32_t o, fmt16_t f, uint16_t a, uint16_t b, uint16_t g)
{
    double x = ref_decode(f, a), y = ref_decode(f, b);
    if (o == OP_INDEX(DFC_MAX) || o == OP_INDEX(DFC_MIN)) {
        uint16_t pick = (o == OP_INDEX(DFC_MAX) ? x > y : x < y) ? a : b;
        return is_nan16(f, pick) ? is_nan16(f, g) : g == pick; /* the input itself */
    }
    /* Exact in double for float16; for bfloat16 the double rounding is innocuous. */
    return matches(f, g, ref_round(f, o == OP_INDEX(DFC_SUM) ? x + y : x * y));
}

#define REF_LOC(NAME, PAIR_T)                                          \
    static void ref_loc_##NAME(int is_max, const void *in_, void *io_) \
    {                                                                  \
        const PAIR_T *in = in_;                                        \
        PAIR_T *io = io_;                                              \
        int better = is_max ? in->v > io->v : in->v < io->v;           \
        if (better || (in->v == io->v && in->i < io->i)) {             \
            io->v = better ? in->v : io->v;                            \
            io->i = in->i;                                             \
        }                                                              \
    }
DFC_PAIR_TYPES(REF_LOC)

/* ---- Random inputs ---------------------------------------------------------------------- */
/* Fills n elements of predefined type t (extent bytes each) with values that exercise the
 * type: zeros and small values for ties and logical ops, specials for floats. */
static void fill(int t, void *buf, size_t n, size_t extent)
{
    char *p = buf;
    for (size_t k = 0; k < n; k++, p += extent) {
        uint64_t r = rnd64();
        switch (family(t)) {
        case F_FLOAT: {
            double v = (double)(int64_t)(r >> 40) / 1024.0 - 4096.0;
            if (r % 37 == 0) v = (r & 64) ? INFINITY : -INFINITY;
            if (r % 41 == 0) v = NAN;
            if (r % 13 == 0) v = (r & 128) ? -0.0 : 0.0;
            if (t == TYPE_INDEX(DFC_FLOAT)) {
                float x = (float)v;
                memcpy(p, &x, sizeof x);
            } else if (t == TYPE_INDEX(DFC_DOUBLE)) memcpy(p, &v, sizeof v);
            else {
                long double x = v;
                memcpy(p, &x, sizeof x);
            }
            break;
        }
        case F_HALF: store_bits(p, 2, r >> 48); break; /* every pattern, specials included */
        case F_COMPLEX: { /* small integers: sums and products are exact in every precision */
            long double re = (long double)((int)(r % 19) - 9),
                        im = (long double)((int)(r >> 8) % 7);
            size_t half = extent / 2; /* real part, then imaginary part, as C lays them out */
            if (half == sizeof(float)) {
                float x[2] = {(float)re, (float)im};
                memcpy(p, x, sizeof x);
            } else if (half == sizeof(double)) {
                double x[2] = {(double)re, (double)im};
                memcpy(p, x, sizeof x);
            } else {
                long double x[2] = {re, im};
                memcpy(p, x, sizeof x);
            }
            break;
        }
        case F_BOOL: store_bits(p, 1, (r & 3) ? (r >> 8) % 3 : 0); break; /* 0, 1 and 2 */
        case F_PAIR: {
            long double v = (long double)((r >> 20) % 6);
            int idx = (int)((r >> 40) % 5);
#define FILL_PAIR(NAME, PAIR_T)        \
    if (t == TYPE_INDEX(DFC_##NAME)) { \
        PAIR_T x = {0};                \
        x.v = v, x.i = idx;            \
        memcpy(p, &x, sizeof x);       \
    }
            DFC_PAIR_TYPES(FILL_PAIR)
            break;
        }
        default: { /* integers, byte, wchar, packed: a mix of small values and random bits */
            size_t size = dfc_dtype_get(t | (DFC_KIND_DATATYPE << 24))->size;
            store_bits(p, size, (r & 3) == 0 ? 0 : (r & 3) == 1 ? (r >> 8) % 5 : r >> 3);
        }
        }
    }
}

/* The two parts of a complex number of part size `half` at p, as long doubles. */
#define LOAD2(out, p, half)                                                 \
    do {                                                                    \
        if ((half) == sizeof(float)) {                                      \
            float f_[2];                                                    \
            memcpy(f_, (p), sizeof f_), (out)[0] = f_[0], (out)[1] = f_[1]; \
        } else if ((half) == sizeof(double)) {                              \
            double d_[2];                                                   \
            memcpy(d_, (p), sizeof d_), (out)[0] = d_[0], (out)[1] = d_[1]; \
        } else memcpy((out), (p), 2 * sizeof(long double));                 \
    } while (0)

/* Compares dfc_op_reduce with the reference for op o on n elements of predefined type t. */
static void check_reduce(uint32_t o, int t, size_t n)
{
    dfc_dtype_t *dt = dfc_dtype_get(t | (DFC_KIND_DATATYPE << 24));
    dfc_op_t *op = dfc_op_get(o | (DFC_KIND_OP << 24));
    size_t ext = (size_t)dt->extent, bytes = n * ext + 1;
    char *in = calloc(1, bytes), *io = calloc(1, bytes), *want = calloc(1, bytes);
    fill(t, in, n, ext);
    fill(t, io, n, ext);
    memcpy(want, io, bytes);
    io[n * ext] = want[n * ext] = 0x5a; /* a guard byte past the end */
    dfc_op_reduce(op, dt, in, io, n);
    for (size_t k = 0; k < n; k++) {
        const char *a = in + k * ext;
        char *got = io + k * ext, *w = want + k * ext;
        int ok = 1;
        if (o == OP_INDEX(DFC_REPLACE)) memcpy(w, a, ext);
        if (o == OP_INDEX(DFC_REPLACE) || o == OP_INDEX(DFC_NO_OP)) {
            ok = !memcmp(got, w, ext);
        } else if (family(t) == F_FLOAT) {
            if (t == TYPE_INDEX(DFC_FLOAT)) {
                ref_float(o, a, w);
                ok = SAME_FLOAT(float, got, w);
            } else if (t == TYPE_INDEX(DFC_DOUBLE)) {
                ref_double(o, a, w);
                ok = SAME_FLOAT(double, got, w);
            } else {
                ref_long_double(o, a, w);
                ok = SAME_FLOAT(long double, got, w);
            }
        } else if (family(t) == F_HALF) {
            fmt16_t f = t == TYPE_INDEX(DFC_FLOAT16) ? FP16 : BF16;
            uint16_t x, y, g;
            memcpy(&x, a, 2), memcpy(&y, w, 2), memcpy(&g, got, 2);
            ok = half_ok(o, f, x, y, g);
        } else if (family(t) == F_COMPLEX) {
            /* (a + bi) + (c + di), (a + bi)(c + di) = (ac - bd) + (ad + bc)i, on exact values */
            size_t half = ext / 2;
            long double x[2], y[2], g[2], r[2];
            LOAD2(x, a, half);
            LOAD2(y, w, half);
            LOAD2(g, got, half);
            if (o == OP_INDEX(DFC_SUM)) r[0] = x[0] + y[0], r[1] = x[1] + y[1];
            else r[0] = x[0] * y[0] - x[1] * y[1], r[1] = x[0] * y[1] + x[1] * y[0];
            ok = g[0] == r[0] && g[1] == r[1];
        } else if (family(t) == F_PAIR) {
#define CHECK_LOC(NAME, PAIR_T)                                                                \
    if (t == TYPE_INDEX(DFC_##NAME)) {                                                         \
        ref_loc_##NAME(o == OP_INDEX(DFC_MAXLOC), a, w);                                       \
        ok = ((PAIR_T *)got)->v == ((PAIR_T *)w)->v && ((PAIR_T *)got)->i == ((PAIR_T *)w)->i; \
    }
            DFC_PAIR_TYPES(CHECK_LOC)
        } else {
            ref_int(o, t, dt->size, a, w);
            ok = !memcmp(got, w, dt->size);
        }
        if (!ok) {
            FAIL("%s on %s, n %zu, element %zu differs", op->name, dt->name, n, k);
            break;
        }
    }
    if (io[n * ext] != 0x5a) FAIL("%s on %s, n %zu wrote past the end", op->name, dt->name, n);
    free(in), free(io), free(want);
}

static void test_all_pairs(void)
{
    static const size_t lengths[] = {0, 1, 7, 8, 9, 31, 33, 1000, 4099};
    int before = failures, checked = 0, rejected = 0;
    for (uint32_t o = 1; o <= DFC_OP_BUILTIN_MAX; o++) {
        for (int t = 1; t <= DFC_DATATYPE_BUILTIN_MAX; t++) {
            dfc_dtype_t *dt = dfc_dtype_get(t | (DFC_KIND_DATATYPE << 24));
            dfc_op_t *op = NULL;
            int rc = dfc_op_check((DFC_Op)(o | (DFC_KIND_OP << 24)), dt, "test", "op", &op);
            if (!mpi_defines(o, t)) {
                rejected++;
                if (DFC_ERR_CLASS(rc) != DFC_ERR_OP)
                    FAIL("op %u on %s: accepted, MPI does not define it", o, dt->name);
                continue;
            }
            if (rc != DFC_SUCCESS) {
                FAIL("op %u on %s: rejected (class %d)", o, dt->name, DFC_ERR_CLASS(rc));
                continue;
            }
            for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++)
                check_reduce(o, t, lengths[k]);
            checked++;
        }
    }
    printf("%s every (op, type): %d defined pairs match the reference, %d rejected pairs\n",
           failures == before ? "ok" : "not ok", checked, rejected);
}

#ifdef DFC_OP_X86
/* The x86 paths must give the same bits as the portable ones. */
static void test_x86_matches_portable(void)
{
    int before = failures;
    enum { N = 100003 };
    static uint16_t in[N], a[N], b[N];
    static dfc_op_loop_fn *const fast[] = {max_FLOAT16,  min_FLOAT16,  sum_FLOAT16,  prod_FLOAT16,
                                           max_BFLOAT16, min_BFLOAT16, sum_BFLOAT16, prod_BFLOAT16};
    static dfc_op_loop_fn *const slow[] = {max_FLOAT16_portable,  min_FLOAT16_portable,
                                           sum_FLOAT16_portable,  prod_FLOAT16_portable,
                                           max_BFLOAT16_portable, min_BFLOAT16_portable,
                                           sum_BFLOAT16_portable, prod_BFLOAT16_portable};
    for (int f = 0; f < 8; f++) {
        for (int k = 0; k < N; k++) in[k] = (uint16_t)rnd64(), a[k] = b[k] = (uint16_t)rnd64();
        fast[f](in, a, N);
        slow[f](in, b, N);
        for (int k = 0; k < N; k++)
            if (a[k] != b[k]) {
                FAIL("x86 loop %d: 0x%04x vs portable 0x%04x at %d", f, a[k], b[k], k);
                break;
            }
    }
    printf("%s x86: F16C float16 (%s) and AVX2 bfloat16 (%s) equal the portable loops\n",
           failures == before ? "ok" : "not ok", dfc_op_use_f16c ? "used" : "absent",
           dfc_op_use_avx2 ? "used" : "absent");
}
#else
static void test_x86_matches_portable(void) {}
#endif

/* A non-commutative user op records its calls; chunking must respect INT_MAX. */
static int calls, last_len;
static DFC_Datatype last_type;
static const char *first_in;
static void recording_fn(void *in, void *inout, int *len, DFC_Datatype *type)
{
    if (calls++ == 0) first_in = in;
    last_len = *len;
    last_type = *type;
    (void)inout; /* never dereferenced: the huge count below points at a tiny buffer */
}
static void subtract_fn(void *in, void *inout, int *len, DFC_Datatype *type)
{
    /* len counts items of *type, each a whole number of ints */
    size_t n = (size_t)*len * (dfc_dtype_get(*type)->size / sizeof(int));
    for (size_t i = 0; i < n; i++) ((int *)inout)[i] = ((int *)in)[i] - ((int *)inout)[i];
}

static void test_user_and_derived(void)
{
    int before = failures;
    dfc_op_t *user = NULL, *sub = NULL, *op = NULL;
    dfc_dtype_t *bytes = dfc_dtype_get(DFC_BYTE), *ints = dfc_dtype_get(DFC_INT), *d3 = NULL;
    char tiny[4];
    if (dfc_op_create("test", recording_fn, 0, &user)) FAIL("op_create");
    dfc_op_reduce(user, bytes, tiny, tiny, (size_t)INT_MAX + 10);
    if (calls != 2 || last_len != 10 || last_type != DFC_BYTE || first_in != tiny)
        FAIL("user op chunks: %d calls, last len %d", calls, last_len);
    if (dfc_op_check(user->handle, dfc_dtype_get(DFC_WCHAR), "t", "op", &op))
        FAIL("user ops take every type");

    int in[15], io[15];
    for (int i = 0; i < 15; i++) in[i] = 100 + i, io[i] = i;
    dfc_op_create("test", subtract_fn, 0, &sub);
    if (dfc_dtype_contiguous("test", 3, ints, &d3)) FAIL("contiguous");
    d3->committed = 1;
    dfc_op_reduce(sub, d3, in, io, 5); /* in - inout: the argument order is observable */
    for (int i = 0; i < 15; i++)
        if (io[i] != 100) FAIL("user op order: io[%d] = %d", i, io[i]);

    /* Predefined ops on a nested contiguous type reduce its base elements. */
    dfc_dtype_t *d6 = NULL;
    dfc_dtype_contiguous("test", 2, d3, &d6);
    if (d6->nbase != 6 || d6->size != 6 * sizeof(int) || d6->base != (int)TYPE_INDEX(DFC_INT))
        FAIL("nested contiguous: nbase %zu size %zu", d6->nbase, d6->size);
    int x[12], y[12];
    for (int i = 0; i < 12; i++) x[i] = i, y[i] = 2 * i;
    dfc_op_reduce(dfc_op_get(DFC_SUM), d6, x, y, 2);
    for (int i = 0; i < 12; i++)
        if (y[i] != 3 * i) FAIL("derived SUM: y[%d] = %d", i, y[i]);

    /* A derived type of a type an op rejects is rejected too, with a message that says so. */
    dfc_dtype_t *w2 = NULL;
    dfc_dtype_contiguous("test", 2, dfc_dtype_get(DFC_WCHAR), &w2);
    int rc = dfc_op_check(DFC_SUM, w2, "DFC_Reduce_local", "op", &op);
    char msg[DFC_MAX_ERROR_STRING];
    dfc_err_message(rc, msg, sizeof msg);
    if (DFC_ERR_CLASS(rc) != DFC_ERR_OP || !strstr(msg, "DFC_Reduce_local: invalid argument op") ||
        !strstr(msg, "DFC_WCHAR"))
        FAIL("derived WCHAR SUM: %s", msg);
    rc = dfc_op_check(DFC_OP_NULL, ints, "f", "op", &op);
    if (DFC_ERR_CLASS(rc) != DFC_ERR_OP) FAIL("OP_NULL accepted");
    rc = dfc_op_check(DFC_INT, ints, "f", "op", &op);
    if (DFC_ERR_CLASS(rc) != DFC_ERR_OP) FAIL("a datatype handle accepted as op");

    /* MAXLOC over a derived type of DOUBLE_INT strides by the pair's extent. */
    dfc_pair_double_int_t pa[4] = {{1, 5}, {7, 1}, {3, 3}, {2, 2}};
    dfc_pair_double_int_t pb[4] = {{1, 4}, {7, 0}, {4, 9}, {1, 1}};
    dfc_dtype_t *p2 = NULL;
    dfc_dtype_contiguous("test", 2, dfc_dtype_get(DFC_DOUBLE_INT), &p2);
    dfc_op_reduce(dfc_op_get(DFC_MAXLOC), p2, pa, pb, 2);
    if (pb[0].i != 4 || pb[1].i != 0 || pb[2].v != 4 || pb[3].v != 2 || pb[3].i != 2)
        FAIL("derived MAXLOC");

    dfc_dtype_free_handle(d3), dfc_dtype_free_handle(d6), dfc_dtype_free_handle(w2);
    dfc_dtype_free_handle(p2);
    dfc_op_free_handle(user), dfc_op_free_handle(sub);
    printf("%s user ops (chunks, order) and derived contiguous types\n",
           failures == before ? "ok" : "not ok");
}

static void test_datatypes(void)
{
    int before = failures;
    struct {
        DFC_Datatype h;
        size_t size, extent;
    } want[] = {
        {DFC_INT, sizeof(int), sizeof(int)},
        {DFC_LONG_DOUBLE, sizeof(long double), sizeof(long double)},
        {DFC_C_BOOL, sizeof(_Bool), sizeof(_Bool)},
        {DFC_BFLOAT16, 2, 2},
        {DFC_FLOAT16, 2, 2},
        {DFC_FLOAT_INT, sizeof(float) + sizeof(int), sizeof(dfc_pair_float_int_t)},
        {DFC_DOUBLE_INT, sizeof(double) + sizeof(int), sizeof(dfc_pair_double_int_t)},
        {DFC_SHORT_INT, sizeof(short) + sizeof(int), sizeof(dfc_pair_short_int_t)},
        {DFC_LONG_DOUBLE_INT, sizeof(long double) + sizeof(int),
         sizeof(dfc_pair_long_double_int_t)},
    };
    /* The engine's size is the extent (types are dense); MPI's size is reported apart. */
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        dfc_dtype_t *dt = dfc_dtype_get(want[k].h);
        if (!dt || dfc_dtype_mpi_size(dt) != want[k].size || dt->size != want[k].extent ||
            (size_t)dt->extent != want[k].extent)
            FAIL("type 0x%x: size/extent wrong", (unsigned)want[k].h);
    }
    /* Elements of SHORT_INT (2-byte value, 8-byte extent): a message may end after a value. */
    dfc_dtype_t *si = dfc_dtype_get(DFC_SHORT_INT);
    if (dfc_dtype_elements(si, 16) != 4 || dfc_dtype_elements(si, 10) != 3 ||
        dfc_dtype_elements(si, 7) != -1 || dfc_dtype_elements(dfc_dtype_get(DFC_INT), 6) != -1)
        FAIL("elements");
    dfc_dtype_t *dt = NULL;
    int rc = dfc_dtype_check(DFC_DATATYPE_NULL, "DFC_Send", "datatype", &dt);
    char msg[DFC_MAX_ERROR_STRING];
    dfc_err_message(rc, msg, sizeof msg);
    if (DFC_ERR_CLASS(rc) != DFC_ERR_TYPE || !strstr(msg, "DFC_Send: invalid argument datatype"))
        FAIL("null type: %s", msg);
    dfc_dtype_contiguous("test", 4, dfc_dtype_get(DFC_INT), &dt);
    DFC_Datatype h = dt->handle;
    if (DFC_ERR_CLASS(dfc_dtype_check(h, "f", "datatype", &dt)) != DFC_ERR_TYPE)
        FAIL("uncommitted type accepted");
    dfc_dtype_free_handle(dt);
    if (DFC_ERR_CLASS(dfc_dtype_check(h, "f", "datatype", &dt)) != DFC_ERR_TYPE)
        FAIL("freed type accepted");
    printf("%s datatypes: sizes, extents, elements, checks\n",
           failures == before ? "ok" : "not ok");
}

int main(void)
{
    if (dfc_dtype_init() || dfc_op_init()) {
        printf("not ok init\n");
        return 1;
    }
    test_datatypes();
    test_conversions();
    test_all_pairs();
    test_x86_matches_portable();
#ifdef DFC_OP_X86
    dfc_op_use_avx2 = dfc_op_use_f16c = 0; /* again through the portable 16-bit loops */
    test_all_pairs();
#endif
    test_user_and_derived();
    dfc_op_finalize();
    dfc_dtype_finalize();
    printf("%s test_op (%d failures)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
