/*
 * colltest.h - what the collective tests share (after MPICH's mtest): the three forms of a
 * collective, deterministic inputs, typed reference reductions, poisoned receive buffers
 * and element-by-element checks.
 *
 * Inputs: every rank's input for call number `iter` is a pure function of (rank, iter), so
 * each rank computes the serial reference of a collective locally from all ranks' inputs.
 * All ranks make the same sequence of calls, so ct_iter is the same everywhere.
 *
 * Reductions use small integer inputs (or random bits for the bitwise ops), so the results
 * of SUM, PROD, MAX and MIN are exact in every type, including bfloat16 and float16, and
 * results can be compared as bit patterns whatever order an algorithm reduces in.
 */
#ifndef COLLTEST_H
#define COLLTEST_H

#include <sched.h>
#include <stdint.h>
#include <unistd.h>

#include "../dfctest.h"

static int ct_rank, ct_size;
static unsigned ct_iter __attribute__((unused)); /* call counter, identical on all ranks */

static inline void ct_init(int *argc, char ***argv)
{
    dfct_init(argc, argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &ct_rank);
    DFC_Comm_size(DFC_COMM_WORLD, &ct_size);
}

/* Integer option -name=value from the command line, or dflt. */
static inline long ct_opt(int argc, char **argv, const char *name, long dflt)
{
    return dfct_opt_long(argc, argv, name, dflt);
}
static inline int ct_flag(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && !strcmp(argv[i] + 1, name)) return 1;
    return 0;
}

static inline void *ct_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "[rank %d] out of memory (%zu bytes)\n", ct_rank, n);
        DFC_Abort(DFC_COMM_WORLD, 1);
    }
    return p;
}

/* The generator state for (rank, iter, salt). */
static inline unsigned ct_seed(int rank, unsigned iter, unsigned salt)
{
    unsigned s = 0x9e3779b9u * (unsigned)(rank + 1) ^ 0x85ebca6bu * (iter + 1) ^
                 0xc2b2ae35u * (salt + 1);
    s ^= s >> 15;
    s *= 0x2c1b3c6du;
    s ^= s >> 12;
    return s;
}
/* A value that depends on all of a, b, c, d (for data-movement tests). */
static inline int ct_val(int a, int b, int c, unsigned d)
{
    unsigned h = (unsigned)a * 0x27d4eb2du ^ (unsigned)b * 0x165667b1u ^ (unsigned)c * 0x9e3779b9u ^
                 d * 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return (int)(h & 0x7fffffff);
}

/* ---- The three forms ----------------------------------------------------------------------- */
enum { CT_BLOCKING, CT_NONBLOCKING, CT_PERSISTENT, CT_NFORMS };
static const char *const ct_form_name[CT_NFORMS] = {"blocking", "nonblocking", "persistent"};
#define CT_NSTARTS 3 /* starts of each persistent request, with new inputs each time */
#define CT_NRUNS(form) ((form) == CT_PERSISTENT ? CT_NSTARTS : 1)

/* Completes a request, by Wait or (every other call) by polling Test. The polling loop
 * yields the CPU between Tests, as a considerate application does: the tests run with
 * more ranks than cores, where a rank that spins keeps its peers from running. */
static inline void ct_complete(DFC_Request *req, unsigned iter)
{
    if (iter % 2) {
        DFCT_OK(DFC_Wait(req, DFC_STATUS_IGNORE));
    } else {
        int flag = 0;
        DFC_Status st;
        for (;;) {
            DFCT_OK(DFC_Test(req, &flag, &st));
            if (flag) break;
            sched_yield();
        }
    }
}

/* Runs start number k of a collective in `form`: the blocking call; the I-call and its
 * completion; or (persistent) the _init call at k == 0, then Start and completion. The
 * request of the persistent form is freed by the caller (CT_FREE) after the last start. */
#define CT_RUN(form, k, req, BLOCKING_CALL, NB_CALL, INIT_CALL)                              \
    do {                                                                                     \
        if ((form) == CT_BLOCKING) {                                                         \
            DFCT_OK(BLOCKING_CALL);                                                          \
        } else if ((form) == CT_NONBLOCKING) {                                               \
            DFCT_OK(NB_CALL);                                                                \
            ct_complete(&(req), ct_iter);                                                    \
            DFCT_CHECK((req) == DFC_REQUEST_NULL, "completed request not set to NULL");      \
        } else {                                                                             \
            if ((k) == 0) DFCT_OK(INIT_CALL);                                                \
            DFCT_OK(DFC_Start(&(req)));                                                      \
            ct_complete(&(req), ct_iter);                                                    \
            DFCT_CHECK((req) != DFC_REQUEST_NULL, "persistent request freed by completion"); \
        }                                                                                    \
    } while (0)
