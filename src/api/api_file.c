/*
 * api_file.c - MPI-IO files: open, close, delete, size, group, mode, info, views, atomicity
 * and sync (MPI-4.1 14.2, 14.3, 14.6.1). Argument checks, then one call into src/io. Errors
 * go to the file's handler, DFC_ERRORS_RETURN unless set (MPI's default for files), and
 * those of open and delete to DFC_FILE_NULL's (api_file_err.c).
 */
#include <string.h>

#include "api/api_file.h"

static int check_info(DFC_Info info, const char *func, dfc_info_t **out)
{
    *out = NULL;
    if (info == DFC_INFO_NULL) return DFC_SUCCESS;
    if ((*out = dfc_htable_get(&dfc_info_table, info))) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_INFO, func, "invalid argument info: 0x%x is not a valid info object",
                   (unsigned)info);
}

static int check_amode(int amode, const char *func)
{
    int rw = !!(amode & DFC_MODE_RDONLY) + !!(amode & DFC_MODE_WRONLY) + !!(amode & DFC_MODE_RDWR);
    const char *why = NULL;
    if (rw != 1) why = "exactly one of DFC_MODE_RDONLY, DFC_MODE_WRONLY and DFC_MODE_RDWR";
    else if ((amode & DFC_MODE_RDONLY) && (amode & (DFC_MODE_CREATE | DFC_MODE_EXCL)))
        why = "DFC_MODE_RDONLY without DFC_MODE_CREATE or DFC_MODE_EXCL";
    else if ((amode & DFC_MODE_RDWR) && (amode & DFC_MODE_SEQUENTIAL))
        why = "DFC_MODE_SEQUENTIAL without DFC_MODE_RDWR";
    else if (amode & ~0x1ff) why = "only DFC_MODE_ bits";
    if (!why) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_AMODE, func, "invalid argument amode: 0x%x; it must have %s",
                   (unsigned)amode, why);
}

int DFC_File_open(DFC_Comm comm, const char *filename, int amode, DFC_Info info, DFC_File *fh)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_info_t *inf;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_comm_intra_check(c, __func__, "comm")) ||
        (rc = dfc_api_check_ptr(__func__, "filename", filename)) ||
        (rc = check_amode(amode, __func__)) || (rc = check_info(info, __func__, &inf)) ||
        (rc = dfc_api_check_ptr(__func__, "fh", fh)))
        goto fn_fail;
    if ((rc = dfc_io_open(c, filename, amode, inf, __func__, fh))) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_file_error(NULL, rc);
    goto fn_exit;
}

int DFC_File_close(DFC_File *fh)
{
    int rc;
    dfc_file_t *f = NULL;
    DFC_Errhandler eh = DFC_ERRORS_RETURN;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "fh", fh)) ||
        (rc = dfc_file_check(*fh, __func__, "fh", &f)))
        goto fn_fail;
    eh = f->errhandler;
    *fh = DFC_FILE_NULL;
    if ((rc = dfc_io_close(f, __func__))) {
        f = NULL; /* freed: its handler was eh */
        if (eh != DFC_ERRORS_RETURN) dfc_fatal("DFC_File_close failed (error class %d)", rc);
        goto fn_exit;
    }
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_file_error(f, rc);
    goto fn_exit;
}

int DFC_File_delete(const char *filename, DFC_Info info)
{
    int rc;
    dfc_info_t *inf;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "filename", filename)) ||
        (rc = check_info(info, __func__, &inf)) || (rc = dfc_io_delete(filename, __func__)))
        goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_file_error(NULL, rc);
    goto fn_exit;
}

static int check_size(DFC_Offset size, const char *func)
{
    if (size >= 0) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_ARG, func, "invalid argument size: %lld is negative", (long long)size);
}

int DFC_File_set_size(DFC_File fh, DFC_Offset size)
{
    FILE_ENTRY((rc = check_size(size, __func__)) || (rc = dfc_io_set_size(f, size, 0, __func__)))
}

int DFC_File_preallocate(DFC_File fh, DFC_Offset size)
{
    FILE_ENTRY((rc = check_size(size, __func__)) || (rc = dfc_io_set_size(f, size, 1, __func__)))
}

int DFC_File_get_size(DFC_File fh, DFC_Offset *size)
{
    FILE_ENTRY((rc = dfc_api_check_ptr(__func__, "size", size)) ||
               (rc = dfc_io_get_size(f, __func__, size)))
}

int DFC_File_get_group(DFC_File fh, DFC_Group *group)
{
    FILE_ENTRY((rc = dfc_api_check_ptr(__func__, "group", group)) ||
               (rc = dfc_io_get_group(f, __func__, group)))
}

