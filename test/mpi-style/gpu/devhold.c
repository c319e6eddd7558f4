/*
 * devhold - small device messages that arrive before their receive are held by the receiver
 * (comm/p2p_hold.c, dfc(7) "Device buffers"): a device send of at most DFC_GPU_EAGER_LIMIT
 * bytes to a rank of this node completes without its receive, as an eager send does, though
 * it is not staged. Each case below hangs (the watchdog fails it) if a send waits for its
 * receive, and checks every byte of fresh inputs in poisoned outputs:
 *
 *   head     partners each Send to the other, then Recv (device and host receive buffers)
 *   late     a send's Wait ends while its receiver waits for another message; then the
 *            held message, a host message and more held ones on one tag arrive in order
 *   mprobe   Mprobe and Mrecv of a held message, and a non-contiguous host receive of one
 *   cancel   a held send cancelled (or too late to): the receiver sees it iff not cancelled
 *   overflow 8 sends complete while the receiver waits elsewhere, also those the hold memory
 *            cannot take (DFC_GPU_HOLD_MEMORY=512 in a testlist line: one message fits), held
 *            in pinned host memory instead; then they arrive in order
 *
 * Against the CUDA stand-in with FAKE_CUDART_KCOPY=1, the small-copy kernel of each receiver
 * made a copy in head's device round (2 for a held message, 1 for one its posted receive met):
 * a staged message takes none, nor one larger than DFC_GPU_HOLD_MEMORY, which head, late,
 * mprobe and cancel then hold in pinned host memory (the copy engine's). Partners on two
 * nodes (simulated) stage, and all but that check holds for them too. Pairs of ranks
 * (rank ^ 1); sizes from 1 byte to DFC_GPU_EAGER_LIMIT.
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devtest.h"

static int rank, partner;
static size_t limit; /* the largest message a receiver holds (DFC_GPU_EAGER_LIMIT) */

static void *dev_filled(size_t n, int src, int seed, unsigned char poison)
{
    unsigned char *h = malloc(n + 1);
    void *d;
    if (!h) exit(2);
    for (size_t i = 0; i <= n; i++) h[i] = i == n || src < 0 ? poison : dev_pattern(src, i, seed);
    CUDA_OK(cudaMalloc(&d, n + 1));
    DEV_UPLOAD(d, h, n + 1);
    free(h);
    return d;
}

/* n bytes of (src, seed) at buf (device or host), and the poison byte after them. */
static void check(const char *what, int dev, const void *buf, size_t n, int src, int seed)
{
    dev_check_bytes(what, dev, buf, n, src, seed, 0x5a);
}

static void recv_check(const char *what, int dev, size_t n, int tag, int seed)
{
    void *r = dev ? dev_filled(n, -1, 0, 0x5a) : malloc(n + 1);
    if (!dev) memset(r, 0x5a, n + 1);
    DFC_Status st;
    DFCT_OK(DFC_Recv(r, (int)n, DFC_BYTE, partner, tag, DFC_COMM_WORLD, &st));
    int c = -1;
    DFC_Get_count(&st, DFC_BYTE, &c);
    DFCT_CHECK(c == (int)n, "%s: received %d bytes, want %zu", what, c, n);
    check(what, dev, r, n, partner, seed);
    if (dev) CUDA_OK(cudaFree(r));
    else free(r);
}

static void head(size_t n, int seed)
{
    for (int dev = 1; dev >= 0; dev--) {
        void *s = dev_filled(n, rank, seed + dev, 0);
        DFCT_OK(DFC_Send(s, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD));
        recv_check(dev ? "head: Send, Send, Recv" : "head: into host memory", dev, n, seed,
                   seed + dev);
        CUDA_OK(cudaFree(s));
    }
}

