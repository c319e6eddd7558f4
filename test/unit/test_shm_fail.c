/*
 * test_shm_fail - failures the shm transport must blame on the right rank (issue 24,
 * defect 5), in 4 forked processes with the fake bootstrap (tl_fakeboot.h). shm.c is
 * included, so the test reaches its rings and counters.
 *   Ranks 2 and 3 corrupt their ring to rank 0 at the same moment (2: a record header no
 *   producer writes; 3: a packet of type 0), rank 1 sends a valid packet. Rank 0's progress
 *   must report two failures, each naming its own rank in tl->failed_peer and in the
 *   message, one per call, each once; deliver rank 1's packet; refuse sends to 2 and 3; and
 *   leave ndead at 0 (shm_wait sleeps only then). Then rank 2 exits: after several liveness
 *   periods nothing more is reported and ndead is still 0 (once, a failed peer found dead
 *   later kept ndead above 0, and wait never slept again).
 */
#include "../../src/tl/shm.c"

#include <errno.h>

#include "tl_fakeboot.h"

#define CHECK(c)                                                                                \
    do {                                                                                        \
        if (!(c)) {                                                                             \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s\n", fb_rank, __FILE__, __LINE__, \
                    #c);                                                                        \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static dfc_tl_t tl;
static int peers[64], local_ranks[64];
static char nspace[64];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void tl_init(int rank, int n)
{
    int np = 0;
    for (int r = 0; r < n; r++) {
        local_ranks[r] = r;
        if (r != rank) peers[np++] = r;
    }
    dfc_tl_job_t job = {.rank = rank,
                        .size = n,
                        .local_rank = rank,
                        .local_size = n,
                        .nspace = nspace,
                        .peers = peers,
                        .npeers = np,
                        .local_ranks = local_ranks};
    memset(&tl, 0, sizeof(tl));
    tl.ops = &dfc_tl_shm_ops;
    tl.failed_peer = 0; /* a stale value, as after init: rank 0 is never the one to blame */
    CHECK(tl.ops->init(&tl, &job) == DFC_SUCCESS);
}

static long from_1;
static void deliver(const dfc_pkt_t *pkt, const void *payload)
{
    (void)payload;
    CHECK(pkt->src_world == 1);
    from_1++;
}

/* A barrier that a dead rank cannot spoil: adds this rank to fb->counter, then waits until
 * it reaches `want` (the callers' running total). */
static void meet(int want)
{
    __atomic_fetch_add(&fb->counter, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&fb->counter, __ATOMIC_SEQ_CST) < want) usleep(1000);
}

static void observe_failures(int n)
{
    shm_t *s = tl.priv;
    int blamed[64] = {0}, nfail = 0;
    double t0 = now();
    while ((nfail < 2 || from_1 < 1) && now() - t0 < 20) {
        int rc = tl.ops->progress(&tl, deliver);
        if (rc >= 0) continue;
        char msg[512], want[32];
        dfc_err_message(-rc, msg, sizeof msg);
        CHECK(DFC_ERR_CLASS(-rc) == DFC_ERR_PROC_FAILED);
        int w = tl.failed_peer;
        snprintf(want, sizeof want, "world rank %d", w);
        if (!strstr(msg, want) || (w != 2 && w != 3) || blamed[w])
            fprintf(stderr, "[rank 0] failed_peer %d, message \"%s\"\n", w, msg);
        CHECK(w == 2 || w == 3);
        CHECK(strstr(msg, want) != NULL && strstr(msg, "malformed") != NULL);
        CHECK(!blamed[w]);
        blamed[w] = 1;
        nfail++;
    }
    CHECK(blamed[2] && blamed[3] && from_1 == 1);
    CHECK(s->ndead == 0);
    dfc_pkt_t p = {.type = DFC_PKT_EAGER, .src_world = 0};
    for (int w = 2; w < n; w++)
        CHECK(DFC_ERR_CLASS(tl.ops->send(&tl, w, &p, NULL)) == DFC_ERR_PROC_FAILED);
    CHECK(tl.ops->send(&tl, 1, &p, NULL) == DFC_SUCCESS);
}

static void observe_quiet(void)
{
    shm_t *s = tl.priv;
    double t0 = now();
    while (now() - t0 < 0.3) {                      /* 15 liveness periods */
        CHECK(tl.ops->progress(&tl, deliver) >= 0); /* nothing more to report */
        usleep(2000);
    }
    CHECK(s->ndead == 0);
}

static int fail_rank(int rank, int n)
{
    tl_init(rank, n);
    meet(n); /* everyone has initialized */
    shm_t *s = tl.priv;
    if (rank >= 2) {
        shm_peer_t *p = &s->peers[s->w2p[0]];
        size_t ulen = sizeof(dfc_pkt_t);
        char *rec = dfc_shm_ring_reserve(p->out, ulen);
        CHECK(rec != NULL);
        memset(rec, 0, ulen);                                      /* type 0: a malformed packet */
        if (rank == 2) ((dfc_shm_rec_t *)rec - 1)->reclen = 12345; /* a malformed header */
        dfc_shm_ring_commit(p->out);
    } else if (rank == 1) {
        dfc_pkt_t p = {.type = DFC_PKT_EAGER, .src_world = 1};
        CHECK(tl.ops->send(&tl, 0, &p, NULL) == DFC_SUCCESS);
    }
    meet(2 * n); /* all three wrote before rank 0 looks */
    if (rank == 0) observe_failures(n);
    meet(3 * n);
    if (rank == 2) _exit(0); /* no fini: it simply goes */
    if (rank == 0) observe_quiet();
    /* The others leave together: one leaving early would look dead to the rest. */
    meet(4 * n - 1);
    tl.ops->fini(&tl);
    return 0;
}

int main(void)
{
    (void)fb_count_fds;
    setenv("DFC_SHM_LIVENESS_MS", "20", 1);
    snprintf(nspace, sizeof nspace, "test_shm_fail.%d", (int)getpid());
    CHECK(fb_run(4, fail_rank) == 0);
    printf("test_shm_fail: ok\n");
    return 0;
}
