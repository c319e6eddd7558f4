/*
 * derived.c - derived datatypes on one process: every constructor's layout checked byte by
 * byte through Pack into a poisoned buffer, Unpack back into a poisoned array (gaps must keep
 * their poison), extents and true extents, envelope/contents round trips, external32,
 * Get_elements on a partial message (a send to self), and bad arguments of each constructor.
 */
#include <complex.h>
#include <stddef.h>
#include <stdint.h>

#include "../dfctest.h"

#define POISON (-7777)

/* Packs one item of t from src (ints 0..n-1 as values), compares the packed ints with
 * want[], unpacks into a poisoned array and compares it with src where want names an index
 * and with the poison elsewhere. */
static void check_layout(DFC_Datatype t, const char *what, const int *want, int nwant, int span)
{
    int src[256], dst[256], packed[256], pos = 0, psize = -1;
    for (int i = 0; i < 256; i++) src[i] = 1000 + i, dst[i] = POISON, packed[i] = POISON;
    DFCT_OK(DFC_Pack_size(1, t, DFC_COMM_WORLD, &psize));
    DFCT_CHECK(psize == nwant * 4, "%s: Pack_size %d, want %d", what, psize, nwant * 4);
    DFCT_OK(DFC_Pack(src, 1, t, packed, (int)sizeof packed, &pos, DFC_COMM_WORLD));
    DFCT_CHECK(pos == nwant * 4, "%s: position %d after Pack, want %d", what, pos, nwant * 4);
    for (int i = 0; i < nwant; i++)
        DFCT_CHECK(packed[i] == 1000 + want[i], "%s: packed[%d] = %d, want %d", what, i, packed[i],
                   1000 + want[i]);
    DFCT_CHECK(packed[nwant] == POISON, "%s: Pack wrote past its end", what);
    pos = 0;
    DFCT_OK(DFC_Unpack(packed, (int)sizeof packed, &pos, dst, 1, t, DFC_COMM_WORLD));
    for (int i = 0; i < span; i++) {
        int in = 0;
        for (int k = 0; k < nwant; k++) in |= want[k] == i;
        DFCT_CHECK(dst[i] == (in ? 1000 + i : POISON), "%s: unpacked[%d] = %d", what, i, dst[i]);
    }
}

static void check_extent(DFC_Datatype t, const char *what, DFC_Aint lb, DFC_Aint ext, DFC_Aint tlb,
                         DFC_Aint text)
{
    DFC_Aint a = -1, b = -1, c = -1, d = -1;
    DFCT_OK(DFC_Type_get_extent(t, &a, &b));
    DFCT_OK(DFC_Type_get_true_extent(t, &c, &d));
    DFCT_CHECK(a == lb && b == ext && c == tlb && d == text,
               "%s: lb %ld extent %ld true %ld %ld, want %ld %ld %ld %ld", what, (long)a, (long)b,
               (long)c, (long)d, (long)lb, (long)ext, (long)tlb, (long)text);
}

