/*
 * intercomm - intercommunicators (MPI-4.1 7.6, 6.2.2) on uneven, interleaved groups: world
 * ranks with rank % 3 == 0 form group A, the others group B (at 5 ranks: {0,3} and
 * {1,2,4}). Checked element by element with poisoned outputs: Comm_test_inter, sizes and
 * remote groups; point-to-point between every pair across the groups (eager and
 * rendezvous, named and DFC_ANY_SOURCE senders); Barrier; Bcast from a root in each group
 * (DFC_ROOT / DFC_PROC_NULL there), with a contiguous and a vector type; Allreduce (each
 * group gets the other's sum); Allgather (each gets the other group's blocks, in rank
 * order); Comm_dup (its traffic apart from the original's) and Comm_free; Intercomm_merge
 * with either group high. Bad input: intracommunicators where an intercommunicator is
 * needed and the converse, bad leaders, overlapping groups, out-of-range ranks, and
 * collectives that do not take an intercommunicator (Exscan, Exscan_init).
 */
#include "intertest.h"

static int wrank, wsize, in_a, lrank, lsize, rsize;
static int aw[64], bw[64], na, nb; /* world ranks of the groups, in group order */

static int val(int w, int d, int k) { return w * 100000 + d * 1000 + k % 1000; }
static const int *remote_world(void) { return in_a ? bw : aw; }

static void check_basics(DFC_Comm ic)
{
    int flag = -1, n = -1, res = -1;
    DFC_Group rg, wg, lg;
    DFCT_OK(DFC_Comm_test_inter(DFC_COMM_WORLD, &flag));
    DFCT_CHECK(flag == 0, "Comm_test_inter on WORLD: %d", flag);
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &wg));
    intert_check_shape(ic, wg, lsize, lrank, rsize, remote_world());
    DFCT_OK(DFC_Comm_remote_group(ic, &rg));
    DFCT_OK(DFC_Comm_group(ic, &lg));
    DFCT_OK(DFC_Group_size(lg, &n));
    DFCT_CHECK(n == lsize, "local group size %d", n);
    DFCT_OK(DFC_Group_compare(lg, rg, &res));
    DFCT_CHECK(res == DFC_UNEQUAL, "local and remote groups compare %d", res);
    DFCT_OK(DFC_Group_free(&rg));
    DFCT_OK(DFC_Group_free(&lg));
    DFCT_OK(DFC_Group_free(&wg));
}

/* Every process sends n ints to every remote rank and receives from each, by name and by
 * DFC_ANY_SOURCE. */
static void check_p2p(DFC_Comm ic, int n, int tag)
{
    int *s = malloc((size_t)rsize * n * 4 + 4), *r = malloc((size_t)rsize * n * 4 + 4);
    DFC_Request req[128];
    DFC_Status st[128];
    for (int any = 0; any < 2; any++) {
        for (int j = 0; j < rsize; j++)
            for (int k = 0; k < n; k++) s[j * n + k] = val(wrank, j + any, k), r[j * n + k] = -1;
        for (int j = 0; j < rsize; j++)
            DFCT_OK(DFC_Irecv(any ? r + j * n : r + j * n, n, DFC_INT, any ? DFC_ANY_SOURCE : j,
                              tag + any, ic, &req[j]));
        for (int j = 0; j < rsize; j++)
            DFCT_OK(DFC_Isend(s + j * n, n, DFC_INT, j, tag + any, ic, &req[rsize + j]));
        DFCT_OK(DFC_Waitall(2 * rsize, req, st));
        int seen[64] = {0}, bad = 0;
        for (int j = 0; j < rsize; j++) {
            int src = st[j].DFC_SOURCE, c = -1;
            DFCT_OK(DFC_Get_count(&st[j], DFC_INT, &c));
            DFCT_CHECK(src >= 0 && src < rsize && (any || src == j) && c == n,
                       "n=%d any=%d: receive %d from %d count %d", n, any, j, src, c);
            if (src < 0 || src >= rsize) continue;
            seen[src]++;
            for (int k = 0; k < n; k++)
                if (r[j * n + k] != val(remote_world()[src], lrank + any, k) && bad++ < 3)
                    DFCT_CHECK(0, "n=%d any=%d from %d element %d: %d, expected %d", n, any, src, k,
                               r[j * n + k], val(remote_world()[src], lrank + any, k));
        }
        for (int j = 0; j < rsize; j++)
            DFCT_CHECK(seen[j] == 1, "remote %d seen %d times", j, seen[j]);
    }
    DFCT_FAILS(DFC_Send(s, 1, DFC_INT, rsize, 0, ic), DFC_ERR_RANK, "remote group");
    free(s), free(r);
}