static int get_int(int v, int *out, const char *func, const char *name)
{
    int rc = dfc_api_check_ptr(func, name, out);
    if (!rc) *out = v;
    return rc;
}

int DFC_File_get_amode(DFC_File fh, int *amode)
{
    FILE_ENTRY((rc = get_int(f->amode, amode, __func__, "amode")))
}

int DFC_File_set_atomicity(DFC_File fh, int flag)
{
    FILE_ENTRY((rc = get_int(!!flag, &f->atomic, __func__, "flag")))
}

int DFC_File_get_atomicity(DFC_File fh, int *flag)
{
    FILE_ENTRY((rc = get_int(f->atomic, flag, __func__, "flag")))
}

int DFC_File_sync(DFC_File fh) { FILE_ENTRY((rc = dfc_io_sync(f, __func__))) }

int DFC_File_set_info(DFC_File fh, DFC_Info info)
{
    dfc_info_t *inf = NULL;
    FILE_ENTRY((rc = check_info(info, __func__, &inf)) || (rc = dfc_io_set_info(f, inf, __func__)))
}

int DFC_File_get_info(DFC_File fh, DFC_Info *info_used)
{
    FILE_ENTRY((rc = dfc_api_check_ptr(__func__, "info_used", info_used)) ||
               (rc = dfc_io_get_info(f, __func__, info_used)))
}

static int check_view(dfc_file_t *f, DFC_Offset *disp, DFC_Datatype et, DFC_Datatype ft,
                      const char *datarep, const char *func, dfc_dtype_t **e, dfc_dtype_t **t)
{
    int rc;
    if ((rc = dfc_dtype_check(et, func, "etype", e)) ||
        (rc = dfc_dtype_check(ft, func, "filetype", t)) ||
        (rc = dfc_api_check_ptr(func, "datarep", datarep)))
        return rc;
    if (strcmp(datarep, "native") != 0)
        return dfc_err(DFC_ERR_UNSUPPORTED_DATAREP, func,
                       "invalid argument datarep: \"%s\"; DFC has only \"native\"", datarep);
    if (!(*e)->size || (*t)->size % (*e)->size || (*t)->extent <= 0)
        return dfc_err(DFC_ERR_TYPE, func,
                       "invalid argument filetype: it must hold a whole "
                       "number (>= 1) of etypes and have a positive extent");
    if (*disp == DFC_DISPLACEMENT_CURRENT) {
        if (!(f->amode & DFC_MODE_SEQUENTIAL))
            return dfc_err(DFC_ERR_ARG, func,
                           "invalid argument disp: DFC_DISPLACEMENT_CURRENT "
                           "needs DFC_MODE_SEQUENTIAL");
        DFC_Offset pos;
        if ((rc = dfc_io_sfp_get(f, func, &pos))) return rc;
        *disp = f->disp + pos * (DFC_Offset)f->etype->size;
    }
    if (*disp < 0)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument disp: %lld is negative",
                       (long long)*disp);
    return DFC_SUCCESS;
}

int DFC_File_set_view(DFC_File fh, DFC_Offset disp, DFC_Datatype etype, DFC_Datatype filetype,
                      const char *datarep, DFC_Info info)
{
    dfc_dtype_t *e = NULL, *t = NULL;
    dfc_info_t *inf = NULL;
    FILE_ENTRY((rc = check_view(f, &disp, etype, filetype, datarep, __func__, &e, &t)) ||
               (rc = check_info(info, __func__, &inf)) ||
               (rc = dfc_io_set_view(f, disp, e, t, __func__)))
}

int DFC_File_get_view(DFC_File fh, DFC_Offset *disp, DFC_Datatype *etype, DFC_Datatype *filetype,
                      char *datarep)
{
    FILE_ENTRY((rc = dfc_api_check_ptr(__func__, "disp", disp)) ||
               (rc = dfc_api_check_ptr(__func__, "etype", etype)) ||
               (rc = dfc_api_check_ptr(__func__, "filetype", filetype)) ||
               (rc = dfc_api_check_ptr(__func__, "datarep", datarep)) ||
               (rc = dfc_io_get_view(f, __func__, disp, etype, filetype, datarep)))
}

int DFC_File_get_type_extent(DFC_File fh, DFC_Datatype datatype, DFC_Aint *extent)
{
    dfc_dtype_t *d = NULL;
    FILE_ENTRY((rc = dfc_dtype_lookup(datatype, __func__, "datatype", &d)) ||
               (rc = dfc_api_check_ptr(__func__, "extent", extent)) || ((*extent = d->extent), 0))
}
