/*
 * shared.c - the shared file pointer (MPI-4.1 14.4.4) and ordered access.
 *
 * The pointer is 8 bytes in a small lock file that rank 0 creates beside the data file at
 * open (in $TMPDIR when that directory is not writable), that every rank opens and that
 * rank 0 then unlinks: nothing of it outlives the job, even one that is killed. Each access
 * takes a POSIX record lock on it (fcntl F_SETLKW), reads the pointer, writes the moved one
 * and unlocks. Why a file rather than rank 0 answering messages: Read_shared and
 * Write_shared are independent, so rank 0 may be computing, or inside a blocking call of its
 * own, when another rank needs the pointer; a lock file needs nobody else's progress and
 * works wherever the data file is shared (fcntl locks hold across NFS clients).
 *
 * Ordered access is collective: the counts are gathered (an allreduce of a vector with each
 * rank's own slot filled), rank 0 moves the pointer past all of them once, and hands out the
 * old value; each rank starts after the ranks before it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/dfc_io.h"

static int64_t sfp_seq;

static void sfp_name(const dfc_file_t *f, const int64_t *v, char *out, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    if (v[2] == 1)
        snprintf(out, n, "%s.dfc-sfp.%lld.%lld", f->path, (long long)v[0], (long long)v[1]);
    else
        snprintf(out, n, "%s/dfc-sfp.%lld.%lld", tmp && *tmp ? tmp : "/tmp", (long long)v[0],
                 (long long)v[1]);
}

/* Rank 0: creates the lock file holding a zero pointer; v[2]: where (0: nowhere). */
static void sfp_create(dfc_file_t *f, int64_t *v, char *name, size_t n)
{
    v[0] = (int64_t)getpid();
    v[1] = ++sfp_seq;
    for (v[2] = 1; v[2] <= 2; v[2]++) {
        sfp_name(f, v, name, n);
        int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) continue;
        int64_t zero = 0;
        if (pwrite(fd, &zero, sizeof zero, 0) == (ssize_t)sizeof zero) {
            f->sfp_fd = fd;
            return;
        }
        close(fd);
        unlink(name);
    }
    v[2] = 0;
}

int dfc_io_sfp_open(dfc_file_t *f, const char *func)
{
    int64_t v[3] = {0, 0, 0};
    char name[4096];
    int rc;
    if (f->comm->rank == 0) sfp_create(f, v, name, sizeof name);
    if ((rc = dfc_io_allreduce(f, v, 3, 0, func))) return rc;
    if (!v[2]) return DFC_SUCCESS; /* no shared pointer: its calls will say so */
    if (f->comm->rank != 0) {
        sfp_name(f, v, name, sizeof name);
        f->sfp_fd = open(name, O_RDWR | O_CLOEXEC);
    }
    int64_t failed = f->sfp_fd < 0;
    rc = dfc_io_allreduce(f, &failed, 1, 0, func);
    if (f->comm->rank == 0) unlink(name); /* everyone holds it open now (or gave up) */
    if (rc || failed) dfc_io_sfp_close(f);
    return rc;
}

void dfc_io_sfp_close(dfc_file_t *f)
{
    if (f->sfp_fd >= 0) close(f->sfp_fd);
    f->sfp_fd = -1;
}

static int sfp_lock(dfc_file_t *f, short type, const char *func)
{
    if (f->sfp_fd < 0)
        return dfc_err(DFC_ERR_UNSUPPORTED_OPERATION, func,
                       "no shared file pointer for %s: its lock file could not be created "
                       "beside it or in $TMPDIR, or opened by every process",
                       f->path);
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 8};
    while (fcntl(f->sfp_fd, F_SETLKW, &fl) != 0)
        if (errno != EINTR)
            return dfc_io_errno(errno, func, "cannot lock the shared pointer of", f->path);
    return DFC_SUCCESS;
}

static void sfp_unlock(dfc_file_t *f)
{
    struct flock fl = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 8};
    (void)fcntl(f->sfp_fd, F_SETLK, &fl);
}

int dfc_io_sfp_fetch_add(dfc_file_t *f, DFC_Offset delta, const char *func, DFC_Offset *old)
{
    int64_t v = 0;
    int rc = sfp_lock(f, F_WRLCK, func);
    if (rc) return rc;
    if (pread(f->sfp_fd, &v, sizeof v, 0) != (ssize_t)sizeof v) rc = DFC_ERR_IO;
    int64_t nv = v + delta;
    if (!rc && pwrite(f->sfp_fd, &nv, sizeof nv, 0) != (ssize_t)sizeof nv) rc = DFC_ERR_IO;
    sfp_unlock(f);
    if (rc) return dfc_err(rc, func, "cannot update the shared pointer of %s", f->path);
    *old = v;
    return DFC_SUCCESS;
}

int dfc_io_sfp_get(dfc_file_t *f, const char *func, DFC_Offset *pos)
{
    int64_t v = 0;
    int rc = sfp_lock(f, F_RDLCK, func);
    if (rc) return rc;
    ssize_t got = pread(f->sfp_fd, &v, sizeof v, 0);
    sfp_unlock(f);
    if (got != (ssize_t)sizeof v)
        return dfc_err(DFC_ERR_IO, func, "cannot read the shared pointer of %s", f->path);
    *pos = v;
    return DFC_SUCCESS;
}

/* Collective: rank 0 moves the pointer; the agreement is the barrier MPI asks for. */
int dfc_io_seek_shared(dfc_file_t *f, DFC_Offset offset, int whence, const char *func)
{
    int rc = DFC_SUCCESS;
    if (f->comm->rank == 0) {
        DFC_Offset base = 0, old;
        if (whence == DFC_SEEK_CUR) rc = dfc_io_sfp_get(f, func, &base);
        else if (whence == DFC_SEEK_END) rc = dfc_io_eof_etypes(f, func, &base);
        if (!rc && base + offset < 0)
            rc = dfc_err(DFC_ERR_ARG, func,
                         "invalid argument offset: the shared position would "
                         "be %lld, before the start of the view",
                         (long long)(base + offset));
        if (!rc && !(rc = dfc_io_sfp_get(f, func, &old)))
            rc = dfc_io_sfp_fetch_add(f, base + offset - old, func, &old);
    }
    return dfc_io_agree(f->comm, rc, func, NULL);
}

int dfc_io_ordered_start(dfc_file_t *f, DFC_Offset netypes, const char *func, DFC_Offset *start)
{
    int n = f->comm->size, me = f->comm->rank, rc;
    int64_t *v = calloc((size_t)n + 1, sizeof *v);
    if (!v) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory for %d counts", n);
    v[me] = netypes;
    if ((rc = dfc_io_allreduce(f, v, n, 1, func))) goto out;
    DFC_Offset total = 0, before = 0, base = 0;
    for (int i = 0; i < n; i++) {
        if (i == me) before = total;
        total += v[i];
    }
    if (me == 0) rc = dfc_io_sfp_fetch_add(f, total, func, &base);
    int64_t b[2] = {me == 0 ? base : 0, me == 0 ? rc & 0xff : 0}; /* the class */
    int arc = dfc_io_allreduce(f, b, 2, 1, func);
    if (!rc && !(rc = arc) && b[1])
        rc = dfc_err((int)b[1], func, "rank 0 could not move the shared pointer");
    *start = b[0] + before;
out:
    free(v);
    return rc;
}
