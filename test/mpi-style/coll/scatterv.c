/*
 * scatterv - DFC_Scatterv, DFC_Iscatterv and DFC_Scatterv_init (+ Start several times with
 * new data): every root, uneven block sizes with zeros (small and large), blocks taken from
 * permuted displacements with gaps in the root's send buffer, DFC_IN_PLACE as recvbuf at the
 * root, and sendbuf/sendcounts/displs NULL on non-roots (not significant there).
 */
#include "colltest.h"

static DFC_Comm comm;

static void fill(int *b, int count, int root, int dst, unsigned iter)
{
    for (int i = 0; i < count; i++) b[i] = ct_val(root, dst + 1000, i, iter);
}

static void test_scatterv(int variant, int scale, int root, int in_place)
{
    int n = ct_size, is_root = ct_rank == root, ip = in_place && is_root;
    int *counts = ct_malloc(n * sizeof(int)), *displs = ct_malloc(n * sizeof(int));
    for (int p = 0; p < n; p++) counts[p] = ct_vcount(p, variant, scale);
    int extent = ct_layout(n, counts, displs, 5, 91u + variant);
    int mine = counts[ct_rank];
    int *sbuf = ct_malloc(extent * sizeof(int)), *rbuf = ct_malloc(mine * sizeof(int) + CT_GUARD);
    int *ref = ct_malloc((extent > mine ? extent : mine) * sizeof(int));
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "scatterv variant %d scale %d root %d%s %s start %d",
                     variant, scale, root, ip ? " in place" : "", ct_form_name[form], k);
            ct_poison(rbuf, mine * sizeof(int) + CT_GUARD, iter);
            if (is_root) {
                ct_poison(sbuf, extent * sizeof(int), iter);
                for (int p = 0; p < n; p++) fill(sbuf + displs[p], counts[p], root, p, iter);
            }
            int nul = !is_root && k % 2;
            const void *s = nul ? NULL : sbuf;
            const int *sc = nul ? NULL : counts, *sd = nul ? NULL : displs;
            void *r = ip ? DFC_IN_PLACE : rbuf;
            CT_RUN(form, k, req, DFC_Scatterv(s, sc, sd, DFC_INT, r, mine, DFC_INT, root, comm),
                   DFC_Iscatterv(s, sc, sd, DFC_INT, r, mine, DFC_INT, root, comm, &req),
                   DFC_Scatterv_init(s, sc, sd, DFC_INT, r, mine, DFC_INT, root, comm,
                                     DFC_INFO_NULL, &req));
            if (ip) {
                DFCT_CHECK(ct_is_poison(rbuf, mine * sizeof(int) + CT_GUARD, iter),
                           "%s: the root's unused recvbuf was written", what);
            } else {
                fill(ref, mine, root, ct_rank, iter);
                ct_compare(what, rbuf, ref, mine, sizeof(int));
                ct_check_guard(what, (char *)rbuf + mine * sizeof(int), iter);
            }
            if (is_root) {
                ct_poison(ref, extent * sizeof(int), iter);
                for (int p = 0; p < n; p++) fill(ref + displs[p], counts[p], root, p, iter);
                DFCT_CHECK(!memcmp(ref, sbuf, extent * sizeof(int)),
                           "%s: the root's sendbuf was modified", what);
            }
        }
        CT_FREE(form, req);
    }
    free(counts), free(displs), free(sbuf), free(rbuf), free(ref);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    for (int root = 0; root < ct_size; root++) {
        test_scatterv(root, 1, root, 0);
        test_scatterv(root + 1, 1, root, 1);
        test_scatterv(root + 2, 200, root, root % 2);
    }
    test_scatterv(5, 1000, 0, 0);
    test_scatterv(6, 1000, ct_size - 1, 1);
    DFCT_OK(DFC_Comm_free(&comm));
    return dfct_finalize();
}
