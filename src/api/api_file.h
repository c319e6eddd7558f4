/* api_file.h - what the MPI-IO entry points (api_file*.c) share. */
#ifndef DFC_API_FILE_H
#define DFC_API_FILE_H

#include "api/dfc_api.h"
#include "io/dfc_io.h"

/* Applies the file's error handler (DFC_FILE_NULL's when f is NULL: open, delete). */
int dfc_api_file_error(dfc_file_t *f, int code);

/* How a data entry point hands its result back. */
enum { DFC_API_FILE_BLOCKING, DFC_API_FILE_NONBLOCKING, DFC_API_FILE_BEGIN };
/* The data entry points: checks fh, the arguments and the access mode against op, then runs
 * op (op.func names the entry point) by mode; errors go to the file's handler. */
int dfc_api_file_rw(DFC_File fh, dfc_io_op_t op, const void *buf, int count, DFC_Datatype datatype,
                    int mode, DFC_Status *status, DFC_Request *request);
/* _end of a split collective. */
int dfc_api_file_end(DFC_File fh, int write, const char *func, DFC_Status *status);

#define DFC_FILE_OP(where_, write_, coll_, off_) \
    ((dfc_io_op_t){.where = (where_),            \
                   .write = (write_),            \
                   .collective = (coll_),        \
                   .offset = (off_),             \
                   .func = __func__})

/* The shape of most file entry points (api_file.c, api_file_pos.c): fh checked into f,
 * then `call`; an error goes through the file's handler. */
#define FILE_ENTRY(call)                                                       \
    int rc;                                                                    \
    dfc_file_t *f = NULL;                                                      \
    DFC_API_ENTER();                                                           \
    if ((rc = dfc_file_check(fh, __func__, "fh", &f)) || (call)) goto fn_fail; \
    fn_exit:                                                                   \
    DFC_API_EXIT();                                                            \
    return rc;                                                                 \
    fn_fail:                                                                   \
    rc = dfc_api_file_error(f, rc);                                            \
    goto fn_exit;

#endif /* DFC_API_FILE_H */
