/*
 * file.c - file handles, open/close/delete, size, info, group and sync.
 *
 * Open: the file's communicator is duplicated first (every later agreement runs on the
 * duplicate); rank 0 opens the file first, with O_CREAT/O_EXCL as the mode asks, so that
 * DFC_MODE_EXCL means "created by this open" and the others never race to create it; the
 * others open it once everyone knows rank 0 succeeded. Each step agrees on the worst error,
 * so a failure anywhere fails the call everywhere and no handle leaks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/dfc_io.h"

dfc_htable_t dfc_file_table;
static int table_ready;
DFC_Errhandler dfc_io_null_errhandler = DFC_ERRORS_RETURN;

int dfc_file_check(DFC_File h, const char *func, const char *argname, dfc_file_t **out)
{
    *out = table_ready ? dfc_htable_get(&dfc_file_table, h) : NULL;
    if (*out) return DFC_SUCCESS;
    if (h == DFC_FILE_NULL)
        return dfc_err(DFC_ERR_FILE, func, "invalid argument %s: DFC_FILE_NULL", argname);
    return dfc_err(DFC_ERR_FILE, func, "invalid argument %s: 0x%x is not an open file", argname,
                   (unsigned)h);
}

int dfc_io_errno(int err, const char *func, const char *what, const char *path)
{
    int cls;
    switch (err) {
    case ENOENT: cls = DFC_ERR_NO_SUCH_FILE; break;
    case EACCES:
    case EPERM: cls = DFC_ERR_ACCESS; break;
    case EEXIST: cls = DFC_ERR_FILE_EXISTS; break;
    case EROFS: cls = DFC_ERR_READ_ONLY; break;
    case ENOSPC: cls = DFC_ERR_NO_SPACE; break;
    case EDQUOT: cls = DFC_ERR_QUOTA; break;
    case ENOTDIR:
    case EISDIR:
    case ENAMETOOLONG: cls = DFC_ERR_BAD_FILE; break;
    case ETXTBSY: cls = DFC_ERR_FILE_IN_USE; break;
    default: cls = DFC_ERR_IO;
    }
    return dfc_err(cls, func, "%s %s: %s", what, path, strerror(err));
}

static int open_flags(int amode, int first)
{
    int fl = amode & DFC_MODE_RDONLY ? O_RDONLY : amode & DFC_MODE_WRONLY ? O_WRONLY : O_RDWR;
    if (first && (amode & DFC_MODE_CREATE)) fl |= O_CREAT;
    if (first && (amode & DFC_MODE_EXCL)) fl |= O_EXCL;
    return fl | O_CLOEXEC;
}

/* Opens path on every rank of c (rank 0 first); fd -1 and an agreed error on failure. */
static int open_all(dfc_comm_t *c, const char *path, int amode, const char *func, int *fd)
{
    int rc = DFC_SUCCESS;
    char what[4200];
    snprintf(what, sizeof what, "opening %s", path);
    *fd = -1;
    if (c->rank == 0 && (*fd = open(path, open_flags(amode, 1), 0666)) < 0)
        rc = dfc_io_errno(errno, func, "cannot open", path);
    if ((rc = dfc_io_agree(c, rc, func, what))) goto fail;
    if (c->rank != 0 && (*fd = open(path, open_flags(amode, 0))) < 0)
        rc = dfc_io_errno(errno, func, "cannot open", path);
    if ((rc = dfc_io_agree(c, rc, func, what))) goto fail;
    return DFC_SUCCESS;
fail:
    if (*fd >= 0) close(*fd);
    *fd = -1;
    return rc;
}

static void file_free(dfc_file_t *f)
{
    if (f->fd >= 0) close(f->fd);
    dfc_io_sfp_close(f);
    dfc_io_view_free(f);
    if (f->info) dfc_info_destroy(f->info);
    if (f->comm) dfc_comm_release(f->comm);
    if (f->handle) dfc_htable_remove(&dfc_file_table, f->handle);
    free(f->path);
    free(f);
}

static int file_new(dfc_comm_t *c, const char *path, int amode, const dfc_info_t *info,
                    const char *func, dfc_file_t **out)
{
    dfc_file_t *f = calloc(1, sizeof *f);
    if (f) {
        f->fd = f->sfp_fd = -1;
        f->amode = amode;
        f->errhandler = DFC_ERRORS_RETURN;
        f->path = strdup(path);
        f->info = info ? dfc_info_copy(info) : dfc_info_new();
    }
    if (!f || !f->path || !f->info) {
        if (f) file_free(f);
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory opening %s", path);
    }
    int rc = dfc_comm_dup(c, NULL, &f->comm);
    if (rc) {
        file_free(f);
        return rc;
    }
    *out = f;
    return DFC_SUCCESS;
}

