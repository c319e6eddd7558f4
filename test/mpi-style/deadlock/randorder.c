/*
 * randorder - nonblocking collectives of every kind on 4 communicators (two dups of WORLD
 * and two splits of it), initiated in a different random order on every rank, completed
 * by a random mix of Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany and
 * Testsome, with every result checked. -n=N operations in all (default 2000); -watchdog=S.
 * -rssbound=KiB: flat memory. Each rank reads its peak resident size (VmHWM) once a tenth of
 * the operations are done (pools and buffers have reached their working size) and again at
 * the end; rank 0 prints "rss: ..." with the largest growth, which fails the test if it
 * exceeds the bound (the testlist passes that line through with reportLine=). Not under
 * AddressSanitizer, whose quarantine of freed memory makes the resident size grow anyway.
 *
 * Per communicator, every member builds the same sequence of operations (as MPI requires:
 * collectives on one communicator are initiated in the same order everywhere); each rank
 * then interleaves the 4 sequences in its own random order, keeping a window of up to W
 * outstanding requests (W between 8 and 64, per rank).
 *
 * The program is correct MPI, so it must complete; it is built so that only progress of
 * every outstanding operation during any blocking call makes it complete. Operation j of
 * communicator slot c has the stamp 4j + c. A rank interleaves freely but never initiates
 * an operation more than LAG = W/2 stamps ahead of its oldest uninitiated one, and it
 * blocks (Wait, Waitall, Waitany, Waitsome) only on requests it may block on: those with
 * a stamp below its oldest uninitiated operation (for Waitany/Waitsome: at least one such
 * request among those passed). Then the blocked operation with the smallest stamp has been
 * initiated by all its members, so it can complete; with W > LAG a full window always holds
 * such a request. What the ranks wait on still differs from rank to rank and from what
 * their peers are working on, which is the situation the deadlock-freedom promise covers.
 */
#include "dltest.h"

enum {
    K_BARRIER,
    K_BCAST,
    K_REDUCE,
    K_ALLREDUCE,
    K_GATHER,
    K_GATHERV,
    K_SCATTER,
    K_SCATTERV,
    K_ALLGATHER,
    K_ALLGATHERV,
    K_ALLTOALL,
    K_ALLTOALLV,
    K_RSB,
    K_RS,
    K_SCAN,
    K_EXSCAN,
    K_NKINDS
};
static const char *const kind_name[K_NKINDS] = {"ibarrier",
                                                "ibcast",
                                                "ireduce",
                                                "iallreduce",
                                                "igather",
                                                "igatherv",
                                                "iscatter",
                                                "iscatterv",
                                                "iallgather",
                                                "iallgatherv",
                                                "ialltoall",
                                                "ialltoallv",
                                                "ireduce_scatter_block",
                                                "ireduce_scatter",
                                                "iscan",
                                                "iexscan"};

#define NSLOTS 4
static DFC_Comm comms[NSLOTS];

/* Peak resident set size of this process in KiB (VmHWM), or -1. */
static long peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) kib = strtol(line + 6, NULL, 10);
    if (f) fclose(f);
    return kib;
}
static int crank[NSLOTS], csize[NSLOTS];

typedef struct pend {
    int slot, j, kind, root, count;
    DFC_Op op;
    int *sbuf, *rbuf;
    int *sc, *sd, *rc, *rd; /* per-rank counts and displacements (v forms) */
    int rlen;               /* ints in rbuf */
    long stamp;
    DFC_Request req;
} pend_t;

/* The value element i of what src sends to dst in operation (slot, j). */
static inline int val(int slot, int j, int src, int dst, int i)
{
    return ct_val(src * 64 + dst, i, slot * 7919 + 13, (unsigned)j);
}
/* A hash of (slot, j, a, b) for the operation's parameters (same on all members). */
static inline unsigned h(int slot, int j, int a, int b)
{
    return (unsigned)ct_val(slot + 100, j, a, (unsigned)b * 31u + 7u);
}

static int red(DFC_Op op, int a, int b)
{
    if (op == DFC_SUM) return (int)((unsigned)a + (unsigned)b);
    if (op == DFC_MAX) return a > b ? a : b;
    return a ^ b;
}

