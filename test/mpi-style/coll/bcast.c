/*
 * bcast - DFC_Bcast, DFC_Ibcast and DFC_Bcast_init (+ Start several times with new data):
 * every root, sizes from 0 bytes to 1 MiB (around the eager limit and not multiples of the
 * rank count), DFC_BYTE, DFC_INT, DFC_DOUBLE and a contiguous derived type. Non-roots
 * poison their buffer before each call and check every byte; the root checks that its
 * buffer is unchanged. Run with DFC_BCAST_ALGORITHM=binomial or =scatter_allgather to test
 * one algorithm.
 */
#include "colltest.h"

static DFC_Comm comm;

static void fill(unsigned char *b, size_t bytes, int root, unsigned iter)
{
    unsigned s = ct_seed(root, iter, 3);
    size_t i = 0;
    for (; i + 3 <= bytes; i += 3) {
        unsigned v = dfct_rand(&s);
        b[i] = (unsigned char)v, b[i + 1] = (unsigned char)(v >> 8),
        b[i + 2] = (unsigned char)(v >> 16);
    }
    for (; i < bytes; i++) b[i] = (unsigned char)dfct_rand(&s);
}

static void test_bcast(DFC_Datatype dt, const char *tname, int count, int root)
{
    int tsize;
    DFC_Type_size(dt, &tsize);
    size_t bytes = (size_t)count * tsize;
    unsigned char *buf = ct_malloc(bytes + CT_GUARD), *ref = ct_malloc(bytes);
    char what[128];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "bcast %d x %s (%zu bytes) root %d %s start %d", count,
                     tname, bytes, root, ct_form_name[form], k);
            ct_poison(buf, bytes + CT_GUARD, iter);
            fill(ref, bytes, root, iter);
            if (ct_rank == root) memcpy(buf, ref, bytes);
            CT_RUN(form, k, req, DFC_Bcast(buf, count, dt, root, comm),
                   DFC_Ibcast(buf, count, dt, root, comm, &req),
                   DFC_Bcast_init(buf, count, dt, root, comm, DFC_INFO_NULL, &req));
            ct_compare(what, buf, ref, bytes, 1);
            ct_check_guard(what, buf + bytes, iter);
        }
        CT_FREE(form, req);
    }
    free(buf), free(ref);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    DFC_Datatype vec3;
    DFCT_OK(DFC_Type_contiguous(3, DFC_DOUBLE, &vec3));
    DFCT_OK(DFC_Type_commit(&vec3));

    static const int byte_counts[] = {0, 1, 3, 100, 4097, 16384, 16385, 65536, 100003, 1 << 20};
    for (int root = 0; root < ct_size; root++)
        for (int i = 0; i < (int)(sizeof byte_counts / sizeof *byte_counts); i++)
            test_bcast(DFC_BYTE, "BYTE", byte_counts[i], root);
    /* Typed, at a few roots. */
    for (int root = 0; root<ct_size; root += ct_size> 2 ? ct_size - 1 : 1) {
        test_bcast(DFC_INT, "INT", 7, root);
        test_bcast(DFC_INT, "INT", 50001, root);
        test_bcast(DFC_DOUBLE, "DOUBLE", 1000, root);
        test_bcast(DFC_DOUBLE, "DOUBLE", 131072, root);
        test_bcast(vec3, "contiguous(3, DOUBLE)", 333, root);
    }
    /* On DFC_COMM_WORLD, and with several broadcasts in flight on one communicator. */
    DFC_Comm dup = comm;
    comm = DFC_COMM_WORLD;
    test_bcast(DFC_INT, "INT", 1000, ct_size / 2);
    comm = dup;
    {
        enum { N = 6, LEN = 20000 };
        DFC_Request reqs[N];
        unsigned char *bufs[N], *ref = ct_malloc(LEN);
        unsigned iter0 = ct_iter;
        ct_iter += N;
        for (int j = 0; j < N; j++) {
            bufs[j] = ct_malloc(LEN);
            int root = j % ct_size;
            if (ct_rank == root) fill(bufs[j], LEN, root, iter0 + j);
            else ct_poison(bufs[j], LEN, iter0 + j);
            DFCT_OK(DFC_Ibcast(bufs[j], LEN, DFC_BYTE, root, comm, &reqs[j]));
        }
        DFCT_OK(DFC_Waitall(N, reqs, DFC_STATUSES_IGNORE));
        for (int j = 0; j < N; j++) {
            fill(ref, LEN, j % ct_size, iter0 + j);
            ct_compare("bcast: 6 concurrent Ibcasts", bufs[j], ref, LEN, 1);
            free(bufs[j]);
        }
        free(ref);
    }

    DFCT_OK(DFC_Type_free(&vec3));
    DFCT_OK(DFC_Comm_free(&comm));
    return dfct_finalize();
}
