/*
 * bcast_shm_slots.c - bcast through the shm collective slots (src/tl/shm_slots.h), as
 * allreduce_shm_slots.c does allreduce (issue 16).
 *
 * Algorithm: a rooted slot exchange. The root copies the message into its own slot and
 * publishes it with the exchange's stamp; every other rank waits for that stamp, copies the
 * message out and publishes that it has finished reading. The root does not wait for the
 * readers: it only needs its slot buffer free, which the slots' sixteen buffers make a wait
 * for the exchange sixteen back, so the root runs ahead like an eager send (and once it
 * had to wait, it waits for DFC_SLOT_SLACK free buffers, so that it stays ahead instead of
 * trailing its reader by one). No packets, no matching, no requests; a blocking call does
 * not even make an instance (below).
 *
 * Cost (m bytes, p ranks on one node): one copy in at the root, one cache-line transfer per
 * 64 bytes to each reader and one copy out there; no alpha of the message path.
 *
 * Chosen for bcast of 1 to 4096 bytes (1024 on 2 ranks: dfc_comm_slot_limit) where
 * allreduce_shm_slots is (communicators with slots, blocking and nonblocking calls).
 * DFC_SHM_SLOTS=0 turns it off.
 */
#include <string.h>

#include "coll/dfc_coll.h"

int dfc_coll_bcast_shm_slots_usable(const dfc_coll_args_t *a)
{
    uint64_t bytes = a->count * a->elem;
    return a->slots && !a->gpu && a->size > 1 && bytes > 0 && bytes <= dfc_comm_slot_limit(a->size);
}

int dfc_coll_bcast_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    uint64_t bytes = a->count * a->elem;
    s->algorithm = "shm_slots";
    if (bytes == 0 || a->size == 1) return DFC_SUCCESS;
    return dfc_sched_slot_bcast(s, a->root, bytes);
}

/* ---- Blocking slot collectives without an instance (issue 16, fifth pass) -----------------
 * The blocking call that would run a one-step slot schedule (bcast here, allreduce and
 * barrier in their files) runs its slot exchange right here: no cached instance taken and
 * put back, no run queue, no executor, no request. The exchange is the same, begun at
 * initiation as dfc_coll_start begins it, so it mixes freely with the instances of other
 * calls on the communicator (their stamps order them). A bcast root returns once its
 * message is in its slot (copied: the buffer is the caller's again) and runs up to
 * DFC_SLOT_NBUF exchanges ahead of its slowest reader. A wait (a reader before the root's
 * stamp, a writer before a free buffer) is dfc_progress_wait's: other traffic and
 * collectives move meanwhile, and a failed member ends it as it ends the executor's slot
 * step. Waiting exchanges are listed for the hang report. */
typedef struct slot_direct {
    dfc_list_t link; /* in `waiting` while it waits */
    dfc_comm_t *comm;
    dfc_tl_slot_xchg_t *x;
    const char *kind;
    int rc;
} slot_direct_t;

static dfc_list_t waiting = {&waiting, &waiting};

static int direct_ready(void *arg)
{
    slot_direct_t *d = arg;
    int rc = dfc_comm_slot_xchg(d->comm, d->x);
    if (rc == DFC_TL_AGAIN) {
        if (!(rc = dfc_fault_check(d->comm, 1, -1))) return 0;
        d->x->phase = DFC_TL_SLOT_CANCEL; /* a member failed */
        dfc_comm_slot_xchg(d->comm, d->x);
    }
    d->rc = rc;
    return 1;
}

/* What the exchange waits for (a peer's stamp or `done`) usually comes within a few hundred
 * nanoseconds. A wait's passes over every transport and hook take 50-100 ns each on the
 * 2-core VM and see it up to a pass late, so the exchange alone is looked at SLOT_SPIN times
 * first (issue 16: a 2-rank 8-byte allreduce spent most of its wait in those passes). Not when
 * oversubscribed: the peer may need this core. */
#define SLOT_SPIN 64

int dfc_coll_slot_direct(dfc_comm_t *c, dfc_tl_slot_xchg_t *x, const char *kind)
{
    c->coll_seq++; /* as dfc_coll_start numbers every instance of the communicator */
    return dfc_coll_slot_direct_more(c, x, kind);
}

