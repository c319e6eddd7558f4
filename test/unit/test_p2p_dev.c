/*
 * test_p2p_dev - a device buffer's rendezvous bytes streamed through pinned slots
 * (src/comm/p2p_dev.c), against the deferred-copy stand-in of fake_stage_ops.h, without MPI:
 *   - send: the transport's side played here takes fragments of random sizes (1 byte to
 *     past a chunk) whenever peek offers bytes; every byte it takes is the device buffer's
 *     (a slot offered before its copy ran, or refilled before it was taken whole, would hold
 *     0xee or another chunk's bytes); no fragment crosses a chunk; at most depth chunks are
 *     ever issued ahead of what was taken (the slots);
 *   - receive: fragments of random sizes land; once drained says done the device buffer
 *     holds every byte (the copies to the device ran), bytes past it untouched; the copy of a
 *     full chunk is issued when its last byte lands, before the next fragment;
 *   - sizes 1 B to a few chunks and odd, depths 1 to 5; a truncated receive (fewer bytes
 *     streamed than arrive is the caller's clamp: covered by devfake);
 *   - errors: a copy failing at each position comes back from peek, sent or land with a
 *     message naming the chunk; close after it leaves no buffer, stream or copy in use;
 *   - the pool: nothing in use after close, everything released at finalize.
 * Prints "ok: ..." lines and exits 0, or reports each failure and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

#include "unit_check.h"

#include "fake_stage_ops.h"

#define CHUNK 4096

static unsigned char byte_at(size_t i, int seed)
{
    return (unsigned char)(i * 131 + seed + (i >> 9));
}

static void set_params(int depth)
{
    char d[8];
    snprintf(d, sizeof d, "%d", depth);
    setenv("DFC_STAGE_CHUNK", "4096", 1);
    setenv("DFC_STAGE_CHUNK_MIN", "4096", 1);
    setenv("DFC_STAGE_DEPTH", d, 1);
    setenv("DFC_STAGE_POOL_MAX", "1048576", 1);
    dfc_stage_set_ops(&fake); /* finalizes: the parameters are read again */
}

static size_t frag_size(void) { return 1 + (size_t)(rnd64() % (CHUNK + CHUNK / 2)); }

/* Streams n bytes out of a device buffer; returns the first error (checks counted). */
static int stream_send(size_t n, int depth, int seed)
{
    unsigned char *dev = dev_alloc(n);
    for (size_t i = 0; i < n; i++) dev[i] = byte_at(i, seed);
    dfc_req_t r;
    memset(&r, 0, sizeof r);
    long copies0 = copies;
    int rc = dfc_p2p_devstream_open(&r, 0, dev, n);
    size_t off = 0, bad = 0;
    long spins = 0;
    while (!rc && off < n && spins < 100000) {
        uint64_t avail;
        const void *src;
        if ((rc = dfc_p2p_devstream_peek(&r, off, &avail, &src))) break;
        if (!avail) { /* the copy runs: the stand-in completes it on the third query */
            spins++;
            continue;
        }
        CHECK((off % CHUNK) + avail <= CHUNK,
              "send %zu B depth %d: peek at %zu offers %llu bytes, "
              "past its chunk",
              n, depth, off, (unsigned long long)avail);
        size_t want = frag_size(), take = DFC_MIN2((size_t)avail, want);
        const unsigned char *p = src;
        for (size_t i = 0; i < take && !bad; i++)
            if (p[i] != byte_at(off + i, seed)) {
                bad = 1;
                CHECK(0, "send %zu B depth %d: byte %zu taken is 0x%02x, expected 0x%02x", n, depth,
                      off + i, p[i], byte_at(off + i, seed));
            }
        off += take;
        rc = dfc_p2p_devstream_sent(&r, off);
        long issued = copies - copies0, taken = (long)(off / CHUNK);
        CHECK(issued <= taken + depth, "send %zu B depth %d: %ld chunks issued, %ld taken whole", n,
              depth, issued, taken);
    }
    CHECK(rc || off == n, "send %zu B depth %d: stalled at %zu", n, depth, off);
    dfc_p2p_devstream_close(&r);
    CHECK(!r.devstream && !dfc_p2p_devstreams_open(), "send: stream still open after close");
    dev_free(dev);
    return rc;
}

