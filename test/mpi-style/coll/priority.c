/*
 * priority - with priorities set (info key dfc_priority, on communicators through
 * DFC_Comm_dup_with_info and on persistent _init calls), higher-priority work completes
 * first when several collectives are ready at once.
 *
 * Ranks pair up (0,1), (2,3), ... (an odd rank out only checks it can take part in
 * nothing). In a trial the pair's first rank, the observer, starts K collectives in
 * ascending priority (so that FIFO order would complete the lowest first), tells its peer
 * "go" and then sleeps without calling DFC. The peer starts its K collectives on "go" and
 * completes them (it has the observer's data). When the observer wakes, the data of all K
 * is there, so all K are ready together; the observer's completion order, recorded by
 * completion callbacks (DFC_Request_set_callback), must be by descending priority.
 * Whether the peer had really started everything before the observer woke is checked
 * afterwards (DFC_Wtime is CLOCK_MONOTONIC, comparable between processes of one host);
 * a trial where it had not is not judged and is retried with a longer sleep, so a slow or
 * oversubscribed machine can hide a failure but never cause a false one. The progress
 * thread is turned off before init (DFC_ASYNC_PROGRESS=0): it would complete each collective
 * as its data came, while the observer sleeps, so nothing would be ready together.
 * Scenarios: (1) nonblocking allreduces on three dups with priorities 0, 5, 10; (2) three
 * persistent allreduces on one communicator with _init priorities 1, 3, 7 (started in
 * different orders on the two ranks); (3) the case: a large low-priority (0)
 * persistent allreduce and a small high-priority (10) one; (4) _init info overriding the
 * communicator's priority. Results are checked on both ranks in every trial.
 */
#include <stdint.h>

#include "colltest.h"

#define MAXK 4
#define TAG_GO 11
#define TAG_T 12
#define TAG_VALID 13

static DFC_Comm pair, ctl; /* the pair; control messages */
static int prank = -1, psize;

typedef struct op {
    DFC_Comm comm;
    int persistent;
    int prio; /* expected effective priority */
    int count;
    DFC_Request req;
    float *sbuf, *rbuf;
} op_t;

static int order[MAXK], norder;
static void on_complete(DFC_Request r, const DFC_Status *st, void *arg)
{
    (void)r, (void)st;
    if (norder < MAXK) order[norder] = (int)(intptr_t)arg;
    norder++;
}

static void fill(op_t *o, int i, int rank, unsigned iter)
{
    unsigned s = ct_seed(rank, iter, 50 + i);
    for (int j = 0; j < o->count; j++) o->sbuf[j] = (float)(dfct_rand(&s) % 64);
}
static void check(op_t *o, int i, unsigned iter, const char *scen)
{
    int bad = 0;
    unsigned s0 = ct_seed(0, iter, 50 + i), s1 = ct_seed(1, iter, 50 + i);
    for (int j = 0; j < o->count; j++) {
        float e = (float)(dfct_rand(&s0) % 64);
        if (psize > 1) e += (float)(dfct_rand(&s1) % 64);
        if (o->rbuf[j] != e && bad++ < 3)
            DFCT_CHECK(0, "%s: op %d (priority %d) element %d is %g, expected %g", scen, i, o->prio,
                       j, (double)o->rbuf[j], (double)e);
    }
}

/* Starts (or initiates) op i. */
static void start(op_t *o, int i, int with_cb)
{
    if (o->persistent) {
        if (with_cb) DFCT_OK(DFC_Request_set_callback(o->req, on_complete, (void *)(intptr_t)i));
        DFCT_OK(DFC_Start(&o->req));
    } else {
        DFCT_OK(DFC_Iallreduce(o->sbuf, o->rbuf, o->count, DFC_FLOAT, DFC_SUM, o->comm, &o->req));
        if (with_cb) DFCT_OK(DFC_Request_set_callback(o->req, on_complete, (void *)(intptr_t)i));
    }
}