static void late(size_t n, int seed)
{
    int token = 1;
    if (rank % 2 == 0) {
        void *s[3];
        for (int k = 0; k < 3; k++) s[k] = dev_filled(n, rank, seed + k, 0);
        DFC_Request q;
        DFCT_OK(DFC_Isend(s[0], (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &q));
        DFCT_OK(DFC_Wait(&q, DFC_STATUS_IGNORE)); /* the partner is in its Recv of the token */
        DFCT_OK(DFC_Send(&token, 1, DFC_INT, partner, seed + 1, DFC_COMM_WORLD));
        unsigned char *h = malloc(n + 1);
        for (size_t i = 0; i < n; i++) h[i] = dev_pattern(rank, i, seed + 9);
        DFCT_OK(DFC_Send(h, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD));
        free(h);
        for (int k = 1; k < 3; k++)
            DFCT_OK(DFC_Send(s[k], (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD));
        for (int k = 0; k < 3; k++) CUDA_OK(cudaFree(s[k]));
    } else {
        DFCT_OK(DFC_Recv(&token, 1, DFC_INT, partner, seed + 1, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
        recv_check("late: the held message", 1, n, seed, seed);
        recv_check("late: the host message after it", 1, n, seed, seed + 9);
        recv_check("late: held again", 0, n, seed, seed + 1);
        recv_check("late: and again", 1, n, seed, seed + 2);
    }
}

static void mprobe(size_t n, int seed)
{
    int token = 1;
    if (rank % 2 == 0) {
        void *s = dev_filled(n, rank, seed, 0), *t = dev_filled(n, rank, seed + 1, 0);
        DFCT_OK(DFC_Send(s, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD));
        DFCT_OK(DFC_Send(t, (int)n, DFC_BYTE, partner, seed + 1, DFC_COMM_WORLD));
        DFCT_OK(DFC_Send(&token, 1, DFC_INT, partner, seed + 2, DFC_COMM_WORLD));
        CUDA_OK(cudaFree(s));
        CUDA_OK(cudaFree(t));
        return;
    }
    DFCT_OK(DFC_Recv(&token, 1, DFC_INT, partner, seed + 2, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    DFC_Message m;
    DFC_Status st;
    DFCT_OK(DFC_Mprobe(partner, seed, DFC_COMM_WORLD, &m, &st));
    void *r = dev_filled(n, -1, 0, 0x5a);
    DFCT_OK(DFC_Mrecv(r, (int)n, DFC_BYTE, &m, &st));
    check("Mprobe/Mrecv of a held message", 1, r, n, partner, seed);
    CUDA_OK(cudaFree(r));
    /* every other byte of a host buffer of 2n bytes: a receive that unpacks */
    DFC_Datatype every_other;
    DFCT_OK(DFC_Type_vector((int)n, 1, 2, DFC_BYTE, &every_other));
    DFCT_OK(DFC_Type_commit(&every_other));
    unsigned char *h = malloc(2 * n + 1);
    memset(h, 0x5a, 2 * n + 1);
    DFCT_OK(DFC_Recv(h, 1, every_other, partner, seed + 1, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    for (size_t i = 0; i < 2 * n + 1; i++) {
        unsigned char want = i % 2 == 0 && i / 2 < n ? dev_pattern(partner, i / 2, seed + 1) : 0x5a;
        if (h[i] != want) {
            DFCT_CHECK(0, "vector receive of a held %zu-byte message: byte %zu is %u, want %u", n,
                       i, h[i], want);
            break;
        }
    }
    free(h);
    DFCT_OK(DFC_Type_free(&every_other));
}

static void cancel(size_t n, int seed)
{
    int cancelled = 0;
    if (rank % 2 == 0) {
        void *a = dev_filled(n, rank, seed, 0), *b = dev_filled(n, rank, seed + 1, 0);
        DFC_Request q;
        DFC_Status st;
        DFCT_OK(DFC_Isend(a, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &q));
        DFCT_OK(DFC_Cancel(&q));
        DFCT_OK(DFC_Wait(&q, &st));
        DFCT_OK(DFC_Test_cancelled(&st, &cancelled));
        DFCT_OK(DFC_Send(&cancelled, 1, DFC_INT, partner, seed + 2, DFC_COMM_WORLD));
        DFCT_OK(DFC_Send(b, (int)n, DFC_BYTE, partner, seed, DFC_COMM_WORLD));
        CUDA_OK(cudaFree(a));
        CUDA_OK(cudaFree(b));
        return;
    }
    DFCT_OK(DFC_Recv(&cancelled, 1, DFC_INT, partner, seed + 2, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    if (!cancelled) recv_check("cancel: the send that was not cancelled", 1, n, seed, seed);
    recv_check("cancel: the next send on the tag", 1, n, seed, seed + 1);
}

static void overflow(int seed)
{
    enum { NMSG = 8, LEN = 300 };
    int token = 1;
    if (rank % 2 == 0) {
        void *s[NMSG];
        DFC_Request q[NMSG];
        for (int k = 0; k < NMSG; k++) {
            s[k] = dev_filled(LEN, rank, seed + k, 0);
            DFCT_OK(DFC_Isend(s[k], LEN, DFC_BYTE, partner, seed, DFC_COMM_WORLD, &q[k]));
        }
        dev_phase = "overflow: the sends' Waitall, before the receiver posts anything";
        DFCT_OK(DFC_Waitall(NMSG, q, DFC_STATUSES_IGNORE));
        DFCT_OK(DFC_Send(&token, 1, DFC_INT, partner, seed + 100, DFC_COMM_WORLD));
        for (int k = 0; k < NMSG; k++) CUDA_OK(cudaFree(s[k]));
        return;
    }
    DFCT_OK(DFC_Recv(&token, 1, DFC_INT, partner, seed + 100, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    for (int k = 0; k < NMSG; k++) recv_check("overflow, in order", k % 2, LEN, seed, seed + k);
}

/* Whether the partner is on this node (held messages are; another node's are staged). */
static int partner_local(void)
{
    DFC_Comm node;
    DFC_Group world, mine;
    int there = DFC_UNDEFINED;
    DFCT_OK(DFC_Comm_split_type(DFC_COMM_WORLD, DFC_COMM_TYPE_SHARED, 0, DFC_INFO_NULL, &node));
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &world));
    DFCT_OK(DFC_Comm_group(node, &mine));
    DFCT_OK(DFC_Group_translate_ranks(world, 1, &partner, mine, &there));
    DFCT_OK(DFC_Group_free(&world));
    DFCT_OK(DFC_Group_free(&mine));
    DFCT_OK(DFC_Comm_free(&node));
    return there != DFC_UNDEFINED;
}

static long kernel_copies(void)
{
    const char *k = getenv("FAKE_CUDART_KCOPY");
    long (*copies)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "fake_cudart_kcopy_copies");
    return k && *k == '1' && copies ? copies() : -1;
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    int size, ndev = 0;
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    dfct_rank = rank;
    dev_watchdog(40); /* a run takes a second or two */
    CUDA_OK(cudaGetDeviceCount(&ndev));
    CUDA_OK(cudaSetDevice(rank % ndev));
    if (size % 2) {
        if (rank == 0) fprintf(stderr, "devhold needs an even number of ranks\n");
        DFC_Abort(DFC_COMM_WORLD, 2);
    }
    partner = rank ^ 1;
    int local = partner_local();
    const char *e = getenv("DFC_GPU_EAGER_LIMIT"), *m = getenv("DFC_GPU_HOLD_MEMORY");
    limit = e ? (size_t)atol(e) : 16384;
    size_t hold_memory = m ? (size_t)atol(m) : (size_t)1 << 20; /* larger: pinned host memory */
    const size_t sizes[] = {1, 7, 256, 4099, 16384};
    int seed = 1;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++, seed += 20) {
        size_t n = sizes[k];
        if (n > limit) break;
        long before = local ? kernel_copies() : -1;
        dev_phase_i = (long)n;
        dev_phase = "head";
        head(n, seed);
        long made = kernel_copies() - before;
        DFCT_CHECK(before < 0 || n > hold_memory || made >= 1,
                   "%zu-byte head-to-head sends: the small-copy kernel made no copy here: were "
                   "they staged?",
                   n);
        dev_phase = "late";
        late(n, seed + 5);
        dev_phase = "mprobe";
        mprobe(n, seed + 10);
        dev_phase = "cancel";
        cancel(n, seed + 15);
    }
    dev_phase = "overflow";
    overflow(500);
    return dfct_finalize();
}
