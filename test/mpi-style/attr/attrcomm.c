/*
 * attrcomm.c - communicator attributes (MPI-4.1 7.7): keyvals, set/get/delete, the copy
 * callbacks on Comm_dup (in the order set, with their flag honoured), the delete callbacks
 * on set-over, delete, Comm_free (last set first) and DFC_Finalize on DFC_COMM_SELF (checked
 * after DFC_Finalize returns), a failing copy callback, the predefined callbacks and keys,
 * and bad arguments.
 */
#include "../dfctest.h"

#define NK 4
static int keys[NK];
static int log_ops[64], nlog; /* +k+1: copy of key index k; -(k+1): delete of key index k */
static int copy_refuse = -1;  /* key index whose copy callback fails */

static int key_index(int keyval)
{
    for (int i = 0; i < NK; i++)
        if (keys[i] == keyval) return i;
    return -100;
}

static int copy_fn(DFC_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm;
    int k = key_index(keyval);
    if (nlog < 64) log_ops[nlog++] = k + 1;
    if (extra != (void *)&keys[0]) return DFC_ERR_OTHER;
    if (k == copy_refuse) return DFC_ERR_OTHER;
    *(void **)out = (char *)in + 1000; /* a value the test recognizes as copied */
    *flag = k != 2;                    /* key 2 is not copied */
    return DFC_SUCCESS;
}

static int delete_fn(DFC_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)val, (void)extra;
    if (nlog < 64) log_ops[nlog++] = -(key_index(keyval) + 1);
    return DFC_SUCCESS;
}

static int refuse = 1;
static int refuse_delete(DFC_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    return refuse ? DFC_ERR_OTHER : DFC_SUCCESS;
}

/* At DFC_Finalize: SELF's attributes, last set first, before DFC is torn down. */
static int self_order[3], nself;
static int self_delete(DFC_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval, (void)extra;
    int fin = 1, size = 0;
    DFC_Finalized(&fin);
    DFC_Comm_size(DFC_COMM_WORLD, &size); /* DFC still works */
    if (nself < 3)
        self_order[nself++] = (int)(intptr_t)val * (comm == DFC_COMM_SELF) * (fin == 0) *
                              (size > 0);
    return DFC_SUCCESS;
}

static void check_log(const int *want, int n, const char *what)
{
    DFCT_CHECK(nlog == n, "%s: %d callbacks, expected %d", what, nlog, n);
    for (int i = 0; i < n && i < nlog; i++)
        DFCT_CHECK(log_ops[i] == want[i], "%s: callback %d was %d, expected %d", what, i,
                   log_ops[i], want[i]);
    nlog = 0;
}

