/*
 * proxyfake - the GPU daemon's host proxy (src/gpu/proxy.c, issue 15) between real
 * processes, without a GPU: a host thread of each process plays the kernel's part with the
 * kernel's own address functions (daemon_abi.h: dfc_gpu_to_* for what it writes for a peer,
 * dfc_gpu_from_* for what a peer wrote for it, the kick words), on pair regions in ordinary
 * memory; the main thread runs the proxy passes under the library's lock, as the progress
 * hooks do in the library (run also with DFC_ASYNC_PROGRESS=1: the progress thread then moves
 * the transport's packets between the passes; without the lock that run hung).
 *
 * Every rank streams -chunks= chunks to every other rank on each (channel, slot) FIFO, as
 * the daemon's rendezvous protocol does (PROTOCOL.md 4 and 5): the receiver invites (an
 * invitation entry, its ordinal raised for each batch of 5 chunks, released at the end), the
 * sender writes a chunk only into an entry the receiver acknowledged (depth entries in
 * flight) and only for an invited batch, then the flag's ident and size and last its
 * sequence number; the receiver checks the flag and every byte of the chunk (sizes from 1 to
 * the chunk size, a pattern of sender, receiver, FIFO, sequence number and byte), then acks.
 *
 * -kill=1: the last rank kills itself (SIGKILL) when it has moved half a peer's stream; the
 * survivors' proxies must drop it (dfc_gpu_proxy_peer_failed) and every stream among the
 * survivors must still complete, every byte checked. -watchdog=S (default 120) ends a hang.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "../dfctest.h"
#include "comm/dfc_comm.h"
#include "gpu/proxy.h"

#define MAXP DFC_GPU_MAX_LOCAL
#define BATCH 5

static dfc_gpu_kargs_t a;
static int rank, size, victim = -1, nchunks;
static volatile int dead[MAXP], stop;
static volatile long moved; /* chunks sent and received by the "kernel" */
static uint64_t kicks[MAXP][DFC_GPU_MAX_CHANNELS];

typedef struct stream {
    uint64_t sent, recvd; /* chunks sent to / received from the peer on this FIFO */
    uint64_t posted;      /* receiver: invitation ordinal posted */
    int released;
} stream_t;
static stream_t st[MAXP][DFC_GPU_MAX_CHANNELS][DFC_GPU_MAX_SLOTS];

static uint64_t ident_of(int src, int dst, uint32_t c, uint32_t s)
{
    return ((uint64_t)(src * MAXP + dst) << 16 | c << 8 | s) + 1;
}
static uint32_t bytes_of(int src, int dst, uint32_t c, uint32_t s, uint64_t q)
{
    uint64_t h = (uint64_t)src * 7919 + dst * 104729 + c * 31 + s * 17 + q * 2654435761u;
    return (uint32_t)(1 + (h >> 3) % a.geom.chunk);
}
static unsigned char pattern(int src, int dst, uint32_t c, uint32_t s, uint64_t q, uint32_t k)
{
    return (unsigned char)(src * 31 + dst * 7 + c * 5 + s * 3 + q * 11 + k * 13);
}

static void kick(int p, uint32_t c)
{
    __sync_synchronize(); /* the writes come first */
    *dfc_gpu_kick_word(&a, (uint32_t)p, c) = ++kicks[p][c];
}

/* Receiver side of FIFO (p, c, s): invite, take the next chunk, check it, ack. */
static int recv_step(int p, uint32_t c, uint32_t s)
{
    stream_t *x = &st[p][c][s];
    if (x->recvd == (uint64_t)nchunks) {
        if (x->released) return 0;
        volatile dfc_gpu_invite_t *e = (volatile dfc_gpu_invite_t *)dfc_gpu_to_inv(&a, p, c, s);
        e->ident = DFC_GPU_INV_GONE;
        x->released = 1;
        kick(p, c);
        return 1;
    }
    uint64_t want = x->recvd / BATCH + 1; /* invite the batch of the next chunk */
    if (x->posted < want) {
        volatile dfc_gpu_invite_t *e = (volatile dfc_gpu_invite_t *)dfc_gpu_to_inv(&a, p, c, s);
        e->ordinal = want;
        __sync_synchronize(); /* the ordinal before the ident */
        e->ident = ident_of(p, rank, c, s);
        x->posted = want;
        kick(p, c);
    }
    uint64_t q = x->recvd + 1;
    uint32_t entry = (uint32_t)(q % a.geom.depth);
    volatile dfc_gpu_flag_t *f = (volatile dfc_gpu_flag_t *)dfc_gpu_from_flag(&a, p, c, s, entry);
    if (f->seq != q) return 0;
    __sync_synchronize();
    uint32_t n = bytes_of(p, rank, c, s, q);
    DFCT_CHECK(f->ident == ident_of(p, rank, c, s), "chunk %llu from %d: ident %llx",
               (unsigned long long)q, p, (unsigned long long)f->ident);
    DFCT_CHECK(f->bytes == n, "chunk %llu from %d: %llu bytes, expected %u", (unsigned long long)q,
               p, (unsigned long long)f->bytes, n);
    const unsigned char *d = (const unsigned char *)dfc_gpu_from_data(&a, p, c, s, entry);
    for (uint32_t k = 0; k < n; k++)
        if (d[k] != pattern(p, rank, c, s, q, k)) {
            DFCT_CHECK(0, "chunk %llu from %d (chan %u slot %u): byte %u is %u, expected %u",
                       (unsigned long long)q, p, c, s, k, d[k], pattern(p, rank, c, s, q, k));
            break;
        }
    x->recvd = q;
    *(volatile uint64_t *)dfc_gpu_to_ack(&a, p, c, s) = q;
    kick(p, c);
    moved++;
    return 1;
}

