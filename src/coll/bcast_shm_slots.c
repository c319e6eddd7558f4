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
 * Chosen for bcast of 1 to 1024 bytes (DFC_COMM_SLOT_BYTES) where allreduce_shm_slots is
 * (communicators with slots, blocking and nonblocking calls). DFC_SHM_SLOTS=0 turns it off.
 */
#include <string.h>

#include "coll/dfc_coll.h"

int dfc_coll_bcast_shm_slots_usable(const dfc_coll_args_t *a)
{
    uint64_t bytes = a->count * a->elem;
    return a->slots && !a->gpu && a->size > 1 && bytes > 0 && bytes <= DFC_COMM_SLOT_BYTES;
}

int dfc_coll_bcast_shm_slots_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    uint64_t bytes = a->count * a->elem;
    s->algorithm = "shm_slots";
    if (bytes == 0 || a->size == 1) return DFC_SUCCESS;
    return dfc_sched_slot_bcast(s, a->root, bytes);
}

/* ---- A blocking bcast without an instance (issue 16, fifth pass) ---------------------------
 * The blocking call that would run this schedule runs its one slot exchange right here
 * (dfc_coll_run): no cached instance taken and put back, no run queue, no executor, no
 * request. The exchange is the same, begun at initiation as dfc_coll_start begins it, so it
 * mixes freely with the instances of other calls on the communicator (their stamps order
 * them). The root returns once its message is in its slot (copied: the buffer is the
 * caller's again) and runs up to DFC_SLOT_NBUF exchanges ahead of its slowest reader. A
 * wait (a reader before the root's stamp, the root before a free buffer) is
 * dfc_progress_wait's: other traffic and collectives move meanwhile, and a failed member
 * ends it as it ends the executor's slot step. Waiting exchanges are listed for the hang
 * report. */
typedef struct direct_bcast {
    dfc_list_t link; /* in `waiting` while it waits */
    dfc_comm_t *comm;
    dfc_tl_slot_xchg_t x;
    void *buf;
    int rc;
} direct_bcast_t;

static dfc_list_t waiting = {&waiting, &waiting};

static void direct_copy(void *ctx, const void *const *in, int n)
{
    const direct_bcast_t *d = ctx;
    (void)n;
    if (d->x.root != d->x.me) memcpy(d->buf, in[d->x.root], d->x.bytes);
}

static int direct_ready(void *arg)
{
    direct_bcast_t *d = arg;
    int rc = dfc_comm_slot_xchg(d->comm, &d->x);
    if (rc == DFC_TL_AGAIN) {
        if (!(rc = dfc_fault_check(d->comm, 1, -1))) return 0;
        d->x.phase = DFC_TL_SLOT_CANCEL; /* the root or a reader failed */
        dfc_comm_slot_xchg(d->comm, &d->x);
    }
    d->rc = rc;
    return 1;
}

static int direct_run(dfc_comm_t *c, void *buf, uint64_t bytes, int root)
{
    direct_bcast_t d = {.comm = c,
                        .buf = buf,
                        .x = {.src = buf,
                              .bytes = bytes,
                              .reduce = direct_copy,
                              .phase = DFC_TL_SLOT_BEGIN,
                              .rooted = 1,
                              .root = root}};
    d.x.ctx = &d;
    c->coll_seq++; /* as dfc_coll_start numbers every instance of the communicator */
    int rc = dfc_comm_slot_xchg(c, &d.x);
    if (rc) return rc;
    if (direct_ready(&d)) return d.rc;
    dfc_list_insert_tail(&waiting, &d.link);
    rc = dfc_progress_wait(direct_ready, &d);
    dfc_list_remove(&d.link);
    if (rc && d.x.phase != DFC_TL_SLOT_DONE) {
        d.x.phase = DFC_TL_SLOT_CANCEL;
        dfc_comm_slot_xchg(c, &d.x);
    }
    return rc ? rc : d.rc;
}

int dfc_coll_bcast_direct(dfc_comm_t *c, void *buf, uint64_t bytes, int root)
{
    /* What dfc_coll_select would pick (bcast_shm_slots_usable, no forced algorithm) for a
     * host buffer (run.c's route_of) */
    const char *forced;
    if (!dfc_comm_slots(c) || bytes == 0 || bytes > DFC_COMM_SLOT_BYTES ||
        ((forced = dfc_coll_forced_algorithm(DFC_COLL_BCAST)) && strcmp(forced, "shm_slots")) ||
        dfc_gpu_ptr_device(buf) >= 0)
        return DFC_COLL_NOT_DIRECT;
    return direct_run(c, buf, bytes, root);
}

void dfc_coll_bcast_shm_slots_report(FILE *f)
{
    for (dfc_list_t *e = waiting.next; e != &waiting; e = e->next) {
        const direct_bcast_t *d = DFC_CONTAINER_OF(e, direct_bcast_t, link);
        int written = d->x.phase != DFC_TL_SLOT_WRITE;
        int who = dfc_comm_slot_waiting_for(d->comm, d->x.stamp, written, d->x.root);
        fprintf(f,
                "[dfc hang report] rank %d: collective bcast on comm ctx %u (blocking, shm "
                "slots) waiting for rank %d (stamp %llu, %s)\n",
                dfc_proc.world_rank, d->comm->ctx, who, (unsigned long long)d->x.stamp,
                written ? "its contribution" : "a free slot");
    }
}