#define CT_FREE(form, req)                                        \
    do {                                                          \
        if ((form) == CT_PERSISTENT && (req) != DFC_REQUEST_NULL) \
            DFCT_OK(DFC_Request_free(&(req)));                    \
    } while (0)

/* ---- Poison and checks ---------------------------------------------------------------------- */
#define CT_GUARD 64 /* poisoned bytes after every receive buffer */

static inline unsigned char ct_poison_byte(unsigned iter)
{
    return (unsigned char)(0xa5 ^ (iter * 29u));
}
static inline void ct_poison(void *buf, size_t bytes, unsigned iter)
{
    memset(buf, ct_poison_byte(iter), bytes);
}
/* Returns 1 if the bytes are all poison. */
static inline int ct_is_poison(const void *buf, size_t bytes, unsigned iter)
{
    const unsigned char *b = buf, p = ct_poison_byte(iter);
    for (size_t i = 0; i < bytes; i++)
        if (b[i] != p) return 0;
    return 1;
}

static inline void ct_hex(char *out, const void *p, int n)
{
    const unsigned char *b = p;
    out[0] = 0;
    for (int i = n - 1; i >= 0; i--) sprintf(out + 2 * (n - 1 - i), "%02x", b[i]);
}

/* Compares n elements of `elsize` bytes; reports the first few differences. Returns the
 * number of differing elements. */
static inline size_t ct_compare(const char *what, const void *got, const void *exp, size_t n,
                                int elsize)
{
    const char *g = got, *e = exp;
    size_t bad = 0;
    if (n && !memcmp(got, exp, n * (size_t)elsize)) return 0;
    for (size_t i = 0; i < n; i++) {
        if (memcmp(g + i * elsize, e + i * elsize, elsize)) {
            if (bad < 3) {
                char hg[40], he[40];
                ct_hex(hg, g + i * elsize, elsize > 16 ? 16 : elsize);
                ct_hex(he, e + i * elsize, elsize > 16 ? 16 : elsize);
                dfct_fail_at(__FILE__, __LINE__, "%s: element %zu of %zu is 0x%s, expected 0x%s",
                             what, i, n, hg, he);
            }
            bad++;
        }
    }
    if (bad > 3) dfct_fail_at(__FILE__, __LINE__, "%s: %zu of %zu elements differ", what, bad, n);
    return bad;
}
/* The guard after a receive buffer must still be poison. */
static inline void ct_check_guard(const char *what, const void *end, unsigned iter)
{
    DFCT_CHECK(ct_is_poison(end, CT_GUARD, iter), "%s: wrote past the end of the receive buffer",
               what);
}

/* ---- Types ----------------------------------------------------------------------------------- */
enum { CT_SINT, CT_UINT, CT_FLT, CT_BF16, CT_FP16 };
typedef struct ct_type {
    DFC_Datatype dt;
    const char *name;
    int size;
    int cls;
} ct_type_t;

static const ct_type_t ct_types[] = {
    {DFC_INT, "INT", sizeof(int), CT_SINT},
    {DFC_LONG_LONG, "LONG_LONG", sizeof(long long), CT_SINT},
    {DFC_UNSIGNED_CHAR, "UNSIGNED_CHAR", 1, CT_UINT},
    {DFC_FLOAT, "FLOAT", sizeof(float), CT_FLT},
    {DFC_DOUBLE, "DOUBLE", sizeof(double), CT_FLT},
    {DFC_INT8_T, "INT8_T", 1, CT_SINT},
    {DFC_INT16_T, "INT16_T", 2, CT_SINT},
    {DFC_INT32_T, "INT32_T", 4, CT_SINT},
    {DFC_INT64_T, "INT64_T", 8, CT_SINT},
    {DFC_UINT8_T, "UINT8_T", 1, CT_UINT},
    {DFC_UINT16_T, "UINT16_T", 2, CT_UINT},
    {DFC_UINT32_T, "UINT32_T", 4, CT_UINT},
    {DFC_UINT64_T, "UINT64_T", 8, CT_UINT},
    {DFC_BFLOAT16, "BFLOAT16", 2, CT_BF16},
    {DFC_FLOAT16, "FLOAT16", 2, CT_FP16},
};
#define CT_NTYPES ((int)(sizeof ct_types / sizeof ct_types[0]))

