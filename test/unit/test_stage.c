/*
 * test_stage - the staging fallback for device buffers (src/comm/stage.c, stage_pool.c)
 * against a stand-in for the CUDA runtime, so that it runs without a GPU:
 *   - "device memory" is host memory the stand-in calls device memory; its copies are
 *     deferred: a copy runs only when an event recorded after it, or its stream, is
 *     synchronized, so a buffer read before its copy was waited for, or reused while a copy
 *     out of it was in flight, shows up as wrong data;
 *   - the pipeline at 0 B, 1 B, odd sizes, sizes around and many times the chunk, item sizes
 *     1, 4 and 12, depths 1 to 5, for every shape of input and output (device to device, one
 *     device buffer in place, device to host, host to device, input only, output only):
 *     every segment sees exactly its input bytes, the output is checked byte by byte and
 *     the bytes past it are untouched; while chunk k runs the copy in of chunk k+1 has been
 *     issued and the copy out of chunk k-1 is still in flight (the overlap);
 *   - the pool: buffers and copy contexts are made once and reused (no allocation after the
 *     first call), the cap holds (past it a buffer of the call's own, released when given
 *     back), finalize releases everything;
 *   - errors: a copy failing at any position, a segment failing, a pinned allocation
 *     failing: the error comes back with a message naming the chunk and the direction, and
 *     nothing is left in use or in flight;
 *   - request shadows (dfc_req_stage, _in, _out, unstage) on device and host buffers;
 *   - non-contiguous datatypes on device buffers (test_dev_types).
 * Prints "ok: ..." lines and exits 0, or reports each failure and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

#include "unit_check.h"

#include "fake_stage_ops.h" /* the stand-in */

/* ---- the pipeline ---- */
static unsigned char src_byte(size_t i) { return (unsigned char)(i * 131 + 17 + (i >> 9)); }
static unsigned char out_byte(size_t i) { return (unsigned char)(src_byte(i) ^ 0x5a) + 3; }

typedef struct seg_check {
    int has_in, has_out;
    long calls;
    size_t next_off;
    int bad_in, fail_at; /* fail_at: the segment that returns an error (-1: none) */
    long copies_at[4096];
} seg_check_t;

static int segment(void *arg, void *in, void *out, size_t off, size_t n)
{
    seg_check_t *c = arg;
    CHECK(off == c->next_off, "segment at offset %zu, expected %zu", off, c->next_off);
    c->next_off = off + n;
    if (c->calls < 4096) c->copies_at[c->calls] = copies;
    if (c->calls++ == c->fail_at) return dfc_err(DFC_ERR_OTHER, "segment", "segment fails");
    CHECK(!c->has_in == !in && !c->has_out == !out, "segment buffers present: in %p out %p", in,
          out);
    /* 0 bytes: one call with the buffers as given (a collective of 0 items still runs) */
    CHECK(!n || !in || !f_is_device(in), "segment input is device memory");
    CHECK(!n || !out || !f_is_device(out), "segment output is device memory");
    const unsigned char *ip = in;
    unsigned char *op = out;
    for (size_t i = 0; in && i < n; i++)
        if (ip[i] != src_byte(off + i)) {
            if (!c->bad_in++)
                CHECK(0, "segment input byte %zu is 0x%02x, expected 0x%02x", off + i, ip[i],
                      src_byte(off + i));
            break;
        }
    for (size_t i = 0; out && i < n; i++) op[i] = out_byte(off + i);
    return DFC_SUCCESS;
}

enum { DD, ALIAS, DH, HD, D_ONLY, ONLY_D, NSHAPES };
static const char *shape_name[] = {"dev->dev",  "dev in place", "dev->host",
                                   "host->dev", "dev->none",    "none->dev"};

static void set_params(const char *chunk, const char *depth, const char *cap)
{
    setenv("DFC_STAGE_CHUNK", chunk, 1);
    setenv("DFC_STAGE_CHUNK_MIN", chunk, 1); /* fixed chunks (test_chunk_size varies them) */
    setenv("DFC_STAGE_DEPTH", depth, 1);
    setenv("DFC_STAGE_POOL_MAX", cap, 1);
    dfc_stage_set_ops(&fake); /* finalizes: the parameters are read again */
}

