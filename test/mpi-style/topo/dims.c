/*
 * dims - Dims_create: MPICH's outputs for a table of cases (zero entries filled with the
 * most balanced factorization, non-increasing; given entries kept), then, for every nnodes
 * up to 300 and 1 to 4 free dimensions, the result against a brute-force search of every
 * factorization (product nnodes, non-increasing, least largest-minus-smallest), and the
 * error cases. One process suffices; every rank runs it.
 */
#include "../dfctest.h"

typedef struct {
    int nnodes, ndims, in[4], out[4];
} dims_case_t;

static const dims_case_t cases[] = {
    {6, 2, {0, 0}, {3, 2}},
    {16, 2, {0, 0}, {4, 4}},
    {16, 3, {0, 0, 0}, {4, 2, 2}},
    {16, 4, {0, 0, 0, 0}, {2, 2, 2, 2}},
    {12, 2, {0, 0}, {4, 3}},
    {12, 3, {0, 0, 0}, {3, 2, 2}},
    {24, 3, {0, 0, 0}, {4, 3, 2}},
    {100, 3, {0, 0, 0}, {5, 5, 4}},
    {7, 2, {0, 0}, {7, 1}},
    {1, 3, {0, 0, 0}, {1, 1, 1}},
    {36, 2, {0, 0}, {6, 6}},
    {49, 2, {0, 0}, {7, 7}},
    {64, 3, {0, 0, 0}, {4, 4, 4}},
    {60, 3, {0, 0, 0}, {5, 4, 3}},
    {30, 3, {0, 0, 0}, {5, 3, 2}},
    {8, 2, {0, 0}, {4, 2}},
    {27, 3, {0, 0, 0}, {3, 3, 3}},
    {1024, 2, {0, 0}, {32, 32}},
    {210, 2, {0, 0}, {15, 14}},
    {210, 3, {0, 0, 0}, {7, 6, 5}},
    {128, 3, {0, 0, 0}, {8, 4, 4}},
    {24, 3, {0, 3, 0}, {4, 3, 2}},
    {16, 3, {2, 0, 0}, {2, 4, 2}},
    {8, 2, {2, 2}, {2, 2}}, /* all given: kept (MPICH) */
    {9, 1, {0}, {9}},
    {5, 3, {0, 1, 0}, {5, 1, 1}},
    {12, 2, {0, 12}, {1, 12}},
    {32, 2, {0, 0}, {8, 4}},
};

/* Brute force: the least balance of a non-increasing factorization of n into k factors
 * below or at `max` (balance = first chosen - last). */
static int best_balance(int n, int k, int max, int first)
{
    if (k == 1) return n <= max ? (first ? first : n) - n : -1;
    int best = -1;
    for (int f = max; f >= 1; f--) {
        if (n % f) continue;
        int b = best_balance(n / f, k - 1, f, first ? first : f);
        if (b >= 0 && (best < 0 || b < best)) best = b;
    }
    return best;
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    for (unsigned c = 0; c < sizeof cases / sizeof *cases; c++) {
        const dims_case_t *t = &cases[c];
        int d[4];
        for (int i = 0; i < 4; i++) d[i] = t->in[i];
        DFCT_OK(DFC_Dims_create(t->nnodes, t->ndims, d));
        for (int i = 0; i < t->ndims; i++)
            DFCT_CHECK(d[i] == t->out[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d",
                       t->nnodes, t->ndims, i, d[i], t->out[i]);
    }
    for (int n = 1; n <= 300; n++)
        for (int k = 1; k <= 4; k++) {
            int d[4] = {0, 0, 0, 0}, prod = 1;
            DFCT_OK(DFC_Dims_create(n, k, d));
            for (int i = 0; i < k; i++) {
                prod *= d[i];
                DFCT_CHECK(i == 0 || d[i] <= d[i - 1], "Dims_create(%d, %d) not non-increasing", n,
                           k);
            }
            DFCT_CHECK(prod == n, "Dims_create(%d, %d): product %d", n, k, prod);
            int b = best_balance(n, k, n, 0);
            DFCT_CHECK(d[0] - d[k - 1] == b, "Dims_create(%d, %d): balance %d, best %d", n, k,
                       d[0] - d[k - 1], b);
        }
    int d2[2] = {3, 0}, dn[2] = {-1, 0}, d0[1] = {0};
    DFCT_FAILS(DFC_Dims_create(10, 2, d2), DFC_ERR_DIMS, "dims");
    DFCT_FAILS(DFC_Dims_create(10, 2, dn), DFC_ERR_DIMS, "dims[0]");
    DFCT_FAILS(DFC_Dims_create(-4, 1, d0), DFC_ERR_ARG, "nnodes");
    DFCT_FAILS(DFC_Dims_create(4, -1, d0), DFC_ERR_ARG, "ndims");
    DFCT_FAILS(DFC_Dims_create(4, 2, NULL), DFC_ERR_ARG, "dims");
    DFCT_OK(DFC_Dims_create(1, 0, NULL)); /* zero dimensions: nothing to do */
    return dfct_finalize();
}