static inline const ct_type_t *ct_type_of(DFC_Datatype dt)
{
    for (int i = 0; i < CT_NTYPES; i++)
        if (ct_types[i].dt == dt) return &ct_types[i];
    return NULL;
}

typedef struct ct_op {
    DFC_Op op;
    const char *name;
    int int_only; /* defined for the integer types only */
} ct_op_t;
static const ct_op_t ct_ops[] = {
    {DFC_SUM, "SUM", 0},   {DFC_PROD, "PROD", 0}, {DFC_MAX, "MAX", 0},   {DFC_MIN, "MIN", 0},
    {DFC_LAND, "LAND", 1}, {DFC_LOR, "LOR", 1},   {DFC_LXOR, "LXOR", 1}, {DFC_BAND, "BAND", 1},
    {DFC_BOR, "BOR", 1},   {DFC_BXOR, "BXOR", 1},
};
#define CT_NOPS ((int)(sizeof ct_ops / sizeof ct_ops[0]))
static inline int ct_op_ok(const ct_op_t *o, const ct_type_t *t)
{
    return !o->int_only || t->cls == CT_SINT || t->cls == CT_UINT;
}
static inline const char *ct_op_name(DFC_Op op)
{
    for (int i = 0; i < CT_NOPS; i++)
        if (ct_ops[i].op == op) return ct_ops[i].name;
    return "user op";
}

/* bfloat16 / float16 for exactly representable values (the test only makes such). */
static inline float ct_bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline uint32_t ct_float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float ct_bf16_to_float(uint16_t h) { return ct_bits_float((uint32_t)h << 16); }
static inline uint16_t ct_float_to_bf16(float f)
{
    uint32_t b = ct_float_bits(f);
    if (b & 0xffffu)
        dfct_fail_at(__FILE__, __LINE__, "test bug: %g is not exact in bfloat16", (double)f);
    return (uint16_t)(b >> 16);
}
static inline float ct_fp16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0) {
        float m = (float)mant * 0x1p-24f;
        return sign ? -m : m;
    }
    if (exp == 0x1f) return ct_bits_float(sign | 0x7f800000u | (mant << 13));
    return ct_bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}
static inline uint16_t ct_float_to_fp16(float f)
{
    uint32_t x = ct_float_bits(f), ax = x & 0x7fffffffu;
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    if (ax == 0) return sign;
    /* Normal float16 only: exponent in [-14, 15] and at most 10 mantissa bits. */
    int e = (int)(ax >> 23) - 127;
    if (e < -14 || e > 15 || (ax & 0x1fffu)) {
        dfct_fail_at(__FILE__, __LINE__, "test bug: %g is not exact in float16", (double)f);
        return 0;
    }
    return sign | (uint16_t)(((unsigned)(e + 15) << 10) | ((ax >> 13) & 0x3ffu));
}

/* Sets element i of buf (of type t) to v: integers take v's low bits, floating types the
 * value v (small, so exact). */
static inline void ct_set(const ct_type_t *t, void *buf, size_t i, long long v)
{
    switch (t->dt) {
    case DFC_INT: ((int *)buf)[i] = (int)v; break;
    case DFC_LONG_LONG: ((long long *)buf)[i] = v; break;
    case DFC_UNSIGNED_CHAR: ((unsigned char *)buf)[i] = (unsigned char)v; break;
    case DFC_FLOAT: ((float *)buf)[i] = (float)v; break;
    case DFC_DOUBLE: ((double *)buf)[i] = (double)v; break;
    case DFC_INT8_T: ((int8_t *)buf)[i] = (int8_t)v; break;
    case DFC_INT16_T: ((int16_t *)buf)[i] = (int16_t)v; break;
    case DFC_INT32_T: ((int32_t *)buf)[i] = (int32_t)v; break;
    case DFC_INT64_T: ((int64_t *)buf)[i] = (int64_t)v; break;
    case DFC_UINT8_T: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case DFC_UINT16_T: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case DFC_UINT32_T: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case DFC_UINT64_T: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case DFC_BFLOAT16: ((uint16_t *)buf)[i] = ct_float_to_bf16((float)v); break;
    case DFC_FLOAT16: ((uint16_t *)buf)[i] = ct_float_to_fp16((float)v); break;
    default: dfct_fail_at(__FILE__, __LINE__, "test bug: type 0x%x", (unsigned)t->dt);
    }
}

