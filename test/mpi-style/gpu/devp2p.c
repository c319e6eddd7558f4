/*
 * devp2p - point-to-point on device buffers between ranks of one node (dfc(7) "Device
 * buffers": large device sends go by CUDA IPC, copied by the receiver's copy engine; host
 * data lands in device receive buffers by copies). Every form: Send, Ssend, Recv, Isend,
 * Irecv, Issend, Sendrecv, Sendrecv_replace, Send_init/Recv_init, Probe; at 0 B, 1 B, odd
 * sizes, both sides of the eager limit and 64 MiB + 5; device to device, device to host and
 * host to device; host and device messages mixed on one tag (non-overtaking, wildcards);
 * crossed Isend/Irecv orders with cudaDeviceSynchronize in between; bursts of 128 small
 * messages in flight both ways on one tag (burst); unmatched device Isends cancelled. Data is checked byte by
 * byte against fresh inputs, receive buffers are poisoned first; a watchdog fails a hang.
 * Against the CUDA stand-in with FAKE_CUDART_KCOPY=1, the small-copy kernel must have made
 * some of the direct copies.
 *
 * Pairs of ranks (rank ^ 1), so an even number of ranks; runs with several ranks on one GPU
 * (under MPS: testlist-mps) or one per GPU. -max=N caps the largest size (bytes); -late runs
 * only late_receiver (a send's Wait sleeps while its receiver is late).
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devtest.h"

static int rank, size, partner;

enum { HOST, DEV, MANAGED };

static void *mk(int where, size_t n)
{
    void *p;
    if (where == DEV) CUDA_OK(cudaMalloc(&p, n + 1));
    else if (where == MANAGED) CUDA_OK(cudaMallocManaged(&p, n + 1, cudaMemAttachGlobal));
    else if (!(p = malloc(n + 1))) exit(2);
    return p;
}

static void release(int where, void *p)
{
    if (where != HOST) CUDA_OK(cudaFree(p));
    else free(p);
}

/* Writes the pattern of (src, seed) into buf's n bytes, or `poison` bytes when src < 0, and
 * the sentinel 0xa5 after them. */
static void fill(int where, void *buf, size_t n, int src, int seed, unsigned char poison)
{
    unsigned char *h = where != HOST ? malloc(n + 1) : buf;
    for (size_t i = 0; i <= n; i++)
        h[i] = i == n ? 0xa5 : src < 0 ? poison : dev_pattern(src, i, seed);
    if (where != HOST) {
        DEV_UPLOAD(buf, h, n + 1);
        free(h);
    }
}

/* Checks n bytes of (src, seed) and that the byte after them is still poison; managed memory
 * is read by this thread directly, as a program reads what it received there. */
static void check(const char *what, int where, const void *buf, size_t n, int src, int seed)
{
    dev_check_bytes(what, where == DEV, buf, n, src, seed, 0xa5);
}

/* Blocking Send (or Ssend) and Recv between partners, the even one sending first; sw and rw:
 * where the buffers are (a receive into managed memory takes the direct path's system-scope
 * fence, kcopy_abi.h). */
static void blocking(size_t n, int sw, int rw, int sync, int seed)
{
    void *s = mk(sw, n), *r = mk(rw, n);
    fill(sw, s, n, rank, seed, 0);
    fill(rw, r, n, -1, 0, 0x5a);
    DFC_Status st;
    int first = rank % 2 == 0;
    for (int k = 0; k < 2; k++) {
        if (k == 0 ? first : !first) {
            if (sync) DFCT_OK(DFC_Ssend(s, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD));
            else DFCT_OK(DFC_Send(s, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD));
        } else {
            DFCT_OK(DFC_Recv(r, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &st));
            int c = -1;
            DFC_Get_count(&st, DFC_BYTE, &c);
            DFCT_CHECK(c == (int)n && st.DFC_SOURCE == partner && st.DFC_TAG == seed,
                       "Recv status: count %d source %d tag %d", c, st.DFC_SOURCE, st.DFC_TAG);
        }
    }
    check(sync ? "Ssend/Recv" : "Send/Recv", rw, r, n, partner, seed);
    release(sw, s);
    release(rw, r);
}

