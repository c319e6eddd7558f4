/*
 * p2p_errors - argument errors of the point-to-point calls under DFC_ERRORS_RETURN: each
 * returns its error class with a message naming the argument, changes nothing, and the
 * library still works afterwards (a checked Sendrecv round after each group of cases).
 *   count < 0 -> DFC_ERR_COUNT; NULL buffer with count > 0 -> DFC_ERR_BUFFER;
 *   DFC_DATATYPE_NULL, a bogus handle, a freed type, an uncommitted type -> DFC_ERR_TYPE;
 *   tag < 0, DFC_ANY_TAG on a send -> DFC_ERR_TAG; rank >= size, rank < 0 (not PROC_NULL),
 *   DFC_ANY_SOURCE as a destination -> DFC_ERR_RANK; DFC_COMM_NULL, a freed communicator,
 *   a bogus handle -> DFC_ERR_COMM; NULL request/flag pointers -> DFC_ERR_ARG.
 */
#include "../dfctest.h"

static int rank, size, rounds;

static void sendrecv_round(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, out[64], in[65];
    DFC_Status st;
    rounds++;
    for (int k = 0; k < 64; k++) out[k] = rank * 1000 + rounds * 64 + k;
    in[64] = -3;
    DFCT_OK(
        DFC_Sendrecv(out, 64, DFC_INT, right, 1, in, 64, DFC_INT, left, 1, DFC_COMM_WORLD, &st));
    int bad = 0;
    for (int k = 0; k < 64; k++) bad += in[k] != left * 1000 + rounds * 64 + k;
    DFCT_CHECK(!bad && in[64] == -3 && st.DFC_SOURCE == left && st.DFC_TAG == 1,
               "Sendrecv round %d after errors: %d bad elements, source %d", rounds, bad,
               st.DFC_SOURCE);
}

/* Every point-to-point call with one bad argument. `bad` selects which: the others valid. */
#define ALL_P2P(BUF, COUNT, TYPE, PEER, TAG, COMM, CLS, NEEDLE)                                   \
    do {                                                                                          \
        DFC_Request rq_ = DFC_REQUEST_NULL;                                                       \
        int fl_ = 0;                                                                              \
        DFCT_FAILS(DFC_Send(BUF, COUNT, TYPE, PEER, TAG, COMM), CLS, NEEDLE);                     \
        DFCT_FAILS(DFC_Ssend(BUF, COUNT, TYPE, PEER, TAG, COMM), CLS, NEEDLE);                    \
        DFCT_FAILS(DFC_Isend(BUF, COUNT, TYPE, PEER, TAG, COMM, &rq_), CLS, NEEDLE);              \
        DFCT_FAILS(DFC_Issend(BUF, COUNT, TYPE, PEER, TAG, COMM, &rq_), CLS, NEEDLE);             \
        DFCT_FAILS(DFC_Send_init(BUF, COUNT, TYPE, PEER, TAG, COMM, &rq_), CLS, NEEDLE);          \
        DFCT_FAILS(DFC_Ssend_init(BUF, COUNT, TYPE, PEER, TAG, COMM, &rq_), CLS, NEEDLE);         \
        DFCT_FAILS(DFC_Recv(BUF, COUNT, TYPE, PEER, TAG, COMM, DFC_STATUS_IGNORE), CLS, NEEDLE);  \
        DFCT_FAILS(DFC_Irecv(BUF, COUNT, TYPE, PEER, TAG, COMM, &rq_), CLS, NEEDLE);              \
        DFCT_FAILS(DFC_Recv_init(BUF, COUNT, TYPE, PEER, TAG, COMM, &rq_), CLS, NEEDLE);          \
        DFCT_FAILS(DFC_Sendrecv(BUF, COUNT, TYPE, PEER, TAG, okbuf, 1, DFC_INT, DFC_PROC_NULL, 0, \
                                COMM, DFC_STATUS_IGNORE),                                         \
                   CLS, NEEDLE);                                                                  \
        DFCT_FAILS(DFC_Sendrecv(okbuf, 1, DFC_INT, DFC_PROC_NULL, 0, BUF, COUNT, TYPE, PEER, TAG, \
                                COMM, DFC_STATUS_IGNORE),                                         \
                   CLS, NEEDLE);                                                                  \
        DFCT_FAILS(DFC_Sendrecv_replace(BUF, COUNT, TYPE, PEER, TAG, DFC_PROC_NULL, 0, COMM,      \
                                        DFC_STATUS_IGNORE),                                       \
                   CLS, NEEDLE);                                                                  \
        DFCT_CHECK(rq_ == DFC_REQUEST_NULL, "a failed call set its request to 0x%x", rq_);        \
        (void)fl_;                                                                                \
    } while (0)