/* Bcast from root `root` of group A (a_root) or B, n items of dt, each `per` ints `stride`
 * apart (items one extent, (per - 1) * stride + 1 ints, apart). */
static void check_bcast(DFC_Comm ic, int a_root, int root, int n, DFC_Datatype dt, int per,
                        int stride)
{
    int ext = (per - 1) * stride + 1, m = n * ext + 1, bad = 0;
    int *b = malloc((size_t)m * 4), *data = calloc((size_t)m, sizeof(int));
    int rootw = a_root ? aw[root] : bw[root];
    int is_root = wrank == rootw, in_root_group = in_a == a_root;
    for (int t = 0; t < n; t++)
        for (int e = 0; e < per; e++) data[t * ext + e * stride] = 1;
    for (int i = 0; i < m; i++) b[i] = is_root ? val(rootw, 7, i) : -1;
    int arg = in_root_group ? (is_root ? DFC_ROOT : DFC_PROC_NULL) : root;
    DFCT_OK(DFC_Bcast(b, n, dt, arg, ic));
    for (int i = 0; i < m; i++) {
        int want = is_root || (!in_root_group && data[i]) ? val(rootw, 7, i) : -1;
        if (b[i] != want && bad++ < 3)
            DFCT_CHECK(0, "Bcast root %d of %s, n=%d stride %d: int %d is %d, expected %d", root,
                       a_root ? "A" : "B", n, stride, i, b[i], want);
    }
    free(b), free(data);
}

static void check_allreduce(DFC_Comm ic, int n)
{
    int *s = calloc((size_t)n + 1, 4), *r = calloc((size_t)n + 1, 4), bad = 0;
    for (int k = 0; k < n; k++) s[k] = val(wrank, 3, k), r[k] = -1;
    DFCT_OK(DFC_Allreduce(s, r, n, DFC_INT, DFC_SUM, ic));
    for (int k = 0; k < n; k++) {
        int want = 0;
        for (int j = 0; j < rsize; j++) want += val(remote_world()[j], 3, k);
        if (r[k] != want && bad++ < 3)
            DFCT_CHECK(0, "Allreduce n=%d element %d: %d, expected %d", n, k, r[k], want);
    }
    free(s), free(r);
}

static void check_allgather(DFC_Comm ic, int n)
{
    int *s = malloc((size_t)n * 4 + 4), *r = malloc((size_t)(rsize * n + 1) * 4), bad = 0;
    for (int k = 0; k < n; k++) s[k] = val(wrank, 4, k);
    for (int k = 0; k <= rsize * n; k++) r[k] = -1;
    DFCT_OK(DFC_Allgather(s, n, DFC_INT, r, n, DFC_INT, ic));
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < n; k++)
            if (r[j * n + k] != val(remote_world()[j], 4, k) && bad++ < 3)
                DFCT_CHECK(0, "Allgather n=%d block %d element %d: %d, expected %d", n, j, k,
                           r[j * n + k], val(remote_world()[j], 4, k));
    DFCT_CHECK(r[rsize * n] == -1, "Allgather wrote past the blocks");
    free(s), free(r);
}