static void test_layouts(void)
{
    DFC_Datatype t, v, s;
    DFCT_OK(DFC_Type_vector(3, 2, 4, DFC_INT, &t));
    DFCT_OK(DFC_Type_commit(&t));
    check_layout(t, "vector(3,2,4)", (int[]){0, 1, 4, 5, 8, 9}, 6, 16);
    check_extent(t, "vector(3,2,4)", 0, 40, 0, 40);
    DFCT_OK(DFC_Type_vector(3, 1, -2, DFC_INT, &v)); /* negative stride */
    DFCT_OK(DFC_Type_commit(&v));
    check_extent(v, "vector(3,1,-2)", -16, 20, -16, 20);
    DFCT_OK(DFC_Type_free(&v));
    DFCT_OK(DFC_Type_create_hvector(2, 1, 12, t, &v)); /* vector of vectors, overlapping */
    DFCT_OK(DFC_Type_commit(&v));
    check_layout(v, "hvector(2,1,12,vector)", (int[]){0, 1, 4, 5, 8, 9, 3, 4, 7, 8, 11, 12}, 12,
                 20);
    DFCT_OK(DFC_Type_free(&v));
    DFCT_OK(DFC_Type_indexed(3, (int[]){2, 1, 3}, (int[]){5, 0, 9}, DFC_INT, &v));
    DFCT_OK(DFC_Type_commit(&v));
    check_layout(v, "indexed", (int[]){5, 6, 0, 9, 10, 11}, 6, 16);
    check_extent(v, "indexed", 0, 48, 0, 48);
    DFCT_OK(DFC_Type_free(&v));
    DFCT_OK(DFC_Type_create_hindexed(2, (int[]){1, 2}, (DFC_Aint[]){28, 4}, DFC_INT, &v));
    DFCT_OK(DFC_Type_commit(&v));
    check_layout(v, "hindexed", (int[]){7, 1, 2}, 3, 10);
    check_extent(v, "hindexed", 4, 28, 4, 28);
    DFCT_OK(DFC_Type_free(&v));
    DFCT_OK(DFC_Type_create_indexed_block(3, 2, (int[]){6, 2, 10}, DFC_INT, &v));
    DFCT_OK(DFC_Type_commit(&v));
    check_layout(v, "indexed_block", (int[]){6, 7, 2, 3, 10, 11}, 6, 14);
    DFCT_OK(DFC_Type_free(&v));
    DFCT_OK(DFC_Type_create_hindexed_block(2, 1, (DFC_Aint[]){8, 0}, DFC_INT, &v));
    DFCT_OK(DFC_Type_commit(&v));
    check_layout(v, "hindexed_block", (int[]){2, 0}, 2, 4);
    DFCT_OK(DFC_Type_free(&v));
    /* Struct with a gap and a negative displacement; the unpack base is moved past it. */
    DFCT_OK(DFC_Type_create_struct(3, (int[]){1, 2, 1}, (DFC_Aint[]){8, 16, -4},
                                   (DFC_Datatype[]){DFC_INT, DFC_INT, t}, &s));
    DFCT_OK(DFC_Type_commit(&s));
    check_extent(s, "struct", -4, 40, -4, 40); /* ub = -4 + 40 = 36 */
    DFCT_OK(DFC_Type_create_resized(s, -4, 64, &v));
    DFCT_OK(DFC_Type_commit(&v));
    check_extent(v, "resized", -4, 64, -4, 40);
    DFCT_OK(DFC_Type_free(&v));
    DFCT_OK(DFC_Type_free(&s));
    DFCT_OK(DFC_Type_free(&t));
    /* A subarray of a 4x5 C array: rows 1..2, columns 2..4. */
    DFCT_OK(DFC_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2}, DFC_ORDER_C,
                                     DFC_INT, &v));
    DFCT_OK(DFC_Type_commit(&v));
    check_layout(v, "subarray C", (int[]){7, 8, 9, 12, 13, 14}, 6, 20);
    check_extent(v, "subarray C", 0, 80, 28, 32);
    DFCT_OK(DFC_Type_free(&v));
    DFCT_OK(DFC_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2},
                                     DFC_ORDER_FORTRAN, DFC_INT, &v));
    DFCT_OK(DFC_Type_commit(&v)); /* first index fastest: element (i,j) at i + 4j */
    check_layout(v, "subarray Fortran", (int[]){9, 10, 13, 14, 17, 18}, 6, 20);
    DFCT_OK(DFC_Type_free(&v));
    /* darray: 8 elements, cyclic(2) over 2 processes, this is process 1: 2,3,6,7. */
    DFCT_OK(DFC_Type_create_darray(2, 1, 1, (int[]){8}, (int[]){DFC_DISTRIBUTE_CYCLIC}, (int[]){2},
                                   (int[]){2}, DFC_ORDER_C, DFC_INT, &v));
    DFCT_OK(DFC_Type_commit(&v));
    check_layout(v, "darray cyclic(2)", (int[]){2, 3, 6, 7}, 4, 8);
    check_extent(v, "darray cyclic(2)", 0, 32, 8, 24);
    DFCT_OK(DFC_Type_free(&v));
    /* darray 2D: 4x6 block x block over 2x2, process 3 = coords (1,1): rows 2-3, cols 3-5. */
    DFCT_OK(DFC_Type_create_darray(4, 3, 2, (int[]){4, 6},
                                   (int[]){DFC_DISTRIBUTE_BLOCK, DFC_DISTRIBUTE_BLOCK},
                                   (int[]){DFC_DISTRIBUTE_DFLT_DARG, DFC_DISTRIBUTE_DFLT_DARG},
                                   (int[]){2, 2}, DFC_ORDER_C, DFC_INT, &v));
    DFCT_OK(DFC_Type_commit(&v));
    check_layout(v, "darray block", (int[]){15, 16, 17, 21, 22, 23}, 6, 24);
    DFCT_OK(DFC_Type_free(&v));
}

