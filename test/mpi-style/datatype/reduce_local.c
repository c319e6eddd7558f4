/*
 * reduce_local.c - DFC_Reduce_local for every predefined op on every type family: integers
 * (all C integer types, AINT/OFFSET/COUNT, CHAR), floating point (incl. long double,
 * bfloat16, float16), C bool, BYTE and the MAXLOC/MINLOC pair types; REPLACE and NO_OP on
 * every predefined type; and a non-commutative user op on a derived type.
 *
 * Each case uses fresh random inputs and checks element by element. inoutbuf is followed by
 * poisoned elements that must survive, and small values keep every result exact (no
 * overflow, no rounding), so the expected value is plain C arithmetic in the element type.
 */
#include <stdint.h>
#include <wchar.h>

#include "../dfctest.h"

static unsigned seed = 12345;
enum { N = 1031, POISON = 7 }; /* odd: exercises the tails of vectorized loops */

static int rnd_small(int lo, int hi)
{
    return lo + (int)(dfct_rand(&seed) % (unsigned)(hi - lo + 1));
}

/* Checks the poison after n elements of `size` bytes. */
static void check_poison(const void *buf, size_t n, size_t size, const char *what)
{
    const unsigned char *p = (const unsigned char *)buf + n * size;
    for (size_t k = 0; k < POISON * size; k++)
        if (p[k] != 0xa5) {
            DFCT_CHECK(0, "%s: wrote past count (byte %zu after the end)", what, k);
            return;
        }
}