/* Sender side: an invited batch, a free entry (acknowledged), then data, flag body, seq. */
static int send_step(int p, uint32_t c, uint32_t s)
{
    stream_t *x = &st[p][c][s];
    if (x->sent == (uint64_t)nchunks) return 0;
    uint64_t q = x->sent + 1;
    volatile dfc_gpu_invite_t *e = (volatile dfc_gpu_invite_t *)dfc_gpu_from_inv(&a, p, c, s);
    if (e->ident != ident_of(rank, p, c, s)) return 0;
    __sync_synchronize();
    if (e->ordinal < (q - 1) / BATCH + 1) return 0;
    if (*(volatile uint64_t *)dfc_gpu_from_ack(&a, p, c, s) + a.geom.depth < q) return 0;
    uint32_t entry = (uint32_t)(q % a.geom.depth), n = bytes_of(rank, p, c, s, q);
    unsigned char *d = (unsigned char *)dfc_gpu_to_data(&a, p, c, s, entry);
    for (uint32_t k = 0; k < n; k++) d[k] = pattern(rank, p, c, s, q, k);
    volatile dfc_gpu_flag_t *f = (volatile dfc_gpu_flag_t *)dfc_gpu_to_flag(&a, p, c, s, entry);
    f->ident = ident_of(rank, p, c, s);
    f->bytes = n;
    __sync_synchronize(); /* data and flag body before the seq */
    f->seq = q;
    x->sent = q;
    kick(p, c);
    moved++;
    return 1;
}

static int all_done(void)
{
    for (int p = 0; p < size; p++) {
        if (p == rank || dead[p]) continue;
        for (uint32_t c = 0; c < a.geom.channels; c++)
            for (uint32_t s = 0; s < a.geom.slots; s++) {
                stream_t *x = &st[p][c][s];
                if (x->sent < (uint64_t)nchunks || x->recvd < (uint64_t)nchunks || !x->released)
                    return 0;
            }
    }
    return 1;
}

/* The kernel's part: sweeps every FIFO until every stream with a live peer is done. */
static void *kernel(void *arg)
{
    (void)arg;
    while (!stop) {
        int any = 0;
        for (int p = 0; p < size; p++) {
            if (p == rank || dead[p]) continue;
            for (uint32_t c = 0; c < a.geom.channels; c++)
                for (uint32_t s = 0; s < a.geom.slots; s++)
                    any += send_step(p, c, s) + recv_step(p, c, s);
        }
        if (!any && all_done()) break;
        if (!any) sched_yield();
    }
    return NULL;
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "watchdog: hang in proxyfake\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(3);
}

