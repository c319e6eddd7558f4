/*
 * errext.c - error extensions (MPI-4.1 9.3, 9.5): added classes, codes and strings,
 * their removal (MPI-4.1), DFC_LASTUSEDCODE, user error handlers (called on a real error, by Comm_call_errhandler,
 * inherited by dup, kept alive after Errhandler_free), and DFC_ERRORS_ABORT coming back
 * from Comm_get_errhandler as itself.
 */
#include "../dfctest.h"

static int calls, last_code;
static DFC_Comm last_comm;

static void handler(DFC_Comm *comm, int *code, ...)
{
    int rank = -1;
    calls++;
    last_comm = *comm;
    last_code = *code;
    DFC_Comm_rank(*comm, &rank); /* a handler may call DFC */
    if (rank < 0) last_code = -1;
}

static int lastused(void)
{
    int *p = NULL, flag = 0;
    DFC_Comm_get_attr(DFC_COMM_WORLD, DFC_LASTUSEDCODE, &p, &flag);
    return flag ? *p : -1;
}

static void test_classes_codes(void)
{
    int c1, c2, e1, e2, e3, cls, len;
    char s[DFC_MAX_ERROR_STRING];
    DFCT_CHECK(lastused() >= DFC_ERR_LASTCODE, "LASTUSEDCODE below DFC_ERR_LASTCODE");
    DFCT_OK(DFC_Add_error_class(&c1));
    DFCT_OK(DFC_Add_error_class(&c2));
    DFCT_CHECK(c1 > DFC_ERR_LASTCODE && c2 > c1, "classes %d %d", c1, c2);
    DFCT_CHECK(lastused() >= c2, "LASTUSEDCODE %d below class %d", lastused(), c2);
    DFCT_OK(DFC_Add_error_code(c1, &e1));
    DFCT_OK(DFC_Add_error_code(c1, &e2));
    DFCT_OK(DFC_Add_error_code(DFC_ERR_ARG, &e3)); /* codes of predefined classes too */
    DFCT_CHECK(e1 != e2 && e1 != c1 && e2 != c2, "codes %d %d", e1, e2);
    DFCT_CHECK(lastused() >= e1 && lastused() >= e2 && lastused() >= e3, "LASTUSEDCODE %d",
               lastused());
    DFCT_OK(DFC_Error_class(e1, &cls));
    DFCT_CHECK(cls == c1, "class of e1: %d, expected %d", cls, c1);
    DFCT_OK(DFC_Error_class(c2, &cls));
    DFCT_CHECK(cls == c2, "class of c2: %d", cls);
    DFCT_OK(DFC_Error_class(e3, &cls));
    DFCT_CHECK(cls == DFC_ERR_ARG, "class of e3: %d", cls);
    DFCT_OK(DFC_Add_error_string(c1, "the first added class"));
    DFCT_OK(DFC_Add_error_string(e1, "code one"));
    DFCT_OK(DFC_Add_error_string(e1, "code one, again")); /* replaces */
    DFCT_OK(DFC_Error_string(c1, s, &len));
    DFCT_CHECK(!strcmp(s, "the first added class") && len == (int)strlen(s), "string of c1: %s", s);
    DFCT_OK(DFC_Error_string(e1, s, &len));
    DFCT_CHECK(!strcmp(s, "code one, again"), "string of e1: %s", s);
    DFCT_OK(DFC_Error_string(e2, s, &len));
    DFCT_CHECK(len == 0 && s[0] == 0, "code without a string: \"%s\"", s);
    DFCT_OK(DFC_Error_string(c2, s, &len));
    DFCT_CHECK(len == 0, "class without a string: \"%s\"", s);
    /* Bad arguments. */
    DFCT_FAILS(DFC_Add_error_class(NULL), DFC_ERR_ARG, "DFC_Add_error_class: invalid argument");
    DFCT_FAILS(DFC_Add_error_code(c2 + 1, &e2), DFC_ERR_ARG,
               "DFC_Add_error_code: invalid argument errorclass");
    DFCT_FAILS(DFC_Add_error_code(c1, NULL), DFC_ERR_ARG, "invalid argument errorcode");
    DFCT_FAILS(DFC_Add_error_string(DFC_ERR_TYPE, "mine"), DFC_ERR_ARG,
               "DFC_Add_error_string: invalid argument errorcode");
    DFCT_FAILS(DFC_Add_error_string(e1, NULL), DFC_ERR_ARG, "invalid argument string");
    char big[DFC_MAX_ERROR_STRING + 8];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    DFCT_FAILS(DFC_Add_error_string(e1, big), DFC_ERR_ARG, "DFC_MAX_ERROR_STRING");
    DFCT_FAILS(DFC_Error_class(c2 + 1, &cls), DFC_ERR_ARG, "not an error code");
    /* An added code passes through a user error handler unchanged. */
    DFC_Errhandler eh;
    DFCT_OK(DFC_Comm_create_errhandler(handler, &eh));
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_SELF, eh));
    calls = 0;
    DFCT_OK(DFC_Comm_call_errhandler(DFC_COMM_SELF, e1));
    DFCT_CHECK(calls == 1 && last_code == e1 && last_comm == DFC_COMM_SELF,
               "call_errhandler: %d calls, code %d", calls, last_code);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_SELF, DFC_ERRORS_ARE_FATAL));
    DFCT_OK(DFC_Errhandler_free(&eh));

    /* MPI-4.1's removals: strings, then codes, then their class (not before). */
    DFCT_OK(DFC_Remove_error_string(e1));
    DFCT_OK(DFC_Error_string(e1, s, &len));
    DFCT_CHECK(len == 0, "removed string still there: \"%s\"", s);
    DFCT_FAILS(DFC_Remove_error_string(e1), DFC_ERR_ARG,
               "DFC_Remove_error_string: invalid argument errorcode");
    DFCT_FAILS(DFC_Remove_error_class(c1), DFC_ERR_ARG,
               "DFC_Remove_error_class: invalid argument errorclass");
    DFCT_OK(DFC_Remove_error_code(e1));
    DFCT_OK(DFC_Remove_error_code(e2));
    DFCT_FAILS(DFC_Error_class(e1, &cls), DFC_ERR_ARG, "not an error code");
    DFCT_FAILS(DFC_Remove_error_code(e1), DFC_ERR_ARG,
               "DFC_Remove_error_code: invalid argument errorcode");
    DFCT_FAILS(DFC_Remove_error_code(c2), DFC_ERR_ARG, "invalid argument errorcode");
    DFCT_FAILS(DFC_Remove_error_class(e3), DFC_ERR_ARG, "invalid argument errorclass");
    DFCT_FAILS(DFC_Remove_error_class(DFC_ERR_ARG), DFC_ERR_ARG, "invalid argument errorclass");
    DFCT_OK(DFC_Remove_error_class(c1));
    DFCT_FAILS(DFC_Error_class(c1, &cls), DFC_ERR_ARG, "not an error code");
    DFCT_OK(DFC_Error_class(c2, &cls)); /* the other class stays */
    DFCT_OK(DFC_Add_error_class(&cls));
    DFCT_CHECK(cls != c1 && cls != c2, "a removed class number was given out again");
}