static void test_set_get_dup_free(void)
{
    int vals[NK] = {11, 22, 33, 44}, flag = -1;
    void *v = NULL;
    for (int i = 0; i < NK; i++)
        DFCT_OK(DFC_Comm_create_keyval(copy_fn, delete_fn, &keys[i], &keys[0]));
    DFC_Comm comm, dup;
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    DFCT_OK(DFC_Comm_get_attr(comm, keys[0], &v, &flag));
    DFCT_CHECK(flag == 0, "unset attribute: flag %d", flag);
    /* Set in the order 3, 0, 2, 1; copies then go 3, 0, 2, 1, deletes 1, 2, 0, 3. */
    int order[NK] = {3, 0, 2, 1};
    for (int i = 0; i < NK; i++)
        DFCT_OK(DFC_Comm_set_attr(comm, keys[order[i]], (void *)(intptr_t)vals[order[i]]));
    check_log(NULL, 0, "set");
    for (int i = 0; i < NK; i++) {
        flag = 0;
        DFCT_OK(DFC_Comm_get_attr(comm, keys[i], &v, &flag));
        DFCT_CHECK(flag == 1 && (intptr_t)v == vals[i], "get key %d: flag %d value %ld", i, flag,
                   (long)(intptr_t)v);
    }
    /* Setting again deletes the old value first. */
    DFCT_OK(DFC_Comm_set_attr(comm, keys[0], (void *)(intptr_t)vals[0]));
    check_log((int[]){-1}, 1, "set over");

    DFCT_OK(DFC_Comm_dup(comm, &dup));
    check_log((int[]){4, 1, 3, 2}, 4, "dup");
    for (int i = 0; i < NK; i++) {
        flag = -1;
        DFCT_OK(DFC_Comm_get_attr(dup, keys[i], &v, &flag));
        if (i == 2) DFCT_CHECK(flag == 0, "key 2 copied though its callback said no");
        else
            DFCT_CHECK(flag == 1 && (intptr_t)v == vals[i] + 1000, "dup key %d: flag %d value %ld",
                       i, flag, (long)(intptr_t)v);
    }
    DFCT_OK(DFC_Comm_free(&dup));
    check_log((int[]){-2, -1, -4}, 3, "free of dup"); /* set 3, 0, 1: deleted 1, 0, 3 */

    DFCT_OK(DFC_Comm_delete_attr(comm, keys[2]));
    check_log((int[]){-3}, 1, "delete");
    DFCT_OK(DFC_Comm_delete_attr(comm, keys[2])); /* not set: nothing happens (MPICH) */
    check_log(NULL, 0, "delete of an unset attribute");
    DFCT_OK(DFC_Comm_get_attr(comm, keys[2], &v, &flag));
    DFCT_CHECK(flag == 0, "deleted attribute still there");

    /* A copy callback that fails makes the dup fail, with its code, and no communicator. */
    DFCT_OK(DFC_Comm_set_errhandler(comm, DFC_ERRORS_RETURN));
    copy_refuse = 1;
    dup = DFC_COMM_WORLD;
    int rc = DFC_Comm_dup(comm, &dup);
    DFCT_CHECK(rc == DFC_ERR_OTHER, "dup with a failing copy callback returned %d", rc);
    DFCT_CHECK(dup == DFC_COMM_NULL, "failed dup left newcomm 0x%x", (unsigned)dup);
    /* 3 and 0 copied, 1 refused; the copies deleted again, last first. */
    check_log((int[]){4, 1, 2, -1, -4}, 5, "failed dup");
    copy_refuse = -1;

    /* A freed keyval keeps working for the attributes already set. */
    int k3 = keys[3];
    DFCT_OK(DFC_Comm_free_keyval(&keys[3]));
    DFCT_CHECK(keys[3] == DFC_KEYVAL_INVALID, "free_keyval left 0x%x", (unsigned)keys[3]);
    keys[3] = k3; /* for key_index in the callbacks */
    DFCT_OK(DFC_Comm_free(&comm));
    check_log((int[]){-2, -1, -4}, 3, "free");
    for (int i = 0; i < 3; i++) DFCT_OK(DFC_Comm_free_keyval(&keys[i]));

    /* A delete callback that refuses makes Comm_free fail and leaves comm alive. */
    int kr;
    DFCT_OK(DFC_Comm_create_keyval(DFC_COMM_NULL_COPY_FN, refuse_delete, &kr, NULL));
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    DFCT_OK(DFC_Comm_set_errhandler(comm, DFC_ERRORS_RETURN));
    DFCT_OK(DFC_Comm_set_attr(comm, kr, &kr));
    DFC_Comm keep = comm;
    rc = DFC_Comm_free(&comm);
    DFCT_CHECK(rc == DFC_ERR_OTHER && comm == keep, "free with a refusing callback: %d", rc);
    DFCT_CHECK(DFC_Comm_delete_attr(comm, kr) == DFC_ERR_OTHER, "delete_attr not refused");
    DFCT_OK(DFC_Comm_free_keyval(&kr));
    DFCT_FAILS(DFC_Comm_set_attr(comm, kr, NULL), DFC_ERR_KEYVAL, "DFC_KEYVAL_INVALID");
    refuse = 0; /* now the attribute (of a freed key) lets comm go */
    DFCT_OK(DFC_Comm_free(&comm));
    DFCT_CHECK(comm == DFC_COMM_NULL, "Comm_free left 0x%x", (unsigned)comm);
}