/* Struct {char c; double d; int i[2]} with its gaps, as a C compiler lays it out. */
typedef struct {
    char c;
    double d;
    int i[2];
} rec_t;

static void test_struct_roundtrip(void)
{
    DFC_Datatype r, r2;
    DFCT_OK(DFC_Type_create_struct(3, (int[]){1, 1, 2},
                                   (DFC_Aint[]){offsetof(rec_t, c), offsetof(rec_t, d),
                                                offsetof(rec_t, i)},
                                   (DFC_Datatype[]){DFC_CHAR, DFC_DOUBLE, DFC_INT}, &r));
    DFCT_OK(DFC_Type_commit(&r));
    DFC_Aint lb, ext;
    DFCT_OK(DFC_Type_get_extent(r, &lb, &ext));
    DFCT_CHECK(lb == 0 && ext == (DFC_Aint)sizeof(rec_t), "struct extent %ld, want %zu", (long)ext,
               sizeof(rec_t));
    int size;
    DFCT_OK(DFC_Type_size(r, &size));
    DFCT_CHECK(size == 17, "struct size %d, want 17", size);
    rec_t in[3], out[3];
    char buf[64];
    memset(out, 0x5a, sizeof out);
    for (int k = 0; k < 3; k++) {
        memset(&in[k], 0x11, sizeof in[k]); /* padding differs from out's */
        in[k] = (rec_t){(char)('a' + k), 1.5 * k, {k, -k}};
    }
    int pos = 0;
    DFCT_OK(DFC_Pack(in, 3, r, buf, (int)sizeof buf, &pos, DFC_COMM_WORLD));
    DFCT_CHECK(pos == 51, "packed 3 structs into %d bytes, want 51", pos);
    pos = 0;
    DFCT_OK(DFC_Unpack(buf, (int)sizeof buf, &pos, out, 3, r, DFC_COMM_WORLD));
    for (int k = 0; k < 3; k++) {
        DFCT_CHECK(out[k].c == in[k].c && out[k].d == in[k].d && out[k].i[0] == k &&
                       out[k].i[1] == -k,
                   "struct %d did not round-trip", k);
        unsigned char *pad = (unsigned char *)&out[k] + 1;
        DFCT_CHECK(*pad == 0x5a, "struct %d: padding byte overwritten", k);
    }
    /* Envelope and contents give back the constructor's arguments. */
    int ni, na, nd, comb, ints[8];
    DFC_Aint aints[8];
    DFC_Datatype types[8];
    DFCT_OK(DFC_Type_get_envelope(r, &ni, &na, &nd, &comb));
    DFCT_CHECK(comb == DFC_COMBINER_STRUCT && ni == 4 && na == 3 && nd == 3,
               "struct envelope %d %d %d %d", ni, na, nd, comb);
    DFCT_OK(DFC_Type_get_contents(r, 8, 8, 8, ints, aints, types));
    DFCT_CHECK(ints[0] == 3 && ints[1] == 1 && ints[2] == 1 && ints[3] == 2, "struct ints");
    DFCT_CHECK(aints[1] == (DFC_Aint)offsetof(rec_t, d) && aints[2] == (DFC_Aint)offsetof(rec_t, i),
               "struct addresses");
    DFCT_CHECK(types[0] == DFC_CHAR && types[1] == DFC_DOUBLE && types[2] == DFC_INT,
               "struct types");
    /* A vector of the struct: its contents name a derived type, a new handle to free. */
    DFCT_OK(DFC_Type_vector(2, 1, 2, r, &r2));
    DFCT_OK(DFC_Type_get_contents(r2, 8, 8, 8, ints, aints, types));
    DFCT_CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2, "vector ints");
    DFCT_OK(DFC_Type_get_envelope(types[0], &ni, &na, &nd, &comb));
    DFCT_CHECK(comb == DFC_COMBINER_STRUCT && ni == 4, "contents' type is not the struct");
    DFCT_OK(DFC_Type_free(&types[0]));
    DFCT_OK(DFC_Type_free(&r2));
    /* Names. */
    char name[DFC_MAX_OBJECT_NAME];
    int len;
    DFCT_OK(DFC_Type_set_name(r, "record"));
    DFCT_OK(DFC_Type_get_name(r, name, &len));
    DFCT_CHECK(!strcmp(name, "record") && len == 6, "name \"%s\"", name);
    DFCT_OK(DFC_Type_get_name(DFC_DOUBLE, name, &len));
    DFCT_CHECK(!strcmp(name, "DFC_DOUBLE"), "predefined name \"%s\"", name);
    DFCT_OK(DFC_Type_free(&r));
}