static void check_colls(DFC_Comm ic)
{
    DFC_Datatype vec;
    DFCT_OK(DFC_Type_vector(40, 1, 3, DFC_INT, &vec));
    DFCT_OK(DFC_Type_commit(&vec));
    DFCT_OK(DFC_Barrier(ic));
    int sizes[3] = {0, 5, 30000};
    for (int z = 0; z < 3; z++) {
        for (int r = 0; r < na; r++) check_bcast(ic, 1, r, sizes[z], DFC_INT, 1, 1);
        for (int r = 0; r < nb; r++) check_bcast(ic, 0, r, sizes[z], DFC_INT, 1, 1);
        check_allreduce(ic, sizes[z]);
        check_allgather(ic, sizes[z]);
    }
    /* A vector: 40 ints at stride 3 per item. */
    check_bcast(ic, 0, nb - 1, 2, vec, 40, 3);
    check_bcast(ic, 1, 0, 2, vec, 40, 3);
    DFCT_OK(DFC_Type_free(&vec));
    DFCT_OK(DFC_Barrier(ic));
}

static void check_dup_merge(DFC_Comm ic)
{
    DFC_Comm dup, merged;
    int flag = 0, n = -1, r = -1;
    DFCT_OK(DFC_Comm_dup(ic, &dup));
    DFCT_OK(DFC_Comm_test_inter(dup, &flag));
    DFCT_CHECK(flag == 1, "the dup of an intercommunicator is not one");
    /* The same tag on both, to every remote rank: each receive must get its own
     * communicator's message. */
    int sv[2][64], rv[2][64];
    DFC_Request q[256];
    DFC_Comm cs[2] = {ic, dup};
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < rsize; j++) {
            sv[k][j] = val(wrank, 8 + k, j), rv[k][j] = -1;
            DFCT_OK(DFC_Irecv(&rv[k][j], 1, DFC_INT, j, 5, cs[1 - k], &q[k * rsize + j]));
        }
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < rsize; j++)
            DFCT_OK(DFC_Isend(&sv[k][j], 1, DFC_INT, j, 5, cs[k], &q[(2 + k) * rsize + j]));
    DFCT_OK(DFC_Waitall(4 * rsize, q, DFC_STATUSES_IGNORE));
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < rsize; j++)
            DFCT_CHECK(rv[1 - k][j] == val(remote_world()[j], 8 + k, lrank),
                       "%s from %d: %d, expected %d", k ? "dup" : "original", j, rv[1 - k][j],
                       val(remote_world()[j], 8 + k, lrank));
    check_allreduce(dup, 7);
    DFCT_OK(DFC_Comm_free(&dup));
    DFCT_CHECK(dup == DFC_COMM_NULL, "Comm_free left the handle");
    for (int high_b = 0; high_b < 2; high_b++) {
        int high = in_a ? !high_b : high_b; /* high_b: group B goes last */
        DFCT_OK(DFC_Intercomm_merge(ic, high, &merged));
        DFCT_OK(DFC_Comm_test_inter(merged, &flag));
        DFCT_OK(DFC_Comm_size(merged, &n));
        DFCT_OK(DFC_Comm_rank(merged, &r));
        int first_a = high_b, want = (in_a == first_a) ? lrank : rsize + lrank;
        DFCT_CHECK(flag == 0 && n == wsize && r == want,
                   "merge (B %s): inter %d size %d rank %d, expected rank %d",
                   high_b ? "high" : "low", flag, n, r, want);
        int one = r, sum = -1;
        DFCT_OK(DFC_Allreduce(&one, &sum, 1, DFC_INT, DFC_SUM, merged));
        DFCT_CHECK(sum == wsize * (wsize - 1) / 2, "merged allreduce %d", sum);
        DFCT_OK(DFC_Comm_free(&merged));
    }
}

