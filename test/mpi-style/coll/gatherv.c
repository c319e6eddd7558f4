/*
 * gatherv - DFC_Gatherv, DFC_Igatherv and DFC_Gatherv_init (+ Start several times with new
 * data): every root, uneven block sizes with zeros (small and large), blocks placed at
 * permuted displacements with gaps between them (which must stay untouched), DFC_IN_PLACE at
 * the root, and recvcounts/displs/recvbuf NULL on non-roots (not significant there).
 */
#include "colltest.h"

static DFC_Comm comm;

static void fill(int *b, int count, int src, unsigned iter)
{
    for (int i = 0; i < count; i++) b[i] = ct_val(src, 1, i, iter);
}

static void test_gatherv(int variant, int scale, int root, int in_place)
{
    int n = ct_size, is_root = ct_rank == root, ip = in_place && is_root;
    int *counts = ct_malloc(n * sizeof(int)), *displs = ct_malloc(n * sizeof(int));
    for (int p = 0; p < n; p++) counts[p] = ct_vcount(p, variant, scale);
    int extent = ct_layout(n, counts, displs, 3, 77u + variant);
    int mine = counts[ct_rank];
    int *sbuf = ct_malloc(mine * sizeof(int)), *rbuf = ct_malloc(extent * sizeof(int) + CT_GUARD);
    int *ref = ct_malloc(extent * sizeof(int));
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "gatherv variant %d scale %d root %d%s %s start %d",
                     variant, scale, root, ip ? " in place" : "", ct_form_name[form], k);
            ct_poison(rbuf, extent * sizeof(int) + CT_GUARD, iter);
            fill(sbuf, mine, ct_rank, iter);
            if (ip) fill(rbuf + displs[root], mine, root, iter);
            const void *s = ip ? DFC_IN_PLACE : sbuf;
            int nul = !is_root && k % 2;
            void *r = nul ? NULL : rbuf;
            const int *rc = nul ? NULL : counts, *rd = nul ? NULL : displs;
            CT_RUN(form, k, req, DFC_Gatherv(s, mine, DFC_INT, r, rc, rd, DFC_INT, root, comm),
                   DFC_Igatherv(s, mine, DFC_INT, r, rc, rd, DFC_INT, root, comm, &req),
                   DFC_Gatherv_init(s, mine, DFC_INT, r, rc, rd, DFC_INT, root, comm, DFC_INFO_NULL,
                                    &req));
            if (is_root) {
                ct_poison(ref, extent * sizeof(int), iter);
                for (int p = 0; p < n; p++) fill(ref + displs[p], counts[p], p, iter);
                ct_compare(what, rbuf, ref, extent, sizeof(int));
                ct_check_guard(what, (char *)rbuf + extent * sizeof(int), iter);
            } else {
                DFCT_CHECK(ct_is_poison(rbuf, extent * sizeof(int) + CT_GUARD, iter),
                           "%s: a non-root's recvbuf was written", what);
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
        test_gatherv(root, 1, root, 0);
        test_gatherv(root + 1, 1, root, 1);
        test_gatherv(root + 2, 200, root, root % 2);
    }
    test_gatherv(5, 1000, 0, 0);
    test_gatherv(6, 1000, ct_size - 1, 1);
    DFCT_OK(DFC_Comm_free(&comm));
    return dfct_finalize();
}