/* ---- Integers: every op, values small enough that SUM and PROD cannot overflow ---------- */
#define INT_CASE(T, DT, LO, HI)                                                            \
    do {                                                                                   \
        static const DFC_Op ops[] = {                                                      \
            DFC_MAX,  DFC_MIN,  DFC_SUM, DFC_PROD, DFC_LAND,    DFC_LOR,                   \
            DFC_LXOR, DFC_BAND, DFC_BOR, DFC_BXOR, DFC_REPLACE, DFC_NO_OP};                \
        static T in[N], io[N + POISON], orig[N];                                           \
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {                          \
            for (int i = 0; i < N; i++) {                                                  \
                in[i] = (T)(rnd_small(0, 4) ? rnd_small(LO, HI) : 0);                      \
                orig[i] = io[i] = (T)(rnd_small(0, 4) ? rnd_small(LO, HI) : 0);            \
            }                                                                              \
            memset(io + N, 0xa5, POISON * sizeof(T));                                      \
            DFCT_OK(DFC_Reduce_local(in, io, N, DT, ops[o]));                              \
            for (int i = 0; i < N; i++) {                                                  \
                T a = in[i], b = orig[i], want;                                            \
                switch (o) {                                                               \
                case 0: want = a > b ? a : b; break;                                       \
                case 1: want = a < b ? a : b; break;                                       \
                case 2: want = (T)(a + b); break;                                          \
                case 3: want = (T)(a * b); break;                                          \
                case 4: want = (T)(a && b); break;                                         \
                case 5: want = (T)(a || b); break;                                         \
                case 6: want = (T)(!a != !b); break;                                       \
                case 7: want = (T)(a & b); break;                                          \
                case 8: want = (T)(a | b); break;                                          \
                case 9: want = (T)(a ^ b); break;                                          \
                case 10: want = a; break;                                                  \
                default: want = b; break;                                                  \
                }                                                                          \
                if (io[i] != want) {                                                       \
                    DFCT_CHECK(0, "%s op #%zu element %d: got %lld, want %lld", #DT, o, i, \
                               (long long)io[i], (long long)want);                         \
                    break;                                                                 \
                }                                                                          \
            }                                                                              \
            check_poison(io, N, sizeof(T), #DT);                                           \
        }                                                                                  \
    } while (0)

static void test_integers(void)
{
    INT_CASE(char, DFC_CHAR, 0, 11); /* char may be unsigned */
    INT_CASE(signed char, DFC_SIGNED_CHAR, -8, 8);
    INT_CASE(unsigned char, DFC_UNSIGNED_CHAR, 0, 15);
    INT_CASE(short, DFC_SHORT, -100, 100);
    INT_CASE(unsigned short, DFC_UNSIGNED_SHORT, 0, 200);
    INT_CASE(int, DFC_INT, -1000, 1000);
    INT_CASE(unsigned, DFC_UNSIGNED, 0, 1000);
    INT_CASE(long, DFC_LONG, -1000, 1000);
    INT_CASE(unsigned long, DFC_UNSIGNED_LONG, 0, 1000);
    INT_CASE(long long, DFC_LONG_LONG_INT, -1000, 1000);
    INT_CASE(unsigned long long, DFC_UNSIGNED_LONG_LONG, 0, 1000);
    INT_CASE(int8_t, DFC_INT8_T, -8, 8);
    INT_CASE(int16_t, DFC_INT16_T, -100, 100);
    INT_CASE(int32_t, DFC_INT32_T, -1000, 1000);
    INT_CASE(int64_t, DFC_INT64_T, -1000, 1000);
    INT_CASE(uint8_t, DFC_UINT8_T, 0, 15);
    INT_CASE(uint16_t, DFC_UINT16_T, 0, 200);
    INT_CASE(uint32_t, DFC_UINT32_T, 0, 1000);
    INT_CASE(uint64_t, DFC_UINT64_T, 0, 1000);
    INT_CASE(DFC_Aint, DFC_AINT, -1000, 1000);
    INT_CASE(DFC_Offset, DFC_OFFSET, -1000, 1000);
    INT_CASE(DFC_Count, DFC_COUNT, -1000, 1000);
}

/* ---- Floating point: halves of small integers, so sums and products are exact ----------- */
#define FLOAT_CASE(T, DT)                                                                          \
    do {                                                                                           \
        static const DFC_Op ops[] = {DFC_MAX, DFC_MIN, DFC_SUM, DFC_PROD, DFC_REPLACE, DFC_NO_OP}; \
        static T in[N], io[N + POISON], orig[N];                                                   \
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {                                  \
            for (int i = 0; i < N; i++) {                                                          \
                in[i] = (T)rnd_small(-64, 64) / 2;                                                 \
                orig[i] = io[i] = (T)rnd_small(-64, 64) / 2;                                       \
            }                                                                                      \
            memset(io + N, 0xa5, POISON * sizeof(T));                                              \
            DFCT_OK(DFC_Reduce_local(in, io, N, DT, ops[o]));                                      \
            for (int i = 0; i < N; i++) {                                                          \
                T a = in[i], b = orig[i];                                                          \
                T want = o == 0   ? (a > b ? a : b)                                                \
                         : o == 1 ? (a < b ? a : b)                                                \
                         : o == 2 ? a + b                                                          \
                         : o == 3 ? a * b                                                          \
                         : o == 4 ? a                                                              \
                                  : b;                                                             \
                if (io[i] != want) {                                                               \
                    DFCT_CHECK(0, "%s op #%zu element %d: got %g, want %g", #DT, o, i,             \
                               (double)io[i], (double)want);                                       \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
            check_poison(io, N, sizeof(T), #DT);                                                   \
        }                                                                                          \
    } while (0)

/* 16-bit encodings of exactly representable values (small integers and halves). */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16); /* exact: the value needs at most 8 significant bits */
}
static uint16_t to_fp16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) == 0) return (uint16_t)(u >> 16);
    uint32_t e = ((u >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(((u >> 16) & 0x8000u) | (e << 10) | ((u >> 13) & 0x3ffu));
}

/* Values are halves of integers in [-range, range]: exact in the format, and so are sums
 * and products (range 15 keeps products within bfloat16's 8 significant bits). */
static void half_case(DFC_Datatype dt, uint16_t (*enc)(float), int range, const char *name)
{
    static const DFC_Op ops[] = {DFC_MAX, DFC_MIN, DFC_SUM, DFC_PROD, DFC_REPLACE, DFC_NO_OP};
    static uint16_t in[N], io[N + POISON], orig[N];
    static float a[N], b[N];
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        for (int i = 0; i < N; i++) {
            a[i] = (float)rnd_small(-range, range) / 2, b[i] = (float)rnd_small(-range, range) / 2;
            in[i] = enc(a[i]);
            orig[i] = io[i] = enc(b[i]);
        }
        memset(io + N, 0xa5, POISON * 2);
        DFCT_OK(DFC_Reduce_local(in, io, N, dt, ops[o]));
        for (int i = 0; i < N; i++) {
            float x = a[i], y = b[i];
            float want = o == 0   ? (x > y ? x : y)
                         : o == 1 ? (x < y ? x : y)
                         : o == 2 ? x + y
                         : o == 3 ? x * y
                         : o == 4 ? x
                                  : y;
            uint16_t w = o == 4 ? in[i] : o == 5 ? orig[i] : enc(want);
            /* MAX/MIN of equal values may pick either zero; compare as values there */
            if (io[i] != w && !(want == 0 && (io[i] & 0x7fff) == 0)) {
                DFCT_CHECK(0, "%s op #%zu element %d: got 0x%04x, want 0x%04x (%g)", name, o, i,
                           io[i], w, (double)want);
                break;
            }
        }
        check_poison(io, N, 2, name);
    }
}