static void setup(dfc_gpu_proxy_t **px, char **out, char **in, int *world_of)
{
    dfc_gpu_geom_t *g = &a.geom;
    g->nlocal = (uint32_t)size;
    uint64_t bytes = dfc_gpu_pair_bytes(g);
    a.me = (uint32_t)rank;
    for (int p = 0; p < size; p++) {
        world_of[p] = p;
        out[p] = in[p] = NULL;
        if (p == rank) continue;
        out[p] = calloc(1, bytes);
        in[p] = calloc(1, bytes);
        if (!out[p] || !in[p]) DFC_Abort(DFC_COMM_WORLD, 2);
        a.box[p] = out[p];
        a.inbox[p] = in[p];
    }
    DFCT_OK(dfc_gpu_proxy_create(g, rank, size, world_of, out, in, px));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    rank = dfct_rank;
    nchunks = (int)dfct_opt_long(argc, argv, "chunks", 200);
    a.geom.channels = (uint32_t)dfct_opt_long(argc, argv, "channels", 2);
    a.geom.slots = (uint32_t)dfct_opt_long(argc, argv, "slots", 2);
    a.geom.depth = (uint32_t)dfct_opt_long(argc, argv, "depth", 3);
    a.geom.chunk = (uint32_t)dfct_opt_long(argc, argv, "chunk", 4100);
    if (dfct_opt_long(argc, argv, "kill", 0)) victim = size - 1;
    signal(SIGALRM, on_alarm);
    alarm((unsigned)dfct_opt_long(argc, argv, "watchdog", 120));
    if (size > MAXP) {
        if (rank == 0) printf(" No Errors\n"); /* the proxy serves at most MAXP peers */
        DFC_Finalize();
        return 0;
    }
    DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN);
    DFC_Comm live;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, rank == victim, rank, &live));
    /* The victim starts (and so dies) only once every survivor has left the split, which
     * would fail on a rank still inside it (ULFM's rules). */
    int go = 1;
    for (int r = 0; r < size - 1 && rank == victim; r++)
        DFCT_OK(DFC_Recv(&go, 1, DFC_INT, r, 77, DFC_COMM_WORLD, DFC_STATUS_IGNORE));
    if (victim >= 0 && rank != victim)
        DFCT_OK(DFC_Send(&go, 1, DFC_INT, victim, 77, DFC_COMM_WORLD));
    dfc_gpu_proxy_t *px = NULL;
    char *out[MAXP], *in[MAXP];
    int world_of[MAXP];
    setup(&px, out, in, world_of);
    pthread_t th;
    pthread_create(&th, NULL, kernel, NULL);
    for (int done = 0; !done;) {
        /* under the library's lock, as the daemon's own passes run (in progress hooks): with
         * DFC_ASYNC_PROGRESS=1 the progress thread moves this transport's packets too */
        DFC_LOCK();
        int ev = dfc_progress() + dfc_gpu_proxy_pass(px);
        /* half of one peer's stream in all (sends and receives to every peer): no survivor
         * can then have received the victim's whole stream, whatever order it moved in (a
         * third of all its moves could be one peer's whole stream: seen once in CI, 4 ranks) */
        if (rank == victim && moved >= (long)a.geom.channels * a.geom.slots * nchunks / 2)
            raise(SIGKILL);
        for (int p = 0; p < size; p++)
            if (p != rank && !dead[p] && dfc_gpu_proxy_peer_failed(px, p)) dead[p] = 1;
        done = all_done() && (victim < 0 || dead[victim]) && !dfc_gpu_proxy_busy(px);
        DFC_UNLOCK();
        if (!ev) sched_yield();
    }
    stop = 1;
    pthread_join(th, NULL);
    for (int p = 0; p < size; p++)
        DFCT_CHECK(dead[p] == (p == victim && p != rank), "peer %d: dropped %d", p, dead[p]);
    if (victim >= 0 && rank != victim) { /* it died mid-transfer: it sent at most a third */
        uint64_t got = 0;
        for (uint32_t c = 0; c < a.geom.channels; c++)
            for (uint32_t s = 0; s < a.geom.slots; s++) got += st[victim][c][s].recvd;
        DFCT_CHECK(got < (uint64_t)a.geom.channels * a.geom.slots * nchunks,
                   "every chunk of the victim arrived: it did not die mid-transfer");
    }
    uint64_t cout, cin, bout;
    dfc_gpu_proxy_stats(px, &cout, &cin, &bout);
    uint64_t per_peer = (uint64_t)a.geom.channels * a.geom.slots * nchunks;
    if (victim < 0)
        DFCT_CHECK(cout == per_peer * (size - 1) && cin == cout, "proxy moved %llu out, %llu in",
                   (unsigned long long)cout, (unsigned long long)cin);
    dfc_gpu_proxy_destroy(px);
    for (int p = 0; p < size; p++) {
        free(out[p]);
        free(in[p]);
    }
    int errs = dfct_errs, total_errs = 0;
    DFCT_OK(DFC_Allreduce(&errs, &total_errs, 1, DFC_INT, DFC_SUM, live));
    DFC_Comm_free(&live);
    if (rank == 0) {
        if (total_errs) printf(" Found %d errors\n", total_errs);
        else printf(" No Errors\n");
    }
    DFC_Finalize();
    return 0;
}
