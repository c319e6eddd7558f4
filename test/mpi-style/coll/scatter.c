/*
 * scatter - DFC_Scatter, DFC_Iscatter and DFC_Scatter_init (+ Start several times with new
 * data): every root, blocks of 0, 1, 7, 1000 and 30000 ints, DFC_IN_PLACE as recvbuf at the
 * root, sendbuf NULL on non-roots (not significant there), and a send type that differs
 * from the receive type (n/2 contiguous(2, INT) sent per rank, n ints received). Every rank
 * checks its block and the guard behind it; the root checks its send buffer is unchanged.
 */
#include "colltest.h"

static DFC_Comm comm;
static DFC_Datatype int2;

static void fill(int *b, int count, int root, int dst, unsigned iter)
{
    for (int i = 0; i < count; i++) b[i] = ct_val(root, dst, i, iter);
}

static void test_scatter(int count, int root, int in_place, int send2)
{
    int n = ct_size, is_root = ct_rank == root, ip = in_place && is_root;
    size_t total = (size_t)count * n;
    int *sbuf = ct_malloc(total * sizeof(int)), *rbuf = ct_malloc(count * sizeof(int) + CT_GUARD);
    int *ref = ct_malloc((total > (size_t)count ? total : count) * sizeof(int));
    DFC_Datatype stype = send2 ? int2 : DFC_INT;
    int scount = send2 ? count / 2 : count;
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "scatter %d ints root %d%s%s %s start %d", count, root,
                     ip ? " in place" : "", send2 ? " (sent as INT pairs)" : "", ct_form_name[form],
                     k);
            ct_poison(rbuf, count * sizeof(int) + CT_GUARD, iter);
            if (is_root)
                for (int p = 0; p < n; p++) fill(sbuf + (size_t)p * count, count, root, p, iter);
            const void *s = is_root || k % 2 ? sbuf : NULL;
            void *r = ip ? DFC_IN_PLACE : rbuf;
            CT_RUN(form, k, req, DFC_Scatter(s, scount, stype, r, count, DFC_INT, root, comm),
                   DFC_Iscatter(s, scount, stype, r, count, DFC_INT, root, comm, &req),
                   DFC_Scatter_init(s, scount, stype, r, count, DFC_INT, root, comm, DFC_INFO_NULL,
                                    &req));
            if (ip) {
                DFCT_CHECK(ct_is_poison(rbuf, count * sizeof(int) + CT_GUARD, iter),
                           "%s: the root's unused recvbuf was written", what);
            } else {
                fill(ref, count, root, ct_rank, iter);
                ct_compare(what, rbuf, ref, count, sizeof(int));
                ct_check_guard(what, (char *)rbuf + count * sizeof(int), iter);
            }
            if (is_root) {
                for (int p = 0; p < n; p++) fill(ref + (size_t)p * count, count, root, p, iter);
                DFCT_CHECK(!memcmp(ref, sbuf, total * sizeof(int)),
                           "%s: the root's sendbuf was modified", what);
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
            test_scatter(counts[i], root, 0, 0);
    for (int root = 0; root < ct_size; root++) {
        test_scatter(7, root, 1, 0);
        test_scatter(1000, root, 1, 0);
        test_scatter(1000, root, root % 2, 1);
    }
    test_scatter(30000, ct_size - 1, 1, 1);
    DFCT_OK(DFC_Type_free(&int2));
    DFCT_OK(DFC_Comm_free(&comm));
    return dfct_finalize();
}