/* The receive-only forms (wildcards allowed for receives are invalid for sends). */
#define SEND_ONLY(BUF, COUNT, TYPE, PEER, TAG, COMM, CLS, NEEDLE)                                 \
    do {                                                                                          \
        DFC_Request rq_ = DFC_REQUEST_NULL;                                                       \
        DFCT_FAILS(DFC_Send(BUF, COUNT, TYPE, PEER, TAG, COMM), CLS, NEEDLE);                     \
        DFCT_FAILS(DFC_Ssend(BUF, COUNT, TYPE, PEER, TAG, COMM), CLS, NEEDLE);                    \
        DFCT_FAILS(DFC_Isend(BUF, COUNT, TYPE, PEER, TAG, COMM, &rq_), CLS, NEEDLE);              \
        DFCT_FAILS(DFC_Issend(BUF, COUNT, TYPE, PEER, TAG, COMM, &rq_), CLS, NEEDLE);             \
        DFCT_FAILS(DFC_Send_init(BUF, COUNT, TYPE, PEER, TAG, COMM, &rq_), CLS, NEEDLE);          \
        DFCT_FAILS(DFC_Sendrecv(BUF, COUNT, TYPE, PEER, TAG, okbuf, 1, DFC_INT, DFC_PROC_NULL, 0, \
                                COMM, DFC_STATUS_IGNORE),                                         \
                   CLS, NEEDLE);                                                                  \
        DFCT_CHECK(rq_ == DFC_REQUEST_NULL, "a failed call set its request to 0x%x", rq_);        \
    } while (0)