static int vcount(const pend_t *p, int a, int b)
{
    return (int)(h(p->slot, p->j, a + 1, b + 1) % (p->count + 1));
}

/* Builds operation j of slot (parameters common to all members) and initiates it. */
static void initiate(pend_t *p, int slot, int j)
{
    int m = csize[slot], r = crank[slot];
    DFC_Comm c = comms[slot];
    memset(p, 0, sizeof *p);
    p->slot = slot, p->j = j, p->stamp = 4L * j + slot;
    unsigned x = h(slot, j, 0, 0);
    p->kind = (int)(x % K_NKINDS);
    p->root = (int)((x >> 5) % (unsigned)m);
    p->count = (x >> 9) % 16 == 0 ? 1000 + (int)((x >> 13) % 3000) : (int)((x >> 13) % 40);
    static const DFC_Op ops[3] = {DFC_SUM, DFC_MAX, DFC_BXOR};
    p->op = ops[(x >> 20) % 3];
    int n = p->count, k = p->kind;
    size_t slen = 0, rlen = 0;
    p->sc = ct_malloc(m * sizeof(int)), p->sd = ct_malloc(m * sizeof(int));
    p->rc = ct_malloc(m * sizeof(int)), p->rd = ct_malloc(m * sizeof(int));
    /* sizes */
    switch (k) {
    case K_BARRIER: break;
    case K_BCAST: rlen = n; break;
    case K_REDUCE:
    case K_ALLREDUCE:
    case K_SCAN:
    case K_EXSCAN: slen = rlen = n; break;
    case K_GATHER:
    case K_ALLGATHER: slen = n, rlen = (size_t)n * m; break;
    case K_SCATTER: slen = (size_t)n * m, rlen = n; break;
    case K_ALLTOALL: slen = rlen = (size_t)n * m; break;
    case K_RSB: slen = (size_t)n * m, rlen = n; break;
    case K_GATHERV:
    case K_ALLGATHERV:
    case K_SCATTERV:
    case K_RS: {
        int tot = 0;
        for (int q = 0; q < m; q++) p->rc[q] = vcount(p, q, 0), p->rd[q] = tot, tot += p->rc[q];
        memcpy(p->sc, p->rc, m * sizeof(int)), memcpy(p->sd, p->rd, m * sizeof(int));
        if (k == K_SCATTERV) slen = tot, rlen = p->rc[r];
        else if (k == K_RS) slen = tot, rlen = p->rc[r];
        else slen = p->rc[r], rlen = tot;
        break;
    }
    case K_ALLTOALLV: {
        int st = 0, rt = 0;
        for (int q = 0; q < m; q++) {
            p->sc[q] = vcount(p, r, q), p->sd[q] = st, st += p->sc[q];
            p->rc[q] = vcount(p, q, r), p->rd[q] = rt, rt += p->rc[q];
        }
        slen = st, rlen = rt;
        break;
    }
    }
    p->sbuf = ct_malloc(slen * sizeof(int));
    p->rbuf = ct_malloc(rlen * sizeof(int));
    p->rlen = (int)rlen;
    memset(p->rbuf, 0xee, rlen * sizeof(int));
    /* inputs */
    switch (k) {
    case K_BCAST:
        if (r == p->root)
            for (int i = 0; i < n; i++) p->rbuf[i] = val(slot, j, r, 0, i);
        break;
    case K_REDUCE:
    case K_ALLREDUCE:
    case K_SCAN:
    case K_EXSCAN:
    case K_GATHER:
    case K_ALLGATHER:
    case K_RSB:
        for (size_t i = 0; i < slen; i++) p->sbuf[i] = val(slot, j, r, 0, (int)i);
        break;
    case K_GATHERV:
    case K_ALLGATHERV:
        for (size_t i = 0; i < slen; i++) p->sbuf[i] = val(slot, j, r, 0, (int)i);
        break;
    case K_RS:
        for (size_t i = 0; i < slen; i++) p->sbuf[i] = val(slot, j, r, 0, (int)i);
        break;
    case K_SCATTER:
    case K_ALLTOALL:
        for (int q = 0; q < m; q++)
            for (int i = 0; i < n; i++) p->sbuf[(size_t)q * n + i] = val(slot, j, r, q, i);
        break;
    case K_SCATTERV:
        for (int q = 0; q < m; q++)
            for (int i = 0; i < p->sc[q]; i++) p->sbuf[p->sd[q] + i] = val(slot, j, r, q, i);
        break;
    case K_ALLTOALLV:
        for (int q = 0; q < m; q++)
            for (int i = 0; i < p->sc[q]; i++) p->sbuf[p->sd[q] + i] = val(slot, j, r, q, i);
        break;
    }
    DFC_Request *rq = &p->req;
    switch (k) {
    case K_BARRIER: DFCT_OK(DFC_Ibarrier(c, rq)); break;
    case K_BCAST: DFCT_OK(DFC_Ibcast(p->rbuf, n, DFC_INT, p->root, c, rq)); break;
    case K_REDUCE: DFCT_OK(DFC_Ireduce(p->sbuf, p->rbuf, n, DFC_INT, p->op, p->root, c, rq)); break;
    case K_ALLREDUCE: DFCT_OK(DFC_Iallreduce(p->sbuf, p->rbuf, n, DFC_INT, p->op, c, rq)); break;
    case K_GATHER:
        DFCT_OK(DFC_Igather(p->sbuf, n, DFC_INT, p->rbuf, n, DFC_INT, p->root, c, rq));
        break;
    case K_GATHERV:
        DFCT_OK(DFC_Igatherv(p->sbuf, (int)slen, DFC_INT, p->rbuf, p->rc, p->rd, DFC_INT, p->root,
                             c, rq));
        break;
    case K_SCATTER:
        DFCT_OK(DFC_Iscatter(p->sbuf, n, DFC_INT, p->rbuf, n, DFC_INT, p->root, c, rq));
        break;
    case K_SCATTERV:
        DFCT_OK(DFC_Iscatterv(p->sbuf, p->sc, p->sd, DFC_INT, p->rbuf, (int)rlen, DFC_INT, p->root,
                              c, rq));
        break;
    case K_ALLGATHER:
        DFCT_OK(DFC_Iallgather(p->sbuf, n, DFC_INT, p->rbuf, n, DFC_INT, c, rq));
        break;
    case K_ALLGATHERV:
        DFCT_OK(
            DFC_Iallgatherv(p->sbuf, (int)slen, DFC_INT, p->rbuf, p->rc, p->rd, DFC_INT, c, rq));
        break;
    case K_ALLTOALL: DFCT_OK(DFC_Ialltoall(p->sbuf, n, DFC_INT, p->rbuf, n, DFC_INT, c, rq)); break;
    case K_ALLTOALLV:
        DFCT_OK(
            DFC_Ialltoallv(p->sbuf, p->sc, p->sd, DFC_INT, p->rbuf, p->rc, p->rd, DFC_INT, c, rq));
        break;
    case K_RSB:
        DFCT_OK(DFC_Ireduce_scatter_block(p->sbuf, p->rbuf, n, DFC_INT, p->op, c, rq));
        break;
    case K_RS: DFCT_OK(DFC_Ireduce_scatter(p->sbuf, p->rbuf, p->rc, DFC_INT, p->op, c, rq)); break;
    case K_SCAN: DFCT_OK(DFC_Iscan(p->sbuf, p->rbuf, n, DFC_INT, p->op, c, rq)); break;
    case K_EXSCAN: DFCT_OK(DFC_Iexscan(p->sbuf, p->rbuf, n, DFC_INT, p->op, c, rq)); break;
    }
}

