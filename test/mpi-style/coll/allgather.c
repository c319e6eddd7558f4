/*
 * allgather - DFC_Allgather, DFC_Iallgather and DFC_Allgather_init (+ Start several times
 * with new data): blocks of 0, 1, 7, 100, 512 (the 2-rank slots' largest), 1000 and 20000
 * ints, DFC_IN_PLACE, a receive type that differs from the send type (n ints sent, n/2
 * contiguous(2, INT) received), on a dup of WORLD and on the two halves of a split (other
 * sizes than WORLD's). Run with
 * DFC_ALLGATHER_ALGORITHM=ring, recursive_doubling (powers of two; otherwise it falls
 * back) or bruck to test one algorithm.
 */
#include "colltest.h"

static DFC_Comm comm;
static int rank, size; /* in comm */
static DFC_Datatype int2;

static void fill(int *b, int count, int src, unsigned iter)
{
    for (int i = 0; i < count; i++) b[i] = ct_val(src, 2, i, iter);
}

static void test_allgather(int count, int in_place, int recv2)
{
    size_t total = (size_t)count * size;
    int *sbuf = ct_malloc(count * sizeof(int)), *rbuf = ct_malloc(total * sizeof(int) + CT_GUARD);
    int *ref = ct_malloc(total * sizeof(int));
    DFC_Datatype rtype = recv2 ? int2 : DFC_INT;
    int rcount = recv2 ? count / 2 : count;
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "allgather %d ints on %d ranks%s%s %s start %d", count,
                     size, in_place ? " in place" : "", recv2 ? " (recv as INT pairs)" : "",
                     ct_form_name[form], k);
            ct_poison(rbuf, total * sizeof(int) + CT_GUARD, iter);
            fill(sbuf, count, rank, iter);
            if (in_place) fill(rbuf + (size_t)rank * count, count, rank, iter);
            const void *s = in_place ? DFC_IN_PLACE : sbuf;
            CT_RUN(form, k, req, DFC_Allgather(s, count, DFC_INT, rbuf, rcount, rtype, comm),
                   DFC_Iallgather(s, count, DFC_INT, rbuf, rcount, rtype, comm, &req),
                   DFC_Allgather_init(s, count, DFC_INT, rbuf, rcount, rtype, comm, DFC_INFO_NULL,
                                      &req));
            for (int p = 0; p < size; p++) fill(ref + (size_t)p * count, count, p, iter);
            ct_compare(what, rbuf, ref, total, sizeof(int));
            ct_check_guard(what, (char *)rbuf + total * sizeof(int), iter);
            if (!in_place) {
                fill(ref, count, rank, iter);
                DFCT_CHECK(!memcmp(ref, sbuf, count * sizeof(int)),
                           "%s: the send buffer was modified", what);
            }
        }
        CT_FREE(form, req);
    }
    free(sbuf), free(rbuf), free(ref);
}

static void run_all(void)
{
    DFC_Comm_rank(comm, &rank);
    DFC_Comm_size(comm, &size);
    static const int counts[] = {0, 1, 7, 100, 512, 1000, 20000};
    for (int i = 0; i < (int)(sizeof counts / sizeof *counts); i++) {
        test_allgather(counts[i], 0, 0);
        test_allgather(counts[i], 1, 0);
    }
    test_allgather(1000, 0, 1);
    test_allgather(2, 1, 1);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    DFCT_OK(DFC_Type_contiguous(2, DFC_INT, &int2));
    DFCT_OK(DFC_Type_commit(&int2));
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    run_all();
    DFCT_OK(DFC_Comm_free(&comm));
    if (ct_size > 2) {
        /* halves: sizes ceil(n/2) and floor(n/2), ranks reversed by the key */
        DFCT_OK(
            DFC_Comm_split(DFC_COMM_WORLD, ct_rank < (ct_size + 1) / 2, ct_size - ct_rank, &comm));
        run_all();
        DFCT_OK(DFC_Comm_free(&comm));
    }
    DFCT_OK(DFC_Type_free(&int2));
    return dfct_finalize();
}
