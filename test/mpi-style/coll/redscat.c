/*
 * redscat - DFC_Reduce_scatter_block and DFC_Reduce_scatter in blocking, nonblocking and
 * persistent forms (Start several times with new inputs): several types and ops, block
 * sizes 0, 1, 7, 1000 (Reduce_scatter: uneven with zeros), DFC_IN_PLACE, and a
 * non-commutative user op (2x2 matrix products). Rank r's result is block r of the
 * reduction of all ranks' full vectors, checked against a serial reference.
 */
#include "colltest.h"

static DFC_Comm comm;
static int rank, size;

/* counts == NULL: Reduce_scatter_block with `block` items per rank. */
static void test_redscat(const ct_type_t *t, DFC_Op op, int block, const int *counts, int in_place)
{
    int total = 0, off = 0;
    for (int p = 0; p < size; p++) {
        if (p == rank) off = total;
        total += counts ? counts[p] : block;
    }
    int mine = counts ? counts[rank] : block;
    size_t tb = (size_t)total * t->size, mb = (size_t)mine * t->size;
    char *sbuf = ct_malloc(tb), *rbuf = ct_malloc((in_place ? tb : mb) + CT_GUARD);
    char *ref = ct_malloc(tb), *tmp = ct_malloc(tb);
    size_t rbytes = in_place ? tb : mb;
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "%s %s %s %s %d%s on %d ranks %s start %d",
                     counts ? "reduce_scatter" : "reduce_scatter_block", t->name, ct_op_name(op),
                     counts ? "variant" : "block", counts ? counts[0] : block,
                     in_place ? " in place" : "", size, ct_form_name[form], k);
            ct_poison(rbuf, rbytes + CT_GUARD, iter);
            ct_fill(t, op, in_place ? rbuf : sbuf, total, rank, iter);
            const void *s = in_place ? DFC_IN_PLACE : sbuf;
            if (counts)
                CT_RUN(form, k, req, DFC_Reduce_scatter(s, rbuf, counts, t->dt, op, comm),
                       DFC_Ireduce_scatter(s, rbuf, counts, t->dt, op, comm, &req),
                       DFC_Reduce_scatter_init(s, rbuf, counts, t->dt, op, comm, DFC_INFO_NULL,
                                               &req));
            else
                CT_RUN(form, k, req, DFC_Reduce_scatter_block(s, rbuf, block, t->dt, op, comm),
                       DFC_Ireduce_scatter_block(s, rbuf, block, t->dt, op, comm, &req),
                       DFC_Reduce_scatter_block_init(s, rbuf, block, t->dt, op, comm, DFC_INFO_NULL,
                                                     &req));
            ct_ref_range(t, op, ref, tmp, total, 0, size, iter);
            ct_compare(what, rbuf, ref + (size_t)off * t->size, mine, t->size);
            if (!in_place) {
                ct_check_guard(what, rbuf + mb, iter);
                ct_fill(t, op, tmp, total, rank, iter);
                DFCT_CHECK(!memcmp(tmp, sbuf, tb), "%s: the send buffer was modified", what);
            }
        }
        CT_FREE(form, req);
    }
    free(sbuf), free(rbuf), free(ref), free(tmp);
}

