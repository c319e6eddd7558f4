/*
 * rw.c - the data path: a user buffer (packed through its datatype when it is not dense)
 * moved to or from the view's data bytes with pread/pwrite, piece by piece along the
 * filetype's runs. Reads stop at the end of the file; the status counts the bytes moved.
 *
 * Nonblocking forms run the access at once and hand out a generalized request that is
 * already complete (POSIX has no asynchronous pread worth its threads here); split
 * collectives keep the status between _begin and _end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/dfc_io.h"

int dfc_io_rw_view(dfc_file_t *f, int write, uint64_t d, char *p, uint64_t n, const char *func,
                   uint64_t *done)
{
    *done = 0;
    while (*done < n) {
        uint64_t avail;
        DFC_Offset at = dfc_io_map(f, d + *done, &avail);
        size_t len = (size_t)DFC_MIN2(avail, n - *done);
        ssize_t got = write ? pwrite(f->fd, p + *done, len, (off_t)at)
                            : pread(f->fd, p + *done, len, (off_t)at);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0)
            return dfc_io_errno(errno, func, write ? "cannot write" : "cannot read", f->path);
        if (got == 0) break; /* the end of the file */
        *done += (uint64_t)got;
    }
    return DFC_SUCCESS;
}

/* Where the access starts, in etypes, moving the pointer it uses past it. */
static int start_of(dfc_file_t *f, const dfc_io_op_t *op, DFC_Offset n, DFC_Offset *start)
{
    switch (op->where) {
    case DFC_IO_AT: *start = op->offset; return DFC_SUCCESS;
    case DFC_IO_INDIV:
        *start = f->pos;
        f->pos += n;
        return DFC_SUCCESS;
    case DFC_IO_SHARED: return dfc_io_sfp_fetch_add(f, n, op->func, start);
    default: return dfc_io_ordered_start(f, n, op->func, start);
    }
}

int dfc_io_xfer(dfc_file_t *f, const dfc_io_op_t *op, DFC_Status *status)
{
    uint64_t bytes = op->count * op->dt->size, es = f->etype->size, done = 0;
    char *p = op->buf;
    DFC_Offset start;
    int rc = start_of(f, op, (DFC_Offset)(bytes / es), &start);
    if (rc) return rc;
    if (bytes && !op->dt->dense && !(p = malloc(bytes)))
        return dfc_err(DFC_ERR_NO_MEM, op->func, "out of memory packing %llu bytes",
                       (unsigned long long)bytes);
    if (p != op->buf && op->write) dfc_dtype_pack(op->dt, op->buf, 0, bytes, p);
    rc = dfc_io_rw_view(f, op->write, (uint64_t)start * es, p, bytes, op->func, &done);
    if (p != op->buf && !op->write) dfc_dtype_unpack(op->dt, op->buf, 0, done, p);
    if (p != op->buf) free(p);
    /* A short read leaves the individual pointer after what was read (MPI-4.1 14.4.3). */
    if (op->where == DFC_IO_INDIV && done < bytes) f->pos -= (DFC_Offset)((bytes - done) / es);
    if (status != DFC_STATUS_IGNORE) {
        dfc_status_empty(status);
        dfc_status_set_bytes(status, done);
        status->DFC_ERROR = rc;
    }
    return rc;
}

int dfc_io_ixfer(dfc_file_t *f, const dfc_io_op_t *op, DFC_Request *request)
{
    DFC_Status st;
    int rc = dfc_io_xfer(f, op, &st);
    if (rc) return rc;
    /* No query function: Wait and Test hand back the status stored in the request. */
    if ((rc = dfc_greq_start(NULL, NULL, NULL, NULL, request))) return rc;
    dfc_req_t *r = dfc_req_get(*request);
    r->status = st;
    dfc_req_complete(r);
    return DFC_SUCCESS;
}

int dfc_io_split_begin(dfc_file_t *f, const dfc_io_op_t *op)
{
    if (f->split)
        return dfc_err(DFC_ERR_OTHER, op->func,
                       "a split collective is already active on this file (MPI-4.1 14.4.5)");
    int rc = dfc_io_xfer(f, op, &f->split_status);
    if (rc) return rc;
    f->split = 1;
    f->split_write = op->write;
    return DFC_SUCCESS;
}

int dfc_io_split_end(dfc_file_t *f, int write, const char *func, DFC_Status *status)
{
    if (!f->split || f->split_write != write)
        return dfc_err(DFC_ERR_OTHER, func, "no matching %s_begin is active on this file",
                       write ? "write" : "read");
    f->split = 0;
    if (status != DFC_STATUS_IGNORE) *status = f->split_status;
    return DFC_SUCCESS;
}

int dfc_io_seek(dfc_file_t *f, DFC_Offset offset, int whence, const char *func)
{
    DFC_Offset base = 0;
    int rc;
    if (whence == DFC_SEEK_CUR) base = f->pos;
    else if (whence == DFC_SEEK_END && (rc = dfc_io_eof_etypes(f, func, &base))) return rc;
    if (base + offset < 0)
        return dfc_err(DFC_ERR_ARG, func,
                       "invalid argument offset: the position would be %lld, "
                       "before the start of the view",
                       (long long)(base + offset));
    f->pos = base + offset;
    return DFC_SUCCESS;
}
