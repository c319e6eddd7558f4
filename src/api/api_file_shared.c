/*
 * api_file_shared.c - MPI-IO through the shared file pointer (independent and ordered) and
 * the split collectives (MPI-4.1 14.4.4, 14.4.5): each entry point one call to
 * dfc_api_file_rw or dfc_api_file_end (api_file_rw.c).
 */
#include "api/api_file.h"

#define BLOCKING DFC_API_FILE_BLOCKING
#define NONBLOCKING DFC_API_FILE_NONBLOCKING
#define BEGIN DFC_API_FILE_BEGIN

int DFC_File_read_shared(DFC_File fh, void *buf, int count, DFC_Datatype datatype,
                         DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_SHARED, 0, 0, 0), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_write_shared(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                          DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_SHARED, 1, 0, 0), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_iread_shared(DFC_File fh, void *buf, int count, DFC_Datatype datatype,
                          DFC_Request *request)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_SHARED, 0, 0, 0), buf, count, datatype,
                           NONBLOCKING, NULL, request);
}

int DFC_File_iwrite_shared(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                           DFC_Request *request)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_SHARED, 1, 0, 0), buf, count, datatype,
                           NONBLOCKING, NULL, request);
}

int DFC_File_read_ordered(DFC_File fh, void *buf, int count, DFC_Datatype datatype,
                          DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_ORDERED, 0, 1, 0), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_write_ordered(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                           DFC_Status *status)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_ORDERED, 1, 1, 0), buf, count, datatype, BLOCKING,
                           status, NULL);
}

int DFC_File_read_at_all_begin(DFC_File fh, DFC_Offset offset, void *buf, int count,
                               DFC_Datatype datatype)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_AT, 0, 1, offset), buf, count, datatype, BEGIN,
                           NULL, NULL);
}

int DFC_File_read_at_all_end(DFC_File fh, void *buf, DFC_Status *status)
{
    (void)buf;
    return dfc_api_file_end(fh, 0, __func__, status);
}

int DFC_File_write_at_all_begin(DFC_File fh, DFC_Offset offset, const void *buf, int count,
                                DFC_Datatype datatype)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_AT, 1, 1, offset), buf, count, datatype, BEGIN,
                           NULL, NULL);
}

int DFC_File_write_at_all_end(DFC_File fh, const void *buf, DFC_Status *status)
{
    (void)buf;
    return dfc_api_file_end(fh, 1, __func__, status);
}

int DFC_File_read_all_begin(DFC_File fh, void *buf, int count, DFC_Datatype datatype)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_INDIV, 0, 1, 0), buf, count, datatype, BEGIN,
                           NULL, NULL);
}

int DFC_File_read_all_end(DFC_File fh, void *buf, DFC_Status *status)
{
    (void)buf;
    return dfc_api_file_end(fh, 0, __func__, status);
}

int DFC_File_write_all_begin(DFC_File fh, const void *buf, int count, DFC_Datatype datatype)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_INDIV, 1, 1, 0), buf, count, datatype, BEGIN,
                           NULL, NULL);
}

int DFC_File_write_all_end(DFC_File fh, const void *buf, DFC_Status *status)
{
    (void)buf;
    return dfc_api_file_end(fh, 1, __func__, status);
}

int DFC_File_read_ordered_begin(DFC_File fh, void *buf, int count, DFC_Datatype datatype)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_ORDERED, 0, 1, 0), buf, count, datatype, BEGIN,
                           NULL, NULL);
}

int DFC_File_read_ordered_end(DFC_File fh, void *buf, DFC_Status *status)
{
    (void)buf;
    return dfc_api_file_end(fh, 0, __func__, status);
}

int DFC_File_write_ordered_begin(DFC_File fh, const void *buf, int count, DFC_Datatype datatype)
{
    return dfc_api_file_rw(fh, DFC_FILE_OP(DFC_IO_ORDERED, 1, 1, 0), buf, count, datatype, BEGIN,
                           NULL, NULL);
}

int DFC_File_write_ordered_end(DFC_File fh, const void *buf, DFC_Status *status)
{
    (void)buf;
    return dfc_api_file_end(fh, 1, __func__, status);
}