/* One pipeline run of `shape` over n bytes; returns its code. */
static int run_shape(int shape, size_t n, size_t unit, seg_check_t *c, unsigned char **bufs)
{
    int in_dev = shape == DD || shape == ALIAS || shape == DH || shape == D_ONLY;
    int out_dev = shape == DD || shape == ALIAS || shape == HD || shape == ONLY_D;
    int has_in = shape != ONLY_D, has_out = shape != D_ONLY;
    unsigned char *in = has_in ? (in_dev ? dev_alloc(n) : malloc(n + 64)) : NULL;
    unsigned char *out = shape == ALIAS ? in
                         : has_out      ? (out_dev ? dev_alloc(n) : malloc(n + 64))
                                        : NULL;
    for (size_t i = 0; in && i < n + 64; i++) in[i] = src_byte(i);
    if (out && out != in) memset(out, 0xee, n + 64);
    memset(c, 0, sizeof *c);
    c->has_in = has_in;
    c->has_out = has_out;
    c->fail_at = -1;
    dfc_stage_pipe_t p = {in, out, n, unit, segment, c};
    int rc = dfc_stage_pipeline(&p);
    bufs[0] = in;
    bufs[1] = out;
    return rc;
}

static void free_shape(unsigned char **bufs)
{
    for (int i = 0; i < 2; i++) {
        if (i == 1 && bufs[1] == bufs[0]) break;
        if (!bufs[i]) continue;
        if (f_is_device(bufs[i])) dev_free(bufs[i]);
        else free(bufs[i]);
    }
}

static void check_output(int shape, size_t n, const unsigned char *out)
{
    if (!out) return;
    for (size_t i = 0; i < n; i++)
        if (out[i] != out_byte(i)) {
            CHECK(0, "%s, %zu bytes: output byte %zu is 0x%02x, expected 0x%02x", shape_name[shape],
                  n, i, out[i], out_byte(i));
            return;
        }
    unsigned char tail = shape == ALIAS ? 0 : 0xee;
    for (size_t i = n; i < n + 64; i++)
        if (out[i] != (shape == ALIAS ? src_byte(i) : tail)) {
            CHECK(0, "%s, %zu bytes: byte %zu past the output was written", shape_name[shape], n,
                  i);
            return;
        }
}

static void test_pipeline(void)
{
    static const size_t sizes[] = {
        0, 1, 7, 4095, 4096, 4097, 3 * 4096 + 5, 10 * 4096 + 3, 40000 * 3 + 1};
    static const size_t units[] = {1, 4, 12};
    int runs = 0;
    for (int depth = 1; depth <= 5; depth++) {
        char d[8];
        snprintf(d, sizeof d, "%d", depth);
        set_params("4096", d, "1048576");
        for (int shape = 0; shape < NSHAPES; shape++)
            for (size_t u = 0; u < 3; u++)
                for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
                    size_t unit = units[u], n = sizes[si] / unit * unit;
                    if (sizes[si] && !n) continue;
                    seg_check_t c;
                    unsigned char *bufs[2];
                    int rc = run_shape(shape, n, unit, &c, bufs);
                    CHECK(rc == DFC_SUCCESS, "%s, %zu bytes: pipeline failed (%d)",
                          shape_name[shape], n, rc);
                    size_t chunk = 4096 / unit * unit;
                    long nchunks = n ? (long)((n + chunk - 1) / chunk) : 1;
                    CHECK(c.calls == nchunks, "%s, %zu bytes: %ld segments, expected %ld",
                          shape_name[shape], n, c.calls, nchunks);
                    CHECK(c.next_off == n, "segments covered %zu of %zu bytes", c.next_off, n);
                    check_output(shape, n, bufs[1]);
                    dfc_stage_stats_t st;
                    dfc_stage_get_stats(&st);
                    CHECK(st.in_use == 0 && st.ctx_in_use == 0,
                          "after a run: %ld buffers, %ld contexts in use", st.in_use,
                          st.ctx_in_use);
                    free_shape(bufs);
                    runs++;
                }
    }
    printf("ok: pipeline, %d runs (6 shapes, 3 item sizes, 9 sizes, depths 1-5)\n", runs);
}

/* While chunk k runs, chunk k+1's copy in is issued and chunk k-1's copy out in flight. */
static long out_pending;
static int overlap_segment(void *arg, void *in, void *out, size_t off, size_t n)
{
    seg_check_t *c = arg;
    long k = (long)(off / 4096);
    fstream_t *outs = NULL;
    (void)outs;
    /* copies issued so far, dev->dev at depth 3: in of chunks 0..k+2, out of 0..k-1 */
    long want = (k + 3 < 8 ? k + 3 : 8) + k;
    CHECK(copies == want, "at chunk %ld: %ld copies issued, expected %ld", k, copies, want);
    (void)out_pending;
    return segment(c, in, out, off, n);
}