static void test_predefined_fns(void)
{
    int kn, kd;
    int a = 5, flag;
    void *v;
    DFC_Comm comm, dup;
    DFCT_OK(DFC_Comm_create_keyval(DFC_COMM_NULL_COPY_FN, DFC_COMM_NULL_DELETE_FN, &kn, NULL));
    DFCT_OK(DFC_Comm_create_keyval(DFC_COMM_DUP_FN, DFC_COMM_NULL_DELETE_FN, &kd, NULL));
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    DFCT_OK(DFC_Comm_set_attr(comm, kn, &a));
    DFCT_OK(DFC_Comm_set_attr(comm, kd, &a));
    DFCT_OK(DFC_Comm_dup_with_info(comm, DFC_INFO_NULL, &dup));
    DFCT_OK(DFC_Comm_get_attr(dup, kn, &v, &flag));
    DFCT_CHECK(flag == 0, "DFC_COMM_NULL_COPY_FN copied");
    DFCT_OK(DFC_Comm_get_attr(dup, kd, &v, &flag));
    DFCT_CHECK(flag == 1 && v == &a, "DFC_COMM_DUP_FN: flag %d, %p for %p", flag, v, (void *)&a);
    /* Split and create do not copy attributes. */
    DFC_Comm split;
    DFCT_OK(DFC_Comm_split(comm, 0, 0, &split));
    DFCT_OK(DFC_Comm_get_attr(split, kd, &v, &flag));
    DFCT_CHECK(flag == 0, "split copied an attribute");
    DFCT_OK(DFC_Comm_free(&split));
    DFCT_OK(DFC_Comm_free(&dup));
    DFCT_OK(DFC_Comm_free(&comm));
    DFCT_OK(DFC_Comm_free_keyval(&kn));
    DFCT_OK(DFC_Comm_free_keyval(&kd));
}

static void test_predefined_keys(void)
{
    int *p = NULL, flag = 0, size;
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Comm comms[2] = {DFC_COMM_WORLD, DFC_COMM_SELF};
    for (int i = 0; i < 2; i++) {
        DFCT_OK(DFC_Comm_get_attr(comms[i], DFC_TAG_UB, &p, &flag));
        DFCT_CHECK(flag && p && *p == DFC_TAG_UB_VALUE && *p >= 32767, "TAG_UB");
        DFCT_OK(DFC_Comm_get_attr(comms[i], DFC_HOST, &p, &flag));
        DFCT_CHECK(flag && *p == DFC_PROC_NULL, "HOST: %d", flag ? *p : -99);
        DFCT_OK(DFC_Comm_get_attr(comms[i], DFC_IO, &p, &flag));
        DFCT_CHECK(flag && *p == DFC_ANY_SOURCE, "IO: %d", flag ? *p : -99);
        DFCT_OK(DFC_Comm_get_attr(comms[i], DFC_WTIME_IS_GLOBAL, &p, &flag));
        DFCT_CHECK(flag && (*p == 0 || *p == 1), "WTIME_IS_GLOBAL");
        DFCT_OK(DFC_Comm_get_attr(comms[i], DFC_UNIVERSE_SIZE, &p, &flag));
        /* The launcher's count (mpirun --oversubscribe: its slots, fewer than the ranks). */
        DFCT_CHECK(flag && *p >= 1, "UNIVERSE_SIZE %d", flag ? *p : -1);
        DFCT_OK(DFC_Comm_get_attr(comms[i], DFC_APPNUM, &p, &flag));
        DFCT_CHECK(!flag || *p == 0, "APPNUM %d for a single-program launch", *p);
        DFCT_OK(DFC_Comm_get_attr(comms[i], DFC_LASTUSEDCODE, &p, &flag));
        DFCT_CHECK(flag && *p >= DFC_ERR_LASTCODE, "LASTUSEDCODE");
    }
    DFCT_FAILS(DFC_Comm_set_attr(DFC_COMM_WORLD, DFC_TAG_UB, NULL), DFC_ERR_KEYVAL, "predefined");
    DFCT_FAILS(DFC_Comm_delete_attr(DFC_COMM_WORLD, DFC_HOST), DFC_ERR_KEYVAL, "predefined");
    int k = DFC_TAG_UB;
    DFCT_FAILS(DFC_Comm_free_keyval(&k), DFC_ERR_KEYVAL, "DFC_Comm_free_keyval");
}

