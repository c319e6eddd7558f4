/*
 * alltoallv - DFC_Alltoallv, DFC_Ialltoallv and DFC_Alltoallv_init (+ Start several times
 * with new data): uneven, asymmetric block sizes with zeros (small, large, and sparse
 * MoE-like patterns where most pairs exchange nothing), send and receive blocks at permuted
 * displacements with gaps (which must stay untouched), and DFC_IN_PLACE (symmetric sizes,
 * as MPI requires for it), on a dup of WORLD and on the halves of a split.
 */
#include "colltest.h"

static DFC_Comm comm;
static int rank, size;

static void fill(int *b, int count, int src, int dst, unsigned iter)
{
    for (int i = 0; i < count; i++) b[i] = ct_val(src, dst + 9000, i, iter);
}

/* Items sent from p to q in variant v; sparse: most pairs send nothing. */
static int pair_count(int p, int q, int v, int scale, int symmetric, int sparse)
{
    if (symmetric && p > q) {
        int t = p;
        p = q, q = t;
    }
    unsigned h = (unsigned)ct_val(p, q, v, 17);
    if (sparse ? h % 5 != 0 : h % 4 == 1) return 0;
    return (int)(1 + (h >> 4) % 40) * scale;
}

static void test_alltoallv(int v, int scale, int in_place, int sparse)
{
    int *sc = ct_malloc(size * sizeof(int)), *sd = ct_malloc(size * sizeof(int));
    int *rc = ct_malloc(size * sizeof(int)), *rd = ct_malloc(size * sizeof(int));
    for (int q = 0; q < size; q++) {
        sc[q] = pair_count(rank, q, v, scale, in_place, sparse);
        rc[q] = pair_count(q, rank, v, scale, in_place, sparse);
    }
    int sext = ct_layout(size, sc, sd, 3, 7u * rank + v),
        rext = ct_layout(size, rc, rd, 1, 13u * rank + v + 1);
    int *sbuf = ct_malloc(sext * sizeof(int)), *rbuf = ct_malloc(rext * sizeof(int) + CT_GUARD);
    int *ref = ct_malloc((sext > rext ? sext : rext) * sizeof(int));
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "alltoallv variant %d scale %d%s%s on %d ranks %s start %d",
                     v, scale, sparse ? " sparse" : "", in_place ? " in place" : "", size,
                     ct_form_name[form], k);
            ct_poison(rbuf, rext * sizeof(int) + CT_GUARD, iter);
            ct_poison(sbuf, sext * sizeof(int), iter);
            for (int q = 0; q < size; q++) {
                if (in_place) fill(rbuf + rd[q], rc[q], rank, q, iter);
                else fill(sbuf + sd[q], sc[q], rank, q, iter);
            }
            const void *s = in_place ? DFC_IN_PLACE : sbuf;
            CT_RUN(form, k, req, DFC_Alltoallv(s, sc, sd, DFC_INT, rbuf, rc, rd, DFC_INT, comm),
                   DFC_Ialltoallv(s, sc, sd, DFC_INT, rbuf, rc, rd, DFC_INT, comm, &req),
                   DFC_Alltoallv_init(s, sc, sd, DFC_INT, rbuf, rc, rd, DFC_INT, comm,
                                      DFC_INFO_NULL, &req));
            ct_poison(ref, rext * sizeof(int), iter);
            for (int p = 0; p < size; p++) fill(ref + rd[p], rc[p], p, rank, iter);
            ct_compare(what, rbuf, ref, rext, sizeof(int));
            ct_check_guard(what, (char *)rbuf + rext * sizeof(int), iter);
            if (!in_place) {
                ct_poison(ref, sext * sizeof(int), iter);
                for (int q = 0; q < size; q++) fill(ref + sd[q], sc[q], rank, q, iter);
                DFCT_CHECK(!memcmp(ref, sbuf, sext * sizeof(int)),
                           "%s: the send buffer was modified", what);
            }
        }
        CT_FREE(form, req);
    }
    free(sc), free(sd), free(rc), free(rd), free(sbuf), free(rbuf), free(ref);
}

static void run_all(void)
{
    DFC_Comm_rank(comm, &rank);
    DFC_Comm_size(comm, &size);
    for (int v = 0; v < 3; v++) {
        test_alltoallv(v, 1, 0, 0);
        test_alltoallv(v, 1, 1, 0);
        test_alltoallv(v, 1, 0, 1);
    }
    test_alltoallv(3, 250, 0, 0);
    test_alltoallv(4, 250, 1, 0);
    test_alltoallv(5, 500, 0, 1);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    run_all();
    DFCT_OK(DFC_Comm_free(&comm));
    if (ct_size > 2) {
        DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, ct_rank < ct_size / 2, ct_size - ct_rank, &comm));
        run_all();
        DFCT_OK(DFC_Comm_free(&comm));
    }
    return dfct_finalize();
}
