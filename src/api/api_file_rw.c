/*
 * api_file_rw.c - MPI-IO data access at explicit offsets and through the individual file
 * pointer, blocking and nonblocking, independent and collective (MPI-4.1 14.4.2, 14.4.3).
 * Each entry point is one call to dfc_api_file_rw, which checks and makes the one call into
 * the io layer.
 */
#include "api/api_file.h"

static int check_access(const dfc_file_t *f, const dfc_io_op_t *op, const dfc_dtype_t *d)
{
    if (op->write && (f->amode & DFC_MODE_RDONLY))
        return dfc_err(DFC_ERR_READ_ONLY, op->func, "invalid argument fh: opened DFC_MODE_RDONLY");
    if (!op->write && (f->amode & DFC_MODE_WRONLY))
        return dfc_err(DFC_ERR_ACCESS, op->func, "invalid argument fh: opened DFC_MODE_WRONLY");
    if ((f->amode & DFC_MODE_SEQUENTIAL) && (op->where == DFC_IO_AT || op->where == DFC_IO_INDIV))
        return dfc_err(DFC_ERR_UNSUPPORTED_OPERATION, op->func,
                       "invalid argument fh: opened DFC_MODE_SEQUENTIAL, which allows only the "
                       "shared file pointer");
    if (op->where == DFC_IO_AT && op->offset < 0)
        return dfc_err(DFC_ERR_ARG, op->func, "invalid argument offset: %lld is negative",
                       (long long)op->offset);
    if (d->size % f->etype->size)
        return dfc_err(DFC_ERR_TYPE, op->func,
                       "invalid argument datatype: its size %zu is not a multiple of the "
                       "etype's (%zu)",
                       d->size, f->etype->size);
    return DFC_SUCCESS;
}

int dfc_api_file_rw(DFC_File fh, dfc_io_op_t op, const void *buf, int count, DFC_Datatype datatype,
                    int mode, DFC_Status *status, DFC_Request *request)
{
    int rc;
    dfc_file_t *f = NULL;
    dfc_dtype_t *d = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_file_check(fh, op.func, "fh", &f)) ||
        (rc = dfc_api_check_count(op.func, "count", count)) ||
        (rc = dfc_dtype_check(datatype, op.func, "datatype", &d)) ||
        (rc = dfc_api_check_userbuf(op.func, "buf", buf, count, d)) ||
        (rc = check_access(f, &op, d)) ||
        (mode == DFC_API_FILE_NONBLOCKING && (rc = dfc_api_check_ptr(op.func, "request", request))))
        goto fn_fail;
    op.buf = (void *)buf;
    op.count = (uint64_t)count;
    op.dt = d;
    if (mode == DFC_API_FILE_BLOCKING) rc = dfc_io_xfer(f, &op, status);
    else if (mode == DFC_API_FILE_NONBLOCKING) rc = dfc_io_ixfer(f, &op, request);
    else rc = dfc_io_split_begin(f, &op);
    if (rc) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_file_error(f, rc);
    goto fn_exit;
}

int dfc_api_file_end(DFC_File fh, int write, const char *func, DFC_Status *status)
{
    int rc;
    dfc_file_t *f = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_file_check(fh, func, "fh", &f)) ||
        (rc = dfc_io_split_end(f, write, func, status)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_file_error(f, rc);
    goto fn_exit;
}

#define BLOCKING DFC_API_FILE_BLOCKING
#define NONBLOCKING DFC_API_FILE_NONBLOCKING

int DFC_File_read_at(DFC_File fh, DFC_Offset offset, void *buf, int count, DFC_Datatype datatype,
                     DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_AT, 0, 0, offset), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_read_at_all(DFC_File fh, DFC_Offset offset, void *buf, int count,
                         DFC_Datatype datatype, DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_AT, 0, 1, offset), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_write_at(DFC_File fh, DFC_Offset offset, const void *buf, int count,
                      DFC_Datatype datatype, DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_AT, 1, 0, offset), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_write_at_all(DFC_File fh, DFC_Offset offset, const void *buf, int count,
                          DFC_Datatype datatype, DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_AT, 1, 1, offset), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_iread_at(DFC_File fh, DFC_Offset offset, void *buf, int count, DFC_Datatype datatype,
                      DFC_Request *request)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_AT, 0, 0, offset), buf, count, datatype,
                           NONBLOCKING, NULL, request);
}

int DFC_File_iread_at_all(DFC_File fh, DFC_Offset offset, void *buf, int count,
                          DFC_Datatype datatype, DFC_Request *request)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_AT, 0, 1, offset), buf, count, datatype,
                           NONBLOCKING, NULL, request);
}

int DFC_File_iwrite_at(DFC_File fh, DFC_Offset offset, const void *buf, int count,
                       DFC_Datatype datatype, DFC_Request *request)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_AT, 1, 0, offset), buf, count, datatype,
                           NONBLOCKING, NULL, request);
}

int DFC_File_iwrite_at_all(DFC_File fh, DFC_Offset offset, const void *buf, int count,
                           DFC_Datatype datatype, DFC_Request *request)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_AT, 1, 1, offset), buf, count, datatype,
                           NONBLOCKING, NULL, request);
}

int DFC_File_read(DFC_File fh, void *buf, int count, DFC_Datatype datatype, DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_INDIV, 0, 0, 0), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_read_all(DFC_File fh, void *buf, int count, DFC_Datatype datatype, DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_INDIV, 0, 1, 0), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_write(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                   DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_INDIV, 1, 0, 0), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_write_all(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                       DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_INDIV, 1, 1, 0), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_iread(DFC_File fh, void *buf, int count, DFC_Datatype datatype, DFC_Request *request)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_INDIV, 0, 0, 0), buf, count, datatype,
                           NONBLOCKING, NULL, request);
}

int DFC_File_iread_all(DFC_File fh, void *buf, int count, DFC_Datatype datatype,
                       DFC_Request *request)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_INDIV, 0, 1, 0), buf, count, datatype,
                           NONBLOCKING, NULL, request);
}

int DFC_File_iwrite(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                    DFC_Request *request)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_INDIV, 1, 0, 0), buf, count, datatype,
                           NONBLOCKING, NULL, request);
}

int DFC_File_iwrite_all(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                        DFC_Request *request)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_INDIV, 1, 1, 0), buf, count, datatype,
                           NONBLOCKING, NULL, request);
}