static void test_overlap(void)
{
    set_params("4096", "3", "1048576");
    size_t n = 8 * 4096;
    unsigned char *in = dev_alloc(n), *out = dev_alloc(n);
    for (size_t i = 0; i < n + 64; i++) in[i] = src_byte(i);
    memset(out, 0xee, n + 64);
    seg_check_t c = {.has_in = 1, .has_out = 1, .fail_at = -1};
    copies = 0;
    dfc_stage_pipe_t p = {in, out, n, 4, overlap_segment, &c};
    CHECK(dfc_stage_pipeline(&p) == DFC_SUCCESS, "overlap run failed");
    check_output(DD, n, out);
    /* the copy out of chunk k-1 was in flight (not yet executed) when chunk k ran: check it
     * through the stand-in's streams of the context now idle */
    dev_free(in);
    dev_free(out);
    printf("ok: overlap, the copy in of chunk k+1 issued before chunk k runs\n");
}

/* Deferred copies prove that a copy out was still pending while the next chunk ran. */
static fstream_t *out_stream;
static int pending_segment(void *arg, void *in, void *out, size_t off, size_t n)
{
    seg_check_t *c = arg;
    long k = (long)(off / 4096);
    if (k > 0 && out_stream)
        CHECK(out_stream->nq - out_stream->done >= 1,
              "at chunk %ld the copy out of chunk %ld was already waited for", k, k - 1);
    return segment(c, in, out, off, n);
}

static void test_pending(void)
{
    set_params("4096", "3", "1048576");
    dfc_stage_ctx_t *x;
    CHECK(dfc_stage_ctx_get(&x) == DFC_SUCCESS, "context");
    out_stream = x->stream[1];
    dfc_stage_ctx_put(x); /* the pipeline takes this one again */
    size_t n = 6 * 4096;
    unsigned char *in = dev_alloc(n), *out = dev_alloc(n);
    for (size_t i = 0; i < n + 64; i++) in[i] = src_byte(i);
    memset(out, 0xee, n + 64);
    seg_check_t c = {.has_in = 1, .has_out = 1, .fail_at = -1};
    dfc_stage_pipe_t p = {in, out, n, 1, pending_segment, &c};
    CHECK(dfc_stage_pipeline(&p) == DFC_SUCCESS, "pending run failed");
    check_output(DD, n, out);
    out_stream = NULL;
    dev_free(in);
    dev_free(out);
    printf("ok: the copy out of chunk k-1 is in flight while chunk k runs\n");
}

/* A message is cut into depth chunks between DFC_STAGE_CHUNK_MIN and DFC_STAGE_CHUNK. */
static void test_chunk_size(void)
{
    static const struct {
        size_t bytes, unit;
        long chunks;
    } cases[] = {
        {100, 1, 1},      {4096, 1, 1},         {8192, 4, 2},
        {20000, 1, 4},    {20004, 12, 4}, /* 4 of 5004, not 4 of 4992 and a fifth of 36 bytes */
        {262144, 4, 4},   {262147, 1, 5},       {1000000, 8, 16},
        {1048576, 1, 16}, {65536 * 4 + 1, 1, 5}};
    set_params("65536", "4", "1048576");
    setenv("DFC_STAGE_CHUNK_MIN", "4096", 1);
    dfc_stage_set_ops(&fake);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = cases[i].bytes;
        unsigned char *in = dev_alloc(n), *out = dev_alloc(n);
        for (size_t j = 0; j < n + 64; j++) in[j] = src_byte(j);
        memset(out, 0xee, n + 64);
        seg_check_t c = {.has_in = 1, .has_out = 1, .fail_at = -1};
        dfc_stage_pipe_t p = {in, out, n, cases[i].unit, segment, &c};
        CHECK(dfc_stage_pipeline(&p) == DFC_SUCCESS, "%zu bytes failed", n);
        CHECK(c.calls == cases[i].chunks, "%zu bytes of %zu-byte items: %ld chunks, expected %ld",
              n, cases[i].unit, c.calls, cases[i].chunks);
        check_output(DD, n, out);
        dev_free(in);
        dev_free(out);
    }
    printf("ok: chunk sizes (depth pieces between the minimum and the maximum)\n");
}

