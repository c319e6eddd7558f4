/*
 * allgatherv - DFC_Allgatherv, DFC_Iallgatherv and DFC_Allgatherv_init (+ Start several
 * times with new data): uneven block sizes with zeros (small and large), each rank placing
 * the blocks at its own permuted displacements with gaps (displs are local, so they differ
 * between ranks), DFC_IN_PLACE, on a dup of WORLD and on the halves of a split.
 */
#include "colltest.h"

static DFC_Comm comm;
static int rank, size;

static void fill(int *b, int count, int src, unsigned iter)
{
    for (int i = 0; i < count; i++) b[i] = ct_val(src, 3, i, iter);
}

static void test_allgatherv(int variant, int scale, int in_place)
{
    int *counts = ct_malloc(size * sizeof(int)), *displs = ct_malloc(size * sizeof(int));
    for (int p = 0; p < size; p++) counts[p] = ct_vcount(p, variant, scale);
    int extent = ct_layout(size, counts, displs, 2, 1000u * rank + variant);
    int mine = counts[rank];
    int *sbuf = ct_malloc(mine * sizeof(int)), *rbuf = ct_malloc(extent * sizeof(int) + CT_GUARD);
    int *ref = ct_malloc(extent * sizeof(int));
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "allgatherv variant %d scale %d on %d ranks%s %s start %d",
                     variant, scale, size, in_place ? " in place" : "", ct_form_name[form], k);
            ct_poison(rbuf, extent * sizeof(int) + CT_GUARD, iter);
            fill(sbuf, mine, rank, iter);
            if (in_place) fill(rbuf + displs[rank], mine, rank, iter);
            const void *s = in_place ? DFC_IN_PLACE : sbuf;
            CT_RUN(form, k, req,
                   DFC_Allgatherv(s, mine, DFC_INT, rbuf, counts, displs, DFC_INT, comm),
                   DFC_Iallgatherv(s, mine, DFC_INT, rbuf, counts, displs, DFC_INT, comm, &req),
                   DFC_Allgatherv_init(s, mine, DFC_INT, rbuf, counts, displs, DFC_INT, comm,
                                       DFC_INFO_NULL, &req));
            ct_poison(ref, extent * sizeof(int), iter);
            for (int p = 0; p < size; p++) fill(ref + displs[p], counts[p], p, iter);
            ct_compare(what, rbuf, ref, extent, sizeof(int));
            ct_check_guard(what, (char *)rbuf + extent * sizeof(int), iter);
        }
        CT_FREE(form, req);
    }
    free(counts), free(displs), free(sbuf), free(rbuf), free(ref);
}

static void run_all(void)
{
    DFC_Comm_rank(comm, &rank);
    DFC_Comm_size(comm, &size);
    for (int v = 0; v < 4; v++) {
        test_allgatherv(v, 1, v % 2);
        test_allgatherv(v + 4, 100, !(v % 2));
    }
    test_allgatherv(9, 1000, 0);
    test_allgatherv(10, 1000, 1);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    run_all();
    DFCT_OK(DFC_Comm_free(&comm));
    if (ct_size > 2) {
        DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, ct_rank % 2, ct_rank, &comm));
        run_all();
        DFCT_OK(DFC_Comm_free(&comm));
    }
    return dfct_finalize();
}
