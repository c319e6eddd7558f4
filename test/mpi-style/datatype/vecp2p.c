/*
 * vecp2p - point-to-point with non-contiguous datatypes on both sides, as the protocol
 * streams them (issue 17: packing in pieces, not whole-message copies).
 *
 * Three layouts of one packed byte stream: C (contiguous bytes), V (blocks of 3 bytes every
 * 5: a block, and an element of the stream, straddles many fragment boundaries) and X (per
 * item the ints {5,6,0,3,4} of an indexed type resized to 8 ints: out of memory order). The
 * byte at packed position k always has value val(k), so any two layouts can be paired and
 * checked byte by byte: positions of the receive layout below the received length hold
 * val(k), every other byte keeps its poison. Cases: rendezvous V->X, V->C, C->V (a
 * contiguous sender, a non-contiguous receiver), an eager V->X, an unexpected V->X, a
 * shorter message than the receive, a longer one (DFC_ERR_TRUNCATE), Mprobe/Mrecv,
 * persistent requests over three rounds, and Sendrecv with both ranks sending at once.
 * Over shm (mpirun) and tcp (the simulated nodes) the data moves as DATA fragments.
 */
#include <stdint.h>
#include <time.h>

#include "../dfctest.h"

#define N 600000 /* bytes of a large message: a multiple of 3 (V) and of 20 (X) */
#define SPAN (2 * N)
#define POISON 0xEE

enum { C, V, X };
static const char *const names[] = {"C", "V", "X"};
static DFC_Datatype xitem; /* X's item: 5 ints out of order in an 8-int extent */

static unsigned char val(uint64_t k, unsigned seed)
{
    return (unsigned char)((k * 131 + seed) % 237);
}

/* Where packed byte k lives in a buffer of layout `lay`. */
static uint64_t off(int lay, uint64_t k)
{
    static const int xint[5] = {5, 6, 0, 3, 4};
    if (lay == C) return k;
    if (lay == V) return k / 3 * 5 + k % 3;
    uint64_t r = k % 20;
    return k / 20 * 32 + (uint64_t)xint[r / 4] * 4 + r % 4;
}

/* The datatype and count that describe `bytes` packed bytes in layout `lay`. */
static DFC_Datatype type_of(int lay, int bytes, int *count)
{
    DFC_Datatype t = DFC_BYTE;
    *count = bytes;
    if (lay == V) {
        DFCT_OK(DFC_Type_vector(bytes / 3, 3, 5, DFC_BYTE, &t));
        DFCT_OK(DFC_Type_commit(&t));
        *count = 1;
    } else if (lay == X) {
        t = xitem;
        *count = bytes / 20;
    }
    return t;
}

static void free_type(int lay, DFC_Datatype *t)
{
    if (lay == V) DFC_Type_free(t);
}

static void fill(unsigned char *buf, int lay, uint64_t bytes, unsigned seed)
{
    memset(buf, POISON, SPAN);
    for (uint64_t k = 0; k < bytes; k++) buf[off(lay, k)] = val(k, seed);
}

/* Checks a receive buffer of layout `lay` and capacity `cap` after `got` bytes arrived. */
static void check(const char *what, const unsigned char *buf, int lay, uint64_t cap, uint64_t got,
                  unsigned seed)
{
    static unsigned char want[SPAN];
    memset(want, POISON, SPAN);
    for (uint64_t k = 0; k < got && k < cap; k++) want[off(lay, k)] = val(k, seed);
    uint64_t bad = 0, first = 0;
    for (uint64_t i = 0; i < SPAN; i++)
        if (buf[i] != want[i] && bad++ == 0) first = i;
    DFCT_CHECK(bad == 0, "%s: %llu bytes wrong, first at %llu (%d, want %d)", what,
               (unsigned long long)bad, (unsigned long long)first, buf[first], want[first]);
}

static unsigned char *sbuf, *rbuf;

/* One message of `sbytes` from rank 0 (layout sl) into a receive of `rbytes` (layout rl) on
 * rank 1; mode 0: Send/Recv, 1: unexpected (Isend, Barrier, Recv), 2: Mprobe/Mrecv. */