static void test_pool(void)
{
    set_params("4096", "4", "1048576");
    seg_check_t c;
    unsigned char *bufs[2];
    run_shape(DD, 100000, 4, &c, bufs);
    free_shape(bufs);
    dfc_stage_stats_t a, b;
    dfc_stage_get_stats(&a);
    for (int i = 0; i < 50; i++) {
        run_shape(i % 2 ? DD : ALIAS, 100000 - i * 12, 4, &c, bufs);
        free_shape(bufs);
    }
    dfc_stage_get_stats(&b);
    CHECK(b.allocs == a.allocs && b.ctxs == 1, "reuse: %ld allocations then %ld, %ld contexts",
          a.allocs, b.allocs, b.ctxs);
    CHECK(a.held == 8 * 65536, "held %zu bytes, expected 8 x 64 KiB", a.held);
    /* the cap: 128 KiB holds two 64 KiB buffers; the third is the call's own */
    set_params("4096", "4", "131072");
    dfc_stage_buf_t *x[3];
    for (int i = 0; i < 3; i++) CHECK(!dfc_stage_buf_get(1000, &x[i]), "get %d", i);
    dfc_stage_get_stats(&a);
    CHECK(a.held == 131072 && a.transients == 1 && live_host == 3, "cap: held %zu, %ld transients",
          a.held, a.transients);
    for (int i = 0; i < 3; i++) dfc_stage_buf_put(x[i]);
    CHECK(live_host == 2, "the transient buffer was not released (%ld live)", live_host);
    /* a bigger class evicts idle ones to stay under the cap */
    CHECK(!dfc_stage_buf_get(100000, &x[0]), "get 128 KiB");
    dfc_stage_get_stats(&a);
    CHECK(a.held == 131072 && a.transients == 1 && live_host == 1, "eviction: held %zu, %ld live",
          a.held, live_host);
    dfc_stage_buf_put(x[0]);
    dfc_stage_finalize();
    CHECK(live_host == 0 && live_streams == 0 && live_events == 0,
          "finalize left %ld buffers, %ld streams, %ld events", live_host, live_streams,
          live_events);
    printf("ok: pool reuse (no allocation in 50 calls), cap, eviction, finalize\n");
}

static void check_msg(int rc, const char *want1, const char *want2)
{
    char msg[512];
    dfc_err_message(rc, msg, sizeof msg);
    CHECK(DFC_ERR_CLASS(rc) == DFC_ERR_OTHER, "class %d, message %s", DFC_ERR_CLASS(rc), msg);
    CHECK(strstr(msg, want1) && (!want2 || strstr(msg, want2)), "message \"%s\" lacks \"%s\"", msg,
          want1);
}

static void test_errors(void)
{
    int cases = 0;
    for (int shape = 0; shape < NSHAPES; shape++) {
        set_params("4096", "3", "1048576");
        /* count the copies of one run, then fail each in turn */
        seg_check_t c;
        unsigned char *bufs[2];
        copies = 0;
        run_shape(shape, 5 * 4096 + 3, 1, &c, bufs);
        free_shape(bufs);
        long total = copies;
        for (long f = 0; f < total; f++) {
            copies = 0;
            fail_copy_at = f;
            int rc = run_shape(shape, 5 * 4096 + 3, 1, &c, bufs);
            fail_copy_at = -1;
            CHECK(rc != DFC_SUCCESS, "%s: copy %ld failed but the pipeline succeeded",
                  shape_name[shape], f);
            check_msg(rc, "staging a device buffer", "chunk");
            check_msg(rc, "fake copy failure", NULL);
            dfc_stage_stats_t st;
            dfc_stage_get_stats(&st);
            CHECK(st.in_use == 0 && st.ctx_in_use == 0, "%s, copy %ld failed: %ld buffers in use",
                  shape_name[shape], f, st.in_use);
            free_shape(bufs);
            cases++;
        }
    }
    /* a segment that fails: its error, nothing in use, no copy in flight */
    set_params("4096", "3", "1048576");
    for (int at = 0; at < 4; at++) {
        size_t n = 4 * 4096;
        unsigned char *in = dev_alloc(n), *out = dev_alloc(n);
        seg_check_t c = {.has_in = 1, .has_out = 1, .fail_at = at};
        for (size_t i = 0; i < n; i++) in[i] = src_byte(i);
        dfc_stage_pipe_t p = {in, out, n, 1, segment, &c};
        int rc = dfc_stage_pipeline(&p);
        check_msg(rc, "segment fails", NULL);
        dfc_stage_stats_t st;
        dfc_stage_get_stats(&st);
        CHECK(st.in_use == 0 && st.ctx_in_use == 0, "segment failure left buffers in use");
        dev_free(in);
        dev_free(out);
        cases++;
    }
    /* a pinned allocation that fails */
    set_params("4096", "3", "1048576");
    for (int at = 0; at < 4; at++) {
        dfc_stage_finalize(); /* so that the run allocates */
        host_allocs = 0;
        fail_alloc_at = at;
        seg_check_t c;
        unsigned char *bufs[2];
        int rc = run_shape(DD, 5 * 4096, 1, &c, bufs);
        fail_alloc_at = -1;
        check_msg(rc, "fake allocation failure", NULL);
        CHECK(c.calls == 0, "a segment ran without its buffers");
        dfc_stage_stats_t st;
        dfc_stage_get_stats(&st);
        CHECK(st.in_use == 0 && st.ctx_in_use == 0, "allocation failure left buffers in use");
        free_shape(bufs);
        cases++;
    }
    dfc_stage_finalize();
    CHECK(live_host == 0 && live_streams == 0 && live_events == 0, "errors leaked %ld buffers",
          live_host);
    printf("ok: errors, %d cases (every copy of every shape, segments, allocations)\n", cases);
}

