/*
 * file_errors.c - errors of MPI-IO: a missing file opened without DFC_MODE_CREATE
 * (DFC_ERR_NO_SUCH_FILE, a message naming DFC_File_open and the path), bad access modes
 * (DFC_ERR_AMODE), an unsupported data representation, writing a read-only file, and the
 * handlers: DFC_ERRORS_RETURN by default on files and on DFC_FILE_NULL, a user handler on a
 * file called with the file and the code.
 */
#include "iotest.h"

static int calls, seen_code;
static DFC_File seen_file;

static void handler(DFC_File *fh, int *code, ...)
{
    calls++;
    seen_file = *fh;
    seen_code = *code;
}

static void expect(int rc, int cls, const char *want1, const char *want2, const char *what)
{
    int c = -1, len;
    char msg[DFC_MAX_ERROR_STRING] = "";
    DFC_Error_class(rc, &c);
    DFC_Error_string(rc, msg, &len);
    DFCT_CHECK(c == cls, "%s: error class %d, expected %d (%s)", what, c, cls, msg);
    DFCT_CHECK(strstr(msg, want1) != NULL, "%s: message \"%s\" lacks \"%s\"", what, msg, want1);
    DFCT_CHECK(!want2 || strstr(msg, want2) != NULL, "%s: message \"%s\" lacks \"%s\"", what, msg,
               want2);
}

static void open_errors(const char *missing, const char *path)
{
    DFC_File fh = DFC_FILE_NULL;
    DFC_Errhandler eh;
    DFCT_OK(DFC_File_get_errhandler(DFC_FILE_NULL, &eh));
    DFCT_CHECK(eh == DFC_ERRORS_RETURN, "DFC_FILE_NULL's handler is not DFC_ERRORS_RETURN");
    DFCT_OK(DFC_Errhandler_free(&eh));
    int rc = DFC_File_open(DFC_COMM_WORLD, missing, DFC_MODE_RDWR, DFC_INFO_NULL, &fh);
    expect(rc, DFC_ERR_NO_SUCH_FILE, "DFC_File_open", missing, "open of a missing file");
    DFCT_CHECK(fh == DFC_FILE_NULL, "a failed open gave a handle");
    rc = DFC_File_open(DFC_COMM_WORLD, path, DFC_MODE_RDONLY | DFC_MODE_CREATE, DFC_INFO_NULL, &fh);
    expect(rc, DFC_ERR_AMODE, "DFC_File_open", "amode", "RDONLY with CREATE");
    rc = DFC_File_open(DFC_COMM_WORLD, path, DFC_MODE_RDWR | DFC_MODE_WRONLY, DFC_INFO_NULL, &fh);
    expect(rc, DFC_ERR_AMODE, "DFC_File_open", "amode", "RDWR with WRONLY");
    rc = DFC_File_delete(missing, DFC_INFO_NULL);
    expect(rc, DFC_ERR_NO_SUCH_FILE, "DFC_File_delete", missing, "delete of a missing file");
}

static void file_errors(const char *path)
{
    DFC_File fh;
    DFC_Errhandler eh, mine;
    int v = 7;
    DFCT_OK(DFC_File_open(DFC_COMM_WORLD, path, DFC_MODE_CREATE | DFC_MODE_EXCL | DFC_MODE_WRONLY,
                          DFC_INFO_NULL, &fh));
    DFCT_OK(DFC_File_get_errhandler(fh, &eh));
    DFCT_CHECK(eh == DFC_ERRORS_RETURN, "a new file's handler is not DFC_ERRORS_RETURN");
    DFCT_OK(DFC_Errhandler_free(&eh));
    int rc = DFC_File_set_view(fh, 0, DFC_INT, DFC_INT, "external32", DFC_INFO_NULL);
    expect(rc, DFC_ERR_UNSUPPORTED_DATAREP, "DFC_File_set_view", "external32", "datarep");
    rc = DFC_File_read_at(fh, 0, &v, 1, DFC_INT, DFC_STATUS_IGNORE);
    expect(rc, DFC_ERR_ACCESS, "DFC_File_read_at", "WRONLY", "reading a WRONLY file");
    DFCT_OK(DFC_File_create_errhandler(handler, &mine));
    DFCT_OK(DFC_File_set_errhandler(fh, mine));
    rc = DFC_File_seek(fh, 0, 12345);
    DFCT_CHECK(calls == 1 && seen_file == fh && seen_code == rc,
               "the file's handler saw %d "
               "calls (file 0x%x, code %d; returned %d)",
               calls, (unsigned)seen_file, seen_code, rc);
    expect(rc, DFC_ERR_ARG, "DFC_File_seek", "whence", "bad whence");
    DFCT_OK(DFC_Errhandler_free(&mine));
    DFCT_OK(DFC_File_close(&fh));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    /* EXCL on a file that exists now */
    rc = DFC_File_open(DFC_COMM_WORLD, path, DFC_MODE_CREATE | DFC_MODE_EXCL | DFC_MODE_RDWR,
                       DFC_INFO_NULL, &fh);
    expect(rc, DFC_ERR_FILE_EXISTS, "DFC_File_open", NULL, "EXCL on an existing file");
    DFCT_OK(DFC_File_open(DFC_COMM_WORLD, path, DFC_MODE_RDONLY, DFC_INFO_NULL, &fh));
    rc = DFC_File_write_at(fh, 0, &v, 1, DFC_INT, DFC_STATUS_IGNORE);
    expect(rc, DFC_ERR_READ_ONLY, "DFC_File_write_at", "RDONLY", "writing a RDONLY file");
    DFCT_OK(DFC_File_close(&fh));
}

int main(int argc, char **argv)
{
    char missing[1024], path[1024];
    dfct_init(&argc, &argv);
    iot_mkdir();
    iot_path(missing, sizeof missing, "no-such-file");
    open_errors(missing, iot_path(path, sizeof path, "errors.dat"));
    file_errors(path);
    iot_rmdir();
    dfct_finalize();
    return 0;
}