static void test_external32(void)
{
    int v[4] = {1, 0x01020304, -2, 7}, back[4] = {0, 0, 0, 0};
    unsigned char buf[16];
    DFC_Datatype t;
    DFC_Aint pos = 0, sz;
    DFCT_OK(DFC_Type_vector(2, 1, 2, DFC_INT, &t));
    DFCT_OK(DFC_Type_commit(&t));
    DFCT_OK(DFC_Pack_external_size("external32", 1, t, &sz));
    DFCT_CHECK(sz == 8, "external32 size %ld", (long)sz);
    DFCT_OK(DFC_Pack_external("external32", v, 1, t, buf, 16, &pos));
    DFCT_CHECK(pos == 8 && buf[0] == 0 && buf[3] == 1 && buf[4] == 0xff && buf[7] == 0xfe,
               "external32 is not big-endian: %02x %02x %02x %02x", buf[0], buf[3], buf[4], buf[7]);
    pos = 0;
    DFCT_OK(DFC_Unpack_external("external32", buf, 8, &pos, back, 1, t));
    DFCT_CHECK(back[0] == 1 && back[1] == 0 && back[2] == -2 && back[3] == 0,
               "external32 round trip %d %d %d %d", back[0], back[1], back[2], back[3]);
    DFCT_FAILS(DFC_Pack_external("native", v, 1, t, buf, 16, &pos), DFC_ERR_ARG,
               "DFC_Pack_external: invalid argument datarep");
    DFCT_OK(DFC_Type_free(&t));
}