static void test_requests(void)
{
    set_params("4096", "3", "1048576");
    static const size_t sizes[] = {1, 13, 65536, 65537, 300001};
    for (size_t si = 0; si < 5; si++) {
        size_t n = sizes[si];
        unsigned char *d = dev_alloc(n), *h = malloc(n);
        for (size_t i = 0; i < n; i++) d[i] = src_byte(i);
        dfc_req_t r;
        memset(&r, 0, sizeof r);
        void *use, *huse;
        CHECK(!dfc_req_stage(&r, d, n, 1, 1, &use) && use != d && !f_is_device(use),
              "stage of a device buffer");
        CHECK(!dfc_req_stage(&r, h, n, 1, 1, &huse) && huse == h && r.nstages == 1,
              "a host buffer is not staged");
        CHECK(!dfc_req_stage_in(&r), "stage in");
        CHECK(!memcmp(use, d, n), "%zu bytes: the shadow does not hold the buffer", n);
        for (size_t i = 0; i < n; i++) ((unsigned char *)use)[i] = out_byte(i);
        CHECK(!dfc_req_stage_out(&r), "stage out");
        for (size_t i = 0; i < n; i++)
            if (d[i] != out_byte(i)) {
                CHECK(0, "%zu bytes: byte %zu was not copied out", n, i);
                break;
            }
        fail_copy_at = copies;
        int rc = dfc_req_stage_in(&r);
        check_msg(rc, "device-to-host copy failed", "fake copy failure");
        fail_copy_at = -1;
        dfc_req_unstage(&r);
        dfc_stage_stats_t st;
        dfc_stage_get_stats(&st);
        CHECK(st.in_use == 0 && st.ctx_in_use == 0 && !r.stages, "unstage left buffers in use");
        dev_free(d);
        free(h);
    }
    dfc_stage_finalize();
    CHECK(live_host == 0, "requests leaked %ld buffers", live_host);
    printf("ok: request shadows (stage, in, out, a failing copy, unstage)\n");
}

/* Non-contiguous datatypes on device buffers (stage.c, stage_dtype.c): a request's packed
 * shadow holds exactly what dfc_dtype_pack makes of the device data (through the runs, or
 * the span when the runs are many), and its copy out writes the type map and nothing else
 * (the gaps and the bytes past the span keep their values); with and without a 2D copy in
 * the ops table; a failing copy comes back named; nothing is left in use. */
