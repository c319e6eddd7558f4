/*
 * scan - DFC_Scan and DFC_Exscan in blocking, nonblocking and persistent forms (Start
 * several times with new inputs): several types and ops at counts 0, 1, 7, 1000 and 20000,
 * DFC_IN_PLACE, and a non-commutative user op (2x2 matrix products). Rank r's Scan result
 * is x_0 op ... op x_r, its Exscan result x_0 op ... op x_{r-1} (rank 0's Exscan result is
 * undefined and not checked), against a serial reference.
 */
#include "colltest.h"

static DFC_Comm comm;
static int rank, size;

static void test_scan(int ex, const ct_type_t *t, DFC_Op op, int count, int in_place)
{
    size_t bytes = (size_t)count * t->size;
    char *sbuf = ct_malloc(bytes), *rbuf = ct_malloc(bytes + CT_GUARD);
    char *ref = ct_malloc(bytes), *tmp = ct_malloc(bytes);
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "%s %s %s count %d%s on %d ranks %s start %d",
                     ex ? "exscan" : "scan", t->name, ct_op_name(op), count,
                     in_place ? " in place" : "", size, ct_form_name[form], k);
            ct_poison(rbuf, bytes + CT_GUARD, iter);
            ct_fill(t, op, in_place ? rbuf : sbuf, count, rank, iter);
            const void *s = in_place ? DFC_IN_PLACE : sbuf;
            if (ex)
                CT_RUN(form, k, req, DFC_Exscan(s, rbuf, count, t->dt, op, comm),
                       DFC_Iexscan(s, rbuf, count, t->dt, op, comm, &req),
                       DFC_Exscan_init(s, rbuf, count, t->dt, op, comm, DFC_INFO_NULL, &req));
            else
                CT_RUN(form, k, req, DFC_Scan(s, rbuf, count, t->dt, op, comm),
                       DFC_Iscan(s, rbuf, count, t->dt, op, comm, &req),
                       DFC_Scan_init(s, rbuf, count, t->dt, op, comm, DFC_INFO_NULL, &req));
            if (!ex || rank > 0) {
                ct_ref_range(t, op, ref, tmp, count, 0, ex ? rank : rank + 1, iter);
                ct_compare(what, rbuf, ref, count, t->size);
            }
            ct_check_guard(what, rbuf + bytes, iter);
            if (!in_place) {
                ct_fill(t, op, tmp, count, rank, iter);
                DFCT_CHECK(!memcmp(tmp, sbuf, bytes), "%s: the send buffer was modified", what);
            }
        }
        CT_FREE(form, req);
    }
    free(sbuf), free(rbuf), free(ref), free(tmp);
}

static void test_matmul(int ex, int count, int in_place)
{
    size_t bytes = (size_t)count * sizeof(ct_mat_t);
    ct_mat_t *sbuf = ct_malloc(bytes), *rbuf = ct_malloc(bytes + CT_GUARD);
    ct_mat_t *ref = ct_malloc(bytes), *tmp = ct_malloc(bytes);
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what,
                     "%s matmul (non-commutative) count %d%s on %d ranks %s start %d",
                     ex ? "exscan" : "scan", count, in_place ? " in place" : "", size,
                     ct_form_name[form], k);
            ct_poison(rbuf, bytes + CT_GUARD, iter);
            ct_mat_fill(in_place ? rbuf : sbuf, count, rank, iter);
            const void *s = in_place ? DFC_IN_PLACE : (const void *)sbuf;
            if (ex)
                CT_RUN(form, k, req, DFC_Exscan(s, rbuf, count, ct_mat_type, ct_matmul_op, comm),
                       DFC_Iexscan(s, rbuf, count, ct_mat_type, ct_matmul_op, comm, &req),
                       DFC_Exscan_init(s, rbuf, count, ct_mat_type, ct_matmul_op, comm,
                                       DFC_INFO_NULL, &req));
            else
                CT_RUN(form, k, req, DFC_Scan(s, rbuf, count, ct_mat_type, ct_matmul_op, comm),
                       DFC_Iscan(s, rbuf, count, ct_mat_type, ct_matmul_op, comm, &req),
                       DFC_Scan_init(s, rbuf, count, ct_mat_type, ct_matmul_op, comm, DFC_INFO_NULL,
                                     &req));
            if (!ex || rank > 0) {
                ct_mat_ref_range(ref, tmp, count, 0, ex ? rank : rank + 1, iter);
                ct_compare(what, rbuf, ref, count, sizeof(ct_mat_t));
            }
            ct_check_guard(what, (char *)rbuf + bytes, iter);
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
        {DFC_INT, DFC_SUM},      {DFC_DOUBLE, DFC_PROD},  {DFC_FLOAT, DFC_MAX},
        {DFC_BFLOAT16, DFC_SUM}, {DFC_FLOAT16, DFC_MIN},  {DFC_UINT16_T, DFC_BXOR},
        {DFC_INT8_T, DFC_LAND},  {DFC_UINT64_T, DFC_BOR},
    };
    static const int counts[] = {0, 1, 7, 1000};
    for (int ex = 0; ex < 2; ex++) {
        for (int i = 0; i < (int)(sizeof cases / sizeof *cases); i++)
            for (int c = 0; c < (int)(sizeof counts / sizeof *counts); c++)
                test_scan(ex, ct_type_of(cases[i].dt), cases[i].op, counts[c], (i + c) % 3 == 1);
        test_scan(ex, ct_type_of(DFC_LONG_LONG), DFC_SUM, 20000, ex);
        for (int c = 0; c < (int)(sizeof counts / sizeof *counts); c++) {
            test_matmul(ex, counts[c], 0);
            test_matmul(ex, counts[c], 1);
        }
    }
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