/* A partial receive into a vector type: Get_elements counts what arrived. */
static void test_get_elements(void)
{
    DFC_Datatype t;
    DFC_Status st;
    int src[7] = {1, 2, 3, 4, 5, 6, 7}, dst[12], n = -1, c = -1;
    DFC_Count nx = -1;
    for (int i = 0; i < 12; i++) dst[i] = POISON;
    DFCT_OK(DFC_Type_vector(2, 2, 3, DFC_INT, &t)); /* ints 0,1,3,4: 4 elements */
    DFCT_OK(DFC_Type_commit(&t));
    DFC_Request rq;
    DFCT_OK(DFC_Irecv(dst, 2, t, 0, 5, DFC_COMM_WORLD, &rq));
    DFCT_OK(DFC_Send(src, 7, DFC_INT, 0, 5, DFC_COMM_WORLD));
    DFCT_OK(DFC_Wait(&rq, &st));
    DFCT_OK(DFC_Get_elements(&st, t, &n));
    DFCT_OK(DFC_Get_elements_x(&st, t, &nx));
    DFCT_OK(DFC_Get_count(&st, t, &c));
    DFCT_CHECK(n == 7 && nx == 7 && c == DFC_UNDEFINED, "elements %d/%ld count %d", n, (long)nx, c);
    int want[12] = {1, 2, POISON, 3, 4, 5, 6, POISON, 7, POISON, POISON, POISON};
    for (int i = 0; i < 12; i++)
        DFCT_CHECK(dst[i] == want[i], "partial receive: dst[%d] = %d, want %d", i, dst[i], want[i]);
    DFCT_OK(DFC_Type_free(&t));
}

/* Absolute addresses: a struct of two separate variables sent from DFC_BOTTOM and received
 * into two others through DFC_BOTTOM. */
