/*
 * winattr.c - window attributes and error handlers (MPI-4.1 7.7.3, 9.3.2): the predefined
 * DFC_WIN_BASE ... DFC_WIN_MODEL; a user keyval whose delete callback sees every value
 * replaced, deleted, or left on the window at Win_free (with the window's handle), a callback
 * error passed up; keyvals of the wrong kind and predefined keys refused. A user window error
 * handler called with the window and the error code by a failing call and by
 * Win_call_errhandler; communicator and window handlers not interchangeable.
 */
#include "rmatest.h"

#define N 6

static int deletes, last_deleted_win, refuse;
static void *last_deleted_val;

static int del_fn(DFC_Win win, int keyval, void *val, void *extra)
{
    (void)keyval;
    DFCT_CHECK(extra == &deletes, "delete callback: extra_state %p", extra);
    if (refuse) return DFC_ERR_OTHER;
    deletes++;
    last_deleted_win = win;
    last_deleted_val = val;
    return DFC_SUCCESS;
}

static void predefined(DFC_Win win, int *mem)
{
    void *base;
    DFC_Aint *size;
    int *unit, *flavor, *model, flag = 0;
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_BASE, &base, &flag));
    DFCT_CHECK(flag && base == mem, "DFC_WIN_BASE %p, expected %p", base, (void *)mem);
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_SIZE, &size, &flag));
    DFCT_CHECK(flag && *size == N * (DFC_Aint)sizeof(int), "DFC_WIN_SIZE %lld", (long long)*size);
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_DISP_UNIT, &unit, &flag));
    DFCT_CHECK(flag && *unit == (int)sizeof(int), "DFC_WIN_DISP_UNIT %d", *unit);
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_CREATE_FLAVOR, &flavor, &flag));
    int want = rmat_flavor_create ? DFC_WIN_FLAVOR_CREATE : DFC_WIN_FLAVOR_ALLOCATE;
    DFCT_CHECK(flag && *flavor == want, "DFC_WIN_CREATE_FLAVOR %d, expected %d", *flavor, want);
    DFCT_OK(DFC_Win_get_attr(win, DFC_WIN_MODEL, &model, &flag));
    DFCT_CHECK(flag && *model == DFC_WIN_UNIFIED, "DFC_WIN_MODEL %d", *model);
}

static void user_attrs(DFC_Win win, int kv)
{
    int a = 1, b = 2, flag = -1;
    void *got = NULL;
    DFCT_OK(DFC_Win_get_attr(win, kv, &got, &flag));
    DFCT_CHECK(flag == 0, "an unset attribute has flag %d", flag);
    DFCT_OK(DFC_Win_set_attr(win, kv, &a));
    DFCT_OK(DFC_Win_get_attr(win, kv, &got, &flag));
    DFCT_CHECK(flag == 1 && got == &a, "get after set: flag %d, %p", flag, got);
    DFCT_OK(DFC_Win_set_attr(win, kv, &b)); /* replaces: the old value is deleted */
    DFCT_CHECK(deletes == 1 && last_deleted_val == &a && last_deleted_win == win,
               "replace: %d deletes, last %p on 0x%x", deletes, last_deleted_val,
               (unsigned)last_deleted_win);
    DFCT_OK(DFC_Win_delete_attr(win, kv));
    DFCT_CHECK(deletes == 2 && last_deleted_val == &b, "delete: %d deletes", deletes);
    DFCT_OK(DFC_Win_get_attr(win, kv, &got, &flag));
    DFCT_CHECK(flag == 0, "after delete: flag %d", flag);
    /* A refusing callback's error comes back, and the attribute stays. */
    DFCT_OK(DFC_Win_set_attr(win, kv, &a));
    refuse = 1;
    DFCT_FAILS(DFC_Win_delete_attr(win, kv), DFC_ERR_OTHER, "");
    refuse = 0;
    DFCT_OK(DFC_Win_get_attr(win, kv, &got, &flag));
    DFCT_CHECK(flag == 1 && got == &a, "a refused delete dropped the attribute: flag %d", flag);
}

static void bad_keys(DFC_Win win)
{
    int ckv, x = 0;
    DFCT_OK(DFC_Comm_create_keyval(DFC_COMM_NULL_COPY_FN, DFC_COMM_NULL_DELETE_FN, &ckv, NULL));
    DFCT_FAILS(DFC_Win_set_attr(win, ckv, &x), DFC_ERR_KEYVAL,
               "DFC_Win_set_attr: invalid argument win_keyval: keyval");
    DFCT_FAILS(DFC_Win_set_attr(win, ckv, &x), DFC_ERR_KEYVAL,
               "is a communicator keyval, not a window keyval");
    DFCT_FAILS(DFC_Win_set_attr(win, DFC_WIN_BASE, &x), DFC_ERR_KEYVAL, "predefined");
    DFCT_FAILS(DFC_Win_delete_attr(win, DFC_WIN_SIZE), DFC_ERR_KEYVAL, "predefined");
    DFCT_FAILS(DFC_Win_free_keyval(&ckv), DFC_ERR_KEYVAL, "DFC_Win_free_keyval");
    DFCT_OK(DFC_Comm_free_keyval(&ckv));
    int none = DFC_KEYVAL_INVALID;
    DFCT_FAILS(DFC_Win_free_keyval(&none), DFC_ERR_KEYVAL, "DFC_KEYVAL_INVALID");
}