static void test_bad_args(void)
{
    int k, tk, flag;
    void *v;
    DFCT_FAILS(DFC_Comm_create_keyval(NULL, NULL, NULL, NULL), DFC_ERR_ARG,
               "DFC_Comm_create_keyval: invalid argument comm_keyval: NULL");
    DFCT_OK(DFC_Comm_create_keyval(NULL, NULL, &k, NULL)); /* NULL callbacks: none run */
    DFCT_FAILS(DFC_Comm_set_attr(DFC_COMM_NULL, k, NULL), DFC_ERR_COMM,
               "DFC_Comm_set_attr: invalid argument comm");
    DFCT_FAILS(DFC_Comm_set_attr(DFC_COMM_WORLD, 12345, NULL), DFC_ERR_KEYVAL,
               "DFC_Comm_set_attr: invalid argument comm_keyval: 0x3039 is not a valid keyval");
    DFCT_FAILS(DFC_Comm_get_attr(DFC_COMM_WORLD, DFC_KEYVAL_INVALID, &v, &flag), DFC_ERR_KEYVAL,
               "DFC_KEYVAL_INVALID");
    DFCT_FAILS(DFC_Comm_get_attr(DFC_COMM_WORLD, k, NULL, &flag), DFC_ERR_ARG,
               "invalid argument attribute_val");
    DFCT_FAILS(DFC_Comm_get_attr(DFC_COMM_WORLD, k, &v, NULL), DFC_ERR_ARG,
               "invalid argument flag");
    DFCT_OK(DFC_Type_create_keyval(NULL, NULL, &tk, NULL));
    DFCT_FAILS(DFC_Comm_set_attr(DFC_COMM_WORLD, tk, NULL), DFC_ERR_KEYVAL,
               "is a datatype keyval, not a communicator keyval");
    DFCT_FAILS(DFC_Comm_free_keyval(&tk), DFC_ERR_KEYVAL, "not a communicator keyval");
    DFCT_OK(DFC_Type_free_keyval(&tk));
    DFCT_OK(DFC_Comm_set_attr(DFC_COMM_WORLD, k, &k));
    DFCT_OK(DFC_Comm_get_attr(DFC_COMM_WORLD, k, &v, &flag));
    DFCT_CHECK(flag && v == &k, "NULL-callback attribute");
    DFCT_OK(DFC_Comm_delete_attr(DFC_COMM_WORLD, k));
    DFCT_OK(DFC_Comm_free_keyval(&k));
    DFCT_FAILS(DFC_Comm_free_keyval(&k), DFC_ERR_KEYVAL, "DFC_KEYVAL_INVALID");
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    test_set_get_dup_free();
    test_predefined_fns();
    test_predefined_keys();
    test_bad_args();
    int ks, ks2, ks3;
    DFCT_OK(DFC_Comm_create_keyval(NULL, self_delete, &ks, NULL));
    /* Set three times: the set-overs delete values 1 and 2; 3 stays, first in the list. */
    for (int i = 1; i <= 3; i++) DFCT_OK(DFC_Comm_set_attr(DFC_COMM_SELF, ks, (void *)(intptr_t)i));
    DFCT_CHECK(nself == 2 && self_order[0] == 1 && self_order[1] == 2, "set-over deletes");
    DFCT_OK(DFC_Comm_create_keyval(NULL, self_delete, &ks2, NULL));
    DFCT_OK(DFC_Comm_create_keyval(NULL, self_delete, &ks3, NULL));
    DFCT_OK(DFC_Comm_set_attr(DFC_COMM_SELF, ks2, (void *)(intptr_t)20));
    DFCT_OK(DFC_Comm_set_attr(DFC_COMM_SELF, ks3, (void *)(intptr_t)30));
    DFCT_OK(DFC_Comm_free_keyval(&ks3)); /* still deleted at finalize */
    nself = 0;
    int rc = dfct_finalize();
    /* ks was set first (value 3 after set-overs), then ks2, then ks3: deleted 30, 20, 3. */
    if (nself != 3 || self_order[0] != 30 || self_order[1] != 20 || self_order[2] != 3) {
        fprintf(stderr,
                "[rank %d] DFC_COMM_SELF attributes at DFC_Finalize: %d deleted (%d %d %d),"
                " expected 30 20 3 before DFC was torn down\n",
                dfct_rank, nself, self_order[0], self_order[1], self_order[2]);
        return 1;
    }
    return rc;
}