static void test_bottom(void)
{
    int a = 42, a2 = POISON;
    double b[3] = {1.25, -2.5, 3.75}, b2[3] = {POISON, POISON, POISON};
    DFC_Aint addr[2];
    DFC_Datatype ts, tr;
    DFCT_OK(DFC_Get_address(&a, &addr[0]));
    DFCT_OK(DFC_Get_address(b, &addr[1]));
    DFCT_CHECK(DFC_Aint_diff(addr[1], addr[0]) == (DFC_Aint)((char *)b - (char *)&a) &&
                   DFC_Aint_add(addr[0], 4) == addr[0] + 4,
               "Aint_diff/Aint_add");
    DFCT_OK(
        DFC_Type_create_struct(2, (int[]){1, 3}, addr, (DFC_Datatype[]){DFC_INT, DFC_DOUBLE}, &ts));
    DFCT_OK(DFC_Get_address(&a2, &addr[0]));
    DFCT_OK(DFC_Get_address(b2, &addr[1]));
    DFCT_OK(
        DFC_Type_create_struct(2, (int[]){1, 3}, addr, (DFC_Datatype[]){DFC_INT, DFC_DOUBLE}, &tr));
    DFCT_OK(DFC_Type_commit(&ts));
    DFCT_OK(DFC_Type_commit(&tr));
    DFCT_OK(DFC_Sendrecv(DFC_BOTTOM, 1, ts, 0, 9, DFC_BOTTOM, 1, tr, 0, 9, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    DFCT_CHECK(a2 == 42 && b2[0] == 1.25 && b2[1] == -2.5 && b2[2] == 3.75,
               "DFC_BOTTOM struct: %d %g %g %g", a2, b2[0], b2[1], b2[2]);
    DFCT_OK(DFC_Type_free(&ts));
    DFCT_OK(DFC_Type_free(&tr));
}

/* Complex types: SUM and PROD (also through a strided vector of them); MAX is not defined. */
static void test_complex(void)
{
    double _Complex a[4] = {1 + 2 * I, -3 + 0.5 * I, 2, 4 * I};
    double _Complex b[4] = {2 - 1 * I, 1 + 1 * I, -1 * I, 0.5};
    double _Complex c[4];
    memcpy(c, b, sizeof c);
    DFCT_OK(DFC_Reduce_local(a, c, 4, DFC_C_DOUBLE_COMPLEX, DFC_PROD));
    for (int i = 0; i < 4; i++)
        DFCT_CHECK(c[i] == a[i] * b[i], "PROD[%d] = %g%+gi", i, creal(c[i]), cimag(c[i]));
    float _Complex fa[3] = {1 + 1 * I, 2, 3 * I}, fb[3] = {1, 1, 1}, fc[3];
    memcpy(fc, fb, sizeof fc);
    DFCT_OK(DFC_Reduce_local(fa, fc, 3, DFC_COMPLEX, DFC_SUM));
    DFCT_CHECK(fc[0] == 2 + 1 * I && fc[1] == 3 && fc[2] == 1 + 3 * I, "COMPLEX SUM");
    memcpy(fc, fb, sizeof fc);
    DFCT_OK(DFC_Reduce_local(fa, fc, 3, DFC_C_COMPLEX, DFC_SUM));
    DFCT_CHECK(fc[0] == 2 + 1 * I, "C_COMPLEX SUM");
    DFCT_FAILS(DFC_Reduce_local(a, c, 4, DFC_DOUBLE_COMPLEX, DFC_MAX), DFC_ERR_OP,
               "DFC_MAX is not defined for DFC_DOUBLE_COMPLEX");
    int size = 0;
    DFCT_OK(DFC_Type_size(DFC_C_LONG_DOUBLE_COMPLEX, &size));
    DFCT_CHECK(size == (int)sizeof(long double _Complex), "long double complex size %d", size);
}

/* Reduce_local and Sendrecv_replace on a strided vector: only its elements change. */
static void test_vector_local(void)
{
    DFC_Datatype v;
    int in[9], io[9], buf[9];
    DFCT_OK(DFC_Type_vector(3, 1, 3, DFC_INT, &v)); /* ints 0, 3, 6 */
    DFCT_OK(DFC_Type_commit(&v));
    for (int i = 0; i < 9; i++) in[i] = i + 1, io[i] = 100 * i, buf[i] = -i;
    DFCT_OK(DFC_Reduce_local(in, io, 1, v, DFC_SUM));
    for (int i = 0; i < 9; i++)
        DFCT_CHECK(io[i] == (i % 3 ? 100 * i : 100 * i + i + 1), "Reduce_local io[%d] = %d", i,
                   io[i]);
    /* to self: the message is buf's elements, received into the same places */
    DFCT_OK(DFC_Sendrecv_replace(buf, 1, v, 0, 4, 0, 4, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    for (int i = 0; i < 9; i++)
        DFCT_CHECK(buf[i] == -i, "Sendrecv_replace buf[%d] = %d", i, buf[i]);
    DFCT_FAILS(DFC_Reduce_local(in, io, 1, v, DFC_MAXLOC), DFC_ERR_OP, "DFC_MAXLOC");
    DFCT_OK(DFC_Type_free(&v));
}

static void test_bad_args(void)
{
    DFC_Datatype t;
    int one = 1, neg = -1;
    DFC_Aint a0 = 0;
    DFCT_FAILS(DFC_Type_create_hvector(-1, 1, 8, DFC_INT, &t), DFC_ERR_COUNT,
               "DFC_Type_create_hvector: invalid argument count");
    DFCT_FAILS(DFC_Type_create_hvector(1, 1, 8, DFC_INT, NULL), DFC_ERR_ARG,
               "DFC_Type_create_hvector: invalid argument newtype");
    DFCT_FAILS(DFC_Type_indexed(1, &neg, &one, DFC_INT, &t), DFC_ERR_ARG,
               "DFC_Type_indexed: invalid argument array_of_blocklengths: element 0 is negative");
    DFCT_FAILS(DFC_Type_indexed(1, NULL, &one, DFC_INT, &t), DFC_ERR_ARG,
               "DFC_Type_indexed: invalid argument array_of_blocklengths: NULL");
    DFCT_FAILS(DFC_Type_create_hindexed(1, &one, NULL, DFC_INT, &t), DFC_ERR_ARG,
               "DFC_Type_create_hindexed: invalid argument array_of_displacements");
    DFCT_FAILS(DFC_Type_create_indexed_block(1, -1, &one, DFC_INT, &t), DFC_ERR_ARG,
               "DFC_Type_create_indexed_block: invalid argument blocklength");
    DFCT_FAILS(DFC_Type_create_hindexed_block(1, 1, &a0, DFC_DATATYPE_NULL, &t), DFC_ERR_TYPE,
               "DFC_Type_create_hindexed_block: invalid argument oldtype");
    DFCT_FAILS(DFC_Type_create_struct(1, &one, &a0, (DFC_Datatype[]){DFC_DATATYPE_NULL}, &t),
               DFC_ERR_TYPE, "DFC_Type_create_struct: invalid argument array_of_types[0]");
    DFCT_FAILS(DFC_Type_create_struct(-2, &one, &a0, (DFC_Datatype[]){DFC_INT}, &t), DFC_ERR_COUNT,
               "DFC_Type_create_struct: invalid argument count");
    DFCT_FAILS(DFC_Type_create_subarray(1, (int[]){4}, (int[]){3}, (int[]){2}, DFC_ORDER_C, DFC_INT,
                                        &t),
               DFC_ERR_ARG, "DFC_Type_create_subarray: invalid argument array_of_starts");
    DFCT_FAILS(DFC_Type_create_subarray(0, (int[]){4}, (int[]){3}, (int[]){0}, DFC_ORDER_C, DFC_INT,
                                        &t),
               DFC_ERR_DIMS, "DFC_Type_create_subarray: invalid argument ndims");
    DFCT_FAILS(DFC_Type_create_subarray(1, (int[]){4}, (int[]){3}, (int[]){0}, 3, DFC_INT, &t),
               DFC_ERR_ARG, "DFC_Type_create_subarray: invalid argument order");
    DFCT_FAILS(DFC_Type_create_darray(4, 0, 1, (int[]){8}, (int[]){DFC_DISTRIBUTE_BLOCK},
                                      (int[]){DFC_DISTRIBUTE_DFLT_DARG}, (int[]){2}, DFC_ORDER_C,
                                      DFC_INT, &t),
               DFC_ERR_ARG, "DFC_Type_create_darray: invalid argument array_of_psizes");
    DFCT_FAILS(DFC_Type_create_darray(2, 2, 1, (int[]){8}, (int[]){DFC_DISTRIBUTE_BLOCK},
                                      (int[]){DFC_DISTRIBUTE_DFLT_DARG}, (int[]){2}, DFC_ORDER_C,
                                      DFC_INT, &t),
               DFC_ERR_RANK, "DFC_Type_create_darray: invalid argument rank");
    DFCT_FAILS(DFC_Type_create_resized(DFC_DATATYPE_NULL, 0, 4, &t), DFC_ERR_TYPE,
               "DFC_Type_create_resized: invalid argument oldtype");
    DFCT_FAILS(DFC_Type_get_contents(DFC_INT, 0, 0, 0, NULL, NULL, NULL), DFC_ERR_TYPE,
               "DFC_Type_get_contents: invalid argument datatype");
    int buf[4], pos = 0;
    DFCT_FAILS(DFC_Pack(buf, 4, DFC_INT, buf, 8, &pos, DFC_COMM_WORLD), DFC_ERR_TRUNCATE,
               "DFC_Pack: invalid argument outsize");
    DFCT_FAILS(DFC_Unpack(buf, 8, &pos, buf, 4, DFC_INT, DFC_COMM_WORLD), DFC_ERR_TRUNCATE,
               "DFC_Unpack: invalid argument insize");
    DFCT_FAILS(DFC_Pack(buf, 1, DFC_INT, buf, 8, &pos, DFC_COMM_NULL), DFC_ERR_COMM,
               "DFC_Pack: invalid argument comm");
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFC_Comm_set_errhandler(DFC_COMM_SELF, DFC_ERRORS_RETURN);
    test_layouts();
    test_struct_roundtrip();
    test_external32();
    test_get_elements();
    test_bottom();
    test_complex();
    test_vector_local();
    test_bad_args();
    return dfct_finalize();
}