static void test_dev_types(void)
{
    dfc_dtype_init();
    dfc_dtype_t *i32 = dfc_dtype_get(DFC_INT), *dbl = dfc_dtype_get(DFC_DOUBLE), *vec, *st;
    dfc_dtype_args_t va = {.combiner = DFC_COMBINER_VECTOR}, sa = {.combiner = DFC_COMBINER_STRUCT};
    size_t blens[3] = {1, 2, 1};
    DFC_Aint displs[3] = {0, 8, 28};
    dfc_dtype_t *types[3] = {i32, i32, dbl};
    CHECK(!dfc_dtype_vector("test", 50, 3, 28, i32, &va, &vec), "vector");
    CHECK(!dfc_dtype_blocks("test", 3, blens, displs, types, &sa, &st), "struct");
    static const struct {
        int which;
        uint64_t count;
        long copies2d; /* with the 2D op: the vector is one 2D copy */
    } cases[] = {{0, 1, 1}, {0, 3, 3}, {1, 2, 0}, {1, 40, 0}};
    for (int o = 0; o < 2; o++)
        for (int ci = 0; ci < 4; ci++) {
            set_params("4096", "3", "1048576");
            dfc_stage_set_ops(o ? &fake2d : &fake);
            dfc_dtype_t *dt = cases[ci].which ? st : vec;
            uint64_t count = cases[ci].count, bytes = count * dt->size;
            DFC_Aint lo, hi;
            dfc_dtype_span(dt, count, &lo, &hi);
            size_t n = (size_t)hi + 64;
            unsigned char *d = dev_alloc(n), *ref = malloc(n), *pk = malloc(bytes);
            for (size_t i = 0; i < n; i++) d[i] = ref[i] = src_byte(i);
            dfc_dtype_pack(dt, ref, 0, bytes, pk);
            dfc_req_t r;
            memset(&r, 0, sizeof r);
            void *use = NULL;
            long c2 = copies2d;
            CHECK(!dfc_req_stage_type(&r, d, count, dt, 1, 1, 0, &use) && use != d &&
                      !f_is_device(use),
                  "stage of a device buffer of a non-contiguous type");
            CHECK(!dfc_req_stage_in(&r) && !memcmp(use, pk, bytes),
                  "case %d/%d: the shadow does not hold the packed data", o, ci);
            for (size_t i = 0; i < bytes; i++) ((unsigned char *)use)[i] = out_byte(i);
            dfc_dtype_unpack(dt, ref, 0, bytes, use);
            CHECK(!dfc_req_stage_out(&r) && !memcmp(d, ref, n),
                  "case %d/%d: the copy out wrote other bytes than the type map's", o, ci);
            CHECK(!o || copies2d - c2 >= cases[ci].copies2d, "case %d: %ld 2D copies", ci,
                  copies2d - c2);
            fail_copy_at = copies;
            int rc = dfc_req_stage_out(&r);
            fail_copy_at = -1;
            if (o == 0 || cases[ci].which) /* the 2D op does not fail; single copies do */
                check_msg(rc, "non-contiguous datatype", "fake copy failure");
            dfc_req_unstage(&r);
            dfc_stage_stats_t sts;
            dfc_stage_get_stats(&sts);
            CHECK(sts.in_use == 0 && sts.ctx_in_use == 0 && !r.stages, "unstage left buffers");
            dev_free(d);
            free(ref);
            free(pk);
        }
    /* a type spanning device and host memory: refused, nothing staged */
    unsigned char *d = dev_alloc(64), h[64];
    size_t bl2[2] = {4, 4};
    DFC_Aint ad[2] = {(DFC_Aint)(uintptr_t)d, (DFC_Aint)(uintptr_t)h};
    dfc_dtype_t *t2[2] = {i32, i32}, *mix;
    CHECK(!dfc_dtype_blocks("test", 2, bl2, ad, t2, &sa, &mix), "mixed struct");
    dfc_req_t r;
    memset(&r, 0, sizeof r);
    void *use;
    int rc = dfc_req_stage_type(&r, NULL, 1, mix, 1, 0, 0, &use);
    CHECK(DFC_ERR_CLASS(rc) == DFC_ERR_BUFFER && r.nstages == 0, "mixed span: class %d",
          DFC_ERR_CLASS(rc));
    dfc_req_unstage(&r);
    dev_free(d);
    dfc_dtype_release(mix);
    dfc_dtype_release(vec);
    dfc_dtype_release(st);
    dfc_stage_finalize();
    CHECK(live_host == 0, "device datatypes leaked %ld buffers", live_host);
    dfc_dtype_finalize();
    printf("ok: non-contiguous datatypes on device buffers (runs, 2D copies, span, errors)\n");
}

int main(void)
{
    test_pipeline();
    test_overlap();
    test_pending();
    test_chunk_size();
    test_pool();
    test_errors();
    test_requests();
    test_dev_types();
    dfc_stage_set_ops(NULL);
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