static void test_matmul(int block, const int *counts, int in_place)
{
    int total = 0, off = 0;
    for (int p = 0; p < size; p++) {
        if (p == rank) off = total;
        total += counts ? counts[p] : block;
    }
    int mine = counts ? counts[rank] : block;
    size_t es = sizeof(ct_mat_t);
    ct_mat_t *sbuf = ct_malloc(total * es), *rbuf = ct_malloc(total * es + CT_GUARD);
    ct_mat_t *ref = ct_malloc(total * es), *tmp = ct_malloc(total * es);
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "%s matmul (non-commutative) %d%s on %d ranks %s start %d",
                     counts ? "reduce_scatter" : "reduce_scatter_block", counts ? counts[0] : block,
                     in_place ? " in place" : "", size, ct_form_name[form], k);
            ct_poison(rbuf, total * es + CT_GUARD, iter);
            ct_mat_fill(in_place ? rbuf : sbuf, total, rank, iter);
            const void *s = in_place ? DFC_IN_PLACE : (const void *)sbuf;
            if (counts)
                CT_RUN(form, k, req,
                       DFC_Reduce_scatter(s, rbuf, counts, ct_mat_type, ct_matmul_op, comm),
                       DFC_Ireduce_scatter(s, rbuf, counts, ct_mat_type, ct_matmul_op, comm, &req),
                       DFC_Reduce_scatter_init(s, rbuf, counts, ct_mat_type, ct_matmul_op, comm,
                                               DFC_INFO_NULL, &req));
            else
                CT_RUN(form, k, req,
                       DFC_Reduce_scatter_block(s, rbuf, block, ct_mat_type, ct_matmul_op, comm),
                       DFC_Ireduce_scatter_block(s, rbuf, block, ct_mat_type, ct_matmul_op, comm,
                                                 &req),
                       DFC_Reduce_scatter_block_init(s, rbuf, block, ct_mat_type, ct_matmul_op,
                                                     comm, DFC_INFO_NULL, &req));
            ct_mat_ref_range(ref, tmp, total, 0, size, iter);
            ct_compare(what, rbuf, ref + off, mine, es);
        }
        CT_FREE(form, req);
    }
    free(sbuf), free(rbuf), free(ref), free(tmp);
}

static void run_all(void)
{
    DFC_Comm_rank(comm, &rank);
    DFC_Comm_size(comm, &size);
    static const struct {
        DFC_Datatype dt;
        DFC_Op op;
    } cases[] = {
        {DFC_INT, DFC_SUM},      {DFC_FLOAT, DFC_PROD},         {DFC_DOUBLE, DFC_MAX},
        {DFC_BFLOAT16, DFC_SUM}, {DFC_FLOAT16, DFC_MIN},        {DFC_UINT8_T, DFC_BXOR},
        {DFC_INT64_T, DFC_LOR},  {DFC_UNSIGNED_CHAR, DFC_BAND}, {DFC_LONG_LONG, DFC_SUM},
        {DFC_INT16_T, DFC_LXOR},
    };
    static const int blocks[] = {0, 1, 7, 1000};
    int *counts = ct_malloc(size * sizeof(int));
    for (int i = 0; i < (int)(sizeof cases / sizeof *cases); i++) {
        const ct_type_t *t = ct_type_of(cases[i].dt);
        for (int b = 0; b < (int)(sizeof blocks / sizeof *blocks); b++)
            test_redscat(t, cases[i].op, blocks[b], NULL, (i + b) % 3 == 0);
        for (int v = 0; v < 2; v++) {
            for (int p = 0; p < size; p++) counts[p] = ct_vcount(p, i + v, v ? 20 : 1);
            test_redscat(t, cases[i].op, 0, counts, (i + v) % 2);
        }
    }
    for (int p = 0; p < size; p++) counts[p] = 0;
    test_redscat(ct_type_of(DFC_INT), DFC_SUM, 0, counts, 0);
    test_redscat(ct_type_of(DFC_INT), DFC_SUM, 20000, NULL, 0);
    test_redscat(ct_type_of(DFC_FLOAT), DFC_SUM, 20000, NULL, 1);
    for (int b = 0; b < (int)(sizeof blocks / sizeof *blocks); b++)
        test_matmul(blocks[b], NULL, b % 2);
    for (int p = 0; p < size; p++) counts[p] = ct_vcount(p, 3, 5);
    test_matmul(0, counts, 0);
    test_matmul(0, counts, 1);
    free(counts);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    ct_mat_setup();
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    run_all();
    DFCT_OK(DFC_Comm_free(&comm));
    if (ct_size > 2) {
        DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, ct_rank % 2, ct_size - ct_rank, &comm));
        run_all();
        DFCT_OK(DFC_Comm_free(&comm));
    }
    ct_mat_teardown();
    return dfct_finalize();
}
