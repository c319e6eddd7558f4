/*
 * stage_dtype.c - non-contiguous datatypes on device buffers: moving the packed form of
 * count items between the user's device memory and a host buffer (pinned, from the staging
 * pool, when a request stages it: stage.c).
 *
 * The datatype engine walks the type map (dataloop.c, dfc_dtype_move) and hands each run of
 * contiguous bytes, or each set of equal runs at a constant stride (a vector's blocks, a
 * subarray's rows), to the mover below, which issues one cudaMemcpyAsync per run and one
 * cudaMemcpy2DAsync per strided set on a staging stream, then waits once. So a halo column
 * of a 2D grid is one 2D copy, a face of a 3D grid one 2D copy per plane, and no byte
 * outside the type map is ever written: receives into interleaved type maps of one
 * allocation (the halos of one grid) may be in flight together, as MPI allows.
 *
 * A type whose runs are many and small (a struct with gaps and a large count, an indexed
 * type of single elements) would cost a CUDA call per run (1.6 to 5 us each under MPS:
 * BENCHMARKS.md). To pack (reading), such a type's span is copied device-to-host whole into
 * a pooled pinned buffer and packed on the host instead. Unpacking (writing) always goes run
 * by run, since writing the span back would overwrite the gaps, which other operations may
 * be writing meanwhile; a GPU unpack kernel would remove that cost (not built yet).
 */
#include <limits.h>
#include <string.h>

#include "comm/dfc_comm.h"

/* More copies than this and a pack reads the span whole (see above). */
#define DFC_STAGE_DT_COPIES 64
/* cudaMemcpy2D's pitches are at most cudaDevAttrMaxPitch: 2^31 - 1 on current GPUs. */
#define PITCH_MAX ((DFC_Aint)INT_MAX)

typedef struct mover {
    void *stream;
    long copies; /* issued, or counted (counting) */
    int counting;
} mover_t;

/* Issues the copies of nblk runs of `run` bytes, stride apart at u, packed at p. */
static int move_runs(void *arg, char *u, DFC_Aint stride, char *p, size_t run, size_t nblk,
                     int unpack)
{
    mover_t *m = arg;
    const dfc_stage_ops_t *ops = dfc_stage_ops;
    if (nblk == 1 || stride == (DFC_Aint)run) { /* one run */
        if (m->counting) return ++m->copies > DFC_STAGE_DT_COPIES;
        m->copies++;
        return unpack ? ops->copy_async(u, p, run * nblk, m->stream)
                      : ops->copy_async(p, u, run * nblk, m->stream);
    }
    int two_d = ops->copy2d_async && stride >= (DFC_Aint)run && stride <= PITCH_MAX;
    if (m->counting) {
        m->copies += two_d ? 1 : (long)nblk;
        return m->copies > DFC_STAGE_DT_COPIES;
    }
    if (two_d) {
        m->copies++;
        return unpack ? ops->copy2d_async(u, (size_t)stride, p, run, run, nblk, m->stream)
                      : ops->copy2d_async(p, run, u, (size_t)stride, run, nblk, m->stream);
    }
    /* Overlapping (stride < run: only a send may have it) or a pitch too large: by rows. */
    int rc = DFC_SUCCESS;
    for (size_t k = 0; k < nblk && !rc; k++, u += stride, p += run, m->copies++)
        rc = unpack ? ops->copy_async(u, p, run, m->stream) : ops->copy_async(p, u, run, m->stream);
    return rc;
}

static int failed(int rc, const char *what, const dfc_dtype_t *dt)
{
    char why[256];
    dfc_err_message(rc, why, sizeof why);
    return dfc_err(DFC_ERR_CLASS(rc), "dfc_stage_dev_type",
                   "staging a device buffer of the non-contiguous datatype %s: %s failed: %s",
                   dfc_dtype_name(dt), what, why);
}

/* Issues the run copies on x's stream for `dir` and waits for them. */
static int move_all(const dfc_dtype_t *dt, void *dev, uint64_t bytes, void *packed, int unpack,
                    dfc_stage_ctx_t *x)
{
    mover_t m = {.stream = x->stream[unpack]};
    dfc_dtype_mover_t mv = {move_runs, &m, 0};
    int rc = dfc_dtype_move(dt, dev, 0, bytes, packed, unpack, &mv);
    int rc2 = dfc_stage_ops->stream_sync(x->stream[unpack]); /* none left in flight */
    if (rc) return failed(rc, unpack ? "a host-to-device copy" : "a device-to-host copy", dt);
    if (rc2) return failed(rc2, "stream synchronization", dt);
    DFC_LOG(DFC_LOG_TRACE, "stage", "%s %llu bytes of %s: %ld copies",
            unpack ? "unpacked" : "packed", (unsigned long long)bytes, dfc_dtype_name(dt),
            m.copies);
    return DFC_SUCCESS;
}

/* Copies the span [lo, hi) of the items in whole and packs it on the host. */
static int pack_span(const dfc_dtype_t *dt, const char *dev, uint64_t bytes, void *packed,
                     dfc_stage_ctx_t *x)
{
    DFC_Aint lo, hi;
    dfc_dtype_span(dt, bytes / dt->size, &lo, &hi);
    dfc_stage_buf_t *span;
    int rc = dfc_stage_buf_get((size_t)(hi - lo), &span);
    if (rc) return rc;
    rc = dfc_stage_ops->copy_async(span->p, dev + lo, (size_t)(hi - lo), x->stream[0]);
    int rc2 = dfc_stage_ops->stream_sync(x->stream[0]);
    if (!rc && !rc2) dfc_dtype_pack(dt, (char *)span->p - lo, 0, bytes, packed);
    dfc_stage_buf_put(span);
    if (rc || rc2) return failed(rc ? rc : rc2, "the device-to-host copy of the span", dt);
    return DFC_SUCCESS;
}

int dfc_stage_dev_pack(const dfc_dtype_t *dt, const void *dev, uint64_t count, void *packed)
{
    uint64_t bytes = count * dt->size;
    if (!bytes) return DFC_SUCCESS;
    mover_t m = {.counting = 1};
    dfc_dtype_mover_t mv = {move_runs, &m, 0};
    int many = dfc_dtype_move(dt, (void *)dev, 0, bytes, packed, 0, &mv) != DFC_SUCCESS;
    dfc_stage_ctx_t *x;
    int rc = dfc_stage_ctx_get(&x);
    if (rc) return rc;
    rc = many ? pack_span(dt, dev, bytes, packed, x)
              : move_all(dt, (void *)dev, bytes, packed, 0, x);
    dfc_stage_ctx_put(x);
    return rc;
}

int dfc_stage_dev_unpack(const dfc_dtype_t *dt, void *dev, uint64_t bytes, const void *packed)
{
    if (!bytes) return DFC_SUCCESS;
    dfc_stage_ctx_t *x;
    int rc = dfc_stage_ctx_get(&x);
    if (rc) return rc;
    rc = move_all(dt, dev, bytes, (void *)packed, 1, x);
    dfc_stage_ctx_put(x);
    return rc;
}