static void test_floats(void)
{
    FLOAT_CASE(float, DFC_FLOAT);
    FLOAT_CASE(double, DFC_DOUBLE);
    FLOAT_CASE(long double, DFC_LONG_DOUBLE);
    half_case(DFC_BFLOAT16, to_bf16, 15, "DFC_BFLOAT16");
    half_case(DFC_FLOAT16, to_fp16, 30, "DFC_FLOAT16");
}

/* ---- C bool (logical ops) and BYTE (bitwise ops) ----------------------------------------- */
static void test_bool_and_byte(void)
{
    static _Bool bin[N], bio[N + POISON], borig[N];
    static const DFC_Op lops[] = {DFC_LAND, DFC_LOR, DFC_LXOR};
    for (int o = 0; o < 3; o++) {
        for (int i = 0; i < N; i++) bin[i] = rnd_small(0, 1), borig[i] = bio[i] = rnd_small(0, 1);
        memset(bio + N, 0xa5, POISON * sizeof(_Bool));
        DFCT_OK(DFC_Reduce_local(bin, bio, N, DFC_C_BOOL, lops[o]));
        for (int i = 0; i < N; i++) {
            _Bool want = o == 0   ? bin[i] && borig[i]
                         : o == 1 ? bin[i] || borig[i]
                                  : bin[i] != borig[i];
            if (bio[i] != want) {
                DFCT_CHECK(0, "DFC_C_BOOL op #%d element %d: got %d", o, i, (int)bio[i]);
                break;
            }
        }
        check_poison(bio, N, sizeof(_Bool), "DFC_C_BOOL");
    }
    static unsigned char in[N], io[N + POISON], orig[N];
    static const DFC_Op bops[] = {DFC_BAND, DFC_BOR, DFC_BXOR};
    for (int o = 0; o < 3; o++) {
        for (int i = 0; i < N; i++) in[i] = dfct_rand(&seed), orig[i] = io[i] = dfct_rand(&seed);
        memset(io + N, 0xa5, POISON);
        DFCT_OK(DFC_Reduce_local(in, io, N, DFC_BYTE, bops[o]));
        for (int i = 0; i < N; i++) {
            unsigned char want = o == 0   ? in[i] & orig[i]
                                 : o == 1 ? in[i] | orig[i]
                                          : in[i] ^ orig[i];
            if (io[i] != want) {
                DFCT_CHECK(0, "DFC_BYTE op #%d element %d: got %d", o, i, io[i]);
                break;
            }
        }
        check_poison(io, N, 1, "DFC_BYTE");
    }
}