/* One trial; ops[] in ascending priority. Returns 1 if it was judged (or needs no judging). */
static int trial(op_t *ops, int k, int sleep_ms, unsigned iter, const char *scen)
{
    DFC_Request reqs[MAXK];
    int valid = 1;
    for (int i = 0; i < k; i++) {
        fill(&ops[i], i, prank, iter);
        memset(ops[i].rbuf, 0xff, ops[i].count * sizeof(float));
    }
    DFCT_OK(DFC_Barrier(ctl));
    if (psize == 1) {
        for (int i = 0; i < k; i++) start(&ops[i], i, 0);
    } else if (prank == 0) {
        DFC_Request go;
        int token = 1;
        norder = 0;
        for (int i = 0; i < k; i++) start(&ops[i], i, 1);
        DFCT_OK(DFC_Isend(&token, 1, DFC_INT, 1, TAG_GO, ctl, &go));
        usleep((useconds_t)sleep_ms * 1000);
        double t_wait = DFC_Wtime(), t_posted = 0;
        for (int i = 0; i < k; i++) reqs[i] = ops[i].req;
        DFCT_OK(DFC_Waitall(k, reqs, DFC_STATUSES_IGNORE));
        for (int i = 0; i < k; i++) ops[i].req = ops[i].persistent ? reqs[i] : DFC_REQUEST_NULL;
        DFCT_OK(DFC_Wait(&go, DFC_STATUS_IGNORE));
        DFCT_OK(DFC_Recv(&t_posted, 1, DFC_DOUBLE, 1, TAG_T, ctl, DFC_STATUS_IGNORE));
        valid = t_posted < t_wait;
        DFCT_CHECK(norder == k, "%s: %d completion callbacks for %d requests", scen, norder, k);
        if (valid && norder == k)
            for (int j = 0; j < k; j++)
                if (order[j] != k - 1 - j) {
                    char got[64] = "", want[64] = "";
                    for (int m = 0; m < k; m++) {
                        sprintf(got + strlen(got), " %d", ops[order[m]].prio);
                        sprintf(want + strlen(want), " %d", ops[k - 1 - m].prio);
                    }
                    DFCT_CHECK(0,
                               "%s: all ready together, completed in priority order%s, expected%s",
                               scen, got, want);
                    break;
                }
        DFCT_OK(DFC_Send(&valid, 1, DFC_INT, 1, TAG_VALID, ctl));
    } else {
        int token = 0;
        DFCT_OK(DFC_Recv(&token, 1, DFC_INT, 0, TAG_GO, ctl, DFC_STATUS_IGNORE));
        for (int j = 0; j < k; j++) { /* in an order that differs from the observer's */
            int i = (int)((j + iter) % (unsigned)k);
            start(&ops[i], i, 0);
        }
        double t_posted = DFC_Wtime();
        for (int i = 0; i < k; i++) reqs[i] = ops[i].req;
        DFCT_OK(DFC_Waitall(k, reqs, DFC_STATUSES_IGNORE));
        for (int i = 0; i < k; i++) ops[i].req = ops[i].persistent ? reqs[i] : DFC_REQUEST_NULL;
        DFCT_OK(DFC_Send(&t_posted, 1, DFC_DOUBLE, 0, TAG_T, ctl));
        DFCT_OK(DFC_Recv(&valid, 1, DFC_INT, 0, TAG_VALID, ctl, DFC_STATUS_IGNORE));
    }
    if (psize == 1) {
        for (int i = 0; i < k; i++) reqs[i] = ops[i].req;
        DFCT_OK(DFC_Waitall(k, reqs, DFC_STATUSES_IGNORE));
        for (int i = 0; i < k; i++) ops[i].req = ops[i].persistent ? reqs[i] : DFC_REQUEST_NULL;
    }
    for (int i = 0; i < k; i++) check(&ops[i], i, iter, scen);
    return valid;
}

/* Runs trials until `judged` were judged (at most 6, sleeping longer each time). */
static void run(op_t *ops, int k, int judged, const char *scen)
{
    int done = 0, ms = 120;
    for (int t = 0; t < 6 && done < judged; t++) {
        done += trial(ops, k, ms, ct_iter++, scen);
        if (done <= t) ms *= 2;
    }
}

static void alloc_op(op_t *o, DFC_Comm c, int persistent, int prio, int count)
{
    o->comm = c, o->persistent = persistent, o->prio = prio, o->count = count;
    o->req = DFC_REQUEST_NULL;
    o->sbuf = ct_malloc(count * sizeof(float));
    o->rbuf = ct_malloc(count * sizeof(float));
}
static void free_op(op_t *o)
{
    if (o->persistent) DFCT_OK(DFC_Request_free(&o->req));
    free(o->sbuf), free(o->rbuf);
}

static DFC_Comm dup_prio(DFC_Comm c, int prio)
{
    DFC_Info info;
    DFC_Comm out;
    char v[16];
    snprintf(v, sizeof v, "%d", prio);
    DFCT_OK(DFC_Info_create(&info));
    DFCT_OK(DFC_Info_set(info, "dfc_priority", v));
    DFCT_OK(DFC_Comm_dup_with_info(c, info, &out));
    DFCT_OK(DFC_Info_free(&info));
    return out;
}

