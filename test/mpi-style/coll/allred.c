/*
 * allred - DFC_Allreduce, DFC_Iallreduce and DFC_Allreduce_init (+ Start, several times with
 * new inputs) on every predefined type the issue names (int, long long, unsigned char,
 * float, double, int8..uint64, bfloat16, float16) with every op defined on it, at counts
 * 0, 1, 7 and 1000 (100000 for a selection), with DFC_IN_PLACE, and with a non-commutative
 * user op (2x2 matrix products) whose result shows whether ranks were combined in order.
 *
 * Each rank computes the serial reference from every rank's deterministic input; the
 * receive buffer is poisoned before each call and checked element by element (as bit
 * patterns: inputs are small integers, so every result is exact in every type), and the
 * send buffer must be left unchanged. Run it with DFC_ALLREDUCE_ALGORITHM=<name> to test
 * one algorithm (an algorithm unusable for a call falls back to another).
 * -quick: for the per-algorithm runs, one type of each element size with SUM and BOR
 * instead of every (type, op) pair, and fewer long vectors and in-place cases.
 * -world: every case on DFC_COMM_WORLD instead of a duplicate (on one node, allreduces of
 * up to 1 KiB there go through the shm collective slots: allreduce_shm_slots.c).
 */
#include "colltest.h"

static DFC_Comm comm;
static double t_phase;
/* With DFCT_VERBOSE set, rank 0 reports how long each phase took (not for the runner). */
static void phase_done(const char *name)
{
    double t = DFC_Wtime();
    if (getenv("DFCT_VERBOSE") && ct_rank == 0)
        fprintf(stderr, "allred: %-20s %.2f s\n", name, t - t_phase);
    t_phase = t;
}

/* One (type, op, count) case in all three forms. */
static void test_allreduce(const ct_type_t *t, DFC_Op op, int count, int in_place)
{
    size_t bytes = (size_t)count * t->size;
    char *sbuf = ct_malloc(bytes), *rbuf = ct_malloc(bytes + CT_GUARD);
    char *ref = ct_malloc(bytes), *tmp = ct_malloc(bytes);
    char what[160];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "allreduce %s %s count %d%s %s start %d", t->name,
                     ct_op_name(op), count, in_place ? " in place" : "", ct_form_name[form], k);
            ct_poison(rbuf, bytes + CT_GUARD, iter);
            if (in_place) ct_fill(t, op, rbuf, count, ct_rank, iter);
            else ct_fill(t, op, sbuf, count, ct_rank, iter);
            const void *s = in_place ? DFC_IN_PLACE : sbuf;
            CT_RUN(form, k, req, DFC_Allreduce(s, rbuf, count, t->dt, op, comm),
                   DFC_Iallreduce(s, rbuf, count, t->dt, op, comm, &req),
                   DFC_Allreduce_init(s, rbuf, count, t->dt, op, comm, DFC_INFO_NULL, &req));
            ct_ref_range(t, op, ref, tmp, count, 0, ct_size, iter);
            ct_compare(what, rbuf, ref, count, t->size);
            ct_check_guard(what, rbuf + bytes, iter);
            if (!in_place) {
                ct_fill(t, op, tmp, count, ct_rank, iter);
                DFCT_CHECK(!memcmp(tmp, sbuf, bytes), "%s: the send buffer was modified", what);
            }
        }
        CT_FREE(form, req);
    }
    free(sbuf), free(rbuf), free(ref), free(tmp);
}