/* The input value of element i for `op`, from generator state *s. */
static inline long long ct_input_value(const ct_type_t *t, DFC_Op op, unsigned *s)
{
    unsigned r = dfct_rand(s);
    int sgn = t->cls != CT_UINT;
    switch (op) {
    case DFC_SUM: return sgn ? (long long)(r % 16) - 8 : (long long)(r % 16);
    case DFC_PROD: {
        /* powers of two (signed: with signs), so products are exact; unsigned: 1..3, wrapping */
        static const int sv[4] = {1, 1, 2, -1};
        return sgn ? sv[r % 4] : (long long)(r % 3 + 1);
    }
    case DFC_MAX:
    case DFC_MIN: return sgn ? (long long)(r % 201) - 100 : (long long)(r % 256);
    case DFC_LAND: return r % 10 == 0 ? 0 : 1 + (r >> 4) % 2; /* mostly true */
    case DFC_LOR: return r % 10 == 0 ? 1 + (r >> 4) % 2 : 0;  /* mostly false */
    case DFC_LXOR: return r % 3;
    default: { /* bitwise: random bits over 64 */
        unsigned long long v = r;
        v = v << 24 | dfct_rand(s);
        v = v << 24 | dfct_rand(s);
        return (long long)v;
    }
    }
}

/* Fills n elements with rank's input for call iter. */
#define CT_FILL_LOOP(T, CONV)                                                   \
    do {                                                                        \
        T *b_ = buf;                                                            \
        for (size_t i = 0; i < n; i++) b_[i] = CONV(ct_input_value(t, op, &s)); \
    } while (0)
#define CT_CAST_INT(v) (v)
#define CT_CAST_BF16(v) ct_float_to_bf16((float)(v))
#define CT_CAST_FP16(v) ct_float_to_fp16((float)(v))
static inline void ct_fill(const ct_type_t *t, DFC_Op op, void *buf, size_t n, int rank,
                           unsigned iter)
{
    unsigned s = ct_seed(rank, iter, 1);
    switch (t->dt) { /* the same as ct_set element by element, with the switch outside the loop */
    case DFC_INT: CT_FILL_LOOP(int, (int)); break;
    case DFC_LONG_LONG: CT_FILL_LOOP(long long, CT_CAST_INT); break;
    case DFC_UNSIGNED_CHAR: CT_FILL_LOOP(unsigned char, (unsigned char)); break;
    case DFC_FLOAT: CT_FILL_LOOP(float, (float)); break;
    case DFC_DOUBLE: CT_FILL_LOOP(double, (double)); break;
    case DFC_INT8_T: CT_FILL_LOOP(int8_t, (int8_t)); break;
    case DFC_INT16_T: CT_FILL_LOOP(int16_t, (int16_t)); break;
    case DFC_INT32_T: CT_FILL_LOOP(int32_t, (int32_t)); break;
    case DFC_INT64_T: CT_FILL_LOOP(int64_t, (int64_t)); break;
    case DFC_UINT8_T: CT_FILL_LOOP(uint8_t, (uint8_t)); break;
    case DFC_UINT16_T: CT_FILL_LOOP(uint16_t, (uint16_t)); break;
    case DFC_UINT32_T: CT_FILL_LOOP(uint32_t, (uint32_t)); break;
    case DFC_UINT64_T: CT_FILL_LOOP(uint64_t, (uint64_t)); break;
    case DFC_BFLOAT16: CT_FILL_LOOP(uint16_t, CT_CAST_BF16); break;
    case DFC_FLOAT16: CT_FILL_LOOP(uint16_t, CT_CAST_FP16); break;
    default:
        for (size_t i = 0; i < n; i++) ct_set(t, buf, i, ct_input_value(t, op, &s));
    }
}