/* Lands n bytes in fragments into a device buffer; returns the first error. */
static int stream_recv(size_t n, int depth, int seed)
{
    unsigned char *dev = dev_alloc(n), *msg = malloc(n);
    memset(dev, 0x5a, n + 64);
    for (size_t i = 0; i < n; i++) msg[i] = byte_at(i, seed);
    dfc_req_t r;
    memset(&r, 0, sizeof r);
    int rc = dfc_p2p_devstream_open(&r, 1, dev, n), done = 0;
    for (size_t off = 0; !rc && off < n;) {
        size_t want = frag_size(), take = DFC_MIN2(n - off, want);
        long before = copies;
        rc = dfc_p2p_devstream_land(&r, off, msg + off, take);
        long full = (long)((off + take) / CHUNK) - (long)(off / CHUNK) +
                    (off + take == n && n % CHUNK ? 1 : 0);
        CHECK(rc || copies - before == full,
              "recv %zu B depth %d: fragment [%zu, +%zu) issued "
              "%ld copies, %ld chunks filled",
              n, depth, off, take, copies - before, full);
        off += take;
    }
    for (long spins = 0; !rc && !done && spins < 100; spins++)
        rc = dfc_p2p_devstream_drained(&r, &done);
    CHECK(rc || done, "recv %zu B depth %d: never drained", n, depth);
    for (size_t i = 0; !rc && i < n; i++)
        if (dev[i] != msg[i]) {
            CHECK(0, "recv %zu B depth %d: device byte %zu is 0x%02x, expected 0x%02x", n, depth, i,
                  dev[i], msg[i]);
            break;
        }
    for (size_t i = n; i < n + 64; i++)
        if (dev[i] != 0x5a) {
            CHECK(0, "recv %zu B depth %d: byte %zu past the buffer written", n, depth, i);
            break;
        }
    dfc_p2p_devstream_close(&r);
    dev_free(dev);
    free(msg);
    return rc;
}

static void check_idle(const char *what)
{
    dfc_stage_stats_t st;
    dfc_stage_get_stats(&st);
    CHECK(st.in_use == 0 && st.ctx_in_use == 0, "%s: %ld buffers, %ld contexts in use", what,
          st.in_use, st.ctx_in_use);
}

static void test_streams(void)
{
    static const size_t sizes[] = {1, 7, 4095, 4096, 4097, 3 * 4096 + 5, 10 * 4096, 37 * 4096 + 11};
    int runs = 0;
    for (int depth = 1; depth <= 5; depth++) {
        set_params(depth);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (int rep = 0; rep < 4; rep++, runs += 2) {
                int rc = stream_send(sizes[si], depth, rep * 7 + 1);
                CHECK(rc == DFC_SUCCESS, "send %zu B depth %d failed (%d)", sizes[si], depth, rc);
                rc = stream_recv(sizes[si], depth, rep * 11 + 3);
                CHECK(rc == DFC_SUCCESS, "recv %zu B depth %d failed (%d)", sizes[si], depth, rc);
                check_idle("after a stream");
            }
    }
    printf("ok: streams, %d runs (8 sizes, depths 1-5, random fragments both ways)\n", runs);
}

/* A copy failing at each position: the error names the chunk; nothing stays in use. */
static void test_errors(void)
{
    set_params(3);
    int cases = 0;
    for (int dir = 0; dir < 2; dir++)
        for (long at = 0; at < 10; at++, cases++) {
            fail_copy_at = copies + at;
            int rc = dir ? stream_recv(10 * 4096, 3, 5) : stream_send(10 * 4096, 3, 5);
            fail_copy_at = -1;
            char msg[DFC_MAX_ERROR_STRING];
            dfc_err_message(rc, msg, sizeof msg);
            CHECK(rc && strstr(msg, "chunk") && strstr(msg, "fake copy failure"),
                  "%s, copy %ld failing: code %d, message \"%s\"", dir ? "recv" : "send", at, rc,
                  msg);
            check_idle("after a failed stream");
        }
    dfc_stage_finalize();
    CHECK(live_host == 0 && live_streams == 0 && live_events == 0,
          "after finalize: %ld buffers, %ld streams, %ld events live", live_host, live_streams,
          live_events);
    printf("ok: errors, %d cases (every copy of a 10-chunk stream, both ways), nothing leaked\n",
           cases);
}

int main(void)
{
    test_streams();
    test_errors();
    dfc_stage_set_ops(NULL);
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