/* The non-commutative op: the result must be x_0 * x_1 * ... * x_{n-1}. */
static void test_matmul(int count, int in_place)
{
    size_t bytes = (size_t)count * sizeof(ct_mat_t);
    ct_mat_t *sbuf = ct_malloc(bytes), *rbuf = ct_malloc(bytes + CT_GUARD);
    ct_mat_t *ref = ct_malloc(bytes), *tmp = ct_malloc(bytes);
    char what[128];
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        for (int k = 0; k < CT_NRUNS(form); k++) {
            unsigned iter = ct_iter++;
            snprintf(what, sizeof what, "allreduce matmul (non-commutative) count %d%s %s start %d",
                     count, in_place ? " in place" : "", ct_form_name[form], k);
            ct_poison(rbuf, bytes + CT_GUARD, iter);
            ct_mat_fill(in_place ? rbuf : sbuf, count, ct_rank, iter);
            const void *s = in_place ? DFC_IN_PLACE : (const void *)sbuf;
            CT_RUN(form, k, req, DFC_Allreduce(s, rbuf, count, ct_mat_type, ct_matmul_op, comm),
                   DFC_Iallreduce(s, rbuf, count, ct_mat_type, ct_matmul_op, comm, &req),
                   DFC_Allreduce_init(s, rbuf, count, ct_mat_type, ct_matmul_op, comm,
                                      DFC_INFO_NULL, &req));
            ct_mat_ref_range(ref, tmp, count, 0, ct_size, iter);
            ct_compare(what, rbuf, ref, count, sizeof(ct_mat_t));
            ct_check_guard(what, (char *)rbuf + bytes, iter);
        }
        CT_FREE(form, req);
    }
    free(sbuf), free(rbuf), free(ref), free(tmp);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    int world = ct_flag(argc, argv, "world");
    if (world) comm = DFC_COMM_WORLD;
    else DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    ct_mat_setup();
    int quick = ct_flag(argc, argv, "quick");
    t_phase = DFC_Wtime();
    static const int counts[] = {0, 1, 7, 1000};

    /* Every type with every op defined on it (-quick: a selection). */
    for (int ti = 0; ti < CT_NTYPES; ti++)
        for (int oi = 0; oi < CT_NOPS; oi++) {
            if (!ct_op_ok(&ct_ops[oi], &ct_types[ti])) continue;
            DFC_Datatype dt = ct_types[ti].dt;
            DFC_Op op = ct_ops[oi].op;
            /* -quick: one type of each element size (1, 2, 4, 8 bytes), SUM and BOR */
            if (quick &&
                ((dt != DFC_UINT8_T && dt != DFC_FLOAT16 && dt != DFC_INT && dt != DFC_DOUBLE) ||
                 (op != DFC_SUM && op != DFC_BOR)))
                continue;
            for (int ci = 0; ci < (int)(sizeof counts / sizeof *counts); ci++)
                test_allreduce(&ct_types[ti], ct_ops[oi].op, counts[ci], 0);
        }

    phase_done("types x ops");
    /* Large counts: a selection of (type, op), so that every algorithm sees long vectors. */
    static const struct {
        DFC_Datatype dt;
        DFC_Op op;
    } big[] = {
        {DFC_INT, DFC_SUM},      {DFC_FLOAT, DFC_SUM},    {DFC_DOUBLE, DFC_MAX},
        {DFC_BFLOAT16, DFC_SUM}, {DFC_FLOAT16, DFC_PROD}, {DFC_UINT8_T, DFC_BXOR},
        {DFC_INT64_T, DFC_MIN},
    };
    for (int i = 0; i < (int)(sizeof big / sizeof *big); i++)
        if (!quick || big[i].dt == DFC_INT)
            test_allreduce(ct_type_of(big[i].dt), big[i].op, 100000, 0);

    phase_done("large counts");
    /* DFC_IN_PLACE. */
    static const struct {
        DFC_Datatype dt;
        DFC_Op op;
    } inpl[] = {
        {DFC_INT, DFC_SUM},       {DFC_DOUBLE, DFC_PROD}, {DFC_BFLOAT16, DFC_MAX},
        {DFC_UINT64_T, DFC_BXOR}, {DFC_FLOAT16, DFC_SUM}, {DFC_INT8_T, DFC_LAND},
    };
    static const int inpl_counts[] = {0, 1, 7, 1000, 100000};
    for (int i = 0; i < (int)(sizeof inpl / sizeof *inpl); i++)
        for (int ci = 0; ci < (int)(sizeof inpl_counts / sizeof *inpl_counts); ci++)
            if ((inpl_counts[ci] < 100000 || i < 2) && (!quick || (i < 2 && ci >= 2)))
                test_allreduce(ct_type_of(inpl[i].dt), inpl[i].op, inpl_counts[ci], 1);

    phase_done("in place");
    /* The non-commutative op. */
    static const int mcounts[] = {0, 1, 7, 1000, 20000};
    for (int ci = 0; ci < (int)(sizeof mcounts / sizeof *mcounts); ci++) {
        if (quick && mcounts[ci] != 7 && mcounts[ci] != 1000) continue;
        test_matmul(mcounts[ci], 0);
        test_matmul(mcounts[ci], 1);
    }

    phase_done("non-commutative");
    /* The same on DFC_COMM_WORLD itself, once. */
    DFC_Comm dup = comm;
    comm = DFC_COMM_WORLD;
    test_allreduce(ct_type_of(DFC_INT), DFC_SUM, 1000, 0);
    comm = dup;

    ct_mat_teardown();
    if (!world) DFCT_OK(DFC_Comm_free(&comm));
    return dfct_finalize();
}
