/*
 * dfc_io.h - the io layer: MPI-IO files (MPI-4.1 chapter 14) over POSIX pread/pwrite.
 *
 * Above coll (it agrees on results with small blocking allreduces over a duplicate of the
 * file's communicator, so that its traffic never meets the user's), below api, which checks
 * arguments and makes one call here. Each rank opens the file itself and moves its own data
 * with pread/pwrite; collective data calls do the independent operation (POSIX gives every
 * rank the same file, so nothing needs exchanging), and the calls MPI makes collective on
 * the file's state (open, close, set_size, preallocate, set_view, seek_shared, ordered
 * access) agree through the duplicate. Only the "native" representation exists.
 *
 * Files: file.c (handles, open/close/delete, size, info, group, sync), agree.c (the
 * allreduces), view.c (views: the filetype flattened into runs, offsets mapped to bytes),
 * rw.c (the data path and its requests), shared.c (the shared file pointer and ordered
 * access).
 */
#ifndef DFC_IO_H
#define DFC_IO_H

#include "comm/dfc_comm.h"

/* One contiguous piece of a filetype: `len` bytes at byte displacement `off` of a tile,
 * holding bytes [pofs, pofs + len) of the tile's data. */
typedef struct dfc_io_run {
    DFC_Aint off;
    uint64_t len, pofs;
} dfc_io_run_t;

typedef struct dfc_file {
    int handle;
    int fd;
    int amode;
    int atomic; /* Set_atomicity's flag (kept; POSIX pwrite is what makes it hold) */
    char *path;
    dfc_comm_t *comm;          /* a duplicate of the user's communicator */
    dfc_info_t *info;          /* the hints given (never NULL) */
    DFC_Errhandler errhandler; /* DFC_ERRORS_RETURN until File_set_errhandler (MPI 9.3) */
    /* the view */
    DFC_Offset disp;
    dfc_dtype_t *etype, *ftype; /* held */
    dfc_io_run_t *runs;         /* the filetype's data in one tile, in order */
    size_t nruns;
    DFC_Offset pos;  /* the individual file pointer, in etypes of the view */
    int sfp_fd;      /* the shared file pointer's lock file (unlinked), -1: none */
    int split;       /* a split collective is between _begin and _end */
    int split_write; /* ... and whether it writes */
    DFC_Status split_status;
} dfc_file_t;

extern dfc_htable_t dfc_file_table;
/* The handler of DFC_FILE_NULL: what errors of File_open and File_delete go to. */
extern DFC_Errhandler dfc_io_null_errhandler;

int dfc_file_check(DFC_File h, const char *func, const char *argname, dfc_file_t **out);

/* file.c */
int dfc_io_open(dfc_comm_t *c, const char *path, int amode, const dfc_info_t *info,
                const char *func, DFC_File *fh);
int dfc_io_close(dfc_file_t *f, const char *func); /* frees f */
int dfc_io_delete(const char *path, const char *func);
int dfc_io_set_size(dfc_file_t *f, DFC_Offset size, int grow_only, const char *func);
int dfc_io_get_size(dfc_file_t *f, const char *func, DFC_Offset *size);
int dfc_io_sync(dfc_file_t *f, const char *func);
int dfc_io_set_info(dfc_file_t *f, const dfc_info_t *info, const char *func);
int dfc_io_get_info(dfc_file_t *f, const char *func, DFC_Info *info);
int dfc_io_get_group(dfc_file_t *f, const char *func, DFC_Group *group);
/* An errno of open/pread/... as an error class with a message naming func and path. */
int dfc_io_errno(int err, const char *func, const char *what, const char *path);

/* agree.c: blocking allreduces of n int64 values over the file's duplicate. */
int dfc_io_allreduce(dfc_file_t *f, int64_t *vals, int n, int sum, const char *func);
/* Every rank learns the worst error class (0: none); a rank whose own call succeeded records
 * a message saying that `what` (e.g. "opening <path>"; NULL: the call) failed on another
 * rank. Returns that class. */
int dfc_io_agree(dfc_comm_t *c, int rc, const char *func, const char *what);

/* view.c */
int dfc_io_set_view(dfc_file_t *f, DFC_Offset disp, dfc_dtype_t *etype, dfc_dtype_t *ftype,
                    const char *func);
int dfc_io_get_view(dfc_file_t *f, const char *func, DFC_Offset *disp, DFC_Datatype *etype,
                    DFC_Datatype *ftype, char *datarep);
void dfc_io_view_free(dfc_file_t *f);
/* The byte of the file that holds data byte d of the view, and how many data bytes follow
 * it contiguously. */
DFC_Offset dfc_io_map(const dfc_file_t *f, uint64_t d, uint64_t *avail);
/* The end of the file in etypes of the view (the first etype at or beyond it). */
int dfc_io_eof_etypes(dfc_file_t *f, const char *func, DFC_Offset *out);
int dfc_io_byte_offset(dfc_file_t *f, DFC_Offset offset, DFC_Offset *disp);

/* rw.c: one data access. */
enum { DFC_IO_AT, DFC_IO_INDIV, DFC_IO_SHARED, DFC_IO_ORDERED };
typedef struct dfc_io_op {
    int where;         /* DFC_IO_AT ... DFC_IO_ORDERED */
    int write;         /* else read */
    int collective;    /* _all and ordered forms (all ranks call) */
    DFC_Offset offset; /* DFC_IO_AT: in etypes */
    void *buf;
    uint64_t count;
    dfc_dtype_t *dt;
    const char *func;
} dfc_io_op_t;
int dfc_io_xfer(dfc_file_t *f, const dfc_io_op_t *op, DFC_Status *status);
/* The same, handing out a request that is already complete (a generalized one). */
int dfc_io_ixfer(dfc_file_t *f, const dfc_io_op_t *op, DFC_Request *request);
/* Split collectives: _begin does the access, _end hands its status back. */
int dfc_io_split_begin(dfc_file_t *f, const dfc_io_op_t *op);
int dfc_io_split_end(dfc_file_t *f, int write, const char *func, DFC_Status *status);
/* Moves bytes [d, d + n) of the view's data from or to p; *done: bytes moved (a read stops
 * at the end of the file). */
int dfc_io_rw_view(dfc_file_t *f, int write, uint64_t d, char *p, uint64_t n, const char *func,
                   uint64_t *done);
int dfc_io_seek(dfc_file_t *f, DFC_Offset offset, int whence, const char *func);

/* shared.c */
int dfc_io_sfp_open(dfc_file_t *f, const char *func);
void dfc_io_sfp_close(dfc_file_t *f);
/* Adds delta etypes to the shared pointer; *old: its value before. */
int dfc_io_sfp_fetch_add(dfc_file_t *f, DFC_Offset delta, const char *func, DFC_Offset *old);
int dfc_io_sfp_get(dfc_file_t *f, const char *func, DFC_Offset *pos);
int dfc_io_seek_shared(dfc_file_t *f, DFC_Offset offset, int whence, const char *func);
/* Ordered access: this rank's start in etypes, the shared pointer moved past all ranks. */
int dfc_io_ordered_start(dfc_file_t *f, DFC_Offset netypes, const char *func, DFC_Offset *start);

#endif /* DFC_IO_H */
