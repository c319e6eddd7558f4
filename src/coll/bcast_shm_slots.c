/*
 * bcast_shm_slots.c - bcast through the shm collective slots (src/tl/shm_slots.h), as
 * allreduce_shm_slots.c does allreduce (issue 16).
 *
 * Algorithm: rooted slot exchanges, one per segment of at most one slot buffer
 * (DFC_TL_SLOT_BYTES). The root copies segment k into its own slot and publishes it with
 * exchange k's stamp; every other rank waits for that stamp, copies the segment out and
 * publishes that it has finished reading. The root does not wait for the readers: it only
 * needs its slot buffer free, which the slots' sixteen buffers make a wait for the exchange
 * sixteen back, so the root runs up to 64 KiB ahead like an eager send (and once it had to
 * wait, it waits for DFC_SLOT_SLACK free buffers, so that it stays ahead instead of trailing
 * its reader by one). A long message is thus a pipeline: the readers copy segment k out
 * while the root writes segment k + 1, and no rank relays. No packets, no matching, no
 * requests, no single-copy reads (which contend in the root's address space when many
 * readers pull from it at once: bcast_linear.c); a blocking call does not even make an
 * instance (below).
 *
 * Cost (m bytes, p ranks on one node): m bytes copied in at the root, then each reader's
 * m bytes read from the root's slot, ceil(m / 4 KiB) exchanges; no alpha of the message
 * path. Scatter-allgather moves about 2 m per rank in log2 p + p - 1 message rounds,
 * binomial m per round in log2 p rounds.
 *
 * Chosen for bcast of 1 to 1024 bytes on 2 ranks (TWO_RANK_MAX: one message either
 * way) and on 3 or more ranks up to DFC_BCAST_SLOTS_MAX, 4 MiB (dfc_coll_bcast_slots_limit),
 * where allreduce_shm_slots is (communicators with slots, blocking and nonblocking calls).
 * On 16 cores (BENCHMARKS.md, stop 43, calls A, C and E, 2-3 rounds each, 8 KiB - 4 MiB, the
 * rules before on the same host) it took 0.21-0.80x their time at 8 and 16 ranks (16 ranks,
 * 128 KiB: 37.6 against scatter_allgather's 96.1 us, Open MPI 65.4), 0.57-0.92x at 3 ranks
 * (binomial), and at 4 ranks 0.36-0.96x up to 1 MiB and 0.86-1.07x at 2-4 MiB.
 * Nothing was measured above 4 MiB or 16 ranks. Forced
 * (DFC_BCAST_ALGORITHM=shm_slots), it runs up to DFC_COLL_SLOTS_PIPE_MAX. DFC_SHM_SLOTS=0
 * turns the slots off.
 */
#include <string.h>

#include "coll/dfc_coll.h"

/* The limit on 2 ranks, where a bcast is one message (one exchange) either way: there the
 * message path's 4 KiB bcast took a quarter of the slots' time on the 2-core VM, and forced
 * slots at 2-4 KiB still lost to it in the VM's slow mode in stop 56 (BENCHMARKS.md). */
#define TWO_RANK_MAX 1024

uint64_t dfc_coll_bcast_slots_limit(int size)
{
    static long max = -1; /* read once; a racing first read gets the same value */
    if (max < 0)
        max = dfc_env_long("DFC_BCAST_SLOTS_MAX", 4 << 20,
                           "largest bcast in bytes that the shm slots run on 3 or more processes "
                           "of one node, in 4 KiB exchanges (at most 16 MiB)");
    if (size <= 2) return TWO_RANK_MAX;
    return DFC_MIN2(DFC_MAX2((uint64_t)max, DFC_COMM_SLOT_BYTES), DFC_COLL_SLOTS_PIPE_MAX);
}

int dfc_coll_bcast_shm_slots_usable(const dfc_coll_args_t *a)
{
    uint64_t bytes = a->count * a->elem;
    return a->slots && !a->gpu && a->size > 1 && bytes > 0 && bytes <= DFC_COLL_SLOTS_PIPE_MAX;
}

int dfc_coll_bcast_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    uint64_t bytes = a->count * a->elem;
    s->algorithm = "shm_slots";
    if (a->size == 1) return DFC_SUCCESS;
    for (uint64_t off = 0; off < bytes; off += DFC_COMM_SLOT_BYTES)
        DFC_TRY(dfc_sched_slot_bcast(s, a->root, off, DFC_MIN2(bytes - off, DFC_COMM_SLOT_BYTES)));
    return DFC_SUCCESS;
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

uint64_t dfc_coll_direct_known[DFC_COLL_KIND_COUNT][DFC_COLL_DIRECT_SIZES];

uint64_t dfc_coll_slots_direct_limit_read(dfc_coll_kind_t kind, int size)
{
    uint64_t lim;
    if (!dfc_coll_slots_not_forced_away(kind)) lim = 0;
    else if (kind == DFC_COLL_ALLTOALL) lim = DFC_COMM_SLOT_BYTES; /* forced or by the rules */
    else if (dfc_coll_slots_forced(kind) == DFC_SLOTS_ONE) lim = DFC_COLL_SLOTS_PIPE_MAX;
    else if (kind == DFC_COLL_BCAST) lim = dfc_coll_bcast_slots_limit(size);
    else lim = dfc_coll_allgather_slots_limit(size);
    if (size >= 0 && size < DFC_COLL_DIRECT_SIZES)
        __atomic_store_n(&dfc_coll_direct_known[kind][size], lim + 1, __ATOMIC_RELAXED);
    return lim;
}

int dfc_coll_slots_not_forced_away(dfc_coll_kind_t kind)
{
    dfc_coll_slot_algo_t f = dfc_coll_slots_forced(kind);
    return f == DFC_SLOTS_AUTO || f == DFC_SLOTS_ONE;
}

typedef struct bcast_direct {
    char *seg; /* the segment's place in the buffer */
    uint64_t bytes;
    int root, me;
} bcast_direct_t;

static void bcast_copy(void *ctx, const void *const *in, int n)
{
    const bcast_direct_t *b = ctx;
    (void)n;
    if (b->root != b->me) memcpy(b->seg, in[b->root], b->bytes);
}

int dfc_coll_bcast_direct(dfc_comm_t *c, void *buf, uint64_t bytes, int root)
{
    /* What dfc_coll_select would pick (shm_slots by the rules, or forced, within its limit)
     * for a host buffer (run.c's route_of) */
    if (!dfc_comm_slots(c) || bytes == 0 ||
        bytes > dfc_coll_slots_direct_limit(DFC_COLL_BCAST, c->size) ||
        dfc_gpu_ptr_device(buf) >= 0)
        return DFC_COLL_NOT_DIRECT;
    int rc = DFC_SUCCESS;
    for (uint64_t off = 0; off < bytes && !rc; off += DFC_COMM_SLOT_BYTES) {
        bcast_direct_t b = {(char *)buf + off, DFC_MIN2(bytes - off, DFC_COMM_SLOT_BYTES), root,
                            c->rank};
        dfc_tl_slot_xchg_t x = {.src = b.seg,
                                .bytes = b.bytes,
                                .reduce = bcast_copy,
                                .ctx = &b,
                                .rooted = 1,
                                .root = root,
                                .more = off + DFC_COMM_SLOT_BYTES < bytes};
        rc = off ? dfc_coll_slot_direct_more(c, &x, "bcast") : dfc_coll_slot_direct(c, &x, "bcast");
    }
    return rc;
}
