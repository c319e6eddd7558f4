/*
 * bsend_fit - a buffer of exactly the sizes MPI tells users to reserve (each message's bytes
 * plus DFC_BSEND_OVERHEAD) holds those messages, whatever their sizes and the buffer's
 * alignment. DFC rounded each message up to 8 bytes first, so mpi4py's test_p2p_buf, which
 * attaches 1 + DFC_BSEND_OVERHEAD bytes for a 1-byte Bsend_init, failed with DFC_ERR_BUFFER
 * on one side and hung. Rank 0 fills the buffer with odd-sized messages at once (each to
 * itself and, with 2 or more ranks, to rank 1), then the persistent case.
 */
#include "../dfctest.h"

#define NMSG 5
/* Odd sizes above the default DFC_EAGER_LIMIT: each holds its room until received. */
static const int sizes[NMSG] = {20001, 16385, 30003, 17777, 25001};
#define MAXMSG 30016

/* Messages i of sizes[i] bytes, all buffered before any is received. */
static void fill_exactly(int rank, int size, char *raw)
{
    int dst = size > 1 ? 1 : 0, total = 0;
    for (int i = 0; i < NMSG; i++) total += sizes[i] + DFC_BSEND_OVERHEAD;
    char *buf = raw + 1; /* not aligned */
    if (rank == 0) {
        DFCT_OK(DFC_Buffer_attach(buf, total));
        char *msg = malloc(MAXMSG);
        for (int i = 0; i < NMSG; i++) {
            for (int k = 0; k < sizes[i]; k++) msg[k] = (char)(i * 16 + k);
            DFCT_OK(DFC_Bsend(msg, sizes[i], DFC_BYTE, dst, i, DFC_COMM_WORLD));
        }
        free(msg);
    }
    if (rank == dst) {
        char *msg = malloc(MAXMSG);
        for (int i = 0; i < NMSG; i++) {
            memset(msg, 0x7f, MAXMSG);
            DFCT_OK(DFC_Recv(msg, MAXMSG, DFC_BYTE, 0, i, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
            for (int k = 0; k < sizes[i]; k++)
                DFCT_CHECK(msg[k] == (char)(i * 16 + k), "message %d byte %d: %d", i, k, msg[k]);
            DFCT_CHECK(msg[sizes[i]] == 0x7f, "message %d: byte past its end written", i);
        }
        free(msg);
    }
    if (rank == 0) { /* after the receives: detach waits until every message left */
        void *got;
        int gsize;
        DFCT_OK(DFC_Buffer_detach(&got, &gsize));
        DFCT_CHECK(got == buf && gsize == total, "detach gave %p %d", got, gsize);
    }
}

/* mpi4py's sequence: 1 + DFC_BSEND_OVERHEAD bytes, Bsend_init of 1 byte to oneself. */
static void persistent_one_byte(int rank, char *raw)
{
    char s = (char)(40 + rank), r = 0;
    DFC_Request sreq, rreq;
    DFCT_OK(DFC_Buffer_attach(raw, 1 + DFC_BSEND_OVERHEAD));
    DFCT_OK(DFC_Bsend_init(&s, 1, DFC_BYTE, rank, 7, DFC_COMM_WORLD, &sreq));
    DFCT_OK(DFC_Recv_init(&r, 1, DFC_BYTE, rank, 7, DFC_COMM_WORLD, &rreq));
    for (int round = 0; round < 3; round++) {
        r = 0;
        DFCT_OK(DFC_Start(&sreq));
        DFCT_OK(DFC_Start(&rreq));
        DFCT_OK(DFC_Wait(&sreq, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Wait(&rreq, DFC_STATUS_IGNORE));
        DFCT_CHECK(r == s, "round %d: got %d, expected %d", round, r, s);
    }
    DFCT_OK(DFC_Request_free(&sreq));
    DFCT_OK(DFC_Request_free(&rreq));
    void *got;
    int gsize;
    DFCT_OK(DFC_Buffer_detach(&got, &gsize));
}

int main(int argc, char **argv)
{
    int rank, size;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    char *raw = malloc(NMSG * (MAXMSG + DFC_BSEND_OVERHEAD) + 8);
    fill_exactly(rank, size, raw);
    persistent_one_byte(rank, raw);
    /* One byte more than the buffer holds still fails, and nothing is sent. */
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    DFCT_OK(DFC_Buffer_attach(raw, 4 + DFC_BSEND_OVERHEAD));
    char five[5] = {0};
    DFCT_FAILS(DFC_Bsend(five, 5, DFC_BYTE, rank, 9, DFC_COMM_WORLD), DFC_ERR_BUFFER,
               "has no room for a 5-byte message");
    void *got;
    int gsize, flag = 1;
    DFCT_OK(DFC_Buffer_detach(&got, &gsize));
    DFCT_OK(DFC_Iprobe(rank, 9, DFC_COMM_WORLD, &flag, DFC_STATUS_IGNORE));
    DFCT_CHECK(!flag, "a message that did not fit was sent");
    free(raw);
    return dfct_finalize();
}