static void one(int rank, int sl, int sbytes, int rl, int rbytes, int mode, unsigned seed)
{
    char what[96];
    snprintf(what, sizeof what, "%s %d B -> %s %d B (mode %d)", names[sl], sbytes, names[rl],
             rbytes, mode);
    int sc, rc_, err = DFC_SUCCESS;
    DFC_Datatype st = type_of(sl, sbytes, &sc), rt = type_of(rl, rbytes, &rc_);
    DFC_Status s;
    DFC_Request q;
    if (rank == 0) {
        fill(sbuf, sl, (uint64_t)sbytes, seed);
        if (mode == 1) {
            DFCT_OK(DFC_Isend(sbuf, sc, st, 1, 7, DFC_COMM_WORLD, &q));
            DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
            DFCT_OK(DFC_Wait(&q, DFC_STATUS_IGNORE));
        } else {
            DFCT_OK(DFC_Send(sbuf, sc, st, 1, 7, DFC_COMM_WORLD));
        }
        for (uint64_t k = 0; k < (uint64_t)sbytes; k++) /* the send left its buffer alone */
            if (sbuf[off(sl, k)] != val(k, seed)) {
                DFCT_CHECK(0, "%s: send buffer changed at packed byte %llu", what,
                           (unsigned long long)k);
                break;
            }
    } else if (rank == 1) {
        memset(rbuf, POISON, SPAN);
        if (mode == 1) DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
        if (mode == 2) {
            DFC_Message m;
            DFCT_OK(DFC_Mprobe(0, 7, DFC_COMM_WORLD, &m, &s));
            err = DFC_Mrecv(rbuf, rc_, rt, &m, &s);
        } else {
            err = DFC_Recv(rbuf, rc_, rt, 0, 7, DFC_COMM_WORLD, &s);
        }
        int got = -1;
        DFC_Get_count(&s, DFC_BYTE, &got);
        if (sbytes > rbytes) {
            int cls = -1;
            DFC_Error_class(err, &cls);
            DFCT_CHECK(cls == DFC_ERR_TRUNCATE, "%s: error class %d, want DFC_ERR_TRUNCATE", what,
                       cls);
        } else {
            DFCT_CHECK(err == DFC_SUCCESS, "%s: receive failed (%d)", what, err);
            DFCT_CHECK(got == sbytes, "%s: Get_count(BYTE) %d, want %d", what, got, sbytes);
            check(what, rbuf, rl, (uint64_t)rbytes, (uint64_t)sbytes, seed);
        }
    } else if (mode == 1) {
        DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    }
    free_type(sl, &st);
    free_type(rl, &rt);
}

/* Persistent V -> X over three rounds with fresh data, the same requests each time. */
static void persistent(int rank, unsigned seed)
{
    int sc, rcnt;
    DFC_Datatype st = type_of(V, N, &sc), rt = type_of(X, N, &rcnt);
    DFC_Request q = DFC_REQUEST_NULL;
    if (rank == 0) DFCT_OK(DFC_Send_init(sbuf, sc, st, 1, 8, DFC_COMM_WORLD, &q));
    if (rank == 1) DFCT_OK(DFC_Recv_init(rbuf, rcnt, rt, 0, 8, DFC_COMM_WORLD, &q));
    for (unsigned round = 0; round < 3 && rank < 2; round++) {
        if (rank == 0) fill(sbuf, V, N, seed + round);
        if (rank == 1) memset(rbuf, POISON, SPAN);
        DFCT_OK(DFC_Start(&q));
        DFCT_OK(DFC_Wait(&q, DFC_STATUS_IGNORE));
        if (rank == 1) check("persistent V -> X", rbuf, X, N, N, seed + round);
    }
    if (rank < 2) DFCT_OK(DFC_Request_free(&q));
    free_type(V, &st);
}

/* Both ranks send V and receive X at once (each side's DATA and CTS interleave). */
static void exchange(int rank, unsigned seed)
{
    if (rank > 1) return;
    int sc, rcnt;
    DFC_Datatype st = type_of(V, N, &sc), rt = type_of(X, N, &rcnt);
    fill(sbuf, V, N, seed + (unsigned)rank);
    memset(rbuf, POISON, SPAN);
    DFCT_OK(DFC_Sendrecv(sbuf, sc, st, 1 - rank, 9, rbuf, rcnt, rt, 1 - rank, 9, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    check("Sendrecv V <-> X", rbuf, X, N, N, seed + (unsigned)(1 - rank));
    free_type(V, &st);
}

int main(int argc, char **argv)
{
    int rank;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFC_Datatype idx;
    int bl[3] = {2, 1, 2}, dp[3] = {5, 0, 3};
    DFCT_OK(DFC_Type_indexed(3, bl, dp, DFC_INT, &idx));
    DFCT_OK(DFC_Type_create_resized(idx, 0, 32, &xitem));
    DFCT_OK(DFC_Type_commit(&xitem));
    DFC_Type_free(&idx);
    sbuf = malloc(SPAN);
    rbuf = malloc(SPAN);
    if (!sbuf || !rbuf) return 1;
    unsigned seed = (unsigned)time(NULL);
    DFCT_OK(DFC_Bcast(&seed, 1, DFC_UNSIGNED, 0, DFC_COMM_WORLD));
    one(rank, V, N, X, N, 0, seed);
    one(rank, V, N, C, N, 0, seed + 1);
    one(rank, C, N, V, N, 0, seed + 2);
    one(rank, V, 3000, X, 3000, 0, seed + 3); /* eager: one packet into an X receive */
    one(rank, V, N, X, N, 1, seed + 4);       /* unexpected: the RTS waits for the receive */
    one(rank, V, N / 2, X, N, 0, seed + 5);   /* shorter than the receive */
    one(rank, V, N, X, N / 2, 0, seed + 6);   /* longer: truncated */
    one(rank, V, N, X, N, 2, seed + 7);       /* Mprobe, Mrecv */
    one(rank, X, 6000, V, 6000, 0, seed + 8); /* eager-sized X send (packed shadow) */
    persistent(rank, seed + 9);
    exchange(rank, seed + 12);
    DFC_Type_free(&xitem);
    free(sbuf);
    free(rbuf);
    return dfct_finalize();
}