static int eh_calls, eh_code;
static DFC_Win eh_win;
static void win_eh(DFC_Win *win, int *code, ...)
{
    eh_calls++;
    eh_win = *win;
    eh_code = *code;
}
static void comm_eh(DFC_Comm *comm, int *code, ...) { (void)comm, (void)code; }

static void errhandlers(DFC_Win win)
{
    DFC_Errhandler weh, ceh, got;
    int one = 1, cls = -1;
    DFCT_OK(DFC_Win_create_errhandler(win_eh, &weh));
    DFCT_OK(DFC_Comm_create_errhandler(comm_eh, &ceh));
    DFCT_OK(DFC_Win_set_errhandler(win, weh));
    DFCT_OK(DFC_Win_get_errhandler(win, &got));
    DFCT_CHECK(got == weh, "get_errhandler 0x%x, set 0x%x", (unsigned)got, (unsigned)weh);
    DFCT_OK(DFC_Errhandler_free(&got));
    /* A failing call: the handler gets the window and the code, which the call returns. */
    DFCT_OK(DFC_Win_lock_all(0, win));
    int rc = DFC_Put(&one, 1, DFC_INT, 1 << 20, 0, 1, DFC_INT, win);
    DFCT_OK(DFC_Win_unlock_all(win));
    DFC_Error_class(rc, &cls);
    DFCT_CHECK(eh_calls == 1 && eh_win == win && eh_code == rc && cls == DFC_ERR_RANK,
               "Put to a bad rank: %d calls, win 0x%x, code %d (returned %d, class %d)", eh_calls,
               (unsigned)eh_win, eh_code, rc, cls);
    DFCT_OK(DFC_Win_call_errhandler(win, DFC_ERR_OTHER));
    DFCT_CHECK(eh_calls == 2 && eh_code == DFC_ERR_OTHER, "call_errhandler: %d calls, code %d",
               eh_calls, eh_code);
    /* Handlers of one kind are not set on objects of the other. */
    DFCT_OK(DFC_Win_set_errhandler(win, DFC_ERRORS_RETURN));
    DFCT_FAILS(DFC_Win_set_errhandler(win, ceh), DFC_ERR_ERRHANDLER, "not a window one");
    DFCT_FAILS(DFC_Win_create_errhandler(NULL, &got), DFC_ERR_ARG, "win_errhandler_fn");
    DFCT_FAILS(DFC_Comm_set_errhandler(DFC_COMM_WORLD, weh), DFC_ERR_ERRHANDLER,
               "is a window error handler");
    DFCT_OK(DFC_Win_call_errhandler(win, DFC_ERR_OTHER)); /* ERRORS_RETURN: nothing happens */
    DFCT_CHECK(eh_calls == 2, "ERRORS_RETURN called the user's handler");
    DFCT_OK(DFC_Errhandler_free(&weh));
    DFCT_OK(DFC_Errhandler_free(&ceh));
}

int main(int argc, char **argv)
{
    int *mem, kv, flag;
    void *got;
    dfct_init(&argc, &argv);
    rmat_args(argc, argv);
    DFC_Win win = rmat_win(N, &mem, DFC_COMM_WORLD);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    DFCT_OK(DFC_Win_set_errhandler(win, DFC_ERRORS_RETURN));
    predefined(win, mem);
    DFCT_OK(DFC_Win_create_keyval(DFC_WIN_NULL_COPY_FN, del_fn, &kv, &deletes));
    user_attrs(win, kv);
    bad_keys(win);
    errhandlers(win);
    /* The keyval freed while an attribute uses it: still deleted at Win_free. */
    DFCT_OK(DFC_Win_free_keyval(&kv));
    DFCT_CHECK(kv == DFC_KEYVAL_INVALID, "Win_free_keyval left 0x%x", (unsigned)kv);
    int before = deletes;
    DFC_Win h = win;
    rmat_free(&win, mem);
    DFCT_CHECK(deletes == before + 1 && last_deleted_win == h,
               "Win_free: %d delete callbacks, on 0x%x", deletes - before,
               (unsigned)last_deleted_win);
    /* A window keyval on a communicator is refused too. */
    DFCT_OK(DFC_Win_create_keyval(DFC_WIN_NULL_COPY_FN, DFC_WIN_NULL_DELETE_FN, &kv, NULL));
    DFCT_FAILS(DFC_Comm_get_attr(DFC_COMM_WORLD, kv, &got, &flag), DFC_ERR_KEYVAL,
               "is a window keyval, not a communicator keyval");
    DFCT_OK(DFC_Win_free_keyval(&kv));
    return dfct_finalize();
}