int main(int argc, char **argv)
{
    int okbuf[4] = {0, 0, 0, 0};
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    int peer = (rank + 1) % size;

    /* count */
    ALL_P2P(okbuf, -1, DFC_INT, peer, 0, DFC_COMM_WORLD, DFC_ERR_COUNT, "count");
    ALL_P2P(okbuf, -1000000, DFC_INT, DFC_PROC_NULL, 0, DFC_COMM_WORLD, DFC_ERR_COUNT, "count");
    sendrecv_round();

    /* buffer */
    ALL_P2P(NULL, 1, DFC_INT, peer, 0, DFC_COMM_WORLD, DFC_ERR_BUFFER, "buf");
    ALL_P2P(NULL, 5, DFC_BYTE, DFC_PROC_NULL, 0, DFC_COMM_WORLD, DFC_ERR_BUFFER, "buf");
    sendrecv_round();

    /* datatype: null, bogus, freed, uncommitted, and handles of another kind */
    ALL_P2P(okbuf, 1, DFC_DATATYPE_NULL, peer, 0, DFC_COMM_WORLD, DFC_ERR_TYPE, "datatype");
    ALL_P2P(okbuf, 1, (DFC_Datatype)0x03fffff0, peer, 0, DFC_COMM_WORLD, DFC_ERR_TYPE, "datatype");
    ALL_P2P(okbuf, 1, (DFC_Datatype)DFC_COMM_WORLD, peer, 0, DFC_COMM_WORLD, DFC_ERR_TYPE,
            "datatype");
    {
        DFC_Datatype t, freed, uncommitted;
        DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &t));
        DFCT_OK(DFC_Type_commit(&t));
        freed = t;
        DFCT_OK(DFC_Type_free(&t));
        DFCT_CHECK(t == DFC_DATATYPE_NULL, "Type_free did not null the handle");
        ALL_P2P(okbuf, 1, freed, peer, 0, DFC_COMM_WORLD, DFC_ERR_TYPE, "datatype");
        DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &uncommitted));
        ALL_P2P(okbuf, 1, uncommitted, peer, 0, DFC_COMM_WORLD, DFC_ERR_TYPE, "datatype");
        DFCT_OK(DFC_Type_free(&uncommitted));
    }
    sendrecv_round();

    /* tag */
    ALL_P2P(okbuf, 1, DFC_INT, peer, -5, DFC_COMM_WORLD, DFC_ERR_TAG, "tag");
    ALL_P2P(okbuf, 1, DFC_INT, DFC_PROC_NULL, -100, DFC_COMM_WORLD, DFC_ERR_TAG, "tag");
    SEND_ONLY(okbuf, 1, DFC_INT, peer, DFC_ANY_TAG, DFC_COMM_WORLD, DFC_ERR_TAG, "tag");
    DFCT_FAILS(DFC_Probe(peer, -7, DFC_COMM_WORLD, DFC_STATUS_IGNORE), DFC_ERR_TAG, "tag");
    {
        int flag = 0;
        DFCT_FAILS(DFC_Iprobe(peer, -7, DFC_COMM_WORLD, &flag, DFC_STATUS_IGNORE), DFC_ERR_TAG,
                   "tag");
    }
    sendrecv_round();

    /* rank */
    ALL_P2P(okbuf, 1, DFC_INT, size, 0, DFC_COMM_WORLD, DFC_ERR_RANK, "rank");
    ALL_P2P(okbuf, 1, DFC_INT, -7, 0, DFC_COMM_WORLD, DFC_ERR_RANK, "rank");
    ALL_P2P(okbuf, 1, DFC_INT, 1 << 30, 0, DFC_COMM_WORLD, DFC_ERR_RANK, "rank");
    SEND_ONLY(okbuf, 1, DFC_INT, DFC_ANY_SOURCE, 0, DFC_COMM_WORLD, DFC_ERR_RANK, "dest");
    DFCT_FAILS(DFC_Send(okbuf, 1, DFC_INT, size, 0, DFC_COMM_WORLD), DFC_ERR_RANK, "dest");
    DFCT_FAILS(DFC_Recv(okbuf, 1, DFC_INT, size, 0, DFC_COMM_WORLD, DFC_STATUS_IGNORE),
               DFC_ERR_RANK, "source");
    DFCT_FAILS(DFC_Probe(size, 0, DFC_COMM_WORLD, DFC_STATUS_IGNORE), DFC_ERR_RANK, "source");
    DFCT_FAILS(DFC_Sendrecv_replace(okbuf, 1, DFC_INT, DFC_PROC_NULL, 0, size + 3, 0,
                                    DFC_COMM_WORLD, DFC_STATUS_IGNORE),
               DFC_ERR_RANK, "source");
    /* On COMM_SELF, rank 1 is out of range. */
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_SELF, DFC_ERRORS_RETURN));
    ALL_P2P(okbuf, 1, DFC_INT, 1, 0, DFC_COMM_SELF, DFC_ERR_RANK, "rank");
    sendrecv_round();

    /* communicator: null, bogus, of another kind, freed */
    ALL_P2P(okbuf, 1, DFC_INT, DFC_PROC_NULL, 0, DFC_COMM_NULL, DFC_ERR_COMM, "comm");
    ALL_P2P(okbuf, 1, DFC_INT, DFC_PROC_NULL, 0, (DFC_Comm)0x01fffff0, DFC_ERR_COMM, "comm");
    ALL_P2P(okbuf, 1, DFC_INT, DFC_PROC_NULL, 0, (DFC_Comm)DFC_INT, DFC_ERR_COMM, "comm");
    {
        DFC_Comm c, freed;
        DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &c));
        freed = c;
        DFCT_OK(DFC_Comm_free(&c));
        ALL_P2P(okbuf, 1, DFC_INT, DFC_PROC_NULL, 0, freed, DFC_ERR_COMM, "comm");
        DFCT_FAILS(DFC_Probe(DFC_PROC_NULL, 0, freed, DFC_STATUS_IGNORE), DFC_ERR_COMM, "comm");
        int flag;
        DFCT_FAILS(DFC_Iprobe(0, 0, DFC_COMM_NULL, &flag, DFC_STATUS_IGNORE), DFC_ERR_COMM, "comm");
    }
    sendrecv_round();

    /* NULL out-pointers */
    DFCT_FAILS(DFC_Isend(okbuf, 1, DFC_INT, peer, 0, DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "request");
    DFCT_FAILS(DFC_Irecv(okbuf, 1, DFC_INT, peer, 0, DFC_COMM_WORLD, NULL), DFC_ERR_ARG, "request");
    DFCT_FAILS(DFC_Send_init(okbuf, 1, DFC_INT, peer, 0, DFC_COMM_WORLD, NULL), DFC_ERR_ARG,
               "request");
    DFCT_FAILS(DFC_Recv_init(okbuf, 1, DFC_INT, peer, 0, DFC_COMM_WORLD, NULL), DFC_ERR_ARG,
               "request");
    DFCT_FAILS(DFC_Iprobe(peer, 0, DFC_COMM_WORLD, NULL, DFC_STATUS_IGNORE), DFC_ERR_ARG, "flag");
    sendrecv_round();

    /* The order of checks follows the argument list: a call with several bad arguments
     * reports the communicator first (MPICH does too). */
    DFCT_FAILS(DFC_Send(NULL, -1, DFC_DATATYPE_NULL, -9, -9, DFC_COMM_NULL), DFC_ERR_COMM, "comm");

    /* Valid corner cases still succeed. */
    DFCT_OK(DFC_Send(NULL, 0, DFC_INT, DFC_PROC_NULL, 0, DFC_COMM_WORLD));
    DFCT_OK(DFC_Send(okbuf, 1, DFC_INT, DFC_PROC_NULL, DFC_TAG_UB_VALUE, DFC_COMM_WORLD));
    DFCT_OK(
        DFC_Recv(okbuf, 1, DFC_INT, DFC_PROC_NULL, DFC_ANY_TAG, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    sendrecv_round();

    /* The same errors under ERRORS_RETURN on a dup (which inherits the handler). */
    {
        DFC_Comm d;
        DFC_Errhandler eh = DFC_ERRHANDLER_NULL;
        DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &d));
        DFCT_OK(DFC_Comm_get_errhandler(d, &eh));
        DFCT_CHECK(eh == DFC_ERRORS_RETURN,
                   "a dup of WORLD has errhandler 0x%x, expected ERRORS_RETURN", eh);
        DFCT_FAILS(DFC_Send(okbuf, -1, DFC_INT, peer, 0, d), DFC_ERR_COUNT, "count");
        DFCT_FAILS(DFC_Recv(okbuf, 1, DFC_INT, size, 0, d, DFC_STATUS_IGNORE), DFC_ERR_RANK,
                   "source");
        DFCT_OK(DFC_Comm_free(&d));
    }
    sendrecv_round();
    return dfct_finalize();
}