/* Reference reduction, MPI's order: io[i] = in[i] (op) io[i]. */
#define CT_REF_INT(T, U)                                            \
    do {                                                            \
        const T *a_ = in;                                           \
        T *b_ = io;                                                 \
        for (size_t i = 0; i < n; i++) {                            \
            T a = a_[i], b = b_[i], r = 0;                          \
            if (op == DFC_SUM) r = (T)(0u + (U)a + (U)b);           \
            else if (op == DFC_PROD) r = (T)(1u * (U)a * (U)b);     \
            else if (op == DFC_MAX) r = a > b ? a : b;              \
            else if (op == DFC_MIN) r = a < b ? a : b;              \
            else if (op == DFC_LAND) r = (T)((a != 0) && (b != 0)); \
            else if (op == DFC_LOR) r = (T)((a != 0) || (b != 0));  \
            else if (op == DFC_LXOR) r = (T)((a != 0) != (b != 0)); \
            else if (op == DFC_BAND) r = (T)(a & b);                \
            else if (op == DFC_BOR) r = (T)(a | b);                 \
            else if (op == DFC_BXOR) r = (T)(a ^ b);                \
            b_[i] = r;                                              \
        }                                                           \
    } while (0)
#define CT_REF_FLT(T)                                  \
    do {                                               \
        const T *a_ = in;                              \
        T *b_ = io;                                    \
        for (size_t i = 0; i < n; i++) {               \
            T a = a_[i], b = b_[i], r = 0;             \
            if (op == DFC_SUM) r = a + b;              \
            else if (op == DFC_PROD) r = a * b;        \
            else if (op == DFC_MAX) r = a > b ? a : b; \
            else if (op == DFC_MIN) r = a < b ? a : b; \
            b_[i] = r;                                 \
        }                                              \
    } while (0)
#define CT_REF_HALF(TO, FROM)                          \
    do {                                               \
        const uint16_t *a_ = in;                       \
        uint16_t *b_ = io;                             \
        for (size_t i = 0; i < n; i++) {               \
            float a = TO(a_[i]), b = TO(b_[i]), r = 0; \
            if (op == DFC_SUM) r = a + b;              \
            else if (op == DFC_PROD) r = a * b;        \
            else if (op == DFC_MAX) r = a > b ? a : b; \
            else if (op == DFC_MIN) r = a < b ? a : b; \
            b_[i] = FROM(r);                           \
        }                                              \
    } while (0)

static inline void ct_ref_reduce(DFC_Op op, const ct_type_t *t, const void *in, void *io, size_t n)
{
    switch (t->dt) {
    case DFC_INT: CT_REF_INT(int, unsigned); break;
    case DFC_LONG_LONG: CT_REF_INT(long long, unsigned long long); break;
    case DFC_UNSIGNED_CHAR: CT_REF_INT(unsigned char, unsigned char); break;
    case DFC_FLOAT: CT_REF_FLT(float); break;
    case DFC_DOUBLE: CT_REF_FLT(double); break;
    case DFC_INT8_T: CT_REF_INT(int8_t, uint8_t); break;
    case DFC_INT16_T: CT_REF_INT(int16_t, uint16_t); break;
    case DFC_INT32_T: CT_REF_INT(int32_t, uint32_t); break;
    case DFC_INT64_T: CT_REF_INT(int64_t, uint64_t); break;
    case DFC_UINT8_T: CT_REF_INT(uint8_t, uint8_t); break;
    case DFC_UINT16_T: CT_REF_INT(uint16_t, uint16_t); break;
    case DFC_UINT32_T: CT_REF_INT(uint32_t, uint32_t); break;
    case DFC_UINT64_T: CT_REF_INT(uint64_t, uint64_t); break;
    case DFC_BFLOAT16: CT_REF_HALF(ct_bf16_to_float, ct_float_to_bf16); break;
    case DFC_FLOAT16: CT_REF_HALF(ct_fp16_to_float, ct_float_to_fp16); break;
    default: dfct_fail_at(__FILE__, __LINE__, "test bug: type 0x%x", (unsigned)t->dt);
    }
}

/* The reduction of ranks lo..hi-1's inputs for call iter, in rank order, into out (acc is
 * scratch of the same size). hi == lo leaves out untouched. */
static inline void ct_ref_range(const ct_type_t *t, DFC_Op op, void *out, void *tmp, size_t n,
                                int lo, int hi, unsigned iter)
{
    if (hi <= lo) return;
    ct_fill(t, op, out, n, lo, iter);
    for (int r = lo + 1; r < hi; r++) {
        ct_fill(t, op, tmp, n, r, iter);
        ct_ref_reduce(op, t, out, tmp, n); /* tmp = acc (op) x_r */
        memcpy(out, tmp, n * (size_t)t->size);
    }
}

