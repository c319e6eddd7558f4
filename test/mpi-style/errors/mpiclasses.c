/*
 * mpiclasses.c - every predefined error class of MPI-4.1 (9.4) exists and is distinct, with
 * DFC_Error_class answering itself and DFC_Error_string a non-empty string of its own, also
 * the classes of families DFC does not have yet (I/O, dynamic processes, sessions): without
 * them mpi.h lacked MPI_ERR_FILE and the rest, mpi4py aliased them to MPI_ERR_ARG and named
 * class 12 'ERR_FILE' in its messages. DFC_ERR_LASTCODE is the largest; one above it is not
 * a class (DFC_ERR_ARG) until DFC_Add_error_class makes it one.
 */
#include "../dfctest.h"

#define C(x)  \
    {         \
        x, #x \
    }
static const struct {
    int cls;
    const char *name;
} classes[] = {
    C(DFC_SUCCESS),
    C(DFC_ERR_BUFFER),
    C(DFC_ERR_COUNT),
    C(DFC_ERR_TYPE),
    C(DFC_ERR_TAG),
    C(DFC_ERR_COMM),
    C(DFC_ERR_RANK),
    C(DFC_ERR_ROOT),
    C(DFC_ERR_GROUP),
    C(DFC_ERR_OP),
    C(DFC_ERR_TOPOLOGY),
    C(DFC_ERR_DIMS),
    C(DFC_ERR_ARG),
    C(DFC_ERR_UNKNOWN),
    C(DFC_ERR_TRUNCATE),
    C(DFC_ERR_OTHER),
    C(DFC_ERR_INTERN),
    C(DFC_ERR_IN_STATUS),
    C(DFC_ERR_PENDING),
    C(DFC_ERR_REQUEST),
    C(DFC_ERR_INFO),
    C(DFC_ERR_INFO_KEY),
    C(DFC_ERR_INFO_VALUE),
    C(DFC_ERR_INFO_NOKEY),
    C(DFC_ERR_NO_MEM),
    C(DFC_ERR_UNSUPPORTED_OPERATION),
    C(DFC_ERR_NOT_SAME),
    C(DFC_ERR_ERRHANDLER),
    C(DFC_ERR_PROC_FAILED),
    C(DFC_ERR_INTERNAL_TRANSPORT),
    C(DFC_ERR_KEYVAL),
    C(DFC_ERR_WIN),
    C(DFC_ERR_BASE),
    C(DFC_ERR_SIZE),
    C(DFC_ERR_DISP),
    C(DFC_ERR_LOCKTYPE),
    C(DFC_ERR_ASSERT),
    C(DFC_ERR_RMA_CONFLICT),
    C(DFC_ERR_RMA_SYNC),
    C(DFC_ERR_RMA_RANGE),
    C(DFC_ERR_RMA_ATTACH),
    C(DFC_ERR_RMA_SHARED),
    C(DFC_ERR_RMA_FLAVOR),
    C(DFC_ERR_FILE),
    C(DFC_ERR_ACCESS),
    C(DFC_ERR_AMODE),
    C(DFC_ERR_BAD_FILE),
    C(DFC_ERR_CONVERSION),
    C(DFC_ERR_DUP_DATAREP),
    C(DFC_ERR_FILE_EXISTS),
    C(DFC_ERR_FILE_IN_USE),
    C(DFC_ERR_IO),
    C(DFC_ERR_NO_SPACE),
    C(DFC_ERR_NO_SUCH_FILE),
    C(DFC_ERR_QUOTA),
    C(DFC_ERR_READ_ONLY),
    C(DFC_ERR_UNSUPPORTED_DATAREP),
    C(DFC_ERR_NAME),
    C(DFC_ERR_PORT),
    C(DFC_ERR_SERVICE),
    C(DFC_ERR_SPAWN),
    C(DFC_ERR_SESSION),
    C(DFC_ERR_PROC_ABORTED),
    C(DFC_ERR_VALUE_TOO_LARGE),
};
#define NCLASSES ((int)(sizeof classes / sizeof *classes))

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    static char strings[NCLASSES][DFC_MAX_ERROR_STRING];
    int seen[DFC_ERR_LASTCODE + 1] = {0};
    DFCT_CHECK(NCLASSES == DFC_ERR_LASTCODE + 1, "%d classes listed, DFC_ERR_LASTCODE is %d",
               NCLASSES, DFC_ERR_LASTCODE);
    for (int i = 0; i < NCLASSES; i++) {
        int c = classes[i].cls, got = -1, len = -1;
        DFCT_CHECK(c >= 0 && c <= DFC_ERR_LASTCODE, "%s is %d, outside 0..%d", classes[i].name, c,
                   DFC_ERR_LASTCODE);
        if (c < 0 || c > DFC_ERR_LASTCODE) continue;
        DFCT_CHECK(!seen[c]++, "%s is %d, which another class has too", classes[i].name, c);
        DFCT_OK(DFC_Error_class(c, &got));
        DFCT_CHECK(got == c, "DFC_Error_class(%s) = %d", classes[i].name, got);
        DFCT_OK(DFC_Error_string(c, strings[i], &len));
        DFCT_CHECK(len > 0 && len == (int)strlen(strings[i]), "%s: string \"%s\" of length %d",
                   classes[i].name, strings[i], len);
        for (int j = 0; j < i; j++)
            DFCT_CHECK(strcmp(strings[i], strings[j]) != 0, "%s and %s share the string \"%s\"",
                       classes[i].name, classes[j].name, strings[i]);
    }
    DFCT_CHECK(!strcmp(strings[43], "invalid file handle"), "DFC_ERR_FILE's string is \"%s\"",
               strings[43]);
    int got = -1, len = 0;
    char msg[DFC_MAX_ERROR_STRING];
    DFCT_FAILS(DFC_Error_class(DFC_ERR_LASTCODE + 1, &got), DFC_ERR_ARG, "errorcode");
    DFCT_FAILS(DFC_Error_string(DFC_ERR_LASTCODE + 1, msg, &len), DFC_ERR_ARG, "errorcode");
    int added = -1;
    DFCT_OK(DFC_Add_error_class(&added));
    DFCT_CHECK(added > DFC_ERR_LASTCODE, "DFC_Add_error_class gave %d, not above %d", added,
               DFC_ERR_LASTCODE);
    DFCT_OK(DFC_Error_class(added, &got));
    DFCT_CHECK(got == added, "DFC_Error_class(added class %d) = %d", added, got);
    return dfct_finalize();
}
