/*
 * gather - DFC_Gather, DFC_Igather and DFC_Gather_init (+ Start several times with new
 * data): every root, blocks of 0, 1, 7, 1000 and 30000 ints, DFC_IN_PLACE at the root,
 * recvbuf NULL on non-roots (not significant there), and a receive type that differs from
 * the send type (n ints sent, n/2 contiguous(2, INT) received). The root checks every
 * element of every block and the guard behind them.
 */
#include "colltest.h"

static DFC_Comm comm;
static DFC_Datatype int2;

static void fill(int *b, int count, int src, unsigned iter)
{
    for (int i = 0; i < count; i++) b[i] = ct_val(src, 0, i, iter);
}

/* recv2: receive as contiguous(2, INT) (count must be even). */
static void test_gather(int count, int root, int in_place, int recv2)
{
    int n = ct_size, is_root = ct_rank == root, ip = in_place && is_root;
    size_t total = (size_t)count * n;
    int *sbuf = ct_malloc(count * sizeof(int)), *rbuf = ct_malloc(total * sizeof(int) + CT_GUARD);
    int *ref = ct_malloc(total * sizeof(int));
    DFC_Datatype rtype = recv2 ? int2 : DFC_INT;
    int rcount = recv2 ? count / 2 : count;
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "gather %d ints root %d%s%s %s start %d", count, root,
                     ip ? " in place" : "", recv2 ? " (recv as INT pairs)" : "", ct_form_name[form],
                     k);
            ct_poison(rbuf, total * sizeof(int) + CT_GUARD, iter);
            fill(sbuf, count, ct_rank, iter);
            if (ip) fill(rbuf + (size_t)root * count, count, root, iter);
            const void *s = ip ? DFC_IN_PLACE : sbuf;
            void *r = is_root || k % 2 ? rbuf : NULL;
            CT_RUN(form, k, req, DFC_Gather(s, count, DFC_INT, r, rcount, rtype, root, comm),
                   DFC_Igather(s, count, DFC_INT, r, rcount, rtype, root, comm, &req),
                   DFC_Gather_init(s, count, DFC_INT, r, rcount, rtype, root, comm, DFC_INFO_NULL,
                                   &req));
            if (is_root) {
                for (int p = 0; p < n; p++) fill(ref + (size_t)p * count, count, p, iter);
                ct_compare(what, rbuf, ref, total, sizeof(int));
                ct_check_guard(what, (char *)rbuf + total * sizeof(int), iter);
            } else {
                DFCT_CHECK(ct_is_poison(rbuf, total * sizeof(int) + CT_GUARD, iter),
                           "%s: a non-root's recvbuf was written", what);
            }
        }
        CT_FREE(form, req);
    }
    free(sbuf), free(rbuf), free(ref);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &int2));
    DFCT_OK(DFC_Type_commit(&int2));
    static const int counts[] = {0, 1, 7, 1000, 30000};
    for (int root = 0; root < ct_size; root++)
        for (int i = 0; i < (int)(sizeof counts / sizeof *counts); i++)
            test_gather(counts[i], root, 0, 0);
    for (int root = 0; root < ct_size; root++) {
        test_gather(7, root, 1, 0);
        test_gather(1000, root, 1, 0);
        test_gather(1000, root, root % 2, 1);
    }
    test_gather(30000, ct_size - 1, 1, 1);
    DFCT_OK(DFC_Type_free(&int2));
    DFCT_OK(DFC_Comm_free(&comm));
    return dfct_finalize();
}