/* ---- A non-commutative user op: 2x2 matrix products -------------------------------------------
 * One element is a 2x2 matrix of unsigned ints (a contiguous type of 4 DFC_UNSIGNED); the op
 * is the matrix product in MPI's order, inout = in * inout, computed mod 2^32 (a ring, so
 * the product is associative however an algorithm groups it, but not commutative). */
typedef struct ct_mat {
    unsigned m[4]; /* row-major a b / c d */
} ct_mat_t;

static inline void ct_mat_mul(const ct_mat_t *x, const ct_mat_t *y, ct_mat_t *out)
{
    ct_mat_t r;
    r.m[0] = x->m[0] * y->m[0] + x->m[1] * y->m[2];
    r.m[1] = x->m[0] * y->m[1] + x->m[1] * y->m[3];
    r.m[2] = x->m[2] * y->m[0] + x->m[3] * y->m[2];
    r.m[3] = x->m[2] * y->m[1] + x->m[3] * y->m[3];
    *out = r;
}

static void ct_matmul_fn(void *invec, void *inoutvec, int *len, DFC_Datatype *datatype)
{
    (void)datatype;
    ct_mat_t *in = invec, *io = inoutvec;
    for (int i = 0; i < *len; i++) ct_mat_mul(&in[i], &io[i], &io[i]);
}

static DFC_Datatype ct_mat_type = DFC_DATATYPE_NULL;
static DFC_Op ct_matmul_op = DFC_OP_NULL;

static inline void ct_mat_setup(void)
{
    DFCT_OK(DFC_Type_contiguous(4, DFC_UNSIGNED, &ct_mat_type));
    DFCT_OK(DFC_Type_commit(&ct_mat_type));
    DFCT_OK(DFC_Op_create(ct_matmul_fn, 0, &ct_matmul_op));
}
static inline void ct_mat_teardown(void)
{
    DFCT_OK(DFC_Op_free(&ct_matmul_op));
    DFCT_OK(DFC_Type_free(&ct_mat_type));
}

/* Rank's matrices for call iter: entries 0..2 with varied shapes, so that products in the
 * wrong order differ. */
static inline void ct_mat_fill(ct_mat_t *m, size_t n, int rank, unsigned iter)
{
    unsigned s = ct_seed(rank, iter, 2);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) m[i].m[k] = dfct_rand(&s) % 3;
}
/* Product x_lo * ... * x_{hi-1} into out (identity when hi <= lo). */
static inline void ct_mat_ref_range(ct_mat_t *out, ct_mat_t *tmp, size_t n, int lo, int hi,
                                    unsigned iter)
{
    for (size_t i = 0; i < n; i++) out[i] = (ct_mat_t){{1, 0, 0, 1}};
    for (int r = lo; r < hi; r++) {
        ct_mat_fill(tmp, n, r, iter);
        for (size_t i = 0; i < n; i++) ct_mat_mul(&out[i], &tmp[i], &out[i]);
    }
}

/* ---- Layouts for the v forms ------------------------------------------------------------------ */
/* A permutation of 0..n-1 from seed (Fisher-Yates with dfct_rand). */
static inline void ct_shuffle(int *perm, int n, unsigned seed)
{
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(dfct_rand(&seed) % (unsigned)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
}
/* Places n blocks of counts[] in the order of a permutation from seed (so not in rank
 * order), with `gap` unused elements before each; returns the extent in elements. */
static inline int ct_layout(int n, const int *counts, int *displs, int gap, unsigned seed)
{
    int *perm = ct_malloc(n * sizeof(int)), off = 0;
    ct_shuffle(perm, n, seed);
    for (int j = 0; j < n; j++) {
        off += gap;
        displs[perm[j]] = off;
        off += counts[perm[j]];
    }
    free(perm);
    return off;
}
/* Uneven block sizes with zeros: block p of variant v, in units of `scale` elements. */
static inline int ct_vcount(int p, int v, int scale)
{
    return (p * 5 + v) % 4 == 1 ? 0 : (1 + (p * 37 + v * 11) % 50) * scale;
}

#endif /* COLLTEST_H */