int dfc_io_open(dfc_comm_t *c, const char *path, int amode, const dfc_info_t *info,
                const char *func, DFC_File *fh)
{
    dfc_file_t *f = NULL;
    int rc;
    if (!table_ready) {
        dfc_htable_init(&dfc_file_table, DFC_KIND_FILE, 1);
        table_ready = 1;
    }
    if ((rc = file_new(c, path, amode, info, func, &f))) return rc;
    if ((rc = open_all(f->comm, path, amode, func, &f->fd)) ||
        (rc = dfc_io_set_view(f, 0, dfc_dtype_get(DFC_BYTE), dfc_dtype_get(DFC_BYTE), func)) ||
        (rc = dfc_io_sfp_open(f, func)))
        goto fail;
    if (amode & DFC_MODE_APPEND) { /* both pointers start at the end (MPI-4.1 14.2.1) */
        if ((rc = dfc_io_eof_etypes(f, func, &f->pos))) goto fail;
        if (f->comm->rank == 0 && (rc = dfc_io_sfp_fetch_add(f, f->pos, func, &(DFC_Offset){0})))
            goto fail;
    }
    if (!(f->handle = dfc_htable_add(&dfc_file_table, f))) {
        rc = dfc_err(DFC_ERR_NO_MEM, func, "out of memory for a file handle");
        goto fail;
    }
    *fh = f->handle;
    return DFC_SUCCESS;
fail:
    file_free(f);
    return rc;
}

int dfc_io_close(dfc_file_t *f, const char *func)
{
    /* Everyone's accesses are done before DELETE_ON_CLOSE removes the file. */
    int rc = dfc_io_agree(f->comm, DFC_SUCCESS, func, NULL);
    if (!rc && (f->amode & DFC_MODE_DELETE_ON_CLOSE) && f->comm->rank == 0 && unlink(f->path) != 0)
        rc = dfc_io_errno(errno, func, "cannot delete", f->path);
    file_free(f);
    return rc;
}

int dfc_io_delete(const char *path, const char *func)
{
    if (unlink(path) != 0) return dfc_io_errno(errno, func, "cannot delete", path);
    return DFC_SUCCESS;
}

/* Set_size and Preallocate (grow_only): rank 0 changes the file once every rank has
 * entered (a truncation must not cut a read still running elsewhere), then all agree. */
int dfc_io_set_size(dfc_file_t *f, DFC_Offset size, int grow_only, const char *func)
{
    struct stat st;
    int rc = dfc_io_agree(f->comm, DFC_SUCCESS, func, NULL);
    if (rc) return rc;
    if (f->comm->rank == 0) {
        if (fstat(f->fd, &st) != 0) rc = dfc_io_errno(errno, func, "cannot stat", f->path);
        else if ((!grow_only || size > st.st_size) && ftruncate(f->fd, (off_t)size) != 0)
            rc = dfc_io_errno(errno, func, "cannot resize", f->path);
    }
    return dfc_io_agree(f->comm, rc, func, NULL);
}

int dfc_io_get_size(dfc_file_t *f, const char *func, DFC_Offset *size)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0) return dfc_io_errno(errno, func, "cannot stat", f->path);
    *size = (DFC_Offset)st.st_size;
    return DFC_SUCCESS;
}

int dfc_io_sync(dfc_file_t *f, const char *func)
{
    if (fdatasync(f->fd) != 0 && errno != EINVAL && errno != EROFS)
        return dfc_io_errno(errno, func, "cannot sync", f->path);
    return DFC_SUCCESS;
}

int dfc_io_set_info(dfc_file_t *f, const dfc_info_t *info, const char *func)
{
    dfc_info_t *n = info ? dfc_info_copy(info) : dfc_info_new();
    if (!n) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory copying info");
    dfc_info_destroy(f->info);
    f->info = n;
    return DFC_SUCCESS;
}

int dfc_io_get_info(dfc_file_t *f, const char *func, DFC_Info *info)
{
    return dfc_info_dup_handle(f->info, func, info);
}

int dfc_io_get_group(dfc_file_t *f, const char *func, DFC_Group *group)
{
    return dfc_group_new_handle(f->comm->size, f->comm->world, func, group);
}