static void test_handlers(void)
{
    DFC_Errhandler eh, got;
    DFC_Comm comm, dup;
    int size, buf = 0;
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFCT_OK(DFC_Comm_create_errhandler(handler, &eh));
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    DFCT_OK(DFC_Comm_set_errhandler(comm, eh));
    DFCT_OK(DFC_Comm_get_errhandler(comm, &got));
    DFCT_CHECK(got == eh, "get_errhandler: 0x%x, set 0x%x", (unsigned)got, (unsigned)eh);
    DFCT_OK(DFC_Errhandler_free(&got));
    DFCT_CHECK(got == DFC_ERRHANDLER_NULL, "Errhandler_free left 0x%x", (unsigned)got);
    /* A real error: the handler sees comm and the code, and the call returns the code. */
    calls = 0;
    int rc = DFC_Send(&buf, 1, DFC_INT, size + 5, 0, comm);
    int cls = -1;
    DFC_Error_class(rc, &cls);
    DFCT_CHECK(calls == 1 && last_comm == comm && last_code == rc && cls == DFC_ERR_RANK,
               "handler on a bad rank: %d calls, comm 0x%x, code %d/%d, class %d", calls,
               (unsigned)last_comm, last_code, rc, cls);
    /* Calls without a communicator use DFC_COMM_WORLD's handler. */
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, eh));
    calls = 0;
    rc = DFC_Info_free(NULL);
    DFC_Error_class(rc, &cls);
    DFCT_CHECK(calls == 1 && last_comm == DFC_COMM_WORLD && last_code == rc && cls == DFC_ERR_ARG,
               "world's handler: %d calls, comm 0x%x, class %d", calls, (unsigned)last_comm, cls);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    /* Dup inherits the handler. */
    DFCT_OK(DFC_Comm_dup(comm, &dup));
    calls = 0;
    DFCT_OK(DFC_Comm_call_errhandler(dup, DFC_ERR_OTHER));
    DFCT_CHECK(calls == 1 && last_comm == dup && last_code == DFC_ERR_OTHER,
               "dup's handler: %d calls, code %d", calls, last_code);
    /* Freed by the user: no longer accepted, yet still called for comm. */
    DFCT_OK(DFC_Errhandler_free(&eh));
    DFC_Errhandler stale = got = DFC_ERRHANDLER_NULL;
    DFCT_OK(DFC_Comm_get_errhandler(comm, &stale)); /* a new user reference */
    DFCT_OK(DFC_Errhandler_free(&stale));
    DFCT_OK(DFC_Comm_get_errhandler(comm, &got));
    DFC_Errhandler copy = got;
    DFCT_OK(DFC_Errhandler_free(&got));
    DFCT_FAILS(DFC_Comm_set_errhandler(DFC_COMM_WORLD, copy), DFC_ERR_ERRHANDLER,
               "DFC_Comm_set_errhandler: invalid argument errhandler");
    DFCT_FAILS(DFC_Errhandler_free(&copy), DFC_ERR_ERRHANDLER, "invalid argument errhandler");
    calls = 0;
    DFCT_OK(DFC_Comm_call_errhandler(comm, DFC_ERR_OTHER));
    DFCT_CHECK(calls == 1, "freed handler not called for its communicator");
    /* ERRORS_RETURN: call_errhandler returns success. */
    DFCT_OK(DFC_Comm_set_errhandler(dup, DFC_ERRORS_RETURN));
    DFCT_OK(DFC_Comm_call_errhandler(dup, DFC_ERR_OTHER));
    /* The defect of issue 17: ERRORS_ABORT came back as ERRORS_ARE_FATAL. */
    DFCT_OK(DFC_Comm_set_errhandler(dup, DFC_ERRORS_ABORT));
    DFCT_OK(DFC_Comm_get_errhandler(dup, &got));
    DFCT_CHECK(got == DFC_ERRORS_ABORT, "after ERRORS_ABORT, get_errhandler gave 0x%x",
               (unsigned)got);
    DFCT_OK(DFC_Comm_set_errhandler(dup, DFC_ERRORS_ARE_FATAL));
    DFCT_OK(DFC_Comm_get_errhandler(dup, &got));
    DFCT_CHECK(got == DFC_ERRORS_ARE_FATAL, "ERRORS_ARE_FATAL came back as 0x%x", (unsigned)got);
    DFCT_FAILS(DFC_Comm_create_errhandler(NULL, &got), DFC_ERR_ARG,
               "DFC_Comm_create_errhandler: invalid argument comm_errhandler_fn");
    DFCT_FAILS(DFC_Comm_call_errhandler(DFC_COMM_NULL, DFC_ERR_OTHER), DFC_ERR_COMM,
               "DFC_Comm_call_errhandler: invalid argument comm");
    DFCT_OK(DFC_Comm_free(&dup));
    DFCT_OK(DFC_Comm_free(&comm));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    test_classes_codes();
    test_handlers();
    return dfct_finalize();
}