/* Isend (or Issend) and Irecv in both orders, cudaDeviceSynchronize between the calls. */
static void crossed(size_t n, int sync, int seed)
{
    void *s = mk(DEV, n), *r = mk(DEV, n);
    fill(DEV, s, n, rank, seed, 0);
    fill(DEV, r, n, -1, 0, 0x5a);
    DFC_Request q[2];
    int k = rank % 2; /* even ranks post the send first, odd ones the receive */
    if (sync) DFCT_OK(DFC_Issend(s, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &q[k]));
    else DFCT_OK(DFC_Isend(s, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &q[k]));
    CUDA_OK(cudaDeviceSynchronize());
    DFCT_OK(DFC_Irecv(r, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &q[1 - k]));
    CUDA_OK(cudaDeviceSynchronize());
    DFCT_OK(DFC_Waitall(2, q, DFC_STATUSES_IGNORE));
    check(sync ? "Issend/Irecv" : "Isend/Irecv", DEV, r, n, partner, seed);
    release(DEV, s);
    release(DEV, r);
}

static void ring(size_t n, int seed)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    void *s = mk(DEV, n), *r = mk(DEV, n);
    fill(DEV, s, n, rank, seed, 0);
    fill(DEV, r, n, -1, 0, 0x5a);
    DFCT_OK(DFC_Sendrecv(s, (int)n, DFC_BYTE, right, seed, r, (int)n, DFC_BYTE, left, seed,
                         DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    check("Sendrecv", DEV, r, n, left, seed);
    fill(DEV, s, n, rank, seed + 1, 0);
    DFC_Status st;
    DFCT_OK(
        DFC_Sendrecv_replace(s, (int)n, DFC_BYTE, right, seed, left, seed, DFC_COMM_WORLD, &st));
    check("Sendrecv_replace", DEV, s, n, left, seed + 1);
    release(DEV, s);
    release(DEV, r);
}

/* Send_init/Recv_init, started three times with fresh data and poisoned outputs. */
static void persistent(size_t n, int seed)
{
    void *s = mk(DEV, n), *r = mk(DEV, n);
    DFC_Request q[2];
    DFCT_OK(DFC_Recv_init(r, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &q[0]));
    DFCT_OK(DFC_Send_init(s, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &q[1]));
    for (int it = 0; it < 3; it++) {
        fill(DEV, s, n, rank, seed + it, 0);
        fill(DEV, r, n, -1, 0, 0x5a);
        DFCT_OK(DFC_Startall(2, q));
        DFCT_OK(DFC_Waitall(2, q, DFC_STATUSES_IGNORE));
        check("Send_init/Recv_init", DEV, r, n, partner, seed + it);
    }
    DFCT_OK(DFC_Request_free(&q[0]));
    DFCT_OK(DFC_Request_free(&q[1]));
    release(DEV, s);
    release(DEV, r);
}

/* Six Isends of device buffers that no receive matches, cancelled: each must say so (an
 * unmatched message is always cancellable here), and fresh messages on the same tag then
 * arrive, not the cancelled ones. Six is more than the sends that issue their first copies to
 * host memory with the RTS (another node's receiver; p2p.c's P2P_EARLY_STREAMS): the copies of
 * those are abandoned by the cancel, and a stream left open is reported at finalize. */
static void cancelled(size_t n, int seed)
{
    enum { NSEND = 6 };
    void *s[NSEND], *r = mk(DEV, n);
    DFC_Request q[NSEND];
    for (int k = 0; k < NSEND; k++) {
        s[k] = mk(DEV, n);
        fill(DEV, s[k], n, rank, seed + 100 + k, 0);
        DFCT_OK(DFC_Isend(s[k], (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &q[k]));
    }
    for (int k = 0; k < NSEND; k++) {
        DFCT_OK(DFC_Cancel(&q[k]));
        DFC_Status st;
        DFCT_OK(DFC_Wait(&q[k], &st));
        int flag = 0;
        DFCT_OK(DFC_Test_cancelled(&st, &flag));
        DFCT_CHECK(flag, "Isend %d of %zu device bytes, never received, was not cancelled", k, n);
    }
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD)); /* every cancel settled on both sides */
    fill(DEV, s[0], n, rank, seed, 0);
    fill(DEV, r, n, -1, 0, 0x5a);
    DFCT_OK(DFC_Sendrecv(s[0], (int)n, DFC_BYTE, partner, seed, r, (int)n, DFC_BYTE, partner, seed,
                         DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    check("Sendrecv after cancelled Isends", DEV, r, n, partner, seed);
    for (int k = 0; k < NSEND; k++) release(DEV, s[k]);
    release(DEV, r);
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* -late: rank 0 Isends 1 MiB of device memory to rank 1, which receives it 1 s later; rank
 * 0's CPU time in its Wait must stay below half the wait. A send that waits for its
 * receiver sleeps (dfc(7) "Waiting") also when its first copies to host memory were issued
 * with the RTS (a receiver on another node): such a stream that counted as busy kept the
 * waiting thread polling for the whole second. Prints "devp2p: late receiver: ..." on rank 0. */
static void late_receiver(void)
{
    size_t n = 1 << 20;
    void *buf = mk(DEV, n);
    fill(DEV, buf, n, rank == 0 ? 0 : -1, 7, 0x5a);
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    if (rank == 0) {
        DFC_Request q;
        DFCT_OK(DFC_Isend(buf, (int)n, DFC_BYTE, 1, 7, DFC_COMM_WORLD, &q));
        double c0 = cpu_seconds(), t0 = DFC_Wtime();
        DFCT_OK(DFC_Wait(&q, DFC_STATUS_IGNORE));
        double cpu = cpu_seconds() - c0, wall = DFC_Wtime() - t0;
        printf("devp2p: late receiver: waited %.3f s, %.3f s of CPU\n", wall, cpu);
        DFCT_CHECK(wall > 0.5, "the send completed after %.3f s, before its receiver posted", wall);
        DFCT_CHECK(cpu < 0.5 * wall, "the send's Wait of %.3f s took %.3f s of CPU: it polled",
                   wall, cpu);
    } else if (rank == 1) {
        struct timespec one = {1, 0};
        nanosleep(&one, NULL);
        DFCT_OK(DFC_Recv(buf, (int)n, DFC_BYTE, 0, 7, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        check("Recv after 1 s", DEV, buf, n, 0, 7);
    }
    release(DEV, buf);
}

/* Host and device messages on one tag, received with wildcards into the other memory type:
 * they must arrive in the order sent. Then Probe for a device message. */
static void mixed(size_t n, int seed)
{
    void *s[4], *r[4];
    DFC_Request q[4];
    for (int i = 0; i < 4; i++) {
        s[i] = mk(i % 2 ? DEV : HOST, n);
        r[i] = mk(i % 2 ? HOST : DEV, n);
        fill(i % 2 ? DEV : HOST, s[i], n, rank, seed + i, 0);
        fill(i % 2 ? HOST : DEV, r[i], n, -1, 0, 0x5a);
    }
    if (rank % 2 == 0) {
        for (int i = 0; i < 4; i++)
            DFCT_OK(DFC_Isend(s[i], (int)n, DFC_BYTE, partner, 9, DFC_COMM_WORLD, &q[i]));
    } else {
        for (int i = 0; i < 4; i++)
            DFCT_OK(DFC_Irecv(r[i], (int)n, DFC_BYTE, DFC_ANY_SOURCE, DFC_ANY_TAG, DFC_COMM_WORLD,
                              &q[i]));
    }
    DFCT_OK(DFC_Waitall(4, q, DFC_STATUSES_IGNORE));
    if (rank % 2)
        for (int i = 0; i < 4; i++)
            check(i % 2 ? "device->host, in order" : "host->device, in order", i % 2 ? HOST : DEV,
                  r[i], n, partner, seed + i);
    for (int i = 0; i < 4; i++) {
        release(i % 2 ? DEV : HOST, s[i]);
        release(i % 2 ? HOST : DEV, r[i]);
    }
    /* Probe, then a receive sized by its status */
    void *ps = mk(DEV, n), *pr = mk(DEV, n);
    fill(DEV, ps, n, rank, seed, 0);
    fill(DEV, pr, n, -1, 0, 0x5a);
    DFC_Request sq;
    DFC_Status st;
    DFCT_OK(DFC_Isend(ps, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &sq));
    /* From the partner: with 4 ranks the next round's ring message from another rank may be here */
    DFCT_OK(DFC_Probe(partner, DFC_ANY_TAG, DFC_COMM_WORLD, &st));
    int c = -1;
    DFC_Get_count(&st, DFC_BYTE, &c);
    DFCT_CHECK(c == (int)n && st.DFC_SOURCE == partner && st.DFC_TAG == seed,
               "Probe: count %d source %d tag %d", c, st.DFC_SOURCE, st.DFC_TAG);
    DFCT_OK(
        DFC_Recv(pr, c, DFC_BYTE, st.DFC_SOURCE, st.DFC_TAG, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_Wait(&sq, DFC_STATUS_IGNORE));
    check("Probe/Recv", DEV, pr, n, partner, seed);
    release(DEV, ps);
    release(DEV, pr);
}

/* Many small messages in flight both ways on one tag (issue 14's small-message path): NB
 * sends of 0 to 64 bytes from device or host slices of one allocation each, received into
 * device or host slices of 64 bytes; even ranks post their sends first, odd ones their
 * receives, with cudaDeviceSynchronize between. Non-overtaking: receive i gets send i
 * (its size and its pattern), whatever the memory types on either side. */
#define NB 128
#define SLICE 128
static size_t burst_len(int i) { return (size_t)(i * 37) % 65; }
static int burst_send_dev(int i) { return i % 3 != 0; }
static int burst_recv_dev(int i) { return i % 4 != 1; }

static void burst(int seed)
{
    unsigned char *img = malloc(NB * SLICE), *hs = malloc(NB * SLICE), *hr = malloc(NB * SLICE);
    void *ds = mk(DEV, NB * SLICE), *dr = mk(DEV, NB * SLICE);
    if (!img || !hs || !hr) exit(2);
    for (int i = 0; i < NB; i++)
        for (size_t j = 0; j < SLICE; j++) img[i * SLICE + j] = dev_pattern(rank, j, seed + i);
    memcpy(hs, img, NB * SLICE);
    DEV_UPLOAD(ds, img, NB * SLICE);
    memset(hr, 0x5a, NB * SLICE);
    DEV_MEMSET(dr, 0x5a, NB * SLICE);
    DFC_Request q[2 * NB];
    DFC_Status st[2 * NB];
    for (int half = 0; half < 2; half++) {
        if ((half == 0) == (rank % 2 == 0)) {
            for (int i = 0; i < NB; i++) {
                char *b = burst_send_dev(i) ? (char *)ds : (char *)hs;
                DFCT_OK(DFC_Isend(b + i * SLICE, (int)burst_len(i), DFC_BYTE, partner, seed,
                                  DFC_COMM_WORLD, &q[NB + i]));
            }
        } else {
            for (int i = 0; i < NB; i++) {
                char *b = burst_recv_dev(i) ? (char *)dr : (char *)hr;
                DFCT_OK(
                    DFC_Irecv(b + i * SLICE, 64, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &q[i]));
            }
        }
        CUDA_OK(cudaDeviceSynchronize());
    }
    DFCT_OK(DFC_Waitall(2 * NB, q, st));
    CUDA_OK(cudaMemcpy(img, dr, NB * SLICE, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < NB && bad < 4; i++) {
        const unsigned char *r = (burst_recv_dev(i) ? img : hr) + i * SLICE;
        int c = -1;
        DFC_Get_count(&st[i], DFC_BYTE, &c);
        if (c != (int)burst_len(i)) {
            DFCT_CHECK(0, "burst: receive %d got %d bytes, expected %zu (overtaken?)", i, c,
                       burst_len(i));
            bad++;
            continue;
        }
        for (size_t j = 0; j < SLICE; j++) {
            unsigned char want = j < (size_t)c ? dev_pattern(partner, j, seed + i) : 0x5a;
            if (r[j] != want) {
                DFCT_CHECK(0, "burst: receive %d (%s, %d bytes from %s): byte %zu is %u, want %u",
                           i, burst_recv_dev(i) ? "device" : "host", c,
                           burst_send_dev(i) ? "device" : "host", j, r[j], want);
                bad++;
                break;
            }
        }
    }
    release(DEV, ds);
    release(DEV, dr);
    free(img);
    free(hs);
    free(hr);
}

/* Against the CUDA stand-in with FAKE_CUDART_KCOPY=1 (pt2pt/devfake in CI): the direct copies
 * of up to DFC_GPU_KCOPY_MAX went to the small-copy kernel, those into plain device memory
 * with a device-scope fence and none into managed memory so (the stand-in counts them); on a
 * GPU the counts are not visible and nothing is checked. */
static void check_small_copies(void)
{
    const char *k = getenv("FAKE_CUDART_KCOPY");
    long (*copies)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "fake_cudart_kcopy_copies");
    long (*local)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "fake_cudart_kcopy_local");
    long (*wrong)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "fake_cudart_kcopy_wrong_scope");
    if (!k || *k != '1' || !copies || !local || !wrong) return;
    DFCT_CHECK(copies() > 0, "no copy went to the small-copy kernel");
    DFCT_CHECK(local() > 0, "no copy into device memory was ordered by a device-scope fence");
    DFCT_CHECK(wrong() == 0,
               "%ld copies into managed or a peer's memory asked for a device-scope "
               "fence",
               wrong());
}

int main(int argc, char **argv)
{
    long max = 1L << 30;
    int late = 0;
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "-max=", 5)) max = atol(argv[i] + 5);
        else if (!strcmp(argv[i], "-late")) late = 1;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    dfct_rank = rank;
    dev_watchdog(300);
    int ndev = 0;
    CUDA_OK(cudaGetDeviceCount(&ndev));
    CUDA_OK(cudaSetDevice(rank % ndev));
    if (size % 2) {
        if (rank == 0) fprintf(stderr, "devp2p needs an even number of ranks\n");
        DFC_Abort(DFC_COMM_WORLD, 2);
    }
    partner = rank ^ 1;
    if (late) {
        late_receiver();
        return dfct_finalize();
    }
    const size_t sizes[] = {0, 1, 7, 4099, 16384, 16385, 65536, (1 << 20) + 3, (64 << 20) + 5};
    int seed = 1;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++, seed += 10) {
        size_t n = sizes[k];
        if ((long)n > max) break;
        blocking(n, DEV, DEV, 0, seed);
        blocking(n, DEV, DEV, 1, seed + 1);
        blocking(n, DEV, HOST, 0, seed + 2);
        blocking(n, HOST, DEV, 0, seed + 3);
        if (n <= (1 << 20) + 3) blocking(n, DEV, MANAGED, 0, seed + 9);
        crossed(n, 0, seed + 4);
        crossed(n, 1, seed + 5);
        ring(n, seed + 6);
        persistent(n, seed + 7);
        mixed(n, seed);
        if (n > 16384) cancelled(n, seed + 8);
    }
    for (int k = 0; k < 3; k++) burst(1000 + 300 * k);
    check_small_copies();
    return dfct_finalize();
}
