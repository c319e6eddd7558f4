/*
 * api_file_pos.c - MPI-IO file pointers: seek, position and byte offset, individual and
 * shared (MPI-4.1 14.4.3, 14.4.4). Argument checks, then one call into src/io.
 */
#include "api/api_file.h"

static int check_whence(int whence, const char *func)
{
    if (whence == DFC_SEEK_SET || whence == DFC_SEEK_CUR || whence == DFC_SEEK_END)
        return DFC_SUCCESS;
    return dfc_err(DFC_ERR_ARG, func,
                   "invalid argument whence: %d is not DFC_SEEK_SET, "
                   "DFC_SEEK_CUR or DFC_SEEK_END",
                   whence);
}

static int check_indiv(const dfc_file_t *f, const char *func)
{
    if (!(f->amode & DFC_MODE_SEQUENTIAL)) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_UNSUPPORTED_OPERATION, func,
                   "invalid argument fh: opened DFC_MODE_SEQUENTIAL (no individual pointer)");
}

int DFC_File_seek(DFC_File fh, DFC_Offset offset, int whence)
{
    FILE_ENTRY((rc = check_indiv(f, __func__)) || (rc = check_whence(whence, __func__)) ||
               (rc = dfc_io_seek(f, offset, whence, __func__)))
}

int DFC_File_get_position(DFC_File fh, DFC_Offset *offset)
{
    FILE_ENTRY((rc = check_indiv(f, __func__)) ||
               (rc = dfc_api_check_ptr(__func__, "offset", offset)) || ((*offset = f->pos), 0))
}

int DFC_File_get_byte_offset(DFC_File fh, DFC_Offset offset, DFC_Offset *disp)
{
    FILE_ENTRY((rc = dfc_api_check_ptr(__func__, "disp", disp)) ||
               (offset < 0 &&
                (rc = dfc_err(DFC_ERR_ARG, __func__, "invalid argument offset: %lld is negative",
                              (long long)offset))) ||
               (rc = dfc_io_byte_offset(f, offset, disp)))
}

int DFC_File_seek_shared(DFC_File fh, DFC_Offset offset, int whence)
{
    FILE_ENTRY((rc = check_whence(whence, __func__)) ||
               (rc = dfc_io_seek_shared(f, offset, whence, __func__)))
}

int DFC_File_get_position_shared(DFC_File fh, DFC_Offset *offset)
{
    FILE_ENTRY((rc = dfc_api_check_ptr(__func__, "offset", offset)) ||
               (rc = dfc_io_sfp_get(f, __func__, offset)))
}