static void init_persistent(op_t *o, int info_prio)
{
    DFC_Info info = DFC_INFO_NULL;
    if (info_prio != INT32_MIN) {
        char v[16];
        snprintf(v, sizeof v, "%d", info_prio);
        DFCT_OK(DFC_Info_create(&info));
        DFCT_OK(DFC_Info_set(info, "dfc_priority", v));
    }
    DFCT_OK(
        DFC_Allreduce_init(o->sbuf, o->rbuf, o->count, DFC_FLOAT, DFC_SUM, o->comm, info, &o->req));
    if (info != DFC_INFO_NULL) DFCT_OK(DFC_Info_free(&info));
}

int main(int argc, char **argv)
{
    setenv("DFC_ASYNC_PROGRESS", "0", 1); /* the observer's sleep must stop all progress */
    ct_init(&argc, &argv);
    int color = ct_rank / 2 * 2 + 1 < ct_size || ct_size == 1 ? ct_rank / 2 : DFC_UNDEFINED;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, color, ct_rank, &pair));
    if (pair != DFC_COMM_NULL) {
        DFC_Comm_rank(pair, &prank);
        DFC_Comm_size(pair, &psize);
        DFCT_OK(DFC_Comm_dup(pair, &ctl));
        op_t ops[MAXK];

        /* (1) nonblocking, communicator priorities 0, 5, 10 */
        DFC_Comm c0 = dup_prio(pair, 0), c5 = dup_prio(pair, 5), c10 = dup_prio(pair, 10);
        alloc_op(&ops[0], c0, 0, 0, 64);
        alloc_op(&ops[1], c5, 0, 5, 64);
        alloc_op(&ops[2], c10, 0, 10, 64);
        run(ops, 3, 2, "nonblocking on dups with dfc_priority 0/5/10");
        for (int i = 0; i < 3; i++) free_op(&ops[i]);

        /* (2) persistent on one communicator, _init priorities 1, 3, 7 */
        DFC_Comm one;
        DFCT_OK(DFC_Comm_dup(pair, &one));
        static const int p2[3] = {1, 3, 7};
        /* _init calls in the same order on both ranks (they match by _init order) */
        for (int i = 0; i < 3; i++) {
            alloc_op(&ops[i], one, 1, p2[i], 100 + 50 * i);
            init_persistent(&ops[i], p2[i]);
        }
        run(ops, 3, 3, "persistent with _init dfc_priority 1/3/7");
        for (int i = 0; i < 3; i++) free_op(&ops[i]);

        /* (3) a large low-priority and a small high-priority persistent allreduce on dups */
        DFC_Comm a = dup_prio(pair, 0), b = dup_prio(pair, 0);
        alloc_op(&ops[0], a, 1, 0, 1 << 18);
        init_persistent(&ops[0], 0);
        alloc_op(&ops[1], b, 1, 10, 256);
        init_persistent(&ops[1], 10);
        run(ops, 2, 2, "large priority-0 and small priority-10 persistent allreduces");
        for (int i = 0; i < 2; i++) free_op(&ops[i]);

        /* (4) _init info overrides the communicator's priority: a persistent allreduce
         * with dfc_priority 2 on the priority-10 dup ranks below a nonblocking one on the
         * priority-5 dup, and one without info on the priority-10 dup ranks above both. */
        alloc_op(&ops[0], c10, 1, 2, 64);
        init_persistent(&ops[0], 2);
        alloc_op(&ops[1], c5, 0, 5, 64);
        alloc_op(&ops[2], c10, 1, 10, 64);
        init_persistent(&ops[2], INT32_MIN);
        run(ops, 3, 2, "_init dfc_priority against the communicator's");
        for (int i = 0; i < 3; i++) free_op(&ops[i]);

        DFCT_OK(DFC_Comm_free(&a));
        DFCT_OK(DFC_Comm_free(&b));
        DFCT_OK(DFC_Comm_free(&one));
        DFCT_OK(DFC_Comm_free(&c0));
        DFCT_OK(DFC_Comm_free(&c5));
        DFCT_OK(DFC_Comm_free(&c10));
        DFCT_OK(DFC_Comm_free(&ctl));
        DFCT_OK(DFC_Comm_free(&pair));
    }
    /* Priorities do not stop anything: a WORLD-wide collective on a prioritized dup. */
    DFC_Comm w = dup_prio(DFC_COMM_WORLD, 3);
    int x = 1, y = 0;
    DFCT_OK(DFC_Allreduce(&x, &y, 1, DFC_INT, DFC_SUM, w));
    DFCT_CHECK(y == ct_size, "allreduce on a prioritized WORLD dup gave %d", y);
    DFCT_OK(DFC_Comm_free(&w));
    return dfct_finalize();
}
