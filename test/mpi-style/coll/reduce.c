/*
 * reduce - DFC_Reduce, DFC_Ireduce and DFC_Reduce_init (+ Start several times with new
 * inputs): every root, a range of types and ops at counts 0, 1, 7, 1000 (and 100000 for a
 * few), DFC_IN_PLACE at the root, recvbuf NULL on non-roots (it is not significant there),
 * and a non-commutative user op (2x2 matrix products) that shows the order of combining.
 * The root checks its result against the serial reference element by element; every rank
 * checks that its send buffer is unchanged and that non-roots' receive buffers (when given)
 * are untouched.
 */
#include "colltest.h"

static DFC_Comm comm;

static void test_reduce(const ct_type_t *t, DFC_Op op, int count, int root, int in_place,
                        int null_recv)
{
    size_t bytes = (size_t)count * t->size;
    char *sbuf = ct_malloc(bytes), *rbuf = ct_malloc(bytes + CT_GUARD);
    char *ref = ct_malloc(bytes), *tmp = ct_malloc(bytes);
    char what[160];
    int is_root = ct_rank == root;
    int ip = in_place && is_root;
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "reduce %s %s count %d root %d%s %s start %d", t->name,
                     ct_op_name(op), count, root, ip ? " in place" : "", ct_form_name[form], k);
            ct_poison(rbuf, bytes + CT_GUARD, iter);
            ct_fill(t, op, ip ? rbuf : sbuf, count, ct_rank, iter);
            const void *s = ip ? DFC_IN_PLACE : sbuf;
            void *r = !is_root && null_recv ? NULL : rbuf;
            CT_RUN(form, k, req, DFC_Reduce(s, r, count, t->dt, op, root, comm),
                   DFC_Ireduce(s, r, count, t->dt, op, root, comm, &req),
                   DFC_Reduce_init(s, r, count, t->dt, op, root, comm, DFC_INFO_NULL, &req));
            if (is_root) {
                ct_ref_range(t, op, ref, tmp, count, 0, ct_size, iter);
                ct_compare(what, rbuf, ref, count, t->size);
                ct_check_guard(what, rbuf + bytes, iter);
            } else {
                DFCT_CHECK(ct_is_poison(rbuf, bytes + CT_GUARD, iter),
                           "%s: non-root's recvbuf was written", what);
            }
            if (!ip) {
                ct_fill(t, op, tmp, count, ct_rank, iter);
                DFCT_CHECK(!memcmp(tmp, sbuf, bytes), "%s: the send buffer was modified", what);
            }
        }
        CT_FREE(form, req);
    }
    free(sbuf), free(rbuf), free(ref), free(tmp);
}

static void test_matmul(int count, int root, int in_place)
{
    size_t bytes = (size_t)count * sizeof(ct_mat_t);
    ct_mat_t *sbuf = ct_malloc(bytes), *rbuf = ct_malloc(bytes + CT_GUARD);
    ct_mat_t *ref = ct_malloc(bytes), *tmp = ct_malloc(bytes);
    char what[128];
    int is_root = ct_rank == root, ip = in_place && is_root;
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what,
                     "reduce matmul (non-commutative) count %d root %d%s %s start %d", count, root,
                     ip ? " in place" : "", ct_form_name[form], k);
            ct_poison(rbuf, bytes + CT_GUARD, iter);
            ct_mat_fill(ip ? rbuf : sbuf, count, ct_rank, iter);
            const void *s = ip ? DFC_IN_PLACE : (const void *)sbuf;
            CT_RUN(form, k, req, DFC_Reduce(s, rbuf, count, ct_mat_type, ct_matmul_op, root, comm),
                   DFC_Ireduce(s, rbuf, count, ct_mat_type, ct_matmul_op, root, comm, &req),
                   DFC_Reduce_init(s, rbuf, count, ct_mat_type, ct_matmul_op, root, comm,
                                   DFC_INFO_NULL, &req));
            if (is_root) {
                ct_mat_ref_range(ref, tmp, count, 0, ct_size, iter);
                ct_compare(what, rbuf, ref, count, sizeof(ct_mat_t));
                ct_check_guard(what, (char *)rbuf + bytes, iter);
            }
        }
        CT_FREE(form, req);
    }
    free(sbuf), free(rbuf), free(ref), free(tmp);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    ct_mat_setup();
    static const DFC_Datatype types[] = {DFC_INT,     DFC_FLOAT,         DFC_DOUBLE,   DFC_UINT8_T,
                                         DFC_INT64_T, DFC_UNSIGNED_CHAR, DFC_BFLOAT16, DFC_FLOAT16};
    static const int counts[] = {0, 1, 7, 1000};
    int c = 0;
    /* Every (type, op, count), each at a root that moves round the communicator. */
    for (int ti = 0; ti < (int)(sizeof types / sizeof *types); ti++)
        for (int oi = 0; oi < CT_NOPS; oi++) {
            const ct_type_t *t = ct_type_of(types[ti]);
            if (!ct_op_ok(&ct_ops[oi], t)) continue;
            for (int ci = 0; ci < (int)(sizeof counts / sizeof *counts); ci++, c++)
                test_reduce(t, ct_ops[oi].op, counts[ci], c % ct_size, 0, c % 3 == 0);
        }
    /* Every root, with a plain case, in place, and the non-commutative op. */
    for (int root = 0; root < ct_size; root++) {
        test_reduce(ct_type_of(DFC_INT), DFC_SUM, 1000, root, 0, 1);
        test_reduce(ct_type_of(DFC_DOUBLE), DFC_MAX, 7, root, 1, 0);
        test_reduce(ct_type_of(DFC_BFLOAT16), DFC_SUM, 1000, root, 1, 0);
        test_matmul(7, root, root % 2);
    }
    /* Long vectors. */
    test_reduce(ct_type_of(DFC_FLOAT), DFC_SUM, 100000, ct_size - 1, 0, 0);
    test_reduce(ct_type_of(DFC_INT64_T), DFC_BXOR, 100000, 0, 1, 0);
    test_matmul(1000, ct_size / 2, 0);
    test_matmul(0, 0, 1);

    ct_mat_teardown();
    DFCT_OK(DFC_Comm_free(&comm));
    return dfct_finalize();
}