static void check_errors(DFC_Comm ic, DFC_Comm local)
{
    DFC_Comm bad = 5;
    int n, x = 1, y;
    DFC_Request req;
    DFCT_FAILS(DFC_Intercomm_merge(DFC_COMM_WORLD, 0, &bad), DFC_ERR_COMM,
               "where an intercommunicator is needed");
    DFCT_FAILS(DFC_Comm_remote_size(local, &n), DFC_ERR_COMM, "intracommunicator");
    DFCT_FAILS(DFC_Intercomm_create(ic, 0, DFC_COMM_WORLD, 0, 1, &bad), DFC_ERR_COMM, "local_comm");
    DFCT_FAILS(DFC_Intercomm_create(local, lsize, DFC_COMM_WORLD, 0, 1, &bad), DFC_ERR_RANK,
               "local_leader");
    /* Both leaders get a remote leader that does not exist: both groups fail, none waits. */
    DFCT_FAILS(DFC_Intercomm_create(local, 0, DFC_COMM_WORLD, wsize + 3, 1, &bad), DFC_ERR_RANK,
               "remote_leader");
    /* One group whose leader swaps with itself: the groups overlap. */
    DFCT_FAILS(DFC_Intercomm_create(DFC_COMM_WORLD, 0, DFC_COMM_WORLD, 0, 2, &bad), DFC_ERR_COMM,
               "overlap");
    DFCT_FAILS(DFC_Exscan(&x, &y, 1, DFC_INT, DFC_SUM, ic), DFC_ERR_COMM, "intercommunicator");
    DFCT_FAILS(DFC_Exscan_init(&x, &y, 1, DFC_INT, DFC_SUM, ic, DFC_INFO_NULL, &req), DFC_ERR_COMM,
               "intercommunicator");
    DFCT_FAILS(DFC_Comm_split(ic, 0, 0, &bad), DFC_ERR_COMM, "intercommunicator");
    int dims[1] = {lsize}, periods[1] = {0};
    DFCT_FAILS(DFC_Cart_create(ic, 1, dims, periods, 0, &bad), DFC_ERR_COMM, "comm_old");
    DFC_Win win;
    DFCT_FAILS(DFC_Win_create(&x, sizeof x, 1, DFC_INFO_NULL, ic, &win), DFC_ERR_COMM,
               "intercommunicator");
    DFCT_FAILS(DFC_Bcast(&x, 1, DFC_INT, rsize, ic), DFC_ERR_ROOT, "remote group");
    DFCT_FAILS(DFC_Allreduce(DFC_IN_PLACE, &y, 1, DFC_INT, DFC_SUM, ic), DFC_ERR_BUFFER,
               "DFC_IN_PLACE");
}

int main(int argc, char **argv)
{
    DFC_Comm local, ic;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &wrank);
    DFC_Comm_size(DFC_COMM_WORLD, &wsize);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    if (wsize < 2 || wsize > 64) return dfct_finalize(); /* two groups needed */
    for (int w = 0; w < wsize; w++) {
        if (w % 3 == 0) aw[na++] = w;
        else bw[nb++] = w;
    }
    in_a = wrank % 3 == 0;
    lsize = in_a ? na : nb;
    rsize = in_a ? nb : na;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, in_a, wrank, &local));
    DFCT_OK(DFC_Comm_rank(local, &lrank));
    /* Leaders: local rank 0 of each (world 0 and world 1). */
    DFCT_OK(DFC_Intercomm_create(local, 0, DFC_COMM_WORLD, in_a ? 1 : 0, 77, &ic));
    check_basics(ic);
    check_p2p(ic, 1, 10);
    check_p2p(ic, 20000, 20);
    check_colls(ic);
    check_dup_merge(ic);
    check_errors(ic, local);
    DFCT_OK(DFC_Comm_free(&ic));
    DFCT_OK(DFC_Comm_free(&local));
    return dfct_finalize();
}