/* ---- MAXLOC / MINLOC: few distinct values so that ties (lower index wins) are common ---- */
#define LOC_CASE(VT, DT)                                                              \
    do {                                                                              \
        typedef struct {                                                              \
            VT v;                                                                     \
            int i;                                                                    \
        } pair_t;                                                                     \
        static pair_t in[N], io[N + POISON], orig[N];                                 \
        for (int o = 0; o < 2; o++) {                                                 \
            for (int k = 0; k < N; k++) {                                             \
                in[k].v = (VT)rnd_small(0, 3), in[k].i = rnd_small(0, 9);             \
                io[k].v = (VT)rnd_small(0, 3), io[k].i = rnd_small(0, 9);             \
                orig[k] = io[k];                                                      \
            }                                                                         \
            memset(io + N, 0xa5, POISON * sizeof(pair_t));                            \
            DFCT_OK(DFC_Reduce_local(in, io, N, DT, o ? DFC_MINLOC : DFC_MAXLOC));    \
            for (int k = 0; k < N; k++) {                                             \
                pair_t a = in[k], b = orig[k], want = b;                              \
                if (o ? a.v < b.v : a.v > b.v) want = a;                              \
                if (a.v == b.v) want.i = a.i < b.i ? a.i : b.i;                       \
                if (io[k].v != want.v || io[k].i != want.i) {                         \
                    DFCT_CHECK(0, "%s %s element %d: got (%g,%d), want (%g,%d)", #DT, \
                               o ? "MINLOC" : "MAXLOC", k, (double)io[k].v, io[k].i,  \
                               (double)want.v, want.i);                               \
                    break;                                                            \
                }                                                                     \
            }                                                                         \
            check_poison(io, N, sizeof(pair_t), #DT);                                 \
        }                                                                             \
    } while (0)

static void test_pairs(void)
{
    LOC_CASE(float, DFC_FLOAT_INT);
    LOC_CASE(double, DFC_DOUBLE_INT);
    LOC_CASE(long, DFC_LONG_INT);
    LOC_CASE(int, DFC_2INT);
    LOC_CASE(short, DFC_SHORT_INT);
    LOC_CASE(long double, DFC_LONG_DOUBLE_INT);
}

/* ---- REPLACE and NO_OP take every predefined type, byte for byte ------------------------ */
static void test_replace_everywhere(void)
{
    static const DFC_Datatype all[] = {
        DFC_CHAR,           DFC_SIGNED_CHAR,    DFC_UNSIGNED_CHAR, DFC_BYTE,
        DFC_SHORT,          DFC_UNSIGNED_SHORT, DFC_INT,           DFC_UNSIGNED,
        DFC_LONG,           DFC_UNSIGNED_LONG,  DFC_LONG_LONG_INT, DFC_UNSIGNED_LONG_LONG,
        DFC_FLOAT,          DFC_DOUBLE,         DFC_LONG_DOUBLE,   DFC_INT8_T,
        DFC_INT16_T,        DFC_INT32_T,        DFC_INT64_T,       DFC_UINT8_T,
        DFC_UINT16_T,       DFC_UINT32_T,       DFC_UINT64_T,      DFC_C_BOOL,
        DFC_WCHAR,          DFC_BFLOAT16,       DFC_FLOAT16,       DFC_AINT,
        DFC_OFFSET,         DFC_COUNT,          DFC_PACKED,        DFC_FLOAT_INT,
        DFC_DOUBLE_INT,     DFC_LONG_INT,       DFC_2INT,          DFC_SHORT_INT,
        DFC_LONG_DOUBLE_INT};
    static unsigned char in[64 * 40], io[64 * 40], orig[64 * 40];
    for (size_t t = 0; t < sizeof all / sizeof all[0]; t++) {
        DFC_Aint lb, extent;
        DFCT_OK(DFC_Type_get_extent(all[t], &lb, &extent));
        size_t bytes = 37 * (size_t)extent;
        for (size_t k = 0; k < sizeof in; k++)
            in[k] = dfct_rand(&seed), orig[k] = io[k] = dfct_rand(&seed);
        DFCT_OK(DFC_Reduce_local(in, io, 37, all[t], DFC_NO_OP));
        DFCT_CHECK(!memcmp(io, orig, sizeof io), "NO_OP changed type #%zu", t);
        DFCT_OK(DFC_Reduce_local(in, io, 37, all[t], DFC_REPLACE));
        DFCT_CHECK(!memcmp(io, in, bytes) && !memcmp(io + bytes, orig + bytes, sizeof io - bytes),
                   "REPLACE on type #%zu", t);
    }
}

/* ---- A non-commutative user op: 2x2 integer matrix product on a derived type ------------ */
static DFC_Datatype matrix_type;
static int user_calls;
static void matmul(void *invec, void *inoutvec, int *len, DFC_Datatype *datatype)
{
    int *a = invec, *b = inoutvec, size = 0;
    user_calls++;
    if (*datatype != matrix_type) dfct_fail_at(__FILE__, __LINE__, "user op got another type");
    DFC_Type_size(*datatype, &size); /* calling DFC from a user op must work */
    if (size != 4 * (int)sizeof(int)) dfct_fail_at(__FILE__, __LINE__, "matrix size %d", size);
    for (int k = 0; k < *len; k++, a += 4, b += 4) { /* b = a * b */
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static void test_user_op(void)
{
    enum { M = 100 };
    static int in[M * 4], io[M * 4 + POISON], orig[M * 4];
    DFC_Op op;
    int commute = -1;
    DFCT_OK(DFC_Type_contiguous(4, DFC_INT, &matrix_type));
    DFCT_OK(DFC_Type_commit(&matrix_type));
    DFCT_OK(DFC_Op_create(matmul, 0, &op));
    DFCT_OK(DFC_Op_commutative(op, &commute));
    DFCT_CHECK(commute == 0, "user op created non-commutative reports commute %d", commute);
    for (int k = 0; k < M * 4; k++) in[k] = rnd_small(-3, 3), orig[k] = io[k] = rnd_small(-3, 3);
    memset(io + M * 4, 0xa5, POISON * sizeof(int));
    DFCT_OK(DFC_Reduce_local(in, io, M, matrix_type, op));
    DFCT_CHECK(user_calls == 1, "user op called %d times for %d items", user_calls, M);
    for (int k = 0; k < M; k++) {
        const int *a = in + 4 * k, *b = orig + 4 * k;
        int want[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                       a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        if (memcmp(io + 4 * k, want, sizeof want)) {
            DFCT_CHECK(0, "user op matrix %d: the product is in the wrong order", k);
            break;
        }
    }
    check_poison(io, M * 4, sizeof(int), "user op");
    DFCT_OK(DFC_Reduce_local(in, io, 0, matrix_type, op)); /* count 0: no call */
    DFCT_CHECK(user_calls == 1, "user op called for count 0");
    DFCT_OK(DFC_Op_free(&op));
    DFCT_CHECK(op == DFC_OP_NULL, "Op_free did not reset the handle");
    DFCT_OK(DFC_Type_free(&matrix_type));

    /* Predefined ops reduce derived types element by element. */
    DFC_Datatype three;
    double x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {10, 20, 30, 40, 50, 60};
    DFCT_OK(DFC_Type_contiguous(3, DFC_DOUBLE, &three));
    DFCT_OK(DFC_Type_commit(&three));
    DFCT_OK(DFC_Reduce_local(x, y, 2, three, DFC_SUM));
    for (int k = 0; k < 6; k++) DFCT_CHECK(y[k] == 11 * (k + 1), "derived SUM y[%d] = %g", k, y[k]);
    DFCT_OK(DFC_Type_free(&three));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    test_integers();
    test_floats();
    test_bool_and_byte();
    test_pairs();
    test_replace_everywhere();
    test_user_op();
    return dfct_finalize();
}
