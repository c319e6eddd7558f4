/*
 * view.c - file views (MPI-4.1 14.3): displacement, etype, filetype, "native" only.
 *
 * The filetype is flattened once, at Set_view, through the datatype engine's layout
 * (vectors and block lists down to contiguous pieces) into the runs of one tile, adjacent
 * runs merged. Data byte d of the view then lies in tile d / size at run r (a binary search
 * on the runs' packed offsets): disp + tile * extent + runs[r].off + the rest.
 */
#include <stdlib.h>
#include <string.h>

#include "io/dfc_io.h"

typedef struct runs {
    dfc_io_run_t *v;
    size_t n, cap;
    uint64_t pofs;
} runs_t;

static int add_run(runs_t *r, DFC_Aint off, uint64_t len)
{
    if (!len) return DFC_SUCCESS;
    if (r->n && r->v[r->n - 1].off + (DFC_Aint)r->v[r->n - 1].len == off) {
        r->v[r->n - 1].len += len;
    } else {
        if (r->n == r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 16;
            dfc_io_run_t *v = realloc(r->v, cap * sizeof *v);
            if (!v) return DFC_ERR_NO_MEM;
            r->v = v;
            r->cap = cap;
        }
        r->v[r->n++] = (dfc_io_run_t){off, len, r->pofs};
    }
    r->pofs += len;
    return DFC_SUCCESS;
}

/* Appends the runs of one item of t at byte displacement base, in type-map order. */
static int flatten(const dfc_dtype_t *t, DFC_Aint base, runs_t *r)
{
    int rc = DFC_SUCCESS;
    if (t->contig) return add_run(r, base + t->true_lb, t->size);
    if (t->dl_kind == DFC_DL_VECTOR) {
        const dfc_dtype_t *c = t->dl_child;
        for (size_t i = 0; i < t->dl_count && !rc; i++)
            for (size_t j = 0; j < t->dl_blen && !rc; j++)
                rc = flatten(c, base + (DFC_Aint)i * t->dl_stride + (DFC_Aint)j * c->extent, r);
        return rc;
    }
    for (size_t i = 0; i < t->dl_count && !rc; i++) { /* DFC_DL_BLOCKS */
        const dfc_dtype_t *c = t->dl_types[i];
        for (size_t j = 0; j < t->dl_blens[i] && !rc; j++)
            rc = flatten(c, base + t->dl_displs[i] + (DFC_Aint)j * c->extent, r);
    }
    return rc;
}

void dfc_io_view_free(dfc_file_t *f)
{
    if (f->etype) dfc_dtype_release(f->etype);
    if (f->ftype) dfc_dtype_release(f->ftype);
    free(f->runs);
    f->etype = f->ftype = NULL;
    f->runs = NULL;
    f->nruns = 0;
}

int dfc_io_set_view(dfc_file_t *f, DFC_Offset disp, dfc_dtype_t *etype, dfc_dtype_t *ftype,
                    const char *func)
{
    runs_t r = {0};
    int rc = flatten(ftype, 0, &r);
    if (rc) {
        free(r.v);
        return dfc_err(DFC_ERR_NO_MEM, func, "out of memory flattening the filetype");
    }
    for (size_t i = 1; i < r.n; i++)
        if (r.v[i].off < r.v[i - 1].off + (DFC_Aint)r.v[i - 1].len) {
            free(r.v);
            return dfc_err(DFC_ERR_TYPE, func,
                           "invalid argument filetype: its displacements "
                           "decrease or overlap (MPI-4.1 14.3)");
        }
    dfc_dtype_retain(etype);
    dfc_dtype_retain(ftype);
    dfc_io_view_free(f);
    f->disp = disp;
    f->etype = etype;
    f->ftype = ftype;
    f->runs = r.v;
    f->nruns = r.n;
    f->pos = 0; /* Set_view resets the individual and shared pointers */
    if (f->sfp_fd >= 0 && f->comm->rank == 0) {
        DFC_Offset old;
        if ((rc = dfc_io_sfp_get(f, func, &old)) ||
            (rc = dfc_io_sfp_fetch_add(f, -old, func, &old)))
            return rc;
    }
    return dfc_io_agree(f->comm, DFC_SUCCESS, func, NULL);
}

int dfc_io_get_view(dfc_file_t *f, const char *func, DFC_Offset *disp, DFC_Datatype *etype,
                    DFC_Datatype *ftype, char *datarep)
{
    int rc;
    if ((rc = dfc_dtype_alias(func, f->etype, etype))) return rc;
    if ((rc = dfc_dtype_alias(func, f->ftype, ftype))) return rc;
    *disp = f->disp;
    strcpy(datarep, "native");
    return DFC_SUCCESS;
}

DFC_Offset dfc_io_map(const dfc_file_t *f, uint64_t d, uint64_t *avail)
{
    uint64_t size = f->ftype->size, tile = d / size, w = d % size;
    size_t lo = 0, hi = f->nruns; /* the last run with pofs <= w */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (f->runs[mid].pofs <= w) lo = mid;
        else hi = mid;
    }
    const dfc_io_run_t *r = &f->runs[lo];
    *avail = r->len - (w - r->pofs);
    return f->disp + (DFC_Offset)tile * f->ftype->extent + r->off + (DFC_Offset)(w - r->pofs);
}

int dfc_io_byte_offset(dfc_file_t *f, DFC_Offset offset, DFC_Offset *disp)
{
    uint64_t avail;
    *disp = dfc_io_map(f, (uint64_t)offset * f->etype->size, &avail);
    return DFC_SUCCESS;
}

int dfc_io_eof_etypes(dfc_file_t *f, const char *func, DFC_Offset *out)
{
    DFC_Offset size;
    int rc = dfc_io_get_size(f, func, &size);
    if (rc) return rc;
    DFC_Offset span = size - f->disp;
    uint64_t data = 0;
    if (span > 0) { /* data bytes of the view that lie before the end */
        DFC_Offset ext = f->ftype->extent, tiles = ext > 0 ? span / ext : 0;
        DFC_Offset rest = span - tiles * ext;
        data = (uint64_t)tiles * f->ftype->size;
        for (size_t i = 0; i < f->nruns && f->runs[i].off < rest; i++)
            data += DFC_MIN2(f->runs[i].len, (uint64_t)(rest - f->runs[i].off));
    }
    uint64_t es = f->etype->size;
    *out = (DFC_Offset)((data + es - 1) / es);
    return DFC_SUCCESS;
}