int dfc_coll_slot_direct_more(dfc_comm_t *c, dfc_tl_slot_xchg_t *x, const char *kind)
{
    slot_direct_t d = {.comm = c, .x = x, .kind = kind};
    x->phase = DFC_TL_SLOT_RUN; /* begun at initiation, as dfc_coll_start begins it */
    int rc = dfc_comm_slot_xchg(c, x);
    if (rc != DFC_TL_AGAIN) return rc; /* done, or the slots refused to begin */
    if (direct_ready(&d)) return d.rc;
    for (int i = dfc_progress_oversubscribed() ? SLOT_SPIN : 0; i < SLOT_SPIN; i++)
        if ((rc = dfc_comm_slot_xchg(c, x)) != DFC_TL_AGAIN) return rc;
    dfc_list_insert_tail(&waiting, &d.link);
    rc = dfc_progress_wait(direct_ready, &d);
    dfc_list_remove(&d.link);
    if (rc && x->phase != DFC_TL_SLOT_DONE) {
        x->phase = DFC_TL_SLOT_CANCEL;
        dfc_comm_slot_xchg(c, x);
    }
    return rc ? rc : d.rc;
}

void dfc_coll_slot_direct_report(FILE *f)
{
    for (dfc_list_t *e = waiting.next; e != &waiting; e = e->next) {
        const slot_direct_t *d = DFC_CONTAINER_OF(e, slot_direct_t, link);
        int written = d->x->phase != DFC_TL_SLOT_WRITE;
        int who = dfc_comm_slot_waiting_for(d->comm, d->x->stamp, written,
                                            d->x->rooted ? d->x->root : -1);
        fprintf(f,
                "[dfc hang report] rank %d: collective %s on comm ctx %u (blocking, shm "
                "slots) waiting for rank %d (stamp %llu, %s)\n",
                dfc_proc.world_rank, d->kind, d->comm->ctx, who, (unsigned long long)d->x->stamp,
                written ? "its contribution" : "a free slot");
    }
}

/* What DFC_<kind>_ALGORITHM says of the slot algorithms: read once per kind (the fast paths
 * ask on every call). */
dfc_coll_slot_algo_t dfc_coll_slots_forced(dfc_coll_kind_t kind)
{
    static signed char known[DFC_COLL_KIND_COUNT]; /* 0: not yet, else the answer + 2 */
    if (DFC_UNLIKELY(!known[kind])) {
        const char *forced = dfc_coll_forced_algorithm(kind);
        dfc_coll_slot_algo_t f = !forced                              ? DFC_SLOTS_AUTO
                                 : !strcmp(forced, "shm_slots")       ? DFC_SLOTS_ONE
                                 : !strcmp(forced, "shm_slots_rs_ag") ? DFC_SLOTS_RS_AG
                                                                      : DFC_SLOTS_AWAY;
        known[kind] = (signed char)(f + 2);
    }
    return (dfc_coll_slot_algo_t)(known[kind] - 2);
}

int dfc_coll_slots_not_forced_away(dfc_coll_kind_t kind)
{
    dfc_coll_slot_algo_t f = dfc_coll_slots_forced(kind);
    return f == DFC_SLOTS_AUTO || f == DFC_SLOTS_ONE;
}

typedef struct bcast_direct {
    void *buf;
    uint64_t bytes;
    int root, me;
} bcast_direct_t;

static void bcast_copy(void *ctx, const void *const *in, int n)
{
    const bcast_direct_t *b = ctx;
    (void)n;
    if (b->root != b->me) memcpy(b->buf, in[b->root], b->bytes);
}

int dfc_coll_bcast_direct(dfc_comm_t *c, void *buf, uint64_t bytes, int root)
{
    /* What dfc_coll_select would pick (bcast_shm_slots_usable, no forced algorithm) for a
     * host buffer (run.c's route_of) */
    if (!dfc_comm_slots(c) || bytes == 0 || bytes > dfc_comm_slot_limit(c->size) ||
        !dfc_coll_slots_not_forced_away(DFC_COLL_BCAST) || dfc_gpu_ptr_device(buf) >= 0)
        return DFC_COLL_NOT_DIRECT;
    bcast_direct_t b = {buf, bytes, root, c->rank};
    dfc_tl_slot_xchg_t x = {
        .src = buf, .bytes = bytes, .reduce = bcast_copy, .ctx = &b, .rooted = 1, .root = root};
    return dfc_coll_slot_direct(c, &x, "bcast");
}