/* Checks a completed operation's result, then frees it. */
static void finish(pend_t *p)
{
    int m = csize[p->slot], r = crank[p->slot], slot = p->slot, j = p->j, n = p->count, bad = 0;
    int *e = ct_malloc((p->rlen ? p->rlen : 1) * sizeof(int));
    int check = 1;
    switch (p->kind) {
    case K_BARRIER: check = 0; break;
    case K_BCAST:
        for (int i = 0; i < n; i++) e[i] = val(slot, j, p->root, 0, i);
        break;
    case K_REDUCE:
    case K_ALLREDUCE:
    case K_SCAN:
    case K_EXSCAN: {
        int lo = 0, hi = m;
        if (p->kind == K_REDUCE && r != p->root) check = 0;
        if (p->kind == K_SCAN) hi = r + 1;
        if (p->kind == K_EXSCAN) hi = r, check = r > 0;
        for (int i = 0; i < n && check; i++) {
            int acc = val(slot, j, lo, 0, i);
            for (int q = lo + 1; q < hi; q++) acc = red(p->op, acc, val(slot, j, q, 0, i));
            e[i] = acc;
        }
        break;
    }
    case K_GATHER:
    case K_ALLGATHER:
        if (p->kind == K_GATHER && r != p->root) check = 0;
        for (int q = 0; q < m && check; q++)
            for (int i = 0; i < n; i++) e[(size_t)q * n + i] = val(slot, j, q, 0, i);
        break;
    case K_GATHERV:
    case K_ALLGATHERV:
        if (p->kind == K_GATHERV && r != p->root) check = 0;
        for (int q = 0; q < m && check; q++)
            for (int i = 0; i < p->rc[q]; i++) e[p->rd[q] + i] = val(slot, j, q, 0, i);
        break;
    case K_SCATTER:
    case K_SCATTERV:
        for (int i = 0; i < p->rlen; i++) e[i] = val(slot, j, p->root, r, i);
        break;
    case K_ALLTOALL:
        for (int q = 0; q < m; q++)
            for (int i = 0; i < n; i++) e[(size_t)q * n + i] = val(slot, j, q, r, i);
        break;
    case K_ALLTOALLV:
        for (int q = 0; q < m; q++)
            for (int i = 0; i < p->rc[q]; i++) e[p->rd[q] + i] = val(slot, j, q, r, i);
        break;
    case K_RSB:
    case K_RS: {
        int off = p->kind == K_RSB ? r * n : p->rd[r];
        for (int i = 0; i < p->rlen; i++) {
            int acc = val(slot, j, 0, 0, off + i);
            for (int q = 1; q < m; q++) acc = red(p->op, acc, val(slot, j, q, 0, off + i));
            e[i] = acc;
        }
        break;
    }
    }
    if (check)
        for (int i = 0; i < p->rlen; i++)
            if (p->rbuf[i] != e[i] && bad++ == 0)
                DFCT_CHECK(
                    0,
                    "%s #%d on comm slot %d (count %d, root %d, %s): element %d is %d, expected %d",
                    kind_name[p->kind], j, slot, n, p->root, ct_op_name(p->op), i, p->rbuf[i],
                    e[i]);
    free(e);
    free(p->sbuf), free(p->rbuf), free(p->sc), free(p->sd), free(p->rc), free(p->rd);
    free(p);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    dl_watchdog(argc, argv, "randorder");
    long total = ct_opt(argc, argv, "n", 2000);
    long per = total / NSLOTS; /* operations per communicator slot */
    long rss_bound = ct_opt(argc, argv, "rssbound", 0), rss_start = -1;
    if (dfct_under_asan()) {
        /* AddressSanitizer keeps freed memory in its quarantine (256 MB by default): resident
         * size grows whatever the library does, so the sanitizer stage does not measure it. */
        if (rss_bound && ct_rank == 0) printf("rss: not measured under AddressSanitizer\n");
        rss_bound = 0;
    }

    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comms[0]));
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comms[1]));
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, ct_rank % 2, ct_rank, &comms[2]));
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, ct_rank < ct_size / 2, ct_size - ct_rank, &comms[3]));
    for (int s = 0; s < NSLOTS; s++)
        DFC_Comm_rank(comms[s], &crank[s]), DFC_Comm_size(comms[s], &csize[s]);

    unsigned rs = ct_seed(ct_rank, 4242, 9);
    int W = 8 + (int)(dfct_rand(&rs) % 57), LAG = W / 2;
    pend_t **out = ct_malloc(W * sizeof *out);
    int nout = 0;
    long next[NSLOTS] = {0};
    DFC_Request *arr = ct_malloc(W * sizeof *arr);
    int *idx = ct_malloc(W * sizeof *idx), *sel = ct_malloc(W * sizeof *sel);
    long done = 0, counts_by_method[8] = {0};
    dl_phase("interleaving");

    for (;;) {
        long min_next = -1;
        int remaining = 0;
        for (int s = 0; s < NSLOTS; s++)
            if (next[s] < per) {
                long st = 4L * next[s] + s;
                if (min_next < 0 || st < min_next) min_next = st;
                remaining = 1;
            }
        if (!remaining && nout == 0) break;
        unsigned x = dfct_rand(&rs);
        if (remaining && nout < W && (x % 4 != 0 || nout == 0)) {
            /* initiate on a random communicator among those within the lag */
            int cand[NSLOTS], nc = 0;
            for (int s = 0; s < NSLOTS; s++)
                if (next[s] < per && 4L * next[s] + s <= min_next + LAG) cand[nc++] = s;
            int s = cand[(x >> 4) % nc];
            pend_t *p = ct_malloc(sizeof *p);
            initiate(p, s, (int)next[s]++);
            out[nout++] = p;
            continue;
        }
        /* complete something */
        int method = (int)((x >> 4) % 8);
        int nsafe = 0;
        for (int i = 0; i < nout; i++)
            if (!remaining || out[i]->stamp < min_next) nsafe++;
        if (method < 4 && nsafe == 0) method += 4; /* blocking only on what may be blocked on */
        /* choose the requests to pass */
        int nsel = 0;
        if (method == 0 || method == 4) { /* Wait / Test: one request */
            int pick = -1;
            for (int tries = 0; tries < 4 * nout && pick < 0; tries++) {
                int i = (int)(dfct_rand(&rs) % (unsigned)nout);
                if (method == 4 || !remaining || out[i]->stamp < min_next) pick = i;
            }
            if (pick < 0)
                for (int i = 0; i < nout && pick < 0; i++)
                    if (!remaining || out[i]->stamp < min_next) pick = i;
            sel[nsel++] = pick;
        } else {
            /* a random subset; for blocking calls: all safe (Waitall) or at least one safe */
            int need_safe = method < 4, has_safe = 0;
            for (int i = 0; i < nout; i++) {
                int safe = !remaining || out[i]->stamp < min_next;
                if (method == 1 && !safe) continue;
                if (dfct_rand(&rs) % 3 == 0) continue;
                sel[nsel++] = i;
                has_safe |= safe;
            }
            if (need_safe && !has_safe) {
                for (int i = 0; i < nout; i++)
                    if (!remaining || out[i]->stamp < min_next) {
                        sel[nsel++] = i;
                        break;
                    }
            }
            if (nsel == 0) sel[nsel++] = (int)(dfct_rand(&rs) % (unsigned)nout);
        }
        for (int i = 0; i < nsel; i++) arr[i] = out[sel[i]]->req;
        int ndone = 0, flag = 0, index = -1, outcount = 0;
        counts_by_method[method]++;
        switch (method) {
        case 0:
            DFCT_OK(DFC_Wait(&arr[0], DFC_STATUS_IGNORE));
            idx[ndone++] = 0;
            break;
        case 1:
            DFCT_OK(DFC_Waitall(nsel, arr, DFC_STATUSES_IGNORE));
            for (int i = 0; i < nsel; i++) idx[ndone++] = i;
            break;
        case 2:
            DFCT_OK(DFC_Waitany(nsel, arr, &index, DFC_STATUS_IGNORE));
            DFCT_CHECK(index >= 0 && index < nsel, "Waitany index %d of %d", index, nsel);
            if (index >= 0 && index < nsel) idx[ndone++] = index;
            break;
        case 3:
            DFCT_OK(DFC_Waitsome(nsel, arr, &outcount, idx, DFC_STATUSES_IGNORE));
            DFCT_CHECK(outcount >= 1 && outcount <= nsel, "Waitsome outcount %d of %d", outcount,
                       nsel);
            ndone = outcount > 0 ? outcount : 0;
            break;
        case 4:
            DFCT_OK(DFC_Test(&arr[0], &flag, DFC_STATUS_IGNORE));
            if (flag) idx[ndone++] = 0;
            break;
        case 5:
            DFCT_OK(DFC_Testall(nsel, arr, &flag, DFC_STATUSES_IGNORE));
            if (flag)
                for (int i = 0; i < nsel; i++) idx[ndone++] = i;
            break;
        case 6:
            DFCT_OK(DFC_Testany(nsel, arr, &index, &flag, DFC_STATUS_IGNORE));
            if (flag) {
                DFCT_CHECK(index >= 0 && index < nsel, "Testany index %d of %d", index, nsel);
                if (index >= 0 && index < nsel) idx[ndone++] = index;
            }
            break;
        case 7:
            DFCT_OK(DFC_Testsome(nsel, arr, &outcount, idx, DFC_STATUSES_IGNORE));
            DFCT_CHECK(outcount >= 0 && outcount <= nsel, "Testsome outcount %d of %d", outcount,
                       nsel);
            ndone = outcount > 0 ? outcount : 0;
            break;
        }
        /* A Test that found nothing yields the CPU, as a considerate polling loop does
         * (the runs have more ranks than cores). */
        if (method >= 4 && ndone == 0) sched_yield();
        /* retire the completed ones (their handles are now DFC_REQUEST_NULL) */
        for (int i = 0; i < ndone; i++) {
            int o = sel[idx[i]];
            DFCT_CHECK(arr[idx[i]] == DFC_REQUEST_NULL, "%s: completed request not set to NULL",
                       kind_name[out[o]->kind]);
            finish(out[o]);
            out[o] = NULL;
            done++;
            if (rss_bound && done == per * NSLOTS / 10) rss_start = peak_rss_kib();
        }
        int w = 0;
        for (int i = 0; i < nout; i++)
            if (out[i]) out[w++] = out[i]; /* passed but not completed: handle unchanged */
        nout = w;
        if (dfct_errs > 50) break; /* enough to diagnose */
    }
    dl_phase("finishing");
    if (getenv("DFCT_VERBOSE")) /* for people reading the test, not for the runner */
        fprintf(
            stderr,
            "[rank %d] W=%d: %ld operations; Wait %ld Waitall %ld Waitany %ld Waitsome %ld Test %ld Testall %ld "
            "Testany %ld Testsome %ld\n",
            ct_rank, W, done, counts_by_method[0], counts_by_method[1], counts_by_method[2],
            counts_by_method[3], counts_by_method[4], counts_by_method[5], counts_by_method[6],
            counts_by_method[7]);
    DFCT_CHECK(done == per * NSLOTS || dfct_errs > 50, "completed %ld of %ld operations", done,
               per * NSLOTS);
    if (rss_bound) {
        long mine[2] = {rss_start, peak_rss_kib()}, growth = mine[1] - mine[0], worst = 0,
             at_end = 0;
        DFCT_CHECK(mine[0] > 0 && mine[1] > 0, "cannot read VmHWM from /proc/self/status");
        DFCT_OK(DFC_Allreduce(&growth, &worst, 1, DFC_LONG, DFC_MAX, DFC_COMM_WORLD));
        DFCT_OK(DFC_Allreduce(&mine[1], &at_end, 1, DFC_LONG, DFC_MAX, DFC_COMM_WORLD));
        if (ct_rank == 0)
            printf(
                "rss: peak %ld KiB after %ld operations, %ld KiB after %ld (rank 0); largest growth "
                "over %d ranks %ld KiB (bound %ld), largest peak %ld KiB\n",
                mine[0], per * NSLOTS / 10, mine[1], per * NSLOTS, ct_size, worst, rss_bound,
                at_end);
        DFCT_CHECK(worst <= rss_bound, "peak RSS grew by %ld KiB on some rank (bound %ld KiB)",
                   worst, rss_bound);
    }
    for (int s = 0; s < NSLOTS; s++) DFCT_OK(DFC_Comm_free(&comms[s]));
    free(out), free(arr), free(idx), free(sel);
    dl_watchdog_off();
    return dfct_finalize();
}
